/*
 * lab_report.c - the per-task summary at the end of `make test`.
 *
 * A Criterion report hook: after all tests of a runner, it prints one line
 * per suite (= per task) with the passed count and a verdict a student can
 * act on (PASS, FAIL, or NOT STARTED when every failure is a stub that was
 * reached), and appends a machine-readable copy of that line, and a
 * "failed SUITE::TEST" line per failed test, to the file named by
 * $LAB_SUMMARY_FILE, which tests/run-suites and `make check` read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/hooks.h>

/* What a student reads for each suite (= task); hidden suites are
 * titled after their task. */
static const struct {
    const char *suite;
    const char *title;
} TITLES[] = {
    {"task0", "Task 0: the heap-count map and the moves"},
    {"task1", "Task 1: the recursive solver"},
    {"task2", "Task 2: memoization"},
    {"task5", "Task 5: the winning move"},
    {"task6", "Task 6: pairs cancel, and nimbers"},
    {"task7", "Task 7: the nimbers, bottom-up"},
    {"task8", "Task 8: the solver without recursion"},
    {"task0_hidden", "Task 0 (hidden tests)"},
    {"task1_hidden", "Task 1 (hidden tests)"},
    {"task2_hidden", "Task 2 (hidden tests)"},
    {"task5_hidden", "Task 5 (hidden tests)"},
    {"task6_hidden", "Task 6 (hidden tests)"},
    {"task7_hidden", "Task 7 (hidden tests)"},
    {"task8_hidden", "Task 8 (hidden tests)"},
};

static const char *task_title(const char *suite)
{
    for (size_t i = 0; i < sizeof TITLES / sizeof *TITLES; i++)
        if (strcmp(suite, TITLES[i].suite) == 0)
            return TITLES[i].title;
    return suite;
}

static bool failed_on_stub(const struct criterion_test_stats *test)
{
    for (const struct criterion_assert_stats *a = test->asserts; a != NULL; a = a->next)
        if (!a->passed && a->message != NULL && strncmp(a->message, "not implemented yet", 19) == 0)
            return true;
    return false;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    const char *path = getenv("LAB_SUMMARY_FILE");
    FILE *summary = path != NULL ? fopen(path, "a") : NULL;
    for (const struct criterion_suite_stats *suite = stats->suites; suite != NULL; suite = suite->next) {
        size_t total = 0, passed = 0, failed = 0, crashed = 0, skipped = 0, todo = 0;
        for (const struct criterion_test_stats *t = suite->tests; t != NULL; t = t->next) {
            total++;
            if (t->test_status == CR_STATUS_SKIPPED)
                skipped++;
            else if (t->test_status == CR_STATUS_PASSED)
                passed++;
            else {
                failed++;
                if (summary != NULL)
                    fprintf(summary, "failed %s::%s\n", suite->suite->name, t->test->name);
                if (t->crashed || t->timed_out)
                    crashed++;
                else if (failed_on_stub(t))
                    todo++;
            }
        }
        if (total == skipped)
            continue; /* nothing of this suite ran (a --filter elsewhere) */
        const char *verdict = failed == 0 ? "PASS" : todo == failed ? "NOT_STARTED" : "FAIL";
        printf("\n%-44s %3zu/%zu passed   %s\n", task_title(suite->suite->name), passed,
               total - skipped, failed == 0 ? "PASS" : todo == failed ? "NOT STARTED" : "FAIL");
        if (summary != NULL)
            fprintf(summary, "%s total=%zu passed=%zu failed=%zu crashed=%zu skipped=%zu todo=%zu verdict=%s\n",
                    suite->suite->name, total, passed, failed, crashed, skipped, todo, verdict);
    }
    if (summary != NULL)
        fclose(summary);
}
