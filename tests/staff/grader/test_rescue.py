"""pipeline's rescue of a later task's tests by the stand-in map: a test
passes when the submission's own program or the rescue program passes it,
so the rescue can only add what the own run lost, and the checks after the
suites see the own program's passes only."""

import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "grader"))
from gradelib import config, pipeline  # noqa: E402
from gradelib.results import TestResult  # noqa: E402


def results(**statuses):
    return [TestResult(f"task1::{name}", 1, status, f"{name} {status}") for name, status in statuses.items()]


class MergeTest(unittest.TestCase):

    def test_an_own_pass_is_kept_and_not_called_rescued(self):
        merged, rescued = pipeline.merge_rescue(results(a="passed"), results(a="failed"))
        self.assertEqual((merged[0].status, merged[0].message, rescued), ("passed", "a passed", []))

    def test_a_rescue_pass_counts_and_is_recorded(self):
        merged, rescued = pipeline.merge_rescue(results(a="crashed"), results(a="passed"))
        self.assertEqual((merged[0].status, rescued), ("passed", ["task1::a"]))

    def test_a_test_failing_both_keeps_the_rescue_runs_words(self):
        merged, rescued = pipeline.merge_rescue(results(a="failed"), results(a="timeout"))
        self.assertEqual((merged[0].status, merged[0].message, rescued), ("timeout", "a timeout", []))

    def test_a_test_the_rescue_run_did_not_reach_keeps_the_own_words(self):
        merged, rescued = pipeline.merge_rescue(results(a="timeout"), results(a="missing"))
        self.assertEqual((merged[0].status, merged[0].message, rescued), ("timeout", "a timeout", []))

    def test_merging_never_passes_fewer_tests_than_either_run(self):
        statuses = ["passed", "failed", "crashed", "timeout"]
        for own in statuses:
            for rescue in statuses:
                merged, _ = pipeline.merge_rescue(results(a=own), results(a=rescue))
                self.assertEqual(merged[0].passed, own == "passed" or rescue == "passed", (own, rescue))


class OwnFilesTest(unittest.TestCase):

    def builds(self, accepted):
        return {f: mock.Mock(accepted=f in accepted) for f in config.SUBMISSION_FILES}

    def test_a_task_owns_its_file_and_earlier_ones_never_later_ones(self):
        builds = self.builds(config.SUBMISSION_FILES)
        self.assertEqual(pipeline.own_files(builds, 0), {config.POSITION})
        self.assertIn(config.FILE_OF_TASK[1], pipeline.own_files(builds, 1))
        self.assertIn(config.POSITION, pipeline.own_files(builds, 1))

    def test_a_file_not_accepted_is_never_its_own(self):
        builds = self.builds([config.FILE_OF_TASK[1]])
        self.assertEqual(pipeline.own_files(builds, 1), {config.FILE_OF_TASK[1]})


if __name__ == "__main__":
    unittest.main()


class SpeedTest(unittest.TestCase):
    """timing_phase's speed::taskN: the map is blamed only when the stand-in
    map put the solver's timing checks right, and a worse map never earns
    it back."""

    def timing(self, own_pass, rescue_pass, map_works=True):
        def check(mode, scratch, program, seed, log, until_failure=False):
            ok = {"own": own_pass, "rescue": rescue_pass}[program]
            return [{"name": "x"}], [TestResult("timing::x", 2, "passed" if ok else "failed",
                                                "" if ok else "solving {40=1}: over budget", kind="timing")]
        ctx = mock.Mock(notes=[], scratch="/s", seed=1)
        suites = [TestResult("task0::a", 0, "passed" if map_works else "failed")]
        with mock.patch.object(pipeline.timing, "check", check), \
                mock.patch.object(pipeline, "student_program",
                                  lambda c, b, t, rescue=False: ("rescue" if rescue else "own", "")), \
                mock.patch.object(pipeline, "has_rescue", lambda c, b, t: True):
            _, tests = pipeline.timing_phase(ctx, {}, suites)
        by_id = {t.id: t for t in tests}
        return by_id["timing::x"].status, by_id[config.SPEED_TEST].status

    def test_the_verdicts(self):
        self.assertEqual(self.timing(True, False), ("passed", "passed"))
        self.assertEqual(self.timing(False, True), ("passed", "failed"))    # the map's fault
        self.assertEqual(self.timing(False, False), ("failed", "passed"))   # the solver's: once
        self.assertEqual(self.timing(False, False, map_works=False), ("failed", "not_run"))
        # a map that passes nothing of its own (rejected, the stubs) is not
        # judged nor flagged, and the stand-in's pass keeps the solver's points
        self.assertEqual(self.timing(False, True, map_works=False), ("passed", "not_run"))

    def test_no_worse_map_raises_the_two_together(self):
        points = {"passed": 1}
        for rescue_pass in (True, False):
            for map_works in (True, False):
                good = self.timing(True, rescue_pass, map_works)
                worse = self.timing(False, rescue_pass, map_works)
                total = lambda v: 15 * points.get(v[0], 0) + 3 * points.get(v[1], 0)  # noqa: E731
                self.assertLessEqual(total(worse), total(good), (rescue_pass, map_works))


class BlameTest(unittest.TestCase):

    def test_a_clean_map_check_fails_for_what_the_map_did_later(self):
        task0 = TestResult("memory::task0", 0, "passed", kind="memory")
        blamed = pipeline._blame_the_map(task0, [(1, "valgrind found problems in your code:", ["memory"])])
        self.assertEqual((blamed.status, blamed.flags), ("failed", ["memory"]))
        self.assertIn("Task 1's tests with your", blamed.message)

    def test_its_own_finding_is_kept_first(self):
        task0 = TestResult("memory::task0", 0, "failed", "grundy_position.c:9 in f: invalid read", kind="memory")
        blamed = pipeline._blame_the_map(task0, [(2, "memory grew", ["leak"])])
        self.assertTrue(blamed.message.startswith("grundy_position.c:9"))
        self.assertIn("leak", blamed.flags)
