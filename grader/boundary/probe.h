/*
 * probe.h - what the grader's trusted probes (timing_probe.c,
 * growth_probe.c) share: they drive a student process through the proxy
 * outside any test framework, so a failed call lands here instead of in a
 * Criterion assertion, and each prints one line of JSON as its verdict.
 */
#ifndef GRADER_PROBE_H
#define GRADER_PROBE_H

#include <setjmp.h>

#include "proxy.h"

/* Where a failed proxy call jumps to (set with setjmp before the calls),
 * what failed, and the proxy's sentence about it. */
extern jmp_buf probe_failed;
extern proxy_failure probe_failure;
extern char probe_failure_message[2048];

/* The outcome word of a failure kind ("answered" for PROXY_OK). */
const char *probe_outcome_name(proxy_failure kind);

/* Prints text as a JSON string literal on stdout. */
void probe_print_json_string(const char *text);

#endif /* GRADER_PROBE_H */
