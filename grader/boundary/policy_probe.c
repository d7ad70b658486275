/*
 * policy_probe.c - proves what a student process can reach, by trying.
 *
 * usage: policy_probe serve|coverage|valgrind|guard PROGRAM [--secret PATH]...
 *                     [--content PATH]...
 *
 * Starts PROGRAM (policy_probe_student.c, linked as a submission's program
 * is) with spawn.c under the policy named, hands it the paths to try, and
 * reads what each of its actions got: allowed, denied (errno), or the
 * process killed. A killed process is started again from the next action,
 * so every action is tried. Prints one line per action,
 *
 *     MODE ACTION RESULT ok|VIOLATION
 *
 * and exits 1 when any action a submission must not be able to do was
 * allowed. What a policy allows by design is in `allowed_by_design`: under
 * valgrind, reading public files (valgrind opens the libraries), executable
 * memory (valgrind's JIT), and copies of its own /dev/null and request
 * pipe (also under gcov, whose runtime takes its files that way); in every
 * policy but the guarded run's, touching again a page it made untouchable
 * (the guard-* actions: its memory is its own there). A
 * --secret may be neither opened nor stat'ed, in any policy; a --content
 * path (the probes, execute-only for the sandbox's user; /etc/shadow) may
 * be stat'ed under valgrind (its name and size are no secret), never
 * opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grader_limits.h"
#include "spawn.h"

enum { MAX_PATHS = 16, MAX_ACTIONS = 1200 };

static const char *mode_name;
static student_policy policy;
static const char *paths[MAX_PATHS];
static bool content_only[MAX_PATHS];
static int path_count;
static int violations;
/* Another student process of the same policy, alive for the whole run:
 * the sibling a process-acting call is aimed at. */
static pid_t sibling = -1;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* What `policy` lets a student process do on purpose (see the header). */
static bool allowed_by_design(const char *action)
{
    /* signals to itself, in every policy (abort() raises SIGABRT) */
    static const char *const own[] = {"kill-self", "tgkill-self", "rt_sigqueueinfo-self",
                                      "rt_tgsigqueueinfo-self"};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strcmp(action, own[i]) == 0)
            return true;
    /* gcov's runtime takes its counter files as copies of descriptors
     * (gcov_on_crash.c): a copy of its own /dev/null or request pipe
     * reaches nothing new */
    /* a page made untouchable stays so only where the guarded run's
     * verdict rests on it (POLICY_GUARD); elsewhere the program's own
     * memory is its own */
    if (policy != POLICY_GUARD && starts_with(action, "guard-"))
        return true;
    if (policy == POLICY_COVERAGE)
        return strcmp(action, "dupfd-fd-0") == 0 || strcmp(action, "dupfd-fd-3") == 0;
    if (policy != POLICY_VALGRIND)
        return false;
    static const char *const valgrind[] = {"open-public-file", "executable-memory", "dup-fd-0",
                                           "dup-fd-3", "dupfd-fd-0", "dupfd-fd-3",
                                           /* valgrind reads its own limits */
                                           "prlimit64-get-self", "prlimit64-set-self"};
    for (size_t i = 0; i < sizeof valgrind / sizeof *valgrind; i++)
        if (strcmp(action, valgrind[i]) == 0)
            return true;
    /* "stat-secret-3" of a --content path: its name and size are no
     * secret, its bytes are */
    int index;
    if ((sscanf(action, "stat-secret-%d", &index) == 1 || sscanf(action, "statx-secret-%d", &index) == 1 ||
         sscanf(action, "stat-empty-path-secret-%d", &index) == 1) &&
        index >= 0 && index < path_count && content_only[index])
        return true;
    return false;
}

static void verdict(const char *action, const char *result, bool allowed)
{
    bool bad = allowed && !allowed_by_design(action);
    violations += bad;
    printf("%s %s %s %s\n", mode_name, action, result, bad ? "VIOLATION" : "ok");
}

/* Reads one line of the student's replies before `deadline` into `line`,
 * answering the exec gate meanwhile; false at end of file, on error or
 * when time ran out. */
static bool read_line(student_process *student, char *line, size_t size, double deadline)
{
    size_t used = 0;
    int fd = student->replies;
    while (used < size - 1) {
        double left = deadline - now();
        struct pollfd p[2] = {{fd, POLLIN, 0}, {student->gate, POLLIN, 0}};
        if (left <= 0 || poll(p, 2, (int)(left * 1000) + 1) < 1)
            return false;
        if (p[1].revents & POLLIN)
            student_gate_serve(student); /* valgrind's start-up, or the probe's attempts */
        else if (p[1].revents)
            student_gate_close(student); /* the process is gone: nobody left to ask */
        if (!p[0].revents)
            continue;
        char c;
        ssize_t n = read(fd, &c, 1);
        if (n <= 0)
            return false;
        if (c == '\n')
            break;
        line[used++] = c;
    }
    line[used] = '\0';
    return true;
}

static const char *death(int status, char *text, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(text, size, "killed-%s", sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    else
        snprintf(text, size, "ended-%d", WEXITSTATUS(status));
    return text;
}

/* Runs the program from action `start`; returns the action to start from
 * next, or -1 when every action has been tried. */
static int run_from(const char *program, int start, int *count)
{
    student_spawn_options options = {.server = program, .policy = policy, .cpu_seconds = 20,
                                     .address_space = policy == POLICY_VALGRIND ? 0 : (size_t)GRADER_STUDENT_ADDRESS_SPACE_MIB << 20,
                                     .output_fd = -1};
    student_process student;
    char error[512];
    if (!student_spawn(&student, &options, error, sizeof error)) {
        fprintf(stderr, "policy_probe: the student program did not start: %s\n", error);
        exit(2);
    }
    char request[16384];
    size_t used = (size_t)snprintf(request, sizeof request, "START %d\n", start);
    for (int i = 0; i < path_count; i++)
        used += (size_t)snprintf(request + used, sizeof request - used, "SECRET %s\n", paths[i]);
    used += (size_t)snprintf(request + used, sizeof request - used, "PARENT %d\nSIBLING %d\nEND\n", (int)getpid(), (int)sibling);
    if (write(student.requests, request, used) != (ssize_t)used) {
        fprintf(stderr, "policy_probe: cannot send the request\n");
        exit(2);
    }
    double deadline = now() + (policy == POLICY_VALGRIND ? 60 : 20);
    char line[1024], name[512], result[128], begun_name[512] = "";
    int begun = -1, next = -1;
    bool done = false;
    while (read_line(&student, line, sizeof line, deadline)) {
        int index;
        if (sscanf(line, "COUNT %d", count) == 1)
            continue;
        if (sscanf(line, "BEGIN %d %511s", &index, begun_name) == 2) {
            begun = index;
            continue;
        }
        if (strcmp(line, "DONE") == 0) {
            done = true;
            break;
        }
        if (sscanf(line, "%d %511s %127[^\n]", &index, name, result) == 3 && index == begun) {
            verdict(name, result, starts_with(result, "allowed"));
            begun = -1;
        }
    }
    kill(student.pid, SIGKILL);
    int status = 0;
    while (waitpid(student.pid, &status, 0) < 0 && errno == EINTR)
        ;
    student_gate_close(&student);
    close(student.requests);
    close(student.replies);
    if (student.valgrind_xml >= 0)
        close(student.valgrind_xml);
    if (done)
        return -1;
    if (begun < 0) {
        fprintf(stderr, "policy_probe: the student program stopped between actions (%s)\n",
                death(status, result, sizeof result));
        exit(2);
    }
    /* The action in progress ended the process: killed by the filter
     * (denied), or, if it ended normally, something replaced it. */
    char text[64];
    death(status, text, sizeof text);
    bool replaced = WIFEXITED(status) && WEXITSTATUS(status) == 0; /* /bin/true's */
    verdict(begun_name, replaced ? "allowed(the-process-was-replaced)" : text, replaced);
    next = begun + 1;
    return next < *count ? next : -1;
}

/* The sibling: the same program under the same policy, which waits for a
 * request that never comes (under valgrind it may wait in its start-up's
 * file events, which nobody answers: alive all the same). */
static void start_sibling(const char *program)
{
    student_spawn_options options = {.server = program, .policy = policy, .cpu_seconds = 600,
                                     .output_fd = -1};
    student_process student;
    char error[512];
    if (!student_spawn(&student, &options, error, sizeof error)) {
        fprintf(stderr, "policy_probe: the sibling did not start: %s\n", error);
        exit(2);
    }
    sibling = student.pid;
}

/* The controls: the same program, without spawn.c (no filter), tries the
 * calls on processes. As the runner's own uid it must reach its parent and
 * the sibling, or the probe could not tell a reachable target from an
 * unreachable one. Where the grader gives student processes a uid of
 * their own (GRADER_STUDENT_UID), a second control runs as that uid: it
 * still reaches the sibling (a student process like itself) but never the
 * parent, the runner, though no filter stands in the way: a call the
 * policies missed would not reach the runner either. */
static bool control(const char *program, bool as_student)
{
    int requests[2], replies[2];
    if (pipe(requests) != 0 || pipe(replies) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(requests[0], 3);
        dup2(replies[1], 4);
        if (as_student && spawn_become_student_uid() != 0)
            _exit(126);
        execl(program, "policy-probe-control", (char *)NULL);
        _exit(127);
    }
    close(requests[0]);
    close(replies[1]);
    char request[128];
    int length = snprintf(request, sizeof request, "START 0\nPARENT %d\nSIBLING %d\nTARGETS-ONLY\nEND\n", (int)getpid(), (int)sibling);
    bool sent = write(requests[1], request, (size_t)length) == length;
    FILE *answers = fdopen(replies[0], "r");
    char line[512];
    int parent = 0, other = 0;
    while (sent && answers != NULL && fgets(line, sizeof line, answers) != NULL) {
        char name[128], result[128];
        int index;
        if (sscanf(line, "%d %127s %127s", &index, name, result) != 3 || !starts_with(result, "allowed"))
            continue;
        if (strcmp(name, "kill-parent") == 0 || strcmp(name, "prlimit64-get-parent") == 0)
            parent++;
        if (strcmp(name, "kill-sibling") == 0 || strcmp(name, "prlimit64-get-sibling") == 0)
            other++;
    }
    if (answers != NULL)
        fclose(answers);
    close(requests[1]);
    waitpid(pid, NULL, 0);
    /* As the runner's uid beside a student uid, the sibling is another
     * uid's: only the runner's CAP_KILL reaches it, not prlimit64, so the
     * student-uid control is the one that shows the sibling reachable. */
    bool own_uid = getenv("GRADER_STUDENT_UID") == NULL;
    bool ok = as_student ? parent == 0 && other == 2 : parent == 2 && (other == 2 || !own_uid);
    if (as_student)
        printf("%s control (no filter, the student's uid %s): %d of 2 calls reached the parent, "
               "%d of 2 the sibling %s\n", mode_name, getenv("GRADER_STUDENT_UID"), parent, other,
               ok ? "ok" : "CONTROL-FAILED");
    else
        printf("%s control (no filter): %d of 2 calls reached the parent, %d of 2 the sibling %s\n",
               mode_name, parent, other, ok ? "ok" : "CONTROL-FAILED");
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s serve|coverage|valgrind|guard PROGRAM [--secret PATH]... [--content PATH]...\n",
                argv[0]);
        return 2;
    }
    mode_name = argv[1];
    policy = strcmp(mode_name, "valgrind") == 0   ? POLICY_VALGRIND
             : strcmp(mode_name, "coverage") == 0 ? POLICY_COVERAGE
             : strcmp(mode_name, "guard") == 0    ? POLICY_GUARD
                                                  : POLICY_SERVE;
    for (int i = 3; i + 1 < argc && path_count < MAX_PATHS; i += 2) {
        content_only[path_count] = strcmp(argv[i], "--content") == 0;
        paths[path_count++] = argv[i + 1];
    }
    signal(SIGPIPE, SIG_IGN);
    start_sibling(argv[2]);
    if (!control(argv[2], false))
        return 1;
    if (getenv("GRADER_STUDENT_UID") != NULL && !control(argv[2], true))
        return 1;
    int count = MAX_ACTIONS, start = 0, runs = 0;
    while (start >= 0 && runs++ < MAX_ACTIONS)
        start = run_from(argv[2], start, &count);
    kill(sibling, SIGKILL);
    while (waitpid(sibling, NULL, 0) < 0 && errno == EINTR)
        ;
    printf("%s: %d violation%s\n", mode_name, violations, violations == 1 ? "" : "s");
    return violations == 0 ? 0 : 1;
}
