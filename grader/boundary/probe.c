/*
 * probe.c - the trusted probes' handling of failed calls and their JSON
 * output (see probe.h).
 */
#include <stdio.h>

#include "probe.h"

jmp_buf probe_failed;
proxy_failure probe_failure;
char probe_failure_message[2048];

_Noreturn void proxy_report_failure(proxy_failure kind, const char *message)
{
    probe_failure = kind;
    snprintf(probe_failure_message, sizeof probe_failure_message, "%s", message);
    longjmp(probe_failed, 1);
}

/* A probe decides from what it measures itself, never from a figure the
 * student process reports: nothing to record. */
void proxy_note_figure(const char *figure)
{
    (void)figure;
}

const char *probe_outcome_name(proxy_failure kind)
{
    switch (kind) {
    case PROXY_OK:
        return "answered";
    case PROXY_CRASHED:
        return "crashed";
    case PROXY_TIMED_OUT:
        return "timed out";
    case PROXY_OVER_BUDGET:
        return "over budget";
    case PROXY_MALFORMED_REPLY:
        return "malformed";
    case PROXY_NOT_STARTED:
        return "not started";
    case PROXY_INTERNAL_ERROR:
        return "internal error";
    case PROXY_FAILURE_KINDS:
        break;
    }
    return "crashed";
}

void probe_print_json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}
