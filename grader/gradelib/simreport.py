"""Writes the similarity report: similarity.csv, similarity.html and one side-by-side page per flagged pair.

Files, in OUT, each written atomically (the pair pages are built in a
temporary directory that then replaces similarity-pairs/ by renames):

  similarity.csv     one row per pair of compared students, highest score
                     first: student_a, student_b, score (the larger of the
                     two percentages), a_in_b and b_in_a (percent of each
                     one's tokens found in the other), tokens_a, tokens_b
                     (comparable tokens, given code removed), runs
                     ("position:12-40=15-43[96]; ...": file, A's lines, B's
                     lines, tokens); then one row per skipped file, with only
                     student_a and skipped ("grundy_solver.c: empty").
  similarity.html    the pairs at or above the threshold, each linking its
                     page; every student's highest match; the skipped files.
  similarity-pairs/N.html
                     the two students' files side by side, shared runs
                     highlighted, given code greyed out.

Everything from a submission is sanitized and HTML-escaped; no JavaScript;
a Content-Security-Policy forbids scripts anyway.

Python 3.10+ standard library only.
"""

import contextlib
import csv
import html
import io
import os
import shutil
import tempfile

from . import config, reports

PAGES_DIR = "similarity-pairs"
MAX_PAGES = 500          # pair pages at most (the highest scores): a class of copies must not write 20,000
SHORT = {config.POSITION: "position", config.SOLVER: "solver"}

CAUTION = ("A match is a reason to look, not a verdict: students share the handout's algorithm, the "
           "API and the stubs (removed before comparing), and short common idioms are ignored, but "
           "two honest solutions can still be alike. Read the pair side by side, and talk to the "
           "students, before concluding anything.")

STYLE = reports.STYLE + """
body{max-width:96em}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.small{font-size:.9em;color:#444}
.side{width:100%;table-layout:fixed}
.side td{vertical-align:top;width:50%;padding:0}
.side pre{margin:0;border:0;font-size:.8em;line-height:1.35}
.side pre>span{display:block;min-height:1.35em}
.m{background:#ffd9a8}
.g{color:#999}
.n{color:#888;user-select:none}
"""

HEAD = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>{title}</title>\n<style>{style}</style>\n</head>\n<body>\n<main>\n")


def _e(text):
    return html.escape(reports.sanitize(text), quote=True)


def _page(title, parts):
    return (HEAD.replace("{title}", _e(title)).replace("{style}", STYLE)
            + "\n".join(parts) + "\n</main>\n</body>\n</html>\n")


def _table(header, rows, numeric=()):
    """rows of cells already escaped (markup allowed)."""
    head = "".join(f'<th{" class=num" if i in numeric else ""}>{_e(h)}</th>' for i, h in enumerate(header))
    body = ["<tr>" + "".join(f'<td{" class=num" if i in numeric else ""}>{cell}</td>'
                             for i, cell in enumerate(row)) + "</tr>" for row in rows]
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>"


def _runs_text(pair):
    ordered = sorted(pair.runs.values(), key=lambda r: (-r.tokens, r.key()))
    return "; ".join(f"{SHORT[r.kind]}:{r.a_first}-{r.a_last}={r.b_first}-{r.b_last}[{r.tokens}]"
                     for r in ordered)


def ranked(pairs):
    return sorted(pairs, key=lambda p: (-p.score, p.a, p.b))


def skipped_rows(students):
    return [(s.name, file, why) for s in students for file, why in sorted(s.skipped.items())]


def similarity_csv(pairs, students):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student_a", "student_b", "score", "a_in_b", "b_in_a", "tokens_a", "tokens_b", "runs",
                     "skipped"])
    tokens = {s.name: s.tokens for s in students}
    for p in ranked(pairs):
        writer.writerow([p.a, p.b, p.score, p.a_in_b, p.b_in_a, tokens[p.a], tokens[p.b], _runs_text(p), ""])
    for name, file, why in skipped_rows(students):
        writer.writerow([name, "", "", "", "", "", "", "", f"{file}: {why}"])
    return buffer.getvalue()


def highest(pairs):
    """{student: (score, other student)} over the pairs."""
    best = {}
    for p in pairs:
        for me, other in ((p.a, p.b), (p.b, p.a)):
            if me not in best or p.score > best[me][0]:
                best[me] = (p.score, other)
    return best


def index_html(pairs, students, threshold, min_run, pages):
    flagged = [p for p in ranked(pairs) if p.score >= threshold]
    compared = [s for s in students if s.texts]
    parts = ["<h1>Grundy lab: similarity report</h1>",
             f'<p class="lead">{len(flagged)} of {len(pairs)} pairs at or above {threshold:g}%; '
             f"{len(compared)} students compared</p>",
             f"<p><strong>{_e(CAUTION)}</strong></p>",
             f'<p class="small">Compared by Debian\'s similarity-tester (sim_c), which reads C as '
             f"tokens, so renaming and reformatting do not hide a copy; runs of at least {min_run} "
             "tokens count; each file is compared with the same file of the other student; the code "
             "given in the stubs is removed first. A in B is the share of A's tokens found in B; a "
             "pair's score is the larger of the two. Every pair is in "
             '<a href="similarity.csv">similarity.csv</a>.</p>',
             f'<h2 id="pairs">Pairs at or above {threshold:g}%</h2>']
    rows = []
    for p in flagged:
        page = pages.get((p.a, p.b))
        link = f'<a href="{PAGES_DIR}/{page}">side by side</a>' if page else "(not written: too many pairs)"
        rows.append([f"{p.score:g}%", _e(p.a), _e(p.b), f"{p.a_in_b:g}%", f"{p.b_in_a:g}%",
                     str(len(p.runs)), link])
    parts.append(_table(["score", "A", "B", "A in B", "B in A", "runs", "view"], rows, numeric={0, 3, 4, 5})
                 if rows else "<p>No pair reaches the threshold.</p>")
    parts.append('<h2 id="students">Highest match per student</h2>')
    best = highest(pairs)
    order = sorted(best, key=lambda name: (-best[name][0], name))
    parts.append(_table(["student", "highest score", "with"],
                        [[_e(n), f"{best[n][0]:g}%", _e(best[n][1])] for n in order], numeric={1})
                 if order else "<p>Fewer than two students could be compared.</p>")
    parts.append('<h2 id="skipped">Skipped files</h2>')
    skipped = skipped_rows(students)
    parts.append(_table(["student", "file", "why"], [[_e(n), _e(f), _e(w)] for n, f, w in skipped])
                 if skipped else "<p>Every file was read.</p>")
    return _page("Grundy lab: similarity report", parts)


def _code(student, kind, lines, prefix):
    """One file as <pre>, each line anchored; matched lines {line: run numbers} highlighted."""
    text = student.texts.get(kind)
    if text is None:
        return f"<p>{_e(student.skipped.get(kind, 'not read'))}</p>"
    given = student.given.get(kind, set())
    out = []
    for number, row in enumerate(text.split("\n"), 1):
        css, title = "", ""
        if number in lines:
            css, title = ' class="m"', f' title="run {", ".join(map(str, sorted(lines[number])))}"'
        elif number in given:
            css, title = ' class="g"', ' title="given code (removed before comparing)"'
        out.append(f'<span id="{prefix}{number}"{css}{title}><span class="n">{number:5d} </span>'
                   f"{_e(row) or ' '}</span>")
    return "<pre>" + "".join(out) + "</pre>"


def pair_html(pair, a, b, threshold):
    runs = sorted(pair.runs.values(), key=lambda r: (config.SUBMISSION_FILES.index(r.kind), r.a_first, r.b_first))
    parts = [f"<h1>{_e(a.name)} and {_e(b.name)}</h1>",
             f'<p class="lead">score {pair.score:g}%: {pair.a_in_b:g}% of {_e(a.name)} is in '
             f"{_e(b.name)}, {pair.b_in_a:g}% of {_e(b.name)} is in {_e(a.name)}</p>",
             f"<p><strong>{_e(CAUTION)}</strong></p>",
             f'<p class="small"><a href="../similarity.html">Back to the report</a> (threshold '
             f"{threshold:g}%). Highlighted: the runs both share; grey: code given in the stubs, "
             "not compared.</p>"]
    rows = []
    for i, r in enumerate(runs, 1):
        k = config.SUBMISSION_FILES.index(r.kind)
        rows.append([str(i), _e(r.kind), f'<a href="#a{k}-{r.a_first}">{r.a_first}-{r.a_last}</a>',
                     f'<a href="#b{k}-{r.b_first}">{r.b_first}-{r.b_last}</a>', str(r.tokens)])
    parts.append(_table(["run", "file", f"lines of {a.name}", f"lines of {b.name}", "tokens"], rows,
                        numeric={0, 4}) if rows else "<p>No shared run.</p>")
    for k, kind in enumerate(config.SUBMISSION_FILES):
        marks = {"a": {}, "b": {}}
        for i, r in enumerate(runs, 1):
            if r.kind == kind:
                for side, first, last in (("a", r.a_first, r.a_last), ("b", r.b_first, r.b_last)):
                    for line in range(first, last + 1):
                        marks[side].setdefault(line, set()).add(i)
        parts.append(f"<h2>{_e(kind)}</h2>")
        parts.append(f'<table class="side"><thead><tr><th>{_e(a.name)}</th><th>{_e(b.name)}</th></tr></thead>'
                     f'<tbody><tr><td>{_code(a, kind, marks["a"], f"a{k}-")}</td>'
                     f'<td>{_code(b, kind, marks["b"], f"b{k}-")}</td></tr></tbody></table>')
    return _page(f"Similarity: {a.name} and {b.name}", parts)


def _swap_in(out_dir, built):
    """Puts the freshly built pages directory in place of the old one, by renames."""
    final = os.path.join(out_dir, PAGES_DIR)
    trash = None
    if os.path.lexists(final):
        trash = tempfile.mkdtemp(prefix=f".{PAGES_DIR}.old-", dir=out_dir)
        os.rename(final, os.path.join(trash, "old"))
    os.rename(built, final)
    if trash:
        shutil.rmtree(trash, ignore_errors=True)


def write(out_dir, pairs, students, threshold, min_run):
    """Writes the three parts of the report into out_dir."""
    os.makedirs(out_dir, exist_ok=True)
    by_name = {s.name: s for s in students}
    pages = {}
    built = tempfile.mkdtemp(prefix=f".{PAGES_DIR}.new-", dir=out_dir)
    try:
        os.chmod(built, 0o755)
        flagged = [p for p in ranked(pairs) if p.score >= threshold][:MAX_PAGES]
        for number, p in enumerate(flagged, 1):
            name = f"{number:04d}.html"
            page = pair_html(p, by_name[p.a], by_name[p.b], threshold)
            # the directory is new and only renamed into place when complete: no per-file rename
            with open(os.path.join(built, name), "w", encoding="utf-8") as handle:
                handle.write(page)
            pages[(p.a, p.b)] = name
        _swap_in(out_dir, built)
        built = None
    finally:
        if built is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(built)
    reports.write_atomic(out_dir, "similarity.csv", similarity_csv(pairs, students).encode("utf-8"))
    page = index_html(pairs, students, threshold, min_run, pages)
    reports.write_atomic(out_dir, "similarity.html", page.encode("utf-8"))
