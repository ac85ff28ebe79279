/* A radix heap of event slots linked into buckets, plus a sorted front.
 *
 * A discrete-event simulation never schedules before the event it is running, so the
 * queue is monotone, and a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) uses that.
 * Keys are compared with "last", a time no key is earlier than. A key that differs from
 * last only in its lowest 8 bits (a window of 256 µs) belongs to the front: a small array
 * sorted by (time, seq), popped from its head. Any other key is filed in a bucket named by
 * the highest digit in which it differs from last and its value there: a push is a
 * count-leading-zeros and a link. When the front runs out, the lowest non-empty bucket
 * (a bitmap and two count-trailing-zeros find it) gives its least key as the new last,
 * and its keys are filed again, each into a lower bucket or into the front, which is then
 * sorted. The pops come in (time, seq) order, exactly as from the binary heap this
 * replaced.
 *
 * The digits are not all alike. Above the front's 8 bits comes one wide digit of 11 bits:
 * 2048 "near" buckets of one window each, half a second in all, so an event scheduled up to
 * a few hundred milliseconds ahead (a network delay, a timeout, a backoff) is filed once,
 * in the bucket of its own window, and moves only into the front; with 8-bit digits most
 * such keys crossed a 65 ms boundary and were filed twice (issue 25). Above that, 8-bit
 * digits. The binary heap spent a third of a run in sift-down, each level a branch the CPU
 * could not predict; see docs/performance.md for the figures.
 *
 * A bucket is a singly linked list threaded through the slots (`next`, the same array that
 * chains the free slots), so filing a key writes the slot it already wrote and one bucket
 * head: the blocks of keys this replaced were a cache line of their own per bucket, and a
 * push spent most of its time fetching the tail block's line. The slot holds the time.
 *
 * The front holds {order, slot}: order is the time's low 8 bits above 56 bits of seq, so a
 * single integer comparison orders two keys of one window by (time, seq).
 *
 * Cancelling marks the slot (seq = 0) but keeps it allocated until its key is met and
 * dropped, so a bucket always links live slots and cancelled ones only. When cancelled keys
 * outnumber live ones, every bucket is compacted, which bounds memory by about twice the
 * live events. */
#include "event_queue.h"

#include <stdlib.h>
#include <string.h>

#include "big_array.h"
#include "sim_assert.h"

#define WINDOW_BITS 8 /* the front: keys that differ from last in these low bits only */
#define NEAR_BITS 11  /* 2^11 near buckets of one window each: about half a second */
#define NEAR_BUCKETS (1u << NEAR_BITS)
#define FAR_SHIFT (WINDOW_BITS + NEAR_BITS)
#define DIGIT_BITS 8 /* the far digits: radix 256 */
#define DIGITS (1u << DIGIT_BITS)
#define FAR_LEVELS ((64 - FAR_SHIFT + DIGIT_BITS - 1) / DIGIT_BITS)
#define BUCKETS (NEAR_BUCKETS + FAR_LEVELS * DIGITS) /* in key order */
#define OCCUPIED_WORDS ((BUCKETS + 63) / 64)
#define RANK_SORT_MAX 16    /* fronts this small are sorted by rank */
#define STALE_KEYS_SLACK 32 /* cancelled keys tolerated beyond the live count */
#define NO_SLOT UINT32_MAX
#define SEQ_BITS 56 /* the front's order: a seq below the window's 8 bits of time */

_Static_assert(OCCUPIED_WORDS <= 64, "one summary word must cover the occupancy bitmap");
_Static_assert(WINDOW_BITS + SEQ_BITS == 64, "the front's order is one 64-bit word");

/* A key of the front window. */
typedef struct {
    uint64_t order; /* the time's low WINDOW_BITS, then the seq */
    uint32_t slot;
} FrontKey;

/* 32 bytes: a slot never straddles a cache line (big_array aligns to 64). */
typedef struct {
    SimTimeUs at_us;
    uint64_t seq; /* of the pending event in this slot; 0 when free or cancelled */
    uint64_t arg;
    uint32_t kind;
    uint32_t target;
} Slot;

struct EventQueue {
    uint32_t heads[BUCKETS];           /* each bucket's first slot, or NO_SLOT */
    uint64_t occupied[OCCUPIED_WORDS]; /* bit b set when bucket b is not empty */
    uint64_t occupied_words;           /* bit w set when occupied[w] is not 0 */
    FrontKey *front; /* the keys of last's window, sorted by order, popped from head */
    size_t front_head, front_length, front_capacity;
    SimTimeUs last;  /* no key is earlier; the front holds the keys that differ from it only
                        in the lowest WINDOW_BITS */
    SimTimeUs floor; /* of the last event popped: no push may be earlier */
    Slot *slots;
    uint32_t *next;     /* per slot: the next slot of its bucket, or of the free list */
    uint32_t free_slot; /* the first free slot, or NO_SLOT */
    size_t slot_capacity;
    uint64_t next_seq;
    size_t live;
    size_t stale; /* cancelled keys still queued, in a bucket or the front */
    size_t peak;
};

/* ---------------------------------------------------------------- storage */

static size_t grown(size_t capacity)
{
    size_t next = capacity < 8 ? 16 : capacity * 2;
    SIM_ASSERT(next < UINT32_MAX, "event queue exceeds 2^32 slots");
    return next;
}

/* New slots join the free list lowest first, so they are handed out in index order. The
 * free list is empty when the slots grow. */
static void grow_slots(EventQueue *queue, size_t capacity)
{
    size_t old_capacity = queue->slot_capacity;
    queue->slots =
        big_array_grow(queue->slots, old_capacity * sizeof(Slot), capacity * sizeof(Slot));
    queue->next =
        big_array_grow(queue->next, old_capacity * sizeof(uint32_t), capacity * sizeof(uint32_t));
    for (size_t i = old_capacity; i < capacity; i++) {
        queue->slots[i].seq = 0;
        queue->next[i] = i + 1 < capacity ? (uint32_t)(i + 1) : queue->free_slot;
    }
    queue->free_slot = (uint32_t)old_capacity;
    queue->slot_capacity = capacity;
}

static void release_slot(EventQueue *queue, uint32_t slot)
{
    queue->slots[slot].seq = 0;
    queue->next[slot] = queue->free_slot;
    queue->free_slot = slot;
}

/* ---------------------------------------------------------------- buckets */

/* Inlined into refile's loop and the push: as calls, their register saves and restores
 * were a fifth of the queue's instructions (issue 25). */
#define HOT_INLINE static inline __attribute__((always_inline))

static bool front_is_full(const EventQueue *queue)
{
    return queue->front_length == queue->front_capacity;
}

__attribute__((noinline)) static void grow_front(EventQueue *queue)
{
    queue->front_capacity = grown(queue->front_capacity);
    queue->front = sim_xrealloc(queue->front, queue->front_capacity * sizeof(FrontKey));
}

HOT_INLINE uint64_t order_of(SimTimeUs at_us, uint64_t seq)
{
    return (at_us & ((1u << WINDOW_BITS) - 1)) << SEQ_BITS | seq;
}

/* The front has room for one more key (the push made sure of it). */
HOT_INLINE void append_front_with_room(EventQueue *queue, uint32_t slot)
{
    const Slot *s = &queue->slots[slot];
    queue->front[queue->front_length++] = (FrontKey){order_of(s->at_us, s->seq), slot};
}

HOT_INLINE void append_front(EventQueue *queue, uint32_t slot)
{
    if (front_is_full(queue))
        grow_front(queue);
    append_front_with_room(queue, slot);
}

HOT_INLINE void link_into(EventQueue *queue, size_t bucket, uint32_t slot)
{
    queue->next[slot] = queue->heads[bucket];
    queue->heads[bucket] = slot;
    queue->occupied[bucket / 64] |= (uint64_t)1 << (bucket % 64);
    queue->occupied_words |= (uint64_t)1 << (bucket / 64);
}

/* Files slot under the highest digit in which its time differs from last, and its value
 * there. False for a key that differs only in the window bits: it belongs to the front,
 * where the caller appends it (unsorted: see sort_front). */
HOT_INLINE bool file_in_bucket(EventQueue *queue, uint32_t slot, SimTimeUs at_us)
{
    uint64_t differing = at_us ^ queue->last;
    if (differing < ((uint64_t)1 << WINDOW_BITS))
        return false;
    size_t bucket;
    if (differing < ((uint64_t)1 << FAR_SHIFT)) {
        bucket = (size_t)(at_us >> WINDOW_BITS) & (NEAR_BUCKETS - 1);
    } else {
        unsigned level = (63u - (unsigned)__builtin_clzll(differing) - FAR_SHIFT) / DIGIT_BITS;
        unsigned digit = (unsigned)(at_us >> (FAR_SHIFT + level * DIGIT_BITS)) & (DIGITS - 1);
        bucket = NEAR_BUCKETS + (size_t)level * DIGITS + digit;
    }
    link_into(queue, bucket, slot);
    return true;
}

/* The bucket holding the least keys, or BUCKETS when all are empty. */
static size_t lowest_occupied(const EventQueue *queue)
{
    if (queue->occupied_words == 0)
        return BUCKETS;
    size_t word = (size_t)__builtin_ctzll(queue->occupied_words);
    return word * 64 + (size_t)__builtin_ctzll(queue->occupied[word]);
}

/* Takes bucket's list out of it. */
static uint32_t detach(EventQueue *queue, size_t bucket)
{
    uint32_t chain = queue->heads[bucket];
    queue->heads[bucket] = NO_SLOT;
    queue->occupied[bucket / 64] &= ~((uint64_t)1 << (bucket % 64));
    if (queue->occupied[bucket / 64] == 0)
        queue->occupied_words &= ~((uint64_t)1 << (bucket / 64));
    return chain;
}

static int compare_front(const void *a, const void *b)
{
    uint64_t x = ((const FrontKey *)a)->order, y = ((const FrontKey *)b)->order;
    return x < y ? -1 : x > y;
}

/* The front from front_head on, by order. A window usually holds a handful of keys (PAY-1:
 * 8.5 on average, 98% of windows 16 or fewer); a burst at one instant may hold thousands.
 * A handful is sorted by rank: each key's place is the number of keys before it, counted
 * without a branch. An insertion sort of random keys mispredicted about once a key and
 * took 7% of PAY-1's time (issue 25); the count does n^2 comparisons, all predictable. */
static void sort_front(EventQueue *queue)
{
    FrontKey *keys = queue->front + queue->front_head;
    size_t count = queue->front_length - queue->front_head;
    if (count <= RANK_SORT_MAX) {
        /* The orders are padded to a multiple of four with a value no key has (a key's seq
         * is below 2^56), which no key counts as before it: the count then goes four
         * comparisons at a time, with no test of the end between them. */
        uint64_t orders[RANK_SORT_MAX + 3];
        /* The sorted keys in two arrays, put together again by a loop: one FrontKey array
         * was copied back with a `rep movs` of the count's length, slow to start on short
         * lengths. */
        uint64_t sorted_orders[RANK_SORT_MAX];
        uint32_t sorted_slots[RANK_SORT_MAX];
        size_t padded = (count + 3) & ~(size_t)3;
        for (size_t i = 0; i < count; i++)
            orders[i] = keys[i].order;
        orders[count] = orders[count + 1] = orders[count + 2] = UINT64_MAX;
        for (size_t i = 0; i < count; i++) {
            uint64_t order = orders[i];
            size_t rank = 0;
            for (size_t j = 0; j < padded; j += 4)
                rank += (size_t)(orders[j] < order) + (orders[j + 1] < order) +
                        (orders[j + 2] < order) + (orders[j + 3] < order);
            sorted_orders[rank] = order;
            sorted_slots[rank] = keys[i].slot;
        }
        for (size_t i = 0; i < count; i++)
            keys[i] = (FrontKey){sorted_orders[i], sorted_slots[i]};
        return;
    }
    if (count > 32) {
        qsort(keys, count, sizeof(FrontKey), compare_front);
        return;
    }
    for (size_t i = 1; i < count; i++) {
        FrontKey key = keys[i];
        size_t at = i;
        for (; at > 0 && key.order < keys[at - 1].order; at--)
            keys[at] = keys[at - 1];
        keys[at] = key;
    }
}

/* Files the live slots of a detached list again relative to last and frees the
 * cancelled ones. */
static void refile(EventQueue *queue, uint32_t chain)
{
    while (chain != NO_SLOT) {
        uint32_t slot = chain;
        chain = queue->next[slot];
        const Slot *s = &queue->slots[slot];
        if (s->seq != 0) {
            if (!file_in_bucket(queue, slot, s->at_us))
                append_front(queue, slot);
        } else {
            release_slot(queue, slot);
            queue->stale--;
        }
    }
}

/* A near bucket's list into the front: all of one window. */
static void refile_window(EventQueue *queue, uint32_t chain)
{
    while (chain != NO_SLOT) {
        uint32_t slot = chain;
        chain = queue->next[slot];
        if (queue->slots[slot].seq != 0) {
            append_front(queue, slot);
        } else {
            release_slot(queue, slot);
            queue->stale--;
        }
    }
}

/* Empties the lowest occupied bucket into lower ones and the front, its least key
 * becoming last. False when every bucket was empty. */
static bool advance_last(EventQueue *queue)
{
    size_t bucket = lowest_occupied(queue);
    if (bucket == BUCKETS)
        return false;
    uint32_t chain = detach(queue, bucket);
    if (bucket < NEAR_BUCKETS) {
        /* The keys share last's window above the window bits, so all go to the front, and
         * the start of their window is early enough for last. */
        queue->last = queue->slots[chain].at_us & ~(SimTimeUs)((1u << WINDOW_BITS) - 1);
        refile_window(queue, chain);
    } else {
        /* The least key may be a cancelled one: last then stops short of the next live
         * event, which is harmless (no live key is earlier). Every key matches the new
         * last above this bucket's level, so none returns to it. */
        SimTimeUs least = SIM_TIME_NEVER;
        for (uint32_t slot = chain; slot != NO_SLOT; slot = queue->next[slot])
            if (queue->slots[slot].at_us < least)
                least = queue->slots[slot].at_us;
        queue->last = least;
        refile(queue, chain);
    }
    sort_front(queue);
    return true;
}

/* Makes front[front_head] the earliest live key; false when no live event is left. */
static bool settle_front(EventQueue *queue)
{
    for (;;) {
        while (queue->front_head < queue->front_length) {
            uint32_t slot = queue->front[queue->front_head].slot;
            if (queue->slots[slot].seq != 0)
                return true;
            release_slot(queue, slot);
            queue->stale--;
            queue->front_head++;
        }
        queue->front_head = queue->front_length = 0;
        if (!advance_last(queue))
            return false;
    }
}

/* settle_front's common case inline: the front's head is a live key already. */
HOT_INLINE bool front_ready(EventQueue *queue)
{
    if (queue->front_head < queue->front_length &&
        queue->slots[queue->front[queue->front_head].slot].seq != 0)
        return true;
    return settle_front(queue);
}

/* Drops every cancelled key, so they never outnumber the live ones by much. */
static void compact(EventQueue *queue)
{
    size_t kept = 0;
    for (size_t i = queue->front_head; i < queue->front_length; i++) {
        FrontKey key = queue->front[i];
        if (queue->slots[key.slot].seq != 0) {
            queue->front[kept++] = key;
        } else {
            release_slot(queue, key.slot);
            queue->stale--;
        }
    }
    queue->front_head = 0;
    queue->front_length = kept;
    for (size_t bucket = 0; bucket < BUCKETS; bucket++) /* each key returns to its bucket */
        if (queue->heads[bucket] != NO_SLOT)
            refile(queue, detach(queue, bucket));
}

/* A push between floor and last (a peek ran past cancelled keys, then the caller pushed
 * before popping): every key is filed again relative to the earlier time. Rare, so O(n). */
static void move_last_back(EventQueue *queue, SimTimeUs at_us)
{
    uint32_t detached = NO_SLOT;
    for (size_t bucket = 0; bucket < BUCKETS; bucket++) {
        uint32_t chain = queue->heads[bucket];
        if (chain == NO_SLOT)
            continue;
        detach(queue, bucket);
        uint32_t tail = chain;
        while (queue->next[tail] != NO_SLOT)
            tail = queue->next[tail];
        queue->next[tail] = detached;
        detached = chain;
    }
    /* The front's keys join them: link them into the same list. */
    for (size_t i = queue->front_head; i < queue->front_length; i++) {
        uint32_t slot = queue->front[i].slot;
        queue->next[slot] = detached;
        detached = slot;
    }
    queue->front_head = queue->front_length = 0;
    queue->last = at_us;
    refile(queue, detached);
    sort_front(queue);
}

/* ---------------------------------------------------------------- operations */

EventQueue *event_queue_create(size_t capacity_hint)
{
    EventQueue *queue = sim_xcalloc(1, sizeof(EventQueue));
    size_t capacity = capacity_hint > 0 ? capacity_hint : 1;
    SIM_ASSERT(capacity < UINT32_MAX, "event queue exceeds 2^32 slots");
    for (size_t bucket = 0; bucket < BUCKETS; bucket++)
        queue->heads[bucket] = NO_SLOT;
    queue->free_slot = NO_SLOT;
    grow_slots(queue, capacity);
    queue->next_seq = 1;
    return queue;
}

void event_queue_destroy(EventQueue *queue)
{
    if (queue == NULL)
        return;
    free(queue->front);
    big_array_free(queue->slots, queue->slot_capacity * sizeof(Slot));
    big_array_free(queue->next, queue->slot_capacity * sizeof(uint32_t));
    free(queue);
}

/* The push proper, once there is room: a free slot, a place in the front, and no key to
 * file again (at_us is not before last). */
HOT_INLINE EventId push_with_room(EventQueue *queue, SimTimeUs at_us, uint32_t kind,
                                  uint32_t target, uint64_t arg)
{
    uint32_t slot = queue->free_slot;
    queue->free_slot = queue->next[slot];
    uint64_t seq = queue->next_seq++;
    queue->slots[slot] =
        (Slot){.at_us = at_us, .seq = seq, .arg = arg, .kind = kind, .target = target};
    if (!file_in_bucket(queue, slot, at_us)) { /* the front's: the newest seq, so it goes */
        append_front_with_room(queue, slot);   /* after every key at its time */
        FrontKey *keys = queue->front;
        size_t at = queue->front_length - 1;
        FrontKey key = keys[at];
        for (; at > queue->front_head && key.order < keys[at - 1].order; at--)
            keys[at] = keys[at - 1];
        keys[at] = key;
    }

    queue->live++;
    if (queue->live > queue->peak)
        queue->peak = queue->live;
    return (EventId){.seq = seq, .slot = slot};
}

/* The rare pushes that need room first, apart and not inlined: with their calls in the push,
 * every push saved and restored six registers, a quarter of its instructions. */
__attribute__((noinline)) static EventId
push_making_room(EventQueue *queue, SimTimeUs at_us, uint32_t kind, uint32_t target, uint64_t arg)
{
    if (at_us < queue->last)
        move_last_back(queue, at_us);
    if (queue->free_slot == NO_SLOT)
        grow_slots(queue, grown(queue->slot_capacity));
    if (front_is_full(queue))
        grow_front(queue);
    return push_with_room(queue, at_us, kind, target, arg);
}

EventId event_queue_push(EventQueue *queue, SimTimeUs at_us, uint32_t kind, uint32_t target,
                         uint64_t arg)
{
    SIM_ASSERT(at_us >= queue->floor, "event pushed before the last one popped");
    SIM_ASSERT(queue->next_seq < ((uint64_t)1 << SEQ_BITS), "event count exceeds 2^56");
    if (at_us < queue->last || queue->free_slot == NO_SLOT || front_is_full(queue))
        return push_making_room(queue, at_us, kind, target, arg);
    return push_with_room(queue, at_us, kind, target, arg);
}

bool event_queue_cancel(EventQueue *queue, EventId id)
{
    if (id.seq == 0 || id.slot >= queue->slot_capacity || queue->slots[id.slot].seq != id.seq)
        return false;
    queue->slots[id.slot].seq = 0; /* the slot is released when its key is dropped */
    queue->live--;
    queue->stale++;
    if (queue->stale > queue->live + STALE_KEYS_SLACK)
        compact(queue);
    return true;
}

bool event_queue_pop(EventQueue *queue, Event *out)
{
    return event_queue_pop_until(queue, SIM_TIME_NEVER, out);
}

bool event_queue_pop_until(EventQueue *queue, SimTimeUs until_us, Event *out)
{
    if (!front_ready(queue))
        return false;
    uint32_t index = queue->front[queue->front_head].slot;
    const Slot *slot = &queue->slots[index];
    if (slot->at_us > until_us)
        return false;
    queue->front_head++;
    queue->floor = slot->at_us;
    *out = (Event){.at_us = slot->at_us,
                   .seq = slot->seq,
                   .kind = slot->kind,
                   .target = slot->target,
                   .arg = slot->arg};
    release_slot(queue, index);
    queue->live--;
    return true;
}

uint64_t event_queue_run(EventQueue *queue, SimTimeUs until_us, uint64_t max_events,
                         SimTimeUs *now_us, uint64_t *counter,
                         void (*handle)(void *context, const Event *event), void *context)
{
    uint64_t ran = 0;
    while (ran < max_events && front_ready(queue)) {
        uint32_t index = queue->front[queue->front_head].slot;
        const Slot *slot = &queue->slots[index];
        if (slot->at_us > until_us)
            break;
        queue->front_head++;
        queue->floor = slot->at_us;
        Event event = {.at_us = slot->at_us,
                       .seq = slot->seq,
                       .kind = slot->kind,
                       .target = slot->target,
                       .arg = slot->arg};
        release_slot(queue, index);
        queue->live--;
        *now_us = event.at_us;
        (*counter)++;
        handle(context, &event);
        ran++;
    }
    return ran;
}

bool event_queue_peek_time(EventQueue *queue, SimTimeUs *at_us)
{
    if (!settle_front(queue))
        return false;
    *at_us = queue->slots[queue->front[queue->front_head].slot].at_us;
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
    return sizeof(EventQueue) + queue->front_capacity * sizeof(FrontKey) +
           queue->slot_capacity * (sizeof(Slot) + sizeof(uint32_t));
}
