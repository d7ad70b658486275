"""The grader's failed timing checks are told under the memo mistake the
timed task's suite named (timing.under_memo_cause), so that in feedback.md
one memo bug is one cause, its timing checks listed with its other tests;
a hidden test's cause, a check that could not run and a suite with no named
cause leave the timing messages as they were.
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import config, pipeline, reports, timing  # noqa: E402
from gradelib.results import TestResult  # noqa: E402

TIMED = next(t.number for t in config.LAB.tasks if t.timed)
HIT = ("A memo hit is ignored: grundy_is_p_position finds the position in the memo and searches "
       "it anyway. memo_table_get(memo, {3=1}, &is_p) returned true (stored: N), then "
       "grundy_get_moves({3=1}) was called.")
SAW = "grundy_is_p_position({20=1}) from an empty memo called grundy_get_moves 4000 times"
OVER = ("solving {43=1} from an empty memo was stopped at its CPU budget (40 x the calibration "
        "solver's 0.0100 s); is every answer memoized? (handout: handouts/grundy-lab.html#task-2-timing)")


def suite_test(name, message, status="failed"):
    return TestResult(f"task{TIMED}::{name}", TIMED, status, message)


def timing_test(name, message=OVER):
    return TestResult(f"timing::{name}", TIMED, "failed", message, kind="timing", flags=["over_budget"])


class UnderMemoCause(unittest.TestCase):
    def feedback(self, tests):
        entries = pipeline.result_entries([(t, 1.0, 0.0) for t in tests])
        with tempfile.TemporaryDirectory() as out:
            reports.write_reports({"tests": entries, "score": 0, "max_score": len(tests)}, out)
            with open(os.path.join(out, "feedback.md"), encoding="utf-8") as handle:
                return handle.read().replace("\\_", "_")

    def test_a_timing_failure_joins_the_memo_cause(self):
        suite = [suite_test("each_position_expanded_at_most_once", HIT + reports.TEST_SAW + SAW)]
        checks = [timing_test("single_heap"), timing_test("two_heaps", OVER.replace("{43=1}", "{30=1, 21=1}"))]
        timing.under_memo_cause(checks, suite)
        for check in checks:
            self.assertTrue(check.message.startswith(HIT + reports.TEST_SAW + "solving {"), check.message)
            self.assertEqual(reports.cause_key(check.message), reports.cause_key(suite[0].message))
        md = self.feedback(suite + checks)
        self.assertEqual(md.count("A memo hit is ignored"), 2)   # the summary's line and the case in full
        self.assertIn("fails 2 more tests: Task 2 / timing::single_heap (0/1 points), "
                      "Task 2 / timing::two_heaps", md)

    def test_without_a_named_cause_the_messages_stay(self):
        # The controls: no memo cause; only a hidden test's; a check that could not run.
        plain = suite_test("memo_fills_up", "after forty questions, grundy_memo_size() is 0")
        hidden = TestResult(f"task{TIMED}_hidden::x", TIMED, "failed", HIT + reports.TEST_SAW + SAW)
        for suite in ([plain], [hidden], [suite_test("y", HIT + reports.TEST_SAW + SAW, "passed")]):
            checks = [timing_test("single_heap")]
            timing.under_memo_cause(checks, suite)
            self.assertEqual(checks[0].message, OVER)
        not_run = timing_test("single_heap", "the timing check could not run: an internal error")
        timing.under_memo_cause([not_run], [suite_test("z", HIT + reports.TEST_SAW + SAW)])
        self.assertEqual(not_run.message, "the timing check could not run: an internal error")


if __name__ == "__main__":
    unittest.main()
