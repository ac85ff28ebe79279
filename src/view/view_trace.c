/* The pane's TraceSink. The records of a sampled client's operations go to the diagram model
 * (diagram.h), which pairs each copy's transmit with its deliver and opens and closes the
 * activation boxes; the crashes and restarts of a service go there too, since a crash ends
 * every job it held. Every record also feeds the density band and the narration, whichever
 * client it concerns. Records borrow their strings for the call, so nothing keeps them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_pane.h"

static bool starts_a_job(MessageKind message)
{
    return message == MESSAGE_REQUEST || message == MESSAGE_DELIVERY || message == MESSAGE_CHARGE ||
           message == MESSAGE_REFUND;
}

/* ------------------------------------------------------------------ everyone's density */

static void ingest_density(ViewPane *pane, const TraceRecord *record, TraceEvent event,
                           uint32_t effects)
{
    SimTimeUs bucket = record->t_us / VIEW_DENSITY_BUCKET_US;
    ViewDensity *slot = &pane->density[bucket % VIEW_DENSITY_BUCKETS];
    if (slot->bucket != bucket + 1)
        *slot = (ViewDensity){.bucket = bucket + 1};
    if (event == TRACE_SEND || event == TRACE_RETRY)
        slot->sends++;
    if (event == TRACE_RETRY)
        slot->retries++;
    if (event == TRACE_LOST)
        slot->lost++;
    if (event == TRACE_EXECUTE && effects >= 2)
        slot->doubles++;
}

/* ------------------------------------------------------------------ narration */

/* How notable an event is: a double effect or a key store saving one, then an unknown
 * outcome or a failure, then a fault; routine steps only fill silence. */
static int rank_of(TraceEvent event, uint32_t effects, int64_t value, bool lost_answer)
{
    switch (event) {
    case TRACE_EXECUTE:
        return effects >= 2 ? 3 : 0;
    case TRACE_SEND_RECEIPT:
        return value >= 2 ? 3 : 0;
    case TRACE_REPLAY:
    case TRACE_IN_PROGRESS:
    case TRACE_REJECT_OTHER_BODY:
    case TRACE_DEDUPLICATED:
    case TRACE_FENCED:
    case TRACE_ROLLBACK:
        return 3;
    case TRACE_GIVE_UP:
    case TRACE_FAILED:
    case TRACE_CRASH:
    case TRACE_DEAD_LETTER:
    case TRACE_CHARGED_NO_ANSWER:
    case TRACE_GATEWAY_TIMEOUT:
    case TRACE_PROXY_RETRY:
    case TRACE_CHARGE_RETRY:
    case TRACE_CALL_RETRY:
    case TRACE_REFUND_RETRY:
    case TRACE_REFUND_GAVE_UP:
    case TRACE_FULFIL_FAILED:
    case TRACE_FAIL_AFTER_EFFECT:
    case TRACE_REDELIVER:
    case TRACE_RETRY_TOPIC:
        return 2;
    case TRACE_LOST:
        return lost_answer && effects >= 1 ? 2 : 1;
    case TRACE_SEND:
    case TRACE_SUCCEEDED:
    case TRACE_RESERVE:
    case TRACE_ENQUEUE:
        return 0;
    case TRACE_TRANSMIT:
    case TRACE_DELIVER:
    case TRACE_DUPLICATE:
    case TRACE_SETTLED:
    case TRACE_OFFSET_COMMIT:
    case TRACE_EVENT_COUNT:
        return -1; /* never narrated: too frequent, or said by another record */
    default:
        return 1;
    }
}

/* An outbox relay's record says neither what it relays nor where (its detail is 0): the copy
 * it sends, traced next at the same instant by the same node, does. A charge goes to the
 * gateway, a status query of a reconciliation too, a receipt or an order API's order to the
 * broker (server_charge.c). Kept on the line as its peer and message. */
static void notes_relayed_copy(ViewPane *pane, const TraceRecord *record)
{
    ViewNarration *line = &pane->narration;
    if (!trace_is_message_event(record->event) || !line->present ||
        line->event != TRACE_OUTBOX_RELAY || line->peer != TRACE_NO_NODE ||
        record->actor != line->node || record->t_us != line->t_us ||
        record->operation != line->operation)
        return;
    line->peer = record->peer;
    line->message = (uint8_t)record->message;
}

static void narrate(ViewPane *pane, const TraceRecord *record, TraceEvent event,
                    const OperationView *view, uint32_t effects)
{
    notes_relayed_copy(pane, record); /* a lost copy is still told as lost, below */
    MessageKind message = record->message;
    bool lost_answer = event == TRACE_LOST && !starts_a_job(message);
    int rank = rank_of(event, effects, record->value, lost_answer);
    bool after_nack = false;
    if (event == TRACE_NACKED) {
        pane->nacked_operation = record->operation;
        pane->nack_pending = true;
    } else if (event == TRACE_REDELIVER && pane->nack_pending &&
               pane->nacked_operation == record->operation) {
        after_nack = true;
        pane->nack_pending = false;
    }
    ViewNarration *line = &pane->narration;
    bool stale = !line->present || record->t_us >= line->t_us + pane->narration_hold_us;
    if (rank < 0 || (!stale && (rank < line->rank || rank == 0)))
        return;
    *line = (ViewNarration){
        .present = true,
        .event = event,
        .node = record->actor,
        .kind = record->actor_kind,
        .peer = record->peer,
        .message = (uint8_t)message,
        .rank = rank,
        .t_us = record->t_us,
        .operation = record->operation,
        .attempt = record->attempt,
        .group = view ? view->group : 0,
        .client_in_group = view ? view->client_in_group : 0,
        .effects = effects,
        .value = record->value,
        .detail = record->detail,
        .after_nack = after_nack,
    };
    if (record->queue != NULL)
        snprintf(line->queue, sizeof line->queue, "%s", record->queue);
}

/* ------------------------------------------------------------------ mechanisms */

/* A refused request, seen as its answer leaving the server: the model traces no event of its
 * own for it (adding one would change every golden trace), and its status says it all. */
static bool is_shed(const ViewPane *pane, const TraceRecord *record)
{
    if (record->event != TRACE_TRANSMIT || record->message != MESSAGE_RESPONSE ||
        record->actor_kind != NODE_SERVER || (record->value != 429 && record->value != 503))
        return false;
    /* the answering server's own queue: else a 503 is its store's, down (C38) */
    const Scenario *scenario = pane->scenario;
    const char *service = world_node(pane->world, record->actor)->service;
    const ServerSpec *server = &scenario->server;
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (strcmp(scenario->called_servers[c].id, service) == 0)
            server = &scenario->called_servers[c].spec;
    }
    return server->queue != SERVER_QUEUE_UNBOUNDED;
}

static bool is_mechanism(const ViewPane *pane, const TraceRecord *record)
{
    switch (record->event) {
    case TRACE_CRASH:
    case TRACE_RESTART:
    case TRACE_FAILOVER:
    case TRACE_REBALANCE:
    case TRACE_OFFSET_COMMIT:
    case TRACE_COMMIT_REFUSED:
    case TRACE_CHANNEL_CLOSED:
    case TRACE_STALE_OVERWRITE:
    case TRACE_DEAD_LETTER:
    case TRACE_REDRIVE:
    case TRACE_STORE_DOWN: /* C38: the refusal itself, traced after its 503 */
        return true;
    default:
        return is_shed(pane, record);
    }
}

static unsigned bits_set(uint64_t bits)
{
    unsigned count = 0;
    for (; bits != 0; bits &= bits - 1)
        count++;
    return count;
}

static unsigned lowest_bit(uint64_t bits)
{
    unsigned bit = 0;
    while (bits != 0 && (bits & 1u) == 0) {
        bits >>= 1;
        bit++;
    }
    return bit;
}

/* A log's consumer group g by its id: 0 the first (broker.consumers), g an extra one. */
static const char *log_group_id(const Scenario *scenario, uint32_t g)
{
    return g == 0 ? scenario->service_ids[NODE_CONSUMERS] : scenario->extra_consumers[g - 1].id;
}

void view_mechanism_commit_words(const ViewPane *pane, const ViewMechanism *moment, char *text,
                                 size_t size)
{
    const Scenario *scenario = pane->scenario;
    long long value = (long long)moment->value;
    unsigned repeats = moment->repeats;
    unsigned partitions = bits_set(moment->partitions), groups = bits_set(moment->groups);
    bool log_groups = false, log_partitions = false; /* either log's */
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        log_groups |= diagram_log_groups_several(scenario, b);
        log_partitions |= broker->family == BROKER_LOG && broker->partitions > 1;
    }
    if (repeats <= 1) {
        snprintf(text, size, "offset commit: %lld", value);
    } else if ((moment->groups & VIEW_COMMITS_UNPLACED) != 0) {
        snprintf(text, size, "%u offset commits", repeats); /* of partitions not known */
    } else if (partitions == 1 && groups == 1 && !log_groups && !log_partitions) {
        snprintf(text, size, "%u offset commits, to %lld", repeats, value);
    } else if (partitions == 1 && groups == 1) { /* one partition's offset: the newest */
        unsigned g = lowest_bit(moment->groups), p = lowest_bit(moment->partitions);
        if (log_groups)
            snprintf(text, size, "%u offset commits, %.40s/p%u to %lld", repeats,
                     log_group_id(scenario, g), p, value);
        else
            snprintf(text, size, "%u offset commits, p%u to %lld", repeats, p, value);
    } else if (groups == 1 && log_groups) {
        snprintf(text, size, "%u offset commits of %.40s, %u partition%s", repeats,
                 log_group_id(scenario, lowest_bit(moment->groups)), partitions,
                 partitions == 1 ? "" : "s");
    } else if (groups == 1) {
        snprintf(text, size, "%u offset commits, %u partitions", repeats, partitions);
    } else {
        snprintf(text, size, "%u offset commits of %u groups, %u partition%s", repeats, groups,
                 partitions, partitions == 1 ? "" : "s");
    }
}

/* Where an offset commit moved an offset, by its record's queue: the partition's name, "p3"
 * for the log's first consumer group, "mailers/p3" for a later one (broker_log.c). Bit g of
 * *group and bit p of *partition; false where the name says neither. */
static bool commit_place(const ViewPane *pane, const char *queue, uint32_t *group,
                         uint64_t *partition)
{
    if (queue == NULL)
        return false;
    const char *slash = strrchr(queue, '/');
    const char *name = slash != NULL ? slash + 1 : queue;
    char *end = NULL;
    unsigned long p = name[0] == 'p' ? strtoul(name + 1, &end, 10) : 0;
    if (end == NULL || end == name + 1 || *end != '\0' || p >= PARTITIONS_MAX)
        return false;
    uint32_t g = 0;
    if (slash != NULL) {
        size_t length = (size_t)(slash - queue);
        g = UINT32_MAX;
        for (uint32_t e = 0; e < pane->scenario->extra_consumer_count; e++) {
            const char *id = pane->scenario->extra_consumers[e].id;
            if (strlen(id) == length && strncmp(id, queue, length) == 0)
                g = e + 1;
        }
        if (g == UINT32_MAX)
            return false;
    }
    *group = 1u << g;
    *partition = (uint64_t)1 << p;
    return true;
}

/* Whether a mechanism at node counts in the last one, at last_node: the same node, or, for a
 * key store's refusals, any instance of the same service (a requeue loop while the store is
 * down goes round the instances: one line per handed-back delivery was a wall of labels). */
static bool same_place(const ViewPane *pane, TraceEvent event, uint32_t last_node, uint32_t node)
{
    if (last_node == node)
        return true;
    return event == TRACE_STORE_DOWN && last_node < world_node_count(pane->world) &&
           node < world_node_count(pane->world) &&
           strcmp(world_node(pane->world, last_node)->service,
                  world_node(pane->world, node)->service) == 0;
}

static void ingest_mechanism(ViewPane *pane, const TraceRecord *record)
{
    if (!is_mechanism(pane, record))
        return;
    uint32_t group = 0;
    uint64_t partition = 0;
    if (record->event == TRACE_OFFSET_COMMIT &&
        !commit_place(pane, record->queue, &group, &partition))
        group = VIEW_COMMITS_UNPLACED;
    if (pane->mechanism_count > 0) {
        ViewMechanism *last = &pane->mechanisms[(pane->mechanism_count - 1) % VIEW_MECHANISMS_MAX];
        if (last->event == record->event &&
            same_place(pane, (TraceEvent)record->event, last->node, record->actor) &&
            record->t_us - last->t_us < (record->event == TRACE_OFFSET_COMMIT
                                             ? VIEW_COMMIT_MERGE_US
                                             : VIEW_MECHANISM_MERGE_US)) {
            last->repeats++;
            last->value = record->value; /* a commit's newest offset */
            last->partitions |= partition;
            last->groups |= group;
            return;
        }
    }
    pane->mechanisms[pane->mechanism_count++ % VIEW_MECHANISMS_MAX] = (ViewMechanism){
        .t_us = record->t_us,
        .event = record->event,
        .kind = record->actor_kind,
        .node = record->actor,
        .value = record->value,
        .repeats = 1,
        .partitions = partition,
        .groups = group,
    };
}

/* A log broker has no per-message ack (its consumers commit offsets): an ack arrow there
 * drew a mechanism C21's own question says does not exist. A queue broker beside it acks its
 * deliveries: its acks are drawn. */
static bool log_ack(const ViewPane *pane, const TraceRecord *record)
{
    if (!trace_is_message_event(record->event) || record->message != MESSAGE_ACK)
        return false;
    bool at_broker = record->actor_kind == NODE_BROKER; /* else the broker is the peer */
    const char *broker = at_broker ? record->actor_name : record->peer_name;
    const Scenario *scenario = pane->scenario;
    return scenario_broker(scenario, diagram_broker_of(scenario, NODE_BROKER, broker))->family ==
           BROKER_LOG;
}

/* ------------------------------------------------------------------ the sink */

static bool sampled(const ViewPane *pane, const OperationView *view)
{
    for (uint32_t l = 0; l < pane->lane_count; l++) {
        if (pane->lanes[l].group == view->group &&
            pane->lanes[l].client_in_group == view->client_in_group)
            return true;
    }
    return false;
}

static void on_record(void *context, const TraceRecord *record)
{
    ViewPane *pane = context;
    TraceEvent event = record->event;
    pane->records++;
    pane->records_by_event[event]++;
    if (pane->world == NULL || event == TRACE_SETTLED)
        return; /* the counters read the outcomes from the world's metrics */
    if ((event == TRACE_CRASH || event == TRACE_RESTART) && record->actor_kind == NODE_KEY_STORE) {
        /* a store of its own: told only where it has a lane (diagram_node_drawn), as its
         * marks are; a store no drawn operation meets has nothing to say to them */
        int lane = diagram_lane_of(pane->diagram, record->actor, TRACE_NO_CLIENT);
        if (lane == DIAGRAM_NO_LANE)
            return;
        pane->store_lane_down[lane] = event == TRACE_CRASH;
    }
    ingest_mechanism(pane, record);
    if (event == TRACE_OFFSET_COMMIT)
        return; /* of no operation, and one per record: the table counts them */
    if (event == TRACE_REBALANCE) {
        narrate(pane, record, event, NULL, 0); /* of no operation, and no job ends */
        return;
    }
    if (event == TRACE_SWEEP || event == TRACE_RESTART || event == TRACE_CRASH) {
        /* of no operation: a crash ends every job its service held, sampled or not */
        if (event != TRACE_SWEEP)
            diagram_add(pane->diagram, record, 0);
        narrate(pane, record, event, NULL, 0);
        return;
    }
    if (record->no_operation)
        return; /* a failover: not drawn, and operation 0 is a real one (issue 24) */
    OperationView view;
    if (!world_operation_view(pane->world, record->operation, &view))
        return;
    uint32_t effects = view.effects; /* in progress while it is being traced */
    if (sampled(pane, &view) && !log_ack(pane, record))
        diagram_add(pane->diagram, record, effects);
    ingest_density(pane, record, event, effects);
    narrate(pane, record, event, &view, effects);
}

TraceSink view_trace_sink(ViewPane *pane)
{
    return (TraceSink){.write = on_record, .context = pane};
}
