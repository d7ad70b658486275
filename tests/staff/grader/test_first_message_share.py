"""Unit tests of tests/staff/selftest/first-message-share: which first
messages count as a bare answer or signal, and how the first one is read."""

import importlib.machinery
import importlib.util
import os
import unittest

_PATH = os.path.join(os.path.dirname(__file__), "..", "selftest", "first-message-share")
_LOADER = importlib.machinery.SourceFileLoader("first_message_share", _PATH)
_SPEC = importlib.util.spec_from_loader("first_message_share", _LOADER)
share = importlib.util.module_from_spec(_SPEC)
_LOADER.exec_module(share)


class KindOf(unittest.TestCase):
    def test_bare_answers(self):
        for text in ["grundy_is_p_position({13=1}) returned true; the position is an N-position",
                     "grundy_copy({4=1, 7=2}) is NULL; expected a position",
                     "grundy_get_moves({7=1}) returned NULL",
                     "grundy_equals({3=2} built as 3,3; the same built as 3,3) returned false, expected true"]:
            self.assertEqual(share.kind_of(text), "answer", text)

    def test_a_reason_is_named(self):
        self.assertEqual(share.kind_of("grundy_get_moves({7=1}) returned {4=1}, which is not one move away"),
                         "named")
        self.assertEqual(share.kind_of("Your recursion makes a wrong step of its own: at {6=1} ..."), "step")
        self.assertEqual(share.kind_of("invalid read at grundy_position.c:41 in grundy_count"), "line")
        self.assertEqual(share.kind_of("grundy_memo_size() is 1 right after grundy_memo_clear(); expected 0. "
                                       "A second grundy_memo_clear() freed no block either"), "named")

    def test_bare_signal(self):
        self.assertEqual(share.kind_of("the test crashed with SIGSEGV during its last step, grundy_new(3). "
                                       "Run `make memcheck`"), "signal")

    def test_first_failure_reads_the_first_block(self):
        output = ("Task 0: x: 2 of 3 tests fail\n\n  FAIL task0::a\n    first line\n    second line\n"
                  "    (handout: h#x)\n  FAIL task0::b: other\n")
        self.assertEqual(share.first_failure(output), "first line second line")
        self.assertEqual(share.first_failure("  FAIL task1::c: one line\n"), "one line")
        self.assertIsNone(share.first_failure("Task 0: all 3 tests pass\n"))


if __name__ == "__main__":
    unittest.main()
