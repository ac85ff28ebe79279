/* idemsim: the command line (DESIGN §5). Parses arguments, loads scenarios, runs one world
 * per mode and hands the metrics to the reports. Exit codes: 0 success, 1 an expectation
 * failed, 2 bad input or usage. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "scenario.h"
#include "world.h"

#define EXIT_EXPECTATION_FAILED 1
#define EXIT_USAGE 2
#define OVERRIDES_MAX 64

/* ------------------------------------------------------------------ help */

static const char *const main_usage =
    "idemsim: why a retried request charges money twice, and how idempotency keys stop it\n"
    "\n"
    "usage: idemsim COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       run every mode of a scenario and compare them side by side\n"
    "  check [FILE|DIR]   run scenarios' expectations (regression suite)\n"
    "  validate FILE...   check scenario files without running them\n"
    "  help [COMMAND]     show help for a command\n"
    "\n"
    "Try: idemsim run scenarios/default.json\n";

static const char *const run_usage =
    "usage: idemsim run SCENARIO [options]\n"
    "\n"
    "Runs each mode the scenario lists (at-most-once, at-least-once, idempotent) with the\n"
    "same seed, so every mode meets the same network faults, and prints them side by side.\n"
    "\n"
    "options:\n"
    "  --mode M            run only mode M (repeatable)\n"
    "  --seed N            override the scenario's seed\n"
    "  --set PATH=VALUE    override a scenario field, e.g. --set network.default.loss=0.2\n"
    "  --json FILE         write the full report as JSON\n"
    "  --csv FILE          write the metrics as CSV (mode,metric,value)\n"
    "  --trace FILE        write every notable event as JSON lines\n"
    "  --max-events N      stop a mode after N events (default 500000000)\n"
    "  --max-sim-time MS   stop a mode at simulated time MS (default: duration + 7 days)\n"
    "  --no-color          plain table even on a terminal\n"
    "  -q, --quiet         print nothing but errors\n";

static const char *const check_usage =
    "usage: idemsim check [FILE|DIR]... [--seed N] [--set PATH=VALUE]...\n"
    "\n"
    "Runs each scenario (a directory means every *.json in it, sorted) and compares its\n"
    "metrics with the scenario's \"expect\" block. Prints PASS/FAIL per expectation and a\n"
    "last line \"N passed, N failed\". Exit 1 when any expectation failed. Default: scenarios/\n";

static const char *const validate_usage =
    "usage: idemsim validate FILE... [--set PATH=VALUE]...\n"
    "\n"
    "Loads and validates scenario files without running them; prints every error as\n"
    "FILE: $.json.path: reason. Exit 2 when a file is invalid.\n";

/* ------------------------------------------------------------------ options */

typedef struct {
    const char *files[256];
    uint32_t file_count;
    const char *overrides[OVERRIDES_MAX];
    uint32_t override_count;
    bool has_seed;
    uint64_t seed;
    Mode modes[MODE_COUNT];
    uint32_t mode_count;
    const char *json_path;
    const char *csv_path;
    const char *trace_path;
    WorldLimits limits;
    bool color;
    bool quiet;
} Options;

static int usage_error(const char *usage, const char *format, const char *argument)
{
    fprintf(stderr, "idemsim: ");
    fprintf(stderr, format, argument);
    fprintf(stderr, "\n\n%s", usage);
    return EXIT_USAGE;
}

static bool parse_u64(const char *text, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    if (text[0] == '-' || text[0] == '\0')
        return false;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *value = parsed;
    return true;
}

/* Returns EXIT_SUCCESS, or the exit code of a usage error (already printed). */
static int parse_options(int argc, char **argv, const char *usage, Options *options)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes_value = strcmp(arg, "--mode") == 0 || strcmp(arg, "--seed") == 0 ||
                           strcmp(arg, "--set") == 0 || strcmp(arg, "--json") == 0 ||
                           strcmp(arg, "--csv") == 0 || strcmp(arg, "--trace") == 0 ||
                           strcmp(arg, "--max-events") == 0 || strcmp(arg, "--max-sim-time") == 0;
        if (takes_value && value == NULL)
            return usage_error(usage, "option %s needs a value", arg);
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            exit(EXIT_SUCCESS);
        } else if (strcmp(arg, "--mode") == 0) {
            Mode mode;
            if (!mode_from_name(value, &mode))
                return usage_error(usage,
                                   "unknown mode '%s' (expected at-most-once, at-least-once "
                                   "or idempotent)",
                                   value);
            if (options->mode_count < MODE_COUNT)
                options->modes[options->mode_count++] = mode;
        } else if (strcmp(arg, "--seed") == 0) {
            if (!parse_u64(value, &options->seed))
                return usage_error(usage, "--seed expects a non-negative integer, got '%s'", value);
            options->has_seed = true;
        } else if (strcmp(arg, "--set") == 0) {
            if (options->override_count == OVERRIDES_MAX)
                return usage_error(usage, "too many --set options (at most 64)%s", "");
            options->overrides[options->override_count++] = value;
        } else if (strcmp(arg, "--json") == 0) {
            options->json_path = value;
        } else if (strcmp(arg, "--csv") == 0) {
            options->csv_path = value;
        } else if (strcmp(arg, "--trace") == 0) {
            options->trace_path = value;
        } else if (strcmp(arg, "--max-events") == 0) {
            if (!parse_u64(value, &options->limits.max_events) || options->limits.max_events == 0)
                return usage_error(usage, "--max-events expects a positive integer, got '%s'",
                                   value);
        } else if (strcmp(arg, "--max-sim-time") == 0) {
            uint64_t ms;
            if (!parse_u64(value, &ms) || ms == 0 || ms > UINT64_MAX / 1000)
                return usage_error(usage, "--max-sim-time expects milliseconds > 0, got '%s'",
                                   value);
            options->limits.max_sim_time_us = ms * 1000;
        } else if (strcmp(arg, "--no-color") == 0) {
            options->color = false;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
            options->quiet = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error(usage, "unknown option '%s'", arg);
        } else {
            if (options->file_count == sizeof options->files / sizeof options->files[0])
                return usage_error(usage, "too many files (at most 256)%s", "");
            options->files[options->file_count++] = arg;
        }
        if (takes_value)
            i++;
    }
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ loading */

static Scenario *load_or_report(const char *path, const Options *options)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    if (scenario == NULL || errors == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        exit(EXIT_USAGE);
    }
    bool ok = scenario_load_file(path, options->overrides, options->override_count, scenario,
                                 errors);
    if (!ok) {
        scenario_print_errors(stderr, path, errors);
        free(scenario);
        scenario = NULL;
    }
    free(errors);
    return scenario;
}

/* ------------------------------------------------------------------ running */

typedef struct {
    World *worlds[MODE_COUNT];
    RunReport report;
} Run;

static double wall_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Runs a world to its end, showing progress on a terminal when it takes a while. */
static void run_world(World *world, const Scenario *scenario, bool show_progress)
{
    double started = wall_seconds();
    bool shown = false;
    double duration_s = scenario->duration_ms / 1000.0;
    while (!world_finished(world)) {
        for (int i = 0; i < 65536 && world_step(world); i++) {
        }
        if (show_progress && wall_seconds() - started > 1.0) {
            const Metrics *metrics = world_metrics(world);
            fprintf(stderr, "\r  %s: simulated %.1f s of %.1f s, %" PRIu64 " operations...   ",
                    mode_name(world_mode(world)), (double)world_now(world) / 1e6, duration_s,
                    metrics->operations);
            shown = true;
        }
    }
    if (shown)
        fprintf(stderr, "\r%*s\r", 78, "");
}

static void run_modes(Run *run, const Scenario *scenario, const Options *options,
                      TraceSink trace)
{
    memset(run, 0, sizeof *run);
    RunReport *report = &run->report;
    report->scenario = scenario;
    report->seed = options->has_seed ? options->seed : scenario->seed;
    const Mode *modes = options->mode_count ? options->modes : scenario->modes;
    report->mode_count = options->mode_count ? options->mode_count : scenario->mode_count;
    bool show_progress = !options->quiet && isatty(STDERR_FILENO);
    for (uint32_t m = 0; m < report->mode_count; m++) {
        report->modes[m] = modes[m];
        run->worlds[m] = world_create(scenario, modes[m], report->seed, trace, options->limits);
        run_world(run->worlds[m], scenario, show_progress);
        report->metrics[m] = world_metrics(run->worlds[m]);
        report->stop_reasons[m] = world_stop_reason(run->worlds[m]);
    }
}

static void run_release(Run *run)
{
    for (uint32_t m = 0; m < MODE_COUNT; m++)
        world_destroy(run->worlds[m]);
}

static bool write_csv(FILE *stream, const RunReport *report)
{
    fprintf(stream, "scenario,seed,mode,metric,value\n");
    for (uint32_t m = 0; m < report->mode_count; m++) {
        for (uint32_t i = 0; i < scenario_metric_count; i++) {
            double value = 0;
            if (!metrics_value(report->metrics[m], scenario_metric_names[i], &value))
                continue;
            fprintf(stream, "%s,%" PRIu64 ",%s,%s,%.17g\n", report->scenario->name, report->seed,
                    mode_name(report->modes[m]), scenario_metric_names[i], value);
        }
    }
    return !ferror(stream);
}

typedef bool (*ReportWriter)(FILE *stream, const RunReport *report);

static bool write_output(const char *path, ReportWriter writer, const RunReport *report)
{
    OutputFile file;
    char error[4400];
    if (!output_file_open(&file, path, error, sizeof error)) {
        fprintf(stderr, "idemsim: %s\n", error);
        return false;
    }
    writer(file.stream, report);
    if (!output_file_commit(&file, error, sizeof error)) {
        fprintf(stderr, "idemsim: %s\n", error);
        return false;
    }
    return true;
}

static int command_run(int argc, char **argv)
{
    Options options = {.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL};
    int status = parse_options(argc, argv, run_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count != 1)
        return usage_error(run_usage, "run expects exactly one SCENARIO file%s", "");
    Scenario *scenario = load_or_report(options.files[0], &options);
    if (scenario == NULL)
        return EXIT_USAGE;
    OutputFile trace_file = {0};
    TraceJsonl trace_writer = {0};
    TraceSink sink = {0};
    char error[4400];
    if (options.trace_path != NULL) {
        if (!output_file_open(&trace_file, options.trace_path, error, sizeof error)) {
            fprintf(stderr, "idemsim: %s\n", error);
            free(scenario);
            return EXIT_USAGE;
        }
        trace_writer.stream = trace_file.stream;
        sink = trace_jsonl_sink(&trace_writer);
    }
    Run run;
    run_modes(&run, scenario, &options, sink);
    bool written = true;
    if (options.trace_path != NULL && !output_file_commit(&trace_file, error, sizeof error)) {
        fprintf(stderr, "idemsim: %s\n", error);
        written = false;
    }
    if (!options.quiet)
        report_write_table(stdout, &run.report, options.color);
    if (options.json_path != NULL)
        written &= write_output(options.json_path, report_write_json, &run.report);
    if (options.csv_path != NULL)
        written &= write_output(options.csv_path, write_csv, &run.report);
    run_release(&run);
    free(scenario);
    return written ? EXIT_SUCCESS : EXIT_USAGE;
}

/* ------------------------------------------------------------------ validate */

static int command_validate(int argc, char **argv)
{
    Options options = {0};
    int status = parse_options(argc, argv, validate_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count == 0)
        return usage_error(validate_usage, "validate expects at least one FILE%s", "");
    int exit_code = EXIT_SUCCESS;
    for (uint32_t i = 0; i < options.file_count; i++) {
        Scenario *scenario = load_or_report(options.files[i], &options);
        if (scenario == NULL) {
            exit_code = EXIT_USAGE;
            continue;
        }
        printf("%s: ok (%s, %u client groups, %u modes)\n", options.files[i], scenario->name,
               scenario->client_group_count, scenario->mode_count);
        free(scenario);
    }
    return exit_code;
}

/* ------------------------------------------------------------------ check */

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
    Scenario *scenario = load_or_report(path, options);
    if (scenario == NULL) {
        tally->failed++;
        return;
    }
    Options run_options = *options;
    run_options.mode_count = 0;
    Run run;
    run_modes(&run, scenario, &run_options, (TraceSink){0});
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
    run_release(&run);
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

static int command_check(int argc, char **argv)
{
    Options options = {0};
    int status = parse_options(argc, argv, check_usage, &options);
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

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(main_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_SUCCESS;
    }
    const char *command = argv[1];
    if (strcmp(command, "help") == 0) {
        const char *topic = argc > 2 ? argv[2] : "";
        fputs(strcmp(topic, "run") == 0        ? run_usage
              : strcmp(topic, "check") == 0    ? check_usage
              : strcmp(topic, "validate") == 0 ? validate_usage
                                               : main_usage,
              stdout);
        return EXIT_SUCCESS;
    }
    if (strcmp(command, "run") == 0)
        return command_run(argc - 2, argv + 2);
    if (strcmp(command, "validate") == 0)
        return command_validate(argc - 2, argv + 2);
    if (strcmp(command, "check") == 0)
        return command_check(argc - 2, argv + 2);
    if (strcmp(command, "--version") == 0) {
        printf("idemsim 0.1.0\n");
        return EXIT_SUCCESS;
    }
    fprintf(stderr, "idemsim: unknown command '%s'\n\n%s", command, main_usage);
    return EXIT_USAGE;
}
