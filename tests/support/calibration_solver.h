/*
 * calibration_solver.h - the yardstick for the Task 2 timing checks.
 *
 * A plain memoized P/N solver that works the way an honest student solution
 * does (a fresh allocation per move, a hash table of positions), written
 * independently of the reference. Timing it on the same heap, in the same
 * process and run as the student's solver, turns "fast enough" into a
 * ratio that does not depend on the machine.
 */
#ifndef CALIBRATION_SOLVER_H
#define CALIBRATION_SOLVER_H

#include <stdbool.h>

/* Solves a single heap from an empty memo and frees the memo again. */
bool calibration_is_p(int heap);

/* CPU seconds this process has used so far. */
double cpu_seconds(void);

#endif /* CALIBRATION_SOLVER_H */
