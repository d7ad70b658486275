"""The checks of lab.ini's [checks]: each is one file here, NAME.py.

Adding a check is that file and its line `NAME = WEIGHT` in [checks]; no
other file changes. The line gives the check one test per task of the
term, NAME::taskN, weighted WEIGHT among the task's rubric lines
(rubric.term_lines; 0: it is reported, not scored). A check's module
holds:
    TITLE   what it checks, in a few words (the log, the docs)
    FLAG    the flag its failures raise ("" for none; results.flags_of)
    check(ctx, builds, suite_results, task) -> (status, message)
            its test for one task: "passed", "failed" (raises FLAG) or
            "not_run" (its answer rests on what failed before it, such
            as a file that did not compile: one cause, one flag), and
            the words for the student; builds: {file: build.FileBuild};
            suite_results: the suites' [TestResult]
A check runs after every graded phase (untimed, on the grading's own
time cap), in the definition's order. Whatever it computes from student
bytes has a budget: it reads what the build phase kept (already capped)
or runs student code only through sandbox.run, under its limits. A check
that raises fails its own tests with why, the one fallback every check
shares (run_all), and the grading goes on.
"""

import importlib

from .. import config
from ..results import TestResult


def module(name):
    """The check's module, gradelib/checks/NAME.py."""
    return importlib.import_module(f"{__name__}.{name}")


def flags():
    """The flags lab.ini's checks may raise, in the definition's order."""
    return [f for f in (module(name).FLAG for name, _ in config.LAB.checks) if f]


def run_all(ctx, builds, suite_results):
    """Every check's tests, [TestResult]: NAME::taskN for each task."""
    found = []
    for name, _ in config.LAB.checks:
        found += ctx.guarded(f"check {name}", _run, lambda why, name=name: _not_run(name, why),
                             name, builds, suite_results)
    return found


def _run(ctx, name, builds, suite_results):
    check = module(name)
    tests = []
    for task in config.TASKS:
        status, message = check.check(ctx, builds, suite_results, task)
        tests.append(TestResult(f"{name}::task{task}", task, status, message, kind=name,
                                flags=[check.FLAG] if check.FLAG and status == "failed" else []))
    return tests


def _not_run(name, why):
    return [TestResult(f"{name}::task{task}", task, "failed", f"the check could not run: {why}", kind=name,
                       flags=["grader_error"] if why.startswith("an internal error") else [])
            for task in config.TASKS]
