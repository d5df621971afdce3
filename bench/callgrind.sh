#!/usr/bin/env bash
# Instructions per HTTP `tools/call` (user space only, nearly deterministic): runs one
# server under valgrind's callgrind, warms it up uninstrumented, then counts
# the instructions of CALLS calls on one keep-alive connection and prints
# the functions that cost the most, per call (inclusive and self).
#
#   bench/callgrind.sh [ours|rmcp|tower-mcp|turbomcp|floor] [CALLS]
#
# TOOLS=N registers N tools (ours and rmcp); LIST=1 counts `tools/list`
# instead, with every tool in one page; LEGACY=1 2025-era `tools/call`, each
# connection in a session (ours and rmcp). Ours only: LOG=LEVEL installs a
# tracing-subscriber fmt subscriber at LEVEL (its output discarded); OTLP=1
# builds with the `otel` feature and exports every span and metric over
# OTLP/HTTP to a sink on loopback that answers 200 (the export threads are
# counted too); AUTH=ALG (ES256, RS256 or EdDSA) builds with the `auth`
# feature, starts the test suite's authorization server (oidc-provider, see
# oidc.sh) on loopback and protects the server with it, every call carrying
# an access token signed with ALG (the keys are fetched during the
# uninstrumented warm-up, so the counted calls verify with cached keys);
# REDIS=1 builds with the `redis` feature, starts a redis-server on
# loopback (ready when it answers PING) and shares change events, tasks and
# 2025-era sessions through it (Redis's own work is not counted, the
# client's is); REDIS=cluster does the same with a Redis Cluster of three
# masters on loopback (ready when every node reports cluster_state:ok);
# RATE_LIMIT=1 builds with the `rate-limit` feature and puts a server-wide
# RateLimit that never refuses in front of every call. HTTP2=1 builds with the
# `http2` feature (HTTP/2 served beside HTTP/1.1; the calls stay HTTP/1.1);
# H2C=1 with it sends the calls over HTTP/2 (prior knowledge, one stream at a
# time per connection). FORWARD=1 counts a pure gateway (the `forward`
# feature, `--forward`) in front of an uninstrumented bench-ours on
# loopback: the gateway's share of a forwarded call (the remote's own is the
# plain figure).
#
# The kernel's share (TCP, epoll) is not counted here; see profile.sh.
set -euo pipefail
cd "$(dirname "$0")"
server=${1:-ours}
calls=${2:-2000}
case "$server" in
    ours | rmcp | tower-mcp | turbomcp | floor) ;;
    *) echo "usage: $0 [ours|rmcp|tower-mcp|turbomcp|floor] [CALLS]" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

# shellcheck source=profiling.sh
. ./profiling.sh
build_for_profiling
profiling_args
helpers=()
stop_helpers() {
    local pid
    for pid in "${helpers[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_helpers EXIT
if [[ -n "${OTLP:-}" ]]; then
    sink_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 otlp_sink.py "$sink_port" &
    helpers+=($!)
    export OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$sink_port" RUST_LOG=info
fi
if [[ -n "${AUTH:-}" && "$server" == ours ]]; then
    # shellcheck source=oidc.sh
    . ./oidc.sh
    start_provider
    helpers+=("$provider_pid")
    BEARER=$(token_for "$AUTH" "http://127.0.0.1:$port/mcp")
    export BEARER
    server_args+=(--issuer "$issuer")
fi
# start_redis_node [ARG...]: a redis-server on a free loopback port (below 55536: a
# cluster node's bus listens 10000 higher), ready when it answers PING; sets redis_port.
start_redis_node() {
    redis_port=60000
    while ((redis_port > 55535)); do
        redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    done
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no "$@" >/dev/null 2>&1 &
    helpers+=($!)
    for _ in $(seq 100); do
        [[ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" == PONG ]] && return
        sleep 0.1
    done
    echo "redis-server did not start" >&2
    exit 1
}
if [[ -n "${REDIS:-}" && "$server" == ours ]]; then
    command -v redis-server >/dev/null || { echo "redis-server is not installed" >&2; exit 1; }
    if [[ "$REDIS" == cluster ]]; then
        cluster_dir=$(mktemp -d)
        nodes=()
        for _ in 1 2 3; do
            start_redis_node --cluster-enabled yes --cluster-config-file nodes.conf --dir "$(mktemp -d -p "$cluster_dir")"
            nodes+=("127.0.0.1:$redis_port")
        done
        redis-cli --cluster create "${nodes[@]}" --cluster-yes >/dev/null
        for node in "${nodes[@]}"; do
            for _ in $(seq 100); do
                redis-cli -p "${node##*:}" cluster info | tr -d '\r' | grep -qx 'cluster_state:ok' && continue 2
                sleep 0.1
            done
            echo "the Redis Cluster did not become healthy ($node)" >&2
            exit 1
        done
        server_args+=(--redis "redis+cluster://$(IFS=,; echo "${nodes[*]}")/")
    else
        start_redis_node
        server_args+=(--redis "redis://127.0.0.1:$redis_port/")
    fi
fi
if [[ -n "${FORWARD:-}" && "$server" == ours ]]; then
    # The remote: the plain server (not instrumented), ready when it answers a call.
    cargo build --release --quiet -p bench-ours
    remote_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    target/release/bench-ours http "127.0.0.1:$remote_port" &
    helpers+=($!)
    for _ in $(seq 100); do
        target/release/bench-driver load "127.0.0.1:$remote_port" "${helpers[-1]}" --concurrency 1 --calls 1 \
            >/dev/null 2>&1 && break
        sleep 0.1
    done
    server_args+=(--forward "http://127.0.0.1:$remote_port/mcp")
    export ECHO_TOOL=fwd_echo
fi
out="target/profiling/$server${TOOLS:+-$TOOLS-tools}${LIST:+-list}${LEGACY:+-legacy}${LOG:+-log-$LOG}${OTLP:+-otlp}${AUTH:+-auth-$AUTH}${REDIS:+-redis-$REDIS}${H2C:+-h2c}${FORWARD:+-forward}.$$.callgrind.out"
mkdir -p target/profiling
rm -f "$out"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
    "$server_bin" http "127.0.0.1:$port" "${server_args[@]}" 2>"${out%.out}.log" &
vg_pid=$!
wait_for_port 600 0.1
target/release/bench-driver load "127.0.0.1:$port" "$vg_pid" --concurrency 1 --calls 300 "${driver_args[@]}" >/dev/null
callgrind_control -i on "$vg_pid" >/dev/null
# The driver adds 20 warm-up calls on its connection to the timed ones.
target/release/bench-driver load "127.0.0.1:$port" "$vg_pid" --concurrency 1 --calls "$calls" "${driver_args[@]}" >/dev/null
callgrind_control -i off "$vg_pid" >/dev/null
kill "$vg_pid"
wait "$vg_pid" || true
python3 callgrind_summary.py "$out" $((calls + 20)) "$server"
