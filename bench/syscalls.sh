#!/usr/bin/env bash
# System calls per HTTP `tools/call`: serves with one server, warms it up,
# then counts with `strace -c -f` (every thread) the system calls it makes
# while the driver sends CALLS calls on CONCURRENCY keep-alive connections,
# and prints each call's count divided by the number of `tools/call`s.
#
#   bench/syscalls.sh [ours|rmcp|floor] [CALLS] [CONCURRENCY]
#
# strace slows the server down many times over: read counts, not times.
set -euo pipefail
cd "$(dirname "$0")"
server=${1:-ours}
calls=${2:-2000}
concurrency=${3:-1}
case "$server" in ours | rmcp | floor) ;; *) echo "usage: $0 [ours|rmcp|floor] [CALLS] [CONCURRENCY]" >&2; exit 2 ;; esac
command -v strace >/dev/null || { echo "strace is not installed" >&2; exit 1; }

# shellcheck source=profiling.sh
. ./profiling.sh
cargo build --release --quiet -p "bench-$server" -p bench-driver
profiling_args
"target/release/bench-$server" http "127.0.0.1:$port" "${server_args[@]}" 2>/dev/null &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
wait_for_port 200 0.05
target/release/bench-driver load "127.0.0.1:$port" "$server_pid" --concurrency "$concurrency" --calls 1000 \
    "${driver_args[@]}" >/dev/null

out="target/syscalls-$server.$$.txt"
threads=$(ls "/proc/$server_pid/task" | paste -sd, -)
strace -c -f -o "$out" -p "$threads" 2>/dev/null &
strace_pid=$!
# strace reports each thread as it attaches; give it the time to reach all.
sleep 1
target/release/bench-driver load "127.0.0.1:$port" "$server_pid" --concurrency "$concurrency" --calls "$calls" \
    "${driver_args[@]}"
kill -INT "$strace_pid"
wait "$strace_pid" || true

# The driver adds 20 untimed calls per connection to the timed ones.
total=$((calls + 20 * concurrency))
echo "$server: system calls per \`tools/call\` over $total calls at concurrency $concurrency"
awk -v total="$total" '
    $NF == "syscall" || /^-/ || $NF == "total" { next }
    # % time, seconds, usecs/call, calls, [errors,] syscall
    NF >= 5 { printf "%-20s %8d  %6.2f per call\n", $NF, $4, $4 / total }
' "$out" | sort -k3 -rn
