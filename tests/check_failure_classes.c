/* Error classes (issue 13): a gateway decline is a definite 402 that the client is told and
 * does not retry; a 5xx is ambiguous and follows its own policy, where `retryable` keeps the
 * failed row yet lets the next attempt start afresh, `store` replays the stored error and
 * `delete` forgets the key. Each test fails on the model before error classes (a decline was
 * a retried 502, and there was no `retryable`). */
#include "test_world.h"

#define OPERATIONS 40

static const char *const declines =
    "{\"name\": \"declines\", \"seed\": 3, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 4, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}},"
    "   \"retry\": {\"timeout_ms\": 3000, \"max_attempts\": 4}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"server\": {\"use_gateway\": true},"
    " \"gateway\": {\"fail\": 1, \"latency_ms\": {\"dist\": \"const\", \"value\": 10}}}";

START_TEST(test_a_decline_is_definite_told_and_not_retried)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_json(declines, NULL, 0, mode);
        ck_assert_uint_eq(metrics.operations, OPERATIONS);
        ck_assert_uint_eq(metrics.attempts, OPERATIONS); /* nobody retries a 402 */
        ck_assert_uint_eq(metrics.client_failed, OPERATIONS);
        ck_assert_uint_eq(metrics.effects, 0);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_LOST], OPERATIONS);
    }
}
END_TEST

/* The server fails before its effect on every first try (fail_before_effect draws per
 * attempt, so a retry may pass): 500, ambiguous. */
static const char *const failing =
    "{\"name\": \"failing\", \"seed\": 8, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 4, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}},"
    "   \"retry\": {\"timeout_ms\": 3000, \"max_attempts\": 6, \"retry_on\": [\"timeout\", "
    "\"5xx\"], \"backoff\": {\"base_ms\": 10, \"max_ms\": 10, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"server\": {\"fail_before_effect\": 0.5, \"idempotency\": {\"on_failure\": "
    "{\"ambiguous\": \"%s\"}}}}";

static Metrics run_failing(const char *policy)
{
    char json[2048];
    snprintf(json, sizeof json, failing, policy);
    return test_run_json(json, NULL, 0, MODE_IDEMPOTENT);
}

START_TEST(test_retryable_starts_afresh_where_store_replays_the_error)
{
    Metrics retryable = run_failing("retryable");
    Metrics stored = run_failing("store");
    Metrics deleted = run_failing("delete");
    /* a stored 500 is replayed to every retry: those payments never run */
    ck_assert_uint_gt(stored.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_gt(stored.replayed, 0);
    /* retryable and delete both let the retry run; nothing ran twice (the failure came
     * before the effect) */
    ck_assert_uint_eq(retryable.outcomes[OUTCOME_LOST], deleted.outcomes[OUTCOME_LOST]);
    ck_assert_uint_lt(retryable.outcomes[OUTCOME_LOST], stored.outcomes[OUTCOME_LOST]);
    ck_assert_uint_eq(retryable.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(retryable.replayed, 0);
    ck_assert_uint_eq(retryable.effects, deleted.effects);
}
END_TEST

/* A string sets both classes; an object sets the class it names and keeps the other's
 * default; "mark-failed" is the old name of "store". */
START_TEST(test_on_failure_reads_a_string_or_an_object)
{
    static const char *const base = "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", "
                                    "\"balance\": 1}], \"clients\": [{\"id\": \"web\", "
                                    "\"count\": 1}]}";
    const char *const both[] = {"server.idempotency.on_failure=\"retryable\""};
    Scenario *scenario = test_load(base, both, 1);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.definite, ON_FAILURE_RETRYABLE);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.ambiguous, ON_FAILURE_RETRYABLE);
    free(scenario);
    const char *const one[] = {"server.idempotency.on_failure={\"ambiguous\": \"mark-failed\"}"};
    scenario = test_load(base, one, 1);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.definite, ON_FAILURE_STORE);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.ambiguous, ON_FAILURE_STORE);
    free(scenario);
    scenario = test_load(base, NULL, 0);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.definite, ON_FAILURE_STORE);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.ambiguous, ON_FAILURE_DELETE);
    free(scenario);
}
END_TEST

static Suite *failure_classes_suite(void)
{
    Suite *suite = suite_create("failure_classes");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_decline_is_definite_told_and_not_retried);
    tcase_add_test(core, test_retryable_starts_afresh_where_store_replays_the_error);
    tcase_add_test(core, test_on_failure_reads_a_string_or_an_object);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(failure_classes_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
