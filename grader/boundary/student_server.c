/*
 * student_server.c - the main() of a student process: serves the lab's API
 * to the grader's trusted side, one request at a time.
 *
 * Linked with the submission's two files, the given code, the allocation
 * tracker and the expansion counter, and nothing else: no test, no oracle,
 * no expected answer, no secret. It is started by spawn.c, which has
 * already installed the seccomp filter before this program was executed,
 * so everything here (and every constructor of the submission) runs under
 * it. This file is therefore not trusted either: it only turns requests
 * into calls and return values into replies, and the trusted side checks
 * every reply as it would check a return value.
 *
 * Positions cross the boundary as handles (an index into `live`, plus
 * one) and as copies of their fields, so the tests can read a position the
 * way they read it in one process. The same pointer always gets the same
 * handle, so aliasing (a move list holding its own argument, say) stays
 * visible to the tests.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_tracker.h"
#include "expansion_counter.h"
#include "grundy.h"
#include "lab_todo.h"
#include "memo_record.h"
#include "wire.h"
#define SERVER_API_HEADERS
#include "server_api.inc" /* the task headers */
#undef SERVER_API_HEADERS

/* The server's own memory is not the submission's: it bypasses the
 * allocation tracker that wraps malloc in this program. */
void *__real_realloc(void *block, size_t size);

static grundy_position **live; /* live[h - 1] is the position of handle h */
static size_t live_count, live_capacity;

static uint64_t handle_of(grundy_position *p)
{
    if (p == NULL)
        return 0;
    for (size_t i = 0; i < live_count; i++)
        if (live[i] == p)
            return i + 1;
    for (size_t i = 0; i < live_count; i++)
        if (live[i] == NULL) {
            live[i] = p;
            return i + 1;
        }
    if (live_count == live_capacity) {
        size_t capacity = live_capacity ? 2 * live_capacity : 64;
        grundy_position **grown = __real_realloc(live, capacity * sizeof *grown);
        if (grown == NULL)
            _exit(70);
        live = grown;
        live_capacity = capacity;
    }
    live[live_count++] = p;
    return live_count;
}

static grundy_position *position_of(uint64_t handle)
{
    return handle >= 1 && handle <= live_count ? live[handle - 1] : NULL;
}

/* A position's handle and fields. The reads go through the submission's
 * own pointers: a broken position may crash this process here, which the
 * trusted side reports as a crash of the call that returned it. */
static void put_position(wire_buffer *out, grundy_position *p)
{
    uint64_t flags = 0;
    wire_put_u64(out, handle_of(p));
    if (p == NULL) {
        wire_put_u64(out, POSITION_NULL);
        return;
    }
    /* A position freed before it was handed over (an item of a move list
     * returned after the list was freed) is named as such, not read. */
    alloc_state state = alloc_block_state(p);
    if (state != ALLOC_LIVE) {
        wire_put_u64(out, state == ALLOC_FREED_FROM_MOVES ? POSITION_FREED_MOVE : POSITION_NOT_LIVE);
        return;
    }
    size_t sent = p->size;
    if (p->entries == NULL)
        flags |= POSITION_NO_ENTRIES, sent = 0;
    if (sent > WIRE_MAX_ENTRIES)
        flags |= POSITION_TRUNCATED, sent = WIRE_MAX_ENTRIES;
    wire_put_u64(out, flags);
    wire_put_u64(out, p->size);
    wire_put_u64(out, p->capacity);
    wire_put_u64(out, sent);
    for (size_t i = 0; i < sent; i++) {
        wire_put_i32(out, p->entries[i].height);
        wire_put_i32(out, p->entries[i].count);
    }
}

static void put_moves(wire_buffer *out, position_list *moves)
{
    if (moves == NULL) {
        wire_put_u64(out, 1); /* NULL list */
        return;
    }
    wire_put_u64(out, 0);
    size_t size = moves->size;
    if (moves->items == NULL && size > 0)
        size = 0;
    if (size > WIRE_MAX_ENTRIES)
        size = WIRE_MAX_ENTRIES;
    wire_put_u64(out, moves->size);
    wire_put_u64(out, size);
    for (size_t i = 0; i < size; i++)
        put_position(out, moves->items[i]);
    /* The list's positions now belong to the trusted side's copy of the
     * list, which frees them one by one (position_list_free); the list
     * itself is gone, as it is when a test frees it in one process. */
    free(moves->items);
    free(moves);
}

/* An int array result, then freed: it is the caller's, as the API says.
 * (Unused while no function of the API returns one.) */
__attribute__((unused))
static void put_ints(wire_buffer *out, int *values, size_t length)
{
    if (values == NULL) {
        wire_put_u64(out, 1);
        return;
    }
    if (length > WIRE_MAX_PAYLOAD / sizeof(int32_t))
        length = WIRE_MAX_PAYLOAD / sizeof(int32_t);
    wire_put_u64(out, 0);
    wire_put_u64(out, length);
    for (size_t i = 0; i < length; i++)
        wire_put_i32(out, values[i]);
    free(values);
}

/* A position about to be freed loses its handle first: its address may come
 * back from the allocator as a new position. */
static void forget_handle(const grundy_position *p)
{
    for (size_t i = 0; i < live_count; i++)
        if (live[i] == p)
            live[i] = NULL;
}

static void serve(uint32_t op, wire_buffer *in, wire_buffer *out)
{
    switch (op) {
#include "server_api.inc" /* one case per function of the API (grader/lab.ini) */
    case OP_ALLOC_LIVE:
        wire_put_u64(out, alloc_live_blocks());
        break;
    case OP_ALLOC_LIVE_FROM_MOVES:
        wire_put_u64(out, alloc_live_blocks_from_moves());
        break;
    case OP_EXPANSIONS:
        wire_put_u64(out, expansions());
        break;
    case OP_EXPANSIONS_RESET:
        expansions_reset();
        break;
    case OP_MEMO_RECORD_RESET:
        memo_record_reset();
        break;
    case OP_MEMO_RECORD_READ: {
        static memo_event events[MEMO_RECORD_MAX]; /* not the submission's heap */
        size_t n = memo_record_read(events, MEMO_RECORD_MAX);
        wire_put_u64(out, n);
        wire_put(out, events, n * sizeof *events);
        break;
    }
    case OP_MEMO_FORGETFUL:
        memo_record_set_forgetful(wire_take_u64(in) != 0);
        break;
    case OP_FREE_POSITIONS:
        for (uint64_t n = wire_take_u64(in); n > 0 && !in->bad; n--) {
            grundy_position *p = position_of(wire_take_u64(in));
            forget_handle(p);
            grundy_free(p);
        }
        break;
    case OP_STUBS_REACHED:
        for (size_t i = 0; lab_stub_reached(i) != NULL; i++) {
            const char *name = lab_stub_reached(i);
            wire_put_u64(out, strlen(name));
            wire_put(out, name, strlen(name));
        }
        wire_put_u64(out, 0);
        break;
    default:
        break; /* an operation this program does not know: an empty reply */
    }
}

/* Requests are read through this buffer, so that one read takes a whole
 * request (the trusted side writes each in one piece) rather than one for
 * the header and one for the arguments. Static: not the submission's heap. */
static unsigned char inbox[1 << 16];
static size_t inbox_start, inbox_end;

/* Appends `size` bytes of request to `to`; false when the trusted side is
 * gone. */
static bool take_request(wire_buffer *to, size_t size)
{
    while (size > 0) {
        if (inbox_start == inbox_end) {
            ssize_t n = read(WIRE_REQUEST_FD, inbox, sizeof inbox);
            if (n <= 0 && !(n < 0 && errno == EINTR))
                return false;
            inbox_start = 0;
            inbox_end = n > 0 ? (size_t)n : 0;
            continue;
        }
        size_t n = inbox_end - inbox_start < size ? inbox_end - inbox_start : size;
        wire_put(to, inbox + inbox_start, n);
        inbox_start += n;
        size -= n;
    }
    return true;
}

int main(void)
{
    /* stdio would malloc stdout's buffer at the submission's first printf,
     * through the tracker: a test that counts live blocks around it would
     * blame the submission for a block it never asked for. Printing is
     * allowed, so stdout gets a buffer that is not on the heap (line
     * buffered, so debug output reaches the logs even before a crash). */
    static char stdout_buffer[BUFSIZ];
    setvbuf(stdout, stdout_buffer, _IOLBF, sizeof stdout_buffer);
    wire_buffer in = {0}, out = {0};
    for (;;) {
        wire_header request;
        wire_reset(&in);
        if (!take_request(&in, sizeof request))
            return 0; /* the trusted side is gone */
        wire_take(&in, &request, sizeof request);
        if (request.length > WIRE_MAX_PAYLOAD)
            return 0; /* the trusted side is not talking to us */
        wire_reset(&in);
        if (!take_request(&in, request.length))
            return 0;
        if (request.op == OP_QUIT)
            return 0; /* a normal exit: gcov and valgrind write their data now */
        /* The reply's header goes first in the same buffer, its length
         * filled in once the payload is known: one write per reply. */
        wire_header reply = {request.sequence, 0, 0};
        wire_reset(&out);
        wire_put(&out, &reply, sizeof reply);
        serve(request.op, &in, &out);
        reply.length = (uint32_t)(out.length - sizeof reply);
        memcpy(out.data, &reply, sizeof reply);
        if (!wire_write_all(WIRE_REPLY_FD, out.data, out.length))
            return 0;
    }
}
