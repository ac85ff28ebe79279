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
    Scenario *three =
        test_load(ONE_CLIENT_WORLD(", \"instances\": 3, \"balancer\": \"random\"", ""), NULL, 0);
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

/* The older form: a server, a proxy and a consumer group of one process each, with EXTRA in
 * each of the three. */
#define OLDER_FORM_WORLD(extra)                                                                    \
    "{\"seed\": 3, \"duration_ms\": 20000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"                                       \
    " \"server\": {\"workers\": 2 " extra "}, \"proxy\": {\"retries\": 2 " extra "},"              \
    " \"broker\": {\"consumers\": {\"workers\": 2 " extra "}},"                                    \
    " \"clients\": [{\"id\": \"web\", \"via\": \"proxy\","                                         \
    "   \"workload\": {\"ops\": 20, \"interval_ms\": 200}},"                                       \
    "  {\"id\": \"shop\", \"target\": \"broker\","                                                 \
    "   \"workload\": {\"ops\": 20, \"interval_ms\": 200}}],"                                      \
    " \"network\": {\"default\": {\"loss\": 0.05}}}"

/* "instances": 1 is the default and what the older form runs: it loads, shows as the same
 * file and runs as the same world; more than one stays the services form's. */
START_TEST(test_the_older_form_takes_one_instance)
{
    Scenario *plain = test_load(OLDER_FORM_WORLD(""), NULL, 0);
    Scenario *explicit = test_load(OLDER_FORM_WORLD(", \"instances\": 1"), NULL, 0);
    char *plain_shown = scenario_show(plain);
    char *explicit_shown = scenario_show(explicit);
    ck_assert_ptr_nonnull(plain_shown);
    ck_assert_ptr_nonnull(explicit_shown);
    ck_assert_str_eq(plain_shown, explicit_shown);
    for (Mode mode = 0; mode < MODE_COUNT; mode++) {
        Metrics a = test_run_mode(plain, mode, plain->seed);
        Metrics b = test_run_mode(explicit, mode, explicit->seed);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "metrics differ in %s", mode_name(mode));
    }
    free(plain_shown);
    free(explicit_shown);
    free(plain);
    free(explicit);
    const char *paths[] = {"$.server.instances", "$.proxy.instances",
                           "$.broker.consumers.instances"};
    for (unsigned p = 0; p < sizeof paths / sizeof paths[0]; p++)
        test_assert_refused(OLDER_FORM_WORLD(", \"instances\": 2"), NULL, 0, paths[p],
                            "expected 1, the older form's one process (got 2)");
    test_assert_refused(OLDER_FORM_WORLD(", \"instances\": 0"), NULL, 0, "$.proxy.instances",
                        "expected integer >= 1 (got 0)");
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

/* Which instances ran each operation's handler (bit by node), and how often it ran. */
typedef struct {
    uint32_t runs[64];
    uint32_t nodes[64];
} RunsPerOperation;

static void note_runs(void *context, const TraceRecord *record)
{
    RunsPerOperation *seen = context;
    if (record->event == TRACE_EXECUTE && record->operation < 64 && record->actor < 32) {
        seen->runs[record->operation]++;
        seen->nodes[record->operation] |= 1u << record->actor;
    }
}

/* A key-hash balancer hashes the Idempotency-Key header, which only the idempotent mode
 * sends: at-least-once's retries go in turn, so with one request in flight each retry runs
 * on the other instance. */
START_TEST(test_key_hash_deals_in_turn_where_no_key_is_sent)
{
    Scenario *scenario =
        test_load(ONE_CLIENT_WORLD(", \"instances\": 2, \"balancer\": \"key-hash\"", ""), NULL, 0);
    for (Mode mode = MODE_AT_LEAST_ONCE; mode <= MODE_IDEMPOTENT; mode++) {
        RunsPerOperation seen = {0};
        World *world =
            world_create(scenario, mode, 1, (TraceSink){note_runs, &seen}, (WorldLimits){0});
        world_run(world);
        uint32_t run_again = 0, on_one_instance = 0;
        for (uint32_t op = 0; op < 64; op++) {
            run_again += seen.runs[op] > 1;
            on_one_instance += seen.runs[op] > 1 && __builtin_popcount(seen.nodes[op]) == 1;
        }
        if (mode == MODE_AT_LEAST_ONCE) {
            ck_assert_uint_gt(run_again, 3);
            ck_assert_uint_eq(on_one_instance, 0);
        } else { /* every attempt of a key meets one instance, which replays it */
            ck_assert_uint_eq(run_again, 0);
        }
        world_destroy(world);
    }
    free(scenario);
}
END_TEST

/* One client through a mesh that retries once when a try goes unanswered for 100 ms; the
 * server's answers to the mesh are lost one time in four (MESH_WORLD), so many calls have a
 * second try. */
#define MESH_WORLD(proxy_extra, server_extra, store_extra)                                         \
    MESH_WORLD_LOSING("0.25", proxy_extra, server_extra, store_extra)
#define MESH_WORLD_LOSING(loss, proxy_extra, server_extra, store_extra)                            \
    "{\"seed\": 5, \"duration_ms\": 60000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"checkout\","                          \
    "    \"per_try_timeout_ms\": 100 " proxy_extra "},"                                            \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 2,"     \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 10} " server_extra "},"                  \
    "   {\"id\": \"keys\", \"kind\": \"key_store\" " store_extra "}],"                             \
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"calls\": \"mesh\","                          \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 60, \"interval_ms\": 900},"                                        \
    "   \"retry\": {\"timeout_ms\": 800, \"max_attempts\": 3}, \"key\": \"per-click\"}],"          \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5},"                                  \
    "   \"links\": {\"checkout->mesh\": {\"loss\": " loss "}}}}"

/* Keys in each instance's memory, one key hashed to one instance: the mesh's retry meets
 * the instance that ran its first try and is replayed. Sent to the instance it has not
 * tried (retry_host "other", Envoy's previous_hosts), it meets a store that never saw its
 * key and is charged again; a store the instances share still knows it. */
START_TEST(test_a_retry_sent_to_another_instance_misses_its_key)
{
#define KEY_AFFINITY ", \"instances\": 2, \"balancer\": \"key-hash\""
#define OWN_KEYS ", \"placement\": \"per-instance\""
    Metrics stays = test_run_text(MESH_WORLD("", KEY_AFFINITY, OWN_KEYS), MODE_IDEMPOTENT);
    Metrics moves = test_run_text(MESH_WORLD(", \"retry_host\": \"other\"", KEY_AFFINITY, OWN_KEYS),
                                  MODE_IDEMPOTENT);
    Metrics shared =
        test_run_text(MESH_WORLD(", \"retry_host\": \"other\"", KEY_AFFINITY, ""), MODE_IDEMPOTENT);
    ck_assert_uint_gt(stays.proxy_retries, 5);
    ck_assert_uint_eq(stays.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(moves.proxy_retries, stays.proxy_retries);
    ck_assert_uint_gt(moves.outcomes[OUTCOME_DOUBLE], 5);
    ck_assert_uint_eq(shared.outcomes[OUTCOME_DOUBLE], 0);
#undef KEY_AFFINITY
#undef OWN_KEYS
}
END_TEST

/* The instances each try of one call reached, in order (by (operation, attempt)). */
typedef struct {
    uint32_t mesh;
    uint32_t tries[64][4];
    uint32_t count[64];
} TriesPerCall;

static void note_tries(void *context, const TraceRecord *record)
{
    TriesPerCall *seen = context;
    if (record->event != TRACE_TRANSMIT || record->actor != seen->mesh ||
        record->message != MESSAGE_REQUEST || record->operation >= 64 || record->attempt != 1)
        return;
    uint32_t *count = &seen->count[record->operation];
    if (*count < 4)
        seen->tries[record->operation][*count] = record->peer;
    (*count)++;
}

/* Three instances picked at random, and most answers lost so that many calls try three
 * times: with retry_host "other" the three tries of a call meet three instances; left to
 * the balancer, one instance often meets two of them. */
START_TEST(test_retry_host_other_tries_each_instance_once)
{
#define RANDOM_THREE ", \"instances\": 3, \"balancer\": \"random\""
    for (int other = 0; other <= 1; other++) {
        Scenario *scenario = test_load(
            other ? MESH_WORLD_LOSING("0.6", ", \"retries\": 2, \"retry_host\": \"other\"",
                                      RANDOM_THREE, "")
                  : MESH_WORLD_LOSING("0.6", ", \"retries\": 2", RANDOM_THREE, ""),
            NULL, 0);
        World *world =
            world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){0}, (WorldLimits){0});
        TriesPerCall seen = {.mesh = world_node_of_kind(world, NODE_PROXY)};
        world_destroy(world);
        world = world_create(scenario, MODE_AT_LEAST_ONCE, 1, (TraceSink){note_tries, &seen},
                             (WorldLimits){0});
        world_run(world);
        uint32_t three_tries = 0, repeated = 0;
        for (uint32_t op = 0; op < 64; op++) {
            if (seen.count[op] < 3)
                continue;
            three_tries++;
            const uint32_t *at = seen.tries[op];
            repeated += at[0] == at[1] || at[1] == at[2] || at[0] == at[2];
        }
        ck_assert_uint_gt(three_tries, 3);
        if (other)
            ck_assert_uint_eq(repeated, 0);
        else
            ck_assert_uint_gt(repeated, 0);
        world_destroy(world);
        free(scenario);
    }
#undef RANDOM_THREE
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
    tcase_add_test(core, test_the_older_form_takes_one_instance);
    tcase_add_test(core, test_round_robin_deals_requests_in_turn);
    tcase_add_test(core, test_keys_per_instance_miss_every_retry_round_robin_sends_elsewhere);
    tcase_add_test(core, test_a_crash_wipes_only_a_store_the_instance_owns);
    tcase_add_test(core, test_a_balancer_sends_past_a_down_instance);
    tcase_add_test(core, test_replica_reads_miss_what_the_lag_hides);
    tcase_add_test(core, test_random_balancer_is_deterministic);
    tcase_add_test(core, test_key_hash_deals_in_turn_where_no_key_is_sent);
    tcase_add_test(core, test_a_retry_sent_to_another_instance_misses_its_key);
    tcase_add_test(core, test_retry_host_other_tries_each_instance_once);
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
