# shellcheck shell=bash
# Shared helpers for the CI scripts. Source it; do not run it.
#
#   REPO_ROOT   repository root (derived from this file's location)
#   SHARED_DIR  ../shared beside the repo, or $MCP_SHARED_DIR
#   TOOLS_DIR   target/ci-tools: cached pip venv and npm prefix for the interop clients
#   LOG_DIR     target/ci-logs: server logs and client outputs

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED_DIR="${MCP_SHARED_DIR:-$(cd "$REPO_ROOT/.." && pwd)/shared}"
TOOLS_DIR="$REPO_ROOT/target/ci-tools"
LOG_DIR="$REPO_ROOT/target/ci-logs"

# Pinned interop client SDKs (see ../shared/interop/README.md).
PY_MCP_VERSION="2.3.0"
NODE_CLIENT_VERSION="2.4.0"
PY_VENV="$TOOLS_DIR/py"
NODE_PREFIX="$TOOLS_DIR/node"

EVERYTHING_BIN="${EVERYTHING_BIN:-$REPO_ROOT/target/debug/everything}"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export CONFORMANCE_CACHE_DIR="${CONFORMANCE_CACHE_DIR:-$REPO_ROOT/target/conformance-tools}"

section() { printf '\n==== %s ====\n' "$*"; }
die() { echo "ci: error: $*" >&2; exit 1; }

require_shared() {
  [ -x "$SHARED_DIR/conformance/run.sh" ] && [ -f "$SHARED_DIR/interop/py_client.py" ] \
    || die "shared material not found at $SHARED_DIR (set MCP_SHARED_DIR)"
}

# ------------------------------------------------------------- installs ----

# redis-server from Debian's packages (the Redis event-bus test starts its own).
ensure_redis_server() {
  if command -v redis-server >/dev/null 2>&1; then
    echo "redis-server: $(redis-server --version | head -n 1)"
    return
  fi
  echo "redis-server: installing the Debian package"
  apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
    || die "apt-get install redis-server failed"
  # The package starts a system service; the tests run their own on a free port.
  command -v redis-server >/dev/null 2>&1 || die "redis-server missing after install"
}

# Python venv with mcp==$PY_MCP_VERSION under target/ci-tools/py; reused when the
# installed version matches and imports.
py_mcp_version() {
  "$PY_VENV/bin/python" -c 'import importlib.metadata as m, mcp; print(m.version("mcp"))' 2>/dev/null
}
ensure_py_client() {
  if [ "$(py_mcp_version)" = "$PY_MCP_VERSION" ]; then
    echo "python client: mcp $PY_MCP_VERSION already in $PY_VENV"
    return
  fi
  echo "python client: installing mcp==$PY_MCP_VERSION into $PY_VENV"
  rm -rf "$PY_VENV"
  python3 -m venv "$PY_VENV" || die "python3 -m venv failed"
  "$PY_VENV/bin/pip" install --quiet "mcp==$PY_MCP_VERSION" || die "pip install mcp==$PY_MCP_VERSION failed"
  [ "$(py_mcp_version)" = "$PY_MCP_VERSION" ] || die "mcp $PY_MCP_VERSION does not import after install"
}

# npm prefix with @modelcontextprotocol/client@$NODE_CLIENT_VERSION under
# target/ci-tools/node; the interop script finds it through MCP_NODE_PREFIX.
node_client_version() {
  MCP_NODE_PREFIX="$NODE_PREFIX" node -e '
    const req = require("module").createRequire(require("path").resolve(process.env.MCP_NODE_PREFIX, "package.json"));
    req("@modelcontextprotocol/client"); req("@modelcontextprotocol/client/stdio");
    const pkg = require("path").resolve(process.env.MCP_NODE_PREFIX, "node_modules/@modelcontextprotocol/client/package.json");
    console.log(require(pkg).version);' 2>/dev/null
}
ensure_node_client() {
  command -v npm >/dev/null 2>&1 || die "npm not found"
  if [ "$(node_client_version)" = "$NODE_CLIENT_VERSION" ]; then
    echo "node client: @modelcontextprotocol/client $NODE_CLIENT_VERSION already in $NODE_PREFIX"
    return
  fi
  echo "node client: installing @modelcontextprotocol/client@$NODE_CLIENT_VERSION into $NODE_PREFIX (node $(node --version))"
  rm -rf "$NODE_PREFIX"
  mkdir -p "$NODE_PREFIX"
  echo '{"private":true}' > "$NODE_PREFIX/package.json"
  npm install --prefix "$NODE_PREFIX" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/client@$NODE_CLIENT_VERSION" || die "npm install @modelcontextprotocol/client@$NODE_CLIENT_VERSION failed"
  [ "$(node_client_version)" = "$NODE_CLIENT_VERSION" ] || die "@modelcontextprotocol/client $NODE_CLIENT_VERSION does not load after install"
}

# The conformance suite (and Node 22 if the system node is older) installs itself
# into $CONFORMANCE_CACHE_DIR on first use; --list forces that without a server.
ensure_conformance_suite() {
  require_shared
  (cd "$REPO_ROOT" && "$SHARED_DIR/conformance/run.sh" --list >/dev/null) \
    || die "conformance suite install failed"
  echo "conformance suite: ready in $CONFORMANCE_CACHE_DIR"
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

# start_http_server: run target/debug/everything over HTTP on a free loopback port.
# Sets SERVER_PID, SERVER_URL and SERVER_LOG; callers must `trap stop_http_server EXIT`.
SERVER_PID=""
start_http_server() {
  [ -x "$EVERYTHING_BIN" ] || die "$EVERYTHING_BIN not built (cargo build -p examples --bin everything)"
  mkdir -p "$LOG_DIR"
  local port
  port="$(free_port)"
  SERVER_LOG="$LOG_DIR/everything-http.log"
  echo "starting: $EVERYTHING_BIN --http 127.0.0.1:$port (log: $SERVER_LOG)"
  "$EVERYTHING_BIN" --http "127.0.0.1:$port" > "$SERVER_LOG" 2>&1 < /dev/null &
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
    local tries=10  # up to 2 s for a clean exit, then SIGKILL
    while [ "$tries" -gt 0 ] && kill -0 "$SERVER_PID" 2>/dev/null; do
      sleep 0.2; tries=$((tries - 1))
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}
