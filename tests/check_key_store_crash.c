/* C38: a key store that crashes on its own. While it is down a keyed request is refused with
 * 503 (when_down refuse) or runs with no key check (proceed); a store without persistence
 * restarts empty; a server's crash never wipes a store that is a process of its own; and the
 * store is a node of its own. Scripted worlds with constant delays give closed forms: one
 * payment whose every answer is lost, retried every 100 ms, five attempts. */
#include "test_world.h"

/* The payment is sent at 0 and every 100 ms after (5 ms on the way, 10 ms of work); no answer
 * ever comes back, so every attempt reaches the server. The store crashes at 1 ms and is back
 * at 251 ms: attempts 1-3 (at 5, 105, 205 ms) meet it down, 4 and 5 (305, 405 ms) up. */
static const char scripted[] =
    "{\"seed\": 1, \"duration_ms\": 2000, \"modes\": [\"at-least-once\", \"idempotent\"],"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 1, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 1, \"interval_ms\": {\"dist\": \"const\", \"value\": 0}},"
    "   \"retry\": {\"timeout_ms\": 100, \"max_attempts\": 5,"
    "     \"backoff\": {\"base_ms\": 0, \"factor\": 1, \"max_ms\": 0, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}},"
    "   \"links\": {\"server->web\": {\"loss\": 1}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 10},"
    "   \"idempotency\": {\"durable\": false}}}";

/* The store's own crash: at 1 ms, back at 251 ms. */
#define CRASH_AT_1_MS                                                                              \
    "server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 1},"                 \
    " \"restart_ms\": 250, \"max_crashes\": 1}"

START_TEST(test_fail_open_runs_every_request_the_down_store_cannot_check)
{
    const char *const proceed[] = {CRASH_AT_1_MS, "server.idempotency.when_down=\"proceed\""};
    Metrics run = test_run_json(scripted, proceed, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.store_crashes, 1);
    ck_assert_uint_eq(run.unchecked_runs, 3);
    ck_assert_uint_eq(run.refused_store_down, 0);
    /* the three unchecked runs wrote no key: attempt 4 reserves and runs, 5 is replayed */
    ck_assert_uint_eq(run.executions, 4);
    ck_assert_uint_eq(run.replayed, 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* Failing open skips the server's own store, not the key in the request: the three unchecked
 * attempts and the fourth (reserved after the restart) each charge at the provider under the
 * client's key, which the provider honours: one charge, three answers from its record; the
 * fifth attempt is answered by the server's store. */
START_TEST(test_fail_open_still_forwards_the_requests_key_to_the_provider)
{
    const char *const proceed[] = {CRASH_AT_1_MS, "server.idempotency.when_down=\"proceed\"",
                                   "server.use_gateway=true", "gateway.honours_key=true"};
    Metrics run = test_run_json(scripted, proceed, 4, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.unchecked_runs, 3);
    ck_assert_double_eq(test_service_value(&run, "gateway", "received"), 4);
    ck_assert_double_eq(test_service_value(&run, "gateway", "replayed"), 3);
    ck_assert_uint_eq(run.effects, 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

START_TEST(test_fail_closed_refuses_with_503_and_runs_once_after_the_restart)
{
    const char *const refuse[] = {CRASH_AT_1_MS}; /* when_down refuse: the default */
    Metrics run = test_run_json(scripted, refuse, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.refused_store_down, 3);
    ck_assert_uint_eq(run.unchecked_runs, 0);
    ck_assert_uint_eq(run.executions, 1);
    ck_assert_uint_eq(run.replayed, 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
    /* without keys the store's crash changes nothing: every attempt runs */
    Metrics unkeyed = test_run_json(scripted, refuse, 1, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(unkeyed.store_crashes, 0);
    ck_assert_uint_eq(unkeyed.executions, 5);
}
END_TEST

/* check-then-insert: attempt 1's check (at 5 ms) finds the store up, its insert a race window
 * later (15 ms) finds it down (it crashed at 8 ms): the rule decides there as at a check.
 * Refuse: 503, so only attempt 4, after the restart, runs. Proceed: it runs unchecked, as
 * attempts 2 and 3 do, and attempt 4 charges again. */
START_TEST(test_a_store_down_at_the_late_insert_meets_the_rule)
{
    const char *const refuse[] = {
        ("server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 8},"
         " \"restart_ms\": 250, \"max_crashes\": 1}"),
        "server.idempotency.reserve=\"check-then-insert\"", "server.idempotency.race_window_ms=10"};
    Metrics refused = test_run_json(scripted, refuse, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(refused.refused_store_down, 3);
    ck_assert_uint_eq(refused.executions, 1);
    ck_assert_uint_eq(refused.outcomes[OUTCOME_DOUBLE], 0);
    const char *const proceed[] = {refuse[0], refuse[1], refuse[2],
                                   "server.idempotency.when_down=\"proceed\""};
    Metrics unchecked = test_run_json(scripted, proceed, 4, MODE_IDEMPOTENT);
    ck_assert_uint_eq(unchecked.unchecked_runs, 3);
    ck_assert_uint_eq(unchecked.executions, 4);
    ck_assert_uint_eq(unchecked.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* With lease fencing the check before the effect reads the key's token: a store call, which a
 * store down meets with the rule. Attempt 1 reserves at 5 ms and checks its lease at 15, the
 * store down since 8 (restarting empty at 258): failing open, it goes on unchecked (counted
 * and traced as such) and charges, as attempts 2 and 3 do; attempt 4 reserves and charges
 * again, 5 is replayed. It was fenced (no charge, 409) by a read of the down store. */
START_TEST(test_a_lease_check_while_the_store_is_down_meets_the_rule)
{
    const char *const proceed[] = {
        ("server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 8},"
         " \"restart_ms\": 250, \"max_crashes\": 1}"),
        "server.idempotency.when_down=\"proceed\"", "server.idempotency.fencing=true",
        "server.idempotency.lock_timeout_ms=10000"};
    Metrics run = test_run_json(scripted, proceed, 4, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.unchecked_runs, 3);
    ck_assert_uint_eq(run.executions, 4);
    ck_assert_uint_eq(run.effects, 4);
    ck_assert_uint_eq(run.status_409, 0);
    ck_assert_uint_eq(run.replayed, 1);
}
END_TEST

/* What a run traced at the server: its refusals for a down store and its fenced checks. */
typedef struct {
    uint32_t store_down;
    SimTimeUs first_store_down_us;
    int64_t first_store_down_status;
    uint32_t fenced;
} StoreDownTraces;

static void note_store_down(void *context, const TraceRecord *record)
{
    StoreDownTraces *traces = context;
    if (record->event == TRACE_STORE_DOWN && traces->store_down++ == 0) {
        traces->first_store_down_us = record->t_us;
        traces->first_store_down_status = record->value;
    }
    if (record->event == TRACE_FENCED)
        traces->fenced++;
}

/* Failing closed, the lease check while the store is down refuses as a lookup would: attempt 1
 * reserves at 5 ms and checks its lease at 15, the store down since 8: 503, counted with the
 * refusals for a down store and traced as they are, not a 409 traced fenced (its lease was not
 * lost; the store could not be asked). Attempts 2 and 3 are refused at their lookup, 4 runs
 * after the restart (empty, at 258 ms) and charges once; 5 is replayed. */
START_TEST(test_a_lease_check_refused_while_the_store_is_down_answers_503)
{
    const char *const refuse[] = {
        ("server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 8},"
         " \"restart_ms\": 250, \"max_crashes\": 1}"),
        "server.idempotency.fencing=true", "server.idempotency.lock_timeout_ms=10000"};
    Metrics run = test_run_json(scripted, refuse, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.refused_store_down, 3);
    ck_assert_uint_eq(run.status_409, 0);
    ck_assert_uint_eq(run.unchecked_runs, 0);
    ck_assert_uint_eq(run.executions, 2); /* attempt 1 ran up to its check, 4 to the end */
    ck_assert_uint_eq(run.effects, 1);
    ck_assert_uint_eq(run.replayed, 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_double_eq(test_service_value(&run, "server", "refused"), 3);
    Scenario *scenario = test_load(scripted, refuse, 3);
    StoreDownTraces traces = {0};
    World *world =
        world_create(scenario, MODE_IDEMPOTENT, scenario->seed,
                     (TraceSink){.write = note_store_down, .context = &traces}, (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    free(scenario);
    ck_assert_uint_eq(traces.store_down, 3);
    ck_assert_int_eq(traces.first_store_down_us, 15000);
    ck_assert_int_eq(traces.first_store_down_status, 503);
    ck_assert_uint_eq(traces.fenced, 0);
}
END_TEST

/* The first attempt runs (store up), its key completes at 15 ms; the store crashes at 50 ms
 * and is back at 60 ms; attempt 2 comes at 105 ms. */
START_TEST(test_a_restart_without_persistence_forgets_the_keys_written_before_it)
{
    const char *const crash_after_first[] = {
        "server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 50},"
        " \"restart_ms\": 10, \"max_crashes\": 1}",
        "clients.web.retry.max_attempts=2"};
    const char *const durable[] = {crash_after_first[0], crash_after_first[1],
                                   "server.idempotency.durable=true"};
    Metrics forgetting = test_run_json(scripted, crash_after_first, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(forgetting.keys_lost_in_store_crash, 1);
    ck_assert_uint_eq(forgetting.executions, 2);
    ck_assert_uint_eq(forgetting.outcomes[OUTCOME_DOUBLE], 1);
    Metrics keeping = test_run_json(scripted, durable, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keeping.keys_lost_in_store_crash, 0);
    ck_assert_uint_eq(keeping.executions, 1);
    ck_assert_uint_eq(keeping.replayed, 1);
}
END_TEST

/* The server crashes right after completing the first attempt (its answer dies with it); the
 * retry comes after its restart. A store in the server's process, not durable, dies with it;
 * a store of its own (a crash object, its first crash far past the run) does not. */
START_TEST(test_a_server_crash_never_wipes_a_store_it_does_not_own)
{
    const char *const in_process[] = {
        "network.links={}",
        ("server.crash={\"point\": \"after-completion\", \"prob\": 1, \"restart_ms\": 20,"
         " \"max_crashes\": 1}"),
        "clients.web.retry.max_attempts=2"};
    const char *const own_process[] = {
        in_process[0], in_process[1], in_process[2],
        ("server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 1000000},"
         " \"restart_ms\": 10}")};
    Metrics owned = test_run_json(scripted, in_process, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(owned.crashes, 1);
    ck_assert_uint_eq(owned.executions, 2);
    ck_assert_uint_eq(owned.outcomes[OUTCOME_DOUBLE], 1);
    Metrics separate = test_run_json(scripted, own_process, 4, MODE_IDEMPOTENT);
    ck_assert_uint_eq(separate.crashes, 1);
    ck_assert_uint_eq(separate.store_crashes, 0);
    ck_assert_uint_eq(separate.executions, 1);
    ck_assert_uint_eq(separate.replayed, 1);
    ck_assert_uint_eq(separate.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* The key-store nodes of the scenario's idempotent world; the last one's name in name. */
static uint32_t store_nodes(const Scenario *scenario, char name[NAME_LEN_MAX])
{
    World *world = world_create(scenario, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    uint32_t found = 0;
    for (uint32_t n = 0; n < world_node_count(world); n++) {
        if (world_node(world, n)->kind == NODE_KEY_STORE) {
            found++;
            snprintf(name, NAME_LEN_MAX, "%s", world_node(world, n)->name);
        }
    }
    world_destroy(world);
    return found;
}

START_TEST(test_a_store_that_crashes_on_its_own_is_a_node_of_its_own)
{
    const char *const crash[] = {CRASH_AT_1_MS};
    Scenario *crashing = test_load(scripted, crash, 1);
    Scenario *plain = test_load(scripted, NULL, 0);
    char name[NAME_LEN_MAX] = "";
    ck_assert_uint_eq(store_nodes(crashing, name), 1);
    ck_assert_str_eq(name, "server-keys"); /* the older form: the id `show` gives it */
    ck_assert_uint_eq(store_nodes(plain, name), 0);
    free(crashing);
    free(plain);
}
END_TEST

START_TEST(test_store_crashes_that_cannot_be_modelled_are_refused_at_load)
{
    const char *const per_instance[] = {CRASH_AT_1_MS, "server.instances=2",
                                        "server.idempotency.placement=\"per-instance\""};
    test_assert_refused(scripted, per_instance, 3, "$.server.idempotency.crash",
                        "crashes with its instance");
    const char *const replicated[] = {CRASH_AT_1_MS, "server.idempotency.replication_lag_ms=100"};
    test_assert_refused(scripted, replicated, 2, "$.server.idempotency.crash",
                        "fails over instead");
    const char *const transaction[] = {CRASH_AT_1_MS, "server.transaction=true"};
    test_assert_refused(scripted, transaction, 2, "$.server.idempotency.crash",
                        "with \"transaction\"");
    const char *const outbox[] = {CRASH_AT_1_MS, "server.use_gateway=true", "server.outbox=true"};
    test_assert_refused(scripted, outbox, 3, "$.server.idempotency.crash", "outbox");
    const char *const bad_rule[] = {CRASH_AT_1_MS, "server.idempotency.when_down=\"retry\""};
    test_assert_refused(scripted, bad_rule, 2, "$.server.idempotency.when_down", "refuse");
}
END_TEST

static Suite *key_store_crash_suite(void)
{
    Suite *suite = suite_create("key_store_crash");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_fail_open_runs_every_request_the_down_store_cannot_check);
    tcase_add_test(core, test_fail_open_still_forwards_the_requests_key_to_the_provider);
    tcase_add_test(core, test_a_store_down_at_the_late_insert_meets_the_rule);
    tcase_add_test(core, test_a_lease_check_while_the_store_is_down_meets_the_rule);
    tcase_add_test(core, test_a_lease_check_refused_while_the_store_is_down_answers_503);
    tcase_add_test(core, test_fail_closed_refuses_with_503_and_runs_once_after_the_restart);
    tcase_add_test(core, test_a_restart_without_persistence_forgets_the_keys_written_before_it);
    tcase_add_test(core, test_a_server_crash_never_wipes_a_store_it_does_not_own);
    tcase_add_test(core, test_a_store_that_crashes_on_its_own_is_a_node_of_its_own);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_store_crashes_that_cannot_be_modelled_are_refused_at_load);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(key_store_crash_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
