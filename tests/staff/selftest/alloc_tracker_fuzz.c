/* alloc_tracker_fuzz.c - random mallocs, callocs, reallocs and frees through
 * tests/public/support/alloc_tracker.c, each compared with a plain list of
 * the live blocks: the live counts (all, and those allocated while
 * grundy_get_moves "ran", drawn at random here), every live block found,
 * every freed one not, and a freed move-list block told as such.
 * Usage: alloc_tracker_fuzz FIRST_SEED LAST_SEED; prints the failing seed. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc_tracker.h"

/* The tracker is asked about blocks just freed: by address, which is the
 * point of this test, not a use of the freed block. */
#if defined(__GNUC__) && __GNUC__ >= 12 && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif

enum { OPS = 60000, MOST_LIVE = 5000 };

static uint64_t state;
static bool moves_now;

static uint64_t draw(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* The tracker asks this (weakly linked in the lab's programs). */
bool expansion_running(void)
{
    return moves_now;
}

typedef struct {
    void *block;
    bool moves;
} record;

static record live[MOST_LIVE];
static size_t live_count;

static int fail(unsigned seed, long op, const char *what)
{
    printf("alloc tracker: seed %u, operation %ld: %s\n", seed, op, what);
    return 1;
}

static int run(unsigned seed)
{
    state = 0x9e3779b97f4a7c15u ^ seed;
    live_count = 0;
    size_t target = 1 + draw() % MOST_LIVE; /* live blocks hover around it */
    for (long op = 0; op < OPS; op++) {
        if (op % 5000 == 0)
            target = 1 + draw() % MOST_LIVE;
        moves_now = draw() % 3 == 0;
        size_t size = 1 + draw() % 200;
        bool add = live_count == 0 || (live_count < MOST_LIVE && draw() % (2 * target) >= live_count);
        if (add) {
            void *block = draw() % 4 == 0 ? calloc(1, size) : malloc(size);
            live[live_count++] = (record){block, moves_now};
        } else {
            size_t k = draw() % live_count;
            record old = live[k];
            uintptr_t address = (uintptr_t)old.block;
            if (draw() % 4 == 0) {
                void *moved = realloc(old.block, size + 64);
                live[k] = (record){moved, moves_now};
                if ((uintptr_t)moved != address && alloc_block_state((void *)address) == ALLOC_LIVE)
                    return fail(seed, op, "a block moved by realloc is still live");
            } else {
                free(old.block);
                live[k] = live[--live_count];
                bool reused = false;
                for (size_t i = 0; i < live_count; i++)
                    reused |= (uintptr_t)live[i].block == address;
                alloc_state now = alloc_block_state((void *)address);
                if (!reused && now == ALLOC_LIVE)
                    return fail(seed, op, "a freed block is still live");
                if (!reused && old.moves && now != ALLOC_FREED_FROM_MOVES)
                    return fail(seed, op, "a freed block of a move list is not told as one");
            }
        }
        size_t from_moves = 0;
        for (size_t i = 0; i < live_count; i++)
            from_moves += live[i].moves;
        if (alloc_live_blocks() != live_count)
            return fail(seed, op, "alloc_live_blocks() is not the number of live blocks");
        if (alloc_live_blocks_from_moves() != from_moves)
            return fail(seed, op, "alloc_live_blocks_from_moves() is not the number of live move blocks");
        if (live_count > 0 && alloc_block_state(live[draw() % live_count].block) != ALLOC_LIVE)
            return fail(seed, op, "a live block is not found");
    }
    for (size_t i = 0; i < live_count; i++)
        if (alloc_block_state(live[i].block) != ALLOC_LIVE)
            return fail(seed, OPS, "a live block is not found at the end");
    while (live_count > 0)
        free(live[--live_count].block);
    if (alloc_live_blocks() != 0 || alloc_live_blocks_from_moves() != 0)
        return fail(seed, OPS, "blocks are still counted after every one was freed");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: alloc_tracker_fuzz FIRST_SEED LAST_SEED\n", stderr);
        return 2;
    }
    unsigned first = (unsigned)strtoul(argv[1], NULL, 10), last = (unsigned)strtoul(argv[2], NULL, 10);
    for (unsigned seed = first; seed <= last; seed++)
        if (run(seed) != 0)
            return 1;
    printf("alloc tracker: seeds %u-%u agree with the list of live blocks\n", first, last);
    return 0;
}
