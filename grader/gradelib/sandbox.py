"""Runs untrusted commands (compiler, linker, test runners) in isolation.

Every run gets: resource limits (CPU, address space unless valgrind runs,
file size, open files, processes), a wall-clock limit that kills the whole
process group, stdout/stderr capped to a head and a tail, a clean
environment and an empty working directory. Where the kernel allows it,
bubblewrap adds a private mount namespace with a fresh root (the system's
toolchain and libraries read-only, SYSTEM_DIRS, then only the run's own
readable and writable directories, a private /tmp: nothing else of the
host), no network, and a private PID namespace; without it, an audit
(lock_out) refuses to grade while the sandbox's user can read any file
outside the system; when the grader runs as
root, commands run as an unprivileged user of their own (see below).

Sandbox users. RLIMIT_NPROC counts every process of a uid on the machine,
so gradings that share one user (say `nobody`) share one process limit: a
fork storm in one grading, or just several gradings at once (grade-all -j),
would make another grading's runs fail to start. Each grading started as
root therefore takes a uid of its own from SANDBOX_UIDS (numbers no account
uses), held with an flock on a file in /run/lock for the grader's lifetime;
its group is the one of the same number, which no account has. Those uids
own no file outside the grading.

The student's uid. A grading as root claims a second uid of the pool for
its student processes, with a group of the same number that no account
has: runs that start student processes (`run(students=True)`: the
runners and the probes) run as the sandbox uid with CAP_SETUID,
CAP_SETGID and CAP_KILL as ambient capabilities (`setpriv`; all three
are in Docker's default set), and spawn.c's child becomes the student's uid in every slot,
with no capability, before its filter (grader/boundary/README.md, "Calls
on other processes, and the uids"). Under bubblewrap such a run's
bubblewrap is started as root without a user namespace (one maps a
single uid), keeping only those three capabilities; so every directory it
binds must be one that no sandbox uid could have replaced with a link
(`_safe_to_bind`). The student's uid reads its program and nothing of
the harness (the runners are readable by the sandbox uid and its group
only).

Per-grading caps. Started as root, a grading also makes a cgroup of its own
(cgroup.py: v2, else v1, else none, named in describe()) that every run
joins before it drops root, capping the memory and processes of all its
runs together, not only of each process.

Budgets. A phase that earns no points (coverage) runs under a Budget of
its own (Mode.within): every run it makes ends by the budget's deadline,
and is killed once the CPU time of the budget's runs, every process of each
run as the kernel counts it, reaches the budget's CPU seconds; a run asked
for after either is not started, and its result names the budget.

The mode is detected once (`detect()`), and logged by the caller. When
commands run as a sandbox uid, every directory above the scratch directory
must let that uid in (a private TMPDIR of mode 0700 does not): detect() then
refuses with a clear error (the grader fails, exit status 3) rather than
grading with a sandbox that cannot read the build, which would look like a
submission that does not compile.
"""

import atexit
import dataclasses
import fcntl
import grp
import math
import os
import pwd
import random
import resource
import select
import shutil
import signal
import stat
import subprocess
import threading
import time
from dataclasses import dataclass, field

from . import cgroup, config, labdef

CAP_HEAD = 32 * 1024
CAP_TAIL = 32 * 1024
# Uids for sandboxed runs: one per concurrent grading (see the header).
SANDBOX_UIDS = range(64200, 64264)
_uid_locks = []    # [(open lock file, uid)] of the uids this process holds: the sandbox's, the student's
_group = None      # this process's cgroup.Group, when root (see _grading_cgroup)
SANDBOX_TMP_BYTES = 64 << 20   # each run's private /tmp (valgrind's temporary files, gcc's)
# One grading of any submission ends within this many seconds of wall time
# (Mode.start_clock): [limits] grading_seconds_per_task in grader/lab.ini for
# each task of the term.
GRADING_WALL_SECONDS = labdef.lab().grading_cap_seconds

# The system a sandboxed run sees under bubblewrap: a fresh root (a tmpfs
# that bubblewrap makes) holding only these, read-only, then the run's own
# `readable` and `writable` directories, a private /proc (its own PID
# namespace), a minimal /dev and a private /tmp. Never `--ro-bind / /` with
# holes: the repository, another clone, a classmate's folder or an earlier
# grading's output is simply not there, wherever it lies on the host.
# /usr is given by its parts: a second clone under /usr/local/src or
# /usr/src would otherwise come with the toolchain.
SYSTEM_DIRS = ("/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
               "/usr/libexec", "/usr/include", "/usr/local/bin", "/usr/local/lib",
               "/usr/local/include")
# Top-level names that are links into /usr on a merged-/usr system
# (re-created as the same links), or directories of their own elsewhere.
SYSTEM_TOP = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What of /etc the tools read: the dynamic loader's cache and configuration,
# the alternatives' links (cc, ld, ...).
SYSTEM_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")


@dataclass
class Limits:
    cpu_seconds: int = 60          # RLIMIT_CPU, per process
    wall_seconds: float = 120.0    # the whole run, then SIGKILL of the group
    address_space: int | None = 2 << 30   # RLIMIT_AS in bytes; None for valgrind
    file_size: int = 64 << 20      # RLIMIT_FSIZE
    open_files: int = 64           # RLIMIT_NOFILE
    # RLIMIT_NPROC, threads included (per uid: each grading has its own, see
    # the header). Measured: a Part 2 grading peaks at 64 threads and
    # processes of its uid (three valgrind runners beside a coverage
    # runner, each with Criterion's workers and threads), and at 64 its
    # forks failed now and then with EAGAIN; the cgroup caps a grading at
    # 512 whatever this says.
    processes: int = 160
    # Whether the pace (pace.py) stretches wall_seconds: not for the build,
    # whose budget is the same on every host (build.COMPILE_LIMITS).
    paced: bool = True


@dataclass
class RunResult:
    argv: list
    returncode: int | None
    signal: int | None
    timed_out: bool
    wall_seconds: float
    stdout: str
    stderr: str
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    side: bytes = b""          # what the run wrote to its side channel (see run())
    capped: bool = False       # stopped (or never started) at the grading's time cap
    cap_seconds: float = GRADING_WALL_SECONDS   # that cap (scaled by the pace: Mode.start_clock)
    # Under a Budget: what it is, when it stopped (or did not start) this
    # run ("" otherwise), and the run's CPU time, every process of it.
    budget: str = ""
    cpu_seconds: float | None = None

    @property
    def ok(self):
        return self.returncode == 0 and not self.timed_out

    def describe(self):
        if self.capped:
            return ("stopped at the grading's time cap (the whole grading may take at most "
                    f"{self.cap_seconds:g} s)")
        if self.budget:
            return f"stopped by {self.budget}"
        if self.timed_out:
            return f"killed after the wall-clock limit ({self.wall_seconds:.1f} s)"
        if self.signal:
            return f"killed by signal {self.signal} ({signal.Signals(self.signal).name})"
        return f"exit status {self.returncode}"


class Budget:
    """The CPU time (cpu_seconds: every process of every run, as the kernel
    counts it) and the wall time (wall_seconds, from its making) that the
    runs of one phase may take together; thread-safe."""

    def __init__(self, name, cpu_seconds, wall_seconds):
        self.name, self.cpu_seconds, self.wall_seconds = name, cpu_seconds, wall_seconds
        self.started = time.monotonic()
        self.deadline = self.started + wall_seconds
        self.spent = 0.0         # CPU seconds of the runs that ended
        self.exceeded = ""       # "CPU" or "wall", once a limit was reached
        self._lock = threading.Lock()

    def describe(self):
        return f"the {self.name} budget ({self.cpu_seconds:g} s of CPU, {self.wall_seconds:g} s)"

    def elapsed(self):
        return time.monotonic() - self.started

    def over(self, running=0.0):
        """Which limit is reached ("CPU", "wall") with `running` CPU seconds
        of a run not yet charged, or ""; once reached, kept."""
        with self._lock:
            if not self.exceeded:
                if self.spent + running >= self.cpu_seconds:
                    self.exceeded = "CPU"
                elif time.monotonic() >= self.deadline:
                    self.exceeded = "wall"
            return self.exceeded

    def charge(self, cpu_seconds):
        with self._lock:
            self.spent += cpu_seconds


@dataclass
class Mode:
    bwrap: bool
    user: str | None          # the user commands run as, when dropped from root
    uid: int | None = None
    gid: int | None = None
    # The student processes' uid and gid (as root: see the header); None:
    # they share the sandbox uid.
    student_uid: int | None = None
    student_gid: int | None = None
    hidden: list = field(default_factory=list)   # paths masked inside the sandbox
    on_run: object = None      # called with (RunResult, cwd) after every run: the raw logs
    cgroup: object = None      # the grading's cgroup.Group (as root), which every run joins
    tmp_bytes: int = 0         # size of bubblewrap's private /tmp (0: bubblewrap's default)
    deadline: float | None = None  # time.monotonic() of the grading's time cap (start_clock)
    # The pace (pace.py): every run's wall-clock limit is multiplied by
    # `pace`; student processes get `student_address_space_mib` (0: lab.ini's).
    pace: float = 1.0
    student_address_space_mib: int = 0
    cap_seconds: float = GRADING_WALL_SECONDS   # the grading's time cap (start_clock)
    budget: Budget | None = None   # a phase's own budget (within), besides the cap

    def within(self, budget):
        """This mode for one phase's runs: the same sandbox and cap, and
        `budget` besides (see Budget)."""
        return dataclasses.replace(self, budget=budget)

    def start_clock(self, seconds=None):
        """From now on no run of this grading outlives the cap: a run's
        wall-clock limit is what is left of it, and a run asked for after
        it is not started (its result says so). The cap scales with the
        pace, up to config.GRADING_CAP_CEILING (never below the unscaled)."""
        base = seconds or GRADING_WALL_SECONDS
        self.cap_seconds = round(max(base, min(base * self.pace, config.GRADING_CAP_CEILING)), 1)
        self.deadline = time.monotonic() + self.cap_seconds

    def describe(self):
        tmp = f"private /tmp of {self.tmp_bytes >> 20} MiB" if self.tmp_bytes else "private /tmp"
        parts = [f"bubblewrap (no network, read-only system, {tmp} and PIDs)" if self.bwrap
                 else "rlimits only (bubblewrap unavailable)"]
        parts.append(f"as {self.user}" if self.user else f"as uid {os.getuid()}")
        # Which per-grading caps held, for the log and results.json.
        parts.append(self.cgroup.describe() if self.cgroup is not None
                     else "rlimits per process, no cgroup (not root)")
        return ", ".join(parts)


def detect(hidden_paths, probe_dir):
    """Chooses the strongest isolation this machine supports."""
    user = uid = gid = student_uid = None
    if os.geteuid() == 0:
        # Files the grading makes are never writable by group or others:
        # a directory above one that bubblewrap binds as root must not be
        # the sandbox uids' to rename in (_safe_to_bind).
        os.umask(os.umask(0) | 0o022)
        uid = _claim_sandbox_uid()
        gid = uid   # a group of its own, like the student's: the runners are readable by it alone
        student_uid = _claim_sandbox_uid(second=True)
        user = (f"uid {uid} (this grading's own sandbox user; its student processes: "
                f"uid {student_uid})")
    if uid is not None:
        # Checked first: otherwise every command (and bubblewrap's probe)
        # fails for want of access, which would look like a submission
        # that does not compile in a sandbox without bubblewrap.
        blocked = _unsearchable_parent(probe_dir, uid, gid)
        if blocked:
            raise RuntimeError(f"the sandbox user ({user}) cannot reach the scratch directory "
                               f"{probe_dir}: {blocked} is not searchable by it; set TMPDIR to a "
                               "directory every user can enter, such as /tmp")
    group = _grading_cgroup() if uid is not None else None
    ids = dict(uid=uid, gid=gid, student_uid=student_uid, student_gid=student_uid)
    mode = Mode(bwrap=False, user=user, hidden=list(hidden_paths), cgroup=group, **ids)
    if student_uid is not None:
        _check_runner_start(mode, probe_dir)
    if shutil.which("bwrap"):
        # A size-capped private /tmp first (bubblewrap 0.6 and later have
        # --size), else bubblewrap's default one.
        for tmp_bytes in (SANDBOX_TMP_BYTES, 0):
            trial = Mode(bwrap=True, user=user, hidden=list(hidden_paths), cgroup=group,
                         tmp_bytes=tmp_bytes, **ids)
            # In a directory of its own: the probe's writable directory
            # becomes the sandbox user's, and the scratch itself stays
            # root's (mode 0711: the harness's name inside is secret).
            trial_dir = os.path.join(probe_dir, f"detect-{tmp_bytes}")
            os.makedirs(trial_dir, exist_ok=True)
            result = run(trial, ["/bin/true"], cwd=trial_dir, writable=[trial_dir],
                         limits=Limits(wall_seconds=config.LIMITS["sandbox_probe_seconds"]))
            if result.ok and student_uid is not None:
                # and the way runners start, as root without a user namespace
                result = run(trial, ["/bin/true"], cwd=trial_dir, writable=[trial_dir], students=True,
                             limits=Limits(wall_seconds=config.LIMITS["sandbox_probe_seconds"]))
            shutil.rmtree(trial_dir, ignore_errors=True)
            if result.ok:
                mode = trial
                break
    return mode


def _check_runner_start(mode, probe_dir):
    """Refuses to grade (RuntimeError, naming the cause) where a runner
    cannot be started as the student uid's keeper: no setpriv, or a
    container without CAP_SETUID, CAP_SETGID or CAP_KILL. Never a silent
    fall back to one uid for runner and student processes."""
    trial_dir = os.path.join(probe_dir, "detect-runner")
    os.makedirs(trial_dir, exist_ok=True)
    try:
        result = run(mode, ["/bin/true"], cwd=trial_dir, writable=[trial_dir], students=True,
                     limits=Limits(wall_seconds=config.LIMITS["sandbox_probe_seconds"]))
    finally:
        shutil.rmtree(trial_dir, ignore_errors=True)
    if not result.ok:
        raise RuntimeError("cannot start a test runner as the grading's sandbox uid with the "
                           f"capabilities {', '.join(RUNNER_CAPS)} (util-linux's setpriv, as root): "
                           f"{result.describe()}: {result.stderr.strip()[:300]}")


class SecretsReachable(RuntimeError):
    """Without bubblewrap, a file outside the system is readable by the
    sandbox's user (it would be by the compiler, the linker and every
    student process under valgrind)."""


# Without bubblewrap, what the sandbox's user may read (audit()): the
# system, as bubblewrap's fresh root holds it (SYSTEM_DIRS), plus the parts
# of /usr, /etc and /var that hold the system's own data. Everything else a
# file system holds (/home, /srv, /opt, /tmp, /usr/local/src, /var/www,
# /mnt...) is walked: a second clone of the staff repository, a class
# folder or an earlier grading's output there refuses the grading.
AUDIT_SYSTEM = SYSTEM_DIRS + SYSTEM_TOP + (
    "/usr/share", "/usr/games", "/usr/src", "/usr/etc", "/usr/local/share", "/usr/local/sbin", "/usr/local/etc",
    "/usr/local/man", "/usr/local/games", "/etc", "/var/lib", "/var/cache", "/var/log",
    "/var/backups", "/var/mail", "/var/spool", "/boot")
# Kernel file systems: not files of anyone's. And the marker files a
# container engine puts in every container (podman's /run/.containerenv
# names the engine, the image and the container; Docker's /.dockerenv is
# empty): the engine's, nothing of the grader's or of a student's.
AUDIT_PSEUDO = ("/proc", "/sys", "/dev", "/run/.containerenv", "/.dockerenv")
# /run is the running system's state: a file in a directory of /run that
# only its owner may write, when that owner is root or a system account
# (Debian's: below 1000, or 60000-64999, the grader's own SANDBOX_UIDS
# excepted), is a daemon's (slurmd.pid on every Slurm node, munge's), never
# course data. Anything else there is walked: /run/lock is writable by
# all, /run/user/UID holds a user's own files.
RUN_STATE = "/run"
AUDIT_SHOWN = 12            # files named in the refusal
AUDIT_WALL_SECONDS = 30.0   # a walk slower than this refuses too (measured: 0.01-0.1 s)


@dataclass
class Audit:
    readable: list            # the readable files found outside the allowlist (the first few)
    count: int                # how many in all
    files_seen: int
    seconds: float
    complete: bool = True

    def describe(self):
        return (f"file-system audit as the sandbox's user: {self.files_seen} files seen in "
                f"{self.seconds:.2f} s, {self.count} readable outside the system")


def audit(mode, allowed=(), roots=("/",)):
    """Walks the file system as the sandbox's user, the way a compiler or a
    student process could (entering what it may enter, listing what it
    may list), and returns an Audit of the regular, non-empty files it may
    read outside AUDIT_SYSTEM, the kernel's file systems and `allowed`
    (this grading's own scratch), and of the directories it may enter but
    not list (named with a final "/": a file inside at a guessable name
    would be readable), except a grading's scratch (scratch.py: its only
    entry has a random name)."""
    skip = tuple(os.path.realpath(p) for p in AUDIT_SYSTEM + AUDIT_PSEUDO + tuple(allowed))
    read_end, write_end = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:   # the child: raw os calls only (the grader may hold threads)
        code = 0
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(mode.gid)
            os.setuid(mode.uid)
            _audit_walk(roots, set(skip), write_end)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            chunk = pipe.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
            if time.monotonic() - start > AUDIT_WALL_SECONDS:
                os.kill(pid, signal.SIGKILL)
                break
    _, status = os.waitpid(pid, 0)
    fields = b"".join(chunks).split(b"\0")
    seen = int(fields[-1]) if fields[-1].isdigit() and os.WIFEXITED(status) else -1
    found = [f.decode("utf-8", "replace") for f in fields[:-1] if f]
    return Audit(found[:AUDIT_SHOWN], len(found), max(seen, 0), time.monotonic() - start,
                 complete=seen >= 0 and os.WEXITSTATUS(status) == 0)


def _audit_walk(roots, skip, out):
    """(in the child, as the sandbox's user) writes each readable file's
    path and a NUL to out, then the count of files seen."""
    seen = 0
    stack = [r for r in roots if r not in skip]
    while stack:
        directory = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            # Not ours to list. If ours to enter, a file inside at a name
            # one can guess (/home/ta/grundy-lab/...) is readable all the
            # same: such a directory is reported (with a "/"), except a
            # grading's scratch, whose only entry has a random name.
            try:
                info = os.stat(directory)
                scratch_top = (os.path.basename(directory).startswith("grundy-grade-")
                               and info.st_uid == 0)
                if os.access(directory, os.X_OK) and not scratch_top:
                    os.write(out, os.fsencode(directory) + b"/\0")
            except OSError:
                pass
            continue
        daemons_only = (directory + "/").startswith(RUN_STATE + "/") and _only_system_writes(directory)
        with entries:
            for entry in entries:
                path = entry.path
                if path in skip:
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(path)
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue     # links are judged where they lead, when that is walked
                    seen += 1
                    if daemons_only:
                        continue     # a daemon's pid file or state (slurmd.pid, munge's): the system's
                    if entry.stat(follow_symlinks=False).st_size and os.access(path, os.R_OK):
                        os.write(out, os.fsencode(path) + b"\0")
                except OSError:
                    continue
    os.write(out, str(seen).encode())
    os.close(out)


def _only_system_writes(directory):
    """Whether no one but the directory's owner may write in it, and that
    owner is root or a system account (not a sandbox uid)."""
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    system = info.st_uid < 1000 or (60000 <= info.st_uid < 65000 and info.st_uid not in SANDBOX_UIDS)
    return stat.S_ISDIR(info.st_mode) and system and not info.st_mode & 0o022


def _chmod_advice(paths):
    """The chmod that makes each place of `paths` unreadable by others: the
    shallowest directory above the file that is not on the way to the
    system's (AUDIT_SYSTEM) and is at least two levels down (/home/ta,
    /srv/grundy-lab, /usr/local/src), or the file itself."""
    places = []
    for path in paths:
        path = path.rstrip(os.sep) or path
        parts = path.split(os.sep)
        place = path
        for depth in range(3, len(parts)):
            above = os.sep.join(parts[:depth])
            if not any(system == above or system.startswith(above + os.sep) for system in AUDIT_SYSTEM):
                place = above
                break
        if place not in places:
            places.append(place)
    return "chmod -R o-rwx " + " ".join(places)


def lock_out(mode, secrets=(), owned=(), allowed=()):
    """Without bubblewrap nothing masks the host: the sandbox's user reaches
    whatever its permissions let it. So every path of `owned` (made by this
    grading: its output) is made root's alone, and then the sandbox's user
    walks the file system (audit()): any file it may read outside the
    system and `allowed` (the grading's scratch) refuses the grading,
    with the chmod that fixes it: the grader's own tree (setup.sh does
    `chmod o-rwx` on the autograder's source), a second clone of the staff
    repository, a class folder, an earlier grading's output. `secrets`
    (the grader's tree) must also not be enterable at all. With
    bubblewrap (a fresh root holds none of it), or not root (no sandbox
    user), nothing to do. Returns the Audit, or None when none ran."""
    if mode.bwrap or mode.uid is None:
        return None
    for path in owned:
        os.chmod(path, 0o700)
    for path in secrets:
        if _reachable(path, mode.uid, mode.gid):
            raise SecretsReachable(
                f"without bubblewrap the sandbox's user ({mode.user}) could read {path}, which holds "
                f"the grader's secrets (hidden suites, model solution): make it unreadable by others "
                f"(chmod -R o-rwx {path}, as grader/gradescope/setup.sh does) and grade again")
    # GRUNDY_AUDIT_ALLOW: more places (":"-separated) staff know hold
    # nothing of a course's (a vendor's SDK in /opt, say).
    extra = [p for p in os.environ.get("GRUNDY_AUDIT_ALLOW", "").split(":") if p.startswith("/")]
    found = audit(mode, [*allowed, *extra])
    if not found.complete:
        raise SecretsReachable(f"without bubblewrap the file-system audit did not finish "
                               f"({found.describe()}); the grading was refused")
    if found.count:
        more = f" and {found.count - len(found.readable)} more" if found.count > len(found.readable) else ""
        raise SecretsReachable(
            f"without bubblewrap the sandbox's user ({mode.user}), and with it the compiler and "
            f"every student program, could read {found.count} file(s) outside the system (a "
            f"name ending in / is a directory it may enter but not list: a file inside at a name "
            f"one can guess would be readable): "
            + ", ".join(found.readable) + more + ". Such a file may be a second clone of the "
            "staff repository, a classmate's submission or an earlier grading's output. Make "
            f"them unreadable by others ({_chmod_advice(found.readable)}) and grade again")
    return found


def _reachable(path, uid, gid):
    """Whether uid/gid may enter the directory `path` (it and every
    directory above it searchable): then it opens any file inside whose
    name it knows and whose mode lets others read, as the project's are."""
    return _unsearchable_parent(os.path.join(path, "x"), uid, gid) is None


def _grading_cgroup():
    """This process's cgroup.Group, made once (like its sandbox uid)."""
    global _group
    if _group is None:
        _group = cgroup.create()
    return _group


def _claim_sandbox_uid(second=False):
    """A uid of SANDBOX_UIDS that no account and no other grading uses: the
    grading's sandbox uid, or with `second` its student processes' one
    (each claimed once per process, and never the same)."""
    if len(_uid_locks) > (1 if second else 0):
        return _uid_locks[1 if second else 0][1]
    if second and not _uid_locks:
        _claim_sandbox_uid()
    lock_dir = "/run/lock" if os.access("/run/lock", os.W_OK) else "/tmp"
    # From a random place in the pool: gradings in containers of one
    # machine share its uids but not their lock files, nor always a view of
    # each other's processes; two that took the same uid would share its
    # RLIMIT_NPROC (measured: four shard containers on one host, each on
    # the pool's first uid, failed each other's forks).
    start = random.SystemRandom().randrange(len(SANDBOX_UIDS))
    uids = list(SANDBOX_UIDS)
    for uid in uids[start:] + uids[:start]:
        if any(uid == held for _, held in _uid_locks):
            continue
        try:
            pwd.getpwuid(uid)
            continue            # a real account: never borrow it
        except KeyError:
            pass
        try:
            grp.getgrgid(uid)
            continue            # nor a real group (a student uid's group has its number)
        except KeyError:
            pass
        handle = _open_lock_file(os.path.join(lock_dir, f"grundy-grader-uid-{uid}.lock"))
        if handle is None:
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        if not _end_processes_of(uid):
            handle.close()      # in use by a grading this lock does not see
            continue
        _uid_locks.append((handle, uid))
        atexit.register(handle.close)   # the lock ends with the grading
        return uid
    raise RuntimeError(f"all {len(SANDBOX_UIDS)} sandbox uids are in use by other gradings")


def _processes_of(uid):
    """The live processes of uid (a zombie is its parent's to reap: a
    SIGKILL cannot end it further)."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid != uid:
                    continue
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as handle:
                    state = handle.read().rsplit(")", 1)[1].split()[0]
                if state not in ("Z", "X"):
                    pids.append(int(name))
            except (OSError, IndexError):
                pass    # gone meanwhile
    return pids


def _end_processes_of(uid, wait_seconds=5.0):
    """Whether the uid is free: ends what an earlier grading of this uid on
    this machine left dying (RLIMIT_NPROC counts every process of the uid,
    so a valgrind still being killed when its grading ended made this
    grading's first forks fail with EAGAIN), and says False when the uid
    has a live process of another PID namespace (a grading in a container
    whose lock files this grader does not see: never killed, passed over)."""
    own = _pid_namespace("self")
    deadline = time.monotonic() + wait_seconds
    while True:
        left = _processes_of(uid)
        if not left:
            return True
        if any(_pid_namespace(pid) not in (own, None) for pid in left):
            return False
        if time.monotonic() > deadline:
            return False
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def _pid_namespace(pid):
    """The PID namespace of a process (None when it is gone or unreadable)."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _open_lock_file(path):
    """The lock file, or None when it is not a regular file: opened without
    following a link, since where /run/lock is not writable the locks live
    in /tmp, where a sandbox without bubblewrap could plant a link or a
    FIFO. Such a uid is passed over, not trusted."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_CLOEXEC, 0o644)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "a")


def _unsearchable_parent(path, uid, gid):
    """The first directory above path that uid/gid may not enter, or None."""
    parent = os.path.dirname(os.path.realpath(path))
    while True:
        info = os.stat(parent)
        bit = (stat.S_IXUSR if info.st_uid == uid else
               stat.S_IXGRP if info.st_gid == gid else stat.S_IXOTH)
        if not info.st_mode & bit:
            return parent
        if parent == os.path.dirname(parent):
            return None
        parent = os.path.dirname(parent)


def _preexec(limits, mode, students=False):
    def apply():
        os.setsid()
        # [limits] gives seconds as numbers; the kernel takes whole ones
        caps = [(resource.RLIMIT_CPU, int(math.ceil(limits.cpu_seconds))),
                (resource.RLIMIT_FSIZE, limits.file_size),
                (resource.RLIMIT_NOFILE, limits.open_files),
                (resource.RLIMIT_CORE, 0)]
        if limits.address_space is not None:
            caps.append((resource.RLIMIT_AS, limits.address_space))
        if mode.uid is not None:
            caps.append((resource.RLIMIT_NPROC, limits.processes))
        for which, value in caps:
            resource.setrlimit(which, (value, value))
        _first_for_the_oom_killer()
        if mode.cgroup is not None:
            mode.cgroup.enter()   # while still root: the group's files are root's
        if mode.uid is not None and not students:
            os.setgroups([])
            os.setgid(mode.gid)
            os.setuid(mode.uid)
    return apply


# What a runner keeps to start student processes of the student uid: to
# change uid and gid in spawn.c's child (and, at the exec gate, its file
# system ids for a moment, to read a path from a student process of
# another uid), and to end them.
RUNNER_CAPS = ("setuid", "setgid", "kill")
# What bubblewrap started as root keeps besides, for setpriv alone: to enter
# the run's directory (the sandbox uid's, maybe 0700) before setpriv leaves
# root, and to cut the bounding set down to RUNNER_CAPS. setpriv's exec
# drops both: the runner holds RUNNER_CAPS and can never regain another.
BWRAP_ROOT_CAPS = ("dac_override", "setpcap")


def _as_runner(mode, argv):
    """argv run by setpriv as the sandbox uid, with RUNNER_CAPS only."""
    caps = "-all," + ",".join("+" + cap for cap in RUNNER_CAPS)
    return ["/usr/bin/setpriv", f"--reuid={mode.uid}", f"--regid={mode.gid}", "--clear-groups",
            f"--inh-caps={caps}", f"--ambient-caps={caps}", f"--bounding-set={caps}", "--"] + list(argv)


def _outermost(readable, writable):
    """(readable, writable) without a path that another one holds: a run
    directory inside a writable directory (the coverage runs') is bound
    with it. For bubblewrap started as root, which must not resolve a path
    inside a directory a sandbox uid may write (it could be a link by
    now); what is inside is resolved in the sandbox's own root instead."""
    def inside(path, others):
        return any(path == o or path.startswith(o.rstrip("/") + "/") for o in others)
    writable = [w for w in writable if not inside(w, [o for o in writable if o != w])]
    writable = list(dict.fromkeys(writable))
    readable = [r for r in readable if not inside(r, writable)]
    readable = [r for r in dict.fromkeys(readable) if not inside(r, [o for o in readable if o != r])]
    return readable, writable


def _safe_to_bind(path):
    """Refuses (UnsafeWritablePath) a directory that bubblewrap, started
    as root, must not bind: one whose path has a link in it, or a
    directory above it that anyone but root may write (a sticky one of
    root's, like /tmp, excepted: nobody else can rename root's entries
    there). Else a sandbox uid that can write above a directory the
    runner is given could swap it for a link to anything of root's."""
    path = os.path.abspath(path)
    here = "/"
    for part in [p for p in path.split("/") if p]:
        above = os.lstat(here)
        if above.st_uid != 0 or (above.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
                                 and not above.st_mode & stat.S_ISVTX):
            raise UnsafeWritablePath(f"refusing to bind {path} for a runner started as root: "
                                     f"{here} may be written by others than root")
        here = os.path.join(here, part)
        if stat.S_ISLNK(os.lstat(here).st_mode):
            raise UnsafeWritablePath(f"refusing to bind {path} for a runner started as root: "
                                     f"{here} is a symbolic link")


def _first_for_the_oom_killer():
    """Where memory runs out with no cgroup of the grading's own (Gradescope:
    a read-only /sys/fs/cgroup), the kernel's OOM killer ends a process of
    the container: this makes it a sandboxed one (inherited by every
    process the run starts, student processes too), never the grader.
    Runs in the forked child before exec: raw calls, best effort."""
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    except OSError:
        return
    try:
        os.write(fd, b"1000")
    except OSError:
        pass
    finally:
        os.close(fd)


def system_view():
    """[(kind, source, target)] of the system part of every fresh root:
    kind "symlink" (source is the link's text) or "ro-bind"; what does not
    exist on this host is left out."""
    view = []
    for path in SYSTEM_DIRS + SYSTEM_TOP + SYSTEM_ETC:
        if os.path.islink(path) and path in SYSTEM_TOP:
            view.append(("symlink", os.readlink(path), path))
        elif os.path.exists(path):
            view.append(("ro-bind", path, path))
    return view


def _bwrap_argv(mode, argv, cwd, readable, writable, env, hide=(), students=False):
    """bubblewrap's command line: a fresh root (see SYSTEM_DIRS) holding the
    system, then `readable` read-only and `writable` read-write, each at
    its own path. `mode.hidden` and `hide` name what an older layout (the
    host's root with holes) masked; nothing of the host outside the lists
    is in a fresh root, so they need no mount of their own."""
    if students:
        # Started as root: no user namespace (it would map one uid, and
        # the runner's student processes need a second), the other
        # namespaces as --unshare-all makes them, and no capability but
        # the runner's (setpriv, first in argv, then leaves root).
        command = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                   "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        for cap in RUNNER_CAPS + BWRAP_ROOT_CAPS:
            command += ["--cap-add", f"CAP_{cap.upper()}"]
    else:
        command = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
    system = system_view()
    if students:
        command += _searchable_parents([target for _, _, target in system], [])
    for kind, source, target in system:
        command += ["--symlink", source, target] if kind == "symlink" else ["--ro-bind", source, target]
    command += ["--proc", "/proc", "--dev", "/dev"]
    if students:
        # root's too: Criterion's arena (boxfort) lives in /dev/shm
        if mode.tmp_bytes:
            command += ["--size", str(mode.tmp_bytes)]
        command += ["--perms", "1777", "--tmpfs", "/dev/shm"]
    if mode.tmp_bytes:
        command += ["--size", str(mode.tmp_bytes)]   # applies to the next tmpfs: the private /tmp
    if students:
        command += ["--perms", "1777"]   # root's tmpfs: the sandbox and student uids' temporary files
    command += ["--tmpfs", "/tmp"]
    if students:
        command += _searchable_parents(list(readable) + list(writable) + [os.path.join(cwd, "x")],
                                       [target for _, _, target in system], made=["/tmp"])
    for path in readable:
        command += ["--ro-bind", path, path]
    for path in writable:
        command += ["--bind", path, path]
    # The working directory exists in the new root even when only paths
    # below it were bound (bubblewrap makes their parents).
    command += ["--dir", cwd, "--chdir", cwd, "--clearenv"]
    for key, value in env.items():
        command += ["--setenv", key, value]
    return command + ["--"] + list(argv)


def _searchable_parents(paths, mounts, made=()):
    """bubblewrap's options that make the directories above `paths` (but
    not `mounts` nor anything inside one, nor what is `made` already)
    searchable and not listable: started as root, bubblewrap makes them
    mode 0700, which the runner's uid and the student's could not pass."""
    options, made = [], set(made)
    for path in paths:
        parts = [p for p in os.path.abspath(path).split("/") if p][:-1]
        for depth in range(1, len(parts) + 1):
            parent = "/" + "/".join(parts[:depth])
            inside = any(parent == m or parent.startswith(m + "/") for m in mounts)
            if parent not in made and not inside:
                made.add(parent)
                options += ["--perms", "0711", "--dir", parent]
    return options


class _Capped:
    """Collects a stream, keeping its head and tail only."""

    def __init__(self, stream):
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        if stream is not None:
            self.thread.start()

    def _read(self, stream):
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            self.total += len(chunk)
            room = CAP_HEAD - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self.tail += chunk
                if len(self.tail) > CAP_TAIL:
                    del self.tail[:-CAP_TAIL]

    def text(self):
        if self.thread.is_alive():
            self.thread.join(timeout=5)
        head = self.head.decode("utf-8", "replace")
        if self.total <= len(self.head) + len(self.tail):
            return head + self.tail.decode("utf-8", "replace")
        cut = self.total - len(self.head) - len(self.tail)
        return (head + f"\n[... {cut} bytes of output cut ...]\n"
                + self.tail.decode("utf-8", "replace"))


SIDE_CAP = 16 << 20


class _Whole:
    """Collects a stream whole, up to `cap` bytes (a chunk past it is dropped)."""

    def __init__(self, stream, cap):
        self.data = bytearray()
        self.thread = threading.Thread(target=self._read, args=(stream, cap), daemon=True)
        self.thread.start()

    def _read(self, stream, cap):
        while True:
            chunk = stream.read(65536)
            if not chunk:
                return
            if len(self.data) + len(chunk) <= cap:
                self.data += chunk

    def bytes(self):
        self.thread.join(timeout=5)
        return bytes(self.data)


# The runs of this process that are alive, so a signal that ends the
# grading ends them too (stop_runs); each is its own session, out of reach
# of a signal sent to the grader's process group. An RLock: the handler
# runs in the main thread, which may hold it.
_live_runs = set()
_live_lock = threading.RLock()
_stopped = threading.Event()
STOPPED = "a signal to the grader (the grading was stopped)"   # RunResult.budget of its runs


def stop_runs():
    """Kills every live run and refuses every later one (the grading was
    stopped: SIGTERM, SIGINT). Without it a phase running beside the main
    thread waits its run out, and a grader told to stop outlives its
    platform's limit, writing into the next grading's folder."""
    _stopped.set()
    with _live_lock:
        live = list(_live_runs)
    for process in live:
        _kill_group(process)


def run(mode, argv, cwd, readable=(), writable=(), env=None, limits=None, side_channel=False, hide=(),
        pass_fds=(), students=False):
    """Runs argv in the sandbox; never raises for the command's own failures.

    readable, writable: the only directories of the grading this run sees
    (under bubblewrap, in a fresh root beside the system, SYSTEM_DIRS;
    without it, the sandbox's user's permissions and the audit decide).
    hide: what an older layout masked for this run; a fresh root holds
    nothing but `readable` and `writable`, so it is kept for the callers'
    record of intent only (the compiler's: not the harness beside its
    sources).

    side_channel: the command's stdout, whose descriptor number is then in
    $GRADER_SIDE_FD, carries data that must not pass through a file the
    sandbox can write (valgrind's reports, written by the trusted test
    processes, never by a student process); it is kept whole, up to
    SIDE_CAP bytes, in RunResult.side rather than capped as text.

    pass_fds: descriptors root opened that the command inherits (at the
    same numbers): how a run reads a file its user may not open.

    students: the command starts student processes (a runner, a probe):
    as root, they get the grading's student uid (see the header)."""
    limits = limits or Limits()
    if mode.pace != 1.0 and limits.paced:
        limits = dataclasses.replace(limits, wall_seconds=limits.wall_seconds * mode.pace)
    if mode.deadline is not None:
        left = mode.deadline - time.monotonic()
        if left <= 0:   # refused, and told like any run (on_run), so the grading knows it was capped
            refused = RunResult(list(argv), None, None, True, 0.0, "", "not started: the grading's time "
                                "cap was reached", capped=True, cap_seconds=mode.cap_seconds)
            if mode.on_run is not None:
                mode.on_run(refused, cwd)
            return refused
        if left < limits.wall_seconds:
            limits = dataclasses.replace(limits, wall_seconds=left)
    if _stopped.is_set():
        return RunResult(list(argv), None, None, True, 0.0, "", "not started: the grading was stopped",
                         budget=STOPPED)
    budget = mode.budget
    if budget is not None:
        if budget.over():
            return RunResult(list(argv), None, None, True, 0.0, "", f"not started: {budget.describe()} "
                             "was spent", budget=budget.describe())
        limits = dataclasses.replace(limits, wall_seconds=min(limits.wall_seconds,
                                                              budget.deadline - time.monotonic()))
    if mode.uid is not None:
        for path in writable:
            _give_to(path, mode.uid, mode.gid)
    as_root = students and mode.student_uid is not None
    if as_root and mode.bwrap:
        readable, writable = _outermost(readable, writable)
        for path in list(readable) + list(writable):
            _safe_to_bind(path)
    command, popen_env = _command(mode, argv, cwd, readable, writable, env, hide, side_channel, as_root)
    start = time.monotonic()
    try:
        process = subprocess.Popen(command, cwd=cwd, env=popen_env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   preexec_fn=_preexec(limits, mode, as_root), pass_fds=tuple(pass_fds))
    except OSError as error:
        return RunResult(list(argv), 127, None, False, 0.0, "", f"cannot start: {error}")
    with _live_lock:
        _live_runs.add(process)
    if _stopped.is_set():   # stopped between the check above and the start
        _kill_group(process)
    side = _Whole(process.stdout, SIDE_CAP) if side_channel else None
    out = _Capped(None if side_channel else process.stdout)
    err = _Capped(process.stderr)
    cpu = None
    try:
        if budget is None:
            timed_out = _wait_then_kill(process, limits.wall_seconds)
        else:
            timed_out, cpu = _wait_within(process, limits.wall_seconds, budget)
    finally:
        with _live_lock:
            _live_runs.discard(process)
    elapsed = time.monotonic() - start
    code, sig = _exit_of(mode, process.returncode)
    side_data = side.bytes() if side is not None else b""
    capped = timed_out and mode.deadline is not None and time.monotonic() >= mode.deadline - 0.5
    stopped = budget.describe() if timed_out and not capped and budget is not None and budget.over() else ""
    if _stopped.is_set():
        stopped = STOPPED
    result = RunResult(list(argv), code, sig, timed_out, elapsed,
                       out.text(), err.text(), out.total, err.total, side_data, capped=capped,
                       cap_seconds=mode.cap_seconds, budget=stopped, cpu_seconds=cpu)
    if mode.on_run is not None:
        mode.on_run(result, cwd)
    return result


def _command(mode, argv, cwd, readable, writable, env, hide, side_channel, students=False):
    """(the command line, the environment Popen gives it): bubblewrap's
    around argv, or argv itself; the command's own environment is a clean
    one plus `env`. With `students`, setpriv makes the command the sandbox
    uid with the capabilities a runner needs to start student processes
    of the student uid (started as root: see the header)."""
    # Temporary files (gcc's, Criterion's sockets, valgrind's vgdb pipes) go
    # to the private /tmp under bubblewrap; without it, to the run's own
    # writable directory, which the grader removes, never to the real /tmp.
    tmpdir = "/tmp" if mode.bwrap or not writable else writable[0]
    clean_env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": cwd, "TMPDIR": tmpdir}
    # The pace (pace.py), for the proxy of every probe and runner
    # (grader/boundary/proxy.c): its quit grace, a student process's RLIMIT_AS.
    # The probes' calls too (a runner's env sets its own, scaled: suites.py).
    if mode.pace != 1.0:
        clean_env["GRADER_TIME_SCALE"] = f"{mode.pace:g}"
        clean_env["GRADER_CALL_SECONDS"] = f"{config.CALL_SECONDS * mode.pace:g}"
    if mode.student_address_space_mib:
        clean_env["GRADER_ADDRESS_SPACE_MIB"] = str(mode.student_address_space_mib)
    clean_env.update(env or {})
    if students:
        clean_env["GRADER_STUDENT_UID"] = str(mode.student_uid)
        clean_env["GRADER_STUDENT_GID"] = str(mode.student_gid)
        argv = _as_runner(mode, argv)
    if mode.bwrap:
        command = _bwrap_argv(mode, argv, cwd, readable, writable, clean_env, hide, students)
        popen_env = {"PATH": "/usr/bin:/bin"}
    else:
        command = list(argv)
        popen_env = clean_env
    if side_channel:
        # The command's stdout is the side channel: test runners print
        # nothing there, and their student processes print elsewhere.
        if mode.bwrap:
            at = command.index("--clearenv") + 1
            command[at:at] = ["--setenv", "GRADER_SIDE_FD", "1"]
        else:
            popen_env["GRADER_SIDE_FD"] = "1"
    return command, popen_env


def _wait_then_kill(process, wall_seconds):
    """Waits for the run up to its wall-clock limit, then kills what is left
    of its process group; returns whether the limit was reached."""
    timed_out = not _exits_within(process, wall_seconds)
    _kill_group(process)
    _reap(process)
    return timed_out


# How often a run under a Budget has its CPU time read.
BUDGET_POLL_SECONDS = 0.25


def _wait_within(process, wall_seconds, budget):
    """_wait_then_kill for a run under `budget`: also killed once the CPU
    time of its processes (_tree_cpu_seconds) and the budget's earlier runs
    reach the budget's. Returns (whether a limit ended it, its CPU seconds,
    which are charged to the budget)."""
    end = time.monotonic() + wall_seconds
    polled, timed_out = 0.0, False
    while not _exits_within(process, min(BUDGET_POLL_SECONDS, end - time.monotonic())):
        polled = max(polled, _tree_cpu_seconds(process.pid))
        if time.monotonic() >= end or budget.over(polled):
            timed_out = True
            break
    _kill_group(process)
    # rusage counts what the run's first process reaped; processes killed
    # with it may be reaped elsewhere, so the last reading counts too.
    cpu = max(polled, _reap(process))
    budget.charge(cpu)
    return timed_out, cpu


def _exits_within(process, seconds):
    """Whether the run's first process exits within `seconds`; it is left
    unreaped, so its pid, the group's, stays its own until the group is
    killed. A pidfd wakes the wait the moment it exits."""
    handle = os.pidfd_open(process.pid)
    try:
        return bool(select.select([handle], [], [], max(0.0, seconds))[0])
    finally:
        os.close(handle)


def _reap(process):
    """Reaps the run's first process; returns its CPU seconds, with those of
    every descendant it reaped (under bubblewrap that misses the command's
    own: 0.01 s read for a valgrind run of 5 s, so only a Budget's polls of
    the tree count a bwrap run's CPU)."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def _tree_cpu_seconds(root):
    """The CPU time so far of process `root` and every live descendant,
    each with what it reaped of its own (utime, stime, cutime, cstime of
    /proc/PID/stat)."""
    children, ticks = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2:].split()
        if len(fields) < 15:
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
        ticks[int(name)] = sum(int(f) for f in fields[11:15])
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += ticks.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total / os.sysconf("SC_CLK_TCK")


def _exit_of(mode, code):
    """(exit code or None, signal or None) of a finished run."""
    sig = -code if code is not None and code < 0 else None
    if mode.bwrap and code is not None and code > 128:
        sig = code - 128   # bwrap, as the namespace's init, reports a signal death as 128 + signal
    return (None if sig else code), sig


def _kill_group(process):
    """Nothing the run started may outlive it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class UnsafeWritablePath(RuntimeError):
    """A run asked to make a shared directory (/, /tmp, ...) its own."""


def _give_to(path, uid, gid):
    """Makes a run's own writable directory the sandbox user's, recursively.

    Only ever a directory the grading made for itself: handing a shared
    directory over would give the sandbox user every file in it. On
    2026-11-23 a manual `detect([], "/tmp")` chowned all of /tmp, and with it
    other programs' private directories, to a sandbox uid. So this refuses a
    symbolic link, the root directory, well-known shared places, and any
    sticky directory (the mark of a shared one such as /tmp or /var/tmp),
    and never follows a link below the top. (Not "world-writable": under a
    umask of 0 the grading's own directories are.)"""
    info = os.lstat(path)
    real = os.path.realpath(path)
    if (stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode) or real == "/"
            or info.st_mode & stat.S_ISVTX
            or real in ("/tmp", "/var/tmp", "/dev/shm", "/run", "/home", "/root")):
        raise UnsafeWritablePath(f"refusing to hand {path} to the sandbox user: it is not a "
                                 "directory the grading made for itself")
    for root, dirs, files in os.walk(path, followlinks=False):
        for name in [None] + files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            try:
                os.chown(root if name is None else os.path.join(root, name), uid, gid,
                         follow_symlinks=False)
            except FileNotFoundError:
                # Gone meanwhile: a run beside this one sharing the directory
                # (the two compiles of a build share their object directory,
                # where gcc keeps its temporary files without bubblewrap).
                pass
