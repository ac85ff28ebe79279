/* The discrete-event loop: a clock, the event queue, and one dispatch callback that the
 * model supplies. The clock only moves forward; an event for "now" runs after the current
 * one. Nothing here reads a wall clock or does I/O. */
#ifndef IDEMSIM_SIM_H
#define IDEMSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "event_queue.h"
#include "sim_assert.h"
#include "sim_time.h"

typedef struct Sim Sim; /* opaque, but for its first member: */

/* The clock and the queue, which Sim begins with, so the calls every handler makes (the
 * time, scheduling, cancelling) are inline instead of a call into sim.c (issue 25: a few
 * percent of PAY-1's instructions). Read it only through the functions below. */
typedef struct {
    EventQueue *queue;
    SimTimeUs now;
} SimClock;

typedef void (*SimDispatch)(void *context, const Event *event);

Sim *sim_create(SimDispatch dispatch, void *context);
void sim_destroy(Sim *sim); /* NULL is a no-op */

static inline SimTimeUs sim_now(const Sim *sim)
{
    return ((const SimClock *)(const void *)sim)->now;
}
uint64_t sim_events_processed(const Sim *sim);
size_t sim_pending(const Sim *sim);
size_t sim_peak_pending(const Sim *sim);
size_t sim_memory_bytes(const Sim *sim); /* the event queue's storage */

/* at_us must not be in the past (asserted). */
static inline EventId sim_schedule_at(Sim *sim, SimTimeUs at_us, uint32_t kind, uint32_t target,
                                      uint64_t arg)
{
    SimClock *clock = (SimClock *)(void *)sim;
    SIM_ASSERT(at_us >= clock->now, "event scheduled in the past");
    return event_queue_push(clock->queue, at_us, kind, target, arg);
}

static inline EventId sim_schedule_in(Sim *sim, SimTimeUs delay_us, uint32_t kind, uint32_t target,
                                      uint64_t arg)
{
    SimClock *clock = (SimClock *)(void *)sim;
    SIM_ASSERT(delay_us <= SIM_TIME_NEVER - clock->now, "event time overflows");
    return event_queue_push(clock->queue, clock->now + delay_us, kind, target, arg);
}

static inline bool sim_cancel(Sim *sim, EventId id)
{
    return event_queue_cancel(((SimClock *)(void *)sim)->queue, id);
}

/* Runs one event; false when the queue is empty. */
bool sim_step(Sim *sim);
/* Runs every event with at_us <= until_us, then sets the clock to until_us (if later).
 * Returns the number of events run. */
uint64_t sim_run_until(Sim *sim, SimTimeUs until_us);
/* Runs until the queue is empty or max_events events have run (0: no limit); returns
 * events run. */
uint64_t sim_run(Sim *sim, uint64_t max_events);
/* Runs events with at_us <= until_us, at most max_events of them, without moving the clock
 * past the last one run. Returns the number run: fewer than max_events means the queue is
 * empty or its next event is later than until_us. */
uint64_t sim_run_bounded(Sim *sim, SimTimeUs until_us, uint64_t max_events);
/* Earliest pending event time, or SIM_TIME_NEVER. */
SimTimeUs sim_next_time(Sim *sim);

#endif
