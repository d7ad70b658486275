/*
 * wire.c - buffers and whole reads and writes for wire.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire.h"

/* In a student process every malloc is counted (alloc_tracker.h): the
 * server's own buffers must not be, or they would look like the
 * submission's leaks. */
#ifdef WIRE_UNTRACKED
void *__real_realloc(void *block, size_t size);
void __real_free(void *block);
#define realloc __real_realloc
#define free __real_free
#endif

void wire_reset(wire_buffer *b)
{
    b->length = 0;
    b->read_at = 0;
    b->bad = false;
}

void wire_release(wire_buffer *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void wire_put(wire_buffer *b, const void *field, size_t size)
{
    if (b->length + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 256;
        while (capacity < b->length + size)
            capacity *= 2;
        unsigned char *grown = realloc(b->data, capacity);
        if (grown == NULL) {
            fputs("wire: out of memory\n", stderr);
            abort();
        }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, field, size);
    b->length += size;
}

void wire_take(wire_buffer *b, void *field, size_t size)
{
    if (b->bad || b->length - b->read_at < size) {
        b->bad = true;
        memset(field, 0, size);
        return;
    }
    memcpy(field, b->data + b->read_at, size);
    b->read_at += size;
}

void wire_put_u64(wire_buffer *b, uint64_t value)
{
    wire_put(b, &value, sizeof value);
}

uint64_t wire_take_u64(wire_buffer *b)
{
    uint64_t value;
    wire_take(b, &value, sizeof value);
    return value;
}

void wire_put_i32(wire_buffer *b, int32_t value)
{
    wire_put(b, &value, sizeof value);
}

int32_t wire_take_i32(wire_buffer *b)
{
    int32_t value;
    wire_take(b, &value, sizeof value);
    return value;
}

bool wire_write_all(int fd, const void *data, size_t size)
{
    const unsigned char *at = data;
    while (size > 0) {
        ssize_t n = write(fd, at, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        at += n;
        size -= (size_t)n;
    }
    return true;
}
