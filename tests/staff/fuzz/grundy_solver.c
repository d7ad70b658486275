/*
 * grundy_solver.c - the fuzzer's hostile student, Tasks 1-2 (see
 * tests/staff/fuzz/README.md).
 *
 * A correct memoized P/N solver with a memo table of its own, behind API
 * functions that first ask the engine (hostile_engine.h) what the call
 * does. It never calls the position file's functions, whose own engine
 * would count those calls as requests: the search works on arrays of
 * (height, count) entries read from the position it is given.
 *
 * Its seed: FUZZ_SEED when compiled in; otherwise (the fuzz driver) it is
 * drawn from the heaps of the position asked about, which the driver draws
 * from its seed, so a seed still replays the same misbehaviour.
 */
#define _GNU_SOURCE
#include "hostile_engine.h"

/* ---- the honest solver --------------------------------------------------- */

typedef struct memo_entry {
    struct memo_entry *next;
    uint64_t hash;
    size_t size;
    bool is_p;
    heap_count heaps[]; /* the position's entries, sorted */
} memo_entry;

enum { MEMO_BUCKETS = 1 << 14 };
static memo_entry **memo;
static size_t memo_count;

static uint64_t hash_of(const heap_count *heaps, size_t size)
{
    uint64_t hash = 0x84222325cbf29ce4u;
    for (size_t i = 0; i < size; i++)
        hash = hostile_mix(hash ^ ((uint64_t)(uint32_t)heaps[i].height << 32) ^ (uint32_t)heaps[i].count);
    return hash;
}

static memo_entry *recall(const heap_count *heaps, size_t size, uint64_t hash)
{
    for (memo_entry *e = memo ? memo[hash % MEMO_BUCKETS] : NULL; e != NULL; e = e->next)
        if (e->hash == hash && e->size == size && memcmp(e->heaps, heaps, size * sizeof *heaps) == 0)
            return e;
    return NULL;
}

static void remember(const heap_count *heaps, size_t size, uint64_t hash, bool is_p)
{
    if (memo == NULL && (memo = calloc(MEMO_BUCKETS, sizeof *memo)) == NULL)
        return;
    memo_entry *e = malloc(sizeof *e + size * sizeof *heaps);
    if (e == NULL)
        return;
    memcpy(e->heaps, heaps, size * sizeof *heaps);
    e->hash = hash;
    e->size = size;
    e->is_p = is_p;
    e->next = memo[hash % MEMO_BUCKETS];
    memo[hash % MEMO_BUCKETS] = e;
    memo_count++;
}

/* `out` (room for size + 2 entries) gets `heaps` with one heap of heaps[i]
 * split into `smaller` and the rest; returns its size. */
static size_t split(const heap_count *heaps, size_t size, size_t i, int smaller, heap_count *out)
{
    int parts[2] = {smaller, heaps[i].height - smaller};
    size_t n = 0;
    for (size_t j = 0; j < size; j++) {
        out[n] = heaps[j];
        if (j == i && --out[n].count == 0)
            continue;
        n++;
    }
    for (int k = 0; k < 2; k++) {
        if (parts[k] < 3)
            continue;
        size_t at = 0;
        while (at < n && out[at].height < parts[k])
            at++;
        if (at < n && out[at].height == parts[k]) {
            out[at].count++;
            continue;
        }
        memmove(&out[at + 1], &out[at], (n - at) * sizeof *out);
        out[at] = (heap_count){parts[k], 1};
        n++;
    }
    return n;
}

static bool solve_is_p(const heap_count *heaps, size_t size)
{
    if (size == 0)
        return true;
    uint64_t hash = hash_of(heaps, size);
    memo_entry *known = recall(heaps, size, hash);
    if (known != NULL)
        return known->is_p;
    heap_count *child = malloc((size + 2) * sizeof *child);
    if (child == NULL)
        return true;
    bool is_p = true;
    for (size_t i = 0; i < size && is_p; i++)
        for (int smaller = 1; smaller < heaps[i].height - smaller && is_p; smaller++)
            if (solve_is_p(child, split(heaps, size, i, smaller, child)))
                is_p = false;
    free(child);
    remember(heaps, size, hash, is_p);
    return is_p;
}

/* ---- the API -------------------------------------------------------------- */

static uint64_t last_seed = 1;
static uint32_t solver_calls;

/* The engine's seed for this call (see the header comment). */
static void choose_seed(const grundy_position *p)
{
    if (FUZZ_SEED != 0)
        return;
    if (p != NULL && p->entries != NULL && p->size < 1000)
        last_seed = hash_of(p->entries, p->size) | 1;
    hostile_seed = last_seed;
    hostile_epoch = 0; /* no sequence known: forged replies are out of turn */
    hostile_calls = solver_calls++;
}

bool grundy_is_terminal(const grundy_position *p)
{
    choose_seed(p);
    hostile_answer how = hostile_turn(SHAPE_U64_POS, p != NULL ? (uint64_t)p->size : 0);
    bool terminal = p->size == 0;
    hostile_spoil((grundy_position *)p, how);
    return how == ANSWER_WRONG ? !terminal : terminal;
}

bool grundy_is_p_position(const grundy_position *p)
{
    choose_seed(p);
    hostile_answer how = hostile_turn(SHAPE_U64_POS, p != NULL ? (uint64_t)p->size : 0);
    bool is_p = solve_is_p(p->entries, p->size);
    hostile_spoil((grundy_position *)p, how);
    return how == ANSWER_WRONG ? !is_p : is_p;
}

bool grundy_is_n_position(const grundy_position *p)
{
    choose_seed(p);
    hostile_answer how = hostile_turn(SHAPE_U64_POS, p != NULL ? (uint64_t)p->size : 0);
    bool is_n = p->size > 0 && !solve_is_p(p->entries, p->size);
    hostile_spoil((grundy_position *)p, how);
    return how == ANSWER_WRONG ? !is_n : is_n;
}

void grundy_memo_clear(void)
{
    choose_seed(NULL);
    if (hostile_turn(SHAPE_NONE, 0) == ANSWER_WRONG || memo == NULL)
        return; /* nothing cleared */
    for (size_t b = 0; b < MEMO_BUCKETS; b++)
        for (memo_entry *e = memo[b], *next; e != NULL; e = next) {
            next = e->next;
            free(e);
        }
    free(memo);
    memo = NULL;
    memo_count = 0;
}

size_t grundy_memo_size(void)
{
    choose_seed(NULL);
    return hostile_turn(SHAPE_U64, 0) == ANSWER_WRONG ? memo_count + 3 : memo_count;
}
