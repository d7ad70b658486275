/*
 * lab_report.c - what `make test` prints about each task.
 *
 * A Criterion report hook. Criterion's own log prints every failure as it
 * happens, in the order the parallel tests finish, so twenty tests failing
 * for one reason make twenty screens. Instead, after all tests of a runner,
 * this hook prints per suite (= per task) one entry per cause: its first
 * case (in the order of the test file) in full, then the other tests it
 * fails. Two failures share a cause when their whole messages, every
 * line, are the same once the positions ({...}), the numbers and the answers
 * (true/false, a P-/an N-position) are taken out (kind_of): messages that
 * differ in any word are never grouped. Time-outs are listed in the order
 * they happened (Criterion runs tests side by side, so that is not the
 * file's order). A crash or a time-out is told with the test's last step,
 * which lab_signals.c's signal handler wrote to $LAB_SUMMARY_FILE.crashes.
 * `--verbose` brings Criterion's own log back as well.
 *
 * It also appends, to the file named by $LAB_SUMMARY_FILE (read by
 * tests/public/run-suites and `make check`): one line per suite with the counts
 * and a verdict a student can act on (PASS, FAIL, or NOT_STARTED when no
 * test passed and every failure reached a stub, or when every function the
 * task adds, lab.ini's [api], was reached as a stub: a Task 2 left untouched
 * after Task 1 passes some tests and fails others without reaching its
 * stubs; a task with tests passing and one function left is FAIL), a
 * "failed SUITE::TEST" line per failed test and a "skipped SUITE::TEST
 * REASON" line per skipped one.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/logging.h>
#include <criterion/options.h>

enum { SHOWN_IN_FULL = 3 };

#include "lab_definition.h"
#include "lab_support.h"
#include "lab_where.h"

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

/* A logger that prints nothing: the failures are printed at the end. */
static struct criterion_logger quiet_logger;

ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
    (void)tests;
    if (criterion_options.logging_threshold >= CRITERION_IMPORTANT)
        criterion_options.logger = &quiet_logger;
}

static bool is_stub_message(const char *message)
{
    return message != NULL && strncmp(message, "not implemented yet", 19) == 0;
}

/* Whether `function` is named in a failure's stub note ("not implemented
 * yet: f, g (see ..."; lab_messages.c), wherever in the message it is. */
static bool names_stub(const char *message, const char *function, size_t length)
{
    const char *note = message != NULL ? strstr(message, "not implemented yet: ") : NULL;
    if (note == NULL)
        return false;
    const char *end = strstr(note, " (see");
    for (const char *at = note + 21; (at = strstr(at, function)) != NULL && (end == NULL || at < end);
         at += length) {
        char after = at[length];
        if ((at[-1] == ' ' || at[-1] == ',') && (after == ',' || after == ' ' || after == '\0'))
            return true;
    }
    return false;
}

/* Whether every function that suite's task adds is still a stub: each was
 * named by the stub note of one of its failures. False for a task that
 * adds none (its work is in functions of earlier tasks). */
static bool own_functions_all_stubs(const char *suite, const struct criterion_suite_stats *stats)
{
    const lab_task *task = lab_task_of_suite(suite);
    if (task == NULL || task->functions[0] == '\0')
        return false;
    for (const char *f = task->functions; *f != '\0';) {
        size_t length = strcspn(f, " ");
        char function[128];
        snprintf(function, sizeof function, "%.*s", (int)length, f);
        bool reached = false;
        for (const struct criterion_test_stats *t = stats->tests; t != NULL && !reached; t = t->next)
            for (const struct criterion_assert_stats *a = t->asserts; a != NULL && !reached; a = a->next)
                reached = !a->passed && names_stub(a->message, function, strlen(function));
        if (!reached)
            return false;
        f += length;
        f += strspn(f, " ");
    }
    return true;
}

/* "f is", "f and g are", "f, g and h are" from "f g h". */
static const char *spoken_list(const char *words)
{
    static char text[512];
    size_t count = 0, used = 0;
    for (const char *w = words; *w != '\0'; w += strspn(w, " "), count++)
        w += strcspn(w, " ");
    size_t i = 0;
    for (const char *w = words; *w != '\0' && used < sizeof text; i++) {
        size_t length = strcspn(w, " ");
        const char *before = i == 0 ? "" : i + 1 == count ? " and " : ", ";
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%.*s", before, (int)length, w);
        w += length;
        w += strspn(w, " ");
    }
    if (used < sizeof text)
        snprintf(text + used, sizeof text - used, count == 1 ? " is" : " are");
    return text;
}

static const char *failed_assertion(const struct criterion_test_stats *test)
{
    for (const struct criterion_assert_stats *a = test->asserts; a != NULL; a = a->next)
        if (!a->passed && a->message != NULL)
            return a->message;
    return NULL;
}

/* ---- crash reports --------------------------------------------------------- */

static char *crash_reports; /* the .crashes file: "SUITE::TEST<tab>TEXT" lines */

static void read_crash_reports(const char *summary_path)
{
    if (summary_path == NULL)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s.crashes", summary_path);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return;
    size_t size = 0, capacity = 4096;
    crash_reports = malloc(capacity);
    for (size_t n; crash_reports != NULL &&
                   (n = fread(crash_reports + size, 1, capacity - size - 1, file)) > 0;) {
        size += n;
        if (capacity - size < 2) {
            char *grown = realloc(crash_reports, capacity *= 2);
            if (grown == NULL)
                break;
            crash_reports = grown;
        }
    }
    if (crash_reports != NULL)
        crash_reports[size] = '\0';
    fclose(file);
}

/* The crash report of `suite::test` (the last one written), copied into
 * `out`, and its line's rank in the file (*rank: the reports are appended
 * as the tests end, so this is the order they happened in); false when
 * there is none. */
static bool crash_report_of(const char *suite, const char *test, char *out, size_t size, long *rank)
{
    char key[256];
    int length = snprintf(key, sizeof key, "%s::%s\t", suite, test);
    bool found = false;
    long number = 0;
    for (const char *line = crash_reports; line != NULL && *line != '\0'; number++) {
        const char *end = strchr(line, '\n');
        size_t line_length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (length > 0 && strncmp(line, key, (size_t)length) == 0) {
            size_t text = line_length - (size_t)length;
            snprintf(out, size, "%.*s", (int)text, line + length);
            *rank = number;
            found = true;
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return found;
}

/* ---- one failed test ------------------------------------------------------- */

typedef struct {
    const char *name;
    unsigned line; /* where the test is defined: failures are shown in file order */
    char message[2048];
    char kind[2048]; /* the cause: the whole message with positions and numbers taken out */
    long timed_out_at; /* a time-out's rank in the .crashes file (the order they happened), else -1 */
    bool shown;
} failure;

/* The cause of a failure: its whole message, every line, with every
 * position ({...}), number and answer replaced, so that
 * "grundy_is_p_position({13=1}) returned true" and
 * "grundy_is_p_position({4=1}) returned false" are the same cause, but two
 * messages whose words differ anywhere (a hint of one that the other lacks,
 * another function, another handout section) are not. Every stub note is
 * one cause: the fix is the same. The handout ("Running the tests") and
 * handouts/guides/student.md say so; grader/gradelib/reports.py's
 * cause_key is the same rule for the feedback. */
static void kind_of(const char *message, char *kind, size_t size)
{
    if (is_stub_message(message)) {
        snprintf(kind, size, "not implemented yet");
        return;
    }
    /* A memo mistake's message names its cause, then what this test saw
     * (lab_diagnosis.c): the cause is the part before LAB_TEST_SAW. */
    const char *saw = strstr(message, LAB_TEST_SAW);
    size_t used = 0;
    for (const char *c = message; *c != '\0' && c != saw && used + 2 < size; c++) {
        if (*c == '{') {
            const char *close = strchr(c, '}');
            if (close != NULL) {
                kind[used++] = '#';
                c = close;
                continue;
            }
        }
        if (*c >= '0' && *c <= '9') {
            kind[used++] = '#';
            while (c[1] >= '0' && c[1] <= '9')
                c++;
            continue;
        }
        /* "returned true" and "returned false", "a P-position" and "an
         * N-position" are the same kind of failure too. */
        static const char *const answers[] = {"true", "false", "a P-position", "an N-position"};
        size_t a = 0;
        while (a < 4 && strncmp(c, answers[a], strlen(answers[a])) != 0)
            a++;
        if (a < 4) {
            kind[used++] = '#';
            c += strlen(answers[a]) - 1;
            continue;
        }
        kind[used++] = *c;
    }
    kind[used] = '\0';
}

/* Why a test process can end early without a signal. */
static const char *early_exit_words(void)
{
#if defined(__SANITIZE_ADDRESS__)
    /* UndefinedBehaviorSanitizer stops a test without any hook of ours. */
    return "the test was stopped by AddressSanitizer or UndefinedBehaviorSanitizer (SAN=1): its "
           "report is printed above, and its first line in your files is where it happened";
#else
    /* Under valgrind, heap corruption does not abort the test: valgrind
     * reports each bad write and goes on, until its own bookkeeping next
     * to the overwritten blocks is found broken and valgrind exits. */
    if (lab_under_valgrind())
        return "the test process ended before the test finished, without a signal. Under "
               "valgrind (make memcheck) that is most often valgrind itself stopping because the "
               "code under test wrote past the end of a block and corrupted the heap (its log "
               "then ends with \"Heap block lo/hi size mismatch\"): read this test's first "
               "\"Invalid write\" in the valgrind records below. Otherwise, code under test "
               "called exit(); it must return";
    return "the test ended before it finished: code under test must return, never call exit()";
#endif
}

static void describe(const char *suite, const struct criterion_test_stats *test, failure *f)
{
    f->name = test->test->name;
    f->line = test->test->data != NULL ? test->test->data->line_ : 0;
    f->shown = false;
    f->timed_out_at = -1;
    /* A failed check says the most; a crash or a sanitizer's stop is told
     * by the test's own account (lab_signals.c), with its last step. */
    const char *message = failed_assertion(test);
    long rank = -1;
    if (message != NULL && !test->crashed && !test->timed_out)
        snprintf(f->message, sizeof f->message, "%s", message);
    else if (crash_report_of(suite, test->test->name, f->message, sizeof f->message, &rank))
        lab_where_resolve(f->message, sizeof f->message); /* the student's line, if any */
    else if (test->timed_out)
        snprintf(f->message, sizeof f->message, "the test did not finish within its time limit");
    else if (test->crashed)
        snprintf(f->message, sizeof f->message,
                 "the test crashed with signal %d (%s). Run `make memcheck` or `make test SAN=1`",
                 test->signal, strsignal(test->signal));
    else
        snprintf(f->message, sizeof f->message, "%s (exit status %d)", early_exit_words(),
                 test->exit_code);
    kind_of(f->message, f->kind, sizeof f->kind);
    /* A time-out without a report of its own (Criterion's --timeout) has
     * no known moment: after those that have one. */
    if (test->timed_out || (rank >= 0 && strstr(f->message, "did not finish within") != NULL))
        f->timed_out_at = rank >= 0 ? rank : LONG_MAX;
}

static int by_line(const void *a, const void *b)
{
    const failure *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line ? 1 : strcmp(x->name, y->name);
}

/* Prints the message, each line indented under the test's name. */
static void print_message(const char *message)
{
    for (const char *line = message; *line != '\0';) {
        while (*line == ' ')
            line++;
        const char *end = strchr(line, '\n');
        int length = end != NULL ? (int)(end - line) : (int)strlen(line);
        if (length > 0)
            printf("    %.*s\n", length, line);
        line = end != NULL ? end + 1 : line + length;
    }
}

static int by_time_out(const void *a, const void *b)
{
    const failure *x = *(failure *const *)a, *y = *(failure *const *)b;
    return x->timed_out_at < y->timed_out_at ? -1 : x->timed_out_at > y->timed_out_at;
}

/* The file's order, except that the time-outs, in the places the file's
 * order gives them, come in the order they happened. */
static void order_failures(failure *failures, size_t count)
{
    qsort(failures, count, sizeof *failures, by_line);
    failure **slots = malloc((count ? count : 1) * sizeof *slots);
    failure *copies = malloc((count ? count : 1) * sizeof *copies);
    if (slots == NULL || copies == NULL) {
        free(slots);
        free(copies);
        return;
    }
    size_t timeouts = 0;
    for (size_t i = 0; i < count; i++)
        if (failures[i].timed_out_at >= 0)
            slots[timeouts++] = &failures[i];
    for (size_t i = 0; i < timeouts; i++)
        copies[i] = *slots[i];
    failure **order = malloc((timeouts ? timeouts : 1) * sizeof *order);
    if (order != NULL) {
        for (size_t i = 0; i < timeouts; i++)
            order[i] = &copies[i];
        qsort(order, timeouts, sizeof *order, by_time_out);
        for (size_t i = 0; i < timeouts; i++)
            *slots[i] = *order[i];
    }
    free(order);
    free(copies);
    free(slots);
}

/* The number of causes among `count` failures. */
static size_t count_causes(const failure *failures, size_t count)
{
    size_t causes = 0;
    for (size_t i = 0; i < count; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(failures[j].kind, failures[i].kind) != 0;
        causes += first;
    }
    return causes;
}

/* One entry per cause, in the order of its first case: that case in full,
 * then the other tests it fails. After SHOWN_IN_FULL causes, the others
 * get their first line, whole (still with their tests). */
static void print_failures(const char *suite, failure *failures, size_t count)
{
    order_failures(failures, count);
    size_t causes = 0;
    for (size_t i = 0; i < count; i++) {
        failure *f = &failures[i];
        if (f->shown)
            continue;
        f->shown = true;
        if (causes++ >= SHOWN_IN_FULL) {
            /* Its first line whole: a one-line message ends with its hint. */
            printf("  FAIL %s::%s: %.*s\n", suite, f->name, (int)strcspn(f->message, "\n"), f->message);
        } else {
            printf("\n  FAIL %s::%s\n", suite, f->name);
            print_message(f->message);
        }
        size_t same = 0;
        for (size_t j = i + 1; j < count; j++)
            same += !failures[j].shown && strcmp(failures[j].kind, f->kind) == 0;
        if (same == 0)
            continue;
        printf("    The same cause (this message but for its positions and numbers) fails %zu more test%s:",
               same, same == 1 ? "" : "s");
        const char *separator = " ";
        for (size_t j = i + 1; j < count; j++) {
            if (!failures[j].shown && strcmp(failures[j].kind, f->kind) == 0) {
                failures[j].shown = true;
                printf("%s%s", separator, failures[j].name);
                separator = ", ";
            }
        }
        printf("\n");
    }
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    const char *path = getenv("LAB_SUMMARY_FILE");
    FILE *summary = path != NULL ? fopen(path, "a") : NULL;
    read_crash_reports(path);
    for (const struct criterion_suite_stats *suite = stats->suites; suite != NULL; suite = suite->next) {
        const char *name = suite->suite->name;
        size_t total = 0, passed = 0, failed = 0, crashed = 0, skipped = 0, todo = 0;
        for (const struct criterion_test_stats *t = suite->tests; t != NULL; t = t->next)
            total++;
        failure *failures = calloc(total ? total : 1, sizeof *failures);
        for (const struct criterion_test_stats *t = suite->tests; t != NULL; t = t->next) {
            if (t->test_status == CR_STATUS_SKIPPED) {
                skipped++;
                if (summary != NULL)
                    fprintf(summary, "skipped %s::%s %s\n", name, t->test->name,
                            t->message != NULL ? t->message : "");
            } else if (t->test_status == CR_STATUS_PASSED) {
                passed++;
            } else {
                if (summary != NULL)
                    fprintf(summary, "failed %s::%s\n", name, t->test->name);
                if (t->crashed || t->timed_out)
                    crashed++;
                else if (is_stub_message(failed_assertion(t)))
                    todo++;
                if (failures != NULL)
                    describe(name, t, &failures[failed]);
                failed++;
            }
        }
        if (total == skipped) {
            free(failures);
            continue; /* nothing of this suite ran (a --filter elsewhere) */
        }
        bool only_stubs = failed > 0 && todo == failed && passed == 0;
        bool untouched = failed > 0 && !only_stubs && own_functions_all_stubs(name, suite);
        const char *verdict = failed == 0 ? "PASS" : only_stubs || untouched ? "NOT_STARTED" : "FAIL";
        if (failed == 0)
            printf("%s: all %zu tests pass\n", task_title(name), total - skipped);
        else if (only_stubs)
            printf("%s: %zu of %zu tests fail (not started: every failure reached a stub)\n",
                   task_title(name), failed, total - skipped);
        else if (untouched)
            printf("%s: %zu of %zu tests fail (not started: %s still stubs)\n", task_title(name),
                   failed, total - skipped, spoken_list(lab_task_of_suite(name)->functions));
        else {
            size_t causes = failures != NULL ? count_causes(failures, failed) : 0;
            printf("%s: %zu of %zu tests fail, for %zu cause%s%s\n", task_title(name), failed,
                   total - skipped, causes, causes == 1 ? "" : "s",
                   causes == 1 || causes == failed ? "" : " (each shown once, with the tests it fails)");
        }
        if (failures != NULL && failed > 0)
            print_failures(name, failures, failed);
        free(failures);
        if (summary != NULL)
            fprintf(summary, "%s total=%zu passed=%zu failed=%zu crashed=%zu skipped=%zu todo=%zu verdict=%s\n",
                    name, total, passed, failed, crashed, skipped, todo, verdict);
    }
    free(crash_reports);
    crash_reports = NULL;
    fflush(stdout);
    if (summary != NULL)
        fclose(summary);
}
