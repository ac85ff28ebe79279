/* C32: a client's HTTP library that sends a request again when its connection closed before
 * any byte of the answer (clients[].library_retries), and the server's connections that close
 * (server.stale_connections, unread; server.closes_before_answer, after the handler). No loss,
 * constant delays, unbounded workers, so only the closes decide: with one library retry and
 * closes after the handler with chance c, the app's one attempt runs twice with chance c; at
 * most once that is a double (P = c), keyed it is a replay (0 doubles; phantom only when both
 * sends close, c^2). A close before the request is read (chance s) costs nothing but a send:
 * lost only when both sends find a stale connection (s^2). */
#include "test_world.h"

#define OPERATIONS 20000.0

/* 20,000 payments of one click each, one attempt, one library retry; the rest by overrides. */
static const char library_world[] = "{\"name\": \"library\", \"seed\": 32, \"duration_ms\": 10000,"
                                    " \"accounts\": [{\"id\": \"shop\", \"balance\": 1000000000}],"
                                    " \"clients\": [{\"id\": \"app\", \"count\": 20000,"
                                    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
                                    "   \"workload\": {\"at_ms\": [0]}, \"key\": \"per-click\","
                                    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 1},"
                                    "   \"library_retries\": 1}],"
                                    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 10}},"
                                    " \"server\": {\"workers\": 0, \"service_ms\": 20}}";

static Metrics run_library(const char *const *overrides, uint32_t count, Mode mode)
{
    return test_run_json(library_world, overrides, count, mode);
}

static void assert_share(uint64_t count, double expected, const char *what)
{
    double measured = (double)count / OPERATIONS;
    ck_assert_msg(fabs(measured - expected) <= test_binomial_tolerance(expected, OPERATIONS),
                  "%s: %.4f per payment, expected %.4f", what, measured, expected);
}

/* ------------------------------------------------------------------ closes after the handler */

START_TEST(test_a_keyed_replay_charges_twice_at_most_once_with_chance_c)
{
    const double c = 0.1;
    const char *const overrides[] = {"server.closes_before_answer=0.1"};
    Metrics run = run_library(overrides, 1, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(run.attempts, (uint64_t)OPERATIONS); /* the app sent each once */
    assert_share(run.outcomes[OUTCOME_DOUBLE], c, "double");
    ck_assert_uint_eq(run.library_retries, run.outcomes[OUTCOME_DOUBLE]);
    ck_assert_uint_eq(run.executions, (uint64_t)OPERATIONS + run.library_retries);
    /* every library send that closed too reaches the app as an error: a double untold */
    assert_share(run.connection_closes - run.library_retries, c * c, "both sends closed");
}
END_TEST

START_TEST(test_the_key_turns_the_library_replay_into_a_stored_answer)
{
    const double c = 0.1;
    const char *const overrides[] = {"server.closes_before_answer=0.1"};
    Metrics run = run_library(overrides, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(run.effects, (uint64_t)OPERATIONS);
    ck_assert_uint_eq(run.replayed, run.library_retries); /* each second send: the stored answer */
    assert_share(run.library_retries, c, "library retries");
    assert_share(run.outcomes[OUTCOME_PHANTOM], c * c, "phantom (both sends closed)");
}
END_TEST

START_TEST(test_without_a_key_header_go_does_not_replay_and_any_does)
{
    const double c = 0.1;
    const char *const keyless[] = {"server.closes_before_answer=0.1", "clients[0].key=\"none\""};
    Metrics quiet = run_library(keyless, 2, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(quiet.library_retries, 0);
    ck_assert_uint_eq(quiet.outcomes[OUTCOME_DOUBLE], 0);
    assert_share(quiet.outcomes[OUTCOME_PHANTOM], c, "phantom (the error reached the app)");
    const char *const any[] = {"server.closes_before_answer=0.1", "clients[0].key=\"none\"",
                               "clients[0].library_replays=\"any\""};
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics run = run_library(any, 3, mode);
        assert_share(run.outcomes[OUTCOME_DOUBLE], c, "double (replayed without a key)");
    }
}
END_TEST

/* ------------------------------------------------------------------ stale connections */

START_TEST(test_a_stale_connection_costs_a_send_and_loses_only_when_both_are_stale)
{
    const double s = 0.2;
    const char *const overrides[] = {"server.stale_connections=0.2"};
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics run = run_library(overrides, 1, mode);
        ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
        assert_share(run.library_retries, s, "library retries");
        ck_assert_uint_eq(run.executions, run.effects); /* a stale send never ran */
        if (mode == MODE_AT_MOST_ONCE)
            assert_share(run.outcomes[OUTCOME_LOST], s * s, "lost (both sends stale)");
    }
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

START_TEST(test_a_publish_or_a_proxy_between_is_refused_with_its_path)
{
    const char *const broker[] = {"clients[0].target=\"broker\""};
    test_assert_refused(library_world, broker, 1, "$.clients[0].library_retries",
                        "publishes to the broker");
    const char *const proxy[] = {"clients[0].via=\"proxy\""};
    test_assert_refused(library_world, proxy, 1, "$.clients[0].library_retries", "via the proxy");
    const char *const closes[] = {"clients[0].library_retries=0", "clients[0].via=\"proxy\"",
                                  "server.closes_before_answer=0.1"};
    test_assert_refused(library_world, closes, 3, "$.server.closes_before_answer", "via the proxy");
}
END_TEST

static Suite *library_retries_suite(void)
{
    Suite *suite = suite_create("library_retries");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 30);
    tcase_add_test(core, test_a_keyed_replay_charges_twice_at_most_once_with_chance_c);
    tcase_add_test(core, test_the_key_turns_the_library_replay_into_a_stored_answer);
    tcase_add_test(core, test_without_a_key_header_go_does_not_replay_and_any_does);
    tcase_add_test(core, test_a_stale_connection_costs_a_send_and_loses_only_when_both_are_stale);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_a_publish_or_a_proxy_between_is_refused_with_its_path);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(library_retries_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
