"""The one type every phase of a grading produces: a TestResult per graded
test, with its status and flags as data, computed where the facts are.

Reports (reports.py) and the class report (classreport.py) read these
fields; nothing parses a message back into a flag.

status:  passed | failed | crashed | timeout | missing | not_run | skipped
kind:    None for a suite test; "build", "timing" or "memory" for the
         grader's own checks
flags:   facts about the failure, for the gradebook: crash, timeout,
         over_budget, leak, memory, not_compiled, rejected:<what>; and
         time_cap, a grading that reached its time cap (pipeline.run)
figures: what a suite test read that only the student process can
         report (expansions, memo_size, live_allocations, memo_record);
         such a test earns nothing (pipeline.score)
withheld: why a passed test earns no points, or ""
order:   a suite test's rank among its runner's tests in the order they
         ended (1 first), started: seconds from the runner's start to the
         test's (grader/boundary/grader_report.c); None when unknown. The
         feedback lists time-outs in that order.
"""

from dataclasses import dataclass, field

FLAG_ORDER = ["grader_error", "not_compiled", "crash", "timeout", "over_budget", "leak", "memory",
              "copies_standin", "memo_suspect", "time_cap"]


@dataclass
class TestResult:
    id: str
    task: int
    status: str
    message: str = ""
    kind: str | None = None
    time: float | None = None
    figures: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    withheld: str = ""
    order: int | None = None
    started: float | None = None

    @property
    def hidden(self):
        return self.id.split("::", 1)[0].endswith("_hidden")

    @property
    def passed(self):
        return self.status == "passed"


def flags_of(tests, builds, capped=False):
    """The grading's flags, in FLAG_ORDER (rejections first, sorted), then
    the flags of lab.ini's [checks] in the definition's order. capped: a
    run met the grading's time cap (time_cap)."""
    found = {"time_cap"} if capped else set()
    rejected = set()
    for b in builds.values():
        if not b.compiled:   # a term's file missing from the submission too: no silent zero
            found.add("not_compiled")
        rejected.update(b.rejected_names)
    for t in tests:
        found.update(f for f in t.flags if not f.startswith("rejected:"))
    from . import checks   # lab.ini's [checks] raise flags of their own, after these
    return ([f"rejected:{name}" for name in sorted(rejected)] + [f for f in FLAG_ORDER if f in found]
            + [f for f in checks.flags() if f in found and f not in FLAG_ORDER])
