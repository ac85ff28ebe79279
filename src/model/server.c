/* The server: workers with a FIFO queue in front, its idempotency keys (key_protocol.c),
 * the handler run against the ledger (or a charge sent to the gateway, server_charge.c),
 * crash points and restarts. The key protocol decides; the server answers: the stored
 * response on a replay, 409 or 202 while a key is processing, 422 (or the profile's status)
 * for a key reused with another body, 400 for a missing key where one is required. */
#include <stdlib.h>

#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

/* ------------------------------------------------------------------ instances */

/* The instance of a server service a request goes to (the clients' server's, or a called
 * server's): its balancer's pick (balancer.c), or with balancer_retry the next instance that
 * is up when that one is down. The request's target is the service's node, whose actor is
 * its first instance. */
uint32_t server_route(World *world, const Message *request)
{
    const WorldNode *service = &world->nodes[request->target];
    Server *first = &world->servers[service->actor];
    uint32_t count = service->instance_count;
    uint32_t pick =
        balancer_pick(world, first->spec->balancer, request, count, &first->balancer_turn);
    if (first->spec->balancer_retry == BALANCER_RETRY_CONNECT_FAILURE && first[pick].down) {
        /* the connection is refused: the next instance that is up, in the instances' order */
        for (uint32_t k = 1; k < count; k++) {
            uint32_t next = (pick + k) % count;
            if (!first[next].down) {
                world->metrics.balancer_retries++;
                return first[next].node;
            }
        }
    }
    return first[pick].node;
}

/* retry_host "other" (a proxy's, a call step's): the instance of the server service at
 * request->target this try goes to. The balancer picks as for any request; an instance the
 * request has tried already (bit i of *tried) gives way to the next one it has not, in the
 * instances' order (NGINX passes a request to the next server; Envoy's previous_hosts
 * predicate has the balancer pick again), past a down one when the balancer sends on past
 * those. Once every instance has had a try, the balancer's pick stands. */
static uint32_t route_untried(World *world, const Message *request, uint8_t *tried)
{
    _Static_assert(SERVER_INSTANCES_MAX <= 8, "tried has a bit per instance");
    const WorldNode *service = &world->nodes[request->target];
    const Server *first = &world->servers[service->actor];
    uint32_t count = service->instance_count;
    uint32_t pick = world->nodes[server_route(world, request)].actor - service->actor;
    bool skips_down = first->spec->balancer_retry == BALANCER_RETRY_CONNECT_FAILURE;
    for (uint32_t k = 1; k < count && (*tried >> pick & 1u); k++) {
        uint32_t next = (pick + k) % count;
        if (!(*tried >> next & 1u) && !(skips_down && first[next].down)) {
            pick = next;
            break;
        }
    }
    *tried |= (uint8_t)(1u << pick);
    return first[pick].node;
}

void server_send_try(World *world, Message *message, uint8_t *tried)
{
    const WorldNode *target = &world->nodes[message->target];
    if (tried != NULL && target->kind == NODE_SERVER && target->instance_count > 1) {
        message->target = route_untried(world, message, tried);
        network_send_to_instance(world, message);
        return;
    }
    network_send(world, message);
}

/* ------------------------------------------------------------------ jobs and workers */

bool server_job_alive(const World *world, uint32_t job, uint64_t serial)
{
    if (job >= world->job_slots.capacity || world->jobs[job].serial != serial)
        return false;
    const WorldNode *node = &world->nodes[world->jobs[job].request.target];
    return world->jobs[job].epoch == world->servers[node->actor].epoch;
}

/* A job whose server crashed meanwhile: its pending event only frees it. */
bool server_job_died_in_crash(World *world, const Server *server, uint32_t job)
{
    if (world->jobs[job].epoch == server->epoch)
        return false;
    world_job_release(world, job);
    return true;
}

static bool start_job(World *world, Server *server, uint32_t job);

/* A worker is done with its job: give it the next waiting ones. A loop, not a recursion:
 * a queue of requests answered straight from the key store would otherwise nest one call
 * per request. */
static void finish_job(World *world, Server *server, uint32_t job)
{
    SIM_ASSERT(server->busy > 0, "a job finishes on a busy worker");
    world_job_release(world, job);
    server->busy--;
    while (server->queue.length > 0) {
        uint32_t next = index_queue_pop(&server->queue);
        server->busy++;
        if (!start_job(world, server, next))
            return; /* it is running now */
        world_job_release(world, next);
        server->busy--;
    }
}

/* ------------------------------------------------------------------ answers */

static void respond(World *world, const Server *server, const Message *request, int status,
                    uint64_t response_of)
{
    Message response;
    message_answer_into(&response, request, HOP_RESPONSE, status, response_of);
    connection_close_before_answer(world, server, &response); /* C32 */
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

/* ------------------------------------------------------------------ request flow */

static void execute_later(World *world, const Server *server, uint32_t job)
{
    const Message *request = &world->jobs[job].request;
    balance_update_read(world, &world->jobs[job]);
    SimTimeUs service = distribution_sample_ms_as_us(
        &server->spec->service_ms, world_draw_about(world, DRAW_SERVICE, request));
    sim_schedule_in(world->sim, service, EVENT_JOB_DONE, 0, job);
}

static uint32_t account_of(const World *world, uint64_t operation)
{
    uint32_t client = world_client_of_operation(world, operation);
    return world->groups[world->clients[client].group].spec->account;
}

static uint64_t store_key_of(World *world, const KeyProtocol *keys, const Message *request)
{
    if (!keys->enabled)
        return 0;
    const ClientGroupSpec *spec = world->groups[world->clients[request->client].group].spec;
    uint64_t key;
    if (world_sent_by_call_step(world, request)) {
        key = request->key; /* a service's call: the key its call step carries, as it is */
    } else {
        if (spec->key == KEY_SERVER_GENERATED)
            return ++world->generated_keys; /* fresh per request: never matches a retry */
        key = key_spelling_stored(world, keys->policy, request); /* bytes or normalised */
    }
    if (key != 0 && keys->policy->scope == SCOPE_ACCOUNT)
        return rng_mix64(key ^ rng_mix64(spec->account + 1)) | 1; /* the account's */
    return key;
}

/* Starts a job a worker took. True when it was answered at once (from the key store): the
 * caller then frees the worker. */
static bool start_job(World *world, Server *server, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    KeyProtocol *keys = server->keys;
    if (deadline_passed(world, job, server->node, DEADLINE_AT_START))
        return true; /* its caller gave up: not run, not answered */
    job->store_key = store_key_of(world, keys, &job->request);
    job->sent_key = job->store_key;
    KeyVerdict verdict = key_protocol_admit(world, keys, job);
    switch (verdict.kind) {
    case KEY_RUN:
        execute_later(world, server, job_slot);
        return false;
    case KEY_RUN_AFTER_RACE_WINDOW:
        sim_schedule_in(world->sim, sim_time_us_from_ms(keys->policy->race_window_ms),
                        EVENT_JOB_RESERVE, server->node, job_slot);
        return false;
    case KEY_REPLAY:
        server->counts->replayed++;
        if (account_of(world, verdict.response_of) != account_of(world, job->request.operation))
            world->metrics.leaks++; /* another user's stored answer: a data leak */
        respond(world, server, &job->request, verdict.status, verdict.response_of);
        break;
    case KEY_IN_PROGRESS:
    case KEY_OTHER_BODY:
    case KEY_MISSING:
    case KEY_STORE_DOWN: /* C38: fail closed, 503: the client may retry later */
        server->counts->refused++;
        respond(world, server, &job->request, verdict.status, job->request.operation);
        break;
    }
    key_protocol_trace_refusal(world, job, verdict, verdict.status);
    return true;
}

/* A connection reset (status SERVER_STATUS_RESET): the server's port is closed during its
 * scripted outage. The request did not run, or was killed running; its client cannot tell. */
static void reset(World *world, const Message *request)
{
    world->metrics.resets++;
    world_service_metrics(world, request->target)->refused++;
    Message answer = message_answer(request, HOP_RESPONSE, SERVER_STATUS_RESET, request->operation);
    network_send(world, &answer);
}

/* The queue is full: the request is refused before anything looks at it (no key lookup,
 * no reservation, no effect), with 429 or 503 and the Retry-After of server.shed. */
static void shed(World *world, const Server *server, const Message *request)
{
    const ShedSpec *spec = &server->spec->shed;
    world->metrics.shed++;
    world_service_metrics(world, request->target)->refused++;
    Message answer = message_answer(request, HOP_RESPONSE, spec->status, request->operation);
    answer.retry_after_us = sim_time_us_from_ms(spec->retry_after_ms);
    network_send(world, &answer);
}

void server_on_request(World *world, Server *server, const Message *request)
{
    if (server->down) {
        if (server->in_outage) {
            reset(world, request);
            return;
        }
        world->metrics.network_dropped++; /* connection refused: the server is not there */
        if (world_tracing(world))
            world_trace_about(world, server->node, TRACE_REFUSED_DOWN, request, 0, 0);
        return;
    }
    if (connection_stale_on_arrival(world, server, request))
        return; /* C32: its kept-alive connection was closed: never read */
    world_service_takes_in(world, server->counts, server->node, request->operation);
    SIM_ASSERT(server->workers == 0 || server->busy <= server->workers,
               "never more jobs running than workers");
    if (server->workers != 0 && server->busy >= server->workers) {
        if (server->queue.length >= server->spec->queue) {
            shed(world, server, request);
            return;
        }
        uint32_t waiting = world_job_alloc(world, request, server->epoch);
        deadline_arrive(world, &world->jobs[waiting]);
        index_queue_push(&server->queue, waiting);
        return;
    }
    uint32_t job = world_job_alloc(world, request, server->epoch);
    deadline_arrive(world, &world->jobs[job]);
    server->busy++;
    if (start_job(world, server, job))
        finish_job(world, server, job);
}

/* A status query: answered at once from the key store, without a worker (a cheap read),
 * and never reserving anything. */
void server_on_status_query(World *world, Server *server, const Message *query)
{
    if (server->down) {
        world->metrics.network_dropped++;
        if (world_tracing(world))
            world_trace_about(world, server->node, TRACE_REFUSED_DOWN, query, 0, 0);
        return;
    }
    KeyVerdict verdict = key_protocol_status(
        world, server->keys, key_spelling_stored(world, server->keys->policy, query));
    Message answer =
        message_answer(query, HOP_STATUS_ANSWER, verdict.status,
                       verdict.kind == KEY_REPLAY ? verdict.response_of : query->operation);
    network_send(world, &answer);
    if (world_tracing(world))
        world_trace_about(world, server->node, TRACE_STATUS_ANSWER, query, verdict.status, 0);
}

/* A running job's store call (a late insert, a lease check) met the store down and the rule
 * is to refuse (C38's fail closed): 503, as at the lookup, so the client may retry later; the
 * worker is freed. The caller counts refused_store_down where the protocol does not. */
static void refuse_while_store_down(World *world, Server *server, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    KeyVerdict verdict = {KEY_STORE_DOWN, 503, 0};
    server->counts->refused++;
    respond(world, server, &job->request, verdict.status, job->request.operation);
    key_protocol_trace_refusal(world, job, verdict, verdict.status);
    finish_job(world, server, job_slot);
}

/* check-then-insert: the check found no row; the insert comes a race window later,
 * whatever another request did meanwhile. */
void server_on_job_reserve(World *world, uint32_t job)
{
    Server *server = server_of_job(world, job);
    if (server_job_died_in_crash(world, server, job))
        return;
    Job *reserving = &world->jobs[job];
    KeyVerdict verdict = key_protocol_reserve_late(world, server->keys, reserving);
    if (verdict.kind == KEY_STORE_DOWN) { /* C38 fail closed, at the insert */
        refuse_while_store_down(world, server, job);
        return;
    }
    execute_later(world, server, job);
}

/* ------------------------------------------------------------------ execution and crashes */

static bool draw_crash(World *world, const Server *server, const Job *job, CrashPoint point)
{
    const CrashSpec *crash = &server->spec->crash;
    if (crash->point != point || (crash->max_crashes > 0 && server->crashes >= crash->max_crashes))
        return false;
    return world_chance_about(world, DRAW_CRASH, &job->request, crash->prob);
}

/* A store the server does not own outlives its crash: one it shares with another Server
 * (the instances of one service, or several servers naming one key_store entry) or with the
 * consumer group, or one that is a process of its own, which crashes on its own (C38).
 * Otherwise the store lives in the server's process, and only `durable` keeps it. */
static bool owns_store(const World *world, const Server *server)
{
    if (server->spec->idempotency.crash.enabled)
        return false;
    if (world->consumers[0].keys == server->keys)
        return false;
    for (uint32_t i = 0; i < world->server_count; i++) {
        if (&world->servers[i] != server && world->servers[i].store == server->store)
            return false;
    }
    return true;
}

/* The process is gone: everything in flight dies with it; what is durable stays. */
static void go_down(World *world, Server *server, SimTimeUs restart_in_us)
{
    KeyProtocol *keys = server->keys;
    if (server->spec->transaction)
        key_protocol_roll_back_open(world, keys, server->node, server->epoch);
    server->down = true;
    server->epoch++;
    while (server->queue.length > 0)
        world_job_release(world, index_queue_pop(&server->queue));
    server->busy = 0;
    if (owns_store(world, server))
        key_protocol_on_crash(world, keys);
    server_charge_on_crash(world, server);
    sim_schedule_in(world->sim, restart_in_us, EVENT_SERVER_RESTART, server->node, 0);
}

static void crash(World *world, Server *server, CrashPoint where, uint64_t operation)
{
    world->metrics.crashes++;
    server->crashes++;
    server->counts->crashes++;
    if (world_tracing(world))
        world_trace(world, server->node, TRACE_CRASH, operation, 0, where);
    go_down(world, server, sim_time_us_from_ms(server->spec->crash.restart_ms));
}

/* server.outage: the server goes down at from_ms and is back at to_ms. Its port is closed:
 * every request it holds, running or queued, is reset at once (a closed socket sends RST to
 * every connected client at the same instant), and so is every request arriving meanwhile.
 * That shared instant is what synchronises the clients' retries. */
void server_on_outage(World *world, Server *server)
{
    const ServerOutageSpec *outage = &server->spec->outage;
    if (world_tracing(world))
        world_trace(world, server->node, TRACE_CRASH, TRACE_NO_OPERATION, 0, CRASH_NONE);
    for (uint32_t slot = 0; slot < world->job_slots.capacity; slot++) {
        const Job *job = &world->jobs[slot];
        if (job->serial != 0 && job->epoch == server->epoch && job->request.target == server->node)
            reset(world, &job->request);
    }
    server->in_outage = true;
    SimTimeUs now = sim_now(world->sim);
    SimTimeUs back = sim_time_us_from_ms(outage->to_ms);
    go_down(world, server, back > now ? back - now : 0);
}

void server_on_restart(World *world, Server *server)
{
    server->down = false;
    server->in_outage = false;
    if (world_tracing(world))
        world_trace(world, server->node, TRACE_RESTART, TRACE_NO_OPERATION, 0, 0);
    server_charge_resume_outbox(world, server);
}

void server_complete_job(World *world, Server *server, uint32_t job_slot, int status)
{
    Job *job = &world->jobs[job_slot];
    SIM_ASSERT(job->epoch == server->epoch && !server->down,
               "only a job of the running server completes");
    SIM_ASSERT(!job->awaiting_gateway, "a job completes once the gateway is done with it");
    job->uncommitted = false; /* its effect and its key's completion commit here, together */
    if (job->event_due && status < 400) /* receipts_via outbox: written with the commit */
        server_charge_write_event(world, &job->request, job->sent_key); /* an order's id too */
    job->event_due = false;
    if (job->store_key != 0)
        key_protocol_record(world, server->keys, job, status);
    if (draw_crash(world, server, job, CRASH_AFTER_COMPLETION)) {
        crash(world, server, CRASH_AFTER_COMPLETION, job->request.operation);
        world_job_release(world, job_slot);
        return;
    }
    respond(world, server, &job->request, status, job->request.operation);
    finish_job(world, server, job_slot);
}

void server_after_effect(World *world, Server *server, uint32_t job_slot, int status)
{
    Job *job = &world->jobs[job_slot];
    if (status < 500 && world_chance_about(world, DRAW_FAIL_AFTER_EFFECT, &job->request,
                                           server->spec->fail_after_effect)) {
        status = 500; /* the side effect happened, then the handler failed */
        if (world_tracing(world))
            world_trace_about(world, server->node, TRACE_FAIL_AFTER_EFFECT, &job->request, 500, 0);
        if (job->uncommitted) { /* the failure aborts the transaction: the effect is undone */
            ledger_undo(world, &job->request, server->node);
            job->uncommitted = false;
        }
    }
    if (draw_crash(world, server, job, CRASH_AFTER_EFFECT)) {
        crash(world, server, CRASH_AFTER_EFFECT, job->request.operation);
        world_job_release(world, job_slot);
        return;
    }
    server_complete_job(world, server, job_slot, status);
}

/* receipts_via outbox: the job's charge writes its receipt event at the commit. */
static bool receipt_through_outbox(const World *world, const Server *server, const Job *job)
{
    const ClientGroupSpec *spec = world->groups[world->clients[job->request.client].group].spec;
    return server->spec->publish_receipts && server->spec->receipts_via == RECEIPTS_OUTBOX &&
           spec->operation.kind == OPERATION_DEBIT;
}

/* The call step runs the operation's effect elsewhere: a server it calls takes every
 * operation (its own ledger applies it), a gateway only a debit (a charge; the server
 * applies any other operation itself). */
static bool calls_for_effect(const World *world, const Server *server, const Job *job)
{
    if (!server->spec->use_gateway)
        return false;
    const ClientGroupSpec *spec = world->groups[world->clients[job->request.client].group].spec;
    return spec->operation.kind == OPERATION_DEBIT || world_is_server(world, server->call_node);
}

/* An order API's work (publishes_orders): the order itself goes to the broker, for the
 * consumers to charge, with no effect here. Directly, at once (a dual write: a failure or a
 * crash after it cannot take the order back, and the client's retry publishes it again), or
 * written to the outbox with the commit and relayed until the broker confirms it. */
static void publish_order(World *world, Server *server, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    if (server->spec->receipts_via == RECEIPTS_OUTBOX) {
        job->event_due = true;
    } else {
        if (world_tracing(world))
            world_trace_about(world, server->node, TRACE_ORDER_PUBLISHED, &job->request, 0, 0);
        broker_publish_order(world, &job->request, job->sent_key);
    }
    server_after_effect(world, server, job_slot, 200);
}

/* The job's effect happens elsewhere (a call step's callee, or the broker an order API
 * publishes to): its step starts, and true; false when the effect is local after all (a
 * gateway takes debits only). */
static bool effect_elsewhere(World *world, Server *server, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    if (calls_for_effect(world, server, job)) {
        deadline_note_effect(world, job, server->node);
        server_charge_request(world, job_slot);
        return true;
    }
    if (server->spec->publishes_orders) {
        deadline_note_effect(world, job, server->node);
        publish_order(world, server, job_slot);
        return true;
    }
    return false;
}

void server_on_job_done(World *world, uint32_t job_slot)
{
    Server *server = server_of_job(world, job_slot);
    if (server_job_died_in_crash(world, server, job_slot))
        return;
    Job *job = &world->jobs[job_slot];
    KeyProtocol *keys = server->keys;
    world->metrics.executions++;
    server->counts->runs++;
    if (draw_crash(world, server, job, CRASH_BEFORE_EFFECT)) {
        crash(world, server, CRASH_BEFORE_EFFECT, job->request.operation);
        world_job_release(world, job_slot);
        return;
    }
    if (job->resume_status == 0 && /* a resumed run's effect phase committed already */
        world_chance_about(world, DRAW_FAIL_BEFORE_EFFECT, &job->request,
                           server->spec->fail_before_effect)) {
        server_complete_job(world, server, job_slot, 500);
        return;
    }
    KeyLease lease = key_protocol_check_lease(world, keys, job);
    if (lease == LEASE_LOST) {
        /* another request took the key over while this one ran: with fencing its write is
         * refused, and its client hears of the conflict */
        respond(world, server, &job->request, 409, job->request.operation);
        finish_job(world, server, job_slot);
        return;
    }
    if (lease == LEASE_STORE_DOWN) { /* C38 fail closed, at the check: the store cannot say */
        world->metrics.refused_store_down++;
        refuse_while_store_down(world, server, job_slot);
        return;
    }
    if (job->resume_status != 0) { /* the key's recovery point: the effect is done */
        server_after_effect(world, server, job_slot, job->resume_status);
        return;
    }
    if (deadline_passed(world, job, server->node, DEADLINE_AT_EFFECT)) {
        server_complete_job(world, server, job_slot, 504); /* as a failure before its effect */
        return;
    }
    if (server->effect_elsewhere && effect_elsewhere(world, server, job_slot))
        return;
    if (balance_update_conflict(world, job, server->node)) {
        execute_later(world, server, job_slot); /* compare-and-set lost: read again, run again */
        return;
    }
    deadline_note_effect(world, job, server->node);
    bool effect = false;
    int status = ledger_apply_read(world, &job->request, &job->balance_read, server->node, &effect);
    job->uncommitted = server->spec->transaction && effect;
    job->event_due = effect && receipt_through_outbox(world, server, job);
    if (effect && !job->uncommitted)
        key_protocol_commit_effect_phase(world, keys, job, status);
    server_after_effect(world, server, job_slot, status);
}

/* ------------------------------------------------------------------ life */

void server_on_store_sweep(World *world, uint32_t side)
{
    key_protocol_on_sweep(world, world_keys_of_side(world, side));
}

/* The Server whose store server i uses, when it is not a store of its own: a service's
 * later instances share its first one's unless the placement is per instance; a service's
 * first instance shares the store of the server before it that names the same key_store
 * entry (the loader refuses a per-instance placement there). */
static int store_shared_with(const World *world, uint32_t i)
{
    const ServerSpec *spec = world->servers[i].spec;
    for (uint32_t j = 0; j < i; j++) {
        if (world->servers[j].spec == spec) /* its service's first instance */
            return spec->idempotency.placement == PLACEMENT_PER_INSTANCE ? -1 : (int)j;
    }
    const Scenario *scenario = &world->scenario;
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (spec != &scenario->called_servers[c].spec)
            continue;
        int shared = scenario_called_store_shared_with(scenario, c);
        if (shared <= 0)
            return shared; /* its own, or the clients' server's (its first instance's) */
        for (uint32_t j = 0; j < i; j++) {
            if (world->servers[j].spec == &scenario->called_servers[shared - 1].spec)
                return (int)j;
        }
    }
    return -1;
}

/* The servers' nodes were made by build_nodes; each gets its store: the instances the
 * shared one (side STORE_SERVER) or each its own (instance i > 0 on side
 * STORE_INSTANCE_FIRST + i - 1), then each called server's instances theirs the same way, on
 * the sides after, or the very store of the server before it that names the same key_store
 * entry (no side of its own: one store, one set of rows, one sweep, counted once). The side table
 * holds every store the world has: the server's, the consumers', the instances', the called
 * servers'. A shared store's protocol is initialised by its first user, whose node its sweeps name.
 * Last, each instance's outage is scheduled (every server's, in instance order), after the
 * instances' own timers. */
void server_init(World *world)
{
    world->store_count = STORE_INSTANCE_FIRST;
    world->stores[STORE_SERVER] = &world->server_stores[0];
    world->stores[STORE_CONSUMERS] = &world->consumers[0].own_keys;
    for (uint32_t i = 0; i < world->server_count; i++) {
        Server *server = &world->servers[i];
        int shared = store_shared_with(world, i);
        server->workers = server->spec->workers;
        server->effect_elsewhere = server->spec->use_gateway || server->spec->publishes_orders;
        if (shared >= 0) {
            server->store = world->servers[shared].store;
            server->keys = world->stores[server->store];
            continue;
        }
        server->store = STORE_SERVER;
        if (i > 0) {
            server->store = world->store_count++;
            world->stores[server->store] = &world->server_stores[server->store - 1];
        }
        server->keys = world->stores[server->store];
        key_protocol_init(world, server->keys, &server->spec->idempotency, server->node,
                          server->store, world->mode == MODE_IDEMPOTENT);
    }
    server_charge_init(world);
    for (uint32_t i = 0; i < world->server_count; i++) { /* every instance of every server */
        const ServerOutageSpec *outage = &world->servers[i].spec->outage;
        if (outage->enabled)
            sim_schedule_at(world->sim, sim_time_us_from_ms(outage->from_ms), EVENT_SERVER_OUTAGE,
                            world->servers[i].node, 0);
    }
}

void server_release(World *world)
{
    server_charge_release(world);
    for (uint32_t side = 0; side < world->store_count; side++) {
        if (world->nodes[world->stores[side]->node].kind != NODE_CONSUMERS) /* a server's */
            key_protocol_release(world->stores[side]);
    }
    for (uint32_t i = 0; i < world->server_count; i++)
        index_queue_release(&world->servers[i].queue);
}

/* ------------------------------------------------------------------ its node kind's model */

/* A server instance's side of the messages it takes: the instance is the message's target. */
void server_takes_request(World *world, const Message *request)
{
    server_on_request(world, server_at(world, request->target), request);
}

static void server_takes_response(World *world, const Message *answer)
{
    if (world_is_server(world, answer->source)) { /* the server its call step called */
        if (!server_at(world, answer->target)->down)
            server_charge_on_reply(world, answer);
    } else if (answer->reply_to.kind == REPLY_TO_OUTBOX) { /* a relayed receipt's confirm */
        server_charge_on_event_confirm(world, answer);
    }
    /* else: the confirm of a receipt published directly, which nobody waits for */
}

static void server_takes_charge_reply(World *world, const Message *reply)
{
    if (!server_at(world, reply->target)->down)
        server_charge_on_reply(world, reply);
}

static void server_takes_status_query(World *world, const Message *query)
{
    server_on_status_query(world, server_at(world, query->target), query);
}

const NodeKindModel node_model_server = {
    .init = server_init,
    .release = server_release,
    .on_message =
        {
            [MESSAGE_REQUEST] = server_takes_request,
            [MESSAGE_RESPONSE] = server_takes_response,
            [MESSAGE_CHARGE_REPLY] = server_takes_charge_reply,
            [MESSAGE_STATUS_QUERY] = server_takes_status_query,
        },
    .on_job_reserve = server_on_job_reserve,
    .on_charge_timeout = server_charge_on_timeout,
    .on_charge_retry = server_charge_on_retry,
};
