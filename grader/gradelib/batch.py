"""Batch grading: every submission of a class, into OUT/<student>/ (grader/grade-all).

A class is a directory with one subdirectory per student (its name is the
student's name). Each student is graded by grader/grade into a temporary
directory OUT/.partial-<student>-<random>, which is then put in place with
renames only: the old OUT/<student> (if any) is renamed to
OUT/.trash-<student>-<random>, the new one renamed to OUT/<student>, and the
trash deleted. A run killed at any moment therefore leaves each student
either with a complete result or with none; the next run deletes leftover
.partial-* directories, puts back a .trash-* directory whose replacement
never arrived, and grades what is missing.

Each OUT/<student>/ also holds batch-status.json: the grader's exit status,
the seed, the submission's newest file time and, when grading failed, why.
A student is up to date (skipped unless --force) when results.json exists,
the grader succeeded, and no file of the submission is newer than
results.json nor than the newest file time recorded when grading started.

OUT/batch.json records the batch's seed (drawn once, or given with --seed),
so a rerun or regrade uses the same hidden tests. OUT/.grade-all.lock
(flock) keeps two runs off the same OUT; every grader started inherits the
lock, so a grader orphaned by a killed run also keeps a new run out until
it ends.

Python 3.10+ standard library only.
"""

import concurrent.futures
import contextlib
import datetime
import fcntl
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from . import config, reports, safefs

GRADE = os.path.join(config.REPO, "grader", "grade")
STATUS_FILE = "batch-status.json"
BATCH_FILE = "batch.json"
LOCK_FILE = ".grade-all.lock"
PARTIAL_PREFIX = ".partial-"
TRASH_PREFIX = ".trash-"
# What class-report and grader/similarity write next to the students' directories: a student
# may not be called like one of them.
RESERVED = {"charts", "report.html", "gradebook.csv", BATCH_FILE, "logs",
            "similarity.html", "similarity.csv", "similarity-pairs",
            "canvas.csv", "roster-mismatch.txt", "regrade.md", "regrade.csv"}
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,99}")
OUTPUT_CAP = 1 << 20            # bytes of one grader's output kept in its logs


class BatchError(Exception):
    """The batch cannot run at all (bad arguments, OUT locked...)."""


def name_problem(name):
    """Why a directory name cannot be a student's name, or None if it can."""
    if name.startswith("."):
        return "starts with a dot"
    if name in RESERVED:
        return "is reserved for the class report's own files"
    if not SAFE_NAME.fullmatch(name):
        return ("has characters other than letters, digits and _ . @ + - "
                "(or does not start with a letter, digit or _, or is over 100 characters)")
    return None


def discover(submissions_dir):
    """(students, refused): students is [(name, path)] sorted by name, for
    every subdirectory with a safe name; refused is [(name, reason)] for
    the other subdirectories (dot-directories such as .git are ignored
    silently). Files at the top are not submissions and are ignored."""
    students, refused = [], []
    with os.scandir(submissions_dir) as entries:
        for entry in entries:
            if not entry.is_dir(follow_symlinks=True):
                continue
            if entry.name.startswith("."):
                continue
            problem = name_problem(entry.name)
            if problem:
                refused.append((entry.name, problem))
            else:
                students.append((entry.name, entry.path))
    students.sort()
    refused.sort()
    return students, refused


def parse_shard(text):
    """'K/N' -> (K, N), 1 <= K <= N."""
    match = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise BatchError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. 2/4")
    return int(match.group(1)), int(match.group(2))


def shard_of(students, shard):
    """The students of shard K/N: index i (0-based, in sorted order) with i % N == K-1."""
    if shard is None:
        return list(students)
    k, n = shard
    return [s for i, s in enumerate(sorted(students)) if i % n == k - 1]


def newest_mtime(path):
    """The newest modification time of path and everything under it, links
    not followed. Unreadable parts count as 'now' (so they are regraded)."""
    newest = 0.0
    try:
        newest = os.lstat(path).st_mtime
    except OSError:
        return time.time()
    for root, dirs, files in os.walk(path, onerror=lambda e: None, followlinks=False):
        for name in dirs + files:
            try:
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
            except OSError:
                newest = max(newest, time.time())
    return newest


def read_json(path):
    """A JSON object from path, or None if missing or not a JSON object."""
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def up_to_date(out, name, submission):
    """Whether OUT/name holds a successful grading newer than the submission."""
    results = os.path.join(out, name, "results.json")
    status = read_json(os.path.join(out, name, STATUS_FILE))
    try:
        graded = os.stat(results).st_mtime
    except OSError:
        return False
    if status is not None and status.get("error"):
        return False            # a grader error is retried
    newest = newest_mtime(submission)
    if newest >= graded:
        return False
    recorded = status.get("source_mtime") if status else None
    return not (isinstance(recorded, (int, float)) and newest > recorded)


# ---- OUT: lock, leftovers, batch.json -----------------------------------------

def lock(out):
    """An open, flock'ed file descriptor on OUT/.grade-all.lock."""
    fd = os.open(os.path.join(out, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise BatchError(f"{out} is in use by another grade-all run (or by a grader it started "
                         "that is still running); wait for it to end") from None
    return fd


def clean_leftovers(out, log):
    """Removes what a killed run left: .partial-* directories are dropped;
    a .trash-<student>-* directory is put back when OUT/<student> is
    missing (the run died between the two renames), else dropped."""
    for entry in sorted(os.listdir(out)):
        path = os.path.join(out, entry)
        if entry.startswith(PARTIAL_PREFIX) and os.path.isdir(path):
            log(f"removing {entry}, left by an interrupted run")
            shutil.rmtree(path, ignore_errors=True)
        elif entry.startswith(TRASH_PREFIX) and os.path.isdir(path):
            name = entry[len(TRASH_PREFIX):].rsplit("-", 1)[0]
            final = os.path.join(out, name)
            if name and name_problem(name) is None and not os.path.exists(final):
                log(f"restoring {name}/ from {entry}, left by an interrupted run")
                os.rename(path, final)
            else:
                shutil.rmtree(path, ignore_errors=True)


def batch_seed(out, seed, force):
    """The batch's seed: the one OUT/batch.json records, else `seed`, else
    a new one. A different --seed than the recorded one is refused unless
    --force (which regrades everyone with it)."""
    recorded = read_json(os.path.join(out, BATCH_FILE)) or {}
    old = recorded.get("seed")
    if isinstance(old, int) and not isinstance(old, bool):
        if seed is None or seed == old:
            return old
        if not force:
            raise BatchError(f"{out} was graded with seed {old}; rerun with --seed {old} "
                             f"(or without --seed), or with --force to regrade everyone with {seed}")
        return seed
    return seed if seed is not None else random.SystemRandom().randrange(1, 2**31)


def write_batch_file(out, info):
    data = json.dumps(info, indent=2, sort_keys=True) + "\n"
    safefs.write_atomic(os.path.join(out, BATCH_FILE), data.encode("utf-8"))


# ---- grading one student ------------------------------------------------------

class StudentGrading:
    """grader/grade run on one student per grade() call, from worker threads;
    stop() kills every grader still running and makes the workers give up."""

    def __init__(self, out, seed, timeout, lock_fd, grade_args=()):
        self.out = out
        self.seed = seed
        self.timeout = timeout
        self.lock_fd = lock_fd
        self.grade_args = list(grade_args)
        self.stopping = threading.Event()
        self._running = {}
        self._guard = threading.Lock()

    def stop(self):
        self.stopping.set()
        with self._guard:
            processes = list(self._running.values())
        for process in processes:
            with contextlib.suppress(OSError):
                process.kill()   # bubblewrap's --die-with-parent ends its sandboxed commands

    def grade(self, name, submission):
        """Grades one student; returns a dict: name, status ('graded',
        'grader_error', 'interrupted'), score, seconds, error."""
        start = time.monotonic()
        if self.stopping.is_set():
            return {"name": name, "status": "interrupted"}
        source_mtime = newest_mtime(submission)
        partial = tempfile.mkdtemp(prefix=f"{PARTIAL_PREFIX}{name}-", dir=self.out)
        try:
            os.chmod(partial, 0o755)
            exit_status, output, error = self._run_grader(submission, partial)
            # Ctrl-C (or a hang-up) reaches the graders too: they share the
            # terminal's process group, so that killing the group kills them
            # all. A grader may then die before this run's handler has set
            # `stopping`: give the handler a moment before calling it a
            # grader error.
            if exit_status != 0 and error is None:
                self.stopping.wait(2)
            if self.stopping.is_set():
                return {"name": name, "status": "interrupted"}
            results = read_json(os.path.join(partial, "results.json"))
            if error is None and exit_status != 0:
                error = f"grader/grade exited with status {exit_status}" + _last_line(output)
            if error is None and (results is None or not isinstance(results.get("tests"), list)):
                error = "grader/grade exited with status 0 but wrote no valid results.json"
            os.makedirs(os.path.join(partial, "logs"), exist_ok=True)
            with open(os.path.join(partial, "logs", "grade-all.txt"), "wb") as handle:
                handle.write(output)
            status = {
                "student": name,
                "submission": os.path.realpath(submission),
                "seed": self.seed,
                "exit_status": exit_status,
                "error": error,
                "source_mtime": source_mtime,
                "seconds": round(time.monotonic() - start, 2),
                "finished": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            write_status(partial, status)
            if self.stopping.is_set():
                return {"name": name, "status": "interrupted"}
            install(self.out, name, partial)
            partial = None
            return {"name": name, "status": "grader_error" if error else "graded",
                    "score": None if error else results.get("score"),
                    "seconds": status["seconds"], "error": error}
        finally:
            if partial is not None:
                shutil.rmtree(partial, ignore_errors=True)

    def record_error(self, name, submission, error, details):
        """Records a failure of grade-all itself for one student as a
        grader_error result (best effort: it is retried on the next run)."""
        partial = tempfile.mkdtemp(prefix=f"{PARTIAL_PREFIX}{name}-", dir=self.out)
        try:
            os.chmod(partial, 0o755)
            os.makedirs(os.path.join(partial, "logs"))
            with open(os.path.join(partial, "logs", "grade-all.txt"), "w", encoding="utf-8") as handle:
                handle.write(details)
            write_status(partial, {"student": name, "submission": os.path.realpath(submission),
                                   "seed": self.seed, "exit_status": None, "error": error})
            install(self.out, name, partial)
            partial = None
        finally:
            if partial is not None:
                shutil.rmtree(partial, ignore_errors=True)

    def _run_grader(self, submission, partial):
        """(exit status, combined output, error or None) of grader/grade."""
        argv = [sys.executable, GRADE, submission, "--out", partial, "--seed", str(self.seed),
                *self.grade_args]
        with tempfile.TemporaryFile() as sink:
            try:
                process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink,
                                           stderr=subprocess.STDOUT, cwd=config.REPO,
                                           pass_fds=(self.lock_fd,))
            except OSError as failure:
                return -1, b"", f"grader/grade could not start: {failure}"
            with self._guard:
                self._running[id(process)] = process
            error = None
            try:
                if self.stopping.is_set():
                    process.kill()
                process.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                error = f"grader/grade took more than {self.timeout} s and was stopped"
            finally:
                with self._guard:
                    self._running.pop(id(process), None)
            size = sink.seek(0, os.SEEK_END)
            sink.seek(0)
            output = sink.read(OUTPUT_CAP)
            if size > OUTPUT_CAP:
                output += f"\n[... {size - OUTPUT_CAP} bytes cut ...]\n".encode()
            return process.returncode, output, error


def _last_line(output):
    lines = [line for line in output.decode("utf-8", "replace").splitlines() if line.strip()]
    return f": {reports.clean(lines[-1], 200)}" if lines else ""


def write_status(directory, status):
    data = json.dumps(status, indent=2, sort_keys=True) + "\n"
    safefs.write_atomic(os.path.join(directory, STATUS_FILE), data.encode("utf-8"))


def install(out, name, partial):
    """Puts the complete directory `partial` in place as OUT/name with
    renames only (see the module's docstring)."""
    final = os.path.join(out, name)
    trash = None
    if os.path.lexists(final):
        trash = tempfile.mkdtemp(prefix=f"{TRASH_PREFIX}{name}-", dir=out)
        os.rmdir(trash)               # a fresh unique name (we hold OUT's lock): the old result takes it
        os.rename(final, trash)
    os.rename(partial, final)
    safefs.fsync_dir(out)
    if trash is not None:
        shutil.rmtree(trash, ignore_errors=True)


# ---- progress -----------------------------------------------------------------

class Progress:
    """One updating line on a terminal; plain log lines otherwise."""

    def __init__(self, total, stream=None):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()
        self.running = []
        self.last = ""
        self._guard = threading.Lock()

    def _status(self):
        text = f"[{self.done}/{self.total}] {self.last}"
        if self.running:
            text += " ... grading " + ", ".join(self.running)
        width = shutil.get_terminal_size((100, 20)).columns - 1
        return text if len(text) <= width else text[:max(width - 3, 0)] + "..."

    def _redraw(self):
        if self.tty:
            self.stream.write("\r\x1b[K" + self._status())
            self.stream.flush()

    def started(self, name):
        with self._guard:
            self.running.append(name)
            self._redraw()

    def line(self, text):
        """A line that stays (a warning, an error), above the progress line."""
        with self._guard:
            if self.tty:
                self.stream.write("\r\x1b[K")
            self.stream.write(text + "\n")
            self._redraw()
            self.stream.flush()

    def finished(self, name, what, keep=False):
        with self._guard:
            self.done += 1
            if name in self.running:
                self.running.remove(name)
            self.last = f"{name}: {what}"
            if self.tty:
                if keep:
                    self.stream.write(f"\r\x1b[K[{self.done}/{self.total}] {name}: {what}\n")
                self._redraw()
            else:
                self.stream.write(f"[{self.done}/{self.total}] {name}: {what}\n")
            self.stream.flush()

    def forget(self, name):
        """A student that ended without a result line (interrupted)."""
        with self._guard:
            if name in self.running:
                self.running.remove(name)
            self._redraw()

    def close(self):
        with self._guard:
            if self.tty:
                self.stream.write("\r\x1b[K")
                self.stream.flush()


# ---- the batch ----------------------------------------------------------------

def run(submissions_dir, out, jobs=1, seed=None, force=False, shard=None, only=(),
        timeout=1800, grade_args=(), stream=None):
    """Grades the class; returns a summary dict (counts, interrupted, seconds)."""
    stream = stream or sys.stdout
    if not os.path.isdir(submissions_dir):
        raise BatchError(f"{submissions_dir}: not a directory")
    submissions_dir = os.path.realpath(submissions_dir)
    out = os.path.realpath(out)
    if out == submissions_dir or out.startswith(submissions_dir + os.sep):
        raise BatchError("OUT must not be inside SUBMISSIONS_DIR (it would look like a student)")
    if submissions_dir.startswith(out + os.sep):
        raise BatchError("SUBMISSIONS_DIR must not be inside OUT")
    try:
        os.makedirs(out, exist_ok=True)
        if os.geteuid() == 0:
            # The class's results and the batch's seed are root's alone: no
            # grading's sandbox user (without bubblewrap, every student
            # process under valgrind) may read a classmate's output, and the
            # audit of each grading (sandbox.audit) finds nothing here.
            os.chmod(out, 0o700)
        lock_fd = lock(out)
    except OSError as error:
        raise BatchError(f"cannot use {out} as OUT: {error.strerror or error}") from None
    try:
        return _run_locked(submissions_dir, out, jobs, seed, force, shard, only, timeout,
                           grade_args, stream, lock_fd)
    except OSError as error:
        # OUT or SUBMISSIONS_DIR unreadable or unwritable, disk full...: what
        # was installed stays installed; the next run goes on from there.
        raise BatchError(f"{error.filename or out}: {error.strerror or error}") from None
    finally:
        os.close(lock_fd)


def _run_locked(submissions_dir, out, jobs, seed, force, shard, only, timeout, grade_args,
                stream, lock_fd):
    wall = time.monotonic()
    say = _line_writer(stream)
    clean_leftovers(out, say)
    seed = batch_seed(out, seed, force)
    students, refused = discover(submissions_dir)
    for name, reason in refused:
        say(f"grade-all: refusing {name!r}: the name {reason}; rename that directory to grade it")
    selected = select_students(students, shard, only)
    write_batch_file(out, batch_info(seed, submissions_dir, shard, selected, refused))
    say(f"grade-all: {len(selected)} submission(s) from {submissions_dir}"
        + (f" (shard {shard[0]}/{shard[1]} of {len(students)})" if shard else "")
        + f", seed {seed}, {jobs} at a time, into {out}")

    progress = Progress(len(selected), stream)
    todo, fresh = split_up_to_date(out, selected, force)
    for name in fresh:
        progress.finished(name, "up to date, skipped")
    grading = StudentGrading(out, seed, timeout, lock_fd, grade_args)
    try:
        with _stopping_on_signals(grading) as caught:
            counts = _grade_pending(grading, progress, todo, jobs, caught)
    finally:
        progress.close()
    counts["up_to_date"] = len(fresh)
    return {"students": len(selected), "counts": counts, "seed": seed, "out": out,
            "interrupted": caught[0] if caught else None,
            "seconds": round(time.monotonic() - wall, 1), "refused": refused}


def _line_writer(stream):
    def say(text):
        stream.write(text + "\n")
        stream.flush()
    return say


def select_students(students, shard, only):
    """The students this run grades: those of the shard, narrowed to `only`
    (--student) when given; an unknown name in `only` is an error."""
    selected = shard_of(students, shard)
    if only:
        unknown = sorted(set(only) - {name for name, _ in students})
        if unknown:
            raise BatchError("--student: no such submission: " + ", ".join(unknown))
        selected = [s for s in selected if s[0] in set(only)]
    return selected


def batch_info(seed, submissions_dir, shard, selected, refused):
    """What OUT/batch.json records of this run."""
    return {
        "seed": seed,
        "submissions": submissions_dir,
        "shard": f"{shard[0]}/{shard[1]}" if shard else None,
        "students": [name for name, _ in selected],
        "refused": [{"name": reports.clean(name), "reason": reason} for name, reason in refused],
        "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def split_up_to_date(out, selected, force):
    """(to grade [(name, path)], up to date [name]): with --force, nobody is up to date."""
    todo, fresh = [], []
    for name, path in selected:
        if not force and up_to_date(out, name, path):
            fresh.append(name)
        else:
            todo.append((name, path))
    return todo, fresh


@contextlib.contextmanager
def _stopping_on_signals(grading):
    """SIGINT, SIGTERM and SIGHUP stop every grading for the duration of the
    block; yields the list of the signals caught."""
    caught = []

    def on_signal(signum, _frame):
        # Only flags and kills here: the handler runs between two bytecodes
        # of the main thread, which may be halfway through writing to the
        # stream (a reentrant write raises) or holding the progress lock.
        # The main loop announces the stop.
        caught.append(signum)
        grading.stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield caught
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _grade_pending(grading, progress, todo, jobs, caught):
    """Grades `todo`, `jobs` at a time, each student's line as soon as it is
    done; returns the count of each outcome's status."""
    counts = {"graded": 0, "grader_error": 0, "interrupted": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        pending = {pool.submit(_grade_one, grading, progress, name, path) for name, path in todo}
        announced = False
        while pending:
            # Short waits, so the main thread runs signal handlers promptly.
            done, pending = concurrent.futures.wait(pending, timeout=0.5,
                                                    return_when=concurrent.futures.FIRST_COMPLETED)
            if caught and not announced:
                announced = True
                progress.line(f"grade-all: {signal.Signals(caught[0]).name}: stopping the graders; "
                              "graded results are kept, rerun to resume")
            for future in done:
                outcome = future.result()
                counts[outcome["status"]] += 1
                _show_outcome(progress, outcome)
    return counts


def _grade_one(grading, progress, name, path):
    """One student's outcome (a worker thread's job): an error of grade-all
    itself is recorded as that student's grader error, and the batch goes on."""
    if grading.stopping.is_set():
        return {"name": name, "status": "interrupted"}
    progress.started(name)
    try:
        return grading.grade(name, path)
    except Exception as failure:
        error = f"grade-all: {failure!r}"
        with contextlib.suppress(Exception):
            grading.record_error(name, path, error, traceback.format_exc())
        return {"name": name, "status": "grader_error", "error": error}


def _show_outcome(progress, outcome):
    if outcome["status"] == "graded":
        progress.finished(outcome["name"], f"{reports.points(outcome['score'])} "
                          f"({outcome['seconds']:.0f} s)")
    elif outcome["status"] == "grader_error":
        progress.finished(outcome["name"], f"GRADER ERROR: {outcome['error']}", keep=True)
    else:
        progress.forget(outcome["name"])
