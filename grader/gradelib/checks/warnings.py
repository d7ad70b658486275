"""warnings::taskN: the task's file compiles without a warning of the
lab's warning flags ([lab] warnings). Shipped at weight 0: it earns
nothing and flags the grading, so a TA can find the submissions whose
warnings were never read; make test prints the same warnings.

A pragma can turn a warning off, so the file's preprocessed text (gcc -E
with the grading's own flags, in the compiler's sandbox and limits) must
hold no `#pragma GCC diagnostic` (nor clang's, nor system_header) in the
file's own lines: whether written out or made by _Pragma in a macro, the
preprocessor writes each as such a line. Whatever weight an instructor
gives the check, hiding a warning fails it.

It reads what the build phase kept of the compiler's words (capped by
the sandbox) and at most PREPROCESSED_CAP bytes of gcc's output.
"""

import os
import re

from .. import build, config, safefs, sandbox

TITLE = "the task's file compiles without warnings"
FLAG = "warnings"
SHOWN = 5   # warnings quoted in the message; the rest are counted
PREPROCESSED_CAP = 8 << 20
_MARKER = re.compile(rb'^# \d+ "([^"\n]*)"')
_SILENCER = re.compile(rb"^\s*#\s*pragma\s+(GCC|clang)\s+(diagnostic|system_header)\b")
_seen = {}   # (scratch, file) -> _silencer's (status, sentence)


def check(ctx, builds, suite_results, task):
    file = config.FILE_OF_TASK[task]
    built = builds.get(file)
    if built is None or not built.compiled:
        return "not_run", f"{file} did not compile (see build::{file}), so its warnings are not known"
    key = (ctx.scratch, file)
    if key not in _seen:
        _seen[key] = _silencer(ctx, file)
    if _seen[key][0]:
        return _seen[key]
    warnings = [line for line in built.warnings.splitlines() if re.search(r": warning: ", line)]
    if not warnings:
        return "passed", f"{file} compiles without warnings"
    more = f"\n... and {len(warnings) - SHOWN} more" if len(warnings) > SHOWN else ""
    return "failed", (f"{file} compiles with {len(warnings)} warning(s); each is a likely bug "
                      "(make test prints them too):\n" + "\n".join(warnings[:SHOWN]) + more)


def _silencer(ctx, file):
    """("", "") when the preprocessed file turns no diagnostic off, else
    ("failed", why: a pragma found, or the file could not be preprocessed),
    or ("not_run", why) when the grading's time cap stopped the
    preprocessor: the cap is the time_cap flag's, not this one's."""
    obj_dir = os.path.join(ctx.scratch, "obj")
    output = f"{file}.warnings.i"
    argv = build.compile_argv(config.CFLAGS, file, os.path.join(obj_dir, output))
    argv[argv.index("-c")] = "-E"
    result = sandbox.run(ctx.mode, argv, limits=build.COMPILE_LIMITS, env=build.COMPILE_ENV,
                         **build.compile_view(ctx.scratch, obj_dir))
    try:
        text = safefs.read_regular(os.path.join(obj_dir, output), PREPROCESSED_CAP) if result.ok else None
    except (safefs.Refused, OSError) as error:
        return "failed", f"{file} could not be checked for warnings: its preprocessed text {error}"
    if text is None:
        why = f"{file} could not be checked for warnings: the preprocessor stopped ({result.describe()})"
        return ("not_run" if result.capped else "failed"), why
    ours = False
    for number, line in enumerate(text.split(b"\n"), 1):
        marker = _MARKER.match(line)
        if marker:
            ours = marker.group(1) == f"src/{file}".encode()
        elif ours and _SILENCER.match(line):
            return "failed", (f"{file} turns compiler diagnostics off with a pragma "
                              f"({line.strip().decode('ascii', 'replace')[:80]}), so its warnings cannot "
                              "be known: take the pragma out")
    return "", ""
