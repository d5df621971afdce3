#!/usr/bin/env python3
"""Tests of judge.py: checks.json files written as the suite writes them, judged.

    python3 .ci/conformance/judge_test.py
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

JUDGE = Path(__file__).resolve().parent / "judge.py"

# The suite's own reason for skipping every check of a scenario it cannot test yet.
REASON = "The harness needs a rewrite against the new channel."


def check(id_, status, message=None):
    c = {"id": id_, "name": id_, "description": f"the check {id_}", "status": status}
    if message is not None:
        c["errorMessage"] = message
    return c


WIRE_OK = check("wire-schema-valid", "SUCCESS")
SKIPPED = check("tasks-status-notifications", "SKIPPED", f"Skipped: {REASON}")


class Judge(unittest.TestCase):
    def judge(self, checks, *flags, exit_status=0, under=""):
        with tempfile.TemporaryDirectory() as out:
            if checks is not None:
                run = Path(out) / under / "server-scenario-2026-01-01T00-00-00"
                run.mkdir(parents=True)
                (run / "checks.json").write_text(json.dumps(checks))
            done = subprocess.run(
                [sys.executable, str(JUDGE), "--exit-status", str(exit_status), *flags, out],
                capture_output=True, text=True, check=False,
            )
        verdict, _, reason = done.stdout.splitlines()[0].partition("\t")
        return done.returncode, verdict, reason

    def test_a_success_of_its_own_passes(self):
        self.assertEqual(self.judge([check("tools-list", "SUCCESS"), WIRE_OK])[:2], (0, "PASS"))

    def test_a_scenario_named_with_a_slash_is_read_a_level_deeper(self):
        self.assertEqual(self.judge([check("pkce-s256-method-used", "SUCCESS")], under="auth")[:2], (0, "PASS"))

    def test_the_wire_schema_check_alone_tests_nothing(self):
        rc, verdict, reason = self.judge([WIRE_OK])
        self.assertEqual((rc, verdict), (1, "FAIL"))
        self.assertIn("nothing tested", reason)

    def test_own_checks_all_skipped_fail_with_the_suites_reason(self):
        rc, verdict, reason = self.judge([SKIPPED, WIRE_OK])
        self.assertEqual((rc, verdict), (1, "FAIL"))
        self.assertIn("nothing tested", reason)
        self.assertIn(REASON, reason)

    def test_no_check_at_all_fails(self):
        self.assertEqual(self.judge([])[:2], (1, "FAIL"))
        self.assertEqual(self.judge(None)[:2], (1, "FAIL"))

    def test_a_failure_fails_whoever_it_comes_from(self):
        own = check("tools-list", "SUCCESS")
        failed_wire = check("wire-schema-valid", "FAILURE", "bad message")
        self.assertEqual(self.judge([own, failed_wire], exit_status=1)[:2], (1, "FAIL"))
        self.assertEqual(self.judge([own, check("x", "FAILURE")], exit_status=1)[:2], (1, "FAIL"))

    def test_a_warning_fails_only_when_strict(self):
        checks = [check("tools-list", "SUCCESS"), check("sse-retry", "WARNING")]
        self.assertEqual(self.judge(checks)[:2], (0, "PASS"))
        self.assertEqual(self.judge(checks, "--strict")[:2], (1, "FAIL"))

    def test_a_time_out_fails(self):
        self.assertEqual(self.judge([check("tools-list", "SUCCESS")], exit_status=124)[:2], (1, "FAIL"))

    def test_a_listed_scenario_all_skipped_is_not_testable_with_the_suites_reason(self):
        rc, verdict, reason = self.judge([SKIPPED, WIRE_OK], "--untestable")
        self.assertEqual((rc, verdict), (0, "UNTESTABLE"))
        self.assertEqual(reason, f"not testable: {REASON}")

    def test_a_listed_scenario_with_a_success_is_stale(self):
        rc, verdict, reason = self.judge([check("tasks-status", "SUCCESS"), SKIPPED], "--untestable")
        self.assertEqual((rc, verdict), (1, "STALE"))
        self.assertIn("take it off the list", reason)

    def test_a_listed_scenario_that_fails_fails(self):
        checks = [SKIPPED, check("wire-schema-valid", "FAILURE", "bad message")]
        self.assertEqual(self.judge(checks, "--untestable", exit_status=1)[:2], (1, "FAIL"))

    def test_a_listed_scenario_that_wrote_nothing_fails(self):
        self.assertEqual(self.judge([WIRE_OK], "--untestable")[:2], (1, "FAIL"))


if __name__ == "__main__":
    unittest.main()
