/* The retrying proxy against closed forms. The server takes a constant 1.5 s, the proxy
 * waits 1 s per try and retries twice on a timeout: each payment is tried three times, at
 * 0, 1 and 2 s, every try reaches the server while the earlier ones still run, and the
 * client finally gets 504 at 3 s. Without keys every try charges (3 effects a payment);
 * with the key forwarded the second and third tries meet the first one's reservation (409)
 * and nothing is charged twice; with the key dropped on the way, three charges again. */
#include "test_world.h"

#define OPERATIONS 12

static const char *const proxied =
    "{\"name\": \"proxy\", \"seed\": 5, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 3, \"via\": \"proxy\", \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 4, \"interval_ms\": {\"dist\": \"const\", \"value\": 5000}},"
    "   \"retry\": {\"timeout_ms\": 20000, \"max_attempts\": 3, \"retry_on\": [\"timeout\"]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"proxy\": {\"retries\": 2, \"per_try_timeout_ms\": 1000, \"retry_on\": [\"timeout\"]},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1500}}}";

START_TEST(test_every_try_charges_without_a_key)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode <= MODE_AT_LEAST_ONCE; mode++) {
        Metrics metrics = test_run_json(proxied, NULL, 0, mode);
        ck_assert_uint_eq(metrics.operations, OPERATIONS);
        ck_assert_uint_eq(metrics.attempts, OPERATIONS); /* the client sent each once */
        ck_assert_uint_eq(metrics.proxy_retries, 2 * OPERATIONS);
        ck_assert_uint_eq(metrics.proxy_timeouts, 3 * OPERATIONS);
        ck_assert_uint_eq(metrics.effects, 3 * OPERATIONS);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], OPERATIONS);
        ck_assert_int_eq(metrics.double_amount, 2 * 100 * OPERATIONS);
    }
}
END_TEST

START_TEST(test_a_forwarded_key_charges_once)
{
    Metrics metrics = test_run_json(proxied, NULL, 0, MODE_IDEMPOTENT);
    ck_assert_uint_eq(metrics.effects, OPERATIONS);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 0);
    /* the second try meets the reservation and is answered 409 within its timeout: the
     * proxy hands it to the client, which does not retry 409 here */
    ck_assert_uint_eq(metrics.proxy_retries, OPERATIONS);
    ck_assert_uint_eq(metrics.proxy_timeouts, OPERATIONS);
    ck_assert_uint_eq(metrics.status_409, OPERATIONS);
}
END_TEST

START_TEST(test_a_dropped_key_charges_every_try)
{
    const char *const overrides[] = {"proxy.forwards_key=false"};
    Metrics metrics = test_run_json(proxied, overrides, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(metrics.effects, 3 * OPERATIONS);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], OPERATIONS);
    ck_assert_uint_eq(metrics.key_store_peak, 0);
}
END_TEST

/* A per-try timeout longer than the service time: the proxy never retries. */
START_TEST(test_a_patient_proxy_never_retries)
{
    const char *const overrides[] = {"proxy.per_try_timeout_ms=2000"};
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_json(proxied, overrides, 1, mode);
        ck_assert_uint_eq(metrics.proxy_retries, 0);
        ck_assert_uint_eq(metrics.effects, OPERATIONS);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], OPERATIONS);
    }
}
END_TEST

/* 5xx retries: a server that fails before its effect half the time; each try is a fresh
 * draw, so with retries the client sees fewer failures, and nothing is charged twice. */
START_TEST(test_the_proxy_retries_a_5xx)
{
    const char *const overrides[] = {"proxy.retry_on=[\"5xx\"]", "server.fail_before_effect=0.5",
                                     "server.service_ms.value=10"};
    const char *const no_retry[] = {"proxy.retry_on=[\"5xx\"]", "server.fail_before_effect=0.5",
                                    "server.service_ms.value=10", "proxy.retries=0"};
    Metrics retried = test_run_json(proxied, overrides, 3, MODE_AT_MOST_ONCE);
    Metrics single = test_run_json(proxied, no_retry, 4, MODE_AT_MOST_ONCE);
    ck_assert_uint_gt(retried.proxy_retries, 0);
    ck_assert_uint_eq(single.proxy_retries, 0);
    ck_assert_uint_eq(retried.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(retried.outcomes[OUTCOME_OK], single.outcomes[OUTCOME_OK]);
}
END_TEST

/* A proxy section that no group uses, and a proxy in front of a broker, are refused. */
START_TEST(test_a_proxy_nobody_uses_is_refused)
{
    static const char *const unused =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1}], \"proxy\": {\"retries\": 1}}";
    static const char *const brokered =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1, \"target\": \"broker\", \"via\": "
        "\"proxy\"}]}";
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(unused, strlen(unused), NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].path, "$.proxy");
    errors = (LoadErrors){0};
    ck_assert(!scenario_load_text(brokered, strlen(brokered), NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].path, "$.clients[0].via");
    free(scenario);
}
END_TEST

static Suite *proxy_suite(void)
{
    Suite *suite = suite_create("proxy");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_every_try_charges_without_a_key);
    tcase_add_test(core, test_a_forwarded_key_charges_once);
    tcase_add_test(core, test_a_dropped_key_charges_every_try);
    tcase_add_test(core, test_a_patient_proxy_never_retries);
    tcase_add_test(core, test_the_proxy_retries_a_5xx);
    tcase_add_test(core, test_a_proxy_nobody_uses_is_refused);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(proxy_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
