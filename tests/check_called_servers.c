/* A server that calls another server (issue 21: several services of one kind): checkout's
 * call step calls payments, a server of its own with its own key store, whose answer counts
 * as the call's. Payments takes 1 s to answer and checkout waits 0.3 s per try, so every try
 * of every call times out: payments runs the product of the tiers' tries (the app's
 * attempts x checkout's tries), unless the key checkout forwards lets payments' store tell
 * a retry from a new payment. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define APP_ATTEMPTS 2
#define CHECKOUT_TRIES 3
#define PAYMENTS 40

#define TWO_SERVERS(call_extra, payments_extra)                                                    \
    "{\"seed\": 5, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","            \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                     \
    "    \"steps\": [{\"call\": \"payments\", \"timeout_ms\": 300,"                                \
    "                 \"retry\": {\"max_attempts\": 3}" call_extra "}]},"                          \
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"                                     \
    "   {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"payments-keys\","            \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1000},"                  \
    "    \"steps\": [{\"effect\": \"local\"}]},"                                                   \
    "   {\"id\": \"payments-keys\", \"kind\": \"key_store\" " payments_extra "}],"                 \
    " \"clients\": [{\"id\": \"app\", \"count\": 4, \"calls\": \"checkout\","                      \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                      \
    "   \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 2,"                                   \
    "     \"backoff\": {\"base_ms\": 10, \"factor\": 1, \"max_ms\": 10, \"jitter\": \"none\"}},"   \
    "   \"key\": \"per-click\"}],"                                                                 \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

static double service_value(const Metrics *metrics, const char *service, const char *metric)
{
    double value = -1;
    ck_assert_msg(metrics_service_value(metrics, service, metric, &value), "%s@%s", metric,
                  service);
    return value;
}

/* Without keys every try runs: at-most-once sends each payment once and checkout still tries
 * three times (a hop's own retry runs in every mode); at-least-once multiplies that by the
 * app's attempts. */
START_TEST(test_the_called_server_runs_the_product_of_the_tries)
{
    const char *json = TWO_SERVERS("", "");
    Metrics once = test_run_text(json, MODE_AT_MOST_ONCE);
    Metrics least = test_run_text(json, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(once.operations, PAYMENTS);
    ck_assert_uint_eq(once.effects, PAYMENTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(least.effects, PAYMENTS * APP_ATTEMPTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(least.call_retries, PAYMENTS * APP_ATTEMPTS * (CHECKOUT_TRIES - 1));
    ck_assert_uint_eq(least.outcomes[OUTCOME_DOUBLE], PAYMENTS);
    /* the services' own counters: payments ran and charged, checkout retried and ran no effect */
    ck_assert_double_eq(service_value(&least, "payments", "runs"), least.effects);
    ck_assert_double_eq(service_value(&least, "payments", "effects"), least.effects);
    ck_assert_double_eq(service_value(&least, "checkout", "effects"), 0);
    ck_assert_double_eq(service_value(&least, "checkout", "retries"), least.call_retries);
}
END_TEST

/* The key checkout forwards is payments' key: a retry finds the payment in progress (409),
 * which checkout takes as a failed try, and later finds it done. Each payment is charged
 * once, though checkout gives its client 502s meanwhile. Without the key, the same retries
 * charge again. */
START_TEST(test_a_forwarded_key_lets_the_called_server_charge_once)
{
    Metrics forward = test_run_text(TWO_SERVERS("", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(forward.effects, PAYMENTS);
    ck_assert_uint_eq(forward.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(service_value(&forward, "payments", "refused"), 0); /* the 409s */

    Metrics derived = test_run_text(TWO_SERVERS(", \"key\": \"derive\"", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(derived.effects, PAYMENTS);

    Metrics none = test_run_text(TWO_SERVERS(", \"key\": \"none\"", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(none.outcomes[OUTCOME_DOUBLE], PAYMENTS);
    ck_assert_double_eq(service_value(&none, "payments", "runs"), none.effects);
}
END_TEST

/* A definite refusal passes up the chain: payments requires a key, checkout sends none, and
 * payments' 400 is checkout's answer, at once and without a retry; nothing is charged. */
START_TEST(test_a_definite_refusal_of_the_called_server_is_the_callers_answer)
{
    Metrics refused =
        test_run_text(TWO_SERVERS(", \"key\": \"none\"", ", \"required\": true"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(refused.effects, 0);
    ck_assert_uint_eq(refused.call_retries, 0);
    /* payments' 400 to checkout and checkout's to the app: two per attempt */
    ck_assert_uint_eq(refused.status_400, 2 * refused.attempts);
    ck_assert_uint_eq(refused.outcomes[OUTCOME_LOST], PAYMENTS);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("called_servers");
    TCase *tcase = tcase_create("called_servers");
    tcase_add_test(tcase, test_the_called_server_runs_the_product_of_the_tries);
    tcase_add_test(tcase, test_a_forwarded_key_lets_the_called_server_charge_once);
    tcase_add_test(tcase, test_a_definite_refusal_of_the_called_server_is_the_callers_answer);
    suite_add_tcase(suite, tcase);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
