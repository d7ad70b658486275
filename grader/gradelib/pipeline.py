"""Grades one submission end to end: phases that take and return values.

    build     -> {file: FileBuild}            compile, check, localize
    suites    -> [TestResult]                 prebuilt runners x student programs
    timing    -> (entries, [TestResult])      trusted probe, CPU from the kernel
    memo      -> [TestResult]                 memo::taskN: a memo seen by the kernel
    memory    -> (findings, [TestResult])     valgrind around the student process
    growth    -> [TestResult]                 memory measured by the kernel, outside (beside memory)
    coverage  -> {line_percent, ...} or None  (beside memory: none of the last four is timed)
    challenge -> {largest heap...} or None    the leaderboard's figure, no points (beside memory)
    score     -> [TestResult] with points     rubric, then the gates (not timed)
    reports   -> results.json, junit.xml, feedback

A task's student program (the submission's objects linked with the student
side of the boundary) is no phase of its own: student_program() links it
when a phase first needs it, once per set of objects, and the later phases
reuse it.

Trust: student code runs only in student processes (grader/boundary/),
behind a seccomp filter, with no test, oracle or secret; every verdict is
made on the trusted side from answers checked against the oracle there.
Figures only a student process can report (expansion counts, memo size,
live allocations) never earn points alone: a test that read one scores
only when the check named in config.GATES, made from outside, passes too.

Task isolation: Task 0 is graded with the submission's grundy_position.c
and the stubs' solver (Task 0 never calls it, so a solver that does not
build or link costs Tasks 1-2 only); Tasks 1-2 with the submission's
solver and, unless its grundy_position.c passes every Task 0 test, the
public stand-in map (tests/public/standin/grundy_position.c). The
feedback says when that happened, so one bug never zeroes every task.
No model code is ever linked into a student process: a process can read
its own machine code and echo it through its answers (the stand-in is
public for that reason; standin.py flags a Task 0 that copies it).
"""

import concurrent.futures
import datetime
import errno
import fnmatch
import itertools
import os
import random
import threading
import time
import traceback
from dataclasses import dataclass, field

from . import build, challenge, config, coverage, growth, guard, memcheck, pace, reports, rubric, sandbox, standin, suites, timing
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
    notes: list = field(default_factory=list)
    phases: dict = field(default_factory=dict)
    programs: dict = field(default_factory=dict)   # (objects, static) -> (path or None, why)
    trusted_for: dict = field(default_factory=dict)  # task -> the trusted files its suites ran with
    # Phases that overlap (compiles, memory, growth beside coverage) number
    # their logs from one counter, and link programs one at a time.
    log_numbers: object = field(default_factory=lambda: itertools.count(1))
    link_lock: object = field(default_factory=threading.Lock)

    failures: dict = field(default_factory=dict)  # phase -> why it could not run (see guarded)
    copies_standin: bool = False   # the map is mostly the public stand-in's (standin.py)

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
            why = cause_of(error)
            self.log(f"grade: phase {name} could not run: {why}\n{traceback.format_exc()}")
            self.failures[name] = why
            self.notes.append(f"The {name} step could not run to the end: {why}")
            return fallback(why)


def cause_of(error):
    """A sentence for the feedback naming why a phase raised."""
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
    copied, found = standin.check(os.path.join(ctx.scratch, "src", config.POSITION))
    ctx.log(f"stand-in map: {found:.0%} of its tokens in runs of {config.POSITION}")
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
        if b.present and not b.compiled:
            flags.append("not_compiled")
        tests.append(TestResult(f"build::{file}", task, "failed", f"{file} was not accepted:\n{why}",
                                kind="build", flags=flags))
    return tests


def object_for(ctx, builds, file, use_student, task):
    """The object of `file` in `task`'s program: the submission's when
    trusted; for an earlier task's file that is not, the public stand-in
    map for the map, and for any other file (the solver, for the optional
    tasks of Part 2) the submission's own all the same, since no stand-in
    of a solver can be public without handing out Tasks 1-2; else (a later
    task's file, or one that did not build) the stubs'. Never the model
    solution: whatever a student process holds, it can read and echo."""
    b = builds[file]
    if use_student and b.accepted:
        return b.object
    if min(t for t in config.TASKS if config.FILE_OF_TASK[t] == file) < task:
        if file == config.POSITION:
            return build.standin_object(ctx.scratch, file)
        if b.accepted:
            return b.object
    return build.stub_object(ctx.scratch, file)


# ---- suites ----------------------------------------------------------------------

def tests_of_task(all_tests, task):
    return [t for t in all_tests if t.split("::")[0] in (f"task{task}", f"task{task}_hidden")]


def run_task(ctx, all_tests, task, program):
    path, why = program
    ids = tests_of_task(all_tests, task)
    if path is None:
        return [TestResult(t, task, "not_run", why) for t in ids]
    result, records, error = suites.run_runner(ctx.mode, ctx.scratch, build.runner(ctx.scratch, task),
                                               f"task{task}", ctx.seed, path)
    ctx.log(f"task{task} runner: {result.describe()}, {len(records)} results")
    return [suites.result_of(t, records.get(t), error) for t in ids]


def suites_phase(ctx, builds, all_tests):
    """Every task in the lab's order. Task isolation: a task's program takes
    its own file from the submission, and each other file from the
    submission only once every task of that file has passed every test
    (trusted, below); else from object_for's stand-ins. So Task 0 runs
    with the stubs' solver, Tasks 1-2 with the submission's map only when
    Task 0 passed (else the public stand-in map), and one bug in the map
    never zeroes every task. Returns the results and
    the trusted files, which the later phases link the same way.

    The tasks of one file share a program and a trusted set, so they run
    side by side; meanwhile the next file's program is linked as it will be
    if they all pass (when they do not, that link goes unused)."""
    results, trusted = [], set()
    groups = _tasks_by_file()
    for index, tasks in enumerate(groups):
        file = config.FILE_OF_TASK[tasks[0]]
        for task in tasks:
            ctx.trusted_for[task] = frozenset(trusted)
        program = student_program(ctx, builds, tasks[0], trusted)
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(tasks) + 1) as pool:
            if index + 1 < len(groups) and builds[file].accepted:
                pool.submit(student_program, ctx, builds, groups[index + 1][0], trusted | {file})
            runs = list(pool.map(lambda task: run_task(ctx, all_tests, task, program), tasks))
        done = [r for task_results in runs for r in task_results]
        _note_shared_file(ctx, tasks, done)
        results += done
        if builds[file].accepted and done and all(r.passed for r in done):
            trusted.add(file)
    _note_reference_files(ctx, builds, trusted)
    return results, trusted


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


def _note_reference_files(ctx, builds, trusted):
    """Tells the student which tasks ran with the stand-in map instead of theirs."""
    for file in config.SUBMISSION_FILES:
        if file in trusted or not builds[file].accepted or file != config.POSITION:
            continue
        own_tasks = [t for t in config.TASKS if config.FILE_OF_TASK[t] == file]
        later = [t for t in config.TASKS if t > own_tasks[-1] and builds[config.FILE_OF_TASK[t]].accepted]
        if later:
            ctx.notes.append(f"{_tasks_text(later)} were graded with the given stand-in map "
                             f"(tests/public/standin/{file}) instead of your {file}, because yours "
                             f"does not pass every test of {_tasks_text(own_tasks)}: fix "
                             f"{_tasks_text(own_tasks)} first, then your own {file} is used for every task.")


def _tasks_text(tasks):
    names = [str(t) for t in tasks]
    return ("Task " + names[0]) if len(names) == 1 else ("Tasks " + ", ".join(names[:-1]) + " and " + names[-1])


def student_program(ctx, builds, task, trusted, static=True, suffix="", guard=False):
    """(path, "") of a task's student program, or (None, why): its own file
    from the submission, every other file from the submission when trusted
    (see suites_phase), else from the reference. Each distinct set of
    objects is linked once per grading and then reused: Tasks 1 and 2 share
    theirs, and the timing phase runs the suites' one."""
    own = builds[config.FILE_OF_TASK[task]]
    if not own.accepted:
        return None, f"not run: {own.file} did not build or was rejected (see the build test)"
    objects = tuple(object_for(ctx, builds, file, file == own.file or file in trusted, task)
                    for file in config.SUBMISSION_FILES)
    key = (objects, static, guard)
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


# ---- timing ------------------------------------------------------------------------

def timing_phase(ctx, builds):
    timed = next((t.number for t in config.LAB.tasks if t.timed), None)
    if timed is None:
        return [], []
    student, _ = student_program(ctx, builds, timed, ctx.trusted_for[timed])
    return timing.check(ctx.mode, ctx.scratch, student, ctx.seed, ctx.log)


def challenge_phase(ctx, builds):
    timed = next((t.number for t in config.LAB.tasks if t.timed), None)
    if timed is None:
        return None
    student, _ = student_program(ctx, builds, timed, ctx.trusted_for[timed])
    return challenge.measure(ctx.mode, ctx.scratch, student, ctx.log)


def _memo_not_run(why):
    spec = config.LAB.memo
    if spec is None or spec.task not in config.TASKS:
        return []
    return [TestResult(f"memo::task{spec.task}", spec.task, "failed", "the memo check could not run: " + why,
                       kind="memo", flags=_error_flags(why))]


def memo_phase(ctx, builds, timing_results):
    """The memo check (growth.memo_check), timed like the timing checks: it
    compares CPU times, so it runs alone."""
    spec = config.LAB.memo
    if spec is None or spec.task not in config.TASKS:
        return []
    student, _ = student_program(ctx, builds, spec.task, ctx.trusted_for[spec.task])
    return growth.memo_check(ctx.mode, ctx.scratch, student, ctx.seed, ctx.log, timing_results)


# ---- memory --------------------------------------------------------------------------

def memory_phase(ctx, builds, suite_results):
    """Tasks three at a time: each valgrind run is a process at a time, and
    three of them keep two cores busier than two."""
    passed = {t.id for t in suite_results if t.passed}
    figures_of = {t.id: t.figures for t in suite_results}

    def inherited(task):
        """A memory check rests on whatever its tests rested on: a test that
        passed only on a count the student process reported must not make
        its task's valgrind run count (the memory check itself is the
        outside check for live allocations)."""
        found = set()
        for test_id in config.MEMCHECK_TESTS[task]:
            if test_id in passed:
                found.update(f for f in figures_of.get(test_id, []) if f != "live_allocations")
        return sorted(found)

    selected_of = {task: [t for t in config.MEMCHECK_TESTS[task] if t in passed]
                   for task in config.TASKS}
    # Linked here, one after the other: Tasks 1 and 2 share a program, and
    # two threads must not link the same file at once.
    programs = {task: student_program(ctx, builds, task, ctx.trusted_for[task], static=False,
                                      suffix="_dynamic")[0] if selected_of[task] else None
                for task in config.TASKS}
    guarded = {task: student_program(ctx, builds, task, ctx.trusted_for[task], suffix="_guard",
                                     guard=True)[0] if selected_of[task] else None
               for task in config.TASKS}

    def one(task):
        program, selected = programs[task], selected_of[task]
        if program is None or not selected:
            return task, None
        result = memcheck.run_task(ctx.mode, ctx.scratch, build.runner(ctx.scratch, task),
                                   program, task, selected, ctx.seed)
        if result is not None and result["complete"]:
            # valgrind's report is the student process's word (a program can
            # silence it from inside): the guarded run (guard.py) and the
            # growth check are the kernel's, and the points rest on them
            result["guard"] = (guard.run_task(ctx.mode, ctx.scratch, build.runner(ctx.scratch, task),
                                              guarded[task], task, selected, ctx.seed)
                               if guarded[task] else {"failed": [], "complete": False,
                                                      "why": "the guarded program did not link"})
        return task, result

    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        found = list(pool.map(one, config.TASKS))
    memory, tests = [], []
    for task, result in found:
        test_id = f"memory::task{task}"
        if result is None:
            tests.append(TestResult(test_id, task, "not_run", "not run: none of this task's tests "
                                    "checked under valgrind passed yet", kind="memory"))
            continue
        memory.append({"task": task, "findings": result["findings"], "complete": result["complete"]})
        findings = _findings_text(result)
        flags = _finding_flags(result["findings"])
        checked = result.get("guard")
        if not result["complete"]:
            # a run that behaved otherwise under valgrind, or a report that
            # is not valgrind's: it can only cost the program itself
            tests.append(TestResult(test_id, task, "failed", findings + MEMCHECK_HANDOUT if findings else (
                "the memory check could not run to the end "
                f"({result['why']}), so it cannot say your code is clean"), kind="memory", flags=flags))
        elif not checked["complete"]:
            tests.append(TestResult(test_id, task, "failed", guard.incomplete_message(checked),
                                    kind="memory"))
        elif checked["failed"]:
            tests.append(TestResult(test_id, task, "failed",
                                    findings + "\n" + guard.confirms(checked) + MEMCHECK_HANDOUT
                                    if findings else guard.message(checked),
                                    kind="memory", flags=sorted(set(flags) | {"memory"})))
        else:
            # Valgrind's findings that no outside check confirmed (yet: a
            # leak waits for the growth check, settle_memory) earn their
            # points back: kept as words for the student and a flag for the
            # staff, never as a cost a program could avoid by silencing
            # valgrind.
            tests.append(TestResult(test_id, task, "passed", findings, kind="memory", flags=flags,
                                    figures=inherited(task) + ["valgrind"]))
    return memory, tests


MEMCHECK_HANDOUT = "\n(handout: handouts/grundy-lab.html#memcheck)"


def _findings_text(result):
    """valgrind's findings as the feedback words them, or ""."""
    if not result["findings"]:
        return ""
    lines = [f"{f['file']}:{f['line']} in {f['function']}: {f['what']}" for f in result["findings"][:8]]
    if result.get("dropped"):
        lines.append(f"... and {result['dropped']} more (run make memcheck)")
    if not result["complete"]:
        lines.append(f"(and the check could not run to the end: {result['why']})")
    return "valgrind found problems in your code:\n" + "\n".join(lines)


def _finding_flags(findings):
    leak = any("Leak" in f["kind"] for f in findings)
    other = any("Leak" not in f["kind"] for f in findings)
    return (["leak"] if leak else []) + (["memory"] if other else [])


def settle_memory(ctx, memory_results, growth_results):
    """The memory tests that passed with valgrind's findings, once the
    growth check is known: a leak the growth check saw too fails the
    memory test, with valgrind's words (which name the line) and the growth
    check's confirmation, and the growth test is folded into it (one bug,
    one message); findings no outside check confirmed stay a note for the
    student and a flag for the staff. Returns the growth results to keep."""
    growth_of = {t.task: t for t in growth_results}
    kept, unconfirmed = [], {}
    for test in memory_results:
        if not (test.passed and test.message):
            continue
        seen = growth_of.get(test.task)
        if "leak" in test.flags and seen is not None and seen.status == "failed" and \
                not seen.message.startswith("the memory-growth check could not run"):
            test.status = "failed"
            test.message += "\nThe growth check confirms the leak: " + seen.message + MEMCHECK_HANDOUT
            test.figures = []
            kept.append(test.task)
            continue
        found = "; ".join(test.message.splitlines()[1:])   # the findings, without the heading
        unconfirmed.setdefault(found, []).append(test.task)
        test.message = ""
    for found, tasks in unconfirmed.items():   # the same finding in several tasks: one note
        ctx.notes.append(f"{_tasks_text(tasks)}: valgrind reports {found}. Neither the guarded run nor "
                         "the growth check saw it, so no points rest on it (a program can silence "
                         "valgrind from inside); fix it all the same: make memcheck names the lines.")
    return [TestResult(t.id, t.task, "not_run", "not run: its verdict is part of this task's memory "
                       "check", kind="memory") if t.task in kept else t for t in growth_results]


# ---- growth ------------------------------------------------------------------------------

def growth_phase(ctx, builds, suite_results):
    """The outside check of every memory test that passed (config.GATES).
    It runs beside the memory check, so before its verdicts: for every task
    whose valgrind run has a test to run (the tests it would check passed),
    and growth_needed then keeps only those of tasks whose memory test
    passed."""
    passed = {t.id for t in suite_results if t.passed}
    candidates = {task for task in config.TASKS if any(t in passed for t in config.MEMCHECK_TESTS[task])}
    programs = {task: student_program(ctx, builds, task, ctx.trusted_for[task])[0]
                for task in config.TASKS if task in candidates}
    return growth.check(ctx.mode, ctx.scratch, programs, ctx.seed, ctx.log)


def growth_needed(tests, memory_results):
    """The growth verdicts of tasks whose memory test passed; the others are
    not run, as if the probe had not been asked."""
    needed = {t.task for t in memory_results if t.passed}
    return [t if t.task in needed else
            TestResult(t.id, t.task, "not_run", "not run: this task's memory check did not pass", kind="memory")
            for t in tests]


# ---- scoring ---------------------------------------------------------------------------

def score(tests, rubric_path):
    """(scored entries, in report order): points from the rubric, then the
    gates: a test resting on a student-reported figure earns its points only
    when the outside check named in config.GATES passed, and that check
    earned its own points (a memory check that rests on a faked memo size is
    withheld by the timing gate, so it cannot vouch for a leak count)."""
    by_id = {t.id: t for t in tests}
    points = rubric.assign(rubric_path, [t.id for t in tests], **config.RUBRIC_TERM)
    withheld_gates(tests)
    scored = []
    for test_id, maximum in points.items():
        t = by_id[test_id]
        earned = maximum if t.passed and not t.withheld else 0.0
        scored.append((t, round(maximum, 4), round(earned, 4)))
    scored.sort(key=lambda e: (e[0].task, e[0].kind is not None, e[0].hidden))
    return scored


def withheld_gates(tests):
    """Sets t.withheld on every passed test whose gate does not hold. A gate
    holds when every test it names passed and none of them is withheld, so
    this runs to a fixed point (withholding only ever grows)."""
    def gate_holds(patterns):
        matched = [t for t in tests if any(fnmatch.fnmatchcase(t.id, p) for p in patterns)]
        return bool(matched) and all(t.passed and not t.withheld for t in matched)

    changed = True
    while changed:
        changed = False
        for t in tests:
            if not t.passed or t.withheld:
                continue
            for figure in t.figures:
                patterns = config.gate_patterns(figure, t.task)
                if patterns and not gate_holds(patterns):
                    t.withheld = (f"this test read a count only your program reports ({figure}); "
                                  f"it earns its points only when the check {' and '.join(patterns)} "
                                  "made from outside passes too")
                    changed = True
                    break


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
          keep_scratch=False, rubric_path=config.RUBRIC, object_checks=True, log=print):
    """Grades one submission; returns the result dict (see reports.py)."""
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
        ctx = Context(submission, source_dir, out, scratch, mode, seed, object_checks, log)
        mode.on_run = lambda result, cwd: _save_log(ctx, result, cwd)
        if not object_checks:
            ctx.notes.append("The object checks were skipped (--skip-object-checks): this run tests "
                             "the grader, it is not a grade.")
        log(f"sandbox: {mode.describe()}; scratch: {space.describe()}")
        log(f"seed: {seed}")
        builds, tests, figures = run_phases(ctx, all_tests)
        result = {"submission": submission, "started": started, "seed": seed,
                  "task_titles": dict(config.TASK_TITLES),
                  "sandbox": mode.describe(), "pace": paced.describe(),
                  "hidden_visibility": hidden_visibility,
                  "phases": ctx.phases, "notes": ctx.notes,
                  "builds": [b.as_result() for b in builds.values()],
                  **figures, **scored_result(tests, builds, rubric_path)}
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
    suite_results, _ = ctx.guarded("suites", suites_phase, lambda why: (_not_run(all_tests, why), None),
                                   builds, all_tests)
    for task in config.TASKS:
        ctx.trusted_for.setdefault(task, frozenset())
    timing_entries, timing_results = ctx.guarded(
        "timing", timing_phase, lambda why: ([], [TestResult("timing::" + name, _timed_task(), "failed",
                                                             "the timing check could not run: " + why,
                                                             kind="timing", flags=_error_flags(why))
                                                  for name in config.TIMED_SHAPES]), builds)
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
                                 lambda why: None)
        challenge_done = beside.submit(ctx.guarded, "challenge", challenge_phase, lambda why: None, builds)
        growth_done = beside.submit(
            ctx.guarded, "growth", growth_phase, lambda why: _kind_failed("growth", "the memory-growth check "
                                                                          "could not run: " + why),
            builds, suite_results)
        memory, memory_results = ctx.guarded(
            "memory", memory_phase, lambda why: ([], _kind_failed("memory", "the memory check could "
                                                                  "not run: " + why)),
            builds, suite_results)
        growth_results = settle_memory(ctx, memory_results,
                                       growth_needed(growth_done.result(), memory_results))
        cov = cov_done.result()
        challenge_result = challenge_done.result()
    build_tests = results_of_build_tests(builds)
    if ctx.copies_standin:
        for t in build_tests:
            if t.id == f"build::{config.POSITION}":
                t.flags.append(standin.FLAG)
    tests = (build_tests + suite_results + timing_results + memo_results
             + memory_results + growth_results)
    return builds, tests, {"timing": timing_entries, "challenge": challenge_result,
                           "memory": memory, "coverage": cov}


def _error_flags(why):
    return ["grader_error"] if why.startswith("an internal error") else []


def _timed_task():
    return next((t.number for t in config.LAB.tasks if t.timed), config.TASKS[-1])


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


def scored_result(tests, builds, rubric_path):
    """The result's tests, flags and totals, from the rubric and the gates."""
    scored = score(tests, rubric_path)
    entries = result_entries(scored)
    return {"tests": entries, "flags": flags_of([t for t, _, _ in scored], builds),
            "score": round(sum(e["score"] for e in entries), 2),
            "max_score": round(sum(e["max_score"] for e in entries), 2)}


def _save_log(ctx, result, cwd):
    """Keeps every sandboxed run's raw output in OUT/logs (capped by the sandbox)."""
    number = next(ctx.log_numbers)
    what = os.path.basename(cwd)
    if result.argv[0] in ("objdump", "nm", "objcopy"):   # the object checks
        what = f"objcheck-{result.argv[0]}-{os.path.basename(result.argv[-1])}"
    elif "-o" in result.argv[:-1]:   # a compiler or linker run: name it by what it makes
        made = os.path.basename(result.argv[result.argv.index("-o") + 1])
        what = ("compile-" if "-c" in result.argv else "link-") + made
    path = os.path.join(ctx.out, "logs", f"{number:02d}-{what}.txt")
    try:
        with open(path + ".tmp", "w", encoding="utf-8") as handle:
            handle.write(f"$ {' '.join(result.argv)}\n# {result.describe()}, "
                         f"{result.wall_seconds:.2f} s wall, {result.stdout_bytes} bytes stdout, "
                         f"{result.stderr_bytes} bytes stderr\n\n== stdout ==\n{result.stdout}\n"
                         f"== stderr ==\n{result.stderr}\n")
        os.replace(path + ".tmp", path)
    except OSError as error:   # a log not kept is said, and never ends the phase that ran
        ctx.log(f"grade: the log {os.path.basename(path)} was not written: {error}")
