/* A binary min-heap of small keys plus a pool of payload slots.
 *
 * The heap holds only {at_us, seq, slot}, so sifting moves 24 bytes; the payload stays put
 * in its slot. A slot whose seq matches its key is live; cancelling zeroes the slot's seq and
 * frees the slot at once, leaving a stale key in the heap that pop and peek discard when it
 * surfaces. seq is never reused (it starts at 1, EVENT_ID_NONE has 0), so a stale key or a
 * stale EventId can never match a reused slot. When stale keys outnumber live ones the heap
 * is rebuilt without them, which bounds its memory by about twice the live events.
 *
 * Arity 2 because it measured best (tests/bench, hold model, gcc and clang): 4-ary and
 * 8-ary heaps were no faster at 10^6 events (four 24-byte keys span two cache lines anyway)
 * and slower at 10^4; branch-free comparisons were slower at 10^6 because they stop the CPU
 * from speculatively loading the next level. Rejected: a calendar queue (its bucket width
 * must be tuned to the delay distribution, and a bad guess degrades to a list scan); a
 * pairing heap (a pointer per node, and no better locality). */
#include "event_queue.h"

#include <stdlib.h>

#include "sim_assert.h"

#define ARITY 2             /* children per heap node; see above */
#define STALE_KEYS_SLACK 32 /* stale keys tolerated beyond the live count before a rebuild */

typedef struct {
    SimTimeUs at_us;
    uint64_t seq;
    uint32_t slot;
} HeapKey;

typedef struct {
    uint64_t seq; /* of the pending event in this slot; 0 when free or cancelled */
    uint64_t arg;
    uint32_t kind;
    uint32_t target;
} Slot;

struct EventQueue {
    HeapKey *heap;
    size_t heap_length; /* live and stale keys */
    size_t heap_capacity;
    Slot *slots;
    uint32_t *free_slots; /* stack of free slot indices */
    size_t free_count;
    size_t slot_capacity;
    uint64_t next_seq;
    size_t live;
    size_t peak;
};

/* ---------------------------------------------------------------- heap */

static bool key_before(HeapKey a, HeapKey b)
{
    return a.at_us < b.at_us || (a.at_us == b.at_us && a.seq < b.seq);
}

static bool key_is_stale(const EventQueue *queue, HeapKey key)
{
    return queue->slots[key.slot].seq != key.seq;
}

/* Moves the hole at index up until key fits there. */
static void sift_up(EventQueue *queue, size_t index, HeapKey key)
{
    while (index > 0) {
        size_t parent = (index - 1) / ARITY;
        if (!key_before(key, queue->heap[parent]))
            break;
        queue->heap[index] = queue->heap[parent];
        index = parent;
    }
    queue->heap[index] = key;
}

/* Moves the hole at index down until key fits there. */
static void sift_down(EventQueue *queue, size_t index, HeapKey key)
{
    HeapKey *heap = queue->heap;
    size_t length = queue->heap_length;
    for (;;) {
        size_t first = index * ARITY + 1;
        if (first >= length)
            break;
        size_t last = first + ARITY < length ? first + ARITY : length;
        size_t best = first;
        for (size_t child = first + 1; child < last; child++)
            if (key_before(heap[child], heap[best]))
                best = child;
        if (!key_before(heap[best], key))
            break;
        heap[index] = heap[best];
        index = best;
    }
    heap[index] = key;
}

static void remove_top(EventQueue *queue)
{
    HeapKey last = queue->heap[--queue->heap_length];
    if (queue->heap_length > 0)
        sift_down(queue, 0, last);
}

/* Drops stale keys from the top, so heap[0] (if any) is live. */
static void skip_stale(EventQueue *queue)
{
    while (queue->heap_length > 0 && key_is_stale(queue, queue->heap[0]))
        remove_top(queue);
}

/* Rebuilds the heap from its live keys only (Floyd's bottom-up heapify, O(n)). */
static void drop_stale_keys(EventQueue *queue)
{
    size_t kept = 0;
    for (size_t i = 0; i < queue->heap_length; i++)
        if (!key_is_stale(queue, queue->heap[i]))
            queue->heap[kept++] = queue->heap[i];
    queue->heap_length = kept;
    for (size_t i = kept / ARITY + 1; i-- > 0;)
        if (i < kept)
            sift_down(queue, i, queue->heap[i]);
}

/* ---------------------------------------------------------------- storage */

static size_t grown(size_t capacity)
{
    size_t next = capacity < 8 ? 16 : capacity * 2;
    SIM_ASSERT(next < UINT32_MAX, "event queue exceeds 2^32 slots");
    return next;
}

static void grow_heap(EventQueue *queue)
{
    queue->heap_capacity = grown(queue->heap_capacity);
    queue->heap = sim_xrealloc(queue->heap, queue->heap_capacity * sizeof(HeapKey));
}

/* New slots go on the free stack highest first, so they are handed out in index order. */
static void grow_slots(EventQueue *queue, size_t capacity)
{
    size_t old_capacity = queue->slot_capacity;
    queue->slots = sim_xrealloc(queue->slots, capacity * sizeof(Slot));
    queue->free_slots = sim_xrealloc(queue->free_slots, capacity * sizeof(uint32_t));
    for (size_t i = capacity; i-- > old_capacity;) {
        queue->slots[i].seq = 0;
        queue->free_slots[queue->free_count++] = (uint32_t)i;
    }
    queue->slot_capacity = capacity;
}

static void release_slot(EventQueue *queue, uint32_t slot)
{
    queue->slots[slot].seq = 0;
    queue->free_slots[queue->free_count++] = slot;
}

EventQueue *event_queue_create(size_t capacity_hint)
{
    EventQueue *queue = sim_xcalloc(1, sizeof(EventQueue));
    size_t capacity = capacity_hint > 0 ? capacity_hint : 1;
    SIM_ASSERT(capacity < UINT32_MAX, "event queue exceeds 2^32 slots");
    queue->heap_capacity = capacity;
    queue->heap = sim_xrealloc(NULL, capacity * sizeof(HeapKey));
    grow_slots(queue, capacity);
    queue->next_seq = 1;
    return queue;
}

void event_queue_destroy(EventQueue *queue)
{
    if (queue == NULL)
        return;
    free(queue->heap);
    free(queue->slots);
    free(queue->free_slots);
    free(queue);
}

/* ---------------------------------------------------------------- operations */

EventId event_queue_push(EventQueue *queue, SimTimeUs at_us, uint32_t kind, uint32_t target,
                         uint64_t arg)
{
    if (queue->free_count == 0)
        grow_slots(queue, grown(queue->slot_capacity));
    if (queue->heap_length == queue->heap_capacity)
        grow_heap(queue);

    uint32_t slot = queue->free_slots[--queue->free_count];
    uint64_t seq = queue->next_seq++;
    queue->slots[slot] = (Slot){.seq = seq, .arg = arg, .kind = kind, .target = target};
    queue->heap_length++;
    sift_up(queue, queue->heap_length - 1, (HeapKey){.at_us = at_us, .seq = seq, .slot = slot});

    queue->live++;
    if (queue->live > queue->peak)
        queue->peak = queue->live;
    return (EventId){.seq = seq, .slot = slot};
}

bool event_queue_cancel(EventQueue *queue, EventId id)
{
    if (id.seq == 0 || id.slot >= queue->slot_capacity || queue->slots[id.slot].seq != id.seq)
        return false;
    release_slot(queue, id.slot);
    queue->live--;
    if (queue->heap_length - queue->live > queue->live + STALE_KEYS_SLACK)
        drop_stale_keys(queue);
    return true;
}

bool event_queue_pop(EventQueue *queue, Event *out)
{
    skip_stale(queue);
    if (queue->heap_length == 0)
        return false;
    HeapKey key = queue->heap[0];
    const Slot *slot = &queue->slots[key.slot];
    *out = (Event){.at_us = key.at_us,
                   .seq = key.seq,
                   .kind = slot->kind,
                   .target = slot->target,
                   .arg = slot->arg};
    remove_top(queue);
    release_slot(queue, key.slot);
    queue->live--;
    return true;
}

bool event_queue_peek_time(EventQueue *queue, SimTimeUs *at_us)
{
    skip_stale(queue);
    if (queue->heap_length == 0)
        return false;
    *at_us = queue->heap[0].at_us;
    return true;
}

size_t event_queue_size(const EventQueue *queue)
{
    return queue->live;
}

size_t event_queue_peak_size(const EventQueue *queue)
{
    return queue->peak;
}

size_t event_queue_memory_bytes(const EventQueue *queue)
{
    return sizeof(EventQueue) + queue->heap_capacity * sizeof(HeapKey) +
           queue->slot_capacity * (sizeof(Slot) + sizeof(uint32_t));
}
