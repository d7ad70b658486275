"""Finds the model solution's machine code where it must never be: in a
grading's outputs (feedback.md, results.json) and in the student programs
a grading links (issue 26: no model code in any student process).

The model's code is the .text of its objects (build/grader/reference/*.o,
built for staff only). A window of N bytes of it counts only when it holds
no run of 4 zero bytes (a relocation's placeholder, or padding) and occurs
in no public object a student process may hold (the stand-in map, the
stubs, the given code, the student side of the boundary): bytes the model
shares with public code (or with the C library, linked statically into
every student program) reveal nothing.

Outputs hold text, so the bytes are looked for in what the text decodes
to as well: every integer in it, in order, as 16 bits (the integer, and
the integer less 3, the smallest height a position stores) and, from 2^16
up, as 64 bits, little-endian: the encodings of a position's heights and
of a memo size that the fixture text_exfiltration uses.

Python 3.10+ standard library, plus objcopy (binutils).
"""

import glob
import os
import re
import subprocess
import tempfile

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", ".."))
HARNESS = os.path.join(REPO, "build", "grader")
PUBLIC_DIRS = ("standin", "stubs", "given", "boundary", "support")


def text_of(obj):
    """The .text section of an object file, as bytes (b"" when it has none)."""
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "text.bin")
        done = subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", obj, out],
                              capture_output=True, check=False)
        if done.returncode != 0 or not os.path.exists(out):
            return b""
        with open(out, "rb") as handle:
            return handle.read()


def windows(data, size):
    return {data[i:i + size] for i in range(len(data) - size + 1)}


def _static_libc():
    """An empty program linked statically: the C library's code, which a
    student program holds too (an epilogue of pops and a ret followed by
    padding is in both)."""
    with tempfile.TemporaryDirectory() as work:
        source, program = os.path.join(work, "empty.c"), os.path.join(work, "empty")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write("int main(void) { return 0; }\n")
        subprocess.run(["gcc", "-O2", "-static", source, "-o", program], check=True, capture_output=True)
        with open(program, "rb") as handle:
            return handle.read()


def model_windows(size, harness=HARNESS):
    """The model's size-byte windows that no public object holds."""
    model = set()
    for obj in glob.glob(os.path.join(harness, "reference", "*.o")):
        model |= {w for w in windows(text_of(obj), size) if b"\0\0\0\0" not in w}
    if not model:
        raise RuntimeError(f"no model objects in {harness}/reference: build the harness first")
    public = set()
    for sub in PUBLIC_DIRS:
        for obj in glob.glob(os.path.join(harness, sub, "*.o")):
            public |= windows(text_of(obj), size)
    libc = _static_libc()
    return {w for w in model - public if w not in libc}


def decoded(text):
    """The byte streams a text may carry the model's bytes in."""
    numbers = [int(n) for n in re.findall(r"\d{1,20}", text)]
    streams = [text.encode("utf-8", "replace")]
    for less in (0, 3):
        streams.append(b"".join(((n - less) & 0xFFFF).to_bytes(2, "little") for n in numbers if n >= less))
    streams.append(b"".join((n & (2**64 - 1)).to_bytes(8, "little") for n in numbers if n >= 1 << 16))
    return streams


def found_in(streams, model):
    """How many of the model's windows occur in any of the streams."""
    size = len(next(iter(model)))
    seen = set()
    for data in streams:
        seen |= windows(data, size) & model
    return len(seen)


def found_in_text(path, model):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return found_in(decoded(handle.read()), model)


def found_in_binary(path, model):
    with open(path, "rb") as handle:
        return found_in([handle.read()], model)
