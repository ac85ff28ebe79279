/* The pane's TraceSink. The network reports every copy of every message as "transmit" (or
 * "lost") at its source and "deliver" at its target, with both ends named, so each copy of a
 * sampled client's operation becomes an arrow with its true send and arrival times. A copy
 * arriving at a service (request, delivery, charge) opens an activation box on that
 * lifeline, closed by the answer it sends (whose lineage is the request's times 2, or 64
 * for the broker's deliveries), by a decision that ends the job at once (replay, 409, 422,
 * refused) or by a crash. Decisions and client events become marks. Records borrow their
 * strings for the call, so nothing keeps them. Every record also feeds the density band
 * and the narration, whichever client it concerns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_pane.h"

#define PAIRING_SCAN_MAX 4096

/* ------------------------------------------------------------------ the ring */

static ViewArrow *new_arrow(ViewPane *pane, const TraceRecord *record, ViewArrowKind kind, int from,
                            int to)
{
    ViewArrow *arrow = &pane->arrows[pane->arrow_serial % VIEW_ARROWS_MAX];
    *arrow = (ViewArrow){
        .serial = pane->arrow_serial++,
        .operation = record->operation,
        .start_us = record->t_us,
        .end_us = SIM_TIME_NEVER,
        .attempt = record->attempt,
        .copy = record->copy,
        .value = (int32_t)record->value,
        .from = (int8_t)from,
        .to = (int8_t)to,
        .kind = (uint8_t)kind,
        .event = VIEW_EVENT_NONE,
        .end_event = VIEW_EVENT_NONE,
    };
    return arrow;
}

typedef struct {
    ViewArrowKind kind;
    int from, to; /* -1: any */
    int message;  /* -1: any */
    uint64_t operation;
    uint32_t attempt;
    uint32_t copy;
    bool open_only;
} Query;

/* The newest arrow that matches; the partner of a record is always recent. */
static ViewArrow *find_arrow(ViewPane *pane, const Query *query)
{
    uint64_t first = view_pane_first_serial(pane);
    uint64_t scanned = 0;
    for (uint64_t serial = pane->arrow_serial; serial-- > first && scanned < PAIRING_SCAN_MAX;
         scanned++) {
        ViewArrow *arrow = &pane->arrows[serial % VIEW_ARROWS_MAX];
        if (arrow->kind != query->kind || arrow->operation != query->operation ||
            arrow->attempt != query->attempt || arrow->copy != query->copy)
            continue;
        if ((query->from >= 0 && arrow->from != query->from) ||
            (query->to >= 0 && arrow->to != query->to) ||
            (query->message >= 0 && arrow->message != query->message))
            continue;
        if (query->open_only && arrow->end_us != SIM_TIME_NEVER)
            continue;
        return arrow;
    }
    return NULL;
}

static bool starts_a_job(MessageKind message)
{
    return message == MESSAGE_REQUEST || message == MESSAGE_DELIVERY || message == MESSAGE_CHARGE;
}

/* ------------------------------------------------------------------ messages */

static void close_activation(ViewPane *pane, int node, const TraceRecord *record, uint32_t copy,
                             TraceEvent why)
{
    Query query = {VIEW_ARROW_ACTIVATION, node, -1,  -1, record->operation,
                   record->attempt,       copy, true};
    ViewArrow *activation = find_arrow(pane, &query);
    if (activation != NULL) {
        activation->end_us = record->t_us;
        activation->end_event = (uint8_t)why;
    }
}

/* A copy leaves its source (or is lost there). An answer leaving a service closes the job
 * it answers. */
static void on_transmit(ViewPane *pane, const TraceRecord *record, TraceEvent event)
{
    int from = view_pane_node_of(pane, record->actor, record->actor_client);
    int to = view_pane_node_of(pane, record->peer, record->peer_client);
    if (from < 0 || to < 0)
        return;
    ViewArrow *arrow = new_arrow(pane, record, VIEW_ARROW_MESSAGE, from, to);
    arrow->message = (uint8_t)record->message;
    arrow->duplicate = pane->duplicate_operation == record->operation &&
                       pane->duplicate_attempt == record->attempt &&
                       pane->duplicate_copy == record->copy;
    if (from < VIEW_NODE_SERVER && pane->click_operation == record->operation)
        arrow->value = (int32_t)pane->click; /* which click sent it: a double click is two */
    if (event == TRACE_LOST) {
        arrow->end_us = record->t_us;
        arrow->end_event = TRACE_LOST;
    }
    /* Each hop doubles the lineage (x2, +1 for a duplicate); the broker's deliveries and the
     * server's charges and receipts start a sub-lineage (x64 + number). The broker holds a
     * message until it delivers it; its confirm to the publisher does not end that. */
    if (from < VIEW_NODE_SERVER)
        return;
    if (arrow->message == MESSAGE_DELIVERY)
        close_activation(pane, from, record, record->copy / 128, TRACE_TRANSMIT);
    else if (!starts_a_job((MessageKind)arrow->message) && from != VIEW_NODE_BROKER)
        close_activation(pane, from, record, record->copy / 2, TRACE_TRANSMIT);
}

static void on_deliver(ViewPane *pane, const TraceRecord *record)
{
    int to = view_pane_node_of(pane, record->actor, record->actor_client);
    int from = view_pane_node_of(pane, record->peer, record->peer_client);
    if (from < 0 || to < 0)
        return;
    MessageKind message = record->message;
    Query query = {VIEW_ARROW_MESSAGE, from,         to,  (int)message, record->operation,
                   record->attempt,    record->copy, true};
    ViewArrow *arrow = find_arrow(pane, &query);
    if (arrow != NULL) {
        arrow->end_us = record->t_us;
        arrow->end_event = TRACE_DELIVER;
    }
    if (to >= VIEW_NODE_SERVER && starts_a_job(message)) {
        ViewArrow *job = new_arrow(pane, record, VIEW_ARROW_ACTIVATION, to, to);
        job->message = (uint8_t)message;
    }
}

/* ------------------------------------------------------------------ decisions */

static bool ends_the_job(const ViewPane *pane, TraceEvent event, int node)
{
    switch (event) {
    case TRACE_REPLAY:
    case TRACE_IN_PROGRESS:
    case TRACE_REJECT_OTHER_BODY:
    case TRACE_REFUSED_DOWN:
    case TRACE_CHARGED_NO_ANSWER:
        return true;
    case TRACE_EXECUTE:
    case TRACE_EXECUTE_NO_EFFECT:
    case TRACE_SEND_RECEIPT:
        /* at-most-once consumers acknowledge on delivery: nothing closes their job */
        return node == VIEW_NODE_CONSUMERS && pane->mode == MODE_AT_MOST_ONCE;
    default:
        return false;
    }
}

/* The answer a decision produced left just before its record (the model answers, then
 * traces): colour it by the decision. */
static void tag_answer(ViewPane *pane, const TraceRecord *record, int node, TraceEvent event)
{
    for (uint32_t copy = record->copy * 2; copy <= record->copy * 2 + 1; copy++) {
        Query query = {VIEW_ARROW_MESSAGE, node, -1,   -1, record->operation,
                       record->attempt,    copy, false};
        ViewArrow *answer = find_arrow(pane, &query);
        if (answer != NULL)
            answer->event = (uint8_t)event;
    }
}

static void on_decision(ViewPane *pane, const TraceRecord *record, TraceEvent event, int node,
                        uint32_t effects)
{
    Query query = {VIEW_ARROW_ACTIVATION, node,         -1,   -1, record->operation,
                   record->attempt,       record->copy, false};
    ViewArrow *job = find_arrow(pane, &query);
    if (job != NULL && (job->event == VIEW_EVENT_NONE || event == TRACE_EXECUTE)) {
        job->event = (uint8_t)event;
        job->effects = (uint16_t)effects;
    }
    if (event == TRACE_EXECUTE) {
        Query incoming = {VIEW_ARROW_MESSAGE, -1,           node, -1, record->operation,
                          record->attempt,    record->copy, false};
        ViewArrow *cause = find_arrow(pane, &incoming);
        if (cause != NULL) {
            cause->event = (uint8_t)event;
            cause->effects = (uint16_t)effects;
        }
    }
    if (event == TRACE_REPLAY || event == TRACE_IN_PROGRESS || event == TRACE_REJECT_OTHER_BODY)
        tag_answer(pane, record, node, event);
    if (ends_the_job(pane, event, node))
        close_activation(pane, node, record, record->copy, event);
    ViewArrow *mark = new_arrow(pane, record, VIEW_ARROW_MARK, node, node);
    mark->event = (uint8_t)event;
    mark->effects = (uint16_t)effects;
}

/* A crash ends every job the process held, sampled or not. */
static void on_crash(ViewPane *pane, const TraceRecord *record, int node)
{
    uint64_t first = view_pane_first_serial(pane);
    for (uint64_t serial = pane->arrow_serial; serial-- > first;) {
        ViewArrow *arrow = &pane->arrows[serial % VIEW_ARROWS_MAX];
        if (arrow->kind == VIEW_ARROW_ACTIVATION && arrow->from == node &&
            arrow->end_us == SIM_TIME_NEVER) {
            arrow->end_us = record->t_us;
            arrow->end_event = TRACE_CRASH;
        }
    }
    new_arrow(pane, record, VIEW_ARROW_MARK, node, node)->event = TRACE_CRASH;
}

/* ------------------------------------------------------------------ client marks */

static void on_client_event(ViewPane *pane, const TraceRecord *record, TraceEvent event, int lane)
{
    /* A give-up right at a timeout is one moment on the lane: one mark, the give-up. */
    ViewArrow *last = pane->arrow_serial > view_pane_first_serial(pane)
                          ? &pane->arrows[(pane->arrow_serial - 1) % VIEW_ARROWS_MAX]
                          : NULL;
    if (event == TRACE_GIVE_UP && last != NULL && last->kind == VIEW_ARROW_MARK &&
        last->event == TRACE_TIMEOUT && last->operation == record->operation &&
        last->start_us == record->t_us) {
        last->event = TRACE_GIVE_UP;
        return;
    }
    new_arrow(pane, record, VIEW_ARROW_MARK, lane, lane)->event = (uint8_t)event;
}

static void ingest_arrow(ViewPane *pane, const TraceRecord *record, TraceEvent event, int actor,
                         uint32_t effects)
{
    switch (event) {
    case TRACE_TRANSMIT:
    case TRACE_LOST:
        on_transmit(pane, record, event);
        return;
    case TRACE_DELIVER:
        on_deliver(pane, record);
        return;
    case TRACE_DUPLICATE:
        pane->duplicate_operation = record->operation;
        pane->duplicate_attempt = record->attempt;
        pane->duplicate_copy = record->copy;
        return;
    case TRACE_SEND:
    case TRACE_RETRY:
        pane->click_operation = record->operation;
        pane->click = record->click;
        return; /* the transmit that follows draws it */
    case VIEW_EVENT_NONE:
        return;
    default:
        break;
    }
    if (actor < 0)
        return;
    if (actor < VIEW_NODE_SERVER)
        on_client_event(pane, record, event, actor);
    else
        on_decision(pane, record, event, actor, effects);
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
        return 3;
    case TRACE_GIVE_UP:
    case TRACE_FAILED:
    case TRACE_CRASH:
    case TRACE_DEAD_LETTER:
    case TRACE_CHARGED_NO_ANSWER:
    case TRACE_GATEWAY_TIMEOUT:
    case TRACE_FAIL_AFTER_EFFECT:
    case TRACE_REDELIVER:
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
    case VIEW_EVENT_NONE:
        return -1; /* never narrated: too frequent, or said by another record */
    default:
        return 1;
    }
}

static void narrate(ViewPane *pane, const TraceRecord *record, TraceEvent event,
                    const OperationView *view, uint32_t effects)
{
    MessageKind message = record->message;
    bool lost_answer = event == TRACE_LOST && !starts_a_job(message);
    int rank = rank_of(event, effects, record->value, lost_answer);
    ViewNarration *line = &pane->narration;
    bool stale = !line->present || record->t_us >= line->t_us + pane->narration_hold_us;
    if (rank < 0 || (!stale && (rank < line->rank || rank == 0)))
        return;
    *line = (ViewNarration){
        .present = true,
        .event = event,
        .node = view_pane_node_of(pane, record->actor, record->actor_client),
        .message = (uint8_t)message,
        .rank = rank,
        .t_us = record->t_us,
        .operation = record->operation,
        .attempt = record->attempt,
        .group = view ? view->group : 0,
        .client_in_group = view ? view->client_in_group : 0,
        .effects = effects,
        .value = record->value,
    };
    if (line->node >= 0 && line->node < VIEW_NODE_SERVER)
        line->node = -1; /* a sampled client: its name comes from group and index */
    line->detail = record->detail;
}

/* ------------------------------------------------------------------ the sink */

static int lane_of(const ViewPane *pane, const OperationView *view)
{
    for (uint32_t l = 0; l < pane->lane_count; l++) {
        if (pane->lanes[l].group == view->group &&
            pane->lanes[l].client_in_group == view->client_in_group)
            return (int)l;
    }
    return -1;
}

/* Events of no operation: a service crashed or restarted, the key store was swept. */
static void on_service_record(ViewPane *pane, const TraceRecord *record, TraceEvent event)
{
    int actor = view_pane_node_of(pane, record->actor, record->actor_client);
    if (event == TRACE_CRASH && actor >= VIEW_NODE_SERVER)
        on_crash(pane, record, actor);
    else if (event == TRACE_RESTART && actor >= VIEW_NODE_SERVER)
        new_arrow(pane, record, VIEW_ARROW_MARK, actor, actor)->event = TRACE_RESTART;
    narrate(pane, record, event, NULL, 0);
}

static void on_record(void *context, const TraceRecord *record)
{
    ViewPane *pane = context;
    TraceEvent event = record->event;
    pane->records++;
    pane->records_by_event[event]++;
    if (pane->world == NULL || event == TRACE_SETTLED)
        return; /* the counters read the outcomes from the world's metrics */
    if (event == TRACE_SWEEP || event == TRACE_RESTART || event == TRACE_CRASH) {
        on_service_record(pane, record, event);
        return;
    }
    OperationView view;
    if (!world_operation_view(pane->world, record->operation, &view))
        return;
    uint32_t effects = view.effects; /* in progress while it is being traced */
    if (lane_of(pane, &view) >= 0)
        ingest_arrow(pane, record, event,
                     view_pane_node_of(pane, record->actor, record->actor_client), effects);
    ingest_density(pane, record, event, effects);
    narrate(pane, record, event, &view, effects);
}

TraceSink view_trace_sink(ViewPane *pane)
{
    return (TraceSink){.write = on_record, .context = pane};
}
