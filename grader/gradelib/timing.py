"""The grader's timing checks: the submission against the reference solution.

Run serially, after every other test, so nothing else of the grader's
competes for the CPU. For each timed position the reference model solution
runs REFERENCE_RUNS times (the fastest counts), then the submission runs
with a CPU budget of TIMING_BUDGET_RATIO times that; the probe arms a CPU
timer, so an over-budget solver is stopped, and a second run is made only
when the first came close to the budget. CPU time, not wall time, is
compared, and both come from the same machine in the same minute: the
ratio is what is reported and graded. The probe's CPU rlimit is the
budget rounded up plus one second: only a solver that ignores the timer's
SIGPROF ever reaches it, and it should not get minutes of CPU for that.
"""

import math
import os

from . import config, sandbox


def _probe(mode, scratch, probe, heaps, budget, name):
    run_dir = os.path.join(scratch, "runs", name)
    os.makedirs(run_dir, exist_ok=True)
    wall = 4 * budget + 5 if budget > 0 else 60
    result = sandbox.run(mode, [probe, f"{budget:.6f}", *map(str, heaps)], cwd=run_dir,
                         readable=[scratch], writable=[run_dir],
                         limits=sandbox.Limits(cpu_seconds=math.ceil(budget) + 1 if budget > 0 else 60,
                                               wall_seconds=wall))
    # The answer is the probe's last line: a submission may print (printf is
    # allowed), and its output comes first, through the same stdio buffer;
    # the sandbox keeps the output's tail, so the last line is always whole.
    lines = result.stdout.rstrip("\n").split("\n")
    fields = lines[-1].split()
    if result.ok and len(fields) == 3 and fields[0] in ("P", "N"):
        return {"answer": fields[0] == "P", "cpu": float(fields[1]), "expansions": int(fields[2]),
                "run": result}
    return {"answer": None, "cpu": None, "expansions": None, "run": result}


def position_text(heaps):
    counts = {}
    for h in heaps:
        if h >= 3:
            counts[h] = counts.get(h, 0) + 1
    return "{" + ", ".join(f"{h}={c}" for h, c in sorted(counts.items())) + "}"


def check(mode, scratch, reference_probe, student_probe, log):
    """One entry per timed position (see the reports' "timing" model)."""
    entries = []
    for index, heaps in enumerate(config.TIMED_POSITIONS):
        text = position_text(heaps)
        reference = [_probe(mode, scratch, reference_probe, heaps, 0, f"timing-ref-{index}-{k}")
                     for k in range(config.REFERENCE_RUNS)]
        times = [r["cpu"] for r in reference if r["cpu"] is not None]
        if not times:
            raise RuntimeError(f"the reference solution failed its own timing run on {text}: "
                               f"{reference[0]['run'].describe()} {reference[0]['run'].stderr[:500]}")
        reference_cpu = min(times)
        budget = config.TIMING_BUDGET_RATIO * reference_cpu
        entry = {"position": text, "student_cpu": None, "reference_cpu": round(reference_cpu, 4),
                 "ratio": None, "budget_ratio": config.TIMING_BUDGET_RATIO, "passed": False,
                 "outcome": "not run", "budget_cpu": round(budget, 4)}
        if student_probe is not None:
            best = None
            for attempt in range(2):
                run = _probe(mode, scratch, student_probe, heaps, budget, f"timing-{index}-{attempt}")
                if run["cpu"] is not None and (best is None or best["cpu"] is None or run["cpu"] < best["cpu"]):
                    best = run
                elif best is None:
                    best = run
                if run["cpu"] is None or run["cpu"] < budget / 2:
                    break   # clearly in or clearly out: a second run would not change the verdict
            expected = next(r["answer"] for r in reference if r["cpu"] is not None)
            entry.update(_verdict(best, expected, budget, reference_cpu))
        log(f"timing {text}: reference {reference_cpu:.4f} s, budget {budget:.3f} s, "
            f"submission {entry['student_cpu']} s -> {entry['outcome']}")
        entries.append(entry)
    return entries


def _verdict(run, expected, budget, reference_cpu):
    if run["cpu"] is None:
        outcome = "over budget" if run["run"].signal in (27, 24, 9) or run["run"].timed_out else "crashed"
        return {"outcome": outcome, "passed": False}
    ratio = run["cpu"] / reference_cpu if reference_cpu > 0 else None
    if run["expansions"] == 0:
        return {"outcome": "no search", "passed": False, "student_cpu": round(run["cpu"], 4)}
    if run["answer"] != expected:
        return {"outcome": "wrong answer", "passed": False, "student_cpu": round(run["cpu"], 4),
                "ratio": round(ratio, 2) if ratio else None}
    passed = run["cpu"] <= budget
    return {"outcome": "answered" if passed else "over budget", "passed": passed,
            "student_cpu": round(run["cpu"], 4), "ratio": round(ratio, 2) if ratio else None}
