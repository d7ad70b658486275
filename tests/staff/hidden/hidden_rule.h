/*
 * hidden_rule.h - a hidden suite's rule on the positions it asks the solver
 * about, checked as the test runs, however the test made them (written out,
 * drawn, mirrored, built in a loop). The rule is the one its README states
 * ("a total of at most N tokens"), so that an unmemoized solver answers each
 * question fast; tests/staff/check-definition checks that the README's N and
 * the suite's HIDDEN_RULE_MAX_TOTAL agree.
 *
 * A suite defines HIDDEN_RULE_MAX_TOTAL, then includes this header after
 * lab_support.h. Its questions (lab_check_outcome, lab_check_outcome_asked,
 * and grundy_is_p_position / grundy_is_n_position called on a position made
 * by lab_build) then fail the test, with a message for the test's author,
 * when the position's live heaps (3 or more) total more than that. Only
 * the test's own numbers are read: no call reaches the student's code.
 * Everything is static (one suite per runner).
 */
#ifndef HIDDEN_RULE_H
#define HIDDEN_RULE_H

#include <stddef.h>

#include "lab_support.h"

#ifndef HIDDEN_RULE_MAX_TOTAL
#error "define HIDDEN_RULE_MAX_TOTAL (the suite's README rule) before including hidden_rule.h"
#endif

/* The positions lab_build made lately, with their live totals, for a
 * question asked on the position itself. */
enum { HIDDEN_RULE_KEPT = 32 };
static struct {
    const grundy_position *position;
    int total;
} hidden_rule_built[HIDDEN_RULE_KEPT];
static size_t hidden_rule_next;

static inline int hidden_rule_total(const int *heaps, size_t n)
{
    int total = 0;
    for (size_t i = 0; i < n; i++)
        if (heaps[i] >= 3)
            total += heaps[i];
    return total;
}

static inline void hidden_rule_expect(int total, const char *what)
{
    LAB_EXPECT(total <= HIDDEN_RULE_MAX_TOTAL, SECTION_SOLVER,
               "internal error of the hidden suite (for its author, not the student): this test asks "
               "about %s, whose live heaps total %d tokens; its README's rule is at most %d, so that "
               "an unmemoized solver answers every question fast (tests/staff/hidden/README.md)",
               what, total, HIDDEN_RULE_MAX_TOTAL);
}

static inline void hidden_rule_heaps(const int *heaps, size_t n)
{
    hidden_rule_expect(hidden_rule_total(heaps, n), lab_heaps_text(heaps, n));
}

static inline grundy_position *hidden_rule_build(const int *heaps, size_t n)
{
    grundy_position *p = (lab_build)(heaps, n);
    hidden_rule_built[hidden_rule_next % HIDDEN_RULE_KEPT].position = p;
    hidden_rule_built[hidden_rule_next % HIDDEN_RULE_KEPT].total = hidden_rule_total(heaps, n);
    hidden_rule_next++;
    return p;
}

/* A question on a position: its total when lab_build made it lately. */
static inline void hidden_rule_position(const grundy_position *p)
{
    for (size_t back = 1; back <= HIDDEN_RULE_KEPT && back <= hidden_rule_next; back++) {
        size_t slot = (hidden_rule_next - back) % HIDDEN_RULE_KEPT;
        if (hidden_rule_built[slot].position == p) {
            hidden_rule_expect(hidden_rule_built[slot].total, "a position built by lab_build");
            return;
        }
    }
    LAB_EXPECT(false, SECTION_SOLVER,
               "internal error of the hidden suite (for its author, not the student): this test asks "
               "the solver about a position lab_build did not make, so its rule (a total of at most "
               "%d tokens) cannot be checked; build the positions it asks about with lab_build",
               HIDDEN_RULE_MAX_TOTAL);
}

static inline bool hidden_rule_is_p(const grundy_position *p)
{
    hidden_rule_position(p);
    return (grundy_is_p_position)(p);
}

static inline bool hidden_rule_is_n(const grundy_position *p)
{
    hidden_rule_position(p);
    return (grundy_is_n_position)(p);
}

static inline void hidden_rule_outcome(const int *heaps, size_t n, const char *section)
{
    hidden_rule_heaps(heaps, n);
    (lab_check_outcome)(heaps, n, section);
}

static inline void hidden_rule_outcome_asked(const int *heaps, size_t n, bool n_first, const char *note,
                                             const char *section)
{
    hidden_rule_heaps(heaps, n);
    (lab_check_outcome_asked)(heaps, n, n_first, note, section);
}

/* Variadic, so that a compound literal's commas stay one argument. */
#define lab_build(...) hidden_rule_build(__VA_ARGS__)
#define lab_check_outcome(...) hidden_rule_outcome(__VA_ARGS__)
#define lab_check_outcome_asked(...) hidden_rule_outcome_asked(__VA_ARGS__)
#define grundy_is_p_position(p) hidden_rule_is_p(p)
#define grundy_is_n_position(p) hidden_rule_is_n(p)

#endif /* HIDDEN_RULE_H */
