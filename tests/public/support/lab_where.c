/*
 * lab_where.c - the line of the student's code a crash or a time-out
 * stopped in, for make test's report.
 *
 * The test's signal handler (lab_signals.c) takes the stack's return
 * addresses (glibc's backtrace, made ready before any signal) and writes
 * them into its crash report as a marker, " [frames 0x.. 0x..]", offsets
 * into the test program. backtrace is not on POSIX's async-signal-safe
 * list; glibc's only unsafe part is its first call, which loads the
 * unwinder with malloc, so lab_where_prepare makes it before any signal,
 * and the handler then only walks the stack and formats numbers. The report hook (lab_report.c), in the runner's own process,
 * asks addr2line for each address's function, file and line, inlined
 * calls included, and puts in the marker's place the innermost one in a
 * file of the lab's tasks (lab.ini's task files: the student's own, never
 * the given code or the tests), or nothing when there is none, when the
 * program has no debug information, or when addr2line is missing.
 */
#define _GNU_SOURCE /* popen */
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h> /* getpid */

#include "lab_definition.h"
#include "lab_where.h"

enum { FRAMES = 24 }; /* the innermost ones: a recursion that overflows fills them all */
static void *frames[FRAMES];
static int frame_count;

/* The program's first byte where it is loaded: a position-independent
 * program's addresses, less this, are the ones its debug information uses. */
extern const char __executable_start[];

void lab_where_prepare(void)
{
    /* The first backtrace loads the unwinder (a malloc): never in a handler. */
    void *one[1];
    (void)backtrace(one, 1);
}

void lab_where_capture(void)
{
    frame_count = backtrace(frames, FRAMES);
}

size_t lab_where_marker(char *out, size_t size)
{
    static const char prefix[] = " [frames";
    size_t used = 0;
    if (frame_count <= 0 || size < sizeof prefix + 2)
        return 0;
    memcpy(out, prefix, sizeof prefix - 1);
    used = sizeof prefix - 1;
    for (int i = 0; i < frame_count && used + 20 < size - 2; i++) {
        uintptr_t at = (uintptr_t)frames[i];
#if defined(__PIE__) || defined(__pie__)
        at -= (uintptr_t)__executable_start;
#endif
        if (at > 0)
            at -= 1; /* a return address: its call is the byte before */
        out[used++] = ' ';
        out[used++] = '0';
        out[used++] = 'x';
        char digits[16];
        int n = 0;
        do {
            digits[n++] = "0123456789abcdef"[at & 15];
            at >>= 4;
        } while (at != 0 && n < 16);
        while (n > 0)
            out[used++] = digits[--n];
    }
    out[used++] = ']';
    out[used] = '\0';
    return used;
}

/* Whether `path` names a file of one of the lab's tasks (by its last part). */
static bool task_file(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    for (size_t i = 0; i < LAB_TASK_COUNT; i++)
        if (strcmp(base, lab_tasks[i].file) == 0)
            return true;
    return false;
}

/* " in FUNCTION, at FILE:LINE" for the innermost frame in a task's file of
 * the addresses `list` (" 0x.. 0x.."), or "" when none is. */
static void resolve(const char *list, char *out, size_t size)
{
    out[0] = '\0';
    char command[1400];
    int n = snprintf(command, sizeof command, "addr2line -a -f -i -e /proc/%ld/exe%s 2>/dev/null",
                     (long)getpid(), list);
    if (n < 0 || (size_t)n >= sizeof command)
        return;
    FILE *answers = popen(command, "r");
    if (answers == NULL)
        return;
    char function[256] = "", line[512], found[256] = "";
    bool expect_function = false;
    int repeats = 0; /* frames in the function found: a recursion that never ends fills the stack */
    while (fgets(line, sizeof line, answers) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "0x", 2) == 0 && strchr(line, ':') == NULL) {
            expect_function = true; /* an address: its function comes next */
            continue;
        }
        if (expect_function) {
            snprintf(function, sizeof function, "%.200s", line);
            expect_function = false;
            repeats += found[0] != '\0' && strcmp(function, found) == 0;
            continue;
        }
        /* "FILE:LINE" or "FILE:LINE (discriminator N)"; then a function again */
        expect_function = true;
        char *discriminator = strstr(line, " (discriminator");
        if (discriminator != NULL)
            *discriminator = '\0';
        char *colon = strrchr(line, ':');
        if (out[0] != '\0' || colon == NULL || colon[1] < '1' || colon[1] > '9')
            continue;
        *colon = '\0';
        if (!task_file(line))
            continue;
        const char *base = strrchr(line, '/');
        snprintf(out, size, " in %.120s, at %.120s:%.12s,", function, base != NULL ? base + 1 : line, colon + 1);
        snprintf(found, sizeof found, "%s", function);
        repeats = 1;
    }
    if (repeats >= FRAMES / 2) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, " with %d of the stack's last %d calls in %.120s itself (a recursion "
                 "that never reaches its base case),", repeats, FRAMES, found);
    }
    pclose(answers);
}

void lab_where_resolve(char *text, size_t size)
{
    char *marker = strstr(text, " [frames");
    char *end = marker != NULL ? strchr(marker, ']') : NULL;
    if (end == NULL)
        return;
    char list[1200], where[400];
    size_t length = (size_t)(end - marker) - 8;
    snprintf(list, sizeof list, "%.*s", (int)(length < sizeof list ? length : sizeof list - 1), marker + 8);
    for (const char *c = list; *c != '\0'; c++)
        if (!(*c == ' ' || *c == 'x' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return; /* not our marker: leave the text alone */
    resolve(list, where, sizeof where);
    size_t tail = strlen(end + 1);
    size_t room = size - (size_t)(marker - text) - 1;
    size_t kept = strlen(where) < room ? strlen(where) : room;
    memmove(marker + kept, end + 1, tail + 1 < room - kept + 1 ? tail + 1 : room - kept + 1);
    memcpy(marker, where, kept);
    text[size - 1] = '\0';
}
