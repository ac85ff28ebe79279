/* The log family of brokers (Kafka): each client's records are appended to one partition
 * (client % partitions), and each consumer group reads every partition in order, one record
 * at a time, in a copy of the log of its own (LogGroup: its own offsets, owners, sessions,
 * rebalances and retry topics; what follows is each group's). There is no per-message
 * acknowledgement and no redelivery timer: a slow record is never handed out again. What the group
 * keeps is one committed offset per partition, committed as each record goes out, before it is
 * processed (commit before, and always in the at-most-once mode), or after it is processed, at once
 * or every commit_interval_ms. A rebalance (rebalance_every_ms) or a consumer crash moves every
 * partition back to its committed offset: what was processed after the last commit is processed
 * again (commit after: a replay, the duplicates), what was committed and never processed is skipped
 * for good (commit before, on a crash: the losses).
 *
 * The rebalance is the one where the owners lose their partitions without committing (a
 * consumer killed by a deploy, or expelled after session.timeout.ms): a record being
 * processed finishes, its report is refused (CommitFailedException), and the new owner
 * starts from the committed offset only then, so one partition is never processed twice at
 * once. A record fetched and not yet started is dropped. Fetches and commits ride requests
 * that the Kafka client retries, so the loader refuses loss on the broker<->consumers links.
 *
 * transactional (C37, Kafka's exactly-once): a record's output (the consumers' effect) and
 * the partition's offset past it commit in one producer transaction. A commit commits the
 * outputs below the offset; a rebalance or a crash aborts the outputs written since the
 * last commit (a new owner's initTransactions bumps the transactional id's epoch and the
 * coordinator aborts the old one's open transaction), and so does the report of an owner a
 * rebalance replaced (a zombie: its transaction can no longer commit). Under read_committed
 * an aborted output is never read: its effect is undone.
 *
 * retryable_topic (Spring Kafka's non-blocking retries, @RetryableTopic): a record whose run
 * failed is forwarded to a retry topic and reported done, so its offset commits on the main
 * partition and the partition goes on; after the retry topic's back-off the record comes back
 * to the same group, and a failure there forwards it to the next retry topic, until its
 * `attempts` runs are spent and it goes to the dead-letter topic. A retry topic is a delay
 * here, not a log of its own: its copy of the record waits for its back-off and is then
 * handed to the group at once, whatever else is due (no partitions, offsets or order of its
 * own); the forward reaches it at once, as a commit does. A copy out when the consumers crash
 * is handed out again after their restart (its commit was not made); a rebalance leaves the
 * copies alone. The forward is traced (retry_topic); a copy waiting counts in the broker's
 * backlog (ready_total: the queue depth levels; its own group's, per_queued's load), one out
 * in its in-flight level, as a record of an unconsumed topic does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_assert.h"
#include "world_internal.h"

_Static_assert(PARTITIONS_MAX <= UINT16_MAX, "a record's partition fits QueuedMessage.partition");

static void assign_partitions(World *world, Broker *broker, LogGroup *group);

static LogGroup *group_of_instance(World *world, Broker *broker, uint32_t instance)
{
    return &broker->log_groups[world->consumers[instance].log_group];
}

static LogGroup *group_of_record(Broker *broker, uint32_t queued_index)
{
    return &broker->log_groups[broker->messages[queued_index].log_group];
}

/* When a crashed instance's session ends (0: none pending). */
static SimTimeUs *session_end_of(LogGroup *group, uint32_t instance)
{
    SIM_ASSERT(instance - group->first < group->count, "a session is its group's instance's");
    return &group->session_ends_at[instance - group->first];
}

static bool group_all_down(const World *world, const LogGroup *group)
{
    for (uint32_t i = group->first; i < group->first + group->count; i++) {
        if (!world->consumers[i].down)
            return false;
    }
    return true;
}

/* Each group's partitions: the first consumer group's named "p3" as they always were, any
 * other's "mailers/p3" (a later group of the first broker's log, or a group of a second log),
 * so that the traces of two groups' offsets stay apart. */
static void init_group(World *world, Broker *broker, LogGroup *group)
{
    uint32_t count = broker->spec->partitions;
    group->partitions = calloc(count, sizeof *group->partitions);
    SIM_ASSERT(group->partitions != NULL, "out of memory for the log's partitions");
    uint32_t number = world->consumers[group->first].group; /* among every broker's groups */
    group->name = number == 0 ? NULL : world->scenario.extra_consumers[number - 1].id;
    for (uint32_t p = 0; p < count; p++) {
        char *name = group->partitions[p].name;
        if (group->name == NULL)
            snprintf(name, sizeof group->partitions[p].name, "p%u", p % 100u);
        else
            snprintf(name, sizeof group->partitions[p].name, "%s/p%u", group->name, p % 100u);
    }
    assign_partitions(world, broker, group);
}

void broker_log_init(World *world, Broker *broker)
{
    const BrokerSpec *spec = broker->spec;
    broker->partition_count = spec->partitions;
    /* the groups that read it, numbered from 0 in their order (Consumers.log_group) */
    broker->log_group_count = 0;
    uint32_t last_group = UINT32_MAX;
    for (uint32_t i = 0; i < world->consumer_count; i++) { /* group by group */
        Consumers *consumers = &world->consumers[i];
        if (consumers->broker != broker_index(world, broker))
            continue; /* a group that reads another broker */
        if (consumers->group != last_group) {
            last_group = consumers->group;
            broker->log_group_count++;
        }
        consumers->log_group = broker->log_group_count - 1;
        LogGroup *group = &broker->log_groups[consumers->log_group];
        if (group->count++ == 0) {
            group->first = i;
            group->spec = world->consumers[i].spec;
        }
    }
    for (uint32_t g = 0; g < broker->log_group_count; g++)
        init_group(world, broker, &broker->log_groups[g]);
    broker->commit_before = world->mode == MODE_AT_MOST_ONCE || spec->commit == COMMIT_BEFORE;
    if (spec->idempotent_producer)
        broker->producer_ids = idem_store_create(1024);
    SimTimeUs every_us = sim_time_us_from_ms(spec->rebalance_every_ms);
    if (every_us > 0 && every_us <= world->duration_us)
        sim_schedule_in(world->sim, every_us, EVENT_LOG_REBALANCE, broker->node, 0);
}

void broker_log_release(Broker *broker)
{
    for (uint32_t g = 0; g < broker->log_group_count; g++) {
        LogGroup *group = &broker->log_groups[g];
        for (uint32_t p = 0; group->partitions != NULL && p < broker->partition_count; p++)
            free(group->partitions[p].records);
        free(group->partitions);
        group->partitions = NULL;
    }
    broker->log_group_count = 0;
    idem_store_destroy(broker->producer_ids);
    broker->producer_ids = NULL;
    broker->partition_count = 0;
}

uint64_t broker_log_backlog_of_group(const Broker *broker, uint32_t g)
{
    const LogGroup *group = &broker->log_groups[g];
    uint64_t ready = 0;
    for (uint32_t p = 0; p < broker->partition_count; p++) {
        const LogPartition *part = &group->partitions[p];
        ready += part->base + part->length - part->position;
    }
    /* a retry topic's copy is a record of a topic the group has not consumed yet, in the
     * backlog while it waits */
    return ready + group->retry_waiting;
}

static void note_levels(World *world, Broker *broker)
{
    uint64_t ready = 0, out = 0;
    for (uint32_t g = 0; g < broker->log_group_count; g++) {
        const LogGroup *group = &broker->log_groups[g];
        ready += broker_log_backlog_of_group(broker, g);
        for (uint32_t p = 0; p < broker->partition_count; p++)
            out += group->partitions[p].busy;
        out += group->retry_out; /* a retry topic's copy out while it runs */
    }
    broker->ready_total = ready;
    broker->in_flight_total = out;
    broker_note_levels(world, broker);
}

/* ------------------------------------------------------------------ committing */

/* Records below the new committed offset are settled: the broker lets go of them (and of
 * their operations), whether they were processed or not. */
static void commit(World *world, Broker *broker, LogGroup *group, uint32_t p, uint64_t offset)
{
    LogPartition *part = &group->partitions[p];
    if (offset <= part->committed)
        return;
    SIM_ASSERT(offset <= part->base + part->length, "a commit stays within the log");
    for (uint64_t o = part->committed; o < offset; o++) {
        broker->messages[part->records[o - part->base]].output_open = false; /* committed */
        broker_finish_queued(world, broker, part->records[o - part->base]);
    }
    part->committed = offset;
    world->metrics.offset_commits++;
    world_trace_queue(world, broker->node, TRACE_OFFSET_COMMIT, NULL, (int64_t)offset, part->name);
    /* drop the settled entries once they are half the array: constant cost per record */
    uint64_t settled = part->committed - part->base;
    if (settled > 0 && settled * 2 >= part->length) {
        part->length -= (uint32_t)settled;
        memmove(part->records, part->records + settled, part->length * sizeof *part->records);
        part->base = part->committed;
    }
}

/* Commit after: what the owner reported processed is committed at once, or, with
 * commit_interval_ms (auto-commit), on a grid (k x interval), and only while a commit would
 * move something: a finished world has no tick left. */
static void want_commit(World *world, Broker *broker, LogGroup *group, uint32_t p)
{
    double interval_ms = broker->spec->commit_interval_ms;
    if (interval_ms <= 0) {
        commit(world, broker, group, p, group->partitions[p].processed);
        return;
    }
    if (broker->commit_tick_pending)
        return;
    SimTimeUs interval_us = sim_time_us_from_ms(interval_ms);
    SimTimeUs now = sim_now(world->sim);
    broker->commit_tick_pending = true;
    sim_schedule_at(world->sim, (now / interval_us + 1) * interval_us, EVENT_LOG_COMMIT,
                    broker->node, 0);
}

/* Each live owner's auto-commit, in every group (the ticks of every group's members fall on
 * one grid): a crashed instance commits nothing, though its session has not ended yet (its
 * processed offsets go back with its partitions at the rebalance). */
void broker_log_on_commit_tick(World *world, Broker *broker)
{
    broker->commit_tick_pending = false;
    for (uint32_t g = 0; g < broker->log_group_count; g++) {
        LogGroup *group = &broker->log_groups[g];
        for (uint32_t p = 0; p < broker->partition_count; p++) {
            uint32_t owner = group->partitions[p].owner;
            if (!world->consumers[owner].down && *session_end_of(group, owner) == 0)
                commit(world, broker, group, p, group->partitions[p].processed);
        }
    }
}

/* ------------------------------------------------------------------ the producer */

/* Kafka's idempotent producer gives each record a sequence number per producer id, and the
 * broker drops a batch it has already appended (KIP-98, "Idempotent Producer Guarantees"): that
 * catches the producer library's own retries of one send() whose acknowledgement was lost,
 * and nothing else. An application that calls send() again, after its own timeout or a
 * failed future, makes a new record with a new sequence number, whatever its message id
 * says. So the identity of a send here is (producer, session, message id, click, attempt,
 * the copy's parent): a network duplicate of one publish (lineage 2n+1 beside 2n, the
 * stand-in for the library's internal resend) is dropped; the client's next attempt, and
 * an outbox relay's next relay (its own lineage), are appended. A restarted app is a new
 * producer. Receipts (the server's publishes) come from one producer that never restarts.
 * Rejected: keying by message id alone, which made every application re-publish vanish
 * and taught that Kafka deduplicates what it does not (issue 23). */
bool broker_log_producer_repeat(World *world, Broker *broker, const Message *publish)
{
    IdemStore *seen = broker->producer_ids;
    if (seen == NULL)
        return false;
    uint64_t producer = publish->receipt ? 0 : (uint64_t)publish->client + 1;
    uint64_t send = ((uint64_t)publish->click << 32) ^ publish->attempt;
    uint64_t id = rng_mix64(publish->key ^ rng_mix64((producer << 32) ^ publish->session) ^
                            rng_mix64(send ^ rng_mix64(publish->lineage >> 1))) |
                  1;
    SimTimeUs now = sim_now(world->sim);
    if (idem_store_lookup(seen, id, now) != NULL)
        return true;
    KeyRow row = {
        .key = id, .status = KEY_STATUS_COMPLETED, .created_us = now, .expires_us = SIM_TIME_NEVER};
    idem_store_put(seen, &row);
    return false;
}

/* ------------------------------------------------------------------ transactions (C37) */

/* The output an abort can take back: one written to the log in the transaction (a debit
 * record, a status, a row). An email the handler sends leaves the building at once: no
 * abort unsends it, which is where exactly-once ends. At-most-once commits before
 * processing, outside any transaction. */
static bool output_in_transaction(const World *world, const Broker *broker, const Message *delivery)
{
    if (!broker->spec->transactional || broker->commit_before)
        return false;
    const ClientGroupSpec *spec = world->groups[world->clients[delivery->client].group].spec;
    return spec->operation.kind != OPERATION_SEND_EMAIL;
}

void broker_log_on_output(World *world, Broker *broker, const Message *delivery)
{
    if (!output_in_transaction(world, broker, delivery))
        return;
    QueuedMessage *queued = &broker->messages[delivery->reply_to.slot];
    queued->output_open = true;
    queued->output_delivery = delivery->reply_to.serial;
}

static void abort_output(World *world, Broker *broker, uint32_t queued_index, bool zombie)
{
    QueuedMessage *queued = &broker->messages[queued_index];
    if (!queued->output_open)
        return;
    queued->output_open = false;
    bool unread = broker->spec->isolation == ISOLATION_READ_COMMITTED;
    world->metrics.transactions_aborted++;
    world->metrics.zombies_fenced += zombie;
    world_trace_queue(world, broker->node, TRACE_TXN_ABORTED, &queued->publish, unread,
                      group_of_record(broker, queued_index)->partitions[queued->partition].name);
    if (unread)
        consumers_abort_output(world, &queued->publish, queued->consumer);
}

/* ------------------------------------------------------------------ handing out */

/* A partition is handed out to its owner only: nothing while the owner is down (a partition
 * of a crashed instance has a new owner once its rebalance is over, or waits for it when no
 * instance is up). */
static void dispatch(World *world, Broker *broker, LogGroup *group, uint32_t p)
{
    LogPartition *part = &group->partitions[p];
    if (part->busy || world->consumers[part->owner].down || group->rebalance_waits ||
        part->position >= part->base + part->length)
        return;
    uint32_t queued_index = part->records[part->position - part->base];
    Message delivery = broker_next_delivery(world, broker, queued_index);
    delivery.target = world->consumers[part->owner].node;
    broker->messages[queued_index].consumer = (uint8_t)part->owner;
    /* the report names the generation it was handed out in, and which delivery it was */
    delivery.reply_to.serial = ((uint64_t)part->generation << 32) | delivery.reply_to.serial;
    part->busy = true;
    part->out_generation = part->generation;
    part->out_owner = part->owner;
    part->position++;
    network_send(world, &delivery); /* holds its operation before a commit lets go of it */
    if (broker->commit_before)      /* commit, then process: each record as it goes out */
        commit(world, broker, group, p, part->position);
}

static void dispatch_all(World *world, Broker *broker, LogGroup *group)
{
    for (uint32_t p = 0; p < broker->partition_count; p++)
        dispatch(world, broker, group, p);
    note_levels(world, broker);
}

/* The record goes to the same partition in every group's copy of the log: the record key is
 * the client. */
void broker_log_append(World *world, Broker *broker, const uint32_t *copies)
{
    uint32_t client =
        world_client_of_operation(world, broker->messages[copies[0]].publish.operation);
    uint32_t p = client % broker->partition_count;
    for (uint32_t g = 0; g < broker->log_group_count; g++) {
        LogGroup *group = &broker->log_groups[g];
        LogPartition *part = &group->partitions[p];
        if (part->length == part->capacity) {
            uint32_t capacity = part->capacity ? 2 * part->capacity : 64;
            uint32_t *records = realloc(part->records, capacity * sizeof *records);
            SIM_ASSERT(records != NULL, "out of memory for a partition");
            part->records = records;
            part->capacity = capacity;
        }
        QueuedMessage *queued = &broker->messages[copies[g]];
        SIM_ASSERT(queued->log_group == g, "each group's copy is its own");
        queued->partition = (uint16_t)p; /* p < PARTITIONS_MAX */
        queued->offset = part->base + part->length;
        queued->state = QUEUED_READY;
        part->records[part->length++] = copies[g];
        dispatch(world, broker, group, p);
    }
    note_levels(world, broker);
}

/* ------------------------------------------------------------------ reports and rebalances */

static LogPartition *partition_of(const Broker *broker, const Message *message)
{
    SIM_ASSERT(message->reply_to.kind == REPLY_TO_DELIVERY &&
                   message->reply_to.slot < broker->message_slots.capacity,
               "a log report names a record");
    const QueuedMessage *queued = &broker->messages[message->reply_to.slot];
    return &broker->log_groups[queued->log_group].partitions[queued->partition];
}

/* A copy in a retry topic, named by a delivery or a report. */
static const QueuedMessage *retry_copy_of(const Broker *broker, const Message *message)
{
    const QueuedMessage *queued = &broker->messages[message->reply_to.slot];
    return queued->retry_topic > 0 ? queued : NULL;
}

bool broker_log_delivery_current(const Broker *broker, const Message *delivery)
{
    const QueuedMessage *copy = retry_copy_of(broker, delivery);
    if (copy != NULL)
        return copy->state == QUEUED_IN_FLIGHT && copy->deliveries == delivery->reply_to.serial;
    return (uint32_t)(delivery->reply_to.serial >> 32) ==
           partition_of(broker, delivery)->generation;
}

/* The consumer is done with a record (processed it, or dropped it as revoked): the next
 * one can go; the position it reached counts only if no rebalance came in between. With
 * commit after, an owner a rebalance replaced has its commit refused, and its transaction
 * with it (a zombie fenced). With commit before (at-most-once) the record's offset was
 * committed as it went out, outside any transaction: the old owner's report carries no
 * commit to refuse and no transaction to fence, so nothing is told. */
void broker_log_on_processed(World *world, Broker *broker, const Message *report)
{
    const QueuedMessage *copy = retry_copy_of(broker, report);
    LogGroup *group = group_of_record(broker, report->reply_to.slot);
    if (copy != NULL) { /* a retry topic's record: done with, whatever its run did */
        if (copy->state == QUEUED_IN_FLIGHT && copy->deliveries == report->reply_to.serial) {
            broker_finish_queued(world, broker, report->reply_to.slot);
            SIM_ASSERT(group->retry_out > 0, "a retry copy done was out");
            group->retry_out--;
            note_levels(world, broker);
        }
        return;
    }
    LogPartition *part = partition_of(broker, report);
    uint32_t p = (uint32_t)(part - group->partitions);
    uint32_t generation = (uint32_t)(report->reply_to.serial >> 32);
    uint64_t offset = broker->messages[report->reply_to.slot].offset;
    if (part->busy && generation == part->out_generation)
        part->busy = false;
    if (generation == part->generation) {
        if (offset + 1 > part->processed)
            part->processed = offset + 1;
        if (!broker->commit_before && part->commit_on_report)
            commit(world, broker, group, p,
                   part->processed); /* the rebalance's commit, as it reports */
        else if (!broker->commit_before)
            want_commit(world, broker, group, p);
        part->commit_on_report = false;
    } else if (!broker->commit_before) {
        world_trace_queue(world, broker->node, TRACE_COMMIT_REFUSED, report, (int64_t)offset + 1,
                          part->name);
        /* a zombie's transaction: its own, not the one a replay of the record opened since */
        if (broker->messages[report->reply_to.slot].output_delivery == report->reply_to.serial)
            abort_output(world, broker, report->reply_to.slot, true);
    }
    dispatch(world, broker, group, p);
    note_levels(world, broker);
}

#define EVERY_INSTANCE UINT32_MAX

/* Partitions go back to their committed offset: the crashed instance's (crashed: its index),
 * or every one (EVERY_INSTANCE: a rebalance in which every owner loses its partitions without
 * committing, rebalance_every_ms; a dead member's whose session is pending excepted, which
 * go back at the session's end); returns the records that will be handed out again. A
 * record out at the crashed instance died with it, and its partition goes back too, though a
 * rebalance gave it to another owner while the record ran; one out at an owner that lost its
 * partition without committing finishes, and its report is refused. One out at a survivor
 * that commits it as it reports (commit_on_report) stays: its new owner's crash takes nothing
 * back. */
static uint64_t rewind_partitions(World *world, Broker *broker, LogGroup *group, uint32_t crashed)
{
    uint64_t replays = 0;
    for (uint32_t p = 0; p < broker->partition_count; p++) {
        LogPartition *part = &group->partitions[p];
        bool died = part->busy && part->out_owner == crashed; /* a record out died with it */
        if (died)
            part->busy = false;
        if (crashed != EVERY_INSTANCE && part->owner != crashed && !died)
            continue; /* a survivor's, committed (commit_before_rebalance) */
        /* a dead member's, its session pending: its own until the session ends, whose
         * rebalance takes it back (broker_log_on_session_end) */
        if (crashed == EVERY_INSTANCE && *session_end_of(group, part->owner) != 0)
            continue;
        /* dealt to the crashed instance while its record ran at a survivor, which commits it
         * as it reports (the join's commit): the crashed owner was handed nothing of it */
        if (crashed != EVERY_INSTANCE && part->commit_on_report && !died)
            continue;
        replays += part->position - part->committed;
        for (uint64_t o = part->committed; o < part->position; o++)
            abort_output(world, broker, part->records[o - part->base], false);
        part->generation++;
        part->commit_on_report = false;
        part->position = part->committed;
        part->processed = part->committed;
    }
    return replays;
}

/* A rebalance is counted and traced when it deals the partitions: at once, or, one that
 * waits for a pending session, when the last session ends. Kafka's coordinator completes one
 * generation then, whatever joined the rebalance meanwhile (a periodic one, a member's join,
 * another dead member's removal); counting each start as well counted one generation twice.
 * replays: the records it hands out again. */
static void count_rebalance(World *world, const Broker *broker, const LogGroup *group,
                            uint64_t replays)
{
    world->metrics.rebalances++;
    world_trace_queue(world, broker->node, TRACE_REBALANCE, NULL, (int64_t)replays, group->name);
}

/* The records a rebalance that waited hands out again as it completes. Each rewind since the
 * wait began put partitions back to their committed offset, and nothing was handed out
 * meanwhile: they are the records from each partition's position on that went out before
 * (the records past them never did). */
static uint64_t records_handed_out_again(const Broker *broker, const LogGroup *group)
{
    uint64_t replays = 0;
    for (uint32_t p = 0; p < broker->partition_count; p++) {
        const LogPartition *part = &group->partitions[p];
        for (uint64_t o = part->position; o < part->base + part->length; o++) {
            if (broker->messages[part->records[o - part->base]].deliveries == 0)
                break;
            replays++;
        }
    }
    return replays;
}

/* The instances that live through a rebalance commit what they processed before they give
 * their partitions up, as Kafka's consumer does when the group rebalances with auto-commit on
 * (Apache Kafka, ConsumerCoordinator.onJoinPrepare: "commit offsets prior to rebalance if
 * auto-commit enabled"); a record one of them is processing finishes first, in its poll loop,
 * and is committed as it reports, whatever the auto-commit interval (the join's commit is
 * made then). Every partition but the crashed instance's (crashed: its index;
 * EVERY_INSTANCE for none) is so committed up to what its owner processed. */
static void commit_before_rebalance(World *world, Broker *broker, LogGroup *group, uint32_t crashed)
{
    for (uint32_t p = 0; p < broker->partition_count; p++) {
        LogPartition *part = &group->partitions[p];
        if (part->owner == crashed || *session_end_of(group, part->owner) != 0)
            continue;
        commit(world, broker, group, p, part->processed);
        /* a stale record out (a rebalance since took its partition back) reports nothing to
         * commit: the mark would commit the next record's report at once; a mark an earlier
         * rebalance made stays, the record out still at the member that owes the commit */
        part->commit_on_report =
            part->commit_on_report || (part->busy && part->out_owner == part->owner &&
                                       part->out_generation == part->generation);
    }
}

/* The group's assignment: the partitions dealt in turn to the instances that are up (Kafka's
 * round-robin assignor), partition p to the (p mod n)-th of the n; with none up, each keeps
 * its owner, which takes it back at its restart. */
static void assign_partitions(World *world, Broker *broker, LogGroup *group)
{
    uint32_t up[CONSUMER_INSTANCES_MAX];
    uint32_t up_count = 0;
    for (uint32_t i = group->first; i < group->first + group->count; i++) {
        if (!world->consumers[i].down)
            up[up_count++] = i;
    }
    for (uint32_t p = 0; p < broker->partition_count && up_count > 0; p++)
        group->partitions[p].owner = up[p % up_count];
}

static bool session_pending(const LogGroup *group)
{
    for (uint32_t i = 0; i < group->count; i++) {
        if (group->session_ends_at[i] != 0)
            return true;
    }
    return false;
}

/* A rebalance that starts while a crashed member's session is pending (a member's join, or
 * the periodic one) waits for the session to end: the coordinator waits for every known
 * member to rejoin (Apache Kafka protocol guide, JoinGroup request, rebalance_timeout_ms:
 * "The maximum time in milliseconds that the coordinator will wait for each member to
 * rejoin when rebalancing the group"), and the dead member, which never rejoins, is one
 * until its session expires (session_timeout_ms: "The coordinator considers the consumer
 * dead if it receives no heartbeat after this timeout in milliseconds"). So no partition
 * moves before then, the dead member's least: nothing is handed out (dispatch and
 * broker_log_on_retry_due hold everything while rebalance_waits is set) until the session's
 * end deals the partitions (broker_log_on_session_end). The join's own timeout, which could
 * end it earlier, is not modelled. Returns whether the rebalance waits. */
static bool rebalance_waits_for_a_session(LogGroup *group)
{
    if (session_pending(group))
        group->rebalance_waits = true;
    return group->rebalance_waits;
}

/* The periodic rebalance, of every group: every owner loses its partitions without
 * committing. One that starts while a crashed member's session is pending waits for its end,
 * handing nothing out meanwhile (rebalance_waits_for_a_session), and is counted then
 * (count_rebalance). */
void broker_log_on_rebalance(World *world, Broker *broker)
{
    for (uint32_t g = 0; g < broker->log_group_count; g++) {
        LogGroup *group = &broker->log_groups[g];
        bool waits = rebalance_waits_for_a_session(group);
        uint64_t replays = rewind_partitions(world, broker, group, EVERY_INSTANCE);
        if (!waits)
            count_rebalance(world, broker, group, replays);
        dispatch_all(world, broker, group); /* nothing while the rebalance waits: levels noted */
    }
    SimTimeUs every_us = sim_time_us_from_ms(broker->spec->rebalance_every_ms);
    if (sim_now(world->sim) + every_us <= world->duration_us)
        sim_schedule_in(world->sim, every_us, EVENT_LOG_REBALANCE, broker->node, 0);
}

/* Every retry topic's record in the given state is handed to the group (or, crashed, made
 * ready again for after the restart). */
static void retry_copies(World *world, Broker *broker, LogGroup *group, QueuedState from,
                         uint32_t crashed);

/* The rebalance that takes a crashed instance out of the group: the instances still up
 * commit what they processed, the crashed instance's partitions go back to their committed
 * offset, and every partition is dealt again among the instances up. With no instance up,
 * nothing is handed out until one is back. waited: a rebalance was waiting for this session's
 * end, which completes it. */
static void rebalance_without(World *world, Broker *broker, LogGroup *group, uint32_t instance,
                              bool waited)
{
    commit_before_rebalance(world, broker, group, instance);
    uint64_t replays = rewind_partitions(world, broker, group, instance);
    /* a rebalance that waits for another dead member's session deals nothing yet: that
     * member's partitions, with what it processed and never committed, stay its own until its
     * session ends, so no survivor's commit saves its progress; it is counted then */
    if (group->rebalance_waits) {
        note_levels(world, broker);
        return;
    }
    count_rebalance(world, broker, group,
                    waited ? records_handed_out_again(broker, group) : replays);
    assign_partitions(world, broker, group);
    if (group->spec->retryable_topic.enabled && !group_all_down(world, group))
        retry_copies(world, broker, group, QUEUED_READY,
                     UINT32_MAX); /* its retry copies go elsewhere */
    dispatch_all(world, broker, group);
}

/* A crashed instance says nothing to the group (no LeaveGroup): the coordinator takes it out
 * once its heartbeats have been missing for session_timeout_ms (Apache Kafka, consumer
 * configs: session.timeout.ms, "If no heartbeats are received by the broker before the
 * expiration of this session timeout, then the broker will remove this consumer from the
 * group and initiate a rebalance"; 45 s by default since Kafka 3.0). Until then its
 * partitions are handed to nobody and the others go on with theirs. With 0 the group
 * rebalances at once. */
void broker_log_on_consumers_crash(World *world, Broker *broker, uint32_t instance)
{
    LogGroup *group = group_of_instance(world, broker, instance);
    if (group->spec->retryable_topic.enabled)
        retry_copies(world, broker, group, QUEUED_IN_FLIGHT, instance);
    SimTimeUs session_us = sim_time_us_from_ms(group->spec->session_timeout_ms);
    if (session_us == 0) {
        rebalance_without(world, broker, group, instance, false);
        return;
    }
    *session_end_of(group, instance) = sim_now(world->sim) + session_us;
    sim_schedule_in(world->sim, session_us, EVENT_NODE_TIMER, broker->node, instance);
    note_levels(world, broker);
}

void broker_log_on_session_end(World *world, Broker *broker, uint32_t instance)
{
    SIM_ASSERT(instance < world->consumer_count, "a session is an instance's");
    LogGroup *group = group_of_instance(world, broker, instance);
    SimTimeUs *session_end = session_end_of(group, instance);
    if (*session_end != sim_now(world->sim))
        return; /* it crashed again since: the later session's end counts */
    *session_end = 0;
    bool waited = group->rebalance_waits;
    group->rebalance_waits = session_pending(group);
    rebalance_without(world, broker, group, instance, waited);
}

/* An instance that joins a group whose other instances hold the partitions makes a
 * rebalance, which deals it its share: the members commit what they processed and hand the
 * partitions over, so nothing is handed out again. Joining a group with no instance up, it
 * takes every partition back where the group left it. */
void broker_log_on_consumers_restart(World *world, Broker *broker, uint32_t instance)
{
    if (broker->partition_count == 0)
        return;
    LogGroup *group = group_of_instance(world, broker, instance);
    if (rebalance_waits_for_a_session(group)) {
        /* a new member's join starts the rebalance, which waits for the dead member's
         * session to end: the members commit and give their partitions up meanwhile (eager
         * rebalancing) */
        commit_before_rebalance(world, broker, group, EVERY_INSTANCE);
        return;
    }
    uint32_t up = 0;
    for (uint32_t i = group->first; i < group->first + group->count; i++)
        up += !world->consumers[i].down;
    if (up > 1) {
        commit_before_rebalance(world, broker, group, EVERY_INSTANCE);
        count_rebalance(world, broker, group, 0);
    }
    assign_partitions(world, broker, group);
    if (group->spec->retryable_topic.enabled)
        retry_copies(world, broker, group, QUEUED_READY, UINT32_MAX);
    dispatch_all(world, broker, group);
}

/* ------------------------------------------------------------------ retry topics */

/* A retry topic's copy goes to the next instance in turn that is up (its own topic's
 * partitions are not modelled). */
static void hand_out_retry(World *world, Broker *broker, LogGroup *group, uint32_t queued_index)
{
    QueuedMessage *copy = &broker->messages[queued_index];
    uint32_t turn = group->next_retry_consumer; /* counted from the group's first instance */
    while (world->consumers[group->first + turn].down)
        turn = (turn + 1) % group->count; /* one is up: the callers check */
    group->next_retry_consumer = (turn + 1) % group->count;
    uint32_t consumer = group->first + turn;
    copy->state = QUEUED_IN_FLIGHT;
    copy->consumer = (uint8_t)consumer;
    SIM_ASSERT(group->retry_waiting > 0, "a retry copy handed out was waiting");
    group->retry_waiting--;
    group->retry_out++;
    Message delivery =
        broker_next_delivery(world, broker, queued_index); /* a redelivery: counted */
    delivery.target = world->consumers[consumer].node;
    network_send(world, &delivery);
}

/* Every retry copy in state from: a waiting one (QUEUED_READY) is handed out; one out
 * (QUEUED_IN_FLIGHT) at the crashed instance waits again. */
static void retry_copies(World *world, Broker *broker, LogGroup *group, QueuedState from,
                         uint32_t crashed)
{
    uint32_t g = (uint32_t)(group - broker->log_groups);
    for (uint32_t i = 0; i < broker->message_slots.capacity; i++) {
        QueuedMessage *queued = &broker->messages[i];
        if (queued->retry_topic == 0 || queued->state != from || queued->log_group != g)
            continue;
        if (from == QUEUED_READY) {
            hand_out_retry(world, broker, group, i);
        } else if (queued->consumer == crashed) { /* out with the crashed instance */
            queued->state = QUEUED_READY;
            SIM_ASSERT(group->retry_out > 0, "a retry copy out counts as out");
            group->retry_out--;
            group->retry_waiting++;
        }
    }
}

/* The dead-letter topic: counted with the dead letters, and reviewed when the group has a
 * dead-letter consumer that reviews (C36). */
static void dead_letter_topic(World *world, const Broker *broker, const QueuedMessage *failed,
                              uint32_t runs)
{
    const LogGroup *group = &broker->log_groups[failed->log_group];
    world->metrics.dead_lettered++;
    broker_queue_counts(world, broker, failed->queue)->dead_lettered++;
    world_trace_queue(world, broker->node, TRACE_DEAD_LETTER, &failed->publish, runs, group->name);
    if (group->spec->dead_letters == DEAD_LETTERS_REVIEW)
        broker_review_dead_letter(world, broker, group->spec, failed);
}

void broker_log_forward_failed(World *world, Broker *broker, const Message *delivery)
{
    SIM_ASSERT(delivery->reply_to.kind == REPLY_TO_DELIVERY &&
                   delivery->reply_to.slot < broker->message_slots.capacity,
               "a failed run names a record");
    LogGroup *group = group_of_record(broker, delivery->reply_to.slot);
    const RetryableTopicSpec *spec = &group->spec->retryable_topic;
    QueuedMessage failed = broker->messages[delivery->reply_to.slot]; /* the pool may grow */
    uint32_t runs = (uint32_t)failed.retry_topic + 1;                 /* the failed run's number */
    if (runs >= spec->attempts) { /* attempts <= 100 (the loader): retry_topic fits a byte */
        dead_letter_topic(world, broker, &failed, runs);
        return;
    }
    /* the forward, as the dead-letter topic's (value: the retry topic's number, which is the
     * runs so far): the record's back-off starts here, its redelivery comes after it */
    world_trace_queue(world, broker->node, TRACE_RETRY_TOPIC, &failed.publish, runs, group->name);
    uint32_t queued =
        slot_pool_take(&broker->message_slots, &broker->messages, sizeof *broker->messages);
    Operation *op = world_operation(world, failed.publish.operation);
    /* its deliveries go on from the failed run's number: the next one is a redelivery */
    broker->messages[queued] = (QueuedMessage){.publish = failed.publish,
                                               .deliveries = runs,
                                               .state = QUEUED_WAITING,
                                               .retry_topic = (uint8_t)runs,
                                               .queue = failed.queue,
                                               .log_group = failed.log_group,
                                               .partition = failed.partition,
                                               .offset = failed.offset};
    broker_link_to_operation(world, broker, op, queued);
    world_operation_ref(world, failed.publish.operation); /* until its last run is done */
    double delay_ms = spec->delay_ms; /* times multiplier^(runs - 1), by products: libm's
                                         pow may round otherwise on another platform */
    for (uint32_t i = 1; i < runs; i++)
        delay_ms *= spec->multiplier;
    broker->messages[queued].timer = sim_schedule_in(world->sim, sim_time_us_from_ms(delay_ms),
                                                     EVENT_REDELIVER, broker->node, queued);
    group->retry_waiting++;
    note_levels(world, broker);
}

void broker_log_on_retry_due(World *world, Broker *broker, uint32_t queued_index)
{
    /* held for the restart, as the partitions are, or for the end of the rebalance a rejoin
     * started while a session is pending (broker_log_on_consumers_restart) */
    LogGroup *group = group_of_record(broker, queued_index);
    if (group_all_down(world, group) || group->rebalance_waits) {
        broker->messages[queued_index].state = QUEUED_READY;
        return;
    }
    hand_out_retry(world, broker, group, queued_index);
    note_levels(world, broker);
}
