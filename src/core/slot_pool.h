/* A pool of numbered slots in an array the caller types: take hands out a free slot,
 * growing the array (capacity doubles) when none is left; give returns one. Free slots are
 * chained in the pool's own side array, so the items need no link field of theirs. After a
 * growth the new slots are handed out lowest first; a slot given back is the next one taken.
 * A slot number is what events and messages carry, so take never moves an item to another
 * number: growth copies the array as it is.
 * The array moves when it grows, so no pointer into it may survive a call that can take a
 * slot: callers keep slot numbers, and a function that takes a slot copies its pointer
 * arguments first (one of them may point into the very array it grows). Debug builds move
 * the array on every growth and scribble over the old one, so a stale pointer shows. */
#ifndef IDEMSIM_SLOT_POOL_H
#define IDEMSIM_SLOT_POOL_H

#include <stddef.h>
#include <stdint.h>

#define SLOT_POOL_NONE UINT32_MAX

typedef struct {
    uint32_t *next_free; /* per slot: the next free slot after it, or SLOT_POOL_NONE */
    uint32_t capacity;
    uint32_t free; /* the first free slot, or SLOT_POOL_NONE */
    uint32_t in_use;
    uint32_t first_capacity;
} SlotPool;

void slot_pool_init(SlotPool *pool, uint32_t first_capacity);
/* Frees the pool's side array; the caller frees its items. */
void slot_pool_release(SlotPool *pool);

/* Makes room for more slots (the pool's first growth, or a doubling). */
void slot_pool_grow(SlotPool *pool, void *items_address, size_t item_size);
_Noreturn void slot_pool_give_invalid(void); /* aborts: a give keeps nothing alive across it */

/* A free slot of *items, an array of item_size-byte items: items_address is the address of
 * the caller's array pointer (a Message ** for a Message array), which moves when the pool
 * grows. A slot never used is zeroed; a slot given back keeps its bytes until the caller
 * sets them. Inline: every message
 * and job of a run passes here. */
static inline uint32_t slot_pool_take(SlotPool *pool, void *items_address, size_t item_size)
{
    if (pool->free == SLOT_POOL_NONE)
        slot_pool_grow(pool, items_address, item_size);
    uint32_t slot = pool->free;
    pool->free = pool->next_free[slot];
    pool->in_use++;
    return slot;
}

static inline void slot_pool_give(SlotPool *pool, uint32_t slot)
{
    if (slot >= pool->capacity || pool->in_use == 0)
        slot_pool_give_invalid(); /* aborts */
    pool->next_free[slot] = pool->free;
    pool->free = slot;
    pool->in_use--;
}

/* The side array's bytes (the caller counts its items: capacity x item size). */
uint64_t slot_pool_memory_bytes(const SlotPool *pool);

#endif
