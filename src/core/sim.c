/* The event loop. It owns the clock and the queue and knows nothing of the model: each
 * popped event goes to the one dispatch callback, which may schedule and cancel freely
 * (the event is off the queue before dispatch is called). */
#include "sim.h"

#include <stdlib.h>

#include "sim_assert.h"

#define SIM_QUEUE_CAPACITY_HINT 1024 /* grows geometrically beyond this */

struct Sim {
    SimClock clock; /* first: sim.h's inline functions read it through the Sim pointer */
    uint64_t events_processed;
    SimDispatch dispatch;
    void *context;
};

Sim *sim_create(SimDispatch dispatch, void *context)
{
    SIM_ASSERT(dispatch != NULL, "a simulation needs a dispatch callback");
    Sim *sim = sim_xcalloc(1, sizeof(Sim));
    sim->clock.queue = event_queue_create(SIM_QUEUE_CAPACITY_HINT);
    sim->dispatch = dispatch;
    sim->context = context;
    return sim;
}

void sim_destroy(Sim *sim)
{
    if (sim == NULL)
        return;
    event_queue_destroy(sim->clock.queue);
    free(sim);
}

uint64_t sim_events_processed(const Sim *sim)
{
    return sim->events_processed;
}

size_t sim_pending(const Sim *sim)
{
    return event_queue_size(sim->clock.queue);
}

size_t sim_peak_pending(const Sim *sim)
{
    return event_queue_peak_size(sim->clock.queue);
}

static void run_event(Sim *sim, const Event *event)
{
    sim->clock.now = event->at_us;
    sim->events_processed++;
    sim->dispatch(sim->context, event);
}

bool sim_step(Sim *sim)
{
    Event event;
    if (!event_queue_pop(sim->clock.queue, &event))
        return false;
    run_event(sim, &event);
    return true;
}

uint64_t sim_run_until(Sim *sim, SimTimeUs until_us)
{
    uint64_t ran = sim_run_bounded(sim, until_us, UINT64_MAX);
    if (until_us > sim->clock.now)
        sim->clock.now = until_us;
    return ran;
}

uint64_t sim_run(Sim *sim, uint64_t max_events)
{
    uint64_t ran = 0;
    while ((max_events == 0 || ran < max_events) && sim_step(sim))
        ran++;
    return ran;
}

SimTimeUs sim_next_time(Sim *sim)
{
    SimTimeUs next_us;
    return event_queue_peek_time(sim->clock.queue, &next_us) ? next_us : SIM_TIME_NEVER;
}

size_t sim_memory_bytes(const Sim *sim)
{
    return sizeof *sim + event_queue_memory_bytes(sim->clock.queue);
}

/* The loop is the queue's (event_queue_run): a call per event less. */
uint64_t sim_run_bounded(Sim *sim, SimTimeUs until_us, uint64_t max_events)
{
    return event_queue_run(sim->clock.queue, until_us, max_events, &sim->clock.now,
                           &sim->events_processed, sim->dispatch, sim->context);
}
