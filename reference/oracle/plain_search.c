/*
 * plain_search.c - the plain memoized search, and counting reachable
 * positions (as they are, or with pairs of equal heaps cancelled).
 *
 * Both walk the real game: positions are canonical int arrays (heights >= 3,
 * ascending, repeats kept), moves come from oracle_moves(), and the table is
 * a simple open-addressing table of copied arrays. No pair cancellation, no
 * bitsets, no move ordering: oracle_plain_search_is_p() is the yardstick
 * that the fast search of search.c is cross-checked against, and it is slow
 * (a single heap of 40 takes some hundredths of a second, 60 some seconds).
 */
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

/* ---- a hash table keyed by int arrays (open addressing) ---- */

typedef struct {
    int *key;           /* owned; NULL for an empty key or an empty slot */
    size_t len;
    uint64_t hash;
    bool used;
    bool is_p;
} slot;

typedef struct {
    slot *slots;
    size_t cap;         /* a power of two, or 0 before the first insert */
    size_t size;
} pos_table;

static uint64_t hash_key(const int *key, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)len;
    for (size_t i = 0; i < len; i++) {
        h ^= (uint64_t)(uint32_t)key[i];
        h *= 0x100000001b3u;
        h ^= h >> 29;
    }
    /* final mix so that the low bits used for the index depend on all */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return h;
}

static bool same_key(const slot *s, const int *key, size_t len, uint64_t h)
{
    return s->hash == h && s->len == len &&
           (len == 0 || memcmp(s->key, key, len * sizeof *key) == 0);
}

/* The slot holding `key`, or the empty slot where it would go. */
static slot *find_slot(slot *slots, size_t cap, const int *key, size_t len,
                       uint64_t h)
{
    size_t i = (size_t)h & (cap - 1);
    while (slots[i].used && !same_key(&slots[i], key, len, h))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static void grow(pos_table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    slot *slots = calloc(cap, sizeof *slots);
    if (slots == NULL)
        oracle_out_of_memory("position table");
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].used)
            continue;
        slot *dst = find_slot(slots, cap, t->slots[i].key, t->slots[i].len,
                              t->slots[i].hash);
        *dst = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
}

static slot *lookup(const pos_table *t, const int *key, size_t len)
{
    if (t->cap == 0)
        return NULL;
    slot *s = find_slot(t->slots, t->cap, key, len, hash_key(key, len));
    return s->used ? s : NULL;
}

/* Stores a copy of `key` (which must not be present yet). */
static slot *insert(pos_table *t, const int *key, size_t len, bool is_p)
{
    if (10 * (t->size + 1) > 7 * t->cap)
        grow(t);
    uint64_t h = hash_key(key, len);
    slot *s = find_slot(t->slots, t->cap, key, len, h);
    s->key = NULL;
    if (len > 0) {
        s->key = malloc(len * sizeof *key);
        if (s->key == NULL)
            oracle_out_of_memory("table key");
        memcpy(s->key, key, len * sizeof *key);
    }
    s->len = len;
    s->hash = h;
    s->used = true;
    s->is_p = is_p;
    t->size++;
    return s;
}

static void table_free(pos_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].used)
            free(t->slots[i].key);
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
    t->size = 0;
}

/* ---- the plain memoized search ---- */

/* Memoized P/N over canonical positions; `memo` holds every position
 * solved so far. The recursion depth is at most the total height. */
static bool plain_is_p(pos_table *memo, const int *pos, size_t len)
{
    if (len == 0)
        return true;            /* no move: the player to move loses */
    slot *known = lookup(memo, pos, len);
    if (known != NULL)
        return known->is_p;
    oracle_move_list *moves = oracle_moves(pos, len);
    bool is_p = true;
    for (size_t i = 0; i < moves->count && is_p; i++)
        if (plain_is_p(memo, moves->positions[i], moves->lengths[i]))
            is_p = false;       /* a move to a P-position wins */
    oracle_move_list_free(moves);
    insert(memo, pos, len, is_p);
    return is_p;
}

/* The memo size of the last oracle_plain_search_is_p(), for measurements. */
static size_t last_memo_size;

size_t oracle_plain_search_last_memo_size(void)
{
    return last_memo_size;
}

bool oracle_plain_search_is_p(const int *heaps, size_t n)
{
    pos_table memo = { NULL, 0, 0 };
    int *start = NULL;
    if (n > 0) {
        start = malloc(n * sizeof *start);
        if (start == NULL)
            oracle_out_of_memory("plain search start");
        memcpy(start, heaps, n * sizeof *start);
    }
    size_t len = oracle_canonicalize(start, n);
    bool is_p = plain_is_p(&memo, start, len);
    free(start);
    last_memo_size = memo.size;
    table_free(&memo);
    return is_p;
}

/* ---- counting reachable positions ---- */

/* Drops every pair of equal heights from a canonical array (so each
 * height is left once or not at all); returns the new length. */
static size_t cancel_pairs(int *heaps, size_t len)
{
    size_t kept = 0;
    for (size_t i = 0; i < len; i++) {
        if (i + 1 < len && heaps[i] == heaps[i + 1])
            i++; /* this heap and the next cancel */
        else
            heaps[kept++] = heaps[i];
    }
    return kept;
}

/* The nonterminal positions reachable from heaps[0 .. n-1], with every
 * position reduced by cancel_pairs() first when `cancel` is set (the
 * positions a search over reduced positions expands). */
static size_t count_reachable(const int *heaps, size_t n, bool cancel)
{
    pos_table seen = { NULL, 0, 0 };
    size_t len;
    int *start = NULL;
    if (n > 0) {
        start = malloc(n * sizeof *start);
        if (start == NULL)
            oracle_out_of_memory("count start");
        memcpy(start, heaps, n * sizeof *start);
    }
    len = oracle_canonicalize(start, n);
    if (cancel)
        len = cancel_pairs(start, len);
    if (len == 0) {
        free(start);
        return 0;               /* the empty position has no move */
    }

    /* Depth-first over positions; the stack points at keys owned by the
     * table, which stay put when the table grows. */
    size_t stack_cap = 64, top = 0;
    const int **stack = malloc(stack_cap * sizeof *stack);
    size_t *stack_len = malloc(stack_cap * sizeof *stack_len);
    if (stack == NULL || stack_len == NULL)
        oracle_out_of_memory("count stack");

    slot *first = insert(&seen, start, len, false);
    stack[top] = first->key;
    stack_len[top] = first->len;
    top++;
    free(start);

    while (top > 0) {
        top--;
        const int *pos = stack[top];
        size_t plen = stack_len[top];
        oracle_move_list *moves = oracle_moves(pos, plen);
        for (size_t i = 0; i < moves->count; i++) {
            size_t clen = moves->lengths[i];
            if (cancel) /* the list is ours to change: it is freed below */
                clen = cancel_pairs(moves->positions[i], clen);
            if (clen == 0 || lookup(&seen, moves->positions[i], clen))
                continue;
            slot *s = insert(&seen, moves->positions[i], clen, false);
            if (top == stack_cap) {
                stack_cap *= 2;
                const int **ns = realloc(stack, stack_cap * sizeof *ns);
                if (ns == NULL)
                    oracle_out_of_memory("count stack");
                stack = ns;
                size_t *nl = realloc(stack_len, stack_cap * sizeof *nl);
                if (nl == NULL)
                    oracle_out_of_memory("count stack");
                stack_len = nl;
            }
            stack[top] = s->key;
            stack_len[top] = s->len;
            top++;
        }
        oracle_move_list_free(moves);
    }

    size_t count = seen.size;
    free(stack);
    free(stack_len);
    table_free(&seen);
    return count;
}

size_t oracle_count_reachable_nonterminal(const int *heaps, size_t n)
{
    return count_reachable(heaps, n, false);
}

size_t oracle_count_reachable_reduced(const int *heaps, size_t n)
{
    return count_reachable(heaps, n, true);
}
