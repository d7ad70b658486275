"""Unit tests of the similarity report's two decisions (issue 20): which lines are
common to many programs (gradelib.simcompare.common_lines) and which pairs are
flagged (gradelib.simflags). Expected numbers are worked out by hand in each test."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "grader"))

from gradelib import simcompare, simflags  # noqa: E402


class FakePair:
    def __init__(self, score, same_program=False):
        self.score, self.same_program = score, same_program


class FakeStudent:
    def __init__(self, name):
        self.name = name


class TestFence(unittest.TestCase):
    # sorted: 0 0 0 0 0 10 10 30 100; "inclusive" quartiles at positions 8/4 = 2 and
    # 3 * 8/4 = 6 (0-based): Q1 = 0, Q3 = 10, fence = 10 + 1.5 * 10 = 25.
    SCORES = [0, 0, 0, 0, 0, 10, 10, 30, 100]

    def test_fence_from_the_quartiles(self):
        rule = simflags.Rule(self.SCORES, floor=35)
        self.assertEqual((rule.q1, rule.q3, rule.fence), (0, 10, 25))

    def test_flag_needs_the_fence_and_the_floor(self):
        rule = simflags.Rule(self.SCORES, floor=35)
        self.assertTrue(rule.flagged(100))
        self.assertFalse(rule.flagged(30))     # above the fence, under the floor
        self.assertFalse(rule.flagged(25))     # on the fence is not above it
        self.assertIn("fence 25%", rule.why(30))
        self.assertIn("< floor 35%", rule.why(30))

    def test_fixed_threshold(self):
        rule = simflags.Rule(self.SCORES, threshold=30)
        self.assertTrue(rule.flagged(30))
        self.assertFalse(rule.flagged(29.9))
        self.assertIn("fixed threshold 30%", rule.why(30))
        self.assertIn("at least 30%", rule.text())

    def test_near_copies_left_out_of_the_quartiles(self):
        # ten near-copy pairs at 100 would push Q3 to 100 and the fence above every score
        pairs = [FakePair(s) for s in self.SCORES] + [FakePair(100, same_program=True)] * 10
        rule = simflags.decide(pairs, floor=35)
        self.assertEqual(rule.fence, 25)
        self.assertEqual(rule.left_out, 10)
        self.assertTrue(rule.flagged(100))
        everything = simflags.Rule([p.score for p in pairs], floor=35)
        self.assertFalse(everything.flagged(100))

    def test_one_pair_falls_back_to_the_floor(self):
        rule = simflags.Rule([80], floor=35)
        self.assertEqual(rule.fence, 35)
        self.assertTrue(rule.flagged(80))


class TestCommonLines(unittest.TestCase):
    def setUp(self):
        self.owner = {f"f{i}": FakeStudent(f"s{i}") for i in range(5)}
        self.tokens = {name: 100 for name in self.owner}
        # f0's lines 1-3 are also in f1 and f2; its line 10 only in f1
        self.found = [("f0", 1, 3, "f1", 5, 7, 30), ("f0", 1, 3, "f2", 1, 3, 30),
                      ("f0", 10, 10, "f1", 20, 20, 25)]

    def test_held_by_more_than_the_share(self):
        # 5 programs, share 0.3: more than max(1.5, COMMON_MIN_PROGRAMS - 1 = 2) programs
        program = {f"s{i}": i for i in range(5)}
        common = simcompare.common_lines(self.owner, self.found, self.tokens, program, 0.3)
        self.assertEqual(set(common["f0"]), {1, 2, 3})
        self.assertEqual(common["f0"][2], {"s1", "s2"})

    def test_near_copies_count_once(self):
        # s1 and s2 one program: lines 1-3 are held by 2 programs, not common
        program = {"s0": 0, "s1": 1, "s2": 1, "s3": 2, "s4": 3}
        common = simcompare.common_lines(self.owner, self.found, self.tokens, program, 0.3)
        self.assertEqual(set(common["f0"]), set())

    def test_share_one_needs_every_program(self):
        program = {f"s{i}": i for i in range(5)}
        common = simcompare.common_lines(self.owner, self.found, self.tokens, program, 1.0)
        self.assertEqual(set(common["f0"]), set())


if __name__ == "__main__":
    unittest.main()
