/*
 * lab_trace.c - what the running test is doing: its last step and call,
 * in words a student can reproduce, and whether it cleared a memo. A
 * crash or time-out report (lab_signals.c) names them (see lab_support.h
 * and traced_api.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "lab_run_state.h"
#include "lab_support.h"

/* The state lab_run_state.h describes. */
char lab_last_step[768];
char lab_last_call[768];
bool lab_last_step_explicit;
bool lab_test_done;
bool lab_memo_cleared;
bool lab_traced_work;
const char *lab_cleared_after_work;

/* Whether that clear looks like one that freed the table and kept the
 * pointer: it freed a block, and grundy_memo_size() is not 0 right after
 * it (it counts in the freed table). Only then does a crash or a spin get
 * the cleared-memo hint (lab_signals.c): a clear that freed nothing, or a
 * right one, cannot have left a pointer to freed memory. */
static bool clear_kept_a_freed_table(size_t blocks_before)
{
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer stops at the first read of a freed table by itself,
     * and says so; asking the size here would only move that stop into a
     * test that did not ask (and fail one test more for the same bug). */
    return alloc_live_blocks() < blocks_before;
#else
    return alloc_live_blocks() < blocks_before && lab_memo_size_if_written() != 0;
#endif
}

/* The tracker's own query, alloc_block_state, is linked only into make
 * test's programs (the grader's runners see its address NULL). */
bool lab_in_own_process(void)
{
    return alloc_block_state != NULL;
}

/* The blocks are counted for the hint only in make test: under the grader
 * a clear in passing must not read a figure (lab_in_own_process). */
static size_t blocks_for_the_hint(void)
{
    return lab_in_own_process() ? alloc_live_blocks() : 0;
}

void lab_memo_clear(void)
{
    lab_trace("grundy_memo_clear()");
    size_t before = blocks_for_the_hint();
    grundy_memo_clear();
    lab_memo_cleared = lab_memo_cleared || (before > 0 && clear_kept_a_freed_table(before));
}

void lab_memo_clear_if_written(void)
{
    lab_trace("grundy_memo_clear()");
    size_t before = blocks_for_the_hint();
    grundy_memo_clear();
    lab_memo_cleared = lab_memo_cleared || (before > 0 && !lab_stub_reached_in_passing("grundy_memo_clear") &&
                                            clear_kept_a_freed_table(before));
}

size_t lab_memo_size_if_written(void)
{
    lab_trace("grundy_memo_size()");
    size_t size = grundy_memo_size();
    return lab_stub_reached_in_passing("grundy_memo_size") ? 0 : size;
}

/* The live heap blocks when the current step began (make test only: under
 * the grader the count is the student process's, a round trip each). */
static size_t blocks_at_step;

long lab_blocks_since_step(void)
{
    return lab_in_own_process() ? (long)alloc_live_blocks() - (long)blocks_at_step : 0;
}

/* The test's current step, and the call it is: what a crash report names. */
static void record_step(bool explicit_step, const char *format, va_list args)
{
    if (lab_in_own_process())
        blocks_at_step = alloc_live_blocks();
    vsnprintf(lab_last_step, sizeof lab_last_step, format, args);
    memcpy(lab_last_call, lab_last_step, sizeof lab_last_call);
    lab_last_step_explicit = explicit_step;
}

void lab_trace(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    record_step(true, format, args);
    va_end(args);
}

void lab_trace_call(const char *name, const char *format, ...)
{
    size_t length = strlen(name);
    if (strstr(name, "_clear") == NULL)
        lab_traced_work = true;
    else if (lab_traced_work && strcmp(name, "grundy_memo_clear") != 0)
        lab_cleared_after_work = name;
    if (lab_last_step_explicit && strncmp(lab_last_step, name, length) == 0 && lab_last_step[length] == '(') {
        lab_last_step_explicit = false; /* the test described this call in its own words */
        return;
    }
    va_list args;
    va_start(args, format);
    record_step(false, format, args);
    va_end(args);
}

const char *lab_trace_text(const grundy_position *p)
{
    if (p == NULL)
        return "NULL";
    int heaps[LAB_MAX_HEAPS];
    size_t n = 0;
    bool valid = p->size <= p->capacity && (p->size == 0 || p->entries != NULL);
    for (size_t i = 0; valid && i < p->size; i++) {
        heap_count e = p->entries[i];
        valid = e.height >= 3 && e.count >= 1 && (i == 0 || p->entries[i - 1].height < e.height) &&
                n + (size_t)e.count <= LAB_MAX_HEAPS;
        for (int k = 0; valid && k < e.count; k++)
            heaps[n++] = e.height;
    }
    return valid ? lab_heaps_text(heaps, n) : "a position";
}

void lab_trace_building(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(lab_last_step, sizeof lab_last_step, format, args);
    va_end(args);
    lab_last_step_explicit = false;
}

