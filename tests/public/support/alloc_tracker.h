/*
 * alloc_tracker.h - counts the heap blocks the code under test holds.
 *
 * Programs that link alloc_tracker.c with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
 * route every allocation made by the lab's object files (student code,
 * given code, tests) through this module, which remembers each live block.
 * A leak check is then an ordinary assertion: the live count after freeing
 * must equal the count before. Blocks allocated inside libc (strdup,
 * asprintf) are not seen; freeing one is ignored rather than miscounted.
 */
#ifndef ALLOC_TRACKER_H
#define ALLOC_TRACKER_H

#include <stddef.h>

/* Blocks allocated through the wrappers and not freed yet. */
size_t alloc_live_blocks(void);

/* Those of them allocated while grundy_get_moves ran: the move lists and
 * the positions in them, which the solver must free, apart from what its
 * memo keeps (memo_table_put's copies are made outside grundy_get_moves).
 * Known where expansion_counter.c is linked too (the grader's runners ask
 * the student process, grader/boundary/proxy.c). A weak reference: a
 * program without it sees its address NULL and counts every block. */
size_t alloc_live_blocks_from_moves(void) __attribute__((weak));

/* What the tracker knows of `block`, a position a function returned to
 * its caller, who must own it: live (allocated and not freed), freed
 * after grundy_get_moves allocated it (an item of a move list, freed with
 * the list: among the last 1024 such blocks), or not live (freed
 * otherwise, or never allocated by the lab's code: every malloc of it is
 * tracked). A weak reference, like the one above: the grader's runners do
 * not know it (the address is NULL). */
typedef enum { ALLOC_NOT_LIVE, ALLOC_LIVE, ALLOC_FREED_FROM_MOVES } alloc_state;
alloc_state alloc_block_state(const void *block) __attribute__((weak));

/* The blocks a returned malloc'ed array (grundy_nim_table's) still holds
 * among alloc_live_blocks() until the caller frees it: 1 here, where the
 * caller frees the student's own block; 0 under the grader, where the
 * caller holds a copy on the trusted side and the student process has
 * already freed the array it sent (grader/boundary/proxy.c). */
size_t alloc_blocks_of_a_returned_array(void);

/* The byte that fills a new block and what realloc adds to a block
 * (alloc_tracker.c): an entry made of it was never written. */
enum { ALLOC_POISON = 0xa5 };

#endif /* ALLOC_TRACKER_H */
