"""tests/staff/ops/steps.py - the named steps of the course-tool checks (check-batch, check-browser).

Each step is a function returning its problems (a list of strings, empty
when it passed). It gets a log file of its own, in which it writes with
say(); its problems, and the traceback of an exception it raised, go there
too. One line per step, like tests/staff/check's: "ok    NAME  Ns", or "FAIL ..."
with the log's path and the first problems; summary() prints the last
line, "PROG: N passed, M failed".
"""

import os
import re
import time
import traceback

PROBLEMS_SHOWN = 12


class Steps:
    def __init__(self, log_dir, root):
        self.log_dir = log_dir
        self.root = root       # log paths are printed relative to it
        self.passed = 0
        self.failed = []
        self._log = None

    def say(self, text):
        """A line in the running step's log."""
        self._log.write(text + "\n")
        self._log.flush()

    def step(self, name, function, *args):
        """Runs function(*args) as the step `name`; returns whether it passed."""
        path = os.path.join(self.log_dir, re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80] + ".log")
        start = time.monotonic()
        with open(path, "w", encoding="utf-8") as self._log:
            try:
                problems = function(*args) or []
            except Exception as error:   # a bug of the check or a missing file: a failure, with why
                problems = [f"{type(error).__name__}: {error}"]
                self.say(traceback.format_exc())
            for problem in problems:
                self.say("PROBLEM: " + problem)
        self._log = None
        seconds = time.monotonic() - start
        if problems:
            self.failed.append(name)
            print(f"FAIL  {name:<66} {seconds:4.0f}s  (log: {os.path.relpath(path, self.root)})", flush=True)
            for problem in problems[:PROBLEMS_SHOWN]:
                print(f"      | {problem}", flush=True)
        else:
            self.passed += 1
            print(f"ok    {name:<66} {seconds:4.0f}s", flush=True)
        return not problems

    def summary(self, prog):
        """The last lines; returns the exit status (0 only when nothing failed)."""
        if self.failed:
            print("failed: " + "; ".join(self.failed))
        print(f"{prog}: {self.passed} passed, {len(self.failed)} failed")
        return 1 if self.failed else 0
