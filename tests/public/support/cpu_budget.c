/*
 * cpu_budget.c - the same-run budgets behind cpu_budget.h.
 */
#include "calibration_solver.h"
#include "cpu_budget.h"
#include "oracle.h"

double cpu_budget_measure(void (*work)(const void *argument), const void *argument)
{
    int calls = 0;
    double start = cpu_seconds();
    double spent = 0;
    while (spent < CPU_BUDGET_FLOOR) {
        work(argument);
        calls++;
        spent = cpu_seconds() - start;
    }
    return spent / calls;
}

double cpu_budget(double ratio, double yardstick_seconds)
{
    double budget = ratio * yardstick_seconds;
    return budget < CPU_BUDGET_FLOOR ? CPU_BUDGET_FLOOR : budget;
}

void cpu_budget_nim_by_definition(const void *argument)
{
    int n = *(const int *)argument;
    /* The oracle's fast table is built on the first call; from the second
     * call on, only the plain mex is measured. */
    for (int h = 0; h <= n; h++)
        (void)oracle_nim_value_by_definition(h);
}

void cpu_budget_calibration_heap(const void *argument)
{
    (void)calibration_is_p((const int *)argument, 1);
}
