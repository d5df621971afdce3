#!/usr/bin/env bash
# Builds the fuzz targets under fuzz/ (cargo-fuzz, libFuzzer) and runs each one for a bounded
# time from its committed seeds (fuzz/corpus/<target>/); a panic, a time-out or running out of
# memory fails the step, and libFuzzer leaves the input that did it under
# $RESULTS_DIR/fuzz/<target>/ (see CONTRIBUTING.md: each one becomes a regression test).
#
#   .ci/fuzz.sh [SECONDS]     seconds per target (default 15; 7 targets: with the build, about
#                             5 minutes on 2 cores from a cold cache)
#
# The targets are those `cargo fuzz list` reports (every [[bin]] of fuzz/Cargo.toml); each
# must have a non-empty fuzz/corpus/<target>/, and an empty list fails the step.
#
# Built with CI's one stable toolchain: `--sanitizer none`. cargo-fuzz's default,
# AddressSanitizer, needs `-Zsanitizer`, a nightly flag; without a sanitizer cargo-fuzz asks for
# no unstable flag (the coverage instrumentation is `-C` flags, plus `--cfg fuzzing`), so it
# builds on the pinned stable toolchain as it is, with neither a nightly nor RUSTC_BOOTSTRAP.
# What AddressSanitizer would add is little here: the runtime forbids `unsafe`, so memory
# errors cannot come from it; libFuzzer still catches panics, aborts, time-outs and memory
# blow-ups (leaks go unnoticed without it).
#
# The build goes to $FUZZ_TARGET_DIR, default $CI_CACHE/fuzz (kept between runs, like the other
# caches), with release optimisations, debug assertions and overflow checks (cargo-fuzz's
# defaults).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT/fuzz"

SECONDS_EACH="${1:-15}"
[[ "$SECONDS_EACH" =~ ^[0-9]+$ ]] || die "usage: .ci/fuzz.sh [SECONDS]"
CARGO_FUZZ_BIN="$TOOLS_DIR/cargo-fuzz/bin"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  [ -x "$CARGO_FUZZ_BIN/cargo-fuzz" ] || die "cargo-fuzz not installed (.ci/install.sh installs it)"
  export PATH="$CARGO_FUZZ_BIN:$PATH"
fi
# The same options for the build and each run, or the run would build again.
FUZZ_OPTIONS=(--sanitizer none --target-dir "${FUZZ_TARGET_DIR:-$CI_CACHE/fuzz}")

# Every target fuzz/Cargo.toml declares: a new one is fuzzed without being listed here, and
# one without seeds fails before anything is built.
listed="$(cargo fuzz list)" || die "cargo fuzz list failed"
mapfile -t TARGETS < <(awk NF <<< "$listed")
[ "${#TARGETS[@]}" -gt 0 ] || die "cargo fuzz list reports no target"
for target in "${TARGETS[@]}"; do
  seeds="$REPO_ROOT/fuzz/corpus/$target"
  [ -n "$(find "$seeds" -type f -print -quit 2>/dev/null)" ] || die "$target has no seed corpus (no file under $seeds)"
done
echo "targets (cargo fuzz list): ${TARGETS[*]}"

echo "cargo fuzz build --sanitizer none ($(cargo fuzz --version))"
cargo fuzz build "${FUZZ_OPTIONS[@]}" || die "the fuzz targets do not build"

failed=()
for target in "${TARGETS[@]}"; do
  seeds="$REPO_ROOT/fuzz/corpus/$target"
  # New inputs go to a scratch corpus, never into the committed seeds.
  scratch="$CI_CACHE/fuzz-corpus/$target"
  artifacts="$RESULTS_DIR/fuzz/$target"
  mkdir -p "$scratch" "$artifacts"
  echo "-- $target: ${SECONDS_EACH}s from $(find "$seeds" -type f | wc -l) seeds"
  # -timeout: one input taking a second is a hang (every reader is linear); -rss_limit_mb: a
  # blow-up; -max_len: inputs past the readers' size limits are refused before any work.
  if ! cargo fuzz run "${FUZZ_OPTIONS[@]}" "$target" "$scratch" "$seeds" -- \
    -max_total_time="$SECONDS_EACH" -timeout=1 -rss_limit_mb=1024 -max_len=65536 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 \
    | grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^[[:space:]]+NEW_FUNC'; then
    failed+=("$target")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzzing found a failure in: ${failed[*]} (inputs under $RESULTS_DIR/fuzz/)"
  exit 1
fi
echo "fuzzing: ${#TARGETS[@]} targets, ${SECONDS_EACH}s each, no failure"
