"""The valgrind pass: memory errors and leaks, with file and line.

Each task's runner runs again under valgrind (memcheck), but only on the
light tests of config.MEMCHECK_TESTS that passed in the main run (a failing
test stops half-way and leaves its positions behind, which would be blamed
on the student), selected with Criterion's --filter. Valgrind writes one
XML file per process; a finding counts when its stack goes through the
submission's own files, and is reported with the first such frame.
Leak assertions inside the tests (tests/support/alloc_tracker.h) already
fail tests that leak; this pass adds invalid reads and writes, use after
free, uninitialised values and the allocation site of every leak.
"""

import glob
import os
import xml.etree.ElementTree as ET

from . import config, sandbox, suites

VALGRIND = ["valgrind", "--quiet", "--trace-children=yes", "--leak-check=full",
            "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite",
            "--num-callers=20", "--xml=yes"]


def run_task(mode, scratch, runner, task, selected, seed):
    """Findings of one task's passing tests, or None when none could run."""
    if not selected:
        return None
    name = f"memcheck-task{task}"
    xml_dir = os.path.join(scratch, "runs", name + "-xml")
    os.makedirs(xml_dir)
    valgrind = VALGRIND + [f"--xml-file={xml_dir}/vg.%p.xml"]
    # Valgrind reserves far more address space than the program uses, so no
    # RLIMIT_AS here; the CPU and wall limits still hold.
    limits = sandbox.Limits(cpu_seconds=300, wall_seconds=300, address_space=None)
    pattern = "@(" + "|".join(t.replace("::", "/") for t in sorted(selected)) + ")"
    result, records, error = suites.run_runner(
        mode, scratch, runner, name, seed, valgrind=valgrind, jobs=1, limits=limits,
        writable_extra=[xml_dir], extra_args=[f"--filter={pattern}"])
    findings = []
    for path in sorted(glob.glob(os.path.join(xml_dir, "vg.*.xml"))):
        findings += parse(path, os.path.join(scratch, "src"))
    return {"task": task, "findings": _dedupe(findings), "run": result.describe(),
            "report_error": error}


def parse(path, student_dir):
    """Findings in one valgrind XML file whose stack reaches student code."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return []   # a process killed mid-write: nothing reliable to report
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
