/*
 * grader_report.c - the grader's own record of a runner's results.
 *
 * Criterion's built-in JSON and XML reports escape nothing and leave out
 * what the grader needs, so this hook, in the runner process, writes every
 * test's outcome with jansson to the file named by $GRADER_REPORT after
 * all tests. The runner is trusted: it links the suites, the oracle and
 * the proxy (proxy.h), never the submission, whose code runs in student
 * processes that cannot open a file. The grader still treats a test
 * missing from the report, or a missing report, as failed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <jansson.h>

static const char *status_of(const struct criterion_test_stats *t)
{
    if (t->test_status == CR_STATUS_SKIPPED)
        return "skipped";
    if (t->timed_out)
        return "timeout";
    if (t->crashed)
        return "crashed";
    return t->test_status == CR_STATUS_PASSED ? "passed" : "failed";
}

static json_t *test_record(const struct criterion_suite_stats *suite,
                           const struct criterion_test_stats *t)
{
    json_t *messages = json_array();
    for (const struct criterion_assert_stats *a = t->asserts; a != NULL; a = a->next) {
        if (!a->passed && a->message != NULL)
            json_array_append_new(messages, json_sprintf("%s:%u: %s", a->file ? a->file : "?",
                                                         a->line, a->message));
    }
    if (t->message != NULL)
        json_array_append_new(messages, json_string(t->message));
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:o}", "suite", suite->suite->name, "name",
                     t->test->name, "status", status_of(t), "signal", t->signal, "exit_code",
                     t->exit_code, "time", (double)t->elapsed_time, "messages", messages);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    const char *path = getenv("GRADER_REPORT");
    if (path == NULL)
        return;
    json_t *tests = json_array();
    for (const struct criterion_suite_stats *s = stats->suites; s != NULL; s = s->next)
        for (const struct criterion_test_stats *t = s->tests; t != NULL; t = t->next)
            json_array_append_new(tests, test_record(s, t));
    json_t *report = json_pack("{s:o}", "tests", tests);
    if (report == NULL || json_dump_file(report, path, JSON_INDENT(1)) != 0)
        fprintf(stderr, "grader_report: cannot write %s\n", path);
    json_decref(report);
}
