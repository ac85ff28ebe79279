/* Fault plans. A decision point is named by its draw's words (a, b, c): the same identity
 * the counter-based draw uses, so a forced fault meets exactly the message, click or
 * handler run whose fate it replaces. The words are turned into readable fields (operation,
 * click, attempt, hop, copy) here and back, in the layouts of the call sites: network.c's
 * identity_word and gateway.c's charge_identity (attempt << 16 | click << 8 | hop, with
 * the gateway's number from bit 40 in the latter: 0 for the first, so the same as the former),
 * world_draw_about (attempt << 8 | click), client.c's (operation, click, attempt). */
#include "fault_plan.h"

#include <stdlib.h>
#include <string.h>

#include "node_kind.h"
#include "rng.h"
#include "sim_assert.h"

struct FaultPlan {
    FaultSpec forced[FAULTS_MAX];
    bool met[FAULTS_MAX];
    uint32_t forced_count;
    SimTimeUs late_us;
    FaultSpec *points;
    uint32_t point_count;
    uint32_t point_capacity;
    uint32_t *index; /* open addressing: point number + 1, 0 empty; twice the capacity */
    uint32_t overflow;
};

/* ------------------------------------------------------------------ identities */

static bool network_layout(FaultKind kind)
{
    return kind == FAULT_LOSS || kind == FAULT_DUPLICATE || kind == FAULT_DELAY ||
           kind == FAULT_GATEWAY_DECLINE || kind == FAULT_GATEWAY_SILENT;
}

static bool request_layout(FaultKind kind)
{
    return kind == FAULT_CRASH || kind == FAULT_FAIL_BEFORE_EFFECT ||
           kind == FAULT_FAIL_AFTER_EFFECT || kind == FAULT_CONSUMER_CRASH ||
           kind == FAULT_FULFIL_FAIL || kind == FAULT_STALE_CONNECTION ||
           kind == FAULT_CLOSE_BEFORE_ANSWER || kind == FAULT_CAPTURE_LOST ||
           kind == FAULT_PROXY_CRASH;
}

static FaultSpec spec_of_words(FaultKind kind, uint64_t a, uint64_t b, uint64_t c)
{
    FaultSpec spec = {.kind = kind, .operation = a};
    if (network_layout(kind)) {
        spec.attempt = (uint32_t)((b >> 16) & 0xffffff);
        spec.gateway = (uint32_t)(b >> 40);
        spec.click = (uint32_t)((b >> 8) & 0xff);
        spec.hop = (FaultHop)(b & 0xff);
        spec.copy = c;
    } else if (request_layout(kind)) {
        spec.attempt = (uint32_t)(b >> 8);
        spec.click = (uint32_t)(b & 0xff);
        spec.copy = c;
    } else if (kind == FAULT_OFFLINE) {
        spec.click = (uint32_t)b;
        spec.attempt = (uint32_t)c;
    } else if (kind == FAULT_APP_RESTART) {
        spec.click = (uint32_t)b;
    }
    return spec;
}

/* by_ms is not part of the identity: a delay fault is the same decision however late. */
static bool same_decision(const FaultSpec *x, const FaultSpec *y)
{
    return x->kind == y->kind && x->operation == y->operation && x->click == y->click &&
           x->attempt == y->attempt && x->hop == y->hop && x->gateway == y->gateway &&
           x->copy == y->copy;
}

static uint64_t hash_of(const FaultSpec *spec)
{
    uint64_t h = rng_mix64(spec->operation ^ ((uint64_t)spec->kind << 56));
    h = rng_mix64(h ^ (((uint64_t)spec->gateway << 40) | ((uint64_t)spec->attempt << 16) |
                       ((uint64_t)spec->click << 8) | spec->hop));
    return rng_mix64(h ^ spec->copy);
}

/* ------------------------------------------------------------------ the plan */

static void at_least(double *longest, double ms)
{
    if (ms > *longest)
        *longest = ms;
}

/* The clients' server's own timers, past which a late copy meets a second try: an outbox
 * relay resends an event (a receipt, an order API's order) the broker has not confirmed
 * within outbox_relay_ms, so a publish or a confirm later than that is a second event; after
 * a gateway timeout, reconciliation asks the gateway again every reconcile_ms, so an answer
 * later than that meets a second question. */
static void server_timers(const Scenario *scenario, NodeReach reach, double *longest)
{
    const ServerSpec *server = &scenario->server;
    if (!reach.to_server)
        return;
    if (scenario_server_publishes(server) && server->receipts_via == RECEIPTS_OUTBOX)
        at_least(longest, server->outbox_relay_ms);
    if (server->use_gateway && server->reconcile_ms > 0)
        at_least(longest, server->reconcile_ms);
}

/* The key stores' lock timeouts: a row still processing lock_timeout_ms after it was
 * reserved is handed to the retry that finds it (on a log, the partition's consumer tries
 * the record again after it), so a copy later than that runs while the first holder still
 * works, or finds its row taken over. A store counts where it is configured and its owner
 * reached, whatever the mode: the plan is one per scenario. */
static void store_timers(const Scenario *scenario, NodeReach reach, double *longest)
{
    if (reach.to_server)
        at_least(longest, scenario->server.idempotency.lock_timeout_ms);
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (node_called_server_reached(scenario, c))
            at_least(longest, scenario->called_servers[c].spec.idempotency.lock_timeout_ms);
    }
    for (uint32_t g = 0; reach.to_broker && g <= scenario->extra_consumer_count; g++)
        at_least(longest, scenario_consumer_group(scenario, g)->idempotency.lock_timeout_ms);
}

/* A broker's own timers: a visibility-timeout queue's ack timeout; a channel's
 * consumer_timeout_ms (a delivery held past it closes the channel), its queues' ack
 * timeout being an unused default; a log has neither. The consumer timeout counts only
 * when the run is at least as long: it guards against a stuck consumer (RabbitMQ's
 * default is half an hour), and a shorter run makes it fire only by a copy late by that
 * much. Counted, every delay fault was that late, so every late copy came after the run
 * had settled: no late copy met a retry in flight, the race the delay fault is for; a
 * late ack did what a lost one does (its channel closed in the drain), a late request
 * found its client long gone. A lost ack still shows the closed channel's second run. */
static void broker_timers(const BrokerSpec *spec, double duration_ms, double *longest)
{
    if (spec->family == BROKER_CHANNEL && spec->consumer_timeout_ms <= duration_ms)
        at_least(longest, spec->consumer_timeout_ms);
    for (uint32_t q = 0; spec->family == BROKER_VISIBILITY_TIMEOUT && q < spec->queue_count; q++)
        at_least(longest, spec->queues[q].ack_timeout_ms);
    /* a queue's publisher dedup (none on a log): a copy of a publish arriving more than
     * dedup_window_ms after the first is taken as a new message */
    for (uint32_t q = 0; q < spec->queue_count; q++)
        at_least(longest, spec->queues[q].dedup_window_ms);
}

/* The longest timer of the services the scenario uses, past which a late copy arrives after
 * whoever waited for it gave up or went on (an unused broker's default ack timeout would make
 * every delay fault half a minute long; docs/explore.md lists the timers). */
static double longest_timeout_ms(const Scenario *scenario)
{
    double longest = 0;
    /* the broker and its groups: what client groups publish, or an order API */
    NodeReach reach = node_reach_of(scenario);
    bool broker = reach.to_broker;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        at_least(&longest, scenario->client_groups[g].retry.timeout_ms);
    }
    bool server_calls = reach.to_server && scenario->server.use_gateway;
    if (server_calls || (broker && scenario_groups_call(scenario))) {
        for (uint32_t g = 0; g <= scenario->extra_gateway_count; g++)
            at_least(&longest, scenario_gateway(scenario, g)->timeout_ms);
    }
    /* a call step's own timeout (0: the gateway's, above): the servers', the consumer
     * groups', and a saga's refund's (its undo) */
    const CallSpec *calls[2 * (1 + CALLED_SERVERS_MAX + 1 + CONSUMER_GROUPS_EXTRA_MAX)] = {
        server_calls ? &scenario->server.call : NULL,
        server_calls && scenario->server.undo.enabled ? &scenario->server.undo.call : NULL};
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        const ServerSpec *called = &scenario->called_servers[c].spec;
        calls[2 + c] =
            called->use_gateway && node_called_server_reached(scenario, c) ? &called->call : NULL;
    }
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, g);
        size_t at = 2 + CALLED_SERVERS_MAX + 2 * g;
        calls[at] = broker && group->use_gateway ? &group->call : NULL;
        calls[at + 1] =
            broker && group->use_gateway && group->undo.enabled ? &group->undo.call : NULL;
    }
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++) {
        if (calls[k] != NULL)
            at_least(&longest, calls[k]->timeout_ms);
    }
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) {
        if (scenario_proxy_used(scenario, p))
            at_least(&longest, scenario_proxy(scenario, p)->per_try_timeout_ms);
    }
    for (uint32_t b = 0; broker && b <= scenario->extra_broker_count; b++)
        broker_timers(scenario_broker(scenario, b), scenario->duration_ms, &longest);
    server_timers(scenario, reach, &longest);
    store_timers(scenario, reach, &longest);
    return longest;
}

FaultPlan *fault_plan_create(const Scenario *scenario)
{
    FaultPlan *plan = sim_xcalloc(1, sizeof *plan);
    plan->forced_count = scenario->fault_count;
    memcpy(plan->forced, scenario->faults, sizeof plan->forced[0] * scenario->fault_count);
    plan->late_us = sim_time_us_from_ms(longest_timeout_ms(scenario) + 1.0);
    return plan;
}

void fault_plan_destroy(FaultPlan *plan)
{
    if (plan == NULL)
        return;
    free(plan->points);
    free(plan->index);
    free(plan);
}

static void grow(FaultPlan *plan)
{
    uint32_t capacity = plan->point_capacity == 0 ? 64 : plan->point_capacity * 2;
    plan->points = sim_xrealloc(plan->points, (unsigned long long)capacity * sizeof *plan->points);
    free(plan->index);
    plan->index = sim_xcalloc((unsigned long long)capacity * 2, sizeof *plan->index);
    plan->point_capacity = capacity;
    for (uint32_t i = 0; i < plan->point_count; i++) {
        uint64_t slot = hash_of(&plan->points[i]) & (capacity * 2 - 1);
        while (plan->index[slot] != 0)
            slot = (slot + 1) & (capacity * 2 - 1);
        plan->index[slot] = i + 1;
    }
}

static void record(FaultPlan *plan, const FaultSpec *point)
{
    if (plan->point_count == plan->point_capacity) {
        if (plan->point_capacity >= FAULT_PLAN_POINTS_MAX) {
            plan->overflow++;
            return;
        }
        grow(plan);
    }
    uint32_t mask = plan->point_capacity * 2 - 1;
    uint64_t slot = hash_of(point) & mask;
    while (plan->index[slot] != 0) {
        if (same_decision(&plan->points[plan->index[slot] - 1], point))
            return; /* met before: the same draw, the same fate */
        slot = (slot + 1) & mask;
    }
    plan->points[plan->point_count] = *point;
    plan->index[slot] = ++plan->point_count;
}

static const FaultSpec *forced(FaultPlan *plan, const FaultSpec *point)
{
    for (uint32_t i = 0; i < plan->forced_count; i++) {
        if (same_decision(&plan->forced[i], point)) {
            plan->met[i] = true;
            return &plan->forced[i];
        }
    }
    return NULL;
}

bool fault_plan_decide(FaultPlan *plan, FaultKind kind, uint64_t a, uint64_t b, uint64_t c,
                       double probability)
{
    if (probability >= 1)
        return true;
    FaultSpec point = spec_of_words(kind, a, b, c);
    if (probability > 0)
        record(plan, &point);
    return forced(plan, &point) != NULL; /* forced, even where the scenario never draws it */
}

/* A draw of delay_ms can pass late_ms: the tail of an unbounded distribution can. */
static bool can_be_late(const Distribution *delay_ms, double late_ms)
{
    switch (delay_ms->kind) {
    case DIST_CONST:
        return delay_ms->a > late_ms;
    case DIST_UNIFORM:
        return delay_ms->b > late_ms;
    default:
        return true;
    }
}

SimTimeUs fault_plan_delay_us(FaultPlan *plan, uint64_t a, uint64_t b, uint64_t c,
                              const Distribution *delay_ms)
{
    FaultSpec point = spec_of_words(FAULT_DELAY, a, b, c);
    point.by_ms = (double)plan->late_us / SIM_US_PER_MS;
    if (can_be_late(delay_ms, point.by_ms))
        record(plan, &point);
    const FaultSpec *delay = forced(plan, &point);
    return delay == NULL ? 0 : sim_time_us_from_ms(delay->by_ms);
}

double fault_plan_gateway_fate(FaultPlan *plan, uint64_t a, uint64_t b, uint64_t c, double fail,
                               double timeout)
{
    if (fault_plan_decide(plan, FAULT_GATEWAY_DECLINE, a, b, c, fail))
        return -1.0;
    if (timeout > 0 && fault_plan_decide(plan, FAULT_GATEWAY_SILENT, a, b, c, timeout))
        return fail + timeout / 2;
    return fail + timeout >= 1.0 ? fail + timeout / 2 : 1.0;
}

SimTimeUs fault_plan_late_us(const FaultPlan *plan)
{
    return plan->late_us;
}

const FaultSpec *fault_plan_points(const FaultPlan *plan, uint32_t *count)
{
    *count = plan->point_count;
    return plan->points;
}

uint32_t fault_plan_overflow(const FaultPlan *plan)
{
    return plan->overflow;
}

uint32_t fault_plan_forced_met(const FaultPlan *plan)
{
    uint32_t met = 0;
    for (uint32_t i = 0; i < plan->forced_count; i++)
        met |= (uint32_t)plan->met[i] << i;
    return met;
}
