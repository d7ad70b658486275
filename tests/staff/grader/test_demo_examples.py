"""make demo's list (tests/staff/fixtures/demo-examples): every example is
a fixture that make check grades (its verdicts in expected-verdicts, its
grade in expected-grades), listed once, so the demo never shows a
submission whose feedback nothing checks."""

import os
import unittest

FIXTURES = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "fixtures")


def names(path):
    with open(os.path.join(FIXTURES, path), encoding="utf-8") as handle:
        return [line.split()[0] for line in handle if line.split() and not line.startswith("#")]


def unchecked(examples):
    """The examples make check does not grade or whose directory is missing."""
    verdicts, grades = set(names("expected-verdicts")), set(names("expected-grades"))
    return [n for n in examples
            if n not in verdicts or n not in grades or not os.path.isdir(os.path.join(FIXTURES, n))]


class DemoExamplesTest(unittest.TestCase):
    def test_each_example_is_a_checked_fixture_listed_once(self):
        examples = names("demo-examples")
        self.assertGreater(len(examples), 5)
        self.assertEqual(len(examples), len(set(examples)))
        self.assertEqual(unchecked(examples), [])

    def test_control_a_name_nothing_checks_is_noticed(self):
        self.assertEqual(unchecked(names("demo-examples") + ["no_such_fixture"]), ["no_such_fixture"])


if __name__ == "__main__":
    unittest.main()
