"""Tests of what the grader reads of the CPU and memory it really has
(grader/gradelib/cgroup.py: available_cpus, memory_limit) on fake cgroup
trees: v2's cpu.max and memory.max, v1's cpu.cfs_quota_us /
cpu.cfs_period_us and memory.limit_in_bytes, "max" and -1 (no limit), a
quota on an ancestor, a container's mount rooted inside the hierarchy,
missing files and garbage (which set no limit and never raise); and of the
pace rule (grader/gradelib/pace.py: factor), which scales every wall-clock
limit of a grading.

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "grader"))

from gradelib import cgroup, config, pace  # noqa: E402

MIB = 1 << 20


class FakeTree(unittest.TestCase):
    """A fake /proc/self/mountinfo, /proc/self/cgroup and /proc/meminfo, and
    the cgroup files under a temporary directory."""

    def setUp(self):
        self.base = tempfile.TemporaryDirectory()
        self.addCleanup(self.base.cleanup)
        self.mountinfo = os.path.join(self.base.name, "mountinfo")
        self.own = os.path.join(self.base.name, "cgroup")
        self.meminfo = os.path.join(self.base.name, "meminfo")
        self.write("meminfo", "MemTotal:       24000000 kB\nMemFree:  1 kB\n")

    def write(self, path, text):
        full = os.path.join(self.base.name, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)

    def layout(self, mounts, own, files):
        """mounts: (kind, point under the base, root in the hierarchy, super options)."""
        lines = [f"{20 + i} 1 0:{30 + i} {root} {self.base.name}/{point} rw,relatime shared:1 - "
                 f"{kind} {kind} {options}\n" for i, (kind, point, root, options) in enumerate(mounts)]
        lines.insert(0, "1 0 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n")
        self.write("mountinfo", "".join(lines))
        self.write("cgroup", own)
        for path, text in files.items():
            self.write(path, text)

    def cpus(self, affinity=2):
        return cgroup.available_cpus(self.mountinfo, self.own, affinity=affinity)

    def memory(self):
        return cgroup.memory_limit(self.mountinfo, self.own, self.meminfo)


class Cpus(FakeTree):
    def test_v2_quota(self):
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/box\n", {"v2/box/cpu.max": "50000 100000\n"})
        cpus, where = self.cpus()
        self.assertEqual(cpus, 0.5)
        self.assertIn("cgroup v2", where)

    def test_v2_max_is_no_limit(self):
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/box\n", {"v2/box/cpu.max": "max 100000\n"})
        self.assertEqual(self.cpus(), (2.0, "2 CPUs in the affinity mask"))

    def test_v2_quota_of_an_ancestor_holds(self):
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/box/inner\n",
                    {"v2/box/cpu.max": "25000 100000\n", "v2/box/inner/cpu.max": "max 100000\n"})
        self.assertEqual(self.cpus()[0], 0.25)

    def test_v1_quota(self):
        self.layout([("cgroup", "cpu", "/", "rw,cpu,cpuacct")], "3:cpu,cpuacct:/docker/abc\n0::/\n",
                    {"cpu/docker/abc/cpu.cfs_quota_us": "150000\n",
                     "cpu/docker/abc/cpu.cfs_period_us": "100000\n"})
        cpus, where = self.cpus(affinity=4)
        self.assertEqual(cpus, 1.5)
        self.assertIn("cpu.cfs_quota_us 150000", where)

    def test_v1_minus_one_is_no_limit(self):
        self.layout([("cgroup", "cpu", "/", "rw,cpu")], "3:cpu:/\n",
                    {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"})
        self.assertEqual(self.cpus()[0], 2.0)

    def test_container_mount_rooted_in_its_group(self):
        # Docker without a cgroup namespace: /proc/self/cgroup names the
        # host's path, the mount's root is that group.
        self.layout([("cgroup", "cpu", "/docker/abc", "rw,cpu")], "3:cpu:/docker/abc\n",
                    {"cpu/cpu.cfs_quota_us": "50000\n", "cpu/cpu.cfs_period_us": "100000\n"})
        self.assertEqual(self.cpus()[0], 0.5)

    def test_host_path_missing_in_the_container(self):
        # A path that does not exist under the mount: the mount's root is the group.
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/system.slice/docker-abc.scope\n",
                    {"v2/cpu.max": "50000 100000\n"})
        self.assertEqual(self.cpus()[0], 0.5)

    def test_affinity_below_the_quota(self):
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/box\n", {"v2/box/cpu.max": "400000 100000\n"})
        self.assertEqual(self.cpus(affinity=2), (2.0, "2 CPUs in the affinity mask"))

    def test_missing_files(self):
        self.layout([("cgroup2", "v2", "/", "rw"), ("cgroup", "cpu", "/", "rw,cpu")], "1:cpu:/\n0::/\n", {})
        self.assertEqual(self.cpus(), (2.0, "2 CPUs in the affinity mask"))

    def test_garbage_sets_no_limit_and_is_named(self):
        self.layout([("cgroup2", "v2", "/", "rw"), ("cgroup", "cpu", "/", "rw,cpu")], "1:cpu:/\n0::/box\n",
                    {"v2/box/cpu.max": "half a cpu\n", "cpu/cpu.cfs_quota_us": "lots\n",
                     "cpu/cpu.cfs_period_us": "100000\n"})
        cpus, where = self.cpus()
        self.assertEqual(cpus, 2.0)
        self.assertIn("cpu.max is unreadable", where)
        self.assertIn("cpu.cfs_quota_us is unreadable", where)

    def test_unreadable_proc_files_never_raise(self):
        cpus, where = cgroup.available_cpus(self.mountinfo + "-none", self.own, affinity=3)
        self.assertEqual(cpus, 3.0)
        self.assertIn("not read", where)
        self.write("mountinfo", "garbage\n\x00\n - cgroup2\n")
        self.write("cgroup", "no colons here\n")
        self.assertEqual(self.cpus(affinity=1)[0], 1.0)

    def test_the_real_machine(self):
        cpus, where = cgroup.available_cpus()
        self.assertGreater(cpus, 0)
        self.assertLessEqual(cpus, os.cpu_count())
        self.assertTrue(where)


class Memory(FakeTree):
    def test_v2(self):
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/box\n", {"v2/box/memory.max": f"{768 * MIB}\n"})
        value, where = self.memory()
        self.assertEqual(value, 768 * MIB)
        self.assertIn("memory.max", where)

    def test_v2_max_leaves_memtotal(self):
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/box\n", {"v2/box/memory.max": "max\n"})
        self.assertEqual(self.memory(), (24000000 * 1024, "MemTotal"))

    def test_v1_unlimited_is_memtotal(self):
        self.layout([("cgroup", "memory", "/", "rw,memory")], "4:memory:/a\n",
                    {"memory/a/memory.limit_in_bytes": "9223372036854771712\n"})
        self.assertEqual(self.memory()[0], 24000000 * 1024)

    def test_v1_ancestor(self):
        self.layout([("cgroup", "memory", "/", "rw,memory")], "4:memory:/a/b\n",
                    {"memory/a/memory.limit_in_bytes": f"{512 * MIB}\n",
                     "memory/a/b/memory.limit_in_bytes": f"{1024 * MIB}\n"})
        self.assertEqual(self.memory()[0], 512 * MIB)

    def test_garbage_and_missing(self):
        self.layout([("cgroup2", "v2", "/", "rw")], "0::/box\n", {"v2/box/memory.max": "-\n"})
        value, where = self.memory()
        self.assertEqual(value, 24000000 * 1024)
        self.assertIn("unreadable", where)
        os.remove(self.meminfo)
        value, where = self.memory()
        self.assertIsNone(value)
        self.assertIn("unknown", where)


class PaceRule(unittest.TestCase):
    """pace.factor: from the measured wall time of the reference workload
    and the CPUs read above, never below 1 or above the cap."""

    def test_quiet_tuning_machine_is_one(self):
        self.assertEqual(pace.factor(config.PACE_CPU_SECONDS * 0.9, 2.0), 1.0)

    def test_measured_slowdown(self):
        self.assertAlmostEqual(pace.factor(config.PACE_CPU_SECONDS * 3, 2.0), 3.0)

    def test_quota_floor(self):
        # A quota of 1/2 CPU: two busy processes run at 1/4 speed, 4x the tuning machine's
        # 2 cores, even when the measurement was lucky.
        self.assertAlmostEqual(pace.factor(config.PACE_CPU_SECONDS, 0.5), 2.0 / 0.5)

    def test_cap(self):
        self.assertEqual(pace.factor(config.PACE_CPU_SECONDS * 1000, 0.01), config.PACE_CAP)

    def test_unmeasured(self):
        self.assertEqual(pace.factor(None, 2.0), 1.0)
        self.assertEqual(pace.factor(None, 0.5), 4.0)

    def test_staff_override(self):
        self.assertIsNone(pace.override({}))
        self.assertEqual(pace.override({"GRUNDY_PACE": "2.5"}), 2.5)
        self.assertEqual(pace.override({"GRUNDY_PACE": "0.5"}), 1.0)
        self.assertEqual(pace.override({"GRUNDY_PACE": "99"}), config.PACE_CAP)
        for bad in ("fast", "-1", "0"):
            with self.assertRaises(SystemExit):
                pace.override({"GRUNDY_PACE": bad})

    def test_student_address_space(self):
        # Gradescope's default container: 768 MB; four student processes at
        # once, beside what the grader itself needs, stay below it.
        mib = pace.student_address_space_mib(768 * MIB)
        self.assertLessEqual(config.MEMORY_RESERVE_BYTES + config.STUDENT_PROCESSES_AT_ONCE * mib * MIB,
                             768 * MIB)
        self.assertGreaterEqual(mib, config.STUDENT_ADDRESS_SPACE_FLOOR_MIB)
        self.assertEqual(pace.student_address_space_mib(64 << 30), config.LIMITS["student_address_space_mib"])
        self.assertEqual(pace.student_address_space_mib(None), config.LIMITS["student_address_space_mib"])


if __name__ == "__main__":
    unittest.main()
