/*
 * checked_memcpy.c - the memcpy of `make test`'s test programs: it stops
 * the test when the source and destination ranges overlap.
 *
 * memcpy between overlapping ranges is undefined behaviour (memmove is the
 * function that allows it), and on this machine it goes unseen: glibc's
 * memcpy happens to copy overlapping ranges as memmove would, and valgrind
 * does not report the calls that glibc routes that way. A shift of a
 * sorted array by one slot written with memcpy then passes every test
 * here, and breaks with another C library. The test programs are linked
 * with -Wl,--wrap=memcpy (tests/public/suite-programs.mk), so every memcpy
 * the compiler did not expand inline comes here first; the check costs two
 * comparisons. AddressSanitizer (make test SAN=1) reports the same misuse,
 * with its stack.
 *
 * memmove (-Wl,--wrap=memmove) is checked for a read past what was written
 * (issue 27.4): the room a realloc adds to a block holds ALLOC_POISON
 * (alloc_tracker.c) until it is written, so an entry of that pattern in
 * the source is an entry past a position's size, such as the one a
 * grundy_remove_heap moving (size - i) entries instead of (size - i - 1)
 * reads. Within the block, neither valgrind nor the sanitizers see it.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_tracker.h"
#include "lab_support.h"

void *__real_memcpy(void *destination, const void *source, size_t size);
void *__wrap_memcpy(void *destination, const void *source, size_t size);
void *__real_memmove(void *destination, const void *source, size_t size);
void *__wrap_memmove(void *destination, const void *source, size_t size);

/* "grundy_add_heap at student/grundy_position.c:105" for the code that
 * returns to `caller`, from the program's debugging information (the
 * build uses -g) by addr2line; "" when that cannot be found. */
static const char *caller_text(const void *caller)
{
    static char text[512];
    text[0] = '\0';
    Dl_info where;
    if (dladdr(caller, &where) == 0 || where.dli_fname == NULL)
        return text;
    /* Code of the test program itself (this file is in it, as is the
     * student's) is named by /proc/self/exe: Criterion starts each test
     * under another name ("boxfort-worker"). */
    char program[PATH_MAX];
    Dl_info self;
    if (dladdr((const void *)caller_text, &self) != 0 && self.dli_fbase == where.dli_fbase) {
        ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
        if (length <= 0)
            return text;
        program[length] = '\0';
    } else if (realpath(where.dli_fname, program) == NULL) {
        return text;
    }
    if (strchr(program, '\'') != NULL)
        return text;
    /* The return address is just past the call: one byte back is in it. */
    uintptr_t offset = (uintptr_t)caller - (uintptr_t)where.dli_fbase - 1;
    char command[PATH_MAX + 64];
    if (snprintf(command, sizeof command, "addr2line -f -p -e '%s' 0x%jx 2>/dev/null", program,
                 (uintmax_t)offset) >= (int)sizeof command)
        return text;
    FILE *pipe = popen(command, "r");
    if (pipe == NULL)
        return text;
    if (fgets(text, sizeof text, pipe) == NULL || strstr(text, "??") != NULL)
        text[0] = '\0';
    text[strcspn(text, "\n")] = '\0';
    pclose(pipe);
    /* "grundy_add_heap at /home/you/lab/student/grundy_position.c:105 (discriminator 2)" */
    char *discriminator = strstr(text, " (discriminator");
    if (discriminator != NULL)
        *discriminator = '\0';
    /* Paths under the directory of `make test` are shown from there. */
    char directory[PATH_MAX];
    char *path = strstr(text, " at /");
    size_t length;
    if (path != NULL && getcwd(directory, sizeof directory) != NULL &&
        strncmp(path + 4, directory, length = strlen(directory)) == 0 && path[4 + length] == '/')
        __real_memmove(path + 4, path + 5 + length, strlen(path + 5 + length) + 1);
    return text;
}

void *__wrap_memcpy(void *destination, const void *source, size_t size)
{
    uintptr_t to = (uintptr_t)destination, from = (uintptr_t)source;
    if (size > 0 && to < from + size && from < to + size) {
        static char what[768];
        const char *caller = caller_text(__builtin_return_address(0));
        /* No addresses in the message: they differ from run to run, and
         * the summary groups failures whose messages differ only in numbers. */
        snprintf(what, sizeof what, "called memcpy with overlapping source and destination (%zu bytes)%s%s",
                 size, caller[0] != '\0' ? " in " : "", caller);
        lab_stop_test(what, "memcpy between overlapping ranges is undefined behaviour: it copies "
                            "right on this machine and may not elsewhere. To shift entries within "
                            "one array, use memmove, which allows the overlap");
    }
    return __real_memcpy(destination, source, size);
}

/* Whether `source` holds, at an offset that is a multiple of an int, two
 * ints that were never written: an entry past the size. */
static bool reads_unwritten_entry(const void *source, size_t size)
{
    const unsigned char *bytes = source;
    for (size_t at = 0; at + sizeof(heap_count) <= size; at += sizeof(int)) {
        size_t k = 0;
        while (k < sizeof(heap_count) && bytes[at + k] == ALLOC_POISON)
            k++;
        if (k == sizeof(heap_count))
            return true;
    }
    return false;
}

void *__wrap_memmove(void *destination, const void *source, size_t size)
{
    if (size >= sizeof(heap_count) && reads_unwritten_entry(source, size)) {
        static char what[768];
        const char *caller = caller_text(__builtin_return_address(0));
        snprintf(what, sizeof what, "called memmove reading an entry that was never written (%zu bytes)%s%s",
                 size, caller[0] != '\0' ? " in " : "", caller);
        lab_stop_test(what, "the entries after a position's size were never written: a shift reads "
                            "one entry too many. Removing entries[i] moves the (size - i - 1) "
                            "entries after it; inserting at i moves the (size - i) entries from i "
                            "on (handout #task-0-map)");
    }
    return __real_memmove(destination, source, size);
}
