/*
 * test_hidden_task8.c - Task 8, hidden suite (grader only; never given to
 * students): the solver without recursion, on randomized positions drawn
 * from the seed (see hidden_seed.h and README.md), and deep positions on a
 * 32 KiB stack, half the public suite's.
 *
 * Linked into the same runner as tests/public/suites/test_task8.c, so every helper
 * here is static and no test name repeats one of the public suite.
 * Answers come from the oracle (oracle_is_p); expansion bounds from
 * oracle_count_reachable_nonterminal, as in Task 2's hidden suite.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task8_hidden::*'.
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
#include "hidden_seed.h"
#include "lab_support.h"
#include "memo_solver.h"
#include "oracle.h"

TestSuite(task8_hidden, .description = "Task 8, hidden: the solver without recursion", .timeout = 120);

#define RNG(name) hidden_rng("task8_hidden::" #name)

static const memo_solver STACK = {
    "grundy_stack_is_p", grundy_stack_is_p, "grundy_stack_memo_size", grundy_stack_memo_size,
    "grundy_stack_memo_clear", grundy_stack_memo_clear, SECTION_STACK, false,
};

/* Solves `heaps` (built in this order) and checks the answer; with
 * `bounded`, also that it expanded only reachable positions, each once. */
static void solve(const int *heaps, size_t n, bool bounded, const char *how)
{
    uint64_t bound = bounded ? oracle_count_reachable_nonterminal(heaps, n) + 1 : 0; /* + {} */
    (void)memo_solver_ask_within(&STACK, heaps, n, bound, how);
}

LAB_TEST(task8_hidden, random_positions_from_a_cold_memo)
{
    unsigned rng = RNG(random_positions_from_a_cold_memo);
    for (int round = 0; round < 20; round++) {
        int heaps[16];
        size_t n = hidden_draw_heaps(&rng, heaps, 2, 6, 6, 22);
        for (int k = hidden_between(&rng, 0, 2); k > 0; k--)
            heaps[n++] = hidden_between(&rng, 0, 2);
        hidden_shuffle(heaps, n, &rng);
        grundy_stack_memo_clear();
        solve(heaps, n, true, " from an empty memo");
    }
    grundy_stack_memo_clear();
}

LAB_TEST(task8_hidden, random_positions_with_a_warm_memo)
{
    /* 30 questions without clearing, some of them repeated. */
    unsigned rng = RNG(random_positions_with_a_warm_memo);
    int heaps[30][16];
    size_t n[30];
    grundy_stack_memo_clear();
    for (int round = 0; round < 30; round++) {
        int again = round > 0 && lab_random(&rng) % 4 == 0 ? hidden_between(&rng, 0, round - 1) : -1;
        if (again >= 0) {
            memcpy(heaps[round], heaps[again], sizeof heaps[round]);
            n[round] = n[again];
        } else {
            n[round] = hidden_draw_heaps(&rng, heaps[round], 1, 5, 3, 22);
        }
        solve(heaps[round], n[round], true, " with a warm memo");
    }
    grundy_stack_memo_clear();
}

LAB_TEST(task8_hidden, deep_random_positions_on_a_smaller_stack)
{
    /* 8,000 to 20,000 heaps of 3 and up to two other heaps of 4 to 7: a
     * game lasts at least one move per heap, on a 32 KiB stack. */
    unsigned rng = RNG(deep_random_positions_on_a_smaller_stack);
    solve(LAB_HEAPS(3, 3, 4, 7), true, ""); /* here first: a stub is reported as one */
    grundy_stack_memo_clear();
    double budget = 0;
    if (!lab_skip_timing("task8")) {
        int heap = 44; /* the public suite's yardstick and ratio */
        budget = cpu_budget(40, cpu_budget_measure(cpu_budget_calibration_heap, &heap));
    }
    for (int round = 0; round < 3; round++) {
        deep_position d = {hidden_between(&rng, 8000, 20000), {0}, 0, grundy_stack_is_p,
                           grundy_stack_memo_clear};
        for (int k = hidden_between(&rng, 0, 2), h = hidden_between(&rng, 4, 7); k > 0; k--, h = h == 7 ? 4 : h + 1)
            d.others[d.n_others++] = h;
        char text[64];
        snprintf(text, sizeof text, "%s", deep_position_text(&d));
        child_result r = child_run(deep_position_job, &d, 32 * 1024, budget);
        if (r.outcome == CHILD_CRASHED) {
            char crash[192];
            snprintf(crash, sizeof crash, "%s", child_crash_text(&r));
            LAB_EXPECT(false, SECTION_STACK, "grundy_stack_is_p(%s) on a thread with a 32 KiB stack: %s. %s",
                       text, crash, deep_position_crash_cause(&d, budget));
        }
        LAB_EXPECT(r.outcome == CHILD_FINISHED, SECTION_STACK,
                   "grundy_stack_is_p(%s) on a thread with a 32 KiB stack did not finish within its "
                   "CPU budget of %.3f s; are answers stored in the memo and looked up before a "
                   "position is expanded?",
                   text, budget);
        bool is_p, expected = deep_position_is_p(&d);
        memcpy(&is_p, r.result, sizeof is_p);
        LAB_EXPECT(is_p == expected, SECTION_STACK, "grundy_stack_is_p(%s) returned %s; it is %s",
                   text, is_p ? "true" : "false", lab_outcome_text(expected));
    }
}

LAB_TEST(task8_hidden, nothing_leaks_with_early_returns)
{
    /* N-positions stop at their first winning move, with moves left in
     * their lists: those lists must be freed too. */
    unsigned rng = RNG(nothing_leaks_with_early_returns);
    int probe = 20;
    (void)oracle_is_p(&probe, 1); /* the oracle's table: allocated before counting */
    grundy_stack_memo_clear();
    size_t before = alloc_live_blocks();
    for (int round = 0; round < 20; round++) {
        int heaps[16];
        size_t n = hidden_draw_heaps(&rng, heaps, 1, 5, 3, 20);
        solve(heaps, n, false, "");
        if (round % 8 == 7)
            grundy_stack_memo_clear();
    }
    grundy_stack_memo_clear();
    LAB_EXPECT(alloc_live_blocks() == before, SECTION_STACK,
               "%zu heap block(s) are still allocated after 20 questions and "
               "grundy_stack_memo_clear(); free the frames, every move list and the memo",
               alloc_live_blocks() - before);
}
