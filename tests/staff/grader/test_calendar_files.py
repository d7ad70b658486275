"""The course calendar's readers and writers: Gradescope's metadata
(deadlines.py), the Canvas gradebook (lms.py) and the regrade table
(regrade.py). Expected values are read off the inputs by hand (comments)."""

import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "grader"))

from gradelib import deadlines, lms, regrade, reports  # noqa: E402
from gradelib import policy as rules  # noqa: E402

DUE = "2026-03-13T23:59:00+01:00"


def prev(time, results, **extra):
    return {"submission_time": time, "score": (results or {}).get("score", 0), "results": results, **extra}


class Metadata(unittest.TestCase):
    def test_what_counts(self):
        meta = {"previous_submissions": [
            prev("2026-03-13T09:00:00+01:00", {"score": 60}),                                   # graded
            prev("2026-03-13T10:00:00+01:00", {"score": 0, "extra_data": {"grader_status": 3}}),  # grader failed
            prev("2026-03-13T11:00:00+01:00", None),                                          # no results
            prev("2026-03-13T12:00:00+01:00", {"score": 5}, autograder_error=True),           # Gradescope says error
            prev("2026-03-13T13:00:00+01:00", {"score": 60, "extra_data": {"policy": {"counted": False}}}),  # kept
        ]}
        self.assertEqual([counted for _, counted, _ in deadlines.previous(meta)], [True, False, False, False, False])

    def test_a_group_takes_the_latest_due_date_and_an_extension_wins(self):
        # Two users: one's own Gradescope due date is the 14th; the other has a line of
        # extensions.csv to the 16th. The extension wins, and lifts the late due date (the 15th).
        policy = rules.Policy(late_penalty_per_day=10, extensions={
            "b@example.edu": (rules.parse_time("2026-03-16T23:59:00+01:00"), "extensions.csv:2")})
        meta = {"created_at": "2026-03-15T12:00:00+01:00",
                "assignment": {"due_date": DUE, "late_due_date": "2026-03-15T00:00:00+01:00"},
                "users": [{"email": "a@example.edu", "id": 1,
                           "assignment": {"due_date": "2026-03-14T23:59:00+01:00"}},
                          {"email": "b@example.edu", "id": 2}]}
        submitted, due, extension, hard_end, students = deadlines.gradescope_times(policy, meta)
        self.assertEqual(due, rules.parse_time("2026-03-16T23:59:00+01:00"))
        self.assertEqual((extension, hard_end, students), ("extensions.csv:2", None, ["a@example.edu", "b@example.edu"]))
        # Without the extension: the later of the two due dates (the 14th), and the late due date holds.
        _, due, extension, hard_end, _ = deadlines.gradescope_times(rules.Policy(), meta)
        self.assertEqual((due, extension), (rules.parse_time("2026-03-14T23:59:00+01:00"), ""))
        self.assertEqual(hard_end, rules.parse_time("2026-03-15T00:00:00+01:00"))

    def test_no_created_at(self):
        with self.assertRaises(deadlines.DeadlineError):
            deadlines.gradescope_times(rules.Policy(), {"assignment": {"due_date": DUE}})


class Applying(unittest.TestCase):
    """The calendar renders the grading's files again from its result model."""
    MODEL = {"seed": 7, "task_titles": {"0": "Task 0: the map"}, "score": 50.0, "max_score": 50.0,
             "tests": [{"id": "task0::moves", "name": "Task 0 / moves", "task": 0, "status": "passed",
                        "score": 50.0, "max_score": 50.0, "message": ""}]}

    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="calendar-apply-")
        self.addCleanup(shutil.rmtree, self.out, True)
        reports.write_reports(self.MODEL, self.out)

    def files(self):
        return {n: open(os.path.join(self.out, n), encoding="utf-8").read()
                for n in ("results.json", "feedback.md", "feedback.html", "junit.xml")}

    def test_a_penalty_is_rendered_and_applying_again_changes_nothing(self):
        policy = rules.Policy(due=rules.parse_time(DUE), late_penalty_per_day=10.0)
        late = rules.parse_time("2026-03-14T12:00:00+01:00")   # 12 h 1 min late: one started day, 10% of 50
        deadlines.apply(self.out, policy, late, policy.due)
        first = self.files()
        doc = json.loads(first["results.json"])
        self.assertEqual((doc["score"], doc["extra_data"]["policy"]["raw_score"]), (45.0, 50.0))
        self.assertIn("**Score: 45 / 50** (raw score 50, late penalty 5)", first["feedback.md"])
        self.assertIn("## Deadline and submissions", first["feedback.md"])
        self.assertTrue(doc["output"].startswith("Score after the late penalty: 45"))
        self.assertIn("\nRaw score: 50/50", doc["output"])
        deadlines.apply(self.out, policy, late, policy.due)
        self.assertEqual(self.files(), first)
        # An extension granted later: the same model, on time now, its raw score back.
        deadlines.apply(self.out, policy, late, rules.parse_time("2026-03-15T23:59:00+01:00"))
        doc = json.loads(self.files()["results.json"])
        self.assertEqual((doc["score"], doc["extra_data"]["policy"]["penalty"]), (50.0, 0.0))
        self.assertIn("**Score: 50 / 50**\n", self.files()["feedback.md"])

    def test_an_out_without_its_model_is_refused_by_name(self):
        os.remove(os.path.join(self.out, reports.MODEL_FILE))
        with self.assertRaises(deadlines.DeadlineError) as caught:
            deadlines.apply(self.out, rules.Policy(), None, None)
        self.assertIn("grading.json", str(caught.exception))


class Canvas(unittest.TestCase):
    def test_rows_and_mismatch(self):
        roster = (rules.RosterEntry("alice", "Alice A", "11", "S11", "aa", "S1"),
                  rules.RosterEntry("bob", "Bob B", "12", "S12", "bb", "S2"))
        # alice graded 72.5; bob not graded; zed graded but not in the roster.
        text, not_graded, not_listed = lms.canvas_csv(roster, {"alice": 72.5, "zed": 10}, "Lab (9)")
        self.assertEqual(text.splitlines(), ["Student,ID,SIS User ID,SIS Login ID,Section,Lab (9)",
                                             "Alice A,11,S11,aa,S1,72.5", "Bob B,12,S12,bb,S2,"])
        self.assertEqual((not_graded, not_listed), (["bob"], ["zed"]))


class Regrade(unittest.TestCase):
    def test_causes(self):
        def test(score, max_score, status):
            return {"name": "t", "score": score, "max_score": max_score, "status": status}
        # Same status, 5 of 5 -> 10 of 10: the rubric; failed -> passed: the test.
        self.assertIn("rubric: worth 5, now 10", regrade.student_changes(
            {"tests": [test(5, 5, "passed")]}, {"tests": [test(10, 10, "passed")]})[0][3])
        self.assertIn("test: failed before, passed now", regrade.student_changes(
            {"tests": [test(0, 5, "failed")]}, {"tests": [test(5, 5, "passed")]})[0][3])
        self.assertEqual(regrade.student_changes({"tests": [test(5, 5, "passed")]},
                                                 {"tests": [test(5, 5, "passed")]}), [])


if __name__ == "__main__":
    unittest.main()
