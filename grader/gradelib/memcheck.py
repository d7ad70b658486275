"""The valgrind pass: memory errors and leaks, with file and line.

Each task's runner runs again on the light tests of config.MEMCHECK_TESTS
that passed in the main run (a failing test stops half-way and leaves its
positions behind, which would be blamed on the student), with its student
processes started under valgrind (the proxy's "valgrind" policy, see
grader/boundary/seccomp_policy.c) from a dynamically linked student
program. Valgrind writes its XML report to a pipe that the proxy, on the
trusted side, reads (valgrind keeps its own descriptors out of the
program's reach) and hands to the grader over the run's side channel
(sandbox.run(side_channel=True)), a pipe no student process holds: never
through a file, since the program under valgrind may create files. A
finding counts when its stack goes through the submission's own files, and
is reported with the first such frame.

A report that is missing, cut short or unreadable means the check could not
run, which costs its points: it never means "no findings".
"""

import os
import xml.etree.ElementTree as ET

from . import config, sandbox, suites

XML_CAP = 8 << 20


def run_task(mode, scratch, runner, program, task, selected, seed):
    """{"findings", "complete", "why"} for one task's passing tests, or None
    when none could run."""
    if not selected:
        return None
    limits = sandbox.Limits(cpu_seconds=300, wall_seconds=300, address_space=None)
    # One test process at a time: they share the side channel.
    result, records, error = suites.run_runner(
        mode, scratch, runner, f"memcheck-task{task}", seed, program, policy="valgrind",
        tests=selected, limits=limits, jobs=1, call_seconds=suites.VALGRIND_TEST_TIMEOUT,
        side_channel=True)
    documents = split_reports(result.side)
    findings, complete, why = [], True, ""
    ran = [t for t in selected if (records.get(t) or {}).get("status") in ("passed", "failed")]
    if error or len(ran) < len(selected):
        complete, why = False, error or "not every selected test ran under valgrind"
    elif len(documents) < len(selected):
        complete, why = False, "valgrind handed over fewer reports than tests ran"
    for document in documents:
        parsed = parse(document, os.path.join(scratch, "src"))
        if parsed is None:
            complete, why = False, "a valgrind report is cut short or unreadable"
            continue
        findings += parsed
    return {"task": task, "findings": _dedupe(findings), "complete": complete, "why": why,
            "run": result.describe()}


def split_reports(side):
    """The XML documents framed as "valgrind-xml LENGTH\\n" + bytes."""
    documents, at = [], 0
    while at < len(side):
        end = side.find(b"\n", at)
        header = side[at:end].split() if end > at else []
        if len(header) != 2 or header[0] != b"valgrind-xml" or not header[1].isdigit():
            break
        length = int(header[1])
        documents.append(side[end + 1:end + 1 + length])
        at = end + 1 + length
    return documents


def parse(raw, student_dir):
    """Findings in one valgrind XML report whose stack reaches student code;
    None when the report is not a whole, readable valgrind report."""
    if len(raw) > XML_CAP or b"</valgrindoutput>" not in raw:
        return None
    try:
        root = ET.fromstring(raw)
    except ET.ParseError:
        return None
    if root.tag != "valgrindoutput":
        return None
    findings = []
    for error in root.iter("error"):
        kind = error.findtext("kind", "")
        what = error.findtext("what") or error.findtext("xwhat/text") or kind
        frames = []
        student_frame = None
        for frame in error.iterfind("stack/frame"):
            fn = frame.findtext("fn", "??")
            file, line, directory = frame.findtext("file"), frame.findtext("line"), frame.findtext("dir", "")
            frames.append(f"{fn} ({file}:{line})" if file else fn)
            if (student_frame is None and file in config.SUBMISSION_FILES
                    and os.path.realpath(directory) == os.path.realpath(student_dir)):
                student_frame = {"file": file, "line": int(line or 0), "function": fn}
        if student_frame is None:
            continue
        findings.append({"kind": kind, "what": what, **student_frame, "stack": frames[:12]})
    return findings


def _dedupe(findings):
    seen, unique = set(), []
    for f in findings:
        key = (f["kind"], f["file"], f["line"], f["function"])
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique
