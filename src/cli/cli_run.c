/* idemsim run: every mode of a scenario with one seed, side by side, plus the report,
 * CSV and trace files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char *const run_usage =
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

void cli_run_modes(Run *run, const Scenario *scenario, const Options *options,
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

void cli_run_release(Run *run)
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

bool cli_write_output(const char *path, ReportWriter writer, const RunReport *report)
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

int command_run(int argc, char **argv)
{
    Options options = {.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL};
    int status = cli_parse_options(argc, argv, run_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count != 1)
        return cli_usage_error(run_usage, "run expects exactly one SCENARIO file%s", "");
    Scenario *scenario = cli_load_scenario(options.files[0], &options);
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
    cli_run_modes(&run, scenario, &options, sink);
    bool written = true;
    if (options.trace_path != NULL && !output_file_commit(&trace_file, error, sizeof error)) {
        fprintf(stderr, "idemsim: %s\n", error);
        written = false;
    }
    if (!options.quiet)
        report_write_table(stdout, &run.report, options.color);
    if (options.json_path != NULL)
        written &= cli_write_output(options.json_path, report_write_json, &run.report);
    if (options.csv_path != NULL)
        written &= cli_write_output(options.csv_path, write_csv, &run.report);
    cli_run_release(&run);
    free(scenario);
    return written ? EXIT_SUCCESS : EXIT_USAGE;
}

