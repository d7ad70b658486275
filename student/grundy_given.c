/*
 * grundy_given.c - helpers every part of the lab shares (given code).
 *
 * The position list and the text form of a position. You do not need to
 * change this file; it is replaced by a pristine copy when grading.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grundy.h"

/* The lab's code cannot do anything useful once memory runs out, and a
 * silent NULL deep inside a recursion is far harder to debug than a clear
 * message, so the given helpers stop the program instead. */
static void out_of_memory(const char *where)
{
    fprintf(stderr, "%s: out of memory\n", where);
    abort();
}

position_list *position_list_new(void)
{
    position_list *list = malloc(sizeof *list);
    if (list == NULL)
        return NULL;
    list->items = NULL;
    list->size = 0;
    list->capacity = 0;
    return list;
}

void position_list_push(position_list *list, grundy_position *p)
{
    if (list->size == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 8;
        grundy_position **items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            out_of_memory("position_list_push");
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->size++] = p;
}

void position_list_free(position_list *list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; i < list->size; i++)
        grundy_free(list->items[i]);
    free(list->items);
    free(list);
}

char *grundy_to_string(const grundy_position *p)
{
    /* Two passes: measure, then write, so any size of position fits. */
    size_t length = 3; /* "{", "}" and the terminating NUL */
    for (size_t i = 0; i < p->size; i++)
        length += (size_t)snprintf(NULL, 0, "%s%d=%d", i ? ", " : "",
                                   p->entries[i].height, p->entries[i].count);
    char *text = malloc(length);
    if (text == NULL)
        out_of_memory("grundy_to_string");
    size_t used = 0;
    text[used++] = '{';
    for (size_t i = 0; i < p->size; i++)
        used += (size_t)snprintf(text + used, length - used, "%s%d=%d", i ? ", " : "",
                                 p->entries[i].height, p->entries[i].count);
    text[used++] = '}';
    text[used] = '\0';
    return text;
}
