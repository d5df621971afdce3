#!/usr/bin/env bash
# Interop: our small clients on the official SDKs (.ci/interop/, versions pinned there)
# against the `everything` example, over Streamable HTTP and over stdio, in both protocol
# eras. Per transport:
#   py, node     --mode modern  2026-07-28: server/discover, tools/list, tools/call
#                --mode legacy  2025: initialize, tools/list, tools/call (HTTP: DELETE)
#                --mode auto    the SDK's negotiation; must pick modern, as the server
#                               serves it
#   node-v1      SDK v1 (2025 only): initialize, tools/list, tools/call, one prompts/get
#                or resources/read (HTTP: DELETE)
#   *-elicit     py, node, node-v1 in legacy mode calling $ELICIT_TOOL, which asks the
#                client with elicitation/create; the client accepts with $ELICIT_ANSWER,
#                and the tool's result must quote it
# A run passes when its client exits 0 and interop/check.py finds the expected era (and,
# for *-elicit, an answered elicitation whose answer the result quotes). Each line gives
# what was negotiated and the run's duration; the JSON and stderr of a failed run are
# printed.
#
#   .ci/interop.sh [--http-only LABEL] [URL]
#   .ci/interop.sh --protected
#   .ci/interop.sh --gateway
#
# Without URL it starts $CARGO_TARGET_DIR/debug/everything --http 127.0.0.1:0 (the system picks the port)
# (build it first: cargo build -p examples --bin everything); the stdio runs always start
# that binary. --http-only skips the stdio runs and names the HTTP ones after LABEL (e.g.
# `balanced`, for the run through a load balancer) instead of `http`.
#
# --protected is interop with OAuth, over HTTP only: it starts oidc-provider
# (.ci/oidc/provider.mjs) and `everything --http ADDR --issuer ISSUER` (resource URI: its
# own http://ADDR/mcp), first checks that node --mode modern WITHOUT a token is refused
# with 401 (so the server is really protected; this SDK's error names the status, python
# mcp's does not), then gets a token for the server's resource by
# the client credentials grant (es256-client, scopes notes:read notes:write) and runs py
# and node in modern, legacy and auto mode and node-v1, each sending it as
# MCP_BEARER_TOKEN (the clients put it in `Authorization: Bearer` on every request). Runs
# are named *-oauth.
#
# --gateway is interop through the `gateway` example, over HTTP only: it starts the gateway
# in front of two `everything`s over their stdio, `session` (2025-era revisions only) and
# `stateless` (lib.sh's start_gateway), and runs py and node in modern, legacy and auto mode
# (the SDKs' words) and node-v1, each calling the session one's tool under the gateway's name
# for it ($GATEWAY_TOOL); then the three *-elicit runs call the stateless one's eliciting tool,
# whose question (an input_required result) the gateway relays to the client and whose answer
# it sends back, and the two *-elicit-old runs the session one's, whose question comes as a
# request on the gateway's session with it. Runs are named *-gateway.
#
# Installs the SDKs (and, for --protected, oidc-provider) into $CI_CACHE/tools when missing.
# Outputs: $CI_CACHE/results/interop-LABEL.{json,stderr}
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

URL=""
HTTP_LABEL=http
WITH_STDIO=1
PROTECTED=""
GATEWAY=""
if [ "${1:-}" = --gateway ]; then
  [ $# -eq 1 ] || die "usage: .ci/interop.sh --gateway"
  GATEWAY=1 WITH_STDIO=""
  shift
elif [ "${1:-}" = --protected ]; then
  [ $# -eq 1 ] || die "usage: .ci/interop.sh --protected"
  PROTECTED=1 WITH_STDIO=""
  shift
elif [ "${1:-}" = --http-only ]; then
  [ $# -ge 2 ] || die "--http-only needs a label"
  HTTP_LABEL=$2 WITH_STDIO=""
  shift 2
fi
case "${1:-}" in
  "") ;;
  http://* | https://*) URL=$1 ;;
  *) die "usage: .ci/interop.sh [--http-only LABEL] [URL] | --protected | --gateway" ;;
esac

ensure_py_client >/dev/null
ensure_node_client >/dev/null
[ -z "$PROTECTED" ] || ensure_oidc_provider >/dev/null
[ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"

if [ -n "$GATEWAY" ]; then
  trap stop_http_server EXIT
  trap 'exit 130' INT TERM
  start_gateway
  URL="$SERVER_URL"
elif [ -n "$PROTECTED" ]; then
  trap 'stop_http_server; stop_oidc_provider' EXIT
  trap 'exit 130' INT TERM
  start_oidc_provider
  SERVER_LOG_LABEL=protected start_http_server --issuer "$OIDC_ISSUER"
  URL="$SERVER_URL"
elif [ -z "$URL" ]; then
  trap stop_http_server EXIT
  trap 'exit 130' INT TERM
  start_http_server
  URL="$SERVER_URL"
fi

# The eliciting tool of the `everything` example: called with a message, it asks for a
# username and an email address, and its result quotes the answer it got.
ELICIT_TOOL=test_elicitation
ELICIT_ARGS='{"message":"hi"}'
ELICIT_ANSWER='{"username":"u","email":"u@example.com"}'
ELICIT_ECHO='"email":"u@example.com"'

CLIENTS="$REPO_ROOT/.ci/interop"
NODE_MODULES="$TOOLS_DIR/node-client/node_modules"
PY=("$PY_VENV/bin/python" "$CLIENTS/py_client.py")
NODE=(env "MCP_NODE_PREFIX=$TOOLS_DIR/node-client" node "$CLIENTS/node_client.mjs")
NODE_V1=(env "MCP_NODE_PREFIX=$TOOLS_DIR/node-client" node "$CLIENTS/node_client_v1.mjs")
ELICIT=(--mode legacy --tool "$ELICIT_TOOL" --args "$ELICIT_ARGS" --elicit "$ELICIT_ANSWER")
mkdir -p "$RESULTS_DIR"
passed=0 failed=0 failures=()

# run_client LABEL ERA[:ECHO] CMD...: one client run (hard cap 120 s; the clients stop
# themselves after 60 s), judged by check.py against ERA (and ECHO, text the call's result
# must contain); JSON and stderr are kept under $RESULTS_DIR and shown when it fails.
run_client() {
  local label=$1 out="$RESULTS_DIR/interop-$1.json" err="$RESULTS_DIR/interop-$1.stderr"
  local era=${2%%:*} echo_text="" rc=0 verdict t0=$EPOCHREALTIME took
  [ "$2" = "$era" ] || echo_text=${2#*:}
  shift 2
  timeout 120 "$@" > "$out" 2> "$err" < /dev/null || rc=$?
  verdict="$(python3 "$CLIENTS/check.py" "$out" "$era" ${echo_text:+"$echo_text"})" || [ "$rc" -ne 0 ] || rc=1
  took="$(awk -v a="${t0/,/.}" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1fs", b - a }')"
  if [ "$rc" -eq 0 ]; then
    printf 'PASS  %-20s %s (%s)\n' "$label" "$verdict" "$took"
    passed=$((passed + 1))
  else
    printf 'FAIL  %-20s exit %s%s: %s (%s)\n' "$label" "$rc" "$([ "$rc" -ne 124 ] || echo ', timed out')" "$verdict" "$took"
    echo "---- $out"; cat "$out"
    if [ -s "$err" ]; then echo "---- $err"; tail -n 40 "$err"; fi
    failed=$((failed + 1))
    failures+=("$label")
  fi
}

# runs_over TRANSPORT TARGET...: every run over one transport; TARGET is how the clients
# reach the server (--url URL, or --stdio -- CMD).
runs_over() {
  local t=$1
  shift
  run_client "py-modern-$t" modern "${PY[@]}" --mode modern "$@"
  run_client "py-legacy-$t" legacy "${PY[@]}" --mode legacy "$@"
  run_client "py-auto-$t" modern "${PY[@]}" --mode auto "$@"
  run_client "node-modern-$t" modern "${NODE[@]}" --mode modern "$@"
  run_client "node-legacy-$t" legacy "${NODE[@]}" --mode legacy "$@"
  run_client "node-auto-$t" modern "${NODE[@]}" --mode auto "$@"
  run_client "node-v1-$t" legacy "${NODE_V1[@]}" --mode legacy "$@"
  run_client "py-elicit-$t" "legacy:$ELICIT_ECHO" "${PY[@]}" "${ELICIT[@]}" "$@"
  run_client "node-elicit-$t" "legacy:$ELICIT_ECHO" "${NODE[@]}" "${ELICIT[@]}" "$@"
  run_client "node-v1-elicit-$t" "legacy:$ELICIT_ECHO" "${NODE_V1[@]}" "${ELICIT[@]}" "$@"
}

# run_refused LABEL CMD...: one client run that must fail because the server answered 401:
# the client exits 1 and its reported error names the status.
run_refused() {
  local label=$1 out="$RESULTS_DIR/interop-$1.json" err="$RESULTS_DIR/interop-$1.stderr" rc=0
  shift
  timeout 120 "$@" > "$out" 2> "$err" < /dev/null || rc=$?
  if [ "$rc" -eq 1 ] && grep -q '"error": .*401' "$out"; then
    printf 'PASS  %-20s refused: %s\n' "$label" "$(grep -o '"error": .*' "$out" | cut -c 10-130)"
    passed=$((passed + 1))
  else
    printf 'FAIL  %-20s exit %s, not refused with 401\n' "$label" "$rc"
    echo "---- $out"; cat "$out"
    if [ -s "$err" ]; then echo "---- $err"; tail -n 40 "$err"; fi
    failed=$((failed + 1))
    failures+=("$label")
  fi
}

# protected_runs: the --protected runs against $URL (see the header).
protected_runs() {
  local token
  run_refused node-no-token-oauth env -u MCP_BEARER_TOKEN "${NODE[@]}" --mode modern --url "$URL"
  token="$(oidc_token es256-client "$URL" "notes:read notes:write")" || die "no token from $OIDC_ISSUER"
  export MCP_BEARER_TOKEN="$token"
  run_client py-modern-oauth modern "${PY[@]}" --mode modern --url "$URL"
  run_client py-legacy-oauth legacy "${PY[@]}" --mode legacy --url "$URL"
  run_client py-auto-oauth modern "${PY[@]}" --mode auto --url "$URL"
  run_client node-modern-oauth modern "${NODE[@]}" --mode modern --url "$URL"
  run_client node-legacy-oauth legacy "${NODE[@]}" --mode legacy --url "$URL"
  run_client node-auto-oauth modern "${NODE[@]}" --mode auto --url "$URL"
  run_client node-v1-oauth legacy "${NODE_V1[@]}" --mode legacy --url "$URL"
  unset MCP_BEARER_TOKEN
}

# gateway_runs: the --gateway runs against $URL (see the header).
GATEWAY_TOOL=session_test_simple_text
GATEWAY_ELICIT=(--mode legacy --tool "stateless_$ELICIT_TOOL" --args "$ELICIT_ARGS" --elicit "$ELICIT_ANSWER" --url "$URL")
GATEWAY_ELICIT_OLD=(--mode legacy --tool "session_$ELICIT_TOOL" --args "$ELICIT_ARGS" --elicit "$ELICIT_ANSWER" --url "$URL")
gateway_runs() {
  local tool=(--tool "$GATEWAY_TOOL" --url "$URL")
  run_client py-modern-gateway modern "${PY[@]}" --mode modern "${tool[@]}"
  run_client py-legacy-gateway legacy "${PY[@]}" --mode legacy "${tool[@]}"
  run_client py-auto-gateway modern "${PY[@]}" --mode auto "${tool[@]}"
  run_client node-modern-gateway modern "${NODE[@]}" --mode modern "${tool[@]}"
  run_client node-legacy-gateway legacy "${NODE[@]}" --mode legacy "${tool[@]}"
  run_client node-auto-gateway modern "${NODE[@]}" --mode auto "${tool[@]}"
  run_client node-v1-gateway legacy "${NODE_V1[@]}" --mode legacy "${tool[@]}"
  run_client py-elicit-gateway "legacy:$ELICIT_ECHO" "${PY[@]}" "${GATEWAY_ELICIT[@]}"
  run_client node-elicit-gateway "legacy:$ELICIT_ECHO" "${NODE[@]}" "${GATEWAY_ELICIT[@]}"
  run_client node-v1-elicit-gateway "legacy:$ELICIT_ECHO" "${NODE_V1[@]}" "${GATEWAY_ELICIT[@]}"
  run_client py-elicit-old-gateway "legacy:$ELICIT_ECHO" "${PY[@]}" "${GATEWAY_ELICIT_OLD[@]}"
  run_client node-elicit-old-gateway "legacy:$ELICIT_ECHO" "${NODE[@]}" "${GATEWAY_ELICIT_OLD[@]}"
}

version_of() { node -p 'require(process.argv[1]).version' "$NODE_MODULES/$1/package.json"; }
echo "python mcp $("$PY_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')," \
  "node @modelcontextprotocol/client $(version_of @modelcontextprotocol/client)," \
  "node @modelcontextprotocol/sdk $(version_of @modelcontextprotocol/sdk) (v1)"
if [ -n "$GATEWAY" ]; then
  section "interop through the gateway (in front of two everythings over stdio, one 2025-era only): $URL"
  gateway_runs
elif [ -n "$PROTECTED" ]; then
  section "interop with OAuth over Streamable HTTP: $URL (issuer $OIDC_ISSUER)"
  protected_runs
else
  section "interop over Streamable HTTP: $URL"
  runs_over "$HTTP_LABEL" --url "$URL"
fi
if [ -n "$WITH_STDIO" ]; then
  section "interop over stdio: $EVERYTHING_BIN --stdio"
  runs_over stdio --stdio -- "$EVERYTHING_BIN" --stdio
fi

echo "$passed passed, $failed failed${failures[0]+ (${failures[*]})}"
[ "$failed" -eq 0 ] || die "interop failed (outputs: $RESULTS_DIR/interop-*)"
