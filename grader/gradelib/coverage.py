"""Coverage of the submission's two files under the public suites (gcovr).

The build. Each accepted file is compiled again, from the same copied
source, with exactly the graded flags plus --coverage (config.
COVERAGE_CFLAGS; every compile sees the same __DATE__ and __TIME__,
build.COMPILE_ENV), so it preprocesses to the very text the graded object
was compiled from: no macro, __OPTIMIZE__ or any other, differs, and no
line of the source exists in one build only. The object is checked as the
graded one was (objcheck, less exactly gcov's own additions), and a file
whose coverage object does not get the graded object's verdict gets no
coverage. Why not the graded objects themselves: gcov's counters change
the machine code, and the timing and memo checks compare the student
code's CPU time with an uninstrumented yardstick; gcov's constructor and
runtime would have to be allowed in every graded object and linked into
every student process. A separate object costs one compile, and its
source is the graded one.

What still differs from inside: the instrumented code itself, the
counter files' descriptors and $GRADER_GCOV_FILES, gcov_on_crash.c's
handlers. A program can tell the coverage run apart, so the coverage runs
earn nothing and hold nothing: the whole phase (compiles, link, the test
runs, gcovr) runs under a budget of its own (sandbox.Budget: [limits]
coverage_cpu_seconds of CPU, every process counted, and
coverage_wall_seconds scaled by the pace, inside the grading's time cap).
Past it, every run of the phase is stopped, the coverage is dropped and
the feedback and the log say "coverage stopped after N s"; no score moves.

The runs. The instrumented objects are linked into a student program
(with gcov_on_crash.o, so a test that crashes still contributes the lines
it ran), and each task's runner runs the public tests that passed in the
main run against it (tests that failed or hung are not run again), its
student processes under the "coverage" policy, which lets gcov's runtime
write its counter files.

Everything the coverage runs write (a student process under that policy
may open and write files) sits in scratch/coverage, a tmpfs of its own when
the grader is root (COVERAGE_BYTES, COVERAGE_FILES): filling it fails the
coverage, never the grader's scratch.

The counters (.gcda) and notes (.gcno) are written by sandboxed processes,
so root never hands that directory to a tool: it copies the regular files
among them (safefs: no link followed, no FIFO opened, capped) into a fresh
directory, and runs gcovr on that copy in the sandbox too, as the sandbox
user, with a time limit, writing only its detailed JSON into a fresh
report directory. Root reads that with safefs and writes OUT/coverage
itself (coverage_report.py): one bit per line and branch, ran or not,
beside root's own copy of the sources, since every count in the counters
is the program's choice and could carry any bytes. No counters at all means coverage could not be measured,
never 0%: measure then returns None and says why in the log.
"""

import errno
import os
import shutil

from . import build, config, coverage_report, safefs, sandbox, scratch as scratch_dir, suites

GCOVR_LIMITS = sandbox.Limits(cpu_seconds=config.LIMITS["gcovr_cpu_seconds"],
                              wall_seconds=config.LIMITS["gcovr_wall_seconds"])
# The whole phase's budget ([limits]; the wall time is scaled by the pace).
CPU_SECONDS = config.LIMITS["coverage_cpu_seconds"]
WALL_SECONDS = config.LIMITS["coverage_wall_seconds"]
COUNTER_CAP = 4 << 20     # bytes per .gcda/.gcno copied for gcovr (the reference's are 2-40 KiB)
DETAIL_CAP = 16 << 20     # bytes of gcovr's detailed JSON (the reference's: about 60 KiB)
# Where the coverage runs write (the instrumented objects, gcov's counters,
# the runners' reports): a tmpfs of its own when root (scratch.capped_directory).
COVERAGE_BYTES = 64 << 20
COVERAGE_FILES = 2000


def measure(mode, scratch, builds, out_dir, seed, log, passed_tests=()):
    """{"line_percent", "branch_percent", "html"}, or {"stopped": why} when
    the coverage budget ran out, or None when nothing ran.

    Writes OUT/coverage/index.html (gcovr's HTML) and OUT/coverage/cobertura.xml
    (for GitLab's coverage visualization)."""
    budget = sandbox.Budget("coverage", CPU_SECONDS, WALL_SECONDS * mode.pace)
    found = _measure(mode.within(budget), scratch, builds, out_dir, seed, log, passed_tests)
    log(f"coverage: {budget.spent:.1f} s of CPU, {budget.elapsed():.1f} s of {budget.describe()}")
    if budget.exceeded:
        why = (f"coverage stopped after {budget.elapsed():.0f} s: its runs reached the "
               f"{budget.exceeded} limit of {budget.describe()}, so no coverage is shown; "
               "coverage earns no points, and the score does not depend on it")
        log(f"coverage: {why}")
        return {"stopped": why[0].upper() + why[1:]}
    return found


def _measure(mode, scratch, builds, out_dir, seed, log, passed_tests):
    cov = os.path.join(scratch, "coverage")
    log("coverage: " + scratch_dir.capped_directory(cov, COVERAGE_BYTES, COVERAGE_FILES))
    graded = {name: b for name, b in builds.items() if b.accepted}
    copies = [build.FileBuild(name, present=True) for name in graded]
    check = any(b.object_checks != "skipped" for b in graded.values())
    build.compile_files(mode, scratch, copies, config.COVERAGE_CFLAGS, cov, log, check=check,
                        instrumented=True)
    objects = {}
    for copy in copies:
        if copy.accepted and copy.object_checks == graded[copy.file].object_checks:
            objects[copy.file] = copy.object
        elif not mode.budget.exceeded:
            log(f"coverage: {copy.file} not measured: its coverage object's checks say "
                f"{copy.object_checks or 'not compiled'}, the graded object's "
                f"{graded[copy.file].object_checks}: " + "; ".join(copy.rejections or [copy.errors]))
    if not objects:
        return None
    # One program for every task (each file's instrumented object, or its
    # public stand-in's); its counters add up over the tasks' runs.
    pair = [objects.get(f, build.standin_object(scratch, f)) for f in config.SUBMISSION_FILES]
    program = os.path.join(cov, "student_coverage")
    # The student process opens no file: the trusted side opens these for
    # it (grader/boundary/gcov_on_crash.c).
    counter_files = [os.path.splitext(build.raw_object(cov, f))[0] + ".gcda" for f in objects]
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
                              env_extra={"GRADER_GCOV_FILES": ":".join(counter_files)},
                              runs_dir=os.path.join(cov, "runs"))
            over = _over_the_cap(cov)
            if over:
                # Where cov is no tmpfs of its own, this is the cap: what the
                # runs left is removed (no link followed) and coverage stops.
                shutil.rmtree(cov, ignore_errors=True)
                log(f"coverage: not measured: {over}")
                raise OSError(errno.ENOSPC, over)
        if mode.budget.exceeded:
            return None
    found, why = report(mode, scratch, cov, os.path.join(out_dir, "coverage"), log)
    if why and not mode.budget.exceeded:
        log(f"coverage: not measured: {why}")
    return found


def _over_the_cap(cov):
    """Why what the coverage runs left in cov is more than a tmpfs of
    COVERAGE_BYTES and COVERAGE_FILES would hold, or ""."""
    files = size = 0
    for directory, dirs, names in os.walk(cov, followlinks=False):
        for name in names + dirs:
            try:
                size += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                continue
            files += 1
            if files > COVERAGE_FILES or size > COVERAGE_BYTES:
                return (f"the coverage runs wrote more than {COVERAGE_BYTES >> 20} MiB or "
                        f"{COVERAGE_FILES} files")
    return ""


def gcovr_program():
    """gcovr's absolute path, wherever it was installed: the sandbox runs
    tools with PATH=/usr/bin:/bin, but setup.sh's pip install (Ubuntu
    22.04's gcovr is older than the grader wants) puts it in
    /usr/local/bin, where a bare "gcovr" was not found and coverage was
    silently lost on Gradescope."""
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/bin", "/usr/bin", "/bin"])
    return shutil.which("gcovr", path=search)


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
    gcovr = gcovr_program()
    if gcovr is None:
        return None, "gcovr is not installed (make deps; on Gradescope, setup.sh)"
    argv = [gcovr, data_dir, "--root", data_dir, "--object-directory", data_dir,
            "--filter", os.path.join(data_dir, "src") + "/",
            "--json", os.path.join(report_dir, "coverage.json")]
    result = sandbox.run(mode, argv, cwd=report_dir, writable=[data_dir, report_dir],
                         limits=GCOVR_LIMITS)
    if not result.ok:
        return None, f"gcovr failed ({result.describe()}): {result.stderr.strip()[:2000]}"
    try:
        raw = safefs.read_regular(os.path.join(report_dir, "coverage.json"), DETAIL_CAP)
    except (safefs.Refused, OSError) as error:
        return None, f"gcovr's report is unreadable ({error})"
    sources = coverage_report.read_sources(os.path.join(scratch, "src"))
    files, why = coverage_report.parse(raw, sources)
    if why:
        return None, why
    coverage_report.write(files, sources, html_dir)
    every = coverage_report.totals(files)
    return {"line_percent": every["line_percent"], "branch_percent": every["branch_percent"],
            "html": "coverage/index.html"}, None
