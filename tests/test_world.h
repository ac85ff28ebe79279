/* Helpers shared by the model tests: build a world from scenario JSON text, as a user would
 * write it, and run one mode to the end. */
#ifndef IDEMSIM_TEST_WORLD_H
#define IDEMSIM_TEST_WORLD_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "world.h"

static inline Scenario *test_load(const char *json, const char *const *overrides,
                                  uint32_t override_count)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    if (!scenario_load_text(json, strlen(json), overrides, override_count, scenario, &errors)) {
        scenario_print_errors(stderr, "<test>", &errors);
        ck_abort_msg("test scenario does not load");
    }
    return scenario;
}

/* Runs one mode to its natural end; returns what its storage took then, with its metrics in
 * *metrics. */
static inline uint64_t test_memory_after_run(const Scenario *scenario, Mode mode, uint64_t seed,
                                             Metrics *metrics)
{
    World *world = world_create(scenario, mode, seed, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    ck_assert_msg(world_stop(world).kind == WORLD_STOP_NONE, "run stopped by a budget");
    *metrics = *world_metrics(world);
    uint64_t bytes = world_memory_bytes(world);
    world_destroy(world);
    return bytes;
}

static inline Metrics test_run_mode(const Scenario *scenario, Mode mode, uint64_t seed)
{
    Metrics metrics;
    test_memory_after_run(scenario, mode, seed, &metrics);
    return metrics;
}

/* A service's metric of a run (METRIC@SERVICE: a node's name, or a service's id for its
 * instances' sum); fails the test when the run has no such service. */
static inline double test_service_value(const Metrics *metrics, const char *service,
                                        const char *metric)
{
    double value = -1;
    ck_assert_msg(metrics_service_value(metrics, service, metric, &value), "%s@%s", metric,
                  service);
    return value;
}

/* Loads json, runs one mode at the scenario's seed, and returns its metrics. */
static inline Metrics test_run_text(const char *json, Mode mode)
{
    Scenario *scenario = test_load(json, NULL, 0);
    Metrics metrics = test_run_mode(scenario, mode, scenario->seed);
    free(scenario);
    return metrics;
}

/* A file of the source tree (path relative to it, as "scenarios/default.json"), with
 * overrides, wherever the test runs. Free it. */
static inline Scenario *test_load_source_file(const char *path, const char *const *overrides,
                                              uint32_t override_count)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", IDEMSIM_SOURCE_DIR, path);
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    if (!scenario_load_file(full, overrides, override_count, scenario, &errors)) {
        scenario_print_errors(stderr, full, &errors);
        ck_abort_msg("%s does not load", full);
    }
    return scenario;
}

/* Loads json with overrides, runs one mode, frees the scenario. */
static inline Metrics test_run_json(const char *json, const char *const *overrides,
                                    uint32_t override_count, Mode mode)
{
    Scenario *scenario = test_load(json, overrides, override_count);
    Metrics metrics = test_run_mode(scenario, mode, scenario->seed);
    free(scenario);
    return metrics;
}

/* A binomial proportion's tolerance: 5 standard deviations of the sample mean. */
static inline double test_binomial_tolerance(double probability, double n)
{
    return 5.0 * sqrt(probability * (1.0 - probability) / n);
}

/* Show's text of scenario, loaded again: returns the scenario it loads to, whose own show is
 * the same text (show is a fixpoint: asserted), and leaves the text in *shown. Free both. */
static inline Scenario *test_show_again(const Scenario *scenario, char **shown)
{
    *shown = scenario_show(scenario);
    ck_assert_ptr_nonnull(*shown);
    Scenario *again = test_load(*shown, NULL, 0);
    char *shown_again = scenario_show(again);
    ck_assert_str_eq(*shown, shown_again);
    free(shown_again);
    return again;
}

/* Loading json with overrides fails, with an error at path whose message says words. */
static inline void test_assert_refused(const char *json, const char *const *overrides,
                                       uint32_t count, const char *path, const char *words)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), overrides, count, scenario, &errors));
    bool found = false;
    for (uint32_t e = 0; e < errors.count; e++)
        found |= strcmp(errors.items[e].path, path) == 0 &&
                 strstr(errors.items[e].message, words) != NULL;
    ck_assert_msg(found, "no error at %s saying '%s' (first: %s: %s)", path, words,
                  errors.items[0].path, errors.items[0].message);
    free(scenario);
}

#endif
