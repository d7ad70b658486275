#!/usr/bin/env python3
"""bench/grading_times.py - how long grading takes, and whether a hostile
submission slows the grading beside it. The grading section of `make
bench` (bench/run); also runs on its own.

usage: bench/grading_times.py [--fixtures NAME,...] [--hostile NAME,...] [--json FILE]

1. Alone: grader/grade on the model solution (REFERENCE_RUNS times: the
   median counts) and on each named fixture, one grading at a time, wall
   time end to end (targets, issue 26: the model solution within 10 s and
   with its full score every time; the slowest hostile or buggy fixture,
   a memo keyed by address among them, within 60 s). With each, the CPU
   time of the grading and everything it started (a cpuacct cgroup of its
   own, where cgroup v1's cpuacct is mounted and we are root; else not
   measured): the figure that other jobs on a shared machine change least.
2. Neighbours: two gradings at once, as `grade-all -j 2` runs them. The
   model solution is graded beside another copy of itself (the baseline:
   two honest gradings share the two cores), then beside each hostile
   fixture. Its score must not change, and its suites phase and its
   timing checks (the student CPU time the trusted probe measured, summed
   over the positions) must not be more than 1.5x the baseline's. The
   comparison is with an honest neighbour, not with an empty machine: an
   honest neighbour takes its share of the two cores too, and the claim is
   that a hostile one takes no more than that.
Hostile fixtures whose tricks the object checks would stop are graded
with --skip-object-checks, so the run-time defences are what is measured.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from cpu_clock import CpuClock

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
GRADE = os.path.join(REPO, "grader", "grade")
MATERIALIZE = os.path.join(REPO, "tests", "staff", "fixtures", "materialize")
SEED = 424242
# The slowest submissions the fixtures hold: loops, hogs, floods, a slow
# solver (one slow under coverage only), and plain bugs whose tests might each run to a time limit (a memo
# keyed by address: issue 26 timed one at 95 s).
ALONE = ["unmemoized", "gamed_memo", "infinite_loop", "memory_hog", "output_flood",
         "stack_overflow", "leak", "lingering_fini", "partial_reply", "exec_escape",
         "forged_valgrind_xml", "disk_filler", "memo_by_address", "slow_memo", "sigprof_loop",
         "fork_storm", "valgrind_dodge", "coverage_self_detect"]
# Neighbours: the ones that try to take more than their share of the machine.
HOSTILE = ["infinite_loop", "fork_storm", "memory_hog", "output_flood", "writes_outside"]
SKIP_CHECKS = {"fork_storm", "writes_outside", "sigprof_loop", "early_exit", "lingering_fini",
               "partial_reply", "exec_escape", "forged_valgrind_xml", "disk_filler"}
HONEST_LIMIT, ANY_LIMIT, NEIGHBOUR_LIMIT = 10.0, 60.0, 1.5
REFERENCE_RUNS = 3          # the model solution's wall time is the median of these


def full_score():
    """The model solution's score: every point of the term's tasks."""
    sys.path.insert(0, os.path.join(REPO, "grader"))
    from gradelib import config   # noqa: E402 - the grader's own definition of the term
    return float(sum(task.points for task in config.LAB.tasks))


def materialize(name, into):
    path = os.path.join(into, name)
    if name == "reference":
        os.makedirs(path)
        for f in ("grundy_position.c", "grundy_solver.c"):
            with open(os.path.join(REPO, "reference", f), "rb") as src, open(os.path.join(path, f), "wb") as dst:
                dst.write(src.read())
    else:
        subprocess.run([MATERIALIZE, os.path.join(REPO, "tests", "staff", "fixtures", name), path],
                       check=True, capture_output=True)
    return path


def start(submission, out, name, clock=None):
    argv = [GRADE, submission, "--out", out, "--seed", str(SEED)]
    if name in SKIP_CHECKS:
        argv.append("--skip-object-checks")
    return subprocess.Popen(clock.wrap(argv) if clock else argv, cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def figures(out):
    with open(os.path.join(out, "results.json"), encoding="utf-8") as handle:
        results = json.load(handle)
    extra = results.get("extra_data", {})
    timing = extra.get("timing") or []
    return {"score": results["score"], "phases": extra.get("phases", {}),
            "timing_cpu": sum(t.get("student_cpu") or 0 for t in timing)}


def graded_once(name, work, tag):
    """{"wall", "cpu", "load", "score", "phases", "timing_cpu"} of one grading alone."""
    submission = materialize(name, work) if not os.path.isdir(os.path.join(work, name)) \
        else os.path.join(work, name)
    out = os.path.join(work, f"out-alone-{name}-{tag}")
    clock = CpuClock(f"{name}-{tag}")
    load = open("/proc/loadavg", encoding="utf-8").read().split()[0]
    began = time.monotonic()
    start(submission, out, name, clock).wait()
    row = {"wall": round(time.monotonic() - began, 1), "cpu": clock.seconds(), "load": load, **figures(out)}
    clock.close()
    print(f"alone      {name:<16} {row['wall']:6.1f} s  CPU {row['cpu']} s  (load {load})  score {row['score']}",
          flush=True)
    return row


def graded_alone(names, work):
    """The model solution REFERENCE_RUNS times (its row is the median run's,
    with every run's wall and score), then each fixture once."""
    runs = sorted((graded_once("reference", work, i) for i in range(REFERENCE_RUNS)), key=lambda r: r["wall"])
    rows = {"reference": dict(runs[len(runs) // 2], runs=[{"wall": r["wall"], "cpu": r["cpu"], "load": r["load"],
                                                           "score": r["score"]} for r in runs])}
    for name in names:
        if name != "reference":
            rows[name] = graded_once(name, work, 0)
    return rows


def graded_beside(neighbour, work, tag):
    reference = os.path.join(work, "reference")
    other = os.path.join(work, neighbour) if os.path.isdir(os.path.join(work, neighbour)) \
        else materialize(neighbour, work)
    out_ref, out_other = os.path.join(work, f"out-{tag}-ref"), os.path.join(work, f"out-{tag}-other")
    began = time.monotonic()
    first = start(reference, out_ref, "reference")
    second = start(other, out_other, neighbour)
    first.wait()
    wall = time.monotonic() - began
    second.wait()
    return {"wall": round(wall, 1), **figures(out_ref)}


def measure(fixtures=ALONE, hostile=HOSTILE):
    """The figures: {"alone", "baseline", "neighbours", "honest_ok", "any_ok",
    "neighbours_ok"}. Prints a line per grading as it goes."""
    subprocess.run(["make", "--no-print-directory", "-s", "grader-harness"], cwd=REPO, check=True)
    with tempfile.TemporaryDirectory(prefix="grading-times.") as work:
        os.chmod(work, 0o755)   # the sandbox user reads the submissions
        materialize("reference", work)
        alone = graded_alone(["reference"] + list(fixtures), work)
        baseline = graded_beside("reference", work, "baseline")
        print(f"beside     {'reference':<16} suites {baseline['phases'].get('suites')} s, timing CPU "
              f"{baseline['timing_cpu']:.3f} s (the baseline)", flush=True)
        neighbours = {}
        for name in hostile:
            row = graded_beside(name, work, name)
            row["suites_ratio"] = round(row["phases"].get("suites", 0) / max(baseline["phases"].get("suites", 1e-9), 1e-9), 2)
            row["timing_ratio"] = round(row["timing_cpu"] / max(baseline["timing_cpu"], 1e-9), 2)
            row["ok"] = (row["score"] == baseline["score"] and row["suites_ratio"] <= NEIGHBOUR_LIMIT
                         and row["timing_ratio"] <= NEIGHBOUR_LIMIT)
            neighbours[name] = row
            print(f"beside     {name:<16} reference's score {row['score']}, suites x{row['suites_ratio']}, "
                  f"timing CPU x{row['timing_ratio']} -> {'ok' if row['ok'] else 'NOT MET'}", flush=True)
    full = full_score()
    fixtures_only = {n: r for n, r in alone.items() if n != "reference"}
    return {"alone": alone, "baseline": baseline, "neighbours": neighbours, "full_score": full,
            "honest_ok": alone["reference"]["wall"] <= HONEST_LIMIT,
            "any_ok": not fixtures_only or max(r["wall"] for r in fixtures_only.values()) <= ANY_LIMIT,
            "score_ok": all(r["score"] == full for r in alone["reference"]["runs"])
            and all(r["score"] == full for r in neighbours.values()) and baseline["score"] == full,
            "neighbours_ok": all(r["ok"] for r in neighbours.values())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", default=",".join(ALONE))
    parser.add_argument("--hostile", default=",".join(HOSTILE))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    report = measure([n for n in args.fixtures.split(",") if n], [n for n in args.hostile.split(",") if n])
    alone = report["alone"]
    slowest = max(r["wall"] for n, r in alone.items() if n != "reference") if len(alone) > 1 else 0
    print(f"targets: model solution {alone['reference']['wall']} s, the median of {REFERENCE_RUNS} "
          f"(<= {HONEST_LIMIT}): {'met' if report['honest_ok'] else 'NOT MET'}; its score "
          f"{report['full_score']} every time: {'met' if report['score_ok'] else 'NOT MET'}; slowest "
          f"fixture {slowest} s (<= {ANY_LIMIT}): {'met' if report['any_ok'] else 'NOT MET'}; neighbours: "
          f"{'met' if report['neighbours_ok'] else 'NOT MET'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    return 0 if all(report[k] for k in ("honest_ok", "score_ok", "any_ok", "neighbours_ok")) else 1


if __name__ == "__main__":
    sys.exit(main())
