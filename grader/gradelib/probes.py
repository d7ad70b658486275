"""Running one of the grader's trusted probes (grader/boundary/timing_probe.c,
growth_probe.c) and reading its verdict.

A probe drives a student program through the proxy outside any test
framework and prints its verdict as one JSON object on the last line of its
stdout (grader/boundary/probe.h); the student process prints to stderr, so
it cannot write that line.
"""

import json
import math
import os

from . import build, sandbox

# The types of the fields the probes' verdicts carry (probe.h); a verdict
# holding one of another type is malformed, never half-read.
FIELD_TYPES = {
    "outcome": str, "message": str, "stopped_by": str, "correct": bool, "agrees": bool,
    "cpu": (int, float), "growth_bytes": int, "rounds": int, "warm_rounds": int,
    "largest": int, "expansions": int, "warm_bytes": int, "final_bytes": int,
    # the memo workload's (growth_probe.c memo)
    "positions": int, "refills": int, "start_bytes": int, "first_bytes": int, "repeat_bytes": int,
    "again_bytes": int, "settling_bytes": int, "settled_bytes": int,
    "first_cpu": (int, float), "repeat_cpu": (int, float), "again_cpu": (int, float),
}
# What an outcome needs to be read at all: one of these sets of fields
# (the growth workloads', or the memo workload's).
REQUIRED = {"answered": [("cpu",)],
            "measured": [("growth_bytes", "rounds", "warm_rounds"),
                         ("start_bytes", "first_bytes", "settling_bytes", "settled_bytes",
                          "first_cpu", "repeat_cpu", "again_cpu")]}
MESSAGE_CAP = 2000


def run(mode, scratch, argv, name, limits, failure):
    """(verdict, RunResult) of the probe command argv, run in the sandbox in
    scratch/runs/NAME. A probe that failed, or printed no JSON object, gets
    the verdict `failure` with the run's description after its message."""
    run_dir = os.path.join(scratch, "runs", name)
    os.makedirs(run_dir, exist_ok=True)
    result = sandbox.run(mode, argv, cwd=run_dir, readable=build.view(scratch, *argv), writable=[run_dir], limits=limits,
                         students=True)
    verdict = parse_verdict(result.stdout, result.ok)
    if verdict is None:
        verdict = dict(failure, message=f"{failure['message']}: {result.describe()}")
    return verdict, result


def parse_verdict(stdout, ok=True):
    """The verdict on the last line of a probe's stdout, or None when the
    run failed or that line is not a well-typed verdict (never raises)."""
    if not ok or not isinstance(stdout, str):
        return None
    lines = stdout.strip().splitlines()
    try:
        verdict = json.loads(lines[-1]) if lines else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(verdict, dict):
        return None
    for name, value in verdict.items():
        wanted = FIELD_TYPES.get(name)
        if value is None or wanted is None:
            continue
        if isinstance(value, bool) and wanted is not bool:
            return None     # JSON true is no number
        if not isinstance(value, wanted) or (isinstance(value, float) and not math.isfinite(value)):
            return None
    needs = REQUIRED.get(verdict.get("outcome"))
    if needs is not None and not any(
            all(isinstance(verdict.get(name), FIELD_TYPES[name]) and not isinstance(verdict.get(name), bool)
                for name in fields) for fields in needs):
        return None
    if isinstance(verdict.get("message"), str):
        verdict["message"] = verdict["message"][:MESSAGE_CAP]
    return verdict
