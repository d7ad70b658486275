# tests/public/student-targets.mk - the targets students run: test, test-taskN,
# memcheck and coverage. Included by the staff Makefile and by the student
# release's Makefile (grader/release/Makefile), so both run the suites the
# same way. The including Makefile defines IMPL, IMPL_NAME, BUILD, TASKS and
# SUITE_PROGRAMS, and includes tests/public/suite-programs.mk (how to build
# $(BUILD)/test_<task>, and CRITERION_FLAGS).
#
# OPTIONAL_TASKS (the lab definition's choice, or as set) adds optional
# Part 2 tasks after Tasks 0-2, e.g. OPTIONAL_TASKS="task5 task6"; their
# programs and the names of their files (OPTIONAL_FILES) come from
# tests/public/optional-tasks.mk.

# OPTIONAL_TASKS may name only the optional tasks this lab has (lab.mk's
# LAB_KNOWN_OPTIONAL_TASKS: in a release, those of its term). Any other is
# left out, and tests/public/run-suites says so in one line after the
# summary and fails: the other tasks still run and are reported.
UNKNOWN_OPTIONAL_TASKS := $(filter-out $(LAB_KNOWN_OPTIONAL_TASKS),$(OPTIONAL_TASKS))
ifneq ($(UNKNOWN_OPTIONAL_TASKS),)
override OPTIONAL_TASKS := $(filter $(LAB_KNOWN_OPTIONAL_TASKS),$(OPTIONAL_TASKS))
export LAB_UNKNOWN_TASKS := $(UNKNOWN_OPTIONAL_TASKS)
endif

ALL_TASKS = $(TASKS) $(OPTIONAL_TASKS)
ALL_SUITE_PROGRAMS = $(SUITE_PROGRAMS) $(OPTIONAL_TASKS:%=$(BUILD)/test_%)

# A quiet build: one short line per step ("  CC  grundy_position.c"), the
# compiler's own messages as usual, and the full command only when it
# fails; V=1 prints every command in full instead. Usage in a recipe:
# $(call quietly,WHAT FILE,COMMAND), e.g. $(call quietly,CC $(notdir $<),$(CC) ...).
V ?=
define quietly
@$(if $(V),echo '$(2)',printf '  %-3s %s\n' $(1)); $(2) || { status=$$?; echo 'make: this command failed: $(2)' >&2; exit $$status; }
endef

# Compiles one of the student's two files, quietly (above): the compiler's
# messages are shown as usual, and kept beside the object ($@.warnings) so
# that tests/public/run-suites can count the warnings and fail a task on one
# that is almost always a bug. Usage in a recipe: $(call compile_student_file,COMMAND)
define compile_student_file
@$(if $(V),echo '$(1)',printf '  %-3s %s\n' CC '$(notdir $<)')
@$(1) 2>$@.warnings; status=$$?; cat $@.warnings >&2; [ $$status -eq 0 ] || echo 'make: this command failed: $(1)' >&2; exit $$status
endef

# The rendered handout `make test` points to (the including Makefile may
# set another path, and a rule to make it).
HANDOUT_HTML ?= handouts/grundy-lab.html
export HANDOUT_HTML

# The optional tasks' test programs, built one by one after Tasks 0-2's: a
# Part 2 file that does not compile must not hide the results of Tasks
# 0-2. Its compiler messages are printed as usual and kept beside its
# object; its program is removed, so that an older build of it is not run,
# and tests/public/run-suites reports that task as not compiling.
define build_optional_programs
@+for program in $(OPTIONAL_TASKS:%=$(BUILD)/test_%); do \
    $(MAKE) --no-print-directory -s $$program || rm -f $$program; \
done
endef

# Runs every task's suite (a failing task does not stop the others), then
# prints the per-task summary; fails if any test failed.
test: $(SUITE_PROGRAMS)
	$(build_optional_programs)
	@tests/public/run-suites $(BUILD) $(ALL_TASKS) -- $(CRITERION_FLAGS)

$(TASKS:%=test-%): test-%: $(BUILD)/test_%
	@tests/public/run-suites $(BUILD) $* -- $(CRITERION_FLAGS)

# The suites under valgrind. Timing checks are skipped (valgrind slows
# everything down 20-50x) and the largest positions are smaller; leaks
# and invalid accesses fail the run.
memcheck: $(SUITE_PROGRAMS)
	$(build_optional_programs)
	@LAB_SKIP_TIMING=1 tests/public/run-suites --valgrind $(BUILD) $(ALL_TASKS) -- $(CRITERION_FLAGS)

# Line and branch coverage of the solution files, as HTML. Built apart (no
# optimisation, gcov instrumentation) so it never mixes with `make test`.
COVERAGE_BUILD := build/coverage$(if $(filter student,$(IMPL)),,-$(IMPL_NAME))
COVERED_FILES = $(sort $(foreach task,$(TASKS),$($(task)_FILE))) $(OPTIONAL_FILES)
empty :=
space := $(empty) $(empty)
coverage:
	@rm -rf $(COVERAGE_BUILD)
	@$(MAKE) --no-print-directory IMPL=$(IMPL) BUILD=$(COVERAGE_BUILD) SHARED=$(COVERAGE_BUILD) OPTIONAL_TASKS="$(OPTIONAL_TASKS)" \
	    BASE_CFLAGS="$(subst -O2,-O0,$(LAB_CFLAGS)) --coverage" \
	    $(ALL_TASKS:%=$(COVERAGE_BUILD)/test_%) >/dev/null
	@tests/public/run-suites $(COVERAGE_BUILD) $(ALL_TASKS) -- $(CRITERION_FLAGS) >$(COVERAGE_BUILD)/tests.log 2>&1 || true
	@gcovr --root . --filter '$(IMPL)/($(subst $(space),|,$(strip $(COVERED_FILES))))\.c' \
	    --html-details $(COVERAGE_BUILD)/index.html --print-summary $(COVERAGE_BUILD)/impl
	@echo "coverage report: $(COVERAGE_BUILD)/index.html (test output: $(COVERAGE_BUILD)/tests.log)"
