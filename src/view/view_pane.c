/* A pane: the World of one mode and what the view derives from it. Building it sizes the
 * per-operation state from the world itself (world_operation_view answers false past the
 * last operation), picks the sampled clients and the nominal network delays used to draw
 * messages whose arrival the trace does not show. */
#include "view_pane.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ event names */

static const char *const event_names[VIEW_EVENT_COUNT] = {
    [VIEW_EVENT_SEND] = "send",
    [VIEW_EVENT_RETRY] = "retry",
    [VIEW_EVENT_LOST] = "lost",
    [VIEW_EVENT_DUPLICATE] = "duplicate",
    [VIEW_EVENT_EXECUTE] = "execute",
    [VIEW_EVENT_EXECUTE_NO_EFFECT] = "execute_no_effect",
    [VIEW_EVENT_REPLAY] = "replay",
    [VIEW_EVENT_IN_PROGRESS] = "in_progress",
    [VIEW_EVENT_REJECT_OTHER_BODY] = "reject_other_body",
    [VIEW_EVENT_TIMEOUT] = "timeout",
    [VIEW_EVENT_GIVE_UP] = "give_up",
    [VIEW_EVENT_SUCCEEDED] = "succeeded",
    [VIEW_EVENT_FAILED] = "failed",
    [VIEW_EVENT_OFFLINE] = "offline",
    [VIEW_EVENT_RECONNECT] = "reconnect",
    [VIEW_EVENT_SWEEP] = "sweep",
    [VIEW_EVENT_OTHER] = "other",
};

ViewEvent view_pane_event_from_name(const char *name)
{
    if (name == NULL)
        return VIEW_EVENT_OTHER;
    for (int e = 0; e < VIEW_EVENT_OTHER; e++) {
        if (strcmp(event_names[e], name) == 0)
            return (ViewEvent)e;
    }
    return VIEW_EVENT_OTHER;
}

const char *view_pane_event_name(ViewEvent event)
{
    return event < VIEW_EVENT_COUNT ? event_names[event] : "other";
}

/* ------------------------------------------------------------------ building */

/* The number of operations: world_operation_view is true exactly below it. */
static uint64_t count_operations(const World *world)
{
    OperationView view;
    uint64_t low = 0, high = OPERATIONS_TOTAL_MAX + 1; /* low: known valid count */
    while (low < high) {
        uint64_t middle = low + (high - low + 1) / 2;
        if (world_operation_view(world, middle - 1, &view))
            low = middle;
        else
            high = middle - 1;
    }
    return low;
}

/* A typical value of a delay, to draw a message whose arrival the trace does not show. The
 * median where the distribution has one, so a heavy tail does not stretch every arrow. */
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

static void describe_groups(ViewPane *pane)
{
    const Scenario *scenario = pane->scenario;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        pane->group_amount[g] = group->operation.kind == OPERATION_DEBIT ? group->operation.amount
                                                                         : 0;
        pane->request_delay_us[g] = link_delay_us(scenario, group->id, "server");
        pane->response_delay_us[g] = link_delay_us(scenario, "server", group->id);
        pane->clients_total += group->count;
    }
    ViewTally *tally = &pane->tally;
    tally->account_count = scenario->account_count;
    for (uint32_t a = 0; a < scenario->account_count && a < ACCOUNTS_MAX; a++) {
        tally->initial[a] = scenario->accounts[a].balance;
        tally->expected[a] = tally->initial[a];
        tally->actual[a] = tally->initial[a];
    }
}

ViewPane *view_pane_create(const Scenario *scenario, Mode mode, uint64_t seed)
{
    ViewPane *pane = calloc(1, sizeof *pane);
    if (pane == NULL)
        return NULL;
    pane->mode = mode;
    pane->seed = seed;
    pane->arrow_serial = 1;
    pane->narration_hold_us = 2500000;
    /* The sink is live before world_create returns, but the world emits nothing until it
     * runs, so pane->world is set before the first record. */
    pane->world = world_create(scenario, mode, seed, view_trace_sink(pane), (WorldLimits){0});
    pane->scenario = world_scenario(pane->world);
    pane->operation_count = count_operations(pane->world);
    pane->operations = calloc(pane->operation_count ? pane->operation_count : 1,
                              sizeof *pane->operations);
    pane->arrows = calloc(VIEW_ARROWS_MAX, sizeof *pane->arrows);
    pane->density = calloc(VIEW_DENSITY_BUCKETS, sizeof *pane->density);
    if (pane->operations == NULL || pane->arrows == NULL || pane->density == NULL) {
        view_pane_destroy(pane);
        return NULL;
    }
    describe_groups(pane);
    choose_lanes(pane);
    return pane;
}

void view_pane_destroy(ViewPane *pane)
{
    if (pane == NULL)
        return;
    world_destroy(pane->world);
    free(pane->operations);
    free(pane->dirty);
    free(pane->arrows);
    free(pane->density);
    free(pane);
}

/* ------------------------------------------------------------------ running */

/* A finished world has settled every outcome: from now on its metrics are the truth. */
static void take_final_metrics(ViewPane *pane)
{
    const Metrics *metrics = world_metrics(pane->world);
    ViewTally *tally = &pane->tally;
    tally->final = true;
    tally->operations = metrics->operations;
    tally->pending = 0;
    memcpy(tally->outcomes, metrics->outcomes, sizeof tally->outcomes);
    tally->double_amount = metrics->double_amount;
    tally->lost_amount = metrics->lost_amount;
    for (uint32_t a = 0; a < tally->account_count && a < ACCOUNTS_MAX; a++) {
        tally->expected[a] = metrics->balances[a].expected;
        tally->actual[a] = metrics->balances[a].actual;
    }
}

static void after_run(ViewPane *pane)
{
    view_trace_settle(pane);
    if (world_finished(pane->world) && !pane->tally.final)
        take_final_metrics(pane);
}

void view_pane_run_until(ViewPane *pane, SimTimeUs until_us)
{
    world_run_until(pane->world, until_us);
    after_run(pane);
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
    after_run(pane);
    return more;
}

/* ------------------------------------------------------------------ key store */

typedef struct {
    ViewKeySample *sample;
    SimTimeUs now_us;
} KeyVisit;

/* Keys still processing first (the rows a concurrent retry runs into), then the newest. */
static bool newer(const KeyRow *a, const KeyRow *b)
{
    bool a_processing = a->status == KEY_STATUS_PROCESSING;
    bool b_processing = b->status == KEY_STATUS_PROCESSING;
    if (a_processing != b_processing)
        return a_processing;
    if (a->created_us != b->created_us)
        return a->created_us > b->created_us;
    return a->key > b->key; /* table order never decides what is shown */
}

static void visit_key_row(void *context, const KeyRow *row)
{
    KeyVisit *visit = context;
    ViewKeySample *sample = visit->sample;
    if (row->expires_us <= visit->now_us)
        sample->expired++;
    else if (row->status == KEY_STATUS_PROCESSING)
        sample->processing++;
    else if (row->status == KEY_STATUS_COMPLETED)
        sample->completed++;
    else
        sample->failed++;
    uint32_t at = sample->shown;
    if (at == VIEW_KEY_ROWS_SHOWN && !newer(row, &sample->newest[at - 1]))
        return;
    if (at == VIEW_KEY_ROWS_SHOWN)
        at--;
    else
        sample->shown++;
    while (at > 0 && newer(row, &sample->newest[at - 1])) {
        sample->newest[at] = sample->newest[at - 1];
        at--;
    }
    sample->newest[at] = *row;
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
    return pane->arrow_serial > VIEW_ARROWS_MAX ? pane->arrow_serial - VIEW_ARROWS_MAX : 1;
}

const ViewArrow *view_pane_arrow(const ViewPane *pane, uint64_t serial)
{
    if (serial < view_pane_first_serial(pane) || serial >= pane->arrow_serial)
        return NULL;
    return &pane->arrows[serial % VIEW_ARROWS_MAX];
}

ViewDensity view_pane_density(const ViewPane *pane, SimTimeUs from_us, SimTimeUs to_us)
{
    ViewDensity total = {0};
    SimTimeUs first = from_us / VIEW_DENSITY_BUCKET_US, last = to_us / VIEW_DENSITY_BUCKET_US;
    for (SimTimeUs bucket = first; bucket < last; bucket++) {
        const ViewDensity *slot = &pane->density[bucket % VIEW_DENSITY_BUCKETS];
        if (slot->bucket != bucket + 1)
            continue;
        total.sends += slot->sends;
        total.retries += slot->retries;
        total.lost += slot->lost;
        total.doubles += slot->doubles;
    }
    return total;
}
