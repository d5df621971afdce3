#!/usr/bin/env python3
"""Judge one conformance scenario from the suite's own result file and exit status.

    judge.py --exit-status N [--strict] [--unscored] SCENARIO_OUT_DIR

The suite writes SCENARIO_OUT_DIR/<run>/checks.json: a list of checks
{id, status, errorMessage?, ...} with status SUCCESS, FAILURE, WARNING,
SKIPPED or INFO; N is the exit status of the harness that wrote it (124: the
`timeout` around it expired). A scenario passes when all of these hold:

  - the harness exited 0 (it exits 1 on a FAILURE check; any other status,
    and a time-out above all, means the run did not finish as it should);
  - checks.json is there and readable;
  - no check is FAILURE, none has a status outside the five above, and with
    --strict none is WARNING (a SHOULD not met);
  - at least one check is SUCCESS: a file that is empty or holds only
    SKIPPED and INFO checks tested nothing. With --unscored (a scenario the
    revision does not score) such a run still passes, and says so.

Prints one tab-separated line, `PASS|FAIL <tab> reason`, then, one per line,
`  <id>: <message>` for every FAILURE, `  <id> (warning): <message>` for every
WARNING and `  <id> (status S): <message>` for every unknown status. Exits 0
on PASS, 1 on FAIL, 2 on a usage error.
"""

import argparse
import json
import sys
from pathlib import Path

KNOWN = ("SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO")
TIMED_OUT = 124  # timeout(1)'s status when it stopped the command


def load_checks(out_dir: Path):
    files = sorted(out_dir.glob("*/checks.json"))
    if not files:
        return None
    try:
        checks = json.loads(files[-1].read_text())
    except (OSError, ValueError):
        return None
    return checks if isinstance(checks, list) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exit-status", type=int, required=True, metavar="N")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--unscored", action="store_true")
    parser.add_argument("out_dir", type=Path, metavar="SCENARIO_OUT_DIR")
    args = parser.parse_args()  # exits 2 on a usage error

    checks = load_checks(args.out_dir)
    if checks is None:
        exit_note = "timed out, " if args.exit_status == TIMED_OUT else ""
        print(f"FAIL\tno results (no readable checks.json; {exit_note}harness exit {args.exit_status})")
        return 1
    checks = [c if isinstance(c, dict) else {"id": repr(c), "status": None} for c in checks]

    def having(status):
        return [c for c in checks if c.get("status") == status]

    ok, failed, warned = having("SUCCESS"), having("FAILURE"), having("WARNING")
    skipped, info = having("SKIPPED"), having("INFO")
    unknown = [c for c in checks if c.get("status") not in KNOWN]
    counts = f"{len(ok)} ok, {len(failed)} failed, {len(warned)} warn, {len(skipped)} skipped"
    if info:
        counts += f", {len(info)} info"

    problems = []
    if args.exit_status == TIMED_OUT:
        problems.append(f"timed out (harness exit {TIMED_OUT})")
    elif args.exit_status != 0 and not (args.exit_status == 1 and failed):
        # Exit 1 with a FAILURE check is the harness reporting that check, said below.
        problems.append(f"harness exit {args.exit_status}")
    if failed or unknown or (args.strict and warned):
        ids = dict.fromkeys(str(c.get("id")) for c in failed + unknown + (warned if args.strict else []))
        problems.append("failed or warned: " + ",".join(ids))
    note = ""
    if not ok:
        if args.unscored:
            note = "; nothing checked (passes only because it is not scored)"
        else:
            problems.append("nothing checked: no SUCCESS check")

    verdict = "FAIL" if problems else "PASS"
    print("\t".join((verdict, "; ".join([counts, *problems]) + note)))
    for c in failed + warned + unknown:
        message = c.get("errorMessage") or c.get("description") or ""
        status = c.get("status")
        mark = "" if status == "FAILURE" else " (warning)" if status == "WARNING" else f" (status {status})"
        print(f"  {c.get('id')}{mark}: {str(message)[:300]}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
