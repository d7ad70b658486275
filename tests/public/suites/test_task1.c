/*
 * test_task1.c - Task 1: the recursive solver.
 *
 * Positions stay small enough for an honest unmemoized solver: measured on
 * the project's machine (see the handout, section "Task 1"), a
 * straightforward one needs about 0.1 s at heap 20 and over a second at
 * heap 23, so single heaps go up to 20 and multi-heap positions to a
 * similar total. Under valgrind (`make memcheck`), which slows code down
 * 20 to 50 times, they stop a few tokens sooner. Expected answers come from
 * the oracle's nim-values (a position is P iff the XOR of its heaps' values
 * is 0), a method that shares nothing with the recursive solver.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task1::*'.
 */
#include <string.h>

#include "alloc_tracker.h"
#include "lab_support.h"
#include "oracle.h"

/* The memo forgotten (memo_record.h): a memoized solver is tested here as
 * the recursion it rests on, so a memo mistake costs Task 2 alone. */
TestSuite(task1, .description = "Task 1: the recursive solver", .timeout = 60, .init = lab_memo_forgotten);

LAB_TEST(task1, terminal_positions)
{
    const int dead[] = {1, 2, 2, 1};
    grundy_position *p = lab_build(dead, 4);
    lab_trace("grundy_is_terminal({}), built from the heaps 1, 2, 2, 1");
    LAB_EXPECT(grundy_is_terminal(p), SECTION_SOLVER,
               "grundy_is_terminal({}) returned false; with only heaps of 1 and 2 (not stored) "
               "no move is possible");
    grundy_free(p);
    for (int h = 3; h <= 20; h++) {
        grundy_position *q = lab_build(&h, 1);
        lab_trace("grundy_is_terminal({%d=1})", h);
        LAB_EXPECT(!grundy_is_terminal(q), SECTION_SOLVER,
                   "grundy_is_terminal({%d=1}) returned true; a heap of %d can be split into 1 and %d",
                   h, h, h - 1);
        grundy_free(q);
    }
}

LAB_TEST(task1, terminal_is_a_p_position)
{
    /* No move: the player to move loses, so the previous player wins. */
    lab_check_outcome(NULL, 0, SECTION_SOLVER);
}

LAB_TEST(task1, small_heaps)
{
    for (int h = 0; h <= 12; h++)
        lab_check_outcome(&h, 1, SECTION_SOLVER);
}

LAB_TEST(task1, single_heaps_up_to_20)
{
    int largest = lab_under_valgrind() ? 16 : 20;
    for (int h = 13; h <= largest; h++)
        lab_check_outcome(&h, 1, SECTION_SOLVER);
}

LAB_TEST(task1, two_heaps)
{
    int largest_total = lab_under_valgrind() ? 14 : 18;
    for (int a = 3; a <= 10; a++)
        for (int b = a; a + b <= largest_total; b++)
            lab_check_outcome(LAB_HEAPS(a, b), SECTION_SOLVER);
}

LAB_TEST(task1, equal_heaps_cancel)
{
    /* Whatever the first player does in one heap, the second copies in the
     * other: every position made of pairs is P. */
    for (int h = 3; h <= 9; h++)
        lab_check_outcome(LAB_HEAPS(h, h), SECTION_SOLVER);
    lab_check_outcome(LAB_HEAPS(4, 4, 6, 6), SECTION_SOLVER);
}

LAB_TEST(task1, three_and_more_heaps)
{
    unsigned seed = 2024;
    int largest_total = lab_under_valgrind() ? 14 : 20;
    for (int round = 0; round < 40; round++) {
        int heaps[5];
        size_t n = 3 + lab_random(&seed) % 3;
        int total = 0;
        for (size_t i = 0; i < n; i++) {
            heaps[i] = 3 + (int)(lab_random(&seed) % 5);
            total += heaps[i];
        }
        if (total <= largest_total)
            lab_check_outcome(heaps, n, SECTION_SOLVER);
    }
    lab_check_outcome(LAB_HEAPS(3, 4, 5, 6), SECTION_SOLVER);
    lab_check_outcome(LAB_HEAPS(1, 2, 7, 8, 2), SECTION_SOLVER);
}

LAB_TEST(task1, p_and_n_always_disagree)
{
    const int cases[][3] = {{0, 0, 0}, {3, 0, 0}, {4, 0, 0}, {7, 0, 0}, {3, 4, 0},
                            {5, 5, 0}, {3, 4, 5}, {8, 9, 0}, {6, 6, 6}, {10, 3, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        grundy_position *p = lab_build(cases[i], 3);
        const char *text = lab_position_text(p, "a test position");
        lab_trace("grundy_is_p_position(%s), then grundy_is_n_position", text);
        bool is_p = grundy_is_p_position(p);
        bool is_n = grundy_is_n_position(p);
        /* The one that is wrong is diagnosed by its cause. */
        if (is_p == is_n) {
            grundy_free(p);
            lab_expect_answer(cases[i], 3, true, is_p, SECTION_SOLVER);
            lab_expect_answer(cases[i], 3, false, is_n, SECTION_SOLVER);
        }
        LAB_EXPECT(is_p != is_n, SECTION_SOLVER,
                   "%s: grundy_is_p_position returned %s and grundy_is_n_position returned %s; "
                   "every position is exactly one of P and N",
                   text, is_p ? "true" : "false", is_n ? "true" : "false");
        grundy_free(p);
    }
}

LAB_TEST(task1, solver_leaves_the_position_unchanged)
{
    const int heaps[] = {7, 5, 7, 3};
    const int sorted[] = {3, 5, 7, 7};
    grundy_position *p = lab_build(heaps, 4);
    lab_trace("grundy_is_p_position({3=1, 5=1, 7=2})");
    lab_expect_answer(heaps, 4, true, grundy_is_p_position(p), SECTION_SOLVER);
    lab_trace("grundy_is_n_position({3=1, 5=1, 7=2})");
    lab_expect_answer(heaps, 4, false, grundy_is_n_position(p), SECTION_SOLVER);
    /* Read back field by field, not with grundy_equals, so that a broken
     * equality cannot hide a change or invent one. */
    int after[LAB_MAX_HEAPS];
    size_t n = lab_expand(p, after, "{3=1, 5=1, 7=2} after solving it");
    LAB_EXPECT(n == 4 && memcmp(after, sorted, sizeof sorted) == 0, SECTION_SOLVER,
               "the solver changed its argument: {3=1, 5=1, 7=2} became %s; work on the moves "
               "grundy_get_moves returns, never on the position you were given",
               lab_heaps_text(after, n));
    grundy_free(p);
}

LAB_TEST(task1, solver_frees_its_move_lists)
{
    /* Every list grundy_get_moves returns must be freed, on every path: a
     * solver asks for millions of them. Smallest positions first, so the
     * one named is the simplest that leaks. Only the blocks grundy_get_moves
     * allocated are counted, so a memo (Task 2), which keeps its own
     * blocks until grundy_memo_clear(), is neither blamed nor needed: the
     * test calls no Task 2 function (the grader's runners too: they ask
     * the student process for the same count). Where the blocks' sites are
     * not known (a program built without alloc_live_blocks_from_moves),
     * every block is counted and the memo is cleared first, if written. */
    const int cases[][2] = {{3, 0}, {4, 0}, {5, 0}, {7, 0}, {3, 4}, {10, 0}, {4, 4}, {6, 9}};
    bool by_site = alloc_live_blocks_from_moves != NULL;
    /* Task 0 first: if building, expanding and freeing a position leaks
     * by itself, the count below would blame the solver for it. */
    size_t start = alloc_live_blocks();
    grundy_position *q = lab_build(LAB_HEAPS(4, 6));
    lab_trace("grundy_get_moves({4=1, 6=1}), then position_list_free and grundy_free");
    position_list_free(grundy_get_moves(q));
    grundy_free(q);
    LAB_EXPECT(alloc_live_blocks() == start, SECTION_MAP,
               "building {4=1, 6=1}, getting its moves and freeing them and the position leaves "
               "%zu heap block(s) allocated: Task 0 leaks (see task0::nothing_leaks), so the "
               "solver's own leaks cannot be counted yet",
               alloc_live_blocks() - start);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *text = lab_heaps_text(cases[i], 2);
        if (!by_site)
            lab_memo_clear_if_written();
        size_t before = by_site ? alloc_live_blocks_from_moves() : alloc_live_blocks();
        grundy_position *p = lab_build(cases[i], 2);
        lab_trace("grundy_is_p_position(%s)", text);
        (void)grundy_is_p_position(p);
        lab_trace("grundy_is_n_position(%s)", text);
        (void)grundy_is_n_position(p);
        grundy_free(p);
        if (!by_site)
            lab_memo_clear_if_written();
        size_t after = by_site ? alloc_live_blocks_from_moves() : alloc_live_blocks();
        /* The memo's size is not asked: under the grader a test that reads
         * it earns its points only with Task 2's timing checks. */
        LAB_EXPECT(after == before, SECTION_SOLVER,
                   "%zu heap block(s) %s while solving %s were still allocated after "
                   "grundy_is_p_position and grundy_is_n_position returned%s: a move list was not "
                   "freed. Free every list grundy_get_moves returns with position_list_free, on "
                   "every path: a `return` inside the loop over the moves skips it (record the "
                   "answer, break, free the list, then return)%s",
                   after - before,
                   by_site ? "that grundy_get_moves allocated (move lists and the positions in them)"
                           : "allocated",
                   text, by_site ? "" : " (and grundy_memo_clear() was called)",
                   by_site ? ""
                           : ". Once you have a memo, a grundy_memo_clear() that does not free "
                             "every key leaks too: see task2::clear_frees_everything");
    }
    /* A stub allocates nothing: it must not pass for a solver that frees. */
    LAB_EXPECT(lab_todo_note()[0] == '\0', SECTION_SOLVER, "write the solver first");
}
