/* The server: workers with a FIFO queue in front, the idempotency store, the handlers of
 * every operation kind and the ledger they change. With the store, the algorithm is the
 * one of the Idempotency-Key draft: reserve the key before the side effect, replay a
 * completed key's stored response, refuse a key still processing (409 or 202) and a key
 * reused with another body (422). The wrong ways (check-then-insert, execute-then-save)
 * are the same steps in another order, so their race windows are real, not a flag. */
#include <stdlib.h>

#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

/* ------------------------------------------------------------------ jobs and workers */

static uint32_t job_alloc(World *world, const Message *request)
{
    return world_job_alloc(world, request, world->server.epoch);
}

bool server_job_alive(const World *world, uint32_t job, uint64_t serial)
{
    return job < world->job_capacity && world->jobs[job].serial == serial &&
           world->jobs[job].epoch == world->server.epoch;
}

/* A job whose server crashed meanwhile: its pending event only frees it. */
static bool job_died_in_crash(World *world, uint32_t job)
{
    if (world->jobs[job].epoch == world->server.epoch)
        return false;
    world_job_release(world, job);
    return true;
}

static bool start_job(World *world, uint32_t job);

/* A worker is done with its job: give it the next waiting ones. A loop, not a recursion:
 * a queue of requests answered straight from the key store would otherwise nest one call
 * per request. */
static void finish_job(World *world, uint32_t job)
{
    Server *server = &world->server;
    world_job_release(world, job);
    server->busy--;
    while (server->queue.length > 0) {
        uint32_t next = index_queue_pop(&server->queue);
        server->busy++;
        if (!start_job(world, next))
            return; /* it is running now */
        world_job_release(world, next);
        server->busy--;
    }
}

/* ------------------------------------------------------------------ answers */

static void respond(World *world, const Message *request, int status, uint64_t response_of)
{
    Message response = *request;
    response.kind = MESSAGE_RESPONSE;
    response.hop = HOP_RESPONSE;
    response.source = request->target;
    response.target = request->source;
    response.status = status;
    response.response_of = response_of;
    switch (status) {
    case 409:
        world->metrics.status_409++;
        break;
    case 422:
        world->metrics.status_422++;
        break;
    case 400:
        world->metrics.status_400++;
        break;
    case 202:
        world->metrics.status_202++;
        break;
    default:
        break;
    }
    network_send(world, &response);
}

/* ------------------------------------------------------------------ handlers and ledger */

/* Runs the operation's handler against the world's state; returns the status it answers.
 * Each handler has its real semantics: some change state every time, some only once. */
int server_apply_effect(World *world, const Message *request, uint32_t actor)
{
    uint64_t operation = request->operation;
    Operation *op = world_operation(world, operation);
    const ClientGroupSpec *spec = world->groups[world->clients[op->client].group].spec;
    bool effect = false;
    int status = 200;
    switch (spec->operation.kind) {
    case OPERATION_DEBIT:
        world->balances[spec->account] -= spec->operation.amount;
        world->metrics.balances[spec->account].actual = world->balances[spec->account];
        effect = true;
        break;
    case OPERATION_SET_STATUS: /* idempotent by state: the second run changes nothing */
        effect = op->resource_state == 0;
        op->resource_state = 1;
        break;
    case OPERATION_DELETE: /* idempotent by state, not by response: 204, then 404 */
        effect = op->resource_state == 0;
        op->resource_state = 1;
        status = effect || world->scenario.server.delete_always_204 ? 204 : 404;
        break;
    case OPERATION_INSERT: /* no unique key: a new row every time */
        effect = true;
        status = 201;
        break;
    case OPERATION_INSERT_UNIQUE:
        effect = op->resource_state == 0;
        op->resource_state = 1;
        status = effect ? 201 : 409;
        break;
    case OPERATION_SEND_EMAIL:
        effect = true;
        world->metrics.emails_sent++;
        break;
    case OPERATION_INCREMENT: /* a PUT whose handler adds one: not idempotent */
        effect = true;
        break;
    case OPERATION_KIND_COUNT:
        break;
    }
    if (effect) {
        op->effects++;
        world->metrics.effects++;
        if (op->effects >= 2) {
            world->metrics.doubles_so_far += op->effects == 2;
            world->metrics.double_amount_so_far +=
                spec->operation.kind == OPERATION_DEBIT ? spec->operation.amount : 0;
        }
        if (world->scenario.server.publish_receipts && spec->operation.kind == OPERATION_DEBIT)
            broker_publish_receipt(world, request);
    }
    if (world_tracing(world))
        world_trace_about(world, actor, effect ? TRACE_EXECUTE : TRACE_EXECUTE_NO_EFFECT, request,
                          status, 0);
    return status;
}

/* ------------------------------------------------------------------ the key store */

static void record_result(World *world, const Job *job, int status);

static SimTimeUs expiry_from(const World *world, SimTimeUs start_us)
{
    double ttl_ms = world->scenario.server.idempotency.ttl_ms;
    return ttl_ms > 0 ? start_us + sim_time_us_from_ms(ttl_ms) : SIM_TIME_NEVER;
}

static void reserve_key(World *world, Job *job, ReserveReason why)
{
    SimTimeUs now = sim_now(world->sim);
    job->reserved = true;
    job->reserved_us = now;
    KeyRow row = {
        .key = job->store_key,
        .status = KEY_STATUS_PROCESSING,
        .fingerprint = job->request.fingerprint,
        .created_us = now,
        .expires_us = expiry_from(world, now),
    };
    idem_store_put(world->server.store, &row);
    world_note_key_store(world);
    if (world_tracing(world))
        world_trace_about(world, world->server_node, TRACE_RESERVE, &job->request, 0, why);
}

void server_record_result(World *world, const Message *request, uint64_t store_key, int status)
{
    Job job = {.request = *request, .store_key = store_key};
    record_result(world, &job, status);
}

static void record_result(World *world, const Job *job, int status)
{
    const IdempotencySpec *policy = &world->scenario.server.idempotency;
    IdemStore *store = world->server.store;
    SimTimeUs now = sim_now(world->sim);
    bool failed = status >= 500;
    /* The stripe profile records whatever execution produced, errors included (DESIGN §2);
     * the other profiles follow on_failure. */
    FailurePolicy on_failure =
        policy->profile == PROFILE_STRIPE ? ON_FAILURE_MARK_FAILED : policy->on_failure;
    if (failed && on_failure == ON_FAILURE_DELETE) {
        idem_store_remove(store, job->store_key);
        world_note_key_store(world);
        return;
    }
    if (failed && on_failure == ON_FAILURE_KEEP)
        return; /* the failure is not recorded: the row stays as it was */
    /* The TTL counts from the reservation, so a key that expired while its request ran is
     * recorded already expired, not given a new life. Without a reservation of this job's
     * own (execute-then-save, or the outbox relay completing one), the row it finds is the
     * reservation, expired or not; without any, the TTL counts from now. */
    SimTimeUs created_us = now;
    if (job->reserved) {
        created_us = job->reserved_us;
    } else {
        const KeyRow *reservation = idem_store_find_any(store, job->store_key);
        if (reservation != NULL)
            created_us = reservation->created_us;
    }
    KeyRow row = {
        .key = job->store_key,
        .status = failed ? KEY_STATUS_FAILED : KEY_STATUS_COMPLETED,
        .response_status = status,
        .response_of = job->request.operation,
        .fingerprint = job->request.fingerprint,
        .created_us = created_us,
        .expires_us =
            expiry_from(world, policy->ttl_from == TTL_FROM_COMPLETION ? now : created_us),
    };
    idem_store_put(store, &row);
    world_note_key_store(world);
}

static int fingerprint_mismatch_status(StoreProfile profile)
{
    switch (profile) {
    case PROFILE_STRIPE:
        return 400;
    case PROFILE_BRANDUR:
        return 409;
    case PROFILE_IETF:
        break;
    }
    return 422;
}

/* Answers a request whose key already has a live row. */
static void answer_from_row(World *world, const Job *job, const KeyRow *row)
{
    const IdempotencySpec *policy = &world->scenario.server.idempotency;
    const Message *request = &job->request;
    if (policy->fingerprint && row->fingerprint != request->fingerprint) {
        respond(world, request, fingerprint_mismatch_status(policy->profile), request->operation);
        if (world_tracing(world))
            world_trace_about(world, world->server_node, TRACE_REJECT_OTHER_BODY, request,
                              fingerprint_mismatch_status(policy->profile), 0);
        return;
    }
    if (row->status == KEY_STATUS_PROCESSING) {
        respond(world, request, policy->on_in_progress, request->operation);
        if (world_tracing(world))
            world_trace_about(world, world->server_node, TRACE_IN_PROGRESS, request,
                              policy->on_in_progress, 0);
        return;
    }
    world->metrics.replayed++;
    respond(world, request, row->response_status, row->response_of);
    if (world_tracing(world))
        world_trace_about(world, world->server_node, TRACE_REPLAY, request, row->response_status,
                          0);
}

/* ------------------------------------------------------------------ request flow */

static void execute_later(World *world, uint32_t job)
{
    const Message *request = &world->jobs[job].request;
    SimTimeUs service = distribution_sample_ms_as_us(
        &world->scenario.server.service_ms, world_draw_about(world, DRAW_SERVICE, request));
    sim_schedule_in(world->sim, service, EVENT_JOB_DONE, 0, job);
}

static uint64_t store_key_of(World *world, const Message *request)
{
    if (!world->server.uses_store)
        return 0;
    const ClientGroupSpec *spec = world->groups[world->clients[request->client].group].spec;
    if (spec->key == KEY_SERVER_GENERATED)
        return ++world->server.generated_keys; /* fresh per request: never matches a retry */
    return request->key;
}

/* Answers 400 to a request without a key when the store requires one. */
static bool refuse_keyless(World *world, const Job *job)
{
    if (!world->server.uses_store || job->store_key != 0 ||
        !world->scenario.server.idempotency.required)
        return false;
    respond(world, &job->request, 400, job->request.operation);
    if (world_tracing(world))
        world_trace_about(world, world->server_node, TRACE_REJECT_MISSING_KEY, &job->request, 400,
                          0);
    return true;
}

/* Starts a job a worker took. True when it was answered at once (from the key store): the
 * caller then frees the worker. */
static bool start_job(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    job->store_key = store_key_of(world, &job->request);
    if (refuse_keyless(world, job))
        return true;
    if (job->store_key == 0) {
        execute_later(world, job_slot);
        return false;
    }
    const IdempotencySpec *policy = &world->scenario.server.idempotency;
    SimTimeUs now = sim_now(world->sim);
    KeyRow *row = idem_store_lookup(world->server.store, job->store_key, now);
    ReserveReason why = row == NULL && idem_store_find_any(world->server.store, job->store_key)
                            ? RESERVE_REASON_EXPIRED
                            : RESERVE_REASON_NEW;
    if (row != NULL && row->status == KEY_STATUS_PROCESSING && policy->lock_timeout_ms > 0 &&
        now - row->created_us >= sim_time_us_from_ms(policy->lock_timeout_ms)) {
        row = NULL; /* a reservation abandoned (by a crash) is taken over after the lock timeout */
        why = RESERVE_REASON_TAKEOVER;
    }
    if (row != NULL) {
        answer_from_row(world, job, row);
        return true;
    }
    switch (policy->reserve) {
    case RESERVE_ATOMIC:
        reserve_key(world, job, why);
        execute_later(world, job_slot);
        break;
    case RESERVE_CHECK_THEN_INSERT:
        sim_schedule_in(world->sim, sim_time_us_from_ms(policy->race_window_ms), EVENT_JOB_RESERVE,
                        0, job_slot);
        break;
    case RESERVE_EXECUTE_THEN_SAVE:
        execute_later(world, job_slot);
        break;
    }
    return false;
}

void server_on_request(World *world, const Message *request)
{
    Server *server = &world->server;
    if (server->down) {
        world->metrics.network_dropped++; /* connection refused: the server is not there */
        if (world_tracing(world))
            world_trace_about(world, world->server_node, TRACE_REFUSED_DOWN, request, 0, 0);
        return;
    }
    uint32_t job = job_alloc(world, request);
    if (server->workers != 0 && server->busy >= server->workers) {
        index_queue_push(&server->queue, job);
        return;
    }
    server->busy++;
    if (start_job(world, job))
        finish_job(world, job);
}

/* check-then-insert: the check found no row; the insert comes a race window later,
 * whatever another request did meanwhile. */
void server_on_job_reserve(World *world, uint32_t job)
{
    if (job_died_in_crash(world, job))
        return;
    reserve_key(world, &world->jobs[job], RESERVE_REASON_AFTER_RACE_WINDOW);
    execute_later(world, job);
}

/* ------------------------------------------------------------------ execution and crashes */

static bool draw_crash(World *world, const Job *job, CrashPoint point)
{
    const CrashSpec *crash = &world->scenario.server.crash;
    if (crash->max_crashes > 0 && world->server.crashes >= crash->max_crashes)
        return false;
    return crash->point == point &&
           world_chance_about(world, DRAW_CRASH, &job->request, crash->prob);
}

/* Everything in flight dies with the process; what is durable stays. */
static void crash(World *world, CrashPoint where, uint64_t operation)
{
    Server *server = &world->server;
    world->metrics.crashes++;
    world->server.crashes++;
    if (world_tracing(world))
        world_trace(world, world->server_node, TRACE_CRASH, operation, 0, where);
    server->down = true;
    server->epoch++;
    while (server->queue.length > 0)
        world_job_release(world, index_queue_pop(&server->queue));
    server->busy = 0;
    if (!world->scenario.server.idempotency.durable) {
        idem_store_clear(server->store);
        world_note_key_store(world);
    }
    SimTimeUs restart = sim_time_us_from_ms(world->scenario.server.crash.restart_ms);
    sim_schedule_in(world->sim, restart, EVENT_SERVER_RESTART, 0, 0);
}

void server_on_restart(World *world)
{
    world->server.down = false;
    if (world_tracing(world))
        world_trace(world, world->server_node, TRACE_RESTART, 0, 0, 0);
    gateway_resume_outbox(world);
}

void server_complete_job(World *world, uint32_t job_slot, int status)
{
    Job *job = &world->jobs[job_slot];
    if (job->store_key != 0)
        record_result(world, job, status);
    if (draw_crash(world, job, CRASH_AFTER_COMPLETION)) {
        crash(world, CRASH_AFTER_COMPLETION, job->request.operation);
        world_job_release(world, job_slot);
        return;
    }
    respond(world, &job->request, status, job->request.operation);
    finish_job(world, job_slot);
}

void server_after_effect(World *world, uint32_t job_slot, int status)
{
    Job *job = &world->jobs[job_slot];
    if (status < 500 && world_chance_about(world, DRAW_FAIL_AFTER_EFFECT, &job->request,
                                           world->scenario.server.fail_after_effect)) {
        status = 500; /* the side effect happened, then the handler failed */
        if (world_tracing(world))
            world_trace_about(world, world->server_node, TRACE_FAIL_AFTER_EFFECT, &job->request,
                              500, 0);
    }
    if (draw_crash(world, job, CRASH_AFTER_EFFECT)) {
        crash(world, CRASH_AFTER_EFFECT, job->request.operation);
        world_job_release(world, job_slot);
        return;
    }
    server_complete_job(world, job_slot, status);
}

static bool charges_through_gateway(const World *world, const Job *job)
{
    const ClientGroupSpec *spec = world->groups[world->clients[job->request.client].group].spec;
    return world->scenario.server.use_gateway && spec->operation.kind == OPERATION_DEBIT;
}

void server_on_job_done(World *world, uint32_t job_slot)
{
    if (job_died_in_crash(world, job_slot))
        return;
    Job *job = &world->jobs[job_slot];
    world->metrics.executions++;
    if (draw_crash(world, job, CRASH_BEFORE_EFFECT)) {
        crash(world, CRASH_BEFORE_EFFECT, job->request.operation);
        world_job_release(world, job_slot);
        return;
    }
    if (world_chance_about(world, DRAW_FAIL_BEFORE_EFFECT, &job->request,
                           world->scenario.server.fail_before_effect)) {
        server_complete_job(world, job_slot, 500);
        return;
    }
    if (charges_through_gateway(world, job)) {
        gateway_request_charge(world, job_slot);
        return;
    }
    server_after_effect(world, job_slot,
                        server_apply_effect(world, &job->request, world->server_node));
}

void server_on_gateway_reply(World *world, const Message *reply)
{
    if (reply->from_outbox) {
        gateway_on_outbox_reply(world, reply);
        return;
    }
    if (!server_job_alive(world, reply->job, reply->job_serial) ||
        !world->jobs[reply->job].awaiting_gateway)
        return; /* the server gave up on this charge, or crashed since */
    Job *job = &world->jobs[reply->job];
    sim_cancel(world->sim, job->gateway_timer);
    job->awaiting_gateway = false;
    if (reply->status >= 500)
        server_complete_job(world, reply->job, 502);
    else
        server_after_effect(world, reply->job, 200);
}

/* The gateway did not answer in time: the charge may or may not have happened. */
void server_on_gateway_timeout(World *world, uint32_t job_slot)
{
    if (job_died_in_crash(world, job_slot))
        return;
    Job *job = &world->jobs[job_slot];
    job->awaiting_gateway = false;
    job->gateway_timer = EVENT_ID_NONE;
    if (world_tracing(world))
        world_trace_about(world, world->server_node, TRACE_GATEWAY_TIMEOUT, &job->request, 504, 0);
    server_complete_job(world, job_slot, 504);
}

/* ------------------------------------------------------------------ cleanup sweep */

static SimTimeUs sweep_interval_us(const World *world)
{
    return sim_time_us_from_ms(world->scenario.server.idempotency.cleanup_interval_ms);
}

void server_on_store_sweep(World *world)
{
    size_t freed = idem_store_sweep(world->server.store, sim_now(world->sim));
    world_note_key_store(world);
    if (freed > 0 && world_tracing(world))
        world_trace(world, world->server_node, TRACE_SWEEP, 0, (int64_t)freed, 0);
    world_reschedule_sweep(world, STORE_SERVER, sweep_interval_us(world));
}

void server_init(World *world)
{
    Server *server = &world->server;
    server->workers = world->scenario.server.workers;
    server->uses_store = world->mode == MODE_IDEMPOTENT;
    server->store = idem_store_create(1024);
    gateway_init(world);
    if (server->uses_store && sweep_interval_us(world) > 0)
        world_start_sweep(world, STORE_SERVER, sweep_interval_us(world));
}

void server_release(World *world)
{
    gateway_release(world);
    idem_store_destroy(world->server.store);
    index_queue_release(&world->server.queue);
}
