/*
 * nim_scan_avx2.c - the split scan with a bitmap of targets, for CPUs
 * with AVX2 (see nim_scan.h).
 *
 * nim_scan.c compares each split's value with each remaining target, which
 * costs more the more targets are left, so it starts with a scalar loop.
 * Here the targets are a 256-bit set held in two 16-byte tables, and 32
 * split values are tested against the whole set in about fifteen vector
 * instructions, whatever its size: the value's low four bits pick a table
 * byte (pshufb), whose bits say which high four bits are targets, and the
 * value's high four bits pick the bit to test. A group with a hit is
 * looked at split by split, and each target found leaves the set.
 *
 * That needs every target below 256, which holds up to n = 7,250,049 (the
 * first value above 255) and almost always beyond; otherwise, or without
 * AVX2, nim_scan_splits() does the portable scan. Values of 256 and more
 * saturate to 255 when packed into bytes: 255 is a common value, never a
 * target, so they cannot give a false hit.
 */
#include "nim_scan.h"

#include <stdbool.h>

static bool allowed = true;

void nim_scan_allow_avx2(bool allow)
{
    allowed = allow;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* low[lo] has bit h set when value h * 16 + lo is a target (h < 8),
 * high[lo] the same for h = 8 .. 15. */
typedef struct {
    uint8_t low[16], high[16];
} target_set;

__attribute__((target("avx2"))) static size_t
scan(const uint16_t *t, const uint16_t *rev, size_t n, uint8_t *flags,
     unsigned limit, size_t targets)
{
    target_set set = {{0}, {0}};
    for (unsigned v = 0; v < limit; v++)
        if (flags[v] == NIM_TARGET)
            (v < 128 ? set.low : set.high)[v & 15] |= (uint8_t)(1u << ((v >> 4) & 7));
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i index = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                           0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m256i bit = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128,
                                         1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    __m256i low = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)set.low));
    __m256i high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)set.high));

    size_t half = (n - 1) / 2, a = 1;
    for (; targets > 0 && a + 31 <= half; a += 32) {
        __m256i x0 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(t + a)),
                                      _mm256_loadu_si256((const __m256i *)(rev + a)));
        __m256i x1 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(t + a + 16)),
                                      _mm256_loadu_si256((const __m256i *)(rev + a + 16)));
        /* bytes: x0[0..7] x1[0..7] | x0[8..15] x1[8..15] */
        __m256i b = _mm256_packus_epi16(x0, x1);
        __m256i lo = _mm256_and_si256(b, nibble);
        __m256i hi = _mm256_and_si256(_mm256_srli_epi16(b, 4), nibble);
        __m256i row = _mm256_blendv_epi8(_mm256_shuffle_epi8(low, lo),
                                         _mm256_shuffle_epi8(high, lo), b);
        __m256i hit = _mm256_and_si256(row, _mm256_shuffle_epi8(bit, hi));
        if (_mm256_testz_si256(hit, hit))
            continue;
        unsigned mask = ~(unsigned)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(hit, _mm256_setzero_si256()));
        for (; mask != 0; mask &= mask - 1) {
            unsigned k = (unsigned)__builtin_ctz(mask);
            size_t s = a + (k & 16 ? 8 : 0) + (k & 8 ? 16 : 0) + (k & 7);
            unsigned x = t[s] ^ t[n - s];
            if (flags[x] != NIM_TARGET)
                continue;   /* a second hit on a value found in this group */
            flags[x] = NIM_REACHED;
            targets--;
            /* x leaves the set: clear its bit in the registers */
            __m256i clear = _mm256_and_si256(_mm256_cmpeq_epi8(index, _mm256_set1_epi8((char)(x & 15))),
                                             _mm256_set1_epi8((char)(1u << ((x >> 4) & 7))));
            if (x < 128)
                low = _mm256_andnot_si256(clear, low);
            else
                high = _mm256_andnot_si256(clear, high);
        }
    }
    for (; targets > 0 && a <= half; a++) {
        unsigned x = t[a] ^ t[n - a];
        if (flags[x] == NIM_TARGET) {
            flags[x] = NIM_REACHED;
            targets--;
        }
    }
    return targets;
}

bool nim_scan_avx2(const uint16_t *t, const uint16_t *rev, size_t n, uint8_t *flags,
                   unsigned limit, size_t *targets)
{
    if (!allowed || limit > 256 || !__builtin_cpu_supports("avx2"))
        return false;
    *targets = scan(t, rev, n, flags, limit, *targets);
    return true;
}

#else

bool nim_scan_avx2(const uint16_t *t, const uint16_t *rev, size_t n, uint8_t *flags,
                   unsigned limit, size_t *targets)
{
    (void)t, (void)rev, (void)n, (void)flags, (void)limit, (void)targets;
    return false;
}

#endif
