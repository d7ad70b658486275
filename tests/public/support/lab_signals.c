/*
 * lab_signals.c - crashes, sanitizer stops and time-outs of a test,
 * reported with the test's name, its last step and what to do next
 * instead of Criterion's bare "CRASH!"; the per-test CPU limits (see
 * lab_support.h). The per-task words come from lab_hints.c.
 */
#define _XOPEN_SOURCE 700 /* sigaltstack, for reporting a stack overflow */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "lab_hints.h"
#include "lab_run_state.h"
#include "lab_support.h"
#include "lab_where.h"

#if defined(__SANITIZE_ADDRESS__) || defined(LAB_UBSAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

/* The running test, "suite::name" (set by lab_test_begin). */
char lab_test_name[128];

/* ---- crashes and time-outs ------------------------------------------------
 * Criterion reports a test killed by a signal as a bare "CRASH!". The test
 * process knows more: which test it runs and what it was doing. A signal
 * handler writes that down, then lets the signal end the process as before,
 * so Criterion still counts the crash. The handler may only use
 * async-signal-safe calls (open, write, close, sigaction, raise), so it
 * assembles its text from fixed strings. */

/* ---- time limits ------------------------------------------------------------
 * Each test may use TEST_CPU_SECONDS of CPU time in its own process (the
 * children it forks have budgets of their own); the model solution's
 * slowest test uses under 0.5 s of it. Once a test of a suite has run out of
 * time, the suite's later tests get SHORT_TEST_CPU_SECONDS: a solver that
 * loops does so in most tests, and each time-out would otherwise cost the
 * whole limit, so `make test` of such a mistake takes seconds, not minutes.
 * The time-outs are written down in $LAB_SUMMARY_FILE.timeouts (one suite
 * a line; tests/public/run-suites starts each run with none). The suites' .timeout
 * (Criterion's wall-clock limit) stays as the backstop of a test that
 * blocks without using CPU. AddressSanitizer (SAN=1) makes this code up
 * to 6 times slower (measured: task1::single_heaps_up_to_20, an allocation
 * per move, 1.1 s natively and 6.7 s under it; 9.6 s for a solver that
 * leaks its move lists), so the limits are six times as long there; under
 * valgrind (20-50 times slower) only Criterion's limit applies. */
#if defined(__SANITIZE_ADDRESS__)
enum { TEST_CPU_SECONDS = 24, SHORT_TEST_CPU_SECONDS = 6 };
#define LIMIT_TEXT "24 s"
#define SHORT_LIMIT_TEXT "6 s"
#else
enum { TEST_CPU_SECONDS = 4, SHORT_TEST_CPU_SECONDS = 1 };
#define LIMIT_TEXT "4 s"
#define SHORT_LIMIT_TEXT "1 s"
#endif
static bool short_limit;
static char timeouts_path[4096]; /* "" when the runner was started by hand */

/* The suite of the running test: "task2" for "task2::memo_fills_up". */
static size_t suite_length(void)
{
    return strcspn(lab_test_name, ":");
}

/* Whether an earlier test of this suite, in this run, timed out. */
static bool suite_timed_out_before(void)
{
    FILE *file = timeouts_path[0] != '\0' ? fopen(timeouts_path, "r") : NULL;
    if (file == NULL)
        return false;
    char line[160];
    bool found = false;
    size_t length = suite_length();
    while (!found && fgets(line, sizeof line, file) != NULL)
        found = strncmp(line, lab_test_name, length) == 0 && line[length] == '\n';
    fclose(file);
    return found;
}

/* In the SIGPROF handler: only async-signal-safe calls. */
static void record_time_out(void)
{
    if (timeouts_path[0] == '\0')
        return;
    int fd = open(timeouts_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    (void)!write(fd, lab_test_name, suite_length());
    (void)!write(fd, "\n", 1);
    close(fd);
}

static void start_time_limit(void)
{
    if (lab_under_valgrind())
        return;
    short_limit = suite_timed_out_before();
    struct itimerval limit = {.it_value = {.tv_sec = short_limit ? SHORT_TEST_CPU_SECONDS : TEST_CPU_SECONDS}};
    setitimer(ITIMER_PROF, &limit, NULL); /* SIGPROF, handled by on_fatal_signal */
}
static char crash_report_path[4096]; /* "" means stderr */
pid_t lab_test_process;
static const char *signal_words(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "crashed with SIGSEGV, an invalid memory access (a NULL, freed or out-of-bounds "
               "pointer, or a recursion that never stops)";
    case SIGBUS:
        return "crashed with SIGBUS, an invalid memory access";
    case SIGFPE:
        return "crashed with SIGFPE, an arithmetic error such as a division by zero";
    case SIGILL:
        return "crashed with SIGILL, an illegal instruction (often a non-void function that "
               "reached its end without a return)";
    case SIGABRT:
        return "was aborted (SIGABRT): a failed assert(), or the C library found the heap "
               "corrupted, for example by a double free or a write past the end of a block";
    case SIGPROF:
        return short_limit ? "did not finish within the test's short time limit (" SHORT_LIMIT_TEXT
                             " of CPU: an earlier test of this task timed out already, so the "
                             "later ones are cut short; an endless loop, or a search far too slow)"
                           : "did not finish within the test's time limit (" LIMIT_TEXT " of CPU: "
                             "an endless loop, or a search far too slow)";
    default:
        return "was killed by a signal";
    }
}

static size_t append(char *text, size_t used, size_t size, const char *part)
{
    size_t length = strlen(part);
    if (used + length >= size)
        length = size - used - 1;
    memcpy(text + used, part, length);
    text[used + length] = '\0';
    return used + length;
}

/* "make test-task1" for "task1::small_heaps". */
static const char *task_target(void)
{
    static char target[32];
    size_t used = append(target, 0, sizeof target, "make test-");
    for (const char *c = lab_test_name; *c != '\0' && *c != ':' && *c != '_'; c++)
        if (used < sizeof target - 1)
            target[used++] = *c;
    target[used] = '\0';
    return target;
}

/* Writes what happened to the test: a line "TEST<tab>WHAT" for the report
 * hook (lab_report.c) in $LAB_SUMMARY_FILE.crashes, or "TEST: WHAT" on
 * stderr when the runner was started by hand. */
static void write_crash_report(const char *what, const char *next)
{
    static char line[2048];
    static char frames_marker[1024];
    bool to_file = crash_report_path[0] != '\0';
    size_t used = append(line, 0, sizeof line, lab_test_name);
    used = append(line, used, sizeof line, to_file ? "\t" : ": ");
    used = append(line, used, sizeof line, "the test ");
    used = append(line, used, sizeof line, what);
    /* Where in the student's code (lab_where.c): the report resolves it. */
    if (to_file && lab_where_marker(frames_marker, sizeof frames_marker) > 0)
        used = append(line, used, sizeof line, frames_marker);
    if (lab_last_step[0] != '\0') {
        used = append(line, used, sizeof line, " during its last step, ");
        used = append(line, used, sizeof line, lab_last_step);
    }
    if (lab_last_call[0] != '\0' && strcmp(lab_last_call, lab_last_step) != 0) {
        used = append(line, used, sizeof line, " (after ");
        used = append(line, used, sizeof line, lab_last_call);
        used = append(line, used, sizeof line, ": a write past the end of a block or into freed "
                                               "memory is often found only at a later malloc or "
                                               "free, so that call may be the one at fault)");
    }
    used = append(line, used, sizeof line, ". ");
    used = append(line, used, sizeof line, next);
    used = append(line, used, sizeof line, "\n");
    int fd = to_file ? open(crash_report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
                     : STDERR_FILENO;
    if (fd < 0)
        fd = STDERR_FILENO;
    if (write(fd, line, used) < 0 && fd != STDERR_FILENO)
        (void)!write(STDERR_FILENO, line, used);
    if (fd != STDERR_FILENO)
        close(fd);
}

/* What a crash or a spin after grundy_memo_clear() most often means. */
static const char *after_clear_hint(void)
{
    if (strcmp(lab_last_step, "grundy_memo_clear()") == 0)
        return ". grundy_memo_clear() itself failed, after an earlier clear: freeing the table "
               "twice does this. After memo_table_free(memo), set memo = NULL (handout #task-2)";
    return ". The memo was cleared earlier in this test: if grundy_memo_clear() frees the table "
           "but keeps the pointer, the next question works in freed memory. After "
           "memo_table_free(memo), set memo = NULL (handout #task-2)";
}

static void on_fatal_signal(int sig)
{
    /* A child the test forked (the timing checks do) reports nothing: its
     * parent, the test, says what happened to it. */
    if (getpid() == lab_test_process) {
        static char next[768];
        const lab_task_hint *hint = lab_hint_of_test(lab_test_name);
        if (sig == SIGPROF && hint->step_word != NULL && strstr(lab_last_step, hint->step_word) != NULL) {
            record_time_out();
            append(next, 0, sizeof next, hint->step_hint);
        } else if (sig == SIGPROF) {
            record_time_out();
            size_t used = append(next, 0, sizeof next, hint->spin);
            used = append(next, used, sizeof next, task_target());
            append(next, used, sizeof next, hint->print_where);
        } else {
            append(next, 0, sizeof next, "Run `make memcheck` (valgrind names the line of the bad "
                                         "access) or `make test SAN=1` (AddressSanitizer stops at it)");
        }
        if (lab_memo_cleared) {
            append(next, strlen(next), sizeof next, after_clear_hint());
        } else if (lab_cleared_after_work != NULL && sig != SIGPROF) {
            /* A time-out is no evidence of memory a clear left behind: a
             * pointer, size or capacity kept by a clear makes a crash. */
            size_t used = strlen(next);
            used = append(next, used, sizeof next, ". ");
            used = append(next, used, sizeof next, lab_cleared_after_work);
            append(next, used, sizeof next, "() was called earlier in this test: a clear that frees "
                                            "a table but keeps its pointer, size or capacity makes "
                                            "the next call work in freed or missing memory. After "
                                            "freeing, set the pointer to NULL and the counts to 0");
        }
        lab_where_capture();
        write_crash_report(signal_words(sig), next);
    }
    struct sigaction fallback = {.sa_handler = SIG_DFL};
    sigemptyset(&fallback.sa_mask);
    sigaction(sig, &fallback, NULL);
    raise(sig);
}

#if defined(__SANITIZE_ADDRESS__)
/* With SAN=1 the sanitizers catch the bad access and print their report;
 * this adds which test and step it was. */
static void on_sanitizer_death(void)
{
    if (lab_test_done)
        write_crash_report("ended with memory still allocated, which LeakSanitizer reports above "
                           "the summary",
                           "Its stacks say where each block was allocated");
    else
        write_crash_report("was stopped by a sanitizer (its report is printed above the summary)",
                           "Read the first stack of that report: its top line in your files is "
                           "the bad access");
}
#endif

#if defined(LAB_UBSAN) && !defined(__SANITIZE_ADDRESS__)
/* A plain `make test` build checks for undefined behaviour
 * (tests/public/sanitizers.mk) and stops at the first: the report,
 * "FILE:LINE:COLUMN: runtime error: WHAT", goes to a file of this process
 * (set in lab_test_begin), and this hook turns it into the test's failure
 * message, so that the summary names the line, and copies it to stderr
 * as UndefinedBehaviorSanitizer would have printed it. tests/public/
 * run-suites names that file: UBSAN_OPTIONS=log_path=$LAB_SUMMARY_FILE.ubsan
 * (without it, the report goes to stderr as usual). Not a signal
 * handler: the runtime calls it before it exits, so stdio is fine. */
static char ubsan_report_prefix[4096]; /* "" means the report went to stderr */

/* What to do about the kind of undefined behaviour `report` names. */
static const char *undefined_behaviour_advice(const char *report)
{
    if (strstr(report, "signed integer overflow") != NULL)
        return "Signed arithmetic (int, long) must stay in its range; a value meant to wrap "
               "around, such as a hash, is computed in an unsigned type (uint64_t), whose "
               "arithmetic wraps by definition";
    if (strstr(report, "shift") != NULL)
        return "Shift unsigned values, by 0 to (width of the type - 1) bits";
    if (strstr(report, "out of bounds") != NULL)
        return "An index went past the end of an array (or below 0): check the loop's bounds";
    if (strstr(report, "division by zero") != NULL)
        return "A division or a % by zero";
    return "Fix that line";
}

static void on_undefined_behaviour(void)
{
    static char where[600], report[600];
    where[0] = report[0] = '\0';
    if (ubsan_report_prefix[0] != '\0') {
        char path[sizeof ubsan_report_prefix + 32];
        snprintf(path, sizeof path, "%s.%d", ubsan_report_prefix, (int)getpid());
        FILE *log = fopen(path, "r");
        char line[1024];
        while (log != NULL && fgets(line, sizeof line, log) != NULL) {
            fputs(line, stderr);
            /* "student/grundy_position.c:157:14: runtime error: signed integer overflow: ..." */
            char *error = strstr(line, ": runtime error: ");
            if (error != NULL && report[0] == '\0') {
                line[strcspn(line, "\n")] = '\0';
                snprintf(where, sizeof where, "%.*s", (int)(error - line), line);
                snprintf(report, sizeof report, "%s", error + strlen(": runtime error: "));
            }
        }
        if (log != NULL) {
            fclose(log);
            remove(path);
        }
    }
    if (getpid() != lab_test_process)
        return; /* a child the test forked: the report is on stderr, its parent says the rest */
    static char what[1024], next[1536];
    if (where[0] != '\0') {
        snprintf(what, sizeof what, "stopped on undefined behaviour at %s", where);
        snprintf(next, sizeof next,
                 "UndefinedBehaviorSanitizer (`make test` builds with it) says: %s. %s. Undefined "
                 "behaviour may look right here and break with another compiler, another -O or "
                 "the grader's build",
                 report, undefined_behaviour_advice(report));
    } else {
        snprintf(what, sizeof what,
                 "stopped on undefined behaviour (UndefinedBehaviorSanitizer's report is printed "
                 "above: its first line names the file and line)");
        snprintf(next, sizeof next, "Undefined behaviour may look right here and break with "
                                    "another compiler, another -O or the grader's build");
    }
    write_crash_report(what, next);
}
#endif

void lab_stop_test(const char *what, const char *next)
{
    if (getpid() == lab_test_process)
        write_crash_report(what, next);
    else
        fprintf(stderr, "%s: a process it forked %s. %s\n", lab_test_name, what, next);
    fflush(NULL);
    _exit(1);
}

void lab_test_finished(void)
{
    lab_test_done = true;
    lab_last_step[0] = '\0';
    lab_last_call[0] = '\0';
}

void lab_test_begin(const char *test)
{
    snprintf(lab_test_name, sizeof lab_test_name, "%s", test);
    lab_last_step[0] = '\0';
    lab_last_call[0] = '\0';
    lab_test_done = false;
    lab_memo_cleared = false;
    lab_traced_work = false;
    lab_cleared_after_work = NULL;
    lab_set_message_suffix("");
    lab_test_process = getpid();
    const char *summary = getenv("LAB_SUMMARY_FILE");
    snprintf(crash_report_path, sizeof crash_report_path, "%s%s", summary != NULL ? summary : "",
             summary != NULL ? ".crashes" : "");
    snprintf(timeouts_path, sizeof timeouts_path, "%s%s", summary != NULL ? summary : "",
             summary != NULL ? ".timeouts" : "");
#if defined(RUNNING_ON_VALGRIND)
    /* Names the test in valgrind's log of this process (make memcheck). */
    VALGRIND_PRINTF("lab-test %s\n", test);
#endif

    lab_where_prepare();
    /* Its own stack, so that a stack overflow can still be reported. */
    static char alternate_stack[64 * 1024];
    stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack};
    sigaltstack(&stack, NULL);
    struct sigaction action = {.sa_handler = on_fatal_signal, .sa_flags = SA_ONSTACK};
    sigemptyset(&action.sa_mask);
    /* Criterion ends a test at its time limit with SIGPROF. */
    int signals[] = {SIGABRT, SIGPROF,
#if !defined(__SANITIZE_ADDRESS__)
                     SIGSEGV, SIGBUS, SIGFPE, SIGILL,
#endif
    };
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        sigaction(signals[i], &action, NULL);
    start_time_limit();
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(on_sanitizer_death);
#elif defined(LAB_UBSAN)
    snprintf(ubsan_report_prefix, sizeof ubsan_report_prefix, "%s%s", summary != NULL ? summary : "",
             summary != NULL ? ".ubsan" : "");
    __sanitizer_set_death_callback(on_undefined_behaviour);
#endif
}
