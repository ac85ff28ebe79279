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

/* Two brokers (issue 21): a shop's app publishes orders to a log the chargers read; the
 * checkout API charges the web's payments itself; every charge publishes its receipt to a
 * queue the mailers take. second_broker is spliced into the second broker's entry, mailers
 * among the services, app_publishes into the app's client group. */
#define TWO_BROKERS(second_broker, mailers, app_publishes)                                         \
    "{\"name\": \"two_brokers\", \"seed\": 3, \"duration_ms\": 2000,"                              \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","            \
    "    \"steps\": [{\"effect\": \"local\"}, {\"publish\": \"notifications\"}]},"                 \
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"                                     \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 2},"       \
    "   {\"id\": \"notifications\", \"kind\": \"broker\"" second_broker "},"                       \
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                 \
    "    \"key_store\": \"charger-keys\", \"service_ms\": {\"dist\": \"const\", \"value\": 2}},"   \
    "   {\"id\": \"charger-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"}," mailers     \
    "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"}],"                                      \
    " \"clients\": [{\"id\": \"web\", \"count\": 2, \"calls\": \"checkout\","                      \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"at_ms\": [0, 100, 200, 300, 400]}},"                                      \
    "  {\"id\": \"app\", \"count\": 3, " app_publishes ", \"key\": \"message-id\","                \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"at_ms\": [0, 100, 200, 300]}}],"                                          \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}"

#define MAILERS                                                                                    \
    "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"notifications\","           \
    "    \"key_store\": \"mailer-keys\", \"steps\": [{\"effect\": \"email\"}],"                    \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 2}},"
#define APP_TO_ORDERS "\"publishes\": \"orders\""

#define CHANNEL ", \"family\": \"channel\""

static const char *const two_brokers = TWO_BROKERS(CHANNEL, MAILERS, APP_TO_ORDERS);

/* Each broker is an actor of its own with its own rules: the second's node is the last
 * service node, each consumer instance reads its group's broker, and each broker's node is
 * where its publishers send. */
START_TEST(test_two_brokers_each_with_its_rules_and_groups)
{
    Scenario *scenario = test_load(two_brokers, NULL, 0);
    ck_assert_uint_eq(scenario->extra_broker_count, 1);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0}, (WorldLimits){0});
    ck_assert_uint_eq(world->broker_count, 2);
    ck_assert_ptr_eq(world->brokers[0].spec, &world->scenario.broker);
    ck_assert_ptr_eq(world->brokers[1].spec, &world->scenario.extra_brokers[0].spec);
    ck_assert_uint_eq(world->brokers[1].spec->family, BROKER_CHANNEL);
    ck_assert_uint_eq(world->brokers[1].node, world->node_count - 1); /* appended last */
    ck_assert_str_eq(world_node(world, world->brokers[1].node)->name, "notifications");
    for (uint32_t b = 0; b < 2; b++) {
        ck_assert_uint_eq(world->broker_nodes[b], world->brokers[b].node);
        ck_assert_ptr_eq(broker_at(world, world->brokers[b].node), &world->brokers[b]);
    }
    ck_assert_uint_eq(world->consumer_count, 2);
    ck_assert_ptr_eq(consumers_broker(world, &world->consumers[0]), &world->brokers[0]);
    ck_assert_ptr_eq(consumers_broker(world, &world->consumers[1]), &world->brokers[1]);
    ck_assert_uint_eq(world->brokers[0].log_group_count, 1); /* the mailers read the other */
    world_destroy(world);
    free(scenario);
}
END_TEST

typedef struct {
    uint32_t node[2];
    uint32_t enqueued[2]; /* publishes each broker took in */
    uint32_t receipts_at_orders;
} EnqueuesByBroker;

static void count_enqueues(void *context, const TraceRecord *record)
{
    EnqueuesByBroker *count = context;
    if (record->event != TRACE_ENQUEUE)
        return;
    for (int b = 0; b < 2; b++)
        count->enqueued[b] += record->actor == count->node[b];
}

/* The app's orders go to the log and nothing else does; every charge's receipt goes to the
 * queue: the checkout's and the chargers' (a charge anywhere publishes its receipt). Each
 * broker counts its own queue's messages, and the mailers email each receipt once. */
START_TEST(test_each_publisher_reaches_its_own_broker)
{
    Scenario *scenario = test_load(two_brokers, NULL, 0);
    EnqueuesByBroker count = {0};
    World *world = world_create(scenario, MODE_AT_MOST_ONCE, 1, (TraceSink){count_enqueues, &count},
                                (WorldLimits){0});
    count.node[0] = world->brokers[0].node;
    count.node[1] = world->brokers[1].node;
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_NONE);
    const Metrics *metrics = world_metrics(world);
    ck_assert_uint_eq(count.enqueued[0], 3 * 4);         /* the app's orders, no loss */
    ck_assert_uint_eq(count.enqueued[1], 2 * 5 + 3 * 4); /* a receipt per charge */
    ck_assert_uint_eq(metrics->queue_count, 2);
    ck_assert_uint_eq(metrics->queues[0].messages, count.enqueued[0]);
    ck_assert_uint_eq(metrics->queues[1].messages, count.enqueued[1]);
    ck_assert_uint_eq(metrics->messages, count.enqueued[0] + count.enqueued[1]);
    ck_assert_uint_eq(metrics->receipts_sent, 2 * 5 + 3 * 4);
    ck_assert_uint_eq(metrics->receipts_duplicated, 0);
    ck_assert_uint_eq(metrics->outcomes[OUTCOME_DOUBLE], 0); /* each record charged once */
    world_destroy(world);
    free(scenario);
}
END_TEST

/* show writes the second broker, each group's consumes and each publisher's broker: the
 * printed file runs as the original does. */
START_TEST(test_show_writes_the_second_broker_and_reads_it_back)
{
    Scenario *scenario = test_load(two_brokers, NULL, 0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"consumes\": \"notifications\""));
    ck_assert_ptr_nonnull(strstr(shown, "\"publish\": \"notifications\""));
    ck_assert_ptr_nonnull(strstr(shown, "\"publishes\": \"orders\""));
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics first = test_run_mode(scenario, (Mode)mode, 5);
        Metrics second = test_run_mode(again, (Mode)mode, 5);
        ck_assert_uint_eq(first.messages, second.messages);
        ck_assert_uint_eq(first.queues[1].redeliveries, second.queues[1].redeliveries);
        ck_assert_uint_eq(first.receipts_sent, second.receipts_sent);
        ck_assert_uint_eq(first.outcomes[OUTCOME_OK], second.outcomes[OUTCOME_OK]);
    }
    free(shown);
    free(again);
    free(scenario);
}
END_TEST

/* What the wiring of two brokers needs, each refused at its path. */
START_TEST(test_what_a_second_broker_refuses)
{
    /* nothing publishes to the log when the app publishes to the queue */
    test_assert_refused(TWO_BROKERS(CHANNEL, MAILERS, "\"publishes\": \"notifications\""), NULL, 0,
                        "$.services[2]", "nothing publishes to it");
    /* the second broker's group before one of the first's */
    test_assert_refused(
        TWO_BROKERS(CHANNEL,
                    MAILERS
                    "   {\"id\": \"auditors\", \"kind\": \"consumers\", \"consumes\": \"orders\","
                    "    \"key_store\": \"audit-keys\", \"steps\": [{\"effect\": \"email\"}]},"
                    "   {\"id\": \"audit-keys\", \"kind\": \"key_store\"},",
                    APP_TO_ORDERS),
        NULL, 0, "$.services[7].consumes", "after every group of the first");
    /* a queue the second broker does not have */
    test_assert_refused(
        TWO_BROKERS(CHANNEL, MAILERS, "\"publishes\": \"orders\", \"queue\": \"receipts\""), NULL,
        0, "$.clients[1].queue", "receipts");
}
END_TEST

/* The first consumers entry takes the first broker's messages. */
START_TEST(test_the_first_group_consumes_the_first_broker)
{
    static const char *const json =
        "{\"name\": \"x\", \"duration_ms\": 1000, \"accounts\": [{\"id\": \"a\"}],"
        " \"services\": ["
        "   {\"id\": \"orders\", \"kind\": \"broker\"},"
        "   {\"id\": \"receipts\", \"kind\": \"broker\"},"
        "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"receipts\","
        "    \"key_store\": \"k1\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"
        "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
        "    \"key_store\": \"k2\"}, {\"id\": \"k2\", \"kind\": \"key_store\"}],"
        " \"clients\": [{\"id\": \"app\", \"publishes\": \"orders\"},"
        "  {\"id\": \"shop\", \"publishes\": \"receipts\"}]}";
    test_assert_refused(json, NULL, 0, "$.services[2].consumes", "expected the first broker");
}
END_TEST

/* A fanout exchange on the second broker: the shop's payments go to the queue broker's
 * exchange, which copies each to the bookkeepers' queue and the mailers' queue. The app's
 * orders stay on the log. exchanges is spliced into the second broker's entry. */
#define SECOND_BROKER_EXCHANGE(exchanges)                                                          \
    "{\"name\": \"fanout_second\", \"seed\": 2, \"duration_ms\": 2000,"                            \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\"},"                          \
    "   {\"id\": \"payments\", \"kind\": \"broker\", \"queues\": [{\"name\": \"ledger\"},"         \
    "    {\"name\": \"confirmations\"}]" exchanges "},"                                            \
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                 \
    "    \"key_store\": \"k1\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"                       \
    "   {\"id\": \"bookkeepers\", \"kind\": \"consumers\", \"consumes\": \"payments\","            \
    "    \"queues\": [\"ledger\"], \"key_store\": \"k2\"},"                                        \
    "   {\"id\": \"k2\", \"kind\": \"key_store\"},"                                                \
    "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"payments\","                \
    "    \"queues\": [\"confirmations\"], \"steps\": [{\"effect\": \"email\"}],"                   \
    "    \"key_store\": \"k3\"}, {\"id\": \"k3\", \"kind\": \"key_store\"}],"                      \
    " \"clients\": [{\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\","                    \
    "   \"workload\": {\"at_ms\": [0, 100, 200]}},"                                                \
    "  {\"id\": \"shop\", \"count\": 2, \"publishes\": \"payments\", \"queue\": \"all\","          \
    "   \"workload\": {\"at_ms\": [0, 100, 200, 300]}}],"                                          \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}"

#define BOTH_QUEUES "{\"name\": \"all\", \"queues\": [\"ledger\", \"confirmations\"]}"

/* The second broker's exchange copies each of the shop's payments into both its queues: the
 * bookkeepers apply it once and the mailers confirm it once; the log's orders are the
 * chargers' alone. An exchange of the second broker no group publishes to is refused there. */
START_TEST(test_an_exchange_on_the_second_broker)
{
    Scenario *scenario =
        test_load(SECOND_BROKER_EXCHANGE(", \"exchanges\": [" BOTH_QUEUES "]"), NULL, 0);
    ck_assert_uint_eq(scenario->client_groups[1].broker, 1);
    ck_assert_uint_eq(scenario->client_groups[1].exchange, 1);
    Metrics metrics = test_run_mode(scenario, MODE_AT_MOST_ONCE, 2);
    ck_assert_uint_eq(metrics.queue_count, 3); /* orders/main, payments/ledger, /confirmations */
    ck_assert_uint_eq(metrics.queues[0].messages, 2 * 3);
    ck_assert_uint_eq(metrics.queues[1].messages, 2 * 4);
    ck_assert_uint_eq(metrics.queues[2].messages, 2 * 4);
    ck_assert_double_eq(test_service_value(&metrics, "bookkeepers", "effects"), 2 * 4);
    ck_assert_double_eq(test_service_value(&metrics, "chargers", "effects"), 2 * 3);
    ck_assert_uint_eq(metrics.receipts_sent, 2 * 4);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 2 * 3 + 2 * 4);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"exchanges\""));
    Metrics shown_metrics = test_run_mode(again, MODE_AT_MOST_ONCE, 2);
    ck_assert_uint_eq(shown_metrics.queues[2].messages, metrics.queues[2].messages);
    free(shown);
    free(again);
    free(scenario);
    test_assert_refused(SECOND_BROKER_EXCHANGE(", \"exchanges\": [" BOTH_QUEUES
                                               ", {\"name\": \"spare\", \"queues\": [\"ledger\", "
                                               "\"confirmations\"]}]"),
                        NULL, 0, "$.services[1].exchanges[1].name", "none does");
}
END_TEST

/* A link may name the second broker, and it is the link its publishers' messages take: with
 * every checkout->notifications message lost, no receipt of the checkout's charges arrives,
 * while the chargers' (consumer->notifications) all do. */
START_TEST(test_a_link_names_the_second_broker)
{
    static const char *const lossy[] = {
        "network.links={\"checkout->notifications\": {\"loss\": 1}}"};
    Scenario *scenario = test_load(two_brokers, lossy, 1);
    Metrics metrics = test_run_mode(scenario, MODE_AT_MOST_ONCE, 1);
    ck_assert_uint_eq(metrics.queues[1].messages, 3 * 4); /* the chargers' receipts only */
    ck_assert_uint_eq(metrics.receipts_sent, 3 * 4);
    ck_assert_uint_eq(metrics.receipts_missing, 2 * 5);
    free(scenario);
}
END_TEST

/* A heartbeat extends a delivery's ack timeout: it is read by the family of the group's own
 * broker, refused for the mailers of a channel broker beside a visibility-timeout first
 * broker, and honoured for the mailers of a visibility-timeout broker beside a log. */
START_TEST(test_a_heartbeat_is_read_by_its_own_brokers_family)
{
    static const char *const beats[] = {"services.mailers.heartbeat_ms=1000"};
    static const char *const first_queue[] = {"services.orders.family=\"visibility-timeout\"",
                                              "services.mailers.heartbeat_ms=1000"};
    test_assert_refused(two_brokers, first_queue, 2, "$.services[6].heartbeat_ms",
                        "expected a broker of family 'visibility-timeout'");
    test_assert_refused(two_brokers, beats, 1, "$.services[6].heartbeat_ms",
                        "expected a broker of family 'visibility-timeout'");
    static const char *const second_queue[] = {
        "services.notifications.family=\"visibility-timeout\"",
        "services.mailers.heartbeat_ms=1000"};
    Scenario *scenario = test_load(two_brokers, second_queue, 2);
    ck_assert_double_eq(scenario->extra_consumers[0].spec.heartbeat_ms, 1000);
    free(scenario);
}
END_TEST

/* Two logs: the app's orders on one, read by the chargers; the partners' orders on another,
 * read by their own chargers, which apply them, and by mailers, which email each (a later
 * group of a log reads every record and only emails). later_steps is spliced into the
 * partner mailers' entry. */
#define TWO_LOGS(later_steps)                                                                      \
    "{\"name\": \"two_logs\", \"seed\": 5, \"duration_ms\": 5000,"                                 \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 2},"       \
    "   {\"id\": \"partner-orders\", \"kind\": \"broker\", \"family\": \"log\","                   \
    "    \"partitions\": 3},"                                                                      \
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                 \
    "    \"key_store\": \"k1\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"                       \
    "   {\"id\": \"partner-chargers\", \"kind\": \"consumers\","                                   \
    "    \"consumes\": \"partner-orders\", \"key_store\": \"k2\"},"                                \
    "   {\"id\": \"k2\", \"kind\": \"key_store\"},"                                                \
    "   {\"id\": \"partner-mailers\", \"kind\": \"consumers\","                                    \
    "    \"consumes\": \"partner-orders\", \"key_store\": \"k3\"" later_steps "},"                 \
    "   {\"id\": \"k3\", \"kind\": \"key_store\"}],"                                               \
    " \"clients\": [{\"id\": \"app\", \"count\": 3, \"publishes\": \"orders\","                    \
    "   \"workload\": {\"at_ms\": [0, 100, 200]}},"                                                \
    "  {\"id\": \"partners\", \"count\": 2, \"publishes\": \"partner-orders\","                    \
    "   \"workload\": {\"at_ms\": [0, 100, 200, 300]}}],"                                          \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}"

#define EMAILS ", \"steps\": [{\"effect\": \"email\"}]"

/* Each log numbers the groups that read it from 0: the partners' log has two groups, each
 * with its own copy of every record, the app's one. The partners' chargers apply each order
 * once and their mailers email each once; the app's chargers see none of them. A later group
 * of the second log that does more than email is refused, as on the first. */
START_TEST(test_a_second_log_with_groups_of_its_own)
{
    Scenario *scenario = test_load(TWO_LOGS(EMAILS), NULL, 0);
    World *world = world_create(scenario, MODE_AT_MOST_ONCE, 5, (TraceSink){0}, (WorldLimits){0});
    ck_assert_uint_eq(world->brokers[0].log_group_count, 1);
    ck_assert_uint_eq(world->brokers[1].log_group_count, 2);
    ck_assert_uint_eq(world->consumer_count, 3);
    for (uint32_t i = 0; i < 3; i++)
        ck_assert_uint_eq(world->consumers[i].log_group, i == 2 ? 1 : 0);
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_NONE);
    const Metrics *metrics = world_metrics(world);
    ck_assert_uint_eq(metrics->queues[0].messages, 3 * 3);
    ck_assert_uint_eq(metrics->queues[1].messages, 2 * 2 * 4); /* a copy per group */
    ck_assert_double_eq(test_service_value(metrics, "chargers", "effects"), 3 * 3);
    ck_assert_double_eq(test_service_value(metrics, "partner-chargers", "effects"), 2 * 4);
    ck_assert_uint_eq(metrics->receipts_sent, 2 * 4);
    ck_assert_uint_eq(metrics->outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(metrics->outcomes[OUTCOME_OK], 3 * 3 + 2 * 4);
    world_destroy(world);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    Metrics first = test_run_mode(scenario, MODE_AT_LEAST_ONCE, 5);
    Metrics second = test_run_mode(again, MODE_AT_LEAST_ONCE, 5);
    ck_assert_uint_eq(first.offset_commits, second.offset_commits);
    ck_assert_uint_eq(first.receipts_sent, second.receipts_sent);
    free(shown);
    free(again);
    free(scenario);
    test_assert_refused(TWO_LOGS(""), NULL, 0, "$.services[6].steps",
                        "for a later consumer group on a log");
}
END_TEST

static Suite *brokers_suite(void)
{
    Suite *suite = suite_create("brokers");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_the_broker_is_the_actor_at_its_node);
    tcase_add_test(core, test_the_brokers_steps_and_timers_happen_at_its_node);
    tcase_add_test(core, test_two_brokers_each_with_its_rules_and_groups);
    tcase_add_test(core, test_each_publisher_reaches_its_own_broker);
    tcase_add_test(core, test_show_writes_the_second_broker_and_reads_it_back);
    tcase_add_test(core, test_what_a_second_broker_refuses);
    tcase_add_test(core, test_the_first_group_consumes_the_first_broker);
    tcase_add_test(core, test_an_exchange_on_the_second_broker);
    tcase_add_test(core, test_a_link_names_the_second_broker);
    tcase_add_test(core, test_a_heartbeat_is_read_by_its_own_brokers_family);
    tcase_add_test(core, test_a_second_log_with_groups_of_its_own);
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
