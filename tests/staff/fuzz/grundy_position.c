/*
 * grundy_position.c - the fuzzer's hostile student, Task 0 (see
 * tests/staff/fuzz/README.md).
 *
 * A correct heap-count map (the honest_* functions, written like the
 * model solution) behind API functions that first ask the engine
 * (hostile_engine.h) what this call does: answer honestly, spoil the
 * answer, or misbehave on the reply pipe, the output, the clock, signals,
 * exits or forbidden system calls. A constructor does a bounded amount of
 * hostile work before the first request; a destructor sometimes spins.
 *
 * What an honest grader must give it: no point for an answer the oracle
 * does not confirm, a valid report within the time cap, nothing left
 * behind. The fuzz driver and tests/staff/fuzz/check-graded assert that.
 */
#define _GNU_SOURCE
#include "hostile_engine.h"

enum { SMALLEST_LIVE_HEAP = 3 };

/* ---- the honest map ----------------------------------------------------- */

static size_t lower_bound(const grundy_position *p, int height)
{
    size_t low = 0, high = p->size;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (p->entries[mid].height < height)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

static void honest_add(grundy_position *p, int height)
{
    if (height < SMALLEST_LIVE_HEAP)
        return;
    size_t i = lower_bound(p, height);
    if (i < p->size && p->entries[i].height == height) {
        p->entries[i].count++;
        return;
    }
    if (p->size == p->capacity) {
        size_t capacity = p->capacity ? 2 * p->capacity : 4;
        heap_count *entries = realloc(p->entries, capacity * sizeof *entries);
        if (entries == NULL)
            return;
        p->entries = entries;
        p->capacity = capacity;
    }
    memmove(&p->entries[i + 1], &p->entries[i], (p->size - i) * sizeof *p->entries);
    p->entries[i] = (heap_count){.height = height, .count = 1};
    p->size++;
}

static void honest_remove(grundy_position *p, int height)
{
    size_t i = lower_bound(p, height);
    if (i == p->size || p->entries[i].height != height)
        return;
    if (--p->entries[i].count > 0)
        return;
    memmove(&p->entries[i], &p->entries[i + 1], (p->size - i - 1) * sizeof *p->entries);
    p->size--;
}

static grundy_position *honest_new(int height)
{
    grundy_position *p = calloc(1, sizeof *p);
    if (p != NULL)
        honest_add(p, height);
    return p;
}

static grundy_position *honest_copy(const grundy_position *p)
{
    grundy_position *copy = calloc(1, sizeof *copy);
    if (copy == NULL || p->size == 0)
        return copy;
    copy->entries = malloc(p->size * sizeof *copy->entries);
    if (copy->entries == NULL) {
        free(copy);
        return NULL;
    }
    memcpy(copy->entries, p->entries, p->size * sizeof *copy->entries);
    copy->size = copy->capacity = p->size;
    return copy;
}

/* ---- the API: the engine first, then the honest answer, maybe spoiled ---- */

/* The salt of a call on a position: its size (the position is the
 * student's own, whatever state it is in). */
static uint64_t size_of(const grundy_position *p)
{
    return p != NULL ? (uint64_t)p->size : 0;
}

grundy_position *grundy_new(int heap_height)
{
    if (FUZZ_SEED == 0 && heap_height <= -HOSTILE_ANNOUNCE_BASE) {
        /* The driver's announcement: the seed and this request's sequence. */
        uint32_t a = (uint32_t)(-(int64_t)heap_height - HOSTILE_ANNOUNCE_BASE);
        hostile_seed = (a >> 15) + 1;
        hostile_epoch = a & 0x7fff;
        hostile_calls = 0;
        return honest_new(heap_height);
    }
    hostile_answer how = hostile_turn(SHAPE_POS, (uint64_t)heap_height);
    grundy_position *p = honest_new(heap_height);
    if (how == ANSWER_WRONG && p != NULL)
        honest_add(p, heap_height >= SMALLEST_LIVE_HEAP ? heap_height + 1 : 5);
    hostile_spoil(p, how);
    return p;
}

grundy_position *grundy_copy(const grundy_position *p)
{
    hostile_answer how = hostile_turn(SHAPE_POS_POS, size_of(p));
    grundy_position *copy = honest_copy(p);
    if (how == ANSWER_WRONG && copy != NULL)
        honest_add(copy, 4);
    hostile_spoil(copy, how);
    return copy;
}

void grundy_free(grundy_position *p)
{
    if (hostile_turn(SHAPE_NONE, size_of(p)) == ANSWER_WRONG)
        return; /* a leak */
    if (p == NULL)
        return;
    free(p->entries);
    free(p);
}

int grundy_count(const grundy_position *p, int height)
{
    hostile_answer how = hostile_turn(SHAPE_I32_POS, (uint64_t)height);
    size_t i = lower_bound(p, height);
    int count = i < p->size && p->entries[i].height == height ? p->entries[i].count : 0;
    return how == ANSWER_WRONG ? count + 1 : count;
}

void grundy_add_heap(grundy_position *p, int height)
{
    hostile_answer how = hostile_turn(SHAPE_POS, (uint64_t)height);
    if (how == ANSWER_WRONG)
        honest_add(p, height >= SMALLEST_LIVE_HEAP ? height + 1 : SMALLEST_LIVE_HEAP);
    else
        honest_add(p, height);
    hostile_spoil(p, how);
}

void grundy_remove_heap(grundy_position *p, int height)
{
    hostile_answer how = hostile_turn(SHAPE_POS, (uint64_t)height);
    if (how != ANSWER_WRONG)
        honest_remove(p, height);
    hostile_spoil(p, how);
}

bool grundy_equals(const grundy_position *a, const grundy_position *b)
{
    hostile_answer how = hostile_turn(SHAPE_U64_POS_POS, size_of(a) * 31 + size_of(b));
    bool same = a->size == b->size;
    for (size_t i = 0; same && i < a->size; i++)
        same = a->entries[i].height == b->entries[i].height && a->entries[i].count == b->entries[i].count;
    return how == ANSWER_WRONG ? !same : same;
}

uint64_t grundy_hash(const grundy_position *p)
{
    hostile_answer how = hostile_turn(SHAPE_U64_POS, size_of(p));
    uint64_t hash = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < p->size; i++)
        hash = hostile_mix(hash ^ ((uint64_t)(uint32_t)p->entries[i].height << 32) ^
                           (uint32_t)p->entries[i].count);
    return how == ANSWER_WRONG ? hash + 1 : hash;
}

position_list *grundy_get_moves(const grundy_position *p)
{
    hostile_answer how = hostile_turn(SHAPE_MOVES_POS, size_of(p));
    position_list *moves = position_list_new();
    if (moves == NULL)
        return NULL;
    if (how == ANSWER_HUGE) {
        /* More positions than the wire carries, every one NULL. */
        size_t size = HOSTILE_MAX_ENTRIES + 1 + hostile_random(1000);
        grundy_position **items = calloc(size, sizeof *items);
        if (items != NULL) {
            free(moves->items);
            moves->items = items;
            moves->size = moves->capacity = size;
        }
        return moves;
    }
    for (size_t i = 0; i < p->size; i++) {
        int height = p->entries[i].height;
        for (int smaller = 1; smaller < height - smaller; smaller++) {
            grundy_position *next = honest_copy(p);
            if (next == NULL)
                continue;
            honest_remove(next, height);
            honest_add(next, smaller);
            honest_add(next, height - smaller);
            position_list_push(moves, next);
        }
    }
    if (how == ANSWER_WRONG && moves->size > 0) {
        if (hostile_random(2))
            position_list_push(moves, honest_copy(moves->items[0])); /* a move twice */
        else {
            grundy_position *dropped = moves->items[--moves->size]; /* a move missing */
            free(dropped->entries);
            free(dropped);
        }
    } else if (moves->size > 0) {
        hostile_spoil(moves->items[0], how);
    }
    return moves;
}

/* ---- before the first request, after the last ------------------------------ */

__attribute__((constructor)) static void hostile_constructor(void)
{
    /* Bounded: every student process runs it. Output, a little spinning,
     * memory, a signal it ignores, a question the sandbox answers with an
     * error. */
    printf("hostile constructor: before main\n");
    fprintf(stderr, "hostile constructor: on stderr too\n");
    hostile_spin(0.002);
    free(malloc(1 << 20));
    signal(SIGWINCH, SIG_IGN);
    raise(SIGWINCH);
    char link[64];
    if (readlink("/proc/self/exe", link, sizeof link) < 0)
        fprintf(stderr, "hostile constructor: readlink refused, as it should be\n");
}

__attribute__((destructor)) static void hostile_destructor(void)
{
    /* Runs after the proxy's quit (or an exit()): one process in 32 spins
     * until the proxy's shutdown grace ends it (each costs the driver that
     * grace, a second). */
    uint64_t seed = FUZZ_SEED ? (uint64_t)FUZZ_SEED : hostile_seed;
#ifdef FUZZ_HONEST
    seed = 0;
#endif
    uint64_t draw = hostile_mix(seed ^ 0xd35c0u ^ ((uint64_t)hostile_epoch << 20) ^ hostile_calls);
    if (seed != 0 && draw % 32 == 0)
        hostile_spin(-1);
    printf("hostile destructor: after main\n");
}
