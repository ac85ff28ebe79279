/* Consumers that charge a card (consumers.use_gateway, C25): the charge is an external effect,
 * so a charge without an answer in time is a failed handler whose message comes back and is
 * charged again, whatever the consumer's own keys; only the provider's key stops it. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------------ every broker family */

/* The provider charges every try and never answers one (timeout 1): each family's way back
 * for a failed charge, counted exactly. FAMILY_ORDERS orders, no loss, one worker per message,
 * deliveries limited to FAMILY_DELIVERIES by the queues (no dead letters to review),
 * FAMILY_TRIES tries of the call in the log. */
#define FAMILY_ORDERS 40
#define FAMILY_DELIVERIES 3
#define FAMILY_TRIES 3

/* The broker's fields (the family's own), the inbox's and the call step's are the family's;
 * the provider's chance of charging without an answer and the clients (10 orders each) are
 * the test's. */
static const char every_family[] =
    "{\"seed\": 5, \"duration_ms\": 120000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\", %s},"
    "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"inbox\", \"workers\": 0, \"service_ms\": 1,"
    "    \"steps\": [{\"call\": \"psp\", \"retry\": {\"max_attempts\": %d}}]},"
    "   {\"id\": \"inbox\", \"kind\": \"key_store\"%s},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"latency_ms\": 10, \"timeout\": %s,"
    "    \"timeout_ms\": 100}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": %d, \"publishes\": \"orders\","
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 1000}, \"key\": \"message-id\"}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 1}}}";

typedef struct {
    Metrics unkeyed;  /* at-least-once: no key at the provider */
    Metrics inbox;    /* idempotent, the provider ignoring keys: the inbox alone */
    Metrics provider; /* idempotent, the provider honouring the consumers' key */
    Metrics once;     /* at-most-once */
} FamilyRuns;

static void family_text(char *json, size_t size, const char *broker, int tries,
                        const char *unanswered, int clients)
{
    bool log = strstr(broker, "\"log\"") != NULL;
    snprintf(json, size, every_family, broker, tries, log ? ", \"lock_timeout_ms\": 1000" : "",
             unanswered, clients);
}

static FamilyRuns run_family(const char *broker, int tries)
{
    char json[sizeof every_family + 256];
    family_text(json, sizeof json, broker, tries, "1", FAMILY_ORDERS / 10);
    FamilyRuns runs;
    Scenario *scenario = test_load(json, NULL, 0);
    runs.unkeyed = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    runs.inbox = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    runs.once = test_run_mode(scenario, MODE_AT_MOST_ONCE, scenario->seed);
    free(scenario);
    const char *const keyed[] = {"services.psp.honours_key=true"};
    scenario = test_load(json, keyed, 1);
    runs.provider = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    free(scenario);
    return runs;
}

static void assert_charged_times(const Metrics *metrics, uint64_t charges_per_order,
                                 const char *what)
{
    ck_assert_msg(metrics->operations == FAMILY_ORDERS, "%s: %llu orders", what,
                  (unsigned long long)metrics->operations);
    ck_assert_msg(metrics->effects == FAMILY_ORDERS * charges_per_order,
                  "%s: %llu charges, expected %llu", what, (unsigned long long)metrics->effects,
                  (unsigned long long)(FAMILY_ORDERS * charges_per_order));
    uint64_t doubles = charges_per_order >= 2 ? FAMILY_ORDERS : 0;
    ck_assert_msg(metrics->outcomes[OUTCOME_DOUBLE] == doubles, "%s: %llu doubles, expected %llu",
                  what, (unsigned long long)metrics->outcomes[OUTCOME_DOUBLE],
                  (unsigned long long)doubles);
    ck_assert_uint_eq(metrics->outcomes[OUTCOME_LOST], 0);
}

/* A queue (visibility timeout, channel) brings a failed charge back as a new delivery, up to
 * max_deliveries: d charges per order without the provider's key (the inbox forgets the
 * ambiguous failure's row), one with it (the second delivery's charge is answered from the
 * provider's record: d = 2 deliveries). At-most-once acknowledged on delivery: one charge. */
static void assert_queue_family(const FamilyRuns *runs)
{
    assert_charged_times(&runs->unkeyed, FAMILY_DELIVERIES, "at-least-once");
    assert_charged_times(&runs->inbox, FAMILY_DELIVERIES, "inbox only");
    ck_assert_uint_eq(runs->unkeyed.redeliveries, FAMILY_ORDERS * (FAMILY_DELIVERIES - 1));
    assert_charged_times(&runs->provider, 1, "provider's key");
    ck_assert_uint_eq(runs->provider.redeliveries, FAMILY_ORDERS);
    ck_assert_uint_eq(runs->provider.outcomes[OUTCOME_OK], FAMILY_ORDERS);
    assert_charged_times(&runs->once, 1, "at-most-once");
    ck_assert_uint_eq(runs->once.redeliveries, 0);
}

START_TEST(test_a_visibility_timeout_queue_charges_a_failed_order_again_at_each_delivery)
{
    FamilyRuns runs = run_family("\"ack_timeout_ms\": 1000, \"max_deliveries\": 3", 1);
    assert_queue_family(&runs);
}
END_TEST

/* The channel's failed charge is nacked and requeued at once (C36's nack): every delivery
 * came back long before consumer_timeout_ms could close the channel. */
START_TEST(test_a_channel_nacks_a_failed_charge_and_charges_it_again_at_once)
{
    FamilyRuns runs = run_family("\"family\": \"channel\", \"consumer_timeout_ms\": 600000, "
                                 "\"max_deliveries\": 3",
                                 1);
    assert_queue_family(&runs);
    ck_assert_uint_eq(runs.unkeyed.channel_closures, 0);
    ck_assert_uint_eq(runs.inbox.channel_closures, 0);
}
END_TEST

/* A log has no per-message nack: the call's retry is the error handler's back-off, in place,
 * then the record is skipped and its offset committed. Each order is charged once per try
 * (FAMILY_TRIES), in every mode (the call's retry is the hop's own), never redelivered; with
 * the provider's key the second try is answered from its record: one charge, one retry. */
START_TEST(test_a_log_retries_a_failed_charge_in_place_then_skips_the_record)
{
    FamilyRuns runs = run_family("\"family\": \"log\", \"partitions\": 4", FAMILY_TRIES);
    assert_charged_times(&runs.unkeyed, FAMILY_TRIES, "at-least-once");
    assert_charged_times(&runs.inbox, FAMILY_TRIES, "inbox only");
    assert_charged_times(&runs.once, FAMILY_TRIES, "at-most-once");
    ck_assert_uint_eq(runs.unkeyed.call_retries, FAMILY_ORDERS * (FAMILY_TRIES - 1));
    ck_assert_uint_eq(runs.unkeyed.redeliveries, 0);
    assert_charged_times(&runs.provider, 1, "provider's key");
    ck_assert_uint_eq(runs.provider.call_retries, FAMILY_ORDERS);
    ck_assert_uint_eq(runs.provider.outcomes[OUTCOME_OK], FAMILY_ORDERS);
}
END_TEST

/* With one try the skip is all there is: each record charged once, unanswered, and its
 * partition moves on (a consumer that stopped on it would leave every later record of its
 * partition uncharged: lost). */
START_TEST(test_a_log_with_one_try_skips_a_failed_charge_and_charges_it_once)
{
    FamilyRuns runs = run_family("\"family\": \"log\", \"partitions\": 4", 1);
    assert_charged_times(&runs.unkeyed, 1, "at-least-once");
    assert_charged_times(&runs.inbox, 1, "inbox only");
    assert_charged_times(&runs.provider, 1, "provider's key");
    ck_assert_uint_eq(runs.unkeyed.redeliveries, 0);
    ck_assert_uint_gt(runs.unkeyed.offset_commits, 0);
}
END_TEST

/* The provider charges without answering with chance t on each try, on its own; n orders,
 * nothing else fails. Channel, unlimited deliveries: charges per order geometric, as with a
 * visibility timeout (P(double) = t, mean 1 / (1 - t)). Log, a tries in place and then the
 * skip: charges per order K = min(geometric, a), P(double) = t, E[K] = 1 + t + ... + t^(a-1). */
#define SOME_CLIENTS 200
#define SOME_UNANSWERED 0.2

static void assert_charges_per_order(const Metrics *metrics, double n, int cap, const char *what)
{
    double t = SOME_UNANSWERED, mean = 0, square = 0, p = 1.0;
    for (int k = 1; k <= cap; k++) { /* P(K = k) = t^(k-1) (1 - t), the last takes the rest */
        double pk = k == cap ? p : p * (1.0 - t);
        mean += k * pk;
        square += (double)k * k * pk;
        p *= t;
    }
    double sd = sqrt((square - mean * mean) / n);
    double effects = (double)metrics->effects / n;
    ck_assert_msg(fabs(effects - mean) <= 4 * sd, "%s: %.4f charges per order, expected %.4f", what,
                  effects, mean);
    double doubles = (double)metrics->outcomes[OUTCOME_DOUBLE] / n;
    ck_assert_msg(fabs(doubles - t) <= tolerance(t, n), "%s: doubles %.4f, expected %.2f", what,
                  doubles, t);
    ck_assert_uint_eq(metrics->outcomes[OUTCOME_LOST], 0);
}

START_TEST(test_some_charges_unanswered_charge_again_at_the_rate_of_each_family)
{
    double n = SOME_CLIENTS * 10;
    char json[sizeof every_family + 256];
    family_text(json, sizeof json, "\"family\": \"channel\", \"max_deliveries\": 0", 1, "0.2",
                SOME_CLIENTS);
    Scenario *scenario = test_load(json, NULL, 0);
    Metrics channel = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    assert_charges_per_order(&channel, n, 1000, "channel");
    ck_assert_uint_eq(channel.channel_closures, 0);
    free(scenario);
    family_text(json, sizeof json, "\"family\": \"log\", \"partitions\": 8", FAMILY_TRIES, "0.2",
                SOME_CLIENTS);
    scenario = test_load(json, NULL, 0);
    Metrics log = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    assert_charges_per_order(&log, n, FAMILY_TRIES, "log");
    ck_assert_uint_eq(log.redeliveries, 0);
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
    tcase_add_test(core,
                   test_a_visibility_timeout_queue_charges_a_failed_order_again_at_each_delivery);
    tcase_add_test(core, test_a_channel_nacks_a_failed_charge_and_charges_it_again_at_once);
    tcase_add_test(core, test_a_log_retries_a_failed_charge_in_place_then_skips_the_record);
    tcase_add_test(core, test_a_log_with_one_try_skips_a_failed_charge_and_charges_it_once);
    tcase_add_test(core, test_some_charges_unanswered_charge_again_at_the_rate_of_each_family);
    suite_add_tcase(suite, core);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
