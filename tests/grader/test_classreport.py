"""Tests of batch grading's pure parts: shard selection and student names
(grader/gradelib/batch.py) and the gradebook's flags and rows
(grader/gradelib/classreport.py), on small hand-written results.json.

The whole flow (grading, killing, resuming, merging shards) is
tests/ops/check-batch; this file covers what a generated class does not
reach, such as crashes and timeouts. The test outputs below use the
grader's own formats (reports.py prefixes "crashed: " and "timed out: ";
the suites' leak check says "N heap block(s) still allocated").

    /usr/bin/python3 -m unittest discover -s tests/grader -v
"""

import csv
import io
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grader"))

from gradelib import batch, classreport  # noqa: E402


def test(name, task, status="passed", score=0.0, output="", tags=()):
    return {"name": f"Task {task} / {name}", "score": score, "max_score": 1, "status": status,
            "output": output, "tags": [f"task{task}", *tags]}


class Shards(unittest.TestCase):
    def test_shards_partition_the_class(self):
        for size in range(0, 23):
            students = [(f"s{i:02d}", f"/subs/s{i:02d}") for i in range(size)]
            for n in range(1, 6):
                parts = [batch.shard_of(students, (k, n)) for k in range(1, n + 1)]
                names = [name for part in parts for name, _ in part]
                self.assertEqual(sorted(names), [name for name, _ in students], (size, n))
                sizes = [len(part) for part in parts]
                self.assertLessEqual(max(sizes) - min(sizes), 1, (size, n))

    def test_shard_does_not_depend_on_input_order(self):
        students = [(f"s{i}", "") for i in range(9)]
        self.assertEqual(batch.shard_of(students, (2, 3)), batch.shard_of(list(reversed(students)), (2, 3)))

    def test_parse_shard(self):
        self.assertEqual(batch.parse_shard("2/4"), (2, 4))
        self.assertEqual(batch.parse_shard("1/1"), (1, 1))
        for bad in ("0/4", "5/4", "2/0", "a/b", "2", "", "-1/4", "1/4/2"):
            with self.assertRaises(batch.BatchError, msg=bad):
                batch.parse_shard(bad)


class Names(unittest.TestCase):
    def test_safe_names(self):
        for good in ("alice", "s01_reference+leak", "bob.smith@example.org", "_x", "9lives"):
            self.assertIsNone(batch.name_problem(good), good)

    def test_unsafe_names(self):
        for bad in (".git", ".partial-x", "charts", "report.html", "gradebook.csv", "batch.json",
                    "logs", "bad name!", "-rf", "a/b", "x" * 101, "tab\there", "é"):
            self.assertIsNotNone(batch.name_problem(bad), bad)


class Flags(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def student(self, name, tests=None, summary="", status=None, score=None):
        path = os.path.join(self.dir.name, name)
        os.makedirs(path)
        if tests is not None:
            total = sum(t["score"] for t in tests) if score is None else score
            with open(os.path.join(path, "results.json"), "w", encoding="utf-8") as handle:
                json.dump({"score": total, "tests": tests, "output": summary,
                           "extra_data": {"seed": 7}}, handle)
        if status is not None:
            with open(os.path.join(path, batch.STATUS_FILE), "w", encoding="utf-8") as handle:
                json.dump(status, handle)
        return classreport.Student(name, path)

    def test_clean_submission_has_no_flag(self):
        s = self.student("a", [test("one", 0, score=1), test("two", 1, score=1)])
        self.assertEqual(classreport.flags(s), [])

    def test_crash_and_timeout(self):
        s = self.student("a", [
            test("one", 0, "failed", output="crashed: the test crashed (SIGSEGV: an invalid memory access)"),
            test("two", 1, "failed", output="timed out: the test ran out of time (an endless loop?)")])
        self.assertEqual(classreport.flags(s), ["crash", "timeout"])

    def test_a_failed_answer_is_not_a_crash(self):
        s = self.student("a", [test("one", 1, "failed", output="is_p({5}) returned true, expected false")])
        self.assertEqual(classreport.flags(s), [])

    def test_rejections_are_named_and_sorted(self):
        output = ("grundy_position.c was not accepted:\n"
                  "grundy_position.c: section .init_array runs code before or after the tests "
                  "(a constructor or destructor); this is not allowed\n"
                  "grundy_position.c: calls fopen(), which a submission may not use (allowed: ...)\n"
                  "grundy_position.c: contains a raw system call instruction; this is not allowed")
        s = self.student("a", [test("build::grundy_position.c", 0, "failed", output=output, tags=["build"])])
        self.assertEqual(classreport.flags(s), ["rejected:constructor", "rejected:fopen", "rejected:syscall"])

    def test_not_compiled_is_not_a_rejection(self):
        s = self.student("a", [test("build::grundy_solver.c", 1, "failed", tags=["build"],
                                    output="grundy_solver.c: error: expected ';' before '}' token")],
                         summary="grundy_solver.c did not compile (see the feedback)")
        self.assertEqual(classreport.flags(s), ["not_compiled"])

    def test_leaks_and_memory_errors(self):
        leak = self.student("leak", [test("memory::task0", 0, "failed", tags=["memory"], output=(
            "valgrind found problems in your code:\n"
            "grundy_position.c:41 in grundy_add_heap: 64 bytes in 1 blocks are definitely lost"))])
        self.assertEqual(classreport.flags(leak), ["leak"])
        bad = self.student("bad", [test("memory::task1", 1, "failed", tags=["memory"], output=(
            "valgrind found problems in your code:\n"
            "grundy_solver.c:12 in grundy_is_p_position: Invalid read of size 4"))])
        self.assertEqual(classreport.flags(bad), ["memory"])
        tracked = self.student("tracked", [test("nothing_leaks", 0, "failed", output=(
            "3 heap block(s) still allocated after building, copying and expanding"))])
        self.assertEqual(classreport.flags(tracked), ["leak"])
        not_run = self.student("not_run", [test("memory::task2", 2, "not_run", tags=["memory"],
                                                output="not run: none of this task's tests passed yet")])
        self.assertEqual(classreport.flags(not_run), [])

    def test_over_budget(self):
        s = self.student("a", [test("timing::{45=1}", 2, "failed", tags=["timing"], output=(
            "solving {45=1} was stopped at its CPU budget of 0.21 s (20 x the reference)"))])
        self.assertEqual(classreport.flags(s), ["over_budget"])

    def test_grader_error_row_has_no_points(self):
        s = self.student("a", status={"error": "grader/grade exited with status 3", "seed": 7})
        self.assertEqual(classreport.flags(s), ["grader_error"])
        rows = list(csv.reader(io.StringIO(classreport.gradebook_csv([s]))))
        self.assertEqual(rows, [["student", "total", "task0", "task1", "task2", "flags", "seed"],
                                ["a", "", "", "", "", "grader_error", "7"]])

    def test_gradebook_sums_tasks_and_sorts(self):
        b = self.student("b", [test("one", 0, score=2.5), test("two", 2, score=4)])
        a = self.student("a", [test("one", 1, score=1 / 3)])
        text = classreport.gradebook_csv(sorted([b, a], key=lambda s: s.name))
        self.assertEqual(text.splitlines()[1:], ["a,0.33,0,0.33,0,,7", "b,6.5,2.5,0,4,,7"])


class Bins(unittest.TestCase):
    def test_ten_bins_include_the_top_in_the_last(self):
        self.assertEqual(classreport.ten_bins([0, 9.99, 10, 55, 99.5, 100]), [2, 1, 0, 0, 0, 1, 0, 0, 0, 2])


if __name__ == "__main__":
    unittest.main()
