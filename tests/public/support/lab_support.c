/*
 * lab_support.c - shared helpers of the lab's suites (see lab_support.h).
 */
#define _XOPEN_SOURCE 700 /* sigaltstack, for reporting a stack overflow */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "alloc_tracker.h"
#include "lab_definition.h"
#include "lab_support.h"
#include "lab_todo.h"
#include "oracle.h"

#if defined(__SANITIZE_ADDRESS__) || defined(LAB_UBSAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

static char message[8192];

/* The running test, "suite::name" (set by lab_test_begin). */
static char test_name[128];

const char *lab_format(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return message;
}

/* Its own buffer, not a pointer to the caller's: a suite may build the
 * suffix in a buffer it reuses. */
static char message_suffix[64];

void lab_set_message_suffix(const char *suffix)
{
    snprintf(message_suffix, sizeof message_suffix, "%s", suffix != NULL ? suffix : "");
}

const char *lab_message_suffix(void)
{
    return message_suffix;
}

/* Stubs a test reached only through lab_memo_clear_if_written() or
 * lab_memo_size_if_written(): left out of the note. */
static const char *unasked_stubs[2];

static bool unasked(const char *stub)
{
    for (size_t i = 0; i < sizeof unasked_stubs / sizeof *unasked_stubs; i++)
        if (unasked_stubs[i] != NULL && strcmp(unasked_stubs[i], stub) == 0)
            return true;
    return false;
}

const char *lab_todo_note(void)
{
    static char note[512];
    size_t used = 0;
    for (size_t i = 0; lab_stub_reached(i) != NULL && used < sizeof note; i++) {
        if (unasked(lab_stub_reached(i)))
            continue;
        used += (size_t)snprintf(note + used, sizeof note - used, "%s%s",
                                 used ? ", " : "not implemented yet: ", lab_stub_reached(i));
    }
    if (used == 0)
        return "";
    if (used < sizeof note)
        snprintf(note + used, sizeof note - used, " (see the TODOs in your code). ");
    return note;
}

/* Whether `function` is a stub that was reached; when it is, it is also
 * left out of the note from now on (its caller asked it only in case). */
static bool stub_reached_in_passing(const char *function)
{
    for (size_t i = 0; lab_stub_reached(i) != NULL; i++) {
        if (strcmp(lab_stub_reached(i), function) != 0)
            continue;
        for (size_t k = 0; k < sizeof unasked_stubs / sizeof *unasked_stubs; k++) {
            if (unasked_stubs[k] == NULL || strcmp(unasked_stubs[k], function) == 0) {
                unasked_stubs[k] = function;
                break;
            }
        }
        return true;
    }
    return false;
}

/* Whether the test has called grundy_memo_clear() (and it is no stub)
 * and that clear looks like one that freed the table and kept the
 * pointer: it freed a block, and grundy_memo_size() is not 0 right after
 * it (it counts in the freed table). Only then does a crash or a spin
 * get after_clear_hint: a clear that freed nothing, or a right one, cannot
 * have left a pointer to freed memory. */
static bool memo_cleared;

static bool clear_kept_a_freed_table(size_t blocks_before)
{
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer stops at the first read of a freed table by itself,
     * and says so; asking the size here would only move that stop into a
     * test that did not ask (and fail one test more for the same bug). */
    return alloc_live_blocks() < blocks_before;
#else
    return alloc_live_blocks() < blocks_before && lab_memo_size_if_written() != 0;
#endif
}

/* The same for the clears of Part 2's own memos (traced_api.h): the name
 * of the last one called after a call of another traced function in this
 * test (a clear before any work frees nothing that could be misused). */
static bool traced_work;
static const char *cleared_after_work;

void lab_memo_clear(void)
{
    lab_trace("grundy_memo_clear()");
    size_t before = alloc_live_blocks();
    grundy_memo_clear();
    memo_cleared = memo_cleared || clear_kept_a_freed_table(before);
}

void lab_memo_clear_if_written(void)
{
    lab_trace("grundy_memo_clear()");
    size_t before = alloc_live_blocks();
    grundy_memo_clear();
    memo_cleared = memo_cleared ||
                   (!stub_reached_in_passing("grundy_memo_clear") && clear_kept_a_freed_table(before));
}

size_t lab_memo_size_if_written(void)
{
    lab_trace("grundy_memo_size()");
    size_t size = grundy_memo_size();
    return stub_reached_in_passing("grundy_memo_size") ? 0 : size;
}

const char *lab_outcome_text(bool is_p)
{
    return is_p ? "a P-position" : "an N-position";
}

const char *lab_heaps_text(const int *heaps, size_t n)
{
    /* A ring of buffers: a message quotes a few positions at once, and
     * nothing is left allocated for valgrind to report. */
    static char ring[16][4096];
    static size_t next;
    char *text = oracle_format(heaps, n);
    char *slot = ring[next++ % 16];
    snprintf(slot, sizeof ring[0], "%s", text);
    free(text);
    return slot;
}

/* "3, 7, 1": the heaps as a test adds them, for the trace. */
static const char *heap_list(const int *heaps, size_t n)
{
    static char list[1024];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", i ? ", " : "", heaps[i]);
    return list;
}

/* lab_trace for the steps of building a position: recorded as the last
 * step, but not as the last call (see last_call below), which a crash
 * while building names too. */
static void trace_building(const char *format, ...) __attribute__((format(printf, 1, 2)));

grundy_position *lab_build(const int *heaps, size_t n)
{
    trace_building("grundy_new(0), to build a position from the heaps [%s]", heap_list(heaps, n));
    grundy_position *p = grundy_new(0);
    LAB_EXPECT(p != NULL, SECTION_MAP, "grundy_new(0) returned NULL; it must return an empty position");
    for (size_t i = 0; i < n; i++) {
        trace_building("grundy_add_heap(p, %d), adding heap %zu of [%s] to grundy_new(0)", heaps[i],
                       i + 1, heap_list(heaps, n));
        grundy_add_heap(p, heaps[i]);
    }
    return p;
}

size_t lab_expand(const grundy_position *p, int *heaps, const char *what)
{
    return lab_expand_at_most(p, heaps, LAB_MAX_HEAPS, what);
}

/* The handout section for a position that is NULL: Task 0's map section
 * in Task 0's tests, else the section of the task whose test it is (a
 * Task 6 stub returning NULL is Task 6's to write, not the map's). */
static const char *null_position_section(void)
{
    char suite[sizeof test_name];
    snprintf(suite, sizeof suite, "%s", test_name);
    suite[strcspn(suite, ":")] = '\0';
    const lab_task *task = lab_task_of_suite(suite);
    if (task == NULL || strcmp(task->suite, "task0") == 0)
        return SECTION_MAP;
    return task->anchor;
}

size_t lab_expand_at_most(const grundy_position *p, int *heaps, size_t max, const char *what)
{
    lab_trace("reading the entries of %s", what);
    LAB_EXPECT(p != NULL, null_position_section(), "%s is NULL; expected a position", what);
    LAB_EXPECT(p->size <= p->capacity, SECTION_INVARIANT,
               "%s has size %zu > capacity %zu", what, p->size, p->capacity);
    LAB_EXPECT(p->size == 0 || p->entries != NULL, SECTION_INVARIANT,
               "%s has size %zu but entries is NULL", what, p->size);
    size_t n = 0;
    for (size_t i = 0; i < p->size; i++) {
        heap_count e = p->entries[i];
        LAB_EXPECT(e.height >= 3, SECTION_INVARIANT,
                   "%s stores height %d at entries[%zu]; only heights >= 3 may be stored", what,
                   e.height, i);
        LAB_EXPECT(e.count >= 1, SECTION_INVARIANT,
                   "%s stores count %d for height %d; an entry with no heaps must be removed",
                   what, e.count, e.height);
        LAB_EXPECT(i == 0 || p->entries[i - 1].height < e.height, SECTION_INVARIANT,
                   "%s: entries[%zu].height = %d follows %d; heights must be strictly ascending "
                   "(each height once)",
                   what, i, e.height, p->entries[i - 1].height);
        LAB_EXPECT(n + (size_t)e.count <= max, SECTION_INVARIANT,
                   "%s holds more than %zu heaps; the tests never build that many", what, max);
        for (int k = 0; k < e.count; k++)
            heaps[n++] = e.height;
    }
    return n;
}

void lab_expect_owned_result(const grundy_position *result, const char *call, const char *section)
{
    if (result == NULL || alloc_block_state == NULL)
        return;
    alloc_state state = alloc_block_state(result);
    char call_text[512]; /* `call` may be lab_format's buffer, which the message reuses */
    snprintf(call_text, sizeof call_text, "%s", call);
    call = call_text;
    LAB_EXPECT(state != ALLOC_FREED_FROM_MOVES, section,
               "%s returned a position that was already freed: one of the positions of its move "
               "list, freed with the list by position_list_free. The caller owns the result and "
               "frees it, so it must be a copy: return grundy_copy(moves->items[i]), then free "
               "the list",
               call);
    LAB_EXPECT(state == ALLOC_LIVE, section,
               "%s returned a position that is not a live heap block (already freed, or never "
               "allocated with malloc): the caller owns the result and frees it, so return a new "
               "position (grundy_copy of the one you chose)",
               call);
}

const char *lab_position_text(const grundy_position *p, const char *what)
{
    int heaps[LAB_MAX_HEAPS];
    size_t n = lab_expand(p, heaps, what);
    return lab_heaps_text(heaps, n);
}

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
    if (memo_size > 0)
        fail_with_memo_cause(heaps, n, asked_p, expected_p, memo_size, what, section);
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

void lab_expect_oracle_moves(const position_list *moves, const int *heaps, size_t n, const char *text)
{
    LAB_EXPECT(moves != NULL, SECTION_MOVES,
               "grundy_get_moves(%s) returned NULL; return a list (empty when there is no move)", text);
    LAB_EXPECT(moves->size == 0 || moves->items != NULL, SECTION_MOVES,
               "grundy_get_moves(%s) returned a list of size %zu with items NULL", text, moves->size);
    oracle_move_list *want = oracle_moves(heaps, n);
    bool *matched = calloc(want->count + 1, sizeof *matched);
    LAB_EXPECT(matched != NULL, SECTION_MOVES, "internal error: out of memory");
    for (size_t i = 0; i < moves->size; i++) {
        char what[256];
        snprintf(what, sizeof what, "move %zu of grundy_get_moves(%s)", i, text);
        int got[LAB_MAX_HEAPS];
        size_t got_n = lab_expand(moves->items[i], got, what);
        size_t k = 0;
        while (k < want->count &&
               !(want->lengths[k] == got_n &&
                 (got_n == 0 || memcmp(want->positions[k], got, got_n * sizeof *got) == 0)))
            k++;
        LAB_EXPECT(k < want->count, SECTION_MOVES,
                   "grundy_get_moves(%s) returned %s, which is not one move away", text,
                   lab_heaps_text(got, got_n));
        LAB_EXPECT(!matched[k], SECTION_MOVES,
                   "grundy_get_moves(%s) returned %s twice; each distinct position must appear once "
                   "(loop over distinct heights, not over heaps)",
                   text, lab_heaps_text(got, got_n));
        matched[k] = true;
    }
    for (size_t k = 0; k < want->count; k++)
        LAB_EXPECT(matched[k], SECTION_MOVES,
                   "grundy_get_moves(%s) is missing the move to %s (%zu of %zu moves returned)", text,
                   lab_heaps_text(want->positions[k], want->lengths[k]), moves->size, want->count);
    free(matched);
    oracle_move_list_free(want);
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

bool lab_under_valgrind(void)
{
#if defined(RUNNING_ON_VALGRIND)
    return RUNNING_ON_VALGRIND != 0;
#else
    return false; /* no valgrind headers: no valgrind either */
#endif
}

unsigned lab_random(unsigned *state)
{
    unsigned x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

bool lab_skip_timing(const char *suite)
{
    const char *skip = getenv("LAB_SKIP_TIMING");
    if (skip == NULL || skip[0] == '\0')
        return false;
    if (strcmp(skip, "1") == 0)
        return true;
    size_t length = strlen(suite);
    for (const char *at = strstr(skip, suite); at != NULL; at = strstr(at + 1, suite))
        if ((at == skip || at[-1] == ' ' || at[-1] == ',') && (at[length] == '\0' || at[length] == ' ' ||
                                                               at[length] == ','))
            return true;
    return false;
}

/* ---- crashes and time-outs ------------------------------------------------
 * Criterion reports a test killed by a signal as a bare "CRASH!". The test
 * process knows more: which test it runs and what it was doing. A signal
 * handler writes that down, then lets the signal end the process as before,
 * so Criterion still counts the crash. The handler may only use
 * async-signal-safe calls (open, write, close, sigaction, raise), so it
 * assembles its text from fixed strings. */

static char last_step[768];
/* The last step that was not building a position: when a crash happens
 * while building one (in malloc or free, which find a corrupted heap only
 * then), the call before, which corrupted it, is named too. */
static char last_call[768];
/* Whether last_step was written by the test's own lab_trace (and not yet
 * used by a traced call of the function it names: lab_trace_call). */
static bool last_step_explicit;
static bool test_finished;

/* ---- time limits ------------------------------------------------------------
 * Each test may use TEST_CPU_SECONDS of CPU time in its own process (the
 * children it forks have budgets of their own); the model solution's
 * slowest test uses under 0.5 s of it. Once a test of a suite has run out of
 * time, the suite's later tests get SHORT_TEST_CPU_SECONDS: a solver that
 * loops does so in most tests, and each time-out would otherwise cost the
 * whole limit, so `make test` of such a mistake takes seconds, not minutes.
 * The time-outs are written down in $LAB_SUMMARY_FILE.timeouts (one suite
 * a line; tests/public/run-suites starts each run with none). The suites' .timeout
 * (Criterion's wall-clock limit) stays as the backstop of a test that
 * blocks without using CPU. AddressSanitizer (SAN=1) makes code 2-3 times
 * slower, so the limits are tripled there; under valgrind (20-50 times
 * slower) only Criterion's limit applies. */
#if defined(__SANITIZE_ADDRESS__)
enum { TEST_CPU_SECONDS = 12, SHORT_TEST_CPU_SECONDS = 3 };
#define LIMIT_TEXT "12 s"
#define SHORT_LIMIT_TEXT "3 s"
#else
enum { TEST_CPU_SECONDS = 4, SHORT_TEST_CPU_SECONDS = 1 };
#define LIMIT_TEXT "4 s"
#define SHORT_LIMIT_TEXT "1 s"
#endif
static bool short_limit;
static char timeouts_path[4096]; /* "" when the runner was started by hand */

/* The suite of the running test: "task2" for "task2::memo_fills_up". */
static size_t suite_length(void)
{
    return strcspn(test_name, ":");
}

/* Whether an earlier test of this suite, in this run, timed out. */
static bool suite_timed_out_before(void)
{
    FILE *file = timeouts_path[0] != '\0' ? fopen(timeouts_path, "r") : NULL;
    if (file == NULL)
        return false;
    char line[160];
    bool found = false;
    size_t length = suite_length();
    while (!found && fgets(line, sizeof line, file) != NULL)
        found = strncmp(line, test_name, length) == 0 && line[length] == '\n';
    fclose(file);
    return found;
}

/* In the SIGPROF handler: only async-signal-safe calls. */
static void record_time_out(void)
{
    if (timeouts_path[0] == '\0')
        return;
    int fd = open(timeouts_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    (void)!write(fd, test_name, suite_length());
    (void)!write(fd, "\n", 1);
    close(fd);
}

static void start_time_limit(void)
{
    if (lab_under_valgrind())
        return;
    short_limit = suite_timed_out_before();
    struct itimerval limit = {.it_value = {.tv_sec = short_limit ? SHORT_TEST_CPU_SECONDS : TEST_CPU_SECONDS}};
    setitimer(ITIMER_PROF, &limit, NULL); /* SIGPROF, handled by on_fatal_signal */
}
static char crash_report_path[4096]; /* "" means stderr */
static pid_t test_process;

/* The test's current step, and the call it is: what a crash report names. */
static void record_step(bool explicit_step, const char *format, va_list args)
{
    vsnprintf(last_step, sizeof last_step, format, args);
    memcpy(last_call, last_step, sizeof last_call);
    last_step_explicit = explicit_step;
}

void lab_trace(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    record_step(true, format, args);
    va_end(args);
}

void lab_trace_call(const char *name, const char *format, ...)
{
    size_t length = strlen(name);
    if (strstr(name, "_clear") == NULL)
        traced_work = true;
    else if (traced_work && strcmp(name, "grundy_memo_clear") != 0)
        cleared_after_work = name;
    if (last_step_explicit && strncmp(last_step, name, length) == 0 && last_step[length] == '(') {
        last_step_explicit = false; /* the test described this call in its own words */
        return;
    }
    va_list args;
    va_start(args, format);
    record_step(false, format, args);
    va_end(args);
}

const char *lab_trace_text(const grundy_position *p)
{
    if (p == NULL)
        return "NULL";
    int heaps[LAB_MAX_HEAPS];
    size_t n = 0;
    bool valid = p->size <= p->capacity && (p->size == 0 || p->entries != NULL);
    for (size_t i = 0; valid && i < p->size; i++) {
        heap_count e = p->entries[i];
        valid = e.height >= 3 && e.count >= 1 && (i == 0 || p->entries[i - 1].height < e.height) &&
                n + (size_t)e.count <= LAB_MAX_HEAPS;
        for (int k = 0; valid && k < e.count; k++)
            heaps[n++] = e.height;
    }
    return valid ? lab_heaps_text(heaps, n) : "a position";
}

static void trace_building(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_step, sizeof last_step, format, args);
    va_end(args);
    last_step_explicit = false;
}

static const char *signal_words(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "crashed with SIGSEGV, an invalid memory access (a NULL, freed or out-of-bounds "
               "pointer, or a recursion that never stops)";
    case SIGBUS:
        return "crashed with SIGBUS, an invalid memory access";
    case SIGFPE:
        return "crashed with SIGFPE, an arithmetic error such as a division by zero";
    case SIGILL:
        return "crashed with SIGILL, an illegal instruction (often a non-void function that "
               "reached its end without a return)";
    case SIGABRT:
        return "was aborted (SIGABRT): a failed assert(), or the C library found the heap "
               "corrupted, for example by a double free or a write past the end of a block";
    case SIGPROF:
        return short_limit ? "did not finish within the test's short time limit (" SHORT_LIMIT_TEXT
                             " of CPU: an earlier test of this task timed out already, so the "
                             "later ones are cut short; an endless loop, or a search far too slow)"
                           : "did not finish within the test's time limit (" LIMIT_TEXT " of CPU: "
                             "an endless loop, or a search far too slow)";
    default:
        return "was killed by a signal";
    }
}

static size_t append(char *text, size_t used, size_t size, const char *part)
{
    size_t length = strlen(part);
    if (used + length >= size)
        length = size - used - 1;
    memcpy(text + used, part, length);
    text[used + length] = '\0';
    return used + length;
}

/* "make test-task1" for "task1::small_heaps". */
static const char *task_target(void)
{
    static char target[32];
    size_t used = append(target, 0, sizeof target, "make test-");
    for (const char *c = test_name; *c != '\0' && *c != ':' && *c != '_'; c++)
        if (used < sizeof target - 1)
            target[used++] = *c;
    target[used] = '\0';
    return target;
}

/* Writes what happened to the test: a line "TEST<tab>WHAT" for the report
 * hook (lab_report.c) in $LAB_SUMMARY_FILE.crashes, or "TEST: WHAT" on
 * stderr when the runner was started by hand. */
static void write_crash_report(const char *what, const char *next)
{
    static char line[2048];
    bool to_file = crash_report_path[0] != '\0';
    size_t used = append(line, 0, sizeof line, test_name);
    used = append(line, used, sizeof line, to_file ? "\t" : ": ");
    used = append(line, used, sizeof line, "the test ");
    used = append(line, used, sizeof line, what);
    if (last_step[0] != '\0') {
        used = append(line, used, sizeof line, " during its last step, ");
        used = append(line, used, sizeof line, last_step);
    }
    if (last_call[0] != '\0' && strcmp(last_call, last_step) != 0) {
        used = append(line, used, sizeof line, " (after ");
        used = append(line, used, sizeof line, last_call);
        used = append(line, used, sizeof line, ": a write past the end of a block or into freed "
                                               "memory is often found only at a later malloc or "
                                               "free, so that call may be the one at fault)");
    }
    used = append(line, used, sizeof line, ". ");
    used = append(line, used, sizeof line, next);
    used = append(line, used, sizeof line, "\n");
    int fd = to_file ? open(crash_report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
                     : STDERR_FILENO;
    if (fd < 0)
        fd = STDERR_FILENO;
    if (write(fd, line, used) < 0 && fd != STDERR_FILENO)
        (void)!write(STDERR_FILENO, line, used);
    if (fd != STDERR_FILENO)
        close(fd);
}

/* What a crash or a spin after grundy_memo_clear() most often means. */
static const char *after_clear_hint(void)
{
    if (strcmp(last_step, "grundy_memo_clear()") == 0)
        return ". grundy_memo_clear() itself failed, after an earlier clear: freeing the table "
               "twice does this. After memo_table_free(memo), set memo = NULL (handout #task-2)";
    return ". The memo was cleared earlier in this test: if grundy_memo_clear() frees the table "
           "but keeps the pointer, the next question works in freed memory. After "
           "memo_table_free(memo), set memo = NULL (handout #task-2)";
}

/* Where a time-out most often comes from, in the task's own terms: Tasks
 * 7 and 8 have no recursion to blame, Task 5 one loop over the moves. */
static const char *spin_hint(void)
{
    if (strncmp(test_name, "task5", 5) == 0)
        return "Check that the loop over the moves ends, and that each move is asked about once, "
               "through the memoized solver; to see where it spins, run ";
    if (strncmp(test_name, "task7", 5) == 0)
        return "Check that each loop of the table ends (every height up to the last, every split "
               "of it), and that a value is read from the table, not computed again; to see where "
               "it spins, run ";
    if (strncmp(test_name, "task8", 5) == 0)
        return "Check that every frame pushed is popped once its moves are answered, and that a "
               "position already answered is looked up in the memo, not pushed again; to see "
               "where it spins, run ";
    return "Check that every recursive call gets a smaller position; to see where it spins, run ";
}

static void on_fatal_signal(int sig)
{
    /* A child the test forked (the timing checks do) reports nothing: its
     * parent, the test, says what happened to it. */
    if (getpid() == test_process) {
        static char next[768];
        if (sig == SIGPROF && strncmp(test_name, "task6::", 7) == 0 && strstr(last_step, "nim") != NULL) {
            record_time_out();
            append(next, 0, sizeof next, "Is every nimber remembered in the table, and looked up "
                                         "before it is computed? From the definition alone, g(40) "
                                         "takes about 3.3e11 calls (handout #task-6-nimbers)");
        } else if (sig == SIGPROF) {
            record_time_out();
            size_t used = append(next, 0, sizeof next, spin_hint());
            used = append(next, used, sizeof next, task_target());
            append(next, used, sizeof next, strncmp(test_name, "task7", 5) == 0
                                                ? " with a print of the height at the top of each loop"
                                                : strncmp(test_name, "task8", 5) == 0
                                                      ? " with a print of the top frame's position at the "
                                                        "top of your loop"
                                                      : " with a print of the position at the top of your "
                                                        "solver");
        } else {
            append(next, 0, sizeof next, "Run `make memcheck` (valgrind names the line of the bad "
                                         "access) or `make test SAN=1` (AddressSanitizer stops at it)");
        }
        if (memo_cleared) {
            append(next, strlen(next), sizeof next, after_clear_hint());
        } else if (cleared_after_work != NULL && sig != SIGPROF) {
            /* A time-out is no evidence of memory a clear left behind: a
             * pointer, size or capacity kept by a clear makes a crash. */
            size_t used = strlen(next);
            used = append(next, used, sizeof next, ". ");
            used = append(next, used, sizeof next, cleared_after_work);
            append(next, used, sizeof next, "() was called earlier in this test: a clear that frees "
                                            "a table but keeps its pointer, size or capacity makes "
                                            "the next call work in freed or missing memory. After "
                                            "freeing, set the pointer to NULL and the counts to 0");
        }
        write_crash_report(signal_words(sig), next);
    }
    struct sigaction fallback = {.sa_handler = SIG_DFL};
    sigemptyset(&fallback.sa_mask);
    sigaction(sig, &fallback, NULL);
    raise(sig);
}

#if defined(__SANITIZE_ADDRESS__)
/* With SAN=1 the sanitizers catch the bad access and print their report;
 * this adds which test and step it was. */
static void on_sanitizer_death(void)
{
    if (test_finished)
        write_crash_report("ended with memory still allocated, which LeakSanitizer reports above "
                           "the summary",
                           "Its stacks say where each block was allocated");
    else
        write_crash_report("was stopped by a sanitizer (its report is printed above the summary)",
                           "Read the first stack of that report: its top line in your files is "
                           "the bad access");
}
#endif

#if defined(LAB_UBSAN) && !defined(__SANITIZE_ADDRESS__)
/* A plain `make test` build checks for undefined behaviour
 * (tests/public/sanitizers.mk) and stops at the first: the report,
 * "FILE:LINE:COLUMN: runtime error: WHAT", goes to a file of this process
 * (set in lab_test_begin), and this hook turns it into the test's failure
 * message, so that the summary names the line, and copies it to stderr
 * as UndefinedBehaviorSanitizer would have printed it. tests/public/
 * run-suites names that file: UBSAN_OPTIONS=log_path=$LAB_SUMMARY_FILE.ubsan
 * (without it, the report goes to stderr as usual). Not a signal
 * handler: the runtime calls it before it exits, so stdio is fine. */
static char ubsan_report_prefix[4096]; /* "" means the report went to stderr */

/* What to do about the kind of undefined behaviour `report` names. */
static const char *undefined_behaviour_advice(const char *report)
{
    if (strstr(report, "signed integer overflow") != NULL)
        return "Signed arithmetic (int, long) must stay in its range; a value meant to wrap "
               "around, such as a hash, is computed in an unsigned type (uint64_t), whose "
               "arithmetic wraps by definition";
    if (strstr(report, "shift") != NULL)
        return "Shift unsigned values, by 0 to (width of the type - 1) bits";
    if (strstr(report, "out of bounds") != NULL)
        return "An index went past the end of an array (or below 0): check the loop's bounds";
    if (strstr(report, "division by zero") != NULL)
        return "A division or a % by zero";
    return "Fix that line";
}

static void on_undefined_behaviour(void)
{
    static char where[600], report[600];
    where[0] = report[0] = '\0';
    if (ubsan_report_prefix[0] != '\0') {
        char path[sizeof ubsan_report_prefix + 32];
        snprintf(path, sizeof path, "%s.%d", ubsan_report_prefix, (int)getpid());
        FILE *log = fopen(path, "r");
        char line[1024];
        while (log != NULL && fgets(line, sizeof line, log) != NULL) {
            fputs(line, stderr);
            /* "student/grundy_position.c:157:14: runtime error: signed integer overflow: ..." */
            char *error = strstr(line, ": runtime error: ");
            if (error != NULL && report[0] == '\0') {
                line[strcspn(line, "\n")] = '\0';
                snprintf(where, sizeof where, "%.*s", (int)(error - line), line);
                snprintf(report, sizeof report, "%s", error + strlen(": runtime error: "));
            }
        }
        if (log != NULL) {
            fclose(log);
            remove(path);
        }
    }
    if (getpid() != test_process)
        return; /* a child the test forked: the report is on stderr, its parent says the rest */
    static char what[1024], next[1536];
    if (where[0] != '\0') {
        snprintf(what, sizeof what, "stopped on undefined behaviour at %s", where);
        snprintf(next, sizeof next,
                 "UndefinedBehaviorSanitizer (`make test` builds with it) says: %s. %s. Undefined "
                 "behaviour may look right here and break with another compiler, another -O or "
                 "the grader's build",
                 report, undefined_behaviour_advice(report));
    } else {
        snprintf(what, sizeof what,
                 "stopped on undefined behaviour (UndefinedBehaviorSanitizer's report is printed "
                 "above: its first line names the file and line)");
        snprintf(next, sizeof next, "Undefined behaviour may look right here and break with "
                                    "another compiler, another -O or the grader's build");
    }
    write_crash_report(what, next);
}
#endif

void lab_stop_test(const char *what, const char *next)
{
    if (getpid() == test_process)
        write_crash_report(what, next);
    else
        fprintf(stderr, "%s: a process it forked %s. %s\n", test_name, what, next);
    fflush(NULL);
    _exit(1);
}

void lab_test_finished(void)
{
    test_finished = true;
    last_step[0] = '\0';
    last_call[0] = '\0';
}

void lab_test_begin(const char *test)
{
    snprintf(test_name, sizeof test_name, "%s", test);
    last_step[0] = '\0';
    last_call[0] = '\0';
    test_finished = false;
    memo_cleared = false;
    traced_work = false;
    cleared_after_work = NULL;
    lab_set_message_suffix("");
    test_process = getpid();
    const char *summary = getenv("LAB_SUMMARY_FILE");
    snprintf(crash_report_path, sizeof crash_report_path, "%s%s", summary != NULL ? summary : "",
             summary != NULL ? ".crashes" : "");
    snprintf(timeouts_path, sizeof timeouts_path, "%s%s", summary != NULL ? summary : "",
             summary != NULL ? ".timeouts" : "");
#if defined(RUNNING_ON_VALGRIND)
    /* Names the test in valgrind's log of this process (make memcheck). */
    VALGRIND_PRINTF("lab-test %s\n", test);
#endif

    /* Its own stack, so that a stack overflow can still be reported. */
    static char alternate_stack[64 * 1024];
    stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack};
    sigaltstack(&stack, NULL);
    struct sigaction action = {.sa_handler = on_fatal_signal, .sa_flags = SA_ONSTACK};
    sigemptyset(&action.sa_mask);
    /* Criterion ends a test at its time limit with SIGPROF. */
    int signals[] = {SIGABRT, SIGPROF,
#if !defined(__SANITIZE_ADDRESS__)
                     SIGSEGV, SIGBUS, SIGFPE, SIGILL,
#endif
    };
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        sigaction(signals[i], &action, NULL);
    start_time_limit();
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(on_sanitizer_death);
#elif defined(LAB_UBSAN)
    snprintf(ubsan_report_prefix, sizeof ubsan_report_prefix, "%s%s", summary != NULL ? summary : "",
             summary != NULL ? ".ubsan" : "");
    __sanitizer_set_death_callback(on_undefined_behaviour);
#endif
}
