/* The consumer group: workers take delivered messages in order (a buffer holds what the
 * broker prefetched to them), run the operation's handler, and acknowledge over the lossy
 * consumers->broker link. Service time grows with load: it is multiplied by
 * 1 + per_inflight x (messages held by the group) + per_queued x (broker queue depth).
 * In the idempotent mode the group keeps keys (key_protocol.c, the server's protocol),
 * keyed by message id or a business key, decided when a worker picks the message up: a
 * message whose key is still processing is left unacknowledged (the broker will redeliver
 * it), a completed key is acknowledged without running the handler again, a key reused with
 * another body is acknowledged and dropped (a poison message). A handler may fail before or
 * after its effect (C36): its key row goes by on_failure, and the framework nacks the
 * delivery for the broker to requeue (or, at-most-once, the message is gone). A charge at the
 * gateway that stays unanswered comes back by its broker family's way (give_up_charge). */
#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

/* The instances' nodes were made by build_nodes, each group's consecutive. The first group's
 * instance 0 keeps its group's store on side STORE_CONSUMERS (server_init put it there); any
 * other group's first instance keeps its group's on a side of its own; with placement
 * "per-instance" every other instance keeps its own too, on a side after the servers' (their
 * sides are counted first). A first group that shares the first server's store keeps its
 * keys there (server_init made it), and the side STORE_CONSUMERS holds an idle protocol that
 * keeps nothing. */
void consumers_init(World *world)
{
    bool servers_store = scenario_consumers_share_server_store(&world->scenario);
    uint32_t group_first = 0; /* the first instance of the group instance i belongs to */
    for (uint32_t i = 0; i < world->consumer_count; i++) {
        Consumers *consumers = &world->consumers[i];
        const ConsumerSpec *spec = consumers->spec;
        if (i > 0 && consumers->group != world->consumers[i - 1].group)
            group_first = i;
        bool own_stores = spec->idempotency.placement == PLACEMENT_PER_INSTANCE;
        bool shares_server = servers_store && consumers->group == 0;
        consumers->workers = spec->workers;
        world->business_keys |= spec->idempotency.key == KEY_BUSINESS_HASH;
        consumers->keys = shares_server ? world->servers[0].keys
                                        : &world->consumers[own_stores ? i : group_first].own_keys;
        if (shares_server && i == 0) {
            key_protocol_init(world, &consumers->own_keys, &spec->idempotency, consumers->node,
                              STORE_CONSUMERS, false);
            continue;
        }
        if (consumers->keys != &consumers->own_keys)
            continue; /* the server's, or its group's first instance's */
        uint32_t side = STORE_CONSUMERS;
        if (i > 0) {
            side = world->store_count++;
            world->stores[side] = consumers->keys;
        }
        key_protocol_init(world, consumers->keys, &spec->idempotency, consumers->node, side,
                          world->mode == MODE_IDEMPOTENT);
    }
}

void consumers_release(World *world)
{
    for (uint32_t i = 0; i < world->consumer_count; i++) {
        index_queue_release(&world->consumers[i].buffer);
        if (world->consumers[i].keys == &world->consumers[i].own_keys ||
            (i == 0 && scenario_consumers_share_server_store(&world->scenario)))
            /* its own store, or the idle one of a first group that uses the server's */
            key_protocol_release(&world->consumers[i].own_keys);
    }
}

void consumers_on_store_sweep(World *world, uint32_t side)
{
    key_protocol_on_sweep(world, world_keys_of_side(world, side));
}

/* The instance whose node is node, for the readers that change nothing. */
static const Consumers *instance_of(const World *world, uint32_t node)
{
    return &world->consumers[world->nodes[node].actor];
}

/* The instance running the job: the one its delivery was handed to. */
static Consumers *consumers_of_job(World *world, uint32_t job_slot)
{
    return consumers_at(world, world->jobs[job_slot].request.target);
}

/* The broker a delivery (or a job's request) came from: its instance's group's. */
static Broker *broker_of(World *world, const Message *delivery)
{
    return consumers_broker(world, consumers_at(world, delivery->target));
}

static uint32_t held(const Consumers *consumers)
{
    return consumers->busy + consumers->buffer.length;
}

/* A job whose process crashed meanwhile: its pending event only frees it. */
static bool died_in_crash(World *world, uint32_t job_slot)
{
    if (world->jobs[job_slot].epoch == consumers_of_job(world, job_slot)->epoch)
        return false;
    world_job_release(world, job_slot);
    return true;
}
static uint64_t store_key_of(const World *world, const KeyProtocol *keys, const Message *delivery)
{
    if (!keys->enabled)
        return 0;
    uint64_t key = keys->policy->key == KEY_BUSINESS_HASH ? delivery->business_key : delivery->key;
    if (key == 0 || keys->policy->scope != SCOPE_ACCOUNT)
        return key;
    uint32_t client = world_client_of_operation(world, delivery->operation);
    uint32_t account = world->groups[world->clients[client].group].spec->account;
    return rng_mix64(key ^ rng_mix64(account + 1)) | 1; /* the account's own key space */
}

/* ------------------------------------------------------------------ workers */

static void start_job(World *world, uint32_t job);
static void after_effect(World *world, uint32_t job_slot, int status);
static void complete_job(World *world, uint32_t job_slot, int status);
static bool charges_through_gateway(const World *world, const Message *delivery);
static void fail_handler(World *world, uint32_t job_slot, bool after_effect);
static void report_failed_record(World *world, const Message *delivery);
static void send_nack(World *world, const Message *delivery);
static void request_charge(World *world, uint32_t job_slot);

static void finish_job(World *world, uint32_t job)
{
    Consumers *consumers = consumers_of_job(world, job);
    SIM_ASSERT(consumers->busy > 0, "a job finishes on a busy worker");
    world_job_release(world, job);
    consumers->busy--;
    if (consumers->buffer.length > 0) {
        consumers->busy++;
        start_job(world, index_queue_pop(&consumers->buffer));
    }
}

/* The ack, or with a log broker the consumer's report that it is done with the record (the
 * log needs it in every mode: the partition's next record waits for it). */
static void acknowledge(World *world, const Message *delivery)
{
    const Broker *broker = broker_of(world, delivery);
    if (!broker->manual_ack && broker->partition_count == 0)
        return;
    Message ack = *delivery;
    ack.kind = MESSAGE_ACK;
    ack.hop = HOP_ACK;
    ack.source = delivery->target; /* the instance it was handed to */
    ack.target = broker->node;
    network_send(world, &ack);
}

/* broker.consumers.heartbeat_ms: while a worker runs a delivery, it tells the broker so
 * every heartbeat_ms, and the broker starts the delivery's ack timeout again (SQS
 * ChangeMessageVisibility, JetStream AckProgress). Only a running handler beats: a message
 * waiting in the buffer has no code running for it, so it can still time out. Only
 * brokers with a per-delivery timeout and a manual ack have anything to extend. */
static void schedule_heartbeat(World *world, uint32_t job_slot)
{
    const Consumers *consumers = consumers_of_job(world, job_slot);
    const Broker *broker = consumers_broker(world, consumers);
    double every_ms = consumers->spec->heartbeat_ms;
    if (every_ms <= 0 || !broker->manual_ack || broker->partition_count > 0 ||
        broker->spec->family != BROKER_VISIBILITY_TIMEOUT)
        return;
    sim_schedule_in(world->sim, sim_time_us_from_ms(every_ms), EVENT_HEARTBEAT,
                    (uint32_t)world->jobs[job_slot].serial, job_slot);
}

void consumers_on_heartbeat(World *world, uint32_t job_slot, uint32_t serial)
{
    Job *job = &world->jobs[job_slot];
    if (job->serial == 0 || (uint32_t)job->serial != serial ||
        job->epoch != consumers_of_job(world, job_slot)->epoch)
        return; /* done, or died with its process: no more beats */
    Message progress = job->request;
    progress.kind = MESSAGE_PROGRESS;
    progress.hop = HOP_ACK;
    progress.source = job->request.target;
    progress.target = broker_of(world, &job->request)->node;
    /* each beat a packet with a fate of its own, none the ack's */
    progress.lineage = lineage_of_repeat(job->request.lineage, 64 + job->heartbeats++);
    network_send(world, &progress);
    schedule_heartbeat(world, job_slot);
}

/* The handler's run: its end is scheduled, and a debit that is not atomic reads its balance. */
static void schedule_run(World *world, uint32_t job_slot)
{
    const Consumers *consumers = consumers_of_job(world, job_slot);
    const ConsumerSpec *spec = consumers->spec;
    const Message *delivery = &world->jobs[job_slot].request;
    balance_update_read(world, &world->jobs[job_slot]);
    /* the backlog of its own group's queues (or copy of the log): a group's work does not
     * slow because another group's queue is long */
    double backlog =
        spec->load_per_queued > 0
            ? (double)broker_backlog_of_group(world, consumers_broker(world, consumers),
                                              (uint32_t)(consumers - world->consumers))
            : 0.0;
    double load = 1.0 + spec->load_per_inflight * held(consumers) + spec->load_per_queued * backlog;
    SimTimeUs base = distribution_sample_ms_as_us(
        &spec->service_ms, world_draw_about(world, DRAW_CONSUMER_SERVICE, delivery));
    sim_schedule_in(world->sim, sim_time_us_clamped((double)base * load + 0.5), EVENT_CONSUMER_DONE,
                    0, job_slot);
}

static void schedule_service(World *world, uint32_t job_slot)
{
    schedule_run(world, job_slot);
    schedule_heartbeat(world, job_slot);
}

/* The group's key store crashed on its own and the rule is to refuse (C38's fail closed): the
 * lookup throws before any effect, and the framework hands the delivery back as it does a
 * handler's failure (a nack: requeued at once, counted against max_deliveries; a log's record
 * goes to its retry topic, refused at load without one), so it comes back while the store is
 * down or after. Nothing was reserved: there is no row to record. */
static void give_back_while_store_down(World *world, uint32_t job_slot, KeyVerdict verdict)
{
    const Message *delivery = &world->jobs[job_slot].request;
    world_service_metrics(world, delivery->target)->refused++;
    key_protocol_trace_refusal(world, &world->jobs[job_slot], verdict, 0);
    if (broker_of(world, delivery)->partition_count > 0)
        report_failed_record(world, delivery);
    else
        send_nack(world, delivery);
}

/* The fencing check before the effect failed (C11): the lease was lost (taken over, or gone
 * with a store that restarted empty; traced fenced), or the store is down and the rule is to
 * refuse (C38). The effect must not happen, and the handler's write throws as the lookup's
 * would: the framework hands the delivery back, a queue's by a nack (requeued at once), so it
 * comes back to a key a newer holder keeps, or to none. Left unacknowledged, a channel's
 * delivery would wait for the 30-minute consumer timeout and a log's partition for good. A
 * log has no nack: its consumer seeks back and tries the record again in place, as its error
 * handler does (Spring Kafka's DefaultErrorHandler, no back-off by default), unless the
 * store refused it while down (its retry topic, required then at load). */
static void refuse_without_lease(World *world, uint32_t job_slot, KeyLease lease)
{
    Job *job = &world->jobs[job_slot];
    if (lease == LEASE_STORE_DOWN) {
        world->metrics.refused_store_down++;
        give_back_while_store_down(world, job_slot, (KeyVerdict){KEY_STORE_DOWN, 503, 0});
        finish_job(world, job_slot);
        return;
    }
    world_service_metrics(world, job->request.target)->refused++;
    if (broker_of(world, &job->request)->partition_count > 0) {
        job->reserved = false; /* the record starts afresh: a new lookup, a new reservation */
        start_job(world, job_slot);
        return;
    }
    send_nack(world, &job->request);
    finish_job(world, job_slot);
}

/* Decides with the key protocol when the worker picks the message up; true: it runs. */
static bool admit(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    const Message *delivery = &job->request;
    KeyProtocol *keys = consumers_of_job(world, job_slot)->keys;
    job->store_key = store_key_of(world, keys, delivery);
    job->sent_key = job->store_key;
    KeyVerdict verdict = key_protocol_admit(world, keys, job);
    switch (verdict.kind) {
    case KEY_RUN:
        schedule_service(world, job_slot);
        return true;
    case KEY_RUN_AFTER_RACE_WINDOW:
        sim_schedule_in(world->sim, sim_time_us_from_ms(keys->policy->race_window_ms),
                        EVENT_JOB_RESERVE, delivery->target, job_slot);
        return true;
    case KEY_OTHER_BODY:
        world->metrics.status_422++;
        world_service_metrics(world, delivery->target)->refused++;
        acknowledge(world, delivery); /* a poison message: never run it */
        break;
    case KEY_REPLAY:
        world->metrics.consumer_replayed++;
        world_service_metrics(world, delivery->target)->replayed++;
        acknowledge(world, delivery);
        break;
    case KEY_IN_PROGRESS: /* left unacknowledged: the broker redelivers it */
        if (broker_of(world, delivery)->partition_count > 0) {
            /* a log never redelivers: the partition's consumer tries the record again once
             * the lease may be taken over (lock_timeout_ms > 0, checked at load) */
            key_protocol_trace_refusal(world, job, verdict, 0);
            sim_schedule_in(world->sim, sim_time_us_from_ms(keys->policy->lock_timeout_ms),
                            EVENT_CONSUMER_RETRY, 0, job_slot);
            return true;
        }
        break;
    case KEY_STORE_DOWN:
        give_back_while_store_down(world, job_slot, verdict);
        return false;
    case KEY_MISSING: /* refused at load: every delivery has a message id */
        break;
    }
    key_protocol_trace_refusal(world, job, verdict, 0);
    return false;
}

static void start_job(World *world, uint32_t job_slot)
{
    const Message *delivery = &world->jobs[job_slot].request;
    const Broker *broker = broker_of(world, delivery);
    if (broker->partition_count > 0 && !broker_log_delivery_current(broker, delivery)) {
        acknowledge(world, delivery); /* fetched before a rebalance: revoked, not processed */
        finish_job(world, job_slot);
        return;
    }
    if (!admit(world, job_slot))
        finish_job(world, job_slot);
}

void consumers_on_retry(World *world, uint32_t job_slot)
{
    if (died_in_crash(world, job_slot))
        return;
    start_job(world, job_slot);
}

/* check-then-insert: the check found no row; the insert comes a race window later. */
void consumers_on_job_reserve(World *world, uint32_t job_slot)
{
    if (died_in_crash(world, job_slot))
        return;
    KeyVerdict verdict = key_protocol_reserve_late(world, consumers_of_job(world, job_slot)->keys,
                                                   &world->jobs[job_slot]);
    if (verdict.kind == KEY_STORE_DOWN) { /* C38 fail closed, at the insert */
        give_back_while_store_down(world, job_slot, verdict);
        finish_job(world, job_slot);
        return;
    }
    schedule_service(world, job_slot);
}

/* A queue's delivery handed out on a channel that has ended since: its process crashed (the
 * delivery arrives after the restart), or the broker closed the channel (a consumer
 * timeout). The new process, or the new channel, never gets it: the channel it came on, or
 * the receive that asked for it, is gone; the message comes back by its family's way. */
static bool for_a_previous_life(World *world, const Consumers *consumers, const Message *delivery)
{
    /* a log's deliveries tell their generation instead (start_job) */
    return consumers_broker(world, consumers)->partition_count == 0 &&
           delivery->channel != consumers->channel;
}

void consumers_on_delivery(World *world, const Message *delivery)
{
    Consumers *consumers = consumers_at(world, delivery->target);
    if (consumers->down || for_a_previous_life(world, consumers, delivery)) {
        world->metrics.network_dropped++; /* refused: nobody is listening */
        if (world_tracing(world))
            world_trace_about(world, delivery->target, TRACE_REFUSED_DOWN, delivery, 0, 0);
        return;
    }
    world_service_takes_in(world, world_service_metrics(world, delivery->target), delivery->target,
                           delivery->operation);
    uint32_t job = world_job_alloc(world, delivery, consumers->epoch);
    /* to a group whose step emails, every message is the operation's confirmation: a receipt */
    world->jobs[job].request.receipt |= consumers->spec->sends_email;
    if (consumers->workers != 0 && consumers->busy >= consumers->workers) {
        index_queue_push(&consumers->buffer, job);
        return;
    }
    consumers->busy++;
    start_job(world, job);
}

/* ------------------------------------------------------------------ crashes */

/* max_crashes bounds each instance's crashes, as a server instance's. */
static bool draw_crash(World *world, const Job *job, CrashPoint point)
{
    const CrashSpec *crash = &consumers_at(world, job->request.target)->spec->crash;
    if (crash->point != point || crash->prob <= 0)
        return false;
    if (crash->max_crashes > 0 &&
        consumers_at(world, job->request.target)->crashes >= crash->max_crashes)
        return false;
    return world_chance_about(world, DRAW_CONSUMER_CRASH, &job->request, crash->prob);
}

/* The consumer process dies: what it held is gone, unacknowledged. Its inbox transactions
 * roll back; its key store is wiped with it unless the store outlives it (durable, or one
 * store the instances share). The other instances go on. */
static void crash(World *world, uint32_t job_slot, CrashPoint where)
{
    uint32_t node = world->jobs[job_slot].request.target;
    Consumers *consumers = consumers_at(world, node);
    world->metrics.crashes++;
    consumers->crashes++;
    world_service_metrics(world, node)->crashes++;
    if (world_tracing(world))
        world_trace(world, node, TRACE_CRASH, world->jobs[job_slot].request.operation, 0, where);
    if (consumers->spec->inbox)
        key_protocol_roll_back_open(world, consumers->keys, node, consumers->epoch);
    world_job_release(world, job_slot);
    while (consumers->buffer.length > 0)
        world_job_release(world, index_queue_pop(&consumers->buffer));
    consumers->busy = 0;
    consumers->down = true;
    consumers->epoch++;
    consumers->channel++;
    if (!scenario_group_store_outlives_crash(&world->scenario, consumers->spec))
        key_protocol_on_crash(world, consumers->keys);
    uint32_t instance = world->nodes[node].actor;
    broker_on_consumers_crash(world, instance);
    sim_schedule_in(world->sim, sim_time_us_from_ms(consumers->spec->crash.restart_ms),
                    EVENT_CONSUMER_RESTART, instance, 0);
}

void consumers_on_restart(World *world, uint32_t instance)
{
    SIM_ASSERT(instance < world->consumer_count, "a restart names a consumer instance");
    Consumers *consumers = &world->consumers[instance];
    consumers->down = false;
    if (world_tracing(world))
        world_trace(world, consumers->node, TRACE_RESTART, TRACE_NO_OPERATION, 0, 0);
    broker_on_consumers_restart(world, instance);
}

/* ------------------------------------------------------------------ running a message */

static int send_receipt(World *world, const Message *event)
{
    world_operation(world, event->operation)->receipts++;
    if (world_tracing(world))
        world_trace_about(world, event->target, TRACE_SEND_RECEIPT, event,
                          world_operation(world, event->operation)->receipts, 0);
    return 200;
}

void consumers_on_job_done(World *world, uint32_t job_slot)
{
    if (died_in_crash(world, job_slot))
        return;
    Job *job = &world->jobs[job_slot];
    uint32_t node = job->request.target;
    KeyProtocol *keys = consumers_at(world, node)->keys;
    SIM_ASSERT(!consumers_at(world, node)->down,
               "a job of the running consumers is done while they run");
    world->metrics.executions++;
    world_service_metrics(world, node)->runs++;
    if (draw_crash(world, job, CRASH_BEFORE_EFFECT)) {
        crash(world, job_slot, CRASH_BEFORE_EFFECT);
        return;
    }
    if (job->resume_status == 0 && /* a resumed run's effect phase committed already */
        world_chance_about(world, DRAW_FAIL_BEFORE_EFFECT, &job->request,
                           consumers_at(world, node)->spec->fail_before_effect)) {
        fail_handler(world, job_slot, false);
        return;
    }
    KeyLease lease = key_protocol_check_lease(world, keys, job);
    if (lease != LEASE_HELD) {
        refuse_without_lease(world, job_slot, lease);
        return;
    }
    if (job->resume_status != 0) { /* the key's recovery point: the effect is done */
        after_effect(world, job_slot, job->resume_status);
        return;
    }
    if (charges_through_gateway(world, &job->request)) {
        request_charge(world, job_slot);
        return;
    }
    if (balance_update_conflict(world, job, node)) {
        schedule_run(world, job_slot); /* compare-and-set lost: read again, run again; the
                                          heartbeats already running keep going */
        return;
    }
    bool effect = false;
    int status = job->request.receipt
                     ? send_receipt(world, &job->request)
                     : ledger_apply_read(world, &job->request, &job->balance_read, node, &effect);
    job->uncommitted = consumers_at(world, node)->spec->inbox && effect;
    Broker *broker = broker_of(world, &job->request);
    if (effect && broker->partition_count > 0)
        broker_log_on_output(world, broker, &job->request);
    if (effect && !job->uncommitted)
        key_protocol_commit_effect_phase(world, keys, job, status);
    after_effect(world, job_slot, status);
}

/* The handler's effect happened (or the gateway gave a definite answer): the inbox row and
 * the effect commit, then the ack. */
static void after_effect(World *world, uint32_t job_slot, int status)
{
    Job *job = &world->jobs[job_slot];
    if (status < 500 &&
        world_chance_about(world, DRAW_FAIL_AFTER_EFFECT, &job->request,
                           consumers_of_job(world, job_slot)->spec->fail_after_effect)) {
        fail_handler(world, job_slot, true);
        return;
    }
    if (draw_crash(world, job, CRASH_AFTER_EFFECT)) {
        crash(world, job_slot, CRASH_AFTER_EFFECT);
        return;
    }
    complete_job(world, job_slot, status);
}

/* The handler's work for the message is over: its key (inbox) row records the answer, then
 * the ack. */
static void complete_job(World *world, uint32_t job_slot, int status)
{
    Job *job = &world->jobs[job_slot];
    job->uncommitted = false; /* the inbox row and the effect commit here, together */
    if (job->store_key != 0)
        key_protocol_record(world, consumers_of_job(world, job_slot)->keys, job, status);
    if (draw_crash(world, job, CRASH_AFTER_COMPLETION)) {
        crash(world, job_slot, CRASH_AFTER_COMPLETION);
        return;
    }
    acknowledge(world, &job->request);
    finish_job(world, job_slot);
}

/* A log's record whose run failed: with retry topics (retryable_topic, Spring Kafka's
 * non-blocking retries) the framework forwards it to the next retry topic or the dead-letter
 * topic, then reports it done, so its offset commits and its partition goes on at once. At
 * most once retries nothing: the record is skipped. Without retry topics only an unanswered
 * charge gets here (the handler's own failures are refused at load on a log): the call's
 * retry was the blocking one in place, and the recoverer skips the record. */
static void report_failed_record(World *world, const Message *delivery)
{
    Broker *broker = broker_of(world, delivery);
    if (consumers_at(world, delivery->target)->spec->retryable_topic.enabled && broker->manual_ack)
        broker_log_forward_failed(world, broker, delivery);
    acknowledge(world, delivery);
}

/* The framework tells the broker the handler failed, for it to requeue the delivery now;
 * only a queue that waits for a manual ack has anything to requeue (a log has no
 * per-message nack, and at-most-once acknowledged on delivery). */
static void send_nack(World *world, const Message *delivery)
{
    const Broker *broker = broker_of(world, delivery);
    if (!broker->manual_ack || broker->partition_count > 0)
        return;
    Message nack = *delivery;
    nack.kind = MESSAGE_NACK;
    nack.hop = HOP_ACK;
    nack.source = delivery->target;
    nack.target = broker->node;
    nack.lineage = lineage_of_repeat(delivery->lineage, 63); /* a fate not the ack's */
    network_send(world, &nack);
}

/* The handler threw (C36): before its effect, or after it (the effect is applied, then
 * writing its result fails). An inbox's transaction aborts with it, so its effect is undone;
 * a recovery point committed at the effect stays. The key row goes by on_failure's
 * ambiguous class, the failure being a 500, and the framework tells the broker at once (a
 * nack over the consumers->broker link, which may be lost: then the ack timeout, or a
 * channel's closing, brings the delivery back). At-most-once acknowledged it on delivery:
 * nothing brings it back. */
static void fail_handler(World *world, uint32_t job_slot, bool after_effect)
{
    Job *job = &world->jobs[job_slot];
    uint32_t node = job->request.target;
    world->metrics.handler_failures++;
    if (world_tracing(world))
        world_trace_about(world, node, TRACE_HANDLER_FAILED, &job->request, 500, after_effect);
    if (job->uncommitted) {
        ledger_undo(world, &job->request, node);
        job->uncommitted = false;
    }
    if (job->store_key != 0)
        key_protocol_record(world, consumers_at(world, node)->keys, job, 500);
    if (broker_of(world, &job->request)->partition_count > 0)
        report_failed_record(world, &job->request);
    else
        send_nack(world, &job->request);
    finish_job(world, job_slot);
}

void consumers_abort_output(World *world, const Message *record, uint32_t instance)
{
    SIM_ASSERT(instance < world->consumer_count, "an output was written by an instance");
    ledger_undo(world, record, world->consumers[instance].node);
    KeyProtocol *keys = world->consumers[instance].keys;
    uint64_t key = store_key_of(world, keys, record);
    if (key != 0)
        key_protocol_forget(world, keys, key);
}

/* ------------------------------------------------------------------ charging a card */

/* A debit of a consumer group with use_gateway is a charge at the provider: an external
 * effect, so an inbox can roll back the key row but never the charge. A call step to a
 * server (a ledger service) takes every operation, as a server's does. */
static bool charges_through_gateway(const World *world, const Message *delivery)
{
    const ClientGroupSpec *spec = world->groups[world->clients[delivery->client].group].spec;
    const Consumers *consumers = instance_of(world, delivery->target);
    return consumers->spec->use_gateway && !delivery->receipt &&
           (spec->operation.kind == OPERATION_DEBIT ||
            world_is_server(world, consumers->call_node));
}

/* A try of the charge carries the message's key (its message id, or business hash), as the
 * call step's key says, to the provider, when the consumer keeps keys; the worker waits for
 * the answer, its call's timeout. */
static void send_charge_try(World *world, uint32_t job_slot)
{
    Job *job = &world->jobs[job_slot];
    uint32_t node = job->request.target;
    const Consumers *consumers = instance_of(world, node);
    const CallSpec *call = &consumers->spec->call;
    job->charge_tries++;
    if (job->charge_tries > 1) {
        world->metrics.call_retries++;
        world_service_metrics(world, node)->retries++;
        if (world_tracing(world))
            world_trace_about(world, node,
                              world_is_server(world, consumers->call_node) ? TRACE_CALL_RETRY
                                                                           : TRACE_CHARGE_RETRY,
                              &job->request, job->charge_tries, 0);
    }
    ReplyTo reply_to = {.kind = REPLY_TO_JOB,
                        .slot = job_slot,
                        .serial = job->serial | (uint64_t)job->charge_tries << CHARGE_TRY_SHIFT};
    Message charge =
        message_call(world, &job->request, node, consumers->call_node,
                     call_key_of(call->key, job->sent_key), reply_to, job->charge_tries - 1);
    server_send_try(world, &charge,
                    call->retry_host == RETRY_HOST_OTHER ? &job->tried_instances : NULL);
    world->jobs[job_slot].gateway_timer =
        sim_schedule_in(world->sim, call_timeout_us(world, call, consumers->call_node),
                        EVENT_GATEWAY_TIMEOUT, node, job_slot);
}

static void request_charge(World *world, uint32_t job_slot)
{
    world->jobs[job_slot].awaiting_gateway = true;
    world->jobs[job_slot].charge_tries = 0;
    send_charge_try(world, job_slot);
}

/* ------------------------------------------------------------------ a saga's undo */

/* The group's saga (issue 21): a charge, then the order's own work (shipping), which may
 * fail definitively; the call's undo then refunds the charge, with its own retry, key and
 * timeout, by the server's code (server_charge.c), and the message is acknowledged once the
 * refund answered or its tries are spent: the order is over, refunded. No durable saga log
 * is kept (as the server's): a crash while refunding loses the refund in flight, and the
 * message, unacknowledged, comes back and runs again from its charge, which only the
 * group's key row (a completed key is acknowledged without running) or the provider's key
 * on the charge stops from charging twice; a refund's key derived from the message's key
 * then makes the refund of that charge one refund at the provider, a new one per try not. */
static void order_failed(World *world, uint32_t job_slot);

/* The saga of the job in job_slot, run by the instance its delivery was handed to. */
static SagaCaller consumers_saga(const World *world, uint32_t job_slot)
{
    uint32_t node = world->jobs[job_slot].request.target;
    const Consumers *consumers = instance_of(world, node);
    return (SagaCaller){.node = node,
                        .event_target = node,
                        .call_node = consumers->call_node,
                        .undo = &consumers->spec->undo,
                        .fulfil = &consumers->spec->fulfil,
                        .send_charge_try = send_charge_try,
                        .order_failed = order_failed};
}

/* The order failed after its charge: the key row and the ack say it is over (424, a
 * definite answer), refunded or, without an undo, still charged. The compensation is the
 * handler's own way out of a failed order, so it completes the message's work as the
 * server's saga completes its job (server_complete_job): no fail_after_effect and no
 * after-effect crash is drawn after it, only the crash after completion (the row is
 * written by then). A redelivery of the message, however it comes (an ack timeout, a
 * crash after the row), finds the row (as its on_failure policy keeps a 424: stored, by
 * default) and is acknowledged without charging again; before
 * this, a handler failing after the refund had its row forgotten and its message nacked,
 * and the redelivery charged again (the provider replaying the refunded charge's key, or,
 * without keys, charging twice) and could ship the refunded order. */
static void order_failed(World *world, uint32_t job_slot)
{
    complete_job(world, job_slot, SERVER_STATUS_ORDER_FAILED);
}

/* The backoff after an unanswered try is over: the next try, if the worker still lives. */
void consumers_on_charge_retry(World *world, uint32_t job_slot)
{
    if (died_in_crash(world, job_slot))
        return;
    SagaCaller caller = consumers_saga(world, job_slot);
    saga_send_next_try(world, job_slot, &caller);
}

static void on_failed_try(World *world, uint32_t job_slot, int status);

/* Whether the server's receipts are published for this delivery's operation: a payment,
 * delivered as itself (not a receipt, which nobody charges). */
static bool receipt_due(const World *world, const Message *delivery)
{
    const ClientGroupSpec *spec = world->groups[world->clients[delivery->client].group].spec;
    return world->scenario.server.publish_receipts && !delivery->receipt &&
           spec->operation.kind == OPERATION_DEBIT;
}

void consumers_on_charge_reply(World *world, const Message *reply)
{
    uint32_t slot = reply->reply_to.slot;
    uint32_t try_number = (uint32_t)(reply->reply_to.serial >> CHARGE_TRY_SHIFT);
    const Consumers *consumers = consumers_at(world, reply->target); /* the caller's instance */
    if (consumers->down || slot >= world->job_slots.capacity ||
        world->jobs[slot].serial != (reply->reply_to.serial & JOB_SERIAL_MASK) ||
        world->jobs[slot].epoch != consumers->epoch || !world->jobs[slot].awaiting_gateway ||
        world->jobs[slot].charge_tries != try_number ||
        event_id_is_none(world->jobs[slot].gateway_timer) ||
        world->jobs[slot].refunding != (reply->hop == HOP_REFUND_REPLY))
        return; /* it gave up on this try or this charge, or died since: its pending timer
                   frees the job; or a late answer to a charge reached a job refunding by now
                   (its try numbers start again at 1) */
    Job *job = &world->jobs[slot];
    sim_cancel(world->sim, job->gateway_timer);
    job->gateway_timer = EVENT_ID_NONE;
    SagaCaller caller = consumers_saga(world, slot);
    if (job->refunding) {
        saga_refund_over(world, slot, &caller, false);
        return;
    }
    if (world_is_server(world, reply->source) && call_answer_asks_retry(reply->status)) {
        on_failed_try(world, slot, 502);
        return;
    }
    job->awaiting_gateway = false;
    if (reply->status < 300 && saga_after_charge(world, slot, &caller))
        return;
    /* A charge elsewhere publishes its receipt once the group hears of it, as the server's
     * does (server_charge.c): directly, as every consumers' charge does (ledger.c) */
    if (reply->status < 300 && receipt_due(world, &job->request))
        broker_publish_receipt(world, &job->request);
    /* the gateway's 200 charged or 402 declined, or a called server's definite answer */
    after_effect(world, slot, reply->status);
}

/* No answer in time: the charge may have happened. The handler fails: its key row goes as
 * an ambiguous failure's does (forgotten, the default; an inbox rolls it back alike), and
 * the message comes back as each broker family brings a failed delivery back:
 * - visibility-timeout (SQS): left unacknowledged, it is received again after its ack
 *   timeout (the message is not deleted; C25 as it always was);
 * - channel (RabbitMQ): the listener's exception rejects it with requeue (Spring AMQP's
 *   default, basic.nack requeue=true; the C36 nack), so it is redelivered at once;
 * - log (Kafka): there is no per-message nack. The call's own retry was the error
 *   handler's back-off, in place, the partition waiting behind the record (Spring Kafka's
 *   DefaultErrorHandler seeks back to it and tries again); once it is spent, the recoverer
 *   logs the record and skips it: the consumer reports it done and its offset commits.
 *   With retryable_topic the record goes to a retry topic instead (report_failed_record).
 *   Stopping the partition instead (a container stopped on error) would hold every later
 *   record for good: not modelled. */
static void give_up_charge(World *world, uint32_t job_slot)
{
    const Message *delivery = &world->jobs[job_slot].request;
    const Broker *broker = broker_of(world, delivery);
    if (broker->partition_count > 0)
        report_failed_record(world, delivery);
    else if (broker->spec->family == BROKER_CHANNEL)
        send_nack(world, delivery);
    finish_job(world, job_slot);
}

/* A try of the call failed: no answer in time (status 504), or a called server's answer
 * that asks for another (502). The next try, or, the tries spent, the charge is given up. */
static void on_failed_try(World *world, uint32_t job_slot, int status)
{
    SagaCaller caller = consumers_saga(world, job_slot);
    const Consumers *consumers = consumers_of_job(world, job_slot);
    if (!saga_on_try_timeout(world, job_slot, &caller, &consumers->spec->call.retry))
        return;
    Job *job = &world->jobs[job_slot];
    job->awaiting_gateway = false;
    if (status == 504 && world_tracing(world) && !world_is_server(world, consumers->call_node))
        world_trace_about(world, job->request.target, TRACE_GATEWAY_TIMEOUT, &job->request, 504, 0);
    if (job->store_key != 0)
        key_protocol_record(world, consumers_of_job(world, job_slot)->keys, job, status);
    give_up_charge(world, job_slot);
}

void consumers_on_charge_timeout(World *world, uint32_t job_slot)
{
    if (died_in_crash(world, job_slot))
        return;
    on_failed_try(world, job_slot, 504);
}

/* ------------------------------------------------------------------ its node kind's model */

/* A broker's confirm of a receipt the consumers published directly: the receipt leaves with
 * the change (ledger_apply) named after the node that applied it, so its confirm comes back
 * there, and nobody waits for it, as nobody waits for the server's own direct confirm. (Such
 * confirms used to go where a client's answer goes, and a client still waiting for its
 * payment's answer took the broker's 200 for it.) */
static void receipt_confirm_unwaited(World *world, const Message *confirm)
{
    (void)world;
    (void)confirm;
}

/* What comes back to the consumers as an answer: a called server's, to their call step (a
 * ledger service), or a broker's confirm of a receipt, which nobody waits for. */
static void consumers_take_answer(World *world, const Message *answer)
{
    if (world_is_server(world, answer->source))
        consumers_on_charge_reply(world, answer);
    else
        receipt_confirm_unwaited(world, answer);
}

const NodeKindModel node_model_consumers = {
    .init = consumers_init,
    .release = consumers_release,
    .on_message =
        {
            [MESSAGE_DELIVERY] = consumers_on_delivery,
            [MESSAGE_CHARGE_REPLY] = consumers_on_charge_reply,
            [MESSAGE_RESPONSE] = consumers_take_answer,
        },
    .on_job_reserve = consumers_on_job_reserve,
    .on_charge_timeout = consumers_on_charge_timeout,
    .on_charge_retry = consumers_on_charge_retry,
};
