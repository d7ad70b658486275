/*
 * lab_support.c - shared helpers of the lab's suites (see lab_support.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_support.h"
#include "lab_todo.h"
#include "oracle.h"

static char message[8192];

const char *lab_format(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return message;
}

const char *lab_todo_note(void)
{
    static char note[512];
    if (lab_stub_reached(0) == NULL)
        return "";
    size_t used = (size_t)snprintf(note, sizeof note, "not implemented yet: ");
    for (size_t i = 0; lab_stub_reached(i) != NULL && used < sizeof note; i++)
        used += (size_t)snprintf(note + used, sizeof note - used, "%s%s", i ? ", " : "",
                                 lab_stub_reached(i));
    if (used < sizeof note)
        snprintf(note + used, sizeof note - used, " (see the TODOs in your code). ");
    return note;
}

const char *lab_heaps_text(const int *heaps, size_t n)
{
    /* A ring of buffers: a message quotes a few positions at once, and
     * nothing is left allocated for valgrind to report. */
    static char ring[16][4096];
    static size_t next;
    char *text = oracle_format(heaps, n);
    char *slot = ring[next++ % 16];
    snprintf(slot, sizeof ring[0], "%s", text);
    free(text);
    return slot;
}

grundy_position *lab_build(const int *heaps, size_t n)
{
    grundy_position *p = grundy_new(0);
    LAB_EXPECT(p != NULL, SECTION_MAP, "grundy_new(0) returned NULL; it must return an empty position");
    for (size_t i = 0; i < n; i++)
        grundy_add_heap(p, heaps[i]);
    return p;
}

size_t lab_expand(const grundy_position *p, int *heaps, const char *what)
{
    LAB_EXPECT(p != NULL, SECTION_MAP, "%s is NULL; expected a position", what);
    LAB_EXPECT(p->size <= p->capacity, SECTION_INVARIANT,
               "%s has size %zu > capacity %zu", what, p->size, p->capacity);
    LAB_EXPECT(p->size == 0 || p->entries != NULL, SECTION_INVARIANT,
               "%s has size %zu but entries is NULL", what, p->size);
    size_t n = 0;
    for (size_t i = 0; i < p->size; i++) {
        heap_count e = p->entries[i];
        LAB_EXPECT(e.height >= 3, SECTION_INVARIANT,
                   "%s stores height %d at entries[%zu]; only heights >= 3 may be stored", what,
                   e.height, i);
        LAB_EXPECT(e.count >= 1, SECTION_INVARIANT,
                   "%s stores count %d for height %d; an entry with no heaps must be removed",
                   what, e.count, e.height);
        LAB_EXPECT(i == 0 || p->entries[i - 1].height < e.height, SECTION_INVARIANT,
                   "%s: entries[%zu].height = %d follows %d; heights must be strictly ascending "
                   "(each height once)",
                   what, i, e.height, p->entries[i - 1].height);
        LAB_EXPECT(n + (size_t)e.count <= LAB_MAX_HEAPS, SECTION_INVARIANT,
                   "%s holds more than %d heaps; the tests never build that many", what,
                   LAB_MAX_HEAPS);
        for (int k = 0; k < e.count; k++)
            heaps[n++] = e.height;
    }
    return n;
}

const char *lab_position_text(const grundy_position *p, const char *what)
{
    int heaps[LAB_MAX_HEAPS];
    size_t n = lab_expand(p, heaps, what);
    return lab_heaps_text(heaps, n);
}

void lab_check_outcome(const int *heaps, size_t n, const char *section)
{
    const char *text = lab_heaps_text(heaps, n);
    bool expected_p = oracle_is_p(heaps, n);
    const char *expected = expected_p ? "P" : "N";

    grundy_position *p = lab_build(heaps, n);
    bool is_p = grundy_is_p_position(p);
    LAB_EXPECT(is_p == expected_p, section,
               "grundy_is_p_position(%s) returned %s; the position is an %s-position", text,
               is_p ? "true" : "false", expected);
    bool is_n = grundy_is_n_position(p);
    LAB_EXPECT(is_n == !expected_p, section,
               "grundy_is_n_position(%s) returned %s; the position is an %s-position", text,
               is_n ? "true" : "false", expected);
    grundy_free(p);
}

unsigned lab_random(unsigned *state)
{
    unsigned x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

bool lab_skip_timing(const char *suite)
{
    const char *skip = getenv("LAB_SKIP_TIMING");
    if (skip == NULL || skip[0] == '\0')
        return false;
    if (strcmp(skip, "1") == 0)
        return true;
    size_t length = strlen(suite);
    for (const char *at = strstr(skip, suite); at != NULL; at = strstr(at + 1, suite))
        if ((at == skip || at[-1] == ' ' || at[-1] == ',') && (at[length] == '\0' || at[length] == ' ' ||
                                                               at[length] == ','))
            return true;
    return false;
}
