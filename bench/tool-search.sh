#!/usr/bin/env bash
# Tool search on the catalog of real tools (tool-search/catalog.json, 1,414
# tools of 54 published servers mounted in one gateway): the `tools/list`
# bytes without and with tool search, recall@5 over tool-search/queries.json,
# and the user-space instructions of one `search_tools` call (the request
# read, the search, the result written), counted by callgrind as the
# difference between ROUNDS rounds of every query and none, both after the
# same start-up and index build.
#
#   bench/tool-search.sh [ROUNDS]     (default 3)
#
# MODE=regex counts the regular-expression mode instead (the queries as
# patterns: the cost of matching, not a ranking).
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-3}
mode=${MODE:-bm25}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
cargo build --release --quiet -p bench-tool-search
bin=target/release/bench-tool-search
"$bin" report
count() {
    local out
    out=$(mktemp)
    # Only the server's work: the request read, the search, the result written.
    valgrind --tool=callgrind --toggle-collect='*bench_tool_search::respond*' --callgrind-out-file="$out" "$bin" queries "$1" "$mode" >/dev/null 2>&1
    grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}'
    rm -f "$out"
}
queries=$(python3 -c 'import json; print(len(json.load(open("tool-search/queries.json"))["queries"]))')
base=$(count 0)
full=$(count "$rounds")
echo "$mode: $(( (full - base) / (rounds * queries) )) instructions per search_tools call ($rounds rounds of $queries queries; $base at start-up)"
