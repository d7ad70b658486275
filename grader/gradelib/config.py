"""Where things are and the numbers the grader runs with (one place to tune)."""

import os

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS = os.path.join(REPO, "build", "grader")
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
WRAPS = ["-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free",
         "-Wl,--wrap=grundy_get_moves"]
PROBE_WRAPS = ["-Wl,--wrap=grundy_get_moves"]
RUNNER_LIBS = ["-lcriterion", "-ljansson"]

# Timing: the student's CPU time on each position may be at most
# TIMING_BUDGET_RATIO times the reference model solution's, measured in the
# same run (the best of REFERENCE_RUNS runs).
TIMED_POSITIONS = [[45], [50], [20, 23]]
TIMING_BUDGET_RATIO = 20
REFERENCE_RUNS = 3

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

