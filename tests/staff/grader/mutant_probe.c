/*
 * mutant_probe.c - prints what a submission's functions of Tasks 0-2
 * (and, given the argument "part2", of Part 2's Tasks 5-8) answer on one
 * fixed workload, so that tests/staff/grader/mutants.py can
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
#include <sys/resource.h>

#include "grundy.h"
#include "grundy_nimbers.h"
#include "grundy_stack.h"
#include "grundy_table.h"
#include "grundy_winning.h"

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
    char *text = p != NULL ? grundy_to_string(p) : NULL;
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

/* Part 2: each function on small positions, its memo sizes, its clears. */
static void part2(void)
{
    const int shapes[][4] = {{0, 0, 0, 0}, {7, 0, 0, 0}, {3, 4, 5, 0}, {8, 8, 0, 0}, {10, 3, 3, 0},
                             {6, 6, 6, 9}, {5, 5, 5, 5}, {4, 9, 9, 12}, {1, 2, 11, 0}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        grundy_position *p = build(shapes[i], 4);
        grundy_position *win = grundy_winning_move(p);
        show("winning move", win);
        grundy_free(win);
        grundy_position *reduced = grundy_cancel_pairs(p);
        show("reduced", reduced);
        grundy_free(reduced);
        printf("reduced P %d nim P %d stack P %d\n", grundy_reduced_is_p(p), grundy_nim_is_p(p),
               grundy_stack_is_p(p));
        show("after", p);
        grundy_free(p);
    }
    for (int h = 0; h <= 22; h++) {
        grundy_position *p = grundy_new(h);
        grundy_position *win = grundy_winning_move(p);
        printf("{%d}: nimber %d reduced P %d stack P %d stack memo %zu; ", h, grundy_nim_value(h),
               grundy_reduced_is_p(p), grundy_stack_is_p(p), grundy_stack_memo_size());
        show("winning move", win);
        grundy_free(win);
        grundy_free(p);
    }
    printf("nimber(-1) %d reduced memo %zu\n", grundy_nim_value(-1), grundy_reduced_memo_size());
    for (int x = 3; x <= 12; x++) {
        printf("{%d, y}, y = 3..12:", x);
        for (int y = 3; y <= 12; y++) {
            const int heights[] = {x, y, 5};
            grundy_position *p = build(heights, 3);
            printf(" %d%d%d", grundy_reduced_is_p(p), grundy_nim_is_p(p), grundy_stack_is_p(p));
            grundy_free(p);
        }
        printf("\n");
    }
    printf("memo sizes: reduced %zu stack %zu\n", grundy_reduced_memo_size(), grundy_stack_memo_size());
    grundy_nimbers_clear();
    grundy_stack_memo_clear();
    printf("after the clears: reduced %zu stack %zu nimber(30) %d\n", grundy_reduced_memo_size(),
           grundy_stack_memo_size(), grundy_nim_value(30));
    grundy_nimbers_clear();
    grundy_stack_memo_clear();
    grundy_stack_memo_clear();
    const int sizes[] = {-1, 0, 1, 2, 3, 4, 9, 40};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t length = 99;
        int *g = grundy_nim_table(sizes[i], &length);
        printf("table(%d): %s length %zu:", sizes[i], g == NULL ? "NULL" : "array", length);
        for (size_t k = 0; g != NULL && k < length; k++)
            printf(" %d", g[k]);
        printf("\n");
        free(g);
    }
    grundy_memo_clear();
}

int main(int argc, char **argv)
{
    /* 2 s of CPU at most (mutants.py: more is "timeout"); CPU, not wall time, so that a loaded
     * machine tells the same mutants apart. */
    struct rlimit cpu = { .rlim_cur = 2, .rlim_max = 3 };
    if (setrlimit(RLIMIT_CPU, &cpu) != 0)
        return 2;
    printf("probe\n");
    task0();
    fflush(stdout);
    task12();
    if (argc > 1 && strcmp(argv[1], "part2") == 0) {
        fflush(stdout);
        part2();
    }
    printf("heap blocks left live %ld\n", live_blocks);
    return 0;
}
