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
