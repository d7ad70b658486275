"""A course's calendar: the [policy] section of the lab's definition, and its arithmetic.

What it holds (every key optional; with none, there is no policy: no
penalty, no limit, and nothing of it in any report):

  due = 2026-03-13 23:59 +01:00   the due date of the GitLab and GitHub paths
                                  (Gradescope's own per-user due date wins there)
  late_penalty_per_day = 10       percent of the raw score per started day late
  late_grace_minutes = 15         lateness up to this is on time
  late_cutoff_days = 3            later than this many days: a score of 0 (0: no cutoff)
  submissions_per_day = 2         graded submissions in any 24 hours (0: no limit)
  submissions_total = 0           graded submissions in all (0: no limit)
  extensions = extensions.csv     student,due rows: a student's own due date
  roster = roster.csv             student,name,canvas_id,sis_user_id,sis_login_id,section
  canvas_assignment = Grundy lab  the assignment's column in the Canvas gradebook

Paths are relative to the definition's folder; a comment may follow a
value after a space (" # ..."). Every date has a time zone
(an offset, or Z): a date without one is an error, never a guess. Every
mistake is a PolicyError naming the file and its line, raised when the
definition is read, before any grading.

The arithmetic (assess, budget) takes every time as an argument and never
reads the clock: a regrade, a day or a year later, gives the same grade.
Choices, where the issue is silent:
  - lateness counts from the due date, not from the end of the grace: 16
    minutes late with 15 minutes of grace is one started day late;
  - the cutoff is strict: exactly late_cutoff_days x 24 h late still earns
    the penalty of that many days; one second more earns 0;
  - the limit's day is any 24 hours (a window sliding with each
    submission's own time), so the next submission counts 24 hours after
    the oldest one that filled the window; no time zone is needed;
  - a penalty is rounded to hundredths of a point.

Python 3.10+ standard library only.
"""

import csv
import datetime
import math
import os
import re
from dataclasses import dataclass, field

DAY = 86400.0
KEYS = ("due", "late_penalty_per_day", "late_grace_minutes", "late_cutoff_days",
        "submissions_per_day", "submissions_total", "extensions", "roster", "canvas_assignment")
ROSTER_COLUMNS = ("student", "name", "canvas_id", "sis_user_id", "sis_login_id", "section")


class PolicyError(Exception):
    """A mistake in [policy] or a file it names: 'FILE:LINE: what'."""


@dataclass(frozen=True)
class RosterEntry:
    student: str
    name: str
    canvas_id: str
    sis_user_id: str
    sis_login_id: str
    section: str


@dataclass(frozen=True)
class Policy:
    due: datetime.datetime | None = None
    late_penalty_per_day: float = 0.0
    late_grace_minutes: float = 0.0
    late_cutoff_days: int = 0
    submissions_per_day: int = 0
    submissions_total: int = 0
    extensions: dict = field(default_factory=dict)   # student -> (due, "FILE:LINE")
    roster: tuple = ()                               # RosterEntry, in file order
    roster_path: str = ""
    canvas_assignment: str = ""
    files: tuple = ()         # (path as written, path resolved) of the files it names

    @property
    def late(self):
        """Whether lateness changes a grade at all."""
        return bool(self.late_penalty_per_day or self.late_cutoff_days)

    @property
    def limited(self):
        return bool(self.submissions_per_day or self.submissions_total)

    @property
    def active(self):
        return self.late or self.limited or bool(self.extensions)


OFF = Policy()


# ---- dates ---------------------------------------------------------------------

_DATE = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?\s*(Z|[+-]\d\d:?\d\d)")


def parse_time(text):
    """An aware datetime from ISO 8601 text with a time zone (offset or Z),
    or None. '2026-03-13 23:59 +01:00', '2026-03-13T23:59:00Z' and
    Gradescope's '2018-07-01T14:22:32.365935-07:00' are accepted."""
    text = (text or "").strip()
    if not _DATE.fullmatch(text):
        return None
    text = re.sub(r"\s+(?=[+-]\d\d:?\d\d$|Z$)", "", text)
    text = re.sub(r"Z$", "+00:00", text)
    text = re.sub(r"([+-]\d\d)(\d\d)$", r"\1:\2", text)
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def show_time(value):
    """A time as students read it: in its own offset, to the minute."""
    return value.strftime("%Y-%m-%d %H:%M %z")[:-2] + ":" + value.strftime("%z")[-2:]


def show_duration(seconds):
    """'2 days 3 hours 4 minutes' (whole minutes, rounded up: a second late is late)."""
    minutes = math.ceil(seconds / 60)
    days, rest = divmod(minutes, 1440)
    hours, minutes = divmod(rest, 60)
    parts = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in
             ((days, "day"), (hours, "hour"), (minutes, "minute")) if n]
    return " ".join(parts) or "0 minutes"


# ---- reading [policy] ---------------------------------------------------------------

def _section_lines(path):
    """{key: (value, line number)} of the [policy] section of one INI file
    (continuation lines are not allowed there), or None when it has none."""
    found, inside = None, False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            stripped = line.strip()
            header = re.fullmatch(r"\[([^\]]+)\]", stripped)
            if header:
                inside = header.group(1).strip() == "policy"
                if inside and found is None:
                    found = {}
                continue
            if not inside or not stripped or stripped[0] in "#;":
                continue
            if line[:1] in " \t":
                raise PolicyError(f"{path}:{number}: [policy] values are one line each")
            key, sep, value = stripped.partition("=")
            if not sep:
                raise PolicyError(f"{path}:{number}: expected KEY = VALUE in [policy]")
            # A comment after a value (" # ..."): no date, number or path has one.
            found[key.strip()] = (re.sub(r"\s+[#;].*$", "", value).strip(), number)
    return found


def _extends(path):
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = re.fullmatch(r"\s*extends\s*=\s*(\S+)\s*", line)
            if match:
                return os.path.join(os.path.dirname(path), match.group(1))
    return None


def load(path):
    """The Policy of a definition (its own [policy] keys over those of the
    file it extends); OFF when neither has one. PolicyError on any mistake."""
    files = [path]
    base = _extends(path)
    if base:
        files.insert(0, base)
    keys = {}
    for name in files:
        section = _section_lines(name)
        for key, (value, number) in (section or {}).items():
            keys[key] = (value, f"{name}:{number}", os.path.dirname(name))
    return from_keys(keys)


def from_keys(keys):
    """keys: {key: (value, 'FILE:LINE', folder of the file)} -> Policy."""
    for key, (_, where, _) in keys.items():
        if key not in KEYS:
            raise PolicyError(f"{where}: unknown key '{key}' in [policy] (known: {', '.join(KEYS)})")
    values = {}

    def number(key, whole, top=None):
        if key not in keys:
            return
        text, where, _ = keys[key]
        try:
            value = int(text) if whole else float(text)
        except ValueError:
            raise PolicyError(f"{where}: {key} = '{text}' is not a "
                              f"{'whole number' if whole else 'number'}") from None
        if not math.isfinite(value) or value < 0:
            raise PolicyError(f"{where}: {key} = {text} must not be negative")
        if top is not None and value > top:
            raise PolicyError(f"{where}: {key} = {text} is over {top}")
        values[key] = value

    number("late_penalty_per_day", False, 100)
    number("late_grace_minutes", False)
    number("late_cutoff_days", True)
    number("submissions_per_day", True)
    number("submissions_total", True)
    if "due" in keys:
        text, where, _ = keys["due"]
        values["due"] = _time(text, where, "due")
    if "canvas_assignment" in keys:
        values["canvas_assignment"] = keys["canvas_assignment"][0]
    values["files"] = tuple((keys[k][0], os.path.join(keys[k][2], keys[k][0]))
                            for k in ("roster", "extensions") if keys.get(k, ("",))[0])
    roster = ()
    if keys.get("roster", ("",))[0]:
        text, where, folder = keys["roster"]
        values["roster_path"] = os.path.join(folder, text)
        roster = read_roster(values["roster_path"], where)
        values["roster"] = roster
    if keys.get("extensions", ("",))[0]:
        text, where, folder = keys["extensions"]
        known = {entry.student for entry in roster} if roster else None
        values["extensions"] = read_extensions(os.path.join(folder, text), where, known)
    return Policy(**values)


def _time(text, where, what):
    value = parse_time(text)
    if value is None:
        raise PolicyError(f"{where}: {what} '{text}' is not a date and time with a time zone "
                          "(e.g. 2026-03-13 23:59 +01:00)")
    return value


def _rows(path, named_by, columns):
    """(line number, row dict) of a CSV file whose header holds `columns`."""
    try:
        handle = open(path, encoding="utf-8-sig", newline="")   # a spreadsheet's BOM is no column name
    except OSError as error:
        raise PolicyError(f"{named_by}: {path}: {error.strerror}") from None
    with handle:
        reader = csv.DictReader(handle)
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [c for c in columns if c not in header]
        if missing:
            raise PolicyError(f"{path}:1: the header lacks {', '.join(missing)} "
                              f"(expected {','.join(columns)})")
        reader.fieldnames = header
        for row in reader:
            if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
                continue
            yield reader.line_num, {k: (v or "").strip() for k, v in row.items() if isinstance(k, str)}


def read_roster(path, named_by):
    entries, seen = [], set()
    for number, row in _rows(path, named_by, ROSTER_COLUMNS):
        if not row["student"]:
            raise PolicyError(f"{path}:{number}: no student id")
        if row["student"] in seen:
            raise PolicyError(f"{path}:{number}: student {row['student']} is listed twice")
        seen.add(row["student"])
        entries.append(RosterEntry(*(row[c] for c in ROSTER_COLUMNS)))
    return tuple(entries)


def read_extensions(path, named_by, known):
    """{student: (due, 'FILE:LINE')}; a student not in `known` (the roster,
    when there is one) is an error."""
    found = {}
    for number, row in _rows(path, named_by, ("student", "due")):
        where = f"{path}:{number}"
        student = row["student"]
        if not student:
            raise PolicyError(f"{where}: no student id")
        if known is not None and student not in known:
            raise PolicyError(f"{where}: extension for {student}, who is not in the roster")
        if student in found:
            raise PolicyError(f"{where}: a second extension for {student} (first: {found[student][1]})")
        found[student] = (_time(row["due"], where, "due"), where)
    return found


# ---- the arithmetic ---------------------------------------------------------------

@dataclass(frozen=True)
class Assessment:
    """What lateness does to one grade."""
    raw: float
    penalty: float            # points taken off the raw score
    score: float              # raw - penalty
    late_seconds: float       # submitted - due (negative: early)
    days_late: int            # started days late, 0 when on time or within grace
    percent: float            # of the raw score taken off
    cutoff: bool              # past the cutoff: the score is 0
    due: datetime.datetime
    submitted: datetime.datetime
    extension: str            # 'FILE:LINE' of the extension that set `due`, or ""
    why: str                  # one sentence for the student


def assess(policy, raw, submitted, due, extension="", hard_end=None):
    """The grade of a submission made at `submitted`, due at `due`.
    hard_end: a last moment after which nothing earns points (Gradescope's
    late due date), or None."""
    late = (submitted - due).total_seconds()
    grace = policy.late_grace_minutes * 60
    whose = f" (your extension, {extension.rsplit('/', 1)[-1]})" if extension else ""
    due_text = f"due {show_time(due)}{whose}"
    days, percent, cutoff = 0, 0.0, False
    if late <= 0:
        why = f"On time: submitted {show_time(submitted)}, {due_text}."
    elif late <= grace:
        why = (f"On time: submitted {show_duration(late)} after the deadline ({due_text}), "
               f"within the grace of {policy.late_grace_minutes:g} minutes.")
    else:
        days = math.ceil(late / DAY)
        past_cutoff = policy.late_cutoff_days and late > policy.late_cutoff_days * DAY
        past_end = hard_end is not None and submitted > hard_end
        if past_cutoff or past_end:
            cutoff, percent = True, 100.0
            limit = (f"the cutoff of {policy.late_cutoff_days} day{'s' if policy.late_cutoff_days != 1 else ''}"
                     if past_cutoff else f"the late due date {show_time(hard_end)}")
            why = (f"Late by {show_duration(late)} ({due_text}): past {limit}, "
                   "so the score is 0.")
        else:
            percent = min(100.0, policy.late_penalty_per_day * days)
            why = (f"Late by {show_duration(late)} ({due_text}): {days} started "
                   f"day{'s' if days != 1 else ''} late at {policy.late_penalty_per_day:g}% a day, "
                   f"{percent:g}% of the raw score off.")
    penalty = round(raw * percent / 100, 2)
    return Assessment(raw=raw, penalty=penalty, score=round(raw - penalty, 2), late_seconds=late,
                      days_late=days, percent=percent, cutoff=cutoff, due=due, submitted=submitted,
                      extension=extension, why=why)


@dataclass(frozen=True)
class Budget:
    """Where one submission stands against the submission limit."""
    used_day: int             # graded submissions in the 24 hours before it
    used_total: int           # graded submissions before it
    over: bool                # it is past the limit: not graded
    next_counts: datetime.datetime | None  # when over the daily limit: when one counts again
    text: str                 # one sentence for the student


def budget(policy, submitted, previous):
    """previous: [(time, counted)] of the submissions before this one
    (later ones are ignored: a regrade sees the same past)."""
    earlier = sorted(t for t, counted in previous if counted and t < submitted)
    window = [t for t in earlier if (submitted - t).total_seconds() < DAY]
    used_day, used_total = len(window), len(earlier)
    per_day, total = policy.submissions_per_day, policy.submissions_total
    over_day = bool(per_day) and used_day >= per_day
    over_total = bool(total) and used_total >= total
    next_counts = None
    if over_day and not over_total:
        next_counts = window[used_day - per_day] + datetime.timedelta(days=1)
    parts = []
    if over_total:
        text = (f"Submission limit reached: all {total} graded submissions are used, "
                "so this one was not graded and no later one will be.")
    elif over_day:
        text = (f"Submission limit reached: {per_day} graded submission{'s' if per_day != 1 else ''} "
                f"in the last 24 hours, so this one was not graded. The next submission counts "
                f"from {show_time(next_counts)}.")
    else:
        if per_day:
            parts.append(f"{used_day + 1} of {per_day} in the last 24 hours ({per_day - used_day - 1} left)")
        if total:
            parts.append(f"{used_total + 1} of {total} in all ({total - used_total - 1} left)")
        text = "Submissions: this one is " + "; ".join(parts) + "." if parts else ""
        filled = window + [submitted]
        if per_day and len(filled) >= per_day:
            then = filled[len(filled) - per_day] + datetime.timedelta(days=1)
            text += f" The next one counts from {show_time(then)}."
    return Budget(used_day, used_total, over_day or over_total, next_counts, text)
