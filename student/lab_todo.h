/*
 * lab_todo.h - how an unwritten function says so (given code).
 *
 * Each stub calls NOT_IMPLEMENTED_YET() before returning a placeholder, so
 * the tests can tell "not started" apart from "wrong answer" and say which
 * functions to write next. Delete the call when you write the function.
 */
#ifndef LAB_TODO_H
#define LAB_TODO_H

#include <stddef.h>

#define NOT_IMPLEMENTED_YET() lab_not_implemented(__func__)

/* Records that `function` is still a stub. */
void lab_not_implemented(const char *function);

/* The i-th distinct stub reached in this process (in the order they were
 * first reached), or NULL when fewer were reached. */
const char *lab_stub_reached(size_t i);

#endif /* LAB_TODO_H */
