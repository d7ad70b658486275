"""Whether a submission's grundy_position.c is a copy of the stand-in map.

The stand-in (tests/public/standin/grundy_position.c) is public: the
grader links it with a submission's solver in a later task's rescue
program (pipeline, "programs"), and no code a student process is
linked with can be secret. It passes every Task 0 test, so a student could
hand it in. The grader does not take points for that on its own (a guided
map shares some passages with it honestly, and the verdict on copying is
the staff's), but it never lets it pass unseen: a map holding most of the
stand-in is flagged `copies_standin` in results.json, the feedback's notes
and the class report's flags.

Both files are read as gradelib/ctokens.py normalises C (names and
literals by kind; comments, layout, braces, empty statements, the
preprocessor and `#if 0` code dropped), and the share is the part of the
stand-in's winnowed fingerprints found among the submission's k-grams
(ctokens.contained): linear in the file, at most config.MAX_SOURCE_BYTES
bytes and config.MAX_SOURCE_TOKENS tokens of it read (Check.truncated:
the rest is not compared). Calibrated on this repository (K = 4, W = 4):

  the stand-in itself, a renamed copy without comments
  (fixtures/standin_copy), a `;` after every statement             100%
  the `#if 0` block of junk after every statement                   100%
  disguised copies (similarity/disguise 1-4: renamed, reordered,
  loops rewritten, a dead statement every 2nd or 3rd statement)     91-96%
  a dead statement after every single statement                     86-88%
  honest maps written apart (similarity/*: independent_a-d,
  guided_e-f)                                                       50-73%
  the model solution (reference/)                                   65%
  the untouched stub (student/)                                     8%

THRESHOLD sits between the highest honest map and the lowest copy.

Python 3.10+ standard library only.
"""

import os

from . import config, ctokens

STANDIN = os.path.join(config.REPO, "tests", "public", "standin", "grundy_position.c")
THRESHOLD = 0.8     # share of the stand-in's fingerprints from which a map is flagged
FLAG = "copies_standin"


class Check(tuple):
    """(flagged, share), and what was compared: tokens (of the submission) and truncated
    (the token budget was reached and the rest of the file not compared)."""

    def __new__(cls, flagged, share, tokens=0, truncated=False):
        made = super().__new__(cls, (flagged, share))
        made.tokens, made.truncated = tokens, truncated
        return made

    def line(self):
        """The staff log's line."""
        budget = (f"; only its first {config.MAX_SOURCE_TOKENS} tokens compared (the budget)"
                  if self.truncated else "")
        return f"stand-in map: {self[1]:.0%} of its fingerprints in {config.POSITION} ({self.tokens} tokens{budget})"


def tokens_of(text):
    """The normalised stream of a source text, within the budget."""
    return ctokens.normalise(text, config.MAX_SOURCE_TOKENS)


def standin_tokens():
    with open(STANDIN, encoding="utf-8") as handle:
        return tokens_of(handle.read()).tokens


def share(text, standin_text=None):
    """The part (0..1) of the stand-in's fingerprints found in `text`."""
    ours = tokens_of(standin_text).tokens if standin_text is not None else standin_tokens()
    return ctokens.contained(ours, tokens_of(text).tokens)


def check(source_path):
    """Check (flagged, share) of a submission's copied grundy_position.c (the
    scratch's copy: a regular file the grader wrote), or (False, 0.0)
    when there is none."""
    try:
        with open(source_path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(config.MAX_SOURCE_BYTES)
    except FileNotFoundError:
        return Check(False, 0.0)
    theirs = tokens_of(text)
    found = ctokens.contained(standin_tokens(), theirs.tokens)
    return Check(found >= THRESHOLD, found, len(theirs.tokens), theirs.truncated)
