/*
 * test_task8.c - Task 8 (optional): the solver without recursion.
 *
 * Answers come from the oracle (oracle_is_p, by nimbers: nothing like a
 * search). The memo is checked by counting calls of grundy_get_moves, as
 * in Task 2. "No recursion" is checked from outside: deep positions are
 * solved in a child process on a thread with a 64 KiB stack (child_run.h),
 * where a recursive solver, which needs a frame per move of the line of
 * play it is exploring, overflows long before the end; an explicit stack
 * on the heap does not care.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task8::*'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "child_run.h"
#include "cpu_budget.h"
#include "deep_position.h"
#include "expansion_counter.h"
#include "grundy_stack.h"
#include "lab_support.h"
#include "memo_solver.h"
#include "oracle.h"

TestSuite(task8, .description = "Task 8: the solver without recursion", .timeout = 120);

/* The stack of the deep tests, and their CPU budget: STACK_BUDGET_RATIO
 * times the calibration solver's time on one heap of STACK_YARDSTICK_HEAP,
 * measured in this run (see the handout, "How Task 8 is checked"). */
enum { SMALL_STACK = 64 * 1024, STACK_BUDGET_RATIO = 40, STACK_YARDSTICK_HEAP = 44 };

static const memo_solver STACK = {
    "grundy_stack_is_p", grundy_stack_is_p, "grundy_stack_memo_size", grundy_stack_memo_size,
    "grundy_stack_memo_clear", grundy_stack_memo_clear, SECTION_STACK, false,
};

static void expect_answer(const int *heaps, size_t n)
{
    memo_solver_answer(&STACK, heaps, n);
}

LAB_TEST(task8, terminal_and_small_heaps)
{
    expect_answer(LAB_HEAPS(3)); /* N: a solver that always says "not P" fails below */
    expect_answer(NULL, 0);
    expect_answer(LAB_HEAPS(2, 1, 1));
    for (int h = 4; h <= 20; h++)
        expect_answer(&h, 1);
    grundy_stack_memo_clear();
}

LAB_TEST(task8, multi_heap_positions)
{
    for (int a = 3; a <= 10; a++)
        for (int b = a; a + b <= 20; b++)
            expect_answer(LAB_HEAPS(a, b));
    expect_answer(LAB_HEAPS(3, 4, 5, 6));
    expect_answer(LAB_HEAPS(4, 4, 6, 6));
    expect_answer(LAB_HEAPS(1, 2, 7, 8, 2));
    expect_answer(LAB_HEAPS(3, 3, 3, 3, 3, 4, 4));
    grundy_stack_memo_clear();
}

LAB_TEST(task8, position_unchanged)
{
    const int heaps[] = {7, 3, 4, 3}; /* P (the oracle checks): a stub's "false" is wrong */
    int before[LAB_MAX_HEAPS], after[LAB_MAX_HEAPS];
    grundy_position *p = lab_build(heaps, 4);
    size_t before_n = lab_expand(p, before, "the position before grundy_stack_is_p");
    grundy_stack_memo_clear(); /* cold: the search really starts from p */
    bool is_p = grundy_stack_is_p(p);
    LAB_EXPECT(is_p == oracle_is_p(heaps, 4), SECTION_STACK, "grundy_stack_is_p(%s) returned %s",
               lab_heaps_text(heaps, 4), is_p ? "true" : "false");
    size_t after_n = lab_expand(p, after, "the position after grundy_stack_is_p");
    LAB_EXPECT(after_n == before_n && memcmp(after, before, after_n * sizeof *after) == 0, SECTION_STACK,
               "grundy_stack_is_p changed its argument: %s became %s", lab_heaps_text(before, before_n),
               lab_heaps_text(after, after_n));
    grundy_free(p);
    grundy_stack_memo_clear();
}

/* grundy_stack_is_p({heap}) and the expansions it made. */
static uint64_t expansions_of(int heap)
{
    return memo_solver_ask(&STACK, &heap, 1);
}

LAB_TEST(task8, memoized_like_task_2)
{
    for (int heap = 14; heap <= 22; heap += 4) {
        grundy_stack_memo_clear();
        uint64_t bound = oracle_count_reachable_nonterminal(&heap, 1) + 1; /* + {} */
        uint64_t used = expansions_of(heap);
        LAB_EXPECT_MEMO(memo_solver_evidence(&STACK), used >= 1 && used <= bound, SECTION_STACK,
                        "grundy_stack_is_p({%d=1}) from an empty memo called grundy_get_moves %llu "
                        "times; expected between 1 and %llu (the distinct positions reachable, "
                        "counting {}): look each position up before expanding it, and store every "
                        "answer",
                        heap, (unsigned long long)used, (unsigned long long)bound);
        uint64_t again = expansions_of(heap);
        LAB_EXPECT_MEMO(memo_solver_evidence(&STACK), again <= 1, SECTION_STACK,
                        "asking grundy_stack_is_p({%d=1}) a second time called grundy_get_moves %llu "
                        "times; its answer is in the memo, so at most 1",
                        heap, (unsigned long long)again);
    }
    grundy_stack_memo_clear();
}

LAB_TEST(task8, memo_is_its_own_and_clears)
{
    int heap = 20;
    memo_solver_expect_own_memo(&STACK, heap, oracle_count_reachable_nonterminal(&heap, 1) + 1);
}

LAB_TEST(task8, nothing_leaks)
{
    int heap = 18;
    (void)oracle_is_p(&heap, 1); /* the oracle's table: allocated before counting */
    grundy_stack_memo_clear();
    size_t before = alloc_live_blocks();
    for (int h = 10; h <= 18; h++) /* {10} is P, the others N */
        expect_answer(&h, 1);
    expect_answer(LAB_HEAPS(4, 4, 9));
    grundy_stack_memo_clear();
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_STACK,
               "%zu heap block(s) are still allocated after solving {10=1} ... {18=1} and {4=2, 9=1} "
               "and calling grundy_stack_memo_clear(); free the frames array, every move list (also "
               "when a frame is popped early) and the memo (run `make memcheck` to see where they "
               "were allocated)",
               after - before);
}

static void expect_deep(int threes, const int *others, size_t n_others, double budget)
{
    deep_position d = {threes, {0}, n_others, grundy_stack_is_p, grundy_stack_memo_clear};
    if (n_others > 0)
        memcpy(d.others, others, n_others * sizeof *others);
    const char *text = deep_position_text(&d);
    child_result r = child_run(deep_position_job, &d, SMALL_STACK, budget);
    if (r.outcome == CHILD_CRASHED) {
        char crash[192];
        snprintf(crash, sizeof crash, "%s", child_crash_text(&r));
        LAB_EXPECT(false, SECTION_STACK, "grundy_stack_is_p(%s) on a thread with a 64 KiB stack: %s. %s",
                   text, crash, deep_position_crash_cause(&d, budget));
    }
    /* Over budget: the child's memo is gone with it, but the memo's
     * record of small questions asked here names a memo mistake behind
     * the slowness, under the cause the memo tests name too. */
    LAB_EXPECT_MEMO(memo_solver_evidence(&STACK), r.outcome == CHILD_FINISHED, SECTION_STACK,
                    "grundy_stack_is_p(%s) did not finish within its CPU budget of %.3f s (%d x the "
                    "calibration solver's time on {%d=1}); are answers stored in the memo and looked "
                    "up before a position is expanded?",
                    text, budget, STACK_BUDGET_RATIO, STACK_YARDSTICK_HEAP);
    bool is_p, expected = deep_position_is_p(&d);
    memcpy(&is_p, r.result, sizeof is_p);
    LAB_EXPECT(r.result_size == sizeof is_p && is_p == expected, SECTION_STACK,
               "grundy_stack_is_p(%s) returned %s; it is %s", text, is_p ? "true" : "false",
               lab_outcome_text(expected));
    if (budget > 0)
        cr_log_info("%s: %.4f s CPU, budget %.3f s (%.1f%% of it)", text, r.cpu_seconds, budget,
                    100 * r.cpu_seconds / budget);
}

LAB_TEST(task8, deep_positions_on_a_small_stack)
{
    /* Small questions first, in this process: a stub or a wrong answer is
     * reported as such rather than as a crash in the child. */
    expect_answer(LAB_HEAPS(3, 3, 3, 5));
    grundy_stack_memo_clear();
    double budget = 0; /* under valgrind (LAB_SKIP_TIMING): only the wall-clock limit */
    if (!lab_skip_timing("task8")) {
        int heap = STACK_YARDSTICK_HEAP;
        budget = cpu_budget(STACK_BUDGET_RATIO, cpu_budget_measure(cpu_budget_calibration_heap, &heap));
    }
    expect_deep(20000, NULL, 0, budget);
    expect_deep(12000, LAB_HEAPS(5), budget);
    expect_deep(8001, LAB_HEAPS(4, 6), budget);
}
