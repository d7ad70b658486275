/*
 * bench_search.c - the P/N solvers side by side, for `make bench`.
 *
 * usage: bench_search [--plain-max H] [--model-max H] HEAP...
 *        bench_search --unmemoized HEAP...
 *
 * The first form solves single heaps, each from a cold memo, with the
 * oracle's fast search (search.c), its plain memoized search
 * (plain_search.c, up to --plain-max) and the model solution of the lab
 * (reference/ with the given code, up to --model-max), and prints one line
 * per heap and solver:
 *     search HEAP SOLVER P|N CPU_SECONDS EXPANSIONS MEMO_ENTRIES AGREES
 * AGREES is 1 when the answer matches the nim-value rule (oracle_is_p).
 *
 * The second form prints, per position (heaps separated by '+'),
 *     unmemoized HEAPS EXPANSIONS
 * the number of grundy_get_moves calls the unmemoized fixture
 * (tests/staff/fixtures/unmemoized: the reference with every memo line removed)
 * makes to answer grundy_is_p_position(HEAPS). It is computed, not run: the
 * fixture's call tree has 1 + the sizes of the subtrees it enters, in
 * grundy_get_moves order, up to the first P child; those sizes are counted
 * here once per distinct position. It is what makes the timing checks'
 * false-pass margin measurable: the fixture would need hours.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expansion_counter.h"
#include "grundy.h"
#include "oracle.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void report(int heap, const char *solver, bool is_p, double cpu,
                   unsigned long long expanded, size_t memo)
{
    printf("search %d %s %c %.6f %llu %zu %d\n", heap, solver, is_p ? 'P' : 'N', cpu,
           expanded, memo, is_p == oracle_is_p(&heap, 1));
    fflush(stdout);
}

static void bench_heap(int heap, int plain_max, int model_max)
{
    oracle_search_reset();
    double start = cpu_now();
    bool is_p = oracle_search_is_p(&heap, 1);
    report(heap, "fast", is_p, cpu_now() - start, oracle_search_expanded(),
           oracle_search_memo_size());
    oracle_search_reset();

    if (heap <= plain_max) {
        start = cpu_now();
        is_p = oracle_plain_search_is_p(&heap, 1);
        size_t memo = oracle_plain_search_last_memo_size();
        report(heap, "plain", is_p, cpu_now() - start, memo, memo);
    }
    if (heap <= model_max) {
        grundy_memo_clear();
        grundy_position *p = grundy_new(heap);
        expansions_reset();
        start = cpu_now();
        is_p = grundy_is_p_position(p);
        double cpu = cpu_now() - start;
        report(heap, "model", is_p, cpu, (unsigned long long)expansions(), grundy_memo_size());
        grundy_free(p);
        grundy_memo_clear();
    }
}

/* ---- the unmemoized fixture's call count ---- */

typedef struct {
    grundy_position *key;   /* NULL: free slot */
    double size;            /* calls to grundy_get_moves below and at key */
} count_slot;

static count_slot *slots;
static size_t slot_cap, slot_used;

static count_slot *slot_of(const grundy_position *p)
{
    size_t i = (size_t)grundy_hash(p) & (slot_cap - 1);
    while (slots[i].key != NULL && !grundy_equals(slots[i].key, p))
        i = (i + 1) & (slot_cap - 1);
    return &slots[i];
}

static void grow_slots(void)
{
    count_slot *old = slots;
    size_t old_cap = slot_cap;
    slot_cap = slot_cap ? 2 * slot_cap : 1 << 16;
    slots = calloc(slot_cap, sizeof *slots);
    if (slots == NULL) {
        fputs("bench_search: out of memory\n", stderr);
        exit(1);
    }
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key != NULL)
            *slot_of(old[i].key) = old[i];
    free(old);
}

static bool position_is_p(const grundy_position *p)
{
    int heaps[256];
    size_t n = 0;
    for (size_t i = 0; i < p->size; i++)
        for (int c = 0; c < p->entries[i].count && n < 256; c++)
            heaps[n++] = p->entries[i].height;
    return oracle_is_p(heaps, n);
}

/* The size of the fixture's call tree for grundy_is_p_position(p). */
static double unmemoized_calls(const grundy_position *p)
{
    count_slot *known = slot_of(p);
    if (known->key != NULL)
        return known->size;
    double size = 1;    /* its own grundy_get_moves, even when terminal */
    position_list *moves = grundy_get_moves(p);
    for (size_t i = 0; i < moves->size; i++) {
        size += unmemoized_calls(moves->items[i]);
        if (position_is_p(moves->items[i]))
            break;      /* a P child: the fixture's loop stops there */
    }
    position_list_free(moves);
    if (2 * (slot_used + 1) > slot_cap)
        grow_slots();
    count_slot *s = slot_of(p);
    s->key = grundy_copy(p);
    s->size = size;
    slot_used++;
    return size;
}

static void unmemoized(char *spec)
{
    grundy_position *p = grundy_new(0);
    char text[256];
    snprintf(text, sizeof text, "%s", spec);
    for (char *part = strtok(spec, "+"); part != NULL; part = strtok(NULL, "+"))
        grundy_add_heap(p, atoi(part));
    printf("unmemoized %s %.0f\n", text, unmemoized_calls(p));
    grundy_free(p);
}

int main(int argc, char **argv)
{
    int plain_max = 0, model_max = 0;
    bool count_mode = false;
    if (slot_cap == 0)
        grow_slots();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--plain-max") == 0 && i + 1 < argc)
            plain_max = atoi(argv[++i]);
        else if (strcmp(argv[i], "--model-max") == 0 && i + 1 < argc)
            model_max = atoi(argv[++i]);
        else if (strcmp(argv[i], "--unmemoized") == 0)
            count_mode = true;
        else if (count_mode)
            unmemoized(argv[i]);
        else
            bench_heap(atoi(argv[i]), plain_max, model_max);
    }
    for (size_t i = 0; i < slot_cap; i++)
        grundy_free(slots[i].key);
    free(slots);
    oracle_nim_table_free();
    oracle_search_reset();
    return 0;
}
