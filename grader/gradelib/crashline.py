"""A crash's line: where in the student's file a crashed test's call went wrong.

A test whose call crashed the student process says which call, on which
position, and which signal (the proxy's words). To name the line too, the
grader runs one such test again, alone, under valgrind: the memory check's
run (memcheck.run_task) of the same dynamically linked program, which
reports an invalid access or free with the student's own frame, as it does
for `make memcheck`. The first finding that is not a leak (a crashed test
leaves its positions behind) is added to every failed test whose message
begins with the same line: "valgrind, running the same call again: Invalid
read of size 4, at grundy_solver.c:34 in grundy_is_terminal". A public test
is chosen before a hidden one, and none is named.

Words only: no score reads them, and a run valgrind cannot vouch for (a
report cut short by the crash) still gives the findings it holds, which are
rebuilt from the student's own frames (memcheck.parse), never copied. Its
budget: at most MAX_RERUNS reruns a grading, one per distinct crash
message, each within [limits] crash_rerun_seconds, after every graded
phase (so its runs take nothing from their time or the grading's cap), and
never where the host's memory lowered the student processes' address space
(pace.py): valgrind has no RLIMIT_AS, and the crashed test may be a hog's.
A crash valgrind does not see as a bad access (an abort of the student's
own, a recursion that never ends) adds nothing; a process killed at one of
its limits (LIMIT_KILLS: the proxy's words for SIGKILL and SIGXCPU) is not
run again at all: almost always a slow solver, in which valgrind finds
nothing, and whose rerun ran to crash_rerun_seconds twice a grading (a
loop driven by an uninitialised value is left to the memory check's run).
"""

from . import config, memcheck

MAX_RERUNS = 2
# How the proxy (grader/boundary/proxy.c, death_meanings) names a student
# process ended at its CPU or memory limit rather than by its own fault.
LIMIT_KILLS = ("(SIGKILL: stopped at", "(SIGXCPU: stopped at")


def first_line(test):
    return test.message.splitlines()[0] if test.message else ""


def crashed(suite_results):
    """{first message line: the first failed test with it} of the tests whose
    call crashed the student process (public tests first, then in the order
    the suites reported them), at most MAX_RERUNS."""
    chosen = {}
    for test in sorted(suite_results, key=lambda t: t.hidden):   # a public test first, where one shows it
        if not test.passed and "crash" in test.flags and first_line(test) not in chosen and \
                not any(words in first_line(test) for words in LIMIT_KILLS):
            chosen[first_line(test)] = test
            if len(chosen) == MAX_RERUNS:
                break
    return chosen


def locate(mode, scratch, runner_of, program_of, seed, suite_results):
    """{first message line: the sentence naming the line} for the crashes
    valgrind placed in the student's code. runner_of(task) and
    program_of(task) give the task's runner and its dynamic program (or
    None)."""
    found = {}
    for rerun, (line, test) in enumerate(crashed(suite_results).items()):
        program = program_of(test.task)
        if program is None:
            continue
        result = memcheck.run_task(mode, scratch, runner_of(test.task), program, test.task, [test.id],
                                   seed, suffix=f"_crash{rerun}",
                                   seconds=config.LIMITS["crash_rerun_seconds"])
        finding = next((f for f in (result or {}).get("findings", []) if "Leak" not in f["kind"]), None)
        if finding is not None:
            found[line] = (f"valgrind, running the same call again: {finding['what']}, at "
                           f"{finding['file']}:{finding['line']} in {finding['function']} "
                           "(handout: handouts/grundy-lab.html#memcheck)")
    return found


def annotate(tests, found):
    """Adds each located crash's sentence to the failed tests that show it."""
    for test in tests:
        sentence = found.get(first_line(test))
        if sentence and not test.passed and "crash" in test.flags and sentence not in test.message:
            test.message = f"{test.message}\n{sentence}"
