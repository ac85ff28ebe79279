/* Rows apart from their index (issue 25): the rows sit in a dense array (a free row has key
 * 0 and chains the next free one in its response_of; the last freed is reused first), and the index
 * is an open-addressing table of 8-byte entries {32-bit hash tag, row number}, linear probing,
 * backward-shift deletion (no tombstones), grown at 50% load, with a one-byte fingerprint per
 * entry in an array of its own. A lookup of a key that is not there (every new key) reads
 * only fingerprints: with a million rows, 2 MiB instead of 16 MiB of entries and no row. The
 * entry's tag also gives its home slot, so moving entries on deletion never touches a row.
 * A big store files its new keys in a small young index first (see "the indexes"). *
 * Expiry order: a FIFO ring for entries that arrive in expiry order, and a binary min-heap
 * for those that do not. With one TTL counted from the reservation (the common case, PAY-1)
 * every expiry is at or after the last one pushed, so pushes and pops are O(1) and the heap
 * stays empty; a TTL counted from completion, or mixed TTLs, fall back to the heap (issue 16
 * rejected a list because such puts arrive out of order; the ring keeps that case correct).
 * Both are lazy: replacing or removing a row leaves its old entry behind, and an entry is
 * believed only when the row it names is in use and really expired; every row with a finite
 * expiry has an entry with that expiry. Entries name row numbers, not keys, so a sweep reads
 * no index to find its row; a row number reused by another key is harmless, since that row is
 * freed only if it too has expired. Stale entries are dropped when popped, and everything is
 * rebuilt from the rows when they outnumber the rows, so the order stays within a constant
 * factor of the table. A timer wheel was rejected: TTLs span microseconds to decades. */
#include "idem_store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "big_array.h"
#include "rng.h"
#include "sim_assert.h"

#define NO_ROW UINT32_MAX
#define ROWS_AHEAD 4 /* fresh rows fetched ahead of their first write */

typedef struct {
    SimTimeUs expires_us;
    uint32_t row;
} ExpiryEntry;

typedef struct {
    uint32_t tag;      /* the high half of the key's hash: the home slot and a filter */
    uint32_t row_plus; /* the row's number + 1 (meaningful when its fingerprint is not 0) */
} IndexEntry;

/* An open-addressing table of entries, with a byte per entry beside them. */
typedef struct {
    IndexEntry *entries;
    uint8_t *fingerprints; /* one byte per entry: 0 empty, else fingerprint_of(tag) */
    size_t capacity;       /* a power of two, or 0 (not allocated) */
    size_t count;
    unsigned shift; /* 32 - log2(capacity): the tag's top bits are the home */
} KeyIndex;

/* Where a key is: in which index, at which position (its entry, or the empty entry that ends
 * its probe run in the old index). */
typedef struct {
    KeyIndex *index;
    size_t position;
} Place;

struct IdemStore {
    KeyRow *rows; /* a free row has key 0 and the next free row in response_of */
    uint32_t row_capacity;
    uint32_t row_count; /* rows ever handed out: in use or free */
    uint32_t free_row;  /* the first free row, or NO_ROW */
    size_t rows_in_use;
    KeyIndex old;       /* every key, but those in young */
    KeyIndex young;     /* the newest keys of a big store, moved to old in batches */
    IndexEntry *moving; /* young's entries on their way to old (young's capacity / 2) */
    /* The last key probed and its place, until an index changes: the key protocol reads a
     * key, then writes it, in one event (a probe saved per request and per completion). */
    uint64_t probed_key; /* 0: none */
    Place probed;
    ExpiryEntry *ring;    /* entries in expiry order, oldest at ring_head */
    size_t ring_capacity; /* a power of two, or 0 */
    size_t ring_head;
    size_t ring_count;
    bool no_expiry_order; /* never swept: no ring, no heap */
    ExpiryEntry *heap;    /* min-heap by expires_us: entries that came out of order */
    size_t heap_count;
    size_t heap_capacity;
};

/* ------------------------------------------------------------------ the expiry order */

static void sift_up(ExpiryEntry *heap, size_t i)
{
    ExpiryEntry entry = heap[i];
    while (i > 0 && entry.expires_us < heap[(i - 1) / 2].expires_us) {
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
        if (child + 1 < count && heap[child + 1].expires_us < heap[child].expires_us)
            child++;
        if (heap[child].expires_us >= entry.expires_us)
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = entry;
}

static void heap_push(IdemStore *store, ExpiryEntry entry)
{
    if (store->heap_count == store->heap_capacity) {
        store->heap_capacity = store->heap_capacity ? store->heap_capacity * 2 : 64;
        store->heap = sim_xrealloc(store->heap,
                                   (unsigned long long)store->heap_capacity * sizeof *store->heap);
    }
    store->heap[store->heap_count++] = entry;
    sift_up(store->heap, store->heap_count - 1);
}

__attribute__((noinline)) static void ring_grow(IdemStore *store)
{
    size_t capacity = store->ring_capacity ? store->ring_capacity * 2 : 64;
    ExpiryEntry *ring = sim_xcalloc(capacity, sizeof *ring);
    for (size_t i = 0; i < store->ring_count; i++)
        ring[i] = store->ring[(store->ring_head + i) & (store->ring_capacity - 1)];
    free(store->ring);
    store->ring = ring;
    store->ring_capacity = capacity;
    store->ring_head = 0;
}

static inline void ring_append(IdemStore *store, ExpiryEntry entry)
{
    if (store->ring_count == store->ring_capacity)
        ring_grow(store);
    store->ring[(store->ring_head + store->ring_count++) & (store->ring_capacity - 1)] = entry;
}

static const ExpiryEntry *ring_last(const IdemStore *store)
{
    return &store->ring[(store->ring_head + store->ring_count - 1) & (store->ring_capacity - 1)];
}

/* The earliest entry, ring or heap, or NULL; *from_ring says which to pop. */
static const ExpiryEntry *earliest(const IdemStore *store, bool *from_ring)
{
    const ExpiryEntry *ring = store->ring_count ? &store->ring[store->ring_head] : NULL;
    const ExpiryEntry *heap = store->heap_count ? &store->heap[0] : NULL;
    *from_ring = heap == NULL || (ring != NULL && ring->expires_us <= heap->expires_us);
    return *from_ring ? ring : heap;
}

static void pop_earliest(IdemStore *store, bool from_ring)
{
    if (from_ring) {
        store->ring_head = (store->ring_head + 1) & (store->ring_capacity - 1);
        store->ring_count--;
        return;
    }
    store->heap[0] = store->heap[--store->heap_count];
    if (store->heap_count > 0)
        sift_down(store->heap, store->heap_count, 0);
}

static int by_expiry(const void *a, const void *b)
{
    const ExpiryEntry *x = a, *y = b;
    if (x->expires_us != y->expires_us)
        return x->expires_us < y->expires_us ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* One entry per row with a TTL, sorted into the ring: drops every stale entry. */
static void expiry_rebuild(IdemStore *store)
{
    store->ring_head = store->ring_count = store->heap_count = 0;
    for (uint32_t r = 0; r < store->row_count; r++) {
        const KeyRow *row = &store->rows[r];
        if (row->key != 0 && row->expires_us != SIM_TIME_NEVER)
            ring_append(store, (ExpiryEntry){row->expires_us, r});
    }
    qsort(store->ring, store->ring_count, sizeof *store->ring, by_expiry);
}

static void expiry_push(IdemStore *store, SimTimeUs expires_us, uint32_t row)
{
    if (expires_us == SIM_TIME_NEVER || store->no_expiry_order)
        return;
    if (store->ring_count + store->heap_count >= 2 * store->rows_in_use + 1024) {
        expiry_rebuild(store); /* the caller's row is in the table already: now it has its entry */
        return;
    }
    ExpiryEntry entry = {expires_us, row};
    if (store->ring_count == 0 || ring_last(store)->expires_us <= expires_us)
        ring_append(store, entry);
    else
        heap_push(store, entry);
}

/* ------------------------------------------------------------------ the indexes */

/* A young index takes a big store's new keys: its 2^15 entries (288 KiB) stay in cache, so a
 * new key's entry is written there, and a key of the last few thousand is found there. When
 * it is half full its entries move to the old index in one batch, in home order: a pass
 * front to back over the old index, its loads issued ahead, instead of one cache miss per
 * key at a random place (issue 25: the no-sweep PAY-1 spent a third of its time on those).
 * A small store (old index below YOUNG_FROM entries: it is in cache anyway) has no young
 * index: moving every key twice would cost the swept PAY-1. */
#define YOUNG_CAPACITY (1u << 15)
#define YOUNG_FROM (1u << 16)
#define MOVE_AHEAD 8 /* entries prefetched ahead while moving */

static uint32_t tag_of(uint64_t key)
{
    return (uint32_t)(rng_mix64(key) >> 32);
}

/* The byte kept for an entry in `fingerprints`: the tag's low bits (the home uses its high
 * ones), never 0, which marks an empty entry. */
static uint8_t fingerprint_of(uint32_t tag)
{
    uint8_t low = (uint8_t)tag;
    return low != 0 ? low : 1;
}

static size_t home_of(const KeyIndex *index, uint32_t tag)
{
    return (size_t)(tag >> index->shift);
}

static void index_alloc(KeyIndex *index, size_t capacity)
{
    index->capacity = capacity;
    index->count = 0;
    index->shift = 32;
    while ((1ull << (32 - index->shift)) < capacity)
        index->shift--;
    index->fingerprints = big_array_alloc(capacity);
    index->entries = big_array_alloc(capacity * sizeof *index->entries);
}

static void index_release(KeyIndex *index)
{
    big_array_free(index->entries, index->capacity * sizeof *index->entries);
    big_array_free(index->fingerprints, index->capacity);
}

static bool position_used(const KeyIndex *index, size_t position)
{
    return index->fingerprints[position] != 0;
}

/* The first empty position of tag's probe run. */
static size_t empty_position(const KeyIndex *index, uint32_t tag)
{
    size_t mask = index->capacity - 1;
    size_t slot = home_of(index, tag);
    while (index->fingerprints[slot] != 0)
        slot = (slot + 1) & mask;
    return slot;
}

static void index_set(KeyIndex *index, size_t position, IndexEntry entry)
{
    index->fingerprints[position] = fingerprint_of(entry.tag);
    index->entries[position] = entry;
    index->count++;
}

/* Files an entry whose key the index does not hold; no row is read. */
static void index_add(KeyIndex *index, IndexEntry entry)
{
    index_set(index, empty_position(index, entry.tag), entry);
}

static void index_grow(KeyIndex *index)
{
    KeyIndex old = *index;
    SIM_ASSERT(old.capacity < (1ull << 31), "an index addressed by 32-bit tags");
    index_alloc(index, old.capacity * 2);
    /* The home is the tag's high bits, so old entries come in home order and the new index
     * is written front to back. */
    for (size_t i = 0; i < old.capacity; i++) {
        if (old.fingerprints[i] != 0)
            index_add(index, old.entries[i]);
    }
    index_release(&old);
}

/* The position of key's entry, or of the empty entry that ends its probe run. Reads the
 * fingerprints, one byte an entry (a million rows: 2 MiB, where the 8-byte entries take
 * 16 MiB), and an entry only when its fingerprint matches: a key never written (every new
 * payment) usually reads no entry at all. */
static size_t position_of(const KeyIndex *index, const KeyRow *rows, uint64_t key, uint32_t tag)
{
    size_t mask = index->capacity - 1;
    uint8_t fingerprint = fingerprint_of(tag);
    for (size_t i = home_of(index, tag);; i = (i + 1) & mask) {
        uint8_t seen = index->fingerprints[i];
        if (seen == 0)
            return i;
        if (seen == fingerprint) {
            IndexEntry entry = index->entries[i];
            if (entry.tag == tag && rows[entry.row_plus - 1].key == key)
                return i;
        }
    }
}

/* Backward-shift deletion: pull later members of the probe run into the hole. */
static void index_remove_at(KeyIndex *index, size_t hole)
{
    size_t mask = index->capacity - 1;
    for (size_t i = (hole + 1) & mask; index->fingerprints[i] != 0; i = (i + 1) & mask) {
        size_t home = home_of(index, index->entries[i].tag);
        /* Move it when its home is not within (hole, i], cyclically. */
        bool home_between = (hole <= i) ? (hole < home && home <= i) : (hole < home || home <= i);
        if (!home_between) {
            index->entries[hole] = index->entries[i];
            index->fingerprints[hole] = index->fingerprints[i];
            hole = i;
        }
    }
    index->fingerprints[hole] = 0;
    index->count--;
}

/* Where key is in a store with a young index. */
static Place place_with_young(IdemStore *store, uint64_t key, uint32_t tag)
{
    size_t position = position_of(&store->young, store->rows, key, tag);
    if (position_used(&store->young, position))
        return (Place){&store->young, position};
    return (Place){&store->old, position_of(&store->old, store->rows, key, tag)};
}

static inline Place place_of(IdemStore *store, uint64_t key, uint32_t tag)
{
    if (store->young.count == 0) /* every small store: one call less */
        return (Place){&store->old, position_of(&store->old, store->rows, key, tag)};
    return place_with_young(store, key, tag);
}

static inline Place probe(IdemStore *store, uint64_t key, uint32_t tag)
{
    if (key != store->probed_key) {
        store->probed_key = key;
        store->probed = place_of(store, key, tag);
    }
    return store->probed;
}

static bool place_used(Place place)
{
    return position_used(place.index, place.position);
}

static KeyRow *row_at(const IdemStore *store, Place place)
{
    return &store->rows[place.index->entries[place.position].row_plus - 1];
}

/* Keeps the old index at most half full with `more` entries added: shorter probe runs
 * mispredict less (PAY-1 spent 13% of its mispredicted branches probing). */
static void old_make_room(IdemStore *store, size_t more)
{
    while ((store->old.count + more) * 2 > store->old.capacity) {
        index_grow(&store->old);
        store->probed_key = 0;
    }
}

/* Moves every young entry to the old index, in young's slot order, which is home order in
 * both (the tag's high bits) but for a probe run wrapped round young's end. */
static void young_move(IdemStore *store)
{
    KeyIndex *young = &store->young, *old = &store->old;
    old_make_room(store, young->count);
    size_t count = 0;
    for (size_t i = 0; i < young->capacity; i++) {
        if (young->fingerprints[i] != 0)
            store->moving[count++] = young->entries[i];
    }
    for (size_t k = 0; k < count; k++) {
        if (k + MOVE_AHEAD < count) {
            size_t ahead = home_of(old, store->moving[k + MOVE_AHEAD].tag);
            __builtin_prefetch(&old->fingerprints[ahead], 1);
            __builtin_prefetch(&old->entries[ahead], 1);
        }
        index_add(old, store->moving[k]);
    }
    memset(young->fingerprints, 0, young->capacity);
    young->count = 0;
    store->probed_key = 0;
}

/* Files a new key's entry (its place: the empty entry probe found in the old index). */
static void index_put(IdemStore *store, Place place, uint32_t tag, uint32_t row)
{
    IndexEntry entry = {tag, row + 1};
    if (store->young.capacity == 0 && store->old.capacity >= YOUNG_FROM) {
        index_alloc(&store->young, YOUNG_CAPACITY);
        store->moving = sim_xcalloc(YOUNG_CAPACITY / 2, sizeof *store->moving);
    }
    if (store->young.capacity == 0) {
        if ((store->old.count + 1) * 2 > store->old.capacity) {
            old_make_room(store, 1);
            place.position = empty_position(&store->old, tag);
        }
        index_set(&store->old, place.position, entry);
        store->probed = place;
        return;
    }
    if ((store->young.count + 1) * 2 > store->young.capacity)
        young_move(store);
    size_t slot = empty_position(&store->young, tag);
    index_set(&store->young, slot, entry);
    store->probed = (Place){&store->young, slot};
}

/* ------------------------------------------------------------------ rows */

static uint32_t row_take(IdemStore *store)
{
    if (store->free_row != NO_ROW) {
        uint32_t row = store->free_row;
        store->free_row = (uint32_t)store->rows[row].response_of;
        return row;
    }
    if (store->row_count == store->row_capacity) {
        /* x1.5, not x2: the rows are most of a big table's bytes (issue 25: <= 110 a row) */
        SIM_ASSERT(store->row_capacity < UINT32_MAX / 2, "a store's rows fit 32-bit numbers");
        uint32_t capacity = store->row_capacity + store->row_capacity / 2;
        store->rows = big_array_grow(store->rows, (size_t)store->row_capacity * sizeof *store->rows,
                                     (size_t)capacity * sizeof *store->rows);
        store->row_capacity = capacity;
    }
    /* A fresh row's line is written at once; fetch the next one's now, while the event loop
     * does other work (a store never swept takes a fresh row for every key: a cache miss
     * each, issue 25). */
    uint32_t row = store->row_count++;
    if (store->row_count + ROWS_AHEAD < store->row_capacity) {
        const char *next = (const char *)&store->rows[store->row_count + ROWS_AHEAD];
        __builtin_prefetch(next, 1); /* one line: big_array aligns rows to 64 */
    }
    return row;
}

static void row_give(IdemStore *store, uint32_t row)
{
    store->rows[row].key = 0;
    store->rows[row].response_of = store->free_row;
    store->free_row = row;
}

/* Frees the row at `place` (the one for its key). */
static void remove_place(IdemStore *store, Place place)
{
    row_give(store, place.index->entries[place.position].row_plus - 1);
    index_remove_at(place.index, place.position);
    store->probed_key = 0; /* entries move */
    store->rows_in_use--;
}

/* ------------------------------------------------------------------ the store */

IdemStore *idem_store_create(size_t capacity_hint)
{
    IdemStore *store = sim_xcalloc(1, sizeof *store);
    size_t capacity = 64;
    while (capacity < capacity_hint * 2)
        capacity *= 2;
    index_alloc(&store->old, capacity);
    store->row_capacity = 32;
    while (store->row_capacity < capacity_hint)
        store->row_capacity += store->row_capacity / 2;
    store->rows = big_array_alloc((size_t)store->row_capacity * sizeof *store->rows);
    store->free_row = NO_ROW;
    return store;
}

void idem_store_destroy(IdemStore *store)
{
    if (store == NULL)
        return;
    big_array_free(store->rows, (size_t)store->row_capacity * sizeof *store->rows);
    index_release(&store->old);
    index_release(&store->young);
    free(store->moving);
    free(store->ring);
    free(store->heap);
    free(store);
}

KeyRow *idem_store_lookup(IdemStore *store, uint64_t key, SimTimeUs now_us)
{
    SIM_ASSERT(key != 0, "key 0 is reserved for free rows");
    Place place = probe(store, key, tag_of(key));
    KeyRow *row = place_used(place) ? row_at(store, place) : NULL;
    return row != NULL && idem_store_row_live(row, now_us) ? row : NULL;
}

const KeyRow *idem_store_find_any(const IdemStore *store, uint64_t key)
{
    /* The probe cache is not the store's contents: remembering a place changes nothing a
     * caller can see, and the store itself is never const (idem_store_create). */
    IdemStore *mutable_store = (IdemStore *)store;
    Place place = probe(mutable_store, key, tag_of(key));
    return place_used(place) ? row_at(store, place) : NULL;
}

KeyRow *idem_store_put(IdemStore *store, const KeyRow *row)
{
    SIM_ASSERT(row->key != 0, "key 0 is reserved for free rows");
    uint32_t tag = tag_of(row->key);
    Place place = probe(store, row->key, tag);
    if (place_used(place)) {
        uint32_t row_plus = place.index->entries[place.position].row_plus;
        KeyRow *existing = &store->rows[row_plus - 1];
        SimTimeUs old_expiry = existing->expires_us;
        *existing = *row;
        if (row->expires_us != old_expiry)
            expiry_push(store, row->expires_us, row_plus - 1); /* a rebuild moves no row */
        return existing;
    }
    uint32_t taken = row_take(store);
    store->rows[taken] = *row;
    index_put(store, place, tag, taken);
    store->probed_key = row->key; /* the place now holds it */
    store->rows_in_use++;
    expiry_push(store, row->expires_us, taken);
    return &store->rows[taken];
}

void idem_store_remove(IdemStore *store, uint64_t key)
{
    Place place = probe(store, key, tag_of(key));
    if (place_used(place))
        remove_place(store, place);
}

void idem_store_keep_no_expiry_order(IdemStore *store)
{
    SIM_ASSERT(store->rows_in_use == 0, "the expiry order is dropped before the first put");
    store->no_expiry_order = true;
}

size_t idem_store_sweep(IdemStore *store, SimTimeUs now_us)
{
    SIM_ASSERT(!store->no_expiry_order, "a store without expiry order is never swept");
    size_t freed = 0;
    bool from_ring;
    const ExpiryEntry *entry;
    while ((entry = earliest(store, &from_ring)) != NULL && entry->expires_us <= now_us) {
        uint32_t r = entry->row;
        pop_earliest(store, from_ring);
        const KeyRow *row = &store->rows[r];
        /* A stale entry (the row was replaced with a later expiry, or removed) frees nothing. */
        if (row->key != 0 && now_us >= row->expires_us) {
            Place place = place_of(store, row->key, tag_of(row->key));
            SIM_ASSERT(place_used(place) && place.index->entries[place.position].row_plus == r + 1,
                       "a row in use is indexed");
            remove_place(store, place);
            freed++;
        }
    }
    return freed;
}

SimTimeUs idem_store_next_expiry(IdemStore *store)
{
    SIM_ASSERT(!store->no_expiry_order, "a store without expiry order has no next expiry");
    bool from_ring;
    const ExpiryEntry *entry;
    while ((entry = earliest(store, &from_ring)) != NULL) {
        const KeyRow *row = &store->rows[entry->row];
        if (row->key != 0 && row->expires_us == entry->expires_us)
            return row->expires_us;
        pop_earliest(store, from_ring); /* stale: its row has another entry, or none is needed */
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
    memset(store->old.fingerprints, 0, store->old.capacity);
    store->old.count = 0;
    if (store->young.capacity != 0)
        memset(store->young.fingerprints, 0, store->young.capacity);
    store->young.count = 0;
    store->probed_key = 0;
    store->row_count = 0;
    store->free_row = NO_ROW;
    store->rows_in_use = 0;
    store->ring_head = store->ring_count = store->heap_count = 0;
}

size_t idem_store_rows(const IdemStore *store)
{
    return store->rows_in_use;
}

size_t idem_store_memory_bytes(const IdemStore *store)
{
    return sizeof *store + store->row_capacity * sizeof *store->rows +
           (store->old.capacity + store->young.capacity) * (sizeof(IndexEntry) + 1) +
           store->young.capacity / 2 * sizeof *store->moving +
           store->ring_capacity * sizeof *store->ring + store->heap_capacity * sizeof *store->heap;
}

void idem_store_visit(const IdemStore *store, void (*visit)(void *context, const KeyRow *row),
                      void *context)
{
    for (uint32_t r = 0; r < store->row_count; r++) {
        if (store->rows[r].key != 0)
            visit(context, &store->rows[r]);
    }
}
