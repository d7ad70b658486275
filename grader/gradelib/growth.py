"""The outside check behind the memory points: does the submission give
its memory back?

Valgrind (memcheck.py) runs inside the student process, so code there can
silence it (client requests that call a leaked block freed, or turn error
reports off), and the live-block counts the suites read are kept there
too. So a memory test passes only when this check passes as well
(pipeline.with_growth): the trusted growth probe (grader/boundary/growth_probe.c)
repeats a workload hundreds of times in one student process and reads its
resident memory from the kernel after a warm-up and at the end. Freed
memory is reused, so honest code stays flat; a leak grows with every
round, whatever the process says about itself, and wherever it keeps the
blocks: resident pages, not the virtual or data size, so blocks taken from
a static array (mapped whole at the start, hence no growth of the data
size) count as soon as they are written.

growth::taskN runs its task's workload (lab.ini: position for Task 0,
solver for Tasks 1-2, which share it, and one generated from the task's
functions for the others) on the task's program. They carry no points of
their own.

memo::taskN (memo_check; lab.ini [memo]) carries the points that tests
reading a memo size or an expansion count cannot (they earn nothing):
is there a memo of positions, and does grundy_memo_clear empty it? The
growth probe's memo workload solves a few single heaps drawn from the seed
in a fresh student process from an empty memo, again without a clear, and
MEMO_REFILLS times more after a clear (growth_probe.c), and reads resident
memory and CPU time from the kernel after each round. It passes when the
memory grew with the positions solved (at least [memo] min_growth_kib), the
repeat cost little next to the first round (answered from the memo), the
round after a clear cost about as much as the first (the clear emptied
it), and a cleared memo filled again over and over did not keep growing
(its memory was given back and reused). That last one is the allocator's
as much as the memo's: after a clear and a refill glibc keeps more than
the memo holds (its large tables move from mmap to the heap, the top of
the heap is trimmed and taken again, in steps of the largest blocks), up
to most of the first round's growth, and more for a small memo, but only
up to a bound; a clear that leaks grows every refill, without bound. So
the least memory the last refills held (settled_bytes, after 12 refills:
a clear that leaks L a refill holds about 10 L more than after the first
round) may exceed the first round's by at most MEMO_REGROWTH_AT_MOST times
the first round's growth plus MEMO_REGROWTH_SLACK_BYTES. It runs
only when the task's timing checks all passed: a solver too slow for them
would spend the check's time limits for nothing (and a grading must end
within its cap). A solver
with no memo of positions (nim-values XORed, however fast) does not grow,
whatever its grundy_memo_size says.

One draw could be mimicked (issue 26: root positions in a table, 768 KiB
of static memory touched once, a fixed spin per cold question passed it).
So the check also solves smaller draws ([memo] smaller), each in a fresh
student process, and asks memory and CPU to follow the number of
positions each draw reaches, which the probe takes from the oracle:
resident memory must grow by MEMO_SCALE_BYTES_PER_POSITION for each
further position from a smaller draw to the main one, and the first
round's CPU time must rise at least MEMO_SCALE_CPU_AT_LEAST times as fast
as the positions (scaling_problems). Ballast sized to the reachable count
(a student can count positions too) passes what is measured from outside;
what a memo's size is not can still show, so a memo of fewer than 30 or
more than 2 KiB bytes a position is flagged memo_suspect for the staff
(feedback and class report), with no points moved on it.
"""

import random
import time

from . import build, config, probes, sandbox
from .results import TestResult

# position, solver, recursion (the solver with the given memo table
# forgotten, as Task 1's tests run it), or (growth = api in lab.ini) the
# task's own, generated.
WORKLOAD_OF_TASK = {t.number: t.suite if t.growth == "api" else t.growth for t in config.LAB.tasks}


def _probe(mode, scratch, program, workload, seed, share=1):
    """One workload's verdict. share: how many workloads are still to run
    in this grading; each may take at most that share of the time left
    before the grading's cap, so one task's workload that never ends (a
    recursion too slow to finish) cannot take the time of another task's:
    one bug, one penalty."""
    wall = config.GROWTH_WALL_SECONDS
    if mode.deadline is not None and share > 1:
        left = (mode.deadline - time.monotonic()) / share
        wall = max(1.0, min(wall, left / (mode.pace or 1.0)))
    verdict, _ = probes.run(mode, scratch, [build.growth_probe(scratch), program, workload, str(seed)],
                            f"growth-{workload}",
                            sandbox.Limits(cpu_seconds=config.GROWTH_WALL_SECONDS, wall_seconds=wall),
                            {"outcome": "probe failed", "message": "the growth probe failed"})
    return verdict


def check(mode, scratch, programs, seed, log):
    """TestResults growth::taskN; programs: {task: student program or None}."""
    verdicts, tests = {}, []
    pending = {(WORKLOAD_OF_TASK[t], programs[t]) for t in config.TASKS if programs.get(t) is not None}
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
            verdicts[key] = _probe(mode, scratch, program, workload, seed, share=len(pending - set(verdicts)))
            log(f"growth {workload}: {verdicts[key]}")
        tests.append(_test_result(test_id, task, workload, verdicts[key]))
    return tests


def _test_result(test_id, task, workload, verdict):
    what = {"position": "building, copying, expanding and freeing positions",
            "solver": "clearing the memo and solving positions",
            "recursion": "solving positions with the memo forgotten (the recursion alone)"}.get(
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


# ---- the memo check ---------------------------------------------------------------------

def memo_positions(seed, low=None, high=None):
    """The heaps the memo check solves (the main draw, or one of [memo]
    smaller's ranges), the same for the same seed."""
    spec = config.LAB.memo
    if low is None:
        rng = random.Random(f"memo:{seed}")
        return sorted(rng.sample(range(spec.low, spec.high + 1), spec.positions))
    rng = random.Random(f"memo:{seed}:{low}-{high}")
    return sorted(rng.sample(range(low, high + 1), spec.positions))


def _memo_probe(mode, scratch, program, heaps, name):
    return probes.run(mode, scratch, [build.growth_probe(scratch), program, "memo", *map(str, heaps)],
                      name, sandbox.Limits(cpu_seconds=config.MEMO_WALL_SECONDS,
                                           wall_seconds=config.MEMO_WALL_SECONDS),
                      {"outcome": "probe failed", "message": "the memo probe failed"})[0]


def memo_check(mode, scratch, program, seed, log, timing_tests=()):
    """[memo::taskN] for lab.ini's [memo] task, or [] when the lab has none;
    timing_tests: the timing checks' results (the check runs only when all
    of the task's passed and earn their points)."""
    spec = config.LAB.memo
    if spec is None or spec.task not in config.TASKS:
        return []
    test_id = f"memo::task{spec.task}"
    timed = [t for t in timing_tests if t.task == spec.task]
    if timed and not all(t.passed and not t.withheld for t in timed):
        return [TestResult(test_id, spec.task, "not_run", "not run: the timing checks did not all pass "
                           "(a solver too slow for them would spend this check's time for nothing)",
                           kind="memory")]
    if program is None:
        return [TestResult(test_id, spec.task, "not_run", "not run: this task's code did not build "
                           "or link", kind="memory")]
    heaps = memo_positions(seed)
    verdict = _memo_probe(mode, scratch, program, heaps, "memo")
    log(f"memo {heaps}: {verdict}")
    smaller = []
    for low, high in spec.smaller:
        if verdict.get("outcome") != "measured":
            break
        draw = memo_positions(seed, low, high)
        smaller.append((draw, _memo_probe(mode, scratch, program, draw, f"memo-{low}-{high}")))
        log(f"memo {draw}: {smaller[-1][1]}")
    return [memo_result(test_id, spec, heaps, verdict, smaller)]


def _heaps_text(heaps):
    return " and ".join(", ".join(f"{{{h}}}" for h in heaps).rsplit(", ", 1))


def scaling_problems(heaps, verdict, smaller):
    """Sentences for what does not follow the positions reached, from each
    smaller draw to the main one (verdict); [] when all scale. smaller:
    [(heaps, verdict)], each measured in a fresh student process."""
    problems = []
    reached = verdict.get("reachable", 0)
    grew, first = verdict["first_bytes"] - verdict["start_bytes"], verdict["first_cpu"]
    for draw, small in smaller:
        what = _heaps_text(draw)
        if small.get("outcome") != "measured":
            problems.append(f"the memo check could not solve {what} to the end "
                            f"({small.get('message') or small.get('outcome')})")
            continue
        s_reached, s_first = small.get("reachable", 0), small["first_cpu"]
        s_grew = small["first_bytes"] - small["start_bytes"]
        if not s_reached or reached <= s_reached:
            continue
        wanted = config.MEMO_SCALE_BYTES_PER_POSITION * (reached - s_reached)
        if grew - s_grew < wanted:
            problems.append(
                f"your program's memory does not follow the positions it solves: {s_grew // 1024} KiB "
                f"for {what} ({s_reached:,} positions reachable), {grew // 1024} KiB for "
                f"{_heaps_text(heaps)} ({reached:,}); a memo of positions grows with every position "
                f"it stores (at least {wanted // 1024} KiB more here)")
        want_ratio = config.MEMO_SCALE_CPU_AT_LEAST * reached / s_reached
        if s_first > 0 and first / s_first < want_ratio:
            problems.append(
                f"your solver's CPU time does not follow the positions it solves: {s_first:.4f} s for "
                f"{what} ({s_reached:,} positions reachable), {first:.4f} s for {_heaps_text(heaps)} "
                f"({reached:,}); a search that expands each position once costs more with more "
                f"positions (at least {want_ratio:.1f} times as much here)")
    return problems


def memo_suspect(verdict, smaller):
    """Whether a memo's memory per position reached lies outside what a memo
    of positions takes (config.MEMO_PLAUSIBLE_BYTES_PER_POSITION), on any
    draw: a flag for the staff, never points."""
    low, high = config.MEMO_PLAUSIBLE_BYTES_PER_POSITION
    for v in [verdict] + [v for _, v in smaller]:
        if v.get("outcome") == "measured" and v.get("reachable"):
            per = (v["first_bytes"] - v["start_bytes"]) / v["reachable"]
            if not low <= per <= high:
                return True
    return False


MEMO_CLEAR_CAUSE = "grundy_memo_clear must free the memo's positions, not only forget them"


def memo_growth_after_leak(memo_tests, memory):
    """A memo check failed by growth across refills, in a program where
    valgrind found a leak in an earlier task's tests (memory: the memory
    check's entries; Task 1's run with the memo forgotten, so the leak is
    the search's, not the memo's), is told under that leak first: every
    refill solves again, so a leak of the search grows the memory as a
    clear that frees nothing would. Words only: the verdict stays the memo
    check's."""
    for test in memo_tests:
        leaks = [f for entry in memory if entry["task"] < test.task for f in entry["findings"]
                 if "Leak" in f["kind"]]
        if test.passed or not leaks or "leak" not in test.flags or MEMO_CLEAR_CAUSE not in test.message:
            continue
        first = leaks[0]
        test.message = test.message.replace(
            MEMO_CLEAR_CAUSE,
            f"but valgrind found a leak in your program ({first['file']}:{first['line']} in "
            f"{first['function']}: {first['what']}), and every refill solves again and leaks again, "
            "which can be all of this growth: fix that leak first (see the memory checks); if the "
            f"growth stays, {MEMO_CLEAR_CAUSE}")


def memo_result(test_id, spec, heaps, verdict, smaller=()):
    """The memo check's verdict from the probe's figures (all the kernel's)."""
    what = _heaps_text(heaps)
    if verdict.get("outcome") != "measured":
        return TestResult(test_id, spec.task, "failed", f"the memo check could not run to the end "
                          f"({verdict.get('message') or verdict.get('outcome')}), so it cannot say "
                          "your solver has a memo", kind="memory")
    grew = verdict["first_bytes"] - verdict["start_bytes"]
    regrew = verdict["settled_bytes"] - verdict["first_bytes"]
    regrowth_limit = config.MEMO_REGROWTH_AT_MOST * max(grew, 0) + config.MEMO_REGROWTH_SLACK_BYTES
    leaks = regrew > regrowth_limit
    first, repeat, again = verdict["first_cpu"], verdict["repeat_cpu"], verdict["again_cpu"]
    figures = (f"memory grew {grew // 1024} KiB solving {what} from an empty memo; CPU {first:.4f} s, "
               f"{repeat:.4f} s asked again, {again:.4f} s after grundy_memo_clear")
    problems = []
    if grew < spec.min_growth_bytes:
        problems.append(f"your program's memory grew by {grew // 1024} KiB while it solved {what} from "
                        f"an empty memo (a memo of the thousands of positions they reach takes at "
                        f"least {spec.min_growth_bytes // 1024} KiB): is every position it answers "
                        "stored in the memo?")
    if repeat > config.MEMO_REPEAT_CPU_AT_MOST * first:
        problems.append(f"asking the same questions again without a clear cost {repeat:.4f} s of CPU, "
                        f"against {first:.4f} s the first time: answers should come from the memo")
    if again < config.MEMO_AGAIN_CPU_AT_LEAST * first:
        problems.append(f"after grundy_memo_clear the same questions cost only {again:.4f} s of CPU "
                        f"(the first time: {first:.4f} s): the clear did not empty the memo")
    if leaks:
        problems.append(f"clearing and refilling the memo {verdict.get('refills', 'many')} times kept "
                        f"growing your program's memory: after the last refills it held {regrew // 1024} "
                        f"KiB more than after the first fill, which grew it by {grew // 1024} KiB (a clear "
                        f"that gives the memo's memory back stays within {int(regrowth_limit) // 1024} KiB): "
                        + MEMO_CLEAR_CAUSE)
    problems += scaling_problems(heaps, verdict, smaller)
    if verdict.get("reachable"):
        figures += (f"; {verdict['reachable']:,} positions reachable, "
                    f"{grew / verdict['reachable']:.0f} bytes each")
    for draw, small in smaller:
        if small.get("outcome") == "measured" and small.get("reachable"):
            figures += (f"; {_heaps_text(draw)}: {(small['first_bytes'] - small['start_bytes']) // 1024} "
                        f"KiB and {small['first_cpu']:.4f} s for {small['reachable']:,} positions")
    flags = ["leak"] if leaks else []
    if problems:
        return TestResult(test_id, spec.task, "failed", "\n".join(problems) + f"\n({figures}; handout: "
                          f"handouts/grundy-lab.html#{config.LAB.task(spec.task).anchor})", kind="memory",
                          flags=flags)
    if memo_suspect(verdict, smaller):
        low, high = config.MEMO_PLAUSIBLE_BYTES_PER_POSITION
        return TestResult(test_id, spec.task, "passed", figures + f". Flagged for the staff: a memo of "
                          f"positions takes {low}-{high} bytes a position, and yours does not",
                          kind="memory", flags=["memo_suspect"])
    return TestResult(test_id, spec.task, "passed", figures, kind="memory")
