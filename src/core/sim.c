/* The event loop. It owns the clock and the queue and knows nothing of the model: each
 * popped event goes to the one dispatch callback, which may schedule and cancel freely
 * (the event is off the queue before dispatch is called). */
#include "sim.h"

#include <stdlib.h>

#include "sim_assert.h"

#define SIM_QUEUE_CAPACITY_HINT 1024 /* grows geometrically beyond this */

struct Sim {
    EventQueue *queue;
    SimTimeUs now;
    uint64_t events_processed;
    SimDispatch dispatch;
    void *context;
};

Sim *sim_create(SimDispatch dispatch, void *context)
{
    SIM_ASSERT(dispatch != NULL, "a simulation needs a dispatch callback");
    Sim *sim = sim_xcalloc(1, sizeof(Sim));
    sim->queue = event_queue_create(SIM_QUEUE_CAPACITY_HINT);
    sim->dispatch = dispatch;
    sim->context = context;
    return sim;
}

void sim_destroy(Sim *sim)
{
    if (sim == NULL)
        return;
    event_queue_destroy(sim->queue);
    free(sim);
}

SimTimeUs sim_now(const Sim *sim)
{
    return sim->now;
}

uint64_t sim_events_processed(const Sim *sim)
{
    return sim->events_processed;
}

size_t sim_pending(const Sim *sim)
{
    return event_queue_size(sim->queue);
}

size_t sim_peak_pending(const Sim *sim)
{
    return event_queue_peak_size(sim->queue);
}

EventId sim_schedule_at(Sim *sim, SimTimeUs at_us, uint32_t kind, uint32_t target, uint64_t arg)
{
    SIM_ASSERT(at_us >= sim->now, "event scheduled in the past");
    return event_queue_push(sim->queue, at_us, kind, target, arg);
}

EventId sim_schedule_in(Sim *sim, SimTimeUs delay_us, uint32_t kind, uint32_t target, uint64_t arg)
{
    SIM_ASSERT(delay_us <= SIM_TIME_NEVER - sim->now, "event time overflows");
    return sim_schedule_at(sim, sim->now + delay_us, kind, target, arg);
}

bool sim_cancel(Sim *sim, EventId id)
{
    return event_queue_cancel(sim->queue, id);
}

static void run_event(Sim *sim, const Event *event)
{
    sim->now = event->at_us;
    sim->events_processed++;
    sim->dispatch(sim->context, event);
}

bool sim_step(Sim *sim)
{
    Event event;
    if (!event_queue_pop(sim->queue, &event))
        return false;
    run_event(sim, &event);
    return true;
}

uint64_t sim_run_until(Sim *sim, SimTimeUs until_us)
{
    uint64_t ran = 0;
    Event event;
    while (event_queue_pop_until(sim->queue, until_us, &event)) {
        run_event(sim, &event);
        ran++;
    }
    if (until_us > sim->now)
        sim->now = until_us;
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
    return event_queue_peek_time(sim->queue, &next_us) ? next_us : SIM_TIME_NEVER;
}

size_t sim_memory_bytes(const Sim *sim)
{
    return sizeof *sim + event_queue_memory_bytes(sim->queue);
}

uint64_t sim_run_bounded(Sim *sim, SimTimeUs until_us, uint64_t max_events)
{
    uint64_t ran = 0;
    Event event;
    while (ran < max_events && event_queue_pop_until(sim->queue, until_us, &event)) {
        run_event(sim, &event);
        ran++;
    }
    return ran;
}
