/* The explorer: runs fault schedules of one mode and keeps the smallest violation. Why
 * breadth-first by number of faults, extending a schedule only by a decision its own run
 * met after its last fault: forcing a decision changes nothing before it, so the run of
 * S + p shares the prefix of S's run up to p, and every set of faults that can happen
 * together is run exactly once (in the order its faults are met). A schedule that already
 * breaks the property is not extended: its supersets cannot be smaller counterexamples.
 * Rejected: merging worlds by a hash of their state (the World is opaque, and with at most
 * 8 operations the runs take microseconds; see docs/explore.md). */
#include "explore.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sim_assert.h"

static const char *const property_names[EXPLORE_PROPERTY_COUNT] = {
    [EXPLORE_NO_DOUBLE] = "no-double",
    [EXPLORE_NO_LOST] = "no-lost",
    [EXPLORE_NO_PHANTOM] = "no-phantom",
    [EXPLORE_NO_MISMATCH] = "no-mismatch",
    [EXPLORE_NO_DOUBLE_REFUND] = "no-double-refund",
    [EXPLORE_TOLD_MATCHES_LEDGER] = "told-matches-ledger",
    [EXPLORE_EXPECT] = "expect",
};

const char *explore_property_name(ExploreProperty property)
{
    return property < EXPLORE_PROPERTY_COUNT ? property_names[property] : "?";
}

bool explore_property_from_name(const char *name, ExploreProperty *property)
{
    for (int p = 0; p < EXPLORE_PROPERTY_COUNT; p++) {
        if (strcmp(name, property_names[p]) == 0) {
            *property = (ExploreProperty)p;
            return true;
        }
    }
    return false;
}

static bool expectations_fail(const Scenario *scenario, Mode mode, const Metrics *metrics)
{
    for (uint32_t e = 0; e < scenario->expectation_count; e++) {
        const Expectation *expectation = &scenario->expectations[e];
        double value = 0;
        if (expectation->mode == mode && metrics_expectation_value(metrics, expectation, &value) &&
            (value < expectation->min || value > expectation->max))
            return true;
    }
    return false;
}

bool explore_violates(const Scenario *scenario, Mode mode, const Metrics *metrics,
                      ExploreProperty property)
{
    const uint64_t *outcomes = metrics->outcomes;
    switch (property) {
    case EXPLORE_NO_DOUBLE:
        return outcomes[OUTCOME_DOUBLE] > 0;
    case EXPLORE_NO_LOST:
        return outcomes[OUTCOME_LOST] > 0;
    case EXPLORE_NO_PHANTOM:
        return outcomes[OUTCOME_PHANTOM] > 0;
    case EXPLORE_NO_MISMATCH:
        return outcomes[OUTCOME_MISMATCH] > 0;
    case EXPLORE_NO_DOUBLE_REFUND:
        return metrics->double_refunds > 0;
    case EXPLORE_TOLD_MATCHES_LEDGER:
        /* Without doubles and mismatches, the operations told success are the ok ones and
         * the lost ones told success: so told success == ok says none was lost. */
        return outcomes[OUTCOME_DOUBLE] > 0 || outcomes[OUTCOME_PHANTOM] > 0 ||
               outcomes[OUTCOME_MISMATCH] > 0 || metrics->client_succeeded != outcomes[OUTCOME_OK];
    case EXPLORE_EXPECT:
        return expectations_fail(scenario, mode, metrics);
    default:
        return false;
    }
}

/* ------------------------------------------------------------------ one schedule */

typedef struct {
    uint32_t fault_count;
    FaultSpec faults[EXPLORE_FAULTS_MAX];
    /* what its run gave */
    bool violated;
    bool stopped;
    WorldStop stop;
    uint64_t operations;
    uint64_t outcomes[OUTCOME_COUNT];
    uint32_t overflow;
    uint32_t points_by_kind[FAULT_KIND_COUNT]; /* the fault-free run's only */
    FaultSpec *next; /* the points met after the last fault: the extensions (when kept) */
    uint32_t next_count;
} Schedule;

typedef struct {
    const Scenario *scenario;
    Mode mode;
    const ExploreOptions *options;
} Explorer;

static bool same_decision(const FaultSpec *x, const FaultSpec *y)
{
    return x->kind == y->kind && x->operation == y->operation && x->click == y->click &&
           x->attempt == y->attempt && x->hop == y->hop && x->gateway == y->gateway &&
           x->copy == y->copy;
}

/* Runs schedule in a world built from work (the scenario, owned by the caller's thread).
 * keep_next: copy out the points met after the last fault. */
static void run_schedule(const Explorer *explorer, Scenario *work, Schedule *schedule,
                         bool keep_next)
{
    work->faults_forced = true;
    work->fault_count = schedule->fault_count;
    memcpy(work->faults, schedule->faults, sizeof work->faults[0] * schedule->fault_count);
    World *world = world_create(work, explorer->mode, explorer->options->seed, (TraceSink){0},
                                explorer->options->limits);
    world_run(world);
    const Metrics *metrics = world_metrics(world);
    schedule->stop = world_stop(world);
    schedule->stopped = schedule->stop.kind != WORLD_STOP_NONE;
    schedule->operations = metrics->operations;
    memcpy(schedule->outcomes, metrics->outcomes, sizeof schedule->outcomes);
    schedule->violated =
        explore_violates(explorer->scenario, explorer->mode, metrics, explorer->options->property);
    uint32_t count = 0;
    const FaultSpec *points = world_fault_points(world, &count, &schedule->overflow);
    if (schedule->fault_count == 0) {
        for (uint32_t i = 0; i < count; i++)
            schedule->points_by_kind[points[i].kind]++;
    }
    if (keep_next && !schedule->violated) {
        uint32_t first = 0;
        if (schedule->fault_count > 0) {
            const FaultSpec *last = &schedule->faults[schedule->fault_count - 1];
            for (uint32_t i = count; i-- > 0;) {
                if (same_decision(&points[i], last)) {
                    first = i + 1;
                    break;
                }
            }
        }
        schedule->next_count = count - first;
        if (schedule->next_count > 0) {
            schedule->next = sim_xcalloc(schedule->next_count, sizeof *schedule->next);
            memcpy(schedule->next, points + first, sizeof *points * schedule->next_count);
        }
    }
    world_destroy(world);
}

/* ------------------------------------------------------------------ a level on threads */

typedef struct {
    const Explorer *explorer;
    Schedule *schedules;
    uint64_t count;
    bool keep_next;
    atomic_uint_fast64_t next_index;
} Level;

static void *level_worker(void *argument)
{
    Level *level = argument;
    Scenario *work = sim_xcalloc(1, sizeof *work);
    memcpy(work, level->explorer->scenario, sizeof *work);
    for (;;) {
        uint64_t index = atomic_fetch_add(&level->next_index, 1);
        if (index >= level->count)
            break;
        run_schedule(level->explorer, work, &level->schedules[index], level->keep_next);
    }
    free(work);
    return NULL;
}

static void run_level(const Explorer *explorer, Schedule *schedules, uint64_t count, bool keep_next)
{
    Level level = {
        .explorer = explorer, .schedules = schedules, .count = count, .keep_next = keep_next};
    atomic_init(&level.next_index, 0);
    uint32_t threads = explorer->options->threads == 0 ? 1 : explorer->options->threads;
    if (threads > 64)
        threads = 64;
    if (threads > count)
        threads = (uint32_t)(count == 0 ? 1 : count);
    pthread_t ids[64];
    uint32_t started = 0;
    for (uint32_t t = 1; t < threads; t++) {
        if (pthread_create(&ids[started], NULL, level_worker, &level) == 0)
            started++;
    }
    level_worker(&level); /* this thread works too; fewer threads only take longer */
    for (uint32_t t = 0; t < started; t++)
        pthread_join(ids[t], NULL);
}

/* ------------------------------------------------------------------ gathering */

static void count_schedule(ExploreResult *result, const Schedule *schedule)
{
    result->schedules++;
    result->by_size[schedule->fault_count]++;
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        if (schedule->outcomes[o] > 0)
            result->reachable[o]++;
    }
    if (!schedule->violated)
        return;
    result->violations++;
    bool smaller = !result->found || schedule->fault_count < result->counterexample_count;
    if (smaller) {
        result->found = true;
        result->counterexample_count = schedule->fault_count;
        memcpy(result->counterexample, schedule->faults,
               sizeof schedule->faults[0] * schedule->fault_count);
        memcpy(result->counterexample_outcomes, schedule->outcomes,
               sizeof result->counterexample_outcomes);
    }
}

static void free_schedules(Schedule *schedules, uint64_t count)
{
    for (uint64_t i = 0; schedules != NULL && i < count; i++)
        free(schedules[i].next);
    free(schedules);
}

/* False (status set) when the fault-free run says the world is not one to explore. */
static bool base_acceptable(ExploreResult *result, const Schedule *base)
{
    result->operations = base->operations;
    result->base_points = base->next_count;
    memcpy(result->points_by_kind, base->points_by_kind, sizeof result->points_by_kind);
    if (base->stopped) {
        result->status = EXPLORE_STOPPED;
        result->stop = base->stop;
        return false;
    }
    if (base->operations > EXPLORE_OPERATIONS_MAX || base->overflow > 0) {
        result->status = EXPLORE_TOO_LARGE;
        return false;
    }
    return true;
}

/* The children of frontier's schedules that are still undecided, in order; at most room. */
static Schedule *extend(const Schedule *frontier, uint64_t frontier_count, uint64_t room,
                        uint64_t *count, bool *truncated)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < frontier_count; i++)
        total += frontier[i].next_count;
    if (total > room) {
        total = room;
        *truncated = true;
    }
    Schedule *children = total == 0 ? NULL : sim_xcalloc(total, sizeof *children);
    uint64_t made = 0;
    for (uint64_t i = 0; i < frontier_count && made < total; i++) {
        for (uint32_t p = 0; p < frontier[i].next_count && made < total; p++) {
            Schedule *child = &children[made++];
            child->fault_count = frontier[i].fault_count + 1;
            memcpy(child->faults, frontier[i].faults,
                   sizeof child->faults[0] * frontier[i].fault_count);
            child->faults[frontier[i].fault_count] = frontier[i].next[p];
        }
    }
    *count = made;
    return children;
}

static void enumerate(const Explorer *explorer, ExploreResult *result, Schedule *base)
{
    const ExploreOptions *options = explorer->options;
    Schedule *frontier = base;
    uint64_t frontier_count = 1;
    bool owned = false;
    for (uint32_t size = 1; size <= options->max_faults; size++) {
        uint64_t room = UINT64_MAX;
        if (options->max_schedules > 0)
            room = options->max_schedules > result->schedules
                       ? options->max_schedules - result->schedules
                       : 0;
        uint64_t count = 0;
        Schedule *children = extend(frontier, frontier_count, room, &count, &result->truncated);
        if (owned)
            free_schedules(frontier, frontier_count);
        run_level(explorer, children, count, size < options->max_faults);
        for (uint64_t i = 0; i < count; i++) {
            if (children[i].stopped && result->status == EXPLORE_DONE) {
                result->status = EXPLORE_STOPPED;
                result->stop = children[i].stop;
            }
            count_schedule(result, &children[i]);
        }
        frontier = children;
        frontier_count = count;
        owned = true;
        if (result->status != EXPLORE_DONE || result->truncated)
            break;
        result->complete_size = size;
    }
    if (owned)
        free_schedules(frontier, frontier_count);
}

/* ------------------------------------------------------------------ sampling */

/* Drops faults one at a time, first to last, while the schedule still breaks the property:
 * a violation where every fault is needed. */
static void shrink(const Explorer *explorer, Scenario *work, ExploreResult *result,
                   Schedule *schedule)
{
    bool changed = true;
    while (changed && schedule->fault_count > 1) {
        changed = false;
        for (uint32_t drop = 0; drop < schedule->fault_count; drop++) {
            Schedule trial = {.fault_count = schedule->fault_count - 1};
            for (uint32_t i = 0, j = 0; i < schedule->fault_count; i++) {
                if (i != drop)
                    trial.faults[j++] = schedule->faults[i];
            }
            run_schedule(explorer, work, &trial, false);
            result->schedules++;
            if (trial.violated) {
                *schedule = trial;
                changed = true;
                break;
            }
        }
    }
}

static void sample(const Explorer *explorer, ExploreResult *result, const Schedule *base)
{
    const ExploreOptions *options = explorer->options;
    Scenario *work = sim_xcalloc(1, sizeof *work);
    memcpy(work, explorer->scenario, sizeof *work);
    Rng rng;
    rng_init(&rng, rng_seed_derive(options->seed, mode_name(explorer->mode)));
    for (uint64_t n = 0; n < options->sample && result->status == EXPLORE_DONE; n++) {
        uint32_t size = 1 + (uint32_t)rng_below(&rng, options->max_faults);
        Schedule schedule = {0};
        const FaultSpec *choices = base->next;
        uint32_t choice_count = base->next_count;
        FaultSpec *owned = NULL;
        while (schedule.fault_count < size && choice_count > 0) {
            schedule.faults[schedule.fault_count++] = choices[rng_below(&rng, choice_count)];
            free(owned);
            schedule.next = NULL;
            schedule.next_count = 0;
            run_schedule(explorer, work, &schedule, true);
            owned = schedule.next;
            choices = schedule.next;
            choice_count = schedule.next_count;
            if (schedule.stopped) {
                result->status = EXPLORE_STOPPED;
                result->stop = schedule.stop;
            }
            count_schedule(result, &schedule);
            if (schedule.violated)
                break;
        }
        free(owned);
        schedule.next = NULL;
        if (schedule.violated && result->status == EXPLORE_DONE) {
            shrink(explorer, work, result, &schedule);
            if (schedule.fault_count < result->counterexample_count) {
                result->counterexample_count = schedule.fault_count;
                memcpy(result->counterexample, schedule.faults,
                       sizeof schedule.faults[0] * schedule.fault_count);
                memcpy(result->counterexample_outcomes, schedule.outcomes,
                       sizeof result->counterexample_outcomes);
            }
        }
    }
    free(work);
}

/* ------------------------------------------------------------------ the mode */

static bool any_gilbert_elliott(const NetworkSpec *network)
{
    bool any = network->default_link.loss.model == LOSS_GILBERT_ELLIOTT;
    for (uint32_t i = 0; i < network->link_count; i++)
        any = any || network->links[i].spec.loss.model == LOSS_GILBERT_ELLIOTT;
    return any;
}

/* What the client groups plan, as world.c counts it: refused before anything runs. */
static uint64_t operations_planned(const Scenario *scenario)
{
    uint64_t total = 0;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        uint64_t each =
            group->workload.at_count > 0 ? group->workload.at_count : group->workload.ops;
        total += (uint64_t)group->count * each;
    }
    return total;
}

void explore_mode(const Scenario *scenario, Mode mode, const ExploreOptions *options,
                  ExploreResult *result)
{
    SIM_ASSERT(options->max_faults <= EXPLORE_FAULTS_MAX, "too many faults to explore");
    memset(result, 0, sizeof *result);
    Explorer explorer = {.scenario = scenario, .mode = mode, .options = options};
    result->operations = operations_planned(scenario);
    if (result->operations > EXPLORE_OPERATIONS_MAX) {
        result->status = EXPLORE_TOO_LARGE;
        return;
    }
    if (any_gilbert_elliott(&scenario->network)) {
        result->status = EXPLORE_GILBERT_ELLIOTT;
        return;
    }
    Scenario *work = sim_xcalloc(1, sizeof *work);
    memcpy(work, scenario, sizeof *work);
    Schedule base = {0};
    run_schedule(&explorer, work, &base, true);
    free(work);
    count_schedule(result, &base);
    if (base_acceptable(result, &base) && !base.violated && options->max_faults > 0) {
        if (options->sample > 0)
            sample(&explorer, result, &base);
        else
            enumerate(&explorer, result, &base);
    }
    free(base.next);
}
