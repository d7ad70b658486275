/*
 * lab_todo.c - records which stubs were reached (given code; see lab_todo.h).
 */
#include <string.h>

#include "lab_todo.h"

/* Every test runs in a process of its own, so the stubs reached in this
 * process are exactly the functions that test still needs. A handful is
 * enough to tell a student where to start. */
enum { REMEMBERED = 8 };
static const char *reached[REMEMBERED];
static size_t reached_count;

void lab_not_implemented(const char *function)
{
    for (size_t i = 0; i < reached_count; i++)
        if (strcmp(reached[i], function) == 0)
            return;
    if (reached_count < REMEMBERED)
        reached[reached_count++] = function;
}

const char *lab_stub_reached(size_t i)
{
    return i < reached_count ? reached[i] : NULL;
}
