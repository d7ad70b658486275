/*
 * spawn.c - fork, confine, execute: the start of a student process (see
 * spawn.h).
 *
 * Between fork and execveat only this file's code runs in the child: it
 * lays out the descriptors (0: /dev/null, 1 and 2: the caller's choice,
 * 3: requests, 4: replies, 5: the program, close-on-exec; under valgrind,
 * its XML socket at valgrind_xml_fd(), inside valgrind's reserved range,
 * see spawn.h), closes every other descriptor (the trusted side's report
 * files, its end of the pipes), sets the resource limits, asks to die with
 * its parent, and loads the seccomp filter. The child then holds nothing
 * of the trusted process but the copy-on-write memory that execveat
 * replaces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn.h"
#include "wire.h"

enum { EXE_FD = 5, FIRST_CLOSED_FD = 6, HIGH_FD = 10 };

/* Debian's /usr/bin/valgrind is a shell script around valgrind.bin; a
 * script cannot be executed from a close-on-exec descriptor. */
static const char *valgrind_program(void)
{
    return access("/usr/bin/valgrind.bin", X_OK) == 0 ? "/usr/bin/valgrind.bin" : "/usr/bin/valgrind";
}

static void fail_in_child(int report_fd, const char *what)
{
    char message[256];
    int length = snprintf(message, sizeof message, "%s: %s\n", what, strerror(errno));
    if (length > 0 && write(report_fd, message, (size_t)length) < 0)
        _exit(126);
    _exit(126);
}

static void limit(int resource, rlim_t value)
{
    struct rlimit r = {value, value};
    setrlimit(resource, &r);
}

/* Moves `fd` to `target` (closing what was there), without close-on-exec. */
static int place(int fd, int target)
{
    if (fd == target)
        return fcntl(fd, F_SETFD, 0);
    return dup2(fd, target) < 0 ? -1 : 0;
}

int valgrind_reserved_floor(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_max == RLIM_INFINITY || r.rlim_max > (1u << 20) ||
        r.rlim_max < 2 * VALGRIND_RESERVED_FDS)
        return -1;
    return (int)r.rlim_max - VALGRIND_RESERVED_FDS;
}

/* Valgrind reserves its range below the soft limit when that is also the
 * hard one; so the soft limit is raised to the hard, and the report's
 * socket goes to the top descriptor: -1 when the limit is unusable. */
static int valgrind_xml_fd(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || valgrind_reserved_floor() < 0)
        return -1;
    r.rlim_cur = r.rlim_max;
    return setrlimit(RLIMIT_NOFILE, &r) == 0 ? (int)r.rlim_max - 1 : -1;
}

static void become_student(const student_spawn_options *o, int request_read, int reply_write,
                           int xml_write, int error_write)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    int exe = open(o->policy == POLICY_VALGRIND ? valgrind_program() : o->server, O_RDONLY | O_CLOEXEC);
    if (null < 0 || exe < 0)
        fail_in_child(error_write, "cannot open the student program");
    int output = o->output_fd >= 0 && o->policy != POLICY_VALGRIND ? dup(o->output_fd) : dup(null);
    /* Everything first goes above the fixed slots, so no dup2 below
     * overwrites a descriptor still needed. */
    int high[6] = {fcntl(null, F_DUPFD_CLOEXEC, HIGH_FD), fcntl(output, F_DUPFD_CLOEXEC, HIGH_FD),
                   fcntl(request_read, F_DUPFD_CLOEXEC, HIGH_FD), fcntl(reply_write, F_DUPFD_CLOEXEC, HIGH_FD),
                   fcntl(exe, F_DUPFD_CLOEXEC, HIGH_FD),
                   xml_write >= 0 ? fcntl(xml_write, F_DUPFD_CLOEXEC, HIGH_FD) : -1};
    int error_high = fcntl(error_write, F_DUPFD_CLOEXEC, HIGH_FD);
    int xml_fd = -1;
    if (high[5] >= 0) {
        limit(RLIMIT_NOFILE, 256); /* as below; where the hard limit is lower, that one */
        xml_fd = valgrind_xml_fd();
        if (xml_fd <= error_high)
            fail_in_child(error_high, "cannot place valgrind's report in its reserved descriptors");
    }
    if (place(high[0], 0) || place(high[1], 1) || place(high[1], 2) ||
        place(high[2], WIRE_REQUEST_FD) || place(high[3], WIRE_REPLY_FD) ||
        dup2(high[4], EXE_FD) < 0 || (high[5] >= 0 && place(high[5], xml_fd)))
        fail_in_child(error_high, "cannot lay out the descriptors");
    fcntl(EXE_FD, F_SETFD, FD_CLOEXEC);
    /* error_high is close-on-exec: it stays open until execveat. The XML
     * socket sits far above it, alone at xml_fd. */
    if (error_high > FIRST_CLOSED_FD)
        close_range(FIRST_CLOSED_FD, (unsigned)error_high - 1, 0);
    if (high[5] >= 0) {
        close_range((unsigned)error_high + 1, (unsigned)xml_fd - 1, 0);
        close_range((unsigned)xml_fd + 1, ~0U, 0);
    } else {
        close_range((unsigned)error_high + 1, ~0U, 0);
    }

    limit(RLIMIT_CORE, 0);
    limit(RLIMIT_FSIZE, o->policy == POLICY_SERVE ? 0 : 16 << 20);
    limit(RLIMIT_NOFILE, o->policy == POLICY_SERVE ? 16 : 256);
    if (o->cpu_seconds > 0)
        limit(RLIMIT_CPU, (rlim_t)o->cpu_seconds + 1);
    if (o->address_space > 0)
        limit(RLIMIT_AS, o->address_space);
    if (o->stack_bytes > 0)
        limit(RLIMIT_STACK, o->stack_bytes);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail_in_child(error_high, "cannot set no_new_privs");

    char strip[32];
    snprintf(strip, sizeof strip, "GCOV_PREFIX_STRIP=%d", o->gcov_prefix_strip);
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "GCOV_PREFIX=%s", o->gcov_prefix ? o->gcov_prefix : "");
    char *env_coverage[] = {prefix, strip, NULL};
    char *env_plain[] = {"LANG=C", NULL};
    char xml_option[64];
    snprintf(xml_option, sizeof xml_option, "--xml-fd=%d", xml_fd);
    char *argv_valgrind[] = {"valgrind", "--quiet", "--vgdb=no", "--leak-check=full",
                             "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite",
                             "--num-callers=20", "--xml=yes", xml_option, (char *)o->server, NULL};
    char *argv_server[] = {"student-process", NULL};
    char **argv = o->policy == POLICY_VALGRIND ? argv_valgrind : argv_server;
    char **envp = o->policy == POLICY_COVERAGE && o->gcov_prefix ? env_coverage : env_plain;

    int rc = seccomp_policy_load(o->policy, EXE_FD);
    if (rc != 0) {
        errno = -rc;
        fail_in_child(error_high, "cannot load the seccomp filter");
    }
    syscall(SYS_execveat, EXE_FD, "", argv, envp, AT_EMPTY_PATH);
    fail_in_child(error_high, "cannot execute the student program");
}

bool student_spawn(student_process *process, const student_spawn_options *o, char *error,
                   size_t error_size)
{
    int requests[2], replies[2], errors[2], xml[2] = {-1, -1};
    /* valgrind's report comes on a socket, not a pipe: a pipe can be
     * reopened for writing through /proc/self/fd/N, a socket cannot. */
    if (pipe2(requests, O_CLOEXEC) || pipe2(replies, O_CLOEXEC) || pipe2(errors, O_CLOEXEC) ||
        (o->policy == POLICY_VALGRIND && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, xml))) {
        snprintf(error, error_size, "cannot make pipes: %s", strerror(errno));
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(error, error_size, "cannot fork: %s", strerror(errno));
        return false;
    }
    if (pid == 0)
        become_student(o, requests[0], replies[1], xml[1], errors[1]);
    close(requests[0]);
    close(replies[1]);
    close(errors[1]);
    if (xml[1] >= 0)
        close(xml[1]);
    if (xml[0] >= 0)
        shutdown(xml[0], SHUT_WR); /* one way: the trusted side only reads */
    /* The error pipe is close-on-exec: it reads end of file once the
     * program runs, or the reason it could not start. */
    char reason[256] = "";
    ssize_t n;
    while ((n = read(errors[0], reason, sizeof reason - 1)) < 0 && errno == EINTR)
        ;
    close(errors[0]);
    if (n > 0) {
        reason[n] = '\0';
        reason[strcspn(reason, "\n")] = '\0';
        snprintf(error, error_size, "%s", reason);
        close(requests[1]);
        close(replies[0]);
        if (xml[0] >= 0)
            close(xml[0]);
        return false;
    }
    process->pid = pid;
    process->requests = requests[1];
    process->replies = replies[0];
    process->valgrind_xml = xml[0];
    return true;
}
