"""The guarded run (issue 26, item 4): grader/boundary/guard_alloc.c makes
a bad access a fault the kernel raises, and grader/gradelib/guard.py
turns the runner's records into the memory check's verdict, blaming the
code only for what the code did.

The allocator's cases run in a static program of their own, each in a
child process, once with the guarded allocator and once with the C
library's (the control: the same bad accesses pass unseen there, so each
expected SIGSEGV is the guard's). That the guard policy lets nothing
undo a guard page is the policy probe's (its guard mode)."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

REPO = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import guard, suites  # noqa: E402

PROGRAM = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static volatile char sink;

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "works") == 0) {
        /* what a program may do: every entry point, alignment, contents */
        unsigned char *a = malloc(12);
        for (int i = 0; i < 12; i++)
            a[i] = (unsigned char)i;
        a = realloc(a, 4000);
        for (int i = 0; i < 12; i++)
            if (a[i] != i) return 10;
        int *z = calloc(100, sizeof *z);
        for (int i = 0; i < 100; i++)
            if (z[i] != 0) return 11;
        void *p = NULL;
        if (posix_memalign(&p, 64, 100) != 0 || (uintptr_t)p % 64 != 0) return 12;
        void *q = aligned_alloc(256, 512);
        if (q == NULL || (uintptr_t)q % 256 != 0) return 13;
        if ((uintptr_t)malloc(1) % 8 != 0) return 14;
        if (calloc(SIZE_MAX / 2, 4) != NULL) return 15;
        free(a); free(z); free(p); free(q); free(NULL);
        char *s = strdup("guarded");
        printf("%s\n", s);
        free(s);
        for (int i = 0; i < 3000; i++)
            free(malloc((size_t)i));
        return 0;
    }
    if (strcmp(what, "many-live") == 0) {
        /* more live blocks than a process has mappings for two each: all
         * are handed out, and the first ones are still guarded */
        long *first = malloc(3 * sizeof *first);
        for (int i = 0; i < 40000; i++) {
            char *p = malloc(40);
            if (p == NULL) return 30;
            p[39] = 1;
        }
        sink = (char)first[3];
        return 0;
    }
    if (strcmp(what, "churn") == 0) {
        /* a long search: millions of blocks made and freed, some kept, in a
         * small address space (the least the pace gives a student
         * process): none may fail, under the guard as natively */
        struct rlimit limit = {128ul << 20, 128ul << 20};
        if (setrlimit(RLIMIT_AS, &limit) != 0) return 40;
        char *kept[64] = {0};
        for (long i = 0; i < 3000000; i++) {
            size_t size = (size_t)(i % 200) + 1;
            char *p = i % 5 == 0 ? calloc(size, 1) : malloc(size);
            if (p == NULL) return 41;
            if (i % 5 == 0 && p[size - 1] != 0) return 42;
            p[0] = p[size - 1] = 1;
            if (i % 1000 == 0) {
                free(kept[i / 1000 % 64]);
                kept[i / 1000 % 64] = p;
            } else
                free(p);
        }
        char *grown = NULL;
        for (size_t n = 1; n < (1u << 22); n *= 2)
            if ((grown = realloc(grown, n)) == NULL) return 43;
        return 0;
    }
    if (strcmp(what, "quarantine") == 0) {
        /* past the guarded blocks, a freed block waits before its reuse,
         * and holds poison meanwhile */
        for (int i = 0; i < 70000; i++)
            free(malloc(24));
        long *freed = malloc(3 * sizeof *freed);
        freed[0] = 7;
        free(freed);
        if (freed[0] == 7) return 50;
        for (int i = 0; i < 512; i++)
            if (malloc(24) == (void *)freed) return 51;
        return 0;
    }
    if (strcmp(what, "poison") == 0) {
        unsigned char *b = malloc(32);
        for (int i = 0; i < 32; i++)
            if (b[i] != 0xa5) return 20;
        return 0;
    }
    long *block = malloc(3 * sizeof *block);
    block[0] = block[1] = block[2] = 1;
    if (strcmp(what, "read-past-end") == 0)
        sink = (char)block[3];
    else if (strcmp(what, "write-past-end") == 0)
        block[3] = 7;
    else if (strcmp(what, "read-after-free") == 0) {
        free(block);
        sink = (char)block[0];
    } else if (strcmp(what, "write-after-free") == 0) {
        free(block);
        block[1] = 7;
    } else if (strcmp(what, "double-free") == 0) {
        free(block);
        free(block);
    } else if (strcmp(what, "tail-within-grain") == 0) {
        /* 12 bytes asked, 16 at 8-byte grain: bytes 12-15 are not seen */
        char *c = malloc(12);
        sink = c[15];
    }
    return 0;
}
"""

BAD = ["read-past-end", "write-past-end", "read-after-free", "write-after-free", "double-free"]


class AllocatorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="guard-test-")
        source = os.path.join(cls.dir, "cases.c")
        with open(source, "w") as handle:
            handle.write(PROGRAM)
        allocator = os.path.join(REPO, "grader", "boundary", "guard_alloc.c")
        cls.guarded = os.path.join(cls.dir, "guarded")
        cls.plain = os.path.join(cls.dir, "plain")
        # as the grader links the guarded run's program (build.link_student_program)
        for argv in (["gcc", "-O1", "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", allocator, "-o",
                      os.path.join(cls.dir, "guard_alloc.o")],
                     ["gcc", "-O0", source, os.path.join(cls.dir, "guard_alloc.o"), "-static",
                      "-Wl,-z,norelro", "-o", cls.guarded],
                     ["gcc", "-O0", source, "-static", "-o", cls.plain]):
            subprocess.run(argv, check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, True)

    def run_case(self, program, case):
        return subprocess.run([program, case], capture_output=True, timeout=60)

    def test_a_correct_program_works(self):
        done = self.run_case(self.guarded, "works")
        self.assertEqual(done.returncode, 0, done)
        self.assertEqual(done.stdout, b"guarded\n")

    def test_new_blocks_hold_poison(self):
        self.assertEqual(self.run_case(self.guarded, "poison").returncode, 0)

    def test_every_bad_access_is_a_fault(self):
        for case in BAD:
            with self.subTest(case):
                self.assertEqual(self.run_case(self.guarded, case).returncode, -signal.SIGSEGV)

    def test_control_the_c_librarys_allocator_sees_none_of_them(self):
        # so each SIGSEGV above is the guard's (double-free: glibc's own
        # check aborts, which is not a fault either)
        for case in BAD:
            with self.subTest(case):
                self.assertNotEqual(self.run_case(self.plain, case).returncode, -signal.SIGSEGV)

    def test_more_live_blocks_than_mappings_never_fail(self):
        # past GUARDED_MAX the pool serves them; the first block's guard holds
        self.assertEqual(self.run_case(self.guarded, "many-live").returncode, -signal.SIGSEGV)

    def test_a_long_search_never_runs_out(self):
        # millions of blocks over a test, in 128 MiB of address space: the
        # guard must not be why a correct program fails (a solver without
        # its memo once failed Task 5's memory check here)
        for program in (self.guarded, self.plain):
            with self.subTest(program):
                self.assertEqual(self.run_case(program, "churn").returncode, 0)

    def test_a_pooled_block_waits_before_its_reuse(self):
        self.assertEqual(self.run_case(self.guarded, "quarantine").returncode, 0)

    def test_the_grain_is_eight_bytes(self):
        # the documented limit (boundary README): a 12-byte block's last 4
        # bytes of padding are not guarded
        self.assertEqual(self.run_case(self.guarded, "tail-within-grain").returncode, 0)


class VerdictTest(unittest.TestCase):
    def verdict(self, records, error=None):
        ran = mock.Mock()
        ran.describe.return_value = "exit status 0"
        with mock.patch.object(suites, "run_runner", return_value=(ran, records, error)):
            return guard.run_task(mock.Mock(pace=1.0), "/scratch", "/runner", "/program", 1,
                                  ["task1::a", "task1::b"], 7)

    def test_all_passed_is_clean(self):
        found = self.verdict({"task1::a": {"status": "passed"}, "task1::b": {"status": "passed"}})
        self.assertEqual((found["failed"], found["complete"]), ([], True))

    def test_a_crash_is_the_codes(self):
        found = self.verdict({"task1::a": {"status": "passed"},
                              "task1::b": {"status": "crashed", "messages": ["f() crashed (SIGSEGV)"]}})
        self.assertEqual(found["failed"], [("task1::b", "f() crashed (SIGSEGV)")])
        self.assertIn("task1::b", guard.message(found))
        self.assertIn("SIGSEGV", guard.message(found))

    def test_a_missing_test_is_the_codes(self):
        found = self.verdict({"task1::a": {"status": "passed"}})
        self.assertEqual([t for t, _ in found["failed"]], ["task1::b"])

    def test_the_graders_own_failure_is_never_the_codes(self):
        found = self.verdict({"task1::a": {"status": "passed"},
                              "task1::b": {"status": "failed", "messages": [
                                  "internal error: the student process did not start"]}})
        self.assertEqual(found["failed"], [])
        self.assertFalse(found["complete"])
        found = self.verdict({}, error="the test runner wrote no report")
        self.assertFalse(found["complete"])

    def test_nothing_selected_runs_nothing(self):
        self.assertIsNone(guard.run_task(mock.Mock(), "/s", "/r", "/p", 1, [], 7))


if __name__ == "__main__":
    unittest.main()
