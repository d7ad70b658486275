/*
 * child_result.c - what child_run.h promises beyond running the job: the
 * stack a job really gets, and the words for a crash. Shared by the
 * students' child_run.c and the grader's (grader/boundary/
 * proxy_criterion.c), which run the job in different processes.
 */
#define _GNU_SOURCE /* PTHREAD_STACK_MIN */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "child_run.h"

size_t child_stack_size(size_t stack_bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t least = (size_t)PTHREAD_STACK_MIN;
    size_t size = stack_bytes < least ? least : stack_bytes;
    return (size + page - 1) / page * page;
}

const char *child_crash_text(const child_result *r)
{
    static char text[320];
    if (r->signal != 0)
        snprintf(text, sizeof text, "it crashed with signal %d (%s)", r->signal, strsignal(r->signal));
    else
        snprintf(text, sizeof text, "it exited with status %d before returning%s", r->exit_status,
                 r->exit_status == 1 ? CHILD_EXIT_1_TEXT : "");
    return text;
}
