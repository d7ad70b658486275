/*
 * policy_probe_student.c - a student process that tries every forbidden
 * thing, for policy_probe.c.
 *
 * Linked and started exactly as a submission's program is (spawn.c, the
 * same policies), but instead of serving the API it works through a list
 * of actions a hostile submission would try: open, stat or execute a file,
 * make a process, a socket or a file, reach another process, write to a
 * descriptor it was not given, map executable memory, raise a limit. For
 * each it writes "BEGIN i NAME" and then "i NAME RESULT" to the reply pipe
 * (fd 4), RESULT being "allowed" or "denied ERRNO"; an action that kills
 * the process (SIGSYS) leaves its BEGIN line alone, and the trusted side
 * starts a new process from the next action.
 *
 * It reads, from the request pipe (fd 3), the index to start from and the
 * paths of the grader's secrets to try ("START n", then "SECRET path"
 * lines, then "END"): it cannot read its arguments or environment any more
 * than a submission can. Raw system calls, so that each action is exactly
 * one call and no libc wrapper adds another.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Every descriptor up to the highest a student process can be given
 * (spawn.c: below 256), valgrind's reserved ones among them. */
enum { REQUESTS = 3, REPLIES = 4, MAX_SECRETS = 16, HIGHEST_FD_TRIED = 256 };

static char *secrets[MAX_SECRETS];
static int secret_count;

static void say(const char *text)
{
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t n = write(REPLIES, text, length);
        if (n <= 0)
            _exit(3);
        text += n;
        length -= (size_t)n;
    }
}

/* "i NAME allowed" or "i NAME denied ERRNO" for a call's result. */
static void report(int index, const char *name, long result)
{
    char line[512];
    if (result >= 0)
        snprintf(line, sizeof line, "%d %s allowed\n", index, name);
    else
        snprintf(line, sizeof line, "%d %s denied %s\n", index, name, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    say(line);
}

static long raw(long number, long a, long b, long c, long d, long e)
{
    return syscall(number, a, b, c, d, e);
}

static char scratch_page[4096];

/* One action: does it, and reports what the kernel said. */
typedef struct {
    const char *name;
    long (*run)(int argument);
    int argument; /* a descriptor or a secret's index */
    bool makes_fd; /* a success returns a new descriptor, closed at once */
} action;

static long open_read(int i) { return raw(SYS_openat, AT_FDCWD, (long)secrets[i], O_RDONLY, 0, 0); }
static long stat_path(int i) { return raw(SYS_newfstatat, AT_FDCWD, (long)secrets[i], (long)scratch_page, 0, 0); }
static long stat_empty_path(int i)
{
    /* AT_EMPTY_PATH with an absolute path: the descriptor is ignored */
    return raw(SYS_newfstatat, REPLIES, (long)secrets[i], (long)scratch_page, AT_EMPTY_PATH, 0);
}
static long statx_path(int i) { return raw(SYS_statx, AT_FDCWD, (long)secrets[i], 0, 0xfff, (long)scratch_page); }
static long access_path(int i) { return raw(SYS_access, (long)secrets[i], R_OK, 0, 0, 0); }
static long open_public(int unused)
{
    (void)unused;
    return raw(SYS_openat, AT_FDCWD, (long)"/etc/passwd", O_RDONLY, 0, 0);
}
static long create_file(int unused)
{
    (void)unused;
    return raw(SYS_openat, AT_FDCWD, (long)"/tmp/policy-probe-was-here", O_WRONLY | O_CREAT, 0600, 0);
}
static long open_for_writing(int unused)
{
    (void)unused;
    return raw(SYS_openat, AT_FDCWD, (long)"/proc/self/fd/4", O_WRONLY, 0, 0);
}
static long make_directory(int unused)
{
    (void)unused;
    return raw(SYS_mkdir, (long)"/tmp/policy-probe-dir", 0700, 0, 0, 0);
}
static long unlink_file(int unused)
{
    (void)unused;
    return raw(SYS_unlink, (long)"/tmp/policy-probe-was-here", 0, 0, 0, 0);
}
static long execute(int unused)
{
    (void)unused;
    char *argv[] = {"true", NULL}, *envp[] = {NULL};
    return raw(SYS_execve, (long)"/bin/true", (long)argv, (long)envp, 0, 0);
}
static long execute_absolute_at(int unused)
{
    (void)unused;
    char *argv[] = {"true", NULL}, *envp[] = {NULL};
    return raw(SYS_execveat, 5, (long)"/bin/true", (long)argv, (long)envp, AT_EMPTY_PATH);
}
static long execute_memfd(int unused)
{
    (void)unused;
    long fd = raw(SYS_memfd_create, (long)"probe", 0, 0, 0, 0);
    if (fd < 0)
        return fd;
    char *argv[] = {"x", NULL}, *envp[] = {NULL};
    return raw(SYS_execveat, fd, (long)"", (long)argv, (long)envp, AT_EMPTY_PATH);
}
static long new_process(int unused)
{
    (void)unused;
    long pid = raw(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        raw(SYS_exit_group, 0, 0, 0, 0, 0);
    return pid;
}
static long vfork_process(int unused)
{
    (void)unused;
    long pid = raw(SYS_fork, 0, 0, 0, 0, 0);
    if (pid == 0)
        raw(SYS_exit_group, 0, 0, 0, 0, 0);
    return pid;
}
static long inet_socket(int unused)
{
    (void)unused;
    return raw(SYS_socket, AF_INET, SOCK_STREAM, 0, 0, 0);
}
static long unix_socket(int unused)
{
    (void)unused;
    return raw(SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0, 0);
}
static long socket_pair(int unused)
{
    (void)unused;
    int pair[2];
    return raw(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, (long)pair, 0);
}
static long ptrace_parent(int unused)
{
    (void)unused;
    return raw(SYS_ptrace, 16 /* PTRACE_ATTACH */, getppid(), 0, 0, 0);
}
static long signal_parent(int unused)
{
    (void)unused;
    return raw(SYS_kill, getppid(), 0, 0, 0, 0);
}
static long signal_init(int unused)
{
    (void)unused;
    return raw(SYS_kill, 1, 0, 0, 0, 0);
}
static long read_parent_memory(int unused)
{
    (void)unused;
    char buffer[16];
    struct iovec local = {buffer, sizeof buffer}, remote = {(void *)0x400000, sizeof buffer};
    return raw(SYS_process_vm_readv, getppid(), (long)&local, 1, (long)&remote, 1);
}
static long write_descriptor(int fd) { return raw(SYS_write, fd, (long)"x", 1, 0, 0); }
static long duplicate_descriptor(int fd) { return raw(SYS_dup, fd, 0, 0, 0, 0); }
static long duplicate_low(int fd) { return raw(SYS_fcntl, fd, F_DUPFD, 0, 0, 0); }
static long send_file_into(int fd) { return raw(SYS_sendfile, fd, 0, 0, 1, 0); }
static long executable_memory(int unused)
{
    (void)unused;
    return raw(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1);
}
static long raise_limit(int unused)
{
    (void)unused;
    struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
    return raw(SYS_prlimit64, 0, RLIMIT_CPU, (long)&unlimited, 0, 0);
}
static long become_root(int unused)
{
    (void)unused;
    return raw(SYS_setuid, 0, 0, 0, 0, 0);
}
static long terminal_input(int unused)
{
    (void)unused;
    char c = 'x';
    return raw(SYS_ioctl, 0, 0x5412 /* TIOCSTI */, (long)&c, 0, 0);
}
static long new_namespace(int unused)
{
    (void)unused;
    return raw(SYS_unshare, CLONE_NEWUSER, 0, 0, 0, 0);
}
static long io_ring(int unused)
{
    (void)unused;
    char params[120] = {0};
    return raw(SYS_io_uring_setup, 1, (long)params, 0, 0, 0);
}

/* The actions, in order; the first few take each secret, the descriptor
 * writes each descriptor a submission was not given. */
static action actions[1200];
static int action_count;

static void add(const char *name, long (*run)(int), int argument)
{
    static const char *const making_fds[] = {"open-", "create-", "reopen-", "socket", "dup-", "dupfd-"};
    bool makes_fd = false;
    for (size_t i = 0; i < sizeof making_fds / sizeof *making_fds; i++)
        makes_fd |= strncmp(name, making_fds[i], strlen(making_fds[i])) == 0;
    if (action_count < (int)(sizeof actions / sizeof *actions))
        actions[action_count++] = (action){name, run, argument, makes_fd};
}

static void list_actions(void)
{
    static char names[MAX_SECRETS * 5 + (HIGHEST_FD_TRIED + 1) * 4][48];
    int n = 0;
    for (int i = 0; i < secret_count; i++) {
        snprintf(names[n], sizeof names[n], "open-secret-%d", i);
        add(names[n++], open_read, i);
        snprintf(names[n], sizeof names[n], "stat-secret-%d", i);
        add(names[n++], stat_path, i);
        snprintf(names[n], sizeof names[n], "stat-empty-path-secret-%d", i);
        add(names[n++], stat_empty_path, i);
        snprintf(names[n], sizeof names[n], "statx-secret-%d", i);
        add(names[n++], statx_path, i);
        snprintf(names[n], sizeof names[n], "access-secret-%d", i);
        add(names[n++], access_path, i);
    }
    add("open-public-file", open_public, 0);
    add("create-file", create_file, 0);
    add("reopen-reply-pipe-for-writing", open_for_writing, 0);
    add("make-directory", make_directory, 0);
    add("unlink-file", unlink_file, 0);
    add("execve", execute, 0);
    add("execveat-absolute-path", execute_absolute_at, 0);
    add("execveat-memfd", execute_memfd, 0);
    add("clone-process", new_process, 0);
    add("fork", vfork_process, 0);
    add("socket-inet", inet_socket, 0);
    add("socket-unix", unix_socket, 0);
    add("socketpair", socket_pair, 0);
    add("ptrace-parent", ptrace_parent, 0);
    add("signal-parent", signal_parent, 0);
    add("signal-init", signal_init, 0);
    add("read-parent-memory", read_parent_memory, 0);
    add("executable-memory", executable_memory, 0);
    add("raise-cpu-limit", raise_limit, 0);
    add("setuid-root", become_root, 0);
    add("terminal-input", terminal_input, 0);
    add("unshare", new_namespace, 0);
    add("io-uring", io_ring, 0);
    for (int fd = 0; fd <= HIGHEST_FD_TRIED; fd++) {
        if (fd == 1 || fd == 2 || fd == REPLIES)
            continue; /* its printing and its replies: given to it */
        snprintf(names[n], sizeof names[n], "write-fd-%d", fd);
        add(names[n++], write_descriptor, fd);
        snprintf(names[n], sizeof names[n], "dup-fd-%d", fd);
        add(names[n++], duplicate_descriptor, fd);
        snprintf(names[n], sizeof names[n], "dupfd-fd-%d", fd);
        add(names[n++], duplicate_low, fd);
        snprintf(names[n], sizeof names[n], "sendfile-into-fd-%d", fd);
        add(names[n++], send_file_into, fd);
    }
}

/* Reads the request: "START n\n", "SECRET path\n"..., "END\n". */
static int read_request(void)
{
    static char text[16384];
    size_t used = 0;
    while (used < sizeof text - 1 && strstr(text, "END\n") == NULL) {
        ssize_t n = read(REQUESTS, text + used, sizeof text - 1 - used);
        if (n <= 0)
            _exit(2);
        used += (size_t)n;
        text[used] = '\0';
    }
    int start = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strncmp(line, "START ", 6) == 0)
            start = atoi(line + 6);
        else if (strncmp(line, "SECRET ", 7) == 0 && secret_count < MAX_SECRETS)
            secrets[secret_count++] = line + 7;
    }
    return start;
}

int main(void)
{
    int start = read_request();
    list_actions();
    char line[160];
    snprintf(line, sizeof line, "COUNT %d\n", action_count);
    say(line);
    for (int i = start; i < action_count; i++) {
        snprintf(line, sizeof line, "BEGIN %d %s\n", i, actions[i].name);
        say(line);
        errno = 0;
        long result = actions[i].run(actions[i].argument);
        report(i, actions[i].name, result);
        /* so that a later action meets only the descriptors it was given */
        if (result >= 0 && actions[i].makes_fd)
            raw(SYS_close, result, 0, 0, 0, 0);
    }
    say("DONE\n");
    return 0;
}
