/* C18: a redrive two days after the dead-lettering meets keyed consumers that kept their
 * keys one day: every redriven message is charged again; with a week's TTL, none is. */
#include "test_world.h"

START_TEST(test_a_redrive_past_the_key_ttl_charges_again)
{
    const char *const week[] = {"broker.consumers.idempotency.ttl_ms=604800000"};
    Scenario *day = test_load_source_file("scenarios/18_dlq_redrive.json", NULL, 0);
    Scenario *longer = test_load_source_file("scenarios/18_dlq_redrive.json", week, 1);
    Metrics forgot = test_run_mode(day, MODE_IDEMPOTENT, day->seed);
    Metrics kept = test_run_mode(longer, MODE_IDEMPOTENT, longer->seed);
    ck_assert_uint_gt(forgot.redriven, 0);
    ck_assert_uint_eq(forgot.redriven, forgot.dead_lettered);
    ck_assert_uint_eq(forgot.outcomes[OUTCOME_DOUBLE], forgot.redriven);
    ck_assert_uint_eq(kept.redriven, forgot.redriven);
    ck_assert_uint_eq(kept.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(kept.replayed, forgot.replayed + forgot.redriven);
    free(day);
    free(longer);
}
END_TEST

/* A queue that discards its dead letters has nothing to redrive: refused at load. */
START_TEST(test_a_redrive_without_dead_letters_is_refused)
{
    static const char *const json =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1, \"target\": \"broker\"}],"
        " \"broker\": {\"dead_letter\": false, \"redrive_after_ms\": 1000}}";
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].path, "$.broker");
    free(scenario);
}
END_TEST

static Suite *dlq_redrive_suite(void)
{
    Suite *suite = suite_create("dlq_redrive");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_redrive_past_the_key_ttl_charges_again);
    tcase_add_test(core, test_a_redrive_without_dead_letters_is_refused);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(dlq_redrive_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
