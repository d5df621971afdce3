#!/usr/bin/env bash
# Interactive views (MCP Apps) in a real browser: starts the `notes` example over HTTP on a
# loopback port it binds itself (a fresh notebook under $CI_CACHE/results), waits until it has
# answered a `server/discover`, then runs .ci/apps/run.mjs: Debian's chromium-headless-shell,
# driven by playwright-core, with the official host library (AppBridge from
# @modelcontextprotocol/ext-apps, pinned in .ci/apps/) rendering the notes board in an
# iframe sandboxed with `allow-scripts` alone, under the CSP its resource declares, in both
# protocol eras; any error the page reports and any network request the view makes fails it
# (see run.mjs for what is checked). Then the same through the `gateway` example, which
# mounts `notes` over its stdio at the namespace `notes`: the board is served from the
# gateway, its tools are `notes_*`, and the view still calls them by its own names. Prints
# `N passed, N failed` last, once per pass.
#
#   .ci/apps.sh
#
# Build the servers first (cargo build -p examples --bin notes --bin gateway); installs the
# npm tree and the browser when missing (.ci/install.sh does both).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

NOTES_BIN="${NOTES_BIN:-$TARGET_DIR/debug/notes}"
GATEWAY_BIN="${GATEWAY_BIN:-$TARGET_DIR/debug/gateway}"
[ -x "$NOTES_BIN" ] || die "$NOTES_BIN not built (cargo build -p examples --bin notes)"
[ -x "$GATEWAY_BIN" ] || die "$GATEWAY_BIN not built (cargo build -p examples --bin gateway)"
ensure_chromium
ensure_apps_tree
mkdir -p "$RESULTS_DIR"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done' EXIT

# serve_and_check NAME PREFIX CMD...: starts CMD (which binds 127.0.0.1:0 and logs the
# address), waits for its answer to a `server/discover`, runs the browser test against it.
serve_and_check() {
  local name="$1" prefix="$2" log pid address url p f
  shift 2
  log="$RESULTS_DIR/apps-$name.log"
  spawn "$log" - env NO_COLOR=1 RUST_LOG="info,mcp_runtime::transport::http::serve=info" "$@"
  pid=$STARTED_PID
  pids+=("$pid")
  address="$(await_bound_address "$pid" "$log")" || { show_log "$log"; die "$name did not come up"; }
  url="http://$address/mcp"
  await_http "$pid" 200 "$url" "${DISCOVER_ARGS[@]}" >/dev/null || { show_log "$log"; die "$name did not answer"; }
  echo "$name up: $url (pid $pid)"
  # Each pass's count is labelled with its name; the total comes last.
  node "$REPO_ROOT/.ci/apps/run.mjs" --modules "$TOOLS_DIR/apps/node_modules" --url "$url" \
    --chromium "$(command -v chromium-headless-shell)" --prefix "$prefix" \
    | sed -E "s/^([0-9]+) passed, ([0-9]+) failed/$name: \\1 passed, \\2 failed/" | tee "$RESULTS_DIR/apps-$name.out" \
    || status=1
  read -r p f < <(sed -nE "s/^$name: ([0-9]+) passed, ([0-9]+) failed.*/\\1 \\2/p" "$RESULTS_DIR/apps-$name.out" | tail -n 1) || true
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-1}))
}
passed=0 failed=0 status=0

fresh_db() {
  rm -f "$1" "${1%.db}.tasks.db"
}

db="$RESULTS_DIR/apps-notes.db"
fresh_db "$db"
serve_and_check notes "" "$NOTES_BIN" --http 127.0.0.1:0 --db "$db"

db="$RESULTS_DIR/apps-gateway-notes.db"
fresh_db "$db"
serve_and_check gateway notes_ "$GATEWAY_BIN" --http 127.0.0.1:0 notes="$NOTES_BIN --stdio --db $db"
echo "$passed passed, $failed failed"
exit "$status"
