/* idemsim check as CI sees it: --seeds runs every seed and names the first that fails with a
 * rerun line that really reproduces it, --junit writes escaped, well-formed XML whole or not
 * at all, bad input runs nothing (exit 2), and the columns line up. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_cli.h"

#define LOST_ANSWER "scenarios/01_lost_answer.json"
#define ATOMIC "scenarios/07_atomic_reserve.json"
/* 07_atomic_reserve answers 10 to 25 409s depending on the seed: at most 20 fails for some. */
#define TIGHT_409 "expect.idempotent.409={\"max\": 20}"

static char out[512];
static char err[512];

static void setup(void)
{
    test_cli_make_scratch("check");
    snprintf(out, sizeof out, "%s/out", test_scratch);
    snprintf(err, sizeof err, "%s/err", test_scratch);
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

static int occurrences(const char *text, const char *needle)
{
    int count = 0;
    for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
        count++;
    return count;
}

/* The value of attribute name in the first element that has it, or -1. */
static long attribute(const char *xml, const char *element, const char *name)
{
    const char *at = strstr(xml, element);
    char pattern[64];
    snprintf(pattern, sizeof pattern, " %s=\"", name);
    const char *found = at ? strstr(at, pattern) : NULL;
    return found ? strtol(found + strlen(pattern), NULL, 10) : -1;
}

/* ------------------------------------------------------------------ Core */

START_TEST(test_seeds_run_every_seed_and_report_the_range)
{
    const char *arguments[] = {"check", ATOMIC, "--seeds", "20", NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_int_eq(occurrences(printed, "(20 seeds)"), 7);
    ck_assert_ptr_nonnull(strstr(printed, "got 0 (20 seeds)")); /* idempotent double, every seed */
    ck_assert_ptr_nonnull(strstr(printed, "\n7 passed, 0 failed\n"));
    free(printed);
}
END_TEST

/* -q keeps the failures and the count, and drops the passes. */
START_TEST(test_quiet_prints_only_failures_and_the_count)
{
    const char *passing[] = {"check", ATOMIC, "-q", NULL};
    ck_assert_int_eq(test_cli_run(passing, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_str_eq(printed, "7 passed, 0 failed\n");
    free(printed);
    const char *failing[] = {"check", ATOMIC, "-q", "--seeds", "20", "--set", TIGHT_409, NULL};
    ck_assert_int_eq(test_cli_run(failing, out, err), 1);
    printed = test_cli_read_all(out, NULL);
    ck_assert_int_eq(occurrences(printed, "PASS"), 0);
    ck_assert_int_ge(occurrences(printed, "FAIL  07_atomic_reserve"), 1);
    ck_assert_ptr_nonnull(strstr(printed, " failed\n"));
    free(printed);
}
END_TEST

START_TEST(test_failing_seed_is_named_and_its_rerun_line_reproduces_it)
{
    const char *arguments[] = {"check", ATOMIC, "--seeds", "20", "--set", TIGHT_409, NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 1);
    char *printed = test_cli_read_all(out, NULL);
    const char *fail = strstr(printed, "FAIL  07_atomic_reserve");
    ck_assert_ptr_nonnull(fail);
    const char *with_seed = strstr(fail, " with seed ");
    ck_assert_ptr_nonnull(with_seed);
    long seed = strtol(with_seed + strlen(" with seed "), NULL, 10);
    char rerun[512]; /* with the program as it was started, so the line can be pasted */
    snprintf(rerun, sizeof rerun, "rerun: %s run %s --seed %ld --set '%s'", IDEMSIM_BINARY, ATOMIC,
             seed, TIGHT_409);
    ck_assert_msg(strstr(printed, rerun) != NULL, "no line '%s' in:\n%s", rerun, printed);
    ck_assert_ptr_nonnull(strstr(printed, "\n6 passed, 1 failed\n"));
    free(printed);
    /* That seed alone fails; the one before it (when there is one in the range) passed. */
    char seed_text[32];
    snprintf(seed_text, sizeof seed_text, "%ld", seed);
    const char *alone[] = {"check", ATOMIC, "--seed", seed_text, "--set", TIGHT_409, NULL};
    ck_assert_int_eq(test_cli_run(alone, out, err), 1);
    if (seed > 7) { /* the scenario's own seed is 7 */
        snprintf(seed_text, sizeof seed_text, "%ld", seed - 1);
        ck_assert_int_eq(test_cli_run(alone, out, err), 0);
    }
}
END_TEST

START_TEST(test_junit_report_counts_and_escapes_every_expectation)
{
    char junit[600];
    snprintf(junit, sizeof junit, "%s/check.xml", test_scratch);
    const char *arguments[] = {"check",   LOST_ANSWER, ATOMIC,
                               "--seeds", "20",        "--set",
                               TIGHT_409, "--set",     "title=fish & <chips>",
                               "--junit", junit,       NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 1);
    char *xml = test_cli_read_all(junit, NULL);
    ck_assert_ptr_nonnull(xml);
    ck_assert(strncmp(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 49) == 0);
    ck_assert_ptr_nonnull(strstr(xml, "</testsuites>\n"));
    ck_assert_int_eq(occurrences(xml, "<testsuite "), 2);
    ck_assert_int_eq(occurrences(xml, "</testsuite>"), 2);
    /* 01_lost_answer's 10 expectations plus the 409 the override adds to it, and
     * 07_atomic_reserve's 7 (4 of them at-most-once). */
    ck_assert_int_eq(occurrences(xml, "<testcase "), 18);
    ck_assert_int_eq(occurrences(xml, "<failure "), 1);
    ck_assert_int_eq(attribute(xml, "<testsuites", "tests"), 18);
    ck_assert_int_eq(attribute(xml, "<testsuites", "failures"), 1);
    ck_assert_int_eq(attribute(xml, "<testsuites", "errors"), 0);
    /* The rerun line carries the overrides, escaped: no raw quote, ampersand or bracket. */
    ck_assert_ptr_nonnull(strstr(xml, "title=fish &amp; &lt;chips&gt;"));
    ck_assert_ptr_null(strstr(xml, "fish & "));
    ck_assert_ptr_nonnull(strstr(xml, "{&quot;max&quot;: 20}"));
    ck_assert_ptr_nonnull(strstr(xml, "classname=\"07_atomic_reserve.idempotent\" name=\"409\""));
    free(xml);
}
END_TEST

START_TEST(test_columns_line_up_across_scenarios)
{
    const char *arguments[] = {"check", LOST_ANSWER, "scenarios/02_offline_ttl_too_short.json",
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    long column = -1;
    int lines = 0;
    for (char *line = strtok(printed, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char *expected = strstr(line, " expected ");
        if (expected == NULL)
            continue;
        if (column < 0)
            column = expected - line;
        ck_assert_msg(expected - line == column, "misaligned: %s", line);
        lines++;
    }
    ck_assert_int_eq(lines, 17);
    free(printed);
}
END_TEST

/* ------------------------------------------------------------------ Limits */

START_TEST(test_bad_input_runs_nothing_and_still_writes_the_junit_report)
{
    char junit[600];
    snprintf(junit, sizeof junit, "%s/bad.xml", test_scratch);
    const char *arguments[] = {"check",   LOST_ANSWER, "no/such/scenario.json",
                               "--junit", junit,       NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 2);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_str_eq(printed, "0 passed, 1 failed\n"); /* the good file did not run either */
    free(printed);
    char *xml = test_cli_read_all(junit, NULL);
    ck_assert_ptr_nonnull(xml);
    ck_assert_int_eq(occurrences(xml, "<error type=\"bad-input\""), 1);
    ck_assert_ptr_nonnull(strstr(xml, "no/such/scenario.json: cannot read file"));
    free(xml);
}
END_TEST

/* A budget cuts a run short: its partial figures must not pass (or fail) an expectation. */
START_TEST(test_a_stopped_run_fails_once_and_its_expectations_are_not_judged)
{
    char junit[600];
    snprintf(junit, sizeof junit, "%s/report.xml", test_scratch);
    const char *arguments[] = {
        "check", "scenarios/default.json", "--max-events", "1000", "--junit", junit, NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 1);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_int_eq(occurrences(printed, "PASS"), 0);
    ck_assert_int_eq(occurrences(printed, "not judged: the run stopped early"), 9);
    ck_assert_int_eq(occurrences(printed, "stopped: event budget of 1000 events exhausted"), 3);
    ck_assert_ptr_nonnull(strstr(printed, "\n0 passed, 3 failed\n"));
    char *xml = test_cli_read_all(junit, NULL);
    ck_assert_int_eq(attribute(xml, "<testsuite ", "skipped"), 9);
    ck_assert_int_eq(attribute(xml, "<testsuite ", "errors"), 3);
    ck_assert_int_eq(attribute(xml, "<testsuite ", "failures"), 0);
    free(xml);
    free(printed);
}
END_TEST

START_TEST(test_usage_errors_exit_2)
{
    char empty[600];
    snprintf(empty, sizeof empty, "%s/empty", test_scratch);
    ck_assert_int_eq(mkdir(empty, 0755), 0);
    const char *no_scenarios[] = {"check", empty, NULL};
    const char *zero_seeds[] = {"check", LOST_ANSWER, "--seeds", "0", NULL};
    const char *word_seeds[] = {"check", LOST_ANSWER, "--seeds", "many", NULL};
    const char *no_junit_file[] = {"check", LOST_ANSWER, "--junit", NULL};
    const char *zero_threads[] = {"check", LOST_ANSWER, "--threads", "0", NULL};
    const char *with_mode[] = {"check", LOST_ANSWER, "--mode", "idempotent", NULL};
    ck_assert_int_eq(test_cli_run(no_scenarios, out, err), 2);
    ck_assert_int_eq(test_cli_run(zero_seeds, out, err), 2);
    ck_assert_int_eq(test_cli_run(word_seeds, out, err), 2);
    ck_assert_int_eq(test_cli_run(no_junit_file, out, err), 2);
    ck_assert_int_eq(test_cli_run(zero_threads, out, err), 2);
    ck_assert_int_eq(test_cli_run(with_mode, out, err), 2);
}
END_TEST

START_TEST(test_unwritable_junit_path_exits_2_and_leaves_no_file)
{
    const char *arguments[] = {"check", LOST_ANSWER, "--junit", "/dev/null/check.xml", NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 2);
    /* The path is tried before the first run, so a bad one costs no work (issue 16). */
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_null(strstr(printed, "PASS"));
    free(printed);
    printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "/dev/null/check.xml: cannot write: Not a directory"));
    free(printed);
}
END_TEST

/* The runs go to worker threads and finish in any order; the verdicts, the failing seed of
 * each expectation and the rerun lines are the same with one thread or many. */
START_TEST(test_verdicts_do_not_depend_on_the_number_of_threads)
{
    char *printed[3];
    const char *threads[] = {"1", "2", "7"};
    for (int t = 0; t < 3; t++) {
        const char *arguments[] = {"check", LOST_ANSWER, ATOMIC,      "--seeds",  "20",
                                   "--set", TIGHT_409,   "--threads", threads[t], NULL};
        ck_assert_int_eq(test_cli_run(arguments, out, err), 1);
        printed[t] = test_cli_read_all(out, NULL);
        ck_assert_ptr_nonnull(strstr(printed[t], "rerun: "));
        ck_assert_str_eq(printed[t], printed[0]);
    }
    for (int t = 0; t < 3; t++)
        free(printed[t]);
    char *wall = test_cli_read_all(err, NULL);
    ck_assert_msg(strstr(wall, "idemsim: checked 2 scenarios (40 runs) in ") != NULL, "%s", wall);
    free(wall);
}
END_TEST

static Suite *cli_check_suite(void)
{
    Suite *suite = suite_create("cli_check");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_seeds_run_every_seed_and_report_the_range);
    tcase_add_test(core, test_failing_seed_is_named_and_its_rerun_line_reproduces_it);
    tcase_add_test(core, test_quiet_prints_only_failures_and_the_count);
    tcase_add_test(core, test_junit_report_counts_and_escapes_every_expectation);
    tcase_add_test(core, test_columns_line_up_across_scenarios);
    tcase_add_test(core, test_verdicts_do_not_depend_on_the_number_of_threads);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, test_bad_input_runs_nothing_and_still_writes_the_junit_report);
    tcase_add_test(limits, test_usage_errors_exit_2);
    tcase_add_test(limits, test_a_stopped_run_fails_once_and_its_expectations_are_not_judged);
    tcase_add_test(limits, test_unwritable_junit_path_exits_2_and_leaves_no_file);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(cli_check_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
