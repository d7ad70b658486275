"""The grading's scratch directory: private, size-capped, and gone when the
grader is.

The scratch holds copies of the submission's sources, objects, runners and
everything sandboxed runs write. Started as root, grader/grade first
re-executes itself, once, inside a mount namespace of its own
(reexec_in_private_namespace: `unshare --mount --propagation private`, same
process id), and the scratch is a tmpfs mounted there with a size and an
inode cap (config.SCRATCH_BYTES, SCRATCH_FILES), nosuid and nodev. Nothing
outside the grader sees that mount, and when the grader dies, even by
SIGKILL, its namespace and the tmpfs with the sources vanish with it (only
the empty mount-point directory is left in TMPDIR, and the next grading
removes it: sweep_stale; bubblewrap, started from inside, still binds the
scratch into each sandbox).

Not root, or unshare/mount unavailable (a container without CAP_SYS_ADMIN),
or --keep-scratch (a tmpfs cannot outlive the grader): a plain directory
from tempfile.mkdtemp, removed at the end, also on SIGTERM and SIGINT
(turned into exceptions, so the callers' finally blocks run). describe()
says which mode ran and why, for the log line of the sandbox.
"""

import contextlib
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import threading

from . import config, sandbox

# Set by reexec_in_private_namespace: the mount namespace the grader left
# ("mnt:[N]"), or "unavailable: why". An inherited value names another
# namespace than the one unshare made, so it is never mistaken for ours.
MARKER = "GRUNDY_GRADER_UNSHARED_FROM"
UNSHARE = ["--mount", "--propagation", "private"]
# A left-over scratch is swept only when older than any grading can last
# (an hour, or four times the term's ceiling on a grading's time).
STALE_SECONDS = max(3600, 4 * config.GRADING_CAP_CEILING)


def _mount_namespace():
    try:
        return os.readlink("/proc/self/ns/mnt")
    except OSError:
        return None


def reexec_in_private_namespace():
    """As root, replaces this process by the same command in a private mount
    namespace (once: the marker stops a second time). Returns only when it
    did not (not root, already done, or impossible: the reason is kept in
    the environment for describe())."""
    if os.geteuid() != 0 or MARKER in os.environ:
        return
    unshare = shutil.which("unshare")
    if unshare is None:
        os.environ[MARKER] = "unavailable: no unshare command (util-linux)"
        return
    try:
        probe = subprocess.run([unshare, *UNSHARE, "true"], capture_output=True, text=True,
                               timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        os.environ[MARKER] = f"unavailable: unshare failed ({error})"
        return
    if probe.returncode != 0:
        os.environ[MARKER] = f"unavailable: {probe.stderr.strip() or 'unshare --mount failed'}"
        return
    os.environ[MARKER] = _mount_namespace() or "unknown"
    try:
        os.execv(unshare, [unshare, *UNSHARE, sys.executable, *sys.argv])
    except OSError as error:
        os.environ[MARKER] = f"unavailable: cannot run unshare ({error})"


def in_private_namespace():
    """(True, "") inside the namespace made for this grader, else (False, why)."""
    left = os.environ.get(MARKER)
    if os.geteuid() != 0:
        return False, "not root"
    if left is None:
        return False, "grader/grade did not re-execute itself in a mount namespace"
    if left.startswith("unavailable: "):
        return False, left[len("unavailable: "):]
    here = _mount_namespace()
    if here is None or here == left:
        return False, "the mount namespace is the one the grader started in"
    return True, ""


STALE_PREFIX = re.compile(r"grundy-grade-(\d+)-")


def sweep_stale(directory=None):
    """Removes the scratch directories in TMPDIR that a grader killed by
    SIGKILL left behind: named by a grader's pid that no longer runs, ours
    (same owner, a directory, not a link), and older than the longest a
    grading may take (so a grader in another pid namespace that shares
    TMPDIR keeps its own). Returns how many it removed."""
    directory = directory or tempfile.gettempdir()
    removed = 0
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    for name in names:
        match = STALE_PREFIX.match(name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        path = os.path.join(directory, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() \
                    or time.time() - info.st_mtime < STALE_SECONDS:
                continue
            os.kill(int(match.group(1)), 0)
            continue          # its grader still runs
        except ProcessLookupError:
            pass
        except (OSError, OverflowError):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += not os.path.lexists(path)
    return removed


class Scratch:
    """One grading's scratch directory (see the module's docstring)."""

    def __init__(self, log, keep=False):
        self.log = log
        self.keep = keep
        self.mounted = False
        # The scratch is a directory of a random name inside one that only
        # root may list (mode 0711): the sandbox's user enters its own
        # grading's scratch by name, but another grading's (grade-all -j,
        # a uid of its own each) is out of its sight, with or without
        # bubblewrap, and the audit (sandbox.audit) cannot list it either.
        sweep_stale()
        self.top = tempfile.mkdtemp(prefix=f"grundy-grade-{os.getpid()}-")
        os.chmod(self.top, 0o711)
        self.path = os.path.join(self.top, secrets.token_hex(16))
        os.mkdir(self.path)
        # The sandbox's user must enter it, but not list it: the harness
        # inside has a secret name (build.harness_name).
        os.chmod(self.path, 0o711)
        private, why = in_private_namespace()
        if keep:
            why = "--keep-scratch: a tmpfs would vanish with the grader"
        elif private:
            why = self._mount()
        self.description = (
            f"a private tmpfs of {config.SCRATCH_BYTES >> 20} MiB and {config.SCRATCH_FILES} files "
            "in the grader's own mount namespace (it vanishes with the grader)" if self.mounted else
            f"a plain directory ({why}), removed at the end and on SIGTERM or SIGINT")
        self._previous = self._catch_signals()

    def _mount(self):
        options = (f"size={config.SCRATCH_BYTES},nr_inodes={config.SCRATCH_FILES},"
                   "mode=0711,nosuid,nodev")
        try:
            done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", self.path],
                                  capture_output=True, text=True, timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"mount failed: {error}"
        if done.returncode != 0:
            return f"mount failed: {done.stderr.strip()}"
        self.mounted = True
        return ""

    def _catch_signals(self):
        if threading.current_thread() is not threading.main_thread():
            return None

        def stop(signum, frame):
            sandbox.stop_runs()   # no phase beside this thread waits its run out
            raise SystemExit(128 + signum)
        return {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGINT)}

    def describe(self):
        return self.description

    def close(self):
        for signum, handler in (self._previous or {}).items():
            signal.signal(signum, handler)
        self._previous = None
        if self.keep:
            self.log(f"scratch kept: {self.path}")
            return
        if self.mounted:
            # The grader's runs are over, so nothing holds the tmpfs; a lazy
            # unmount still detaches it if a straggler does.
            # -R: the capped directories mounted inside it first.
            done = subprocess.run(["umount", "-R", self.path], capture_output=True, check=False)
            if done.returncode != 0:
                subprocess.run(["umount", "-l", self.path], capture_output=True, check=False)
            self.mounted = False
        shutil.rmtree(self.top, ignore_errors=True)


def capped_directory(path, size, files):
    """Makes the directory `path` (inside the scratch) and, when the grader
    runs as root in its own mount namespace, mounts a tmpfs of `size` bytes
    and `files` inodes on it, so what a student process writes there (gcov's
    counters under the coverage policy, which may open and write) fills
    that and never the grader's scratch. Returns a sentence for the log.
    Elsewhere the directory is plain: the student process's RLIMIT_FSIZE
    caps each file, and running out of space is the submission's failure
    (pipeline.cause_of)."""
    os.makedirs(path, exist_ok=True)
    private, why = in_private_namespace()
    if not private:
        return f"{path}: a plain directory of the scratch ({why})"
    options = f"size={size},nr_inodes={files},mode=0755,nosuid,nodev"
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", path],
                              capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{path}: a plain directory of the scratch (mount failed: {error})"
    if done.returncode != 0:
        return f"{path}: a plain directory of the scratch (mount failed: {done.stderr.strip()})"
    return f"{path}: a tmpfs of its own ({size >> 20} MiB, {files} files)"


@contextlib.contextmanager
def private_scratch(log, keep=False):
    """A Scratch for the duration of the block (its .path, its .describe())."""
    space = Scratch(log, keep=keep)
    try:
        yield space
    finally:
        space.close()
