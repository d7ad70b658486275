"""The coverage report students download (OUT/coverage), written by the
trusted side from gcovr's detailed JSON, never gcovr's own HTML.

gcovr reads counters (.gcda) that the student process wrote itself (the
coverage policy lets it open and write files), so every count in them is
the program's choice: gcovr's HTML and Cobertura files print those counts
(hits="35473"), a channel that could carry any bytes, a secret included,
into what students download. Here each line of the submission's files
keeps one bit, ran or never ran, and each branch one bit, taken or not; the
text shown is root's own copy of the sources. A program can choose no more
than which of its lines and branches ran, which its code already does.

parse() never raises: a report of any other shape is (None, why), and the
coverage is then "not measured", never 0%.
"""

import html
import json
import math
import os
from xml.sax.saxutils import quoteattr

from . import config, page, safefs

COBERTURA = "cobertura.xml"   # GitLab's coverage report (the CI templates name it)
LINE_CAP = 100_000       # lines of one file
BRANCH_CAP = 64          # branches of one line


def parse(raw, sources):
    """({file: {"lines": {number: ran}, "branches": {number: (taken, total)}}}, "")
    from gcovr's --json report, for the files of `sources` ({file: [text
    lines]}, root's copies); or (None, why)."""
    try:
        files = _parse(json.loads(raw), sources)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
        return None, f"gcovr's report is malformed ({type(error).__name__}: {str(error)[:200]})"
    if not any(f["lines"] for f in files.values()):
        return None, "gcovr found no counters for the submission's files: the check could not run"
    return files, ""


def _parse(report, sources):
    files = {}
    for entry in report["files"]:
        name = entry["file"]
        if not isinstance(name, str) or os.path.basename(name) not in sources or \
                name not in (os.path.basename(name), "src/" + os.path.basename(name)):
            continue   # the given code or the reference: not the student's to see
        name = os.path.basename(name)
        text = sources[name]
        lines, branches = {}, {}
        for line in entry["lines"][:LINE_CAP]:
            number, count = _count(line["line_number"]), _count(line["count"])
            if not 1 <= number <= len(text):
                raise ValueError(f"line {number} is outside {name}")
            if line.get("gcovr/noncode") is True or line.get("gcovr/excluded") is True:
                continue
            lines[number] = lines.get(number, False) or count > 0
            taken = [_count(b["count"]) > 0 for b in line.get("branches", [])[:BRANCH_CAP]]
            if taken:
                before = branches.get(number, (0, 0))
                branches[number] = (before[0] + sum(taken), before[1] + len(taken))
        files[name] = {"lines": lines, "branches": branches}
    return files


def _count(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a count: {str(value)[:40]}")
    return value


def totals(files):
    """{"line_percent", "branch_percent", and the counts} over every file."""
    lines = [ran for f in files.values() for ran in f["lines"].values()]
    taken = sum(t for f in files.values() for t, _ in f["branches"].values())
    total = sum(n for f in files.values() for _, n in f["branches"].values())
    return {"lines_covered": sum(lines), "lines_valid": len(lines),
            "branches_covered": taken, "branches_valid": total,
            "line_percent": round(100.0 * sum(lines) / len(lines), 1) if lines else 0.0,
            "branch_percent": round(100.0 * taken / total, 1) if total else None}


def write(files, sources, out_dir):
    """OUT/coverage/index.html and cobertura.xml (GitLab's coverage in merge
    requests), each whole or not at all (safefs.write_atomic)."""
    os.makedirs(out_dir, exist_ok=True)
    for name, text in (("index.html", render_html(files, sources)),
                       (COBERTURA, render_cobertura(files))):
        safefs.write_atomic(os.path.join(out_dir, name), text)


def _rate(part, whole):
    return f"{part / whole:.4f}" if whole else "1.0"


def render_cobertura(files):
    every = totals(files)
    out = ['<?xml version="1.0" ?>',
           f'<coverage line-rate="{_rate(every["lines_covered"], every["lines_valid"])}" '
           f'branch-rate="{_rate(every["branches_covered"], every["branches_valid"])}" '
           f'lines-covered="{every["lines_covered"]}" lines-valid="{every["lines_valid"]}" '
           f'branches-covered="{every["branches_covered"]}" branches-valid="{every["branches_valid"]}" '
           'complexity="0" timestamp="0" version="grundy-grader">',
           "<sources><source>.</source></sources>", "<packages>",
           f'<package name="src" line-rate="{_rate(every["lines_covered"], every["lines_valid"])}" '
           f'branch-rate="{_rate(every["branches_covered"], every["branches_valid"])}" complexity="0">',
           "<classes>"]
    for name in sorted(files):
        f = files[name]
        ran = sum(f["lines"].values())
        taken = sum(t for t, _ in f["branches"].values())
        total = sum(n for _, n in f["branches"].values())
        out.append(f'<class name={quoteattr(name.replace(".", "_"))} filename={quoteattr("src/" + name)} '
                   f'line-rate="{_rate(ran, len(f["lines"]))}" branch-rate="{_rate(taken, total)}" '
                   'complexity="0"><methods/><lines>')
        for number in sorted(f["lines"]):
            hits = 1 if f["lines"][number] else 0
            if number in f["branches"]:
                t, n = f["branches"][number]
                out.append(f'<line number="{number}" hits="{hits}" branch="true" '
                           f'condition-coverage="{math.floor(100 * t / n)}% ({t}/{n})"/>')
            else:
                out.append(f'<line number="{number}" hits="{hits}" branch="false"/>')
        out.append("</lines></class>")
    out += ["</classes></package></packages></coverage>", ""]
    return "\n".join(out)


STYLE = """body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}
td,th{padding:0 .6em;text-align:left}pre{margin:0}.ran{background:#dfd}.never{background:#fdd}
.part{background:#ffd}.n{color:#888;text-align:right}"""


def render_html(files, sources):
    every = totals(files)
    e = html.escape
    branch = every["branch_percent"]
    out = ["<h1>Which lines of your files the public tests ran</h1>",
           f"<p>{every['lines_covered']} of {every['lines_valid']} lines ran ({every['line_percent']:g}%)"
           + (f"; {every['branches_covered']} of {every['branches_valid']} branches were taken "
              f"({branch:g}%)" if branch is not None else "") + ".</p>",
           "<p>Green: the line ran; red: it never ran; yellow: it ran, but not every way its "
           "branches can go. Coverage earns no points.</p>", "<ul>"]
    out += [f'<li><a href="#{e(name)}">{e(name)}</a></li>' for name in sorted(files)]
    out.append("</ul>")
    for name in sorted(files):
        f = files[name]
        out.append(f'<h2 id="{e(name)}">{e(name)}</h2><table>')
        for number, text in enumerate(sources[name], start=1):
            mark, css = "", ""
            if number in f["lines"]:
                taken, total = f["branches"].get(number, (0, 0))
                if not f["lines"][number]:
                    mark, css = "never ran", "never"
                elif taken < total:
                    mark, css = f"{taken}/{total} branches", "part"
                else:
                    mark, css = "ran", "ran"
            out.append(f'<tr class="{css}"><td class="n">{number}</td><td>{e(mark)}</td>'
                       f"<td><pre>{e(text)}</pre></td></tr>")
        out.append("</table>")
    return page.page("Coverage of your files", "\n".join(out), STYLE)


def read_sources(src_dir):
    """{file: [its lines]} of root's copies of the submission's files."""
    found = {}
    for name in config.SUBMISSION_FILES:
        try:
            raw = safefs.read_regular(os.path.join(src_dir, name), 2 << 20)
        except (safefs.Refused, OSError):
            continue
        found[name] = raw.decode("utf-8", "replace").splitlines()
    return found
