/* C31: a deadline carried to the server (server.deadline). Small worlds with constant delays
 * make every count exact: N requests sent at once queue at one worker, each running S ms,
 * each client hanging up after T ms. Request i (from 0) starts at d + S i and reaches its
 * effect at d + S (i + 1), so a handler that ignores its deadline charges every one and
 * works for nobody once d + S (i + 1) >= T; a handler that drops expired work starts those
 * with S i < T and charges those with S (i + 1) < T (its deadline counts from arrival, d
 * later than the client's, and the queue's offset is d too), leaving for nobody only the
 * effects in [T - d, T). */
#include "test_world.h"

#define AMOUNT 100

/* N clients each send one debit at 0 ms to one worker of S ms, over links of D ms; each
 * waits T ms. */
#define QUEUE_WORLD(N, S, T, D)                                                                    \
    "{\"name\": \"deadline\", \"seed\": 31, \"duration_ms\": 10000,"                               \
    " \"accounts\": [{\"id\": \"shop\", \"balance\": 1000000}],"                                   \
    " \"clients\": [{\"id\": \"phones\", \"count\": " #N ","                                       \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"at_ms\": [0]},"                                                           \
    "   \"retry\": {\"timeout_ms\": " #T ", \"max_attempts\": 1}}],"                               \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": " #D "}},"                            \
    " \"server\": {\"workers\": 1, \"service_ms\": " #S "}}"

static Metrics run_deadline(const char *json, const char *deadline, const char *extra, Mode mode)
{
    char setting[64];
    snprintf(setting, sizeof setting, "server.deadline=\"%s\"", deadline);
    const char *const overrides[] = {setting, extra};
    return test_run_json(json, overrides, extra != NULL ? 2 : 1, mode);
}

/* How many of n queued requests reach their effect at or after t_ms (ignored deadline). */
static uint64_t effects_at_or_after(uint64_t n, double service_ms, double delay_ms, double t_ms)
{
    uint64_t count = 0;
    for (uint64_t i = 0; i < n; i++)
        count += delay_ms + service_ms * (double)(i + 1) >= t_ms;
    return count;
}

/* ------------------------------------------------------------------ a queue past its deadline */

START_TEST(test_an_ignored_deadline_charges_every_queued_request_and_counts_the_late_ones)
{
    const uint64_t n = 8;
    Metrics run = run_deadline(QUEUE_WORLD(8, 100, 350, 5), "ignored", NULL, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(run.executions, n);
    ck_assert_uint_eq(run.effects, n);
    ck_assert_uint_eq(run.work_after_deadline, effects_at_or_after(n, 100, 5, 350)); /* 5 */
    ck_assert_uint_eq(run.work_after_deadline, n - 3);
    ck_assert_uint_eq(run.deadline_drops, 0);
    /* charged, and the client hung up before the answer: told nothing */
    ck_assert_uint_eq(run.outcomes[OUTCOME_PHANTOM], n - 3);
}
END_TEST

START_TEST(test_no_deadline_carried_counts_nothing_and_changes_nothing)
{
    Metrics none = run_deadline(QUEUE_WORLD(8, 100, 350, 5), "none", NULL, MODE_AT_MOST_ONCE);
    Metrics ignored = run_deadline(QUEUE_WORLD(8, 100, 350, 5), "ignored", NULL, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(none.work_after_deadline, 0);
    ck_assert_uint_eq(none.deadline_drops, 0);
    /* carrying a deadline nobody reads is the same run */
    ck_assert_uint_eq(none.effects, ignored.effects);
    ck_assert_uint_eq(none.events, ignored.events);
    ck_assert_uint_eq(none.outcomes[OUTCOME_PHANTOM], ignored.outcomes[OUTCOME_PHANTOM]);
}
END_TEST

/* S i < T starts (i = 0..3 of 8: ceil(T / S) = 4 runs), S (i + 1) < T charges (3); the
 * fourth run is dropped before its effect, the other four before a worker takes them. */
START_TEST(test_a_dropped_deadline_starts_ceil_t_over_s_and_charges_those_done_in_time)
{
    const uint64_t n = 8;
    Metrics run = run_deadline(QUEUE_WORLD(8, 100, 350, 5), "drop", NULL, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(run.executions, 4);
    ck_assert_uint_eq(run.effects, 3);
    ck_assert_uint_eq(run.deadline_drops, n - 3);
    ck_assert_uint_eq(run.work_after_deadline, 0);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], 3);
    ck_assert_uint_eq(run.outcomes[OUTCOME_LOST], n - 3); /* unknown to the client, uncharged */
    ck_assert_uint_eq(run.outcomes[OUTCOME_PHANTOM], 0);
}
END_TEST

/* The server's deadline lies d after the client's (grpc-timeout counts from arrival): with
 * T = 310 and d = 20, request 2 charges at 320, after its client gave up at 310 and before
 * the server's 330. That one effect is the slack the header leaves. */
START_TEST(test_a_deadline_counted_from_arrival_leaves_the_transit_time_of_slack)
{
    Metrics ignored =
        run_deadline(QUEUE_WORLD(8, 100, 310, 20), "ignored", NULL, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(ignored.work_after_deadline, effects_at_or_after(8, 100, 20, 310)); /* 6 */
    Metrics dropped = run_deadline(QUEUE_WORLD(8, 100, 310, 20), "drop", NULL, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(dropped.effects, 3);             /* S (i + 1) < T: i = 0, 1, 2 */
    ck_assert_uint_eq(dropped.work_after_deadline, 1); /* 20 + 300 in [310 - 20, 310 + 20) */
}
END_TEST

/* ------------------------------------------------------------------ the retry beside it */

/* One click, two workers, a handler of 500 ms, a client that waits 300 ms and retries after
 * 100 ms. The retry runs beside the abandoned first try: without a key both charge, both
 * after their caller gave up; the key makes the retry a 409 and saves none of the first
 * try's work; dropping expired work charges nothing at all (S > T: no run ends in time). */
#define RETRY_WORLD                                                                                \
    "{\"name\": \"deadline-retry\", \"seed\": 31, \"duration_ms\": 10000,"                         \
    " \"accounts\": [{\"id\": \"shop\", \"balance\": 1000000}],"                                   \
    " \"clients\": [{\"id\": \"phone\", \"count\": 1,"                                             \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"at_ms\": [0]}, \"key\": \"per-click\","                                   \
    "   \"retry\": {\"timeout_ms\": 300, \"max_attempts\": 2,"                                     \
    "     \"backoff\": {\"base_ms\": 100, \"jitter\": \"none\"}}}],"                               \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}},"                                 \
    " \"server\": {\"workers\": 2, \"service_ms\": 500}}"

START_TEST(test_the_key_stops_the_concurrent_retry_and_saves_none_of_the_abandoned_work)
{
    Metrics unkeyed = run_deadline(RETRY_WORLD, "ignored", NULL, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(unkeyed.effects, 2);
    ck_assert_uint_eq(unkeyed.outcomes[OUTCOME_DOUBLE], 1);
    ck_assert_uint_eq(unkeyed.work_after_deadline, 2);
    Metrics keyed = run_deadline(RETRY_WORLD, "ignored", NULL, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.status_409, 1);
    ck_assert_uint_eq(keyed.effects, 1);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(keyed.work_after_deadline, 1); /* the first try, for nobody */
    for (Mode mode = MODE_AT_LEAST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics dropped = run_deadline(RETRY_WORLD, "drop", NULL, mode);
        ck_assert_uint_eq(dropped.effects, 0);
        ck_assert_uint_eq(dropped.work_after_deadline, 0);
        ck_assert_uint_eq(dropped.outcomes[OUTCOME_LOST], 1);
    }
    Metrics dropped = run_deadline(RETRY_WORLD, "drop", NULL, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(dropped.deadline_drops, 2); /* both tries, each before its charge */
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

static void assert_refused(const char *extra, const char *words)
{
    static const char json[] = QUEUE_WORLD(2, 100, 350, 5);
    const char *const overrides[] = {"server.deadline=\"drop\"", extra};
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), overrides, 2, scenario, &errors));
    bool found = false;
    for (uint32_t e = 0; e < errors.count; e++)
        found |= strcmp(errors.items[e].path, "$.server.deadline") == 0 &&
                 strstr(errors.items[e].message, words) != NULL;
    ck_assert_msg(found, "no error at $.server.deadline saying '%s' (first: %s: %s)", words,
                  errors.items[0].path, errors.items[0].message);
    free(scenario);
}

START_TEST(test_a_proxy_or_late_answers_accepted_are_refused_with_their_path)
{
    assert_refused("clients[0].via=\"proxy\"", "via the proxy");
    assert_refused("clients[0].retry.late_response=\"accept\"", "accepts late answers");
}
END_TEST

static Suite *deadline_suite(void)
{
    Suite *suite = suite_create("deadline");
    TCase *core = tcase_create("Core");
    tcase_add_test(core,
                   test_an_ignored_deadline_charges_every_queued_request_and_counts_the_late_ones);
    tcase_add_test(core, test_no_deadline_carried_counts_nothing_and_changes_nothing);
    tcase_add_test(core,
                   test_a_dropped_deadline_starts_ceil_t_over_s_and_charges_those_done_in_time);
    tcase_add_test(core, test_a_deadline_counted_from_arrival_leaves_the_transit_time_of_slack);
    tcase_add_test(core,
                   test_the_key_stops_the_concurrent_retry_and_saves_none_of_the_abandoned_work);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_a_proxy_or_late_answers_accepted_are_refused_with_their_path);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(deadline_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
