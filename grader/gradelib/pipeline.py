"""Grades one submission end to end: phases that take and return values.

    build     -> {file: FileBuild}            compile, check, localize
    suites    -> [TestResult]                 prebuilt runners x student programs
    timing    -> (entries, [TestResult])      trusted probe, CPU from the kernel
    memo      -> [TestResult]                 memo::taskN: a memo seen by the kernel
    memory    -> (findings, [TestResult])     valgrind, then the guarded run (the kernel's)
    growth    -> [TestResult]                 memory measured by the kernel, outside (beside memory)
    coverage  -> {line_percent, ...} or None  (beside memory: none of the last four is timed)
    challenge -> {largest heap...} or None    the leaderboard's figure, no points (beside memory)
    score     -> [TestResult] with points     the rubric (not timed)
    reports   -> results.json, junit.xml, feedback

A task's student program (the submission's objects linked with the student
side of the boundary) is no phase of its own: student_program() links it
when a phase first needs it, once per set of objects, and the later phases
reuse it.

Trust: student code runs only in student processes (grader/boundary/),
behind a seccomp filter, with no test, oracle or secret; every verdict is
made on the trusted side from answers checked against the oracle there.
Figures only a student process can report (expansion counts, memo size,
live allocations, the memo's record) earn nothing and gate nothing: a test
that read one is worth 0 points in the rubric, and earns 0 should the
rubric give it more (score below; the model solution's grading in make
check then falls short of full marks, which is how the rule is enforced).
Points rest on checks made from outside: answers checked against the
oracle, CPU time and memory the kernel counts, faults the kernel raises.

Task isolation, monotone in honesty: every check runs a task's own
program (the submission's files of that task and the earlier ones), and a
later task's check that fails there runs again with the public stand-in
map (tests/public/standin/grundy_position.c) in place of the map, passing
when either run passes ("programs" below). So a map's bug costs the map's
task and never the solver's, and no change that makes a submission worse
can raise its score: the rescue run holds nothing of the map. No model
code is ever linked into a student process: a process can read its own
machine code and echo it through its answers (the stand-in is public for
that reason; standin.py flags a Task 0 that copies it).
"""

import concurrent.futures
import datetime
import errno
import itertools
import os
import random
import threading
import time
import traceback
from dataclasses import dataclass, field

from . import build, challenge, checks, config, coverage, crashline, growth, guard, memcheck, pace, reports, rubric, safefs, sandbox, standin, suites, timing
from . import scratch as scratch_dir
from .results import TestResult, flags_of


@dataclass
class Context:
    """What every phase needs: where, how, with which seed; and the log."""
    submission: str
    source_dir: str
    out: str
    scratch: str
    mode: object
    seed: int
    object_checks: bool
    log: object
    scores_only: bool = False   # no coverage, no challenge: they earn no points (grade --scores-only)
    notes: list = field(default_factory=list)
    phases: dict = field(default_factory=dict)
    programs: dict = field(default_factory=dict)   # (objects, static) -> (path or None, why)
    # Phases that overlap (compiles, memory, growth beside coverage) number
    # their logs from one counter, and link programs one at a time.
    log_numbers: object = field(default_factory=lambda: itertools.count(1))
    link_lock: object = field(default_factory=threading.Lock)

    failures: dict = field(default_factory=dict)  # phase -> why it could not run (see guarded)
    copies_standin: bool = False   # the map is mostly the public stand-in's (standin.py)
    rescued: dict = field(default_factory=dict)   # task -> tests that passed only with the stand-ins
    capped: bool = False   # a run was stopped, or not started, at the grading's time cap

    def phase(self, name, function, *args):
        start = time.monotonic()
        self.log(f"== phase {name}")
        try:
            return function(self, *args)
        finally:
            self.phases[name] = round(time.monotonic() - start, 2)
            self.log(f"== phase {name}: {self.phases[name]:.2f} s")

    def guarded(self, name, function, fallback, *args):
        """ctx.phase, where an exception (ENOSPC or EMFILE from what the
        submission did, or a bug of the grader's) ends this phase only: it
        is logged with its traceback, and fallback(why) gives the phase's
        results (its tests failed, with why), so grading goes on."""
        try:
            return self.phase(name, function, *args)
        except Exception as error:  # noqa: BLE001 - the boundary: one phase, never the grading
            deadline = getattr(self.mode, "deadline", None)   # the grading's time cap
            why = cause_of(error, capped=deadline is not None and time.monotonic() >= deadline)
            self.log(f"grade: phase {name} could not run: {why}\n{traceback.format_exc()}")
            self.failures[name] = why
            self.notes.append(f"The {name} step could not run to the end: {why}")
            return fallback(why)


def cause_of(error, capped=False):
    """A sentence for the feedback naming why a phase raised. capped: the
    grading's time cap has passed, so every run the phase started was
    refused or cut short (sandbox.run), and the phase could not have done
    its work whatever it is: the cap is the cause, not the grader."""
    if capped:
        return ("the grading's time cap was reached before this step: the earlier steps, which run "
                "your code, used the whole grading's time")
    number = getattr(error, "errno", None)
    if number in (errno.ENOSPC, errno.EDQUOT):
        return ("the grading ran out of disk space: your program wrote files until the space the "
                "grading gives it was full, so this step had nowhere to write")
    if number in (errno.EMFILE, errno.ENFILE):
        return "the grading ran out of open files (did your program hold many files open?)"
    if number == errno.EFBIG:
        return "a file your program wrote grew beyond the size the grading allows"
    return (f"an internal error of the grader ({type(error).__name__}); the staff's log has the "
            "details, and this part of your grade should be checked by hand")


# ---- build ---------------------------------------------------------------------

def build_phase(ctx):
    builds = build.copy_sources(ctx.source_dir, ctx.scratch)   # the harness is there (grade: pace)
    result = standin.check(os.path.join(ctx.scratch, "src", config.POSITION))
    copied, found = result
    ctx.log(result.line())
    if copied:
        ctx.copies_standin = True
        ctx.notes.append(f"Your {config.POSITION} is, for {found:.0%} of it, the stand-in map the "
                         f"grader links when a map fails Task 0 (tests/public/standin/{config.POSITION}). "
                         "That file is given to make Tasks 1-2 gradable, not as a Task 0 answer: the "
                         "staff are told, and will look at your Task 0 by hand.")
    build.compile_files(ctx.mode, ctx.scratch, builds.values(), config.CFLAGS,
                        os.path.join(ctx.scratch, "obj"), ctx.log, check=ctx.object_checks)
    # For the staff's log (and check-fixtures, which reads it): each file's
    # object-check verdict, "not compiled" when there was no object.
    ctx.log("object checks: " + ", ".join(f"{b.file} {b.object_checks or 'not compiled'}"
                                          for b in builds.values()))
    return builds


def results_of_build_tests(builds):
    """The TestResults build::FILE: whether each file was accepted, and if
    not, why (its compiler errors or the object checks' rejections). Each
    belongs to the first task whose code the file holds."""
    tests = []
    for file in config.SUBMISSION_FILES:
        task = next(t for t in config.TASKS if config.FILE_OF_TASK[t] == file)
        b = builds[file]
        if b.accepted:
            tests.append(TestResult(f"build::{file}", task, "passed", kind="build"))
            continue
        why = "\n".join(b.rejections) or b.errors or "it did not compile"
        flags = [f"rejected:{n}" for n in b.rejected_names]
        if not b.compiled:   # missing, or not compiling: the legend's not_compiled
            flags.append("not_compiled")
        # The first line, which the feedback's summary shows, names the
        # first reason (a compiler's first error); the whole follows.
        lines = why.splitlines() or [why]
        headline = next((line for line in lines if " error: " in line), lines[0])
        message = f"{file} was not accepted: {headline}" + (f"\n{why}" if len(lines) > 1 else "")
        tests.append(TestResult(f"build::{file}", task, "failed", message, kind="build", flags=flags))
    return tests


# ---- programs ------------------------------------------------------------------
#
# A task's own program holds the submission's files of that task and the
# earlier ones (a later task's file, or one not accepted, is the stubs').
# Its rescue program is the same with the public stand-in map in place of
# the submission's map, for every task after the map's. Every check runs
# the own program first; a later task's check that fails there runs again
# on the rescue program and passes when either passes. The rescue program
# holds nothing of the map, and the own program can only lose by a worse
# map, so the grade is monotone in the map; and a map's bug costs the
# map's task, while its speed costs speed::taskN (timing_phase).

def own_files(builds, task):
    """The files a task's own program takes from the submission."""
    return frozenset(f for f in config.SUBMISSION_FILES if builds[f].accepted
                     and min(t for t in config.TASKS if config.FILE_OF_TASK[t] == f) <= task)


def _map_task():
    return min(t for t in config.TASKS if config.FILE_OF_TASK[t] == config.POSITION)


def _objects(ctx, builds, task, rescue):
    mine = own_files(builds, task)
    return tuple(build.standin_object(ctx.scratch, f) if rescue and f == config.POSITION
                 else builds[f].object if f in mine else build.stub_object(ctx.scratch, f)
                 for f in config.SUBMISSION_FILES)


def has_rescue(ctx, builds, task):
    """Whether the task has a rescue program other than its own."""
    return task > _map_task() and _objects(ctx, builds, task, True) != _objects(ctx, builds, task, False)


def student_program(ctx, builds, task, rescue=False, static=True, suffix="", guard=False):
    """(path, "") of a task's own (or rescue) student program, or (None,
    why). Each distinct set of objects is linked once per grading and then
    reused: Tasks 1 and 2 share theirs, and the checks after the suites
    run the suites' programs."""
    own = builds[config.FILE_OF_TASK[task]]
    if not own.accepted:
        return None, f"not run: {own.file} did not build or was rejected (see the build test)"
    key = (_objects(ctx, builds, task, rescue), static, guard)
    with ctx.link_lock:
        return _linked_once(ctx, key, suffix)


def _linked_once(ctx, key, suffix):
    objects, static, guard = key
    if key not in ctx.programs:
        name = f"student_{len(ctx.programs)}{suffix}"
        path = os.path.join(ctx.scratch, "bin", name)
        ok, messages = build.link_student_program(ctx.mode, ctx.scratch, path, list(objects), ctx.log,
                                                  static=static, guard=guard)
        ctx.programs[key] = (path, "") if ok else (None, "not run: the student program did not "
                                                   "link:\n" + messages)
    return ctx.programs[key]


# ---- suites ----------------------------------------------------------------------

def tests_of_task(all_tests, task):
    return [t for t in all_tests if t.split("::")[0] in (f"task{task}", f"task{task}_hidden")]


RESCUE_LIMITS = sandbox.Limits(cpu_seconds=config.LIMITS["rescue_runner_seconds"],
                               wall_seconds=config.LIMITS["rescue_runner_seconds"],
                               address_space=suites.RUNNER_ADDRESS_SPACE)


def run_task(ctx, all_tests, task, program, suffix="", only=None, limits=None):
    """The task's tests (only: these) on a program; a test with no record
    is "missing"."""
    path, why = program
    ids = only or tests_of_task(all_tests, task)
    if path is None:
        return [TestResult(t, task, "not_run", why) for t in ids]
    result, records, error = suites.run_runner(ctx.mode, ctx.scratch, build.runner(ctx.scratch, task),
                                               f"task{task}{suffix}", ctx.seed, path, tests=only,
                                               limits=limits)
    ctx.log(f"task{task}{suffix} runner: {result.describe()}, {len(records)} results")
    return [suites.result_of(t, records.get(t), error) for t in ids]


def suites_phase(ctx, builds, all_tests):
    """Every task in the lab's order on its own program, and a later task's
    failed tests again on its rescue program (merge_rescue). The tasks of
    one file share their programs, so they run side by side; meanwhile the
    next file's own program is linked."""
    results = []
    groups = _tasks_by_file()
    for index, tasks in enumerate(groups):
        own = student_program(ctx, builds, tasks[0])
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(tasks) + 1) as pool:
            if index + 1 < len(groups):
                pool.submit(student_program, ctx, builds, groups[index + 1][0])
            runs = list(pool.map(lambda task: run_task(ctx, all_tests, task, own), tasks))
        if has_rescue(ctx, builds, tasks[0]) and any(not r.passed for rs in runs for r in rs):
            runs = _rescued(ctx, builds, all_tests, tasks, runs)
        done = [r for task_results in runs for r in task_results]
        _note_shared_file(ctx, tasks, done)
        results += done
    _note_rescued(ctx)
    return results


def _rescued(ctx, builds, all_tests, tasks, runs):
    """The failed tests again on the rescue program, within a budget of
    their own (RESCUE_LIMITS), merged with the own run's."""
    program = student_program(ctx, builds, tasks[0], rescue=True)
    failed = {task: [r.id for r in task_results if not r.passed] for task, task_results in zip(tasks, runs)}

    def again(task):
        if not failed[task]:
            return []
        return run_task(ctx, all_tests, task, program, "-rescue", only=failed[task], limits=RESCUE_LIMITS)

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        again = list(pool.map(again, tasks))
    merged = []
    for task, own_results, rescue_results in zip(tasks, runs, again):
        task_results, ids = merge_rescue(own_results, rescue_results)
        if ids:
            ctx.rescued[task] = ids
        merged.append(task_results)
    return merged


def merge_rescue(own_results, rescue_results):
    """(results, rescued ids): per test, the own run's result when it
    passed, else the rescue run's (passed: rescued; failed: its words,
    which speak of this task's code beside a map known to be right; the
    own run's when the rescue run has no record of it)."""
    by_id = {r.id: r for r in rescue_results if r.status != "missing"}
    merged, rescued = [], []
    for r in own_results:
        other = by_id.get(r.id, r)
        if not r.passed and other.passed:
            rescued.append(r.id)
        merged.append(r if r.passed else other)
    return merged, rescued


def _note_shared_file(ctx, tasks, done):
    """Tells the student when a task's result rests on another task's code
    in the same file: a later task runs the earlier one's code (Task 2's
    memo wraps Task 1's recursion), while the earlier one is tested alone
    (Task 1 with the memo forgotten: config.MEMO_FORGOTTEN_IN), so one bug
    costs one task."""
    failing = {task for task in tasks if any(not r.passed for r in done if r.task == task)}
    file = config.FILE_OF_TASK[tasks[0]]
    for index, task in enumerate(tasks):
        earlier = [t for t in tasks[:index] if t in failing]
        if task in failing and earlier:
            ctx.notes.append(f"{_tasks_text([task])} runs the code of {_tasks_text(earlier)} in {file}, "
                             f"which fails some of its own tests: fix {_tasks_text(earlier)} first, "
                             f"then read what {_tasks_text([task])} still fails.")
        forgotten = config.MEMO_FORGOTTEN_IN.get(task)
        if forgotten is not None and task not in failing and forgotten in failing:
            ctx.notes.append(f"{_tasks_text([task])} was tested with the memo forgotten (every lookup "
                             f"misses, every store is dropped), so its points rest on the recursion "
                             f"alone (and on a memo of your own, if your solver keeps one beside the "
                             f"given memo_table); {_tasks_text([forgotten])}'s failures are the memo's.")


def _tasks_by_file():
    """The lab's tasks in order, cut where the file changes: [[0], [1, 2], ...]."""
    groups = []
    for task in config.TASKS:
        if groups and config.FILE_OF_TASK[groups[-1][-1]] == config.FILE_OF_TASK[task]:
            groups[-1].append(task)
        else:
            groups.append([task])
    return groups


def _note_rescued(ctx):
    """Tells the student which tests passed only with the stand-in map."""
    rescued = {task: ids for task, ids in sorted(ctx.rescued.items()) if ids}
    if not rescued:
        return
    file = config.POSITION
    own_tasks = [t for t in config.TASKS if config.FILE_OF_TASK[t] == file]
    count = sum(len(ids) for ids in rescued.values())
    ctx.notes.append(f"{count} test{'s' if count != 1 else ''} of {_tasks_text(list(rescued))} "
                     f"failed with your {file} and passed with the given stand-in map "
                     f"(tests/public/standin/{file}) in its place, so they earn their points: your "
                     f"map's bug costs {_tasks_text(own_tasks)}. Every check runs your own {file} "
                     f"first: fix {_tasks_text(own_tasks)}, and its tests decide with your map alone.")


def _tasks_text(tasks):
    names = [str(t) for t in tasks]
    return ("Task " + names[0]) if len(names) == 1 else ("Tasks " + ", ".join(names[:-1]) + " and " + names[-1])


# ---- timing ------------------------------------------------------------------------

def timing_phase(ctx, builds, suite_results):
    """(entries, tests): the timed task's timing checks on its own program,
    and on its rescue program when they fail there; they pass when either
    passes them all. speed::taskN, the map's, fails when only the rescue
    passed them (the map made the solver slow or wrong); it is not judged
    (no points) for a map that passes none of its own tests, so the stubs
    earn nothing, and passes otherwise: a solver that fails both ways
    costs the timing checks, never the map's points as well (check-
    definition keeps speed::* worth less than timing::*, so that rule
    never pays a worse solver)."""
    timed = _timed_task_or_none()
    if timed is None:
        return [], []
    own, _ = student_program(ctx, builds, timed)
    entries, tests = timing.check(ctx.mode, ctx.scratch, own, ctx.seed, ctx.log)
    speed = ("passed", f"with your {config.POSITION}, your solver passed every timing check")
    map_works = any(r.passed for r in suite_results if r.task == _map_task())
    if not map_works:
        speed = ("not_run", f"not judged: your {config.POSITION} passes no test of Task "
                 f"{_map_task()} yet")
    if not _all_passed(tests):
        if map_works:
            speed = ("passed", f"not slower than the stand-in map as far as the timing checks show: "
                     "your solver fails them with either map")
        if has_rescue(ctx, builds, timed):
            rescue, _ = student_program(ctx, builds, timed, rescue=True)
            again = timing.check(ctx.mode, ctx.scratch, rescue, ctx.seed, ctx.log, until_failure=True)
            if len(again[1]) == len(tests) and _all_passed(again[1]):
                first = next(t for t in tests if not t.passed or t.withheld)
                if map_works:   # a map that passes nothing of its own is not judged, nor flagged
                    speed = ("failed", f"with your {config.POSITION}, your solver fails the timing checks "
                             f"({first.message.splitlines()[0] if first.message else first.status}); "
                             "with the given stand-in map in its place it passes them all, so your map "
                             "makes it slow or wrong. (handout: handouts/grundy-lab.html#task-0-map)")
                entries, tests = again
                ctx.notes.append(f"The timing checks were passed with the given stand-in map in place "
                                 f"of your {config.POSITION} (see {config.SPEED_TEST}).")
    if config.SPEED_TEST:
        tests = tests + [TestResult(config.SPEED_TEST, _map_task(), speed[0], speed[1], kind="timing",
                                    flags=["over_budget"] if speed[0] == "failed" else [])]
    return entries, tests


def _all_passed(tests):
    return bool(tests) and all(t.passed and not t.withheld for t in tests)


def crash_lines_phase(ctx, builds, suite_results):
    """{crash message: the sentence naming its line} (crashline.py), from
    the task's dynamic program, the one the memory check runs; nothing when
    the grading's cap is nearer than one rerun's limit (words are not
    worth a grading cut short)."""
    deadline = getattr(ctx.mode, "deadline", None)
    if deadline is not None and deadline - time.monotonic() < config.LIMITS["crash_rerun_seconds"]:
        ctx.log("crash-lines: skipped, the grading's cap is too near")
        return {}
    # valgrind runs without RLIMIT_AS, and a crashed test may be a memory
    # hog's: where the host's memory made the student processes' address
    # space smaller (a Gradescope container), the rerun could make the OOM
    # killer choose, so it is not made there.
    lowered = getattr(ctx.mode, "student_address_space_mib", 0)
    if lowered and lowered < int(config.LIMITS["student_address_space_mib"]):
        ctx.log(f"crash-lines: skipped, student processes have {lowered} MiB of address space here")
        return {}
    return crashline.locate(ctx.mode, ctx.scratch, lambda task: build.runner(ctx.scratch, task),
                            lambda task: student_program(ctx, builds, task, static=False,
                                                         suffix="_dynamic")[0],
                            ctx.seed, suite_results)


def _timed_task_or_none():
    return next((t.number for t in config.LAB.tasks if t.timed), None)


def challenge_phase(ctx, builds):
    timed = next((t.number for t in config.LAB.tasks if t.timed), None)
    if timed is None:
        return None
    student, _ = student_program(ctx, builds, timed)
    return challenge.measure(ctx.mode, ctx.scratch, student, ctx.log)


def _memo_not_run(why):
    spec = config.LAB.memo
    if spec is None or spec.task not in config.TASKS:
        return []
    return [TestResult(f"memo::task{spec.task}", spec.task, "failed", "the memo check could not run: " + why,
                       kind="memo", flags=_error_flags(why))]


def memo_phase(ctx, builds, timing_results):
    """The memo check (growth.memo_check) on the task's own program, and on
    its rescue program when it fails there (the memo is the solver's; a
    map that leaks must not read as a memo never cleared). Timed like the
    timing checks: it compares CPU times, so it runs alone."""
    spec = config.LAB.memo
    if spec is None or spec.task not in config.TASKS:
        return []
    own, _ = student_program(ctx, builds, spec.task)
    found = growth.memo_check(ctx.mode, ctx.scratch, own, ctx.seed, ctx.log, timing_results)
    if found and found[0].status == "failed" and has_rescue(ctx, builds, spec.task):
        rescue, _ = student_program(ctx, builds, spec.task, rescue=True)
        again = growth.memo_check(ctx.mode, ctx.scratch, rescue, ctx.seed, ctx.log, timing_results)
        if again and again[0].passed:
            again[0].message = ((again[0].message + "\n") if again[0].message else "") + (
                f"(passed with the given stand-in map in place of your {config.POSITION}; with yours: "
                f"{found[0].message.splitlines()[0] if found[0].message else 'failed'})")
            return again
    return found


# ---- memory --------------------------------------------------------------------------

def memory_phase(ctx, builds, suite_results, rescue_tasks=None):
    """(entries, tests): each task's memory check on its own program, or,
    for rescue_tasks (rescue_memory), on its rescue program, over the tests
    of config.MEMCHECK_TESTS that passed: valgrind's run (its findings in
    the submission's own frames cost the points, and name the line), then
    the guarded run (guard.py: the kernel's fault, the backstop for a
    valgrind silenced from inside); the growth check completes the verdict
    (with_growth). On the own program, a task with a test that passed only
    on the rescue program fails it: that test's memory use on the own code
    was never seen, and a map broken on purpose must not hide a leak. Tasks
    three at a time: three valgrind runs keep two cores busier than two."""
    rescue = rescue_tasks is not None
    tasks = config.TASKS if not rescue else rescue_tasks
    passed = memcheck_candidates(suite_results)
    rescued = set() if rescue else {i for ids in ctx.rescued.values() for i in ids}
    selected_of = {task: [t for t in config.MEMCHECK_TESTS[task] if t in passed and t not in rescued]
                   for task in tasks}
    suffix = "_rescue" if rescue else ""
    programs = {task: student_program(ctx, builds, task, rescue, static=False,
                                      suffix="_dynamic" + suffix)[0] if selected_of[task] else None
                for task in tasks}
    guarded = {task: student_program(ctx, builds, task, rescue, suffix="_guard" + suffix,
                                     guard=True)[0] if selected_of[task] else None
               for task in tasks}

    def one(task):
        program, selected = programs[task], selected_of[task]
        if program is None or not selected:
            return task, None
        result = memcheck.run_task(ctx.mode, ctx.scratch, build.runner(ctx.scratch, task),
                                   program, task, selected, ctx.seed, suffix)
        if result is not None and result["complete"] and not result["findings"]:
            result["guard"] = (guard.run_task(ctx.mode, ctx.scratch, build.runner(ctx.scratch, task),
                                              guarded[task], task, selected, ctx.seed, suffix)
                               if guarded[task] else {"failed": [], "complete": False,
                                                      "why": "the guarded program did not link"})
        return task, result

    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        found = list(pool.map(one, tasks))
    memory, tests = [], []
    for task, result in found:
        test_id = f"memory::task{task}"
        test = _memory_verdict(test_id, task, result)
        if test.passed and not rescue and ctx.rescued.get(task):
            test = TestResult(test_id, task, "failed", f"{NOT_CHECKED}: "
                              f"{len(ctx.rescued[task])} of this task's tests pass only with the given "
                              f"stand-in map in place of your {config.POSITION}", kind="memory")
        tests.append(test)
        if result is not None:
            memory.append({"task": task, "findings": result["findings"], "complete": result["complete"]})
    return memory, tests


def memcheck_candidates(suite_results):
    """The tests a memory check may run: those that passed without reading
    a figure only the student process reports. A pass that rests on such a
    figure is no evidence, so it must not choose what the memory check
    sees either (a figure faked to pass would otherwise buy a task's memory
    check its run, and its points)."""
    return {t.id for t in suite_results if t.passed and not t.figures}


def _memory_verdict(test_id, task, result):
    """memory::taskN from one program's valgrind and guarded runs."""
    if result is None:
        return TestResult(test_id, task, "not_run", "not run: none of this task's tests "
                          "checked under valgrind passed yet", kind="memory")
    findings = _findings_text(result)
    flags = _finding_flags(result["findings"])
    checked = result.get("guard")
    if findings or not result["complete"]:
        # valgrind saw the submission's own frames go wrong, or its run
        # could not vouch for them: either costs the program itself
        return TestResult(test_id, task, "failed", findings + MEMCHECK_HANDOUT if findings else (
            "the memory check could not run to the end "
            f"({result['why']}), so it cannot say your code is clean"), kind="memory", flags=flags)
    if not checked["complete"]:
        return TestResult(test_id, task, "failed", guard.incomplete_message(checked), kind="memory")
    if checked["failed"]:
        return TestResult(test_id, task, "failed", guard.message(checked), kind="memory", flags=["memory"])
    return TestResult(test_id, task, "passed", kind="memory")


def rescue_memory(ctx, builds, suite_results, memory, memory_results, growth_results):
    """(memory entries, memory tests, growth tests): a later task whose own
    memory verdict (its memory check and growth check) fails is checked
    again on its rescue program, and takes that verdict when it passes: the
    map's leak or bad access is the map's task's to pay (memory::task0),
    once. Only the failing tasks run again, one after the other."""
    growth_of = {t.task: t for t in growth_results}
    passed = memcheck_candidates(suite_results)
    failing = [t.task for t in memory_results
               if (not t.passed or (growth_of.get(t.task) is not None and not growth_of[t.task].passed))
               and has_rescue(ctx, builds, t.task) and any(i in passed for i in config.MEMCHECK_TESTS[t.task])]
    if not failing:
        return memory, memory_results, growth_results
    entries, tests = memory_phase(ctx, builds, suite_results, rescue_tasks=failing)
    clean = [t.task for t in tests if t.passed]
    programs = {task: student_program(ctx, builds, task, True)[0] for task in clean}
    grown = {t.task: t for t in growth.check(ctx.mode, ctx.scratch, programs, ctx.seed, ctx.log)
             if t.task in programs}
    kept = {t.task: t for t in tests if t.passed and grown.get(t.task) is not None and grown[t.task].passed}
    own_of = {t.task: t for t in memory_results}
    blamed = []    # what the own program did wrong where the stand-in map put it right
    for task, t in kept.items():
        t.message = f"passed with the given stand-in map in place of your {config.POSITION}"
        own, own_growth = own_of[task], growth_of.get(task)
        if own.status == "failed" and not own.message.startswith(NOT_CHECKED):
            blamed.append((task, own.message.splitlines()[0], own.flags))
        elif own_growth is not None and own_growth.status == "failed":
            blamed.append((task, own_growth.message.splitlines()[0], own_growth.flags))
    memory_results = [kept.get(t.task, t) for t in memory_results]
    if blamed:
        memory_results = [_blame_the_map(t, blamed) if t.task == _map_task() else t for t in memory_results]
    if kept:
        ctx.notes.append(f"{_tasks_text(sorted(kept))}: the memory check passed with the given "
                         f"stand-in map in place of your {config.POSITION}: what your map does wrong "
                         f"there is counted once, in Task {_map_task()}'s memory check.")
    memory = [m for m in memory if m["task"] not in kept] + [m for m in entries if m["task"] in kept]
    return (memory, memory_results, [grown[t.task] if t.task in kept else t for t in growth_results])


NOT_CHECKED = "not checked on your own code"


def _blame_the_map(test, blamed):
    """The map's memory check, failed by what its map did in a later task's
    checks that the stand-in map put right."""
    seen = "; ".join(f"Task {task}'s tests with your {config.POSITION}: {words}" for task, words, _ in blamed)
    flags = sorted(set(test.flags) | {f for _, _, fl in blamed for f in fl if f in ("leak", "memory")})
    message = (test.message + "\n" if not test.passed and test.message else "") + (
        f"{seen}; with the given stand-in map in its place they pass, so the error is your map's"
        + MEMCHECK_HANDOUT)
    return TestResult(test.id, test.task, "failed", message, kind="memory", flags=flags)


MEMCHECK_HANDOUT = "\n(handout: handouts/grundy-lab.html#memcheck)"


def _findings_text(result):
    """valgrind's findings as the feedback words them, or ""."""
    if not result["findings"]:
        return ""
    lines = [f"{f['file']}:{f['line']} in {f['function']}"
             + "".join(f", called from {c}" for c in f.get("callers", [])) + f": {f['what']}"
             for f in result["findings"][:8]]
    if result.get("dropped"):
        lines.append(f"... and {result['dropped']} more (run make memcheck)")
    if not result["complete"]:
        lines.append(f"(and the check could not run to the end: {result['why']})")
    return "valgrind found problems in your code:\n" + "\n".join(lines)


def _finding_flags(findings):
    leak = any("Leak" in f["kind"] for f in findings)
    other = any("Leak" not in f["kind"] for f in findings)
    return (["leak"] if leak else []) + (["memory"] if other else [])


# ---- growth ------------------------------------------------------------------------------

def growth_phase(ctx, builds, suite_results):
    """The outside check of every memory test that passed (with_growth).
    It runs beside the memory check, so before its verdicts: for every task
    whose valgrind run has a test to run (the tests it would check passed),
    and growth_needed then keeps only those of tasks whose memory test
    passed."""
    passed = memcheck_candidates(suite_results)
    candidates = {task for task in config.TASKS if any(t in passed for t in config.MEMCHECK_TESTS[task])}
    programs = {task: student_program(ctx, builds, task)[0]
                for task in config.TASKS if task in candidates}
    return growth.check(ctx.mode, ctx.scratch, programs, ctx.seed, ctx.log)


def growth_needed(tests, memory_results):
    """The growth verdicts of tasks whose memory test passed; the others are
    not run, as if the probe had not been asked."""
    needed = {t.task for t in memory_results if t.passed}
    return [t if t.task in needed else
            TestResult(t.id, t.task, "not_run", "not run: this task's memory check did not pass", kind="memory")
            for t in tests]


def with_growth(memory_results, growth_results):
    """memory::taskN passes only when its growth check passed too: valgrind
    and the guard run the program, the growth probe sees from outside that
    it gives its memory back (a valgrind silenced from inside hides a
    leak from valgrind, never from the kernel)."""
    growth_of = {t.task: t for t in growth_results}
    out = []
    for t in memory_results:
        grown = growth_of.get(t.task)
        if t.passed and grown is not None and not grown.passed:
            t = TestResult(t.id, t.task, "failed", "valgrind and the guarded run saw nothing wrong, but the "
                           "memory-growth check did: " + (grown.message or grown.status),
                           kind="memory", flags=sorted(set(grown.flags) | {"leak"}))
        out.append(t)
    return out


# ---- scoring ---------------------------------------------------------------------------

def score(tests, rubric_path):
    """(scored entries, in report order): points from the rubric. A test
    that read a figure only the student process reports earns nothing,
    whatever the rubric says (the rubric gives such a test 0 points)."""
    by_id = {t.id: t for t in tests}
    points = rubric.assign(rubric_path, [t.id for t in tests], **config.RUBRIC_TERM)
    scored = []
    for test_id, maximum in points.items():
        t = by_id[test_id]
        if t.passed and t.figures and maximum > 0 and not t.withheld:
            t.withheld = (f"this test read a count only your program reports ({', '.join(t.figures)}), "
                          "and such a test earns nothing")
        earned = maximum if t.passed and not t.withheld else 0.0
        scored.append((t, round(maximum, 4), round(earned, 4)))
    scored.sort(key=lambda e: (e[0].task, e[0].kind is not None, e[0].hidden))
    return scored


def result_entries(scored):
    entries = []
    for t, maximum, earned in scored:
        suite, name = t.id.split("::", 1)
        message = t.message
        if t.withheld:
            message = (message + "\n" if message else "") + "No points: " + t.withheld
        entries.append({"id": t.id, "name": f"Task {t.task} / {suite}::{name}" if t.hidden or t.kind
                        else f"Task {t.task} / {name}", "task": t.task, "kind": t.kind,
                        "hidden": t.hidden, "max_score": maximum, "score": earned,
                        "status": t.status, "message": message, "time": t.time,
                        "order": t.order, "started": t.started,
                        "flags": list(t.flags), "figures": list(t.figures)})
    return entries


# ---- the whole grading -------------------------------------------------------------------

def all_graded_tests():
    with open(os.path.join(config.HARNESS, "tests.txt"), encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip()]


def grade(submission, out_dir, seed=None, hidden_visibility="after_published",
          keep_scratch=False, rubric_path=config.RUBRIC, object_checks=True, log=print, scores_only=False):
    """Grades one submission; returns the result dict (see reports.py).
    scores_only leaves out coverage and the challenge: no point rests on
    them, so the scores are the same (check-fixtures regrades with them and
    compares), in a quarter to a third less CPU."""
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    wall = time.monotonic()
    seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31)
    # Located on the path as given: realpath would follow a link.
    source_dir = build.locate(submission)
    submission, out = os.path.realpath(submission), os.path.realpath(out_dir)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    all_tests = all_graded_tests()
    _refuse_a_bad_rubric(rubric_path, all_tests)
    space = scratch_dir.Scratch(log, keep=keep_scratch)
    scratch = space.path
    try:
        hidden = [p for p in (config.REPO, out, submission, "/root", "/home")
                  if os.path.isdir(p) and not scratch.startswith(p + os.sep)]
        mode = sandbox.detect(hidden, scratch)
        # Without bubblewrap, before any student byte is compiled: the
        # sandbox's user reads nothing outside the system (sandbox.audit)
        # but this grading's scratch and the submission's own folder.
        audited = sandbox.lock_out(mode, secrets=[config.REPO], owned=[out], allowed=[space.top, os.path.realpath(source_dir.top)])
        if audited is not None:
            log(audited.describe())
        # The pace, before any code of the submission is compiled or run
        # (pace.py): it scales every wall-clock limit, the time cap too.
        build.copy_harness(scratch, mode)
        paced = pace.measure(mode, scratch, log)
        mode.pace, mode.student_address_space_mib = paced.factor, paced.student_address_space_mib
        mode.start_clock()
        ctx = Context(submission, source_dir, out, scratch, mode, seed, object_checks, log, scores_only=scores_only)
        mode.on_run = lambda result, cwd: _save_log(ctx, result, cwd)
        if not object_checks:
            ctx.notes.append("The object checks were skipped (--skip-object-checks): this run tests "
                             "the grader, it is not a grade.")
        if scores_only:
            ctx.notes.append("Coverage and the challenge were not measured (--scores-only); they earn no "
                             "points, so the score is the same.")
        log(f"sandbox: {mode.describe()}; scratch: {space.describe()}")
        log(f"seed: {seed}")
        builds, tests, figures = run_phases(ctx, all_tests)
        # time_cap, for the staff: what ran out of time may be the machine's
        # load after the pace was measured (pace.py), not the code.
        scored = scored_result(tests, builds, rubric_path, capped=ctx.capped)
        result = {"submission": submission, "started": started, "seed": seed,
                  "task_titles": dict(config.TASK_TITLES),
                  "sandbox": mode.describe(), "pace": paced.describe(),
                  "hidden_visibility": hidden_visibility,
                  "phases": ctx.phases, "notes": ctx.notes,
                  "builds": [b.as_result() for b in builds.values()],
                  **figures, **scored}
        start = time.monotonic()
        result["execution_time"] = round(time.monotonic() - wall, 2)
        reports.write_reports(result, out, handout=config.HANDOUT)
        ctx.phases["reports"] = round(time.monotonic() - start, 2)
        log(f"== phase reports: {ctx.phases['reports']:.2f} s")
        log("phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in ctx.phases.items())
            + f"; total {time.monotonic() - wall:.1f} s")
        return result
    finally:
        space.close()   # says where it is kept, with --keep-scratch


def _refuse_a_bad_rubric(rubric_path, all_tests):
    """Before any work: the rubric must place every test the run can produce."""
    rubric.assign(rubric_path, rubric.every_test_id(all_tests, config.LAB), **config.RUBRIC_TERM)


def run_phases(ctx, all_tests):
    """(builds, every TestResult, the figures the reports show beside them):
    the phases in their order, the timed ones alone. A phase that raises
    fails its own tests (ctx.guarded) and the others still run."""
    builds = ctx.guarded("build", build_phase, lambda why: _builds_not_run(why))
    suite_results = ctx.guarded("suites", suites_phase, lambda why: _not_run(all_tests, why),
                                builds, all_tests)
    timing_entries, timing_results = ctx.guarded("timing", timing_phase, _timing_not_run, builds,
                                                 suite_results)
    timing.under_memo_cause(timing_results, suite_results)
    memo_results = ctx.guarded("memo", memo_phase, _memo_not_run, builds, timing_results)
    passed_public = [t.id for t in suite_results if t.passed and "_hidden" not in t.id]
    # The untimed phases share the two cores: coverage, the challenge and
    # the growth probe run beside the memory check. None of them earns
    # points by a time (their limits are generous time-outs); the
    # challenge's figure is a ratio of CPU times the kernel counts, both
    # measured in its own probe run, and the growth probe's the memory the
    # kernel sees, so a neighbour on the other core moves neither. The
    # graded timing checks and the memo check ran alone above.
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as beside:
        cov_done = beside.submit(ctx.guarded, "coverage",
                                 lambda c: coverage.measure(c.mode, c.scratch, builds, c.out,
                                                            c.seed, c.log, passed_public),
                                 lambda why: None) if not ctx.scores_only else None
        challenge_done = beside.submit(ctx.guarded, "challenge", challenge_phase, lambda why: None,
                                       builds) if not ctx.scores_only else None
        growth_done = beside.submit(
            ctx.guarded, "growth", growth_phase, lambda why: _kind_failed("growth", "the memory-growth check "
                                                                          "could not run: " + why),
            builds, suite_results)
        memory, memory_results = ctx.guarded(
            "memory", memory_phase, lambda why: ([], _kind_failed("memory", "the memory check could "
                                                                  "not run: " + why)),
            builds, suite_results)
        grown = growth_done.result()
        memory, memory_results, grown = ctx.guarded(
            "memory-rescue", lambda c: rescue_memory(c, builds, suite_results, memory, memory_results, grown),
            lambda why: (memory, memory_results, grown))
        growth_results = growth_needed(grown, memory_results)
        memory_results = with_growth(memory_results, growth_results)
        cov = cov_done.result() if cov_done else None
        challenge_result = challenge_done.result() if challenge_done else None
    growth.memo_growth_after_leak(memo_results, memory)
    # Words only, so after every graded phase: its runs never take their
    # time or their share of the cap.
    crashline.annotate(suite_results, ctx.guarded("crash-lines", crash_lines_phase, lambda why: {},
                                                  builds, suite_results))
    check_results = checks.run_all(ctx, builds, suite_results)   # lab.ini's [checks]
    build_tests = results_of_build_tests(builds)
    if ctx.copies_standin:
        for t in build_tests:
            if t.id == f"build::{config.POSITION}":
                t.flags.append(standin.FLAG)
    tests = (build_tests + suite_results + timing_results + memo_results
             + memory_results + growth_results + check_results)
    return builds, tests, {"timing": timing_entries, "challenge": challenge_result,
                           "memory": memory, "coverage": cov}


def _error_flags(why):
    return ["grader_error"] if why.startswith("an internal error") else []


def _timing_not_run(why):
    """The timing phase's tests when it raised: every check failed, and why."""
    timed = _timed_task_or_none()
    if timed is None:
        return [], []
    tests = [TestResult("timing::" + name, timed, "failed", "the timing check could not run: " + why,
                        kind="timing", flags=_error_flags(why)) for name in config.TIMED_SHAPES]
    if config.SPEED_TEST:
        tests.append(TestResult(config.SPEED_TEST, _map_task(), "failed",
                                "the timing check could not run: " + why, kind="timing"))
    return [], tests


def _builds_not_run(why):
    """The builds of a build phase that raised: no file accepted, and why."""
    return {file: build.FileBuild(file, present=True, errors=f"the build could not run: {why}")
            for file in config.SUBMISSION_FILES}


def _not_run(all_tests, why):
    return [TestResult(t, suites.task_of(t), "failed", "the tests could not run: " + why,
                       flags=_error_flags(why)) for t in all_tests]


def _kind_failed(prefix, message):
    return [TestResult(f"{prefix}::task{task}", task, "failed", message, kind="memory",
                       flags=_error_flags(message.split(": ", 1)[-1])) for task in config.TASKS]


def scored_result(tests, builds, rubric_path, capped=False):
    """The result's tests, flags and totals, from the rubric (capped: see flags_of)."""
    scored = score(tests, rubric_path)
    entries = result_entries(scored)
    return {"tests": entries, "flags": flags_of([t for t, _, _ in scored], builds, capped),
            "score": round(sum(e["score"] for e in entries), 2),
            "max_score": round(sum(e["max_score"] for e in entries), 2)}


def _save_log(ctx, result, cwd):
    """Keeps every sandboxed run's raw output in OUT/logs (capped by the sandbox)."""
    number = next(ctx.log_numbers)
    ctx.capped = ctx.capped or result.capped
    what = os.path.basename(cwd)
    if result.argv[0] in ("objdump", "nm", "objcopy"):   # the object checks
        what = f"objcheck-{result.argv[0]}-{os.path.basename(result.argv[-1])}"
    elif "-o" in result.argv[:-1]:   # a compiler or linker run: name it by what it makes
        made = os.path.basename(result.argv[result.argv.index("-o") + 1])
        kind = "compile-" if "-c" in result.argv else "preprocess-" if "-E" in result.argv else "link-"
        what = kind + made
    path = os.path.join(ctx.out, "logs", f"{number:02d}-{what}.txt")
    try:
        safefs.write_atomic(path, f"$ {' '.join(result.argv)}\n# {result.describe()}, "
                            f"{result.wall_seconds:.2f} s wall, {result.stdout_bytes} bytes stdout, "
                            f"{result.stderr_bytes} bytes stderr\n\n== stdout ==\n{result.stdout}\n"
                            f"== stderr ==\n{result.stderr}\n", durable=False)
    except OSError as error:   # a log not kept is said, and never ends the phase that ran
        ctx.log(f"grade: the log {os.path.basename(path)} was not written: {error}")
