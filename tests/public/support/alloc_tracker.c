/*
 * alloc_tracker.c - the malloc family wrappers behind alloc_tracker.h.
 *
 * Live pointers sit in an open-addressing set with tombstones, whose own
 * storage comes from __real_malloc so the tracker never tracks itself.
 * Each slot also records whether its block was allocated while
 * grundy_get_moves ran (expansion_counter.c says when), so that a leak
 * can be told apart from what the memo keeps.
 * They are stored disguised (XORed with a mask): otherwise valgrind would
 * find them in the set and call every leaked block "still reachable".
 *
 * What the given code can see through them (issue 27.4): a new block's
 * bytes (its first POISON_CAP, as AddressSanitizer's malloc does) and the
 * bytes a realloc adds to a block are filled with ALLOC_POISON, so a field
 * never written is 0xa5a5a5a5, never a lucky 0 from a fresh page, and a
 * copy that reads entries past a position's size reads them
 * (checked_memcpy.c's memmove says so); except under valgrind, which must
 * still see them uninitialised. realloc(p, 0), which frees the block
 * (glibc), stops the test where there is one to stop (make test).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <malloc.h> /* malloc_usable_size */

#include "alloc_tracker.h"

/* The test's stop (lab_signals.c), where the program has one: not in the
 * grader's student processes. */
void lab_stop_test(const char *what, const char *next) __attribute__((weak, noreturn));

/* A weak reference: a program that does not count expansions (Task 0's)
 * has no moves to tell apart. */
bool expansion_running(void) __attribute__((weak));

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *block, size_t size);
void __real_free(void *block);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *block, size_t size);
void __wrap_free(void *block);

typedef uintptr_t disguised;
#define EMPTY ((disguised)0)
#define TOMBSTONE ((disguised)1)
#define MASK ((disguised)0xa5a5a5a5a5a5a5a5u)

static disguised disguise(const void *block)
{
    return (disguised)block ^ MASK;
}

static disguised *slots;
static bool *from_moves; /* per slot: allocated while grundy_get_moves ran */
static size_t capacity;  /* a power of two, or 0 before the first block */
static size_t used;      /* live pointers plus tombstones */
static size_t live;
static size_t live_from_moves;

static bool allocating_moves(void)
{
    return expansion_running != NULL && expansion_running();
}

static size_t slot_of(const void *block)
{
    uint64_t x = (uint64_t)(uintptr_t)block;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    x ^= x >> 33;
    return (size_t)x & (capacity - 1);
}

static void insert(void *block, bool moves);

static void rebuild(size_t new_capacity)
{
    disguised *old = slots;
    bool *old_from_moves = from_moves;
    size_t old_capacity = capacity;
    slots = __real_calloc(new_capacity, sizeof *slots);
    from_moves = __real_calloc(new_capacity, sizeof *from_moves);
    if (slots == NULL || from_moves == NULL) {
        fputs("alloc_tracker: out of memory\n", stderr);
        abort();
    }
    capacity = new_capacity;
    used = live = live_from_moves = 0;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i] != EMPTY && old[i] != TOMBSTONE)
            insert((void *)(old[i] ^ MASK), old_from_moves[i]);
    }
    __real_free(old);
    __real_free(old_from_moves);
}

static void insert(void *block, bool moves)
{
    if (2 * (used + 1) > capacity)
        rebuild(capacity ? (live * 4 > capacity ? capacity * 2 : capacity) : 1024);
    size_t i = slot_of(block);
    while (slots[i] != EMPTY && slots[i] != TOMBSTONE)
        i = (i + 1) & (capacity - 1);
    if (slots[i] == EMPTY)
        used++;
    slots[i] = disguise(block);
    from_moves[i] = moves;
    live++;
    live_from_moves += moves;
}

/* The last blocks freed that grundy_get_moves had allocated: a function
 * that returns an item of a move list after freeing the list returns one
 * of these, and the test can then say so (alloc_block_state). */
enum { FREED_RING = 1024 };
static disguised freed_from_moves[FREED_RING];
static size_t freed_next;

/* The slot holding `block`, or capacity when it is not live. */
static size_t find(const void *block)
{
    if (capacity == 0)
        return 0;
    for (size_t i = slot_of(block); slots[i] != EMPTY; i = (i + 1) & (capacity - 1))
        if (slots[i] == disguise(block))
            return i;
    return capacity;
}

/* True if `block` was live (and now is not). */
static int forget(void *block)
{
    size_t i = find(block);
    if (i == capacity)
        return 0;
    slots[i] = TOMBSTONE;
    live--;
    live_from_moves -= from_moves[i];
    if (from_moves[i])
        freed_from_moves[freed_next++ % FREED_RING] = disguise(block);
    return 1;
}

alloc_state alloc_block_state(const void *block)
{
    if (block != NULL && find(block) != capacity)
        return ALLOC_LIVE;
    for (size_t k = 0; block != NULL && k < FREED_RING; k++)
        if (freed_from_moves[k] == disguise(block))
            return ALLOC_FREED_FROM_MOVES;
    return ALLOC_NOT_LIVE;
}

static bool poisoning(void);

/* How many bytes of a new block are filled: its fields and small arrays,
 * not a large table's pages, which would all become resident. */
enum { POISON_CAP = 4096 };

void *__wrap_malloc(size_t size)
{
    void *block = __real_malloc(size);
    if (block != NULL) {
        if (poisoning())
            memset(block, ALLOC_POISON, size < POISON_CAP ? size : POISON_CAP);
        insert(block, allocating_moves());
    }
    return block;
}

void *__wrap_calloc(size_t count, size_t size)
{
    void *block = __real_calloc(count, size);
    if (block != NULL)
        insert(block, allocating_moves());
    return block;
}

/* Under valgrind, grown room is left alone: valgrind itself reports a read
 * of it. Told from the environment, not RUNNING_ON_VALGRIND: this file is
 * linked into the grader's student programs, which may hold no client
 * request (grader/gradelib/clientreq.py), and valgrind preloads its own
 * malloc into every program it runs (LD_PRELOAD=.../vgpreload_...so). */
static bool poisoning(void)
{
    static int answer = -1;
    if (answer < 0) {
        const char *preload = getenv("LD_PRELOAD");
        answer = preload == NULL || strstr(preload, "vgpreload") == NULL;
    }
    return answer;
}

void *__wrap_realloc(void *block, size_t size)
{
    if (size == 0 && lab_stop_test != NULL)
        lab_stop_test("called realloc with size 0",
                      "realloc(p, 0) frees the block (glibc) and returns NULL or a block with no "
                      "room: an entries array whose capacity is 0 (a copy of {} made with "
                      "capacity 0) doubled to 2 * 0 = 0 entries asks for it. Grow to at least one "
                      "entry, e.g. capacity ? 2 * capacity : 4 (handout #task-0-map)");
    size_t before = block != NULL && poisoning() ? malloc_usable_size(block) : 0;
    void *moved = __real_realloc(block, size);
    if (moved != NULL && poisoning() && size > before)
        memset((char *)moved + before, ALLOC_POISON, size - before);
    if (moved == NULL && size != 0)
        return NULL; /* the old block is still live */
    if (block != NULL)
        forget(block);
    if (moved != NULL)
        insert(moved, allocating_moves());
    return moved;
}

void __wrap_free(void *block)
{
    if (block != NULL)
        forget(block);
    __real_free(block);
}

size_t alloc_live_blocks(void)
{
    return live;
}

size_t alloc_live_blocks_from_moves(void)
{
    return live_from_moves;
}

size_t alloc_blocks_of_a_returned_array(void)
{
    return 1;
}
