/*
 * nim_values.c - Sprague-Grundy values g(n) of single heaps, and the XOR
 * rule for whole positions.
 *
 * g(n) is the mex of g(a) ^ g(n - a) over the splits 1 <= a < n - a. Going
 * straight from that definition costs n/2 steps per height, too slow for
 * the millions of heights the CLI and the benchmarks ask for. The table
 * uses the "sparse space" observation of Winning Ways (ch. 4), as
 * described on Flammenkamp's page: call a value rare when the number of 1
 * bits of (value & ~1) is even, common otherwise. That parity adds up
 * under XOR, so a split reaches a common value only if one of its parts
 * has a rare value, and rare values are scarce among the g(n) (about 1300
 * heights below 10^6, none above 82,860 there). So, for each height:
 *
 *   1. every split with a part of rare value is tried ("rare pairs"): that
 *      gives every reachable common value, hence the candidate c, the
 *      smallest common value no split reaches;
 *   2. g(n) is c unless a rare value below c is unreachable, so those rare
 *      values become targets, and the splits are scanned until each one
 *      is reached (nim_scan.c). A target left over is the answer instead.
 *
 * Nothing here assumes rare values die out: in the worst case step 2
 * scans every split and the answer is the plain mex.
 *
 * Step 1 costs about 1300 table reads per height, step 2 about 3000
 * splits (the last target is the slowest to turn up); both are made cheap
 * rather than avoided. Step 1 is done for BLOCK heights at once: a rare
 * height r far enough below the block pairs with BLOCK consecutive, known
 * heights, read in one vector instead of one scattered read per height.
 * Step 2 reads the near halves of the splits ascending from `table` and
 * the far halves ascending from `rev`, a reversed copy, so that both are
 * vector loads (nim_scan.c, nim_scan_avx2.c). Values are 16 bits (the
 * largest below 2^24 is 256; a value that does not fit aborts with a
 * message), so the two copies take 4 bytes per height.
 *
 * tests/staff/selftest/test_oracle.c checks the table against OEIS A002188,
 * Flammenkamp's list, the plain mex of oracle_nim_value_by_definition(),
 * itself built in other orders, and with the portable scan.
 */
#include "oracle.h"
#include "nim_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    BLOCK = 16,           /* heights computed together */
    ROW = 1024,           /* bytes per flags row while values stay below it */
    MAX_VALUE = 0xFFFE    /* 0xFFFF marks empty slots in nim_scan.c */
};

/* 16 heights' values at once (GCC vector extension; plain SSE2 will do) */
typedef uint16_t u16x16 __attribute__((vector_size(2 * BLOCK)));

static uint16_t *table;     /* table[h] = g(h) for h < table_len */
static uint16_t *rev;       /* rev[table_cap - 1 - h] = table[h] */
static size_t table_len, table_cap;

static uint32_t *rare_height;   /* heights >= 1 whose value is rare, ascending */
static uint16_t *rare_value;    /* and their values */
static size_t rare_len, rare_cap;

/* One row per height of the block, indexed by value: nim_scan.h's flags. */
static uint8_t *flags;
static size_t row_len;

/* Every value so far is below this power of two, so every XOR of two of
 * them is too, and so is every reachable value. From 4 on the bound is
 * itself a common value (one 1 bit above the lowest), which caps the
 * search for the candidate at value_bound. */
#define MIN_VALUE_BOUND 4u
static unsigned value_bound = MIN_VALUE_BOUND;

static bool is_rare(unsigned v)
{
    return !__builtin_parity(v & ~1u);
}

void oracle_out_of_memory(const char *what)
{
    fprintf(stderr, "oracle: out of memory (%s)\n", what);
    abort();
}

static void *grow_array(void *p, size_t count, size_t size, const char *what)
{
    p = realloc(p, count * size);
    if (p == NULL)
        oracle_out_of_memory(what);
    return p;
}

/* The first index i with rare_height[i] >= h. */
static size_t rare_index(size_t h)
{
    size_t lo = 0, hi = rare_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rare_height[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void store(size_t h, unsigned v)
{
    if (v > MAX_VALUE) {
        fprintf(stderr, "oracle: g(%zu) = %u does not fit the 16-bit table\n", h, v);
        abort();
    }
    table[h] = (uint16_t)v;
    rev[table_cap - 1 - h] = (uint16_t)v;
    table_len = h + 1;
    if (h >= 1 && is_rare(v)) {
        if (rare_len == rare_cap) {
            rare_cap = rare_cap ? 2 * rare_cap : 256;
            rare_height = grow_array(rare_height, rare_cap, sizeof *rare_height, "rare heights");
            rare_value = grow_array(rare_value, rare_cap, sizeof *rare_value, "rare values");
        }
        rare_height[rare_len] = (uint32_t)h;
        rare_value[rare_len] = (uint16_t)v;
        rare_len++;
    }
}

/* Step 1 for the rare heights [first, end) and the block [n0, n0 + count):
 * every r there is >= BLOCK and < n0, so each n - r is a known height. */
static void mark_far(size_t n0, size_t count, size_t first, size_t end,
                     size_t skip_lo, size_t skip_hi)
{
    for (size_t i = first; i < end; i++) {
        size_t r = rare_height[i];
        if (r >= skip_lo && r < skip_hi)
            continue;   /* 2r is in the block: done per height, see below */
        unsigned rv = rare_value[i];
        const uint16_t *part = table + n0 - r;
        if (count == BLOCK && row_len == ROW) {
            /* the common case: the 16 values in one vector XOR, then 16
             * stores at constant row offsets */
            u16x16 x;
            uint16_t value[BLOCK];
            memcpy(&x, part, sizeof x);
            x ^= (u16x16){0} + (uint16_t)rv;
            memcpy(value, &x, sizeof value);
#define MARK(j) flags[(j) * ROW + value[j]] = NIM_REACHED;
            MARK(0) MARK(1) MARK(2) MARK(3) MARK(4) MARK(5) MARK(6) MARK(7)
            MARK(8) MARK(9) MARK(10) MARK(11) MARK(12) MARK(13) MARK(14) MARK(15)
#undef MARK
        } else {
            for (size_t j = 0; j < count; j++)
                flags[j * row_len + (rv ^ part[j])] = NIM_REACHED;
        }
    }
}

/* The rare pairs of n with a rare height in [first, end) of the list. */
static void mark_near(size_t n, uint8_t *row, size_t first, size_t end)
{
    for (size_t i = first; i < end && rare_height[i] < n; i++) {
        size_t r = rare_height[i];
        if (2 * r != n)     /* equal halves are not a legal split */
            row[rare_value[i] ^ table[n - r]] = NIM_REACHED;
    }
}

/* The part of the block's work that each height does alone. */
typedef struct {
    size_t far_first, far_end;      /* the far rare heights, as indices */
    size_t skip_first, skip_end;    /* the far ones mark_far skipped */
} block_plan;

/* g(n), given its flags row with the far rare pairs already marked. */
static unsigned finish(size_t n, uint8_t *row, const block_plan *plan)
{
    mark_near(n, row, 0, plan->far_first);
    mark_near(n, row, plan->skip_first, plan->skip_end);
    mark_near(n, row, plan->far_end, rare_len);
    unsigned c = 0;
    while (is_rare(c) || row[c] == NIM_REACHED)
        c++;
    size_t targets = 0;
    for (unsigned v = 0; v < c; v++)
        if (row[v] == NIM_NOT_REACHED) {
            row[v] = NIM_TARGET;
            targets++;
        }
    if (targets == 0 ||
        nim_scan_splits(table, rev + (table_cap - 1 - n), n, row, c, targets) == 0)
        return c;
    unsigned mex = 0;
    while (row[mex] == NIM_REACHED)
        mex++;
    return mex;
}

static void ensure_rows(void)
{
    size_t want = value_bound + 1 <= ROW ? ROW : value_bound + 1;
    if (row_len < want) {
        flags = grow_array(flags, BLOCK, want, "nim value flags");
        row_len = want;
    }
}

/* Computes g for the heights n0 .. n0 + count - 1, count <= BLOCK. */
static void compute_block(size_t n0, size_t count)
{
    ensure_rows();
    for (size_t j = 0; j < count; j++)
        memset(flags + j * row_len, NIM_NOT_REACHED, value_bound + 1);
    /* far rare heights: BLOCK <= r < n0, less those with 2r in the block */
    size_t far_hi = n0 > BLOCK ? n0 : BLOCK;
    size_t skip_lo = (n0 + 1) / 2, skip_hi = (n0 + count + 1) / 2;
    if (skip_lo < BLOCK)
        skip_lo = BLOCK;
    if (skip_hi > far_hi)
        skip_hi = far_hi;
    if (skip_hi < skip_lo)
        skip_hi = skip_lo;
    block_plan plan = { rare_index(BLOCK), rare_index(far_hi),
                        rare_index(skip_lo), rare_index(skip_hi) };
    mark_far(n0, count, plan.far_first, plan.far_end, skip_lo, skip_hi);
    for (size_t j = 0; j < count; j++) {
        size_t n = n0 + j;
        unsigned v = n < 3 ? 0 : finish(n, flags + j * row_len, &plan);
        store(n, v);
        if (v >= value_bound) {
            /* the later rows were cleared and marked for a smaller bound */
            while (v >= value_bound)
                value_bound *= 2;
            if (j + 1 < count) {
                compute_block(n + 1, count - j - 1);
                return;
            }
        }
    }
}

static void grow_table(size_t n)
{
    if (n < table_len)
        return;
    if (n + 1 > table_cap) {
        size_t cap = 2 * table_cap > n + 1 ? 2 * table_cap : n + 1;
        if (cap < 1024)
            cap = 1024;
        table = grow_array(table, cap, sizeof *table, "nim value table");
        uint16_t *r = grow_array(NULL, cap, sizeof *r, "nim value table");
        for (size_t h = 0; h < table_len; h++)
            r[cap - 1 - h] = table[h];
        free(rev);
        rev = r;
        table_cap = cap;
    }
    while (table_len <= n) {
        size_t count = n + 1 - table_len;
        compute_block(table_len, count < BLOCK ? count : BLOCK);
    }
}

int oracle_nim_value(int n)
{
    if (n < 0) {
        fprintf(stderr, "oracle_nim_value: negative height %d\n", n);
        abort();
    }
    grow_table((size_t)n);
    return table[n];
}

int oracle_nim_value_by_definition(int n)
{
    if (n < 3)
        return oracle_nim_value(n < 0 ? n : 0);
    oracle_nim_value(n - 1);

    /* There are only (n-1)/2 options, so the mex is at most that; larger
     * XOR results can be ignored. */
    size_t options = (size_t)(n - 1) / 2;
    bool *seen = calloc(options + 1, sizeof *seen);
    if (seen == NULL)
        oracle_out_of_memory("mex flags");
    for (size_t a = 1; a <= options; a++) {
        unsigned x = (unsigned)table[a] ^ table[(size_t)n - a];
        if (x <= options)
            seen[x] = true;
    }
    size_t mex = 0;
    while (mex <= options && seen[mex])
        mex++;
    free(seen);
    return (int)mex;
}

void oracle_nim_table_free(void)
{
    free(table);
    free(rev);
    table = rev = NULL;
    table_len = table_cap = 0;
    free(rare_height);
    free(rare_value);
    rare_height = NULL;
    rare_value = NULL;
    rare_len = rare_cap = 0;
    free(flags);
    flags = NULL;
    row_len = 0;
    value_bound = MIN_VALUE_BOUND;
}

void oracle_nim_allow_avx2(bool allow)
{
    nim_scan_allow_avx2(allow);
}

bool oracle_is_p(const int *heaps, size_t n)
{
    int sum = 0;
    for (size_t i = 0; i < n; i++)
        sum ^= oracle_nim_value(heaps[i] < 0 ? 0 : heaps[i]);
    return sum == 0;
}
