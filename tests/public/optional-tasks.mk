# tests/public/optional-tasks.mk - Part 2 of the lab, its optional tasks:
# their test runners, `make test-taskN`, and the targets of their given
# programs, `make play` (Task 5) and `make measure` (Task 6), each only
# where the lab has its task. A release whose term has no optional task
# does not ship this file (grader/labdef-gen release, exclusions.txt).
#
# Each optional task is one student file and its header (below, taskN_FILE)
# and one public suite, tests/public/suites/test_taskN.c. OPTIONAL_TASKS, set by the
# including Makefile, says which of them `make test`, `memcheck` and
# `coverage` run after Tasks 0-2 (tests/public/student-targets.mk); test-taskN
# works for every task whose files are present.
#
# Included by the staff Makefile after tests/public/student-targets.mk, and meant
# for the student release's Makefile too. The including Makefile defines
# IMPL, BUILD, SHARED, BASE_CFLAGS, IMPL_OBJ, GIVEN_OBJ and ORACLE_LIB,
# includes tests/public/suite-programs.mk (COMMON_TEST_OBJ, WRAP_ALLOC,
# LDLIBS_TEST, CRITERION_FLAGS), and has the pattern rules that compile
# $(IMPL)/%.c, student/%.c, tests/public/suites/%.c and
# tests/public/support/%.c into $(BUILD)/impl and $(SHARED)/given, lab and
# support.

# The optional tasks and the file a student writes for each (taskN_FILE, in
# $(IMPL), with its header in student/) come from the lab's definition
# (generated into lab.mk: tests/public/gen/ in the release).
KNOWN_OPTIONAL_TASKS := $(LAB_KNOWN_OPTIONAL_TASKS)
OPTIONAL_FILES := $(foreach task,$(OPTIONAL_TASKS),$($(task)_FILE))

# Every optional runner links the same helpers: the expansion counter
# (hence --wrap=grundy_get_moves), the child-process runner with its CPU
# budgets and small stacks, the calibration solver they measure by, the
# move checks of Task 5, and the checks of Tasks 6 and 8's own memos and
# deep positions.
OPTIONAL_SUPPORT_OBJ := $(addprefix $(SHARED)/support/,expansion_counter.o child_run.o child_result.o cpu_budget.o \
                          calibration_solver.o move_check.o memo_solver.o deep_position.o memo_recorder.o)
OPTIONAL_LDFLAGS := $(WRAP_ALLOC) $(WRAP_CHECKS) $(WRAP_MEMO) -Wl,--wrap=grundy_get_moves -pthread $(LDLIBS_TEST)
# The archive last, so every object before it can use the oracle.
LINK_OPTIONAL_SUITE_PROGRAM = $(call quietly,LD $(notdir $@),$(CC) $(BASE_CFLAGS) $(filter-out %.a,$^) $(filter %.a,$^) -o $@ $(OPTIONAL_LDFLAGS))

OPTIONAL_SUITE_PROGRAMS := $(KNOWN_OPTIONAL_TASKS:%=$(BUILD)/test_%)
$(OPTIONAL_SUITE_PROGRAMS): $(BUILD)/test_%: $(SHARED)/lab/test_%.o $(COMMON_TEST_OBJ) $(OPTIONAL_SUPPORT_OBJ) \
                                      $(ORACLE_LIB)
	$(LINK_OPTIONAL_SUITE_PROGRAM)

# Each task's own file, and the header it and its suite are compiled against.
define optional_task_rules
$(BUILD)/test_$(1): $(BUILD)/impl/$($(1)_FILE).o
$(BUILD)/impl/$($(1)_FILE).o $(SHARED)/lab/test_$(1).o: student/$($(1)_FILE).h
endef
$(foreach task,$(KNOWN_OPTIONAL_TASKS),$(eval $(call optional_task_rules,$(task))))

.PHONY: $(KNOWN_OPTIONAL_TASKS:%=test-%)
$(KNOWN_OPTIONAL_TASKS:%=test-%): test-%: $(BUILD)/test_%
	@tests/public/run-suites $(BUILD) $* -- $(CRITERION_FLAGS)

# ---- Task 5: play against your own solver ----------------------------------------
# Only where the lab has Task 5 (in a release: its term has it).
ifneq ($(filter task5,$(KNOWN_OPTIONAL_TASKS)),)
# make play [HEAPS="10 7"] [PLAY_FLAGS=--solver-first]: a game in the
# terminal against grundy_winning_move (student/play_main.c, given).
HEAPS ?= 10
PLAY_FLAGS ?=
$(BUILD)/play: $(SHARED)/given/play_main.o $(SHARED)/given/play_game.o $(BUILD)/impl/grundy_winning.o \
               $(IMPL_OBJ) $(GIVEN_OBJ)
	$(CC) $(BASE_CFLAGS) $^ -o $@
$(SHARED)/given/play_main.o $(SHARED)/given/play_game.o: student/play_game.h student/grundy_winning.h
.PHONY: play
play: $(BUILD)/play
	@$(BUILD)/play $(PLAY_FLAGS) $(HEAPS)
endif

# ---- Task 6: what each idea buys ------------------------------------------------
# Only where the lab has Task 6.
ifneq ($(filter task6,$(KNOWN_OPTIONAL_TASKS)),)
# make measure [MEASURE_HEAPS="40 50 60 70 80"]: expansions, memo size and
# CPU time of the Task 2 solver, the reduced search and the nimbers
# (student/measure_main.c, given), each heap in a child process with a
# CPU cap so a slow one cannot hang the table.
MEASURE_HEAPS ?= 40 50 60 70 80
$(BUILD)/measure: $(SHARED)/given/measure_main.o $(BUILD)/impl/grundy_nimbers.o $(IMPL_OBJ) $(GIVEN_OBJ) \
                  $(SHARED)/support/expansion_counter.o $(SHARED)/support/child_run.o $(SHARED)/support/child_result.o
	$(CC) $(BASE_CFLAGS) $^ -o $@ -Wl,--wrap=grundy_get_moves -pthread
$(SHARED)/given/measure_main.o: student/grundy_nimbers.h tests/public/support/child_run.h tests/public/support/expansion_counter.h
.PHONY: measure
measure: $(BUILD)/measure
	@$(BUILD)/measure $(MEASURE_HEAPS)
endif
