#!/usr/bin/env python3
"""Judge one conformance scenario from the suite's own result file.

    judge.py SCENARIO_OUT_DIR

The suite writes SCENARIO_OUT_DIR/<run>/checks.json: a list of checks
{id, status, errorMessage?, ...} with status SUCCESS, FAILURE, WARNING,
SKIPPED or INFO. A scenario passes when no check is FAILURE (a WARNING is a
SHOULD not met). Prints one tab-separated line:

    found  success  failure  warning  skipped  failed-check-ids

(found is 0 when there is no readable checks.json: the harness produced no
result), then, one per line, `  <id>: <message>` for every FAILURE.
"""

import json
import sys
from pathlib import Path


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    files = sorted(Path(sys.argv[1]).glob("*/checks.json"))
    try:
        checks = json.loads(files[-1].read_text()) if files else None
    except (OSError, ValueError):
        checks = None
    if not isinstance(checks, list):
        print("0\t0\t0\t0\t0\t-")
        return 0
    checks = [c for c in checks if isinstance(c, dict)]

    def count(status: str) -> int:
        return sum(1 for c in checks if c.get("status") == status)

    failed = [c for c in checks if c.get("status") == "FAILURE"]
    ids = ",".join(dict.fromkeys(str(c.get("id")) for c in failed)) or "-"
    print("\t".join(map(str, (1, count("SUCCESS"), count("FAILURE"), count("WARNING"), count("SKIPPED"), ids))))
    for c in failed:
        message = c.get("errorMessage") or c.get("description") or ""
        print(f"  {c.get('id')}: {str(message)[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
