/* Programmer-error reporting. Writing to stderr here is the one place the core does I/O:
 * the process is about to abort, and the message is all the user will get. */
#include "sim_assert.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn void sim_assert_fail(const char *expression, const char *file, int line,
                               const char *reason)
{
    fprintf(stderr, "idemsim: internal error: %s (%s) at %s:%d\n", reason, expression, file, line);
    fflush(stderr);
    abort();
}

/* The size arguments are unsigned long long so that a caller's overflowing arithmetic is
 * caught here rather than silently truncated to size_t on a 32-bit target. */
static void out_of_memory(const char *what, unsigned long long bytes)
{
    fprintf(stderr, "idemsim: internal error: out of memory (%s of %llu bytes)\n", what, bytes);
    fflush(stderr);
    abort();
}

void *sim_xrealloc(void *pointer, unsigned long long bytes)
{
    if (bytes == 0)
        bytes = 1; /* realloc(p, 0) may free p and return NULL: never ask for that */
    if (bytes > SIZE_MAX)
        out_of_memory("realloc", bytes);
    void *result = realloc(pointer, (size_t)bytes);
    if (result == NULL)
        out_of_memory("realloc", bytes);
    return result;
}

void *sim_xcalloc(unsigned long long count, unsigned long long size)
{
    if (count == 0 || size == 0)
        count = size = 1;
    if (count > SIZE_MAX / size)
        out_of_memory("calloc", count * size); /* the product wrapped; the figure is a hint */
    void *result = calloc((size_t)count, (size_t)size);
    if (result == NULL)
        out_of_memory("calloc", count * size);
    return result;
}
