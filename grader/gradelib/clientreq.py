"""Finds valgrind's client-request preamble in a submission's bytes.

Valgrind runs inside the student process, and a program can talk to it:
every VALGRIND_* macro of <valgrind/valgrind.h> and <valgrind/memcheck.h>
(VALGRIND_DISABLE_ERROR_REPORTING, VALGRIND_FREELIKE_BLOCK, ...) is a
fixed sequence of rotate instructions that do nothing natively, followed
by a marker instruction. Valgrind's JIT recognises the sequence and obeys
the request, so one line could silence the memory check. The grader
refuses any file of a submission (its object, and every student program
linked from it, whatever the object checks say) that holds the sequence
anywhere, executable or not: the given code, the student side of the
boundary and the C library hold none (checked by the reference's
grading). What a program writes at run time is another matter: see
grader/boundary/README.md ("Client requests").
"""

from . import safefs

# (architecture, the preamble's bytes, its instructions) per valgrind.h
PREAMBLES = [
    ("amd64", bytes.fromhex("48c1c703" "48c1c70d" "48c1c73d" "48c1c733"),
     "rolq $3,%rdi; rolq $13,%rdi; rolq $61,%rdi; rolq $51,%rdi"),
    ("x86", bytes.fromhex("c1c703" "c1c70d" "c1c71d" "c1c713"),
     "roll $3,%edi; roll $13,%edi; roll $29,%edi; roll $19,%edi"),
    ("arm64", bytes.fromhex("8c0dcc93" "8c35cc93" "8ccdcc93" "8cf5cc93"),
     "ror x12,x12,#3; ror x12,x12,#13; ror x12,x12,#51; ror x12,x12,#61"),
]
MAX_BYTES = 256 << 20


def find(data):
    """(architecture, instructions) of the first preamble in data, or None."""
    for arch, pattern, instructions in PREAMBLES:
        if pattern in data:
            return arch, instructions
    return None


def problem(path, what):
    """A sentence naming the preamble in the file at path (read without
    following a link: it was written where the sandbox can write), or None
    when there is none. A file that cannot be read whole is refused too."""
    try:
        data = safefs.read_regular(path, MAX_BYTES)
    except (safefs.Refused, OSError) as error:
        return f"{what} could not be checked for valgrind client requests ({error})"
    found = find(data)
    if found is None:
        return None
    arch, instructions = found
    return (f"{what} contains valgrind's client-request preamble ({arch}: {instructions}), the "
            "start of every VALGRIND_* macro of <valgrind/valgrind.h> and <valgrind/memcheck.h>: a "
            "program may not talk to valgrind, which checks its memory; remove the client request")
