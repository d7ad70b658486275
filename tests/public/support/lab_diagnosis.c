/*
 * lab_diagnosis.c - a solver's answer checked against the oracle and,
 * when it is wrong, its cause named by the questions that tell the common
 * memo mistakes apart (see lab_support.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "lab_support.h"
#include "oracle.h"

/* ---- a wrong answer, diagnosed by its cause ------------------------------
 * A solver's answer depends on the position alone. When an answer is wrong
 * and the solver keeps a memo, questions asked from an empty memo tell the
 * common causes apart (handout, "Common mistakes in Task 2"):
 *   - is_p, then is_p again: the second answer comes from the memo, so it
 *     differs from the first only when is_p stores an answer other than
 *     the one it returns (stored before the moves were searched);
 *   - is_n, then is_n again; is_p, then is_n; is_n, then is_p: is_n must
 *     store "is P" and negate it when it reads it back;
 *   - the same position at two addresses, one of them just freed by a
 *     different position: a memo keyed by the address answers for the
 *     position that lived there before;
 *   - the same question after grundy_memo_clear(): right then, but wrong
 *     with the earlier answers in the memo, is a memo that returns what it
 *     stored for another position; wrong then too, the search itself.
 * Each probe position is built once and asked both questions through the
 * same pointer, so a memo keyed by the address passes the first probes. */

/* The answer to grundy_is_p_position (ask_p) or grundy_is_n_position of p. */
static bool answer_of(const grundy_position *p, bool ask_p, const char *text, const char *when)
{
    lab_trace("grundy_is_%s_position(%s), %s", ask_p ? "p" : "n", text, when);
    return ask_p ? grundy_is_p_position(p) : grundy_is_n_position(p);
}

/* Two questions about one position right after grundy_memo_clear(). */
typedef struct {
    bool first_p, second_p; /* which questions: P (true) or N */
    bool first, second;     /* the answers */
} question_pair;

static question_pair ask_twice(const int *heaps, size_t n, bool first_p, bool second_p)
{
    const char *text = lab_heaps_text(heaps, n);
    question_pair q = {.first_p = first_p, .second_p = second_p};
    lab_memo_clear_if_written();
    grundy_position *p = lab_build(heaps, n);
    q.first = answer_of(p, first_p, text, "right after grundy_memo_clear()");
    q.second = answer_of(p, second_p, text, "asked after another question about it");
    grundy_free(p);
    return q;
}

/* Whether `answer` is right for grundy_is_p_position (ask_p) or
 * grundy_is_n_position of a position whose outcome is `is_p`. */
static bool is_right(bool ask_p, bool answer, bool is_p)
{
    return answer == (ask_p ? is_p : !is_p);
}

/* "Right after grundy_memo_clear(), grundy_is_p_position({3=1}) returned
 * false (right), then grundy_is_p_position({3=1}) returned true, ...". */
static const char *pair_text(const question_pair *q, const char *text, bool is_p)
{
    return lab_format("Right after grundy_memo_clear(), grundy_is_%s_position(%s) returned %s "
                      "(right), then grundy_is_%s_position(%s) returned %s, but %s is %s",
                      q->first_p ? "p" : "n", text, q->first ? "true" : "false",
                      q->second_p ? "p" : "n", text, q->second ? "true" : "false", text,
                      lab_outcome_text(is_p));
}

/* The probes of the store and the read of each question on one position;
 * the cause, or NULL when every second answer was right. `facts` gets what
 * was seen. */
static const char *cause_by_question_order(const int *heaps, size_t n, char *facts, size_t size)
{
    const char *text = lab_heaps_text(heaps, n);
    bool is_p = oracle_is_p(heaps, n);
    question_pair pp = ask_twice(heaps, n, true, true);
    question_pair nn = ask_twice(heaps, n, false, false);
    question_pair pn = ask_twice(heaps, n, true, false);
    question_pair np = ask_twice(heaps, n, false, true);
    const question_pair *all[] = {&pp, &nn, &pn, &np};
    bool wrong[4];
    const question_pair *seen = NULL;
    for (int i = 0; i < 4; i++) {
        /* Only a right first answer makes a wrong second one the memo's. */
        wrong[i] = is_right(all[i]->first_p, all[i]->first, is_p) &&
                   !is_right(all[i]->second_p, all[i]->second, is_p);
        if (wrong[i] && seen == NULL)
            seen = all[i];
    }
    if (seen == NULL)
        return NULL;
    snprintf(facts, size, "%s", pair_text(seen, text, is_p));
    if (wrong[0])
        return "grundy_is_p_position stores an answer other than the one it returns: the answer "
               "is stored before the moves are searched (the provisional \"P until a move to a "
               "P-position is found\"). Store it after the loop over the moves, once it is known";
    if (wrong[1] && wrong[2] && !wrong[3])
        return "on a memo hit, grundy_is_n_position returns the stored flag without negating it. "
               "The memo stores \"is this P?\", so is_n must return !is_p";
    if (wrong[1] && wrong[3] && !wrong[2])
        return "grundy_is_n_position stores its own answer, \"is N\", where the memo keeps "
               "\"is this P?\" (grundy_is_p_position then reads it as P). Store !is_n";
    if (wrong[2] && wrong[3])
        return "grundy_is_n_position stores and reads the memo's flag as \"is N\", while "
               "grundy_is_p_position stores and reads it as \"is P\": one table, one meaning. "
               "Store !is_n, and return !is_p on a hit";
    return "a second question about the same position is answered from what the memo stored "
           "for the first, and that is not the first's answer: store exactly the answer you "
           "return, as \"is this P?\"";
}

/* Whether the position answers differently at two addresses: asked where
 * `other` (whose answer differs) was just freed, and at a fresh address
 * while that one is still held. Sets *at_reused to the first answer. */
static bool answer_depends_on_address(const int *heaps, size_t n, const int *other, size_t other_n,
                                      bool *at_reused)
{
    const char *text = lab_heaps_text(heaps, n);
    const char *other_text = lab_heaps_text(other, other_n);
    lab_memo_clear_if_written();
    grundy_position *first = lab_build(other, other_n);
    (void)answer_of(first, true, other_text, "to fill the memo");
    grundy_free(first);
    grundy_position *reused = lab_build(heaps, n); /* often where `first` was */
    *at_reused = answer_of(reused, true, text, "built right after another position was freed");
    grundy_position *fresh = lab_build(heaps, n); /* `reused` is held: another address */
    bool at_fresh = answer_of(fresh, true, text, "a copy of it at another address");
    grundy_free(fresh);
    grundy_free(reused);
    return *at_reused != at_fresh;
}

/* Asks again about the position with these heaps, with an empty memo,
 * twice: as it is, and with a few other positions held, so that the
 * solver's positions are allocated at other addresses. Whether the solver
 * answers right either time. */
static bool right_with_empty_memo(const int *heaps, size_t n, bool asked_p, bool expected_p)
{
    const char *text = lab_heaps_text(heaps, n);
    grundy_position *held[3] = {NULL, NULL, NULL};
    bool right = false;
    for (int attempt = 0; attempt < 2 && !right; attempt++) {
        for (int k = 0; k < 3 && attempt == 1; k++)
            held[k] = grundy_new(5 + k);
        lab_memo_clear_if_written();
        grundy_position *p = lab_build(heaps, n);
        right = is_right(asked_p, answer_of(p, asked_p, text, "asked again after grundy_memo_clear()"),
                         expected_p);
        grundy_free(p);
    }
    for (int k = 0; k < 3; k++)
        grundy_free(held[k]);
    return right;
}

/* Small positions on which the probes are cheap even without a working
 * memo: N-positions (where a provisional "P" shows) and P-positions. */
static const int probe_heaps[] = {3, 4, 5, 7, 6, 8, 10};

/* Fails the test for a wrong answer of a solver that keeps a memo, naming
 * the cause the probes leave. `what` is "QUESTION(POSITION)NOTE returned X;
 * the position is Y". */
static void fail_with_memo_cause(const int *heaps, size_t n, bool asked_p, bool expected_p,
                                 size_t memo_size, const char *what, const char *section)
{
    static char facts[1024];
    /* The memo's own record first: it names the cause in the calls the
     * solver made. */
    lab_fail_memo_check(&lab_grundy_solver, NULL, what);
    /* The small probes first, so the position named is the simplest that
     * shows the cause, then the failing position itself when it is small. */
    const char *cause = NULL;
    for (size_t i = 0; cause == NULL && i < sizeof probe_heaps / sizeof *probe_heaps; i++)
        cause = cause_by_question_order(&probe_heaps[i], 1, facts, sizeof facts);
    int total = 0;
    for (size_t i = 0; i < n; i++)
        total += heaps[i];
    if (cause == NULL && total <= 20)
        cause = cause_by_question_order(heaps, n, facts, sizeof facts);
    /* A memo of the solver's own (no call of the given table on record):
     * the question order shows that a second answer came from a wrong
     * entry, but not whether it was stored under another position or
     * before it was known (seen: a key one move off read as "stored
     * before the moves are searched"). */
    if (cause != NULL && lab_memo_evidence_saw_own_memo())
        cause = "your solver's own memo (it never calls the given memo_table, so the tests cannot "
                "see its entries) answered the second question with something other than the "
                "first's answer: an answer is stored under another position than the one solved "
                "(a move of it, say), or stored before it is known. Store exactly the answer you "
                "return, under the position you solved, after the loop over the moves; Task 2 "
                "asks for the given memo_table, whose calls the tests can read";
    if (cause != NULL)
        LAB_EXPECT(false, SECTION_MEMO_MISTAKES, "%s. %s: %s", what, facts,
                   cause);
    /* {3} (N) where {4} (P) was just freed, and the other way round. */
    static const int pairs[][2] = {{3, 4}, {4, 3}, {5, 7}, {7, 5}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        bool at_reused;
        if (answer_depends_on_address(&pairs[i][0], 1, &pairs[i][1], 1, &at_reused))
            LAB_EXPECT(false, SECTION_MEMO_MISTAKES,
                       "%s. The memo (holding %zu position%s) answers by address: "
                       "grundy_is_p_position({%d=1}) returned %s when asked right after {%d=1} was "
                       "solved and freed, and %s for a copy of {%d=1} at another address. Key it "
                       "by the position's heaps (memo_table finds a key with grundy_hash and "
                       "grundy_equals), never by the position's address, which a new position "
                       "reuses once an old one is freed",
                       what, memo_size, memo_size == 1 ? "" : "s", pairs[i][0],
                       at_reused ? "true" : "false", pairs[i][1], at_reused ? "false" : "true",
                       pairs[i][0]);
    }
    if (right_with_empty_memo(heaps, n, asked_p, expected_p))
        LAB_EXPECT(false, SECTION_MEMO_MISTAKES,
                   "%s. Asked again after grundy_memo_clear(), the solver answers right: the memo "
                   "(holding %zu position%s) returned an answer recorded for a different position. "
                   "Check that the memo finds keys with grundy_hash and grundy_equals and stores "
                   "its own copy (memo_table_put does both), never the position's address",
                   what, memo_size, memo_size == 1 ? "" : "s");
    LAB_EXPECT(false, section,
               "%s (wrong with an empty memo too, and every question asked twice from an empty "
               "memo kept its answer: the search itself is wrong; if it was right before the memo, "
               "look at how the memo stores and finds answers, section #task-2-mistakes)",
               what);
}

void lab_fail_memo_check(const lab_memo_solver *solver, const char *section, const char *what)
{
    static char saw[2048]; /* `what` may be lab_format's buffer, which the message reuses */
    snprintf(saw, sizeof saw, "%s", what);
    const char *cause = lab_memo_evidence(solver);
    if (cause != NULL)
        LAB_EXPECT(false, solver->section, "%s." LAB_TEST_SAW "%s", cause, saw);
    if (section != NULL)
        LAB_EXPECT(false, section, "%s", saw);
}

/* lab_expect_answer, with `note` after the position in its messages. */
static void expect_answer(const int *heaps, size_t n, const char *note, bool asked_p, bool answer,
                          const char *section)
{
    bool expected_p = oracle_is_p(heaps, n);
    if (is_right(asked_p, answer, expected_p))
        return;
    const char *text = lab_heaps_text(heaps, n);
    const char *question = asked_p ? "grundy_is_p_position" : "grundy_is_n_position";
    static char what[1024];
    snprintf(what, sizeof what, "%s(%s)%s returned %s; the position is %s", question, text, note,
             answer ? "true" : "false", lab_outcome_text(expected_p));
    size_t memo_size = lab_memo_size_if_written();
    /* Task 1's tests make the given table forget, so that they test the
     * recursion alone; a memo the solver keeps all the same is one of its
     * own, which no test can set aside: the student is told that this
     * result rests on it (a memo written without the given table is not
     * the lab's, and the handout's Task 2 asks for memo_table). */
    if (memo_size > 0 && lab_memo_is_forgotten()) {
        size_t used = strlen(what);
        snprintf(what + used, sizeof what - used,
                 ". Task 1's tests make the given memo_table forget every answer, so that they test "
                 "the recursion alone, but grundy_memo_size() is %zu: your solver keeps a memo of its "
                 "own, which they cannot set aside, so this result rests on that memo too (Task 2 "
                 "asks for the given memo_table: handout #task-2)",
                 memo_size);
    }
    if (memo_size > 0)
        fail_with_memo_cause(heaps, n, asked_p, expected_p, memo_size, what, section);
    /* No memo in the way: the recursion's own first wrong step. */
    const char *step = lab_first_wrong_step(heaps, n, asked_p);
    if (step != NULL)
        LAB_EXPECT(false, section, "%s." LAB_TEST_SAW "%s. %s", LAB_FIRST_WRONG_STEP, what, step);
    LAB_EXPECT(false, section, "%s", what);
}

void lab_expect_answer(const int *heaps, size_t n, bool asked_p, bool answer, const char *section)
{
    expect_answer(heaps, n, "", asked_p, answer, section);
}

void lab_expect_answer_from_elsewhere(const int *heaps, size_t n, const char *note, bool asked_p,
                                      bool answer, const char *section)
{
    bool expected_p = oracle_is_p(heaps, n);
    if (is_right(asked_p, answer, expected_p))
        return;
    /* The memo that gave the answer is gone: fill this process's to see
     * whether the solver keeps one. */
    lab_memo_clear_if_written();
    grundy_position *p = lab_build(LAB_HEAPS(10));
    (void)answer_of(p, true, "{10=1}", "to see whether the solver keeps a memo");
    grundy_free(p);
    expect_answer(heaps, n, note, asked_p, answer, section);
}

void lab_check_outcome(const int *heaps, size_t n, const char *section)
{
    lab_check_outcome_asked(heaps, n, false, "", section);
}

/* The solver's answer to grundy_is_p_position(p) (ask_p) or
 * grundy_is_n_position(p), `text` and `note` naming p in the trace. */
static bool ask(const grundy_position *p, bool ask_p, const char *text, const char *note)
{
    lab_trace("grundy_is_%s_position(%s)%s", ask_p ? "p" : "n", text, note);
    return ask_p ? grundy_is_p_position(p) : grundy_is_n_position(p);
}

void lab_check_outcome_asked(const int *heaps, size_t n, bool n_first, const char *note,
                             const char *section)
{
    const char *text = lab_heaps_text(heaps, n);
    grundy_position *p = lab_build(heaps, n);
    bool first_p = !n_first;
    bool first = ask(p, first_p, text, note);
    bool second = ask(p, !first_p, text, note);
    lab_trace("grundy_free(%s)", text);
    grundy_free(p); /* before any check: a failing test leaves nothing for valgrind */
    /* In the order asked, so that a wrong first answer is the one reported. */
    expect_answer(heaps, n, note, first_p, first, section);
    expect_answer(heaps, n, note, !first_p, second, section);
}

const char *lab_clear_left_note(void (*clear)(void), const char *clear_name, const char *size_name)
{
    static char note[400];
    size_t held = alloc_live_blocks();
    clear();
    size_t after = alloc_live_blocks();
    if (after == held)
        snprintf(note, sizeof note, "A second %s() freed no block either: the clear does not free the "
                 "memo, or %s() counts something the clear does not reset. Free the table "
                 "(memo_table_free(memo); memo = NULL;); %s() is 0 when there is no table",
                 clear_name, size_name, size_name);
    else if (after > held)
        snprintf(note, sizeof note, "A second %s() left %zu more heap block%s than before it: it makes "
                 "a new table, and grundy.h says no block is left after the clear", clear_name,
                 after - held, after - held == 1 ? "" : "s");
    else
        snprintf(note, sizeof note, "A second %s() still freed blocks: the first one left part of the "
                 "memo allocated", clear_name);
    return note;
}
