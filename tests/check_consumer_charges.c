/* Consumers that charge a card (consumers.use_gateway, C25): the charge is an external effect,
 * so a charge without an answer in time is a failed handler whose message comes back and is
 * charged again, whatever the consumer's own keys; only the provider's key stops it. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "test_world.h"

/* No loss, no crash: the only fault is the provider charging and not answering (timeout t),
 * each delivery's fate drawn on its own. A message is charged k times with probability
 * t^(k-1)(1-t) (unlimited deliveries): twice or more with probability t. */
#define CHARGES_CLIENTS 100
#define CHARGES_OPS 20
#define CHARGES_TIMEOUT 0.2

static const char charging[] =
    "{\"seed\": 11, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"ack_timeout_ms\": 3000,"
    "    \"max_deliveries\": 0},"
    "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"inbox\", \"workers\": 0, \"service_ms\": 1,"
    "    \"steps\": [{\"call\": \"psp\"}]},"
    "   {\"id\": \"inbox\", \"kind\": \"key_store\"},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"latency_ms\": 10, \"timeout\": 0.2,"
    "    \"timeout_ms\": 1000}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": 100, \"publishes\": \"orders\","
    "   \"workload\": {\"ops\": 20, \"interval_ms\": 500}, \"key\": \"message-id\"}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 1}}}";

/* Four standard deviations of a proportion of n trials. */
static double tolerance(double p, double n)
{
    return 4.0 * sqrt(p * (1.0 - p) / n);
}

START_TEST(test_a_charge_without_an_answer_is_charged_again_at_the_rate_of_the_timeouts)
{
    Scenario *scenario = test_load(charging, NULL, 0);
    double n = CHARGES_CLIENTS * CHARGES_OPS;
    for (Mode mode = MODE_AT_LEAST_ONCE; mode <= MODE_IDEMPOTENT; mode++) {
        Metrics metrics = test_run_mode(scenario, mode, scenario->seed);
        ck_assert_uint_eq(metrics.operations, (uint64_t)n);
        double doubles = (double)metrics.outcomes[OUTCOME_DOUBLE] / n;
        ck_assert_msg(fabs(doubles - CHARGES_TIMEOUT) <= tolerance(CHARGES_TIMEOUT, n),
                      "%s: doubles %.4f, expected %.2f", mode_name(mode), doubles, CHARGES_TIMEOUT);
        /* charges per order: geometric, mean 1 / (1 - t) */
        double effects = (double)metrics.effects / n;
        double mean = 1.0 / (1.0 - CHARGES_TIMEOUT);
        double sd = sqrt(CHARGES_TIMEOUT) / (1.0 - CHARGES_TIMEOUT) / sqrt(n);
        ck_assert_msg(fabs(effects - mean) <= 4 * sd, "%s: %.4f charges per order, expected %.3f",
                      mode_name(mode), effects, mean);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_LOST], 0);
    }
    /* at-most-once acknowledges on delivery: every order charged once, unanswered or not */
    Metrics once = test_run_mode(scenario, MODE_AT_MOST_ONCE, scenario->seed);
    ck_assert_uint_eq(once.outcomes[OUTCOME_OK], (uint64_t)n);
    ck_assert_uint_eq(once.redeliveries, 0);
    free(scenario);
}
END_TEST

START_TEST(test_the_provider_honouring_the_message_id_charges_once)
{
    const char *const overrides[] = {"services[3].honours_key=true"};
    Scenario *scenario = test_load(charging, overrides, 1);
    Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_OK], CHARGES_CLIENTS * CHARGES_OPS);
    ck_assert_uint_gt(keyed.redeliveries, 0); /* the messages still came back */
    /* without keys the provider cannot tell a redelivery from a new order */
    Metrics unkeyed = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_uint_gt(unkeyed.outcomes[OUTCOME_DOUBLE], 0);
    free(scenario);
}
END_TEST

/* A worker that dies after the charge and before its inbox commit: the inbox rolls its key
 * row back (the message is redelivered as new) but the charge stays. */
START_TEST(test_an_inbox_rolls_back_the_row_and_not_the_charge)
{
    const char *const overrides[] = {
        "services[3].timeout=0",
        "services[1].inbox=true",
        "services[1].crash={\"point\": \"after-effect\", \"prob\": 0.05, \"restart_ms\": 100}",
        "services[1].workers=1",
    };
    Scenario *scenario = test_load(charging, overrides, 4);
    Metrics inbox = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_uint_gt(inbox.crashes, 0);
    ck_assert_uint_gt(inbox.outcomes[OUTCOME_DOUBLE], 0);
    free(scenario);
    const char *const keyed[] = {overrides[0], overrides[1], overrides[2], overrides[3],
                                 "services[3].honours_key=true"};
    scenario = test_load(charging, keyed, 5);
    Metrics provider = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_uint_gt(provider.crashes, 0);
    ck_assert_uint_eq(provider.outcomes[OUTCOME_DOUBLE], 0);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("consumer_charges");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core,
                   test_a_charge_without_an_answer_is_charged_again_at_the_rate_of_the_timeouts);
    tcase_add_test(core, test_the_provider_honouring_the_message_id_charges_once);
    tcase_add_test(core, test_an_inbox_rolls_back_the_row_and_not_the_charge);
    suite_add_tcase(suite, core);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
