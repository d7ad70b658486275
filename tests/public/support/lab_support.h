/*
 * lab_support.h - what the lab's Criterion suites share: building positions
 * through the student's API, reading them back into the oracle's canonical
 * form (checking the invariant on the way), and failure messages that name
 * the position, the expected and the actual answer, and the handout section
 * to read.
 */
#ifndef LAB_SUPPORT_H
#define LAB_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <criterion/criterion.h>

#include "grundy.h"
#include "memo_evidence.h"

/* LAB_TEST(suite, name) { ... } declares a test, like Criterion's Test,
 * that tells lab_support when its body starts and when it has run to its
 * end, so that a crash, a time-out or a sanitizer's report names the test
 * and its last step. Per-test options go on the TestSuite (for example
 * .timeout). */
#define LAB_TEST(suite, name)                                  \
    static void suite##_##name##_body(void);                   \
    Test(suite, name)                                          \
    {                                                          \
        lab_test_begin(#suite "::" #name);                     \
        suite##_##name##_body();                               \
        lab_test_finished();                                   \
    }                                                          \
    static void suite##_##name##_body(void)

/* LAB_SKIP(reason) skips the current test, saying why. The reason is
 * printed as it is, never read as a format. */
#define LAB_SKIP(reason) cr_skip_test("%s", reason)

/* Called by LAB_TEST before a test's body: from then on a crash or a
 * time-out of the test names it and its last step (see lab_trace), and
 * says what to run next, instead of a bare "CRASH!". Also sets the message
 * suffix back to "". */
void lab_test_begin(const char *test);
/* Called by LAB_TEST when the body has run to its end. */
void lab_test_finished(void);

/* Stops the test at once: its failure message is "the test WHAT during its
 * last step, STEP. NEXT" (what a crash report says). For a misuse the
 * support code detects itself, such as memcpy between overlapping ranges
 * (checked_memcpy.c). In a process the test forked, prints the same on
 * stderr; its parent reports the exit. */
void lab_stop_test(const char *what, const char *next) __attribute__((noreturn));

/* Records the step the test is about to take, in words a student can
 * reproduce ("grundy_is_p_position({13=1})"). Only the last step is kept;
 * it is what a crash or a time-out report names. */
void lab_trace(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Largest number of heaps a test position may expand to. */
enum { LAB_MAX_HEAPS = 256 };

/* Handout anchors that failure messages point to. */
#define SECTION_MAP "task-0-map"
#define SECTION_EQUALITY "task-0-equality"
#define SECTION_MOVES "task-0-moves"
#define SECTION_INVARIANT "the-invariant"
#define SECTION_SOLVER "task-1"
#define SECTION_MEMO "task-2"
#define SECTION_TIMING "task-2-timing"
#define SECTION_MEMO_MISTAKES "task-2-mistakes"
/* Part 2, the optional tasks. */
#define SECTION_WINNING "task-5"
#define SECTION_PAIRS "task-6-pairs"
#define SECTION_NIMBERS "task-6-nimbers"
#define SECTION_TABLE "task-7"
#define SECTION_STACK "task-8"

/* printf-style formatting into a buffer owned by this module; valid until
 * the next call. Only used to build a failure message, right before the
 * test stops. */
const char *lab_format(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* "not implemented yet: grundy_new, grundy_add_heap (see the TODOs in your
 * code). " when the test reached stubs, else "". Starts every failure
 * message, so a student who has not started sees what to write first
 * rather than a symptom. */
const char *lab_todo_note(void);

/* The rendered handout, from the top of the student's repository; `make
 * test` prints where it is. */
#define LAB_HANDOUT "handouts/grundy-lab.html"

/* Text that ends every failure message of the current test, "" unless
 * set. A suite whose cases are drawn at random sets it at the start of
 * each test, e.g. to " (seed 42)", so that every message tells how to draw
 * the same cases again. Copied (at most 63 characters); lasts until the
 * next test begins. */
void lab_set_message_suffix(const char *suffix);
const char *lab_message_suffix(void);

/* Asserts `condition`; on failure the message is the stub note, the
 * formatted text, the message suffix and the handout section. Stops the
 * test (and marks it failed: lab_check_failed). */
#define LAB_EXPECT(condition, section, ...)                                                      \
    cr_assert((condition), "%s%s%s%s\n      (handout: " LAB_HANDOUT "#%s)", lab_check_failed(), \
              lab_todo_note(), lab_format(__VA_ARGS__), lab_message_suffix(), section)

/* Called by a failing LAB_EXPECT, as its message is made: records that a
 * check of this test failed, and returns "". A failed check stops the test
 * where it stands, its positions still allocated, so the test program's
 * leak report at exit (make test SAN=1) is left out: those blocks are the
 * test's, not a leak of the student's. */
const char *lab_check_failed(void);

/* Whether the code under test runs in this process (make test), so that
 * the counts it keeps (live blocks, expansions, a memo's size) are this
 * program's own. Under the grader it runs in a student process, and such a
 * count is a figure that process reports: a test that reads one there
 * earns nothing, so a check of answers reads none there (grader/rubric.txt). */
bool lab_in_own_process(void);

/* Calls grundy_memo_clear() or grundy_memo_size() for a test that only
 * needs them when Task 2 is done (a leak check, a diagnosis): when the
 * function is still a stub, the call is left out of the "not implemented
 * yet" note, so a Task 1 failure is not reported as Task 2 not started. */
void lab_memo_clear_if_written(void);
size_t lab_memo_size_if_written(void);

/* grundy_memo_clear(), traced, for a Task 2 test: a crash or a time-out
 * later in the test then says what a clear that keeps a freed table does. */
void lab_memo_clear(void);

/* "a P-position" or "an N-position". */
const char *lab_outcome_text(bool is_p);

/* A heap list as the oracle writes positions: {3=1, 4=2}. Heights < 3 are
 * dropped, as the invariant asks. Bounded: a position of more than 9
 * heights shows its first and last 4 and its size,
 * {3=1, 4=1, 5=2, 6=1, ..., 97=1, 98=1, 99=1, 100=1} (240 heaps in 120 heights).
 * The text lives in one of 16 rotating buffers: valid until 16 more texts
 * have been made. */
const char *lab_heaps_text(const int *heaps, size_t n);

/* Where a message that names a cause goes on with what its test saw: the
 * text before it is the cause, the same for every test it explains, so
 * make test (lab_report.c) and the feedback (grader/gradelib/reports.py,
 * cause_key) group failures on it. */
#define LAB_TEST_SAW " What the test saw: "

/* Builds a position with grundy_new(0) and grundy_add_heap() for each heap,
 * failing the test with a clear message when that API returns NULL. */
grundy_position *lab_build(const int *heaps, size_t n);
#define LAB_HEAPS(...) ((const int[]){__VA_ARGS__}), (sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

/* Checks the representation invariant of `p` and expands it into `heaps`
 * (ascending, one element per heap). Returns the number of heaps; on a
 * broken invariant fails the test with what is wrong. `what` names the
 * position in messages, e.g. "grundy_new(7)". `heaps` has room for
 * LAB_MAX_HEAPS heaps. */
size_t lab_expand(const grundy_position *p, int *heaps, const char *what);

/* For a query of the map that answered wrong on p, built from heaps[0..n):
 * ". Your map stores {..} as the entries (h,c) ..., as the invariant asks:
 * the position was built right, so the mistake is in FUNCTION", or that
 * they are not the invariant's form. From the student's own entries. */
const char *lab_stored_note(const grundy_position *p, const int *heaps, size_t n, const char *function);
/* The same for a query of two positions (grundy_equals): the note of the
 * first one not in the invariant's form, or that both are. */
const char *lab_stored_pair_note(const grundy_position *a, const int *heaps_a, size_t n_a,
                                 const grundy_position *b, const int *heaps_b, size_t n_b,
                                 const char *function);

/* Why a memo's size is not 0 right after its clear, from what a second
 * clear (called here) does to the live heap blocks: it frees nothing, it
 * frees what the first left, or it leaves more than before (a new table).
 * Names the student's functions, e.g. "grundy_memo_clear". */
const char *lab_clear_left_note(void (*clear)(void), const char *clear_name, const char *size_name);

/* lab_expand into room for `max` heaps, for a test whose positions hold
 * more heaps than LAB_MAX_HEAPS (or that keeps smaller arrays). */
size_t lab_expand_at_most(const grundy_position *p, int *heaps, size_t max, const char *what);

/* Fails the test when `result`, what the call named by the printf-style
 * `format` (e.g. "grundy_copy(%s)") returned, is NULL: grundy.h allows NULL only when memory runs out, which
 * never happens in the tests. The message says so, and how many heap
 * blocks the call left allocated (it made its result, or part of it, and
 * dropped it) since the step's lab_trace. One message for every such call. */
void lab_expect_made(const void *result, const char *section, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks `moves`, what grundy_get_moves returned for the position with
 * these heaps (`text` names it in messages), against the oracle's moves:
 * a list, every move a valid position one move away, each distinct
 * position exactly once, none missing. */
void lab_expect_oracle_moves(const position_list *moves, const int *heaps, size_t n, const char *text);

/* Checks that `result`, a position that `call` (e.g.
 * "grundy_winning_move({5=1})") returned for its caller to own, is a live
 * heap block, before the test reads or frees it: a function that returns
 * an item of a move list and then frees the list returns freed memory,
 * whose fields are garbage and whose grundy_free is a double free. The
 * message names that cause. Where blocks are not tracked (the grader's
 * runners: there the student process's reply shows the garbage) it checks
 * nothing. */
void lab_expect_owned_result(const grundy_position *result, const char *call, const char *section);

/* The student's position as text, without trusting grundy_to_string's
 * input to be valid: the invariant is checked first. */
const char *lab_position_text(const grundy_position *p, const char *what);

/* Asserts the student's grundy_is_p_position and grundy_is_n_position both
 * agree with the oracle on the position with these heaps. */
void lab_check_outcome(const int *heaps, size_t n, const char *section);

/* lab_check_outcome on the position built by adding `heaps` in this order,
 * asking grundy_is_n_position first when `n_first` (so that a memoized
 * solver must answer it without what the P question stored). `note` (may
 * be "") follows the position in messages, e.g. " (built by adding 5, 1,
 * 3)". */
void lab_check_outcome_asked(const int *heaps, size_t n, bool n_first, const char *note,
                             const char *section);

/* Whether the timing checks of `suite` (task2, task6...) are to be skipped:
 * LAB_SKIP_TIMING is "1" for every suite (make memcheck: valgrind slows
 * everything down), or names the suites to skip (the grader skips task2's,
 * as its own timing checks, drawn from the seed, replace them). */
bool lab_skip_timing(const char *suite);

/* For a wrong answer of a solver without a memo (or with Task 1's memo
 * forgotten) to the question asked (is_p or is_n) about these heaps: the
 * first wrong step of its recursion, explained from its own answers and
 * calls (lab_first_step.c), or NULL when the position is too large to
 * search or the solver answers right when asked again. */
const char *lab_first_wrong_step(const int *heaps, size_t n, bool asked_p);
/* The cause a first wrong step is reported under (one for every test
 * that shows one, so that make test and the feedback group them). */
#define LAB_FIRST_WRONG_STEP                                                                      \
    "Your recursion makes a wrong step of its own: at some position it is right about every "   \
    "move and still answers wrong, so look at how the answers of the moves make the answer of "   \
    "the position (below: the smallest such position, the moves your solver expanded there)"
/* The same, for a search without recursion of its own (Tasks 6 and 8). */
#define LAB_FIRST_WRONG_STEP_OF_SEARCH                                                            \
    "Your search makes a wrong step of its own: at some position it is right about every move " \
    "and still answers wrong, so look at how the answers of the moves make the answer of the "  \
    "position (below: the smallest such position, the moves your solver expanded there)"

/* Asserts that `answer`, the solver's reply to grundy_is_p_position (asked_p)
 * or grundy_is_n_position about the position with these heaps, is right.
 * When it is wrong and the solver keeps a memo, questions asked from an
 * empty memo tell the common memo mistakes apart (is_p storing before its
 * search, is_n not negating the stored flag, a memo keyed by address, an
 * answer recorded for another position), and the message names the one
 * they leave and points at Task 2's mistakes instead of `section`. */
void lab_expect_answer(const int *heaps, size_t n, bool asked_p, bool answer, const char *section);

/* lab_expect_answer for an answer given where this process's memo cannot
 * be asked (a child process, a solver run before a clear): when it is
 * wrong and the solver keeps a memo, the same diagnosis by cause. `note`
 * (may be "") follows the position in messages, e.g. " from an empty memo". */
void lab_expect_answer_from_elsewhere(const int *heaps, size_t n, const char *note, bool asked_p,
                                      bool answer, const char *section);

/* LAB_EXPECT for a check of a memo: when it fails, the memo's own record
 * (memo_evidence.h) is asked first, and a cause it shows opens the message
 * (the solver's own section: Task 2's common mistakes, or Task 6's or Task 8's
 * section), followed by what the test saw. `solver` is a
 * const lab_memo_solver *, e.g. &lab_grundy_solver. */
#define LAB_EXPECT_MEMO(solver, condition, section, ...)                    \
    do {                                                                    \
        if (!(condition))                                                   \
            lab_fail_memo_check((solver), (section), lab_format(__VA_ARGS__)); \
    } while (0)
void lab_fail_memo_check(const lab_memo_solver *solver, const char *section, const char *what);

/* Whether the test runs under valgrind (`make memcheck`), which slows code
 * down 20 to 50 times: tests then use smaller positions, so that a correct
 * solver without a memo still finishes in seconds. */
bool lab_under_valgrind(void);

/* Deterministic pseudo-random numbers for generated cases (xorshift), so a
 * failure can be reproduced by rerunning the test. */
unsigned lab_random(unsigned *state);

/* Every call of the memo and Part 2 functions, traced (see the file). */
#include "traced_api.h"

#endif /* LAB_SUPPORT_H */
