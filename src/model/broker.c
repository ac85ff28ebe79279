/* The message broker: named queues between the publishers (client groups, and the server's
 * receipts) and the consumer groups, each taking its own queues (or, by a fanout exchange,
 * its own copy of every message). Each queue has its own rules
 * (ack timeout, max deliveries, prefetch, dedup window...) and its own delivery capacity.
 * At-most-once (the at-most-once mode) acknowledges a message as it hands it out, so a lost
 * delivery or a consumer crash loses it. At-least-once (the other modes) waits for the
 * consumer's ack; the ack timeout starts at delivery, like a visibility timeout, and when
 * it expires the message becomes visible again and is redelivered, up to max_deliveries,
 * then dead-lettered. A publisher dedup window drops a re-published message id (after
 * confirming it, as the publisher must still be told). Deliveries stop at the consumers'
 * capacity, workers x prefetch, so a slow consumer group holds messages past their
 * timeout although nothing failed: the incident of C3. Nothing is handed out while the
 * consumers are down. The channel family (RabbitMQ) waits for a nack or a closed channel
 * instead of a timeout; the log family (Kafka) keeps committed offsets instead of
 * acknowledgements, in broker_log.c, and shares the publishing here. */
#include <stdlib.h>

#include "sim_assert.h"
#include "world_internal.h"

/* A consumer instance takes up to prefetch unacknowledged messages of each queue per worker,
 * as a consumer with a channel per queue does. */
static uint64_t delivery_capacity(const Consumers *consumers, const BrokerQueue *queue)
{
    if (consumers->workers == 0)
        return UINT64_MAX;
    return (uint64_t)consumers->workers * queue->spec->prefetch;
}

/* The consumer instance the queue's next delivery goes to: the first of the group that takes
 * the queue that is up and has room for it, in turn from the one after the last served
 * (RabbitMQ hands a queue's messages to its consumers round-robin, each up to its prefetch;
 * an SQS consumer that polls takes what it has room for). None (UINT32_MAX): every instance
 * of that group is down or full. Nothing is handed out while an instance is down: its
 * channels closed with its crash, and it polls for nothing. */
static uint32_t consumer_with_room(const World *world, const BrokerQueue *queue)
{
    for (uint32_t k = 0; k < world->consumer_count; k++) {
        uint32_t i = (queue->next_consumer + k) % world->consumer_count;
        const Consumers *consumers = &world->consumers[i];
        if ((queue->takers >> i & 1u) != 0 && !consumers->down &&
            queue->in_flight_at[i] < delivery_capacity(consumers, queue))
            return i;
    }
    return UINT32_MAX;
}

void broker_note_levels(World *world, const Broker *broker)
{
    (void)broker; /* the one whose level moved: the series are every broker's together */
    uint64_t ready = 0;
    uint64_t in_flight = 0;
    for (uint32_t b = 0; b < world->broker_count; b++) {
        ready += world->brokers[b].ready_total;
        in_flight += world->brokers[b].in_flight_total;
    }
    SimTimeUs now = sim_now(world->sim);
    time_series_record(&world->metrics.queue_depth_series, now, ready);
    time_series_record(&world->metrics.in_flight_series, now, in_flight);
}

uint64_t broker_backlog_of_group(const World *world, const Broker *broker, uint32_t instance)
{
    if (broker->partition_count > 0)
        return broker_log_backlog_of_group(broker, world->consumers[instance].log_group);
    uint64_t ready = 0;
    for (uint32_t q = 0; q < broker->queue_count; q++)
        ready +=
            (broker->queues[q].takers >> instance & 1u) != 0 ? broker->queues[q].ready.length : 0;
    return ready;
}

static void init_broker(World *world, Broker *broker)
{
    const BrokerSpec *spec = broker->spec;
    broker->manual_ack = world->mode != MODE_AT_MOST_ONCE;
    slot_pool_init(&broker->message_slots, 256);
    broker->queue_count = spec->queue_count;
    broker->queue_base = world->metrics.queue_count; /* after the brokers before it */
    world->metrics.queue_count += spec->queue_count;
    for (uint32_t q = 0; q < spec->queue_count; q++) {
        BrokerQueue *queue = &broker->queues[q];
        queue->spec = &spec->queues[q];
        if (spec->queues[q].dedup_window_ms > 0)
            queue->recent_ids = idem_store_create(1024);
        for (uint32_t i = 0; i < world->consumer_count; i++) {
            const Consumers *consumers = &world->consumers[i];
            if (consumers->broker == broker_index(world, broker) &&
                (consumers->spec->queue_mask >> q & 1u) != 0)
                queue->takers |= 1ull << i;
        }
    }
    if (spec->family == BROKER_LOG)
        broker_log_init(world, broker);
}

void broker_init(World *world)
{
    for (uint32_t b = 0; b < world->broker_count; b++)
        init_broker(world, &world->brokers[b]);
}

void broker_release(World *world)
{
    for (uint32_t b = 0; b < world->broker_count; b++) {
        Broker *broker = &world->brokers[b];
        broker_log_release(broker);
        free(broker->messages);
        slot_pool_release(&broker->message_slots);
        for (uint32_t q = 0; q < broker->queue_count; q++) {
            index_queue_release(&broker->queues[q].ready);
            idem_store_destroy(broker->queues[q].recent_ids);
        }
    }
}

/* A broker step about one message, naming its queue when there is more than one to tell
 * apart: a scenario with one queue traces as it always did. */
static void trace_queue(World *world, const Broker *broker, TraceEvent event,
                        const Message *message, int64_t value, uint32_t queue)
{
    world_trace_queue(world, broker->node, event, message, value,
                      broker->queue_count > 1 ? broker->queues[queue].spec->name : NULL);
}

/* The queue a queued message's trace records name: its queue's, where there are several, or
 * on a log its group's, a later one's (each group reads its own copy of every record). */
static const char *queued_trace_name(const Broker *broker, const QueuedMessage *queued)
{
    if (broker->partition_count > 0)
        return broker->log_groups[queued->log_group].name;
    return broker->queue_count > 1 ? broker->queues[queued->queue].spec->name : NULL;
}

/* ------------------------------------------------------------------ delivering */

/* Acknowledged or dead: the broker lets go of the message and of its operation. */
static void finish_queued(World *world, QueuedMessage *queued, QueuedState state)
{
    queued->state = state;
    world_operation_unref(world, queued->publish.operation);
}

void broker_finish_queued(World *world, Broker *broker, uint32_t queued_index)
{
    finish_queued(world, &broker->messages[queued_index], QUEUED_ACKED);
}

Message broker_next_delivery(World *world, Broker *broker, uint32_t queued_index)
{
    QueuedMessage *queued = &broker->messages[queued_index];
    QueueMetrics *counts = broker_queue_counts(world, broker, queued->queue);
    queued->deliveries++;
    world->metrics.deliveries++;
    counts->deliveries++;
    if (queued->deliveries > 1) {
        world->metrics.redeliveries++;
        world_service_metrics(world, broker->node)->retries++;
        counts->redeliveries++;
    }
    Message delivery = queued->publish;
    delivery.kind = MESSAGE_DELIVERY;
    delivery.hop = HOP_DELIVERY;
    delivery.source = broker->node;
    delivery.target = world->consumers_node; /* a queue's deliver() names the instance */
    delivery.reply_to =
        (ReplyTo){.kind = REPLY_TO_DELIVERY, .slot = queued_index, .serial = queued->deliveries};
    /* Each delivery of a message is its own packet, with its own fate. */
    delivery.lineage = lineage_of_repeat(queued->publish.lineage, queued->deliveries);
    if (world_tracing(world) && queued->deliveries > 1)
        world_trace_queue(world, broker->node, TRACE_REDELIVER, &delivery, queued->deliveries,
                          queued_trace_name(broker, queued));
    return delivery;
}

/* The ack timeout of a delivery in flight: at the broker's node, naming the delivery (its
 * number, high) of the queued message (its slot, low). */
static EventId schedule_ack_timeout(World *world, const Broker *broker, uint32_t queued_index,
                                    double wait_ms)
{
    const QueuedMessage *queued = &broker->messages[queued_index];
    return sim_schedule_in(world->sim, sim_time_us_from_ms(wait_ms), EVENT_ACK_TIMEOUT,
                           broker->node, (uint64_t)queued->deliveries << 32 | queued_index);
}

static void deliver(World *world, Broker *broker, uint32_t queued_index, uint32_t consumer)
{
    QueuedMessage *queued = &broker->messages[queued_index];
    BrokerQueue *queue = &broker->queues[queued->queue];
    Message delivery = broker_next_delivery(world, broker, queued_index);
    delivery.target = world->consumers[consumer].node;
    queue->next_consumer = (consumer + 1) % world->consumer_count; /* in turn, queue by queue */
    delivery.channel = world->consumers[consumer].channel;
    if (!broker->manual_ack) {
        network_send(world, &delivery);
        finish_queued(world, queued, QUEUED_ACKED); /* acknowledged as it leaves */
        return;
    }
    queued->state = QUEUED_IN_FLIGHT;
    queued->consumer = (uint8_t)consumer;
    queue->in_flight++;
    queue->in_flight_at[consumer]++;
    broker->in_flight_total++;
    /* visibility timeout: the message comes back after ack_timeout_ms; channel: only a
     * delivery held past consumer_timeout_ms closes the channel */
    double wait_ms = broker->spec->family == BROKER_CHANNEL ? broker->spec->consumer_timeout_ms
                                                            : queue->spec->ack_timeout_ms;
    queued->timer = schedule_ack_timeout(world, broker, queued_index, wait_ms);
    network_send(world, &delivery);
}

static void free_slot(Broker *broker, uint32_t queued_index)
{
    slot_pool_give(&broker->message_slots, queued_index);
}

/* Nothing is handed out to a down consumer instance, in either queue family. A channel
 * broker pushes to the consumers' open channels, and a crash closed its instance's: what is
 * ready waits in the queue for an instance that is up, as RabbitMQ keeps messages with no
 * consumer subscribed. A visibility-timeout queue hands a message out only to a consumer
 * that polls for it (SQS ReceiveMessage, a JetStream pull), and a down consumer polls for
 * nothing: the message stays visible in the queue, its visibility timeout not started. (The
 * log family holds its records back the same way, in broker_log.c.) */
static void dispatch_ready(World *world, Broker *broker, uint32_t queue_index)
{
    BrokerQueue *queue = &broker->queues[queue_index];
    uint32_t consumer = 0;
    while (queue->ready.length > 0 && (consumer = consumer_with_room(world, queue)) != UINT32_MAX) {
        uint32_t queued = index_queue_pop(&queue->ready);
        broker->ready_total--;
        QueuedMessage *message = &broker->messages[queued];
        message->in_ready = false;
        if (message->state == QUEUED_READY)
            deliver(world, broker, queued, consumer);
        else if (message->free_when_popped)
            free_slot(broker, queued);
    }
    broker_note_levels(world, broker);
}

static void make_ready(World *world, Broker *broker, uint32_t queued_index)
{
    QueuedMessage *message = &broker->messages[queued_index];
    message->state = QUEUED_READY;
    message->in_ready = true;
    index_queue_push(&broker->queues[message->queue].ready, queued_index);
    broker->ready_total++;
    dispatch_ready(world, broker, message->queue);
}

/* Everything that can still name a queued message (a delivery or an ack in flight, a
 * consumer's job, a late ack) also holds its operation, so once the operation has settled
 * the slot can take a new message: the broker's memory follows the messages in progress,
 * not all that were ever published. A stale entry in the ready queue is the one exception:
 * that slot is freed when the entry is popped. */
void broker_release_operation(World *world, Operation *op)
{
    uint32_t link = op->broker_messages;
    op->broker_messages = OPERATION_NO_SLOT;
    while (link != OPERATION_NO_SLOT) {
        Broker *broker = &world->brokers[link >> QUEUED_LINK_BROKER_SHIFT];
        uint32_t queued_index = link & ((1u << QUEUED_LINK_BROKER_SHIFT) - 1);
        QueuedMessage *message = &broker->messages[queued_index];
        link = message->next_of_operation;
        SIM_ASSERT(message->state == QUEUED_ACKED || message->state == QUEUED_DEAD,
                   "a settled operation has no message in the broker's hands");
        if (message->in_ready)
            message->free_when_popped = true;
        else
            free_slot(broker, queued_index);
    }
}

void broker_link_to_operation(World *world, Broker *broker, Operation *op, uint32_t queued)
{
    SIM_ASSERT(queued < 1u << QUEUED_LINK_BROKER_SHIFT, "a queued message's slot fits its link");
    broker->messages[queued].next_of_operation = op->broker_messages;
    op->broker_messages = broker_index(world, broker) << QUEUED_LINK_BROKER_SHIFT | queued;
}

/* ------------------------------------------------------------------ publishing */

static bool seen_recently(World *world, BrokerQueue *queue, uint64_t message_id)
{
    IdemStore *recent = queue->recent_ids;
    if (recent == NULL)
        return false;
    SimTimeUs now = sim_now(world->sim);
    if (idem_store_lookup(recent, message_id, now) != NULL)
        return true;
    /* Forget ids past the window in batches: sweep when the table has doubled since the
     * last sweep, so the cost per publish stays constant however long the window. */
    if (idem_store_rows(recent) >= 2 * queue->recent_ids_after_sweep + 4096) {
        idem_store_sweep(recent, now);
        queue->recent_ids_after_sweep = idem_store_rows(recent);
    }
    KeyRow row = {.key = message_id,
                  .status = KEY_STATUS_COMPLETED,
                  .created_us = now,
                  .expires_us = now + sim_time_us_from_ms(queue->spec->dedup_window_ms)};
    idem_store_put(recent, &row);
    return false;
}

static void confirm(World *world, const Message *publish)
{
    Message answer = message_answer(publish, HOP_RESPONSE, 200, publish->operation);
    network_send(world, &answer);
}

/* Receipts and an order API's orders go where the server sends them (its publish step's
 * queue), a client group's publishes where it names. */
static uint32_t queue_of(const World *world, const Message *publish)
{
    if (publish->receipt || world->nodes[publish->source].kind == NODE_SERVER)
        return world->scenario.server.receipts_queue;
    return world->groups[world->clients[publish->client].group].spec->queue;
}

/* A copy of publish for queue: dropped when the queue's dedup window (or a log's idempotent
 * producer) has seen it, else queued. Its slot, or SLOT_NONE when dropped. copy_number: the
 * copies of this publish an exchange queued before it (0 without an exchange); on a log, the
 * consumer group whose copy it is (the producer's send is one, checked at the first). */
static uint32_t take_in(World *world, Broker *broker, const Message *publish, uint32_t queue,
                        uint32_t copy_number)
{
    QueueMetrics *counts = broker_queue_counts(world, broker, queue);
    bool log = broker->partition_count > 0;
    if (seen_recently(world, &broker->queues[queue], publish->key) ||
        (log && copy_number == 0 && broker_log_producer_repeat(world, broker, publish))) {
        world->metrics.deduplicated++;
        counts->deduplicated++;
        if (world_tracing(world))
            trace_queue(world, broker, TRACE_DEDUPLICATED, publish, 0, queue);
        return SLOT_NONE;
    }
    Message copy = *publish; /* publish may be a queued message's, in the pool the take grows */
    publish = &copy;
    uint32_t queued =
        slot_pool_take(&broker->message_slots, &broker->messages, sizeof *broker->messages);
    Operation *op = world_operation(world, publish->operation);
    broker->messages[queued] = (QueuedMessage){.publish = *publish,
                                               .timer = EVENT_ID_NONE,
                                               .queue = (uint16_t)queue,
                                               .log_group = (uint16_t)(log ? copy_number : 0)};
    /* An exchange's later copies are messages of their own from here: a lineage of their own,
     * so that their deliveries and acks meet the network, and their runs the consumers'
     * draws (service time, crash, failure), apart from the first copy's; with one lineage
     * each group's copy was delayed, lost and crashed on as the other was. The first keeps
     * the publish's, which the diagrams follow from the publish to its delivery. */
    if (copy_number > 0)
        broker->messages[queued].publish.lineage =
            lineage_of_repeat(publish->lineage, 32 + copy_number);
    broker_link_to_operation(world, broker, op, queued);
    world_operation_ref(world, publish->operation); /* until acknowledged or dead */
    world->metrics.messages++;
    counts->messages++;
    world_service_takes_in(world, world_service_metrics(world, broker->node), broker->node,
                           publish->operation);
    if (world_tracing(world))
        world_trace_queue(world, broker->node, TRACE_ENQUEUE, publish,
                          broker->queues[queue].ready.length + 1,
                          queued_trace_name(broker, &broker->messages[queued]));
    return queued;
}

/* A log's record: a copy for each consumer group, as Kafka's groups each read every record of
 * the topic, with its own offsets (broker_log.c). Confirmed once they are all in. */
static void append_to_log(World *world, Broker *broker, const Message *publish, uint32_t queue)
{
    uint32_t copies[1 + CONSUMER_GROUPS_EXTRA_MAX];
    copies[0] = take_in(world, broker, publish, queue, 0);
    for (uint32_t g = 1; copies[0] != SLOT_NONE && g < broker->log_group_count; g++)
        copies[g] = take_in(world, broker, publish, queue, g);
    confirm(world, publish);
    if (copies[0] != SLOT_NONE)
        broker_log_append(world, broker, copies);
}

/* The exchange a client group's publish goes to (its index plus one), or 0. */
static uint32_t exchange_of(const World *world, const Message *publish)
{
    if (publish->receipt || world->nodes[publish->source].kind == NODE_SERVER)
        return 0;
    return world->groups[world->clients[publish->client].group].spec->exchange;
}

void broker_on_publish(World *world, const Message *publish)
{
    Message copy = *publish; /* publish may be a queued message's, in the pool the takes grow */
    publish = &copy;
    Broker *broker = broker_at(world, publish->target);
    if (broker->partition_count > 0) {
        append_to_log(world, broker, publish, queue_of(world, publish));
        return;
    }
    uint32_t exchange = exchange_of(world, publish);
    if (exchange == 0) {
        uint32_t queued = take_in(world, broker, publish, queue_of(world, publish), 0);
        confirm(world, publish);
        if (queued != SLOT_NONE)
            make_ready(world, broker, queued);
        return;
    }
    /* a fanout exchange: a copy in each of its queues, the publish confirmed once they are
     * all in, and only then handed out */
    uint32_t mask = broker->spec->exchanges[exchange - 1].queue_mask;
    uint32_t queued[QUEUES_MAX];
    uint32_t count = 0, copies = 0;
    for (uint32_t q = 0; q < broker->queue_count; q++) {
        if (!(mask & (1u << q)))
            continue;
        queued[count] = take_in(world, broker, publish, q, copies);
        copies += queued[count++] != SLOT_NONE;
    }
    confirm(world, publish);
    for (uint32_t k = 0; k < count; k++) {
        if (queued[k] != SLOT_NONE)
            make_ready(world, broker, queued[k]);
    }
}

/* The receipt's message id is derived from the operation, not from the execution: the
 * consumers' key store (or the dedup window) can then recognise a second receipt. */
/* The receipt event of request's charge, with its message id (one per operation, so every
 * copy of it is recognisable). */
static Message receipt_event(World *world, const Message *request)
{
    Message event = *request;
    event.kind = MESSAGE_REQUEST;
    event.hop = HOP_REQUEST;
    event.source = request->target; /* the instance that charged */
    event.target = world->broker_nodes[world->scenario.server.receipts_broker];
    event.receipt = true;
    event.key = world_draw(world, DRAW_RECEIPT_ID, request->operation, 0, 0) | 1;
    event.business_key = event.key;
    event.lineage = lineage_of_repeat(request->lineage, request->attempt);
    event.reply_to = (ReplyTo){0};
    event.session = 0; /* the server's producer never restarts */
    return event;
}

void broker_publish_receipt(World *world, const Message *request)
{
    Message event = receipt_event(world, request);
    network_send(world, &event);
}

void broker_publish_receipt_relayed(World *world, const Message *request, ReplyTo reply_to,
                                    uint32_t relay)
{
    Message event = receipt_event(world, request);
    event.reply_to = reply_to;
    /* each relay a message of its own; the message id stays */
    event.lineage = lineage_of_repeat(event.lineage, 32 + relay);
    network_send(world, &event);
}

/* An order API's order: the client's request itself, from the server's instance it reached
 * to the broker. Its message id is derived from the key it came with, so every retry of it
 * carries the same id (the consumers' store, or the broker's dedup window, can tell it);
 * without a key it is drawn for this copy of the request: every copy a new message. */
static Message order_event(World *world, const Message *request, uint64_t store_key)
{
    Message event = *request;
    event.kind = MESSAGE_REQUEST;
    event.hop = HOP_REQUEST;
    event.source = request->target;
    event.target = world->broker_nodes[world->scenario.server.receipts_broker];
    event.receipt = false;
    event.key = store_key != 0 ? rng_mix64(store_key ^ 0x6f726465722d6964ull) | 1 /* "order-id" */
                               : world_draw_about(world, DRAW_ORDER_ID, request) | 1;
    event.lineage = lineage_of_repeat(request->lineage, 0);
    event.reply_to = (ReplyTo){0};
    event.session = 0; /* the server's producer never restarts */
    return event;
}

void broker_publish_order(World *world, const Message *request, uint64_t store_key)
{
    Message event = order_event(world, request, store_key);
    network_send(world, &event);
}

void broker_publish_order_relayed(World *world, const Message *request, uint64_t store_key,
                                  ReplyTo reply_to, uint32_t relay)
{
    Message event = order_event(world, request, store_key);
    event.reply_to = reply_to;
    event.lineage = lineage_of_repeat(event.lineage, 32 + relay); /* the message id stays */
    network_send(world, &event);
}

/* ------------------------------------------------------------------ acknowledgements */

static void leave_flight(Broker *broker, QueuedMessage *queued)
{
    queued->timer = EVENT_ID_NONE;
    broker->queues[queued->queue].in_flight--;
    if (queued->consumer != CONSUMER_GONE)
        broker->queues[queued->queue].in_flight_at[queued->consumer]--;
    broker->in_flight_total--;
}

static void settle_in_flight(World *world, Broker *broker, QueuedMessage *queued)
{
    sim_cancel(world->sim, queued->timer);
    leave_flight(broker, queued);
}

void broker_on_ack(World *world, const Message *ack)
{
    Broker *broker = broker_at(world, ack->target);
    SIM_ASSERT(ack->reply_to.kind == REPLY_TO_DELIVERY &&
                   ack->reply_to.slot < broker->message_slots.capacity,
               "an ack names a delivery of a queued message");
    if (broker->partition_count > 0) {
        broker_log_on_processed(world, broker, ack); /* no per-message ack: a consumer's progress */
        return;
    }
    QueuedMessage *queued = &broker->messages[ack->reply_to.slot];
    uint64_t delivery = ack->reply_to.serial;
    bool current = queued->state == QUEUED_IN_FLIGHT && queued->deliveries == delivery;
    bool duplicate = queued->state == QUEUED_ACKED && queued->deliveries == delivery;
    if (duplicate)
        return; /* a network copy of an ack already counted */
    if (!current) {
        world->metrics.late_acks++; /* its delivery timed out before it arrived */
        broker_queue_counts(world, broker, queued->queue)->late_acks++;
        bool accept = broker->queues[queued->queue].spec->late_ack == LATE_ACK_ACCEPT;
        if (world_tracing(world))
            trace_queue(world, broker, accept ? TRACE_LATE_ACK_ACCEPTED : TRACE_LATE_ACK_IGNORED,
                        ack, (int64_t)delivery, queued->queue);
        if (!accept || queued->state == QUEUED_ACKED || queued->state == QUEUED_DEAD)
            return;
        if (queued->state == QUEUED_IN_FLIGHT) {
            settle_in_flight(world, broker, queued);
        } else if (queued->state == QUEUED_WAITING) {
            sim_cancel(world->sim, queued->timer); /* the slot may be reused before it fires */
            queued->timer = EVENT_ID_NONE;
        }
        finish_queued(world, queued, QUEUED_ACKED); /* a ready entry is skipped when popped */
        dispatch_ready(world, broker, queued->queue);
        return;
    }
    settle_in_flight(world, broker, queued);
    finish_queued(world, queued, QUEUED_ACKED);
    dispatch_ready(world, broker, queued->queue);
}

static void requeue_unacked(World *world, Broker *broker, uint32_t queued_index, bool timed_out);

/* The consumer's handler failed and it said so (C36): RabbitMQ's basic.nack with requeue,
 * JetStream's Nak, SQS's visibility set to 0. The delivery goes back now, counted against
 * max_deliveries, with the queue's redelivery delay; a nack for a delivery that timed out
 * (or was settled) meanwhile changes nothing. */
void broker_on_nack(World *world, const Message *nack)
{
    Broker *broker = broker_at(world, nack->target);
    SIM_ASSERT(nack->reply_to.kind == REPLY_TO_DELIVERY &&
                   nack->reply_to.slot < broker->message_slots.capacity,
               "a nack names a delivery of a queued message");
    QueuedMessage *queued = &broker->messages[nack->reply_to.slot];
    if (queued->state != QUEUED_IN_FLIGHT || queued->deliveries != nack->reply_to.serial)
        return;
    if (world_tracing(world))
        trace_queue(world, broker, TRACE_NACKED, &queued->publish, queued->deliveries,
                    queued->queue);
    requeue_unacked(world, broker, nack->reply_to.slot, false);
}

void broker_on_progress(World *world, const Message *progress)
{
    Broker *broker = broker_at(world, progress->target);
    SIM_ASSERT(progress->reply_to.kind == REPLY_TO_DELIVERY &&
                   progress->reply_to.slot < broker->message_slots.capacity,
               "a heartbeat names a delivery of a queued message");
    QueuedMessage *queued = &broker->messages[progress->reply_to.slot];
    if (queued->state != QUEUED_IN_FLIGHT || queued->deliveries != progress->reply_to.serial)
        return; /* too late: that delivery timed out (or was settled) before it came */
    /* the timeout starts again from now, as SQS's ChangeMessageVisibility sets a new
     * visibility timeout and JetStream's AckProgress restarts AckWait */
    sim_cancel(world->sim, queued->timer);
    double wait_ms = broker->queues[queued->queue].spec->ack_timeout_ms;
    queued->timer = schedule_ack_timeout(world, broker, progress->reply_to.slot, wait_ms);
    world->metrics.heartbeats++;
}

/* A consumer instance's channel closes: everything delivered to it and not acknowledged goes
 * back to its queue, with its delivery count (RabbitMQ's redelivered flag). The other
 * instances' channels stay open. */
static void close_channel(World *world, Broker *broker, uint32_t consumer, const Message *cause)
{
    /* the deliveries the channel held, listed before any is requeued: a requeue hands what
     * is ready out again at once, and a message handed out on another channel (or, after a
     * consumer timeout, on this instance's next one) is not this closure's */
    uint32_t *held = sim_xcalloc(broker->in_flight_total + 1, sizeof *held);
    uint64_t requeued = 0;
    for (uint32_t i = 0; i < broker->message_slots.capacity; i++) {
        if (broker->messages[i].state == QUEUED_IN_FLIGHT &&
            broker->messages[i].consumer == consumer)
            held[requeued++] = i;
    }
    world->consumers[consumer].channel++; /* what is still on its way on it is never taken */
    for (uint64_t h = 0; h < requeued; h++)
        requeue_unacked(world, broker, held[h], false);
    free(held);
    world->metrics.channel_closures++;
    if (world_tracing(world) && cause != NULL)
        trace_queue(world, broker, TRACE_CHANNEL_CLOSED, cause, (int64_t)requeued, 0);
}

/* Whether the consumer instance holds a delivery unacknowledged, in any queue. */
static bool consumer_holds_deliveries(const Broker *broker, uint32_t consumer)
{
    for (uint32_t q = 0; q < broker->queue_count; q++) {
        if (broker->queues[q].in_flight_at[consumer] > 0)
            return true;
    }
    return false;
}

/* A visibility-timeout queue keeps what the crashed process had received invisible until its
 * ack timeout: the process that restarts is a new poller, with room for all its workers
 * (its predecessor's messages are no longer anyone's). */
static void forget_receiver(Broker *broker, uint32_t consumer)
{
    for (uint32_t i = 0; i < broker->message_slots.capacity; i++) {
        QueuedMessage *queued = &broker->messages[i];
        if (queued->state == QUEUED_IN_FLIGHT && queued->consumer == consumer) {
            broker->queues[queued->queue].in_flight_at[consumer]--;
            queued->consumer = CONSUMER_GONE;
        }
    }
}

void broker_on_consumers_crash(World *world, uint32_t instance)
{
    Broker *broker = consumers_broker(world, &world->consumers[instance]);
    if (broker->partition_count > 0)
        broker_log_on_consumers_crash(world, broker, instance);
    else if (broker->spec->family == BROKER_CHANNEL && consumer_holds_deliveries(broker, instance))
        close_channel(world, broker, instance, NULL);
    else if (broker->spec->family == BROKER_VISIBILITY_TIMEOUT &&
             consumer_holds_deliveries(broker, instance))
        forget_receiver(broker, instance);
}

void broker_on_consumers_restart(World *world, uint32_t instance)
{
    Broker *broker = consumers_broker(world, &world->consumers[instance]);
    if (broker->partition_count > 0) {
        broker_log_on_consumers_restart(world, broker, instance);
        return;
    }
    for (uint32_t q = 0; q < broker->queue_count; q++)
        dispatch_ready(world, broker, q);
}

void broker_on_ack_timeout(World *world, Broker *broker, uint32_t queued_index, uint32_t delivery)
{
    QueuedMessage *queued = &broker->messages[queued_index];
    if (queued->state != QUEUED_IN_FLIGHT || queued->deliveries != delivery)
        return;
    queued->timer = EVENT_ID_NONE; /* it fired */
    if (broker->spec->family == BROKER_CHANNEL) {
        Message cause = queued->publish;
        close_channel(world, broker, queued->consumer, &cause);
        return;
    }
    requeue_unacked(world, broker, queued_index, true);
}

/* The dead-letter queue's consumer (C36) puts the message up for manual review: someone
 * looks the payment up and refunds or completes it by hand. Whether it took effect is what
 * that person finds in the ledger; the simulator counts it from the ground truth. The
 * review happens as the message is dead-lettered, with no queue or delay of its own.
 * A group whose step emails (group->sends_email) lost a confirmation, not a payment: its
 * reviewer looks in the mail log, not the ledger, so its dead letter is never counted as
 * already charged (another group's charge is not its to refund), and the trace's value is
 * the emails sent for the operation. One that charged but emailed none is counted again at
 * settlement, in receipts_missing. */
void broker_review_dead_letter(World *world, const Broker *broker, const ConsumerSpec *group,
                               const QueuedMessage *queued)
{
    const Operation *op = world_operation(world, queued->publish.operation);
    uint32_t effects = op->effects > op->refunds ? op->effects - op->refunds : 0;
    world->metrics.dead_letters_reviewed++;
    if (!group->sends_email)
        world->metrics.dead_letters_charged += effects > 0;
    if (world_tracing(world))
        world_trace_queue_detail(world, broker->node, TRACE_DEAD_LETTER_REVIEWED, &queued->publish,
                                 group->sends_email ? op->receipts : effects,
                                 group->sends_email ? REVIEWED_EMAIL : REVIEWED_CHARGE,
                                 queued_trace_name(broker, queued));
}

/* An unacknowledged delivery comes back: dead-lettered past max_deliveries, else ready
 * again (after the redelivery delay). */
static void requeue_unacked(World *world, Broker *broker, uint32_t queued_index, bool timed_out)
{
    QueuedMessage *queued = &broker->messages[queued_index];
    sim_cancel(world->sim, queued->timer);
    leave_flight(broker, queued);
    const QueueSpec *spec = broker->queues[queued->queue].spec;
    if (spec->max_deliveries > 0 &&
        queued->deliveries - queued->redrive_base >= spec->max_deliveries) {
        bool redrive = spec->dead_letter && spec->redrive_after_ms > 0 && queued->redrives == 0;
        if (redrive) { /* parked with the dead letters, still holding its operation */
            queued->state = QUEUED_WAITING;
            queued->redriving = true;
            queued->timer = sim_schedule_in(world->sim, sim_time_us_from_ms(spec->redrive_after_ms),
                                            EVENT_REDELIVER, broker->node, queued_index);
        }
        if (spec->dead_letter) {
            world->metrics.dead_lettered++;
            broker_queue_counts(world, broker, queued->queue)->dead_lettered++;
        }
        if (world_tracing(world))
            trace_queue(world, broker, spec->dead_letter ? TRACE_DEAD_LETTER : TRACE_DISCARD,
                        &queued->publish, queued->deliveries, queued->queue);
        if (!redrive) {
            const ConsumerSpec *group = scenario_group_of_queue(
                &world->scenario, broker_index(world, broker), queued->queue);
            if (spec->dead_letter && group->dead_letters == DEAD_LETTERS_REVIEW)
                broker_review_dead_letter(world, broker, group,
                                          queued); /* before the broker lets go of it */
            finish_queued(world, queued, QUEUED_DEAD);
        }
        dispatch_ready(world, broker, queued->queue);
        return;
    }
    if (timed_out && world_tracing(world))
        trace_queue(world, broker, TRACE_ACK_TIMEOUT, &queued->publish, queued->deliveries,
                    queued->queue);
    if (spec->redelivery_delay_ms > 0) {
        queued->state = QUEUED_WAITING;
        queued->timer = sim_schedule_in(world->sim, sim_time_us_from_ms(spec->redelivery_delay_ms),
                                        EVENT_REDELIVER, broker->node, queued_index);
        dispatch_ready(world, broker, queued->queue);
        return;
    }
    make_ready(world, broker, queued_index);
}

void broker_on_redeliver(World *world, Broker *broker, uint32_t queued_index)
{
    QueuedMessage *queued = &broker->messages[queued_index];
    queued->timer = EVENT_ID_NONE;
    if (queued->state != QUEUED_WAITING)
        return;
    if (queued->retry_topic > 0) {
        broker_log_on_retry_due(world, broker, queued_index);
        return;
    }
    if (queued->redriving) { /* an operator moves the dead letters back: a fresh start */
        queued->redriving = false;
        queued->redrives++;
        world->metrics.redriven++;
        if (world_tracing(world))
            trace_queue(world, broker, TRACE_REDRIVE, &queued->publish, queued->deliveries,
                        queued->queue);
        queued->redrive_base = queued->deliveries; /* delivery numbers go on: acks stay apart */
    }
    make_ready(world, broker, queued_index);
}

/* ------------------------------------------------------------------ its node kind's model */

/* The broker's one timer: a crashed log consumer's session ends (arg: the instance). */
static void broker_on_timer(World *world, uint32_t node, uint64_t arg)
{
    broker_log_on_session_end(world, broker_at(world, node), (uint32_t)arg);
}

const NodeKindModel node_model_broker = {
    .init = broker_init,
    .release = broker_release,
    .on_message =
        {
            [MESSAGE_REQUEST] = broker_on_publish,
            [MESSAGE_ACK] = broker_on_ack,
            [MESSAGE_PROGRESS] = broker_on_progress,
            [MESSAGE_NACK] = broker_on_nack,
        },
    .on_timer = broker_on_timer,
};
