#!/usr/bin/env bash
# Builds and runs the whole benchmark, then prints the table (also written to
# bench/target/latest.md). Arguments go to the driver: a phase (all, build,
# http, stdio, scale), --quick for a short check, --rebuild-cycles N.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet -p bench-driver
exec target/release/bench-driver "$@"
