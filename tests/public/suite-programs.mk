# tests/public/suite-programs.mk - how the test programs of Tasks 0-2 are
# linked: one program per task, its suite with the student's two files,
# the given code, the suites' support and the oracle. Included by the
# staff Makefile and by the student release's Makefile
# (grader/release/Makefile), which define BUILD, SHARED (where what every
# IMPL shares is built: $(BUILD) in the release), BASE_CFLAGS, IMPL_OBJ,
# GIVEN_OBJ and ORACLE_LIB, and the rules that compile the objects.

# Each test program wraps what its checks observe: every allocation (leak checks
# as assertions) and, for Tasks 1 and 2, every call to grundy_get_moves (the
# memoization check, and leak checks that tell move lists from the memo).
# See tests/public/support/*.h.
WRAP_ALLOC := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
# ... and memcpy, which stops a test that copies between overlapping ranges
# (tests/public/support/checked_memcpy.c): undefined behaviour that neither
# valgrind nor UndefinedBehaviorSanitizer reports; and memmove, which stops
# a test that shifts entries past a position's size (the same file).
WRAP_CHECKS := -Wl,--wrap=memcpy,--wrap=memmove
# ... and the given memo table, whose every call the tests may record as
# evidence of a memo mistake, and make forgetful for Task 1's tests
# (tests/public/support/memo_record.h).
WRAP_MEMO := -Wl,--wrap=memo_table_new,--wrap=memo_table_free,--wrap=memo_table_get,--wrap=memo_table_put \
             -Wl,--wrap=memo_table_size,--wrap=memo_table_clear
MEMO_RECORDER_OBJ := $(SHARED)/support/memo_recorder.o
# ... and, for Tasks 1 and 2, grundy_get_moves (a variable: a comma cannot
# stand in the command given to $(call quietly,...)).
WRAP_MOVES := -Wl,--wrap=grundy_get_moves
LDLIBS_TEST := -lcriterion

# Criterion's own flags for the test programs, e.g. CRITERION_FLAGS=--verbose.
CRITERION_FLAGS ?=

# lab_support.h's helpers, a file per job (see each file's header).
LAB_SUPPORT_NAMES := lab_support lab_messages lab_positions lab_diagnosis lab_first_step lab_trace lab_signals lab_where \
                     lab_hints memo_evidence
COMMON_TEST_OBJ := $(IMPL_OBJ) $(GIVEN_OBJ) $(LAB_SUPPORT_NAMES:%=$(SHARED)/support/%.o) \
                   $(SHARED)/support/lab_report.o $(SHARED)/support/alloc_tracker.o \
                   $(SHARED)/support/checked_memcpy.o $(SHARED)/support/criterion_start.o

$(BUILD)/test_task0: $(SHARED)/lab/test_task0.o $(COMMON_TEST_OBJ) $(ORACLE_LIB)
	$(call quietly,LD $(notdir $@),$(CC) $(BASE_CFLAGS) $^ -o $@ $(WRAP_ALLOC) $(WRAP_CHECKS) $(LDLIBS_TEST))

$(BUILD)/test_task1: $(SHARED)/lab/test_task1.o $(COMMON_TEST_OBJ) $(SHARED)/support/expansion_counter.o \
                     $(MEMO_RECORDER_OBJ) $(ORACLE_LIB)
	$(call quietly,LD $(notdir $@),$(CC) $(BASE_CFLAGS) $^ -o $@ $(WRAP_ALLOC) $(WRAP_CHECKS) $(WRAP_MEMO) $(WRAP_MOVES) $(LDLIBS_TEST))

$(BUILD)/test_task2: $(SHARED)/lab/test_task2.o $(COMMON_TEST_OBJ) \
                     $(SHARED)/support/expansion_counter.o $(SHARED)/support/calibration_solver.o \
                     $(SHARED)/support/timed_run.o $(MEMO_RECORDER_OBJ) $(ORACLE_LIB)
	$(call quietly,LD $(notdir $@),$(CC) $(BASE_CFLAGS) $^ -o $@ $(WRAP_ALLOC) $(WRAP_CHECKS) $(WRAP_MEMO) $(WRAP_MOVES) $(LDLIBS_TEST))
