#!/usr/bin/env bash
# The public API of each published crate, one item per line, committed in
# .ci/public-api/<package>.txt: every change to what users can name is then a diff a
# reviewer sees, beside the change that made it.
#   .ci/public-api.sh           rewrite the committed lists from the sources
#   .ci/public-api.sh --check   fail, with the diff, when a list differs from the sources
# The lists are read from `cargo doc --no-deps --all-features` (stable rustdoc's HTML;
# .ci/public_api.py says how, and what each line means) into $TARGET_DIR/doc. Both modes
# print each crate's counts: lines, names at the crate root, public types (structs, enums,
# unions, traits and type aliases).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

# The crates .ci/publish.sh publishes.
PACKAGES=(mcp-runtime mcp-runtime-protocol mcp-runtime-macros mcp-runtime-rules mcp-runtime-catalog)
LIST_DIR=.ci/public-api

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) die "usage: .ci/public-api.sh [--check]" ;;
esac

packages=()
for package in "${PACKAGES[@]}"; do packages+=(-p "$package"); done
# Every feature, as docs.rs documents them, and no rustdoc flags from the environment: one
# such as --document-private-items would change the list.
echo "cargo doc --no-deps --all-features --lib ${packages[*]}"
RUSTDOCFLAGS="" cargo doc --quiet --no-deps --all-features --lib "${packages[@]}" \
  || die "cargo doc failed"

# package name -> library name (mcp-runtime-catalog's library is mcp_catalog).
declare -A lib_of
while read -r package lib; do
  lib_of[$package]=$lib
done < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for package in json.load(sys.stdin)["packages"]:
    for target in package["targets"]:
        if {"lib", "proc-macro"} & set(target["kind"]):
            print(package["name"], target["name"].replace("-", "_"))
')

fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
stale=()
for package in "${PACKAGES[@]}"; do
  lib="${lib_of[$package]:-}"
  [ -n "$lib" ] || die "$package: no library target in cargo metadata"
  counts="$(python3 "$REPO_ROOT/.ci/public_api.py" "$TARGET_DIR/doc" "$lib" "$fresh/$package.txt")" \
    || die "$package: reading its documentation failed"
  echo "$package: $counts"
  if ! cmp -s "$fresh/$package.txt" "$LIST_DIR/$package.txt"; then
    stale+=("$package")
  fi
done

if ! "$check"; then
  mkdir -p "$LIST_DIR"
  for package in "${PACKAGES[@]}"; do cp "$fresh/$package.txt" "$LIST_DIR/$package.txt"; done
  if [ "${#stale[@]}" -eq 0 ]; then
    echo "$LIST_DIR/ already held the public API: nothing changed"
  else
    echo "rewrote $LIST_DIR/ for ${stale[*]}: review the diff (git diff $LIST_DIR) and commit it"
  fi
  exit 0
fi

if [ "${#stale[@]}" -eq 0 ]; then
  echo "the public API is the committed one ($LIST_DIR/)"
  exit 0
fi
for package in "${stale[@]}"; do
  echo
  echo "$package: the public API differs from $LIST_DIR/$package.txt (- committed, + the sources):"
  if [ -f "$LIST_DIR/$package.txt" ]; then
    diff -u --label "$LIST_DIR/$package.txt" --label "sources" "$LIST_DIR/$package.txt" "$fresh/$package.txt" || true
  else
    echo "(no committed list)"
  fi
done
echo
echo "If the change is meant, refresh the lists and commit them with it:"
echo "  .ci/public-api.sh && git add $LIST_DIR"
exit 1
