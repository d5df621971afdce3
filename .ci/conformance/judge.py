#!/usr/bin/env python3
"""Judge one conformance scenario from the suite's own result file.

    judge.py SCENARIO_OUT_DIR

The suite writes SCENARIO_OUT_DIR/<run>/checks.json: a list of checks
{id, status, errorMessage?, ...} with status SUCCESS, FAILURE, WARNING,
SKIPPED or INFO. A scenario passes when no check is FAILURE (a WARNING is a
SHOULD not met). Prints one tab-separated line:

    found  success  failure  warning  skipped  failed-check-ids

(found is 0 when there is no readable checks.json: the harness produced no
result; failed-check-ids lists the FAILURE checks, then the WARNING ones, which
fail a --strict run), then, one per line, `  <id>: <message>` for every FAILURE and
`  <id> (warning): <message>` for every WARNING.
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
    warned = [c for c in checks if c.get("status") == "WARNING"]
    ids = ",".join(dict.fromkeys(str(c.get("id")) for c in failed + warned)) or "-"
    print("\t".join(map(str, (1, count("SUCCESS"), count("FAILURE"), count("WARNING"), count("SKIPPED"), ids))))
    for c in failed + warned:
        message = c.get("errorMessage") or c.get("description") or ""
        mark = " (warning)" if c.get("status") == "WARNING" else ""
        print(f"  {c.get('id')}{mark}: {str(message)[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
