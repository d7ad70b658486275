/*
 * lab_support.c - how a suite's run is set up: whether it runs under
 * valgrind, its pseudo-random cases, and which timing checks it skips
 * (see lab_support.h). The other helpers each have a file of their own:
 * lab_messages.c, lab_positions.c, lab_diagnosis.c, lab_trace.c,
 * lab_signals.c and lab_hints.c.
 */
#include <stdlib.h>
#include <string.h>

#include "lab_support.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

bool lab_under_valgrind(void)
{
#if defined(RUNNING_ON_VALGRIND)
    return RUNNING_ON_VALGRIND != 0;
#else
    return false; /* no valgrind headers: no valgrind either */
#endif
}

unsigned lab_random(unsigned *state)
{
    unsigned x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

bool lab_skip_timing(const char *suite)
{
    const char *skip = getenv("LAB_SKIP_TIMING");
    if (skip == NULL || skip[0] == '\0')
        return false;
    if (strcmp(skip, "1") == 0)
        return true;
    size_t length = strlen(suite);
    for (const char *at = strstr(skip, suite); at != NULL; at = strstr(at + 1, suite))
        if ((at == skip || at[-1] == ' ' || at[-1] == ',') && (at[length] == '\0' || at[length] == ' ' ||
                                                               at[length] == ','))
            return true;
    return false;
}

