#!/usr/bin/env python3
"""tests/staff/grader/mutants.py - one-token mutants of the model solution.

A mutant is one small edit of reference/grundy_position.c or
reference/grundy_solver.c (FILES, Tasks 0-2), or of one of Part 2's files
(PART2_FILES: model_sources(files=ALL_FILES)), that makes the submission
worse, of one kind:

  negate  a negated condition: `==` <-> `!=`, `<` <-> `>=`, `>` <-> `<=`,
          `!x` -> `x`
  bound   a comparison or a bound off by one: `<` <-> `<=`, `>` <-> `>=`,
          an integer literal n -> n+1 or n-1
  drop    one `;`-terminated statement (a `break;` or `continue;` too)
          replaced by the empty statement `;`; never a `return` of a
          value (the caller would read an undetermined one)
  swap    two adjacent, different arguments of a call swapped
  index   a subscript `[e]` -> `[0]`
  slow    a busy loop (SPIN volatile increments, a few microseconds) as
          the first statement of one function

Every candidate is enumerated from the source's tokens (comments, strings
and preprocessor lines are skipped), so the list depends on the code only;
a seed picks from it (random.Random(seed): the kinds taken in turn, each
kind's candidates in a shuffled order), so a seed always gives the same
mutants. A mutant's id is its kind and a hash of its edit (stable across
seeds and runs); its description names the file, the line, the function
and what changed. Each edit is a character range of one file and its
replacement, so the mutants of two different functions apply together
(apply(); the grade of both must be at most the grade of either:
tests/staff/grader/check-monotone).

A candidate is kept only when it compiles with the lab's flags
(grader/lab.ini [lab] cflags and warnings, -Istudent) without a new
warning of UNDEFINED (-Wreturn-type, -Wmaybe-uninitialized, a pointer
passed as an integer...): a value that is not determined, so a grade that
could change from one grading to the next. Its behaviour is then
compared with the model's by a probe (mutant_probe.c: the API's answers,
Part 2's too when a Part 2 file is among the sources, the heap blocks left
live, a bounded run); a candidate the probe cannot tell
from the model is equivalent, skipped unless keep_equivalent is set, and
then reported as such. A slow mutant's answers are the model's by
construction: it differs in time, and is kept.

usage: python3 tests/staff/grader/mutants.py --seed S --count N --out DIR
                                             [--keep-equivalent] [--list]
writes DIR/ID/ (every reference/*.c, the two files mutated) per mutant and
DIR/mutants.json (id, kind, file, line, function, description,
equivalent); --list prints every candidate's count by kind and exits.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, asdict

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", ".."))
FILES = ("grundy_position.c", "grundy_solver.c")
PART2_FILES = ("grundy_winning.c", "grundy_nimbers.c", "grundy_table.c", "grundy_stack.c")
ALL_FILES = FILES + PART2_FILES
KINDS = ("negate", "bound", "drop", "swap", "index", "slow")
SPIN = 1000            # volatile increments of a slow mutant: about 3 us a call here
# A probe that uses more than 2 s of CPU (mutant_probe.c's main sets the
# limit) is a behaviour of its own ("timeout"): CPU, not wall time, so that
# a loaded machine draws the same mutants (the model's probe takes about
# 0.1 s). The wall limit is a backstop.
PROBE_WALL_SECONDS = 30
PROBE = os.path.join(os.path.dirname(os.path.realpath(__file__)), "mutant_probe.c")
GIVEN = ("grundy_given.c", "memo_table.c")
WRAP = "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free"   # the probe counts the blocks
CONTROL = ("if", "for", "while", "switch")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "_Alignof",
            "_Generic", "_Static_assert"}

TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?[uUlLfF]*)
  | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<punct>>>=|<<=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&^|]=|[][(){};,.?:~!<>=+\-*/%&^|])
""", re.S | re.X)


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    start: int
    end: int
    line: int


@dataclass(frozen=True)
class Mutant:
    id: str
    kind: str
    file: str
    function: str
    line: int
    start: int
    end: int
    replacement: str
    what: str
    equivalent: bool = False

    @property
    def description(self):
        return f"{self.file}:{self.line} in {self.function}: {self.what}"


def tokenize(text):
    """The tokens of C source text, without comments and preprocessor lines."""
    tokens, pos, line_start = [], 0, True
    while pos < len(text):
        if line_start and text[pos] == "#":          # a directive, with its continuations
            end = pos
            while True:
                end = text.find("\n", end)
                if end == -1:
                    end = len(text)
                    break
                if text[end - 1] != "\\":
                    break
                end += 1
            pos = end
            continue
        m = TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"cannot tokenize at line {text.count(chr(10), 0, pos) + 1}: {text[pos:pos + 20]!r}")
        kind = m.lastgroup
        if kind == "space":
            line_start = line_start or "\n" in m.group()
        elif kind != "comment":
            tokens.append(Tok(kind, m.group(), m.start(), m.end(), text.count("\n", 0, m.start()) + 1))
            line_start = False
        pos = m.end()
    return tokens


def matches(tokens):
    """Index of the bracket matching each bracket token."""
    pairs, stack = {}, []
    for i, t in enumerate(tokens):
        if t.text in "([{" and t.kind == "punct":
            stack.append(i)
        elif t.text in ")]}" and t.kind == "punct":
            j = stack.pop()
            pairs[i], pairs[j] = j, i
    if stack:
        raise ValueError("unbalanced brackets")
    return pairs


def functions(tokens, pairs):
    """(name, index of the body's `{`, index of its `}`) of each function definition."""
    found, i = [], 0
    while i < len(tokens):
        t = tokens[i]
        if t.text == "{" and i > 0 and tokens[i - 1].text == ")":
            open_paren = pairs[i - 1]
            found.append((tokens[open_paren - 1].text, i, pairs[i]))
            i = pairs[i] + 1
            continue
        if t.text in "({[" and t.kind == "punct":
            i = pairs[i] + 1
            continue
        i += 1
    return found


def _mutant(kind, file, function, line, start, end, replacement, what):
    digest = hashlib.sha1(f"{file}:{start}:{end}:{replacement}".encode()).hexdigest()[:6]
    return Mutant(f"{kind}-{digest}", kind, file, function, line, start, end, replacement, what)


NEGATE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
BOUND = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}


def _literal(text, delta):
    body = text.rstrip("uUlL")
    suffix = text[len(body):]
    value = int(body, 0) + delta
    if value < 0 or "." in body:
        return None
    return (hex(value) if body[:2].lower() == "0x" else str(value)) + suffix


def _statement_start(tokens, pairs, semi, body_open):
    """Index of the first token of the statement that the `;` at semi ends."""
    i = semi - 1
    while i > body_open:
        t = tokens[i]
        if t.text in (";", "{") or t.text == "else":
            return i + 1
        if t.text == ")":
            opener = pairs[i]
            if tokens[opener - 1].text in CONTROL:
                return i + 1
            i = opener - 1
            continue
        if t.text == "]":
            i = pairs[i] - 1
            continue
        if t.text == "}":
            before = tokens[pairs[i] - 1]
            literal = before.text == "=" or (before.text == ")" and
                                             tokens[pairs[pairs[i] - 1] - 1].text not in CONTROL)
            if literal:                                   # an initializer or a compound literal
                i = pairs[i] - 1
                continue
            return i + 1
        i -= 1
    return body_open + 1


def candidates(file, text):
    """Every mutant of one file's text, in the order of the file."""
    tokens = tokenize(text)
    pairs = matches(tokens)
    found = []
    for name, body_open, body_close in functions(tokens, pairs):
        body = range(body_open + 1, body_close)
        for i in body:
            t = tokens[i]
            if t.kind == "punct" and t.text in NEGATE:
                found.append(_mutant("negate", file, name, t.line, t.start, t.end, NEGATE[t.text],
                                     f"`{t.text}` -> `{NEGATE[t.text]}`"))
            if t.kind == "punct" and t.text == "!":
                found.append(_mutant("negate", file, name, t.line, t.start, t.end, "",
                                     f"`!{tokens[i + 1].text}` -> `{tokens[i + 1].text}`"))
            if t.kind == "punct" and t.text in BOUND:
                found.append(_mutant("bound", file, name, t.line, t.start, t.end, BOUND[t.text],
                                     f"`{t.text}` -> `{BOUND[t.text]}`"))
            if t.kind == "number":
                for delta in (1, -1):
                    new = _literal(t.text, delta)
                    if new is not None:
                        found.append(_mutant("bound", file, name, t.line, t.start, t.end, new,
                                             f"literal `{t.text}` -> `{new}`"))
            if t.text == ";" and not _in_for_header(tokens, pairs, i, body_open):
                first = _statement_start(tokens, pairs, i, body_open)
                if first < i or tokens[first].text in ("break", "continue"):
                    start, end = tokens[first].start, t.end
                    if tokens[first].text == "return" and first + 1 < i:
                        continue   # a value not returned: undefined, not a worse submission
                    source = " ".join(x.text for x in tokens[first:i + 1])
                    newlines = text.count("\n", start, end)
                    found.append(_mutant("drop", file, name, tokens[first].line, start, end,
                                         ";" + "\n" * newlines, f"statement `{_short(source)}` removed"))
            if t.kind == "ident" and t.text not in KEYWORDS and i + 1 < body_close and \
                    tokens[i + 1].text == "(" and not (i > 0 and tokens[i - 1].kind == "ident"):
                args = _arguments(tokens, pairs, i + 1)
                for a, b in zip(args, args[1:]):
                    first_text = text[tokens[a[0]].start:tokens[a[1]].end]
                    second_text = text[tokens[b[0]].start:tokens[b[1]].end]
                    if first_text != second_text:
                        between = text[tokens[a[1]].end:tokens[b[0]].start]
                        found.append(_mutant("swap", file, name, t.line, tokens[a[0]].start, tokens[b[1]].end,
                                             second_text + between + first_text,
                                             f"`{t.text}(..., {_short(first_text)}, {_short(second_text)}, ...)`"
                                             f" arguments swapped"))
            if t.text == "[" and tokens[i - 1].kind in ("ident",) or \
                    (t.text == "[" and tokens[i - 1].text in ("]", ")")):
                close = pairs[i]
                inside = text[tokens[i + 1].start:tokens[close - 1].end]
                if inside != "0":
                    found.append(_mutant("index", file, name, t.line, tokens[i + 1].start, tokens[close - 1].end,
                                         "0", f"`[{_short(inside)}]` -> `[0]`"))
        brace = tokens[body_open]
        spin = (f" {{ volatile unsigned mutant_spin = 0; while (mutant_spin < {SPIN}u) mutant_spin++; }}")
        found.append(_mutant("slow", file, name, brace.line, brace.end, brace.end, spin,
                             f"a busy loop ({SPIN} volatile increments, a few microseconds) at the top"))
    return found


def _short(source, width=48):
    source = " ".join(source.split())
    return source if len(source) <= width else source[:width - 3] + "..."


def _in_for_header(tokens, pairs, i, body_open):
    """True when the `;` at i separates the clauses of a for header."""
    j = i - 1
    while j > body_open:
        if tokens[j].text in (")", "]"):
            j = pairs[j] - 1
            continue
        if tokens[j].text == "(":
            return tokens[j - 1].text == "for"
        if tokens[j].text in ("{", "}"):
            return False
        j -= 1
    return False


def _arguments(tokens, pairs, open_paren):
    """(first, last) token indexes of each argument of the call at open_paren."""
    close = pairs[open_paren]
    args, first, i = [], open_paren + 1, open_paren + 1
    while i < close:
        if tokens[i].text in "([{" and tokens[i].kind == "punct":
            i = pairs[i] + 1
            continue
        if tokens[i].text == ",":
            args.append((first, i - 1))
            first = i + 1
        i += 1
    if first < close:
        args.append((first, close - 1))
    return args


def apply(sources, mutants):
    """The sources (file -> text) with every mutant's edit; edits must not overlap."""
    out = dict(sources)
    for file in {m.file for m in mutants}:
        edits = sorted((m for m in mutants if m.file == file), key=lambda m: m.start, reverse=True)
        text = out[file]
        limit = len(text) + 1
        for m in edits:
            if m.end > limit or (m.end == limit and m.start == m.end == limit):
                raise ValueError(f"overlapping edits in {file}: {m.id}")
            text = text[:m.start] + m.replacement + text[m.end:]
            limit = m.start
        out[file] = text
    return out


def model_sources(root=REPO, files=FILES):
    return {f: open(os.path.join(root, "reference", f), encoding="utf-8").read() for f in files}


def every_candidate(sources):
    return [m for f in ALL_FILES if f in sources for m in candidates(f, sources[f])]


def lab_flags():
    """The lab's compile flags and warnings (grader/lab.ini [lab])."""
    import configparser
    ini = configparser.ConfigParser()
    ini.read(os.path.join(REPO, "grader", "lab.ini"))
    return ini["lab"]["cflags"].split() + ini["lab"]["warnings"].split()


WARNING = re.compile(r"warning: .*\[(-W[^\]=]+)")
# The warnings that mean a value the program reads is not determined (an
# uninitialized variable, a missing return value, a pointer taken for an
# integer or the other way round, which moves with ASLR): such a mutant's
# grade could change from one grading to the next, so it is not kept.
UNDEFINED = {"-Wreturn-type", "-Wuninitialized", "-Wmaybe-uninitialized", "-Wint-conversion",
             "-Wincompatible-pointer-types", "-Wint-to-pointer-cast", "-Wpointer-to-int-cast"}


class Judge:
    """Compiles and probes submissions in a private scratch directory.
    Safe to call from several threads at once (sample(jobs=N)): each
    compilation and each probe program has a file of its own."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="grundy-mutants-")
        self.flags = lab_flags() + ["-I" + os.path.join(REPO, "student")]
        self.given = []
        for g in GIVEN:
            obj = os.path.join(self.dir, g + ".o")
            self._cc(["-c", os.path.join(REPO, "student", g), "-o", obj], check=True)
            self.given.append(obj)
        # The probe calls Part 2's functions only when asked, but links them
        # always: the model's for each Part 2 file the sources do not hold.
        self.part2_model = {}
        for f in PART2_FILES:
            obj = os.path.join(self.dir, "model-" + f + ".o")
            self._cc(["-c", os.path.join(REPO, "reference", f), "-o", obj], check=True)
            self.part2_model[f] = obj
        self.probe_obj = os.path.join(self.dir, "probe.o")
        self._cc(["-c", PROBE, "-o", self.probe_obj], check=True)
        self.objects = {}
        self.baselines = {}

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def _cc(self, args, check=False):
        made = subprocess.run(["gcc"] + self.flags + args, capture_output=True, text=True, check=False)
        if check and made.returncode != 0:
            raise SystemExit(f"mutants: cannot compile {args}:\n{made.stderr}")
        return made

    def compile(self, sources):
        """(objects or None, set of warnings) of the two files; each text
        is compiled once (the model's file is shared by most mutants)."""
        objects, warnings = [], set()
        for f in (f for f in ALL_FILES if f in sources):
            key = hashlib.sha1(sources[f].encode()).hexdigest()[:16]
            if key not in self.objects:
                # A thread's own name: two threads may compile one text at once.
                path = os.path.join(self.dir, f"{key}-{threading.get_ident()}-{f}")
                with open(path, "w", encoding="utf-8") as out:
                    out.write(sources[f])
                made = self._cc(["-c", path, "-o", path + ".o"])
                self.objects[key] = (path + ".o" if made.returncode == 0 else None,
                                     {f + " " + w for w in WARNING.findall(made.stderr)})
            obj, found = self.objects[key]
            if obj is None:
                return None, warnings
            objects.append(obj)
            warnings |= found
        return objects, warnings

    def probe(self, objects, files=FILES):
        """The probe's output for the objects of files: what the API
        answers (Part 2's too when a Part 2 file is among them), or how it
        ended."""
        part2 = _has_part2(files)
        program = os.path.join(self.dir, f"probe-{threading.get_ident()}")
        linked = objects + [obj for f, obj in self.part2_model.items() if f not in files]
        self._cc(linked + self.given + [self.probe_obj, "-o", program, WRAP], check=True)
        try:
            run = subprocess.run([program] + (["part2"] if part2 else []), capture_output=True, text=True,
                                 timeout=PROBE_WALL_SECONDS, errors="replace")
        except subprocess.TimeoutExpired:
            return "timeout"
        if run.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
            return "timeout"
        return run.stdout + f"\nexit {run.returncode}\n"

    def baseline(self, sources):
        """(warnings, probe output) of the submission mutants are made from."""
        key = hashlib.sha1(json.dumps(sources, sort_keys=True).encode()).hexdigest()
        if key not in self.baselines:
            objects, warnings = self.compile(sources)
            if objects is None:
                raise SystemExit("mutants: the submission mutated does not compile")
            self.baselines[key] = (warnings, self.probe(objects, sources))
        return self.baselines[key]

    def verdict(self, sources, mutated, slow):
        """"ok", "equivalent", or why the mutant of sources is not kept."""
        warnings0, answer0 = self.baseline(sources)
        objects, warnings = self.compile(mutated)
        if objects is None:
            return "does not compile"
        new = sorted(w for w in warnings - warnings0 if w.split()[-1] in UNDEFINED)
        if new:
            return "new warning " + ", ".join(new)
        if slow:
            return "ok"
        return "ok" if self.probe(objects, mutated) != answer0 else "equivalent"


def _has_part2(files):
    """Whether files (names, or sources keyed by name) hold a Part 2 file:
    the probe then checks Part 2 too."""
    return any(f in files for f in PART2_FILES)


def function_texts(text):
    """name -> (start, text) of each function definition of a file: from
    its name to its closing brace."""
    tokens = tokenize(text)
    pairs = matches(tokens)
    found = {}
    for name, body_open, body_close in functions(tokens, pairs):
        start = tokens[pairs[body_open - 1] - 1].start
        found[name] = (start, text[start:tokens[body_close].end])
    return found


def relocate(m, sources, target):
    """m (a mutant of sources) as a mutant of target, or None when target's
    text of m's function differs (the edit could undo what target changed)."""
    here = function_texts(sources[m.file]).get(m.function)
    there = function_texts(target[m.file]).get(m.function)
    if here is None or there is None or here[1] != there[1]:
        return None
    shift = there[0] - here[0]
    line = target[m.file].count("\n", 0, m.start + shift) + 1
    return Mutant(m.id, m.kind, m.file, m.function, line, m.start + shift, m.end + shift,
                  m.replacement, m.what, m.equivalent)


def order(mutants, seed):
    """The candidates in the seed's order: the kinds in turn, each shuffled."""
    rng = random.Random(seed)
    by_kind = {k: [m for m in mutants if m.kind == k] for k in KINDS}
    for k in KINDS:
        rng.shuffle(by_kind[k])
    kinds = list(KINDS)
    rng.shuffle(kinds)
    ordered, i = [], 0
    while any(by_kind.values()):
        k = kinds[i % len(kinds)]
        if by_kind[k]:
            ordered.append(by_kind[k].pop(0))
        i += 1
    return ordered


def sample(seed, count, sources=None, keep_equivalent=False, judge=None, report=None, where=None, jobs=1):
    """count mutants for seed, each kept by the judge (compiled, probed).
    where(m) -> bool filters the candidates; report(m, verdict) sees each
    one tried. With jobs > 1 the candidates are judged that many at a
    time, in batches taken in the seed's order, so the mutants kept are
    the same as with one (a batch's tail past count is judged for nothing)."""
    sources = sources or model_sources()
    own = judge is None
    judge = judge or Judge()
    judge.baseline(sources)   # once, before any thread asks for it
    wanted = [m for m in order(every_candidate(sources), seed) if where is None or where(m)]
    kept = []

    def judged(m):
        return m, judge.verdict(sources, apply(sources, [m]), m.kind == "slow")

    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            for first in range(0, len(wanted), max(1, jobs)):
                if len(kept) >= count:
                    break
                for m, verdict in pool.map(judged, wanted[first:first + max(1, jobs)]):
                    if len(kept) == count:
                        break
                    if report is not None:
                        report(m, verdict)
                    if verdict == "ok" or (verdict == "equivalent" and keep_equivalent):
                        kept.append(Mutant(**{**asdict(m), "equivalent": verdict == "equivalent"}))
    finally:
        if own:
            judge.close()
    return kept


def write_submission(dest, sources):
    """A submission directory: every reference/*.c, the given sources over them."""
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(os.path.join(REPO, "reference"))):
        if name.endswith(".c"):
            shutil.copy(os.path.join(REPO, "reference", name), os.path.join(dest, name))
    for f, text in sources.items():
        with open(os.path.join(dest, f), "w", encoding="utf-8") as out:
            out.write(text)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tests/staff/grader/mutants.py",
                                     description="one-token mutants of the model solution")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--out", help="directory for the submissions and mutants.json")
    parser.add_argument("--keep-equivalent", action="store_true",
                        help="keep mutants the probe cannot tell from the model (reported as such)")
    parser.add_argument("--list", action="store_true", help="print the candidates' counts by kind")
    args = parser.parse_args(argv)
    sources = model_sources()
    every = every_candidate(sources)
    if args.list:
        for k in KINDS:
            print(f"{k:8} {sum(1 for m in every if m.kind == k)}")
        print(f"{'all':8} {len(every)}")
        return 0
    if not args.out or args.count < 1:
        parser.error("--out DIR and a --count of at least 1 are needed")
    tried = {}

    def report(m, verdict):
        key = "new warning" if verdict.startswith("new") else verdict
        counts = tried.setdefault(m.kind, {})
        counts[key] = counts.get(key, 0) + 1
        print(f"  {m.id:12} {verdict:20.20} {m.description}", file=sys.stderr)

    kept = sample(args.seed, args.count, sources, args.keep_equivalent, report=report)
    listing = []
    try:
        os.makedirs(args.out, exist_ok=True)
        for m in kept:
            write_submission(os.path.join(args.out, m.id), apply(sources, [m]))
            listing.append({"id": m.id, "kind": m.kind, "file": m.file, "line": m.line, "function": m.function,
                            "description": m.description, "equivalent": m.equivalent})
        with open(os.path.join(args.out, "mutants.json"), "w", encoding="utf-8") as out:
            json.dump({"seed": args.seed, "mutants": listing}, out, indent=2)
    except OSError as error:
        print(f"mutants: cannot write to {args.out}: {error}", file=sys.stderr)
        return 1
    for k in KINDS:
        counts = tried.get(k, {})
        print(f"{k:8} tried {sum(counts.values()):3}: " +
              ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    print(f"wrote {len(kept)} mutants (seed {args.seed}) to {args.out}" +
          (f": only {len(kept)} of the {args.count} asked for are kept" if len(kept) < args.count else ""))
    return 0 if len(kept) == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
