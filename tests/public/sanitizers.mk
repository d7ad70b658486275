# tests/public/sanitizers.mk - what the test programs are built to catch:
# SANITIZE, the compiler's checking flags, chosen by SAN. Included by the
# staff Makefile and by the student release's Makefile before they set
# BASE_CFLAGS.
#
# Three ways to run the same tests; each catches something the others miss.
#
#   make test          UndefinedBehaviorSanitizer, cheap checks only (a few
#                      percent slower): signed integer overflow (a hash summed
#                      in an int), a shift by a negative amount or by the
#                      width of the type or more, an index past the end of an
#                      array whose size the compiler knows (int moves[8]), a
#                      variable-length array of size <= 0, a division by
#                      zero; and memcpy between overlapping ranges (use
#                      memmove), which the test programs check themselves
#                      (tests/public/support/checked_memcpy.c). The first one
#                      stops the test; the message names your file and line. Code that does these things may
#                      seem to work and then break with another compiler or
#                      another -O, which is why they fail the test.
#   make test SAN=1    AddressSanitizer as well (2-3x slower, its own build
#                      in build/student-san): every invalid access to the
#                      heap, the stack or a global, at the line that makes
#                      it, even one byte past a block; use after free; a
#                      double free; leaks at the end of each test. It stops at
#                      the first error, with the stacks of the access, of
#                      the allocation and of the free.
#   make memcheck      valgrind on the plain build (20-50x slower, timing
#                      tests skipped): reads of uninitialised memory (a
#                      malloc'ed field never set, used in an if), which
#                      neither sanitizer reports; invalid accesses to the
#                      heap and leaks, grouped by the line of your files
#                      that made them, with every test they happened in. It
#                      misses an access that lands inside another block or
#                      on the stack (AddressSanitizer sees those), and
#                      undefined behaviour that does not touch memory, or
#                      an overlapping memcpy (the checks of `make test` see
#                      those).
#
# A passing `make test` with a failing `make test SAN=1` or `make memcheck`
# is a bug in your code that happens to go unnoticed on this machine: the
# grader runs the tests under valgrind too (the memory checks).

, := ,
# The checks of a plain build: those that cost almost nothing at run time.
# -fno-sanitize-recover stops at the first one, so that it fails the test
# instead of scrolling past; LAB_UBSAN tells the tests' support code
# (tests/public/support/lab_signals.c) to report it with the test's name.
UBSAN_CHEAP := -fsanitize=signed-integer-overflow$(,)shift$(,)bounds$(,)vla-bound$(,)integer-divide-by-zero \
               -fno-sanitize-recover=all -DLAB_UBSAN
UBSAN_FULL := -fsanitize=address$(,)undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -DLAB_UBSAN
# Every call keeps its own frame (no call made last turned into a jump), so
# that a crash inside given code still shows the line of your function that
# called it (tests/public/support/lab_where.c); it costs almost nothing.
KEEP_FRAMES := -fno-optimize-sibling-calls
# UBSAN=0 turns the cheap checks off (to compare, or to time the code
# exactly as the grader builds it).
UBSAN ?= 1
SANITIZE := $(if $(SAN),$(UBSAN_FULL) $(KEEP_FRAMES),$(if $(filter 1,$(UBSAN)),$(UBSAN_CHEAP) $(KEEP_FRAMES)))
