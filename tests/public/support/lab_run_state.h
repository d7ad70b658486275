/*
 * lab_run_state.h - the running test's state, shared by the support files
 * that record it (lab_trace.c, lab_signals.c) and those that read it
 * (lab_messages.c, lab_positions.c). Not for the suites: they go through
 * lab_support.h. Plain variables, because the signal handler reads them.
 */
#ifndef LAB_RUN_STATE_H
#define LAB_RUN_STATE_H

#include <stdbool.h>
#include <sys/types.h>

/* The running test, "suite::name" (set by lab_test_begin). */
extern char lab_test_name[128];
/* The process running the test: a child it forked reports nothing itself. */
extern pid_t lab_test_process;
/* The test's last step, and the last step that was not building a
 * position (when a crash happens while building one, in malloc or free,
 * which find a corrupted heap only then, the call before is named too). */
extern char lab_last_step[768];
extern char lab_last_call[768];
/* Whether lab_last_step was written by the test's own lab_trace (and not
 * yet used by a traced call of the function it names: lab_trace_call). */
extern bool lab_last_step_explicit;
/* Whether the test's body ran to its end. */
extern bool lab_test_done;
/* Whether the test called grundy_memo_clear() (and it is no stub): a
 * crash or a spin after it is often a clear that freed the table and kept
 * the pointer. */
extern bool lab_memo_cleared;
/* The same for the clears of Part 2's own memos (traced_api.h): whether a
 * traced function other than a clear ran, and the name of the last clear
 * called after one. */
extern bool lab_traced_work;
extern const char *lab_cleared_after_work;

/* lab_trace for the steps of building a position: recorded as the last
 * step, but not as the last call. */
void lab_trace_building(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Heap blocks allocated and still live since the current step began (its
 * lab_trace, before the call): 0 under the grader. */
long lab_blocks_since_step(void);

/* Whether `function` is a stub that was reached; when it is, it is also
 * left out of the "not implemented yet" note from now on (its caller asked
 * it only in case). */
bool lab_stub_reached_in_passing(const char *function);

#endif /* LAB_RUN_STATE_H */
