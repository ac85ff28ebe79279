/* C38 for a consumer group: its key store crashes on its own (Redis beside the workers). While
 * it is down a delivery runs with no key check (when_down proceed) or is handed back to the
 * broker unrun (refuse: the lookup throws, the listener nacks); a consumer's crash never wipes
 * a store that is a process of its own; the store is a node of its own. A scripted world with
 * constant delays gives closed forms: one message, a consumer that dies once right after
 * recording it, so the message comes back once its channel closes. */
#include "test_diagram.h"
#include "test_report.h"

/* The message is published at 0 and reaches the broker at 5 ms; the consumer gets it at 10,
 * runs it until 20, records its key and dies before the ack: its channel closes, and the
 * message is requeued. The consumer is back at 40; the requeued delivery, handed out then,
 * arrives at 45 ms. */
static const char scripted[] =
    "{\"seed\": 1, \"duration_ms\": 2000, \"modes\": [\"at-least-once\", \"idempotent\"],"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 1, \"interval_ms\": {\"dist\": \"const\", \"value\": 0}},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 1}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"broker\": {\"family\": \"channel\","
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 10},"
    "     \"crash\": {\"point\": \"after-completion\", \"prob\": 1, \"restart_ms\": 20,"
    "               \"max_crashes\": 1},"
    "     \"idempotency\": {\"durable\": true}}}}";

/* The store's own crash: at 30 ms, back at 130 ms, so the requeued delivery meets it down. */
#define STORE_DOWN_30_TO_130_MS                                                                    \
    "broker.consumers.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 30},"      \
    " \"restart_ms\": 100, \"max_crashes\": 1}"

START_TEST(test_failing_open_runs_the_requeued_delivery_with_no_key_check)
{
    const char *const proceed[] = {STORE_DOWN_30_TO_130_MS,
                                   "broker.consumers.idempotency.when_down=\"proceed\""};
    Metrics run = test_run_json(scripted, proceed, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.store_crashes, 1);
    ck_assert_uint_eq(run.unchecked_runs, 1);
    ck_assert_uint_eq(run.refused_store_down, 0);
    ck_assert_uint_eq(run.executions, 2);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* Failing open skips the group's own store, not the key the message carries: the requeued
 * delivery runs unchecked and charges at the provider again under the same key, which a
 * provider that honours keys answers from its record. One that does not charges twice. */
START_TEST(test_failing_open_still_sends_the_messages_key_to_the_provider)
{
    const char *const honoured[] = {
        STORE_DOWN_30_TO_130_MS, "broker.consumers.idempotency.when_down=\"proceed\"",
        "broker.consumers.use_gateway=true", "gateway.honours_key=true"};
    Scenario *scenario = test_load(scripted, honoured, 4);
    Metrics run = test_run_mode(scenario, MODE_IDEMPOTENT, 1);
    ck_assert_uint_eq(run.unchecked_runs, 1);
    ck_assert_double_eq(test_service_value(&run, "gateway", "received"), 2);
    ck_assert_double_eq(test_service_value(&run, "gateway", "replayed"), 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
    free(scenario);
    const char *const ignored[] = {honoured[0], honoured[1], honoured[2],
                                   "gateway.honours_key=false"};
    Metrics charged_twice = test_run_json(scripted, ignored, 4, MODE_IDEMPOTENT);
    ck_assert_uint_eq(charged_twice.unchecked_runs, 1);
    ck_assert_uint_eq(charged_twice.outcomes[OUTCOME_DOUBLE], 1);
}
END_TEST

/* Each refusal is a nack (5 ms to the broker) and a redelivery at once (5 ms back): the
 * deliveries at 45, 55, ..., 125 ms meet the store down (9 of them), the one at 135 finds the
 * key the first run recorded, kept on disk (durable), and is acknowledged unrun. */
START_TEST(test_failing_closed_hands_the_delivery_back_until_the_store_is_back)
{
    /* when_down refuse: the default; no delivery limit */
    const char *const refuse[] = {STORE_DOWN_30_TO_130_MS, "broker.max_deliveries=0"};
    Scenario *scenario = test_load(scripted, refuse, 2);
    Metrics run = test_run_mode(scenario, MODE_IDEMPOTENT, 1);
    ck_assert_uint_eq(run.refused_store_down, 9);
    ck_assert_uint_eq(run.redeliveries, 10); /* the crash's requeue, then each nack's */
    ck_assert_uint_eq(run.unchecked_runs, 0);
    ck_assert_uint_eq(run.executions, 1);
    ck_assert_uint_eq(run.consumer_replayed, 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
    double refused = 0;
    ck_assert(metrics_named_value(&run, scenario, "refused@consumers", &refused));
    ck_assert_double_eq(refused, 9);
    double crashes = 0;
    ck_assert(metrics_named_value(&run, scenario, "crashes@consumers-keys", &crashes));
    ck_assert_double_eq(crashes, 1);
    /* the table says what the group did: no 503 went anywhere */
    char *table = NULL;
    test_table_of(scenario, &run, MODE_IDEMPOTENT, &table);
    ck_assert_msg(strstr(table, "  handed back: key store down") != NULL, "%s", table);
    ck_assert_ptr_null(strstr(table, "503"));
    free(table);
    free(scenario);
}
END_TEST

/* The sequence diagram ends the consumer's job where it hands the delivery back: nothing
 * answers it (a server's 503 closes its own as it leaves). */
START_TEST(test_the_diagram_ends_each_job_the_down_store_hands_back)
{
    const char *const refuse[] = {STORE_DOWN_30_TO_130_MS, "broker.max_deliveries=0"};
    Scenario *scenario = test_load(scripted, refuse, 2);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_IDEMPOTENT, 4096);
    unsigned handed_back = 0, open = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_ACTIVATION ||
            diagram_lane(diagram, item->from)->kind != NODE_CONSUMERS)
            continue;
        handed_back += item->end_event == TRACE_STORE_DOWN;
        open += item->end_us == SIM_TIME_NEVER;
    }
    ck_assert_uint_eq(handed_back, 9);
    ck_assert_uint_eq(open, 0);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* A delivery limit spends itself while the store is down: the third delivery (at 55 ms) is
 * refused and its nack dead-letters the message, never charged. */
START_TEST(test_failing_closed_against_a_delivery_limit_dead_letters_the_message)
{
    const char *const limited[] = {STORE_DOWN_30_TO_130_MS, "broker.max_deliveries=3",
                                   "broker.dead_letter=true"};
    Metrics run = test_run_json(scripted, limited, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.refused_store_down, 2);
    ck_assert_uint_eq(run.dead_lettered, 1);
    ck_assert_uint_eq(run.executions, 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* Without persistence and with its first crash far past the run, the store still outlives
 * the consumer's crash: it is a process of its own. The same store without a crash object
 * lives in the consumer's process and dies with it. */
START_TEST(test_a_consumer_crash_never_wipes_a_store_of_its_own)
{
    const char *const in_process[] = {"broker.consumers.idempotency.durable=false"};
    const char *const own_process[] = {
        in_process[0], ("broker.consumers.idempotency.crash={\"every_ms\": {\"dist\": \"const\","
                        " \"value\": 1000000}, \"restart_ms\": 10}")};
    Metrics wiped = test_run_json(scripted, in_process, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(wiped.executions, 2);
    ck_assert_uint_eq(wiped.outcomes[OUTCOME_DOUBLE], 1);
    Metrics kept = test_run_json(scripted, own_process, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(kept.store_crashes, 0);
    ck_assert_uint_eq(kept.executions, 1);
    ck_assert_uint_eq(kept.consumer_replayed, 1);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* Every crashing store is a node, after every other node: the server's first, a group's
 * after it; a world without one has the nodes it had. */
START_TEST(test_a_consumer_store_that_crashes_is_a_node_after_every_other)
{
    const char *const crash[] = {STORE_DOWN_30_TO_130_MS};
    Scenario *crashing = test_load(scripted, crash, 1);
    Scenario *plain = test_load(scripted, NULL, 0);
    World *with = world_create(crashing, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    World *without = world_create(plain, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    uint32_t last = world_node_count(with) - 1;
    ck_assert_uint_eq(world_node_count(with), world_node_count(without) + 1);
    ck_assert_int_eq(world_node(with, last)->kind, NODE_KEY_STORE);
    ck_assert_str_eq(world_node(with, last)->name, "consumers-keys");
    ck_assert(world_node(with, last)->active);
    for (uint32_t n = 0; n < last; n++)
        ck_assert_str_eq(world_node(with, n)->name, world_node(without, n)->name);
    world_destroy(with);
    world_destroy(without);
    free(crashing);
    free(plain);
}
END_TEST

START_TEST(test_consumer_store_crashes_that_cannot_be_modelled_are_refused_at_load)
{
    const char *const log[] = {STORE_DOWN_30_TO_130_MS, "broker.family=\"log\"",
                               "broker.consumers.crash={}"};
    test_assert_refused(scripted, log, 3, "$.broker.consumers",
                        "when_down 'proceed', or a retryable_topic");
    /* said whole in the services form too, whose path and field name are longer */
    static const char services_log[] =
        "{\"seed\": 1, \"duration_ms\": 2000, \"accounts\": [{\"id\": \"a\", \"balance\": 100}],"
        " \"services\": [{\"id\": \"events\", \"kind\": \"broker\", \"family\": \"log\"},"
        "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"events\","
        "    \"key_store\": \"redis\"},"
        "   {\"id\": \"redis\", \"kind\": \"key_store\", \"lock_timeout_ms\": 100,"
        "    \"crash\": {\"restart_ms\": 10}}],"
        " \"clients\": [{\"id\": \"app\", \"count\": 1, \"publishes\": \"events\","
        "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 1}}]}";
    test_assert_refused(services_log, NULL, 0, "$.services[1]",
                        "its key store's when_down 'proceed', or a retryable_topic, with family "
                        "'log' (a run its store refuses fails, and a log has no per-message nack)");
    /* a store shared with the first server may not crash: one set of rows for both */
    static const char shared_with_server[] =
        "{\"seed\": 1, \"duration_ms\": 2000, \"accounts\": [{\"id\": \"a\", \"balance\": 100}],"
        " \"services\": [{\"id\": \"api\", \"kind\": \"server\", \"key_store\": \"redis\"},"
        "   {\"id\": \"events\", \"kind\": \"broker\"},"
        "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"events\","
        "    \"key_store\": \"redis\"},"
        "   {\"id\": \"redis\", \"kind\": \"key_store\", \"crash\": {\"restart_ms\": 10}}],"
        " \"clients\": [{\"id\": \"app\", \"count\": 1, \"publishes\": \"events\","
        "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 1}}]}";
    test_assert_refused(shared_with_server, NULL, 0, "$.services[2].key_store",
                        "crashes on its own, not modelled when shared");
    const char *const log_proceeding[] = {log[0], log[1], log[2],
                                          "broker.consumers.idempotency.when_down=\"proceed\"",
                                          "broker.consumers.idempotency.lock_timeout_ms=100"};
    Scenario *proceeding = test_load(scripted, log_proceeding, 5);
    free(proceeding);
    /* A run that reserved before the crash and ends while the store is down leaves its key
     * processing in a durable store: a record met again (a replay after a rebalance, a
     * publisher's second copy) would be tried again every 0 ms for good. */
    test_assert_refused(scripted, log_proceeding, 4, "$.broker.consumers",
                        "lock_timeout_ms > 0 with family 'log' and a durable store that crashes");
    /* an inbox's keys commit with the effect: one database, never down apart */
    const char *const inbox[] = {STORE_DOWN_30_TO_130_MS, "broker.consumers.inbox=true"};
    test_assert_refused(scripted, inbox, 2, "$.broker.consumers.idempotency.crash",
                        "with \"inbox\"");
    const char *const replicated[] = {STORE_DOWN_30_TO_130_MS,
                                      "broker.consumers.idempotency.replication_lag_ms=100"};
    test_assert_refused(scripted, replicated, 2, "$.broker.consumers.idempotency.crash",
                        "fails over instead");
    const char *const per_instance[] = {STORE_DOWN_30_TO_130_MS, "broker.consumers.instances=2",
                                        "broker.consumers.idempotency.placement=\"per-instance\""};
    test_assert_refused(scripted, per_instance, 3, "$.broker.consumers.idempotency.crash",
                        "crashes with its instance");
}
END_TEST

/* C38 with C11's lease fencing: one message, a handler that runs from 10 ms to 110 ms, a
 * store without persistence that crashes at 30 ms (its restart set by each test), and no
 * consumer crash. The job reserved its key before the crash, so it checks its lease at 110. */
static const char fenced_across_a_store_crash[] =
    "{\"seed\": 1, \"duration_ms\": 2000, \"modes\": [\"idempotent\"],"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 1, \"interval_ms\": {\"dist\": \"const\", \"value\": 0}},"
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 1}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"broker\": {\"family\": \"channel\","
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 100},"
    "     \"idempotency\": {\"durable\": false, \"fencing\": true, \"lock_timeout_ms\": 10000}}}}";

#define STORE_DOWN_FROM_30_MS_FOR(restart_ms)                                                      \
    ("broker.consumers.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 30},"     \
     " \"restart_ms\": " #restart_ms ", \"max_crashes\": 1}")

/* The store is back (empty) at 50 ms: at 110 the job finds no row with its token, its lease
 * lost to the restart. Its effect must not happen, and its delivery goes back to the broker
 * at once (a nack, 5 ms each way), not after RabbitMQ's 30-minute consumer timeout: the
 * redelivery at 120 ms finds no key, reserves it, and runs once. */
START_TEST(test_a_lease_lost_to_a_store_restart_hands_the_delivery_back)
{
    const char *const restarted[] = {STORE_DOWN_FROM_30_MS_FOR(20)};
    Scenario *scenario = test_load(fenced_across_a_store_crash, restarted, 1);
    Metrics run = test_run_mode(scenario, MODE_IDEMPOTENT, 1);
    ck_assert_uint_eq(run.store_crashes, 1);
    ck_assert_uint_eq(run.executions, 2);
    ck_assert_uint_eq(run.effects, 1);
    ck_assert_uint_eq(run.redeliveries, 1);
    ck_assert_uint_eq(run.channel_closures, 0);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], 1);
    double refused = 0;
    ck_assert(metrics_named_value(&run, scenario, "refused@consumers", &refused));
    ck_assert_double_eq(refused, 1);
    free(scenario);
}
END_TEST

/* The store is down from 30 ms to 125 ms, so the lease check at 110 cannot reach it: a store
 * call that fails, which meets when_down as the lookup does. Refuse (the default): the
 * delivery goes back unrun, and so does its redelivery at 120; the one at 130 finds the store
 * back, empty, and runs. Proceed: the job goes on unchecked, as a lookup would. */
START_TEST(test_a_lease_check_while_the_store_is_down_meets_the_rule)
{
    const char *const refuse[] = {STORE_DOWN_FROM_30_MS_FOR(95)};
    Metrics refused = test_run_json(fenced_across_a_store_crash, refuse, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(refused.refused_store_down, 2);
    ck_assert_uint_eq(refused.unchecked_runs, 0);
    ck_assert_uint_eq(refused.executions, 2);
    ck_assert_uint_eq(refused.effects, 1);
    ck_assert_uint_eq(refused.redeliveries, 2);
    ck_assert_uint_eq(refused.channel_closures, 0);
    ck_assert_uint_eq(refused.outcomes[OUTCOME_OK], 1);
    const char *const proceed[] = {STORE_DOWN_FROM_30_MS_FOR(95),
                                   "broker.consumers.idempotency.when_down=\"proceed\""};
    Metrics unchecked = test_run_json(fenced_across_a_store_crash, proceed, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(unchecked.unchecked_runs, 1);
    ck_assert_uint_eq(unchecked.refused_store_down, 0);
    ck_assert_uint_eq(unchecked.executions, 1);
    ck_assert_uint_eq(unchecked.effects, 1);
    ck_assert_uint_eq(unchecked.redeliveries, 0);
    ck_assert_uint_eq(unchecked.channel_closures, 0);
    ck_assert_uint_eq(unchecked.outcomes[OUTCOME_OK], 1);
}
END_TEST

/* A log has no nack and no consumer timeout: a record whose lease was lost to the restart,
 * left unreported, held its partition for good (the run ended with its operation still in
 * progress). Its consumer tries the record again in place: no key now, so it runs once. */
START_TEST(test_a_log_tries_a_record_whose_lease_was_lost_again_in_place)
{
    const char *const log[] = {STORE_DOWN_FROM_30_MS_FOR(20), "broker.family=\"log\"",
                               "broker.consumers.idempotency.when_down=\"proceed\""};
    Scenario *scenario = test_load(fenced_across_a_store_crash, log, 3);
    Metrics run = test_run_mode(scenario, MODE_IDEMPOTENT, 1);
    ck_assert_uint_eq(run.store_crashes, 1);
    ck_assert_uint_eq(run.executions, 2);
    ck_assert_uint_eq(run.effects, 1);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], 1);
    double refused = 0;
    ck_assert(metrics_named_value(&run, scenario, "refused@consumers", &refused));
    ck_assert_double_eq(refused, 1);
    free(scenario);
}
END_TEST

static Suite *consumer_store_crash_suite(void)
{
    Suite *suite = suite_create("consumer_store_crash");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_failing_open_runs_the_requeued_delivery_with_no_key_check);
    tcase_add_test(core, test_failing_open_still_sends_the_messages_key_to_the_provider);
    tcase_add_test(core, test_failing_closed_hands_the_delivery_back_until_the_store_is_back);
    tcase_add_test(core, test_the_diagram_ends_each_job_the_down_store_hands_back);
    tcase_add_test(core, test_failing_closed_against_a_delivery_limit_dead_letters_the_message);
    tcase_add_test(core, test_a_consumer_crash_never_wipes_a_store_of_its_own);
    tcase_add_test(core, test_a_consumer_store_that_crashes_is_a_node_after_every_other);
    tcase_add_test(core, test_a_lease_lost_to_a_store_restart_hands_the_delivery_back);
    tcase_add_test(core, test_a_lease_check_while_the_store_is_down_meets_the_rule);
    tcase_add_test(core, test_a_log_tries_a_record_whose_lease_was_lost_again_in_place);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_consumer_store_crashes_that_cannot_be_modelled_are_refused_at_load);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(consumer_store_crash_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
