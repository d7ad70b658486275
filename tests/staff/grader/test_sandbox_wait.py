"""How sandbox.run waits for a run: it returns the moment the run's first
process exits (under a Budget too, whose CPU polls do not delay it), and
nothing the run started outlives it, whether it ended by itself or at its
limit. Plain processes, no sandbox user."""

import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import sandbox  # noqa: E402


def _alive(pid):
    """Whether pid runs (a zombie not reaped yet counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class SandboxWaitTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.mode = sandbox.Mode(bwrap=False, user=None)

    def _run(self, script, wall=30, budget=None):
        mode = self.mode if budget is None else self.mode.within(budget)
        return sandbox.run(mode, ["/bin/sh", "-c", script], cwd=self._tmp.name,
                           limits=sandbox.Limits(wall_seconds=wall))

    def test_a_short_run_returns_at_once(self):
        for budget in (None, sandbox.Budget("test", 10, 30)):
            start = time.monotonic()
            for _ in range(5):
                self.assertTrue(self._run("sleep 0.02", budget=budget).ok)
            # five runs in less than one budget poll each
            self.assertLess(time.monotonic() - start, 5 * sandbox.BUDGET_POLL_SECONDS)

    def test_a_child_left_behind_is_ended(self):
        for budget in (None, sandbox.Budget("test", 10, 30)):
            result = self._run("sleep 60 & echo $!", budget=budget)
            self.assertTrue(result.ok)
            child = int(result.stdout.split()[0])
            deadline = time.monotonic() + 5
            while _alive(child) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(_alive(child))

    def test_a_run_at_its_limit_is_ended_with_its_children(self):
        marker = os.path.join(self._tmp.name, "child")
        start = time.monotonic()
        result = self._run(f"sleep 60 & echo $! > {marker}; sleep 60", wall=0.5)
        self.assertTrue(result.timed_out)
        self.assertLess(time.monotonic() - start, 5)
        with open(marker, encoding="ascii") as handle:
            child = int(handle.read())
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(_alive(child))

    def test_the_exit_status_is_the_runs(self):
        self.assertEqual(self._run("exit 3").returncode, 3)
        self.assertEqual(self._run("kill -9 $$").signal, 9)


if __name__ == "__main__":
    unittest.main()
