/*
 * lab_report.c - the per-task summary at the end of `make test`.
 *
 * A Criterion report hook: after all tests of a program, it prints one line
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

#include "lab_definition.h"

/* "Task N: title" from the lab's definition; hidden suites say so. */
static const char *task_title(const char *suite)
{
    static char title[160];
    const lab_task *task = lab_task_of_suite(suite);
    if (task == NULL)
        return suite;
    if (strstr(suite, "_hidden") != NULL) {
        snprintf(title, sizeof title, "Task %s (hidden tests)", task->suite + 4);
        return title;
    }
    return task->heading;
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
