/*
 * lab_messages.c - the words of a failure message: formatting, the
 * message suffix, the "not implemented yet" note, and positions and
 * outcomes as text (see lab_support.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_definition.h"
#include "lab_run_state.h"
#include "lab_support.h"
#include "lab_todo.h"
#include "oracle.h"

static char message[8192];

const char *lab_format(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return message;
}

/* Its own buffer, not a pointer to the caller's: a suite may build the
 * suffix in a buffer it reuses. */
static char message_suffix[64];

void lab_set_message_suffix(const char *suffix)
{
    snprintf(message_suffix, sizeof message_suffix, "%s", suffix != NULL ? suffix : "");
}

const char *lab_message_suffix(void)
{
    return message_suffix;
}

/* Stubs a test reached only through lab_memo_clear_if_written() or
 * lab_memo_size_if_written(): left out of the note, unless the test is of
 * the task that adds them (a Task 2 test reading a memo size that a stub
 * returned says so; a Task 1 test never blames Task 2's stubs). */
static const char *unasked_stubs[2];

/* Whether `function` is one the running test's own task adds (lab.ini's
 * [api]): such a stub is that task's work not done, and is always named. */
static bool of_this_task(const char *function)
{
    char suite[64];
    snprintf(suite, sizeof suite, "%.*s", (int)strcspn(lab_test_name, ":"), lab_test_name);
    const lab_task *task = lab_task_of_suite(suite);
    size_t length = strlen(function);
    for (const char *f = task != NULL ? task->functions : ""; *f != '\0'; f += strspn(f, " ")) {
        size_t n = strcspn(f, " ");
        if (n == length && strncmp(f, function, n) == 0)
            return true;
        f += n;
    }
    return false;
}

static bool unasked(const char *stub)
{
    if (of_this_task(stub))
        return false;
    for (size_t i = 0; i < sizeof unasked_stubs / sizeof *unasked_stubs; i++)
        if (unasked_stubs[i] != NULL && strcmp(unasked_stubs[i], stub) == 0)
            return true;
    return false;
}

static bool a_check_failed;

const char *lab_check_failed(void)
{
    a_check_failed = true;
    return "";
}

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer asks this at exit: nonzero skips its report. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return a_check_failed;
}
#endif

const char *lab_todo_note(void)
{
    static char note[512];
    size_t used = 0;
    for (size_t i = 0; lab_stub_reached(i) != NULL && used < sizeof note; i++) {
        if (unasked(lab_stub_reached(i)))
            continue;
        used += (size_t)snprintf(note + used, sizeof note - used, "%s%s",
                                 used ? ", " : "not implemented yet: ", lab_stub_reached(i));
    }
    if (used == 0)
        return "";
    if (used < sizeof note)
        snprintf(note + used, sizeof note - used, " (see the TODOs in your code). ");
    return note;
}

/* Whether `function` is a stub that was reached; when it is, it is also
 * left out of the note from now on (its caller asked it only in case). */
bool lab_stub_reached_in_passing(const char *function)
{
    for (size_t i = 0; lab_stub_reached(i) != NULL; i++) {
        if (strcmp(lab_stub_reached(i), function) != 0)
            continue;
        for (size_t k = 0; k < sizeof unasked_stubs / sizeof *unasked_stubs; k++) {
            if (unasked_stubs[k] == NULL || strcmp(unasked_stubs[k], function) == 0) {
                unasked_stubs[k] = function;
                break;
            }
        }
        return true;
    }
    return false;
}


const char *lab_outcome_text(bool is_p)
{
    return is_p ? "a P-position" : "an N-position";
}

const char *lab_heaps_text(const int *heaps, size_t n)
{
    /* A ring of buffers: a message quotes a few positions at once, and
     * nothing is left allocated for valgrind to report. */
    static char ring[16][4096];
    static size_t next;
    char *text = oracle_format(heaps, n);
    char *slot = ring[next++ % 16];
    /* Bounded: a position the student's code made is student-made data,
     * and a message is a channel out of the grader (a solver could write
     * anything, 16 bits a heap, into a position it was asked about). So
     * a long position shows its first and last LAB_TEXT_ENTRIES heights
     * and its size, never every heap; the tests' own positions are short
     * enough to show whole. */
    enum { LAB_TEXT_ENTRIES = 4 };
    size_t entries = 1, heap_total = 0;
    const char *cut_after = NULL, *resume_at = NULL;
    for (const char *c = text + 1; *c != '\0'; c++) {
        if (*c == '=')
            heap_total += strtoul(c + 1, NULL, 10);
        else if (c[0] == ',' && c[1] == ' ' && ++entries == LAB_TEXT_ENTRIES + 1)
            cut_after = c;
    }
    if (strcmp(text, "{}") == 0 || entries <= 2 * LAB_TEXT_ENTRIES + 1) {
        snprintf(slot, sizeof ring[0], "%s", text);
    } else {
        size_t seen = 0;
        for (const char *c = text + 1; *c != '\0'; c++)
            if (c[0] == ',' && c[1] == ' ' && ++seen == entries - LAB_TEXT_ENTRIES)
                resume_at = c + 2;
        snprintf(slot, sizeof ring[0], "%.*s, ..., %s (%zu heaps in %zu heights)", (int)(cut_after - text),
                 text, resume_at, heap_total, entries);
    }
    free(text);
    return slot;
}

