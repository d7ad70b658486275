/*
 * lab_first_step.c - the first wrong step of a solver that searches the
 * moves (Task 1's recursion, Task 6's reduced search, Task 8's explicit
 * stack), found from its own answers and calls (see lab_support.h,
 * lab_first_wrong_step, and memo_evidence.h, lab_first_wrong_step_of).
 *
 * A wrong answer at a position is either inherited (the solver is wrong
 * about one of its moves too) or made at that step (it is right about
 * every move, and combines their answers wrongly). So the search goes down
 * from the failing position to its smallest move that the solver answers
 * wrong, until every move is answered right: that position is the step
 * where the mistake is made. It is explained against the rule (P exactly
 * when every move leads to an N-position), and with what the solver did
 * there: which moves it expanded (the grundy_get_moves calls on record,
 * memo_record.h) and whether it changed its argument. No message is
 * written for one mistake: a new one is explained by the same facts.
 */
#include <stdio.h>
#include <string.h>

#include "lab_support.h"
#include "memo_evidence.h"
#include "memo_record.h"
#include "oracle.h"

/* Positions of more tokens are not searched: an unmemoized solver answers
 * each move of a 20-token position in about 0.1 s (the tests ask up to 22), valgrind 20-50 times
 * slower. */
enum { STEP_MOST_TOKENS = 22, STEP_MOST_TOKENS_VALGRIND = 14, STEP_MOST_HEAPS = 8 };

typedef struct {
    int heaps[STEP_MOST_HEAPS];
    size_t n;
} step_position;

static int tokens(const int *heaps, size_t n)
{
    int total = 0;
    for (size_t i = 0; i < n; i++)
        total += heaps[i];
    return total;
}

/* Move i of the list as a step position; false when it holds more heaps
 * than one has room for (never within STEP_MOST_TOKENS, which allows 7). */
static bool move_at(const oracle_move_list *moves, size_t i, step_position *out)
{
    if (moves->lengths[i] > STEP_MOST_HEAPS)
        return false;
    out->n = moves->lengths[i];
    memcpy(out->heaps, moves->positions[i], out->n * sizeof *out->heaps);
    return true;
}

/* The solver whose step is searched, and whether its memo is its own
 * (a Part 2 solver's): then every question starts from an empty memo, so
 * that each answer is the search's own. Task 1's solver is asked with the
 * given memo forgotten instead, and its clear is never called (it may be
 * a Task 2 stub still). */
static const lab_memo_solver *stepping;
static bool own_memo;

/* The name of the question asked: grundy_is_p_position, or is_n's. */
static const char *question(bool asked_p)
{
    return asked_p || stepping->is_n_name == NULL ? stepping->is_p_name : stepping->is_n_name;
}

/* The solver's answer to the question asked (is_p or is_n) about a fresh
 * copy of the position; *changed tells whether the call changed it. */
static bool answer(const step_position *at, bool asked_p, const char *why, bool *changed)
{
    const char *text = lab_heaps_text(at->heaps, at->n);
    if (own_memo)
        stepping->clear();
    lab_trace("%s(%s), %s", question(asked_p), text, why);
    grundy_position *p = lab_build(at->heaps, at->n);
    bool said = stepping->ask(p, asked_p);
    int after[LAB_MAX_HEAPS];
    size_t n = lab_expand(p, after, lab_format("%s after the solver's call", text));
    *changed = n != at->n || memcmp(after, at->heaps, n * sizeof *after) != 0;
    grundy_free(p);
    return said;
}

/* The positions the solver expanded (its grundy_get_moves calls) while
 * answering one question about a fresh copy of `at`, in order; how many,
 * or (size_t)-1 when the record is not kept or overflowed. */
typedef struct {
    step_position at[MEMO_RECORD_MAX];
    size_t count;
} expansions_seen;

static size_t record_expansions(const step_position *at, bool asked_p, expansions_seen *out, bool *changed)
{
    static memo_event record[MEMO_RECORD_MAX];
    if (memo_record_reset == NULL || memo_record_read == NULL)
        return (size_t)-1;
    memo_record_reset();
    (void)answer(at, asked_p, "asked again, its calls recorded", changed);
    size_t events = memo_record_read(record, MEMO_RECORD_MAX);
    if (events >= MEMO_RECORD_MAX)
        return (size_t)-1;
    out->count = 0;
    for (size_t i = 0; i < events; i++) {
        int heaps[LAB_MAX_HEAPS];
        size_t n = memo_event_heaps(&record[i], heaps, LAB_MAX_HEAPS);
        if (record[i].kind != MEMO_EVENT_EXPAND)
            continue;
        if (n == (size_t)-1 || (n = oracle_canonicalize(heaps, n)) > STEP_MOST_HEAPS)
            return (size_t)-1;
        step_position *e = &out->at[out->count++];
        e->n = n;
        memcpy(e->heaps, heaps, n * sizeof *heaps);
    }
    return out->count;
}

static bool same(const step_position *a, const step_position *b)
{
    return oracle_compare(a->heaps, a->n, b->heaps, b->n) == 0;
}

/* Whether seen->at[from ...] starts with the whole of `part`. */
static bool starts_with(const expansions_seen *seen, size_t from, const expansions_seen *part)
{
    if (part->count == 0 || from + part->count > seen->count)
        return false;
    for (size_t i = 0; i < part->count; i++)
        if (!same(&seen->at[from + i], &part->at[i]))
            return false;
    return true;
}

/* What the solver did at the step, from the record of its calls: it
 * expanded the step, then each move it looked at, each followed by that
 * move's own expansions. A move's expansions are the same as when it is
 * asked alone (the memo is forgotten or absent), so the record splits
 * into the moves looked at, in order, and which question was asked of
 * each; what does not split that way is not described. Appended to
 * `out`; sets *changed when a call changed its argument. */
static void describe_calls(const step_position *step, const oracle_move_list *moves, bool asked_p,
                           bool step_is_p, char *out, size_t size, bool *changed)
{
    static expansions_seen seen, alone[2];
    if (record_expansions(step, asked_p, &seen, changed) == (size_t)-1)
        return;
    char text[256];
    snprintf(text, sizeof text, "%s", lab_heaps_text(step->heaps, step->n));
    size_t used = strlen(out);
    if (moves->count > 0 && (seen.count == 0 || !same(&seen.at[0], step))) {
        if (seen.count == 0)
            snprintf(out + used, size - used, " Your solver answered %s without calling "
                     "grundy_get_moves(%s): it never looked at its moves.", text, text);
        return;
    }
    bool looked[64] = {false};
    int asked[64]; /* 1: is_p, 0: is_n, -1: either */
    size_t at = 1, order = 0;
    char list[1024] = "";
    while (at < seen.count) {
        bool matched = false;
        for (size_t i = 0; i < moves->count && i < 64 && !matched; i++) {
            step_position m;
            if (!move_at(moves, i, &m) || !same(&seen.at[at], &m))
                continue;
            bool fits[2];
            bool ignored;
            for (int q = 0; q < 2; q++)
                fits[q] = record_expansions(&m, q == 1, &alone[q], &ignored) != (size_t)-1 &&
                          starts_with(&seen, at, &alone[q]);
            if (!fits[0] && !fits[1])
                continue;
            matched = true;
            looked[i] = true;
            asked[i] = fits[0] && fits[1] ? -1 : fits[1];
            at += alone[fits[1] ? 1 : 0].count;
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%s%s%s%s", order++ > 0 ? ", " : "",
                     lab_heaps_text(m.heaps, m.n), asked[i] < 0 ? "" : " (asking ",
                     asked[i] < 0 ? "" : question(asked[i] == 1), asked[i] < 0 ? "" : ")");
        }
        if (!matched)
            return; /* a record this reading does not explain: say nothing of it */
    }
    used = strlen(out);
    snprintf(out + used, size - used, " While answering %s, your solver called grundy_get_moves(%s) and "
             "then expanded %s%s.", text, text, order == 0 ? "none of its moves" : "", list);
    /* A move that decides and was never looked at: a P-move makes the
     * step N; with none, every move (all N) makes it P. A terminal move
     * needs no expansion, so it cannot be said to be skipped. */
    for (size_t i = 0; i < moves->count && i < 64; i++) {
        bool decides = step_is_p || oracle_is_p(moves->positions[i], moves->lengths[i]);
        if (decides && !looked[i] && moves->lengths[i] > 0) {
            used = strlen(out);
            snprintf(out + used, size - used, " It never expanded %s, %s.",
                     lab_heaps_text(moves->positions[i], moves->lengths[i]),
                     step_is_p ? "one of the moves to an N-position, which all have to be checked"
                               : "a move to a P-position");
            return;
        }
    }
}

/* Whether grundy_get_moves gives the step exactly the rule's moves; a
 * step explained on moves the solver never got would blame the wrong
 * task. */
static bool moves_are_the_rules(const step_position *step, const oracle_move_list *moves)
{
    grundy_position *p = lab_build(step->heaps, step->n);
    lab_trace("grundy_get_moves(%s), to check the moves of the first wrong step",
              lab_heaps_text(step->heaps, step->n));
    position_list *got = grundy_get_moves(p);
    bool same_moves = got != NULL && got->size == moves->count;
    for (size_t i = 0; same_moves && i < got->size; i++) {
        int heaps[LAB_MAX_HEAPS];
        size_t n = lab_expand(got->items[i], heaps, "a move grundy_get_moves returned");
        n = oracle_canonicalize(heaps, n);
        bool found = false;
        for (size_t k = 0; k < moves->count && !found; k++)
            found = oracle_compare(heaps, n, moves->positions[k], moves->lengths[k]) == 0;
        same_moves = found;
    }
    position_list_free(got);
    grundy_free(p);
    return same_moves;
}

/* The explanation of the step: its moves and their outcomes, the rule,
 * and what the solver did there; NULL when grundy_get_moves does not give
 * the rule's moves there. */
static const char *explain(const step_position *step, const oracle_move_list *moves, bool asked_p,
                           bool said, bool changed)
{
    static char out[2048];
    char text[256];
    snprintf(text, sizeof text, "%s", lab_heaps_text(step->heaps, step->n));
    bool step_is_p = oracle_is_p(step->heaps, step->n);
    size_t p_move = moves->count;
    int len = snprintf(out, sizeof out, "The first wrong step, found from your solver's own answers: %s. "
                       "Your solver is right about %s (", text,
                       moves->count == 1 ? "its one move" : "each of its moves");
    for (size_t i = 0; i < moves->count && len < (int)sizeof out - 512; i++) {
        bool is_p = oracle_is_p(moves->positions[i], moves->lengths[i]);
        if (is_p && p_move == moves->count)
            p_move = i;
        len += snprintf(out + len, sizeof out - (size_t)len, "%s%s %s", i > 0 ? ", " : "",
                        lab_heaps_text(moves->positions[i], moves->lengths[i]), is_p ? "P" : "N");
    }
    if (moves->count == 0)
        len += snprintf(out + len, sizeof out - (size_t)len, "it has none");
    len += snprintf(out + len, sizeof out - (size_t)len,
                    "), yet %s(%s) returns %s. A position is P exactly when every "
                    "move leads to an N-position, so %s is %s", question(asked_p), text,
                    said ? "true" : "false", text, step_is_p ? "P" : "N");
    if (moves->count == 0)
        snprintf(out + len, sizeof out - (size_t)len, " (no move at all: the player to move loses).");
    else if (step_is_p)
        snprintf(out + len, sizeof out - (size_t)len, " (every move leads to an N-position).");
    else
        snprintf(out + len, sizeof out - (size_t)len, " (%s is P).",
                 lab_heaps_text(moves->positions[p_move], moves->lengths[p_move]));
    if (!moves_are_the_rules(step, moves))
        return NULL; /* Task 0's mistake, which its own tests name */
    bool changed_again = false;
    describe_calls(step, moves, asked_p, step_is_p, out, sizeof out, &changed_again);
    if (changed || changed_again) {
        size_t used = strlen(out);
        snprintf(out + used, sizeof out - used, " It also changes its argument: work on the moves, "
                 "never on the position you were given.");
    }
    return out;
}

const char *lab_first_wrong_step(const int *heaps, size_t n, bool asked_p)
{
    return lab_first_wrong_step_of(&lab_grundy_solver, heaps, n, asked_p);
}

const char *lab_first_wrong_step_of(const lab_memo_solver *solver, const int *heaps, size_t n, bool asked_p)
{
    stepping = solver;
    own_memo = solver != &lab_grundy_solver;
    step_position at = {.n = 0};
    for (size_t i = 0; i < n && at.n < STEP_MOST_HEAPS; i++)
        if (heaps[i] >= 3)
            at.heaps[at.n++] = heaps[i];
    at.n = oracle_canonicalize(at.heaps, at.n);
    int most = lab_under_valgrind() ? STEP_MOST_TOKENS_VALGRIND : STEP_MOST_TOKENS;
    size_t stored = 0;
    for (size_t i = 0; i < n; i++)
        stored += heaps[i] >= 3;
    if (tokens(heaps, n) > most || stored > STEP_MOST_HEAPS)
        return NULL;
    bool changed = false;
    bool said = answer(&at, asked_p, "asked again to find the first wrong step", &changed);
    if (said == (asked_p == oracle_is_p(at.heaps, at.n)))
        return NULL; /* right when asked again: not a mistake of the recursion */
    for (int depth = 0; depth < STEP_MOST_TOKENS; depth++) {
        oracle_move_list *moves = oracle_moves(at.heaps, at.n);
        if (moves == NULL)
            return NULL;
        char note[320];
        snprintf(note, sizeof note, "a move of %s, asked to find the first wrong step",
                 lab_heaps_text(at.heaps, at.n));
        step_position wrong = {.n = 0};
        bool found = false, wrong_said = false, wrong_changed = false;
        for (size_t i = 0; i < moves->count; i++) {
            step_position m;
            if (!move_at(moves, i, &m))
                continue;
            bool m_changed;
            bool m_said = answer(&m, asked_p, note, &m_changed);
            bool right = m_said == (asked_p == oracle_is_p(m.heaps, m.n));
            if (!right && (!found || tokens(m.heaps, m.n) < tokens(wrong.heaps, wrong.n))) {
                wrong = m;
                found = true;
                wrong_said = m_said;
                wrong_changed = m_changed;
            }
        }
        if (!found) {
            const char *text = explain(&at, moves, asked_p, said, changed);
            oracle_move_list_free(moves);
            return text;
        }
        oracle_move_list_free(moves);
        at = wrong;
        said = wrong_said;
        changed = wrong_changed;
    }
    return NULL;
}
