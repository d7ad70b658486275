"""Unit tests of the object checks' reading of binutils output
(grader/gradelib/objcheck.py), with a stand-in for the sandboxed tool
runner: what a failed or cut tool run means, and what the checks find."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import objcheck  # noqa: E402

NM = "grundy_is_p_position T 0 10\nmalloc U\nhelper T 10 5\n"
SECTIONS = ("\nfile.o:     file format elf64-x86-64\n\nSections:\n"
            "Idx Name          Size      VMA               LMA               File off  Algn\n"
            "  0 .text         00000010  0000000000000000  0000000000000000  00000040  2**4\n")


def tool_with(outputs, failing=()):
    """A tool runner answering each command from `outputs` (by its first
    words), failing those named in `failing`."""
    calls = []

    def tool(argv):
        calls.append(argv)
        key = " ".join(argv[:2])
        if argv[0] in failing:
            return 1, "", f"{argv[0]}: file format not recognized"
        return 0, outputs.get(key, ""), ""
    tool.calls = calls
    return tool


class ObjectChecks(unittest.TestCase):
    def test_a_clean_object_has_no_problems(self):
        tool = tool_with({"nm -P": NM, "objdump -h": SECTIONS, "objdump -d": "  0: ret\n"})
        problems, defined = objcheck.check("x.o", "grundy_solver.c", tool)
        self.assertEqual(problems, [])
        self.assertEqual(defined, {"grundy_is_p_position", "helper"})

    def test_forbidden_calls_sections_and_syscalls_are_named(self):
        tool = tool_with({"nm -P": NM + "fork U\n",
                          "objdump -h": SECTIONS.replace(".text  ", ".init_array"),
                          "objdump -d": "  0: mov $0x39,%eax\n  5: syscall\n"})
        problems, _ = objcheck.check("x.o", "grundy_solver.c", tool)
        self.assertEqual(sorted(name for name, _ in problems), ["constructor", "fork", "syscall"])

    def test_a_failed_tool_is_an_error_never_a_clean_object(self):
        for failing in ("nm", "objdump"):
            tool = tool_with({"nm -P": NM, "objdump -h": SECTIONS}, failing=(failing,))
            with self.assertRaises(objcheck.ToolFailed):
                objcheck.check("x.o", "grundy_solver.c", tool)

    def test_without_the_checks_only_the_symbols_are_read(self):
        tool = tool_with({"nm -P": NM + "fork U\n"})
        problems, defined = objcheck.check("x.o", "grundy_solver.c", tool, forbid=False)
        self.assertEqual(problems, [])
        self.assertIn("helper", defined)
        self.assertEqual([argv[0] for argv in tool.calls], ["nm"])

    def test_localize_keeps_the_api_global_and_nothing_else(self):
        tool = tool_with({})
        ok, _ = objcheck.localize("x.o", "y.o", {"grundy_is_p_position", "helper"}, tool)
        self.assertTrue(ok)
        argv = tool.calls[-1]
        self.assertEqual(argv[0], "objcopy")
        self.assertIn("helper", argv)
        self.assertNotIn("grundy_is_p_position", argv)


if __name__ == "__main__":
    unittest.main()
