/* A saga's compensation (issue 21, C28): after its charge, an order's fulfil step fails and
 * the call's undo refunds the charge, with its own tries and key. The refund's answer is lost
 * as a charge's is (the gateway's silent chance): the server retries, and whether a retry
 * refunds again depends only on the refund's key. Outcomes count charges net of refunds. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define ORDERS 2000
#define AMOUNT 100
#define SILENT 0.3 /* the gateway's chance to keep its answer: charges and refunds alike */
#define REFUND_TRIES 4

/* Every fulfil step fails; nothing is lost on the network and nothing queues; the client
 * sends once and waits long, so each order is one job. An unanswered charge ends in a 504
 * (no refund: the server does not know it charged). */
#define SAGA_WORLD(undo, fail)                                                                     \
    "{\"seed\": 28, \"duration_ms\": 100000,"                                                      \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"shop\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 0,"         \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                                     \
    "    \"steps\": [{\"call\": \"psp\"" undo "}, {\"fulfil\": \"local\", \"fail\": " fail "}]},"  \
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"                                              \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true, \"timeout\": 0.3,"         \
    "    \"timeout_ms\": 1000, \"latency_ms\": {\"dist\": \"const\", \"value\": 50}}],"            \
    " \"clients\": [{\"id\": \"app\", \"count\": 20, \"calls\": \"shop\","                         \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 100, \"interval_ms\": 900, \"loop\": \"open\"},"                   \
    "   \"retry\": {\"timeout_ms\": 60000, \"max_attempts\": 1}, \"key\": \"per-click\"}],"        \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

#define UNDO(key)                                                                                  \
    ", \"undo\": {\"refund\": \"psp\", \"key\": \"" key "\", \"timeout_ms\": 1000,"                \
    " \"retry\": {\"max_attempts\": 4}}"

/* A count of independent Bernoulli(p) trials out of n is within 4.5 standard deviations of
 * its mean (a false alarm about once in 150,000 runs; the seed is fixed, so never flaky). */
static void assert_binomial(uint64_t count, double n, double p)
{
    double mean = n * p, tolerance = 4.5 * sqrt(n * p * (1.0 - p));
    ck_assert_msg(fabs((double)count - mean) <= tolerance, "%llu is not within %.1f of %.1f",
                  (unsigned long long)count, tolerance, mean);
}

START_TEST(test_a_refund_keyed_by_the_order_is_made_once)
{
    Metrics derived = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(derived.operations, ORDERS);
    uint64_t refunded = derived.outcomes[OUTCOME_REFUNDED];
    /* an order whose charge was answered is refunded; one whose answer was lost ends 504 */
    assert_binomial(refunded, ORDERS, 1.0 - SILENT);
    ck_assert_uint_eq(derived.outcomes[OUTCOME_PHANTOM], ORDERS - refunded);
    ck_assert_uint_eq(derived.fulfil_failures, refunded);
    ck_assert_uint_eq(derived.refunds, refunded); /* a retry is answered from memory */
    ck_assert_uint_eq(derived.double_refunds, 0);
    /* a retry follows every first refund try whose answer was lost */
    assert_binomial(derived.refund_retries, (double)refunded, SILENT);
    /* refunded orders were meant to cost nothing, the phantoms once: the money is exact */
    ck_assert_int_eq(metrics_balance_error(&derived), 0);
    ck_assert_uint_eq(derived.client_failed, refunded); /* told 424 */
}
END_TEST

/* The same lost answers with a new key per try: every retry is a second refund. The first
 * try's fate does not depend on its key, so the orders refunded twice are exactly those the
 * derived key's run retried. */
START_TEST(test_a_new_key_per_try_refunds_once_per_try)
{
    Metrics derived = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    Metrics fresh = test_run_text(SAGA_WORLD(UNDO("per-try"), "1"), MODE_IDEMPOTENT);
    uint64_t refunded = fresh.outcomes[OUTCOME_REFUNDED];
    ck_assert_uint_eq(refunded, derived.outcomes[OUTCOME_REFUNDED]);
    ck_assert_uint_eq(fresh.double_refunds, derived.refund_retries);
    /* each try refunds: tries = 1 + silent answers before the first heard, at most 4 */
    ck_assert_uint_eq(fresh.refunds, refunded + fresh.refund_retries);
    /* retries per order: k silent answers before one is heard, k < REFUND_TRIES - 1, with
     * chance (1 - p) p^k; all the rest with p^(REFUND_TRIES - 1) */
    double mean = 0, square = 0;
    for (int k = 0; k < REFUND_TRIES; k++) {
        double chance = k < REFUND_TRIES - 1 ? (1.0 - SILENT) * pow(SILENT, k) : pow(SILENT, k);
        mean += chance * k;
        square += chance * k * k;
    }
    double tolerance = 4.5 * sqrt((double)refunded * (square - mean * mean));
    ck_assert_msg(fabs((double)fresh.refunds - (double)refunded * (1.0 + mean)) <= tolerance,
                  "%llu refunds for %llu orders", (unsigned long long)fresh.refunds,
                  (unsigned long long)refunded);
    ck_assert_int_eq(fresh.double_refund_amount, (int64_t)(fresh.refunds - refunded) * AMOUNT);
    /* the money given away is the whole balance error: the customers were paid twice */
    ck_assert_int_eq(metrics_balance_error(&fresh), fresh.double_refund_amount);
}
END_TEST

/* Every answer of the provider comes twice: the second copy of the charge's answer arrives
 * while the refund waits, and must not pass for the refund's answer (both are a first try). */
START_TEST(test_a_late_copy_of_the_charges_answer_is_not_the_refunds)
{
    const char *const duplicated[] = {"network.links={\"psp->shop\": {\"duplicate\": 1}}"};
    Scenario *scenario = test_load(SAGA_WORLD(UNDO("derive"), "1"), duplicated, 1);
    Metrics twice = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    free(scenario);
    Metrics once = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    ck_assert_uint_gt(twice.network_duplicated, 0);
    ck_assert_uint_eq(twice.refund_retries, once.refund_retries);
    ck_assert_uint_eq(twice.outcomes[OUTCOME_REFUNDED], once.outcomes[OUTCOME_REFUNDED]);
}
END_TEST

/* The mode decides whether there is a key to derive from: without one, a derived refund key
 * is no key, and the retries refund twice just as new keys do. */
START_TEST(test_without_a_request_key_there_is_nothing_to_derive_from)
{
    Metrics derived = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_AT_LEAST_ONCE);
    Metrics fresh = test_run_text(SAGA_WORLD(UNDO("per-try"), "1"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(derived.double_refunds, 0);
    ck_assert_uint_eq(derived.double_refunds, fresh.double_refunds);
    ck_assert_uint_eq(derived.refunds, fresh.refunds);
}
END_TEST

/* No undo: an order that failed after its charge leaves the customer charged and told it
 * failed (phantom), with no refund. */
START_TEST(test_without_an_undo_the_failed_order_stays_charged)
{
    Metrics kept = test_run_text(SAGA_WORLD("", "1"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(kept.refunds, 0);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_REFUNDED], 0);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_PHANTOM], ORDERS);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_OK], 0);
}
END_TEST

/* fail is a chance per order: about that share of the charged orders is refunded, and the
 * rest are paid and told so. */
START_TEST(test_the_fulfil_step_fails_with_its_chance)
{
    Metrics some = test_run_text(SAGA_WORLD(UNDO("derive"), "0.25"), MODE_IDEMPOTENT);
    uint64_t charged_answered = some.outcomes[OUTCOME_REFUNDED] + some.outcomes[OUTCOME_OK];
    assert_binomial(some.fulfil_failures, (double)charged_answered, 0.25);
    ck_assert_uint_eq(some.outcomes[OUTCOME_REFUNDED], some.fulfil_failures);
}
END_TEST

/* A decline is not a refund: nothing was charged, nothing given back, and the order is
 * declined rather than lost. */
START_TEST(test_a_declined_charge_is_neither_refunded_nor_lost)
{
    const char *json = "{\"seed\": 3, \"duration_ms\": 20000,"
                       " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
                       " \"services\": ["
                       "   {\"id\": \"shop\", \"kind\": \"server\", \"key_store\": \"keys\","
                       "    \"steps\": [{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"
                       "               {\"fulfil\": \"local\", \"fail\": 1}]},"
                       "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
                       "   {\"id\": \"psp\", \"kind\": \"gateway\", \"fail\": 1}],"
                       " \"clients\": [{\"id\": \"app\", \"count\": 5, \"calls\": \"shop\","
                       "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
                       "   \"workload\": {\"ops\": 4, \"interval_ms\": 1000}}],"
                       " \"network\": {\"default\": {\"loss\": 0}}}";
    Metrics declined = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_uint_eq(declined.outcomes[OUTCOME_DECLINED], 20);
    ck_assert_uint_eq(declined.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_eq(declined.fulfil_failures, 0); /* nothing paid: nothing to fulfil */
    ck_assert_uint_eq(declined.refunds, 0);
    ck_assert_int_eq(metrics_balance_error(&declined), 0);
}
END_TEST

static Suite *saga_suite(void)
{
    Suite *suite = suite_create("saga");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_refund_keyed_by_the_order_is_made_once);
    tcase_add_test(core, test_a_new_key_per_try_refunds_once_per_try);
    tcase_add_test(core, test_a_late_copy_of_the_charges_answer_is_not_the_refunds);
    tcase_add_test(core, test_without_a_request_key_there_is_nothing_to_derive_from);
    tcase_add_test(core, test_without_an_undo_the_failed_order_stays_charged);
    tcase_add_test(core, test_the_fulfil_step_fails_with_its_chance);
    tcase_add_test(core, test_a_declined_charge_is_neither_refunded_nor_lost);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(saga_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
