#!/usr/bin/env bash
# Interop: the official Python (mcp 2.3.0) and TypeScript (@modelcontextprotocol/client
# 2.4.0) SDK clients from ../shared/interop against target/debug/everything, each over
# Streamable HTTP and over stdio. Each run must exit 0; its JSON is printed on failure.
#
#   .ci/interop.sh [URL]
#
# Without URL it starts target/debug/everything --http on a free loopback port itself
# (build it first: cargo build -p examples --bin everything). Installs the clients into
# target/ci-tools/ when missing. Outputs: target/ci-logs/interop-*.json
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
require_shared

ensure_py_client
ensure_node_client
[ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"

URL="${1:-}"
if [ -z "$URL" ]; then
  trap stop_http_server EXIT
  trap 'exit 130' INT TERM
  start_http_server
  URL="$SERVER_URL"
fi

PY=("$PY_VENV/bin/python" "$SHARED_DIR/interop/py_client.py")
NODE=(env "MCP_NODE_PREFIX=$NODE_PREFIX" node "$SHARED_DIR/interop/node_client.mjs")
STDIO_SERVER=(-- "$EVERYTHING_BIN" --stdio)
mkdir -p "$LOG_DIR"
passed=0 failed=0

# One line from a client's JSON: how many tools it listed and which one it called.
summarize() {
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); c = d.get("call") or {}
print(len(d.get("tools") or []), "tools, called", c.get("name"))' "$1" 2>/dev/null || true
}

# run_client LABEL CMD...: run one client (hard cap 120 s; the clients cap themselves at
# 60 s), keep its JSON and stderr under target/ci-logs, print them if it fails.
run_client() {
  local label=$1 out="$LOG_DIR/interop-$1.json" err="$LOG_DIR/interop-$1.stderr" rc=0
  shift
  timeout 120 "$@" > "$out" 2> "$err" < /dev/null || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "PASS  $label  $(summarize "$out")"
    passed=$((passed + 1))
  else
    echo "FAIL  $label  (exit $rc$([ "$rc" -eq 124 ] && echo ', timed out'))"
    echo "---- $out"; cat "$out"
    if [ -s "$err" ]; then echo "---- $err"; tail -n 40 "$err"; fi
    failed=$((failed + 1))
  fi
}

section "interop: python mcp $PY_MCP_VERSION + node @modelcontextprotocol/client $NODE_CLIENT_VERSION"
run_client py-http    "${PY[@]}" --url "$URL"
run_client py-stdio   "${PY[@]}" --stdio "${STDIO_SERVER[@]}"
run_client node-http  "${NODE[@]}" --url "$URL"
run_client node-stdio "${NODE[@]}" --stdio "${STDIO_SERVER[@]}"

echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
