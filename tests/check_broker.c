/* The broker world: ack timeouts, redelivery, dead letters, the publisher dedup window,
 * consumer crashes, the load incident, and a closed form for redelivery. */

#include "test_world.h"

#define SET(...)                                                                                   \
    ((const char *const[]){__VA_ARGS__}),                                                          \
        (uint32_t)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
#define NO_SET NULL, 0

/* One message; every hop takes exactly 1 ms; one consumer worker; a 1000 ms ack timeout. */
static const char *const one_message =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"shop\", \"target\": \"broker\", \"key\": \"message-id\","
    "   \"workload\": {\"at_ms\": [0]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"broker\": {\"ack_timeout_ms\": 1000, \"max_deliveries\": 0,"
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 500}}}}";

START_TEST(test_a_message_acked_in_time_is_delivered_once)
{
    Metrics metrics = test_run_json(one_message, NO_SET, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.messages, 1);
    ck_assert_uint_eq(metrics.deliveries, 1);
    ck_assert_uint_eq(metrics.redeliveries, 0);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 1);
}
END_TEST

START_TEST(test_an_ack_just_before_the_timeout_counts_and_just_after_does_not)
{
    /* The timeout starts as the broker hands the message out; the delivery takes 1 ms, the
     * service s ms, the ack 1 ms: the ack is back s + 2 ms later, against a 1000 ms timeout.
     * s = 997 is 1 ms early, s = 999 is 1 ms late. */
    Metrics before =
        test_run_json(one_message,
                      SET("broker.consumers.service_ms={\"dist\": \"const\", \"value\": 997}",
                          "broker.max_deliveries=2"),
                      MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(before.redeliveries, 0);
    ck_assert_uint_eq(before.late_acks, 0);
    Metrics after =
        test_run_json(one_message,
                      SET("broker.consumers.service_ms={\"dist\": \"const\", \"value\": 999}",
                          "broker.max_deliveries=2"),
                      MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(after.redeliveries, 1);
    ck_assert_uint_ge(after.late_acks, 1);
    ck_assert_uint_eq(after.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

START_TEST(test_a_late_ack_is_accepted_only_when_late_ack_says_so)
{
    /* Redelivery waits 100 ms; a late ack arriving inside that wait settles the message. */
    const char *late = "broker.consumers.service_ms={\"dist\": \"const\", \"value\": 1030}";
    const char *wait = "broker.redelivery_delay_ms=100";
    Metrics ignored =
        test_run_json(one_message, SET(late, wait, "broker.max_deliveries=2"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(ignored.redeliveries, 1);
    Metrics accepted = test_run_json(
        one_message, SET(late, wait, "broker.max_deliveries=2", "broker.late_ack=accept"),
        MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(accepted.redeliveries, 0);
    ck_assert_uint_eq(accepted.outcomes[OUTCOME_OK], 1);
}
END_TEST

START_TEST(test_max_deliveries_then_dead_letter)
{
    Metrics metrics =
        test_run_json(one_message,
                      SET("broker.consumers.service_ms={\"dist\": \"const\", \"value\": 5000}",
                          "broker.max_deliveries=3", "broker.consumers.workers=0"),
                      MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.deliveries, 3);
    ck_assert_uint_eq(metrics.dead_lettered, 1);
    ck_assert_uint_eq(metrics.executions, 3); /* every copy ran: no key store */
    Metrics keyed =
        test_run_json(one_message,
                      SET("broker.consumers.service_ms={\"dist\": \"const\", \"value\": 5000}",
                          "broker.max_deliveries=3", "broker.consumers.workers=0"),
                      MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.executions, 1); /* later copies found the key processing */
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_OK], 1);
}
END_TEST

/* The confirm of the first publish is lost in an outage; the producer re-publishes the same
 * message id after its 1000 ms timeout plus a fixed 100 ms backoff. */
static const char *const republish =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"shop\", \"target\": \"broker\", \"key\": \"message-id\","
    "   \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 1000, \"backoff\": {\"base_ms\": 100, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}},"
    "   \"outages\": [{\"from_ms\": 0, \"to_ms\": 500, \"link\": \"broker->shop\"}]},"
    " \"broker\": {\"consumers\": {\"service_ms\": {\"dist\": \"const\", \"value\": 1}}}}";

START_TEST(test_publisher_dedup_drops_a_republish_inside_the_window_only)
{
    Metrics inside =
        test_run_json(republish, SET("broker.dedup_window_ms=5000"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(inside.deduplicated, 1);
    ck_assert_uint_eq(inside.messages, 1);
    ck_assert_uint_eq(inside.outcomes[OUTCOME_OK], 1);
    Metrics outside =
        test_run_json(republish, SET("broker.dedup_window_ms=1000"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(outside.deduplicated, 0);
    ck_assert_uint_eq(outside.messages, 2);
    ck_assert_uint_eq(outside.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

START_TEST(test_a_consumer_crash_loses_messages_only_at_most_once)
{
    const char *crash =
        "broker.consumers.crash={\"point\": \"before-effect\", \"prob\": 1.0, \"max_crashes\": 1,"
        " \"restart_ms\": 100}";
    Metrics at_most_once = test_run_json(one_message, SET(crash), MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(at_most_once.crashes, 1);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_LOST], 1);
    Metrics at_least_once = test_run_json(one_message, SET(crash), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(at_least_once.redeliveries, 1);
    ck_assert_uint_eq(at_least_once.outcomes[OUTCOME_OK], 1);
}
END_TEST

START_TEST(test_the_load_incident_charges_twice_only_without_a_key)
{
    Scenario *scenario = test_load_source_file("scenarios/03_broker_slow_consumers.json", NULL, 0);
    Metrics at_most_once = test_run_mode(scenario, MODE_AT_MOST_ONCE, scenario->seed);
    Metrics at_least_once = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    Metrics idempotent = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_uint_gt(at_most_once.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(at_least_once.outcomes[OUTCOME_DOUBLE], 100);
    ck_assert_uint_eq(at_least_once.crashes, 0); /* nothing failed */
    ck_assert_uint_eq(idempotent.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(idempotent.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_gt(idempotent.replayed, 0);
    /* the queue really backed up: its depth series rose well above its start */
    const TimeSeries *depth = &at_least_once.queue_depth_series;
    uint64_t peak = 0;
    for (uint32_t i = 0; i < depth->used; i++)
        peak = depth->max[i] > peak ? depth->max[i] : peak;
    ck_assert_uint_gt(peak, 100);
    free(scenario);
}
END_TEST

/* In the storm a double is known at its second charge, long before the message settles
 * (it may be redelivered for minutes): the live count runs ahead of the settled one, and
 * the two meet at the end. */
START_TEST(test_live_doubles_run_ahead_of_settled_ones_in_the_storm)
{
    Scenario *scenario = test_load_source_file("scenarios/03_broker_slow_consumers.json", NULL, 0);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed, (TraceSink){0},
                                (WorldLimits){0});
    uint64_t most_ahead = 0;
    while (world_run_events(world, 1000) > 0) {
        const Metrics *metrics = world_metrics(world);
        ck_assert_uint_ge(metrics->doubles_so_far, metrics->outcomes[OUTCOME_DOUBLE]);
        uint64_t ahead = metrics->doubles_so_far - metrics->outcomes[OUTCOME_DOUBLE];
        most_ahead = ahead > most_ahead ? ahead : most_ahead;
    }
    const Metrics *metrics = world_metrics(world);
    ck_assert_uint_gt(most_ahead, 100);
    ck_assert_uint_eq(metrics->doubles_so_far, metrics->outcomes[OUTCOME_DOUBLE]);
    ck_assert_int_eq(metrics->double_amount_so_far, metrics->double_amount);
    world_destroy(world);
    free(scenario);
}
END_TEST

START_TEST(test_redelivery_rate_matches_the_exponential_tail)
{
    /* Unbounded workers, instant network, exponential service of mean m, ack timeout T,
     * two deliveries at most: a message is redelivered iff its first run outlasts T, with
     * probability exp(-T/m). */
    const double m = 100, T = 150;
    Metrics metrics =
        test_run_json(one_message,
                      SET("clients[0].count=5000", "broker.max_deliveries=2",
                          "broker.consumers.workers=0", "broker.ack_timeout_ms=150",
                          "broker.consumers.service_ms={\"dist\": \"exp\", \"mean\": 100}",
                          "network.default.delay_ms={\"dist\": \"const\", \"value\": 0}"),
                      MODE_AT_LEAST_ONCE);
    double n = (double)metrics.messages;
    double expected = exp(-T / m);
    double measured = metrics.redeliveries / n;
    ck_assert_uint_eq(metrics.messages, 5000);
    ck_assert_msg(fabs(measured - expected) < test_binomial_tolerance(expected, n),
                  "redelivered %f, expected %f", measured, expected);
    /* without a key store every redelivered message ran twice */
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], metrics.redeliveries);
}
END_TEST

START_TEST(test_a_double_charge_sends_two_receipts_and_a_keyed_server_one)
{
    const char *lost_answer =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 10000}],"
        " \"clients\": [{\"id\": \"web\", \"workload\": {\"at_ms\": [0]},"
        "   \"retry\": {\"timeout_ms\": 1000}}],"
        " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}},"
        "   \"outages\": [{\"from_ms\": 0, \"to_ms\": 500, \"link\": \"server->web\"}]},"
        " \"server\": {\"publish_receipts\": true}}";
    Metrics unkeyed = test_run_json(lost_answer, NO_SET, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(unkeyed.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(unkeyed.receipts_sent, 2);
    ck_assert_uint_eq(unkeyed.receipts_duplicated, 1);
    Metrics keyed = test_run_json(lost_answer, NO_SET, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.receipts_sent, 1);
    ck_assert_uint_eq(keyed.receipts_duplicated, 0);
    /* the same double charge, but the receipts' ids are stable: a dedup window catches the
     * second one at the broker */
    Metrics deduplicated =
        test_run_json(lost_answer, SET("broker.dedup_window_ms=60000"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(deduplicated.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(deduplicated.receipts_sent, 1);
    ck_assert_uint_eq(deduplicated.deduplicated, 1);
}
END_TEST

/* A server that charges at a gateway, then publishes its receipt directly; its mailer
 * consumes the receipts. */
static const char *const receipt_after_call =
    "{\"name\": \"receipt-after-call\", \"seed\": 5, \"duration_ms\": 20000,"
    " \"accounts\": [{\"id\": \"alice\", \"balance\": 100000000}],"
    " \"services\": ["
    "   {\"id\": \"api\", \"kind\": \"server\", \"key_store\": \"keys\","
    "    \"steps\": [{\"call\": \"psp\"}, {\"publish\": \"bus\", \"via\": \"direct\"}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\"},"
    "   {\"id\": \"bus\", \"kind\": \"broker\"},"
    "   {\"id\": \"mailer\", \"kind\": \"consumers\", \"consumes\": \"bus\","
    "    \"key_store\": \"mailer-keys\", \"steps\": [{\"effect\": \"local\"}]}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 20, \"calls\": \"api\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 3, \"interval_ms\": 500}}]}";

/* The server publishes once it hears of the charge, and the broker's confirm comes back to
 * it: no client takes that confirm for its payment's answer (it used to: the receipt left
 * from the gateway, and its confirm went where a client's answer goes). Every answer from
 * the server to the clients is lost here, so no client can be told success. */
START_TEST(test_a_receipts_confirm_is_no_clients_answer)
{
    const char *const answers_lost[] = {"network.links.api->app={\"loss\": 1}"};
    Metrics metrics = test_run_json(receipt_after_call, answers_lost, 1, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(metrics.operations, 60);
    ck_assert_uint_eq(metrics.receipts_sent, 60); /* the broker confirmed every receipt */
    ck_assert_uint_eq(metrics.client_succeeded, 0);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_PHANTOM], 60); /* charged, never told */
}
END_TEST

/* The publish step comes after the call: a charge the server never hears of (every answer
 * of the gateway lost) is made, but no receipt leaves for it. */
START_TEST(test_a_charge_the_server_never_hears_of_sends_no_receipt)
{
    const char *const replies_lost[] = {"network.links.psp->api={\"loss\": 1}"};
    Metrics metrics = test_run_json(receipt_after_call, replies_lost, 1, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(metrics.effects, 60); /* every charge made */
    ck_assert_uint_eq(metrics.receipts_sent, 0);
    ck_assert_uint_eq(metrics.receipts_missing, 60);
}
END_TEST

START_TEST(test_server_and_consumers_each_have_their_own_crash_budget)
{
    const char *both =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 5},"
        "               {\"id\": \"shop\", \"count\": 5, \"target\": \"broker\"}],"
        " \"server\": {\"crash\": {\"point\": \"before-effect\", \"prob\": 1.0,"
        "   \"max_crashes\": 2, \"restart_ms\": 10}},"
        " \"broker\": {\"ack_timeout_ms\": 500, \"consumers\": {\"crash\": {\"point\":"
        "   \"before-effect\", \"prob\": 1.0, \"max_crashes\": 2, \"restart_ms\": 10}}}}";
    Metrics metrics = test_run_json(both, NO_SET, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.crashes, 4);
}
END_TEST

START_TEST(test_the_consumers_key_store_is_swept_too)
{
    Metrics swept = test_run_json(
        one_message,
        SET("clients[0].count=200", "clients[0].workload.at_ms=[0, 1000, 2000, 3000]",
            "broker.consumers.idempotency.ttl_ms=100",
            "broker.consumers.idempotency.cleanup_interval_ms=100", "broker.consumers.workers=0",
            "broker.consumers.service_ms={\"dist\": \"const\", \"value\": 1}"),
        MODE_IDEMPOTENT);
    ck_assert_uint_eq(swept.messages, 800);
    ck_assert_uint_le(swept.key_store_peak, 400); /* one wave of keys, at most two */
}
END_TEST

/* A steady stream of messages the consumers keep up with (40 a second for a capacity of 100),
 * many redelivered (the ack timeout is shorter than some service times) and many acked late:
 * the broker's storage follows the messages in progress, so ten times as many messages over
 * ten times as long take about the same memory. */
static uint64_t memory_after(uint32_t operations_per_client)
{
    char workload[160];
    snprintf(workload, sizeof workload,
             "clients[0].workload={\"ops\": %u, \"interval_ms\": {\"dist\": \"exp\", "
             "\"mean\": 500}}",
             operations_per_client);
    const char *overrides[] = {"clients[0].count=20",
                               workload,
                               "broker.ack_timeout_ms=60",
                               "broker.late_ack=accept",
                               "broker.redelivery_delay_ms=5",
                               "broker.consumers.workers=4",
                               "broker.consumers.service_ms={\"dist\": \"exp\", \"mean\": 40}",
                               "duration_ms=100000000"};
    Scenario *scenario = test_load(one_message, overrides, 8);
    Metrics metrics;
    uint64_t bytes = test_memory_after_run(scenario, MODE_AT_LEAST_ONCE, 3, &metrics);
    ck_assert_uint_eq(metrics.messages, 20 * operations_per_client);
    ck_assert_uint_gt(metrics.redeliveries, 0);
    ck_assert_uint_gt(metrics.late_acks, 0);
    free(scenario);
    return bytes;
}

START_TEST(test_broker_memory_follows_the_messages_in_progress_not_all_published)
{
    uint64_t few = memory_after(200);   /* 4,000 messages */
    uint64_t many = memory_after(2000); /* 40,000 messages */
    ck_assert_msg(many < few + few / 2, "%llu bytes for 40,000 messages, %llu for 4,000",
                  (unsigned long long)many, (unsigned long long)few);
}
END_TEST

/* ------------------------------------------------------------------ named queues */

/* Two groups publish to two queues with different rules: a 100 ms ack timeout for orders
 * (slower than the consumers), a minute for emails. Only orders are redelivered; each queue
 * counts its own messages, and the totals are their sums. */
static const char *const two_queues =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"shop\", \"target\": \"broker\", \"queue\": \"orders\","
    "                \"count\": 10, \"workload\": {\"ops\": 20, \"interval_ms\": {\"dist\":"
    "                \"exp\", \"mean\": 200}}},"
    "               {\"id\": \"mailer\", \"target\": \"broker\", \"queue\": \"emails\","
    "                \"count\": 5, \"operation\": {\"kind\": \"send-email\"},"
    "                \"workload\": {\"ops\": 20, \"interval_ms\": {\"dist\": \"exp\","
    "                \"mean\": 200}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"broker\": {\"ack_timeout_ms\": 60000, \"max_deliveries\": 0,"
    "   \"queues\": [{\"name\": \"orders\", \"ack_timeout_ms\": 100}, {\"name\": \"emails\"}],"
    "   \"consumers\": {\"workers\": 8,"
    "                 \"service_ms\": {\"dist\": \"exp\", \"mean\": 60}}}}";

START_TEST(test_each_queue_follows_its_own_rules_and_counts_its_own_messages)
{
    Scenario *scenario = test_load(two_queues, NULL, 0);
    ck_assert_uint_eq(scenario->broker.queue_count, 2);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, 5);
    const QueueMetrics *orders = &metrics.queues[0], *emails = &metrics.queues[1];
    ck_assert_uint_eq(metrics.queue_count, 2);
    ck_assert_uint_eq(orders->messages, 10 * 20);
    ck_assert_uint_eq(emails->messages, 5 * 20);
    ck_assert_uint_eq(metrics.messages, orders->messages + emails->messages);
    /* P(service > 100 ms) = exp(-100/60), about one in five: plenty of redeliveries. */
    ck_assert_uint_gt(orders->redeliveries, 10);
    ck_assert_uint_eq(emails->redeliveries, 0);
    ck_assert_uint_eq(metrics.redeliveries, orders->redeliveries);
    ck_assert_uint_eq(metrics.deliveries, orders->deliveries + emails->deliveries);
    free(scenario);
}
END_TEST

/* The server's receipts go to the queue it names, not to the first one. */
START_TEST(test_receipts_go_to_the_queue_the_server_names)
{
    const char *const paying =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 10, \"workload\": {\"ops\": 5,"
        "   \"interval_ms\": {\"dist\": \"exp\", \"mean\": 200}}}],"
        " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
        " \"server\": {\"publish_receipts\": true, \"receipts_queue\": \"emails\"},"
        " \"broker\": {\"queues\": [{\"name\": \"orders\"}, {\"name\": \"emails\"}]}}";
    Scenario *scenario = test_load(paying, NULL, 0);
    ck_assert_uint_eq(scenario->server.receipts_queue, 1);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, 5);
    ck_assert_uint_eq(metrics.queues[0].messages, 0);
    ck_assert_uint_eq(metrics.queues[1].messages, 50);
    ck_assert_uint_eq(metrics.messages, 50);
    ck_assert_uint_eq(metrics.receipts_sent, 50);
    free(scenario);
}
END_TEST

static Suite *broker_suite(void)
{
    Suite *suite = suite_create("broker");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_message_acked_in_time_is_delivered_once);
    tcase_add_test(core, test_an_ack_just_before_the_timeout_counts_and_just_after_does_not);
    tcase_add_test(core, test_a_late_ack_is_accepted_only_when_late_ack_says_so);
    tcase_add_test(core, test_max_deliveries_then_dead_letter);
    tcase_add_test(core, test_publisher_dedup_drops_a_republish_inside_the_window_only);
    tcase_add_test(core, test_a_consumer_crash_loses_messages_only_at_most_once);
    tcase_add_test(core, test_the_load_incident_charges_twice_only_without_a_key);
    tcase_add_test(core, test_live_doubles_run_ahead_of_settled_ones_in_the_storm);
    tcase_add_test(core, test_broker_memory_follows_the_messages_in_progress_not_all_published);
    tcase_add_test(core, test_each_queue_follows_its_own_rules_and_counts_its_own_messages);
    tcase_add_test(core, test_receipts_go_to_the_queue_the_server_names);
    tcase_add_test(core, test_a_double_charge_sends_two_receipts_and_a_keyed_server_one);
    tcase_add_test(core, test_a_receipts_confirm_is_no_clients_answer);
    tcase_add_test(core, test_a_charge_the_server_never_hears_of_sends_no_receipt);
    tcase_add_test(core, test_server_and_consumers_each_have_their_own_crash_budget);
    tcase_add_test(core, test_the_consumers_key_store_is_swept_too);
    suite_add_tcase(suite, core);
    TCase *closed_forms = tcase_create("ClosedForms");
    tcase_add_test(closed_forms, test_redelivery_rate_matches_the_exponential_tail);
    suite_add_tcase(suite, closed_forms);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(broker_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
