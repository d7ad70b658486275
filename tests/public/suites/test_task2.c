/*
 * test_task2.c - Task 2: memoization.
 *
 * Two kinds of check. Counting: grundy_get_moves is wrapped (see
 * expansion_counter.h), so "each position is expanded at most once" and
 * "a repeated question costs at most one expansion" are exact, whatever
 * the machine. Timing: the student's solver runs the timed positions in a
 * child process whose CPU budget is a multiple of a calibration solver's
 * time on the same position, measured in the same run (see timed_run.h and
 * calibration_solver.h); the positions and the multiple are the lab's
 * (LAB_TIMING_RATIO and lab_public_positions in lab_definition.h, which
 * the release keeps in tests/public/gen/), and the grader uses the same multiple
 * of the same yardstick on positions of its own. An unmemoized solver expands hundreds of
 * thousands of positions where the bound is a few hundred, and would need
 * hours on the timed heaps. Under valgrind (`make memcheck`) the timing
 * checks are skipped and every other heap is 6 tokens smaller, so that
 * the checks still finish in seconds for a solver without a memo.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task2::*'.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "calibration_solver.h"
#include "child_run.h"
#include "expansion_counter.h"
#include "lab_definition.h"
#include "lab_support.h"
#include "oracle.h"
#include "timed_run.h"

TestSuite(task2, .description = "Task 2: memoization", .timeout = 120);

/* Why the timing checks may be skipped. */
#define TIMING_OFF                                                                     \
    "timing checks are off (LAB_SKIP_TIMING is set, as make memcheck does: valgrind's " \
    "20-50x slowdown would fail them)"

/* A heap of the counting checks: `heap`, or 6 tokens fewer under valgrind. */
static int sized(int heap)
{
    return lab_under_valgrind() ? heap - 6 : heap;
}

/* Solves `heap` from a cold memo and returns the expansions it took. */
static uint64_t cold_expansions(int heap, bool ask_p)
{
    lab_memo_clear();
    grundy_position *p = lab_build(&heap, 1);
    expansions_reset();
    lab_trace("grundy_is_%s_position({%d=1}) from an empty memo", ask_p ? "p" : "n", heap);
    bool answer = ask_p ? grundy_is_p_position(p) : grundy_is_n_position(p);
    uint64_t used = expansions();
    grundy_free(p);
    lab_expect_answer(&heap, 1, ask_p, answer, SECTION_SOLVER);
    return used;
}

LAB_TEST(task2, each_position_expanded_at_most_once)
{
    for (int heap = sized(12); heap <= sized(20); heap += 4) {
        /* Every reachable position with a move, plus {} for a solver that
         * asks for the (empty) moves of a terminal position. */
        uint64_t bound = oracle_count_reachable_nonterminal(&heap, 1) + 1;
        uint64_t used = cold_expansions(heap, true);
        LAB_EXPECT_MEMO(&lab_grundy_solver, used <= bound, SECTION_MEMO,
                   "grundy_is_p_position({%d=1}) from an empty memo called grundy_get_moves %llu "
                   "times, but only %llu distinct positions are reachable (counting {}); a memoized "
                   "solver expands each at most once",
                   heap, (unsigned long long)used, (unsigned long long)bound);
        LAB_EXPECT(used >= 1, SECTION_MEMO,
                   "grundy_is_p_position({%d=1}) from an empty memo never called grundy_get_moves; "
                   "the solver must find moves with grundy_get_moves",
                   heap);
    }
}

LAB_TEST(task2, memo_fills_up)
{
    int heap = sized(20);
    (void)cold_expansions(heap, true);
    size_t size = grundy_memo_size();
    size_t reachable = oracle_count_reachable_nonterminal(&heap, 1) + 1; /* + the empty position */
    LAB_EXPECT_MEMO(&lab_grundy_solver, size >= 1 && size <= reachable, SECTION_MEMO,
               "after solving {%d=1} from an empty memo, grundy_memo_size() is %zu; expected "
               "between 1 and %zu (the number of distinct reachable positions)",
               heap, size, reachable);
}

/* After one question about `heap`, the other (or the same) one must come
 * from the memo. */
static void expect_cheap_second_question(int heap, bool first_p, bool second_p)
{
    (void)cold_expansions(heap, first_p);
    grundy_position *p = lab_build(&heap, 1);
    expansions_reset();
    lab_trace("grundy_is_%s_position({%d=1}), asked again", second_p ? "p" : "n", heap);
    bool answer = second_p ? grundy_is_p_position(p) : grundy_is_n_position(p);
    uint64_t used = expansions();
    grundy_free(p);
    lab_expect_answer(&heap, 1, second_p, answer, SECTION_SOLVER);
    LAB_EXPECT_MEMO(&lab_grundy_solver, used <= 1, SECTION_MEMO,
               "after grundy_is_%s_position({%d=1}), asking grundy_is_%s_position({%d=1}) called "
               "grundy_get_moves %llu times; with one memo shared by both questions it needs at "
               "most 1",
               first_p ? "p" : "n", heap, second_p ? "p" : "n", heap, (unsigned long long)used);
}

LAB_TEST(task2, repeated_question_uses_the_memo)
{
    expect_cheap_second_question(sized(20), true, true);
    expect_cheap_second_question(sized(21), false, false);
}

LAB_TEST(task2, memo_shared_by_p_and_n)
{
    expect_cheap_second_question(sized(20), true, false);
    expect_cheap_second_question(sized(22), false, true);
    expect_cheap_second_question(sized(23), true, false);
}

LAB_TEST(task2, clear_empties_the_memo)
{
    int heap = sized(18);
    (void)cold_expansions(heap, true);
    lab_memo_clear();
    lab_trace("grundy_memo_size(), right after grundy_memo_clear()");
    size_t size = grundy_memo_size();
    if (size != 0) {
        /* Which clear is it? Counted only once the test fails, as the
         * grader gives a test that reads the live blocks its points only
         * when its own memory check passes. A clear that freed the table
         * and kept the pointer now frees it twice: that crash's report
         * says so (lab_signals.c). */
        LAB_EXPECT(false, SECTION_MEMO, "grundy_memo_size() is %zu right after grundy_memo_clear(); "
                   "expected 0. %s", size,
                   lab_clear_left_note(lab_memo_clear, "grundy_memo_clear", "grundy_memo_size"));
    }
    lab_memo_clear(); /* clearing an empty memo must be safe too */
    grundy_position *p = lab_build(&heap, 1);
    expansions_reset();
    lab_trace("grundy_is_p_position({%d=1}), after grundy_memo_clear() twice", heap);
    (void)grundy_is_p_position(p);
    grundy_free(p);
    LAB_EXPECT(expansions() >= 1, SECTION_MEMO,
               "after grundy_memo_clear(), solving {%d=1} again called grundy_get_moves %llu "
               "times; a cleared memo must start cold",
               heap, (unsigned long long)expansions());
}

/* What solving {heap} from an empty memo, freeing it and clearing the
 * memo leaves: the blocks the clear freed, and those still allocated. */
typedef struct {
    size_t memo_size; /* grundy_memo_size() before the clear */
    size_t freed;     /* blocks the clear freed */
    size_t left;      /* blocks allocated after the clear that were not at the test's start */
    size_t moves_left; /* of those, the ones grundy_get_moves allocated (when known) */
} clear_outcome;

/* Blocks grundy_get_moves allocated that are still allocated, or 0 where
 * that is not known (alloc_tracker.h). */
static size_t move_blocks(void)
{
    return alloc_live_blocks_from_moves != NULL ? alloc_live_blocks_from_moves() : 0;
}

static clear_outcome solve_and_clear(int heap, size_t before, size_t moves_before)
{
    (void)cold_expansions(heap, true); /* also checks the answer */
    clear_outcome out = {.memo_size = grundy_memo_size()};
    size_t held = alloc_live_blocks();
    lab_memo_clear();
    size_t after = alloc_live_blocks();
    out.freed = held > after ? held - after : 0;
    out.left = after > before ? after - before : 0;
    size_t moves_after = move_blocks();
    out.moves_left = moves_after > moves_before ? moves_after - moves_before : 0;
    return out;
}

LAB_TEST(task2, clear_frees_everything)
{
    /* grundy.h: the clear frees every entry and the table, so that the
     * memo holds no heap block after it. The blocks are counted rather
     * than left to valgrind: a table the static pointer still reaches is
     * "still reachable" to valgrind, which `make memcheck` does not call a
     * leak. Two memo sizes tell a kept table (the same blocks left, however
     * many entries there were) from leaked entries (more for a bigger memo). */
    int small = sized(14), large = sized(18);
    (void)oracle_is_p(&large, 1); /* the oracle caches a table: let it allocate now */
    (void)oracle_is_p(&small, 1);
    lab_memo_clear();
    size_t start = alloc_live_blocks(), moves_start = move_blocks();
    clear_outcome first = solve_and_clear(small, start, moves_start);
    LAB_EXPECT(first.memo_size >= 1, SECTION_MEMO,
               "after solving {%d=1}, grundy_memo_size() is 0: nothing was memoized", small);
    if (first.left == 0)
        return;
    clear_outcome second = solve_and_clear(large, start, moves_start);
    LAB_EXPECT(first.freed > 0, SECTION_MEMO,
               "%zu heap block(s) are still allocated after solving {%d=1}, freeing it and calling "
               "grundy_memo_clear(), which freed no block: it forgets the memo (sets the pointer "
               "to NULL, or resets a count) without freeing it. Free the table and every key: "
               "memo_table_free(memo); memo = NULL;",
               first.left, small);
    LAB_EXPECT(first.left != second.left, SECTION_MEMO,
               "grundy_memo_clear() freed the memo's entries but keeps %zu heap block(s), as many "
               "after a memo of %zu positions as after one of %zu: the table itself. "
               "memo_table_clear empties a table and keeps it for reuse; grundy_memo_clear must "
               "free it (memo_table_free(memo); memo = NULL;), as grundy.h says. `make memcheck` "
               "does not report these blocks: the static pointer still reaches them, so valgrind "
               "calls them \"still reachable\", not lost",
               first.left, first.memo_size, second.memo_size);
    /* Where the blocks' sites are known, they say whose the blocks are. */
    LAB_EXPECT(first.moves_left == 0, SECTION_SOLVER,
               "%zu heap block(s) are still allocated after solving {%d=1}, freeing it and calling "
               "grundy_memo_clear(), and %zu of them were allocated by grundy_get_moves: move "
               "lists the solver did not free, not the memo's (task1::solver_frees_its_move_lists "
               "fails too, and names the smallest position that leaks)",
               first.left, small, first.moves_left);
    /* As many blocks left as a position takes, for every answer stored, in
     * both searches (the second's count holds the first's): each stored
     * answer leaves a position of its own. */
    size_t per = first.memo_size > 0 ? first.left / first.memo_size : 0;
    size_t second_own = second.left > first.left ? second.left - first.left : 0;
    LAB_EXPECT(!(per >= 1 && per <= 2 && first.left == per * first.memo_size &&
                 second_own == per * second.memo_size),
               SECTION_MEMO,
               "%zu heap block(s) are still allocated after solving {%d=1}, freeing it and calling "
               "grundy_memo_clear(): %zu for each of the %zu answers the memo held (%zu more for "
               "%zu answers after {%d=1}), so every stored answer leaves a position behind that nothing "
               "frees. The clear frees the table's own copies of the keys; memo_table_put makes "
               "that copy itself, and the caller keeps and frees the position it passed "
               "(memo_table.h). Run `make memcheck` to see the line that allocates them",
               first.left, small, per, first.memo_size, second_own, second.memo_size, large);
    LAB_EXPECT(false, SECTION_MEMO,
               "%zu heap block(s) are still allocated after solving {%d=1}, freeing it and calling "
               "grundy_memo_clear() (%zu after {%d=1}): more for a bigger search. The clear freed "
               "%zu block(s), so it frees something, but not all of the memo: every key and the "
               "table must go. Run `make memcheck` to see where the blocks were allocated",
               first.left, small, second.left, large, first.freed);
}

LAB_TEST(task2, memo_answers_belong_to_their_position)
{
    /* Position after position with the memo kept, each built, asked and
     * freed in turn, the way a program would use the solver. A new
     * position is often allocated where the last one was freed, so a memo
     * keyed by the position's address answers with the last answer. */
    lab_memo_clear();
    unsigned seed = 31337;
    for (int round = 0; round < 40; round++) {
        /* Single heaps 3 to 16, then up to three heaps of at most 16 tokens
         * in all, so that a solver without a memo answers them quickly. */
        int heaps[3];
        size_t n = round < 14 ? 1 : 1 + lab_random(&seed) % 3;
        int total = 0;
        for (size_t i = 0; i < n; i++) {
            heaps[i] = round < 14 ? 3 + round : 3 + (int)(lab_random(&seed) % (14 - total));
            total += heaps[i];
            if (total > 13) {
                n = i + 1;
                break;
            }
        }
        bool ask_p = lab_random(&seed) % 2;
        grundy_position *p = lab_build(heaps, n);
        lab_trace("grundy_is_%s_position(%s), with the answers of the earlier positions in the memo",
                  ask_p ? "p" : "n", lab_heaps_text(heaps, n));
        bool answer = ask_p ? grundy_is_p_position(p) : grundy_is_n_position(p);
        grundy_free(p);
        lab_expect_answer(heaps, n, ask_p, answer, SECTION_SOLVER);
    }
    /* Right answers prove nothing about a memo that is never used (the
     * grader sees the memo from outside instead: lab_in_own_process). */
    if (lab_in_own_process())
        LAB_EXPECT(grundy_memo_size() >= 1, SECTION_MEMO,
                   "after forty questions, grundy_memo_size() is 0: nothing was memoized, so the "
                   "memo's answers could not be checked");
    lab_memo_clear(); /* a full memo's clear, for make memcheck and the grader's memory check */
}

LAB_TEST(task2, answers_right_across_clears)
{
    /* The memo filled, asked again, cleared and filled again, on positions
     * small enough for any correct solver, memoized or not: the grader's
     * memory check runs this one under valgrind and with its guarded
     * allocator, which never hands a freed block out again (grader/lab.ini,
     * memcheck). Answers only: it reads no count of the solver's. */
    const int pairs[][2] = {{3, 5}, {4, 6}, {3, 7}, {5, 5}};
    for (int round = 0; round < 3; round++) {
        lab_memo_clear();
        for (int heap = 3; heap <= 10; heap++) {
            for (int again = 0; again < 2; again++) {
                bool ask_p = (heap + again) % 2 == 0;
                grundy_position *p = lab_build(&heap, 1);
                lab_trace("grundy_is_%s_position({%d=1}), %s, after %d clear(s)", ask_p ? "p" : "n", heap,
                          again ? "asked again" : "asked first", round + 1);
                bool answer = ask_p ? grundy_is_p_position(p) : grundy_is_n_position(p);
                grundy_free(p);
                lab_expect_answer(&heap, 1, ask_p, answer, SECTION_SOLVER);
            }
        }
        for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
            grundy_position *p = lab_build(pairs[i], 2);
            lab_trace("grundy_is_p_position(%s), after %d clear(s)", lab_heaps_text(pairs[i], 2), round + 1);
            bool answer = grundy_is_p_position(p);
            grundy_free(p);
            lab_expect_answer(pairs[i], 2, true, answer, SECTION_SOLVER);
        }
    }
    lab_memo_clear();
}

/* Times the student's solver on one position against the calibration
 * solver on the same position (see the handout, "How Task 2 is checked"). */
static void expect_fast(const int *heaps, size_t n)
{
    const char *text = lab_heaps_text(heaps, n);
    bool calibration_p;
    double calibration = calibration_seconds(heaps, n, &calibration_p);
    cr_assert(calibration_p == oracle_is_p(heaps, n),
              "internal error: the calibration solver disagrees with the oracle on %s", text);
    /* The same calls the child makes, here first: a stub or a broken
     * Task 0 is then reported as such rather than as a crash. */
    lab_memo_clear();
    grundy_free(lab_build(heaps, n));
    double budget = LAB_TIMING_RATIO * calibration;
    if (budget < CALIBRATION_MIN_SECONDS)
        budget = CALIBRATION_MIN_SECONDS;
    lab_trace("solving %s in a child process, with a CPU budget of %.3f s", text, budget);
    timed_result r = timed_is_p(heaps, n, budget);
    LAB_EXPECT(r.outcome != TIMED_CRASHED || r.signal == 0, SECTION_MEMO,
               "solving %s from an empty memo crashed with signal %d (%s); run `make memcheck`",
               text, r.signal, strsignal(r.signal));
    LAB_EXPECT(r.outcome != TIMED_CRASHED, SECTION_MEMO,
               "solving %s from an empty memo ended the process with exit status %d instead of "
               "returning an answer%s",
               text, r.exit_status, r.exit_status == 1 ? CHILD_EXIT_1_TEXT : "");
    /* Over budget: the child's memo is gone with it, but the memo's record
     * in this process names a memo mistake behind the slowness (it asks
     * about three small heaps, which the untimed tests solve here too), so
     * this failure is told under the cause that also fails the counting
     * tests. */
    LAB_EXPECT_MEMO(&lab_grundy_solver, r.outcome == TIMED_ANSWERED, SECTION_TIMING,
                    "solving %s from an empty memo did not finish within its CPU budget of %.3f s "
                    "(%g x the calibration solver's %.4f s on the same machine); is every answer "
                    "remembered, by both grundy_is_p_position and grundy_is_n_position?",
                    text, budget, (double)LAB_TIMING_RATIO, calibration);
    lab_expect_answer_from_elsewhere(heaps, n, " from an empty memo", true, r.is_p, SECTION_SOLVER);
    cr_log_info("%s: %.4f s CPU, budget %.3f s (%.1f%% of it)", text, r.cpu_seconds, budget,
                100 * r.cpu_seconds / budget);
}

/* The lab's public timed positions with (single) or without one heap. */
static void expect_public_positions_fast(bool single)
{
    if (lab_skip_timing("task2"))
        LAB_SKIP(TIMING_OFF);
    for (size_t i = 0; i < LAB_PUBLIC_POSITIONS; i++) {
        size_t n = 0;
        while (n < LAB_PUBLIC_HEAPS && lab_public_positions[i][n] != 0)
            n++;
        if ((n == 1) == single)
            expect_fast(lab_public_positions[i], n);
    }
}

LAB_TEST(task2, large_single_heaps_are_fast)
{
    expect_public_positions_fast(true);
}

LAB_TEST(task2, large_multi_heap_positions_are_fast)
{
    expect_public_positions_fast(false);
}
