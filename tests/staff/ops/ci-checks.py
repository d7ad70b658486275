#!/usr/bin/python3
"""tests/staff/ops/ci-checks.py - what tests/staff/ops/check-ci asserts about the CI files and their outputs.

usage: ci-checks.py templates STUDENT STAFF GITHUB RELEASE
       ci-checks.py student-artifacts ARTIFACTS BUILD JOB_LOG STUDENT_TEMPLATE
       ci-checks.py hidden-names NAMES_FILE TREE...
       ci-checks.py staff-report REPORT_ARTIFACTS SEED EXPECTATIONS
       ci-checks.py github-summary-script GITHUB

Each prints what it checked and every problem, and exits 1 when there is
one (2 for bad usage). The structural checks read the YAML with PyYAML
(Debian's python3-yaml, hence /usr/bin/python3); the run checks read what
gitlab-ci-local left: a job's artifacts, its build directory and its log.
"""

import csv
import html.parser
import json
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

import yaml

problems = []


def check(condition, message):
    if not condition:
        problems.append(message)
    return condition


def load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def gitlab_regex(text):
    """GitLab's coverage: '/.../' as a Python pattern (the syntax used is common to both)."""
    check(isinstance(text, str) and len(text) > 2 and text[0] == "/" and text[-1] == "/",
          f"coverage: {text!r} is not a /regex/")
    return re.compile(text[1:-1], re.M)


def script_text(job):
    return "\n".join(job.get("before_script", []) + job.get("script", []))


# ---- the templates' structure ----------------------------------------------------

def templates(student_path, staff_path, github_path, release_path):
    grader_dir = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader")
    with open(os.path.join(grader_dir, "gradelib", "coverage_report.py"), encoding="utf-8") as handle:
        found = re.search(r'^COBERTURA = "([^"]+)"', handle.read(), re.MULTILINE)
    check(found is not None, "grader/gradelib/coverage_report.py: no COBERTURA name found (has it moved?)")
    cobertura_name = found.group(1) if found else "?"

    student, release = load(student_path), load(release_path)
    for name in ("test", "grade"):
        check(isinstance(student.get(name), dict), f"student: no job {name}")
    grade = student.get("grade", {})
    check(student.get("test") == release.get("test"),
          "student: its `test` job differs from the release's .gitlab-ci.yml `test` job")
    text = script_text(grade)
    check('grader/grade" student --out grade' in text, "student: grade does not run grader/grade on student/")
    reports = grade.get("artifacts", {}).get("reports", {})
    check(reports.get("junit") == "grade/junit.xml", f"student: reports:junit is {reports.get('junit')!r}")
    cov = reports.get("coverage_report", {})
    check(cov.get("coverage_format") == "cobertura", "student: coverage_report:coverage_format is not cobertura")
    check(cov.get("path") == f"grade/coverage/{cobertura_name}",
          f"student: coverage_report:path is {cov.get('path')!r}, the grader writes coverage/{cobertura_name}")
    paths = grade.get("artifacts", {}).get("paths", [])
    check("grade/feedback.html" in paths, "student: feedback.html is not an artifact")
    check(grade.get("artifacts", {}).get("when") == "always", "student: artifacts are not kept when the job fails")
    check(not any(p.rstrip("/") in ("grade", "grade/logs", "grade/results.json") for p in paths),
          "student: the artifacts include results.json or logs/, which name the hidden tests")
    pattern = gitlab_regex(grade.get("coverage", ""))
    check(pattern.search("line coverage: 94.6%") is not None, "student: the coverage regex misses 'line coverage: 94.6%'")
    check(pattern.search("line coverage: n/a") is None, "student: the coverage regex matches a line without a figure")

    staff = load(staff_path)
    shard = staff.get("grade", {})
    check(isinstance(shard.get("parallel"), int) and shard["parallel"] >= 2, "staff: grade has no parallel: N >= 2")
    text = script_text(shard)
    check("grader/grade-all" in text and '--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"' in text,
          "staff: grade does not run grader/grade-all --shard $CI_NODE_INDEX/$CI_NODE_TOTAL")
    check("--seed" in text, "staff: the shards are not given one --seed")
    report = staff.get("report", {})
    check(report.get("needs") == ["grade"], "staff: report does not need grade")
    check("grader/class-report shards/*" in script_text(report), "staff: report does not merge the shards")
    check("class/" in report.get("artifacts", {}).get("paths", []), "staff: the class report is not an artifact")

    workflow = load(github_path)
    triggers = workflow.get("on", workflow.get(True))     # YAML 1.1 reads a bare `on` as true
    check(isinstance(triggers, dict) and "push" in triggers, "github: not run on push")
    jobs = workflow.get("jobs") or {}
    check(len(jobs) == 1, "github: expected one job")
    steps = next(iter(jobs.values()), {}).get("steps", []) if jobs else []
    check(all(isinstance(s, dict) and ("run" in s or "uses" in s) for s in steps), "github: a step with neither run nor uses")
    uses = [s.get("uses", "") for s in steps]
    check(sum(u.startswith("actions/checkout@") for u in uses) == 2, "github: expected two checkouts (submission, grader)")
    check(any(u.startswith("actions/upload-artifact@") for u in uses), "github: no upload-artifact step")
    runs = "\n".join(s.get("run", "") for s in steps)
    check("grader/grade student --out grade" in runs, "github: no step runs grader/grade on student/")
    summary = [s for s in steps if "GITHUB_STEP_SUMMARY" in s.get("run", "")]
    check(len(summary) == 1 and "feedback.md" in summary[0]["run"] and summary[0].get("if") == "always()",
          "github: no `if: always()` step writing feedback.md to $GITHUB_STEP_SUMMARY")
    print(f"templates: student jobs {sorted(k for k in student if isinstance(student[k], dict) and 'script' in student[k])}, "
          f"staff parallel {shard.get('parallel')}, github steps {len(steps)}; coverage file {cobertura_name}")


def github_summary_script(github_path):
    """Prints the `run:` of the job-summary step (check-ci runs it)."""
    workflow = load(github_path)
    for job in (workflow.get("jobs") or {}).values():
        for step in job.get("steps", []):
            if "GITHUB_STEP_SUMMARY" in step.get("run", ""):
                sys.stdout.write(step["run"])
                return
    problems.append("no job-summary step")


# ---- the student pipeline's outputs -----------------------------------------------

def student_artifacts(artifacts, build, job_log, template):
    grade = os.path.join(artifacts, "grade")
    for name in ("junit.xml", "feedback.html", "feedback.md", "coverage/cobertura.xml", "coverage/index.html"):
        check(os.path.isfile(os.path.join(grade, name)) and os.path.getsize(os.path.join(grade, name)) > 0,
              f"artifact grade/{name} missing or empty")
    for name in ("results.json", "logs"):
        check(not os.path.exists(os.path.join(grade, name)), f"artifact grade/{name} should not be published")
    if problems:
        return
    results = json.load(open(os.path.join(build, "grade", "results.json"), encoding="utf-8"))
    failed = sum(1 for t in results["tests"] if t.get("status") != "passed")

    junit = ET.parse(os.path.join(grade, "junit.xml")).getroot()
    check(junit.tag == "testsuites", f"junit.xml: root <{junit.tag}>")
    cases = junit.findall("./testsuite/testcase")
    bad = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    check(len(cases) > 0 and len(bad) > 0, f"junit.xml: {len(cases)} test cases, {len(bad)} failing")

    cobertura = ET.parse(os.path.join(grade, "coverage", "cobertura.xml")).getroot()
    check(cobertura.tag == "coverage" and 0 < float(cobertura.get("line-rate", "0")) <= 1,
          f"cobertura.xml: root <{cobertura.tag}> line-rate {cobertura.get('line-rate')}")
    sources = [s.text for s in cobertura.findall("./sources/source")]
    files = [c.get("filename") for c in cobertura.iter("class")]
    check(sources == [build], f"cobertura.xml: <source> is {sources}, not the checkout ({build})")
    check(sorted(files) == ["student/grundy_position.c", "student/grundy_solver.c"], f"cobertura.xml: classes {files}")
    for f in files:
        check(os.path.isfile(os.path.join(build, f)), f"cobertura.xml: {f} is not in the repository")

    page = open(os.path.join(grade, "feedback.html"), encoding="utf-8").read()
    score = f"{results['score']:g}"
    check("<html" in page.lower() and score in page, f"feedback.html: no HTML page with the score {score}")

    log = open(job_log, encoding="utf-8", errors="replace").read()
    doc = load(template)
    found = gitlab_regex(doc["grade"]["coverage"]).findall(log)
    expected = results.get("extra_data", {}).get("coverage_line_percent")
    check(found and expected is not None and found[-1].endswith(f" {expected}%"),
          f"job log: coverage lines {found}, results.json says {expected}")
    print(f"student artifacts: score {score}, {failed} failed tests, junit {len(cases)} cases ({len(bad)} failing), "
          f"cobertura line-rate {cobertura.get('line-rate')} over {files}, coverage in the log {found[-1:]}")


def hidden_names(names_file, trees):
    """Fails when a hidden test's name is in a file of the trees (the control
    runs it where the names must be)."""
    names = [n for n in open(names_file, encoding="utf-8").read().split() if n]
    check(len(names) >= 10, f"only {len(names)} hidden test names to look for: the list is broken")
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    hits = 0
    for tree in trees:
        for dirpath, _, files in os.walk(tree):
            for name in files:
                path = os.path.join(dirpath, name)
                text = open(path, encoding="utf-8", errors="replace").read()
                match = pattern.search(text)
                if match:
                    hits += 1
                    problems.append(f"{os.path.relpath(path, tree)} names the hidden test {match.group(1)}")
    print(f"{len(names)} hidden test names looked for; {hits} files name one")


# ---- the staff pipeline's outputs -------------------------------------------------

class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if (tag, key) in (("a", "href"), ("img", "src")) and value and not re.match(r"\w+:|#", value):
                self.targets.append(value)


def staff_report(artifacts, seed, expectations):
    """EXPECTATIONS: 'name=100,name=0,name=<100', one per student graded."""
    book = os.path.join(artifacts, "class", "gradebook.csv")
    if not check(os.path.isfile(book), "class/gradebook.csv missing"):
        return
    rows = list(csv.DictReader(open(book, encoding="utf-8")))
    wanted = dict(item.split("=", 1) for item in expectations.split(","))
    check(sorted(r["student"] for r in rows) == sorted(wanted), f"gradebook students {[r['student'] for r in rows]}, "
          f"expected {sorted(wanted)}")
    for row in rows:
        total, rule = float(row["total"]), wanted.get(row["student"], "")
        ok = (total < 100 and total > 0) if rule == "between" else total == float(rule or -1)
        check(ok, f"gradebook: {row['student']} has {total}, expected {rule}")
        check(row["seed"] == seed, f"gradebook: {row['student']} graded with seed {row['seed']}, not {seed}")
        parts = sum(float(row[t]) for t in ("task0", "task1", "task2"))
        check(abs(parts - total) < 0.02, f"gradebook: {row['student']}'s tasks add up to {parts}, not {total}")
    report = os.path.join(artifacts, "class", "report.html")
    if check(os.path.isfile(report), "class/report.html missing"):
        parser = Links()
        parser.feed(open(report, encoding="utf-8").read())
        feedback = [t for t in parser.targets if t.endswith("feedback.html")]
        check(len(feedback) == len(rows), f"report.html links {len(feedback)} feedback pages for {len(rows)} students")
        for target in parser.targets:
            path = os.path.normpath(os.path.join(artifacts, "class", urllib.parse.unquote(target)))
            check(os.path.isfile(path), f"report.html: the link {target} does not resolve in the artifacts")
    print(f"gradebook: {[(r['student'], r['total'], r['seed']) for r in rows]}")


def main():
    commands = {"templates": (templates, 4), "student-artifacts": (student_artifacts, 4),
                "staff-report": (staff_report, 3), "github-summary-script": (github_summary_script, 1)}
    if len(sys.argv) >= 2 and sys.argv[1] == "hidden-names" and len(sys.argv) >= 4:
        hidden_names(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 2 and sys.argv[1] in commands and len(sys.argv) == 2 + commands[sys.argv[1]][1]:
        commands[sys.argv[1]][0](*sys.argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
