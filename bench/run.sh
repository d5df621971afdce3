#!/usr/bin/env bash
# Builds and runs the whole benchmark, then prints the table (also written to
# bench/target/latest.md). Arguments go to the driver: a phase (all, build,
# http, legacy, stdio, scale, balancer; balancer and all need haproxy),
# --quick for a short check, --rebuild-cycles N.
#
# A complete run (every phase at full counts) then rewrites the results in
# BENCHMARKS.md between its `results:begin` and `results:end` markers, targets
# table included, stamped with the date and the commit measured (and whether
# the work tree had uncommitted changes). RECORD=no leaves BENCHMARKS.md
# alone, RECORD=yes records any run; BENCHMARKS=FILE rewrites another file.
#
# `bench/run.sh soak` is another thing: the mixed load of bench-soak (calls,
# lists, listen streams, MRTR rounds, 2025-era sessions) against a release
# build of the `everything` example, for SOAK_SECONDS (default 1800) at
# SOAK_CONCURRENCY (default 64). It writes bench/results/soak/soak.{csv,svg}
# and fails on any error or on growth of the server's memory or open files.
#
# `bench/run.sh peers [--workload echo|io|both] [--quick]` runs every peer
# framework side by side (tower-mcp, TurboMCP, the TypeScript and Python SDKs
# besides rmcp), on the echo call and on the I/O-bound `lookup` (needs
# redis-server and taskset).
#
# `bench/run.sh auth [CALLS]` runs auth.sh: the instructions per call and the
# req/s of bench-ours unprotected and protected by a JWT with cached keys.
set -euo pipefail
cd "$(dirname "$0")"

if [[ "${1:-}" == auth ]]; then
    shift
    exec ./auth.sh "$@"
fi

if [[ "${1:-}" == peers ]]; then
    # Every peer framework side by side (BENCHMARKS.md, "Side by side with
    # every peer"): the Rust peers built here, the TypeScript and Python
    # SDKs installed into target/peers (npm and PyPI, pinned), then the
    # driver's `peers` phase. `--quick` for a short check; a full run is
    # recorded between the peers:begin and peers:end markers (echo) and the
    # peers-io:begin and peers-io:end markers (I/O-bound) unless RECORD=no.
    shift
    ./peers/install.sh
    cargo build --release --quiet -p bench-driver
    # One package per build: built together, cargo would unify their
    # dependencies' features (the peers turn on serde_json's
    # preserve_order, tokio's full), and ours and rmcp would not be the
    # binaries the other phases measure. Each with `lookup` (feature `io`),
    # which it serves only when the driver gives it the backends.
    for package in bench-ours bench-rmcp bench-floor bench-tower-mcp bench-turbomcp; do
        cargo build --release --quiet -p "$package" --features io
    done
    rm -f target/peers.md target/peers-io.md
    target/release/bench-driver peers "$@"
    record=${RECORD:-auto}
    if [[ "$record" == auto ]]; then
        record=yes
        [[ " $* " == *" --quick "* ]] && record=no
    fi
    [[ "$record" == yes ]] || exit 0
    commit=$(git rev-parse --short HEAD)
    [[ -z "$(git status --porcelain -- .. 2>/dev/null)" ]] || commit="$commit plus uncommitted changes"
    stamp="Run on $(date -u +%Y-%m-%d) with \`bench/run.sh peers${*:+ $*}\`, on the workspace as of commit $commit."
    for marker in peers peers-io; do
        [[ -f "target/$marker.md" ]] || continue
        python3 - "${BENCHMARKS:-../BENCHMARKS.md}" "target/$marker.md" "$stamp" "$marker" <<'PY'
import sys

path, latest, stamp, marker = sys.argv[1:5]
text = open(path, encoding="utf-8").read()
begin = text.find(f"<!-- {marker}:begin")
end = text.find(f"<!-- {marker}:end -->")
if begin < 0 or end < begin:
    sys.exit(f"{path} has no {marker}:begin / {marker}:end markers")
table = open(latest, encoding="utf-8").read().strip()
block = f"<!-- {marker}:begin (written by bench/run.sh peers) -->\n{stamp}\n\n{table}\n"
open(path, "w", encoding="utf-8").write(text[:begin] + block + text[end:])
print(f"{marker} recorded in {path}", file=sys.stderr)
PY
    done
    exit
fi

if [[ "${1:-}" == soak ]]; then
    seconds=${SOAK_SECONDS:-1800}
    concurrency=${SOAK_CONCURRENCY:-64}
    out=${SOAK_OUT:-results/soak}
    cargo build --release --quiet -p bench-soak
    (cd .. && cargo build --release --quiet -p examples --bin everything)
    everything=${CARGO_TARGET_DIR:-../target}/release/everything
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    mkdir -p "$out" target
    "$everything" --http "127.0.0.1:$port" > target/soak-everything.log 2>&1 < /dev/null &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    title="bench/run.sh soak: ${seconds} s at concurrency $concurrency, everything (release), $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)"
    target/release/bench-soak "http://127.0.0.1:$port/mcp" "$server" \
        --seconds "$seconds" --concurrency "$concurrency" --out "$out" --title "$title"
    exit
fi

cargo build --release --quiet -p bench-driver
target/release/bench-driver "$@"

record=${RECORD:-auto}
if [[ "$record" == auto ]]; then
    record=yes
    for arg in "$@"; do
        case "$arg" in all | --rebuild-cycles | [0-9]*) ;; *) record=no ;; esac
    done
fi
[[ "$record" == yes ]] || exit 0

file=${BENCHMARKS:-../BENCHMARKS.md}
commit=$(git rev-parse --short HEAD)
if [[ -n "$(git status --porcelain -- .. 2>/dev/null)" ]]; then
    commit="$commit plus uncommitted changes"
fi
stamp="Run on $(date -u +%Y-%m-%d) with \`bench/run.sh${*:+ $*}\`, on the workspace as of commit $commit. The load
average is the machine's before the run; during the run the benchmark itself keeps both
cores busy."
python3 - "$file" target/latest.md "$stamp" <<'PY'
import sys

path, latest, stamp = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path, encoding="utf-8").read()
begin = text.find("<!-- results:begin")
end = text.find("<!-- results:end -->")
if begin < 0 or end < begin:
    sys.exit(f"{path} has no results:begin / results:end markers")
table = open(latest, encoding="utf-8").read().strip()
block = (
    "<!-- results:begin (written by bench/run.sh: the stamp and bench/target/latest.md) -->\n"
    f"{stamp}\n\n{table}\n"
)
open(path, "w", encoding="utf-8").write(text[:begin] + block + text[end:])
print(f"results recorded in {path}", file=sys.stderr)
PY
