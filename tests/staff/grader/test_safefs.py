"""Tests of grader/gradelib/safefs.py: what root reads from a directory the
sandbox could write. Each test plants what a hostile sandboxed process
could make (links to secrets, FIFOs, oversized files, floods of names) and
checks that nothing is followed, nothing blocks and the caps hold. Every
call runs under an alarm, so a read that blocks fails the test instead of
hanging the suite.

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import contextlib
import os
import signal
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "grader"))

from gradelib import safefs  # noqa: E402

SECRET = b"the secret outside the sandbox\n"


class Blocked(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds=5):
    """Fails the test when its body blocks (on a FIFO, say) for seconds."""
    def expired(signum, frame):
        raise Blocked(f"blocked for {seconds} s")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class Planted(unittest.TestCase):
    """A sandbox-writable directory with hostile names, and a secret outside."""

    def setUp(self):
        guard = deadline(30)   # the whole test, on top of each call's own
        guard.__enter__()
        self.addCleanup(guard.__exit__, None, None, None)
        self.base = tempfile.TemporaryDirectory()
        self.addCleanup(self.base.cleanup)
        self.secret = os.path.join(self.base.name, "secret")
        with open(self.secret, "wb") as handle:
            handle.write(SECRET)
        self.src = os.path.join(self.base.name, "sandbox")
        self.dst = os.path.join(self.base.name, "copy")
        os.makedirs(os.path.join(self.src, "sub"))
        self.plant("good.xml", b"<ok/>")
        self.plant("sub/nested.xml", b"<nested/>")
        os.symlink(self.secret, os.path.join(self.src, "link.xml"))
        os.symlink(os.path.dirname(self.secret), os.path.join(self.src, "linkdir"))
        os.mkfifo(os.path.join(self.src, "fifo.xml"))
        os.mkfifo(os.path.join(self.src, "sub", "fifo.gcda"))

    def plant(self, name, data):
        with open(os.path.join(self.src, name), "wb") as handle:
            handle.write(data)

    def copied_bytes(self):
        found = {}
        for directory, _, files in os.walk(self.dst):
            for name in files:
                path = os.path.join(directory, name)
                with open(path, "rb") as handle:
                    found[os.path.relpath(path, self.dst)] = handle.read()
        return found


class ReadCapped(Planted):
    def test_regular_file(self):
        with deadline():
            self.assertEqual(safefs.read_capped(os.path.join(self.src, "good.xml"), 100), b"<ok/>")

    def test_cap_cuts(self):
        self.plant("big", b"x" * 5000)
        with deadline():
            self.assertEqual(len(safefs.read_capped(os.path.join(self.src, "big"), 1000)), 1000)

    def test_refuses_without_blocking(self):
        for name in ("link.xml", "linkdir", "fifo.xml", "sub", "missing"):
            with self.subTest(name=name), deadline():
                self.assertIsNone(safefs.read_capped(os.path.join(self.src, name), 1000))

    def test_device_is_never_opened(self):
        # A device the test may read: refused from its lstat, never opened.
        with deadline():
            self.assertIsNone(safefs.read_capped("/dev/zero", 10))
            self.assertIsNone(safefs.read_capped("/dev/tty", 10))

    def test_whole_refuses_oversized(self):
        self.plant("big", b"x" * 5000)
        with self.assertRaisesRegex(safefs.Refused, "larger than 4999 bytes"):
            safefs.read_regular(os.path.join(self.src, "big"), 4999)
        self.assertEqual(len(safefs.read_regular(os.path.join(self.src, "big"), 5000)), 5000)

    def test_reasons_name_the_kind(self):
        for name, words in (("link.xml", "symbolic link"), ("fifo.xml", "FIFO"), ("sub", "directory")):
            with self.subTest(name=name), deadline():
                with self.assertRaisesRegex(safefs.Refused, words):
                    safefs.read_regular(os.path.join(self.src, name), 100)

    def test_relative_to_a_directory_descriptor(self):
        fd = safefs.open_dir(self.src)
        try:
            self.assertEqual(safefs.read_regular("good.xml", 100, dir_fd=fd), b"<ok/>")
            with self.assertRaises(safefs.Refused):
                safefs.read_regular("link.xml", 100, dir_fd=fd)
        finally:
            os.close(fd)

    def test_open_dir_refuses_a_link(self):
        with self.assertRaisesRegex(safefs.Refused, "symbolic link"):
            safefs.open_dir(os.path.join(self.src, "linkdir"))


class CopyTree(Planted):
    def test_copies_only_regular_files(self):
        with deadline():
            copied, refused = safefs.copy_tree_safely(self.src, self.dst, 1000, 10000)
        self.assertEqual(sorted(copied), ["good.xml", os.path.join("sub", "nested.xml")])
        self.assertEqual(self.copied_bytes(), {"good.xml": b"<ok/>", "sub/nested.xml": b"<nested/>"})
        reasons = dict(refused)
        self.assertIn("symbolic link", reasons["link.xml"])
        self.assertIn("symbolic link", reasons["linkdir"])
        self.assertIn("FIFO", reasons["fifo.xml"])
        self.assertIn("FIFO", reasons[os.path.join("sub", "fifo.gcda")])
        self.assertNotIn(SECRET, b"".join(self.copied_bytes().values()))

    def test_pattern(self):
        copied, _ = safefs.copy_tree_safely(self.src, self.dst, 1000, 10000, pattern="nested*")
        self.assertEqual(copied, [os.path.join("sub", "nested.xml")])

    def test_per_file_cap(self):
        self.plant("big.xml", b"x" * 2000)
        copied, refused = safefs.copy_tree_safely(self.src, self.dst, 1000, 10000)
        self.assertNotIn("big.xml", copied)
        self.assertIn("larger than 1000", dict(refused)["big.xml"])

    def test_total_cap(self):
        for i in range(5):
            self.plant(f"part{i}", b"y" * 400)
        copied, refused = safefs.copy_tree_safely(self.src, self.dst, 1000, 1000, pattern="part*")
        self.assertEqual(copied, ["part0", "part1"])
        self.assertLessEqual(sum(len(v) for v in self.copied_bytes().values()), 1000)
        self.assertIn("total cap", dict(refused)["part2"])

    def test_name_flood_is_cut(self):
        flood = os.path.join(self.src, "flood")
        os.makedirs(flood)
        for i in range(safefs.MAX_ENTRIES + 50):
            open(os.path.join(flood, f"f{i}"), "wb").close()
        with deadline(20):
            copied, refused = safefs.copy_tree_safely(self.src, self.dst, 10, 10 << 20)
        self.assertLessEqual(len(copied), safefs.MAX_ENTRIES)
        self.assertTrue(any("more than" in why for _, why in refused))

    def test_top_that_is_a_link_copies_nothing(self):
        copied, refused = safefs.copy_tree_safely(os.path.join(self.src, "linkdir"), self.dst, 1000, 1000)
        self.assertEqual(copied, [])
        self.assertIn("symbolic link", refused[0][1])
        self.assertFalse(os.path.exists(self.dst))

    def test_missing_top_copies_nothing(self):
        self.assertEqual(safefs.copy_tree_safely(os.path.join(self.src, "none"), self.dst, 1, 1), ([], []))


class WriteAtomic(unittest.TestCase):
    def test_writes_and_replaces(self):
        with tempfile.TemporaryDirectory() as base:
            path = os.path.join(base, "f")
            safefs.write_atomic(path, "one")
            safefs.write_atomic(path, b"two")
            with open(path, "rb") as handle:
                self.assertEqual(handle.read(), b"two")
            self.assertEqual(os.listdir(base), ["f"])


if __name__ == "__main__":
    unittest.main()
