"""The gradebook in the layout Canvas imports (canvas.csv), from the class roster.

Canvas's gradebook import takes a CSV whose first columns are Student, ID,
SIS User ID, SIS Login ID and Section, then one column per assignment,
headed by its name (Canvas exports "Name (assignment id)", which matches
the assignment when imported back). The roster ([policy] roster, see
policy.py) maps the grader's student ids (grade-all's names, or the email
on Gradescope) to those columns. gradebook.csv stays as it is.

A student the roster lists but the grading lacks keeps a row with an empty
score (never dropped), and a graded student the roster lacks is not
invented a Canvas row: both are listed in roster-mismatch.txt and returned,
so the caller says so. The column's score is the total after the policy.
"""

import csv
import io
import os

from . import reports, safefs

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def canvas_csv(roster, scores, assignment):
    """(csv text, missing from the grading, missing from the roster).
    scores: {student id: total or None (a grader error)}."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CANVAS_COLUMNS, assignment or "Grundy lab"])
    not_graded = []
    for entry in roster:
        score = scores.get(entry.student)
        if entry.student not in scores:
            not_graded.append(entry.student)
        writer.writerow([entry.name, entry.canvas_id, entry.sis_user_id, entry.sis_login_id, entry.section,
                         "" if score is None else reports.points(round(score, 2))])
    listed = {entry.student for entry in roster}
    not_listed = sorted(s for s in scores if s not in listed)
    return buffer.getvalue(), not_graded, not_listed


def mismatch_text(not_graded, not_listed):
    lines = []
    if not_graded:
        lines.append(f"in the roster, not graded (empty score in canvas.csv): {', '.join(not_graded)}")
    if not_listed:
        lines.append(f"graded, not in the roster (not in canvas.csv): {', '.join(not_listed)}")
    return "\n".join(lines)


def write(report_dir, policy, students):
    """Writes canvas.csv (and roster-mismatch.txt, empty when all match) from
    classreport's students; returns the mismatch text ('' when none)."""
    scores = {s.name: None if s.error else reports.number(s.results.get("score")) for s in students}
    text, not_graded, not_listed = canvas_csv(policy.roster, scores, policy.canvas_assignment)
    safefs.write_atomic(os.path.join(report_dir, "canvas.csv"), text.encode("utf-8"))
    mismatch = mismatch_text(not_graded, not_listed)
    safefs.write_atomic(os.path.join(report_dir, "roster-mismatch.txt"), (mismatch + "\n" if mismatch else "").encode("utf-8"))
    return mismatch
