#!/usr/bin/env bash
# The documentation of mcp-runtime, built by rustdoc with warnings as errors, for every feature
# set a user may choose: the defaults, all features, each feature of mcp-runtime/Cargo.toml
# alone (`--no-default-features --features X`), and each one that is not a default beside the
# defaults (`--features X`). A link to an item that a feature set leaves out (a `redis` type
# named from `cache`, say) is a warning there, and fails the step. mcp-runtime-macros, whose
# pages the runtime re-exports, is documented once (it has no features).
#
#   .ci/docs.sh            every feature set, then the list of those that failed
#   .ci/docs.sh FEATURE    only FEATURE alone and beside the defaults
#
# The features are read from the manifest (`cargo metadata`), so a new one is covered without
# being listed here. Every set shares the one target directory ($CARGO_TARGET_DIR, else
# target/): only mcp-runtime itself is documented again, and its dependencies are checked once
# per set of their own features. Each set's rustdoc output is kept under
# $RESULTS_DIR/docs/<set>.log.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

only="${1:-}"
LOG_DIR="$RESULTS_DIR/docs"
mkdir -p "$LOG_DIR"

# The features of mcp-runtime, and which of them are default.
mapfile -t FEATURES < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
package = next(p for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-runtime")
for name in sorted(package["features"]):
    if name != "default":
        print(name, "default" if name in package["features"].get("default", []) else "optional")
')
[ "${#FEATURES[@]}" -gt 0 ] || die "no features read from mcp-runtime/Cargo.toml"

# The feature sets, as "label|cargo arguments".
sets=()
if [ -z "$only" ]; then
  sets+=("default|" "all-features|--all-features")
fi
known=false
for line in "${FEATURES[@]}"; do
  read -r feature kind <<<"$line"
  [ -n "$only" ] && [ "$feature" != "$only" ] && continue
  known=true
  sets+=("$feature alone|--no-default-features --features $feature")
  [ "$kind" = optional ] && sets+=("default + $feature|--features $feature")
done
[ -z "$only" ] || $known || die "mcp-runtime has no feature \`$only\`"

failed=()
# doc LABEL ARGS...: documents with ARGS; a failure, or any warning in the output, fails it.
doc() {
  local label=$1 log rc=0
  shift
  log="$LOG_DIR/$(tr ' +' '_p' <<<"$label").log"
  echo "cargo doc --no-deps $* ($label)"
  RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --lib "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] || grep -q '^warning' "$log"; then
    cat "$log"
    failed+=("$label")
  fi
}

for set in "${sets[@]}"; do
  IFS='|' read -r label args <<<"$set"
  # shellcheck disable=SC2086 # the arguments are words
  doc "$label" -p mcp-runtime $args
done
[ -n "$only" ] || doc "mcp-runtime-macros" -p mcp-runtime-macros

echo "documented ${#sets[@]} feature sets of mcp-runtime$([ -n "$only" ] || echo ", and mcp-runtime-macros")"
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'warnings or errors in: %s\n' "${failed[@]}"
  exit 1
fi
