/* Arrays that may grow big (the event queue's slots, a key store's rows and indexes): under
 * 1 MiB from the C heap, from 1 MiB on a mapping of their own, aligned to 2 MiB, with
 * transparent huge pages asked for and every page faulted in at once. Always 64-byte
 * aligned and zeroed when allocated. The caller owns the array and passes back the size it
 * asked for to free or grow it; out of memory aborts, as sim_xcalloc does. */
#ifndef IDEMSIM_BIG_ARRAY_H
#define IDEMSIM_BIG_ARRAY_H

#include <stddef.h>

void *big_array_alloc(size_t bytes);
void big_array_free(void *array, size_t bytes); /* NULL is a no-op */
/* The array grown from old_bytes to bytes: the first old_bytes kept, the rest not zeroed.
 * It may move. */
void *big_array_grow(void *array, size_t old_bytes, size_t bytes);

#endif
