/* The external payment gateway and the server's outbox relay. The gateway charges the
 * ledger (the charge is the ground-truth side effect), answers after its latency, and
 * may fail (no charge) or time out (charged, but no answer: the server cannot tell). With
 * honours_key it remembers the keys it charged and answers a repeated key from memory.
 * The outbox records the charge intent with the key and relays it until acknowledged, so
 * neither a lost answer nor a crash makes the server charge twice (DESIGN C11). */
#include <stdlib.h>

#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

void gateway_init(World *world)
{
    world->server.free_outbox = SLOT_NONE;
    if (world->scenario.gateway.honours_key)
        world->server.gateway_keys = idem_store_create(1024);
}

void gateway_release(World *world)
{
    idem_store_destroy(world->server.gateway_keys);
    free(world->server.outbox);
}

static SimTimeUs gateway_timeout_us(const World *world)
{
    return sim_time_us_from_ms(world->scenario.gateway.timeout_ms);
}

static void send_charge(World *world, const Message *request, uint64_t key, uint32_t job,
                        uint64_t job_serial, bool from_outbox, uint32_t relay)
{
    Message charge = *request;
    charge.kind = MESSAGE_CHARGE;
    charge.hop = HOP_CHARGE;
    charge.source = world->server_node;
    charge.target = world->gateway_node;
    charge.key = key;
    charge.job = job;
    charge.job_serial = job_serial;
    charge.from_outbox = from_outbox;
    /* A relay's resend is a new message: give it its own fate. */
    charge.lineage = lineage_of_repeat(request->lineage, relay);
    network_send(world, &charge);
}

/* ------------------------------------------------------------------ outbox */

static void free_entry(Server *server, uint32_t entry)
{
    server->outbox[entry].acknowledged = true; /* a free slot is never relayed */
    server->outbox[entry].next_of_operation = server->free_outbox;
    server->free_outbox = entry;
}

static uint32_t outbox_add(World *world, uint32_t job_slot)
{
    Server *server = &world->server;
    if (server->free_outbox == SLOT_NONE) {
        uint32_t old_capacity = server->outbox_capacity;
        SIM_ASSERT(old_capacity < UINT32_MAX / 2, "the outbox holds fewer than 2^31 entries");
        server->outbox_capacity = old_capacity ? old_capacity * 2 : 64;
        server->outbox = sim_xrealloc(server->outbox, (unsigned long long)server->outbox_capacity *
                                                          sizeof *server->outbox);
        for (uint32_t i = server->outbox_capacity; i-- > old_capacity;)
            free_entry(server, i); /* handed out lowest first */
    }
    uint32_t entry = server->free_outbox;
    server->free_outbox = server->outbox[entry].next_of_operation;
    const Job *job = &world->jobs[job_slot];
    Operation *op = world_operation(world, job->request.operation);
    server->outbox[entry] = (OutboxEntry){
        .relay_timer = EVENT_ID_NONE,
        .request = job->request,
        .store_key = job->store_key,
        .job = job_slot,
        .job_serial = job->serial,
        .written = server->outbox_written++,
        .next_of_operation = op->outbox_entries == 0 ? SLOT_NONE : op->outbox_entries - 1,
    };
    op->outbox_entries = entry + 1;
    world_operation_ref(world, job->request.operation); /* until acknowledged */
    return entry;
}

/* Every relay and reply in flight names its entry and holds the operation, and an entry is
 * relayed only until acknowledged (which releases the operation): once the operation has
 * settled, its entries' slots can take new charges. */
void gateway_release_operation(World *world, Operation *op)
{
    uint32_t entry = op->outbox_entries;
    op->outbox_entries = 0;
    while (entry != 0) {
        OutboxEntry *outbox = &world->server.outbox[entry - 1];
        uint32_t next = outbox->next_of_operation;
        SIM_ASSERT(outbox->acknowledged, "a settled operation has no charge left to relay");
        free_entry(&world->server, entry - 1);
        entry = next == SLOT_NONE ? 0 : next + 1;
    }
}

void gateway_on_outbox_relay(World *world, uint32_t entry_index)
{
    OutboxEntry *entry = &world->server.outbox[entry_index];
    if (entry->acknowledged || world->server.down)
        return; /* a restart resumes every pending entry */
    entry->relays++;
    if (world_tracing(world))
        world_trace_about(world, world->server_node, TRACE_OUTBOX_RELAY, &entry->request,
                          entry->relays, 0);
    send_charge(world, &entry->request, entry->store_key, entry_index, 0, true, entry->relays);
    entry->relay_timer =
        sim_schedule_in(world->sim, gateway_timeout_us(world), EVENT_OUTBOX_RELAY, 0, entry_index);
}

/* After a restart, every pending entry is relayed again, in the order they were written
 * (their slots are reused, so slot order says nothing). */
void gateway_resume_outbox(World *world)
{
    Server *server = &world->server;
    uint32_t *pending = sim_xrealloc(NULL, (server->outbox_capacity + 1ull) * sizeof *pending);
    uint32_t count = 0;
    for (uint32_t i = 0; i < server->outbox_capacity; i++)
        if (!server->outbox[i].acknowledged)
            pending[count++] = i;
    /* Insertion sort: a restart finds few charges in flight. */
    for (uint32_t k = 1; k < count; k++) {
        uint32_t entry = pending[k];
        uint32_t at = k;
        for (; at > 0 && server->outbox[entry].written < server->outbox[pending[at - 1]].written;
             at--)
            pending[at] = pending[at - 1];
        pending[at] = entry;
    }
    for (uint32_t k = 0; k < count; k++) {
        OutboxEntry *entry = &server->outbox[pending[k]];
        sim_cancel(world->sim, entry->relay_timer); /* one relay loop per entry, not two */
        entry->relay_timer = sim_schedule_in(world->sim, 0, EVENT_OUTBOX_RELAY, 0, pending[k]);
    }
    free(pending);
}

void gateway_on_outbox_reply(World *world, const Message *reply)
{
    OutboxEntry *entry = &world->server.outbox[reply->job];
    if (entry->acknowledged || world->server.down)
        return;
    entry->acknowledged = true;
    sim_cancel(world->sim, entry->relay_timer);
    /* A decline is a definite answer, not a lost one: the relay stops and the failure is
     * recorded. The relay completes the key itself, in the step that records the answer, so
     * a crash of the request handler can no longer leave the row stuck in processing. */
    int status = reply->status >= 500 ? 502 : 200;
    server_record_result(world, &entry->request, entry->store_key, status);
    uint64_t operation = entry->request.operation;
    Job *job = entry->job < world->job_capacity ? &world->jobs[entry->job] : NULL;
    if (job != NULL && job->serial == entry->job_serial) {
        if (job->epoch != world->server.epoch) {
            world_job_release(world, entry->job); /* its server died; nothing else frees it */
        } else {
            job->awaiting_gateway = false;
            if (status == 200)
                server_after_effect(world, entry->job, 200);
            else
                server_complete_job(world, entry->job, 502);
        }
    }
    world_operation_unref(world, operation);
}

/* ------------------------------------------------------------------ server side */

void gateway_request_charge(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    job->awaiting_gateway = true;
    if (world->scenario.server.outbox && job->store_key != 0) {
        uint32_t entry = outbox_add(world, job_slot);
        gateway_on_outbox_relay(world, entry);
        return;
    }
    send_charge(world, &job->request, job->store_key, job_slot, job->serial, false, 0);
    job->gateway_timer =
        sim_schedule_in(world->sim, gateway_timeout_us(world), EVENT_GATEWAY_TIMEOUT, 0, job_slot);
}

/* ------------------------------------------------------------------ the gateway itself */

static uint64_t charge_identity(const Message *charge)
{
    return ((uint64_t)charge->attempt << 16) | ((uint64_t)charge->click << 8) | charge->hop;
}

void gateway_on_charge_arrive(World *world, const Message *charge)
{
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
    IdemStore *keys = world->server.gateway_keys;
    SimTimeUs now = sim_now(world->sim);
    if (keys != NULL && charge.key != 0 && idem_store_lookup(keys, charge.key, now) != NULL) {
        if (world_tracing(world))
            world_trace_about(world, world->gateway_node, TRACE_REPLAY, &charge, 200, 0);
        reply(world, &charge, 200); /* charged before under this key: not again */
        return;
    }
    double fate = world_draw_unit(world, DRAW_GATEWAY_FATE, charge.operation,
                                  charge_identity(&charge), charge.lineage);
    if (fate < gateway->fail) {
        if (world_tracing(world))
            world_trace_about(world, world->gateway_node, TRACE_DECLINED, &charge, 502, 0);
        reply(world, &charge, 502);
        return;
    }
    server_apply_effect(world, &charge, world->gateway_node);
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
