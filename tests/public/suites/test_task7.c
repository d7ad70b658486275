/*
 * test_task7.c - Task 7 (optional): the nimbers, bottom-up.
 *
 * Every value is compared with the oracle's (oracle_nim_value), which
 * computes them by another method ("rare values", see nim_values.c) and
 * is itself checked against published tables. The two properties of the
 * method are checked from outside, in a child process (child_run.h): the
 * table up to 10^4 must be done within a CPU budget measured in this run
 * (cpu_budget.h), and on a thread whose stack is only 64 KiB, where a
 * recursion as deep as the table overflows.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task7::*'.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "child_run.h"
#include "cpu_budget.h"
#include "grundy_table.h"
#include "lab_support.h"
#include "oracle.h"

TestSuite(task7, .description = "Task 7: the nimbers, bottom-up", .timeout = 120);

/* The largest table, its CPU budget (TABLE_BUDGET_RATIO times the
 * oracle's plain mex over the same heights, measured in this run) and the
 * stack it must fit in: see the handout, "How Task 7 is checked". */
enum { TABLE_N = 10000, TABLE_BUDGET_RATIO = 10, SMALL_STACK = 64 * 1024 };

/* Checks a table the student's function returned for n against the
 * oracle, naming the first wrong value. */
static void expect_table(const int *g, size_t length, int n, const char *how)
{
    LAB_EXPECT(g != NULL, SECTION_TABLE,
               "grundy_nim_table(%d, &length)%s returned NULL; expected the table g(0..%d), of length %d "
               "(grundy_table.h: NULL only for n < 0 or when memory runs out, so the check that "
               "returns NULL, or a malloc of too few bytes, is where to look)",
               n, how, n, n + 1);
    LAB_EXPECT(length == (size_t)n + 1, SECTION_TABLE,
               "grundy_nim_table(%d, &length)%s set length to %zu; the table g(0..%d) has %d entries", n,
               how, length, n, n + 1);
    /* The rule of splits means something only where a heap has one. */
    for (int h = 0; h <= n; h++) {
        if (h < 3)
            LAB_EXPECT(g[h] == oracle_nim_value(h), SECTION_TABLE,
                       "grundy_nim_table(%d, &length)%s: g[%d] is %d, expected %d (a heap of %d has no "
                       "split into two different heights, so no move: the mex of nothing is 0)",
                       n, how, h, g[h], oracle_nim_value(h), h);
        else
            LAB_EXPECT(g[h] == oracle_nim_value(h), SECTION_TABLE,
                       "grundy_nim_table(%d, &length)%s: g[%d] is %d, expected %d (the mex of g[a] XOR "
                       "g[%d - a] over the splits 1 <= a < %d - a)",
                       n, how, h, g[h], oracle_nim_value(h), h, h);
    }
}

LAB_TEST(task7, small_tables)
{
    for (int n = 0; n <= 40; n++) {
        size_t length = 12345;
        int *g = grundy_nim_table(n, &length);
        expect_table(g, length, n, "");
        free(g);
    }
}

LAB_TEST(task7, negative_n_gives_null)
{
    size_t length = 12345;
    int *g = grundy_nim_table(12, &length);
    expect_table(g, length, 12, "");
    free(g);
    length = 12345;
    g = grundy_nim_table(-1, &length);
    LAB_EXPECT(g == NULL && length == 0, SECTION_TABLE,
               "grundy_nim_table(-1, &length) returned %s with length %zu; there is no table for "
               "n < 0: return NULL and set length to 0",
               g == NULL ? "NULL" : "a table", length);
    free(g);
}

LAB_TEST(task7, caller_owns_the_only_block)
{
    /* "Nothing else stays allocated": after the call exactly one block
     * more is live (the table), and none once the caller frees it. */
    int n = 500;
    (void)oracle_nim_value(n); /* the oracle's table: allocated before counting */
    size_t before = alloc_live_blocks();
    size_t length;
    int *g = grundy_nim_table(n, &length);
    size_t during = alloc_live_blocks();
    expect_table(g, length, n, "");
    g[n] = -7; /* the caller may write to its table */
    free(g);
    size_t after = alloc_live_blocks();
    LAB_EXPECT(during == before + alloc_blocks_of_a_returned_array(), SECTION_TABLE,
               "right after grundy_nim_table(%d, &length), %zu more heap block(s) are live; expected "
               "exactly %zu, the returned table: free the scratch array, and keep no global cache",
               n, during - before, alloc_blocks_of_a_returned_array());
    LAB_EXPECT(after == before, SECTION_TABLE,
               "%zu heap block(s) are still allocated after freeing the table", after - before);
}

/* FNV-1a over the values g(0..n), so a child can hand back a whole
 * table's worth of evidence in a few bytes. */
static uint64_t fingerprint(const int *g, size_t length)
{
    uint64_t hash = 0xcbf29ce484222325u;
    for (size_t i = 0; i < length; i++) {
        hash ^= (uint32_t)g[i];
        hash *= 0x100000001b3u;
    }
    return hash;
}

typedef struct {
    size_t length;
    uint64_t fingerprint;
} table_summary;

/* The child's job: the whole table for n, summarized. */
static size_t table_job(const void *input, void *result)
{
    table_summary summary = {0, 0};
    int *g = grundy_nim_table(*(const int *)input, &summary.length);
    if (g != NULL)
        summary.fingerprint = fingerprint(g, summary.length);
    free(g);
    memcpy(result, &summary, sizeof summary);
    return sizeof summary;
}

/* Runs the table for n in a child (with stack_bytes of stack, 0: the
 * usual) under the CPU budget, and checks what came back. */
static void expect_table_in_child(int n, size_t stack_bytes, double budget, const char *where)
{
    /* The same call here first: a stub or a wrong value is reported as
     * such, not as a crash or a wrong fingerprint. */
    size_t length;
    int *g = grundy_nim_table(40, &length);
    expect_table(g, length, 40, "");
    free(g);
    child_result r = child_run(table_job, &n, stack_bytes, budget);
    LAB_EXPECT(r.outcome != CHILD_CRASHED, SECTION_TABLE,
               "grundy_nim_table(%d, &length) %s: %s. %s", n, where, child_crash_text(&r),
               stack_bytes ? "A loop needs the same small stack for any n; a recursion one frame per "
                             "height, which is what overflows here"
                           : "Run it under `make memcheck` to see why");
    LAB_EXPECT(r.outcome == CHILD_FINISHED, SECTION_TABLE,
               "grundy_nim_table(%d, &length) %s did not finish within its CPU budget of %.3f s (%d x "
               "the oracle's plain mex over the same heights, measured in this run); the table needs "
               "about n^2/4 XORs in all: does each height reuse the values already in the table?",
               n, where, budget, TABLE_BUDGET_RATIO);
    table_summary got;
    memcpy(&got, r.result, sizeof got);
    size_t want_length = (size_t)n + 1;
    int *want = malloc(want_length * sizeof *want);
    cr_assert(want != NULL, "internal error: out of memory");
    for (int h = 0; h <= n; h++)
        want[h] = oracle_nim_value(h);
    uint64_t want_fingerprint = fingerprint(want, want_length);
    free(want);
    LAB_EXPECT(got.length == want_length && got.fingerprint == want_fingerprint, SECTION_TABLE,
               "grundy_nim_table(%d, &length) %s returned a table of %zu values that differs from "
               "g(0..%d); run the same call outside the test to find the first wrong value",
               n, where, got.length, n);
    if (budget > 0)
        cr_log_info("g(0..%d) %s: %.4f s CPU, budget %.3f s (%.1f%% of it)", n, where, r.cpu_seconds,
                    budget, 100 * r.cpu_seconds / budget);
}

static double table_budget(int n)
{
    if (lab_skip_timing("task7"))
        return 0; /* under valgrind: no CPU budget, only the wall-clock limit */
    return cpu_budget(TABLE_BUDGET_RATIO, cpu_budget_measure(cpu_budget_nim_by_definition, &n));
}

LAB_TEST(task7, table_up_to_ten_thousand_within_budget)
{
    int n = TABLE_N;
    expect_table_in_child(n, 0, table_budget(n), "in a child process");
    size_t length;
    int *g = grundy_nim_table(n, &length);
    expect_table(g, length, n, "");
    free(g);
}

LAB_TEST(task7, no_recursion_on_a_small_stack)
{
    int n = TABLE_N;
    expect_table_in_child(n, SMALL_STACK, table_budget(n), "on a thread with a 64 KiB stack");
}
