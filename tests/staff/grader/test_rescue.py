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
