"""A check of its own file (grader/gradelib/checks): lab.ini's [checks]
line gives it a test per task, its weight among the task's rubric lines,
and a fallback when it raises; a bad line is refused when the definition
is read."""

import os
import sys
import tempfile
import types
import unittest
from unittest import mock

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))
sys.path.insert(0, os.path.dirname(__file__))

from gradelib import checks, config, labdef, results, rubric  # noqa: E402
from test_labdef import MINIMAL  # noqa: E402


class Definition(unittest.TestCase):
    def load(self, section):
        with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as handle:
            handle.write(MINIMAL + "\n[checks]\n" + section)
        self.addCleanup(os.unlink, handle.name)
        return labdef.load(handle.name)

    def test_a_line_is_a_name_and_a_weight(self):
        lab = self.load("style = 0\nspeedy = 2.5\n")
        self.assertEqual(lab.checks, (("style", 0.0), ("speedy", 2.5)))
        self.assertIn("style::task0", rubric.every_test_id([], lab))
        self.assertIn("speedy::task1", rubric.every_test_id([], lab))

    def test_a_bad_line_is_refused_naming_it(self):
        for bad in ("memory = 0", "task1 = 0", "Style = 0", "style = -1", "style = many", "style = nan"):
            with self.subTest(bad=bad), self.assertRaises(labdef.LabDefinitionError) as raised:
                self.load(bad + "\n")
            self.assertIn("[checks]", str(raised.exception))


class Points(unittest.TestCase):
    def test_the_weight_is_a_share_of_the_tasks_points(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
            handle.write("9 task0::*\n")
        self.addCleanup(os.unlink, handle.name)
        points = rubric.assign(handle.name, ["task0::a", "style::task0"], tasks=[0], total=20,
                               task_points={0: 20}, checks=(("style", 1.0),))
        self.assertAlmostEqual(points["style::task0"], 2.0)
        self.assertAlmostEqual(points["task0::a"], 18.0)
        zero = rubric.assign(handle.name, ["task0::a", "style::task0"], tasks=[0], total=20,
                             task_points={0: 20}, checks=(("style", 0.0),))
        self.assertEqual((zero["style::task0"], zero["task0::a"]), (0.0, 20.0))


class Ctx:
    """The two things run_all uses of a grading's context."""
    def __init__(self):
        self.notes = []

    def guarded(self, name, function, fallback, *args):
        try:
            return function(self, *args)
        except Exception as error:  # noqa: BLE001 - as pipeline.Context.guarded
            return fallback(f"an internal error ({type(error).__name__})")


class Running(unittest.TestCase):
    def setUp(self):
        self.fake = types.ModuleType("gradelib.checks.fake")
        self.fake.TITLE, self.fake.FLAG = "a fake", "fake_flag"
        self.fake.check = lambda ctx, builds, suite_results, task: (
            ("passed", "") if task == 0 else ("failed", f"task {task} is not fine"))
        patches = [mock.patch.dict(sys.modules, {"gradelib.checks.fake": self.fake}),
                   mock.patch.object(config, "LAB", mock.Mock(checks=(("fake", 0.0),))),
                   mock.patch.object(config, "TASKS", [0, 1])]
        for patch in patches:
            patch.start()
            self.addCleanup(patch.stop)

    def test_a_test_per_task_with_the_checks_flag_when_it_fails(self):
        tests = checks.run_all(Ctx(), {}, [])
        self.assertEqual([(t.id, t.task, t.status, t.kind) for t in tests],
                         [("fake::task0", 0, "passed", "fake"), ("fake::task1", 1, "failed", "fake")])
        self.assertEqual((tests[0].flags, tests[1].flags), ([], ["fake_flag"]))
        self.assertEqual(results.flags_of(tests, {}), ["fake_flag"])

    def test_a_check_not_run_for_an_earlier_failure_raises_no_flag(self):
        self.fake.check = lambda ctx, builds, suite_results, task: ("not_run", "the file did not compile")
        tests = checks.run_all(Ctx(), {}, [])
        self.assertEqual([(t.status, t.flags) for t in tests], [("not_run", []), ("not_run", [])])
        self.assertEqual(results.flags_of(tests, {}), [])

    def test_the_warnings_check_waits_for_its_file_to_compile(self):
        from gradelib.checks import warnings
        with mock.patch.object(config, "FILE_OF_TASK", {0: "grundy_position.c"}):
            status, message = warnings.check(Ctx(), {"grundy_position.c": mock.Mock(compiled=False)}, [], 0)
        self.assertEqual(status, "not_run")
        self.assertIn("did not compile", message)

    def test_the_warnings_check_does_not_blame_the_file_for_the_time_cap(self):
        # The grading's cap stopped the preprocessor: time_cap's cause, not
        # a warning of the file's; anything else that stops it still fails.
        from gradelib import sandbox
        from gradelib.checks import warnings
        ctx = Ctx()
        ctx.mode, ctx.scratch = None, tempfile.mkdtemp()
        self.addCleanup(os.rmdir, ctx.scratch)
        built = {"grundy_position.c": mock.Mock(compiled=True, warnings="")}
        for capped, expected in ((True, "not_run"), (False, "failed")):
            stopped = sandbox.RunResult(["gcc"], None, None, True, 9.0, "", "", capped=capped)
            warnings._seen.clear()
            with mock.patch.object(config, "FILE_OF_TASK", {0: "grundy_position.c"}), \
                 mock.patch.object(sandbox, "run", return_value=stopped):
                status, message = warnings.check(ctx, built, [], 0)
            self.assertEqual(status, expected)
            self.assertIn("preprocessor stopped", message)

    def test_a_check_that_raises_fails_its_own_tests_only(self):
        self.fake.check = lambda *args: 1 / 0
        tests = checks.run_all(Ctx(), {}, [])
        self.assertEqual([t.status for t in tests], ["failed", "failed"])
        self.assertTrue(all("could not run" in t.message and t.flags == ["grader_error"] for t in tests))


if __name__ == "__main__":
    unittest.main()
