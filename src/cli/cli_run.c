/* idemsim run: every mode of a scenario with one seed, side by side, plus the report,
 * CSV, trace and sequence-diagram files. Also the helpers the subcommands share: running
 * the modes, taking a subcommand's own options out of argv, writing output files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report_svg.h"

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
    "  --csv FILE          write the metrics as CSV (scenario,seed,mode,metric,value)\n"
    "  --trace FILE        write every notable event as JSON lines\n"
    "  --svg FILE          draw the first operations of one mode as a sequence diagram\n"
    "  --svg-mode M        the mode to draw (default: the last mode run)\n"
    "  --svg-ops N         how many of its first operations to draw, 1 to 20 (default 3)\n"
    "  --max-events N      stop a mode after N events (default 500000000)\n"
    "  --max-sim-time MS   stop a mode at simulated time MS (default: duration + 7 days)\n"
    "  --max-memory MIB    stop a mode whose storage exceeds MIB (default 4096)\n"
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
        world_run_events(world, 65536);
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

void cli_run_modes(Run *run, const Scenario *scenario, const Options *options, TraceSink trace)
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

/* ------------------------------------------------------------------ run */

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

/* Opens an output file before the run, so that a bad path fails in a second, not after a
 * long simulation. A NULL path opens nothing and succeeds. */
static bool open_output(OutputFile *file, const char *path)
{
    char error[4400];
    if (path == NULL)
        return true;
    if (output_file_open(file, path, error, sizeof error))
        return true;
    fprintf(stderr, "idemsim: %s\n", error);
    return false;
}

typedef bool (*ReportWriter)(FILE *stream, const RunReport *report);

static bool finish_output(OutputFile *file, ReportWriter writer, const RunReport *report)
{
    char error[4400];
    if (file->stream == NULL)
        return true;
    writer(file->stream, report);
    if (!output_file_commit(file, error, sizeof error)) {
        fprintf(stderr, "idemsim: %s\n", error);
        return false;
    }
    return true;
}

/* A newcomer sees where the files went; scripts pass -q. */
static bool say_written(const Options *options, const char *path, bool written)
{
    if (written && path != NULL && !options->quiet)
        fprintf(stderr, "idemsim: wrote %s\n", path);
    return written;
}

/* ------------------------------------------------------------------ the sequence diagram */

enum { SVG_PATH, SVG_MODE, SVG_OPERATIONS, SVG_OPTION_COUNT };

/* Both the JSON-lines writer and the diagram see every record. */
typedef struct {
    TraceSink first;
    TraceSink second;
} TraceTee;

static void tee_write(void *context, const TraceRecord *record)
{
    const TraceTee *tee = context;
    if (tee->first.write != NULL)
        tee->first.write(tee->first.context, record);
    tee->second.write(tee->second.context, record);
}

/* --svg FILE [--svg-mode M] [--svg-ops N]: which mode to draw (by default the last one run,
 * usually the keyed one) and how many of its first operations. */
static int svg_prepare(const CliExtraOption *svg, const Options *options, const Scenario *scenario,
                       SvgDiagram **diagram)
{
    *diagram = NULL;
    if (svg[SVG_PATH].value == NULL) {
        if (svg[SVG_MODE].value != NULL || svg[SVG_OPERATIONS].value != NULL)
            return cli_usage_error(run_usage, "%s needs --svg FILE",
                                   svg[SVG_MODE].value ? "--svg-mode" : "--svg-ops");
        return EXIT_SUCCESS;
    }
    const Mode *modes = options->mode_count ? options->modes : scenario->modes;
    uint32_t mode_count = options->mode_count ? options->mode_count : scenario->mode_count;
    Mode mode = modes[mode_count - 1];
    if (svg[SVG_MODE].value != NULL) {
        bool runs = mode_from_name(svg[SVG_MODE].value, &mode);
        for (uint32_t m = 0; runs && m < mode_count && modes[m] != mode; m++)
            runs = m + 1 < mode_count;
        if (!runs)
            return cli_usage_error(run_usage, "--svg-mode expects a mode this run runs, got '%s'",
                                   svg[SVG_MODE].value);
    }
    long operations = 3;
    if (svg[SVG_OPERATIONS].value != NULL) {
        char *end = NULL;
        operations = strtol(svg[SVG_OPERATIONS].value, &end, 10);
        if (*end != '\0' || end == svg[SVG_OPERATIONS].value || operations < 1 ||
            operations > REPORT_SVG_OPERATIONS_MAX)
            return cli_usage_error(run_usage, "--svg-ops expects an integer from 1 to 20, got '%s'",
                                   svg[SVG_OPERATIONS].value);
    }
    *diagram = report_svg_create(mode, (uint32_t)operations);
    if (*diagram == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        return EXIT_USAGE;
    }
    return EXIT_SUCCESS;
}

static bool svg_write(const char *path, const SvgDiagram *diagram, const Scenario *scenario,
                      uint64_t seed)
{
    OutputFile file;
    char error[4400];
    if (!output_file_open(&file, path, error, sizeof error)) {
        fprintf(stderr, "idemsim: %s\n", error);
        return false;
    }
    report_svg_write(file.stream, diagram, scenario, seed);
    if (!output_file_commit(&file, error, sizeof error)) {
        fprintf(stderr, "idemsim: %s\n", error);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ the command */

int command_run(int argc, char **argv)
{
    Options options = {.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL};
    CliExtraOption svg[SVG_OPTION_COUNT] = {
        {"--svg", NULL}, {"--svg-mode", NULL}, {"--svg-ops", NULL}};
    argc = cli_take_options(argc, argv, svg, SVG_OPTION_COUNT, run_usage);
    if (argc < 0)
        return EXIT_USAGE;
    int status = cli_parse_options(argc, argv, run_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count != 1)
        return cli_usage_error(run_usage, "run expects exactly one SCENARIO file%s", "");
    Scenario *scenario = cli_load_scenario(options.files[0], &options);
    if (scenario == NULL)
        return EXIT_USAGE;
    SvgDiagram *diagram = NULL;
    status = svg_prepare(svg, &options, scenario, &diagram);
    OutputFile trace_file = {0};
    TraceJsonl *trace_writer = NULL;
    TraceSink sink = {0};
    char error[4400];
    OutputFile json_file = {0}, csv_file = {0};
    if (status == EXIT_SUCCESS &&
        (!open_output(&json_file, options.json_path) || !open_output(&csv_file, options.csv_path)))
        status = EXIT_USAGE;
    if (status == EXIT_SUCCESS && options.trace_path != NULL) {
        if (!output_file_open(&trace_file, options.trace_path, error, sizeof error)) {
            fprintf(stderr, "idemsim: %s\n", error);
            status = EXIT_USAGE;
        }
        if (status == EXIT_SUCCESS &&
            (trace_writer = trace_jsonl_open(trace_file.stream)) == NULL) {
            fprintf(stderr, "idemsim: out of memory\n");
            output_file_abandon(&trace_file);
            status = EXIT_USAGE;
        }
        if (trace_writer != NULL)
            sink = trace_jsonl_sink(trace_writer);
    }
    if (status != EXIT_SUCCESS) {
        output_file_abandon(&json_file);
        output_file_abandon(&csv_file);
        report_svg_destroy(diagram);
        free(scenario);
        return status;
    }
    TraceTee tee = {.first = sink, .second = diagram ? report_svg_sink(diagram) : sink};
    Run run;
    cli_run_modes(&run, scenario, &options, diagram ? (TraceSink){tee_write, &tee} : sink);
    if (!options.quiet) {
        report_write_table(stdout, &run.report, options.color);
        fflush(stdout); /* the table before the lines that say where the files went */
    }
    bool written = true;
    if (options.trace_path != NULL) {
        trace_jsonl_close(trace_writer); /* a failed write shows in the commit */
        bool committed = output_file_commit(&trace_file, error, sizeof error);
        if (!committed)
            fprintf(stderr, "idemsim: %s\n", error);
        written &= say_written(&options, options.trace_path, committed);
    }
    written &= say_written(&options, options.json_path,
                           finish_output(&json_file, report_write_json, &run.report));
    written &=
        say_written(&options, options.csv_path, finish_output(&csv_file, write_csv, &run.report));
    if (diagram != NULL)
        written &= say_written(&options, svg[SVG_PATH].value,
                               svg_write(svg[SVG_PATH].value, diagram, scenario, run.report.seed));
    /* A run cut short by a budget is reported (its files say "stopped"), but it is not a
     * result: the scenario is too big for its budget, an input problem. */
    bool stopped = false;
    for (uint32_t m = 0; m < run.report.mode_count; m++) {
        if (run.report.stop_reasons[m] != NULL) {
            fprintf(stderr, "idemsim: %s: %s: %s\n", options.files[0],
                    mode_name(run.report.modes[m]), run.report.stop_reasons[m]);
            stopped = true;
        }
    }
    report_svg_destroy(diagram);
    cli_run_release(&run);
    free(scenario);
    return written && !stopped ? EXIT_SUCCESS : EXIT_USAGE;
}
