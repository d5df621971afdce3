#!/usr/bin/env bash
# Where one server's CPU goes on HTTP `tools/call`: runs it under `perf record`
# (cpu-clock samples with DWARF call stacks, from a release build with line
# tables) while the driver sends calls, then sorts the samples by stage.
#
#   bench/profile.sh [ours|rmcp|floor] [CALLS] [CONCURRENCY]
#
# TOOLS=N registers N tools (ours and rmcp); LIST=1 profiles `tools/list`
# instead, with every tool in one page; LEGACY=1 2025-era `tools/call`, each
# connection in a session (ours and rmcp).
#
# Sampling slows the server down; read shares, not absolute times.
set -euo pipefail
cd "$(dirname "$0")"
server=${1:-ours}
calls=${2:-50000}
concurrency=${3:-16}
case "$server" in ours | rmcp | floor) ;; *) echo "usage: $0 [ours|rmcp|floor] [CALLS] [CONCURRENCY]" >&2; exit 2 ;; esac
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 1; }

# shellcheck source=profiling.sh
. ./profiling.sh
build_for_profiling
profiling_args
data="target/profiling/$server${TOOLS:+-$TOOLS-tools}${LIST:+-list}${LEGACY:+-legacy}.$$.perf.data"
perf record -q -F 1999 -g --call-graph dwarf,32768 -o "$data" -- \
    "$server_bin" http "127.0.0.1:$port" "${server_args[@]}" 2>/dev/null &
perf_pid=$!
wait_for_port 200 0.05
server_pid=$(pgrep -P "$perf_pid")
target/release/bench-driver load "127.0.0.1:$port" "$server_pid" --concurrency "$concurrency" --calls "$calls" "${driver_args[@]}"
kill -INT "$perf_pid"
wait "$perf_pid" || true
perf script -i "$data" -F comm,tid,ip,sym 2>/dev/null | python3 profile_summary.py "$server"
