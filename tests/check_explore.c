/* idemsim explore: the fault plan (a scenario's forced `faults`), the enumerator and its
 * verdicts on the reduced lessons of tests/explore_scenarios (hand-derived: each file's
 * description says why), the counterexample replayed by run and explain byte for byte, and
 * the limits (worlds too large, budgets, malformed lists). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "fault_plan.h"
#include "scenario.h"
#include "test_cli.h"
#include "test_world.h"
#include "world.h"

#define SCENARIOS "tests/explore_scenarios/"

static char out[512];
static char err[512];

static void setup(void)
{
    test_cli_make_scratch("explore");
    snprintf(out, sizeof out, "%s/out", test_scratch);
    snprintf(err, sizeof err, "%s/err", test_scratch);
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

static Scenario *load(const char *name, const char *const *overrides, uint32_t override_count)
{
    char path[256];
    snprintf(path, sizeof path, SCENARIOS "%s.json", name);
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors *errors = malloc(sizeof *errors);
    bool loaded = scenario_load_file(path, overrides, override_count, scenario, errors);
    ck_assert_msg(loaded, "%s: %s: %s", path, errors->count ? errors->items[0].path : "",
                  errors->count ? errors->items[0].message : "");
    free(errors);
    return scenario;
}

/* Explores one mode of a reduced lesson with at most max_faults faults (no-double). */
static ExploreResult *explore(const char *name, Mode mode, uint32_t max_faults, uint32_t threads)
{
    Scenario *scenario = load(name, NULL, 0);
    ExploreOptions options = {.max_faults = max_faults,
                              .property = EXPLORE_NO_DOUBLE,
                              .threads = threads,
                              .seed = scenario->seed};
    ExploreResult *result = malloc(sizeof *result);
    explore_mode(scenario, mode, &options, result);
    free(scenario);
    ck_assert_int_eq(result->status, EXPLORE_DONE);
    return result;
}

static void assert_holds(const char *name, Mode mode)
{
    ExploreResult *result = explore(name, mode, 3, 2);
    ck_assert_msg(!result->found, "%s: %s doubles with %u faults", name, mode_name(mode),
                  result->counterexample_count);
    ck_assert_uint_eq(result->complete_size, 3);
    ck_assert_uint_eq(result->violations, 0);
    free(result);
}

static void assert_one_fault_doubles(const char *name, Mode mode, FaultKind kind)
{
    ExploreResult *result = explore(name, mode, 3, 2);
    ck_assert_msg(result->found, "%s: %s never doubles", name, mode_name(mode));
    ck_assert_uint_eq(result->counterexample_count, 1);
    ck_assert_str_eq(fault_kind_name(result->counterexample[0].kind), fault_kind_name(kind));
    ck_assert_uint_ge(result->counterexample_outcomes[OUTCOME_DOUBLE], 1);
    free(result);
}

/* ------------------------------------------------------------------ the lessons */

START_TEST(test_c1_at_least_once_doubles_with_one_lost_answer)
{
    ExploreResult *result = explore("c1_lost_answer", MODE_AT_LEAST_ONCE, 3, 2);
    ck_assert(result->found);
    ck_assert_uint_eq(result->counterexample_count, 1);
    ck_assert_int_eq(result->counterexample[0].kind, FAULT_LOSS);
    ck_assert_int_eq(result->counterexample[0].hop, FAULT_HOP_RESPONSE);
    ck_assert_uint_eq(result->counterexample[0].operation, 0);
    ck_assert_uint_eq(result->counterexample[0].attempt, 1);
    free(result);
}
END_TEST

START_TEST(test_c1_at_most_once_and_idempotent_never_double_with_three_faults)
{
    assert_holds("c1_lost_answer", MODE_AT_MOST_ONCE);
    assert_holds("c1_lost_answer", MODE_IDEMPOTENT);
    ExploreResult *result = explore("c1_lost_answer", MODE_IDEMPOTENT, 3, 2);
    ck_assert_uint_gt(result->by_size[3], 0); /* retries: three faults do fit in one run */
    free(result);
}
END_TEST

START_TEST(test_c7_atomic_reserve_never_doubles_with_three_faults)
{
    assert_holds("c7_atomic_reserve", MODE_IDEMPOTENT);
    assert_one_fault_doubles("c7_atomic_reserve", MODE_AT_LEAST_ONCE, FAULT_DUPLICATE);
}
END_TEST

START_TEST(test_c7_check_then_insert_doubles_with_one_duplicate_in_the_window)
{
    assert_one_fault_doubles("c7_check_then_insert", MODE_IDEMPOTENT, FAULT_DUPLICATE);
}
END_TEST

START_TEST(test_c11_one_fault_after_the_charge_doubles_even_with_keys)
{
    ExploreResult *result = explore("c11_crash_after_charge", MODE_IDEMPOTENT, 3, 2);
    ck_assert(result->found);
    ck_assert_uint_eq(result->counterexample_count, 1);
    free(result);
    /* the crash alone does it too: the fault-free run's first crash point, forced */
    Scenario *scenario = load("c11_crash_after_charge", NULL, 0);
    scenario->faults_forced = true;
    World *world =
        world_create(scenario, MODE_IDEMPOTENT, scenario->seed, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    uint32_t count = 0, overflow = 0;
    const FaultSpec *points = world_fault_points(world, &count, &overflow);
    for (uint32_t i = 0; i < count && scenario->fault_count == 0; i++) {
        if (points[i].kind == FAULT_CRASH)
            scenario->faults[scenario->fault_count++] = points[i];
    }
    world_destroy(world);
    ck_assert_uint_eq(scenario->fault_count, 1);
    world =
        world_create(scenario, MODE_IDEMPOTENT, scenario->seed, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    ck_assert_uint_eq(world_faults_met(world), 1);
    ck_assert_uint_eq(world_metrics(world)->crashes, 1);
    ck_assert_uint_ge(world_metrics(world)->outcomes[OUTCOME_DOUBLE], 1);
    world_destroy(world);
    free(scenario);
}
END_TEST

/* C28: an order that fails after its charge and a refund whose answer never comes, retried
 * under a new key, refund twice: two faults, even with keys. A refund key derived from the
 * order's never refunds twice with up to 3 faults. */
START_TEST(test_c28_a_refund_retried_under_a_new_key_refunds_twice_with_two_faults)
{
    Scenario *fresh = load("c28_saga_refund_new_key", NULL, 0);
    Scenario *derived = load("c28_saga_refund_order_key", NULL, 0);
    ExploreOptions options = {
        .max_faults = 3, .property = EXPLORE_NO_DOUBLE_REFUND, .threads = 2, .seed = fresh->seed};
    ExploreResult *result = malloc(sizeof *result);
    explore_mode(fresh, MODE_IDEMPOTENT, &options, result);
    ck_assert(result->found);
    ck_assert_uint_eq(result->counterexample_count, 2);
    ck_assert_str_eq(fault_kind_name(result->counterexample[0].kind), "fulfil-fail");
    ck_assert_str_eq(fault_kind_name(result->counterexample[1].kind), "gateway-silent");
    ck_assert_str_eq(fault_hop_name(result->counterexample[1].hop), "refund");
    explore_mode(derived, MODE_IDEMPOTENT, &options, result);
    ck_assert(!result->found);
    ck_assert_uint_eq(result->complete_size, 3);
    free(result);
    free(fresh);
    free(derived);
}
END_TEST

/* A delay fault is late for every timeout of the world, a refund's own included: with a
 * refund that waits 20 s for its answer (longer than the client's 5 s), a refund that
 * reaches the provider too late has been tried again under a new key meanwhile: a second
 * refund, with no other fault than the order's failure (the gateway keeps no answer,
 * nothing is lost). A delay as late as the client's timeout alone was early for the
 * refund: the property held. */
START_TEST(test_c28_a_late_refund_is_as_late_as_the_refunds_own_timeout)
{
    const char *const late_refund[] = {"services.psp.timeout=0", "network.default.loss=0",
                                       "network.default.delay_ms={\"dist\": \"exp\", \"mean\": 5}",
                                       "services.orders.steps[0].undo.timeout_ms=20000",
                                       "duration_ms=60000"};
    Scenario *scenario = load("c28_saga_refund_new_key", late_refund, 5);
    ExploreOptions options = {.max_faults = 2,
                              .property = EXPLORE_NO_DOUBLE_REFUND,
                              .threads = 2,
                              .seed = scenario->seed};
    ExploreResult *result = malloc(sizeof *result);
    explore_mode(scenario, MODE_IDEMPOTENT, &options, result);
    ck_assert(result->found);
    ck_assert_uint_eq(result->counterexample_count, 2);
    ck_assert_str_eq(fault_kind_name(result->counterexample[0].kind), "fulfil-fail");
    ck_assert_str_eq(fault_kind_name(result->counterexample[1].kind), "delay");
    ck_assert_str_eq(fault_hop_name(result->counterexample[1].hop), "refund");
    ck_assert_double_gt(result->counterexample[1].by_ms, 20000);
    free(result);
    free(scenario);
}
END_TEST

/* A channel broker (RabbitMQ) has no ack timeout, only consumer_timeout_ms: a delivery held
 * past it closes the channel and requeues it. An ack late by more than that is charged twice
 * with no other fault (the client never retries); a delay as late as the queue's unused ack
 * timeout (30 s) was early for it: the property held. */
#define CHANNEL_WORLD                                                                              \
    "{\"name\": \"late_ack\", \"seed\": 1, \"duration_ms\": 300000,"                               \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"broker\": {\"family\": \"channel\", \"consumer_timeout_ms\": 100000,"                      \
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 4}}},"    \
    " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"target\": \"broker\","                      \
    "   \"key\": \"message-id\", \"retry\": {\"max_attempts\": 1},"                                \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100}, \"workload\": {\"ops\": 1}}],"      \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": {\"dist\": \"exp\", \"mean\": 5}}}}"

START_TEST(test_a_late_ack_is_as_late_as_a_channels_consumer_timeout)
{
    Scenario *scenario = test_load(CHANNEL_WORLD, NULL, 0);
    ExploreOptions options = {
        .max_faults = 1, .property = EXPLORE_NO_DOUBLE, .threads = 2, .seed = scenario->seed};
    ExploreResult *result = malloc(sizeof *result);
    explore_mode(scenario, MODE_AT_LEAST_ONCE, &options, result);
    ck_assert(result->found);
    ck_assert_uint_eq(result->counterexample_count, 1);
    ck_assert_str_eq(fault_kind_name(result->counterexample[0].kind), "delay");
    ck_assert_str_eq(fault_hop_name(result->counterexample[0].hop), "ack");
    ck_assert_double_gt(result->counterexample[0].by_ms, 100000);
    free(result);
    free(scenario);
}
END_TEST

/* How late a delay fault makes a copy in scenario, in ms. */
static double late_ms(const Scenario *scenario)
{
    FaultPlan *plan = fault_plan_create(scenario);
    double late = (double)fault_plan_late_us(plan) / SIM_US_PER_MS;
    fault_plan_destroy(plan);
    return late;
}

/* RabbitMQ's default consumer timeout, half an hour, in a run of 10 s: it counts for the
 * delay only when the run is as long. Counted, every delay fault was half an hour, so the ack
 * came after the channel had closed at 1801 s and charged twice, a lost ack's story told at
 * the end of a 10 s run. Now a delay is late for the client's timeout (1 s): the ack comes
 * then, the channel still open, and at-least-once holds against one fault. */
START_TEST(test_a_consumer_timeout_longer_than_the_run_makes_no_delay_that_late)
{
    const char *const short_run[] = {"duration_ms=10000", "broker.consumer_timeout_ms=1800000"};
    Scenario *scenario = test_load(CHANNEL_WORLD, short_run, 2);
    ck_assert_double_eq(late_ms(scenario), scenario->client_groups[0].retry.timeout_ms + 1);
    ExploreOptions options = {
        .max_faults = 1, .property = EXPLORE_NO_DOUBLE, .threads = 2, .seed = scenario->seed};
    ExploreResult *result = malloc(sizeof *result);
    explore_mode(scenario, MODE_AT_LEAST_ONCE, &options, result);
    ck_assert_int_eq(result->status, EXPLORE_DONE);
    ck_assert(!result->found);
    ck_assert_uint_eq(result->complete_size, 1);
    ck_assert_uint_gt(result->points_by_kind[FAULT_DELAY], 0);
    free(scenario);
    const char *const as_long[] = {"duration_ms=10000", "broker.consumer_timeout_ms=10000"};
    scenario = test_load(CHANNEL_WORLD, as_long, 2);
    ck_assert_double_eq(late_ms(scenario), 10001);
    explore_mode(scenario, MODE_AT_LEAST_ONCE, &options, result);
    ck_assert(result->found);
    ck_assert_str_eq(fault_hop_name(result->counterexample[0].hop), "ack");
    free(result);
    free(scenario);
}
END_TEST

/* Publisher dedup (SQS FIFO's deduplication interval): a copy of a publish arriving more
 * than dedup_window_ms (5 s) after the first is a new message. The client's answer and its
 * retry both late by more than the window charge twice in at-least-once; a delay late for the
 * client's timeout alone (1 s) brought the retry inside the window, where it was dropped: the
 * property held against two faults. The channel's default consumer timeout is longer than
 * the run, so the window is the longest timer. */
#define DEDUP_WORLD                                                                                \
    "{\"name\": \"late_publish\", \"seed\": 1, \"duration_ms\": 60000,"                            \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"broker\": {\"family\": \"channel\", \"dedup_window_ms\": 5000,"                            \
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 4}}},"    \
    " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"target\": \"broker\","                      \
    "   \"key\": \"message-id\", \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 2},"          \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100}, \"workload\": {\"ops\": 1}}],"      \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": {\"dist\": \"exp\", \"mean\": 5}}}}"

/* A client calling a server that charges at a gateway: the longest timer is the gateway's
 * (2 s). Its broker is reached only when the server publishes. */
#define SERVER_WORLD                                                                               \
    "{\"name\": \"late_server\", \"seed\": 1, \"duration_ms\": 60000,"                             \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"clients\": [{\"id\": \"web\", \"count\": 1, \"key\": \"per-click\","                       \
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 1},"                                   \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100}, \"workload\": {\"ops\": 1}}],"      \
    " \"server\": {\"use_gateway\": true},"                                                        \
    " \"gateway\": {\"timeout_ms\": 2000, \"fail\": 0, \"timeout\": 0},"                           \
    " \"broker\": {\"family\": \"channel\","                                                       \
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 4}}},"    \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": {\"dist\": \"exp\", \"mean\": 5}}}}"

START_TEST(test_a_late_republish_is_as_late_as_the_brokers_dedup_window)
{
    Scenario *scenario = test_load(DEDUP_WORLD, NULL, 0);
    ck_assert_double_eq(late_ms(scenario), 5001);
    ExploreOptions options = {
        .max_faults = 2, .property = EXPLORE_NO_DOUBLE, .threads = 2, .seed = scenario->seed};
    ExploreResult *result = malloc(sizeof *result);
    explore_mode(scenario, MODE_AT_LEAST_ONCE, &options, result);
    ck_assert(result->found);
    ck_assert_uint_eq(result->counterexample_count, 2);
    ck_assert_str_eq(fault_hop_name(result->counterexample[0].hop), "response");
    ck_assert_str_eq(fault_hop_name(result->counterexample[1].hop), "request");
    ck_assert_uint_eq(result->counterexample[1].attempt, 2);
    ck_assert_double_gt(result->counterexample[1].by_ms, 5000);
    free(result);
    free(scenario);
    /* a window counts where something publishes to the broker */
    const char *const unread[] = {"broker.dedup_window_ms=9000"};
    scenario = test_load(SERVER_WORLD, unread, 1);
    ck_assert_double_eq(late_ms(scenario), 2001);
    free(scenario);
    const char *const receipts[] = {"broker.dedup_window_ms=9000", "server.publish_receipts=true"};
    scenario = test_load(SERVER_WORLD, receipts, 2);
    ck_assert_double_eq(late_ms(scenario), 9001);
    free(scenario);
}
END_TEST

/* An outbox relay resends a receipt the broker has not confirmed within outbox_relay_ms
 * (5 s): a publish late by more than that reaches the broker after the relay's second copy,
 * and the receipt goes out twice in at-least-once (no consumer keys), with no other fault. A
 * delay late for the gateway's timeout alone (2 s) was confirmed before the relay: the
 * expectation held. The relay counts only where the server publishes through its outbox. */
START_TEST(test_a_late_receipt_is_as_late_as_the_outbox_relay)
{
    const char *const relayed[] = {"server.publish_receipts=true", "server.receipts_via=\"outbox\"",
                                   "server.outbox_relay_ms=5000",
                                   "expect={\"at-least-once\": {\"receipts_duplicated\": 0}}"};
    Scenario *scenario = test_load(SERVER_WORLD, relayed, 4);
    ck_assert_double_eq(late_ms(scenario), 5001);
    ExploreOptions options = {
        .max_faults = 1, .property = EXPLORE_EXPECT, .threads = 2, .seed = scenario->seed};
    ExploreResult *result = malloc(sizeof *result);
    explore_mode(scenario, MODE_AT_LEAST_ONCE, &options, result);
    ck_assert(result->found);
    ck_assert_uint_eq(result->counterexample_count, 1);
    ck_assert_str_eq(fault_kind_name(result->counterexample[0].kind), "delay");
    ck_assert_str_eq(fault_hop_name(result->counterexample[0].hop), "request");
    ck_assert_double_gt(result->counterexample[0].by_ms, 5000);
    free(result);
    free(scenario);
    const char *const direct[] = {"server.publish_receipts=true", "server.outbox_relay_ms=5000"};
    scenario = test_load(SERVER_WORLD, direct, 2);
    ck_assert_double_eq(late_ms(scenario), 2001);
    free(scenario);
}
END_TEST

/* Reconciliation asks the gateway about a timed-out charge every reconcile_ms: an answer
 * later than that meets a second question. It counts where the clients' server is reached:
 * not where the clients publish to a broker whose consumers call no server. */
START_TEST(test_a_late_status_answer_is_as_late_as_reconciliation)
{
    const char *const reconciling[] = {"server.reconcile_ms=7000"};
    Scenario *scenario = test_load(SERVER_WORLD, reconciling, 1);
    ck_assert_double_eq(late_ms(scenario), 7001);
    free(scenario);
    const char *const unreached[] = {"server.use_gateway=true", "server.reconcile_ms=7000"};
    scenario = test_load(DEDUP_WORLD, unreached, 2);
    ck_assert_double_eq(late_ms(scenario), 5001); /* the dedup window's */
    free(scenario);
    /* nor does the gateway's own timeout, or the call's, of a server nothing reaches */
    const char *const unreached_call[] = {"server.use_gateway=true", "gateway.timeout_ms=9000"};
    scenario = test_load(DEDUP_WORLD, unreached_call, 2);
    ck_assert_double_eq(late_ms(scenario), 5001);
    free(scenario);
}
END_TEST

/* A key store hands a row still processing after lock_timeout_ms to the retry that finds
 * it: a copy later than that finds the row taken over. Each store counts where its owner is
 * reached: the clients' server's, a called server's, a consumer group's. */
START_TEST(test_a_late_copy_is_as_late_as_every_reached_stores_lock_timeout)
{
    const char *const server_lock[] = {"server.idempotency.lock_timeout_ms=7000"};
    Scenario *scenario = test_load(SERVER_WORLD, server_lock, 1);
    ck_assert_double_eq(late_ms(scenario), 7001);
    free(scenario);
    const char *const unreached_server_lock[] = {"server.idempotency.lock_timeout_ms=9000"};
    scenario = test_load(DEDUP_WORLD, unreached_server_lock, 1);
    ck_assert_double_eq(late_ms(scenario), 5001); /* the dedup window's */
    free(scenario);
    const char *const consumers_lock[] = {"broker.consumers.idempotency.lock_timeout_ms=8000"};
    scenario = test_load(DEDUP_WORLD, consumers_lock, 1);
    ck_assert_double_eq(late_ms(scenario), 8001);
    free(scenario);
    scenario = test_load(SERVER_WORLD, consumers_lock, 1); /* nothing publishes */
    ck_assert_double_eq(late_ms(scenario), 2001);
    free(scenario);
    /* checkout calls payments, whose store is its own; the browser's 10 s is the longest */
    const char *const called_lock[] = {"services.payments-keys.lock_timeout_ms=20000"};
    const char *const path = "scenarios/architectures/checkout_payments_service.json";
    scenario = test_load_source_file(path, NULL, 0);
    ck_assert_double_eq(late_ms(scenario), 10001);
    free(scenario);
    scenario = test_load_source_file(path, called_lock, 1);
    ck_assert_double_eq(late_ms(scenario), 20001);
    free(scenario);
}
END_TEST

START_TEST(test_c13_a_double_click_doubles_per_click_keys_not_business_hash)
{
    assert_one_fault_doubles("c13_double_click_per_click", MODE_IDEMPOTENT, FAULT_DOUBLE_CLICK);
    assert_holds("c13_double_click_business_hash", MODE_IDEMPOTENT);
    assert_one_fault_doubles("c13_double_click_business_hash", MODE_AT_LEAST_ONCE,
                             FAULT_DOUBLE_CLICK);
}
END_TEST

START_TEST(test_c15_a_retrying_proxy_doubles_without_keys_only)
{
    assert_one_fault_doubles("c15_proxy_retries", MODE_AT_LEAST_ONCE, FAULT_LOSS);
    assert_holds("c15_proxy_retries", MODE_IDEMPOTENT);
}
END_TEST

/* A 1.5 s TTL from the reservation: one lost answer is caught (the retry comes at about
 * 1.2 s), but lose the retry too and the third attempt finds the key expired. With the
 * default day-long TTL, no schedule of three faults (delays past the 1 s timeout included)
 * doubles. */
START_TEST(test_c1_with_a_short_ttl_doubles_with_a_lost_answer_and_a_lost_retry)
{
    const char *overrides[] = {"server.idempotency.ttl_ms=1500",
                               "network.default.delay_ms={\"dist\": \"exp\", \"mean\": 30}"};
    Scenario *scenario = load("c1_lost_answer", overrides, 2);
    ExploreOptions options = {.max_faults = 3, .threads = 2, .seed = scenario->seed};
    ExploreResult result;
    explore_mode(scenario, MODE_IDEMPOTENT, &options, &result);
    ck_assert(result.found);
    ck_assert_uint_eq(result.counterexample_count, 2);
    ck_assert_int_eq(result.counterexample[0].kind, FAULT_LOSS);
    ck_assert_int_eq(result.counterexample[0].hop, FAULT_HOP_RESPONSE);
    ck_assert_uint_gt(result.points_by_kind[FAULT_DELAY], 0); /* exp delays: delays explored */
    free(scenario);
    scenario = load("c1_lost_answer", overrides + 1, 1);
    explore_mode(scenario, MODE_IDEMPOTENT, &options, &result);
    ck_assert(!result.found);
    ck_assert_uint_eq(result.complete_size, 3);
    free(scenario);
}
END_TEST

/* The services form: an architecture of the library, one client. */
START_TEST(test_an_architecture_in_the_services_form_is_explored)
{
    const char *overrides[] = {"clients[0].count=1"};
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors *errors = malloc(sizeof *errors);
    ck_assert(scenario_load_file("scenarios/architectures/mobile_mesh_checkout.json", overrides, 1,
                                 scenario, errors));
    ExploreOptions options = {.max_faults = 3, .threads = 2, .seed = scenario->seed};
    ExploreResult result;
    explore_mode(scenario, MODE_IDEMPOTENT, &options, &result);
    ck_assert_int_eq(result.status, EXPLORE_DONE);
    ck_assert(!result.found);
    ck_assert_uint_eq(result.complete_size, 3);
    ck_assert_uint_gt(result.points_by_kind[FAULT_GATEWAY_SILENT], 0);
    explore_mode(scenario, MODE_AT_LEAST_ONCE, &options, &result);
    ck_assert(result.found);
    ck_assert_uint_eq(result.counterexample_count, 1);
    free(errors);
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ the enumerator */

START_TEST(test_results_do_not_depend_on_the_thread_count)
{
    ExploreResult *one = explore("c7_check_then_insert", MODE_IDEMPOTENT, 3, 1);
    ExploreResult *two = explore("c7_check_then_insert", MODE_IDEMPOTENT, 3, 2);
    ck_assert_uint_eq(one->schedules, two->schedules);
    ck_assert_uint_eq(one->violations, two->violations);
    ck_assert_mem_eq(one->by_size, two->by_size, sizeof one->by_size);
    ck_assert_mem_eq(one->reachable, two->reachable, sizeof one->reachable);
    ck_assert_uint_eq(one->counterexample_count, two->counterexample_count);
    for (uint32_t f = 0; f < one->counterexample_count; f++) {
        ck_assert_int_eq(one->counterexample[f].kind, two->counterexample[f].kind);
        ck_assert_uint_eq(one->counterexample[f].operation, two->counterexample[f].operation);
        ck_assert_uint_eq(one->counterexample[f].copy, two->counterexample[f].copy);
    }
    free(one);
    free(two);
}
END_TEST

/* Each set of faults is run once: with n points met by every schedule alike (none of the
 * lossy messages here changes which messages follow, in at-most-once), the schedules of
 * size k are the k-subsets of the n points. */
START_TEST(test_each_set_of_faults_is_run_once)
{
    ExploreResult *result = explore("c1_lost_answer", MODE_AT_MOST_ONCE, 3, 2);
    ck_assert_uint_eq(result->base_points, 2);
    /* request lost: nothing follows it; answer lost: nothing more is sent */
    ck_assert_uint_eq(result->by_size[0], 1);
    ck_assert_uint_eq(result->by_size[1], 2);
    ck_assert_uint_eq(result->by_size[2], 0);
    ck_assert_uint_eq(result->schedules, 3);
    ck_assert_uint_eq(result->reachable[OUTCOME_LOST], 1);
    ck_assert_uint_eq(result->reachable[OUTCOME_PHANTOM], 1);
    free(result);
}
END_TEST

START_TEST(test_sampling_finds_and_shrinks_the_single_fault)
{
    Scenario *scenario = load("c13_double_click_per_click", NULL, 0);
    ExploreOptions options = {.max_faults = 3,
                              .property = EXPLORE_NO_DOUBLE,
                              .sample = 50,
                              .threads = 1,
                              .seed = scenario->seed};
    ExploreResult result;
    explore_mode(scenario, MODE_IDEMPOTENT, &options, &result);
    ck_assert(result.found);
    ck_assert_uint_eq(result.counterexample_count, 1);
    ck_assert_int_eq(result.counterexample[0].kind, FAULT_DOUBLE_CLICK);
    free(scenario);
}
END_TEST

START_TEST(test_properties_read_the_outcomes)
{
    Scenario *scenario = load("c1_lost_answer", NULL, 0);
    Metrics metrics = {0};
    metrics.outcomes[OUTCOME_PHANTOM] = 1;
    ck_assert(!explore_violates(scenario, MODE_AT_MOST_ONCE, &metrics, EXPLORE_NO_DOUBLE));
    ck_assert(explore_violates(scenario, MODE_AT_MOST_ONCE, &metrics, EXPLORE_NO_PHANTOM));
    ck_assert(explore_violates(scenario, MODE_AT_MOST_ONCE, &metrics, EXPLORE_TOLD_MATCHES_LEDGER));
    metrics.outcomes[OUTCOME_PHANTOM] = 0;
    metrics.outcomes[OUTCOME_LOST] = 1;
    metrics.client_succeeded = 1; /* told success, never charged */
    ck_assert(explore_violates(scenario, MODE_AT_MOST_ONCE, &metrics, EXPLORE_TOLD_MATCHES_LEDGER));
    metrics.client_succeeded = 0; /* told nothing: the ledger and the client agree */
    ck_assert(
        !explore_violates(scenario, MODE_AT_MOST_ONCE, &metrics, EXPLORE_TOLD_MATCHES_LEDGER));
    ck_assert(explore_violates(scenario, MODE_AT_MOST_ONCE, &metrics, EXPLORE_NO_LOST));
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ the command */

START_TEST(test_a_written_counterexample_replays_byte_for_byte)
{
    char written[512];
    test_cli_in_scratch(written, "counterexample.json");
    const char *explore_args[] = {"explore",
                                  SCENARIOS "c7_check_then_insert.json",
                                  "--faults",
                                  "2",
                                  "--mode",
                                  "idempotent",
                                  "--write-counterexample",
                                  written,
                                  NULL};
    ck_assert_int_eq(test_cli_run(explore_args, out, err), 1);
    char *explored = test_cli_read_all(out, NULL);
    const char *story = strstr(explored, "idempotent: operation");
    ck_assert_ptr_nonnull(story);
    char explained_path[512];
    test_cli_in_scratch(explained_path, "explained");
    const char *explain_args[] = {"explain", written,      "--why", "double",
                                  "--mode",  "idempotent", NULL};
    ck_assert_int_eq(test_cli_run(explain_args, explained_path, err), 0);
    char *explained = test_cli_read_all(explained_path, NULL);
    ck_assert_str_eq(story, explained); /* the story explore told is the replay's, byte for byte */
    char json[512];
    test_cli_in_scratch(json, "report.json");
    const char *run_args[] = {"run", written, "--json", json, NULL};
    ck_assert_int_eq(test_cli_run(run_args, NULL, err), 0);
    char *report = test_cli_read_all(json, NULL);
    const char *idempotent = strstr(report, "\"idempotent\"");
    ck_assert_ptr_nonnull(idempotent);
    ck_assert_ptr_nonnull(strstr(idempotent, "\"double\": 1"));
    free(report);
    free(explained);
    free(explored);
}
END_TEST

START_TEST(test_the_output_does_not_depend_on_threads)
{
    char second[512];
    test_cli_in_scratch(second, "second");
    const char *one[] = {
        "explore", SCENARIOS "c11_crash_after_charge.json", "--faults", "3", "--threads", "1",
        NULL};
    const char *two[] = {
        "explore", SCENARIOS "c11_crash_after_charge.json", "--faults", "3", "--threads", "2",
        NULL};
    ck_assert_int_eq(test_cli_run(one, out, err), 1);
    ck_assert_int_eq(test_cli_run(two, second, err), 1);
    char *a = test_cli_read_all(out, NULL);
    char *b = test_cli_read_all(second, NULL);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_holding_exits_0)
{
    const char *args[] = {
        "explore", SCENARIOS "c7_atomic_reserve.json", "--faults", "3", "--mode", "idempotent",
        NULL};
    ck_assert_int_eq(test_cli_run(args, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "idempotent: holds: 0 of "));
    free(printed);
}
END_TEST

/* ------------------------------------------------------------------ limits */

START_TEST(test_a_large_world_is_refused_with_advice)
{
    const char *args[] = {"explore", SCENARIOS "c1_lost_answer.json", "--set",
                          "clients[0].count=20", NULL};
    ck_assert_int_eq(test_cli_run(args, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "20 operations; explore takes worlds of at most 8"));
    free(printed);
}
END_TEST

START_TEST(test_a_gilbert_elliott_link_is_refused)
{
    const char *args[] = {"explore", SCENARIOS "c1_lost_answer.json", "--set",
                          "network.default.loss={\"model\": \"gilbert-elliott\", \"p\": 0.1, "
                          "\"r\": 0.5, \"h\": 0.5, \"k\": 1}",
                          NULL};
    ck_assert_int_eq(test_cli_run(args, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "$.network: a Gilbert-Elliott link's losses"));
    free(printed);
}
END_TEST

START_TEST(test_usage_errors_exit_2)
{
    const char *faults[] = {"explore", SCENARIOS "c1_lost_answer.json", "--faults", "9", NULL};
    const char *property[] = {"explore", SCENARIOS "c1_lost_answer.json", "--property", "nope",
                              NULL};
    const char *json[] = {"explore", SCENARIOS "c1_lost_answer.json", "--json", "x.json", NULL};
    ck_assert_int_eq(test_cli_run(faults, out, err), 2);
    ck_assert_int_eq(test_cli_run(json, out, err), 2);
    ck_assert_int_eq(test_cli_run(property, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "--property expects no-double"));
    free(printed);
}
END_TEST

START_TEST(test_malformed_faults_are_refused_with_their_path)
{
    const char *overrides[][1] = {
        {"faults=[{\"fault\": \"loss\", \"operation\": 0, \"by_ms\": 5}]"},
        {"faults=[{\"fault\": \"delay\", \"operation\": 0}]"},
        {"faults=[{\"fault\": \"lose\", \"operation\": 0}]"},
        {"faults=[{\"fault\": \"double-click\", \"operation\": 0, \"copy\": 2}]"},
    };
    const char *paths[] = {"$.faults[0].by_ms", "$.faults[0]", "$.faults[0].fault",
                           "$.faults[0].copy"};
    for (unsigned i = 0; i < 4; i++) {
        Scenario *scenario = malloc(sizeof *scenario);
        LoadErrors *errors = malloc(sizeof *errors);
        ck_assert(!scenario_load_file(SCENARIOS "c1_lost_answer.json", overrides[i], 1, scenario,
                                      errors));
        ck_assert_str_eq(errors->items[0].path, paths[i]);
        free(errors);
        free(scenario);
    }
}
END_TEST

START_TEST(test_run_says_which_listed_fault_happened_nowhere)
{
    const char *args[] = {"run",
                          SCENARIOS "c1_lost_answer.json",
                          "--quiet",
                          "--set",
                          "faults=[{\"fault\": \"loss\", \"operation\": 0, \"attempt\": 1, "
                          "\"hop\": \"response\", \"copy\": 4}, {\"fault\": \"loss\", "
                          "\"operation\": 9, \"attempt\": 1}]",
                          NULL};
    ck_assert_int_eq(test_cli_run(args, out, err), 0);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_null(strstr(printed, "$.faults[0]"));
    ck_assert_ptr_nonnull(strstr(printed, "$.faults[1]: warning: met in no mode"));
    free(printed);
}
END_TEST

START_TEST(test_an_empty_list_runs_without_random_faults)
{
    const char *overrides[] = {"faults=[]", "network.default.loss=0.9"};
    Scenario *scenario = load("c1_lost_answer", overrides, 2);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed, (TraceSink){0},
                                (WorldLimits){0});
    world_run(world);
    ck_assert_uint_eq(world_metrics(world)->network_dropped, 0);
    ck_assert_uint_eq(world_metrics(world)->outcomes[OUTCOME_OK], 1);
    uint32_t count = 0, overflow = 0;
    ck_assert_ptr_nonnull(world_fault_points(world, &count, &overflow));
    ck_assert_uint_eq(count, 2); /* the request and its answer */
    world_destroy(world);
    free(scenario);
}
END_TEST

static Suite *explore_suite(void)
{
    Suite *suite = suite_create("explore");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120); /* each takes well under a second; guards against a hang */
    tcase_add_test(core, test_c1_at_least_once_doubles_with_one_lost_answer);
    tcase_add_test(core, test_c1_at_most_once_and_idempotent_never_double_with_three_faults);
    tcase_add_test(core, test_c7_atomic_reserve_never_doubles_with_three_faults);
    tcase_add_test(core, test_c7_check_then_insert_doubles_with_one_duplicate_in_the_window);
    tcase_add_test(core, test_c11_one_fault_after_the_charge_doubles_even_with_keys);
    tcase_add_test(core, test_c13_a_double_click_doubles_per_click_keys_not_business_hash);
    tcase_add_test(core, test_c15_a_retrying_proxy_doubles_without_keys_only);
    tcase_add_test(core, test_c1_with_a_short_ttl_doubles_with_a_lost_answer_and_a_lost_retry);
    tcase_add_test(core, test_an_architecture_in_the_services_form_is_explored);
    tcase_add_test(core, test_c28_a_refund_retried_under_a_new_key_refunds_twice_with_two_faults);
    tcase_add_test(core, test_c28_a_late_refund_is_as_late_as_the_refunds_own_timeout);
    tcase_add_test(core, test_a_late_ack_is_as_late_as_a_channels_consumer_timeout);
    tcase_add_test(core, test_a_consumer_timeout_longer_than_the_run_makes_no_delay_that_late);
    tcase_add_test(core, test_a_late_republish_is_as_late_as_the_brokers_dedup_window);
    tcase_add_test(core, test_a_late_receipt_is_as_late_as_the_outbox_relay);
    tcase_add_test(core, test_a_late_status_answer_is_as_late_as_reconciliation);
    tcase_add_test(core, test_a_late_copy_is_as_late_as_every_reached_stores_lock_timeout);
    tcase_add_test(core, test_results_do_not_depend_on_the_thread_count);
    tcase_add_test(core, test_each_set_of_faults_is_run_once);
    tcase_add_test(core, test_sampling_finds_and_shrinks_the_single_fault);
    tcase_add_test(core, test_properties_read_the_outcomes);
    tcase_add_test(core, test_a_written_counterexample_replays_byte_for_byte);
    tcase_add_test(core, test_the_output_does_not_depend_on_threads);
    tcase_add_test(core, test_holding_exits_0);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, test_a_large_world_is_refused_with_advice);
    tcase_add_test(limits, test_a_gilbert_elliott_link_is_refused);
    tcase_add_test(limits, test_usage_errors_exit_2);
    tcase_add_test(limits, test_malformed_faults_are_refused_with_their_path);
    tcase_add_test(limits, test_an_empty_list_runs_without_random_faults);
    tcase_add_test(limits, test_run_says_which_listed_fault_happened_nowhere);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(explore_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
