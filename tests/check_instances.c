/* Instances and balancing (issue 21, step 3): a server of several instances behind a
 * balancer, each with its own workers, queue, crashes and memory; its key store shared by
 * every instance or kept per instance, read from the primary or from a lagging replica.
 * The refusals are in the bad-input corpus (tests/bad_scenarios/instances_*.json). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "test_world.h"
#include "world.h"

/* One client paying in turn, so one request is in flight at a time: a balancer's pick for
 * a retry is then the only thing that decides where it lands. The answers back to the
 * client are lost one time in four; nothing else fails. */
#define ONE_CLIENT_WORLD(server_extra, store_extra)                                                \
    "{\"seed\": 3, \"duration_ms\": 60000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 2,"     \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 10} " server_extra "},"                  \
    "   {\"id\": \"keys\", \"kind\": \"key_store\" " store_extra "}],"                             \
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"calls\": \"checkout\","                      \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 60, \"interval_ms\": 900},"                                        \
    "   \"retry\": {\"timeout_ms\": 400, \"max_attempts\": 6,"                                     \
    "     \"backoff\": {\"base_ms\": 10, \"factor\": 1, \"max_ms\": 10, \"jitter\": \"none\"}},"   \
    "   \"key\": \"per-click\"}],"                                                                 \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5},"                                  \
    "   \"links\": {\"checkout->app\": {\"loss\": 0.25}}}}"

/* Counts, by node, the executions the trace shows (a handler run at that instance). */
typedef struct {
    uint32_t executions[16];
    uint32_t crashes[16];
} PerNode;

static void count_per_node(void *context, const TraceRecord *record)
{
    PerNode *counts = context;
    if (record->actor >= 16)
        return;
    if (record->event == TRACE_EXECUTE)
        counts->executions[record->actor]++;
    if (record->event == TRACE_CRASH)
        counts->crashes[record->actor]++;
}

START_TEST(test_instances_are_nodes_of_one_service)
{
    Scenario *one = test_load(ONE_CLIENT_WORLD("", ""), NULL, 0);
    Scenario *three = test_load(ONE_CLIENT_WORLD(", \"instances\": 3", ""), NULL, 0);
    World *a = world_create(one, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    World *b = world_create(three, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    ck_assert_uint_eq(world_node_count(b), world_node_count(a) + 2);
    /* the nodes of one instance keep their ids; the other instances come after them all */
    for (uint32_t n = 0; n < world_node_count(a); n++) {
        ck_assert_int_eq(world_node(a, n)->kind, world_node(b, n)->kind);
        ck_assert_str_eq(world_node(a, n)->service, world_node(b, n)->service);
    }
    uint32_t server = world_node_of_kind(b, NODE_SERVER);
    ck_assert_str_eq(world_node_name(a, server), "checkout");
    ck_assert_str_eq(world_node_name(b, server), "checkout#1");
    ck_assert_str_eq(world_node_name(b, world_node_count(a)), "checkout#2");
    ck_assert_str_eq(world_node_name(b, world_node_count(a) + 1), "checkout#3");
    for (uint32_t i = 0; i < 3; i++) {
        const WorldNode *node = world_node(b, i == 0 ? server : world_node_count(a) + i - 1);
        ck_assert_int_eq(node->kind, NODE_SERVER);
        ck_assert_uint_eq(node->actor, i);
        ck_assert_uint_eq(node->instance_count, 3);
        ck_assert_str_eq(node->service, "checkout");
    }
    world_destroy(a);
    world_destroy(b);
    free(one);
    free(three);
}
END_TEST

START_TEST(test_one_instance_written_out_is_the_same_world)
{
    for (Mode mode = 0; mode < MODE_COUNT; mode++) {
        Metrics plain = test_run_text(ONE_CLIENT_WORLD("", ""), mode);
        Metrics explicit = test_run_text(
            ONE_CLIENT_WORLD(", \"instances\": 1, \"balancer\": \"random\"",
                             ", \"placement\": \"per-instance\", \"reads\": \"primary\""),
            mode);
        ck_assert_msg(memcmp(&plain, &explicit, sizeof plain) == 0, "metrics differ in %s",
                      mode_name(mode));
    }
}
END_TEST

/* Round-robin deals the requests out in turn: with no failure at all, each of three
 * instances runs a third of the payments. */
START_TEST(test_round_robin_deals_requests_in_turn)
{
    const char *json =
        "{\"seed\": 1, \"duration_ms\": 20000,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
        " \"services\": [{\"id\": \"checkout\", \"kind\": \"server\", \"instances\": 3,"
        "   \"key_store\": \"keys\"}, {\"id\": \"keys\", \"kind\": \"key_store\"}],"
        " \"clients\": [{\"id\": \"app\", \"count\": 10, \"calls\": \"checkout\","
        "   \"workload\": {\"ops\": 30, \"interval_ms\": 100}}],"
        " \"network\": {\"default\": {\"loss\": 0}}}";
    Scenario *scenario = test_load(json, NULL, 0);
    PerNode counts = {0};
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, 1,
                                (TraceSink){count_per_node, &counts}, (WorldLimits){0});
    world_run(world);
    uint32_t total = 0;
    for (uint32_t n = 0; n < world_node_count(world); n++) {
        if (world_node(world, n)->kind != NODE_SERVER)
            continue;
        ck_assert_uint_eq(counts.executions[n], 100);
        total += counts.executions[n];
    }
    ck_assert_uint_eq(total, 300);
    world_destroy(world);
    free(scenario);
}
END_TEST

/* One request in flight at a time and two instances in turn: a retry always lands on the
 * instance that did not run the first attempt. With keys in each instance's memory, every
 * lost answer is charged again, as in at-least-once; with one key hashed to one instance,
 * or with one shared store, none is. */
START_TEST(test_keys_per_instance_miss_every_retry_round_robin_sends_elsewhere)
{
    const char *per_instance = ONE_CLIENT_WORLD(", \"instances\": 2, \"balancer\": \"round-robin\"",
                                                ", \"placement\": \"per-instance\"");
    Metrics keyed = test_run_text(per_instance, MODE_IDEMPOTENT);
    Metrics unkeyed = test_run_text(per_instance, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(unkeyed.outcomes[OUTCOME_DOUBLE], 3);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], unkeyed.outcomes[OUTCOME_DOUBLE]);

    Metrics hashed =
        test_run_text(ONE_CLIENT_WORLD(", \"instances\": 2, \"balancer\": \"key-hash\"",
                                       ", \"placement\": \"per-instance\""),
                      MODE_IDEMPOTENT);
    ck_assert_uint_eq(hashed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(hashed.replayed, 3);

    Metrics shared = test_run_text(ONE_CLIENT_WORLD(", \"instances\": 2", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(shared.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(shared.replayed, hashed.replayed);
}
END_TEST

/* Every execution crashes its instance after completing (its answer never leaves), so every
 * payment is retried. A store that is not durable and lives in the instance's memory dies
 * with it: the retry runs again. A store the instances share lives outside them: the retry
 * is replayed, durable or not. */
START_TEST(test_a_crash_wipes_only_a_store_the_instance_owns)
{
#define CRASH_EVERY_FIRST                                                                          \
    ", \"instances\": 2, \"crash\": {\"point\": \"after-completion\", \"prob\": 1,"                \
    " \"restart_ms\": 50}"
    Metrics shared =
        test_run_text(ONE_CLIENT_WORLD(CRASH_EVERY_FIRST, ", \"durable\": false"), MODE_IDEMPOTENT);
    ck_assert_uint_gt(shared.crashes, 10);
    ck_assert_uint_eq(shared.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_ge(shared.replayed, shared.crashes);

    Metrics own =
        test_run_text(ONE_CLIENT_WORLD(CRASH_EVERY_FIRST,
                                       ", \"placement\": \"per-instance\", \"durable\": false"),
                      MODE_IDEMPOTENT);
    ck_assert_uint_gt(own.outcomes[OUTCOME_DOUBLE], 10);

    Metrics single =
        test_run_text(ONE_CLIENT_WORLD(", \"crash\": {\"point\": \"after-completion\", \"prob\": 1,"
                                       " \"restart_ms\": 50}",
                                       ", \"durable\": false"),
                      MODE_IDEMPOTENT);
    ck_assert_uint_gt(single.outcomes[OUTCOME_DOUBLE], 10); /* its own memory store: wiped */
#undef CRASH_EVERY_FIRST
}
END_TEST

/* Each instance crashes before the effect of one run in five and stays down 2 s: the
 * balancer keeps picking a down instance. Told that the connection is refused, it sends the
 * request to the other instance instead; the refusals left are the requests already on
 * their way when an instance went down. */
typedef struct {
    uint32_t refused;             /* requests that met a down instance */
    uint32_t refused_with_one_up; /* of them, while an instance was up */
    bool down[16];                /* by node, from the crash and restart records */
} Refusals;

static void count_refusals(void *context, const TraceRecord *record)
{
    Refusals *refusals = context;
    if (record->actor >= 16)
        return;
    if (record->event == TRACE_CRASH || record->event == TRACE_RESTART)
        refusals->down[record->actor] = record->event == TRACE_CRASH;
    if (record->event != TRACE_REFUSED_DOWN)
        return;
    refusals->refused++;
    uint32_t down = 0;
    for (uint32_t n = 0; n < 16; n++)
        down += refusals->down[n];
    refusals->refused_with_one_up += down < 2;
}

static Refusals refusals(const char *json, Metrics *metrics)
{
    Scenario *scenario = test_load(json, NULL, 0);
    Refusals counts = {0};
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                                (TraceSink){count_refusals, &counts}, (WorldLimits){0});
    world_run(world);
    *metrics = *world_metrics(world);
    world_destroy(world);
    free(scenario);
    return counts;
}

START_TEST(test_a_balancer_sends_past_a_down_instance)
{
#define DOWN_OFTEN                                                                                 \
    ", \"instances\": 2, \"crash\": {\"point\": \"before-effect\", \"prob\": 0.2,"                 \
    " \"restart_ms\": 2000}"
    Metrics stays, moves;
    Refusals stays_refused = refusals(ONE_CLIENT_WORLD(DOWN_OFTEN, ""), &stays);
    Refusals moves_refused = refusals(
        ONE_CLIENT_WORLD(DOWN_OFTEN ", \"balancer_retry\": \"connect-failure\"", ""), &moves);
    ck_assert_uint_eq(stays.balancer_retries, 0);
    ck_assert_uint_gt(stays_refused.refused_with_one_up, 5);
    ck_assert_uint_gt(moves.balancer_retries, 5);
    /* one client, one request at a time: none is on its way when an instance goes down, so
     * a refusal is left only when both are down */
    ck_assert_uint_eq(moves_refused.refused_with_one_up, 0);
    ck_assert_uint_lt(moves_refused.refused, stays_refused.refused);
#undef DOWN_OFTEN
}
END_TEST

/* A replica replication_lag_ms behind (and a primary that never fails over within the run):
 * a retry 0.4 s after its first attempt finds nothing when the lag is 1.5 s (every lost
 * answer charged again, as without keys), and finds the completed row when the lag is
 * 0.2 s (replayed, no double). */
START_TEST(test_replica_reads_miss_what_the_lag_hides)
{
#define REPLICA(lag)                                                                               \
    ", \"reserve\": \"check-then-insert\", \"race_window_ms\": 1, \"reads\": \"replica\","         \
    " \"failover_every_ms\": {\"dist\": \"const\", \"value\": 1e9}, \"replication_lag_ms\": " lag
    const char *behind = ONE_CLIENT_WORLD(", \"instances\": 2", REPLICA("1500"));
    Metrics keyed = test_run_text(behind, MODE_IDEMPOTENT);
    Metrics unkeyed = test_run_text(behind, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(unkeyed.outcomes[OUTCOME_DOUBLE], 3);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], unkeyed.outcomes[OUTCOME_DOUBLE]);

    Metrics close =
        test_run_text(ONE_CLIENT_WORLD(", \"instances\": 2", REPLICA("200")), MODE_IDEMPOTENT);
    ck_assert_uint_eq(close.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(close.replayed, 3);
#undef REPLICA
}
END_TEST

/* Same scenario, same seed: the same bytes of metrics, random balancer included. */
START_TEST(test_random_balancer_is_deterministic)
{
    const char *json = ONE_CLIENT_WORLD(", \"instances\": 3, \"balancer\": \"random\"",
                                        ", \"placement\": \"per-instance\"");
    Metrics first = test_run_text(json, MODE_IDEMPOTENT);
    Metrics second = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_msg(memcmp(&first, &second, sizeof first) == 0, "two runs differ");
    ck_assert_uint_gt(first.outcomes[OUTCOME_DOUBLE], 0); /* some retries land elsewhere */
}
END_TEST

static Suite *instances_suite(void)
{
    Suite *suite = suite_create("instances");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_instances_are_nodes_of_one_service);
    tcase_add_test(core, test_one_instance_written_out_is_the_same_world);
    tcase_add_test(core, test_round_robin_deals_requests_in_turn);
    tcase_add_test(core, test_keys_per_instance_miss_every_retry_round_robin_sends_elsewhere);
    tcase_add_test(core, test_a_crash_wipes_only_a_store_the_instance_owns);
    tcase_add_test(core, test_a_balancer_sends_past_a_down_instance);
    tcase_add_test(core, test_replica_reads_miss_what_the_lag_hides);
    tcase_add_test(core, test_random_balancer_is_deterministic);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(instances_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
