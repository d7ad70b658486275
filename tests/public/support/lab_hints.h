/*
 * lab_hints.h - per-task words of a time-out report, as data: where a
 * test of the task that spins most often spins, and what to print to see
 * it. One row per task (lab_hints.c); a task without a row gets the
 * recursive solver's words. Read in a signal handler: the lookup only
 * compares characters.
 */
#ifndef LAB_HINTS_H
#define LAB_HINTS_H

typedef struct {
    const char *suite;       /* the task's suite, "task5"; NULL ends the table */
    const char *spin;        /* "Check that ...; to see where it spins, run " */
    const char *print_where; /* " with a print of ...", after "make test-taskN" */
    /* When the test's last step contains `step_word` (may be NULL), a
     * time-out says `step_hint` instead of the two above. */
    const char *step_word;
    const char *step_hint;
} lab_task_hint;

/* The row of the task whose test `test_name` ("task7::table_grows") is,
 * or the default row. Never NULL. Async-signal-safe. */
const lab_task_hint *lab_hint_of_test(const char *test_name);

#endif /* LAB_HINTS_H */
