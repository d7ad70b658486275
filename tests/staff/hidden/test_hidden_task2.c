/*
 * test_hidden_task2.c - Task 2, hidden suite (grader only; never given to
 * students): memoization, checked by counting expansions on randomized
 * multi-heap positions drawn from the seed (see hidden_seed.h and
 * README.md). No timing here: the grader times solutions separately.
 *
 * Linked into the same runner as tests/public/suites/test_task2.c (which wraps
 * grundy_get_moves, see expansion_counter.h), so every helper here is
 * static and no test name repeats one of the public suite.
 *
 * The bounds, from the handout's section "How Task 2 is checked":
 *   - from an empty memo, a query expands each reachable position at most
 *     once, so it calls grundy_get_moves at most
 *     oracle_count_reachable_nonterminal(position) times, and at least once;
 *   - more generally, any query expands only positions reachable from its
 *     own start, each at most once, so the same bound holds with a warm
 *     memo;
 *   - asking about a position whose answer the memo holds costs at most 1
 *     expansion (at worst the start, whose moves are all in the memo).
 * Expected answers come from the oracle. Positions have 2 to 5 heaps and a
 * total of 15 to 24 tokens (15 to 20 for the first one a test solves, see
 * FIRST_MAX_TOTAL): milliseconds for a memoized solver; an unmemoized one
 * fails the first expansion check, right after its first query.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task2_hidden::*'.
 */
#include <stdio.h>
#include <string.h>

#include "alloc_tracker.h"
#include "expansion_counter.h"
#include "hidden_seed.h"
#include "lab_support.h"
#include "oracle.h"

TestSuite(task2_hidden, .description = "Task 2, hidden: memoization", .timeout = 60);

#define RNG(name) hidden_rng("task2_hidden::" #name)

enum { MIN_TOTAL = 15, MAX_TOTAL = 24, MAX_POSITION = 16 };

/* The first position a test solves has a total of at most FIRST_MAX_TOTAL:
 * an unmemoized solver needs up to about 0.05 s for those (against up to
 * about 1.5 s at 24, for {4, 20}) and fails right after it, so the suite
 * stays short for it. A memoized solver does not notice the difference. */
enum { FIRST_MAX_TOTAL = 20 };

static int max_total(int round)
{
    return round == 0 ? FIRST_MAX_TOTAL : MAX_TOTAL;
}

/* A test position: heights (any order, dead heaps allowed) and the count. */
typedef struct {
    int heaps[MAX_POSITION];
    size_t n;
} position;

/* Draws 2 to 5 live heaps with a total between min_total and max_total,
 * split at random cut points. */
static position draw_position(unsigned *rng, int min_total, int max_total)
{
    position p = {.n = 0};
    int most = max_total / 3 < 5 ? max_total / 3 : 5;
    int n = hidden_between(rng, 2, most);
    int low = min_total > 3 * n ? min_total : 3 * n;
    int extra = hidden_between(rng, low, max_total) - 3 * n;
    hidden_split(rng, extra, n, p.heaps);
    p.n = (size_t)n;
    return p;
}

static bool same_position(const position *a, const position *b)
{
    int x[MAX_POSITION], y[MAX_POSITION];
    memcpy(x, a->heaps, a->n * sizeof *x);
    memcpy(y, b->heaps, b->n * sizeof *y);
    size_t xn = oracle_canonicalize(x, a->n), yn = oracle_canonicalize(y, b->n);
    return xn == yn && memcmp(x, y, xn * sizeof *x) == 0;
}

static const char *text_of(const position *p)
{
    return lab_heaps_text(p->heaps, p->n);
}

static const char *question(bool ask_p)
{
    return ask_p ? "p" : "n";
}

/* Asks one question about `p` on a newly built position, checks the answer
 * against the oracle, and returns the expansions it took. `context`
 * describes the memo's state for messages, e.g. "from an empty memo". */
static uint64_t ask(const position *p, bool ask_p, const char *context)
{
    bool expected_p = oracle_is_p(p->heaps, p->n);
    grundy_position *g = lab_build(p->heaps, p->n);
    expansions_reset();
    bool answer = ask_p ? grundy_is_p_position(g) : grundy_is_n_position(g);
    uint64_t used = expansions();
    grundy_free(g);
    LAB_EXPECT(answer == (ask_p ? expected_p : !expected_p), SECTION_SOLVER,
               "grundy_is_%s_position(%s) %s returned %s; the position is %s", question(ask_p),
               text_of(p), context, answer ? "true" : "false", lab_outcome_text(expected_p));
    return used;
}

/* ask(), then checks that the query expanded at least `at_least` and at
 * most oracle_count_reachable_nonterminal(p) + 1 positions (the + 1 is {},
 * for a solver that asks for the empty moves of a terminal position). */
static uint64_t ask_within_bound(const position *p, bool ask_p, const char *context, uint64_t at_least)
{
    uint64_t bound = oracle_count_reachable_nonterminal(p->heaps, p->n) + 1; /* + {} */
    uint64_t used = ask(p, ask_p, context);
    LAB_EXPECT(used <= bound, SECTION_MEMO,
               "grundy_is_%s_position(%s) %s called grundy_get_moves %llu times, but only %llu "
               "distinct positions are reachable from it (counting {}); a memoized solver "
               "expands each at most once",
               question(ask_p), text_of(p), context, (unsigned long long)used, (unsigned long long)bound);
    LAB_EXPECT(used >= at_least, SECTION_MEMO,
               "grundy_is_%s_position(%s) %s never called grundy_get_moves; with nothing in the "
               "memo the solver must find the moves with grundy_get_moves",
               question(ask_p), text_of(p), context);
    return used;
}

/* Asks about `p`, whose answer the memo must hold, and checks that it
 * costs at most one expansion. `why` explains why the memo holds it. */
static void ask_cheap(const position *p, bool ask_p, const char *why)
{
    uint64_t used = ask(p, ask_p, "with its answer in the memo");
    LAB_EXPECT(used <= 1, SECTION_MEMO,
               "%s, asking grundy_is_%s_position(%s) called grundy_get_moves %llu times; its answer "
               "is in the memo, so it needs at most 1",
               why, question(ask_p), text_of(p), (unsigned long long)used);
}

LAB_TEST(task2_hidden, cold_query_expands_each_position_at_most_once)
{
    unsigned rng = RNG(cold_query_expands_each_position_at_most_once);
    for (int round = 0; round < 6; round++) {
        position p = draw_position(&rng, MIN_TOTAL, max_total(round));
        grundy_memo_clear();
        (void)ask_within_bound(&p, lab_random(&rng) % 2, "from an empty memo", 1);
    }
}

LAB_TEST(task2_hidden, cold_bound_with_repeated_heights)
{
    /* Several heaps of the same height ({4=3, 6=2}): their moves reach the
     * same positions along many paths, which only a working memo (with an
     * equality and hash that respect counts) recognises. */
    unsigned rng = RNG(cold_bound_with_repeated_heights);
    for (int round = 0; round < 6; round++) {
        position p = {.n = 0};
        int total = 0;
        int most = max_total(round);
        while (total + 6 <= most && p.n + 4 <= MAX_POSITION - 1) {
            int h = hidden_between(&rng, 3, 8), m = hidden_between(&rng, 2, 4);
            while (m >= 2 && total + m * h > most)
                m--;
            if (m < 2)
                break;
            for (int k = 0; k < m; k++)
                p.heaps[p.n++] = h;
            total += m * h;
            if (total >= MIN_TOTAL && lab_random(&rng) % 2)
                break;
        }
        if (total < MIN_TOTAL - 3)
            p.heaps[p.n++] = hidden_between(&rng, MIN_TOTAL, most) - total;
        else if (total < MIN_TOTAL)
            p.heaps[p.n++] = hidden_between(&rng, 3, most - total);
        grundy_memo_clear();
        (void)ask_within_bound(&p, lab_random(&rng) % 2, "from an empty memo", 1);
    }
}

LAB_TEST(task2_hidden, repeated_question_costs_at_most_one)
{
    /* After one question, P or N, the same position asked again with
     * either question, on a newly built copy of it, comes from the memo. */
    unsigned rng = RNG(repeated_question_costs_at_most_one);
    for (int round = 0; round < 6; round++) {
        position p = draw_position(&rng, MIN_TOTAL, max_total(round));
        bool first_p = lab_random(&rng) % 2;
        grundy_memo_clear();
        (void)ask_within_bound(&p, first_p, "from an empty memo", 1);
        char why[160];
        snprintf(why, sizeof why, "after grundy_is_%s_position(%s) from an empty memo", question(first_p),
                 text_of(&p));
        ask_cheap(&p, true, why);
        ask_cheap(&p, false, why);
        ask_cheap(&p, !first_p, why);
    }
}

LAB_TEST(task2_hidden, same_position_after_other_searches)
{
    /* Solve A, then two other positions without clearing, then A again:
     * the memo must keep every answer across queries (not only the last
     * search's, not keyed by the address of the position). */
    unsigned rng = RNG(same_position_after_other_searches);
    for (int round = 0; round < 4; round++) {
        position a = draw_position(&rng, MIN_TOTAL, max_total(round));
        position others[2];
        for (int k = 0; k < 2; k++)
            do
                others[k] = draw_position(&rng, MIN_TOTAL, MAX_TOTAL);
            while (same_position(&others[k], &a));
        grundy_memo_clear();
        bool first_p = lab_random(&rng) % 2;
        (void)ask_within_bound(&a, first_p, "from an empty memo", 1);
        for (int k = 0; k < 2; k++)
            (void)ask_within_bound(&others[k], lab_random(&rng) % 2, "after other queries", 0);
        char why[256];
        snprintf(why, sizeof why, "after grundy_is_%s_position(%s) from an empty memo, then queries about %s and %s",
                 question(first_p), text_of(&a), text_of(&others[0]), text_of(&others[1]));
        ask_cheap(&a, lab_random(&rng) % 2, why);
    }
}

LAB_TEST(task2_hidden, moves_of_a_solved_position_are_remembered)
{
    /* Which moves a search must have solved, whatever order it tries them
     * in (derived from the definitions, classes from the oracle):
     *   - A is P: to know that, every move of A was shown to be N;
     *   - A is N with exactly one move to a P-position: the search had to
     *     find that move and solve it.
     * Those answers were worked out, so the memo holds them: asking about
     * one of them afterwards costs at most one expansion. Positions are
     * picked with the oracle before anything is solved. */
    unsigned rng = RNG(moves_of_a_solved_position_are_remembered);
    int checked = 0;
    for (int attempt = 0; attempt < 400 && checked < 5; attempt++) {
        position a = draw_position(&rng, MIN_TOTAL, max_total(checked));
        bool a_is_p = oracle_is_p(a.heaps, a.n);
        oracle_move_list *moves = oracle_moves(a.heaps, a.n);
        size_t p_moves = 0, the_p_move = 0;
        for (size_t i = 0; i < moves->count; i++)
            if (oracle_is_p(moves->positions[i], moves->lengths[i]))
                p_moves++, the_p_move = i;
        if (!a_is_p && p_moves != 1) {
            oracle_move_list_free(moves);
            continue;
        }
        checked++;
        bool first_p = lab_random(&rng) % 2;
        grundy_memo_clear();
        (void)ask_within_bound(&a, first_p, "from an empty memo", 1);
        char why[320];
        for (size_t i = 0; i < moves->count; i++) {
            if (!a_is_p && i != the_p_move)
                continue;
            position m = {.n = moves->lengths[i]};
            if (m.n > 0)
                memcpy(m.heaps, moves->positions[i], m.n * sizeof *m.heaps);
            snprintf(why, sizeof why,
                     "after grundy_is_%s_position(%s) from an empty memo (%s)", question(first_p),
                     text_of(&a),
                     a_is_p ? "a P-position: the search showed every move to be an N-position"
                            : "an N-position whose only winning move leads here: the search had to solve it");
            ask_cheap(&m, lab_random(&rng) % 2, why);
        }
        oracle_move_list_free(moves);
    }
    cr_assert(checked >= 1, "internal error: no suitable position drawn (seed %llu)", hidden_seed());
}

LAB_TEST(task2_hidden, memo_size_follows_clear_and_queries)
{
    /* grundy_memo_size(): 0 after clearing (twice in a row too); between 1
     * and the number of reachable positions (+1 for {}) after a cold query;
     * unchanged by a repeated question; never smaller after more queries. */
    unsigned rng = RNG(memo_size_follows_clear_and_queries);
    for (int round = 0; round < 3; round++) {
        position a = draw_position(&rng, MIN_TOTAL, max_total(round));
        position b = draw_position(&rng, MIN_TOTAL, MAX_TOTAL);
        grundy_memo_clear();
        LAB_EXPECT(grundy_memo_size() == 0, SECTION_MEMO,
                   "grundy_memo_size() is %zu right after grundy_memo_clear(); expected 0", grundy_memo_size());
        grundy_memo_clear();
        LAB_EXPECT(grundy_memo_size() == 0, SECTION_MEMO,
                   "grundy_memo_size() is %zu after calling grundy_memo_clear() twice; expected 0",
                   grundy_memo_size());
        bool first_p = lab_random(&rng) % 2;
        (void)ask_within_bound(&a, first_p, "from an empty memo", 1);
        size_t size = grundy_memo_size();
        size_t reachable = oracle_count_reachable_nonterminal(a.heaps, a.n) + 1; /* + {} */
        LAB_EXPECT(size >= 1 && size <= reachable, SECTION_MEMO,
                   "after grundy_is_%s_position(%s) from an empty memo, grundy_memo_size() is %zu; "
                   "expected between 1 and %zu (the distinct positions reachable from it)",
                   question(first_p), text_of(&a), size, reachable);
        (void)ask(&a, true, "asked again");
        (void)ask(&a, false, "asked again");
        LAB_EXPECT(grundy_memo_size() == size, SECTION_MEMO,
                   "asking about %s again changed grundy_memo_size() from %zu to %zu; a position "
                   "already in the memo is not stored again",
                   text_of(&a), size, grundy_memo_size());
        (void)ask_within_bound(&b, lab_random(&rng) % 2, "after another query", 0);
        LAB_EXPECT(grundy_memo_size() >= size, SECTION_MEMO,
                   "grundy_memo_size() went down from %zu to %zu when %s was solved after %s; the "
                   "memo keeps every answer until grundy_memo_clear()",
                   size, grundy_memo_size(), text_of(&b), text_of(&a));
        grundy_memo_clear();
        LAB_EXPECT(grundy_memo_size() == 0, SECTION_MEMO,
                   "grundy_memo_size() is %zu right after grundy_memo_clear() (after solving %s and %s); "
                   "expected 0",
                   grundy_memo_size(), text_of(&a), text_of(&b));
    }
}

LAB_TEST(task2_hidden, clear_starts_cold_again)
{
    /* After grundy_memo_clear() the same position must be worked out
     * again (at least one expansion): a clear that only resets a counter
     * keeps answering from the old table. */
    unsigned rng = RNG(clear_starts_cold_again);
    for (int round = 0; round < 4; round++) {
        position a = draw_position(&rng, MIN_TOTAL, max_total(round));
        grundy_memo_clear();
        bool first_p = lab_random(&rng) % 2;
        (void)ask_within_bound(&a, first_p, "from an empty memo", 1);
        grundy_memo_clear();
        char context[200];
        snprintf(context, sizeof context, "after solving it and calling grundy_memo_clear()");
        (void)ask_within_bound(&a, lab_random(&rng) % 2, context, 1);
    }
}

LAB_TEST(task2_hidden, answers_right_with_a_warm_memo)
{
    /* 30 questions without clearing: new positions, and non-empty moves of
     * earlier ones (likely answered from the memo). Every answer must be right,
     * so an answer stored with the wrong polarity (N stored as P), or found
     * for the wrong key, shows up; every query stays within its bound. */
    unsigned rng = RNG(answers_right_with_a_warm_memo);
    position seen[30];
    size_t seen_n = 0;
    grundy_memo_clear();
    for (int q = 0; q < 30; q++) {
        position p = {.n = 0};
        if (q % 3 == 2 && seen_n > 0) {
            const position *earlier = &seen[lab_random(&rng) % seen_n];
            oracle_move_list *moves = oracle_moves(earlier->heaps, earlier->n);
            if (moves->count == 0) {
                oracle_move_list_free(moves);
                continue;
            }
            size_t i = lab_random(&rng) % moves->count;
            p.n = moves->lengths[i];
            if (p.n == 0) { /* {}: terminal, nothing to remember */
                oracle_move_list_free(moves);
                continue;
            }
            memcpy(p.heaps, moves->positions[i], p.n * sizeof *p.heaps);
            oracle_move_list_free(moves);
        } else {
            p = draw_position(&rng, MIN_TOTAL, max_total(q));
        }
        seen[seen_n++] = p;
        char context[64];
        snprintf(context, sizeof context, "(query %d without clearing the memo)", q + 1);
        (void)ask_within_bound(&p, lab_random(&rng) % 2, context, 0);
    }
}

LAB_TEST(task2_hidden, nothing_leaks_while_solving)
{
    /* Positions solved with both questions, freed, and the memo cleared:
     * every heap block is back (move lists freed on every path out of the
     * solver, including the early return, and every memo key freed). The
     * oracle is asked before the first count, since its caches count too.
     * Totals stay at 15 to 20 so that an honest unmemoized solver (which
     * should pass) stays fast. */
    unsigned rng = RNG(nothing_leaks_while_solving);
    position ps[8];
    bool is_p[8], n_first[8];
    for (int i = 0; i < 8; i++) {
        ps[i] = draw_position(&rng, MIN_TOTAL, FIRST_MAX_TOTAL);
        is_p[i] = oracle_is_p(ps[i].heaps, ps[i].n);
        n_first[i] = lab_random(&rng) % 2;
    }
    grundy_memo_clear();
    size_t before = alloc_live_blocks();
    for (int i = 0; i < 8; i++) {
        grundy_position *g = lab_build(ps[i].heaps, ps[i].n);
        bool first = n_first[i] ? grundy_is_n_position(g) : grundy_is_p_position(g);
        bool second = n_first[i] ? grundy_is_p_position(g) : grundy_is_n_position(g);
        bool answer_p = n_first[i] ? second : first;
        bool answer_n = n_first[i] ? first : second;
        grundy_free(g);
        LAB_EXPECT(answer_p == is_p[i] && answer_n == !is_p[i], SECTION_SOLVER,
                   "%s is %s; grundy_is_p_position returned %s and grundy_is_n_position %s",
                   text_of(&ps[i]), lab_outcome_text(is_p[i]), answer_p ? "true" : "false",
                   answer_n ? "true" : "false");
    }
    grundy_memo_clear();
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_MEMO,
               "%zu heap block(s) allocated before and %zu after solving 8 positions (%s, %s, ...), "
               "freeing them and calling grundy_memo_clear(); free every move list (also when "
               "returning early) and let grundy_memo_clear() free the table (run `make memcheck` "
               "to see where they were allocated)",
               before, after, text_of(&ps[0]), text_of(&ps[1]));
}
