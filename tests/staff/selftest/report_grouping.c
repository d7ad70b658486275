/*
 * report_grouping.c - a test program whose failures are made up, to check
 * how `make test`'s report hook (tests/public/support/lab_report.c) groups
 * them: one entry per cause with the list of its tests, two causes never
 * merged, time-outs in the order they happened. Run by
 * tests/staff/selftest/check-report-grouping, which writes the order of the
 * time-outs into the crash file beforehand and reads what was printed.
 */
#include <unistd.h>

#include <criterion/criterion.h>

#include "lab_support.h"

/* One cause on three positions: one entry, its two other tests listed. */
Test(task0, same_cause_a) { cr_assert_fail("grundy_get_moves({4=1}) returned {}, which is not one move away\nfix the splits"); }
Test(task0, same_cause_b) { cr_assert_fail("grundy_get_moves({7=1}) returned {3=1}, which is not one move away\nfix the splits"); }
Test(task0, same_cause_c) { cr_assert_fail("grundy_get_moves({9=2}) returned {}, which is not one move away\nfix the splits"); }

/* The same first line, another second line: another cause. */
Test(task0, other_hint) { cr_assert_fail("grundy_get_moves({5=1}) returned {}, which is not one move away\nfix the counts"); }

/* Two time-outs: the later one in the file timed out first (the crash
 * file, written by the check, says so). */
TestSuite(task0, .timeout = 0.2);
Test(task0, timed_out_second) { sleep(5); }
Test(task0, timed_out_first) { sleep(5); }
