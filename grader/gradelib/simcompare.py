"""Compares every pair of students with Debian's similarity-tester (sim_c), the given code taken out.

sim_c reads C as tokens: identifiers, numbers and strings are each one
token kind, comments and layout are not tokens at all, so renaming and
reformatting do not hide a copy. A run is a stretch of at least MIN_RUN
tokens that two files share, reported with its line ranges.

Each kind of file is compared only with the same kind (every
grundy_position.c with every other, every grundy_solver.c likewise):
copying goes file by file, and a position file has nothing to share with
a solver.

Given code: every student started from the stubs in student/, and what is
left of them (signatures, an untouched stub body) is shared by everyone.
Before comparing, each student file is compared with its stub (the stub as
sim's "old" file, after the / separator) with runs of GIVEN_RUN tokens, and
the lines of those runs are blanked, so line numbers stay the same but the
tokens are gone. (Run with the stub in the same comparison instead, sim
would only add stub matches, not take them away.)

Common passages: the handout and the API guide every solution of this
lab to a similar shape (the loops over the entries, the split loop, the
is_p/is_n pair), so honest solutions share long runs with many others.
Like MOSS, a passage that many programs hold is taken to be guided, not
copied. The first comparison (the raw one) gives each pair a raw score;
students whose raw score is at least SAME_PROGRAM% are near-copies, and
near-copies, joined transitively, count as one program. (Counting
submissions instead, a copy ring bigger than the share would make its own
code "common" and hide itself: a model solution leaked to a third of the
class would vanish.) A line of a student's file is common when the raw
runs that cover it are held by more than COMMON_SHARE of the programs
that have this kind of file with anything left to compare (its own
program included), and by at least COMMON_MIN_PROGRAMS of them: a passage
two programs share is their matter, never "common". Common lines are
blanked as the given code is, and the files compared again; that second
comparison gives the pairs' scores. The grain is the line: a run's first
and last lines are blanked whole.

Two run lengths: common passages are found with runs of MIN_RUN tokens (a
passage must be long to count as shared guidance), and pairs are scored,
once the common passages are gone, with runs of SCORE_RUN tokens. Dead
code inserted every few statements cuts a copy's runs to 20-30 tokens; on
the test bed (tests/staff/ops/check-similarity) scoring at 24 leaves such a
copy of the most guided solution at 11%, under every independent pair's
top (27.1%); at 20 it scores 41.1% and the highest independent pair
35% (the code the compiler sees, as simsources gives it; 39.2% and 36.2%
on the raw text); at 16 or 18, dozens of independent pairs pass the floor.

Percentages: sim_c -e -a compares each ordered pair of files in isolation,
and the runs of A against B do not overlap in A, so "A in B" is the tokens
of A's runs against B (both kinds) over all of A's tokens (both kinds,
given code removed). A pair's score is the larger of its two percentages:
a small file copied whole into a large one is 100% of the small one. Each
pair keeps its raw percentages (before common passages are removed) too.

Reference entries (simsources.reference_entries): the public stand-in map
and the stubs are compared with each student's file of the same kind by
the copy check's fingerprints (ctokens.contained), not by sim_c and not
with each other: a file holding most of the stand-in map (its share at
least standin.THRESHOLD, the grader's own copies_standin rule) or made
mostly of the stub (at least as much of the file found in the stub) is
flagged as such.

sim_c reads each file as simsources gives it: the code the compiler sees,
within the token budget, so its input is bounded; each run is bounded in
time, CPU and memory too.

Python 3.10+ standard library only.
"""

import os
import re
import resource
import subprocess

from . import config, ctokens, simsources, standin

SIM = "sim_c"
MIN_RUN = 24            # sim_c's own default: shorter shared runs are common idioms, not copying
SCORE_RUN = 20          # once the common passages are removed, pairs are scored with runs this long
GIVEN_RUN = 12          # a signature with its brace is about 10-15 tokens; given code is removed at this grain
COMMON_SHARE = 0.3      # a passage in more than 30% of the class's programs is guided, not copied
COMMON_MIN_PROGRAMS = 3  # and never fewer than this many programs hold a common passage
SAME_PROGRAM = 80.0     # raw score (%) from which two submissions count as one program: honest pairs of
                        # this lab stay under 65% raw (issue 20), unchanged fixtures of the reference 95%+
SIM_TIMEOUT = config.LIMITS["similarity_run_seconds"]   # per sim_c run, wall and CPU ([limits])
SIM_MEMORY = 2 << 30    # bytes of address space per sim_c run: its inputs are bounded (simsources)
WIDTH = "400"           # sim's page width: wide enough that no file name is cut

RUN_LINE = re.compile(r"^(\S+): line (\d+)-(\d+)\s*\|(\S+): line (\d+)-(\d+)\s*\[(\d+)\]\s*$")
FILE_LINE = re.compile(r"^File (\S+): (\d+) tokens, (\d+) lines$")


class SimError(Exception):
    """sim_c is missing, failed or said something this module cannot read."""


class Run:
    """A shared stretch: in A's file lines a_first..a_last, in B's b_first..b_last."""

    def __init__(self, kind, a_first, a_last, b_first, b_last, tokens):
        self.kind, self.tokens = kind, tokens
        self.a_first, self.a_last, self.b_first, self.b_last = a_first, a_last, b_first, b_last

    def key(self):
        return (self.kind, self.a_first, self.a_last, self.b_first, self.b_last)

    def swapped(self):
        return Run(self.kind, self.b_first, self.b_last, self.a_first, self.a_last, self.tokens)


class Pair:
    """Two students (a before b by name), their percentages and their runs (A's lines first),
    after common passages are removed; raw_*: the same before."""

    def __init__(self, a, b):
        self.a, self.b = a, b
        self.matched_a = self.matched_b = 0
        self.runs = {}
        self.a_in_b = self.b_in_a = 0.0
        self.raw_a_in_b = self.raw_b_in_a = 0.0
        self.same_program = False

    @property
    def score(self):
        return max(self.a_in_b, self.b_in_a)

    @property
    def raw_score(self):
        return max(self.raw_a_in_b, self.raw_b_in_a)


class Match:
    """One student's file against a reference entry: entry_in_student and student_in_entry
    (percent of each one's fingerprints found in the other), score (the one the entry's rule
    reads), flagged and why."""

    def __init__(self, student, entry, kind, entry_in_student, student_in_entry):
        self.student, self.entry, self.kind = student, entry, kind
        self.entry_in_student = round(100 * entry_in_student, 1)
        self.student_in_entry = round(100 * student_in_entry, 1)
        standin_rule = entry == simsources.STANDIN_ENTRY
        share = entry_in_student if standin_rule else student_in_entry
        self.score, self.flagged = round(100 * share, 1), share >= standin.THRESHOLD
        limit = f"{'at least' if self.flagged else 'under'} {100 * standin.THRESHOLD:g}%"
        self.why = (f"{self.score:g}% of the stand-in map is in this file ({limit}, the grader's "
                    "copies_standin rule)" if standin_rule else
                    f"{self.score:g}% of this file is the stub ({limit}: "
                    f"{'little' if self.flagged else 'enough'} of the student's own)")


def against_references(students):
    """[Match] of every student's file with each reference entry that has that file."""
    found = []
    for entry in simsources.reference_entries():
        for student in students:
            for kind, tokens in student.tokens_of.items():
                if kind in entry.tokens_of:
                    theirs = entry.tokens_of[kind]
                    found.append(Match(student.name, entry.name, kind, ctokens.contained(theirs, tokens),
                                       ctokens.contained(tokens, theirs)))
    return found


class Passage:
    """A common passage: connected common lines of one kind of file; holders: the students
    whose files hold it, programs: how many programs they are; shown: (student, first line,
    last line) of one of them."""

    def __init__(self, kind, holders, programs, shown):
        self.kind, self.holders, self.programs, self.shown = kind, holders, programs, shown


def _bounded():
    """In sim_c's process, before it runs: its CPU and memory budget."""
    resource.setrlimit(resource.RLIMIT_CPU, (int(SIM_TIMEOUT), int(SIM_TIMEOUT)))
    resource.setrlimit(resource.RLIMIT_AS, (SIM_MEMORY, SIM_MEMORY))


def sim(args, cwd):
    """sim_c's output (text); SimError when it cannot run or fails (or outruns its budget)."""
    try:
        done = subprocess.run([SIM, *args], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=SIM_TIMEOUT, check=False, preexec_fn=_bounded)
    except FileNotFoundError:
        raise SimError(f"{SIM} is not installed (Debian package similarity-tester; grader/install-deps)") from None
    except subprocess.TimeoutExpired:
        raise SimError(f"{SIM} took more than {SIM_TIMEOUT:g} s") from None
    if done.returncode != 0:
        raise SimError(f"{SIM} exited with status {done.returncode}: "
                       + done.stderr.decode("utf-8", "replace").strip()[:500])
    return done.stdout.decode("utf-8", "replace")


def parse(output):
    """({file: tokens}, [(file_a, a_first, a_last, file_b, b_first, b_last, tokens)])."""
    tokens, runs = {}, []
    for line in output.splitlines():
        match = FILE_LINE.match(line)
        if match:
            tokens[match.group(1)] = int(match.group(2))
            continue
        match = RUN_LINE.match(line)
        if match:
            a, a1, a2, b, b1, b2, n = match.groups()
            runs.append((a, int(a1), int(a2), b, int(b1), int(b2), int(n)))
    return tokens, runs


def _write(path, text):
    with open(path, "w", encoding="utf-8", errors="replace", newline="") as handle:
        handle.write(text)


def stub_of(kind):
    """The stubs' reference entry (simsources.reference_entries)."""
    return simsources.reference_entries()[1]


def given_lines(names, kind, workdir):
    """{file name: set of line numbers shared with the stub of this kind}."""
    stub = f"given-{kind}"
    _write(os.path.join(workdir, stub), stub_of(kind).compiled[kind])
    _, runs = parse(sim(["-n", "-S", "-r", str(GIVEN_RUN), "-w", WIDTH, *names, "/", stub], workdir))
    lines = {name: set() for name in names}
    for a, a_first, a_last, b, _, _, _ in runs:
        if a in lines and b == stub:
            lines[a].update(range(a_first, a_last + 1))
    return lines


def blank(text, lines):
    """text with the given lines (1-based) emptied; line numbers are kept."""
    rows = text.split("\n")
    return "\n".join("" if i + 1 in lines else row for i, row in enumerate(rows))


class _Found:
    """What one comparison found: matched tokens and runs per ordered pair of names."""

    def __init__(self):
        self.matched, self.runs = {}, {}

    def add(self, a, b, run):
        key = (a, b)
        self.matched[key] = self.matched.get(key, 0) + run.tokens
        self.runs.setdefault(key, []).append(run)


def programs(students, raw):
    """{student name: program number}: near-copies (raw score >= SAME_PROGRAM), joined
    transitively, share a number."""
    names = [s.name for s in students if s.texts]
    parent = {name: name for name in names}

    def root(name):
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    tokens = {s.name: s.raw_tokens for s in students if s.texts}
    for (a, b), matched in raw.matched.items():
        if _percent(matched, tokens[a]) >= SAME_PROGRAM:
            parent[root(a)] = root(b)
    roots = sorted({root(name) for name in names})
    number = {r: i for i, r in enumerate(roots)}
    return {name: number[root(name)] for name in names}


def common_lines(owner, found, tokens, program, share):
    """({file name: {common line: the other students holding it}}): the lines held by more
    than share of the programs with this kind of file left to compare (and by at least
    COMMON_MIN_PROGRAMS), from the raw runs."""
    holders = {name: {} for name in owner}
    for a, a_first, a_last, b, _, _, _ in found:
        if a in owner and b in owner and a != b:
            lines = holders[a]
            for line in range(a_first, a_last + 1):
                lines.setdefault(line, set()).add(owner[b].name)
    present = len({program[s.name] for name, s in owner.items() if tokens.get(name, 0) > 0})
    need = max(share * present, COMMON_MIN_PROGRAMS - 1)
    common = {}
    for name, lines in holders.items():
        mine = owner[name].name
        common[name] = {line: others for line, others in lines.items()
                        if len({program[o] for o in others | {mine}}) > need}
    return common


def _blocks(lines):
    """Runs of consecutive line numbers: [(first, last)]."""
    blocks = []
    for line in sorted(lines):
        if blocks and line == blocks[-1][1] + 1:
            blocks[-1][1] = line
        else:
            blocks.append([line, line])
    return [tuple(b) for b in blocks]


def passages(kind, owner, found, common, program):
    """[Passage] of this kind: each student's blocks of common lines, joined when a
    raw run links a block of one student to a block of another."""
    block_of, parent = {}, {}
    for name, lines in common.items():
        for first, last in _blocks(lines):
            node = (name, first, last)
            parent[node] = node
            for line in range(first, last + 1):
                block_of[(name, line)] = node

    def root(node):
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, a_first, a_last, b, b_first, b_last, _ in found:
        mine = {block_of[(a, l)] for l in range(a_first, a_last + 1) if (a, l) in block_of}
        theirs = {block_of[(b, l)] for l in range(b_first, b_last + 1) if (b, l) in block_of}
        nodes = list(mine | theirs)
        for node in nodes[1:]:
            parent[root(node)] = root(nodes[0])
    groups = {}
    for node in parent:
        groups.setdefault(root(node), []).append(node)
    result = []
    for nodes in groups.values():
        holders = set()
        for name, first, last in nodes:
            holders.add(owner[name].name)
            for line in range(first, last + 1):
                holders |= common[name].get(line, set())
        holders = sorted(holders)
        # shown: the longest block (first by student name on a tie)
        name, first, last = min(nodes, key=lambda n: (-(n[2] - n[1]), owner[n[0]].name, n[1]))
        result.append(Passage(kind, holders, len({program[h] for h in holders}), (owner[name].name, first, last)))
    return result


def compare(students, workdir, min_run=MIN_RUN, common_share=COMMON_SHARE, score_run=SCORE_RUN):
    """Fills each student's .given and .common ({file: set of lines}), .tokens
    (comparable tokens, both files, given code and common passages removed),
    .raw_tokens (given code removed) and .program (its program number); returns
    ([Pair] for every two students with a file read, in name order; [Passage], the
    common passages). common_share None or >= 1: no common passage is removed. The raw
    scores and the common passages come from runs of min_run tokens, the scores from runs
    of score_run tokens (the raw comparison is reused when nothing is common and
    score_run == min_run)."""
    raw, final, found_passages = _Found(), _Found(), []
    for student in students:
        student.given, student.common, student.tokens, student.raw_tokens = {}, {}, 0, 0
    options = ["-n", "-e", "-a", "-s", "-r", str(min_run), "-w", WIDTH]
    kinds = []
    for k, kind in enumerate(config.SUBMISSION_FILES):
        os.makedirs(os.path.join(workdir, str(k)))
        owner = {}
        for i, student in enumerate(students):
            if kind in student.texts:
                name = f"{k}/{i:05d}.c"
                owner[name] = student
                _write(os.path.join(workdir, name), student.compiled[kind])
        if not owner:
            continue
        given = given_lines(list(owner), kind, workdir)
        for name, student in owner.items():
            student.given[kind] = given[name]
            _write(os.path.join(workdir, name), blank(student.compiled[kind], given[name]))
        tokens, found = parse(sim([*options, *owner], workdir))
        _record(raw, owner, found, kind)
        for name, student in owner.items():
            student.raw_tokens += tokens.get(name, 0)
        kinds.append((kind, owner, given, tokens, found))
    program = programs(students, raw)
    for student in students:
        student.program = program.get(student.name)
    for kind, owner, given, tokens, found in kinds:
        common = {name: {} for name in owner}
        if common_share is not None and common_share < 1:
            common = common_lines(owner, found, tokens, program, common_share)
        if any(common.values()):
            found_passages += passages(kind, owner, found, common, program)
            for name, student in owner.items():
                student.common[kind] = set(common[name])
                _write(os.path.join(workdir, name), blank(student.compiled[kind], given[name] | set(common[name])))
        if any(common.values()) or score_run != min_run:
            scoring = ["-n", "-e", "-a", "-s", "-r", str(score_run), "-w", WIDTH]
            tokens, found = parse(sim([*scoring, *owner], workdir))
        _record(final, owner, found, kind)
        for name, student in owner.items():
            student.tokens += tokens.get(name, 0)
    found_passages.sort(key=lambda p: (-p.programs, -len(p.holders), config.SUBMISSION_FILES.index(p.kind),
                                       p.shown))
    return _pairs(students, raw, final), found_passages


def _record(into, owner, found, kind):
    for a, a_first, a_last, b, b_first, b_last, n in found:
        if a in owner and b in owner and a != b:
            into.add(owner[a].name, owner[b].name, Run(kind, a_first, a_last, b_first, b_last, n))


def _pairs(students, raw, final):
    compared = [s for s in students if s.texts]
    by_name = {s.name: s for s in compared}
    pairs = []
    for i, a in enumerate(compared):
        for b in compared[i + 1:]:
            pair = Pair(a.name, b.name)
            pair.same_program = a.program == b.program
            pair.matched_a = final.matched.get((a.name, b.name), 0)
            pair.matched_b = final.matched.get((b.name, a.name), 0)
            pair.a_in_b = _percent(pair.matched_a, by_name[a.name].tokens)
            pair.b_in_a = _percent(pair.matched_b, by_name[b.name].tokens)
            pair.raw_a_in_b = _percent(raw.matched.get((a.name, b.name), 0), by_name[a.name].raw_tokens)
            pair.raw_b_in_a = _percent(raw.matched.get((b.name, a.name), 0), by_name[b.name].raw_tokens)
            for run in final.runs.get((a.name, b.name), []):
                pair.runs.setdefault(run.key(), run)
            for run in final.runs.get((b.name, a.name), []):
                pair.runs.setdefault(run.swapped().key(), run.swapped())
            pairs.append(pair)
    return pairs


def _percent(part, whole):
    return round(min(100.0, 100.0 * part / whole), 1) if whole else 0.0
