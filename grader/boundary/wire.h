/*
 * wire.h - the messages between the grader's trusted side and a student
 * process (see README.md in this directory for the picture).
 *
 * The trusted side (proxy.c, linked into the test runners and the timing
 * probe) sends requests on the student process's fd 3 and reads replies
 * from its fd 4. Each message is a header (sequence number, operation or
 * status, payload length) and a payload of little fields written in the
 * machine's byte order (both ends are the same machine).
 *
 * Nothing in a reply is trusted beyond "this is what the student's code
 * returned": the student process may write anything to fd 4, so every
 * reply is length-capped and checked field by field, and a sequence number
 * that does not match the request ends the test.
 */
#ifndef GRADER_WIRE_H
#define GRADER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { WIRE_REQUEST_FD = 3, WIRE_REPLY_FD = 4 };

/* A reply longer than this is malformed: the largest honest one, the moves
 * of a test position, is far below a megabyte. */
#define WIRE_MAX_PAYLOAD (16u << 20)
/* At most this many entries of a position cross the boundary; a position
 * that claims more is broken anyway (the tests never build more than a few
 * hundred heaps). */
#define WIRE_MAX_ENTRIES 65536u

typedef enum {
    OP_NEW = 1,
    OP_COPY,
    OP_FREE,
    OP_COUNT,
    OP_ADD_HEAP,
    OP_REMOVE_HEAP,
    OP_EQUALS,
    OP_HASH,
    OP_GET_MOVES,
    OP_IS_TERMINAL,
    OP_IS_P,
    OP_IS_N,
    OP_MEMO_CLEAR,
    OP_MEMO_SIZE,
    /* figures only the student process can count (never a verdict alone) */
    OP_ALLOC_LIVE,
    OP_EXPANSIONS,
    OP_EXPANSIONS_RESET,
    OP_STUBS_REACHED,
    OP_QUIT
} wire_op;

typedef struct {
    uint32_t sequence;
    uint32_t op; /* a wire_op in requests, 0 in replies */
    uint32_t length;
} wire_header;

/* A growable byte buffer that fields are appended to or taken from. */
typedef struct {
    unsigned char *data;
    size_t length;
    size_t capacity;
    size_t read_at;
    bool bad; /* a take ran past the end: the message is malformed */
} wire_buffer;

void wire_reset(wire_buffer *b);
void wire_release(wire_buffer *b);
void wire_put(wire_buffer *b, const void *field, size_t size);
void wire_take(wire_buffer *b, void *field, size_t size);
void wire_put_u64(wire_buffer *b, uint64_t value);
uint64_t wire_take_u64(wire_buffer *b);
void wire_put_i32(wire_buffer *b, int32_t value);
int32_t wire_take_i32(wire_buffer *b);

/* Writes or reads exactly `size` bytes, retrying short transfers and EINTR.
 * Returns false on end of file or error. */
bool wire_write_all(int fd, const void *data, size_t size);
bool wire_read_all(int fd, void *data, size_t size);

/* Position flags in a serialized position. */
enum {
    POSITION_NULL = 1,         /* the pointer was NULL */
    POSITION_NO_ENTRIES = 2,   /* entries was NULL */
    POSITION_TRUNCATED = 4     /* size was above WIRE_MAX_ENTRIES */
};

#endif /* GRADER_WIRE_H */
