"""Unit tests of what an untrusted step sees of the host (grader/gradelib/
sandbox.py): bubblewrap's fresh root (_bwrap_argv), the audit without
bubblewrap (audit, lock_out, _chmod_advice) and the build's views
(build.compile_view, link_view, view).

The fresh root is read from its command line: only the system's
directories and the run's own are mounted, never the host's /. The audit
walks a tree made here as a sandbox uid (root only: skipped otherwise).
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import build, sandbox  # noqa: E402


def mounts(argv):
    """(kind, source, target) of each mount option of a bubblewrap command."""
    found = []
    for at, word in enumerate(argv):
        if word in ("--ro-bind", "--bind", "--symlink"):
            found.append((word, argv[at + 1], argv[at + 2]))
        elif word in ("--tmpfs", "--proc", "--dev", "--dir"):
            found.append((word, None, argv[at + 1]))
        elif word == "--":
            break
    return found


class FreshRoot(unittest.TestCase):
    def argv(self, readable=(), writable=(), hide=()):
        mode = sandbox.Mode(bwrap=True, user=None, hidden=["/work", "/home"])
        return sandbox._bwrap_argv(mode, ["gcc", "-c", "x.c"], "/s/scratch", list(readable),
                                   list(writable), {"PATH": "/usr/bin"}, hide)

    def test_the_hosts_root_is_never_mounted(self):
        for kind, source, target in mounts(self.argv(["/s/scratch/src"], ["/s/scratch/obj"])):
            self.assertNotEqual(target, "/", f"{kind} {source} {target}")
            self.assertNotEqual(source, "/", f"{kind} {source} {target}")

    def test_only_the_system_and_the_runs_own_directories(self):
        allowed = set(sandbox.SYSTEM_DIRS + sandbox.SYSTEM_TOP + sandbox.SYSTEM_ETC) | {
            "/s/scratch/src", "/s/scratch/obj", "/tmp", "/proc", "/dev", "/s/scratch"}
        for kind, source, target in mounts(self.argv(["/s/scratch/src"], ["/s/scratch/obj"])):
            self.assertIn(target, allowed, f"{kind} {source} {target}")

    def test_masks_are_not_needed_nor_made(self):
        # The old layout masked /work and /home with a tmpfs over the
        # host's root; a fresh root has neither, so no tmpfs but /tmp.
        tmpfs = [t for k, _, t in mounts(self.argv(hide=["/s/scratch"])) if k == "--tmpfs"]
        self.assertEqual(tmpfs, ["/tmp"])

    def test_the_runs_directories_come_after_the_private_tmp(self):
        # A scratch under /tmp must be bound after the tmpfs, or the tmpfs
        # would hide it.
        order = [t for _, _, t in mounts(self.argv(["/tmp/g/src"], ["/tmp/g/obj"]))]
        self.assertLess(order.index("/tmp"), order.index("/tmp/g/src"))
        self.assertLess(order.index("/tmp"), order.index("/tmp/g/obj"))

    def test_usr_is_given_by_its_parts(self):
        # /usr/local/src or /usr/src may hold a second clone.
        targets = {t for _, _, t in mounts(self.argv())}
        self.assertNotIn("/usr", targets)
        self.assertNotIn("/usr/local", targets)
        self.assertNotIn("/usr/src", targets)


class Views(unittest.TestCase):
    def test_a_compile_sees_its_sources_and_headers_only(self):
        view = build.compile_view("/s/x", "/s/x/obj")
        self.assertEqual(sorted(view["readable"]), ["/s/x/include", "/s/x/src"])
        self.assertEqual(view["writable"], ["/s/x/obj"])

    def test_a_link_sees_the_directories_of_its_inputs(self):
        view = build.link_view("/s/x", ["/s/x/obj/a.o", build.harness("/s/x", "given", "g.o"),
                                        "/proc/self/fd/5", "-static"], "/s/x/bin/p")
        self.assertEqual(sorted(view["readable"]), sorted(["/s/x/obj", build.harness("/s/x", "given")]))
        self.assertEqual(view["writable"], ["/s/x/bin"])

    def test_a_runner_sees_the_harness_and_its_program(self):
        self.assertEqual(build.view("/s/x", build.runner("/s/x", 0), "/s/x/bin/student_0"),
                         [build.harness("/s/x"), "/s/x/bin"])

    def test_the_harness_name_is_not_the_known_one(self):
        self.assertNotEqual(os.path.basename(build.harness("/s/x")), "harness")
        self.assertEqual(build.harness("/s/x"), build.harness("/s/x"))   # stable in a process


class ChmodAdvice(unittest.TestCase):
    def test_places_two_levels_down_or_past_the_system(self):
        advice = sandbox._chmod_advice(["/home/ta/grundy-lab/reference/grundy_solver.c",
                                        "/home/ta/other.c", "/usr/local/src/clone/a.c",
                                        "/srv/grundy-lab/x", "/stray.c"])
        self.assertEqual(advice, "chmod -R o-rwx /home/ta /usr/local/src /srv/grundy-lab /stray.c")


@unittest.skipUnless(os.geteuid() == 0, "the audit walks as a sandbox uid: needs root")
class Audit(unittest.TestCase):
    UID = 64263   # the last of SANDBOX_UIDS: no account, no grading of these tests

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(dir="/tmp")
        self.addCleanup(self.dir.cleanup)
        root = self.dir.name
        os.chmod(root, 0o755)
        for path, mode in (("open/clone/reference/grundy_solver.c", 0o644),
                           ("open/empty", 0o644), ("open/private.c", 0o600),
                           ("closed/secret.c", 0o644), ("mine/own.c", 0o644)):
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as handle:
                handle.write("" if path.endswith("empty") else "int x;\n")
            os.chmod(full, mode)
        os.chmod(os.path.join(root, "closed"), 0o711)   # enterable, not listable
        self.mode = sandbox.Mode(bwrap=False, user=f"uid {self.UID}", uid=self.UID, gid=65534)

    def test_readable_files_and_enterable_unlistable_directories_are_found(self):
        found = sandbox.audit(self.mode, allowed=[os.path.join(self.dir.name, "mine")],
                              roots=(self.dir.name,))
        self.assertTrue(found.complete)
        self.assertEqual(sorted(found.readable),
                         [os.path.join(self.dir.name, "closed") + "/",
                          os.path.join(self.dir.name, "open/clone/reference/grundy_solver.c")])

    def test_a_gradings_scratch_top_is_not_reported(self):
        os.rename(os.path.join(self.dir.name, "closed"), os.path.join(self.dir.name, "grundy-grade-x"))
        os.chmod(os.path.join(self.dir.name, "open"), 0o700)
        found = sandbox.audit(self.mode, allowed=[os.path.join(self.dir.name, "mine")],
                              roots=(self.dir.name,))
        self.assertEqual(found.readable, [])

    def test_lock_out_refuses_with_the_chmod(self):
        real = sandbox.audit
        self.addCleanup(setattr, sandbox, "audit", real)
        sandbox.audit = lambda mode, allowed: real(mode, allowed, roots=(self.dir.name,))
        with self.assertRaises(sandbox.SecretsReachable) as caught:
            sandbox.lock_out(self.mode, allowed=[os.path.join(self.dir.name, "mine")])
        self.assertIn("grundy_solver.c", str(caught.exception))
        self.assertIn("chmod -R o-rwx", str(caught.exception))
        os.chmod(os.path.join(self.dir.name, "open"), 0o700)   # the fix it names
        os.chmod(os.path.join(self.dir.name, "closed"), 0o700)
        self.assertEqual(sandbox.lock_out(self.mode, allowed=[os.path.join(self.dir.name, "mine")]).count, 0)

    def test_a_daemons_state_in_run_is_the_systems_and_nothing_else_there(self):
        run = os.path.join(self.dir.name, "run")
        made = {}
        for name, owner, mode in (("slurmd.pid", 0, 0o755), ("munge/munged.pid", 64030, 0o755),
                                  ("lock/left.c", 0, 0o1777), ("user/1000/notes.c", 1000, 0o755),
                                  ("sandboxed/x.c", self.UID - 1, 0o755)):
            path = os.path.join(run, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("1234\n")
            os.chmod(os.path.dirname(path), mode)
            os.chown(os.path.dirname(path), owner, 0)
            made[name] = path
        self.addCleanup(setattr, sandbox, "RUN_STATE", sandbox.RUN_STATE)
        sandbox.RUN_STATE = run
        found = sandbox.audit(self.mode, roots=(run,))
        self.assertEqual(sorted(found.readable),
                         sorted(made[n] for n in ("lock/left.c", "user/1000/notes.c", "sandboxed/x.c")))

    def test_with_bubblewrap_there_is_nothing_to_audit(self):
        self.assertIsNone(sandbox.lock_out(sandbox.Mode(bwrap=True, user="x", uid=self.UID, gid=65534)))


if __name__ == "__main__":
    unittest.main()
