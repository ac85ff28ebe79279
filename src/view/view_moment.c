/* Named moments: each mode's world run by itself, one event at a time, until the moment's
 * trace event shows (a double is read from the metrics instead: its record, an execution,
 * does not say it was the second). */
#include "view_moment.h"

#include <string.h>

#include "diagram.h"
#include "world.h"

static const struct {
    const char *name;
    TraceEvent event; /* TRACE_EVENT_COUNT: the first double charge */
} moments[] = {
    {"double", TRACE_EVENT_COUNT},
    {"crash", TRACE_CRASH},
    {"replay", TRACE_REPLAY},
    {"rebalance", TRACE_REBALANCE},
    {"failover", TRACE_FAILOVER},
    {"dead-letter", TRACE_DEAD_LETTER},
    {"stale-overwrite", TRACE_STALE_OVERWRITE},
};

static int moment_index(const char *name)
{
    for (size_t i = 0; i < sizeof moments / sizeof moments[0]; i++) {
        if (strcmp(moments[i].name, name) == 0)
            return (int)i;
    }
    return -1;
}

bool view_moment_known(const char *name)
{
    return moment_index(name) >= 0;
}

typedef struct {
    TraceEvent event;
    bool seen;
    SimTimeUs at_us;
    const World *world; /* its node table names a record's actor */
} Watch;

/* A key store of its own that no operation of a group with clients meets has no lane in the
 * view, which tells nothing of its crash (diagram_node_drawn): no moment to show there. */
static bool drawn_actor(const Watch *watch, const TraceRecord *record)
{
    if (record->actor_kind != NODE_KEY_STORE || watch->world == NULL ||
        record->actor >= world_node_count(watch->world))
        return true;
    const WorldNode *node = world_node(watch->world, record->actor);
    return diagram_node_drawn(world_scenario(watch->world), node->kind, node->name, node->active);
}

static void on_record(void *context, const TraceRecord *record)
{
    Watch *watch = context;
    if (!watch->seen && record->event == watch->event && drawn_actor(watch, record)) {
        watch->seen = true;
        watch->at_us = record->t_us;
    }
}

/* The mode's first time, run no further than best_us (an earlier mode already has it). */
static bool first_in_mode(TraceEvent event, const Scenario *scenario, Mode mode, uint64_t seed,
                          SimTimeUs best_us, SimTimeUs *at_us)
{
    Watch watch = {.event = event};
    TraceSink sink = {.write = event == TRACE_EVENT_COUNT ? NULL : on_record, .context = &watch};
    World *world = world_create(scenario, mode, seed, sink, (WorldLimits){0});
    if (world == NULL)
        return false;
    watch.world = world;
    while (!watch.seen && world_now(world) <= best_us && world_step(world)) {
        if (event == TRACE_EVENT_COUNT && world_metrics(world)->doubles_so_far > 0) {
            watch.seen = true;
            watch.at_us = world_now(world);
        }
    }
    world_destroy(world);
    *at_us = watch.at_us;
    return watch.seen;
}

bool view_moment_find(const char *name, const Scenario *scenario, const Mode *modes,
                      uint32_t mode_count, uint64_t seed, SimTimeUs *at_us, Mode *mode)
{
    int index = moment_index(name);
    bool found = false;
    SimTimeUs best_us = SIM_TIME_NEVER;
    for (uint32_t m = 0; index >= 0 && m < mode_count; m++) {
        SimTimeUs t_us;
        if (first_in_mode(moments[index].event, scenario, modes[m], seed, best_us, &t_us) &&
            t_us < best_us) {
            best_us = t_us;
            *mode = modes[m];
            found = true;
        }
    }
    *at_us = best_us;
    return found;
}
