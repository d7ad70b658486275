"""End to end, the order in which tests ran, from the runner's report hook
(grader/boundary/grader_report.c) through suites.result_of and the
pipeline's entries to feedback.md (reports.py): a Criterion program of
three tests, two of which time out, the later one in suite (alphabetical)
order first, is built with the grader's hook and run side by side; the
feedback must show the first time-out before the other.

It sleeps (Criterion's time-outs are wall-clock), so it costs about 2 s of
wall time and almost no CPU.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "grader"))

from gradelib import pipeline, reports, suites  # noqa: E402

# a_late starts first (suite order) and times out last, as the proxy tells
# a call's time-out (a failed check saying "did not return within");
# b_early times out first, by Criterion's own time-out; c_passes passes.
# (Criterion 2.4.1 was seen to lose a test's .timeout once a test without
# one started beside it, and --timeout to stop no test at all: a_late's
# time-out is the proxy's kind, which rests on no Criterion time-out.)
SUITE = r"""
#include <time.h>
#include <criterion/criterion.h>

static void nap(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

Test(order, a_late)
{
    nap(1.5);
    cr_assert_fail("grundy_is_p_position({19=1}) did not return within 1.5 s: an endless loop?");
}
Test(order, b_early, .timeout = 0.5) { nap(30); }
Test(order, c_passes) { cr_assert(1); }
"""


@unittest.skipUnless(shutil.which("gcc") and os.path.exists("/usr/include/criterion/criterion.h")
                     and os.path.exists("/usr/include/jansson.h"), "needs gcc, Criterion and jansson")
class TimeOutOrderEndToEnd(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        source = os.path.join(self.dir, "suite.c")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(SUITE)
        self.program = os.path.join(self.dir, "runner")
        subprocess.run(["gcc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror",
                        source, os.path.join(ROOT, "grader", "boundary", "grader_report.c"),
                        "-o", self.program, "-lcriterion", "-ljansson"], check=True)

    def test_the_first_time_out_leads_the_feedback(self):
        report = os.path.join(self.dir, "report.json")
        subprocess.run([self.program, "--jobs=3", "--always-succeed"], env={**os.environ, "GRADER_REPORT": report},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        records, error = suites.read_report(report)
        self.assertIsNone(error)
        results = [suites.result_of(t, records.get(t), error)
                   for t in ("order::a_late", "order::b_early", "order::c_passes")]
        late, early, passed = results
        self.assertEqual((late.status, early.status, passed.status), ("failed", "timeout", "passed"))
        self.assertIn("timeout", late.flags)
        self.assertEqual(sorted(r.order for r in results), [1, 2, 3])
        self.assertLess(early.order, late.order)
        self.assertIsNotNone(late.started)
        for r in results:
            r.task = 1
        entries = pipeline.result_entries([(r, 1.0, 1.0 if r.passed else 0.0) for r in results])
        result = {"tests": entries, "task_titles": {1: "Task 1: the recursive solver"},
                  "score": 1, "max_score": 3}
        out = os.path.join(self.dir, "out")
        reports.write_reports(result, out)
        with open(os.path.join(out, "feedback.md"), encoding="utf-8") as handle:
            md = handle.read().replace("\\_", "_")
        # Two causes (timed out, failed), in the order they happened: b_early's first.
        self.assertIn("### Task 1 / b_early: timed out", md)
        self.assertIn("### Task 1 / a_late: failed", md)
        self.assertLess(md.index("### Task 1 / b_early"), md.index("### Task 1 / a_late"))


if __name__ == "__main__":
    unittest.main()
