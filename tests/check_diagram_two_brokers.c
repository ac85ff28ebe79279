/* The diagram model with two brokers of different families (issue 21, step B): each broker's
 * messages are drawn by its own rules, found from the node they pass through (a broker's
 * lane, a consumer group's ConsumerSpec.broker), never by the first broker's. The lesson is
 * orders_log_receipts_queue: orders on a log (no per-message ack, a record tried again in
 * place), receipts on a channel queue (an ack timer the ack ends, a delivery handed back). */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagram.h"
#include "scenario.h"
#include "test_diagram.h"
#include "test_world.h"

#define TWO_BROKERS "scenarios/architectures/orders_log_receipts_queue.json"
#define LOG_TWO_GROUPS "scenarios/architectures/orders_log_charge_and_confirm.json"

/* The lane of an item's start, by its node name. */
static const char *lane_name(const Diagram *diagram, int lane)
{
    const DiagramLane *entry = diagram_lane(diagram, lane);
    ck_assert_ptr_nonnull(entry);
    return entry->node_name;
}

/* How many deliveries left a broker's lane (by its name) in the diagram. */
static unsigned deliveries_from(const Diagram *diagram, const char *broker)
{
    unsigned count = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        count += item->kind == DIAGRAM_MESSAGE && item->message == MESSAGE_DELIVERY &&
                 strcmp(lane_name(diagram, item->from), broker) == 0;
    }
    return count;
}

/* Which broker a node's messages go through: a broker's own index, a consumer group's (any
 * instance's) the one it consumes, 0 for the rest. */
START_TEST(test_a_nodes_broker_is_found_from_its_name)
{
    Scenario *scenario = test_load_source_file(TWO_BROKERS, NULL, 0);
    ck_assert_uint_eq(diagram_broker_of(scenario, NODE_BROKER, "orders"), 0);
    ck_assert_uint_eq(diagram_broker_of(scenario, NODE_BROKER, "notifications"), 1);
    ck_assert_uint_eq(diagram_broker_of(scenario, NODE_CONSUMERS, "chargers"), 0);
    ck_assert_uint_eq(diagram_broker_of(scenario, NODE_CONSUMERS, "mailers"), 1);
    ck_assert_uint_eq(diagram_broker_of(scenario, NODE_CONSUMERS, "mailers#2"), 1);
    ck_assert_uint_eq(diagram_broker_of(scenario, NODE_SERVER, "checkout"), 0);
    ck_assert_uint_eq(diagram_broker_of(scenario, NODE_CONSUMERS, "mailer"), 0);
    ck_assert_uint_eq(diagram_broker_of(NULL, NODE_BROKER, "notifications"), 0);
    /* the log has one group (the mailers read the second broker): no group to name */
    ck_assert(!diagram_log_groups_several(scenario, 0));
    free(scenario);
    scenario = test_load_source_file(LOG_TWO_GROUPS, NULL, 0);
    ck_assert(diagram_log_groups_several(scenario, 0));
    free(scenario);
}
END_TEST

/* The log has no per-message ack: none of its records gets an ack timer. The channel's
 * deliveries each get the channel's consumer timeout (30 min by default), which their ack,
 * or the closed channel's requeue, ends long before. With the first broker's rules read for
 * both, a run had no timer at all. */
START_TEST(test_each_broker_times_its_own_deliveries)
{
    Scenario *scenario = test_load_source_file(TWO_BROKERS, NULL, 0);
    const BrokerSpec *channel = scenario_broker(scenario, 1);
    ck_assert_int_eq(channel->family, BROKER_CHANNEL);
    DiagramWindows windows = diagram_windows_of(scenario, MODE_AT_LEAST_ONCE);
    ck_assert_double_eq(windows.ack_timeout_ms[0], 0);
    ck_assert_double_eq(windows.ack_timeout_ms[1], channel->consumer_timeout_ms);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 17);
    unsigned timers = 0, ended = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_SPAN || item->detail != DIAGRAM_SPAN_ACK_TIMER)
            continue;
        timers++;
        ck_assert_str_eq(lane_name(diagram, item->from), "notifications");
        ck_assert_str_eq(lane_name(diagram, item->to), "mailers");
        ck_assert_int_eq(item->value, (int64_t)channel->consumer_timeout_ms);
        ended += item->end_event != DIAGRAM_NO_EVENT &&
                 item->end_us - item->start_us < (SimTimeUs)item->value * 1000;
    }
    ck_assert_uint_gt(deliveries_from(diagram, "orders"), 300);
    ck_assert_uint_gt(deliveries_from(diagram, "notifications"), 300);
    ck_assert_uint_eq(timers, deliveries_from(diagram, "notifications"));
    ck_assert_uint_eq(ended, timers); /* a channel's ack ends its delivery's timer */
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* A second broker of the visibility-timeout family keeps each timer to its deadline (the
 * moment it would hand the message out again), of its own ack_timeout_ms. */
START_TEST(test_a_second_visibility_timeout_keeps_its_deadlines)
{
    const char *visibility[] = {"services.notifications.family=visibility-timeout",
                                "services.notifications.ack_timeout_ms=4000"};
    Scenario *scenario = test_load_source_file(TWO_BROKERS, visibility, 2);
    ck_assert_str_eq(scenario_broker_id(scenario, 1), "notifications");
    Diagram *diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 17);
    unsigned timers = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_SPAN || item->detail != DIAGRAM_SPAN_ACK_TIMER)
            continue;
        timers++;
        ck_assert_str_eq(lane_name(diagram, item->from), "notifications");
        ck_assert_int_eq(item->value, 4000);
        ck_assert_uint_eq(item->end_event, DIAGRAM_NO_EVENT);
        ck_assert_uint_eq(item->end_us - item->start_us, 4000 * 1000);
    }
    ck_assert_uint_gt(timers, 300);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* Each broker's marks say what its records name: the channel's one queue needs no name, and
 * the log's one group none either ("queued for chargers" was written on both, the mailers
 * counted as a second group of the log). */
START_TEST(test_a_brokers_marks_name_no_group_of_the_other)
{
    Scenario *scenario = test_load_source_file(TWO_BROKERS, NULL, 0);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 17);
    unsigned queued[2] = {0, 0};
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_MARK || item->event != TRACE_ENQUEUE)
            continue;
        const DiagramLane *lane = diagram_lane(diagram, item->from);
        ck_assert_uint_eq(item->queue, 0);
        DiagramOperationWords words =
            diagram_lane_words(scenario, lane, (DiagramOperationWords){.debit = true});
        ck_assert_ptr_null(words.log_groups_of);
        ck_assert_ptr_null(words.queues_of);
        char label[96];
        diagram_mark_badge(item, lane->kind, words, label, sizeof label);
        ck_assert_str_eq(label, "queued");
        queued[strcmp(lane->node_name, "notifications") == 0]++;
    }
    ck_assert_uint_gt(queued[0], 300);
    ck_assert_uint_gt(queued[1], 300);
    diagram_destroy(diagram);
    free(scenario);

    /* a log of two groups still names whose copy a record is */
    scenario = test_load_source_file(LOG_TWO_GROUPS, NULL, 0);
    DiagramLane log = {.kind = NODE_BROKER};
    snprintf(log.node_name, sizeof log.node_name, "%s", scenario_broker_id(scenario, 0));
    ck_assert_ptr_eq(diagram_lane_words(scenario, &log, (DiagramOperationWords){0}).log_groups_of,
                     scenario);
    free(scenario);
}
END_TEST

/* A delivery from broker (by node) to consumer (by node) of operation 7 at t_ms, its arrival,
 * then the consumer's key store saying the key is in progress. */
static void deliver_then_in_progress(Diagram *diagram, uint32_t broker, const char *broker_name,
                                     uint32_t consumer, const char *consumer_name, SimTimeUs t_us)
{
    TraceRecord record = {.t_us = t_us,
                          .mode = MODE_IDEMPOTENT,
                          .event = TRACE_TRANSMIT,
                          .actor = broker,
                          .actor_client = TRACE_NO_CLIENT,
                          .peer = consumer,
                          .peer_client = TRACE_NO_CLIENT,
                          .actor_kind = NODE_BROKER,
                          .peer_kind = NODE_CONSUMERS,
                          .actor_name = broker_name,
                          .peer_name = consumer_name,
                          .operation = 7,
                          .attempt = 1,
                          .copy = 64,
                          .message = MESSAGE_DELIVERY};
    diagram_add(diagram, &record, 0);
    TraceRecord arrival = record;
    arrival.t_us = t_us + 1000;
    arrival.event = TRACE_DELIVER;
    arrival.actor = consumer;
    arrival.actor_kind = NODE_CONSUMERS;
    arrival.actor_name = consumer_name;
    arrival.peer = broker;
    arrival.peer_kind = NODE_BROKER;
    arrival.peer_name = broker_name;
    diagram_add(diagram, &arrival, 0);
    TraceRecord decision = arrival;
    decision.t_us = t_us + 2000;
    decision.event = TRACE_IN_PROGRESS;
    decision.peer = TRACE_NO_NODE;
    decision.peer_name = NULL;
    decision.message = MESSAGE_REQUEST;
    diagram_add(diagram, &decision, 0);
}

/* The job a consumer lane holds for operation 7, or NULL. */
/* A fanout exchange on the second broker, a channel queue: the shop's payments are copied
 * to the bookkeepers' queue and the mailers' queue, which delivers a message once. The
 * mailers crash now and then, closing their channel: the copies it held are dead-lettered,
 * with no answer nor next delivery to end their timers, found by the queue the copy is in
 * (the takers of the second broker's queues). Every timer ends, at an ack or at the dead
 * letter; one nothing ended would run on to its 30-minute deadline. The app's orders go to
 * the log. */
static const char *const second_broker_fanout =
    "{\"name\": \"second_broker_fanout\", \"seed\": 4, \"duration_ms\": 20000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\"},"
    "   {\"id\": \"payments\", \"kind\": \"broker\", \"family\": \"channel\", \"prefetch\": 2,"
    "    \"queues\": [{\"name\": \"ledger\"},"
    "     {\"name\": \"confirmations\", \"max_deliveries\": 1}],"
    "    \"exchanges\": [{\"name\": \"all\", \"queues\": [\"ledger\", \"confirmations\"]}]},"
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"k1\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"
    "   {\"id\": \"bookkeepers\", \"kind\": \"consumers\", \"consumes\": \"payments\","
    "    \"queues\": [\"ledger\"], \"key_store\": \"k2\"}, {\"id\": \"k2\", \"kind\": "
    "\"key_store\"},"
    "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"payments\","
    "    \"queues\": [\"confirmations\"], \"steps\": [{\"effect\": \"email\"}],"
    "    \"crash\": {\"point\": \"after-completion\", \"prob\": 0.05, \"restart_ms\": 500},"
    "    \"key_store\": \"k3\"}, {\"id\": \"k3\", \"kind\": \"key_store\"}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 5, \"publishes\": \"orders\","
    "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}}},"
    "  {\"id\": \"shop\", \"count\": 10, \"publishes\": \"payments\", \"queue\": \"all\","
    "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}";

START_TEST(test_a_second_brokers_fanout_copies_end_their_own_timers)
{
    Scenario *scenario = test_load(second_broker_fanout, NULL, 0);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 17);
    unsigned timers[2] = {0, 0}, unended = 0, dead_letters = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind == DIAGRAM_MARK && item->event == TRACE_DEAD_LETTER)
            dead_letters++;
        if (item->kind != DIAGRAM_SPAN || item->detail != DIAGRAM_SPAN_ACK_TIMER)
            continue;
        ck_assert_str_eq(lane_name(diagram, item->from), "payments");
        timers[strcmp(lane_name(diagram, item->to), "mailers") == 0]++;
        unended += item->end_event == DIAGRAM_NO_EVENT;
    }
    ck_assert_uint_eq(timers[0], 10 * 10); /* the bookkeepers' copies */
    ck_assert_uint_eq(timers[1], 10 * 10); /* the mailers', each delivered once */
    ck_assert_uint_gt(dead_letters, 0);
    ck_assert_uint_eq(unended, 0);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

static const DiagramItem *job_on(const Diagram *diagram, const char *consumer)
{
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind == DIAGRAM_ACTIVATION && item->operation == 7 &&
            strcmp(lane_name(diagram, item->from), consumer) == 0)
            return item;
    }
    return NULL;
}

/* A key in progress: a log's consumer keeps its record and tries it again in place, so its
 * job goes on; the channel's consumer hands its delivery back, so its job ends there (with
 * the log's rules read for both, the mailers' job ran on). */
START_TEST(test_a_consumers_job_ends_by_its_own_brokers_rules)
{
    Scenario *scenario = test_load_source_file(TWO_BROKERS, NULL, 0);
    Diagram *diagram = diagram_create(MODE_IDEMPOTENT, 64, 0);
    ck_assert_ptr_nonnull(diagram);
    diagram_open_lanes(diagram, true);
    diagram_set_broker_rules(diagram, scenario);
    deliver_then_in_progress(diagram, 3, "orders", 4, "chargers", 1000000);
    deliver_then_in_progress(diagram, 5, "notifications", 6, "mailers#2", 2000000);
    const DiagramItem *charging = job_on(diagram, "chargers");
    const DiagramItem *mailing = job_on(diagram, "mailers#2");
    ck_assert_ptr_nonnull(charging);
    ck_assert_ptr_nonnull(mailing);
    ck_assert(charging->end_us == SIM_TIME_NEVER);
    ck_assert_uint_eq(mailing->end_event, TRACE_IN_PROGRESS);
    ck_assert(mailing->end_us == 2002000);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* A key store is met by the operations that reach its group through the broker that group
 * consumes: queue 0 of the log is not queue 0 of the channel. The app's orders reach the
 * mailers only through the chargers' receipts of their debits; an increment has none. */
START_TEST(test_a_group_meets_the_stores_its_brokers_reach)
{
    Scenario *scenario = test_load_source_file(TWO_BROKERS, NULL, 0);
    ck_assert(diagram_group_meets_store(scenario, 0, "checkout-keys"));
    ck_assert(diagram_group_meets_store(scenario, 0, "mailer-keys"));
    ck_assert(!diagram_group_meets_store(scenario, 0, "charger-inbox"));
    ck_assert(diagram_group_meets_store(scenario, 1, "charger-inbox"));
    ck_assert(diagram_group_meets_store(scenario, 1, "mailer-keys")); /* the receipts */
    ck_assert(!diagram_group_meets_store(scenario, 1, "checkout-keys"));
    free(scenario);
    const char *increments[] = {"clients[1].operation={\"kind\": \"increment\"}"};
    scenario = test_load_source_file(TWO_BROKERS, increments, 1);
    ck_assert(diagram_group_meets_store(scenario, 1, "charger-inbox"));
    ck_assert(!diagram_group_meets_store(scenario, 1, "mailer-keys"));
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    /* the mailers ran the web's receipts alone: about 400 runs beside the 800 operations'
     * (with the app's debits' receipts too, 1649) */
    ck_assert_uint_gt(metrics.executions, metrics.operations);
    ck_assert_uint_lt(metrics.executions, metrics.operations * 7 / 4);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("diagram_two_brokers");
    TCase *model = tcase_create("model");
    tcase_set_timeout(model, 120);
    tcase_add_test(model, test_a_nodes_broker_is_found_from_its_name);
    tcase_add_test(model, test_each_broker_times_its_own_deliveries);
    tcase_add_test(model, test_a_second_visibility_timeout_keeps_its_deadlines);
    tcase_add_test(model, test_a_brokers_marks_name_no_group_of_the_other);
    tcase_add_test(model, test_a_consumers_job_ends_by_its_own_brokers_rules);
    tcase_add_test(model, test_a_group_meets_the_stores_its_brokers_reach);
    tcase_add_test(model, test_a_second_brokers_fanout_copies_end_their_own_timers);
    suite_add_tcase(suite, model);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
