/*
 * memo_solver.c - the shared memo checks behind memo_solver.h.
 */
#include "expansion_counter.h"
#include "lab_support.h"
#include "memo_solver.h"
#include "oracle.h"

uint64_t memo_solver_ask(const memo_solver *s, const int *heaps, size_t n)
{
    return memo_solver_ask_within(s, heaps, n, 0, "");
}

uint64_t memo_solver_ask_within(const memo_solver *s, const int *heaps, size_t n, uint64_t bound,
                                const char *how)
{
    grundy_position *p = lab_build(heaps, n);
    expansions_reset();
    lab_trace("%s(%s)%s", s->name, lab_heaps_text(heaps, n), how);
    bool is_p = s->is_p(p);
    uint64_t used = expansions();
    grundy_free(p);
    bool expected = oracle_is_p(heaps, n);
    LAB_EXPECT(is_p == expected, s->section, "%s(%s)%s returned %s; it is %s", s->name,
               lab_heaps_text(heaps, n), how, is_p ? "true" : "false", lab_outcome_text(expected));
    LAB_EXPECT(bound == 0 || used <= bound, s->section,
               "%s(%s)%s called grundy_get_moves %llu times, but it may meet only %llu distinct "
               "positions (counting {}); a memoized search expands each at most once",
               s->name, lab_heaps_text(heaps, n), how, (unsigned long long)used, (unsigned long long)bound);
    return used;
}

void memo_solver_expect_own_memo(const memo_solver *s, int heap, uint64_t bound)
{
    s->memo_clear();
    grundy_memo_clear();
    (void)memo_solver_ask(s, &heap, 1);
    size_t size = s->memo_size();
    LAB_EXPECT(size >= 1 && size <= bound, s->section,
               "after %s({%d=1}) from an empty memo, %s() is %zu; expected between 1 and %llu (the "
               "positions it may meet, counting {})",
               s->name, heap, s->size_name, size, (unsigned long long)bound);
    LAB_EXPECT(grundy_memo_size() == 0, s->section,
               "%s({%d=1}) put %zu positions in the Task 2 memo; it keeps a memo of its own (and "
               "must not call grundy_is_p_position)",
               s->name, heap, grundy_memo_size());
    s->memo_clear();
    LAB_EXPECT(s->memo_size() == 0, s->section, "%s() is %zu right after %s(); expected 0", s->size_name,
               s->memo_size(), s->clear_name);
    LAB_EXPECT(memo_solver_ask(s, &heap, 1) >= 1, s->section,
               "after %s(), %s({%d=1}) expanded nothing; a cleared memo must start cold", s->clear_name,
               s->name, heap);
    s->memo_clear();
}
