"""Tests of how the grader reads a submission (grader/gradelib/build.py:
locate and copy_sources, and grader/grade's refusal of a linked top): no
link is followed at any level, a FIFO never blocks, oversized files are
refused, and every refusal is named where the feedback shows it.

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import os
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "grader"))

from gradelib import build, config  # noqa: E402

# Two files of the term: the map's, and another (the term may have more).
POSITION = config.POSITION
SOLVER = next(f for f in config.SUBMISSION_FILES if f != POSITION)


class Submission(unittest.TestCase):
    def setUp(self):
        signal.alarm(30)   # a read that blocks fails the test (SIGALRM ends it) instead of hanging
        self.addCleanup(signal.alarm, 0)
        self.base = tempfile.TemporaryDirectory()
        self.addCleanup(self.base.cleanup)
        self.sub = os.path.join(self.base.name, "sub")
        self.scratch = os.path.join(self.base.name, "scratch")
        os.makedirs(self.sub)
        os.makedirs(self.scratch)
        self.elsewhere = os.path.join(self.base.name, "elsewhere")
        os.makedirs(self.elsewhere)
        for name in config.SUBMISSION_FILES:
            self.write(os.path.join(self.elsewhere, name), "/* someone else's */\n")

    def write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)

    def copy(self):
        return build.copy_sources(build.locate(self.sub), self.scratch)

    def copied(self, name):
        path = os.path.join(self.scratch, "src", name)
        if not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as handle:
            return handle.read()


class Locate(Submission):
    def test_top(self):
        self.write(os.path.join(self.sub, POSITION), "int x;\n")
        found = build.locate(self.sub)
        self.assertEqual((found.path, found.refused), (self.sub, []))

    def test_student_dir(self):
        self.write(os.path.join(self.sub, "student", SOLVER), "int x;\n")
        self.assertEqual(build.locate(self.sub).path, os.path.join(self.sub, "student"))

    def test_linked_top_is_an_error(self):
        link = os.path.join(self.base.name, "link")
        os.symlink(self.elsewhere, link)
        for given in (link, link + "/", link + "//"):
            with self.subTest(given=given), self.assertRaisesRegex(build.SubmissionError, "symbolic link"):
                build.locate(given)

    def test_not_a_directory(self):
        with self.assertRaises(build.SubmissionError):
            build.locate(os.path.join(self.base.name, "none"))

    def test_linked_student_is_refused(self):
        os.symlink(self.elsewhere, os.path.join(self.sub, "student"))
        builds = self.copy()
        for name in config.SUBMISSION_FILES:
            self.assertFalse(builds[name].present)
            self.assertIn("student/ is a symbolic link; it was not read", builds[name].errors)
            self.assertIsNone(self.copied(name))

    def test_proc_cwd_link_does_not_reach_the_reference(self):
        os.symlink("/proc/self/cwd/reference", os.path.join(self.sub, "student"))
        previous = os.getcwd()
        os.chdir(ROOT)
        try:
            builds = self.copy()
        finally:
            os.chdir(previous)
        self.assertFalse(any(b.present for b in builds.values()))
        self.assertEqual(os.listdir(os.path.join(self.scratch, "src")), [])


class CopySources(Submission):
    def test_regular_files(self):
        for name in config.SUBMISSION_FILES:
            self.write(os.path.join(self.sub, name), f"/* {name} */\n")
        builds = self.copy()
        for name in config.SUBMISSION_FILES:
            self.assertTrue(builds[name].present)
            self.assertEqual(builds[name].errors, "")
            self.assertEqual(self.copied(name), f"/* {name} */\n")

    def test_linked_file_and_fifo(self):
        os.symlink(os.path.join(self.elsewhere, SOLVER), os.path.join(self.sub, SOLVER))
        os.mkfifo(os.path.join(self.sub, POSITION))
        builds = self.copy()
        self.assertIn(f"{SOLVER} is a symbolic link; it was not read", builds[SOLVER].errors)
        self.assertIn(f"{POSITION} is a FIFO; it was not read", builds[POSITION].errors)
        self.assertEqual(os.listdir(os.path.join(self.scratch, "src")), [])

    def test_files_under_student_are_read_by_descriptor(self):
        os.makedirs(os.path.join(self.sub, "student"))
        os.symlink(os.path.join(self.elsewhere, SOLVER), os.path.join(self.sub, "student", SOLVER))
        self.write(os.path.join(self.sub, "student", POSITION), "/* mine */\n")
        builds = self.copy()
        self.assertEqual(self.copied(POSITION), "/* mine */\n")
        self.assertFalse(builds[SOLVER].present)
        self.assertIn("symbolic link", builds[SOLVER].errors)

    def test_directory_and_device_names(self):
        os.makedirs(os.path.join(self.sub, POSITION))
        os.symlink("/dev/zero", os.path.join(self.sub, SOLVER))
        builds = self.copy()
        self.assertIn("is a directory", builds[POSITION].errors)
        self.assertIn("is a symbolic link", builds[SOLVER].errors)

    def test_oversized(self):
        self.write(os.path.join(self.sub, POSITION), "x" * (config.MAX_SOURCE_BYTES + 1))
        builds = self.copy()
        self.assertIn(f"larger than {config.MAX_SOURCE_BYTES} bytes", builds[POSITION].errors)
        self.assertIn(f"{SOLVER} is missing", builds[SOLVER].errors)
        self.assertIsNone(self.copied(POSITION))


class GradeCommand(Submission):
    def test_linked_top_exits_2(self):
        link = os.path.join(self.base.name, "link")
        os.symlink(self.elsewhere, link)
        out = os.path.join(self.base.name, "out")
        done = subprocess.run([sys.executable, str(ROOT / "grader" / "grade"), link + "/", "--out", out],
                              capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn("symbolic link", done.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
