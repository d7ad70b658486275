/*
 * fuzz_script.c - one seed of the hostile-student fuzzer, in a child
 * process of the fuzz driver (fuzz_driver.c): the trusted side's proxy
 * driven through a fixed script that reaches every operation of grundy.h,
 * with its arguments drawn from the seed. The student process learns the
 * seed from the script's first call (hostile_engine.h). A failed call ends
 * the current step: the proxy reports it here (proxy_report_failure
 * longjmps back), the runners' failure path asks lab_stub_reached, and
 * proxy_restart starts the next step with a fresh student process. For
 * every call and every step it asserts:
 *   - the call returned or failed within GRADER_CALL_SECONDS + GRACE;
 *     lab_stub_reached within its poll + GRACE; proxy_restart within the
 *     shutdown grace + GRACE;
 *   - a returned position is well formed (a size no larger than the
 *     entries the proxy allocated), and only then is it compared;
 *   - after proxy_restart no child process is left (waitpid says ECHILD);
 *   - the driver's own memory stays under MEMORY_CAP.
 * "Points": an answer earns one only when it equals the oracle's (or the
 * script's own model of the position).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz_seed.h"
#include "grundy.h"
#include "oracle.h"
#include "proxy.h"
#include "wire.h"

/* The counts the proxy defines for the suites (lab_support.h's). */
size_t alloc_live_blocks(void);
uint64_t expansions(void);
void expansions_reset(void);
const char *lab_stub_reached(size_t i);

static const double CPU_BUDGET = 0.15;    /* the timing probe's control, on some steps */
static const double GRACE = 1.5;          /* past the limit, on a shared 2-core machine */
static const double SHUTDOWN_GRACE = 1.0; /* proxy_shutdown's wait for a plain student process */
static const long MEMORY_CAP = 160L << 20; /* the driver's resident memory */
enum { ROUNDS = 1, MAX_FAILURES = 4 }; /* one round reaches every operation */

__attribute__((format(printf, 1, 2))) static void problem(const char *format, ...)
{
    char text[700];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (fuzz_report->problems == 0)
        memcpy(fuzz_report->first_problem, text, sizeof fuzz_report->first_problem - 1);
    if (fuzz_report->problems++ < MAX_FAILURES)
        fuzz_say("FAIL seed %lu: %s (replay: make fuzz SEEDS=%lu)", fuzz_seed, text, fuzz_seed);
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
    vsnprintf(fuzz_report->doing, sizeof fuzz_report->doing, format, args);
    va_end(args);
    fuzz_report->doing_since = fuzz_now();
}

static double call_started;
static const char *call_name;
static double call_allowance; /* wall seconds this call may take */

static void begin(const char *name)
{
    call_name = name;
    call_started = fuzz_now();
    call_allowance = FUZZ_CALL_SECONDS + GRACE;
    fuzz_report->calls++;
    doing("%s", name);
}

static void end(void)
{
    double took = fuzz_now() - call_started;
    if (took > call_allowance)
        problem("%s returned after %.2f s, past its limit of %.2f s + %.1f s", call_name, took,
                FUZZ_CALL_SECONDS, GRACE);
    fuzz_report->answered++;
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
        fuzz_report->points++;
    else
        fuzz_report->wrong++;
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
    uint32_t a = (uint32_t)((fuzz_seed % 65535) << 15) | ((last_sequence + 1) & 0x7fff);
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

/* ---- one seed, in a child process ------------------------------------------ */

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
    double started = fuzz_now();
    proxy_restart(0);
    double took = fuzz_now() - started;
    fuzz_report->restart_seconds += took;
    if (took > SHUTDOWN_GRACE + GRACE)
        problem("proxy_restart %s took %.2f s, past the shutdown grace of %.1f s + %.1f s", when, took,
                SHUTDOWN_GRACE, GRACE);
    check_no_child(when);
    memset(held, 0, sizeof held);
    announced = false;
    fuzz_report->restarts++;
}

void fuzz_run_seed(void)
{
    rng = fuzz_seed * 0x9e3779b97f4a7c15UL + 1;
    static volatile size_t at; /* the step, across the longjmp */
    for (int round = 0; round < ROUNDS; round++) {
        for (at = 0; at < sizeof script / sizeof *script; at++) {
            if (setjmp(call_failed) == 0) {
                script[at].run();
                continue;
            }
            /* A call failed: in time, and reported, as a test would. */
            double took = fuzz_now() - call_started;
            fuzz_report->failures[failure_kind]++;
            if (took > call_allowance)
                problem("%s failed (%s) after %.2f s, past its limit of %.2f s + %.1f s", call_name,
                        failure_message, took, FUZZ_CALL_SECONDS, GRACE);
            proxy_set_cpu_budget(0);
            /* The runners' failure message asks which stubs were reached. */
            doing("lab_stub_reached after %s failed (%.100s)", call_name, failure_message);
            double asked = fuzz_now();
            if (setjmp(call_failed) == 0)
                (void)lab_stub_reached(0);
            fuzz_report->stub_seconds += fuzz_now() - asked;
            if (fuzz_now() - asked > 2.0 + GRACE)
                problem("lab_stub_reached after a failed %s took %.2f s (the call: %s)", call_name,
                        fuzz_now() - asked, failure_message);
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

