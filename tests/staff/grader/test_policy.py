"""The course calendar's arithmetic (grader/gradelib/policy.py): penalties and limits.

Every expected value is worked out by hand in the comment beside it; the
policy is the form of issue 29: 10% a started day, 15 minutes of grace, 0
after 3 days, 2 graded submissions in any 24 hours.
"""

import datetime
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "grader"))

from gradelib import policy as rules  # noqa: E402

TZ = datetime.timezone(datetime.timedelta(hours=1))
DUE = datetime.datetime(2026, 3, 13, 23, 59, tzinfo=TZ)
POLICY = rules.Policy(late_penalty_per_day=10, late_grace_minutes=15, late_cutoff_days=3, submissions_per_day=2)


def at(**delta):
    return DUE + datetime.timedelta(**delta)


class Penalty(unittest.TestCase):
    def test_early_and_on_the_minute(self):
        # 1 hour early, and exactly at the due time: late <= 0, no penalty.
        for when in (at(hours=-1), DUE):
            a = rules.assess(POLICY, 80, when, DUE)
            self.assertEqual((a.penalty, a.score, a.days_late), (0, 80, 0))

    def test_grace(self):
        # 15 minutes late = the grace: on time. 15 min 1 s: past it, 1 started day: 10% of 80 = 8.
        self.assertEqual(rules.assess(POLICY, 80, at(minutes=15), DUE).penalty, 0)
        late = rules.assess(POLICY, 80, at(minutes=15, seconds=1), DUE)
        self.assertEqual((late.days_late, late.penalty, late.score), (1, 8, 72))

    def test_started_days(self):
        # 24 h exactly: ceil(1.0) = 1 day, 10%: 7.5 of 75. 24 h 1 s: 2 days, 20% of 75 = 15.
        self.assertEqual(rules.assess(POLICY, 75, at(hours=24), DUE).penalty, 7.5)
        two = rules.assess(POLICY, 75, at(hours=24, seconds=1), DUE)
        self.assertEqual((two.days_late, two.penalty, two.score), (2, 15, 60))

    def test_rounding(self):
        # 1 day late, 10% of 33.33 = 3.333 -> 3.33 off, 30.0 left.
        a = rules.assess(POLICY, 33.33, at(hours=1), DUE)
        self.assertEqual((a.penalty, a.score), (3.33, 30.0))

    def test_cutoff(self):
        # 72 h late = 3 days, still 30% of 80 = 24 off; one second more: past the cutoff, 0.
        self.assertEqual(rules.assess(POLICY, 80, at(hours=72), DUE).score, 56)
        past = rules.assess(POLICY, 80, at(hours=72, seconds=1), DUE)
        self.assertEqual((past.cutoff, past.penalty, past.score), (True, 80, 0))

    def test_no_cutoff_caps_at_the_raw_score(self):
        # 10% a day, no cutoff: 12 days late would be 120%: capped at 100%, score 0, never negative.
        a = rules.assess(rules.Policy(late_penalty_per_day=10), 50, at(days=11, hours=1), DUE)
        self.assertEqual((a.days_late, a.percent, a.score), (12, 100, 0))

    def test_hard_end(self):
        # 1 hour late (10%), but after Gradescope's late due date (30 minutes after the due date): 0.
        a = rules.assess(POLICY, 80, at(hours=1), DUE, hard_end=at(minutes=30))
        self.assertEqual((a.cutoff, a.score), (True, 0))


class Limit(unittest.TestCase):
    def test_first_and_second(self):
        # Nothing before: 1 of 2. One 5 h before: 2 of 2, the next counts 24 h after that one.
        self.assertIn("1 of 2 in the last 24 hours (1 left)", rules.budget(POLICY, DUE, []).text)
        b = rules.budget(POLICY, DUE, [(at(hours=-5), True)])
        self.assertFalse(b.over)
        self.assertIn("2 of 2 in the last 24 hours (0 left)", b.text)
        self.assertIn(rules.show_time(at(hours=19)), b.text)

    def test_over_and_when_next(self):
        # Two graded at -10 h and -5 h: over; the window frees at -10 h + 24 h = +14 h.
        b = rules.budget(POLICY, DUE, [(at(hours=-10), True), (at(hours=-5), True)])
        self.assertTrue(b.over)
        self.assertEqual(b.next_counts, at(hours=14))

    def test_old_errors_and_later_ones_do_not_count(self):
        # -30 h is outside the window; -5 h was an autograder error; +1 h is later than this
        # submission (a regrade sees it): none counts: 1 of 2.
        b = rules.budget(POLICY, DUE, [(at(hours=-30), True), (at(hours=-5), False), (at(hours=1), True)])
        self.assertEqual((b.used_day, b.over), (0, False))
        self.assertEqual(b.used_total, 1)

    def test_total(self):
        # A total of 3, three graded before (days apart): over for good, no next time.
        b = rules.budget(rules.Policy(submissions_total=3), DUE,
                         [(at(days=-d), True) for d in (3, 2, 1)])
        self.assertTrue(b.over)
        self.assertIsNone(b.next_counts)


class Reading(unittest.TestCase):
    def policy(self, text):
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "lab.ini")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path

    def test_dates_need_a_time_zone(self):
        self.assertEqual(rules.parse_time("2026-03-13 23:59 +01:00"), DUE)
        self.assertEqual(rules.parse_time("2026-03-13T22:59:00Z"), DUE)
        self.assertEqual(rules.parse_time("2026-03-13T23:59:00.000000+0100"), DUE)
        self.assertIsNone(rules.parse_time("2026-03-13 23:59"))

    def test_no_section_is_off(self):
        self.assertFalse(rules.load(self.policy("[lab]\nname = x\n")).active)

    def test_comments_after_values(self):
        # The guide's example form: a comment after the value is not part of it.
        p = rules.load(self.policy("[policy]\nlate_penalty_per_day = 10   # percent\n"
                                   "due = 2026-03-13 23:59 +01:00 # Paris\n"))
        self.assertEqual((p.late_penalty_per_day, p.due), (10, DUE))

    def test_errors_name_the_line(self):
        path = self.policy("[lab]\n\n[policy]\nlate_penalty_per_day = 10\nlate_cutoff_days = 1.5\n")
        with self.assertRaisesRegex(rules.PolicyError, r"lab\.ini:5: late_cutoff_days = '1\.5' is not a whole"):
            rules.load(path)
        path = self.policy("[policy]\nlate_penalty_per_day = 150\n")
        with self.assertRaisesRegex(rules.PolicyError, r"lab\.ini:2: .* is over 100"):
            rules.load(path)


if __name__ == "__main__":
    unittest.main()
