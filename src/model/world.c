/* The world: builds every actor from a validated scenario and a mode, owns them, and holds
 * the one event switch. The mode is a preset over the scenario (DESIGN §3): at-most-once
 * never retries, at-least-once retries without a key store, idempotent adds the store. */
#include "world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory_account.h"
#include "node_kind.h"
#include "scenario_names.h"
#include "sim_assert.h"
#include "world_internal.h"

#define DEFAULT_EXTRA_SIM_TIME_US (7ull * 24 * 3600 * 1000000) /* drain time after duration */

/* ------------------------------------------------------------------ draws and names */

static FaultKind fault_of_purpose(DrawPurpose purpose)
{
    switch (purpose) {
    case DRAW_CRASH:
        return FAULT_CRASH;
    case DRAW_FAIL_BEFORE_EFFECT:
        return FAULT_FAIL_BEFORE_EFFECT;
    case DRAW_FAIL_AFTER_EFFECT:
        return FAULT_FAIL_AFTER_EFFECT;
    case DRAW_CONSUMER_CRASH:
        return FAULT_CONSUMER_CRASH;
    case DRAW_FULFIL:
        return FAULT_FULFIL_FAIL;
    case DRAW_STALE_CONNECTION:
        return FAULT_STALE_CONNECTION;
    case DRAW_CLOSE_BEFORE_ANSWER:
        return FAULT_CLOSE_BEFORE_ANSWER;
    case DRAW_CAPTURE_LOST:
        return FAULT_CAPTURE_LOST;
    case DRAW_PROXY_CRASH:
        return FAULT_PROXY_CRASH;
    default:
        SIM_ASSERT(false, "a chance about a request that is not a fault");
        return FAULT_KIND_COUNT;
    }
}

bool world_chance_planned(const World *world, DrawPurpose purpose, const Message *request,
                          double probability)
{
    return fault_plan_decide(world->fault_plan, fault_of_purpose(purpose), request->operation,
                             ((uint64_t)request->attempt << 8) | request->click, request->lineage,
                             probability);
}

const FaultSpec *world_fault_points(const World *world, uint32_t *count, uint32_t *overflow)
{
    *count = 0;
    *overflow = 0;
    if (world->fault_plan == NULL)
        return NULL;
    *overflow = fault_plan_overflow(world->fault_plan);
    return fault_plan_points(world->fault_plan, count);
}

uint32_t world_faults_met(const World *world)
{
    return world->fault_plan == NULL ? 0 : fault_plan_forced_met(world->fault_plan);
}

const char *world_node_name(const World *world, uint32_t node)
{
    SIM_ASSERT(node < world->node_count, "node id out of range");
    return world->nodes[node].name;
}

uint32_t world_node_count(const World *world)
{
    return world->node_count;
}

const WorldNode *world_node(const World *world, uint32_t node)
{
    SIM_ASSERT(node < world->node_count, "node id out of range");
    return &world->nodes[node];
}

uint32_t world_store_node_of(const World *world, const IdempotencySpec *store)
{
    for (uint32_t n = world->group_count; n < world->node_count; n++) {
        const WorldNode *node = &world->nodes[n];
        if (node->kind != NODE_KEY_STORE)
            continue;
        const IdempotencySpec *settings =
            node->actor == 0
                ? &world->scenario.server.idempotency
                : &scenario_consumer_group(&world->scenario, node->actor - 1)->idempotency;
        if (settings == store)
            return n;
    }
    return TRACE_NO_NODE;
}

uint32_t world_node_of_kind(const World *world, NodeKind kind)
{
    for (uint32_t node = world->group_count; node < world->node_count; node++) {
        if (world->nodes[node].kind == kind)
            return node;
    }
    return TRACE_NO_NODE;
}

/* Called for every message record when tracing: plain copies, no snprintf. */
void world_actor_name(const World *world, uint32_t node, uint32_t client, char *buffer, size_t size)
{
    const char *name = world_node_name(world, node);
    size_t length = 0;
    while (name[length] != '\0' && length + 1 < size) {
        buffer[length] = name[length];
        length++;
    }
    if (node < world->group_count && client < world->client_count && length + 13 < size) {
        char digits[12];
        size_t count = 0;
        uint32_t index = world->clients[client].index_in_group;
        do {
            digits[count++] = (char)('0' + index % 10);
            index /= 10;
        } while (index > 0);
        buffer[length++] = '[';
        while (count > 0)
            buffer[length++] = digits[--count];
        buffer[length++] = ']';
    }
    buffer[length] = '\0';
}

void world_trace_write(World *world, TraceRecord *record)
{
    record->t_us = sim_now(world->sim);
    record->mode = world->mode;
    world->trace.write(world->trace.context, record);
}

/* A record of what node did, with no peer and no client; the caller adds the rest. */
static TraceRecord node_record(const World *world, uint32_t node, TraceEvent event, int64_t value,
                               uint32_t detail)
{
    return (TraceRecord){
        .event = event,
        .actor = node,
        .actor_client = TRACE_NO_CLIENT,
        .peer = TRACE_NO_NODE,
        .peer_client = TRACE_NO_CLIENT,
        .actor_kind = world->nodes[node].kind,
        .actor_name = world_node_name(world, node),
        .value = value,
        .detail = detail,
        .no_operation = true, /* until an operation is named */
    };
}

void world_trace(World *world, uint32_t node, TraceEvent event, uint64_t operation, int64_t value,
                 uint32_t detail)
{
    if (world->trace.write == NULL)
        return;
    TraceRecord record = node_record(world, node, event, value, detail);
    if (operation != TRACE_NO_OPERATION) {
        record.operation = operation;
        record.no_operation = false;
    }
    world_trace_write(world, &record);
}

/* A record of what node did about one message. */
static TraceRecord about_record(const World *world, uint32_t node, TraceEvent event,
                                const Message *message, int64_t value, uint32_t detail)
{
    TraceRecord record = node_record(world, node, event, value, detail);
    record.operation = message->operation;
    record.no_operation = false;
    record.attempt = message->attempt;
    record.click = message->click;
    record.copy = (uint32_t)message->lineage;
    return record;
}

void world_trace_about(World *world, uint32_t node, TraceEvent event, const Message *message,
                       int64_t value, uint32_t detail)
{
    if (world->trace.write == NULL)
        return;
    TraceRecord record = about_record(world, node, event, message, value, detail);
    world_trace_write(world, &record);
}

void world_trace_decision(World *world, uint32_t node, TraceEvent event, const Message *message,
                          int64_t value, uint64_t key_owner)
{
    if (world->trace.write == NULL)
        return;
    TraceRecord record = about_record(world, node, event, message, value, 0);
    record.key_owner = key_owner;
    world_trace_write(world, &record);
}

void world_trace_queue(World *world, uint32_t node, TraceEvent event, const Message *message,
                       int64_t value, const char *queue)
{
    world_trace_queue_detail(world, node, event, message, value, 0, queue);
}

void world_trace_queue_detail(World *world, uint32_t node, TraceEvent event, const Message *message,
                              int64_t value, uint32_t detail, const char *queue)
{
    if (world->trace.write == NULL)
        return;
    TraceRecord record = message != NULL ? about_record(world, node, event, message, value, detail)
                                         : node_record(world, node, event, value, detail);
    record.queue = queue;
    world_trace_write(world, &record);
}

void world_trace_client(World *world, uint32_t client, TraceEvent event, uint64_t operation,
                        uint32_t click, uint32_t attempt, int64_t value, uint32_t detail)
{
    if (world->trace.write == NULL)
        return;
    char actor[NAME_LEN_MAX + 16];
    const Client *c = &world->clients[client];
    world_actor_name(world, c->group, client, actor, sizeof actor);
    TraceRecord record = {
        .event = event,
        .actor = c->group,
        .actor_client = c->index_in_group,
        .actor_kind = NODE_CLIENT_GROUP,
        .peer = TRACE_NO_NODE,
        .peer_client = TRACE_NO_CLIENT,
        .actor_name = actor,
        .operation = operation,
        .attempt = attempt,
        .click = click,
        .value = value,
        .detail = detail,
    };
    world_trace_write(world, &record);
}

/* ------------------------------------------------------------------ message pool */

/* A take that grows the pool, which message may point into: it is copied first. Apart, so
 * that the usual store copies the message once, straight into its slot. */
__attribute__((noinline)) static uint32_t message_store_growing(World *world,
                                                                const Message *message)
{
    Message copy = *message;
    uint32_t slot =
        slot_pool_take(&world->message_slots, &world->messages, sizeof *world->messages);
    world->messages[slot] = copy;
    return slot;
}

uint32_t world_message_store(World *world, const Message *message)
{
    uint32_t slot;
    if (world->message_slots.free == SLOT_POOL_NONE) {
        slot = message_store_growing(world, message);
    } else {
        slot = slot_pool_take(&world->message_slots, &world->messages, sizeof *world->messages);
        world->messages[slot] = *message;
    }
    world->messages_in_flight++;
    world_operation_ref(world, world->messages[slot].operation);
    return slot;
}

/* A message's slot, its copy taken, back to the pool. */
static void free_message_slot(World *world, uint32_t slot)
{
    slot_pool_give(&world->message_slots, slot);
    world->messages_in_flight--;
}

Message world_message_take(World *world, uint32_t slot)
{
    Message message = world->messages[slot]; /* dispatch checked the slot */
    free_message_slot(world, slot);
    return message;
}

/* The first instant origin + k * interval (k >= 1) at or after target; SIM_TIME_NEVER past
 * the end of time. */
static SimTimeUs grid_at_or_after(SimTimeUs origin, SimTimeUs interval, SimTimeUs target)
{
    if (target <= origin)
        return origin + interval;
    SimTimeUs periods = (target - origin) / interval + ((target - origin) % interval != 0);
    SimTimeUs offset = 0;
    if (__builtin_mul_overflow(periods, interval, &offset) ||
        __builtin_add_overflow(origin, offset, &offset))
        return SIM_TIME_NEVER;
    return offset;
}

/* The store on a side (for the const readers of this file). */
static const KeyProtocol *store_of_side(const World *world, uint32_t side)
{
    return world->stores[side];
}

/* Whether the store on side is the consumer group's (shared, or an instance's own). */
static bool store_is_consumers(const World *world, uint32_t side)
{
    return world->nodes[store_of_side(world, side)->node].kind == NODE_CONSUMERS;
}

/* Rows held by every key store (a store not in use holds none). */
static inline uint64_t stores_rows(const World *world)
{
    /* the two every world has, then the instances' own (on the path of every key write) */
    uint64_t rows = idem_store_rows(world->stores[STORE_SERVER]->store) +
                    idem_store_rows(world->stores[STORE_CONSUMERS]->store);
    for (uint32_t side = STORE_INSTANCE_FIRST; side < world->store_count; side++)
        rows += idem_store_rows(store_of_side(world, side)->store);
    return rows;
}

static uint64_t gateways_memory_bytes(const World *world)
{
    uint64_t bytes = 0;
    for (uint32_t g = 0; g < world->gateway_count; g++) {
        const Gateway *gateway = &world->gateways[g];
        bytes += (gateway->keys ? idem_store_memory_bytes(gateway->keys) : 0) +
                 (gateway->charged ? idem_store_memory_bytes(gateway->charged) : 0);
    }
    return bytes;
}

static uint64_t stores_memory_bytes(const World *world)
{
    uint64_t bytes = 0;
    for (uint32_t side = 0; side < world->store_count; side++)
        bytes += idem_store_memory_bytes(store_of_side(world, side)->store);
    return bytes;
}

/* A parked sweep resumes at the first instant of its grid at which the new row can have
 * expired: the sweeps skipped before it would have found nothing to free. */
static void unpark_sweep(World *world, uint32_t side)
{
    SimTimeUs expiry = idem_store_next_expiry(world_keys_of_side(world, side)->store);
    if (expiry == SIM_TIME_NEVER)
        return;
    SimTimeUs now = sim_now(world->sim);
    SimTimeUs at = grid_at_or_after(world->sweep_origin_us[side], world->sweep_interval_us[side],
                                    expiry > now ? expiry : now);
    if (at == SIM_TIME_NEVER)
        return; /* past the end of time: it would never run */
    world->sweep_parked[side] = false;
    world->sweeps_running++;
    sim_schedule_at(world->sim, at, EVENT_STORE_SWEEP, side, 0);
}

/* Called after every change to a key store, which is also when a parked sweep may resume. */
void world_note_key_store(World *world)
{
    uint64_t rows = stores_rows(world);
    world->metrics.key_store_rows = rows;
    time_series_record(&world->metrics.key_store_series, sim_now(world->sim), rows);
    if (rows > world->metrics.key_store_peak)
        world->metrics.key_store_peak = rows;
    for (uint32_t side = 0; side < world->store_count; side++) {
        if (world->sweep_parked[side])
            unpark_sweep(world, side);
    }
}

void world_start_sweep(World *world, uint32_t side, SimTimeUs interval_us)
{
    world->sweeps_running++;
    world->sweep_interval_us[side] = interval_us;
    sim_schedule_in(world->sim, interval_us, EVENT_STORE_SWEEP, side, 0);
}

/* The next sweep lands on the same grid (start + k * interval) as before, but skips the
 * instants where it would find nothing to free (issue 16: an idle stretch of 10^12
 * intervals cost 10^12 events). With rows that can expire, it runs at the first grid instant
 * at or after the earlier of their next expiry and the next pending event (nothing changes
 * the store before that); with none, it parks until a row arrives (world_note_key_store),
 * since the other store's sweep would otherwise count as the next event forever. */
void world_reschedule_sweep(World *world, uint32_t side, SimTimeUs interval_us)
{
    if (sim_pending(world->sim) < world->sweeps_running) {
        world->sweeps_running--;
        return;
    }
    IdemStore *store = world_keys_of_side(world, side)->store;
    SimTimeUs now = sim_now(world->sim);
    if (idem_store_next_expiry(store) == SIM_TIME_NEVER) {
        world->sweep_parked[side] = true;
        world->sweep_origin_us[side] = now;
        world->sweep_interval_us[side] = interval_us;
        world->sweeps_running--;
        return;
    }
    SimTimeUs next = idem_store_next_sweep(store, now, interval_us, sim_next_time(world->sim));
    sim_schedule_at(world->sim, next, EVENT_STORE_SWEEP, side, 0);
}

/* ------------------------------------------------------------------ job pool */

/* A job just taken, as every job starts (World.fresh_job, the one place that says how) with
 * its request, serial and epoch. request must not point into the pool: the caller took the
 * slot without growing it, or copied request aside first. */
static inline void start_job_in(World *world, uint32_t slot, const Message *request, uint32_t epoch)
{
    Job *job = &world->jobs[slot];
    *job = world->fresh_job;
    job->request = *request;
    job->serial = ++world->next_job_serial;
    job->epoch = epoch;
}

/* As message_store_growing: a take that grows the pool, which request may point into (a
 * job's). */
__attribute__((noinline)) static uint32_t job_alloc_growing(World *world, const Message *request,
                                                            uint32_t epoch)
{
    Message copy = *request;
    uint32_t slot = slot_pool_take(&world->job_slots, &world->jobs, sizeof *world->jobs);
    start_job_in(world, slot, &copy, epoch);
    return slot;
}

uint32_t world_job_alloc(World *world, const Message *request, uint32_t epoch)
{
    uint32_t slot;
    if (world->job_slots.free == SLOT_POOL_NONE) {
        slot = job_alloc_growing(world, request, epoch);
    } else {
        slot = slot_pool_take(&world->job_slots, &world->jobs, sizeof *world->jobs);
        start_job_in(world, slot, request, epoch);
    }
    world_operation_ref(world, world->jobs[slot].request.operation);
    return slot;
}

void world_job_release(World *world, uint32_t slot)
{
    SIM_ASSERT(slot < world->job_slots.capacity && world->jobs[slot].serial != 0,
               "a job released is one in use");
    uint64_t operation = world->jobs[slot].request.operation;
    world->jobs[slot].serial = 0;
    slot_pool_give(&world->job_slots, slot);
    world_operation_unref(world, operation);
}

/* ------------------------------------------------------------------ dispatch */

static void on_message_arrive(World *world, uint32_t slot)
{
    /* world_message_take's copy straight into this frame: as the call's result, inline or
     * not, the message was copied twice */
    Message message = world->messages[slot];
    free_message_slot(world, slot);
    if (world_tracing(world)) /* tested here: a call per message otherwise */
        network_trace_delivery(world, &message);
    SIM_ASSERT(message.target < world->node_count && message.kind < MESSAGE_KIND_COUNT,
               "a message names a node and a kind");
    NodeKind kind = world->nodes[message.target].kind;
    /* The two routes of nearly every message, a request to a server and an answer to a
     * client, are called directly: through the table they are one indirect call whose target
     * changes from message to message, mispredicted often enough to cost PAY-1 about 1.5% of
     * its CPU. They are the table's own handlers (world_create checks). */
    if (kind == NODE_SERVER && message.kind == MESSAGE_REQUEST) {
        server_on_request(world, server_at(world, message.target), &message);
    } else if (kind == NODE_CLIENT_GROUP && message.kind == MESSAGE_RESPONSE) {
        client_on_response(world, &message);
    } else {
        NodeMessageHandler handler = node_models[kind]->on_message[message.kind];
        SIM_ASSERT(handler != NULL, "a node takes the messages sent to it");
        handler(world, &message);
    }
    world_operation_unref(world, message.operation); /* after handling: it may settle */
}

/* The slot an event names, checked: an event outliving its slot is a broken invariant. */
static uint32_t job_of(const World *world, const Event *event)
{
    SIM_ASSERT(event->arg < world->job_slots.capacity && world->jobs[event->arg].serial != 0,
               "an event names a job in use");
    return (uint32_t)event->arg;
}

static uint32_t slot_of(const Event *event, const SlotPool *pool)
{
    SIM_ASSERT(event->arg < pool->capacity, "an event names a slot of its pool");
    return (uint32_t)event->arg;
}

/* The model of the kind that runs a job. */
static const NodeKindModel *job_ops(const World *world, uint32_t job)
{
    return node_models[world->nodes[world->jobs[job].request.target].kind];
}

static void dispatch(void *context, const Event *event)
{
    World *world = context;
    /* The three kinds of nine events in ten (PAY-1) are tested first: through the switch's
     * table they were one indirect jump whose target changed from event to event, which
     * predicts worse than these branches (2.5% of PAY-1's CPU). */
    if (event->kind == EVENT_MESSAGE_ARRIVE) {
        on_message_arrive(world, slot_of(event, &world->message_slots));
        return;
    }
    if (event->kind == EVENT_JOB_DONE) {
        server_on_job_done(world, job_of(world, event));
        return;
    }
    if (event->kind == EVENT_OPERATION_START) {
        client_on_operation_start(world, event->target, event->arg);
        return;
    }
    switch ((EventKind)event->kind) {
    case EVENT_OPERATION_START: /* the three above, handled before the switch */
    case EVENT_MESSAGE_ARRIVE:
    case EVENT_JOB_DONE:
        break;
    case EVENT_CLICK:
        client_on_click(world, event->arg);
        break;
    case EVENT_RETRY:
        client_on_retry(world, event->arg);
        break;
    case EVENT_ATTEMPT_TIMEOUT:
        client_on_attempt_timeout(world, event->arg);
        break;
    case EVENT_RECONNECT:
        client_on_reconnect(world, event->arg);
        break;
    case EVENT_JOB_RESERVE: {
        uint32_t job = job_of(world, event);
        job_ops(world, job)->on_job_reserve(world, job);
        break;
    }
    case EVENT_STORE_FAILOVER:
        key_protocol_on_failover(world, world_keys_of_side(world, (uint32_t)event->target));
        break;
    case EVENT_STORE_CRASH:
        key_protocol_on_store_crash(world, world_keys_of_side(world, (uint32_t)event->target));
        break;
    case EVENT_STORE_RESTART:
        key_protocol_on_store_restart(world, world_keys_of_side(world, (uint32_t)event->target));
        break;
    case EVENT_NODE_TIMER: {
        SIM_ASSERT(event->target < world->node_count, "a node's timer names a node");
        void (*on_timer)(World *, uint32_t, uint64_t) =
            node_models[world->nodes[event->target].kind]->on_timer;
        SIM_ASSERT(on_timer != NULL, "a node takes the timers it sets");
        on_timer(world, event->target, event->arg);
        break;
    }
    case EVENT_STORE_SWEEP:
        if (store_is_consumers(world, (uint32_t)event->target))
            consumers_on_store_sweep(world, (uint32_t)event->target);
        else
            server_on_store_sweep(world, (uint32_t)event->target);
        break;
    case EVENT_GATEWAY_TIMEOUT: {
        uint32_t job = job_of(world, event);
        job_ops(world, job)->on_charge_timeout(world, job);
        break;
    }
    case EVENT_GATEWAY_CHARGE:
        gateway_on_charge_done(world, slot_of(event, &world->message_slots));
        break;
    case EVENT_OUTBOX_RELAY:
        server_charge_on_outbox_relay(world, slot_of(event, &world->servers[0].outbox_slots));
        break;
    case EVENT_SERVER_RESTART:
        server_on_restart(world, server_at(world, event->target));
        break;
    case EVENT_SERVER_OUTAGE:
        server_on_outage(world, server_at(world, event->target));
        break;
    case EVENT_ACK_TIMEOUT: {
        Broker *broker = broker_at(world, event->target);
        SIM_ASSERT((uint32_t)event->arg < broker->message_slots.capacity,
                   "an ack timeout names a slot of its broker's pool");
        broker_on_ack_timeout(world, broker, (uint32_t)event->arg, (uint32_t)(event->arg >> 32));
        break;
    }
    case EVENT_REDELIVER: {
        Broker *broker = broker_at(world, event->target);
        broker_on_redeliver(world, broker, slot_of(event, &broker->message_slots));
        break;
    }
    case EVENT_CONSUMER_DONE:
        consumers_on_job_done(world, job_of(world, event));
        break;
    case EVENT_CONSUMER_RESTART:
        consumers_on_restart(world, (uint32_t)event->target);
        break;
    case EVENT_PROXY_FORWARD:
        proxy_on_forward(world, slot_of(event, &world->proxy.call_slots));
        break;
    case EVENT_PROXY_TRY_TIMEOUT:
        proxy_on_try_timeout(world, slot_of(event, &world->proxy.call_slots), event->target);
        break;
    case EVENT_LOG_COMMIT:
        broker_log_on_commit_tick(world, broker_at(world, event->target));
        break;
    case EVENT_LOG_REBALANCE:
        broker_log_on_rebalance(world, broker_at(world, event->target));
        break;
    case EVENT_CONSUMER_RETRY:
        consumers_on_retry(world, job_of(world, event));
        break;
    case EVENT_CHARGE_RETRY: {
        uint32_t job = job_of(world, event);
        job_ops(world, job)->on_charge_retry(world, job);
        break;
    }
    case EVENT_HEARTBEAT: /* its job may be over: the consumers check the serial */
        consumers_on_heartbeat(world, slot_of(event, &world->job_slots), event->target);
        break;
    case EVENT_KIND_COUNT:
        SIM_ASSERT(false, "unknown event kind");
    }
}

/* ------------------------------------------------------------------ creation */

static RetrySpec retry_for_mode(const RetrySpec *retry, Mode mode)
{
    RetrySpec effective = *retry;
    if (mode == MODE_AT_MOST_ONCE)
        effective.max_attempts = 1;
    return effective;
}

static void build_clients(World *world)
{
    const Scenario *scenario = &world->scenario;
    world->group_count = scenario->client_group_count;
    for (uint32_t g = 0; g < world->group_count; g++) {
        const ClientGroupSpec *spec = &scenario->client_groups[g];
        ClientGroup *group = &world->groups[g];
        group->spec = spec;
        group->retry = retry_for_mode(&spec->retry, world->mode);
        group->timeout_us = sim_time_us_from_ms(group->retry.timeout_ms);
        /* the bucket starts full, as gRPC's; in millionths of a token (client.c) */
        group->budget_tokens = (int64_t)(spec->retry.budget.max_tokens * 1000000 + 0.5);
        group->first_client = world->client_count;
        group->node = g;
        group->first_operation = world->operation_count;
        group->operations_per_client =
            spec->workload.at_count > 0 ? spec->workload.at_count : spec->workload.ops;
        group->orders_group = scenario_orders_group(scenario, g);
        group->expects_receipts = scenario_group_expects_receipts(scenario, spec);
        world->client_count += spec->count;
        world->operation_count += (uint64_t)spec->count * group->operations_per_client;
    }
    if (scenario_uses_same_orders(scenario))
        world->order_effects = sim_xcalloc(world->operation_count, sizeof *world->order_effects);
    if (scenario_uses_manual_capture(scenario))
        world->card_holds = sim_xcalloc(world->operation_count, sizeof *world->card_holds);
    world->clients = sim_xcalloc(world->client_count, sizeof *world->clients);
    operation_table_init(&world->operations);
    for (uint32_t g = 0; g < world->group_count; g++) {
        const ClientGroup *group = &world->groups[g];
        for (uint32_t i = 0; i < group->spec->count; i++) {
            uint32_t client = group->first_client + i;
            Client *c = &world->clients[client];
            c->group = g;
            c->index_in_group = i;
            c->first_operation =
                group->first_operation + (uint64_t)i * group->operations_per_client;
        }
    }
}

/* The order a request meets the services, left to right after the clients (each kind's
 * lane_order, node_kind.c, four keys apart): a server only the consumers call (a ledger)
 * follows them, and a kind that sits after its caller (the gateway) follows whoever
 * charges through it: the server, or else the consumers. */
static unsigned lane_key(const Scenario *scenario, NodeKind kind)
{
    bool clients_call_server = false;
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        clients_call_server |= scenario->client_groups[g].target == TARGET_SERVER;
    bool groups_call_server = false; /* any group's, the first's or a later one's */
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++)
        groups_call_server |= scenario_consumer_group(scenario, g)->calls_first_server;
    if (kind == NODE_SERVER && !clients_call_server && groups_call_server)
        return 4 * node_kind_info(NODE_CONSUMERS)->lane_order + 1;
    const NodeKindInfo *info = node_kind_info(kind);
    if (!info->lane_after_caller)
        return 4 * info->lane_order;
    bool consumers_charge = scenario_groups_call(scenario) && !scenario->server.use_gateway;
    return lane_key(scenario, consumers_charge ? NODE_CONSUMERS : NODE_SERVER) + 2;
}

static uint32_t service_lane(const Scenario *scenario, NodeKind kind)
{
    uint32_t lane = 0;
    for (unsigned i = 0; i < scenario_names_service.count; i++) {
        NodeKind other = (NodeKind)scenario_names_service.entries[i].value;
        lane += lane_key(scenario, other) < lane_key(scenario, kind);
    }
    return lane;
}

/* Where each server's call step goes, and the consumers': a gateway, or the called server it
 * names (its service's node: the balancer there picks the instance). */
static void wire_calls(World *world, const uint32_t called_node[CALLED_SERVERS_MAX])
{
    for (uint32_t i = 0; i < world->server_count; i++) {
        Server *server = &world->servers[i];
        uint32_t called = server->spec->call_server;
        server->call_node = called == 0 ? world->gateways[server->spec->call_gateway].node
                                        : called_node[called - 1];
    }
    for (uint32_t i = 0; i < world->consumer_count; i++) {
        const ConsumerSpec *group = world->consumers[i].spec;
        world->consumers[i].call_node = group->calls_first_server ? world->server_node
                                        : group->call_server > 0
                                            ? called_node[group->call_server - 1]
                                            : world->gateways[group->call_gateway].node;
    }
}

/* A gateway after the first is drawn beside the first when the same side charges there (the
 * servers, or the consumers), else right after the side that does (by node id: its node
 * comes after every server's and the consumers'). */
static uint32_t extra_gateway_lane(const World *world, uint32_t g)
{
    const Scenario *scenario = &world->scenario;
    bool by_servers = node_servers_charge_at(scenario, g);
    bool first_by_servers = node_servers_charge_at(scenario, 0);
    if (by_servers == first_by_servers)
        return world->group_count + service_lane(scenario, NODE_GATEWAY);
    return world->group_count + service_lane(scenario, by_servers ? NODE_SERVER : NODE_CONSUMERS);
}

/* Each service node's counters carry its names, so a report needs no world to say whose. */
static void name_service_metrics(World *world)
{
    Metrics *metrics = &world->metrics;
    metrics->service_count = world->node_count - world->group_count;
    for (uint32_t i = 0; i < metrics->service_count; i++) {
        const WorldNode *node = &world->nodes[world->group_count + i];
        ServiceMetrics *service = &metrics->services[i];
        snprintf(service->name, sizeof service->name, "%s", node->name);
        snprintf(service->service, sizeof service->service, "%s", node->service);
        service->kind = node->kind;
        service->lane = node->lane;
        service->instance_count = node->instance_count;
        service->active = node->active;
        if (node->instance_count > 1)
            metrics->instance_nodes |= 1ull << i;
        service->first_of_service = i;
        for (uint32_t k = 0; k < i; k++) {
            if (strcmp(metrics->services[k].service, service->service) == 0) {
                service->first_of_service = k;
                break;
            }
        }
    }
}

/* The node table: the client groups, then the service nodes as the scenario lists them
 * (scenario_service_nodes: node ids, and so link draws, never move when a node is added).
 * Each server node is a Server: the clients' server's instances first, then each called
 * server's, consecutive. A server's instances, and the servers it calls, are drawn in its
 * lane, by node id; a key store that crashes on its own (C38) after the services, and only
 * where the keys are used. */
static void build_nodes(World *world)
{
    const Scenario *scenario = &world->scenario;
    for (uint32_t g = 0; g < world->group_count; g++) {
        world->nodes[world->node_count++] = (WorldNode){
            .kind = NODE_CLIENT_GROUP,
            .name = scenario->client_groups[g].id,
            .service = scenario->client_groups[g].id,
            .instance_count = 1,
            .actor = g,
            .lane = g,
            .active = scenario->client_groups[g].count > 0,
        };
    }
    uint32_t count = scenario_service_nodes(scenario, world->service_nodes);
    uint32_t first_server[1 + CALLED_SERVERS_MAX]; /* by service: its instance 0's Server */
    uint32_t called_node[CALLED_SERVERS_MAX];
    uint32_t first_process[1 + PROXIES_EXTRA_MAX]; /* by proxy: its instance 0's ProxyProcess */
    uint32_t process_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        const ScenarioNode *spec = &world->service_nodes[i];
        if (spec->kind == NODE_SERVER && spec->instance == 0) {
            first_server[spec->number] = world->server_count;
            world->server_count += spec->instance_count;
        }
        if (spec->kind == NODE_PROXY && spec->instance == 0) {
            first_process[spec->number] = process_count;
            process_count += spec->instance_count;
        }
    }
    for (uint32_t p = 0; p < 1 + PROXIES_EXTRA_MAX; p++)
        world->proxy_nodes[p] = TRACE_NO_NODE;
    uint32_t server_lane = world->group_count + service_lane(scenario, NODE_SERVER);
    uint32_t consumers_lane = world->group_count + service_lane(scenario, NODE_CONSUMERS);
    for (uint32_t i = 0; i < count; i++) {
        const ScenarioNode *spec = &world->service_nodes[i];
        uint32_t node = world->node_count++;
        WorldNode *entry = &world->nodes[node];
        *entry = (WorldNode){
            .kind = spec->kind,
            .name = spec->name,
            .service = spec->service,
            .instance_count = spec->instance_count,
            .lane = world->group_count + service_lane(scenario, spec->kind),
            .active = node_kind_reached(scenario, spec->kind),
        };
        if (spec->kind == NODE_GATEWAY) {
            Gateway *gateway = &world->gateways[world->gateway_count];
            entry->actor = world->gateway_count++;
            gateway->number = spec->number;
            gateway->node = node;
            gateway->spec = scenario_gateway(scenario, spec->number);
            entry->active = node_gateway_reached(scenario, spec->number);
            if (spec->number > 0)
                entry->lane = extra_gateway_lane(world, spec->number);
        } else if (spec->kind == NODE_BROKER) {
            SIM_ASSERT(world->broker_count < BROKERS_MAX, "the loader allows BROKERS_MAX brokers");
            Broker *broker = &world->brokers[world->broker_count];
            entry->actor = world->broker_count++;
            broker->node = node;
            broker->spec = scenario_broker(scenario, spec->number);
            SIM_ASSERT(entry->actor == spec->number, "brokers come in their numbers' order");
            world->broker_nodes[spec->number] = node;
        } else if (spec->kind == NODE_PROXY) {
            /* a proxy's instances are consecutive processes; every proxy and instance is
             * drawn in the first proxy's lane */
            entry->actor = first_process[spec->number] + spec->instance;
            entry->active = scenario_proxy_used(scenario, spec->number);
            world->proxy.processes[entry->actor].proxy = spec->number;
            world->proxy.processes[entry->actor].node = node;
            if (spec->instance == 0)
                world->proxy_nodes[spec->number] = node;
        } else if (spec->kind == NODE_CONSUMERS) {
            /* every group's instances drawn in the consumers' lane, group by group: its
             * first instance's node comes before its others' (scenario_service_nodes) */
            entry->actor = world->consumer_count++;
            Consumers *consumers = &world->consumers[entry->actor];
            consumers->node = node;
            consumers->group = spec->number;
            consumers->spec = scenario_consumer_group(scenario, spec->number);
            consumers->broker = consumers->spec->broker;
        } else if (spec->kind == NODE_KEY_STORE) { /* number 0: the server's; g + 1: group g's */
            entry->actor = spec->number;
            entry->lane = world->group_count + NODE_KIND_COUNT + spec->number;
            entry->active =
                world->mode == MODE_IDEMPOTENT &&
                node_kind_reached(scenario, spec->number == 0 ? NODE_SERVER : NODE_CONSUMERS);
        } else if (spec->kind == NODE_SERVER) {
            entry->actor = first_server[spec->number] + spec->instance;
            entry->lane = server_lane;
            Server *server = &world->servers[entry->actor];
            server->node = node;
            if (spec->number == 0) {
                server->spec = &scenario->server;
            } else {
                server->spec = &scenario->called_servers[spec->number - 1].spec;
                entry->active = node_called_server_reached(scenario, spec->number - 1);
                if ((node_servers_called(scenario) & 1u << spec->number) == 0)
                    entry->lane = consumers_lane; /* only the consumers' calls reach it */
                if (spec->instance == 0)
                    called_node[spec->number - 1] = node;
            }
        }
    }
    world->server_node = world_node_of_kind(world, NODE_SERVER);
    world->instance_count = world->nodes[world->server_node].instance_count;
    name_service_metrics(world);
    for (uint32_t i = 0; i < world->server_count; i++)
        world->servers[i].counts = world_service_metrics(world, world->servers[i].node);
    world->gateway_node = world->gateways[0].node;
    wire_calls(world, called_node);
    SIM_ASSERT(world->broker_count > 0, "every world has a broker node");
    for (uint32_t i = 0; i < world->consumer_count; i++)
        SIM_ASSERT(world->consumers[i].broker < world->broker_count, "a group reads a broker");
    world->consumers_node = world_node_of_kind(world, NODE_CONSUMERS);
    world->proxy_node = world->proxy_nodes[0];
}

World *world_create(const Scenario *scenario, Mode mode, uint64_t seed, TraceSink trace,
                    WorldLimits limits)
{
    World *world = sim_xcalloc(1, sizeof *world);
    memcpy(&world->scenario, scenario, sizeof *scenario);
    world->mode = mode;
    world->seed = seed;
    for (int purpose = 0; purpose < DRAW_PURPOSE_COUNT; purpose++)
        world->draw_prefix[purpose] = rng_hash_prefix(seed, (uint64_t)purpose);
    world->trace = trace;
    world->limits = limits;
    if (scenario->faults_forced)
        world->fault_plan = fault_plan_create(scenario);
    world->duration_us = sim_time_us_from_ms(scenario->duration_ms);
    if (world->limits.max_events == 0)
        world->limits.max_events = WORLD_DEFAULT_MAX_EVENTS;
    if (world->limits.max_memory_bytes == 0)
        world->limits.max_memory_bytes = WORLD_DEFAULT_MAX_MEMORY_BYTES;
    if (world->limits.max_sim_time_us == 0)
        world->limits.max_sim_time_us = world->duration_us + DEFAULT_EXTRA_SIM_TIME_US;
    if (world->limits.max_sim_time_us > WORLD_SIM_TIME_MAX_US)
        world->limits.max_sim_time_us = WORLD_SIM_TIME_MAX_US; /* no overflow past it */
    if (world->limits.max_events_per_instant == 0)
        world->limits.max_events_per_instant = WORLD_DEFAULT_MAX_EVENTS_PER_INSTANT;
    slot_pool_init(&world->message_slots, 256);
    slot_pool_init(&world->job_slots, 64);
    world->fresh_job = (Job){.gateway_timer = EVENT_ID_NONE};
    histogram_init(&world->metrics.latency_us);
    uint64_t bucket_us = world->duration_us / TIME_SERIES_BUCKETS;
    time_series_init(&world->metrics.key_store_series, bucket_us);
    time_series_init(&world->metrics.queue_depth_series, bucket_us);
    time_series_init(&world->metrics.in_flight_series, bucket_us);
    count_series_init(&world->metrics.attempts_series, SIM_US_PER_MS * 100);
    count_series_init(&world->metrics.succeeded_series, SIM_US_PER_MS * 100);
    world->metrics.duration_us = world->duration_us;
    world->metrics.group_count = scenario->client_group_count;
    world->sim = sim_create(dispatch, world);
    build_clients(world);
    build_nodes(world);
    if (limits.max_events_per_instant == 0)
        world->limits.max_events_per_instant += 64ull * world->client_count;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const OperationSpec *operation = &scenario->client_groups[g].operation;
        if (operation->kind == OPERATION_DEBIT &&
            (uint64_t)operation->amount > world->max_money_step)
            world->max_money_step = (uint64_t)operation->amount;
    }
    network_init(world);
    ledger_init(world);
    SIM_ASSERT(node_models[NODE_SERVER]->on_message[MESSAGE_REQUEST] == server_takes_request &&
                   node_models[NODE_CLIENT_GROUP]->on_message[MESSAGE_RESPONSE] ==
                       client_on_response,
               "the routes on_message_arrive calls directly are the registered ones");
    /* Each kind's model (node_models.c), the services in kind order, then the client groups:
     * their first operations are scheduled after every service's own timers. */
    for (int kind = 0; kind < NODE_KIND_COUNT; kind++) {
        SIM_ASSERT(node_models[kind] != NULL, "every node kind registers its model");
        if (kind != NODE_CLIENT_GROUP && node_models[kind]->init != NULL)
            node_models[kind]->init(world);
    }
    node_models[NODE_CLIENT_GROUP]->init(world);
    return world;
}

void world_destroy(World *world)
{
    if (world == NULL)
        return;
    memory_account_release(world->memory_charged);
    for (int kind = 0; kind < NODE_KIND_COUNT; kind++) {
        if (node_models[kind]->release != NULL)
            node_models[kind]->release(world);
    }
    sim_destroy(world->sim);
    free(world->clients);
    operation_table_release(&world->operations);
    free(world->links);
    free(world->outages);
    free(world->messages);
    free(world->jobs);
    slot_pool_release(&world->message_slots);
    slot_pool_release(&world->job_slots);
    ledger_release(world);
    free(world->order_effects);
    free(world->card_holds);
    fault_plan_destroy(world->fault_plan);
    free(world);
}

/* ------------------------------------------------------------------ settling outcomes */

/* Charges net of refunds decide: a refunded charge is no charge, and a charge refunded
 * twice is a refund the merchant paid out of pocket (counted apart, double_refunds). */
static Outcome classify(const Operation *op, Belief belief)
{
    if (op->refunds > 0 && op->refunds >= op->effects)
        return OUTCOME_REFUNDED;
    uint32_t charged = op->effects - op->refunds;
    if (charged >= 2)
        return OUTCOME_DOUBLE;
    if (op->mismatch)
        return OUTCOME_MISMATCH;
    if (charged == 0)
        return op->declined ? OUTCOME_DECLINED : OUTCOME_LOST;
    return belief == BELIEF_SUCCEEDED ? OUTCOME_OK : OUTCOME_PHANTOM;
}

static Belief belief_of(const Operation *op)
{
    Belief belief = BELIEF_UNKNOWN;
    for (uint32_t c = 0; c < op->click_count; c++) {
        if (op->clicks[c].result == BELIEF_SUCCEEDED)
            return BELIEF_SUCCEEDED;
        if (op->clicks[c].result == BELIEF_FAILED)
            belief = BELIEF_FAILED;
    }
    return belief;
}

/* C33: an order two paths fulfil took effect once per path that ran it; each path's request
 * is its own operation with its own outcome, and the harm is counted per order here. */
static void count_order_effects(World *world, const Operation *op)
{
    const ClientGroup *group = &world->groups[world->clients[op->client].group];
    const ClientGroup *orders = &world->groups[group->orders_group];
    uint64_t order = orders->first_operation + (op->id - group->first_operation);
    uint32_t before = world->order_effects[order];
    /* net of refunds; a refund given twice leaves nothing shipped, never less */
    uint32_t after = before + (op->effects > op->refunds ? op->effects - op->refunds : 0);
    world->order_effects[order] = after;
    world->metrics.orders_fulfilled_twice += before < 2 && after >= 2;
}

/* Once in the share of each service of several instances that some of them took in. */
static void count_instances_outcome(Metrics *metrics, uint64_t instances, Outcome outcome,
                                    int64_t double_amount, int64_t lost_amount)
{
    uint64_t by_service = 0;
    for (; instances != 0; instances &= instances - 1)
        by_service |= 1ull << metrics->services[__builtin_ctzll(instances)].first_of_service;
    for (; by_service != 0; by_service &= by_service - 1) {
        OutcomeShare *share = &metrics->service_reached[__builtin_ctzll(by_service)];
        share->outcomes[outcome]++;
        share->double_amount += double_amount;
        share->lost_amount += lost_amount;
    }
}

/* The money of a double or a lost operation, in each node's share it counts in. */
static void add_amounts_to_shares(Metrics *metrics, uint64_t services, int64_t double_amount,
                                  int64_t lost_amount)
{
    for (; services != 0; services &= services - 1) {
        metrics->reached[__builtin_ctzll(services)].double_amount += double_amount;
        metrics->reached[__builtin_ctzll(services)].lost_amount += lost_amount;
    }
}

/* The operation's outcome in the share of each service node it reached, and once in its
 * service's (instances of one service may each have taken it in). On every operation's
 * settling (PAY-1's millions), the usual one reached a node or two and moved no money beyond
 * its charge: the rest is apart. */
static void count_service_outcomes(World *world, const Operation *op, Outcome outcome,
                                   int64_t double_amount, int64_t lost_amount)
{
    Metrics *metrics = &world->metrics;
    uint64_t services = *operation_table_services_reached(&world->operations, op);
    if (services == 0) {
        metrics->operations_reaching_no_service++;
        return;
    }
    uint64_t reached = services;
    do {
        metrics->reached[__builtin_ctzll(reached)].outcomes[outcome]++;
        reached &= reached - 1;
    } while (reached != 0);
    if ((double_amount | lost_amount) != 0)
        add_amounts_to_shares(metrics, services, double_amount, lost_amount);
    if ((services & metrics->instance_nodes) != 0)
        count_instances_outcome(metrics, services & metrics->instance_nodes, outcome, double_amount,
                                lost_amount);
}

/* Adds a finished (or, at a budget stop, abandoned) operation to the outcome counts. */
static void count_outcome(World *world, const Operation *op)
{
    Metrics *metrics = &world->metrics;
    const ClientGroupSpec *spec = world->groups[world->clients[op->client].group].spec;
    Belief belief = belief_of(op);
    metrics->client_succeeded += belief == BELIEF_SUCCEEDED;
    metrics->client_failed += belief == BELIEF_FAILED;
    metrics->client_unknown += belief == BELIEF_UNKNOWN;
    Outcome outcome = classify(op, belief);
    if (world->card_holds != NULL) { /* C35: what the customer's card shows */
        const CardHolds *card = &world->card_holds[op->id];
        uint32_t released = card->captures + card->voids;
        metrics->orphan_holds += card->holds > released ? card->holds - released : 0;
        metrics->double_holds += card->holds >= 2;
    }
    if (world->order_effects != NULL) {
        /* C33: a path told success with nothing run for its own request was answered from
         * the other path's record of the same order (client.c answers_operation): the order
         * took effect, and this path was told so. */
        if (outcome == OUTCOME_LOST && belief == BELIEF_SUCCEEDED)
            outcome = OUTCOME_OK;
        count_order_effects(world, op);
    }
    metrics->outcomes[outcome]++;
    world->metrics.operations_settled++;
    if (world_tracing(world)) /* the ground truth, for whoever reads the trace */
        world_trace_client(world, op->client, TRACE_SETTLED, op->id, 0, 0, op->effects, outcome);
    int64_t amount = spec->operation.kind == OPERATION_DEBIT ? spec->operation.amount : 0;
    OutcomeShare *share = &metrics->groups[world->clients[op->client].group];
    share->outcomes[outcome]++;
    if (outcome == OUTCOME_DOUBLE) {
        int64_t beyond_first = amount * (op->effects - op->refunds - 1);
        metrics->double_amount += beyond_first;
        share->double_amount += beyond_first;
    }
    /* A declined or refunded payment was meant to end with nothing charged: the balance the
     * account should hold gets its amount back, so actual - expected shows only harm. */
    if (outcome == OUTCOME_DECLINED || outcome == OUTCOME_REFUNDED)
        metrics->balances[spec->account].expected += amount;
    if (op->refunds > op->effects) {
        metrics->double_refunds++;
        metrics->double_refund_amount += amount * (op->refunds - op->effects);
    }
    if (outcome == OUTCOME_LOST) {
        metrics->lost_amount += amount;
        share->lost_amount += amount;
    }
    count_service_outcomes(world, op, outcome,
                           outcome == OUTCOME_DOUBLE ? amount * (op->effects - op->refunds - 1) : 0,
                           outcome == OUTCOME_LOST ? amount : 0);
    /* The operations' own count of their charges, kept apart from the ledger's balances so
     * that the conservation check compares two independent records. */
    ledger_count_settled(world, spec->account, amount * ((int64_t)op->effects - op->refunds));
    if (world->groups[world->clients[op->client].group].expects_receipts) {
        metrics->receipts_sent += op->receipts;
        metrics->receipts_duplicated += op->receipts > 1;
        metrics->receipts_missing += op->effects > 0 && op->receipts == 0;
        metrics->receipts_orphaned += op->effects == 0 && op->receipts > 0;
    }
}

void world_operation_settle(World *world, Operation *op)
{
    count_outcome(world, op);
    if (op->broker_messages != OPERATION_NO_SLOT)
        broker_release_operation(world, op);
    if (op->outbox_entries != OPERATION_NO_SLOT)
        server_charge_release_operation(world, op);
    operation_table_remove(&world->operations, op->id);
}

uint32_t world_client_of_operation(const World *world, uint64_t id)
{
    uint32_t g = world->group_count - 1;
    while (g > 0 && world->groups[g].first_operation > id)
        g--;
    const ClientGroup *group = &world->groups[g];
    uint64_t offset = id - group->first_operation;
    /* A 32-bit division where it fits (every scenario within its operation budget): the
     * handlers ask this several times per event, and a 64-bit one costs several times more. */
    if (offset <= UINT32_MAX)
        return group->first_client + (uint32_t)offset / group->operations_per_client;
    return group->first_client + (uint32_t)(offset / group->operations_per_client);
}

void world_operation_finished(World *world, Operation *op)
{
    op->finished = true;
    if (op->references == 0)
        world_operation_settle(world, op);
}

static void count_abandoned(void *context, Operation *op)
{
    count_outcome(context, op);
}

/* A parked sweep has no events, but a running one would have gone on until nothing else was
 * pending and recorded the key-store level at that last run: the C12 charts show the level
 * to the end of the run. That last run is the first grid instant at or after the end. */
static void record_parked_sweeps_last_run(World *world)
{
    if (world->stop.kind != WORLD_STOP_NONE)
        return;
    for (uint32_t side = 0; side < world->store_count; side++) {
        if (!world->sweep_parked[side])
            continue;
        SimTimeUs last_run = grid_at_or_after(world->sweep_origin_us[side],
                                              world->sweep_interval_us[side], sim_now(world->sim));
        if (last_run <= world->limits.max_sim_time_us)
            time_series_record(&world->metrics.key_store_series, last_run,
                               world->metrics.key_store_rows);
    }
}

static void settle(World *world)
{
    if (world->settled)
        return;
    world->settled = true;
    record_parked_sweeps_last_run(world);
    Metrics *metrics = &world->metrics;
    /* Left in the table: stopped by a budget, or still referenced by a message that can no
     * longer arrive. Counted as they stand; the table frees them with the world. */
    SIM_ASSERT(world->stop.kind != WORLD_STOP_NONE || world->operations.count == 0,
               "a run that ended by itself leaves no operation in progress");
    operation_table_visit(&world->operations, count_abandoned, world);
    SIM_ASSERT(metrics->operations_settled == metrics->operations,
               "each operation has exactly one outcome");
    SIM_ASSERT(metrics->doubles_so_far == metrics->outcomes[OUTCOME_DOUBLE] &&
                   metrics->double_amount_so_far == metrics->double_amount,
               "the live double count ends equal to the settled one");
    ledger_check_conservation(world);
    metrics->stale_final = ledger_count_stale_records(world);
    SIM_ASSERT(metrics->key_store_rows == stores_rows(world),
               "key-store size equals its live rows");
    metrics->events = sim_events_processed(world->sim);
    metrics->operations_peak_in_progress = world->operations.peak;
}

/* ------------------------------------------------------------------ running */

/* Each broker's queued messages (the pool that grows), with its queues when asked. */
static uint64_t brokers_memory_bytes(const World *world, bool with_queues)
{
    uint64_t bytes = 0;
    for (uint32_t b = 0; b < world->broker_count; b++) {
        const Broker *broker = &world->brokers[b];
        bytes += (uint64_t)broker->message_slots.capacity * sizeof *broker->messages;
        if (!with_queues)
            continue;
        bytes += slot_pool_memory_bytes(&broker->message_slots);
        for (uint32_t q = 0; q < broker->queue_count; q++) {
            const BrokerQueue *queue = &broker->queues[q];
            bytes += (uint64_t)queue->ready.capacity * sizeof(uint32_t) +
                     (queue->recent_ids ? idem_store_memory_bytes(queue->recent_ids) : 0);
        }
    }
    return bytes;
}

/* The servers' queues and the consumer instances' buffers. */
static uint64_t queues_capacity(const World *world)
{
    uint64_t capacity = 0;
    for (uint32_t i = 0; i < world->server_count; i++)
        capacity += world->servers[i].queue.capacity;
    for (uint32_t i = 0; i < world->consumer_count; i++)
        capacity += world->consumers[i].buffer.capacity;
    return capacity;
}

uint64_t world_memory_bytes(const World *world)
{
    return sizeof *world + sim_memory_bytes(world->sim) +
           operation_table_memory_bytes(&world->operations) +
           (uint64_t)world->client_count * sizeof *world->clients +
           (uint64_t)world->message_slots.capacity * sizeof *world->messages +
           slot_pool_memory_bytes(&world->message_slots) +
           (uint64_t)world->job_slots.capacity * sizeof *world->jobs +
           slot_pool_memory_bytes(&world->job_slots) + stores_memory_bytes(world) +
           brokers_memory_bytes(world, true) +
           (uint64_t)world->servers[0].outbox_slots.capacity * sizeof *world->servers[0].outbox +
           slot_pool_memory_bytes(&world->servers[0].outbox_slots) + gateways_memory_bytes(world) +
           proxy_memory_bytes(world) + queues_capacity(world) * sizeof(uint32_t);
}

#define BUDGET_CHECK_INTERVAL 4096 /* events between two looks at memory and money */

static void stop_with(World *world, WorldStopKind kind, uint64_t limit)
{
    world->stop = (WorldStop){.kind = kind, .limit = limit, .at_us = sim_now(world->sim)};
}

/* How many more events may run before the money moved could pass WORLD_MONEY_MAX: an event
 * executes at most one operation (server, consumer or gateway), which moves at most the
 * largest debit. Balances move by debits and by refunds (a refund given twice lifts an
 * account above where it began), so what has moved is how far each is from its start. */
static uint64_t money_events_left(const World *world)
{
    if (world->max_money_step == 0)
        return UINT64_MAX;
    uint64_t moved = 0;
    for (uint32_t a = 0; a < world->scenario.account_count; a++) {
        uint64_t initial = (uint64_t)world->scenario.accounts[a].balance;
        uint64_t now = (uint64_t)world->ledger.balances[a];
        uint64_t away = world->ledger.balances[a] <= world->scenario.accounts[a].balance
                            ? initial - now
                            : now - initial;
        moved += away > (uint64_t)WORLD_MONEY_MAX ? (uint64_t)WORLD_MONEY_MAX : away;
    }
    if (moved >= (uint64_t)WORLD_MONEY_MAX)
        return 0;
    return ((uint64_t)WORLD_MONEY_MAX - moved) / world->max_money_step;
}

/* The most the pools that grow with the work can add before the next look (the event
 * queue, the operations, messages and jobs, the key stores, the broker's messages; the
 * smaller ones, as the gateways' records and the outbox, left out): each pool doubles, so as
 * much as it holds now, and between two looks several may grow (the operation table and the
 * message pool of a crowd grow together): their growths summed. Stopping when the account plus this
 * passes the budget keeps the peak within the budget instead of a doubling past it (a
 * million clients: 980 MiB held, 1.7 GB after the operation table doubled, budget 1 GiB). */
static uint64_t growth_bytes(const World *world)
{
    uint64_t growth = sim_memory_bytes(world->sim) +
                      operation_table_memory_bytes(&world->operations) +
                      (uint64_t)world->message_slots.capacity * sizeof *world->messages +
                      (uint64_t)world->job_slots.capacity * sizeof *world->jobs +
                      brokers_memory_bytes(world, false);
    for (uint32_t side = 0; side < world->store_count; side++)
        growth += idem_store_memory_bytes(store_of_side(world, side)->store);
    return growth;
}

/* Memory and money cost more than a comparison: looked at every BUDGET_CHECK_INTERVAL
 * events, or sooner when money is close to its bound. The memory budget is this world's own
 * (the command line divides the process's between the worlds it runs at once), so whether
 * it stops never depends on siblings' timing; its storage is still charged to the
 * process-wide account, which counts what the whole process holds. */
static bool costly_budget_exhausted(World *world, uint64_t events)
{
    uint64_t used = world_memory_bytes(world);
    memory_account_update(&world->memory_charged, used);
    if (used > world->limits.max_memory_bytes ||
        growth_bytes(world) > world->limits.max_memory_bytes - used) {
        stop_with(world, WORLD_STOP_MEMORY, world->limits.max_memory_bytes);
        return true;
    }
    uint64_t money_left = money_events_left(world);
    if (money_left == 0) {
        stop_with(world, WORLD_STOP_MONEY, (uint64_t)WORLD_MONEY_MAX);
        return true;
    }
    world->next_costly_check =
        events + (money_left < BUDGET_CHECK_INTERVAL ? money_left : BUDGET_CHECK_INTERVAL);
    return false;
}

/* Same instant as at the last look: counts toward the no-progress budget. Looked at per
 * batch, so a livelock is caught within a batch of the limit. */
static bool no_progress(World *world, uint64_t events)
{
    SimTimeUs now = sim_now(world->sim);
    if (now != world->instant_us) {
        world->instant_us = now;
        world->instant_first_event = events;
        return false;
    }
    return events - world->instant_first_event >= world->limits.max_events_per_instant;
}

static bool budget_exhausted(World *world)
{
    if (world->limits.trace_full != NULL) { /* a trace cut short is not a result: say so */
        uint64_t trace_limit = world->limits.trace_full(world->trace.context);
        if (trace_limit != 0) {
            stop_with(world, WORLD_STOP_TRACE, trace_limit);
            return true;
        }
    }
    uint64_t events = sim_events_processed(world->sim);
    if (events >= world->next_costly_check && costly_budget_exhausted(world, events))
        return true;
    if (events >= world->limits.max_events) {
        stop_with(world, WORLD_STOP_EVENTS, world->limits.max_events);
        return true;
    }
    if (no_progress(world, events)) {
        stop_with(world, WORLD_STOP_NO_PROGRESS, world->limits.max_events_per_instant);
        return true;
    }
    SimTimeUs next = sim_next_time(world->sim);
    if (next != SIM_TIME_NEVER && next > world->limits.max_sim_time_us) {
        /* With every operation settled, what lies past the budget is housekeeping (a key
         * store's next sweep): the run is over, not stopped. */
        if (!world_outcomes_final(world))
            stop_with(world, WORLD_STOP_SIM_TIME, world->limits.max_sim_time_us);
        return true;
    }
    return false;
}

bool world_step(World *world)
{
    if (world->finished)
        return false;
    if (budget_exhausted(world) || !sim_step(world->sim)) {
        world->finished = true;
        settle(world);
        return false;
    }
    return true;
}

/* The same budgets as world_step, checked once per batch of events rather than per event:
 * a batch ends exactly where world_step would have stopped. */
uint64_t world_run_events(World *world, uint64_t count)
{
    uint64_t started = sim_events_processed(world->sim);
    for (uint64_t ran = 0; !world->finished && ran < count;
         ran = sim_events_processed(world->sim) - started) {
        uint64_t done = sim_events_processed(world->sim);
        uint64_t to_check = world->next_costly_check > done ? world->next_costly_check - done : 0;
        uint64_t to_budget = world->limits.max_events > done ? world->limits.max_events - done : 0;
        uint64_t batch = to_check < to_budget ? to_check : to_budget;
        if (batch > count - ran - 1)
            batch = count - ran - 1; /* world_step below runs one more */
        if (batch > 0)
            sim_run_bounded(world->sim, world->limits.max_sim_time_us, batch);
        world_step(world); /* checks every budget where the batch ended, then runs one more */
    }
    return sim_events_processed(world->sim) - started;
}

void world_run(World *world)
{
    while (!world->finished)
        world_run_events(world, UINT64_MAX);
}

void world_run_until(World *world, SimTimeUs until_us)
{
    while (!world->finished) {
        SimTimeUs next = sim_next_time(world->sim);
        if (next != SIM_TIME_NEVER && next > until_us)
            break;
        world_step(world);
    }
    if (!world->finished && sim_now(world->sim) < until_us)
        sim_run_until(world->sim, until_us);
}

SimTimeUs world_next_event_us(World *world)
{
    return world->finished ? SIM_TIME_NEVER : sim_next_time(world->sim);
}

bool world_finished(const World *world)
{
    return world->finished;
}

bool world_outcomes_final(const World *world)
{
    return world->finished || (world->starts_scheduled == 0 &&
                               world->metrics.operations_settled == world->metrics.operations);
}

WorldStop world_stop(const World *world)
{
    return world->stop;
}

SimTimeUs world_now(const World *world)
{
    return sim_now(world->sim);
}
Mode world_mode(const World *world)
{
    return world->mode;
}
const Metrics *world_metrics(const World *world)
{
    return &world->metrics;
}

const Scenario *world_scenario(const World *world)
{
    return &world->scenario;
}

/* Every store: the server's (the shared one, or every instance's own) and the consumer
 * groups'. Only a store that crashes on its own (C38) is ever down. */
bool world_key_store_down(const World *world)
{
    for (uint32_t side = 0; side < world->store_count; side++) {
        if (world->stores[side]->down)
            return true;
    }
    return false;
}

bool world_server_key_store_down(const World *world)
{
    for (uint32_t side = 0; side < world->store_count; side++) {
        if (!store_is_consumers(world, side) && world->stores[side]->down)
            return true;
    }
    return false;
}

uint64_t world_key_store_rows(const World *world)
{
    uint64_t rows = 0;
    for (uint32_t side = 0; side < world->store_count; side++) {
        if (!store_is_consumers(world, side))
            rows += idem_store_rows(store_of_side(world, side)->store);
    }
    return rows;
}

void world_visit_key_rows(const World *world, void (*visit)(void *context, const KeyRow *row),
                          void *context)
{
    for (uint32_t side = 0; side < world->store_count; side++) {
        if (!store_is_consumers(world, side))
            idem_store_visit(store_of_side(world, side)->store, visit, context);
    }
}

uint64_t world_messages_in_flight(const World *world)
{
    return world->messages_in_flight;
}
uint32_t world_server_busy(const World *world)
{
    uint32_t busy = 0;
    for (uint32_t i = 0; i < world->instance_count; i++)
        busy += world->servers[i].busy;
    return busy;
}
uint32_t world_server_queue_length(const World *world)
{
    uint32_t length = 0;
    for (uint32_t i = 0; i < world->instance_count; i++)
        length += world->servers[i].queue.length;
    return length;
}

bool world_operation_view(const World *world, uint64_t operation, OperationView *view)
{
    if (operation >= world->operation_count)
        return false;
    const Operation *op = operation_table_find(&world->operations, operation);
    const Client *client = &world->clients[world_client_of_operation(world, operation)];
    *view = (OperationView){
        .group = client->group,
        .client_in_group = client->index_in_group,
        .account = world->groups[client->group].spec->account,
        .effects = op != NULL ? op->effects : 0,
        .in_progress = op != NULL,
        .finished = op != NULL && op->finished,
    };
    return true;
}

bool world_status_record(const World *world, uint32_t group, uint32_t client_in_group,
                         uint32_t *status, uint32_t *newest)
{
    if (group >= world->group_count || world->ledger.status == NULL)
        return false;
    const ClientGroup *client_group = &world->groups[group];
    if (client_group->spec->operation.resource != RESOURCE_PER_CLIENT ||
        client_in_group >= client_group->spec->count)
        return false;
    uint32_t client = client_group->first_client + client_in_group;
    *status = world->ledger.status[client];
    *newest = world->ledger.newest_status[client];
    return true;
}
