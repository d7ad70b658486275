/*
 * memo_evidence.c - a memo mistake named from the memo's own record (see
 * memo_evidence.h). Each probe position is built once and asked, through
 * the same pointer:
 *   R1  "is P?" from an empty memo;
 *   R2  "is P?" again (the memo holds R1's answers);
 *   R3  "is N?" (when the solver has it), with R1's answers still there;
 *   R4  "is N?" from an empty memo.
 * What the solver asked the table in each, against what the oracle says
 * about every key, tells the causes apart, checked in this order: how many
 * tables; a key that is not the position solved; an answer stored before
 * its search; a flag stored the wrong way round; a hit ignored or not
 * negated; a lookup after the expansion; nothing stored or nothing read.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_support.h"
#include "memo_evidence.h"
#include "memo_record.h"
#include "oracle.h"

typedef struct {
    size_t n;
    memo_event *e; /* into one of the buffers below */
    bool answer;
} question_record;

static memo_event buffers[12][MEMO_RECORD_MAX];

static bool ask_recorded(const lab_memo_solver *s, const grundy_position *p, const char *text, bool ask_p,
                         bool from_empty, int slot, question_record *out)
{
    if (from_empty) {
        lab_trace("%s()", s->clear_name);
        s->clear();
    }
    memo_record_reset();
    lab_trace("%s(%s), the memo's calls recorded", ask_p ? s->is_p_name : s->is_n_name, text);
    out->answer = s->ask(p, ask_p);
    out->e = buffers[slot];
    out->n = memo_record_read(out->e, MEMO_RECORD_MAX);
    return true;
}

/* The key's heaps, one element per heap; its count, or (size_t)-1 when
 * the key was not readable. */
size_t memo_event_heaps(const memo_event *e, int *heaps, size_t max)
{
    if (!e->key_ok)
        return (size_t)-1;
    size_t n = 0;
    for (size_t i = 0; i < e->key_size; i++)
        for (int k = 0; k < e->key[i][1] && n < max; k++)
            heaps[n++] = e->key[i][0];
    return n;
}

static const char *key_text(const memo_event *e)
{
    int heaps[LAB_MAX_HEAPS];
    size_t n = memo_event_heaps(e, heaps, LAB_MAX_HEAPS);
    return n == (size_t)-1 ? "an unreadable position" : lab_heaps_text(heaps, n);
}

static bool same_key(const memo_event *a, const memo_event *b)
{
    return a->key_ok && b->key_ok && a->key_size == b->key_size &&
           memcmp(a->key, b->key, a->key_size * sizeof a->key[0]) == 0;
}

static bool key_is_p(const memo_event *e)
{
    int heaps[LAB_MAX_HEAPS];
    size_t n = memo_event_heaps(e, heaps, LAB_MAX_HEAPS);
    return n != (size_t)-1 && oracle_is_p(heaps, n);
}

static bool key_is_empty(const memo_event *e)
{
    return e->key_ok && e->key_size == 0;
}

static size_t count_kind(const question_record *r, memo_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += r->e[i].kind == kind;
    return n;
}

/* Tables a question read or wrote. */
static size_t tables_used(const question_record *r)
{
    bool seen[MEMO_RECORD_MAX] = {false};
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if ((r->e[i].kind == MEMO_EVENT_PUT || r->e[i].kind == MEMO_EVENT_GET) && r->e[i].table < MEMO_RECORD_MAX &&
            !seen[r->e[i].table]) {
            seen[r->e[i].table] = true;
            n++;
        }
    return n;
}

static char cause[4096];

/* The cause sentence, then the evidence. */
static const char *found(const char *sentence, const char *evidence_format, ...)
    __attribute__((format(printf, 2, 3)));
static const char *found(const char *sentence, const char *evidence_format, ...)
{
    char evidence[2048];
    va_list args;
    va_start(args, evidence_format);
    vsnprintf(evidence, sizeof evidence, evidence_format, args);
    va_end(args);
    snprintf(cause, sizeof cause, "%s. The memo's own record shows it: %s", sentence, evidence);
    return cause;
}

/* How many tables, and for how long: `kind` 0 asks for a table per call,
 * 1 for two tables, 2 for a table per question (each over every probe
 * before the next: a table per call also makes one per question). */
static const char *table_cause(const lab_memo_solver *s, const char *text, const question_record *r1,
                               const question_record *r2, int kind)
{
    size_t created = count_kind(r1, MEMO_EVENT_NEW), again = count_kind(r2, MEMO_EVENT_NEW);
    size_t expanded = count_kind(r1, MEMO_EVENT_EXPAND);
    if (kind == 0 && created >= 3)
        return found("The memo is a new table on every call: a table that lives in a local variable "
                     "(or is made with memo_table_new() at each call) is gone when the call returns, "
                     "so nothing stored is ever found again. Keep one table in a static variable at "
                     "file scope, created on first use",
                     "%s(%s) from an empty memo called memo_table_new() %zu times, with %zu calls of "
                     "grundy_get_moves",
                     s->is_p_name, text, created, expanded);
    if (kind == 1 && created <= 2 && again == 0 && tables_used(r1) >= 2 && s->is_n_name != NULL)
        return found("The solver keeps two memo tables where the lab asks for one: one table, "
                     "shared by grundy_is_p_position and grundy_is_n_position, so that whichever "
                     "question reaches a position first saves the work for the other",
                     "%s(%s) from an empty memo used %zu tables",
                     s->is_p_name, text, tables_used(r1));
    if (kind == 2 && again > 0)
        return found("Each question starts a new memo table, so a second question finds nothing "
                     "the first stored: create the table once (a static pointer, created on first "
                     "use) and empty it only in the clear function",
                     "%s(%s) asked twice in a row called memo_table_new() %zu time%s the first time "
                     "and %zu time%s the second",
                     s->is_p_name, text, created, created == 1 ? "" : "s", again, again == 1 ? "" : "s");
    return NULL;
}

/* A put whose key is not the position whose search just ended. */
static const char *key_cause(const lab_memo_solver *s, const char *text, const question_record *r)
{
    const memo_event *open[MEMO_RECORD_MAX];
    size_t depth = 0;
    for (size_t i = 0; i < r->n; i++) {
        const memo_event *e = &r->e[i];
        if (e->kind == MEMO_EVENT_EXPAND) {
            open[depth++] = e;
        } else if (e->kind == MEMO_EVENT_PUT && depth > 0 && !(key_is_empty(e) && e->flag)) {
            /* ({} stored as P is a terminal position's own answer.) */
            if (same_key(e, open[depth - 1])) {
                depth--;
                continue;
            }
            bool a_move = false;
            for (size_t k = 0; k < depth && !a_move; k++)
                a_move = same_key(e, open[k]);
            if (a_move)
                continue; /* a position still being searched: stored early, not under another key */
            const char *solved = key_text(open[depth - 1]);
            return found("The answer is stored under another position: memo_table_put must get the "
                         "position whose answer it is, p, not one of its moves or a copy that was "
                         "changed",
                         "in %s(%s) from an empty memo, the search of %s ended with "
                         "memo_table_put(memo, %s, %s)",
                         s->is_p_name, text, solved, key_text(e), e->flag ? "true" : "false");
        }
    }
    return NULL;
}

/* Keys that a reduced memo must never hold: two equal heaps. */
static const char *reduced_key_cause(const lab_memo_solver *s, const char *text, const question_record *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const memo_event *e = &r->e[i];
        if (e->kind != MEMO_EVENT_PUT || !e->key_ok)
            continue;
        for (size_t k = 0; k < e->key_size; k++)
            if (e->key[k][1] >= 2)
                return found("The reduced search stores its answer under the unreduced position: "
                             "the memo must be keyed by the reduced copy (pairs cancelled), which is "
                             "what is looked up",
                             "%s(%s) from an empty memo called memo_table_put(memo, %s, %s)",
                             s->is_p_name, text, key_text(e), e->flag ? "true" : "false");
    }
    return NULL;
}

/* Whether some move of the key is not terminal: its search then asks the
 * memo about that move before its own answer can be known. */
static bool has_move_with_moves(const memo_event *e)
{
    int heaps[LAB_MAX_HEAPS];
    size_t n = memo_event_heaps(e, heaps, LAB_MAX_HEAPS);
    if (n == (size_t)-1)
        return false;
    oracle_move_list *moves = oracle_moves(heaps, n);
    bool any = false;
    for (size_t i = 0; i < moves->count && !any; i++)
        any = moves->lengths[i] > 0;
    oracle_move_list_free(moves);
    return any;
}

/* A put of X before X's moves were searched: right after its expansion,
 * or before it. */
static const char *early_store_cause(const lab_memo_solver *s, const char *text, const question_record *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const memo_event *e = &r->e[i];
        if (e->kind != MEMO_EVENT_PUT || key_is_empty(e))
            continue;
        bool expanded_before = false, expanded_after = false;
        for (size_t k = 0; k < r->n; k++)
            if (r->e[k].kind == MEMO_EVENT_EXPAND && same_key(&r->e[k], e))
                *(k < i ? &expanded_before : &expanded_after) = true;
        bool right_after = i > 0 && r->e[i - 1].kind == MEMO_EVENT_EXPAND && same_key(&r->e[i - 1], e) &&
                           has_move_with_moves(e);
        if (right_after || (expanded_after && !expanded_before))
            return found("The answer is stored before it is known: memo_table_put runs before the "
                         "moves are searched (the provisional value), so a later question reads a "
                         "guess. Store the answer after the loop over the moves",
                         "in %s(%s) from an empty memo, memo_table_put(memo, %s, %s) came right "
                         "after grundy_get_moves(%s), before any of its moves was looked at",
                         s->is_p_name, text, key_text(e), e->flag ? "true" : "false", key_text(e));
    }
    return NULL;
}

/* The last put of the probe position itself in a record. */
static const memo_event *put_of(const question_record *r, const memo_event *probe_key)
{
    const memo_event *last = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (r->e[i].kind == MEMO_EVENT_PUT && same_key(&r->e[i], probe_key))
            last = &r->e[i];
    return last;
}

/* The first expansion of a record: the probe position's own. */
static const memo_event *first_expansion(const question_record *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->e[i].kind == MEMO_EVENT_EXPAND)
            return &r->e[i];
    return NULL;
}

static const char *flag_cause(const lab_memo_solver *s, const char *text, const question_record *r, bool asked_p)
{
    const memo_event *top = first_expansion(r);
    const memo_event *put = top != NULL ? put_of(r, top) : NULL;
    /* Wrong, and not what the call returned: the answer may be right, the
     * store is not (a wrong answer stored as it is has another cause). */
    if (put == NULL || put->flag == key_is_p(put) || put->flag == (asked_p ? r->answer : !r->answer))
        return NULL;
    const char *name = asked_p ? s->is_p_name : s->is_n_name;
    if (asked_p)
        return found("grundy_is_p_position stores the flag the wrong way round: the memo keeps "
                     "\"is this P?\", so store is_p itself",
                     "%s(%s) from an empty memo called memo_table_put(memo, %s, %s), but %s is %s",
                     name, text, key_text(put), put->flag ? "true" : "false", key_text(put),
                     lab_outcome_text(key_is_p(put)));
    return found("grundy_is_n_position stores its own answer, \"is N\", where the memo keeps \"is "
                 "this P?\": store !is_n",
                 "%s(%s) from an empty memo called memo_table_put(memo, %s, %s), but %s is %s", name,
                 text, key_text(put), put->flag ? "true" : "false", key_text(put),
                 lab_outcome_text(key_is_p(put)));
}

/* A hit followed by the expansion of the same key; a lookup right after
 * an expansion. */
static const char *order_cause(const lab_memo_solver *s, const char *text, const question_record *r,
                               const char *which)
{
    for (size_t i = 0; i + 1 < r->n; i++) {
        const memo_event *a = &r->e[i], *b = &r->e[i + 1];
        if (a->kind == MEMO_EVENT_GET && a->hit && b->kind == MEMO_EVENT_EXPAND && same_key(a, b))
            return found("A memo hit is ignored: memo_table_get finds the answer, and the solver "
                         "expands the position anyway. On a hit, return the stored answer (is_p: "
                         "the flag; is_n: its negation) before calling grundy_get_moves",
                         "in %s(%s) %s, memo_table_get(memo, %s, &is_p) returned true (stored: %s), "
                         "then grundy_get_moves(%s) was called",
                         s->is_p_name, text, which, key_text(a), a->flag ? "P" : "N", key_text(a));
        if (a->kind == MEMO_EVENT_EXPAND && b->kind == MEMO_EVENT_GET && same_key(a, b))
            return found("The memo is looked up after the moves are made: grundy_get_moves runs "
                         "before memo_table_get, so a hit saves nothing. Look p up first, and call "
                         "grundy_get_moves only on a miss",
                         "in %s(%s) %s, grundy_get_moves(%s) came before memo_table_get(memo, %s, "
                         "&is_p)",
                         s->is_p_name, text, which, key_text(a), key_text(b));
    }
    return NULL;
}

/* A hit's flag and the answer returned for it. */
static const char *hit_cause(const lab_memo_solver *s, const char *text, const question_record *r, bool asked_p)
{
    if (count_kind(r, MEMO_EVENT_EXPAND) > 0 || count_kind(r, MEMO_EVENT_GET) != 1)
        return NULL;
    const memo_event *get = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (r->e[i].kind == MEMO_EVENT_GET)
            get = &r->e[i];
    if (get == NULL || !get->hit || get->flag != key_is_p(get))
        return NULL;
    bool right = asked_p ? get->flag : !get->flag;
    if (r->answer == right)
        return NULL;
    if (!asked_p)
        return found("On a memo hit, grundy_is_n_position returns the stored flag without negating "
                     "it: the memo stores \"is this P?\", so is_n must return !is_p",
                     "%s(%s), asked after %s(%s), found %s in the memo (stored: P = %s) and "
                     "returned %s",
                     s->is_n_name, text, s->is_p_name, text, key_text(get), get->flag ? "true" : "false",
                     r->answer ? "true" : "false");
    return found("On a memo hit, grundy_is_p_position returns something other than the stored flag: "
                 "return it as it is",
                 "%s(%s), asked again, found %s in the memo (stored: P = %s) and returned %s",
                 s->is_p_name, text, key_text(get), get->flag ? "true" : "false",
                 r->answer ? "true" : "false");
}

static const char *use_cause(const lab_memo_solver *s, const char *text, const question_record *r1,
                             const question_record *r2)
{
    size_t expanded = count_kind(r1, MEMO_EVENT_EXPAND);
    if (expanded > 0 && count_kind(r1, MEMO_EVENT_PUT) == 0 && count_kind(r1, MEMO_EVENT_GET) > 0)
        return found("Nothing is ever stored in the memo: memo_table_get is called, memo_table_put "
                     "never. Store each answer once it is known, after the loop over the moves",
                     "%s(%s) from an empty memo looked %zu positions up and stored none",
                     s->is_p_name, text, count_kind(r1, MEMO_EVENT_GET));
    if (count_kind(r1, MEMO_EVENT_PUT) > 0 && count_kind(r2, MEMO_EVENT_GET) == 0 &&
        count_kind(r2, MEMO_EVENT_EXPAND) > 0)
        return found("The memo is never read: answers are stored with memo_table_put, but "
                     "memo_table_get is never called. Look p up first, and return the stored "
                     "answer on a hit",
                     "%s(%s) asked a second time called grundy_get_moves %zu times and "
                     "memo_table_get never",
                     s->is_p_name, text, count_kind(r2, MEMO_EVENT_EXPAND));
    return NULL;
}

/* Small positions: {3} (N, its one move terminal), {8} (N) and {7} (P),
 * whose every move has moves. */
static const int probes[] = {3, 8, 7};
enum { PROBES = sizeof probes / sizeof *probes };

typedef struct {
    char text[32]; /* its own copy: lab_heaps_text's buffers are reused */
    question_record r1, r2, r3, r4;
} probe_records;

/* Whether the last lab_memo_evidence() read a record in which the solver
 * never called the given table. */
static bool saw_no_given_call;

bool lab_memo_evidence_saw_own_memo(void)
{
    return saw_no_given_call;
}

const char *lab_memo_evidence(const lab_memo_solver *s)
{
    saw_no_given_call = false;
    if (memo_record_reset == NULL || memo_record_read == NULL)
        return NULL;
    static probe_records q[PROBES];
    bool any_call = false;
    for (size_t i = 0; i < PROBES; i++) {
        memset(&q[i], 0, sizeof q[i]);
        snprintf(q[i].text, sizeof q[i].text, "%s", lab_heaps_text(&probes[i], 1));
        grundy_position *p = lab_build(&probes[i], 1);
        ask_recorded(s, p, q[i].text, true, true, 4 * (int)i + 0, &q[i].r1);
        ask_recorded(s, p, q[i].text, true, false, 4 * (int)i + 1, &q[i].r2);
        if (s->is_n_name != NULL) {
            ask_recorded(s, p, q[i].text, false, false, 4 * (int)i + 2, &q[i].r3);
            ask_recorded(s, p, q[i].text, false, true, 4 * (int)i + 3, &q[i].r4);
        }
        grundy_free(p);
        const question_record *all[] = {&q[i].r1, &q[i].r2, &q[i].r3, &q[i].r4};
        for (size_t k = 0; k < 4; k++)
            any_call = any_call || count_kind(all[k], MEMO_EVENT_GET) + count_kind(all[k], MEMO_EVENT_PUT) +
                                           count_kind(all[k], MEMO_EVENT_NEW) > 0;
    }
    lab_trace("%s()", s->clear_name);
    s->clear();
    saw_no_given_call = !any_call;
    if (!any_call)
        return NULL; /* no call of the given table: a memo of its own, or none */
    /* Each kind of evidence over every probe before the next kind: the
     * structural ones first, since a wrong flag is often their effect. */
    const char *why = NULL;
    bool has_n = s->is_n_name != NULL;
    for (int kind = 0; kind < 3; kind++)
        for (size_t i = 0; why == NULL && i < PROBES; i++)
            why = table_cause(s, q[i].text, &q[i].r1, &q[i].r2, kind);
    for (size_t i = 0; why == NULL && s->reduced_keys && i < PROBES; i++)
        why = reduced_key_cause(s, q[i].text, &q[i].r1);
    for (size_t i = 0; why == NULL && i < PROBES; i++) {
        why = key_cause(s, q[i].text, &q[i].r1);
        if (why == NULL && has_n)
            why = key_cause(s, q[i].text, &q[i].r4);
    }
    for (size_t i = 0; why == NULL && i < PROBES; i++) {
        why = early_store_cause(s, q[i].text, &q[i].r1);
        if (why == NULL && has_n)
            why = early_store_cause(s, q[i].text, &q[i].r4);
    }
    for (size_t i = 0; why == NULL && i < PROBES; i++) {
        why = order_cause(s, q[i].text, &q[i].r2, "asked a second time");
        if (why == NULL)
            why = order_cause(s, q[i].text, &q[i].r1, "from an empty memo");
    }
    for (size_t i = 0; why == NULL && i < PROBES; i++) {
        why = hit_cause(s, q[i].text, &q[i].r2, true);
        if (why == NULL && has_n)
            why = hit_cause(s, q[i].text, &q[i].r3, false);
    }
    for (size_t i = 0; why == NULL && i < PROBES; i++) {
        why = flag_cause(s, q[i].text, &q[i].r1, true);
        if (why == NULL && has_n)
            why = flag_cause(s, q[i].text, &q[i].r4, false);
    }
    for (size_t i = 0; why == NULL && i < PROBES; i++)
        why = use_cause(s, q[i].text, &q[i].r1, &q[i].r2);
    return why;
}

const char *lab_memo_unreduced_key(const lab_memo_solver *s, const char *text)
{
    if (memo_record_read == NULL)
        return NULL;
    static question_record r;
    r.e = buffers[0];
    r.n = memo_record_read(r.e, MEMO_RECORD_MAX);
    return reduced_key_cause(s, text, &r);
}

static bool ask_grundy(const grundy_position *p, bool ask_p)
{
    return ask_p ? grundy_is_p_position(p) : grundy_is_n_position(p);
}

static void clear_grundy(void)
{
    lab_memo_clear_if_written();
}

const lab_memo_solver lab_grundy_solver = {
    .is_p_name = "grundy_is_p_position",
    .is_n_name = "grundy_is_n_position",
    .ask = ask_grundy,
    .clear = clear_grundy,
    .clear_name = "grundy_memo_clear",
    .section = SECTION_MEMO_MISTAKES,
};

static bool forgotten;

void lab_memo_forgetful(bool on)
{
    if (memo_record_set_forgetful != NULL) {
        memo_record_set_forgetful(on);
        forgotten = on;
    }
}

bool lab_memo_is_forgotten(void)
{
    return forgotten;
}

void lab_memo_forgotten(void)
{
    lab_memo_forgetful(true);
}
