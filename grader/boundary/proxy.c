/*
 * proxy.c - grundy.h answered by a student process (see proxy.h).
 *
 * Every failure of the student process ends the current test through
 * proxy_report_failure() with a sentence that names the call and its
 * position: "grundy_is_p_position({3=1, 19=1}) did not return within
 * N s", N being call_seconds (every limit: [limits] in grader/lab.ini,
 * through the generated grader_limits.h). The wall-clock limit of a call shrinks once calls of this
 * runner have timed out (counted in a file beside the runner's report), so
 * a submission that loops on many positions costs seconds, not minutes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc_tracker.h"
#include "expansion_counter.h"
#include "grader_limits.h"
#include "grundy.h"
#include "memo_record.h"
#include "lab_todo.h"
#include "proxy.h"
#include "spawn.h"
#include "wire.h"

/* How long a student process may take to end once asked (valgrind's leak
 * check and gcov's files take time at exit; a plain student process has
 * nothing to do then, and is killed at once), and once one student process
 * of the runner has lingered past its grace, how long the others get
 * (their report is lost anyway: the check could not run, which costs the
 * points): a destructor that spins costs seconds per grading, not per
 * test. These and every other limit: [limits] in grader/lab.ini. */

/* A position as the tests see it, and the handle of the student's own. */
typedef struct {
    grundy_position pub; /* first: a mirror is passed around as &pub */
    uint64_t handle;
} mirror;

/* Everything the proxy keeps from call to call, in one struct (as Redis
 * keeps its server's state), not in statics spread over the file: one
 * test process, one student process at a time. */
struct proxy_state {
    /* The student process of the current test. */
    student_process student;
    bool started, dead;
    size_t next_stack_limit; /* RLIMIT_STACK of the next student process, 0: none */
    int death_signal;        /* what killed the last student process, 0: nothing */
    uint32_t sequence;       /* of the last request sent */
    clockid_t student_clock; /* its CPU clock; (clockid_t)-1 when unknown */
    double cpu_budget;       /* CPU seconds since its start, 0: no budget */

    /* The mirrors of its positions: mirrors[handle - 1]. */
    mirror **mirrors;
    size_t mirror_capacity;

    /* Valgrind's XML report, kept until it is handed over. */
    char *valgrind_report;
    size_t valgrind_length;

    /* Replies are read through this buffer, so that one read takes a
     * whole reply (the student process writes each in one piece) rather
     * than one read for the header and one for the payload: a suite makes
     * tens of thousands of calls, and every system call counts. Emptied
     * whenever a student process starts; bytes left in it after a reply
     * can only be a student process writing out of turn, which the next
     * call notices. */
    unsigned char inbox[1 << 16];
    size_t inbox_start, inbox_end;

    /* The call in progress: its words for messages and its wall-clock
     * limit; its request (header and arguments, sent in one write), its
     * arguments and its reply, buffers reused from call to call. */
    char call_text[512];
    double call_seconds;
    wire_buffer request_bytes, arguments, reply;

    /* The wall-clock limit of a call as last worked out, and when. */
    double call_limit_seconds, call_limit_checked_at;

    /* The stubs the student process said it reached, asked for by
     * lab_stub_reached(0) and read out by lab_stub_reached(1, 2, ...). */
    char stubs_reached[8][64];
    size_t stubs_reached_count;

    bool shutdown_registered; /* atexit(proxy_shutdown) is done */
};

static struct proxy_state proxy;
/* ---- configuration ----------------------------------------------------- */

/* A positive number from the environment (seconds, whole or not; the CPU
 * limit, a whole number of seconds), or `fallback` when it is unset, not a
 * number or not above 0. */
static double env_positive_number(const char *name, double fallback)
{
    const char *text = getenv(name);
    double value = text != NULL ? strtod(text, NULL) : 0;
    return value > 0 ? value : fallback;
}

static student_policy env_policy(void)
{
    const char *text = getenv("GRADER_POLICY");
    if (text != NULL && strcmp(text, "valgrind") == 0)
        return POLICY_VALGRIND;
    if (text != NULL && strcmp(text, "coverage") == 0)
        return POLICY_COVERAGE;
    if (text != NULL && strcmp(text, "guard") == 0)
        return POLICY_GUARD;
    return POLICY_SERVE;
}

__attribute__((constructor)) static void not_dumpable(void)
{
    /* No other process of the sandbox's user may read this process's
     * memory, environment or descriptors through /proc. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static double monotonic_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool report_path(char *path, size_t size, const char *suffix)
{
    const char *report = getenv("GRADER_REPORT");
    return report != NULL && (size_t)snprintf(path, size, "%s.%s", report, suffix) < size;
}

void proxy_report_append(const char *suffix, const char *text)
{
    char path[4096];
    int fd = report_path(path, sizeof path, suffix)
                 ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    if (fd >= 0 && write(fd, text, strlen(text)) < 0)
        perror("proxy: writing to the runner's report");
    if (fd >= 0)
        close(fd);
}

/* The runner's time-outs so far: one byte each in $GRADER_REPORT.timeouts
 * (calls that did not return) and .lingered (student processes that did not
 * end when asked). */
static void count_timeout(const char *kind)
{
    proxy_report_append(kind, "t");
}

static bool timed_out_before(const char *kind, off_t times)
{
    char path[4096];
    struct stat info;
    return report_path(path, sizeof path, kind) && lstat(path, &info) == 0 && S_ISREG(info.st_mode) &&
           info.st_size >= times;
}

/* The limit of the next call. The file of time-outs is looked at once a
 * second, not on every call: tens of thousands of calls cross in a suite,
 * and a limit that shrinks a second late costs nothing. */
static double call_limit(void)
{
    double now = monotonic_now();
    if (proxy.call_limit_seconds > 0 && (proxy.call_limit_seconds <= GRADER_SHORT_CALL_SECONDS ||
                                         now - proxy.call_limit_checked_at < 1.0))
        return proxy.call_limit_seconds;
    proxy.call_limit_seconds = env_positive_number("GRADER_CALL_SECONDS", GRADER_CALL_SECONDS);
    proxy.call_limit_checked_at = now;
    if (timed_out_before("timeouts", (off_t)GRADER_TIMEOUTS_BEFORE_SHORT_LIMIT) &&
        proxy.call_limit_seconds > GRADER_SHORT_CALL_SECONDS)
        proxy.call_limit_seconds = GRADER_SHORT_CALL_SECONDS;
    return proxy.call_limit_seconds;
}

/* ---- text for messages ------------------------------------------------- */

/* "{3=1, 19=1}" from a mirror, whatever its state; one of 8 buffers. */
static const char *position_text(const grundy_position *p)
{
    static char ring[8][256];
    static unsigned next;
    char *text = ring[next++ % 8];
    if (p == NULL)
        return "NULL";
    size_t used = (size_t)snprintf(text, sizeof ring[0], "{");
    for (size_t i = 0; i < p->size && p->entries != NULL && used < sizeof ring[0] - 40; i++)
        used += (size_t)snprintf(text + used, sizeof ring[0] - used, "%s%d=%d", i ? ", " : "",
                                 p->entries[i].height, p->entries[i].count);
    if (p->entries != NULL && used >= sizeof ring[0] - 40)
        used += (size_t)snprintf(text + used, sizeof ring[0] - used, ", ...");
    snprintf(text + used, sizeof ring[0] - used, "}");
    return text;
}

__attribute__((format(printf, 1, 2))) static void describe_call(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(proxy.call_text, sizeof proxy.call_text, format, args);
    va_end(args);
}

/* What killed a student process, for its failure message. SIGILL: the grader
 * builds with make test's trapping undefined-behaviour checks
 * (config.UB_CFLAGS), with no runtime library in the sandbox to name a line. */
static const struct {
    int sig;
    const char *why;
} death_meanings[] = {
    {SIGSEGV, "an invalid memory access, such as a NULL, freed or out-of-bounds pointer"},
    {SIGBUS, "an invalid memory access"},
    {SIGABRT, "abort(), a failed assert, or the C library found the heap corrupted (a double free, "
              "a write past the end of a block)"},
    {SIGFPE, "an arithmetic error such as a division by zero"},
    {SIGILL, "undefined behaviour, such as a signed integer overflow (a hash summed in an int), a shift "
             "by too much, an index past an array or a division by zero; `make test` names the line"},
    /* These two, a limit's kills, are never rerun for their line
     * (grader/gradelib/crashline.py, LIMIT_KILLS). */
    {SIGKILL, "stopped at its memory or CPU limit"},
    {SIGXCPU, "stopped at its CPU limit"},
    {SIGSYS, "stopped by the grader's sandbox for a system call a submission may not make (opening "
             "files, starting processes, signals, networking)"},
};

static const char *death_words(int status)
{
    static char words[320];
    proxy.death_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (WIFEXITED(status)) {
        snprintf(words, sizeof words, "ended the student process with exit status %d instead of "
                 "returning (code under test must return, never exit)", WEXITSTATUS(status));
        return words;
    }
    int sig = WTERMSIG(status);
    const char *why = NULL;
    for (size_t i = 0; i < sizeof death_meanings / sizeof death_meanings[0]; i++)
        if (death_meanings[i].sig == sig)
            why = death_meanings[i].why;
    if (sig == SIGSYS && env_policy() == POLICY_GUARD)
        why = "stopped by the grader's sandbox for a system call a submission may not make (in the "
              "guarded run: making memory the guarded allocator protects touchable again, or catching "
              "SIGSEGV)";
    if (why == NULL)
        snprintf(words, sizeof words, "crashed the student process (%s)", strsignal(sig));
    else
        snprintf(words, sizeof words, "crashed the student process (SIG%s: %s)", sigabbrev_np(sig), why);
    return words;
}

__attribute__((format(printf, 2, 3))) _Noreturn static void fail(proxy_failure kind,
                                                                  const char *format, ...)
{
    char message[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    proxy_report_failure(kind, message);
}

/* ---- the student process ----------------------------------------------- */

static bool send_all(const void *data, size_t size, double deadline);

static void keep_valgrind_output(int timeout_ms)
{
    if (proxy.student.valgrind_xml < 0)
        return;
    struct pollfd p = {proxy.student.valgrind_xml, POLLIN, 0};
    while (poll(&p, 1, timeout_ms) > 0) {
        char chunk[65536];
        ssize_t n = read(proxy.student.valgrind_xml, chunk, sizeof chunk);
        if (n <= 0) {
            close(proxy.student.valgrind_xml);
            proxy.student.valgrind_xml = -1;
            return;
        }
        if (proxy.valgrind_length + (size_t)n <= (8u << 20)) {
            char *grown = realloc(proxy.valgrind_report, proxy.valgrind_length + (size_t)n);
            if (grown != NULL) {
                memcpy(grown + proxy.valgrind_length, chunk, (size_t)n);
                proxy.valgrind_report = grown;
                proxy.valgrind_length += (size_t)n;
            }
        }
    }
}

/* Hands valgrind's report to the grader on the side channel it passed in
 * ($GRADER_SIDE_FD): a pipe no student process holds, framed as
 * "valgrind-xml LENGTH\n" and the bytes. Never a file: under valgrind the
 * program may create files where this process could write them. The
 * runner's test processes share the pipe, so the grader runs them one at a
 * time. */
static void write_valgrind_report(void)
{
    const char *fd_text = getenv("GRADER_SIDE_FD");
    if (fd_text == NULL || proxy.valgrind_length == 0)
        return;
    int fd = atoi(fd_text);
    char header[64];
    int length = snprintf(header, sizeof header, "valgrind-xml %zu\n", proxy.valgrind_length);
    if (!wire_write_all(fd, header, (size_t)length) ||
        !wire_write_all(fd, proxy.valgrind_report, proxy.valgrind_length))
        perror("proxy: the valgrind report could not be handed over");
    proxy.valgrind_length = 0;
}

static void start(void)
{
    if (proxy.started)
        return;
    signal(SIGPIPE, SIG_IGN);
    const char *server = getenv("GRADER_SERVER");
    if (server == NULL)
        fail(PROXY_NOT_STARTED, "internal error: GRADER_SERVER is not set");
    student_spawn_options options = {
        .server = server,
        .policy = env_policy(),
        .cpu_seconds = env_positive_number("GRADER_CPU_SECONDS", GRADER_STUDENT_CPU_SECONDS),
        /* Lowered by the grader where the container's memory is small (pace.py). */
        /* none under valgrind, nor in the guarded run, whose every block
         * keeps its pages mapped (guard_alloc.c): the cgroup bounds both */
        .address_space = env_policy() == POLICY_VALGRIND || env_policy() == POLICY_GUARD
                             ? 0
                             : (size_t)env_positive_number("GRADER_ADDRESS_SPACE_MIB",
                                                           GRADER_STUDENT_ADDRESS_SPACE_MIB) << 20,
        .stack_bytes = proxy.next_stack_limit,
        .output_fd = STDERR_FILENO,
        .gcov_files = getenv("GRADER_GCOV_FILES"),
    };
    char error[512];
    if (!student_spawn(&proxy.student, &options, error, sizeof error))
        fail(PROXY_NOT_STARTED, "internal error: the student process did not start: %s", error);
    /* Requests are written with a deadline (send_all). */
    fcntl(proxy.student.requests, F_SETFL, fcntl(proxy.student.requests, F_GETFL) | O_NONBLOCK);
    if (clock_getcpuclockid(proxy.student.pid, &proxy.student_clock) != 0)
        proxy.student_clock = (clockid_t)-1;
    proxy.started = true;
    proxy.death_signal = 0;
    proxy.inbox_start = proxy.inbox_end = 0;
    if (!proxy.shutdown_registered)
        atexit(proxy_shutdown);
    proxy.shutdown_registered = true;
}

double proxy_student_cpu_seconds(void)
{
    struct timespec t;
    if (!proxy.started || proxy.student_clock == (clockid_t)-1 ||
        clock_gettime(proxy.student_clock, &t) != 0)
        return -1;
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

long long proxy_student_resident_bytes(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)proxy.student.pid);
    FILE *status = proxy.started && !proxy.dead ? fopen(path, "r") : NULL;
    if (status == NULL)
        return -1;
    /* VmRSS, not VmSize or VmData: those count what is mapped, and a static
     * array is mapped whole at exec whether or not it is ever used; VmRSS
     * counts the pages the process wrote or read, wherever they are (heap,
     * .bss, mmap). Plus VmSwap: madvise(MADV_PAGEOUT) may push pages out
     * to swap, where they are still the process's, just not resident. */
    long long rss = -1, swap = 0, kib;
    char line[256];
    while (fgets(line, sizeof line, status) != NULL) {
        if (sscanf(line, "VmRSS: %lld kB", &kib) == 1)
            rss = kib;
        else if (sscanf(line, "VmSwap: %lld kB", &kib) == 1)
            swap = kib;
    }
    fclose(status);
    return rss < 0 ? -1 : (rss + swap) * 1024;
}

void proxy_set_cpu_budget(double seconds)
{
    proxy.cpu_budget = seconds;
}

static void stop(int *status)
{
    kill(proxy.student.pid, SIGKILL);
    while (waitpid(proxy.student.pid, status, 0) < 0 && errno == EINTR)
        ;
    proxy.dead = true;
    student_gate_close(&proxy.student);
}

void proxy_shutdown(void)
{
    if (!proxy.started || proxy.dead)
        return;
    student_policy policy = env_policy();
    int status;
    if (policy == POLICY_SERVE || policy == POLICY_GUARD) {
        stop(&status);
        return;
    }
    wire_header quit = {++proxy.sequence, OP_QUIT, 0};
    (void)send_all(&quit, sizeof quit, monotonic_now() + 1.0);
    close(proxy.student.requests);
    proxy.student.requests = -1;
    double grace = timed_out_before("lingered", 1) ? GRADER_LINGER_SECONDS
                   : policy == POLICY_VALGRIND    ? GRADER_VALGRIND_QUIT_SECONDS
                                                  : GRADER_COVERAGE_QUIT_SECONDS;
    const char *pace = getenv("GRADER_TIME_SCALE"); /* the grading's pace (pace.py): a factor */
    grace *= pace != NULL && strtod(pace, NULL) > 1 ? strtod(pace, NULL) : 1;
    double deadline = monotonic_now() + grace;
    while (waitpid(proxy.student.pid, &status, WNOHANG) == 0) {
        if (monotonic_now() > deadline) {
            count_timeout("lingered");
            stop(&status);
            break;
        }
        student_gate_serve(&proxy.student);
        if (proxy.student.valgrind_xml >= 0) {
            keep_valgrind_output(10); /* waits on the report socket, never spins */
        } else {
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    proxy.dead = true;
    student_gate_close(&proxy.student);
    keep_valgrind_output(0);
    write_valgrind_report();
}

static void forget_every_mirror(void)
{
    for (size_t i = 0; i < proxy.mirror_capacity; i++) {
        if (proxy.mirrors[i] != NULL) {
            free(proxy.mirrors[i]->pub.entries);
            free(proxy.mirrors[i]);
            proxy.mirrors[i] = NULL;
        }
    }
}

void proxy_restart(size_t stack_bytes)
{
    if (proxy.started) {
        proxy_shutdown();
        if (proxy.student.requests >= 0)
            close(proxy.student.requests);
        if (proxy.student.replies >= 0)
            close(proxy.student.replies);
        proxy.student.requests = proxy.student.replies = -1;
    }
    forget_every_mirror();
    proxy.started = false;
    proxy.dead = false;
    proxy.next_stack_limit = stack_bytes;
}

int proxy_student_death_signal(void)
{
    return proxy.death_signal;
}

/* Reads `size` bytes of reply, watching the clock, the CPU budget and the
 * student process; on any failure reports it (does not return). */
static void receive(void *data, size_t size, double deadline)
{
    unsigned char *at = data;
    while (size > 0) {
        if (proxy.inbox_start < proxy.inbox_end) {
            size_t held = proxy.inbox_end - proxy.inbox_start;
            size_t n = held < size ? held : size;
            memcpy(at, proxy.inbox + proxy.inbox_start, n);
            proxy.inbox_start += n;
            at += n;
            size -= n;
            continue;
        }
        /* -1 descriptors are left out by poll */
        struct pollfd fds[3] = {{proxy.student.replies, POLLIN, 0},
                                {proxy.student.valgrind_xml, POLLIN, 0},
                                {proxy.student.gate, POLLIN, 0}};
        int ready = poll(fds, 3, proxy.cpu_budget > 0 ? 2 : 20);
        if (ready < 0 && errno != EINTR)
            fail(PROXY_INTERNAL_ERROR, "internal error: poll failed during %s", proxy.call_text);
        if (proxy.student.valgrind_xml >= 0 && fds[1].revents)
            keep_valgrind_output(0);
        if (proxy.student.gate >= 0 && (fds[2].revents & POLLIN))
            student_gate_serve(&proxy.student);
        else if (proxy.student.gate >= 0 && fds[2].revents)
            student_gate_close(&proxy.student); /* the process is gone: nobody left to ask */
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(proxy.student.replies, proxy.inbox, sizeof proxy.inbox);
            if (n > 0) {
                /* no continue: a reply that trickles in byte by byte (or
                 * announces megabytes) is still held to the clocks below */
                proxy.inbox_start = 0;
                proxy.inbox_end = (size_t)n;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else {
                int status;
                while (waitpid(proxy.student.pid, &status, 0) < 0 && errno == EINTR)
                    ;
                proxy.dead = true;
                if (proxy.student.valgrind_xml >= 0)
                    keep_valgrind_output(1000);
                write_valgrind_report();
                fail(PROXY_CRASHED, "%s %s", proxy.call_text, death_words(status));
            }
        }
        if (proxy.cpu_budget > 0 && proxy_student_cpu_seconds() > proxy.cpu_budget) {
            int status;
            stop(&status);
            fail(PROXY_OVER_BUDGET, "%s used up its CPU budget of %.3f s and was stopped",
                 proxy.call_text, proxy.cpu_budget);
        }
        if (monotonic_now() > deadline) {
            int status;
            stop(&status);
            count_timeout("timeouts");
            fail(PROXY_TIMED_OUT,
                 "%s did not return within %g s (an endless loop, or a very slow search); the "
                 "student process was stopped",
                 proxy.call_text, proxy.call_seconds);
        }
    }
}

/* Writes a whole request before `deadline`: a student process that stops
 * reading its requests fills the pipe, and a blocking write would wait
 * for it forever. False when the time ran out or the process is gone. */
static bool send_all(const void *data, size_t size, double deadline)
{
    const unsigned char *at = data;
    while (size > 0) {
        ssize_t n = write(proxy.student.requests, at, size);
        if (n > 0) {
            at += n;
            size -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            return false;
        double left = deadline - monotonic_now();
        if (left <= 0)
            return false;
        struct pollfd p = {proxy.student.requests, POLLOUT, 0};
        if (poll(&p, 1, left > 0.05 ? 50 : 1) < 0 && errno != EINTR)
            return false;
    }
    return true;
}

/* Sends one request and reads its reply into `answer`. */
static void call(uint32_t op, const wire_buffer *args, wire_buffer *answer)
{
    start();
    if (proxy.dead)
        fail(PROXY_CRASHED, "%s: the student process had already ended", proxy.call_text);
    wire_header request = {++proxy.sequence, op, (uint32_t)args->length};
    wire_buffer *message = &proxy.request_bytes; /* header and arguments: one write */
    wire_reset(message);
    wire_put(message, &request, sizeof request);
    wire_put(message, args->data, args->length);
    proxy.call_seconds = call_limit();
    double deadline = monotonic_now() + proxy.call_seconds;
    if (!send_all(message->data, message->length, deadline)) {
        int status;
        bool running = waitpid(proxy.student.pid, &status, WNOHANG) == 0;
        if (running) {
            stop(&status);
            count_timeout("timeouts");
            fail(PROXY_TIMED_OUT,
                 "%s: the student process stopped reading its requests for %.0f s and was stopped",
                 proxy.call_text, proxy.call_seconds);
        }
        proxy.dead = true;
        fail(PROXY_CRASHED, "%s %s", proxy.call_text, death_words(status));
    }
    wire_header header;
    receive(&header, sizeof header, deadline);
    if (header.sequence != request.sequence || header.op != 0 || header.length > WIRE_MAX_PAYLOAD)
        fail(PROXY_MALFORMED_REPLY,
             "%s: the student process answered out of turn (does the code write to file "
             "descriptor %d?)",
             proxy.call_text, WIRE_REPLY_FD);
    wire_reset(answer);
    if (header.length > 0) {
        unsigned char *payload = malloc(header.length);
        if (payload == NULL)
            fail(PROXY_INTERNAL_ERROR, "internal error: out of memory reading a reply");
        receive(payload, header.length, deadline);
        wire_put(answer, payload, header.length);
        free(payload);
    }
}

static void malformed_unless(const wire_buffer *answer)
{
    if (answer->bad || answer->read_at != answer->length)
        fail(PROXY_MALFORMED_REPLY,
             "%s: the student process's reply does not follow the protocol (does the code write "
             "to file descriptor %d?)",
             proxy.call_text, WIRE_REPLY_FD);
}

/* ---- mirrors ----------------------------------------------------------- */

static uint64_t handle_of(const grundy_position *p)
{
    if (p == NULL)
        return 0;
    for (size_t i = 0; i < proxy.mirror_capacity; i++)
        if (proxy.mirrors[i] != NULL && &proxy.mirrors[i]->pub == p)
            return proxy.mirrors[i]->handle;
    return 0; /* not a position the student process made: it receives NULL */
}

static mirror *mirror_slot(uint64_t handle)
{
    if (handle > proxy.mirror_capacity) {
        size_t capacity = proxy.mirror_capacity ? proxy.mirror_capacity : 64;
        while (capacity < handle)
            capacity *= 2;
        mirror **grown = realloc(proxy.mirrors, capacity * sizeof *grown);
        if (grown == NULL)
            fail(PROXY_INTERNAL_ERROR, "internal error: out of memory");
        memset(grown + proxy.mirror_capacity, 0, (capacity - proxy.mirror_capacity) * sizeof *grown);
        proxy.mirrors = grown;
        proxy.mirror_capacity = capacity;
    }
    if (proxy.mirrors[handle - 1] == NULL) {
        proxy.mirrors[handle - 1] = calloc(1, sizeof(mirror));
        if (proxy.mirrors[handle - 1] == NULL)
            fail(PROXY_INTERNAL_ERROR, "internal error: out of memory");
        proxy.mirrors[handle - 1]->handle = handle;
    }
    return proxy.mirrors[handle - 1];
}

/* Takes a position from a reply: NULL, or its mirror, brought up to date
 * (the same mirror for the same handle, so aliasing shows). */
static grundy_position *take_position(wire_buffer *from)
{
    uint64_t handle = wire_take_u64(from);
    uint64_t flags = wire_take_u64(from);
    if (from->bad || (flags & POSITION_NULL))
        return NULL;
    if (flags & (POSITION_FREED_MOVE | POSITION_NOT_LIVE))
        fail(PROXY_MALFORMED_REPLY, "%s returned a position that was already freed%s", proxy.call_text,
             (flags & POSITION_FREED_MOVE)
                 ? ": one of the positions of a move list, freed with the list by position_list_free. "
                   "The caller owns the result and frees it, so it must be a copy: return "
                   "grundy_copy(moves->items[i]), then free the list"
                 : " (or was never allocated with malloc): the caller owns the result and frees it, so "
                   "return a new position");
    uint64_t size = wire_take_u64(from), capacity = wire_take_u64(from);
    uint64_t sent = wire_take_u64(from);
    if (handle == 0 || handle > (1u << 24) || sent > WIRE_MAX_ENTRIES || from->bad) {
        from->bad = true;
        return NULL;
    }
    mirror *m = mirror_slot(handle);
    free(m->pub.entries);
    m->pub.entries = NULL;
    if (!(flags & POSITION_NO_ENTRIES)) {
        m->pub.entries = malloc((sent ? sent : 1) * sizeof(heap_count));
        if (m->pub.entries == NULL)
            fail(PROXY_INTERNAL_ERROR, "internal error: out of memory");
        for (uint64_t i = 0; i < sent; i++) {
            m->pub.entries[i].height = wire_take_i32(from);
            m->pub.entries[i].count = wire_take_i32(from);
        }
    }
    /* A size beyond what was sent would make a test read past the copy:
     * such a position is broken anyway, and the tests say so from what
     * was sent. */
    m->pub.size = (flags & POSITION_NO_ENTRIES) ? (size_t)size : (size_t)sent;
    m->pub.capacity = (size_t)capacity;
    return &m->pub;
}

static void forget(const grundy_position *p)
{
    uint64_t handle = handle_of(p);
    if (handle == 0)
        return;
    free(proxy.mirrors[handle - 1]->pub.entries);
    free(proxy.mirrors[handle - 1]);
    proxy.mirrors[handle - 1] = NULL;
}

/* ---- the API --------------------------------------------------------------- */

/* A position_list from a reply: its positions' mirrors, in a new list the
 * caller frees (position_list_free then frees each one across the pipe). */
static position_list *take_moves(wire_buffer *from)
{
    if (wire_take_u64(from) != 0)
        return NULL; /* the student's function returned NULL */
    (void)wire_take_u64(from); /* the size the student's list claimed */
    uint64_t sent = wire_take_u64(from);
    position_list *moves = position_list_new();
    for (uint64_t i = 0; i < sent && !from->bad && moves != NULL; i++)
        position_list_push(moves, take_position(from));
    return moves;
}

/* An int array from a reply, in memory of this process the caller frees;
 * NULL when the student's function returned NULL. */
__attribute__((unused))
static int *take_ints(wire_buffer *from, size_t *length)
{
    *length = 0;
    if (wire_take_u64(from) != 0)
        return NULL;
    uint64_t count = wire_take_u64(from);
    if (count > WIRE_MAX_PAYLOAD / sizeof(int32_t)) {
        from->bad = true;
        return NULL;
    }
    int *values = malloc((count ? count : 1) * sizeof *values);
    if (values == NULL)
        fail(PROXY_INTERNAL_ERROR, "internal error: out of memory");
    for (uint64_t i = 0; i < count; i++)
        values[i] = wire_take_i32(from);
    *length = (size_t)count;
    return values;
}

/* Every function of the API, generated from grader/lab.ini. */
#include "proxy_api.inc"

/* position_list_free for the trusted side (the runners are linked with
 * --wrap=position_list_free): the given version calls grundy_free once per
 * position, one crossing each, and freeing move lists is most of the
 * crossings a suite makes. This one frees the positions in one crossing,
 * in the list's order, as the given version does; a crash names the list. */
void __wrap_position_list_free(position_list *list)
{
    if (list == NULL)
        return;
    describe_call("grundy_free on each of the %zu position%s of a list (position_list_free: %s%s)",
                  list->size, list->size == 1 ? "" : "s",
                  list->size > 0 ? position_text(list->items[0]) : "{}", list->size > 1 ? ", ..." : "");
    wire_reset(&proxy.arguments);
    wire_put_u64(&proxy.arguments, list->size);
    for (size_t i = 0; i < list->size; i++)
        wire_put_u64(&proxy.arguments, handle_of(list->items[i]));
    call(OP_FREE_POSITIONS, &proxy.arguments, &proxy.reply);
    malformed_unless(&proxy.reply);
    for (size_t i = 0; i < list->size; i++)
        forget(list->items[i]);
    free(list->items);
    free(list);
}

/* Calls of the boundary's own operations: no argument, a number back. */
static uint64_t ask_number(uint32_t op, const char *name)
{
    describe_call("%s()", name);
    wire_reset(&proxy.arguments);
    call(op, &proxy.arguments, &proxy.reply);
    uint64_t answer = wire_take_u64(&proxy.reply);
    malformed_unless(&proxy.reply);
    return answer;
}

/* ---- the counts the suites read ---------------------------------------- */

size_t alloc_live_blocks(void)
{
    proxy_note_figure("live_allocations");
    return (size_t)ask_number(OP_ALLOC_LIVE, "counting the live allocations");
}

/* Read by Task 1's leak test, which then counts the move lists alone and
 * calls no Task 2 function; a figure like the count above (it earns
 * nothing: the student process could forge it). */
size_t alloc_live_blocks_from_moves(void)
{
    proxy_note_figure("live_allocations");
    return (size_t)ask_number(OP_ALLOC_LIVE_FROM_MOVES, "counting the live blocks grundy_get_moves allocated");
}

size_t alloc_blocks_of_a_returned_array(void)
{
    return 0; /* put_ints in the student process frees what it sends */
}

uint64_t expansions(void)
{
    proxy_note_figure("expansions");
    return ask_number(OP_EXPANSIONS, "counting the calls of grundy_get_moves");
}

void expansions_reset(void)
{
    describe_call("resetting the count of grundy_get_moves calls");
    wire_reset(&proxy.arguments);
    call(OP_EXPANSIONS_RESET, &proxy.arguments, &proxy.reply);
    malformed_unless(&proxy.reply);
}

/* ---- the memo's record (memo_record.h) ------------------------------------
 * A figure the student process reports, so it words the message of a test
 * that has failed already and earns nothing (pipeline.score).
 * Read without trust: the count is bounded, every event's fields are
 * clamped to what an honest record holds. */

void memo_record_reset(void)
{
    describe_call("resetting the memo's record");
    wire_reset(&proxy.arguments);
    call(OP_MEMO_RECORD_RESET, &proxy.arguments, &proxy.reply);
    malformed_unless(&proxy.reply);
}

size_t memo_record_read(memo_event *events, size_t max)
{
    proxy_note_figure("memo_record");
    describe_call("reading the memo's record");
    wire_reset(&proxy.arguments);
    call(OP_MEMO_RECORD_READ, &proxy.arguments, &proxy.reply);
    uint64_t n = wire_take_u64(&proxy.reply);
    if (n > max || n > MEMO_RECORD_MAX)
        n = 0;
    for (size_t i = 0; i < n; i++) {
        wire_take(&proxy.reply, &events[i], sizeof events[i]);
        if (events[i].key_size > MEMO_KEY_MAX) {
            events[i].key_size = 0;
            events[i].key_ok = 0;
        }
        for (size_t k = 0; k < events[i].key_size; k++)
            if (events[i].key[k][0] < 3 || events[i].key[k][1] < 1 || events[i].key[k][1] > 64)
                events[i].key_ok = 0;
    }
    malformed_unless(&proxy.reply);
    return (size_t)n;
}

void memo_record_set_forgetful(bool forgetful)
{
    describe_call("making the memo %s", forgetful ? "forgetful" : "remember again");
    wire_reset(&proxy.arguments);
    wire_put_u64(&proxy.arguments, forgetful);
    call(OP_MEMO_FORGETFUL, &proxy.arguments, &proxy.reply);
    malformed_unless(&proxy.reply);
}

/* Reads exactly `size` bytes of reply before `deadline`, with no failure
 * report: for questions asked while a failure is being written. */
static bool read_before(void *data, size_t size, double deadline)
{
    unsigned char *at = data;
    while (size > 0) {
        double left = deadline - monotonic_now();
        struct pollfd p = {proxy.student.replies, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) != 1)
            return false;
        ssize_t n = read(proxy.student.replies, at, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        at += n;
        size -= (size_t)n;
    }
    return true;
}

/* The stubs the student process reached: asked for when a failure message
 * is written, so it must never fail itself; NULL when the student process
 * is gone or says nothing sensible. */
const char *lab_stub_reached(size_t i)
{
    char(*names)[64] = proxy.stubs_reached;
    size_t *count = &proxy.stubs_reached_count;
    if (i == 0) {
        *count = 0;
        if (!proxy.started || proxy.dead || proxy.inbox_start < proxy.inbox_end)
            return NULL; /* gone, or out of step: nothing sensible to ask */
        wire_buffer in = {0};
        wire_header request = {++proxy.sequence, OP_STUBS_REACHED, 0};
        double deadline = monotonic_now() + 2.0;
        bool sent = send_all(&request, sizeof request, deadline);
        wire_header header;
        if (sent && read_before(&header, sizeof header, deadline) &&
            header.sequence == request.sequence && header.length <= 4096) {
            unsigned char payload[4096];
            if (read_before(payload, header.length, deadline)) {
                wire_put(&in, payload, header.length);
                for (uint64_t length; *count < 8 && (length = wire_take_u64(&in)) > 0 &&
                                      length < sizeof names[0] && !in.bad;
                     (*count)++) {
                    wire_take(&in, names[*count], length);
                    names[*count][length] = '\0';
                }
            }
        }
        wire_release(&in);
    }
    return i < *count ? names[i] : NULL;
}

void lab_not_implemented(const char *function)
{
    (void)function; /* stubs run in the student process, never here */
}
