/*
 * test_task0.c - Task 0: the heap-count map, equality and hashing, and the
 * moves of a position.
 *
 * Expected answers come from the oracle (reference/oracle), which shares no
 * code with any solution, or from hand-derived cases spelled out in the
 * comments. Every position a student's function returns is first checked
 * against the representation invariant.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task0::*'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "lab_support.h"
#include "oracle.h"

TestSuite(task0, .description = "Task 0: the heap-count map and the moves", .timeout = 60);

/* Asserts that `p` holds exactly the heaps `heaps` (in any order; heights
 * below 3 are expected to be dropped). */
static void expect_heaps(const grundy_position *p, const char *what, const int *heaps, size_t n,
                         const char *section)
{
    int want[LAB_MAX_HEAPS], got[LAB_MAX_HEAPS];
    if (n > 0)
        memcpy(want, heaps, n * sizeof *heaps);
    size_t want_n = oracle_canonicalize(want, n);
    size_t got_n = lab_expand(p, got, what);
    LAB_EXPECT(got_n == want_n && (got_n == 0 || memcmp(got, want, got_n * sizeof *got) == 0), section,
               "%s: expected %s, got %s", what, lab_heaps_text(want, want_n),
               lab_heaps_text(got, got_n));
}

LAB_TEST(task0, new_single_heap)
{
    for (int h = 3; h <= 40; h++) {
        lab_trace("grundy_new(%d)", h);
        grundy_position *p = grundy_new(h);
        const char *what = lab_format("grundy_new(%d)", h);
        char name[64];
        strcpy(name, what);
        expect_heaps(p, name, &h, 1, SECTION_MAP);
        LAB_EXPECT(grundy_count(p, h) == 1, SECTION_MAP,
                   "grundy_count(grundy_new(%d), %d) returned %d, expected 1%s", h, h,
                   grundy_count(p, h), lab_stored_note(p, &h, 1, "grundy_count"));
        grundy_free(p);
    }
}

LAB_TEST(task0, new_dead_heap_is_empty)
{
    /* Heaps of 0, 1 and 2 cannot be split: the invariant leaves them out. */
    for (int h = -1; h <= 2; h++) {
        lab_trace("grundy_new(%d)", h);
        grundy_position *p = grundy_new(h);
        char name[64];
        snprintf(name, sizeof name, "grundy_new(%d)", h);
        expect_heaps(p, name, NULL, 0, SECTION_INVARIANT);
        grundy_free(p);
    }
}

LAB_TEST(task0, add_heap_keeps_map_sorted)
{
    unsigned seed = 12345;
    for (int round = 0; round < 40; round++) {
        int heaps[24];
        size_t n = 0;
        grundy_position *p = lab_build(NULL, 0);
        int steps = 1 + (int)(lab_random(&seed) % 20);
        for (int s = 0; s < steps; s++) {
            int h = (int)(lab_random(&seed) % 14); /* includes dead heights 0..2 */
            lab_trace("grundy_add_heap(p, %d) after adding %s", h, lab_heaps_text(heaps, n));
            grundy_add_heap(p, h);
            heaps[n++] = h;
            char name[192];
            snprintf(name, sizeof name, "the position after adding heaps %s one by one",
                     lab_heaps_text(heaps, n));
            expect_heaps(p, name, heaps, n, SECTION_MAP);
        }
        grundy_free(p);
    }
}

LAB_TEST(task0, count_reports_each_height)
{
    grundy_position *p = lab_build(LAB_HEAPS(9, 3, 9, 5, 9, 1, 2));
    const int heights[] = {1, 2, 3, 4, 5, 6, 9, 10};
    const int counts[] = {0, 0, 1, 0, 1, 0, 3, 0}; /* read off the heaps above */
    for (size_t i = 0; i < sizeof heights / sizeof *heights; i++) {
        lab_trace("grundy_count({3=1, 5=1, 9=3}, %d)", heights[i]);
        int got = grundy_count(p, heights[i]);
        LAB_EXPECT(got == counts[i], SECTION_MAP,
                   "grundy_count({3=1, 5=1, 9=3}, %d) returned %d, expected %d%s", heights[i], got,
                   counts[i], lab_stored_note(p, LAB_HEAPS(9, 3, 9, 5, 9, 1, 2), "grundy_count"));
    }
    grundy_free(p);
}

LAB_TEST(task0, remove_heap)
{
    unsigned seed = 777;
    for (int round = 0; round < 40; round++) {
        int heaps[32];
        size_t n = 0;
        grundy_position *p = lab_build(NULL, 0);
        for (int s = 0; s < 16; s++) {
            heaps[n] = 3 + (int)(lab_random(&seed) % 6);
            grundy_add_heap(p, heaps[n++]);
        }
        for (int s = 0; s < 20; s++) {
            int h = 3 + (int)(lab_random(&seed) % 8); /* 9 and 10 are never present */
            lab_trace("grundy_remove_heap(%s, %d)", lab_heaps_text(heaps, n), h);
            grundy_remove_heap(p, h);
            bool present = false;
            for (size_t i = 0; i < n && !present; i++) {
                if (heaps[i] == h) {
                    heaps[i] = heaps[--n];
                    present = true;
                }
            }
            /* The note says what this removal had to do, and only that. */
            char name[224];
            snprintf(name, sizeof name, "the position after grundy_remove_heap(p, %d) (%s)", h,
                     present ? "one heap of that height removed, its count lowered by 1"
                             : "that height was absent: removing it changes nothing");
            expect_heaps(p, name, heaps, n, SECTION_MAP);
        }
        grundy_free(p);
    }
}

LAB_TEST(task0, copy_is_deep)
{
    grundy_position *p = lab_build(LAB_HEAPS(4, 7, 7));
    lab_trace("grundy_copy({4=1, 7=2})");
    grundy_position *c = grundy_copy(p);
    expect_heaps(c, "grundy_copy({4=1, 7=2})", LAB_HEAPS(4, 7, 7), SECTION_MAP);
    lab_trace("changing the copy of {4=1, 7=2}: adding 5, removing 7 and 4");
    grundy_add_heap(c, 5);
    grundy_remove_heap(c, 7);
    grundy_remove_heap(c, 4);
    expect_heaps(p, "the original after changing its copy (the copy must not share entries)",
                 LAB_HEAPS(4, 7, 7), SECTION_MAP);
    grundy_free(c);
    grundy_free(p);
    /* A copy of {} grows like any position: its capacity, 0, must not stay
     * 0 when it doubles. */
    grundy_position *empty = lab_build(NULL, 0);
    lab_trace("grundy_copy({}), then grundy_add_heap(copy, 5) and grundy_add_heap(copy, 9)");
    grundy_position *grown = grundy_copy(empty);
    lab_expect_made(grown, SECTION_MAP, "grundy_copy({})");
    grundy_add_heap(grown, 5);
    grundy_add_heap(grown, 9);
    expect_heaps(grown, "grundy_copy({}) after adding 5 and 9", LAB_HEAPS(5, 9), SECTION_MAP);
    grundy_free(grown);
    grundy_free(empty);
}

LAB_TEST(task0, free_null_is_a_no_op)
{
    lab_trace("grundy_free(NULL)");
    grundy_free(NULL);
    position_list_free(NULL);
    grundy_position *p = grundy_new(5);
    lab_expect_made(p, SECTION_MAP, "grundy_new(5)");
    grundy_free(p);
}

LAB_TEST(task0, equality_ignores_order_and_dead_heaps)
{
    grundy_position *a = lab_build(LAB_HEAPS(5, 3, 8, 3));
    grundy_position *b = lab_build(LAB_HEAPS(3, 8, 1, 3, 2, 5));
    grundy_position *c = lab_build(LAB_HEAPS(3, 5, 8));
    grundy_position *d = lab_build(LAB_HEAPS(3, 3, 5, 9));
    lab_trace("grundy_equals on {3=2, 5=1, 8=1} built in two orders");
    LAB_EXPECT(grundy_equals(a, b), SECTION_EQUALITY,
               "grundy_equals({3=2, 5=1, 8=1} built as 5,3,8,3; the same built as 3,8,1,3,2,5) "
               "returned false, expected true%s",
               lab_stored_pair_note(a, LAB_HEAPS(5, 3, 8, 3), b, LAB_HEAPS(3, 8, 1, 3, 2, 5), "grundy_equals"));
    LAB_EXPECT(grundy_equals(b, a), SECTION_EQUALITY, "grundy_equals is not symmetric");
    LAB_EXPECT(grundy_equals(a, a), SECTION_EQUALITY, "grundy_equals(p, p) returned false");
    LAB_EXPECT(!grundy_equals(a, c), SECTION_EQUALITY,
               "grundy_equals({3=2, 5=1, 8=1}, {3=1, 5=1, 8=1}) returned true; counts differ%s",
               lab_stored_pair_note(a, LAB_HEAPS(5, 3, 8, 3), c, LAB_HEAPS(3, 5, 8), "grundy_equals"));
    LAB_EXPECT(!grundy_equals(a, d), SECTION_EQUALITY,
               "grundy_equals({3=2, 5=1, 8=1}, {3=2, 5=1, 9=1}) returned true; heights differ%s",
               lab_stored_pair_note(a, LAB_HEAPS(5, 3, 8, 3), d, LAB_HEAPS(3, 3, 5, 9), "grundy_equals"));
    grundy_position *empty = lab_build(LAB_HEAPS(1, 2, 2));
    grundy_position *none = lab_build(NULL, 0);
    lab_trace("grundy_equals({}, {}), one built from the heaps 1, 2, 2");
    LAB_EXPECT(grundy_equals(empty, none), SECTION_EQUALITY,
               "grundy_equals(heaps 1,2,2, no heaps) returned false; both are the empty position {}%s",
               lab_stored_pair_note(empty, LAB_HEAPS(1, 2, 2), none, NULL, 0, "grundy_equals"));
    LAB_EXPECT(!grundy_equals(empty, c), SECTION_EQUALITY,
               "grundy_equals({}, {3=1, 5=1, 8=1}) returned true");
    grundy_free(a);
    grundy_free(b);
    grundy_free(c);
    grundy_free(d);
    grundy_free(empty);
    grundy_free(none);
}

LAB_TEST(task0, equal_positions_hash_equal)
{
    unsigned seed = 4242;
    for (int round = 0; round < 100; round++) {
        int heaps[10];
        size_t n = 1 + lab_random(&seed) % 10;
        for (size_t i = 0; i < n; i++)
            heaps[i] = (int)(lab_random(&seed) % 12);
        grundy_position *forward = lab_build(heaps, n);
        int reversed[10];
        for (size_t i = 0; i < n; i++)
            reversed[i] = heaps[n - 1 - i];
        grundy_position *backward = lab_build(reversed, n);
        const char *text = lab_heaps_text(heaps, n);
        lab_trace("grundy_copy(%s)", text);
        grundy_position *copy = grundy_copy(forward);
        lab_expect_made(copy, SECTION_MAP, "grundy_copy(%s)", text);
        lab_trace("grundy_hash(%s), built in two orders and copied", text);
        LAB_EXPECT(grundy_hash(forward) == grundy_hash(backward), SECTION_EQUALITY,
                   "%s built in two orders hashes to %llu and %llu; equal positions must hash equal",
                   text, (unsigned long long)grundy_hash(forward),
                   (unsigned long long)grundy_hash(backward));
        LAB_EXPECT(grundy_hash(forward) == grundy_hash(copy), SECTION_EQUALITY,
                   "%s and its copy hash to %llu and %llu", text,
                   (unsigned long long)grundy_hash(forward), (unsigned long long)grundy_hash(copy));
        grundy_free(forward);
        grundy_free(backward);
        grundy_free(copy);
    }
}

LAB_TEST(task0, hash_spreads_positions)
{
    /* The memo table is only fast when different positions mostly get
     * different hashes. No perfect hash is asked for: 200 distinct
     * two-heap positions must give at least 100 distinct values. */
    enum { POSITIONS = 200 };
    unsigned long long hashes[POSITIONS];
    int heaps[POSITIONS][2];
    size_t made = 0;
    for (int a = 3; a < 23 && made < POSITIONS; a++)
        for (int b = a; b < a + 10 && made < POSITIONS; b++) {
            grundy_position *p = lab_build(LAB_HEAPS(a, b));
            lab_trace("grundy_hash(%s)", lab_heaps_text(LAB_HEAPS(a, b)));
            hashes[made] = grundy_hash(p);
            heaps[made][0] = a;
            heaps[made][1] = b;
            made++;
            grundy_free(p);
        }
    size_t distinct = 0, first_twin = 0, second_twin = 0;
    for (size_t i = 0; i < made; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            seen = hashes[j] == hashes[i];
            if (seen && second_twin == 0) {
                first_twin = j;
                second_twin = i;
            }
        }
        distinct += !seen;
    }
    LAB_EXPECT(distinct >= made / 2, SECTION_EQUALITY,
               "%zu different two-heap positions {a, b} (3 <= a <= b < a + 10) got only %zu "
               "different hashes; for example %s and %s both hash to %llu. Combine the entries in "
               "order (h = h * M + height, then h = h * M + count) rather than adding heights up "
               "or keeping only some entries, so that different positions rarely share a value",
               made, distinct, lab_heaps_text(heaps[first_twin], 2),
               lab_heaps_text(heaps[second_twin], 2), hashes[second_twin]);
}

/* The position with these heaps (heights at most 40), built the long way
 * round: every height from 3 to 40 is added around them and removed
 * again, so its array has grown several times and holds old entries past
 * `size`. */
static grundy_position *build_by_a_detour(const int *heaps, size_t n)
{
    grundy_position *p = lab_build(NULL, 0);
    lab_trace("adding the heights 3 to 40 and then %s to a position", lab_heaps_text(heaps, n));
    for (int h = 3; h <= 40; h++)
        grundy_add_heap(p, h);
    for (size_t i = 0; i < n; i++)
        grundy_add_heap(p, heaps[i]);
    lab_trace("removing one heap of each height from 40 down to 3, to leave %s", lab_heaps_text(heaps, n));
    for (int h = 40; h >= 3; h--)
        grundy_remove_heap(p, h);
    return p;
}

LAB_TEST(task0, hash_ignores_history)
{
    /* Equal positions must hash equal however they were built: the hash
     * may read only what equality compares. */
    const int cases[][3] = {{3, 7, 7}, {5, 0, 0}, {4, 9, 12}, {0, 0, 0}, {20, 20, 20}, {6, 11, 40}};
    const char *detour = "built by adding and removing the heights 3 to 40 around it";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *text = lab_heaps_text(cases[i], 3);
        grundy_position *direct = lab_build(cases[i], 3);
        grundy_position *long_way = build_by_a_detour(cases[i], 3);
        char what[160];
        snprintf(what, sizeof what, "%s %s", text, detour);
        expect_heaps(long_way, what, cases[i], 3, SECTION_MAP);
        lab_trace("grundy_equals(%s built directly, the same %s)", text, detour);
        LAB_EXPECT(grundy_equals(direct, long_way), SECTION_EQUALITY,
                   "grundy_equals returned false for %s built directly and the same %s "
                   "(capacity %zu against %zu); compare only size and entries[0 .. size-1]",
                   text, detour, direct->capacity, long_way->capacity);
        lab_trace("grundy_hash(%s), built directly and %s", text, detour);
        unsigned long long direct_hash = grundy_hash(direct), long_way_hash = grundy_hash(long_way);
        LAB_EXPECT(direct_hash == long_way_hash, SECTION_EQUALITY,
                   "%s hashes to %llu when built directly (capacity %zu) but to %llu when %s "
                   "(capacity %zu, old entries past size). Equal positions must hash equal: hash "
                   "only the height and count of entries[0 .. size-1], never capacity, the slots "
                   "past size or the entries pointer",
                   text, direct_hash, direct->capacity, long_way_hash, detour, long_way->capacity);
        grundy_free(direct);
        grundy_free(long_way);
    }
}

/* Asserts that fewer than a quarter of the pairs of positions made by
 * `vary`, which differ in one thing only, hash equal. A good hash may give
 * a few such pairs the same value (a quarter of them is far more than
 * chance); one that leaves that thing out gives it to all of them. */
typedef void (*pair_maker)(size_t i, int *a, size_t *a_n, int *b, size_t *b_n);

static void expect_few_twins(pair_maker vary, size_t pairs, const char *difference, const char *cause)
{
    size_t twins = 0;
    char example[256] = "";
    for (size_t i = 0; i < pairs; i++) {
        int a[8], b[8];
        size_t a_n, b_n;
        vary(i, a, &a_n, b, &b_n);
        grundy_position *p = lab_build(a, a_n), *q = lab_build(b, b_n);
        lab_trace("grundy_hash(%s) and grundy_hash(%s)", lab_heaps_text(a, a_n), lab_heaps_text(b, b_n));
        unsigned long long p_hash = grundy_hash(p), q_hash = grundy_hash(q);
        if (p_hash == q_hash && twins++ == 0)
            snprintf(example, sizeof example, "%s and %s both hash to %llu", lab_heaps_text(a, a_n),
                     lab_heaps_text(b, b_n), p_hash);
        grundy_free(p);
        grundy_free(q);
    }
    LAB_EXPECT(4 * twins < pairs, SECTION_EQUALITY,
               "%zu of %zu pairs of positions that differ only in %s hash equal, for example %s: %s",
               twins, pairs, difference, example, cause);
}

/* The positions the two tests below vary: heights 3 to 13, one heap each. */
static const int VARIED[][3] = {{3, 0, 0}, {5, 0, 0}, {12, 0, 0}, {3, 8, 0}, {4, 6, 9}, {7, 10, 13}};
enum { VARIED_COUNT = sizeof VARIED / sizeof *VARIED, EXTRA_COUNTS = 3 };

/* Pair i: one of VARIED with one of its heights held c and c + 1 times. */
static void counts_differ(size_t i, int *a, size_t *a_n, int *b, size_t *b_n)
{
    const int *base = VARIED[i / (3 * EXTRA_COUNTS)];
    size_t entry = i / EXTRA_COUNTS % 3;
    int extra = (int)(i % EXTRA_COUNTS);
    if (base[entry] == 0)
        entry = 0; /* a base with fewer heights: vary its first one */
    *a_n = 0;
    for (size_t k = 0; k < 3 && base[k] != 0; k++)
        a[(*a_n)++] = base[k];
    for (int k = 0; k < extra; k++)
        a[(*a_n)++] = base[entry];
    memcpy(b, a, *a_n * sizeof *a);
    *b_n = *a_n;
    b[(*b_n)++] = base[entry];
}

/* Pair i: one of VARIED, and the same with one height moved to a height it
 * does not hold, its count kept (two heaps of it, so counts matter too). */
static void heights_differ(size_t i, int *a, size_t *a_n, int *b, size_t *b_n)
{
    const int *base = VARIED[i / 6];
    size_t entry = i / 2 % 3;
    if (base[entry] == 0)
        entry = 0;
    int moved_to = base[entry] + (i % 2 == 0 ? 1 : 14); /* above every height of VARIED */
    *a_n = *b_n = 0;
    for (size_t k = 0; k < 3 && base[k] != 0; k++) {
        int b_height = k == entry ? moved_to : base[k];
        a[(*a_n)++] = base[k];
        a[(*a_n)++] = base[k];
        b[(*b_n)++] = b_height;
        b[(*b_n)++] = b_height;
    }
}

LAB_TEST(task0, hash_mixes_every_count)
{
    expect_few_twins(counts_differ, VARIED_COUNT * 3 * EXTRA_COUNTS, "the count of one height",
                     "the hash leaves the counts out. Mix each entry's count into the hash as "
                     "well as its height");
}

LAB_TEST(task0, hash_mixes_every_height)
{
    expect_few_twins(heights_differ, VARIED_COUNT * 6, "one height",
                     "the hash leaves some heights out. Mix the height of every entry into the "
                     "hash, not only the first or the last");
}

/* Checks grundy_get_moves(p) against the oracle: every move valid, each
 * distinct position exactly once, none missing. */
static void expect_moves(const int *heaps, size_t n)
{
    const char *text = lab_heaps_text(heaps, n);
    grundy_position *p = lab_build(heaps, n);
    lab_trace("grundy_get_moves(%s)", text);
    position_list *moves = grundy_get_moves(p);
    lab_expect_oracle_moves(moves, heaps, n, text);
    char what[256];
    snprintf(what, sizeof what, "the position after grundy_get_moves(%s) (it must not change)", text);
    expect_heaps(p, what, heaps, n, SECTION_MOVES);
    lab_trace("position_list_free(the moves of %s)", text);
    position_list_free(moves);
    grundy_free(p);
}

LAB_TEST(task0, moves_of_small_heaps_by_hand)
{
    /* Derived by hand from the rules: 3 -> 1+2 = {}; 4 -> 1+3 = {3} (2+2 is
     * not allowed); 7 -> 1+6, 2+5, 3+4. */
    lab_trace("grundy_get_moves(grundy_new(7))");
    grundy_position *p = grundy_new(7);
    lab_expect_made(p, SECTION_MAP, "grundy_new(7)");
    lab_trace("grundy_get_moves({7=1})");
    position_list *moves = grundy_get_moves(p);
    lab_expect_made(moves, SECTION_MOVES, "grundy_get_moves({7=1})");
    LAB_EXPECT(moves->size == 3, SECTION_MOVES,
               "grundy_get_moves({7=1}) returned %zu moves; expected 3: {6=1}, {5=1}, {3=1, 4=1}",
               moves->size);
    position_list_free(moves);
    grundy_free(p);
    expect_moves(LAB_HEAPS(3));
    expect_moves(LAB_HEAPS(4));
    expect_moves(LAB_HEAPS(7));
}

LAB_TEST(task0, moves_of_single_heaps)
{
    for (int h = 0; h <= 30; h++)
        expect_moves(&h, 1);
}

LAB_TEST(task0, moves_of_the_empty_position)
{
    grundy_position *p = lab_build(NULL, 0);
    lab_trace("grundy_get_moves({})");
    position_list *moves = grundy_get_moves(p);
    lab_expect_made(moves, SECTION_MOVES, "grundy_get_moves({})");
    LAB_EXPECT(moves->size == 0, SECTION_MOVES, "grundy_get_moves({}) returned %zu moves, expected 0",
               moves->size);
    position_list_free(moves);
    grundy_free(p);
}

LAB_TEST(task0, moves_of_multi_heap_positions)
{
    expect_moves(LAB_HEAPS(3, 3));
    expect_moves(LAB_HEAPS(4, 4, 4));
    expect_moves(LAB_HEAPS(3, 5, 8, 8));
    expect_moves(LAB_HEAPS(7, 10));
    expect_moves(LAB_HEAPS(6, 6, 12, 5, 1));
    unsigned seed = 99;
    for (int round = 0; round < 60; round++) {
        int heaps[6];
        size_t n = 1 + lab_random(&seed) % 6;
        for (size_t i = 0; i < n; i++)
            heaps[i] = 1 + (int)(lab_random(&seed) % 16);
        expect_moves(heaps, n);
    }
}

LAB_TEST(task0, moves_two_levels_deep)
{
    /* The moves of every move: checks that moves are themselves valid,
     * independent positions the list owns. */
    const int starts[][2] = {{8, 9}, {12, 12}, {10, 3}};
    for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
        grundy_position *p = lab_build(starts[s], 2);
        lab_trace("grundy_get_moves(%s)", lab_heaps_text(starts[s], 2));
        position_list *moves = grundy_get_moves(p);
        lab_expect_made(moves, SECTION_MOVES, "grundy_get_moves(%s)", lab_heaps_text(starts[s], 2));
        for (size_t i = 0; i < moves->size; i++) {
            int heaps[LAB_MAX_HEAPS];
            size_t n = lab_expand(moves->items[i], heaps, "a move");
            expect_moves(heaps, n);
        }
        position_list_free(moves);
        grundy_free(p);
    }
}

LAB_TEST(task0, nothing_leaks)
{
    size_t before = alloc_live_blocks();
    grundy_position *p = lab_build(LAB_HEAPS(9, 14, 14, 6));
    lab_trace("grundy_copy({6=1, 9=1, 14=2}), then grundy_get_moves of the copy");
    grundy_position *c = grundy_copy(p);
    lab_trace("grundy_get_moves of the copy of {6=1, 9=1, 14=2}");
    position_list *moves = grundy_get_moves(c);
    lab_expect_made(moves, SECTION_MOVES, "grundy_get_moves({6=1, 9=1, 14=2})");
    lab_trace("adding and removing one heap of each height 3 to 29 on the copy");
    for (int h = 3; h < 30; h++)
        grundy_add_heap(c, h);
    for (int h = 3; h < 30; h++)
        grundy_remove_heap(c, h);
    char *text = grundy_to_string(c);
    free(text);
    lab_trace("freeing the moves, the copy and {6=1, 9=1, 14=2}");
    position_list_free(moves);
    grundy_free(c);
    grundy_free(p);
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_MAP,
               "%zu heap block(s) still allocated after building, copying and expanding "
               "{6=1, 9=1, 14=2} and freeing everything; grundy_free must free the entries "
               "and the position (run `make memcheck` to see where they were allocated)",
               after - before);
}
