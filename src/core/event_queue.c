/* A radix heap of small keys plus a pool of payload slots.
 *
 * A discrete-event simulation never schedules before the event it is running, so the
 * queue is monotone, and a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan 1990) uses that.
 * Keys are compared with "last", a time no key is earlier than: a key equal to last is a
 * tie; any other key is filed under the highest base-256 digit in which it differs from
 * last, and its value in that digit. A push is a count-leading-zeros and an append. A pop
 * takes the earliest tie; when there is none, the lowest non-empty bucket (a bitmap and
 * two count-trailing-zeros find it) gives its least key as the new last and its keys are
 * filed again, each into a lower bucket or among the ties. A key moves down at most once
 * per digit, in practice twice. Ties are sorted by insertion sequence when they are filled,
 * and later pushes at that instant carry larger sequences and are appended, so the pops
 * are in (time, sequence) order, exactly as the binary heap this replaced gave them.
 *
 * The binary heap spent a third of a run in sift-down, each level a branch the CPU could
 * not predict; see docs/performance.md for the figures. Radix 2 and 16 were measured too:
 * 256 moved keys the fewest times and was fastest on the pay-1 workload.
 *
 * A key is {at_us, slot}. Cancelling marks its slot (seq = 0) but keeps it allocated until
 * the key is met and dropped, so a key always names its own slot. When cancelled keys
 * outnumber live ones, every bucket is compacted, which bounds memory by about twice the
 * live events. Buckets are chains of fixed-size blocks drawn from one free list, so keys
 * moving between buckets do not leave each bucket holding its own high-water mark. */
#include "event_queue.h"

#include <stdlib.h>

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

/* A key at last: its time is last, its seq orders it among the others. */
typedef struct {
    uint64_t seq;
    uint32_t slot;
} Tie;

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
    Tie *ties;                         /* keys at last, sorted by seq; popped from tie_head */
    size_t tie_head, tie_length, tie_capacity;
    SimTimeUs last;  /* no key is earlier; the time of ties */
    SimTimeUs floor; /* of the last event popped: no push may be earlier */
    Block *free_blocks;
    size_t block_count;
    Slot *slots;
    uint32_t *free_slots; /* stack of free slot indices */
    size_t free_count;
    size_t slot_capacity;
    uint64_t next_seq;
    size_t live;
    size_t stale; /* cancelled keys still in a bucket */
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

static void append_tie(EventQueue *queue, uint32_t slot)
{
    if (queue->tie_length == queue->tie_capacity) {
        queue->tie_capacity = grown(queue->tie_capacity);
        queue->ties = sim_xrealloc(queue->ties, queue->tie_capacity * sizeof(Tie));
    }
    queue->ties[queue->tie_length++] = (Tie){.seq = queue->slots[slot].seq, .slot = slot};
}

static void append_to_bucket(EventQueue *queue, size_t index, Key key)
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

/* Files key under the highest digit in which it differs from last, and its value there. */
static void place(EventQueue *queue, Key key)
{
    uint64_t differing = key.at_us ^ queue->last;
    if (differing == 0) {
        append_tie(queue, key.slot);
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

static int compare_seq(const void *a, const void *b)
{
    uint64_t left = ((const Tie *)a)->seq, right = ((const Tie *)b)->seq;
    return (left > right) - (left < right);
}

/* Ties usually number one or two; a burst at one instant may number thousands. */
static void sort_ties(EventQueue *queue)
{
    Tie *ties = queue->ties;
    size_t count = queue->tie_length;
    if (count > 32) {
        qsort(ties, count, sizeof(Tie), compare_seq);
        return;
    }
    for (size_t i = 1; i < count; i++) {
        Tie tie = ties[i];
        size_t at = i;
        for (; at > 0 && tie.seq < ties[at - 1].seq; at--)
            ties[at] = ties[at - 1];
        ties[at] = tie;
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

/* Empties the lowest occupied bucket into lower ones, its least live key becoming last.
 * False when every bucket was empty. */
static bool advance_last(EventQueue *queue)
{
    size_t index = lowest_occupied(queue);
    if (index == BUCKETS)
        return false;
    Block *chain = detach(queue, index);
    /* The least key may be a cancelled one: last then stops short of the next live event,
     * which is harmless (no live key is earlier). Every key matches the new last above
     * this bucket's level, so none returns to it. */
    SimTimeUs least = SIM_TIME_NEVER;
    for (Block *block = chain; block != NULL; block = block->next)
        for (uint32_t i = 0; i < block->length; i++)
            if (block->keys[i].at_us < least)
                least = block->keys[i].at_us;
    queue->last = least;
    refile(queue, chain);
    sort_ties(queue);
    return true;
}

/* Makes ties[tie_head] the earliest live key; false when no live event is left. */
static bool settle_front(EventQueue *queue)
{
    for (;;) {
        while (queue->tie_head < queue->tie_length) {
            uint32_t slot = queue->ties[queue->tie_head].slot;
            if (queue->slots[slot].seq != 0)
                return true;
            release_slot(queue, slot);
            queue->stale--;
            queue->tie_head++;
        }
        queue->tie_head = queue->tie_length = 0;
        if (!advance_last(queue))
            return false;
    }
}

/* Drops every cancelled key, so they never outnumber the live ones by much. */
static void compact(EventQueue *queue)
{
    size_t kept = 0;
    for (size_t i = queue->tie_head; i < queue->tie_length; i++) {
        Tie tie = queue->ties[i];
        if (queue->slots[tie.slot].seq != 0) {
            queue->ties[kept++] = tie;
        } else {
            release_slot(queue, tie.slot);
            queue->stale--;
        }
    }
    queue->tie_head = 0;
    queue->tie_length = kept;
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
    SimTimeUs tie_at_us = queue->last;
    queue->last = at_us;
    /* Every key is later than at_us, so none is appended to ties while they are read. */
    for (size_t i = queue->tie_head; i < queue->tie_length; i++) {
        Key key = {.at_us = tie_at_us, .slot = queue->ties[i].slot};
        if (key_is_live(queue, key))
            place(queue, key);
        else
            drop_stale_key(queue, key);
    }
    queue->tie_head = queue->tie_length = 0;
    refile(queue, detached);
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
    free(queue->ties);
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
    if (!settle_front(queue))
        return false;
    uint32_t index = queue->ties[queue->tie_head++].slot;
    queue->floor = queue->last;
    const Slot *slot = &queue->slots[index];
    *out = (Event){.at_us = queue->last,
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
    *at_us = queue->last;
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
           queue->tie_capacity * sizeof(Tie) +
           queue->slot_capacity * (sizeof(Slot) + sizeof(uint32_t));
}
