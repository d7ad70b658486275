"""Unit tests of what tests/staff/grader/check-fixtures says when a run
does not come out as expected: a task's outcome names the tests that lost
points (lost_points), a regrade's change names what each grading said of
the test (compare_regrade), and a `phases scores-only` block of
expected-grades grades its runs with --scores-only, refusing a check of
coverage inside it (read_expected)."""

import os
import tempfile
import unittest

from test_fixture_sharing import cf


def run(scores=None, first_lines=None, flags=()):
    r = cf.Run("unmemoized", "checked", ["full"] * len(cf.TASKS), [], 1, set(flags))
    r.scores, r.first_lines = scores, first_lines
    return r


class LostPoints(unittest.TestCase):
    def test_names_the_short_tests_with_their_first_line(self):
        task = cf.TASKS[0]
        tests = [{"name": "A", "tags": [f"task{task}"], "score": 0, "max_score": 2, "output": "boom\nmore"},
                 {"name": "B", "tags": [f"task{task}"], "score": 2, "max_score": 2, "output": "fine"}]
        said = cf.lost_points(tests, task)
        self.assertIn("A (0 of 2): boom", said)
        self.assertNotIn("B", said)
        self.assertNotIn("more", said)

    def test_nothing_when_nothing_fell_short(self):
        task = cf.TASKS[0]
        self.assertEqual(cf.lost_points([{"name": "B", "tags": [f"task{task}"], "score": 1, "max_score": 1}],
                                        task), "")

    def test_at_most_four_then_a_count(self):
        task = cf.TASKS[0]
        tests = [{"name": f"T{i}", "tags": [f"task{task}"], "score": 0, "max_score": 1} for i in range(6)]
        self.assertIn("and 2 more", cf.lost_points(tests, task))


class RegradeChange(unittest.TestCase):
    def test_a_change_says_what_each_grading_said(self):
        first = run({"Task 5 / single_heaps": 0.16}, {"Task 5 / single_heaps": ""})
        second = run({"Task 5 / single_heaps": 0.0}, {"Task 5 / single_heaps": "timed out after 25 s"})
        cf.compare_regrade(first, second)
        self.assertEqual(len(second.problems), 1)
        self.assertIn("0.16 then 0.0", second.problems[0])
        self.assertIn("then: timed out after 25 s", second.problems[0])

    def test_the_same_scores_pass(self):
        second = run({"x": 1.0}, {})
        cf.compare_regrade(run({"x": 1.0}, {}), second)
        self.assertEqual(second.problems, [])

    def test_varies_allows_a_change(self):
        second = run({"x": 0.0}, {})
        cf.compare_regrade(run({"x": 1.0}, {}, flags=["varies"]), second)
        self.assertEqual(second.problems, [])


class PhasesBlock(unittest.TestCase):
    def expected(self, text):
        handle = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
        self.addCleanup(os.unlink, handle.name)
        columns = " ".join(str(t) for t in cf.TASKS)
        outcomes = " ".join("full" for _ in cf.TASKS)
        handle.write(f"columns {columns}\n" + text.replace("OUTCOMES", outcomes))
        handle.close()
        return handle.name

    def test_only_the_runs_inside_the_block_are_scores_only(self):
        runs = cf.read_expected(self.expected(
            "reference checked OUTCOMES\nphases scores-only\nleak checked OUTCOMES\n"
            "phases all\nstubs checked OUTCOMES\n"))
        self.assertEqual([(r.fixture, r.scores_only) for r in runs],
                         [("reference", False), ("leak", True), ("stubs", False)])

    def test_a_check_of_coverage_inside_the_block_is_refused(self):
        path = self.expected('phases scores-only\nleak checked OUTCOMES "says=Coverage stopped"\n')
        with self.assertRaises(SystemExit) as raised:
            cf.read_expected(path)
        self.assertIn("phases all", str(raised.exception))

    def test_an_unknown_phases_word_is_refused(self):
        with self.assertRaises(SystemExit):
            cf.read_expected(self.expected("phases some\n"))

    def test_a_scores_only_regrade_has_every_phase(self):
        first = run({"x": 1.0}, {})
        first.scores_only = True
        graded = []

        def fake_grade(second, *args):
            graded.append(second.scores_only)
            second.scores, second.first_lines = {"x": 1.0}, {}
            return second

        class Tally:
            done = staticmethod(lambda r: None)

        saved = cf.grade, cf.run_all
        cf.grade, cf.run_all = fake_grade, lambda items, jobs, done: [f() for _, f in items]
        try:
            cf.regrade([first], None, None, None, 1, Tally())
        finally:
            cf.grade, cf.run_all = saved
        self.assertEqual(graded, [False])
