"""Where things are and the numbers the grader runs with (one place to tune)."""

import os

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS = os.path.join(REPO, "build", "grader")
# The rendered handout `make grader-harness` writes (when pandoc is there):
# feedback links its sections (reports.handout_base).
HANDOUT = os.path.join(HARNESS, "handout.html")
RUBRIC = os.path.join(REPO, "grader", "rubric.txt")
HEADERS = ["grundy.h", "memo_table.h", "lab_todo.h"]
SUBMISSION_FILES = ["grundy_position.c", "grundy_solver.c"]
MAX_SOURCE_BYTES = 1 << 20
TASKS = [0, 1, 2]
TASK_TITLES = {0: "Task 0: the heap-count map and the moves",
               1: "Task 1: the recursive solver",
               2: "Task 2: memoization"}

# Which submission file each task's code lives in.
POSITION, SOLVER = SUBMISSION_FILES
FILE_OF_TASK = {0: POSITION, 1: SOLVER, 2: SOLVER}
DEFINES = {POSITION: ["grundy_new", "grundy_copy", "grundy_free", "grundy_count",
                      "grundy_add_heap", "grundy_remove_heap", "grundy_equals", "grundy_hash",
                      "grundy_get_moves"],
           SOLVER: ["grundy_is_terminal", "grundy_is_p_position", "grundy_is_n_position",
                    "grundy_memo_clear", "grundy_memo_size"]}

CFLAGS = ["-std=c11", "-g", "-O2", "-Wall", "-Wextra", "-D_POSIX_C_SOURCE=200809L"]
COVERAGE_CFLAGS = ["-std=c11", "-g", "-O0", "-D_POSIX_C_SOURCE=200809L", "--coverage"]
# A student program counts allocations and expansions (tests/support).
WRAPS = ["-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free",
         "-Wl,--wrap=grundy_get_moves"]

# Timing: the student's CPU time on each position may be at most
# TIMING_BUDGET_RATIO times the reference model solution's, measured in the
# same run (the best of REFERENCE_RUNS runs), both read from the kernel by
# the trusted timing probe. The positions are drawn from the hidden seed
# (timing.draw_positions): test name -> (number of heaps, total tokens
# range, required outcome or None). Two-heap positions are drawn until the
# oracle gives the outcome asked for, so every grading mixes P and N.
TIMED_SHAPES = {
    "single_heap": (1, (40, 46), None),
    "two_heaps_p": (2, (38, 46), "P"),
    "two_heaps_n": (2, (38, 46), "N"),
    "three_heaps": (3, (44, 52), None),
}
TIMING_BUDGET_RATIO = 20
REFERENCE_RUNS = 3

# Limits of one call into a student process during the suites: the
# wall-clock time the proxy waits (it shrinks to 2 s once two calls of a
# runner have timed out, see grader/boundary/proxy.c), and the CPU rlimit
# of each student process.
CALL_SECONDS = 8
STUDENT_CPU_SECONDS = 30

# The valgrind pass: these light tests, when they passed in the main run.
# Each runner and each test is a process of its own under valgrind, and
# every such process costs about a second and a half of CPU before it does
# anything (valgrind loads and instruments Criterion's twenty shared
# libraries), so the list is as short as it can be while it still reaches
# every function of both files the other functions call: building, growing,
# inserting, removing, copying and freeing maps, expanding two levels deep,
# both solver questions on single, multi-heap, paired and terminal
# positions, the memo's lookups, insertions and clearing. On the reference
# these four tests execute the same lines as the ten of the first version
# but one (89% of the two files), in less than half the time; their
# positions stay small enough for an unmemoized solver under valgrind's
# 20-50x slowdown.
MEMCHECK_TESTS = {
    0: ["task0::nothing_leaks", "task0::moves_two_levels_deep"],
    1: ["task1::p_and_n_always_disagree"],
    2: ["task2::clear_frees_everything"],
}

SUITE_JOBS = 2

# What root copies out of a sandbox-writable directory into OUT (safefs):
# bytes per file and per directory (coverage). check-fixtures allows 16 MiB
# of output per grading in all.
LOG_COPY_CAP = 1 << 20
LOG_DIR_CAP = 4 << 20

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

# Points that rest on a figure only the student process can report count
# only when a check made from outside passes too: test figure -> the
# check (a test id, "timing::*" meaning every timing check of the task).
GATES = {
    "expansions": "timing::*",
    "memo_size": "timing::*",
    "live_allocations": "memory::task{task}",
}

