"""What grader/rubric --explain shows: each rubric line's tests and their
share of its points (grader/gradelib/rubric.py, explain), so a test added to
a suite is seen taking a share from the others."""

import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import labdef, rubric  # noqa: E402


def rubric_tool():
    loader = importlib.machinery.SourceFileLoader("rubric_tool", os.path.join(REPO, "grader", "rubric"))
    spec = importlib.util.spec_from_loader("rubric_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class Explain(unittest.TestCase):
    def setUp(self):
        handle, self.path = tempfile.mkstemp(suffix=".txt")
        with os.fdopen(handle, "w") as out:
            out.write("exclude a::skipped\n6 a::*\n4 b::only\n")
        self.addCleanup(os.unlink, self.path)

    def test_shares_add_up_and_a_new_test_takes_one(self):
        before = dict(rubric.explain(self.path, ["a::one", "a::two", "b::only", "a::skipped"], total=10)
                      [0][1])
        self.assertEqual(before, {"a::one": 3.0, "a::two": 3.0})
        after = dict(rubric.explain(self.path, ["a::one", "a::two", "a::new", "b::only"], total=10)[0][1])
        self.assertEqual(sorted(after), ["a::new", "a::one", "a::two"])
        self.assertAlmostEqual(sum(after.values()), 6.0)
        self.assertLess(after["a::one"], before["a::one"])

    def test_refuses_what_the_grader_refuses(self):
        with self.assertRaises(rubric.RubricError):
            rubric.explain(self.path, ["a::one", "c::unplaced", "b::only"], total=10)

    def test_the_tools_tests_are_the_harness_tests(self):
        # The tool reads the suites' sources; the grader, the runners' own
        # list: the same tests, or the shares shown are not the grader's.
        lab = labdef.lab()
        built = os.path.join(REPO, "build", "grader" + lab.build_suffix, "tests.txt")
        if not os.path.exists(built):
            self.skipTest("no harness built (make grader-harness)")
        with open(built, encoding="utf-8") as handle:
            harness = sorted(line.strip() for line in handle if line.strip())
        self.assertEqual(sorted(rubric_tool().suite_tests(lab)), harness)


if __name__ == "__main__":
    unittest.main()
