/*
 * standin/grundy_position.c - the stand-in map: what the grader links with
 * a submission's solver (Tasks 1-2) when the submission's own
 * grundy_position.c does not pass every Task 0 test, so that one bug in
 * Task 0 does not cost Tasks 1-2 as well.
 *
 * It is public on purpose. Whatever code sits in a student process can be
 * read by that process (and written out, a few bits at a time, through
 * the answers it gives), so the grader never links anything there that
 * students may not see: not the model solution, not a secret. This file is
 * written for its job only: correct for every contract of grundy.h that
 * Tasks 1-2 rely on, deliberately plain (a linear scan where the model
 * answer would search, a fixed mixing hash), and fast enough that Task 2's
 * timing checks measure the solver, not the map.
 *
 * It is not a Task 0 answer to hand in: the grader compares every
 * grundy_position.c it grades with this file (grader/gradelib/standin.py),
 * and a copy is flagged for the staff in the feedback, in results.json and
 * in the class report, as copied code is.
 */
#include <stdlib.h>
#include <string.h>

#include "grundy.h"

/* The first slot whose height is not below `height`, scanning from the
 * left: positions of this lab have a few dozen heights at most. */
static size_t standin_slot(const grundy_position *p, int height)
{
    size_t slot = 0;
    while (slot < p->size && p->entries[slot].height < height)
        slot++;
    return slot;
}

grundy_position *grundy_new(int heap_height)
{
    grundy_position *p = calloc(1, sizeof *p);
    if (p != NULL)
        grundy_add_heap(p, heap_height);
    return p;
}

grundy_position *grundy_copy(const grundy_position *p)
{
    grundy_position *twin = calloc(1, sizeof *twin);
    if (twin == NULL || p->size == 0)
        return twin;
    twin->entries = malloc(p->size * sizeof *twin->entries);
    if (twin->entries == NULL) {
        free(twin);
        return NULL;
    }
    for (size_t i = 0; i < p->size; i++)
        twin->entries[i] = p->entries[i];
    twin->size = twin->capacity = p->size;
    return twin;
}

void grundy_free(grundy_position *p)
{
    if (p != NULL) {
        free(p->entries);
        free(p);
    }
}

int grundy_count(const grundy_position *p, int height)
{
    size_t slot = standin_slot(p, height);
    return slot < p->size && p->entries[slot].height == height ? p->entries[slot].count : 0;
}

void grundy_add_heap(grundy_position *p, int height)
{
    if (height < 3)
        return;
    size_t slot = standin_slot(p, height);
    if (slot < p->size && p->entries[slot].height == height) {
        p->entries[slot].count += 1;
        return;
    }
    if (p->size == p->capacity) {
        size_t wanted = p->capacity < 8 ? 8 : p->capacity * 2;
        heap_count *grown = realloc(p->entries, wanted * sizeof *grown);
        if (grown == NULL)
            return;
        p->entries = grown;
        p->capacity = wanted;
    }
    for (size_t i = p->size; i > slot; i--)
        p->entries[i] = p->entries[i - 1];
    p->entries[slot].height = height;
    p->entries[slot].count = 1;
    p->size += 1;
}

void grundy_remove_heap(grundy_position *p, int height)
{
    size_t slot = standin_slot(p, height);
    if (slot == p->size || p->entries[slot].height != height)
        return;
    p->entries[slot].count -= 1;
    if (p->entries[slot].count > 0)
        return;
    for (size_t i = slot; i + 1 < p->size; i++)
        p->entries[i] = p->entries[i + 1];
    p->size -= 1;
}

bool grundy_equals(const grundy_position *a, const grundy_position *b)
{
    if (a->size != b->size)
        return false;
    for (size_t i = 0; i < a->size; i++)
        if (a->entries[i].height != b->entries[i].height || a->entries[i].count != b->entries[i].count)
            return false;
    return true;
}

uint64_t grundy_hash(const grundy_position *p)
{
    /* FNV-1a over each entry's height and count, then a final scramble so
     * that the low bits a table indexes by depend on every entry. */
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < p->size; i++) {
        h = (h ^ (uint64_t)(unsigned)p->entries[i].height) * 1099511628211u;
        h = (h ^ (uint64_t)(unsigned)p->entries[i].count) * 1099511628211u;
    }
    h ^= h >> 31;
    h *= 0x7fb5d329728ea185u;
    h ^= h >> 27;
    h *= 0x81dadef4bc2dd44du;
    h ^= h >> 33;
    return h;
}

position_list *grundy_get_moves(const grundy_position *p)
{
    position_list *result = position_list_new();
    for (size_t e = 0; result != NULL && e < p->size; e++) {
        const int whole = p->entries[e].height;
        /* Each split into two different sizes, the larger part first. */
        for (int big = whole - 1; big > whole - big; big--) {
            grundy_position *child = grundy_copy(p);
            if (child != NULL) {
                grundy_remove_heap(child, whole);
                grundy_add_heap(child, big);
                grundy_add_heap(child, whole - big);
                position_list_push(result, child);
            }
        }
    }
    return result;
}
