/*
 * cpu_budget.h - CPU budgets measured in the same run, for the optional
 * tasks' timing checks.
 *
 * A fixed number of seconds would be too strict on a slow machine and too
 * loose on a fast one. A budget is therefore a multiple of the CPU time
 * that a yardstick (a plain, honest implementation of the same work)
 * needs on the same input, on the same machine, in the same run: if the
 * machine is twice as slow, both double and the verdict stays the same.
 * The handout's sections on Tasks 6-8 give each ratio and why.
 */
#ifndef CPU_BUDGET_H
#define CPU_BUDGET_H

/* The shortest budget ever given: below it, the clocks' resolution and a
 * process's start-up would decide the verdict, not the code. */
#define CPU_BUDGET_FLOOR 0.05

/* CPU seconds one call of work(argument) takes in this process, averaged
 * over as many calls as it takes to measure at least CPU_BUDGET_FLOOR. */
double cpu_budget_measure(void (*work)(const void *argument), const void *argument);

/* ratio x yardstick, but never below CPU_BUDGET_FLOOR. */
double cpu_budget(double ratio, double yardstick_seconds);

/* The yardstick of the nimber tasks: g(0), ..., g(n) straight from the
 * definition, by the oracle's plain mex (oracle_nim_value_by_definition),
 * the same O(n^2) work as a bottom-up table. `argument` points to n. */
void cpu_budget_nim_by_definition(const void *argument);

/* The yardstick of the search tasks: the calibration solver of Task 2
 * (calibration_solver.h) on one heap. `argument` points to the height. */
void cpu_budget_calibration_heap(const void *argument);

#endif /* CPU_BUDGET_H */
