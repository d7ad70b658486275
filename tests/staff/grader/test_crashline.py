"""Unit tests of the crash's line (grader/gradelib/crashline.py): which
crashed tests run again under valgrind, and which tests its sentence joins.
The valgrind run itself is the memory check's (memcheck.run_task), stood in
for here; the fixture crash_on_empty checks the whole path (expected-grades)."""

import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import crashline  # noqa: E402
from gradelib.results import TestResult  # noqa: E402

SEGV = "grundy_is_terminal({}) crashed the student process (SIGSEGV: an invalid memory access)"
OTHER = "grundy_copy({3=1}) crashed the student process (SIGABRT: the program aborted)"


def crash(test_id, message=SEGV, task=1, status="failed"):
    return TestResult(test_id, task, status, message, flags=["crash"])


def finding(kind, line):
    return {"kind": kind, "what": "Invalid read of size 4" if kind == "InvalidRead" else "lost",
            "file": "grundy_solver.c", "line": line, "function": "grundy_is_terminal", "stack": []}


class Crashed(unittest.TestCase):
    def test_one_test_per_message_public_first_at_most_two(self):
        tests = [crash("task1_hidden::h"), crash("task1::a"), crash("task1::b"),
                 crash("task0::c", OTHER, task=0), crash("task1::d", "a third crash")]
        chosen = crashline.crashed(tests)
        self.assertEqual([t.id for t in chosen.values()], ["task1::a", "task0::c"])

    def test_only_failed_tests_that_crashed(self):
        tests = [crash("task1::a", status="passed"), TestResult("task1::b", 1, "failed", SEGV),
                 TestResult("task1::c", 1, "failed", "returned true; the position is N")]
        self.assertEqual(crashline.crashed(tests), {})

    def test_not_a_process_killed_at_its_limit(self):
        # valgrind finds nothing in it, and its rerun would run to the limit again
        tests = [crash("task1::slow", "grundy_is_n_position({19=1}) crashed the student process "
                       "(SIGKILL: stopped at its memory or CPU limit)"),
                 crash("task1::spin", "grundy_is_p_position({3=1}) crashed the student process "
                       "(SIGXCPU: stopped at its CPU limit)"),
                 crash("task1::a")]
        self.assertEqual([t.id for t in crashline.crashed(tests).values()], ["task1::a"])

    def test_the_limit_words_are_the_proxys(self):
        proxy = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader",
                             "boundary", "proxy.c")
        with open(proxy, encoding="utf-8") as handle:
            source = handle.read()
        for words in crashline.LIMIT_KILLS:
            signal, text = words.strip("(").split(": ", 1)
            self.assertIn(f'{{{signal}, "{text}', source)


class Locate(unittest.TestCase):
    def locate(self, findings, tests, program="bin/student_dynamic"):
        calls = []

        def run_task(mode, scratch, runner, prog, task, selected, seed, suffix="", seconds=None):
            calls.append((prog, task, tuple(selected), suffix, seconds))
            return {"findings": findings, "complete": False, "why": "the test crashed"}

        with mock.patch.object(crashline.memcheck, "run_task", run_task):
            found = crashline.locate("mode", "/scratch", lambda task: f"runner_task{task}",
                                     lambda task: program, 7, tests)
        return found, calls

    def test_the_first_finding_that_is_not_a_leak_names_the_line(self):
        found, calls = self.locate([finding("Leak_DefinitelyLost", 50), finding("InvalidRead", 34)],
                                   [crash("task1::a")])
        self.assertEqual(found, {SEGV: "valgrind, running the same call again: Invalid read of size 4, at "
                                       "grundy_solver.c:34 in grundy_is_terminal "
                                       "(handout: handouts/grundy-lab.html#memcheck)"})
        self.assertEqual(calls, [("bin/student_dynamic", 1, ("task1::a",), "_crash0",
                                  crashline.config.LIMITS["crash_rerun_seconds"])])

    def test_leaks_only_or_nothing_found_add_nothing(self):
        self.assertEqual(self.locate([finding("Leak_DefinitelyLost", 50)], [crash("task1::a")])[0], {})
        self.assertEqual(self.locate([], [crash("task1::a")])[0], {})

    def test_no_program_no_run(self):
        found, calls = self.locate([finding("InvalidRead", 34)], [crash("task1::a")], program=None)
        self.assertEqual((found, calls), ({}, []))


class WhenNotRun(unittest.TestCase):
    """pipeline.crash_lines_phase makes no rerun near the grading's cap, nor
    where the host's memory lowered the student processes' address space
    (valgrind has no RLIMIT_AS; check-gradescope-container's 768 MiB)."""

    def phase(self, deadline=None, address_space=0):
        import time
        from gradelib import pipeline
        mode = mock.Mock(deadline=None if deadline is None else time.monotonic() + deadline,
                         student_address_space_mib=address_space)
        ctx = mock.Mock(mode=mode, scratch="/scratch", seed=7)
        with mock.patch.object(pipeline.crashline, "locate", return_value={"x": "y"}) as locate:
            found = pipeline.crash_lines_phase(ctx, {}, [crash("task1::a")])
        return found, locate.called

    def test_runs_with_time_and_the_configured_address_space(self):
        configured = int(crashline.config.LIMITS["student_address_space_mib"])
        self.assertEqual(self.phase(deadline=10_000, address_space=configured), ({"x": "y"}, True))
        self.assertEqual(self.phase(), ({"x": "y"}, True))

    def test_not_near_the_cap(self):
        self.assertEqual(self.phase(deadline=1), ({}, False))

    def test_not_with_a_lowered_address_space(self):
        lowered = int(crashline.config.LIMITS["student_address_space_mib"]) // 2
        self.assertEqual(self.phase(address_space=lowered), ({}, False))


class Annotate(unittest.TestCase):
    def test_joins_the_failed_crashes_with_that_message_once(self):
        same, other = crash("task1::a"), crash("task0::b", OTHER, task=0)
        passed = crash("task1::c", status="passed")
        found = {SEGV: "valgrind, running the same call again: at grundy_solver.c:34"}
        for _ in range(2):
            crashline.annotate([same, other, passed], found)
        self.assertEqual(same.message, SEGV + "\nvalgrind, running the same call again: at grundy_solver.c:34")
        self.assertEqual((other.message, passed.message), (OTHER, SEGV))


if __name__ == "__main__":
    unittest.main()
