"""The lab's definition (grader/lab.ini), read once for Python.

Everything the grader, the course tools and the generators need to know
about the lab's tasks, API, points, timing and compile flags comes from
here; see the header of lab.ini for what it holds and who reads it. The
file is read with configparser (Python's own INI reader) and checked as a
whole: a mistake in it is a LabDefinitionError naming the section and key,
never a half-read lab.
"""

import configparser
import functools
import os
import re
import shlex
from dataclasses import dataclass, field

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_PATH = os.path.join(REPO, "grader", "lab.ini")
# Another definition for this process and what it starts (make check grades
# with every optional task on): a file whose [lab] says `extends = FILE`
# and changes what it names. The make variable LAB_INI sets it for builds.
PATH = os.path.realpath(os.environ.get("GRUNDY_LAB_DEFINITION") or DEFAULT_PATH)

ARGUMENT_TYPES = ("position", "changes", "int", "freed")
RESULT_TYPES = ("void", "bool", "int", "u64", "size", "position", "moves", "ints")
C_RESULT = {"void": "void", "bool": "bool", "int": "int", "u64": "uint64_t", "size": "size_t",
            "position": "grundy_position *", "moves": "position_list *", "ints": "int *"}
C_ARGUMENT = {"position": "const grundy_position *", "changes": "grundy_position *", "int": "int",
              "freed": "grundy_position *"}


class LabDefinitionError(Exception):
    pass


@dataclass(frozen=True)
class Function:
    name: str
    task: int
    result: str
    arguments: tuple
    figure: str = ""          # a count only the student process knows, or ""

    def prototype(self, names=None):
        """The C prototype, as grundy.h (or a task's header) declares it."""
        names = names or [f"a{i}" for i in range(len(self.arguments))]
        params = [f"{C_ARGUMENT[t]}{'' if C_ARGUMENT[t].endswith('*') else ' '}{n}"
                  for t, n in zip(self.arguments, names)]
        if self.result == "ints":
            params.append("size_t *length")
        result = C_RESULT[self.result]
        space = "" if result.endswith("*") else " "
        return f"{result}{space}{self.name}({', '.join(params) or 'void'})"


@dataclass(frozen=True)
class Task:
    number: int
    title: str
    file: str                 # the student file its code goes in (student/FILE)
    anchor: str               # its handout section
    points: float
    header: str = "grundy.h"  # the header declaring its functions
    optional: bool = False
    timed: bool = False       # the grader's timing checks belong to it
    memcheck: tuple = ()      # the light tests the grader runs again under valgrind
    growth: str = ""          # the growth probe's workload for its code (growth.py)
    given: tuple = ()         # given files in student/ that only this task uses
    target: str = ""          # "NAME: what it does": a make target of its own (its given program)

    @property
    def suite(self):
        return f"task{self.number}"

    @property
    def heading(self):
        return f"Task {self.number}: {self.title}"


@dataclass(frozen=True)
class Shape:
    name: str
    heaps: int
    low: int
    high: int
    outcome: str | None       # "P", "N", or None for any


@dataclass(frozen=True)
class Challenge:
    ratio: float              # the budget: ratio x the calibration solver on yardstick_heap
    yardstick_heap: int
    first: int                # the heaps tried, first to last
    last: int


@dataclass(frozen=True)
class MemoCheck:
    task: int                 # the task whose memo it judges (memo::taskN)
    positions: int            # how many single heaps it solves, drawn from the seed
    low: int                  # ... between low and high (distinct heights)
    high: int
    min_growth_bytes: int     # the least a memo of those positions grows resident memory
    smaller: tuple = ()       # (low, high) of each smaller draw, that memory and CPU must scale from


@dataclass(frozen=True)
class Lab:
    name: str
    handout: str
    cflags: tuple
    warnings: tuple
    headers: tuple
    tasks: tuple              # the tasks of this term, in order
    all_tasks: tuple          # every task defined, switched on or not
    functions: tuple          # the API of the tasks of this term
    all_functions: tuple      # the API of every task defined
    timing_ratio: float
    calibration_runs: int
    shapes: tuple
    public_positions: tuple = field(default_factory=tuple)
    variant: str = ""         # "" for grader/lab.ini, else the other file's name
    challenge: Challenge | None = None   # the leaderboard's challenge, if the lab has one
    limits: dict = field(default_factory=dict)   # [limits]: name -> number (LIMITS)
    memo: MemoCheck | None = None        # the memo check (growth.py), if the lab has one
    checks: tuple = ()        # [checks]: (name, weight) of each check file (gradelib/checks/NAME.py)

    @property
    def build_suffix(self):
        """Builds of another definition go beside the default's: build/gen-NAME,
        build/grader-NAME (the Makefile computes the same)."""
        return f"-{self.variant}" if self.variant else ""

    @property
    def grading_cap_seconds(self):
        """One grading's time cap before the pace: grading_seconds_per_task
        for each task of the term, whose suites, memory check and growth
        run each take their share, so a term with every task on gives an
        honest slow solver the room a term of three gives it."""
        return self.limits["grading_seconds_per_task"] * len(self.tasks)

    def task(self, number):
        for t in self.all_tasks:
            if t.number == number:
                return t
        raise KeyError(number)

    @property
    def files(self):
        """The student files of this term's tasks, in task order, once each."""
        return list(dict.fromkeys(t.file for t in self.tasks))

    def functions_of_file(self, file):
        numbers = {t.number for t in self.tasks if t.file == file}
        return [f.name for f in self.functions if f.task in numbers]

    def task_headers(self):
        return list(dict.fromkeys(t.header for t in self.tasks))


def _fail(where, why):
    raise LabDefinitionError(f"{PATH if where is None else where}: {why}")


def _int(text, where):
    try:
        return int(text)
    except ValueError:
        _fail(where, f"'{text}' is not a whole number")


def _yes(text, where):
    value = text.strip().lower()
    if value not in ("yes", "no"):
        _fail(where, f"'{text}' must be yes or no")
    return value == "yes"


def _task(parser, name, path):
    where = f"{path} [{name}]"
    section = parser[name]
    for key in ("title", "file", "anchor", "points"):
        if key not in section:
            _fail(where, f"missing '{key}'")
    try:
        points = float(section["points"])
    except ValueError:
        _fail(where, f"points '{section['points']}' is not a number")
    return Task(number=_int(name[4:], where), title=section["title"], file=section["file"],
                anchor=section["anchor"], points=points, header=section.get("header", "grundy.h"),
                optional=_yes(section.get("optional", "no"), where),
                timed=_yes(section.get("timed", "no"), where),
                memcheck=tuple(section.get("memcheck", "").split()),
                growth=section.get("growth", "").strip(),
                given=tuple(section.get("given", "").split()),
                target=" ".join(section.get("target", "").split()))


def _function(name, text, path, task_numbers):
    where = f"{path} [api] {name}"
    fields = text.split()
    if len(fields) < 2:
        _fail(where, "expected 'TASK RESULT ARGUMENTS...'")
    task = _int(fields[0], where)
    if task not in task_numbers:
        _fail(where, f"task {task} has no [task{task}] section")
    result, _, figure = fields[1].partition(":")
    if result not in RESULT_TYPES:
        _fail(where, f"result '{result}' is not one of {', '.join(RESULT_TYPES)}")
    for argument in fields[2:]:
        if argument not in ARGUMENT_TYPES:
            _fail(where, f"argument '{argument}' is not one of {', '.join(ARGUMENT_TYPES)}")
    return Function(name, task, result, tuple(fields[2:]), figure)


def _shape(line, where):
    fields = line.split()
    if len(fields) != 4 or "-" not in fields[2] or fields[3] not in ("P", "N", "any"):
        _fail(where, f"shape '{line}': expected 'NAME HEAPS LOW-HIGH P|N|any'")
    low, high = (_int(x, where) for x in fields[2].split("-", 1))
    return Shape(fields[0], _int(fields[1], where), low, high, None if fields[3] == "any" else fields[3])


def _memo(parser, path, task_numbers):
    section, where = parser["memo"], f"{path} [memo]"
    task = _int(section.get("task", ""), where)
    if task not in task_numbers:
        _fail(where, f"task {task} has no [task{task}] section")
    heaps = section.get("heaps", "")
    if "-" not in heaps:
        _fail(where, f"heaps '{heaps}': expected LOW-HIGH")
    low, high = (_int(x, where) for x in heaps.split("-", 1))
    positions = _int(section.get("positions", ""), where)
    if not 1 <= positions <= high - low + 1 or low < 3:
        _fail(where, f"cannot draw {positions} distinct heaps of at least 3 from {low}-{high}")
    smaller = []
    for draw in section.get("smaller", "").split():
        if "-" not in draw:
            _fail(where, f"smaller '{draw}': expected LOW-HIGH ranges")
        s_low, s_high = (_int(x, where) for x in draw.split("-", 1))
        if not positions <= s_high - s_low + 1 or s_low < 3 or s_high >= low:
            _fail(where, f"smaller '{draw}': cannot draw {positions} distinct heaps of at least 3 "
                         f"below {low} from it")
        smaller.append((s_low, s_high))
    return MemoCheck(task, positions, low, high, 1024 * _int(section.get("min_growth_kib", ""), where),
                     tuple(smaller))


def load(path=PATH):
    parser = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    parser.optionxform = str      # function names keep their case
    files = [path]
    try:
        variant = configparser.ConfigParser(interpolation=None)
        with open(path, encoding="utf-8") as handle:
            variant.read_file(handle)
        base = variant.get("lab", "extends", fallback="")
        if base:
            files.insert(0, os.path.join(os.path.dirname(path), base))
        for name in files:
            with open(name, encoding="utf-8") as handle:
                parser.read_file(handle)
    except (OSError, configparser.Error) as error:
        _fail(path, f"cannot be read: {error}")
    for required in ("lab", "timing", "api"):
        if required not in parser:
            _fail(path, f"no [{required}] section")
    all_tasks = tuple(sorted((_task(parser, name, path) for name in parser.sections()
                              if name.startswith("task") and name[4:].isdigit()),
                             key=lambda t: t.number))
    numbers = {t.number for t in all_tasks}
    lab = parser["lab"]
    # `tasks = all`: every task defined (a term with every task, which a
    # new task joins without an edit here)
    chosen = ([t.number for t in all_tasks] if lab.get("tasks", "").strip() == "all" else
              [_int(x, f"{path} [lab] tasks") for x in lab.get("tasks", "").split()])
    for number in chosen:
        if number not in numbers:
            _fail(f"{path} [lab] tasks", f"task {number} has no [task{number}] section")
    for t in all_tasks:
        if not t.optional and t.number not in chosen:
            _fail(f"{path} [lab] tasks", f"task {t.number} is not optional, so it must be listed")
    tasks = tuple(t for t in all_tasks if t.number in chosen)
    functions = tuple(_function(name, text, path, numbers) for name, text in parser["api"].items())
    timing = parser["timing"]
    where = f"{path} [timing]"
    shapes = tuple(_shape(line, where) for line in timing.get("shapes", "").splitlines() if line.strip())
    public = tuple(tuple(_int(h, where) for h in line.split())
                   for line in timing.get("public_positions", "").splitlines() if line.strip())
    try:
        ratio = float(timing.get("ratio", ""))
    except ValueError:
        _fail(where, f"ratio '{timing.get('ratio')}' is not a number")
    name = os.path.splitext(os.path.basename(path))[0]
    challenge = None
    if "challenge" in parser:
        section, where = parser["challenge"], f"{path} [challenge]"
        try:
            challenge_ratio = float(section.get("ratio", ""))
        except ValueError:
            _fail(where, f"ratio '{section.get('ratio')}' is not a number")
        challenge = Challenge(challenge_ratio, _int(section.get("yardstick_heap", ""), where),
                              _int(section.get("first", ""), where), _int(section.get("last", ""), where))
    memo = _memo(parser, path, numbers) if "memo" in parser else None
    return Lab(name=lab.get("name", "lab"), handout=lab.get("handout", ""),
               memo=memo, checks=_checks(parser, path),
               variant="" if os.path.realpath(path) == os.path.realpath(DEFAULT_PATH) else name,
               challenge=challenge,
               all_functions=functions,
               cflags=tuple(shlex.split(lab.get("cflags", ""))),
               warnings=tuple(shlex.split(lab.get("warnings", ""))),
               headers=tuple(lab.get("headers", "").split()), tasks=tasks, all_tasks=all_tasks,
               functions=tuple(f for f in functions if f.task in chosen),
               timing_ratio=ratio, calibration_runs=_int(timing.get("calibration_runs", "3"), where),
               shapes=shapes, public_positions=public, limits=_limits(parser, path, len(tasks)))


def _checks(parser, path):
    """[checks]: NAME = WEIGHT, each a check of its own file
    (grader/gradelib/checks/NAME.py) with one test NAME::taskN per task of
    the term, weighted WEIGHT among that task's rubric lines."""
    if "checks" not in parser:
        return ()
    found = []
    for name, text in parser["checks"].items():
        where = f"{path} [checks] {name}"
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or name in RESERVED_SUITES or name.startswith("task"):
            _fail(where, "a check's name is a lower-case word, not a suite's or the grader's own "
                  f"({', '.join(RESERVED_SUITES)})")
        try:
            weight = float(text)
        except ValueError:
            weight = -1.0
        if not weight >= 0:
            _fail(where, f"the weight '{text}' is not a number >= 0")
        found.append((name, weight))
    return tuple(found)


# Test-id prefixes the grader's own checks use: no [checks] name may take one.
RESERVED_SUITES = ("build", "memory", "growth", "timing", "memo", "speed")


# The keys [limits] must hold: every time limit of the grader (lab.ini
# says what each one is). C reads them as GRADER_<KEY> (grader_limits.h).
LIMITS = ("call_seconds", "timeouts_before_short_limit", "short_call_seconds", "student_cpu_seconds",
          "student_address_space_mib", "valgrind_quit_seconds", "coverage_quit_seconds",
          "linger_seconds", "grading_seconds_per_task", "grading_cap_ceiling_seconds",
          "test_seconds", "valgrind_test_seconds", "runner_seconds", "valgrind_runner_seconds",
          "rescue_runner_seconds", "crash_rerun_seconds",
          "compile_cpu_seconds", "compile_wall_seconds", "build_wall_seconds",
          "tool_cpu_seconds", "tool_wall_seconds",
          "gcovr_cpu_seconds", "gcovr_wall_seconds", "coverage_cpu_seconds", "coverage_wall_seconds",
          "timing_cpu_seconds", "timing_wall_seconds",
          "calibration_cpu_seconds", "calibration_wall_seconds", "pace_probe_seconds",
          "memo_seconds", "growth_seconds", "sandbox_probe_seconds", "similarity_run_seconds",
          "challenge_seconds")

# The rules between limits, checked when the definition is read: (LOW,
# HIGH, strict, why). A limit that must end first must be the lower.
LIMIT_RULES = (
    ("short_call_seconds", "call_seconds", False, "the limit after repeated time-outs is the shorter"),
    ("call_seconds", "test_seconds", True,
     "the proxy must name a call that hangs before Criterion ends its test"),
    ("call_seconds", "student_cpu_seconds", True,
     "a slow call must be named by its time limit, not killed by RLIMIT_CPU"),
    ("test_seconds", "valgrind_test_seconds", False, "a test under valgrind is slower, never faster"),
    ("test_seconds", "runner_seconds", True, "a runner's backstop must not end a test that may still run"),
    ("valgrind_test_seconds", "valgrind_runner_seconds", True,
     "a runner's backstop must not end a test that may still run"),
    ("compile_cpu_seconds", "compile_wall_seconds", False, "CPU time cannot exceed a single process's wall time"),
    ("compile_wall_seconds", "build_wall_seconds", False, "one compile fits in the whole build's budget"),
    ("tool_cpu_seconds", "tool_wall_seconds", False, "CPU time cannot exceed a single process's wall time"),
    ("gcovr_cpu_seconds", "gcovr_wall_seconds", False, "CPU time cannot exceed a single process's wall time"),
    ("timing_cpu_seconds", "timing_wall_seconds", False, "CPU time cannot exceed a single process's wall time"),
    ("calibration_cpu_seconds", "calibration_wall_seconds", False,
     "CPU time cannot exceed a single process's wall time"),
    # grading_wall_seconds is not a key: it is the cap (Lab.grading_cap_seconds).
    ("grading_wall_seconds", "grading_cap_ceiling_seconds", False, "the cap, scaled, is never below the unscaled"),
    ("coverage_wall_seconds", "grading_wall_seconds", True,
     "coverage's budget ends inside the grading's time cap"),
)


def _limits(parser, path, task_count):
    """[limits], with the rules between them; the grading's cap is derived
    from the term: grading_seconds_per_task for each of its tasks."""
    if "limits" not in parser:
        _fail(f"{path} [limits]", "the section is missing")
    section, where = parser["limits"], f"{path} [limits]"
    unknown = sorted(set(section) - set(LIMITS))
    if unknown:
        renamed = {"grading_wall_seconds": "grading_seconds_per_task, the seconds of each task of the term"}
        hints = "".join(f"; {key} is now {renamed[key]}" for key in unknown if key in renamed)
        _fail(where, f"unknown key{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}{hints}")
    values = {}
    for key in LIMITS:
        try:
            values[key] = float(section[key])
        except KeyError:
            _fail(where, f"{key} is missing")
        except ValueError:
            _fail(where, f"{key} '{section[key]}' is not a number")
        if not values[key] > 0:
            _fail(where, f"{key} must be above 0")
    ruled = dict(values, grading_wall_seconds=values["grading_seconds_per_task"] * task_count)
    for low, high, strict, why in LIMIT_RULES:
        if ruled[low] > ruled[high] or (strict and ruled[low] == ruled[high]):
            _fail(where, f"{_limit_name(low, task_count)} = {ruled[low]:g} must be "
                         f"{'below' if strict else 'at most'} {_limit_name(high, task_count)} = "
                         f"{ruled[high]:g}: {why}")
    return values


def _limit_name(key, task_count):
    """A limit as the instructor wrote it: the cap is named by its key."""
    if key == "grading_wall_seconds":
        return f"the grading's cap (grading_seconds_per_task x {task_count} tasks)"
    return key


def term_text(path=PATH):
    """The text of one definition standing alone: the file itself, or, for
    a file that `extends` another, the other's text with this one's keys
    put in place (comments kept, `extends` gone). What ships as a
    package's grader/lab.ini (grader/make-gradescope), so the package
    grades the term of the definition it was made with."""
    variant = configparser.ConfigParser(interpolation=None)
    variant.optionxform = str
    try:
        with open(path, encoding="utf-8") as handle:
            own = handle.read()
        variant.read_string(own)
    except (OSError, configparser.Error) as error:
        _fail(path, f"cannot be read: {error}")
    base = variant.get("lab", "extends", fallback="")
    if not base:
        return own
    base_path = os.path.join(os.path.dirname(path), base)
    with open(base_path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    changes = {(section, key): value for section in variant.sections()
               for key, value in variant[section].items() if (section, key) != ("lab", "extends")}
    out, section, skipping = [], None, False
    for line in lines:
        header = re.match(r"\[([^\]]+)\]\s*$", line)
        if header:
            out += _unplaced(changes, section)
            section, skipping = header.group(1), False
            out.append(line)
            continue
        if skipping and line[:1] in (" ", "\t") and line.strip():
            continue            # a continuation line of a value replaced
        skipping = False
        key = re.match(r"([^\s#;=][^=]*?)\s*=", line)
        if key and (section, key.group(1)) in changes:
            value = changes.pop((section, key.group(1)))
            out.append(f"{key.group(1)} = " + value.replace("\n", "\n    "))
            skipping = True
            continue
        out.append(line)
    out += _unplaced(changes, section)
    for (section, key), value in sorted(changes.items()):
        out += ["", f"[{section}]", f"{key} = " + value.replace("\n", "\n    ")]
        changes.pop((section, key))
    note = (f"# Generated from {os.path.basename(base_path)} with the keys of "
            f"{os.path.basename(path)} in place (grader/gradelib/labdef.py, term_text).")
    return note + "\n" + "\n".join(out) + "\n"


def _unplaced(changes, section):
    """The lines of keys of `section` that its text did not hold."""
    keys = [k for (s, k) in changes if s == section]
    return [f"{k} = " + changes.pop((section, k)).replace("\n", "\n    ") for k in keys]


@functools.lru_cache(maxsize=None)
def lab():
    """The lab of grader/lab.ini, read once per process."""
    return load()


@functools.lru_cache(maxsize=None)
def policy(path=PATH):
    """The course calendar of the definition ([policy]: late penalty,
    extensions, submission limit; grader/gradelib/policy.py), read once per
    process. Kept apart from load(): the tools that do not grade never
    need it. LabDefinitionError, one line naming the file and line, on a
    mistake."""
    from . import policy as calendar
    try:
        return calendar.load(path)
    except (OSError, UnicodeDecodeError) as error:
        raise LabDefinitionError(f"{path}: cannot be read: {error}") from None
    except calendar.PolicyError as error:
        raise LabDefinitionError(str(error)) from None
