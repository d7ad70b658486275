"""The slow tier's draw (tests/staff/grader/check-honest-seeds): its seeds
follow from the printed master seed alone, and every fixture it grades is
one that expected-grades says earns full marks."""

import importlib.machinery
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
SCRIPT = os.path.join(HERE, "check-honest-seeds")
EXPECTED = os.path.join(HERE, "..", "fixtures", "expected-grades")


def load_script():
    loader = importlib.machinery.SourceFileLoader("check_honest_seeds", SCRIPT)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class HonestSeeds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.script = load_script()

    def test_the_seeds_follow_from_the_master_seed(self):
        seeds = self.script.draw_seeds(35, 20)
        self.assertEqual(len(set(seeds)), 20)
        self.assertEqual(seeds, self.script.draw_seeds(35, 20))
        self.assertEqual(seeds[:8], self.script.draw_seeds(35, 8))
        self.assertNotEqual(seeds, self.script.draw_seeds(36, 20))
        self.assertTrue(all(0 < s < 2**31 for s in seeds))

    def test_every_honest_fixture_is_expected_to_earn_full_marks(self):
        fixtures = self.script.honest_fixtures()
        self.assertGreaterEqual(len(fixtures), 5)
        lines = {}
        with open(EXPECTED, encoding="utf-8") as handle:
            for line in handle:
                words = line.split()
                if words and not words[0].startswith("#"):
                    lines.setdefault(words[0], []).append(words[1:])
        for fixture in fixtures:
            self.assertIn(fixture, lines, f"{fixture} has no expected-grades line")
            for words in lines[fixture]:
                self.assertEqual(words[1:4], ["full"] * 3, fixture)
                self.assertIn("total=full", words, fixture)

    def test_the_replayed_seeds_belong_to_honest_fixtures(self):
        fixtures = self.script.honest_fixtures()
        self.assertIn(1708996725, self.script.REPLAY["honest_chained_memo"])
        for fixture in self.script.REPLAY:
            self.assertIn(fixture, fixtures)


if __name__ == "__main__":
    unittest.main()
