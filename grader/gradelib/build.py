"""Fresh build of one submission in a scratch directory.

The scratch directory holds copies of the submission's two files, the
pristine headers and the prebuilt harness (build/grader): the submission
directory itself is only read. Each file is compiled in the sandbox
(warnings reported, never fatal), checked (objcheck) and its globals
localized; then the runners are linked with either the submission's or the
reference's object for each file (task isolation, decided by the caller).
"""

import os
import shutil
from dataclasses import dataclass, field

from . import config, objcheck, sandbox


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
    object: str | None = None        # the localized object, when accepted

    def as_result(self):
        return {"file": self.file, "compiled": self.compiled, "accepted": self.accepted,
                "warnings": self.warnings, "errors": self.errors,
                "rejections": list(self.rejections)}


def locate(submission):
    """The directory holding the two files: the top, or student/ in a clone."""
    if not os.path.isdir(submission):
        raise SubmissionError(f"{submission}: not a directory")
    for candidate in (submission, os.path.join(submission, "student")):
        if any(os.path.isfile(os.path.join(candidate, f)) for f in config.SUBMISSION_FILES):
            return candidate
    return submission


def copy_sources(source_dir, scratch):
    """Copies the submission's files (regular files only, size-capped)."""
    dest = os.path.join(scratch, "src")
    os.makedirs(dest)
    builds = {}
    for name in config.SUBMISSION_FILES:
        build = FileBuild(name)
        path = os.path.join(source_dir, name)
        if os.path.islink(path) or (os.path.exists(path) and not os.path.isfile(path)):
            build.errors = f"{name} is not a regular file (a link or a directory); it was not read"
        elif not os.path.exists(path):
            build.errors = f"{name} is missing from the submission"
        elif os.path.getsize(path) > config.MAX_SOURCE_BYTES:
            build.errors = f"{name} is larger than {config.MAX_SOURCE_BYTES} bytes; it was not read"
        else:
            shutil.copyfile(path, os.path.join(dest, name))
            build.present = True
        builds[name] = build
    include = os.path.join(scratch, "include")
    os.makedirs(include)
    for header in config.HEADERS:
        shutil.copyfile(os.path.join(config.REPO, "student", header), os.path.join(include, header))
    return builds


def copy_harness(scratch):
    # The sentinel file holds the exit status that ends every graded test;
    # the scratch directory is readable inside the sandbox, so it stays out
    # (only the suites' objects need the number, compiled in).
    shutil.copytree(config.HARNESS, os.path.join(scratch, "harness"),
                    ignore=shutil.ignore_patterns("reference-runner-*", "sentinel"))


def compile_file(mode, scratch, build, cflags, obj_dir, log, check=True):
    """Compiles one file; on success checks and localizes its object.

    check=False skips the object checks: only for the coverage build of a
    file whose plain build passed them (gcov's instrumentation adds a
    constructor and calls of its own)."""
    if not build.present:
        return
    os.makedirs(obj_dir, exist_ok=True)
    raw = os.path.join(obj_dir, build.file.replace(".c", ".raw.o"))
    result = sandbox.run(mode, ["gcc", *cflags, "-Iinclude", "-c", f"src/{build.file}", "-o", raw],
                         cwd=scratch, readable=[scratch], writable=[obj_dir],
                         limits=sandbox.Limits(cpu_seconds=60, wall_seconds=90))
    log(f"compile {build.file}: {result.describe()}")
    messages = (result.stderr + result.stdout).strip()
    if not result.ok:
        build.errors = messages or f"the compiler stopped: {result.describe()}"
        return
    build.compiled = True
    build.warnings = messages
    build.rejections = objcheck.check(raw, build.file) if check else []
    _, defined = objcheck.symbols(raw)
    for function in config.DEFINES[build.file]:
        if function not in defined:
            build.rejections.append(f"{build.file} does not define {function}(), "
                                    "which grundy.h declares and the tests call")
    if build.rejections:
        return
    local = os.path.join(obj_dir, build.file.replace(".c", ".o"))
    ok, error = objcheck.localize(raw, local)
    if not ok:
        build.rejections.append(f"{build.file}: its object file could not be prepared: {error}")
        return
    build.accepted = True
    build.object = local


def probe_objects(scratch):
    """Trusted objects of the timing probe: no allocation tracking, only the
    expansion counter, so the probe measures the solver and nothing else."""
    h = os.path.join(scratch, "harness")
    given = [os.path.join(h, "given", f) for f in sorted(os.listdir(os.path.join(h, "given")))]
    return [os.path.join(h, "runner", "timing_probe.o"), *given,
            os.path.join(h, "support", "expansion_counter.o")]


def harness_objects(scratch, *, with_suites=(), coverage=False):
    """Trusted objects to link with a submission's two objects."""
    h = os.path.join(scratch, "harness")
    objects = [os.path.join(h, "given", f) for f in sorted(os.listdir(os.path.join(h, "given")))]
    objects += [os.path.join(h, "support", f) for f in sorted(os.listdir(os.path.join(h, "support")))]
    objects.append(os.path.join(h, "runner", "grader_report.o"))
    if coverage:
        objects.append(os.path.join(h, "runner", "gcov_on_crash.o"))
    objects += [os.path.join(h, "suites", s) for s in with_suites]
    objects.append(os.path.join(h, "liboracle.a"))
    return objects


def reference_object(scratch, file):
    return os.path.join(scratch, "harness", "reference", file.replace(".c", ".o"))


def suites_of_task(scratch, task, public_only=False):
    names = [f"test_task{task}.o"]
    if not public_only and os.path.exists(os.path.join(scratch, "harness", "suites",
                                                       f"test_hidden_task{task}.o")):
        names.append(f"test_hidden_task{task}.o")
    return names


def link(mode, scratch, output, objects, log, extra=(), coverage=False, wraps=config.WRAPS):
    """Links a program in the sandbox; returns (ok, linker messages)."""
    argv = ["gcc", *objects, "-o", output, *wraps, *extra]
    if coverage:
        argv.append("--coverage")
    result = sandbox.run(mode, argv, cwd=scratch, readable=[scratch],
                         writable=[os.path.dirname(output)],
                         limits=sandbox.Limits(cpu_seconds=60, wall_seconds=90))
    log(f"link {os.path.basename(output)}: {result.describe()}")
    return result.ok, (result.stderr + result.stdout).strip()
