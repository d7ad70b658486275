"""Unit tests of the guard that keeps the sandbox from being handed a shared
directory (grader/gradelib/sandbox.py, _give_to).

A run's writable directories are given to the grading's sandbox user. Given
/tmp by mistake, that once made every file in /tmp the sandbox user's. The
guard must refuse shared directories and links, and still hand over a
directory the grading made for itself (tested with the current uid, so it
needs no root).
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import sandbox  # noqa: E402


class GiveTo(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.own = os.path.join(self.dir.name, "run")
        os.makedirs(os.path.join(self.own, "sub"))
        with open(os.path.join(self.own, "sub", "file"), "w", encoding="utf-8") as handle:
            handle.write("x")
        os.chmod(self.own, 0o755)

    def give(self, path):
        sandbox._give_to(path, os.getuid(), os.getgid())

    def test_a_grading_directory_is_handed_over(self):
        self.give(self.own)   # no exception: the grading's own directory
        os.chmod(self.own, 0o777)   # as made under a umask of 0: still the grading's own
        self.give(self.own)

    def test_shared_directories_are_refused(self):
        for path in ("/", "/tmp", "/var/tmp"):
            with self.subTest(path=path):
                with self.assertRaises(sandbox.UnsafeWritablePath):
                    self.give(path)

    def test_a_sticky_directory_is_refused(self):
        for mode in (0o1777, 0o1755):
            with self.subTest(mode=oct(mode)):
                os.chmod(self.own, mode)
                with self.assertRaises(sandbox.UnsafeWritablePath):
                    self.give(self.own)

    def test_a_link_is_refused(self):
        link = os.path.join(self.dir.name, "link")
        os.symlink(self.own, link)
        with self.assertRaises(sandbox.UnsafeWritablePath):
            self.give(link)

    def test_a_file_is_refused(self):
        with self.assertRaises(sandbox.UnsafeWritablePath):
            self.give(os.path.join(self.own, "sub", "file"))


if __name__ == "__main__":
    unittest.main()
