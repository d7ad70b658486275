"""make bench, section similarity: grader/similarity on a class of 200 students, timed.

The class is tests/staff/ops/check-similarity's test bed (the reference, every
fixture, the independent solutions, the disguised copies, the stubs and the bad
submissions) padded with mixtures of the reference's, fixtures' and copies'
files up to STUDENTS: almost every pair is then a copy, the worst case for the
report (the most flagged pairs, pages and common passages). grader/similarity
runs with its defaults (common passages removed, two sim_c comparisons per file,
the class's fence). Measured: wall time (the target: under LIMIT seconds on 2
cores), the CPU time (user + system) and the peak RSS of the run and its sim_c
children (getrusage of the children, so only this run's processes count).
"""

import os
import re
import resource
import subprocess
import time

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
STUDENTS = 200
LIMIT = 300.0      # seconds, issue 20: "200 submissions in under 5 minutes on 2 cores"
OUT = os.path.join(REPO, "build", "bench", "similarity")


def measure():
    """{students, pairs, flagged, passages, wall, cpu, max_rss_mib, ok, summary}."""
    built = subprocess.run([os.path.join(REPO, "tests", "staff", "ops", "check-similarity"), "--students",
                            str(STUDENTS), "--build-only"], cwd=REPO, capture_output=True, text=True, check=True)
    students = int(built.stdout.split()[0])
    class_dir = built.stdout.strip().rsplit(" in ", 1)[1]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([os.path.join(REPO, "grader", "similarity"), class_dir, "--out", OUT], cwd=REPO,
                          capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = (done.stdout + done.stderr).strip()
    numbers = re.search(r"(\d+) pairs, (\d+) flagged.*?(\d+) common passages", summary)
    pairs, flagged, passages = (int(x) for x in numbers.groups()) if numbers else (0, 0, 0)
    return {"students": students, "pairs": pairs, "flagged": flagged, "passages": passages, "wall": wall,
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "max_rss_mib": after.ru_maxrss / 1024, "ok": done.returncode == 0 and wall < LIMIT,
            "status": done.returncode, "summary": summary}
