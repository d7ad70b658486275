/*
 * hostile_engine.h - the misbehaviour of the fuzzer's hostile student
 * (tests/staff/fuzz/README.md), shared by its grundy_position.c and
 * grundy_solver.c.
 *
 * Static functions in a header, on purpose: the grader localizes every
 * symbol of a submission's object but the API's, so the two files cannot
 * share code at link time; each includes its own copy. make-submission
 * pastes this file into both when it writes a submission for grader/grade
 * (which copies only the two .c files).
 *
 * Every API function of the hostile files starts with hostile_turn(): the
 * engine draws what this call does from (seed, process epoch, call index)
 * with a small generator, so a seed replays the same misbehaviour. It
 * either does something at once (garbage, forged or partial replies on the
 * reply pipe, floods, spinning, signals, exits, forbidden system calls,
 * reading the request pipe) and then usually answers honestly, or it
 * returns an instruction to the caller to spoil its answer (a wrong value,
 * a huge position, entries NULL or freed).
 *
 * The seed: FUZZ_SEED when make-submission compiled one in (the grader's
 * layer: its suites say nothing about seeds); otherwise the fuzz driver
 * announces it as the first call of every student process,
 * grundy_new(-(A + 16)) with A = (seed mod 65535) << 15 | (sequence number
 * of that request mod 32768), the process cannot read argv or its
 * environment. The sequence number lets the engine forge a reply the
 * proxy would accept (a duplicate reply), counting calls from there.
 */
#ifndef HOSTILE_ENGINE_H
#define HOSTILE_ENGINE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "grundy.h"

#ifndef FUZZ_SEED
#define FUZZ_SEED 0
#endif
/* FUZZ_HONEST (make-submission --honest) turns every misbehaviour off: the
 * honest twin whose grade bounds the hostile submission's. */

/* The wire's facts, restated (the student side has no wire.h): fd 3
 * carries requests, fd 4 replies; a reply header is three uint32 fields
 * (sequence, 0, payload length); WIRE_MAX_PAYLOAD and WIRE_MAX_ENTRIES. */
enum { HOSTILE_REQUEST_FD = 3, HOSTILE_REPLY_FD = 4 };
#define HOSTILE_MAX_PAYLOAD (16u << 20)
#define HOSTILE_MAX_ENTRIES 65536u
enum { HOSTILE_ANNOUNCE_BASE = 16 };

/* What the caller must do with its answer. */
typedef enum {
    ANSWER_HONEST,
    ANSWER_WRONG,          /* a wrong value or position */
    ANSWER_HUGE,           /* a position whose size passes WIRE_MAX_ENTRIES */
    ANSWER_NULL_ENTRIES,   /* a position with size > 0 and entries NULL */
    ANSWER_DANGLING,       /* a position whose entries were freed */
} hostile_answer;

/* The shape of an operation's reply, to forge one the proxy accepts. */
typedef enum {
    SHAPE_NONE,            /* grundy_free, grundy_memo_clear */
    SHAPE_POS,             /* new, add_heap, remove_heap */
    SHAPE_POS_POS,         /* copy */
    SHAPE_I32_POS,         /* count */
    SHAPE_U64,             /* memo_size */
    SHAPE_U64_POS,         /* hash, is_terminal, is_p, is_n */
    SHAPE_U64_POS_POS,     /* equals */
    SHAPE_MOVES_POS,       /* get_moves */
} hostile_shape;

static uint64_t hostile_seed;     /* 0 until known */
static uint32_t hostile_epoch;    /* the announcement's sequence number */
static uint32_t hostile_calls;    /* calls since the announcement */
static int hostile_depth;         /* nested calls of this file: only the outermost misbehaves */

static uint64_t hostile_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t hostile_state;

static uint32_t hostile_random(uint32_t below)
{
    hostile_state = hostile_mix(hostile_state);
    return below ? (uint32_t)(hostile_state % below) : 0;
}

static double hostile_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* No sleep system call is allowed: spin on the clock (forever when
 * seconds < 0). */
static void hostile_spin(double seconds)
{
    double until = hostile_now() + seconds;
    volatile uint64_t sink = 0;
    while (seconds < 0 || hostile_now() < until)
        sink += 1;
}

static void hostile_write(int fd, const void *data, size_t size)
{
    const unsigned char *at = data;
    while (size > 0) {
        ssize_t n = write(fd, at, size);
        if (n <= 0)
            return;
        at += n;
        size -= (size_t)n;
    }
}

/* A forged reply of `shape`: every position NULL, every number random. */
static size_t hostile_forge(unsigned char *out, uint32_t sequence, hostile_shape shape)
{
    uint64_t fields[8];
    size_t n = 0;
    int32_t count = (int32_t)hostile_random(5);
    const uint64_t null_position[2] = {0, 1}; /* handle 0, POSITION_NULL */
    size_t used = 12, i32 = 0;
    switch (shape) {
    case SHAPE_NONE:
        break;
    case SHAPE_POS:
        memcpy(fields, null_position, sizeof null_position), n = 2;
        break;
    case SHAPE_POS_POS:
        memcpy(fields, null_position, sizeof null_position);
        memcpy(fields + 2, null_position, sizeof null_position), n = 4;
        break;
    case SHAPE_I32_POS:
        i32 = 1;
        memcpy(fields, null_position, sizeof null_position), n = 2;
        break;
    case SHAPE_U64:
        fields[0] = hostile_random(3), n = 1;
        break;
    case SHAPE_U64_POS:
        fields[0] = hostile_random(3);
        memcpy(fields + 1, null_position, sizeof null_position), n = 3;
        break;
    case SHAPE_U64_POS_POS:
        fields[0] = hostile_random(3);
        memcpy(fields + 1, null_position, sizeof null_position);
        memcpy(fields + 3, null_position, sizeof null_position), n = 5;
        break;
    case SHAPE_MOVES_POS:
        fields[0] = 0, fields[1] = 0, fields[2] = 0; /* an empty list */
        memcpy(fields + 3, null_position, sizeof null_position), n = 5;
        break;
    }
    if (i32) {
        memcpy(out + used, &count, sizeof count);
        used += sizeof count;
    }
    memcpy(out + used, fields, n * sizeof *fields);
    used += n * sizeof *fields;
    uint32_t header[3] = {sequence, 0, (uint32_t)(used - 12)};
    memcpy(out, header, sizeof header);
    return used;
}

/* A system call the sandbox forbids (each kills the process with SIGSYS,
 * or fails); the last two only under the guarded run's policy (the guard
 * seeds, GUARD_SEEDS in the Makefile): a way back to memory its allocator
 * made untouchable, which the serving policy lets a program do to its
 * own memory. */
static void hostile_forbidden(void)
{
    switch (hostile_random(9)) {
    case 7: {
        char *block = malloc(64);
        uintptr_t page = ((uintptr_t)block + 64 + 4095) & ~(uintptr_t)4095;
        mprotect((void *)page, 4096, PROT_READ | PROT_WRITE); /* a guard page, or nothing */
        free(block);
        break;
    }
    case 8: {
        struct sigaction quiet = {.sa_handler = SIG_IGN};
        sigaction(SIGBUS, &quiet, NULL);
        break;
    }
    case 0:
        syscall(SYS_fork);
        break;
    case 1:
        syscall(SYS_clone, 0, 0, 0, 0, 0);
        break;
    case 2: {
        char *argv[] = {"sh", "-c", "touch /tmp/grundy-escaped-fuzz", NULL};
        syscall(SYS_execve, "/bin/sh", argv, (char *[]){NULL});
        break;
    }
    case 3:
        syscall(SYS_openat, -100, "/etc/passwd", 0);
        break;
    case 4:
        syscall(SYS_socket, 2, 1, 0);
        break;
    case 5:
        syscall(SYS_kill, 1, 0); /* another process */
        break;
    default: /* executable memory */
        mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        break;
    }
}

static void hostile_flood(void)
{
    static char chunk[1 << 16];
    memset(chunk, 'F', sizeof chunk);
    int fd = 1 + (int)hostile_random(2);
    size_t megabytes = 1 + hostile_random(4);
    for (size_t i = 0; i < megabytes * 16; i++)
        hostile_write(fd, chunk, sizeof chunk);
}

/* Deeper than any stack: the bound only keeps the compiler from calling
 * the recursion endless. */
static volatile int hostile_recursion_limit = 1 << 30;

static int hostile_recurse(int depth)
{
    volatile char frame[4096];
    frame[0] = (char)depth;
    if (depth >= hostile_recursion_limit)
        return frame[0];
    return hostile_recurse(depth + 1) + frame[0];
}

/* One call's misbehaviour; returns what the caller must do with its answer.
 * `shape` is the reply's layout, for forged replies; `salt` is drawn from
 * the call's arguments, so that two tests making their n-th call do not
 * always misbehave alike (a grading starts a student process per test). */
static hostile_answer hostile_turn(hostile_shape shape, uint64_t salt)
{
#ifdef FUZZ_HONEST
    (void)shape, (void)salt;
    return ANSWER_HONEST; /* the honest twin: what the same code earns without misbehaving */
#endif
    if (hostile_depth > 0)
        return ANSWER_HONEST;
    uint64_t seed = FUZZ_SEED ? (uint64_t)FUZZ_SEED : hostile_seed;
    if (seed == 0)
        return ANSWER_HONEST; /* not announced yet: nothing to replay from */
    uint32_t sequence = hostile_epoch + 1 + hostile_calls;
    hostile_state = hostile_mix(seed * 0x100000001b3u ^ ((uint64_t)hostile_epoch << 32) ^ hostile_calls ^
                                hostile_mix(salt));
    hostile_calls++;
    /* Most calls answer honestly, so that the driver's script reaches every
     * operation; about one in seven misbehaves. */
    if (hostile_random(100) >= 14)
        return ANSWER_HONEST;
    unsigned char buffer[256];
    switch (hostile_random(26)) {
    case 0:
    case 1:
        return ANSWER_WRONG;
    case 2: /* garbage bytes on the reply pipe, then the real reply */
        for (size_t i = 0; i < sizeof buffer; i++)
            buffer[i] = (unsigned char)hostile_random(256);
        hostile_write(HOSTILE_REPLY_FD, buffer, 1 + hostile_random(sizeof buffer));
        return ANSWER_HONEST;
    case 3: { /* part of a header, then silence */
        uint32_t header[3] = {sequence, 0, 8};
        hostile_write(HOSTILE_REPLY_FD, header, 1 + hostile_random(11));
        hostile_spin(-1);
        return ANSWER_HONEST;
    }
    case 4: { /* part of a header, then the real reply behind it */
        uint32_t header[3] = {sequence, 0, 8};
        hostile_write(HOSTILE_REPLY_FD, header, 1 + hostile_random(11));
        return ANSWER_HONEST;
    }
    case 5: { /* a header announcing a huge length */
        const uint32_t lengths[] = {0xffffffffu, HOSTILE_MAX_PAYLOAD, HOSTILE_MAX_PAYLOAD + 1,
                                    HOSTILE_MAX_PAYLOAD - 1};
        uint32_t header[3] = {sequence, 0, lengths[hostile_random(4)]};
        hostile_write(HOSTILE_REPLY_FD, header, sizeof header);
        if (hostile_random(2))
            hostile_spin(-1);
        return ANSWER_HONEST;
    }
    case 6: { /* a header announcing a wrong length, and that many bytes */
        uint32_t length = hostile_random(64);
        uint32_t header[3] = {sequence, 0, length};
        hostile_write(HOSTILE_REPLY_FD, header, sizeof header);
        memset(buffer, 0, sizeof buffer);
        hostile_write(HOSTILE_REPLY_FD, buffer, length);
        return ANSWER_HONEST;
    }
    case 7:
    case 8: { /* a well-formed forged reply first: the real one follows it */
        size_t n = hostile_forge(buffer, sequence, shape);
        hostile_write(HOSTILE_REPLY_FD, buffer, n);
        if (hostile_random(3) == 0)
            hostile_spin(-1); /* and never read the next request */
        return ANSWER_HONEST;
    }
    case 9: { /* a reply with the wrong sequence number */
        size_t n = hostile_forge(buffer, sequence + 1 + hostile_random(1000), shape);
        hostile_write(HOSTILE_REPLY_FD, buffer, n);
        return ANSWER_HONEST;
    }
    case 10: { /* a full header out of turn, then a dribble, then silence */
        uint32_t header[3] = {sequence + 7, 0, 4};
        hostile_write(HOSTILE_REPLY_FD, header, sizeof header);
        hostile_spin(0.05);
        hostile_write(HOSTILE_REPLY_FD, header, 1 + hostile_random(11));
        if (hostile_random(2))
            raise(SIGSTOP); /* silence that costs no CPU: no rlimit ends it */
        hostile_spin(-1);
        return ANSWER_HONEST;
    }
    case 11: { /* a write to every descriptor it may hold */
        const int first[] = {1, 2, HOSTILE_REPLY_FD, HOSTILE_REQUEST_FD, 0};
        for (size_t i = 0; i < sizeof first / sizeof *first; i++)
            hostile_write(first[i], "x", 1);
        for (int fd = 5; fd <= 64; fd++)
            hostile_write(fd, "x", 1);
        return ANSWER_HONEST;
    }
    case 12:
        hostile_flood();
        return ANSWER_HONEST;
    case 13: /* spinning: sometimes within the call's limit, sometimes past it */
        hostile_spin(hostile_random(2) ? (double)hostile_random(150) / 1000 : -1);
        return ANSWER_HONEST;
    case 14: {
        const int signals[] = {SIGSEGV, SIGTERM, SIGUSR1, SIGALRM, SIGSTOP, SIGCHLD, SIGWINCH,
                               SIGPIPE, SIGXCPU, SIGBUS};
        raise(signals[hostile_random(sizeof signals / sizeof *signals)]);
        return ANSWER_HONEST;
    }
    case 15:
        abort();
    case 16:
        if (hostile_random(2))
            exit((int)hostile_random(256)); /* the destructor runs */
        _exit((int)hostile_random(256));
    case 17:
        hostile_forbidden();
        return ANSWER_HONEST;
    case 18: { /* reading the request pipe: nothing comes, the call stalls */
        char stolen[64];
        if (read(HOSTILE_REQUEST_FD, stolen, sizeof stolen) < 0)
            return ANSWER_WRONG;
        return ANSWER_HONEST;
    }
    case 19:
        return ANSWER_HUGE;
    case 20:
        return ANSWER_NULL_ENTRIES;
    case 21:
        return ANSWER_DANGLING;
    case 22: { /* the heap corrupted: glibc aborts */
        char *block = malloc(32);
        free(block);
        free(block);
        return ANSWER_HONEST;
    }
    case 23:
        hostile_recurse(0); /* the stack runs out */
        return ANSWER_HONEST;
    case 24: { /* a huge reply trickling in, a byte at a time */
        uint32_t header[3] = {sequence, 0, HOSTILE_MAX_PAYLOAD - 1};
        hostile_write(HOSTILE_REPLY_FD, header, sizeof header);
        for (;;) {
            hostile_write(HOSTILE_REPLY_FD, "t", 1);
            hostile_spin(0.005);
        }
    }
    default: { /* a forged move list the trusted side must free in one huge
                * request, then stopped: the request pipe is never read */
        if (shape != SHAPE_MOVES_POS)
            return ANSWER_WRONG;
        size_t count = HOSTILE_MAX_ENTRIES, length = 3 * 8 + count * 16 + 16;
        unsigned char *forged = malloc(12 + length);
        if (forged == NULL)
            return ANSWER_HONEST;
        uint32_t header[3] = {sequence, 0, (uint32_t)length};
        uint64_t list[3] = {0, count, count}, null_position[2] = {0, 1};
        memcpy(forged, header, sizeof header);
        memcpy(forged + 12, list, sizeof list);
        for (size_t i = 0; i <= count; i++) /* the positions, then the argument */
            memcpy(forged + 12 + sizeof list + i * 16, null_position, 16);
        hostile_write(HOSTILE_REPLY_FD, forged, 12 + length);
        raise(SIGSTOP);
        return ANSWER_HONEST;
    }
    }
}

/* A position spoiled as `how` says (the caller handles ANSWER_WRONG). */
static void hostile_spoil(grundy_position *p, hostile_answer how)
{
    if (p == NULL)
        return;
    switch (how) {
    case ANSWER_HUGE: {
        size_t size = hostile_random(2) ? HOSTILE_MAX_ENTRIES + 1 + hostile_random(100) : (size_t)1 << 40;
        size_t real = size > HOSTILE_MAX_ENTRIES + 200 ? 4 : size;
        heap_count *entries = malloc(real * sizeof *entries);
        if (entries == NULL)
            return;
        for (size_t i = 0; i < real; i++)
            entries[i] = (heap_count){(int)(3 + i), 1};
        free(p->entries);
        p->entries = entries;
        p->size = size;
        p->capacity = size;
        break;
    }
    case ANSWER_NULL_ENTRIES:
        free(p->entries);
        p->entries = NULL;
        p->size = 1 + hostile_random(1000);
        break;
    case ANSWER_DANGLING:
        if (p->entries == NULL)
            p->entries = malloc(4 * sizeof *p->entries), p->size = 4;
        free(p->entries); /* still pointed to */
        break;
    default:
        break;
    }
}

#endif /* HOSTILE_ENGINE_H */
