"""The guarded run: the memory check's verdict, which the kernel makes.

Valgrind's report (memcheck.py) is made inside the student process, and a
program can silence it there: a client request made at run time, a jump
into valgrind's preload, a write to the preload's table of functions
(grader/boundary/README.md, "Client requests"). So no point rests on it:
after valgrind's run of a task, the task's runner runs the same tests
again, natively, from a static student program whose allocator is
grader/boundary/guard_alloc.c (every block ends at a page nobody may
touch, a freed block's pages become untouchable, a new block holds 0xa5
bytes), under POLICY_GUARD, which lets the process make a page
untouchable but never touchable again and handle no SIGSEGV or SIGBUS. A
read or write past a block's end (at 8-byte grain) or into a freed block,
and a second free, kill the process there, whatever its code asks; an
answer built from bytes never written comes out otherwise. Nothing the
program says decides the verdict: only whether each test, which passed
in the main run, passes again.

The memory check (pipeline.memory_phase) runs this after a valgrind run
with no finding in the submission's own frames, as the backstop for a
valgrind silenced from inside; a program that tells this run apart and
misbehaves only elsewhere is failed by valgrind's run.
"""

from . import sandbox, suites


def run_task(mode, scratch, runner, program, task, selected, seed, suffix=""):
    """{"failed": [(test, what the runner said)], "complete", "why"} for one
    task's tests, or None when none could run."""
    if not selected:
        return None
    limits = sandbox.Limits(cpu_seconds=suites.RUNNER_SECONDS, wall_seconds=suites.RUNNER_SECONDS,
                            address_space=suites.RUNNER_ADDRESS_SPACE)
    result, records, error = suites.run_runner(mode, scratch, runner, f"guard-task{task}{suffix}", seed, program,
                                               policy="guard", tests=selected, limits=limits)
    failed, complete, why = [], True, ""
    for test in selected:
        record = records.get(test) or {}
        if record.get("status") != "passed":
            messages = record.get("messages")
            said = " ".join(m for m in messages if isinstance(m, str)) if isinstance(messages, list) else ""
            if "internal error" in said:
                # the grader's fault (the process did not start), never the code's
                complete, why = False, _short(said)
                continue
            failed.append((test, _short(said) or record.get("status") or "it did not run"))
    if error:
        complete, why = False, error
    return {"task": task, "failed": failed, "complete": complete, "why": why, "run": result.describe()}


def _short(text, cap=300):
    text = " ".join(text.split())
    return text if len(text) <= cap else text[:cap - 3] + "..."


def _failed(verdict):
    """("T" or "T and N more test(s)", what the runner said of T): the first failure."""
    test, said = verdict["failed"][0]
    more = len(verdict["failed"]) - 1
    return (f"{test} and {more} more test(s)" if more else test), said


def message(verdict):
    """The memory check's words when the guarded run failed."""
    which, said = _failed(verdict)
    return ("valgrind reported nothing, but the guarded run did not pass: with the grader's guarded "
            "allocator (every block ends where memory nobody may touch begins, a freed block cannot be "
            f"touched again, a new block holds bytes 0xa5), {which}, which pass otherwise, "
            f"failed ({said}). Your code reads or writes past the end of a "
            "block, or into a block it freed, or frees a block twice, or builds an answer from bytes "
            "it never wrote.\n(handout: handouts/grundy-lab.html#memcheck)")


def incomplete_message(verdict):
    return (f"the guarded run could not run to the end ({verdict['why']}), so the memory check "
            "cannot say your code is clean")

