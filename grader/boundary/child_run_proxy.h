/*
 * child_run_proxy.h - what child_run_proxy.c needs from proxy_criterion.c:
 * a way to catch a failed call instead of failing the test.
 */
#ifndef GRADER_CHILD_RUN_PROXY_H
#define GRADER_CHILD_RUN_PROXY_H

#include <setjmp.h>

#include "proxy.h"

/* While not NULL, a failed call jumps here (once) and leaves its kind in
 * proxy_caught_failure, instead of failing the test. */
extern jmp_buf *proxy_failure_catcher;
extern proxy_failure proxy_caught_failure;

#endif /* GRADER_CHILD_RUN_PROXY_H */
