/* C23: a set-status whose late retry lands after a newer status overwrites it, whatever the
 * mode; a key stops only a late copy of a step that already ran; a conditional write (a
 * version check) refuses the late write with 412. Small worlds with constant delays and an
 * outage window force the order of arrival, so every count is exact. */
#include "test_world.h"

/* One order, two steps: A (status 1) at 0 ms, B (status 2) at 200 ms. Every message takes
 * 10 ms; a request unanswered for 300 ms is retried once, 100 ms later. OUTAGE drops what
 * the named link sends in its first ms (A's request) or 50 ms (A's answer): A's retry leaves
 * at 400 ms and arrives at 410 ms, after B (210 ms). */
#define ORDERING_WORLD(AT_MS, OUTAGE)                                                              \
    "{\"name\": \"ordering\", \"seed\": 7, \"duration_ms\": 10000,"                                \
    " \"accounts\": [{\"id\": \"shop\"}],"                                                         \
    " \"clients\": [{\"id\": \"orders\", \"count\": 1,"                                            \
    "   \"operation\": {\"kind\": \"set-status\", \"resource\": \"per-client\"},"                  \
    "   \"workload\": {\"at_ms\": " AT_MS "},"                                                     \
    "   \"retry\": {\"timeout_ms\": 300, \"max_attempts\": 2,"                                     \
    "     \"backoff\": {\"base_ms\": 100, \"factor\": 1, \"max_ms\": 100, \"jitter\": "            \
    "\"none\"}}}],"                                                                                \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 10}, \"outages\": [" OUTAGE "]},"     \
    " \"server\": {\"workers\": 0, \"service_ms\": 0}}"

static const char *const request_lost =
    ORDERING_WORLD("[0, 200]", "{\"from_ms\": 0, \"to_ms\": 1, \"link\": \"orders->server\"}");
static const char *const answer_lost =
    ORDERING_WORLD("[0, 200]", "{\"from_ms\": 0, \"to_ms\": 50, \"link\": \"server->orders\"}");
static const char *const in_order =
    ORDERING_WORLD("[0, 1000]", "{\"from_ms\": 0, \"to_ms\": 1, \"link\": \"orders->server\"}");

static const char *const conditional[] = {"clients[0].operation.conditional=true"};

typedef struct {
    Metrics metrics;
    uint32_t status; /* the record's status at the end */
    uint32_t newest; /* the newest status ever applied to it */
} OrderingRun;

static OrderingRun run_world(const char *json, bool is_conditional, Mode mode)
{
    Scenario *scenario = test_load(json, conditional, is_conditional ? 1 : 0);
    World *world = world_create(scenario, mode, scenario->seed, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    OrderingRun run = {.metrics = *world_metrics(world)};
    ck_assert(world_status_record(world, 0, 0, &run.status, &run.newest));
    world_destroy(world);
    free(scenario);
    return run;
}

/* ------------------------------------------------------------------ forced order */

START_TEST(test_a_retried_older_status_overwrites_the_newer_one_without_a_version_check)
{
    for (Mode mode = MODE_AT_LEAST_ONCE; mode <= MODE_IDEMPOTENT; mode++) {
        /* A's request was lost: its retry is the first copy of A the server sees, so even
         * A's key (idempotent) is new to the store and the write runs */
        OrderingRun run = run_world(request_lost, false, mode);
        ck_assert_uint_eq(run.status, 1); /* A, though B was applied */
        ck_assert_uint_eq(run.newest, 2);
        ck_assert_uint_eq(run.metrics.stale_overwrites, 1);
        ck_assert_uint_eq(run.metrics.stale_final, 1);
        ck_assert_uint_eq(run.metrics.status_412, 0);
        ck_assert_uint_eq(run.metrics.outcomes[OUTCOME_OK], 2); /* every outcome looks fine */
        ck_assert_uint_eq(run.metrics.replayed, 0);
    }
}
END_TEST

START_TEST(test_a_version_check_refuses_the_late_write_with_412)
{
    for (Mode mode = MODE_AT_LEAST_ONCE; mode <= MODE_IDEMPOTENT; mode++) {
        OrderingRun run = run_world(request_lost, true, mode);
        ck_assert_uint_eq(run.status, 2); /* B stays */
        ck_assert_uint_eq(run.newest, 2);
        ck_assert_uint_eq(run.metrics.stale_overwrites, 0);
        ck_assert_uint_eq(run.metrics.stale_final, 0);
        ck_assert_uint_eq(run.metrics.status_412, 1);
        ck_assert_uint_eq(run.metrics.effects, 1); /* the refused write changed nothing */
        /* A never applied and its client was told 412: lost, and the client knows */
        ck_assert_uint_eq(run.metrics.outcomes[OUTCOME_LOST], 1);
        ck_assert_uint_eq(run.metrics.client_failed, 1);
    }
}
END_TEST

START_TEST(test_at_most_once_loses_the_step_instead)
{
    for (int is_conditional = 0; is_conditional <= 1; is_conditional++) {
        OrderingRun run = run_world(request_lost, is_conditional, MODE_AT_MOST_ONCE);
        ck_assert_uint_eq(run.status, 2);
        ck_assert_uint_eq(run.metrics.stale_overwrites, 0);
        ck_assert_uint_eq(run.metrics.status_412, 0);
        ck_assert_uint_eq(run.metrics.outcomes[OUTCOME_LOST], 1);
    }
}
END_TEST

/* A's answer was lost, not its request: A ran at 10 ms, and the retry is a second copy. */
START_TEST(test_a_key_stops_only_the_late_copy_of_a_step_that_already_ran)
{
    OrderingRun plain = run_world(answer_lost, false, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(plain.status, 1);
    ck_assert_uint_eq(plain.metrics.stale_overwrites, 1);
    ck_assert_uint_eq(plain.metrics.outcomes[OUTCOME_DOUBLE], 1); /* A changed the record twice */
    OrderingRun keyed = run_world(answer_lost, false, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.status, 2);
    ck_assert_uint_eq(keyed.metrics.stale_overwrites, 0);
    ck_assert_uint_eq(keyed.metrics.replayed, 1);
    ck_assert_uint_eq(keyed.metrics.outcomes[OUTCOME_OK], 2);
    /* with the version check and no key, the retry of A is refused although A ran: the
     * client is told 412 for its own write (phantom) */
    OrderingRun checked = run_world(answer_lost, true, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(checked.status, 2);
    ck_assert_uint_eq(checked.metrics.status_412, 1);
    ck_assert_uint_eq(checked.metrics.outcomes[OUTCOME_PHANTOM], 1);
}
END_TEST

START_TEST(test_in_order_arrival_overwrites_nothing)
{
    for (int is_conditional = 0; is_conditional <= 1; is_conditional++) {
        for (Mode mode = MODE_AT_MOST_ONCE; mode <= MODE_IDEMPOTENT; mode++) {
            OrderingRun run = run_world(in_order, is_conditional, mode);
            ck_assert_uint_eq(run.status, 2);
            ck_assert_uint_eq(run.metrics.stale_overwrites, 0);
            ck_assert_uint_eq(run.metrics.stale_final, 0);
            ck_assert_uint_eq(run.metrics.status_412, 0);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ closed form */

/* Requests lost with probability p, answers never: a client's record is overwritten iff A's
 * first request is lost, A's retry arrives (410 ms) and B's first request arrived (210 ms):
 * P = p (1-p)^2, in both retrying modes alike (the fates are common), 0 at-most-once. */
START_TEST(test_stale_overwrites_follow_p_times_one_minus_p_squared)
{
    const double p = 0.3, n = 20000;
    const char *const lossy[] = {"clients[0].count=20000", "network.outages=[]",
                                 "network.links.orders->server.loss=0.3"};
    Scenario *scenario = test_load(request_lost, lossy, 3);
    Metrics retried = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    Metrics once = test_run_mode(scenario, MODE_AT_MOST_ONCE, scenario->seed);
    free(scenario);
    double expected = p * (1 - p) * (1 - p);
    double measured = (double)retried.stale_overwrites / n;
    ck_assert_msg(fabs(measured - expected) <= test_binomial_tolerance(expected, n),
                  "stale overwrites %.4f per client, expected %.4f", measured, expected);
    ck_assert_uint_eq(keyed.stale_overwrites, retried.stale_overwrites);
    ck_assert_uint_eq(retried.stale_final, retried.stale_overwrites);
    ck_assert_uint_eq(once.stale_overwrites, 0);

    Scenario *checked = test_load(
        request_lost, (const char *const[]){lossy[0], lossy[1], lossy[2], conditional[0]}, 4);
    Metrics refused = test_run_mode(checked, MODE_AT_LEAST_ONCE, checked->seed);
    free(checked);
    ck_assert_uint_eq(refused.stale_overwrites, 0);
    ck_assert_uint_eq(refused.status_412, retried.stale_overwrites);
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

START_TEST(test_unsupported_combinations_are_refused_with_their_path)
{
    const char *const debit[] = {"clients[0].operation.kind=\"debit\""};
    test_assert_refused(request_lost, debit, 1, "$.clients[0].operation.resource", "'per-client'");
    const char *const own_record[] = {"clients[0].operation.resource=\"per-operation\"",
                                      "clients[0].operation.conditional=true"};
    test_assert_refused(request_lost, own_record, 2, "$.clients[0].operation.conditional",
                        "resource 'per-client'");
    const char *const transaction[] = {"server.transaction=true"};
    test_assert_refused(request_lost, transaction, 1, "$.clients[0].operation.resource",
                        "server.transaction");
    const char *const inbox[] = {"clients[0].target=\"broker\"", "broker.consumers.inbox=true"};
    test_assert_refused(request_lost, inbox, 2, "$.clients[0].operation.resource",
                        "broker.consumers.inbox");
}
END_TEST

static Suite *ordering_suite(void)
{
    Suite *suite = suite_create("ordering");
    TCase *core = tcase_create("Core");
    tcase_add_test(core,
                   test_a_retried_older_status_overwrites_the_newer_one_without_a_version_check);
    tcase_add_test(core, test_a_version_check_refuses_the_late_write_with_412);
    tcase_add_test(core, test_at_most_once_loses_the_step_instead);
    tcase_add_test(core, test_a_key_stops_only_the_late_copy_of_a_step_that_already_ran);
    tcase_add_test(core, test_in_order_arrival_overwrites_nothing);
    tcase_add_test(core, test_stale_overwrites_follow_p_times_one_minus_p_squared);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_unsupported_combinations_are_refused_with_their_path);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(ordering_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
