"""Unit tests of the verdicts made from what the kernel measures (issue 22):
the memo check (growth.memo_result), the all-right rule of the timing
checks (timing.all_right), the rule that a figure only the student
process reports earns nothing (pipeline.score) and the growth check's
part in the memory verdict (pipeline.with_growth). The probes' figures below are the shapes the
probes print; the reference's are ones measured on the model solution, the
others are what each attack makes them."""

import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import config, growth, timing  # noqa: E402
from gradelib import pipeline  # noqa: E402
from gradelib.results import TestResult  # noqa: E402

SPEC = config.LAB.memo
MIB = 1 << 20

# growth_probe's memo workload on the model solution, {38}, {43}, {45}.
REFERENCE = {"outcome": "measured", "positions": 3, "refills": 12, "start_bytes": 708608,
             "first_bytes": 4255744, "repeat_bytes": 4255744, "again_bytes": 6066176,
             "settling_bytes": 6172672, "settled_bytes": 6176768, "first_cpu": 0.053,
             "repeat_cpu": 0.00005, "again_cpu": 0.058, "message": ""}


def memo(**changes):
    return growth.memo_result("memo::task2", SPEC, [38, 43, 45], dict(REFERENCE, **changes))


# The same probe on the model solution for the smaller draws ([memo]
# smaller), each in a fresh process: {31}, {32}, {33} and {35}, {36}, {37}
# (measured: 484 KiB 3.8 ms, 956 KiB 9 ms), and the main draw's count.
REACHED = 25868
SMALL = [([31, 32, 33], dict(REFERENCE, reachable=3298, start_bytes=708608, first_bytes=708608 + 484 * 1024,
                             first_cpu=0.0038, repeat_cpu=0.00001, again_cpu=0.0033)),
         ([35, 36, 37], dict(REFERENCE, reachable=6753, start_bytes=708608, first_bytes=708608 + 956 * 1024,
                             first_cpu=0.009, repeat_cpu=0.00001, again_cpu=0.0086))]


def scaled(main_changes=None, small_changes=None):
    """memo_result over the three draws; *_changes alter the main draw's
    or every smaller draw's figures."""
    small = [(heaps, dict(v, **(small_changes or {}))) for heaps, v in SMALL]
    return growth.memo_result("memo::task2", SPEC, [38, 43, 45],
                              dict(REFERENCE, reachable=REACHED, **(main_changes or {})), small)


class MemoScaling(unittest.TestCase):
    """Issue 26: ballast (memory touched once, a fixed spin per question)
    passed the one-draw check; over draws of different sizes it does not."""

    def test_the_model_solution_passes_over_every_draw(self):
        result = scaled()
        self.assertEqual(result.status, "passed", result.message)
        self.assertEqual(result.flags, [])

    def test_ballast_touched_once_fails_on_memory(self):
        # 768 KiB touched once in each fresh process, whatever the draw.
        ballast = {"first_bytes": 708608 + 768 * 1024}
        result = scaled(ballast, ballast)
        self.assertEqual(result.status, "failed")
        self.assertIn("memory does not follow the positions", result.message)

    def test_a_fixed_spin_per_question_fails_on_cpu(self):
        # Three questions a draw, each a fixed 10 ms loop: every draw costs the same.
        result = scaled({"first_cpu": 0.03}, {"first_cpu": 0.03})
        self.assertEqual(result.status, "failed")
        self.assertIn("CPU time does not follow the positions", result.message)

    def test_a_smaller_memo_of_positions_still_passes(self):
        # 40 bytes a position (a packed key and a flag): scales, just less.
        per = 40
        first = 708608 + per * REACHED
        result = scaled({"first_bytes": first, "settling_bytes": first + 256 * 1024,
                         "settled_bytes": first + 256 * 1024},
                        {"first_bytes": 708608 + per * 3298})
        self.assertEqual(result.status, "passed", result.message)

    def test_memory_far_beyond_a_memo_is_flagged_not_failed(self):
        # Ballast scaled to the positions, 8 KiB of it each: passes, flagged.
        per = 8192
        result = growth.memo_result("memo::task2", SPEC, [38, 43, 45],
                                    dict(REFERENCE, reachable=REACHED, first_bytes=708608 + per * REACHED),
                                    [(h, dict(v, first_bytes=708608 + per * v["reachable"])) for h, v in SMALL])
        self.assertEqual(result.status, "passed", result.message)
        self.assertIn("memo_suspect", result.flags)

    def test_a_smaller_draw_that_fails_fails_the_check(self):
        result = scaled(None, {"outcome": "crash", "message": "the student process crashed"})
        self.assertEqual(result.status, "failed")
        self.assertIn("could not solve", result.message)


class MemoCheck(unittest.TestCase):
    def test_lab_defines_it_for_task_2(self):
        self.assertIsNotNone(SPEC)
        self.assertEqual(SPEC.task, 2)
        self.assertGreater(SPEC.min_growth_bytes, 0)

    def test_the_model_solution_passes(self):
        self.assertEqual(memo().status, "passed")

    def test_no_memo_of_positions_fails_whatever_it_reports(self):
        # nim-values XORed: nothing grows, every round costs the same.
        flat = {k: REFERENCE["start_bytes"] for k in REFERENCE if k.endswith("_bytes")}
        result = memo(**flat, first_cpu=0.00005, repeat_cpu=0.00005, again_cpu=0.00005)
        self.assertEqual(result.status, "failed")
        self.assertIn("grew by 0 KiB", result.message)

    def test_a_memo_that_is_never_used_fails(self):
        self.assertEqual(memo(repeat_cpu=0.05).status, "failed")

    def test_a_clear_that_does_not_clear_fails(self):
        result = memo(again_cpu=0.00005)
        self.assertEqual(result.status, "failed")
        self.assertIn("did not empty the memo", result.message)

    def test_a_clear_that_leaks_fails_with_the_leak_flag(self):
        # A quarter of the memo never freed: the least of the last refills
        # holds 10 of those quarters (growth_probe.c).
        grew = REFERENCE["first_bytes"] - REFERENCE["start_bytes"]
        result = memo(settling_bytes=REFERENCE["first_bytes"] + 9 * grew // 4,
                      settled_bytes=REFERENCE["first_bytes"] + 10 * grew // 4)
        self.assertEqual(result.status, "failed")
        self.assertIn("leak", result.flags)
        self.assertIn("not only forget them", result.message)

    def test_the_allocator_settling_is_not_a_leak(self):
        # The model solution holds up to 0.6 times the first round's growth
        # more once its tables moved from mmap to the heap.
        self.assertEqual(memo(settling_bytes=REFERENCE["first_bytes"] + 2 * MIB,
                              settled_bytes=REFERENCE["first_bytes"] + 3 * MIB // 2).status,
                         "passed")

    def test_what_a_chained_table_of_its_own_keeps_is_not_a_leak(self):
        # A chained table on calloc'd buckets (fixture honest_chained_memo):
        # 3,764 KiB the first round, then 256 and 896 KiB more kept by the
        # allocator after the first and third refills: no leak.
        first = REFERENCE["start_bytes"] + 3764 * 1024
        self.assertEqual(memo(first_bytes=first, repeat_bytes=first, settling_bytes=first + 1152 * 1024,
                              settled_bytes=first + 1152 * 1024).status, "passed")

    def test_a_small_memo_keeps_more_than_itself_and_passes(self):
        # Under 1 MiB, the tables' 256 KiB steps keep up to 1.3 times the
        # first round's growth.
        first = REFERENCE["start_bytes"] + 568 * 1024
        result = memo(first_bytes=first, repeat_bytes=first, settling_bytes=first + 712 * 1024,
                      settled_bytes=first + 712 * 1024)
        self.assertEqual(result.status, "passed", result.message)

    def test_a_probe_that_did_not_finish_fails(self):
        result = growth.memo_result("memo::task2", SPEC, [38, 43, 45],
                                    {"outcome": "timed out", "message": "stopped"})
        self.assertEqual(result.status, "failed")

    def test_not_run_unless_every_timing_check_passed(self):
        timed = [TestResult("timing::a", 2, "passed", kind="timing"),
                 TestResult("timing::b", 2, "failed", kind="timing")]
        result = growth.memo_check(None, None, "program", 1, print, timed)
        self.assertEqual([r.status for r in result], ["not_run"])


class TimingAllRight(unittest.TestCase):
    def entries_and_tests(self, passed):
        entries = [{"name": name, "passed": ok} for name, ok in passed.items()]
        tests = [TestResult("timing::" + name, 2, "passed" if ok else "failed", kind="timing")
                 for name, ok in passed.items()]
        return entries, tests

    def test_every_position_right_keeps_the_points(self):
        entries, tests = self.entries_and_tests({"a": True, "b": True})
        timing.all_right(entries, tests)
        self.assertEqual([t.withheld for t in tests], ["", ""])

    def test_one_position_wrong_withholds_the_others(self):
        # A constant P answer: right on the P-positions, wrong on the N one.
        entries, tests = self.entries_and_tests({"two_heaps_p": True, "two_heaps_n": False})
        timing.all_right(entries, tests)
        self.assertIn("two_heaps_n", tests[0].withheld)


class FiguresEarnNothing(unittest.TestCase):
    def scored(self, tests, points):
        with mock.patch.object(pipeline.rubric, "assign", return_value=points):
            return {t.id: (maximum, earned) for t, maximum, earned in pipeline.score(tests, "rubric")}

    def test_a_passed_test_that_read_a_figure_earns_nothing_whatever_its_points(self):
        tests = [TestResult("task2::memo_fills_up", 2, "passed", figures=["memo_size"]),
                 TestResult("task2::answers", 2, "passed"),
                 TestResult("memo::task2", 2, "passed", kind="memo")]
        scored = self.scored(tests, {"task2::memo_fills_up": 4.0, "task2::answers": 4.0, "memo::task2": 4.0})
        self.assertEqual(scored, {"task2::memo_fills_up": (4.0, 0.0), "task2::answers": (4.0, 4.0),
                                  "memo::task2": (4.0, 4.0)})
        self.assertIn("memo_size", tests[0].withheld)

    def test_no_outside_check_lends_a_figure_its_points(self):
        # the memo check and the timing checks pass: the figure still earns nothing
        tests = [TestResult("task2::each_position_expanded_at_most_once", 2, "passed",
                            figures=["expansions"]),
                 TestResult("timing::a", 2, "passed", kind="timing"),
                 TestResult("memo::task2", 2, "passed", kind="memo")]
        scored = self.scored(tests, {t.id: 2.0 for t in tests})
        self.assertEqual(scored["task2::each_position_expanded_at_most_once"], (2.0, 0.0))

    def test_a_figure_worth_nothing_is_no_withholding(self):
        tests = [TestResult("task0::free_frees_everything", 0, "passed", figures=["live_allocations"])]
        self.assertEqual(self.scored(tests, {tests[0].id: 0.0}), {tests[0].id: (0.0, 0.0)})
        self.assertEqual(tests[0].withheld, "")


class GrowthCompletesTheMemoryCheck(unittest.TestCase):
    def test_a_leak_the_kernel_saw_fails_a_clean_valgrind_run(self):
        memory = [TestResult("memory::task1", 1, "passed", kind="memory"),
                  TestResult("memory::task2", 2, "passed", kind="memory"),
                  TestResult("memory::task0", 0, "failed", "valgrind found", kind="memory")]
        grown = [TestResult("growth::task1", 1, "failed", "grew 40 MiB", kind="memory"),
                 TestResult("growth::task2", 2, "passed", kind="memory"),
                 TestResult("growth::task0", 0, "not_run", kind="memory")]
        out = {t.id: t for t in pipeline.with_growth(memory, grown)}
        self.assertEqual(out["memory::task1"].status, "failed")
        self.assertIn("grew 40 MiB", out["memory::task1"].message)
        self.assertIn("leak", out["memory::task1"].flags)
        self.assertEqual(out["memory::task2"].status, "passed")
        self.assertEqual(out["memory::task0"].message, "valgrind found")


if __name__ == "__main__":
    unittest.main()
