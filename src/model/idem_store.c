/* Linear-probing table with backward-shift deletion (no tombstones), so a long run of
 * reservations and expiries does not degrade lookups. Grown at 70% load. */
#include "idem_store.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sim_assert.h"

struct IdemStore {
    KeyRow *slots;   /* key 0 marks an empty slot */
    size_t capacity; /* a power of two */
    size_t rows;
};

static size_t home_slot(const IdemStore *store, uint64_t key)
{
    return (size_t)(rng_mix64(key) & (store->capacity - 1));
}

static void grow(IdemStore *store)
{
    KeyRow *old_slots = store->slots;
    size_t old_capacity = store->capacity;
    store->capacity = old_capacity * 2;
    store->slots = sim_xcalloc(store->capacity, sizeof *store->slots);
    store->rows = 0;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old_slots[i].key != 0)
            idem_store_put(store, &old_slots[i]);
    }
    free(old_slots);
}

IdemStore *idem_store_create(size_t capacity_hint)
{
    IdemStore *store = sim_xcalloc(1, sizeof *store);
    store->capacity = 64;
    while (store->capacity < capacity_hint * 2)
        store->capacity *= 2;
    store->slots = sim_xcalloc(store->capacity, sizeof *store->slots);
    return store;
}

void idem_store_destroy(IdemStore *store)
{
    if (store == NULL)
        return;
    free(store->slots);
    free(store);
}

static KeyRow *find(const IdemStore *store, uint64_t key)
{
    size_t mask = store->capacity - 1;
    for (size_t i = home_slot(store, key);; i = (i + 1) & mask) {
        if (store->slots[i].key == key)
            return &store->slots[i];
        if (store->slots[i].key == 0)
            return NULL;
    }
}

KeyRow *idem_store_lookup(IdemStore *store, uint64_t key, SimTimeUs now_us)
{
    SIM_ASSERT(key != 0, "key 0 is reserved for empty slots");
    KeyRow *row = find(store, key);
    if (row == NULL || now_us >= row->expires_us)
        return NULL;
    return row;
}

const KeyRow *idem_store_find_any(const IdemStore *store, uint64_t key)
{
    return find(store, key);
}

KeyRow *idem_store_put(IdemStore *store, const KeyRow *row)
{
    SIM_ASSERT(row->key != 0, "key 0 is reserved for empty slots");
    KeyRow *existing = find(store, row->key);
    if (existing != NULL) {
        *existing = *row;
        return existing;
    }
    if ((store->rows + 1) * 10 > store->capacity * 7)
        grow(store);
    size_t mask = store->capacity - 1;
    size_t i = home_slot(store, row->key);
    while (store->slots[i].key != 0)
        i = (i + 1) & mask;
    store->slots[i] = *row;
    store->rows++;
    return &store->slots[i];
}

/* Backward-shift deletion: pull later members of the probe run into the hole. */
static void remove_at(IdemStore *store, size_t hole)
{
    size_t mask = store->capacity - 1;
    size_t i = hole;
    for (;;) {
        i = (i + 1) & mask;
        if (store->slots[i].key == 0)
            break;
        size_t home = home_slot(store, store->slots[i].key);
        /* Move it when its home is not within (hole, i], cyclically. */
        bool home_between = (hole <= i) ? (hole < home && home <= i) : (hole < home || home <= i);
        if (!home_between) {
            store->slots[hole] = store->slots[i];
            hole = i;
        }
    }
    memset(&store->slots[hole], 0, sizeof store->slots[hole]);
    store->rows--;
}

void idem_store_remove(IdemStore *store, uint64_t key)
{
    KeyRow *row = find(store, key);
    if (row != NULL)
        remove_at(store, (size_t)(row - store->slots));
}

size_t idem_store_sweep(IdemStore *store, SimTimeUs now_us)
{
    size_t freed = 0;
    size_t i = 0;
    while (i < store->capacity) {
        /* A backward shift can move an unvisited row into slot i: look at i again. */
        if (store->slots[i].key != 0 && now_us >= store->slots[i].expires_us) {
            remove_at(store, i);
            freed++;
        } else {
            i++;
        }
    }
    return freed;
}

void idem_store_clear(IdemStore *store)
{
    memset(store->slots, 0, store->capacity * sizeof *store->slots);
    store->rows = 0;
}

size_t idem_store_rows(const IdemStore *store)
{
    return store->rows;
}

size_t idem_store_memory_bytes(const IdemStore *store)
{
    return sizeof *store + store->capacity * sizeof *store->slots;
}

void idem_store_visit(const IdemStore *store, void (*visit)(void *context, const KeyRow *row),
                      void *context)
{
    for (size_t i = 0; i < store->capacity; i++) {
        if (store->slots[i].key != 0)
            visit(context, &store->slots[i]);
    }
}
