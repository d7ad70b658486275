/*
 * lab_hints.c - the per-task words of a time-out report (lab_hints.h), a
 * row per task: Tasks 7 and 8 have no recursion to blame, Task 5 one loop
 * over the moves, Task 6's nimbers a table of their own. A new task adds
 * a row here (or gets the default's words).
 */
#include <stddef.h>

#include "lab_hints.h"

static const lab_task_hint default_hint = {
    .suite = "",
    .spin = "Check that every recursive call gets a smaller position; to see where it spins, run ",
    .print_where = " with a print of the position at the top of your solver",
};

static const lab_task_hint task_hints[] = {
    {.suite = "task5",
     .spin = "Check that the loop over the moves ends, and that each move is asked about once, "
             "through the memoized solver; to see where it spins, run ",
     .print_where = " with a print of the position at the top of your solver"},
    {.suite = "task6",
     .spin = "Check that every recursive call gets a smaller position; to see where it spins, run ",
     .print_where = " with a print of the position at the top of your solver",
     .step_word = "nim",
     .step_hint = "Is every nimber remembered in the table, and looked up before it is computed? "
                  "From the definition alone, g(40) takes about 3.3e11 calls (handout "
                  "#task-6-nimbers)"},
    {.suite = "task7",
     .spin = "Check that each loop of the table ends (every height up to the last, every split "
             "of it), and that a value is read from the table, not computed again; to see where "
             "it spins, run ",
     .print_where = " with a print of the height at the top of each loop"},
    {.suite = "task8",
     .spin = "Check that every frame pushed is popped once its moves are answered, and that a "
             "position already answered is looked up in the memo, not pushed again; to see "
             "where it spins, run ",
     .print_where = " with a print of the top frame's position at the top of your loop"},
    {.suite = NULL},
};

/* Whether `test_name` is a test of `suite`: "suite::..." or, for its
 * hidden tests, "suite_hidden::...". */
static int of_suite(const char *test_name, const char *suite)
{
    size_t i = 0;
    for (; suite[i] != '\0'; i++)
        if (test_name[i] != suite[i])
            return 0;
    return test_name[i] == ':' || test_name[i] == '_';
}

const lab_task_hint *lab_hint_of_test(const char *test_name)
{
    for (const lab_task_hint *row = task_hints; row->suite != NULL; row++)
        if (of_suite(test_name, row->suite))
            return row;
    return &default_hint;
}
