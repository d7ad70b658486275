"""Reads grader/rubric.txt and gives every graded test its points.

The rubric is data the instructor edits (see the file's header); this
module only parses it and refuses anything that would make the total wrong.
"""

import fnmatch
import math
import re
from dataclasses import dataclass

TOTAL = 100.0


class RubricError(Exception):
    pass


@dataclass
class Line:
    points: float
    pattern: str
    number: int


def parse(path):
    """(point lines, exclude patterns)."""
    lines, excluded = [], []
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            text = raw.split("#", 1)[0].strip()
            if not text:
                continue
            fields = text.split()
            if fields[0] == "exclude" and len(fields) == 2:
                excluded.append(fields[1])
                continue
            if len(fields) != 2:
                raise RubricError(f"{path}:{number}: expected 'POINTS PATTERN' or 'exclude PATTERN'")
            try:
                points = float(fields[0])
            except ValueError:
                raise RubricError(f"{path}:{number}: '{fields[0]}' is not a number of points") from None
            lines.append(Line(points, fields[1], number))
    return lines, excluded


UNIT = 10000   # points are shown with four decimals: shares are whole units


def _shares(points, count):
    """points split into count shares of whole UNITs that add up to points
    exactly (the first ones get the remainder), so a task of 25 points is
    25.0 in every report, not 25.0005."""
    units = round(points * UNIT)
    base, extra = divmod(units, count)
    return [(base + (1 if i < extra else 0)) / UNIT for i in range(count)]


def task_of_pattern(pattern, file_tasks=None):
    """The task a rubric line gives points to, from its pattern (taskN::*,
    taskN_hidden::*, memory::taskN, growth::taskN, memo::taskN; build::FILE through
    file_tasks {file: task}), or None when the pattern names none
    (timing::*, which belongs to the timed task)."""
    suite, _, name = pattern.partition("::")
    match = re.fullmatch(r"task(\d+)(_hidden)?", suite)
    if match:
        return int(match.group(1))
    if re.fullmatch(r"task\d+", name):   # memory::taskN and every check's NAME::taskN
        return int(name[4:])
    if suite == "build":
        return (file_tasks or {}).get(name)
    return None


def term_of(lab):
    """assign()'s arguments for the term of a lab definition (labdef.Lab)."""
    return {"tasks": [t.number for t in lab.tasks], "total": sum(t.points for t in lab.tasks),
            "files": lab.files, "task_points": {t.number: t.points for t in lab.tasks},
            "timed_task": next((t.number for t in lab.tasks if t.timed), None),
            "checks": lab.checks}


def term_lines(path, tasks=None, files=None, task_points=None, timed_task=None, checks=()):
    """(point lines, exclude patterns) of the term: the lines of its tasks
    and files, each task's lines scaled so that they add up to the task's
    points in the definition (task_points {task: points}; timing::* lines
    are the timed task's). The lines give a task's split; the definition
    gives its points: a TA who changes a task's points edits lab.ini only.
    Scaled lines are whole UNITs, rounded by the largest remainder, so a
    task's lines (and then its tests, _shares) add up to its points exactly.
    Each of lab.ini's [checks] (NAME, WEIGHT) adds the line "WEIGHT
    NAME::taskN" for every task that has lines, as if rubric.txt held it
    (line 0)."""
    lines, excluded = parse(path)
    shared = {task_of_pattern(l.pattern) for l in lines}
    lines += [Line(weight, f"{name}::task{task}", 0) for name, weight in checks
              for task in (tasks or ()) if task in shared]
    if tasks is not None:
        lines = [l for l in lines if task_of_pattern(l.pattern) in (None, *tasks)]
    if tasks is not None and timed_task is None:   # speed::taskN compares timings: none without them
        lines = [l for l in lines if not l.pattern.startswith("speed::")]
    if files is not None:
        lines = [l for l in lines if not l.pattern.startswith("build::") or l.pattern[7:] in files]
    if task_points is None:
        return lines, excluded

    def task_of(line):
        task = task_of_pattern(line.pattern)
        return timed_task if task is None and line.pattern.startswith("timing::") else task

    units = {}   # each task's lines in whole UNITs that add up to its points exactly
    for task in dict.fromkeys(task_of(l) for l in lines if task_of(l) in task_points):
        mine = [i for i, l in enumerate(lines) if task_of(l) == task]
        weight = sum(lines[i].points for i in mine)
        if weight <= 0:
            raise RubricError(f"{path}: Task {task}'s lines have no points to share its "
                              f"{task_points[task]:g} (lab.ini)")
        exact = {i: lines[i].points * task_points[task] * UNIT / weight for i in mine}
        floors = {i: math.floor(exact[i] + 1e-6) for i in mine}
        left = round(task_points[task] * UNIT) - sum(floors.values())
        for i in sorted(mine, key=lambda i: floors[i] - exact[i])[:max(left, 0)]:
            floors[i] += 1    # the largest remainders take what rounding down left over
        units.update(floors)
    scaled = [Line(units[i] / UNIT, l.pattern, l.number) if i in units else l   # build::FILE, no task
              for i, l in enumerate(lines)]
    return scaled, excluded


def assign(path, test_ids, tasks=None, total=TOTAL, files=None, task_points=None, timed_task=None, checks=()):
    """{test id: max points} for the graded tests among test_ids, in order.

    tasks: the task numbers of this term; a line whose pattern names another
    task (an optional task not switched on) is left out, so one rubric
    serves every choice of tasks. total: what the kept lines must add up to
    (the term's tasks' points, lab.ini); files: the term's submission
    files, whose build::FILE lines alone are kept; task_points: each task's
    points in lab.ini, to which its lines are scaled (term_lines)."""
    return _assign(path, test_ids, tasks, total, files, task_points, timed_task, checks)[0]


def _assign(path, test_ids, tasks, total, files, task_points, timed_task, checks=()):
    lines, excluded = term_lines(path, tasks, files, task_points, timed_task, checks)
    graded = [t for t in test_ids if not any(fnmatch.fnmatchcase(t, p) for p in excluded)]
    owner = {}
    for test in graded:
        line = next((l for l in lines if fnmatch.fnmatchcase(test, l.pattern)), None)
        if line is None:
            fix = (f": add the line ' 0  {test}' (a file's build test holds the compiler's words and "
                   f"earns nothing)" if test.startswith("build::") else
                   ": add a line whose glob matches it (grader/rubric --explain shows the lines)")
            raise RubricError(f"{path}: no line gives points to test {test}{fix}")
        owner[test] = line
    points = {}
    for line in lines:
        members = [t for t in graded if owner[t] is line]
        if not members:
            raise RubricError(f"{path}:{line.number}: '{line.pattern}' matches no test")
        for test, share in zip(members, _shares(line.points, len(members))):
            points[test] = share
    added = sum(line.points for line in lines)
    if abs(added - total) > 1e-9:
        raise RubricError(f"{path}: the points add up to {added:g}, not {total:g}")
    return points, lines, owner

def every_test_id(harness_tests, lab):
    """Every test id a grading of the term can produce: the harness's
    (suite::test, from its runners or its sources) and the grader's own
    (build::FILE, memory::taskN, growth::taskN, timing::SHAPE, memo::taskN,
    speed::taskN for the map's task when a timed task follows it)."""
    tasks = [t.number for t in lab.tasks]
    timed = next((t.number for t in lab.tasks if t.timed), None)
    map_task = min(t.number for t in lab.tasks if t.file == lab.files[0])
    speed = [f"speed::task{map_task}"] if timed is not None and timed > map_task else []
    return (list(harness_tests) + [f"build::{f}" for f in lab.files] + speed
            + [f"memory::task{t}" for t in tasks] + [f"growth::task{t}" for t in tasks]
            + ["timing::" + shape.name for shape in lab.shapes]
            + ([f"memo::task{lab.memo.task}"] if lab.memo is not None and lab.memo.task in tasks else [])
            + [f"{name}::task{t}" for name, _ in lab.checks for t in tasks])


def explain(path, test_ids, tasks=None, total=TOTAL, files=None, task_points=None, timed_task=None, checks=()):
    """[(line, [(test id, points)])]: each kept line of the rubric (its
    points scaled as assign() scales them) and the tests that share its
    points, as assign() gives them (it raises the same errors)."""
    points, lines, owner = _assign(path, test_ids, tasks, total, files, task_points, timed_task, checks)
    return [(line, [(t, points[t]) for t in points if owner[t] is line]) for line in lines]
