/* The view with two logs: each log's consumer groups rebalance on their own, so the narration
 * of a rebalance names the group, the first log's first group too (its records name none).
 * SDL-free: panes run without a window. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "view_narration.h"
#include "view_pane.h"

/* The app's orders on one log, read by the chargers; the partners' orders on another, read
 * by the partner-chargers. */
static const char two_logs[] =
    "{\"name\": \"two_logs\", \"seed\": 5, \"duration_ms\": 5000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 2},"
    "   {\"id\": \"partner-orders\", \"kind\": \"broker\", \"family\": \"log\"},"
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"k1\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"
    "   {\"id\": \"partner-chargers\", \"kind\": \"consumers\","
    "    \"consumes\": \"partner-orders\", \"key_store\": \"k2\"},"
    "   {\"id\": \"k2\", \"kind\": \"key_store\"}],"
    " \"clients\": [{\"id\": \"app\", \"publishes\": \"orders\"},"
    "  {\"id\": \"partners\", \"publishes\": \"partner-orders\"}]}";

/* The first log's rebalance (its records name no group) and the second's (named) each say
 * which group rebalances: "the consumer group rebalances" would not tell the two apart. */
START_TEST(test_each_logs_rebalance_names_its_group)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_ptr_nonnull(errors);
    ck_assert_msg(scenario_load_text(two_logs, strlen(two_logs), NULL, 0, scenario, errors),
                  "rejected: %s", errors->count ? errors->items[0].message : "");
    ViewPane *pane = view_pane_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_ptr_nonnull(pane);
    char text[256];
    ViewNarration first = {.present = true, .event = TRACE_REBALANCE, .value = 3};
    view_narration_line(pane, &first, text, sizeof text);
    ck_assert_str_eq(text, "the consumer group chargers rebalances: back to the last commit, 3 "
                           "records to process again");
    ViewNarration second = {.present = true, .event = TRACE_REBALANCE, .value = 2};
    snprintf(second.queue, sizeof second.queue, "partner-chargers");
    view_narration_line(pane, &second, text, sizeof text);
    ck_assert_str_eq(text, "the consumer group partner-chargers rebalances: back to the last "
                           "commit, 2 records to process again");
    view_pane_destroy(pane);
    free(errors);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("view_two_logs");
    TCase *words = tcase_create("words");
    tcase_set_timeout(words, 120);
    tcase_add_test(words, test_each_logs_rebalance_names_its_group);
    suite_add_tcase(suite, words);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
