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
#   .ci/interop.sh --proxy
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
# --proxy is interop through the OAuth front (`--oauth-proxy`: the server's own authorization
# server, relaying people to an upstream one and issuing its own tokens), over HTTP only: it
# starts oidc-provider (.ci/oidc/provider.mjs, the upstream, whose `front-client` the front
# is) and `notes --http ADDR --public-url http://ADDR/mcp --oauth-proxy ISSUER` (front issuer
# http://ADDR/oauth; every person the upstream lets in is granted notes:read notes:write),
# then, with no browser (.ci/interop/front_login.mjs plays the person: the front's consent
# page, the upstream's development login and consent pages), runs
#   interop/node_oauth_proxy.mjs          the official TypeScript client (v2) the way an
#                                         application uses it: DCR, the first connect refused,
#                                         the person sent through the front, finishAuth, then
#                                         whoami (subject alice, both scopes), the scoped
#                                         tools, a refresh, rotation, and a 2025-era connection
#   conformance/authorization.mjs         the conformance suite's authorization-server mode
#                                         (metadata, then the code grant) against the front's
#                                         issuer, for a client registered there by DCR, on the
#                                         Node the suite needs
# Each prints a PASS or FAIL line per check, counted here; their output is kept as
# $CI_CACHE/results/interop-proxy-{node,conformance}.{out,stderr}.
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
# Installs the SDKs (and, for --protected and --proxy, oidc-provider; for --proxy, the
# conformance suite) into $CI_CACHE/tools when missing. --proxy needs the `notes` binary
# (cargo build -p examples --bin notes), the other modes `everything`.
# Outputs: $CI_CACHE/results/interop-LABEL.{json,stderr}
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

URL=""
HTTP_LABEL=http
WITH_STDIO=1
PROTECTED=""
PROXY=""
GATEWAY=""
if [ "${1:-}" = --gateway ]; then
  [ $# -eq 1 ] || die "usage: .ci/interop.sh --gateway"
  GATEWAY=1 WITH_STDIO=""
  shift
elif [ "${1:-}" = --protected ]; then
  [ $# -eq 1 ] || die "usage: .ci/interop.sh --protected"
  PROTECTED=1 WITH_STDIO=""
  shift
elif [ "${1:-}" = --proxy ]; then
  [ $# -eq 1 ] || die "usage: .ci/interop.sh --proxy"
  PROXY=1 WITH_STDIO=""
  shift
elif [ "${1:-}" = --http-only ]; then
  [ $# -ge 2 ] || die "--http-only needs a label"
  HTTP_LABEL=$2 WITH_STDIO=""
  shift 2
fi
case "${1:-}" in
  "") ;;
  http://* | https://*) URL=$1 ;;
  *) die "usage: .ci/interop.sh [--http-only LABEL] [URL] | --protected | --proxy | --gateway" ;;
esac

NOTES_BIN="${NOTES_BIN:-$TARGET_DIR/debug/notes}"
ensure_py_client >/dev/null
ensure_node_client >/dev/null
[ -z "$PROTECTED$PROXY" ] || ensure_oidc_provider >/dev/null
[ -z "$PROXY" ] || ensure_conformance_suite >/dev/null
if [ -n "$PROXY" ]; then
  [ -x "$NOTES_BIN" ] || die "$NOTES_BIN not built (cargo build -p examples --bin notes)"
else
  [ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"
fi

# start_front: `notes` over HTTP with its OAuth front relaying to $OIDC_ISSUER as front-client
# (see the header), on a loopback port picked first: the public URL, hence the resource and
# the front's issuer, hold the real port from the start (as start_http_server does for
# --issuer), and another port is tried when the bind fails. Ready once server/discover
# without a token is refused with 401 and the front's metadata answers 200. Sets SERVER_PID,
# SERVER_URL, SERVER_LOG and FRONT_ISSUER; callers must `trap stop_http_server EXIT`.
start_front() {
  local port attempt=1 address rc status db="$RESULTS_DIR/interop-proxy-notes.db"
  mkdir -p "$RESULTS_DIR"
  SERVER_LOG="$RESULTS_DIR/notes-proxy.log"
  rm -f "$db" "${db%.db}.tasks.db" # a fresh notebook: the notes of an earlier run are not this one's
  port="$(pick_port)"
  while :; do
    SERVER_URL="http://127.0.0.1:$port/mcp"
    echo "starting: $NOTES_BIN --http 127.0.0.1:$port --public-url $SERVER_URL --oauth-proxy $OIDC_ISSUER --db $db (log: $SERVER_LOG)"
    spawn "$SERVER_LOG" - env NO_COLOR=1 RUST_LOG="${RUST_LOG:-info},mcp_runtime::transport::http::serve=info" \
      MCP_OAUTH_PROXY_CLIENT_ID=front-client MCP_OAUTH_PROXY_CLIENT_SECRET=secret \
      MCP_OAUTH_PROXY_GRANT="notes:read notes:write" \
      "$NOTES_BIN" --http "127.0.0.1:$port" --public-url "$SERVER_URL" --oauth-proxy "$OIDC_ISSUER" --db "$db"
    SERVER_PID=$STARTED_PID
    rc=0
    address="$(await_bound_address "$SERVER_PID" "$SERVER_LOG")" || rc=$?
    [ "$rc" -eq 0 ] && break
    wait "$SERVER_PID" 2>/dev/null || true
    if [ "$rc" -eq 2 ] && [ "$attempt" -lt "$BIND_ATTEMPTS" ]; then
      echo "port $port was taken meanwhile: another one"
      port="$(pick_port)" attempt=$((attempt + 1))
      continue
    fi
    show_log "$SERVER_LOG"
    SERVER_PID=""
    die "notes with the OAuth front did not come up"
  done
  [ "$address" = "127.0.0.1:$port" ] || die "notes listens on $address, not 127.0.0.1:$port"
  FRONT_ISSUER="http://127.0.0.1:$port/oauth"
  status="$(await_http "$SERVER_PID" 401 "$SERVER_URL" "${DISCOVER_ARGS[@]}")" || {
    show_log "$SERVER_LOG"
    die "notes did not refuse a server/discover without a token with 401"
  }
  await_http "$SERVER_PID" 200 "http://127.0.0.1:$port/.well-known/oauth-authorization-server/oauth" >/dev/null || {
    show_log "$SERVER_LOG"
    die "the front's metadata (http://127.0.0.1:$port/.well-known/oauth-authorization-server/oauth) did not answer 200"
  }
  echo "notes up: $SERVER_URL, front issuer $FRONT_ISSUER (pid $SERVER_PID; server/discover answered $status)"
}

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
elif [ -n "$PROXY" ]; then
  trap 'stop_http_server; stop_oidc_provider' EXIT
  trap 'exit 130' INT TERM
  start_oidc_provider
  start_front
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

# run_checks LABEL CMD...: one run of a script that prints a `PASS  NAME ...` or
# `FAIL  NAME ...` line per check (hard cap 360 s): its output is shown as it comes and kept
# in $RESULTS_DIR/interop-LABEL.out, each line counted; a run that exits non-zero without a
# FAIL line counts as one failure, LABEL. The stderr of a failed run is shown.
run_checks() {
  local label=$1 out="$RESULTS_DIR/interop-$1.out" err="$RESULTS_DIR/interop-$1.stderr" rc=0 p f t0=$EPOCHREALTIME took
  shift
  { timeout 360 "$@" 2> "$err" < /dev/null | tee "$out"; rc=${PIPESTATUS[0]}; } || true
  took="$(awk -v a="${t0/,/.}" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1fs", b - a }')"
  p="$(grep -c '^PASS ' "$out" || true)" f="$(grep -c '^FAIL ' "$out" || true)"
  passed=$((passed + p)) failed=$((failed + f))
  while read -r name; do failures+=("$name"); done < <(awk '/^FAIL / { print $2 }' "$out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    printf 'FAIL  %-20s exit %s%s without a FAIL line\n' "$label" "$rc" "$([ "$rc" -ne 124 ] || echo ', timed out')"
    failed=$((failed + 1))
    failures+=("$label")
  fi
  echo "---- run $label: $p passed, $f failed, exit $rc ($took)"
  if [ "$rc" -ne 0 ] && [ -s "$err" ]; then echo "---- $err"; tail -n 40 "$err"; fi
}

# proxy_runs: the --proxy runs against $URL (see the header).
proxy_runs() {
  run_checks proxy-node env "MCP_NODE_PREFIX=$TOOLS_DIR/node-client" node "$CLIENTS/node_oauth_proxy.mjs" "$URL" \
    --issuer "$FRONT_ISSUER"
  run_checks proxy-conformance "$(conformance_node)" "$REPO_ROOT/.ci/conformance/authorization.mjs" \
    --suite "$TOOLS_DIR/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
    --issuer "$FRONT_ISSUER" --resource "$URL" --out "$RESULTS_DIR/interop-proxy-conformance"
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
elif [ -n "$PROXY" ]; then
  section "interop through the OAuth front: $URL (issuer $FRONT_ISSUER, upstream $OIDC_ISSUER)"
  proxy_runs
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
