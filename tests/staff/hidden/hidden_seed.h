/*
 * hidden_seed.h - the seed of the hidden suites (grader only; see README.md).
 *
 * Every hidden test draws its cases from lab_random() (lab_support.h),
 * started from a state derived from one base seed:
 *
 *   - the base seed is the environment variable LAB_SEED, a decimal
 *     unsigned number (0 .. 18446744073709551615); when it is unset or
 *     empty, HIDDEN_DEFAULT_SEED. A value that is not such a number is
 *     reported on stderr and the default is used, so the tests still run
 *     (and their messages say which seed they really used);
 *   - each test's own state is the base seed mixed with a hash of the
 *     test's id "suite::name", so tests draw different cases, and adding or
 *     removing a test changes no other test's cases;
 *   - every failure message ends with "(seed N)", N being the base seed: a
 *     regrade with LAB_SEED=N draws exactly the same cases. Deriving a
 *     test's state sets lab_support's message suffix, so LAB_EXPECT and
 *     the helpers of lab_support.h (lab_build, lab_expand_at_most,
 *     lab_check_outcome_asked...) all add it.
 *
 * Everything here is static inline: the header is included by one suite
 * per runner and adds no symbol that could clash with a public suite.
 */
#ifndef HIDDEN_SEED_H
#define HIDDEN_SEED_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lab_support.h"

/* The seed used when LAB_SEED is not set. */
#define HIDDEN_DEFAULT_SEED 20261123ULL

/* The base seed: LAB_SEED when it holds a decimal unsigned number, else
 * HIDDEN_DEFAULT_SEED. */
static inline unsigned long long hidden_seed(void)
{
    static int warned;
    const char *text = getenv("LAB_SEED");
    if (text == NULL || *text == '\0')
        return HIDDEN_DEFAULT_SEED;
    bool digits = true;
    for (const char *c = text; *c != '\0'; c++)
        digits = digits && *c >= '0' && *c <= '9';
    errno = 0;
    char *end = NULL;
    unsigned long long seed = digits ? strtoull(text, &end, 10) : 0;
    if (digits && errno == 0 && end != NULL && *end == '\0')
        return seed;
    if (!warned) {
        warned = 1;
        fprintf(stderr,
                "hidden suites: LAB_SEED=\"%s\" is not a decimal unsigned number; "
                "using the default seed %llu\n",
                text, HIDDEN_DEFAULT_SEED);
    }
    return HIDDEN_DEFAULT_SEED;
}

/* The starting state of lab_random() for the test `id` ("suite::name"):
 * the base seed XOR a 64-bit FNV-1a hash of the id, scrambled (SplitMix64's
 * finalizer) and folded to 32 bits. Never 0, a state xorshift cannot leave.
 * Every hidden test starts by calling it, so it also makes every failure
 * message of the test end with " (seed N)" (lab_set_message_suffix). */
static inline unsigned hidden_rng(const char *id)
{
    char suffix[64];
    snprintf(suffix, sizeof suffix, " (seed %llu)", hidden_seed());
    lab_set_message_suffix(suffix);
    uint64_t hash = 0xcbf29ce484222325u;
    for (const char *c = id; *c != '\0'; c++) {
        hash ^= (unsigned char)*c;
        hash *= 0x100000001b3u;
    }
    uint64_t x = (uint64_t)hidden_seed() ^ hash;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    unsigned state = (unsigned)(x ^ (x >> 32));
    return state != 0 ? state : 0x9e3779b9u;
}

/* A number in [low, high] (low <= high) drawn from `state`. */
static inline int hidden_between(unsigned *state, int low, int high)
{
    return low + (int)(lab_random(state) % (unsigned)(high - low + 1));
}

/* Shuffles a[0 .. n-1] in place (Fisher-Yates), drawing from `state`. */
static inline void hidden_shuffle(int *a, size_t n, unsigned *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = lab_random(state) % i;
        int t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* Fills heaps[0 .. n-1] (n <= 16) with live heaps of 3 + a share of `extra`
 * each: n - 1 cut points drawn in [0, extra] and sorted, the gaps between
 * them being the shares, so every split of the total is possible. */
static inline void hidden_split(unsigned *state, int extra, int n, int *heaps)
{
    int cuts[16];
    for (int i = 0; i < n - 1; i++) {
        int c = hidden_between(state, 0, extra), j = i;
        while (j > 0 && cuts[j - 1] > c) {
            cuts[j] = cuts[j - 1];
            j--;
        }
        cuts[j] = c;
    }
    for (int i = 0; i < n; i++) {
        int from = i == 0 ? 0 : cuts[i - 1], to = i == n - 1 ? extra : cuts[i];
        heaps[i] = 3 + to - from;
    }
}

/* Draws live heaps (each >= 3) into heaps[]: between min_heaps and
 * max_heaps of them (fewer when the total does not allow that many), with
 * a total between min_total and max_total, split at random cut points.
 * Returns how many. */
static inline size_t hidden_draw_heaps(unsigned *rng, int *heaps, int min_heaps, int max_heaps,
                                       int min_total, int max_total)
{
    int most = max_total / 3 < max_heaps ? max_total / 3 : max_heaps;
    int n = hidden_between(rng, min_heaps < most ? min_heaps : most, most);
    int low = min_total > 3 * n ? min_total : 3 * n;
    int total = hidden_between(rng, low, max_total);
    int extra = total - 3 * n;
    hidden_split(rng, extra, n, heaps);
    return (size_t)n;
}

#endif /* HIDDEN_SEED_H */
