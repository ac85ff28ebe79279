/* The app that restarts after sending (C17): its per-click key lived in memory, so the
 * restarted app's retry carries a new key and the keyed server charges it again, exactly as
 * often as at-least-once does; a persisted key or one derived from the order is the same
 * after the restart and is answered from the store. */
#include "test_world.h"

START_TEST(test_a_key_held_in_memory_does_not_survive_a_restart)
{
    const char *const persisted[] = {"clients[0].key_persisted=true"};
    const char *const derived[] = {"clients[0].key=\"business-hash\""};
    Scenario *memory = test_load_source_file("scenarios/17_app_loses_key.json", NULL, 0);
    Scenario *saved = test_load_source_file("scenarios/17_app_loses_key.json", persisted, 1);
    Scenario *ordered = test_load_source_file("scenarios/17_app_loses_key.json", derived, 1);
    Metrics keyed = test_run_mode(memory, MODE_IDEMPOTENT, memory->seed);
    Metrics unkeyed = test_run_mode(memory, MODE_AT_LEAST_ONCE, memory->seed);
    Metrics kept = test_run_mode(saved, MODE_IDEMPOTENT, saved->seed);
    Metrics from_order = test_run_mode(ordered, MODE_IDEMPOTENT, ordered->seed);
    ck_assert_uint_gt(unkeyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], unkeyed.outcomes[OUTCOME_DOUBLE]);
    ck_assert_uint_eq(keyed.replayed, 0);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(kept.replayed, unkeyed.outcomes[OUTCOME_DOUBLE]);
    ck_assert_uint_eq(from_order.outcomes[OUTCOME_DOUBLE], 0);
    free(memory);
    free(saved);
    free(ordered);
}
END_TEST

static Suite *app_restart_suite(void)
{
    Suite *suite = suite_create("app_restart");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_key_held_in_memory_does_not_survive_a_restart);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(app_restart_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
