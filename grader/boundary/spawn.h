/*
 * spawn.h - starts a student process: the submission's code, alone in a
 * process of its own, behind a seccomp filter.
 *
 * The filter is installed in the child before the server program is
 * executed, so it already holds for the submission's constructors and
 * IFUNC resolvers. The program is executed from a descriptor opened
 * close-on-exec (execveat with AT_EMPTY_PATH); every execution passes
 * spawn.c's exec gate, which lets exactly that one through (and valgrind's
 * launcher's), so the student process can never execute anything again.
 * See seccomp_policy.c for what each policy allows.
 */
#ifndef GRADER_SPAWN_H
#define GRADER_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Under valgrind, the XML report's descriptor. Valgrind 3.19 keeps the top
 * VALGRIND_RESERVED_FDS descriptors below the hard RLIMIT_NOFILE for itself
 * (spawn.c raises the soft limit to the hard one, so the range starts at
 * valgrind_reserved_floor()): the program under it cannot write, close or
 * reopen them (write/writev/splice/close are refused with EBADF; a socket
 * cannot be opened through /proc/self/fd), so the report's socket sits at
 * the top one, and nothing of it exists below the range. What valgrind
 * does not refuse (dup/dup2/dup3/F_DUPFD of a reserved descriptor to a
 * low one, sendfile into one, AIO) the valgrind policy's seccomp rules
 * must (seccomp_policy.c). */
#define VALGRIND_RESERVED_FDS 12

/* The first descriptor of valgrind's reserved range under the current
 * RLIMIT_NOFILE, or -1 when the limit is unusable. */
int valgrind_reserved_floor(void);

typedef enum {
    POLICY_SERVE,    /* the suites and the timing probe: the API and nothing else */
    POLICY_COVERAGE, /* also writes gcov's counter files (coverage earns no points) */
    POLICY_VALGRIND, /* valgrind around the server (the memory check can only cost points) */
    POLICY_GUARD     /* the guarded run: guard_alloc.c's pages stay untouchable (seccomp_policy.c) */
} student_policy;

typedef struct {
    pid_t pid;
    int requests;    /* the trusted side writes requests here */
    int replies;     /* and reads replies here */
    int valgrind_xml; /* POLICY_VALGRIND: valgrind's XML report (a socket), else -1 */
    int gate;         /* POLICY_VALGRIND: the exec gate, kept open (student_gate_serve), else -1 */
    int gate_allowance; /* valgrind's own file events still to let through */
} student_process;

typedef struct {
    const char *server;      /* the server program (student_server.c linked with a submission) */
    student_policy policy;
    double cpu_seconds;      /* RLIMIT_CPU: a backstop behind the trusted side's own budget */
    size_t address_space;    /* RLIMIT_AS in bytes; 0 for none (valgrind) */
    size_t stack_bytes;      /* RLIMIT_STACK in bytes; 0 for the inherited one */
    int output_fd;           /* where the submission's printing goes; -1 for nowhere */
    /* POLICY_COVERAGE: the counter files (.gcda) gcov may write, as
     * "PATH:PATH"; opened here and handed over as descriptors from
     * SPAWN_FIRST_GCOV_FD on, since the student process opens nothing. */
    const char *gcov_files;
} student_spawn_options;

/* Starts a student process; on failure returns false with the reason in
 * `error`. The child is killed when the calling process dies. */
bool student_spawn(student_process *process, const student_spawn_options *options, char *error,
                   size_t error_size);

/* In a forked child: becomes the student's uid named by the runner's
 * GRADER_STUDENT_UID and GRADER_STUDENT_GID (set by a grader run as root),
 * in every slot, with no capability; 0 when they are unset. Returns -1
 * with errno on failure. spawn.c's child calls it; the policy probe's
 * control too. */
int spawn_become_student_uid(void);

/* Under valgrind, answers the exec gate's pending questions without
 * waiting: poll process->gate with the process's other descriptors and
 * call this when it is readable. Until the first refusal, up to a few
 * opens for writing and unlinks of valgrind's own temporary files pass;
 * everything else fails with EACCES (a file) or EPERM (an execution). */
void student_gate_serve(student_process *process);

/* Closes the gate once the process is gone (no-op without one). */
void student_gate_close(student_process *process);

/* The descriptors spawn.c's child uses between loading the filter and
 * executing the program, both close-on-exec. */
enum { SPAWN_ERROR_FD = 7, SPAWN_GATE_FD = 8, SPAWN_FIRST_GCOV_FD = 9, SPAWN_MAX_GCOV_FILES = 8 };

/* Builds and loads the filter of `policy` into the calling process; every
 * execution then waits on the notification descriptor stored in
 * `listener` (spawn.c's exec gate). Returns 0 or a negative errno. */
int seccomp_policy_load(student_policy policy, int *listener);

#endif /* GRADER_SPAWN_H */
