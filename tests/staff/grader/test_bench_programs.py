"""make bench's own set-up still works: its timing section links the model
solution and the unmemoized fixture the way the grader links a
submission (bench/timing_checks.grader_programs). The bench is not part
of make check (it takes minutes and wants a quiet machine), so when the
model's objects left the scratch (issue 26) it stopped at that section
unnoticed; this builds its two programs, without timing them."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
sys.path.insert(0, os.path.join(REPO, "grader"))

import timing_checks  # noqa: E402
from gradelib import config  # noqa: E402


# The whole harness, not its folder: other targets make parts of build/grader.
HARNESS_MADE = os.path.exists(os.path.join(config.HARNESS, "boundary", "student_server.o"))


@unittest.skipUnless(HARNESS_MADE, "the grader's harness is not built (make grader-harness)")
class BenchProgramsTest(unittest.TestCase):
    def test_the_timing_section_links_both_programs(self):
        fixture = tempfile.mkdtemp(prefix="bench-fixture-")
        self.addCleanup(shutil.rmtree, fixture, True)
        os.chmod(fixture, 0o755)
        subprocess.run([os.path.join(REPO, "tests", "staff", "fixtures", "materialize"),
                        os.path.join(REPO, "tests", "staff", "fixtures", "unmemoized"),
                        os.path.join(fixture, "unmemoized")], check=True, capture_output=True)
        scratch, _, programs = timing_checks.grader_programs(os.path.join(fixture, "unmemoized"),
                                                             lambda message: None)
        self.addCleanup(shutil.rmtree, scratch, True)
        self.assertEqual(sorted(programs), ["reference", "unmemoized"])
        for path in programs.values():
            self.assertTrue(os.access(path, os.X_OK), path)
        with open(programs["reference"], "rb") as a, open(programs["unmemoized"], "rb") as b:
            self.assertNotEqual(a.read(), b.read(), "two different solvers")


if __name__ == "__main__":
    unittest.main()
