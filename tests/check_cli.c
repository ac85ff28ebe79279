/* The idemsim program seen from outside: exit codes, the exact error lines of the bad-input
 * corpus, byte-identical reports and traces for the same seed, whole-or-absent files. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_cli.h"

static void setup(void)
{
    test_cli_make_scratch("cli");
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

/* ------------------------------------------------------------------ bad input */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_validate_prints_each_bad_files_exact_errors_and_exits_2)
{
    DIR *dir = opendir("tests/bad_scenarios");
    ck_assert_ptr_nonnull(dir);
    char *names[256];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < 256) {
        size_t length = strlen(entry->d_name);
        if (length > 5 && strcmp(entry->d_name + length - 5, ".json") == 0)
            names[count++] = strdup(entry->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], compare_names);
    ck_assert_uint_ge(count, 25);
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    for (size_t i = 0; i < count; i++) {
        char file[512], expected_path[512];
        snprintf(file, sizeof file, "tests/bad_scenarios/%s", names[i]);
        snprintf(expected_path, sizeof expected_path, "tests/bad_scenarios/%.*s.expected",
                 (int)(strlen(names[i]) - 5), names[i]);
        const char *arguments[] = {"validate", file, NULL};
        int code = test_cli_run(arguments, out, err);
        char *expected = test_cli_read_all(expected_path, NULL);
        char *printed = test_cli_read_all(err, NULL);
        ck_assert_msg(expected != NULL, "%s is missing", expected_path);
        ck_assert_msg(code == 2, "%s: exit code %d, expected 2", file, code);
        ck_assert_msg(strcmp(expected, printed) == 0, "%s:\nexpected:\n%s\ngot:\n%s", file,
                      expected, printed);
        free(expected);
        free(printed);
        free(names[i]);
    }
}
END_TEST

START_TEST(test_run_refuses_bad_input_before_writing_anything)
{
    char json[512], out[512], err[512];
    test_cli_in_scratch(json, "report.json");
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *arguments[] = {
        "run", "scenarios/default.json", "--set", "clients[0].retry.timeout_ms=-5", "--json", json,
        NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(
        strstr(printed, "scenarios/default.json: $.clients[0].retry.timeout_ms:"));
    free(printed);
    ck_assert_int_ne(access(json, F_OK), 0);
}
END_TEST

START_TEST(test_usage_errors_exit_2_and_help_exits_0)
{
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *unknown_option[] = {"run", "scenarios/default.json", "--bogus", NULL};
    ck_assert_int_eq(test_cli_run(unknown_option, out, err), 2);
    const char *unknown_command[] = {"frobnicate", NULL};
    ck_assert_int_eq(test_cli_run(unknown_command, out, err), 2);
    const char *missing_file[] = {"run", "no/such/file.json", NULL};
    ck_assert_int_eq(test_cli_run(missing_file, out, err), 2);
    const char *commands[] = {"run", "check", "validate", "sweep", "merge"};
    for (int i = 0; i < 5; i++) {
        const char *help[] = {commands[i], "--help", NULL};
        ck_assert_int_eq(test_cli_run(help, out, err), 0);
        char *by_option = test_cli_read_all(out, NULL);
        ck_assert_ptr_nonnull(strstr(by_option, "usage: idemsim"));
        ck_assert_ptr_nonnull(strstr(by_option, commands[i]));
        const char *help_command[] = {"help", commands[i], NULL};
        ck_assert_int_eq(test_cli_run(help_command, out, err), 0);
        char *by_command = test_cli_read_all(out, NULL);
        ck_assert_str_eq(by_command, by_option);
        free(by_option);
        free(by_command);
    }
}
END_TEST

START_TEST(test_a_run_stopped_by_a_budget_says_so_above_its_table_and_exits_2)
{
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *arguments[] = {"run", "scenarios/default.json", "--max-events", "1000", NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 2);
    char *printed = test_cli_read_all(out, NULL);
    const char *banner = strstr(printed, "STOPPED EARLY: 3 of 3 modes did not finish");
    ck_assert_ptr_nonnull(banner);
    const char *first_row = strstr(printed, "operations");
    ck_assert(first_row != NULL && first_row > banner); /* said before the figures */
    free(printed);
    const char *finishing[] = {"run", "scenarios/default.json", NULL};
    ck_assert_int_eq(test_cli_run(finishing, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_null(strstr(printed, "STOPPED EARLY"));
    free(printed);
}
END_TEST

START_TEST(test_a_mistyped_command_gets_a_suggestion_and_exit_2)
{
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *typo[] = {"rnu", "scenarios/default.json", NULL};
    ck_assert_int_eq(test_cli_run(typo, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "unknown command 'rnu', did you mean 'run'?"));
    free(printed);
    const char *help_typo[] = {"help", "valdate", NULL};
    ck_assert_int_eq(test_cli_run(help_typo, out, err), 2);
    printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "unknown command 'valdate', did you mean 'validate'?"));
    free(printed);
}
END_TEST

/* ------------------------------------------------------------------ determinism and files */

START_TEST(test_same_scenario_and_seed_give_byte_identical_report_and_trace)
{
    char paths[4][512], out[512], err[512];
    const char *names[4] = {"a.json", "a.trace", "b.json", "b.trace"};
    for (int i = 0; i < 4; i++)
        test_cli_in_scratch(paths[i], names[i]);
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    for (int run = 0; run < 2; run++) {
        const char *arguments[] = {"run",     "scenarios/default.json", "--json", paths[run * 2],
                                   "--trace", paths[run * 2 + 1],       "-q",     NULL};
        ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    }
    for (int file = 0; file < 2; file++) {
        size_t first_length = 0, second_length = 0;
        char *first = test_cli_read_all(paths[file], &first_length);
        char *second = test_cli_read_all(paths[file + 2], &second_length);
        ck_assert_ptr_nonnull(first);
        ck_assert_uint_gt(first_length, 1000);
        ck_assert_uint_eq(first_length, second_length);
        ck_assert_int_eq(memcmp(first, second, first_length), 0);
        free(first);
        free(second);
    }
}
END_TEST

/* Questions are for the view alone: every curriculum file with its questions, and the same
 * file with them cut out, give the same table, JSON report, SVG and trace, byte for byte.
 * Both copies have the same file name (the scenario's name when it sets none). */
static void expect_run_without_questions_identical(const char *scenario)
{
    char source[512], dir[2][512], file[2][1300];
    snprintf(source, sizeof source, "scenarios/%s", scenario);
    size_t length = 0;
    char *text = test_cli_read_all(source, &length);
    ck_assert_ptr_nonnull(text);
    char *questions = strstr(text, ",\n  \"questions\": [");
    ck_assert_msg(questions != NULL, "%s has no questions block", scenario);
    for (int copy = 0; copy < 2; copy++) {
        char name[128];
        snprintf(name, sizeof name, "%s-%s", copy == 0 ? "with" : "without", scenario);
        test_cli_in_scratch(dir[copy], name);
        ck_assert_int_eq(mkdir(dir[copy], 0755), 0);
        snprintf(file[copy], sizeof file[copy], "%s/%.200s", dir[copy], scenario);
        FILE *out = fopen(file[copy], "w");
        ck_assert_ptr_nonnull(out);
        if (copy == 0)
            fputs(text, out);
        else
            fprintf(out, "%.*s\n}\n", (int)(questions - text), text);
        ck_assert_int_eq(fclose(out), 0);
    }
    free(text);
    const char *outputs[] = {"table", "report.json", "trace.jsonl", "diagram.svg"};
    char *bytes[2][4];
    size_t lengths[2][4];
    for (int copy = 0; copy < 2; copy++) {
        char paths[4][600];
        for (int o = 0; o < 4; o++)
            snprintf(paths[o], sizeof paths[o], "%s/%s", dir[copy], outputs[o]);
        const char *arguments[] = {"run",    file[copy], "--json", paths[1], "--trace",
                                   paths[2], "--svg",    paths[3], NULL};
        ck_assert_int_eq(test_cli_run(arguments, paths[0], NULL), 0);
        for (int o = 0; o < 4; o++) {
            bytes[copy][o] = test_cli_read_all(paths[o], &lengths[copy][o]);
            ck_assert_ptr_nonnull(bytes[copy][o]);
        }
    }
    for (int o = 0; o < 4; o++) {
        ck_assert_uint_gt(lengths[0][o], 100);
        ck_assert_msg(lengths[0][o] == lengths[1][o] &&
                          memcmp(bytes[0][o], bytes[1][o], lengths[0][o]) == 0,
                      "%s: the %s differs with and without questions", scenario, outputs[o]);
        free(bytes[0][o]);
        free(bytes[1][o]);
    }
}

START_TEST(test_questions_do_not_change_a_run)
{
    expect_run_without_questions_identical("01_lost_answer.json");
    expect_run_without_questions_identical("11_crash_after_charge.json");
    expect_run_without_questions_identical("default.json");
}
END_TEST

START_TEST(test_unwritable_output_is_an_error_and_leaves_no_file)
{
    char directory[512], report[600], out[512], err[512];
    test_cli_in_scratch(directory, "read-only");
    ck_assert_int_eq(mkdir(directory, 0555), 0);
    snprintf(report, sizeof report, "%s/report.json", directory);
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *arguments[] = {"run", "scenarios/default.json", "--json", report, "-q", NULL};
    int code = test_cli_run(arguments, out, err);
    if (geteuid() == 0) {
        /* root writes anywhere: check the whole-or-absent rename instead */
        ck_assert_int_eq(code, 0);
        ck_assert_int_eq(access(report, F_OK), 0);
    } else {
        ck_assert_int_eq(code, 2);
        ck_assert_int_ne(access(report, F_OK), 0);
    }
    DIR *dir = opendir(directory);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL)
        ck_assert_msg(strstr(entry->d_name, ".tmp.") == NULL, "temporary file left behind");
    closedir(dir);
    chmod(directory, 0755);
    /* A directory no one may create files in, root included (CI runs as root): sysfs. */
    const char *no_files_here[] = {
        "run", "scenarios/default.json", "--json", "/sys/idemsim-report.json", "-q", NULL};
    ck_assert_int_eq(test_cli_run(no_files_here, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "/sys/idemsim-report.json: cannot write"));
    free(printed);
    ck_assert_int_ne(access("/sys/idemsim-report.json", F_OK), 0);
    const char *not_a_directory[] = {
        "run", "scenarios/default.json", "--json", "/dev/null/report.json", "-q", NULL};
    ck_assert_int_eq(test_cli_run(not_a_directory, out, err), 2);
    /* A device is written through, never replaced: a full disk is an error, exit 2. */
    const char *full[] = {"run", "scenarios/default.json", "--json", "/dev/full", "-q", NULL};
    ck_assert_int_eq(test_cli_run(full, out, err), 2);
    struct stat info;
    ck_assert_int_eq(stat("/dev/full", &info), 0);
    ck_assert(S_ISCHR(info.st_mode));
}
END_TEST

START_TEST(test_check_exits_1_when_an_expectation_fails)
{
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *passing[] = {"check", "scenarios/default.json", NULL};
    ck_assert_int_eq(test_cli_run(passing, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, " passed, 0 failed\n"));
    free(printed);
    const char *failing[] = {"check", "scenarios/default.json", "--set",
                             "expect.idempotent.double={\"min\": 1}", NULL};
    ck_assert_int_eq(test_cli_run(failing, out, err), 1);
    printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "FAIL"));
    ck_assert_ptr_nonnull(strstr(printed, " failed\n"));
    free(printed);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *suite = suite_create("cli");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_validate_prints_each_bad_files_exact_errors_and_exits_2);
    tcase_add_test(core, test_run_refuses_bad_input_before_writing_anything);
    tcase_add_test(core, test_usage_errors_exit_2_and_help_exits_0);
    tcase_add_test(core, test_a_mistyped_command_gets_a_suggestion_and_exit_2);
    tcase_add_test(core, test_a_run_stopped_by_a_budget_says_so_above_its_table_and_exits_2);
    tcase_add_test(core, test_same_scenario_and_seed_give_byte_identical_report_and_trace);
    tcase_add_test(core, test_questions_do_not_change_a_run);
    tcase_add_test(core, test_unwritable_output_is_an_error_and_leaves_no_file);
    tcase_add_test(core, test_check_exits_1_when_an_expectation_fails);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(cli_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
