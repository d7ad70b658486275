"""The TA guide's points table (grader/gradelib/pointstable.py): generated
from the definition and the rubric, its cells points summed per kind of
test, and noticed when edited by hand or left behind by a rubric change."""

import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import labdef, pointstable, rubric  # noqa: E402


def rows_of(table):
    """{task heading: [cells]} of a rendered table."""
    rows = {}
    for line in table.splitlines():
        if line.startswith("| Task "):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0]] = cells[1:]
    return rows


class PointsTable(unittest.TestCase):
    def setUp(self):
        self.lab = labdef.load(labdef.DEFAULT_PATH)
        self.scratch = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.scratch)

    def write(self, name, text):
        path = os.path.join(self.scratch, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def test_each_row_adds_up_to_the_tasks_points(self):
        table = pointstable.render(self.lab)
        rows = rows_of(table)
        self.assertEqual(set(rows), {t.heading for t in self.lab.all_tasks})
        for t in self.lab.all_tasks:
            cells = rows[t.heading]
            # the last two cells are the total and the optional mark
            self.assertEqual(cells[-2], f"{t.points:g}")
            self.assertAlmostEqual(sum(float(c) for c in cells[:-2] if c), t.points)
        self.assertIn("public tests (points)", table)
        self.assertNotIn("other (points)", table)   # the rubric has no such points now

    def test_columns_come_from_the_rubric_lines(self):
        rubric_path = self.write("rubric.txt", "7 task0::*\n3 task0_hidden::*\n2 memory::task0\n"
                                 "1 build::grundy_position.c\n")
        rows = rows_of(pointstable.render(self.lab, rubric_path))
        # public, hidden, timing, memory, other, total, optional
        self.assertEqual(rows[self.lab.task(0).heading][:5], ["7", "3", "", "2", "1"])

    def test_a_table_edited_by_hand_or_stale_is_noticed_and_rewritten(self):
        guide = self.write("guide.md", "# Guide\n\n" + pointstable.BEGIN + "\n" + pointstable.END + "\nafter\n")
        self.assertIsNotNone(pointstable.up_to_date(self.lab, guide))
        self.assertTrue(pointstable.write(self.lab, guide))
        self.assertIsNone(pointstable.up_to_date(self.lab, guide))
        self.assertFalse(pointstable.write(self.lab, guide))
        with open(guide, encoding="utf-8") as handle:
            text = handle.read()
        self.assertTrue(text.endswith("\nafter\n"))
        first = self.lab.task(0)
        with open(guide, "w", encoding="utf-8") as handle:
            handle.write(text.replace(f"| {first.heading} | ", f"| {first.heading} | 1", 1))
        self.assertIn("labdef-gen docs", pointstable.up_to_date(self.lab, guide))
        other = self.write("rubric.txt", "1 task0::*\n")
        self.assertIsNotNone(pointstable.up_to_date(self.lab, guide, other))

    def test_no_markers_is_an_error_not_a_crash(self):
        guide = self.write("guide.md", "# Guide without a table\n")
        self.assertIn("no generated points table", pointstable.up_to_date(self.lab, guide))
        with self.assertRaises(pointstable.PointsTableError):
            pointstable.write(self.lab, guide)

    def test_a_bad_rubric_is_a_rubric_error(self):
        bad = self.write("rubric.txt", "seven task0::*\n")
        with self.assertRaises(rubric.RubricError):
            pointstable.render(self.lab, bad)


if __name__ == "__main__":
    unittest.main()
