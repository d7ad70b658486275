"""Unit tests of the memo check's words after a leak of the search
(grader/gradelib/growth.py, memo_growth_after_leak): a memo check failed
by growth across refills is told under a leak valgrind found in an
earlier task's tests, never under one of the memo's own task, and its
verdict never changes."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import growth  # noqa: E402
from gradelib.results import TestResult  # noqa: E402

GREW = f"clearing and refilling the memo 12 times kept growing your program's memory: {growth.MEMO_CLEAR_CAUSE}"
LEAK = {"kind": "Leak_DefinitelyLost", "what": "memory definitely lost", "file": "grundy_position.c",
        "line": 162, "function": "grundy_get_moves", "stack": []}
READ = dict(LEAK, kind="InvalidRead", what="invalid read")


def memo(message=GREW, flags=("leak",), status="failed"):
    return TestResult("memo::task2", 2, status, message, kind="memory", flags=list(flags))


class MemoAfterLeak(unittest.TestCase):
    def test_a_leak_of_task_1_comes_first_and_the_verdict_stays(self):
        test = memo()
        growth.memo_growth_after_leak([test], [{"task": 1, "findings": [READ, LEAK]}])
        self.assertEqual(test.status, "failed")
        self.assertIn("but valgrind found a leak in your program (grundy_position.c:162 in grundy_get_moves: "
                      "memory definitely lost)", test.message)
        self.assertTrue(test.message.endswith("if the growth stays, " + growth.MEMO_CLEAR_CAUSE))

    def test_nothing_else_is_reworded(self):
        cases = [
            (memo(), [{"task": 2, "findings": [LEAK]}]),           # the memo's own task: maybe the clear's leak
            (memo(), [{"task": 1, "findings": [READ]}]),           # no leak found
            (memo(flags=()), [{"task": 1, "findings": [LEAK]}]),   # failed for another reason
            (memo(status="passed"), [{"task": 1, "findings": [LEAK]}]),
            (memo("is every position it answers stored in the memo?"), [{"task": 1, "findings": [LEAK]}]),
        ]
        for test, memory in cases:
            before = test.message
            growth.memo_growth_after_leak([test], memory)
            self.assertEqual(test.message, before)


if __name__ == "__main__":
    unittest.main()
