/* C29: a debit's balance write (operation.update). A read-modify-write loses every write that
 * lands between its read and its own write; a compare-and-set refuses its write then and
 * runs the handler again; an atomic statement has nothing to lose. Small worlds with
 * constant delays force the overlap, so the counts are exact; a Poisson stream pins the
 * closed form of how often a read-modify-write loses. */
#include "test_world.h"

#define AMOUNT 100
#define BALANCE 1000000

/* N clients each send one debit at 0 ms: every request arrives at 10 ms, every handler
 * reads then and takes 40 ms, every write lands at 50 ms (unbounded workers). */
#define SIMULTANEOUS_WORLD(N)                                                                      \
    "{\"name\": \"lost-update\", \"seed\": 29, \"duration_ms\": 10000,"                            \
    " \"accounts\": [{\"id\": \"wallet\", \"balance\": 1000000}],"                                 \
    " \"clients\": [{\"id\": \"tills\", \"count\": " #N ","                                        \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"at_ms\": [0]},"                                                           \
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 1}}],"                                 \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 10}},"                                \
    " \"server\": {\"workers\": 0, \"service_ms\": 40}}"

static const char *const five_at_once = SIMULTANEOUS_WORLD(5);

static Metrics run_update(const char *json, const char *update, const char *extra, Mode mode)
{
    char setting[64];
    snprintf(setting, sizeof setting, "clients[0].operation.update=\"%s\"", update);
    const char *const overrides[] = {setting, extra};
    return test_run_json(json, overrides, extra != NULL ? 2 : 1, mode);
}

/* ------------------------------------------------------------------ forced overlap */

START_TEST(test_simultaneous_read_modify_writes_keep_only_one_debit)
{
    const int64_t n = 5;
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics run = run_update(five_at_once, "read-modify-write", NULL, mode);
        ck_assert_uint_eq(run.effects, (uint64_t)n); /* every sale happened and was told so */
        ck_assert_uint_eq(run.outcomes[OUTCOME_OK], (uint64_t)n);
        /* the first write lands on the balance all five read; the other four each put back
         * that balance minus one price */
        ck_assert_uint_eq(run.lost_updates, (uint64_t)(n - 1));
        ck_assert_int_eq(run.lost_update_amount, (n - 1) * AMOUNT);
        ck_assert_int_eq(run.balances[0].actual, BALANCE - AMOUNT);
        ck_assert_int_eq(run.balances[0].expected, BALANCE - n * AMOUNT);
        ck_assert_uint_eq(run.update_conflicts, 0);
    }
}
END_TEST

/* Each round of reruns all read the balance the round's first write left, so round k has
 * n - k conflicts: n (n - 1) / 2 in all, and n rounds of 40 ms. */
START_TEST(test_simultaneous_compare_and_sets_rerun_n_choose_two_times)
{
    const uint64_t n = 5;
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics run = run_update(five_at_once, "compare-and-set", NULL, mode);
        ck_assert_uint_eq(run.update_conflicts, n * (n - 1) / 2);
        ck_assert_uint_eq(run.executions, n + n * (n - 1) / 2);
        ck_assert_uint_eq(run.lost_updates, 0);
        ck_assert_uint_eq(run.effects, n);
        ck_assert_int_eq(run.balances[0].actual, BALANCE - (int64_t)n * AMOUNT);
        /* the last sale's answer leaves after n rounds: 10 + n x 40 + 10 ms */
        ck_assert_uint_eq(run.outcomes[OUTCOME_OK], n);
    }
}
END_TEST

START_TEST(test_an_atomic_debit_has_nothing_to_lose)
{
    Metrics run = run_update(five_at_once, "atomic", NULL, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.lost_updates, 0);
    ck_assert_uint_eq(run.update_conflicts, 0);
    ck_assert_uint_eq(run.executions, 5);
    ck_assert_int_eq(run.balances[0].actual, BALANCE - 5 * AMOUNT);
}
END_TEST

START_TEST(test_one_worker_at_a_time_loses_nothing)
{
    Metrics run =
        run_update(five_at_once, "read-modify-write", "server.workers=1", MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.lost_updates, 0);
    ck_assert_int_eq(run.balances[0].actual, BALANCE - 5 * AMOUNT);
}
END_TEST

/* The consumers run the same handler: a group publishing to the broker loses the same. */
START_TEST(test_consumers_lose_updates_as_the_server_does)
{
    const char *const overrides[] = {"clients[0].operation.update=\"read-modify-write\"",
                                     "clients[0].target=\"broker\"",
                                     "broker.consumers={\"workers\": 0, \"service_ms\": 40}"};
    Metrics run = test_run_json(five_at_once, overrides, 3, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(run.effects, 5);
    ck_assert_uint_eq(run.lost_updates, 4);
    ck_assert_int_eq(run.balances[0].actual, BALANCE - AMOUNT);
    const char *const checked[] = {"clients[0].operation.update=\"compare-and-set\"", overrides[1],
                                   overrides[2]};
    Metrics rerun = test_run_json(five_at_once, checked, 3, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(rerun.update_conflicts, 10);
    ck_assert_int_eq(rerun.balances[0].actual, BALANCE - 5 * AMOUNT);
}
END_TEST

/* ------------------------------------------------------------------ keys do not help */

/* A retry storm's doubles are the key store's business; the lost updates are not: the
 * writes that overlap belong to different operations with different keys. */
START_TEST(test_keys_stop_doubles_and_keep_the_lost_updates)
{
    Scenario *scenario = test_load_source_file("scenarios/29_lost_update.json", NULL, 0);
    Metrics retried = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    free(scenario);
    ck_assert_uint_gt(retried.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(keyed.lost_updates, 0);
    /* the balance is off by exactly what was written over, charged twice or never charged */
    for (int i = 0; i < 2; i++) {
        const Metrics *run = i == 0 ? &retried : &keyed;
        ck_assert_int_eq(metrics_balance_error(run),
                         run->lost_update_amount + run->lost_amount - run->double_amount);
    }
}
END_TEST

/* ------------------------------------------------------------------ closed form */

/* One client, an open loop: debits start as a Poisson stream of rate lambda, each handler
 * reads at its arrival and writes s later (constant delays keep the stream Poisson at the
 * server). A write lands on a moved balance iff the previous debit arrived less than s
 * before it: P = 1 - exp(-lambda s), independently per debit (the gaps are independent). */
START_TEST(test_read_modify_write_loses_one_minus_exp_minus_lambda_s)
{
    const double n = 20000, mean_gap_ms = 100, service_ms = 50;
    const char *const poisson[] = {"clients[0].count=1",
                                   ("clients[0].workload={\"ops\": 20000, \"loop\": \"open\","
                                    " \"interval_ms\": {\"dist\": \"exp\", \"mean\": 100}}"),
                                   "duration_ms=4000000", "server.service_ms=50",
                                   "clients[0].operation.update=\"read-modify-write\""};
    Scenario *scenario = test_load(five_at_once, poisson, 5);
    Metrics run = test_run_mode(scenario, MODE_AT_MOST_ONCE, scenario->seed);
    free(scenario);
    ck_assert_uint_eq(run.effects, (uint64_t)n);
    double expected = 1.0 - exp(-service_ms / mean_gap_ms);
    double measured = (double)run.lost_updates / n;
    ck_assert_msg(fabs(measured - expected) <= test_binomial_tolerance(expected, n),
                  "lost updates %.4f per debit, expected %.4f", measured, expected);
    /* the wallet is short of the debits applied by exactly what was written over */
    ck_assert_int_eq(run.balances[0].actual,
                     BALANCE - (int64_t)run.effects * AMOUNT + run.lost_update_amount);
    ck_assert_int_gt(run.lost_update_amount, 0);
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

static void assert_refused(const char *const *overrides, uint32_t count, const char *words)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(five_at_once, strlen(five_at_once), overrides, count, scenario,
                                  &errors));
    bool found = false;
    for (uint32_t e = 0; e < errors.count; e++)
        found |= strcmp(errors.items[e].path, "$.clients[0].operation.update") == 0 &&
                 strstr(errors.items[e].message, words) != NULL;
    ck_assert_msg(found, "no error at $.clients[0].operation.update saying '%s' (first: %s: %s)",
                  words, errors.items[0].path, errors.items[0].message);
    free(scenario);
}

START_TEST(test_unsupported_combinations_are_refused_with_their_path)
{
    const char *const insert[] = {"clients[0].operation={\"kind\": \"insert\", \"update\": "
                                  "\"compare-and-set\"}"};
    assert_refused(insert, 1, "kind 'insert'");
    const char *const gateway[] = {"clients[0].operation.update=\"read-modify-write\"",
                                   "server.use_gateway=true"};
    assert_refused(gateway, 2, "gateway");
    const char *const transaction[] = {"clients[0].operation.update=\"read-modify-write\"",
                                       "server.transaction=true"};
    assert_refused(transaction, 2, "server.transaction");
}
END_TEST

static Suite *balance_update_suite(void)
{
    Suite *suite = suite_create("balance_update");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_simultaneous_read_modify_writes_keep_only_one_debit);
    tcase_add_test(core, test_simultaneous_compare_and_sets_rerun_n_choose_two_times);
    tcase_add_test(core, test_an_atomic_debit_has_nothing_to_lose);
    tcase_add_test(core, test_one_worker_at_a_time_loses_nothing);
    tcase_add_test(core, test_consumers_lose_updates_as_the_server_does);
    tcase_add_test(core, test_keys_stop_doubles_and_keep_the_lost_updates);
    tcase_add_test(core, test_read_modify_write_loses_one_minus_exp_minus_lambda_s);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_unsupported_combinations_are_refused_with_their_path);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(balance_update_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
