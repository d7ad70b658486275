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
 *
 * Criterion runs tests side by side and lists them in suite order, so the
 * report also says when each test ran: "order", its rank among the
 * runner's tests in the order they ended (1 first), and "started", the
 * seconds from the runner's start to the test's. The hooks below run in
 * the runner as the tests' events reach it (PRE_TEST as a test starts,
 * POST_FINI or TEST_CRASH as it ends, a time-out included), so these come
 * from the runner's clock, not from the student process. The feedback
 * lists time-outs in that order (reports.py): after the first time-out a
 * runner's calls get a shorter limit, so the first one says the most.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <jansson.h>

/* The tests in the order they ended, and when each started. A runner
 * holds at most a few hundred tests; one that does not fit is reported
 * without its order (the feedback lists it after the known ones). */
enum { MOST_TESTS = 4096 };
static const struct criterion_test *ended[MOST_TESTS];
static size_t ended_count;
static const struct criterion_test *started_test[MOST_TESTS];
static double started_at[MOST_TESTS];
static size_t started_count;
static struct timespec runner_start;

static double seconds_since_start(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - runner_start.tv_sec) + (now.tv_nsec - runner_start.tv_nsec) / 1e9;
}

ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
    (void)tests;
    clock_gettime(CLOCK_MONOTONIC, &runner_start);
}

ReportHook(PRE_TEST)(struct criterion_test *test)
{
    if (started_count < MOST_TESTS) {
        started_test[started_count] = test;
        started_at[started_count++] = seconds_since_start();
    }
}

/* A test's end, once: a crash is reported without POST_FINI. */
static void note_end(const struct criterion_test *test)
{
    for (size_t i = 0; i < ended_count; i++)
        if (ended[i] == test)
            return;
    if (ended_count < MOST_TESTS)
        ended[ended_count++] = test;
}

ReportHook(POST_FINI)(struct criterion_test_stats *stats)
{
    note_end(stats->test);
}

ReportHook(TEST_CRASH)(struct criterion_test_stats *stats)
{
    note_end(stats->test);
}

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
    json_t *record = json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:o}", "suite", suite->suite->name,
                               "name", t->test->name, "status", status_of(t), "signal", t->signal,
                               "exit_code", t->exit_code, "time", (double)t->elapsed_time,
                               "messages", messages);
    for (size_t i = 0; record != NULL && i < ended_count; i++)
        if (ended[i] == t->test)
            json_object_set_new(record, "order", json_integer((json_int_t)i + 1));
    for (size_t i = 0; record != NULL && i < started_count; i++)
        if (started_test[i] == t->test)
            json_object_set_new(record, "started", json_real(started_at[i]));
    return record;
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
