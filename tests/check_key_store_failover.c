/* C19: a failover to a replica replication_lag_ms behind loses the rows written within the
 * lag; retries that come after it find no key and run again. A replica in step loses none. */
#include "test_world.h"

START_TEST(test_a_failover_to_a_lagging_replica_loses_recent_keys)
{
    const char *const in_step[] = {"server.idempotency.replication_lag_ms=0.001"};
    Scenario *lagging = test_load_source_file("scenarios/19_key_store_failover.json", NULL, 0);
    Scenario *synced = test_load_source_file("scenarios/19_key_store_failover.json", in_step, 1);
    Metrics lost = test_run_mode(lagging, MODE_IDEMPOTENT, lagging->seed);
    Metrics kept = test_run_mode(synced, MODE_IDEMPOTENT, synced->seed);
    ck_assert_uint_gt(lost.keys_lost_in_failover, 0);
    ck_assert_uint_gt(lost.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_le(lost.outcomes[OUTCOME_DOUBLE], lost.keys_lost_in_failover);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_DOUBLE], 0);
    /* the same world without keys: the failovers change nothing there */
    Metrics unkeyed = test_run_mode(lagging, MODE_AT_LEAST_ONCE, lagging->seed);
    ck_assert_uint_eq(unkeyed.keys_lost_in_failover, 0);
    free(lagging);
    free(synced);
}
END_TEST

static Suite *failover_suite(void)
{
    Suite *suite = suite_create("key_store_failover");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_failover_to_a_lagging_replica_loses_recent_keys);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(failover_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
