/* A proxy's process that crashes (ProxySpec.crash), and a proxy of several instances, each
 * crashing apart behind a balancer of its own, against closed forms. One client, 20
 * payments 2 s apart, every link 1 ms, the proxy's own processing 1 ms, the server 10 ms;
 * the client waits 1 s for an answer and retries a reset 200 ms later, up to 5 attempts.
 * The proxy crashes once (max_crashes 1, prob 1), with the first payment in hand: after
 * its try left (the server charges it anyway) or before (nothing reached the server). */
#include "test_world.h"
#include "world.h"

#define PAYMENTS 20

#define PROXY_WORLD(point, restart_ms, proxy_extra)                                                \
    "{\"seed\": 9, \"duration_ms\": 60000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"checkout\", \"retries\": 0,"          \
    "    \"per_try_timeout_ms\": 5000,"                                                            \
    "    \"crash\": {\"point\": \"" point "\", \"prob\": 1, \"max_crashes\": 1,"                   \
    "      \"restart_ms\": " restart_ms "} " proxy_extra "},"                                      \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 0,"     \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 10}},"                                   \
    "   {\"id\": \"keys\", \"kind\": \"key_store\"}],"                                             \
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"calls\": \"mesh\", \"key\": \"per-click\","  \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 20, \"interval_ms\": {\"dist\": \"const\", \"value\": 2000}},"     \
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 5, \"retry_on\": [\"timeout\"],"       \
    "     \"backoff\": {\"base_ms\": 200, \"factor\": 1, \"max_ms\": 200, \"jitter\": "            \
    "\"none\"}}}],"                                                                                \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}"

/* After its try left: the server charges the first payment, its answer finds nobody, and
 * the client, reset, sends it again (200 ms later, the proxy back after 100 ms): a second
 * charge without a key, a replay with the key forwarded, a second charge again when the
 * proxy drops the key on the way. Without retries the client is never told. */
START_TEST(test_a_crash_after_forwarding_leaves_the_charge_behind)
{
    const char *json = PROXY_WORLD("after-forward", "100", "");
    Metrics once = test_run_text(json, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(once.proxy_crashes, 1);
    ck_assert_uint_eq(once.effects, PAYMENTS);
    ck_assert_uint_eq(once.outcomes[OUTCOME_PHANTOM], 1); /* charged, told a reset */

    Metrics retried = test_run_text(json, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(retried.proxy_crashes, 1);
    ck_assert_uint_eq(retried.attempts, PAYMENTS + 1);
    ck_assert_uint_eq(retried.effects, PAYMENTS + 1);
    ck_assert_uint_eq(retried.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(test_service_value(&retried, "mesh", "crashes"), 1);

    Metrics keyed = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.effects, PAYMENTS);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(keyed.replayed, 1);

    Metrics unkeyed = test_run_text(
        PROXY_WORLD("after-forward", "100", ", \"forwards_key\": false"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(unkeyed.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* Before its try left: nothing reached the server, so the client's retry is the first
 * charge in every mode that retries. */
START_TEST(test_a_crash_before_forwarding_charges_nothing_twice)
{
    for (Mode mode = MODE_AT_LEAST_ONCE; mode <= MODE_IDEMPOTENT; mode++) {
        Metrics metrics = test_run_text(PROXY_WORLD("before-forward", "100", ""), mode);
        ck_assert_uint_eq(metrics.proxy_crashes, 1);
        ck_assert_uint_eq(metrics.attempts, PAYMENTS + 1);
        ck_assert_uint_eq(metrics.effects, PAYMENTS);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], PAYMENTS);
    }
    Metrics once = test_run_text(PROXY_WORLD("before-forward", "100", ""), MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(once.effects, PAYMENTS - 1);
    ck_assert_uint_eq(once.outcomes[OUTCOME_LOST], 1);
}
END_TEST

/* Down for 500 ms: the retries at about 200 and 400 ms meet a closed port (a reset each,
 * refused by the proxy); the one at about 600 ms goes through. */
START_TEST(test_a_down_proxy_resets_what_arrives)
{
    Metrics metrics = test_run_text(PROXY_WORLD("after-forward", "500", ""), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.attempts, PAYMENTS + 3);
    ck_assert_uint_eq(test_service_value(&metrics, "mesh", "refused"), 2);
    ck_assert_uint_eq(metrics.effects, PAYMENTS + 1);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

static void count_refused_down(void *context, const TraceRecord *record)
{
    uint32_t *refused = context;
    *refused += record->event == TRACE_REFUSED_DOWN && record->actor_kind == NODE_PROXY;
}

/* Each request that meets the closed port says so in the trace, as a down server's does:
 * without it a story (explain, the view) showed a reset with no cause. */
START_TEST(test_a_down_proxy_traces_each_refusal)
{
    Scenario *scenario = test_load(PROXY_WORLD("after-forward", "500", ""), NULL, 0);
    uint32_t refused = 0;
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                                (TraceSink){count_refused_down, &refused}, (WorldLimits){0});
    world_run(world);
    ck_assert_uint_eq(refused, 2);
    ck_assert_uint_eq(test_service_value(world_metrics(world), "mesh", "refused"), 2);
    world_destroy(world);
    free(scenario);
}
END_TEST

/* With no limit every request crashes the proxy, and each one is still charged once per
 * attempt that reached the server: max_crashes bounds the crashes. */
START_TEST(test_max_crashes_bounds_the_crashes)
{
    const char *const unlimited[] = {"services.mesh.crash.max_crashes=0"};
    Metrics every =
        test_run_json(PROXY_WORLD("after-forward", "100", ""), unlimited, 1, MODE_AT_LEAST_ONCE);
    /* each payment: five attempts, each forwarded and crashed, none answered */
    ck_assert_uint_eq(every.proxy_crashes, 5 * PAYMENTS);
    ck_assert_uint_eq(every.effects, 5 * PAYMENTS);
    ck_assert_uint_eq(every.outcomes[OUTCOME_DOUBLE], PAYMENTS);
}
END_TEST

/* The crash is a named fault: a forced list decides it, as explore writes one. */
START_TEST(test_a_forced_proxy_crash_is_the_only_one)
{
    const char *const forced[] = {
        "services.mesh.crash.max_crashes=0", "services.mesh.crash.prob=0.5",
        "faults=[{\"fault\": \"proxy-crash\", \"operation\": 3, \"attempt\": 1, \"copy\": 2}]"};
    Metrics metrics =
        test_run_json(PROXY_WORLD("after-forward", "100", ""), forced, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.proxy_crashes, 1);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* show writes the crash and the instances, and the written file runs alike. */
START_TEST(test_show_writes_the_proxy_crash)
{
    Scenario *scenario = test_load(
        PROXY_WORLD("after-forward", "100", ", \"instances\": 2, \"balancer\": \"random\""), NULL,
        0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"after-forward\""));
    ck_assert_ptr_nonnull(strstr(shown, "\"instances\": 2"));
    ck_assert_ptr_nonnull(strstr(shown, "\"random\""));
    Metrics a = test_run_mode(scenario, MODE_AT_LEAST_ONCE, 9);
    Metrics b = test_run_mode(again, MODE_AT_LEAST_ONCE, 9);
    ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "the shown scenario runs otherwise");
    free(shown);
    free(again);
    free(scenario);
}
END_TEST

/* A proxy's instances are nodes of their own, appended after every other node: the node
 * ids of the world with one instance stay as they were. */
START_TEST(test_proxy_instances_are_nodes_of_one_proxy)
{
    Scenario *one = test_load(PROXY_WORLD("after-forward", "100", ""), NULL, 0);
    Scenario *three = test_load(PROXY_WORLD("after-forward", "100", ", \"instances\": 3"), NULL, 0);
    World *a = world_create(one, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    World *b = world_create(three, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    ck_assert_uint_eq(world_node_count(b), world_node_count(a) + 2);
    for (uint32_t n = 0; n < world_node_count(a); n++) {
        ck_assert_int_eq(world_node(a, n)->kind, world_node(b, n)->kind);
        ck_assert_str_eq(world_node(a, n)->service, world_node(b, n)->service);
    }
    uint32_t mesh = world_node_of_kind(b, NODE_PROXY);
    ck_assert_str_eq(world_node_name(a, mesh), "mesh");
    ck_assert_str_eq(world_node_name(b, mesh), "mesh#1");
    ck_assert_str_eq(world_node_name(b, world_node_count(a)), "mesh#2");
    ck_assert_str_eq(world_node_name(b, world_node_count(a) + 1), "mesh#3");
    for (uint32_t n = world_node_count(a); n < world_node_count(b); n++) {
        ck_assert_int_eq(world_node(b, n)->kind, NODE_PROXY);
        ck_assert_uint_eq(world_node(b, n)->instance_count, 3);
        ck_assert_uint_eq(world_node(b, n)->lane, world_node(b, mesh)->lane);
    }
    world_destroy(a);
    world_destroy(b);
    free(one);
    free(three);
}
END_TEST

/* No crash at all: round-robin deals the 20 payments to three instances in turn. */
START_TEST(test_proxy_instances_take_requests_in_turn)
{
    const char *const no_crash[] = {"services.mesh.crash.prob=0"};
    Metrics metrics = test_run_json(PROXY_WORLD("after-forward", "100", ", \"instances\": 3"),
                                    no_crash, 1, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(test_service_value(&metrics, "mesh#1", "received"), 7);
    ck_assert_uint_eq(test_service_value(&metrics, "mesh#2", "received"), 7);
    ck_assert_uint_eq(test_service_value(&metrics, "mesh#3", "received"), 6);
    ck_assert_uint_eq(test_service_value(&metrics, "mesh", "received"), PAYMENTS);
}
END_TEST

/* Each instance crashes apart, max_crashes counting per instance: the first payment crashes
 * mesh#1 after forwarding; its retry 200 ms later goes in turn to mesh#2, which crashes the
 * same way; the next retry finds mesh#1 back. Three charges without a key, one and two
 * replays with it. */
START_TEST(test_each_instance_crashes_apart)
{
    const char *json = PROXY_WORLD("after-forward", "100", ", \"instances\": 2");
    Metrics retried = test_run_text(json, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(retried.proxy_crashes, 2);
    ck_assert_uint_eq(test_service_value(&retried, "mesh#1", "crashes"), 1);
    ck_assert_uint_eq(test_service_value(&retried, "mesh#2", "crashes"), 1);
    ck_assert_uint_eq(retried.effects, PAYMENTS + 2);
    ck_assert_uint_eq(retried.outcomes[OUTCOME_DOUBLE], 1);
    Metrics keyed = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.effects, PAYMENTS);
    ck_assert_uint_eq(keyed.replayed, 2);
}
END_TEST

/* One crash, forced on the first payment's first try: mesh#1 is down for 5 s. Round-robin
 * sends the payments at 2 s and 4 s to it (their retries, and the first one's, take the
 * turns of mesh#2 between): each meets the closed port, is reset, and is sent again. With
 * balancer_retry connect-failure the payment at 2 s goes past the down instance at once,
 * and the turn it left sends the one at 4 s to mesh#2 in any case: one request sent on. */
START_TEST(test_a_balancer_sends_past_a_down_proxy_instance)
{
#define FORCED_ONE                                                                                 \
    "services.mesh.crash.max_crashes=0", "services.mesh.crash.prob=0.5",                           \
        "faults=[{\"fault\": \"proxy-crash\", \"operation\": 0, \"attempt\": 1, \"copy\": 2}]"
    const char *const stays[] = {FORCED_ONE};
    const char *const moves[] = {FORCED_ONE, "services.mesh.balancer_retry=\"connect-failure\""};
    const char *json = PROXY_WORLD("after-forward", "5000", ", \"instances\": 2");
    Metrics met = test_run_json(json, stays, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(met.proxy_crashes, 1);
    ck_assert_uint_eq(test_service_value(&met, "mesh#1", "refused"), 2);
    ck_assert_uint_eq(met.attempts, PAYMENTS + 3);
    ck_assert_uint_eq(met.balancer_retries, 0);
    Metrics past = test_run_json(json, moves, 4, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(test_service_value(&past, "mesh#1", "refused"), 0);
    ck_assert_uint_eq(past.attempts, PAYMENTS + 1);
    ck_assert_uint_eq(past.balancer_retries, 1);
#undef FORCED_ONE
}
END_TEST

/* The older form has one proxy process: instances are the services form's. */
START_TEST(test_the_older_form_refuses_proxy_instances)
{
    const char *json = "{\"accounts\": [{\"id\": \"a\", \"balance\": 100}],"
                       " \"clients\": [{\"id\": \"web\", \"via\": \"proxy\"}],"
                       " \"proxy\": {\"instances\": 2}}";
    test_assert_refused(json, NULL, 0, "$.proxy.instances",
                        "expected 1, the older form's one process (got 2)");
}
END_TEST

static Suite *proxy_crash_suite(void)
{
    Suite *suite = suite_create("proxy_crash");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_crash_after_forwarding_leaves_the_charge_behind);
    tcase_add_test(core, test_a_crash_before_forwarding_charges_nothing_twice);
    tcase_add_test(core, test_a_down_proxy_resets_what_arrives);
    tcase_add_test(core, test_a_down_proxy_traces_each_refusal);
    tcase_add_test(core, test_max_crashes_bounds_the_crashes);
    tcase_add_test(core, test_a_forced_proxy_crash_is_the_only_one);
    tcase_add_test(core, test_show_writes_the_proxy_crash);
    tcase_add_test(core, test_proxy_instances_are_nodes_of_one_proxy);
    tcase_add_test(core, test_proxy_instances_take_requests_in_turn);
    tcase_add_test(core, test_each_instance_crashes_apart);
    tcase_add_test(core, test_a_balancer_sends_past_a_down_proxy_instance);
    tcase_add_test(core, test_the_older_form_refuses_proxy_instances);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(proxy_crash_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
