/*
 * gcov_on_crash.c - keeps the coverage of tests that crash.
 *
 * gcov writes its counters when a process exits normally; a student
 * process killed by a signal would lose them, and with them the lines that
 * led to the crash. Linked into the coverage build of a student program
 * only (coverage earns no points, so it may run beside the submission),
 * this installs handlers that dump the counters and then die of the same
 * signal. SIGKILL, which the proxy sends to a student process that does not
 * return, cannot be caught: a test that hangs adds no coverage, and the
 * coverage phase runs only tests that passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>

void __gcov_dump(void);

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
