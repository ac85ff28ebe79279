/* Broker families (issue 14, item 1, in part): the visibility-timeout broker hands a slow
 * message out again while it is being processed; the channel broker never does, until its
 * channel closes (a delivery held past consumer_timeout_ms, or a consumer crash), and then
 * requeues every unacknowledged message at once. Neither hands anything out while its
 * consumers are down. */
#include "test_world.h"

START_TEST(test_a_channel_never_redelivers_a_slow_message_until_it_closes)
{
    const char *const patient[] = {"broker.consumer_timeout_ms=100000000"};
    Scenario *visibility =
        test_load_source_file("scenarios/03_broker_slow_consumers.json", NULL, 0);
    Scenario *open_channel = test_load_source_file("scenarios/03_broker_channel.json", patient, 1);
    Scenario *closing = test_load_source_file("scenarios/03_broker_channel.json", NULL, 0);
    Metrics storm = test_run_mode(visibility, MODE_AT_LEAST_ONCE, visibility->seed);
    Metrics calm = test_run_mode(open_channel, MODE_AT_LEAST_ONCE, open_channel->seed);
    Metrics closed = test_run_mode(closing, MODE_AT_LEAST_ONCE, closing->seed);
    ck_assert_uint_gt(storm.redeliveries, 0);
    ck_assert_uint_gt(storm.outcomes[OUTCOME_DOUBLE], 0);
    /* no message comes back while its consumer works on it: only a closure (here at most
     * one, for a delivery that waited in a prefetch buffer for over a day) requeues */
    ck_assert_uint_le(calm.channel_closures, 1);
    ck_assert_uint_lt(calm.redeliveries, storm.redeliveries / 4);
    ck_assert_uint_lt(calm.outcomes[OUTCOME_DOUBLE], storm.outcomes[OUTCOME_DOUBLE] / 2);
    ck_assert_uint_gt(closed.channel_closures, 0);
    ck_assert_uint_gt(closed.redeliveries, 0);
    ck_assert_uint_gt(closed.outcomes[OUTCOME_DOUBLE], 0);
    free(visibility);
    free(open_channel);
    free(closing);
}
END_TEST

/* A consumer crash closes the channel: what the consumers held comes back at once, where a
 * visibility-timeout broker waits for each message's ack timeout. */
START_TEST(test_a_consumer_crash_closes_the_channel)
{
    const char *const crashing[] = {
        "broker.consumer_timeout_ms=100000000", "broker.consumers.crash.point=\"after-effect\"",
        "broker.consumers.crash.prob=0.01", "broker.consumers.crash.max_crashes=2"};
    Scenario *scenario = test_load_source_file("scenarios/03_broker_channel.json", crashing, 4);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_uint_eq(metrics.crashes, 2);
    ck_assert_uint_ge(metrics.channel_closures, 2); /* each crash closes it; a timeout may too */
    ck_assert_uint_gt(metrics.redeliveries, 0);
    free(scenario);
}
END_TEST

/* While the crashed consumers are down they have no channel: the broker keeps what is ready
 * (the requeued deliveries too) until they restart, as RabbitMQ keeps messages with no
 * consumer subscribed, instead of delivering to nobody and waiting consumer_timeout_ms for
 * that delivery. Every closure is a crash's, and nothing is lost. */
START_TEST(test_a_channel_delivers_nothing_while_its_consumers_are_down)
{
    static const char *const down =
        "{\"name\": \"down\", \"seed\": 3, \"duration_ms\": 20000,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
        " \"clients\": [{\"id\": \"shop\", \"count\": 4, \"target\": \"broker\","
        "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
        "   \"workload\": {\"ops\": 50, \"interval_ms\": 200}}],"
        " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 1}},"
        " \"broker\": {\"family\": \"channel\", \"consumer_timeout_ms\": 10000000,"
        "   \"max_deliveries\": 0, \"consumers\": {\"workers\": 2, \"service_ms\": 50,"
        "   \"crash\": {\"point\": \"after-effect\", \"prob\": 0.05, \"max_crashes\": 3,"
        "   \"restart_ms\": 2000}}}}";
    Metrics metrics = test_run_text(down, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.crashes, 3);
    ck_assert_uint_eq(metrics.channel_closures, 3);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_gt(metrics.redeliveries, 0);
}
END_TEST

/* A visibility-timeout queue hands a message out only to a consumer that asks for it (SQS
 * ReceiveMessage), and its timeout starts then: while the crashed consumers are down nothing
 * is handed out. One worker, every hop 1 ms, handlers of 500 ms, ack timeout 1 s. The first
 * message's handler crashes at 503 ms and the consumers are down until 2503 ms; the second
 * message is published at 1000 ms, while they are down. It waits in the queue and is handed
 * out after the restart as its first delivery: nothing goes to the down consumers (no
 * delivery refused), the only redelivery is the crashed one's, and at-most-once loses only
 * the message the crash held. (Handed out regardless, the second would be refused, time out
 * and come back as a redelivery; at-most-once would lose it.) */
START_TEST(test_a_queue_hands_nothing_out_while_its_consumers_are_down)
{
    static const char *const down =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
        " \"clients\": [{\"id\": \"shop\", \"target\": \"broker\", \"key\": \"message-id\","
        "   \"workload\": {\"at_ms\": [0, 1000]}}],"
        " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
        " \"broker\": {\"family\": \"visibility-timeout\", \"ack_timeout_ms\": 1000,"
        "   \"max_deliveries\": 0, \"consumers\": {\"workers\": 1,"
        "   \"service_ms\": {\"dist\": \"const\", \"value\": 500},"
        "   \"crash\": {\"point\": \"before-effect\", \"prob\": 1.0, \"max_crashes\": 1,"
        "   \"restart_ms\": 2000}}}}";
    Metrics at_least_once = test_run_text(down, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(at_least_once.crashes, 1);
    ck_assert_uint_eq(at_least_once.network_dropped, 0);
    ck_assert_uint_eq(at_least_once.deliveries, 3);
    ck_assert_uint_eq(at_least_once.redeliveries, 1);
    ck_assert_uint_eq(at_least_once.outcomes[OUTCOME_OK], 2);
    Metrics at_most_once = test_run_text(down, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(at_most_once.crashes, 1);
    ck_assert_uint_eq(at_most_once.network_dropped, 0);
    ck_assert_uint_eq(at_most_once.deliveries, 2);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_LOST], 1);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_OK], 1);
}
END_TEST

/* Heartbeats (SQS ChangeMessageVisibility, JetStream AckProgress): one message, a handler
 * of S = 25 s behind an ack timeout of T = 10 s, a beat every h = 3 s over a 1 ms link.
 * Each beat restarts the timeout, so the message is never handed out again, and the beats
 * are those at h, 2h, ... before the handler ends: ceil(S / h) - 1 = 8. Without beats, or
 * with beats slower than the timeout, it comes back; and a message that waits in the
 * buffer behind it (prefetch 2, one worker) has no handler beating for it and comes back. */
static const char *const slow_handler =
    "{\"name\": \"beats\", \"seed\": 1, \"duration_ms\": 1,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"broker\": {\"ack_timeout_ms\": 10000, \"max_deliveries\": 3,"
    "   \"consumers\": {\"workers\": 1, \"heartbeat_ms\": 3000,"
    "     \"service_ms\": {\"dist\": \"const\", \"value\": 25000}}}}";

START_TEST(test_a_heartbeat_keeps_a_slow_message_from_being_redelivered)
{
    Metrics beating = test_run_json(slow_handler, NULL, 0, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(beating.heartbeats, 8);
    ck_assert_uint_eq(beating.redeliveries, 0);
    ck_assert_uint_eq(beating.late_acks, 0);
    ck_assert_uint_eq(beating.outcomes[OUTCOME_OK], 1);
    const char *const silent[] = {"broker.consumers.heartbeat_ms=0"};
    Metrics redelivered = test_run_json(slow_handler, silent, 1, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(redelivered.heartbeats, 0);
    ck_assert_uint_gt(redelivered.redeliveries, 0);
    ck_assert_uint_eq(redelivered.outcomes[OUTCOME_DOUBLE], 1);
    const char *const too_slow[] = {"broker.consumers.heartbeat_ms=12000"};
    Metrics late = test_run_json(slow_handler, too_slow, 1, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(late.heartbeats, 0); /* each beat finds its delivery timed out */
    ck_assert_uint_gt(late.redeliveries, 0);
    /* at-most-once acks on delivery: nothing to extend, nothing sent */
    Metrics acked = test_run_json(slow_handler, NULL, 0, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(acked.heartbeats, 0);
    ck_assert_uint_eq(acked.redeliveries, 0);
}
END_TEST

START_TEST(test_a_buffered_message_has_no_heartbeat)
{
    const char *const queued[] = {"clients[0].workload.at_ms=[0, 1]", "broker.prefetch=2"};
    Metrics metrics = test_run_json(slow_handler, queued, 2, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(metrics.heartbeats, 0);
    ck_assert_uint_gt(metrics.redeliveries, 0); /* the second waited 25 s, past its 10 s */
}
END_TEST

START_TEST(test_heartbeats_are_refused_without_a_per_delivery_timeout)
{
    static const char *const json =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1, \"target\": \"broker\"}],"
        " \"broker\": {\"family\": \"channel\", \"consumers\": {\"heartbeat_ms\": 1000}}}";
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors));
    ck_assert_int_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].path, "$.broker.consumers.heartbeat_ms");
    free(scenario);
}
END_TEST

START_TEST(test_each_family_refuses_the_other_clock)
{
    static const char *const json =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1, \"target\": \"broker\"}],"
        " \"broker\": {\"family\": \"channel\", \"ack_timeout_ms\": 1000}}";
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].path, "$.broker.ack_timeout_ms");
    free(scenario);
}
END_TEST

/* A closed channel requeues what it held when it closed, once each: the requeue hands the
 * ready messages out again at once, and one handed out then (on the instance's next channel,
 * after a consumer timeout) is not the closed channel's. Requeued twice, a message was
 * handed out twice in one instant. */
typedef struct {
    SimTimeUs t_us;
    uint64_t seen[4096]; /* operations handed out at t_us */
    uint32_t count;
    uint32_t twice;
} RedeliveryInstant;

static void note_redelivery(void *context, const TraceRecord *record)
{
    RedeliveryInstant *instant = context;
    if (record->event != TRACE_TRANSMIT || record->message != MESSAGE_DELIVERY)
        return;
    if (record->t_us != instant->t_us) {
        instant->t_us = record->t_us;
        instant->count = 0;
    }
    for (uint32_t i = 0; i < instant->count; i++)
        instant->twice += instant->seen[i] == record->operation;
    if (instant->count < 4096)
        instant->seen[instant->count++] = record->operation;
}

START_TEST(test_a_closed_channel_requeues_each_message_once)
{
    Scenario *scenario = test_load_source_file("scenarios/03_broker_channel.json", NULL, 0);
    RedeliveryInstant *instant = calloc(1, sizeof *instant);
    World *world =
        world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                     (TraceSink){.write = note_redelivery, .context = instant}, (WorldLimits){0});
    world_run(world);
    ck_assert_uint_gt(world_metrics(world)->channel_closures, 0);
    ck_assert_uint_eq(instant->twice, 0);
    world_destroy(world);
    free(instant);
    free(scenario);
}
END_TEST

static Suite *broker_family_suite(void)
{
    Suite *suite = suite_create("broker_family");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_a_channel_never_redelivers_a_slow_message_until_it_closes);
    tcase_add_test(core, test_a_consumer_crash_closes_the_channel);
    tcase_add_test(core, test_a_channel_delivers_nothing_while_its_consumers_are_down);
    tcase_add_test(core, test_a_queue_hands_nothing_out_while_its_consumers_are_down);
    tcase_add_test(core, test_each_family_refuses_the_other_clock);
    tcase_add_test(core, test_a_heartbeat_keeps_a_slow_message_from_being_redelivered);
    tcase_add_test(core, test_a_buffered_message_has_no_heartbeat);
    tcase_add_test(core, test_heartbeats_are_refused_without_a_per_delivery_timeout);
    tcase_add_test(core, test_a_closed_channel_requeues_each_message_once);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(broker_family_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
