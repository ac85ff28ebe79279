/* A radix heap of small keys plus a pool of payload slots.
 *
 * A discrete-event simulation never schedules before the event it is running, so the
 * queue is monotone, and a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) uses that.
 * Keys are compared with "last", a time no key is earlier than. A key that differs from
 * last only in its lowest base-256 digit belongs to the front: a small array sorted by
 * (time, seq), popped from its head. Any other key is filed in a bucket named by the
 * highest digit in which it differs from last and its value there: a push is a
 * count-leading-zeros and an append. When the front runs out, the lowest non-empty bucket
 * (a bitmap and two count-trailing-zeros find it) gives its least key as the new last,
 * and its keys are filed again, each into a lower bucket or into the front, which is then
 * sorted. A key moves down at most once per digit, in practice twice. The pops come in
 * (time, seq) order, exactly as from the binary heap this replaced.
 *
 * The binary heap spent a third of a run in sift-down, each level a branch the CPU could
 * not predict; see docs/performance.md for the figures. Radix 2 and 16 were measured too:
 * 256 moved keys the fewest times and was fastest on the pay-1 workload. A sorted front
 * instead of 256 one-instant buckets saved a further 3%.
 *
 * A key is {at_us, slot}. Cancelling marks its slot (seq = 0) but keeps it allocated until
 * the key is met and dropped, so a key always names its own slot. When cancelled keys
 * outnumber live ones, every bucket is compacted, which bounds memory by about twice the
 * live events. Buckets are chains of fixed-size blocks drawn from one free list, so keys
 * moving between buckets do not leave each bucket holding its own high-water mark. */
#include "event_queue.h"

#include <stdlib.h>
#include <string.h>

#include "sim_assert.h"

#define DIGIT_BITS 8 /* radix 256 */
#define DIGITS (1u << DIGIT_BITS)
#define LEVELS (64 / DIGIT_BITS)
#define BUCKETS (LEVELS * DIGITS)     /* (level, digit), in key order */
#define OCCUPIED_WORDS (BUCKETS / 64) /* at most 64: one summary word covers them */
#define BLOCK_KEYS 30                 /* keys per block: 30 * 16 + 16 bytes = 496 bytes */
#define STALE_KEYS_SLACK 32           /* cancelled keys tolerated beyond the live count */

_Static_assert(OCCUPIED_WORDS <= 64, "one summary word must cover the occupancy bitmap");

typedef struct {
    SimTimeUs at_us;
    uint32_t slot;
} Key;

/* A key of the front window, with the seq that orders it among keys at the same time. */
typedef struct {
    SimTimeUs at_us;
    uint64_t seq;
    uint32_t slot;
} FrontKey;

typedef struct Block {
    struct Block *next;
    uint32_t length;
    Key keys[BLOCK_KEYS];
} Block;

typedef struct {
    Block *head; /* the block appended to; full blocks follow it */
} Bucket;

typedef struct {
    uint64_t seq; /* of the pending event in this slot; 0 when free or cancelled */
    uint64_t arg;
    uint32_t kind;
    uint32_t target;
} Slot;

struct EventQueue {
    Bucket buckets[BUCKETS];
    uint64_t occupied[OCCUPIED_WORDS]; /* bit b set when bucket b has a block */
    uint64_t occupied_words;           /* bit w set when occupied[w] is not 0 */
    FrontKey *front; /* the keys of last's window, sorted by (at_us, seq), popped from head */
    size_t front_head, front_length, front_capacity;
    SimTimeUs last;  /* no key is earlier; the front holds the keys that differ from it only
                        in the lowest digit */
    SimTimeUs floor; /* of the last event popped: no push may be earlier */
    Block *free_blocks;
    size_t block_count;
    Slot *slots;
    uint32_t *free_slots; /* stack of free slot indices */
    size_t free_count;
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

static Block *take_block(EventQueue *queue)
{
    Block *block = queue->free_blocks;
    if (block != NULL) {
        queue->free_blocks = block->next;
    } else {
        block = sim_xrealloc(NULL, sizeof(Block));
        queue->block_count++;
    }
    block->next = NULL;
    block->length = 0;
    return block;
}

static void give_back_blocks(EventQueue *queue, Block *chain)
{
    while (chain != NULL) {
        Block *next = chain->next;
        chain->next = queue->free_blocks;
        queue->free_blocks = chain;
        chain = next;
    }
}

static void free_chain(Block *chain)
{
    while (chain != NULL) {
        Block *next = chain->next;
        free(chain);
        chain = next;
    }
}

/* ---------------------------------------------------------------- buckets */

static bool key_is_live(const EventQueue *queue, Key key)
{
    return queue->slots[key.slot].seq != 0;
}

static void drop_stale_key(EventQueue *queue, Key key)
{
    release_slot(queue, key.slot);
    queue->stale--;
}

/* Inlined into refile's loop and the push: as calls, their register saves and restores
 * were a fifth of the queue's instructions (issue 25). */
#define HOT_INLINE static inline __attribute__((always_inline))

HOT_INLINE void append_front(EventQueue *queue, Key key)
{
    if (queue->front_length == queue->front_capacity) {
        queue->front_capacity = grown(queue->front_capacity);
        queue->front = sim_xrealloc(queue->front, queue->front_capacity * sizeof(FrontKey));
    }
    queue->front[queue->front_length++] =
        (FrontKey){.at_us = key.at_us, .seq = queue->slots[key.slot].seq, .slot = key.slot};
}

static bool front_before(const FrontKey *a, const FrontKey *b)
{
    return a->at_us < b->at_us || (a->at_us == b->at_us && a->seq < b->seq);
}

HOT_INLINE void append_to_bucket(EventQueue *queue, size_t index, Key key)
{
    Bucket *bucket = &queue->buckets[index];
    Block *block = bucket->head;
    if (block == NULL || block->length == BLOCK_KEYS) {
        if (block == NULL) {
            queue->occupied[index / 64] |= (uint64_t)1 << (index % 64);
            queue->occupied_words |= (uint64_t)1 << (index / 64);
        }
        Block *fresh = take_block(queue);
        fresh->next = block;
        bucket->head = block = fresh;
    }
    block->keys[block->length++] = key;
}

/* Files key under the highest digit in which it differs from last, and its value there;
 * a key that differs only in the lowest digit joins the front (unsorted: see sort_front). */
HOT_INLINE void place(EventQueue *queue, Key key)
{
    uint64_t differing = key.at_us ^ queue->last;
    if (differing < DIGITS) {
        append_front(queue, key);
        return;
    }
    unsigned level = (63u - (unsigned)__builtin_clzll(differing)) / DIGIT_BITS;
    unsigned digit = (unsigned)(key.at_us >> (level * DIGIT_BITS)) & (DIGITS - 1);
    append_to_bucket(queue, (size_t)level * DIGITS + digit, key);
}

static void mark_empty(EventQueue *queue, size_t index)
{
    queue->occupied[index / 64] &= ~((uint64_t)1 << (index % 64));
    if (queue->occupied[index / 64] == 0)
        queue->occupied_words &= ~((uint64_t)1 << (index / 64));
}

/* The bucket holding the least keys, or BUCKETS when all are empty. */
static size_t lowest_occupied(const EventQueue *queue)
{
    if (queue->occupied_words == 0)
        return BUCKETS;
    size_t word = (size_t)__builtin_ctzll(queue->occupied_words);
    return word * 64 + (size_t)__builtin_ctzll(queue->occupied[word]);
}

static int compare_front(const void *a, const void *b)
{
    return front_before(a, b) ? -1 : front_before(b, a) ? 1 : 0;
}

/* The front from front_head on, in (time, seq) order. A window usually holds a handful of
 * keys; a burst at one instant may hold thousands. */
static void sort_front(EventQueue *queue)
{
    FrontKey *keys = queue->front + queue->front_head;
    size_t count = queue->front_length - queue->front_head;
    if (count > 32) {
        qsort(keys, count, sizeof(FrontKey), compare_front);
        return;
    }
    for (size_t i = 1; i < count; i++) {
        FrontKey key = keys[i];
        size_t at = i;
        for (; at > 0 && front_before(&key, &keys[at - 1]); at--)
            keys[at] = keys[at - 1];
        keys[at] = key;
    }
}

/* Files the live keys of a detached chain again relative to last, drops the cancelled
 * ones, and recycles the chain's blocks. */
static void refile(EventQueue *queue, Block *chain)
{
    for (Block *block = chain; block != NULL; block = block->next) {
        for (uint32_t i = 0; i < block->length; i++) {
            Key key = block->keys[i];
            if (key_is_live(queue, key))
                place(queue, key);
            else
                drop_stale_key(queue, key);
        }
    }
    give_back_blocks(queue, chain);
}

static Block *detach(EventQueue *queue, size_t index)
{
    Block *chain = queue->buckets[index].head;
    queue->buckets[index].head = NULL;
    mark_empty(queue, index);
    return chain;
}

/* Empties the lowest occupied bucket into lower ones and the front, its least key
 * becoming last.
 * False when every bucket was empty. */
static bool advance_last(EventQueue *queue)
{
    size_t index = lowest_occupied(queue);
    if (index == BUCKETS)
        return false;
    Block *chain = detach(queue, index);
    if (index < 2 * DIGITS) {
        /* Level 1: the keys differ only in the lowest digit, so all go to the front, and
         * the start of their window is early enough for last. */
        queue->last = chain->keys[0].at_us & ~(SimTimeUs)(DIGITS - 1);
    } else {
        /* The least key may be a cancelled one: last then stops short of the next live
         * event, which is harmless (no live key is earlier). Every key matches the new
         * last above this bucket's level, so none returns to it. */
        SimTimeUs least = SIM_TIME_NEVER;
        for (Block *block = chain; block != NULL; block = block->next)
            for (uint32_t i = 0; i < block->length; i++)
                if (block->keys[i].at_us < least)
                    least = block->keys[i].at_us;
        queue->last = least;
    }
    refile(queue, chain);
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
    for (size_t index = 0; index < BUCKETS; index++) /* each key returns to its bucket */
        if (queue->buckets[index].head != NULL)
            refile(queue, detach(queue, index));
}

/* A push between floor and last (a peek ran past cancelled keys, then the caller pushed
 * before popping): every key is filed again relative to the earlier time. Rare, so O(n). */
static void move_last_back(EventQueue *queue, SimTimeUs at_us)
{
    Block *detached = NULL;
    for (size_t index = 0; index < BUCKETS; index++) {
        if (queue->buckets[index].head == NULL)
            continue;
        Block *chain = detach(queue, index);
        Block *tail = chain;
        while (tail->next != NULL)
            tail = tail->next;
        tail->next = detached;
        detached = chain;
    }
    queue->last = at_us;
    /* The front's keys are read from a copy: some of them return to it. */
    size_t count = queue->front_length - queue->front_head;
    FrontKey *old_front = sim_xrealloc(NULL, (count > 0 ? count : 1) * sizeof(FrontKey));
    memcpy(old_front, queue->front + queue->front_head, count * sizeof(FrontKey));
    queue->front_head = queue->front_length = 0;
    for (size_t i = 0; i < count; i++) {
        Key key = {.at_us = old_front[i].at_us, .slot = old_front[i].slot};
        if (key_is_live(queue, key))
            place(queue, key);
        else
            drop_stale_key(queue, key);
    }
    free(old_front);
    refile(queue, detached);
    sort_front(queue);
}

/* ---------------------------------------------------------------- operations */

EventQueue *event_queue_create(size_t capacity_hint)
{
    EventQueue *queue = sim_xcalloc(1, sizeof(EventQueue));
    size_t capacity = capacity_hint > 0 ? capacity_hint : 1;
    SIM_ASSERT(capacity < UINT32_MAX, "event queue exceeds 2^32 slots");
    grow_slots(queue, capacity);
    queue->next_seq = 1;
    return queue;
}

void event_queue_destroy(EventQueue *queue)
{
    if (queue == NULL)
        return;
    for (size_t index = 0; index < BUCKETS; index++)
        free_chain(queue->buckets[index].head);
    free_chain(queue->free_blocks);
    free(queue->front);
    free(queue->slots);
    free(queue->free_slots);
    free(queue);
}

EventId event_queue_push(EventQueue *queue, SimTimeUs at_us, uint32_t kind, uint32_t target,
                         uint64_t arg)
{
    SIM_ASSERT(at_us >= queue->floor, "event pushed before the last one popped");
    if (at_us < queue->last)
        move_last_back(queue, at_us);
    if (queue->free_count == 0)
        grow_slots(queue, grown(queue->slot_capacity));

    uint32_t slot = queue->free_slots[--queue->free_count];
    uint64_t seq = queue->next_seq++;
    queue->slots[slot] = (Slot){.seq = seq, .arg = arg, .kind = kind, .target = target};
    place(queue, (Key){.at_us = at_us, .slot = slot});
    if ((at_us ^ queue->last) < DIGITS) { /* joined the front: the newest seq, so it goes */
        FrontKey *keys = queue->front;    /* after every key at its time */
        size_t at = queue->front_length - 1;
        FrontKey key = keys[at];
        for (; at > queue->front_head && front_before(&key, &keys[at - 1]); at--)
            keys[at] = keys[at - 1];
        keys[at] = key;
    }

    queue->live++;
    if (queue->live > queue->peak)
        queue->peak = queue->live;
    return (EventId){.seq = seq, .slot = slot};
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
    if (!front_ready(queue) || queue->front[queue->front_head].at_us > until_us)
        return false;
    FrontKey key = queue->front[queue->front_head++];
    uint32_t index = key.slot;
    queue->floor = key.at_us;
    const Slot *slot = &queue->slots[index];
    *out = (Event){.at_us = key.at_us,
                   .seq = slot->seq,
                   .kind = slot->kind,
                   .target = slot->target,
                   .arg = slot->arg};
    release_slot(queue, index);
    queue->live--;
    return true;
}

bool event_queue_peek_time(EventQueue *queue, SimTimeUs *at_us)
{
    if (!settle_front(queue))
        return false;
    *at_us = queue->front[queue->front_head].at_us;
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
    return sizeof(EventQueue) + queue->block_count * sizeof(Block) +
           queue->front_capacity * sizeof(FrontKey) +
           queue->slot_capacity * (sizeof(Slot) + sizeof(uint32_t));
}
