/*
 * memo_solver.c - the shared memo checks behind memo_solver.h.
 */
#include <stdio.h>

#include "alloc_tracker.h"
#include "expansion_counter.h"
#include "lab_support.h"
#include "memo_evidence.h"
#include "memo_record.h"
#include "memo_solver.h"
#include "oracle.h"

/* The solver as the memo's record asks it (memo_evidence.h): "is P?" only,
 * through the memo_solver being checked. */
static const memo_solver *asked;

static bool ask_asked(const grundy_position *p, bool ask_p)
{
    (void)ask_p;
    return asked->is_p(p);
}

static void clear_asked(void)
{
    asked->memo_clear();
}

/* The evidence for a failed check of `s`'s memo. */
const lab_memo_solver *memo_solver_evidence(const memo_solver *s)
{
    static lab_memo_solver solver;
    asked = s;
    solver = (lab_memo_solver){.is_p_name = s->name, .ask = ask_asked, .clear = clear_asked,
                               .clear_name = s->clear_name, .section = s->section,
                               .reduced_keys = s->reduced_keys};
    return &solver;
}

uint64_t memo_solver_ask(const memo_solver *s, const int *heaps, size_t n)
{
    return memo_solver_ask_within(s, heaps, n, 0, "");
}

/* Asks, checks the answer, and returns the expansions it took when
 * `counted` (0 otherwise: nothing read). */
static uint64_t ask_and_check(const memo_solver *s, const int *heaps, size_t n, const char *how, bool counted)
{
    grundy_position *p = lab_build(heaps, n);
    if (counted)
        expansions_reset();
    lab_trace("%s(%s)%s", s->name, lab_heaps_text(heaps, n), how);
    bool is_p = s->is_p(p);
    uint64_t used = counted ? expansions() : 0;
    grundy_free(p);
    bool expected = oracle_is_p(heaps, n);
    if (is_p != expected) {
        static char what[512]; /* lab_format's buffer is reused by the checks below */
        snprintf(what, sizeof what, "%s(%s)%s returned %s; it is %s", s->name, lab_heaps_text(heaps, n),
                 how, is_p ? "true" : "false", lab_outcome_text(expected));
        /* A memo mistake first (its record names it), else the search's own
         * first wrong step, else the bare answer. */
        lab_fail_memo_check(memo_solver_evidence(s), NULL, what);
        const char *step = lab_first_wrong_step_of(memo_solver_evidence(s), heaps, n, true);
        if (step != NULL)
            LAB_EXPECT(false, s->section, "%s." LAB_TEST_SAW "%s. %s", LAB_FIRST_WRONG_STEP_OF_SEARCH, what,
                       step);
        LAB_EXPECT(false, s->section, "%s", what);
    }
    return used;
}

void memo_solver_answer(const memo_solver *s, const int *heaps, size_t n)
{
    (void)ask_and_check(s, heaps, n, "", false);
}

uint64_t memo_solver_ask_within(const memo_solver *s, const int *heaps, size_t n, uint64_t bound,
                                const char *how)
{
    uint64_t used = ask_and_check(s, heaps, n, how, true);
    LAB_EXPECT_MEMO(memo_solver_evidence(s), bound == 0 || used <= bound, s->section,
               "%s(%s)%s called grundy_get_moves %llu times, but it may meet only %llu distinct "
               "positions (counting {}); a memoized search expands each at most once",
               s->name, lab_heaps_text(heaps, n), how, (unsigned long long)used, (unsigned long long)bound);
    return used;
}

void memo_solver_expect_own_memo(const memo_solver *s, int heap, uint64_t bound)
{
    s->memo_clear();
    grundy_memo_clear();
    /* A memo keyed by reduced positions holds no pair: asked about a
     * position with one, from an empty memo, the search must store the
     * reduced copy. The memo's record is read here only in `make test`
     * (where blocks are tracked): under the grader it is a figure the
     * student process reports, read only to word a failure (memo_record.h). */
    if (s->reduced_keys && alloc_block_state != NULL && memo_record_reset != NULL) {
        memo_record_reset();
        (void)memo_solver_ask(s, LAB_HEAPS(5, 7, 7));
        const char *cause = lab_memo_unreduced_key(memo_solver_evidence(s), "{5=1, 7=2}");
        LAB_EXPECT(cause == NULL, s->section, "%s", cause);
        s->memo_clear();
    }
    (void)memo_solver_ask(s, &heap, 1);
    size_t size = s->memo_size();
    LAB_EXPECT_MEMO(memo_solver_evidence(s), size >= 1 && size <= bound, s->section,
               "after %s({%d=1}) from an empty memo, %s() is %zu; expected between 1 and %llu (the "
               "positions it may meet, counting {})",
               s->name, heap, s->size_name, size, (unsigned long long)bound);
    LAB_EXPECT(grundy_memo_size() == 0, s->section,
               "%s({%d=1}) put %zu positions in the Task 2 memo; it keeps a memo of its own (and "
               "must not call grundy_is_p_position)",
               s->name, heap, grundy_memo_size());
    s->memo_clear();
    size_t left = s->memo_size();
    if (left != 0)   /* which clear is it? (read only once the test fails, as in Task 2) */
        LAB_EXPECT(false, s->section, "%s() is %zu right after %s(); expected 0. %s", s->size_name, left,
                   s->clear_name, lab_clear_left_note(s->memo_clear, s->clear_name, s->size_name));
    LAB_EXPECT(memo_solver_ask(s, &heap, 1) >= 1, s->section,
               "after %s(), %s({%d=1}) expanded nothing; a cleared memo must start cold", s->clear_name,
               s->name, heap);
    s->memo_clear();
}
