/*
 * nim_scan.c - finding the splits that reach the target values (see
 * nim_scan.h).
 *
 * A typical large height has a few dozen targets, and the last of them is
 * found only after about 3000 splits: each target turns up about once in
 * 700 splits, and the scan must wait for the slowest. So the scan has two
 * speeds:
 *
 *   - while many targets are left, a scalar loop, four splits per branch:
 *     a lookup in `flags` per split tests every target at once, and finds
 *     come often enough that vector code would mostly be stopping;
 *   - once at most SLOTS are left, vector code: 16 splits at a time are
 *     XORed and compared with each remaining target, and only a group of
 *     STEP splits that holds a hit is looked at closer. This is where most
 *     splits are scanned, at a fraction of a cycle each.
 *
 * The vector functions are built for AVX2 and for plain x86-64 (GCC picks
 * one when the program starts); elsewhere GCC lowers the same code to
 * whatever the target has. On a CPU with AVX2, nim_scan_avx2.c usually
 * does the whole scan instead, faster; this one is the portable scan, and
 * the one the tests check it against.
 */
#include "nim_scan.h"

#include <stdbool.h>
#include <string.h>

enum {
    LANES = 16,     /* splits per vector */
    STEP = 64,      /* splits per group tested for a hit */
    SLOTS = 8,      /* at most this many targets for the vector scan */
    NONE = 0xFFFF   /* an empty slot: nim_values.c never stores this value */
};

typedef uint16_t u16v __attribute__((vector_size(2 * LANES)));
typedef int16_t i16v __attribute__((vector_size(2 * LANES)));
typedef uint64_t u64v __attribute__((vector_size(2 * LANES)));

#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define MULTIVERSION __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef MULTIVERSION
#define MULTIVERSION
#endif

/* Vectors go by pointer: passing them by value would tie the ABI of
 * these helpers to the vector unit the caller was compiled for. */
static bool any_lane(const i16v *v)
{
    u64v w = (u64v)*v;
    uint64_t z = 0;
    for (int i = 0; i < LANES / 4; i++)
        z |= w[i];
    return z != 0;
}

/* Split values t[a + i] ^ t[n - a - i] for i = 0 .. LANES-1. */
static void split_values(u16v *x, const uint16_t *t, const uint16_t *rev, size_t a)
{
    u16v lo, hi;
    memcpy(&lo, t + a, sizeof lo);
    memcpy(&hi, rev + a, sizeof hi);
    *x = lo ^ hi;
}

/* The vector scan for K slots: from *from on, the first STEP group of
 * splits holding a slot's value. Returns false when none is left before
 * `half` (*from is then the first split not scanned); otherwise sets
 * found[s] for every slot hit in that group and moves *from past it. */
#define DEFINE_FIND(K)                                                        \
    MULTIVERSION static bool find_##K(const uint16_t *t, const uint16_t *rev, \
                                      size_t *from, size_t half,              \
                                      const uint16_t *slot, bool *found)      \
    {                                                                         \
        u16v want[K];                                                         \
        for (int s = 0; s < K; s++)                                           \
            want[s] = (u16v){0} + slot[s];                                    \
        size_t a = *from;                                                     \
        for (; a + STEP - 1 <= half; a += STEP) {                             \
            i16v any = {0};                                                   \
            _Pragma("GCC unroll 4") for (int b = 0; b < STEP; b += LANES)     \
            {                                                                 \
                u16v x;                                                       \
                split_values(&x, t, rev, a + b);                              \
                _Pragma("GCC unroll 8") for (int s = 0; s < K; s++)           \
                    any |= (i16v)(x == want[s]);                              \
            }                                                                 \
            if (!any_lane(&any))                                              \
                continue;                                                     \
            for (int s = 0; s < K; s++) {                                     \
                i16v hit = {0};                                               \
                for (int b = 0; b < STEP; b += LANES) {                       \
                    u16v x;                                                   \
                    split_values(&x, t, rev, a + b);                          \
                    hit |= (i16v)(x == want[s]);                              \
                }                                                             \
                found[s] = any_lane(&hit);                                    \
            }                                                                 \
            *from = a + STEP;                                                 \
            return true;                                                      \
        }                                                                     \
        *from = a;                                                            \
        return false;                                                         \
    }
DEFINE_FIND(4)
DEFINE_FIND(8)

/* One split: its value becomes reached if it was a target. */
static void take(uint8_t *flags, unsigned x, size_t *targets)
{
    if (flags[x] == NIM_TARGET) {
        flags[x] = NIM_REACHED;
        (*targets)--;
    }
}

/* The scalar scan of splits [*from, end) while more than `keep` targets
 * are left; four splits share one branch. */
static void scan_scalar(const uint16_t *t, size_t n, size_t *from, size_t end,
                        uint8_t *flags, size_t *targets, size_t keep)
{
    size_t a = *from;
    while (*targets > keep && a + 3 < end) {
        const uint16_t *far = t + n - a;
        unsigned x0 = t[a] ^ far[0], x1 = t[a + 1] ^ far[-1];
        unsigned x2 = t[a + 2] ^ far[-2], x3 = t[a + 3] ^ far[-3];
        a += 4;
        if (((flags[x0] | flags[x1] | flags[x2] | flags[x3]) & NIM_TARGET) == 0)
            continue;
        take(flags, x0, targets);
        take(flags, x1, targets);
        take(flags, x2, targets);
        take(flags, x3, targets);
    }
    for (; *targets > keep && a < end; a++)
        take(flags, t[a] ^ t[n - a], targets);
    *from = a;
}

size_t nim_scan_splits(const uint16_t *t, const uint16_t *rev, size_t n,
                       uint8_t *flags, unsigned limit, size_t targets)
{
    if (nim_scan_avx2(t, rev, n, flags, limit, &targets))
        return targets;
    size_t half = (n - 1) / 2, a = 1;
    scan_scalar(t, n, &a, half + 1, flags, &targets, SLOTS);
    if (targets == 0)
        return 0;

    uint16_t slot[SLOTS];
    size_t k = 0;
    for (unsigned v = 0; v < limit && k < SLOTS; v++)
        if (flags[v] == NIM_TARGET)
            slot[k++] = (uint16_t)v;
    while (k > 0) {
        size_t width = k <= 4 ? 4 : SLOTS;
        bool found[SLOTS] = {false};
        for (size_t s = k; s < width; s++)
            slot[s] = NONE;
        bool hit = width == 4 ? find_4(t, rev, &a, half, slot, found)
                              : find_8(t, rev, &a, half, slot, found);
        if (!hit)
            break;
        size_t kept = 0;
        for (size_t s = 0; s < k; s++) {
            if (found[s])
                take(flags, slot[s], &targets);
            else
                slot[kept++] = slot[s];
        }
        k = kept;
    }
    /* the last splits, fewer than a group */
    scan_scalar(t, n, &a, half + 1, flags, &targets, 0);
    return targets;
}
