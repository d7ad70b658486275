/*
 * calibration_solver.c - the plain memoized solver behind
 * calibration_solver.h.
 *
 * A position is a sorted array of live heap heights (one element per heap);
 * the memo is a chained hash table keyed by those arrays.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibration_solver.h"

typedef struct node {
    struct node *next;
    bool is_p;
    size_t n;
    int heaps[]; /* ascending */
} node;

static node **buckets;
static size_t bucket_count, stored;

static void *checked(void *block)
{
    if (block == NULL) {
        fputs("calibration_solver: out of memory\n", stderr);
        abort();
    }
    return block;
}

static uint64_t hash_of(const int *heaps, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)heaps[i]) * 1099511628211u;
    return h ^ (h >> 29);
}

static node **chain_of(const int *heaps, size_t n)
{
    return &buckets[hash_of(heaps, n) & (bucket_count - 1)];
}

static node *lookup(const int *heaps, size_t n)
{
    for (node *e = *chain_of(heaps, n); e != NULL; e = e->next)
        if (e->n == n && memcmp(e->heaps, heaps, n * sizeof *heaps) == 0)
            return e;
    return NULL;
}

static void insert(const int *heaps, size_t n, bool is_p)
{
    if (stored + 1 > bucket_count) {
        node **old = buckets;
        size_t old_count = bucket_count;
        bucket_count *= 2;
        buckets = checked(calloc(bucket_count, sizeof *buckets));
        for (size_t i = 0; i < old_count; i++) {
            for (node *e = old[i], *next; e != NULL; e = next) {
                next = e->next;
                node **chain = chain_of(e->heaps, e->n);
                e->next = *chain;
                *chain = e;
            }
        }
        free(old);
    }
    node *e = checked(malloc(sizeof *e + n * sizeof *heaps));
    e->is_p = is_p;
    e->n = n;
    memcpy(e->heaps, heaps, n * sizeof *heaps);
    node **chain = chain_of(heaps, n);
    e->next = *chain;
    *chain = e;
    stored++;
}

/* Inserts a heap into heaps[0 .. *n-1], kept ascending; dead heaps (below
 * 3) are left out. */
static void insert_heap(int *heaps, size_t *n, int heap)
{
    if (heap < 3)
        return;
    size_t j = (*n)++;
    while (j > 0 && heaps[j - 1] > heap) {
        heaps[j] = heaps[j - 1];
        j--;
    }
    heaps[j] = heap;
}

/* The position after splitting heaps[at] into `part` and the rest: a new
 * sorted array without dead heaps. */
static int *split(const int *heaps, size_t n, size_t at, int part, size_t *out_n)
{
    int *next = checked(malloc((n + 1) * sizeof *next));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i != at)
            next[m++] = heaps[i];
    insert_heap(next, &m, part);
    insert_heap(next, &m, heaps[at] - part);
    *out_n = m;
    return next;
}

static bool solve(const int *heaps, size_t n)
{
    if (n == 0)
        return true;
    node *known = lookup(heaps, n);
    if (known != NULL)
        return known->is_p;
    /* All moves first, then the search: grundy_get_moves works that way,
     * so the yardstick pays the same price a student solution does. */
    size_t moves = 0;
    for (size_t i = 0; i < n; i++)
        moves += (size_t)(heaps[i] - 1) / 2;
    int **next = checked(malloc(moves * sizeof *next));
    size_t *next_n = checked(malloc(moves * sizeof *next_n));
    size_t made = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && heaps[i] == heaps[i - 1])
            continue; /* same height as the heap before: same moves */
        for (int part = 1; part < heaps[i] - part; part++) {
            next[made] = split(heaps, n, i, part, &next_n[made]);
            made++;
        }
    }
    bool is_p = true;
    for (size_t k = 0; k < made && is_p; k++)
        if (solve(next[k], next_n[k]))
            is_p = false;
    for (size_t k = 0; k < made; k++)
        free(next[k]);
    free(next);
    free(next_n);
    insert(heaps, n, is_p);
    return is_p;
}

bool calibration_is_p(const int *heaps, size_t n)
{
    /* The position as solve() keeps them: live heaps, ascending. */
    int *position = checked(malloc((n ? n : 1) * sizeof *position));
    size_t live = 0;
    for (size_t i = 0; i < n; i++)
        insert_heap(position, &live, heaps[i]);
    bucket_count = 1024;
    stored = 0;
    buckets = checked(calloc(bucket_count, sizeof *buckets));
    bool is_p = solve(position, live);
    for (size_t i = 0; i < bucket_count; i++) {
        for (node *e = buckets[i], *next; e != NULL; e = next) {
            next = e->next;
            free(e);
        }
    }
    free(buckets);
    buckets = NULL;
    free(position);
    return is_p;
}

double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double calibration_seconds(const int *heaps, size_t n, bool *is_p)
{
    int runs = 0;
    double start = cpu_seconds(), elapsed;
    do {
        *is_p = calibration_is_p(heaps, n);
        runs++;
        elapsed = cpu_seconds() - start;
    } while (elapsed < CALIBRATION_MIN_SECONDS);
    return elapsed / runs;
}
