/*
 * seccomp_policy.c - what a student process may ask of the kernel.
 *
 * POLICY_SERVE, the policy of every native run (the suites and the timing
 * probe), is an allowlist of what serving the API needs and nothing else;
 * any other system call kills the process (SIGSYS):
 *   - memory: brk, mmap/mprotect without PROT_EXEC (no code can be made at
 *     run time), munmap, mremap, madvise;
 *   - its inherited pipes: read from fd 3, write to fds 1, 2 and 4 (and
 *     writev to 1 and 2, which glibc's heap-corruption message uses), fstat
 *     of an open descriptor;
 *   - ending: exit, exit_group, and signals to itself only (abort() raises
 *     SIGABRT with tgkill on its own pid);
 *   - what static glibc's start-up asks for (arch_prctl, set_tid_address,
 *     set_robust_list, rseq, reading its own limits, getrandom) and
 *     rt_sigaction/rt_sigprocmask/sigaltstack, which change nothing outside
 *     the process;
 *   - readlink, ioctl and newfstatat are answered with an error without
 *     being run (start-up asks for /proc/self/exe, stdio asks whether fd 1
 *     is a terminal and how large a buffer it wants): a path is a pointer
 *     the filter cannot read, so no call that takes one ever runs;
 *   - execve and execveat go to spawn.c's exec gate (user notification),
 *     which lets spawn's own execution through and then closes: every
 *     later one fails with ENOSYS, whatever path or descriptor it names.
 * No open, no stat of a path, no fork or clone, no kill of another
 * process, no socket, no ptrace, no execution, no file system change.
 *
 * POLICY_COVERAGE adds what gcov's runtime needs to write its counter
 * files at exit, on descriptors only (read, write, lseek, fcntl locks,
 * ftruncate, close): spawn.c opens the two counter files and hands them
 * over (gcov_on_crash.c), so the process still opens, stats and creates
 * nothing. Coverage earns no points.
 *
 * POLICY_VALGRIND is a denylist: valgrind itself opens its tool, the
 * program and the libraries, maps code, executes its tool binary, and
 * makes (and unlinks) temporary files, so an allowlist cannot hold it. It
 * denies what could reach beyond the process: new processes, signals to
 * others, ptrace and cross-process memory, sockets, links, renames,
 * special files and permission changes. The memory check can only cost
 * points: the grader reads valgrind's report from a pipe that the program
 * under valgrind cannot reach, never from a file, and the process's
 * printing goes nowhere. Executions, and opens for writing and unlinks, go
 * through the exec gate here too: it lets through the launcher's one
 * execution of its tool and the tool's two temporary files (made, then
 * unlinked), all before the program under test exists, and nothing after:
 * the program under valgrind may read, never write, a file.
 *
 * Between loading the filter and executing, spawn.c's child writes to its
 * error pipe and sends the gate's descriptor on its socket: both are
 * close-on-exec, so the rules for them name descriptors that no longer
 * exist once the program runs (and that a serving process cannot make).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spawn.h"
#include "wire.h"

#define ALLOW(ctx, name, ...) seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(name), __VA_ARGS__)

/* Every execution asks spawn.c's exec gate (see spawn.c). */
static int add_exec_gate(scmp_filter_ctx ctx)
{
    return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execveat), 0) |
           seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execve), 0);
}

static int add_serve_rules(scmp_filter_ctx ctx)
{
    int rc = 0;
    const int plain[] = {
        SCMP_SYS(brk),          SCMP_SYS(munmap),          SCMP_SYS(mremap),
        SCMP_SYS(madvise),      SCMP_SYS(exit),            SCMP_SYS(exit_group),
        SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigaction),    SCMP_SYS(rt_sigprocmask),
        SCMP_SYS(sigaltstack),  SCMP_SYS(arch_prctl),      SCMP_SYS(set_tid_address),
        SCMP_SYS(set_robust_list), SCMP_SYS(rseq),         SCMP_SYS(getrandom),
        SCMP_SYS(gettid),       SCMP_SYS(getpid),          SCMP_SYS(fstat),
        SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),   SCMP_SYS(time),
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain[i], 0);
    /* Memory, but never executable memory. */
    rc |= ALLOW(ctx, mmap, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    rc |= ALLOW(ctx, mprotect, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    /* Its own pipes only. */
    rc |= ALLOW(ctx, read, 1, SCMP_A0(SCMP_CMP_EQ, WIRE_REQUEST_FD));
    rc |= ALLOW(ctx, write, 1, SCMP_A0(SCMP_CMP_EQ, 1));
    rc |= ALLOW(ctx, write, 1, SCMP_A0(SCMP_CMP_EQ, 2));
    /* glibc's last words before abort() ("free(): double free detected")
     * are one writev to fd 2: without it a heap bug would die of SIGSYS and
     * be told as a forbidden system call instead of SIGABRT. */
    rc |= ALLOW(ctx, writev, 1, SCMP_A0(SCMP_CMP_EQ, 1));
    rc |= ALLOW(ctx, writev, 1, SCMP_A0(SCMP_CMP_EQ, 2));
    rc |= ALLOW(ctx, write, 1, SCMP_A0(SCMP_CMP_EQ, WIRE_REPLY_FD));
    /* Reading its own limits, never setting them. */
    rc |= ALLOW(ctx, prlimit64, 2, SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0));
    /* Signals to itself (the pid is kept by execveat). */
    pid_t self = getpid();
    rc |= ALLOW(ctx, tgkill, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    rc |= ALLOW(ctx, kill, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(readlink), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(newfstatat), 0);
    /* spawn.c's last steps before the execution (close-on-exec descriptors) */
    rc |= ALLOW(ctx, write, 1, SCMP_A0(SCMP_CMP_EQ, SPAWN_ERROR_FD));
    rc |= ALLOW(ctx, sendmsg, 1, SCMP_A0(SCMP_CMP_EQ, SPAWN_GATE_FD));
    return rc | add_exec_gate(ctx);
}

static int add_coverage_rules(scmp_filter_ctx ctx)
{
    int rc = 0;
    /* Descriptors only: the process holds its pipes and the counter files
     * spawn.c opened for it, and can open nothing else. */
    const int descriptors[] = {
        SCMP_SYS(close), SCMP_SYS(read),  SCMP_SYS(write),    SCMP_SYS(lseek),
        SCMP_SYS(fcntl), SCMP_SYS(pread64), SCMP_SYS(pwrite64), SCMP_SYS(ftruncate),
    };
    for (size_t i = 0; i < sizeof descriptors / sizeof *descriptors; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, descriptors[i], 0);
    return rc;
}

static int add_valgrind_denials(scmp_filter_ctx ctx)
{
    int rc = 0;
    const int denied[] = {
        SCMP_SYS(fork),        SCMP_SYS(vfork),       SCMP_SYS(clone3),
        SCMP_SYS(ptrace),      SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
        SCMP_SYS(socket),      SCMP_SYS(socketpair),  SCMP_SYS(connect),
        SCMP_SYS(bind),        SCMP_SYS(listen),      SCMP_SYS(accept),
        SCMP_SYS(accept4),     SCMP_SYS(sendto),
        SCMP_SYS(rename),
        SCMP_SYS(renameat),    SCMP_SYS(renameat2),   SCMP_SYS(link),
        SCMP_SYS(linkat),      SCMP_SYS(symlink),     SCMP_SYS(symlinkat),
        SCMP_SYS(mknod),       SCMP_SYS(mknodat),     SCMP_SYS(mkdir),
        SCMP_SYS(mkdirat),     SCMP_SYS(rmdir),       SCMP_SYS(chmod),
        SCMP_SYS(fchmod),      SCMP_SYS(fchmodat),    SCMP_SYS(chown),
        SCMP_SYS(fchown),      SCMP_SYS(fchownat),    SCMP_SYS(lchown),
        SCMP_SYS(truncate),    SCMP_SYS(creat),       SCMP_SYS(mount),
        SCMP_SYS(umount2),     SCMP_SYS(unshare),     SCMP_SYS(setns),
        SCMP_SYS(bpf),         SCMP_SYS(perf_event_open), SCMP_SYS(keyctl),
        SCMP_SYS(add_key),     SCMP_SYS(request_key), SCMP_SYS(io_uring_setup),
        SCMP_SYS(userfaultfd), SCMP_SYS(kcmp),        SCMP_SYS(pidfd_open),
        SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd), SCMP_SYS(tkill),
        SCMP_SYS(setpriority), SCMP_SYS(sched_setaffinity), SCMP_SYS(setrlimit),
        SCMP_SYS(memfd_create), SCMP_SYS(inotify_init1), SCMP_SYS(fanotify_init),
    };
    for (size_t i = 0; i < sizeof denied / sizeof *denied; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, denied[i], 0);
    pid_t self = getpid();
    /* valgrind signals itself, never another process */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(kill), 1,
                           SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(tgkill), 1,
                           SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(sendmsg), 1,
                           SCMP_A0(SCMP_CMP_NE, SPAWN_GATE_FD));
    /* Files are opened for reading only, never made, written, truncated or
     * removed, but for valgrind's own two at start-up (the copies of
     * /proc/self/cmdline and auxv it shows the program, made and unlinked
     * at once): those go through the exec gate, which lets exactly them
     * through. So no disk to fill, no file of the grading's user changed,
     * and nothing left behind. */
    const scmp_datum_t writing[][2] = {{O_ACCMODE, O_WRONLY}, {O_ACCMODE, O_RDWR},
                                       {O_CREAT, O_CREAT},     {O_TRUNC, O_TRUNC}};
    for (size_t i = 0; i < sizeof writing / sizeof *writing; i++) {
        rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
                               SCMP_A2(SCMP_CMP_MASKED_EQ, writing[i][0], writing[i][1]));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1,
                               SCMP_A1(SCMP_CMP_MASKED_EQ, writing[i][0], writing[i][1]));
    }
    rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(unlink), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(unlinkat), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat2), 0);
    /* clone only for threads sharing the address space, never a new process */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_VM, 0));
    /* valgrind's reserved descriptors (its XML report's socket among them,
     * spawn.c): valgrind refuses the program's write or close of them, but
     * not a copy to a low descriptor, nor sendfile or copy_file_range into
     * one, nor AIO. Its own moves go up (F_DUPFD with a minimum inside the
     * range). */
    int floor = valgrind_reserved_floor();
    if (floor < 0)
        return -EINVAL;
    const scmp_datum_t low = (scmp_datum_t)floor;
    const uint32_t refuse = SCMP_ACT_ERRNO(EBADF);
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(dup), 1, SCMP_A0(SCMP_CMP_GE, low));
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(dup2), 2, SCMP_A0(SCMP_CMP_GE, low),
                           SCMP_A1(SCMP_CMP_LT, low));
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(dup3), 2, SCMP_A0(SCMP_CMP_GE, low),
                           SCMP_A1(SCMP_CMP_LT, low));
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(fcntl), 3, SCMP_A0(SCMP_CMP_GE, low),
                           SCMP_A1(SCMP_CMP_EQ, F_DUPFD), SCMP_A2(SCMP_CMP_LT, low));
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(fcntl), 3, SCMP_A0(SCMP_CMP_GE, low),
                           SCMP_A1(SCMP_CMP_EQ, F_DUPFD_CLOEXEC), SCMP_A2(SCMP_CMP_LT, low));
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(sendfile), 1, SCMP_A0(SCMP_CMP_GE, low));
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(copy_file_range), 1, SCMP_A2(SCMP_CMP_GE, low));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(io_setup), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(io_submit), 0);
    return rc;
}

int seccomp_policy_load(student_policy policy, int *listener)
{
    scmp_filter_ctx ctx = seccomp_init(policy == POLICY_VALGRIND ? SCMP_ACT_ALLOW
                                                                 : SCMP_ACT_KILL_PROCESS);
    if (ctx == NULL)
        return -ENOMEM;
    int rc;
    if (policy == POLICY_VALGRIND) {
        rc = add_valgrind_denials(ctx) | add_exec_gate(ctx);
    } else {
        rc = add_serve_rules(ctx);
        if (policy == POLICY_COVERAGE)
            rc |= add_coverage_rules(ctx);
    }
    if (rc == 0)
        rc = seccomp_load(ctx);
    if (rc == 0) {
        *listener = seccomp_notify_fd(ctx);
        if (*listener < 0)
            rc = *listener;
    }
    seccomp_release(ctx);
    return rc < 0 ? rc : rc > 0 ? -EINVAL : 0;
}
