/* The server's side of the payment gateway, and its transactional outbox. A charge is a
 * message to the gateway, answered by a message (or by nothing: the server stops waiting
 * after gateway.timeout_ms). With server.outbox the charge intent is written with the key row
 * and relayed with the key until acknowledged, so neither a lost answer nor a crash makes
 * the server charge twice (DESIGN C11). With receipts_via outbox, a charge's receipt event is
 * written with the commit and relayed to the broker until confirmed, with the same message
 * id every time, so the consumers can drop the copies. The outbox lives where the key store
 * does (idempotency.durable). */
#include <stdlib.h>

#include "sim_assert.h"
#include "world_internal.h"

/* The instance whose table holds the outbox: the loader refuses an outbox with several
 * instances, so it is the only one. */
static Server *outbox_server(World *world)
{
    return &world->servers[0];
}

void server_charge_init(World *world)
{
    slot_pool_init(&outbox_server(world)->outbox_slots, 64);
}

void server_charge_release(World *world)
{
    free(outbox_server(world)->outbox);
    slot_pool_release(&outbox_server(world)->outbox_slots);
}

/* How long a server waits for an answer to a try (and an outbox relay for its ack). */
static SimTimeUs call_try_timeout_us(const World *world, const Server *server)
{
    return call_timeout_us(world, &server->spec->call, server->call_node);
}

/* The call step's try, from the server the request reached (message_call). */
/* tried: the call's instances tried so far, when its retry_host is "other" (else NULL). */
static void send_charge(World *world, const Message *request, uint64_t key, ReplyTo reply_to,
                        uint32_t relay, uint8_t *tried)
{
    uint32_t target = server_at(world, request->target)->call_node;
    Message charge = message_call(world, request, request->target, target, key, reply_to, relay);
    server_send_try(world, &charge, tried);
}

/* ------------------------------------------------------------------ outbox */

static void free_entry(Server *server, uint32_t entry)
{
    server->outbox[entry].acknowledged = true; /* a free slot is never relayed */
    slot_pool_give(&server->outbox_slots, entry);
}

/* request is copied before the take: it is often an entry's own (a relay writing a receipt),
 * in the array the take may move. */
static uint32_t outbox_add(World *world, OutboxKind kind, const Message *request)
{
    Server *server = outbox_server(world);
    Message copy = *request;
    request = &copy;
    uint32_t capacity_before = server->outbox_slots.capacity;
    uint32_t entry = slot_pool_take(&server->outbox_slots, &server->outbox, sizeof *server->outbox);
    for (uint32_t i = capacity_before; i < server->outbox_slots.capacity; i++)
        server->outbox[i].acknowledged = true; /* new slots are free: a restart skips them */
    Operation *op = world_operation(world, request->operation);
    server->outbox[entry] = (OutboxEntry){
        .kind = kind,
        .relay_timer = EVENT_ID_NONE,
        .request = *request,
        .job = SLOT_NONE,
        .written = server->outbox_written++,
        .next_of_operation = op->outbox_entries,
    };
    op->outbox_entries = entry;
    world_operation_ref(world, request->operation); /* until acknowledged */
    return entry;
}

static uint32_t outbox_add_charge(World *world, uint32_t job_slot)
{
    const Job *job = &world->jobs[job_slot];
    uint32_t entry = outbox_add(world, OUTBOX_CHARGE, &job->request);
    OutboxEntry *outbox = &outbox_server(world)->outbox[entry];
    outbox->store_key = job->store_key;
    outbox->job = job_slot;
    outbox->job_serial = job->serial;
    return entry;
}

/* Every relay and reply in flight names its entry and holds the operation, and an entry is
 * relayed only until acknowledged (which releases the operation): once the operation has
 * settled, its entries' slots can take new charges. */
void server_charge_release_operation(World *world, Operation *op)
{
    uint32_t entry = op->outbox_entries;
    op->outbox_entries = OPERATION_NO_SLOT;
    while (entry != OPERATION_NO_SLOT) {
        OutboxEntry *outbox = &outbox_server(world)->outbox[entry];
        uint32_t next = outbox->next_of_operation;
        SIM_ASSERT(outbox->acknowledged, "a settled operation has no charge left to relay");
        free_entry(outbox_server(world), entry);
        entry = next;
    }
}

void server_charge_on_outbox_relay(World *world, uint32_t entry_index)
{
    OutboxEntry *entry = &outbox_server(world)->outbox[entry_index];
    Server *server = outbox_server(world);
    if (entry->acknowledged || server->down)
        return; /* a restart resumes every pending entry */
    entry->relays++;
    if (world_tracing(world))
        world_trace_about(world, server->node, TRACE_OUTBOX_RELAY, &entry->request, entry->relays,
                          0);
    ReplyTo reply_to = {.kind = REPLY_TO_OUTBOX, .slot = entry_index};
    SimTimeUs wait;
    if (entry->kind == OUTBOX_RECEIPT) {
        broker_publish_receipt_relayed(world, &entry->request, reply_to, entry->relays);
        wait = sim_time_us_from_ms(world->scenario.server.outbox_relay_ms);
    } else if (entry->kind == OUTBOX_ORDER) {
        broker_publish_order_relayed(world, &entry->request, entry->store_key, reply_to,
                                     entry->relays);
        wait = sim_time_us_from_ms(world->scenario.server.outbox_relay_ms);
    } else if (entry->kind == OUTBOX_RECONCILE) {
        Message query = entry->request;
        query.kind = MESSAGE_STATUS_QUERY;
        query.hop = HOP_STATUS_QUERY;
        query.source = server->node;
        query.target = server->call_node; /* the gateway its charges went to */
        query.key = call_key_of(world->scenario.server.call.key,
                                entry->store_key); /* the key the charge carried */
        query.reply_to = reply_to;
        query.lineage = lineage_of_repeat(entry->request.lineage, 48 + entry->relays);
        network_send(world, &query);
        wait = sim_time_us_from_ms(world->scenario.server.reconcile_ms);
    } else {
        send_charge(world, &entry->request,
                    call_key_of(world->scenario.server.call.key, entry->store_key), reply_to,
                    entry->relays, NULL);
        wait = call_try_timeout_us(world, server);
    }
    /* by index: the sends above take message slots, and an entry pointer kept across a
     * call is how the receipts outbox read freed memory (issue 24) */
    outbox_server(world)->outbox[entry_index].relay_timer =
        sim_schedule_in(world->sim, wait, EVENT_OUTBOX_RELAY, 0, entry_index);
}

void server_charge_write_event(World *world, const Message *request, uint64_t store_key)
{
    bool order = outbox_server(world)->spec->publishes_orders;
    uint32_t entry = outbox_add(world, order ? OUTBOX_ORDER : OUTBOX_RECEIPT, request);
    outbox_server(world)->outbox[entry].store_key = store_key;
    server_charge_on_outbox_relay(world, entry);
}

void server_charge_on_event_confirm(World *world, const Message *confirm)
{
    SIM_ASSERT(confirm->reply_to.slot < outbox_server(world)->outbox_slots.capacity,
               "an event's relay names its entry");
    OutboxEntry *entry = &outbox_server(world)->outbox[confirm->reply_to.slot];
    if (entry->acknowledged || (entry->kind != OUTBOX_RECEIPT && entry->kind != OUTBOX_ORDER) ||
        outbox_server(world)->down)
        return;
    entry->acknowledged = true;
    sim_cancel(world->sim, entry->relay_timer);
    entry->relay_timer = EVENT_ID_NONE;
    world_operation_unref(world, entry->request.operation);
}

/* The outbox lives where the key store does: in memory (durable false) a crash loses the
 * entries not yet acknowledged, with their relays. */
void server_charge_on_crash(World *world, Server *server)
{
    if (server->spec->idempotency.durable)
        return;
    for (uint32_t i = 0; i < server->outbox_slots.capacity; i++) {
        OutboxEntry *entry = &server->outbox[i];
        if (entry->acknowledged)
            continue;
        entry->acknowledged = true;
        sim_cancel(world->sim, entry->relay_timer);
        entry->relay_timer = EVENT_ID_NONE;
        /* the job waiting for this entry died with the server; only the entry could free it */
        if (entry->kind == OUTBOX_CHARGE && entry->job < world->job_slots.capacity &&
            world->jobs[entry->job].serial == entry->job_serial)
            world_job_release(world, entry->job);
        world_operation_unref(world, entry->request.operation);
    }
}

/* After a restart, every pending entry is relayed again, in the order they were written
 * (their slots are reused, so slot order says nothing). */
void server_charge_resume_outbox(World *world, Server *server)
{
    uint32_t capacity = server->outbox_slots.capacity;
    uint32_t *pending = sim_xrealloc(NULL, (capacity + 1ull) * sizeof *pending);
    uint32_t count = 0;
    for (uint32_t i = 0; i < capacity; i++)
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

/* The gateway answered a reconciliation: the key is completed with the charge's answer, or
 * forgotten (nothing was charged: a retry may run). */
static void settle(World *world, uint32_t entry_index, int status)
{
    OutboxEntry *entry = &outbox_server(world)->outbox[entry_index];
    entry->acknowledged = true;
    sim_cancel(world->sim, entry->relay_timer);
    entry->relay_timer = EVENT_ID_NONE;
    /* a copy: the entry's slot is not read again after the key protocol has run */
    Job settled = {.request = entry->request, .store_key = entry->store_key};
    Server *server = outbox_server(world);
    if (status == 200)
        key_protocol_record(world, server->keys, &settled, 200);
    else
        key_protocol_forget(world, server->keys, settled.store_key);
    world->metrics.reconciled++;
    if (world_tracing(world))
        world_trace_about(world, server->node, TRACE_RECONCILED, &settled.request, status, 0);
    world_operation_unref(world, settled.request.operation);
}

static void on_outbox_reply(World *world, const Message *reply)
{
    uint32_t entry_index = reply->reply_to.slot;
    SIM_ASSERT(entry_index < outbox_server(world)->outbox_slots.capacity,
               "a relay names its entry");
    OutboxEntry *entry = &outbox_server(world)->outbox[entry_index];
    Server *server = outbox_server(world);
    if (entry->acknowledged || server->down)
        return;
    if (entry->kind == OUTBOX_RECONCILE) {
        settle(world, entry_index, reply->status);
        return;
    }
    entry->acknowledged = true;
    sim_cancel(world->sim, entry->relay_timer);
    /* What the rest needs of the entry, copied now: writing the receipt below adds an entry
     * and may move the outbox, so no pointer into it is used past this point (issue 24: the
     * receipt was built from the moved entry's request, a use-after-free). */
    Job completing = {.request = entry->request, .store_key = entry->store_key};
    uint32_t job_slot = entry->job;
    uint64_t job_serial = entry->job_serial;
    entry = NULL;
    /* A decline is a definite answer, not a lost one: the relay stops and the failure is
     * recorded. The relay completes the key itself, in the step that records the answer, so
     * a crash of the request handler can no longer leave the row stuck in processing. */
    int status = reply->status; /* 200 charged, or 402 declined */
    key_protocol_record(world, server->keys, &completing, status);
    bool alive = job_slot < world->job_slots.capacity && world->jobs[job_slot].serial == job_serial;
    if (status == 200 && world->scenario.server.receipts_via == RECEIPTS_OUTBOX) {
        /* the relay completes the key, and writes the receipt in the same step */
        server_charge_write_event(world, &completing.request, completing.store_key);
        if (alive)
            world->jobs[job_slot].event_due = false;
    }
    Job *job = job_slot < world->job_slots.capacity ? &world->jobs[job_slot] : NULL;
    if (job != NULL && job->serial == job_serial) {
        if (job->epoch != server->epoch) {
            world_job_release(world, job_slot); /* its server died; nothing else frees it */
        } else {
            job->awaiting_gateway = false;
            if (status == 200)
                server_after_effect(world, server, job_slot, 200);
            else
                server_complete_job(world, server, job_slot, status);
        }
    }
    world_operation_unref(world, completing.request.operation);
}

/* ------------------------------------------------------------------ server side */

static void send_charge_try(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    job->charge_tries++;
    if (job->charge_tries > 1) { /* counted as sent: a crash in the backoff sends nothing */
        world->metrics.call_retries++;
        world_service_metrics(world, job->request.target)->retries++;
        if (world_tracing(world))
            world_trace_about(world, job->request.target,
                              world_is_server(world, server_of_job(world, job_slot)->call_node)
                                  ? TRACE_CALL_RETRY
                                  : TRACE_CHARGE_RETRY,
                              &job->request, job->charge_tries, 0);
    }
    SIM_ASSERT(job->serial <= JOB_SERIAL_MASK, "a job's serial leaves room for its try");
    ReplyTo reply_to = {.kind = REPLY_TO_JOB,
                        .slot = job_slot,
                        .serial = job->serial | (uint64_t)job->charge_tries << CHARGE_TRY_SHIFT};
    /* the first try keeps the lineage a charge always had; each retry is a copy of its own */
    const Server *server = server_of_job(world, job_slot);
    send_charge(world, &job->request, call_key_of(server->spec->call.key, job->sent_key), reply_to,
                job->charge_tries - 1,
                server->spec->call.retry_host == RETRY_HOST_OTHER ? &job->tried_instances : NULL);
    world->jobs[job_slot].gateway_timer = sim_schedule_in(
        world->sim, call_try_timeout_us(world, server), EVENT_GATEWAY_TIMEOUT, 0, job_slot);
}

/* ------------------------------------------------------------------ a saga's undo */

/* A saga's steps after the charge, shared by a server's job and a consumer's
 * (consumers.c): one implementation of the fulfil step, the refund's tries, their key and
 * their timeout, whoever charged. */

/* A try of the refund: as a charge's try, named by its number in reply_to, with the undo's
 * own key and timeout. Its hop (HOP_REFUND) gives it fates of its own, apart from the
 * charge's tries of the same copy path. */
static void saga_send_refund_try(World *world, uint32_t job_slot, const SagaCaller *caller)
{
    Job *job = &world->jobs[job_slot];
    const CallSpec *undo = &caller->undo->call;
    job->charge_tries++;
    if (job->charge_tries > 1) {
        world->metrics.refund_retries++;
        world_service_metrics(world, caller->node)->retries++;
        if (world_tracing(world))
            world_trace_about(world, caller->node, TRACE_REFUND_RETRY, &job->request,
                              job->charge_tries, 0);
    }
    ReplyTo reply_to = {.kind = REPLY_TO_JOB,
                        .slot = job_slot,
                        .serial = job->serial | (uint64_t)job->charge_tries << CHARGE_TRY_SHIFT};
    Message refund = message_charge(&job->request, caller->node, caller->call_node,
                                    refund_key_of(undo->key, job->sent_key, job->charge_tries),
                                    reply_to, job->charge_tries - 1);
    refund.kind = MESSAGE_REFUND;
    refund.hop = HOP_REFUND;
    network_send(world, &refund);
    world->jobs[job_slot].gateway_timer =
        sim_schedule_in(world->sim, call_timeout_us(world, undo, caller->call_node),
                        EVENT_GATEWAY_TIMEOUT, caller->event_target, job_slot);
}

/* The charge went through: the order's own work (fulfil) runs next. When it fails
 * definitively, the order is off: the call's undo refunds the charge, or, without one, the
 * customer stays charged for an order that failed (the caller's order_failed runs now). */
bool saga_after_charge(World *world, uint32_t job_slot, const SagaCaller *caller)
{
    Job *job = &world->jobs[job_slot];
    if (!caller->fulfil->enabled ||
        !world_chance_about(world, DRAW_FULFIL, &job->request, caller->fulfil->fail))
        return false;
    world->metrics.fulfil_failures++;
    if (world_tracing(world))
        world_trace_about(world, caller->node, TRACE_FULFIL_FAILED, &job->request,
                          SERVER_STATUS_ORDER_FAILED, 0);
    if (!caller->undo->enabled) {
        caller->order_failed(world, job_slot);
        return true;
    }
    job->refunding = true;
    job->awaiting_gateway = true;
    job->charge_tries = 0;
    saga_send_refund_try(world, job_slot, caller);
    return true;
}

/* The refund answered, or no try of it did (gave_up): either way the order failed. */
void saga_refund_over(World *world, uint32_t job_slot, const SagaCaller *caller, bool gave_up)
{
    Job *job = &world->jobs[job_slot];
    if (gave_up && world_tracing(world))
        world_trace_about(world, caller->node, TRACE_REFUND_GAVE_UP, &job->request,
                          job->charge_tries, 0);
    job->awaiting_gateway = false;
    job->refunding = false;
    caller->order_failed(world, job_slot);
}

/* The backoff after an unanswered try is over: the next try of the charge or its refund. */
void saga_send_next_try(World *world, uint32_t job_slot, const SagaCaller *caller)
{
    if (world->jobs[job_slot].refunding)
        saga_send_refund_try(world, job_slot, caller);
    else
        caller->send_charge_try(world, job_slot);
}

/* A try of the charge (by charge_retry) or of its refund (by the undo's retry) went
 * unanswered: the next one now, or after the backoff (an EVENT_CHARGE_RETRY to the caller's
 * event_target), or, the refund's tries spent, the order's end. True only when the charge's
 * own tries are spent: the caller gives up its charge as it does. */
bool saga_on_try_timeout(World *world, uint32_t job_slot, const SagaCaller *caller,
                         const CallRetrySpec *charge_retry)
{
    Job *job = &world->jobs[job_slot];
    job->gateway_timer = EVENT_ID_NONE;
    const CallRetrySpec *retry = job->refunding ? &caller->undo->call.retry : charge_retry;
    if (job->charge_tries < retry->max_attempts) { /* the call's own retry, in every mode */
        SimTimeUs backoff = sim_time_us_from_ms(retry->backoff_ms);
        if (backoff > 0)
            sim_schedule_in(world->sim, backoff, EVENT_CHARGE_RETRY, caller->event_target,
                            job_slot);
        else
            saga_send_next_try(world, job_slot, caller);
        return false;
    }
    if (!job->refunding)
        return true;
    saga_refund_over(world, job_slot, caller, true);
    return false;
}

static void server_order_failed(World *world, uint32_t job_slot)
{
    server_complete_job(world, server_of_job(world, job_slot), job_slot,
                        SERVER_STATUS_ORDER_FAILED);
}

/* The server's saga: the instance the request reached charged, and refunds. */
static SagaCaller server_saga(World *world, uint32_t job_slot)
{
    const Server *server = server_of_job(world, job_slot);
    const ServerSpec *spec = server->spec;
    return (SagaCaller){.node = world->jobs[job_slot].request.target,
                        .event_target = 0,
                        .call_node = server->call_node,
                        .undo = &spec->undo,
                        .fulfil = &spec->fulfil,
                        .send_charge_try = send_charge_try,
                        .order_failed = server_order_failed};
}

/* ------------------------------------------------------------------ the charge */

void server_charge_request(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    job->awaiting_gateway = true;
    if (server_of_job(world, job_slot)->spec->outbox && job->store_key != 0) {
        uint32_t entry = outbox_add_charge(world, job_slot);
        server_charge_on_outbox_relay(world, entry);
        return;
    }
    job->charge_tries = 0;
    send_charge_try(world, job_slot);
}

/* The backoff after an unanswered try is over: the next try, if the job is still waiting. */
void server_charge_on_retry(World *world, uint32_t job_slot)
{
    if (server_job_died_in_crash(world, server_of_job(world, job_slot), job_slot))
        return;
    SagaCaller caller = server_saga(world, job_slot);
    saga_send_next_try(world, job_slot, &caller);
}

/* ------------------------------------------------------------------ answers */

/* A try of the call failed (no answer within its timeout, or a called server's answer that
 * asks for another): the next try, or, its tries spent, the server answers status (504 for a
 * timeout: the charge may have happened; 502 for a failed call). */
static void on_failed_try(World *world, uint32_t job_slot, int status)
{
    Server *server = server_of_job(world, job_slot);
    SagaCaller caller = server_saga(world, job_slot);
    if (!saga_on_try_timeout(world, job_slot, &caller, &server->spec->call.retry))
        return;
    Job *job = &world->jobs[job_slot];
    job->awaiting_gateway = false;
    if (status == 504 && world_tracing(world) && !world_is_server(world, server->call_node))
        world_trace_about(world, job->request.target, TRACE_GATEWAY_TIMEOUT, &job->request, 504, 0);
    if (server->spec->reconcile_ms > 0 && job->store_key != 0) {
        /* ask the gateway later what became of this charge (kept until it answers) */
        uint32_t entry = outbox_add(world, OUTBOX_RECONCILE, &job->request);
        outbox_server(world)->outbox[entry].store_key = job->store_key;
        outbox_server(world)->outbox[entry].relay_timer =
            sim_schedule_in(world->sim, sim_time_us_from_ms(server->spec->reconcile_ms),
                            EVENT_OUTBOX_RELAY, 0, entry);
    }
    server_complete_job(world, server, job_slot, status);
}

void server_charge_on_reply(World *world, const Message *reply)
{
    if (reply->reply_to.kind == REPLY_TO_OUTBOX) {
        on_outbox_reply(world, reply);
        return;
    }
    uint64_t serial = reply->reply_to.serial & JOB_SERIAL_MASK;
    uint32_t try_number = (uint32_t)(reply->reply_to.serial >> CHARGE_TRY_SHIFT);
    if (!server_job_alive(world, reply->reply_to.slot, serial) ||
        !world->jobs[reply->reply_to.slot].awaiting_gateway ||
        world->jobs[reply->reply_to.slot].charge_tries != try_number ||
        event_id_is_none(world->jobs[reply->reply_to.slot].gateway_timer) ||
        world->jobs[reply->reply_to.slot].refunding != (reply->hop == HOP_REFUND_REPLY)) {
        /* the server gave up on this try (it may be waiting to send the next) or on this
           charge, or crashed since; or a late copy of the charge's answer reached a job
           refunding by now (its try numbers start again at 1). C35: a late approval of an
           authorisation is voided, when the caller does so. */
        if (world->card_holds != NULL && world->scenario.gateway.void_late &&
            reply->hop == HOP_CHARGE_REPLY && reply->status == 200)
            gateway_void_late(world, reply);
        return;
    }
    uint32_t job_slot = reply->reply_to.slot;
    Job *job = &world->jobs[job_slot];
    Server *server = server_of_job(world, job_slot);
    sim_cancel(world->sim, job->gateway_timer);
    job->gateway_timer = EVENT_ID_NONE;
    SagaCaller caller = server_saga(world, job_slot);
    if (job->refunding) {
        saga_refund_over(world, job_slot, &caller, false);
        return;
    }
    bool from_server = world_is_server(world, reply->source);
    if (from_server && call_answer_asks_retry(reply->status)) {
        on_failed_try(world, job_slot, 502);
        return;
    }
    job->awaiting_gateway = false;
    if (reply->status >= 400) { /* a decline: definite, nothing was charged */
        server_complete_job(world, server, job_slot, reply->status);
        return;
    }
    /* C35: the approved authorisation is captured; when that capture's answer is lost the
     * caller believes it failed and answers as for an authorisation that timed out */
    if (world->card_holds != NULL && !from_server && gateway_capture(world, reply) &&
        gateway_capture_answer_lost(world, reply)) {
        server_complete_job(world, server, job_slot, 504);
        return;
    }
    if (saga_after_charge(world, job_slot, &caller))
        return;
    /* the publish step after the call: directly now (a dual write: a crash before the
     * commit cannot take it back), or written to the outbox with the commit */
    if (server->spec->publish_receipts && server->spec->receipts_via == RECEIPTS_DIRECT)
        broker_publish_receipt(world, &job->request);
    job->event_due =
        server->spec->publish_receipts && server->spec->receipts_via == RECEIPTS_OUTBOX;
    /* a gateway's approval is the caller's 200; a called server's answer is passed on */
    server_after_effect(world, server, job_slot, from_server ? reply->status : 200);
}

/* The gateway (or the called server) did not answer in time: the charge may or may not
 * have happened. */
void server_charge_on_timeout(World *world, uint32_t job_slot)
{
    if (server_job_died_in_crash(world, server_of_job(world, job_slot), job_slot))
        return;
    on_failed_try(world, job_slot, 504);
}
