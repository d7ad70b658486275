/*
 * fuzz_driver.c - the trusted side of the hostile-student fuzzer, layer A:
 * the grader's boundary (proxy.c, spawn.c, seccomp_policy.c, wire.c and
 * the oracle, linked as the test runners link them) against a student
 * process built from tests/staff/fuzz/'s hostile files, one seed at a time.
 *
 * usage: fuzz_driver --server PROGRAM [--seeds A-B | --seed N] [--jobs J]
 * (seeds 1-200 and 4 jobs by default: a seed mostly waits on limits)
 *
 * Each seed runs in a child process of its own (so a hang, a crash or a
 * leak of the trusted side is that seed's, and the proxy's state starts
 * fresh), in an empty directory of its own. The child runs a fixed script
 * that reaches every operation of grundy.h, with its arguments drawn from
 * the seed, and tells the student process the seed as its first call
 * (hostile_engine.h). A failed call ends the script's current step: the
 * proxy reports it here (proxy_report_failure longjmps back), the runners'
 * failure path asks lab_stub_reached, and proxy_restart starts the next
 * step with a fresh student process. For every call and every step it
 * asserts:
 *   - the call returned or failed within GRADER_CALL_SECONDS + GRACE;
 *     proxy_restart within the shutdown grace + GRACE;
 *   - a returned position is well formed (a size no larger than the
 *     entries the proxy allocated), and only then is it compared;
 *   - after proxy_restart no child process is left (waitpid says ECHILD);
 *   - the driver's own memory stays under MEMORY_CAP;
 *   - its directory holds nothing afterwards (checked by the parent).
 * "Points": an answer earns one only when it equals the oracle's (or the
 * script's own model of the position); the summary requires that the run
 * both credited right answers and refused wrong ones, so the comparison is
 * shown to discriminate.
 * The parent kills a seed that gives no verdict within SEED_WALL_CAP
 * (a hang of the trusted side), catches processes orphaned to it (it is a
 * child subreaper), and prints "FAIL seed N: ..." with how to replay it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grundy.h"
#include "oracle.h"
#include "proxy.h"
#include "wire.h"

/* The counts the proxy defines for the suites (lab_support.h's). */
size_t alloc_live_blocks(void);
uint64_t expansions(void);
void expansions_reset(void);
const char *lab_stub_reached(size_t i);

static const double CALL_SECONDS = 0.25;  /* GRADER_CALL_SECONDS of every call */
static const double CPU_BUDGET = 0.15;    /* the timing probe's control, on some steps */
static const double GRACE = 1.5;          /* past the limit, on a shared 2-core machine */
static const double SHUTDOWN_GRACE = 1.0; /* proxy_shutdown's wait for a plain student process */
static const double HANG_SECONDS = 8.0;   /* one call, lab_stub_reached or restart: a hang */
static const double SEED_WALL_CAP = 60.0; /* a seed without a verdict by then hangs */
static const long MEMORY_CAP = 160L << 20; /* the driver's resident memory */
enum { ROUNDS = 1, MAX_FAILURES = 4 }; /* one round reaches every operation */

/* ---- what a seed reports to the parent (shared memory) -------------------- */

typedef struct {
    unsigned calls, answered, points, wrong, restarts;
    unsigned failures[PROXY_NOT_STARTED + 1]; /* by proxy_failure kind */
    unsigned problems;                         /* assertions that failed */
    double restart_seconds, stub_seconds;      /* where a seed's time goes */
    char doing[160];                           /* the call in progress, for a hang */
    double doing_since;                        /* when it started (CLOCK_MONOTONIC) */
    char first_problem[400];                   /* for the recap at the end */
    int done;
} seed_report;

static seed_report *report; /* this seed's slot */
static unsigned long seed;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One line on stdout in one write, so parallel seeds do not interleave. */
__attribute__((format(printf, 1, 2))) static void say(const char *format, ...)
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

__attribute__((format(printf, 1, 2))) static void problem(const char *format, ...)
{
    char text[700];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (report->problems == 0)
        memcpy(report->first_problem, text, sizeof report->first_problem - 1);
    if (report->problems++ < MAX_FAILURES)
        say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", seed, text, seed);
}

/* ---- the proxy's hooks -------------------------------------------------- */

static jmp_buf call_failed;
static proxy_failure failure_kind;
static char failure_message[2048];

_Noreturn void proxy_report_failure(proxy_failure kind, const char *message)
{
    failure_kind = kind;
    snprintf(failure_message, sizeof failure_message, "%s", message);
    longjmp(call_failed, 1);
}

void proxy_note_figure(const char *figure)
{
    (void)figure; /* the driver gives no point for a figure */
}

/* The sequence number of the last request the proxy wrote (the driver is
 * linked with --wrap=write, below the proxy's own writing, whatever it
 * uses): the announcement tells the student process its own, so that it
 * can forge a reply the proxy would accept. A write that starts with a
 * request header (an operation, a length that fits) is taken as one; the
 * rest of a request written in pieces starts with handles and counts,
 * whose second word is 0, never an operation. */
ssize_t __real_write(int fd, const void *data, size_t size);
static uint32_t last_sequence;

ssize_t __wrap_write(int fd, const void *data, size_t size)
{
    wire_header header;
    if (fd > STDERR_FILENO && size >= sizeof header) {
        memcpy(&header, data, sizeof header);
        if (header.op != 0 && header.op < 1000 && header.length <= WIRE_MAX_PAYLOAD)
            last_sequence = header.sequence;
    }
    return __real_write(fd, data, size);
}

/* ---- calls, timed --------------------------------------------------------- */

/* What the seed is doing now, for the parent's watchdog. */
__attribute__((format(printf, 1, 2))) static void doing(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(report->doing, sizeof report->doing, format, args);
    va_end(args);
    report->doing_since = now();
}

static double call_started;
static const char *call_name;
static double call_allowance; /* wall seconds this call may take */

static void begin(const char *name)
{
    call_name = name;
    call_started = now();
    call_allowance = CALL_SECONDS + GRACE;
    report->calls++;
    doing("%s", name);
}

static void end(void)
{
    double took = now() - call_started;
    if (took > call_allowance)
        problem("%s returned after %.2f s, past its limit of %.2f s + %.1f s", call_name, took,
                CALL_SECONDS, GRACE);
    report->answered++;
}

/* ---- the script's model of a position: its heights >= 3, sorted ---------- */

typedef struct {
    int heights[64];
    size_t n;
} model;

static void model_add(model *m, int height)
{
    if (height < 3 || m->n == 64)
        return;
    size_t i = m->n;
    while (i > 0 && m->heights[i - 1] > height) {
        m->heights[i] = m->heights[i - 1];
        i--;
    }
    m->heights[i] = height;
    m->n++;
}

static void model_remove(model *m, int height)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->heights[i] == height) {
            memmove(&m->heights[i], &m->heights[i + 1], (m->n - i - 1) * sizeof *m->heights);
            m->n--;
            return;
        }
}

static int model_count(const model *m, int height)
{
    int count = 0;
    for (size_t i = 0; i < m->n; i++)
        count += m->heights[i] == height;
    return count;
}

/* A position the proxy returned must be well formed whatever the student
 * process sent: its entries, when there are any, are the proxy's own
 * allocation and hold `size` entries. */
static bool well_formed(const grundy_position *p, const char *what)
{
    if (p == NULL || p->entries == NULL)
        return true;
    if (malloc_usable_size(p->entries) < p->size * sizeof(heap_count)) {
        problem("%s: the proxy accepted a position of size %zu whose entries hold %zu bytes", what,
                p->size, malloc_usable_size(p->entries));
        return false;
    }
    return true;
}

/* Whether the student's position holds exactly the model's heaps (the
 * heap-count map of the sorted heights). */
static bool same_heaps(const grundy_position *p, const int *heights, size_t n, const char *what)
{
    if (p == NULL || !well_formed(p, what) || (p->entries == NULL && p->size > 0))
        return false;
    size_t entry = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && heights[j] == heights[i])
            j++;
        if (entry >= p->size || p->entries[entry].height != heights[i] ||
            p->entries[entry].count != (int)(j - i))
            return false;
        entry++;
        i = j;
    }
    return entry == p->size;
}

/* A point only for an answer equal to what the oracle or the model says. */
static void award(bool equal_to_expected)
{
    if (equal_to_expected)
        report->points++;
    else
        report->wrong++;
}

/* ---- the script ------------------------------------------------------------ */

static unsigned long rng;

static int draw(int low, int high)
{
    rng = rng * 6364136223846793005UL + 1442695040888963407UL;
    return low + (int)((rng >> 33) % (unsigned long)(high - low + 1));
}

/* The positions the script holds: freeing one forgets every alias of it
 * (the student may hand out the same position twice). */
static grundy_position *held[4];
static model held_model[4];
static bool announced;

static void drop(const grundy_position *p)
{
    for (size_t i = 0; i < 4; i++)
        if (p != NULL && held[i] == p)
            held[i] = NULL;
}

static grundy_position *new_position(int height)
{
    begin("grundy_new");
    grundy_position *p = grundy_new(height);
    end();
    return p;
}

static void free_position(grundy_position *p)
{
    begin("grundy_free");
    grundy_free(p);
    end();
    drop(p);
}

/* The first call of every student process: the seed, and this request's
 * sequence number (hostile_engine.h). */
static void announce(void)
{
    uint32_t a = (uint32_t)((seed % 65535) << 15) | ((last_sequence + 1) & 0x7fff);
    int height = -(int)a - 16; /* a < 2^31 - 32768: no overflow */
    grundy_position *empty = new_position(height);
    award(same_heaps(empty, NULL, 0, "grundy_new (the announcement)"));
    announced = true;
    if (empty != NULL)
        free_position(empty);
}

/* held[0]: the script's position, built when missing. */
static grundy_position *position(void)
{
    if (!announced)
        announce();
    if (held[0] == NULL) {
        model *m = &held_model[0];
        int first = m->n > 0 ? m->heights[0] : draw(-2, 16);
        held[0] = new_position(first);
        model built = {{0}, 0};
        model_add(&built, first);
        award(same_heaps(held[0], built.heights, built.n, "grundy_new"));
        for (size_t i = 1; i < m->n; i++) {
            begin("grundy_add_heap");
            grundy_add_heap(held[0], m->heights[i]);
            end();
            model_add(&built, m->heights[i]);
            award(same_heaps(held[0], built.heights, built.n, "grundy_add_heap"));
        }
        *m = built;
    }
    return held[0];
}

static void step_build(void)
{
    held_model[0] = (model){{0}, 0};
    if (held[0] != NULL)
        free_position(held[0]);
    grundy_position *p = position();
    for (int k = draw(1, 3); k > 0; k--) {
        int height = draw(-1, 12);
        begin("grundy_add_heap");
        grundy_add_heap(p, height);
        end();
        model_add(&held_model[0], height);
        award(same_heaps(p, held_model[0].heights, held_model[0].n, "grundy_add_heap"));
    }
}

static void step_count(void)
{
    grundy_position *p = position();
    for (int k = 0; k < 2; k++) {
        int height = k == 0 && held_model[0].n > 0 ? held_model[0].heights[0] : draw(3, 20);
        begin("grundy_count");
        int count = grundy_count(p, height);
        end();
        award(count == model_count(&held_model[0], height));
    }
}

static void step_copy(void)
{
    grundy_position *p = position();
    model *m = &held_model[0];
    begin("grundy_copy");
    grundy_position *c = grundy_copy(p);
    end();
    held[1] = c;
    award(c != p && same_heaps(c, m->heights, m->n, "grundy_copy"));
    begin("grundy_equals");
    bool same = grundy_equals(p, c);
    end();
    award(same);
    begin("grundy_hash");
    uint64_t hp = grundy_hash(p);
    end();
    begin("grundy_hash");
    uint64_t hc = grundy_hash(c);
    end();
    award(hp == hc);
    int height = draw(3, 15);
    begin("grundy_add_heap");
    grundy_add_heap(c, height);
    end();
    begin("grundy_equals");
    same = grundy_equals(p, c);
    end();
    award(!same);
    begin("grundy_remove_heap");
    grundy_remove_heap(c, height);
    end();
    award(same_heaps(c, m->heights, m->n, "grundy_remove_heap"));
    if (held[1] != NULL)
        free_position(held[1]);
}

/* The moves against the oracle's, as sets of canonical positions. */
static void step_moves(void)
{
    grundy_position *p = position();
    model *m = &held_model[0];
    begin("grundy_get_moves");
    position_list *moves = grundy_get_moves(p);
    end();
    oracle_move_list *want = oracle_moves(m->heights, m->n);
    bool right = moves != NULL && moves->size == want->count;
    for (size_t i = 0; moves != NULL && i < moves->size; i++)
        if (!well_formed(moves->items[i], "grundy_get_moves"))
            right = false;
    for (size_t i = 0; right && i < want->count; i++) {
        bool found = false;
        for (size_t j = 0; j < moves->size && !found; j++)
            found = same_heaps(moves->items[j], want->positions[i], want->lengths[i], "a move");
        right = found;
    }
    oracle_move_list_free(want);
    award(right);
    if (moves != NULL) {
        for (size_t i = 0; i < moves->size; i++)
            drop(moves->items[i]); /* an alias of a held position goes with the list */
        begin("position_list_free");
        position_list_free(moves);
        end();
    }
}

static void step_solve(void)
{
    grundy_position *p = position();
    model *m = &held_model[0];
    bool is_p = oracle_is_p(m->heights, m->n);
    bool budgeted = draw(0, 2) == 0;
    proxy_set_cpu_budget(budgeted ? CPU_BUDGET : 0);
    begin("grundy_is_terminal");
    bool terminal = grundy_is_terminal(p);
    end();
    award(terminal == (m->n == 0));
    begin("grundy_is_p_position");
    bool p_answer = grundy_is_p_position(p);
    end();
    award(p_answer == is_p);
    begin("grundy_is_n_position");
    bool n_answer = grundy_is_n_position(p);
    end();
    award(n_answer == !is_p);
    proxy_set_cpu_budget(0);
}

static void step_memo(void)
{
    begin("grundy_memo_size");
    (void)grundy_memo_size();
    end();
    begin("grundy_memo_clear");
    grundy_memo_clear();
    end();
    begin("grundy_memo_size");
    size_t size = grundy_memo_size();
    end();
    award(size == 0);
}

static void step_counts(void)
{
    if (!announced)
        announce();
    begin("expansions_reset");
    expansions_reset();
    end();
    begin("expansions");
    (void)expansions();
    end();
    begin("alloc_live_blocks");
    (void)alloc_live_blocks();
    end();
}

static void step_remove(void)
{
    grundy_position *p = position();
    model *m = &held_model[0];
    int height = m->n > 0 ? m->heights[m->n - 1] : 5;
    for (int k = 0; k < 2; k++) {
        begin("grundy_remove_heap");
        grundy_remove_heap(p, height);
        end();
        model_remove(m, height);
        award(same_heaps(p, m->heights, m->n, "grundy_remove_heap"));
        height = draw(20, 30); /* then one it does not hold */
    }
}

static void step_big_moves(void)
{
    if (!announced)
        announce();
    int height = draw(60, 200);
    grundy_position *q = new_position(height);
    held[2] = q;
    begin("grundy_get_moves");
    position_list *moves = grundy_get_moves(q);
    end();
    oracle_move_list *want = oracle_moves(&height, 1);
    award(moves != NULL && moves->size == want->count);
    oracle_move_list_free(want);
    for (size_t i = 0; moves != NULL && i < moves->size; i++) {
        well_formed(moves->items[i], "grundy_get_moves");
        drop(moves->items[i]);
    }
    begin("position_list_free");
    position_list_free(moves);
    end();
    if (held[2] != NULL)
        free_position(held[2]);
}

static void step_free(void)
{
    if (held[0] != NULL)
        free_position(held[0]);
}

typedef struct {
    const char *name;
    void (*run)(void);
} step;

static const step script[] = {
    {"build", step_build}, {"count", step_count},   {"copy", step_copy},
    {"moves", step_moves}, {"solve", step_solve},   {"memo", step_memo},
    {"counts", step_counts}, {"remove", step_remove}, {"big moves", step_big_moves},
    {"free", step_free},
};

/* ---- one seed, in a child process ---------------------------------------- */

static long resident_bytes(void)
{
    long size = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (statm != NULL) {
        if (fscanf(statm, "%ld %ld", &size, &resident) != 2)
            resident = 0;
        fclose(statm);
    }
    return resident * sysconf(_SC_PAGESIZE);
}

/* After proxy_restart: no student process may be left, running or
 * unreaped. */
static void check_no_child(const char *when)
{
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0)
        problem("a student process is still running %s", when);
    else if (pid > 0)
        problem("a student process (pid %d) was left unreaped %s", (int)pid, when);
    else if (errno != ECHILD)
        problem("waitpid failed %s: %s", when, strerror(errno));
}

static void restart(const char *when)
{
    doing("proxy_restart %s", when);
    double started = now();
    proxy_restart(0);
    double took = now() - started;
    report->restart_seconds += took;
    if (took > SHUTDOWN_GRACE + GRACE)
        problem("proxy_restart %s took %.2f s, past the shutdown grace of %.1f s + %.1f s", when, took,
                SHUTDOWN_GRACE, GRACE);
    check_no_child(when);
    memset(held, 0, sizeof held);
    announced = false;
    report->restarts++;
}

static void run_seed(void)
{
    rng = seed * 0x9e3779b97f4a7c15UL + 1;
    static volatile size_t at; /* the step, across the longjmp */
    for (int round = 0; round < ROUNDS; round++) {
        for (at = 0; at < sizeof script / sizeof *script; at++) {
            if (setjmp(call_failed) == 0) {
                script[at].run();
                continue;
            }
            /* A call failed: in time, and reported, as a test would. */
            double took = now() - call_started;
            report->failures[failure_kind]++;
            if (took > call_allowance)
                problem("%s failed (%s) after %.2f s, past its limit of %.2f s + %.1f s", call_name,
                        failure_message, took, CALL_SECONDS, GRACE);
            proxy_set_cpu_budget(0);
            /* The runners' failure message asks which stubs were reached. */
            doing("lab_stub_reached after %s failed (%.100s)", call_name, failure_message);
            double asked = now();
            if (setjmp(call_failed) == 0)
                (void)lab_stub_reached(0);
            report->stub_seconds += now() - asked;
            if (now() - asked > 2.0 + GRACE)
                problem("lab_stub_reached after a failed %s took %.2f s (the call: %s)", call_name,
                        now() - asked, failure_message);
            char when[96];
            snprintf(when, sizeof when, "after step %s failed", script[at].name);
            restart(when);
        }
        if (resident_bytes() > MEMORY_CAP)
            problem("the driver holds %ld MiB after round %d", resident_bytes() >> 20, round + 1);
    }
    restart("at the end");
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    if (usage.ru_maxrss * 1024L > MEMORY_CAP)
        problem("the driver's memory peaked at %ld MiB", usage.ru_maxrss / 1024);
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
    r->started = now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(3);
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        seed = n;
        report = &reports[n - first_seed];
        /* The student processes print to our stderr: floods go nowhere. */
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDERR_FILENO) < 0 || chdir(r->dir) != 0)
            _exit(3);
        close(null);
        double started = now();
        run_seed();
        seed_report *s = report;
        say("seed %lu: %s calls %u answered %u points %u wrong %u; failed: crashed %u, timed out %u, "
            "over budget %u, malformed %u; restarts %u (%.1f s, of which restarts %.1f s, "
            "lab_stub_reached %.1f s)",
            seed, s->problems ? "FAIL" : "ok", s->calls, s->answered, s->points, s->wrong,
            s->failures[PROXY_CRASHED], s->failures[PROXY_TIMED_OUT], s->failures[PROXY_OVER_BUDGET],
            s->failures[PROXY_MALFORMED], s->restarts, now() - started, s->restart_seconds,
            s->stub_seconds);
        s->done = 1;
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
        say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", r->seed, s->first_problem, r->seed);
    }
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !s->problems) {
        snprintf(s->first_problem, sizeof s->first_problem, "the driver exited with status %d",
                 WEXITSTATUS(status));
        say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", r->seed, s->first_problem, r->seed);
    }
    char left[256];
    if (!dir_is_empty(r->dir, left, sizeof left)) {
        if (!s->first_problem[0])
            snprintf(s->first_problem, sizeof s->first_problem, "its directory holds %s afterwards", left);
        say("FAIL seed %lu: its directory holds %s afterwards (replay: make fuzz SEEDS=%lu)", r->seed,
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
    fprintf(stderr, "usage: fuzz_driver --server PROGRAM [--seeds A-B | --seed N] [--jobs J]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *server = NULL;
    int jobs = 4;
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
    setenv("GRADER_POLICY", "serve", 1);
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%.2f", CALL_SECONDS);
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
    double started = now();
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
                say("FAIL: process %d outlived the seed that started it (seeds running: %lu, %lu)",
                    (int)pid, slots[0].seed, jobs > 1 ? slots[1].seed : 0);
                continue;
            }
            failed += !finish_seed(&slots[j], status);
            finished++;
            continue;
        }
        for (int j = 0; j < jobs; j++) {
            seed_report *s = slots[j].pid != 0 ? &reports[slots[j].seed - first_seed] : NULL;
            bool stuck = s != NULL && s->doing_since > 0 && now() - s->doing_since > HANG_SECONDS;
            if (s != NULL && (stuck || now() - slots[j].started > SEED_WALL_CAP)) {
                if (stuck)
                    snprintf(s->first_problem, sizeof s->first_problem,
                             "the trusted side hangs: %s has not returned in %.0f s", s->doing,
                             HANG_SECONDS);
                else
                    snprintf(s->first_problem, sizeof s->first_problem,
                             "no verdict within %.0f s (last: %s)", SEED_WALL_CAP, s->doing);
                s->problems++;
                say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", slots[j].seed, s->first_problem,
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
        say("FAIL: process %d was left behind by the run", (int)pid);
    }
    if (pid == 0) {
        stray++;
        say("FAIL: a process the run started is still running");
    }
    rmdir(work_path);
    unsigned long calls = 0, points = 0, wrong = 0, kinds[PROXY_NOT_STARTED + 1] = {0};
    for (size_t i = 0; i < count; i++) {
        calls += reports[i].calls, points += reports[i].points, wrong += reports[i].wrong;
        for (int k = 0; k <= PROXY_NOT_STARTED; k++)
            kinds[k] += reports[i].failures[k];
    }
    /* The recap: every failing seed once, with its first problem. */
    if (failed > 0) {
        say("failing seeds, each with its first problem (replay one: make fuzz SEEDS=N, or "
            "fuzz_driver --server PROGRAM --seed N):");
        for (size_t i = 0; i < count; i++)
            if (reports[i].first_problem[0])
                say("  FAIL seed %lu: %s", first_seed + i, reports[i].first_problem);
    }
    bool discriminates = count < 20 || (points > 0 && wrong > 0);
    if (!discriminates)
        say("FAIL: over %zu seeds the oracle credited %lu answers and refused %lu: the hostile "
            "student's wrong answers or its honest ones never reached the comparison",
            count, points, wrong);
    say("fuzz: %zu seeds (%lu-%lu), %lu failed, %lu stray processes; %lu calls, %lu points, %lu wrong "
        "answers refused; failed calls: crashed %lu, timed out %lu, over budget %lu, malformed %lu, "
        "not started %lu; %.1f s",
        count, first_seed, last_seed, failed, stray, calls, points, wrong, kinds[PROXY_CRASHED],
        kinds[PROXY_TIMED_OUT], kinds[PROXY_OVER_BUDGET], kinds[PROXY_MALFORMED],
        kinds[PROXY_NOT_STARTED], now() - started);
    return failed == 0 && stray == 0 && discriminates ? 0 : 1;
}
