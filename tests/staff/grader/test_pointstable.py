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
            # exactly, as shown (in hundredths): a row reads as its task's points
            self.assertEqual(sum(round(float(c) * 100) for c in cells[:-2] if c), round(t.points * 100))
        self.assertIn("public tests (points)", table)
        self.assertNotIn("other (points)", table)   # the rubric has no such points now

    def test_columns_come_from_the_rubric_lines(self):
        rubric_path = self.write("rubric.txt", "7 task0::*\n3 task0_hidden::*\n2 memory::task0\n"
                                 "1 build::grundy_position.c\n")
        rows = rows_of(pointstable.render(self.lab, rubric_path))
        # public, hidden, timing, memory, memo, other, total, optional: the task's
        # lines (7, 3, 2) scaled to its points; a build line keeps its own
        points = self.lab.task(0).points
        exact = [7 * points / 12, 3 * points / 12, 0, 2 * points / 12, 0, 1]
        cells = rows[self.lab.task(0).heading][:6]
        self.assertEqual([c == "" for c in cells], [e == 0 for e in exact])
        for cell, share in zip(cells, exact):
            if share:   # each within a hundredth of its share, and the row's sum exact
                self.assertLess(abs(float(cell) - share), 0.01, (cell, share))
        self.assertEqual(sum(round(float(c) * 100) for c in cells if c), round(sum(exact) * 100))

    def test_a_row_adds_up_whatever_the_points(self):
        # 45 points over shares of 20, 3 and 17 of 40 (the configured term of
        # check-configured): 22.5, 3.375 and 19.125 shown as hundredths
        # that still make 45
        rubric_path = self.write("rubric.txt", "20 timing::*\n3 memory::task2\n17 memo::task2\n"
                                 "0 build::grundy_solver.c\n")
        moved = self.write("lab.ini", "[lab]\nextends = " + labdef.DEFAULT_PATH + "\n\n[task2]\npoints = 45\n")
        try:
            lab = labdef.load(moved)
        except labdef.LabDefinitionError:
            self.skipTest("a variant cannot set a task's points")
        cells = rows_of(pointstable.render(lab, rubric_path))[lab.task(2).heading][:-2]
        self.assertEqual(sum(round(float(c) * 100) for c in cells if c), 4500)
        for cell, share in zip([c for c in cells if c], (22.5, 3.375, 19.125)):
            self.assertLess(abs(float(cell) - share), 0.01)

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
        self.assertEqual(sum(round(float(c) * 100) for c in row[:-2] if c), 3000)

    def test_a_bad_rubric_is_a_rubric_error(self):
        bad = self.write("rubric.txt", "seven task0::*\n")
        with self.assertRaises(rubric.RubricError):
            pointstable.render(self.lab, bad)


if __name__ == "__main__":
    unittest.main()
