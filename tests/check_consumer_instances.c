/* A consumer group's instances (issue 21): each instance is a process with its own workers,
 * prefetched buffer, crashes and restarts, and with placement "per-instance" its own keys.
 * The broker hands each delivery to the next instance in turn that is up and has room. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define PAYMENTS 200

/* 20 clients publish 10 orders each, at once, to a queue the workers drain slowly: the queue
 * stays backed up, so every instance holds as much as it may. */
#define BACKED_UP(broker_fields, consumer_fields)                                                  \
    "{\"seed\": 5, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"prefetch\": 1, " broker_fields "},"           \
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                  \
    "    \"key_store\": \"keys\", \"service_ms\": {\"dist\": \"const\", \"value\": 100},"          \
    "    " consumer_fields "},"                                                                    \
    "   {\"id\": \"keys\", \"kind\": \"key_store\"}],"                                             \
    " \"clients\": [{\"id\": \"shop\", \"count\": 20, \"publishes\": \"orders\","                  \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 10, \"interval_ms\": 10},"                                         \
    "   \"retry\": {\"timeout_ms\": 60000, \"max_attempts\": 1}}],"                                \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 1}}}"
#define VISIBILITY "\"family\": \"visibility-timeout\", \"ack_timeout_ms\": 600000"
#define CHANNEL "\"family\": \"channel\""
#define TWO_WORKERS "\"workers\": 2"

/* BACKED_UP with consumer fields known only at run time (a crash object). */
static void backed_up(char *text, size_t size, const char *broker_fields,
                      const char *consumer_fields)
{
    char format[8192];
    snprintf(format, sizeof format, "%s", BACKED_UP("%s", "%s"));
    snprintf(text, size, format, broker_fields, consumer_fields);
}

static double metric(const Metrics *metrics, const char *name)
{
    double value = -1;
    ck_assert_msg(metrics_value(metrics, name, &value), "%s", name);
    return value;
}

/* Each instance holds workers x prefetch unacknowledged deliveries: three instances of two
 * workers hold six at once, one instance two. */
START_TEST(test_each_instance_holds_its_own_prefetch)
{
    Metrics one = test_run_text(BACKED_UP(VISIBILITY, TWO_WORKERS), MODE_AT_LEAST_ONCE);
    Metrics three =
        test_run_text(BACKED_UP(VISIBILITY, TWO_WORKERS ", \"instances\": 3"), MODE_AT_LEAST_ONCE);
    ck_assert_double_eq(metric(&one, "in_flight_peak"), 2);
    ck_assert_double_eq(metric(&three, "in_flight_peak"), 6);
    ck_assert_uint_eq(three.effects, PAYMENTS);
}
END_TEST

/* The broker deals the deliveries out in turn: with equal instances and a constant handling
 * time each instance receives a third, and every one is counted at one instance. */
START_TEST(test_deliveries_are_dealt_in_turn)
{
    Metrics three =
        test_run_text(BACKED_UP(VISIBILITY, TWO_WORKERS ", \"instances\": 3"), MODE_AT_LEAST_ONCE);
    double received[3];
    double sum = 0;
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "workers#%d", i + 1);
        received[i] = test_service_value(&three, name, "received");
        sum += received[i];
    }
    ck_assert_double_eq(sum, three.deliveries);
    ck_assert_double_eq(test_service_value(&three, "workers", "received"), three.deliveries);
    for (int i = 0; i < 3; i++)
        ck_assert_double_le(fabs(received[i] - PAYMENTS / 3.0), 1.0);
}
END_TEST

/* A crash closes the crashed instance's channel only: each of the two instances crashes
 * once, after its first run, holding one delivery (one worker, prefetch 1), and each closure
 * requeues exactly that one. Closing every channel would requeue the other's too. */
START_TEST(test_a_crash_requeues_only_its_instance)
{
    const char *crash = "\"instances\": 2, \"workers\": 1,"
                        " \"crash\": {\"point\": \"after-effect\", \"prob\": 1,"
                        " \"max_crashes\": 1, \"restart_ms\": 1000}";
    char text[8192];
    backed_up(text, sizeof text, CHANNEL, crash);
    Metrics least = test_run_text(text, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(least.crashes, 2);
    ck_assert_double_eq(test_service_value(&least, "workers#1", "crashes"), 1);
    ck_assert_double_eq(test_service_value(&least, "workers#2", "crashes"), 1);
    ck_assert_uint_eq(least.channel_closures, 2);
    ck_assert_uint_eq(least.redeliveries, 2);
    ck_assert_uint_eq(least.operations, PAYMENTS);
    ck_assert_uint_eq(least.outcomes[OUTCOME_LOST], 0);
}
END_TEST

/* The lesson of sqs_workers_memory_dedupe: a copy the queue makes visible again while its
 * first run is still working goes to another instance. Keys in each instance's memory do not
 * know it there, and it runs again; one store every instance consults finds it processing,
 * and later completed, and no payment is debited twice. */
START_TEST(test_keys_per_instance_miss_a_copy_at_another)
{
    const char *path = "scenarios/architectures/sqs_workers_memory_dedupe.json";
    const char *shared[] = {"services.worker-keys.placement=shared"};
    Scenario *apart = test_load_source_file(path, NULL, 0);
    Scenario *together = test_load_source_file(path, shared, 1);
    Metrics per_instance = test_run_mode(apart, MODE_IDEMPOTENT, apart->seed);
    Metrics one_store = test_run_mode(together, MODE_IDEMPOTENT, together->seed);
    ck_assert_uint_gt(per_instance.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(one_store.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(one_store.consumer_replayed, 0);
    ck_assert_uint_eq(one_store.outcomes[OUTCOME_LOST], 0);
    free(together);
    free(apart);
}
END_TEST

/* With one instance the placement changes nothing: its store is that instance's either way. */
START_TEST(test_one_instance_keeps_one_store_either_way)
{
    const char *path = "scenarios/architectures/sqs_workers_memory_dedupe.json";
    const char *per_instance[] = {"services.workers.instances=1"};
    const char *shared[] = {"services.workers.instances=1",
                            "services.worker-keys.placement=shared"};
    Scenario *apart = test_load_source_file(path, per_instance, 1);
    Scenario *together = test_load_source_file(path, shared, 2);
    Metrics a = test_run_mode(apart, MODE_IDEMPOTENT, apart->seed);
    Metrics b = test_run_mode(together, MODE_IDEMPOTENT, together->seed);
    ck_assert_uint_eq(a.effects, b.effects);
    ck_assert_uint_eq(a.outcomes[OUTCOME_DOUBLE], b.outcomes[OUTCOME_DOUBLE]);
    ck_assert_uint_eq(a.consumer_replayed, b.consumer_replayed);
    ck_assert_uint_eq(a.redeliveries, b.redeliveries);
    free(together);
    free(apart);
}
END_TEST

/* An instance's crash wipes its own store (placement "per-instance", not durable), never the
 * one its instances share. Each of the two instances crashes once, right after recording its
 * first run's key and before the ack: the delivery comes back and meets, in the shared store,
 * its completed key (replayed), and in the instances' own stores no key (run again). */
START_TEST(test_a_crash_wipes_only_an_instance_s_own_store)
{
    const char *crash = "\"instances\": 2, \"workers\": 1,"
                        " \"crash\": {\"point\": \"after-completion\", \"prob\": 1,"
                        " \"max_crashes\": 1, \"restart_ms\": 1000}";
    char text[8192];
    backed_up(text, sizeof text, VISIBILITY, crash);
    const char *own[] = {"services.keys.placement=per-instance", "services.keys.durable=false"};
    const char *one[] = {"services.keys.durable=false"};
    Metrics apart = test_run_json(text, own, 2, MODE_IDEMPOTENT);
    Metrics together = test_run_json(text, one, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(together.crashes, 2);
    ck_assert_uint_eq(together.redeliveries, 2);
    ck_assert_uint_eq(together.consumer_replayed, 2);
    ck_assert_uint_eq(together.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(apart.crashes, 2);
    ck_assert_uint_eq(apart.consumer_replayed, 0);
    ck_assert_uint_eq(apart.outcomes[OUTCOME_DOUBLE], 2);
}
END_TEST

/* C21's log as services, with three consumer instances sharing the log's 8 partitions. */
#define C21_INSTANCES "services.consumers.instances=3"

static Metrics run_c21(const char *placement, Mode mode)
{
    const char *overrides[] = {C21_INSTANCES, placement};
    Scenario *older = test_load_source_file("scenarios/21_kafka_rebalance_replay.json", NULL, 0);
    char *shown = scenario_show(older);
    Metrics metrics = test_run_json(shown, overrides, 2, mode);
    free(shown);
    free(older);
    return metrics;
}

/* On a log each partition is consumed by one instance, in turn from the instances that are
 * up: every instance runs records, each partition's in order. A crash deals the partitions
 * again among the others (a rebalance: the crashed instance's go back to their committed
 * offset), and the restart deals it a share again (another). With one store the instances
 * share, the replayed records are replayed from it; with keys in each instance's memory, a
 * record replayed on another instance runs again. Nothing is lost either way. */
START_TEST(test_a_log_deals_its_partitions_to_the_instances)
{
    Metrics shared = run_c21("services.consumers-keys.placement=shared", MODE_IDEMPOTENT);
    Metrics apart = run_c21("services.consumers-keys.placement=per-instance", MODE_IDEMPOTENT);
    for (int i = 1; i <= 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "consumers#%d", i);
        ck_assert_double_gt(test_service_value(&shared, name, "runs"), 0);
    }
    ck_assert_uint_eq(shared.crashes, apart.crashes);
    ck_assert_uint_eq(shared.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(shared.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_gt(shared.consumer_replayed, 0);
    ck_assert_uint_gt(apart.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(apart.outcomes[OUTCOME_LOST], 0);
}
END_TEST

/* An instance's crash on a log rebalances once, its restart once more (it joins a group
 * whose other instances hold the partitions); with one instance the restart takes the
 * partitions back without a rebalance, as before instances existed. */
START_TEST(test_a_crash_and_its_restart_each_rebalance)
{
    const char *one[] = {"services.consumers.crash.max_crashes=1",
                         "services.broker.rebalance_every_ms=0"};
    const char *three[] = {"services.consumers.crash.max_crashes=1",
                           "services.broker.rebalance_every_ms=0", C21_INSTANCES};
    Scenario *older = test_load_source_file("scenarios/21_kafka_rebalance_replay.json", NULL, 0);
    char *shown = scenario_show(older);
    Metrics single = test_run_json(shown, one, 2, MODE_AT_LEAST_ONCE);
    Metrics several = test_run_json(shown, three, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(single.rebalances, single.crashes);
    ck_assert_uint_eq(several.rebalances, 2 * several.crashes);
    ck_assert_uint_gt(several.crashes, 0);
    free(shown);
    free(older);
}
END_TEST

/* A visibility-timeout queue keeps what a crashed process had received invisible until its
 * ack timeout (here 10 minutes), but the process that restarts is a new poller with all its
 * workers free: the backed-up queue is drained within seconds of the restart, not after the
 * dead process's deliveries time out. */
START_TEST(test_a_restarted_poller_has_room_at_once)
{
    const char *crash = "\"workers\": 2, \"crash\": {\"point\": \"after-effect\", \"prob\": 1,"
                        " \"max_crashes\": 1, \"restart_ms\": 1000}";
    char text[8192];
    backed_up(text, sizeof text, VISIBILITY, crash);
    Scenario *scenario = test_load(text, NULL, 0);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed, (TraceSink){0},
                                (WorldLimits){0});
    world_run_until(world, sim_time_us_from_ms(60000));
    const Metrics *metrics = world_metrics(world);
    ck_assert_uint_eq(metrics->crashes, 1);
    ck_assert_uint_eq(metrics->redeliveries, 0); /* the lost deliveries are not due yet */
    ck_assert_uint_ge(metrics->effects, PAYMENTS - 2);
    world_destroy(world);
    free(scenario);
}
END_TEST

/* A record out at an instance when a restart's rebalance gives its partition to another
 * owner is still that instance's: when the instance then crashes, the record died with it
 * and its partition goes back to the committed offset, whoever owns it now, so the record is
 * handed out again (it was once lost: seed 90 of the shared store's variant). */
START_TEST(test_a_record_that_dies_with_its_instance_is_handed_out_again)
{
    const char *shared[] = {"services.consumer-keys.placement=shared"};
    Scenario *scenario = test_load_source_file(
        "scenarios/architectures/kafka_consumers_memory_dedupe.json", shared, 1);
    for (uint64_t seed = 85; seed < 95; seed++) {
        Metrics least = test_run_mode(scenario, MODE_AT_LEAST_ONCE, seed);
        Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, seed);
        ck_assert_msg(least.outcomes[OUTCOME_LOST] == 0, "seed %" PRIu64, seed);
        ck_assert_msg(keyed.outcomes[OUTCOME_LOST] == 0, "seed %" PRIu64, seed);
        ck_assert_msg(keyed.outcomes[OUTCOME_DOUBLE] == 0, "seed %" PRIu64, seed);
    }
    free(scenario);
}
END_TEST

/* A delivery handed to a process that crashes, arriving after its restart (the network
 * takes 50 ms, the restart 1 ms), is not taken by the new process: its channel closed with
 * the crash, which requeued the message, and the message comes again on the new channel
 * (here at once, before the old copy arrives: the check once read the message's latest
 * delivery, which then no longer was the old copy's, and took it). Each such copy is refused
 * on arrival, and none is run. */
#define COPIES_MAX 4096

typedef struct {
    SimTimeUs crashed_us, restarted_us; /* the consumers' last crash and restart */
    struct {
        uint64_t operation, copy;
        SimTimeUs sent_us;
    } sent[COPIES_MAX]; /* the deliveries sent so far */
    uint32_t sent_count;
    uint64_t stale_operation, stale_copy; /* a copy sent before the crash, just arrived */
    uint32_t refused, taken;              /* such copies refused, and run */
} PreviousLives;

static SimTimeUs sent_at(const PreviousLives *lives, const TraceRecord *record)
{
    for (uint32_t i = lives->sent_count; i-- > 0;) {
        if (lives->sent[i].operation == record->operation && lives->sent[i].copy == record->copy)
            return lives->sent[i].sent_us;
    }
    return SIM_TIME_NEVER;
}

static void note_previous_lives(void *context, const TraceRecord *record)
{
    PreviousLives *lives = context;
    bool stale = lives->stale_copy != 0 && record->operation == lives->stale_operation &&
                 record->copy == lives->stale_copy;
    if (stale && record->event == TRACE_REFUSED_DOWN)
        lives->refused++;
    else if (stale && record->event != TRACE_DELIVER)
        lives->taken++;
    if (stale && record->event != TRACE_DELIVER)
        lives->stale_copy = 0;
    if (record->event == TRACE_CRASH) {
        lives->crashed_us = record->t_us;
    } else if (record->event == TRACE_RESTART) {
        lives->restarted_us = record->t_us;
    } else if (record->event == TRACE_TRANSMIT && record->message == MESSAGE_DELIVERY &&
               lives->sent_count < COPIES_MAX) {
        lives->sent[lives->sent_count].operation = record->operation;
        lives->sent[lives->sent_count].copy = record->copy;
        lives->sent[lives->sent_count++].sent_us = record->t_us;
    } else if (record->event == TRACE_DELIVER && record->message == MESSAGE_DELIVERY &&
               lives->restarted_us > lives->crashed_us &&
               sent_at(lives, record) < lives->crashed_us) {
        lives->stale_operation = record->operation;
        lives->stale_copy = record->copy;
    }
}

START_TEST(test_a_delivery_to_a_previous_life_is_not_taken)
{
    const char *crash = "\"workers\": 2, \"crash\": {\"point\": \"before-effect\", \"prob\": 0.05,"
                        " \"max_crashes\": 5, \"restart_ms\": 1}";
    char text[8192];
    backed_up(text, sizeof text, CHANNEL, crash);
    /* four shops, an order each 400 ms: the queue is all but empty, so a requeued message is
     * handed out again at the restart, before its old copy arrives */
    const char *uneven[] = {"network.default.delay_ms=50",
                            "services.orders.prefetch=10",
                            "clients.shop.count=4",
                            "clients.shop.workload.ops=50",
                            "clients.shop.workload.interval_ms=400",
                            ("services.workers.service_ms={\"dist\": \"uniform\", \"min\": 20,"
                             " \"max\": 180}")};
    Scenario *scenario = test_load(text, uneven, 6);
    PreviousLives *lives = calloc(1, sizeof *lives);
    World *world =
        world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                     (TraceSink){.write = note_previous_lives, .context = lives}, (WorldLimits){0});
    world_run(world);
    ck_assert_uint_gt(world_metrics(world)->crashes, 1);
    ck_assert_uint_gt(lives->refused, 0);
    ck_assert_uint_eq(lives->taken, 0);
    world_destroy(world);
    free(lives);
    free(scenario);
}
END_TEST

/* A log's record whose output a transaction holds (C37, read_committed): the report of a
 * run a rebalance or a crash made stale is refused, and aborts that run's transaction only,
 * never the one the record's replay opened since. Aborting the replay's lost the record: a
 * stale delivery reaching a restarted process (seed 4), or a slow report reaching the broker
 * after the record's new owner ran it (seed 11, two instances). */
START_TEST(test_a_stale_report_aborts_only_its_own_transaction)
{
    Scenario *older = test_load_source_file("scenarios/37_kafka_transactions.json", NULL, 0);
    char *shown = scenario_show(older);
    const char *crashing[] = {"services.consumers.crash.point=\"before-effect\"",
                              "services.consumers.crash.prob=0.02",
                              "services.consumers.crash.max_crashes=5",
                              "services.consumers.crash.restart_ms=1",
                              "network.links.broker->consumers.delay_ms=50",
                              "network.links.consumers->broker.delay_ms=50",
                              "services.consumers.instances=1"};
    Scenario *slow_both = test_load(shown, crashing, 7);
    Metrics a = test_run_mode(slow_both, MODE_AT_LEAST_ONCE, 4);
    ck_assert_uint_eq(a.outcomes[OUTCOME_LOST], 0);
    crashing[4] = "network.links.broker->consumers.delay_ms=1";
    crashing[5] = "network.links.consumers->broker.delay_ms=60";
    crashing[6] = "services.consumers.instances=2";
    Scenario *slow_reports = test_load(shown, crashing, 7);
    Metrics b = test_run_mode(slow_reports, MODE_AT_LEAST_ONCE, 11);
    ck_assert_uint_eq(b.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_gt(b.transactions_aborted, 0);
    free(slow_reports);
    free(slow_both);
    free(shown);
    free(older);
}
END_TEST

/* ------------------------------------------------------------------ the loader */

START_TEST(test_instances_are_the_services_form_s)
{
    const char *older = "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
                        " \"broker\": {\"consumers\": {\"instances\": 2}},"
                        " \"clients\": [{\"id\": \"shop\", \"target\": \"broker\"}]}";
    test_assert_refused(older, NULL, 0, "$.broker.consumers.instances",
                        "expected 1, the older form's one process (got 2)");
    const char *nine[] = {"services.workers.instances=9"};
    test_assert_refused(BACKED_UP(VISIBILITY, TWO_WORKERS), nine, 1, "$.services[1].instances",
                        "expected");
    const char *lag[] = {"services.keys.placement=per-instance",
                         "services.keys.replication_lag_ms=100"};
    test_assert_refused(BACKED_UP(VISIBILITY, TWO_WORKERS), lag, 2,
                        "$.services[2].replication_lag_ms", "has no replica");
}
END_TEST

/* Each instance is a node "<id>#<n>" after every other node, which METRIC@SERVICE names. */
START_TEST(test_each_instance_is_a_node)
{
    Scenario *scenario = test_load(BACKED_UP(CHANNEL, TWO_WORKERS ", \"instances\": 3"), NULL, 0);
    ScenarioNode nodes[SCENARIO_NODES_MAX];
    unsigned count = scenario_service_nodes(scenario, nodes);
    const char *names[] = {"workers#1", "workers#2", "workers#3"};
    unsigned found = 0;
    for (unsigned i = 0; i < count; i++) {
        if (nodes[i].kind != NODE_CONSUMERS)
            continue;
        ck_assert_str_eq(nodes[i].name, names[found]);
        ck_assert_uint_eq(nodes[i].instance, found);
        ck_assert_uint_eq(nodes[i].instance_count, 3);
        found++;
    }
    ck_assert_uint_eq(found, 3);
    ck_assert_uint_eq(nodes[count - 1].kind, NODE_CONSUMERS); /* appended last */
    ck_assert(scenario_service_name_known(scenario, "workers#2"));
    ck_assert(scenario_service_name_known(scenario, "workers"));
    free(scenario);
}
END_TEST

/* Show writes the instances and the store's placement only when there are several or they
 * are per instance (other scenarios show as they were), and reads them back. */
START_TEST(test_show_keeps_the_instances)
{
    const char *own[] = {"services.keys.placement=per-instance"};
    Scenario *plain = test_load(BACKED_UP(CHANNEL, TWO_WORKERS), NULL, 0);
    char *plain_text = scenario_show(plain);
    ck_assert_ptr_null(strstr(plain_text, "\"instances\": 1,\n      \"workers\": 2"));
    Scenario *scenario = test_load(BACKED_UP(CHANNEL, TWO_WORKERS ", \"instances\": 3"), own, 1);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"instances\": 3"));
    ck_assert_ptr_nonnull(strstr(shown, "\"placement\": \"per-instance\""));
    ck_assert_uint_eq(again->broker.consumers.instances, 3);
    ck_assert_uint_eq(again->broker.consumers.idempotency.placement, PLACEMENT_PER_INSTANCE);
    free(again);
    free(shown);
    free(scenario);
    free(plain_text);
    free(plain);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("consumer_instances");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_each_instance_holds_its_own_prefetch);
    tcase_add_test(model, test_deliveries_are_dealt_in_turn);
    tcase_add_test(model, test_a_crash_requeues_only_its_instance);
    tcase_add_test(model, test_keys_per_instance_miss_a_copy_at_another);
    tcase_add_test(model, test_one_instance_keeps_one_store_either_way);
    tcase_add_test(model, test_a_crash_wipes_only_an_instance_s_own_store);
    tcase_add_test(model, test_a_log_deals_its_partitions_to_the_instances);
    tcase_add_test(model, test_a_restarted_poller_has_room_at_once);
    tcase_add_test(model, test_a_delivery_to_a_previous_life_is_not_taken);
    tcase_add_test(model, test_a_stale_report_aborts_only_its_own_transaction);
    tcase_add_test(model, test_a_record_that_dies_with_its_instance_is_handed_out_again);
    tcase_add_test(model, test_a_crash_and_its_restart_each_rebalance);
    suite_add_tcase(suite, model);
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_instances_are_the_services_form_s);
    tcase_add_test(loader, test_each_instance_is_a_node);
    tcase_add_test(loader, test_show_keeps_the_instances);
    suite_add_tcase(suite, loader);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
