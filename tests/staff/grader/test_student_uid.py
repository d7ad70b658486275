"""The student's uid (issue 26, item 3): a run that starts student
processes (sandbox.run(students=True)) runs as the grading's sandbox uid
with exactly the capabilities a runner needs (sandbox.RUNNER_CAPS) and is
told the student uid, under bubblewrap (started as root, no user
namespace) and without it; bubblewrap started as root binds nothing whose
path a sandbox uid could have changed. That a student process of that
uid reaches neither the runner nor anything else of the grader is the
policy probe's to show (its student-uid control, both hosts)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import sandbox  # noqa: E402

# Bit numbers of linux/capability.h: CAP_KILL 5, CAP_SETGID 6, CAP_SETUID 7.
RUNNER_BITS = (1 << 5) | (1 << 6) | (1 << 7)
SHOW = ("id -u; id -g; id -G; grep -E '^Cap(Eff|Prm|Amb|Bnd):' /proc/self/status; "
        "stat -c %a /tmp; echo student=$GRADER_STUDENT_UID:$GRADER_STUDENT_GID; "
        "touch /dev/shm/arena-$$ 2>/dev/null && echo shm-writable; rm -f /dev/shm/arena-$$")


@unittest.skipUnless(os.geteuid() == 0, "the student's uid is a root grader's")
class StudentUidTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="student-uid-")
        os.chmod(self.top, 0o755)
        self.addCleanup(shutil.rmtree, self.top, True)

    def _modes(self):
        found = sandbox.detect([], self.top)
        self.assertIsNotNone(found.student_uid, "a root grader claims a student uid")
        self.assertNotEqual(found.student_uid, found.uid)
        plain = sandbox.Mode(bwrap=False, user=found.user, uid=found.uid, gid=found.gid,
                             student_uid=found.student_uid, student_gid=found.student_gid)
        return [found, plain] if found.bwrap else [plain]

    def _shown(self, mode, students):
        run_dir = tempfile.mkdtemp(dir=self.top)
        result = sandbox.run(mode, ["/bin/sh", "-c", SHOW], cwd=run_dir, writable=[run_dir],
                             students=students)
        self.assertTrue(result.ok, result.describe() + result.stderr)
        lines = result.stdout.split("\n")
        caps = {line.split(":")[0]: int(line.split()[1], 16) for line in lines if line.startswith("Cap")}
        return lines, caps

    def test_a_runner_is_the_sandbox_uid_with_the_runner_caps_only(self):
        for mode in self._modes():
            with self.subTest(bwrap=mode.bwrap):
                lines, caps = self._shown(mode, students=True)
                self.assertEqual(lines[0], str(mode.uid))
                self.assertEqual(lines[1], str(mode.gid))
                self.assertEqual(lines[2], str(mode.gid), "no supplementary group")
                self.assertEqual(caps, {"CapPrm": RUNNER_BITS, "CapEff": RUNNER_BITS,
                                        "CapAmb": RUNNER_BITS, "CapBnd": RUNNER_BITS})
                self.assertIn(f"student={mode.student_uid}:{mode.student_gid}", lines)
                if mode.bwrap:
                    self.assertEqual(lines[3 + len(caps)], "1777", "a /tmp both uids may use")
                    self.assertIn("shm-writable", lines, "Criterion's arena lives in /dev/shm")

    def test_any_other_run_holds_no_capability_and_no_student_uid(self):
        for mode in self._modes():
            with self.subTest(bwrap=mode.bwrap):
                lines, caps = self._shown(mode, students=False)
                self.assertEqual(lines[0], str(mode.uid))
                self.assertEqual({caps["CapPrm"], caps["CapEff"], caps["CapAmb"]}, {0})
                self.assertIn("student=:", lines)

    def test_bubblewrap_as_root_binds_no_path_a_sandbox_uid_could_change(self):
        mine = os.path.join(self.top, "given")
        os.makedirs(os.path.join(mine, "run"))
        sandbox._safe_to_bind(os.path.join(mine, "run"))   # root's all the way: bound
        link = os.path.join(self.top, "link")
        os.symlink(mine, link)
        with self.assertRaisesRegex(sandbox.UnsafeWritablePath, "symbolic link"):
            sandbox._safe_to_bind(os.path.join(link, "run"))
        os.chown(mine, 64263, 64263)    # a sandbox uid's directory above the bound one
        with self.assertRaisesRegex(sandbox.UnsafeWritablePath, "written by others than root"):
            sandbox._safe_to_bind(os.path.join(mine, "run"))
        os.chown(mine, 0, 0)
        os.chmod(mine, 0o777)           # root's, but anyone may rename in it
        with self.assertRaisesRegex(sandbox.UnsafeWritablePath, "written by others than root"):
            sandbox._safe_to_bind(os.path.join(mine, "run"))
        os.chmod(mine, 0o1777)          # sticky, like /tmp: root's entries stay root's
        sandbox._safe_to_bind(os.path.join(mine, "run"))

    def test_a_directory_inside_a_bound_one_is_bound_with_it(self):
        """The coverage runs: the run directory lies inside the writable
        coverage directory, a sandbox uid's: bound with it, never resolved
        on its own by bubblewrap as root."""
        readable, writable = sandbox._outermost(
            ["/s/harness", "/s/cov", "/s/harness/x", "/s/bin"],
            ["/s/cov/runs/task0", "/s/cov", "/s/cov"])
        self.assertEqual(writable, ["/s/cov"])
        self.assertEqual(readable, ["/s/harness", "/s/bin"])

    def test_a_host_that_cannot_start_runners_refuses_to_grade(self):
        """A container without CAP_KILL (or setpriv, or CAP_SETUID): the
        grading stops with the cause named, never falls back to one uid."""
        grader = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader")
        code = (f"import sys; sys.path.insert(0, {grader!r}); from gradelib import sandbox; "
                f"print(sandbox.detect([], {self.top!r}).student_uid)")
        for drop in ("cap_kill", "cap_setuid"):
            with self.subTest(drop=drop):
                run = subprocess.run(["capsh", f"--drop={drop}", "--", "-c", 'exec python3 -c "$0"', code],
                                     capture_output=True, text=True, timeout=60)
                self.assertNotEqual(run.returncode, 0, run.stdout)
                self.assertIn("cannot start a test runner as the grading's sandbox uid", run.stderr)
        control = subprocess.run(["capsh", "--drop=cap_sys_module", "--", "-c", 'exec python3 -c "$0"', code],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(control.returncode, 0, control.stderr)


if __name__ == "__main__":
    unittest.main()
