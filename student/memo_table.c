/*
 * memo_table.c - open-addressing hash table from positions to answers
 * (given code; see memo_table.h for the interface).
 *
 * Layout: one array of slots, linear probing, capacity a power of two, kept
 * at most 70% full so probe runs stay short. Entries are never deleted one
 * by one (the lab only needs "forget everything"), so no tombstones are
 * needed. Each slot caches its key's hash: growing the table then never
 * calls grundy_hash() again, and most probes are rejected without calling
 * grundy_equals().
 *
 * Invariants: count < capacity; a slot is empty iff its key is NULL; every
 * stored key is a copy owned by the table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "memo_table.h"

typedef struct {
    grundy_position *key; /* NULL marks an empty slot */
    uint64_t hash;
    bool is_p;
} memo_slot;

struct memo_table {
    memo_slot *slots;
    size_t capacity; /* a power of two */
    size_t count;
};

enum { INITIAL_CAPACITY = 64 };

static void out_of_memory(const char *where)
{
    fprintf(stderr, "%s: out of memory\n", where);
    abort();
}

static memo_slot *allocate_slots(size_t capacity)
{
    memo_slot *slots = calloc(capacity, sizeof *slots);
    if (slots == NULL)
        out_of_memory("memo_table");
    return slots;
}

memo_table *memo_table_new(void)
{
    memo_table *table = malloc(sizeof *table);
    if (table == NULL)
        return NULL;
    table->slots = allocate_slots(INITIAL_CAPACITY);
    table->capacity = INITIAL_CAPACITY;
    table->count = 0;
    return table;
}

static void free_keys(memo_table *table)
{
    for (size_t i = 0; i < table->capacity; i++) {
        grundy_free(table->slots[i].key);
        table->slots[i].key = NULL;
    }
}

void memo_table_free(memo_table *table)
{
    if (table == NULL)
        return;
    free_keys(table);
    free(table->slots);
    free(table);
}

/* The slot holding `key`, or the empty slot where it would go. */
static memo_slot *find_slot(const memo_table *table, const grundy_position *key, uint64_t hash)
{
    size_t mask = table->capacity - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        memo_slot *slot = &table->slots[i];
        if (slot->key == NULL)
            return slot;
        if (slot->hash == hash && grundy_equals(slot->key, key))
            return slot;
    }
}

bool memo_table_get(const memo_table *table, const grundy_position *key, bool *is_p)
{
    const memo_slot *slot = find_slot(table, key, grundy_hash(key));
    if (slot->key == NULL)
        return false;
    *is_p = slot->is_p;
    return true;
}

static void grow(memo_table *table)
{
    memo_slot *old = table->slots;
    size_t old_capacity = table->capacity;
    table->capacity *= 2;
    table->slots = allocate_slots(table->capacity);
    size_t mask = table->capacity - 1;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i].key == NULL)
            continue;
        size_t j = (size_t)old[i].hash & mask;
        while (table->slots[j].key != NULL)
            j = (j + 1) & mask;
        table->slots[j] = old[i];
    }
    free(old);
}

void memo_table_put(memo_table *table, const grundy_position *key, bool is_p)
{
    uint64_t hash = grundy_hash(key);
    memo_slot *slot = find_slot(table, key, hash);
    if (slot->key != NULL) {
        slot->is_p = is_p;
        return;
    }
    if (10 * (table->count + 1) > 7 * table->capacity) {
        grow(table);
        slot = find_slot(table, key, hash);
    }
    slot->key = grundy_copy(key);
    if (slot->key == NULL)
        out_of_memory("memo_table_put");
    slot->hash = hash;
    slot->is_p = is_p;
    table->count++;
}

size_t memo_table_size(const memo_table *table)
{
    return table->count;
}

void memo_table_clear(memo_table *table)
{
    free_keys(table);
    table->count = 0;
}
