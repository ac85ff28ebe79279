/* C34: scheduled jobs that run twice. A billing job charges 200 customers once per period;
 * the scheduler has two instances (clients[].schedule), and the second fires each period too
 * (both_fire) skew_ms after the first. No loss, constant delays, unbounded workers: the
 * first run is answered 40 ms after it fires (10 + 20 + 10), so with a skew of 100 ms each
 * run executes once. A key made per run (per-click) differs between the two runs: every
 * period is charged exactly twice in every mode. A key made of the customer and the period
 * (business-hash) is the same for both: the idempotent store charges each period once and
 * answers the second run from its record; with a skew of 0 the second run meets the first
 * in progress (409) and its retry gets the replay. */
#include "test_world.h"

#define PERIODS 400u /* 200 customers, 2 periods each */

static const char scheduler_world[] =
    "{\"name\": \"scheduler\", \"seed\": 34, \"duration_ms\": 10000,"
    " \"accounts\": [{\"id\": \"customers\", \"balance\": 100000000}],"
    " \"clients\": ["
    "  {\"id\": \"billing\", \"count\": 200, \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0, 2000]}, \"key\": \"per-click\","
    "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 3, \"conflict_delay_ms\": 500},"
    "   \"schedule\": {\"instances\": 2, \"both_fire\": 1,"
    "                  \"skew_ms\": {\"dist\": \"const\", \"value\": 100}}}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 10}},"
    " \"server\": {\"workers\": 0, \"service_ms\": 20}}";

static const char *const period_key[] = {"clients[0].key=\"business-hash\""};

START_TEST(test_a_key_per_run_charges_every_period_twice_in_every_mode)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics run = test_run_json(scheduler_world, NULL, 0, mode);
        ck_assert_uint_eq(run.second_firings, PERIODS);
        ck_assert_uint_eq(run.effects, 2 * PERIODS);
        ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], PERIODS);
        ck_assert_uint_eq(run.replayed, 0);
    }
}
END_TEST

START_TEST(test_a_period_key_charges_each_period_once_in_the_idempotent_mode)
{
    Metrics run = test_run_json(scheduler_world, period_key, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.second_firings, PERIODS);
    ck_assert_uint_eq(run.effects, PERIODS);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], PERIODS);
    ck_assert_uint_eq(run.replayed, PERIODS); /* the second run hears the first's answer */
    ck_assert_uint_eq(run.status_409, 0);
}
END_TEST

START_TEST(test_a_period_key_needs_a_store_to_check_it)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_IDEMPOTENT; mode++) {
        Metrics run = test_run_json(scheduler_world, period_key, 1, mode);
        ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], PERIODS);
    }
}
END_TEST

START_TEST(test_runs_that_overlap_meet_in_progress_then_replay)
{
    const char *const overlapping[] = {"clients[0].key=\"business-hash\"",
                                       "clients[0].schedule.skew_ms={\"dist\": \"const\", "
                                       "\"value\": 0}"};
    Metrics run = test_run_json(scheduler_world, overlapping, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.effects, PERIODS);
    ck_assert_uint_eq(run.status_409, PERIODS); /* both fire at once: one reserves */
    ck_assert_uint_eq(run.replayed, PERIODS);   /* the other's retry, 500 ms later */
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], PERIODS);
}
END_TEST

START_TEST(test_one_instance_fires_each_period_once)
{
    const char *const one[] = {"clients[0].schedule.instances=1"};
    Metrics run = test_run_json(scheduler_world, one, 1, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(run.second_firings, 0);
    ck_assert_uint_eq(run.effects, PERIODS);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], PERIODS);
}
END_TEST

/* A leader whose lease lapses now and then: the second instance fires a period with chance
 * both_fire, and with a key per run each such period is charged twice, no other. */
START_TEST(test_a_lapsing_lease_doubles_as_many_periods_as_it_fires_twice)
{
    const double both_fire = 0.3;
    const char *const lapsing[] = {"clients[0].schedule.both_fire=0.3",
                                   "clients[0].workload.at_ms=[0, 1000, 2000, 3000, 4000]"};
    const double periods = 200.0 * 5;
    Metrics run = test_run_json(scheduler_world, lapsing, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], run.second_firings);
    ck_assert_uint_eq(run.effects, (uint64_t)periods + run.second_firings);
    double share = (double)run.second_firings / periods;
    ck_assert_double_eq_tol(share, both_fire, test_binomial_tolerance(both_fire, periods));
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

START_TEST(test_a_double_click_beside_a_second_instance_is_refused)
{
    const char *const clicked[] = {"clients[0].double_click.prob=0.1"};
    test_assert_refused(scheduler_world, clicked, 1, "$.clients[0].double_click.prob",
                        "expected 0 for a scheduler with two instances");
    const char *const three[] = {"clients[0].schedule.instances=3"};
    test_assert_refused(scheduler_world, three, 1, "$.clients[0].schedule.instances", "3");
}
END_TEST

static Suite *scheduler_suite(void)
{
    Suite *suite = suite_create("scheduler");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 30);
    tcase_add_test(core, test_a_key_per_run_charges_every_period_twice_in_every_mode);
    tcase_add_test(core, test_a_period_key_charges_each_period_once_in_the_idempotent_mode);
    tcase_add_test(core, test_a_period_key_needs_a_store_to_check_it);
    tcase_add_test(core, test_runs_that_overlap_meet_in_progress_then_replay);
    tcase_add_test(core, test_one_instance_fires_each_period_once);
    tcase_add_test(core, test_a_lapsing_lease_doubles_as_many_periods_as_it_fires_twice);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_a_double_click_beside_a_second_instance_is_refused);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(scheduler_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
