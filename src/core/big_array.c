/* Why big arrays are mapped (issue 25): on the VM this was measured on, the first touch of
 * each fresh 4 KiB page cost about 15 us even after MADV_POPULATE_WRITE alone had mapped it
 * (64 MiB: 150-250 ms on the first pass over it, 3 ms on the second), which was most of
 * what the no-sweep PAY-1 paid for its million key-store rows. With MADV_HUGEPAGE and then
 * MADV_POPULATE_WRITE on a 2 MiB-aligned mapping the same 64 MiB is ready in 4-8 ms, and
 * huge pages also spare the TLB misses of random probes into a big table. Each madvise is
 * a hint: a kernel that refuses it leaves ordinary pages, faulted in on first touch. A big
 * array grows with mremap, which moves its pages instead of copying them, so a growth never
 * holds two copies. Earlier, MADV_HUGEPAGE on realloc'd (unaligned) memory cost more than it
 * saved. Elsewhere than Linux, every array comes from the C heap. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* madvise, MADV_POPULATE_WRITE, mremap */
#endif
#include "big_array.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "sim_assert.h"

#define BIG_BYTES ((size_t)1 << 20)
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
#define LINE_BYTES ((size_t)64)

#if defined(__linux__) && defined(MAP_ANONYMOUS)
#define MAPPED 1
#else
#define MAPPED 0
#endif

static bool is_big(size_t bytes)
{
    return MAPPED && bytes >= BIG_BYTES;
}

static size_t mapped_length(size_t bytes)
{
    return (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
}

#if MAPPED
static void fault_in(char *start, size_t length)
{
#if defined(MADV_HUGEPAGE)
    (void)madvise(start, length, MADV_HUGEPAGE);
#endif
#if defined(MADV_POPULATE_WRITE)
    (void)madvise(start, length, MADV_POPULATE_WRITE);
#endif
}

static void *map_big(size_t bytes)
{
    size_t length = mapped_length(bytes);
    char *mapped = mmap(NULL, length + HUGE_PAGE_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    SIM_ASSERT(mapped != MAP_FAILED, "out of memory for a big array");
    /* Trim to a 2 MiB-aligned start: huge pages need it. */
    char *start = (char *)(((uintptr_t)mapped + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1));
    if (start > mapped)
        munmap(mapped, (size_t)(start - mapped));
    size_t tail = (size_t)(mapped + length + HUGE_PAGE_BYTES - (start + length));
    if (tail > 0)
        munmap(start + length, tail);
    fault_in(start, length);
    return start;
}
#endif

void *big_array_alloc(size_t bytes)
{
#if MAPPED
    if (is_big(bytes))
        return map_big(bytes);
#endif
    size_t rounded = bytes == 0 ? LINE_BYTES : (bytes + LINE_BYTES - 1) & ~(LINE_BYTES - 1);
    SIM_ASSERT(rounded >= bytes, "a big array's size overflows");
    void *array = aligned_alloc(LINE_BYTES, rounded);
    SIM_ASSERT(array != NULL, "out of memory for an array");
    memset(array, 0, rounded);
    return array;
}

void big_array_free(void *array, size_t bytes)
{
    if (array == NULL)
        return;
#if MAPPED
    if (is_big(bytes)) {
        munmap(array, mapped_length(bytes));
        return;
    }
#endif
    free(array);
}

void *big_array_grow(void *array, size_t old_bytes, size_t bytes)
{
#if MAPPED && defined(MREMAP_MAYMOVE)
    if (is_big(old_bytes) && is_big(bytes)) {
        size_t old_length = mapped_length(old_bytes), length = mapped_length(bytes);
        if (length == old_length)
            return array;
        char *moved = mremap(array, old_length, length, MREMAP_MAYMOVE);
        SIM_ASSERT(moved != MAP_FAILED, "out of memory for a big array");
        fault_in(moved + old_length, length - old_length);
        return moved;
    }
#endif
    void *grown = big_array_alloc(bytes);
    if (array != NULL)
        memcpy(grown, array, old_bytes < bytes ? old_bytes : bytes);
    big_array_free(array, old_bytes);
    return grown;
}
