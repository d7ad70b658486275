/*
 * hidden_memo.h - the hidden suites' question to an optional task's own
 * memoized solver (Task 6's grundy_reduced_is_p, Task 8's
 * grundy_stack_is_p, named by a memo_solver, see memo_solver.h): the
 * answer checked against the oracle and the expansions against a bound.
 * Its messages end with the seed, like every message of a hidden test
 * (hidden_rng sets lab_support's message suffix).
 *
 * Static inline, like hidden_seed.h: each suite gets its own copy.
 */
#ifndef HIDDEN_MEMO_H
#define HIDDEN_MEMO_H

#include "expansion_counter.h"
#include "lab_support.h"
#include "memo_solver.h"
#include "oracle.h"

/* Asks s about the position built by adding `heaps` in this order; fails
 * the test unless the answer is the oracle's and (bound > 0) it called
 * grundy_get_moves at most `bound` times. `how` follows the position in
 * messages, e.g. " from an empty memo". Returns the expansions. */
static inline uint64_t hidden_ask_within(const memo_solver *s, const int *heaps, size_t n, uint64_t bound,
                                         const char *how)
{
    grundy_position *p = lab_build(heaps, n);
    expansions_reset();
    bool is_p = s->is_p(p);
    uint64_t used = expansions();
    grundy_free(p);
    bool expected = oracle_is_p(heaps, n);
    LAB_EXPECT(is_p == expected, s->section, "%s(%s)%s returned %s; it is an %s-position", s->name,
               lab_heaps_text(heaps, n), how, is_p ? "true" : "false", expected ? "P" : "N");
    LAB_EXPECT(bound == 0 || used <= bound, s->section,
               "%s(%s)%s called grundy_get_moves %llu times, but it may meet only %llu distinct "
               "positions (counting {}); a memoized search expands each at most once",
               s->name, lab_heaps_text(heaps, n), how, (unsigned long long)used, (unsigned long long)bound);
    return used;
}

#endif /* HIDDEN_MEMO_H */
