"""The students' two source files, read safely, for the similarity report (grader/similarity).

Input is either a submissions directory (one subdirectory per student, the
two files at its top or under student/, as grader/grade-all takes it) or a
graded OUT directory of grade-all. A graded OUT does not hold the sources:
each OUT/<student>/batch-status.json records the submission's path at
grading time, and that path is read; a student whose recorded path is gone
(graded elsewhere, e.g. in CI) is skipped with that reason, and the
submissions directory should be given instead.

Student code is hostile input: no symbolic link is followed (the student's
directory, student/ and the files are opened with O_NOFOLLOW, each relative
to its parent's descriptor), only regular files are read, at most
config.MAX_SOURCE_BYTES of them, and a file that is empty, binary or not C
is skipped with why. Nothing here raises for a bad submission.

Each file read is normalised once (gradelib/ctokens.py, the copy check's
normaliser, linear in the file): what is compared is the code the compiler
sees (Student.compiled: comments, the preprocessor, code under `#if 0` and
empty statements blanked, lines kept), so dead code and padding cost
nothing and hide nothing. A file of more than config.MAX_SOURCE_TOKENS such
tokens is skipped with that reason (OVER_BUDGET): one student's file costs
that student's comparison, never the class's report.

Python 3.10+ standard library only.
"""

import functools
import json
import os
import stat

from . import batch, config, ctokens

CONTROL_SHARE = 0.01     # more control characters than this: binary, not source text
OVER_BUDGET = (f"over the budget of {config.MAX_SOURCE_TOKENS} tokens the code the compiler sees may "
               "have (braces counted, comments and #if 0 code not): not compared, look at it by hand")


class Student:
    """One student: name, the files read ({file: text}), each as compared ({file: compiled
    text, lines kept}; {file: normalised tokens}) and why others were not ({file: reason})."""

    def __init__(self, name):
        self.name = name
        self.texts, self.compiled, self.tokens_of = {}, {}, {}
        self.skipped = {}

    def add(self, file, text):
        """Keeps text as file's, normalised, or skips it when it is over the budget."""
        found = ctokens.normalise(text, config.MAX_SOURCE_TOKENS)
        if found.truncated:
            self.skipped[file] = OVER_BUDGET
            return
        self.texts[file] = text
        self.compiled[file] = ctokens.compiled_text(text, found)
        self.tokens_of[file] = found.tokens


def is_graded_dir(path):
    """A grade-all OUT: it has batch.json, or a student directory with batch-status.json."""
    if os.path.isfile(os.path.join(path, batch.BATCH_FILE)):
        return True
    with os.scandir(path) as entries:
        return any(e.is_dir(follow_symlinks=False) and os.path.isfile(os.path.join(e.path, batch.STATUS_FILE))
                   for e in entries)


def _recorded_submission(student_dir):
    """The submission path grade-all recorded for this student, or (None, why)."""
    try:
        with open(os.path.join(student_dir, batch.STATUS_FILE), encoding="utf-8") as handle:
            status = json.load(handle)
    except (OSError, ValueError):
        return None, f"no readable {batch.STATUS_FILE} to say where the submission is"
    where = status.get("submission") if isinstance(status, dict) else None
    if not isinstance(where, str) or not os.path.isabs(where):
        return None, f"{batch.STATUS_FILE} names no submission path"
    if not os.path.isdir(where):
        return None, (f"the submission recorded at grading time ({where}) is gone; "
                      "give the submissions directory instead")
    return where, None


def discover(path):
    """[(name, submission path or None, why not)] sorted by name, for every
    student-looking subdirectory of path (dot-directories are ignored)."""
    graded = is_graded_dir(path)
    found = []
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.name.startswith(".") or entry.name in batch.RESERVED:
                continue
            if entry.is_symlink():
                found.append((entry.name, None, "the student's directory is a symbolic link (not followed)"))
                continue
            if not entry.is_dir(follow_symlinks=False):
                continue
            problem = batch.name_problem(entry.name)
            if problem:
                found.append((entry.name, None, f"directory name {problem}"))
            elif graded:
                if os.path.isfile(os.path.join(entry.path, batch.STATUS_FILE)):
                    found.append((entry.name, *_recorded_submission(entry.path)))
            else:
                found.append((entry.name, entry.path, None))
    return sorted(found)


def _open_dir(name, dir_fd=None):
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def _present(name, dir_fd):
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        return True
    except OSError:
        return False


def _text_problem(data):
    """Why these bytes are not a C source file worth comparing, or None."""
    if not data.strip():
        return "empty"
    if b"\0" in data:
        return "binary (it holds NUL bytes), not C source"
    controls = sum(1 for byte in data if (byte < 32 and byte not in b"\t\n\r\f\v") or byte == 127)
    if controls > CONTROL_SHARE * len(data):
        return "binary (control characters), not C source"
    if b";" not in data and b"{" not in data:
        return "does not look like C (no ; and no {)"
    return None


def _read_file(name, dir_fd):
    """(text, None) or (None, why)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
                     dir_fd=dir_fd)
    except FileNotFoundError:
        return None, "missing"
    except OSError as error:
        if _is_link(name, dir_fd):
            return None, "a symbolic link (not followed)"
        return None, f"cannot be opened: {error.strerror}"
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return None, "a directory, not a file"
        if not stat.S_ISREG(info.st_mode):
            return None, "not a regular file"
        if info.st_size > config.MAX_SOURCE_BYTES:
            return None, f"larger than {config.MAX_SOURCE_BYTES} bytes"
        chunks, size = [], 0
        while size <= config.MAX_SOURCE_BYTES:
            chunk = os.read(fd, config.MAX_SOURCE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        return None, f"cannot be read: {error.strerror}"
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > config.MAX_SOURCE_BYTES:
        return None, f"larger than {config.MAX_SOURCE_BYTES} bytes"
    problem = _text_problem(data)
    if problem:
        return None, problem
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("latin-1"), None   # old editors' accents in comments are still C


def _is_link(name, dir_fd):
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def read_student(name, path):
    """A Student with what could be read of the two files at path's top or under student/."""
    student = Student(name)
    files = config.SUBMISSION_FILES
    try:
        top = _open_dir(path)
    except OSError as error:
        reason = ("a symbolic link (not followed)" if os.path.islink(path)
                  else f"the submission cannot be opened: {error.strerror}")
        student.skipped = {f: reason for f in files}
        return student
    inner = None
    try:
        where = top
        if not any(_present(f, top) for f in files) and _present("student", top):
            try:
                inner = _open_dir("student", dir_fd=top)
                where = inner
            except OSError:
                student.skipped = {f: "student/ is not a directory (a link or a file): not read" for f in files}
                return student
        for file in files:
            text, why = _read_file(file, where)
            if text is None:
                student.skipped[file] = why
            else:
                student.add(file, text)
    finally:
        if inner is not None:
            os.close(inner)
        os.close(top)
    return student


STANDIN_ENTRY, STUBS_ENTRY = "[stand-in map]", "[stubs]"   # not a student's name (batch.SAFE_NAME)


@functools.lru_cache(maxsize=None)
def reference_entries():
    """(the stand-in map, the stubs) as Students: public code every student has, which the
    report compares with each student (simcompare.against_references), not as a student."""
    entries = []
    for name, where, files in ((STANDIN_ENTRY, os.path.join("tests", "public", "standin"), [config.POSITION]),
                               (STUBS_ENTRY, "student", config.SUBMISSION_FILES)):
        entry = Student(name)
        for file in files:
            with open(os.path.join(config.REPO, where, file), encoding="utf-8") as handle:
                entry.add(file, handle.read())
        entries.append(entry)
    return tuple(entries)


def read_class(path):
    """Every student of path, read: [Student] sorted by name."""
    students = []
    for name, where, why in discover(path):
        if where is None:
            student = Student(name)
            student.skipped = {f: why for f in config.SUBMISSION_FILES}
        else:
            student = read_student(name, where)
        students.append(student)
    return students
