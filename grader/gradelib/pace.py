"""The pace of this grading: how much slower than the machine its limits
were tuned on it runs, and the factor every wall-clock limit scales by; and
the memory each student process may take, from the container's.

Why. The wall-clock limits ([limits] in grader/lab.ini, the sandbox's
per-run limits, Criterion's per-test time-outs, the grading's time cap)
were tuned on two free cores. Gradescope gives a container 1/2 vCPU by
default (and nproc counts the host's CPUs): there every process of a
grading runs about 4 times slower in wall-clock time than here, and an
honest submission would be cut off by limits meant for endless loops.

The rule (factor()). Before any code of the submission is compiled or run,
the grader times a fixed reference workload: PACE_COPIES copies at once
(the grader's own parallelism: two test processes side by side) of the
trusted timing probe solving the single heap PACE_HEAP with the
calibration solver (tests/public/support/calibration_solver.c, the lab's
yardstick; no student code), each in the sandbox as every command of the
grading runs. The slowest copy's wall time, measured by the grader's own
clock around the run, over PACE_CPU_SECONDS (that workload's wall time on
one free core of the tuning machine) is the measured slowdown. The CPUs
the grading really has (cgroup.available_cpus: the CFS quota of cgroup v2
or v1, or the affinity mask) give a floor: PACE_CORES / CPUs, since two
busy processes on 1/2 CPU run at most at 1/4 of a core's speed whatever a
lucky measurement says. The factor is the larger of the two, at least 1
and at most PACE_CAP. Every wall-clock limit of the grading is multiplied
by it: each sandboxed run's (sandbox.run), each call into a student
process (GRADER_CALL_SECONDS) and the proxy's quit grace
(GRADER_TIME_SCALE), Criterion's per-test time-out (native and under
valgrind), and the grading's time cap, which is still never more than
GRADING_CAP_CEILING seconds (so a grading ends within Gradescope's own
time-out whatever the factor).

What is not scaled: CPU-time figures. The timing checks compare the
submission's CPU time with the calibration solver's, both measured by the
kernel in the same grading (timing.py): a slower or shared CPU slows both
alike, so their ratio, and the verdict, stay fair without a factor.
RLIMIT_CPU backstops stay as they are (CPU seconds do not stretch when the
CPU is shared).

Can a student fake it? The factor only ever loosens wall-clock limits,
never a verdict, so the gain of a larger one is at most more time for a
slow or looping submission (up to the capped grading time), and a smaller
one gains nothing. Its inputs are out of the submission's reach: the
workload is the grader's own program on a fixed position, run and timed
before the submission is even compiled (no student process exists yet,
and on Gradescope each grading has a container of its own, so no earlier
submission's process is left to slow it; as root each grading's sandbox
uid starts with none, sandbox.py); its wall time is the grader's clock,
not a figure the probe reports; and the CPU quota is read by the grader
from the kernel's files. What remains is load from outside the grading
(another grading beside it with grade-all -j, other jobs on the machine):
that slows the grading too, so a larger factor is then right, and PACE_CAP
bounds it. No fixture can attack it: no submission code runs before it.

A known limit: the factor is measured once, before the grading (or, with
GRUNDY_PACE, before a batch). Load that arrives later stretches the
grading's wall time but not its limits, so an honest submission near the
cap (the slow_map fixture) can be cut off on a machine that became busy
mid-grading: its grade then depends on the machine, not on its code. The
fix would count the cap in the grading's CPU time (the cgroup's, as root)
with the ceiling as the only wall bound; not built. Grade on a machine
whose load does not change (Gradescope's own container; grade-all -j at
most the cores), or regrade what reached the cap.

Staff override: GRUNDY_PACE=FACTOR in the grader's own environment (which
no submission reaches) skips the workload and uses FACTOR (still within
[1, PACE_CAP]): for a run that must not depend on the machine's load, such
as comparing grading times, or check-fixtures' gradings side by side,
which would otherwise each see the other's load (a factor near 2) and
wait twice as long on the hostile fixtures' endless loops.

Memory. A student process's address space (RLIMIT_AS, lab.ini's
student_address_space_mib) is lowered so that STUDENT_PROCESSES_AT_ONCE of
them (two test processes of two runners side by side), beside
MEMORY_RESERVE_BYTES for the grader, its runners and the compiler, fit in
the memory the container has (cgroup.memory_limit: memory.max,
memory.limit_in_bytes, MemTotal), never below
STUDENT_ADDRESS_SPACE_FLOOR_MIB. A memory hog then fails its own
allocations, and where the kernel's OOM killer still has to choose (under
valgrind, which has no RLIMIT_AS), every sandboxed process is its first
choice (sandbox.py: oom_score_adj 1000), never the grader.
"""

import concurrent.futures
import dataclasses
import os

from . import build, cgroup, config, sandbox


@dataclasses.dataclass
class Pace:
    factor: float = 1.0
    cpus: float = 0.0
    cpus_from: str = ""
    measured_seconds: float | None = None   # the slowest copy's wall time, or None
    memory_bytes: int | None = None
    memory_from: str = ""
    student_address_space_mib: int = 0
    overridden: bool = False                 # set by GRUNDY_PACE, not measured

    def describe(self):
        measured = (f"the reference workload took {self.measured_seconds:.2f} s (tuned: "
                    f"{config.PACE_CPU_SECONDS:g} s)" if self.measured_seconds is not None
                    else "set by GRUNDY_PACE, not measured" if self.overridden
                    else "the reference workload could not be timed")
        memory = (f"{self.memory_bytes >> 20} MiB of memory ({self.memory_from})"
                  if self.memory_bytes is not None else f"memory unknown ({self.memory_from})")
        return (f"wall-clock limits x{self.factor:.2f}: {measured}; {self.cpus:g} CPUs "
                f"({self.cpus_from}); {memory}, {self.student_address_space_mib} MiB of address space "
                "per student process")


def factor(measured_seconds, cpus):
    """The factor of every wall-clock limit (see the header): the measured
    slowdown and the CPU quota's floor, the larger, within [1, PACE_CAP]."""
    slowdown = measured_seconds / config.PACE_CPU_SECONDS if measured_seconds is not None else 1.0
    floor = config.PACE_CORES / cpus if cpus and cpus > 0 else 1.0
    return round(min(config.PACE_CAP, max(1.0, slowdown, floor)), 2)


def student_address_space_mib(memory_bytes):
    """RLIMIT_AS of one student process, in MiB (see the header)."""
    tuned = int(config.LIMITS["student_address_space_mib"])
    if memory_bytes is None:
        return tuned
    share = (memory_bytes - config.MEMORY_RESERVE_BYTES) // config.STUDENT_PROCESSES_AT_ONCE >> 20
    return int(max(config.STUDENT_ADDRESS_SPACE_FLOOR_MIB, min(tuned, share)))


def override(environ=os.environ):
    """The factor GRUNDY_PACE sets (see the header), or None; bad values are
    refused loudly rather than ignored."""
    text = environ.get("GRUNDY_PACE", "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise SystemExit("grade: GRUNDY_PACE must be a number (a factor of the wall-clock limits), "
                         f"not {text!r}")
    if not value > 0:
        raise SystemExit(f"grade: GRUNDY_PACE must be above 0, not {text!r}")
    return round(min(config.PACE_CAP, max(1.0, value)), 2)


def _workload(mode, scratch, copy):
    return sandbox.run(mode, [build.timing_probe(scratch), "--calibrate", "1", str(config.PACE_HEAP)],
                       cwd=scratch, readable=build.view(scratch),
                       limits=sandbox.Limits(cpu_seconds=config.LIMITS["pace_probe_seconds"],
                                             wall_seconds=config.LIMITS["pace_probe_seconds"]))


def measure(mode, scratch, log):
    """Times the reference workload (scratch holds the harness, and nothing
    of the submission has run) and reads the CPUs and memory; returns the
    Pace, which the caller applies to the mode (sandbox.Mode.pace)."""
    cpus, cpus_from = cgroup.available_cpus()
    memory, memory_from = cgroup.memory_limit()
    fixed = override()
    if fixed is not None:
        result = Pace(fixed, cpus, cpus_from, None, memory, memory_from, student_address_space_mib(memory),
                      overridden=True)
        log("pace: " + result.describe())
        return result
    with concurrent.futures.ThreadPoolExecutor(max_workers=config.PACE_COPIES) as pool:
        runs = list(pool.map(lambda copy: _workload(mode, scratch, copy), range(config.PACE_COPIES)))
    measured = max(r.wall_seconds for r in runs) if all(r.ok and '"agrees": true' in r.stdout
                                                        for r in runs) else None
    if measured is None:
        failed = "; ".join(f"{r.describe()} {r.stderr[:200]}" for r in runs if not r.ok)
        log(f"pace: the reference workload failed: {failed} (the CPU quota alone sets the factor)")
    result = Pace(factor(measured, cpus), cpus, cpus_from, measured, memory, memory_from,
                  student_address_space_mib(memory))
    log("pace: " + result.describe())
    return result


def measured_alone():
    """The factor measured now, in a scratch of its own, as a grading
    would measure it before its first step; None when the workload could
    not be timed. For a batch of gradings side by side (make demo,
    check-fixtures): measured once before they start and given to each
    with GRUNDY_PACE, since two gradings would each time the workload
    beside the other and stretch every limit by about 2, so the
    submissions that loop wait twice as long for the same verdict. Load
    from outside the batch is in this measurement as in theirs."""
    from . import scratch as scratch_dir   # the scratch module imports nothing of this one
    space = scratch_dir.Scratch(lambda message: None)
    try:
        hidden = [p for p in (config.REPO, "/root", "/home")
                  if os.path.isdir(p) and not space.path.startswith(p + os.sep)]
        mode = sandbox.detect(hidden, space.path)
        build.copy_harness(space.path, mode)
        found = measure(mode, space.path, lambda message: None)
        return found.factor if found.measured_seconds is not None else None
    finally:
        space.close()

