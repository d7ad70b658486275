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

#endif /* ALLOC_TRACKER_H */
