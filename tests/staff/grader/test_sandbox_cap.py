"""The grading's time cap (sandbox.Mode.start_clock): no run outlives it.

A run is given what is left of the cap as its wall-clock limit, and a run
asked for after the cap is not started; both say so (RunResult.capped).
Plain processes, no sandbox user: the cap is the sandbox module's own."""

import os
import shutil
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import sandbox  # noqa: E402


class GradingCapTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.mode = sandbox.Mode(bwrap=False, user=None)

    def test_a_run_ends_at_the_cap(self):
        self.mode.start_clock(1.0)
        start = time.monotonic()
        result = sandbox.run(self.mode, ["/bin/sleep", "30"], cwd=self._tmp.name,
                             limits=sandbox.Limits(wall_seconds=30))
        self.assertLess(time.monotonic() - start, 5)
        self.assertTrue(result.timed_out)
        self.assertTrue(result.capped)
        self.assertIn("time cap", result.describe())

    def test_a_run_after_the_cap_is_not_started(self):
        self.mode.start_clock(0.001)
        time.sleep(0.01)
        marker = os.path.join(self._tmp.name, "ran")
        result = sandbox.run(self.mode, ["/bin/touch", marker], cwd=self._tmp.name)
        self.assertTrue(result.capped)
        self.assertFalse(result.ok)
        self.assertFalse(os.path.exists(marker))

    def test_a_refused_run_is_reported_like_a_run(self):
        # The grading's time_cap flag comes from on_run (pipeline._save_log):
        # a cap met between two runs must reach it too.
        seen = []
        self.mode.on_run = lambda result, cwd: seen.append(result)
        self.mode.start_clock(0.001)
        time.sleep(0.01)
        sandbox.run(self.mode, ["/bin/true"], cwd=self._tmp.name)
        self.assertEqual([r.capped for r in seen], [True])

    def test_without_a_clock_the_run_keeps_its_own_limit(self):
        result = sandbox.run(self.mode, ["/bin/true"], cwd=self._tmp.name)
        self.assertTrue(result.ok)
        self.assertFalse(result.capped)


class PaceTest(unittest.TestCase):
    """The pace (pace.py) scales every run's wall-clock limit and the
    grading's cap (up to config.GRADING_CAP_CEILING), reaches the proxy
    through the run's environment, and makes every sandboxed process the
    OOM killer's first choice."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.mode = sandbox.Mode(bwrap=False, user=None)

    def test_a_run_limit_scales(self):
        self.mode.pace = 3.0
        result = sandbox.run(self.mode, ["/bin/sleep", "0.5"], cwd=self._tmp.name,
                             limits=sandbox.Limits(wall_seconds=0.25))
        self.assertTrue(result.ok, result.describe())   # 0.75 s allowed
        self.mode.pace = 1.0
        result = sandbox.run(self.mode, ["/bin/sleep", "0.5"], cwd=self._tmp.name,
                             limits=sandbox.Limits(wall_seconds=0.25))
        self.assertTrue(result.timed_out)

    def test_the_cap_scales_up_to_its_ceiling(self):
        from gradelib import config
        self.mode.pace = 2.0
        self.mode.start_clock(10)
        self.assertEqual(self.mode.cap_seconds, 20)
        self.mode.pace = 1000.0
        self.mode.start_clock(10)
        self.assertEqual(self.mode.cap_seconds, config.GRADING_CAP_CEILING)
        self.mode.pace = 1.0
        self.mode.start_clock(10)
        self.assertEqual(self.mode.cap_seconds, 10)

    def test_the_proxy_gets_the_pace_and_the_address_space(self):
        self.mode.pace, self.mode.student_address_space_mib = 4.0, 128
        result = sandbox.run(self.mode, ["/usr/bin/env"], cwd=self._tmp.name)
        lines = result.stdout.splitlines()
        self.assertIn("GRADER_TIME_SCALE=4", lines)
        self.assertIn("GRADER_ADDRESS_SPACE_MIB=128", lines)
        from gradelib import config
        self.assertIn(f"GRADER_CALL_SECONDS={config.CALL_SECONDS * 4:g}", lines)

    def test_sandboxed_processes_go_first_when_memory_runs_out(self):
        result = sandbox.run(self.mode, ["/bin/cat", "/proc/self/oom_score_adj"], cwd=self._tmp.name)
        self.assertEqual(result.stdout.strip(), "1000")


class LeftoversTest(unittest.TestCase):
    """A uid a grading claims starts with no process of an earlier one."""

    @unittest.skipUnless(os.geteuid() == 0, "needs root: the processes run as a sandbox uid")
    def test_a_leftover_of_the_uid_is_ended(self):
        uid = sandbox.SANDBOX_UIDS[-1]

        def become():
            os.setgid(65534)
            os.setuid(uid)
        import subprocess
        leftover = subprocess.Popen(["/bin/sleep", "60"], preexec_fn=become)
        self.addCleanup(leftover.wait)
        self.assertIn(leftover.pid, sandbox._processes_of(uid))
        start = time.monotonic()
        sandbox._end_processes_of(uid)
        self.assertEqual(leftover.wait(timeout=5), -9)
        self.assertLess(time.monotonic() - start, 5)
        self.assertNotIn(leftover.pid, sandbox._processes_of(uid))

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare") and shutil.which("setpriv"),
                         "needs root, unshare and setpriv")
    def test_a_process_of_another_pid_namespace_is_left_alone(self):
        # A grading in another container on this machine (a PID namespace
        # of its own, lock files this grader does not see) that holds the
        # uid: the uid is passed over, its process never killed.
        uid = sandbox.SANDBOX_UIDS[-2]
        import subprocess
        holder = subprocess.Popen(["unshare", "--pid", "--fork", "setpriv", f"--reuid={uid}", "--regid=65534",
                                   "--clear-groups", "/bin/sleep", "60"])
        self.addCleanup(holder.wait)
        deadline = time.monotonic() + 5
        while not sandbox._processes_of(uid) and time.monotonic() < deadline:
            time.sleep(0.05)
        held = sandbox._processes_of(uid)
        self.addCleanup(lambda: [os.kill(pid, 9) for pid in sandbox._processes_of(uid)])
        self.assertTrue(held)
        self.assertFalse(sandbox._end_processes_of(uid))
        self.assertEqual(sandbox._processes_of(uid), held)


if __name__ == "__main__":
    unittest.main()


class StopTest(unittest.TestCase):
    """A grading told to stop (SIGTERM, SIGINT) ends its runs, also those a
    phase started beside the main thread, and starts no more."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.addCleanup(sandbox._stopped.clear)
        self.mode = sandbox.Mode(bwrap=False, user=None)

    def test_a_run_beside_the_main_thread_is_ended_and_none_starts_after(self):
        import threading
        results = []
        beside = threading.Thread(target=lambda: results.append(sandbox.run(
            self.mode, ["/bin/sleep", "30"], cwd=self._tmp.name, limits=sandbox.Limits(wall_seconds=30))))
        beside.start()
        deadline = time.monotonic() + 10
        while not sandbox._live_runs and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertTrue(sandbox._live_runs, "the run never started")
        start = time.monotonic()
        sandbox.stop_runs()
        beside.join(10)
        self.assertFalse(beside.is_alive())
        self.assertLess(time.monotonic() - start, 5)
        self.assertFalse(results[0].ok)
        marker = os.path.join(self._tmp.name, "ran")
        later = sandbox.run(self.mode, ["/bin/touch", marker], cwd=self._tmp.name)
        self.assertIn("the grading was stopped", later.describe())
        self.assertFalse(os.path.exists(marker))

    def test_sigterm_ends_the_grader_without_waiting_for_a_phase_beside(self):
        import signal
        import subprocess
        # As grade_submission's phases: one in an executor, the main thread
        # waiting for its result.
        program = (
            "import concurrent.futures, sys\n"
            f"sys.path.insert(0, {os.path.join(os.path.dirname(sandbox.__file__), '..')!r})\n"
            "from gradelib import sandbox, scratch\n"
            "space = scratch.Scratch(lambda line: None)\n"
            "mode = sandbox.Mode(bwrap=False, user=None)\n"
            "try:\n"
            "    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as beside:\n"
            "        done = beside.submit(sandbox.run, mode, ['/bin/sleep', '60'], cwd=space.path,"
            " limits=sandbox.Limits(wall_seconds=60))\n"
            "        print('started', flush=True)\n"
            "        done.result()\n"
            "finally:\n"
            "    space.close()\n")
        child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: child.poll() is None and child.kill())
        self.assertEqual(child.stdout.readline().strip(), "started")
        time.sleep(0.5)
        start = time.monotonic()
        child.send_signal(signal.SIGTERM)
        code = child.wait(20)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(code, 128 + signal.SIGTERM)
