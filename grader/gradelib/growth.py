"""The outside check behind the memory points: does the submission give
its memory back?

Valgrind (memcheck.py) runs inside the student process, so code there can
silence it (client requests that call a leaked block freed, or turn error
reports off), and the live-block counts the suites read are kept there
too. So a memory test earns its points only when this check passes as well
(config.GATES): the trusted growth probe (grader/boundary/growth_probe.c)
repeats a workload hundreds of times in one student process and reads the
size of its data segment from the kernel after a warm-up and at the end.
Freed memory is reused, so honest code stays flat; a leak grows with every
round, whatever the process says about itself.

growth::taskN runs its task's workload (lab.ini: position for Task 0,
solver for Tasks 1-2, which share it, and one generated from the task's
functions for the others) on the task's program. They carry no points of
their own.
"""

from . import build, config, probes, sandbox
from .results import TestResult

# position, solver, or (growth = api in lab.ini) the task's own, generated.
WORKLOAD_OF_TASK = {t.number: t.suite if t.growth == "api" else t.growth for t in config.LAB.tasks}


def _probe(mode, scratch, program, workload, seed):
    verdict, _ = probes.run(mode, scratch, [build.growth_probe(scratch), program, workload, str(seed)],
                            f"growth-{workload}",
                            sandbox.Limits(cpu_seconds=60, wall_seconds=config.GROWTH_WALL_SECONDS),
                            {"outcome": "probe failed", "message": "the growth probe failed"})
    return verdict


def check(mode, scratch, programs, seed, log):
    """TestResults growth::taskN; programs: {task: student program or None}."""
    verdicts, tests = {}, []
    for task in config.TASKS:
        workload, program = WORKLOAD_OF_TASK[task], programs.get(task)
        test_id = f"growth::task{task}"
        if task not in programs:
            tests.append(TestResult(test_id, task, "not_run", "not run", kind="memory"))
            continue
        if program is None:
            tests.append(TestResult(test_id, task, "not_run", "not run: this task's code did not "
                                    "build or link", kind="memory"))
            continue
        key = (workload, program)
        if key not in verdicts:
            verdicts[key] = _probe(mode, scratch, program, workload, seed)
            log(f"growth {workload}: {verdicts[key]}")
        tests.append(_test_result(test_id, task, workload, verdicts[key]))
    return tests


def _test_result(test_id, task, workload, verdict):
    what = {"position": "building, copying, expanding and freeing positions",
            "solver": "clearing the memo and solving positions"}.get(
                workload, f"calling Task {task}'s functions and freeing what they return")
    if verdict.get("outcome") != "measured":
        return TestResult(test_id, task, "failed", f"the memory-growth check could not run to the "
                          f"end ({verdict.get('message') or verdict.get('outcome')}), so it cannot "
                          "say your code gives its memory back", kind="memory")
    growth = verdict["growth_bytes"]
    rounds = verdict["rounds"] - verdict["warm_rounds"]
    if growth > config.GROWTH_LIMIT_BYTES:
        return TestResult(test_id, task, "failed",
                          f"your program's memory grew by {growth // 1024} KiB over {rounds} rounds "
                          f"of {what} that free everything they make: something is never freed "
                          "(run `make memcheck` to see where it was allocated)",
                          kind="memory", flags=["leak"])
    return TestResult(test_id, task, "passed", f"memory flat over {rounds} rounds of {what} "
                      f"(grew {growth} bytes)", kind="memory")
