/* An order API (issue 21): a server whose only step publishes the order itself to a broker,
 * for the consumers to apply. The API applies no effect; the consumers do, once per message
 * they take. Without keys, a retry of a request the API published already publishes the order
 * again; with the client's key, every copy of one order carries the same message id, derived
 * from it, and the consumers' store (by message id) runs it once. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define ORDERS 40
#define CLIENT_ATTEMPTS 2

/* The API answers 500 after publishing with chance `fail`, by `via`; the client tries twice,
 * 100 ms apart, and the consumers keep keys by message id. */
#define ORDER_API(via, fail)                                                                       \
    "{\"seed\": 4, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"order-api\", \"kind\": \"server\", \"key_store\": \"api-keys\","                \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                     \
    "    \"fail_after_effect\": " fail ","                                                         \
    "    \"steps\": [{\"publish\": \"orders\", \"via\": \"" via "\"}]},"                           \
    "   {\"id\": \"api-keys\", \"kind\": \"key_store\"},"                                          \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"visibility-timeout\","            \
    "    \"ack_timeout_ms\": 30000},"                                                              \
    "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","                  \
    "    \"key_store\": \"charger-keys\", \"workers\": 0,"                                         \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1}},"                                    \
    "   {\"id\": \"charger-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"}],"            \
    " \"clients\": [{\"id\": \"web\", \"count\": 4, \"calls\": \"order-api\","                     \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                      \
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 2,"                                    \
    "     \"backoff\": {\"base_ms\": 100, \"factor\": 1, \"max_ms\": 100, \"jitter\": "            \
    "\"none\"}}}],"                                                                                \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

/* Each order reaches the broker once and is applied by the consumers, not by the API. */
START_TEST(test_the_consumers_apply_what_the_api_publishes)
{
    const char *vias[] = {"direct", "outbox"};
    for (size_t i = 0; i < 2; i++) {
        char json[8192];
        snprintf(json, sizeof json, ORDER_API("%s", "0"), vias[i]);
        Metrics least = test_run_text(json, MODE_AT_LEAST_ONCE);
        ck_assert_uint_eq(least.operations, ORDERS);
        ck_assert_uint_eq(least.messages, ORDERS);
        ck_assert_uint_eq(least.effects, ORDERS);
        ck_assert_uint_eq(least.outcomes[OUTCOME_OK], ORDERS);
        ck_assert_double_eq(test_service_value(&least, "order-api", "effects"), 0);
        ck_assert_double_eq(test_service_value(&least, "charger", "effects"), ORDERS);
    }
}
END_TEST

/* Published directly, an order the API then answers 500 for is out already: the client's
 * retry publishes it again. Without keys that is a second order, charged again; with the
 * client's key both copies carry one message id, and the consumers run it once. */
START_TEST(test_a_retry_publishes_again_under_one_message_id)
{
    const char *json = ORDER_API("direct", "1");
    Metrics least = test_run_text(json, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(least.messages, ORDERS * CLIENT_ATTEMPTS);
    ck_assert_uint_eq(least.effects, ORDERS * CLIENT_ATTEMPTS);
    ck_assert_uint_eq(least.outcomes[OUTCOME_DOUBLE], ORDERS);
    Metrics keyed = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.messages, ORDERS * CLIENT_ATTEMPTS);
    ck_assert_uint_eq(keyed.effects, ORDERS);
    ck_assert_double_eq(test_service_value(&keyed, "charger", "replayed"), ORDERS);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* Through the outbox the order is written with the answer's commit: an answer of 500 writes
 * none, so nothing is published, and nothing charged: every order is lost (the client never
 * learns whether it went through). */
START_TEST(test_the_outbox_publishes_only_what_the_api_committed)
{
    Metrics least = test_run_text(ORDER_API("outbox", "1"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(least.messages, 0);
    ck_assert_uint_eq(least.effects, 0);
    ck_assert_uint_eq(least.outcomes[OUTCOME_LOST], ORDERS);
    ck_assert_uint_eq(least.client_unknown, ORDERS); /* a 500 does not say whether it ran */
}
END_TEST

/* A direct publish is traced by the API as order_published, once per message it sends;
 * through the outbox none is (its relays are traced as outbox_relay). */
static void count_published(void *context, const TraceRecord *record)
{
    if (record->event == TRACE_ORDER_PUBLISHED) {
        ck_assert_int_eq(record->actor_kind, NODE_SERVER);
        (*(uint64_t *)context)++;
    }
}

START_TEST(test_a_direct_publish_is_traced)
{
    const char *vias[] = {"direct", "outbox"};
    for (size_t i = 0; i < 2; i++) {
        char json[8192];
        snprintf(json, sizeof json, ORDER_API("%s", "1"), vias[i]);
        Scenario *scenario = test_load(json, NULL, 0);
        uint64_t published = 0;
        World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                                    (TraceSink){.write = count_published, .context = &published},
                                    (WorldLimits){0});
        world_run(world);
        ck_assert_uint_eq(published, i == 0 ? world_metrics(world)->messages : 0);
        ck_assert_uint_eq(published, i == 0 ? ORDERS * CLIENT_ATTEMPTS : 0);
        world_destroy(world);
        free(scenario);
    }
}
END_TEST

/* The API's key store crashes on its own at 1 ms and stays down for the run, and the API fails
 * open (C38): every request runs with no key check. Every answer is lost, so each order is
 * sent twice and both runs publish it. The API's store is skipped, not the key in the
 * request: both copies carry the message id the key derives, and the consumers' store runs
 * the order once. Through the outbox, whose entries live in the crashing store, the same is
 * refused at load. */
START_TEST(test_failing_open_publishes_one_message_id)
{
    const char *const down[] = {
        ("services.api-keys.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 1},"
         " \"restart_ms\": 1000000, \"max_crashes\": 1}"),
        "services.api-keys.when_down=\"proceed\"",
        "network.links={\"order-api->web\": {\"loss\": 1}}"};
    char json[8192];
    snprintf(json, sizeof json, ORDER_API("%s", "0"), "direct");
    Metrics keyed = test_run_json(json, down, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.unchecked_runs, ORDERS * CLIENT_ATTEMPTS);
    ck_assert_uint_eq(keyed.messages, ORDERS * CLIENT_ATTEMPTS);
    ck_assert_uint_eq(keyed.effects, ORDERS);
    ck_assert_double_eq(test_service_value(&keyed, "charger", "replayed"), ORDERS);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
    snprintf(json, sizeof json, ORDER_API("%s", "0"), "outbox");
    test_assert_refused(json, down, 3, "$.services[1].crash", "with an outbox or reconcile_ms");
}
END_TEST

/* ------------------------------------------------------------------ the loader */

/* A publish first is the order API's only step; it loads into publishes_orders, show writes
 * it alone, and that reads back. */
START_TEST(test_a_publish_first_is_the_only_step)
{
    Scenario *scenario = test_load(ORDER_API("outbox", "0"), NULL, 0);
    ck_assert(scenario->server.publishes_orders);
    ck_assert(!scenario->server.publish_receipts);
    ck_assert_int_eq(scenario->server.receipts_via, RECEIPTS_OUTBOX);
    char *shown = scenario_show(scenario);
    ck_assert_ptr_nonnull(strstr(shown, "\"steps\": [{\"publish\": \"orders\", \"via\": "
                                        "\"outbox\", \"queue\": \"main\"}]"));
    Scenario *again = test_load(shown, NULL, 0);
    ck_assert(again->server.publishes_orders);
    free(again);
    free(shown);
    free(scenario);
    char json[8192];
    snprintf(json, sizeof json, "%s", ORDER_API("direct", "0"));
    char *at = strstr(json, "\"via\": \"direct\"}");
    ck_assert_ptr_nonnull(at);
    const char *tail = strchr(at, '}') + 1; /* after the publish step */
    char changed[8192];
    snprintf(changed, sizeof changed, "%.*s, {\"effect\": \"local\"}%s", (int)(tail - json), json,
             tail);
    test_assert_refused(changed, NULL, 0, "$.services[0].steps[1]",
                        "expected a publish step alone");
}
END_TEST

/* Consumers that call the order API would have each delivery publish another order, each
 * delivered and called again, without end (a run stopped only by its limits): refused at the
 * consumers' call, wherever the entries stand. */
START_TEST(test_consumers_that_call_the_order_api_are_refused)
{
    char json[8192];
    snprintf(json, sizeof json, "%s", ORDER_API("direct", "0"));
    const char *consumers = "\"consumes\": \"orders\",";
    char *at = strstr(json, consumers);
    ck_assert_ptr_nonnull(at);
    const char *tail = at + strlen(consumers);
    char changed[8192];
    snprintf(changed, sizeof changed,
             "%.*s \"steps\": [{\"call\": \"order-api\", \"key\": \"forward\", "
             "\"timeout_ms\": 1000}],%s",
             (int)(tail - json), json, tail);
    test_assert_refused(changed, NULL, 0, "$.services[3].steps[0].call",
                        "expected a gateway or a server that is no order API ('order-api' "
                        "publishes each request");
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("order_api");
    TCase *tcase = tcase_create("order_api");
    tcase_add_test(tcase, test_the_consumers_apply_what_the_api_publishes);
    tcase_add_test(tcase, test_a_retry_publishes_again_under_one_message_id);
    tcase_add_test(tcase, test_the_outbox_publishes_only_what_the_api_committed);
    tcase_add_test(tcase, test_a_direct_publish_is_traced);
    tcase_add_test(tcase, test_failing_open_publishes_one_message_id);
    tcase_add_test(tcase, test_a_publish_first_is_the_only_step);
    tcase_add_test(tcase, test_consumers_that_call_the_order_api_are_refused);
    suite_add_tcase(suite, tcase);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
