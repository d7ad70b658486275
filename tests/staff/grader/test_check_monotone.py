"""Unit tests of tests/staff/grader/check-monotone without grading: the
inequality and its tolerance, the pairs it picks (two functions, applied
together) and the mutants it adds to a fixture (never in what the fixture
changed)."""

import importlib.machinery
import importlib.util
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))


def load_check_monotone():
    loader = importlib.machinery.SourceFileLoader("check_monotone_for_tests", os.path.join(HERE, "check-monotone"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


cm = load_check_monotone()
M = cm.M


class Inequality(unittest.TestCase):
    def test_worse_at_most_every_better_within_the_tolerance(self):
        self.assertTrue(cm.Claim.holds([60.0, 60.0]))
        self.assertTrue(cm.Claim.holds([59.0, 60.0, 98.0]))
        self.assertTrue(cm.Claim.holds([60.0 + cm.TOLERANCE / 2, 60.0]))
        self.assertFalse(cm.Claim.holds([60.1, 60.0]))
        self.assertFalse(cm.Claim.holds([61.0, 98.0, 60.0]))

    def test_a_missing_score_never_holds(self):
        self.assertFalse(cm.Claim.holds(["the grader hung", 60.0]))
        self.assertFalse(cm.Claim.holds([0.0, "no score"]))


class Picking(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.judge = M.Judge()
        cls.work = tempfile.mkdtemp(prefix="test-check-monotone-")
        cls.model = M.model_sources()

    @classmethod
    def tearDownClass(cls):
        cls.judge.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_a_pair_is_two_functions_that_apply_and_compile_together(self):
        for seed in (1, 2):
            m1, m2 = cm.pick_pair(seed, self.model, self.judge)
            self.assertNotEqual((m1.file, m1.function), (m2.file, m2.function))
            both = M.apply(self.model, [m1, m2])
            self.assertEqual(self.judge.verdict(self.model, both, True), "ok")
            self.assertEqual((m1, m2), cm.pick_pair(seed, self.model, self.judge))

    def test_a_fixture_mutant_leaves_the_fixture_bug_alone(self):
        _, sources = cm.materialize("slow_map", self.work)
        for seed in range(4):
            m = cm.pick_for_fixture(seed, self.model, sources, self.judge)
            self.assertNotEqual(m.function, "grundy_hash")
            mutated = M.apply(sources, [m])
            self.assertIn("SLOW_HASH_ROUNDS", mutated["grundy_position.c"])
            self.assertNotEqual(mutated, sources)


if __name__ == "__main__":
    unittest.main()
