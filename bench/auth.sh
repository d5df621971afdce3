#!/usr/bin/env bash
# The cost of authorization: a modern `tools/call` of bench-ours unprotected,
# then protected by the test suite's authorization server (oidc-provider on
# loopback, see oidc.sh) with an access token signed with ES256, RS256 and
# EdDSA. Keys are cached: the server fetches them on the first call, during
# the uninstrumented warm-up.
#
#   bench/auth.sh [CALLS]        (also `bench/run.sh auth [CALLS]`)
#
# First the instructions per call (callgrind.sh ours CALLS, default 4000),
# then, unless LOAD=no, req/s at concurrency 16 (LOAD_CALLS calls, default
# 50000) unprotected and with an ES256 token, both servers built as
# callgrind.sh builds them (release, line tables).
set -euo pipefail
cd "$(dirname "$0")"
calls=${1:-4000}

# The line of callgrind.sh's summary with the instructions per call.
per_call() {
    local out
    out=$("$@")
    grep -m1 'instructions per call' <<<"$out"
}

echo "instructions per modern tools/call ($calls calls):"
echo "  unprotected: $(per_call ./callgrind.sh ours "$calls")"
for alg in ES256 RS256 EdDSA; do
    echo "  $alg: $(AUTH=$alg per_call ./callgrind.sh ours "$calls")"
done
[[ "${LOAD:-yes}" == no ]] && exit 0

# shellcheck source=oidc.sh
. ./oidc.sh
# shellcheck source=profiling.sh
. ./profiling.sh
start_provider
server_pid=
trap 'kill "$provider_pid" ${server_pid:+"$server_pid"} 2>/dev/null || true' EXIT
load_calls=${LOAD_CALLS:-50000}
echo "req/s at concurrency 16 ($load_calls calls):"
for alg in none ES256; do
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if [[ "$alg" == none ]]; then
        target/profiling/release/bench-ours http "127.0.0.1:$port" &
        unset BEARER
    else
        target/profiling-auth/release/bench-ours http "127.0.0.1:$port" --issuer "$issuer" &
        BEARER=$(token_for "$alg" "http://127.0.0.1:$port/mcp")
        export BEARER
    fi
    server_pid=$!
    wait_for_port 100 0.1
    echo "  $alg: $(target/release/bench-driver load "127.0.0.1:$port" "$server_pid" --concurrency 16 --calls "$load_calls")"
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=
done
