#!/usr/bin/env bash
# Checks that the publishable crates would publish: each one's file list
# (README and licenses in, tests, fixtures and snapshots out), then
# `cargo publish --dry-run` for all of them in one run, so cargo packages and
# builds mcp-runtime against the mcp-runtime-macros it just packaged (neither
# needs to be on crates.io yet).
#   .ci/publish.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

# In dependency order. Every other workspace member is `publish = false`.
CRATES=(mcp-runtime-rules mcp-runtime-protocol mcp-runtime-macros mcp-runtime-catalog mcp-runtime)

# A dry run checks packaging and the build, not whether the work tree is
# committed, so uncommitted edits may be checked too.
ALLOW_DIRTY=(--allow-dirty)

for crate in "${CRATES[@]}"; do
  echo "package contents: $crate"
  list="$(cargo package --list --quiet -p "$crate" "${ALLOW_DIRTY[@]}")" \
    || die "cargo package --list failed for $crate"
  for wanted in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE src/lib.rs; do
    grep -qx "$wanted" <<<"$list" || die "$crate: the package lacks $wanted"
  done
  if unwanted="$(grep -E '^(tests|snapshots|fixtures|benches)/|\.(stderr|expanded\.rs|db)$' <<<"$list")"; then
    die "$crate: the package holds files that belong to the repository only:"$'\n'"$unwanted"
  fi
done

packages=()
for crate in "${CRATES[@]}"; do packages+=(-p "$crate"); done
# The dry run builds each packaged crate as if it came from a registry, and cargo never
# rebuilds a registry crate it built before at the same version: a cached target would check
# the last run's sources. So the dry run gets a target directory of its own (its dependencies
# stay cached there), from which our crates' earlier builds are removed first.
publish_target="${TARGET_DIR:-target}/publish-dry-run"
for profile_dir in "$publish_target"/*/; do
  rm -rf "$profile_dir".fingerprint/mcp-runtime* "$profile_dir"deps/*mcp_runtime*
done
# Cargo also unpacks the crates it just packaged into CARGO_HOME, under the local registry's
# own folder (not crates.io's), and never unpacks the same version there again: the verify
# build of a crate would compile the last run's sources of the crates it depends on.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for unpacked in "$cargo_home"/registry/src/*/mcp-runtime-*; do
  case "$unpacked" in
    "$cargo_home"/registry/src/index.crates.io-*) ;;
    *) [ -e "$unpacked" ] && rm -rf "$unpacked" ;;
  esac
done
echo "cargo publish --dry-run ${packages[*]} (target: $publish_target)"
CARGO_TARGET_DIR="$publish_target" cargo publish --dry-run "${packages[@]}" "${ALLOW_DIRTY[@]}" \
  || die "cargo publish --dry-run failed (see above)"
echo "publish dry run: ok (${CRATES[*]})"
