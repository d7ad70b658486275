"""Tests of the grader's reports (grader/gradelib/reports.py), of the
Gradescope results schema and of grader/validate-results.

From the repository root, with Debian's python3 (it has python3-jsonschema):

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import copy
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from unittest import mock

try:
    import jsonschema
except ImportError as error:
    raise ImportError("these tests need python3-jsonschema: run them with /usr/bin/python3") from error

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = ROOT / "grader" / "schema" / "gradescope-results.schema.json"
VALIDATOR = ROOT / "grader" / "validate-results"
FILES = ["feedback.html", "feedback.md", "junit.xml", "logs/grading.json", "results.json"]


def listing(directory):
    """Every file under directory, relative, sorted."""
    return sorted(os.path.relpath(os.path.join(d, f), directory) for d, _, files in os.walk(directory) for f in files)


def load_reports():
    """gradelib's reports module (it writes through gradelib.safefs)."""
    sys.path.insert(0, str(ROOT / "grader"))
    from gradelib import reports as module
    return module


reports = load_reports()
with open(SCHEMA, encoding="utf-8") as f:
    SCHEMA_DOC = json.load(f)
VALIDATOR_CLASS = jsonschema.validators.validator_for(SCHEMA_DOC)


# ---- sample results --------------------------------------------------------

def make_test(test_id, task, status="passed", *, hidden=False, kind=None, max_score=2.0,
              message=None, time=0.01):
    suite, name = test_id.split("::")
    if message is None:
        message = "" if status == "passed" else (
            f"{name}: position {{7=1}}: expected N, got P\n"
            f"      (handout: handouts/grundy-lab.html#task-{task})")
    return {"id": test_id, "name": f"Task {task} / {name}", "task": task, "kind": kind,
            "hidden": hidden, "max_score": max_score,
            "score": max_score if status == "passed" else 0.0,
            "status": status, "message": message, "time": time}


def make_result(tests, **fields):
    result = {
        "submission": "/tmp/submission",
        "started": "2026-11-23T10:00:00Z",
        "seed": 12345,
        "task_titles": {0: "Task 0: the heap-count map and the moves", 1: "Task 1: the recursive solver",
                        2: "Task 2: memoization"},
        "sandbox": "bwrap, uid nobody",
        "pace": "wall-clock limits x4.00",
        "hidden_visibility": "after_published",
        "phases": {"build": 1.2, "suites": 3.4, "timing": 2.0, "memory": 8.1,
                   "coverage": 2.2, "reports": 0.1},
        "execution_time": 17.0,
        "notes": [],
        "builds": [
            {"file": "grundy_position.c", "compiled": True, "accepted": True,
             "warnings": "", "errors": "", "rejections": []},
            {"file": "grundy_solver.c", "compiled": True, "accepted": True,
             "warnings": "", "errors": "", "rejections": []}],
        "tests": tests,
        "timing": [],
        "memory": [],
        "coverage": {"line_percent": 93.3, "branch_percent": 80.0, "html": "coverage/index.html"},
    }
    result.update(fields)
    result["score"] = sum(t["score"] for t in tests)
    result["max_score"] = sum(t["max_score"] for t in tests)
    return result


def all_passed():
    tests = [
        make_test("task0::new_single_heap", 0), make_test("task0::add_heap", 0),
        make_test("task0::get_moves", 0), make_test("task0_hidden::big_heap", 0, hidden=True),
        make_test("memory::task0", 0, kind="memory", max_score=1.0),
        make_test("task1::outcome_small", 1, max_score=3.0),
        make_test("task1_hidden::outcome_20_23", 1, hidden=True, max_score=3.0),
        make_test("task2::expansions", 2, max_score=4.0),
        make_test("timing::{45=1}", 2, kind="timing", max_score=5.0, time=None),
        make_test("timing::{50=1}", 2, kind="timing", max_score=5.0, time=None),
    ]
    return make_result(
        tests,
        timing=[{"position": "{45=1}", "student_cpu": 0.21, "calibration_cpu": 0.09, "ratio": 2.3,
                 "budget_ratio": 20, "passed": True, "outcome": "answered"},
                {"position": "{50=1}", "student_cpu": 0.5, "calibration_cpu": 0.2, "ratio": 2.5,
                 "budget_ratio": 20, "passed": True, "outcome": "answered"}],
        memory=[{"task": 0, "findings": []}, {"task": 2, "findings": []}])


STATUSES = ["failed", "crashed", "timeout", "skipped", "missing", "not_run"]


def all_failed():
    tests = [make_test(f"task{task}::t_{status}", task, status)
             for task in (0, 1, 2) for status in STATUSES]
    tests += [make_test("task0_hidden::secret_a", 0, "failed", hidden=True,
                        message="SECRET-A position {60=1}: expected P, got N"),
              make_test("task2_hidden::secret_b", 2, "timeout", hidden=True,
                        message="SECRET-B position {70=1} ran out of time"),
              make_test("timing::{45=1}", 2, "failed", kind="timing", max_score=5.0,
                        message="over budget on {45=1}"),
              make_test("build::grundy_solver.c", 1, "failed", kind="build", max_score=0.0,
                        message="grundy_solver.c did not compile")]
    return make_result(
        tests,
        notes=["Tasks 1-2 were graded with the reference grundy_position.c because yours fails Task 0."],
        builds=[{"file": "grundy_position.c", "compiled": True, "accepted": False,
                 "warnings": "grundy_position.c:12:5: warning: unused variable 'k' [-Wunused-variable]",
                 "errors": "", "rejections": ["calls exit(), which is not allowed: return an error instead",
                                              "defines a constructor (.init_array), which is not allowed"]},
                {"file": "grundy_solver.c", "compiled": False, "accepted": False, "warnings": "",
                 "errors": "grundy_solver.c:40:1: error: expected ';' before '}' token", "rejections": []}],
        timing=[{"position": "{45=1}", "student_cpu": 1.9, "calibration_cpu": 0.09, "ratio": 21.1,
                 "budget_ratio": 20, "passed": False, "outcome": "over budget"},
                {"position": "{50=1}", "student_cpu": None, "calibration_cpu": 0.2, "ratio": None,
                 "budget_ratio": 20, "passed": False, "outcome": "not run"}],
        memory=[{"task": 0, "findings": [
                    {"kind": "Leak_DefinitelyLost", "what": "48 bytes in 1 blocks are definitely lost",
                     "file": "grundy_position.c", "line": 55, "function": "grundy_new",
                     "stack": ["malloc (vg_replace_malloc.c:381)", "grundy_new (grundy_position.c:55)",
                               "test_new (test_task0.c:20)"]},
                    {"kind": "InvalidRead", "what": "Invalid read of size 4",
                     "file": "grundy_position.c", "line": 80, "function": "grundy_count",
                     "stack": ["grundy_count (grundy_position.c:80)"]}]},
                {"task": 2, "findings": [
                    {"kind": "Leak_DefinitelyLost", "what": "96 bytes in 2 blocks are definitely lost",
                     "file": "grundy_position.c", "line": 55, "function": "grundy_new",
                     "stack": ["malloc (vg_replace_malloc.c:381)", "grundy_new (grundy_position.c:55)"]}]}],
        coverage=None)


MEGABYTE = 1 << 20
HOSTILE = ("<script>alert('x')</script> & &amp; ]]> <![CDATA[ x ]]> \"quoted\" 'single'\n"
           "control: \x00\x01\x07\x08\x0b\x0c\x1b[31mred\x1b[0m\x7f \ud83d lone surrogate\n"
           "non-ASCII: é, ß, 漢字, 🎲, \u200b\n"
           "``` a fence ```` and `code`\n"
           "# not a heading | not a cell | <img src=x onerror=alert(1)>")


def hostile():
    result = all_failed()
    tests = result["tests"]
    tests[0]["message"] = HOSTILE
    tests[1]["message"] = "A" * MEGABYTE
    tests[2]["name"] = "<script>name</script> & \x01"
    tests[2]["id"] = "task0::<script>id</script>"
    for test in tests:
        if test["hidden"]:
            test["message"] += " " + HOSTILE
    result["notes"] = [HOSTILE, "x" * MEGABYTE]
    result["sandbox"] = "<script>sandbox</script>"
    result["builds"][0]["warnings"] = HOSTILE + "W" * MEGABYTE
    result["builds"][0]["rejections"] = [HOSTILE, "R" * MEGABYTE]
    result["builds"][1]["errors"] = "E" * MEGABYTE + HOSTILE
    result["timing"][0]["position"] = "{45=1} <script>|</script>"
    finding = result["memory"][0]["findings"][0]
    finding.update(what=HOSTILE, file="<b>file</b>.c", function="<script>f</script>",
                   stack=[HOSTILE] * 50 + ["S" * MEGABYTE])
    result["coverage"] = {"line_percent": 10.0, "branch_percent": None,
                          "html": "javascript:alert(1)//coverage/index.html"}
    return result


SAMPLES = {"all_passed": all_passed, "all_failed": all_failed, "hostile": hostile}


class ReportsCase(unittest.TestCase):
    """Writes a result's reports into a fresh temporary directory."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.out = self._tmp.name
        self.addCleanup(self._tmp.cleanup)

    def write(self, result):
        reports.write_reports(result, self.out)
        return {name: Path(self.out, name).read_text(encoding="utf-8") for name in FILES}


# ---- results.json ----------------------------------------------------------

class ResultsJsonTest(ReportsCase):

    def validate(self, doc):
        return sorted(e.message for e in VALIDATOR_CLASS(SCHEMA_DOC).iter_errors(doc))

    def test_schema_is_a_valid_schema(self):
        VALIDATOR_CLASS.check_schema(SCHEMA_DOC)
        self.assertIn(VALIDATOR_CLASS, (jsonschema.Draft7Validator,
                                        getattr(jsonschema, "Draft202012Validator", None)))

    def test_every_sample_validates(self):
        for name, sample in SAMPLES.items():
            with self.subTest(name):
                doc = json.loads(self.write(sample())["results.json"])
                self.assertEqual(self.validate(doc), [])

    def test_score_is_the_sum_of_the_tests(self):
        for name, sample in SAMPLES.items():
            with self.subTest(name):
                result = sample()
                doc = json.loads(self.write(result)["results.json"])
                self.assertAlmostEqual(doc["score"], sum(t["score"] for t in doc["tests"]))
                self.assertAlmostEqual(doc["score"], result["score"])
                self.assertEqual(len(doc["tests"]), len(result["tests"]))

    def test_top_level_fields(self):
        doc = json.loads(self.write(all_passed())["results.json"])
        self.assertEqual(doc["output_format"], "text")
        self.assertEqual(doc["visibility"], "visible")
        self.assertEqual(doc["stdout_visibility"], "hidden")
        self.assertEqual(doc["execution_time"], 17)
        self.assertEqual(doc["extra_data"], {
            "seed": 12345, "sandbox": "bwrap, uid nobody", "pace": "wall-clock limits x4.00",
            "phases": all_passed()["phases"], "coverage_line_percent": 93.3, "flags": [],
            "challenge": None,
            "timing": [{"name": "", "position": "{45=1}", "student_cpu": 0.21, "calibration_cpu": 0.09,
                        "passed": True},
                       {"name": "", "position": "{50=1}", "student_cpu": 0.5, "calibration_cpu": 0.2,
                        "passed": True}]})
        for line in ("Task 0: the heap-count map and the moves: 9/9", "Task 1: the recursive solver: 6/6",
                     "Task 2: memoization: 14/14", "bwrap, uid nobody", "12345"):
            self.assertIn(line, doc["output"])

    def test_hidden_tests_carry_the_hidden_visibility(self):
        for visibility in ("after_published", "after_due_date", "hidden", "visible"):
            with self.subTest(visibility):
                result = all_failed()
                result["hidden_visibility"] = visibility
                doc = json.loads(self.write(result)["results.json"])
                for test, entry in zip(result["tests"], doc["tests"]):
                    self.assertEqual(entry["visibility"], visibility if test["hidden"] else "visible")
                    self.assertEqual("hidden" in entry["tags"], test["hidden"])
                self.assertEqual(self.validate(doc), [])

    def test_unknown_hidden_visibility_stays_valid(self):
        result = all_failed()
        result["hidden_visibility"] = "sometimes"
        doc = json.loads(self.write(result)["results.json"])
        self.assertEqual(self.validate(doc), [])
        self.assertIn("after_published", {t["visibility"] for t in doc["tests"]})

    def test_tests_numbers_tags_status_and_output(self):
        result = all_failed()
        doc = json.loads(self.write(result)["results.json"])
        by_name = {t["name"]: t for t in doc["tests"]}
        self.assertEqual([t["number"] for t in doc["tests"][:7]],
                         ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "1.1"])
        self.assertEqual(by_name["Task 2 / {45=1}"]["tags"], ["task2", "timing"])
        self.assertEqual(by_name["Task 2 / secret_b"]["tags"], ["task2", "hidden"])
        self.assertEqual(by_name["Task 1 / grundy_solver.c"]["tags"], ["task1", "build"])
        self.assertEqual({t["status"] for t in doc["tests"]}, {"failed"})
        self.assertTrue(by_name["Task 0 / t_crashed"]["output"].startswith("crashed: "))
        self.assertTrue(by_name["Task 0 / t_timeout"]["output"].startswith("timed out: "))
        self.assertTrue(by_name["Task 0 / t_failed"]["output"].startswith("t_failed: position"))
        passed = json.loads(self.write(all_passed())["results.json"])
        self.assertEqual({t["status"] for t in passed["tests"]}, {"passed"})

    def test_a_status_word_is_said_once(self):
        # The phases write "not run: why"; the status word is not added again.
        tests = [make_test("task1::t", 1, "not_run", message="not run: grundy_solver.c did not build"),
                 make_test("task1::u", 1, "not_run", message="the solver did not build")]
        doc = json.loads(self.write(make_result(tests))["results.json"])
        outputs = [t["output"] for t in doc["tests"]]
        self.assertIn("not run: grundy_solver.c did not build", outputs)
        self.assertIn("not run: the solver did not build", outputs)
        self.assertFalse(any("not run: not run" in o for o in outputs))

    def test_leaderboard_has_the_timing_ratios(self):
        doc = json.loads(self.write(all_passed())["results.json"])
        self.assertEqual(doc["leaderboard"], [
            {"name": "CPU ratio {45=1}", "value": 2.3, "order": "asc"},
            {"name": "CPU ratio {50=1}", "value": 2.5, "order": "asc"}])
        # Over budget, not run, or a wrong answer (a constant answer is
        # instant: ratio 0): no place on an ascending board.
        doc = json.loads(self.write(all_failed())["results.json"])
        self.assertNotIn("leaderboard", doc)
        result = all_passed()
        result["timing"][0].update(passed=False, outcome="wrong answer", ratio=0.0, student_cpu=0.0)
        doc = json.loads(self.write(result)["results.json"])
        self.assertEqual([e["name"] for e in doc["leaderboard"]], ["CPU ratio {50=1}"])
        result = all_passed()
        result["timing"] = []
        self.assertNotIn("leaderboard", json.loads(self.write(result)["results.json"]))
        # The challenge's largest heap: a place of its own, larger is better.
        result["challenge"] = {"largest": 57, "budget_cpu": 0.4, "stopped_by": "budget"}
        doc = json.loads(self.write(result)["results.json"])
        self.assertEqual(doc["leaderboard"], [{"name": "Challenge: largest heap", "value": 57, "order": "desc"}])
        self.assertEqual(doc["extra_data"]["challenge"]["largest"], 57)
        self.assertEqual(self.validate(doc), [])

    def test_non_finite_numbers_never_reach_the_json(self):
        result = all_passed()
        result["tests"][0]["score"] = math.nan
        result["execution_time"] = math.inf
        result["timing"][0]["ratio"] = math.nan
        text = self.write(result)["results.json"]
        doc = json.loads(text, parse_constant=lambda c: self.fail(f"{c} in results.json"))
        self.assertEqual(self.validate(doc), [])
        self.assertEqual(len(doc["leaderboard"]), 1)

    def test_hostile_text_is_cleaned_and_capped(self):
        files = self.write(hostile())
        raw = Path(self.out, "results.json").read_bytes()
        raw.decode("utf-8")  # strictly valid UTF-8: no lone surrogates
        self.assertLess(len(raw), 200_000)
        doc = json.loads(files["results.json"])
        self.assertIn("漢字, 🎲", doc["tests"][0]["output"])
        self.assertNotRegex(doc["tests"][0]["output"], "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")
        self.assertIn("characters cut", doc["tests"][1]["output"])
        self.assertLessEqual(len(doc["tests"][1]["output"]), reports.MESSAGE_CAP + 100)
        self.assertLessEqual(len(doc["output"]), reports.SUMMARY_CAP + 100)

    def test_schema_rejects_what_gradescope_does_not_document(self):
        good = json.loads(self.write(all_passed())["results.json"])
        cases = {
            "status": lambda d: d["tests"][0].update(status="partial"),
            "visibility": lambda d: d["tests"][0].update(visibility="sometimes"),
            "tags": lambda d: d["tests"][0].pop("tags"),
            "test name": lambda d: d["tests"][0].pop("name"),
            "test max_score": lambda d: d["tests"][0].pop("max_score"),
            "test key": lambda d: d["tests"][0].update(visiblity="visible"),
            "top key": lambda d: d.update(scor=1),
            "output_format": lambda d: d.update(output_format="markdown"),
            "stdout_visibility": lambda d: d.update(stdout_visibility="never"),
            "leaderboard order": lambda d: d["leaderboard"][0].update(order="up"),
            "leaderboard value": lambda d: d["leaderboard"][0].update(value=None),
            "score type": lambda d: d.update(score="63"),
            "no score anywhere": lambda d: (d.pop("score"), d.pop("tests")),
        }
        for name, spoil in cases.items():
            with self.subTest(name):
                doc = copy.deepcopy(good)
                spoil(doc)
                self.assertNotEqual(self.validate(doc), [])


# ---- junit.xml -------------------------------------------------------------

class JUnitTest(ReportsCase):

    def suites(self, result):
        self.write(result)
        root = ET.parse(Path(self.out, "junit.xml")).getroot()
        self.assertEqual(root.tag, "testsuites")
        return root, {s.get("name"): s for s in root.findall("testsuite")}

    def test_one_suite_per_task_with_right_counts(self):
        result = all_failed()
        root, suites = self.suites(result)
        self.assertEqual(list(suites), ["task0", "task1", "task2"])
        outcome = {"failed": "failures", "crashed": "errors", "timeout": "errors",
                   "missing": "errors", "skipped": "skipped", "not_run": "skipped"}
        for task in (0, 1, 2):
            tests = [t for t in result["tests"] if t["task"] == task]
            expected = {"tests": len(tests), "failures": 0, "errors": 0, "skipped": 0}
            for test in tests:
                expected[outcome[test["status"]]] += 1
            suite = suites[f"task{task}"]
            for key, value in expected.items():
                self.assertEqual(int(suite.get(key)), value, (task, key))
            self.assertEqual(len(suite.findall("testcase/failure")), expected["failures"])
            self.assertEqual(len(suite.findall("testcase/error")), expected["errors"])
            self.assertEqual(len(suite.findall("testcase/skipped")), expected["skipped"])
        self.assertEqual(int(root.get("tests")), len(result["tests"]))

    def test_all_passed_has_no_outcomes(self):
        root, suites = self.suites(all_passed())
        self.assertEqual([s.get("failures") for s in suites.values()], ["0", "0", "0"])
        self.assertEqual(root.findall(".//failure") + root.findall(".//error")
                         + root.findall(".//skipped"), [])
        self.assertEqual(int(suites["task0"].get("tests")), 5)

    def test_classname_name_time_and_failure(self):
        _, suites = self.suites(all_failed())
        case = suites["task0"].find("testcase")
        self.assertEqual(case.get("classname"), "grundy.task0")
        self.assertEqual(case.get("name"), "t_failed")
        self.assertEqual(case.get("time"), "0.010")
        failure = case.find("failure")
        self.assertEqual(failure.get("type"), "failed")
        self.assertEqual(failure.get("message"), "t_failed: position {7=1}: expected N, got P")
        self.assertIn("(handout: handouts/grundy-lab.html#task-0)", failure.text)
        error = suites["task0"].find("testcase[@name='t_timeout']/error")
        self.assertEqual(error.get("type"), "timeout")
        for suite in suites.values():
            names = [c.get("name") for c in suite.findall("testcase")]
            self.assertEqual(len(names), len(set(names)), "GitLab ignores duplicate names")
            self.assertTrue(all(c.get("classname") == f"grundy.{suite.get('name')}"
                                for c in suite.findall("testcase")))

    def test_hidden_tests_are_masked_unless_visible(self):
        root, suites = self.suites(all_failed())
        text = ET.tostring(root, encoding="unicode")
        self.assertNotIn("SECRET", text)
        self.assertNotIn("secret_", text)
        hidden = suites["task0"].find("testcase[@name='hidden_1']/failure")
        self.assertIn("when grades are published", hidden.text)
        result = all_failed()
        result["hidden_visibility"] = "visible"
        root, suites = self.suites(result)
        self.assertIn("SECRET-A", ET.tostring(root, encoding="unicode"))
        self.assertIsNotNone(suites["task0"].find("testcase[@name='secret_a']"))

    def test_hostile_text_parses_and_is_capped(self):
        root, suites = self.suites(hostile())
        raw = Path(self.out, "junit.xml").read_bytes()
        self.assertLess(len(raw), 100_000)
        first = suites["task0"].find("testcase/failure")
        self.assertIn("<script>alert('x')</script> & &amp; ]]>", first.text)
        self.assertIn("漢字, 🎲", first.text)
        self.assertIn("<script>alert('x')</script>", first.get("message"))
        self.assertNotRegex(first.text, "[\x00-\x08\x0b\x0c\x0e-\x1f]")
        self.assertIn("characters cut", suites["task0"].findall("testcase")[1].find("error").text)
        self.assertEqual(suites["task0"].findall("testcase")[2].get("name"), "<script>id</script>")


# ---- feedback.md and feedback.html -----------------------------------------

class TagCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, name, value) for name, value in attrs]

    def handle_data(self, data):
        self.text.append(data)


FENCED = re.compile(r"^(`{3,})text\n.*?\n\1$", re.M | re.S)
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3",
                "p", "ul", "li", "pre", "table", "thead", "tbody", "tr", "th", "td", "a", "code"}


class FeedbackTest(ReportsCase):

    def html_parts(self, html_text):
        parser = TagCollector()
        parser.feed(html_text)
        parser.close()
        return parser

    def test_html_has_no_script_and_only_known_tags(self):
        for name, sample in SAMPLES.items():
            with self.subTest(name):
                files = self.write(sample())
                page = files["feedback.html"]
                self.assertNotRegex(page.lower(), r"<\s*script")
                self.assertNotRegex(page.lower(), r"<\s*img")
                parts = self.html_parts(page)
                self.assertLessEqual(set(parts.tags), ALLOWED_TAGS)
                self.assertFalse([a for a in parts.attrs if a[1].startswith("on")])
                hrefs = [value for tag, attr, value in parts.attrs if attr in ("href", "src")]
                self.assertTrue(all(not re.match(r"[a-z]+:", h) for h in hrefs), hrefs)
                self.assertIn("Content-Security-Policy", page)
                # Markdown: raw HTML only inside fenced code blocks, which render as text.
                prose = FENCED.sub("", files["feedback.md"]).lower()
                self.assertNotRegex(prose, r"(?<!\\)<\s*(script|img)")

    def test_failing_messages_are_shown(self):
        result = all_failed()
        files = self.write(result)
        for test in result["tests"]:
            if test["hidden"]:
                continue
            with self.subTest(test["id"]):
                self.assertIn(test["message"], files["feedback.md"])
                shown = re.sub(r"`([^`\n]+)`", r"\1", test["message"])   # a `span` is shown as code
                self.assertIn(shown, "".join(self.html_parts(files["feedback.html"]).text))
        for text in ("Score: 0 / 45", "Task 0: the heap-count map and the moves: 0 / 14",
                     "Task 1: the recursive solver", "Task 2: memoization", "Tasks 1-2 were graded",
                     "grundy_solver.c:40:1: error: expected ';' before '}' token",
                     "unused variable 'k'", "calls exit(), which is not allowed",
                     "defines a constructor (.init_array)", "timed out", "crashed"):
            self.assertIn(text, files["feedback.html"].replace("&#x27;", "'"))

    def test_backticks_show_as_code_and_stay_escaped(self):
        result = all_failed()
        result["tests"][0]["message"] = "Run `make memcheck` and `<script>x</script>`; a lone ` stays"
        page = self.write(result)["feedback.html"]
        self.assertIn("Run <code>make memcheck</code>", page)
        self.assertIn("<code>&lt;script&gt;x&lt;/script&gt;</code>", page)
        self.assertIn("a lone ` stays", page)
        prose = re.sub(r"<pre>.*?</pre>", "", page, flags=re.S)   # a <pre> shows the text as it is
        self.assertNotIn("`make memcheck`", prose)

    def test_passing_tests_are_not_listed(self):
        files = self.write(all_passed())
        self.assertNotIn("new_single_heap", files["feedback.md"])
        self.assertIn("5 of 5 tests passed.", files["feedback.md"])
        self.assertIn("valgrind found no invalid accesses and no leaks", files["feedback.md"])

    def test_stopped_coverage_is_said_instead_of_figures(self):
        # coverage.measure's result when its budget ran out
        result = all_passed()
        result["coverage"] = {"stopped": "Coverage stopped after 12 s: the tests under coverage "
                                         "reached its CPU limit"}
        files = self.write(result)
        self.assertIn("Coverage stopped after 12 s", files["feedback.md"])
        self.assertIn("Coverage stopped after 12 s", files["feedback.html"])
        self.assertNotIn("of the lines of your files", files["feedback.md"])
        self.assertIsNone(json.loads(files["results.json"])["extra_data"]["coverage_line_percent"])

    def test_hidden_messages_are_hidden_unless_visible(self):
        for visibility in ("after_published", "after_due_date", "hidden"):
            with self.subTest(visibility):
                result = all_failed()
                result["hidden_visibility"] = visibility
                files = self.write(result)
                for name in ("feedback.md", "feedback.html"):
                    self.assertNotIn("SECRET", files[name])
                    self.assertNotIn("secret_", files[name])
                    self.assertIn("Hidden test 1 failed (failed, 0/2 points)", files[name])
                    self.assertIn("Hidden test 1 failed (timed out, 0/2 points)", files[name])
                self.assertNotIn("SECRET", json.loads(files["results.json"])["output"])
        result = all_failed()
        result["hidden_visibility"] = "visible"
        files = self.write(result)
        self.assertIn("SECRET-A position {60=1}", files["feedback.md"])
        self.assertNotIn("Hidden test 1 failed", files["feedback.md"])

    def test_timing_table(self):
        page = self.write(all_failed())["feedback.html"]
        for row in (["{45=1}", "1.900", "0.090", "21.1x", "at most 20x", "over budget"],
                    ["{50=1}", "-", "0.200", "-", "at most 20x", "not run"]):
            self.assertIn("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>", page)
        md = self.write(all_passed())["feedback.md"]
        self.assertIn("| {45=1} | 0.210 | 0.090 | 2.3x | at most 20x | passed |", md)

    def test_memory_findings_most_useful_first_and_merged(self):
        md = self.write(all_failed())["feedback.md"]
        invalid = md.index("Invalid read at grundy\\_position.c:80 in grundy\\_count()")
        leak = md.index("Leak (definitely lost) at grundy\\_position.c:55 in grundy\\_new()")
        self.assertLess(invalid, leak)
        self.assertEqual(md.count("grundy\\_position.c:55 in"), 1)
        self.assertIn("(seen in Task 0, Task 2)", md)
        self.assertIn("test_new (test_task0.c:20)", md)

    def test_handout_sections_are_links(self):
        result = all_failed()
        files = self.write(result)
        self.assertNotIn("#task-0\"", files["feedback.html"])  # no handout given: plain text
        handout = Path(self.out, "rendered.html")
        handout.write_text("<html><h1 id=\"task-0\">Task 0</h1></html>", encoding="utf-8")
        with mock.patch.dict(os.environ, {"GRUNDY_HANDOUT_URL": ""}):
            reports.write_reports(result, self.out, handout=str(handout))
        page = Path(self.out, "feedback.html").read_text(encoding="utf-8")
        self.assertIn('<a href="handout.html#task-0">section #task-0</a>', page)
        self.assertIn("](handout.html#task-0)", Path(self.out, "feedback.md").read_text(encoding="utf-8"))
        self.assertEqual(Path(self.out, "handout.html").read_bytes(), handout.read_bytes())
        url = "https://course.example.org/grundy-lab.html"
        with mock.patch.dict(os.environ, {"GRUNDY_HANDOUT_URL": url}):
            reports.write_reports(result, self.out, handout=str(handout))
        self.assertIn(f'<a href="{url}#task-0">', Path(self.out, "feedback.html").read_text(encoding="utf-8"))
        for bad in ("javascript:alert(1)", "https://x.org/\"onmouseover=alert(1)", "file:///etc/passwd"):
            with self.subTest(bad), mock.patch.dict(os.environ, {"GRUNDY_HANDOUT_URL": bad}):
                reports.write_reports(result, self.out, handout=str(handout))
                page = Path(self.out, "feedback.html").read_text(encoding="utf-8")
                self.assertIn('<a href="handout.html#task-0">', page)
                self.assertNotIn("alert", page)

    def test_coverage_link(self):
        files = self.write(all_passed())
        self.assertIn('<a href="coverage/index.html">', files["feedback.html"])
        self.assertIn("93.3% of the lines", files["feedback.md"])
        self.assertIn("](coverage/index.html)", files["feedback.md"])
        files = self.write(hostile())
        self.assertNotIn("javascript", files["feedback.html"])
        self.assertNotIn("<a ", files["feedback.html"])
        self.assertIn("10% of the lines", files["feedback.md"])
        self.assertNotIn("## Coverage", self.write(all_failed())["feedback.md"])

    def test_seed_and_sandbox_at_the_bottom(self):
        md = self.write(all_passed())["feedback.md"]
        bottom = md.index("## About this run")
        self.assertGreater(bottom, md.index("## Coverage"))
        self.assertIn("Seed: 12345", md[bottom:])
        self.assertIn("Sandbox: bwrap, uid nobody", md[bottom:])

    def test_hostile_text_is_escaped_and_capped(self):
        files = self.write(hostile())
        page, md = files["feedback.html"], files["feedback.md"]
        self.assertLess(len(page), 200_000)
        self.assertLess(len(md), 200_000)
        self.assertIn("x" * reports.MESSAGE_CAP + " \\[... ", md)  # the 1 MB note, on one line
        self.assertNotIn("x" * (reports.MESSAGE_CAP + 1), md)
        self.assertIn("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &amp;amp; ]]&gt;", page)
        self.assertIn("&lt;script&gt;name&lt;/script&gt;", page)
        self.assertIn("漢字, 🎲", page)
        self.assertIn("characters cut", page)
        self.assertNotRegex(page + md, "[\x00-\x08\x0b\x0c\x0e-\x1f\x1b]")
        text = "".join(self.html_parts(page).text)
        self.assertIn("<script>alert('x')</script> & &amp; ]]>", text)
        # Markdown: the message's own fences cannot close the code block.
        self.assertIn("`````text\n" + reports.clean(HOSTILE), md)
        self.assertIn("\\<script\\>name\\</script\\>", md)
        self.assertIn("{45=1} \\<script\\>\\|\\</script\\>", md)


class CauseGroupingTest(ReportsCase):
    """Issue 27: failures that share a cause are shown once, with the list
    of the tests it fails; two causes are never merged; the feedback opens
    with a summary per task and each cause."""

    MOVES_4 = "grundy_get_moves({4=1}) returned {}, which is not one move away\nfix the splits"
    MOVES_7 = "grundy_get_moves({7=1}) returned {3=1}, which is not one move away\nfix the splits"
    MOVES_OTHER = "grundy_get_moves({5=1}) returned {}, which is not one move away\nfix the counts"

    def test_a_named_cause_is_keyed_by_the_cause_alone(self):
        # memo_evidence's messages: the cause, then what each test saw, in
        # words that differ from test to test; the cause groups them.
        hit = "A memo hit is ignored. The memo's own record shows it: memo_table_get returned true."
        first = hit + reports.TEST_SAW + "is_p({7=1}) answered a P-position, the oracle says N"
        second = hit + reports.TEST_SAW + "the memo size stayed at 0 after a cold query"
        other = ("The memo is looked up after the moves are made. The memo's own record shows it."
                 + reports.TEST_SAW + "is_p({7=1}) answered a P-position, the oracle says N")
        self.assertEqual(reports.cause_key(first), reports.cause_key(second))
        self.assertNotEqual(reports.cause_key(first), reports.cause_key(other))

    def grouped(self):
        return make_result([
            make_test("task0::first_moves", 0, "failed", message=self.MOVES_4),
            make_test("task0::passing", 0, "passed"),
            make_test("task0::more_moves", 0, "failed", message=self.MOVES_7),
            make_test("task0::other_hint", 0, "failed", message=self.MOVES_OTHER),
            make_test("task1::spins", 1, "timeout", message=self.MOVES_4),
        ])

    def test_cause_key_sets_aside_positions_numbers_and_answers_only(self):
        key = reports.cause_key
        self.assertEqual(key("grundy_is_p_position({13=1}) returned true; it is an N-position"),
                         key("grundy_is_p_position({4=1, 7=2}) returned false; it is a P-position"))
        self.assertEqual(key(self.MOVES_4), key(self.MOVES_7))
        self.assertNotEqual(key(self.MOVES_4), key(self.MOVES_OTHER))  # a later line differs
        self.assertNotEqual(key("grundy_is_p_position({4=1}) returned true"),
                            key("grundy_is_n_position({4=1}) returned true"))

    def test_one_cause_is_shown_once_with_its_tests(self):
        for name in ("feedback.md", "feedback.html"):
            with self.subTest(file=name):
                page = self.write(self.grouped())[name].replace("&#x27;", "'").replace("\\_", "_")
                self.assertIn("grundy_get_moves({4=1}) returned", page)
                self.assertNotIn("grundy_get_moves({7=1})", page)  # the second case is listed, not shown
                self.assertIn("fails 1 more test: Task 0 / more_moves (0/2 points)", page)

    def test_two_causes_are_never_merged(self):
        md = self.write(self.grouped())["feedback.md"]
        self.assertIn("fix the counts", md)
        self.assertIn("Task 0 / other\\_hint: failed", md)
        self.assertNotIn("other\\_hint (0/2 points)", md)
        # The same words, timed out in another task: a cause of its own.
        self.assertIn("Task 1 / spins: timed out", md)
        self.assertEqual(md.count("The same cause"), 1)

    def test_html_opens_with_a_summary_of_each_task_and_cause(self):
        page = self.write(self.grouped())["feedback.html"]
        summary = page.index("Summary: each task and each cause")
        self.assertLess(summary, page.index("<pre>"))
        self.assertLess(summary, page.index("<h3>"))
        head = page[summary:page.index("<pre>")]
        self.assertIn("Task 0, cause 1 (2 tests): grundy_get_moves({4=1}) returned {}", head)
        self.assertIn("Task 0, cause 2: grundy_get_moves({5=1})", head)
        self.assertIn("Task 1, cause 1: grundy_get_moves({4=1})", head)
        self.assertNotIn("fix the splits", head)  # first lines only

    def test_hidden_failures_are_not_grouped_or_shown(self):
        result = make_result([
            make_test("task0::first_moves", 0, "failed", message=self.MOVES_4),
            make_test("task0_hidden::secret", 0, "failed", hidden=True, message=self.MOVES_7),
        ])
        md = self.write(result)["feedback.md"]
        self.assertNotIn("The same cause", md)
        self.assertNotIn("{7=1}", md)
        self.assertIn("Hidden test 1 failed", md)


class TimeOutOrderTest(ReportsCase):
    """Issue 27, item 3: time-outs are listed in the order they happened
    (the runner's "order": grader_report.c, suites.result_of), not in suite
    (alphabetical) order; other failures keep rubric order."""

    SPIN = ("grundy_is_p_position({19=1}) did not return within 5 s: an endless loop?\n"
            "      (handout: handouts/grundy-lab.html#task-1)")
    SLOW = ("grundy_is_p_position({17=2}) did not return within 1 s: an endless loop?\n"
            "      (handout: handouts/grundy-lab.html#task-1)")

    def result(self, orders):
        # alpha, beta and gamma in rubric order; beta passed; alpha and gamma
        # timed out, gamma first when orders says so.
        # Both calls' time-outs (the proxy's limit, flagged by suites.result_of).
        alpha = make_test("task1::alpha_spins", 1, "failed", message=self.SLOW)
        beta = make_test("task1::beta_passes", 1, "passed")
        gamma = make_test("task1::gamma_spins", 1, "failed", message=self.SPIN)
        alpha["flags"] = gamma["flags"] = ["timeout"]
        alpha["order"], gamma["order"] = orders
        beta["order"] = 2
        return make_result([alpha, beta, gamma])

    def test_the_first_time_out_leads_its_cause(self):
        for name in ("feedback.md", "feedback.html"):
            with self.subTest(file=name):
                page = self.write(self.result((3, 1)))[name].replace("\\_", "_")
                # gamma ended first: it is the case shown in full, alpha is listed after it
                self.assertIn("{19=1}", page)
                self.assertNotIn("{17=2}", page)
                self.assertIn("fails 1 more test: Task 1 / alpha_spins", page)
                self.assertLess(page.index("gamma_spins"), page.index("alpha_spins"))

    def test_suite_order_when_they_happened_in_it(self):
        # The control: the same tests, alpha first in time as in the suite.
        page = self.write(self.result((1, 3)))["feedback.md"].replace("\\_", "_")
        self.assertIn("{17=2}", page)
        self.assertIn("fails 1 more test: Task 1 / gamma_spins", page)
        self.assertLess(page.index("alpha_spins"), page.index("gamma_spins"))

    def test_an_unknown_moment_comes_last_and_failures_keep_rubric_order(self):
        first = make_test("task1::a_wrong", 1, "failed", message=self.SLOW.replace("did not return", "hung"))
        second = make_test("task1::b_spins", 1, "timeout", message=self.SLOW)   # no order: unknown
        third = make_test("task1::c_spins", 1, "timeout", message=self.SPIN)
        first["order"], third["order"] = 9, 4
        md = self.write(make_result([first, second, third]))["feedback.md"].replace("\\_", "_")
        self.assertLess(md.index("a_wrong"), md.index("c_spins"))   # a failure keeps its place
        self.assertLess(md.index("c_spins"), md.index("b_spins"))   # known before unknown


# ---- atomic writes -----------------------------------------------------------

class AtomicWriteTest(ReportsCase):

    def test_only_the_reports_are_left(self):
        reports.write_reports(all_passed(), self.out)
        reports.write_reports(all_failed(), self.out)
        self.assertEqual(listing(self.out), FILES)
        for name in FILES:
            self.assertEqual(os.stat(Path(self.out, name)).st_mode & 0o777, 0o644)

    def test_creates_the_output_directory(self):
        out = Path(self.out, "a", "b")
        reports.write_reports(all_passed(), str(out))
        self.assertEqual(listing(out), FILES)

    def test_files_are_replaced_not_rewritten(self):
        reports.write_reports(all_passed(), self.out)
        old = {}
        for name in FILES:
            os.link(Path(self.out, name), Path(self.out, name + ".old"))
            old[name] = Path(self.out, name).read_bytes()
        reports.write_reports(all_failed(), self.out)
        for name in FILES:
            with self.subTest(name):
                self.assertEqual(Path(self.out, name + ".old").read_bytes(), old[name])
                self.assertNotEqual(Path(self.out, name).read_bytes(), old[name])

    def test_a_failed_replace_keeps_the_old_file_and_no_temporary(self):
        reports.write_reports(all_passed(), self.out)
        before = Path(self.out, "results.json").read_bytes()
        with mock.patch("os.replace", side_effect=OSError("disk on fire")):
            with self.assertRaises(OSError):
                reports.write_reports(all_failed(), self.out)
        self.assertEqual(Path(self.out, "results.json").read_bytes(), before)
        self.assertEqual(listing(self.out), FILES)

    def test_each_file_is_synced_before_it_replaces(self):
        events = []  # ("fsync" | "replace", (device, inode)), in order
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd):
            events.append(("fsync", (os.fstat(fd).st_dev, os.fstat(fd).st_ino)))
            return real_fsync(fd)

        def replace(src, dst):
            self.assertEqual(os.path.dirname(src), os.path.dirname(dst), "temporary file beside the file")
            self.assertTrue(os.path.basename(src).startswith("."), "temporary file is hidden")
            events.append(("replace", (os.stat(src).st_dev, os.stat(src).st_ino)))
            return real_replace(src, dst)

        with mock.patch("os.fsync", side_effect=fsync), mock.patch("os.replace", side_effect=replace):
            reports.write_reports(all_passed(), self.out)
        replaced = [i for i, (kind, _) in enumerate(events) if kind == "replace"]
        self.assertEqual(len(replaced), len(FILES))
        for i in replaced:
            self.assertIn(("fsync", events[i][1]), events[:i], "synced before the replace")


# ---- grader/validate-results -----------------------------------------------

class ValidatorScriptTest(ReportsCase):

    def run_validator(self, *args):
        return subprocess.run([str(VALIDATOR), *args], capture_output=True, text=True, timeout=60)

    def results_file(self, name, content):
        path = Path(self.out, name)
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return str(path)

    def test_is_executable_with_debian_python(self):
        self.assertTrue(os.access(VALIDATOR, os.X_OK))
        self.assertEqual(VALIDATOR.read_text().splitlines()[0], "#!/usr/bin/python3")

    def test_valid_files(self):
        reports.write_reports(all_failed(), self.out)
        other = self.results_file("other.json", json.loads(Path(self.out, "results.json").read_text()))
        run = self.run_validator(str(Path(self.out, "results.json")), other)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.stdout.count(": valid"), 2)

    def test_invalid_file_prints_json_paths(self):
        reports.write_reports(all_passed(), self.out)
        doc = json.loads(Path(self.out, "results.json").read_text())
        doc["tests"][3]["status"] = "partial"
        del doc["tests"][4]["tags"]
        doc["leaderboard"][1]["order"] = "up"
        run = self.run_validator(self.results_file("bad.json", doc))
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("INVALID (3 problems)", run.stdout)
        self.assertIn("$.tests[3].status: 'partial' is not one of", run.stdout)
        self.assertIn("$.tests[4]: 'tags' is a required property", run.stdout)
        self.assertIn("$.leaderboard[1].order:", run.stdout)

    def test_strict_json(self):
        for name, content in {"notjson": "{\"score\": ", "nan": "{\"score\": NaN}",
                              "duplicate": "{\"score\": 1, \"score\": 2}", "latin1": b"\xff"}.items():
            with self.subTest(name):
                path = Path(self.out, name + ".json")
                path.write_bytes(content if isinstance(content, bytes) else content.encode())
                run = self.run_validator(str(path))
                self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
                self.assertIn("not valid JSON", run.stdout)

    def test_usage_and_io_errors(self):
        reports.write_reports(all_passed(), self.out)
        good = str(Path(self.out, "results.json"))
        for args, needle in (((), "no file given"), (("--frobnicate", good), "unknown option"),
                             ((str(Path(self.out, "missing.json")),), "cannot read"),
                             ((good, self.out), "cannot read")):
            with self.subTest(args):
                run = self.run_validator(*args)
                self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
                self.assertIn(needle, run.stderr)
        self.assertEqual(self.run_validator("--help").returncode, 0)


if __name__ == "__main__":
    unittest.main()
