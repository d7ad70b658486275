/*
 * proxy.c - grundy.h answered by a student process (see proxy.h).
 *
 * Every failure of the student process ends the current test through
 * proxy_report_failure() with a sentence that names the call and its
 * position: "grundy_is_p_position({3=1, 19=1}) did not return within
 * 8 s" (the limits: [limits] in tests/staff/lab.ini, through the generated
 * grader_limits.h). The wall-clock limit of a call shrinks once calls of this
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
 * test. These and every other limit: [limits] in tests/staff/lab.ini. */

/* A position as the tests see it, and the handle of the student's own. */
typedef struct {
    grundy_position pub; /* first: a mirror is passed around as &pub */
    uint64_t handle;
} mirror;

static student_process student;
static bool started, dead;
static size_t stack_limit;   /* RLIMIT_STACK of the next student process, 0: none */
static int death_signal;     /* what killed the last student process, 0: nothing */
static uint32_t sequence;
static clockid_t student_clock;
static double cpu_budget;
static mirror **mirrors; /* mirrors[handle - 1] */
static size_t mirror_capacity;
static char *valgrind_report;
static size_t valgrind_length;

/* Replies are read through this buffer, so that one read takes a whole
 * reply (the student process writes each in one piece) rather than one
 * read for the header and one for the payload: a suite makes tens of
 * thousands of calls, and every system call counts. Emptied whenever a
 * student process starts; bytes left in it after a reply can only be a
 * student process writing out of turn, which the next call notices. */
static unsigned char inbox[1 << 16];
static size_t inbox_start, inbox_end;

/* ---- configuration ----------------------------------------------------- */

static double env_seconds(const char *name, double fallback)
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

/* The runner's time-outs so far, one byte each in $GRADER_REPORT.timeouts
 * (calls that did not return) and $GRADER_REPORT.lingered (student
 * processes that did not end when asked). A file, because Criterion starts
 * each test process afresh (nothing in memory is shared between them);
 * only the runner's test processes write it, and student processes cannot
 * open files. */
static void timeout_path(char *path, size_t size, const char *kind)
{
    const char *report = getenv("GRADER_REPORT");
    snprintf(path, size, "%s.%s", report != NULL ? report : "", kind);
}

static void count_timeout(const char *kind)
{
    char path[4096];
    timeout_path(path, sizeof path, kind);
    if (path[0] == '.')
        return; /* no report: not under the grader */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 && write(fd, "t", 1) < 0)
        perror("proxy: counting a time-out");
    if (fd >= 0)
        close(fd);
}

static bool timed_out_before(const char *kind, off_t times)
{
    char path[4096];
    struct stat info;
    timeout_path(path, sizeof path, kind);
    return path[0] != '.' && lstat(path, &info) == 0 && S_ISREG(info.st_mode) && info.st_size >= times;
}

/* The limit of the next call. The file of time-outs is looked at once a
 * second, not on every call: tens of thousands of calls cross in a suite,
 * and a limit that shrinks a second late costs nothing. */
static double call_limit(void)
{
    static double limit, checked_at;
    double now = monotonic_now();
    if (limit > 0 && (limit <= GRADER_SHORT_CALL_SECONDS || now - checked_at < 1.0))
        return limit;
    limit = env_seconds("GRADER_CALL_SECONDS", GRADER_CALL_SECONDS);
    checked_at = now;
    if (timed_out_before("timeouts", (off_t)GRADER_TIMEOUTS_BEFORE_SHORT_LIMIT) &&
        limit > GRADER_SHORT_CALL_SECONDS)
        limit = GRADER_SHORT_CALL_SECONDS;
    return limit;
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

static char call_text[512]; /* the call in progress, for messages */
static double call_seconds; /* its wall-clock limit */

__attribute__((format(printf, 1, 2))) static void describe_call(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(call_text, sizeof call_text, format, args);
    va_end(args);
}

static const char *death_words(int status)
{
    death_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    static char words[256];
    if (WIFEXITED(status)) {
        snprintf(words, sizeof words,
                 "ended the student process with exit status %d instead of returning (code under "
                 "test must return, never exit)",
                 WEXITSTATUS(status));
        return words;
    }
    int sig = WTERMSIG(status);
    const char *why;
    switch (sig) {
    case SIGSEGV:
        why = "SIGSEGV: an invalid memory access, such as a NULL, freed or out-of-bounds pointer";
        break;
    case SIGBUS:
        why = "SIGBUS: an invalid memory access";
        break;
    case SIGABRT:
        why = "SIGABRT: abort(), a failed assert, or the C library found the heap corrupted "
              "(a double free, a write past the end of a block)";
        break;
    case SIGFPE:
        why = "SIGFPE: an arithmetic error such as a division by zero";
        break;
    case SIGSYS:
        why = "SIGSYS: stopped by the grader's sandbox for a system call a submission may not "
              "make (opening files, starting processes, signals, networking)";
        break;
    case SIGKILL:
        why = "SIGKILL: stopped at its memory or CPU limit";
        break;
    case SIGXCPU:
        why = "SIGXCPU: stopped at its CPU limit";
        break;
    default:
        why = strsignal(sig);
        break;
    }
    snprintf(words, sizeof words, "crashed the student process (%s)", why);
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
    if (student.valgrind_xml < 0)
        return;
    struct pollfd p = {student.valgrind_xml, POLLIN, 0};
    while (poll(&p, 1, timeout_ms) > 0) {
        char chunk[65536];
        ssize_t n = read(student.valgrind_xml, chunk, sizeof chunk);
        if (n <= 0) {
            close(student.valgrind_xml);
            student.valgrind_xml = -1;
            return;
        }
        if (valgrind_length + (size_t)n <= (8u << 20)) {
            char *grown = realloc(valgrind_report, valgrind_length + (size_t)n);
            if (grown != NULL) {
                memcpy(grown + valgrind_length, chunk, (size_t)n);
                valgrind_report = grown;
                valgrind_length += (size_t)n;
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
    if (fd_text == NULL || valgrind_length == 0)
        return;
    int fd = atoi(fd_text);
    char header[64];
    int length = snprintf(header, sizeof header, "valgrind-xml %zu\n", valgrind_length);
    if (!wire_write_all(fd, header, (size_t)length) ||
        !wire_write_all(fd, valgrind_report, valgrind_length))
        perror("proxy: the valgrind report could not be handed over");
    valgrind_length = 0;
}

static void start(void)
{
    if (started)
        return;
    signal(SIGPIPE, SIG_IGN);
    const char *server = getenv("GRADER_SERVER");
    if (server == NULL)
        fail(PROXY_NOT_STARTED, "internal error: GRADER_SERVER is not set");
    student_spawn_options options = {
        .server = server,
        .policy = env_policy(),
        .cpu_seconds = env_seconds("GRADER_CPU_SECONDS", GRADER_STUDENT_CPU_SECONDS),
        /* Lowered by the grader where the container's memory is small (pace.py). */
        .address_space = env_policy() == POLICY_VALGRIND
                             ? 0
                             : (size_t)env_seconds("GRADER_ADDRESS_SPACE_MIB",
                                                   GRADER_STUDENT_ADDRESS_SPACE_MIB) << 20,
        .stack_bytes = stack_limit,
        .output_fd = STDERR_FILENO,
        .gcov_files = getenv("GRADER_GCOV_FILES"),
    };
    char error[512];
    if (!student_spawn(&student, &options, error, sizeof error))
        fail(PROXY_NOT_STARTED, "internal error: the student process did not start: %s", error);
    /* Requests are written with a deadline (send_all). */
    fcntl(student.requests, F_SETFL, fcntl(student.requests, F_GETFL) | O_NONBLOCK);
    if (clock_getcpuclockid(student.pid, &student_clock) != 0)
        student_clock = (clockid_t)-1;
    started = true;
    death_signal = 0;
    inbox_start = inbox_end = 0;
    static bool shutdown_registered;
    if (!shutdown_registered)
        atexit(proxy_shutdown);
    shutdown_registered = true;
}

double proxy_student_cpu_seconds(void)
{
    struct timespec t;
    if (!started || student_clock == (clockid_t)-1 || clock_gettime(student_clock, &t) != 0)
        return -1;
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

long long proxy_student_resident_bytes(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)student.pid);
    FILE *status = started && !dead ? fopen(path, "r") : NULL;
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
    cpu_budget = seconds;
}

static void stop(int *status)
{
    kill(student.pid, SIGKILL);
    while (waitpid(student.pid, status, 0) < 0 && errno == EINTR)
        ;
    dead = true;
    student_gate_close(&student);
}

void proxy_shutdown(void)
{
    if (!started || dead)
        return;
    student_policy policy = env_policy();
    int status;
    if (policy == POLICY_SERVE) {
        stop(&status);
        return;
    }
    wire_header quit = {++sequence, OP_QUIT, 0};
    (void)send_all(&quit, sizeof quit, monotonic_now() + 1.0);
    close(student.requests);
    student.requests = -1;
    double grace = timed_out_before("lingered", 1) ? GRADER_LINGER_SECONDS
                   : policy == POLICY_VALGRIND    ? GRADER_VALGRIND_QUIT_SECONDS
                                                  : GRADER_COVERAGE_QUIT_SECONDS;
    const char *pace = getenv("GRADER_TIME_SCALE"); /* the grading's pace (pace.py): a factor */
    grace *= pace != NULL && strtod(pace, NULL) > 1 ? strtod(pace, NULL) : 1;
    double deadline = monotonic_now() + grace;
    while (waitpid(student.pid, &status, WNOHANG) == 0) {
        if (monotonic_now() > deadline) {
            count_timeout("lingered");
            stop(&status);
            break;
        }
        student_gate_serve(&student);
        if (student.valgrind_xml >= 0) {
            keep_valgrind_output(10); /* waits on the report socket, never spins */
        } else {
            struct timespec pause = {0, 5 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    dead = true;
    student_gate_close(&student);
    keep_valgrind_output(0);
    write_valgrind_report();
}

static void forget_every_mirror(void)
{
    for (size_t i = 0; i < mirror_capacity; i++) {
        if (mirrors[i] != NULL) {
            free(mirrors[i]->pub.entries);
            free(mirrors[i]);
            mirrors[i] = NULL;
        }
    }
}

void proxy_restart(size_t stack_bytes)
{
    if (started) {
        proxy_shutdown();
        if (student.requests >= 0)
            close(student.requests);
        if (student.replies >= 0)
            close(student.replies);
        student.requests = student.replies = -1;
    }
    forget_every_mirror();
    started = false;
    dead = false;
    stack_limit = stack_bytes;
}

int proxy_student_death_signal(void)
{
    return death_signal;
}

/* Reads `size` bytes of reply, watching the clock, the CPU budget and the
 * student process; on any failure reports it (does not return). */
static void receive(void *data, size_t size, double deadline)
{
    unsigned char *at = data;
    while (size > 0) {
        if (inbox_start < inbox_end) {
            size_t n = inbox_end - inbox_start < size ? inbox_end - inbox_start : size;
            memcpy(at, inbox + inbox_start, n);
            inbox_start += n;
            at += n;
            size -= n;
            continue;
        }
        /* -1 descriptors are left out by poll */
        struct pollfd fds[3] = {{student.replies, POLLIN, 0}, {student.valgrind_xml, POLLIN, 0},
                                {student.gate, POLLIN, 0}};
        int ready = poll(fds, 3, cpu_budget > 0 ? 2 : 20);
        if (ready < 0 && errno != EINTR)
            fail(PROXY_MALFORMED, "internal error: poll failed during %s", call_text);
        if (student.valgrind_xml >= 0 && fds[1].revents)
            keep_valgrind_output(0);
        if (student.gate >= 0 && (fds[2].revents & POLLIN))
            student_gate_serve(&student);
        else if (student.gate >= 0 && fds[2].revents)
            student_gate_close(&student); /* the process is gone: nobody left to ask */
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(student.replies, inbox, sizeof inbox);
            if (n > 0) {
                /* no continue: a reply that trickles in byte by byte (or
                 * announces megabytes) is still held to the clocks below */
                inbox_start = 0;
                inbox_end = (size_t)n;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else {
                int status;
                while (waitpid(student.pid, &status, 0) < 0 && errno == EINTR)
                    ;
                dead = true;
                if (student.valgrind_xml >= 0)
                    keep_valgrind_output(1000);
                write_valgrind_report();
                fail(PROXY_CRASHED, "%s %s", call_text, death_words(status));
            }
        }
        if (cpu_budget > 0 && proxy_student_cpu_seconds() > cpu_budget) {
            int status;
            stop(&status);
            fail(PROXY_OVER_BUDGET, "%s used up its CPU budget of %.3f s and was stopped",
                 call_text, cpu_budget);
        }
        if (monotonic_now() > deadline) {
            int status;
            stop(&status);
            count_timeout("timeouts");
            fail(PROXY_TIMED_OUT,
                 "%s did not return within %g s (an endless loop, or a very slow search); the "
                 "student process was stopped",
                 call_text, call_seconds);
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
        ssize_t n = write(student.requests, at, size);
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
        struct pollfd p = {student.requests, POLLOUT, 0};
        if (poll(&p, 1, left > 0.05 ? 50 : 1) < 0 && errno != EINTR)
            return false;
    }
    return true;
}

/* Sends one request and reads its reply into `reply`. */
static void call(uint32_t op, const wire_buffer *arguments, wire_buffer *reply)
{
    start();
    if (dead)
        fail(PROXY_CRASHED, "%s: the student process had already ended", call_text);
    wire_header request = {++sequence, op, (uint32_t)arguments->length};
    static wire_buffer message; /* header and arguments: one write */
    wire_reset(&message);
    wire_put(&message, &request, sizeof request);
    wire_put(&message, arguments->data, arguments->length);
    call_seconds = call_limit();
    double deadline = monotonic_now() + call_seconds;
    if (!send_all(message.data, message.length, deadline)) {
        int status;
        bool running = waitpid(student.pid, &status, WNOHANG) == 0;
        if (running) {
            stop(&status);
            count_timeout("timeouts");
            fail(PROXY_TIMED_OUT,
                 "%s: the student process stopped reading its requests for %.0f s and was stopped",
                 call_text, call_seconds);
        }
        dead = true;
        fail(PROXY_CRASHED, "%s %s", call_text, death_words(status));
    }
    wire_header header;
    receive(&header, sizeof header, deadline);
    if (header.sequence != request.sequence || header.op != 0 || header.length > WIRE_MAX_PAYLOAD)
        fail(PROXY_MALFORMED,
             "%s: the student process answered out of turn (does the code write to file "
             "descriptor %d?)",
             call_text, WIRE_REPLY_FD);
    wire_reset(reply);
    if (header.length > 0) {
        unsigned char *payload = malloc(header.length);
        if (payload == NULL)
            fail(PROXY_MALFORMED, "internal error: out of memory reading a reply");
        receive(payload, header.length, deadline);
        wire_put(reply, payload, header.length);
        free(payload);
    }
}

static void malformed_unless(const wire_buffer *reply)
{
    if (reply->bad || reply->read_at != reply->length)
        fail(PROXY_MALFORMED,
             "%s: the student process's reply does not follow the protocol (does the code write "
             "to file descriptor %d?)",
             call_text, WIRE_REPLY_FD);
}

/* ---- mirrors ----------------------------------------------------------- */

static uint64_t handle_of(const grundy_position *p)
{
    if (p == NULL)
        return 0;
    for (size_t i = 0; i < mirror_capacity; i++)
        if (mirrors[i] != NULL && &mirrors[i]->pub == p)
            return mirrors[i]->handle;
    return 0; /* not a position the student process made: it receives NULL */
}

static mirror *mirror_slot(uint64_t handle)
{
    if (handle > mirror_capacity) {
        size_t capacity = mirror_capacity ? mirror_capacity : 64;
        while (capacity < handle)
            capacity *= 2;
        mirror **grown = realloc(mirrors, capacity * sizeof *grown);
        if (grown == NULL)
            fail(PROXY_MALFORMED, "internal error: out of memory");
        memset(grown + mirror_capacity, 0, (capacity - mirror_capacity) * sizeof *grown);
        mirrors = grown;
        mirror_capacity = capacity;
    }
    if (mirrors[handle - 1] == NULL) {
        mirrors[handle - 1] = calloc(1, sizeof(mirror));
        if (mirrors[handle - 1] == NULL)
            fail(PROXY_MALFORMED, "internal error: out of memory");
        mirrors[handle - 1]->handle = handle;
    }
    return mirrors[handle - 1];
}

/* Takes a position from a reply: NULL, or its mirror, brought up to date
 * (the same mirror for the same handle, so aliasing shows). */
static grundy_position *take_position(wire_buffer *reply)
{
    uint64_t handle = wire_take_u64(reply);
    uint64_t flags = wire_take_u64(reply);
    if (reply->bad || (flags & POSITION_NULL))
        return NULL;
    uint64_t size = wire_take_u64(reply), capacity = wire_take_u64(reply);
    uint64_t sent = wire_take_u64(reply);
    if (handle == 0 || handle > (1u << 24) || sent > WIRE_MAX_ENTRIES || reply->bad) {
        reply->bad = true;
        return NULL;
    }
    mirror *m = mirror_slot(handle);
    free(m->pub.entries);
    m->pub.entries = NULL;
    if (!(flags & POSITION_NO_ENTRIES)) {
        m->pub.entries = malloc((sent ? sent : 1) * sizeof(heap_count));
        if (m->pub.entries == NULL)
            fail(PROXY_MALFORMED, "internal error: out of memory");
        for (uint64_t i = 0; i < sent; i++) {
            m->pub.entries[i].height = wire_take_i32(reply);
            m->pub.entries[i].count = wire_take_i32(reply);
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
    free(mirrors[handle - 1]->pub.entries);
    free(mirrors[handle - 1]);
    mirrors[handle - 1] = NULL;
}

/* ---- the API --------------------------------------------------------------- */

/* A call's arguments and its reply, reused from call to call. */
static wire_buffer arguments, reply;

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
        fail(PROXY_MALFORMED, "internal error: out of memory");
    for (uint64_t i = 0; i < count; i++)
        values[i] = wire_take_i32(from);
    *length = (size_t)count;
    return values;
}

/* Every function of the API, generated from tests/staff/lab.ini. */
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
    wire_reset(&arguments);
    wire_put_u64(&arguments, list->size);
    for (size_t i = 0; i < list->size; i++)
        wire_put_u64(&arguments, handle_of(list->items[i]));
    call(OP_FREE_POSITIONS, &arguments, &reply);
    malformed_unless(&reply);
    for (size_t i = 0; i < list->size; i++)
        forget(list->items[i]);
    free(list->items);
    free(list);
}

/* Calls of the boundary's own operations: no argument, a number back. */
static uint64_t ask_number(uint32_t op, const char *name)
{
    describe_call("%s()", name);
    wire_reset(&arguments);
    call(op, &arguments, &reply);
    uint64_t answer = wire_take_u64(&reply);
    malformed_unless(&reply);
    return answer;
}

/* ---- the counts the suites read ---------------------------------------- */

size_t alloc_live_blocks(void)
{
    proxy_note_figure("live_allocations");
    return (size_t)ask_number(OP_ALLOC_LIVE, "counting the live allocations");
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
    wire_reset(&arguments);
    call(OP_EXPANSIONS_RESET, &arguments, &reply);
    malformed_unless(&reply);
}

/* Reads exactly `size` bytes of reply before `deadline`, with no failure
 * report: for questions asked while a failure is being written. */
static bool read_before(void *data, size_t size, double deadline)
{
    unsigned char *at = data;
    while (size > 0) {
        double left = deadline - monotonic_now();
        struct pollfd p = {student.replies, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) != 1)
            return false;
        ssize_t n = read(student.replies, at, size);
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
    static char names[8][64];
    static size_t count;
    if (i == 0) {
        count = 0;
        if (!started || dead || inbox_start < inbox_end)
            return NULL; /* gone, or out of step: nothing sensible to ask */
        wire_buffer in = {0};
        wire_header request = {++sequence, OP_STUBS_REACHED, 0};
        double deadline = monotonic_now() + 2.0;
        bool sent = send_all(&request, sizeof request, deadline);
        wire_header header;
        if (sent && read_before(&header, sizeof header, deadline) &&
            header.sequence == request.sequence && header.length <= 4096) {
            unsigned char payload[4096];
            if (read_before(payload, header.length, deadline)) {
                wire_put(&in, payload, header.length);
                for (uint64_t length; count < 8 && (length = wire_take_u64(&in)) > 0 &&
                                      length < sizeof names[0] && !in.bad;
                     count++) {
                    wire_take(&in, names[count], length);
                    names[count][length] = '\0';
                }
            }
        }
        wire_release(&in);
    }
    return i < count ? names[i] : NULL;
}

void lab_not_implemented(const char *function)
{
    (void)function; /* stubs run in the student process, never here */
}
