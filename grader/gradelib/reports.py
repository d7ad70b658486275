"""Reports of one grading run: Gradescope results.json, JUnit XML, feedback.

The grader core builds a result dict per submission (the result model:
submission, started, seed, sandbox, hidden_visibility, phases,
execution_time, notes, builds, tests, timing, memory, coverage, score,
max_score; and policy, the course calendar's mark, when deadlines.apply
renders the files again). write_reports(result, out_dir) turns it into
four files, and keeps the model itself in logs/grading.json:

  results.json   Gradescope's autograder results format
                 (https://gradescope-autograders.readthedocs.io/en/latest/specs/);
                 grader/validate-results checks it against
                 grader/schema/gradescope-results.schema.json.
  junit.xml      JUnit XML as GitLab's unit test report reads it: one
                 <testsuite> per task, <testcase classname="grundy.taskN">.
  feedback.md    what the student reads: score, a summary (per task, each
  feedback.html  cause of its failures once), notes, build problems, each
                 cause with its first test's message in full and the list
                 of the other tests it fails (cause_key: the message with
                 its positions, numbers and answers taken out, as `make
                 test` groups them; time-outs in the order they
                 happened), timing, valgrind findings, coverage,
                 and the run's seed and sandbox mode.

Trust: any string in the result may come from the submission (messages,
compiler output, valgrind stacks). Each one is cleaned (terminal escape
sequences and characters XML 1.0 forbids are removed), capped, and escaped
for the format it goes into. The HTML has no script, links nothing outside
the output directory (except the handout, when $GRUNDY_HANDOUT_URL says
where the course publishes it), and forbids scripts by its
Content-Security-Policy.

Handout sections: a message that names one ("(handout:
handouts/grundy-lab.html#task-1)") is followed in the feedback by a link to
that section: of $GRUNDY_HANDOUT_URL when it is set (an http or https
address), else of the rendered handout the grader was built with, copied
into the output directory as handout.html; with neither, the reference
stays plain text.

Hidden tests: unless result["hidden_visibility"] is "visible", the files
students read directly (feedback, junit.xml, the summary in results.json)
show a hidden test only as "hidden test N" with its status and points. In
results.json the full test carries that visibility, and Gradescope shows
it to the student when the visibility allows.

Each file is written atomically (temporary file in out_dir, fsync,
os.replace). Python 3.10+ standard library only.
"""

import html
import json
import math
import os
import re
import urllib.parse
import xml.etree.ElementTree as ET

from . import page, safefs

LABEL_CAP = 300                 # characters per name, file, position, note...
MESSAGE_CAP = 4 * 1024          # characters per test message
COMPILER_CAP = 20 * 1024        # characters per compiler output
SUMMARY_CAP = 8 * 1024          # results.json top-level output
FIRST_LINE_CAP = 200            # JUnit message attribute
STACK_FRAMES = 12               # valgrind frames shown per finding
MEMORY_SHOWN = 20               # valgrind findings shown in the feedback

STATUS_WORDS = {
    "passed": "passed", "failed": "failed", "crashed": "crashed",
    "timeout": "timed out", "skipped": "skipped", "missing": "missing",
    "not_run": "not run",
}
JUNIT_OUTCOME = {
    "failed": "failure", "crashed": "error", "timeout": "error",
    "missing": "error", "skipped": "skipped", "not_run": "skipped",
}
HIDDEN_WHEN = {
    "after_due_date": "after the due date",
    "after_published": "when grades are published",
    "hidden": "to course staff only",
}
# valgrind kinds, most useful first; other kinds rank after the errors,
# before the leaks.
MEMORY_KINDS = {
    "InvalidWrite": "Invalid write", "InvalidRead": "Invalid read",
    "InvalidFree": "Invalid free", "MismatchedFree": "Mismatched free",
    "InvalidJump": "Jump to an invalid address",
    "UninitCondition": "Decision on an uninitialised value",
    "UninitValue": "Use of an uninitialised value",
    "SyscallParam": "Uninitialised system call argument",
    "Overlap": "Overlapping memory copy", "FishyValue": "Suspicious size",
    "Leak_DefinitelyLost": "Leak (definitely lost)",
    "Leak_IndirectlyLost": "Leak (indirectly lost)",
    "Leak_PossiblyLost": "Leak (possibly lost)",
    "Leak_StillReachable": "Still reachable at exit",
}
_MEMORY_RANK = {kind: rank for rank, kind in enumerate(MEMORY_KINDS)}
_FIRST_LEAK_RANK = _MEMORY_RANK["Leak_DefinitelyLost"]

# A handout section named in a message, and the course's published handout.
_HANDOUT_REFERENCE = re.compile(r"\(handout: (?:handouts/)?grundy-lab\.html#([A-Za-z0-9_-]+)\)")
_HANDOUT_URL = re.compile(r"https?://[^\s\"'<>#]+")
HANDOUT_COPY = "handout.html"   # the handout's name in the output directory
# The result model itself, for the course calendar to render from again
# (deadlines.apply); under logs/, which no platform adapter shows students.
MODEL_FILE = os.path.join("logs", "grading.json")
MODEL_CAP = 64 << 20


def read_model(out_dir) -> dict:
    """The result model write_reports kept in out_dir; raises OSError,
    safefs.Refused or ValueError (with why) when it is not there or not one."""
    data = safefs.read_regular(os.path.join(out_dir, MODEL_FILE), MODEL_CAP)
    model = json.loads(data)
    if not isinstance(model, dict):
        raise ValueError(f"{MODEL_FILE} is not a grading's result model")
    return model

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_NOT_XML = re.compile("[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~])")
_MD_ORDERED = re.compile(r"^(\d+)([.)])")

STYLE = """
body{font:16px/1.5 system-ui,sans-serif;max-width:62em;margin:2em auto;padding:0 1em;color:#1a1a1a;background:#fff}
h1{font-size:1.6em;margin-bottom:.2em}
h2{font-size:1.3em;border-bottom:1px solid #ccc;margin-top:1.8em}
h3{font-size:1.05em;margin:1.2em 0 .3em}
.lead{font-size:1.3em;font-weight:bold}
pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f0f0f0}
"""


# ---- untrusted text and numbers ---------------------------------------------

def sanitize(value) -> str:
    """Any value as text fit for every format: no terminal escapes, only
    characters XML 1.0 allows, without DEL and C1 controls (so no control
    characters and no lone surrogates)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    return _NOT_XML.sub("", _ANSI.sub("", text))


def clean(value, limit=LABEL_CAP) -> str:
    """sanitize(value), capped: a short label unless a larger limit is given."""
    return cap(sanitize(value), limit)


def cap(text: str, limit: int) -> str:
    """text cut to its first `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} characters cut ...]"


def number(value, default=0.0) -> float:
    """A finite float (JSON has no NaN or infinity), else default."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return default
    return value if math.isfinite(value) else default


def points(value) -> str:
    """2.0 -> "2", 2.5 -> "2.5", 1/3 -> "0.33"."""
    return f"{number(value):.2f}".rstrip("0").rstrip(".")


def seconds(value) -> str:
    return "-" if value is None else f"{number(value):.3f}"


# ---- the result model --------------------------------------------------------

def _task(test) -> int:
    try:
        return int(test.get("task", 0))
    except (TypeError, ValueError):
        return 0


def _status(test) -> str:
    return clean(test.get("status")) or "not_run"


def _message(test) -> str:
    return clean(test.get("message"), MESSAGE_CAP)


def _masked(result, test) -> bool:
    """Whether students may not see this test's name and message yet."""
    return bool(test.get("hidden")) and result.get("hidden_visibility") != "visible"


def _hidden_placeholder(result, ordinal) -> str:
    when = HIDDEN_WHEN.get(result.get("hidden_visibility"), "later")
    return f"Hidden test {ordinal}: its details are shown {when}."


def _rows(result) -> list:
    """(test, number, hidden_ordinal) per test in rubric order. number is
    "task.index" (index from 1 within the task); hidden_ordinal numbers the
    task's hidden tests from 1 (None for a public test)."""
    counts, hidden_counts, rows = {}, {}, []
    for test in result.get("tests") or []:
        task = _task(test)
        counts[task] = counts.get(task, 0) + 1
        ordinal = None
        if test.get("hidden"):
            hidden_counts[task] = hidden_counts.get(task, 0) + 1
            ordinal = hidden_counts[task]
        rows.append((test, f"{task}.{counts[task]}", ordinal))
    return rows


def _tasks(rows) -> dict:
    """task -> its rows, tasks in increasing order."""
    tasks = {}
    for row in rows:
        tasks.setdefault(_task(row[0]), []).append(row)
    return dict(sorted(tasks.items()))


def _task_title(result, task) -> str:
    """The task's heading, as the grading recorded it from the lab's definition."""
    titles = result.get("task_titles") or {}
    return clean(titles.get(task) or titles.get(str(task)) or f"Task {task}")


def _totals(rows) -> tuple:
    """(score, max_score, tests, tests not passed) of some rows."""
    score = sum(number(t.get("score")) for t, _, _ in rows)
    max_score = sum(number(t.get("max_score")) for t, _, _ in rows)
    failing = sum(1 for t, _, _ in rows if _status(t) != "passed")
    return score, max_score, len(rows), failing


def _passed(count, failing) -> str:
    return f"{count - failing} of {count} test{'s' if count != 1 else ''} passed"


def _build_problems(build) -> bool:
    return (not build.get("compiled", True) or not build.get("accepted", True)
            or bool(build.get("warnings") or build.get("errors") or build.get("rejections")))


# ---- results.json (Gradescope) -----------------------------------------------

def summary_text(result) -> str:
    """The short plain-text summary at the top of Gradescope's results."""
    rows = _rows(result)
    late = _policy(result)
    lines = [f"{'Raw score' if late.get('penalty') else 'Score'}: "
             f"{points(result.get('score'))}/{points(result.get('max_score'))}"]
    for task, task_rows in _tasks(rows).items():
        score, max_score, count, failing = _totals(task_rows)
        lines.append(f"{_task_title(result, task)}: {points(score)}/{points(max_score)} ({_passed(count, failing)})")
    for build in result.get("builds") or []:
        name = clean(build.get("file"))
        if not build.get("compiled", True):
            lines.append(f"{name} did not compile: see the feedback for the compiler's errors.")
        elif not build.get("accepted", True) or build.get("rejections"):
            lines.append(f"{name} was not accepted: " + "; ".join(clean(r) for r in build.get("rejections") or []))
    notes = [clean(note, MESSAGE_CAP) for note in result.get("notes") or []]
    if notes:
        lines += ["", "Notes:"] + [f"- {note}" for note in notes]
    lines += ["", f"Sandbox: {clean(result.get('sandbox'))}. Seed: {clean(result.get('seed'))}"
              " (a regrade with this seed gives the same tests)."]
    return (late.get("prefix") or "") + cap("\n".join(lines), SUMMARY_CAP)


def _policy(result) -> dict:
    """The course calendar's mark (result["policy"], set by deadlines.apply
    before the files are rendered again), or {}."""
    return result.get("policy") if isinstance(result.get("policy"), dict) else {}


def _gradescope_output(test) -> str:
    status, message = _status(test), _message(test)
    if status in ("passed", "failed"):
        return message
    word = STATUS_WORDS.get(status, status)
    if message.startswith(f"{word}:"):
        return message  # the phase said it already ("not run: ...")
    return f"{word}: {message}" if message else word


def _gradescope_test(result, test, test_number) -> dict:
    tags = [f"task{_task(test)}"]
    if clean(test.get("kind")):
        tags.append(clean(test["kind"]))
    if test.get("hidden"):
        tags.append("hidden")
    return {
        "name": clean(test.get("name")) or clean(test.get("id")) or f"test {test_number}",
        "number": test_number,
        "score": number(test.get("score")),
        "max_score": number(test.get("max_score")),
        "status": "passed" if _status(test) == "passed" else "failed",
        "output": _gradescope_output(test),
        "output_format": "text",
        "tags": tags,
        "visibility": _hidden_visibility(result) if test.get("hidden") else "visible",
    }


def _hidden_visibility(result) -> str:
    """Gradescope visibility of hidden tests; an unknown value falls back to
    "after_published" rather than making results.json invalid."""
    value = result.get("hidden_visibility")
    return value if value in ("hidden", "after_due_date", "after_published", "visible") else "after_published"


def _leaderboard(result) -> list:
    board, names = [], set()
    for check in result.get("timing") or []:
        ratio = check.get("ratio")
        # The check's name (its timing::NAME test) is the same for every
        # submission, while the position is drawn from each one's seed: a
        # leaderboard's columns must not change from one row to the next,
        # and the class report joins them to the timing tests by it.
        key = clean(check.get("name")) or clean(check.get("position"))
        name = f"CPU ratio {key}"
        # Only a right answer within budget has a place: a constant answer
        # is instant, and must not top an ascending board.
        if (not check.get("passed") or ratio is None or not math.isfinite(number(ratio, math.nan))
                or name in names):
            continue
        names.add(name)
        board.append({"name": name, "value": round(number(ratio), 3), "order": "asc"})
    challenge = result.get("challenge") or {}
    largest = challenge.get("largest")
    if isinstance(largest, int) and not isinstance(largest, bool):
        # The challenge (no points): the larger, the better.
        board.append({"name": CHALLENGE_NAME, "value": largest, "order": "desc"})
    return board


CHALLENGE_NAME = "Challenge: largest heap"


def gradescope_results(result) -> dict:
    """The results.json document."""
    coverage = result.get("coverage") or {}
    late = _policy(result)
    doc = {
        "score": number(late["score"] if "score" in late else result.get("score")),
        "execution_time": math.ceil(number(result.get("execution_time"))),
        "output": summary_text(result),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [_gradescope_test(result, t, n) for t, n, _ in _rows(result)],
        "extra_data": {
            "seed": result.get("seed") if isinstance(result.get("seed"), int) else clean(result.get("seed")),
            "sandbox": clean(result.get("sandbox")),
            # The grading's pace: the factor of its wall-clock limits, and why (pace.py).
            "pace": clean(result.get("pace")),
            "phases": {clean(k): number(v) for k, v in (result.get("phases") or {}).items()},
            "coverage_line_percent": number(coverage["line_percent"])
            if coverage.get("line_percent") is not None else None,
            # Facts for the gradebook, computed where they happened
            # (results.py); the class report reads these, never messages.
            "flags": [clean(f) for f in result.get("flags") or []],
            # The timing phase's measurements, per drawn position (CPU
            # seconds read from the kernel by the trusted probe).
            "challenge": {"largest": (result.get("challenge") or {}).get("largest"),
                          "budget_cpu": number((result.get("challenge") or {}).get("budget_cpu"), None),
                          "stopped_by": clean((result.get("challenge") or {}).get("stopped_by"))}
            if result.get("challenge") else None,
            "timing": [{"name": clean(t.get("name")), "position": clean(t.get("position")),
                        "student_cpu": number(t.get("student_cpu"), None),
                        "calibration_cpu": number(t.get("calibration_cpu"), None),
                        "passed": bool(t.get("passed"))} for t in result.get("timing") or []],
        },
    }
    if late:
        doc["extra_data"]["policy"] = late
    board = _leaderboard(result)
    if board:
        doc["leaderboard"] = board
    return doc


# ---- junit.xml (GitLab) ------------------------------------------------------

def _junit_name(result, test, ordinal, used) -> str:
    """A testcase name unique within its suite (GitLab ignores duplicates)."""
    if _masked(result, test):
        name = f"hidden_{ordinal}"
    else:
        full = clean(test.get("id")) or clean(test.get("name"))
        name = full.rsplit("::", 1)[-1] or full
        if name in used:
            name = full
    base, k = name, 2
    while name in used:
        name, k = f"{base} ({k})", k + 1
    used.add(name)
    return name


def _junit_outcome(result, test, ordinal, case) -> str | None:
    """Adds the failure/error/skipped child; returns its kind."""
    status = _status(test)
    outcome = JUNIT_OUTCOME.get(status, None if status == "passed" else "failure")
    if outcome is None:
        return None
    text = _hidden_placeholder(result, ordinal) if _masked(result, test) else _message(test)
    first = text.strip().split("\n", 1)[0] if text.strip() else STATUS_WORDS.get(status, status)
    if outcome == "skipped":
        ET.SubElement(case, "skipped", message=cap(first, FIRST_LINE_CAP)).text = text or None
    else:
        child = ET.SubElement(case, outcome, message=cap(first, FIRST_LINE_CAP), type=status)
        child.text = text or STATUS_WORDS.get(status, status)
    return outcome


def junit_tree(result) -> ET.Element:
    """<testsuites> with one <testsuite name="taskN"> per task."""
    root = ET.Element("testsuites", name="grundy-lab")
    grand = {"tests": 0, "failure": 0, "error": 0, "skipped": 0, "time": 0.0}
    for task, rows in _tasks(_rows(result)).items():
        suite = ET.SubElement(root, "testsuite", name=f"task{task}")
        counts = {"tests": 0, "failure": 0, "error": 0, "skipped": 0, "time": 0.0}
        used = set()
        for test, _, ordinal in rows:
            case = ET.SubElement(suite, "testcase", classname=f"grundy.task{task}",
                                 name=_junit_name(result, test, ordinal, used))
            if test.get("time") is not None:
                case.set("time", seconds(test["time"]))
                counts["time"] += number(test["time"])
            outcome = _junit_outcome(result, test, ordinal, case)
            counts["tests"] += 1
            if outcome:
                counts[outcome] += 1
        _set_counts(suite, counts)
        for key in grand:
            grand[key] += counts[key]
    _set_counts(root, grand)
    return root


def _set_counts(element, counts) -> None:
    element.set("tests", str(counts["tests"]))
    element.set("failures", str(counts["failure"]))
    element.set("errors", str(counts["error"]))
    element.set("skipped", str(counts["skipped"]))
    element.set("time", seconds(counts["time"]))


def junit_xml(result) -> bytes:
    root = junit_tree(result)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


# ---- feedback: blocks, rendered to Markdown and to HTML ----------------------
# A block is (kind, ...): ("h1"|"h2"|"h3"|"p"|"lead", text), ("list", [text]),
# ("code", text), ("table", [header], [[cell]]), ("link", text, label, href).

def feedback_blocks(result, handout=None) -> list:
    """The feedback's blocks; `handout` is where handout sections link to
    (handout_base), or None for no links."""
    late = _policy(result)
    shown = late["score"] if late.get("penalty") else result.get("score")
    score = f"Score: {points(shown)} / {points(result.get('max_score'))}"
    note = (f" (raw score {points(result.get('score'))}, late penalty {points(late['penalty'])})"
            if late.get("penalty") else "")
    blocks = [("h1", "Grundy lab: autograder feedback"), ("lead", score, note)]
    if late.get("lines"):
        blocks += [("h2", "Deadline and submissions"), ("list", [clean(line, MESSAGE_CAP) for line in late["lines"]])]
    blocks += _summary_blocks(result)
    notes = [clean(note, MESSAGE_CAP) for note in result.get("notes") or []]
    if notes:
        blocks += [("h2", "Notes"), ("list", notes)]
    blocks += _build_blocks(result)
    for task, rows in _tasks(_rows(result)).items():
        blocks += _task_blocks(result, task, rows, handout)
    blocks += _timing_blocks(result) + _memory_blocks(result) + _coverage_blocks(result)
    blocks += [("h2", "About this run"), ("list", [
        f"Seed: {clean(result.get('seed'))} (a regrade with this seed runs the same hidden tests)",
        f"Sandbox: {clean(result.get('sandbox'))}",
        f"Started: {clean(result.get('started'))}, took {points(result.get('execution_time'))} s",
    ])]
    return blocks


def _build_blocks(result) -> list:
    builds = [b for b in result.get("builds") or [] if _build_problems(b)]
    if not builds:
        return []
    blocks = [("h2", "Building your code")]
    for build in builds:
        name = clean(build.get("file"))
        if not build.get("compiled", True):
            state = "did not compile"
        elif not build.get("accepted", True):
            state = "compiled, but was not accepted"
        else:
            state = "compiled"
        blocks.append(("h3", f"{name}: {state}"))
        errors = clean(build.get("errors"), COMPILER_CAP)
        if errors:
            blocks += [("p", "Compiler errors:"), ("code", errors)]
        warnings = clean(build.get("warnings"), COMPILER_CAP)
        if warnings:
            blocks += [("p", "Compiler warnings (they do not stop the tests, but usually point at a bug):"),
                       ("code", warnings)]
        rejections = [clean(r, MESSAGE_CAP) for r in build.get("rejections") or []]
        if rejections:
            blocks += [("p", "Why it was not accepted:"), ("list", rejections)]
    return blocks


def _handout_links(message, handout) -> list:
    """A link block per handout section the message names (each once)."""
    if handout is None:
        return []
    links, seen = [], set()
    for anchor in _HANDOUT_REFERENCE.findall(message):
        if anchor not in seen:
            seen.add(anchor)
            links.append(("link", "Read in the handout:", f"section #{anchor}", f"{handout}#{anchor}"))
    return links


# ---- causes: failures that share one are shown once --------------------------

_CAUSE_POSITION = re.compile(r"\{[^{}\n]*\}")
_CAUSE_NUMBER = re.compile(r"[0-9]+")
_CAUSE_ANSWER = re.compile(r"\b(?:true|false)\b|\ba P-position\b|\ban N-position\b")


# LAB_TEST_SAW of tests/public/support/lab_support.h.
TEST_SAW = " What the test saw: "


def cause_key(message) -> str:
    """The cause a failure's message names, as `make test` defines it
    (kind_of in tests/public/support/lab_report.c): the whole message,
    every line, with its positions ({...}), numbers and answers (true or
    false, a P- or an N-position) taken out. Two messages that differ in
    any other word are two causes; an empty message is a cause of its own
    kind ("no message"). A message that names its cause and then what its
    test saw (LAB_TEST_SAW in tests/public/support/lab_support.h) is keyed
    by the cause alone."""
    message = message.split(TEST_SAW, 1)[0]
    text = _CAUSE_POSITION.sub("#", message)
    text = _CAUSE_ANSWER.sub("#", text)
    return _CAUSE_NUMBER.sub("#", text)


def _withheld(test) -> bool:
    """Passed, but its points rest on a check that failed (pipeline.score)."""
    return _status(test) == "passed" and number(test.get("score")) < number(test.get("max_score"))


def _word(test) -> str:
    return "passed, but earns no points" if _withheld(test) else STATUS_WORDS.get(_status(test), _status(test))


def _test_name(test) -> str:
    return clean(test.get("name")) or clean(test.get("id"))


def _timed_out(test) -> bool:
    flags = test.get("flags")
    return _status(test) == "timeout" or (isinstance(flags, list) and "timeout" in flags)


def _order(test) -> float:
    """When the test ended among its runner's tests (suites.result_of);
    an unknown moment comes after every known one."""
    order = test.get("order")
    return float(order) if isinstance(order, int) and not isinstance(order, bool) else math.inf


def _in_happening_order(rows) -> list:
    """Rubric order, except that the time-outs, in the places rubric order
    gives them, come in the order they happened, as `make test` lists them
    (order_failures in tests/public/support/lab_report.c): a runner's calls
    get a shorter limit once one has timed out, so the first time-out is
    the one that tells the most, and it leads its cause. Other failures keep
    rubric order, which two gradings of one submission share (the order in
    which tests running side by side end is not theirs to share)."""
    slots = [i for i, (test, _, _) in enumerate(rows) if _timed_out(test)]
    happened = sorted((rows[i] for i in slots), key=lambda row: _order(row[0]))
    ordered = list(rows)
    for slot, row in zip(slots, happened):
        ordered[slot] = row
    return ordered


def _causes(result, rows) -> tuple:
    """(causes, hidden): the visible tests that failed or earn nothing,
    grouped by cause in the order of each cause's first test (rubric
    order, the time-outs in the order they happened: _in_happening_order),
    each cause a list of tests; and the hidden ones, as (test, ordinal),
    which are never grouped (their messages are not shown)."""
    causes, hidden = {}, []
    for test, _, ordinal in _in_happening_order(rows):
        if _status(test) == "passed" and not _withheld(test):
            continue
        if _masked(result, test):
            hidden.append((test, ordinal))
            continue
        causes.setdefault((_word(test), cause_key(_message(test))), []).append(test)
    return list(causes.values()), hidden


def _earned(test) -> str:
    return f"{points(test.get('score'))}/{points(test.get('max_score'))} points"


def _first_line(message) -> str:
    return cap(message.split("\n", 1)[0], FIRST_LINE_CAP) if message else "(no message)"


def _summary_blocks(result) -> list:
    """Before any test's output: per task its score and each cause of its
    failures once, with how many tests it fails."""
    items = []
    for task, rows in _tasks(_rows(result)).items():
        score, max_score, count, failing = _totals(rows)
        causes, hidden = _causes(result, rows)
        line = f"{_task_title(result, task)}: {points(score)} / {points(max_score)}, {_passed(count, failing)}"
        if causes:
            line += f"; {len(causes)} cause{'s' if len(causes) != 1 else ''} below"
        items.append(line)
        for number_, tests in enumerate(causes, 1):
            many = f" ({len(tests)} tests)" if len(tests) > 1 else ""
            items.append(f"{_task_title(result, task).split(':')[0]}, cause {number_}{many}: "
                         f"{_first_line(_message(tests[0]))}")
        if hidden:
            items.append(f"{_task_title(result, task).split(':')[0]}: {len(hidden)} hidden "
                         f"test{'s' if len(hidden) != 1 else ''} not passed")
    return [("h2", "Summary: each task and each cause of its failures"), ("list", items)] if items else []


def _task_blocks(result, task, rows, handout=None) -> list:
    score, max_score, count, failing = _totals(rows)
    blocks = [("h2", f"{_task_title(result, task)}: {points(score)} / {points(max_score)}")]
    blocks.append(("p", _passed(count, failing).capitalize() + "."))

    if not failing and not any(_withheld(t) for t, _, _ in rows):
        return blocks
    causes, hidden_rows = _causes(result, rows)
    hidden = [f"Hidden test {ordinal} failed ({_word(test)}, {_earned(test)})" for test, ordinal in hidden_rows]
    for tests in causes:
        first = tests[0]
        blocks.append(("h3", f"{_test_name(first)}: {_word(first)}, {_earned(first)}"))
        message = _message(first)
        blocks.append(("code", message) if message else ("p", "(no message)"))
        blocks += _handout_links(message, handout)
        if len(tests) > 1:
            others = ", ".join(f"{_test_name(t)} ({_earned(t)})" for t in tests[1:])
            blocks.append(("p", f"The same cause (this message but for its positions and numbers) "
                                f"fails {len(tests) - 1} more test{'s' if len(tests) > 2 else ''}: {others}."))
    if hidden:
        when = HIDDEN_WHEN.get(result.get("hidden_visibility"), "later")
        blocks += [("h3", "Hidden tests"), ("p", f"Their positions and messages are shown {when}."),
                   ("list", hidden)]
    return blocks


def _timing_blocks(result) -> list:
    checks = result.get("timing") or []
    if not checks:
        return []
    rows = []
    for check in checks:
        ratio = check.get("ratio")
        verdict = "passed" if check.get("passed") else (clean(check.get("outcome")) or "failed")
        rows.append([clean(check.get("position")), seconds(check.get("student_cpu")),
                     seconds(check.get("calibration_cpu")),
                     "-" if ratio is None else f"{number(ratio):.1f}x",
                     f"at most {points(check.get('budget_ratio'))}x", verdict])
    return [("h2", "Timing (Task 2)"),
            ("p", "CPU time of your solver and of the calibration solver (the yardstick of your "
                  "own `make test` timing checks) on the same position, in the same run. A "
                  "position passes when both answers are right and the ratio is within the budget."),
            ("table", ["Position", "Your CPU (s)", "Calibration CPU (s)", "Ratio", "Budget", "Result"], rows)]


def _memory_findings(result, files) -> list:
    """Findings merged by place ((kind, file, line, function) -> tasks),
    most useful first: errors before leaks, your files first."""
    merged = {}
    for entry in result.get("memory") or []:
        for finding in entry.get("findings") or []:
            key = (clean(finding.get("kind")), clean(finding.get("file")),
                   finding.get("line"), clean(finding.get("function")))
            merged.setdefault(key, (finding, []))[1].append(entry.get("task"))

    def rank(item):
        (kind, file, line, function), _ = item
        return (_MEMORY_RANK.get(kind, _FIRST_LEAK_RANK - 0.5), file not in files,
                file, number(line, math.inf), function)
    return sorted(merged.items(), key=rank)


def _memory_blocks(result) -> list:
    if not result.get("memory"):
        return []
    files = {clean(b.get("file")) for b in result.get("builds") or []}
    findings = _memory_findings(result, files)
    blocks = [("h2", "Memory (valgrind)")]
    unfinished = sorted({clean(e.get("task")) for e in result.get("memory") or []
                         if e.get("complete") is False}, key=str)
    if unfinished:
        # A missing or cut report never reads as "clean" (memcheck.py).
        blocks.append(("p", "The memory check could not run to the end for "
                            + ", ".join(f"Task {t}" for t in unfinished)
                            + ", so it cannot say that code is clean; see the memory tests above."))
    if not findings:
        if unfinished:
            return blocks
        return blocks + [("p", "valgrind found no invalid accesses and no leaks.")]
    for (kind, file, line, function), (finding, tasks) in findings[:MEMORY_SHOWN]:
        where = f"{file or 'unknown file'}:{clean(line) or '?'}" + (f" in {function}()" if function else "")
        in_tasks = ", ".join(f"Task {clean(t)}" for t in sorted(set(tasks), key=str))
        blocks.append(("h3", f"{MEMORY_KINDS.get(kind, kind or 'Finding')} at {where}"))
        blocks.append(("p", f"{clean(finding.get('what'), MESSAGE_CAP)} (seen in {in_tasks})"))
        stack = [clean(frame) for frame in (finding.get("stack") or [])[:STACK_FRAMES]]
        if stack:
            blocks.append(("code", "\n".join(stack)))
    if len(findings) > MEMORY_SHOWN:
        blocks.append(("p", f"... and {len(findings) - MEMORY_SHOWN} more findings: run make memcheck."))
    return blocks


def _safe_href(target) -> str | None:
    """A relative link inside the output directory, or None."""
    target = clean(target).strip()
    if (not target or "://" in target or target.startswith(("/", "\\")) or ".." in target.split("/")
            or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target)):
        return None
    return urllib.parse.quote(target, safe="/#._-~")


def _coverage_blocks(result) -> list:
    coverage = result.get("coverage")
    if not coverage:
        return []
    if coverage.get("stopped"):   # its budget ran out (coverage.py)
        return [("h2", "Coverage"), ("p", clean(coverage["stopped"]))]
    text = f"The tests ran {points(coverage.get('line_percent'))}% of the lines of your files"
    if coverage.get("branch_percent") is not None:
        text += f" and {points(coverage.get('branch_percent'))}% of their branches"
    blocks = [("h2", "Coverage"), ("p", text + ".")]
    href = _safe_href(coverage.get("html"))
    if href:
        blocks.append(("link", "Line by line:", "the coverage report", href))
    return blocks


def _md_inline(text, line_start=True) -> str:
    """One line of Markdown that renders as exactly `text`: no markup, no
    HTML; at the start of a line, not a list item or a heading either."""
    text = _MD_SPECIAL.sub(r"\\\1", " ".join(sanitize(text).split()))
    if not line_start:
        return text
    if text[:1] in ("#", "+", "-", "="):
        return "\\" + text
    return _MD_ORDERED.sub(r"\1\\\2", text)


def _md_code(text) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def render_markdown(blocks) -> str:
    out = []
    for kind, *args in blocks:
        if kind in ("h1", "h2", "h3"):
            out.append("#" * int(kind[1]) + " " + _md_inline(args[0]))
        elif kind == "lead":   # the score, then a note beside it (the raw score, when late)
            note = " " + _md_inline(args[1], False) if len(args) > 1 and args[1].strip() else ""
            out.append(f"**{_md_inline(args[0])}**{note}")
        elif kind == "p":
            out.append(_md_inline(args[0]))
        elif kind == "list":
            out.append("\n".join(f"- {_md_inline(item)}" for item in args[0]))
        elif kind == "code":
            out.append(_md_code(args[0]))
        elif kind == "table":
            header, rows = args
            lines = ["| " + " | ".join(_md_inline(h, False) for h in header) + " |",
                     "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(_md_inline(c, False) for c in row) + " |" for row in rows]
            out.append("\n".join(lines))
        elif kind == "link":
            text, label, href = args
            out.append(f"{_md_inline(text)} [{_md_inline(label)}]({href})")
    return "\n\n".join(out) + "\n"


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _html_inline(text: str) -> str:
    """Text as HTML: escaped, and a `span` in backticks (a command or a
    file the message names, as in feedback.md) shown as code, not as
    literal backticks."""
    return _CODE_SPAN.sub(r"<code>\1</code>", html.escape(text))


def render_html(blocks) -> str:
    e = _html_inline
    body = []
    for kind, *args in blocks:
        if kind in ("h1", "h2", "h3", "p"):
            body.append(f"<{kind}>{e(args[0])}</{kind}>")
        elif kind == "lead":
            body.append(f'<p class="lead">{e("".join(args))}</p>')
        elif kind == "list":
            body.append("<ul>\n" + "\n".join(f"<li>{e(item)}</li>" for item in args[0]) + "\n</ul>")
        elif kind == "code":
            body.append(f"<pre>\n{html.escape(args[0])}</pre>")  # the parser drops that newline
        elif kind == "table":
            header, rows = args
            head = "".join(f"<th>{e(h)}</th>" for h in header)
            cells = "\n".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
            body.append(f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{cells}\n</tbody>\n</table>")
        elif kind == "link":
            text, label, href = args
            body.append(f'<p>{e(text)} <a href="{html.escape(href)}">{e(label)}</a></p>')
    return page.page("Grundy lab: autograder feedback", "\n".join(body), STYLE)


# ---- writing -----------------------------------------------------------------

def handout_base(out_dir: str, handout: str | None) -> str | None:
    """Where the feedback links handout sections: $GRUNDY_HANDOUT_URL when it
    is an http(s) address; else, when `handout` (the rendered handout, a
    trusted file of the grader's) exists, a copy of it written into out_dir;
    else None."""
    url = os.environ.get("GRUNDY_HANDOUT_URL", "").strip()
    if _HANDOUT_URL.fullmatch(url):
        return url
    if handout is None or not os.path.isfile(handout):
        return None
    with open(handout, "rb") as f:
        safefs.write_atomic(os.path.join(out_dir, HANDOUT_COPY), f.read())
    return HANDOUT_COPY


def write_reports(result: dict, out_dir: str, handout: str | None = None) -> None:
    """Writes results.json, junit.xml, feedback.md and feedback.html of
    `result` (the grader's result model) into out_dir, each atomically.
    results.json goes first: it is the one Gradescope needs. `handout` is
    the rendered handout to link sections to (see handout_base)."""
    os.makedirs(os.path.join(out_dir, "logs"), exist_ok=True)
    result = dict(result)
    if "handout_base" not in result:   # kept, so the calendar renders the same links
        result["handout_base"] = handout_base(out_dir, handout)
    results = json.dumps(gradescope_results(result), indent=2, ensure_ascii=False, allow_nan=False)
    safefs.write_atomic(os.path.join(out_dir, "results.json"), (results + "\n").encode("utf-8"))
    safefs.write_atomic(os.path.join(out_dir, "junit.xml"), junit_xml(result))
    safefs.write_atomic(os.path.join(out_dir, MODEL_FILE),
                        json.dumps(result, default=str).encode("ascii"))  # NaN kept: the renderer cleans it
    blocks = feedback_blocks(result, result["handout_base"])
    safefs.write_atomic(os.path.join(out_dir, "feedback.md"), render_markdown(blocks).encode("utf-8"))
    safefs.write_atomic(os.path.join(out_dir, "feedback.html"), render_html(blocks).encode("utf-8"))
