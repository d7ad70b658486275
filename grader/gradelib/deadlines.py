"""The course calendar applied to a grading: late penalty and submission limit in OUT.

policy.py holds the rules and their arithmetic; this module reads a
submission's own time (Gradescope's submission_metadata.json, a commit's
date) and writes what the rules made of it into a grading's OUT:
the grading's result model (reports.MODEL_FILE), from which reports.py
renders results.json (score after the penalty; extra_data.policy with the
raw score, the penalty and why), feedback.md and feedback.html (a
"Deadline and submissions" block under the score) again: the calendar is
a stage before rendering, never a patch of rendered files. Applying is
idempotent: the model's score stays the raw score, so applying again (a
regrade, a rerun of grade-all) gives the same files. Nothing here reads
the clock.

On Gradescope, past the submission limit (Gradescope's recipe: count
previous_submissions from this submission's created_at), the submission is
not graded: kept_results() builds results.json from the last graded
previous submission, with the reason and when the next one counts at the
top. A previous submission that ended in an autograder error (or was
itself over the limit) does not count.
"""

import copy
import json

from . import policy as rules
from . import reports, safefs

class DeadlineError(Exception):
    """The submission's time or due date cannot be known."""


# ---- Gradescope's submission_metadata.json ------------------------------------------

def read_metadata(path):
    try:
        with open(path, encoding="utf-8") as handle:
            meta = json.load(handle)
    except (OSError, ValueError) as error:
        raise DeadlineError(f"{path}: cannot be read as JSON: {error}") from None
    if not isinstance(meta, dict):
        raise DeadlineError(f"{path}: not a JSON object")
    return meta


def user_ids(user):
    """The ids a roster or an extension may name a Gradescope user by."""
    return [str(user[k]) for k in ("email", "sid", "id") if isinstance(user.get(k), (str, int)) and user[k] != ""]


def gradescope_times(policy, meta):
    """(submitted, due, extension 'FILE:LINE' or '', hard end or None, students)
    from the metadata: the submission's created_at; the latest due date of
    its users (each user's own assignment.due_date, which holds
    Gradescope's extensions, else the assignment's), moved by an extension
    of [policy] when one names a user; the late due date as a hard end
    when no extension of [policy] applies."""
    submitted = rules.parse_time(str(meta.get("created_at") or ""))
    if submitted is None:
        raise DeadlineError("submission_metadata.json has no created_at with a time zone")
    assignment = meta.get("assignment") if isinstance(meta.get("assignment"), dict) else {}
    users = [u for u in meta.get("users") or [] if isinstance(u, dict)]
    students = [user_ids(u)[0] if user_ids(u) else "?" for u in users]
    dues, ends = [], []
    for user in users or [{}]:
        own = user.get("assignment") if isinstance(user.get("assignment"), dict) else {}
        due = rules.parse_time(str(own.get("due_date") or assignment.get("due_date") or ""))
        end = rules.parse_time(str(own.get("late_due_date") or assignment.get("late_due_date") or ""))
        if due:
            dues.append(due)
        if end:
            ends.append(end)
    extension = ""
    granted = sorted((policy.extensions[student] for user in users for student in user_ids(user)
                      if student in policy.extensions), key=lambda item: item[0])
    if granted:
        dues, extension = [granted[-1][0]], granted[-1][1]
    if not dues and policy.due:
        dues = [policy.due]
    if not dues:
        raise DeadlineError("no due date: neither the assignment's on Gradescope nor [policy] due")
    hard_end = max(ends) if ends and not extension else None
    return submitted, max(dues), extension, hard_end, students


def previous(meta):
    """[(time, counted, results)] of previous_submissions: counted is False
    for an autograder error (the grader's own failure, or results without a
    score) and for a submission kept over the limit."""
    found = []
    for entry in meta.get("previous_submissions") or []:
        if not isinstance(entry, dict):
            continue
        when = rules.parse_time(str(entry.get("submission_time") or ""))
        if when is None:
            continue
        results = entry.get("results") if isinstance(entry.get("results"), dict) else None
        counted = results is not None and "score" in results and not entry.get("autograder_error")
        extra = (results or {}).get("extra_data") or {}
        if isinstance(extra, dict):
            if extra.get("grader_status") not in (None, 0):
                counted = False
            mark = extra.get("policy") if isinstance(extra.get("policy"), dict) else {}
            if mark.get("counted") is False:
                counted = False
        found.append((when, counted, results))
    return sorted(found, key=lambda item: item[0])


def kept_results(meta, submitted, budget):
    """results.json for a submission past the limit: the last graded one's,
    with the reason on top, or a score of 0 when none was graded."""
    graded = [(t, r) for t, counted, r in previous(meta) if counted and t < submitted]
    if graded:
        when, doc = graded[-1]
        doc = copy.deepcopy(doc)
        head = (f"{budget.text}\nThis shows your last graded submission ({rules.show_time(when)}): "
                "its score stands.\n\n")
    else:
        when, doc = None, {"score": 0, "tests": []}
        head = f"{budget.text}\n\n"
    doc["output"] = head + str(doc.get("output") or "")
    doc.setdefault("output_format", "text")
    extra = doc.get("extra_data") if isinstance(doc.get("extra_data"), dict) else {}
    mark = dict(extra.get("policy") or {}) if isinstance(extra.get("policy"), dict) else {}
    mark.update({"counted": False, "limit": budget.text,
                 "kept_from": rules.show_time(when) if when else None,
                 "submitted": rules.show_time(submitted)})
    extra["policy"] = mark
    doc["extra_data"] = extra
    return doc


# ---- applying to OUT ------------------------------------------------------------------

def apply(out, policy, submitted, due, extension="", hard_end=None, budget_text="", note=""):
    """Applies the late penalty of a submission made at `submitted` (None:
    unknown, no penalty and `note` says why) to OUT: the grading's result
    model (OUT/logs/grading.json) gets the calendar's mark and its four
    files are rendered again from it. Returns the assessment (None when the
    time is unknown). Idempotent: the model's score is the raw score, never
    changed here."""
    try:
        model = reports.read_model(out)
    except (OSError, ValueError, safefs.Refused) as error:
        raise DeadlineError(f"{out}: no result model to apply the calendar to "
                            f"({reports.MODEL_FILE}: {error}); grade it again with this grader") from None
    raw = reports.number(model.get("score"))
    assessment = None
    if submitted is not None and due is not None and policy.late:
        assessment = rules.assess(policy, raw, submitted, due, extension, hard_end)
    lines = []
    if assessment and assessment.penalty:
        lines.append(f"Score after the late penalty: {reports.points(assessment.score)} "
                     f"(raw score {reports.points(raw)}, penalty {reports.points(assessment.penalty)}).")
    if assessment:
        lines.append(assessment.why)
    if note:
        lines.append(note)
    if budget_text:
        lines.append(budget_text)
    model["policy"] = {
        "counted": True, "raw_score": raw,
        "penalty": assessment.penalty if assessment else 0.0,
        "score": assessment.score if assessment else raw,
        "percent": assessment.percent if assessment else 0.0,
        "days_late": assessment.days_late if assessment else 0,
        "late_minutes": max(0, round(assessment.late_seconds / 60, 1)) if assessment else None,
        "cutoff": assessment.cutoff if assessment else False,
        "due": rules.show_time(due) if due else None,
        "submitted": rules.show_time(submitted) if submitted else None,
        "extension": extension or None,
        "why": " ".join(lines[1:] if assessment and assessment.penalty else lines) if lines else "",
        "budget": budget_text or None,
        "lines": lines,
        "prefix": "\n".join(lines) + "\n\n" if lines else ""}
    reports.write_reports(model, out)
    return assessment
