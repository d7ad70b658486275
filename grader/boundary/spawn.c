/*
 * spawn.c - fork, confine, execute: the start of a student process (see
 * spawn.h).
 *
 * Between fork and execveat only this file's code runs in the child: it
 * lays out the descriptors (0: /dev/null, 1 and 2: the caller's choice,
 * 3: requests, 4: replies, 5: the program, close-on-exec; 7 and 8,
 * close-on-exec: the error pipe and the exec gate; from 9 on, under
 * coverage: gcov's counter files, opened here; under valgrind, its XML
 * pipe at the top of the descriptor table, see VALGRIND_XML_FD),
 * closes every other descriptor (the trusted side's report files, its end
 * of the pipes), sets the resource limits, asks to die with its parent,
 * and loads the seccomp filter. The child then holds nothing of the
 * trusted process but the copy-on-write memory that execveat replaces.
 *
 * The exec gate. The filter cannot tell spawn's own execveat from a later
 * one by the submission: it sees numbers, not the path a pointer names,
 * and an absolute path makes the kernel ignore the descriptor. So every
 * execve and execveat of a student process is handed to this process
 * (seccomp user notification): the child sends the notification
 * descriptor here over a socket before it executes, this process lets
 * through exactly the executions it expects (spawn's own, and under
 * valgrind the launcher's one execution of its tool, before any submission
 * code exists) and then closes the descriptor: with nobody listening, the
 * kernel fails every later execution with ENOSYS. Under valgrind the
 * trusted side keeps it, and answers every later execution, open for
 * writing and unlink: only valgrind's own temporary files pass
 * (student_gate_serve), every other one fails with EACCES.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "wire.h"

enum {
    EXE_FD = 5,
    VALGRIND_MAX_OPEN_FILES = 256,
    ERROR_FD = SPAWN_ERROR_FD, /* close-on-exec: why the child could not start */
    GATE_FD = SPAWN_GATE_FD,   /* close-on-exec: carries the notification descriptor */
    HIGH_FD = 16
};

/* How long the trusted side waits for an expected execution. */
enum { GATE_TIMEOUT_MS = 20000 };
/* Under valgrind: spawn's execution of the launcher and the launcher's of
 * its tool pass here; then the tool makes and unlinks its temporary files
 * (valgrind 3.19: two, the copies of /proc/self/cmdline and auxv it shows
 * the program), which student_gate_serve() lets through while the process
 * runs: at most this many file events, each on a path named
 * valgrind_proc_PID_..., before the program under test can ask. */
enum { VALGRIND_EXECUTIONS = 2, VALGRIND_FILE_EVENTS = 4 };

/* Debian's /usr/bin/valgrind is a shell script around valgrind.bin; a
 * script cannot be executed from a close-on-exec descriptor. */
static const char *valgrind_program(void)
{
    return access("/usr/bin/valgrind.bin", X_OK) == 0 ? "/usr/bin/valgrind.bin" : "/usr/bin/valgrind";
}

static _Noreturn void fail_in_child(int report_fd, const char *what)
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

/* Closes every descriptor from `first` on. close_range needs Linux 5.9;
 * on an older kernel (or where a container's filter refuses it) each
 * descriptor below the open-files limit is closed one by one, so the
 * trusted side's descriptors never leak into a student process. */
static void close_from(int first)
{
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0)
        return;
    struct rlimit r;
    long last = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? (long)r.rlim_cur
                                                                               : 65536;
    if (last > 1 << 20)
        last = 1 << 20;
    for (long fd = first; fd < last; fd++)
        close((int)fd);
}

/* Moves `fd` to `target` (closing what was there); close-on-exec as asked. */
static int place(int fd, int target, bool cloexec)
{
    if (fd != target && dup2(fd, target) < 0)
        return -1;
    return fcntl(target, F_SETFD, cloexec ? FD_CLOEXEC : 0);
}

/* Hands the notification descriptor to the trusted side. */
static bool send_descriptor(int socket_fd, int fd)
{
    char byte = 'g';
    struct iovec data = {&byte, 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.space,
                             .msg_controllen = sizeof control.space};
    struct cmsghdr *c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(socket_fd, &message, MSG_NOSIGNAL) == 1;
}

static int receive_descriptor(int socket_fd)
{
    char byte;
    struct iovec data = {&byte, 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.space,
                             .msg_controllen = sizeof control.space};
    struct pollfd p = {socket_fd, POLLIN, 0};
    if (poll(&p, 1, GATE_TIMEOUT_MS) != 1 || recvmsg(socket_fd, &message, MSG_CMSG_CLOEXEC) != 1)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&message);
    if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* Opens the counter files named in `files` ("PATH:PATH") at
 * SPAWN_FIRST_GCOV_FD on (after `null` has been placed); returns the first
 * descriptor after them. */
static int open_counter_files(const char *files, int error_fd)
{
    int next = SPAWN_FIRST_GCOV_FD;
    char list[8192];
    snprintf(list, sizeof list, "%s", files != NULL ? files : "");
    char *save = NULL;
    for (char *path = strtok_r(list, ":", &save); path != NULL; path = strtok_r(NULL, ":", &save)) {
        if (next == SPAWN_FIRST_GCOV_FD + SPAWN_MAX_GCOV_FILES) {
            errno = E2BIG;
            fail_in_child(error_fd, "too many counter files");
        }
        int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || place(fd, next, false) < 0)
            fail_in_child(error_fd, "cannot open a counter file");
        if (fd != next)
            close(fd);
        next++;
    }
    return next;
}

/* Valgrind keeps the top VALGRIND_RESERVED_FDS descriptors below
 * RLIMIT_NOFILE for itself, and fails the program's write, writev, splice,
 * close and the like on them: its XML report goes to the last one, a
 * socket (a pipe could be reopened for writing through /proc/self/fd; a
 * socket cannot, and opens for writing go through the closed exec gate
 * anyway), and the valgrind policy refuses what valgrind lets through
 * (dup, F_DUPFD, sendfile into it: seccomp_policy.c). The limit is the one
 * inherited (a sandboxed runner's is lower than 256), never raised. */
int valgrind_reserved_floor(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur > (1u << 20) ||
        r.rlim_cur <= 2 * VALGRIND_RESERVED_FDS)
        return -1;
    return (int)r.rlim_cur - VALGRIND_RESERVED_FDS;
}

static int valgrind_xml_fd(void)
{
    struct rlimit r;
    rlim_t files = getrlimit(RLIMIT_NOFILE, &r) == 0 ? r.rlim_cur : VALGRIND_MAX_OPEN_FILES;
    if (files > VALGRIND_MAX_OPEN_FILES)
        files = VALGRIND_MAX_OPEN_FILES;
    return (int)files - 1;
}

/* The student's own uid (grader/boundary/README.md, "Calls on other
 * processes, and the uids"). A grading started as root runs each runner
 * and probe as the grading's sandbox uid with CAP_SETUID, CAP_SETGID,
 * CAP_KILL and CAP_SYS_PTRACE, and names a second uid in
 * GRADER_STUDENT_UID and GRADER_STUDENT_GID: the child becomes that uid
 * in all three slots (real, effective, saved), so no call a policy missed
 * can reach the runner (a signal, prlimit64 or the scheduler's setters
 * need a shared uid; ptrace and process_vm_* need one too, besides the
 * runner being non-dumpable), and keeps no capability. The runner still
 * ends its student processes (CAP_KILL) and reads the paths of
 * valgrind's temporary files at the exec gate (CAP_SYS_PTRACE). Without
 * the variables (a grader not run as root, make test) nothing changes.
 * Returns 0, or -1 with errno set. */
int spawn_become_student_uid(void)
{
    const char *uid_text = getenv("GRADER_STUDENT_UID"), *gid_text = getenv("GRADER_STUDENT_GID");
    if (uid_text == NULL || gid_text == NULL)
        return 0;
    char *end_uid, *end_gid;
    long uid = strtol(uid_text, &end_uid, 10), gid = strtol(gid_text, &end_gid, 10);
    if (*end_uid != '\0' || *end_gid != '\0' || uid <= 0 || gid <= 0 || uid > 0x7fffffffL ||
        gid > 0x7fffffffL) {
        errno = EINVAL;
        return -1;
    }
    if (setgroups(0, NULL) != 0 || setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0 ||
        setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0)
        return -1;
    /* Between two non-zero uids the kernel keeps every capability: they
     * go by hand, ambient ones first (an ambient capability needs its
     * permitted and inheritable bits). */
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[2];
    memset(none, 0, sizeof none);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 ||
        syscall(SYS_capset, &header, none) != 0)
        return -1;
    uid_t r, e, s;
    gid_t rg, eg, sg;
    if (getresuid(&r, &e, &s) != 0 || getresgid(&rg, &eg, &sg) != 0 || r != (uid_t)uid ||
        e != (uid_t)uid || s != (uid_t)uid || rg != (gid_t)gid || eg != (gid_t)gid || sg != (gid_t)gid) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

static _Noreturn void become_student(const student_spawn_options *o, int request_read,
                                     int reply_write, int xml_write, int error_write, int gate_write)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    int input = open("/dev/null", O_RDONLY | O_CLOEXEC); /* fd 0: nothing to write to */
    int exe = open(o->policy == POLICY_VALGRIND ? valgrind_program() : o->server, O_RDONLY | O_CLOEXEC);
    if (null < 0 || input < 0 || exe < 0)
        fail_in_child(error_write, "cannot open the student program");
    int output = o->output_fd >= 0 && o->policy != POLICY_VALGRIND ? dup(o->output_fd) : dup(null);
    int xml_fd = valgrind_xml_fd();
    /* Everything first goes above the fixed slots, so no dup2 below
     * overwrites a descriptor still needed. */
    int high[8] = {fcntl(input, F_DUPFD_CLOEXEC, HIGH_FD), fcntl(output, F_DUPFD_CLOEXEC, HIGH_FD),
                   fcntl(request_read, F_DUPFD_CLOEXEC, HIGH_FD), fcntl(reply_write, F_DUPFD_CLOEXEC, HIGH_FD),
                   fcntl(exe, F_DUPFD_CLOEXEC, HIGH_FD),
                   xml_write >= 0 ? fcntl(xml_write, F_DUPFD_CLOEXEC, HIGH_FD) : -1,
                   fcntl(error_write, F_DUPFD_CLOEXEC, HIGH_FD), fcntl(gate_write, F_DUPFD_CLOEXEC, HIGH_FD)};
    if (high[6] < 0 || place(high[6], ERROR_FD, true) < 0)
        fail_in_child(error_write, "cannot lay out the descriptors");
    if (place(high[0], 0, false) || place(high[1], 1, false) || place(high[1], 2, false) ||
        place(high[2], WIRE_REQUEST_FD, false) || place(high[3], WIRE_REPLY_FD, false) ||
        place(high[4], EXE_FD, true) || place(high[7], GATE_FD, true) ||
        (high[5] >= 0 && place(high[5], xml_fd, false)))
        fail_in_child(ERROR_FD, "cannot lay out the descriptors");
    if (high[5] >= 0) {
        /* everything between the fixed slots and the XML pipe goes */
        if (syscall(SYS_close_range, SPAWN_FIRST_GCOV_FD, xml_fd - 1, 0) != 0)
            for (int fd = SPAWN_FIRST_GCOV_FD; fd < xml_fd; fd++)
                close(fd);
        close_from(xml_fd + 1);
    } else {
        close_from(SPAWN_FIRST_GCOV_FD);
    }
    if (o->policy == POLICY_COVERAGE)
        close_from(open_counter_files(o->gcov_files, ERROR_FD));
    /* After every file is open (the program, the counter files: the
     * runner's to open, not the student's uid's). A change of uid clears
     * the parent-death signal, so it is asked for again, and a parent that
     * died meanwhile is noticed. */
    pid_t parent = getppid();
    if (spawn_become_student_uid() != 0)
        fail_in_child(ERROR_FD, "cannot become the student's uid");
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(126);

    limit(RLIMIT_CORE, 0);
    bool serving = o->policy == POLICY_SERVE || o->policy == POLICY_GUARD;
    limit(RLIMIT_FSIZE, serving ? 0 : 16 << 20);
    limit(RLIMIT_NOFILE, serving ? 16 : (rlim_t)xml_fd + 1);
    if (o->cpu_seconds > 0)
        limit(RLIMIT_CPU, (rlim_t)o->cpu_seconds + 1);
    if (o->address_space > 0)
        limit(RLIMIT_AS, o->address_space);
    if (o->stack_bytes > 0)
        limit(RLIMIT_STACK, o->stack_bytes);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail_in_child(ERROR_FD, "cannot set no_new_privs");

    char files[8192];
    snprintf(files, sizeof files, "GRADER_GCOV_FILES=%s", o->gcov_files ? o->gcov_files : "");
    char *env_coverage[] = {"LANG=C", files, NULL};
    char *env_plain[] = {"LANG=C", NULL};
    char xml_option[64];
    snprintf(xml_option, sizeof xml_option, "--xml-fd=%d", xml_fd);
    char *argv_valgrind[] = {"valgrind", "--quiet", "--vgdb=no", "--leak-check=full",
                             "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite",
                             "--num-callers=20", "--xml=yes", xml_option, (char *)o->server, NULL};
    char *argv_server[] = {"student-process", NULL};
    char **argv = o->policy == POLICY_VALGRIND ? argv_valgrind : argv_server;
    char **envp = o->policy == POLICY_COVERAGE ? env_coverage : env_plain;

    int listener = -1;
    int rc = seccomp_policy_load(o->policy, &listener);
    if (rc != 0) {
        errno = -rc;
        fail_in_child(ERROR_FD, "cannot load the seccomp filter");
    }
    /* Both descriptors are close-on-exec: the filter allows no close. */
    if (!send_descriptor(GATE_FD, listener))
        fail_in_child(ERROR_FD, "cannot hand over the exec gate");
    syscall(SYS_execveat, EXE_FD, "", argv, envp, AT_EMPTY_PATH);
    fail_in_child(ERROR_FD, "cannot execute the student program");
}

/* Lets through the `expected` executions of `pid` and no other (see the
 * header). False, with the reason in `error`, when an expected execution
 * did not come. */
static bool pass_expected_executions(int listener, pid_t pid, int expected, char *error,
                                     size_t error_size)
{
    struct seccomp_notif *request = NULL;
    struct seccomp_notif_resp *response = NULL;
    bool ok = seccomp_notify_alloc(&request, &response) == 0;
    for (int passed = 0; ok && passed < expected;) {
        struct pollfd p = {listener, POLLIN, 0};
        int ready = poll(&p, 1, GATE_TIMEOUT_MS);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready != 1 || !(p.revents & POLLIN)) {
            /* POLLHUP: the process ended before it executed (the error
             * pipe says why); 0: it never asked. */
            if (ready == 0)
                snprintf(error, error_size, "the student program was not executed within %d s",
                         GATE_TIMEOUT_MS / 1000);
            ok = ready != 0 && passed > 0;
            break;
        }
        memset(request, 0, sizeof *request);
        if (seccomp_notify_receive(listener, request) != 0)
            continue; /* the asking process is gone */
        memset(response, 0, sizeof *response);
        response->id = request->id;
        if (request->pid == (uint32_t)pid &&
            (request->data.nr == SCMP_SYS(execve) || request->data.nr == SCMP_SYS(execveat))) {
            response->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
            passed++;
        } else {
            response->error = -EPERM; /* not spawn's, nor valgrind's launcher's */
        }
        if (seccomp_notify_respond(listener, response) != 0 && response->flags) {
            snprintf(error, error_size, "the exec gate could not let the program through");
            ok = false;
        }
    }
    seccomp_notify_free(request, response);
    return ok;
}

/* Reads a student process of the student's uid (spawn_become_student_uid):
 * the runner is another uid, so process_vm_readv is refused it, and the
 * runner holds no CAP_SYS_PTRACE (Docker's default set lacks it). Opening
 * /proc/PID/mem is checked against the file system ids instead, which
 * CAP_SETUID and CAP_SETGID let the runner take for the moment of the
 * open; the real and effective uids, which signals are checked against,
 * stay the runner's. */
static ssize_t read_as_student(pid_t pid, char *out, size_t size, uint64_t address)
{
    const char *uid_text = getenv("GRADER_STUDENT_UID"), *gid_text = getenv("GRADER_STUDENT_GID");
    if (uid_text == NULL || gid_text == NULL)
        return -1;
    uid_t uid = (uid_t)strtoul(uid_text, NULL, 10), own_uid = geteuid();
    gid_t gid = (gid_t)strtoul(gid_text, NULL, 10), own_gid = getegid();
    char name[64];
    snprintf(name, sizeof name, "/proc/%d/mem", (int)pid);
    setfsgid(gid);
    setfsuid(uid);
    int fd = (int)setfsuid(uid) == (int)uid ? open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
    setfsuid(own_uid);
    setfsgid(own_gid);
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, out, size, (off_t)address);
    close(fd);
    return n;
}

/* The path argument of a notified open, openat, unlink or unlinkat, read
 * from the asking process: false when it cannot be read whole. Read while
 * the process waits in the call, and checked against the notification's
 * id afterwards, so a process that died (and whose pid was reused) is not
 * believed. */
static bool notified_path(int listener, const struct seccomp_notif *request, char *path, size_t size)
{
    int nr = request->data.nr;
    uint64_t pointer = nr == SCMP_SYS(openat) || nr == SCMP_SYS(unlinkat) ? request->data.args[1]
                                                                          : request->data.args[0];
    struct iovec local = {path, size - 1}, remote = {(void *)(uintptr_t)pointer, size - 1};
    ssize_t n = process_vm_readv((pid_t)request->pid, &local, 1, &remote, 1, 0);
    if (n < 0 && errno == EPERM)
        n = read_as_student((pid_t)request->pid, path, size - 1, pointer);
    if (n <= 0 || seccomp_notify_id_valid(listener, request->id) != 0)
        return false;
    path[n] = '\0';
    return strlen(path) < (size_t)n; /* the name ended inside what was read */
}

/* Whether a file event under valgrind is one of valgrind's own temporary
 * files: a name valgrind_proc_PID_... in a directory, nothing else. */
static bool valgrind_temporary(const char *path, pid_t pid)
{
    const char *name = strrchr(path, '/');
    char prefix[64];
    snprintf(prefix, sizeof prefix, "valgrind_proc_%d_", (int)pid);
    return name != NULL && strncmp(name + 1, prefix, strlen(prefix)) == 0 && strstr(path, "..") == NULL;
}

void student_gate_serve(student_process *process)
{
    if (process->gate < 0)
        return;
    struct seccomp_notif *request = NULL;
    struct seccomp_notif_resp *response = NULL;
    if (seccomp_notify_alloc(&request, &response) != 0)
        return;
    for (;;) {
        struct pollfd p = {process->gate, POLLIN, 0};
        if (poll(&p, 1, 0) != 1 || !(p.revents & POLLIN))
            break;
        memset(request, 0, sizeof *request);
        if (seccomp_notify_receive(process->gate, request) != 0)
            continue;
        memset(response, 0, sizeof *response);
        response->id = request->id;
        int nr = request->data.nr;
        response->error = nr == SCMP_SYS(execve) || nr == SCMP_SYS(execveat) ? -EPERM : -EACCES;
        char path[512];
        if ((nr == SCMP_SYS(open) || nr == SCMP_SYS(openat) || nr == SCMP_SYS(unlink) ||
             nr == SCMP_SYS(unlinkat)) &&
            process->gate_allowance > 0 && request->pid == (uint32_t)process->pid &&
            notified_path(process->gate, request, path, sizeof path) &&
            valgrind_temporary(path, process->pid)) {
            process->gate_allowance--;
            response->error = 0;
            response->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        } else {
            process->gate_allowance = 0; /* the first refusal is the last of them */
        }
        (void)seccomp_notify_respond(process->gate, response);
    }
    seccomp_notify_free(request, response);
}

void student_gate_close(student_process *process)
{
    if (process->gate >= 0)
        close(process->gate);
    process->gate = -1;
}

static void close_all(const int *fds, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

bool student_spawn(student_process *process, const student_spawn_options *o, char *error,
                   size_t error_size)
{
    int requests[2] = {-1, -1}, replies[2] = {-1, -1}, errors[2] = {-1, -1}, xml[2] = {-1, -1};
    int gate[2] = {-1, -1};
    process->gate = -1; /* no gate until this process has one */
    if (pipe2(requests, O_CLOEXEC) || pipe2(replies, O_CLOEXEC) || pipe2(errors, O_CLOEXEC) ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate) ||
        (o->policy == POLICY_VALGRIND && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, xml))) {
        snprintf(error, error_size, "cannot make pipes: %s", strerror(errno));
        int all[] = {requests[0], requests[1], replies[0], replies[1], errors[0], errors[1],
                     gate[0], gate[1], xml[0], xml[1]};
        close_all(all, sizeof all / sizeof *all);
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(error, error_size, "cannot fork: %s", strerror(errno));
        int all[] = {requests[0], requests[1], replies[0], replies[1], errors[0], errors[1],
                     gate[0], gate[1], xml[0], xml[1]};
        close_all(all, sizeof all / sizeof *all);
        return false;
    }
    if (pid == 0)
        become_student(o, requests[0], replies[1], xml[1], errors[1], gate[1]);
    int child_ends[] = {requests[0], replies[1], errors[1], xml[1], gate[1]};
    close_all(child_ends, sizeof child_ends / sizeof *child_ends);
    if (xml[0] >= 0)
        shutdown(xml[0], SHUT_WR); /* one way: the trusted side only reads */
    int listener = receive_descriptor(gate[0]);
    close(gate[0]);
    char gate_error[256] = "";
    bool passed = listener >= 0 &&
                  pass_expected_executions(listener, pid,
                                           o->policy == POLICY_VALGRIND ? VALGRIND_EXECUTIONS : 1,
                                           gate_error, sizeof gate_error);
    /* Plain and coverage: the gate closes now, and with nobody listening
     * the kernel fails every later execution with ENOSYS. Under valgrind it
     * stays with the trusted side, which answers every later event
     * (student_gate_serve). */
    if (listener >= 0 && (o->policy != POLICY_VALGRIND || !passed)) {
        close(listener);
        listener = -1;
    }
    /* The error pipe is close-on-exec: it reads end of file once the
     * program runs, or the reason it could not start. */
    char reason[256] = "";
    ssize_t n = 0;
    struct pollfd p = {errors[0], POLLIN, 0};
    if (poll(&p, 1, GATE_TIMEOUT_MS) == 1)
        while ((n = read(errors[0], reason, sizeof reason - 1)) < 0 && errno == EINTR)
            ;
    close(errors[0]);
    if (n > 0 || !passed) {
        if (n > 0) {
            reason[n] = '\0';
            reason[strcspn(reason, "\n")] = '\0';
        }
        snprintf(error, error_size, "%s", n > 0 ? reason
                                          : gate_error[0] ? gate_error
                                                          : "the exec gate did not open");
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        int ours[] = {requests[1], replies[0], xml[0], listener};
        close_all(ours, sizeof ours / sizeof *ours);
        return false;
    }
    process->gate = listener;
    process->gate_allowance = VALGRIND_FILE_EVENTS;
    process->pid = pid;
    process->requests = requests[1];
    process->replies = replies[0];
    process->valgrind_xml = xml[0];
    return true;
}
