"""Unit tests of grader/gradelib/labdef.py: the lab's definition is read
whole, each section's keys stay its own, a variant extends the base, and a
mistake in the file is an error that names where it is."""

import os
import re
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "grader"))

from gradelib import labdef  # noqa: E402

MINIMAL = """\
[lab]
cflags = -std=c11 -O2
warnings = -Wall
headers = grundy.h
tasks = 0 1

[timing]
ratio = 60
calibration_runs = 3
shapes =
    single_heap 1 40-46 any
    two_heaps_p 2 38-46 P
public_positions =
    45
    20 23

[limits]
call_seconds = 8
timeouts_before_short_limit = 2
short_call_seconds = 2
student_cpu_seconds = 30
student_address_space_mib = 512
valgrind_quit_seconds = 10
coverage_quit_seconds = 3
linger_seconds = 0.05
grading_seconds_per_task = 30
grading_cap_ceiling_seconds = 480
test_seconds = 15
valgrind_test_seconds = 90
runner_seconds = 240
valgrind_runner_seconds = 300
rescue_runner_seconds = 10
crash_rerun_seconds = 30
compile_cpu_seconds = 60
compile_wall_seconds = 90
build_wall_seconds = 90
tool_cpu_seconds = 20
tool_wall_seconds = 30
gcovr_cpu_seconds = 60
gcovr_wall_seconds = 120
coverage_cpu_seconds = 10
coverage_wall_seconds = 30
timing_cpu_seconds = 30
timing_wall_seconds = 60
calibration_cpu_seconds = 60
calibration_wall_seconds = 120
pace_probe_seconds = 60
memo_seconds = 60
growth_seconds = 60
sandbox_probe_seconds = 20
challenge_seconds = 120
similarity_run_seconds = 600

[challenge]
ratio = 5
yardstick_heap = 50
first = 44
last = 400

[task0]
title = the map
file = a.c
anchor = task-0
points = 40

[task1]
title = the solver
file = b.c
anchor = task-1
points = 60
timed = yes

[task5]
title = extra
file = c.c
header = c.h
anchor = task-5
points = 5
optional = yes

[api]
f_new = 0 position int
f_solve = 1 bool position
f_table = 5 ints int
"""


class Definition(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(text))
        return path

    def test_each_section_keeps_its_own_keys(self):
        lab = labdef.load(self.write("lab.ini", MINIMAL))
        self.assertEqual(lab.timing_ratio, 60.0)          # not the challenge's 5
        self.assertEqual(lab.challenge.ratio, 5.0)
        self.assertEqual([t.number for t in lab.tasks], [0, 1])
        self.assertEqual([t.number for t in lab.all_tasks], [0, 1, 5])
        self.assertEqual([f.name for f in lab.functions], ["f_new", "f_solve"])
        self.assertEqual([s.outcome for s in lab.shapes], [None, "P"])
        self.assertEqual(lab.public_positions, ((45,), (20, 23)))
        self.assertEqual(lab.files, ["a.c", "b.c"])

    def test_prototypes(self):
        lab = labdef.load(self.write("lab.ini", MINIMAL))
        by_name = {f.name: f for f in lab.all_functions}
        self.assertEqual(by_name["f_new"].prototype(["h"]), "grundy_position *f_new(int h)")
        self.assertEqual(by_name["f_table"].prototype(["n"]), "int *f_table(int n, size_t *length)")

    def test_a_variant_extends_the_base(self):
        self.write("lab.ini", MINIMAL)
        variant = self.write("all.ini", "[lab]\nextends = lab.ini\ntasks = 0 1 5\n")
        lab = labdef.load(variant)
        self.assertEqual([t.number for t in lab.tasks], [0, 1, 5])
        self.assertEqual(lab.variant, "all")
        self.assertEqual(lab.build_suffix, "-all")
        self.assertEqual(lab.timing_ratio, 60.0)

    def test_mistakes_are_named(self):
        cases = {
            "a task that is not optional left out": MINIMAL.replace("tasks = 0 1", "tasks = 0"),
            "an unknown result type": MINIMAL.replace("f_solve = 1 bool position", "f_solve = 1 boolean position"),
            "a function of a task with no section": MINIMAL.replace("f_new = 0", "f_new = 9"),
            "points that are not a number": MINIMAL.replace("points = 40", "points = forty"),
            "no [api]": MINIMAL[:MINIMAL.index("[api]")],
            "a bad shape": MINIMAL.replace("single_heap 1 40-46 any", "single_heap 1 40 any"),
            "a limit missing": MINIMAL.replace("linger_seconds = 0.05\n", ""),
            "a limit that is no number": MINIMAL.replace("call_seconds = 8", "call_seconds = eight"),
            "a limit of 0": MINIMAL.replace("short_call_seconds = 2", "short_call_seconds = 0"),
            "an unknown limit": MINIMAL.replace("[challenge]", "wall_seconds = 3\n\n[challenge]"),
        }
        for what, text in cases.items():
            with self.subTest(what):
                with self.assertRaises(labdef.LabDefinitionError) as caught:
                    labdef.load(self.write("bad.ini", text))
                self.assertIn("bad.ini", str(caught.exception))

    def test_limits_have_one_home(self):
        # C takes every limit from the generated grader_limits.h: no
        # fallback of the proxy or a probe is a number of its own.
        lab = labdef.load(self.write("lab.ini", MINIMAL))
        self.assertEqual(lab.limits["linger_seconds"], 0.05)
        self.assertEqual(set(lab.limits), set(labdef.LIMITS))
        boundary = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "grader", "boundary")
        fallbacks = []
        for name in sorted(os.listdir(boundary)):
            if name.endswith(".c"):
                with open(os.path.join(boundary, name), encoding="utf-8") as handle:
                    fallbacks += re.findall(r'env_positive_number\("\w+",\s*([^)]+)\)', handle.read())
        self.assertTrue(fallbacks)
        for fallback in fallbacks:
            self.assertRegex(fallback.strip(), r"^GRADER_[A-Z_]+$")

    def test_the_old_cap_key_names_its_replacement(self):
        # a term file from before the cap followed the term
        text = MINIMAL.replace("grading_seconds_per_task = 30", "grading_wall_seconds = 90")
        with self.assertRaises(labdef.LabDefinitionError) as caught:
            labdef.load(self.write("old.ini", text))
        self.assertIn("unknown key: grading_wall_seconds; grading_wall_seconds is now "
                      "grading_seconds_per_task", str(caught.exception))

    def test_rules_between_limits_name_both_keys(self):
        # Each rule of LIMIT_RULES, broken in turn: the definition does
        # not load, and the error names both keys (a test's time-out set
        # below a call's, for instance).
        # The grading's cap is no key: it is grading_seconds_per_task for
        # each task, and the error names that key.
        self.assertTrue(labdef.LIMIT_RULES)
        tasks = len(labdef.load(self.write("good.ini", MINIMAL)).tasks)
        per_task = float(re.search(r"^grading_seconds_per_task = (\S+)$", MINIMAL, re.M).group(1))

        def value_of(key):
            if key == "grading_wall_seconds":
                return per_task * tasks
            return float(re.search(rf"^{key} = (\S+)$", MINIMAL, re.M).group(1))

        def named(key):
            return "grading_seconds_per_task" if key == "grading_wall_seconds" else key

        for low, high, strict, _ in labdef.LIMIT_RULES:
            with self.subTest(f"{low} vs {high}"):
                broken = value_of(low) if strict else value_of(low) - 1
                if high == "grading_wall_seconds":
                    line = f"grading_seconds_per_task = {broken / tasks:g}"
                else:
                    line = f"{high} = {broken:g}"
                text = re.sub(rf"^{named(high)} = .*$", line, MINIMAL, flags=re.M)
                with self.assertRaises(labdef.LabDefinitionError) as caught:
                    labdef.load(self.write("bad.ini", text))
                self.assertIn(named(low), str(caught.exception))
                self.assertIn(named(high), str(caught.exception))
        text = re.sub(r"^test_seconds = .*$", "test_seconds = 8", MINIMAL, flags=re.M)
        with self.assertRaises(labdef.LabDefinitionError) as caught:
            labdef.load(self.write("bad.ini", text))
        self.assertIn("call_seconds = 8 must be below test_seconds = 8", str(caught.exception))

    def test_no_literal_time_limit_in_the_grader(self):
        # Python takes every time limit from [limits]: no sandbox.Limits
        # of the grader's modules states a number of seconds of its own.
        gradelib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "grader", "gradelib")
        found = []
        for name in sorted(os.listdir(gradelib)):
            if name.endswith(".py"):
                with open(os.path.join(gradelib, name), encoding="utf-8") as handle:
                    text = handle.read()
                found += [f"{name}: {m}" for m in
                          re.findall(r"(?:cpu|wall)_seconds=\d[\d.]*\b(?![\d.]*\s*\*)", text)]
                found += [f"{name}: {m}" for m in
                          re.findall(r"^[A-Z_]*(?:SECONDS|TIMEOUT|CEILING)[A-Z_]* = \d+\s*(?:#.*)?$", text, re.M)]
        self.assertEqual(found, [])

    def test_term_text_stands_alone(self):
        # A package ships one lab.ini: the variant's keys merged into the
        # base it extends define the same lab, comments and all kept.
        base = labdef.DEFAULT_PATH
        # a term other than the configured one, whatever that is
        base_tasks = [t.number for t in labdef.load(base).tasks]
        other = "0 1 2" if base_tasks != [0, 1, 2] else "all"
        variant = self.write("variant.ini", f"[lab]\nextends = {base}\ntasks = {other}\n")
        text = labdef.term_text(variant)
        self.assertNotIn("extends", text)
        merged = labdef.load(self.write("lab.ini", text))
        wanted = labdef.load(variant)
        self.assertEqual([t.number for t in merged.tasks], [t.number for t in wanted.tasks])
        self.assertNotEqual([t.number for t in merged.tasks], [t.number for t in labdef.load(base).tasks])
        self.assertEqual(merged.limits, wanted.limits)
        self.assertEqual(merged.shapes, wanted.shapes)
        self.assertIn("# The tasks of this term, in order.", text)
        with open(base, encoding="utf-8") as handle:
            self.assertEqual(labdef.term_text(base), handle.read())

    def test_the_project_definition_loads(self):
        lab = labdef.load()
        self.assertTrue(any(t.timed for t in lab.tasks))
        self.assertGreater(lab.timing_ratio, 1)


if __name__ == "__main__":
    unittest.main()
