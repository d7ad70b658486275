"""Fresh build of one submission in a scratch directory.

The scratch directory holds copies of the submission's two files, the
pristine headers and the prebuilt harness (build/grader): the submission
directory itself is only read. Each file is compiled in the sandbox
(warnings reported, never fatal), checked (objcheck, a teaching aid) and
its globals localized; then a student program is linked per task from
either the submission's or a public stand-in's object for each file (task
isolation, decided by the caller) and the student side of the boundary
(grader/boundary/student_server.c and the given code). The test runners
and the timing and growth probes are prebuilt and never linked with a
submission.
"""

import concurrent.futures
import dataclasses
import fnmatch
import hashlib
import os
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass, field

from . import clientreq, config, objcheck, safefs, sandbox



class SubmissionError(Exception):
    """The submission path cannot be graded at all (not a directory...)."""


@dataclass
class FileBuild:
    file: str
    present: bool = False
    compiled: bool = False
    accepted: bool = False
    warnings: str = ""
    errors: str = ""
    rejections: list = field(default_factory=list)
    rejected_names: list = field(default_factory=list)   # short names, for the gradebook
    object: str | None = None        # the localized object, when accepted
    # What the object checks (objcheck.check) said of the compiled object:
    # "passed", "rejected", "skipped" (--skip-object-checks) or "failed"
    # (a tool could not read it); "" when it was not compiled. With
    # "passed", a grading without them would link the very same object
    # (tests/staff/grader/check-fixtures relies on it).
    object_checks: str = ""

    def as_result(self):
        return {"file": self.file, "compiled": self.compiled, "accepted": self.accepted,
                "warnings": self.warnings, "errors": self.errors,
                "rejections": list(self.rejections)}


@dataclass
class SourceDir:
    """Where the two files are: top, or its subdirectory sub ("student");
    refused says what was not read on the way (shown with every file)."""
    top: str
    sub: str = ""
    refused: list = field(default_factory=list)

    @property
    def path(self):
        return os.path.join(self.top, self.sub) if self.sub else self.top

    def __fspath__(self):
        return self.path


def _top_path(submission):
    # A trailing slash would make the kernel follow a link at the last component.
    return submission.rstrip("/") or "/"


def locate(submission):
    """The directory holding the two files (a SourceDir): the top, or
    student/ in a clone. No link is followed at any level: a submission
    whose top is a link raises SubmissionError; a student/ that is a link is
    refused (named in SourceDir.refused) and the top is used."""
    top = _top_path(submission)
    try:
        top_fd = safefs.open_dir(top)
    except safefs.Refused as why:
        raise SubmissionError(f"{submission} {why}; the grader does not follow links, "
                              "give the directory itself") from None
    except OSError as error:
        raise SubmissionError(f"{submission}: not a readable directory ({error.strerror})") from None
    try:
        if _holds_a_file(top_fd):
            return SourceDir(top)
        try:
            student_fd = safefs.open_dir("student", dir_fd=top_fd)
        except safefs.Refused as why:
            return SourceDir(top, refused=[f"student/ {why}; it was not read"])
        except OSError:
            return SourceDir(top)
        try:
            return SourceDir(top, "student") if _holds_a_file(student_fd) else SourceDir(top)
        finally:
            os.close(student_fd)
    finally:
        os.close(top_fd)


def _holds_a_file(dir_fd):
    """Whether any of the two names exists there, whatever it is (a link or
    a FIFO under that name is then refused by name, not skipped)."""
    for name in config.SUBMISSION_FILES:
        try:
            os.lstat(name, dir_fd=dir_fd)
            return True
        except OSError:
            pass
    return False


def copy_sources(source_dir, scratch):
    """Copies the submission's files into scratch/src: regular files of at
    most config.MAX_SOURCE_BYTES only, each opened relative to its
    directory's descriptor without following links (and never blocking on
    a FIFO). Refusals go to each FileBuild's errors, so the build tests
    name them in the feedback. source_dir is a SourceDir from locate (or a
    path, read the same way)."""
    source = source_dir if isinstance(source_dir, SourceDir) else SourceDir(_top_path(os.fspath(source_dir)))
    dest = os.path.join(scratch, "src")
    os.makedirs(dest)
    builds = {name: FileBuild(name) for name in config.SUBMISSION_FILES}
    refused = list(source.refused)
    fd = None
    try:
        fd = safefs.open_dir(source.top)
        if source.sub:
            top_fd, fd = fd, None
            try:
                fd = safefs.open_dir(source.sub, dir_fd=top_fd)
            finally:
                os.close(top_fd)
    except safefs.Refused as why:
        refused.append(f"{source.sub or source.top}/ {why}; it was not read")
    except OSError as error:
        refused.append(f"{source.path} could not be opened ({error.strerror})")
    try:
        for name, build in builds.items():
            build.errors = _copy_one(fd, name, dest, build) if fd is not None else f"{name} was not read"
            if refused and not build.present:
                build.errors = "\n".join(refused + [build.errors])
    finally:
        if fd is not None:
            os.close(fd)
    include = os.path.join(scratch, "include")
    os.makedirs(include)
    for header in config.HEADERS:
        shutil.copyfile(os.path.join(config.REPO, "student", header), os.path.join(include, header))
    return builds


def _copy_one(dir_fd, name, dest, build):
    """Copies one file; returns "" or why it was not read."""
    try:
        data = safefs.read_regular(name, config.MAX_SOURCE_BYTES, dir_fd=dir_fd)
    except FileNotFoundError:
        return f"{name} is missing from the submission"
    except safefs.Refused as why:
        return f"{name} {why}; it was not read"
    safefs.write_atomic(os.path.join(dest, name), data, durable=False)
    build.present = True
    return ""


# What of the harness the sandbox's user may only execute, never read: the
# probes hold the oracle. (An ELF program runs from a file its user may not
# read; the kernel then also makes the process non-dumpable.) The runners
# stay readable: Criterion finds its tests by reading its own file.
TRUSTED_PROGRAMS = ("timing_probe", "growth_probe", "challenge_probe")
# The suites' runners: readable by the sandbox uid (Criterion reads its own
# file), never by the student's (copy_harness).
RUNNERS = "runner_task*"
# What grading never reads, left out of the scratch: the model solution
# (its objects and as a student program: a student process is never linked
# with it, see pipeline._objects), the oracle's and the suites' objects.
NOT_COPIED = ("reference", "oracle", "suites", "*.txt", "student_reference")


def copy_harness(scratch, mode=None):
    """Copies the prebuilt harness into the scratch, without NOT_COPIED,
    and locks it: when the grader is root, every file is root's and the
    probes are execute-only for the sandbox's user, so no sandboxed process
    (a student process under valgrind may open files) reads them, with or
    without bubblewrap. Given the grading's sandbox.Mode with a student uid
    (the grader is root), the runners, which hold the suites, are readable
    by the sandbox uid's own group alone: never by a student process."""
    target = harness(scratch)
    shutil.copytree(config.HARNESS, target, ignore=shutil.ignore_patterns(*NOT_COPIED))
    runners_group = mode.gid if mode is not None and mode.student_uid is not None else None
    for root, dirs, files in os.walk(target):
        os.chmod(root, 0o711)
        for name in files:
            path = os.path.join(root, name)
            if any(fnmatch.fnmatch(name, pattern) for pattern in TRUSTED_PROGRAMS):
                permissions = 0o711
            elif runners_group is not None and fnmatch.fnmatch(name, RUNNERS):
                os.chown(path, 0, runners_group, follow_symlinks=False)
                permissions = 0o750
            else:
                permissions = 0o755 if os.stat(path).st_mode & stat.S_IXUSR else 0o644
            os.chmod(path, permissions)


# The build's budget (issue 26): each compile may take COMPILE_LIMITS (CPU,
# memory, wall time), includes nest at most INCLUDE_DEPTH deep, and a whole
# build (both files, side by side, with their object checks) ends within
# BUILD_WALL_SECONDS. The pace does not stretch them: a model answer
# compiles in a tenth of a second, and a preprocessor bomb (a file that
# includes itself twice, a macro that expands without end) must cost its
# submission 0 quickly, never the grading's whole time cap. 10 s of CPU is
# many times what an honest file takes (the model solution's: under 0.1 s); 30 s
# of wall time is 15 s of CPU at half a CPU (Gradescope's default). The
# numbers are [limits] compile_cpu_seconds, compile_wall_seconds and
# build_wall_seconds of grader/lab.ini; the link of a student program has
# the same limits.
COMPILE_LIMITS = sandbox.Limits(cpu_seconds=config.LIMITS["compile_cpu_seconds"],
                                wall_seconds=config.LIMITS["compile_wall_seconds"],
                                address_space=1 << 30, paced=False)
INCLUDE_DEPTH = 24
BUILD_WALL_SECONDS = config.LIMITS["build_wall_seconds"]
# What the compiler says when a limit stopped it.
_STOPPED = ("terminated program", "out of memory", "exceeds maximum of", "virtual memory exhausted",
            "memory exhausted")


def _stopped_cause(file, result, messages):
    """The sentence naming the build's limit that stopped the compiler, or ""."""
    if not (result.timed_out or result.signal or any(m in messages for m in _STOPPED)):
        return ""
    return (f"The compiler was stopped ({result.describe()}): compiling {file} may take at most "
            f"{COMPILE_LIMITS.cpu_seconds} s of CPU, {COMPILE_LIMITS.wall_seconds:g} s and "
            f"{COMPILE_LIMITS.address_space >> 20} MiB of memory, with #include nested at most "
            f"{INCLUDE_DEPTH} deep. A file that includes itself, or a macro that expands without "
            "end, never finishes.")


def compile_argv(cflags, file, output, *extra):
    """The compiler's command line for src/FILE (grader/build-probe uses it too)."""
    return ["gcc", *cflags, f"-fmax-include-depth={INCLUDE_DEPTH}", "-Iinclude", *extra,
            "-c", f"src/{file}", "-o", output]


def compile_view(scratch, obj_dir):
    """What a compile sees of the grading (sandbox.run's cwd, readable,
    writable): the copied sources and the pristine headers, read-only, and
    its object directory; under bubblewrap nothing else but the system."""
    return {"cwd": scratch, "hide": [scratch],
            "readable": [os.path.join(scratch, "src"), os.path.join(scratch, "include")],
            "writable": [obj_dir]}


def link_view(scratch, inputs, output):
    """What a link sees (sandbox.run's cwd, readable, writable): the
    directories of its inputs and of its output, nothing else of the
    scratch."""
    readable = sorted({os.path.dirname(p) for p in inputs if p.startswith(scratch + os.sep)}
                      - {os.path.dirname(output)})
    return {"cwd": scratch, "readable": readable, "writable": [os.path.dirname(output)]}


# Every compile of a submission's file sees the same __DATE__ and
# __TIME__, so its graded and coverage builds preprocess to the same text.
COMPILE_ENV = {"SOURCE_DATE_EPOCH": "0"}


def compile_file(mode, scratch, build, cflags, obj_dir, log, check=True, deadline=None,
                 instrumented=False):
    """Compiles one file; on success checks and localizes its object.

    check=False skips the object checks (--skip-object-checks);
    instrumented: cflags hold --coverage, whose additions the checks allow
    (objcheck.gcov_additions)."""
    if not build.present:
        return
    os.makedirs(obj_dir, exist_ok=True)
    raw = raw_object(obj_dir, build.file)
    # Only the sources and the headers are visible to the compiler: an
    # `#include` or `.incbin` of anything else in the scratch (the harness,
    # with the reference's objects) finds nothing.
    limits = COMPILE_LIMITS
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 1:
            build.errors = (f"{build.file} was not compiled: the build's budget of "
                            f"{BUILD_WALL_SECONDS} s was spent")
            return
        limits = dataclasses.replace(limits, wall_seconds=min(limits.wall_seconds, left))
    result = sandbox.run(mode, compile_argv(cflags, build.file, raw), limits=limits, env=COMPILE_ENV,
                         **compile_view(scratch, obj_dir))
    log(f"compile {build.file}: {result.describe()}")
    messages = (result.stderr + result.stdout).strip()
    if not result.ok:
        cause = _stopped_cause(build.file, result, messages)
        build.errors = "\n".join(m for m in (cause, messages) if m) or \
            f"the compiler stopped: {result.describe()}"
        return
    build.compiled = True
    build.warnings = messages
    tool = _sandboxed_tool(mode, obj_dir)
    try:
        problems, defined = objcheck.check(raw, build.file, tool, forbid=check, instrumented=instrumented)
    except objcheck.ToolFailed as error:
        build.object_checks = "failed"
        build.rejections = [f"{build.file}: its object file could not be checked: {error}"]
        build.rejected_names = ["objcheck"]
        return
    build.object_checks = "skipped" if not check else "rejected" if problems else "passed"
    # Not an object check (a teaching aid): a boundary of the memory check,
    # so never skipped (clientreq.py).
    talks_to_valgrind = clientreq.problem(raw, build.file)
    if talks_to_valgrind:
        problems.append(("valgrind-client-request", talks_to_valgrind))
    for function in config.DEFINES[build.file]:
        if function not in defined:
            problems.append((f"missing-{function}", f"{build.file} does not define {function}(), "
                                                    "which grundy.h declares and the tests call"))
    build.rejected_names = sorted({name for name, _ in problems})
    build.rejections = [sentence for _, sentence in problems]
    if build.rejections:
        return
    local = os.path.join(obj_dir, build.file.replace(".c", ".o"))
    ok, error = objcheck.localize(raw, local, defined, tool)
    if not ok:
        build.rejections.append(f"{build.file}: its object file could not be prepared: {error}")
        build.rejected_names.append("objcopy")
        return
    build.accepted = True
    build.object = local


def _sandboxed_tool(mode, obj_dir):
    """objcheck's runner for a submission's object: binutils read what the
    sandbox wrote (an object built from the student's source), so they run
    in the sandbox too, as its user, with a time limit; root never opens it.
    Their output comes back through a pipe, whole or refused."""
    def tool(argv):
        result = sandbox.run(mode, argv, cwd=obj_dir, writable=[obj_dir], side_channel=True,
                             limits=sandbox.Limits(cpu_seconds=config.LIMITS["tool_cpu_seconds"],
                                                   wall_seconds=config.LIMITS["tool_wall_seconds"]))
        if len(result.side) > sandbox.SIDE_CAP - (1 << 16):
            return 1, "", f"its output passed {sandbox.SIDE_CAP >> 20} MiB"
        status = result.returncode if result.ok else 1
        return status, result.side.decode("utf-8", "replace"), result.stderr.strip() or result.describe()
    return tool


def compile_files(mode, scratch, builds, cflags, obj_dir, log, check=True, instrumented=False):
    """compile_file on each of builds, side by side: one compiler per file,
    each in its own sandbox, and the machine has a core per file."""
    os.makedirs(obj_dir, exist_ok=True)
    deadline = time.monotonic() + BUILD_WALL_SECONDS
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for done in [pool.submit(compile_file, mode, scratch, b, cflags, obj_dir, log, check, deadline,
                                 instrumented) for b in builds]:
            done.result()


def make_harness():
    """(built, make's messages): builds the grader's harness (build/grader),
    or finds it up to date, before a grading copies it."""
    # The grader's image (grader/image/Containerfile) builds the harness once
    # and then removes the sources of its secrets (the hidden suites, the
    # model solution): there make has nothing to rebuild from.
    if os.environ.get("GRADER_HARNESS_PREBUILT") == "1" and os.path.isdir(config.HARNESS):
        return True, "prebuilt"
    made = subprocess.run(["make", "--no-print-directory", "-s", "-C", config.REPO, "grader-harness"],
                          capture_output=True, text=True, check=False)
    return made.returncode == 0, made.stdout + made.stderr


# The harness's directory in a scratch has a name no submission can know
# (HARNESS_KEY is this grader process's own secret): the scratch is not
# listable by the sandbox's user (scratch.py), so without bubblewrap a
# compiler cannot `#include` or `.incbin` "../harness/runner_task0" (the
# runners hold the suites and must stay readable: Criterion reads its own
# file), and under bubblewrap the harness is not in a compile's view at all.
HARNESS_KEY = os.urandom(16)


def harness_name(scratch):
    return "harness-" + hashlib.blake2b(os.fsencode(scratch), key=HARNESS_KEY, digest_size=12).hexdigest()


def harness(scratch, *parts):
    return os.path.join(scratch, harness_name(scratch), *parts)


def student_side_objects(scratch, coverage=False, guard=False):
    """What a student program is linked from besides the submission's two
    objects: the server loop, the given code, the counters (and, for the
    guarded run, its allocator, before the C library's)."""
    given = harness(scratch, "given")
    objects = [harness(scratch, "boundary", "student_server.o"),
               harness(scratch, "boundary", "wire_untracked.o"),
               *[os.path.join(given, f) for f in sorted(os.listdir(given))],
               harness(scratch, "support", "alloc_tracker.o"),
               harness(scratch, "support", "expansion_counter.o"),
               harness(scratch, "support", "memo_recorder.o")]
    if coverage:
        objects.append(harness(scratch, "boundary", "gcov_on_crash.o"))
    if guard:
        objects.append(harness(scratch, "boundary", "guard_alloc.o"))
    return objects


def view(scratch, *paths):
    """What a trusted runner or probe (and the student process it starts)
    may read of the scratch: the harness and the directory of each of
    `paths` (its student program), never the sources, the objects or
    another run's directory (the run's own is bound writable)."""
    dirs = [harness(scratch)]
    for path in paths:
        if isinstance(path, str) and path.startswith(scratch + os.sep):
            where = os.path.dirname(path)
            if where not in dirs and not where.startswith(harness(scratch) + os.sep):
                dirs.append(where)
    return dirs


def runner(scratch, task):
    return harness(scratch, f"runner_task{task}")


def timing_probe(scratch):
    return harness(scratch, "timing_probe")


def growth_probe(scratch):
    return harness(scratch, "growth_probe")


def challenge_probe(scratch):
    return harness(scratch, "challenge_probe")


def raw_object(obj_dir, file):
    """The compiler's own object of `file` (before localize); under
    --coverage its counter file is this path with .gcda for .o."""
    return os.path.join(obj_dir, file.replace(".c", ".raw.o"))


def stub_object(scratch, file):
    return harness(scratch, "stubs", file.replace(".c", ".o"))


def standin_object(scratch, file):
    """What stands in for a submission's `file` in a later task's rescue
    program (pipeline._objects): the public stand-in map
    (tests/public/standin/) for the map, else the stubs'. Public code only:
    a student process can read and echo whatever it is linked with."""
    if file == config.POSITION:
        return harness(scratch, "standin", file.replace(".c", ".o"))
    return stub_object(scratch, file)


def link_student_program(mode, scratch, output, objects, log, static=True, coverage=False, guard=False):
    """Links a student program (the pair of objects and the student side of
    the boundary) in the sandbox; returns (ok, linker messages). Static for
    the seccomp-confined runs (no loader opening libraries), dynamic for
    valgrind (memcheck replaces malloc through the dynamic loader); guard:
    static with the guarded run's allocator (guard_alloc.c), without
    RELRO, whose mprotect to read-only the guard policy does not allow."""
    os.makedirs(os.path.dirname(output), exist_ok=True)
    # Only public code besides the submission's: no model object is in the
    # scratch to link (copy_harness), so none needs hiding from the linker.
    argv = ["gcc", *objects, *student_side_objects(scratch, coverage, guard), "-o", output, *config.WRAPS]
    if static or guard:
        argv.append("-static")
    if guard:
        argv.append("-Wl,-z,norelro")
    if coverage:
        # gcov's runtime opens its counter files through
        # gcov_on_crash.c, from descriptors spawn.c opened.
        argv += ["--coverage", "-Wl,--wrap=open,--wrap=mkdir,--wrap=access"]
    # The linker sees the directories of its inputs, nothing else of the
    # scratch (and, under bubblewrap, nothing of the host but the system:
    # sandbox.SYSTEM_DIRS).
    result = sandbox.run(mode, argv, **link_view(scratch, argv[1:], output), limits=COMPILE_LIMITS)
    log(f"link {os.path.basename(output)}: {result.describe()}")
    if result.ok and mode.student_uid is not None:
        # The student's uid runs it (and valgrind, as that uid, opens it):
        # the directory searchable, the program readable, whatever the
        # grader's umask; nothing else of the scratch is the student's.
        os.chmod(os.path.dirname(output), 0o711)
        if not stat.S_ISREG(os.lstat(output).st_mode):
            return False, "the linked program is not a regular file"
        os.chmod(output, 0o755, follow_symlinks=False)
    if result.ok:
        # whatever the objects were checked for: the bytes of the program
        # valgrind runs (clientreq.py)
        talks_to_valgrind = clientreq.problem(output, "the linked program")
        if talks_to_valgrind:
            log(f"link {os.path.basename(output)}: refused: {talks_to_valgrind}")
            return False, talks_to_valgrind
    return result.ok, (result.stderr + result.stdout).strip()
