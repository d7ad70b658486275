/*
 * lab_where.h - the student's line where a test crashed or timed out
 * (lab_where.c): captured by the signal handler, resolved by the report.
 */
#ifndef LAB_WHERE_H
#define LAB_WHERE_H

#include <stdbool.h>
#include <stddef.h>

/* Makes the stack walk ready, outside any signal handler (once per test). */
void lab_where_prepare(void);

/* In a signal handler: takes the stack's return addresses. */
void lab_where_capture(void);

/* In a signal handler: " [frames 0x.. 0x..]" for what was captured, into
 * out (NUL-terminated); its length, 0 when nothing was captured. */
size_t lab_where_marker(char *out, size_t size);

/* In the report: the marker in `text` replaced by " in FUNCTION, at
 * FILE:LINE", the innermost frame in a task's file, or by nothing. */
void lab_where_resolve(char *text, size_t size);

#endif /* LAB_WHERE_H */
