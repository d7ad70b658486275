/*
 * mutant_probe.c - prints what a submission's functions of Tasks 0-2
 * answer on one fixed workload, so that tests/staff/grader/mutants.py can
 * tell a mutant from the model solution: two submissions that print the
 * same text are equivalent as far as this probe sees. It judges nothing:
 * it prints positions (grundy_to_string), each position's moves sorted,
 * the answers of equality, counts and the solver, how many distinct
 * hashes a set of distinct positions has (never a hash itself, so another
 * good hash prints the same), memo sizes, and the heap blocks left live:
 * mutants.py links it with -Wl,--wrap for malloc, calloc, realloc and
 * free, so the blocks of every call from the linked objects are counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grundy.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *block, size_t size);
void __real_free(void *block);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *block, size_t size);
void __wrap_free(void *block);

static long live_blocks;

void *__wrap_malloc(size_t size)
{
    void *block = __real_malloc(size);
    live_blocks += block != NULL;
    return block;
}

void *__wrap_calloc(size_t n, size_t size)
{
    void *block = __real_calloc(n, size);
    live_blocks += block != NULL;
    return block;
}

void *__wrap_realloc(void *block, size_t size)
{
    void *moved = __real_realloc(block, size);
    if (block == NULL)
        live_blocks += moved != NULL;
    else if (size == 0)
        live_blocks -= 1;
    return moved;
}

void __wrap_free(void *block)
{
    live_blocks -= block != NULL;
    __real_free(block);
}

static void show(const char *label, const grundy_position *p)
{
    char *text = grundy_to_string(p);
    printf("%s %s\n", label, text != NULL ? text : "(null)");
    free(text);
}

static grundy_position *build(const int *heights, size_t n)
{
    grundy_position *p = grundy_new(0);
    for (size_t i = 0; i < n; i++)
        grundy_add_heap(p, heights[i]);
    return p;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The moves of p, each as text, sorted; and p as it is afterwards. */
static void show_moves(const grundy_position *p)
{
    position_list *moves = grundy_get_moves(p);
    if (moves == NULL) {
        printf("moves NULL\n");
        return;
    }
    char **texts = calloc(moves->size + 1, sizeof *texts);
    for (size_t i = 0; i < moves->size; i++)
        texts[i] = grundy_to_string(moves->items[i]);
    qsort(texts, moves->size, sizeof *texts, by_text);
    printf("moves %zu:", moves->size);
    for (size_t i = 0; i < moves->size; i++) {
        printf(" %s", texts[i]);
        free(texts[i]);
    }
    printf("\n");
    free(texts);
    position_list_free(moves);
    show("after moves", p);
}

static void task0(void)
{
    for (int h = -2; h <= 12; h++) {
        grundy_position *p = grundy_new(h);
        printf("new(%d) count %d %d; ", h, grundy_count(p, h), grundy_count(p, 3));
        show("is", p);
        grundy_free(p);
    }
    const int adds[] = {7, 3, 9, 7, 1, 2, 12, 3, 7, 0, -5, 20, 5, 4, 6, 8};
    const int removes[] = {7, 3, 3, 5, 20, 9, 2, 100, 8};
    grundy_position *p = grundy_new(0);
    for (size_t i = 0; i < sizeof adds / sizeof *adds; i++) {
        grundy_add_heap(p, adds[i]);
        show("add", p);
    }
    for (size_t i = 0; i < sizeof removes / sizeof *removes; i++) {
        grundy_remove_heap(p, removes[i]);
        printf("count(7) %d; ", grundy_count(p, 7));
        show("remove", p);
    }
    grundy_position *q = grundy_copy(p);
    grundy_add_heap(q, 11);
    grundy_remove_heap(q, 7);
    show("copy changed", q);
    show("original", p);
    printf("equal %d %d\n", grundy_equals(p, q), grundy_equals(q, p));
    grundy_free(q);
    q = grundy_copy(p);
    printf("copy equal %d hash equal %d\n", grundy_equals(p, q), grundy_hash(p) == grundy_hash(q));
    grundy_free(q);
    grundy_free(p);

    const int a[] = {5, 9, 5, 14}, b[] = {14, 1, 5, 9, 30, 5};
    p = build(a, 4);
    q = build(b, 6);
    grundy_remove_heap(q, 30);
    printf("built apart: equal %d hash equal %d\n", grundy_equals(p, q), grundy_hash(p) == grundy_hash(q));
    grundy_free(p);
    grundy_free(q);

    const int shapes[][4] = {{7, 0, 0, 0}, {3, 4, 5, 0}, {8, 8, 0, 0}, {10, 3, 3, 0}, {0, 0, 0, 0},
                             {6, 6, 6, 9}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        p = build(shapes[i], 4);
        show_moves(p);
        grundy_free(p);
    }

    /* Distinct positions: the moves of {24} and of {9, 9, 13}, and their
     * own moves; how many distinct hashes and how many equal pairs. */
    enum { MAX = 400 };
    grundy_position *set[MAX];
    size_t n = 0;
    const int roots[][3] = {{24, 0, 0}, {9, 9, 13}};
    for (size_t r = 0; r < 2; r++) {
        grundy_position *root = build(roots[r], 3);
        position_list *moves = grundy_get_moves(root);
        for (size_t i = 0; moves != NULL && i < moves->size && n < MAX; i++)
            set[n++] = grundy_copy(moves->items[i]);
        position_list_free(moves);
        grundy_free(root);
    }
    for (int k = 1; k <= 8 && n + 2 <= MAX; k++) {   /* positions apart in their counts only */
        p = grundy_new(0);
        q = grundy_new(0);
        for (int i = 0; i < k; i++) {
            grundy_add_heap(p, 3);
            grundy_add_heap(q, 5);
        }
        for (int i = k; i < 8; i++)
            grundy_add_heap(q, 7);
        set[n++] = p;
        set[n++] = q;
    }
    size_t equal_pairs = 0, same_hash = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            equal_pairs += grundy_equals(set[i], set[j]);
            same_hash += grundy_hash(set[i]) == grundy_hash(set[j]);
        }
    }
    printf("set %zu: equal pairs %zu, pairs with one hash %zu\n", n, equal_pairs, same_hash);
    for (size_t i = 0; i < n; i++)
        grundy_free(set[i]);
}

static void task12(void)
{
    printf("memo size at first %zu\n", grundy_memo_size());
    for (int h = 0; h <= 24; h++) {
        grundy_position *p = grundy_new(h);
        printf("{%d}: terminal %d P %d N %d memo %zu\n", h, grundy_is_terminal(p), grundy_is_p_position(p),
               grundy_is_n_position(p), grundy_memo_size());
        grundy_free(p);
    }
    for (int x = 3; x <= 13; x++) {
        printf("{%d, y}, y = 3..13:", x);
        for (int y = 3; y <= 13; y++) {
            const int heights[] = {x, y};
            grundy_position *p = build(heights, 2);
            printf(" %d%d", grundy_is_p_position(p), grundy_is_n_position(p));
            grundy_free(p);
        }
        printf("\n");
    }
    printf("memo size %zu\n", grundy_memo_size());
    grundy_memo_clear();
    printf("memo size after clear %zu\n", grundy_memo_size());
    const int heights[] = {15, 7};
    grundy_position *p = build(heights, 2);
    printf("{7, 15}: N %d memo %zu P %d memo %zu\n", grundy_is_n_position(p), grundy_memo_size(),
           grundy_is_p_position(p), grundy_memo_size());
    grundy_free(p);
    grundy_memo_clear();
    grundy_memo_clear();
    printf("memo size after two clears %zu\n", grundy_memo_size());
}

int main(void)
{
    printf("probe\n");
    task0();
    fflush(stdout);
    task12();
    printf("heap blocks left live %ld\n", live_blocks);
    return 0;
}
