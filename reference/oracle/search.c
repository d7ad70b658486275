/*
 * search.c - deciding P/N by searching the game tree, with no Sprague-Grundy
 * values.
 *
 * This is the oracle's second, independent opinion on who wins: the tests
 * compare it with the XOR rule of nim_values.c, and with the plain search of
 * plain_search.c, and a mistake in any one shows up as a disagreement.
 *
 * The search uses one fact beyond the rules: a position with two equal heaps
 * has the same outcome as the position without them (whatever one player
 * does to one copy, the other can copy on the twin). The fact is a theorem
 * about sums of games, not about nim values, so the search stays independent
 * of them. After cancelling pairs every height occurs at most once, so a
 * "reduced" position is a SET of heights >= 3, stored here as a bitset: bit
 * h of the key is set when height h is present. That makes every step the
 * search repeats millions of times cheap:
 *
 *   - a move is three bit flips: remove x, then toggle both parts (toggling
 *     is exactly "add a heap, or cancel it against its twin");
 *   - the hash is Zobrist's: the XOR of a fixed random word per height, so
 *     a child's hash is its parent's XOR three table entries, known before
 *     the child is even built;
 *   - the memo is one open-addressing array of keys, sized up front from
 *     the start's total height; bits 0 and 1 of a key (heights 0 and 1 never
 *     appear) say "slot used" and "is P";
 *   - children are built in a per-depth scratch row and pending moves go on
 *     one shared stack: nothing is allocated per position.
 *
 * Each position is expanded in two passes. Pass 1 computes every child's
 * hash (prefetching its memo slot) and then looks each child up: a terminal
 * or known P child makes the position N at once ("enhanced transposition
 * cutoff"). Pass 2 searches the children that were unknown, stopping at the
 * first P one. Moves are generated in the order that finds P children soonest
 * in practice: the most even splits first (the smaller part a descending),
 * ties broken by the smaller heap.
 */
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

/* ---- bitset keys ---- */

enum { FLAG_USED = 1, FLAG_P = 2, FLAGS = 3 };

/* Zobrist words: zobrist[h] for h < zobrist_len; 0 for the dead heights
 * 0, 1 and 2, which never appear in a key, so that the hash of a child is
 * parent ^ z[x] ^ z[a] ^ z[x - a] whatever the parts. */
static uint64_t *zobrist;
static size_t zobrist_len;

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static void ensure_zobrist(size_t len)
{
    if (zobrist_len >= len)
        return;
    uint64_t *z = realloc(zobrist, len * sizeof *z);
    if (z == NULL)
        oracle_out_of_memory("search hash words");
    for (size_t h = zobrist_len; h < len; h++)
        z[h] = h < 3 ? 0 : splitmix64(h);
    zobrist = z;
    zobrist_len = len;
}

static size_t lowest_bit(uint64_t bits)
{
    return (size_t)__builtin_ctzll(bits);
}

/* Hash of a key without flags. */
static uint64_t key_hash(const uint64_t *key, size_t width)
{
    uint64_t h = 0;
    for (size_t w = 0; w < width; w++)
        for (uint64_t bits = key[w]; bits != 0; bits &= bits - 1)
            h ^= zobrist[64 * w + lowest_bit(bits)];
    return h;
}

static bool key_is_empty(const uint64_t *key, size_t width)
{
    for (size_t w = 0; w < width; w++)
        if (key[w] != 0)
            return false;
    return true;
}

static void toggle(uint64_t *key, size_t h)
{
    key[h / 64] ^= (uint64_t)1 << (h % 64);
}

/* ---- the memo: open addressing over fixed-width keys ---- */

typedef struct {
    uint64_t *slots;    /* cap * width words; a slot is free iff word 0 is 0 */
    size_t cap;         /* a power of two, or 0 before the first search */
    size_t size;
    size_t width;       /* 64-bit words per key */
} bit_table;

static bit_table memo;

static uint64_t *slot_at(const bit_table *t, uint64_t hash)
{
    return t->slots + ((size_t)hash & (t->cap - 1)) * t->width;
}

/* The slot holding `key` (which has no flags), or the free slot where it
 * would go; linear probing. The table is never full (load <= 1/2). */
static uint64_t *find_slot(const bit_table *t, const uint64_t *key,
                           uint64_t hash)
{
    size_t width = t->width;
    uint64_t *s = slot_at(t, hash);
    uint64_t *end = t->slots + t->cap * width;
    for (;;) {
        if (s[0] == 0)
            return s;
        if ((s[0] & ~(uint64_t)FLAGS) == key[0] &&
            (width == 1 || memcmp(s + 1, key + 1, (width - 1) * sizeof *s) == 0))
            return s;
        s += width;
        if (s == end)
            s = t->slots;
    }
}

/* Re-creates the table with `cap` slots of `width` words, width >= the old
 * width (keys are zero-extended). */
static void rebuild(bit_table *t, size_t cap, size_t width)
{
    ensure_zobrist(64 * width);
    uint64_t *slots = calloc(cap * width, sizeof *slots);
    uint64_t *key = calloc(width, sizeof *key);
    if (slots == NULL || key == NULL)
        oracle_out_of_memory("search memo");
    bit_table grown = { slots, cap, t->size, width };
    for (size_t i = 0; i < t->cap; i++) {
        const uint64_t *old = t->slots + i * t->width;
        if (old[0] == 0)
            continue;
        memcpy(key, old, t->width * sizeof *key);
        key[0] &= ~(uint64_t)FLAGS;
        uint64_t *dst = find_slot(&grown, key, key_hash(key, width));
        memcpy(dst, old, t->width * sizeof *dst);
    }
    free(key);
    free(t->slots);
    *t = grown;
}

/* Stores a key that is not present yet; may move every slot. */
static void memo_insert(const uint64_t *key, uint64_t hash, bool is_p)
{
    if (2 * (memo.size + 1) > memo.cap)
        rebuild(&memo, 2 * memo.cap, memo.width);
    uint64_t *s = find_slot(&memo, key, hash);
    memcpy(s, key, memo.width * sizeof *s);
    s[0] |= FLAG_USED | (is_p ? FLAG_P : 0);
    memo.size++;
}

/* 1 if known P, 0 if known N, -1 if unknown. */
static int memo_lookup(const uint64_t *key, uint64_t hash)
{
    const uint64_t *s = find_slot(&memo, key, hash);
    if (s[0] == 0)
        return -1;
    return (s[0] & FLAG_P) != 0;
}

/* The number of positions the search meets grows about 2.75-fold per 10 of
 * total height (about a million for a heap of 100), so the table is
 * reserved for that many up front, up to 2^22 slots; beyond that it grows
 * when it must. */
static size_t expected_capacity(long total)
{
    double entries = 1e6;
    for (long t = 100; t > total && entries > 256; t -= 10)
        entries /= 2.75;
    for (long t = 100; t < total && entries < 4e6; t += 10)
        entries *= 2.75;
    size_t cap = 1024;
    while ((double)cap < 2 * entries && cap < ((size_t)1 << 22))
        cap *= 2;
    return cap;
}

/* ---- the search ---- */

/* The keys of the current line of play: row d of `rows` (width words) is
 * the position at depth d. */
static uint64_t *rows;
static size_t rows_depth, rows_width;

typedef struct {
    uint32_t x, a;      /* split heap x into a and x - a */
    uint64_t hash;      /* the child's hash */
} pending_move;

/* One stack of pending moves shared by all depths: a position's moves sit
 * above its parent's. */
static pending_move *pending;
static size_t pending_cap;

static uint64_t expanded;

/* Both arrays may move when they grow, so the search re-derives its
 * pointers into them after every recursive call. */
static void ensure_rows(size_t depth)
{
    if (depth < rows_depth)
        return;
    size_t n = rows_depth ? 2 * rows_depth : 64;
    while (n <= depth)
        n *= 2;
    uint64_t *p = realloc(rows, n * rows_width * sizeof *p);
    if (p == NULL)
        oracle_out_of_memory("search stack");
    rows = p;
    rows_depth = n;
}

static void ensure_pending(size_t n)
{
    if (n <= pending_cap)
        return;
    size_t cap = pending_cap ? 2 * pending_cap : 256;
    while (cap < n)
        cap *= 2;
    pending_move *p = realloc(pending, cap * sizeof *p);
    if (p == NULL)
        oracle_out_of_memory("search moves");
    pending = p;
    pending_cap = cap;
}

/* Builds in `child` the position `s` after splitting x into a and x - a. */
static void make_child(uint64_t *child, const uint64_t *s, size_t width,
                       size_t x, size_t a)
{
    memcpy(child, s, width * sizeof *child);
    toggle(child, x);
    if (a >= 3)
        toggle(child, a);
    if (x - a >= 3)
        toggle(child, x - a);
}

/* Pushes every move of row `depth` on the pending stack from index `top`,
 * in search order, and returns how many. */
static size_t push_moves(size_t depth, uint64_t hash, size_t top)
{
    size_t width = rows_width;
    const uint64_t *s = rows + depth * width;
    size_t largest = 0, count = 0;
    for (size_t w = 0; w < width; w++)
        for (uint64_t bits = s[w]; bits != 0; bits &= bits - 1) {
            largest = 64 * w + lowest_bit(bits);
            count += (largest - 1) / 2;
        }
    ensure_pending(top + count);
    pending_move *out = pending + top;
    size_t n = 0;
    for (size_t a = (largest - 1) / 2; a >= 1; a--) {
        /* every heap x > 2a can be split into a and x - a */
        size_t from = 2 * a + 1;
        for (size_t w = from / 64; w < width; w++) {
            uint64_t bits = s[w];
            if (w == from / 64)
                bits &= ~(uint64_t)0 << (from % 64);
            for (; bits != 0; bits &= bits - 1) {
                size_t x = 64 * w + lowest_bit(bits);
                uint64_t ch = hash ^ zobrist[x] ^ zobrist[a] ^ zobrist[x - a];
                __builtin_prefetch(slot_at(&memo, ch));
                out[n].x = (uint32_t)x;
                out[n].a = (uint32_t)a;
                out[n].hash = ch;
                n++;
            }
        }
    }
    return n;
}

/* Is the position in row `depth` (with that hash) a P-position? Its moves
 * use the pending stack from index `top` up.
 *
 * Every move either lowers the total height of the reduced position or
 * keeps it and adds a heap, and each line of play is a line of the real
 * game (split one copy of the heap), so the depth is at most the total
 * height of the start. */
static bool solve(size_t depth, uint64_t hash, size_t top)
{
    int known = memo_lookup(rows + depth * rows_width, hash);
    if (known >= 0)
        return known == 1;
    expanded++;
    ensure_rows(depth + 1);
    size_t width = rows_width;

    /* Pass 1: a terminal or known P child decides at once; the unknown
     * children stay on the stack, in order. */
    size_t n = push_moves(depth, hash, top);
    const uint64_t *s = rows + depth * width;
    uint64_t *child = rows + (depth + 1) * width;
    pending_move *ms = pending + top;
    size_t unknown = 0;
    for (size_t i = 0; i < n; i++) {
        make_child(child, s, width, ms[i].x, ms[i].a);
        int k = key_is_empty(child, width) ? 1 : memo_lookup(child, ms[i].hash);
        if (k == 1) {
            memo_insert(s, hash, false);
            return false;
        }
        if (k < 0)
            ms[unknown++] = ms[i];
    }

    /* Pass 2: search them until one is P. A child may have been solved in
     * the meantime, while searching a sibling: solve() looks it up again. */
    for (size_t i = 0; i < unknown; i++) {
        pending_move m = pending[top + i];
        make_child(rows + (depth + 1) * width, rows + depth * width, width,
                   m.x, m.a);
        if (solve(depth + 1, m.hash, top + unknown)) {
            memo_insert(rows + depth * width, hash, false);
            return false;
        }
    }
    memo_insert(rows + depth * width, hash, true);
    return true;
}

bool oracle_search_is_p(const int *heaps, size_t n)
{
    int top = 2;
    for (size_t i = 0; i < n; i++)
        if (heaps[i] > top)
            top = heaps[i];
    size_t width = (size_t)top / 64 + 1;
    if (width < memo.width)
        width = memo.width;
    if (rows_width != width) {
        free(rows);             /* its rows have the old width */
        rows = NULL;
        rows_depth = 0;
        rows_width = width;
    }
    ensure_rows(0);
    ensure_zobrist(64 * width);

    /* the reduced start: heights >= 3, pairs cancelled */
    memset(rows, 0, width * sizeof *rows);
    for (size_t i = 0; i < n; i++)
        if (heaps[i] >= 3)
            toggle(rows, (size_t)heaps[i]);
    if (key_is_empty(rows, width))
        return true;            /* no move: the player to move loses */
    long total = 0;
    for (size_t w = 0; w < width; w++)
        for (uint64_t bits = rows[w]; bits != 0; bits &= bits - 1)
            total += (long)(64 * w + lowest_bit(bits));

    size_t cap = expected_capacity(total);
    if (memo.cap < cap || memo.width < width)
        rebuild(&memo, memo.cap > cap ? memo.cap : cap, width);
    return solve(0, key_hash(rows, width), 0);
}

void oracle_search_reset(void)
{
    free(memo.slots);
    memo = (bit_table){ NULL, 0, 0, 0 };
    free(rows);
    rows = NULL;
    rows_depth = rows_width = 0;
    free(pending);
    pending = NULL;
    pending_cap = 0;
    free(zobrist);
    zobrist = NULL;
    zobrist_len = 0;
    expanded = 0;
}

size_t oracle_search_memo_size(void)
{
    return memo.size;
}

uint64_t oracle_search_expanded(void)
{
    return expanded;
}
