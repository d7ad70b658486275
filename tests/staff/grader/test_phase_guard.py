"""Unit tests of the boundary around each grading phase
(grader/gradelib/pipeline.py, Context.guarded): a phase that raises while
grading a submission (ENOSPC from a program that filled the disk, EMFILE, a
parser bug) fails its own tests with the cause named, and the grading goes
on; it never ends grader/grade with exit status 3 and no results.json.
"""

import errno
import os
import sys
import time
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import config, pipeline  # noqa: E402


def context():
    lines = []
    ctx = pipeline.Context(submission="/nonexistent", source_dir="/nonexistent", out="/nonexistent",
                           scratch="/nonexistent", mode=None, seed=1, object_checks=True,
                           log=lines.append)
    return ctx, lines


class Guarded(unittest.TestCase):
    def test_a_full_disk_fails_the_phase_with_the_cause(self):
        ctx, lines = context()

        def fills(_ctx):
            raise OSError(errno.ENOSPC, "No space left on device", "/scratch/runs/growth-solver")
        tests = ctx.guarded("growth", fills, lambda why: pipeline._kind_failed(
            "growth", "the memory-growth check could not run: " + why))
        self.assertEqual([t.id for t in tests], [f"growth::task{t}" for t in config.TASKS])
        for t in tests:
            self.assertEqual(t.status, "failed")
            self.assertIn("ran out of disk space", t.message)
            self.assertNotIn("grader_error", t.flags)
        self.assertIn("growth", ctx.failures)
        self.assertTrue(any("ran out of disk space" in n for n in ctx.notes))
        self.assertTrue(any("Traceback" in line for line in lines))   # staff see where
        self.assertIn("growth", ctx.phases)                            # and how long

    def test_a_bug_of_the_grader_is_named_and_flagged(self):
        ctx, _ = context()

        def buggy(_ctx):
            return int("zz")
        tests = ctx.guarded("memory", buggy, lambda why: ([], pipeline._kind_failed(
            "memory", "the memory check could not run: " + why)))[1]
        for t in tests:
            self.assertIn("internal error of the grader", t.message)
            self.assertIn("grader_error", t.flags)

    def test_the_fallbacks_cover_every_test_of_their_phase(self):
        ctx, _ = context()
        tests = pipeline._not_run(["task0::a", "task1_hidden::b"], "why")
        self.assertEqual([(t.task, t.status) for t in tests], [(0, "failed"), (1, "failed")])
        builds = pipeline._builds_not_run("the grading ran out of disk space")
        self.assertEqual(sorted(builds), sorted(config.SUBMISSION_FILES))
        self.assertFalse(any(b.accepted for b in builds.values()))
        build_tests = pipeline.results_of_build_tests(builds)
        self.assertTrue(all("ran out of disk space" in t.message for t in build_tests))

    def test_exit_and_interrupt_are_not_swallowed(self):
        ctx, _ = context()

        def stopped(_ctx):
            raise SystemExit(143)   # SIGTERM, made an exception by scratch.py
        with self.assertRaises(SystemExit):
            ctx.guarded("suites", stopped, lambda why: None)

    def test_causes(self):
        self.assertIn("open files", pipeline.cause_of(OSError(errno.EMFILE, "x")))
        self.assertIn("disk space", pipeline.cause_of(OSError(errno.EDQUOT, "x")))
        self.assertIn("internal error", pipeline.cause_of(KeyError("x")))

    def test_a_phase_that_raises_after_the_cap_is_told_as_the_cap(self):
        ctx, _ = context()
        ctx.mode = types.SimpleNamespace(deadline=time.monotonic() - 1)

        def starved(_ctx):
            raise RuntimeError("no timing position found")   # every run refused at the cap
        why = ctx.guarded("timing", starved, lambda why: why)
        self.assertIn("time cap", why)
        self.assertNotIn("internal error", why)
        ctx.mode = types.SimpleNamespace(deadline=time.monotonic() + 60)
        self.assertIn("internal error", ctx.guarded("timing", starved, lambda why: why))


if __name__ == "__main__":
    unittest.main()
