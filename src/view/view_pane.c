/* A pane: the World of one mode and what the view derives from it. Building it picks the
 * sampled clients, gives the diagram a lane for each of them and for every service the node
 * table says the scenario uses, and finds the typical delay of every link, used to draw a
 * copy that was lost or has not arrived yet. */
#include "view_pane.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ------------------------------------------------------------------ building */

/* A typical value of a delay, to draw a message copy that was lost or is still on its way.
 * The median where the distribution has one, so a heavy tail does not stretch every arrow. */
static double typical_ms(const Distribution *distribution)
{
    switch (distribution->kind) {
    case DIST_CONST:
    case DIST_EXP:
    case DIST_NORMAL:
    case DIST_LOGNORMAL:
        return distribution->a;
    case DIST_UNIFORM:
        return (distribution->a + distribution->b) / 2.0;
    case DIST_PARETO:
        return distribution->b * pow(2.0, 1.0 / (distribution->a > 0 ? distribution->a : 1.0));
    }
    return 0;
}

static SimTimeUs link_delay_us(const Scenario *scenario, const char *source, const char *target)
{
    const NetworkSpec *network = &scenario->network;
    const LinkSpec *spec = &network->default_link;
    for (uint32_t i = 0; i < network->link_count; i++) {
        if (strcmp(network->links[i].source, source) == 0 &&
            strcmp(network->links[i].target, target) == 0)
            spec = &network->links[i].spec;
    }
    double ms = typical_ms(&spec->delay_ms);
    if (!(ms >= 1.0))
        ms = 1.0; /* still a visible slope */
    if (ms > 60000.0)
        ms = 60000.0;
    return (SimTimeUs)(ms * 1000.0);
}

/* The sample: the first clients of each group in turn, so every group has a lane. */
static void choose_lanes(ViewPane *pane)
{
    const Scenario *scenario = pane->scenario;
    for (uint32_t index = 0; pane->lane_count < VIEW_LANES_MAX; index++) {
        bool any = false;
        for (uint32_t g = 0; g < scenario->client_group_count; g++) {
            if (index >= scenario->client_groups[g].count || pane->lane_count == VIEW_LANES_MAX)
                continue;
            pane->lanes[pane->lane_count++] = (ViewLane){.group = g, .client_in_group = index};
            any = true;
        }
        if (!any)
            break;
    }
}

static uint32_t group_node(const ViewPane *pane, uint32_t group)
{
    for (uint32_t n = 0; n < world_node_count(pane->world); n++) {
        const WorldNode *node = world_node(pane->world, n);
        if (node->kind == NODE_CLIENT_GROUP && node->actor == group)
            return n;
    }
    return TRACE_NO_NODE;
}

/* The node of the first instance of node's service (node itself when it is one). */
static uint32_t first_of_service(const World *world, uint32_t node)
{
    const WorldNode *entry = world_node(world, node);
    for (uint32_t n = 0; n < node; n++) {
        const WorldNode *other = world_node(world, n);
        if (other->kind == entry->kind && strcmp(other->service, entry->service) == 0)
            return n;
    }
    return node;
}

/* The diagram's lanes, from the node table: the sampled clients (lane l is sample l), then
 * every service the scenario sends work through (a key store of its own only where client
 * groups' operations meet it: diagram_node_drawn), by lane and then by its service's first
 * node (a service's instances side by side, though a later proxy's or called server's node
 * comes between them in the table), then the ledger; and the typical delay of
 * every link between them, by the names links use. */
static bool add_lanes(ViewPane *pane)
{
    const Scenario *scenario = pane->scenario;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        pane->group_amount[g] =
            group->operation.kind == OPERATION_DEBIT ? group->operation.amount : 0;
        pane->clients_total += group->count;
    }
    for (uint32_t l = 0; l < pane->lane_count; l++) {
        uint32_t node = group_node(pane, pane->lanes[l].group);
        if (diagram_add_lane(pane->diagram, NODE_CLIENT_GROUP, node, pane->lanes[l].client_in_group,
                             world_node_name(pane->world, node), l) != (int)l)
            return false;
    }
    uint32_t nodes = world_node_count(pane->world);
    for (uint32_t n = 0; n < nodes; n++) {
        const WorldNode *node = world_node(pane->world, n);
        if (node->kind != NODE_CLIENT_GROUP &&
            diagram_node_drawn(scenario, node->kind, node->name, node->active) &&
            diagram_add_lane(pane->diagram, node->kind, n, TRACE_NO_CLIENT, node->name,
                             node->lane * nodes + first_of_service(pane->world, n)) ==
                DIAGRAM_NO_LANE)
            return false;
    }
    if (diagram_add_ledger(pane->diagram) == DIAGRAM_NO_LANE)
        return false;
    uint32_t lanes = diagram_lane_count(pane->diagram);
    for (uint32_t a = 0; a < lanes; a++) {
        for (uint32_t b = 0; b < lanes; b++)
            pane->delay_us[a][b] =
                link_delay_us(scenario, diagram_lane(pane->diagram, (int)a)->node_name,
                              diagram_lane(pane->diagram, (int)b)->node_name);
    }
    return true;
}

ViewPane *view_pane_create(const Scenario *scenario, Mode mode, uint64_t seed)
{
    ViewPane *pane = calloc(1, sizeof *pane);
    if (pane == NULL)
        return NULL;
    pane->mode = mode;
    pane->seed = seed;
    pane->narration_hold_us = 2500000;
    pane->diagram = diagram_create(mode, VIEW_ARROWS_MAX, 0);
    if (pane->diagram != NULL) { /* key TTLs, ack timers, dedup windows as spans */
        DiagramWindows windows = diagram_windows_of(scenario, mode);
        diagram_set_windows(pane->diagram, &windows);
        diagram_set_broker_rules(pane->diagram, scenario);
    }
    /* The sink is live before world_create returns, but the world emits nothing until it
     * runs, so pane->world is set before the first record. */
    pane->world = world_create(scenario, mode, seed, view_trace_sink(pane), (WorldLimits){0});
    pane->density = calloc(VIEW_DENSITY_BUCKETS, sizeof *pane->density);
    if (pane->world == NULL || pane->diagram == NULL || pane->density == NULL) {
        view_pane_destroy(pane);
        return NULL;
    }
    pane->scenario = world_scenario(pane->world);
    choose_lanes(pane);
    if (!add_lanes(pane)) {
        view_pane_destroy(pane);
        return NULL;
    }
    view_pane_run_until(pane, 0);
    return pane;
}

void view_pane_destroy(ViewPane *pane)
{
    if (pane == NULL)
        return;
    world_destroy(pane->world);
    diagram_destroy(pane->diagram);
    free(pane->density);
    free(pane);
}

int view_pane_node_of(const ViewPane *pane, uint32_t node, uint32_t client_in_group)
{
    return diagram_lane_of(pane->diagram, node, client_in_group);
}

bool view_pane_has_kind(const ViewPane *pane, NodeKind kind)
{
    uint32_t node = world_node_of_kind(pane->world, kind);
    return node != TRACE_NO_NODE && world_node(pane->world, node)->active;
}

/* Whether the key store named store is one a server keeps its keys in: the first server's
 * or a called server's (world_server_key_store_down's split). */
static bool servers_store(const Scenario *scenario, const char *store)
{
    char id[NAME_LEN_MAX];
    scenario_key_store_id(scenario, &scenario->server.idempotency, NODE_SERVER, id);
    if (strcmp(id, store) == 0)
        return true;
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        scenario_key_store_id(scenario, &scenario->called_servers[c].spec.idempotency, NODE_SERVER,
                              id);
        if (strcmp(id, store) == 0)
            return true;
    }
    return false;
}

bool view_pane_key_store_down(const ViewPane *pane, bool servers_only)
{
    for (uint32_t l = 0; l < diagram_lane_count(pane->diagram); l++) {
        if (pane->store_lane_down[l] &&
            (!servers_only ||
             servers_store(pane->scenario, diagram_lane(pane->diagram, (int)l)->node_name)))
            return true;
    }
    return false;
}

bool view_pane_finished_at(const ViewPane *pane, SimTimeUs now_us, bool clock_stopped)
{
    return pane->tally.done && (clock_stopped || !pane->narration.present ||
                                now_us - pane->narration.t_us >= pane->narration_hold_us);
}

bool view_pane_lane_is_client(const ViewPane *pane, int lane)
{
    const DiagramLane *entry = diagram_lane(pane->diagram, lane);
    return entry != NULL && entry->kind == NODE_CLIENT_GROUP && !entry->ledger;
}

/* ------------------------------------------------------------------ running */

/* The counters are the world's live metrics; once it has finished they are the report's. */
static void read_metrics(ViewPane *pane)
{
    const Metrics *metrics = world_metrics(pane->world);
    ViewTally *tally = &pane->tally;
    tally->final = world_finished(pane->world);
    tally->done = world_outcomes_final(pane->world);
    tally->operations = metrics->operations;
    tally->pending = metrics->operations - metrics->operations_settled;
    memcpy(tally->outcomes, metrics->outcomes, sizeof tally->outcomes);
    /* A double is shown at its second charge, not when it settles. */
    tally->outcomes[OUTCOME_DOUBLE] = metrics->doubles_so_far;
    tally->double_amount = metrics->double_amount_so_far;
    tally->lost_amount = metrics->lost_amount;
    tally->account_count =
        metrics->account_count < ACCOUNTS_MAX ? metrics->account_count : ACCOUNTS_MAX;
    for (uint32_t a = 0; a < tally->account_count; a++) {
        tally->initial[a] = metrics->balances[a].initial;
        tally->expected[a] = metrics->balances[a].expected;
        tally->actual[a] = metrics->balances[a].actual;
    }
}

void view_pane_run_until(ViewPane *pane, SimTimeUs until_us)
{
    world_run_until(pane->world, until_us);
    read_metrics(pane);
}

bool view_pane_step(ViewPane *pane, uint64_t max_events)
{
    uint64_t records = pane->records;
    bool more = true;
    for (uint64_t i = 0; i < max_events && pane->records == records; i++) {
        more = world_step(pane->world);
        if (!more)
            break;
    }
    read_metrics(pane);
    return more;
}

/* ------------------------------------------------------------------ key store */

typedef struct {
    ViewKeySample *sample;
    SimTimeUs now_us;
} KeyVisit;

/* Newest first; the key breaks ties, so table order never decides what is shown. */
static bool newer(const KeyRow *a, const KeyRow *b)
{
    if (a->created_us != b->created_us)
        return a->created_us > b->created_us;
    return a->key > b->key;
}

/* Keeps the VIEW_KEY_ROWS_SHOWN newest rows of a list, in order. */
static void keep_newest(KeyRow rows[VIEW_KEY_ROWS_SHOWN], uint32_t *shown, const KeyRow *row)
{
    uint32_t at = *shown;
    if (at == VIEW_KEY_ROWS_SHOWN && !newer(row, &rows[at - 1]))
        return;
    if (at == VIEW_KEY_ROWS_SHOWN)
        at--;
    else
        (*shown)++;
    while (at > 0 && newer(row, &rows[at - 1])) {
        rows[at] = rows[at - 1];
        at--;
    }
    rows[at] = *row;
}

static void visit_key_row(void *context, const KeyRow *row)
{
    KeyVisit *visit = context;
    ViewKeySample *sample = visit->sample;
    bool live_processing = false;
    if (row->expires_us <= visit->now_us) {
        sample->expired++;
    } else if (row->status == KEY_STATUS_PROCESSING) {
        sample->processing++;
        live_processing = true;
    } else if (row->status == KEY_STATUS_COMPLETED) {
        sample->completed++;
    } else {
        sample->failed++;
    }
    if (live_processing)
        keep_newest(sample->processing_rows, &sample->processing_shown, row);
    else
        keep_newest(sample->settled_rows, &sample->settled_shown, row);
}

void view_pane_sample_keys(ViewPane *pane)
{
    memset(&pane->keys, 0, sizeof pane->keys);
    pane->keys.rows = world_key_store_rows(pane->world);
    pane->keys.at_us = world_now(pane->world);
    KeyVisit visit = {.sample = &pane->keys, .now_us = pane->keys.at_us};
    world_visit_key_rows(pane->world, visit_key_row, &visit);
}

/* ------------------------------------------------------------------ reading */

uint64_t view_pane_first_serial(const ViewPane *pane)
{
    return diagram_first_serial(pane->diagram);
}

uint64_t view_pane_next_serial(const ViewPane *pane)
{
    return diagram_next_serial(pane->diagram);
}

const DiagramItem *view_pane_arrow(const ViewPane *pane, uint64_t serial)
{
    return diagram_item(pane->diagram, serial);
}

ViewDensity view_pane_density(const ViewPane *pane, SimTimeUs from_us, SimTimeUs to_us)
{
    ViewDensity total = {0};
    SimTimeUs first = from_us / VIEW_DENSITY_BUCKET_US, last = to_us / VIEW_DENSITY_BUCKET_US;
    /* A span longer than the ring (a squeezed band of hours) reads each slot once. */
    bool whole_ring = last > first && last - first >= VIEW_DENSITY_BUCKETS;
    SimTimeUs count = whole_ring ? VIEW_DENSITY_BUCKETS : last > first ? last - first : 0;
    for (SimTimeUs i = 0; i < count; i++) {
        SimTimeUs bucket = first + i;
        const ViewDensity *slot = &pane->density[(whole_ring ? i : bucket) % VIEW_DENSITY_BUCKETS];
        bool held =
            whole_ring ? slot->bucket > first && slot->bucket <= last : slot->bucket == bucket + 1;
        if (!held)
            continue;
        total.sends += slot->sends;
        total.retries += slot->retries;
        total.lost += slot->lost;
        total.doubles += slot->doubles;
    }
    return total;
}

const char *view_pane_stop_text(const ViewPane *pane, char *buffer, size_t size)
{
    return report_stop_text(world_stop(pane->world), buffer, size);
}
