/* Pending events ordered by (at_us, seq): seq is a per-queue insertion counter, so events
 * scheduled for the same instant pop in FIFO order. The queue is monotone: an event may not
 * be pushed before the last one popped (a simulation never schedules into its past). It
 * owns its storage (a radix heap of keys in recycled blocks plus a pool of payload slots,
 * grown geometrically, never shrunk, so the hot loop does not allocate). Cancelling marks
 * the slot; a cancelled event is skipped. */
#ifndef IDEMSIM_EVENT_QUEUE_H
#define IDEMSIM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_time.h"

typedef struct EventQueue EventQueue; /* opaque */

/* What the engine knows of an event: the model gives kind, target and arg their meaning. */
typedef struct {
    SimTimeUs at_us;
    uint64_t seq;
    uint32_t kind;
    uint32_t target;
    uint64_t arg;
} Event;

/* A handle to cancel a pending event; seq guards against a reused slot. */
typedef struct {
    uint64_t seq;
    uint32_t slot;
} EventId;

#define EVENT_ID_NONE ((EventId){.seq = 0, .slot = UINT32_MAX})

/* Whether id is EVENT_ID_NONE (no event was scheduled under it; a real event's seq is > 0). */
static inline bool event_id_is_none(EventId id)
{
    return id.seq == 0;
}

EventQueue *event_queue_create(size_t capacity_hint);
void event_queue_destroy(EventQueue *queue); /* NULL is a no-op */

/* at_us must not be before the last event popped (aborts otherwise). */
EventId event_queue_push(EventQueue *queue, SimTimeUs at_us, uint32_t kind, uint32_t target,
                         uint64_t arg);
/* False when the event already ran, was cancelled, or id is EVENT_ID_NONE. */
bool event_queue_cancel(EventQueue *queue, EventId id);
/* Removes the earliest live event into *out; false when none is left. */
bool event_queue_pop(EventQueue *queue, Event *out);
/* The same, only when that event is at or before until_us: a peek and a pop in one. */
bool event_queue_pop_until(EventQueue *queue, SimTimeUs until_us, Event *out);
/* Pops every live event at or before until_us in turn, at most max_events of them, and
 * hands each to handle, which may push and cancel: before each, *now_us is set to its time
 * and *counter counts it. Returns how many ran. The event loop's pop, call and bookkeeping
 * in one place, with no call per pop (issue 25). */
uint64_t event_queue_run(EventQueue *queue, SimTimeUs until_us, uint64_t max_events,
                         SimTimeUs *now_us, uint64_t *counter,
                         void (*handle)(void *context, const Event *event), void *context);
/* Earliest live event time without removing it; false when none is left. */
bool event_queue_peek_time(EventQueue *queue, SimTimeUs *at_us);

size_t event_queue_size(const EventQueue *queue); /* live (not cancelled) pending events */
size_t event_queue_peak_size(const EventQueue *queue);
size_t event_queue_memory_bytes(const EventQueue *queue);

#endif
