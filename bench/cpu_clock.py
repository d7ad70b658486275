"""bench/cpu_clock.py - the CPU seconds of a command and everything it
starts, on a machine that other jobs share (make bench, check-fixtures).

Wall time on a shared machine says more about the neighbours than about
the command, and rusage misses what a grading runs in its sandboxes
(bubblewrap's children are not waited for by us). A cgroup v1 cpuacct
group of the command's own counts every descendant: the grader moves its
sandboxes into memory, pids and cpu groups of its own, never cpuacct.
Where there is no such group (not root, cgroup v2 only) seconds() is None
and the caller says "not measured".
"""

import itertools
import os

CPUACCT = "/sys/fs/cgroup/cpuacct"
_numbers = itertools.count(1)


def _own_group():
    """This process's cpuacct group, as a path under CPUACCT ("" for the root)."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            for line in handle:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if "cpuacct" in controllers.split(","):
                    return path.rstrip("/")
    except (OSError, ValueError):
        pass
    return ""


class CpuClock:
    """The CPU seconds of a process and all its descendants: a cgroup v1
    cpuacct group of its own (the grader moves its sandboxes into memory,
    pids and cpu groups, never cpuacct), or None where there is none."""

    def __init__(self, tag):
        self.path = None
        if os.geteuid() == 0 and os.path.isfile(os.path.join(CPUACCT, "cpuacct.usage")):
            # Inside our own group, whose count (hierarchical) keeps
            # including it: a caller measured the same way still sees it.
            path = os.path.join(CPUACCT + _own_group(), f"grundy-{tag}-{os.getpid()}-{next(_numbers)}")
            try:
                os.makedirs(path, exist_ok=True)
                self.path = path
            except OSError:
                pass

    def wrap(self, argv):
        """argv, run so that it joins the group before it starts (a shell
        that writes its pid there, then execs argv: no preexec_fn, which is
        unsafe in a program with threads)."""
        if not self.path:
            return list(argv)
        procs = os.path.join(self.path, "cgroup.procs")
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]

    def seconds(self):
        if not self.path:
            return None
        with open(os.path.join(self.path, "cpuacct.usage"), encoding="utf-8") as handle:
            return round(int(handle.read()) / 1e9, 1)

    def close(self):
        if self.path:
            try:
                os.rmdir(self.path)
            except OSError:
                pass
