"""Coverage of the submission's two files under the public suites (gcovr).

The files are compiled again with --coverage into a student program (with
gcov_on_crash.o, so a test that crashes still contributes the lines it
ran), and each task's runner runs the public tests that passed in the main
run against it (tests that failed or hung are not run again), its student
processes under the "coverage" policy, which lets gcov's runtime write its
counter files. Coverage earns no points.

Everything the coverage runs write (a student process under that policy
may open and write files) sits in scratch/coverage, a tmpfs of its own when
the grader is root (COVERAGE_BYTES, COVERAGE_FILES): filling it fails the
coverage, never the grader's scratch.

The counters (.gcda) and notes (.gcno) are written by sandboxed processes,
so root never hands that directory to a tool: it copies the regular files
among them (safefs: no link followed, no FIFO opened, capped) into a fresh
directory, and runs gcovr on that copy in the sandbox too, as the sandbox
user, with a time limit, writing only a fresh report directory. Root then
copies the report (HTML, Cobertura, summary) out with safefs into
OUT/coverage. No counters at all means coverage could not be measured,
never 0%: measure then returns None and says why in the log.
"""

import json
import os
import shutil

from . import build, config, safefs, sandbox, scratch as scratch_dir, suites

GCOVR_LIMITS = sandbox.Limits(cpu_seconds=60, wall_seconds=120)
COUNTER_CAP = 4 << 20     # bytes per .gcda/.gcno copied for gcovr (the reference's are 2-40 KiB)
# Where the coverage runs write (the instrumented objects, gcov's counters,
# the runners' reports): a tmpfs of its own when root (scratch.capped_directory).
COVERAGE_BYTES = 64 << 20
COVERAGE_FILES = 2000


def measure(mode, scratch, builds, out_dir, seed, log, passed_tests=()):
    """{"line_percent", "branch_percent", "html"} or None when nothing ran.

    Writes OUT/coverage/index.html (gcovr's HTML) and OUT/coverage/cobertura.xml
    (for GitLab's coverage visualization)."""
    cov = os.path.join(scratch, "coverage")
    log("coverage: " + scratch_dir.capped_directory(cov, COVERAGE_BYTES, COVERAGE_FILES))
    copies = [build.FileBuild(name, present=True) for name, b in builds.items() if b.accepted]
    build.compile_files(mode, scratch, copies, config.COVERAGE_CFLAGS, cov, log, check=False)
    objects = {copy.file: copy.object for copy in copies if copy.accepted}
    if not objects:
        return None
    # One program for every task (each file's instrumented object, or the
    # reference's); its counters add up over the tasks' runs.
    pair = [objects.get(f, build.reference_object(scratch, f)) for f in config.SUBMISSION_FILES]
    program = os.path.join(cov, "student_coverage")
    linked = None
    for task in config.TASKS:
        tests = [t for t in passed_tests if t.startswith(f"task{task}::")]
        if config.FILE_OF_TASK[task] not in objects or not tests:
            continue
        if linked is None:
            linked, _ = build.link_student_program(mode, scratch, program, pair, log, coverage=True)
        if linked:
            suites.run_runner(mode, scratch, build.runner(scratch, task), f"coverage-task{task}", seed,
                              program, policy="coverage", tests=tests, writable_extra=[cov],
                              runs_dir=os.path.join(cov, "runs"))
    found, why = report(mode, scratch, cov, os.path.join(out_dir, "coverage"), log)
    if why:
        log(f"coverage: not measured: {why}")
    return found


def parse_summary(raw):
    """((line %, branch %), "") from gcovr's JSON summary, or (None, why):
    it was made in the sandbox from counters the program wrote, so any
    shape is possible (never raises)."""
    try:
        summary = json.loads(raw)
        line, branch = float(summary["line_percent"]), float(summary["branch_percent"])
        files = len(summary["files"])
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
        return None, f"gcovr's summary is unreadable ({type(error).__name__})"
    if not (0 <= line <= 100 and 0 <= branch <= 100):
        return None, "gcovr's summary holds a percentage outside 0-100"
    if not files:
        return None, "gcovr found no counters for the submission's files: the check could not run"
    return (line, branch), ""


def report(mode, scratch, cov, html_dir, log):
    """gcovr's report of the counters in cov, into html_dir: (summary, None),
    or (None, the reason it could not run)."""
    data_dir = os.path.join(scratch, "coverage-data")
    report_dir = os.path.join(scratch, "coverage-report")
    for fresh in (data_dir, report_dir):
        os.makedirs(fresh)
    copied, refused = safefs.copy_tree_safely(cov, data_dir, COUNTER_CAP, 16 * COUNTER_CAP,
                                              pattern="*.gc[dn][ao]")
    for name, reason in refused:
        log(f"coverage: {name} not used: {reason}")
    if not any(name.endswith(".gcda") for name in copied):
        return None, "the coverage runs left no counters (.gcda): the check could not run"
    # gcov resolves the notes' source paths (src/FILE, from the compiler's
    # working directory) and writes its .gcov files in its own working
    # directory, which must then be writable: the copy, which root never
    # reads again, gets the sources (root's own copies) beside the counters.
    shutil.copytree(os.path.join(scratch, "src"), os.path.join(data_dir, "src"))
    argv = ["gcovr", data_dir, "--root", data_dir, "--object-directory", data_dir,
            "--filter", os.path.join(data_dir, "src") + "/",
            "--json-summary", os.path.join(report_dir, "summary.json"),
            "--html-details", os.path.join(report_dir, "index.html"),
            "--cobertura", os.path.join(report_dir, "cobertura.xml")]   # GitLab's coverage report
    result = sandbox.run(mode, argv, cwd=report_dir, readable=[scratch], writable=[data_dir, report_dir],
                         limits=GCOVR_LIMITS)
    if not result.ok:
        return None, f"gcovr failed ({result.describe()}): {result.stderr.strip()[:2000]}"
    try:
        raw = safefs.read_regular(os.path.join(report_dir, "summary.json"), config.LOG_COPY_CAP)
    except (safefs.Refused, OSError) as error:
        return None, f"gcovr's summary is unreadable ({error})"
    figures, why = parse_summary(raw)
    if why:
        return None, why
    line, branch = figures
    copied, refused = safefs.copy_tree_safely(report_dir, html_dir, config.LOG_COPY_CAP, config.LOG_DIR_CAP)
    for name, reason in refused:
        log(f"coverage report: {name} not copied: {reason}")
    return {"line_percent": round(line, 1), "branch_percent": round(branch, 1),
            "html": "coverage/index.html" if "index.html" in copied else None}, None
