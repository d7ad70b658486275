"""Unit tests of the search for valgrind's client-request preamble
(grader/gradelib/clientreq.py): the bytes are those the assembler makes of
the instructions valgrind.h names, a client request compiled from
valgrind.h is found, the same code without it is not, and a file that is
not a regular one is refused, never followed."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import clientreq  # noqa: E402

AMD64 = ".text\nrolq $3,%rdi\nrolq $13,%rdi\nrolq $61,%rdi\nrolq $51,%rdi\n"
SOURCE = """#include <valgrind/valgrind.h>
int quiet(int x) { %s return x + 1; }
"""


def is_amd64():
    return os.uname().machine == "x86_64"


class ClientRequestTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def build(self, name, text, assembler=False):
        source = os.path.join(self.dir, name + (".s" if assembler else ".c"))
        with open(source, "w") as handle:
            handle.write(text)
        obj = os.path.join(self.dir, name + ".o")
        subprocess.run(["as" if assembler else "gcc", *([] if assembler else ["-O2", "-c"]), source,
                        "-o", obj], check=True, capture_output=True)
        return obj

    @unittest.skipUnless(is_amd64() and shutil.which("as"), "needs an amd64 assembler")
    def test_the_table_holds_what_the_assembler_makes(self):
        obj = self.build("preamble", AMD64, assembler=True)
        text = subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", obj, "/dev/stdout"],
                              check=True, capture_output=True).stdout
        self.assertEqual(text, dict((a, b) for a, b, _ in clientreq.PREAMBLES)["amd64"])

    @unittest.skipUnless(is_amd64() and os.path.exists("/usr/include/valgrind/valgrind.h"),
                         "needs valgrind.h on amd64")
    def test_a_compiled_request_is_found_and_named(self):
        with_request = self.build("with", SOURCE % "VALGRIND_DISABLE_ERROR_REPORTING;")
        without = self.build("without", SOURCE % "")
        self.assertIsNone(clientreq.problem(without, "quiet.c"))   # the control
        found = clientreq.problem(with_request, "quiet.c")
        self.assertIsNotNone(found)
        self.assertIn("quiet.c contains valgrind's client-request preamble (amd64", found)

    def test_a_preamble_cut_in_two_is_not_one(self):
        pattern = clientreq.PREAMBLES[0][1]
        self.assertIsNotNone(clientreq.find(b"x" + pattern + b"y"))
        self.assertIsNone(clientreq.find(pattern[:8] + b"\x90" + pattern[8:]))

    def test_a_link_is_refused_not_followed(self):
        target = os.path.join(self.dir, "real")
        with open(target, "wb") as handle:
            handle.write(b"nothing")
        link = os.path.join(self.dir, "link")
        os.symlink(target, link)
        found = clientreq.problem(link, "the linked program")
        self.assertIn("could not be checked", found)


if __name__ == "__main__":
    unittest.main()
