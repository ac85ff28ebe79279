/* The diagram model read as text. Rows come in record order, which is the order things
 * happened (a record is written when its step happens); a message is told once, when it is
 * sent, with its fate (arrived when, or lost), since the model pairs it with its delivery. */
#include "explain.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diagram.h"
#include "node_kind.h"

#define EXPLAIN_ITEMS_MAX 8192
#define EXPLAIN_ROWS_MAX 4096
#define EXPLAIN_STORE_EVENTS_MAX 16
#define EXPLAIN_NODES_MAX (CLIENT_GROUPS_MAX + SCENARIO_NODES_MAX)
#define EXPLAIN_OUTAGE_ITEMS_MAX 256

/* The items one record of a node going down or coming back made: serials [first, end). */
typedef struct {
    uint64_t first_serial;
    uint64_t end_serial;
    uint32_t node;
} OutageItems;

struct Explain {
    Mode mode;
    uint64_t operation;
    Diagram *diagram;
    uint32_t caught[TRACE_EVENT_COUNT]; /* the operation's decisions and effects, by event */
    bool started;                       /* a record of the operation was seen */
    /* C38: a key store's own crashes and restarts belong to no operation; those that happen
     * between two of the operation's records are told in its story, in their place */
    uint32_t store_event_count;
    TraceRecord store_events[EXPLAIN_STORE_EVENTS_MAX];
    /* a process that crashed holding one of the operation's jobs (a crash another job set
     * off): its crash is told, and its restart as a store's is */
    uint32_t crashed_count;
    uint32_t crashed[EXPLAIN_STORE_EVENTS_MAX];
    /* before the story starts: the nodes down (a key store's own crash, a server's outage),
     * told first when the story starts within their time down (its requests meet them down) */
    DiagramOutages down;
    /* The nodes the story meets, by service (a service's instances go down and come back
     * together in an outage): service_of maps a node id to its service's first node, or to
     * itself; a node that keeps its keys in a store that crashes on its own (C38) meets that
     * store too (store_of, else TRACE_NO_NODE). met is by service's first node. */
    uint32_t service_of[EXPLAIN_NODES_MAX];
    uint32_t store_of[EXPLAIN_NODES_MAX];
    bool met[EXPLAIN_NODES_MAX];
    /* The items told for a node going down or coming back (diagram_down_edge), each with
     * that node: written only if the story met the node, since an outage of a store or a
     * server the operation never reaches is none of its story (two consumer groups, each
     * with its own store). Past the last, items are told. */
    uint32_t outage_item_count;
    OutageItems outage_items[EXPLAIN_OUTAGE_ITEMS_MAX];
};

/* The key store node (C38: one that crashes on its own) of the key store number: 0 the first
 * server's, g + 1 consumer group g's (scenario_service_nodes); TRACE_NO_NODE when that store
 * does not crash. */
static uint32_t crashing_store_node(const ScenarioNode *nodes, unsigned count, uint32_t groups,
                                    uint32_t number)
{
    for (unsigned i = 0; i < count; i++) {
        if (nodes[i].kind == NODE_KEY_STORE && nodes[i].number == number)
            return groups + i;
    }
    return TRACE_NO_NODE;
}

/* Which service each node belongs to, and which crashing store each consults, as the world
 * wires them: the first server's store serves the called servers that name it and, when it
 * names it, the first consumer group; each other consumer group has its own. */
static void map_nodes(Explain *explain, const Scenario *scenario)
{
    uint32_t groups = scenario->client_group_count;
    for (uint32_t n = 0; n < EXPLAIN_NODES_MAX; n++) {
        explain->service_of[n] = n;
        explain->store_of[n] = TRACE_NO_NODE;
    }
    ScenarioNode *nodes = calloc(SCENARIO_NODES_MAX, sizeof *nodes);
    if (nodes == NULL)
        return; /* every node its own service, no store met: every outage is told */
    unsigned count = scenario_service_nodes(scenario, nodes);
    for (unsigned i = 0; i < count && groups + i < EXPLAIN_NODES_MAX; i++) {
        const ScenarioNode *node = &nodes[i];
        for (unsigned j = 0; j < i; j++) {
            if (nodes[j].kind == node->kind && strcmp(nodes[j].service, node->service) == 0) {
                explain->service_of[groups + i] = groups + j;
                break;
            }
        }
        bool server_store = (node->kind == NODE_SERVER &&
                             (node->number == 0 || scenario_called_store_shared_with(
                                                       scenario, node->number - 1) == 0)) ||
                            (node->kind == NODE_CONSUMERS && node->number == 0 &&
                             scenario_consumers_share_server_store(scenario));
        if (server_store)
            explain->store_of[groups + i] = crashing_store_node(nodes, count, groups, 0);
        else if (node->kind == NODE_CONSUMERS)
            explain->store_of[groups + i] =
                crashing_store_node(nodes, count, groups, node->number + 1);
    }
    free(nodes);
}

/* The story reached the record's actor (and so the store it consults) and its peer's
 * service (a request to a server down meets the outage, reset before it arrives). */
static void meet(Explain *explain, const TraceRecord *record)
{
    if (record->actor < EXPLAIN_NODES_MAX) {
        explain->met[explain->service_of[record->actor]] = true;
        uint32_t store = explain->store_of[record->actor];
        if (store < EXPLAIN_NODES_MAX)
            explain->met[explain->service_of[store]] = true;
    }
    if (record->peer < EXPLAIN_NODES_MAX)
        explain->met[explain->service_of[record->peer]] = true;
}

/* Feeds a record to the diagram, remembering the items of a node's going down or coming
 * back, so that write_steps tells them only if the story met the node. */
static void tell(Explain *explain, const TraceRecord *record)
{
    uint64_t first = diagram_next_serial(explain->diagram);
    diagram_add(explain->diagram, record, 0);
    if (!diagram_down_edge(record) || explain->outage_item_count == EXPLAIN_OUTAGE_ITEMS_MAX)
        return;
    explain->outage_items[explain->outage_item_count++] =
        (OutageItems){first, diagram_next_serial(explain->diagram), record->actor};
}

Explain *explain_create(const Scenario *scenario, Mode mode, uint64_t operation)
{
    Explain *explain = calloc(1, sizeof *explain);
    if (explain == NULL)
        return NULL;
    explain->mode = mode;
    explain->operation = operation;
    explain->diagram = diagram_create(mode, EXPLAIN_ITEMS_MAX, EXPLAIN_ROWS_MAX);
    if (explain->diagram == NULL) {
        free(explain);
        return NULL;
    }
    diagram_open_lanes(explain->diagram, true);
    diagram_set_broker_rules(explain->diagram, scenario);
    diagram_follow(explain->diagram, operation);
    map_nodes(explain, scenario);
    return explain;
}

void explain_destroy(Explain *explain)
{
    if (explain == NULL)
        return;
    diagram_destroy(explain->diagram);
    free(explain);
}

/* Whether the record is the restart of a process told crashing while it held one of the
 * operation's jobs (and forgets it: its next crash is judged again). */
static bool restarts_a_crashed_holder(Explain *explain, const TraceRecord *record)
{
    for (uint32_t i = 0; i < explain->crashed_count && record->event == TRACE_RESTART; i++) {
        if (explain->crashed[i] == record->actor) {
            explain->crashed[i] = explain->crashed[--explain->crashed_count];
            return true;
        }
    }
    return false;
}

/* The story starts: an outage it starts within is its first line, and its restart is told
 * where it falls (a key store's is anyway). */
static void tell_outages_under_way(Explain *explain)
{
    for (uint32_t i = 0; i < explain->down.count; i++) {
        const TraceRecord *crash = &explain->down.since[i];
        tell(explain, crash);
        if (!diagram_crashes_alone(crash) && explain->crashed_count < EXPLAIN_STORE_EVENTS_MAX)
            explain->crashed[explain->crashed_count++] = crash->actor;
    }
    explain->down.count = 0;
}

static void tell_pending(Explain *explain)
{
    for (uint32_t i = 0; i < explain->store_event_count; i++)
        tell(explain, &explain->store_events[i]);
    explain->store_event_count = 0; /* those after its last record are not its story */
}

static void collect(void *context, const TraceRecord *record)
{
    Explain *explain = context;
    if (record->mode != explain->mode)
        return;
    if (!explain->started && diagram_down_edge(record)) {
        diagram_outages_note(&explain->down, record);
        return;
    }
    if (explain->started &&
        (diagram_crashes_alone(record) || restarts_a_crashed_holder(explain, record))) {
        if (explain->store_event_count < EXPLAIN_STORE_EVENTS_MAX)
            explain->store_events[explain->store_event_count++] = *record;
        return;
    }
    /* another job's crash, or an outage's (of no operation, though its record's operation
     * reads 0: operation 0 is a real one, issue 24), ends its job */
    if (explain->started && record->event == TRACE_CRASH &&
        (record->no_operation || record->operation != explain->operation) &&
        diagram_holds_job(explain->diagram, record)) {
        tell_pending(explain);
        diagram_add(explain->diagram, record, 0);
        if (explain->crashed_count < EXPLAIN_STORE_EVENTS_MAX)
            explain->crashed[explain->crashed_count++] = record->actor;
        return;
    }
    /* a server's outage that starts within the story while it holds none of its jobs: told
     * in its place, as a key store's crash is, with its restart (the story's next requests
     * there meet resets, which would otherwise have no cause) */
    if (explain->started && record->event == TRACE_CRASH && diagram_down_edge(record)) {
        if (explain->store_event_count < EXPLAIN_STORE_EVENTS_MAX)
            explain->store_events[explain->store_event_count++] = *record;
        if (explain->crashed_count < EXPLAIN_STORE_EVENTS_MAX)
            explain->crashed[explain->crashed_count++] = record->actor;
        return;
    }
    if (record->no_operation || record->operation != explain->operation)
        return;
    if (!explain->started)
        tell_outages_under_way(explain);
    tell_pending(explain);
    if (record->event == TRACE_CRASH && explain->crashed_count < EXPLAIN_STORE_EVENTS_MAX)
        explain->crashed[explain->crashed_count++] = record->actor; /* its restart is told too */
    explain->started = true;
    meet(explain, record);
    explain->caught[record->event]++;
    diagram_add(explain->diagram, record, 0);
}

TraceSink explain_sink(Explain *explain)
{
    return (TraceSink){.write = collect, .context = explain};
}

/* ------------------------------------------------------------------ writing */

static const char *lane_name(const Diagram *diagram, int lane)
{
    const DiagramLane *entry = lane >= 0 ? diagram_lane(diagram, lane) : NULL;
    return entry != NULL ? entry->name : "?";
}

static NodeKind lane_kind(const Diagram *diagram, int lane)
{
    const DiagramLane *entry = lane >= 0 ? diagram_lane(diagram, lane) : NULL;
    return entry != NULL ? entry->kind : NODE_KIND_COUNT;
}

static void write_message(FILE *stream, const Diagram *diagram, const DiagramItem *message,
                          DiagramOperationWords words)
{
    char label[96], tag[48];
    diagram_message_label(message, label, sizeof label);
    bool tagged =
        diagram_message_tag(message, lane_kind(diagram, message->from), words, tag, sizeof tag);
    fprintf(stream, "%s -> %s: %s%s%s%s", lane_name(diagram, message->from),
            lane_name(diagram, message->to), label, tagged ? " (" : "", tagged ? tag : "",
            tagged ? ")" : "");
    if (message->end_event == TRACE_LOST)
        fprintf(stream, ", LOST by the network\n");
    else if (message->end_us != SIM_TIME_NEVER)
        fprintf(stream, ", arrives at %.3f s\n", (double)message->end_us / 1e6);
    else
        fprintf(stream, ", never arrives\n");
}

/* Whether the item tells a node going down or coming back that the story never met. */
static bool outage_not_met(const Explain *explain, uint64_t serial)
{
    for (uint32_t i = 0; i < explain->outage_item_count; i++) {
        const OutageItems *items = &explain->outage_items[i];
        if (serial >= items->first_serial && serial < items->end_serial)
            return items->node < EXPLAIN_NODES_MAX &&
                   !explain->met[explain->service_of[items->node]];
    }
    return false;
}

static void write_steps(FILE *stream, const Explain *explain, const Scenario *scenario,
                        DiagramOperationWords words)
{
    const Diagram *diagram = explain->diagram;
    for (uint32_t r = 0; r < diagram_row_count(diagram); r++) {
        const DiagramRow *row = diagram_row(diagram, r);
        const DiagramItem *item = diagram_item(diagram, row->item);
        if (item == NULL || item->kind == DIAGRAM_ACTIVATION || item->superseded ||
            outage_not_met(explain, row->item))
            continue;
        if (item->kind == DIAGRAM_MESSAGE && item->start_row != r)
            continue; /* told when sent */
        fprintf(stream, "  %9.3f s  ", (double)row->t_us / 1e6);
        if (item->kind == DIAGRAM_MESSAGE) {
            write_message(stream, diagram, item, words);
            continue;
        }
        char label[128];
        const DiagramLane *lane = diagram_lane(diagram, item->from);
        diagram_mark_badge(item, lane_kind(diagram, item->from),
                           diagram_lane_words(scenario, lane, words), label, sizeof label);
        fprintf(stream, "%s: %s", lane_name(diagram, item->from), label);
        if (item->kind == DIAGRAM_MARK && item->event == TRACE_CRASH &&
            item->operation != explain->operation && item->detail != CRASH_NONE &&
            node_kind_info(lane_kind(diagram, item->from))->crash_loses == NULL)
            fprintf(stream, " at operation %" PRIu64 "'s step; this one's job dies with it",
                    item->operation);
        fprintf(stream, "\n");
    }
    if (diagram_truncated(diagram))
        fprintf(stream, "  ... (more steps than this explanation keeps)\n");
}

/* Which layer caught the operation's duplicates, by the decisions the trace recorded. */
static void write_layers(FILE *stream, const Explain *explain, const DiagramOutcome *outcome)
{
    const uint32_t *caught = explain->caught;
    uint32_t at_store = caught[TRACE_REPLAY] + caught[TRACE_IN_PROGRESS] +
                        caught[TRACE_REJECT_OTHER_BODY] + caught[TRACE_FENCED];
    fprintf(stream, "  caught: ");
    bool any = false;
    if (at_store > 0) {
        fprintf(stream, "%u by a key store (replay %u, in progress %u, other body %u, fenced %u)",
                at_store, caught[TRACE_REPLAY], caught[TRACE_IN_PROGRESS],
                caught[TRACE_REJECT_OTHER_BODY], caught[TRACE_FENCED]);
        any = true;
    }
    if (caught[TRACE_DEDUPLICATED] > 0) {
        fprintf(stream, "%s%u by the broker's dedup window", any ? "; " : "",
                caught[TRACE_DEDUPLICATED]);
        any = true;
    }
    if (caught[TRACE_ROLLBACK] > 0) {
        fprintf(stream, "%s%u rolled back by a transaction", any ? "; " : "",
                caught[TRACE_ROLLBACK]);
        any = true;
    }
    if (!any)
        fprintf(stream, "none");
    if (outcome != NULL && outcome->effects >= 2)
        fprintf(stream, "; NOT caught: %u extra effect%s", outcome->effects - 1,
                outcome->effects == 2 ? "" : "s");
    fputc('\n', stream);
}

/* C35: a second hold on the card is what the customer sees although one charge was made
 * (the run's double_holds): the outcome says so, and how many the caller voided. One hold is
 * every authorised payment's, not worth a word. */
static void write_holds(char *text, size_t size, const Explain *explain)
{
    uint32_t holds = explain->caught[TRACE_AUTHORISED];
    uint32_t voids = explain->caught[TRACE_VOIDED];
    if (holds < 2)
        return;
    int written = snprintf(text, size, ", %u holds on the card", holds);
    if (voids > 0 && written > 0 && (size_t)written < size)
        snprintf(text + written, size - (size_t)written, " (%u voided)", voids);
}

bool explain_write(FILE *stream, const Explain *explain, const Scenario *scenario)
{
    const DiagramOutcome *outcome = diagram_outcome(explain->diagram, explain->operation);
    bool debit = true;
    fprintf(stream, "%s: operation %" PRIu64 "\n", mode_name(explain->mode), explain->operation);
    if (outcome == NULL || outcome->attempts == 0) {
        fprintf(stream, "  (no such operation in this run)\n");
        return !ferror(stream);
    }
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        debit &= scenario->client_groups[g].operation.kind == OPERATION_DEBIT;
    write_steps(
        stream, explain, scenario,
        (DiagramOperationWords){.debit = debit, .scheduled = scenario_uses_schedule(scenario)});
    char refunds[32] = "";
    if (outcome->refunds > 0)
        snprintf(refunds, sizeof refunds, ", %u refund%s", outcome->refunds,
                 outcome->refunds == 1 ? "" : "s");
    char holds[64] = "";
    write_holds(holds, sizeof holds, explain);
    bool scheduled = scenario_uses_schedule(scenario); /* C34: a run, not a click */
    fprintf(stream, "  outcome: %s: %u %s%s, %u attempt%s, %u effect%s%s%s; the client was %s\n",
            outcome->settled ? outcome_name(outcome->outcome) : "unsettled", outcome->clicks,
            scheduled ? "run" : "click", outcome->clicks == 1 ? "" : "s", outcome->attempts,
            outcome->attempts == 1 ? "" : "s", outcome->effects, outcome->effects == 1 ? "" : "s",
            refunds, holds,
            outcome->told_success   ? "told it succeeded"
            : outcome->told_failure ? "told it failed"
                                    : "never told");
    write_layers(stream, explain, outcome);
    return !ferror(stream);
}
