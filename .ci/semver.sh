#!/usr/bin/env bash
# Checks the public API of the published library crates against the last release tag
# (`v*`, the nearest one HEAD descends from) with cargo-semver-checks, so that a breaking
# change cannot ship under a minor version. Before the first tag there is nothing to compare
# with: the check is skipped, and nothing is installed.
#
# cargo-semver-checks, pinned below, is installed under $CI_CACHE/tools/cargo-semver-checks
# the first time a tag exists, and again when the pin changes.
#   .ci/semver.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

SEMVER_CHECKS_VERSION=0.51.0
SEMVER_CHECKS_ROOT="$TOOLS_DIR/cargo-semver-checks"

# mcp-runtime-macros is not among them: a proc-macro crate has no library API for the tool
# to read (its surface, the macros' keys and diagnostics, is what tests/ui pins).
CRATES=(mcp-runtime-rules mcp-runtime-protocol mcp-runtime)

tags="$(git tag --list 'v*' --merged HEAD)" || die "git tag --list failed"
if [ -z "$tags" ]; then
  echo "semver checks: no release tag yet: skipped"
  exit 0
fi
baseline="$(git describe --tags --abbrev=0 --match 'v*' HEAD)" || die "git describe failed"

if [ -x "$SEMVER_CHECKS_ROOT/bin/cargo-semver-checks" ] \
  && [ "$(cat "$SEMVER_CHECKS_ROOT/.pins" 2>/dev/null)" = "$SEMVER_CHECKS_VERSION" ]; then
  echo "cargo-semver-checks $SEMVER_CHECKS_VERSION: cached in $SEMVER_CHECKS_ROOT"
else
  echo "cargo-semver-checks $SEMVER_CHECKS_VERSION: cargo install into $SEMVER_CHECKS_ROOT"
  rm -rf "$SEMVER_CHECKS_ROOT"
  cargo install --locked --quiet cargo-semver-checks --version "=$SEMVER_CHECKS_VERSION" \
    --root "$SEMVER_CHECKS_ROOT" || die "cargo install cargo-semver-checks failed"
  echo "$SEMVER_CHECKS_VERSION" > "$SEMVER_CHECKS_ROOT/.pins"
fi

packages=()
for crate in "${CRATES[@]}"; do packages+=(-p "$crate"); done
echo "cargo semver-checks check-release --baseline-rev $baseline ${packages[*]}"
PATH="$SEMVER_CHECKS_ROOT/bin:$PATH" cargo semver-checks check-release --baseline-rev "$baseline" "${packages[@]}" \
  || die "the public API breaks semver against $baseline (see above)"
echo "semver checks against $baseline: ok (${CRATES[*]})"
