"""Grades one submission end to end: the phases, task isolation and scoring.

Phases (each timed, the times logged and reported): build, suites, timing,
memory, coverage, reports. Task isolation: Task 0 is graded with the
submission's grundy_position.c and, when its grundy_solver.c is broken, the
reference's solver (Task 0 never calls it); Tasks 1-2 are graded with the
submission's solver and, unless its grundy_position.c passes every Task 0
test, the reference's grundy_position.c. The feedback says when that
happened, so one bug never zeroes every task.
"""

import concurrent.futures
import datetime
import os
import random
import shutil
import tempfile
import time

from . import build, config, coverage, memcheck, reports, rubric, sandbox, suites, timing


class Grading:
    def __init__(self, submission, out_dir, seed, hidden_visibility, keep_scratch, log):
        self.submission = os.path.realpath(submission)
        self.out = os.path.realpath(out_dir)
        self.seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31)
        self.hidden_visibility = hidden_visibility
        self.keep_scratch = keep_scratch
        self.log = log
        self.phases = {}
        self.notes = []
        self.records = {}          # test id -> (status, message, time)
        self.extra_tests = []      # build, memory and timing tests, as result entries

    def phase(self, name, function, *args):
        start = time.monotonic()
        self.log(f"== phase {name}")
        try:
            return function(*args)
        finally:
            self.phases[name] = round(time.monotonic() - start, 2)
            self.log(f"== phase {name}: {self.phases[name]:.2f} s")

    # ---- phases --------------------------------------------------------------

    def do_build(self):
        self.builds = build.copy_sources(self.source_dir, self.scratch)
        build.copy_harness(self.scratch)
        for b in self.builds.values():
            build.compile_file(self.mode, self.scratch, b, config.CFLAGS,
                               os.path.join(self.scratch, "obj"), self.log, check=self.object_checks)

    def object_for(self, file, use_student):
        b = self.builds[file]
        return b.object if (use_student and b.accepted) else build.reference_object(self.scratch, file)

    def link_runner(self, task, position_from_student):
        """The runner of one task, or None (with the linker's words) when it cannot link."""
        objects = [self.object_for(config.POSITION, position_from_student),
                   self.object_for(config.SOLVER, True)]   # the reference's when the student's is broken
        runner = os.path.join(self.scratch, "bin", f"runner_task{task}")
        os.makedirs(os.path.dirname(runner), exist_ok=True)
        ok, messages = build.link(self.mode, self.scratch, runner,
                                  objects + build.harness_objects(
                                      self.scratch, with_suites=build.suites_of_task(self.scratch, task)),
                                  self.log, extra=config.RUNNER_LIBS)
        return (runner if ok else None), messages

    def run_task(self, task, position_from_student):
        own = self.builds[config.FILE_OF_TASK[task]]
        if not own.accepted:
            self.fail_task(task, f"not run: {own.file} did not build or was rejected (see the build test)")
            return None
        runner, messages = self.link_runner(task, position_from_student)
        if runner is None:
            self.fail_task(task, "not run: the test program did not link:\n" + messages)
            return None
        result, records, error = suites.run_runner(self.mode, self.scratch, runner, f"task{task}", self.seed)
        self.log(f"task{task} runner: {result.describe()}, {len(records)} results")
        for test_id in self.tests_of_task(task):
            status, message = suites.outcome(records.get(test_id), error)
            self.records[test_id] = (status, message, (records.get(test_id) or {}).get("time"))
        return runner

    def do_suites(self):
        self.runners = {}
        self.runners[0] = self.run_task(0, True)
        task0_clean = all(self.records.get(t, ("",))[0] == "passed" for t in self.tests_of_task(0))
        self.position_from_student = self.builds[config.POSITION].accepted and task0_clean
        if not self.position_from_student and self.builds[config.SOLVER].accepted:
            self.notes.append("Tasks 1 and 2 were graded with the reference grundy_position.c, "
                              "because yours does not pass every Task 0 test: fix Task 0 first, "
                              "then your own grundy_position.c is used for every task.")
        for task in (1, 2):
            self.runners[task] = self.run_task(task, self.position_from_student)
        if not self.builds[config.SOLVER].accepted and self.builds[config.POSITION].accepted:
            self.notes.append("Task 0 was graded with the reference grundy_solver.c, because "
                              "yours did not build; Task 0 never calls the solver.")

    def do_timing(self):
        def probe(name, objects):
            path = os.path.join(self.scratch, "bin", name)
            # bin/ is made by link_runner, which never runs when no file of
            # the submission built (an empty submission).
            os.makedirs(os.path.dirname(path), exist_ok=True)
            ok, messages = build.link(self.mode, self.scratch, path,
                                      objects + build.probe_objects(self.scratch), self.log,
                                      wraps=config.PROBE_WRAPS)
            if not ok:
                self.log(messages)
            return path if ok else None

        # Both probes are linked the same way, so the ratio compares solvers only.
        reference = probe("timing_probe_reference",
                          [build.reference_object(self.scratch, f) for f in config.SUBMISSION_FILES])
        if reference is None:
            raise RuntimeError("the reference timing probe did not link")
        student = None
        if self.builds[config.SOLVER].accepted:
            student = probe("timing_probe", [self.object_for(config.POSITION, self.position_from_student),
                                             self.object_for(config.SOLVER, True)])
        self.timing = timing.check(self.mode, self.scratch, reference, student, self.log)
        for entry in self.timing:
            message = ""
            if not entry["passed"]:
                budget = f"{entry['budget_ratio']} x the reference's {entry['reference_cpu']:.4f} s"
                if entry["outcome"] == "not run":
                    message = "not run: the solver did not build or link"
                elif entry["outcome"] == "wrong answer":
                    message = f"solving {entry['position']} gave the wrong answer"
                elif entry["outcome"] == "no search":
                    message = (f"solving {entry['position']} never called grundy_get_moves: the "
                               "solver must search the moves (is it still a stub?)")
                elif entry["student_cpu"] is None:
                    message = (f"solving {entry['position']} from an empty memo was stopped at its CPU "
                               f"budget ({budget}); is every answer memoized, by both "
                               "grundy_is_p_position and grundy_is_n_position? (handout: grundy-lab.html#task-2-timing)"
                               if entry["outcome"] == "over budget" else
                               f"solving {entry['position']} crashed")
                else:
                    message = (f"solving {entry['position']} took {entry['student_cpu']:.4f} s of CPU, "
                               f"{entry['ratio']} x the reference; the budget is {budget}")
            self.extra_tests.append(("timing::" + entry["position"], 2, "timing",
                                     "passed" if entry["passed"] else "failed", message))

    def do_memory(self):
        """All tasks at once: each valgrind run is one process at a time, and
        three of them keep two cores busier than two, whose last one runs alone."""
        def one(task):
            runner = self.runners.get(task)
            passed = [t for t in config.MEMCHECK_TESTS[task]
                      if self.records.get(t, ("",))[0] == "passed"]
            found = memcheck.run_task(self.mode, self.scratch, runner, task, passed, self.seed) if runner else None
            return task, found

        self.memory = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(config.TASKS)) as pool:
            results = list(pool.map(one, config.TASKS))
        for task, found in results:
            test_id = f"memory::task{task}"
            if found is None:
                self.extra_tests.append((test_id, task, "memory", "not_run",
                                         "not run: none of this task's tests checked under valgrind "
                                         "passed yet"))
                continue
            self.memory.append({"task": task, "findings": found["findings"]})
            xml_dir = os.path.join(self.scratch, "runs", f"memcheck-task{task}-xml")
            shutil.copytree(xml_dir, os.path.join(self.out, "logs", f"valgrind-task{task}"),
                            dirs_exist_ok=True)
            if found["findings"]:
                lines = [f"{f['file']}:{f['line']} in {f['function']}: {f['what']}"
                         for f in found["findings"][:8]]
                self.extra_tests.append((test_id, task, "memory", "failed",
                                         "valgrind found problems in your code:\n" + "\n".join(lines)
                                         + "\n(handout: grundy-lab.html#memcheck)"))
            else:
                self.extra_tests.append((test_id, task, "memory", "passed", ""))

    def do_coverage(self):
        self.coverage = coverage.measure(self.mode, self.scratch, self.builds, self.out,
                                         self.seed, self.log)

    def record_run(self, result, cwd):
        """Keeps every sandboxed run's raw output in OUT/logs (capped by the sandbox)."""
        self.run_count = getattr(self, "run_count", 0) + 1
        what = os.path.basename(cwd)
        if "-o" in result.argv[:-1]:   # a compiler or linker run: name it by what it makes
            made = os.path.basename(result.argv[result.argv.index("-o") + 1])
            what = ("compile-" if "-c" in result.argv else "link-") + made
        _save_log(self.out, f"{self.run_count:02d}-{what}.txt", result)

    # ---- results -------------------------------------------------------------

    def tests_of_task(self, task):
        return [t for t in self.all_tests if t.split("::")[0] in (f"task{task}", f"task{task}_hidden")]

    def fail_task(self, task, message):
        for test_id in self.tests_of_task(task):
            self.records[test_id] = ("not_run", message, None)

    def build_tests(self):
        for file, task in ((config.POSITION, 0), (config.SOLVER, 1)):
            b = self.builds[file]
            if b.accepted:
                entry = ("passed", "")
            else:
                why = "\n".join(b.rejections) or b.errors or "it did not compile"
                entry = ("failed", f"{file} was not accepted:\n{why}")
            self.extra_tests.append((f"build::{file}", task, "build", *entry))

    def assemble(self):
        extra = {t[0]: t for t in self.extra_tests}
        ids = list(self.all_tests) + [t[0] for t in self.extra_tests]
        points = rubric.assign(self.rubric_path, ids)
        tests = []
        for test_id in ids:
            if test_id not in points:
                continue
            if test_id in extra:
                _, task, kind, status, message = extra[test_id]
                elapsed = None
            else:
                task, kind = int(test_id[4]), None
                status, message, elapsed = self.records.get(test_id, ("missing", "no result", None))
            suite, name = test_id.split("::", 1)
            hidden = suite.endswith("_hidden")
            tests.append({"id": test_id, "name": f"Task {task} / {suite}::{name}" if hidden or kind
                          else f"Task {task} / {name}", "task": task, "kind": kind, "hidden": hidden,
                          "max_score": round(points[test_id], 4),
                          "score": round(points[test_id], 4) if status == "passed" else 0.0,
                          "status": status, "message": message, "time": elapsed})
        tests.sort(key=lambda t: (t["task"], t["kind"] is not None, t["hidden"]))
        return tests


def grade(submission, out_dir, seed=None, hidden_visibility="after_published",
          keep_scratch=False, rubric_path=config.RUBRIC, object_checks=True, log=print):
    """Grades one submission; returns the result dict (see reports.py)."""
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    wall = time.monotonic()
    g = Grading(submission, out_dir, seed, hidden_visibility, keep_scratch, log)
    g.rubric_path = rubric_path
    g.object_checks = object_checks
    if not object_checks:
        g.notes.append("The object checks were skipped (--skip-object-checks): this run tests "
                       "the grader, it is not a grade.")
    g.source_dir = build.locate(g.submission)
    os.makedirs(g.out, exist_ok=True)
    os.makedirs(os.path.join(g.out, "logs"), exist_ok=True)
    with open(os.path.join(config.HARNESS, "tests.txt"), encoding="utf-8") as handle:
        g.all_tests = [line.strip() for line in handle if line.strip()]
    # Refuse a bad rubric before any work: every test the run can produce.
    rubric.assign(rubric_path, g.all_tests + [f"build::{f}" for f in config.SUBMISSION_FILES]
                  + [f"memory::task{t}" for t in config.TASKS]
                  + ["timing::" + timing.position_text(h) for h in config.TIMED_POSITIONS])
    g.scratch = tempfile.mkdtemp(prefix="grundy-grade-")
    os.chmod(g.scratch, 0o755)
    try:
        hidden = [p for p in (config.REPO, g.out, g.submission, "/root", "/home")
                  if os.path.isdir(p) and not g.scratch.startswith(p + os.sep)]
        g.mode = sandbox.detect(hidden, g.scratch)
        g.mode.on_run = g.record_run
        log(f"sandbox: {g.mode.describe()}")
        log(f"seed: {g.seed}")
        g.phase("build", g.do_build)
        g.phase("suites", g.do_suites)
        g.phase("timing", g.do_timing)
        g.phase("memory", g.do_memory)
        g.phase("coverage", g.do_coverage)
        g.build_tests()
        tests = g.assemble()
        result = {"submission": g.submission, "started": started, "seed": g.seed,
                  "sandbox": g.mode.describe(), "hidden_visibility": hidden_visibility,
                  "phases": g.phases, "notes": g.notes,
                  "builds": [b.as_result() for b in g.builds.values()],
                  "tests": tests, "timing": g.timing, "memory": g.memory, "coverage": g.coverage,
                  "score": round(sum(t["score"] for t in tests), 2),
                  "max_score": round(sum(t["max_score"] for t in tests), 2)}
        start = time.monotonic()
        result["execution_time"] = round(time.monotonic() - wall, 2)
        reports.write_reports(result, g.out)
        g.phases["reports"] = round(time.monotonic() - start, 2)
        log(f"== phase reports: {g.phases['reports']:.2f} s")
        log("phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in g.phases.items())
            + f"; total {time.monotonic() - wall:.1f} s")
        return result
    finally:
        if keep_scratch:
            log(f"scratch kept: {g.scratch}")
        else:
            shutil.rmtree(g.scratch, ignore_errors=True)


def _save_log(out, name, result):
    path = os.path.join(out, "logs", name)
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(f"$ {' '.join(result.argv)}\n# {result.describe()}, "
                     f"{result.wall_seconds:.2f} s wall, {result.stdout_bytes} bytes stdout, "
                     f"{result.stderr_bytes} bytes stderr\n\n== stdout ==\n{result.stdout}\n"
                     f"== stderr ==\n{result.stderr}\n")
    os.replace(path + ".tmp", path)
