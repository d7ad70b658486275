"""Runs a linked test runner in the sandbox and reads the grader's report.

Results come only from the report that grader/runner/grader_report.c
writes in the runner process. A test the report does not mention, or every
test of a runner whose report is missing or unreadable, counts as failed
("missing"), so a submission cannot pass a test by killing the runner.

Every run passes Criterion a per-test timeout of TEST_TIMEOUT seconds,
which overrides the suites' own (60-120 s). Those are meant for students'
unoptimized builds under sanitizers on slow laptops; the grader builds with
-O2 and no sanitizers, where the slowest test of an unmemoized solver (the
slowest honest Task 1 solution) takes under a second. Ten times that still
passes a slow but honest solver, while a submission that loops forever on
some positions costs 10 s per such test instead of 60-120 s, and so cannot
stretch grading to many minutes. Under valgrind (20-50x slower, and each
test starts a fresh valgrind) the limit is VALGRIND_TEST_TIMEOUT, the
suites' own 60 s; only tests that passed natively run there.

Test runs get an address-space limit of RUNNER_ADDRESS_SPACE: the
reference solution passes every suite (public and hidden) within 64 MiB,
so 512 MiB leaves an honest but wasteful solution 8 times that, while a
submission that allocates without bound is stopped after touching at most
512 MiB per test process (two run at a time), not the compiler's 2 GiB.
"""

import json
import os

from . import config, sandbox

TEST_TIMEOUT = 10           # seconds per test, native runs (see above)
VALGRIND_TEST_TIMEOUT = 60  # seconds per test under valgrind
RUNNER_ADDRESS_SPACE = 512 << 20   # RLIMIT_AS of native test runs (see above)


def run_runner(mode, scratch, runner, name, seed, env_extra=None, limits=None,
               valgrind=None, jobs=config.SUITE_JOBS, writable_extra=(), extra_args=()):
    """Runs one runner; returns (RunResult, {test id: record}, report error or None)."""
    run_dir = os.path.join(scratch, "runs", name)
    os.makedirs(run_dir)
    report = os.path.join(run_dir, "report.json")
    env = {"GRADER_REPORT": report, "LAB_SEED": str(seed), "LAB_SKIP_TIMING": "1",
           "GRUNDY_DATA_DIR": "/nonexistent"}
    env.update(env_extra or {})
    timeout = VALGRIND_TEST_TIMEOUT if valgrind else TEST_TIMEOUT
    argv = [runner, f"--jobs={jobs}", f"--timeout={timeout}", *extra_args]
    limits = limits or sandbox.Limits(cpu_seconds=120, wall_seconds=240,
                                      address_space=RUNNER_ADDRESS_SPACE)
    if valgrind:
        argv = valgrind + argv
    result = sandbox.run(mode, argv, cwd=run_dir, readable=[scratch],
                         writable=[run_dir, *writable_extra], env=env, limits=limits)
    records, error = read_report(report)
    return result, records, error


def read_report(path):
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        records = {}
        for test in data["tests"]:
            records[f"{test['suite']}::{test['name']}"] = test
        return records, None
    except FileNotFoundError:
        return {}, "the test runner wrote no report (it was killed or crashed before the end)"
    except (OSError, ValueError, KeyError, TypeError) as error:
        return {}, f"the test runner's report is unreadable ({error})"


def outcome(record, report_error):
    """(status, message) of one test from its report record (or its absence)."""
    if record is None:
        return "missing", ("this test did not report a result: "
                           + (report_error or "it is missing from the runner's report"))
    status = record.get("status", "failed")
    messages = [m for m in record.get("messages", []) if isinstance(m, str)]
    message = "\n".join(_strip_location(m) for m in messages)
    if status == "crashed":
        message = (message + "\n" if message else "") + _crash_words(record)
    elif status == "timeout":
        message = (message + "\n" if message else "") + "the test ran out of time (an endless loop or a very slow solver?)"
    elif status == "failed" and not messages:
        code = record.get("exit_code", 0)
        message = (f"the test process ended early with exit status {code}: code under test "
                   "must return, not exit" if code else "the test failed without a message")
    return status, message


def _strip_location(message):
    """Drops the suite's file:line prefix; students need the message, not our line."""
    head, sep, rest = message.partition(": ")
    if sep and head.count(":") == 1 and head.split(":")[0].endswith(".c"):
        return rest.strip()
    return message.strip()


def _crash_words(record):
    signal_number = record.get("signal") or 0
    names = {11: "SIGSEGV: an invalid memory access, such as a NULL pointer or a freed position",
             6: "SIGABRT: abort() or a failed assert",
             8: "SIGFPE: an arithmetic error such as a division by zero",
             7: "SIGBUS: an invalid memory access",
             9: "SIGKILL: killed for using too much time or memory",
             24: "SIGXCPU: the CPU time limit was reached",
             25: "SIGXFSZ: too much output written"}
    words = names.get(signal_number, f"signal {signal_number}")
    return f"the test crashed ({words}); run `make memcheck` to find where"
