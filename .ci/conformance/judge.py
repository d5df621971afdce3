#!/usr/bin/env python3
"""Judge one conformance scenario from the suite's own result file and exit status.

    judge.py --exit-status N [--strict] [--untestable] SCENARIO_OUT_DIR

The suite writes SCENARIO_OUT_DIR/<run>/checks.json (SCENARIO_OUT_DIR/auth/<run>/
checks.json for a scenario named auth/...): a list of checks
{id, status, errorMessage?, ...} with status SUCCESS, FAILURE, WARNING,
SKIPPED or INFO; N is the exit status of the harness that wrote it (124: the
`timeout` around it expired). Besides the scenario's own checks the suite
adds synthetic ones to every scenario (ids starting `wire-schema-`: each
message read was valid against the schema). Those say nothing of what the
scenario set out to test, so they count when they fail, never as its
success. A scenario passes when all of these hold:

  - the harness exited 0 (it exits 1 on a FAILURE check; any other status,
    and a time-out above all, means the run did not finish as it should);
  - checks.json is there and readable;
  - no check is FAILURE, none has a status outside the five above, and with
    --strict none is WARNING (a SHOULD not met);
  - at least one of the scenario's own checks is SUCCESS, scored scenario or
    not: a file that is empty, or whose own checks were all SKIPPED or INFO,
    tested nothing.

--untestable: the scenario is listed as one the suite cannot test yet (it
skips every check of it itself). Judged as above, except that a run whose
own checks were all SKIPPED is NOT TESTABLE, with the suite's reason (the
SKIPPED checks' messages), and one with a SUCCESS among its own checks is
STALE: the suite tests it now, so it must leave the list (it fails the run,
as an unexpected pass does).

Prints one tab-separated line, `PASS|FAIL|UNTESTABLE|STALE <tab> reason`,
then, one per line, `  <id>: <message>` for every FAILURE, `  <id>
(warning): <message>` for every WARNING and `  <id> (status S): <message>`
for every unknown status. Exits 0 on PASS and UNTESTABLE, 1 on FAIL and
STALE, 2 on a usage error.
"""

import argparse
import json
import sys
from pathlib import Path

KNOWN = ("SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO")
TIMED_OUT = 124  # timeout(1)'s status when it stopped the command
SYNTHETIC = "wire-schema-"  # ids of the checks the suite adds to every scenario


def load_checks(out_dir: Path):
    # A scenario whose name has a `/` (auth/...) is written a level deeper.
    files = sorted(out_dir.glob("*/checks.json")) or sorted(out_dir.glob("*/*/checks.json"))
    if not files:
        return None
    try:
        checks = json.loads(files[-1].read_text())
    except (OSError, ValueError):
        return None
    return checks if isinstance(checks, list) else None


def skip_reason(skipped) -> str:
    """The suite's reason for skipping: the distinct messages of its SKIPPED checks."""
    reasons = []
    for c in skipped:
        message = c.get("errorMessage") or c.get("details") or c.get("description") or ""
        if not isinstance(message, str):
            message = json.dumps(message)
        message = message.strip()
        if message.startswith("Skipped: "):
            message = message[len("Skipped: "):]
        if message and message not in reasons:
            reasons.append(message)
    return " / ".join(reasons) or "the suite gave no reason"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exit-status", type=int, required=True, metavar="N")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--untestable", action="store_true")
    parser.add_argument("out_dir", type=Path, metavar="SCENARIO_OUT_DIR")
    args = parser.parse_args()  # exits 2 on a usage error

    checks = load_checks(args.out_dir)
    if checks is None:
        exit_note = "timed out, " if args.exit_status == TIMED_OUT else ""
        print(f"FAIL\tno results (no readable checks.json; {exit_note}harness exit {args.exit_status})")
        return 1
    checks = [c if isinstance(c, dict) else {"id": repr(c), "status": None} for c in checks]
    own = [c for c in checks if not str(c.get("id")).startswith(SYNTHETIC)]

    def having(status, among=checks):
        return [c for c in among if c.get("status") == status]

    # Successes are counted among the scenario's own checks only; failures and
    # warnings wherever they are.
    ok, failed, warned = having("SUCCESS", own), having("FAILURE"), having("WARNING")
    skipped, info = having("SKIPPED", own), having("INFO", own)
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

    if problems:
        verdict, reason = "FAIL", "; ".join([counts, *problems])
    elif args.untestable and ok:
        verdict = "STALE"
        reason = f"{counts}; listed as not testable, but {len(ok)} of its own checks succeeded: take it off the list"
    elif args.untestable and skipped and len(skipped) == len(own) - len(info):
        verdict, reason = "UNTESTABLE", f"not testable: {skip_reason(skipped)}"
    elif not ok:
        verdict = "FAIL"
        reason = f"{counts}; nothing tested: none of the scenario's own checks succeeded"
        if skipped:
            reason += f" (the suite skipped them: {skip_reason(skipped)})"
    else:
        verdict, reason = "PASS", counts

    print("\t".join((verdict, reason)))
    for c in failed + warned + unknown:
        message = c.get("errorMessage") or c.get("description") or ""
        status = c.get("status")
        mark = "" if status == "FAILURE" else " (warning)" if status == "WARNING" else f" (status {status})"
        print(f"  {c.get('id')}{mark}: {str(message)[:300]}")
    return 0 if verdict in ("PASS", "UNTESTABLE") else 1


if __name__ == "__main__":
    sys.exit(main())
