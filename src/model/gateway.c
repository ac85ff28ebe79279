/* The external payment gateway, an actor of its own that talks to the server by message
 * only: a charge arrives, is processed for the gateway's latency, and is declined (nothing
 * charged), charged and answered, or charged with the answer never leaving (the server
 * cannot tell). With honours_key it remembers the keys it charged and answers a repeated
 * key from memory instead of charging again. */
#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

void gateway_init(World *world)
{
    if (world->scenario.gateway.honours_key)
        world->gateway.keys = idem_store_create(1024);
    if (world->scenario.server.reconcile_ms > 0)
        world->gateway.charged = idem_store_create(1024);
}

void gateway_release(World *world)
{
    idem_store_destroy(world->gateway.keys);
    idem_store_destroy(world->gateway.charged);
}

static uint64_t charge_identity(const Message *charge)
{
    return ((uint64_t)charge->attempt << 16) | ((uint64_t)charge->click << 8) | charge->hop;
}

void gateway_on_charge_arrive(World *world, const Message *charge)
{
    world->metrics.provider_charges++;
    uint32_t slot = world_message_store(world, charge);
    SimTimeUs latency =
        distribution_sample_ms_as_us(&world->scenario.gateway.latency_ms,
                                     world_draw(world, DRAW_GATEWAY_LATENCY, charge->operation,
                                                charge_identity(charge), charge->lineage));
    sim_schedule_in(world->sim, latency, EVENT_GATEWAY_CHARGE, 0, slot);
}

static void reply(World *world, const Message *charge, int status)
{
    Message answer = *charge;
    answer.kind = MESSAGE_CHARGE_REPLY;
    answer.hop = HOP_CHARGE_REPLY;
    answer.source = charge->target;
    answer.target = charge->source;
    answer.status = status;
    network_send(world, &answer);
}

static void charge_or_answer(World *world, Message charge);

void gateway_on_charge_done(World *world, uint32_t message_slot)
{
    Message charge = world_message_take(world, message_slot);
    charge_or_answer(world, charge);
    world_operation_unref(world, charge.operation);
}

static void charge_or_answer(World *world, Message charge)
{
    const GatewaySpec *gateway = &world->scenario.gateway;
    IdemStore *keys = world->gateway.keys;
    SimTimeUs now = sim_now(world->sim);
    if (keys != NULL && charge.key != 0 && idem_store_lookup(keys, charge.key, now) != NULL) {
        if (world_tracing(world))
            world_trace_about(world, world->gateway_node, TRACE_REPLAY, &charge, 200, 0);
        reply(world, &charge, 200); /* charged before under this key: not again */
        return;
    }
    double fate = world_draw_unit(world, DRAW_GATEWAY_FATE, charge.operation,
                                  charge_identity(&charge), charge.lineage);
    if (world->fault_plan != NULL)
        fate =
            fault_plan_gateway_fate(world->fault_plan, charge.operation, charge_identity(&charge),
                                    charge.lineage, gateway->fail, gateway->timeout);
    if (fate < gateway->fail) {
        if (world_tracing(world))
            world_trace_about(world, world->gateway_node, TRACE_DECLINED, &charge, 402, 0);
        reply(world, &charge, 402); /* a card error: definite, as Stripe's 402 */
        return;
    }
    ledger_apply(world, &charge, world->gateway_node, NULL);
    if (world->gateway.charged != NULL && charge.key != 0) { /* a provider keeps records */
        KeyRow record = {.key = charge.key,
                         .status = KEY_STATUS_COMPLETED,
                         .response_status = 200,
                         .response_of = charge.operation,
                         .created_us = now,
                         .expires_us = SIM_TIME_NEVER};
        idem_store_put(world->gateway.charged, &record);
    }
    if (keys != NULL && charge.key != 0) {
        KeyRow row = {.key = charge.key,
                      .status = KEY_STATUS_COMPLETED,
                      .response_status = 200,
                      .response_of = charge.operation,
                      .created_us = now,
                      .expires_us = SIM_TIME_NEVER};
        idem_store_put(keys, &row);
    }
    if (fate < gateway->fail + gateway->timeout) {
        if (world_tracing(world))
            world_trace_about(world, world->gateway_node, TRACE_CHARGED_NO_ANSWER, &charge, 0, 0);
        return; /* charged, but the answer never leaves the gateway */
    }
    reply(world, &charge, 200);
}

/* Reconciliation: did a charge with this key happen? 200 (charged) or 404 (never). */
void gateway_on_status_query(World *world, const Message *query)
{
    bool charged = world->gateway.charged != NULL && query->key != 0 &&
                   idem_store_find_any(world->gateway.charged, query->key) != NULL;
    reply(world, query, charged ? 200 : 404);
}
