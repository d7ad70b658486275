"""Tests of the per-grading cgroup (grader/gradelib/cgroup.py) on fake
cgroup trees (v2, v1, neither: each falls back with its reason), and on the
real machine where root may make one (a process joins it, close() kills it
and removes the group).

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "grader"))

from gradelib import cgroup  # noqa: E402


class FakeTree(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.TemporaryDirectory()
        self.addCleanup(self.base.cleanup)
        self.mounts = os.path.join(self.base.name, "mounts")
        self.own = os.path.join(self.base.name, "cgroup")
        self.name = f"{cgroup.GROUP_PREFIX}{os.getpid()}"

    def layout(self, mounts, own, files):
        with open(self.mounts, "w", encoding="utf-8") as handle:
            handle.write("".join(f"{kind} {self.base.name}/{point} {kind} {options} 0 0\n"
                                 for kind, point, options in mounts))
        with open(self.own, "w", encoding="utf-8") as handle:
            handle.write(own)
        for path, text in files.items():
            full = os.path.join(self.base.name, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as handle:
                handle.write(text)

    def read(self, path):
        with open(os.path.join(self.base.name, path), encoding="utf-8") as handle:
            return handle.read()

    def create(self):
        group = cgroup.create(memory=100 << 20, pids=7, mounts_file=self.mounts, cgroup_file=self.own)
        # A fake tree holds regular files, which rmdir cannot remove: nothing to close.
        self.addCleanup(setattr, group, "dirs", [])
        return group

    def test_v2(self):
        self.layout([("cgroup2", "v2", "rw")], "0::/grader\n",
                    {"v2/grader/cgroup.controllers": "cpu io memory pids\n"})
        group = self.create()
        self.assertEqual(group.kind, "v2")
        self.assertEqual(group.dirs, [os.path.join(self.base.name, "v2", "grader", self.name)])
        self.assertEqual(self.read("v2/grader/cgroup.subtree_control"), "+memory +pids +cpu")
        self.assertEqual(self.read(f"v2/grader/{self.name}/memory.max"), str(100 << 20))
        self.assertEqual(self.read(f"v2/grader/{self.name}/pids.max"), "7")
        self.assertIn("cgroup v2 (100 MiB of memory, 7 processes", group.describe())
        self.assertIn("a CPU share of its own", group.describe())

    def test_v2_without_cpu_controller(self):
        self.layout([("cgroup2", "v2", "rw")], "0::/grader\n",
                    {"v2/grader/cgroup.controllers": "memory pids\n"})
        group = self.create()
        self.assertEqual(self.read("v2/grader/cgroup.subtree_control"), "+memory +pids")
        self.assertNotIn("CPU share", group.describe())

    def test_v1_when_v2_has_no_controllers(self):
        self.layout([("cgroup2", "unified", "rw"), ("cgroup", "memory", "rw,relatime,memory"),
                     ("cgroup", "pids", "rw,relatime,pids")],
                    "8:pids:/\n4:memory:/session/x\n0::/\n",
                    {"unified/cgroup.controllers": "\n", "memory/session/x/tasks": "",
                     "pids/tasks": ""})
        group = self.create()
        self.assertEqual(group.kind, "v1")
        self.assertEqual(group.dirs, [os.path.join(self.base.name, "memory", "session", "x", self.name),
                                      os.path.join(self.base.name, "pids", self.name)])
        self.assertEqual(self.read(f"memory/session/x/{self.name}/memory.limit_in_bytes"), str(100 << 20))
        self.assertEqual(self.read(f"pids/{self.name}/pids.max"), "7")
        self.assertIn("cgroup v1", group.describe())
        self.assertNotIn("CPU share", group.describe())   # no cpu hierarchy mounted here

    def test_v1_with_a_cpu_hierarchy(self):
        self.layout([("cgroup2", "unified", "rw"), ("cgroup", "memory", "rw,relatime,memory"),
                     ("cgroup", "pids", "rw,relatime,pids"), ("cgroup", "cpu", "rw,relatime,cpu")],
                    "8:pids:/\n4:memory:/\n1:cpu:/\n0::/\n",
                    {"unified/cgroup.controllers": "\n", "memory/tasks": "", "pids/tasks": "",
                     "cpu/tasks": ""})
        group = self.create()
        self.assertEqual(group.dirs[-1], os.path.join(self.base.name, "cpu", self.name))
        self.assertEqual(self.read(f"cpu/{self.name}/cpu.shares"), "1024")
        self.assertIn("a CPU share of its own", group.describe())

    def test_neither_falls_back_with_reasons(self):
        self.layout([("cgroup2", "unified", "rw"), ("cgroup", "memory", "rw,memory")],
                    "4:memory:/\n0::/\n", {"unified/cgroup.controllers": "cpu\n", "memory/tasks": ""})
        group = self.create()
        self.assertIsNone(group.kind)
        self.assertEqual(group.dirs, [])
        self.assertIn("rlimits only (per-grading uid, RLIMIT_NPROC", group.describe())
        self.assertIn("offers no memory and pids controllers", group.describe())
        self.assertIn("no cgroup v1 pids hierarchy", group.describe())

    def test_unreadable_files_fall_back(self):
        group = cgroup.create(mounts_file=os.path.join(self.base.name, "none"), cgroup_file=self.own)
        self.assertIsNone(group.kind)
        self.assertIn("cannot read the cgroups", group.describe())
        group.enter()   # nothing to join: no error
        group.close()


@unittest.skipUnless(os.geteuid() == 0, "needs root")
class RealMachine(unittest.TestCase):
    def test_join_kill_remove(self):
        group = cgroup.create()
        if group.kind is None:
            self.skipTest(group.describe())
        child = subprocess.Popen(["sleep", "60"], preexec_fn=group.enter)
        try:
            with open(f"/proc/{child.pid}/cgroup", encoding="utf-8") as handle:
                self.assertIn(f"/{cgroup.GROUP_PREFIX}{os.getpid()}", handle.read())
            dirs = list(group.dirs)
            group.close()
            self.assertEqual(child.wait(timeout=10), -9)   # close() kills what is left
            for directory in dirs:
                self.assertFalse(os.path.exists(directory), directory)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()


if __name__ == "__main__":
    unittest.main()
