/* The consumer group: workers take delivered messages in order (a buffer holds what the
 * broker prefetched to them), run the operation's handler, and acknowledge over the lossy
 * consumers->broker link. Service time grows with load: it is multiplied by
 * 1 + per_inflight x (messages held by the group) + per_queued x (broker queue depth).
 * In the idempotent mode the group keeps a key store, keyed by message id or a business
 * key: the key is reserved when a worker picks the message up, a message whose key is still
 * processing is left unacknowledged (the broker will redeliver it), a completed key is
 * acknowledged without running the handler again. */
#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

static const IdempotencySpec *policy_of(const World *world)
{
    return &world->scenario.broker.consumers.idempotency;
}

void consumers_init(World *world)
{
    Consumers *consumers = &world->consumers;
    consumers->workers = world->scenario.broker.consumers.workers;
    consumers->uses_store = world->mode == MODE_IDEMPOTENT;
    consumers->store = idem_store_create(1024);
    SimTimeUs interval = sim_time_us_from_ms(policy_of(world)->cleanup_interval_ms);
    if (consumers->uses_store && interval > 0)
        world_start_sweep(world, STORE_CONSUMERS, interval);
}

void consumers_release(World *world)
{
    index_queue_release(&world->consumers.buffer);
    idem_store_destroy(world->consumers.store);
}

void consumers_on_store_sweep(World *world)
{
    size_t freed = idem_store_sweep(world->consumers.store, sim_now(world->sim));
    world_note_key_store(world);
    if (freed > 0 && world_tracing(world))
        world_trace(world, world->consumers_node, TRACE_SWEEP, 0, (int64_t)freed, 0);
    world_reschedule_sweep(world, STORE_CONSUMERS,
                           sim_time_us_from_ms(policy_of(world)->cleanup_interval_ms));
}

uint32_t consumers_held(const World *world)
{
    return world->consumers.busy + world->consumers.buffer.length;
}

static uint64_t store_key_of(const World *world, const Message *delivery)
{
    return policy_of(world)->key == KEY_BUSINESS_HASH ? delivery->business_key : delivery->key;
}

/* ------------------------------------------------------------------ workers */

static void start_job(World *world, uint32_t job);

static void finish_job(World *world, uint32_t job)
{
    Consumers *consumers = &world->consumers;
    world_job_release(world, job);
    consumers->busy--;
    if (consumers->buffer.length > 0) {
        consumers->busy++;
        start_job(world, index_queue_pop(&consumers->buffer));
    }
}

static void acknowledge(World *world, const Message *delivery)
{
    if (!world->broker.manual_ack)
        return;
    Message ack = *delivery;
    ack.kind = MESSAGE_ACK;
    ack.hop = HOP_ACK;
    ack.source = world->consumers_node;
    ack.target = world->broker_node;
    network_send(world, &ack);
}

static void schedule_service(World *world, uint32_t job_slot)
{
    const ConsumerSpec *spec = &world->scenario.broker.consumers;
    const Message *delivery = &world->jobs[job_slot].request;
    double load = 1.0 + spec->load_per_inflight * consumers_held(world) +
                  spec->load_per_queued * (double)world->broker.ready_total;
    SimTimeUs base = distribution_sample_ms_as_us(
        &spec->service_ms, world_draw_about(world, DRAW_CONSUMER_SERVICE, delivery));
    sim_schedule_in(world->sim, sim_time_us_clamped((double)base * load + 0.5), EVENT_CONSUMER_DONE,
                    0, job_slot);
}

/* Decides with the key store when the worker picks the message up; true: run it. */
static bool admit(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    const Message *delivery = &job->request;
    const IdempotencySpec *policy = policy_of(world);
    SimTimeUs now = sim_now(world->sim);
    job->store_key = store_key_of(world, delivery);
    KeyRow *row = idem_store_lookup(world->consumers.store, job->store_key, now);
    if (row != NULL && row->status == KEY_STATUS_PROCESSING && policy->lock_timeout_ms > 0 &&
        now - row->created_us >= sim_time_us_from_ms(policy->lock_timeout_ms))
        row = NULL; /* abandoned by a crashed worker: take it over */
    if (row == NULL) {
        if (policy->reserve != RESERVE_EXECUTE_THEN_SAVE) {
            KeyRow reserved = {.key = job->store_key,
                               .status = KEY_STATUS_PROCESSING,
                               .fingerprint = delivery->fingerprint,
                               .created_us = now,
                               .expires_us = policy->ttl_ms > 0
                                                 ? now + sim_time_us_from_ms(policy->ttl_ms)
                                                 : SIM_TIME_NEVER};
            idem_store_put(world->consumers.store, &reserved);
            world_note_key_store(world);
        }
        return true;
    }
    TraceEvent decision = TRACE_IN_PROGRESS;
    if (policy->fingerprint && row->fingerprint != delivery->fingerprint) {
        world->metrics.status_422++;
        acknowledge(world, delivery); /* a poison message: never run it */
        decision = TRACE_REJECT_OTHER_BODY;
    } else if (row->status != KEY_STATUS_PROCESSING) {
        world->metrics.consumer_replayed++;
        world->metrics.replayed++;
        acknowledge(world, delivery);
        decision = TRACE_REPLAY;
    }
    if (world_tracing(world))
        world_trace_about(world, world->consumers_node, decision, delivery, 0, 0);
    return false;
}

static void start_job(World *world, uint32_t job_slot)
{
    if (world->consumers.uses_store && !admit(world, job_slot)) {
        finish_job(world, job_slot);
        return;
    }
    schedule_service(world, job_slot);
}

void consumers_on_delivery(World *world, const Message *delivery)
{
    Consumers *consumers = &world->consumers;
    if (consumers->down) {
        world->metrics.network_dropped++; /* refused: nobody is listening */
        if (world_tracing(world))
            world_trace_about(world, world->consumers_node, TRACE_REFUSED_DOWN, delivery, 0, 0);
        return;
    }
    uint32_t job = world_job_alloc(world, delivery, consumers->epoch);
    if (consumers->workers != 0 && consumers->busy >= consumers->workers) {
        index_queue_push(&consumers->buffer, job);
        return;
    }
    consumers->busy++;
    start_job(world, job);
}

/* ------------------------------------------------------------------ crashes */

static bool draw_crash(World *world, const Job *job, CrashPoint point)
{
    const CrashSpec *crash = &world->scenario.broker.consumers.crash;
    if (crash->point != point || crash->prob <= 0)
        return false;
    if (crash->max_crashes > 0 && world->consumers.crashes >= crash->max_crashes)
        return false;
    return world_chance_about(world, DRAW_CONSUMER_CRASH, &job->request, crash->prob);
}

/* The consumer process dies: what it held is gone, unacknowledged. */
static void crash(World *world, uint32_t job_slot, CrashPoint where)
{
    Consumers *consumers = &world->consumers;
    world->metrics.crashes++;
    world->consumers.crashes++;
    if (world_tracing(world))
        world_trace(world, world->consumers_node, TRACE_CRASH,
                    world->jobs[job_slot].request.operation, 0, where);
    world_job_release(world, job_slot);
    while (consumers->buffer.length > 0)
        world_job_release(world, index_queue_pop(&consumers->buffer));
    consumers->busy = 0;
    consumers->down = true;
    consumers->epoch++;
    if (!policy_of(world)->durable) {
        idem_store_clear(consumers->store);
        world_note_key_store(world);
    }
    sim_schedule_in(world->sim,
                    sim_time_us_from_ms(world->scenario.broker.consumers.crash.restart_ms),
                    EVENT_CONSUMER_RESTART, 0, 0);
}

void consumers_on_restart(World *world)
{
    world->consumers.down = false;
    if (world_tracing(world))
        world_trace(world, world->consumers_node, TRACE_RESTART, 0, 0, 0);
}

/* ------------------------------------------------------------------ running a message */

static void record_completion(World *world, const Job *job, int status)
{
    const IdempotencySpec *policy = policy_of(world);
    SimTimeUs now = sim_now(world->sim);
    KeyRow row = {.key = job->store_key,
                  .status = KEY_STATUS_COMPLETED,
                  .response_status = status,
                  .response_of = job->request.operation,
                  .fingerprint = job->request.fingerprint,
                  .created_us = now,
                  .expires_us = policy->ttl_ms > 0 ? now + sim_time_us_from_ms(policy->ttl_ms)
                                                   : SIM_TIME_NEVER};
    const KeyRow *reserved = idem_store_lookup(world->consumers.store, job->store_key, now);
    if (reserved != NULL && policy->ttl_from == TTL_FROM_RESERVATION) {
        row.created_us = reserved->created_us;
        row.expires_us = reserved->expires_us;
    }
    idem_store_put(world->consumers.store, &row);
    world_note_key_store(world);
}

static int send_receipt(World *world, const Message *event)
{
    world_operation(world, event->operation)->receipts++;
    if (world_tracing(world))
        world_trace_about(world, world->consumers_node, TRACE_SEND_RECEIPT, event,
                          world_operation(world, event->operation)->receipts, 0);
    return 200;
}

void consumers_on_job_done(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    if (job->epoch != world->consumers.epoch) {
        world_job_release(world, job_slot); /* its process died meanwhile */
        return;
    }
    world->metrics.executions++;
    if (draw_crash(world, job, CRASH_BEFORE_EFFECT)) {
        crash(world, job_slot, CRASH_BEFORE_EFFECT);
        return;
    }
    int status = job->request.receipt
                     ? send_receipt(world, &job->request)
                     : server_apply_effect(world, &job->request, world->consumers_node);
    if (draw_crash(world, job, CRASH_AFTER_EFFECT)) {
        crash(world, job_slot, CRASH_AFTER_EFFECT);
        return;
    }
    if (world->consumers.uses_store)
        record_completion(world, job, status);
    if (draw_crash(world, job, CRASH_AFTER_COMPLETION)) {
        crash(world, job_slot, CRASH_AFTER_COMPLETION);
        return;
    }
    acknowledge(world, &job->request);
    finish_job(world, job_slot);
}
