#!/usr/bin/env bash
# Where one server's CPU goes on HTTP `tools/call`: runs it under `perf record`
# (cpu-clock samples with DWARF call stacks, from a release build with line
# tables) while the driver sends calls, then sorts the samples by stage.
#
#   bench/profile.sh [ours|rmcp|floor] [CALLS] [CONCURRENCY]
#
# TOOLS=N registers N tools (ours and rmcp); LIST=1 profiles `tools/list`
# instead, with every tool in one page.
#
# Sampling slows the server down; read shares, not absolute times.
set -euo pipefail
cd "$(dirname "$0")"
server=${1:-ours}
calls=${2:-50000}
concurrency=${3:-16}
case "$server" in ours | rmcp | floor) ;; *) echo "usage: $0 [ours|rmcp|floor] [CALLS] [CONCURRENCY]" >&2; exit 2 ;; esac
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 1; }

CARGO_TARGET_DIR=target/profiling CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
    cargo build --release --quiet -p "bench-$server"
cargo build --release --quiet -p bench-driver

server_args=()
driver_args=()
if [[ -n "${TOOLS:-}" ]]; then
    server_args+=(--tools "$TOOLS")
    [[ "$server" == ours ]] && server_args+=(--page-size "$TOOLS")
fi
[[ -n "${LIST:-}" ]] && driver_args+=(--list)

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data="target/profiling/$server${TOOLS:+-$TOOLS-tools}${LIST:+-list}.$$.perf.data"
perf record -q -F 1999 -g --call-graph dwarf,32768 -o "$data" -- \
    "target/profiling/release/bench-$server" http "127.0.0.1:$port" "${server_args[@]}" 2>/dev/null &
perf_pid=$!
for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
done
server_pid=$(pgrep -P "$perf_pid")
target/release/bench-driver load "127.0.0.1:$port" "$server_pid" --concurrency "$concurrency" --calls "$calls" "${driver_args[@]}"
kill -INT "$perf_pid"
wait "$perf_pid" || true
perf script -i "$data" -F comm,tid,ip,sym 2>/dev/null | python3 profile_summary.py "$server"
