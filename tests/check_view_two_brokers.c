/* The view with two brokers of different families (issue 21, step B): its narration, its
 * mechanism words and its diagram tell each broker's messages by that broker's own rules,
 * found from the node they are at (orders_log_receipts_queue: orders on a log, receipts on a
 * channel queue). SDL-free: panes run without a window. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagram.h"
#include "scenario.h"
#include "view_narration.h"
#include "view_pane.h"
#include "world.h"

#define TWO_BROKERS IDEMSIM_SOURCE_DIR "/scenarios/architectures/orders_log_receipts_queue.json"

static ViewPane *pane_of(Mode mode, Scenario *scenario)
{
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert_ptr_nonnull(errors);
    ck_assert_msg(scenario_load_file(TWO_BROKERS, NULL, 0, scenario, errors), "rejected: %s",
                  errors->count ? errors->items[0].message : "");
    free(errors);
    ViewPane *pane = view_pane_create(scenario, mode, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    return pane;
}

/* The world node named name (a service's, or one instance's "<id>#<n>"). */
static uint32_t node_named(const ViewPane *pane, const char *name)
{
    for (uint32_t node = 0; node < world_node_count(pane->world); node++) {
        if (strcmp(world_node(pane->world, node)->name, name) == 0)
            return node;
    }
    ck_abort_msg("no node %s", name);
    return TRACE_NO_NODE;
}

/* The narration of event at node (of kind), for the app's operation 5. */
static const char *narrate(const ViewPane *pane, TraceEvent event, const char *node, NodeKind kind,
                           char *text, size_t size)
{
    ViewNarration line = {.present = true,
                          .event = event,
                          .node = node_named(pane, node),
                          .kind = kind,
                          .peer = TRACE_NO_NODE,
                          .operation = 5,
                          .attempt = 1,
                          .group = 1,
                          .value = 2};
    view_narration_line(pane, &line, text, size);
    return text;
}

/* A redelivery says why by its own broker's family: the log replays from the last commit,
 * the channel's delivery comes back as its channel closed (both said "replayed"). */
START_TEST(test_a_redelivery_says_why_by_its_own_broker)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane = pane_of(MODE_AT_LEAST_ONCE, scenario);
    char text[256];
    ck_assert_str_eq(narrate(pane, TRACE_REDELIVER, "orders", NODE_BROKER, text, sizeof text),
                     "the broker orders hands payment 5 out again (delivery #2): replayed from "
                     "the last commit");
    ck_assert_str_eq(
        narrate(pane, TRACE_REDELIVER, "notifications", NODE_BROKER, text, sizeof text),
        "the broker notifications hands payment 5 out again (delivery #2): its channel closed");
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* A lost lease is told by what the consumer's own broker does with its message: the log's
 * chargers try the record again in place, the channel's mailers hand the delivery back. */
START_TEST(test_fencing_is_told_by_the_consumers_own_broker)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane = pane_of(MODE_IDEMPOTENT, scenario);
    char text[256];
    narrate(pane, TRACE_FENCED, "chargers", NODE_CONSUMERS, text, sizeof text);
    ck_assert_msg(strstr(text, "a record of payment 5") == text &&
                      strstr(text, "(tried again in place)") != NULL,
                  "narrated '%s'", text);
    narrate(pane, TRACE_FENCED, "mailers", NODE_CONSUMERS, text, sizeof text);
    ck_assert_msg(strstr(text, "a delivery of payment 5") == text &&
                      strstr(text, "(handed back, a nack)") != NULL,
                  "narrated '%s'", text);
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* The log has one consumer group (the mailers read the other broker): its rebalance and its
 * offset commits name no group, as a log of one group's do. */
START_TEST(test_the_logs_one_group_is_not_named)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane = pane_of(MODE_AT_LEAST_ONCE, scenario);
    ViewNarration line = {.present = true, .event = TRACE_REBALANCE, .value = 3};
    char text[256];
    view_narration_line(pane, &line, text, sizeof text);
    ck_assert_str_eq(text, "the consumer group rebalances: back to the last commit, 3 records "
                           "to process again");
    TraceSink sink = view_trace_sink(pane);
    for (int q = 0; q < 2; q++) {
        TraceRecord record = {.t_us = 1000000 + (SimTimeUs)q * 1000,
                              .event = TRACE_OFFSET_COMMIT,
                              .actor = node_named(pane, "orders"),
                              .actor_kind = NODE_BROKER,
                              .actor_name = "orders",
                              .peer = TRACE_NO_NODE,
                              .no_operation = true,
                              .value = 10 + q,
                              .queue = "p3"};
        sink.write(sink.context, &record);
    }
    const ViewMechanism *last =
        &pane->mechanisms[(pane->mechanism_count - 1) % VIEW_MECHANISMS_MAX];
    view_mechanism_commit_words(pane, last, text, sizeof text);
    ck_assert_str_eq(text, "2 offset commits, p3 to 11");
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

/* The view's diagram draws the channel's acks, with an ack timer for each delivery that the
 * ack ends, and no ack nor timer at the log (its consumers commit offsets): every ack was
 * taken for a log's and left out, and no timer was drawn. */
START_TEST(test_the_channels_acks_and_timers_are_drawn)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    ViewPane *pane = pane_of(MODE_AT_LEAST_ONCE, scenario);
    unsigned acks[2] = {0, 0}, timers[2] = {0, 0}, ended = 0;
    uint64_t seen = 1;
    while (view_pane_step(pane, 2000)) {
        const Diagram *diagram = pane->diagram;
        uint64_t first = diagram_first_serial(diagram);
        for (uint64_t s = seen > first ? seen : first; s < diagram_next_serial(diagram); s++) {
            const DiagramItem *item = diagram_item(diagram, s);
            const DiagramLane *to = diagram_lane(diagram, item->to);
            const DiagramLane *from = diagram_lane(diagram, item->from);
            if (item->kind == DIAGRAM_MESSAGE && item->message == MESSAGE_ACK && to != NULL &&
                to->kind == NODE_BROKER)
                acks[strcmp(to->node_name, "notifications") == 0]++;
            if (item->kind == DIAGRAM_SPAN && item->detail == DIAGRAM_SPAN_ACK_TIMER &&
                from != NULL)
                timers[strcmp(from->node_name, "notifications") == 0]++;
        }
        seen = diagram_next_serial(diagram);
    }
    /* the timers still held at the end: ended by their acks */
    for (uint64_t s = diagram_first_serial(pane->diagram); s < diagram_next_serial(pane->diagram);
         s++) {
        const DiagramItem *item = diagram_item(pane->diagram, s);
        ended += item->kind == DIAGRAM_SPAN && item->detail == DIAGRAM_SPAN_ACK_TIMER &&
                 item->end_event != DIAGRAM_NO_EVENT;
    }
    ck_assert_uint_eq(acks[0], 0);
    ck_assert_uint_eq(timers[0], 0);
    ck_assert_uint_gt(acks[1], 10);
    ck_assert_uint_gt(timers[1], 10);
    ck_assert_uint_gt(ended, 0);
    view_pane_destroy(pane);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("view_two_brokers");
    TCase *words = tcase_create("words");
    tcase_set_timeout(words, 120);
    tcase_add_test(words, test_a_redelivery_says_why_by_its_own_broker);
    tcase_add_test(words, test_fencing_is_told_by_the_consumers_own_broker);
    tcase_add_test(words, test_the_logs_one_group_is_not_named);
    tcase_add_test(words, test_the_channels_acks_and_timers_are_drawn);
    suite_add_tcase(suite, words);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
