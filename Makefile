# grundy-lab: the lab, its reference solution, its tests and its grader.
#
# Student targets:  make test | test-task0 | test-task1 | test-task2 | memcheck | coverage
#                   Part 2 (optional): test-task5 ... test-task8 | play | measure
# Staff targets:    make deps | all | check | check-calendar | check-configured | check-monotone-slow | bench | demo | handouts | image | check-image | clean
#
# IMPL picks the solution under test: `student` (default), `reference`, or
# any directory holding grundy_position.c and grundy_solver.c (for example
# a fixture: make test IMPL=tests/staff/fixtures/unmemoized). `make test`
# builds with cheap UndefinedBehaviorSanitizer checks (UBSAN=0: without);
# SAN=1 with AddressSanitizer too (tests/public/sanitizers.mk). OPTIONAL_TASKS adds
# optional tasks of Part 2 to `make all`, `test`, `memcheck` and `coverage`,
# e.g. OPTIONAL_TASKS="task5 task6" (tests/public/optional-tasks.mk).

IMPL ?= student
SAN ?=

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif

# The lab's definition (grader/lab.ini): tasks, files, compile flags,
# generated for make and C by grader/labdef-gen (remade when it changes).
# LAB_INI names another definition (a file that `extends` lab.ini, as
# make check's tests/staff/fixtures/lab-all-tasks.ini does); its builds go to
# build/gen-NAME and build/grader-NAME, beside the default's.
LAB_INI ?= $(or $(GRUNDY_LAB_DEFINITION),grader/lab.ini)
LAB_VARIANT := $(if $(filter $(abspath grader/lab.ini),$(abspath $(LAB_INI))),,-$(basename $(notdir $(LAB_INI))))
ifneq ($(LAB_VARIANT),)
export GRUNDY_LAB_DEFINITION := $(abspath $(LAB_INI))
endif
GEN := build/gen$(LAB_VARIANT)
LABDEF := $(sort $(LAB_INI) grader/lab.ini) grader/gradelib/labdef.py grader/labdef-gen
$(GEN)/lab.mk $(GEN)/lab_definition.h $(GEN)/lab_titles.txt &: $(LABDEF)
	@grader/labdef-gen public $(GEN)
include $(GEN)/lab.mk
# tests/public/run-suites titles each task from this definition's list.
export LAB_TITLES := $(GEN)/lab_titles.txt

IMPL_NAME := $(subst /,_,$(patsubst %/,%,$(IMPL)))
# SAN=1 and UBSAN=0 (tests/public/sanitizers.mk) build apart: objects built
# with other checks must not be mixed.
BUILD := build/$(IMPL_NAME)$(if $(SAN),-san,$(if $(filter 0,$(UBSAN)),-noubsan))
# What every IMPL's test programs share (given code, oracle, support, the
# suites) is built once, not once per IMPL: make check builds dozens.
SHARED := build/shared$(if $(SAN),-san,$(if $(filter 0,$(UBSAN)),-noubsan))

# What the test programs are built to catch (SAN=1, UBSAN=0): see the file.
include tests/public/sanitizers.mk
BASE_CFLAGS := $(LAB_CFLAGS) $(SANITIZE)
# The project's own code must be warning-free. A student's code gets the
# same warnings, but a warning must not stop them from seeing test results.
STRICT := -Wall -Wextra -Werror
IMPL_WARN := $(if $(filter reference,$(IMPL)),$(STRICT),$(LAB_WARNINGS))
INCLUDES := -Istudent -Ireference/oracle -Itests/public/support -I$(GEN)

GIVEN_SRC := student/grundy_given.c student/memo_table.c student/lab_todo.c
ORACLE_SRC := $(wildcard reference/oracle/*.c)
SUPPORT_SRC := $(wildcard tests/public/support/*.c)
IMPL_SRC := $(IMPL)/grundy_position.c $(IMPL)/grundy_solver.c
TASKS := $(LAB_CORE_TASKS)
# The optional tasks of Part 2 to build and run as well: those the lab's
# definition chooses for this term, unless given on the command line.
OPTIONAL_TASKS ?= $(LAB_OPTIONAL_TASKS)

GIVEN_OBJ := $(patsubst %.c,$(SHARED)/given/%.o,$(notdir $(GIVEN_SRC)))
ORACLE_OBJ := $(patsubst %.c,$(SHARED)/oracle/%.o,$(notdir $(ORACLE_SRC)))
ORACLE_LIB := $(SHARED)/liboracle.a
SUPPORT_OBJ := $(patsubst %.c,$(SHARED)/support/%.o,$(notdir $(SUPPORT_SRC)))
IMPL_OBJ := $(BUILD)/impl/grundy_position.o $(BUILD)/impl/grundy_solver.o
SUITE_PROGRAMS := $(TASKS:%=$(BUILD)/test_%)

.PHONY: all test $(TASKS:%=test-%) memcheck coverage check demo deps handouts clean
.DEFAULT_GOAL := all

all: bin/grundy $(SUITE_PROGRAMS) $(OPTIONAL_TASKS:%=$(BUILD)/test_%)

# ---- building ---------------------------------------------------------------

$(SHARED)/given/%.o: student/%.c student/grundy.h tests/public/sanitizers.mk | $(SHARED)/given
	$(call quietly,CC $(notdir $<),$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@)

$(SHARED)/oracle/%.o: reference/oracle/%.c $(wildcard reference/oracle/*.h) tests/public/sanitizers.mk | $(SHARED)/oracle
	$(call quietly,CC $(notdir $<),$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@)

$(SHARED)/support/%.o: tests/public/support/%.c $(wildcard tests/public/support/*.h) $(GEN)/lab_definition.h student/grundy.h tests/public/sanitizers.mk | $(SHARED)/support
	$(call quietly,CC $(notdir $<),$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@)

$(BUILD)/impl/%.o: $(IMPL)/%.c student/grundy.h tests/public/sanitizers.mk | $(BUILD)/impl
	$(call compile_student_file,$(CC) $(BASE_CFLAGS) $(IMPL_WARN) $(INCLUDES) -c $< -o $@)

$(SHARED)/lab/%.o: tests/public/suites/%.c $(wildcard tests/public/support/*.h) $(GEN)/lab_definition.h tests/public/sanitizers.mk | $(SHARED)/lab
	$(call quietly,CC $(notdir $<),$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@)

$(SHARED)/liboracle.a: $(ORACLE_OBJ)
	$(call quietly,AR $(notdir $@),$(AR) rcs $@ $^)

# Tasks 0-2's test programs: linked as in the student release.
include tests/public/suite-programs.mk

# `grundy play` runs the game loop students get for `make play`
# (student/play_game.c), against the oracle.
bin/grundy: reference/cli/grundy_cli.c student/play_game.c student/play_game.h $(ORACLE_SRC) \
            $(wildcard reference/oracle/*.h) | bin
	$(call quietly,LD $(notdir $@),$(CC) $(LAB_CFLAGS) $(STRICT) -Ireference/oracle -Istudent reference/cli/grundy_cli.c student/play_game.c $(ORACLE_SRC) -o $@)

$(BUILD)/test_oracle: tests/staff/selftest/test_oracle.c $(SHARED)/liboracle.a | $(BUILD)
	$(call quietly,LD $(notdir $@),$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) $^ -o $@ $(LDLIBS_TEST))

$(BUILD) $(SHARED)/given $(SHARED)/oracle $(SHARED)/support $(BUILD)/impl $(SHARED)/lab bin:
	@mkdir -p $@

# ---- student targets ----------------------------------------------------------

# `make test` renders the handout it points to, when pandoc is there.
HANDOUT_HTML := build/handouts/grundy-lab.html
test $(TASKS:%=test-%) memcheck: | $(if $(shell command -v pandoc),$(HANDOUT_HTML))
include tests/public/student-targets.mk
# Part 2: the optional tasks' test programs, make play and make measure.
include tests/public/optional-tasks.mk

ifdef KNOWN_OPTIONAL_TASKS
# Staff only: an optional task's public and hidden suites in one runner,
# linked like the student's (no grader boundary), so that `make check` can
# run the hidden suites on the reference, the stubs and the fixtures:
# $(BUILD)/test_taskN_hidden, for tests/public/run-suites $(BUILD) taskN_hidden.
HIDDEN_SUITE_PROGRAMS := $(KNOWN_OPTIONAL_TASKS:%=$(BUILD)/test_%_hidden)
$(HIDDEN_SUITE_PROGRAMS): $(BUILD)/test_%_hidden: $(SHARED)/lab/test_hidden_%.o $(SHARED)/lab/test_%.o $(COMMON_TEST_OBJ) \
                                           $(OPTIONAL_SUPPORT_OBJ) $(ORACLE_LIB)
	$(LINK_OPTIONAL_SUITE_PROGRAM)
$(foreach task,$(KNOWN_OPTIONAL_TASKS),$(eval $(BUILD)/test_$(task)_hidden: $(BUILD)/impl/$($(task)_FILE).o))
$(SHARED)/lab/%.o: tests/staff/hidden/%.c $(wildcard tests/public/support/*.h tests/staff/hidden/*.h student/*.h) | $(SHARED)/lab
	$(call quietly,CC $(notdir $<),$(CC) $(BASE_CFLAGS) $(STRICT) $(INCLUDES) -c $< -o $@)
endif

# ---- the grader's harness -----------------------------------------------------
# Everything trusted that grader/grade needs, built once and reused for
# every submission (see grader/boundary/README.md for the picture):
#   - the test runners (runner_taskN): the suites, public and hidden, the
#     oracle and the report hook, linked with the proxy of grundy.h; they
#     never contain a submission's code;
#   - the timing probe and the growth probe (does a submission give its
#     memory back?), trusted in the same way;
#   - the objects a student process is linked from: the server loop, the
#     given code, the allocation tracker, the expansion counter, the stubs
#     and the public stand-in map (for task isolation). Never the model
#     solution: whatever a student process holds, it can read and echo.

GRADER_BUILD := build/grader$(LAB_VARIANT)
HIDDEN_SRC := $(wildcard tests/staff/hidden/test_hidden_task*.c)
GRADER_CFLAGS := $(LAB_CFLAGS) $(STRICT) $(INCLUDES) -Igrader/boundary -I$(GRADER_BUILD)/gen
# The API's crossing of the boundary, generated from the lab's definition.
BOUNDARY_GEN := $(addprefix $(GRADER_BUILD)/gen/,api_ops.h proxy_api.inc server_api.inc growth_workloads.inc \
                  grader_limits.h)
BOUNDARY_HDR := $(wildcard grader/boundary/*.h) $(BOUNDARY_GEN)
# Trusted side: what every runner and both probes link besides their own code.
TRUSTED_OBJ := $(addprefix $(GRADER_BUILD)/boundary/,proxy.o spawn.o seccomp_policy.o wire.o) \
               $(GRADER_BUILD)/given/grundy_given.o
# Student side: linked with a submission's two objects into a student process.
# For task isolation (grader/gradelib/pipeline.py), the public stand-in map
# (tests/public/standin/grundy_position.c) stands in for a submission's map
# that fails Task 0, and the stubs for a file only later tasks need. The
# model solution is in no student process at all (tests/staff/grader/
# check-model-free greps every program a grading links for its bytes).
STANDIN_OBJ := $(GRADER_BUILD)/standin/grundy_position.o
STUDENT_SIDE_OBJ := $(addprefix $(GRADER_BUILD)/boundary/,student_server.o wire_untracked.o gcov_on_crash.o guard_alloc.o) \
                    $(GIVEN_SRC:student/%.c=$(GRADER_BUILD)/given/%.o) \
                    $(GRADER_BUILD)/support/alloc_tracker.o $(GRADER_BUILD)/support/expansion_counter.o \
                    $(GRADER_BUILD)/support/memo_recorder.o \
                    $(STANDIN_OBJ) $(LAB_FILES:%.c=$(GRADER_BUILD)/stubs/%.o)
GRADER_RUNNERS := $(LAB_TASKS:%=$(GRADER_BUILD)/runner_%)
# What the suites share. The runners' own child_run starts a student process
# with the job's limits (grader/boundary/proxy_criterion.c).
RUNNER_SUPPORT := $(addprefix $(GRADER_BUILD)/support/,$(LAB_SUPPORT_NAMES:%=%.o) timed_run.o calibration_solver.o \
                    cpu_budget.o move_check.o memo_solver.o deep_position.o child_result.o criterion_start.o)
GRADER_LIBS := -lcriterion -ljansson -lseccomp -pthread
# The trusted side frees a move list's positions in one crossing (proxy.h).
TRUSTED_LDFLAGS := -Wl,--wrap=position_list_free

# The handout as one file (its style inside), which the grader copies next
# to each feedback.html so that the feedback can link its sections. Only
# where pandoc and the handout are (the Gradescope package has no handout:
# Gradescope shows no feedback.html).
GRADER_HANDOUT := $(if $(and $(shell command -v pandoc),$(wildcard handouts/grundy-lab.md)),$(GRADER_BUILD)/handout.html)

.PHONY: grader-harness
grader-harness: $(GRADER_RUNNERS) $(GRADER_BUILD)/timing_probe $(GRADER_BUILD)/growth_probe \
                $(GRADER_BUILD)/challenge_probe $(STUDENT_SIDE_OBJ) $(GRADER_BUILD)/policy_probe \
                $(GRADER_BUILD)/boundary/policy_probe_student.o \
                $(GRADER_BUILD)/tests.txt $(GRADER_BUILD)/student_reference $(GRADER_HANDOUT) \
                $(LAB_FILES:%.c=$(GRADER_BUILD)/reference/%.o)
$(GRADER_BUILD)/handout.html: handouts/grundy-lab.md handouts/handout.css
	@mkdir -p $(@D)
	cd handouts && pandoc --standalone --toc --self-contained --css handout.css --from markdown \
	    --to html5 -o $(abspath $@).tmp grundy-lab.md && mv $(abspath $@).tmp $(abspath $@)

# The reference as a student program, linked as grader/gradelib/build.py
# links a submission's: for running a runner by hand (tests/staff/hidden/README.md).
# Staff only: the model's objects ($(GRADER_BUILD)/reference/) are never
# copied into a grading's scratch (build.copy_harness).
$(GRADER_BUILD)/student_reference: $(filter-out %/gcov_on_crash.o %/guard_alloc.o $(STANDIN_OBJ) $(LAB_FILES:%.c=$(GRADER_BUILD)/stubs/%.o),$(STUDENT_SIDE_OBJ)) \
                                   $(LAB_FILES:%.c=$(GRADER_BUILD)/reference/%.o)
	$(CC) $^ -o $@ -static $(WRAP_ALLOC) $(WRAP_MEMO) -Wl,--wrap=grundy_get_moves

$(GRADER_BUILD)/runner_%: $(GRADER_BUILD)/suites/test_%.o $(RUNNER_SUPPORT) $(TRUSTED_OBJ) \
                          $(GRADER_BUILD)/boundary/proxy_criterion.o $(GRADER_BUILD)/boundary/grader_report.o \
                          $(GRADER_BUILD)/liboracle.a
	$(CC) $(filter $(GRADER_BUILD)/suites/test_$*.o,$^) $(wildcard $(GRADER_BUILD)/suites/test_hidden_$*.o) \
	    $(filter-out $(GRADER_BUILD)/suites/%,$^) -o $@ $(TRUSTED_LDFLAGS) $(GRADER_LIBS)
$(GRADER_RUNNERS): $(HIDDEN_SRC:tests/staff/hidden/%.c=$(GRADER_BUILD)/suites/%.o)

# Docker's default seccomp profile, in part, for trying the grader's fallback
# sandbox here (tests/staff/container/docker_like.c).
build/container/docker_like: tests/staff/container/docker_like.c
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(STRICT) $< -o $@ -lseccomp

# The policy probe (grader/policy-probe): a trusted driver, and the student
# program it starts, linked in the sandbox as a submission's is.
$(GRADER_BUILD)/policy_probe: $(GRADER_BUILD)/boundary/policy_probe.o \
                              $(addprefix $(GRADER_BUILD)/boundary/,spawn.o seccomp_policy.o)
	$(CC) $^ -o $@ -lseccomp

$(GRADER_BUILD)/timing_probe: $(GRADER_BUILD)/boundary/timing_probe.o $(GRADER_BUILD)/boundary/probe.o \
                              $(GRADER_BUILD)/support/calibration_solver.o $(TRUSTED_OBJ) $(GRADER_BUILD)/liboracle.a
	$(CC) $^ -o $@ $(TRUSTED_LDFLAGS) -lseccomp
$(GRADER_BUILD)/challenge_probe: $(GRADER_BUILD)/boundary/challenge_probe.o $(GRADER_BUILD)/boundary/probe.o \
                                 $(TRUSTED_OBJ) $(GRADER_BUILD)/liboracle.a
	$(CC) $^ -o $@ $(TRUSTED_LDFLAGS) -lseccomp
$(GRADER_BUILD)/growth_probe: $(GRADER_BUILD)/boundary/growth_probe.o $(GRADER_BUILD)/boundary/probe.o \
                              $(TRUSTED_OBJ) $(GRADER_BUILD)/liboracle.a
	$(CC) $^ -o $@ $(TRUSTED_LDFLAGS) -lseccomp

# Every graded test, from the runners themselves: a test missing from a
# submission's run is noticed.
$(GRADER_BUILD)/tests.txt: $(GRADER_RUNNERS)
	@for runner in $^; do $$runner --list; done | awk '/^[a-z0-9_]+: [0-9]+ tests?$$/ {suite=$$1; sub(":","",suite); next} \
	    {name=$$NF; if (suite != "") print suite "::" name}' > $@.tmp.$$$$ && mv $@.tmp.$$$$ $@

$(BOUNDARY_GEN) &: $(LABDEF)
	grader/labdef-gen boundary $(GRADER_BUILD)/gen
$(GRADER_BUILD)/boundary/wire_untracked.o: grader/boundary/wire.c $(BOUNDARY_HDR)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -DWIRE_UNTRACKED -c $< -o $@
$(GRADER_BUILD)/boundary/%.o: grader/boundary/%.c $(BOUNDARY_HDR) $(wildcard student/*.h tests/public/support/*.h)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/given/%.o: student/%.c student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/reference/%.o: reference/%.c $(wildcard student/*.h)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(STANDIN_OBJ): tests/public/standin/grundy_position.c student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/stubs/%.o: student/%.c $(wildcard student/*.h)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/support/%.o: tests/public/support/%.c $(wildcard tests/public/support/*.h) $(GEN)/lab_definition.h student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/oracle/%.o: reference/oracle/%.c $(wildcard reference/oracle/*.h)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/liboracle.a: $(ORACLE_SRC:reference/oracle/%.c=$(GRADER_BUILD)/oracle/%.o)
	$(AR) rcs $@ $^
$(GRADER_BUILD)/suites/%.o: tests/public/suites/%.c $(wildcard tests/public/support/*.h) $(GEN)/lab_definition.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
$(GRADER_BUILD)/suites/%.o: tests/staff/hidden/%.c $(wildcard tests/public/support/*.h tests/staff/hidden/*.h) $(GEN)/lab_definition.h
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) -c $< -o $@
# ---- the hostile-student fuzzer (tests/staff/fuzz/README.md) -----------------
# fuzz_driver: the trusted side linked as the runners and probes link it
# (plus a wrap that reads each request's sequence number); hostile_student:
# the fuzzer's two files linked with the student side as grader/gradelib/
# build.py links a submission (static, for the serve policy).
# `make fuzz SEEDS=17` replays one seed, SEEDS=1-200 (the default) a range.
# Eight seeds at a time on two cores: a seed mostly waits (call limits, the
# proxy's shutdown grace, lab_stub_reached's 2 s poll), about 0.1 s of CPU
# per second of its wall time; with four, 200 seeds took 49 s (34 s of CPU),
# with eight 27-28 s (17-20 s of CPU), none failed, at a load of 6-8.
FUZZ_BUILD := build/fuzz$(LAB_VARIANT)
SEEDS ?= 1-200
FUZZ_JOBS ?= 8
# The hostile engine is Tasks 0-2's two files; a term's other files (Part 2
# on) are their stubs, as the grader links a file a submission lacks, so
# the student process serves every function of the term's API.
FUZZ_FILES := $(notdir $(wildcard tests/staff/fuzz/grundy_*.c))
FUZZ_STUDENT_SIDE := $(addprefix $(GRADER_BUILD)/boundary/,student_server.o wire_untracked.o) \
                     $(GIVEN_SRC:student/%.c=$(GRADER_BUILD)/given/%.o) \
                     $(GRADER_BUILD)/support/alloc_tracker.o $(GRADER_BUILD)/support/expansion_counter.o \
                     $(patsubst %.c,$(GRADER_BUILD)/stubs/%.o,$(filter-out $(FUZZ_FILES),$(LAB_FILES)))
# GUARD_SEEDS: the same engine against the guarded run's policy and
# allocator (grader/boundary/guard_alloc.c), linked as build.py links it.
GUARD_SEEDS ?= 1-48
.PHONY: fuzz fuzz-programs
fuzz-programs: $(FUZZ_BUILD)/fuzz_driver $(FUZZ_BUILD)/hostile_student $(FUZZ_BUILD)/hostile_student_guard
fuzz: fuzz-programs
	$(FUZZ_BUILD)/fuzz_driver --server $(FUZZ_BUILD)/hostile_student --seeds $(SEEDS) --jobs $(FUZZ_JOBS)
	$(if $(GUARD_SEEDS),$(FUZZ_BUILD)/fuzz_driver --server $(FUZZ_BUILD)/hostile_student_guard --policy guard \
	    --seeds $(GUARD_SEEDS) --jobs $(FUZZ_JOBS))
$(FUZZ_BUILD)/fuzz_driver: tests/staff/fuzz/fuzz_driver.c tests/staff/fuzz/fuzz_script.c tests/staff/fuzz/fuzz_seed.h \
                          $(TRUSTED_OBJ) $(GRADER_BUILD)/liboracle.a $(BOUNDARY_HDR)
	@mkdir -p $(@D)
	$(CC) $(GRADER_CFLAGS) $(filter %.c %.o %.a,$^) -o $@ $(TRUSTED_LDFLAGS) -Wl,--wrap=write -lseccomp
$(FUZZ_BUILD)/%.o: tests/staff/fuzz/%.c tests/staff/fuzz/hostile_engine.h student/grundy.h
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(LAB_WARNINGS) -Istudent -Itests/staff/fuzz -c $< -o $@
$(FUZZ_BUILD)/hostile_student: $(FUZZ_BUILD)/grundy_position.o $(FUZZ_BUILD)/grundy_solver.o $(FUZZ_STUDENT_SIDE)
	$(CC) $^ -o $@ -static $(WRAP_ALLOC) $(WRAP_MEMO) -Wl,--wrap=grundy_get_moves
$(FUZZ_BUILD)/hostile_student_guard: $(FUZZ_BUILD)/grundy_position.o $(FUZZ_BUILD)/grundy_solver.o $(FUZZ_STUDENT_SIDE) \
                                     $(GRADER_BUILD)/boundary/guard_alloc.o
	$(CC) $^ -o $@ -static -Wl,-z,norelro $(WRAP_ALLOC) $(WRAP_MEMO) -Wl,--wrap=grundy_get_moves

# ---- staff targets ------------------------------------------------------------

# The project's own test suite: see tests/staff/check. CHECK_ONLY='GLOB'
# runs only the steps whose name matches (e.g. 'fixture task2_*').
check:
	@tests/staff/check

# The slow tier, not a step of `make check`: every honest_* fixture graded
# with 20 seeds drawn from a printed master seed must earn full marks
# (about 120 gradings, two at a time: 15 minutes). HONEST_FLAGS: e.g.
# --master N to replay a draw.
.PHONY: check-honest
check-honest: grader-harness
	@tests/staff/grader/check-honest-seeds $(HONEST_FLAGS)

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
	$(call quietly,HTML $(notdir $@),pandoc --standalone --toc --css handout.css -o $@.tmp --from markdown --to html5 $< && mv $@.tmp $@)

demo:
	@grader/demo

# ---- course operations (see handouts/guides/instructor.md) ---------------------

.PHONY: release gradescope prairielearn check-gradescope-container check-browser check-ci
# dist/student/: what students clone (no reference, no hidden tests, no grader).
release: all
	@grader/make-release dist/student
# dist/autograder.zip: Gradescope's setup.sh and run_autograder around the grader.
gradescope: grader-harness
	@grader/make-gradescope dist/autograder.zip
# dist/prairielearn/grundyLab/: the PrairieLearn question, asking for the term's
# files (the image, `make image`, holds the runner and the same definition).
prairielearn:
	@rm -rf dist/prairielearn/grundyLab && mkdir -p dist/prairielearn && \
	    grader/make-prairielearn dist/prairielearn/grundyLab
# dist/autograder.zip in an emulated Gradescope container (1/2 CPU, 768 MB, no
# mounts or namespaces, read-only cgroups): setup.sh, the policy probe and seven
# gradings; several minutes, so not a step of `make check` (handouts/guides/instructor.md).
check-gradescope-container:
	@tests/staff/ops/check-gradescope-container
# The class report in a real headless browser: it renders, charts show, links resolve.
check-browser:
	@tests/staff/ops/check-browser
# The GitLab CI templates, run for real with gitlab-ci-local in shell mode.
check-ci:
	@tests/staff/ops/check-ci
# The course calendar ([policy]: late penalty, extensions, submission limit,
# regrade comparison, Canvas gradebook) on canned gradings: seconds, a step of make check.
.PHONY: check-calendar
check-calendar:
	@tests/staff/ops/check-calendar
# A class fetched from git repositories (collect-roster) and graded
# (grade-all) follows the term, Part 2's files too: a step of make check.
.PHONY: check-roster
check-roster: grader-harness
	@tests/staff/ops/check-roster

# Monotone in honesty, on a larger sample than make check's step: 16 pairs of
# mutants of the model solution, and 2 mutants on each of six fixtures
# (tests/staff/grader/check-monotone; a new master seed each run unless
# SEED=N is given; some 70 gradings, about 10-20 minutes on 2 free cores).
.PHONY: check-monotone-slow
check-monotone-slow:
	@tests/staff/grader/check-monotone --pairs 16 --fixture-mutants 2 $(if $(SEED),--seed $(SEED)) \
	    --fixtures slow_map,getmoves_bug,leak,hash_ignores_count,unmemoized,slow_memo

# Does make test explain mistakes no message was written for? make test on
# 150 one-token mutants of Tasks 0-2 and Part 2 (a new seed each run unless
# SEED=N), printing the share whose first message says more than a bare
# wrong answer or signal, and the rest (tests/staff/selftest/first-message-share;
# a figure, 5-10 minutes on 2 cores). make check runs it on a fixed seed,
# where below 90% fails; COUNT=all, the slower tier, takes every candidate
# that compiles and differs from the model (of 490 candidates).
.PHONY: check-teaching
check-teaching:
	@tests/staff/selftest/first-message-share --count $(or $(COUNT),150) $(if $(SEED),--seed $(SEED))

# make check in a copy of the tree whose term an instructor changed (lab.ini
# only): configuration a is Tasks 0 1 2 7, Task 1 20 points, Task 2 45,
# call_seconds 10 and a calendar with extensions; b is every task on with
# other points, limits, a submission limit and a roster
# (tests/staff/ops/check-configured; CONFIG=a or b for one; about as long as
# make check for each).
.PHONY: check-configured
check-configured:
	@CONFIG=$(or $(CONFIG),all) tests/staff/ops/check-configured

# A class of eight on a one-node Slurm cluster started from Debian's packages
# in a scratch directory: grader/slurm/grade-class as an unprivileged user,
# one array task requeued mid-way, the gradebook equal to grade-all's
# (tests/staff/ops/check-slurm; needs root; a few minutes).
.PHONY: check-slurm
check-slurm: grader-harness
	@tests/staff/ops/check-slurm

# grade-all on 40 generated submissions: killed and resumed, sharded and merged
# (make check runs the same with 6).
.PHONY: check-batch
check-batch:
	@tests/staff/ops/check-batch --students 40

# localhost/grundy-lab-grader:latest: the grader's OCI image, for PrairieLearn
# and for grading a class across machines (grader/image/build: a Debian base
# made by mmdebstrap, then podman build; several minutes the first time).
.PHONY: image check-image
image:
	@grader/image/build
# The image proven: PrairieLearn's contract, its 30 s default timeout at 0.9
# CPU, a class graded in 4 shards by 4 containers (tests/staff/ops/check-image).
check-image:
	@tests/staff/ops/check-image

clean:
	rm -rf build bin
