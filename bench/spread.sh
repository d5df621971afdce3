#!/usr/bin/env bash
# The run-to-run spread of the HTTP comparison: runs the driver's `http` phase
# RUNS times and prints, for every figure of its table, the lowest and the
# highest value over the runs (the ratios included). Each run's table is kept
# in bench/target/spread/<time>/run-N.md.
#
#   bench/spread.sh RUNS [--quick]
#
# Extra arguments go to the driver (--quick: a tenth of the calls, to check
# that the script works; its figures are not the published ones).
set -euo pipefail
cd "$(dirname "$0")"
runs=${1:?usage: bench/spread.sh RUNS [--quick]}
shift
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "RUNS must be a positive number, not '$runs'" >&2; exit 2; }
cargo build --release --quiet -p bench-driver
dir="target/spread/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$dir"
for i in $(seq "$runs"); do
    echo "run $i of $runs" >&2
    target/release/bench-driver http "$@" >/dev/null
    cp target/latest.md "$dir/run-$i.md"
done
python3 - "$dir"/run-*.md <<'PY'
import sys

SECTION = "### HTTP `tools/call`"
figures, columns, order = {}, [], []
for path in sys.argv[1:]:
    lines = open(path, encoding="utf-8").read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith(SECTION)), None)
    if start is None:
        sys.exit(f"{path} has no HTTP table")
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("### "):
            break
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    header, body = rows[0], [r for r in rows[2:]]
    columns = header[1:]
    for row in body:
        if row[0] not in figures:
            order.append(row[0])
        for column, cell in zip(columns, row[1:]):
            # A figure a run could not take is shown as a dash.
            values = figures.setdefault(row[0], {}).setdefault(column, [])
            if cell not in ("—", "-", ""):
                values.append(float(cell))

def show(values):
    if not values:
        return "—"
    low, high = min(values), max(values)
    fmt = (lambda v: f"{v:.2f}") if high < 10 else (lambda v: f"{v:.1f}") if high < 1000 else (lambda v: f"{v:.0f}")
    return fmt(low) if low == high else f"{fmt(low)}–{fmt(high)}"

runs = len(sys.argv) - 1
print(f"HTTP `tools/call`, lowest–highest over {runs} run(s)\n")
print("| concurrency / metric | " + " | ".join(columns) + " |")
print("|---|" + "---:|" * len(columns))
for label in order:
    print(f"| {label} | " + " | ".join(show(figures[label][c]) for c in columns) + " |")
PY
