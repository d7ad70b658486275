/*
 * test_task5.c - Task 5 (optional): the winning move.
 *
 * Any winning move is accepted: the suite does not ask for a particular
 * one, it checks the two properties that make a move winning, each against
 * the oracle (reference/oracle), which shares no code with any solution:
 * the result is one of the oracle's moves from the position
 * (oracle_moves), and it is a P-position (oracle_is_p, by nimbers). From a
 * P-position the only right answer is NULL. The memo checks count calls
 * of grundy_get_moves (expansion_counter.h), as Task 2's do.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task5::*'.
 */
#include <string.h>

#include "alloc_tracker.h"
#include "expansion_counter.h"
#include "grundy_winning.h"
#include "lab_support.h"
#include "move_check.h"
#include "oracle.h"

TestSuite(task5, .description = "Task 5: the winning move", .timeout = 60);

/* Asks for the winning move from the position with these heaps and checks
 * it: NULL exactly from a P-position, otherwise a legal move to a
 * P-position (move_check.h), and the position itself unchanged. */
static void expect_winning_move(const int *heaps, size_t n)
{
    const char *text = lab_heaps_text(heaps, n);
    grundy_position *p = lab_build(heaps, n);
    lab_trace("grundy_winning_move(%s)", text);
    grundy_position *move = grundy_winning_move(p);
    lab_expect_owned_result(move, lab_format("grundy_winning_move(%s)", text), SECTION_WINNING);
    int got[LAB_MAX_HEAPS];
    size_t got_n = move == NULL ? 0 : lab_expand(move, got, "the position grundy_winning_move returned");
    const char *problem = winning_move_problem(heaps, n, move != NULL, got, got_n);
    LAB_EXPECT(problem == NULL, SECTION_WINNING, "%s", problem);
    int after[LAB_MAX_HEAPS], want[LAB_MAX_HEAPS];
    size_t after_n = lab_expand(p, after, "the position after grundy_winning_move");
    if (n > 0)
        memcpy(want, heaps, n * sizeof *heaps);
    size_t want_n = oracle_canonicalize(want, n);
    LAB_EXPECT(after_n == want_n && memcmp(after, want, after_n * sizeof *after) == 0, SECTION_WINNING,
               "grundy_winning_move changed its argument: %s became %s", text,
               lab_heaps_text(after, after_n));
    grundy_free(move);
    grundy_free(p);
}

LAB_TEST(task5, no_winning_move_from_p_positions)
{
    /* {} is terminal, hence P; {4}, {7}, {10} and the pairs are P too
     * (the oracle agrees: expect_winning_move asks it). One N-position
     * comes first, so that a function that always returns NULL fails. */
    expect_winning_move(LAB_HEAPS(5));
    expect_winning_move(NULL, 0);
    expect_winning_move(LAB_HEAPS(1, 2));
    for (int h = 3; h <= 26; h++)
        if (oracle_is_p(&h, 1))
            expect_winning_move(&h, 1);
    expect_winning_move(LAB_HEAPS(5, 5));
    expect_winning_move(LAB_HEAPS(6, 6, 3, 3));
}

LAB_TEST(task5, single_heaps)
{
    for (int h = 3; h <= 24; h++)
        expect_winning_move(&h, 1);
}

LAB_TEST(task5, even_heaps_have_no_equal_split)
{
    /* Splitting an even heap into two equal halves would leave a pair,
     * which is P (the second player mirrors): a tempting "winning move"
     * that the rules forbid. From {h} with h even the equal split must
     * never be the answer. */
    for (int h = 4; h <= 24; h += 2)
        expect_winning_move(&h, 1);
    expect_winning_move(LAB_HEAPS(8, 3));
    expect_winning_move(LAB_HEAPS(12, 5, 5));
}

LAB_TEST(task5, two_and_three_heaps)
{
    for (int a = 3; a <= 9; a++)
        for (int b = a; a + b <= 18; b++)
            expect_winning_move(LAB_HEAPS(a, b));
    unsigned seed = 55;
    for (int round = 0; round < 30; round++) {
        int heaps[3];
        for (int i = 0; i < 3; i++)
            heaps[i] = 1 + (int)(lab_random(&seed) % 8); /* dead heaps included */
        expect_winning_move(heaps, 3);
    }
}

LAB_TEST(task5, result_is_a_new_position)
{
    /* The caller owns the result: changing or freeing it must not touch
     * the position asked about (nor the move list it came from). */
    const int heaps[] = {5, 9};
    const char *text = lab_heaps_text(heaps, 2);
    cr_assert(!oracle_is_p(heaps, 2), "internal error: the oracle says %s is P", text);
    grundy_position *p = lab_build(heaps, 2);
    lab_trace("grundy_winning_move(%s)", text);
    grundy_position *move = grundy_winning_move(p);
    lab_expect_owned_result(move, lab_format("grundy_winning_move(%s)", text), SECTION_WINNING);
    LAB_EXPECT(move != NULL, SECTION_WINNING, "grundy_winning_move(%s) returned NULL; it is an N-position",
               text);
    LAB_EXPECT(move != p, SECTION_WINNING,
               "grundy_winning_move(%s) returned its argument; return a new position", text);
    grundy_add_heap(move, 11);
    grundy_free(move);
    int after[LAB_MAX_HEAPS];
    size_t after_n = lab_expand(p, after, "the position after changing and freeing its winning move");
    LAB_EXPECT(after_n == 2 && after[0] == heaps[0] && after[1] == heaps[1], SECTION_WINNING,
               "changing the winning move changed the position it came from: %s became %s", text,
               lab_heaps_text(after, after_n));
    grundy_free(p);
}

LAB_TEST(task5, nothing_leaks)
{
    int heap = 14;
    (void)oracle_is_p(&heap, 1); /* the oracle caches a table: let it allocate now */
    grundy_memo_clear();
    size_t before = alloc_live_blocks();
    for (int h = 12; h <= 16; h++)
        expect_winning_move(&h, 1); /* both kinds: {13} is N, the others N or P */
    grundy_memo_clear();
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_WINNING,
               "%zu heap block(s) are still allocated after asking for the winning moves of "
               "{12=1} ... {16=1}, freeing every result and calling grundy_memo_clear(); free "
               "the move list on every path (run `make memcheck` to see where they were "
               "allocated)",
               after - before);
}

/* The expansions grundy_winning_move({heap}) makes: from a cold memo, or
 * right after asking the same question. */
static uint64_t expansions_of_winning_move(int heap)
{
    grundy_position *p = lab_build(&heap, 1);
    expansions_reset();
    lab_trace("grundy_winning_move({%d=1})", heap);
    grundy_position *move = grundy_winning_move(p);
    uint64_t used = expansions();
    lab_expect_owned_result(move, lab_format("grundy_winning_move({%d=1})", heap), SECTION_WINNING);
    grundy_free(move);
    grundy_free(p);
    return used;
}

LAB_TEST(task5, cold_search_expands_each_position_once)
{
    for (int heap = 14; heap <= 22; heap += 4) {
        grundy_memo_clear();
        uint64_t bound = oracle_count_reachable_nonterminal(&heap, 1) + 1; /* + {} */
        uint64_t used = expansions_of_winning_move(heap);
        LAB_EXPECT(used <= bound, SECTION_WINNING,
                   "grundy_winning_move({%d=1}) from an empty memo called grundy_get_moves %llu "
                   "times, but only %llu distinct positions are reachable (counting {}): ask the "
                   "memoized grundy_is_p_position about each move",
                   heap, (unsigned long long)used, (unsigned long long)bound);
        LAB_EXPECT(used >= 1, SECTION_WINNING,
                   "grundy_winning_move({%d=1}) never called grundy_get_moves; the moves of the "
                   "position come from grundy_get_moves",
                   heap);
    }
    grundy_memo_clear();
}

LAB_TEST(task5, answers_stay_in_the_memo)
{
    /* Everything grundy_winning_move learns is in the Task 2 memo, so
     * asking again, or asking the solver about the same position, expands
     * only that position (its moves' answers are known). */
    for (int heap = 19; heap <= 22; heap++) {
        grundy_memo_clear();
        (void)expansions_of_winning_move(heap);
        uint64_t again = expansions_of_winning_move(heap);
        LAB_EXPECT(again <= 1, SECTION_WINNING,
                   "asking grundy_winning_move({%d=1}) a second time called grundy_get_moves "
                   "%llu times; the first question left every answer it needed in the memo, "
                   "so the second needs at most 1",
                   heap, (unsigned long long)again);
        grundy_position *p = lab_build(&heap, 1);
        expansions_reset();
        bool is_n = grundy_is_n_position(p);
        uint64_t used = expansions();
        grundy_free(p);
        LAB_EXPECT(is_n == !oracle_is_p(&heap, 1), SECTION_SOLVER,
                   "grundy_is_n_position({%d=1}) returned %s", heap, is_n ? "true" : "false");
        LAB_EXPECT(used <= 1, SECTION_WINNING,
                   "after grundy_winning_move({%d=1}), grundy_is_n_position({%d=1}) called "
                   "grundy_get_moves %llu times; with the answers in the Task 2 memo it needs "
                   "at most 1 (does grundy_winning_move use grundy_is_p_position?)",
                   heap, heap, (unsigned long long)used);
    }
    grundy_memo_clear();
}
