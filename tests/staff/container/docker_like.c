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
 * does under Docker). Used with capsh to drop the capabilities:
 *
 *     docker_like capsh --drop=cap_sys_admin,cap_net_admin -- -c 'COMMAND'
 *
 * The filter is inherited by everything the command starts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    int rc = load_filter();
    if (rc != 0) {
        fprintf(stderr, "docker_like: cannot load the filter: %s\n", strerror(-rc));
        return 125;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "docker_like: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
