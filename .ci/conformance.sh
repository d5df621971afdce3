#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# .ci/conformance/package.json) against the `everything` example over Streamable HTTP.
#
#   .ci/conformance.sh [--spec-version REV] [--label NAME] [--strict] [URL] [SCENARIO...]
#
# Without URL it starts $CARGO_TARGET_DIR/debug/everything --http 127.0.0.1:0 (the system picks the port)
# (build it first: cargo build -p examples --bin everything). REV defaults to 2026-07-28
# (the stateless wire); 2025-11-25 runs the scenarios of that revision on its own wire
# (initialize, then Mcp-Session-Id), against the same URL since the server serves both. A
# revision is known when .ci/conformance/scored-REV.txt exists. SCENARIO names run only
# those (from the lists below); by default all of them run.
#
# Data, per revision, in .ci/conformance/:
#   scored-REV.txt             the scored scenarios (checked against the suite's frozen
#                              requirements/REV.yaml; they must match)
#   unscored-REV.txt           not-scored scenarios we run and expect to pass too; with
#                              the scored ones they must be every server scenario the
#                              suite lists at REV (`list --server --spec-version REV`)
#   extensions-REV.txt         extension scenarios we run and expect to pass (the suite
#                              lists them untimed, as [extension]): every one of the
#                              extensions named in EXTENSION_PREFIXES, and only those
#   expected-failures-REV.txt  known failures (env CONFORMANCE_BASELINE=FILE overrides):
#                              a listed scenario that fails is XFAIL, one that passes is
#                              XPASS and fails the run
#   untestable-REV.txt         scenarios of the lists above that this version of the suite
#                              cannot test: it skips every check of them itself. Each is
#                              reported N/T ("not testable", with the reason the suite wrote
#                              in its skipped checks), neither passed nor failed; one that
#                              fails is FAIL, and one with a check that succeeded is STALE
#                              and fails the run (the suite tests it now: take it off)
# Each scenario runs alone, and .ci/conformance/judge.py judges it: it passes when the
# harness exited 0 (a time-out fails, and says so), none of the checks in its checks.json
# is FAILURE (with --strict: and none is WARNING either, such as a stream that could not
# be resumed), and at least one of the scenario's own checks is SUCCESS, scored or not
# (the suite's wire-schema-* checks, added to every scenario, are not its own: a scenario
# whose own checks were all skipped, or that wrote none, tested nothing and fails).
# Prints a line per scenario, then the counts: `scored: ...; not scored: ...`, and last
# `N passed, N failed, N not testable`.
# Results: $CI_CACHE/results/conformance-REV[-NAME]/ (per-scenario logs and checks.json,
# summary.txt). Env CONFORMANCE_SCENARIO_TIMEOUT: seconds per scenario (default 120).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODERN_REVISION=2026-07-28
REV=$MODERN_REVISION
LABEL=""
STRICT=""
URL=""
ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --spec-version) [ $# -ge 2 ] || die "--spec-version needs a value"; REV=$2; shift 2 ;;
    --label) [ $# -ge 2 ] || die "--label needs a value"; LABEL=$2; shift 2 ;;
    --strict) STRICT=1; shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    http://* | https://*) URL=$1; shift ;;
    -*) die "unknown option: $1 (usage: .ci/conformance.sh [--spec-version REV] [--label NAME] [--strict] [URL] [SCENARIO...])" ;;
    *) ONLY+=("$1"); shift ;;
  esac
done

DATA="$REPO_ROOT/.ci/conformance"
SCORED_FILE="$DATA/scored-$REV.txt"
UNSCORED_FILE="$DATA/unscored-$REV.txt"
EXTENSIONS_FILE="$DATA/extensions-$REV.txt"
# The extensions this server implements at this revision, by the prefix of their scenarios'
# names: tasks in the stateless revision alone, skills in both eras.
case "$REV" in
  "$MODERN_REVISION") EXTENSION_PREFIXES="tasks- sep-2640-skills-" ;;
  *) EXTENSION_PREFIXES="sep-2640-skills-" ;;
esac
BASELINE_FILE="${CONFORMANCE_BASELINE:-$DATA/expected-failures-$REV.txt}"
UNTESTABLE_FILE="$DATA/untestable-$REV.txt"
[ -f "$SCORED_FILE" ] || die "unknown revision $REV: no $SCORED_FILE"
[ -z "${CONFORMANCE_BASELINE:-}" ] || [ -f "$BASELINE_FILE" ] || die "CONFORMANCE_BASELINE=$BASELINE_FILE not found"
TIMEOUT_S="${CONFORMANCE_SCENARIO_TIMEOUT:-120}"

# Scenario names in a list file: the first word of each line, without comments.
names() { [ -f "$1" ] || return 0; sed 's/#.*//' "$1" | awk 'NF { print $1 }'; }
in_list() { printf '%s\n' "$2" | grep -qxF -- "$1"; }

ensure_conformance_suite >/dev/null
NODE_BIN="$(conformance_node)"
SUITE_DIR="$TOOLS_DIR/conformance/node_modules/@modelcontextprotocol/conformance"
SUITE_JS="$SUITE_DIR/dist/index.js"
SUITE_VERSION="$("$NODE_BIN" -p 'require(process.argv[1]).version' "$SUITE_DIR/package.json")"

SCORED="$(names "$SCORED_FILE")"
UNSCORED="$(names "$UNSCORED_FILE")"
EXTENSIONS="$(names "$EXTENSIONS_FILE")"
BASELINE="$(names "$BASELINE_FILE")"
UNTESTABLE="$(names "$UNTESTABLE_FILE")"

# Our scored list must be the suite's frozen one for this revision (the `server:` list).
frozen="$(awk '/^[^ #]/ { in_server = ($0 ~ /^server:/); next }
               in_server && /^  - / { print $2 }' "$SUITE_DIR/requirements/$REV.yaml")"
if [ "$(sort <<< "$SCORED")" != "$(sort <<< "$frozen")" ]; then
  echo "scored-$REV.txt differs from the suite's requirements/$REV.yaml (< ours, > suite's):"
  diff <(sort <<< "$SCORED") <(sort <<< "$frozen") | grep '^[<>]' || true
  die "fix .ci/conformance/scored-$REV.txt"
fi

# With the not-scored list, every scenario the suite has at this revision: none goes unrun,
# and none is run at a revision it does not have (it would report nothing and pass).
listed="$("$NODE_BIN" "$SUITE_JS" list --server --spec-version "$REV" | awk '/^  - / { print $2 }')" \
  || die "the suite does not list scenarios at $REV"
ours="$(printf '%s\n' "$SCORED" "$UNSCORED" | awk NF | sort)"
if [ "$ours" != "$(sort <<< "$listed")" ]; then
  echo "scored-$REV.txt + unscored-$REV.txt differ from the suite's scenarios at $REV (< ours, > suite's):"
  diff <(echo "$ours") <(sort <<< "$listed") | grep '^[<>]' || true
  die "fix .ci/conformance/unscored-$REV.txt"
fi

# The extension scenarios: those of the extensions we implement, all of them, and no other.
if [ -f "$EXTENSIONS_FILE" ]; then
  suite_ext="$("$NODE_BIN" "$SUITE_JS" list --server | awk '/^  - / && $3 == "[extension]" { print $2 }')" \
    || die "the suite does not list its extension scenarios"
  ours_ext="$(printf '%s\n' "$EXTENSIONS" | awk NF | sort)"
  theirs_ext="$(printf '%s\n' "$suite_ext" | grep -E "^(${EXTENSION_PREFIXES// /|})" | sort || true)"
  if [ "$ours_ext" != "$theirs_ext" ]; then
    echo "extensions-$REV.txt differs from the suite's extension scenarios named ${EXTENSION_PREFIXES}* (< ours, > suite's):"
    diff <(echo "$ours_ext") <(echo "$theirs_ext") | grep '^[<>]' || true
    die "fix .ci/conformance/extensions-$REV.txt"
  fi
fi

# What is not testable is one of the scenarios we run, and not an expected failure as well.
while IFS= read -r s; do
  [ -z "$s" ] && continue
  in_list "$s" "$SCORED"$'\n'"$UNSCORED"$'\n'"$EXTENSIONS" \
    || die "$s, in untestable-$REV.txt, is in none of scored-$REV.txt, unscored-$REV.txt, extensions-$REV.txt"
  ! in_list "$s" "$BASELINE" || die "$s is both not testable (untestable-$REV.txt) and an expected failure"
done <<< "$UNTESTABLE"

if [ ${#ONLY[@]} -gt 0 ]; then
  for s in "${ONLY[@]}"; do
    in_list "$s" "$SCORED"$'\n'"$UNSCORED"$'\n'"$EXTENSIONS" \
      || die "$s is in none of scored-$REV.txt, unscored-$REV.txt, extensions-$REV.txt"
  done
  SCORED="$(printf '%s\n' "${ONLY[@]}" | grep -xF -- "$SCORED" || true)"
  UNSCORED="$(printf '%s\n' "${ONLY[@]}" | grep -xF -- "$UNSCORED" || true)"
  EXTENSIONS="$(printf '%s\n' "${ONLY[@]}" | grep -xF -- "$EXTENSIONS" || true)"
fi

if [ -z "$URL" ]; then
  trap stop_http_server EXIT
  trap 'exit 130' INT TERM
  start_http_server
  URL="$SERVER_URL"
fi

# --force: at 2026-07-28 the extension scenarios (tasks-*) are off the spec timeline and
# would be skipped otherwise. A legacy revision goes without it, so that a scenario it
# does not have is reported rather than run on the wrong wire.
# Extension scenarios are on no revision's timeline: forced at every revision, on its wire.
FORCE=()
[ "$REV" != "$MODERN_REVISION" ] || FORCE=(--force)

OUT="$RESULTS_DIR/conformance-$REV${LABEL:+-$LABEL}"
rm -rf "$OUT"
mkdir -p "$OUT"
section "conformance $SUITE_VERSION, revision $REV, $URL (node $("$NODE_BIN" --version))"
echo "results: $OUT"
[ -z "$BASELINE" ] || echo "expected failures: $BASELINE_FILE"
[ -z "$UNTESTABLE" ] || echo "not testable by this suite: $UNTESTABLE_FILE"

passed=0 failed=0 xfailed=0 untestable=0 scored_passed=0 scored_failed=0
run_scenario() {
  local scenario=$1 kind=$2 dir="$OUT/$1" log="$OUT/$1.log" rc=0 verdict tag reason note=""
  local force=(${FORCE[@]+"${FORCE[@]}"})
  [ "$kind" != extension ] || force=(--force)
  mkdir -p "$dir"
  timeout "$((TIMEOUT_S + 30))" "$NODE_BIN" "$SUITE_JS" server --url "$URL" --scenario "$scenario" \
    --spec-version "$REV" ${force[@]+"${force[@]}"} --timeout "$((TIMEOUT_S * 1000))" -o "$dir" \
    > "$log" 2>&1 < /dev/null || rc=$?
  local judged judge_rc=0 judge_args=(--exit-status "$rc")
  [ -z "$STRICT" ] || judge_args+=(--strict)
  ! in_list "$scenario" "$UNTESTABLE" || judge_args+=(--untestable)
  judged="$(python3 "$DATA/judge.py" "${judge_args[@]}" "$dir")" || judge_rc=$?
  [ "$judge_rc" -le 1 ] || die "judge.py could not judge $dir (exit $judge_rc)"
  IFS=$'\t' read -r verdict reason <<< "$(head -n 1 <<< "$judged")"
  case "$verdict" in PASS | FAIL | UNTESTABLE | STALE) ;; *) die "judge.py said $verdict of $dir" ;; esac
  [ "$verdict" = PASS ] || [ "$verdict" = UNTESTABLE ] || reason="$reason; see $log"
  if [ "$verdict" = UNTESTABLE ]; then
    tag=N/T; untestable=$((untestable + 1))
  elif [ "$verdict" = STALE ]; then
    tag=STALE note=" [listed in $(basename "$UNTESTABLE_FILE"): remove it]"; failed=$((failed + 1))
  elif in_list "$scenario" "$BASELINE"; then
    if [ "$verdict" = FAIL ]; then
      tag=XFAIL note=" [expected failure]"; xfailed=$((xfailed + 1))
    else
      tag=XPASS note=" [passes but is listed in $(basename "$BASELINE_FILE"): remove it]"; failed=$((failed + 1))
    fi
  elif [ "$verdict" = PASS ]; then
    tag=PASS; passed=$((passed + 1))
  else
    tag=FAIL; failed=$((failed + 1))
  fi
  if [ "$kind" = scored ]; then
    case "$tag" in PASS) scored_passed=$((scored_passed + 1)) ;; FAIL | XPASS | STALE) scored_failed=$((scored_failed + 1)) ;; esac
  elif [ "$kind" = extension ]; then
    note="$note (extension, not scored)"
  else
    note="$note (not scored)"
  fi
  printf '%-5s %-46s %s%s\n' "$tag" "$scenario" "$reason" "$note" | tee -a "$OUT/summary.txt"
  [ "$tag" != FAIL ] || tail -n +2 <<< "$judged"
  return 0
}

while IFS= read -r s; do [ -z "$s" ] || run_scenario "$s" scored; done <<< "$SCORED"
while IFS= read -r s; do [ -z "$s" ] || run_scenario "$s" unscored; done <<< "$UNSCORED"
while IFS= read -r s; do [ -z "$s" ] || run_scenario "$s" extension; done <<< "$EXTENSIONS"

{
  echo "scored: $scored_passed passed, $scored_failed failed; not scored: $((passed - scored_passed)) passed, $((failed - scored_failed)) failed; $untestable not testable$([ "$xfailed" -eq 0 ] || echo "; $xfailed expected failures")"
  echo "$passed passed, $failed failed, $untestable not testable"
} | tee -a "$OUT/summary.txt"
[ "$failed" -eq 0 ] || die "conformance failed (results: $OUT, server log: ${SERVER_LOG:-n/a})"
