"""Runs a task's prebuilt test runner against a student program, and turns
its report into TestResults.

The runner (build/grader/runner_taskN) holds the suites, public and hidden,
the oracle and the report hook, and no submission code: every call of the
lab's API crosses to a student process started from the student program
($GRADER_SERVER, grader/boundary/proxy.c), which runs behind a seccomp
filter and cannot open a file, so the report file can only come from the
runner. A test the report does not mention, or every test of a runner
whose report is missing or unreadable, counts as failed ("missing").

Every run passes Criterion a per-test timeout of TEST_TIMEOUT seconds; the
proxy's own limit on one call (config.CALL_SECONDS, then short_call_seconds once calls
of the runner have timed out) ends most endless loops sooner, with a
message that names the call and its position. Test runs get an
address-space limit of RUNNER_ADDRESS_SPACE for the trusted side; each
student process has its own (lab.ini's student_address_space_mib, lowered
to fit a small container's memory: pace.py; grader/boundary/proxy.c). Both
time-outs, the call's and the test's, are multiplied by the grading's pace
(pace.py), as every wall-clock limit is.
"""

import json
import os

from . import build, config, safefs, sandbox
from .results import TestResult

TEST_TIMEOUT = config.LIMITS["test_seconds"]          # per test, native runs ([limits])
# The public suites' timing checks the grader replaces with its own, drawn
# from the seed (timing.py); the other tasks' budget and stack checks run,
# judged from outside the student process (grader/boundary/proxy_criterion.c).
TIMED_BY_THE_GRADER = " ".join(t.suite for t in config.LAB.tasks if t.timed) or "none"
VALGRIND_TEST_TIMEOUT = config.LIMITS["valgrind_test_seconds"]   # per test under valgrind
RUNNER_SECONDS = config.LIMITS["runner_seconds"]
RUNNER_ADDRESS_SPACE = 1 << 30
REPORT_CAP = 8 << 20        # bytes: a larger report is not the runner's
MESSAGE_CAP = 8000          # characters of one message of a test


def run_runner(mode, scratch, runner, name, seed, student_program, policy="serve",
               tests=None, env_extra=None, limits=None, jobs=config.SUITE_JOBS,
               writable_extra=(), call_seconds=config.CALL_SECONDS, side_channel=False,
               runs_dir=None):
    """Runs one runner; returns (RunResult, {test id: record}, report error or None).

    tests: run only these test ids (Criterion's --filter), or all.
    runs_dir: where its run directory goes (default scratch/runs)."""
    run_dir = os.path.join(runs_dir or os.path.join(scratch, "runs"), name)
    os.makedirs(run_dir)
    report = os.path.join(run_dir, "report.json")
    env = {"GRADER_REPORT": report, "LAB_SEED": str(seed), "LAB_SKIP_TIMING": TIMED_BY_THE_GRADER,
           "GRUNDY_DATA_DIR": "/nonexistent", "GRADER_SERVER": student_program,
           "GRADER_POLICY": policy, "GRADER_CALL_SECONDS": f"{call_seconds * mode.pace:g}",
           "GRADER_CPU_SECONDS": str(config.STUDENT_CPU_SECONDS)}
    env.update(env_extra or {})
    # Scaled by the pace (pace.py), as the call limit above; the run's own
    # wall-clock limit is scaled by sandbox.run.
    timeout = round((VALGRIND_TEST_TIMEOUT if policy == "valgrind" else TEST_TIMEOUT) * mode.pace)
    argv = [runner, f"--jobs={jobs}", f"--timeout={timeout}"]
    if tests:
        argv.append("--filter=@(" + "|".join(t.replace("::", "/") for t in sorted(tests)) + ")")
    limits = limits or sandbox.Limits(cpu_seconds=RUNNER_SECONDS, wall_seconds=RUNNER_SECONDS,
                                      address_space=None if policy == "valgrind" else RUNNER_ADDRESS_SPACE)
    result = sandbox.run(mode, argv, cwd=run_dir, readable=build.view(scratch, runner, student_program),
                         writable=[run_dir, *writable_extra], env=env, limits=limits,
                         side_channel=side_channel, students=True)
    records, error = read_report(report)
    for test_id, figure in read_figures(report + ".figures"):
        if test_id in records:
            records[test_id].setdefault("figures", []).append(figure)
    return result, records, error


def read_figures(path):
    """(test id, figure) pairs that the runner's test processes recorded."""
    raw = safefs.read_capped(path, REPORT_CAP) or b""
    pairs = []
    for line in raw.decode("utf-8", "replace").splitlines():
        fields = line.split()
        if len(fields) == 2:
            pairs.append((fields[0], fields[1]))
    return pairs


def read_report(path):
    if not os.path.lexists(path):
        return {}, "the test runner wrote no report (it was killed before the end)"
    try:
        raw = safefs.read_regular(path, REPORT_CAP)
    except (safefs.Refused, OSError) as why:
        return {}, f"the test runner's report was not read: it {why}"
    try:
        data = json.loads(raw.decode("utf-8"))
        records = {}
        for test in data["tests"]:
            if isinstance(test, dict) and isinstance(test.get("suite"), str) and \
                    isinstance(test.get("name"), str):
                records[f"{test['suite']}::{test['name']}"] = test
        return records, None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        return {}, f"the test runner's report is unreadable ({error})"


def task_of(test_id):
    """The task of a test id ("task1::x", "task2_hidden::y")."""
    suite = test_id.split("::", 1)[0]
    return int(suite[4]) if suite.startswith("task") and suite[4:5].isdigit() else -1


def result_of(test_id, record, report_error):
    """The TestResult of one test from its report record (or its absence)."""
    task = task_of(test_id)
    if record is not None and not isinstance(record, dict):
        record, report_error = None, "its record in the runner's report is malformed"
    if record is None:
        return TestResult(test_id, task, "missing", "this test did not report a result: "
                          + (report_error or "it is missing from the runner's report"))
    status = record.get("status", "failed")
    if not isinstance(status, str) or status not in ("passed", "failed", "crashed", "timeout", "skipped"):
        status = "failed"
    listed = record.get("messages")
    messages = [m[:MESSAGE_CAP] for m in (listed if isinstance(listed, list) else []) if isinstance(m, str)]
    message = "\n".join(_strip_location(m) for m in messages)
    flags = []
    if status == "crashed" or "crashed the student process" in message:
        flags.append("crash")
    if status == "timeout" or "did not return within" in message:
        flags.append("timeout")
    if status == "crashed" and not message:
        message = "the test itself crashed (an internal error of the grader's runner)"
    elif status == "timeout" and not message:
        message = (f"the test ran out of time ({TEST_TIMEOUT:g} s): an endless loop or a very slow "
                   "solver?")
    elif status == "failed" and not messages:
        message = "the test failed without a message"
    listed = record.get("figures")
    figures = [f for f in (listed if isinstance(listed, list) else []) if isinstance(f, str)]
    time = record.get("time") if isinstance(record.get("time"), (int, float)) else None
    # When it ran (grader_report.c, the runner's clock): its rank among the
    # runner's tests in the order they ended, and its start.
    order = record.get("order")
    order = order if isinstance(order, int) and not isinstance(order, bool) and order >= 1 else None
    started = record.get("started")
    started = round(float(started), 3) if isinstance(started, (int, float)) and not isinstance(started, bool) \
        and 0 <= started < 1e6 else None
    return TestResult(test_id, task, status, message, time=time, figures=figures, flags=flags,
                      order=order, started=started)


def _strip_location(message):
    """Drops the suite's file:line prefix; students need the message, not our line.
    A check made in a header (hidden_seed.h) has one too, and would name a
    hidden file."""
    head, sep, rest = message.partition(": ")
    if sep and head.count(":") == 1 and head.split(":")[0].endswith((".c", ".h")) \
            and head.split(":")[1].isdigit():
        return rest.strip()
    return message.strip()
