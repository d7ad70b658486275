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



class UidLockFile(unittest.TestCase):
    """The per-uid lock files may live in /tmp, which a sandbox without
    bubblewrap can write: root must pass over a planted link or FIFO, never
    open what it points to."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def test_a_regular_lock_file_is_opened(self):
        handle = sandbox._open_lock_file(os.path.join(self.dir.name, "grundy-grader-uid-1.lock"))
        self.assertIsNotNone(handle)
        handle.close()

    def test_a_planted_link_is_passed_over_and_its_target_untouched(self):
        target = os.path.join(self.dir.name, "secret")
        with open(target, "w", encoding="utf-8") as handle:
            handle.write("x")
        link = os.path.join(self.dir.name, "grundy-grader-uid-2.lock")
        os.symlink(target, link)
        self.assertIsNone(sandbox._open_lock_file(link))
        dangling = os.path.join(self.dir.name, "grundy-grader-uid-3.lock")
        os.symlink(os.path.join(self.dir.name, "made-by-root"), dangling)
        self.assertIsNone(sandbox._open_lock_file(dangling))
        self.assertFalse(os.path.exists(os.path.join(self.dir.name, "made-by-root")))

    def test_a_planted_fifo_is_passed_over_without_blocking(self):
        fifo = os.path.join(self.dir.name, "grundy-grader-uid-4.lock")
        os.mkfifo(fifo)
        self.assertIsNone(sandbox._open_lock_file(fifo))


if __name__ == "__main__":
    unittest.main()
