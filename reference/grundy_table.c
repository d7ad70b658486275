/*
 * grundy_table.c - model solution of Task 7: the nimbers, bottom-up.
 *
 * Heights are filled in increasing order, so both parts of every split of
 * h are already in the table when g[h] is computed: one pass, no
 * recursion, no lookups that can miss. The mex needs a set of the values
 * reached; as the mex of k options is at most k, a flag array of k + 1
 * entries is enough, and one array sized for the largest height serves
 * every height (cleared over just the part that height used).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grundy_table.h"

int *grundy_nim_table(int n, size_t *length)
{
    *length = 0;
    if (n < 0)
        return NULL;
    int *g = malloc(((size_t)n + 1) * sizeof *g);
    bool *reached = calloc((size_t)n / 2 + 1, sizeof *reached);
    if (g == NULL || reached == NULL) {
        free(g);
        free(reached);
        return NULL;
    }
    for (int h = 0; h <= n; h++) {
        size_t options = h < 3 ? 0 : (size_t)(h - 1) / 2;
        for (int a = 1; a < h - a; a++) {
            unsigned option = (unsigned)g[a] ^ (unsigned)g[h - a];
            if (option <= options)
                reached[option] = true;
        }
        int mex = 0;
        while (reached[mex])
            mex++;
        g[h] = mex;
        memset(reached, 0, (options + 1) * sizeof *reached);
    }
    free(reached);
    *length = (size_t)n + 1;
    return g;
}
