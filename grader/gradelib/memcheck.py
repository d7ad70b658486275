"""The valgrind pass: memory errors and leaks, with file and line.

Each task's runner runs again on the light tests of config.MEMCHECK_TESTS
that passed in the main run (a failing test stops half-way and leaves its
positions behind, which would be blamed on the student), with its student
processes started under valgrind (the proxy's "valgrind" policy, see
grader/boundary/seccomp_policy.c) from a dynamically linked student
program. Valgrind writes its XML report to a socket that the proxy, on the
trusted side, reads and hands to the grader over the run's side channel
(sandbox.run(side_channel=True)), a pipe no student process holds: never
through a file, since the program under valgrind may create files. A
finding counts when its stack goes through the submission's own files, and
is reported with the first such frame.

A report that is missing, cut short or unreadable means the check could not
run, which costs its points: it never means "no findings". A finding in
the submission's own frames fails the memory check (pipeline.memory_phase);
the kernel's checks (the guarded run, guard.py; the growth check for
leaks) stand behind a valgrind silenced from inside.

What the program under valgrind can write into that channel (see
handouts/guides/design.md, "How the grader works", step 7): the report
travels on a socket placed in valgrind's reserved descriptor range
(grader/boundary/spawn.c), which the program can neither write (valgrind
refuses those descriptors) nor reopen through /proc/self/fd (a socket
cannot be opened by path); what is left
(dup of a reserved descriptor, sendfile, AIO) only the valgrind policy's
seccomp rules can close. Whatever still reaches the report is treated as
hostile: parse() is a pure cost to the submission. A report holding
anything valgrind never writes (a comment, CDATA, a processing instruction
or a DOCTYPE, which could hide a real finding; NUL bytes; an <error> of a
kind memcheck does not have, or whose frame in the submission names a word
its file does not hold or a line outside it) fails the check: the check
cannot vouch for the code, and its points are lost. A finding kept is
rebuilt, never copied: the kind's fixed sentence (valgrind's own only for
an access of 1 to 64 bytes), the submission's frames as function, file and
line (the first, and up to CALLERS callers of other functions after it),
every other frame as "...", and at most MAX_FINDINGS per task; so a
run chooses which of its own functions and lines appear, never text.
"""

import os
import re
import xml.etree.ElementTree as ET

from . import config, sandbox, suites

XML_CAP = 8 << 20
MAX_FINDINGS = 5           # per task: each is a cost already; more would only carry bytes
MAX_ERRORS = 200           # <error> elements in one report before it is refused
STACK_FRAMES = 8
# The submission's frames named after the first (each function once): where
# a leaked block came from is often not where it was allocated.
CALLERS = 2
FIELD_CAP = 80             # characters of a function or file name

# memcheck's error kinds (valgrind 3.19, docs/internals/xml-output-protocol4.txt),
# and what the feedback says when valgrind's own sentence is not one we know.
KINDS = {
    "InvalidFree": "invalid free", "MismatchedFree": "mismatched free / delete",
    "InvalidRead": "invalid read", "InvalidWrite": "invalid write",
    "InvalidJump": "jump to an invalid address", "Overlap": "source and destination overlap",
    "InvalidMemPool": "invalid memory pool", "UninitCondition":
    "conditional jump or move depends on uninitialised value(s)",
    "UninitValue": "use of uninitialised value", "SyscallParam":
    "a system call's argument is uninitialised or unaddressable",
    "ClientCheck": "a client check failed", "FishyValue": "a fishy (possibly negative) size",
    "ReallocSizeZero": "realloc() with size 0", "InvalidAlignment": "invalid alignment",
    "InvalidSizeAndAlignment": "invalid size and alignment",
    "Leak_DefinitelyLost": "memory definitely lost", "Leak_IndirectlyLost": "memory indirectly lost",
    "Leak_PossiblyLost": "memory possibly lost", "Leak_StillReachable": "memory still reachable",
}
# valgrind's own sentences, kept only with the numbers that help and are
# small: an access size; the leak's bytes and blocks are left out (make
# memcheck shows them), since a program chooses them freely.
WHAT_TEMPLATES = [
    (re.compile(r"Invalid (read|write) of size (1|2|4|8|16|32|64)"), None),
    (re.compile(r"Invalid free\(\) / delete / delete\[\] / realloc\(\)"), None),
    (re.compile(r"Mismatched free\(\) / delete / delete \[\]"), None),
    (re.compile(r"Conditional jump or move depends on uninitialised value\(s\)"), None),
    (re.compile(r"Use of uninitialised value of size (1|2|4|8|16|32|64)"), None),
    (re.compile(r"[0-9,]{1,20}( \([0-9,]{1,20} direct, [0-9,]{1,20} indirect\))? bytes in [0-9,]{1,20} "
                r"blocks are (definitely|indirectly|possibly) lost in loss record [0-9,]{1,20} of "
                r"[0-9,]{1,20}"), "{kind}"),
]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,79}")
_LINE = re.compile(r"[0-9]{1,7}")
# What valgrind never writes, but could hide a real finding or carry text.
_NOT_VALGRIND = (b"<!--", b"<![CDATA[", b"<!DOCTYPE", b"<!ENTITY", b"<?")

def run_task(mode, scratch, runner, program, task, selected, seed, suffix="", seconds=None):
    """{"findings", "complete", "why"} for one task's passing tests, or None
    when none could run. seconds: the runner's CPU and wall limit
    (valgrind_runner_seconds unless given)."""
    if not selected:
        return None
    seconds = seconds or config.LIMITS["valgrind_runner_seconds"]
    limits = sandbox.Limits(cpu_seconds=seconds, wall_seconds=seconds, address_space=None)
    # One test process at a time: they share the side channel.
    result, records, error = suites.run_runner(
        mode, scratch, runner, f"memcheck-task{task}{suffix}", seed, program, policy="valgrind",
        tests=selected, limits=limits, jobs=1, call_seconds=suites.VALGRIND_TEST_TIMEOUT,
        side_channel=True)
    documents, framing = split_reports(result.side)
    findings, complete, why = [], True, ""
    ran = [t for t in selected if (records.get(t) or {}).get("status") in ("passed", "failed")]
    # Each selected test passed without valgrind; one that fails under it
    # stopped half-way, so valgrind saw only part of what the test runs.
    # Code that behaves otherwise under valgrind (RUNNING_ON_VALGRIND: return
    # early, answer out of turn) would otherwise hide its leaks that way.
    failed_there = [t for t in ran if records[t].get("status") == "failed"]
    if error or len(ran) < len(selected):
        complete, why = False, error or "not every selected test ran under valgrind"
    elif framing:
        complete, why = False, framing
    elif len(documents) < len(selected):
        complete, why = False, "valgrind handed over fewer reports than tests ran"
    elif failed_there:
        complete, why = False, (f"{len(failed_there)} test(s) that pass without valgrind failed under it, "
                                f"such as {failed_there[0]}: valgrind saw only part of what they run")
    dropped = 0
    for document in documents:
        parsed, problem = parse(document, os.path.join(scratch, "src"))
        if problem:
            complete, why = False, problem
        findings += parsed
    stopped = _stopped_by_the_sandbox(records, ran)
    if stopped:
        # the cause, in the student's terms, rather than the cut report it
        # left: a call the valgrind policy does not allow (seccomp_policy.c)
        complete, why = False, stopped
    findings = _dedupe(findings)
    if len(findings) > MAX_FINDINGS:
        dropped, findings = len(findings) - MAX_FINDINGS, findings[:MAX_FINDINGS]
    return {"task": task, "findings": findings, "complete": complete, "why": why,
            "dropped": dropped, "run": result.describe()}


def _stopped_by_the_sandbox(records, ran):
    """A sentence when a test's student process under valgrind was killed
    by the seccomp filter (SIGSYS, proxy.c's words), else ""."""
    for test in ran:
        messages = records[test].get("messages")
        if isinstance(messages, list) and any(isinstance(m, str) and "SIGSYS" in m for m in messages):
            return (f"under valgrind, your program was stopped by the grader's sandbox (SIGSYS) for a "
                    f"system call a submission may not make (signals to another process, opening "
                    f"files, starting processes), in {test}")
    return ""


def split_reports(side):
    """([XML document], problem or ""): the documents framed as
    "valgrind-xml LENGTH\\n" + bytes; anything else on the channel is named."""
    documents, at = [], 0
    side = side or b""
    while at < len(side):
        end = side.find(b"\n", at)
        header = side[at:end].split() if end > at else []
        if len(header) != 2 or header[0] != b"valgrind-xml" or not _LINE.fullmatch(
                header[1].decode("ascii", "replace")):
            return documents, "the valgrind channel holds bytes that are not a framed report"
        length = int(header[1])
        if end + 1 + length > len(side):
            return documents, "a valgrind report is cut short"
        documents.append(side[end + 1:end + 1 + length])
        at = end + 1 + length
    return documents, ""


def parse(raw, student_dir):
    """(findings, problem): the findings of one valgrind XML report whose
    stack reaches student code, and "" when the report is valgrind's, whole
    and well-formed; else the findings that were, and why the report cannot
    vouch for the code (the check then fails: see the module's docstring).
    Never raises, whatever the bytes."""
    try:
        return _parse(raw, student_dir)
    except (ET.ParseError, ValueError, TypeError, RecursionError, MemoryError, OSError) as error:
        return [], f"a valgrind report is unreadable ({type(error).__name__})"


def _parse(raw, student_dir):
    if not isinstance(raw, (bytes, bytearray)):
        return [], "a valgrind report is not bytes"
    if len(raw) > XML_CAP:
        return [], f"a valgrind report is larger than {XML_CAP >> 20} MiB"
    if b"</valgrindoutput>" not in raw:
        return [], "a valgrind report is cut short or unreadable"
    body = raw.lstrip()
    if body.startswith(b"<?xml"):
        body = body[body.find(b"?>") + 2:]
    if any(marker in body for marker in _NOT_VALGRIND) or b"\0" in body:
        return [], ("a valgrind report holds markup valgrind never writes: the program under "
                    "valgrind wrote into it, so the check cannot vouch for the code")
    root = ET.fromstring(bytes(raw))
    if root.tag != "valgrindoutput":
        return [], "a valgrind report is not valgrind's (its root element)"
    errors = list(root.iter("error"))
    if len(errors) > MAX_ERRORS:
        return [], f"a valgrind report holds more than {MAX_ERRORS} errors"
    sources = _sources(student_dir)
    findings, refused = [], 0
    for error in errors:
        finding = _finding(error, student_dir, sources)
        if finding is False:
            refused += 1
        elif finding is not None:
            findings.append(finding)
    if refused:
        return findings, (f"{refused} of the valgrind report's errors are not well-formed "
                          "findings (dropped): the program under valgrind wrote into the "
                          "report, so the check cannot vouch for the code")
    return findings, ""


def _finding(error, student_dir, sources):
    """The finding of one <error>; None when its stack never reaches the
    submission; False when it is not a well-formed memcheck error."""
    kind = _text(error, "kind")
    if kind not in KINDS:
        return False
    what = _text(error, "what") or _text(error, "xwhat/text")
    template = next((t for t in WHAT_TEMPLATES if t[0].fullmatch(what)), None)
    if template is None or template[1] is not None:
        what = KINDS[kind]
    frames, student_frame, named = [], None, set()
    stack = error.find("stack")
    for frame in (stack.findall("frame") if stack is not None else []):
        fn, file, line = _text(frame, "fn") or "??", _text(frame, "file"), _text(frame, "line")
        directory = _text(frame, "dir", 4096)
        ours = (file in config.SUBMISSION_FILES and directory != "" and
                os.path.realpath(directory) == os.path.realpath(student_dir))
        if ours:
            # A frame of the submission must name a word of that file and a
            # line inside it, or the error is not valgrind's: a forged name
            # could carry anything.
            lines, words = sources.get(file, (0, frozenset()))
            if not _IDENTIFIER.fullmatch(fn) or fn.split(".")[0] not in words or \
                    not _LINE.fullmatch(line) or not 1 <= int(line) <= lines:
                return False
            fn = fn.split(".")[0]   # grundy_is_p_position.part.0: the compiler's clone
            if student_frame is None:
                student_frame = {"file": file, "line": int(line), "function": fn, "callers": []}
            elif len(student_frame["callers"]) < CALLERS and fn not in named:
                student_frame["callers"].append(f"{file}:{line} in {fn}")
            named.add(fn)
            if len(frames) < STACK_FRAMES:
                frames.append(f"{fn} ({file}:{line})")
        elif len(frames) < STACK_FRAMES and (not frames or frames[-1] != "..."):
            # Frames outside the submission (libc, valgrind's replacements,
            # the given code) are only shown as "...": their names could be
            # anything a program makes up.
            frames.append("...")
    if student_frame is None:
        return None
    return {"kind": kind, "what": what, **student_frame, "stack": frames}


def _text(element, path, cap=FIELD_CAP * 4):
    """An element's text, stripped and capped ("" when absent)."""
    found = element.find(path)
    return (found.text or "").strip()[:cap] if found is not None else ""


def _sources(student_dir):
    """{file: (its number of lines, the identifiers it holds)} of the
    scratch copy of each submission file (root's own copy): a finding
    beyond the end of the file, or in a function the file never names, is
    not valgrind's."""
    found = {}
    for file in config.SUBMISSION_FILES:
        try:
            with open(os.path.join(student_dir, file), "rb") as handle:
                text = handle.read(2 << 20)
        except OSError:
            continue
        found[file] = (text.count(b"\n") + 1,
                       frozenset(w.decode("ascii") for w in re.findall(rb"[A-Za-z_][A-Za-z0-9_]*", text)))
    return found


def _dedupe(findings):
    seen, unique = set(), []
    for f in findings:
        key = (f["kind"], f["file"], f["line"], f["function"])
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique
