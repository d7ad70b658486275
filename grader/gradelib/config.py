"""Where things are and the numbers the grader runs with (one place to tune)."""

import os
import re

from . import labdef, rubric

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS = os.path.join(REPO, "build", "grader" + labdef.lab().build_suffix)
# The rendered handout `make grader-harness` writes (when pandoc is there):
# feedback links its sections (reports.handout_base).
HANDOUT = os.path.join(HARNESS, "handout.html")
RUBRIC = os.path.join(REPO, "grader", "rubric.txt")
MAX_SOURCE_BYTES = 1 << 20
# Tokens of one source file that are compared (the copy check, the similarity
# report; gradelib/ctokens.py): a full solution of this lab has about 1,000.
MAX_SOURCE_TOKENS = 20000

# The lab itself (tasks, files, API, flags, timing) is defined once, in
# grader/lab.ini; these names are what the grader reads of it.
LAB = labdef.lab()
HEADERS = list(LAB.headers) + [h for h in LAB.task_headers() if h not in LAB.headers]
SUBMISSION_FILES = LAB.files
TASKS = [t.number for t in LAB.tasks]
TASK_TITLES = {t.number: t.heading for t in LAB.tasks}
FILE_OF_TASK = {t.number: t.file for t in LAB.tasks}
DEFINES = {file: LAB.functions_of_file(file) for file in SUBMISSION_FILES}
# The rubric's lines for this term's tasks, and what they must add up to.
RUBRIC_TERM = rubric.term_of(LAB)
# Task 0's map and Tasks 1-2's solver (task isolation, pipeline.py).
POSITION, SOLVER = FILE_OF_TASK[0], FILE_OF_TASK[1]



def _make_test_ub_checks():
    """The checks of make test's UBSAN_CHEAP (tests/public/sanitizers.mk, their
    one home): "signed-integer-overflow,shift,...", or None without that line."""
    try:
        with open(os.path.join(REPO, "tests", "public", "sanitizers.mk"), encoding="utf-8") as handle:
            found = re.search(r"^UBSAN_CHEAP := -fsanitize=(\S+)", handle.read(), re.MULTILINE)
    except OSError:
        return None
    return found.group(1).replace("$(,)", ",") if found else None


# The student's files are built with the undefined-behaviour checks that
# make test has, so that a mistake make test stops at (a hash summed in an
# int that overflows) does not earn full marks here. They trap (SIGILL,
# named by the proxy) instead of calling UBSan's runtime, which would need
# files and a library the student process is not given.
UB_CHECKS = _make_test_ub_checks()
UB_CFLAGS = [f"-fsanitize={UB_CHECKS}", "-fsanitize-undefined-trap-on-error"] if UB_CHECKS else []
CFLAGS = list(LAB.cflags) + list(LAB.warnings) + UB_CFLAGS
# The coverage build: the graded flags and --coverage, nothing else, so
# every macro (__OPTIMIZE__ too) is the same in both (coverage.py).
COVERAGE_CFLAGS = CFLAGS + ["--coverage"]
# A student program counts allocations and expansions (tests/public/support).
WRAPS = ["-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free",
         "-Wl,--wrap=grundy_get_moves",
         # the memo's record and the forgetful memo of Task 1's tests
         # (tests/public/support/memo_record.h)
         "-Wl,--wrap=memo_table_new,--wrap=memo_table_free,--wrap=memo_table_get,--wrap=memo_table_put",
         "-Wl,--wrap=memo_table_size,--wrap=memo_table_clear"]

# Tasks whose tests run with the given memo table forgotten (every lookup
# misses, every store is dropped: tests/public/support/memo_record.h), and
# the task whose memo that is: a memo bug then costs that task alone.
# (Task 1's suites set it: .init = lab_memo_forgotten.)
MEMO_FORGOTTEN_IN = {1: 2}

# Timing (timing.py): the student's CPU time on each position may be at
# most TIMING_BUDGET_RATIO times the calibration solver's (the fastest of
# CALIBRATION_RUNS runs), the yardstick of the students' own timing tests.
# The positions are drawn from the hidden seed: test name -> (number of
# heaps, total tokens range, required outcome or None).
TIMED_SHAPES = {shape.name: (shape.heaps, (shape.low, shape.high), shape.outcome)
                for shape in LAB.shapes}
TIMING_BUDGET_RATIO = LAB.timing_ratio
CALIBRATION_RUNS = LAB.calibration_runs
# The map's speed (pipeline.timing_phase): fails when the timed task's
# solver fails its timing checks with the submission's map and passes them
# with the stand-in map. A test of the map's task; None in a term without
# a timed task after it.
_TIMED = next((t.number for t in LAB.tasks if t.timed), None)
_MAP_TASK = min(t.number for t in LAB.tasks if t.file == POSITION)
SPEED_TEST = f"speed::task{_MAP_TASK}" if _TIMED is not None and _TIMED > _MAP_TASK else None

# Limits of one call into a student process during the suites: the
# wall-clock time the proxy waits (it shrinks once calls of a runner have
# timed out, see grader/boundary/proxy.c), and the CPU rlimit of each
# student process. Their home, and every other limit's: [limits] in
# grader/lab.ini (C reads them from the generated grader_limits.h).
LIMITS = LAB.limits
CALL_SECONDS = LIMITS["call_seconds"]
STUDENT_CPU_SECONDS = LIMITS["student_cpu_seconds"]

# The valgrind pass: these light tests (lab.ini's `memcheck`), when they
# passed in the main run without reading a figure (every one here reads
# none: pipeline.memcheck_candidates). Each test starts a student process
# of its own under valgrind, and every such process costs CPU before it
# does anything (valgrind loads and instruments the program and libc:
# about 0.6 s on the build machine), so the list is as short as it can be
# while it still reaches every function of both files the other functions
# call: building, growing, inserting, removing, copying and freeing maps,
# expanding two levels deep, both solver questions on single, multi-heap
# and terminal positions, the memo's lookups, insertions and clearing.
# Their positions stay small enough for an unmemoized solver under
# valgrind's 20-50x slowdown, and under the guarded allocator, which never
# hands a freed block out again.
MEMCHECK_TESTS = {t.number: list(t.memcheck) for t in LAB.tasks}

SUITE_JOBS = 2

# Per-grading caps (scratch.py). The scratch tmpfs holds a few MiB and a
# few hundred files for the reference (harness, student programs, runs);
# RAM backs it, so it counts against memory too.
SCRATCH_BYTES = 256 << 20
SCRATCH_FILES = 20000
# The cgroup covers every sandboxed process of one grading at once: up to
# three valgrind runs, or two test processes with their student processes
# and the compiler beside them (cgroup.py).
CGROUP_MEMORY_BYTES = 3 << 30
CGROUP_PIDS = 512

# The memo check (growth.py, lab.ini [memo]): on the positions it solves,
# the repeat without a clear may cost at most MEMO_REPEAT_CPU_AT_MOST of the
# first round's CPU time (the model solution: under 1%), the round after a
# clear at least MEMO_AGAIN_CPU_AT_LEAST of it (about 100%), and a cleared
# memo filled again and again (12 times, growth_probe.c) may hold, at the
# least over its last refills, at most MEMO_REGROWTH_AT_MOST times what the
# first round grew plus MEMO_REGROWTH_SLACK_BYTES more than after the first
# round: the allocator's retained heap (the model solution: up to 0.6
# times; memos under 1 MiB, whose tables come in 256 KiB steps: up to 1.3
# times); a clear that leaks a share L of the memo each refill: 10 L.
MEMO_REPEAT_CPU_AT_MOST = 0.25
MEMO_AGAIN_CPU_AT_LEAST = 0.25
MEMO_REGROWTH_AT_MOST = 2.0
MEMO_REGROWTH_SLACK_BYTES = 512 << 10
MEMO_WALL_SECONDS = LIMITS["memo_seconds"]
# Scaling over the draws ([memo] smaller): from each smaller draw to the
# main one, resident memory must grow by at least MEMO_SCALE_BYTES_PER_POSITION
# for each further position reached (the model solution: about 140; a
# memo of 30 bytes a position still passes), and the first round's CPU
# time must rise at least MEMO_SCALE_CPU_AT_LEAST times as fast as the
# positions reached (the model solution: 1.8 times as fast; ballast touched
# once, or a fixed spin per question: not at all). A memo whose memory per
# position lies outside MEMO_PLAUSIBLE_BYTES_PER_POSITION is flagged
# memo_suspect for the staff (no points move on it): scaled ballast can
# pass every figure measured from outside, but rarely at a memo's size.
MEMO_SCALE_BYTES_PER_POSITION = 30
MEMO_SCALE_CPU_AT_LEAST = 0.25
MEMO_PLAUSIBLE_BYTES_PER_POSITION = (30, 2048)

# The growth probe (growth.py): the resident memory of a student process
# may grow at most this much between the warm-up and the end of its
# workload (honest code: 0 to 20 KiB, a few stack and heap pages first
# touched late; a leak of one array per freed position: megabytes).
GROWTH_LIMIT_BYTES = 128 << 10
GROWTH_WALL_SECONDS = LIMITS["growth_seconds"]


# The pace of a grading (pace.py, whose header gives the rule): every
# wall-clock limit is multiplied by a factor from a reference workload
# timed at the start of each grading: PACE_COPIES copies at once of the
# calibration solver on the single heap PACE_HEAP, whose wall time on one
# free core of the machine the limits were tuned on (two cores, Debian 12)
# is PACE_CPU_SECONDS (measured: 0.25-0.29 s for the probe, plus the
# sandbox's start). The factor is at least PACE_CORES over the CPUs the
# grading has (the tuning machine's cores; cgroup.available_cpus), and at
# most PACE_CAP; the grading's time cap, scaled, at most
# GRADING_CAP_CEILING seconds (under Gradescope's 10-minute default).
PACE_HEAP = 60
PACE_COPIES = SUITE_JOBS
PACE_CPU_SECONDS = 0.3
PACE_CORES = 2
PACE_CAP = 8.0
GRADING_CAP_CEILING = LIMITS["grading_cap_ceiling_seconds"]

# A student process's address space is lowered (pace.student_address_space_mib)
# so that STUDENT_PROCESSES_AT_ONCE of them (two runners side by side, each
# with Criterion's two jobs) and MEMORY_RESERVE_BYTES for the grader, its
# runners and the compiler fit in the container's memory; never below the
# floor (the model solution's processes need well under it).
STUDENT_PROCESSES_AT_ONCE = 4
MEMORY_RESERVE_BYTES = 256 << 20
STUDENT_ADDRESS_SPACE_FLOOR_MIB = 64
