/*
 * hidden_support.h - what the hidden suites share besides the seed: the
 * helpers of lab_support.h again (building a position, reading it back
 * while checking the invariant, checking an outcome), with the seed in
 * every failure message, as the hidden suites' messages must carry it.
 *
 * Static inline, so each suite that includes it gets private copies and
 * nothing clashes with the public suite linked into the same runner.
 */
#ifndef HIDDEN_SUPPORT_H
#define HIDDEN_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "grundy.h"
#include "hidden_seed.h"
#include "lab_support.h"
#include "oracle.h"

/* The heap list as "{3=1, 4=2}" (lab_heaps_text: one of 16 rotating
 * buffers). */
static inline const char *hidden_text(const int *heaps, size_t n)
{
    return lab_heaps_text(heaps, n);
}

/* A position with these heaps, built with grundy_new(0) and
 * grundy_add_heap() in the order given. Fails the test when grundy_new(0)
 * returns NULL. */
static inline grundy_position *hidden_build(const int *heaps, size_t n)
{
    grundy_position *p = grundy_new(0);
    HIDDEN_EXPECT(p != NULL, SECTION_MAP, "grundy_new(0) returned NULL; it must return an empty position");
    for (size_t i = 0; i < n; i++)
        grundy_add_heap(p, heaps[i]);
    return p;
}

/* Checks the representation invariant of `p` and expands it into
 * heaps[0 .. max-1], ascending, one element per heap. Returns the number of
 * heaps. `what` names the position in messages. */
static inline size_t hidden_expand(const grundy_position *p, int *heaps, size_t max, const char *what)
{
    HIDDEN_EXPECT(p != NULL, SECTION_MAP, "%s is NULL; expected a position", what);
    HIDDEN_EXPECT(p->size <= p->capacity, SECTION_INVARIANT, "%s has size %zu > capacity %zu", what,
                  p->size, p->capacity);
    HIDDEN_EXPECT(p->size == 0 || p->entries != NULL, SECTION_INVARIANT,
                  "%s has size %zu but entries is NULL", what, p->size);
    size_t n = 0;
    for (size_t i = 0; i < p->size; i++) {
        heap_count e = p->entries[i];
        HIDDEN_EXPECT(e.height >= 3, SECTION_INVARIANT,
                      "%s stores height %d at entries[%zu]; only heights >= 3 may be stored", what,
                      e.height, i);
        HIDDEN_EXPECT(e.count >= 1, SECTION_INVARIANT,
                      "%s stores count %d for height %d; an entry with no heaps must be removed",
                      what, e.count, e.height);
        HIDDEN_EXPECT(i == 0 || p->entries[i - 1].height < e.height, SECTION_INVARIANT,
                      "%s: entries[%zu].height = %d follows %d; heights must be strictly "
                      "ascending (each height once)",
                      what, i, e.height, p->entries[i - 1].height);
        HIDDEN_EXPECT(n + (size_t)e.count <= max, SECTION_INVARIANT,
                      "%s holds more than %zu heaps; the test never built that many", what, max);
        for (int k = 0; k < e.count; k++)
            heaps[n++] = e.height;
    }
    return n;
}

/* Asserts that grundy_is_p_position and grundy_is_n_position agree with
 * the oracle on the position built by adding `heaps` in this order. With
 * n_first the N question is asked first, so a memoized solver cannot
 * answer it from what the P question stored. `how` (may be "") is added
 * after the position in messages, e.g. " (built by adding 1, 5, 2)". */
static inline void hidden_check_outcome(const int *heaps, size_t n, bool n_first, const char *how,
                                        const char *section)
{
    const char *text = hidden_text(heaps, n);
    bool expected_p = oracle_is_p(heaps, n);
    const char *expected = lab_outcome_text(expected_p);
    grundy_position *p = hidden_build(heaps, n);
    for (int round = 0; round < 2; round++) {
        if ((round == 0) == n_first) {
            bool is_n = grundy_is_n_position(p);
            HIDDEN_EXPECT(is_n == !expected_p, section,
                          "grundy_is_n_position(%s)%s returned %s; the position is %s",
                          text, how, is_n ? "true" : "false", expected);
        } else {
            bool is_p = grundy_is_p_position(p);
            HIDDEN_EXPECT(is_p == expected_p, section,
                          "grundy_is_p_position(%s)%s returned %s; the position is %s",
                          text, how, is_p ? "true" : "false", expected);
        }
    }
    grundy_free(p);
}

#endif /* HIDDEN_SUPPORT_H */
