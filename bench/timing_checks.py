"""The timing checks under load, for bench/run: false failures and false passes.

Both timing checks are run for real, RUNS times each, while a busy loop
saturates the other core (the checks and everything they start are pinned
to CPU 0, the loop to the last CPU):

  - the public suite's (tests/public/suites/test_task2.c: the child's CPU budget is
    the lab's ratio x the calibration solver's time on the same position),
    through the Task 2 test program itself (test_task2), built from the
    reference and from the unmemoized fixture; its log lines give the CPU time and the budget;
  - the grader's (grader/gradelib/timing.py with the trusted probe,
    grader/boundary/timing_probe.c: the same ratio x the same calibration
    solver's best of 3, on positions drawn from a seed, a new one each
    run), through timing.check() itself, in the grader's sandbox, with
    student programs linked the way the grader links them.

For the reference the margin is its CPU time over the budget (the largest
over the runs is reported: it must stay well below 1). The unmemoized
fixture is stopped at its budget, so a run only says "at least 1"; its real
margin comes from counting: bench_search --unmemoized gives the exact
number of grundy_get_moves calls it would make (the count matches the
fixture's own on heaps it can finish), and a heap it can finish gives its
CPU time per call, so margin = calls x time per call / budget. To keep the
bench short the public suite's unmemoized runs use only the single-heap
test (its budgets are the smallest); the other positions get the counted
margin.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))
from gradelib import build, config, sandbox, timing  # noqa: E402

SEED = 20261123   # the grader's timing positions are drawn from a seed
LOG_LINE = re.compile(r"(\{[^}]*\}): ([0-9.]+) s CPU, budget ([0-9.]+) s")
FAIL_LINE = re.compile(r"solving (\{[^}]*\}) from an empty memo did not finish within its CPU "
                       r"budget of ([0-9.]+) s \(([0-9.]+) x the calibration solver's ([0-9.]+) s")


class BusyLoop:
    """A CPU hog on the last CPU while the measurements stay on CPU 0."""

    def __enter__(self):
        cpus = sorted(os.sched_getaffinity(0))
        self.saved = set(cpus)
        self.loop = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                     preexec_fn=lambda: os.sched_setaffinity(0, {cpus[-1]}))
        os.sched_setaffinity(0, {cpus[0]})
        return self

    def __exit__(self, *exc):
        self.loop.kill()
        self.loop.wait()
        os.sched_setaffinity(0, self.saved)


def public_suite(program, test_filter):
    """One run of the Task 2 test program: {position: (cpu or None, budget, calibration)}, passed."""
    env = dict(os.environ, GRUNDY_DATA_DIR=os.path.join(REPO, "tests", "staff", "data"))
    env.pop("LAB_SKIP_TIMING", None)
    run = subprocess.run([program, f"--filter={test_filter}", "-j1", "--verbose"],
                         capture_output=True, text=True, env=env, cwd=REPO, check=False)
    out = run.stdout + run.stderr
    seen = {}
    for position, cpu, budget in LOG_LINE.findall(out):
        seen[position] = (float(cpu), float(budget), None)
    for position, budget, ratio, calibration in FAIL_LINE.findall(out):
        seen[position] = (None, float(budget), float(calibration))
    passed = "Failing: 0" in out and "Crashing: 0" in out and bool(seen)
    return seen, passed


def grader_programs(fixture_dir, log):
    """Scratch dir, sandbox mode and the two student programs, linked as the
    grader links them (the trusted timing probe runs them)."""
    scratch = tempfile.mkdtemp(prefix="grundy-bench-")
    os.chmod(scratch, 0o755)
    mode = sandbox.detect([REPO], scratch)
    build.copy_harness(scratch, mode)
    # The model solution is compiled as a submission is: no model object
    # is in a grading's scratch (build.NOT_COPIED).
    objects = {}
    for name, source in (("reference", os.path.join(REPO, "reference")), ("unmemoized", fixture_dir)):
        for made in ("src", "include"):   # copy_sources makes both anew
            shutil.rmtree(os.path.join(scratch, made), ignore_errors=True)
        builds = build.copy_sources(source, scratch)
        for b in builds.values():
            build.compile_file(mode, scratch, b, config.CFLAGS, os.path.join(scratch, f"obj_{name}"), log)
        objects[name] = [builds[f].object for f in config.SUBMISSION_FILES]
    programs = {}
    for name in ("reference", "unmemoized"):
        path = os.path.join(scratch, "bin", f"student_{name}")
        ok, messages = build.link_student_program(mode, scratch, path, objects[name], log)
        if not ok:
            raise RuntimeError(f"linking the {name} student program failed: {messages}")
        programs[name] = path
    return scratch, mode, programs


def run_all(runs, suite_programs, fixture_dir, say):
    """Every run; returns the raw observations per check and solver."""
    quiet = lambda message: None  # noqa: E731
    scratch, mode, programs = grader_programs(fixture_dir, quiet)
    results = {"public": {"reference": [], "unmemoized": []},
               "grader": {"reference": [], "unmemoized": []},
               "sandbox": mode.describe()}
    try:
        with BusyLoop():
            for i in range(runs):
                results["public"]["reference"].append(
                    public_suite(suite_programs["reference"], "task2/large_*"))
                results["public"]["unmemoized"].append(
                    public_suite(suite_programs["unmemoized"], "task2/large_single_heaps_are_fast"))
                for name in ("reference", "unmemoized"):
                    # A new seed each run: each run times other drawn positions.
                    entries, _ = timing.check(mode, scratch, programs[name], SEED + i, quiet)
                    results["grader"][name].append(entries)
                say(f"  timing checks: run {i + 1}/{runs} done")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results
