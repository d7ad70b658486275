"""Checks a submission's object file before it is linked: a teaching aid.

These checks are not what keeps the grader safe: the submission runs alone in
a student process behind a seccomp filter (grader/boundary/), with no test,
oracle or report in its address space, so a constructor, a raw system call
or a forbidden function can earn nothing there. They stay because they
tell a student, by name and before any test runs, what a submission may
not do, instead of a bare "killed by the sandbox". Each check:

- sections: no .init_array/.fini_array/.ctors/.dtors/.preinit_array, no
  Criterion sections (cr_*), no .text.startup/.text.exit constructors;
- undefined symbols: only the lab's API and given helpers, and libc's
  memory, string, math and print functions (ALLOWED below); in particular
  no exit, fork, exec*, system, signal, dlopen, open/fopen, socket, syscall;
- instructions: no raw system calls (syscall, sysenter, int 0x80);
- defined symbols: every global outside the API is made local (objcopy
  --keep-global-symbol), so a helper of the submission can neither clash
  with nor stand in for a symbol of what its student program is linked with
  (the server loop, the given code, the counters, the reference's other file).

The coverage build's object (coverage.py: the same source, flags and
preprocessing, plus --coverage) gets the same checks, less exactly what
gcov's instrumentation adds (GCOV_*, gcov_additions): one constructor and
one destructor, each a jump into gcov's runtime, and that runtime's three
functions; anything more is judged as in the graded object.

objdump, nm and objcopy read the object in the sandbox, as the grading's
user (build._sandboxed_tool): it was written where the sandbox can write,
from the student's source, and root opens nothing from there.
"""

import re

from . import labdef

API = {f.name for f in labdef.lab().functions}
GIVEN = {
    "position_list_new", "position_list_push", "position_list_free", "grundy_to_string",
    "memo_table_new", "memo_table_free", "memo_table_get", "memo_table_put",
    "memo_table_size", "memo_table_clear", "lab_not_implemented",
}
LIBC = {
    # memory
    "malloc", "calloc", "realloc", "free", "reallocarray",
    "memcpy", "memmove", "memset", "memcmp", "memchr",
    # strings
    "strlen", "strnlen", "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat",
    "strchr", "strrchr", "strstr", "strdup", "strndup", "strspn", "strcspn",
    "strtol", "strtoul", "strtoll", "strtoull", "atoi", "atol",
    # printing (to the test's own output, which the grader caps)
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf",
    "vsnprintf", "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "fflush",
    "stdout", "stderr",
    # maths and algorithms
    "abs", "labs", "llabs", "qsort", "bsearch",
    "sqrt", "pow", "log", "log2", "exp", "floor", "ceil", "fabs", "fmin", "fmax",
    # what compilers emit on their own
    "__stack_chk_fail", "__assert_fail", "abort",
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vfprintf_chk",
    "__vsnprintf_chk", "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk",
    "__strcat_chk", "__strncpy_chk", "__strncat_chk",
    "_GLOBAL_OFFSET_TABLE_",
}
ALLOWED = API | GIVEN | LIBC

# (section name pattern, why, the gradebook's short name: rejected:NAME)
FORBIDDEN_SECTIONS = [
    (re.compile(r"^\.(init_array|fini_array|preinit_array|ctors|dtors)(\.|$)"),
     "runs code before or after the tests (a constructor or destructor)", "constructor"),
    (re.compile(r"^\.text\.(startup|exit)"), "holds constructor or destructor code", "constructor"),
    (re.compile(r"^\.?cr_|criterion"), "registers Criterion tests or report hooks", "criterion"),
]
SYSCALL = re.compile(r"\b(syscall|sysenter|int\s+\$0x80)\b")


# What --coverage adds to an object (GCC 12): the runtime's functions it
# calls, and a constructor and a destructor, each alone in its section, the
# whole section, with exactly these relocations, and each alone in its
# init or fini array entry (GCOV_SECTIONS: section -> (its one symbol or
# None, its relocations' targets, offsets dropped)).
GCOV_RUNTIME = {"__gcov_init", "__gcov_exit", "__gcov_merge_add"}
GCOV_SECTIONS = {".text.startup": ("_sub_I_00100_0", [".data.rel", "__gcov_init"]),
                 ".text.exit": ("_sub_D_00100_1", ["__gcov_exit"]),
                 ".init_array.00100": (None, [".text.startup"]),
                 ".fini_array.00100": (None, [".text.exit"])}


class ToolFailed(Exception):
    """A binutils run that did not finish or whose output was cut."""


# Every function below reads the object through `tool(argv)`, which runs a
# binutils command and returns (exit status, stdout, stderr): the grader
# passes one that runs it in the sandbox (build._sandboxed_tool), since the
# object was made from the submission's source in a directory the sandbox
# can write.


def _output(tool, argv):
    status, out, err = tool(argv)
    if status != 0:
        raise ToolFailed(f"{argv[0]} failed: {err.strip()[:300] or f'exit status {status}'}")
    return out


def sections(obj, tool):
    out = _output(tool, ["objdump", "-h", obj])
    names = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 7 and fields[0].isdigit():
            names.append(fields[1])
    return names


def symbols(obj, tool):
    """(undefined, defined globals) of an object file."""
    out = _output(tool, ["nm", "-P", obj])
    undefined, defined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return undefined, defined


def gcov_additions(obj, tool, names):
    """The sections among `names` that hold exactly what --coverage adds
    (GCOV_SECTIONS); a section holding anything more is not among them."""
    wanted = [name for name in names if name in GCOV_SECTIONS]
    if not wanted:
        return set()
    sizes, symbols_in, targets, part, relocated = {}, {}, {}, None, None
    for line in _output(tool, ["objdump", "-h", "-t", "-r", obj]).splitlines():
        fields = line.split()
        if line.startswith(("Sections:", "SYMBOL TABLE:")):
            part, relocated = line, None
        elif line.startswith("RELOCATION RECORDS FOR ["):
            part, relocated = "relocations", line[len("RELOCATION RECORDS FOR ["):].rstrip("]:")
        elif part == "Sections:" and len(fields) >= 7 and fields[0].isdigit():
            sizes[fields[1]] = int(fields[2], 16)
        elif part == "SYMBOL TABLE:" and "\t" in line:
            head, tail = line.split("\t", 1)
            size_name = tail.split()
            flags = head.split()[1:-1]
            if len(size_name) == 2 and "d" not in flags:   # a section's own symbol is no code
                symbols_in.setdefault(head.split()[-1], []).append((size_name[1], int(size_name[0], 16)))
        elif part == "relocations" and len(fields) == 3 and fields[1].startswith("R_"):
            base = re.split(r"[+-]0x", fields[2])[0]
            targets.setdefault(relocated, []).append((base, fields[2] == base))
    additions = set()
    for name in wanted:
        symbol, expected = GCOV_SECTIONS[name]
        found = targets.get(name, [])
        exact = all(whole for _, whole in found) if symbol is None else True
        defined = symbols_in.get(name, [])
        alone = (defined == [] if symbol is None else defined == [(symbol, sizes.get(name))])
        if alone and exact and sorted(base for base, _ in found) == sorted(expected):
            additions.add(name)
    return additions


def check(obj, source_name, tool, forbid=True, instrumented=False):
    """(problems, defined globals): problems that forbid linking this object
    are (short name, sentence for the student) pairs, the short name being
    the gradebook's rejected:NAME; forbid=False skips them (the defined
    globals only). instrumented: the object was built with --coverage, and
    what that adds (gcov_additions, GCOV_RUNTIME) is no problem. Raises
    ToolFailed when a tool could not read the object."""
    undefined, defined = symbols(obj, tool)
    if not forbid:
        return [], defined
    problems = []
    names = sections(obj, tool)
    if instrumented:
        gcov = gcov_additions(obj, tool, names)
        names = [name for name in names if name not in gcov]
        undefined = undefined - GCOV_RUNTIME
    for name in names:
        for pattern, why, short in FORBIDDEN_SECTIONS:
            if pattern.search(name):
                problems.append((short, f"{source_name}: section {name} {why}; this is not allowed"))
    for name in sorted(undefined - ALLOWED):
        problems.append((name, f"{source_name}: calls {name}(), which a submission may not use "
                               "(allowed: the lab's API and given helpers, and libc's memory, "
                               "string, math and print functions)"))
    disassembly = _output(tool, ["objdump", "-d", "--no-show-raw-insn", obj])
    if SYSCALL.search(disassembly):
        problems.append(("syscall", f"{source_name}: contains a raw system call instruction; "
                                    "this is not allowed"))
    return problems, defined


def localize(obj, out_obj, defined, tool):
    """Copies obj to out_obj with every global of `defined` outside the API
    made local: (True, "") or (False, why)."""
    argv = ["objcopy"]
    for name in sorted(defined - API):
        argv += ["--localize-symbol", name]
    status, _, err = tool(argv + [obj, out_obj])
    return status == 0, err
