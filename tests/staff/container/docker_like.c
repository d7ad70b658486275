/*
 * docker_like.c - runs a command the way Docker's default seccomp profile
 * would let it run: what makes namespaces or mounts answers EPERM.
 *
 * Gradescope runs the autograder as root in an unprivileged Docker
 * container, where bubblewrap cannot make its namespaces and the grader
 * cannot mount its scratch tmpfs: it falls back to rlimits, seccomp and a
 * uid of its own. Dropping CAP_SYS_ADMIN alone does not show that here
 * (bubblewrap then still gets its namespaces through a user namespace), so
 * this wrapper applies the part of Docker's profile that matters: unshare,
 * setns, mount, umount, pivot_root and clone with any namespace flag fail
 * with EPERM, clone3 with ENOSYS (glibc then falls back to clone, as it
 * does under Docker). It also keeps only the capabilities of Docker's
 * default set (DOCKER_CAPS: no CAP_SYS_PTRACE, CAP_SYS_ADMIN,
 * CAP_SYS_RESOURCE, CAP_DAC_READ_SEARCH...), in the bounding, permitted,
 * effective and inheritable sets, so that the grader is tried with what a
 * container's root really holds. Used with capsh, which runs a shell
 * command under it:
 *
 *     docker_like capsh --drop=cap_sys_admin,cap_net_admin -- -c 'COMMAND'
 *
 * The filter is inherited by everything the command starts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const unsigned long NAMESPACE_FLAGS[] = {CLONE_NEWNS,  CLONE_NEWUSER, CLONE_NEWPID,
                                                CLONE_NEWNET, CLONE_NEWUTS,  CLONE_NEWIPC,
                                                CLONE_NEWCGROUP};

static int load_filter(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL)
        return -ENOMEM;
    const int refused[] = {SCMP_SYS(unshare), SCMP_SYS(setns),  SCMP_SYS(mount),
                           SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(open_tree),
                           SCMP_SYS(move_mount), SCMP_SYS(fsopen)};
    int rc = 0;
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), refused[i], 0);
    for (size_t i = 0; i < sizeof NAMESPACE_FLAGS / sizeof *NAMESPACE_FLAGS; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                               SCMP_A0(SCMP_CMP_MASKED_EQ, NAMESPACE_FLAGS[i], NAMESPACE_FLAGS[i]));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc;
}

/* Docker's default capabilities (moby's oci/caps/defaults.go). */
static const int DOCKER_CAPS[] = {CAP_CHOWN,      CAP_DAC_OVERRIDE, CAP_FSETID,  CAP_FOWNER,
                                  CAP_MKNOD,      CAP_NET_RAW,      CAP_SETGID,  CAP_SETUID,
                                  CAP_SETFCAP,    CAP_SETPCAP,      CAP_NET_BIND_SERVICE,
                                  CAP_SYS_CHROOT, CAP_KILL,         CAP_AUDIT_WRITE};

static bool docker_cap(int cap)
{
    for (size_t i = 0; i < sizeof DOCKER_CAPS / sizeof *DOCKER_CAPS; i++)
        if (DOCKER_CAPS[i] == cap)
            return true;
    return false;
}

/* Leaves only DOCKER_CAPS in every set (the bounding set first: it needs
 * CAP_SETPCAP, which Docker's set keeps). */
static int keep_docker_caps(void)
{
    __u32 keep[2] = {0, 0};
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
        if (docker_cap(cap))
            keep[cap / 32] |= 1u << (cap % 32);
        else if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
            return -errno;
    }
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0)
        return -errno;
    for (int i = 0; i < 2; i++) {
        data[i].effective &= keep[i];
        data[i].permitted &= keep[i];
        data[i].inheritable &= keep[i];
    }
    return syscall(SYS_capset, &header, data) == 0 ? 0 : -errno;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    int rc = keep_docker_caps();
    if (rc != 0) {
        fprintf(stderr, "docker_like: cannot keep to Docker's capabilities: %s\n", strerror(-rc));
        return 125;
    }
    rc = load_filter();
    if (rc != 0) {
        fprintf(stderr, "docker_like: cannot load the filter: %s\n", strerror(-rc));
        return 125;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "docker_like: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
