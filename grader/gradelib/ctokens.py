"""C source as a normalised token stream, and fingerprints of it, for telling copied code.

normalise(text) keeps what a copy cannot change without changing the
program, and drops what it can add or rewrite freely:

  - comments and layout are not tokens; identifiers are ID (keywords and
    the lab's common type names stay themselves), numbers N, strings and
    character constants S, so renaming and reformatting change nothing;
  - braces are layout too (`if (c) x;` and `if (c) { x; }` are one
    stream), and an empty statement (a `;` with nothing before it in its
    statement: after `;`, `{`, `}` or at the start, outside parentheses, so
    `for (;;)` keeps its own) is dropped: padding with `;` changes nothing;
  - the preprocessor's lines are dropped, and so is code the compiler never
    sees: a group under `#if 0` (or after `#if 1 ... #else`), nested
    conditionals included. Other conditions are not evaluated: their every
    branch is kept.

The scan is linear in the text: each pattern of _SCAN matches or fails in
time linear in what it consumes (an unterminated comment or string runs to
the end of the file or line, never retried), and at most max_tokens tokens
are kept (braces included): past that the text is not read
(Normalised.truncated).

fingerprints() is winnowing (Schleimer, Wilkerson and Aiken, as MOSS
uses): a deterministic hash of every K consecutive tokens, and of each
window of W consecutive hashes the smallest. Any stretch of W + K - 1
tokens two streams share yields a fingerprint both hold, wherever it lies;
a statement inserted into a copy costs only the K - 1 k-grams across it.
contained(a, b) is the share of a's fingerprints found among b's k-grams.

Python 3.10+ standard library only.
"""

import collections
import re
import zlib

K = 4       # tokens per k-gram: `ID = ID ;`, so a statement inserted costs only the 3 k-grams across it
W = 4       # k-grams per window: every shared stretch of W + K - 1 = 7 tokens is seen

_SCAN = re.compile(r"""
      (?P<newline>\n)
    | (?P<space>[ \t\r\f\v]+|\\\r?\n)
    | (?P<comment>/\*[^*]*\*+(?:[^/*][^*]*\*+)*/|/\*[\s\S]*|//[^\n]*)
    | (?P<string>"(?:[^"\\\n]|\\[\s\S])*"?|'(?:[^'\\\n]|\\[\s\S])*'?)
    | (?P<word>[A-Za-z_]\w*)
    | (?P<number>\.?\d(?:[eEpP][+-]|[\w.])*)
    | (?P<punct>->|\+\+|--|<<=?|>>=?|[<>=!+\-*/%&|^]=|&&|\|\||\#\#|\S)
""", re.X)
KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef union
unsigned void volatile while _Bool _Static_assert _Alignof _Alignas _Noreturn _Thread_local
bool size_t uint64_t NULL true false""".split())
_CONDITIONAL_STARTS = frozenset(("if", "ifdef", "ifndef"))


class Normalised:
    """tokens: the normalised stream; spans: each kept token's (start, end) in the text, braces
    included (layout for the stream, not for a text tool such as sim_c); dead_bytes: bytes under
    a dead conditional; truncated: the budget of tokens was reached and the rest not read."""

    def __init__(self):
        self.tokens, self.spans = [], []
        self.dead_bytes, self.truncated = 0, False


def _condition(words):
    """True, False or None (not evaluated) for the tokens of an #if or #elif."""
    core = [w for w in words if w not in ("(", ")")]
    if len(core) == 1 and core[0] in ("0", "1"):
        return core[0] == "1"
    return None


class _Conditionals:
    """The stack of #if groups: whether the code at this point is compiled."""

    def __init__(self):
        self.stack = []     # [parent live, this branch live, taken: True/False/None (unknown)]
        self.live = True

    def directive(self, name, rest):
        if name in _CONDITIONAL_STARTS:
            cond = _condition(rest) if name == "if" else None
            self.stack.append([self.live, cond is not False, cond])
        elif name in ("elif", "else") and self.stack:
            frame = self.stack[-1]
            if frame[2] is None:
                frame[1] = True
            elif frame[2]:
                frame[1] = False
            else:
                cond = _condition(rest) if name == "elif" else True
                frame[1], frame[2] = cond is not False, cond
        elif name == "endif" and self.stack:
            self.stack.pop()
        self.live = not self.stack or (self.stack[-1][0] and self.stack[-1][1])


LAYOUT = frozenset("{}")


def empty_statement(value, depth, previous):
    """Whether a token is an empty statement: a `;` outside parentheses after `;`, a brace or
    nothing (previous: the last token kept, braces included)."""
    return value == ";" and depth == 0 and previous in (None, ";", "{", "}")


def token_kind(kind, value):
    """A kept token as compared: ID, N, S, or the keyword or punctuator itself."""
    if kind == "word":
        return value if value in KEYWORDS else "ID"
    return {"number": "N", "string": "S"}.get(kind, value)


def normalise(text, max_tokens):
    """The Normalised stream of text (a str), at most max_tokens tokens of it."""
    out = Normalised()
    tokens, spans = out.tokens, out.spans
    cond = _Conditionals()
    line_start, directive, depth, previous, dead_from = True, None, 0, None, None
    for match in _SCAN.finditer(text):
        kind = match.lastgroup
        if kind == "newline":
            if directive is not None:
                was_live = cond.live
                cond.directive(directive[0] if directive else "", directive[1:])
                directive = None
                if was_live and not cond.live:
                    dead_from = match.end()
                elif not was_live and cond.live:
                    out.dead_bytes += directive_at - dead_from
            line_start = True
            continue
        if kind in ("space", "comment"):
            continue
        value = match.group()
        if directive is not None:
            directive.append(value)
            continue
        if line_start and value == "#":
            directive, directive_at = [], match.start()
            continue
        line_start = False
        if not cond.live or empty_statement(value, depth, previous):
            continue
        if len(spans) >= max_tokens:
            out.truncated = True
            break
        spans.append(match.span())
        previous = value
        if value in LAYOUT:
            continue
        if value == "(":
            depth += 1
        elif value == ")":
            depth = max(0, depth - 1)
        tokens.append(token_kind(kind, value))
    if not cond.live and dead_from is not None and not out.truncated:
        out.dead_bytes += len(text) - dead_from
    return out


def compiled_text(text, normalised):
    """text with everything but the kept tokens and braces blanked, its lines kept: the code the
    compiler sees, without empty statements, for a tool that reads text (sim_c)."""
    pieces, at = [], 0
    for start, end in normalised.spans:
        gap = text.count("\n", at, start)
        pieces.append("\n" * gap if gap else " " if start > at else "")
        pieces.append(text[start:end])
        at = end
    pieces.append("\n" * text.count("\n", at))
    return "".join(pieces)


def hashes(tokens, k=K):
    """The hash of every k consecutive tokens (deterministic: the same in every process)."""
    ids, prime, mask = {}, 1_000_003, (1 << 61) - 1
    codes = [ids.setdefault(t, zlib.crc32(t.encode())) for t in tokens]
    top = pow(prime, k - 1, mask)
    found, h = [], 0
    for i, code in enumerate(codes):
        if i >= k:
            h = (h - codes[i - k] * top) % mask
        h = (h * prime + code) % mask
        if i >= k - 1:
            found.append(h)
    return found


def fingerprints(tokens, k=K, w=W):
    """Winnowing: the set of the smallest hash (the rightmost on a tie) of every window of w
    consecutive k-gram hashes; a stream shorter than one window keeps its smallest."""
    all_hashes = hashes(tokens, k)
    chosen, window = set(), collections.deque()
    for i, h in enumerate(all_hashes):
        while window and all_hashes[window[-1]] >= h:
            window.pop()
        window.append(i)
        if window[0] <= i - w:
            window.popleft()
        if i >= w - 1 or i == len(all_hashes) - 1:
            chosen.add(all_hashes[window[0]])
    return chosen


def contained(a_tokens, b_tokens, k=K, w=W):
    """The share (0..1) of a's fingerprints found among b's k-grams; 0 when a has none."""
    mine = fingerprints(a_tokens, k, w)
    if not mine:
        return 0.0
    theirs = set(hashes(b_tokens, k))
    return len(mine & theirs) / len(mine)
