/*
 * test_hidden_task6.c - Task 6, hidden suite (grader only; never given to
 * students): pairs cancel and nimbers, on randomized cases drawn from the
 * seed (see hidden_seed.h and README.md).
 *
 * Linked into the same runner as tests/public/suites/test_task6.c, so every helper
 * here is static and no test name repeats one of the public suite.
 * Expected answers come from the oracle: outcomes (oracle_is_p), nimbers
 * (oracle_nim_value), the reduced search's bound
 * (oracle_count_reachable_reduced), and the reduced heaps from
 * oracle_canonicalize with neighbouring equal heaps dropped in pairs.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task6_hidden::*'.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "child_run.h"
#include "cpu_budget.h"
#include "expansion_counter.h"
#include "grundy_nimbers.h"
#include "hidden_seed.h"
#include "lab_support.h"
#include "memo_solver.h"
#include "oracle.h"

TestSuite(task6_hidden, .description = "Task 6, hidden: pairs cancel, and nimbers", .timeout = 60);

#define RNG(name) hidden_rng("task6_hidden::" #name)

enum { MAX_HEAPS = 64 };

LAB_TEST(task6_hidden, cancel_pairs_random_multisets)
{
    /* Heights 1..12 with counts up to 7 (dead heaps too), added in a
     * random order. Sorted, equal heaps sit side by side, and pairs of
     * neighbours cancel. */
    unsigned rng = RNG(cancel_pairs_random_multisets);
    for (int round = 0; round < 40; round++) {
        int heaps[MAX_HEAPS], want[MAX_HEAPS], got[MAX_HEAPS];
        size_t n = 0;
        for (int k = hidden_between(&rng, 0, 6); k > 0; k--)
            for (int h = hidden_between(&rng, 1, 12), c = hidden_between(&rng, 1, 7); c > 0; c--)
                heaps[n++] = h;
        hidden_shuffle(heaps, n, &rng);
        memcpy(want, heaps, n * sizeof *heaps);
        size_t sorted = oracle_canonicalize(want, n), want_n = 0;
        for (size_t i = 0; i < sorted; i++) {
            if (i + 1 < sorted && want[i] == want[i + 1])
                i++;
            else
                want[want_n++] = want[i];
        }
        grundy_position *p = lab_build(heaps, n);
        grundy_position *reduced = grundy_cancel_pairs(p);
        size_t got_n =
            lab_expand_at_most(reduced, got, MAX_HEAPS, "the position grundy_cancel_pairs returned");
        LAB_EXPECT(got_n == want_n && memcmp(got, want, got_n * sizeof *got) == 0, SECTION_PAIRS,
                   "grundy_cancel_pairs(%s) returned %s; expected %s", lab_heaps_text(heaps, n),
                   lab_heaps_text(got, got_n), lab_heaps_text(want, want_n));
        grundy_free(reduced);
        grundy_free(p);
    }
}

static const memo_solver REDUCED = {
    "grundy_reduced_is_p", grundy_reduced_is_p, "grundy_reduced_memo_size", grundy_reduced_memo_size,
    "grundy_nimbers_clear", grundy_nimbers_clear, SECTION_PAIRS, .reduced_keys = true,
};

/* A reduced search on `heaps` (from an empty memo when `cold`): the
 * answer, and expansions within the bound of `bound_heaps` (the same
 * position, or it without its pairs): one per reduced position. */
static void reduced_within(const int *heaps, size_t n, const int *bound_heaps, size_t bound_n, bool cold,
                           const char *how)
{
    if (cold)
        grundy_nimbers_clear();
    (void)memo_solver_ask_within(&REDUCED, heaps, n, oracle_count_reachable_reduced(bound_heaps, bound_n) + 1, how);
}

LAB_TEST(task6_hidden, reduced_random_positions)
{
    unsigned rng = RNG(reduced_random_positions);
    for (int round = 0; round < 15; round++) {
        int heaps[16];
        size_t n = hidden_draw_heaps(&rng, heaps, 2, 5, 10, 26);
        if (lab_random(&rng) % 2)
            heaps[n++] = heaps[0]; /* a pair, sometimes */
        hidden_shuffle(heaps, n, &rng);
        reduced_within(heaps, n, heaps, n, true, " from an empty memo");
    }
}

LAB_TEST(task6_hidden, pairs_of_large_heaps_cost_nothing)
{
    /* {x} plus one to three pairs of heaps up to 40: searched as {x}. */
    unsigned rng = RNG(pairs_of_large_heaps_cost_nothing);
    for (int round = 0; round < 10; round++) {
        int x = hidden_between(&rng, 8, 24), heaps[16];
        size_t n = 0;
        heaps[n++] = x;
        for (int k = hidden_between(&rng, 1, 3); k > 0; k--) {
            int h = hidden_between(&rng, 20, 40);
            heaps[n++] = h;
            heaps[n++] = h;
        }
        hidden_shuffle(heaps, n, &rng);
        reduced_within(heaps, n, &x, 1, true, " (its pairs cancel, so it is searched as one heap)");
    }
}

LAB_TEST(task6_hidden, reduced_warm_memo)
{
    /* 20 questions without clearing: right answers, and each expands only
     * reduced positions reachable from its own start. */
    unsigned rng = RNG(reduced_warm_memo);
    grundy_nimbers_clear();
    for (int round = 0; round < 20; round++) {
        int heaps[16];
        size_t n = hidden_draw_heaps(&rng, heaps, 1, 4, 6, 24);
        reduced_within(heaps, n, heaps, n, false, " with a warm memo");
    }
    grundy_nimbers_clear();
}

LAB_TEST(task6_hidden, nim_values_in_random_order)
{
    /* A cold table, then heights up to 3000 asked in a random order: the
     * table must grow correctly whichever height comes first. */
    unsigned rng = RNG(nim_values_in_random_order);
    grundy_nimbers_clear();
    for (int round = 0; round < 40; round++) {
        int n = round % 4 == 0 ? hidden_between(&rng, 0, 40) : hidden_between(&rng, 0, 3000);
        int g = grundy_nim_value(n);
        LAB_EXPECT(g == oracle_nim_value(n), SECTION_NIMBERS, "grundy_nim_value(%d) returned %d; g(%d) = %d",
                   n, g, n, oracle_nim_value(n));
    }
    grundy_nimbers_clear();
}

/* The child's job: from a cold table, g(n) first (the table fills in one
 * deep question), then every smaller height again, which must be lookups.
 * Returns the sum of h * g(h). */
static size_t largest_first_job(const void *input, void *result)
{
    int n = *(const int *)input;
    long long sum = 0;
    grundy_nimbers_clear();
    for (int h = n; h >= 0; h--)
        sum += (long long)h * grundy_nim_value(h);
    grundy_nimbers_clear(); /* valgrind checks the child for leaks too */
    memcpy(result, &sum, sizeof sum);
    return sizeof sum;
}

LAB_TEST(task6_hidden, largest_height_first_within_budget)
{
    /* The public suite asks heights in increasing order; here the largest
     * comes first, and the rest must then cost a lookup each. Same budget
     * as the public suite: 100 x the oracle's plain mex, this run. */
    unsigned rng = RNG(largest_height_first_within_budget);
    int n = hidden_between(&rng, 3000, 6000);
    LAB_EXPECT(grundy_nim_value(30) == oracle_nim_value(30), SECTION_NIMBERS,
               "grundy_nim_value(30) returned %d; g(30) = %d", grundy_nim_value(30), oracle_nim_value(30));
    double budget = 0;
    if (!lab_skip_timing("task6"))
        budget = cpu_budget(100, cpu_budget_measure(cpu_budget_nim_by_definition, &n));
    child_result r = child_run(largest_first_job, &n, 0, budget);
    LAB_EXPECT(r.outcome == CHILD_FINISHED, SECTION_NIMBERS,
               "g(%d), then g(%d), ..., g(0) again, from a cold table with a CPU budget of %.3f s: "
               "%s; every value must stay in the table after the call that computed it",
               n, n - 1, budget,
               r.outcome == CHILD_CRASHED ? child_crash_text(&r) : "it did not finish within its budget");
    long long sum, want = 0;
    memcpy(&sum, r.result, sizeof sum);
    for (int h = 0; h <= n; h++)
        want += (long long)h * oracle_nim_value(h);
    LAB_EXPECT(sum == want, SECTION_NIMBERS,
               "asked from g(%d) down to g(0), grundy_nim_value gave values that differ from the "
               "nimbers g(0..%d)",
               n, n);
    grundy_nimbers_clear();
}

LAB_TEST(task6_hidden, nim_is_p_random_large_positions)
{
    /* Up to 10 distinct heights up to 3000, counts up to 5: about half of
     * them made P on purpose (a copy of a heap whose nimber equals the XOR
     * of the others is added when there is one). */
    unsigned rng = RNG(nim_is_p_random_large_positions);
    for (int round = 0; round < 40; round++) {
        int heaps[MAX_HEAPS];
        size_t n = 0;
        for (int k = hidden_between(&rng, 1, 10); k > 0; k--)
            for (int h = hidden_between(&rng, 1, 3000), c = hidden_between(&rng, 1, 5); c > 0; c--)
                heaps[n++] = h;
        unsigned sum = 0;
        for (size_t i = 0; i < n; i++)
            sum ^= (unsigned)oracle_nim_value(heaps[i]);
        for (int h = 3; h < 3000 && round % 2 == 0 && sum != 0; h++)
            if ((unsigned)oracle_nim_value(h) == sum) {
                heaps[n++] = h;
                sum = 0;
            }
        hidden_shuffle(heaps, n, &rng);
        grundy_position *p = lab_build(heaps, n);
        expansions_reset();
        bool is_p = grundy_nim_is_p(p);
        grundy_free(p);
        bool expected = oracle_is_p(heaps, n);
        LAB_EXPECT(is_p == expected && expansions() == 0, SECTION_NIMBERS,
                   "grundy_nim_is_p(%s) returned %s after %llu calls of grundy_get_moves; it is "
                   "%s, and the XOR of nimbers needs no moves",
                   lab_heaps_text(heaps, n), is_p ? "true" : "false", (unsigned long long)expansions(),
                   lab_outcome_text(expected));
    }
    grundy_nimbers_clear();
}

LAB_TEST(task6_hidden, nothing_leaks_in_a_random_workload)
{
    unsigned rng = RNG(nothing_leaks_in_a_random_workload);
    int probe = 30;
    (void)oracle_is_p(&probe, 1); /* the oracle's tables: allocated before counting */
    (void)oracle_count_reachable_reduced(&probe, 1);
    grundy_nimbers_clear();
    size_t before = alloc_live_blocks();
    for (int round = 0; round < 20; round++) {
        int heaps[16];
        size_t n = hidden_draw_heaps(&rng, heaps, 1, 4, 6, 22);
        grundy_position *p = lab_build(heaps, n);
        grundy_free(grundy_cancel_pairs(p));
        bool expected = oracle_is_p(heaps, n);
        bool reduced = grundy_reduced_is_p(p), nim = grundy_nim_is_p(p);
        LAB_EXPECT(reduced == expected && nim == expected, SECTION_NIMBERS,
                   "%s is %s; grundy_reduced_is_p returned %s and grundy_nim_is_p %s",
                   lab_heaps_text(heaps, n), lab_outcome_text(expected), reduced ? "true" : "false",
                   nim ? "true" : "false");
        int h = hidden_between(&rng, 0, 500);
        LAB_EXPECT(grundy_nim_value(h) == oracle_nim_value(h), SECTION_NIMBERS,
                   "grundy_nim_value(%d) returned %d; g(%d) = %d", h, grundy_nim_value(h), h,
                   oracle_nim_value(h));
        grundy_free(p);
        if (round % 7 == 6)
            grundy_nimbers_clear(); /* and clearing in the middle of it */
    }
    grundy_nimbers_clear();
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_NIMBERS,
               "%zu heap block(s) are still allocated after a random mix of Task 6 calls and "
               "grundy_nimbers_clear()",
               after - before);
}
