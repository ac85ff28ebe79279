/* Deadlines carried to the server (server.deadline, C31). A client that gives up on an
 * attempt at its timeout hangs up, but without a deadline the server cannot know: the work
 * waits in the queue, holds a worker, charges, and answers nobody, while the client's retry
 * may be running beside it. gRPC carries the time left as the grpc-timeout header, and the
 * server counts its own deadline from the request's arrival: it ends one network delay
 * after the client's, so a little work still lands after the client gave up. `drop` is a
 * handler that looks at its deadline when a worker takes the job and again before its
 * effect (a context checked before the charge); `ignored` carries the header and looks at
 * nothing, so the reports can count what was done for nobody.
 * Rejected: dropping a job already past its effect (the money has moved, and what is left
 * is to answer), and a deadline over a whole click's retries (gRPC's call deadline): the
 * client here times out per attempt, and that attempt's timeout is what it waits for. */
#include "world_internal.h"

void deadline_stamp(const World *world, Message *request, SimTimeUs timeout_us)
{
    if (world->scenario.server.deadline == DEADLINE_NONE)
        return;
    SIM_ASSERT(timeout_us <= UINT32_MAX, "the loader bounds a timeout sent as a deadline");
    request->timeout_us = (uint32_t)timeout_us;
}

void deadline_arrive(const World *world, Job *job)
{
    job->deadline_us =
        job->request.timeout_us == 0 ? 0 : sim_now(world->sim) + job->request.timeout_us;
}

bool deadline_passed(World *world, const Job *job, uint32_t actor, int at)
{
    if (job->deadline_us == 0 || server_at(world, actor)->spec->deadline != DEADLINE_DROP ||
        sim_now(world->sim) < job->deadline_us)
        return false;
    world->metrics.deadline_drops++;
    if (world_tracing(world))
        world_trace_about(world, actor, TRACE_DEADLINE_DROP, &job->request, at, 0);
    return true;
}

/* The client hung up on this attempt: its timeout passed (it has no answer to wait for, or
 * it has sent a later attempt), or the click is over. The world knows; the server does not. */
static bool caller_gave_up(World *world, const Message *request)
{
    const ClickState *state = &world_operation(world, request->operation)->clicks[request->click];
    return !state->active || state->attempts != request->attempt || !state->awaiting_answer;
}

void deadline_note_effect(World *world, const Job *job, uint32_t actor)
{
    if (job->request.timeout_us == 0 || !caller_gave_up(world, &job->request))
        return;
    world->metrics.work_after_deadline++;
    if (world_tracing(world)) {
        const Operation *op = world_operation(world, job->request.operation);
        const ClickState *state = &op->clicks[job->request.click];
        world_trace_about(world, actor, TRACE_AFTER_DEADLINE, &job->request,
                          state->active ? state->attempts : 0, 0);
    }
}
