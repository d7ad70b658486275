"""Running one of the grader's trusted probes (grader/boundary/timing_probe.c,
growth_probe.c) and reading its verdict.

A probe drives a student program through the proxy outside any test
framework and prints its verdict as one JSON object on the last line of its
stdout (grader/boundary/probe.h); the student process prints to stderr, so
it cannot write that line.
"""

import json
import os

from . import sandbox


def run(mode, scratch, argv, name, limits, failure):
    """(verdict, RunResult) of the probe command argv, run in the sandbox in
    scratch/runs/NAME. A probe that failed, or printed no JSON object, gets
    the verdict `failure` with the run's description after its message."""
    run_dir = os.path.join(scratch, "runs", name)
    os.makedirs(run_dir, exist_ok=True)
    result = sandbox.run(mode, argv, cwd=run_dir, readable=[scratch], writable=[run_dir], limits=limits)
    try:
        verdict = json.loads(result.stdout.strip().splitlines()[-1])
        if not isinstance(verdict, dict) or not result.ok:
            raise ValueError
    except (ValueError, IndexError):
        verdict = dict(failure, message=f"{failure['message']}: {result.describe()}")
    return verdict, result
