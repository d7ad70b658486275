"""The points table (grader/gradelib/pointstable.py, printed by grader/rubric
--table): from the definition and the rubric, its cells points summed per
kind of test and scaled to the task's points as the grader scales them."""

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
        # public, hidden, timing, memory, memo, other, total, optional: the task's
        # lines (7, 3, 2) scaled to its points; a build line keeps its own
        points = self.lab.task(0).points
        want = [f"{share * points / 12:.4g}" for share in (7, 3)] + ["", f"{2 * points / 12:.4g}", "", "1"]
        self.assertEqual(rows[self.lab.task(0).heading][:6], want)

    def test_changing_a_tasks_points_in_the_definition_alone_changes_its_row(self):
        text = open(labdef.DEFAULT_PATH, encoding="utf-8").read()
        moved = self.write("lab.ini", "[lab]\nextends = " + labdef.DEFAULT_PATH + "\n\n[task1]\npoints = 30\n")
        try:
            lab = labdef.load(moved)
        except labdef.LabDefinitionError:
            self.skipTest("a variant cannot set a task's points")
        self.assertIn("points", text)
        row = rows_of(pointstable.render(lab))[lab.task(1).heading]
        self.assertEqual(row[-2], "30")
        self.assertAlmostEqual(sum(float(c) for c in row[:-2] if c), 30)

    def test_a_bad_rubric_is_a_rubric_error(self):
        bad = self.write("rubric.txt", "seven task0::*\n")
        with self.assertRaises(rubric.RubricError):
            pointstable.render(self.lab, bad)


if __name__ == "__main__":
    unittest.main()
