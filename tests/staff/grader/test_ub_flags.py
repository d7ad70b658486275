"""The grader builds submissions with make test's cheap undefined-behaviour
checks (config.UB_CFLAGS, read from tests/public/sanitizers.mk), trapping,
so that a mistake make test stops at does not earn full marks from it."""

import os
import re
import sys
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import config  # noqa: E402


class UndefinedBehaviourFlags(unittest.TestCase):
    def test_the_grader_has_make_tests_checks_and_traps(self):
        with open(os.path.join(REPO, "tests", "public", "sanitizers.mk"), encoding="utf-8") as handle:
            line = next(l for l in handle if l.startswith("UBSAN_CHEAP :="))
        wanted = set(re.search(r"-fsanitize=(\S+)", line).group(1).replace("$(,)", ",").split(","))
        self.assertIn("signed-integer-overflow", wanted)
        flag = next(f for f in config.CFLAGS if f.startswith("-fsanitize="))
        self.assertEqual(set(flag[len("-fsanitize="):].split(",")), wanted)
        # no runtime library in the sandbox: the checks must trap
        self.assertIn("-fsanitize-undefined-trap-on-error", config.CFLAGS)
        self.assertNotIn("-fsanitize=address", config.CFLAGS)

    def test_the_coverage_build_has_the_same_checks(self):
        # one build of the source, instrumented: the checks trap there too
        # (test_coverage_build.py checks the whole set of flags)
        for flag in config.UB_CFLAGS:
            self.assertIn(flag, config.COVERAGE_CFLAGS)


if __name__ == "__main__":
    unittest.main()
