/* idemsim check: run scenarios' expectations, the regression suite. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char *const check_usage =
    "usage: idemsim check [FILE|DIR]... [--seed N] [--set PATH=VALUE]...\n"
    "\n"
    "Runs each scenario (a directory means every *.json in it, sorted) and compares its\n"
    "metrics with the scenario's \"expect\" block. Prints PASS/FAIL per expectation and a\n"
    "last line \"N passed, N failed\". Exit 1 when any expectation failed. Default: scenarios/\n";

typedef struct {
    uint32_t passed;
    uint32_t failed;
} Tally;

static void format_range(char *buffer, size_t size, const Expectation *expectation)
{
    if (expectation->min == expectation->max)
        snprintf(buffer, size, "%g", expectation->min);
    else if (expectation->max >= 1e300)
        snprintf(buffer, size, ">= %g", expectation->min);
    else if (expectation->min <= -1e300)
        snprintf(buffer, size, "<= %g", expectation->max);
    else
        snprintf(buffer, size, "[%g, %g]", expectation->min, expectation->max);
}

static void check_scenario(const char *path, const Options *options, Tally *tally)
{
    Scenario *scenario = cli_load_scenario(path, options);
    if (scenario == NULL) {
        tally->failed++;
        return;
    }
    Options run_options = *options;
    run_options.mode_count = 0;
    Run run;
    cli_run_modes(&run, scenario, &run_options, (TraceSink){0});
    for (uint32_t e = 0; e < scenario->expectation_count; e++) {
        const Expectation *expectation = &scenario->expectations[e];
        for (uint32_t m = 0; m < run.report.mode_count; m++) {
            if (run.report.modes[m] != expectation->mode)
                continue;
            double value = 0;
            metrics_value(run.report.metrics[m], expectation->metric, &value);
            bool pass = value >= expectation->min && value <= expectation->max;
            char range[64];
            format_range(range, sizeof range, expectation);
            printf("%s  %-28s %-14s %-16s expected %-14s got %g\n", pass ? "PASS" : "FAIL",
                   scenario->name, mode_name(expectation->mode), expectation->metric, range,
                   value);
            if (pass)
                tally->passed++;
            else
                tally->failed++;
        }
    }
    if (scenario->expectation_count == 0)
        printf("SKIP  %-28s (no expectations)\n", scenario->name);
    for (uint32_t m = 0; m < run.report.mode_count; m++) {
        if (run.report.stop_reasons[m] != NULL) {
            printf("FAIL  %-28s %-14s %s\n", scenario->name, mode_name(run.report.modes[m]),
                   run.report.stop_reasons[m]);
            tally->failed++;
        }
    }
    if (tally->failed > 0)
        fflush(stdout);
    cli_run_release(&run);
    free(scenario);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_directory(const char *directory, const Options *options, Tally *tally)
{
    DIR *dir = opendir(directory);
    if (dir == NULL) {
        fprintf(stderr, "idemsim: %s: cannot open directory: %s\n", directory, strerror(errno));
        tally->failed++;
        return;
    }
    char *names[1024];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < 1024) {
        size_t length = strlen(entry->d_name);
        if (length > 5 && strcmp(entry->d_name + length - 5, ".json") == 0)
            names[count++] = strdup(entry->d_name);
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], compare_names);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", directory, names[i]);
        check_scenario(path, options, tally);
        free(names[i]);
    }
}

int command_check(int argc, char **argv)
{
    Options options = {0};
    int status = cli_parse_options(argc, argv, check_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count == 0)
        options.files[options.file_count++] = "scenarios";
    Tally tally = {0};
    bool bad_input = false;
    for (uint32_t i = 0; i < options.file_count; i++) {
        struct stat info;
        if (stat(options.files[i], &info) == 0 && S_ISDIR(info.st_mode)) {
            check_directory(options.files[i], &options, &tally);
        } else {
            uint32_t before = tally.failed;
            check_scenario(options.files[i], &options, &tally);
            bad_input |= tally.failed > before && access(options.files[i], R_OK) != 0;
        }
    }
    printf("%u passed, %u failed\n", tally.passed, tally.failed);
    if (bad_input)
        return EXIT_USAGE;
    return tally.failed > 0 ? EXIT_EXPECTATION_FAILED : EXIT_SUCCESS;
}

