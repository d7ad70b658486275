"""warnings::taskN: the task's file compiles without a warning of the
lab's warning flags ([lab] warnings). It earns nothing (its weight in
lab.ini is 0) and flags the grading, so a TA can find the submissions
whose warnings were never read; make test prints the same warnings.

It reads only what the build phase kept of the compiler's words (capped
by the sandbox), never the student's files.
"""

import re

from .. import config

TITLE = "the task's file compiles without warnings"
FLAG = "warnings"
SHOWN = 5   # warnings quoted in the message; the rest are counted


def check(ctx, builds, suite_results, task):
    file = config.FILE_OF_TASK[task]
    build = builds.get(file)
    if build is None or not build.compiled:
        return "failed", f"{file} did not compile (see build::{file}), so its warnings are not known"
    warnings = [line for line in build.warnings.splitlines() if re.search(r": warning: ", line)]
    if not warnings:
        return "passed", f"{file} compiles without warnings"
    more = f"\n... and {len(warnings) - SHOWN} more" if len(warnings) > SHOWN else ""
    return "failed", (f"{file} compiles with {len(warnings)} warning(s); each is a likely bug "
                      "(make test prints them too):\n" + "\n".join(warnings[:SHOWN]) + more)
