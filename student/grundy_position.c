/*
 * grundy_position.c - Task 0: the heap-count map and the moves.
 *
 * Your work goes where the TODO(Task 0) markers are. The handout's section
 * "Task 0" (#task-0) walks through each function; the representation and
 * its invariant are in grundy.h and in the section "The representation and
 * its invariant" (#the-invariant).
 *
 * Each stub calls NOT_IMPLEMENTED_YET() so the tests can tell you which
 * function to write next; delete that line when you write the function.
 */
#include <stdlib.h>
#include <string.h>

#include "grundy.h"
#include "lab_todo.h"

grundy_position *grundy_new(int heap_height)
{
    /* TODO(Task 0): allocate an empty position, then add one heap of
     * heap_height (grundy_add_heap already ignores heights < 3). */
    (void)heap_height;
    NOT_IMPLEMENTED_YET();
    return NULL;
}

grundy_position *grundy_copy(const grundy_position *p)
{
    /* TODO(Task 0): return a new position with its own entries array
     * holding the same entries as p. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return NULL;
}

void grundy_free(grundy_position *p)
{
    /* TODO(Task 0): free the entries, then the position. NULL is a no-op. */
    (void)p;
    NOT_IMPLEMENTED_YET();
}

int grundy_count(const grundy_position *p, int height)
{
    /* TODO(Task 0): the count stored for height, or 0 if it has no entry. */
    (void)p;
    (void)height;
    NOT_IMPLEMENTED_YET();
    return 0;
}

void grundy_add_heap(grundy_position *p, int height)
{
    /* TODO(Task 0): drop heights < 3; otherwise add one to the count of
     * height, inserting a new entry at its sorted place (grow the array
     * when size == capacity). */
    (void)p;
    (void)height;
    NOT_IMPLEMENTED_YET();
}

void grundy_remove_heap(grundy_position *p, int height)
{
    /* TODO(Task 0): subtract one from the count of height; when it reaches
     * 0, remove the entry and close the gap so the array stays sorted. */
    (void)p;
    (void)height;
    NOT_IMPLEMENTED_YET();
}

bool grundy_equals(const grundy_position *a, const grundy_position *b)
{
    /* TODO(Task 0): thanks to the invariant, equal positions have the same
     * entries in the same order. */
    (void)a;
    (void)b;
    NOT_IMPLEMENTED_YET();
    return false;
}

uint64_t grundy_hash(const grundy_position *p)
{
    /* TODO(Task 0): combine every entry's height and count; positions that
     * are equal must hash equal. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return 0;
}

position_list *grundy_get_moves(const grundy_position *p)
{
    /* TODO(Task 0): two nested loops. For each distinct height h in p, for
     * each smaller part a with a < h - a: copy p, remove one heap of h,
     * add heaps a and h - a, and push the copy onto the list. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return NULL;
}
