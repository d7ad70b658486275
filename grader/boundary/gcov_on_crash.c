/*
 * gcov_on_crash.c - gcov's runtime in a student process that opens no file.
 *
 * Linked into the coverage build of a student program only (coverage earns
 * no points). Two jobs:
 *
 * - The counter files. A student process may open nothing (seccomp), so
 *   spawn.c opens the counter files (.gcda) it names in $GRADER_GCOV_FILES
 *   and hands them over as descriptors from SPAWN_FIRST_GCOV_FD on. The
 *   program is linked with --wrap=open,--wrap=mkdir,--wrap=access, so
 *   gcov's runtime, asking for one of those paths, gets a new descriptor of
 *   the file spawn opened, rewound; any other path fails. The program can
 *   then write two files of at most RLIMIT_FSIZE bytes, and only its own
 *   counters: nothing on disk beside them, and no file of the grader's.
 * - Tests that crash. gcov writes its counters when a process exits
 *   normally; a student process killed by a signal would lose them, and
 *   with them the lines that led to the crash. Handlers dump the counters
 *   and then die of the same signal. SIGKILL, which the proxy sends to a
 *   student process that does not return, cannot be caught: a test that
 *   hangs adds no coverage, and the coverage phase runs only tests that
 *   passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn.h"

void __gcov_dump(void);

/* The index of `path` in $GRADER_GCOV_FILES, or -1. */
static int counter_file_index(const char *path)
{
    const char *list = getenv("GRADER_GCOV_FILES");
    size_t length = strlen(path);
    for (int index = 0; list != NULL && *list != '\0' && index < SPAWN_MAX_GCOV_FILES; index++) {
        const char *end = strchr(list, ':');
        size_t entry = end != NULL ? (size_t)(end - list) : strlen(list);
        if (entry == length && strncmp(list, path, length) == 0)
            return index;
        if (end == NULL)
            break;
        list = end + 1;
    }
    return -1;
}

int __wrap_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
    (void)flags;
    int index = counter_file_index(path);
    if (index < 0) {
        errno = EACCES;
        return -1;
    }
    int fd = fcntl(SPAWN_FIRST_GCOV_FD + index, F_DUPFD_CLOEXEC, 0);
    if (fd >= 0)
        lseek(fd, 0, SEEK_SET);
    return fd;
}

int __wrap_mkdir(const char *path, mode_t mode);
int __wrap_mkdir(const char *path, mode_t mode)
{
    (void)path;
    (void)mode;
    errno = EEXIST;
    return -1;
}

int __wrap_access(const char *path, int mode);
int __wrap_access(const char *path, int mode)
{
    (void)mode;
    if (counter_file_index(path) >= 0)
        return 0;
    errno = ENOENT;
    return -1;
}

static void dump_and_die(int sig)
{
    __gcov_dump();
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void)
{
    const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPROF, SIGXCPU, SIGTERM};
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = dump_and_die;
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
        sigaction(fatal[i], &action, NULL);
}
