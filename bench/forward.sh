#!/usr/bin/env bash
# Server CPU per `tools/call` forwarded by a gateway, beside the same call
# served directly, under load (c=16, c=64): a plain `bench-ours` (the remote)
# and a pure gateway in front of it (`bench-ours --forward`, the `forward`
# feature) on loopback, the driver calling the remote's `echo` directly and
# the gateway's `fwd_echo`, alternately, ROUNDS times (default 3) of CALLS
# calls (default 50000). Prints a table of medians: the gateway's CPU, the
# remote's behind it, and the direct call's.
#
#   bench/forward.sh [CALLS]
#
# SERVERS_FROM=DIR measures the servers of another checkout's bench/ (an
# earlier commit, say), driven by this one's driver.
#
# Three processes share the machine's cores (the driver, the gateway, the
# remote), so rates and latencies are read for what they are: the figure
# compared is CPU per call (utime + stime from /proc, as run.sh takes it).
set -euo pipefail
cd "$(dirname "$0")"
calls=${1:-50000}
rounds=${ROUNDS:-3}

servers=$(cd "${SERVERS_FROM:-.}" && pwd)
cargo build --release --quiet -p bench-driver
(cd "$servers" && cargo build --release --quiet -p bench-ours &&
    CARGO_TARGET_DIR=target/forward cargo build --release --quiet -p bench-ours --features forward)
driver=target/release/bench-driver

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT
# serve NAME PORT ARGS...: starts a server, ready when it answers a call.
serve() {
    local name=$1 port=$2
    shift 2
    "$@" > "target/forward-$name.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 200); do
        "$driver" load "127.0.0.1:$port" "${pids[-1]}" --concurrency 1 --calls 1 > /dev/null 2>&1 && return
        sleep 0.1
    done
    echo "$name did not answer a call" >&2
    exit 1
}

remote_port=$(free_port)
serve remote "$remote_port" "$servers/target/release/bench-ours" http "127.0.0.1:$remote_port"
remote=${pids[-1]}
gateway_port=$(free_port)
ECHO_TOOL=fwd_echo serve gateway "$gateway_port" \
    "$servers/target/forward/release/bench-ours" http "127.0.0.1:$gateway_port" --forward "http://127.0.0.1:$remote_port/mcp"
gateway=${pids[-1]}

out=$(mktemp)
for round in $(seq "$rounds"); do
    for c in 16 64; do
        direct=$("$driver" load "127.0.0.1:$remote_port" "$remote" --concurrency "$c" --calls "$calls")
        forwarded=$(ECHO_TOOL=fwd_echo "$driver" load "127.0.0.1:$gateway_port" "$gateway" --behind "$remote" \
            --concurrency "$c" --calls "$calls")
        echo "round $round c=$c direct: $direct" >&2
        echo "round $round c=$c forwarded: $forwarded" | tr '\n' ' ' >&2
        echo >&2
        printf '%s\t%s\t%s\n' "$c" "$direct" "$(echo "$forwarded" | tr '\n' ' ')" >> "$out"
    done
done

python3 - "$out" "$calls" "$rounds" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    c, direct, forwarded = line.rstrip("\n").split("\t")
    number = lambda pattern, text: float(re.search(pattern, text).group(1))
    row = rows.setdefault(int(c), {k: [] for k in ("direct", "rate_d", "gateway", "behind", "rate_f")})
    row["direct"].append(number(r"server CPU ([\d.]+)", direct))
    row["rate_d"].append(number(r": (\d+) req/s", direct))
    row["gateway"].append(number(r"front CPU ([\d.]+)", forwarded))
    row["behind"].append(number(r"behind it ([\d.]+)", forwarded))
    row["rate_f"].append(number(r": (\d+) req/s", forwarded))
print(f"Medians of {sys.argv[3]} rounds of {sys.argv[2]} calls each (µs of CPU per call):\n")
print("| concurrency | direct: the server | forwarded: the gateway | forwarded: the remote behind it | gateway / direct | direct req/s | forwarded req/s |")
print("|---|---:|---:|---:|---:|---:|---:|")
for c, row in sorted(rows.items()):
    m = {k: statistics.median(v) for k, v in row.items()}
    print(f"| c={c} | {m['direct']:.1f} | {m['gateway']:.1f} | {m['behind']:.1f} | {m['gateway'] / m['direct']:.2f} | {m['rate_d']:.0f} | {m['rate_f']:.0f} |")
EOF
rm -f "$out"
