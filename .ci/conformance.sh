#!/usr/bin/env bash
# Official MCP conformance suite (2026-07-28 server scenarios) against our `everything`
# example over Streamable HTTP.
#
#   .ci/conformance.sh [URL]
#
# Without URL it starts target/debug/everything --http on a free loopback port itself
# (build it first: cargo build -p examples --bin everything).
#
# 1. every scored scenario, with CONFORMANCE_BASELINE=CONFORMANCE_BASELINE when that file
#    exists at the repo root, or env CONFORMANCE_BASELINE=FILE (run.sh: XFAIL for listed
#    failures, XPASS fails the run);
# 2. the not-scored scenarios in UNSCORED_SCENARIOS, by name, judged by unscored_ok below.
# Results: target/conformance/ and target/conformance-unscored/ (summary.txt, per-scenario logs).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Expected failures: CONFORMANCE_BASELINE at the repo root (override: env CONFORMANCE_BASELINE).
BASELINE_FILE="${CONFORMANCE_BASELINE:-$REPO_ROOT/CONFORMANCE_BASELINE}"
if [ -n "${CONFORMANCE_BASELINE:-}" ]; then
  [ -f "$BASELINE_FILE" ] || die "CONFORMANCE_BASELINE=$BASELINE_FILE not found"
  BASELINE_FILE="$(cd "$(dirname "$BASELINE_FILE")" && pwd)/$(basename "$BASELINE_FILE")"
fi
unset CONFORMANCE_BASELINE  # passed to run.sh explicitly, and only for the scored run
cd "$REPO_ROOT"
require_shared

UNSCORED_SCENARIOS="http-header-validation http-custom-header-server-validation json-schema-2020-12"
RUN_SH="$SHARED_DIR/conformance/run.sh"

# Scenario names listed under `server:` in the baseline file (same parsing as run.sh).
baseline_names() {
  [ -f "$BASELINE_FILE" ] || return 0
  awk '/^[^ #]/ { in_server = ($0 ~ /^server:/); next }
       in_server && /^ *- / { sub(/^ *- */, ""); sub(/[ \t#].*$/, ""); print }' "$BASELINE_FILE"
}

# unscored_ok SUMMARY_TSV SCENARIO...: the verdict rule for the not-scored scenarios.
# run.sh ran them by name without a baseline, so summary.tsv (scenario<TAB>verdict<TAB>...)
# holds plain PASS/FAIL. A scenario is fine when it PASSes and is not in the baseline, or
# does not PASS and is in the baseline (expected failure). A listed scenario that now
# passes fails like run.sh's XPASS, so the baseline cannot go stale; a scenario with no
# row at all fails too.
unscored_ok() {
  local tsv=$1 listed verdict scenario bad=0
  shift
  listed="$(baseline_names)"
  for scenario in "$@"; do
    verdict="$(awk -F'\t' -v s="$scenario" '$1 == s { print $2 }' "$tsv" 2>/dev/null)"
    if printf '%s\n' "$listed" | grep -qxF -- "$scenario"; then
      case "$verdict" in
        PASS) echo "  $scenario: PASS but listed in CONFORMANCE_BASELINE: remove it"; bad=1 ;;
        *)    echo "  $scenario: ${verdict:-no result} (expected, in CONFORMANCE_BASELINE)" ;;
      esac
    else
      case "$verdict" in
        PASS) echo "  $scenario: PASS" ;;
        *)    echo "  $scenario: ${verdict:-no result} (not in CONFORMANCE_BASELINE)"; bad=1 ;;
      esac
    fi
  done
  return "$bad"
}

# Print the FAILURE checks (id: message) of every FAIL row in a run.sh output dir.
show_failures() {
  local out=$1
  awk -F'\t' 'NR > 1 && $2 == "FAIL" { print $1 }' "$out/summary.tsv" | while read -r scenario; do
    echo "--- $scenario (log: $out/$scenario.log)"
    python3 - "$out/$scenario" <<'PY' || true
import glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/*/checks.json"))
if not files:
    print("    no checks.json (harness did not produce results; see the log)")
    sys.exit()
for c in json.load(open(files[-1])):
    if c.get("status") == "FAILURE":
        print(f"    {c.get('id')}: {(c.get('errorMessage') or c.get('description') or '')[:300]}")
PY
  done
}

URL="${1:-}"
if [ -z "$URL" ]; then
  trap stop_http_server EXIT
  trap 'exit 130' INT TERM
  start_http_server
  URL="$SERVER_URL"
fi

status=0

section "conformance: scored 2026-07-28 scenarios"
scored_out="$REPO_ROOT/target/conformance"
if [ -f "$BASELINE_FILE" ]; then
  echo "baseline: $BASELINE_FILE"
  CONFORMANCE_BASELINE="$BASELINE_FILE" "$RUN_SH" "$URL" "$scored_out" || status=$?
else
  "$RUN_SH" "$URL" "$scored_out" || status=$?
fi
[ "$status" -eq 0 ] || show_failures "$scored_out"

section "conformance: not-scored scenarios ($UNSCORED_SCENARIOS)"
unscored_out="$REPO_ROOT/target/conformance-unscored"
rc=0
# shellcheck disable=SC2086  # word-split the scenario list on purpose
"$RUN_SH" "$URL" "$unscored_out" $UNSCORED_SCENARIOS || rc=$?
if [ "$rc" -gt 1 ]; then
  echo "run.sh setup/usage error (exit $rc)"; status=1
else
  # shellcheck disable=SC2086
  if ! unscored_ok "$unscored_out/summary.tsv" $UNSCORED_SCENARIOS; then
    show_failures "$unscored_out"
    status=1
  fi
fi

[ "$status" -eq 0 ] || die "conformance failed (results: target/conformance*, server log: ${SERVER_LOG:-n/a})"
echo "conformance: ok"
