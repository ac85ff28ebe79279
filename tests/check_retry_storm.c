/* Retry storms (C22) against closed forms: a shed request runs nothing and leaves no key; a
 * Retry-After is honoured exactly when the client is asked to, and never early; a retry
 * budget of ratio r, bucket B and min_per_s m allows at most B + r x requests + m x seconds
 * retries; and after an outage that resets every connection at one instant, retries
 * without jitter land at one instant, while full jitter spreads them uniformly over the
 * backoff (a Kolmogorov-Smirnov bound derived from the sample size). */
#include "test_world.h"
#include "trace.h"

/* ------------------------------------------------------------------ a trace of the retries */

#define RETRIES_MAX 8192

typedef struct {
    uint32_t count;
    SimTimeUs t_us[RETRIES_MAX];
    uint32_t attempt[RETRIES_MAX];
    SimTimeUs last_us;
} Retries;

static void collect_retries(void *context, const TraceRecord *record)
{
    Retries *retries = context;
    if (record->event != TRACE_RETRY)
        return;
    ck_assert_uint_lt(retries->count, RETRIES_MAX);
    retries->t_us[retries->count] = record->t_us;
    retries->attempt[retries->count] = record->attempt;
    retries->count++;
    retries->last_us = record->t_us;
}

/* Runs one mode of json with overrides; the retries it sent go to *retries. */
static Metrics run_collecting(const char *json, const char *const *overrides, uint32_t count,
                              Mode mode, Retries *retries)
{
    Scenario *scenario = test_load(json, overrides, count);
    memset(retries, 0, sizeof *retries);
    World *world =
        world_create(scenario, mode, scenario->seed,
                     (TraceSink){.write = collect_retries, .context = retries}, (WorldLimits){0});
    world_run(world);
    Metrics metrics = *world_metrics(world);
    world_destroy(world);
    free(scenario);
    return metrics;
}

/* ------------------------------------------------------------------ shedding */

/* One worker, no queue, a payment that takes 1 s: of three payments sent at once, the first
 * runs and the other two are shed with 503 before anything looks at their keys. */
static const char *const crowded =
    "{\"name\": \"crowded\", \"seed\": 3, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 3, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 20000, \"max_attempts\": 1,"
    "     \"backoff\": {\"base_ms\": 100, \"factor\": 1, \"max_ms\": 100, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"server\": {\"workers\": 1, \"queue\": 0,"
    "   \"shed\": {\"status\": 503, \"retry_after_ms\": 3000},"
    "   \"service_ms\": {\"dist\": \"const\", \"value\": 1000}}}";

START_TEST(test_a_shed_request_has_no_effect_and_no_key)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_json(crowded, NULL, 0, mode);
        ck_assert_uint_eq(metrics.operations, 3);
        ck_assert_uint_eq(metrics.shed, 2);
        ck_assert_uint_eq(metrics.executions, 1);
        ck_assert_uint_eq(metrics.effects, 1);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_LOST], 2); /* never retried: never run */
        ck_assert_uint_eq(metrics.key_store_peak, mode == MODE_IDEMPOTENT ? 1 : 0);
    }
}
END_TEST

/* Shed requests are safe to retry: with retries, all three run once, keyed or not. */
START_TEST(test_a_retried_shed_request_runs_once)
{
    const char *const overrides[] = {"clients[0].retry.max_attempts=5",
                                     "clients[0].retry.backoff.base_ms=1500",
                                     "clients[0].retry.backoff.max_ms=1500"};
    for (Mode mode = MODE_AT_LEAST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_json(crowded, overrides, 3, mode);
        ck_assert_uint_gt(metrics.shed, 0);
        ck_assert_uint_eq(metrics.effects, 3);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 3);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 0);
    }
}
END_TEST

/* The shed answer reaches the client at 2 ms (1 ms each way). Asked to honour Retry-After,
 * the client retries at 2 + 3000 ms exactly, though its backoff says 100 ms; not asked, at
 * 2 + 100 ms. 429 is retried as a 503 is. */
START_TEST(test_retry_after_is_honoured_exactly_when_asked)
{
    static const struct {
        const char *honour;
        const char *status;
        SimTimeUs retry_us;
    } cases[] = {
        {"clients[0].retry.honour_retry_after=true", "server.shed.status=503", 3002000},
        {"clients[0].retry.honour_retry_after=true", "server.shed.status=429", 3002000},
        {"clients[0].retry.honour_retry_after=false", "server.shed.status=503", 102000},
        {"clients[0].retry.honour_retry_after=false", "server.shed.status=429", 102000},
    };
    static Retries retries;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *const overrides[] = {"clients[0].retry.max_attempts=2", cases[c].honour,
                                         cases[c].status};
        Metrics metrics = run_collecting(crowded, overrides, 3, MODE_IDEMPOTENT, &retries);
        ck_assert_uint_ge(metrics.shed, 2);
        ck_assert_uint_eq(retries.count, 2);
        for (uint32_t i = 0; i < retries.count; i++)
            ck_assert_uint_eq(retries.t_us[i], cases[c].retry_us);
    }
}
END_TEST

/* ------------------------------------------------------------------ the retry budget */

/* Every run fails with 500 before its effect, and each payment would retry 99 times: the
 * budget alone decides how many retries go out. */
static const char *const failing =
    "{\"name\": \"failing\", \"seed\": 4, \"duration_ms\": 20000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 20, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 1000, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 100}},"
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 100, \"retry_on\": [\"5xx\"],"
    "     \"backoff\": {\"base_ms\": 10, \"factor\": 1, \"max_ms\": 10, \"jitter\": \"none\"},"
    "     \"budget\": {\"ratio\": 0.1, \"min_per_s\": 0, \"max_tokens\": 1}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"server\": {\"workers\": 0, \"fail_before_effect\": 1.0,"
    "   \"service_ms\": {\"dist\": \"const\", \"value\": 5}}}";

/* Many clients at once: retries <= B + r x requests, B = 1, r = 0.1. Deposits that find
 * the bucket full are lost, so the bound is not always reached. */
START_TEST(test_a_budget_caps_retries_at_ratio_times_requests)
{
    for (Mode mode = MODE_AT_LEAST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_json(failing, NULL, 0, mode);
        double cap = 1.0 + 0.1 * (double)metrics.operations;
        ck_assert_uint_gt(metrics.operations, 1000);
        ck_assert_double_le((double)metrics.retries, cap);
        ck_assert_double_ge((double)metrics.retries, 0.8 * cap);
        /* every payment ends at the budget, none runs out of attempts */
        ck_assert_uint_eq(metrics.retries_throttled, metrics.operations);
        ck_assert_uint_eq(metrics.attempts, metrics.operations + metrics.retries);
    }
}
END_TEST

/* One client, one payment at a time: the bucket starts full (one token, spent by the first
 * payment's retry), then every tenth request earns exactly one retry: retries = 1 +
 * floor((N - 1) / 10). */
START_TEST(test_one_client_earns_one_retry_per_ten_requests)
{
    const char *const overrides[] = {"clients[0].count=1"};
    Metrics metrics = test_run_json(failing, overrides, 1, MODE_AT_LEAST_ONCE);
    uint64_t n = metrics.operations;
    ck_assert_uint_gt(n, 100);
    ck_assert_uint_eq(metrics.retries, 1 + (n - 1) / 10);
    ck_assert_uint_eq(metrics.retries_throttled, n);
}
END_TEST

/* With min_per_s m and no ratio: retries <= 1 + m x (time of the last retry). */
START_TEST(test_a_budget_floor_allows_min_per_second)
{
    const char *const overrides[] = {"clients[0].retry.budget.ratio=0",
                                     "clients[0].retry.budget.min_per_s=5"};
    static Retries retries;
    Metrics metrics = run_collecting(failing, overrides, 2, MODE_AT_LEAST_ONCE, &retries);
    double cap = 1.0 + 5.0 * (double)retries.last_us / 1e6;
    ck_assert_double_le((double)metrics.retries, cap);
    ck_assert_double_ge((double)metrics.retries, 0.9 * cap); /* a full bucket loses a little */
    ck_assert_uint_gt(metrics.retries, 90);                  /* ~ 5 x 20 s */
}
END_TEST

/* Without a budget, the same world retries every payment 99 times. */
START_TEST(test_without_a_budget_every_retry_goes_out)
{
    const char *const overrides[] = {"clients[0].workload.ops=2"};
    Scenario *scenario = test_load(failing, overrides, 1);
    scenario->client_groups[0].retry.budget.enabled = false;
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    free(scenario);
    ck_assert_uint_eq(metrics.retries_throttled, 0);
    ck_assert_uint_eq(metrics.retries, 99 * metrics.operations);
}
END_TEST

/* gRPC's retry throttling (A6): the count starts at B, each failed attempt takes one, and
 * no retry goes out once it is at or below B / 2. With every attempt failing and no success
 * to earn any back, the f-th failure is retried iff B - f > B / 2: retries = ceil(B / 2) - 1,
 * for any number of requests and clients (the count only falls). Finagle's bucket in the
 * same world keeps earning retries per request (above). */
START_TEST(test_grpc_throttling_stops_retrying_at_half_the_tokens)
{
    static const struct {
        const char *count;
        const char *budget;
        uint64_t retries;
    } cases[] = {
        {"clients[0].count=1", "clients[0].retry.budget={\"kind\": \"grpc\", \"max_tokens\": 10}",
         4},
        {"clients[0].count=20", "clients[0].retry.budget={\"kind\": \"grpc\", \"max_tokens\": 10}",
         4},
        {"clients[0].count=20", "clients[0].retry.budget={\"kind\": \"grpc\", \"max_tokens\": 7}",
         3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const overrides[] = {cases[i].count, cases[i].budget};
        Metrics metrics = test_run_json(failing, overrides, 2, MODE_AT_LEAST_ONCE);
        ck_assert_uint_gt(metrics.operations, 100);
        ck_assert_uint_eq(metrics.retries, cases[i].retries);
        ck_assert_uint_eq(metrics.retries_throttled, metrics.operations);
        ck_assert_uint_eq(metrics.attempts, metrics.operations + metrics.retries);
    }
}
END_TEST

/* Successes earn the count back: a server that fails one attempt in twenty, with a ratio
 * of 0.5 (each success adds more than a failure's share), never lets the count reach half
 * of 10 in this run, so no retry is refused; one that fails every other attempt, with a
 * ratio of 0.1, sinks it and refuses most. */
START_TEST(test_grpc_throttling_follows_the_failure_rate)
{
    const char *const healthy[] = {
        "server.fail_before_effect=0.05",
        "clients[0].retry.budget={\"kind\": \"grpc\", \"max_tokens\": 10, \"ratio\": 0.5}"};
    Metrics calm = test_run_json(failing, healthy, 2, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(calm.retries, 100);
    ck_assert_uint_eq(calm.retries_throttled, 0);
    const char *const sick[] = {
        "server.fail_before_effect=0.5",
        "clients[0].retry.budget={\"kind\": \"grpc\", \"max_tokens\": 10, \"ratio\": 0.1}"};
    Metrics throttled = test_run_json(failing, sick, 2, MODE_AT_LEAST_ONCE);
    /* expected drift per attempt: 0.5 x 0.1 - 0.5 < 0: the count sits at half, and a retry
     * goes out only after a success lifts it above */
    ck_assert_uint_gt(throttled.retries_throttled, throttled.retries);
}
END_TEST

/* ------------------------------------------------------------------ waves after an outage */

/* N payments sent at 0 to a server that takes 5 s: at 1000 ms the server goes down until
 * 3000 ms and resets them all at once. Resets reach the clients at 1001 ms. */
static const char *const outage =
    "{\"name\": \"outage\", \"seed\": 9, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 50, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 20000, \"max_attempts\": 4,"
    "     \"backoff\": {\"base_ms\": 500, \"factor\": 2, \"max_ms\": 8000, \"jitter\": "
    "\"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 5000},"
    "   \"outage\": {\"from_ms\": 1000, \"to_ms\": 3000},"
    "   \"idempotency\": {\"lock_timeout_ms\": 1000}}}";

/* Jitter none: attempt 2 at 1001 + 500 = 1501 ms, reset at 1503 ms (the server is still
 * down); attempt 3 at 1503 + 1000 = 2503 ms, reset at 2505 ms; attempt 4 at 2505 + 2000 =
 * 4505 ms, when the server is back. Every client, in the same microsecond. */
START_TEST(test_without_jitter_retries_after_an_outage_land_in_one_instant)
{
    static Retries retries;
    for (Mode mode = MODE_AT_LEAST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = run_collecting(outage, NULL, 0, mode, &retries);
        ck_assert_uint_eq(metrics.resets, 50 * 3); /* held at 1000 ms, then two waves */
        ck_assert_uint_eq(retries.count, 50 * 3);
        static const SimTimeUs wave_us[] = {0, 0, 1501000, 2503000, 4505000};
        for (uint32_t i = 0; i < retries.count; i++)
            ck_assert_uint_eq(retries.t_us[i], wave_us[retries.attempt[i]]);
        ck_assert_uint_eq(metrics.effects, 50); /* the fourth attempt runs, once each */
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 50);
    }
    Metrics once = test_run_json(outage, NULL, 0, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(once.resets, 50);
    ck_assert_uint_eq(once.outcomes[OUTCOME_LOST], 50); /* reset, never retried */
}
END_TEST

static int compare_times(const void *a, const void *b)
{
    SimTimeUs x = *(const SimTimeUs *)a, y = *(const SimTimeUs *)b;
    return (x > y) - (x < y);
}

/* Full jitter: attempt 2 goes at 1001 ms + U[0, 500 ms). The empirical distribution of n
 * such times is within the Kolmogorov-Smirnov bound 1.63 / sqrt(n) (1% level) of the
 * uniform one; and no two of 2000 clients share an instant the way jitter none made all 50
 * do. */
START_TEST(test_with_full_jitter_retries_after_an_outage_spread_uniformly)
{
    const char *const overrides[] = {"clients[0].count=2000",
                                     "clients[0].retry.backoff.jitter=\"full\"",
                                     "clients[0].retry.max_attempts=2"};
    static Retries retries;
    Metrics metrics = run_collecting(outage, overrides, 3, MODE_AT_LEAST_ONCE, &retries);
    ck_assert_uint_eq(metrics.resets, 2000 + 2000); /* held at 1000 ms, then each retry */
    ck_assert_uint_eq(retries.count, 2000);
    static SimTimeUs times[RETRIES_MAX];
    for (uint32_t i = 0; i < retries.count; i++) {
        ck_assert_uint_eq(retries.attempt[i], 2);
        ck_assert_uint_ge(retries.t_us[i], 1001000);
        ck_assert_uint_lt(retries.t_us[i], 1501000);
        times[i] = retries.t_us[i] - 1001000;
    }
    qsort(times, retries.count, sizeof times[0], compare_times);
    double n = retries.count, distance = 0;
    for (uint32_t i = 0; i < retries.count; i++) {
        double x = (double)times[i] / 500000.0;
        double above = (i + 1) / n - x, below = x - i / n;
        distance = fmax(distance, fmax(above, below));
    }
    ck_assert_double_le(distance, 1.63 / sqrt(n));
    uint32_t same_instant = 0;
    for (uint32_t i = 1; i < retries.count; i++)
        same_instant += times[i] == times[i - 1];
    ck_assert_uint_lt(same_instant, 20); /* µs collisions of 2000 draws over 500,000 µs: ~4 */
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

static void assert_refused(const char *json, const char *path, const char *words)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors));
    bool found = false;
    for (uint32_t i = 0; i < errors.count; i++)
        found |= strcmp(errors.items[i].path, path) == 0 &&
                 strstr(errors.items[i].message, words) != NULL;
    ck_assert_msg(found, "no error at %s saying '%s' (first: %s: %s)", path, words,
                  errors.items[0].path, errors.items[0].message);
    free(scenario);
}

#define WORLD_WITH(server_, retry_)                                                                \
    "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"                           \
    " \"clients\": [{\"id\": \"web\", \"retry\": {" retry_ "}}], \"server\": {" server_ "}}"

START_TEST(test_contradictory_storm_options_are_refused)
{
    assert_refused(WORLD_WITH("\"shed\": {\"status\": 429}", ""), "$.server.shed",
                   "expected \"queue\"");
    assert_refused(WORLD_WITH("\"workers\": 0, \"queue\": 5", ""), "$.server.queue",
                   "\"workers\" > 0");
    assert_refused(WORLD_WITH("\"queue\": 5, \"shed\": {\"status\": 500}", ""),
                   "$.server.shed.status", "expected 429 or 503");
    assert_refused(WORLD_WITH("\"outage\": {\"from_ms\": 10, \"to_ms\": 10}", ""),
                   "$.server.outage.to_ms", "expected number > from_ms");
    assert_refused(WORLD_WITH("\"outage\": {\"to_ms\": 10}", ""), "$.server.outage",
                   "missing required key 'from_ms'");
    assert_refused(WORLD_WITH("\"outage\": {\"from_ms\": 1, \"to_ms\": 10},"
                              " \"crash\": {\"point\": \"after-effect\", \"prob\": 0.1}",
                              ""),
                   "$.server.outage", "crash");
    assert_refused(WORLD_WITH("", "\"budget\": {\"ratio\": -1}"), "$.clients[0].retry.budget.ratio",
                   "expected");
    assert_refused(WORLD_WITH("", "\"budget\": {\"max_tokens\": 0.5}"),
                   "$.clients[0].retry.budget.max_tokens", "expected");
    assert_refused(WORLD_WITH("", "\"budget\": {\"kind\": \"grpc\", \"min_per_s\": 5}"),
                   "$.clients[0].retry.budget.min_per_s", "only from successful");
    assert_refused(WORLD_WITH("", "\"budget\": {\"kind\": \"grpc\", \"max_tokens\": 2000}"),
                   "$.clients[0].retry.budget.max_tokens", "<= 1000");
    assert_refused(WORLD_WITH("", "\"budget\": {\"kind\": \"envoy\"}"),
                   "$.clients[0].retry.budget.kind", "expected");
    assert_refused("{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
                   " \"clients\": [{\"id\": \"web\", \"target\": \"broker\","
                   " \"retry\": {\"honour_retry_after\": true}}]}",
                   "$.clients[0].retry.honour_retry_after", "the broker never");
    assert_refused("{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
                   " \"clients\": [{\"id\": \"web\", \"via\": \"proxy\","
                   " \"retry\": {\"honour_retry_after\": true}}]}",
                   "$.clients[0].retry.honour_retry_after", "the proxy never");
    assert_refused(WORLD_WITH("", "\"honour_retry_after\": 1"),
                   "$.clients[0].retry.honour_retry_after", "expected");
}
END_TEST

/* A scenario without any of it reports no storm: the table and JSON of every older scenario
 * stay as they were. */
START_TEST(test_storm_numbers_are_reported_only_where_used)
{
    Scenario *plain = test_load(WORLD_WITH("", ""), NULL, 0);
    ck_assert(!scenario_uses_storm(plain));
    free(plain);
    Scenario *shedding = test_load(crowded, NULL, 0);
    ck_assert(scenario_uses_storm(shedding));
    free(shedding);
}
END_TEST

static Suite *retry_storm_suite(void)
{
    Suite *suite = suite_create("retry_storm");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_shed_request_has_no_effect_and_no_key);
    tcase_add_test(core, test_a_retried_shed_request_runs_once);
    tcase_add_test(core, test_retry_after_is_honoured_exactly_when_asked);
    tcase_add_test(core, test_a_budget_caps_retries_at_ratio_times_requests);
    tcase_add_test(core, test_one_client_earns_one_retry_per_ten_requests);
    tcase_add_test(core, test_a_budget_floor_allows_min_per_second);
    tcase_add_test(core, test_without_a_budget_every_retry_goes_out);
    tcase_add_test(core, test_grpc_throttling_stops_retrying_at_half_the_tokens);
    tcase_add_test(core, test_grpc_throttling_follows_the_failure_rate);
    tcase_add_test(core, test_without_jitter_retries_after_an_outage_land_in_one_instant);
    tcase_add_test(core, test_with_full_jitter_retries_after_an_outage_spread_uniformly);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_contradictory_storm_options_are_refused);
    tcase_add_test(limits, test_storm_numbers_are_reported_only_where_used);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(retry_storm_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
