/*
 * calibration_solver.h - the yardstick of every timing check.
 *
 * A plain memoized P/N solver that works the way an honest student solution
 * does (a fresh allocation per move, a hash table of positions), written
 * independently of the reference. Timing it on the same position, on the
 * same machine and in the same run as the student's solver turns "fast
 * enough" into a ratio that does not depend on the machine: the students'
 * timing tests (test_task2.c) and the grader's trusted timing probe
 * (grader/boundary/timing_probe.c) both allow LAB_TIMING_RATIO times its
 * CPU time (the lab's [timing], generated into lab_definition.h: in the
 * release, tests/public/gen/).
 */
#ifndef CALIBRATION_SOLVER_H
#define CALIBRATION_SOLVER_H

#include <stdbool.h>
#include <stddef.h>

/* Solves heaps[0 .. n-1] (any order; heaps below 3 are dead) from an empty
 * memo and frees the memo again. */
bool calibration_is_p(const int *heaps, size_t n);

/* CPU seconds this process has used so far. */
double cpu_seconds(void);

/* The calibration solver is repeated until it has run this long, so a
 * budget is never below the resolution of the clocks involved. */
#define CALIBRATION_MIN_SECONDS 0.05

/* CPU seconds one calibration_is_p(heaps, n) takes, averaged over enough
 * runs to last CALIBRATION_MIN_SECONDS; its answer in *is_p. */
double calibration_seconds(const int *heaps, size_t n, bool *is_p);

#endif /* CALIBRATION_SOLVER_H */
