"""Tests of the coverage report's handling of a sandbox-written counters
directory (grader/gradelib/coverage.py, report): a FIFO named like a
.gcda, links to /etc/shadow named like a .gcda and a .gcno, and no
counters at all. gcovr runs in the sandbox on a copy of the regular files,
so nothing hangs and nothing from /etc reaches OUT; no counters means
"could not run", never 0%.

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "grader"))

from gradelib import coverage, sandbox  # noqa: E402

PROGRAM = "int twice(int x) { return 2 * x; }\nint main(void) { return twice(0); }\n"
SECRET_NAME = "/etc/shadow" if os.path.exists("/etc/shadow") else "/etc/passwd"


@unittest.skipUnless(shutil.which("gcovr") and shutil.which("gcc"), "needs gcc and gcovr")
class CoverageReport(unittest.TestCase):
    def setUp(self):
        signal.alarm(120)   # a hang fails the test instead of the suite
        self.addCleanup(signal.alarm, 0)
        self.base = tempfile.mkdtemp(prefix="grundy-test-coverage-")
        self.addCleanup(shutil.rmtree, self.base, True)
        os.chmod(self.base, 0o755)   # the sandbox's user must reach it, as with the grader's scratch
        self.scratch = os.path.join(self.base, "scratch")
        self.cov = os.path.join(self.scratch, "coverage")
        self.out = os.path.join(self.base, "out")
        os.makedirs(os.path.join(self.scratch, "src"))
        os.makedirs(self.cov)
        with open(os.path.join(self.scratch, "src", "grundy_position.c"), "w", encoding="utf-8") as handle:
            handle.write(PROGRAM)
        self.lines = []

    def counters(self):
        """Real counters, made as the grader makes them (compiled from scratch)."""
        program = os.path.join(self.cov, "program")
        subprocess.run(["gcc", "--coverage", "-O0", "src/grundy_position.c",
                        "-o", program], cwd=self.scratch, check=True)
        os.rename(os.path.join(self.cov, "program-grundy_position.gcno"),
                  os.path.join(self.cov, "grundy_position.gcno"))
        subprocess.run([program], check=True, env={"GCOV_PREFIX_STRIP": "0"})
        made = [n for n in os.listdir(self.cov) if n.endswith(".gcda")]
        for name in made:
            os.rename(os.path.join(self.cov, name), os.path.join(self.cov, "grundy_position.gcda"))

    def plant(self):
        os.mkfifo(os.path.join(self.cov, "planted.gcda"))
        os.symlink(SECRET_NAME, os.path.join(self.cov, "secret.gcda"))
        os.symlink(SECRET_NAME, os.path.join(self.cov, "secret.gcno"))
        os.symlink("/etc", os.path.join(self.cov, "etc.gcda"))

    def report(self):
        mode = sandbox.detect([], self.scratch)
        start = time.monotonic()
        found, why = coverage.report(mode, self.scratch, self.cov, self.out, self.lines.append)
        return found, why, time.monotonic() - start

    def out_bytes(self):
        data = b""
        for directory, _, files in os.walk(self.out):
            for name in files:
                with open(os.path.join(directory, name), "rb") as handle:
                    data += handle.read()
        return data

    def test_planted_only_is_could_not_run(self):
        self.plant()
        found, why, seconds = self.report()
        self.assertIsNone(found)
        self.assertIn("could not run", why)
        self.assertLess(seconds, 30)
        self.assertFalse(os.path.exists(self.out))
        self.assertTrue(any("FIFO" in line for line in self.lines), self.lines)
        self.assertTrue(any("symbolic link" in line for line in self.lines), self.lines)

    def test_no_counters_is_not_zero_percent(self):
        found, why, _ = self.report()
        self.assertIsNone(found)
        self.assertIn("no counters", why)

    def test_planted_beside_real_counters(self):
        self.counters()
        self.plant()
        found, why, seconds = self.report()
        self.assertIsNone(why, self.lines)
        self.assertEqual(found["line_percent"], 100.0)
        self.assertLess(seconds, 60)
        self.assertIn(b"twice", self.out_bytes())
        self.assertNotIn(b"root:", self.out_bytes())
        self.assertFalse(any(os.path.islink(os.path.join(d, n))
                             for d, dirs, files in os.walk(self.out) for n in dirs + files))


if __name__ == "__main__":
    unittest.main()
