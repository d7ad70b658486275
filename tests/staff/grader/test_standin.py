"""Unit tests of grader/gradelib/standin.py: a grundy_position.c copied
from the public stand-in map is flagged, however renamed; the model map
and the stub, written apart from it, are not (issue 26)."""

import os
import re
import sys
import tempfile
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import standin  # noqa: E402


def read(*parts):
    with open(os.path.join(REPO, *parts), encoding="utf-8") as handle:
        return handle.read()


class StandinCopy(unittest.TestCase):
    def test_the_stand_in_itself_is_all_shared(self):
        self.assertEqual(standin.share(read("tests", "public", "standin", "grundy_position.c")), 1.0)

    def test_a_renamed_reformatted_copy_is_flagged(self):
        text = read("tests", "public", "standin", "grundy_position.c")
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        text = re.sub(r"\bstandin_slot\b", "where", re.sub(r"\btwin\b", "c2", text)).replace("    ", "\t")
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as handle:
            handle.write(text)
        try:
            flagged, share = standin.check(handle.name)
        finally:
            os.remove(handle.name)
        self.assertTrue(flagged, share)

    def test_the_fixture_standin_copy_is_flagged(self):
        self.assertTrue(standin.check(os.path.join(REPO, "tests", "staff", "fixtures", "standin_copy",
                                                   "grundy_position.c"))[0])

    def test_the_model_map_and_the_stub_are_not(self):
        for path in (("reference", "grundy_position.c"), ("student", "grundy_position.c")):
            share = standin.share(read(*path))
            self.assertLess(share, standin.THRESHOLD, path)

    def test_a_missing_file_is_not_flagged(self):
        self.assertEqual(standin.check(os.path.join(REPO, "no-such-file.c")), (False, 0.0))


if __name__ == "__main__":
    unittest.main()
