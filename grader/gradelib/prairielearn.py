"""PrairieLearn's results.json, made from the grader's own (Gradescope's format).

PrairieLearn runs an external grader as an image with the job under /grade
and reads /grade/results/results.json: `score` in [0, 1], `gradable`,
`format_errors`, `message`, `output` and `tests` (`name`, `points`,
`max_points`, `message`, `output`); the file must stay under 1 MB. The
grader writes Gradescope's format (results.py, reports.py), so this is a
translation of one document into the other, never a second grading:

- the same tests, points and feedback text; a test Gradescope would hide
  from the student (`visibility` other than "visible": the hidden suites)
  keeps its points in the score, but its name and output are folded into
  one line per task ("Task 1 / hidden tests: 8 of 9 passed"), as the
  feedback does, since PrairieLearn shows every test it is given;
- `gradable: false` with `format_errors` for a submission PrairieLearn
  should not count as an attempt: no file of the lab's was submitted, or
  a submitted file does not compile (its compiler messages are the
  errors). A file the object checks refused compiled: it is graded;
- every text is cut to fit: each test's output to TEST_TEXT_BYTES, the
  whole document under DOCUMENT_BYTES, dropping outputs from the longest
  first and saying so.
"""

import json
import re

DOCUMENT_BYTES = 900_000          # PrairieLearn's limit is 1 MB
TEST_TEXT_BYTES = 16_000
MESSAGE_BYTES = 64_000
# A line of gcc's errors about a submitted file (build.py compiles src/FILE).
COMPILER_ERROR = re.compile(r"^src/[^:\n]+:\d+:\d+: (fatal )?error: ", re.MULTILINE)


def _cut(text, limit):
    data = (text or "").encode("utf-8")
    if len(data) <= limit:
        return text or ""
    return data[:limit].decode("utf-8", "ignore") + "\n[... cut to fit PrairieLearn's limit ...]"


def _task_of(name):
    """"Task 1 / x" -> "Task 1" ("" for a name without a task)."""
    head, sep, _ = name.partition(" / ")
    return head if sep else ""


def not_gradable(document):
    """The format errors that make a submission not gradable, or []."""
    errors = []
    builds = [t for t in document.get("tests", []) if "build" in t.get("tags", [])]
    missing = [t for t in builds if t.get("status") != "passed" and "is missing from the submission"
               in t.get("output", "")]
    if builds and len(missing) == len(builds):
        return ["No file of the lab was submitted: upload " +
                " and ".join(t["name"].rsplit("::", 1)[-1] for t in builds) + "."]
    if "not_compiled" in document.get("extra_data", {}).get("flags", []):
        for test in builds:
            output = test.get("output", "")
            if test.get("status") != "passed" and COMPILER_ERROR.search(output):
                errors.append(_cut(output, TEST_TEXT_BYTES))
    return errors


def convert(document):
    """PrairieLearn's results document for one grading's results.json."""
    errors = not_gradable(document)
    if errors:
        return {"gradable": False, "format_errors": errors,
                "message": "Your submission could not be graded: fix what is listed and submit "
                           "again (this attempt does not count)."}
    tests = document.get("tests", [])
    max_total = sum(float(t.get("max_score", 0) or 0) for t in tests)
    score_total = float(document.get("score", 0) or 0)
    shown = []
    folded = {}
    for test in tests:
        points = float(test.get("score", 0) or 0)
        max_points = float(test.get("max_score", 0) or 0)
        if test.get("visibility", "visible") != "visible":
            task = _task_of(test.get("name", ""))
            entry = folded.setdefault(task, {"points": 0.0, "max_points": 0.0, "passed": 0, "count": 0})
            entry["points"] += points
            entry["max_points"] += max_points
            entry["count"] += 1
            entry["passed"] += test.get("status") == "passed"
            continue
        shown.append({"name": test.get("name", ""), "points": round(points, 4),
                      "max_points": round(max_points, 4),
                      "message": "passed" if test.get("status") == "passed" else
                                 test.get("status", "failed"),
                      "output": _cut(test.get("output", ""), TEST_TEXT_BYTES)})
    for task, entry in folded.items():
        shown.append({"name": f"{task + ' / ' if task else ''}hidden tests",
                      "points": round(entry["points"], 4), "max_points": round(entry["max_points"], 4),
                      "message": f"{entry['passed']} of {entry['count']} passed",
                      "output": "The hidden tests' names and output are shown when grades are "
                                "published."})
    result = {"gradable": True,
              "score": round(min(1.0, max(0.0, score_total / max_total)), 6) if max_total > 0 else 0.0,
              "message": f"{score_total:g} / {max_total:g} points",
              "output": _cut(document.get("output", ""), MESSAGE_BYTES),
              "tests": shown}
    return fit(result)


def fit(result):
    """The document cut under DOCUMENT_BYTES: the longest outputs go first."""
    def size():
        return len(json.dumps(result).encode("utf-8"))
    if size() <= DOCUMENT_BYTES:
        return result
    for test in sorted(result.get("tests", []), key=lambda t: -len(t.get("output", ""))):
        test["output"] = "[output dropped: the results would pass PrairieLearn's 1 MB limit]"
        if size() <= DOCUMENT_BYTES:
            return result
    result["output"] = _cut(result.get("output", ""), 4000)
    return result


def failure(message):
    """What PrairieLearn gets when the grader itself could not grade: not
    gradable, so the student loses no attempt."""
    return {"gradable": False, "format_errors": [message],
            "message": "The autograder could not grade this submission; it does not count."}
