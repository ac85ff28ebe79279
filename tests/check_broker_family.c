/* Broker families (issue 14, item 1, in part): the visibility-timeout broker hands a slow
 * message out again while it is being processed; the channel broker never does, until its
 * channel closes (a delivery held past consumer_timeout_ms, or a consumer crash), and then
 * requeues every unacknowledged message at once. */
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

static Suite *broker_family_suite(void)
{
    Suite *suite = suite_create("broker_family");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_a_channel_never_redelivers_a_slow_message_until_it_closes);
    tcase_add_test(core, test_a_consumer_crash_closes_the_channel);
    tcase_add_test(core, test_each_family_refuses_the_other_clock);
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
