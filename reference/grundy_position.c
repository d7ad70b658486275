/*
 * grundy_position.c - model solution of Task 0: the heap-count map and the
 * moves of Grundy's game.
 *
 * A position is a sorted array of (height, count) entries holding only live
 * heaps (height >= 3). Keeping that invariant in every operation is what
 * makes the rest easy: the same game always has the same entries, so
 * equality is a plain comparison, the hash is a fold over the entries, and
 * "terminal" just means "empty".
 */
#include <stdlib.h>
#include <string.h>

#include "grundy.h"

enum { SMALLEST_LIVE_HEAP = 3 };

/* Index of the first entry whose height is >= `height` (binary search, so
 * lookups stay cheap for positions with many distinct heights). */
static size_t lower_bound(const grundy_position *p, int height)
{
    size_t low = 0, high = p->size;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (p->entries[mid].height < height)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

/* Makes room for at least one more entry; false when memory runs out. */
static bool reserve_one(grundy_position *p)
{
    if (p->size < p->capacity)
        return true;
    size_t capacity = p->capacity ? 2 * p->capacity : 4;
    heap_count *entries = realloc(p->entries, capacity * sizeof *entries);
    if (entries == NULL)
        return false;
    p->entries = entries;
    p->capacity = capacity;
    return true;
}

grundy_position *grundy_new(int heap_height)
{
    grundy_position *p = malloc(sizeof *p);
    if (p == NULL)
        return NULL;
    p->entries = NULL;
    p->size = 0;
    p->capacity = 0;
    grundy_add_heap(p, heap_height);
    return p;
}

grundy_position *grundy_copy(const grundy_position *p)
{
    grundy_position *copy = malloc(sizeof *copy);
    if (copy == NULL)
        return NULL;
    copy->size = p->size;
    copy->capacity = p->size;
    copy->entries = NULL;
    if (p->size > 0) {
        copy->entries = malloc(p->size * sizeof *copy->entries);
        if (copy->entries == NULL) {
            free(copy);
            return NULL;
        }
        memcpy(copy->entries, p->entries, p->size * sizeof *copy->entries);
    }
    return copy;
}

void grundy_free(grundy_position *p)
{
    if (p == NULL)
        return;
    free(p->entries);
    free(p);
}

int grundy_count(const grundy_position *p, int height)
{
    size_t i = lower_bound(p, height);
    if (i < p->size && p->entries[i].height == height)
        return p->entries[i].count;
    return 0;
}

void grundy_add_heap(grundy_position *p, int height)
{
    if (height < SMALLEST_LIVE_HEAP)
        return; /* a dead heap changes nothing about the game */
    size_t i = lower_bound(p, height);
    if (i < p->size && p->entries[i].height == height) {
        p->entries[i].count++;
        return;
    }
    if (!reserve_one(p))
        return; /* out of memory: the position is left as it was */
    memmove(&p->entries[i + 1], &p->entries[i], (p->size - i) * sizeof *p->entries);
    p->entries[i] = (heap_count){.height = height, .count = 1};
    p->size++;
}

void grundy_remove_heap(grundy_position *p, int height)
{
    size_t i = lower_bound(p, height);
    if (i == p->size || p->entries[i].height != height)
        return;
    if (--p->entries[i].count > 0)
        return;
    memmove(&p->entries[i], &p->entries[i + 1], (p->size - i - 1) * sizeof *p->entries);
    p->size--;
}

bool grundy_equals(const grundy_position *a, const grundy_position *b)
{
    /* Compare field by field rather than with memcmp: it states the
     * intent and does not depend on struct padding. */
    if (a->size != b->size)
        return false;
    for (size_t i = 0; i < a->size; i++) {
        if (a->entries[i].height != b->entries[i].height ||
            a->entries[i].count != b->entries[i].count)
            return false;
    }
    return true;
}

/* Scrambles all 64 bits so that nearby inputs land far apart (the
 * finalizer of SplitMix64). */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    return x;
}

uint64_t grundy_hash(const grundy_position *p)
{
    /* The entries are in a fixed order, so an order-dependent fold is
     * fine: equal positions visit the same entries in the same order. */
    uint64_t hash = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < p->size; i++) {
        uint64_t entry = ((uint64_t)(uint32_t)p->entries[i].height << 32) |
                         (uint32_t)p->entries[i].count;
        hash = mix(hash ^ entry);
    }
    return hash;
}

position_list *grundy_get_moves(const grundy_position *p)
{
    position_list *moves = position_list_new();
    if (moves == NULL)
        return NULL;
    /* Loop over distinct heights, not over heaps: splitting either of two
     * equal heaps gives the same position, and we want each result once.
     * Different (height, smaller part) pairs always give different
     * positions, so no further deduplication is needed. */
    for (size_t i = 0; i < p->size; i++) {
        int height = p->entries[i].height;
        for (int smaller = 1; smaller < height - smaller; smaller++) {
            grundy_position *next = grundy_copy(p);
            if (next == NULL)
                continue;
            grundy_remove_heap(next, height);
            grundy_add_heap(next, smaller);
            grundy_add_heap(next, height - smaller);
            position_list_push(moves, next);
        }
    }
    return moves;
}
