/* A saga's compensation (issue 21, C28): after its charge, an order's fulfil step fails and
 * the call's undo refunds the charge, with its own tries and key. The refund's answer is lost
 * as a charge's is (the gateway's silent chance): the server retries, and whether a retry
 * refunds again depends only on the refund's key. Outcomes count charges net of refunds. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define ORDERS 2000
#define AMOUNT 100
#define SILENT 0.3 /* the gateway's chance to keep its answer: charges and refunds alike */
#define REFUND_TRIES 4

/* Every fulfil step fails; nothing is lost on the network and nothing queues; the client
 * sends once and waits long, so each order is one job. An unanswered charge ends in a 504
 * (no refund: the server does not know it charged). */
#define SAGA_WORLD(undo, fail)                                                                     \
    "{\"seed\": 28, \"duration_ms\": 100000,"                                                      \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"shop\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 0,"         \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                                     \
    "    \"steps\": [{\"call\": \"psp\"" undo "}, {\"fulfil\": \"local\", \"fail\": " fail "}]},"  \
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"                                              \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true, \"timeout\": 0.3,"         \
    "    \"timeout_ms\": 1000, \"latency_ms\": {\"dist\": \"const\", \"value\": 50}}],"            \
    " \"clients\": [{\"id\": \"app\", \"count\": 20, \"calls\": \"shop\","                         \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 100, \"interval_ms\": 900, \"loop\": \"open\"},"                   \
    "   \"retry\": {\"timeout_ms\": 60000, \"max_attempts\": 1}, \"key\": \"per-click\"}],"        \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

#define UNDO(key)                                                                                  \
    ", \"undo\": {\"refund\": \"psp\", \"key\": \"" key "\", \"timeout_ms\": 1000,"                \
    " \"retry\": {\"max_attempts\": 4}}"

/* A count of independent Bernoulli(p) trials out of n is within 4.5 standard deviations of
 * its mean (a false alarm about once in 150,000 runs; the seed is fixed, so never flaky). */
static void assert_binomial(uint64_t count, double n, double p)
{
    double mean = n * p, tolerance = 4.5 * sqrt(n * p * (1.0 - p));
    ck_assert_msg(fabs((double)count - mean) <= tolerance, "%llu is not within %.1f of %.1f",
                  (unsigned long long)count, tolerance, mean);
}

START_TEST(test_a_refund_keyed_by_the_order_is_made_once)
{
    Metrics derived = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(derived.operations, ORDERS);
    uint64_t refunded = derived.outcomes[OUTCOME_REFUNDED];
    /* an order whose charge was answered is refunded; one whose answer was lost ends 504 */
    assert_binomial(refunded, ORDERS, 1.0 - SILENT);
    ck_assert_uint_eq(derived.outcomes[OUTCOME_PHANTOM], ORDERS - refunded);
    ck_assert_uint_eq(derived.fulfil_failures, refunded);
    ck_assert_uint_eq(derived.refunds, refunded); /* a retry is answered from memory */
    ck_assert_uint_eq(derived.double_refunds, 0);
    /* a retry follows every first refund try whose answer was lost */
    assert_binomial(derived.refund_retries, (double)refunded, SILENT);
    /* refunded orders were meant to cost nothing, the phantoms once: the money is exact */
    ck_assert_int_eq(metrics_balance_error(&derived), 0);
    ck_assert_uint_eq(derived.client_failed, refunded); /* told 424 */
}
END_TEST

/* The same lost answers with a new key per try: every retry is a second refund. The first
 * try's fate does not depend on its key, so the orders refunded twice are exactly those the
 * derived key's run retried. */
START_TEST(test_a_new_key_per_try_refunds_once_per_try)
{
    Metrics derived = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    Metrics fresh = test_run_text(SAGA_WORLD(UNDO("per-try"), "1"), MODE_IDEMPOTENT);
    uint64_t refunded = fresh.outcomes[OUTCOME_REFUNDED];
    ck_assert_uint_eq(refunded, derived.outcomes[OUTCOME_REFUNDED]);
    ck_assert_uint_eq(fresh.double_refunds, derived.refund_retries);
    /* each try refunds: tries = 1 + silent answers before the first heard, at most 4 */
    ck_assert_uint_eq(fresh.refunds, refunded + fresh.refund_retries);
    /* retries per order: k silent answers before one is heard, k < REFUND_TRIES - 1, with
     * chance (1 - p) p^k; all the rest with p^(REFUND_TRIES - 1) */
    double mean = 0, square = 0;
    for (int k = 0; k < REFUND_TRIES; k++) {
        double chance = k < REFUND_TRIES - 1 ? (1.0 - SILENT) * pow(SILENT, k) : pow(SILENT, k);
        mean += chance * k;
        square += chance * k * k;
    }
    double tolerance = 4.5 * sqrt((double)refunded * (square - mean * mean));
    ck_assert_msg(fabs((double)fresh.refunds - (double)refunded * (1.0 + mean)) <= tolerance,
                  "%llu refunds for %llu orders", (unsigned long long)fresh.refunds,
                  (unsigned long long)refunded);
    ck_assert_int_eq(fresh.double_refund_amount, (int64_t)(fresh.refunds - refunded) * AMOUNT);
    /* the money given away is the whole balance error: the customers were paid twice */
    ck_assert_int_eq(metrics_balance_error(&fresh), fresh.double_refund_amount);
}
END_TEST

/* Every answer of the provider comes twice: the second copy of the charge's answer arrives
 * while the refund waits, and must not pass for the refund's answer (both are a first try). */
START_TEST(test_a_late_copy_of_the_charges_answer_is_not_the_refunds)
{
    const char *const duplicated[] = {"network.links={\"psp->shop\": {\"duplicate\": 1}}"};
    Scenario *scenario = test_load(SAGA_WORLD(UNDO("derive"), "1"), duplicated, 1);
    Metrics twice = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    free(scenario);
    Metrics once = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    ck_assert_uint_gt(twice.network_duplicated, 0);
    ck_assert_uint_eq(twice.refund_retries, once.refund_retries);
    ck_assert_uint_eq(twice.outcomes[OUTCOME_REFUNDED], once.outcomes[OUTCOME_REFUNDED]);
}
END_TEST

/* The mode decides whether there is a key to derive from: without one, a derived refund key
 * is no key, and the retries refund twice just as new keys do. */
START_TEST(test_without_a_request_key_there_is_nothing_to_derive_from)
{
    Metrics derived = test_run_text(SAGA_WORLD(UNDO("derive"), "1"), MODE_AT_LEAST_ONCE);
    Metrics fresh = test_run_text(SAGA_WORLD(UNDO("per-try"), "1"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(derived.double_refunds, 0);
    ck_assert_uint_eq(derived.double_refunds, fresh.double_refunds);
    ck_assert_uint_eq(derived.refunds, fresh.refunds);
}
END_TEST

/* No undo: an order that failed after its charge leaves the customer charged and told it
 * failed (phantom), with no refund. */
START_TEST(test_without_an_undo_the_failed_order_stays_charged)
{
    Metrics kept = test_run_text(SAGA_WORLD("", "1"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(kept.refunds, 0);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_REFUNDED], 0);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_PHANTOM], ORDERS);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_OK], 0);
}
END_TEST

/* fail is a chance per order: about that share of the charged orders is refunded, and the
 * rest are paid and told so. */
START_TEST(test_the_fulfil_step_fails_with_its_chance)
{
    Metrics some = test_run_text(SAGA_WORLD(UNDO("derive"), "0.25"), MODE_IDEMPOTENT);
    uint64_t charged_answered = some.outcomes[OUTCOME_REFUNDED] + some.outcomes[OUTCOME_OK];
    assert_binomial(some.fulfil_failures, (double)charged_answered, 0.25);
    ck_assert_uint_eq(some.outcomes[OUTCOME_REFUNDED], some.fulfil_failures);
}
END_TEST

/* A decline is not a refund: nothing was charged, nothing given back, and the order is
 * declined rather than lost. */
START_TEST(test_a_declined_charge_is_neither_refunded_nor_lost)
{
    const char *json = "{\"seed\": 3, \"duration_ms\": 20000,"
                       " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
                       " \"services\": ["
                       "   {\"id\": \"shop\", \"kind\": \"server\", \"key_store\": \"keys\","
                       "    \"steps\": [{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"
                       "               {\"fulfil\": \"local\", \"fail\": 1}]},"
                       "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
                       "   {\"id\": \"psp\", \"kind\": \"gateway\", \"fail\": 1}],"
                       " \"clients\": [{\"id\": \"app\", \"count\": 5, \"calls\": \"shop\","
                       "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
                       "   \"workload\": {\"ops\": 4, \"interval_ms\": 1000}}],"
                       " \"network\": {\"default\": {\"loss\": 0}}}";
    Metrics declined = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_uint_eq(declined.outcomes[OUTCOME_DECLINED], 20);
    ck_assert_uint_eq(declined.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_eq(declined.fulfil_failures, 0); /* nothing paid: nothing to fulfil */
    ck_assert_uint_eq(declined.refunds, 0);
    ck_assert_int_eq(metrics_balance_error(&declined), 0);
}
END_TEST

/* ------------------------------------------------------------------ a consumer group's saga */

/* The same saga run by a consumer group (a saga by choreography): orders published to a
 * queue; each worker charges, its fulfil step fails, its undo refunds, and the message is
 * acknowledged. An unanswered charge is a failed handler: the message comes back after its
 * ack timeout and charges again with the same key (answered from the provider's record in
 * the idempotent mode). Nothing is lost on the network; every order settles in the run. */
#define CONSUMER_SAGA_WORLD(undo, fail)                                                            \
    "{\"seed\": 25, \"duration_ms\": 100000,"                                                      \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"ack_timeout_ms\": 8000},"                     \
    "   {\"id\": \"shipper\", \"kind\": \"consumers\", \"consumes\": \"orders\","                  \
    "    \"key_store\": \"keys\", \"workers\": 0,"                                                 \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                                     \
    "    \"steps\": [{\"call\": \"psp\"" undo "}, {\"fulfil\": \"local\", \"fail\": " fail "}]},"  \
    "   {\"id\": \"keys\", \"kind\": \"key_store\", \"key\": \"message-id\"},"                     \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true, \"timeout\": 0.3,"         \
    "    \"timeout_ms\": 1000, \"latency_ms\": {\"dist\": \"const\", \"value\": 50}}],"            \
    " \"clients\": [{\"id\": \"app\", \"count\": 20, \"publishes\": \"orders\","                   \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 100, \"interval_ms\": 900, \"loop\": \"open\"},"                   \
    "   \"retry\": {\"timeout_ms\": 60000, \"max_attempts\": 1}, \"key\": \"message-id\"}],"       \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

/* The node of the service named id in a run's per-service counters. */
static const ServiceMetrics *service_named(const Metrics *metrics, const char *id)
{
    for (uint32_t i = 0; i < SERVICE_METRICS_MAX; i++) {
        if (strcmp(metrics->services[i].name, id) == 0)
            return &metrics->services[i];
    }
    ck_abort_msg("no service %s", id);
    return NULL;
}

START_TEST(test_a_consumer_groups_steps_load_with_undo_and_fulfil)
{
    Scenario *scenario = test_load(CONSUMER_SAGA_WORLD(UNDO("per-try"), "0.25"), NULL, 0);
    const ConsumerSpec *consumers = &scenario->broker.consumers;
    ck_assert(consumers->use_gateway);
    ck_assert(consumers->undo.enabled);
    ck_assert_int_eq(consumers->undo.call.key, CALL_KEY_PER_TRY);
    ck_assert_uint_eq(consumers->undo.call.retry.max_attempts, 4);
    ck_assert(consumers->undo.call.timeout_ms == 1000);
    ck_assert(consumers->fulfil.enabled);
    ck_assert(consumers->fulfil.fail == 0.25);
    ck_assert(!scenario->server.undo.enabled && !scenario->server.fulfil.enabled);
    ck_assert(scenario_uses_saga(scenario));
    free(scenario);
    /* the undo's key is derived by default, as the server's */
    scenario = test_load(CONSUMER_SAGA_WORLD(", \"undo\": {\"refund\": \"psp\"}", "1"), NULL, 0);
    ck_assert_int_eq(scenario->broker.consumers.undo.call.key, CALL_KEY_DERIVE);
    ck_assert_uint_eq(scenario->broker.consumers.undo.call.retry.max_attempts, 1);
    free(scenario);
}
END_TEST

/* Every order is charged, fails to ship and is refunded once, at the provider: the refund is
 * the gateway's to count, not the consumers'. */
START_TEST(test_a_consumer_saga_refunds_every_failed_order_once)
{
    Metrics derived = test_run_text(CONSUMER_SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(derived.operations, ORDERS);
    ck_assert_uint_eq(derived.outcomes[OUTCOME_REFUNDED], ORDERS);
    ck_assert_uint_eq(derived.refunds, ORDERS);
    ck_assert_uint_eq(derived.double_refunds, 0);
    ck_assert_uint_gt(derived.redeliveries, 0);         /* charges left unanswered came back */
    ck_assert_uint_eq(derived.fulfil_failures, ORDERS); /* one answered charge per order */
    assert_binomial(derived.refund_retries, ORDERS, SILENT);
    const ServiceMetrics *psp = service_named(&derived, "psp");
    const ServiceMetrics *shipper = service_named(&derived, "shipper");
    ck_assert_uint_eq(psp->refunds, ORDERS);
    ck_assert_uint_eq(shipper->refunds, 0);
    ck_assert_uint_eq(psp->effects, ORDERS); /* each charged once: the key stops the rest */
    ck_assert_uint_eq(shipper->retries, derived.refund_retries); /* the charge has no retry */
    ck_assert_int_eq(metrics_balance_error(&derived), 0);
}
END_TEST

/* A new refund key per try: every retry is a second refund, exactly for the orders the
 * derived key's run retried (the first try's fate does not depend on its key). */
START_TEST(test_a_consumers_new_refund_key_per_try_refunds_twice)
{
    Metrics derived = test_run_text(CONSUMER_SAGA_WORLD(UNDO("derive"), "1"), MODE_IDEMPOTENT);
    Metrics fresh = test_run_text(CONSUMER_SAGA_WORLD(UNDO("per-try"), "1"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(fresh.outcomes[OUTCOME_REFUNDED], ORDERS);
    ck_assert_uint_gt(fresh.double_refunds, 0);
    ck_assert_uint_eq(fresh.double_refunds, derived.refund_retries);
    ck_assert_uint_eq(fresh.refunds, ORDERS + fresh.refund_retries);
    ck_assert_uint_eq(service_named(&fresh, "psp")->refunds, fresh.refunds);
    ck_assert_int_eq(fresh.double_refund_amount, (int64_t)(fresh.refunds - ORDERS) * AMOUNT);
    ck_assert_int_eq(metrics_balance_error(&fresh), fresh.double_refund_amount);
}
END_TEST

/* At-least-once: no key to derive from, and a redelivered order is charged again: the
 * consumer must be idempotent on the charge as well as on the refund. */
START_TEST(test_a_consumer_without_keys_refunds_and_charges_twice)
{
    Metrics derived = test_run_text(CONSUMER_SAGA_WORLD(UNDO("derive"), "1"), MODE_AT_LEAST_ONCE);
    Metrics fresh = test_run_text(CONSUMER_SAGA_WORLD(UNDO("per-try"), "1"), MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(derived.double_refunds, 0);
    ck_assert_uint_eq(derived.double_refunds, fresh.double_refunds);
    ck_assert_uint_eq(derived.refunds, fresh.refunds);
    ck_assert_uint_gt(service_named(&derived, "psp")->doubles, 0);
}
END_TEST

/* No undo: the order failed after its charge and the customer stays charged. */
START_TEST(test_a_consumer_without_an_undo_leaves_the_failed_order_charged)
{
    Metrics kept = test_run_text(CONSUMER_SAGA_WORLD("", "1"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(kept.refunds, 0);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_REFUNDED], 0);
    ck_assert_uint_gt(kept.fulfil_failures, 0);
    ck_assert_uint_eq(service_named(&kept, "psp")->effects, ORDERS);
}
END_TEST

/* The same scenario and seed give the same run, refunds and all. */
START_TEST(test_a_consumer_saga_is_deterministic)
{
    Metrics first = test_run_text(CONSUMER_SAGA_WORLD(UNDO("per-try"), "0.5"), MODE_IDEMPOTENT);
    Metrics again = test_run_text(CONSUMER_SAGA_WORLD(UNDO("per-try"), "0.5"), MODE_IDEMPOTENT);
    ck_assert_uint_gt(first.refunds, 0);
    ck_assert_uint_gt(first.outcomes[OUTCOME_OK], 0);
    ck_assert_uint_eq(first.refunds, again.refunds);
    ck_assert_uint_eq(first.refund_retries, again.refund_retries);
    ck_assert_uint_eq(first.double_refunds, again.double_refunds);
    ck_assert_uint_eq(first.redeliveries, again.redeliveries);
    ck_assert_uint_eq(first.fulfil_failures, again.fulfil_failures);
    for (int o = 0; o < OUTCOME_COUNT; o++)
        ck_assert_uint_eq(first.outcomes[o], again.outcomes[o]);
    ck_assert_uint_eq(service_named(&first, "psp")->refunds, service_named(&again, "psp")->refunds);
}
END_TEST

/* A consumer saga whose handler also fails after its effect (C36) for a share of runs:
 * every order fails to ship (fulfil fail 1) or some do, and nothing else goes wrong (no loss,
 * no silent provider, no crash), so the only way back for a message is a handler failure's
 * nack. */
#define CONSUMER_SAGA_FAILING_AFTER(fulfil_fail, fail_after)                                       \
    "{\"seed\": 21, \"duration_ms\": 100000,"                                                      \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"ack_timeout_ms\": 8000,"                      \
    "    \"max_deliveries\": 20},"                                                                 \
    "   {\"id\": \"shipper\", \"kind\": \"consumers\", \"consumes\": \"orders\","                  \
    "    \"key_store\": \"keys\", \"workers\": 0, \"inbox\": true,"                                \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                                     \
    "    \"fail_after_effect\": " fail_after ","                                                   \
    "    \"steps\": [{\"call\": \"psp\"" UNDO(                                                     \
        "derive") "},"                                                                             \
                  "               {\"fulfil\": \"local\", \"fail\": " fulfil_fail "}]},"           \
                  "   {\"id\": \"keys\", \"kind\": \"key_store\", \"key\": \"message-id\"},"       \
                  "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true,"             \
                  "    \"timeout_ms\": 1000, \"latency_ms\": {\"dist\": \"const\", \"value\": "    \
                  "50}}],"                                                                         \
                  " \"clients\": [{\"id\": \"app\", \"count\": 10, \"publishes\": \"orders\","     \
                  "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                      \
                  "   \"workload\": {\"ops\": 50, \"interval_ms\": 900, \"loop\": \"open\"},"      \
                  "   \"retry\": {\"timeout_ms\": 60000, \"max_attempts\": 1}, \"key\": "          \
                  "\"message-id\"}],"                                                              \
                  " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"
#define FAILING_AFTER_ORDERS 500

/* Per operation: refunded at the gateway yet, and charges the consumers sent after that. */
typedef struct {
    uint32_t consumers_node, gateway_node;
    bool refunded[FAILING_AFTER_ORDERS];
    uint64_t charges_after_refund;
    uint64_t handler_failures_after_effect;
} RefundWatch;

static void watch_refunds(void *context, const TraceRecord *record)
{
    RefundWatch *watch = context;
    if (record->no_operation || record->operation >= FAILING_AFTER_ORDERS)
        return;
    if (record->event == TRACE_REFUNDED && record->actor_kind == NODE_GATEWAY)
        watch->refunded[record->operation] = true;
    if (record->event == TRACE_TRANSMIT && record->message == MESSAGE_CHARGE &&
        record->actor_kind == NODE_CONSUMERS && watch->refunded[record->operation])
        watch->charges_after_refund++;
    if (record->event == TRACE_HANDLER_FAILED && record->detail == 1)
        watch->handler_failures_after_effect++;
}

static Metrics run_watching_refunds(const char *json, Mode mode, RefundWatch *watch)
{
    Scenario *scenario = test_load(json, NULL, 0);
    World *world =
        world_create(scenario, mode, scenario->seed,
                     (TraceSink){.write = watch_refunds, .context = watch}, (WorldLimits){0});
    world_run(world);
    Metrics metrics = *world_metrics(world);
    world_destroy(world);
    free(scenario);
    return metrics;
}

/* The compensation completes the handler's work for its message (as the server's saga
 * completes its job): once the order is refunded, no fail_after_effect is drawn, its key
 * row says 424 and the message is acknowledged. Before, a handler failing after the refund
 * nacked the message and forgot its key row, and the redelivery charged again (answered
 * from the provider's record of the refunded charge, or charged twice without keys) and
 * could ship the refunded order. */
START_TEST(test_a_consumer_never_charges_an_order_it_refunded)
{
    const Mode modes[] = {MODE_AT_LEAST_ONCE, MODE_IDEMPOTENT};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        /* every order fails to ship: each is charged once, refunded once, delivered once */
        Metrics all = test_run_text(CONSUMER_SAGA_FAILING_AFTER("1", "0.5"), modes[m]);
        ck_assert_uint_eq(all.operations, FAILING_AFTER_ORDERS);
        ck_assert_uint_eq(all.outcomes[OUTCOME_REFUNDED], FAILING_AFTER_ORDERS);
        ck_assert_uint_eq(all.handler_failures, 0);
        ck_assert_uint_eq(all.redeliveries, 0);
        ck_assert_uint_eq(service_named(&all, "psp")->effects, FAILING_AFTER_ORDERS);
        ck_assert_uint_eq(service_named(&all, "psp")->refunds, FAILING_AFTER_ORDERS);
        ck_assert_uint_eq(service_named(&all, "shipper")->runs, FAILING_AFTER_ORDERS);
        /* half ship: those can fail after their effect and come back, the refunded never */
        RefundWatch *watch = calloc(1, sizeof *watch);
        Metrics some =
            run_watching_refunds(CONSUMER_SAGA_FAILING_AFTER("0.5", "0.5"), modes[m], watch);
        ck_assert_uint_gt(some.outcomes[OUTCOME_REFUNDED], 0);
        ck_assert_uint_gt(watch->handler_failures_after_effect, 0);
        ck_assert_uint_gt(some.redeliveries, 0);
        ck_assert_uint_eq(watch->charges_after_refund, 0);
        ck_assert_uint_eq(some.double_refunds, 0);
        free(watch);
    }
}
END_TEST

static Suite *saga_suite(void)
{
    Suite *suite = suite_create("saga");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_refund_keyed_by_the_order_is_made_once);
    tcase_add_test(core, test_a_new_key_per_try_refunds_once_per_try);
    tcase_add_test(core, test_a_late_copy_of_the_charges_answer_is_not_the_refunds);
    tcase_add_test(core, test_without_a_request_key_there_is_nothing_to_derive_from);
    tcase_add_test(core, test_without_an_undo_the_failed_order_stays_charged);
    tcase_add_test(core, test_the_fulfil_step_fails_with_its_chance);
    tcase_add_test(core, test_a_declined_charge_is_neither_refunded_nor_lost);
    tcase_add_test(core, test_a_consumer_groups_steps_load_with_undo_and_fulfil);
    tcase_add_test(core, test_a_consumer_saga_refunds_every_failed_order_once);
    tcase_add_test(core, test_a_consumers_new_refund_key_per_try_refunds_twice);
    tcase_add_test(core, test_a_consumer_without_keys_refunds_and_charges_twice);
    tcase_add_test(core, test_a_consumer_without_an_undo_leaves_the_failed_order_charged);
    tcase_add_test(core, test_a_consumer_saga_is_deterministic);
    tcase_add_test(core, test_a_consumer_never_charges_an_order_it_refunded);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(saga_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
