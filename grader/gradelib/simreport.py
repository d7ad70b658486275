"""Writes the similarity report: similarity.csv, similarity.html and one side-by-side page per flagged pair.

Files, in OUT, each written atomically (the pair pages are built in a
temporary directory that then replaces similarity-pairs/ by renames):

  similarity.csv     one row per pair of compared students, highest score
                     first: student_a, student_b, score (the larger of the
                     two percentages, given code and common passages
                     removed), a_in_b and b_in_a (percent of each one's
                     tokens found in the other), raw_score, raw_a_in_b,
                     raw_b_in_a (the same with only the given code removed),
                     flagged ("yes" or ""), why (how the rule decided, for
                     every pair), tokens_a, tokens_b (comparable tokens, given
                     code and common passages removed), runs
                     ("position:12-40=15-43[96]; ...": file, A's lines, B's
                     lines, tokens, after removal); then one row per student
                     file and reference entry (simcompare.against_references),
                     reference "yes": student_a, student_b the entry
                     ("[stand-in map]", "[stubs]"), a_in_b the share of the
                     file found in the entry, b_in_a the entry's in the file,
                     score the one the entry's rule reads, flagged, why, runs
                     the file; then one row per skipped file, with only
                     student_a and skipped ("grundy_solver.c: empty"; a file
                     over the token budget says so).
  similarity.html    the rule and this class's numbers (quartiles, fence,
                     floor); the flagged pairs, each with its scores, how it
                     was decided and a link to its page; the students
                     flagged against the reference entries; the common
                     passages that were ignored, with how many submissions hold each;
                     every student's highest match; the skipped files.
  similarity-pairs/N.html
                     the two students' files side by side, shared runs
                     highlighted, given code and common passages greyed out.

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

from . import config, page, reports, safefs, simcompare, simsources, standin

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
.c{color:#999;background:#eef}
.n{color:#888;user-select:none}
"""

def _e(text):
    return html.escape(reports.sanitize(text), quote=True)


def _page(title, parts):
    return page.page(reports.sanitize(title), "\n".join(parts), STYLE)


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


def similarity_csv(pairs, students, rule, matches=()):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student_a", "student_b", "score", "a_in_b", "b_in_a", "raw_score", "raw_a_in_b",
                     "raw_b_in_a", "flagged", "why", "tokens_a", "tokens_b", "runs", "skipped", "reference"])
    tokens = {s.name: s.tokens for s in students}
    for p in ranked(pairs):
        writer.writerow([p.a, p.b, p.score, p.a_in_b, p.b_in_a, p.raw_score, p.raw_a_in_b, p.raw_b_in_a,
                         "yes" if rule.flagged(p.score) else "", rule.why(p.score), tokens[p.a], tokens[p.b],
                         _runs_text(p), "", ""])
    for m in sorted(matches, key=lambda m: (-m.score, m.student, m.entry, m.kind)):
        writer.writerow([m.student, m.entry, m.score, m.student_in_entry, m.entry_in_student, "", "", "",
                         "yes" if m.flagged else "", m.why, "", "", SHORT[m.kind], "", "yes"])
    for name, file, why in skipped_rows(students):
        writer.writerow([name, "", "", "", "", "", "", "", "", "", "", "", "", f"{file}: {why}", ""])
    return buffer.getvalue()


def reference_section(matches):
    parts = ['<h2 id="reference">The stand-in map and the stubs</h2>',
             "<p>Every student can read the public stand-in map (tests/public/standin, which the grader "
             "links when a map fails Task 0) and the stubs, so each student's file is compared with them "
             "too, by the grader's own copy check (tokens the compiler sees, names by kind, empty "
             "statements and code under #if 0 dropped; fingerprints as MOSS takes them). A file holding "
             f"at least {100 * standin.THRESHOLD:g}% of the stand-in map is flagged, as the grader flags "
             f"it (copies_standin); so is a file of which at least {100 * standin.THRESHOLD:g}% is the "
             "stub. Every share is in the CSV.</p>"]
    flagged = sorted((m for m in matches if m.flagged), key=lambda m: (m.entry, -m.score, m.student, m.kind))
    if not flagged:
        return parts + ["<p>No student's file is mostly the stand-in map or the stub.</p>"]
    return parts + [_table(["student", "file", "entry", "score", "decided"],
                           [[_e(m.student), _e(m.kind), _e(m.entry), f"{m.score:g}%", _e(m.why)] for m in flagged],
                           numeric={3})]


def highest(pairs):
    """{student: (score, other student)} over the pairs."""
    best = {}
    for p in pairs:
        for me, other in ((p.a, p.b), (p.b, p.a)):
            if me not in best or p.score > best[me][0]:
                best[me] = (p.score, other)
    return best


MAX_PASSAGE_LINES = 40    # a common passage is shown up to this many lines


def _passage_text(passage, by_name):
    name, first, last = passage.shown
    rows = by_name[name].texts[passage.kind].split("\n")[first - 1:min(last, first + MAX_PASSAGE_LINES - 1)]
    more = f"\n... ({last - first + 1} lines in all)" if last - first + 1 > MAX_PASSAGE_LINES else ""
    return f"<pre>{_e(chr(10).join(rows))}{_e(more)}</pre>"


def common_section(passages, students, common_share):
    compared = {kind: sum(1 for s in students if kind in s.texts) for kind in config.SUBMISSION_FILES}
    parts = ['<h2 id="common">Common passages (ignored)</h2>']
    if common_share is None or common_share >= 1:
        return parts + ["<p>Common passages were not removed (--common-share 1).</p>"]
    parts.append(f"<p>A passage held by more than {common_share:g} of the programs that have this file (and "
                 f"by at least {simcompare.COMMON_MIN_PROGRAMS}) follows from the handout, not from copying, so "
                 "it was removed from every file that holds it, like the given code, before the pairs were "
                 "scored. Programs, not submissions, are counted: submissions whose raw score is at least "
                 f"{simcompare.SAME_PROGRAM:g}% count as one program, so a group of copies cannot make its own "
                 "code common. Each passage is shown as one submission wrote it; the pair pages grey it out. "
                 "The raw score (before this removal) is kept for every pair in the tables and the CSV.</p>")
    if not passages:
        return parts + ["<p>No passage is held by that many submissions.</p>"]
    by_name = {s.name: s for s in students}
    rows = []
    for p in passages:
        name, first, last = p.shown
        rows.append([_e(p.kind), f"{len(p.holders)} of {compared[p.kind]} submissions ({p.programs} programs)",
                     f"{_e(name)}, lines {first}-{last}", _passage_text(p, by_name)])
    return parts + [_table(["file", "held by", "shown from", "passage"], rows)]


def index_html(pairs, students, rule, min_run, pages, passages=(), common_share=None, matches=()):
    flagged = [p for p in ranked(pairs) if rule.flagged(p.score)]
    compared = [s for s in students if s.texts]
    public = len({m.student for m in matches if m.flagged})
    over = [(n, f) for n, f, why in skipped_rows(students) if why == simsources.OVER_BUDGET]
    parts = ["<h1>Grundy lab: similarity report</h1>",
             f'<p class="lead">{len(flagged)} of {len(pairs)} pairs flagged; '
             f"{len(compared)} students compared; "
             f'<a href="#reference">{public} students flagged against the stand-in map or the stubs</a>'
             + (f'; <a href="#skipped">{len(over)} files over the budget, not compared: look at them by '
                "hand</a>" if over else "") + "</p>",
             f"<p><strong>{_e(CAUTION)}</strong></p>",
             f'<p class="small">Compared by Debian\'s similarity-tester (sim_c), which reads C as '
             f"tokens, so renaming and reformatting do not hide a copy; runs of at least {min_run[0]} "
             f"tokens count for the raw scores and the common passages, runs of at least {min_run[1]} "
             "for the scores once the common passages are removed; each file is compared with the same file of the other student; the code "
             "given in the stubs and the <a href=\"#common\">common passages</a> are removed first. "
             "A in B is the share of A's tokens found in B; a pair's score is the larger of the two; "
             "the raw score is the same with only the given code removed. Every pair is in "
             '<a href="similarity.csv">similarity.csv</a>.</p>',
             '<h2 id="rule">How pairs are flagged</h2>',
             f"<p>{_e(rule.text())}</p>",
             f'<p class="small">Quartiles of the {rule.pairs} pair scores: Q1 {rule.q1:g}%, Q3 {rule.q3:g}%. '
             "Honest solutions of a guided lab all look somewhat alike, so the rule asks which pairs stand "
             "out from this class, not which pass a fixed number; the floor keeps a class of honest "
             "solutions, whose scores are mostly 0 once the common passages are gone, from flagging "
             "small matches.</p>",
             '<h2 id="pairs">Flagged pairs</h2>']
    rows = []
    for p in flagged:
        page = pages.get((p.a, p.b))
        link = f'<a href="{PAGES_DIR}/{page}">side by side</a>' if page else "(not written: too many pairs)"
        rows.append([f"{p.score:g}%", f"{p.raw_score:g}%", _e(p.a), _e(p.b), f"{p.a_in_b:g}%", f"{p.b_in_a:g}%",
                     str(len(p.runs)), _e(rule.why(p.score)), link])
    parts.append(_table(["score", "raw", "A", "B", "A in B", "B in A", "runs", "decided", "view"], rows,
                        numeric={0, 1, 4, 5, 6})
                 if rows else "<p>No pair is flagged.</p>")
    parts += reference_section(matches)
    parts += common_section(passages, students, common_share)
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
    common = getattr(student, "common", {}).get(kind, set())
    out = []
    for number, row in enumerate(text.split("\n"), 1):
        css, title = "", ""
        if number in lines:
            css, title = ' class="m"', f' title="run {", ".join(map(str, sorted(lines[number])))}"'
        elif number in given:
            css, title = ' class="g"', ' title="given code (removed before comparing)"'
        elif number in common:
            css, title = ' class="c"', ' title="common to many submissions (removed before scoring)"'
        out.append(f'<span id="{prefix}{number}"{css}{title}><span class="n">{number:5d} </span>'
                   f"{_e(row) or ' '}</span>")
    return "<pre>" + "".join(out) + "</pre>"


def pair_html(pair, a, b, rule):
    runs = sorted(pair.runs.values(), key=lambda r: (config.SUBMISSION_FILES.index(r.kind), r.a_first, r.b_first))
    parts = [f"<h1>{_e(a.name)} and {_e(b.name)}</h1>",
             f'<p class="lead">score {pair.score:g}%: {pair.a_in_b:g}% of {_e(a.name)} is in '
             f"{_e(b.name)}, {pair.b_in_a:g}% of {_e(b.name)} is in {_e(a.name)} (raw score "
             f"{pair.raw_score:g}%)</p>",
             f"<p>Flagged: {_e(rule.why(pair.score))}. {_e(rule.text())}</p>",
             f"<p><strong>{_e(CAUTION)}</strong></p>",
             '<p class="small"><a href="../similarity.html">Back to the report</a>. Highlighted: the runs '
             "both share (after removal); grey: code given in the stubs, not compared; grey on blue: "
             "passages common to many submissions, not scored.</p>"]
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


def write(out_dir, pairs, students, rule, min_run, passages=(), common_share=None, matches=()):
    """Writes the three parts of the report into out_dir; rule: a simflags.Rule; matches:
    [simcompare.Match] against the reference entries."""
    os.makedirs(out_dir, exist_ok=True)
    by_name = {s.name: s for s in students}
    pages = {}
    built = tempfile.mkdtemp(prefix=f".{PAGES_DIR}.new-", dir=out_dir)
    try:
        os.chmod(built, 0o755)
        flagged = [p for p in ranked(pairs) if rule.flagged(p.score)][:MAX_PAGES]
        for number, p in enumerate(flagged, 1):
            name = f"{number:04d}.html"
            page = pair_html(p, by_name[p.a], by_name[p.b], rule)
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
    safefs.write_atomic(os.path.join(out_dir, "similarity.csv"), similarity_csv(pairs, students, rule, matches).encode("utf-8"))
    page = index_html(pairs, students, rule, min_run, pages, passages, common_share, matches)
    safefs.write_atomic(os.path.join(out_dir, "similarity.html"), page.encode("utf-8"))
