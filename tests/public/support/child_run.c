/*
 * child_run.c - the child-process runner behind child_run.h.
 *
 * The child sends its result as a size followed by that many bytes, and
 * exits 0 right after: a complete message and a clean exit together are
 * the only way to count as finished, so a child that crashes halfway
 * through writing cannot pass for one that answered.
 */
#define _GNU_SOURCE /* wait4 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child_run.h"

typedef struct {
    child_job job;
    const void *input;
    size_t size;
    unsigned char result[CHILD_RESULT_MAX];
} job_call;

static void *call_job(void *argument)
{
    job_call *call = argument;
    call->size = call->job(call->input, call->result);
    if (call->size > CHILD_RESULT_MAX)
        call->size = CHILD_RESULT_MAX;
    return NULL;
}

static void write_fully(int fd, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    while (size > 0) {
        ssize_t written = write(fd, bytes, size);
        if (written <= 0)
            _exit(4);
        bytes += written;
        size -= (size_t)written;
    }
}

_Noreturn static void be_the_child(int out, child_job job, const void *input, size_t stack_bytes,
                                   double budget)
{
    if (budget > 0) {
        /* SIGPROF's default action ends the process: no handler to dodge. */
        struct itimerval limit = {0};
        limit.it_value.tv_sec = (time_t)budget;
        limit.it_value.tv_usec = (suseconds_t)((budget - (double)(time_t)budget) * 1e6) + 1;
        setitimer(ITIMER_PROF, &limit, NULL);
    }
    static job_call call; /* static: not on the stack the job is judged by */
    call.job = job;
    call.input = input;
    if (stack_bytes == 0) {
        call_job(&call);
    } else {
        pthread_attr_t attributes;
        pthread_t thread;
        if (pthread_attr_init(&attributes) != 0 ||
            pthread_attr_setstacksize(&attributes, child_stack_size(stack_bytes)) != 0 ||
            pthread_create(&thread, &attributes, call_job, &call) != 0)
            _exit(3);
        pthread_join(thread, NULL);
    }
    write_fully(out, &call.size, sizeof call.size);
    write_fully(out, call.result, call.size);
    _exit(0);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Reads the child's message until it closes the pipe or the deadline
 * passes; returns the bytes read, or -1 at the deadline. */
static long read_message(int in, unsigned char *message, size_t capacity, double deadline)
{
    size_t got = 0;
    for (;;) {
        double left = deadline - seconds_now();
        if (left <= 0)
            return -1;
        struct pollfd ready = {.fd = in, .events = POLLIN};
        int polled = poll(&ready, 1, (int)(left * 1000) + 1);
        if (polled == 0)
            continue; /* the loop checks the deadline */
        if (polled < 0)
            return -1;
        unsigned char scrap[512];
        unsigned char *into = got < capacity ? message + got : scrap;
        size_t room = got < capacity ? capacity - got : sizeof scrap;
        ssize_t n = read(in, into, room);
        if (n <= 0)
            return (long)got;
        got += (size_t)n;
    }
}

child_result child_run(child_job job, const void *input, size_t stack_bytes, double cpu_budget)
{
    child_result r = {.outcome = CHILD_CRASHED};
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0)
        return r;
    pid_t child = fork();
    if (child < 0) {
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        return r;
    }
    if (child == 0) {
        close(pipe_ends[0]);
        be_the_child(pipe_ends[1], job, input, stack_bytes, cpu_budget);
    }
    close(pipe_ends[1]);

    /* The wall-clock limit is for a child that sleeps or blocks: generous,
     * so that a loaded machine never trips it before the CPU budget. */
    double deadline = seconds_now() + (cpu_budget > 0 ? 4 * cpu_budget + 10 : 60);
    unsigned char message[sizeof(size_t) + CHILD_RESULT_MAX];
    long got = read_message(pipe_ends[0], message, sizeof message, deadline);
    close(pipe_ends[0]);
    if (got < 0)
        kill(child, SIGKILL);
    int status = 0;
    struct rusage usage = {0};
    while (wait4(child, &status, 0, &usage) < 0 && errno == EINTR)
        continue;
    r.cpu_seconds = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 +
                    (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;

    size_t size = 0;
    if (got >= (long)sizeof size)
        memcpy(&size, message, sizeof size);
    bool complete = got >= (long)sizeof size && size <= CHILD_RESULT_MAX &&
                    (size_t)got == sizeof size + size;
    if (got < 0 || (WIFSIGNALED(status) && WTERMSIG(status) == SIGPROF)) {
        r.outcome = CHILD_OVER_BUDGET;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && complete) {
        r.outcome = CHILD_FINISHED;
        r.result_size = size;
        memcpy(r.result, message + sizeof size, size);
    } else {
        r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    }
    return r;
}
