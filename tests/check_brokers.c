/* The broker is an actor at its node (issue 21, the shape a second broker will use): the
 * world's brokers are found by their nodes, each reads its own rules, each consumer group
 * names the broker it reads, and the broker's steps, timers and traces happen at its node. */
#include "test_world.h"
#include "world_internal.h"

/* Two clients publish a payment every 10 ms each to a log read by a consumer group of two
 * instances, which rebalances every 50 ms and commits every 20 ms: the log's own timers run. */
static const char *const two_instance_log =
    "{\"name\": \"two_instance_log\", \"seed\": 1, \"duration_ms\": 200,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"payments\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 2,"
    "    \"commit\": \"after\", \"commit_interval_ms\": 20, \"rebalance_every_ms\": 50},"
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"payments\","
    "    \"key_store\": \"keys\", \"instances\": 2, \"workers\": 1,"
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 4}},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\", \"key\": \"message-id\","
    "    \"lock_timeout_ms\": 100}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": 2, \"publishes\": \"payments\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}";

START_TEST(test_the_broker_is_the_actor_at_its_node)
{
    Scenario *scenario = test_load(two_instance_log, NULL, 0);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0}, (WorldLimits){0});
    ck_assert_uint_eq(world->broker_count, 1);
    const Broker *broker = &world->brokers[0];
    ck_assert_uint_eq(world->nodes[broker->node].kind, NODE_BROKER);
    ck_assert_uint_eq(world->nodes[broker->node].actor, 0);
    ck_assert_ptr_eq(broker_at(world, broker->node), broker);
    ck_assert_ptr_eq(broker->spec, &world->scenario.broker); /* the world's copy's rules */
    ck_assert_uint_eq(world->broker_nodes[0], broker->node); /* the publishers' */
    ck_assert_uint_eq(world->consumer_count, 2);
    for (uint32_t i = 0; i < world->consumer_count; i++)
        ck_assert_ptr_eq(consumers_broker(world, &world->consumers[i]), broker);
    world_destroy(world);
    free(scenario);
}
END_TEST

typedef struct {
    uint32_t broker_node;
    uint32_t broker_steps; /* enqueues, commits and rebalances traced */
    uint32_t elsewhere;    /* of those, traced at another node */
} BrokerSteps;

static void count_broker_steps(void *context, const TraceRecord *record)
{
    BrokerSteps *steps = context;
    if (record->event != TRACE_ENQUEUE && record->event != TRACE_OFFSET_COMMIT &&
        record->event != TRACE_REBALANCE)
        return;
    steps->broker_steps++;
    steps->elsewhere += record->actor != steps->broker_node;
}

/* The log's commits and rebalances are the broker's timers (EVENT_LOG_COMMIT,
 * EVENT_LOG_REBALANCE, scheduled at its node): each finds its broker there, and what it does
 * is traced at that node, as the publishes it takes in are. */
START_TEST(test_the_brokers_steps_and_timers_happen_at_its_node)
{
    Scenario *scenario = test_load(two_instance_log, NULL, 0);
    BrokerSteps steps = {0};
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1,
                                (TraceSink){count_broker_steps, &steps}, (WorldLimits){0});
    steps.broker_node = world->brokers[0].node;
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_NONE);
    const Metrics *metrics = world_metrics(world);
    ck_assert_uint_gt(metrics->rebalances, 0);
    ck_assert_uint_gt(metrics->offset_commits, 0);
    ck_assert_uint_ge(steps.broker_steps, 20 + metrics->rebalances + metrics->offset_commits);
    ck_assert_uint_eq(steps.elsewhere, 0);
    world_destroy(world);
    free(scenario);
}
END_TEST

static Suite *brokers_suite(void)
{
    Suite *suite = suite_create("brokers");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_the_broker_is_the_actor_at_its_node);
    tcase_add_test(core, test_the_brokers_steps_and_timers_happen_at_its_node);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(brokers_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
