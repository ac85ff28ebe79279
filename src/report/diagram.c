/* The diagram model (diagram.h). The network reports every copy of every message as
 * "transmit" (or "lost") at its source and "deliver" at its target, with both ends named, so
 * each copy becomes an arrow with its true send and arrival times. A copy arriving at a
 * service (request, delivery, charge) opens an activation box on that lane, closed by the
 * answer it sends (whose lineage is the request's times 2, or times 64 for the broker's
 * deliveries), by a decision that ends the job at once (replay, 409, 422, refused) or by a
 * crash. Every other record is a mark on its actor's lane. Items live in a ring: a renderer
 * that shows a sliding window (the view) forgets the oldest; one that draws everything (the
 * SVG) sizes the ring for what it keeps. */
#include "diagram.h"
#include "node_kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIRING_SCAN_MAX 4096 /* the partner of a record is always recent */
#define NO_ROW UINT32_MAX

/* One broker's rules (diagram_set_broker_rules): a second broker's messages are delivered,
 * acknowledged and handed back by its own family's, not by the first's. */
typedef struct {
    bool consumers_wait_in_place;  /* a log's consumer keeps a record whose key is in progress */
    const BrokerSpec *queues_of;   /* the broker's queues, where it has several: marks name them */
    const Scenario *log_groups_of; /* a log's consumer groups, where it has several: likewise */
    bool ack_ends_timer;           /* a channel broker: a delivery's ack ends its timer */
    bool copies_published;         /* a fanout exchange: one publish, several deliveries at once */
} BrokerRules;

struct Diagram {
    Mode mode;
    bool open;
    DiagramLane lanes[DIAGRAM_LANES_MAX];
    uint32_t lane_count;
    uint32_t appearances; /* order of the next lane opened on sight */
    int ledger;
    DiagramItem *items; /* ring of items_max */
    uint32_t items_max;
    uint64_t next_serial;
    uint32_t rows_max;
    bool truncated;
    DiagramRow *rows;
    uint32_t row_count;
    uint32_t row_capacity;
    uint64_t duplicate_operation; /* the copy the last "duplicate" record announced */
    uint32_t duplicate_click, duplicate_attempt, duplicate_copy;
    uint32_t followed_count;
    DiagramOutcome followed[DIAGRAM_FOLLOWED_MAX];
    bool windowed; /* spans are made, with windows */
    DiagramWindows windows;
    /* diagram_set_broker_rules's scenario, whose nodes say which broker a lane's is
     * (diagram_broker_of); NULL: every lane the first broker's */
    const Scenario *scenario;
    BrokerRules brokers[DIAGRAM_BROKERS_MAX]; /* by broker index; all false without rules */
    /* with a broker's copies_published, the consumer group taking each of its queues (its
     * service id), by broker index and queue */
    char queue_takers[DIAGRAM_BROKERS_MAX][QUEUES_MAX][NAME_LEN_MAX];
};

/* ------------------------------------------------------------------ building */

Diagram *diagram_create(Mode mode, uint32_t items_max, uint32_t rows_max)
{
    Diagram *diagram = calloc(1, sizeof *diagram);
    if (diagram == NULL)
        return NULL;
    diagram->mode = mode;
    diagram->ledger = DIAGRAM_NO_LANE;
    diagram->items_max = items_max > 0 ? items_max : 1;
    diagram->next_serial = 1;
    diagram->rows_max = rows_max;
    diagram->items = calloc(diagram->items_max, sizeof *diagram->items);
    if (diagram->items == NULL) {
        free(diagram);
        return NULL;
    }
    return diagram;
}

void diagram_destroy(Diagram *diagram)
{
    if (diagram == NULL)
        return;
    free(diagram->items);
    free(diagram->rows);
    free(diagram);
}

int diagram_add_lane(Diagram *diagram, NodeKind kind, uint32_t node, uint32_t client,
                     const char *node_name, uint32_t order)
{
    if (diagram->lane_count == DIAGRAM_LANES_MAX)
        return DIAGRAM_NO_LANE;
    DiagramLane *lane = &diagram->lanes[diagram->lane_count];
    *lane = (DiagramLane){.kind = kind, .node = node, .client = client, .order = order};
    char name[DIAGRAM_LANE_NAME_MAX];
    snprintf(name, sizeof name, "%s", node_name != NULL ? node_name : "");
    memcpy(lane->node_name, name, sizeof name);
    if (kind == NODE_CLIENT_GROUP && client != TRACE_NO_CLIENT)
        snprintf(lane->name, sizeof lane->name, "%.40s[%u]", name, client);
    else
        memcpy(lane->name, name, sizeof name);
    return (int)diagram->lane_count++;
}

int diagram_add_ledger(Diagram *diagram)
{
    if (diagram->ledger != DIAGRAM_NO_LANE)
        return diagram->ledger;
    int lane = diagram_add_lane(diagram, NODE_KIND_COUNT, TRACE_NO_NODE, TRACE_NO_CLIENT, "ledger",
                                UINT32_MAX);
    if (lane != DIAGRAM_NO_LANE)
        diagram->lanes[lane].ledger = true;
    diagram->ledger = lane;
    return lane;
}

void diagram_open_lanes(Diagram *diagram, bool open)
{
    diagram->open = open;
}

int diagram_lane_of(const Diagram *diagram, uint32_t node, uint32_t client)
{
    if (node == TRACE_NO_NODE)
        return DIAGRAM_NO_LANE;
    for (uint32_t i = 0; i < diagram->lane_count; i++) {
        const DiagramLane *lane = &diagram->lanes[i];
        if (!lane->ledger && lane->node == node &&
            (lane->kind != NODE_CLIENT_GROUP || lane->client == client))
            return (int)i;
    }
    return DIAGRAM_NO_LANE;
}

/* Lanes of nodes that crash on their own (a key store, C38) stand after every service's,
 * however early their crash is met: an outage under way is drawn before the first request. */
#define DIAGRAM_ORDER_APART (1u << 24)

/* The order of a lane opened on sight: its appearance, or, for an instance of a service of
 * several ("checkout#2"), its first sibling's, so the instances stand side by side (the node
 * table's order) although the second is met after the services below the first. */
static uint32_t instance_order(Diagram *diagram, NodeKind kind, const char *name)
{
    if (node_kind_info(kind)->crash_loses != NULL)
        return DIAGRAM_ORDER_APART + diagram->appearances++;
    const char *marker = strchr(name, '#');
    for (uint32_t i = 0; marker != NULL && kind != NODE_CLIENT_GROUP && i < diagram->lane_count;
         i++) {
        const DiagramLane *lane = &diagram->lanes[i];
        if (!lane->ledger && lane->kind == kind &&
            strncmp(lane->node_name, name, (size_t)(marker - name) + 1) == 0)
            return lane->order;
    }
    return diagram->appearances++;
}

/* The lane of one end of a record; with open lanes, a new one named as the trace names it. */
static int lane_for(Diagram *diagram, uint32_t node, uint32_t client, NodeKind kind,
                    const char *name)
{
    int lane = diagram_lane_of(diagram, node, client);
    if (lane != DIAGRAM_NO_LANE || !diagram->open || node == TRACE_NO_NODE || name == NULL)
        return lane;
    char node_name[DIAGRAM_LANE_NAME_MAX];
    snprintf(node_name, sizeof node_name, "%.*s", (int)strcspn(name, "["), name);
    return diagram_add_lane(diagram, kind, node,
                            kind == NODE_CLIENT_GROUP ? client : TRACE_NO_CLIENT, node_name,
                            instance_order(diagram, kind, node_name));
}

/* ------------------------------------------------------------------ the ring and the rows */

static DiagramItem *item_at(const Diagram *diagram, uint64_t serial)
{
    return &diagram->items[serial % diagram->items_max];
}

/* The broker whose lane this is (diagram_broker_of): 0 without broker rules, or for a lane
 * of no broker's. */
static uint32_t lane_broker(const Diagram *diagram, int lane)
{
    if (diagram->scenario == NULL || lane < 0 || diagram->lanes[lane].ledger)
        return 0;
    const DiagramLane *entry = &diagram->lanes[lane];
    return diagram_broker_of(diagram->scenario, entry->kind, entry->node_name);
}

static const BrokerRules *lane_rules(const Diagram *diagram, int lane)
{
    return &diagram->brokers[lane_broker(diagram, lane)];
}

/* The queue a broker record names, plus one; 0 when it names none, or the diagram was not
 * told the broker's queues. On a log with several consumer groups, the group whose copy of a
 * record it is about, plus one: the first group's records name none, a later one's its id.
 * The queues are those of the broker that wrote the record (its actor): each broker names its
 * own, and a second broker's records name no log group. */
static uint8_t queue_number(const Diagram *diagram, const TraceRecord *record)
{
    uint32_t b = record->actor_kind == NODE_BROKER
                     ? diagram_broker_of(diagram->scenario, NODE_BROKER, record->actor_name)
                     : 0;
    const BrokerRules *rules = &diagram->brokers[b];
    const Scenario *groups = rules->log_groups_of;
    if (groups != NULL && record->queue == NULL)
        return 1;
    for (uint32_t g = 0; groups != NULL && g < groups->extra_consumer_count; g++) {
        if (strcmp(groups->extra_consumers[g].id, record->queue) == 0)
            return (uint8_t)(g + 2);
    }
    const BrokerSpec *queues_of = rules->queues_of;
    for (uint32_t q = 0; queues_of != NULL && record->queue != NULL && q < queues_of->queue_count;
         q++) {
        if (strcmp(queues_of->queues[q].name, record->queue) == 0)
            return (uint8_t)(q + 1);
    }
    return 0;
}

static DiagramItem *new_item(Diagram *diagram, const TraceRecord *record, DiagramItemKind kind,
                             int from, int to)
{
    DiagramItem *item = item_at(diagram, diagram->next_serial);
    *item = (DiagramItem){
        .serial = diagram->next_serial++,
        .operation = record->operation,
        .start_us = record->t_us,
        .end_us = SIM_TIME_NEVER,
        .start_row = NO_ROW,
        .end_row = NO_ROW,
        .click = record->click,
        .attempt = record->attempt,
        .copy = record->copy,
        .detail = record->detail,
        .value = record->value,
        .key_owner = record->key_owner,
        .from = (int8_t)from,
        .to = (int8_t)to,
        .kind = (uint8_t)kind,
        .message = (uint8_t)record->message,
        .event = DIAGRAM_NO_EVENT,
        .end_event = DIAGRAM_NO_EVENT,
        .queue = queue_number(diagram, record),
    };
    return item;
}

/* Remembers the record's row when asked to; returns it (NO_ROW otherwise). */
static uint32_t add_row(Diagram *diagram, const TraceRecord *record, int lane, uint64_t item)
{
    if (diagram->rows_max == 0)
        return NO_ROW;
    if (diagram->row_count == diagram->row_capacity) {
        uint32_t capacity = diagram->row_capacity ? diagram->row_capacity * 2 : 256;
        DiagramRow *grown = realloc(diagram->rows, capacity * sizeof *grown);
        if (grown == NULL) {
            diagram->truncated = true; /* what is drawn stays whole */
            return NO_ROW;
        }
        diagram->rows = grown;
        diagram->row_capacity = capacity;
    }
    diagram->rows[diagram->row_count] = (DiagramRow){
        .t_us = record->t_us, .item = item, .event = (uint8_t)record->event, .lane = (int8_t)lane};
    return diagram->row_count++;
}

typedef struct {
    DiagramItemKind kind;
    int from, to; /* DIAGRAM_NO_LANE: any */
    int message;  /* -1: any */
    uint64_t operation;
    uint32_t attempt;
    uint32_t copy;
    int click; /* -1: any */
    bool open_only;
} Query;

/* Items of the record's operation and attempt, with this copy, that start on lane. */
static Query from_lane(DiagramItemKind kind, int lane, const TraceRecord *record, uint32_t copy,
                       bool open_only)
{
    return (Query){.kind = kind,
                   .from = lane,
                   .to = DIAGRAM_NO_LANE,
                   .message = -1,
                   .operation = record->operation,
                   .attempt = record->attempt,
                   .copy = copy,
                   .click = -1,
                   .open_only = open_only};
}

/* The newest item that matches. */
static DiagramItem *find_item(Diagram *diagram, const Query *query)
{
    uint64_t first = diagram_first_serial(diagram);
    uint64_t scanned = 0;
    for (uint64_t serial = diagram->next_serial; serial-- > first && scanned < PAIRING_SCAN_MAX;
         scanned++) {
        DiagramItem *item = item_at(diagram, serial);
        if (item->kind != query->kind || item->operation != query->operation ||
            item->attempt != query->attempt || item->copy != query->copy)
            continue;
        if ((query->from != DIAGRAM_NO_LANE && item->from != query->from) ||
            (query->to != DIAGRAM_NO_LANE && item->to != query->to) ||
            (query->message >= 0 && item->message != query->message) ||
            (query->click >= 0 && item->click != (uint32_t)query->click))
            continue;
        if (query->open_only && item->end_us != SIM_TIME_NEVER)
            continue;
        return item;
    }
    return NULL;
}

static bool starts_a_job(MessageKind message)
{
    return message == MESSAGE_REQUEST || message == MESSAGE_DELIVERY || message == MESSAGE_CHARGE ||
           message == MESSAGE_REFUND;
}

static bool is_client(const Diagram *diagram, int lane)
{
    return lane >= 0 && diagram->lanes[lane].kind == NODE_CLIENT_GROUP;
}

/* ------------------------------------------------------------------ spans */

static void add_store_window(DiagramWindows *windows, const char *id, const IdempotencySpec *store,
                             bool durable)
{
    uint32_t k = windows->store_count++;
    snprintf(windows->stores[k].id, sizeof windows->stores[k].id, "%s", id);
    windows->stores[k].key_ttl_ms = store->ttl_ms;
    windows->stores[k].ttl_from_completion = store->ttl_from == TTL_FROM_COMPLETION;
    windows->stores[k].store_durable = durable;
}

DiagramWindows diagram_windows_of(const Scenario *scenario, Mode mode)
{
    DiagramWindows windows = {0};
    if (mode == MODE_IDEMPOTENT) {
        const IdempotencySpec *server = &scenario->server.idempotency;
        const IdempotencySpec *consumers = &scenario->broker.consumers.idempotency;
        windows.server_key_ttl_ms = server->ttl_ms;
        windows.server_ttl_from_completion = server->ttl_from == TTL_FROM_COMPLETION;
        windows.server_store_durable = scenario_server_store_outlives_crash(scenario, 0);
        windows.consumer_key_ttl_ms = consumers->ttl_ms;
        windows.consumer_ttl_from_completion = consumers->ttl_from == TTL_FROM_COMPLETION;
        windows.consumer_store_durable = scenario_consumers_store_outlives_crash(scenario);
        for (uint32_t c = 0; c < scenario->called_server_count; c++) {
            const CalledServerSpec *called = &scenario->called_servers[c];
            add_store_window(&windows, called->id, &called->spec.idempotency,
                             scenario_server_store_outlives_crash(scenario, c + 1));
        }
        for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
            const ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
            add_store_window(&windows, extra->id, &extra->spec.idempotency,
                             scenario_group_store_outlives_crash(scenario, &extra->spec));
        }
    }
    for (uint32_t b = 0; b <= scenario->extra_broker_count && b < DIAGRAM_BROKERS_MAX; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        /* at-most-once acknowledges as it delivers, and a log has no per-message ack: no
         * timer */
        if (mode != MODE_AT_MOST_ONCE && broker->family != BROKER_LOG)
            windows.ack_timeout_ms[b] = broker->family == BROKER_CHANNEL
                                            ? broker->consumer_timeout_ms
                                            : broker->ack_timeout_ms;
        windows.dedup_window_ms[b] = broker->dedup_window_ms;
    }
    return windows;
}

uint32_t diagram_broker_of(const Scenario *scenario, NodeKind kind, const char *name)
{
    if (scenario == NULL || name == NULL)
        return 0;
    if (kind == NODE_BROKER) {
        for (uint32_t b = 1; b <= scenario->extra_broker_count && b < DIAGRAM_BROKERS_MAX; b++) {
            if (strcmp(scenario_broker_id(scenario, b), name) == 0)
                return b;
        }
        return 0;
    }
    if (kind != NODE_CONSUMERS)
        return 0;
    size_t length = strcspn(name, "#"); /* an instance's "<id>#<n>" */
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const char *id =
            g == 0 ? scenario->service_ids[NODE_CONSUMERS] : scenario->extra_consumers[g - 1].id;
        uint32_t broker = scenario_consumer_group(scenario, g)->broker;
        if (strlen(id) == length && strncmp(id, name, length) == 0)
            return broker < DIAGRAM_BROKERS_MAX ? broker : 0;
    }
    return 0;
}

bool diagram_log_groups_several(const Scenario *scenario, uint32_t b)
{
    if (b > scenario->extra_broker_count || scenario_broker(scenario, b)->family != BROKER_LOG)
        return false;
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        if (scenario->extra_consumers[g].spec.broker == b)
            return true; /* the first broker's later group, or a second log's group */
    }
    return false;
}

void diagram_set_broker_rules(Diagram *diagram, const Scenario *scenario)
{
    diagram->scenario = scenario;
    for (uint32_t b = 0; b <= scenario->extra_broker_count && b < DIAGRAM_BROKERS_MAX; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        BrokerRules *rules = &diagram->brokers[b];
        rules->consumers_wait_in_place = broker->family == BROKER_LOG;
        rules->queues_of = broker->queue_count > 1 ? broker : NULL;
        rules->log_groups_of = diagram_log_groups_several(scenario, b) ? scenario : NULL;
        rules->ack_ends_timer = broker->family == BROKER_CHANNEL;
        rules->copies_published = broker->exchange_count > 0;
    }
    for (uint32_t b = 0; b <= scenario->extra_broker_count && b < DIAGRAM_BROKERS_MAX; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        for (uint32_t q = 0; diagram->brokers[b].copies_published && q < broker->queue_count; q++) {
            const ConsumerSpec *taker = scenario_group_of_queue(scenario, b, q);
            const char *id = scenario->service_ids[NODE_CONSUMERS];
            for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
                if (taker == &scenario->extra_consumers[g].spec)
                    id = scenario->extra_consumers[g].id;
            }
            snprintf(diagram->queue_takers[b][q], sizeof diagram->queue_takers[b][q], "%s", id);
        }
    }
}

void diagram_set_windows(Diagram *diagram, const DiagramWindows *windows)
{
    diagram->windowed = true;
    diagram->windows = *windows;
}

static SimTimeUs ms_to_us(double ms)
{
    return (SimTimeUs)(ms * 1000.0 + 0.5);
}

/* A span on lane from the record's instant; ends at start + length_ms when that is > 0, else
 * stays open until something ends it. */
/* A new ack timer's place (DiagramItem.slot): the lowest that no timer of its operation on
 * its lane still open at its start holds. Two timers of one operation from one instant (a
 * fanout exchange's copies, each its queue's delivery) were drawn as one bar; timers of
 * different operations keep sharing a place, and so do the other kinds' spans (a server's
 * lane holds every key's life in one column). */
static uint8_t span_slot(const Diagram *diagram, const DiagramItem *span)
{
    if (span->detail != DIAGRAM_SPAN_ACK_TIMER)
        return 0;
    uint32_t taken = 0;
    for (uint64_t serial = span->serial; serial-- > diagram_first_serial(diagram);) {
        const DiagramItem *other = item_at(diagram, serial);
        if (other->kind == DIAGRAM_SPAN && other->from == span->from &&
            other->detail == span->detail && other->operation == span->operation &&
            other->end_us > span->start_us) /* SIM_TIME_NEVER: still open */
            taken |= 1u << other->slot;
    }
    uint8_t slot = 0;
    while (slot + 1 < DIAGRAM_SPAN_SLOTS && (taken >> slot & 1u) != 0)
        slot++;
    return slot;
}

static DiagramItem *open_span(Diagram *diagram, const TraceRecord *record, int lane,
                              DiagramSpanKind kind, double length_ms, uint32_t row)
{
    DiagramItem *span = new_item(diagram, record, DIAGRAM_SPAN, lane, lane);
    span->detail = (uint32_t)kind;
    span->value = (int64_t)(length_ms + 0.5);
    span->start_row = row;
    if (kind != DIAGRAM_SPAN_KEY_RESERVED && length_ms > 0)
        span->end_us = record->t_us + ms_to_us(length_ms);
    span->slot = span_slot(diagram, span);
    return span;
}

/* Whether a lane's node is service id's: its node or one of its instances ("id#2"). */
static bool lane_of_service(const DiagramLane *lane, const char *id)
{
    size_t length = strlen(id);
    return strncmp(lane->node_name, id, length) == 0 &&
           (lane->node_name[length] == '\0' || lane->node_name[length] == '#');
}

/* The key store of a lane: a called server's or a later consumer group's (by its id), else
 * the first server's or the first consumer group's. */
static void key_windows(const Diagram *diagram, int lane, double *ttl_ms, bool *from_completion,
                        bool *durable)
{
    bool consumers = diagram->lanes[lane].kind == NODE_CONSUMERS;
    const DiagramWindows *w = &diagram->windows;
    for (uint32_t k = 0; k < w->store_count; k++) {
        if (lane_of_service(&diagram->lanes[lane], w->stores[k].id)) {
            *ttl_ms = w->stores[k].key_ttl_ms;
            *from_completion = w->stores[k].ttl_from_completion;
            *durable = w->stores[k].store_durable;
            return;
        }
    }
    *ttl_ms = consumers ? w->consumer_key_ttl_ms : w->server_key_ttl_ms;
    *from_completion = consumers ? w->consumer_ttl_from_completion : w->server_ttl_from_completion;
    *durable = consumers ? w->consumer_store_durable : w->server_store_durable;
}

static DiagramItem *open_reservation(Diagram *diagram, int lane, const TraceRecord *record,
                                     uint32_t copy)
{
    uint64_t first = diagram_first_serial(diagram);
    for (uint64_t serial = diagram->next_serial; serial-- > first;) {
        DiagramItem *span = item_at(diagram, serial);
        if (span->kind == DIAGRAM_SPAN && span->detail == DIAGRAM_SPAN_KEY_RESERVED &&
            span->from == lane && span->end_us == SIM_TIME_NEVER &&
            span->operation == record->operation && span->attempt == record->attempt &&
            span->copy == copy)
            return span;
    }
    return NULL;
}

/* A job's answer ends its key's reservation; a success stores the key, until its TTL counted
 * from the reservation or from the completion, as the store's option says. A failure's row
 * (kept, replayed or deleted by the failure policy) is not drawn. */
static void end_reservation(Diagram *diagram, int lane, const TraceRecord *record, uint32_t copy,
                            bool succeeded)
{
    DiagramItem *reservation = open_reservation(diagram, lane, record, copy);
    if (reservation == NULL)
        return;
    reservation->end_us = record->t_us;
    reservation->end_event = (uint8_t)record->event;
    if (!succeeded)
        return;
    double ttl_ms;
    bool from_completion, durable;
    key_windows(diagram, lane, &ttl_ms, &from_completion, &durable);
    SimTimeUs reserved_us = reservation->start_us;
    DiagramItem *stored = open_span(diagram, record, lane, DIAGRAM_SPAN_KEY_STORED, 0, NO_ROW);
    stored->copy = copy;
    if (ttl_ms > 0) {
        SimTimeUs expiry = (from_completion ? record->t_us : reserved_us) + ms_to_us(ttl_ms);
        stored->end_us = expiry > record->t_us ? expiry : record->t_us;
        stored->value = (int64_t)(ttl_ms + 0.5);
    }
}

/* A crash ends the reservations of an in-memory store; a durable one keeps them, stuck in
 * processing, until their TTL (counted from the reservation). */
static void crash_reservations(Diagram *diagram, const TraceRecord *record, int lane)
{
    double ttl_ms;
    bool from_completion, durable;
    key_windows(diagram, lane, &ttl_ms, &from_completion, &durable);
    for (uint64_t serial = diagram->next_serial; serial-- > diagram_first_serial(diagram);) {
        DiagramItem *span = item_at(diagram, serial);
        if (span->kind != DIAGRAM_SPAN || span->detail != DIAGRAM_SPAN_KEY_RESERVED ||
            span->from != lane || span->end_us != SIM_TIME_NEVER)
            continue;
        if (!durable)
            span->end_us = record->t_us;
        else if (ttl_ms > 0)
            span->end_us = span->start_us + ms_to_us(ttl_ms);
        span->end_event = TRACE_CRASH;
    }
}

/* ------------------------------------------------------------------ messages */

static void close_activation(Diagram *diagram, int lane, const TraceRecord *record, uint32_t copy,
                             TraceEvent why)
{
    Query query = from_lane(DIAGRAM_ACTIVATION, lane, record, copy, true);
    DiagramItem *activation = find_item(diagram, &query);
    if (activation != NULL) {
        activation->end_us = record->t_us;
        activation->end_event = (uint8_t)why;
    }
    if (diagram->windowed && why == TRACE_TRANSMIT) {
        bool succeeded =
            record->message == MESSAGE_ACK || (record->value >= 200 && record->value < 300);
        end_reservation(diagram, lane, record, copy, succeeded);
    }
}

/* Whether two lanes are one service's: the same node, or two instances of it ("chargers#2"). */
static bool one_service(const Diagram *diagram, int a, int b)
{
    if (a == b)
        return true;
    const char *one = diagram->lanes[a].node_name, *other = diagram->lanes[b].node_name;
    size_t length = strcspn(one, "#");
    return length == strcspn(other, "#") && strncmp(one, other, length) == 0;
}

/* Whether a delivery record is of the same queued message as a timer's delivery: each
 * delivery's lineage is its message's times 64 plus its number (lineage_of_repeat), doubled by
 * the hop, so deliveries of one message share copy / 128. A fanout exchange's copy in another
 * queue, or a network's copy of the publish, is a message of its own (one group may take two
 * queues of an exchange: its two deliveries leave at once). */
static bool one_message(const DiagramItem *timer, const TraceRecord *delivery)
{
    return timer->copy / 128 == delivery->copy / 128;
}

/* Whether an ack or a nack answers a timer's delivery, and not another delivery of the
 * operation's attempt to the same consumer (a group taking two queues of an exchange): the
 * consumer sends its delivery back as the ack, whose copy the hop doubles; a nack is a repeat
 * of it (lineage_of_repeat, number 63), doubled; the network's copy of either adds one. */
static bool answers(const DiagramItem *timer, const TraceRecord *answer)
{
    uint32_t copy = answer->copy & ~1u;
    return answer->message == MESSAGE_ACK ? copy == timer->copy * 2u
                                          : copy == timer->copy * 128u + 126u;
}

/* How a record names the delivery whose timer it may end: by the consumer instance it went to
 * (an ack or nack from it), by the group (a new delivery to any of its instances), by the
 * queue it came from (the broker's marks where an exchange's copies of the operation wait in
 * several queues: the group taking that queue), or by the operation alone (the broker's marks
 * otherwise, which name no consumer). */
typedef enum { TIMER_OF_INSTANCE, TIMER_OF_GROUP, TIMER_OF_QUEUE, TIMER_OF_OPERATION } TimerMatch;

/* C3: a channel broker's consumer timeout (RabbitMQ's consumer_timeout, 30 min by default)
 * closes the channel of a delivery still unacknowledged when it runs out; the ack or nack
 * that reaches the broker ends it (https://www.rabbitmq.com/docs/consumers#acknowledgement-
 * timeout). So the timer of the record's delivery to consumer_lane (-1: to any) ends at the
 * record: its ack or nack at the broker, the broker taking the message back (nacked,
 * redelivered, dead-lettered, discarded), or its next delivery (a closed channel requeued it),
 * when that comes before its deadline. Drawn to the deadline, every delivery's 30-minute bar
 * ran on past everything else. A visibility timeout's timer keeps its deadline: the moment the
 * message would be handed out again. Only the latest delivery of the operation's attempt there
 * is looked at; an earlier one ended when this one began. */
static void end_ack_timer(Diagram *diagram, const TraceRecord *record, int broker_lane,
                          int consumer_lane, TimerMatch match, uint8_t queue)
{
    if (!diagram->windowed || !lane_rules(diagram, broker_lane)->ack_ends_timer)
        return;
    for (uint64_t serial = diagram->next_serial; serial-- > diagram_first_serial(diagram);) {
        DiagramItem *span = item_at(diagram, serial);
        if (span->kind != DIAGRAM_SPAN || span->detail != DIAGRAM_SPAN_ACK_TIMER ||
            span->from != broker_lane || span->operation != record->operation ||
            span->click != record->click || span->attempt != record->attempt ||
            (match == TIMER_OF_INSTANCE && (span->to != consumer_lane || !answers(span, record))) ||
            (match == TIMER_OF_GROUP &&
             (!one_service(diagram, span->to, consumer_lane) || !one_message(span, record))) ||
            (match == TIMER_OF_QUEUE &&
             !lane_of_service(&diagram->lanes[span->to],
                              diagram->queue_takers[lane_broker(diagram, broker_lane)][queue - 1])))
            continue;
        if (span->end_event == DIAGRAM_NO_EVENT && record->t_us < span->end_us) {
            span->end_us = record->t_us;
            span->end_event = (uint8_t)record->event;
        }
        return;
    }
}

/* A copy leaves its source (or is lost there). An answer leaving a service closes the job
 * it answers: each hop doubles the lineage (x2, +1 for a duplicate); the broker's deliveries
 * and the server's charges and receipts start a sub-lineage (x64 + number). The broker holds
 * a message until it delivers it; its confirm to the publisher does not end that. */
static void on_transmit(Diagram *diagram, const TraceRecord *record, int from)
{
    int to =
        lane_for(diagram, record->peer, record->peer_client, record->peer_kind, record->peer_name);
    uint64_t serial = 0;
    if (from >= 0 && to >= 0) {
        DiagramItem *copy = new_item(diagram, record, DIAGRAM_MESSAGE, from, to);
        serial = copy->serial;
        copy->duplicate = diagram->duplicate_operation == record->operation &&
                          diagram->duplicate_click == record->click &&
                          diagram->duplicate_attempt == record->attempt &&
                          diagram->duplicate_copy == record->copy;
        if (record->event == TRACE_LOST) {
            copy->end_us = record->t_us;
            copy->end_event = TRACE_LOST;
        }
    }
    uint32_t row = add_row(diagram, record, from, serial);
    if (serial != 0)
        item_at(diagram, serial)->start_row = row;
    if (from < 0 || is_client(diagram, from))
        return;
    bool delivered = diagram->windowed && record->message == MESSAGE_DELIVERY &&
                     diagram->lanes[from].kind == NODE_BROKER;
    double ack_timeout_ms =
        delivered ? diagram->windows.ack_timeout_ms[lane_broker(diagram, from)] : 0;
    if (ack_timeout_ms > 0) { /* its own broker's timer */
        bool copy_of_network = serial != 0 && item_at(diagram, serial)->duplicate;
        if (!copy_of_network) /* delivered again to its group: a requeue's */
            end_ack_timer(diagram, record, from, to, TIMER_OF_GROUP, 0);
        DiagramItem *timer =
            open_span(diagram, record, from, DIAGRAM_SPAN_ACK_TIMER, ack_timeout_ms, row);
        timer->to = (int8_t)to; /* the consumer it waits for */
    }
    if (record->message == MESSAGE_DELIVERY)
        close_activation(diagram, from, record, record->copy / 128, TRACE_TRANSMIT);
    else if (!starts_a_job(record->message) && diagram->lanes[from].kind != NODE_BROKER)
        close_activation(diagram, from, record, record->copy / 2, TRACE_TRANSMIT);
}

static void on_deliver(Diagram *diagram, const TraceRecord *record, int to)
{
    int from =
        lane_for(diagram, record->peer, record->peer_client, record->peer_kind, record->peer_name);
    DiagramItem *copy = NULL;
    if (from >= 0 && to >= 0) {
        Query query = {DIAGRAM_MESSAGE,
                       from,
                       to,
                       record->message,
                       record->operation,
                       record->attempt,
                       record->copy,
                       (int)record->click,
                       true};
        copy = find_item(diagram, &query);
    }
    uint32_t row = add_row(diagram, record, to, copy != NULL ? copy->serial : 0);
    if (copy != NULL) {
        copy->end_us = record->t_us;
        copy->end_event = TRACE_DELIVER;
        copy->end_row = row;
    }
    if (to >= 0 && from >= 0 && diagram->lanes[to].kind == NODE_BROKER &&
        (record->message == MESSAGE_ACK || record->message == MESSAGE_NACK))
        end_ack_timer(diagram, record, to, from, TIMER_OF_INSTANCE, 0);
    if (to >= 0 && !is_client(diagram, to) && starts_a_job(record->message))
        new_item(diagram, record, DIAGRAM_ACTIVATION, to, to);
}

/* ------------------------------------------------------------------ decisions */

static bool ends_the_job(const Diagram *diagram, TraceEvent event, int lane)
{
    bool consumer = diagram->lanes[lane].kind == NODE_CONSUMERS;
    switch (event) {
    case TRACE_IN_PROGRESS:
        /* a log never hands a record out again: its consumer keeps the job and tries the
         * record again once the key's lease may be taken over (consumers.c) */
        return !(consumer && lane_rules(diagram, lane)->consumers_wait_in_place);
    case TRACE_STORE_DOWN:
        /* a server's 503 closes its job as it leaves; a consumer hands its delivery back
         * without an answer (C38) */
        return consumer;
    case TRACE_REPLAY:
    case TRACE_REJECT_OTHER_BODY:
    case TRACE_REJECT_MISSING_KEY:
    case TRACE_REFUSED_DOWN:
    case TRACE_CHARGED_NO_ANSWER:
        return true;
    case TRACE_EXECUTE:
    case TRACE_EXECUTE_NO_EFFECT:
    case TRACE_PRECONDITION_FAILED:
    case TRACE_SEND_RECEIPT:
        /* at-most-once consumers acknowledge on delivery: nothing closes their job */
        return consumer && diagram->mode == MODE_AT_MOST_ONCE;
    case TRACE_GATEWAY_TIMEOUT:
    case TRACE_HANDLER_FAILED:
        /* a consumer that gave its charge up, or whose handler failed, is done with the
         * delivery: a visibility timeout brings it back unacknowledged, without an answer
         * that would close the job (a server's 5xx to its client closes its own) */
        return consumer;
    default:
        return false;
    }
}

/* The answer a decision produced left just before its record (the model answers, then
 * traces): tag it with the decision. */
static void tag_answer(Diagram *diagram, const TraceRecord *record, int lane, TraceEvent event)
{
    for (uint32_t copy = record->copy * 2; copy <= record->copy * 2 + 1; copy++) {
        Query query = from_lane(DIAGRAM_MESSAGE, lane, record, copy, false);
        DiagramItem *answer = find_item(diagram, &query);
        if (answer != NULL)
            answer->event = (uint8_t)event;
    }
}

static void on_decision(Diagram *diagram, const TraceRecord *record, int lane, uint32_t effects)
{
    TraceEvent event = record->event;
    Query query = from_lane(DIAGRAM_ACTIVATION, lane, record, record->copy, false);
    DiagramItem *job = find_item(diagram, &query);
    if (job != NULL && (job->event == DIAGRAM_NO_EVENT || event == TRACE_EXECUTE)) {
        job->event = (uint8_t)event;
        job->effects = effects;
    }
    if (event == TRACE_EXECUTE) {
        Query incoming = {DIAGRAM_MESSAGE, DIAGRAM_NO_LANE, lane, -1,   record->operation,
                          record->attempt, record->copy,    -1,   false};
        DiagramItem *cause = find_item(diagram, &incoming);
        if (cause != NULL) {
            cause->event = (uint8_t)event;
            cause->effects = effects;
        }
    }
    if (event == TRACE_REPLAY || event == TRACE_IN_PROGRESS || event == TRACE_REJECT_OTHER_BODY)
        tag_answer(diagram, record, lane, event);
    if (ends_the_job(diagram, event, lane))
        close_activation(diagram, lane, record, record->copy, event);
}

/* A crash ends every job the process held. */
static void on_crash(Diagram *diagram, const TraceRecord *record, int lane)
{
    for (uint64_t serial = diagram->next_serial; serial-- > diagram_first_serial(diagram);) {
        DiagramItem *item = item_at(diagram, serial);
        if (item->kind == DIAGRAM_ACTIVATION && item->from == lane &&
            item->end_us == SIM_TIME_NEVER) {
            item->end_us = record->t_us;
            item->end_event = TRACE_CRASH;
        }
    }
}

bool diagram_crashes_alone(const TraceRecord *record)
{
    return record->no_operation &&
           node_kind_info((NodeKind)record->actor_kind)->crash_loses != NULL &&
           (record->event == TRACE_CRASH || record->event == TRACE_RESTART);
}

bool diagram_down_edge(const TraceRecord *record)
{
    bool outage = record->no_operation && record->actor_kind == NODE_SERVER &&
                  ((record->event == TRACE_CRASH && record->detail == CRASH_NONE) ||
                   record->event == TRACE_RESTART);
    return outage || diagram_crashes_alone(record);
}

void diagram_outages_note(DiagramOutages *outages, const TraceRecord *record)
{
    uint32_t i = 0;
    while (i < outages->count && outages->since[i].actor != record->actor)
        i++;
    if (record->event == TRACE_RESTART && i < outages->count)
        outages->since[i] = outages->since[--outages->count];
    else if (record->event == TRACE_CRASH && i < DIAGRAM_OUTAGES_MAX) {
        outages->since[i] = *record;
        outages->count += i == outages->count;
    }
}

bool diagram_holds_job(const Diagram *diagram, const TraceRecord *record)
{
    int lane = diagram_lane_of(diagram, record->actor, record->actor_client);
    if (lane == DIAGRAM_NO_LANE)
        return false;
    for (uint64_t serial = diagram->next_serial; serial-- > diagram_first_serial(diagram);) {
        const DiagramItem *item = diagram_item(diagram, serial);
        if (item->kind != DIAGRAM_ACTIVATION || item->from != lane ||
            item->end_us != SIM_TIME_NEVER)
            continue;
        /* a settled operation's job is over, whatever its box says (an at-most-once consumer
         * acknowledged on delivery sends nothing that would close it) */
        const DiagramOutcome *outcome = diagram_outcome(diagram, item->operation);
        if (outcome != NULL && !outcome->settled)
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ key stores of their own */

/* Whether store, kept by a service of kind owner, is the key store named store_id. */
static bool store_is(const Scenario *scenario, const IdempotencySpec *store, NodeKind owner,
                     const char *store_id)
{
    char id[NAME_LEN_MAX];
    scenario_key_store_id(scenario, store, owner, id);
    return strcmp(id, store_id) == 0;
}

bool diagram_store_durable(const Scenario *scenario, const char *store_id)
{
    if (store_is(scenario, &scenario->server.idempotency, NODE_SERVER, store_id))
        return scenario->server.idempotency.durable;
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        const IdempotencySpec *store = &scenario->called_servers[c].spec.idempotency;
        if (store_is(scenario, store, NODE_SERVER, store_id))
            return store->durable;
    }
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const IdempotencySpec *store = &scenario_consumer_group(scenario, g)->idempotency;
        if (store_is(scenario, store, NODE_CONSUMERS, store_id))
            return store->durable;
    }
    return true;
}

bool diagram_group_meets_store(const Scenario *scenario, uint32_t group, const char *store_id)
{
    if (group >= scenario->client_group_count || store_id == NULL)
        return false;
    const ClientGroupSpec *clients = &scenario->client_groups[group];
    bool to_server = clients->target == TARGET_SERVER;
    /* the queues reached, each broker's (queue q of one broker is not the other's) */
    uint32_t queues[DIAGRAM_BROKERS_MAX] = {0};
    if (clients->target == TARGET_BROKER && clients->broker < DIAGRAM_BROKERS_MAX)
        queues[clients->broker] = scenario_queues_reached(scenario, clients);
    uint32_t receipts_broker = scenario->server.receipts_broker < DIAGRAM_BROKERS_MAX
                                   ? scenario->server.receipts_broker
                                   : 0;
    bool calls_on = false; /* a consumer group reached calls a called server */
    /* A consumer group reached may call the first server, which may publish to another
     * group's queue: follow until nothing new is reached. */
    for (bool more = true; more;) {
        more = false;
        if (to_server && scenario_server_publishes(&scenario->server) &&
            (queues[receipts_broker] >> scenario->server.receipts_queue & 1u) == 0) {
            queues[receipts_broker] |= 1u << scenario->server.receipts_queue;
            more = true;
        }
        for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
            const ConsumerSpec *consumers = scenario_consumer_group(scenario, g);
            if (consumers->broker >= DIAGRAM_BROKERS_MAX ||
                (consumers->queue_mask & queues[consumers->broker]) == 0)
                continue;
            if (store_is(scenario, &consumers->idempotency, NODE_CONSUMERS, store_id))
                return true;
            if (consumers->use_gateway && consumers->calls_first_server && !to_server)
                more = to_server = true;
            calls_on |= consumers->use_gateway && consumers->call_server > 0;
            /* a group's own debit publishes its receipt where the server's do (ledger.c):
             * the orders' chargers send the mailers their receipts, on a second broker too */
            bool receipts = scenario->server.publish_receipts && !consumers->sends_email &&
                            !consumers->use_gateway && clients->operation.kind == OPERATION_DEBIT;
            if (receipts &&
                (queues[receipts_broker] >> scenario->server.receipts_queue & 1u) == 0) {
                queues[receipts_broker] |= 1u << scenario->server.receipts_queue;
                more = true;
            }
        }
    }
    if (to_server && store_is(scenario, &scenario->server.idempotency, NODE_SERVER, store_id))
        return true;
    /* the called servers: every one the server's chain reaches, and, where a group reached
     * calls one, every one the consumer groups' chains reach (more than this group's may: a
     * store then keeps its lane, as before) */
    unsigned servers = (to_server ? node_servers_called(scenario) : 0) |
                       (calls_on ? node_servers_called_by_consumers(scenario) : 0);
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if ((servers >> (c + 1) & 1u) != 0 &&
            store_is(scenario, &scenario->called_servers[c].spec.idempotency, NODE_SERVER,
                     store_id))
            return true;
    }
    return false;
}

bool diagram_node_drawn(const Scenario *scenario, NodeKind kind, const char *name, bool active)
{
    if (!active || kind != NODE_KEY_STORE)
        return active;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].count > 0 && diagram_group_meets_store(scenario, g, name))
            return true;
    }
    return false;
}

/* A give-up right at a timeout is one moment on the lane: the timeout mark is superseded. */
static void supersede_timeout(Diagram *diagram, const TraceRecord *record, int lane)
{
    if (diagram->next_serial <= diagram_first_serial(diagram))
        return;
    DiagramItem *last = item_at(diagram, diagram->next_serial - 1);
    if (last->kind == DIAGRAM_MARK && last->event == TRACE_TIMEOUT && last->from == lane &&
        last->operation == record->operation && last->start_us == record->t_us)
        last->superseded = true;
}

static void add_mark(Diagram *diagram, const TraceRecord *record, int lane, uint32_t effects)
{
    if (lane < 0) {
        add_row(diagram, record, lane, 0);
        return;
    }
    if (record->event == TRACE_CRASH) {
        on_crash(diagram, record, lane);
        if (diagram->windowed)
            crash_reservations(diagram, record, lane);
    } else if (record->event == TRACE_GIVE_UP)
        supersede_timeout(diagram, record, lane);
    else if (!is_client(diagram, lane))
        on_decision(diagram, record, lane, effects);
    if (record->event == TRACE_EXECUTE && diagram->open)
        diagram_add_ledger(diagram);
    DiagramItem *mark = new_item(diagram, record, DIAGRAM_MARK, lane, lane);
    mark->event = (uint8_t)record->event;
    mark->effects = effects;
    mark->start_row = add_row(diagram, record, lane, mark->serial);
    if (diagram->windowed && record->event == TRACE_RESERVE)
        open_span(diagram, record, lane, DIAGRAM_SPAN_KEY_RESERVED, 0, mark->start_row);
    /* the broker takes the message back; a fanout exchange's copies are the operation's at
     * once, in several queues: the mark's queue says whose (a copy dead-lettered or discarded
     * at its channel's closing has no answer nor next delivery to end its timer) */
    if (record->event == TRACE_NACKED || record->event == TRACE_REDELIVER ||
        record->event == TRACE_DEAD_LETTER || record->event == TRACE_DISCARD) {
        if (!lane_rules(diagram, lane)->copies_published)
            end_ack_timer(diagram, record, lane, -1, TIMER_OF_OPERATION, 0);
        else if (mark->queue > 0)
            end_ack_timer(diagram, record, lane, -1, TIMER_OF_QUEUE, mark->queue);
    }
    double dedup_window_ms = diagram->windowed && record->event == TRACE_ENQUEUE
                                 ? diagram->windows.dedup_window_ms[lane_broker(diagram, lane)]
                                 : 0; /* the window of the broker that accepted it */
    if (dedup_window_ms > 0)
        open_span(diagram, record, lane, DIAGRAM_SPAN_DEDUP_WINDOW, dedup_window_ms,
                  mark->start_row);
}

/* ------------------------------------------------------------------ outcomes */

bool diagram_follow(Diagram *diagram, uint64_t operation)
{
    if (diagram->followed_count == DIAGRAM_FOLLOWED_MAX)
        return false;
    diagram->followed[diagram->followed_count++] = (DiagramOutcome){.operation = operation};
    return true;
}

const DiagramOutcome *diagram_outcome(const Diagram *diagram, uint64_t operation)
{
    for (uint32_t i = 0; i < diagram->followed_count; i++) {
        if (diagram->followed[i].operation == operation)
            return &diagram->followed[i];
    }
    return NULL;
}

/* A crash and a restart name the job that crashed the process, not a step of its own. */
static void follow(Diagram *diagram, const TraceRecord *record, uint32_t *effects)
{
    TraceEvent event = record->event;
    DiagramOutcome *outcome = (DiagramOutcome *)diagram_outcome(diagram, record->operation);
    if (outcome == NULL || event == TRACE_CRASH || event == TRACE_RESTART || event == TRACE_SWEEP)
        return;
    outcome->clicks += event == TRACE_SEND;
    outcome->attempts += event == TRACE_SEND || event == TRACE_RETRY;
    outcome->effects += event == TRACE_EXECUTE;
    outcome->effects -= event == TRACE_ROLLBACK && outcome->effects > 0; /* not committed */
    outcome->refunds += event == TRACE_REFUNDED;
    outcome->told_success |= event == TRACE_SUCCEEDED;
    outcome->told_failure |= event == TRACE_FAILED;
    if (event == TRACE_SETTLED && record->detail < OUTCOME_COUNT) {
        outcome->settled = true;
        outcome->outcome = (Outcome)record->detail;
    }
    *effects = outcome->effects;
}

/* ------------------------------------------------------------------ feeding */

void diagram_add(Diagram *diagram, const TraceRecord *record, uint32_t effects)
{
    if (record->mode != diagram->mode)
        return;
    follow(diagram, record, &effects);
    TraceEvent event = record->event;
    if (event == TRACE_SETTLED || event == TRACE_SWEEP)
        return; /* an outcome and a housekeeping count: no place on a lane */
    if (diagram->rows_max > 0 && diagram->row_count == diagram->rows_max)
        diagram->truncated = true;
    if (diagram->truncated)
        return;
    if (event == TRACE_DUPLICATE) {
        diagram->duplicate_operation = record->operation;
        diagram->duplicate_click = record->click;
        diagram->duplicate_attempt = record->attempt;
        diagram->duplicate_copy = record->copy;
        return; /* the copy's own transmit (or loss) follows */
    }
    int actor = lane_for(diagram, record->actor, record->actor_client, record->actor_kind,
                         record->actor_name);
    if (event == TRACE_TRANSMIT || event == TRACE_LOST)
        on_transmit(diagram, record, actor);
    else if (event == TRACE_DELIVER)
        on_deliver(diagram, record, actor);
    else
        add_mark(diagram, record, actor, effects);
}

/* ------------------------------------------------------------------ reading */

Mode diagram_mode(const Diagram *diagram)
{
    return diagram->mode;
}

uint32_t diagram_lane_count(const Diagram *diagram)
{
    return diagram->lane_count;
}

const DiagramLane *diagram_lane(const Diagram *diagram, int lane)
{
    return lane >= 0 && (uint32_t)lane < diagram->lane_count ? &diagram->lanes[lane] : NULL;
}

/* Clients, then services, then the ledger; by order, then by when the lane was added. */
static uint64_t lane_rank(const DiagramLane *lane)
{
    uint64_t side = lane->ledger ? 2 : lane->kind == NODE_CLIENT_GROUP ? 0 : 1;
    return side << 32 | (lane->ledger ? 0 : lane->order);
}

int diagram_lane_at(const Diagram *diagram, uint32_t position)
{
    for (uint32_t i = 0; i < diagram->lane_count; i++) {
        uint32_t before = 0;
        uint64_t rank = lane_rank(&diagram->lanes[i]);
        for (uint32_t j = 0; j < diagram->lane_count; j++) {
            uint64_t other = lane_rank(&diagram->lanes[j]);
            before += other < rank || (other == rank && j < i);
        }
        if (before == position)
            return (int)i;
    }
    return DIAGRAM_NO_LANE;
}

int diagram_ledger(const Diagram *diagram)
{
    return diagram->ledger;
}

uint64_t diagram_first_serial(const Diagram *diagram)
{
    return diagram->next_serial > diagram->items_max ? diagram->next_serial - diagram->items_max
                                                     : 1;
}

uint64_t diagram_next_serial(const Diagram *diagram)
{
    return diagram->next_serial;
}

const DiagramItem *diagram_item(const Diagram *diagram, uint64_t serial)
{
    if (serial < diagram_first_serial(diagram) || serial >= diagram->next_serial)
        return NULL;
    return item_at(diagram, serial);
}

uint32_t diagram_row_count(const Diagram *diagram)
{
    return diagram->row_count;
}

bool diagram_truncated(const Diagram *diagram)
{
    return diagram->truncated;
}

const DiagramRow *diagram_row(const Diagram *diagram, uint32_t row)
{
    return row < diagram->row_count ? &diagram->rows[row] : NULL;
}

/* ------------------------------------------------------------------ reading order */

/* Within one instant an arrival comes first, then what the node decides, then what it
 * sends; a phone going offline is drawn after the request it just sent. */
static uint32_t instant_rank(const DiagramRow *row)
{
    if (row->event == TRACE_DELIVER)
        return 0;
    if (row->event == TRACE_TRANSMIT || row->event == TRACE_LOST)
        return 2;
    return row->event == TRACE_OFFLINE ? 3 : 1;
}

/* Orders the rows of one instant: each lane's rows stay together (lanes in the order they
 * first appear), and within a lane by instant_rank. Across lanes the model's order is kept,
 * so causality between nodes is never reversed. */
static void order_instant(const Diagram *diagram, uint32_t *order, uint32_t first, uint32_t end)
{
    enum { INSTANT_MAX = 64 };
    if (end - first > INSTANT_MAX)
        return; /* a crowded instant keeps the model's order */
    int lane[INSTANT_MAX];
    uint32_t key[INSTANT_MAX]; /* by row index - first */
    for (uint32_t i = first; i < end; i++) {
        lane[i - first] = diagram->rows[i].lane;
        uint32_t appearance = i - first;
        for (uint32_t j = first; j < i && appearance == i - first; j++) {
            if (lane[j - first] == lane[i - first])
                appearance = key[j - first] / 4;
        }
        key[i - first] = appearance * 4 + instant_rank(&diagram->rows[i]);
    }
    /* Insertion sort: stable, and an instant holds a handful of rows. */
    for (uint32_t i = first + 1; i < end; i++) {
        uint32_t moving = order[i], j = i;
        while (j > first && key[order[j - 1] - first] > key[moving - first]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = moving;
    }
}

void diagram_row_order(const Diagram *diagram, uint32_t *order)
{
    uint32_t count = diagram->row_count;
    for (uint32_t i = 0; i < count; i++)
        order[i] = i;
    for (uint32_t first = 0, end; first < count; first = end) {
        SimTimeUs t = diagram->rows[first].t_us;
        for (end = first + 1; end < count && diagram->rows[end].t_us == t; end++) {
        }
        order_instant(diagram, order, first, end);
    }
}
