/*
 * memo_record.h - the memo's own calls as evidence. memo_table.c is given
 * code, so a test program may watch every call the solver makes to it:
 * which table, the key, the flag, hit or miss, and the expansions
 * (grundy_get_moves calls) between them. From that record and the oracle,
 * memo_evidence.c names a memo mistake in the student's terms.
 *
 * In `make test` the record is kept by memo_recorder.c, linked with
 * -Wl,--wrap=memo_table_new,... (tests/public/suite-programs.mk); under the
 * grader it is kept in the student process and read through the boundary
 * (grader/boundary/proxy.c): there it is a figure the student process
 * reports, used only to word the message of a test that failed anyway,
 * never to pass one (a test that reads it earns nothing: pipeline.score).
 *
 * The forgetful memo: while it is on, every memo_table_get misses and
 * every memo_table_put is dropped, whatever table they are given (NULL
 * too; memo_table_new hands out a table that holds nothing), so a
 * memoized solver is tested as the plain recursion it rests on: Task 1's
 * tests turn it on, so that a memo bug costs Task 2 alone.
 *
 * Every function is declared weak: a program without the recorder (Task
 * 0's) has none, and callers check the address first.
 */
#ifndef MEMO_RECORD_H
#define MEMO_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { MEMO_KEY_MAX = 8, MEMO_RECORD_MAX = 1024 };

typedef enum {
    MEMO_EVENT_NEW = 1, /* memo_table_new */
    MEMO_EVENT_FREE,    /* memo_table_free */
    MEMO_EVENT_CLEAR,   /* memo_table_clear */
    MEMO_EVENT_GET,     /* memo_table_get: hit or miss */
    MEMO_EVENT_PUT,     /* memo_table_put */
    MEMO_EVENT_EXPAND   /* grundy_get_moves */
} memo_event_kind;

typedef struct {
    uint8_t kind;    /* a memo_event_kind */
    uint8_t hit;     /* GET: the key was found */
    uint8_t flag;    /* GET hit: the flag found; PUT: the flag stored */
    uint8_t key_ok;  /* the key was a valid position of at most MEMO_KEY_MAX heights */
    uint16_t table;  /* which table: 1 for the first seen since the reset, 2... */
    uint16_t key_size;             /* entries of the key */
    int32_t key[MEMO_KEY_MAX][2];  /* the key's (height, count) entries */
} memo_event;

/* Forgets the record and which tables were seen (tables created before
 * are numbered again as they are used). */
void memo_record_reset(void) __attribute__((weak));
/* The events recorded since the reset, at most MEMO_RECORD_MAX. Returns
 * how many were copied into `events` (room for `max`). */
size_t memo_record_read(memo_event *events, size_t max) __attribute__((weak));
/* Turns the forgetful memo on or off (see above). */
void memo_record_set_forgetful(bool forgetful) __attribute__((weak));
/* Called by the grundy_get_moves wrapper (expansion_counter.c). */
void memo_record_expansion(const void *position) __attribute__((weak));

#endif /* MEMO_RECORD_H */
