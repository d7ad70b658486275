"""Reads grader/rubric.txt and gives every graded test its points.

The rubric is data the instructor edits (see the file's header); this
module only parses it and refuses anything that would make the total wrong.
"""

import fnmatch
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


def assign(path, test_ids):
    """{test id: max points} for the graded tests among test_ids, in order."""
    lines, excluded = parse(path)
    graded = [t for t in test_ids if not any(fnmatch.fnmatchcase(t, p) for p in excluded)]
    owner = {}
    for test in graded:
        line = next((l for l in lines if fnmatch.fnmatchcase(test, l.pattern)), None)
        if line is None:
            raise RubricError(f"{path}: no line gives points to test {test}")
        owner[test] = line
    points = {}
    for line in lines:
        members = [t for t in graded if owner[t] is line]
        if not members:
            raise RubricError(f"{path}:{line.number}: '{line.pattern}' matches no test")
        for test, share in zip(members, _shares(line.points, len(members))):
            points[test] = share
    total = sum(line.points for line in lines)
    if abs(total - TOTAL) > 1e-9:
        raise RubricError(f"{path}: the points add up to {total:g}, not {TOTAL:g}")
    return points
