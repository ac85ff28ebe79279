/* Linear-probing table with backward-shift deletion (no tombstones), so a long run of
 * reservations and expiries does not degrade lookups. Grown at 70% load.
 *
 * Beside the table, a binary min-heap of (expiry, key) entries orders the rows by TTL, so a
 * sweep pops only what has expired instead of scanning every slot (issue 16: a table of
 * millions of rows scanned once a minute cost ten times the run itself). The heap is lazy:
 * replacing or removing a row leaves its old entry behind, and an entry is believed only
 * when the row it names is really expired; every row with a finite expiry has an entry with
 * that expiry. Stale entries are dropped when popped, and the heap is rebuilt from the table
 * when they outnumber the rows, so it stays within a constant factor of the table. Rejected:
 * a doubly linked list in expiry order (puts do not arrive in expiry order once TTLs count
 * from completion) and a timer wheel (TTLs span microseconds to decades). */
#include "idem_store.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sim_assert.h"

typedef struct {
    SimTimeUs expires_us;
    uint64_t key;
} ExpiryEntry;

struct IdemStore {
    KeyRow *slots;   /* key 0 marks an empty slot */
    size_t capacity; /* a power of two */
    size_t rows;
    ExpiryEntry *expiries; /* min-heap by (expires_us, key) */
    size_t expiry_count;
    size_t expiry_capacity;
};

/* ------------------------------------------------------------------ the expiry heap */

static bool entry_before(ExpiryEntry a, ExpiryEntry b)
{
    return a.expires_us < b.expires_us || (a.expires_us == b.expires_us && a.key < b.key);
}

static void sift_up(ExpiryEntry *heap, size_t i)
{
    ExpiryEntry entry = heap[i];
    while (i > 0 && entry_before(entry, heap[(i - 1) / 2])) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = entry;
}

static void sift_down(ExpiryEntry *heap, size_t count, size_t i)
{
    ExpiryEntry entry = heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= count)
            break;
        if (child + 1 < count && entry_before(heap[child + 1], heap[child]))
            child++;
        if (!entry_before(heap[child], entry))
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = entry;
}

static void expiry_append(IdemStore *store, SimTimeUs expires_us, uint64_t key)
{
    if (store->expiry_count == store->expiry_capacity) {
        store->expiry_capacity = store->expiry_capacity ? store->expiry_capacity * 2 : 64;
        store->expiries = sim_xrealloc(store->expiries, (unsigned long long)store->expiry_capacity *
                                                            sizeof *store->expiries);
    }
    store->expiries[store->expiry_count++] = (ExpiryEntry){expires_us, key};
}

static void expiry_pop(IdemStore *store)
{
    store->expiries[0] = store->expiries[--store->expiry_count];
    if (store->expiry_count > 0)
        sift_down(store->expiries, store->expiry_count, 0);
}

/* One entry per row with a TTL, heapified in O(rows): drops every stale entry. */
static void expiry_rebuild(IdemStore *store)
{
    store->expiry_count = 0;
    for (size_t i = 0; i < store->capacity; i++) {
        const KeyRow *row = &store->slots[i];
        if (row->key != 0 && row->expires_us != SIM_TIME_NEVER)
            expiry_append(store, row->expires_us, row->key);
    }
    for (size_t i = store->expiry_count / 2; i-- > 0;)
        sift_down(store->expiries, store->expiry_count, i);
}

static void expiry_push(IdemStore *store, SimTimeUs expires_us, uint64_t key)
{
    if (expires_us == SIM_TIME_NEVER)
        return;
    if (store->expiry_count >= 2 * store->rows + 1024) {
        expiry_rebuild(store); /* the caller's row is in the table already: now it has its entry */
        return;
    }
    expiry_append(store, expires_us, key);
    sift_up(store->expiries, store->expiry_count - 1);
}

/* ------------------------------------------------------------------ the table */

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
    size_t mask = store->capacity - 1;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old_slots[i].key == 0)
            continue;
        size_t slot = home_slot(store, old_slots[i].key);
        while (store->slots[slot].key != 0)
            slot = (slot + 1) & mask;
        store->slots[slot] = old_slots[i]; /* its expiry entry names the key, not the slot */
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
    free(store->expiries);
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
    return row != NULL && idem_store_row_live(row, now_us) ? row : NULL;
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
        SimTimeUs old_expiry = existing->expires_us;
        *existing = *row;
        if (row->expires_us != old_expiry)
            expiry_push(store, row->expires_us, row->key); /* a rebuild moves no row */
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
    expiry_push(store, row->expires_us, row->key);
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
    while (store->expiry_count > 0 && store->expiries[0].expires_us <= now_us) {
        uint64_t key = store->expiries[0].key;
        expiry_pop(store);
        KeyRow *row = find(store, key);
        /* A stale entry (the row was replaced with a later expiry, or removed) frees nothing. */
        if (row != NULL && now_us >= row->expires_us) {
            remove_at(store, (size_t)(row - store->slots));
            freed++;
        }
    }
    return freed;
}

SimTimeUs idem_store_next_expiry(IdemStore *store)
{
    while (store->expiry_count > 0) {
        const KeyRow *row = find(store, store->expiries[0].key);
        if (row != NULL && row->expires_us == store->expiries[0].expires_us)
            return row->expires_us;
        expiry_pop(store); /* stale: its row has another entry, or none is needed */
    }
    return SIM_TIME_NEVER;
}

SimTimeUs idem_store_next_sweep(IdemStore *store, SimTimeUs now_us, SimTimeUs interval_us,
                                SimTimeUs next_activity_us)
{
    SIM_ASSERT(interval_us > 0, "a sweep needs a period");
    SimTimeUs next_expiry = idem_store_next_expiry(store);
    SimTimeUs target = next_expiry < next_activity_us ? next_expiry : next_activity_us;
    SimTimeUs first = now_us + interval_us;
    if (target == SIM_TIME_NEVER || target <= first || first < now_us)
        return first;
    /* The first instant of the grid now + k * interval at or after target: every sweep
     * skipped before it would have found nothing expired and nothing changed. */
    SimTimeUs periods = (target - now_us + interval_us - 1) / interval_us;
    SimTimeUs offset = 0;
    if (__builtin_mul_overflow(periods, interval_us, &offset) ||
        __builtin_add_overflow(now_us, offset, &offset))
        return first;
    return offset;
}

void idem_store_clear(IdemStore *store)
{
    memset(store->slots, 0, store->capacity * sizeof *store->slots);
    store->rows = 0;
    store->expiry_count = 0;
}

size_t idem_store_rows(const IdemStore *store)
{
    return store->rows;
}

size_t idem_store_memory_bytes(const IdemStore *store)
{
    return sizeof *store + store->capacity * sizeof *store->slots +
           store->expiry_capacity * sizeof *store->expiries;
}

void idem_store_visit(const IdemStore *store, void (*visit)(void *context, const KeyRow *row),
                      void *context)
{
    for (size_t i = 0; i < store->capacity; i++) {
        if (store->slots[i].key != 0)
            visit(context, &store->slots[i]);
    }
}
