/*
 * test_task0.c - Task 0: the heap-count map, equality and hashing, and the
 * moves of a position.
 *
 * Expected answers come from the oracle (reference/oracle), which shares no
 * code with any solution, or from hand-derived cases spelled out in the
 * comments. Every position a student's function returns is first checked
 * against the representation invariant.
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
                   "grundy_count(grundy_new(%d), %d) returned %d, expected 1", h, h,
                   grundy_count(p, h));
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
            char name[128];
            snprintf(name, sizeof name, "after adding heaps %s one by one",
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
                   "grundy_count({3=1, 5=1, 9=3}, %d) returned %d, expected %d", heights[i], got,
                   counts[i]);
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
            for (size_t i = 0; i < n; i++) {
                if (heaps[i] == h) {
                    heaps[i] = heaps[--n];
                    break;
                }
            }
            char name[160];
            snprintf(name, sizeof name, "after grundy_remove_heap(p, %d) (removing an absent height changes nothing)", h);
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
}

LAB_TEST(task0, free_null_is_a_no_op)
{
    lab_trace("grundy_free(NULL)");
    grundy_free(NULL);
    position_list_free(NULL);
    grundy_position *p = grundy_new(5);
    LAB_EXPECT(p != NULL, SECTION_MAP, "grundy_new(5) returned NULL");
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
               "returned false, expected true");
    LAB_EXPECT(grundy_equals(b, a), SECTION_EQUALITY, "grundy_equals is not symmetric");
    LAB_EXPECT(grundy_equals(a, a), SECTION_EQUALITY, "grundy_equals(p, p) returned false");
    LAB_EXPECT(!grundy_equals(a, c), SECTION_EQUALITY,
               "grundy_equals({3=2, 5=1, 8=1}, {3=1, 5=1, 8=1}) returned true; counts differ");
    LAB_EXPECT(!grundy_equals(a, d), SECTION_EQUALITY,
               "grundy_equals({3=2, 5=1, 8=1}, {3=2, 5=1, 9=1}) returned true; heights differ");
    grundy_position *empty = lab_build(LAB_HEAPS(1, 2, 2));
    grundy_position *none = lab_build(NULL, 0);
    lab_trace("grundy_equals({}, {}), one built from the heaps 1, 2, 2");
    LAB_EXPECT(grundy_equals(empty, none), SECTION_EQUALITY,
               "grundy_equals(heaps 1,2,2, no heaps) returned false; both are the empty position {}");
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
        LAB_EXPECT(copy != NULL, SECTION_MAP, "grundy_copy returned NULL");
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
    size_t made = 0;
    for (int a = 3; a < 23 && made < POSITIONS; a++)
        for (int b = a; b < a + 10 && made < POSITIONS; b++) {
            grundy_position *p = lab_build(LAB_HEAPS(a, b));
            hashes[made++] = grundy_hash(p);
            grundy_free(p);
        }
    size_t distinct = 0;
    for (size_t i = 0; i < made; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = hashes[j] == hashes[i];
        distinct += !seen;
    }
    LAB_EXPECT(distinct >= made / 2, SECTION_EQUALITY,
               "%zu two-heap positions {a, b} (3 <= a <= b < a + 10) got only %zu distinct hashes; "
               "mix both height and count of every entry into the hash",
               made, distinct);
}

/* Checks grundy_get_moves(p) against the oracle: every move valid, each
 * distinct position exactly once, none missing. */
static void expect_moves(const int *heaps, size_t n)
{
    const char *text = lab_heaps_text(heaps, n);
    grundy_position *p = lab_build(heaps, n);
    lab_trace("grundy_get_moves(%s)", text);
    position_list *moves = grundy_get_moves(p);
    LAB_EXPECT(moves != NULL, SECTION_MOVES, "grundy_get_moves(%s) returned NULL; return a list (empty when there is no move)", text);
    oracle_move_list *want = oracle_moves(heaps, n);
    bool *matched = calloc(want->count + 1, sizeof *matched);
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
    char what[256];
    snprintf(what, sizeof what, "the position after grundy_get_moves(%s) (it must not change)", text);
    expect_heaps(p, what, heaps, n, SECTION_MOVES);
    free(matched);
    oracle_move_list_free(want);
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
    LAB_EXPECT(p != NULL, SECTION_MAP, "grundy_new(7) returned NULL");
    position_list *moves = grundy_get_moves(p);
    LAB_EXPECT(moves != NULL, SECTION_MOVES, "grundy_get_moves({7=1}) returned NULL");
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
    LAB_EXPECT(moves != NULL, SECTION_MOVES, "grundy_get_moves({}) returned NULL; expected an empty list");
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
        LAB_EXPECT(moves != NULL, SECTION_MOVES, "grundy_get_moves returned NULL");
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
    position_list *moves = grundy_get_moves(c);
    LAB_EXPECT(moves != NULL, SECTION_MOVES, "grundy_get_moves({6=1, 9=1, 14=2}) returned NULL");
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
