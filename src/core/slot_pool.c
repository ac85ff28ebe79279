/* The pools of messages, jobs, outbox entries, queued messages and proxy calls all grow the
 * same way: one implementation, whose only subtlety is that the caller's array pointer is
 * read and written through memcpy, so any object-pointer type can be passed without an
 * aliasing cast. */
#include "slot_pool.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim_assert.h"

void slot_pool_init(SlotPool *pool, uint32_t first_capacity)
{
    SIM_ASSERT(first_capacity > 0, "a pool starts with room for one slot at least");
    *pool = (SlotPool){.free = SLOT_POOL_NONE, .first_capacity = first_capacity};
}

void slot_pool_release(SlotPool *pool)
{
    free(pool->next_free);
    pool->next_free = NULL;
}

void slot_pool_grow(SlotPool *pool, void *items_address, size_t item_size)
{
    uint32_t old_capacity = pool->capacity;
    SIM_ASSERT(old_capacity < UINT32_MAX / 2, "a pool holds fewer than 2^31 slots");
    uint32_t capacity = old_capacity ? old_capacity * 2 : pool->first_capacity;
    void *items;
    memcpy(&items, items_address, sizeof items);
#ifdef NDEBUG
    items = sim_xrealloc(items, (unsigned long long)capacity * item_size);
#else
    /* Debug builds always move the array and scribble over the old one before freeing it,
     * so a pointer into the pool kept across a call that grew it (the receipts outbox's
     * use-after-free, issue 24) reads garbage at once, and AddressSanitizer names it, on
     * every growth rather than on the seeds where realloc happened to move. */
    void *moved = sim_xrealloc(NULL, (unsigned long long)capacity * item_size);
    if (old_capacity > 0) {
        memcpy(moved, items, (size_t)old_capacity * item_size);
        memset(items, 0xa5, (size_t)old_capacity * item_size);
    }
    free(items);
    items = moved;
#endif
    /* New slots start zeroed, so a scan over the whole array reads no garbage. */
    memset((char *)items + (size_t)old_capacity * item_size, 0,
           (size_t)(capacity - old_capacity) * item_size);
    memcpy(items_address, &items, sizeof items);
    pool->next_free =
        sim_xrealloc(pool->next_free, (unsigned long long)capacity * sizeof *pool->next_free);
    pool->capacity = capacity;
    for (uint32_t slot = capacity; slot-- > old_capacity;) {
        pool->next_free[slot] = pool->free;
        pool->free = slot;
    }
}

_Noreturn void slot_pool_give_invalid(void)
{
    sim_assert_fail("false", __FILE__, __LINE__, "a slot given back was taken");
}

uint64_t slot_pool_memory_bytes(const SlotPool *pool)
{
    return (uint64_t)pool->capacity * sizeof *pool->next_free;
}
