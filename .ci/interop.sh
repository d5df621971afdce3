#!/usr/bin/env bash
# Interop: our two small clients on the official SDKs (.ci/interop/: Python mcp and
# TypeScript @modelcontextprotocol/client, pinned there) against the `everything` example,
# each over Streamable HTTP and over stdio, in modern mode (server/discover, tools/list,
# tools/call; no initialize). Each run must exit 0; its JSON is printed when it fails.
#
#   .ci/interop.sh [URL]
#
# Without URL it starts $CARGO_TARGET_DIR/debug/everything --http on a free loopback port
# (build it first: cargo build -p examples --bin everything). Installs the SDKs into
# $CI_CACHE/tools when missing. Outputs: $CI_CACHE/results/interop-*.json
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

URL=""
case "${1:-}" in
  "") ;;
  http://* | https://*) URL=$1 ;;
  *) die "usage: .ci/interop.sh [URL]" ;;
esac

ensure_py_client >/dev/null
ensure_node_client >/dev/null
[ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"

if [ -z "$URL" ]; then
  trap stop_http_server EXIT
  trap 'exit 130' INT TERM
  start_http_server
  URL="$SERVER_URL"
fi

CLIENTS="$REPO_ROOT/.ci/interop"
PY=("$PY_VENV/bin/python" "$CLIENTS/py_client.py")
NODE=(env "MCP_NODE_PREFIX=$TOOLS_DIR/node-client" node "$CLIENTS/node_client.mjs")
STDIO_SERVER=(--stdio -- "$EVERYTHING_BIN" --stdio)
mkdir -p "$RESULTS_DIR"
passed=0 failed=0

# run_client LABEL CMD...: one client run (hard cap 120 s; the clients stop themselves
# after 60 s), its JSON and stderr kept under $RESULTS_DIR and shown if it fails.
run_client() {
  local label=$1 out="$RESULTS_DIR/interop-$1.json" err="$RESULTS_DIR/interop-$1.stderr" rc=0
  shift
  timeout 120 "$@" > "$out" 2> "$err" < /dev/null || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "PASS  $label  $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(len(d["tools"]), "tools, called", d["call"]["name"])' "$out" 2>/dev/null)"
    passed=$((passed + 1))
  else
    echo "FAIL  $label  (exit $rc$([ "$rc" -ne 124 ] || echo ', timed out'))"
    echo "---- $out"; cat "$out"
    if [ -s "$err" ]; then echo "---- $err"; tail -n 40 "$err"; fi
    failed=$((failed + 1))
  fi
}

section "interop (modern): python $("$PY_VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))'), node @modelcontextprotocol/client $(node -p 'require(process.argv[1]).version' "$TOOLS_DIR/node-client/node_modules/@modelcontextprotocol/client/package.json")"
run_client py-http "${PY[@]}" --mode modern --url "$URL"
run_client py-stdio "${PY[@]}" --mode modern "${STDIO_SERVER[@]}"
run_client node-http "${NODE[@]}" --mode modern --url "$URL"
run_client node-stdio "${NODE[@]}" --mode modern "${STDIO_SERVER[@]}"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] || die "interop failed (outputs: $RESULTS_DIR/interop-*)"
