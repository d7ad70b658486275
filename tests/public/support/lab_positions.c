/*
 * lab_positions.c - building positions through the student's API and
 * reading them back into the oracle's canonical form, checking the
 * invariant, a move list and a returned position's ownership on the way
 * (see lab_support.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_tracker.h"
#include "lab_definition.h"
#include "lab_run_state.h"
#include "lab_support.h"
#include "oracle.h"

/* "3, 7, 1": the heaps as a test adds them, for the trace. */
static const char *heap_list(const int *heaps, size_t n)
{
    static char list[1024];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", i ? ", " : "", heaps[i]);
    return list;
}

grundy_position *lab_build(const int *heaps, size_t n)
{
    lab_trace_building("grundy_new(0), to build a position from the heaps [%s]", heap_list(heaps, n));
    grundy_position *p = grundy_new(0);
    lab_expect_made(p, SECTION_MAP, "grundy_new(0)");
    for (size_t i = 0; i < n; i++) {
        lab_trace_building("grundy_add_heap(p, %d), adding heap %zu of [%s] to grundy_new(0)", heaps[i],
                       i + 1, heap_list(heaps, n));
        grundy_add_heap(p, heaps[i]);
    }
    return p;
}

size_t lab_expand(const grundy_position *p, int *heaps, const char *what)
{
    return lab_expand_at_most(p, heaps, LAB_MAX_HEAPS, what);
}

/* The handout section for a position that is NULL: Task 0's map section
 * in Task 0's tests, else the section of the task whose test it is (a
 * Task 6 stub returning NULL is Task 6's to write, not the map's). */
static const char *null_position_section(void)
{
    char suite[sizeof lab_test_name];
    snprintf(suite, sizeof suite, "%s", lab_test_name);
    suite[strcspn(suite, ":")] = '\0';
    const lab_task *task = lab_task_of_suite(suite);
    if (task == NULL || strcmp(task->suite, "task0") == 0)
        return SECTION_MAP;
    return task->anchor;
}

/* " The call left N new heap blocks allocated: ..." when the step's call
 * made blocks and returned NULL; "" otherwise. */
static const char *blocks_made_note(void)
{
    static char did[160];
    long made = lab_blocks_since_step();
    did[0] = '\0';
    if (made > 0)
        snprintf(did, sizeof did, " The call left %ld new heap block%s allocated: it made its result, "
                 "or part of one, and returned NULL instead.", made, made == 1 ? "" : "s");
    return did;
}

void lab_expect_made(const void *result, const char *section, const char *format, ...)
{
    if (result != NULL)
        return;
    char call[300];
    va_list args;
    va_start(args, format);
    vsnprintf(call, sizeof call, format, args);
    va_end(args);
    LAB_EXPECT(false, section,
               "%s returned NULL. grundy.h allows NULL only when memory runs out, which never happens "
               "in these tests.%s", call, blocks_made_note());
}

/* " (...never written...)" when every byte of the field is ALLOC_POISON,
 * which fills every new block (alloc_tracker.c), or "". */
static const char *never_written(const void *field, size_t size)
{
    const unsigned char *bytes = field;
    for (size_t i = 0; i < size; i++)
        if (bytes[i] != ALLOC_POISON)
            return "";
    return " (every byte 0xa5: the tests fill each new block with 0xa5, so this field was never "
           "written; set every field where the position is made)";
}

size_t lab_expand_at_most(const grundy_position *p, int *heaps, size_t max, const char *what)
{
    /* What the call did, read from the heap since this step's trace. */
    LAB_EXPECT(p != NULL, null_position_section(), "%s is NULL; expected a position. grundy.h allows "
               "NULL only when memory runs out, which never happens in these tests.%s", what,
               blocks_made_note());
    lab_trace("reading the entries of %s", what);
    LAB_EXPECT(p->size <= p->capacity, SECTION_INVARIANT, "%s has size %zu%s > capacity %zu%s", what,
               p->size, never_written(&p->size, sizeof p->size), p->capacity,
               never_written(&p->capacity, sizeof p->capacity));
    LAB_EXPECT(p->size == 0 || p->entries != NULL, SECTION_INVARIANT,
               "%s has size %zu%s but entries is NULL", what, p->size,
               never_written(&p->size, sizeof p->size));
    size_t n = 0;
    for (size_t i = 0; i < p->size; i++) {
        heap_count e = p->entries[i];
        LAB_EXPECT(e.height >= 3, SECTION_INVARIANT,
                   "%s stores height %d%s at entries[%zu]; only heights >= 3 may be stored", what,
                   e.height, never_written(&e.height, sizeof e.height), i);
        LAB_EXPECT(e.count >= 1, SECTION_INVARIANT,
                   "%s stores count %d%s for height %d; an entry with no heaps must be removed",
                   what, e.count, never_written(&e.count, sizeof e.count), e.height);
        LAB_EXPECT(i == 0 || p->entries[i - 1].height < e.height, SECTION_INVARIANT,
                   "%s: entries[%zu].height = %d follows %d; heights must be strictly ascending "
                   "(each height once)",
                   what, i, e.height, p->entries[i - 1].height);
        LAB_EXPECT(n + (size_t)e.count <= max, SECTION_INVARIANT,
                   "%s holds more than %zu heaps; the tests never build that many", what, max);
        for (int k = 0; k < e.count; k++)
            heaps[n++] = e.height;
    }
    return n;
}

void lab_expect_owned_result(const grundy_position *result, const char *call, const char *section)
{
    if (result == NULL || alloc_block_state == NULL)
        return;
    alloc_state state = alloc_block_state(result);
    char call_text[512]; /* `call` may be lab_format's buffer, which the message reuses */
    snprintf(call_text, sizeof call_text, "%s", call);
    call = call_text;
    LAB_EXPECT(state != ALLOC_FREED_FROM_MOVES, section,
               "%s returned a position that was already freed: one of the positions of its move "
               "list, freed with the list by position_list_free. The caller owns the result and "
               "frees it, so it must be a copy: return grundy_copy(moves->items[i]), then free "
               "the list",
               call);
    LAB_EXPECT(state == ALLOC_LIVE, section,
               "%s returned a position that is not a live heap block (already freed, or never "
               "allocated with malloc): the caller owns the result and frees it, so return a new "
               "position (grundy_copy of the one you chose)",
               call);
}

const char *lab_position_text(const grundy_position *p, const char *what)
{
    int heaps[LAB_MAX_HEAPS];
    size_t n = lab_expand(p, heaps, what);
    return lab_heaps_text(heaps, n);
}

void lab_expect_oracle_moves(const position_list *moves, const int *heaps, size_t n, const char *text)
{
    lab_expect_made(moves, SECTION_MOVES, "grundy_get_moves(%s)", text);
    LAB_EXPECT(moves->size == 0 || moves->items != NULL, SECTION_MOVES,
               "grundy_get_moves(%s) returned a list of size %zu with items NULL", text, moves->size);
    oracle_move_list *want = oracle_moves(heaps, n);
    bool *matched = calloc(want->count + 1, sizeof *matched);
    LAB_EXPECT(matched != NULL, SECTION_MOVES, "internal error: out of memory");
    for (size_t i = 0; i < moves->size; i++) {
        char what[256];
        snprintf(what, sizeof what, "move %zu of grundy_get_moves(%s)", i, text);
        int got[LAB_MAX_HEAPS];
        size_t got_n = lab_expand(moves->items[i], got, what);
        size_t k = 0;
        while (k < want->count &&
               !(want->lengths[k] == got_n &&
                 (got_n == 0 || memcmp(want->positions[k], got, got_n * sizeof *got) == 0)))
            k++;
        LAB_EXPECT(k < want->count, SECTION_MOVES,
                   "grundy_get_moves(%s) returned %s, which is not one move away", text,
                   lab_heaps_text(got, got_n));
        LAB_EXPECT(!matched[k], SECTION_MOVES,
                   "grundy_get_moves(%s) returned %s twice; each distinct position must appear once "
                   "(loop over distinct heights, not over heaps)",
                   text, lab_heaps_text(got, got_n));
        matched[k] = true;
    }
    for (size_t k = 0; k < want->count; k++)
        LAB_EXPECT(matched[k], SECTION_MOVES,
                   "grundy_get_moves(%s) is missing the move to %s (%zu of %zu moves returned)", text,
                   lab_heaps_text(want->positions[k], want->lengths[k]), moves->size, want->count);
    free(matched);
    oracle_move_list_free(want);
}


/* "(3,1) (5,1) (9,3)": a position's entries as its map stores them, read
 * with the invariant's bounds (size at most capacity, at most 12 shown). */
static const char *entries_text(const grundy_position *p)
{
    static char text[2][256];
    static int turn;
    char *out = text[turn++ % 2];
    size_t used = 0;
    out[0] = '\0';
    if (p == NULL || (p->size > 0 && p->entries == NULL) || p->size > p->capacity)
        return "(unreadable: NULL, or a size past its capacity)";
    if (p->size == 0)
        return "no entries";
    for (size_t i = 0; i < p->size && i < 12 && used < sizeof text[0]; i++)
        used += (size_t)snprintf(out + used, sizeof text[0] - used, "%s(%d,%d)", i ? " " : "",
                                 p->entries[i].height, p->entries[i].count);
    if (p->size > 12 && used < sizeof text[0])
        snprintf(out + used, sizeof text[0] - used, " ... (%zu entries)", p->size);
    return out;
}

/* Whether p's entries are exactly the invariant's form of heaps[0..n). */
static bool stored_as(const grundy_position *p, const int *heaps, size_t n)
{
    int want[LAB_MAX_HEAPS];
    if (p == NULL || n > LAB_MAX_HEAPS || (p->size > 0 && p->entries == NULL) || p->size > p->capacity)
        return false;
    if (n > 0)
        memcpy(want, heaps, n * sizeof *heaps);
    size_t m = oracle_canonicalize(want, n), k = 0;
    for (size_t i = 0; i < p->size; i++) {
        heap_count e = p->entries[i];
        if (e.count < 1 || e.height < 3 || (i > 0 && p->entries[i - 1].height >= e.height))
            return false;
        for (int c = 0; c < e.count; c++, k++)
            if (k >= m || want[k] != e.height)
                return false;
    }
    return k == m;
}

const char *lab_stored_note(const grundy_position *p, const int *heaps, size_t n, const char *function)
{
    /* Its own buffer: the note is an argument of lab_format's message. */
    static char note[768];
    if (stored_as(p, heaps, n))
        snprintf(note, sizeof note, ". Your map stores %s as the entries %s, as the invariant asks: the "
                 "position was built right, so the mistake is in %s",
                 lab_heaps_text(heaps, n), entries_text(p), function);
    else
        snprintf(note, sizeof note, ". Your map stores %s as the entries %s, which is not the "
                 "invariant's form: fix how positions are built first "
                 "(task0::add_heap_keeps_map_sorted says how)",
                 lab_heaps_text(heaps, n), entries_text(p));
    return note;
}

const char *lab_stored_pair_note(const grundy_position *a, const int *heaps_a, size_t n_a,
                                 const grundy_position *b, const int *heaps_b, size_t n_b,
                                 const char *function)
{
    if (!stored_as(a, heaps_a, n_a))
        return lab_stored_note(a, heaps_a, n_a, function);
    if (!stored_as(b, heaps_b, n_b))
        return lab_stored_note(b, heaps_b, n_b, function);
    static char note[768];
    snprintf(note, sizeof note, ". Your map stores them as the entries %s and %s, as the invariant "
             "asks: the positions were built right, so the mistake is in %s",
             entries_text(a), entries_text(b), function);
    return note;
}
