"""The grader's timing checks: the submission's solver against the lab's
one yardstick, on positions drawn from the hidden seed.

Run serially, after the suites, so nothing else of the grader's competes
for the CPU. The yardstick is the students' own (grader/lab.ini,
[timing]): the calibration solver, timed by the trusted timing probe in its
own process (--calibrate: the fastest of config.CALIBRATION_RUNS runs). The
probe then starts a fresh student process for the one position, clears the
memo, builds the position, asks both questions, and reads the student
process's whole CPU time from the kernel after the answers: from the
process's start, so building the position (a grundy_add_heap that solves it
into the memo), constructors and helper calls all count; the student
process runs only inside calls and cannot fork or start a thread (its
seccomp filter), so that time is all the work it did. Its budget is
config.TIMING_BUDGET_RATIO times the calibration; a second run is made only
when the first came close to the budget.

A timing check passes only when its position was answered within budget
and both answers (P and N questions) were right, and the timing checks earn
points only when EVERY timed position was answered right within budget
(all_right): the positions mix P and N, so a constant answer, or one that
answers what it guesses and stalls elsewhere, fails one of them and earns
no timing point at all.

The positions (config.TIMED_SHAPES) are drawn from the seed, so they
cannot be looked up in advance; the oracle (the probe's --classify) picks
two-heap positions of a given outcome.

A failed timing check is told under the memo mistake that the timed task's
own suite named (under_memo_cause), so that one bug is one cause in the
feedback, its timing checks listed with its other tests.
"""

import math
import random

from . import build, config, probes, sandbox
from .reports import TEST_SAW   # a memo mistake's message: "CAUSE. What the test saw: ..."
from .results import TestResult


def position_text(heaps):
    counts = {}
    for h in heaps:
        if h >= 3:
            counts[h] = counts.get(h, 0) + 1
    return "{" + ", ".join(f"{h}={c}" for h, c in sorted(counts.items())) + "}"


def draw_positions(mode, scratch, seed):
    """{test name: heaps}, the same for the same seed."""
    rng = random.Random(f"timing:{seed}")
    probe = build.timing_probe(scratch)
    drawn = {}
    for name, (count, (low, high), outcome) in config.TIMED_SHAPES.items():
        for attempt in range(200):
            total = rng.randint(low, high)
            cuts = sorted(rng.randint(3, total - 3) for _ in range(count - 1))
            heaps = [b - a for a, b in zip([0] + cuts, cuts + [total])]
            if any(h < 3 for h in heaps) or (count > 1 and len(set(heaps)) == 1 and attempt < 150):
                continue
            if outcome is None or _classify(mode, scratch, probe, heaps) == outcome:
                drawn[name] = sorted(heaps)
                break
        else:
            raise RuntimeError(f"no timing position of shape {name} found")
    return drawn


def _classify(mode, scratch, probe, heaps):
    result = sandbox.run(mode, [probe, "--classify", *map(str, heaps)], cwd=scratch,
                         readable=build.view(scratch, probe),
                         limits=sandbox.Limits(cpu_seconds=config.LIMITS["timing_cpu_seconds"],
                                               wall_seconds=config.LIMITS["timing_wall_seconds"]))
    return result.stdout.strip() if result.ok else None


def _probe(mode, scratch, program, heaps, budget, name):
    wall = 4 * budget + 10 if budget > 0 else config.LIMITS["timing_wall_seconds"]
    verdict, result = probes.run(
        mode, scratch, [build.timing_probe(scratch), program, f"{budget:.6f}", *map(str, heaps)], name,
        sandbox.Limits(cpu_seconds=math.ceil(budget) + config.LIMITS["timing_cpu_seconds"], wall_seconds=wall),
        {"outcome": "probe failed", "cpu": None, "correct": False, "message": "the timing probe failed"})
    verdict["run"] = result
    return verdict


_CALIBRATED = {}   # (scratch, heaps) -> CPU seconds: one grading's rescue run reuses its budgets


def calibrate(mode, scratch, heaps, name):
    """The yardstick's CPU seconds on heaps (the fastest of
    config.CALIBRATION_RUNS runs, all in one trusted probe process), once
    per grading and position."""
    key = (scratch, tuple(heaps))
    if key not in _CALIBRATED:
        _CALIBRATED[key] = _calibrate(mode, scratch, heaps, name)
    return _CALIBRATED[key]


def _calibrate(mode, scratch, heaps, name):
    verdict, result = probes.run(
        mode, scratch, [build.timing_probe(scratch), "--calibrate", str(config.CALIBRATION_RUNS),
                        *map(str, heaps)],
        f"timing-calibrate-{name}", sandbox.Limits(cpu_seconds=config.LIMITS["calibration_cpu_seconds"],
                                                    wall_seconds=config.LIMITS["calibration_wall_seconds"]),
        {"outcome": "probe failed", "message": "the calibration failed"})
    if not (verdict.get("agrees") and isinstance(verdict.get("cpu"), (int, float))):
        raise RuntimeError(f"the calibration solver failed on {position_text(heaps)}: "
                           f"{result.describe()} {result.stderr[:500]}")
    return max(verdict["cpu"], 1e-4)


def check(mode, scratch, student_program, seed, log, until_failure=False):
    """(timing entries for the reports, TestResults); one per drawn position,
    or, until_failure, up to the first that fails (the timing points need
    them all: a second opinion stops there)."""
    entries, tests = [], []
    for name, heaps in draw_positions(mode, scratch, seed).items():
        if until_failure and entries and not entries[-1]["passed"]:
            break
        text = position_text(heaps)
        calibration_cpu = calibrate(mode, scratch, heaps, name)
        budget = config.TIMING_BUDGET_RATIO * calibration_cpu
        entry = {"name": name, "position": text, "student_cpu": None,
                 "calibration_cpu": round(calibration_cpu, 4), "ratio": None,
                 "budget_ratio": config.TIMING_BUDGET_RATIO, "passed": False,
                 "outcome": "not run", "budget_cpu": round(budget, 4)}
        if student_program is not None:
            best = None
            for attempt in range(2):
                run = _probe(mode, scratch, student_program, heaps, budget, f"timing-{name}-{attempt}")
                if best is None or (run.get("outcome") == "answered" and
                                    (best.get("outcome") != "answered" or run["cpu"] < best["cpu"])):
                    best = run
                if run.get("outcome") != "answered" or run["cpu"] < budget / 2:
                    break   # clearly in or clearly out: a second run would not change the verdict
            entry.update(_verdict(best, budget, calibration_cpu))
        log(f"timing {name} {text}: calibration {calibration_cpu:.4f} s, budget {budget:.3f} s, "
            f"submission {entry['student_cpu']} s -> {entry['outcome']}")
        entries.append(entry)
        tests.append(_test_result(entry))
    all_right(entries, tests)
    return entries, tests


def all_right(entries, tests):
    """Withholds the points of every passed timing check unless every timed
    position passed: a solver that answers some positions right by luck (a
    constant answer is right on every P-position) is not fast and right."""
    failed = [e["name"] for e in entries if not e["passed"]]
    if not failed:
        return
    for t in tests:
        if t.passed:
            t.withheld = (f"the timing points go only to a solver that answers every timed position "
                          f"right within its budget, and {', '.join(failed)} did not")


def _verdict(run, budget, calibration_cpu):
    outcome = run.get("outcome")
    verdict = {"outcome": outcome, "passed": False, "message": run.get("message") or "",
               "expansions": run.get("expansions")}
    if outcome in ("answered", "over budget") and isinstance(run.get("cpu"), (int, float)):
        verdict["student_cpu"] = round(run["cpu"], 4)
        verdict["ratio"] = round(run["cpu"] / calibration_cpu, 2)
    if outcome == "answered" and not run.get("correct"):
        verdict["outcome"] = "wrong answer"
    elif outcome == "answered":
        verdict["passed"] = run["cpu"] <= budget
        verdict["outcome"] = "answered" if verdict["passed"] else "over budget"
    return verdict


def _test_result(entry):
    budget = f"{entry['budget_ratio']:g} x the calibration solver's {entry['calibration_cpu']:.4f} s"
    position, outcome = entry["position"], entry["outcome"]
    flags, message = [], ""
    if outcome == "not run":
        message = "not run: the solver did not build or link"
    elif outcome == "wrong answer":
        message = (f"solving {position} from an empty memo gave a wrong answer (the P and the N "
                   "question must both be right)")
    elif outcome == "over budget":
        flags.append("over_budget")
        message = (f"solving {position} from an empty memo was stopped at its CPU budget ({budget}); "
                   "is every answer memoized, by both grundy_is_p_position and "
                   "grundy_is_n_position? (handout: handouts/grundy-lab.html#task-2-timing)")
    elif outcome in ("crashed", "timed out", "malformed", "not started", "internal error",
                     "probe failed"):
        flags.append("timeout" if outcome == "timed out" else "crash")
        message = f"solving {position}: {entry.get('message') or outcome}"
    status = "passed" if entry["passed"] else "failed"
    if entry["passed"]:
        message = (f"{position}: {entry['student_cpu']:.4f} s of CPU, {entry['ratio']} x the "
                   "calibration solver's")
    timed = next(t.number for t in config.LAB.tasks if t.timed)
    return TestResult("timing::" + entry["name"], timed, status, message, kind="timing", flags=flags)


def under_memo_cause(timing_tests, suite_results):
    """Opens each failed timing check's message with the memo mistake that
    a public test of the timed task named, as `make test`'s timing tests
    do (test_task2.c): the probe's fresh student process keeps no record a
    trusted program judges, but the suite's runner read the memo's record
    of the same code from its student process (OP_MEMO_RECORD_READ,
    grader/boundary/README.md, "The memo's record") and named the cause
    from the oracle (tests/public/support/memo_evidence.c). The message is
    then "CAUSE. What the test saw: <the timing check's own words>", keyed
    by the cause as the suite's (reports.cause_key), so the feedback shows
    the cause once and lists the timing checks among its tests. Words only:
    no point moves. A hidden test's cause is not used (its message is not
    shown). Only a check that ran and failed ("solving {position}...") is
    told so: one that could not run says why, in its own words."""
    timed = next((t.number for t in config.LAB.tasks if t.timed), None)
    cause = next((t.message.split(TEST_SAW, 1)[0] for t in suite_results
                  if t.task == timed and not t.hidden and not t.passed and TEST_SAW in t.message), None)
    if not cause:
        return
    for t in timing_tests:
        if t.kind == "timing" and not t.passed and t.message.startswith("solving "):
            t.message = cause + TEST_SAW + t.message

