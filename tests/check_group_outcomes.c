/* Outcomes per client group (issue 21, item 7): each group's share of the outcomes and of
 * their money, in the reports and as "METRIC@GROUP" in a scenario's expect. The refusals
 * are in the bad-input corpus (tests/bad_scenarios/expect_group_*.json). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "test_world.h"
#include "world.h"

/* Every settled operation belongs to one group: the shares add up to the mode's counts. */
START_TEST(test_group_shares_add_up_to_the_mode)
{
    Scenario *scenario = test_load_source_file("scenarios/checkout-day.json", NULL, 0);
    ck_assert_uint_eq(scenario->client_group_count, 2);
    for (Mode mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(scenario, mode, scenario->seed);
        ck_assert_uint_eq(metrics.group_count, 2);
        for (int o = 0; o < OUTCOME_COUNT; o++)
            ck_assert_uint_eq(metrics.groups[0].outcomes[o] + metrics.groups[1].outcomes[o],
                              metrics.outcomes[o]);
        ck_assert_int_eq(metrics.groups[0].double_amount + metrics.groups[1].double_amount,
                         metrics.double_amount);
        ck_assert_int_eq(metrics.groups[0].lost_amount + metrics.groups[1].lost_amount,
                         metrics.lost_amount);
    }
    free(scenario);
}
END_TEST

/* A group that never retries cannot double by retrying: in a world where one group retries
 * and the other does not, at-least-once's doubles are all the retrying group's. */
START_TEST(test_an_expectation_names_its_group)
{
    const char *json =
        "{\"seed\": 6, \"duration_ms\": 30000,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
        " \"clients\": ["
        "   {\"id\": \"patient\", \"count\": 10, \"retry\": {\"max_attempts\": 1},"
        "    \"workload\": {\"ops\": 10, \"interval_ms\": 200}},"
        "   {\"id\": \"eager\", \"count\": 10, \"retry\": {\"max_attempts\": 4,"
        "    \"timeout_ms\": 300}, \"workload\": {\"ops\": 10, \"interval_ms\": 200}}],"
        " \"network\": {\"default\": {\"loss\": 0.1}},"
        " \"expect\": {\"at-least-once\": {\"double@patient\": 0,"
        "   \"double@eager\": {\"min\": 1}, \"lost_amount@patient\": {\"min\": 1}}}}";
    Scenario *scenario = test_load(json, NULL, 0);
    ck_assert_uint_eq(scenario->expectation_count, 3);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_uint_eq(metrics.groups[0].outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(metrics.groups[1].outcomes[OUTCOME_DOUBLE], metrics.outcomes[OUTCOME_DOUBLE]);
    for (uint32_t e = 0; e < scenario->expectation_count; e++) {
        const Expectation *expectation = &scenario->expectations[e];
        ck_assert(expectation->per_group);
        double value = -1;
        ck_assert(metrics_expectation_value(&metrics, expectation, &value));
        ck_assert_msg(value >= expectation->min && value <= expectation->max, "%s = %g",
                      expectation->metric, value);
    }
    ck_assert_uint_eq(scenario->expectations[1].group, 1);
    double whole = -1;
    ck_assert(metrics_value(&metrics, "double", &whole));
    double eager = -1;
    ck_assert(metrics_expectation_value(&metrics, &scenario->expectations[1], &eager));
    ck_assert_double_eq(whole, eager);
    free(scenario);
}
END_TEST

static Suite *group_outcomes_suite(void)
{
    Suite *suite = suite_create("group_outcomes");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_group_shares_add_up_to_the_mode);
    tcase_add_test(core, test_an_expectation_names_its_group);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(group_outcomes_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
