/* Retries at every tier (issue 21, C27): a call step's own retry and key. When the provider
 * never answers in time, every tier runs out its tries, and the provider receives the
 * product of them per payment: the app's attempts x the mesh's tries x the service's tries.
 * The mode decides only the app's attempts (at-most-once sends once; the hops below retry
 * on their own, as C15's proxy does) and whether there is a key to carry. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define APP_ATTEMPTS 2
#define MESH_TRIES 3
#define SERVICE_TRIES 3
#define PAYMENTS 40

/* The provider takes 5 s to answer and every caller waits less: no answer ever arrives in
 * time. Nothing is lost, nothing queues (unbounded workers). The service's 3 tries of 0.3 s
 * end before the mesh's 1 s try does; the mesh's 3 tries before the app's 10 s attempt. */
#define TIERS_WORLD(call_extra, gateway_extra)                                                     \
    "{\"seed\": 4, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"checkout\", \"retries\": 2,"          \
    "    \"per_try_timeout_ms\": 1000},"                                                           \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 0,"     \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                                     \
    "    \"steps\": [{\"call\": \"psp\", \"retry\": {\"max_attempts\": 3}" call_extra "}]},"       \
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"                                              \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"timeout_ms\": 300,"                             \
    "    \"latency_ms\": {\"dist\": \"const\", \"value\": 5000} " gateway_extra "}],"              \
    " \"clients\": [{\"id\": \"app\", \"count\": 4, \"calls\": \"mesh\","                          \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                      \
    "   \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 2,"                                   \
    "     \"backoff\": {\"base_ms\": 10, \"factor\": 1, \"max_ms\": 10, \"jitter\": \"none\"}},"   \
    "   \"key\": \"per-click\"}],"                                                                 \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

START_TEST(test_the_provider_receives_the_product_of_the_tiers_tries)
{
    const char *json = TIERS_WORLD("", "");
    Metrics once = test_run_text(json, MODE_AT_MOST_ONCE);
    Metrics least = test_run_text(json, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(once.operations, PAYMENTS);
    ck_assert_uint_eq(least.attempts, PAYMENTS * APP_ATTEMPTS);
    ck_assert_uint_eq(once.provider_charges, PAYMENTS * MESH_TRIES * SERVICE_TRIES);
    ck_assert_uint_eq(least.provider_charges, PAYMENTS * APP_ATTEMPTS * MESH_TRIES * SERVICE_TRIES);
    ck_assert_uint_eq(least.call_retries,
                      PAYMENTS * APP_ATTEMPTS * MESH_TRIES * (SERVICE_TRIES - 1));
    /* no key anywhere: each of those charges is a charge */
    ck_assert_uint_eq(least.effects, least.provider_charges);
    ck_assert_uint_eq(least.outcomes[OUTCOME_DOUBLE], PAYMENTS);
}
END_TEST

/* The same storm with keys: the load is the same (every tier still retries: the service's
 * store forgets a key whose call ended in an ambiguous 504), but the provider, given the key,
 * charges each payment once. Derived keys do as well; without a key the provider charges
 * every try. */
START_TEST(test_a_key_carried_to_the_provider_makes_the_storm_harmless)
{
    Metrics forward = test_run_text(TIERS_WORLD("", ", \"honours_key\": true"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(forward.provider_charges,
                      PAYMENTS * APP_ATTEMPTS * MESH_TRIES * SERVICE_TRIES);
    ck_assert_uint_eq(forward.effects, PAYMENTS);
    ck_assert_uint_eq(forward.outcomes[OUTCOME_DOUBLE], 0);

    Metrics derived = test_run_text(TIERS_WORLD(", \"key\": \"derive\"", ", \"honours_key\": true"),
                                    MODE_IDEMPOTENT);
    ck_assert_uint_eq(derived.effects, PAYMENTS);

    Metrics none = test_run_text(TIERS_WORLD(", \"key\": \"none\"", ", \"honours_key\": true"),
                                 MODE_IDEMPOTENT);
    ck_assert_uint_eq(none.effects, none.provider_charges);
    ck_assert_uint_eq(none.outcomes[OUTCOME_DOUBLE], PAYMENTS);
}
END_TEST

/* A late answer to an earlier try is not taken: the service gave that try up. With the
 * provider at 0.4 s and the service waiting 0.3 s per try, every try's answer comes after
 * its wait, and never counts: every payment ends in 504 although both its tries charged
 * (no key in this mode: two effects each, a double). */
START_TEST(test_an_answer_to_a_try_given_up_is_ignored)
{
    const char *json = "{\"seed\": 2, \"duration_ms\": 10000,"
                       " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
                       " \"services\": ["
                       "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","
                       "    \"steps\": [{\"call\": \"psp\", \"retry\": {\"max_attempts\": 2}}]},"
                       "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
                       "   {\"id\": \"psp\", \"kind\": \"gateway\", \"timeout_ms\": 300,"
                       "    \"latency_ms\": {\"dist\": \"const\", \"value\": 400}}],"
                       " \"clients\": [{\"id\": \"app\", \"count\": 5, \"calls\": \"checkout\","
                       "   \"workload\": {\"ops\": 2, \"interval_ms\": 2000},"
                       "   \"retry\": {\"timeout_ms\": 5000}}],"
                       " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 1}}}";
    Metrics metrics = test_run_text(json, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(metrics.provider_charges, 2 * metrics.operations);
    ck_assert_uint_eq(metrics.call_retries, metrics.operations);
    ck_assert_uint_eq(metrics.client_succeeded, 0);
    ck_assert_uint_eq(metrics.client_failed + metrics.client_unknown, metrics.operations);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], metrics.operations);
}
END_TEST

/* One try, the default, is what the older form always did: the same world either way. */
START_TEST(test_one_try_is_the_call_without_retry)
{
    const char *plain = "{\"seed\": 9, \"duration_ms\": 20000,"
                        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
                        " \"services\": ["
                        "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","
                        "    \"steps\": [{\"call\": \"psp\"}]},"
                        "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
                        "   {\"id\": \"psp\", \"kind\": \"gateway\", \"timeout\": 0.1}],"
                        " \"clients\": [{\"id\": \"app\", \"count\": 10, \"calls\": \"checkout\","
                        "   \"workload\": {\"ops\": 10, \"interval_ms\": 300}}],"
                        " \"network\": {\"default\": {\"loss\": 0.05}}}";
    const char *explicit =
        "{\"seed\": 9, \"duration_ms\": 20000,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
        " \"services\": ["
        "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","
        "    \"steps\": [{\"call\": \"psp\", \"key\": \"forward\","
        "      \"retry\": {\"max_attempts\": 1, \"backoff_ms\": 500}}]},"
        "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
        "   {\"id\": \"psp\", \"kind\": \"gateway\", \"timeout\": 0.1}],"
        " \"clients\": [{\"id\": \"app\", \"count\": 10, \"calls\": \"checkout\","
        "   \"workload\": {\"ops\": 10, \"interval_ms\": 300}}],"
        " \"network\": {\"default\": {\"loss\": 0.05}}}";
    for (Mode mode = 0; mode < MODE_COUNT; mode++) {
        Metrics a = test_run_text(plain, mode);
        Metrics b = test_run_text(explicit, mode);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "metrics differ in %s", mode_name(mode));
        ck_assert_uint_eq(a.call_retries, 0);
    }
}
END_TEST

/* The key a call carries is the one its other sends carry too: reconciliation asks by it,
 * the outbox relays with it. A provider that honours keys and times out one answer in
 * three: with reconciliation, a derived key finds its charge as the forwarded key does (no
 * double), and an outbox that relays without a key charges again. */
#define KEYED_CALL_WORLD(step)                                                                     \
    "{\"seed\": 8, \"duration_ms\": 30000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\", \"steps\": [" step   \
    "]},"                                                                                          \
    "   {\"id\": \"keys\", \"kind\": \"key_store\","                                               \
    "    \"on_failure\": {\"definite\": \"store\", \"ambiguous\": \"keep\"}},"                     \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true, \"timeout\": 0.3,"         \
    "    \"timeout_ms\": 500}],"                                                                   \
    " \"clients\": [{\"id\": \"app\", \"count\": 20, \"calls\": \"checkout\","                     \
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 500},"                                        \
    "   \"retry\": {\"timeout_ms\": 2000, \"max_attempts\": 5}, \"key\": \"per-click\"}],"         \
    " \"network\": {\"default\": {\"loss\": 0}}}"

START_TEST(test_reconciliation_and_the_outbox_carry_the_calls_key)
{
    Metrics forward = test_run_text(
        KEYED_CALL_WORLD("{\"call\": \"psp\", \"reconcile_ms\": 300, \"key\": \"forward\"}"),
        MODE_IDEMPOTENT);
    Metrics derived = test_run_text(
        KEYED_CALL_WORLD("{\"call\": \"psp\", \"reconcile_ms\": 300, \"key\": \"derive\"}"),
        MODE_IDEMPOTENT);
    ck_assert_uint_gt(forward.reconciled, 10);
    ck_assert_uint_eq(forward.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(derived.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(derived.reconciled, forward.reconciled);

    Metrics relayed = test_run_text(
        KEYED_CALL_WORLD("{\"call\": \"psp\", \"via\": \"outbox\", \"key\": \"forward\"}"),
        MODE_IDEMPOTENT);
    Metrics relayed_bare = test_run_text(
        KEYED_CALL_WORLD("{\"call\": \"psp\", \"via\": \"outbox\", \"key\": \"none\"}"),
        MODE_IDEMPOTENT);
    ck_assert_uint_eq(relayed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(relayed_bare.outcomes[OUTCOME_DOUBLE], 10);
}
END_TEST

/* The call's own timeout_ms, not the gateway's, decides when a try is given up: with the
 * provider at 0.3 s, a call waiting 0.1 s gives up every try (both charged, no answer
 * taken), one waiting the gateway's 5 s takes the first answer. */
START_TEST(test_the_calls_timeout_is_its_own)
{
#define TIMED_CALL_WORLD(step_extra)                                                               \
    "{\"seed\": 3, \"duration_ms\": 20000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","                     \
    "    \"steps\": [{\"call\": \"psp\", \"retry\": {\"max_attempts\": 2}" step_extra "}]},"       \
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"                                              \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"timeout_ms\": 5000,"                            \
    "    \"latency_ms\": {\"dist\": \"const\", \"value\": 300}}],"                                 \
    " \"clients\": [{\"id\": \"app\", \"count\": 5, \"calls\": \"checkout\","                      \
    "   \"workload\": {\"ops\": 4, \"interval_ms\": 2000}, \"retry\": {\"timeout_ms\": 15000}}],"  \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 1}}}"
    Metrics impatient =
        test_run_text(TIMED_CALL_WORLD(", \"timeout_ms\": 100"), MODE_AT_LEAST_ONCE);
    Metrics patient = test_run_text(TIMED_CALL_WORLD(""), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(impatient.operations, 20);
    ck_assert_uint_eq(impatient.provider_charges, 2 * impatient.attempts); /* two tries each */
    ck_assert_uint_eq(impatient.client_succeeded, 0);
    ck_assert_uint_eq(patient.provider_charges, patient.operations);
    ck_assert_uint_eq(patient.client_succeeded, patient.operations);
#undef TIMED_CALL_WORLD
}
END_TEST

/* A consumer group's call retries as a server's does: with the provider never answering in
 * time and no redelivery, each message reaches the provider exactly max_attempts times; an
 * answer to a given-up try is never taken, so no message is acknowledged as charged. */
START_TEST(test_a_consumer_groups_call_retries_on_its_own)
{
    const char *json =
        "{\"seed\": 5, \"duration_ms\": 60000,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
        " \"services\": ["
        "   {\"id\": \"orders\", \"kind\": \"broker\", \"max_deliveries\": 1},"
        "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","
        "    \"key_store\": \"inbox\", \"workers\": 0,"
        "    \"steps\": [{\"call\": \"psp\", \"retry\": {\"max_attempts\": 3, \"backoff_ms\": 10},"
        "      \"timeout_ms\": 200}]},"
        "   {\"id\": \"inbox\", \"kind\": \"key_store\"},"
        "   {\"id\": \"psp\", \"kind\": \"gateway\", \"timeout_ms\": 9000,"
        "    \"latency_ms\": {\"dist\": \"const\", \"value\": 1000}}],"
        " \"clients\": [{\"id\": \"shop\", \"count\": 5, \"publishes\": \"orders\","
        "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
        "   \"workload\": {\"ops\": 4, \"interval_ms\": 3000}, \"retry\": {\"max_attempts\": 1}}],"
        " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 1}}}";
    Metrics metrics = test_run_text(json, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.operations, 20);
    ck_assert_uint_eq(metrics.provider_charges, 3 * metrics.operations);
    ck_assert_uint_eq(metrics.call_retries, 2 * metrics.operations);
    ck_assert_uint_eq(metrics.effects, metrics.provider_charges); /* no key: each try charged */
}
END_TEST

static Suite *retry_tiers_suite(void)
{
    Suite *suite = suite_create("retry_tiers");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_the_provider_receives_the_product_of_the_tiers_tries);
    tcase_add_test(core, test_a_key_carried_to_the_provider_makes_the_storm_harmless);
    tcase_add_test(core, test_an_answer_to_a_try_given_up_is_ignored);
    tcase_add_test(core, test_one_try_is_the_call_without_retry);
    tcase_add_test(core, test_reconciliation_and_the_outbox_carry_the_calls_key);
    tcase_add_test(core, test_the_calls_timeout_is_its_own);
    tcase_add_test(core, test_a_consumer_groups_call_retries_on_its_own);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(retry_tiers_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
