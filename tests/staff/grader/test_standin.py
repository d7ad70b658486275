"""Unit tests of grader/gradelib/ctokens.py (the normaliser and the fingerprints) and
grader/gradelib/standin.py (the copy check): a grundy_position.c copied from the public
stand-in map is flagged however renamed, padded with empty statements, dead code or extra
statements; the model map, the stub and the honest maps of the similarity test bed, written
apart from it, are not; a 1 MiB file is checked in linear time within the token budget.
Mutants checks that each test of the normaliser and the fingerprints can fail: each mutation
of ctokens breaks the test it names."""

import os
import random
import re
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "grader"))

from gradelib import config, ctokens, standin  # noqa: E402


def read(*parts):
    with open(os.path.join(REPO, *parts), encoding="utf-8") as handle:
        return handle.read()


STANDIN = read("tests", "public", "standin", "grundy_position.c")
HONEST = ["independent_a", "independent_b", "independent_c", "independent_d", "guided_e", "guided_f"]


def toks(text, budget=10000):
    return ctokens.normalise(text, budget).tokens


def every_statement(text, insert):
    """text with `insert` after every line that ends a statement."""
    return re.sub(r";\n", ";\n" + insert, text)


def check_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as handle:
        handle.write(text)
    try:
        return standin.check(handle.name)
    finally:
        os.remove(handle.name)


class Normaliser(unittest.TestCase):
    def test_names_literals_comments_layout(self):
        self.assertEqual(toks("int  a = 12; /* x */ f(\"s\", 'c'); // y\n"),
                         toks("int\nbanana=0x7;\tg(\"other\",'d');"))
        self.assertEqual(toks("int a = 12;"), ["int", "ID", "=", "N", ";"])
        self.assertNotEqual(toks("a = b;"), toks("a == b;"))

    def test_braces_are_layout(self):
        self.assertEqual(toks("if (c) x = 1;"), toks("if (c) { x = 1; }"))

    def test_empty_statements_are_dropped(self):
        plain = "void f(void) { a = 1; if (b) c(); }"
        self.assertEqual(toks(plain), toks("; void f(void) { ;; a = 1;; ; if (b) { c(); }; };"))
        self.assertEqual(toks("for (;;) x;"), ["for", "(", ";", ";", ")", "ID", ";"])
        self.assertNotEqual(toks("x;"), toks(""))

    def test_preprocessor_and_dead_code_are_dropped(self):
        live = "int a;\nint b;\n"
        for dead in ("#if 0\nint junk;\n#if X\nint more;\n#endif\n#endif\n",
                     "#if (0)\nint junk;\n#elif 0\nint more;\n#endif\n",
                     "  #  if 0 \\\n\nint junk; /* #endif */\n#endif\n",
                     "#define M(x) \\\n    ((x) + 1)\n#include <stdio.h>\n"):
            self.assertEqual(toks("int a;\n" + dead + "int b;\n"), toks(live), dead)
        self.assertEqual(toks("#if 0\nint junk;\n#else\nint a;\n#endif\nint b;\n"), toks(live))
        self.assertEqual(toks("#if 1\nint a;\n#else\nint junk;\n#endif\nint b;\n"), toks(live))
        self.assertEqual(toks("#ifdef X\nint a;\n#else\nint b;\n#endif\n"), toks(live))
        found = ctokens.normalise("int a;\n#if 0\n" + "x;\n" * 100 + "#endif\nint b;\n", 100)
        self.assertEqual(found.dead_bytes, 300)
        self.assertEqual(found.tokens, toks(live))

    def test_the_compiled_text_keeps_lines(self):
        text = "int a;;\n#if 0\njunk;\n#endif\n/* c */ if (b) { c(); };\n"
        done = ctokens.compiled_text(text, ctokens.normalise(text, 100))
        self.assertEqual(done.count("\n"), text.count("\n"))
        self.assertEqual(done.split("\n")[4].split(), ["if", "(b)", "{", "c();", "}"])
        self.assertNotIn("junk", done)
        self.assertEqual(done.split("\n")[0].split(), ["int", "a;"])

    def test_the_budget_stops_the_scan(self):
        found = ctokens.normalise("x = 1;\n" * 1000, 100)
        self.assertTrue(found.truncated)
        self.assertEqual(len(found.spans), 100)
        self.assertFalse(ctokens.normalise("x = 1;\n" * 10, 100).truncated)

    def test_hostile_text_is_linear(self):
        size = config.MAX_SOURCE_BYTES
        for text in ("/*" * (size // 2), '"' + "a" * size, "\n" * size, " " * size + "#", "/*" + "*" * size,
                     "#if 0\n" + "'\\''" * (size // 4)):
            started = time.process_time()
            ctokens.normalise(text, config.MAX_SOURCE_TOKENS)
            self.assertLess(time.process_time() - started, 5, text[:8])


class Fingerprints(unittest.TestCase):
    def test_a_shared_stretch_of_w_plus_k_minus_1_tokens_is_found(self):
        rng = random.Random(7)
        words = [f"t{i}" for i in range(50)]
        for _ in range(200):
            shared = [rng.choice(words) for _ in range(ctokens.W + ctokens.K - 1)]
            a = [rng.choice(words) for _ in range(rng.randrange(30))] + shared + [rng.choice(words)
                                                                                 for _ in range(rng.randrange(30))]
            b = [rng.choice(words) for _ in range(rng.randrange(30))] + shared
            self.assertTrue(ctokens.fingerprints(a) & ctokens.fingerprints(b), shared)

    def test_the_same_in_every_process(self):
        program = ("import sys; sys.path.insert(0, 'grader'); from gradelib import ctokens; "
                   "print(sorted(ctokens.fingerprints(ctokens.normalise(open(sys.argv[1]).read(), 9999).tokens)))")
        path = os.path.join(REPO, "tests", "public", "standin", "grundy_position.c")
        outputs = {subprocess.run([sys.executable, "-c", program, path], cwd=REPO, capture_output=True, text=True,
                                  env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
                   for seed in ("1", "2")}
        self.assertEqual(len(outputs), 1)

    def test_containment(self):
        a = toks(STANDIN)
        self.assertEqual(ctokens.contained(a, a), 1.0)
        self.assertEqual(ctokens.contained(a, a + toks(read("reference", "grundy_solver.c"))), 1.0)
        self.assertEqual(ctokens.contained([], a), 0.0)
        self.assertLess(ctokens.contained(a, a[: len(a) // 2]), standin.THRESHOLD)


class StandinCopy(unittest.TestCase):
    def test_the_stand_in_itself_is_all_shared(self):
        self.assertEqual(standin.share(STANDIN), 1.0)

    def test_a_renamed_reformatted_copy_is_flagged(self):
        text = re.sub(r"/\*.*?\*/", "", STANDIN, flags=re.S)
        names = {"standin_slot": "where", "twin": "c2", "p": "pos", "slot": "at", "height": "h", "i": "k",
                 "grown": "bigger", "wanted": "room", "whole": "n", "big": "part", "child": "next", "e": "j"}
        text = re.sub(r"\b(" + "|".join(names) + r")\b", lambda m: names[m.group()], text).replace("    ", "\t")
        flagged, share = check_text(text)
        self.assertTrue(flagged, share)

    def test_a_padded_copy_is_flagged(self):
        text = STANDIN.replace(";\n", ";;\n").replace("}\n", "};\n")
        self.assertEqual(check_text(text), (True, 1.0))

    def test_a_copy_with_dead_code_is_flagged(self):
        for insert in ("#if 0\njunk(); more = 1;\n#endif\n", "    (void)0;\n",
                       "    if (p == NULL && p != NULL) p = NULL;\n"):
            flagged, share = check_text(every_statement(STANDIN, insert))
            self.assertTrue(flagged, (insert, share))

    def test_the_fixtures_are_flagged(self):
        for name in ("standin_copy", "standin_padded"):
            self.assertTrue(standin.check(os.path.join(REPO, "tests", "staff", "fixtures", name,
                                                       "grundy_position.c"))[0], name)

    def test_the_model_map_the_stub_and_honest_maps_are_not(self):
        paths = [("reference", "grundy_position.c"), ("student", "grundy_position.c")]
        paths += [("tests", "staff", "fixtures", "similarity", name, "grundy_position.c") for name in HONEST]
        for path in paths:
            share = standin.share(read(*path))
            self.assertLess(share, standin.THRESHOLD, path)

    def test_a_missing_file_is_not_flagged(self):
        self.assertEqual(standin.check(os.path.join(REPO, "no-such-file.c")), (False, 0.0))

    def test_a_mebibyte_of_dead_code_is_cheap_and_changes_nothing(self):
        model = read("reference", "grundy_position.c")
        line = "    x = y + 1; f(a, b); /* c */ \"s\";\n"
        text = model + "#if 0\n" + line * ((config.MAX_SOURCE_BYTES - len(model)) // len(line) - 1) + "#endif\n"
        started = time.process_time()
        found = check_text(text)
        self.assertLess(time.process_time() - started, 5)
        self.assertEqual(tuple(found), tuple(check_text(model)))
        self.assertFalse(found.truncated)

    def test_past_the_budget_is_not_compared(self):
        text = "int x;\n" * config.MAX_SOURCE_TOKENS + STANDIN
        found = check_text(text)
        self.assertTrue(found.truncated)
        self.assertFalse(found[0])
        self.assertIn("budget", found.line())


class Mutants(unittest.TestCase):
    """Each mutation of ctokens makes the named test fail."""

    MUTATIONS = [
        ("no dead code", "_condition", lambda words: None,
         [(Normaliser, "test_preprocessor_and_dead_code_are_dropped"),
          (StandinCopy, "test_a_mebibyte_of_dead_code_is_cheap_and_changes_nothing")]),
        ("empty statements kept", "empty_statement", lambda value, depth, previous: False,
         [(Normaliser, "test_empty_statements_are_dropped"), (StandinCopy, "test_a_padded_copy_is_flagged")]),
        ("braces kept", "LAYOUT", frozenset(),
         [(Normaliser, "test_braces_are_layout")]),
        ("names kept", "token_kind", lambda kind, value: value,
         [(Normaliser, "test_names_literals_comments_layout"),
          (StandinCopy, "test_a_renamed_reformatted_copy_is_flagged")]),
        ("k-grams of one token", "hashes", lambda tokens, k=1: [hash(t) & 0xffff for t in tokens],
         [(StandinCopy, "test_the_model_map_the_stub_and_honest_maps_are_not")]),
        ("no winnowing: every tenth k-gram", "fingerprints",
         lambda tokens, k=ctokens.K, w=ctokens.W: set(ctokens.hashes(tokens, k)[::10]),
         [(Fingerprints, "test_a_shared_stretch_of_w_plus_k_minus_1_tokens_is_found")]),
    ]

    def test_each_mutation_breaks_its_test(self):
        for what, name, replacement, tests in self.MUTATIONS:
            for case, method in tests:
                with self.subTest(mutation=what, test=method), mock.patch.object(ctokens, name, replacement):
                    result = unittest.TestResult()
                    case(method).run(result)
                    self.assertTrue(result.failures or result.errors, f"{method} passes with '{what}'")

    def test_unmutated_the_tests_pass(self):
        for _, _, _, tests in self.MUTATIONS:
            for case, method in tests:
                result = unittest.TestResult()
                case(method).run(result)
                self.assertTrue(result.wasSuccessful(), (method, result.failures, result.errors))


if __name__ == "__main__":
    unittest.main()
