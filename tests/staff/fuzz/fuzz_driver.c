/*
 * fuzz_driver.c - the trusted side of the hostile-student fuzzer, layer A:
 * the grader's boundary (proxy.c, spawn.c, seccomp_policy.c, wire.c and
 * the oracle, linked as the test runners link them) against a student
 * process built from tests/staff/fuzz/'s hostile files, seed after seed.
 *
 * usage: fuzz_driver --server PROGRAM [--seeds A-B | --seed N] [--jobs J]
 * (seeds 1-200 and 8 jobs by default: a seed mostly waits on limits)
 *
 * This file is the parent: each seed runs fuzz_script.c in a child process
 * of its own (so a hang, a crash or a leak of the trusted side is that
 * seed's, and the proxy's state starts fresh), in an empty directory of its
 * own, its figures in shared memory. The parent kills a seed whose call,
 * lab_stub_reached or restart has not returned within HANG_SECONDS, or
 * that gives no verdict within SEED_WALL_CAP (a hang of the trusted side,
 * named), catches processes orphaned to it (it is a child subreaper),
 * checks that the seed's directory is empty afterwards, and prints
 * "FAIL seed N: ..." with how to replay it, then a recap and a summary.
 * The summary requires that the run both credited right answers and
 * refused wrong ones, so the oracle comparison is shown to discriminate.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_seed.h"

static const double HANG_SECONDS = 8.0;   /* one call, lab_stub_reached or restart: a hang */
static const double SEED_WALL_CAP = 60.0; /* a seed without a verdict by then hangs */

unsigned long fuzz_seed;
seed_report *fuzz_report;

double fuzz_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void fuzz_say(const char *format, ...)
{
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line - 1, format, args);
    va_end(args);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    if (write(STDOUT_FILENO, line, (size_t)n) < 0)
        _exit(3);
}

/* ---- the parent: seeds, in parallel, each watched -------------------------- */

typedef struct {
    pid_t pid;
    unsigned long seed;
    double started;
    char dir[4096];
} running_seed;

static seed_report *reports;
static unsigned long first_seed, last_seed;

static bool dir_is_empty(const char *path, char *first, size_t size)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return false;
    struct dirent *e;
    bool empty = true;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(first, size, "%s", e->d_name);
            empty = false;
            break;
        }
    }
    closedir(d);
    return empty;
}

static pid_t start_seed(running_seed *r, unsigned long n, const char *work)
{
    r->seed = n;
    snprintf(r->dir, sizeof r->dir, "%s/seed-%lu", work, n);
    if (mkdir(r->dir, 0700) != 0) {
        perror(r->dir);
        exit(3);
    }
    r->started = fuzz_now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(3);
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        fuzz_seed = n;
        fuzz_report = &reports[n - first_seed];
        /* The student processes print to our stderr: floods go nowhere. */
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDERR_FILENO) < 0 || chdir(r->dir) != 0)
            _exit(3);
        close(null);
        double started = fuzz_now();
        fuzz_run_seed();
        seed_report *s = fuzz_report;
        fuzz_say("seed %lu: %s calls %u answered %u points %u wrong %u; failed: crashed %u, timed out %u, "
                 "over budget %u, malformed %u; restarts %u (%.1f s, of which restarts %.1f s, "
                 "lab_stub_reached %.1f s)",
                 n, s->problems ? "FAIL" : "ok", s->calls, s->answered, s->points, s->wrong,
                 s->failures[PROXY_CRASHED], s->failures[PROXY_TIMED_OUT], s->failures[PROXY_OVER_BUDGET],
                 s->failures[PROXY_MALFORMED_REPLY], s->restarts, fuzz_now() - started, s->restart_seconds,
                 s->stub_seconds);
        _exit(s->problems ? 1 : 0);
    }
    r->pid = pid;
    return pid;
}

/* Ends a seed's child: its verdict, and what it left. */
static bool finish_seed(running_seed *r, int status)
{
    seed_report *s = &reports[r->seed - first_seed];
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (WIFSIGNALED(status) && !s->problems) {
        snprintf(s->first_problem, sizeof s->first_problem, "the driver died of signal %d (%s) during %s",
                 WTERMSIG(status), strsignal(WTERMSIG(status)), s->doing);
        fuzz_say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", r->seed, s->first_problem, r->seed);
    }
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !s->problems) {
        snprintf(s->first_problem, sizeof s->first_problem, "the driver exited with status %d",
                 WEXITSTATUS(status));
        fuzz_say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", r->seed, s->first_problem, r->seed);
    }
    char left[256];
    if (!dir_is_empty(r->dir, left, sizeof left)) {
        if (!s->first_problem[0])
            snprintf(s->first_problem, sizeof s->first_problem, "its directory holds %s afterwards", left);
        fuzz_say("FAIL seed %lu: its directory holds %s afterwards (replay: make fuzz SEEDS=%lu)", r->seed,
            left, r->seed);
        ok = false;
    } else {
        rmdir(r->dir);
    }
    r->pid = 0;
    return ok;
}

/* The children of process `pid` (from /proc). */
static size_t children_of(pid_t pid, pid_t *kids, size_t room)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = 0;
    int kid;
    while (f != NULL && n < room && fscanf(f, "%d", &kid) == 1)
        kids[n++] = kid;
    if (f != NULL)
        fclose(f);
    return n;
}

static void usage(void)
{
    fprintf(stderr, "usage: fuzz_driver --server PROGRAM [--seeds A-B | --seed N] [--jobs J] "
                    "[--policy serve|guard]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *server = NULL;
    const char *policy = "serve"; /* guard: the guarded run's (a server linked with guard_alloc.o) */
    int jobs = 8;
    first_seed = 1, last_seed = 200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--server") == 0 && i + 1 < argc)
            server = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            first_seed = last_seed = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
            char *dash;
            first_seed = strtoul(argv[++i], &dash, 10);
            last_seed = *dash == '-' ? strtoul(dash + 1, NULL, 10) : first_seed;
        } else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
            jobs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "serve") == 0 || strcmp(argv[i + 1], "guard") == 0))
            policy = argv[++i];
        else
            usage();
    }
    if (server == NULL || first_seed == 0 || last_seed < first_seed || jobs < 1 || jobs > 16 ||
        last_seed - first_seed > 100000)
        usage();
    if (access(server, X_OK) != 0) {
        fprintf(stderr, "fuzz_driver: %s: %s\n", server, strerror(errno));
        return 2;
    }
    char server_path[4096];
    if (realpath(server, server_path) == NULL)
        return 2;
    setenv("GRADER_SERVER", server_path, 1);
    setenv("GRADER_POLICY", policy, 1);
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%.2f", FUZZ_CALL_SECONDS);
    setenv("GRADER_CALL_SECONDS", seconds, 1);
    setenv("GRADER_CPU_SECONDS", "1", 1);
    unsetenv("GRADER_REPORT");
    unsetenv("GRADER_SIDE_FD");
    /* Processes orphaned by a seed come to us, so none goes unnoticed. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    size_t count = last_seed - first_seed + 1;
    reports = mmap(NULL, count * sizeof *reports, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (reports == MAP_FAILED)
        return 3;
    const char *tmp = getenv("TMPDIR");
    char work_path[2048];
    snprintf(work_path, sizeof work_path, "%s/grundy-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(work_path) == NULL) {
        perror(work_path);
        return 3;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    double started = fuzz_now();
    running_seed slots[16] = {{0}};
    unsigned long next = first_seed, failed = 0, finished = 0;
    unsigned long stray = 0;
    while (finished < count) {
        for (int j = 0; j < jobs && next <= last_seed; j++)
            if (slots[j].pid == 0)
                start_seed(&slots[j], next++, work_path);
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            int j = 0;
            while (j < jobs && slots[j].pid != pid)
                j++;
            if (j == jobs) {
                /* Not a seed's child: a process a seed left behind. */
                stray++;
                fuzz_say("FAIL: process %d outlived the seed that started it (seeds running: %lu, %lu)",
                    (int)pid, slots[0].seed, jobs > 1 ? slots[1].seed : 0);
                continue;
            }
            failed += !finish_seed(&slots[j], status);
            finished++;
            continue;
        }
        for (int j = 0; j < jobs; j++) {
            seed_report *s = slots[j].pid != 0 ? &reports[slots[j].seed - first_seed] : NULL;
            bool stuck = s != NULL && s->doing_since > 0 && fuzz_now() - s->doing_since > HANG_SECONDS;
            if (s != NULL && (stuck || fuzz_now() - slots[j].started > SEED_WALL_CAP)) {
                if (stuck)
                    snprintf(s->first_problem, sizeof s->first_problem,
                             "the trusted side hangs: %s has not returned in %.0f s", s->doing,
                             HANG_SECONDS);
                else
                    snprintf(s->first_problem, sizeof s->first_problem,
                             "no verdict within %.0f s (last: %s)", SEED_WALL_CAP, s->doing);
                s->problems++;
                fuzz_say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", slots[j].seed, s->first_problem,
                    slots[j].seed);
                /* Its student process is the hang's, not a stray: killed
                 * with it, and reaped once it comes to us. */
                pid_t kids[16];
                size_t n = children_of(slots[j].pid, kids, 16);
                kill(slots[j].pid, SIGKILL);
                for (size_t k = 0; k < n; k++)
                    kill(kids[k], SIGKILL);
                waitpid(slots[j].pid, &status, 0);
                for (size_t k = 0; k < n; k++)
                    waitpid(kids[k], NULL, 0);
                finish_seed(&slots[j], status);
                failed++;
                finished++;
            }
        }
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    /* Anything still ours now was left behind. */
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        stray++;
        fuzz_say("FAIL: process %d was left behind by the run", (int)pid);
    }
    if (pid == 0) {
        stray++;
        fuzz_say("FAIL: a process the run started is still running");
    }
    rmdir(work_path);
    unsigned long calls = 0, points = 0, wrong = 0, kinds[PROXY_FAILURE_KINDS] = {0};
    for (size_t i = 0; i < count; i++) {
        calls += reports[i].calls, points += reports[i].points, wrong += reports[i].wrong;
        for (int k = 0; k < PROXY_FAILURE_KINDS; k++)
            kinds[k] += reports[i].failures[k];
    }
    /* The recap: every failing seed once, with its first problem. */
    if (failed > 0) {
        fuzz_say("failing seeds, each with its first problem (replay one: make fuzz SEEDS=N, or "
            "fuzz_driver --server PROGRAM --seed N):");
        for (size_t i = 0; i < count; i++)
            if (reports[i].first_problem[0])
                fuzz_say("  FAIL seed %lu: %s", first_seed + i, reports[i].first_problem);
    }
    bool discriminates = count < 20 || (points > 0 && wrong > 0);
    if (!discriminates)
        fuzz_say("FAIL: over %zu seeds the oracle credited %lu answers and refused %lu: the hostile "
            "student's wrong answers or its honest ones never reached the comparison",
            count, points, wrong);
    fuzz_say("fuzz: %zu seeds (%lu-%lu), %lu failed, %lu stray processes; %lu calls, %lu points, %lu wrong "
        "answers refused; failed calls: crashed %lu, timed out %lu, over budget %lu, malformed %lu, "
        "not started %lu, internal error %lu; %.1f s",
        count, first_seed, last_seed, failed, stray, calls, points, wrong, kinds[PROXY_CRASHED],
        kinds[PROXY_TIMED_OUT], kinds[PROXY_OVER_BUDGET], kinds[PROXY_MALFORMED_REPLY],
        kinds[PROXY_NOT_STARTED], kinds[PROXY_INTERNAL_ERROR], fuzz_now() - started);
    return failed == 0 && stray == 0 && discriminates ? 0 : 1;
}
