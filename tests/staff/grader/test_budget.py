"""A phase's own budget (sandbox.Budget, Mode.within; the coverage phase's,
coverage.py): its runs end by its deadline, are killed once the CPU time
of their processes, every one of each run, reaches its CPU seconds, and a
run asked for after either is not started; each says so. Plain
processes, no sandbox user."""

import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import sandbox  # noqa: E402


class BudgetTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.mode = sandbox.Mode(bwrap=False, user=None)

    def test_the_cpu_of_every_process_of_a_run_counts(self):
        budget = sandbox.Budget("coverage", 1.5, 60)
        start = time.monotonic()
        # two spinning children, their parent idle: the parent's own CPU
        # time stays near 0, the run's reaches the budget
        result = sandbox.run(self.mode.within(budget),
                             ["/bin/sh", "-c", "sh -c 'while :; do :; done' & "
                                               "sh -c 'while :; do :; done' & wait"],
                             cwd=self._tmp.name, limits=sandbox.Limits(wall_seconds=60))
        self.assertLess(time.monotonic() - start, 30)
        self.assertTrue(result.timed_out)
        self.assertEqual(budget.exceeded, "CPU")
        self.assertGreaterEqual(budget.spent, 1.5)
        self.assertIn("stopped by the coverage budget", result.describe())

    def test_a_run_after_the_budget_is_not_started(self):
        budget = sandbox.Budget("coverage", 60, 0.001)
        time.sleep(0.01)
        marker = os.path.join(self._tmp.name, "ran")
        result = sandbox.run(self.mode.within(budget), ["/bin/touch", marker], cwd=self._tmp.name)
        self.assertFalse(result.ok)
        self.assertEqual(budget.exceeded, "wall")
        self.assertFalse(os.path.exists(marker))
        self.assertIn("coverage budget", result.describe())

    def test_a_run_within_the_budget_is_charged_and_untouched(self):
        budget = sandbox.Budget("coverage", 60, 60)
        result = sandbox.run(self.mode.within(budget), ["/bin/sh", "-c", "exit 3"], cwd=self._tmp.name)
        self.assertEqual(result.returncode, 3)
        self.assertFalse(result.timed_out)
        self.assertEqual(budget.exceeded, "")
        self.assertIsNotNone(result.cpu_seconds)
        self.assertEqual(result.describe(), "exit status 3")



if __name__ == "__main__":
    unittest.main()
