#!/usr/bin/env bash
# Install (or confirm the cached copies of) everything CI needs beyond the machine's
# Rust/Python/Node toolchains: the two interop client SDKs under target/ci-tools/ and the
# conformance suite (plus Node 22, which it needs) under target/conformance-tools/.
# From Debian: redis-server, which the event-bus test (`tests/redis_bus.rs`) starts on
# loopback to run two replicas against.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
require_shared

for tool in cargo python3 node npm timeout; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found on PATH"
done
cargo fmt --version >/dev/null 2>&1 || die "rustfmt component missing"
cargo clippy --version >/dev/null 2>&1 || die "clippy component missing"

ensure_redis_server
ensure_py_client
ensure_node_client
ensure_conformance_suite
