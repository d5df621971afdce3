#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios (the suite pinned in
# .ci/conformance/package.json) driving our client: $CARGO_TARGET_DIR/debug/conformance-client
# (build it first: cargo build -p examples --bin conformance-client).
#
#   .ci/conformance-client.sh [SCENARIO...]
#
# The scenarios are .ci/conformance/client-scenarios.txt (by default all of them); with
# client-scenarios-pending.txt (those not taken on yet, each with why) they must be every
# client scenario of the suite, and no scenario may be in both. Each runs once per dated
# revision the suite tags it with (a client speaks each revision's own lifecycle: 2026-07-28
# stateless, the older ones with `initialize`), an [extension] one once on the suite's default
# wire, the harness starting the scenario's server(s) and then the client with the URL. A run is judged by
# .ci/conformance/judge.py --strict: it passes when the harness exited 0, no check is FAILURE
# or WARNING, and at least one of the scenario's own checks (not the synthetic wire-schema
# ones) is SUCCESS. Prints a line per run, then `N passed, N failed`.
# Results: $CI_CACHE/results/conformance-client/ (per run: checks.json, the client's stdout
# and stderr, the harness's log). Env CONFORMANCE_SCENARIO_TIMEOUT: seconds per run (default
# 120).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DATA="$REPO_ROOT/.ci/conformance"
CLIENT_BIN="${CONFORMANCE_CLIENT_BIN:-$TARGET_DIR/debug/conformance-client}"
TIMEOUT_S="${CONFORMANCE_SCENARIO_TIMEOUT:-120}"
REVISIONS="2026-07-28 2025-11-25 2025-06-18 2025-03-26"
[ -x "$CLIENT_BIN" ] || die "no $CLIENT_BIN (cargo build -p examples --bin conformance-client)"

ensure_conformance_suite >/dev/null
NODE_BIN="$(conformance_node)"
SUITE_DIR="$TOOLS_DIR/conformance/node_modules/@modelcontextprotocol/conformance"
SUITE_JS="$SUITE_DIR/dist/index.js"
SUITE_VERSION="$("$NODE_BIN" -p 'require(process.argv[1]).version' "$SUITE_DIR/package.json")"

# "name [rev,rev]" for each client scenario the suite lists.
LISTED="$("$NODE_BIN" "$SUITE_JS" list --client | awk '/^  - / { print $2, $3 }')" \
  || die "the suite does not list its client scenarios"
[ -n "$LISTED" ] || die "the suite listed no client scenario"
names() { sed 's/#.*//' "$1" | awk 'NF { print $1 }'; }
OURS="$(names "$DATA/client-scenarios.txt")"
PENDING="$(names "$DATA/client-scenarios-pending.txt")"
BOTH="$(comm -12 <(sort <<< "$OURS") <(sort <<< "$PENDING"))"
[ -z "$BOTH" ] || die "in both client-scenarios.txt and client-scenarios-pending.txt: $BOTH"
ALL="$(printf '%s\n' "$OURS" "$PENDING" | awk NF | sort)"
THEIRS="$(awk '{ print $1 }' <<< "$LISTED" | sort)"
if [ "$ALL" != "$THEIRS" ]; then
  echo "client-scenarios.txt + client-scenarios-pending.txt differ from the suite's client scenarios (< ours, > suite's):"
  diff <(echo "$ALL") <(echo "$THEIRS") | grep '^[<>]' || true
  die "fix .ci/conformance/client-scenarios.txt"
fi
if [ $# -gt 0 ]; then
  for s in "$@"; do grep -qxF -- "$s" <<< "$OURS" || die "$s is not in client-scenarios.txt"; done
  OURS="$(printf '%s\n' "$@")"
fi

OUT="$RESULTS_DIR/conformance-client"
rm -rf "$OUT"
mkdir -p "$OUT"
section "conformance $SUITE_VERSION, client scenarios, $CLIENT_BIN (node $("$NODE_BIN" --version))"
echo "results: $OUT"

passed=0 failed=0
run_scenario() {
  local scenario=$1 rev=$2 label="$1@$2" dir rc=0 judged verdict reason wire=()
  dir="$OUT/$(tr '/' '_' <<< "$label")"
  mkdir -p "$dir"
  [ "$rev" = extension ] || wire=(--spec-version "$rev")
  timeout "$((TIMEOUT_S + 30))" "$NODE_BIN" "$SUITE_JS" client --command "$CLIENT_BIN" --scenario "$scenario" \
    "${wire[@]}" --timeout "$((TIMEOUT_S * 1000))" -o "$dir" > "$dir/harness.log" 2>&1 < /dev/null || rc=$?
  local judge_rc=0
  judged="$(python3 "$DATA/judge.py" --exit-status "$rc" --strict "$dir")" || judge_rc=$?
  [ "$judge_rc" -le 1 ] || die "judge.py could not judge $dir (exit $judge_rc)"
  IFS=$'\t' read -r verdict reason <<< "$(head -n 1 <<< "$judged")"
  if [ "$verdict" = PASS ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)) reason="$reason; see $dir"
  fi
  printf '%-5s %-52s %s\n' "$verdict" "$label" "$reason" | tee -a "$OUT/summary.txt"
  [ "$verdict" = PASS ] || tail -n +2 <<< "$judged"
}

while IFS= read -r scenario; do
  [ -n "$scenario" ] || continue
  tags="$(awk -v s="$scenario" '$1 == s { print $2 }' <<< "$LISTED")"
  runs=0
  if [ "$tags" = "[extension]" ]; then run_scenario "$scenario" extension; continue; fi
  for rev in $REVISIONS; do
    case "$tags" in *"$rev"*) run_scenario "$scenario" "$rev"; runs=$((runs + 1)) ;; esac
  done
  [ "$runs" -gt 0 ] || die "$scenario is tagged $tags, none of the revisions $REVISIONS"
done <<< "$OURS"

echo "$passed passed, $failed failed" | tee -a "$OUT/summary.txt"
[ "$failed" -eq 0 ] || die "client conformance failed (results: $OUT)"
