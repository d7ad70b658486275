"""Per-grading caps on total memory and processes: a cgroup of its own,
which also gives the grading one share of the CPU where it can.

rlimits cap each process; a grading runs many at once (two test processes,
three valgrind runs, compilers), so its total is capped by a control group
that every sandboxed command of the grading joins (sandbox.run writes the
child's pid into cgroup.procs before it drops root and execs), with
config.CGROUP_MEMORY_BYTES of memory (the scratch tmpfs's pages written by
those commands count too) and config.CGROUP_PIDS processes.

Where it is made, strongest first:
- cgroup v2 (a cgroup2 mount whose grader's own cgroup offers the memory
  and pids controllers): a child cgroup with memory.max and pids.max;
- cgroup v1 (memory and pids hierarchies mounted, as on this project's
  build machine, whose unified hierarchy has no controllers): a group under
  the grader's own path in each, with memory.limit_in_bytes and pids.max;
- otherwise "rlimits only (per-grading uid, RLIMIT_NPROC)", with the reason.
Where a cpu controller is there too (offered to v2's child, or a v1 cpu
hierarchy), the group is also the grading's CPU share (_v1_cpu says why).
Any OSError on the way (not root, a read-only /sys/fs/cgroup in a
container, v2's rule against enabling controllers in a cgroup that has
processes) falls back to the next, and the reason is in describe(), which
the sandbox's mode puts in the log and in results.json.

The group is named grundy-grade-PID and removed when the grading ends
(close(): its leftover processes are killed first). A grader killed with
SIGKILL leaves it behind, empty once its commands are gone (they die with
the grader: bubblewrap's --die-with-parent): a stale empty cgroup holds no
memory and no process, and the next grader with the same pid reuses it.
"""

import atexit
import os
import re
import signal
import time

from . import config

GROUP_PREFIX = "grundy-grade-"


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _write(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _mounts(mounts_file):
    """[(mount point, type, options set)] of the cgroup file systems."""
    found = []
    for line in _read(mounts_file).splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
            found.append((fields[1], fields[2], set(fields[3].split(","))))
    return found


def _own_paths(cgroup_file):
    """{controller or "" (v2): this process's cgroup path}."""
    paths = {}
    for line in _read(cgroup_file).splitlines():
        number, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _fresh_dir(path):
    """Makes path, reusing a stale empty group of a killed grader with our pid."""
    try:
        os.mkdir(path)
    except FileExistsError:
        os.rmdir(path)   # fails (EBUSY) if it still has processes: then not ours to take
        os.mkdir(path)


class Group:
    """The grading's cgroup (dirs: one per hierarchy), or none (dirs empty)."""

    def __init__(self, kind, dirs, description):
        self.kind = kind
        self.dirs = list(dirs)
        self.description = description
        self._procs = [os.path.join(d, "cgroup.procs").encode() for d in self.dirs]

    def describe(self):
        return self.description

    def enter(self):
        """Moves the calling process into the group. Runs in the forked child
        before exec (sandbox.run's preexec), so only raw system calls, and
        best effort: the rlimits still hold if the group is gone."""
        pid = str(os.getpid()).encode()
        for path in self._procs:
            try:
                fd = os.open(path, os.O_WRONLY)
            except OSError:
                continue
            try:
                os.write(fd, pid)
            except OSError:
                pass
            finally:
                os.close(fd)

    def close(self):
        """Kills what is left in the group, then removes it (idempotent)."""
        dirs, self.dirs, self._procs = self.dirs, [], []
        for directory in dirs:
            for attempt in range(50):
                try:
                    pids = [int(p) for p in _read(os.path.join(directory, "cgroup.procs")).split()]
                except (OSError, ValueError):
                    pids = []
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                try:
                    os.rmdir(directory)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)   # the killed processes are still exiting


def _v2(mounts, own, memory, pids, name):
    points = [m for m in mounts if m[1] == "cgroup2"]
    if not points:
        return None, "no cgroup v2 mounted"
    parent = os.path.join(points[0][0], own.get("", "/").lstrip("/"))
    offered = _read(os.path.join(parent, "cgroup.controllers")).split()
    if not {"memory", "pids"} <= set(offered):
        return None, (f"cgroup v2 at {points[0][0]} offers no memory and pids controllers "
                      f"(only: {' '.join(offered) or 'none'})")
    # The cpu controller where offered: one CPU share per grading (_v1_cpu).
    cpu = "cpu" in offered
    _write(os.path.join(parent, "cgroup.subtree_control"), "+memory +pids" + (" +cpu" if cpu else ""))
    group = os.path.join(parent, name)
    _fresh_dir(group)
    try:
        _write(os.path.join(group, "memory.max"), str(memory))
        _write(os.path.join(group, "pids.max"), str(pids))
    except OSError:
        os.rmdir(group)
        raise
    return Group("v2", [group], f"cgroup v2 ({memory >> 20} MiB of memory, {pids} processes "
                                f"per grading{', a CPU share of its own' if cpu else ''})"), ""


def _v1(mounts, own, memory, pids, name):
    made = []
    try:
        for controller, limit_file, value in (("memory", "memory.limit_in_bytes", memory),
                                              ("pids", "pids.max", pids)):
            points = [m for m in mounts if m[1] == "cgroup" and controller in m[2]]
            if not points:
                raise LookupError(f"no cgroup v1 {controller} hierarchy mounted")
            group = os.path.join(points[0][0], own.get(controller, "/").lstrip("/"), name)
            _fresh_dir(group)
            made.append(group)
            _write(os.path.join(group, limit_file), str(value))
    except (OSError, LookupError):
        _remove(made)
        raise
    cpu = _v1_cpu(mounts, own, name)
    made += cpu
    return Group("v1", made, f"cgroup v1 ({memory >> 20} MiB of memory, {pids} processes "
                             f"per grading{', a CPU share of its own' if cpu else ''})"), ""


def _v1_cpu(mounts, own, name):
    """[the grading's group in the v1 cpu hierarchy], or [] where there is
    none. A group of its own gives the grading one share of the CPU as a
    whole, however many processes it runs: a submission that keeps many
    busy cannot slow a grading beside it (grade-all -j) by more than its
    share."""
    points = [m for m in mounts if m[1] == "cgroup" and "cpu" in m[2]]
    if not points:
        return []
    group = os.path.join(points[0][0], own.get("cpu", own.get("cpu,cpuacct", "/")).lstrip("/"), name)
    try:
        _fresh_dir(group)
        _write(os.path.join(group, "cpu.shares"), "1024")
    except OSError:
        _remove([group])
        return []
    return [group]


def _remove(groups):
    for group in groups:
        try:
            os.rmdir(group)
        except OSError:
            pass


def create(memory=config.CGROUP_MEMORY_BYTES, pids=config.CGROUP_PIDS,
           mounts_file="/proc/self/mounts", cgroup_file="/proc/self/cgroup"):
    """This grading's Group: v2, else v1, else none with the reason."""
    name = f"{GROUP_PREFIX}{os.getpid()}"
    reasons = []
    try:
        mounts, own = _mounts(mounts_file), _own_paths(cgroup_file)
    except (OSError, ValueError) as error:
        mounts, own = [], {}
        reasons.append(f"cannot read the cgroups ({error})")
    for attempt in (_v2, _v1):
        if not mounts:
            break
        try:
            group, why = attempt(mounts, own, memory, pids, name)
        except (OSError, LookupError) as error:
            group, why = None, f"{attempt.__name__[1:]}: {error}"
        if group is not None:
            atexit.register(group.close)   # also when the caller never gets to close it
            return group
        reasons.append(why)
    return Group(None, [], "rlimits only (per-grading uid, RLIMIT_NPROC; no cgroup: "
                 + "; ".join(reasons or ["no cgroup file system mounted"]) + ")")


# ---- what the grading really has: CPUs and memory ---------------------------
#
# nproc (and os.cpu_count()) count the host's CPUs; a container gets a share
# of them, set three ways, and the grader takes the smallest:
#   - cgroup v2: cpu.max ("QUOTA PERIOD", or "max PERIOD": no quota);
#   - cgroup v1: cpu.cfs_quota_us (-1: no quota) over cpu.cfs_period_us;
#   - the affinity mask (cpusets, taskset): the CPUs it may run on at all.
# A quota set on any ancestor of the process's group holds too, so every
# group from the process's own up to the mount's root is read. Memory the
# same way: memory.max (v2), memory.limit_in_bytes (v1), and the machine's
# MemTotal, whichever is least. A file that is missing or unreadable, or
# holds what is not a number, sets no limit (and is named in the reason):
# reading the limits must never stop a grading.

def _mountinfo(path):
    """[(mount point, "cgroup" or "cgroup2", root in the hierarchy, super options)]
    of the cgroup file systems (/proc/self/mountinfo: the root says where in
    the hierarchy a container's mount starts)."""
    found = []
    for line in _read(path).splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        found.append((_unescape(fields[4]), tail[0], _unescape(fields[3]), set(tail[2].split(","))))
    return found


def _unescape(text):
    """A mountinfo path: the kernel writes space, tab, newline and backslash as \\ooo."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def _group_chain(mountinfo_file, cgroup_file, controller):
    """The directories of this process's group and its ancestors, own first,
    in the hierarchy of `controller` ("" for v2's unified one), each
    existing; [] when none is mounted."""
    own = _own_paths(cgroup_file)
    for point, kind, root, options in _mountinfo(mountinfo_file):
        if (kind == "cgroup2") != (controller == ""):
            continue
        if controller and controller not in options:
            continue
        path = own.get(controller, "/")
        # A mount rooted inside the hierarchy (a container's): the path below its root.
        if root != "/" and (path == root or path.startswith(root.rstrip("/") + "/")):
            path = path[len(root.rstrip("/")):] or "/"
        start = os.path.normpath(os.path.join(point, path.lstrip("/")))
        if not os.path.isdir(start):
            start = point   # the process's path is the host's, the mount the container's group
        chain, directory = [], start
        while True:
            chain.append(directory)
            if os.path.normpath(directory) == os.path.normpath(point):
                return chain
            directory = os.path.dirname(directory)
    return []


def _number(path, notes, none_words=("max",)):
    """The integer in a one-value file; None when there is no such file or it
    says there is no limit; garbage is noted and sets no limit."""
    try:
        text = _read(path).strip()
    except OSError:
        return None
    if text in none_words:
        return None
    try:
        return int(text)
    except ValueError:
        notes.append(f"{path} is unreadable ({text[:40]!r})")
        return None


def _cpu_quotas(mountinfo_file, cgroup_file, notes):
    """[(CPUs, where)] of every CFS quota over this process (v2, then v1)."""
    quotas = []
    for directory in _group_chain(mountinfo_file, cgroup_file, ""):
        path = os.path.join(directory, "cpu.max")
        try:
            fields = _read(path).split()
        except OSError:
            continue
        if len(fields) == 2 and fields[0] == "max":
            continue
        try:
            quota, period = int(fields[0]), int(fields[1])
        except (ValueError, IndexError):
            notes.append(f"{path} is unreadable ({' '.join(fields)[:40]!r})")
            continue
        if quota > 0 and period > 0:
            quotas.append((quota / period, f"cgroup v2 {path}: {quota} {period}"))
    for directory in _group_chain(mountinfo_file, cgroup_file, "cpu"):
        quota = _number(os.path.join(directory, "cpu.cfs_quota_us"), notes, none_words=("-1",))
        period = _number(os.path.join(directory, "cpu.cfs_period_us"), notes)
        if quota is not None and quota > 0 and period is not None and period > 0:
            quotas.append((quota / period, f"cgroup v1 {directory}: cpu.cfs_quota_us {quota} / "
                                           f"cpu.cfs_period_us {period}"))
    return quotas


def available_cpus(mountinfo_file="/proc/self/mountinfo", cgroup_file="/proc/self/cgroup",
                   affinity=None):
    """(CPUs this process may really use, as a float, e.g. 0.5; how that was
    found): the least of its CFS quotas (cgroup v2 cpu.max, v1
    cpu.cfs_quota_us / cpu.cfs_period_us, on its group or any ancestor) and
    the CPUs of its affinity mask. Never raises: what cannot be read sets no
    limit, and the affinity mask (else os.cpu_count()) is the fallback."""
    notes = []
    if affinity is None:
        try:
            affinity = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            affinity = os.cpu_count() or 1
    best, where = float(affinity), f"{affinity} CPU{'s' if affinity != 1 else ''} in the affinity mask"
    try:
        quotas = _cpu_quotas(mountinfo_file, cgroup_file, notes)
    except (OSError, ValueError) as error:
        quotas, where = [], where + f" (the cgroups were not read: {error})"
    for cpus, source in quotas:
        if cpus < best:
            best, where = cpus, source
    if notes:
        where += "; ignored: " + "; ".join(notes)
    return best, where


# v1 says "no limit" with a huge number (PAGE_COUNTER_MAX pages), which MemTotal caps.
def memory_limit(mountinfo_file="/proc/self/mountinfo", cgroup_file="/proc/self/cgroup",
                 meminfo_file="/proc/meminfo"):
    """(bytes of memory this process's group may use, how that was found):
    the least of memory.max (cgroup v2) and memory.limit_in_bytes (v1) on
    its group and every ancestor, and the machine's MemTotal; None for the
    bytes when not even MemTotal could be read. Never raises."""
    notes, limits = [], []
    try:
        for line in _read(meminfo_file).splitlines():
            if line.startswith("MemTotal:"):
                limits.append((int(line.split()[1]) * 1024, "MemTotal"))
    except (OSError, ValueError, IndexError):
        notes.append(f"{meminfo_file} is unreadable")
    try:
        for controller, name in (("", "memory.max"), ("memory", "memory.limit_in_bytes")):
            for directory in _group_chain(mountinfo_file, cgroup_file, controller):
                value = _number(os.path.join(directory, name), notes)
                if value is not None and value > 0:
                    limits.append((value, f"cgroup {'v2' if controller == '' else 'v1'} "
                                          f"{os.path.join(directory, name)}"))
    except (OSError, ValueError) as error:
        notes.append(f"the cgroups were not read: {error}")
    if not limits:
        return None, "unknown (" + "; ".join(notes or ["nothing to read"]) + ")"
    value, where = min(limits)
    return value, where + ("; ignored: " + "; ".join(notes) if notes else "")
