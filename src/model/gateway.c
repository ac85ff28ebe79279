/* An external payment gateway, an actor of its own that talks to its callers by message
 * only (the first gateway, and any extra one a call step names, each with its own fields and
 * keys): a charge arrives, is processed for the gateway's latency, and is declined (nothing
 * charged), charged and answered, or charged with the answer never leaving (the server
 * cannot tell). With capture manual (C35) a charge is an authorisation, a hold on the card,
 * and the money moves when the server captures it. With honours_key it remembers the keys
 * it charged and answers a repeated key from memory instead of charging again. A refund (a
 * saga's undo) is never declined: it gives the charge back, answered or not, and is
 * remembered by its key alike. */
#include <stdlib.h>

#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

/* The clients' server asks this gateway about its charges (reconcile_ms): it keeps records. */
static bool reconciled_at(const Scenario *scenario, uint32_t g)
{
    const ServerSpec *server = &scenario->server;
    return server->reconcile_ms > 0 && server->call_server == 0 && server->call_gateway == g;
}

void gateway_init(World *world)
{
    for (uint32_t g = 0; g < world->gateway_count; g++) {
        Gateway *gateway = &world->gateways[g];
        if (gateway->spec->honours_key)
            gateway->keys = idem_store_create(1024);
        if (reconciled_at(&world->scenario, g))
            gateway->charged = idem_store_create(1024);
    }
}

void gateway_release(World *world)
{
    for (uint32_t g = 0; g < world->gateway_count; g++) {
        idem_store_destroy(world->gateways[g].keys);
        idem_store_destroy(world->gateways[g].charged);
        free(world->gateways[g].unsettled);
    }
}

static Gateway *gateway_at(World *world, uint32_t node)
{
    SIM_ASSERT(world->nodes[node].kind == NODE_GATEWAY, "a charge reaches a gateway");
    return &world->gateways[world->nodes[node].actor];
}

/* A charge's draws: the same copy of a charge meets the same fate in every mode, and each
 * gateway its own (the first's draws are as they were with one). */
static uint64_t charge_identity(const Gateway *gateway, const Message *charge)
{
    return ((uint64_t)gateway->number << 40) | ((uint64_t)charge->attempt << 16) |
           ((uint64_t)charge->click << 8) | charge->hop;
}

void gateway_on_charge_arrive(World *world, const Message *charge)
{
    Gateway *gateway = gateway_at(world, charge->target);
    world->metrics.provider_charges += charge->kind == MESSAGE_CHARGE;
    world_service_takes_in(world, world_service_metrics(world, gateway->node), gateway->node,
                           charge->operation);
    uint32_t slot = world_message_store(world, charge);
    SimTimeUs latency = distribution_sample_ms_as_us(
        &gateway->spec->latency_ms, world_draw(world, DRAW_GATEWAY_LATENCY, charge->operation,
                                               charge_identity(gateway, charge), charge->lineage));
    sim_schedule_in(world->sim, latency, EVENT_GATEWAY_CHARGE, 0, slot);
}

static void reply(World *world, const Message *charge, int status)
{
    Message answer = *charge;
    answer.kind = MESSAGE_CHARGE_REPLY;
    answer.hop = charge->hop == HOP_REFUND ? HOP_REFUND_REPLY : HOP_CHARGE_REPLY;
    answer.source = charge->target;
    answer.target = charge->source;
    answer.status = status;
    network_send(world, &answer);
}

static void charge_or_answer(World *world, Message charge);
static void refund_or_answer(World *world, Message refund);

void gateway_on_charge_done(World *world, uint32_t message_slot)
{
    Message charge = world_message_take(world, message_slot);
    if (charge.kind == MESSAGE_REFUND)
        refund_or_answer(world, charge);
    else
        charge_or_answer(world, charge);
    world_operation_unref(world, charge.operation);
}

static void remember_key(IdemStore *keys, const Message *call, SimTimeUs now)
{
    KeyRow row = {.key = call->key,
                  .status = KEY_STATUS_COMPLETED,
                  .response_status = 200,
                  .response_of = call->operation,
                  .created_us = now,
                  .expires_us = SIM_TIME_NEVER};
    idem_store_put(keys, &row);
}

static void charge_or_answer(World *world, Message charge)
{
    Gateway *gateway = gateway_at(world, charge.target);
    const GatewaySpec *spec = gateway->spec;
    IdemStore *keys = gateway->keys;
    SimTimeUs now = sim_now(world->sim);
    ServiceMetrics *counts = world_service_metrics(world, gateway->node);
    if (keys != NULL && charge.key != 0 && idem_store_lookup(keys, charge.key, now) != NULL) {
        counts->replayed++;
        if (world_tracing(world))
            world_trace_about(world, gateway->node, TRACE_REPLAY, &charge, 200, 0);
        reply(world, &charge, 200); /* charged before under this key: not again */
        return;
    }
    counts->runs++;
    uint64_t identity = charge_identity(gateway, &charge);
    double fate =
        world_draw_unit(world, DRAW_GATEWAY_FATE, charge.operation, identity, charge.lineage);
    if (world->fault_plan != NULL)
        fate = fault_plan_gateway_fate(world->fault_plan, charge.operation, identity,
                                       charge.lineage, spec->fail, spec->timeout);
    if (fate < spec->fail) {
        world_operation(world, charge.operation)->declined = true;
        if (world_tracing(world))
            world_trace_about(world, gateway->node, TRACE_DECLINED, &charge, 402, 0);
        reply(world, &charge, 402); /* a card error: definite, as Stripe's 402 */
        return;
    }
    if (world->card_holds != NULL) { /* C35: an authorisation: a hold, no money moves yet (the
                                        loader keeps C35 to a world of one gateway) */
        CardHolds *card = &world->card_holds[charge.operation];
        card->holds++;
        world->metrics.holds++;
        if (world_tracing(world))
            world_trace_about(world, gateway->node, TRACE_AUTHORISED, &charge, card->holds, 0);
    } else {
        ledger_apply(world, &charge, gateway->node, NULL);
    }
    if (gateway->charged != NULL && charge.key != 0) /* a provider keeps records */
        remember_key(gateway->charged, &charge, now);
    if (keys != NULL && charge.key != 0)
        remember_key(keys, &charge, now);
    if (fate < spec->fail + spec->timeout) {
        if (world_tracing(world))
            world_trace_about(world, gateway->node, TRACE_CHARGED_NO_ANSWER, &charge, 0, 0);
        return; /* charged, but the answer never leaves the gateway */
    }
    reply(world, &charge, 200);
}

/* A refund's key is its own (derived, or new per try), never a charge's: a key seen before
 * is this refund sent again, answered from memory. The answer may never leave, as a
 * charge's (the gateway's timeout chance): the server cannot tell it was refunded. */
static void refund_or_answer(World *world, Message refund)
{
    Gateway *gateway = gateway_at(world, refund.target);
    IdemStore *keys = gateway->keys;
    SimTimeUs now = sim_now(world->sim);
    ServiceMetrics *counts = world_service_metrics(world, gateway->node);
    if (keys != NULL && refund.key != 0 && idem_store_lookup(keys, refund.key, now) != NULL) {
        counts->replayed++;
        if (world_tracing(world))
            world_trace_about(world, gateway->node, TRACE_REPLAY, &refund, 200, 0);
        reply(world, &refund, 200);
        return;
    }
    counts->runs++;
    double silent = gateway->spec->timeout;
    uint64_t identity = charge_identity(gateway, &refund);
    double fate =
        world_draw_unit(world, DRAW_GATEWAY_FATE, refund.operation, identity, refund.lineage);
    if (world->fault_plan != NULL)
        fate = fault_plan_gateway_fate(world->fault_plan, refund.operation, identity,
                                       refund.lineage, 0, silent);
    bool answered = fate >= silent;
    ledger_refund(world, &refund, gateway->node);
    if (keys != NULL && refund.key != 0)
        remember_key(keys, &refund, now);
    if (world_tracing(world))
        world_trace_about(world, gateway->node, TRACE_REFUNDED, &refund, !answered, 0);
    if (answered)
        reply(world, &refund, 200);
}

/* C35: the capture of the authorisation the server heard approved. Simplified: it is no
 * message of its own; it reaches the gateway at once and never fails. An authorisation is
 * captured once: with honours_key, approvals under one key are one authorisation (the key
 * replays it), and capturing it again moves no money, as a provider refuses a second
 * capture. Without keys each approval is an authorisation of its own. */
bool gateway_capture(World *world, const Message *approval)
{
    CardHolds *card = &world->card_holds[approval->operation];
    bool keyed = world->gateways[0].keys != NULL && approval->key != 0;
    if (keyed && card->captured_key == approval->key) {
        if (world_tracing(world))
            world_trace_about(world, world->gateway_node, TRACE_CAPTURE_REFUSED, approval, 0, 0);
        card->capture_confirmed = true;
        return false;
    }
    if (keyed)
        card->captured_key = approval->key;
    card->captures++;
    ledger_apply(world, approval, world->gateway_node, NULL);
    return true;
}

/* The next settlement file is on the grid k * settlement_every_ms after the start, as a
 * daily file is cut at the same hour whatever was captured when. */
static void schedule_settlement(World *world)
{
    if (world->gateways[0].settlement_due)
        return;
    SimTimeUs every = sim_time_us_from_ms(world->gateways[0].spec->settlement_every_ms);
    SimTimeUs now = sim_now(world->sim);
    sim_schedule_at(world->sim, (now / every + 1) * every, EVENT_NODE_TIMER, world->gateway_node,
                    0);
    world->gateways[0].settlement_due = true;
}

/* C35: the capture moved the money and its answer never reached the caller (lost or timed
 * out), drawn per approval heard. Without a settlement file nobody finds out; with one the
 * capture is kept, holding its operation, until the next file lists it. */
bool gateway_capture_answer_lost(World *world, const Message *approval)
{
    if (!world_chance_about(world, DRAW_CAPTURE_LOST, approval,
                            world->gateways[0].spec->capture_lost))
        return false;
    world->metrics.captures_lost++;
    if (world_tracing(world))
        world_trace_about(world, world->gateway_node, TRACE_CAPTURE_LOST, approval, 504, 0);
    if (world->gateways[0].spec->settlement_every_ms > 0) {
        Gateway *gateway = &world->gateways[0];
        if (gateway->unsettled_count == gateway->unsettled_capacity) {
            gateway->unsettled_capacity = gateway->unsettled_capacity * 2 + 16;
            gateway->unsettled = sim_xrealloc(gateway->unsettled, gateway->unsettled_capacity *
                                                                      sizeof *gateway->unsettled);
        }
        gateway->unsettled[gateway->unsettled_count++] = *approval;
        world_operation_ref(world, approval->operation);
        schedule_settlement(world);
    }
    return true;
}

/* C35: the acquirer's settlement file lists every capture; the caller's records say which
 * it believed failed. Each of those is found and corrected: the customer was told the
 * payment failed, so the money goes back (a refund; simplified: no message, never fails). A
 * customer who paid again keeps that payment. Not a capture the caller has learnt of since
 * (under a key the gateway honours, a retry's capture of the same authorisation was refused
 * as captured before, and the caller told its customer the payment succeeded): its records
 * match the file. Nothing to find, no file is read: the run ends when its work does. */
void gateway_on_settlement(World *world)
{
    Gateway *gateway = &world->gateways[0];
    gateway->settlement_due = false;
    uint32_t count = gateway->unsettled_count;
    gateway->unsettled_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        const Message *capture = &gateway->unsettled[i];
        const CardHolds *card = &world->card_holds[capture->operation];
        if (card->capture_confirmed && card->captured_key == capture->key && capture->key != 0) {
            world_operation_unref(world, capture->operation);
            continue;
        }
        ledger_refund(world, capture, world->gateway_node);
        world->metrics.settlement_corrections++;
        if (world_tracing(world))
            world_trace_about(world, world->gateway_node, TRACE_SETTLEMENT_CORRECTED, capture, 200,
                              0);
        world_operation_unref(world, capture->operation);
    }
}

/* C35: an approval that came after the caller gave that try up: the caller knows of this
 * authorisation and will not capture it, so it voids it and the hold is released. Not under
 * a key the gateway honours: a later try replays that authorisation, which the caller then
 * captures. Not a network copy of an approval (lineage bit 0): the original was the one
 * heard, captured or voided already. Simplified as the capture: no message, never fails. */
void gateway_void_late(World *world, const Message *approval)
{
    bool keyed = world->gateways[0].keys != NULL && approval->key != 0;
    if (keyed || (approval->lineage & 1) != 0)
        return;
    CardHolds *card = &world->card_holds[approval->operation];
    card->voids++;
    world->metrics.voids++;
    if (world_tracing(world))
        world_trace_about(world, world->gateway_node, TRACE_VOIDED, approval, card->voids, 0);
}

/* Reconciliation: did a charge with this key happen? 200 (charged) or 404 (never). */
void gateway_on_status_query(World *world, const Message *query)
{
    const Gateway *gateway = gateway_at(world, query->target);
    bool charged = gateway->charged != NULL && query->key != 0 &&
                   idem_store_find_any(gateway->charged, query->key) != NULL;
    reply(world, query, charged ? 200 : 404);
}

/* ------------------------------------------------------------------ its node kind's model */

/* The gateway's one timer: the acquirer's settlement file arrives (C35). */
static void gateway_on_timer(World *world, uint32_t node, uint64_t arg)
{
    (void)node;
    (void)arg;
    gateway_on_settlement(world);
}

const NodeKindModel node_model_gateway = {
    .init = gateway_init,
    .release = gateway_release,
    .on_message =
        {
            [MESSAGE_CHARGE] = gateway_on_charge_arrive,
            [MESSAGE_REFUND] = gateway_on_charge_arrive,
            [MESSAGE_STATUS_QUERY] = gateway_on_status_query,
        },
    .on_timer = gateway_on_timer,
};
