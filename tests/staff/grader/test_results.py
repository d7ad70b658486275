"""Unit tests of the grader's result type and its flags (grader/gradelib/results.py)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib.build import FileBuild  # noqa: E402
from gradelib.results import TestResult, flags_of  # noqa: E402


def builds(**kinds):
    made = {}
    for name, kind in kinds.items():
        b = FileBuild(name + ".c", present=kind != "missing", compiled=kind not in ("error", "missing"),
                      accepted=kind == "ok")
        if kind.startswith("reject:"):
            b.rejected_names = kind.split(":", 1)[1].split(",")
        made[name] = b
    return made


class FlagsOf(unittest.TestCase):
    def test_nothing_wrong_nothing_flagged(self):
        tests = [TestResult("task0::a", 0, "passed"), TestResult("timing::x", 2, "passed", kind="timing")]
        self.assertEqual(flags_of(tests, builds(p="ok", s="ok")), [])

    def test_facts_come_from_the_tests_in_a_fixed_order(self):
        tests = [TestResult("task1::a", 1, "failed", flags=["timeout"]),
                 TestResult("task0::b", 0, "crashed", flags=["crash"]),
                 TestResult("memory::task0", 0, "failed", kind="memory", flags=["leak", "memory"]),
                 TestResult("timing::x", 2, "failed", kind="timing", flags=["over_budget"])]
        self.assertEqual(flags_of(tests, builds(p="ok", s="ok")),
                         ["crash", "timeout", "over_budget", "leak", "memory"])

    def test_a_grading_that_met_its_time_cap_is_flagged_for_the_staff(self):
        tests = [TestResult("task1::a", 1, "failed", flags=["timeout"])]
        self.assertEqual(flags_of(tests, builds(p="ok", s="ok"), capped=True), ["timeout", "time_cap"])
        self.assertEqual(flags_of(tests, builds(p="ok", s="ok")), ["timeout"])

    def test_the_cap_is_seen_in_every_run_the_grading_logs(self):
        # pipeline._save_log sees every sandboxed run (mode.on_run): one
        # capped run among others flags the grading, and only then.
        from gradelib import pipeline, sandbox
        with tempfile.TemporaryDirectory() as out:
            os.mkdir(os.path.join(out, "logs"))
            ctx = pipeline.Context("s", out, out, out, None, 1, True, lambda message: None)
            ran = sandbox.RunResult(["/bin/true"], 0, None, False, 0.1, "", "")
            pipeline._save_log(ctx, ran, out)
            self.assertFalse(ctx.capped)
            pipeline._save_log(ctx, sandbox.RunResult(["runner"], None, None, True, 9.0, "", "", capped=True), out)
            pipeline._save_log(ctx, ran, out)
            self.assertTrue(ctx.capped)

    def test_rejections_and_compile_errors_come_from_the_builds(self):
        self.assertEqual(flags_of([], builds(p="reject:syscall,fopen", s="error")),
                         ["rejected:fopen", "rejected:syscall", "not_compiled"])

    def test_a_missing_file_of_the_term_is_flagged(self):
        # A term's file the submission lacks (a Part 2 file a fetch missed)
        # scores 0 for its task: flagged, never a silent zero.
        self.assertEqual(flags_of([], builds(p="ok", s="ok", t="missing")), ["not_compiled"])

    def test_a_message_alone_is_no_flag(self):
        tests = [TestResult("task0::a", 0, "failed", "crashed the student process (SIGSEGV)")]
        self.assertEqual(flags_of(tests, builds(p="ok", s="ok")), [])

    def test_hidden_is_read_from_the_suite(self):
        self.assertTrue(TestResult("task2_hidden::x", 2, "passed").hidden)
        self.assertFalse(TestResult("task2::x", 2, "passed").hidden)


if __name__ == "__main__":
    unittest.main()


class SuiteMessages(unittest.TestCase):
    """A failure's file:line names our test file, hidden ones too: it never reaches students."""

    def test_the_location_of_a_suite_or_a_header_is_dropped(self):
        from gradelib.suites import _strip_location
        self.assertEqual(_strip_location("tests/staff/hidden/test_hidden_task1.c:88: wrong (seed 4)"),
                         "wrong (seed 4)")
        self.assertEqual(_strip_location("tests/public/support/lab_support.h:31: too many calls"),
                         "too many calls")

    def test_a_message_that_only_looks_like_one_is_kept(self):
        from gradelib.suites import _strip_location
        for message in ("grundy_new(0): returned NULL", "see grundy.h: the API", "a.c:x: not a line"):
            self.assertEqual(_strip_location(message), message)
