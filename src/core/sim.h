/* The discrete-event loop: a clock, the event queue, and one dispatch callback that the
 * model supplies. The clock only moves forward; an event for "now" runs after the current
 * one. Nothing here reads a wall clock or does I/O. */
#ifndef IDEMSIM_SIM_H
#define IDEMSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "event_queue.h"
#include "sim_time.h"

typedef struct Sim Sim; /* opaque */

typedef void (*SimDispatch)(void *context, const Event *event);

Sim *sim_create(SimDispatch dispatch, void *context);
void sim_destroy(Sim *sim); /* NULL is a no-op */

SimTimeUs sim_now(const Sim *sim);
uint64_t sim_events_processed(const Sim *sim);
size_t sim_pending(const Sim *sim);
size_t sim_peak_pending(const Sim *sim);
size_t sim_memory_bytes(const Sim *sim); /* the event queue's storage */

/* at_us must not be in the past (asserted). */
EventId sim_schedule_at(Sim *sim, SimTimeUs at_us, uint32_t kind, uint32_t target, uint64_t arg);
EventId sim_schedule_in(Sim *sim, SimTimeUs delay_us, uint32_t kind, uint32_t target, uint64_t arg);
bool sim_cancel(Sim *sim, EventId id);

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
