# grundy-lab: the lab, its reference solution, its tests and its grader.
#
# Student targets:  make test | test-task0 | test-task1 | test-task2 | memcheck | coverage
# Staff targets:    make deps | all | check | bench | demo | handouts | clean
#
# IMPL picks the solution under test: `student` (default), `reference`, or
# any directory holding grundy_position.c and grundy_solver.c (for example
# a fixture: make test IMPL=tests/fixtures/unmemoized). SAN=1 builds with
# AddressSanitizer and UndefinedBehaviorSanitizer.

IMPL ?= student
SAN ?=

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif

IMPL_NAME := $(subst /,_,$(patsubst %/,%,$(IMPL)))
BUILD := build/$(IMPL_NAME)$(if $(SAN),-san)

, := ,
SANITIZE := $(if $(SAN),-fsanitize=address$(,)undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
BASE_CFLAGS := -std=c11 -g -O2 -D_POSIX_C_SOURCE=200809L $(SANITIZE)
# The project's own code must be warning-free. A student's code gets the
# same warnings, but a warning must not stop them from seeing test results.
STRICT := -Wall -Wextra -Werror
IMPL_WARN := $(if $(filter reference,$(IMPL)),$(STRICT),-Wall -Wextra)
INCLUDES := -Istudent -Ireference/oracle -Itests/support

GIVEN_SRC := student/grundy_given.c student/memo_table.c student/lab_todo.c
ORACLE_SRC := $(wildcard reference/oracle/*.c)
SUPPORT_SRC := $(wildcard tests/support/*.c)
IMPL_SRC := $(IMPL)/grundy_position.c $(IMPL)/grundy_solver.c
TASKS := task0 task1 task2

GIVEN_OBJ := $(patsubst %.c,$(BUILD)/given/%.o,$(notdir $(GIVEN_SRC)))
ORACLE_OBJ := $(patsubst %.c,$(BUILD)/oracle/%.o,$(notdir $(ORACLE_SRC)))
SUPPORT_OBJ := $(patsubst %.c,$(BUILD)/support/%.o,$(notdir $(SUPPORT_SRC)))
IMPL_OBJ := $(BUILD)/impl/grundy_position.o $(BUILD)/impl/grundy_solver.o
RUNNERS := $(TASKS:%=$(BUILD)/test_%)

# Each runner wraps what its checks observe: every allocation (leak checks
# as assertions) and, for Task 2, every call to grundy_get_moves (the
# memoization check). See tests/support/*.h.
WRAP_ALLOC := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
LDLIBS_TEST := -lcriterion

# Criterion's own flags for the runners; one test process per core.
CRITERION_FLAGS ?=

.PHONY: all test $(TASKS:%=test-%) memcheck coverage check demo deps handouts clean
.DEFAULT_GOAL := all

all: bin/grundy $(RUNNERS)

# ---- building ---------------------------------------------------------------

$(BUILD)/given/%.o: student/%.c student/grundy.h | $(BUILD)/given
	$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@

$(BUILD)/oracle/%.o: reference/oracle/%.c $(wildcard reference/oracle/*.h) | $(BUILD)/oracle
	$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@

$(BUILD)/support/%.o: tests/support/%.c $(wildcard tests/support/*.h) student/grundy.h | $(BUILD)/support
	$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@

$(BUILD)/impl/%.o: $(IMPL)/%.c student/grundy.h | $(BUILD)/impl
	$(call compile_student_file,$(CC) $(BASE_CFLAGS) $(IMPL_WARN) $(INCLUDES) -c $< -o $@)

$(BUILD)/lab/%.o: tests/lab/%.c $(wildcard tests/support/*.h) | $(BUILD)/lab
	$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@

$(BUILD)/liboracle.a: $(ORACLE_OBJ)
	$(AR) rcs $@ $^

COMMON_TEST_OBJ := $(IMPL_OBJ) $(GIVEN_OBJ) $(BUILD)/support/lab_support.o \
                   $(BUILD)/support/lab_report.o $(BUILD)/support/alloc_tracker.o

$(BUILD)/test_task0: $(BUILD)/lab/test_task0.o $(COMMON_TEST_OBJ) $(BUILD)/liboracle.a
	$(CC) $(BASE_CFLAGS) $^ -o $@ $(WRAP_ALLOC) $(LDLIBS_TEST)

$(BUILD)/test_task1: $(BUILD)/lab/test_task1.o $(COMMON_TEST_OBJ) $(BUILD)/liboracle.a
	$(CC) $(BASE_CFLAGS) $^ -o $@ $(WRAP_ALLOC) $(LDLIBS_TEST)

$(BUILD)/test_task2: $(BUILD)/lab/test_task2.o $(COMMON_TEST_OBJ) \
                     $(BUILD)/support/expansion_counter.o $(BUILD)/support/calibration_solver.o \
                     $(BUILD)/support/timed_run.o $(BUILD)/liboracle.a
	$(CC) $(BASE_CFLAGS) $^ -o $@ $(WRAP_ALLOC) -Wl,--wrap=grundy_get_moves $(LDLIBS_TEST)

bin/grundy: reference/cli/grundy_cli.c $(ORACLE_SRC) $(wildcard reference/oracle/*.h) | bin
	$(CC) -std=c11 -O2 -D_POSIX_C_SOURCE=200809L $(STRICT) -Ireference/oracle \
	    reference/cli/grundy_cli.c $(ORACLE_SRC) -o $@

$(BUILD)/test_oracle: tests/selftest/test_oracle.c $(BUILD)/liboracle.a | $(BUILD)
	$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) $^ -o $@ $(LDLIBS_TEST)

$(BUILD) $(BUILD)/given $(BUILD)/oracle $(BUILD)/support $(BUILD)/impl $(BUILD)/lab bin:
	@mkdir -p $@

# ---- student targets ----------------------------------------------------------

# `make test` renders the handout it points to, when pandoc is there.
HANDOUT_HTML := build/handouts/grundy-lab.html
test $(TASKS:%=test-%) memcheck: | $(if $(shell command -v pandoc),$(HANDOUT_HTML))
include tests/student-targets.mk

# ---- the grader's harness -----------------------------------------------------
# Everything trusted that grader/grade needs, built once and reused for
# every submission (see grader/boundary/README.md for the picture):
#   - the test runners (runner_taskN): the suites, public and hidden, the
#     oracle and the report hook, linked with the proxy of grundy.h; they
#     never contain a submission's code;
#   - the timing probe, trusted in the same way;
#   - the objects a student process is linked from: the server loop, the
#     given code, the allocation tracker, the expansion counter and the
#     reference solution (for task isolation and the timing yardstick).

GRADER_BUILD := build/grader
HIDDEN_SRC := $(wildcard tests/hidden/test_hidden_task*.c)
GRADER_CFLAGS := -std=c11 -g -O2 -D_POSIX_C_SOURCE=200809L $(STRICT) $(INCLUDES) -Igrader/boundary
BOUNDARY_HDR := $(wildcard grader/boundary/*.h)
# Trusted side: what every runner and the probe link besides their own code.
TRUSTED_OBJ := $(addprefix $(GRADER_BUILD)/boundary/,proxy.o spawn.o seccomp_policy.o wire.o) \
               $(GRADER_BUILD)/given/grundy_given.o
# Student side: linked with a submission's two objects into a student process.
STUDENT_SIDE_OBJ := $(addprefix $(GRADER_BUILD)/boundary/,student_server.o wire_untracked.o gcov_on_crash.o) \
                    $(GIVEN_SRC:student/%.c=$(GRADER_BUILD)/given/%.o) \
                    $(GRADER_BUILD)/support/alloc_tracker.o $(GRADER_BUILD)/support/expansion_counter.o \
                    $(GRADER_BUILD)/reference/grundy_position.o $(GRADER_BUILD)/reference/grundy_solver.o
GRADER_RUNNERS := $(TASKS:%=$(GRADER_BUILD)/runner_%)
RUNNER_SUPPORT := $(addprefix $(GRADER_BUILD)/support/,lab_support.o timed_run.o calibration_solver.o)
GRADER_LIBS := -lcriterion -ljansson -lseccomp

# The handout as one file (its style inside), which the grader copies next
# to each feedback.html so that the feedback can link its sections. Only
# where pandoc and the handout are (the Gradescope package has no handout:
# Gradescope shows no feedback.html).
GRADER_HANDOUT := $(if $(and $(shell command -v pandoc),$(wildcard handouts/grundy-lab.md)),$(GRADER_BUILD)/handout.html)

.PHONY: grader-harness
grader-harness: $(GRADER_RUNNERS) $(GRADER_BUILD)/timing_probe $(STUDENT_SIDE_OBJ) $(GRADER_BUILD)/tests.txt \
                $(GRADER_BUILD)/student_reference $(GRADER_HANDOUT)
$(GRADER_BUILD)/handout.html: handouts/grundy-lab.md handouts/handout.css
	@mkdir -p $(@D)
	cd handouts && pandoc --standalone --toc --self-contained --css handout.css --from markdown \
	    --to html5 -o $(abspath $@).tmp grundy-lab.md && mv $(abspath $@).tmp $(abspath $@)

# The reference as a student program, linked as grader/gradelib/build.py
# links a submission's (config.WRAPS, static): the timing phase's yardstick,
# the same for every submission, so it is linked once here.
STUDENT_LINK := -static -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free -Wl,--wrap=grundy_get_moves
$(GRADER_BUILD)/student_reference: $(filter-out %/gcov_on_crash.o,$(STUDENT_SIDE_OBJ)) ; $(CC) $^ -o $@ $(STUDENT_LINK)

$(GRADER_BUILD)/runner_%: $(GRADER_BUILD)/suites/test_%.o $(RUNNER_SUPPORT) $(TRUSTED_OBJ) \
                          $(GRADER_BUILD)/boundary/proxy_criterion.o $(GRADER_BUILD)/boundary/grader_report.o \
                          $(GRADER_BUILD)/liboracle.a
	$(CC) $(filter $(GRADER_BUILD)/suites/test_$*.o,$^) $(wildcard $(GRADER_BUILD)/suites/test_hidden_$*.o) \
	    $(filter-out $(GRADER_BUILD)/suites/%,$^) -o $@ $(GRADER_LIBS)
$(GRADER_RUNNERS): $(HIDDEN_SRC:tests/hidden/%.c=$(GRADER_BUILD)/suites/%.o)

$(GRADER_BUILD)/timing_probe: $(GRADER_BUILD)/boundary/timing_probe.o $(TRUSTED_OBJ) $(GRADER_BUILD)/liboracle.a
	$(CC) $^ -o $@ -lseccomp

# Every graded test, from the runners themselves: a test missing from a
# submission's run is noticed.
$(GRADER_BUILD)/tests.txt: $(GRADER_RUNNERS)
	@for runner in $^; do $$runner --list; done | awk '/^[a-z0-9_]+: [0-9]+ tests?$$/ {suite=$$1; sub(":","",suite); next} \
	    {name=$$NF; if (suite != "") print suite "::" name}' > $@.tmp && mv $@.tmp $@

$(GRADER_BUILD)/boundary/wire_untracked.o: grader/boundary/wire.c $(BOUNDARY_HDR)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -DWIRE_UNTRACKED -c $< -o $@
$(GRADER_BUILD)/boundary/%.o: grader/boundary/%.c $(BOUNDARY_HDR) student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/given/%.o: student/%.c student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/reference/%.o: reference/%.c student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/support/%.o: tests/support/%.c $(wildcard tests/support/*.h) student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/oracle/%.o: reference/oracle/%.c $(wildcard reference/oracle/*.h)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/liboracle.a: $(ORACLE_SRC:reference/oracle/%.c=$(GRADER_BUILD)/oracle/%.o)
	$(AR) rcs $@ $^
$(GRADER_BUILD)/suites/%.o: tests/lab/%.c $(wildcard tests/support/*.h)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/suites/%.o: tests/hidden/%.c $(wildcard tests/support/*.h tests/hidden/*.h)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
# ---- staff targets ------------------------------------------------------------

# The project's own test suite: see tests/check.
check:
	@tests/check

# The performance targets, measured in one run: a table, and bench/results.md.
# Builds under build/bench; takes several minutes (see bench/run).
.PHONY: bench
bench:
	@bench/run

deps:
	@grader/install-deps

handouts: build/handouts/grundy-lab.html

build/handouts/grundy-lab.html: handouts/grundy-lab.md handouts/handout.css
	@mkdir -p build/handouts
	@cp handouts/handout.css build/handouts/
	pandoc --standalone --toc --css handout.css -o $@.tmp \
	    --from markdown --to html5 $< && mv $@.tmp $@

demo:
	@grader/demo

# ---- course operations (see README.md, "For instructors") ----------------------

.PHONY: release gradescope check-browser check-ci
# dist/student/: what students clone (no reference, no hidden tests, no grader).
release: all
	@grader/make-release dist/student
# dist/autograder.zip: Gradescope's setup.sh and run_autograder around the grader.
gradescope: grader-harness
	@grader/make-gradescope dist/autograder.zip
# The class report in a real headless browser: it renders, charts show, links resolve.
check-browser:
	@tests/ops/check-browser
# The GitLab CI templates, run for real with gitlab-ci-local in shell mode.
check-ci:
	@tests/ops/check-ci
# grade-all on 40 generated submissions: killed and resumed, sharded and merged
# (make check runs the same with 6).
.PHONY: check-batch
check-batch:
	@tests/ops/check-batch --students 40

clean:
	rm -rf build bin
