/*
 * test_task6.c - Task 6 (optional): pairs cancel, and nimbers.
 *
 * Expected answers come from the oracle (reference/oracle): outcomes from
 * oracle_is_p, nimbers from oracle_nim_value, and the bound on the
 * reduced search's expansions from oracle_count_reachable_reduced (every
 * reduced position reachable from the start, each expanded at most once).
 * What grundy_cancel_pairs must return is worked out here from the heaps
 * by counting (a height stays once when its count is odd). The memo
 * checks count calls of grundy_get_moves (expansion_counter.h); the
 * nimber memo is checked by CPU time against the oracle's plain mex, in
 * a child process (child_run.h, cpu_budget.h).
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task6::*'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "child_run.h"
#include "cpu_budget.h"
#include "expansion_counter.h"
#include "grundy_nimbers.h"
#include "lab_support.h"
#include "memo_solver.h"
#include "oracle.h"

TestSuite(task6, .description = "Task 6: pairs cancel, and nimbers", .timeout = 120);

/* ---- the reduction ---- */

/* The heaps of `heaps` with pairs cancelled, worked out by counting:
 * ascending, each height once when its count is odd. */
static size_t without_pairs(const int *heaps, size_t n, int *out)
{
    enum { TALLEST = 512 };
    static int count[TALLEST];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        if (heaps[i] >= 3 && heaps[i] < TALLEST)
            count[heaps[i]]++;
    size_t m = 0;
    for (int h = 3; h < TALLEST; h++)
        if (count[h] % 2 == 1)
            out[m++] = h;
    return m;
}

static void expect_cancelled(const int *heaps, size_t n)
{
    const char *text = lab_heaps_text(heaps, n);
    int want[LAB_MAX_HEAPS], got[LAB_MAX_HEAPS], after[LAB_MAX_HEAPS];
    size_t want_n = without_pairs(heaps, n, want);
    grundy_position *p = lab_build(heaps, n);
    size_t before_n = lab_expand(p, after, "the position before grundy_cancel_pairs");
    grundy_position *reduced = grundy_cancel_pairs(p);
    LAB_EXPECT(reduced != p, SECTION_PAIRS,
               "grundy_cancel_pairs(%s) returned its argument; it must return a new position", text);
    size_t got_n = lab_expand(reduced, got, "the position grundy_cancel_pairs returned");
    LAB_EXPECT(got_n == want_n && memcmp(got, want, got_n * sizeof *got) == 0, SECTION_PAIRS,
               "grundy_cancel_pairs(%s) returned %s; expected %s: each height keeps its count "
               "modulo 2 (an even count leaves no entry, an odd one leaves 1)",
               text, lab_heaps_text(got, got_n), lab_heaps_text(want, want_n));
    size_t after_n = lab_expand(p, after, "the position after grundy_cancel_pairs");
    LAB_EXPECT(after_n == before_n, SECTION_PAIRS, "grundy_cancel_pairs changed its argument: %s became %s",
               text, lab_heaps_text(after, after_n));
    grundy_free(reduced);
    grundy_free(p);
}

LAB_TEST(task6, cancel_pairs_examples)
{
    expect_cancelled(LAB_HEAPS(3, 3));
    expect_cancelled(LAB_HEAPS(3, 3, 3));
    expect_cancelled(LAB_HEAPS(5, 4, 5, 7, 5, 5, 4));
    expect_cancelled(LAB_HEAPS(6));
    expect_cancelled(LAB_HEAPS(9, 1, 2, 9, 1));
    expect_cancelled(NULL, 0);
}

LAB_TEST(task6, cancel_pairs_random)
{
    unsigned seed = 606;
    for (int round = 0; round < 60; round++) {
        int heaps[40];
        size_t n = lab_random(&seed) % 40;
        for (size_t i = 0; i < n; i++)
            heaps[i] = 1 + (int)(lab_random(&seed) % 9); /* many repeats, dead heaps too */
        expect_cancelled(heaps, n);
    }
}

/* ---- the search over reduced positions ---- */

static const memo_solver REDUCED = {
    "grundy_reduced_is_p", grundy_reduced_is_p, "grundy_reduced_memo_size", grundy_reduced_memo_size,
    "grundy_nimbers_clear", grundy_nimbers_clear, SECTION_PAIRS, .reduced_keys = true,
};

static void expect_reduced_answer(const int *heaps, size_t n)
{
    memo_solver_answer(&REDUCED, heaps, n);
}

LAB_TEST(task6, reduced_search_answers)
{
    for (int h = 0; h <= 24; h++)
        expect_reduced_answer(&h, 1);
    for (int a = 3; a <= 9; a++)
        for (int b = a; a + b <= 20; b++)
            expect_reduced_answer(LAB_HEAPS(a, b));
    expect_reduced_answer(LAB_HEAPS(7, 7, 7));
    expect_reduced_answer(LAB_HEAPS(4, 9, 9, 13, 4));
    expect_reduced_answer(LAB_HEAPS(1, 2, 3, 3, 3, 2));
    grundy_nimbers_clear();
}

/* Expansions of grundy_reduced_is_p(heaps) from a cold memo, checked
 * against the bound for `bound_heaps` (the same position, or one that
 * differs only by pairs). */
static void expect_reduced_bound(const int *heaps, size_t n, const int *bound_heaps, size_t bound_n)
{
    uint64_t bound = oracle_count_reachable_reduced(bound_heaps, bound_n) + 1; /* + {} */
    grundy_nimbers_clear();
    /* A clear that forgets one of the two memos is named as such, not as
     * a search that never expands (the evidence: the memo's own size). */
    size_t left = grundy_reduced_memo_size();
    LAB_EXPECT(left == 0, SECTION_PAIRS,
               "right after grundy_nimbers_clear(), grundy_reduced_memo_size() is %zu; expected 0: "
               "grundy_nimbers_clear() must empty both of Task 6's memos, the reduced search's and "
               "the nimbers' (it left the reduced search's, so the next question is answered from "
               "it)",
               left);
    uint64_t used = memo_solver_ask(&REDUCED, heaps, n);
    LAB_EXPECT(used <= bound, SECTION_PAIRS,
               "grundy_reduced_is_p(%s) from an empty memo called grundy_get_moves %llu times, but "
               "only %llu distinct positions without pairs are reachable (counting {}): reduce "
               "every position with grundy_cancel_pairs before you look it up, expand it or store "
               "it, not just the first one",
               lab_heaps_text(heaps, n), (unsigned long long)used, (unsigned long long)bound);
    LAB_EXPECT(used >= 1 || bound == 1, SECTION_PAIRS,
               "grundy_reduced_is_p(%s) from an empty memo never called grundy_get_moves; the search "
               "finds moves with grundy_get_moves",
               lab_heaps_text(heaps, n));
}

LAB_TEST(task6, reduced_search_expands_each_reduced_position_once)
{
    for (int h = 16; h <= 28; h += 4)
        expect_reduced_bound(&h, 1, &h, 1);
    expect_reduced_bound(LAB_HEAPS(9, 14), LAB_HEAPS(9, 14));
    expect_reduced_bound(LAB_HEAPS(5, 6, 7, 8), LAB_HEAPS(5, 6, 7, 8));
    grundy_nimbers_clear();
}

LAB_TEST(task6, pairs_cost_nothing)
{
    /* With every position reduced first, {x, h, h} is searched exactly as
     * {x}: a pair of 20s must not cost the thousands of positions that
     * splitting them would reach. */
    expect_reduced_bound(LAB_HEAPS(18, 20, 20), LAB_HEAPS(18));
    expect_reduced_bound(LAB_HEAPS(11, 24, 24, 6, 6), LAB_HEAPS(11));
    expect_reduced_bound(LAB_HEAPS(30, 30, 30), LAB_HEAPS(30));
    grundy_nimbers_clear();
}

LAB_TEST(task6, reduced_memo_is_its_own)
{
    int heap = 20;
    memo_solver_expect_own_memo(&REDUCED, heap, oracle_count_reachable_reduced(&heap, 1) + 1);
}

/* ---- nimbers ---- */

LAB_TEST(task6, nim_values)
{
    expansions_reset();
    for (int n = 0; n <= 300; n++) {
        lab_trace("grundy_nim_value(%d), after g(0) ... g(%d)", n, n - 1);
        int g = grundy_nim_value(n);
        /* The rule of splits means something only where a heap has one. */
        if (n < 3)
            LAB_EXPECT(g == oracle_nim_value(n), SECTION_NIMBERS,
                       "grundy_nim_value(%d) returned %d; g(%d) = %d (a heap of %d has no split into "
                       "two different heights, so no move: the mex of nothing is 0)",
                       n, g, n, oracle_nim_value(n), n);
        else
            LAB_EXPECT(g == oracle_nim_value(n), SECTION_NIMBERS,
                       "grundy_nim_value(%d) returned %d; g(%d) = %d (the mex of g(a) XOR g(%d - a) "
                       "over the splits 1 <= a < %d - a)",
                       n, g, n, oracle_nim_value(n), n, n);
    }
    LAB_EXPECT(grundy_nim_value(-1) == -1, SECTION_NIMBERS,
               "grundy_nim_value(-1) returned %d; expected -1 (grundy_nimbers.h: a negative height "
               "has no nimber, so the function returns -1 before it looks at any table)",
               grundy_nim_value(-1));
    LAB_EXPECT(expansions() == 0, SECTION_NIMBERS,
               "computing nimbers called grundy_get_moves %llu times; the options of one heap are "
               "pairs of heaps, whose nimber is g(a) XOR g(n - a): no positions needed",
               (unsigned long long)expansions());
    grundy_nimbers_clear();
}

/* The child's job: g(0), ..., g(n) from a cold table; returns g(n) and
 * g(NIM_CHECKED_HEIGHT), asked again once the table is full. */
enum { NIM_CHECKED_HEIGHT = 40 };
static size_t nim_values_cold(const void *input, void *result)
{
    int n = *(const int *)input, g[2] = {-1, -1};
    grundy_nimbers_clear();
    for (int h = 0; h <= n; h++)
        g[0] = grundy_nim_value(h);
    g[1] = grundy_nim_value(NIM_CHECKED_HEIGHT);
    grundy_nimbers_clear(); /* valgrind checks the child for leaks too */
    memcpy(result, g, sizeof g);
    return sizeof g;
}

/* The same without the first clear: the table the test filled stays. */
static size_t nim_values_warm(const void *input, void *result)
{
    int n = *(const int *)input, g = -1;
    for (int h = 0; h <= n; h++)
        g = grundy_nim_value(h);
    grundy_nimbers_clear();
    memcpy(result, &g, sizeof g);
    return sizeof g;
}

/* From the definition, g(n) needs every smaller value: without a memo
 * they are recomputed over and over, exponentially often. The budget is
 * NIM_BUDGET_RATIO times the oracle's plain mex over the same heights
 * (the same O(n^2) work) measured in this run; the model solution needs
 * a fraction of that (handout, "How Task 6 is checked"). */
enum { NIM_TIMED_HEIGHT = 5000, NIM_BUDGET_RATIO = 100 };

LAB_TEST(task6, nim_values_are_memoized)
{
    if (lab_skip_timing("task6"))
        LAB_SKIP("timing checks are skipped (LAB_SKIP_TIMING is set)");
    /* Every call of grundy_nim_value is made in the child, under the
     * budget: without a memo, even g(40) alone takes about 3.3e11 calls,
     * hours outside of a budget. */
    int n = NIM_TIMED_HEIGHT;
    /* One cheap call here first (g(3) is two calls even without a memo),
     * so that a stub is reported as not implemented rather than as a
     * wrong answer from the child. */
    lab_trace("grundy_nim_value(3)");
    (void)grundy_nim_value(3);
    /* No clear here: the child clears first, and a crash after that clear
     * is told from one in the computation by a child without it. */
    double budget = cpu_budget(NIM_BUDGET_RATIO, cpu_budget_measure(cpu_budget_nim_by_definition, &n));
    child_result r = child_run(nim_values_cold, &n, 0, budget);
    if (r.outcome == CHILD_CRASHED) {
        /* Which step crashed: the clear's aftermath, or the computation?
         * The same heights without the clear first tell them apart. */
        char crash[192];
        snprintf(crash, sizeof crash, "%s", child_crash_text(&r));
        child_result warm = child_run(nim_values_warm, &n, 0, 0);
        LAB_EXPECT(warm.outcome == CHILD_CRASHED, SECTION_NIMBERS,
                   "computing g(0), ..., g(%d) right after grundy_nimbers_clear() (g(3) was known "
                   "before the clear): %s; without that clear the same computation does not crash. "
                   "So the clear leaves the table half reset: freed but still pointed to, or NULL "
                   "with its capacity kept. After free(table), set the pointer to NULL and the "
                   "capacity to 0",
                   n, crash);
        LAB_EXPECT(false, SECTION_NIMBERS, "computing g(0), ..., g(%d) from a cold table: %s", n, crash);
    }
    LAB_EXPECT(r.outcome == CHILD_FINISHED, SECTION_NIMBERS,
               "computing g(0), ..., g(%d) from a cold table did not finish within its CPU budget of "
               "%.3f s (%d x the oracle's plain mex over the same heights); is every value "
               "remembered in the table, and looked up before it is computed?",
               n, budget, NIM_BUDGET_RATIO);
    int g[2];
    memcpy(g, r.result, sizeof g);
    LAB_EXPECT(g[1] == oracle_nim_value(NIM_CHECKED_HEIGHT), SECTION_NIMBERS,
               "grundy_nim_value(%d) returned %d; g(%d) = %d", NIM_CHECKED_HEIGHT, g[1], NIM_CHECKED_HEIGHT,
               oracle_nim_value(NIM_CHECKED_HEIGHT));
    LAB_EXPECT(g[0] == oracle_nim_value(n), SECTION_NIMBERS, "grundy_nim_value(%d) returned %d; g(%d) = %d", n,
               g[0], n, oracle_nim_value(n));
    cr_log_info("g(0..%d): %.4f s CPU, budget %.3f s (%.1f%% of it)", n, r.cpu_seconds, budget,
                100 * r.cpu_seconds / budget);
    grundy_nimbers_clear();
}

static void expect_nim_answer(const int *heaps, size_t n)
{
    grundy_position *p = lab_build(heaps, n);
    expansions_reset();
    lab_trace("grundy_nim_is_p(%s)", lab_heaps_text(heaps, n));
    bool is_p = grundy_nim_is_p(p);
    uint64_t used = expansions();
    bool expected = oracle_is_p(heaps, n);
    LAB_EXPECT(is_p == expected, SECTION_NIMBERS,
               "grundy_nim_is_p(%s) returned %s; it is %s (the XOR of its heaps' nimbers is %s0)",
               lab_heaps_text(heaps, n), is_p ? "true" : "false", lab_outcome_text(expected),
               expected ? "" : "not ");
    LAB_EXPECT(used == 0, SECTION_NIMBERS,
               "grundy_nim_is_p(%s) called grundy_get_moves %llu times; with nimbers there is nothing "
               "to search",
               lab_heaps_text(heaps, n), (unsigned long long)used);
    grundy_free(p);
}

LAB_TEST(task6, nim_is_p_small_positions)
{
    expect_nim_answer(NULL, 0);
    for (int h = 1; h <= 30; h++)
        expect_nim_answer(&h, 1);
    for (int a = 3; a <= 12; a++)
        for (int b = a; b <= 14; b++)
            expect_nim_answer(LAB_HEAPS(a, b));
    expect_nim_answer(LAB_HEAPS(3, 3, 3));
    expect_nim_answer(LAB_HEAPS(5, 9, 12, 9, 1, 2));
    grundy_nimbers_clear();
}

LAB_TEST(task6, nim_is_p_large_positions)
{
    /* Far beyond any search: heaps up to 1500, heights repeated. */
    unsigned seed = 6006;
    for (int round = 0; round < 40; round++) {
        int heaps[12];
        size_t n = 1 + lab_random(&seed) % 12;
        for (size_t i = 0; i < n; i++)
            heaps[i] = i > 0 && lab_random(&seed) % 3 == 0 ? heaps[i - 1] : 3 + (int)(lab_random(&seed) % 1498);
        expect_nim_answer(heaps, n);
    }
    grundy_nimbers_clear();
}

LAB_TEST(task6, clear_frees_everything)
{
    int heap = 24;
    (void)oracle_is_p(&heap, 1); /* the oracle caches tables: let them allocate now */
    (void)oracle_count_reachable_reduced(&heap, 1);
    grundy_nimbers_clear();
    size_t before = alloc_live_blocks();
    expect_reduced_answer(&heap, 1);
    expect_nim_answer(LAB_HEAPS(100, 57, 57, 3));
    LAB_EXPECT(grundy_reduced_memo_size() >= 1, SECTION_PAIRS,
               "after grundy_reduced_is_p({24=1}), grundy_reduced_memo_size() is 0: nothing was memoized");
    grundy_nimbers_clear();
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_NIMBERS,
               "%zu heap block(s) are still allocated after a reduced search, a nimber question and "
               "grundy_nimbers_clear(); it must free the nimber table, the memo and its keys (run "
               "`make memcheck` to see where they were allocated)",
               after - before);
}
