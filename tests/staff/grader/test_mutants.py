"""Unit tests of tests/staff/grader/mutants.py: the candidates of each kind,
their edits, the seed's order, relocation into a fixture, and the judge
(compile, warnings, probe)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import mutants as M  # noqa: E402

MODEL = M.model_sources()
ALL = M.model_sources(files=M.ALL_FILES)


def find(kind, function, what, line_has=""):
    """The first candidate of kind in function whose change says what, on a
    line of the model holding line_has."""
    lines = {f: MODEL[f].splitlines() for f in M.FILES}
    found = [m for m in M.every_candidate(MODEL) if m.kind == kind and m.function == function and
             what in m.what and line_has in lines[m.file][m.line - 1]]
    assert found, (kind, function, what, line_has)
    return found[0]


class Candidates(unittest.TestCase):
    def test_every_kind_and_every_function(self):
        every = M.every_candidate(MODEL)
        self.assertEqual({m.kind for m in every}, set(M.KINDS))
        slowed = {(m.file, m.function) for m in every if m.kind == "slow"}
        for f in M.FILES:
            for name in M.function_texts(MODEL[f]):
                self.assertIn((f, name), slowed)

    def test_comments_strings_and_directives_are_not_code(self):
        text = '#include "a.h"\n/* a < b */ int f(int x)\n{\n    // x == 1\n    return x == 2;\n}\n'
        found = M.candidates("grundy_solver.c", text)
        self.assertEqual(sorted(m.what for m in found if m.kind == "negate"), ["`==` -> `!=`"])
        self.assertTrue(all(m.line == 5 for m in found if m.kind != "slow"))

    def test_one_edit_each(self):
        m = find("bound", "grundy_get_moves", "`<` -> `<=`", "smaller")
        mutated = M.apply(MODEL, [m])["grundy_position.c"]
        self.assertIn("smaller <= height - smaller", mutated)
        self.assertEqual(len(mutated), len(MODEL["grundy_position.c"]) + 1)
        self.assertEqual(M.apply(MODEL, [m])["grundy_solver.c"], MODEL["grundy_solver.c"])

    def test_a_statement_dropped_keeps_the_lines(self):
        m = find("drop", "grundy_free", "free ( p -> entries )")
        mutated = M.apply(MODEL, [m])["grundy_position.c"]
        self.assertNotIn("free(p->entries);", mutated)
        self.assertEqual(mutated.count("\n"), MODEL["grundy_position.c"].count("\n"))

    def test_no_value_left_unreturned(self):
        for m in M.every_candidate(MODEL):
            if m.kind == "drop":
                self.assertFalse(m.what.startswith("statement `return ") and m.what != "statement `return ;` removed",
                                 m.description)

    def test_for_headers_are_not_statements(self):
        for m in M.every_candidate(MODEL):
            self.assertNotIn("statement `i < ", m.what)

    def test_swap_and_index(self):
        m = find("swap", "grundy_add_heap", "memmove(..., &p->entries[i + 1], &p->entries[i]")
        self.assertIn("memmove(&p->entries[i], &p->entries[i + 1],", M.apply(MODEL, [m])["grundy_position.c"])
        m = find("index", "grundy_count", "`[i]` -> `[0]`", "return")
        self.assertIn("return p->entries[0].count;", M.apply(MODEL, [m])["grundy_position.c"])

    def test_two_functions_apply_together(self):
        a = find("bound", "grundy_get_moves", "`<` -> `<=`", "smaller")
        b = find("drop", "grundy_free", "free ( p -> entries )")
        both = M.apply(MODEL, [a, b])["grundy_position.c"]
        self.assertIn("smaller <= height - smaller", both)
        self.assertNotIn("free(p->entries);", both)

    def test_ids_are_stable_and_distinct(self):
        every = M.every_candidate(MODEL)
        self.assertEqual(len({m.id for m in every}), len(every))
        self.assertEqual([m.id for m in every], [m.id for m in M.every_candidate(MODEL)])

    def test_the_seed_decides_the_order(self):
        every = M.every_candidate(MODEL)
        first = [m.id for m in M.order(every, 7)]
        self.assertEqual(first, [m.id for m in M.order(every, 7)])
        self.assertNotEqual(first, [m.id for m in M.order(every, 8)])
        self.assertEqual(sorted(first), sorted(m.id for m in every))
        self.assertEqual(len({m.kind for m in M.order(every, 7)[:len(M.KINDS)]}), len(M.KINDS))

    def test_relocation_skips_what_the_fixture_changed(self):
        fixture = dict(MODEL)
        fixture["grundy_position.c"] = MODEL["grundy_position.c"].replace(
            "    uint64_t hash = 0x9e3779b97f4a7c15u;", "    /* two more lines */\n\n    uint64_t hash = 0;")
        hashed = find("negate", "grundy_hash", "`<` -> `>=`")
        self.assertIsNone(M.relocate(hashed, MODEL, fixture))
        later = find("bound", "grundy_get_moves", "`<` -> `<=`", "smaller")
        moved = M.relocate(later, MODEL, fixture)
        self.assertEqual(moved.line, later.line + 2)
        self.assertIn("smaller <= height - smaller", M.apply(fixture, [moved])["grundy_position.c"])


class PartTwo(unittest.TestCase):
    def test_every_part2_function_has_candidates(self):
        every = M.every_candidate(M.model_sources(files=M.ALL_FILES))
        slowed = {(m.file, m.function) for m in every if m.kind == "slow"}
        for f in M.PART2_FILES:
            self.assertTrue(M.function_texts(ALL[f]), f)
            for name in M.function_texts(ALL[f]):
                self.assertIn((f, name), slowed)
        self.assertFalse(any(m.file in M.PART2_FILES for m in M.every_candidate(MODEL)))


class Judging(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.judge = M.Judge()

    @classmethod
    def tearDownClass(cls):
        cls.judge.close()

    def verdict(self, m):
        return self.judge.verdict(MODEL, M.apply(MODEL, [m]), m.kind == "slow")

    def test_a_wrong_move_generator_is_told_apart(self):
        self.assertEqual(self.verdict(find("bound", "grundy_get_moves", "`<` -> `<=`", "smaller")), "ok")

    def test_a_leak_is_told_apart(self):
        self.assertEqual(self.verdict(find("drop", "grundy_free", "free ( p -> entries )")), "ok")

    def test_another_hash_seed_is_equivalent(self):
        self.assertEqual(self.verdict(find("bound", "grundy_hash", "0x9e3779b97f4a7c16u")), "equivalent")

    def test_a_wrong_nimber_table_is_told_apart(self):
        every = M.every_candidate(ALL)
        m = next(m for m in every if m.kind == "bound" and m.function == "grundy_nim_table" and
                 "`<` -> `<=`" in m.what and "h - a" in ALL[m.file].splitlines()[m.line - 1])
        self.assertEqual(self.judge.verdict(ALL, M.apply(ALL, [m]), False), "ok")

    def test_one_part2_file_is_probed_with_the_models_others(self):
        one = {**MODEL, "grundy_table.c": ALL["grundy_table.c"]}
        m = next(m for m in M.every_candidate(one) if m.kind == "bound" and m.function == "grundy_nim_table"
                 and "`<` -> `<=`" in m.what and "h - a" in one[m.file].splitlines()[m.line - 1])
        self.assertEqual(self.judge.verdict(one, M.apply(one, [m]), False), "ok")

    def test_part2_model_is_its_own_equal(self):
        self.assertEqual(self.judge.verdict(ALL, dict(ALL), False), "equivalent")

    def test_a_dropped_declaration_does_not_compile(self):
        self.assertEqual(self.verdict(find("drop", "grundy_count", "size_t i = lower_bound")), "does not compile")

    def test_a_bool_passed_as_a_pointer_is_not_kept(self):
        verdict = self.verdict(find("swap", "remember", "p, is_p"))
        self.assertTrue(verdict == "does not compile" or verdict.startswith("new warning"), verdict)

    def test_a_value_left_uninitialized_is_not_kept(self):
        text = MODEL["grundy_solver.c"].replace("    return is_n;", "    int unset;\n    return is_n + unset;")
        verdict = self.judge.verdict(MODEL, {**MODEL, "grundy_solver.c": text}, False)
        self.assertTrue(verdict.startswith("new warning") and "uninitialized" in verdict, verdict)


if __name__ == "__main__":
    unittest.main()
