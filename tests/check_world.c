/* The model's teaching behaviour in the smallest worlds that show it, the closed forms it
 * must agree with, and determinism. Every world is built from scenario JSON text, as a user
 * would write it. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "scenario.h"
#include "test_world.h"
#include "world.h"

/* ------------------------------------------------------------------ helpers */

static Scenario *load(const char *json)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    if (!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors)) {
        scenario_print_errors(stderr, "<test>", &errors);
        ck_abort_msg("test scenario does not load");
    }
    return scenario;
}

static Metrics run_mode(const Scenario *scenario, Mode mode, uint64_t seed)
{
    World *world = world_create(scenario, mode, seed, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    ck_assert_msg(world_stop(world).kind == WORLD_STOP_NONE, "run stopped by a budget");
    Metrics metrics = *world_metrics(world);
    world_destroy(world);
    return metrics;
}

/* One client, one payment; the answer to the first attempt is lost in an outage. */
static const char *const lost_answer_world =
    "{\"accounts\": [{\"id\": \"alice\", \"balance\": 10000}],"
    " \"clients\": [{\"id\": \"web\", \"operation\": {\"kind\": \"debit\", \"amount\": 1500},"
    "   \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 3,"
    "             \"backoff\": {\"base_ms\": 100, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}},"
    "   \"outages\": [{\"from_ms\": 0, \"to_ms\": 500, \"link\": \"server->web\"}]},"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5}}}";

/* ------------------------------------------------------------------ C1, C4 */

START_TEST(test_lost_answer_charges_twice_at_least_once_and_once_with_a_key)
{
    Scenario *scenario = load(lost_answer_world);
    Metrics at_most_once = run_mode(scenario, MODE_AT_MOST_ONCE, 1);
    Metrics at_least_once = run_mode(scenario, MODE_AT_LEAST_ONCE, 1);
    Metrics idempotent = run_mode(scenario, MODE_IDEMPOTENT, 1);

    ck_assert_uint_eq(at_most_once.attempts, 1);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_PHANTOM], 1); /* charged, never told */
    ck_assert_int_eq(at_most_once.balances[0].actual, 10000 - 1500);

    ck_assert_uint_eq(at_least_once.attempts, 2);
    ck_assert_uint_eq(at_least_once.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_int_eq(at_least_once.double_amount, 1500);
    ck_assert_int_eq(at_least_once.balances[0].actual, 10000 - 3000);

    ck_assert_uint_eq(idempotent.attempts, 2);
    ck_assert_uint_eq(idempotent.executions, 1);
    ck_assert_uint_eq(idempotent.replayed, 1);
    ck_assert_uint_eq(idempotent.outcomes[OUTCOME_OK], 1);
    ck_assert_int_eq(idempotent.balances[0].actual, idempotent.balances[0].expected);
    free(scenario);
}
END_TEST

START_TEST(test_answered_attempt_is_never_retried)
{
    /* Timer cancellation seen from the model: a fast answer cancels the timeout. */
    Scenario *scenario =
        load("{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
             " \"clients\": [{\"id\": \"web\", \"count\": 20, \"workload\": {\"ops\": 5}}]}");
    Metrics metrics = run_mode(scenario, MODE_AT_LEAST_ONCE, 7);
    ck_assert_uint_eq(metrics.operations, 100);
    ck_assert_uint_eq(metrics.attempts, 100);
    ck_assert_uint_eq(metrics.executions, 100);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 100);
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ C7, C9 */

/* The network duplicates every request: two copies of attempt 1 reach the server at once. */
static const char *const duplicated_request_world_format =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 5000}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"uniform\", \"min\": 10, \"max\": 12}},"
    "   \"links\": {\"web->server\": {\"duplicate\": 1.0}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 100},"
    "   \"idempotency\": {\"reserve\": \"%s\", \"race_window_ms\": 20}}}";

static Metrics run_duplicated_request(const char *reserve)
{
    char json[2048];
    snprintf(json, sizeof json, duplicated_request_world_format, reserve);
    Scenario *scenario = load(json);
    Metrics metrics = run_mode(scenario, MODE_IDEMPOTENT, 3);
    free(scenario);
    return metrics;
}

START_TEST(test_atomic_reservation_executes_concurrent_duplicates_once)
{
    Metrics metrics = run_duplicated_request("atomic");
    ck_assert_uint_eq(metrics.executions, 1);
    ck_assert_uint_ge(metrics.status_409, 1);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 1);
}
END_TEST

START_TEST(test_check_then_insert_lets_a_duplicate_inside_the_window_execute)
{
    Metrics metrics = run_duplicated_request("check-then-insert");
    ck_assert_uint_eq(metrics.executions, 2);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

START_TEST(test_execute_then_save_lets_a_concurrent_duplicate_execute)
{
    Metrics metrics = run_duplicated_request("execute-then-save");
    ck_assert_uint_eq(metrics.executions, 2);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* ------------------------------------------------------------------ C6, C13 */

static Metrics run_lost_answer_with_key(const char *key)
{
    char json[2048];
    const char *marker = "\"workload\"";
    const char *at = strstr(lost_answer_world, marker);
    snprintf(json, sizeof json, "%.*s\"key\": \"%s\", %s", (int)(at - lost_answer_world),
             lost_answer_world, key, at);
    Scenario *scenario = load(json);
    Metrics metrics = run_mode(scenario, MODE_IDEMPOTENT, 1);
    free(scenario);
    return metrics;
}

START_TEST(test_keys_made_per_attempt_or_by_the_server_never_match)
{
    Metrics per_attempt = run_lost_answer_with_key("per-attempt");
    Metrics server_generated = run_lost_answer_with_key("server-generated");
    Metrics per_click = run_lost_answer_with_key("per-click");
    ck_assert_uint_eq(per_attempt.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(server_generated.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(per_click.outcomes[OUTCOME_OK], 1);
}
END_TEST

static const char *const double_click_world_format =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0]}, \"key\": \"%s\","
    "   \"double_click\": {\"prob\": 1.0, \"delay_ms\": {\"dist\": \"const\", \"value\": 300}}}],"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5}}}";

START_TEST(test_double_click_charges_twice_with_per_click_keys_once_with_business_hash)
{
    char json[2048];
    snprintf(json, sizeof json, double_click_world_format, "per-click");
    Scenario *scenario = load(json);
    Metrics per_click = run_mode(scenario, MODE_IDEMPOTENT, 1);
    free(scenario);
    snprintf(json, sizeof json, double_click_world_format, "business-hash");
    scenario = load(json);
    Metrics business_hash = run_mode(scenario, MODE_IDEMPOTENT, 1);
    free(scenario);
    ck_assert_uint_eq(per_click.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(business_hash.outcomes[OUTCOME_OK], 1);
    ck_assert_uint_eq(business_hash.replayed, 1);
}
END_TEST

/* ------------------------------------------------------------------ C2 */

static const char *const offline_world_format =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"app\", \"workload\": {\"at_ms\": [0]},"
    "   \"offline\": {\"prob\": 1.0, \"duration_ms\": {\"dist\": \"const\", \"value\": 60000}}}],"
    " \"server\": {\"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "   \"idempotency\": {\"ttl_ms\": %d, \"cleanup_interval_ms\": 1000}}}";

START_TEST(test_key_outliving_the_offline_period_protects_and_a_shorter_ttl_does_not)
{
    char json[2048];
    snprintf(json, sizeof json, offline_world_format, 3600000);
    Scenario *scenario = load(json);
    Metrics long_ttl = run_mode(scenario, MODE_IDEMPOTENT, 1);
    free(scenario);
    snprintf(json, sizeof json, offline_world_format, 30000);
    scenario = load(json);
    Metrics short_ttl = run_mode(scenario, MODE_IDEMPOTENT, 1);
    free(scenario);
    ck_assert_uint_eq(long_ttl.outcomes[OUTCOME_OK], 1);
    ck_assert_uint_eq(long_ttl.replayed, 1);
    ck_assert_uint_eq(short_ttl.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* ------------------------------------------------------------------ closed forms */

/* n operations, request loss p, response loss q, delays far below the timeout so no answer
 * is ever late. */
static Scenario *lossy_world(uint32_t count, double p, double q, uint32_t attempts)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
             " \"clients\": [{\"id\": \"web\", \"count\": %u, \"workload\": {\"ops\": 10},"
             "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": %u}}],"
             " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"uniform\", \"min\": 5, "
             "\"max\": 50}},"
             "   \"links\": {\"web->server\": {\"loss\": %g}, \"server->web\": {\"loss\": %g}}},"
             " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1}}}",
             count, attempts, p, q);
    return load(json);
}

/* A binomial proportion's tolerance: 5 standard deviations of the sample mean. */
static double binomial_tolerance(double probability, double n)
{
    return 5.0 * sqrt(probability * (1.0 - probability) / n);
}

START_TEST(test_at_most_once_loses_and_hides_payments_as_independent_losses_predict)
{
    const double p = 0.1, q = 0.2;
    Scenario *scenario = lossy_world(2000, p, q, 5);
    Metrics metrics = run_mode(scenario, MODE_AT_MOST_ONCE, 11);
    double n = (double)metrics.operations;
    ck_assert_uint_eq(metrics.operations, 20000);
    double lost = metrics.outcomes[OUTCOME_LOST] / n;
    double phantom = metrics.outcomes[OUTCOME_PHANTOM] / n;
    ck_assert_msg(fabs(lost - p) < binomial_tolerance(p, n), "lost %f, expected %f", lost, p);
    ck_assert_msg(fabs(phantom - (1 - p) * q) < binomial_tolerance((1 - p) * q, n),
                  "phantom %f, expected %f", phantom, (1 - p) * q);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 0);
    free(scenario);
}
END_TEST

START_TEST(test_at_least_once_executions_per_operation_match_the_closed_form)
{
    /* Attempt k runs only if attempts 1..k-1 did not both execute and get answered:
     * s = (1-p)(1-q) per attempt, so E[executions] = (1-p) * (1 - (1-s)^R) / s. */
    const double p = 0.2, q = 0.3;
    const int R = 4;
    Scenario *scenario = lossy_world(2000, p, q, (uint32_t)R);
    Metrics metrics = run_mode(scenario, MODE_AT_LEAST_ONCE, 12);
    double n = (double)metrics.operations;
    double s = (1 - p) * (1 - q);
    double expected = (1 - p) * (1 - pow(1 - s, R)) / s;
    double measured = metrics.executions / n;
    /* Executions per operation are bounded by R: variance <= R^2 / 4. */
    double tolerance = 5.0 * (R / 2.0) / sqrt(n);
    ck_assert_msg(fabs(measured - expected) < tolerance, "executions/op %f, expected %f +- %f",
                  measured, expected, tolerance);
    double give_up = metrics.client_unknown / n;
    ck_assert_msg(fabs(give_up - pow(1 - s, R)) < binomial_tolerance(pow(1 - s, R), n),
                  "gave up %f, expected %f", give_up, pow(1 - s, R));
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ properties */

START_TEST(test_every_operation_has_one_outcome_and_keys_prevent_doubles_over_many_seeds)
{
    Scenario *scenario = lossy_world(20, 0.2, 0.3, 5);
    for (uint64_t seed = 1; seed <= 30; seed++) {
        for (int m = 0; m < MODE_COUNT; m++) {
            Metrics metrics = run_mode(scenario, (Mode)m, seed);
            uint64_t total = 0;
            for (int o = 0; o < OUTCOME_COUNT; o++)
                total += metrics.outcomes[o];
            ck_assert_uint_eq(total, metrics.operations);
            if (m == MODE_IDEMPOTENT) {
                ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 0);
                /* a payment that never happened is never reported as a success */
                ck_assert_uint_le(metrics.outcomes[OUTCOME_LOST],
                                  metrics.client_unknown + metrics.client_failed);
            }
            if (m == MODE_AT_MOST_ONCE)
                ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 0);
        }
    }
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ determinism */

typedef struct {
    uint64_t hash;
    uint64_t records;
} TraceHash;

static void hash_record(void *context, const TraceRecord *record)
{
    TraceHash *trace = context;
    uint64_t h = trace->hash;
    h = rng_hash(h, record->t_us, record->operation, record->attempt, (uint64_t)record->value);
    for (const char *c = trace_event_name(record->event); *c; c++)
        h = rng_mix64(h ^ (uint64_t)(unsigned char)*c);
    for (const char *c = record->actor_name; *c; c++)
        h = rng_mix64(h ^ (uint64_t)(unsigned char)*c);
    trace->hash = h;
    trace->records++;
}

typedef enum { RUN_WHOLE, RUN_STEP_BY_STEP, RUN_IN_BATCHES } RunStyle;

static TraceHash trace_of(const Scenario *scenario, Mode mode, RunStyle style)
{
    TraceHash trace = {0};
    World *world =
        world_create(scenario, mode, 5, (TraceSink){hash_record, &trace}, (WorldLimits){0});
    if (style == RUN_STEP_BY_STEP) {
        while (world_step(world)) {
        }
    } else if (style == RUN_IN_BATCHES) {
        for (;;) { /* a batch of 777 runs 777 events unless the world finishes inside it */
            uint64_t ran = world_run_events(world, 777);
            if (world_finished(world))
                break;
            ck_assert_uint_eq(ran, 777);
        }
    } else {
        world_run(world);
    }
    world_destroy(world);
    return trace;
}

START_TEST(test_same_seed_gives_the_same_trace_whether_run_stepped_or_batched)
{
    Scenario *scenario = lossy_world(50, 0.1, 0.1, 5);
    for (int m = 0; m < MODE_COUNT; m++) {
        TraceHash first = trace_of(scenario, (Mode)m, RUN_WHOLE);
        TraceHash second = trace_of(scenario, (Mode)m, RUN_WHOLE);
        TraceHash stepped = trace_of(scenario, (Mode)m, RUN_STEP_BY_STEP);
        TraceHash batched = trace_of(scenario, (Mode)m, RUN_IN_BATCHES);
        ck_assert_uint_gt(first.records, 500);
        ck_assert_uint_eq(first.hash, second.hash);
        ck_assert_uint_eq(first.hash, stepped.hash);
        ck_assert_uint_eq(first.hash, batched.hash);
    }
    free(scenario);
}
END_TEST

/* A view shows a mode as done once its outcomes are final, which can be long before the world
 * runs out of timers (the key store's sweeps): from then on no outcome or balance changes. */
START_TEST(test_outcomes_are_final_before_the_last_timer_and_never_change_after)
{
    Scenario *scenario = test_load_source_file("scenarios/default.json", NULL, 0);
    World *world =
        world_create(scenario, MODE_IDEMPOTENT, scenario->seed, (TraceSink){0}, (WorldLimits){0});
    ck_assert(!world_outcomes_final(world)); /* the first starts are on the queue */
    while (!world_outcomes_final(world))
        ck_assert(world_step(world));
    ck_assert(!world_finished(world));
    SimTimeUs final_at_us = world_now(world);
    Metrics at_final = *world_metrics(world);
    ck_assert_uint_eq(at_final.operations_settled, at_final.operations);
    world_run(world);
    const Metrics *at_end = world_metrics(world);
    ck_assert_uint_gt(world_now(world), final_at_us);
    ck_assert_uint_eq(at_end->operations, at_final.operations);
    ck_assert_mem_eq(at_end->outcomes, at_final.outcomes, sizeof at_final.outcomes);
    for (uint32_t a = 0; a < scenario->account_count; a++)
        ck_assert_int_eq(at_end->balances[a].actual, at_final.balances[a].actual);
    world_destroy(world);
    free(scenario);
}
END_TEST

START_TEST(test_modes_meet_the_same_network_faults)
{
    /* Common random numbers: with no retries at all, at-least-once and at-most-once send the
     * same messages, so they must lose exactly the same ones. */
    Scenario *scenario = lossy_world(100, 0.2, 0.2, 1);
    Metrics at_most_once = run_mode(scenario, MODE_AT_MOST_ONCE, 9);
    Metrics at_least_once = run_mode(scenario, MODE_AT_LEAST_ONCE, 9);
    ck_assert_uint_gt(at_most_once.network_dropped, 0);
    ck_assert_uint_eq(at_most_once.network_dropped, at_least_once.network_dropped);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_LOST], at_least_once.outcomes[OUTCOME_LOST]);
    free(scenario);
}
END_TEST

START_TEST(test_every_metric_name_of_the_format_has_a_value)
{
    Scenario *scenario = lossy_world(2, 0.1, 0.1, 3);
    Metrics metrics = run_mode(scenario, MODE_IDEMPOTENT, 1);
    for (unsigned i = 0; i < scenario_metric_count; i++) {
        double value = -1;
        ck_assert_msg(metrics_value(&metrics, scenario_metric_names[i], &value), "no value for %s",
                      scenario_metric_names[i]);
    }
    double value = 0;
    ck_assert(!metrics_value(&metrics, "no_such_metric", &value));
    free(scenario);
}
END_TEST

START_TEST(test_budgets_stop_a_run_exactly_and_say_why)
{
    Scenario *scenario = lossy_world(50, 0.1, 0.1, 5);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0},
                                (WorldLimits){.max_events = 1000});
    world_run(world);
    ck_assert_uint_eq(world_metrics(world)->events, 1000);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_EVENTS);
    ck_assert_uint_eq(world_stop(world).limit, 1000);
    uint64_t counted = 0;
    for (int o = 0; o < OUTCOME_COUNT; o++)
        counted += world_metrics(world)->outcomes[o];
    ck_assert_uint_eq(counted, world_metrics(world)->operations); /* the unfinished too */
    world_destroy(world);
    world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0},
                         (WorldLimits){.max_sim_time_us = 2000000});
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_SIM_TIME);
    ck_assert_uint_eq(world_stop(world).limit, 2000000);
    ck_assert_uint_le(world_now(world), 2000000);
    world_destroy(world);
    world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0},
                         (WorldLimits){.max_memory_bytes = 1});
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_MEMORY);
    world_destroy(world);
    free(scenario);
}
END_TEST

/* A key store's sweep far beyond the time budget is housekeeping: once every operation has
 * settled, the run ends there by itself, not "stopped". */
START_TEST(test_a_sweep_past_the_time_budget_ends_a_finished_run_without_a_stop)
{
    const char *sparse_sweeps[] = {"server.idempotency.cleanup_interval_ms=1000000000"};
    Scenario *scenario = test_load_source_file("scenarios/default.json", sparse_sweeps, 1);
    World *world =
        world_create(scenario, MODE_IDEMPOTENT, scenario->seed, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_NONE);
    ck_assert_uint_eq(world_metrics(world)->operations_settled, 1000);
    world_destroy(world);
    /* The same budget still stops a run whose payments are not all settled. */
    world = world_create(scenario, MODE_IDEMPOTENT, scenario->seed, (TraceSink){0},
                         (WorldLimits){.max_sim_time_us = 2000000});
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_SIM_TIME);
    world_destroy(world);
    free(scenario);
}
END_TEST

static Suite *world_suite(void)
{
    Suite *suite = suite_create("world");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_lost_answer_charges_twice_at_least_once_and_once_with_a_key);
    tcase_add_test(core, test_answered_attempt_is_never_retried);
    tcase_add_test(core, test_outcomes_are_final_before_the_last_timer_and_never_change_after);
    tcase_add_test(core, test_atomic_reservation_executes_concurrent_duplicates_once);
    tcase_add_test(core, test_check_then_insert_lets_a_duplicate_inside_the_window_execute);
    tcase_add_test(core, test_execute_then_save_lets_a_concurrent_duplicate_execute);
    tcase_add_test(core, test_keys_made_per_attempt_or_by_the_server_never_match);
    tcase_add_test(core,
                   test_double_click_charges_twice_with_per_click_keys_once_with_business_hash);
    tcase_add_test(core, test_key_outliving_the_offline_period_protects_and_a_shorter_ttl_does_not);
    tcase_add_test(core, test_same_seed_gives_the_same_trace_whether_run_stepped_or_batched);
    tcase_add_test(core, test_modes_meet_the_same_network_faults);
    tcase_add_test(core, test_every_metric_name_of_the_format_has_a_value);
    tcase_add_test(core, test_budgets_stop_a_run_exactly_and_say_why);
    tcase_add_test(core, test_a_sweep_past_the_time_budget_ends_a_finished_run_without_a_stop);
    suite_add_tcase(suite, core);
    TCase *statistics = tcase_create("Statistics");
    tcase_add_test(statistics,
                   test_at_most_once_loses_and_hides_payments_as_independent_losses_predict);
    tcase_add_test(statistics, test_at_least_once_executions_per_operation_match_the_closed_form);
    tcase_add_test(statistics,
                   test_every_operation_has_one_outcome_and_keys_prevent_doubles_over_many_seeds);
    suite_add_tcase(suite, statistics);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(world_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
