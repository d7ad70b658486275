"""Unit tests of the trusted side's parsers of what untrusted runs produced:
valgrind's XML (memcheck.py), gcovr's summary (coverage.py), the probes'
verdict lines (probes.py) and the runners' reports (suites.py).

Every parser is fed garbage, truncation, huge input, wrong types and NUL
bytes: each must answer "the check could not run" or "the test failed",
with a reason, and never raise; and no forged text may come out of the
valgrind parser into a finding.
"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "..", "grader"))

from gradelib import coverage, memcheck, probes, suites  # noqa: E402

GARBAGE = [b"", b"\x00" * 100, b"<valgrindoutput>", b"not xml at all </valgrindoutput>",
           b"\xff\xfe\x00<", b"<a>" * 100000 + b"</valgrindoutput>", os.urandom(4096),
           b"<valgrindoutput>" + b"x" * (9 << 20) + b"</valgrindoutput>"]


def error_xml(directory, fn="grundy_new", line="3", kind="Leak_DefinitelyLost",
              what="8 bytes in 1 blocks are definitely lost in loss record 1 of 1"):
    return (f"<error><unique>0x1</unique><tid>1</tid><kind>{kind}</kind><xwhat><text>{what}</text>"
            f"</xwhat><stack><frame><ip>0x1</ip><fn>malloc</fn><dir>/usr/lib</dir>"
            f"<file>vg_replace_malloc.c</file><line>381</line></frame><frame><ip>0x2</ip>"
            f"<fn>{fn}</fn><dir>{directory}</dir><file>grundy_position.c</file><line>{line}</line>"
            "</frame></stack></error>")


def report(*errors, extra=""):
    return ("<?xml version=\"1.0\"?>\n<valgrindoutput>\n<protocolversion>4</protocolversion>\n"
            + "\n".join(errors) + extra + "\n</valgrindoutput>\n").encode()


class ValgrindReport(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "grundy_position.c"), "w", encoding="utf-8") as handle:
            handle.write("#include <stdlib.h>\n\ngrundy_position *grundy_new(int h)\n{\n"
                         "    return malloc(8);\n}\n")

    def test_a_real_leak_is_a_finding_with_file_line_and_function(self):
        findings, problem = memcheck.parse(report(error_xml(self.dir)), self.dir)
        self.assertEqual(problem, "")
        self.assertEqual(len(findings), 1)
        self.assertEqual((findings[0]["file"], findings[0]["line"], findings[0]["function"]),
                         ("grundy_position.c", 3, "grundy_new"))
        self.assertEqual(findings[0]["what"], memcheck.KINDS["Leak_DefinitelyLost"])

    def test_a_leak_names_the_callers_in_the_submission_after_the_allocating_frame(self):
        with open(os.path.join(self.dir, "grundy_solver.c"), "w", encoding="utf-8") as handle:
            handle.write("static void remember(void)\n{\n}\nbool grundy_is_p_position(void)\n{\n}\n")
        def frame(fn, file, line):
            return (f"<frame><ip>0x2</ip><fn>{fn}</fn><dir>{self.dir}</dir><file>{file}</file>"
                    f"<line>{line}</line></frame>")
        frames = "".join([frame("grundy_new", "grundy_position.c", 3), frame("remember", "grundy_solver.c", 2),
                          frame("remember", "grundy_solver.c", 2), frame("grundy_is_p_position", "grundy_solver.c", 5),
                          frame("grundy_is_p_position", "grundy_solver.c", 6), frame("remember", "grundy_solver.c", 1)])
        error = error_xml(self.dir).replace("</stack>", frames.replace(frame("grundy_new", "grundy_position.c", 3), "")
                                            + "</stack>")
        findings, problem = memcheck.parse(report(error), self.dir)
        self.assertEqual(problem, "")
        self.assertEqual(findings[0]["function"], "grundy_new")
        # each function once, at most CALLERS of them, in the stack's order
        self.assertEqual(findings[0]["callers"], ["grundy_solver.c:2 in remember",
                                                  "grundy_solver.c:5 in grundy_is_p_position"])
        from gradelib import pipeline
        text = pipeline._findings_text({"findings": findings, "complete": True})
        self.assertIn("grundy_position.c:3 in grundy_new, called from grundy_solver.c:2 in remember, "
                      "called from grundy_solver.c:5 in grundy_is_p_position: memory definitely lost", text)

    def test_garbage_never_raises_and_is_a_problem(self):
        for raw in GARBAGE:
            findings, problem = memcheck.parse(raw, self.dir)
            self.assertEqual(findings, [], raw[:40])
            self.assertTrue(problem, raw[:40])

    def test_wrong_types_are_a_problem(self):
        for raw in (None, "text", 42, ["list"]):
            findings, problem = memcheck.parse(raw, self.dir)
            self.assertEqual(findings, [])
            self.assertTrue(problem)

    def test_a_line_that_is_no_number_refuses_the_report(self):
        # This crashed the grader (ValueError at int(line)): exit 3, no results.json.
        findings, problem = memcheck.parse(report(error_xml(self.dir, line="zz")), self.dir)
        self.assertEqual(findings, [])
        self.assertIn("not well-formed", problem)

    def test_a_line_past_the_end_of_the_file_or_a_made_up_function_is_refused(self):
        for error in (error_xml(self.dir, line="9999"), error_xml(self.dir, fn="Zq544f5053"),
                      error_xml(self.dir, kind="MadeUpKind")):
            findings, problem = memcheck.parse(report(error), self.dir)
            self.assertEqual(findings, [])
            self.assertIn("not well-formed", problem)

    def test_no_forged_text_reaches_a_finding(self):
        forged = error_xml(self.dir, what="FORGEDXML 544f50534543524554 bytes")
        findings, problem = memcheck.parse(report(forged), self.dir)
        self.assertEqual(problem, "")
        self.assertNotIn("FORGEDXML", json.dumps(findings))
        self.assertNotIn("vg_replace_malloc", json.dumps(findings))   # frames outside: "..."

    def test_a_comment_that_could_hide_a_finding_refuses_the_report(self):
        for extra in ("<!-- " + error_xml(self.dir) + " -->", "<![CDATA[x]]>", "<?pi x?>"):
            findings, problem = memcheck.parse(report(extra=extra), self.dir)
            self.assertTrue(problem, extra)

    def test_nul_bytes_refuse_the_report(self):
        findings, problem = memcheck.parse(report(error_xml(self.dir)).replace(b"<tid>", b"\0<tid>"),
                                           self.dir)
        self.assertEqual(findings, [])
        self.assertTrue(problem)

    def test_truncated_reports_are_a_problem(self):
        whole = report(error_xml(self.dir))
        for cut in (10, len(whole) // 2, len(whole) - 5):
            findings, problem = memcheck.parse(whole[:cut], self.dir)
            self.assertTrue(problem, cut)

    def test_too_many_errors_refuse_the_report(self):
        many = [error_xml(self.dir)] * (memcheck.MAX_ERRORS + 1)
        findings, problem = memcheck.parse(report(*many), self.dir)
        self.assertTrue(problem)

    def test_framing_of_the_side_channel(self):
        doc = report(error_xml(self.dir))
        framed = b"valgrind-xml %d\n" % len(doc) + doc
        self.assertEqual(memcheck.split_reports(framed), ([doc], ""))
        for side in (framed[:-3], b"garbage\n", framed + b"valgrind-xml zz\n", b"valgrind-xml -1\n",
                     b"valgrind-xml 99999999999999999999\n", None, b"\0" * 50):
            documents, problem = memcheck.split_reports(side)
            if side:
                self.assertTrue(problem, side[:30])


class StoppedUnderValgrind(unittest.TestCase):
    """memcheck names a student process the valgrind policy killed (proxy.c
    says SIGSYS) instead of the report it left cut short (issue 26)."""

    def test_sigsys_is_named_with_its_test(self):
        records = {"task0::a": {"status": "passed", "messages": []},
                   "task0::b": {"status": "failed", "messages": [
                       "grundy_copy({3}) crashed the student process: SIGSYS: stopped by the grader's sandbox"]}}
        why = memcheck._stopped_by_the_sandbox(records, ["task0::a", "task0::b"])
        self.assertIn("(SIGSYS)", why)
        self.assertIn("task0::b", why)

    def test_other_failures_are_not_sigsys(self):   # the control
        records = {"task0::b": {"status": "failed", "messages": ["SIGSEGV: a bad pointer"]}}
        self.assertEqual(memcheck._stopped_by_the_sandbox(records, ["task0::b"]), "")


class GcovrReport(unittest.TestCase):
    SOURCES = {"grundy_position.c": ["int twice(int x) {", "  if (x > 1)", "    return 2 * x;",
                                     "  return x;", "}"]}

    def detail(self, lines, name="src/grundy_position.c"):
        return json.dumps({"files": [{"file": name, "lines": lines}]}).encode()

    def test_a_good_report_keeps_one_bit_per_line_and_branch(self):
        raw = self.detail([{"line_number": 1, "count": 35473, "branches": []},
                           {"line_number": 2, "count": 7, "branches": [{"count": 0}, {"count": 99}]},
                           {"line_number": 3, "count": 0, "branches": []},
                           {"line_number": 5, "count": 0, "gcovr/noncode": True, "branches": []}])
        files, why = coverage.coverage_report.parse(raw, self.SOURCES)
        self.assertEqual(why, "")
        self.assertEqual(files["grundy_position.c"]["lines"], {1: True, 2: True, 3: False})
        self.assertEqual(files["grundy_position.c"]["branches"], {2: (1, 2)})
        every = coverage.coverage_report.totals(files)
        self.assertEqual((every["line_percent"], every["branch_percent"]), (66.7, 50.0))
        rendered = (coverage.coverage_report.render_cobertura(files)
                    + coverage.coverage_report.render_html(files, self.SOURCES))
        self.assertNotIn("35473", rendered)   # the program's counts never leave
        self.assertIn("return 2 * x;", rendered)

    def test_garbage_is_a_reason_never_an_exception(self):
        for raw in (b"", b"\0\0", b"[]", b"null", b'{"files": 5}', b'{"files": [5]}', b"[" * 100000,
                    self.detail([{"line_number": 99, "count": 1}]),
                    self.detail([{"line_number": 1, "count": -1}]),
                    self.detail([{"line_number": 1, "count": "many"}]),
                    self.detail([{"line_number": True, "count": 1}]),
                    self.detail([{"line_number": 1, "count": 1.5}]),
                    self.detail([{"line_number": 1, "count": 1, "branches": [{"count": "x"}]}]),
                    self.detail([{"line_number": 1, "count": 1}], name="/etc/passwd"),
                    self.detail([]), os.urandom(2048)):
            files, why = coverage.coverage_report.parse(raw, self.SOURCES)
            self.assertIsNone(files, raw[:60])
            self.assertTrue(why, raw[:60])


class ProbeVerdict(unittest.TestCase):
    def test_a_good_verdict(self):
        verdict = probes.parse_verdict('noise\n{"outcome": "answered", "cpu": 0.5, "correct": true}\n')
        self.assertEqual(verdict["cpu"], 0.5)

    def test_garbage_and_wrong_types_are_none(self):
        for stdout in ("", "\0\0\0", "{", "[1, 2]", '{"outcome": "answered"}',
                       '{"outcome": "answered", "cpu": "fast"}', '{"outcome": "answered", "cpu": true}',
                       '{"outcome": "measured", "growth_bytes": 1.5, "rounds": 1, "warm_rounds": 0}',
                       '{"outcome": "answered", "cpu": 1, "correct": "yes"}', "[" * 100000,
                       '{"outcome": 7}', None, 42):
            self.assertIsNone(probes.parse_verdict(stdout), str(stdout)[:40])

    def test_the_memo_workloads_verdict(self):
        # growth_probe's memo workload has fields of its own: read whole,
        # or not at all.
        memo = {"outcome": "measured", "positions": 3, "refills": 4, "start_bytes": 708608,
                "first_bytes": 3043328, "repeat_bytes": 3043328, "again_bytes": 3813376,
                "settling_bytes": 4206592, "settled_bytes": 4460544, "first_cpu": 0.0366,
                "repeat_cpu": 6.5e-05, "again_cpu": 0.0336, "message": ""}
        self.assertEqual(probes.parse_verdict(json.dumps(memo))["first_bytes"], 3043328)
        for field, bad in (("first_cpu", "fast"), ("settled_bytes", None), ("repeat_cpu", True)):
            with self.subTest(field=field):
                self.assertIsNone(probes.parse_verdict(json.dumps(dict(memo, **{field: bad}))))

    def test_a_failed_run_has_no_verdict(self):
        self.assertIsNone(probes.parse_verdict('{"outcome": "answered", "cpu": 0.5}', ok=False))

    def test_a_huge_message_is_capped(self):
        verdict = probes.parse_verdict(json.dumps({"outcome": "crashed", "message": "m" * 100000}))
        self.assertLessEqual(len(verdict["message"]), probes.MESSAGE_CAP)


class RunnerReport(unittest.TestCase):
    def write(self, raw):
        handle = tempfile.NamedTemporaryFile(delete=False, suffix=".json")
        handle.write(raw)
        handle.close()
        self.addCleanup(os.remove, handle.name)
        return handle.name

    def test_garbage_reports_are_an_error_never_an_exception(self):
        for raw in (b"", b"\0" * 10, b"{", b"[]", b'{"tests": 5}', b'{"tests": [5, "x", null]}',
                    b'{"tests": [{"suite": 1, "name": []}]}', b"[" * 100000, os.urandom(1024)):
            records, error = suites.read_report(self.write(raw))
            self.assertTrue(error or records == {}, raw[:40])

    def test_malformed_records_are_failed_tests_with_a_reason(self):
        for record in ("passed", 5, ["passed"], {"status": 1}, {"status": "passed", "messages": 5},
                       {"status": "weird", "messages": ["a", 5, None]}, {"figures": "memo_size"}):
            result = suites.result_of("task0::x", record, None)
            if isinstance(record, dict) and record.get("status") == "passed":
                self.assertEqual(result.figures, [])
                continue
            self.assertNotEqual(result.status, "passed", record)
            self.assertTrue(result.message, record)

    def test_a_huge_message_is_capped(self):
        result = suites.result_of("task0::x", {"status": "failed", "messages": ["m" * 10**6]}, None)
        self.assertLessEqual(len(result.message), suites.MESSAGE_CAP)

    def test_when_a_test_ran_is_read_and_checked(self):
        # grader_report.c's "order" (rank of its end) and "started" (seconds).
        result = suites.result_of("task1::x", {"status": "timeout", "order": 3, "started": 1.25}, None)
        self.assertEqual((result.order, result.started), (3, 1.25))
        for order, started in ((0, -1), (True, "1"), ("3", float("nan")), (-2, 1e12), (2.5, None)):
            result = suites.result_of("task1::x", {"status": "timeout", "order": order, "started": started},
                                      None)
            self.assertEqual((result.order, result.started), (None, None), (order, started))

    def test_task_of_odd_ids(self):
        self.assertEqual(suites.task_of("task2_hidden::x"), 2)
        self.assertEqual(suites.task_of("garbage"), -1)


if __name__ == "__main__":
    unittest.main()
