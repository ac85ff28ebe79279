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

void deadline_stamp(const World *world, Message *request, SimTimeUs sent_us, SimTimeUs timeout_us)
{
    if (world->scenario.server.deadline == DEADLINE_NONE)
        return;
    request->timeout_us = timeout_us; /* a library's replay sends the same header again */
    request->deadline_us = sent_us + timeout_us;
}

void deadline_arrive(const World *world, Job *job)
{
    job->deadline_us =
        job->request.deadline_us == 0 ? 0 : sim_now(world->sim) + job->request.timeout_us;
}

bool deadline_passed(World *world, const Job *job, uint32_t actor, int at)
{
    if (world->scenario.server.deadline != DEADLINE_DROP || job->deadline_us == 0 ||
        sim_now(world->sim) < job->deadline_us)
        return false;
    world->metrics.deadline_drops++;
    if (world_tracing(world))
        world_trace_about(world, actor, TRACE_DEADLINE_DROP, &job->request, at, 0);
    return true;
}

void deadline_note_effect(World *world, const Job *job, uint32_t actor)
{
    SimTimeUs now = sim_now(world->sim);
    if (job->request.deadline_us == 0 || now < job->request.deadline_us)
        return;
    world->metrics.work_after_deadline++;
    if (world_tracing(world))
        world_trace_about(world, actor, TRACE_AFTER_DEADLINE, &job->request,
                          (int64_t)((now - job->request.deadline_us) / SIM_US_PER_MS), 0);
}
