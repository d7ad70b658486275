"""The challenge leaderboard: the largest single heap a submission's solver
answers from an empty memo within a fixed CPU budget. Not part of the
points: it goes to results.json's leaderboard and the class report.

The budget is the lab's yardstick scaled (grader/lab.ini,
[challenge]): `ratio` times the calibration solver's CPU time on heap
`yardstick_heap`, measured by the trusted probe in the same run, so the
figure compares across machines the way the timing checks do. The trusted
challenge probe (grader/boundary/challenge_probe.c) tries heaps first,
first + 1, ... up to `last`, each from an empty memo, asks both questions
(a constant answer gets nowhere: most single heaps are N), checks every
answer against the oracle and reads the student process's CPU time from
the kernel; it stops at the first heap not answered right within the
budget. Like any leaderboard it rewards precomputation (a table of the
values of single heaps, copied in): it is a figure, never points.
"""

from . import build, config, probes, sandbox, timing


def measure(mode, scratch, program, log):
    """{"largest", "budget_cpu", "calibration_cpu", "stopped_by"}, or None
    when there is no challenge this term or no program to run."""
    spec = config.LAB.challenge
    if spec is None or program is None:
        return None
    calibration = timing.calibrate(mode, scratch, [spec.yardstick_heap], "challenge")
    budget = spec.ratio * calibration
    # A solver stopped at every heap's budget cannot take longer than this.
    wall = 10 + 4 * budget * (spec.last - spec.first + 1)
    verdict, _ = probes.run(
        mode, scratch, [build.challenge_probe(scratch), program, f"{budget:.6f}", str(spec.first),
                        str(spec.last)],
        "challenge", sandbox.Limits(cpu_seconds=int(wall) + 1, wall_seconds=min(wall, config.LIMITS["challenge_seconds"])),
        {"largest": None, "stopped_by": "probe failed", "message": "the challenge probe failed"})
    largest = verdict.get("largest")
    result = {"largest": largest if isinstance(largest, int) and largest >= spec.first else None,
              "budget_cpu": round(budget, 4), "calibration_cpu": round(calibration, 4),
              "stopped_by": str(verdict.get("stopped_by") or "")}
    log(f"challenge: largest heap {result['largest']} within {budget:.3f} s of CPU each "
        f"(stopped by: {result['stopped_by']})")
    return result
