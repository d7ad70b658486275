/*
 * nim_scan.h - the split scan of nim_values.c, private to the oracle.
 *
 * Computing g(n) ends with a list of "targets": values v below the
 * candidate answer that are reachable only if some split n = a + (n - a)
 * has g(a) ^ g(n - a) = v. This scan looks for those splits. It is kept
 * apart from nim_values.c because it is where the vector code is (GCC
 * vector extensions in nim_scan.c, AVX2 intrinsics in nim_scan_avx2.c,
 * both picked at run time), and because its contract is small: it only
 * ever turns targets into reached values on the evidence of a real split.
 */
#ifndef NIM_SCAN_H
#define NIM_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Flag values of the per-height value array `flags` (indexed by value):
 * NIM_NOT_REACHED, NIM_REACHED (some move leads to a heap sum of that
 * value), NIM_TARGET (not reached yet, and wanted). */
enum { NIM_NOT_REACHED = 0, NIM_REACHED = 1, NIM_TARGET = 2 };

/* Scans the splits a + (n - a), 1 <= a <= (n - 1) / 2, in increasing a,
 * until no target is left: every split's value t[a] ^ t[n - a] that is a
 * target becomes NIM_REACHED. `t` holds g(0 .. n-1); `rev` is the same
 * table reversed so that rev[a + i] == t[n - a - i] (it lets vector code
 * load the far halves of consecutive splits in ascending order).
 * Every target is below `limit`, and `targets` is how many entries of
 * `flags` are NIM_TARGET; the return value is how many still are (0
 * unless some target is unreachable from n). */
size_t nim_scan_splits(const uint16_t *t, const uint16_t *rev, size_t n,
                       uint8_t *flags, unsigned limit, size_t targets);

/* The same scan with a bitmap of targets on a CPU with AVX2
 * (nim_scan_avx2.c). Returns false, having done nothing, when it cannot
 * run: no AVX2, a target of 256 or more, or turned off; otherwise sets
 * *targets to how many are left, as nim_scan_splits() returns. */
bool nim_scan_avx2(const uint16_t *t, const uint16_t *rev, size_t n, uint8_t *flags,
                   unsigned limit, size_t *targets);

/* Allows (the default) or forbids nim_scan_avx2(), so that tests can check
 * the portable scan against it on a machine that has AVX2. */
void nim_scan_allow_avx2(bool allow);

#endif /* NIM_SCAN_H */
