/*
 * test_oracle.c - self-tests for the reference oracle (reference/oracle).
 *
 * The lab's tests trust the oracle for expected answers, so the oracle is
 * checked here against published data (OEIS A002188 and Flammenkamp's list
 * of sparse values, read from GRUNDY_DATA_DIR, default "tests/staff/data"),
 * against hand-derived cases, and against itself: the XOR rule and the
 * game-tree search are two independent ways to decide P/N and must agree.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

/* ---- helpers ---- */

static void release_caches(void)
{
    oracle_nim_table_free();
    oracle_search_reset();
}

TestSuite(oracle, .fini = release_caches);

/* Readable text for a heap array, for assertion messages. Uses rotating
 * static buffers so that two can appear in one message; tests are single
 * threaded. */
static const char *show(const int *heaps, size_t n)
{
    static char bufs[4][512];
    static int next;
    char *b = bufs[next];
    next = (next + 1) % 4;
    size_t used = 0;
    used += (size_t)snprintf(b + used, sizeof bufs[0] - used, "[");
    for (size_t i = 0; i < n && used < sizeof bufs[0] - 16; i++)
        used += (size_t)snprintf(b + used, sizeof bufs[0] - used, "%s%d",
                                 i ? ", " : "", heaps[i]);
    snprintf(b + used, sizeof bufs[0] - used, "]");
    return b;
}

/* A small deterministic generator, so the "random" positions are the same
 * on every libc. */
static uint32_t rng_state = 20261123u;

static uint32_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static int rng_between(int lo, int hi)
{
    return lo + (int)(rng_next() % (uint32_t)(hi - lo + 1));
}

static bool is_sparse_value(int g)
{
    unsigned v = (unsigned)g & ~1u;
    int bits = 0;
    for (; v != 0; v >>= 1)
        bits += (int)(v & 1u);
    return bits % 2 == 0;
}

/* ---- data files ---- */

typedef struct {
    int *n;
    int *value;
    size_t count;
    long complete_up_to;    /* -1 when the file does not say */
} data_file;

static void data_path(char *out, size_t size, const char *name)
{
    const char *dir = getenv("GRUNDY_DATA_DIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "tests/staff/data";
    snprintf(out, size, "%s/%s", dir, name);
}

/* Reads "n value" lines, skipping '#' comments but noting a
 * "# complete-up-to: N" line. A missing or malformed file fails the test
 * with a message saying which file and why. */
static data_file load_data(const char *name)
{
    char path[1024];
    data_path(path, sizeof path, name);
    FILE *f = fopen(path, "r");
    cr_assert(f != NULL,
              "cannot open data file '%s': %s (run from the repository root "
              "or set GRUNDY_DATA_DIR to the directory holding %s)",
              path, strerror(errno), name);

    data_file d = { NULL, NULL, 0, -1 };
    size_t cap = 0;
    char line[512];
    int lineno = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        lineno++;
        if (line[0] == '#') {
            long bound;
            if (sscanf(line, "# complete-up-to: %ld", &bound) == 1)
                d.complete_up_to = bound;
            continue;
        }
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        int n, v;
        char extra;
        int got = sscanf(line, "%d %d %c", &n, &v, &extra);
        cr_assert(got == 2, "%s line %d: expected \"n value\", got \"%s\"",
                  path, lineno, line);
        if (d.count == cap) {
            cap = cap ? 2 * cap : 256;
            d.n = realloc(d.n, cap * sizeof *d.n);
            d.value = realloc(d.value, cap * sizeof *d.value);
            cr_assert(d.n != NULL && d.value != NULL, "out of memory");
        }
        d.n[d.count] = n;
        d.value[d.count] = v;
        d.count++;
    }
    fclose(f);
    return d;
}

static void free_data(data_file *d)
{
    free(d->n);
    free(d->value);
}

/* ---- (a) nim values against OEIS A002188 ---- */

Test(oracle, nim_values_match_oeis_a002188)
{
    data_file d = load_data("a002188_oeis.txt");
    cr_assert(d.count == 105,
              "a002188_oeis.txt: expected 105 terms (n = 0..104), found %zu",
              d.count);
    for (size_t i = 0; i < d.count; i++) {
        cr_assert(d.n[i] == (int)i,
                  "a002188_oeis.txt: line %zu of data should be n = %zu, "
                  "found n = %d", i + 1, i, d.n[i]);
        int got = oracle_nim_value(d.n[i]);
        cr_assert(got == d.value[i],
                  "oracle_nim_value(%d): expected %d (OEIS A002188), got %d",
                  d.n[i], d.value[i], got);
    }
    free_data(&d);
}

Test(oracle, nim_values_fast_path_matches_definition)
{
    /* the table's sparse-space shortcut against the plain mex */
    for (int n = 0; n <= 3000; n++) {
        int expected = oracle_nim_value_by_definition(n);
        int got = oracle_nim_value(n);
        cr_assert(got == expected,
                  "oracle_nim_value(%d): expected %d (mex by definition), "
                  "got %d", n, expected, got);
    }
    for (int n = 19950; n <= 20000; n++) {
        int expected = oracle_nim_value_by_definition(n);
        int got = oracle_nim_value(n);
        cr_assert(got == expected,
                  "oracle_nim_value(%d): expected %d (mex by definition), "
                  "got %d", n, expected, got);
    }
}

/* The table computes heights in blocks of 16 and takes shortcuts that only
 * pay off past the last rare value (82,860, so from 2 x 82,860 on every
 * rare pair gives a common value): sample the plain mex across all of
 * that, every block position included, up to 200,000. */
Test(oracle, nim_values_sampled_against_definition_up_to_200000)
{
    for (int n = 3001; n <= 200000; n += 997 + n % 16) {
        int expected = oracle_nim_value_by_definition(n);
        int got = oracle_nim_value(n);
        cr_assert(got == expected,
                  "oracle_nim_value(%d): expected %d (mex by definition), "
                  "got %d", n, expected, got);
    }
    for (int n = 165700; n <= 165760; n++) {
        int expected = oracle_nim_value_by_definition(n);
        cr_assert(oracle_nim_value(n) == expected,
                  "oracle_nim_value(%d): expected %d (mex by definition), "
                  "got %d", n, expected, oracle_nim_value(n));
    }
}

/* Blocks are cut where the requests fall, so the table must not depend on
 * the order of the questions: one request for 60,000 against requests in
 * uneven steps (blocks of every size, and values that outgrow the flag
 * rows in the middle of a block). */
Test(oracle, nim_table_same_in_any_request_order)
{
    enum { TOP = 60000 };
    static int once[TOP + 1];
    oracle_nim_table_free();
    (void)oracle_nim_value(TOP);
    for (int n = 0; n <= TOP; n++)
        once[n] = oracle_nim_value(n);
    oracle_nim_table_free();
    rng_state = 99u;
    for (int n = 0; n <= TOP; n += rng_between(1, 40)) {
        int got = oracle_nim_value(n);
        cr_assert(got == once[n],
                  "oracle_nim_value(%d) asked in uneven steps: %d, asked "
                  "after one request for %d: %d", n, got, TOP, once[n]);
    }
    for (int n = 0; n <= TOP; n++)
        cr_assert(oracle_nim_value(n) == once[n],
                  "oracle_nim_value(%d) asked in uneven steps: %d, asked "
                  "after one request for %d: %d", n, oracle_nim_value(n),
                  TOP, once[n]);
}

/* On a CPU with AVX2 the split scan uses a bitmap of targets
 * (nim_scan_avx2.c); elsewhere, or when it is turned off, a portable scan
 * (nim_scan.c). Both must give the same table. */
Test(oracle, nim_table_same_with_and_without_avx2)
{
    enum { TOP = 120000 };
    static int with[TOP + 1];
    oracle_nim_table_free();
    for (int n = 0; n <= TOP; n++)
        with[n] = oracle_nim_value(n);
    oracle_nim_table_free();
    oracle_nim_allow_avx2(false);
    for (int n = TOP; n >= 0; n--) {
        int without = oracle_nim_value(n);
        if (without != with[n])
            oracle_nim_allow_avx2(true);
        cr_assert(without == with[n],
                  "oracle_nim_value(%d): %d with the AVX2 scan allowed, %d without",
                  n, with[n], without);
    }
    oracle_nim_allow_avx2(true);
}

Test(oracle, nim_table_survives_free_and_rebuild)
{
    int before[400];
    for (int n = 0; n < 400; n++)
        before[n] = oracle_nim_value(n);
    oracle_nim_table_free();
    oracle_nim_table_free();    /* freeing twice must be harmless */
    /* ask for a big one first, then the small ones again */
    int big = oracle_nim_value(399);
    cr_assert(big == before[399],
              "oracle_nim_value(399) after free: expected %d, got %d",
              before[399], big);
    for (int n = 0; n < 400; n++) {
        int got = oracle_nim_value(n);
        cr_assert(got == before[n],
                  "oracle_nim_value(%d) after free: expected %d, got %d",
                  n, before[n], got);
    }
}

Test(oracle, is_p_uses_xor_of_values)
{
    struct { int heaps[6]; size_t n; bool p; } cases[] = {
        { {0}, 0, true },               /* no heaps: no move */
        { {1, 2, 2, 1}, 4, true },      /* only dead heaps */
        { {3}, 1, false },              /* g = 1 */
        { {4}, 1, true },               /* g = 0 */
        { {7}, 1, true },               /* g = 0 */
        { {3, 3}, 2, true },            /* 1 ^ 1 */
        { {3, 5}, 2, false },           /* 1 ^ 2 */
        { {5, 11, 4}, 3, true },        /* 2 ^ 2 ^ 0 */
        { {5, 6, 7}, 3, false },        /* 2 ^ 1 ^ 0 */
        { {13, 19, 2}, 3, true },       /* 3 ^ 3 ^ 0 */
        { {18, 8, 6}, 3, false },       /* 4 ^ 2 ^ 1 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool got = oracle_is_p(cases[i].heaps, cases[i].n);
        cr_assert(got == cases[i].p, "oracle_is_p(%s): expected %s, got %s",
                  show(cases[i].heaps, cases[i].n),
                  cases[i].p ? "P" : "N", got ? "P" : "N");
    }
}

/* ---- (b) sparse / common classes against Flammenkamp's list ---- */

Test(oracle, sparse_values_match_flammenkamp)
{
    data_file d = load_data("grundy_sparse_flammenkamp.txt");
    cr_assert(d.complete_up_to >= 0,
              "grundy_sparse_flammenkamp.txt: no \"# complete-up-to: N\" "
              "header line, so it is unknown which heights it covers");
    long bound = d.complete_up_to < 20000 ? d.complete_up_to : 20000;

    /* every listed entry: ascending, a sparse value, equal to the oracle */
    for (size_t i = 0; i < d.count; i++) {
        cr_assert(i == 0 || d.n[i] > d.n[i - 1],
                  "grundy_sparse_flammenkamp.txt: n = %d listed after n = %d"
                  " (expected strictly ascending)", d.n[i], d.n[i - 1]);
        cr_assert(is_sparse_value(d.value[i]),
                  "grundy_sparse_flammenkamp.txt: G(%d) = %d is listed but is"
                  " not a sparse value (expected popcount(G & ~1) even)",
                  d.n[i], d.value[i]);
        int got = oracle_nim_value(d.n[i]);
        cr_assert(got == d.value[i],
                  "oracle_nim_value(%d): expected %d (Flammenkamp), got %d",
                  d.n[i], d.value[i], got);
    }

    /* every height up to the bound: listed exactly when its value is sparse */
    size_t next = 0;
    for (long n = 0; n <= bound; n++) {
        while (next < d.count && d.n[next] < n)
            next++;
        bool listed = next < d.count && d.n[next] == n;
        int g = oracle_nim_value((int)n);
        bool sparse = is_sparse_value(g);
        cr_assert(sparse == listed,
                  "height %ld: Flammenkamp's list (complete up to %ld) says "
                  "%s, but oracle_nim_value(%ld) = %d is %s", n, bound,
                  listed ? "sparse" : "common", n, g,
                  sparse ? "sparse" : "common");
    }
    free_data(&d);
}

/* ---- (c) the search agrees with the XOR rule ---- */

Test(oracle, search_agrees_with_nim_on_single_heaps)
{
    for (int h = 0; h <= 60; h++) {
        bool expected = oracle_is_p(&h, 1);
        bool got = oracle_search_is_p(&h, 1);
        cr_assert(got == expected,
                  "single heap %d: oracle_is_p says %s, oracle_search_is_p "
                  "says %s", h, expected ? "P" : "N", got ? "P" : "N");
    }
}

Test(oracle, search_agrees_with_nim_on_random_positions)
{
    rng_state = 20261123u;
    for (int trial = 0; trial < 400; trial++) {
        int heaps[5];
        size_t n = (size_t)rng_between(1, 5);
        for (size_t i = 0; i < n; i++)
            heaps[i] = rng_between(1, 25);
        bool expected = oracle_is_p(heaps, n);
        bool got = oracle_search_is_p(heaps, n);
        cr_assert(got == expected,
                  "position %s (trial %d): oracle_is_p says %s, "
                  "oracle_search_is_p says %s", show(heaps, n), trial,
                  expected ? "P" : "N", got ? "P" : "N");
        if (trial == 199)
            oracle_search_reset();  /* the rest starts from a cold memo */
    }
}

/* The fast search (pair cancellation, bitsets, move ordering) against the
 * plainest memoized search, which shares none of that and no nim values. */
Test(oracle, search_agrees_with_plain_search)
{
    for (int h = 0; h <= 42; h++) {
        bool plain = oracle_plain_search_is_p(&h, 1);
        oracle_search_reset();
        bool fast = oracle_search_is_p(&h, 1);
        cr_assert(fast == plain,
                  "single heap %d: oracle_plain_search_is_p says %s, "
                  "oracle_search_is_p says %s", h, plain ? "P" : "N",
                  fast ? "P" : "N");
    }
    int h = 30;
    (void)oracle_plain_search_is_p(&h, 1);
    cr_assert(oracle_plain_search_last_memo_size() > 30,
              "oracle_plain_search_last_memo_size() after heap 30: %zu, "
              "expected every position it expanded",
              oracle_plain_search_last_memo_size());
    rng_state = 4242u;
    for (int trial = 0; trial < 150; trial++) {
        int heaps[6];
        size_t n = (size_t)rng_between(2, 6);
        int total = 0;
        for (size_t i = 0; i < n; i++) {
            heaps[i] = rng_between(1, 14);
            total += heaps[i];
        }
        if (trial % 4 == 0)
            heaps[1] = heaps[0];    /* pairs, which the fast search cancels */
        if (total > 40)
            continue;
        bool plain = oracle_plain_search_is_p(heaps, n);
        bool fast = oracle_search_is_p(heaps, n);
        cr_assert(fast == plain,
                  "position %s (trial %d): oracle_plain_search_is_p says %s, "
                  "oracle_search_is_p says %s", show(heaps, n), trial,
                  plain ? "P" : "N", fast ? "P" : "N");
    }
}

Test(oracle, search_hand_cases_and_reset)
{
    struct { int heaps[4]; size_t n; bool p; } cases[] = {
        { {0}, 0, true },       /* nothing to move */
        { {1, 2}, 2, true },
        { {3}, 1, false },      /* 3 -> 1+2 and the opponent is stuck */
        { {4}, 1, true },       /* 4 -> 3 only, then 3 -> nothing */
        { {5}, 1, false },      /* 5 -> 1+4, leaving a P heap */
        { {3, 3}, 2, true },    /* the second player copies */
        { {9, 9, 9}, 3, false },/* same as one heap of 9 (g = 1) */
        { {8, 8}, 2, true },
    };
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            bool got = oracle_search_is_p(cases[i].heaps, cases[i].n);
            cr_assert(got == cases[i].p,
                      "oracle_search_is_p(%s), %s memo: expected %s, got %s",
                      show(cases[i].heaps, cases[i].n),
                      round ? "cold" : "warm-up",
                      cases[i].p ? "P" : "N", got ? "P" : "N");
        }
        oracle_search_reset();
        cr_assert(oracle_search_memo_size() == 0,
                  "memo size after oracle_search_reset: expected 0, got %zu",
                  oracle_search_memo_size());
    }
}

/* ---- (d) moves ---- */

static void expect_moves(const int *heaps, size_t n, const char *const *want,
                         size_t want_count)
{
    oracle_move_list *m = oracle_moves(heaps, n);
    cr_assert(m != NULL, "oracle_moves(%s) returned NULL", show(heaps, n));
    cr_assert(m->count == want_count,
              "oracle_moves(%s): expected %zu moves, got %zu",
              show(heaps, n), want_count, m->count);
    for (size_t i = 0; i < want_count; i++) {
        char *got = oracle_format(m->positions[i], m->lengths[i]);
        cr_assert(strcmp(got, want[i]) == 0,
                  "oracle_moves(%s) move %zu: expected %s, got %s",
                  show(heaps, n), i, want[i], got);
        free(got);
    }
    oracle_move_list_free(m);
}

Test(oracle, moves_hand_derived)
{
    /* 7 = 1+6 = 2+5 = 3+4; lexicographic: [3,4] < [5] < [6] */
    int h7[] = { 7 };
    const char *m7[] = { "{3=1, 4=1}", "{5=1}", "{6=1}" };
    expect_moves(h7, 1, m7, 3);

    int h4[] = { 4 };               /* 1+3 only: 2+2 is not a legal split */
    const char *m4[] = { "{3=1}" };
    expect_moves(h4, 1, m4, 1);

    int h3[] = { 3 };               /* 1+2: both parts dead */
    const char *m3[] = { "{}" };
    expect_moves(h3, 1, m3, 1);

    int h6[] = { 6 };               /* 1+5, 2+4; 3+3 is illegal */
    const char *m6[] = { "{4=1}", "{5=1}" };
    expect_moves(h6, 1, m6, 2);

    int h8[] = { 8 };               /* 1+7, 2+6, 3+5 */
    const char *m8[] = { "{3=1, 5=1}", "{6=1}", "{7=1}" };
    expect_moves(h8, 1, m8, 3);

    int h44[] = { 4, 4 };           /* either 4 gives the same result */
    const char *m44[] = { "{3=1, 4=1}" };
    expect_moves(h44, 2, m44, 1);

    int h33[] = { 3, 3 };
    const char *m33[] = { "{3=1}" };
    expect_moves(h33, 2, m33, 1);

    int h34[] = { 3, 4 };           /* split 3 -> [4]; split 4 -> [3,3] */
    const char *m34[] = { "{3=2}", "{4=1}" };
    expect_moves(h34, 2, m34, 2);

    /* 6 -> 1+5, 2+4; 5 -> 1+4, 2+3; given unsorted with dead heaps */
    int h56[] = { 6, 1, 5, 2 };
    const char *m56[] = { "{3=1, 6=1}", "{4=1, 5=1}", "{4=1, 6=1}",
                          "{5=2}" };
    expect_moves(h56, 4, m56, 4);

    int h557[] = { 5, 7, 5 };       /* 5 -> 1+4, 2+3; 7 -> 1+6, 2+5, 3+4 */
    const char *m557[] = { "{3=1, 4=1, 5=2}", "{3=1, 5=1, 7=1}",
                           "{4=1, 5=1, 7=1}", "{5=3}", "{5=2, 6=1}" };
    expect_moves(h557, 3, m557, 5);
}

Test(oracle, moves_of_terminal_positions)
{
    int dead[] = { 1, 2, 0, 2, 1 };
    for (size_t n = 0; n <= 5; n++) {
        oracle_move_list *m = oracle_moves(dead, n);
        cr_assert(m != NULL && m->count == 0,
                  "oracle_moves(%s): expected 0 moves, got %zu",
                  show(dead, n), m ? m->count : 0);
        oracle_move_list_free(m);
    }
    oracle_move_list_free(NULL);    /* no-op */
}

/* The split h -> a + (h-a) applied to `heaps`, canonical, built the slow
 * obvious way: copy, replace, canonicalize. */
static size_t apply_split(const int *heaps, size_t n, size_t which, int a,
                          int *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (i != which)
            out[k++] = heaps[i];
    out[k++] = a;
    out[k++] = heaps[which] - a;
    return oracle_canonicalize(out, k);
}

static void check_move_properties(const int *heaps, size_t n)
{
    int start[16];
    memcpy(start, heaps, n * sizeof *start);
    size_t len = oracle_canonicalize(start, n);

    int copy[16];
    memcpy(copy, heaps, n * sizeof *copy);
    oracle_move_list *m = oracle_moves(copy, n);
    cr_assert(memcmp(copy, heaps, n * sizeof *copy) == 0,
              "oracle_moves(%s) changed its input to %s", show(heaps, n),
              show(copy, n));

    /* one move per distinct height and legal split */
    size_t expected_count = 0;
    long start_total = 0;
    for (size_t i = 0; i < len; i++) {
        start_total += start[i];
        if (i == 0 || start[i] != start[i - 1])
            expected_count += (size_t)(start[i] - 1) / 2;
    }
    cr_assert(m->count == expected_count,
              "oracle_moves(%s): expected %zu moves (sum of (h-1)/2 over "
              "distinct heights), got %zu", show(heaps, n), expected_count,
              m->count);

    int xor_start = 0;
    for (size_t i = 0; i < len; i++)
        xor_start ^= oracle_nim_value(start[i]);
    bool seen_value[64] = { false };
    bool some_move_is_p = false;

    for (size_t i = 0; i < m->count; i++) {
        const int *mv = m->positions[i];
        size_t ml = m->lengths[i];
        long total = 0;
        for (size_t j = 0; j < ml; j++) {
            cr_assert(mv[j] >= 3, "oracle_moves(%s) move %s: expected only "
                      "heights >= 3, found %d", show(heaps, n), show(mv, ml),
                      mv[j]);
            cr_assert(j == 0 || mv[j - 1] <= mv[j], "oracle_moves(%s) move "
                      "%s: expected ascending order", show(heaps, n),
                      show(mv, ml));
            total += mv[j];
        }
        /* a split loses only the dead parts: nothing, 1, 2, or 1+2 */
        cr_assert(total <= start_total && start_total - total <= 3,
                  "oracle_moves(%s) move %s: expected a total height of "
                  "%ld minus 0..3, got %ld", show(heaps, n), show(mv, ml),
                  start_total, total);
        cr_assert(ml + 1 >= len && ml <= len + 1,
                  "oracle_moves(%s) move %s: expected %zu heaps +- 1, got %zu",
                  show(heaps, n), show(mv, ml), len, ml);
        if (i > 0) {
            int c = oracle_compare(m->positions[i - 1], m->lengths[i - 1],
                                   mv, ml);
            cr_assert(c < 0, "oracle_moves(%s): move %zu %s should sort "
                      "strictly after move %zu %s", show(heaps, n), i,
                      show(mv, ml), i - 1,
                      show(m->positions[i - 1], m->lengths[i - 1]));
        }

        /* exactly one (heap, split) produces it */
        int matches = 0;
        for (size_t w = 0; w < len; w++) {
            if (w > 0 && start[w] == start[w - 1])
                continue;
            for (int a = 1; a < start[w] - a; a++) {
                int built[18];
                size_t bl = apply_split(start, len, w, a, built);
                if (oracle_compare(built, bl, mv, ml) == 0)
                    matches++;
            }
        }
        cr_assert(matches == 1, "oracle_moves(%s) move %s: expected it to "
                  "come from exactly 1 split, it comes from %d",
                  show(heaps, n), show(mv, ml), matches);

        int x = 0;
        for (size_t j = 0; j < ml; j++)
            x ^= oracle_nim_value(mv[j]);
        if (x < 64)
            seen_value[x] = true;
        if (x == 0)
            some_move_is_p = true;
    }

    /* the nim value of the start is the mex over its moves, so the XOR
     * rule and the move generator must fit together */
    int mex = 0;
    while (mex < 64 && seen_value[mex])
        mex++;
    cr_assert(mex == xor_start,
              "position %s: XOR of nim values is %d but the mex over its "
              "moves is %d", show(heaps, n), xor_start, mex);
    cr_assert(oracle_is_p(heaps, n) == !some_move_is_p,
              "position %s: oracle_is_p says %s but %s of its moves is P",
              show(heaps, n), oracle_is_p(heaps, n) ? "P" : "N",
              some_move_is_p ? "one" : "none");
    oracle_move_list_free(m);
}

Test(oracle, moves_generic_properties)
{
    for (int h = 0; h <= 40; h++)
        check_move_properties(&h, 1);
    rng_state = 7u;
    for (int trial = 0; trial < 300; trial++) {
        int heaps[6];
        size_t n = (size_t)rng_between(1, 6);
        for (size_t i = 0; i < n; i++)
            heaps[i] = rng_between(1, 20);
        if (trial % 3 == 0 && n >= 2)
            heaps[1] = heaps[0];        /* make sure duplicates occur */
        check_move_properties(heaps, n);
    }
}

/* ---- (e) formatting ---- */

Test(oracle, format_examples)
{
    struct { int heaps[8]; size_t n; const char *want; } cases[] = {
        { {0}, 0, "{}" },
        { {1, 2, 2, 0}, 4, "{}" },
        { {3}, 1, "{3=1}" },
        { {4, 3}, 2, "{3=1, 4=1}" },
        { {5, 3, 3}, 3, "{3=2, 5=1}" },
        { {10, 9, 1, 10}, 4, "{9=1, 10=2}" },   /* numeric, not text order */
        { {100, 3, 100, 2, 100}, 5, "{3=1, 100=3}" },
        { {123456789}, 1, "{123456789=1}" },
        { {7, 7, 7, 7, 7, 7, 7, 7}, 8, "{7=8}" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int before[8];
        memcpy(before, cases[i].heaps, sizeof before);
        char *got = oracle_format(cases[i].heaps, cases[i].n);
        cr_assert(got != NULL && strcmp(got, cases[i].want) == 0,
                  "oracle_format(%s): expected \"%s\", got \"%s\"",
                  show(cases[i].heaps, cases[i].n), cases[i].want,
                  got ? got : "(NULL)");
        cr_assert(memcmp(before, cases[i].heaps, sizeof before) == 0,
                  "oracle_format(%s) changed its input",
                  show(before, cases[i].n));
        free(got);
    }
}

/* ---- (f) counting reachable positions ---- */

Test(oracle, count_reachable_hand_counted)
{
    struct { int heaps[4]; size_t n; size_t want; const char *why; } cases[] = {
        { {0}, 0, 0, "empty" },
        { {1, 2}, 2, 0, "only dead heaps" },
        { {3}, 1, 1, "[3]" },
        { {4}, 1, 2, "[4] [3]" },
        { {5}, 1, 3, "[5] [4] [3]" },
        { {6}, 1, 4, "[6] [5] [4] [3]" },
        { {7}, 1, 7, "[7] [6] [5] [3,4] [4] [3,3] [3]" },
        { {8}, 1, 9, "those of 7 plus [8] [3,5]" },
        { {3, 3}, 2, 2, "[3,3] [3]" },
        { {4, 4}, 2, 5, "[4,4] [3,4] [4] [3,3] [3]" },
        { {2, 4, 1}, 3, 2, "dead heaps ignored: [4] [3]" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t got = oracle_count_reachable_nonterminal(cases[i].heaps,
                                                        cases[i].n);
        cr_assert(got == cases[i].want,
                  "oracle_count_reachable_nonterminal(%s): expected %zu (%s),"
                  " got %zu", show(cases[i].heaps, cases[i].n),
                  cases[i].want, cases[i].why, got);
    }
}

/* An independent count for small positions: breadth-first over
 * oracle_moves with a plain list and linear search instead of a hash
 * table. */
static size_t count_by_list(const int *heaps, size_t n)
{
    size_t cap = 4096, count = 0;
    int (*pos)[24] = malloc(cap * sizeof *pos);
    size_t *len = malloc(cap * sizeof *len);
    cr_assert(pos != NULL && len != NULL, "out of memory");
    memcpy(pos[0], heaps, n * sizeof(int));
    len[0] = oracle_canonicalize(pos[0], n);
    if (len[0] > 0)
        count = 1;
    for (size_t at = 0; at < count; at++) {
        oracle_move_list *m = oracle_moves(pos[at], len[at]);
        for (size_t i = 0; i < m->count; i++) {
            if (m->lengths[i] == 0)
                continue;
            bool known = false;
            for (size_t j = 0; j < count && !known; j++)
                known = oracle_compare(pos[j], len[j], m->positions[i],
                                       m->lengths[i]) == 0;
            if (known)
                continue;
            cr_assert(count < cap && m->lengths[i] <= 24,
                      "count_by_list: test buffer too small");
            memcpy(pos[count], m->positions[i],
                   m->lengths[i] * sizeof(int));
            len[count] = m->lengths[i];
            count++;
        }
        oracle_move_list_free(m);
    }
    free(pos);
    free(len);
    return count;
}

Test(oracle, count_reachable_matches_plain_list_count)
{
    for (int h = 0; h <= 16; h++) {
        size_t expected = count_by_list(&h, 1);
        size_t got = oracle_count_reachable_nonterminal(&h, 1);
        cr_assert(got == expected,
                  "oracle_count_reachable_nonterminal([%d]): expected %zu "
                  "(list-based count), got %zu", h, expected, got);
    }
    int pairs[][3] = { {5, 5, 0}, {6, 4, 3}, {7, 7, 7}, {9, 3, 1} };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        size_t expected = count_by_list(pairs[i], 3);
        size_t got = oracle_count_reachable_nonterminal(pairs[i], 3);
        cr_assert(got == expected,
                  "oracle_count_reachable_nonterminal(%s): expected %zu "
                  "(list-based count), got %zu", show(pairs[i], 3),
                  expected, got);
    }
}

Test(oracle, count_reachable_reduced_hand_counted)
{
    /* Pairs of equal heaps are dropped before a position is counted, so
     * [3,3] is {} (not counted) and [4,4,5] is [5]. */
    struct { int heaps[4]; size_t n; size_t want; const char *why; } cases[] = {
        { {0}, 0, 0, "empty" },
        { {3, 3}, 2, 0, "a pair: {}" },
        { {4, 4}, 2, 0, "a pair: {}" },
        { {7}, 1, 6, "[7] [6] [5] [3,4] [4] [3] ([3,3] is {})" },
        { {8}, 1, 8, "[8] [7] [6] [5] [3,5] [3,4] [4] [3]" },
        { {4, 4, 5}, 3, 3, "reduced to [5]: [5] [4] [3]" },
        { {5, 5, 5}, 3, 3, "reduced to [5]" },
        { {2, 7, 1}, 3, 6, "dead heaps ignored: as [7]" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t got = oracle_count_reachable_reduced(cases[i].heaps, cases[i].n);
        cr_assert(got == cases[i].want,
                  "oracle_count_reachable_reduced(%s): expected %zu (%s), got %zu",
                  show(cases[i].heaps, cases[i].n), cases[i].want, cases[i].why, got);
    }
}

Test(oracle, count_reachable_reduced_ignores_pairs)
{
    /* A pair changes nothing once positions are reduced, and reducing
     * never makes more positions than the plain count. */
    for (int x = 3; x <= 18; x++) {
        for (int h = 3; h <= 9; h += 3) {
            int with_pair[3] = {h, x, h};
            size_t plain = oracle_count_reachable_reduced(&x, 1);
            size_t paired = oracle_count_reachable_reduced(with_pair, 3);
            cr_assert(paired == plain,
                      "oracle_count_reachable_reduced(%s) = %zu, but [%d] alone gives %zu",
                      show(with_pair, 3), paired, x, plain);
            cr_assert(plain <= oracle_count_reachable_nonterminal(&x, 1),
                      "oracle_count_reachable_reduced([%d]) = %zu exceeds the plain count %zu", x,
                      plain, oracle_count_reachable_nonterminal(&x, 1));
        }
    }
}

/* ---- (g) canonicalize ---- */

Test(oracle, canonicalize_examples)
{
    struct {
        int in[8]; size_t n; int out[8]; size_t out_n;
    } cases[] = {
        { {0}, 0, {0}, 0 },
        { {1, 2, 0}, 3, {0}, 0 },
        { {5, 1, 3, 2, 4}, 5, {3, 4, 5}, 3 },
        { {4, 3, 4}, 3, {3, 4, 4}, 3 },         /* duplicates stay */
        { {-5, 7, -1}, 3, {7}, 1 },             /* nonsense heights dropped */
        { {3, 4, 9}, 3, {3, 4, 9}, 3 },         /* already canonical */
        { {9, 8, 7, 6, 5, 4, 3, 2}, 8, {3, 4, 5, 6, 7, 8, 9}, 7 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int a[8];
        memcpy(a, cases[i].in, sizeof a);
        size_t got = oracle_canonicalize(a, cases[i].n);
        cr_assert(got == cases[i].out_n &&
                  memcmp(a, cases[i].out, got * sizeof *a) == 0,
                  "oracle_canonicalize(%s): expected %s, got %s",
                  show(cases[i].in, cases[i].n),
                  show(cases[i].out, cases[i].out_n), show(a, got));
    }
    cr_assert(oracle_canonicalize(NULL, 0) == 0,
              "oracle_canonicalize(NULL, 0): expected 0");
}

Test(oracle, compare_is_lexicographic)
{
    int e[1] = { 0 }, a[] = { 3 }, b[] = { 3, 4 }, c[] = { 4 }, d[] = { 3, 5 };
    cr_assert(oracle_compare(e, 0, a, 1) < 0, "[] should sort before [3]");
    cr_assert(oracle_compare(a, 1, b, 2) < 0, "[3] should sort before [3, 4]");
    cr_assert(oracle_compare(b, 2, c, 1) < 0, "[3, 4] should sort before [4]");
    cr_assert(oracle_compare(b, 2, d, 2) < 0,
              "[3, 4] should sort before [3, 5]");
    cr_assert(oracle_compare(d, 2, d, 2) == 0, "[3, 5] should equal itself");
    cr_assert(oracle_compare(c, 1, a, 1) > 0, "[4] should sort after [3]");
}
