/*
 * proxy_criterion.c - how the proxy's failures and figures reach Criterion
 * in the grader's test runners (see proxy.h).
 *
 * A failed call fails the test with the proxy's sentence, unless
 * child_run_proxy.c catches it (proxy_failure_catcher) to judge it. A figure that
 * only the student process can count is recorded as a line "SUITE::TEST
 * FIGURE" appended to $GRADER_REPORT.figures, so the grader can make the
 * test's points depend on a check made from outside (a passing assertion
 * would do, but Criterion's --full-stats, which reports those, sends every
 * passing assertion of the suites to the runner, which costs seconds).
 * The file is written by the test processes, which are trusted; student
 * processes cannot open files.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child_run_proxy.h"
#include "proxy.h"

jmp_buf *proxy_failure_catcher;
proxy_failure proxy_caught_failure;

_Noreturn void proxy_report_failure(proxy_failure kind, const char *message)
{
    if (proxy_failure_catcher != NULL) {
        /* child_run_proxy.c judges this failure itself (a crash or a spent
         * budget is the verdict it is after). */
        jmp_buf *catcher = proxy_failure_catcher;
        proxy_failure_catcher = NULL;
        proxy_caught_failure = kind;
        longjmp(*catcher, 1);
    }
    cr_assert_fail("%s", message);
    abort(); /* cr_assert_fail does not return */
}

void proxy_note_figure(const char *figure)
{
    static const char *noted[8];
    for (size_t i = 0; i < 8 && noted[i] != NULL; i++)
        if (strcmp(noted[i], figure) == 0)
            return;
    for (size_t i = 0; i < 8; i++)
        if (noted[i] == NULL) {
            noted[i] = figure;
            break;
        }
    const char *report = getenv("GRADER_REPORT");
    if (report == NULL || criterion_current_test == NULL)
        return;
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s.figures", report);
    int length = snprintf(line, sizeof line, "%s::%s %s\n", criterion_current_test->category,
                          criterion_current_test->name, figure);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0 && length > 0 && (size_t)length < sizeof line && write(fd, line, (size_t)length) < 0)
        perror("proxy_note_figure");
    if (fd >= 0)
        close(fd);
}
