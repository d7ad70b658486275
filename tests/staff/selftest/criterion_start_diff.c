/* criterion_start_diff.c - a test that fails with a diff of two strings:
 * linked with tests/public/support/criterion_start.c, Criterion must still
 * show it (check-criterion-start). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

Test(criterion_start, diff_of_two_strings)
{
    cr_assert(eq(str, "grundy\ngame\n", "grundy\nlab\n"));
}
