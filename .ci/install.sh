#!/usr/bin/env bash
# Install (or confirm the cached copies of) what CI needs beyond the pinned Rust toolchain
# and the machine's Python and Node:
#   - redis-server from Debian (apt-get update + install; needs root), which the Redis
#     tests (tests/redis_bus.rs, tests/redis_sessions.rs, tests/session_store.rs) start on
#     loopback, and haproxy, the load balancer of CI's run through three replicas;
#   - under $CI_CACHE/tools (default target/ci/tools): the conformance suite with the Node 22
#     it runs on (npm ci of .ci/conformance/), and the interop clients' SDKs (npm ci of
#     .ci/interop/, a venv with pip install -r .ci/interop/requirements.txt), oidc-provider,
#     the authorization server tests/oauth.rs starts (npm ci of .ci/oidc/), the browser test
#     of interactive views (npm ci of .ci/apps/, with Debian's chromium-headless-shell from
#     apt), and cargo-fuzz
#     (pinned in .ci/lib.sh) for the fuzz step.
# Each cached install is redone when its pin files change.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

for tool in cargo git python3 node npm timeout sha256sum curl; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found on PATH"
done
# rust-toolchain.toml decides the toolchain; it must be installed already, with both components.
echo "rust: $(cargo --version) ($(rustup show active-toolchain 2>/dev/null | cut -d' ' -f1))"
cargo fmt --version >/dev/null 2>&1 || die "rustfmt component missing (rustup component add rustfmt)"
cargo clippy --version >/dev/null 2>&1 || die "clippy component missing (rustup component add clippy)"

ensure_redis_server
ensure_haproxy
ensure_conformance_suite
echo "conformance suite: node $("$(conformance_node)" --version)"
ensure_node_client
ensure_oidc_provider
ensure_apps_tree
ensure_chromium
ensure_py_client
ensure_cargo_fuzz
