"""The coverage build is the graded build, instrumented (coverage.py):
the same flags plus --coverage, so the same preprocessed text (every
macro, __OPTIMIZE__, __DATE__ and __TIME__ too); and its object gets the
graded object's checks, less exactly gcov's additions
(objcheck.gcov_additions). Compiles with the system's gcc and reads with
its binutils, no sandbox (the phase's budget: test_budget.py)."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import build, config, objcheck  # noqa: E402

# Every macro a submission could test to tell the builds apart, and the
# ones whose value changes from one compile to the next.
MACROS = """
#ifdef __OPTIMIZE__
optimized
#endif
#ifdef __NO_INLINE__
no_inline
#endif
#ifdef __SANITIZE_ADDRESS__
asan
#endif
const char *when = __DATE__ " " __TIME__;
"""


def local_tool(argv):
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


class CoverageBuild(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        os.makedirs(os.path.join(self.dir, "src"))
        shutil.copytree(os.path.join(REPO, "student"), os.path.join(self.dir, "include"),
                        ignore=shutil.ignore_patterns("*.c", "Makefile"))

    def source(self, name, text):
        with open(os.path.join(self.dir, "src", name), "w", encoding="utf-8") as handle:
            handle.write(text)

    def compile(self, cflags, name, output, *extra):
        argv = build.compile_argv(cflags, name, output, *extra)
        done = subprocess.run(argv, cwd=self.dir, capture_output=True, text=True, check=False,
                              env={**os.environ, **build.COMPILE_ENV})
        self.assertEqual(done.returncode, 0, done.stderr)
        return os.path.join(self.dir, output)

    def test_the_flags_are_the_graded_ones_and_coverage(self):
        self.assertEqual(config.COVERAGE_CFLAGS, config.CFLAGS + ["--coverage"])
        self.assertIn("-O2", config.COVERAGE_CFLAGS)

    def test_both_builds_preprocess_to_the_same_text(self):
        self.source("macros.c", MACROS)
        graded = self.compile(config.CFLAGS, "macros.c", "graded.i", "-E", "-P")
        time.sleep(1.1)   # __TIME__ would change in between
        coverage = self.compile(config.COVERAGE_CFLAGS, "macros.c", "coverage.i", "-E", "-P")
        with open(graded, encoding="utf-8") as a, open(coverage, encoding="utf-8") as b:
            graded_text, coverage_text = a.read(), b.read()
        self.assertEqual(graded_text, coverage_text)
        self.assertIn("optimized", graded_text)

    def test_the_models_coverage_object_passes_the_checks(self):
        shutil.copy(os.path.join(REPO, "reference", config.SOLVER), os.path.join(self.dir, "src"))
        obj = self.compile(config.COVERAGE_CFLAGS, config.SOLVER, "solver.o")
        problems, _ = objcheck.check(obj, config.SOLVER, local_tool, instrumented=True)
        self.assertEqual(problems, [])
        # gcov's additions are there, and only the instrumented check allows them
        plain, _ = objcheck.check(obj, config.SOLVER, local_tool)
        self.assertEqual({name for name, _ in plain}, {"constructor", *objcheck.GCOV_RUNTIME})

    def test_anything_beyond_gcovs_additions_is_rejected(self):
        # (an empty constructor is optimized away: each one writes)
        cases = {
            "plain constructor": "__attribute__((constructor)) static void early(void) { touched = 1; }\n",
            "constructor beside gcov's":
                "__attribute__((constructor(100))) static void early(void) { touched = 1; }\n",
            "destructor": "__attribute__((destructor(100))) static void late(void) { touched = 2; }\n",
            "gcov's runtime named": "void __gcov_dump(void) __attribute__((weak));\n"
                                    "int dumps(void) { return __gcov_dump != 0; }\n",
        }
        for case, text in cases.items():
            with self.subTest(case):
                self.source("extra.c", "volatile int touched;\nint answer(void) { return 42; }\n" + text)
                obj = self.compile(config.COVERAGE_CFLAGS, "extra.c", "extra.o")
                problems, _ = objcheck.check(obj, "extra.c", local_tool, instrumented=True)
                self.assertNotEqual(problems, [])
                graded = self.compile(config.CFLAGS, "extra.c", "extra_graded.o")
                self.assertNotEqual(objcheck.check(graded, "extra.c", local_tool)[0], [])


if __name__ == "__main__":
    unittest.main()
