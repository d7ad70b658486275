/*
 * test_hidden_task0.c - Task 0, hidden suite (grader only; never given to
 * students): the heap-count map, equality and hashing, and the moves, on
 * randomized cases drawn from the seed (see hidden_seed.h and README.md).
 *
 * Linked into the same runner as tests/public/suites/test_task0.c, so every helper
 * here is static and no test name repeats one of the public suite.
 *
 * Expected answers come from a model kept by the test itself (an array of
 * counts per height, updated by the rules of grundy.h: heights < 3 are not
 * stored, a count that reaches 0 disappears) or from the oracle
 * (oracle_moves, oracle_format, oracle_canonicalize). Every position the
 * student's code returns is checked against the representation invariant
 * before it is compared.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task0_hidden::*'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "hidden_seed.h"
#include "lab_support.h"
#include "oracle.h"

TestSuite(task0_hidden, .description = "Task 0, hidden: the heap-count map and the moves",
          .timeout = 60);

#define RNG(name) hidden_rng("task0_hidden::" #name)

enum {
    MAX_HEIGHT = 200, /* the model covers heights 0 .. MAX_HEIGHT */
    MAX_HEAPS = 1024  /* the most heaps any test position holds */
};

/* The test's own picture of a position: how many heaps of each height.
 * Heights < 3 are never counted, as the invariant asks. */
typedef struct {
    int count[MAX_HEIGHT + 1];
} model;

static void model_add(model *m, int height)
{
    if (height >= 3 && height <= MAX_HEIGHT)
        m->count[height]++;
}

static void model_remove(model *m, int height)
{
    if (height >= 3 && height <= MAX_HEIGHT && m->count[height] > 0)
        m->count[height]--;
}

static int model_count(const model *m, int height)
{
    return height >= 0 && height <= MAX_HEIGHT ? m->count[height] : 0;
}

/* The model's heaps, ascending; returns how many. */
static size_t model_heaps(const model *m, int *heaps)
{
    size_t n = 0;
    for (int h = 3; h <= MAX_HEIGHT; h++)
        for (int k = 0; k < m->count[h]; k++)
            heaps[n++] = h;
    return n;
}

/* The model's distinct heights, ascending; returns how many. */
static size_t model_heights(const model *m, int *heights)
{
    size_t n = 0;
    for (int h = 3; h <= MAX_HEIGHT; h++)
        if (m->count[h] > 0)
            heights[n++] = h;
    return n;
}

/* "5, 1, 3": heaps in the order they were added, for messages (one static
 * buffer; long lists are cut short). */
static const char *order_text(const int *heaps, size_t n)
{
    static char text[2048];
    size_t used = 0;
    text[0] = '\0';
    for (size_t i = 0; i < n && used < sizeof text - 32; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%d", i ? ", " : "", heaps[i]);
    if (used >= sizeof text - 32)
        snprintf(text + used, sizeof text - used, ", ...");
    return text;
}

/* Asserts that `p` satisfies the invariant and holds exactly the model's
 * heaps; on a difference the message names the first height that differs. */
static void expect_model(const grundy_position *p, const model *m, const char *what,
                         const char *section)
{
    int got[MAX_HEAPS], want[MAX_HEAPS];
    /* "after 3 calls of ..." names a moment, not a position: the messages
     * read "the position, after 3 calls of ..." (they read "reading the
     * entries of after adding ..."). */
    char named[320];
    if (strncmp(what, "the ", 4) != 0 && strncmp(what, "a ", 2) != 0) {
        snprintf(named, sizeof named, "the position, %s", what);
        what = named;
    }
    size_t got_n = lab_expand_at_most(p, got, MAX_HEAPS, what);
    size_t want_n = model_heaps(m, want);
    if (got_n == want_n && (got_n == 0 || memcmp(got, want, got_n * sizeof *got) == 0))
        return;
    /* Find the first height whose count differs. */
    int height = -1, got_count = 0;
    for (size_t i = 0; i < got_n && height < 0; i++) {
        if (i > 0 && got[i] == got[i - 1])
            continue;
        int c = 0;
        for (size_t j = i; j < got_n && got[j] == got[i]; j++)
            c++;
        if (c != model_count(m, got[i]))
            height = got[i], got_count = c;
    }
    for (int h = 3; h <= MAX_HEIGHT && height < 0; h++) {
        int c = 0;
        for (size_t j = 0; j < got_n; j++)
            c += got[j] == h;
        if (c != m->count[h])
            height = h, got_count = c;
    }
    LAB_EXPECT(false, section, "%s: expected %s, got %s (height %d: expected %d heap(s), got %d)",
               what, lab_heaps_text(want, want_n), lab_heaps_text(got, got_n), height,
               model_count(m, height), got_count);
}

/* An empty position, through the student's grundy_new(0). */
static grundy_position *empty_position(void)
{
    return lab_build(NULL, 0);
}

/* ---- the map: long add/remove sequences ---------------------------------- */

LAB_TEST(task0_hidden, many_distinct_heights_grow_the_array)
{
    /* 100 to 180 distinct heights make the entries array grow many times
     * (4, 8, ..., 256 for a doubling array); they arrive in random order
     * with repeats and dead heaps mixed in, so inserts land at the front,
     * the middle and the end. */
    unsigned rng = RNG(many_distinct_heights_grow_the_array);
    for (int round = 0; round < 3; round++) {
        int heights[MAX_HEIGHT];
        size_t pool = 0;
        for (int h = 3; h <= MAX_HEIGHT; h++)
            heights[pool++] = h;
        hidden_shuffle(heights, pool, &rng);
        size_t distinct = (size_t)hidden_between(&rng, 100, 180);
        model m = {0};
        int added[4 * MAX_HEIGHT];
        size_t n = 0;
        grundy_position *p = empty_position();
        for (size_t i = 0; i < distinct; i++) {
            int h = heights[i];
            unsigned roll = lab_random(&rng) % 8;
            if (roll == 0)
                h = hidden_between(&rng, -1, 2); /* a dead heap, which must not be stored */
            else if (roll == 1 && n > 0)
                h = added[lab_random(&rng) % n]; /* one more heap of a height already added */
            else if (roll == 1)
                h = heights[i];
            grundy_add_heap(p, h);
            model_add(&m, h);
            added[n++] = h;
            char what[160];
            snprintf(what, sizeof what, "after %zu calls of grundy_add_heap, the last grundy_add_heap(p, %d)",
                     n, h);
            expect_model(p, &m, what, SECTION_MAP);
        }
        grundy_free(p);
    }
}

LAB_TEST(task0_hidden, remove_front_middle_end)
{
    /* Removing the smallest, a middle and the largest height in turn: the
     * entries after the removed one must move down by exactly one slot
     * (off-by-one errors lose or duplicate the last entry), and an entry
     * whose count drops to 0 must disappear. */
    unsigned rng = RNG(remove_front_middle_end);
    static const char *const where[] = {"smallest", "middle", "largest"};
    for (int round = 0; round < 4; round++) {
        int pool[MAX_HEIGHT];
        size_t pool_n = 0;
        for (int h = 3; h <= 150; h++)
            pool[pool_n++] = h;
        hidden_shuffle(pool, pool_n, &rng);
        size_t distinct = (size_t)hidden_between(&rng, 40, 80);
        int heaps[4 * MAX_HEIGHT];
        size_t n = 0;
        for (size_t i = 0; i < distinct; i++)
            for (int k = hidden_between(&rng, 1, 3); k > 0; k--)
                heaps[n++] = pool[i];
        hidden_shuffle(heaps, n, &rng);
        grundy_position *p = lab_build(heaps, n);
        model m = {0};
        for (size_t i = 0; i < n; i++)
            model_add(&m, heaps[i]);
        expect_model(p, &m, "a position of 40 to 80 distinct heights, before any removal", SECTION_MAP);
        int order[3] = {0, 1, 2};
        for (size_t step = 0; step < n; step++) {
            if (step % 3 == 0)
                hidden_shuffle(order, 3, &rng);
            int heights[MAX_HEIGHT];
            size_t d = model_heights(&m, heights);
            int kind = order[step % 3];
            size_t at = kind == 0 ? 0 : kind == 2 ? d - 1 : d < 3 ? d / 2 : 1 + lab_random(&rng) % (d - 2);
            int h = heights[at];
            int before = m.count[h];
            grundy_remove_heap(p, h);
            model_remove(&m, h);
            char what[200];
            snprintf(what, sizeof what,
                     "after grundy_remove_heap(p, %d) (the %s of %zu stored heights, entries[%zu], "
                     "count %d before)",
                     h, where[kind], d, at, before);
            expect_model(p, &m, what, SECTION_MAP);
        }
        grundy_free(p);
    }
}

LAB_TEST(task0_hidden, remove_until_empty_then_add_again)
{
    /* The same position is emptied heap by heap and refilled four times:
     * an empty position that still owns its array must keep working. */
    unsigned rng = RNG(remove_until_empty_then_add_again);
    grundy_position *p = empty_position();
    model m = {0};
    for (int cycle = 1; cycle <= 4; cycle++) {
        int heaps[64];
        size_t n = (size_t)hidden_between(&rng, 5, 40);
        for (size_t i = 0; i < n; i++) {
            heaps[i] = hidden_between(&rng, 0, 60);
            grundy_add_heap(p, heaps[i]);
            model_add(&m, heaps[i]);
        }
        char what[200];
        snprintf(what, sizeof what, "in cycle %d, after adding %s to the emptied position", cycle,
                 order_text(heaps, n));
        expect_model(p, &m, what, SECTION_MAP);
        hidden_shuffle(heaps, n, &rng);
        for (size_t i = 0; i < n; i++) {
            int h = heaps[i];
            if (lab_random(&rng) % 4 == 0) {
                int absent = hidden_between(&rng, 61, 70); /* never added */
                grundy_remove_heap(p, absent);
                snprintf(what, sizeof what,
                         "in cycle %d, after grundy_remove_heap(p, %d) (an absent height: nothing changes)",
                         cycle, absent);
                expect_model(p, &m, what, SECTION_MAP);
            }
            grundy_remove_heap(p, h);
            model_remove(&m, h);
            snprintf(what, sizeof what, "in cycle %d, after grundy_remove_heap(p, %d) (%zu of %zu heaps removed)",
                     cycle, h, i + 1, n);
            expect_model(p, &m, what, SECTION_MAP);
        }
        snprintf(what, sizeof what, "in cycle %d, every heap removed", cycle);
        expect_model(p, &m, what, SECTION_MAP);
        for (int h = 0; h <= 70; h++) {
            int got = grundy_count(p, h);
            LAB_EXPECT(got == 0, SECTION_MAP,
                       "in cycle %d, after removing every heap, grundy_count(p, %d) returned %d; "
                       "expected 0",
                       cycle, h, got);
        }
        grundy_remove_heap(p, 5); /* removing from the empty position changes nothing */
        snprintf(what, sizeof what, "in cycle %d, after grundy_remove_heap on the empty position", cycle);
        expect_model(p, &m, what, SECTION_MAP);
    }
    grundy_free(p);
}

LAB_TEST(task0_hidden, long_random_add_remove_sequence)
{
    /* 5000 random operations on one position, over heights -2 .. 95 (dead
     * heights, and heights that were never added, included), checked
     * against the model after every one. */
    unsigned rng = RNG(long_random_add_remove_sequence);
    grundy_position *p = empty_position();
    model m = {0};
    int heaps[MAX_HEAPS];
    size_t total = 0;
    for (int op = 1; op <= 5000; op++) {
        bool add = total < 300 && lab_random(&rng) % 100 < 55;
        int h;
        if (add) {
            h = hidden_between(&rng, -2, 90);
            grundy_add_heap(p, h);
            model_add(&m, h);
        } else if (lab_random(&rng) % 10 < 7 && total > 0) {
            h = heaps[lab_random(&rng) % total]; /* a height the position holds */
            grundy_remove_heap(p, h);
            model_remove(&m, h);
        } else {
            h = hidden_between(&rng, -2, 95); /* perhaps absent */
            grundy_remove_heap(p, h);
            model_remove(&m, h);
        }
        total = model_heaps(&m, heaps);
        char what[160];
        snprintf(what, sizeof what, "after operation %d of a random sequence, grundy_%s_heap(p, %d)", op,
                 add ? "add" : "remove", h);
        expect_model(p, &m, what, SECTION_MAP);
        int got = grundy_count(p, h);
        LAB_EXPECT(got == model_count(&m, h), SECTION_MAP,
                   "%s: grundy_count(p, %d) returned %d, expected %d", what, h, got, model_count(&m, h));
    }
    grundy_free(p);
}

LAB_TEST(task0_hidden, count_of_absent_heights)
{
    /* grundy_count for every height from -3 to 70 on random positions:
     * stored heights, and absent heights below, between and above them. A
     * binary search that stops one slot off, or reads past the last entry,
     * reports a neighbour's count. */
    unsigned rng = RNG(count_of_absent_heights);
    for (int round = 0; round < 60; round++) {
        int heaps[64];
        size_t n = 0;
        size_t distinct = (size_t)hidden_between(&rng, 1, 12);
        for (size_t i = 0; i < distinct; i++) {
            int h = hidden_between(&rng, 3, 60);
            for (int k = hidden_between(&rng, 1, 4); k > 0; k--)
                heaps[n++] = h;
        }
        for (int k = hidden_between(&rng, 0, 2); k > 0; k--)
            heaps[n++] = hidden_between(&rng, 0, 2);
        hidden_shuffle(heaps, n, &rng);
        grundy_position *p = lab_build(heaps, n);
        model m = {0};
        for (size_t i = 0; i < n; i++)
            model_add(&m, heaps[i]);
        int stored[64];
        size_t d = model_heights(&m, stored);
        const char *text = lab_heaps_text(heaps, n);
        for (int h = -3; h <= 70; h++) {
            int got = grundy_count(p, h);
            int want = model_count(&m, h);
            const char *kind = h < 3 ? "a dead height, never stored"
                               : want > 0 ? "a stored height"
                               : h < stored[0] ? "absent, below every stored height"
                               : h > stored[d - 1] ? "absent, above every stored height"
                                                   : "absent, between stored heights";
            LAB_EXPECT(got == want, SECTION_MAP, "grundy_count(%s, %d) returned %d, expected %d (%s)",
                       text, h, got, want, kind);
        }
        grundy_free(p);
    }
}

/* ---- copies ---------------------------------------------------------------- */

LAB_TEST(task0_hidden, copy_of_the_empty_position)
{
    /* Empty positions made four ways, one of them an emptied position that
     * still owns an array. Each copy must be a real, independent empty
     * position (not NULL, equal, same hash), and growing either one must
     * not touch the other. */
    unsigned rng = RNG(copy_of_the_empty_position);
    for (int way = 0; way < 4; way++) {
        grundy_position *e = NULL;
        const char *name = NULL;
        int dead = hidden_between(&rng, -5, 2);
        char dead_name[64];
        if (way == 0) {
            e = empty_position();
            name = "grundy_new(0)";
        } else if (way == 1) {
            e = grundy_new(dead);
            snprintf(dead_name, sizeof dead_name, "grundy_new(%d)", dead);
            name = dead_name;
            lab_expect_made(e, SECTION_MAP, "%s", name);
        } else if (way == 2) {
            int heaps[] = {1, 2, 2, 1, 0};
            e = lab_build(heaps, sizeof heaps / sizeof *heaps);
            name = "the position built from heaps 1, 2, 2, 1, 0";
        } else {
            int heaps[32];
            size_t n = (size_t)hidden_between(&rng, 5, 30);
            for (size_t i = 0; i < n; i++)
                heaps[i] = hidden_between(&rng, 3, 40);
            e = lab_build(heaps, n);
            hidden_shuffle(heaps, n, &rng);
            for (size_t i = 0; i < n; i++)
                grundy_remove_heap(e, heaps[i]);
            name = "a position emptied by removing every heap";
        }
        model none = {0};
        expect_model(e, &none, name, SECTION_MAP);
        grundy_position *c = grundy_copy(e);
        char what[200];
        snprintf(what, sizeof what, "grundy_copy(%s)", name);
        lab_expect_made(c, SECTION_MAP, "%s", what);
        expect_model(c, &none, what, SECTION_MAP);
        LAB_EXPECT(grundy_equals(e, c) && grundy_equals(c, e), SECTION_EQUALITY,
                   "grundy_equals(%s, its copy) returned false; both are {}", name);
        LAB_EXPECT(grundy_hash(e) == grundy_hash(c), SECTION_EQUALITY,
                   "%s hashes to %llu but its copy to %llu; equal positions must hash equal", name,
                   (unsigned long long)grundy_hash(e), (unsigned long long)grundy_hash(c));
        model mc = {0}, me = {0};
        for (int k = hidden_between(&rng, 5, 20); k > 0; k--) {
            int h = hidden_between(&rng, 3, 50);
            grundy_add_heap(c, h);
            model_add(&mc, h);
        }
        snprintf(what, sizeof what, "the copy of %s after adding heaps to it", name);
        expect_model(c, &mc, what, SECTION_MAP);
        snprintf(what, sizeof what, "%s after adding heaps to its copy (the copy must not share memory)", name);
        expect_model(e, &me, what, SECTION_MAP);
        for (int k = hidden_between(&rng, 5, 20); k > 0; k--) {
            int h = hidden_between(&rng, 3, 50);
            grundy_add_heap(e, h);
            model_add(&me, h);
        }
        snprintf(what, sizeof what, "%s after adding heaps to it", name);
        expect_model(e, &me, what, SECTION_MAP);
        snprintf(what, sizeof what, "the copy of %s after adding heaps to the original", name);
        expect_model(c, &mc, what, SECTION_MAP);
        grundy_free(c);
        grundy_free(e);
    }
}

LAB_TEST(task0_hidden, copy_of_a_large_position_is_deep)
{
    /* A position of 60 to 150 distinct heights and its copy are changed
     * independently, 400 random operations spread over both: a copy that
     * shares the entries array, or gets too small an array for its
     * capacity, shows up as changes in the other one. */
    unsigned rng = RNG(copy_of_a_large_position_is_deep);
    for (int round = 0; round < 3; round++) {
        int pool[MAX_HEIGHT];
        size_t pool_n = 0;
        for (int h = 3; h <= MAX_HEIGHT; h++)
            pool[pool_n++] = h;
        hidden_shuffle(pool, pool_n, &rng);
        size_t distinct = (size_t)hidden_between(&rng, 60, 150);
        int heaps[MAX_HEAPS];
        size_t n = 0;
        for (size_t i = 0; i < distinct; i++)
            for (int k = hidden_between(&rng, 1, 4); k > 0; k--)
                heaps[n++] = pool[i];
        hidden_shuffle(heaps, n, &rng);
        grundy_position *p = lab_build(heaps, n);
        model mp = {0};
        for (size_t i = 0; i < n; i++)
            model_add(&mp, heaps[i]);
        grundy_position *c = grundy_copy(p);
        lab_expect_made(c, SECTION_MAP, "grundy_copy of a position with %zu distinct heights", distinct);
        model mc = mp;
        expect_model(c, &mc, "the copy of a position with 60 to 150 distinct heights", SECTION_MAP);
        LAB_EXPECT(grundy_equals(p, c) && grundy_equals(c, p), SECTION_EQUALITY,
                   "grundy_equals(p, grundy_copy(p)) returned false for a position with %zu distinct heights",
                   distinct);
        LAB_EXPECT(grundy_hash(p) == grundy_hash(c), SECTION_EQUALITY,
                   "a position with %zu distinct heights hashes to %llu, its copy to %llu", distinct,
                   (unsigned long long)grundy_hash(p), (unsigned long long)grundy_hash(c));
        for (int op = 1; op <= 400; op++) {
            bool on_copy = lab_random(&rng) % 2;
            grundy_position *target = on_copy ? c : p;
            model *mt = on_copy ? &mc : &mp;
            int h = hidden_between(&rng, 3, MAX_HEIGHT);
            if (lab_random(&rng) % 2) {
                grundy_add_heap(target, h);
                model_add(mt, h);
            } else {
                grundy_remove_heap(target, h);
                model_remove(mt, h);
            }
            if (op % 20 == 0) {
                char what[160];
                snprintf(what, sizeof what, "the original after %d random changes to it and its copy", op);
                expect_model(p, &mp, what, SECTION_MAP);
                snprintf(what, sizeof what, "the copy after %d random changes to it and the original", op);
                expect_model(c, &mc, what, SECTION_MAP);
            }
        }
        /* Empty the original completely: the copy keeps all of its heaps. */
        int left[MAX_HEAPS];
        size_t left_n = model_heaps(&mp, left);
        for (size_t i = 0; i < left_n; i++)
            grundy_remove_heap(p, left[i]);
        model none = {0};
        expect_model(p, &none, "the original after removing all its heaps", SECTION_MAP);
        expect_model(c, &mc, "the copy after removing every heap from the original", SECTION_MAP);
        grundy_free(p);
        grundy_free(c);
    }
}

/* ---- equality and hashing ------------------------------------------------ */

LAB_TEST(task0_hidden, equality_same_heights_different_counts)
{
    /* Positions with the same heights (and often the same number of heaps)
     * but different counts are different games: an equality that compares
     * only the heights, or only sizes and totals, says they are equal. */
    unsigned rng = RNG(equality_same_heights_different_counts);
    for (int round = 0; round < 100; round++) {
        int heights[6], counts[6];
        size_t d = (size_t)hidden_between(&rng, 1, 6);
        for (size_t i = 0; i < d; i++) {
            bool fresh;
            do {
                heights[i] = hidden_between(&rng, 3, 30);
                fresh = true;
                for (size_t j = 0; j < i; j++)
                    fresh = fresh && heights[j] != heights[i];
            } while (!fresh);
            counts[i] = hidden_between(&rng, 1, 3);
        }
        int a_heaps[32], b_heaps[32], c_heaps[32], a2_heaps[32];
        size_t an = 0, bn = 0, cn = 0;
        size_t j = lab_random(&rng) % d;
        int delta = counts[j] >= 2 && lab_random(&rng) % 2 ? -1 : 1;
        bool counts_vary = false;
        for (size_t i = 0; i < d; i++)
            counts_vary = counts_vary || counts[i] != counts[0];
        for (size_t i = 0; i < d; i++) {
            for (int k = 0; k < counts[i]; k++)
                a_heaps[an++] = heights[i];
            for (int k = 0; k < counts[i] + (i == j ? delta : 0); k++)
                b_heaps[bn++] = heights[i];
            /* c: the same heights with the counts rotated by one place. */
            for (int k = 0; k < counts[(i + 1) % d]; k++)
                c_heaps[cn++] = heights[i];
        }
        memcpy(a2_heaps, a_heaps, an * sizeof *a_heaps);
        hidden_shuffle(a_heaps, an, &rng);
        hidden_shuffle(a2_heaps, an, &rng);
        hidden_shuffle(b_heaps, bn, &rng);
        hidden_shuffle(c_heaps, cn, &rng);
        grundy_position *a = lab_build(a_heaps, an);
        grundy_position *a2 = lab_build(a2_heaps, an);
        grundy_position *b = lab_build(b_heaps, bn);
        grundy_position *c = lab_build(c_heaps, cn);
        const char *at = lab_heaps_text(a_heaps, an), *bt = lab_heaps_text(b_heaps, bn),
                   *ct = lab_heaps_text(c_heaps, cn);
        LAB_EXPECT(grundy_equals(a, a2) && grundy_equals(a2, a), SECTION_EQUALITY,
                   "grundy_equals(%s, the same heaps added in another order) returned false", at);
        LAB_EXPECT(!grundy_equals(a, b), SECTION_EQUALITY,
                   "grundy_equals(%s, %s) returned true; the count of height %d differs", at, bt,
                   heights[j]);
        LAB_EXPECT(!grundy_equals(b, a), SECTION_EQUALITY,
                   "grundy_equals(%s, %s) returned true; the count of height %d differs", bt, at,
                   heights[j]);
        if (counts_vary) {
            LAB_EXPECT(!grundy_equals(a, c) && !grundy_equals(c, a), SECTION_EQUALITY,
                       "grundy_equals(%s, %s) returned true; same heights and the same number of "
                       "heaps, but different counts per height",
                       at, ct);
        }
        grundy_free(a);
        grundy_free(a2);
        grundy_free(b);
        grundy_free(c);
    }
}

LAB_TEST(task0_hidden, hash_equal_for_random_build_orders)
{
    /* The same multiset built four ways: shuffled; shuffled with dead heaps
     * mixed in; with extra heaps added and removed again on the way (which
     * leaves stale slots past `size` and a larger capacity); and a copy of
     * that. All four are equal and must hash equal: a hash or an equality
     * that reads past `size`, or looks at capacity, fails. */
    unsigned rng = RNG(hash_equal_for_random_build_orders);
    for (int round = 0; round < 80; round++) {
        int heaps[24];
        size_t n = (size_t)hidden_between(&rng, 1, 20);
        for (size_t i = 0; i < n; i++)
            heaps[i] = hidden_between(&rng, 0, 50);
        const char *text = lab_heaps_text(heaps, n);

        int order1[24];
        memcpy(order1, heaps, n * sizeof *heaps);
        hidden_shuffle(order1, n, &rng);
        grundy_position *b1 = lab_build(order1, n);

        int order2[48];
        size_t n2 = 0;
        for (size_t i = 0; i < n; i++) {
            if (lab_random(&rng) % 3 == 0)
                order2[n2++] = hidden_between(&rng, -1, 2);
            order2[n2++] = heaps[i];
        }
        hidden_shuffle(order2, n2, &rng);
        grundy_position *b2 = lab_build(order2, n2);

        int extras[32];
        size_t extra_n = (size_t)hidden_between(&rng, 5, 30);
        for (size_t i = 0; i < extra_n; i++)
            extras[i] = hidden_between(&rng, 3, 80);
        grundy_position *b3 = empty_position();
        size_t e = 0;
        for (size_t i = 0; i < n; i++) {
            grundy_add_heap(b3, heaps[i]);
            if (e < extra_n && lab_random(&rng) % 2)
                grundy_add_heap(b3, extras[e++]);
        }
        while (e < extra_n)
            grundy_add_heap(b3, extras[e++]);
        hidden_shuffle(extras, extra_n, &rng);
        for (size_t i = 0; i < extra_n; i++)
            grundy_remove_heap(b3, extras[i]);

        grundy_position *b4 = grundy_copy(b3);
        lab_expect_made(b4, SECTION_MAP, "grundy_copy(%s)", text);

        grundy_position *const built[] = {b2, b3, b4};
        static const char *const how[] = {
            "added in another order with dead heaps mixed in",
            "built with extra heaps added and removed again on the way",
            "a copy of the one built with extra heaps added and removed",
        };
        for (size_t k = 0; k < 3; k++) {
            LAB_EXPECT(grundy_equals(b1, built[k]) && grundy_equals(built[k], b1), SECTION_EQUALITY,
                       "grundy_equals returned false for %s and the same position %s", text, how[k]);
            LAB_EXPECT(grundy_hash(b1) == grundy_hash(built[k]), SECTION_EQUALITY,
                       "%s hashes to %llu, but the same position %s hashes to %llu; equal positions "
                       "must hash equal (hash only entries[0 .. size-1])",
                       text, (unsigned long long)grundy_hash(b1), how[k],
                       (unsigned long long)grundy_hash(built[k]));
        }
        grundy_free(b1);
        grundy_free(b2);
        grundy_free(b3);
        grundy_free(b4);
    }
}

/* ---- moves ----------------------------------------------------------------- */

LAB_TEST(task0_hidden, moves_of_random_positions)
{
    /* Positions of 1 to 8 heaps of 1 to 40 (dead heaps included, often
     * repeated heights): the moves must be exactly the oracle's, as a set,
     * each once, every one a valid position, and the input unchanged. */
    unsigned rng = RNG(moves_of_random_positions);
    for (int round = 0; round < 150; round++) {
        int heaps[8];
        size_t n = (size_t)hidden_between(&rng, 1, 8);
        for (size_t i = 0; i < n; i++)
            heaps[i] = lab_random(&rng) % 3 == 0 && i > 0 ? heaps[lab_random(&rng) % i]
                                                          : hidden_between(&rng, 1, 40);
        const char *text = lab_heaps_text(heaps, n);
        grundy_position *p = lab_build(heaps, n);
        position_list *moves = grundy_get_moves(p);
        lab_expect_oracle_moves(moves, heaps, n, text);
        int canonical[8], after[64];
        memcpy(canonical, heaps, n * sizeof *heaps);
        size_t canonical_n = oracle_canonicalize(canonical, n);
        char what[256];
        snprintf(what, sizeof what, "the position after grundy_get_moves(%s) (it must not change)", text);
        size_t after_n = lab_expand_at_most(p, after, 64, what);
        LAB_EXPECT(after_n == canonical_n &&
                       (after_n == 0 || memcmp(after, canonical, after_n * sizeof *after) == 0),
                   SECTION_MOVES, "grundy_get_moves(%s) changed its argument into %s", text,
                   lab_heaps_text(after, after_n));
        position_list_free(moves);
        grundy_free(p);
    }
}

LAB_TEST(task0_hidden, to_string_matches_oracle_format)
{
    /* grundy_to_string is given code that prints the entries as they are
     * stored; on a correct position it prints exactly what the oracle does
     * ("{3=1, 4=1}", heights ascending, "{}" when empty). Dead heaps kept,
     * entries out of order or split in two, or counts of 0 all show. */
    unsigned rng = RNG(to_string_matches_oracle_format);
    for (int round = 0; round < 100; round++) {
        int heaps[40];
        size_t n;
        if (round % 10 == 0) {
            n = (size_t)hidden_between(&rng, 0, 5); /* dead heaps only: {} */
            for (size_t i = 0; i < n; i++)
                heaps[i] = hidden_between(&rng, 0, 2);
        } else {
            n = (size_t)hidden_between(&rng, 1, 14);
            for (size_t i = 0; i < n; i++)
                heaps[i] = hidden_between(&rng, 0, 120);
            if (round % 3 == 0) /* a count of two digits */
                for (int k = hidden_between(&rng, 10, 12); k > 0 && n < 40; k--)
                    heaps[n++] = heaps[0];
            hidden_shuffle(heaps, n, &rng);
        }
        grundy_position *p = lab_build(heaps, n);
        char *got = grundy_to_string(p);
        char *want = oracle_format(heaps, n);
        LAB_EXPECT(got != NULL, SECTION_MAP, "grundy_to_string returned NULL");
        LAB_EXPECT(strcmp(got, want) == 0, SECTION_INVARIANT,
                   "the position built by adding %s prints as \"%.160s\"; expected \"%s\"",
                   order_text(heaps, n), got, want);   /* bounded: the text is the student's */
        free(got);
        free(want);
        grundy_free(p);
    }
}

/* ---- memory -------------------------------------------------------------- */

LAB_TEST(task0_hidden, nothing_leaks_in_a_random_workload)
{
    /* A random workload of every Task 0 function, then everything freed:
     * the live heap blocks must be back where they were. Nothing between
     * the two counts calls the oracle (its caches would count too). */
    unsigned rng = RNG(nothing_leaks_in_a_random_workload);
    size_t before = alloc_live_blocks();
    for (int round = 0; round < 25; round++) {
        int heaps[8];
        size_t n = (size_t)hidden_between(&rng, 1, 8);
        for (size_t i = 0; i < n; i++)
            heaps[i] = hidden_between(&rng, 0, 30);
        grundy_position *p = lab_build(heaps, n);
        grundy_position *c = grundy_copy(p);
        lab_expect_made(c, SECTION_MAP, "grundy_copy");
        for (int op = 0; op < 30; op++) {
            int h = hidden_between(&rng, 0, 60);
            if (lab_random(&rng) % 3)
                grundy_add_heap(c, h);
            else
                grundy_remove_heap(c, h);
        }
        (void)grundy_equals(p, c);
        (void)grundy_hash(c);
        (void)grundy_count(c, heaps[0]);
        position_list *moves = grundy_get_moves(c);
        lab_expect_made(moves, SECTION_MOVES, "grundy_get_moves");
        for (size_t i = 0; i < moves->size && i < 3; i++) {
            position_list *deeper = grundy_get_moves(moves->items[i]);
            lab_expect_made(deeper, SECTION_MOVES, "grundy_get_moves");
            position_list_free(deeper);
        }
        position_list_free(moves);
        char *text = grundy_to_string(p);
        free(text);
        grundy_position *e = grundy_new(hidden_between(&rng, -2, 2));
        lab_expect_made(e, SECTION_MAP, "grundy_new of a dead height");
        grundy_position *ec = grundy_copy(e);
        lab_expect_made(ec, SECTION_MAP, "grundy_copy of the empty position");
        grundy_free(ec);
        grundy_free(e);
        for (size_t i = 0; i < n; i++)
            grundy_remove_heap(p, heaps[i]);
        grundy_free(p);
        grundy_free(c);
    }
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_MAP,
               "%zu heap block(s) allocated before and %zu after a random workload (building, copying, "
               "changing, expanding and printing positions) that freed everything it made; "
               "grundy_free must free the entries and the position, and every copy a move list "
               "holds must be pushed onto it (run `make memcheck` to see where they were allocated)",
               before, after);
}
