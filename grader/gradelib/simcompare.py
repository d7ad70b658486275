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

Percentages: sim_c -e -a compares each ordered pair of files in isolation,
and the runs of A against B do not overlap in A, so "A in B" is the tokens
of A's runs against B (both kinds) over all of A's tokens (both kinds,
given code removed). A pair's score is the larger of its two percentages:
a small file copied whole into a large one is 100% of the small one.

Python 3.10+ standard library only.
"""

import os
import re
import shutil
import subprocess

from . import config

SIM = "sim_c"
MIN_RUN = 24            # sim_c's own default: shorter shared runs are common idioms, not copying
GIVEN_RUN = 12          # a signature with its brace is about 10-15 tokens; given code is removed at this grain
SIM_TIMEOUT = 600       # seconds per sim_c run; 200 students take well under one
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
    """Two students (a before b by name), their percentages and their runs (A's lines first)."""

    def __init__(self, a, b):
        self.a, self.b = a, b
        self.matched_a = self.matched_b = 0
        self.runs = {}
        self.a_in_b = self.b_in_a = 0.0

    @property
    def score(self):
        return max(self.a_in_b, self.b_in_a)


def sim(args, cwd):
    """sim_c's output (text); SimError when it cannot run or fails."""
    try:
        done = subprocess.run([SIM, *args], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=SIM_TIMEOUT, check=False)
    except FileNotFoundError:
        raise SimError(f"{SIM} is not installed (Debian package similarity-tester; grader/install-deps)") from None
    except subprocess.TimeoutExpired:
        raise SimError(f"{SIM} took more than {SIM_TIMEOUT} s") from None
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


def given_lines(names, kind, workdir):
    """{file name: set of line numbers shared with the stub of this kind}."""
    stub = f"given-{kind}"
    shutil.copyfile(os.path.join(config.REPO, "student", kind), os.path.join(workdir, stub))
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


def compare(students, workdir, min_run=MIN_RUN):
    """Fills each student's .given ({file: set of given lines}) and .tokens
    (comparable tokens, both files); returns [Pair] for every two students
    with a file read, in name order."""
    matched, runs = {}, {}
    for student in students:
        student.given, student.tokens = {}, 0
    for k, kind in enumerate(config.SUBMISSION_FILES):
        os.makedirs(os.path.join(workdir, str(k)))
        owner = {}
        for i, student in enumerate(students):
            if kind in student.texts:
                name = f"{k}/{i:05d}.c"
                owner[name] = student
                _write(os.path.join(workdir, name), student.texts[kind])
        if not owner:
            continue
        given = given_lines(list(owner), kind, workdir)
        for name, student in owner.items():
            student.given[kind] = given[name]
            _write(os.path.join(workdir, name), blank(student.texts[kind], given[name]))
        tokens, found = parse(sim(["-n", "-e", "-a", "-s", "-r", str(min_run), "-w", WIDTH, *owner], workdir))
        for name, student in owner.items():
            student.tokens += tokens.get(name, 0)
        for a, a_first, a_last, b, b_first, b_last, n in found:
            if a not in owner or b not in owner or a == b:
                continue
            key = (owner[a].name, owner[b].name)
            matched[key] = matched.get(key, 0) + n
            runs.setdefault(key, []).append(Run(kind, a_first, a_last, b_first, b_last, n))
    return _pairs(students, matched, runs)


def _pairs(students, matched, runs):
    compared = [s for s in students if s.texts]
    by_name = {s.name: s for s in compared}
    pairs = []
    for i, a in enumerate(compared):
        for b in compared[i + 1:]:
            pair = Pair(a.name, b.name)
            pair.matched_a = matched.get((a.name, b.name), 0)
            pair.matched_b = matched.get((b.name, a.name), 0)
            pair.a_in_b = _percent(pair.matched_a, by_name[a.name].tokens)
            pair.b_in_a = _percent(pair.matched_b, by_name[b.name].tokens)
            for run in runs.get((a.name, b.name), []):
                pair.runs.setdefault(run.key(), run)
            for run in runs.get((b.name, a.name), []):
                pair.runs.setdefault(run.swapped().key(), run.swapped())
            pairs.append(pair)
    return pairs


def _percent(part, whole):
    return round(min(100.0, 100.0 * part / whole), 1) if whole else 0.0
