#!/usr/bin/env bash
# Interactive views (MCP Apps) in a real browser: starts the `notes` example over HTTP on a
# loopback port it binds itself (a fresh notebook under $CI_CACHE/results), waits until it has
# answered a `server/discover`, then runs .ci/apps/run.mjs: Debian's chromium-headless-shell,
# driven by playwright-core, with the official host library (AppBridge from
# @modelcontextprotocol/ext-apps, pinned in .ci/apps/) rendering the notes board in an
# iframe sandboxed with `allow-scripts` alone, under the CSP its resource declares, in both
# protocol eras; any error the page reports and any network request the view makes fails it
# (see run.mjs for what is checked). Prints `N passed, N failed` last.
#
#   .ci/apps.sh
#
# Build the server first (cargo build -p examples --bin notes); installs the npm tree and the
# browser when missing (.ci/install.sh does both).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

NOTES_BIN="${NOTES_BIN:-$TARGET_DIR/debug/notes}"
[ -x "$NOTES_BIN" ] || die "$NOTES_BIN not built (cargo build -p examples --bin notes)"
ensure_chromium
ensure_apps_tree
mkdir -p "$RESULTS_DIR"
db="$RESULTS_DIR/apps-notes.db"
rm -f "$db" "${db%.db}.tasks.db"
log="$RESULTS_DIR/apps-notes.log"
spawn "$log" - env NO_COLOR=1 RUST_LOG="info,mcp_runtime::transport::http::serve=info" \
  "$NOTES_BIN" --http 127.0.0.1:0 --db "$db"
pid=$STARTED_PID
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
address="$(await_bound_address "$pid" "$log")" || { show_log "$log"; die "notes did not come up"; }
url="http://$address/mcp"
await_http "$pid" 200 "$url" "${DISCOVER_ARGS[@]}" >/dev/null || { show_log "$log"; die "notes did not answer"; }
echo "notes up: $url (pid $pid)"
node "$REPO_ROOT/.ci/apps/run.mjs" --modules "$TOOLS_DIR/apps/node_modules" --url "$url" \
  --chromium "$(command -v chromium-headless-shell)"
