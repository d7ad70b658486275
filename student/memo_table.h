/*
 * memo_table.h - a hash table from positions to P/N answers (given code).
 *
 * Task 2 needs a dictionary keyed by positions. Writing a hash table is not
 * what this lab is about, so here is a small one, in the style of a library:
 * an opaque type, a handful of calls, documented ownership. It calls your
 * grundy_hash() and grundy_equals() to find keys and grundy_copy() to store
 * them, so those must be right before memoization can work.
 *
 * Ownership: memo_table_put() stores its own copy of the key; the caller
 * keeps (and frees) the position it passed. memo_table_free() and
 * memo_table_clear() free every stored copy.
 */
#ifndef MEMO_TABLE_H
#define MEMO_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "grundy.h"

typedef struct memo_table memo_table;

/* An empty table. Returns NULL only when memory runs out. */
memo_table *memo_table_new(void);

/* Frees the table and every key it stored. NULL is a no-op. */
void memo_table_free(memo_table *table);

/* Looks `key` up. Returns true and sets *is_p when the table has an answer
 * for it; returns false (and leaves *is_p alone) when it has none. */
bool memo_table_get(const memo_table *table, const grundy_position *key, bool *is_p);

/* Remembers that `key` is a P-position (is_p true) or an N-position
 * (is_p false), replacing any earlier answer. */
void memo_table_put(memo_table *table, const grundy_position *key, bool is_p);

/* Number of positions stored. */
size_t memo_table_size(const memo_table *table);

/* Forgets every entry (and frees their keys) but keeps the table usable. */
void memo_table_clear(memo_table *table);

#endif /* MEMO_TABLE_H */
