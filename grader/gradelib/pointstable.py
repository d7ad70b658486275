"""The points table of the lab: each task's points by kind of test, from the
lab's definition and the rubric, printed on demand (grader/rubric --table).

lab.ini gives each task its points; grader/rubric.txt shares them out
among groups of tests, its lines scaled to the task's points (rubric.py,
term_lines). The table shows, for every task defined (on this term or not:
which tasks a term has is `[lab] tasks`), the points of its public tests,
its hidden tests, the timing checks (the map's: speed::task0) and the
memory check, and its total.

It is printed, never committed: a table in a tracked file would go stale
the moment a TA changed a task's points in lab.ini, or would make that
change touch two files. The column headings say points, since the cells
are points, never test counts.
"""

import math
import os

from . import rubric

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUBRIC = os.path.join(REPO, "grader", "rubric.txt")
# (heading, predicate on a rubric line's pattern); the first that matches.
COLUMNS = [
    ("public tests (points)", lambda p: p.split("::", 1)[0].startswith("task")
     and not p.split("::", 1)[0].endswith("_hidden")),
    ("hidden tests (points)", lambda p: p.split("::", 1)[0].endswith("_hidden")),
    ("timing checks (points)", lambda p: p.startswith(("timing::", "speed::"))),
    ("memory check (points)", lambda p: p.startswith("memory::")),
    ("memo check (points)", lambda p: p.startswith("memo::")),
    ("other (points)", lambda p: True),
]


def task_of_line(pattern, lab):
    """The task a rubric line's points go to (its tests' task); the timing
    checks belong to the timed task."""
    task = rubric.task_of_pattern(pattern, {t.file: t.number for t in reversed(lab.all_tasks)})
    if task is None and pattern.startswith("timing::"):
        task = next((t.number for t in lab.all_tasks if t.timed), None)
    return task


def points_by_column(lab, rubric_path=RUBRIC):
    """{task number: [points per column]} for every task defined, each
    task's lines scaled to its points as the grader scales them."""
    lines, _ = rubric.term_lines(rubric_path, task_points={t.number: t.points for t in lab.all_tasks},
                                 timed_task=next((t.number for t in lab.all_tasks if t.timed), None),
                                 tasks=[t.number for t in lab.all_tasks], checks=lab.checks)
    table = {t.number: [0.0] * len(COLUMNS) for t in lab.all_tasks}
    for line in lines:
        task = task_of_line(line.pattern, lab)
        if task not in table:
            continue          # check-definition names such a line
        column = next(i for i, (_, matches) in enumerate(COLUMNS) if matches(line.pattern))
        table[task][column] += line.points
    return table


def _cell(hundredths):
    return f"{hundredths / 100:.2f}".rstrip("0").rstrip(".") if hundredths else ""


def _hundredths(points, total):
    """points rounded to hundredths so that they add up to total exactly
    (the largest remainders take the hundredths rounding down left over),
    so a row of the table reads as its task's points."""
    floors = [math.floor(p * 100 + 1e-9) for p in points]
    left = round(total * 100) - sum(floors)
    by_remainder = sorted(range(len(points)), key=lambda i: floors[i] - points[i] * 100)
    for i in by_remainder[:max(left, 0)]:
        floors[i] += 1
    return floors


def render(lab, rubric_path=RUBRIC):
    """The table, as Markdown lines joined by newlines."""
    table = points_by_column(lab, rubric_path)
    used = [i for i in range(len(COLUMNS)) if any(row[i] for row in table.values())
            or COLUMNS[i][0] != "other (points)"]
    head = ["task"] + [COLUMNS[i][0] for i in used] + ["total (points)", "optional"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in lab.all_tasks:
        shown = _hundredths([table[t.number][i] for i in used], sum(table[t.number]))
        cells = [t.heading] + [_cell(h) for h in shown] \
            + [f"{t.points:g}", "yes (Part 2)" if t.optional else ""]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)
