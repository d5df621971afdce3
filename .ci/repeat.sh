#!/usr/bin/env bash
# The README's test command, `cargo test --workspace`, N times in a row on a busy machine: a
# test that fails only sometimes (on a first run, or when the cores are shared) fails here.
#
#   .ci/repeat.sh N
#
# - The runs build into target/repeat/cargo (CARGO_TARGET_DIR), and target/repeat/ is removed
#   first: the first run compiles everything from nothing, as on a fresh machine; the later
#   ones reuse that build, as a developer's next runs would.
# - During every run a background compilation keeps every core busy: one loop per core (nproc),
#   each rebuilding the workspace in release mode with `-j 1` into a target directory of its
#   own (target/repeat/load-K), `cargo clean -p mcp-runtime` before each round so that it never
#   runs out of work. The loops are stopped when the run ends.
# - Each run's output is kept in target/repeat/logs/run-K.log. After each run: its exit status,
#   its duration, the load average it ran under, the tests that failed (`... FAILED` lines and
#   the test binaries cargo names) and where they panicked (`panicked at` lines). At the end:
#   `N runs, F failed`, and the exit status is non-zero when any run failed.
#
# Environment:
#   REPEAT_COMMAND       a shell command run instead of `cargo test --workspace` (to try this
#                        script out: REPEAT_COMMAND='sleep 2' .ci/repeat.sh 2)
#   REPEAT_LOAD_COMMAND  a shell command run in a loop instead of each round of the background
#                        compilation (e.g. `sleep 1` for no load); it runs in its loop's own
#                        directory target/repeat/load-K, its working directory being the
#                        repository's root
#   REPEAT_LOAD_LOOPS    how many loops run at once (default: the number of cores, nproc)
# Whatever else the environment holds (CI=true, RUST_LOG...) reaches the runs unchanged.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

RUNS="${1:-}"
if [ $# -ne 1 ] || ! [[ "$RUNS" =~ ^[1-9][0-9]*$ ]]; then die "usage: .ci/repeat.sh N (N >= 1)"; fi
LOOPS="${REPEAT_LOAD_LOOPS:-$(nproc)}"
[[ "$LOOPS" =~ ^[0-9]+$ ]] || die "REPEAT_LOAD_LOOPS must be a number"

WORK="$REPO_ROOT/target/repeat"
LOGS="$WORK/logs"
rm -rf "$WORK"
mkdir -p "$LOGS"
export CARGO_TARGET_DIR="$WORK/cargo"

# The README's command exactly, unless REPEAT_COMMAND says otherwise.
run_tests() {
  if [ -n "${REPEAT_COMMAND:-}" ]; then
    bash -c "$REPEAT_COMMAND"
  else
    cargo test --workspace
  fi
}

# load_round DIR: one round of the background compilation into DIR.
load_round() {
  if [ -n "${REPEAT_LOAD_COMMAND:-}" ]; then
    bash -c "$REPEAT_LOAD_COMMAND"
  else
    cargo clean --quiet --release -p mcp-runtime --target-dir "$1" 2>/dev/null || true
    cargo build --quiet --release --workspace -j 1 --target-dir "$1" || true
  fi
}

# Each loop leads a process group of its own (setsid), so that stopping it stops the cargo
# and rustc it started too, and nothing else.
LOAD_PIDS=()
start_load() {
  local k dir
  for ((k = 1; k <= LOOPS; k++)); do
    dir="$WORK/load-$k"
    mkdir -p "$dir"
    REPEAT_LOAD_DIR="$dir" setsid bash -c "$(declare -f load_round); while :; do load_round \"\$REPEAT_LOAD_DIR\"; done" \
      > "$dir/load.log" 2>&1 < /dev/null &
    LOAD_PIDS+=("$!")
  done
}
stop_load() {
  local pid
  for pid in "${LOAD_PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${LOAD_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  LOAD_PIDS=()
}
trap stop_load EXIT
trap 'exit 130' INT TERM

duration() { printf '%dm%02ds' "$(($1 / 60))" "$(($1 % 60))"; }

failed_runs=0 results=()
for ((run = 1; run <= RUNS; run++)); do
  log="$LOGS/run-$run.log"
  section "run $run of $RUNS$([ "$run" -gt 1 ] || echo ' (from an empty target directory)'): $LOOPS background compilation loop(s), log $log"
  start_load
  t0=$SECONDS rc=0
  run_tests > "$log" 2>&1 < /dev/null || rc=$?
  took=$((SECONDS - t0))
  load="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
  stop_load
  # `test a::b ... FAILED` for a test, `error: test failed, to rerun pass `--test x`` for a binary.
  # shellcheck disable=SC2016 # the backquotes are cargo's, not a command
  failures="$(sed -n -e 's/^test \(.*\) \.\.\. FAILED$/\1/p' \
    -e 's/^error: test failed, to rerun pass `\(.*\)`$/binary: \1/p' "$log" | sort -u)"
  panics="$(grep -o 'panicked at [^ ]*[^ :]' "$log" | sort | uniq -c | sort -rn | head -n 10 | sed 's/^ *//' || true)"
  echo "run $run: exit $rc, $(duration "$took") (load average at its end: $load)"
  if [ "$rc" -ne 0 ]; then
    failed_runs=$((failed_runs + 1))
    echo "failed tests:"
    awk '{ print "  " $0 }' <<< "${failures:-(none named: see the log)}"
    [ -z "$panics" ] || { echo "panics (count, place):"; awk '{ print "  " $0 }' <<< "$panics"; }
    echo "---- tail of $log"
    tail -n 20 "$log"
  fi
  results+=("$(printf 'run %-3s exit %-3s %8s  %s' "$run" "$rc" "$(duration "$took")" \
    "$(tr '\n' ' ' <<< "$failures")")")
done

section "summary"
printf '%s\n' "${results[@]}"
echo "$RUNS runs, $failed_runs failed"
[ "$failed_runs" -eq 0 ]
