/* idemsim sweep and merge: results independent of threads and shards (byte for byte), the
 * statistics of each CSV row recomputed from the shard's per-run values, bad input refused
 * with exit 2 and no file, and the sweep_report building blocks (t quantile, grid, shards). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_cli.h"

#include "sweep_report.h"

/* A small but real grid: 4 loss values x 2 retry budgets x 5 seeds, every mode. */
#define GRID_ARGUMENTS                                                                             \
    "scenarios/default.json", "--vary", "network.default.loss=0:0.3:0.1", "--vary",                \
        "clients[0].retry.max_attempts=2:4:2", "--seeds", "5", "-q"

static void assert_same_file(const char *a, const char *b)
{
    char *left = test_cli_read_all(a, NULL), *right = test_cli_read_all(b, NULL);
    ck_assert_msg(left != NULL && right != NULL, "%s or %s is missing", a, b);
    ck_assert_msg(strlen(left) > 100, "%s is nearly empty", a);
    ck_assert_msg(strcmp(left, right) == 0, "%s and %s differ", a, b);
    free(left);
    free(right);
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (const char *c = text; *c != '\0'; c++)
        lines += *c == '\n';
    return lines;
}

static void setup(void)
{
    test_cli_make_scratch("sweep");
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

/* ------------------------------------------------------------------ determinism */

START_TEST(test_sweep_gives_the_same_csv_and_svg_on_one_and_two_threads)
{
    char out[512], err[512], csv1[512], svg1[512], csv2[512], svg2[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *one[] = {"sweep",     GRID_ARGUMENTS,
                         "--threads", "1",
                         "--csv",     test_cli_in_scratch(csv1, "1.csv"),
                         "--svg",     test_cli_in_scratch(svg1, "1.svg"),
                         NULL};
    const char *two[] = {"sweep",     GRID_ARGUMENTS,
                         "--threads", "2",
                         "--csv",     test_cli_in_scratch(csv2, "2.csv"),
                         "--svg",     test_cli_in_scratch(svg2, "2.svg"),
                         NULL};
    ck_assert_int_eq(test_cli_run(one, out, err), 0);
    ck_assert_int_eq(test_cli_run(two, out, err), 0);
    assert_same_file(csv1, csv2);
    assert_same_file(svg1, svg2);
    /* header + 4 losses x 2 budgets x 3 modes x 4 default metrics */
    char *csv = test_cli_read_all(csv1, NULL);
    ck_assert_int_eq(count_lines(csv), 1 + 4 * 2 * 3 * 4);
    ck_assert_ptr_nonnull(strstr(csv, "scenario,network.default.loss,"
                                      "clients[0].retry.max_attempts,mode,metric,seeds,mean,sd,"
                                      "ci95,min,max\n"));
    free(csv);
}
END_TEST

/* Issue 24: a threaded sweep at a tight memory budget. Each world's budget is its share of
 * --max-memory, fixed before any run, so whether it stops never depends on which siblings
 * run beside it: twice the same words byte for byte, whether the budget stops a run (the
 * first stopped run in run order, named by its place) or lets every run through (the CSV
 * the default budget gives). Four threads on fewer cores interleave differently each time. */
#define TIGHT_SWEEP                                                                                \
    "scenarios/01_lost_answer.json", "--vary", "clients[0].count=1000:6000:1000", "--seeds", "2",  \
        "--threads", "4", "-q", "--max-memory"

static int tight_sweep(const char *megabytes, const char *csv_name, char **err_text)
{
    char out[512], err[512], csv[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *arguments[] = {
        "sweep", TIGHT_SWEEP, megabytes, "--csv", test_cli_in_scratch(csv, csv_name), NULL};
    int status = test_cli_run(arguments, out, err);
    *err_text = test_cli_read_all(err, NULL);
    return status;
}

START_TEST(test_threaded_sweep_at_a_tight_memory_budget_is_the_same_twice)
{
    char *first = NULL, *second = NULL;
    ck_assert_int_eq(tight_sweep("32", "never.csv", &first), 2);
    ck_assert_int_eq(tight_sweep("32", "never.csv", &second), 2);
    ck_assert_str_eq(first, second);
    /* not the numbers themselves: they follow the model's sizes, which other work changes */
    ck_assert_ptr_nonnull(strstr(first, "the sweep stopped at run "));
    ck_assert_ptr_nonnull(strstr(first, "stopped: memory budget of "));
    free(first);
    free(second);
    char a[512], b[512], whole[512], out[512], err[512];
    ck_assert_int_eq(tight_sweep("128", "a.csv", &first), 0);
    ck_assert_int_eq(tight_sweep("128", "b.csv", &second), 0);
    ck_assert_str_eq(first, second);
    free(first);
    free(second);
    assert_same_file(test_cli_in_scratch(a, "a.csv"), test_cli_in_scratch(b, "b.csv"));
    const char *roomy[] = {
        "sweep", TIGHT_SWEEP, "4096", "--csv", test_cli_in_scratch(whole, "whole.csv"), NULL};
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    ck_assert_int_eq(test_cli_run(roomy, out, err), 0);
    assert_same_file(test_cli_in_scratch(a, "a.csv"), whole);
}
END_TEST

START_TEST(test_four_merged_shards_give_the_unsharded_csv_and_svg_byte_for_byte)
{
    char out[512], err[512], whole_csv[512], whole_svg[512], merged_csv[512], merged_svg[512];
    char shards[4][512], shard_argument[16];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *whole[] = {"sweep", GRID_ARGUMENTS,
                           "--csv", test_cli_in_scratch(whole_csv, "w.csv"),
                           "--svg", test_cli_in_scratch(whole_svg, "w.svg"),
                           NULL};
    ck_assert_int_eq(test_cli_run(whole, out, err), 0);
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "s%d.csv", i + 1);
        snprintf(shard_argument, sizeof shard_argument, "%d/4", i + 1);
        const char *shard[] = {"sweep",   GRID_ARGUMENTS,
                               "--shard", shard_argument,
                               "--csv",   test_cli_in_scratch(shards[i], name),
                               NULL};
        ck_assert_int_eq(test_cli_run(shard, out, err), 0);
    }
    /* In any order: runs are placed by index. */
    const char *merge[] = {"merge",
                           shards[2],
                           shards[0],
                           shards[3],
                           shards[1],
                           "--csv",
                           test_cli_in_scratch(merged_csv, "m.csv"),
                           "--svg",
                           test_cli_in_scratch(merged_svg, "m.svg"),
                           NULL};
    ck_assert_int_eq(test_cli_run(merge, out, err), 0);
    assert_same_file(whole_csv, merged_csv);
    assert_same_file(whole_svg, merged_svg);
}
END_TEST

START_TEST(test_csv_row_statistics_match_the_per_run_values_of_the_shard)
{
    char out[512], err[512], shard_path[512], csv_path[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *shard[] = {"sweep", GRID_ARGUMENTS, "--shard",
                           "1/1",   "--csv",        test_cli_in_scratch(shard_path, "all.csv"),
                           NULL};
    const char *whole[] = {"sweep", GRID_ARGUMENTS, "--csv", test_cli_in_scratch(csv_path, "w.csv"),
                           NULL};
    ck_assert_int_eq(test_cli_run(shard, out, err), 0);
    ck_assert_int_eq(test_cli_run(whole, out, err), 0);
    /* at-least-once double charges at loss 0.2, 4 attempts: point 2 * 2 + 1 = 5 */
    double values[5], sum = 0;
    int found = 0;
    FILE *file = fopen(shard_path, "r");
    char line[512];
    while (fgets(line, sizeof line, file) != NULL) {
        unsigned point, seed_index;
        char rest[256];
        if (sscanf(line, "%u,%u,%*u,0.2,4,%255s", &point, &seed_index, rest) == 3 && point == 5 &&
            strncmp(rest, "at-least-once,double,", 21) == 0) {
            values[seed_index] = strtod(rest + 21, NULL);
            found++;
        }
    }
    fclose(file);
    ck_assert_int_eq(found, 5);
    for (int k = 0; k < 5; k++)
        sum += values[k];
    double mean = sum / 5, squares = 0;
    for (int k = 0; k < 5; k++)
        squares += (values[k] - mean) * (values[k] - mean);
    double ci95 = 2.7764451051977944 * sqrt(squares / 4) / sqrt(5);
    char *csv = test_cli_read_all(csv_path, NULL);
    char *row = strstr(csv, "default,0.2,4,at-least-once,double,5,");
    ck_assert_ptr_nonnull(row);
    double printed_mean, printed_sd, printed_ci95;
    ck_assert_int_eq(sscanf(row + strlen("default,0.2,4,at-least-once,double,5,"), "%lf,%lf,%lf",
                            &printed_mean, &printed_sd, &printed_ci95),
                     3);
    ck_assert_double_eq_tol(printed_mean, mean, 1e-9 * fabs(mean) + 1e-12);
    ck_assert_double_eq_tol(printed_ci95, ci95, 1e-9 * ci95 + 1e-12);
    ck_assert_double_gt(mean, 0); /* at-least-once with loss does charge twice */
    free(csv);
}
END_TEST

START_TEST(test_one_seed_leaves_sd_and_confidence_interval_empty)
{
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *one_seed[] = {"sweep",    "scenarios/default.json",
                              "--vary",   "network.default.loss=0.1:0.1:1",
                              "--seeds",  "1",
                              "--metric", "lost",
                              "--mode",   "at-most-once",
                              "-q",       NULL};
    ck_assert_int_eq(test_cli_run(one_seed, out, err), 0);
    char *csv = test_cli_read_all(out, NULL);
    ck_assert_int_eq(count_lines(csv), 2);
    char *row = strstr(csv, "default,0.1,at-most-once,lost,1,");
    ck_assert_ptr_nonnull(row);
    ck_assert_ptr_nonnull(strstr(row, ",,,")); /* mean, then empty sd and ci95, then min */
    free(csv);
}
END_TEST

/* METRIC@GROUP: each client group's share, whose sum is the whole mode's. */
START_TEST(test_a_groups_metric_is_its_share_of_the_modes)
{
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *grouped[] = {"sweep",    "scenarios/checkout-day.json",
                             "--vary",   "network.default.loss=0.05:0.05:1",
                             "--seeds",  "1",
                             "--mode",   "at-least-once",
                             "--metric", "double",
                             "--metric", "double@web",
                             "--metric", "double@mobile",
                             "-q",       NULL};
    ck_assert_int_eq(test_cli_run(grouped, out, err), 0);
    char *csv = test_cli_read_all(out, NULL);
    double whole = 0, web = 0, mobile = 0;
    const char *row = strstr(csv, ",double,1,");
    ck_assert_ptr_nonnull(row);
    whole = strtod(row + strlen(",double,1,"), NULL);
    row = strstr(csv, ",double@web,1,");
    ck_assert_ptr_nonnull(row);
    web = strtod(row + strlen(",double@web,1,"), NULL);
    row = strstr(csv, ",double@mobile,1,");
    ck_assert_ptr_nonnull(row);
    mobile = strtod(row + strlen(",double@mobile,1,"), NULL);
    ck_assert_double_gt(whole, 0);
    ck_assert_double_gt(web, 0);
    ck_assert_double_gt(mobile, 0);
    ck_assert_double_eq(web + mobile, whole);
    free(csv);
}
END_TEST

/* ------------------------------------------------------------------ bad input */

START_TEST(test_bad_vary_exits_2_with_a_clear_error_and_writes_nothing)
{
    static const struct {
        const char *vary;
        const char *message;
    } cases[] = {
        {"network.default.loss", "--vary expects PATH=FROM:TO:STEP, got 'network.default.loss'"},
        {"network.default.loss=0:0.3", "--vary expects PATH=FROM:TO:STEP"},
        {"network.default.loss=0:0.3:0", "STEP must be > 0"},
        {"network.default.loss=0.3:0:0.1", "FROM must be <= TO"},
        {"network.default.los=0:0.3:0.1", "$.network.default: unknown key 'los'"},
        {"network.default.loss=0:2:0.5", "$.network.default.loss: expected number in [0, 1] "
                                         "(got 1.5)"},
    };
    /* a group the scenario does not have is refused before anything runs */
    {
        char out2[512], err2[512], csv2[512];
        test_cli_in_scratch(out2, "out2");
        test_cli_in_scratch(err2, "err2");
        test_cli_in_scratch(csv2, "never2.csv");
        const char *arguments[] = {
            "sweep",    "scenarios/default.json", "--vary", "network.default.loss=0:0.1:0.1",
            "--metric", "double@nobody",          "--csv",  csv2,
            NULL};
        ck_assert_int_eq(test_cli_run(arguments, out2, err2), 2);
        char *printed = test_cli_read_all(err2, NULL);
        ck_assert_ptr_nonnull(
            strstr(printed, "--metric double@nobody: no client group or service 'nobody'"));
        free(printed);
        ck_assert_int_ne(access(csv2, F_OK), 0);
    }
    char out[512], err[512], csv[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    test_cli_in_scratch(csv, "never.csv");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *arguments[] = {"sweep",   "scenarios/default.json",
                                   "--vary",  cases[i].vary,
                                   "--seeds", "2",
                                   "--csv",   csv,
                                   NULL};
        ck_assert_int_eq(test_cli_run(arguments, out, err), 2);
        char *printed = test_cli_read_all(err, NULL);
        ck_assert_msg(strstr(printed, cases[i].message) != NULL, "%s: expected '%s' in:\n%s",
                      cases[i].vary, cases[i].message, printed);
        free(printed);
        ck_assert_int_ne(access(csv, F_OK), 0);
    }
}
END_TEST

START_TEST(test_merge_refuses_a_missing_or_repeated_shard)
{
    char out[512], err[512], first[512], second[512], merged[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    test_cli_in_scratch(merged, "never.csv");
    const char *shard1[] = {"sweep", GRID_ARGUMENTS, "--shard",
                            "1/2",   "--csv",        test_cli_in_scratch(first, "1.csv"),
                            NULL};
    const char *shard2[] = {"sweep", GRID_ARGUMENTS, "--shard",
                            "2/2",   "--csv",        test_cli_in_scratch(second, "2.csv"),
                            NULL};
    ck_assert_int_eq(test_cli_run(shard1, out, err), 0);
    ck_assert_int_eq(test_cli_run(shard2, out, err), 0);
    const char *missing[] = {"merge", first, "--csv", merged, NULL};
    ck_assert_int_eq(test_cli_run(missing, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "20 of 40 runs are missing"));
    ck_assert_ptr_nonnull(strstr(printed, "in shard 2/2"));
    free(printed);
    const char *repeated[] = {"merge", first, second, first, "--csv", merged, NULL};
    ck_assert_int_eq(test_cli_run(repeated, out, err), 2);
    printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "already merged"));
    free(printed);
    ck_assert_int_ne(access(merged, F_OK), 0);
}
END_TEST

START_TEST(test_merge_refuses_a_shard_of_another_sweep_or_no_shard)
{
    char out[512], err[512], shard[512], other[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *ours[] = {"sweep", GRID_ARGUMENTS, "--shard",
                          "1/2",   "--csv",        test_cli_in_scratch(shard, "1.csv"),
                          NULL};
    const char *theirs[] = {"sweep",   "scenarios/default.json",
                            "--vary",  "network.default.loss=0:0.2:0.1",
                            "--seeds", "2",
                            "--shard", "2/2",
                            "--csv",   test_cli_in_scratch(other, "2.csv"),
                            "-q",      NULL};
    ck_assert_int_eq(test_cli_run(ours, out, err), 0);
    ck_assert_int_eq(test_cli_run(theirs, out, err), 0);
    const char *mixed[] = {"merge", shard, other, NULL};
    ck_assert_int_eq(test_cli_run(mixed, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "another sweep"));
    free(printed);
    const char *not_a_shard[] = {"merge", "scenarios/default.json", NULL};
    ck_assert_int_eq(test_cli_run(not_a_shard, out, err), 2);
    printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "line 1: not an idemsim sweep shard"));
    free(printed);
}
END_TEST

/* ------------------------------------------------------------------ building blocks */

START_TEST(test_t975_matches_student_t_quantiles)
{
    /* Reference values from mpmath (30 digits). */
    ck_assert_double_eq_tol(sweep_report_t975(1), 12.706204736174705, 1e-12);
    ck_assert_double_eq_tol(sweep_report_t975(4), 2.7764451051977944, 1e-12);
    ck_assert_double_eq_tol(sweep_report_t975(31), 2.0395134463964085, 1e-7);
    ck_assert_double_eq_tol(sweep_report_t975(60), 2.0002978220142605, 1e-7);
    ck_assert_double_eq_tol(sweep_report_t975(1000), 1.9623390808264085, 1e-7);
}
END_TEST

START_TEST(test_axis_ends_on_to_and_labels_hide_rounding_noise)
{
    SweepAxis axis;
    char error[200], label[SWEEP_LABEL_LEN_MAX];
    ck_assert(
        sweep_report_parse_axis("network.default.loss=0:0.3:0.1", &axis, error, sizeof error));
    ck_assert_str_eq(axis.path, "network.default.loss");
    ck_assert_uint_eq(axis.count, 4);
    sweep_report_axis_label(&axis, 3, label, sizeof label);
    ck_assert_str_eq(label, "0.3"); /* 3 * 0.1 is 0.30000000000000004 */
    ck_assert(sweep_report_parse_axis("clients[0].count=10:100:25", &axis, error, sizeof error));
    ck_assert_uint_eq(axis.count, 4); /* 10 35 60 85: 110 would pass TO */
    sweep_report_axis_label(&axis, 3, label, sizeof label);
    ck_assert_str_eq(label, "85");
    ck_assert(!sweep_report_parse_axis("a=1:2:x", &axis, error, sizeof error));
}
END_TEST

START_TEST(test_every_run_is_in_exactly_one_shard)
{
    for (uint32_t shards = 1; shards <= 7; shards++) {
        for (uint32_t run = 0; run < 100; run++) {
            int owners = 0;
            for (uint32_t i = 1; i <= shards; i++)
                owners += sweep_report_run_in_shard(run, i, shards);
            ck_assert_int_eq(owners, 1);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ limits */

START_TEST(test_more_shards_than_runs_still_merge_to_the_whole)
{
    char out[512], err[512], whole[512], merged[512], shards[3][512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *grid[] = {"sweep",
                          "scenarios/default.json",
                          "--vary",
                          "network.default.loss=0.1:0.2:0.1",
                          "--seeds",
                          "1",
                          "-q",
                          "--csv",
                          test_cli_in_scratch(whole, "w.csv"),
                          NULL};
    ck_assert_int_eq(test_cli_run(grid, out, err), 0);
    for (int i = 0; i < 3; i++) {
        char name[16], shard_argument[16];
        snprintf(name, sizeof name, "s%d.csv", i + 1);
        snprintf(shard_argument, sizeof shard_argument, "%d/3", i + 1);
        const char *shard[] = {"sweep",
                               "scenarios/default.json",
                               "--vary",
                               "network.default.loss=0.1:0.2:0.1",
                               "--seeds",
                               "1",
                               "-q",
                               "--shard",
                               shard_argument,
                               "--csv",
                               test_cli_in_scratch(shards[i], name),
                               NULL};
        ck_assert_int_eq(test_cli_run(shard, out, err), 0);
    }
    const char *merge[] = {"merge",   shards[0], shards[1],
                           shards[2], "--csv",   test_cli_in_scratch(merged, "m.csv"),
                           NULL};
    ck_assert_int_eq(test_cli_run(merge, out, err), 0); /* shard 3/3 holds no run */
    char *left = test_cli_read_all(whole, NULL), *right = test_cli_read_all(merged, NULL);
    ck_assert_str_eq(left, right);
    free(left);
    free(right);
}
END_TEST

START_TEST(test_a_run_stopped_by_a_budget_fails_the_sweep_and_writes_nothing)
{
    char out[512], err[512], csv[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    const char *arguments[] = {"sweep",
                               "scenarios/default.json",
                               "--vary",
                               "network.default.loss=0:0.1:0.1",
                               "--seeds",
                               "2",
                               "--max-events",
                               "1000",
                               "--csv",
                               test_cli_in_scratch(csv, "never.csv"),
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    /* It stops at the first stopped run rather than run the rest for nothing (issue 16). */
    ck_assert_ptr_nonnull(strstr(printed, "a run stopped at a budget, so the sweep stopped"));
    ck_assert_ptr_nonnull(strstr(printed, "the sweep stopped at run 1 of 4"));
    ck_assert_ptr_nonnull(strstr(printed, "the first: point 0, seed "));
    free(printed);
    ck_assert_int_ne(access(csv, F_OK), 0);
}
END_TEST

START_TEST(test_usage_errors_exit_2_and_help_exits_0)
{
    char out[512], err[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    static const char *const cases[][8] = {
        {"sweep", "scenarios/default.json", NULL},
        {"sweep", "scenarios/default.json", "--vary", "a=0:1:1", "--seeds", "0", NULL},
        {"sweep", "scenarios/default.json", "--vary", "a=0:1:1", "--threads", "0", NULL},
        {"sweep", "scenarios/default.json", "--vary", "a=0:1:1", "--shard", "5/4", NULL},
        {"sweep", "scenarios/default.json", "--vary", "a=0:1:1", "--metric", "nope", NULL},
        {"sweep", "scenarios/default.json", "--vary", "a=0:999:1", "--vary", "b=0:999:1", NULL},
        {"sweep", "scenarios/default.json", "--vary", "a=0:1:1", "--vary", "b=0:1:1", "--vary"},
        {"merge", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_int_eq(test_cli_run((const char *const *)cases[i], out, err), 2);
    const char *help[] = {"sweep", "--help", NULL};
    ck_assert_int_eq(test_cli_run(help, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "--shard I/N"));
    free(printed);
}
END_TEST

static Suite *sweep_suite(void)
{
    Suite *suite = suite_create("sweep");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_sweep_gives_the_same_csv_and_svg_on_one_and_two_threads);
    tcase_add_test(core, test_a_groups_metric_is_its_share_of_the_modes);
    tcase_add_test(core, test_threaded_sweep_at_a_tight_memory_budget_is_the_same_twice);
    tcase_add_test(core, test_four_merged_shards_give_the_unsharded_csv_and_svg_byte_for_byte);
    tcase_add_test(core, test_csv_row_statistics_match_the_per_run_values_of_the_shard);
    tcase_add_test(core, test_one_seed_leaves_sd_and_confidence_interval_empty);
    tcase_add_test(core, test_bad_vary_exits_2_with_a_clear_error_and_writes_nothing);
    tcase_add_test(core, test_merge_refuses_a_missing_or_repeated_shard);
    tcase_add_test(core, test_merge_refuses_a_shard_of_another_sweep_or_no_shard);
    tcase_add_test(core, test_t975_matches_student_t_quantiles);
    tcase_add_test(core, test_axis_ends_on_to_and_labels_hide_rounding_noise);
    tcase_add_test(core, test_every_run_is_in_exactly_one_shard);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, test_more_shards_than_runs_still_merge_to_the_whole);
    tcase_add_test(limits, test_a_run_stopped_by_a_budget_fails_the_sweep_and_writes_nothing);
    tcase_add_test(limits, test_usage_errors_exit_2_and_help_exits_0);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(sweep_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
