"""Unit tests of PrairieLearn's results.json, made from the grader's (grader/gradelib/prairielearn.py).

The expected values are worked out by hand from the small documents below:
points are summed per test as Gradescope's results.json gives them.
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import prairielearn  # noqa: E402


def test(name, score, max_score, status="passed", visibility="visible", tags=("task0",), output=""):
    return {"name": name, "score": score, "max_score": max_score, "status": status,
            "visibility": visibility, "tags": list(tags), "output": output}


def document(tests, score=None, flags=()):
    return {"score": sum(t["score"] for t in tests) if score is None else score, "output": "summary",
            "tests": tests, "extra_data": {"flags": list(flags)}}


BUILD_OK = [test("Task 0 / build::grundy_position.c", 0, 0, tags=("task0", "build")),
            test("Task 1 / build::grundy_solver.c", 0, 0, tags=("task1", "build"))]


class Convert(unittest.TestCase):
    def test_score_is_the_fraction_of_every_test_points(self):
        # 3 + 1 of 4 + 4 = 8 points: 0.5.
        tests = BUILD_OK + [test("Task 0 / a", 3, 4), test("Task 1 / b", 1, 4, status="failed")]
        result = prairielearn.convert(document(tests))
        self.assertTrue(result["gradable"])
        self.assertAlmostEqual(result["score"], 0.5)
        names = [t["name"] for t in result["tests"]]
        self.assertIn("Task 0 / a", names)
        failed = next(t for t in result["tests"] if t["name"] == "Task 1 / b")
        self.assertEqual((failed["points"], failed["max_points"], failed["message"]), (1, 4, "failed"))

    def test_hidden_tests_fold_into_one_line_per_task_keeping_their_points(self):
        # Two hidden Task 1 tests, 1 of 2 and 2 of 2: one line, 3 of 4 points,
        # "1 of 2 passed"; their names and output never shown.
        tests = BUILD_OK + [test("Task 1 / task1_hidden::x", 1, 2, status="failed",
                                 visibility="after_published", output="secret case {3, 4}"),
                            test("Task 1 / task1_hidden::y", 2, 2, visibility="after_published"),
                            test("Task 0 / a", 4, 4)]
        result = prairielearn.convert(document(tests))
        self.assertAlmostEqual(result["score"], 7 / 8)
        text = json.dumps(result)
        self.assertNotIn("task1_hidden::x", text)
        self.assertNotIn("secret case", text)
        folded = next(t for t in result["tests"] if t["name"] == "Task 1 / hidden tests")
        self.assertEqual((folded["points"], folded["max_points"], folded["message"]), (3, 4, "1 of 2 passed"))

    def test_no_file_is_not_gradable(self):
        tests = [test("Task 0 / build::grundy_position.c", 0, 0, status="failed", tags=("task0", "build"),
                      output="grundy_position.c was not accepted:\ngrundy_position.c is missing from the submission"),
                 test("Task 1 / build::grundy_solver.c", 0, 0, status="failed", tags=("task1", "build"),
                      output="grundy_solver.c was not accepted:\ngrundy_solver.c is missing from the submission"),
                 test("Task 0 / a", 0, 4, status="failed")]
        result = prairielearn.convert(document(tests))
        self.assertIs(result["gradable"], False)
        self.assertIn("grundy_position.c", result["format_errors"][0])

    def test_one_file_missing_is_graded(self):
        tests = [BUILD_OK[0], test("Task 1 / build::grundy_solver.c", 0, 0, status="failed",
                                   tags=("task1", "build"),
                                   output="grundy_solver.c was not accepted:\ngrundy_solver.c is missing")]
        tests.append(test("Task 0 / a", 4, 4))
        result = prairielearn.convert(document(tests))
        self.assertTrue(result["gradable"])

    def test_a_compiler_error_is_not_gradable_a_rejection_is(self):
        error = ("grundy_solver.c was not accepted:\nsrc/grundy_solver.c: In function 'f':\n"
                 "src/grundy_solver.c:34:24: error: expected ';' before '}' token")
        compiled_not = [BUILD_OK[0], test("Task 1 / build::grundy_solver.c", 0, 0, status="failed",
                                          tags=("task1", "build"), output=error)]
        result = prairielearn.convert(document(compiled_not, flags=["not_compiled"]))
        self.assertIs(result["gradable"], False)
        self.assertIn("error: expected", result["format_errors"][0])
        rejected = [BUILD_OK[0], test("Task 1 / build::grundy_solver.c", 0, 0, status="failed",
                                      tags=("task1", "build"),
                                      output="grundy_solver.c was not accepted:\ngrundy_solver.c: calls fopen()")]
        self.assertTrue(prairielearn.convert(document(rejected, flags=["rejected:fopen"]))["gradable"])

    def test_the_document_fits_under_the_limit(self):
        tests = BUILD_OK + [test(f"Task 0 / t{i}", 0, 1, status="failed", output="x" * 15000) for i in range(200)]
        result = prairielearn.convert(document(tests))
        self.assertLess(len(json.dumps(result).encode()), prairielearn.DOCUMENT_BYTES + 1)
        self.assertEqual(len(result["tests"]), 202)

    def test_a_failure_is_not_gradable(self):
        self.assertIs(prairielearn.failure("why")["gradable"], False)


if __name__ == "__main__":
    unittest.main()
