/*
 * bench_nim.c - the nim-value table, for `make bench`.
 *
 * usage: bench_nim OEIS_FILE
 *
 * Builds the table from nothing for n <= 10^6, 2^20 and 2^24, timing each
 * (and 10^6 again without the AVX2 scan) (CPU seconds of this process), and prints "nim KEY VALUE"
 * lines: the two build times, the microseconds per height, the cost of a
 * query once the table is built, the largest value below n = 7,250,049
 * and g(7,250,049) (published: the first value above 255 is there), and
 * whether g(0..104) matches OEIS A002188 as read from OEIS_FILE (the
 * figures are worth nothing if the table is wrong; make check compares far
 * more, see tests/staff/selftest/test_oracle.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "oracle.h"

enum { FIRST_OVER_255 = 7250049 };

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cold_build(int top)
{
    oracle_nim_table_free();
    double start = cpu_now();
    (void)oracle_nim_value(top);
    return cpu_now() - start;
}

/* 1 if every "n value" line of the file matches the table, 0 otherwise;
 * -1 if the file cannot be read or holds no terms. */
static int matches_oeis(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[256];
    int terms = 0, ok = 1;
    while (fgets(line, sizeof line, f) != NULL) {
        int n, v;
        if (line[0] == '#' || sscanf(line, "%d %d", &n, &v) != 2)
            continue;
        terms++;
        if (oracle_nim_value(n) != v)
            ok = 0;
    }
    fclose(f);
    return terms > 0 ? ok : -1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OEIS_FILE\n", argv[0]);
        return 2;
    }
    double million = cold_build(1000000);
    printf("nim build_1e6_s %.3f\n", million);
    printf("nim oeis_a002188_ok %d\n", matches_oeis(argv[1]));
    printf("nim build_2p20_s %.3f\n", cold_build(1 << 20));
    oracle_nim_allow_avx2(false);   /* the portable scan, for comparison */
    printf("nim build_1e6_portable_s %.3f\n", cold_build(1000000));
    oracle_nim_allow_avx2(true);
    fflush(stdout);

    const int top = 1 << 24;
    double full = cold_build(top);
    printf("nim build_2p24_s %.3f\n", full);
    printf("nim us_per_height_2p24 %.3f\n", full / top * 1e6);

    int largest = 0;
    for (int n = 0; n < FIRST_OVER_255; n++)
        if (oracle_nim_value(n) > largest)
            largest = oracle_nim_value(n);
    printf("nim max_below_7250049 %d\n", largest);
    printf("nim g_7250049 %d\n", oracle_nim_value(FIRST_OVER_255));
    int overall = 0;
    for (int n = 0; n <= top; n++)
        if (oracle_nim_value(n) > overall)
            overall = oracle_nim_value(n);
    printf("nim max_up_to_2p24 %d\n", overall);

    /* queries on the cached table: heights spread over all of it, and
     * positions of five heaps by the XOR rule */
    enum { QUERIES = 20000000 };
    unsigned state = 12345u, sum = 0;
    double start = cpu_now();
    for (int i = 0; i < QUERIES; i++) {
        state = state * 1103515245u + 12345u;
        sum += (unsigned)oracle_nim_value((int)(state >> 8) % (top + 1));
    }
    printf("nim query_ns %.1f\n", (cpu_now() - start) / QUERIES * 1e9);
    start = cpu_now();
    int p_count = 0;
    for (int i = 0; i < QUERIES / 5; i++) {
        int heaps[5];
        for (int k = 0; k < 5; k++) {
            state = state * 1103515245u + 12345u;
            heaps[k] = (int)(state >> 8) % (top + 1);
        }
        p_count += oracle_is_p(heaps, 5);
    }
    printf("nim is_p_5_heaps_ns %.1f\n", (cpu_now() - start) / (QUERIES / 5) * 1e9);
    printf("nim checksum %u %d\n", sum, p_count);
    oracle_nim_table_free();
    return 0;
}
