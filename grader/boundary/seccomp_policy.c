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
 * POLICY_GUARD, the guarded run's (guard_alloc.c, the kernel's memory
 * check), is POLICY_SERVE with its memory calls narrowed so that nothing
 * the guarded allocator made untouchable can be touched again, and no
 * handler for SIGSEGV or SIGBUS (add_guard_memory_rules).
 *
 * POLICY_VALGRIND is an allowlist too, with the same default (SIGSYS):
 * what valgrind 3.19, its tool and the dynamically linked program were
 * seen to ask under strace (add_valgrind_rules). Valgrind itself opens its
 * tool, the program, the libraries and their debug information, maps code
 * and its own executable heap, and makes (and unlinks) two temporary
 * files, so it may open any file for reading (what the sandbox's user can
 * read), stat, readlink and map executable memory; never make a process or
 * a thread, a socket or a link, nor change a file's mode or owner. Its
 * signals go to itself only, checked by pid, as in every policy. The
 * memory check can only cost points: the grader reads valgrind's report
 * from a socket the program under valgrind cannot reach, never from a
 * file, and the process's printing goes nowhere. Executions, and opens for
 * writing or creating and unlinks, go through the exec gate here too: it
 * lets through the launcher's one execution of its tool and the tool's two
 * temporary files (made, then unlinked), all before the program under
 * test exists, and nothing after: the program under valgrind may read,
 * never write, a file. Graceful refusals where valgrind or the C library
 * must go on: ioctl (ENOTTY: "not a terminal"), openat2 (EACCES), a copy
 * of one of valgrind's reserved descriptors to a low one (EBADF), and
 * sendfile, copy_file_range, splice, tee, vmsplice (EBADF, never run).
 *
 * In every policy a call that acts on a process names the caller itself
 * (add_self_only_signals): kill, tgkill, rt_sigqueueinfo and
 * rt_tgsigqueueinfo with its own pid, prlimit64 with 0 (or its own pid
 * under valgrind); tkill, pidfd_*, process_vm_*, ptrace, kcmp, the
 * scheduler's and I/O priority's setters, fcntl's F_SETOWN and F_SETSIG
 * are not allowed at all.
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
#include <signal.h>
#include <stdbool.h>
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

/* Calls that act on a process: allowed on the caller itself only. The
 * filter is built in spawn.c's child after fork, so its pid (kept by
 * execveat, and valgrind runs the program in the same process) is known:
 * a signal's target must be exactly it. kill(0) and kill(-1) (a group,
 * every process of the uid) fall to the default action. */
static int add_self_only_signals(scmp_filter_ctx ctx)
{
    const scmp_datum_t self = (scmp_datum_t)getpid();
    int rc = 0;
    rc |= ALLOW(ctx, kill, 1, SCMP_A0(SCMP_CMP_EQ, self));
    rc |= ALLOW(ctx, tgkill, 1, SCMP_A0(SCMP_CMP_EQ, self));
    rc |= ALLOW(ctx, rt_sigqueueinfo, 1, SCMP_A0(SCMP_CMP_EQ, self));
    rc |= ALLOW(ctx, rt_tgsigqueueinfo, 1, SCMP_A0(SCMP_CMP_EQ, self));
    return rc;
}

/* POLICY_GUARD's memory (guard_alloc.c): a page may be made untouchable,
 * never touchable again. New mappings only where nothing is mapped (no
 * MAP_FIXED, which could put a page over a guard), no munmap (which would
 * leave a hole a later mapping could fill), no mremap; madvise only to
 * give a freed block's memory back. And no handler for the faults that
 * report a bad access: a SIGSEGV or SIGBUS kills the process. */
static int add_guard_memory_rules(scmp_filter_ctx ctx)
{
    int rc = 0;
    const scmp_datum_t fixed = MAP_FIXED | MAP_FIXED_NOREPLACE;
    rc |= ALLOW(ctx, mmap, 2, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0),
                SCMP_A3(SCMP_CMP_MASKED_EQ, fixed, 0));
    rc |= ALLOW(ctx, mprotect, 1, SCMP_A2(SCMP_CMP_EQ, PROT_NONE));
    rc |= ALLOW(ctx, madvise, 1, SCMP_A2(SCMP_CMP_EQ, MADV_DONTNEED));
    /* The signal is an int: the kernel reads the low 32 bits, so each
     * allowed one is matched on those (a 64-bit comparison would let
     * SIGSEGV with an upper bit set through as "greater than SIGSEGV";
     * libseccomp's SCMP_A0_32 still compares 64 bits). */
    for (scmp_datum_t sig = 1; sig <= 64; sig++)
        if (sig != SIGBUS && sig != SIGSEGV)
            rc |= ALLOW(ctx, rt_sigaction, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, sig));
    return rc;
}

static int add_serve_rules(scmp_filter_ctx ctx, bool guard)
{
    int rc = 0;
    const int plain[] = {
        SCMP_SYS(brk),          SCMP_SYS(exit),            SCMP_SYS(exit_group),
        SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
        SCMP_SYS(sigaltstack),  SCMP_SYS(arch_prctl),      SCMP_SYS(set_tid_address),
        SCMP_SYS(set_robust_list), SCMP_SYS(rseq),         SCMP_SYS(getrandom),
        SCMP_SYS(gettid),       SCMP_SYS(getpid),          SCMP_SYS(fstat),
        SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),   SCMP_SYS(time),
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain[i], 0);
    if (guard) {
        rc |= add_guard_memory_rules(ctx);
    } else {
        const int memory[] = {SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
                              SCMP_SYS(rt_sigaction)};
        for (size_t i = 0; i < sizeof memory / sizeof *memory; i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, memory[i], 0);
        /* Memory, but never executable memory. */
        rc |= ALLOW(ctx, mmap, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
        rc |= ALLOW(ctx, mprotect, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    }
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
    rc |= add_self_only_signals(ctx);
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
        SCMP_SYS(pread64), SCMP_SYS(pwrite64), SCMP_SYS(ftruncate),
    };
    for (size_t i = 0; i < sizeof descriptors / sizeof *descriptors; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, descriptors[i], 0);
    /* gcov's runtime copies, flags and locks its files; never F_SETOWN
     * (SIGIO to a pid of its choice), F_SETSIG or a lease */
    const int commands[] = {F_GETFD, F_SETFD, F_GETFL,  F_SETFL,  F_DUPFD,
                            F_DUPFD_CLOEXEC, F_GETLK, F_SETLK, F_SETLKW};
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        rc |= ALLOW(ctx, fcntl, 1, SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)commands[i]));
    return rc;
}

/* fcntl without F_SETOWN (SIGIO to a pid of its choice), F_SETSIG or
 * leases: what valgrind and the C library ask of their own descriptors.
 * A copy (F_DUPFD) of one of valgrind's reserved descriptors to a low one
 * is refused (spawn.h): valgrind's own moves go up, into the range. */
/* These compare all 64 bits, where the kernel reads a descriptor's low
 * 32: a number with bits above them passes here as a high descriptor.
 * Valgrind, which sees every call first, refuses such a number itself
 * (EBADF: the policy probe's dup2-top-fd-to-low-upper-bits). */
static int add_valgrind_descriptor_rules(scmp_filter_ctx ctx, scmp_datum_t low)
{
    int rc = 0;
    const int plain[] = {F_GETFD, F_SETFD, F_GETFL, F_SETFL};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        rc |= ALLOW(ctx, fcntl, 1, SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)plain[i]));
    const uint32_t refuse = SCMP_ACT_ERRNO(EBADF);
    const int copies[] = {F_DUPFD, F_DUPFD_CLOEXEC};
    for (size_t i = 0; i < sizeof copies / sizeof *copies; i++) {
        scmp_datum_t cmd = (scmp_datum_t)copies[i];
        rc |= ALLOW(ctx, fcntl, 2, SCMP_A0(SCMP_CMP_LT, low), SCMP_A1(SCMP_CMP_EQ, cmd));
        rc |= ALLOW(ctx, fcntl, 3, SCMP_A0(SCMP_CMP_GE, low), SCMP_A1(SCMP_CMP_EQ, cmd),
                    SCMP_A2(SCMP_CMP_GE, low));
        rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(fcntl), 3, SCMP_A0(SCMP_CMP_GE, low),
                               SCMP_A1(SCMP_CMP_EQ, cmd), SCMP_A2(SCMP_CMP_LT, low));
    }
    rc |= ALLOW(ctx, dup, 1, SCMP_A0(SCMP_CMP_LT, low));
    rc |= seccomp_rule_add(ctx, refuse, SCMP_SYS(dup), 1, SCMP_A0(SCMP_CMP_GE, low));
    const int dup_to[] = {SCMP_SYS(dup2), SCMP_SYS(dup3)};
    for (size_t i = 0; i < sizeof dup_to / sizeof *dup_to; i++) {
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, dup_to[i], 1, SCMP_A0(SCMP_CMP_LT, low));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, dup_to[i], 2, SCMP_A0(SCMP_CMP_GE, low),
                               SCMP_A1(SCMP_CMP_GE, low));
        rc |= seccomp_rule_add(ctx, refuse, dup_to[i], 2, SCMP_A0(SCMP_CMP_GE, low),
                               SCMP_A1(SCMP_CMP_LT, low));
    }
    return rc;
}

/* The valgrind policy: what valgrind 3.19 (its launcher, its tool, and the
 * dynamically linked program it runs) was seen to ask, under strace, of
 * the reference, of programs that leak, read out of bounds, free twice,
 * crash, abort, overflow their stack, divide by zero and loop forever; the
 * default kills the process. */
static int add_valgrind_rules(scmp_filter_ctx ctx)
{
    int rc = 0;
    const int plain[] = {
        /* memory (valgrind's JIT and its own heap are executable: see the
         * README on code made at run time) */
        SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap),
        SCMP_SYS(madvise),
        /* descriptors it holds; opening is below */
        SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(pread64), SCMP_SYS(lseek), SCMP_SYS(close),
        SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(fstat),
        /* looking at files the user may read: the tool, the program, the
         * libraries and their debug information */
        SCMP_SYS(statx), SCMP_SYS(newfstatat), SCMP_SYS(stat), SCMP_SYS(lstat),
        SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(readlink),
        SCMP_SYS(readlinkat), SCMP_SYS(getcwd), SCMP_SYS(getxattr),
        /* its own signals, state and identity */
        SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
        SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigpending), SCMP_SYS(rt_sigsuspend),
        SCMP_SYS(sigaltstack), SCMP_SYS(gettid), SCMP_SYS(getpid), SCMP_SYS(getppid),
        SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid),
        /* its groups: valgrind asks before running a program its uid does
         * not own (the student's uid runs the sandbox uid's program) */
        SCMP_SYS(getgroups),
        SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address), SCMP_SYS(set_robust_list),
        SCMP_SYS(rseq), SCMP_SYS(futex), SCMP_SYS(getrandom), SCMP_SYS(sched_yield),
        SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday), SCMP_SYS(time),
        SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep), SCMP_SYS(exit), SCMP_SYS(exit_group),
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain[i], 0);
    rc |= add_self_only_signals(ctx);
    /* its own limits: valgrind reads several and sets its own descriptor
     * limit (a process cannot raise a hard limit, and spawn.c sets each
     * soft limit to the hard one) */
    const scmp_datum_t self = (scmp_datum_t)getpid();
    rc |= ALLOW(ctx, prlimit64, 1, SCMP_A0(SCMP_CMP_EQ, 0));
    rc |= ALLOW(ctx, prlimit64, 1, SCMP_A0(SCMP_CMP_EQ, self));
    /* stdio asks whether fd 1 is a terminal */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 0);
    /* Files are opened for reading only, never made, written, truncated or
     * removed, but for valgrind's own two at start-up (the copies of
     * /proc/self/cmdline and auxv it shows the program, made and unlinked
     * at once): those go through the exec gate, which lets exactly them
     * through. So no disk to fill, no file of the grading's user changed,
     * and nothing left behind. */
    const scmp_datum_t writing = O_ACCMODE | O_CREAT | O_TRUNC;
    rc |= ALLOW(ctx, openat, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, writing, O_RDONLY));
    rc |= ALLOW(ctx, open, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, writing, O_RDONLY));
    const scmp_datum_t notified[][2] = {{O_ACCMODE, O_WRONLY}, {O_ACCMODE, O_RDWR},
                                        {O_ACCMODE, O_ACCMODE}};
    for (size_t i = 0; i < sizeof notified / sizeof *notified; i++) {
        rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
                               SCMP_A2(SCMP_CMP_MASKED_EQ, notified[i][0], notified[i][1]));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1,
                               SCMP_A1(SCMP_CMP_MASKED_EQ, notified[i][0], notified[i][1]));
    }
    /* read-only with O_CREAT or O_TRUNC */
    const scmp_datum_t read_only_making[] = {O_CREAT, O_TRUNC, O_CREAT | O_TRUNC};
    for (size_t i = 0; i < sizeof read_only_making / sizeof *read_only_making; i++) {
        rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1,
                               SCMP_A2(SCMP_CMP_MASKED_EQ, writing, read_only_making[i]));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1,
                               SCMP_A1(SCMP_CMP_MASKED_EQ, writing, read_only_making[i]));
    }
    rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(unlink), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(unlinkat), 0);
    /* glibc tries openat2 nowhere valgrind goes; a graceful refusal */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat2), 0);
    /* valgrind's reserved descriptors (its XML report's socket among them,
     * spawn.c): valgrind refuses the program's write or close of them, but
     * not a copy to a low descriptor. */
    int floor = valgrind_reserved_floor();
    if (floor < 0)
        return -EINVAL;
    rc |= add_valgrind_descriptor_rules(ctx, (scmp_datum_t)floor);
    /* copies between descriptors in the kernel: valgrind checks none of
     * them against its reserved range, and nothing needs them; refused
     * with an error rather than killed, so that the policy probe, which
     * tries them on every descriptor, does not restart valgrind 250 times */
    const int copying[] = {SCMP_SYS(sendfile), SCMP_SYS(copy_file_range), SCMP_SYS(splice),
                           SCMP_SYS(tee), SCMP_SYS(vmsplice)};
    for (size_t i = 0; i < sizeof copying / sizeof *copying; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EBADF), copying[i], 0);
    /* spawn.c's last steps before the execution (close-on-exec descriptors) */
    rc |= ALLOW(ctx, sendmsg, 1, SCMP_A0(SCMP_CMP_EQ, SPAWN_GATE_FD));
    return rc | add_exec_gate(ctx);
}

int seccomp_policy_load(student_policy policy, int *listener)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (ctx == NULL)
        return -ENOMEM;
    int rc;
    if (policy == POLICY_VALGRIND) {
        rc = add_valgrind_rules(ctx);
    } else {
        rc = add_serve_rules(ctx, policy == POLICY_GUARD);
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
