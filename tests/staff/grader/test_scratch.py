"""Tests of the grading's scratch directory (grader/gradelib/scratch.py):
as root in a private mount namespace it is a size-capped tmpfs that no
other process sees and that vanishes, sources and all, when the grader is
killed with SIGKILL; otherwise a plain directory removed at the end and on
SIGTERM. Each case runs a small grader-like child process.

    /usr/bin/python3 -m unittest discover -s tests/staff/grader -v
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# The child: (optionally) re-executes itself in a namespace like grader/grade,
# makes a scratch, plants a source file, reports, then waits to be killed.
CHILD = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {grader!r})
    from gradelib import config, scratch
    if sys.argv[1] == "private":
        scratch.reexec_in_private_namespace()
    space = scratch.Scratch(lambda line: None)
    try:
        with open(os.path.join(space.path, "grundy_solver.c"), "w") as handle:
            handle.write("/* a student's source */")
        too_big = b"x" * (config.SCRATCH_BYTES + (1 << 20))
        capped = "not tried"   # on a plain directory: no cap to try, and no disk to waste
        try:
            if sys.argv[1] != "private":
                raise StopIteration
            with open(os.path.join(space.path, "big"), "wb") as handle:
                handle.write(too_big)
            capped = "no"
        except OSError:
            capped = "yes"
        except StopIteration:
            pass
        if os.path.exists(os.path.join(space.path, "big")):
            os.remove(os.path.join(space.path, "big"))
        print(space.path, capped, space.describe(), sep="|", flush=True)
        time.sleep(120)
    finally:
        space.close()
""")


class Scratch(unittest.TestCase):
    def setUp(self):
        signal.alarm(120)
        self.addCleanup(signal.alarm, 0)
        self.tmp = tempfile.mkdtemp(prefix="grundy-test-scratch-")
        os.chmod(self.tmp, 0o755)
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.script = os.path.join(self.tmp, "child.py")
        with open(self.script, "w", encoding="utf-8") as handle:
            handle.write(CHILD.format(grader=str(ROOT / "grader")))

    def start(self, how):
        env = {k: v for k, v in os.environ.items() if k != "GRUNDY_GRADER_UNSHARED_FROM"}
        env["TMPDIR"] = self.tmp
        child = subprocess.Popen([sys.executable, self.script, how], stdout=subprocess.PIPE,
                                 text=True, env=env, start_new_session=True)
        self.addCleanup(lambda: child.poll() is None and child.kill())
        line = child.stdout.readline().strip()
        self.assertTrue(line, "the child reported nothing")
        path, capped, description = line.split("|")
        return child, path, capped, description

    def wait_gone(self, child):
        child.wait(timeout=30)
        child.stdout.close()

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare"), "needs root and unshare")
    def test_private_tmpfs_vanishes_on_sigkill(self):
        probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                               capture_output=True, check=False)
        if probe.returncode != 0:
            self.skipTest("this kernel refuses a mount namespace: " + probe.stderr.decode())
        child, path, capped, description = self.start("private")
        self.assertIn("private tmpfs", description)
        self.assertEqual(capped, "yes", "the tmpfs let more than SCRATCH_BYTES be written")
        # Outside the grader's namespace the mount point is an empty directory.
        self.assertEqual(os.listdir(path), [])
        self.assertIn("grundy_solver.c", os.listdir(f"/proc/{child.pid}/root{path}"))
        os.killpg(child.pid, signal.SIGKILL)
        self.wait_gone(child)
        self.assertFalse(os.path.exists(path) and os.listdir(path))
        with open("/proc/mounts", encoding="utf-8") as handle:
            self.assertNotIn(path, handle.read())

    def test_plain_directory_removed_on_sigterm(self):
        child, path, _, description = self.start("plain")
        self.assertIn("plain directory", description)
        self.assertIn("grundy_solver.c", os.listdir(path))
        os.kill(child.pid, signal.SIGTERM)
        self.wait_gone(child)
        self.assertFalse(os.path.exists(path), "SIGTERM left the scratch behind")

    def test_a_dead_graders_old_scratch_is_swept_and_nothing_else(self):
        sys.path.insert(0, str(ROOT / "grader"))
        from gradelib import scratch
        dead = subprocess.Popen(["true"])
        dead.wait()
        old = time.time() - scratch.STALE_SECONDS - 60
        made = {}
        for what, name in (("dead, old", f"grundy-grade-{dead.pid}-aaaa"),
                           ("dead, recent", f"grundy-grade-{dead.pid}-bbbb"),
                           ("alive, old", f"grundy-grade-{os.getppid()}-cccc"),
                           ("not a scratch", "grundy-grade-xyz"),
                           ("a link", f"grundy-grade-{dead.pid}-link")):
            path = os.path.join(self.tmp, name)
            if what == "a link":
                os.symlink(made["dead, old"], path)
            else:
                os.makedirs(os.path.join(path, "d" * 32))
            if what != "dead, recent":
                os.utime(path, (old, old), follow_symlinks=False)
            made[what] = path
        self.assertEqual(scratch.sweep_stale(self.tmp), 1)
        self.assertEqual(sorted(w for w, p in made.items() if os.path.lexists(p)),
                         ["a link", "alive, old", "dead, recent", "not a scratch"])

    def test_inherited_marker_is_not_trusted(self):
        # A marker naming another namespace than ours (inherited from a
        # parent) must not make the scratch believe it is private.
        sys.path.insert(0, str(ROOT / "grader"))
        from gradelib import scratch
        saved = os.environ.get(scratch.MARKER)
        os.environ[scratch.MARKER] = os.readlink("/proc/self/ns/mnt")
        try:
            private, why = scratch.in_private_namespace()
        finally:
            if saved is None:
                del os.environ[scratch.MARKER]
            else:
                os.environ[scratch.MARKER] = saved
        self.assertFalse(private)
        self.assertTrue(why)


if __name__ == "__main__":
    unittest.main()
