/* The key protocol is one module for the server and the consumers: the same cases, run on
 * both sides, must give the same verdicts. Every request (or publish) is duplicated by the
 * network with a constant delay, so two copies with one key arrive at the same instant:
 * atomic reservation runs one of them, check-then-insert's race window and
 * execute-then-save's late save run both. */
#include "test_world.h"

#define OPERATIONS 20

static const char *const server_side =
    "{\"name\": \"p\", \"seed\": 3, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 4, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 5, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}},"
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 1}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}},"
    "   \"links\": {\"web->server\": {\"duplicate\": 1}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 100}}}";

static const char *const consumer_side =
    "{\"name\": \"p\", \"seed\": 3, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 4, \"key\": \"message-id\", \"target\": "
    "\"broker\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 5, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}},"
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 1}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 10}},"
    "   \"links\": {\"web->broker\": {\"duplicate\": 1}}},"
    " \"broker\": {\"ack_timeout_ms\": 600000, \"prefetch\": 100,"
    "   \"consumers\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 100}}}}";

typedef struct {
    const char *reserve;
    uint64_t doubles; /* of OPERATIONS, each sent as two copies at one instant */
} ProtocolCase;

static const ProtocolCase cases[] = {
    {"atomic", 0},
    {"check-then-insert", OPERATIONS},
    {"execute-then-save", OPERATIONS},
};

static Metrics run_side(const char *json, const char *store, const ProtocolCase *c)
{
    char reserve[128], window[128];
    snprintf(reserve, sizeof reserve, "%s.idempotency.reserve=\"%s\"", store, c->reserve);
    snprintf(window, sizeof window, "%s.idempotency.race_window_ms=50", store);
    const char *const overrides[] = {reserve, window};
    return test_run_json(json, overrides, 2, MODE_IDEMPOTENT);
}

START_TEST(test_the_server_and_the_consumers_decide_alike)
{
    const ProtocolCase *c = &cases[_i];
    Metrics server = run_side(server_side, "server", c);
    Metrics consumers = run_side(consumer_side, "broker.consumers", c);
    ck_assert_uint_eq(server.operations, OPERATIONS);
    ck_assert_uint_eq(consumers.operations, OPERATIONS);
    ck_assert_msg(server.outcomes[OUTCOME_DOUBLE] == c->doubles, "server, %s: %llu doubles",
                  c->reserve, (unsigned long long)server.outcomes[OUTCOME_DOUBLE]);
    ck_assert_msg(consumers.outcomes[OUTCOME_DOUBLE] == c->doubles, "consumers, %s: %llu doubles",
                  c->reserve, (unsigned long long)consumers.outcomes[OUTCOME_DOUBLE]);
    ck_assert_uint_eq(server.effects, OPERATIONS + c->doubles);
    ck_assert_uint_eq(consumers.effects, OPERATIONS + c->doubles);
}
END_TEST

/* Without a key store the same duplicates are charged twice on both sides: the cases above
 * measure the protocol, not the setup. */
START_TEST(test_without_keys_every_copy_runs)
{
    Scenario *server = test_load(server_side, NULL, 0);
    Scenario *consumers = test_load(consumer_side, NULL, 0);
    Metrics server_metrics = test_run_mode(server, MODE_AT_LEAST_ONCE, server->seed);
    Metrics consumer_metrics = test_run_mode(consumers, MODE_AT_LEAST_ONCE, consumers->seed);
    ck_assert_uint_eq(server_metrics.outcomes[OUTCOME_DOUBLE], OPERATIONS);
    ck_assert_uint_eq(consumer_metrics.outcomes[OUTCOME_DOUBLE], OPERATIONS);
    free(server);
    free(consumers);
}
END_TEST

/* A lease shorter than the handler (11_lease_fencing: 3 s handler, 1 s lock timeout, no
 * crash): retries take the key over while the first run goes on, and without fencing every
 * holder charges. With fencing each takeover bumps the token and only the last holder's
 * effect is accepted: one charge per payment, the stale holders answered 409. */
START_TEST(test_fencing_refuses_a_stale_lease_holder)
{
    const char *const fenced[] = {"server.idempotency.fencing=true"};
    Scenario *plain = test_load_source_file("scenarios/11_lease_fencing.json", NULL, 0);
    Scenario *fencing = test_load_source_file("scenarios/11_lease_fencing.json", fenced, 1);
    Metrics without = test_run_mode(plain, MODE_IDEMPOTENT, plain->seed);
    Metrics with = test_run_mode(fencing, MODE_IDEMPOTENT, fencing->seed);
    ck_assert_uint_gt(without.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(without.effects, without.operations);
    ck_assert_uint_eq(with.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(with.effects, with.operations);
    ck_assert_uint_gt(with.status_409, 0);
    free(plain);
    free(fencing);
}
END_TEST

static Suite *key_protocol_suite(void)
{
    Suite *suite = suite_create("key_protocol");
    TCase *core = tcase_create("Core");
    tcase_add_loop_test(core, test_the_server_and_the_consumers_decide_alike, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(core, test_without_keys_every_copy_runs);
    tcase_add_test(core, test_fencing_refuses_a_stale_lease_holder);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(key_protocol_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
