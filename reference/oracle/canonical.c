/*
 * canonical.c - canonical positions, the moves of the game, and the
 * "{3=1, 4=1}" text form.
 *
 * Everything here works on sorted int arrays rather than on the lab's
 * heap-count map, so that a bug in the lab's data structure cannot hide
 * itself by also being in the oracle.
 */
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Positions are short (tens of heaps at most in any test), so insertion
 * sort is both fast enough and obviously correct. */
static void sort_ascending(int *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

size_t oracle_canonicalize(int *heaps, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (heaps[i] >= 3)
            heaps[kept++] = heaps[i];
    sort_ascending(heaps, kept);
    return kept;
}

int oracle_compare(const int *a, size_t na, const int *b, size_t nb)
{
    size_t common = na < nb ? na : nb;
    for (size_t i = 0; i < common; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    if (na == nb)
        return 0;
    return na < nb ? -1 : 1;
}

/* A malloc'd canonical copy; *len receives its length. Never returns NULL
 * for a non-empty input, and returns NULL (length 0) only when nothing is
 * left after dropping dead heaps. */
static int *canonical_copy(const int *heaps, size_t n, size_t *len)
{
    *len = 0;
    if (n == 0)
        return NULL;
    int *copy = malloc(n * sizeof *copy);
    if (copy == NULL)
        oracle_out_of_memory("position copy");
    memcpy(copy, heaps, n * sizeof *copy);
    *len = oracle_canonicalize(copy, n);
    if (*len == 0) {
        free(copy);
        return NULL;
    }
    return copy;
}

/* ---- moves ---- */

typedef struct {
    int *heights;
    size_t len;
} position;

static int compare_positions(const void *pa, const void *pb)
{
    const position *a = pa;
    const position *b = pb;
    return oracle_compare(a->heights, a->len, b->heights, b->len);
}

/* The canonical result of splitting heaps[skip] into `part` and
 * heaps[skip] - part, built directly in sorted order. */
static position split(const int *heaps, size_t n, size_t skip, int part)
{
    int whole = heaps[skip];
    int parts[2] = { part, whole - part };  /* ascending: part < whole-part */
    position p;
    p.len = 0;
    p.heights = malloc((n + 1) * sizeof *p.heights);
    if (p.heights == NULL)
        oracle_out_of_memory("move");

    size_t k = 0;
    for (size_t i = 0; i <= n; i++) {
        int next = i < n ? heaps[i] : 0;
        if (i == skip)
            continue;
        while (k < 2 && (i == n || parts[k] <= next)) {
            if (parts[k] >= 3)
                p.heights[p.len++] = parts[k];
            k++;
        }
        if (i < n)
            p.heights[p.len++] = next;
    }
    if (p.len == 0) {
        free(p.heights);
        p.heights = NULL;
    }
    return p;
}

oracle_move_list *oracle_moves(const int *heaps, size_t n)
{
    size_t len;
    int *start = canonical_copy(heaps, n, &len);

    size_t total = 0;
    for (size_t i = 0; i < len; i++)
        if (i == 0 || start[i] != start[i - 1])
            total += (size_t)(start[i] - 1) / 2;

    position *all = NULL;
    if (total > 0) {
        all = malloc(total * sizeof *all);
        if (all == NULL)
            oracle_out_of_memory("move array");
    }
    size_t count = 0;
    for (size_t i = 0; i < len; i++) {
        /* splitting any one of several equal heaps gives the same result */
        if (i > 0 && start[i] == start[i - 1])
            continue;
        for (int part = 1; part < start[i] - part; part++)
            all[count++] = split(start, len, i, part);
    }
    free(start);

    if (count > 1)
        qsort(all, count, sizeof *all, compare_positions);

    oracle_move_list *m = malloc(sizeof *m);
    if (m == NULL)
        oracle_out_of_memory("move list");
    m->count = 0;
    m->positions = NULL;
    m->lengths = NULL;
    if (count > 0) {
        m->positions = malloc(count * sizeof *m->positions);
        m->lengths = malloc(count * sizeof *m->lengths);
        if (m->positions == NULL || m->lengths == NULL)
            oracle_out_of_memory("move list arrays");
    }
    /* Different splits cannot give equal results (a heap's parts are both
     * smaller than it), but dropping duplicates here keeps "each once" true
     * without relying on that argument. */
    for (size_t i = 0; i < count; i++) {
        if (m->count > 0 &&
            compare_positions(&all[i], &all[i - 1]) == 0) {
            free(all[i].heights);
            continue;
        }
        m->positions[m->count] = all[i].heights;
        m->lengths[m->count] = all[i].len;
        m->count++;
    }
    free(all);
    return m;
}

void oracle_move_list_free(oracle_move_list *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->count; i++)
        free(m->positions[i]);
    free(m->positions);
    free(m->lengths);
    free(m);
}

/* ---- text form ---- */

char *oracle_format(const int *heaps, size_t n)
{
    size_t len;
    int *sorted = canonical_copy(heaps, n, &len);

    /* An entry is ", " + an int (<= 11 chars) + "=" + a size_t (<= 20). */
    size_t cap = 3 + len * 34;
    char *out = malloc(cap);
    if (out == NULL)
        oracle_out_of_memory("formatted position");

    size_t used = 0;
    out[used++] = '{';
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && sorted[j] == sorted[i])
            j++;
        int w = snprintf(out + used, cap - used, "%s%d=%zu",
                         i == 0 ? "" : ", ", sorted[i], j - i);
        if (w < 0 || (size_t)w >= cap - used) {
            fprintf(stderr, "oracle_format: buffer too small\n");
            abort();
        }
        used += (size_t)w;
        i = j;
    }
    out[used++] = '}';
    out[used] = '\0';
    free(sorted);
    return out;
}
