"""Whether a submission's grundy_position.c is a copy of the stand-in map.

The stand-in (tests/public/standin/grundy_position.c) is public: the
grader links it with a submission's solver when the submission's own map
fails a test (pipeline, its rescue program), and no code a student process is
linked with can be secret. It passes every Task 0 test, so a student could
hand it in. The grader does not take points for that on its own (a guided
map shares some passages with it honestly, and the verdict on copying is
the staff's), but it never lets it pass unseen: a map whose tokens are
mostly runs of the stand-in's is flagged `copies_standin` in results.json,
the feedback's notes and the class report's flags.

The comparison reads C as tokens, as the similarity report's sim_c does:
identifiers become one kind and numbers another, comments and layout are
dropped, so renaming and reformatting do not hide a copy. The share is the
part of the stand-in's tokens that lie in common runs of at least RUN
tokens (difflib's matching blocks, in order). Calibrated on this
repository: the model solution (written apart, but guided by the same
handout: the same loops, the same equality) scores 55%, the untouched stub
9%, a renamed copy of the stand-in with its comments gone 100%. A copy
with dead code inserted every few statements can pass under THRESHOLD:
that is the similarity report's matter (tests/staff/ops/check-similarity).

Python 3.10+ standard library only.
"""

import difflib
import os
import re

from . import config

STANDIN = os.path.join(config.REPO, "tests", "public", "standin", "grundy_position.c")
RUN = 12            # tokens: a signature with its brace is 10-15, shorter runs are idiom
THRESHOLD = 0.8     # share of the stand-in's tokens in such runs from which a map is flagged
FLAG = "copies_standin"

_TOKEN = re.compile(r"""
      (?P<comment>/\*.*?\*/|//[^\n]*)
    | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
    | (?P<preproc>^\s*\#[^\n]*)
    | (?P<word>[A-Za-z_]\w*)
    | (?P<number>\d[\w.]*)
    | (?P<punct>->|\+\+|--|<<=?|>>=?|[<>=!+\-*/%&|^]=|&&|\|\||\S)
""", re.S | re.M | re.X)
_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef union
unsigned void volatile while bool size_t uint64_t NULL true false""".split())


def tokens(text):
    """The text's tokens, identifiers and numbers by kind, keywords as themselves."""
    found = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("comment", "preproc"):
            continue
        value = match.group()
        if kind == "word":
            found.append(value if value in _KEYWORDS else "ID")
        elif kind == "number":
            found.append("N")
        elif kind == "string":
            found.append("S")
        else:
            found.append(value)
    return found


def share(text, standin_text=None):
    """The part (0..1) of the stand-in's tokens in runs of RUN or more that `text` shares."""
    if standin_text is None:
        with open(STANDIN, encoding="utf-8") as handle:
            standin_text = handle.read()
    theirs, ours = tokens(text), tokens(standin_text)
    if not ours:
        return 0.0
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    common = sum(block.size for block in matcher.get_matching_blocks() if block.size >= RUN)
    return common / len(ours)


def check(source_path):
    """(flagged, share) of a submission's copied grundy_position.c (the
    scratch's copy: a regular file the grader wrote), or (False, 0.0)
    when there is none."""
    try:
        with open(source_path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(config.MAX_SOURCE_BYTES)
    except FileNotFoundError:
        return False, 0.0
    found = share(text)
    return found >= THRESHOLD, found
