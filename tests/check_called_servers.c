/* A server that calls another server (issue 21: several services of one kind): checkout's
 * call step calls payments, a server of its own with its own key store, whose answer counts
 * as the call's. Payments takes 1 s to answer and checkout waits 0.3 s per try, so every try
 * of every call times out: payments runs the product of the tiers' tries (the app's
 * attempts x checkout's tries), unless the key checkout forwards lets payments' store tell
 * a retry from a new payment. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "report.h"
#include "scenario.h"
#include "test_diagram.h"
#include "test_report.h"
#include "test_world.h"
#include "world.h"

#define APP_ATTEMPTS 2
#define CHECKOUT_TRIES 3
#define PAYMENTS 40

/* checkout -> payments: checkout waits 0.3 s per try, three tries; payments runs the effect
 * with payments_fields (its workers and service time, its failures). */
#define CHAIN(call_extra, payments_fields, store_extra, operation)                                 \
    "{\"seed\": 5, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","            \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                     \
    "    \"steps\": [{\"call\": \"payments\", \"timeout_ms\": 300,"                                \
    "                 \"retry\": {\"max_attempts\": 3}" call_extra "}]},"                          \
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"                                     \
    "   {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"payments-keys\","            \
    "    " payments_fields ", \"steps\": [{\"effect\": \"local\"}]},"                              \
    "   {\"id\": \"payments-keys\", \"kind\": \"key_store\" " store_extra "}],"                    \
    " \"clients\": [{\"id\": \"app\", \"count\": 4, \"calls\": \"checkout\","                      \
    "   \"operation\": " operation ","                                                             \
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                      \
    "   \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 2,"                                   \
    "     \"backoff\": {\"base_ms\": 10, \"factor\": 1, \"max_ms\": 10, \"jitter\": \"none\"}},"   \
    "   \"key\": \"per-click\"}],"                                                                 \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"
#define DEBIT "{\"kind\": \"debit\", \"amount\": 100}"
/* Payments takes 1 s to answer, longer than checkout waits. */
#define TWO_SERVERS(call_extra, store_extra)                                                       \
    CHAIN(call_extra, "\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1000}",    \
          store_extra, DEBIT)

/* Without keys every try runs: at-most-once sends each payment once and checkout still tries
 * three times (a hop's own retry runs in every mode); at-least-once multiplies that by the
 * app's attempts. */
START_TEST(test_the_called_server_runs_the_product_of_the_tries)
{
    const char *json = TWO_SERVERS("", "");
    Metrics once = test_run_text(json, MODE_AT_MOST_ONCE);
    Metrics least = test_run_text(json, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(once.operations, PAYMENTS);
    ck_assert_uint_eq(once.effects, PAYMENTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(least.effects, PAYMENTS * APP_ATTEMPTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(least.call_retries, PAYMENTS * APP_ATTEMPTS * (CHECKOUT_TRIES - 1));
    ck_assert_uint_eq(least.outcomes[OUTCOME_DOUBLE], PAYMENTS);
    /* the services' own counters: payments ran and charged, checkout retried and ran no effect */
    ck_assert_double_eq(test_service_value(&least, "payments", "runs"), least.effects);
    ck_assert_double_eq(test_service_value(&least, "payments", "effects"), least.effects);
    ck_assert_double_eq(test_service_value(&least, "checkout", "effects"), 0);
    ck_assert_double_eq(test_service_value(&least, "checkout", "retries"), least.call_retries);
}
END_TEST

/* The key checkout forwards is payments' key: a retry finds the payment in progress (409),
 * which checkout takes as a failed try, and later finds it done. Each payment is charged
 * once, though checkout gives its client 502s meanwhile. Without the key, the same retries
 * charge again. */
START_TEST(test_a_forwarded_key_lets_the_called_server_charge_once)
{
    Metrics forward = test_run_text(TWO_SERVERS("", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(forward.effects, PAYMENTS);
    ck_assert_uint_eq(forward.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(test_service_value(&forward, "payments", "refused"), 0); /* the 409s */

    Metrics derived = test_run_text(TWO_SERVERS(", \"key\": \"derive\"", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(derived.effects, PAYMENTS);

    Metrics none = test_run_text(TWO_SERVERS(", \"key\": \"none\"", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(none.outcomes[OUTCOME_DOUBLE], PAYMENTS);
    ck_assert_double_eq(test_service_value(&none, "payments", "runs"), none.effects);
}
END_TEST

/* A definite refusal passes up the chain: payments requires a key, checkout sends none, and
 * payments' 400 is checkout's answer, at once and without a retry; nothing is charged. */
START_TEST(test_a_definite_refusal_of_the_called_server_is_the_callers_answer)
{
    Metrics refused =
        test_run_text(TWO_SERVERS(", \"key\": \"none\"", ", \"required\": true"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(refused.effects, 0);
    ck_assert_uint_eq(refused.call_retries, 0);
    /* payments' 400 to checkout and checkout's to the app: two per attempt */
    ck_assert_uint_eq(refused.status_400, 2 * refused.attempts);
    ck_assert_uint_eq(refused.outcomes[OUTCOME_LOST], PAYMENTS);
}
END_TEST

/* Each try of checkout's call after the first is traced as a call_retry by checkout, with
 * the try's number; no charge_retry, which is a call to a gateway's. */
typedef struct {
    uint64_t call_retries, charge_retries;
} RetryTrace;

static void note_retries(void *context, const TraceRecord *record)
{
    RetryTrace *trace = context;
    if (record->event == TRACE_CALL_RETRY) {
        ck_assert_int_eq(record->actor_kind, NODE_SERVER);
        ck_assert(record->value >= 2 && record->value <= CHECKOUT_TRIES);
        trace->call_retries++;
    } else if (record->event == TRACE_CHARGE_RETRY) {
        trace->charge_retries++;
    }
}

START_TEST(test_a_retried_call_to_a_server_is_traced_as_a_call_retry)
{
    Scenario *scenario = test_load(TWO_SERVERS("", ""), NULL, 0);
    RetryTrace trace = {0};
    World *world =
        world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                     (TraceSink){.write = note_retries, .context = &trace}, (WorldLimits){0});
    world_run(world);
    ck_assert_uint_eq(trace.call_retries, world_metrics(world)->call_retries);
    ck_assert_uint_eq(trace.call_retries, PAYMENTS * APP_ATTEMPTS * (CHECKOUT_TRIES - 1));
    ck_assert_uint_eq(trace.charge_retries, 0);
    world_destroy(world);
    free(scenario);
}
END_TEST

/* The same chain with a fast payments service (FAST) whose own failures are payments_fields':
 * every answer comes back within checkout's timeout, so what checkout retries is what
 * payments answered. */
#define FAST "\"service_ms\": {\"dist\": \"const\", \"value\": 1}"
#define FAST_CHAIN(operation, payments_fields, store_extra)                                        \
    CHAIN("", payments_fields, store_extra, operation)
#define FAST_PAYMENTS(payments_fields, store_extra) FAST_CHAIN(DEBIT, payments_fields, store_extra)

/* Payments charges, then fails (500): checkout takes the 500 as a failed try and tries
 * again at once, each try charging once more, and answers 502 when its tries are spent;
 * the app retries the 502. The key does not help: a 500 deletes payments' key row (the
 * default for an ambiguous failure), so the next try runs as new. In a transaction the
 * failure rolls the charge back with the key: nothing is charged, every payment is lost. */
START_TEST(test_a_called_servers_failure_after_its_effect_is_retried_by_its_caller)
{
    const char *json = FAST_PAYMENTS(FAST ", \"fail_after_effect\": 1", "");
    Metrics once = test_run_text(json, MODE_AT_MOST_ONCE);
    Metrics keyed = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_uint_eq(once.effects, PAYMENTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(keyed.effects, PAYMENTS * APP_ATTEMPTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], PAYMENTS);

    Metrics rolled_back =
        test_run_text(FAST_PAYMENTS(FAST ", \"fail_after_effect\": 1, \"transaction\": true", ""),
                      MODE_IDEMPOTENT);
    ck_assert_uint_eq(rolled_back.outcomes[OUTCOME_LOST], PAYMENTS);
    ck_assert_uint_eq(rolled_back.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* Payments crashes after its first charge (then never again: max_crashes) and restarts
 * 0.1 s later. A store in its memory (durable false) dies with it: checkout's retry finds
 * no row and charges again. A durable store (the default) keeps the row in processing, and
 * the retries meet 409 instead: nothing is charged twice. Checkout never crashes. */
START_TEST(test_a_called_servers_crash_wipes_only_its_own_store)
{
    Metrics in_memory = test_run_text(
        FAST_PAYMENTS(FAST
                      ", \"crash\": {\"point\": \"after-effect\", \"prob\": 1, \"max_crashes\": 1,"
                      " \"restart_ms\": 100}",
                      ", \"durable\": false"),
        MODE_IDEMPOTENT);
    ck_assert_double_eq(test_service_value(&in_memory, "payments", "crashes"), 1);
    ck_assert_uint_eq(in_memory.outcomes[OUTCOME_DOUBLE], 1);

    Metrics durable = test_run_text(
        FAST_PAYMENTS(FAST
                      ", \"crash\": {\"point\": \"after-effect\", \"prob\": 1, \"max_crashes\": 1,"
                      " \"restart_ms\": 100}",
                      ""),
        MODE_IDEMPOTENT);
    ck_assert_double_eq(test_service_value(&durable, "payments", "crashes"), 1);
    ck_assert_uint_eq(durable.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_double_eq(test_service_value(&durable, "checkout", "crashes"), 0);
}
END_TEST

/* Payments is down from 30 s to 30.1 s (a scripted outage: its port closed), when the second
 * round of payments comes: each of checkout's three tries is reset at once and sent again,
 * then checkout answers 502; the app's retry 10 ms later meets the same, and the app gives
 * up. Those 4 payments are never charged (lost: their clients never told), every other is
 * charged once; checkout never goes down. */
START_TEST(test_a_called_servers_outage_resets_every_try_it_meets)
{
    Metrics run = test_run_text(
        FAST_PAYMENTS(FAST ", \"outage\": {\"from_ms\": 30000, \"to_ms\": 30100}", ""),
        MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.resets, 4 * APP_ATTEMPTS * CHECKOUT_TRIES);
    ck_assert_double_eq(test_service_value(&run, "payments", "refused"), run.resets);
    ck_assert_uint_eq(run.effects, PAYMENTS - 4);
    ck_assert_uint_eq(run.outcomes[OUTCOME_LOST], 4);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(run.call_retries, 4 * APP_ATTEMPTS * (CHECKOUT_TRIES - 1));
    ck_assert_double_eq(test_service_value(&run, "checkout", "refused"), 0);
}
END_TEST

/* Payments has one worker and no queue: a call that finds it busy is shed (503), and
 * checkout takes that as a failed try, sent again unless it was the last. */
START_TEST(test_a_called_servers_shed_answer_is_a_failed_try)
{
    Metrics shed = test_run_text(
        FAST_PAYMENTS("\"workers\": 1, \"queue\": 0, \"service_ms\": {\"dist\": \"const\", "
                      "\"value\": 100}",
                      ""),
        MODE_IDEMPOTENT);
    ck_assert_uint_gt(shed.shed, 0);
    ck_assert_double_eq(test_service_value(&shed, "payments", "refused"), shed.shed);
    ck_assert_uint_gt(shed.call_retries, 0);
    ck_assert_double_eq(test_service_value(&shed, "checkout", "retries"), shed.call_retries);
    ck_assert_uint_eq(shed.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* Any operation goes to the called server, not only a debit (a gateway takes charges only):
 * an insert without a unique key runs at payments, which answers 201, passed on to the app. */
START_TEST(test_a_called_server_takes_every_operation)
{
    Metrics inserted =
        test_run_text(FAST_CHAIN("{\"kind\": \"insert\"}", FAST, ""), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(inserted.effects, PAYMENTS);
    ck_assert_double_eq(test_service_value(&inserted, "payments", "effects"), PAYMENTS);
    ck_assert_double_eq(test_service_value(&inserted, "checkout", "effects"), 0);
    ck_assert_uint_eq(inserted.outcomes[OUTCOME_OK], PAYMENTS);
}
END_TEST

/* The diagrams draw each server's key windows with its own store's TTL: payments keeps keys
 * 5 s, checkout the default day. */
START_TEST(test_a_called_servers_key_windows_are_its_stores)
{
    /* _i: payments with one instance, then with two (lanes "payments#1", "payments#2") */
    const char *overrides[] = {"services.payments-keys.ttl_ms=5000",
                               _i == 0 ? "services.payments.instances=1"
                                       : "services.payments.instances=2"};
    Scenario *scenario = test_load(FAST_PAYMENTS(FAST, ""), overrides, 2);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_IDEMPOTENT, 4096);
    unsigned stored_at[2] = {0, 0}; /* checkout's, payments' */
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item == NULL || item->kind != DIAGRAM_SPAN || item->detail != DIAGRAM_SPAN_KEY_STORED)
            continue;
        bool payments = strncmp(diagram_lane(diagram, item->from)->node_name, "payments", 8) == 0;
        ck_assert_int_eq(item->value, payments ? 5000 : 86400000);
        stored_at[payments]++;
    }
    ck_assert_uint_gt(stored_at[0], 0);
    ck_assert_uint_gt(stored_at[1], 0);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* A failover of the called server's store loses keys: the table shows the row that counts
 * them, as it does for the first server's store. */
START_TEST(test_the_table_shows_a_called_stores_failovers)
{
    const char *overrides[] = {"services.payments-keys.replication_lag_ms=50",
                               "services.payments-keys.failover_every_ms=10000"};
    Scenario *scenario = test_load(FAST_PAYMENTS(FAST, ""), overrides, 2);
    Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    char *text = NULL;
    test_table_of(scenario, &metrics, MODE_IDEMPOTENT, &text);
    ck_assert_ptr_nonnull(strstr(text, "keys lost in failovers"));
    free(text);
    free(scenario);
}
END_TEST

/* Payments runs two instances behind its balancer (round-robin, sending on past a down one);
 * each may crash once after a charge (2 in 100) and then stays down a minute. The balancer
 * sends what comes meanwhile to the other instance, which shares the store (durable): a
 * crashed charge's row stays in processing, and nothing is charged twice. */
START_TEST(test_a_called_servers_balancer_sends_past_a_crashed_instance)
{
    Scenario *scenario =
        test_load(FAST_PAYMENTS(FAST ", \"instances\": 2, \"balancer\": \"round-robin\","
                                     " \"balancer_retry\": \"connect-failure\","
                                     " \"crash\": {\"point\": \"after-effect\", \"prob\": 0.02,"
                                     " \"max_crashes\": 1, \"restart_ms\": 60000}",
                                ""),
                  NULL, 0);
    Metrics m = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_double_eq(test_service_value(&m, "payments", "crashes"), 1);
    ck_assert_uint_gt(m.balancer_retries, 0);
    ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], 0);
    /* the reports say so, though the first server runs one instance */
    RunReport report = {.scenario = scenario,
                        .seed = scenario->seed,
                        .mode_count = 1,
                        .modes = {MODE_IDEMPOTENT},
                        .metrics = {&m}};
    char *text = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&text, &size);
    ck_assert(report_write_json(stream, &report) && report_write_table(stream, &report, false));
    fclose(stream);
    ck_assert_ptr_nonnull(strstr(text, "\"balancer\": {\"retries\""));
    ck_assert_ptr_nonnull(strstr(text, "balancer: past a down instance"));
    free(text);
    free(scenario);
}
END_TEST

/* A consumer group that calls a server (a ledger service) instead of a gateway: the ledger
 * takes 1 s and the group waits 0.3 s per try, three tries, so every delivery gives up and
 * its message, unacknowledged, comes back after the 5 s visibility timeout, five deliveries
 * in all. Without keys the ledger runs every try of every delivery; with the message id
 * forwarded as the call's key, the ledger's store runs each message once (the later tries of
 * a delivery meet 409, the next delivery the stored answer). */
#define CONSUMERS_CALL_LEDGER                                                                      \
    "{\"seed\": 3, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000000}],"                                   \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"visibility-timeout\","            \
    "    \"ack_timeout_ms\": 5000, \"max_deliveries\": 5},"                                        \
    "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","                  \
    "    \"key_store\": \"charger-keys\", \"workers\": 0,"                                         \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                                     \
    "    \"steps\": [{\"call\": \"ledger\", \"timeout_ms\": 300, \"retry\": {\"max_attempts\": "   \
    "3}}]},"                                                                                       \
    "   {\"id\": \"charger-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"},"             \
    "   {\"id\": \"ledger\", \"kind\": \"server\", \"key_store\": \"ledger-keys\", \"workers\": "  \
    "0,"                                                                                           \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1000}, \"steps\": [{\"effect\": "        \
    "\"local\"}]},"                                                                                \
    "   {\"id\": \"ledger-keys\", \"kind\": \"key_store\"}],"                                      \
    " \"clients\": [{\"id\": \"order-api\", \"count\": 4, \"publishes\": \"orders\","              \
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"           \
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 60000},"                                      \
    "   \"retry\": {\"timeout_ms\": 2000, \"max_attempts\": 3}}],"                                 \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"
#define DELIVERIES 5

START_TEST(test_a_consumer_group_calls_a_ledger_server)
{
    Metrics once = test_run_text(CONSUMERS_CALL_LEDGER, MODE_AT_MOST_ONCE);
    Metrics least = test_run_text(CONSUMERS_CALL_LEDGER, MODE_AT_LEAST_ONCE);
    Metrics keyed = test_run_text(CONSUMERS_CALL_LEDGER, MODE_IDEMPOTENT);
    ck_assert_uint_gt(once.operations, 0);
    ck_assert_uint_eq(once.effects, once.operations * CHECKOUT_TRIES);
    ck_assert_uint_eq(least.effects, least.operations * DELIVERIES * CHECKOUT_TRIES);
    ck_assert_uint_eq(least.dead_lettered, least.operations);
    ck_assert_double_eq(test_service_value(&least, "ledger", "runs"), least.effects);
    ck_assert_double_eq(test_service_value(&least, "charger", "retries"), least.call_retries);
    ck_assert_uint_eq(keyed.effects, keyed.operations);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_double_eq(test_service_value(&keyed, "ledger", "replayed"), keyed.operations);
    ck_assert_double_eq(test_service_value(&keyed, "ledger", "refused"),
                        keyed.operations * (CHECKOUT_TRIES - 1));
    /* a ledger only the consumers call is drawn, and listed, after them */
    uint32_t order[SERVICE_METRICS_MAX];
    uint32_t shown = metrics_services_in_lane_order(&least, order);
    const char *expected[] = {"orders", "charger", "ledger"};
    ck_assert_uint_eq(shown, 3);
    for (uint32_t i = 0; i < shown; i++)
        ck_assert_str_eq(least.services[order[i]].name, expected[i]);
}
END_TEST

/* The same ledger answering 202 while a try runs: the consumers do not poll, so a 202 is a
 * failed try, never the charge done (taken for done, it acked messages whose first try then
 * failed: lost payments). */
START_TEST(test_a_ledgers_202_is_a_failed_try)
{
    const char *overrides[] = {"services.ledger-keys.on_in_progress=202"};
    Scenario *scenario = test_load(CONSUMERS_CALL_LEDGER, overrides, 1);
    Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_uint_eq(keyed.status_202, keyed.operations * (CHECKOUT_TRIES - 1));
    ck_assert_uint_eq(keyed.effects, keyed.operations);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_OK], keyed.operations);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("called_servers");
    TCase *tcase = tcase_create("called_servers");
    tcase_add_test(tcase, test_the_called_server_runs_the_product_of_the_tries);
    tcase_add_test(tcase, test_a_forwarded_key_lets_the_called_server_charge_once);
    tcase_add_test(tcase, test_a_definite_refusal_of_the_called_server_is_the_callers_answer);
    tcase_add_test(tcase, test_a_retried_call_to_a_server_is_traced_as_a_call_retry);
    tcase_add_test(tcase, test_a_called_servers_failure_after_its_effect_is_retried_by_its_caller);
    tcase_add_test(tcase, test_a_called_servers_crash_wipes_only_its_own_store);
    tcase_add_test(tcase, test_a_called_servers_outage_resets_every_try_it_meets);
    tcase_add_test(tcase, test_a_called_servers_shed_answer_is_a_failed_try);
    tcase_add_test(tcase, test_a_called_server_takes_every_operation);
    tcase_add_loop_test(tcase, test_a_called_servers_key_windows_are_its_stores, 0, 2);
    tcase_add_test(tcase, test_the_table_shows_a_called_stores_failovers);
    tcase_add_test(tcase, test_a_called_servers_balancer_sends_past_a_crashed_instance);
    tcase_add_test(tcase, test_a_consumer_group_calls_a_ledger_server);
    tcase_add_test(tcase, test_a_ledgers_202_is_a_failed_try);
    suite_add_tcase(suite, tcase);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
