/*
 * policy_probe_student.c - a student process that tries every forbidden
 * thing, for policy_probe.c.
 *
 * Linked and started exactly as a submission's program is (spawn.c, the
 * same policies), but instead of serving the API it works through a list
 * of actions a hostile submission would try: open, stat or execute a file,
 * make a process, a socket or a file, reach another process, write to a
 * descriptor it was not given, map executable memory, raise a limit,
 * touch a page the guarded run made untouchable (guard-*). For
 * each it writes "BEGIN i NAME" and then "i NAME RESULT" to the reply pipe
 * (fd 4), RESULT being "allowed" or "denied ERRNO"; an action that kills
 * the process (SIGSYS) leaves its BEGIN line alone, and the trusted side
 * starts a new process from the next action.
 *
 * First come the calls that act on a process (signals of every kind,
 * pidfd, process_vm_*, ptrace, prlimit64, kcmp, the scheduler's setters,
 * F_SETOWN), each aimed at its parent (the runner), a sibling student
 * process and itself; a call no policy may let through at all reports
 * "allowed(reached-the-kernel...)" whenever it returns.
 *
 * It reads, from the request pipe (fd 3), the index to start from and the
 * paths of the grader's secrets to try ("START n", then "SECRET path"
 * lines, "PARENT pid", "SIBLING pid", then "END"; "TARGETS-ONLY" for the control,
 * which runs it without a filter): it cannot read its arguments or environment any more
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
/* The processes a call that acts on a process is aimed at: the runner
 * (its parent), another student process of the same grading (its sibling,
 * whose pid the trusted side sends) and itself. */
enum { PARENT, SIBLING, SELF, TARGETS };
static const char *const target_names[TARGETS] = {"parent", "sibling", "self"};
static long target_pids[TARGETS];
static bool targets_only; /* the control: only the actions on processes */

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
    int argument; /* a descriptor, a secret's index or a target */
    bool makes_fd; /* a success returns a new descriptor, closed at once */
    /* no policy lets the call reach the kernel, for any target: that it
     * returned at all, whatever it returned, is what is reported */
    bool must_die;
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
/* The guarded run's promise (guard_alloc.c): a page made untouchable
 * stays so. Each action makes such a page (two calls every policy
 * allows), then tries one way of touching it again; a setup that fails
 * reports EFAULT ("denied"); the serving policy, which lets each one
 * through, is the control (grader/policy-probe checks it). */
static long untouchable_page(void)
{
    long page = syscall(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page < 0 || raw(SYS_mprotect, page, 4096, PROT_NONE, 0, 0) != 0) {
        errno = EFAULT;
        return -1;
    }
    return page;
}
static long guard_mprotect(int prot)
{
    long page = untouchable_page();
    return page < 0 ? page : raw(SYS_mprotect, page, 4096, prot, 0, 0);
}
static long guard_pkey_mprotect(int prot)
{
    long page = untouchable_page();
    return page < 0 ? page : raw(SYS_pkey_mprotect, page, 4096, prot, -1, 0);
}
static long guard_munmap(int unused)
{
    (void)unused;
    long page = untouchable_page();
    return page < 0 ? page : raw(SYS_munmap, page, 4096, 0, 0, 0);
}
static long guard_mremap(int unused)
{
    (void)unused;
    long page = untouchable_page();
    return page < 0 ? page : raw(SYS_mremap, page, 4096, 8192, MREMAP_MAYMOVE, 0);
}
static long guard_map_over(int flags)
{
    long page = untouchable_page();
    return page < 0 ? page
                    : syscall(SYS_mmap, page, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags,
                              -1, 0);
}
static long guard_madvise(int advice)
{
    long page = untouchable_page();
    return page < 0 ? page : raw(SYS_madvise, page, 4096, advice, 0, 0);
}
static long guard_handler(int sig)
{
    struct {
        void *handler;
        unsigned long flags;
        void *restorer;
        unsigned long mask;
    } action = {(void *)SIG_IGN, 0, NULL, 0};
    return raw(SYS_rt_sigaction, sig, (long)&action, 0, 8, 0);
}
/* The same with bits above the int the kernel reads: a filter that
 * compares all 64 bits of an int argument is fooled by them. */
static long guard_handler_upper_bits(int sig)
{
    struct {
        void *handler;
        unsigned long flags;
        void *restorer;
        unsigned long mask;
    } action = {(void *)SIG_IGN, 0, NULL, 0};
    return raw(SYS_rt_sigaction, (long)((1UL << 32) | (unsigned)sig), (long)&action, 0, 8, 0);
}
/* A copy of the top descriptor (under valgrind: its XML report's socket,
 * spawn.c) to a low one, the new descriptor's number with bits above the
 * int the kernel reads. */
static long dup2_top_upper_bits(int unused)
{
    (void)unused;
    struct rlimit limit;
    if (raw(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&limit, 0) != 0)
        return -1;
    return raw(SYS_dup2, (long)limit.rlim_cur - 1, (long)((1UL << 32) | 9), 0, 0, 0);
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


/* Calls that act on another process, each aimed at target_pids[t]; a
 * signal is 0 (the kernel's permission check, no signal sent), a limit set
 * is RLIMIT_CORE to 0, a write goes to address 0: nothing here harms a
 * target that the policy lets it reach, and the probe still sees it. */
static long signal_kill(int t) { return raw(SYS_kill, target_pids[t], 0, 0, 0, 0); }
static long signal_tgkill(int t) { return raw(SYS_tgkill, target_pids[t], target_pids[t], 0, 0, 0); }
static long signal_tkill(int t) { return raw(SYS_tkill, target_pids[t], 0, 0, 0, 0); }
static long queue_info(int t, bool thread)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_code = SI_QUEUE;
    info.si_pid = (pid_t)getpid();
    return thread ? raw(SYS_rt_tgsigqueueinfo, target_pids[t], target_pids[t], 0, (long)&info, 0)
                  : raw(SYS_rt_sigqueueinfo, target_pids[t], 0, (long)&info, 0, 0);
}
static long signal_queue(int t) { return queue_info(t, false); }
static long signal_tgqueue(int t) { return queue_info(t, true); }
static long open_pidfd(int t) { return raw(SYS_pidfd_open, target_pids[t], 0, 0, 0, 0); }
static long vm_read(int t)
{
    char buffer[8];
    struct iovec local = {buffer, sizeof buffer}, remote = {buffer, sizeof buffer};
    return raw(SYS_process_vm_readv, target_pids[t], (long)&local, 1, (long)&remote, 1);
}
static long vm_write(int t)
{
    char buffer[8] = {0};
    struct iovec local = {buffer, sizeof buffer}, remote = {NULL, sizeof buffer};
    return raw(SYS_process_vm_writev, target_pids[t], (long)&local, 1, (long)&remote, 1);
}
static long trace_attach(int t) { return raw(SYS_ptrace, 16 /* PTRACE_ATTACH */, target_pids[t], 0, 0, 0); }
static long limit_get(int t)
{
    struct rlimit old;
    return raw(SYS_prlimit64, target_pids[t], RLIMIT_CORE, 0, (long)&old, 0);
}
static long limit_set(int t)
{
    struct rlimit none = {0, 0};
    return raw(SYS_prlimit64, target_pids[t], RLIMIT_CORE, (long)&none, 0, 0);
}
static long compare_files(int t) { return raw(SYS_kcmp, target_pids[t], getpid(), 0 /* KCMP_FILE */, 0, 0); }
static long set_affinity(int t)
{
    unsigned long mask = ~0UL;
    return raw(SYS_sched_setaffinity, target_pids[t], sizeof mask, (long)&mask, 0, 0);
}
static long set_scheduler(int t)
{
    int param = 0;
    return raw(SYS_sched_setscheduler, target_pids[t], 0 /* SCHED_OTHER */, (long)&param, 0, 0);
}
static long set_priority(int t) { return raw(SYS_setpriority, 0 /* PRIO_PROCESS */, target_pids[t], 19, 0, 0); }
static long set_io_priority(int t) { return raw(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, target_pids[t], 0, 0, 0); }
static long move_pages_of(int t) { return raw(SYS_move_pages, target_pids[t], 0, 0, 0, 0); }
static long robust_list_of(int t)
{
    void *head;
    size_t length;
    return raw(SYS_get_robust_list, target_pids[t], (long)&head, (long)&length, 0, 0);
}
static long sigio_owner(int t) { return raw(SYS_fcntl, REQUESTS, F_SETOWN, target_pids[t], 0, 0); }
static long signal_group(int unused)
{
    (void)unused;
    return raw(SYS_kill, 0, 0, 0, 0, 0);
}
static long signal_everyone(int unused)
{
    (void)unused;
    return raw(SYS_kill, -1, 0, 0, 0, 0);
}
static long pidfd_signal(int unused)
{
    (void)unused;
    return raw(SYS_pidfd_send_signal, REQUESTS, 0, 0, 0, 0);
}
static long pidfd_copy(int unused)
{
    (void)unused;
    return raw(SYS_pidfd_getfd, REQUESTS, 0, 0, 0, 0);
}
static long sigio_signal(int unused)
{
    (void)unused;
    return raw(SYS_fcntl, REQUESTS, 10 /* F_SETSIG */, SIGKILL, 0, 0);
}

/* The actions, in order; the first few take each secret, the descriptor
 * writes each descriptor a submission was not given. */
static action actions[1200];
static int action_count;

static void add_action(const char *name, long (*run)(int), int argument, bool must_die)
{
    static const char *const making_fds[] = {"open-", "create-", "reopen-", "socket", "dup-", "dupfd-"};
    bool makes_fd = false;
    for (size_t i = 0; i < sizeof making_fds / sizeof *making_fds; i++)
        makes_fd |= strncmp(name, making_fds[i], strlen(making_fds[i])) == 0;
    if (action_count < (int)(sizeof actions / sizeof *actions))
        actions[action_count++] = (action){name, run, argument, makes_fd, must_die};
}

static void add(const char *name, long (*run)(int), int argument)
{
    add_action(name, run, argument, false);
}

/* Every call that acts on a process, on each target. */
static void list_process_actions(void)
{
    static const struct {
        const char *name;
        long (*run)(int);
        bool must_die;
    } calls[] = {
        {"kill", signal_kill, false},           {"tgkill", signal_tgkill, false},
        {"rt_sigqueueinfo", signal_queue, false}, {"rt_tgsigqueueinfo", signal_tgqueue, false},
        {"prlimit64-get", limit_get, false},     {"prlimit64-set", limit_set, false},
        {"tkill", signal_tkill, true},           {"pidfd_open", open_pidfd, true},
        {"process_vm_readv", vm_read, true},     {"process_vm_writev", vm_write, true},
        {"ptrace-attach", trace_attach, true},   {"kcmp", compare_files, true},
        {"sched_setaffinity", set_affinity, true}, {"sched_setscheduler", set_scheduler, true},
        {"setpriority", set_priority, true},     {"ioprio_set", set_io_priority, true},
        {"move_pages", move_pages_of, true},     {"get_robust_list", robust_list_of, true},
        {"fcntl-setown", sigio_owner, true},
    };
    static char names[TARGETS * sizeof calls / sizeof *calls][64];
    /* the control runs without a filter: only the harmless first five
     * (signal 0, reading a limit), never an attach or a priority */
    size_t count = targets_only ? 5 : sizeof calls / sizeof *calls;
    int n = 0;
    for (int t = 0; t < TARGETS; t++)
        for (size_t i = 0; i < count; i++) {
            snprintf(names[n], sizeof names[n], "%s-%s", calls[i].name, target_names[t]);
            add_action(names[n++], calls[i].run, t, calls[i].must_die);
        }
    if (targets_only)
        return;
    add("kill-own-group", signal_group, 0);
    add("kill-every-process", signal_everyone, 0);
    add_action("pidfd_send_signal", pidfd_signal, 0, true);
    add_action("pidfd_getfd", pidfd_copy, 0, true);
    add_action("fcntl-setsig", sigio_signal, 0, true);
}

static void list_actions(void)
{
    list_process_actions();
    if (targets_only)
        return;
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
    add("guard-mprotect-read", guard_mprotect, PROT_READ);
    add("guard-mprotect-read-write", guard_mprotect, PROT_READ | PROT_WRITE);
    add("guard-pkey-mprotect-read", guard_pkey_mprotect, PROT_READ);
    add("guard-munmap", guard_munmap, 0);
    add("guard-mremap", guard_mremap, 0);
    add("guard-mmap-fixed-over", guard_map_over, MAP_FIXED);
    add("guard-mmap-fixed-noreplace", guard_map_over, MAP_FIXED_NOREPLACE);
    add("guard-madvise-free", guard_madvise, MADV_FREE);
    add("guard-handler-sigsegv", guard_handler, SIGSEGV);
    add("guard-handler-sigbus", guard_handler, SIGBUS);
    add("guard-handler-sigsegv-upper-bits", guard_handler_upper_bits, SIGSEGV);
    add("dup2-top-fd-to-low-upper-bits", dup2_top_upper_bits, 0);
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
        else if (strncmp(line, "PARENT ", 7) == 0)
            target_pids[PARENT] = atol(line + 7);
        else if (strncmp(line, "SIBLING ", 8) == 0)
            target_pids[SIBLING] = atol(line + 8);
        else if (strcmp(line, "TARGETS-ONLY") == 0)
            targets_only = true;
    }
    return start;
}

int main(void)
{
    int start = read_request();
    target_pids[SELF] = getpid(); /* the parent's comes with the request: getppid is not allowed */
    list_actions();
    char line[160];
    snprintf(line, sizeof line, "COUNT %d\n", action_count);
    say(line);
    for (int i = start; i < action_count; i++) {
        snprintf(line, sizeof line, "BEGIN %d %s\n", i, actions[i].name);
        say(line);
        errno = 0;
        long result = actions[i].run(actions[i].argument);
        if (actions[i].must_die && !(result < 0 && errno == ENOSYS)) {
            /* it returned: the filter let it through (ENOSYS is valgrind's
             * or the exec gate's answer, not the kernel's) */
            snprintf(line, sizeof line, "%d %s allowed(reached-the-kernel:%s)\n", i, actions[i].name,
                     result < 0 && strerrorname_np(errno) ? strerrorname_np(errno) : "0");
            say(line);
            continue;
        }
        report(i, actions[i].name, result);
        /* so that a later action meets only the descriptors it was given */
        if (result >= 0 && actions[i].makes_fd)
            raw(SYS_close, result, 0, 0, 0, 0);
    }
    say("DONE\n");
    return 0;
}
