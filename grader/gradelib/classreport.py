"""The class's gradebook and report, from graded OUT directories (grader/class-report).

Input: one or more OUT directories of grader/grade-all (several = the
shards of one class). A student is a subdirectory with a safe name (see
batch.name_problem) holding results.json and/or batch-status.json. A
student found in two OUT directories is an error: shards are disjoint by
construction, and guessing which of two grades counts is not this tool's
job (regrade the student in its own OUT with grade-all instead).

Output, in REPORT_DIR, each file written atomically:

  gradebook.csv   student,total,taskN for each task of the term,flags,seed (and, when a
                  course calendar applied, raw_total,late_penalty,policy); one row per
                  student, sorted by name. flags are semicolon-separated
                  words, in this order: rejected:<what> (one per rejected
                  symbol or reason: rejected:fopen, rejected:constructor,
                  rejected:missing-grundy_new...), not_compiled, crash,
                  timeout, over_budget, leak, memory, copies_standin,
                  memo_suspect, time_cap, grader_error. A
                  grader_error row has empty points: there is no grade.
                  No timestamps: the same results give a byte-identical
                  file, so merged shards can be compared with one run (cmp).
  report.html     for staff: score histogram, per-task averages, flags,
                  per-test pass rates, the most common failure messages,
                  timing ratios to the calibration solver, coverage, and one
                  row per student linking its feedback.html. No JavaScript;
                  everything taken from results is HTML-escaped; only
                  relative links.
  charts/*.svg    the report's charts, generated SVG (title, desc, axis
                  labels), shown with <img>.

When a similarity report of grader/similarity is there (similarity.html
and similarity.csv in REPORT_DIR, or another directory given), report.html
links it and shows a histogram of each student's highest match.

Python 3.10+ standard library only.
"""

import csv
import html
import io
import math
import os
import re
import statistics
import urllib.parse

from . import batch, checks, config, page, reports, results, safefs

TASKS = tuple(config.TASKS)
TASK_MAX = {t.number: t.points for t in config.LAB.tasks}
# The grader's flags (results.FLAG_ORDER, a grader error last), then those of
# lab.ini's [checks]: a flag the grader can raise is a flag the report shows.
FLAG_ORDER = ["rejected", *(f for f in results.FLAG_ORDER if f != "grader_error"), "grader_error",
              *checks.flags()]
# A colour per task, in the term's order (a new task takes the next one).
PALETTE = ("#3b6fb6", "#d9822b", "#3a9a5b", "#8e5cb5", "#b5495b", "#4a9fa8", "#8a7a3a", "#5b6b8a",
           "#a05a2c", "#2f7d6d")
TASK_COLORS = {t.number: PALETTE[i % len(PALETTE)] for i, t in enumerate(config.LAB.all_tasks)}
FAILURES_SHOWN = 25
MESSAGE_SHOWN = 160
TIMING_EDGES = [0.5, 1, 2, 5, 10, 20]


class ReportError(Exception):
    """The report cannot be built (no OUT directory, a duplicate student...)."""


# ---- reading the graded directories -------------------------------------------

class Student:
    def __init__(self, name, directory):
        self.name = name
        self.dir = directory
        self.results = batch.read_json(os.path.join(directory, "results.json"))
        self.status = batch.read_json(os.path.join(directory, batch.STATUS_FILE))
        self.error = None
        if self.status and self.status.get("error"):
            self.error = reports.clean(self.status["error"], 500)
        elif self.results is None:
            self.error = "no readable results.json"
        elif not isinstance(self.results.get("tests"), list):
            self.error = "results.json has no tests"
            self.results = None
        if self.error:
            self.results = None

    @property
    def tests(self):
        return [t for t in (self.results or {}).get("tests", []) if isinstance(t, dict)]

    @property
    def seed(self):
        for source in ((self.results or {}).get("extra_data") or {}, self.status or {}):
            value = source.get("seed")
            if isinstance(value, int) and not isinstance(value, bool):
                return str(value)
        return ""


def collect(out_dirs):
    """Every graded student under out_dirs, sorted by name."""
    found = {}
    for out in out_dirs:
        if not os.path.isdir(out):
            raise ReportError(f"{out}: not a directory")
        for entry in sorted(os.listdir(out)):
            path = os.path.join(out, entry)
            if batch.name_problem(entry) or not os.path.isdir(path) or os.path.islink(path):
                continue
            if not any(os.path.isfile(os.path.join(path, f)) for f in ("results.json", batch.STATUS_FILE)):
                continue
            if entry in found:
                raise ReportError(f"student {entry} is in both {found[entry].dir} and {path}: "
                                  "merge shards that do not overlap")
            found[entry] = Student(entry, path)
    return [found[name] for name in sorted(found)]


# ---- per student: points and flags ----------------------------------------------

def _tags(test):
    tags = test.get("tags")
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def _task(test):
    for tag in _tags(test):
        if re.fullmatch(r"task[0-9]+", tag):
            return int(tag[4:])
    return None


def _output(test):
    return reports.sanitize(test.get("output"))


def _failed(test):
    return test.get("status") != "passed"


def task_points(student):
    points = {task: 0.0 for task in TASKS}
    for test in student.tests:
        task = _task(test)
        if task in points:
            points[task] += reports.number(test.get("score"))
    return points


def flags(student):
    """The student's flags, as the grader computed them (results.json's
    extra_data.flags, see gradelib/results.py): never parsed from messages."""
    if student.error:
        return ["grader_error"]
    extra = (student.results or {}).get("extra_data") or {}
    found = [reports.sanitize(f) for f in extra.get("flags") or [] if isinstance(f, str)]
    # A rejected name is a symbol or a word; anything else in it is not ours.
    rejected = sorted({"rejected:" + re.sub(r"[^A-Za-z0-9_.-]", "_", f[len("rejected:"):])[:60]
                       for f in found if f.startswith("rejected:")})
    return rejected + [f for f in FLAG_ORDER[1:] if f in found]


def _points_text(value):
    return reports.points(round(value, 2))


def gradebook_rows(students):
    rows = []
    for s in students:
        if s.error:
            rows.append([s.name, "", *("" for _ in TASKS), ";".join(flags(s)), s.seed])
            continue
        tasks = task_points(s)
        rows.append([s.name, _points_text(reports.number(s.results.get("score"))),
                     *(_points_text(tasks[t]) for t in TASKS), ";".join(flags(s)), s.seed])
    return rows


def policy_of(student):
    """results.json's extra_data.policy (the course calendar, deadlines.py), or {}."""
    mark = ((student.results or {}).get("extra_data") or {}).get("policy")
    return mark if isinstance(mark, dict) else {}


def policy_cells(student):
    """raw_total, late_penalty, policy: the score before the calendar, what it
    took off, and why (how late, which extension, the submission limit)."""
    mark = policy_of(student)
    if student.error or not mark:
        return ["", "", ""]
    why = " ".join(reports.clean(mark.get(k), 400) for k in ("why", "limit") if mark.get(k))
    return [_points_text(reports.number(mark.get("raw_score", student.results.get("score")))),
            _points_text(reports.number(mark.get("penalty"))), why]


def gradebook_csv(students):
    """The columns above; with a course calendar in any result, three more at
    the end (policy_cells), so a class without one keeps the same file."""
    calendar = any(policy_of(s) for s in students)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "total", *(f"task{t}" for t in TASKS), "flags", "seed"]
                    + (["raw_total", "late_penalty", "policy"] if calendar else []))
    for s, row in zip(students, gradebook_rows(students)):
        writer.writerow(row + (policy_cells(s) if calendar else []))
    return buffer.getvalue()


# ---- class statistics --------------------------------------------------------------

def first_line(text):
    """The first non-empty line of a message, sanitized and capped: how a
    group of failures is shown."""
    line = next((l.strip() for l in reports.sanitize(text).splitlines() if l.strip()), "(no message)")
    return line if len(line) <= MESSAGE_SHOWN else line[:MESSAGE_SHOWN - 3] + "..."


def test_label(test):
    name = reports.sanitize(test.get("name")) or reports.sanitize(test.get("id")) or "?"
    name = re.sub(r"^Task [0-9]+ / ", "", name)
    return re.sub(r"^task[0-9]+_hidden::", "(hidden) ", name)


def pass_rates(students):
    """[(label, task, passed, count)] in the order tests first appear."""
    table = {}
    for s in students:
        for test in s.tests:
            key = (_task(test), test_label(test))
            entry = table.setdefault(key, [0, 0])
            entry[1] += 1
            entry[0] += 0 if _failed(test) else 1
    order = {key: i for i, key in enumerate(table)}
    keys = sorted(table, key=lambda k: (k[0] if k[0] is not None else 99, order[k]))
    return [(label, task, *table[(task, label)]) for task, label in keys]


def common_failures(students):
    """[(message, failures, students, example tests)] most frequent first:
    failures grouped by cause as the feedback groups them (reports.
    cause_key: the message without its positions, numbers and answers),
    each group shown by the first line of its first message."""
    groups = {}
    for s in students:
        for test in s.tests:
            if not _failed(test):
                continue
            output = _output(test)
            entry = groups.setdefault(reports.cause_key(output),
                                      {"shown": first_line(output), "count": 0, "students": set(), "tests": {}})
            entry["count"] += 1
            entry["students"].add(s.name)
            label = test_label(test)
            entry["tests"][label] = entry["tests"].get(label, 0) + 1
    ranked = sorted(groups.items(), key=lambda kv: (-kv[1]["count"], -len(kv[1]["students"]), kv[0]))
    out = []
    for _, entry in ranked:
        tests = sorted(entry["tests"], key=lambda t: (-entry["tests"][t], t))
        out.append((entry["shown"], entry["count"], len(entry["students"]), tests))
    return out


def timing_data(students):
    """{position: {"ratios": [...], "stopped": n, "other": n}} over students."""
    data = {}
    for s in students:
        board = {}
        for entry in (s.results or {}).get("leaderboard") or []:
            if isinstance(entry, dict) and str(entry.get("name", "")).startswith("CPU ratio "):
                board[reports.sanitize(entry["name"])[len("CPU ratio "):]] = reports.number(entry.get("value"))
        for test in s.tests:
            if "timing" not in _tags(test) or "timing::" not in str(test.get("name")):
                continue   # speed::taskN, the map's check, has no position of its own
            position = reports.sanitize(test.get("name")).rsplit("timing::", 1)[-1]
            entry = data.setdefault(position, {"ratios": [], "stopped": 0, "other": 0})
            if position in board:
                entry["ratios"].append(board[position])
            elif "stopped at its CPU budget" in _output(test):
                entry["stopped"] += 1
            else:
                entry["other"] += 1
    return data


def coverage_values(students):
    values = []
    for s in students:
        value = ((s.results or {}).get("extra_data") or {}).get("coverage_line_percent")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            values.append(float(value))
    return values


def ten_bins(values, top=100.0):
    """10 bins of width top/10, the last one including top."""
    counts = [0] * 10
    for v in values:
        i = min(9, max(0, int(v // (top / 10))))
        counts[i] += 1
    return counts


# ---- SVG charts ------------------------------------------------------------------

FONT = "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\""


def _x(text):
    return html.escape(reports.sanitize(text), quote=True)


def _nice_step(top, ticks=5):
    """An integer tick step (1, 2, 5, 10, 20, ...) giving at most about `ticks` ticks up to top."""
    step = 1
    while top / step > ticks:
        for factor in (2, 5 / 2, 2):
            step = int(step * factor)
            if top / step <= ticks:
                break
    return step


def _svg(width, height, title, desc, body):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="title desc">\n'
            f'<title id="title">{_x(title)}</title>\n<desc id="desc">{_x(desc)}</desc>\n'
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def bar_chart(title, desc, categories, series, x_label, y_label, width=680, height=340):
    """Vertical (grouped) bars: series = [(name, [count per category], color)]."""
    left, right, top, bottom = 60, 16, 40, 70
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max([max(values) for _, values, _ in series if values] + [0])
    step = _nice_step(max(peak, 1))
    y_top = max(step, math.ceil(max(peak, 1) / step) * step)
    body = [f'<text x="{width / 2:.0f}" y="22" text-anchor="middle" font-size="15" '
            f'font-weight="bold" {FONT}>{_x(title)}</text>']
    # grid and y ticks
    value = 0
    while value <= y_top + 1e-9:
        y = top + plot_h - plot_h * value / y_top
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                    f'stroke="#dddddd" stroke-width="1"/>')
        body.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="12" '
                    f'{FONT}>{value:g}</text>')
        value += step
    slot = plot_w / max(len(categories), 1)
    group = slot * 0.8
    bar = group / max(len(series), 1)
    for i, category in enumerate(categories):
        x0 = left + i * slot + (slot - group) / 2
        for j, (name, values, color) in enumerate(series):
            count = values[i] if i < len(values) else 0
            h = plot_h * count / y_top
            x = x0 + j * bar
            body.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{max(bar - 1, 1):.1f}" '
                        f'height="{h:.1f}" fill="{color}"><title>{_x(category)}: {count} '
                        f'{_x(name)}</title></rect>')
            if count:
                body.append(f'<text x="{x + bar / 2:.1f}" y="{top + plot_h - h - 4:.1f}" '
                            f'text-anchor="middle" font-size="11" {FONT}>{count}</text>')
        body.append(f'<text x="{left + i * slot + slot / 2:.1f}" y="{top + plot_h + 16}" '
                    f'text-anchor="middle" font-size="11" {FONT}>{_x(category)}</text>')
    # axes and their labels
    body.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#333333"/>')
    body.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
                f'stroke="#333333"/>')
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 30}" text-anchor="middle" '
                f'font-size="13" {FONT}>{_x(x_label)}</text>')
    body.append(f'<text x="16" y="{top + plot_h / 2:.0f}" text-anchor="middle" font-size="13" '
                f'transform="rotate(-90 16 {top + plot_h / 2:.0f})" {FONT}>{_x(y_label)}</text>')
    if len(series) > 1:
        x = left
        for name, _, color in series:
            body.append(f'<rect x="{x}" y="{height - 16}" width="12" height="12" fill="{color}"/>')
            body.append(f'<text x="{x + 16}" y="{height - 6}" font-size="12" {FONT}>{_x(name)}</text>')
            x += 26 + 7 * len(name)
    return _svg(width, height, title, desc, body)


def hbar_chart(title, desc, rows, x_label, legend, width=900):
    """Horizontal bars of fractions: rows = [(label, fraction 0..1, color, note)]."""
    left, right, top, row_h = 400, 70, 56, 17
    plot_w = width - left - right
    height = top + row_h * max(len(rows), 1) + 56
    bottom_axis = top + row_h * max(len(rows), 1)
    body = [f'<text x="{width / 2:.0f}" y="22" text-anchor="middle" font-size="15" '
            f'font-weight="bold" {FONT}>{_x(title)}</text>']
    x = left
    for name, color in legend:
        body.append(f'<rect x="{x}" y="32" width="12" height="12" fill="{color}"/>')
        body.append(f'<text x="{x + 16}" y="42" font-size="12" {FONT}>{_x(name)}</text>')
        x += 30 + 7 * len(name)
    for pct in range(0, 101, 20):
        gx = left + plot_w * pct / 100
        body.append(f'<line x1="{gx:.1f}" y1="{top}" x2="{gx:.1f}" y2="{bottom_axis}" '
                    f'stroke="#dddddd"/>')
        body.append(f'<text x="{gx:.1f}" y="{bottom_axis + 16}" text-anchor="middle" font-size="11" '
                    f'{FONT}>{pct}%</text>')
    for i, (label, fraction, color, note) in enumerate(rows):
        y = top + i * row_h
        shown = label if len(label) <= 60 else label[:57] + "..."
        body.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end" font-size="11" '
                    f'{FONT}>{_x(shown)}</text>')
        w = plot_w * max(0.0, min(1.0, fraction))
        body.append(f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{row_h - 4}" '
                    f'fill="{color}"><title>{_x(label)}: {_x(note)}</title></rect>')
        body.append(f'<text x="{left + w + 4:.1f}" y="{y + 12}" font-size="11" {FONT}>{_x(note)}</text>')
    body.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom_axis}" stroke="#333333"/>')
    body.append(f'<line x1="{left}" y1="{bottom_axis}" x2="{left + plot_w}" y2="{bottom_axis}" '
                f'stroke="#333333"/>')
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{bottom_axis + 38}" text-anchor="middle" '
                f'font-size="13" {FONT}>{_x(x_label)}</text>')
    return _svg(width, height, title, desc, body)


def _range_labels(width, top):
    return [f"{int(i * width)}-{int((i + 1) * width)}" for i in range(int(top // width))]


def charts(students):
    """{file name: (svg text, alt text)}."""
    graded = [s for s in students if not s.error]
    totals = [reports.number(s.results.get("score")) for s in graded]
    out = {}
    labels = _range_labels(10, 100)
    out["scores.svg"] = (bar_chart(
        "Total scores", f"Histogram of the total scores of {len(totals)} graded students, "
        "in bins of 10 points (the last bin includes 100).",
        labels, [("students", ten_bins(totals), "#3b6fb6")], "total score (out of 100)",
        "students"), f"Histogram of total scores: {', '.join(f'{l}: {c}' for l, c in zip(labels, ten_bins(totals)))}")

    rates = pass_rates(graded)
    rows = [(label, passed / count if count else 0.0, TASK_COLORS.get(task, "#888888"),
             f"{100 * passed / count:.0f}% ({passed}/{count})" if count else "-")
            for label, task, passed, count in rates]
    out["pass-rates.svg"] = (hbar_chart(
        "Pass rate per test", f"For each of the {len(rows)} tests, the share of the {len(graded)} "
        "graded students who passed it; bars colored by task.", rows,
        "students who passed the test (%)", [(f"Task {t}", TASK_COLORS.get(t, "#888888")) for t in TASKS]),
        "Bar chart of the pass rate of each test; the same numbers are in the table below.")

    timing = timing_data(graded)
    categories = ["< 0.5"] + [f"{a:g}-{b:g}" for a, b in zip(TIMING_EDGES, TIMING_EDGES[1:])] + \
        [f"> {TIMING_EDGES[-1]:g}", "stopped"]
    palette = ["#3b6fb6", "#d9822b", "#3a9a5b", "#8e5ea2", "#c0392b"]
    series = []
    for i, (position, entry) in enumerate(sorted(timing.items())):
        counts = [0] * len(categories)
        for ratio in entry["ratios"]:
            counts[sum(1 for edge in TIMING_EDGES if ratio >= edge)] += 1
        counts[-1] = entry["stopped"]
        series.append((position, counts, palette[i % len(palette)]))
    out["timing.svg"] = (bar_chart(
        "CPU time against the calibration solver", "For each timed position, how many students' "
        "solvers took a CPU time in each range of ratios to the calibration solver's (x times "
        "the calibration solver; 'stopped' = killed at the CPU budget).", categories,
        series or [("students", [0] * len(categories), "#3b6fb6")],
        "CPU time / calibration CPU time (ratio ranges, log-spaced)", "students"),
        "Grouped histogram of timing ratios per timed position; the numbers are in the table below.")

    coverage = coverage_values(graded)
    out["coverage.svg"] = (bar_chart(
        "Line coverage of the students' files", f"Histogram of the line coverage that the public "
        f"suites reach in the two files of {len(coverage)} students, in bins of 10%.",
        [f"{l}%" for l in labels], [("students", ten_bins(coverage), "#3a9a5b")],
        "lines of grundy_position.c and grundy_solver.c run by the tests (%)", "students"),
        f"Histogram of line coverage: {', '.join(f'{l}%: {c}' for l, c in zip(labels, ten_bins(coverage)))}")
    return out


# ---- the similarity report of grader/similarity, when there is one --------------

def similarity_highest(similarity_dir):
    """{student: highest pair score in %} from similarity.csv, or None when
    similarity_dir holds no similarity report."""
    path = os.path.join(similarity_dir, "similarity.csv")
    if not (os.path.isfile(path) and os.path.isfile(os.path.join(similarity_dir, "similarity.html"))):
        return None
    best = {}
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for row in csv.DictReader(handle):
            score = (reports.number(row.get("score"), default=None)
                     if row.get("student_b") and not row.get("reference") else None)
            if score is None:
                continue   # a skipped file's row, or one against the stand-in map or the stubs
            for name in (row.get("student_a"), row.get("student_b")):
                best[name] = max(best.get(name, 0.0), score)
    return best


def similarity_chart(best):
    """(svg, alt) of the histogram of each student's highest match."""
    labels = [f"{l}%" for l in _range_labels(10, 100)]
    counts = ten_bins(list(best.values()))
    return (bar_chart("Highest similarity per student", f"Histogram of the highest similarity score of "
                      f"each of {len(best)} students with any other student (sim_c), in bins of 10%.",
                      labels, [("students", counts, "#c0392b")], "highest score with another student (%)",
                      "students"),
            f"Histogram of highest similarity: {', '.join(f'{l}: {c}' for l, c in zip(labels, counts))}")


def similarity_section(link, alt):
    e = html.escape
    return ('<h2 id="similarity">Similarity</h2>\n'
            f'<p>The <a href="{e(link)}">similarity report</a> compares every pair of students\' files '
            "(sim_c, given code removed). A match is a reason to look, not a verdict.</p>\n"
            f'<img src="charts/similarity.svg" alt="{e(alt)}" width="680" height="340">')


# ---- report.html -----------------------------------------------------------------

STYLE = reports.STYLE + """
body{max-width:70em}
img{max-width:100%;height:auto;border:1px solid #e4e4e4;margin:.5em 0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.flags{font-size:.9em}
.small{font-size:.9em;color:#444}
table{margin:.5em 0 1em}
"""


def _href(target, report_dir):
    rel = os.path.relpath(target, report_dir)
    return urllib.parse.quote(rel.replace(os.sep, "/"), safe="/._-~@+")


def _table(header, rows, numeric=()):
    e = html.escape
    head = "".join(f'<th{" class=num" if i in numeric else ""}>{e(h)}</th>' for i, h in enumerate(header))
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            css = ' class="num"' if i in numeric else ""
            # a cell is text (escaped here) or ("html", markup built by this module)
            content = cell[1] if isinstance(cell, tuple) else e(str(cell))
            cells.append(f"<td{css}>{content}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body)
            + "\n</tbody>\n</table>")


def _stats(values):
    if not values:
        return "-", "-", "-", "-"
    return (reports.points(statistics.mean(values)), reports.points(statistics.median(values)),
            reports.points(min(values)), reports.points(max(values)))


def report_html(students, report_dir, sources, chart_files, similarity=None):
    """The page: one section after the other, then the students' table.
    chart_files: {chart file name: its alt text}; similarity: the path of
    similarity.html, or None when there is no similarity report."""
    graded = [s for s in students if not s.error]
    flag_lists = {s.name: flags(s) for s in students}
    parts = [*_summary_section(students, graded, sources),
             *_scores_section(graded, chart_files),
             *_flags_section(flag_lists),
             *_pass_rates_section(graded, chart_files),
             *_failures_section(graded),
             *_timing_section(graded, chart_files),
             *_challenge_section(graded),
             *_coverage_section(chart_files)]
    if similarity:
        parts.append(similarity_section(_href(similarity, report_dir), chart_files["similarity.svg"]))
    parts += _students_section(students, flag_lists, report_dir)
    return _page(parts)


CHALLENGE_SHOWN = 20


def challenge_rows(students):
    """[student, largest heap] for the students with a challenge figure,
    largest first (read from results.json's leaderboard)."""
    rows = []
    for s in students:
        for entry in (s.results or {}).get("leaderboard") or []:
            if isinstance(entry, dict) and entry.get("name") == reports.CHALLENGE_NAME:
                value = entry.get("value")
                if isinstance(value, int) and not isinstance(value, bool):
                    rows.append([s.name, value])
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def _challenge_section(graded):
    """The leaderboard's challenge (no points): the largest single heap each
    solver answered within the same CPU budget, the best first."""
    rows = challenge_rows(graded)
    if not rows:
        return []
    shown = rows[:CHALLENGE_SHOWN]
    return ['<h2 id="challenge">Challenge: the largest heap within the budget</h2>',
            '<p class="small">Not part of the points. Each solver answers single heaps from an empty '
            'memo, one heap larger each time, until one is not answered right within the same CPU '
            'budget (a multiple of the calibration solver in the same run).'
            + (f" The best {CHALLENGE_SHOWN} of {len(rows)}." if len(rows) > CHALLENGE_SHOWN else "")
            + "</p>",
            _table(["rank", "student", "largest heap"],
                   [[i + 1, name, value] for i, (name, value) in enumerate(shown)], numeric=(0, 2))]


def _summary_section(students, graded, sources):
    e = html.escape
    errors = len(students) - len(graded)
    mean, median, _, _ = _stats(_totals(graded))
    seeds = sorted({s.seed for s in students if s.seed}, key=lambda v: int(v))
    return ["<h1>Grundy lab: class report</h1>",
            f'<p class="lead">{len(students)} students, {len(graded)} graded'
            + (f", {errors} with a grader error" if errors else "")
            + f"; mean {mean}, median {median} (of 100)</p>",
            '<p class="small">From ' + ", ".join("this directory" if src == "." else
                                               f"<code>{e(src)}</code>" for src in sources)
            + (f"; seed{'s' if len(seeds) > 1 else ''} {e(', '.join(seeds))}" if seeds else "")
            + ". The gradebook is <a href=\"gradebook.csv\">gradebook.csv</a>.</p>"]


def _totals(graded):
    return [reports.number(s.results.get("score")) for s in graded]


def _chart(chart_files, name, sized=True):
    size = ' width="680" height="340"' if sized else ""
    return f'<img src="charts/{name}" alt="{html.escape(chart_files[name])}"{size}>'


def _scores_section(graded, chart_files):
    task_rows = []
    for task in TASKS:
        m, med, lo, hi = _stats([task_points(s)[task] for s in graded])
        task_rows.append([f"Task {task}", m, med, lo, hi, TASK_MAX[task]])
    task_rows.append(["Total", *_stats(_totals(graded)), 100])
    return ['<h2 id="scores">Scores</h2>', _chart(chart_files, "scores.svg"),
            _table(["", "mean", "median", "min", "max", "out of"], task_rows, numeric={1, 2, 3, 4, 5})]


def _flag_rank(word):
    """Flags in FLAG_ORDER's order (rejected:X by its base), unknown ones last."""
    base = word.split(":")[0]
    return (FLAG_ORDER.index(base) if base in FLAG_ORDER else 99, word)


def _flags_section(flag_lists):
    counts = {}
    for words in flag_lists.values():
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    table = (_table(["flag", "students"], [[w, counts[w]] for w in sorted(counts, key=_flag_rank)],
                    numeric={1})
             if counts else "<p>No student has a flag.</p>")
    return ['<h2 id="flags">Flags</h2>', table,
            '<p class="small">rejected:X: an object check refused a file (X: the symbol or '
            "reason); not_compiled: a file did not compile or is missing; crash, timeout: a "
            "test crashed or ran out of time; over_budget: a timing check went over its CPU "
            "budget; leak, memory: leaks, or invalid accesses, found by the tests or valgrind; "
            "copies_standin: grundy_position.c is mostly the public stand-in map "
            "(tests/public/standin/), to be looked at by hand; memo_suspect: the memo check "
            "passed, but the memory per position it measured is not a memo's (ballast?), to be "
            "looked at by hand; "
            "grader_error: the grader itself failed on this submission (see its "
            "logs/grade-all.txt); time_cap: the grading reached its time cap, so what did not "
            "run to the end failed: a slow or looping submission, or a machine that became busy "
            "mid-grading (regrade it on a quiet one).</p>"]


def _pass_rates_section(graded, chart_files):
    rows = [[task if task is not None else "-", label, passed, count,
             f"{100 * passed / count:.0f}%" if count else "-"]
            for label, task, passed, count in pass_rates(graded)]
    return ['<h2 id="tests">Pass rate per test</h2>', _chart(chart_files, "pass-rates.svg", sized=False),
            "<details>\n<summary>The same as a table</summary>\n"
            + _table(["task", "test", "passed", "of", "pass rate"], rows, numeric={2, 3, 4})
            + "\n</details>"]


def _failures_section(graded):
    failures = common_failures(graded)
    parts = ['<h2 id="failures">Most common failure messages</h2>',
             '<p class="small">Failing tests grouped by cause as the feedback groups them (the '
             "message without its positions, numbers and answers), each shown by the first line "
             f"of one of them; the {FAILURES_SHOWN} most frequent.</p>"]
    if not failures:
        return parts + ["<p>No test failed.</p>"]
    rows = [[count, who, message, ", ".join(tests[:3]) + (f" and {len(tests) - 3} more"
                                                         if len(tests) > 3 else "")]
            for message, count, who, tests in failures[:FAILURES_SHOWN]]
    return parts + [_table(["failures", "students", "message", "tests (most frequent first)"], rows,
                           numeric={0, 1})]


def _timing_section(graded, chart_files):
    rows = []
    for position, entry in sorted(timing_data(graded).items()):
        ratios = entry["ratios"]
        rows.append([position, len(ratios),
                     f"{statistics.median(ratios):.2f}" if ratios else "-",
                     f"{min(ratios):.2f}" if ratios else "-", f"{max(ratios):.2f}" if ratios else "-",
                     entry["stopped"], entry["other"]])
    return ['<h2 id="timing">Timing against the calibration solver</h2>', _chart(chart_files, "timing.svg"),
            _table(["position", "measured", "median ratio", "min", "max", "stopped at budget",
                    "not measured (not built, wrong answer, no search, crash)"],
                   rows, numeric={1, 2, 3, 4, 5, 6})]


def _coverage_section(chart_files):
    return ['<h2 id="coverage">Coverage</h2>', _chart(chart_files, "coverage.svg")]


def _students_section(students, flag_lists, report_dir):
    rows = [_student_row(s, flag_lists[s.name], report_dir) for s in students]
    header = students_header()
    if any(policy_of(s) for s in students):
        # The course calendar's figures, apart from the total (policy_cells).
        header += ["raw total", "late penalty", "why"]
        rows = [row + policy_cells(s) for row, s in zip(rows, students)]
    return ['<h2 id="students">Students</h2>',
            _table(header, rows, numeric=set(range(1, 2 + len(TASKS))))]


def students_header():
    """The students table's header: a column per task of the term, as
    _student_row writes its cells."""
    return ["student (feedback)", "total", *(f"task {t}" for t in TASKS), "flags", "coverage"]


def _student_row(s, words, report_dir):
    """A student's row: the name links its feedback page when there is one;
    a grader error has no points, only the error and a link to its log."""
    e = html.escape
    feedback = os.path.join(s.dir, "feedback.html")
    if os.path.isfile(feedback):
        link = ("html", f'<a href="{e(_href(feedback, report_dir))}">{e(s.name)}</a>')
    else:
        link = s.name
    if s.error:
        log = os.path.join(s.dir, "logs", "grade-all.txt")
        note = ("html", f'{e(s.error)} (<a href="{e(_href(log, report_dir))}">log</a>)'
                if os.path.isfile(log) else e(s.error))
        return [link, "", *("" for _ in TASKS), ("html", e(";".join(words))), note]
    tasks = task_points(s)
    coverage = ((s.results or {}).get("extra_data") or {}).get("coverage_line_percent")
    return [link, _points_text(reports.number(s.results.get("score"))),
            *(_points_text(tasks[t]) for t in TASKS),
            ("html", e("; ".join(words))),
            f"{reports.points(coverage)}%" if isinstance(coverage, (int, float)) else "-"]


def _page(parts):
    return page.page("Grundy lab: class report", "\n".join(parts), STYLE, images=True)


# ---- writing -----------------------------------------------------------------------

def build(out_dirs, report_dir, similarity_dir=None):
    """Writes gradebook.csv, charts/*.svg and report.html; returns the students.
    The similarity report is linked from similarity_dir (default: report_dir) if it is there."""
    out_dirs = [os.path.realpath(d) for d in out_dirs]
    report_dir = os.path.realpath(report_dir)
    twice = sorted({d for d in out_dirs if out_dirs.count(d) > 1})
    if twice:
        raise ReportError(f"{twice[0]} is given twice")
    try:
        return _build(out_dirs, report_dir, os.path.realpath(similarity_dir or report_dir))
    except OSError as error:
        # an unreadable OUT, a REPORT_DIR that is a file or not writable...
        raise ReportError(f"{error.filename or report_dir}: {error.strerror or error}") from None


def _build(out_dirs, report_dir, similarity_dir):
    students = collect(out_dirs)
    os.makedirs(os.path.join(report_dir, "charts"), exist_ok=True)
    safefs.write_atomic(os.path.join(report_dir, "gradebook.csv"), gradebook_csv(students).encode("utf-8"))
    made = charts(students)
    best = similarity_highest(similarity_dir)
    if best is not None:
        made["similarity.svg"] = similarity_chart(best)
    for name, (svg, _) in made.items():
        safefs.write_atomic(os.path.join(report_dir, "charts", name), svg.encode("utf-8"))
    sources = [os.path.relpath(d, report_dir) for d in out_dirs]
    page = report_html(students, report_dir, sources, {name: alt for name, (_, alt) in made.items()},
                       os.path.join(similarity_dir, "similarity.html") if best is not None else None)
    safefs.write_atomic(os.path.join(report_dir, "report.html"), page.encode("utf-8"))
    return students

