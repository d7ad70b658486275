"""Tests of batch grading's pure parts: shard selection and student names
(grader/gradelib/batch.py) and the gradebook's flags and rows
(grader/gradelib/classreport.py), on small hand-written results.json.

The whole flow (grading, killing, resuming, merging shards) is
tests/staff/ops/check-batch; this file covers what a generated class does not
reach, such as crashes and timeouts. The test outputs below use the
grader's own formats (reports.py prefixes "crashed: " and "timed out: ";
the suites' leak check says "N heap block(s) still allocated").

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import csv
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
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


class Challenge(unittest.TestCase):
    def test_largest_first_and_only_the_challenge(self):
        def student(name, board):
            s = type("GradedStudent", (), {})()
            s.name, s.results = name, {"leaderboard": board}
            return s
        rows = classreport.challenge_rows([
            student("ann", [{"name": "Challenge: largest heap", "value": 57, "order": "desc"}]),
            student("bob", [{"name": "CPU ratio single_heap", "value": 3.1, "order": "asc"}]),
            student("cid", [{"name": "Challenge: largest heap", "value": 61, "order": "desc"}]),
            student("dee", [{"name": "Challenge: largest heap", "value": "99", "order": "desc"}])])
        self.assertEqual(rows, [["cid", 61], ["ann", 57]])
        self.assertEqual(classreport._challenge_section([]), [])


class Flags(unittest.TestCase):
    """The gradebook's flags are the grader's (results.json extra_data.flags,
    computed in gradelib/results.py), never parsed back from messages."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def student(self, name, tests=None, flags=(), status=None):
        path = os.path.join(self.dir.name, name)
        os.makedirs(path)
        if tests is not None:
            with open(os.path.join(path, "results.json"), "w", encoding="utf-8") as handle:
                json.dump({"score": sum(t["score"] for t in tests), "tests": tests, "output": "",
                           "extra_data": {"seed": 7, "flags": list(flags)}}, handle)
        if status is not None:
            with open(os.path.join(path, batch.STATUS_FILE), "w", encoding="utf-8") as handle:
                json.dump(status, handle)
        return classreport.Student(name, path)

    def test_clean_submission_has_no_flag(self):
        s = self.student("a", [test("one", 0, score=1), test("two", 1, score=1)])
        self.assertEqual(classreport.flags(s), [])

    def test_flags_are_the_graders_in_a_fixed_order(self):
        s = self.student("a", [test("one", 0)], flags=["leak", "rejected:syscall", "crash",
                                                       "rejected:fopen", "timeout"])
        self.assertEqual(classreport.flags(s), ["rejected:fopen", "rejected:syscall", "crash",
                                                "timeout", "leak"])

    def test_messages_are_never_parsed_into_flags(self):
        s = self.student("a", [test("one", 0, "failed",
                                    output="crashed the student process (SIGSEGV); 3 heap block(s) "
                                           "still allocated; stopped at its CPU budget")])
        self.assertEqual(classreport.flags(s), [])

    def test_staff_flags_of_issue_26_reach_the_report(self):
        # A copy of the stand-in map, and a memo whose size is no memo's:
        # flags for the staff, listed whatever the points.
        s = self.student("a", [test("one", 0, score=1)], flags=["memo_suspect", "copies_standin", "leak"])
        self.assertEqual(classreport.flags(s), ["leak", "copies_standin", "memo_suspect"])

    def test_a_configured_checks_flag_reaches_the_report(self):
        # each check of lab.ini's [checks] (the shipped term: warnings) raises its own flag
        from gradelib import checks
        if not checks.flags():
            self.skipTest("this term's lab.ini configures no check with a flag")
        flag = checks.flags()[0]
        s = self.student("a", [test("one", 0)], flags=[flag, "crash"])
        self.assertEqual(classreport.flags(s), ["crash", flag])

    def test_failures_group_by_the_feedbacks_cause_and_show_a_first_line(self):
        a = self.student("a", [test("one", 1, "failed", output="grundy_is_p_position({9=1}) returned false\nmore"),
                               test("two", 1, "failed", output="the memo is empty")])
        b = self.student("b", [test("one", 1, "failed", output="grundy_is_p_position({12=1, 3=2}) returned true\nmore")])
        groups = classreport.common_failures([a, b])
        self.assertEqual([(shown, count, who) for shown, count, who, _ in groups],
                         [("grundy_is_p_position({9=1}) returned false", 2, 2), ("the memo is empty", 1, 1)])

    def test_unknown_and_malformed_flags_are_dropped(self):
        s = self.student("a", [test("one", 0)], flags=["made_up", "crash", 7])
        self.assertEqual(classreport.flags(s), ["crash"])

class Bins(unittest.TestCase):
    def test_ten_bins_include_the_top_in_the_last(self):
        self.assertEqual(classreport.ten_bins([0, 9.99, 10, 55, 99.5, 100]), [2, 1, 0, 0, 0, 1, 0, 0, 0, 2])


class Similarity(unittest.TestCase):
    """The class report links grader/similarity's report only when it is there."""

    CSV = ("student_a,student_b,score,a_in_b,b_in_a,tokens_a,tokens_b,runs,skipped,reference\n"
           "a,b,91.5,91.5,80,10,12,x,,\n"
           "a,c,12,3,12,10,5,,,\n"
           "c,[stand-in map],100,100,100,,,position,,yes\n"
           "c,,,,,,,,grundy_solver.c: empty,\n"
           "b,c,nan,nan,0,12,5,,,\n")

    def build(self, with_html):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        for name in ("a", "b", "c"):
            os.makedirs(os.path.join(out, name))
            with open(os.path.join(out, name, "results.json"), "w", encoding="utf-8") as handle:
                json.dump({"score": 10, "tests": [test("one", 0, score=10)]}, handle)
        with open(os.path.join(out, "similarity.csv"), "w", encoding="utf-8") as handle:
            handle.write(self.CSV)
        if with_html:
            Path(out, "similarity.html").write_text("<p>report</p>", encoding="utf-8")
        classreport.build([out], out)
        return out, Path(out, "report.html").read_text(encoding="utf-8")

    def test_highest_match_per_student(self):
        out, _ = self.build(with_html=True)
        self.assertEqual(classreport.similarity_highest(out), {"a": 91.5, "b": 91.5, "c": 12.0})

    def test_linked_with_its_histogram(self):
        out, page = self.build(with_html=True)
        self.assertIn('href="similarity.html"', page)
        self.assertIn('src="charts/similarity.svg"', page)
        # the chart's alt text carries its numbers: a and b at 91.5%, c at 12%
        self.assertIn("10-20%: 1", page)
        self.assertIn("90-100%: 2", page)
        self.assertTrue(os.path.isfile(os.path.join(out, "charts", "similarity.svg")))

    def test_absent_without_its_html(self):
        out, page = self.build(with_html=False)
        self.assertNotIn("similarity", page.lower())
        self.assertFalse(os.path.exists(os.path.join(out, "charts", "similarity.svg")))


if __name__ == "__main__":
    unittest.main()


# Run in a child for each term, since the term is read when gradelib loads.
TERM_TABLE_PROBE = r'''
import json, os, re, sys, tempfile
sys.path.insert(0, sys.argv[1])
from gradelib import classreport, config
with tempfile.TemporaryDirectory() as root:
    students = []
    for name, error in (("ada", None), ("bob", "the grader failed")):
        path = os.path.join(root, name)
        os.makedirs(path)
        tests = [{"name": f"Task {t} / a_test", "score": 1.0 + t, "max_score": 1 + t,
                  "status": "passed", "output": "", "tags": [f"task{t}"]} for t in config.TASKS]
        with open(os.path.join(path, "results.json"), "w") as handle:
            json.dump({"score": sum(t["score"] for t in tests), "tests": tests, "output": "",
                       "extra_data": {"seed": 7, "flags": ["leak"]}}, handle)
        if error:
            with open(os.path.join(path, "status.json"), "w") as handle:
                json.dump({"error": error}, handle)
        students.append(classreport.Student(name, path))
    flags = {s.name: classreport.flags(s) for s in students}
    html = "\n".join(classreport._students_section(students, flags, root))
    header = len(re.findall(r"<th[ >]", html))
    rows = [len(re.findall(r"<td", row)) for row in re.findall(r"<tr><td.*?</tr>", html)]
    print(json.dumps({"tasks": config.TASKS, "header": header, "rows": rows,
                      "heads": re.findall(r"<th[^>]*>([^<]*)</th>", html),
                      "ada": re.findall(r"<td[^>]*>([^<]*)</td>", html.split("<td>ada</td>")[1].split("</tr>")[0]),
                      "csv": [len(r) for r in classreport.gradebook_rows(students)],
                      "csv_header": len(classreport.gradebook_csv(students).splitlines()[0].split(","))}))
'''


class StudentsTableFollowsTheTerm(unittest.TestCase):
    """The class report's students table has a column per task of the term,
    in its header and in every row (issue 28: with Tasks 5 and 7 on, the
    header had 7 cells and each row 9), for the default term, every task,
    and a mixed one; the gradebook's rows too."""

    TERMS = {"default": None, "every task": "tests/staff/fixtures/lab-all-tasks.ini",
             "mixed": "tests/staff/fixtures/lab-some-tasks.ini"}

    def test_same_cells_in_header_and_rows_for_three_terms(self):
        import subprocess
        import tempfile
        seen = set()
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        terms = list(self.TERMS.items())
        # A configured term that is one of the two fixtures' (every task
        # on, say) leaves two terms: a third of the test's own is added.
        for tasks in ("0 1 2", "0 1 2 8", "0 1 2 6"):
            own = os.path.join(scratch.name, tasks.replace(" ", "_") + ".ini")
            with open(own, "w", encoding="utf-8") as handle:
                handle.write(f"[lab]\nextends = {ROOT / 'grader' / 'lab.ini'}\ntasks = {tasks}\n")
            terms.append((f"its own ({tasks})", own))
        for term, definition in terms:
            if len(seen) == 3:
                break
            env = dict(os.environ)
            env.pop("GRUNDY_LAB_DEFINITION", None)
            if definition:
                env["GRUNDY_LAB_DEFINITION"] = str(ROOT / definition)
            run = subprocess.run([sys.executable, "-c", TERM_TABLE_PROBE, str(ROOT / "grader")],
                                 env=env, capture_output=True, text=True, check=False)
            self.assertEqual(run.returncode, 0, run.stderr)
            got = json.loads(run.stdout)
            with self.subTest(term=term):
                tasks = got["tasks"]
                seen.add(tuple(tasks))
                self.assertEqual(got["header"], 4 + len(tasks))
                self.assertEqual(got["rows"], [got["header"]] * 2)
                self.assertEqual(got["heads"][2:2 + len(tasks)], [f"task {t}" for t in tasks])
                # each task's column holds that task's points (1 + N here)
                self.assertEqual(got["ada"][1:1 + len(tasks)], [f"{1 + t:g}" for t in tasks])
                self.assertEqual(got["csv"], [got["csv_header"]] * 2)
        self.assertEqual(len(seen), 3, f"the three terms are not three: {seen}")
