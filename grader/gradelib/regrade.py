"""What a regrade changed: OLD_OUT against OUT, per student and per test (grade-all --compare).

Writes, beside the gradebook, regrade.md (for people) and regrade.csv
(one row per changed test or policy figure). For each student whose score
moved: the score before and after, and each test whose points moved with
what moved them:
  - test     its status changed (passed before, failed now, or the reverse);
  - rubric   same status, other points (its weight, or its task's points);
  - new / gone  a test only one grading has (a task switched on or off);
  - policy   the late penalty changed (a due date, an extension, the rate).
Students whose score did not move are one line (a rubric change can move
points between two of their tests and leave the total as it was);
students in one grading only are listed. The summary says how many moved, up and down, and by how
much (largest and mean change). The comparison reads results.json only.
"""

import csv
import io
import os

from . import batch, reports, safefs


def _students(out):
    found = {}
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        if batch.name_problem(name) or os.path.islink(path) or not os.path.isdir(path):
            continue
        doc = batch.read_json(os.path.join(path, "results.json"))
        if doc is not None:
            found[name] = doc
    return found


def _tests(doc):
    tests = {}
    for test in doc.get("tests") or []:
        if isinstance(test, dict):
            name = reports.clean(test.get("name")) or reports.clean(test.get("number"))
            tests[name] = test
    return tests


def _penalty(doc):
    extra = doc.get("extra_data") if isinstance(doc.get("extra_data"), dict) else {}
    mark = extra.get("policy") if isinstance(extra.get("policy"), dict) else {}
    return reports.number(mark.get("penalty")), reports.clean(mark.get("why"), 300)


def student_changes(old, new):
    """[(what, before, after, cause)] of one student."""
    rows = []
    old_tests, new_tests = _tests(old), _tests(new)
    for name in list(old_tests) + [n for n in new_tests if n not in old_tests]:
        a, b = old_tests.get(name), new_tests.get(name)
        before = reports.number(a.get("score")) if a else None
        after = reports.number(b.get("score")) if b else None
        if a is None:
            rows.append((name, None, after, "new test"))
        elif b is None:
            rows.append((name, before, None, "test gone"))
        elif round(before - after, 4) != 0:
            if a.get("status") != b.get("status"):
                cause = f"test: {a.get('status')} before, {b.get('status')} now"
            else:
                cause = (f"rubric: worth {reports.points(reports.number(a.get('max_score')))}, "
                         f"now {reports.points(reports.number(b.get('max_score')))}")
            rows.append((name, before, after, cause))
    (p_old, why_old), (p_new, why_new) = _penalty(old), _penalty(new)
    if round(p_old - p_new, 4) != 0:
        rows.append(("late penalty", -p_old, -p_new, f"policy: {why_new or 'no penalty now'}"))
    return rows


def compare(old_out, new):
    """new: {student: results.json document} of the regrade."""
    old = _students(old_out)
    moved, same = [], []
    for name in sorted(set(old) & set(new)):
        before, after = reports.number(old[name].get("score")), reports.number(new[name].get("score"))
        rows = student_changes(old[name], new[name])
        if round(after - before, 4) != 0:
            moved.append((name, before, after, rows))
        else:
            same.append(name)
    return {"moved": moved, "same": same, "only_old": sorted(set(old) - set(new)),
            "only_new": sorted(set(new) - set(old))}


def _p(value):
    return "-" if value is None else reports.points(round(value, 2) + 0.0)


def summary(result):
    deltas = [after - before for _, before, after, _ in result["moved"]]
    up, down = sum(d > 0 for d in deltas), sum(d < 0 for d in deltas)
    text = f"{len(result['moved'])} students moved ({up} up, {down} down), {len(result['same'])} unchanged"
    if deltas:
        largest = max(deltas, key=abs)
        text += (f"; largest change {'+' if largest > 0 else ''}{_p(largest)}, "
                 f"mean {'+' if sum(deltas) > 0 else ''}{_p(sum(deltas) / len(deltas))} points")
    return text + "."


def markdown(result, old_out, new_out):
    lines = [f"# Regrade: {old_out} -> {new_out}", "", summary(result), ""]
    for name, before, after, rows in result["moved"]:
        lines += [f"## {name}: {_p(before)} -> {_p(after)}", "",
                  "| test | before | after | what moved it |", "|---|---|---|---|"]
        lines += [f"| {what} | {_p(b)} | {_p(a)} | {cause} |" for what, b, a, cause in rows]
        lines.append("")
    if result["same"]:
        lines += [f"Unchanged ({len(result['same'])}): {', '.join(result['same'])}", ""]
    if result["only_old"]:
        lines += [f"Only in {old_out} (not regraded): {', '.join(result['only_old'])}", ""]
    if result["only_new"]:
        lines += [f"Only in {new_out} (new): {', '.join(result['only_new'])}", ""]
    return "\n".join(lines)


def table_csv(result):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "score_before", "score_after", "test", "before", "after", "cause"])
    for name, before, after, rows in result["moved"]:
        for what, b, a, cause in rows or [("", None, None, "")]:
            writer.writerow([name, _p(before), _p(after), what, _p(b), _p(a), cause])
    for name in result["same"]:
        writer.writerow([name, "", "", "", "", "", "unchanged"])
    return buffer.getvalue()


def write(old_out, new, report_dir, new_label):
    """Writes regrade.md and regrade.csv into report_dir; returns the summary line."""
    result = compare(old_out, new)
    safefs.write_atomic(os.path.join(report_dir, "regrade.md"), markdown(result, old_out, new_label).encode("utf-8"))
    safefs.write_atomic(os.path.join(report_dir, "regrade.csv"), table_csv(result).encode("utf-8"))
    return summary(result)
