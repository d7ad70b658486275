/*
 * nim_values.c - Sprague-Grundy values g(n) of single heaps, and the XOR
 * rule for whole positions.
 *
 * The table is filled in increasing n. Going straight from the definition
 * costs n/2 XORs per height, which is fine for the few thousand heights the
 * tests need but too slow for the CLI's larger limits. So the table uses
 * the "sparse space" observation from Winning Ways (ch. 4), as described on
 * Flammenkamp's page: call a value rare when the number of 1 bits of
 * (value & ~1) is even, common otherwise. That parity is additive under
 * XOR, so a common value can only arise as rare ^ common. Rare values are
 * extremely scarce among the g(n), so one short pass over the rare heights
 * finds every common value a split can produce. The remaining rare values
 * below the first missing common value are then looked for in a scan over
 * the splits that stops as soon as all of them have been seen. Nothing here
 * assumes the rare values actually die out: in the worst case the scan runs
 * over every split and the answer is the plain mex.
 */
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>

static uint32_t *table;      /* table[i] = g(i) for i < table_len */
static size_t table_len;
static size_t table_cap;

static int *rare_heights;    /* heights >= 1 whose value is rare, ascending */
static size_t rare_len;
static size_t rare_cap;

/* stamps[v] == generation means "value v is reachable from the height being
 * computed"; a fresh generation per height avoids clearing the array. */
static uint32_t *stamps;
static size_t stamps_len;
static uint32_t generation;

/* Every value so far is below this power of two, so every XOR of two of
 * them is too. It starts at 4 because from 4 on the bound itself is a
 * common value (one 1 bit above the lowest), which caps the search for the
 * first unreachable common value at value_bound. */
#define MIN_VALUE_BOUND 4u
static uint32_t value_bound = MIN_VALUE_BOUND;

static bool is_rare(uint32_t v)
{
    v &= ~1u;
    v ^= v >> 16;
    v ^= v >> 8;
    v ^= v >> 4;
    v ^= v >> 2;
    v ^= v >> 1;
    return (v & 1u) == 0;
}

void oracle_out_of_memory(const char *what)
{
    fprintf(stderr, "oracle: out of memory (%s)\n", what);
    abort();
}

static void push_rare(int height)
{
    if (rare_len == rare_cap) {
        size_t cap = rare_cap ? 2 * rare_cap : 64;
        int *p = realloc(rare_heights, cap * sizeof *p);
        if (p == NULL)
            oracle_out_of_memory("rare height list");
        rare_heights = p;
        rare_cap = cap;
    }
    rare_heights[rare_len++] = height;
}

/* The mex can reach value_bound itself, hence the + 1. */
static void ensure_stamps(void)
{
    size_t want = (size_t)value_bound + 1;
    if (stamps_len >= want)
        return;
    uint32_t *p = realloc(stamps, want * sizeof *p);
    if (p == NULL)
        oracle_out_of_memory("nim value stamps");
    for (size_t i = stamps_len; i < want; i++)
        p[i] = 0;
    stamps = p;
    stamps_len = want;
}

static void mark(uint32_t v)
{
    stamps[v] = generation;
}

static bool marked(uint32_t v)
{
    return stamps[v] == generation;
}

/* g(n) for n >= 3, with table[0 .. n-1] already filled. */
static uint32_t compute_value(size_t n)
{
    size_t half = (n - 1) / 2;  /* splits are a + (n-a) with 1 <= a <= half */

    ensure_stamps();
    generation++;
    if (generation == 0) {
        /* wrapped: old stamps could look current, so clear them */
        for (size_t i = 0; i < stamps_len; i++)
            stamps[i] = 0;
        generation = 1;
    }

    for (size_t i = 0; i < rare_len; i++) {
        size_t r = (size_t)rare_heights[i];
        if (r >= n)
            break;
        if (2 * r == n)
            continue;           /* equal halves are not a legal split */
        mark(table[r] ^ table[n - r]);
    }

    uint32_t first_common = 0;
    while (is_rare(first_common) || marked(first_common))
        first_common++;

    size_t rare_missing = 0;
    for (uint32_t v = 0; v < first_common; v++)
        if (!marked(v))
            rare_missing++;     /* all common values below are marked */

    for (size_t a = 1; a <= half && rare_missing > 0; a++) {
        uint32_t x = table[a] ^ table[n - a];
        if (!marked(x)) {
            mark(x);
            if (x < first_common)
                rare_missing--;
        }
    }

    uint32_t mex = 0;
    while (marked(mex))
        mex++;
    return mex;
}

static void grow_table(size_t n)
{
    if (n < table_len)
        return;
    if (n + 1 > table_cap) {
        size_t cap = table_cap ? table_cap : 1024;
        while (cap < n + 1)
            cap *= 2;
        uint32_t *p = realloc(table, cap * sizeof *p);
        if (p == NULL)
            oracle_out_of_memory("nim value table");
        table = p;
        table_cap = cap;
    }
    while (table_len <= n) {
        size_t h = table_len;
        uint32_t v = h < 3 ? 0 : compute_value(h);
        table[h] = v;
        table_len++;
        if (h >= 1 && is_rare(v))
            push_rare((int)h);
        while (v >= value_bound)
            value_bound *= 2;
    }
}

int oracle_nim_value(int n)
{
    if (n < 0) {
        fprintf(stderr, "oracle_nim_value: negative height %d\n", n);
        abort();
    }
    grow_table((size_t)n);
    return (int)table[n];
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
        uint32_t x = table[a] ^ table[(size_t)n - a];
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
    table = NULL;
    table_len = table_cap = 0;
    free(rare_heights);
    rare_heights = NULL;
    rare_len = rare_cap = 0;
    free(stamps);
    stamps = NULL;
    stamps_len = 0;
    generation = 0;
    value_bound = MIN_VALUE_BOUND;
}

bool oracle_is_p(const int *heaps, size_t n)
{
    int sum = 0;
    for (size_t i = 0; i < n; i++)
        sum ^= oracle_nim_value(heaps[i] < 0 ? 0 : heaps[i]);
    return sum == 0;
}
