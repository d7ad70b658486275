"""Unit tests of how tests/staff/grader/check-fixtures saves gradings: a
skip line served by its fixture's checked grading only when that grading's
object checks rejected nothing (why_served, from the grader's own log
line, gradelib/pipeline.py build_phase), and the lanes (run_all) that start
such a line only after its twin has ended, and report in the file's order.
"""

import importlib.machinery
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))


def load_check_fixtures():
    loader = importlib.machinery.SourceFileLoader("check_fixtures_for_tests", os.path.join(HERE, "check-fixtures"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


cf = load_check_fixtures()
FILES = list(cf.config.SUBMISSION_FILES)


class WhyServed(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix="test-fixture-sharing-")
        self.saved, cf.OUT_BASE = cf.OUT_BASE, self.base

    def tearDown(self):
        cf.OUT_BASE = self.saved
        shutil.rmtree(self.base)

    def twin(self, *log_lines, problems=()):
        run = cf.Run("somefixture", "checked", ["any"] * len(cf.TASKS), [], 1, set())
        run.scores = {"Task 0 / x": 1.0}
        run.problems = list(problems)
        os.makedirs(os.path.join(self.base, run.name, "logs"))
        with open(os.path.join(self.base, run.name, "logs", "grader.log"), "w", encoding="utf-8") as log:
            log.write("".join(line + "\n" for line in log_lines))
        return run

    def verdicts(self, *words):
        return "object checks: " + ", ".join(f"{f} {w}" for f, w in zip(FILES, words))

    def test_served_when_every_file_passed(self):
        why = cf.why_served(self.twin("compile x: ok", self.verdicts(*["passed"] * len(FILES))))
        self.assertIsNotNone(why)
        self.assertIn("rejected nothing", why)

    def test_a_file_that_did_not_compile_is_the_same_either_way(self):
        words = ["not compiled"] + ["passed"] * (len(FILES) - 1)
        self.assertIsNotNone(cf.why_served(self.twin(self.verdicts(*words))))

    def test_not_served_when_a_check_rejected_or_failed(self):
        for word in ("rejected", "failed", "skipped", ""):
            words = ["passed"] * (len(FILES) - 1) + [word]
            self.assertIsNone(cf.why_served(self.twin(self.verdicts(*words))), word)
            shutil.rmtree(os.path.join(self.base, "somefixture"))

    def test_not_served_without_the_line_or_with_a_file_missing(self):
        self.assertIsNone(cf.why_served(self.twin("compile x: ok")))
        shutil.rmtree(os.path.join(self.base, "somefixture"))
        self.assertIsNone(cf.why_served(self.twin("object checks: " + f"{FILES[0]} passed")))

    def test_the_last_line_counts(self):
        # an earlier line (say, a compiler's message quoted in the log) cannot vouch
        run = self.twin(self.verdicts(*["passed"] * len(FILES)), self.verdicts(*["rejected"] * len(FILES)))
        self.assertIsNone(cf.why_served(run))

    def test_not_served_when_the_twin_failed_or_has_no_reports(self):
        self.assertIsNone(cf.why_served(self.twin(self.verdicts(*["passed"] * len(FILES)), problems=["boom"])))
        shutil.rmtree(os.path.join(self.base, "somefixture"))
        run = self.twin(self.verdicts(*["passed"] * len(FILES)))
        run.scores = None
        self.assertIsNone(cf.why_served(run))

    def test_twins_only_for_skip_lines_with_a_checked_line(self):
        lines = [cf.Run("a", "checked", [], [], 1, set()), cf.Run("a", "skip", [], [], 2, set()),
                 cf.Run("b", "skip", [], [], 3, set()), cf.Run("c", "checked", [], [], 4, set()),
                 cf.Run("c", "skip", [], [], 5, {"alone"})]
        cf.with_twins(lines, False)
        self.assertEqual([r.after for r in lines], [None, lines[0], None, None, None])
        for run in lines:
            run.after = None
        cf.with_twins(lines, True)
        self.assertEqual([r.after for r in lines], [None] * 5)


class Lanes(unittest.TestCase):
    def test_a_line_waits_for_its_twin_and_reports_come_in_order(self):
        started, ended, reported = {}, {}, []
        lock = threading.Lock()

        def item(name, seconds, after=None, alone=False):
            run = cf.Run(name, "checked", [], [], 0, {"alone"} if alone else set())
            run.after = after

            def function():
                with lock:
                    started[name] = time.monotonic()
                time.sleep(seconds)
                with lock:
                    ended[name] = time.monotonic()
                return run
            return run, function

        first = item("twin", 0.3)
        items = [item("alone", 0.05, alone=True), first, item("skip", 0.01, after=first[0]),
                 item("other", 0.05), item("last", 0.05)]
        cf.run_all(items, 2, lambda run: reported.append(run.fixture))
        self.assertEqual(reported, ["alone", "twin", "skip", "other", "last"])
        self.assertGreaterEqual(started["skip"], ended["twin"])
        # the lane that skipped the waiting line ran the others meanwhile
        self.assertLess(started["last"], ended["twin"])
        self.assertLess(ended["alone"], min(started[n] for n in ("twin", "other", "last")))

    def test_an_error_reaches_the_caller(self):
        def boom():
            raise RuntimeError("a grading's own bug")
        with self.assertRaises(RuntimeError):
            cf.run_all([(cf.Run("x", "checked", [], [], 0, set()), boom)], 2, lambda run: None)


if __name__ == "__main__":
    unittest.main()
