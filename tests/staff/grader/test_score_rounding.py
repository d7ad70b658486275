"""A task's tests add up to its points exactly whatever points lab.ini
gives it (rubric.term_lines scales its lines in whole units by the largest
remainder): Task 0 at 30 points over the rubric's 15+12+5+0+3 read
29.9999 when each scaled line was rounded on its own, and Gradescope's
self-test refused the model solution."""

import os
import sys
import tempfile
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import rubric  # noqa: E402


class Rounding(unittest.TestCase):
    def test_each_task_adds_up_to_its_points(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
            handle.write("15 task0::*\n12 task0_hidden::*\n5 memory::task0\n0 growth::task0\n3 speed::task0\n"
                         "1 task1::*\n2 task1_hidden::*\n")
        self.addCleanup(os.unlink, handle.name)
        ids = ([f"task0::t{i}" for i in range(19)] + [f"task0_hidden::h{i}" for i in range(8)]
               + ["memory::task0", "growth::task0", "speed::task0"]
               + [f"task1::t{i}" for i in range(7)] + [f"task1_hidden::h{i}" for i in range(3)])
        for task_points in ({0: 30.0, 1: 25.0}, {0: 35.0, 1: 20.0}, {0: 7.0, 1: 1.0}):
            with self.subTest(task_points=task_points):
                points = rubric.assign(handle.name, ids, tasks=[0, 1], total=sum(task_points.values()),
                                       task_points=task_points, timed_task=1)
                for task, want in task_points.items():
                    got = sum(v for i, v in points.items() if rubric.task_of_pattern(i) == task)
                    self.assertAlmostEqual(got, want, delta=1e-9)
                self.assertTrue(all(round(v, 4) == v for v in points.values()))
        # the rounding this replaced: each scaled line alone
        self.assertGreater(abs(sum(round(w * 30 / 35, 4) for w in (15, 12, 5, 0, 3)) - 30), 1e-6)


if __name__ == "__main__":
    unittest.main()
