/*
 * test_hidden_task7.c - Task 7, hidden suite (grader only; never given to
 * students): the bottom-up table on random sizes drawn from the seed (see
 * hidden_seed.h and README.md), tables asked one after another, and a
 * deeper table on a smaller stack than the public suite's.
 *
 * Linked into the same runner as tests/public/suites/test_task7.c, so every helper
 * here is static and no test name repeats one of the public suite. Every
 * value is compared with oracle_nim_value.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task7_hidden::*'.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "child_run.h"
#include "cpu_budget.h"
#include "grundy_table.h"
#include "hidden_seed.h"
#include "lab_support.h"
#include "oracle.h"

TestSuite(task7_hidden, .description = "Task 7, hidden: the nimbers, bottom-up", .timeout = 60);

#define RNG(name) hidden_rng("task7_hidden::" #name)

/* Checks g[0 .. length-1] as the table for n; `how` says which call. */
static void table_matches(const int *g, size_t length, int n, const char *how)
{
    LAB_EXPECT(g != NULL && length == (size_t)n + 1, SECTION_TABLE,
               "grundy_nim_table(%d, &length)%s returned %s with length %zu; expected g(0..%d), %d "
               "values",
               n, how, g == NULL ? "NULL" : "a table", length, n, n + 1);
    for (int h = 0; h <= n; h++)
        LAB_EXPECT(g[h] == oracle_nim_value(h), SECTION_TABLE,
                   "grundy_nim_table(%d, &length)%s: g[%d] is %d, expected %d", n, how, h, g[h],
                   oracle_nim_value(h));
}

LAB_TEST(task7_hidden, random_sizes)
{
    unsigned rng = RNG(random_sizes);
    for (int round = 0; round < 12; round++) {
        int n = round < 4 ? hidden_between(&rng, 0, 12) : hidden_between(&rng, 13, 3000);
        size_t length = 7;
        int *g = grundy_nim_table(n, &length);
        table_matches(g, length, n, "");
        free(g);
    }
}

LAB_TEST(task7_hidden, tables_are_independent)
{
    /* A large table, then a small one, then the large one changed: each
     * call returns its own array of exactly n + 1 values (no global table
     * handed out twice, no stale length). */
    unsigned rng = RNG(tables_are_independent);
    int big = hidden_between(&rng, 1000, 2500), small = hidden_between(&rng, 5, 60);
    size_t big_length, small_length;
    int *g_big = grundy_nim_table(big, &big_length);
    table_matches(g_big, big_length, big, " (first call)");
    int *g_small = grundy_nim_table(small, &small_length);
    LAB_EXPECT(g_small != g_big, SECTION_TABLE,
               "grundy_nim_table(%d) and grundy_nim_table(%d) returned the same array; each call "
               "returns a new one, which its caller frees",
               big, small);
    for (size_t i = 0; i < big_length; i++)
        g_big[i] = -1;
    table_matches(g_small, small_length, small, " (after a larger table, which was then overwritten)");
    free(g_big);
    free(g_small);
}

typedef struct {
    int n;
    size_t length;
    long long sum; /* of h * g(h): any wrong value changes it */
} table_check;

static size_t table_sum_job(const void *input, void *result)
{
    table_check check = *(const table_check *)input;
    int *g = grundy_nim_table(check.n, &check.length);
    for (size_t h = 0; g != NULL && h < check.length; h++)
        check.sum += (long long)h * g[h];
    free(g);
    memcpy(result, &check, sizeof check);
    return sizeof check;
}

LAB_TEST(task7_hidden, larger_table_on_a_smaller_stack)
{
    /* Up to 3 x 10^4 heights on a 32 KiB stack: still one loop. */
    unsigned rng = RNG(larger_table_on_a_smaller_stack);
    size_t length;
    int *g = grundy_nim_table(30, &length); /* here first: a stub is reported as one */
    table_matches(g, length, 30, "");
    free(g);
    table_check check = {hidden_between(&rng, 15000, 30000), 0, 0};
    double budget = 0;
    if (!lab_skip_timing("task7"))
        budget = cpu_budget(10, cpu_budget_measure(cpu_budget_nim_by_definition, &check.n));
    child_result r = child_run(table_sum_job, &check, 32 * 1024, budget);
    LAB_EXPECT(r.outcome == CHILD_FINISHED, SECTION_TABLE,
               "grundy_nim_table(%d, &length) on a thread with a 32 KiB stack and a CPU budget of "
               "%.3f s: %s",
               check.n, budget,
               r.outcome == CHILD_CRASHED ? child_crash_text(&r) : "it did not finish within its budget");
    table_check got;
    memcpy(&got, r.result, sizeof got);
    long long want = 0;
    for (int h = 0; h <= check.n; h++)
        want += (long long)h * oracle_nim_value(h);
    LAB_EXPECT(got.length == (size_t)check.n + 1 && got.sum == want, SECTION_TABLE,
               "grundy_nim_table(%d, &length) on a small stack returned a table that differs from "
               "g(0..%d) (length %zu)",
               check.n, check.n, got.length);
}

LAB_TEST(task7_hidden, nothing_else_stays_allocated)
{
    unsigned rng = RNG(nothing_else_stays_allocated);
    (void)oracle_nim_value(3000); /* the oracle's table: allocated before counting */
    size_t before = alloc_live_blocks();
    for (int round = 0; round < 10; round++) {
        int n = hidden_between(&rng, -3, 3000);
        size_t length;
        int *g = grundy_nim_table(n, &length);
        size_t during = alloc_live_blocks();
        size_t table = n >= 0 ? alloc_blocks_of_a_returned_array() : 0;
        LAB_EXPECT(during == before + table, SECTION_TABLE,
                   "right after grundy_nim_table(%d, &length), %zu more heap block(s) are live; "
                   "expected %zu (the returned table only)",
                   n, during - before, table);
        free(g);
    }
    LAB_EXPECT(alloc_live_blocks() == before, SECTION_TABLE,
               "%zu heap block(s) are still allocated after freeing every table",
               alloc_live_blocks() - before);
}
