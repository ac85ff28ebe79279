/* idemsim run: every mode of a scenario with one seed, side by side, plus the report,
 * CSV, trace and sequence-diagram files. Also the helpers the subcommands share: running
 * the modes, taking a subcommand's own options out of argv, writing output files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    "  --csv FILE          write the metrics as CSV (scenario,seed,mode,metric,value),\n"
    "                      each group's and service's too (double@web, effects@checkout)\n"
    "  --trace FILE        write every notable event as JSON lines\n"
    "  --svg FILE          draw the first operations of one mode as a sequence diagram\n"
    "  --svg-mode M        the mode to draw (default: the last mode run)\n"
    "  --svg-ops N         how many of its first operations to draw, 1 to 20 (default 3)\n"
    "  --svg-outcome O     draw only operations that ended O: ok, double, lost, phantom or\n"
    "                      mismatch (the first N to end so)\n"
    "  --svg-layout L      portrait (default: the handout, time flows down) or landscape\n"
    "                      (16:9 slides, time flows right; a long story takes pages)\n"
    "  --max-events N      stop a mode after N events (default 500000000)\n"
    "  --max-sim-time MS   stop a mode at simulated time MS (default: duration + 7 days)\n"
    "  --max-memory MIB    stop a mode whose storage exceeds MIB (default 4096)\n"
    "  --max-trace-bytes N stop when the --trace file would pass N bytes (default 1 GiB)\n"
    "  --no-color          plain table even on a terminal\n"
    "  -q, --quiet         print nothing but errors\n"
    "  --strict            a field that can have no effect where it is (said as a warning\n"
    "                      otherwise) is an error\n";

/* Called after each batch of events; returns true to stop the run there. */
typedef bool (*BatchDone)(void *context, World *world);

/* Runs a world to its end (or until done says so), showing progress on a terminal when it
 * takes a while. */
static void run_world(World *world, const Scenario *scenario, bool show_progress, BatchDone done,
                      void *context)
{
    double started = cli_wall_seconds();
    bool shown = false;
    double duration_s = scenario->duration_ms / 1000.0;
    bool stop = false;
    while (!stop && !world_finished(world)) {
        world_run_events(world, 65536);
        stop = done != NULL && done(context, world);
        if (show_progress && cli_wall_seconds() - started > 1.0) {
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
        run_world(run->worlds[m], scenario, show_progress, NULL, NULL);
        run->metrics[m] = *world_metrics(run->worlds[m]);
        run->faults_met |= world_faults_met(run->worlds[m]);
        report->metrics[m] = &run->metrics[m];
        report->stop_reasons[m] = cli_stop_text(world_stop(run->worlds[m]), run->stop_texts[m],
                                                sizeof run->stop_texts[m]);
        world_destroy(run->worlds[m]); /* before the next mode charges the memory budget */
        run->worlds[m] = NULL;
    }
}

void cli_run_release(Run *run)
{
    for (uint32_t m = 0; m < MODE_COUNT; m++)
        world_destroy(run->worlds[m]);
}

/* ------------------------------------------------------------------ run */

/* A listed fault that names no decision of this scenario (a typo, or an attempt that never
 * happens) changes nothing: said, so the list is not silently ignored. */
static void say_faults_never_met(const char *path, const Scenario *scenario, uint32_t met)
{
    for (uint32_t i = 0; i < scenario->fault_count; i++) {
        if ((met >> i & 1u) == 0)
            fprintf(stderr,
                    "%s: $.faults[%u]: warning: met in no mode (no such message, click or "
                    "handler run in this scenario): it changed nothing\n",
                    path, i);
    }
}

static void write_csv_row(FILE *stream, const RunReport *report, uint32_t m, const char *metric,
                          const char *of, double value)
{
    fprintf(stream, "%s,%" PRIu64 ",%s,%s%s%s,%.17g\n", report->scenario->name, report->seed,
            mode_name(report->modes[m]), metric, of[0] ? "@" : "", of, value);
}

/* Every metric of a service node, or of a service of several instances (its id). */
static void write_csv_service(FILE *stream, const RunReport *report, uint32_t m, const char *name)
{
    for (unsigned k = 0; k < scenario_service_metric_count; k++) {
        double value = 0;
        metrics_service_value(report->metrics[m], name, scenario_service_metric_names[k], &value);
        write_csv_row(stream, report, m, scenario_service_metric_names[k], name, value);
    }
}

/* The mode's metrics, then each client group's (with several) and each service's share, a
 * service of several after its instances, named as an expect block names them
 * (METRIC@GROUP, METRIC@SERVICE). */
static bool write_csv(FILE *stream, const RunReport *report)
{
    const Scenario *scenario = report->scenario;
    fprintf(stream, "scenario,seed,mode,metric,value\n");
    for (uint32_t m = 0; m < report->mode_count; m++) {
        const Metrics *metrics = report->metrics[m];
        for (uint32_t i = 0; i < scenario_metric_count; i++) {
            double value = 0;
            if (metrics_value(metrics, scenario_metric_names[i], &value))
                write_csv_row(stream, report, m, scenario_metric_names[i], "", value);
        }
        for (uint32_t g = 0; g < scenario->client_group_count && scenario->client_group_count > 1;
             g++) {
            for (unsigned k = 0; k < scenario_group_metric_count; k++) {
                double value = 0;
                if (metrics_group_value(metrics, g, scenario_group_metric_names[k], &value))
                    write_csv_row(stream, report, m, scenario_group_metric_names[k],
                                  scenario->client_groups[g].id, value);
            }
        }
        uint32_t order[SERVICE_METRICS_MAX];
        uint32_t count = metrics_services_in_lane_order(metrics, order);
        for (uint32_t i = 0; i < count; i++) {
            write_csv_service(stream, report, m, metrics->services[order[i]].name);
            if (metrics_service_ends_instances(metrics, order, count, i)) /* then the service */
                write_csv_service(stream, report, m, metrics->services[order[i]].service);
        }
    }
    return !ferror(stream);
}

typedef bool (*ReportWriter)(FILE *stream, const RunReport *report);

/* Writes the report into a file opened before the run, and commits it. */
static bool finish_output(OutputFile *file, ReportWriter writer, const RunReport *report)
{
    if (file->stream == NULL)
        return true;
    writer(file->stream, report); /* a failed write shows in the commit, with its errno */
    return cli_commit_output(file);
}

/* A newcomer sees where the files went; scripts pass -q. */
static bool say_written(const Options *options, const char *path, bool written)
{
    if (written && path != NULL && !options->quiet)
        fprintf(stderr, "idemsim: wrote %s\n", path);
    return written;
}

/* ------------------------------------------------------------------ the sequence diagram */

enum { SVG_PATH, SVG_MODE, SVG_OPERATIONS, SVG_OUTCOME, SVG_LAYOUT, SVG_OPTION_COUNT };

/* What --svg and its companions ask for. */
typedef struct {
    Mode mode;
    uint32_t operations;
    bool by_outcome; /* the first operations that ended outcome, not the first ones */
    Outcome outcome;
    SvgLayout layout;
} SvgRequest;

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

/* The trace file is the sink with a budget (the diagram keeps few records). */
static uint64_t tee_full(void *context)
{
    const TraceTee *tee = context;
    return tee->first.write != NULL ? trace_jsonl_full(tee->first.context) : 0;
}

/* --svg FILE [--svg-mode M] [--svg-ops N] [--svg-outcome O] [--svg-layout L]: which mode to
 * draw (by default the last one run, usually the keyed one), how many operations, whether
 * only those that ended O, and on a portrait page or a landscape slide. Checked before
 * anything runs. */
static int svg_prepare(const CliExtraOption *svg, const Options *options, const Scenario *scenario,
                       SvgRequest *request)
{
    *request = (SvgRequest){0};
    if (svg[SVG_PATH].value == NULL) {
        for (uint32_t o = SVG_MODE; o < SVG_OPTION_COUNT; o++) {
            if (svg[o].value != NULL)
                return cli_usage_error(run_usage, "%s needs --svg FILE", svg[o].name);
        }
        return EXIT_SUCCESS;
    }
    const Mode *modes = options->mode_count ? options->modes : scenario->modes;
    uint32_t mode_count = options->mode_count ? options->mode_count : scenario->mode_count;
    request->mode = modes[mode_count - 1];
    if (svg[SVG_MODE].value != NULL) {
        bool runs = mode_from_name(svg[SVG_MODE].value, &request->mode);
        for (uint32_t m = 0; runs && m < mode_count && modes[m] != request->mode; m++)
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
    request->operations = (uint32_t)operations;
    if (svg[SVG_OUTCOME].value != NULL) {
        for (uint32_t o = 0; o < OUTCOME_COUNT && !request->by_outcome; o++) {
            request->outcome = (Outcome)o;
            request->by_outcome = strcmp(svg[SVG_OUTCOME].value, outcome_name((Outcome)o)) == 0;
        }
        if (!request->by_outcome)
            return cli_usage_error(run_usage,
                                   "--svg-outcome expects ok, double, lost, phantom or mismatch, "
                                   "got '%s'",
                                   svg[SVG_OUTCOME].value);
    }
    if (svg[SVG_LAYOUT].value != NULL &&
        !report_svg_layout_from_name(svg[SVG_LAYOUT].value, &request->layout))
        return cli_usage_error(run_usage, "--svg-layout expects portrait or landscape, got '%s'",
                               svg[SVG_LAYOUT].value);
    return EXIT_SUCCESS;
}

static bool search_batch_done(void *context, World *world)
{
    (void)world;
    return report_svg_search_done(context);
}

/* The first pass of --svg-outcome. A run is deterministic, so running the drawn mode alone
 * (with its seed and budgets) finds the operations that the full run will end the same way;
 * it stops as soon as enough have settled so. Returns EXIT_USAGE, after saying why, when
 * memory runs out or no operation ended so. */
static int svg_search(const SvgRequest *request, const Scenario *scenario, const Options *options,
                      SvgSelection *selection)
{
    uint64_t seed = options->has_seed ? options->seed : scenario->seed;
    SvgSearch *search =
        report_svg_search_create(request->mode, request->outcome, request->operations);
    World *world = search == NULL ? NULL
                                  : world_create(scenario, request->mode, seed,
                                                 report_svg_search_sink(search), options->limits);
    const SvgSelection *found = NULL;
    if (world != NULL) {
        bool show_progress = !options->quiet && isatty(STDERR_FILENO);
        run_world(world, scenario, show_progress, search_batch_done, search);
        found = report_svg_search_result(search);
    }
    int status = EXIT_SUCCESS;
    if (found == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        status = EXIT_USAGE;
    } else if (found->count == 0) {
        fprintf(stderr, "idemsim: no operation ended '%s' in mode %s (seed %" PRIu64 ")\n",
                outcome_name(request->outcome), mode_name(request->mode), seed);
        status = EXIT_USAGE;
    } else {
        *selection = *found;
    }
    world_destroy(world);
    report_svg_search_destroy(search);
    return status;
}

/* The diagram to feed during the run: of the first operations, or of those svg_search found. */
static int svg_create(const SvgRequest *request, const Scenario *scenario, const Options *options,
                      SvgDiagram **diagram)
{
    SvgSelection selection;
    if (request->by_outcome) {
        int status = svg_search(request, scenario, options, &selection);
        if (status != EXIT_SUCCESS)
            return status;
    }
    *diagram = report_svg_create(request->mode, request->operations,
                                 request->by_outcome ? &selection : NULL);
    if (*diagram == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        return EXIT_USAGE;
    }
    report_svg_show_windows(*diagram, scenario);
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ the command */

/* The table on a terminal: a scenario's name and title are free text, so their control
 * characters are escaped there (the JSON report keeps them, escaped its own way). */
static void print_table(const RunReport *report, bool color)
{
    Scenario *shown = malloc(sizeof *shown);
    if (shown == NULL) {
        report_write_table(stdout, report, color);
        return;
    }
    *shown = *report->scenario;
    cli_terminal_text(shown->name, sizeof shown->name, report->scenario->name);
    cli_terminal_text(shown->title, sizeof shown->title, report->scenario->title);
    RunReport terminal = *report;
    terminal.scenario = shown;
    report_write_table(stdout, &terminal, color);
    free(shown);
}

enum { OUTPUT_JSON, OUTPUT_CSV, OUTPUT_TRACE, OUTPUT_SVG, OUTPUT_COUNT };

/* Opens the first OUTPUT_COUNT roles' files, before anything runs; on a failure closes
 * the ones already open. */
static bool open_outputs(const OutputRole *roles, OutputFile *files)
{
    for (uint32_t o = 0; o < OUTPUT_COUNT; o++) {
        if (!cli_open_output(&files[o], roles[o].path)) {
            for (uint32_t opened = 0; opened < o; opened++)
                output_file_abandon(&files[opened]);
            return false;
        }
    }
    return true;
}

/* Writes and commits every output opened before the run (the trace is already written),
 * saying where each went; false when one failed. */
static bool write_outputs(OutputFile *outputs, const OutputRole *roles, const Options *options,
                          const RunReport *report, const SvgDiagram *diagram, SvgLayout layout)
{
    bool written = true;
    if (outputs[OUTPUT_TRACE].stream != NULL)
        written &= say_written(options, roles[OUTPUT_TRACE].path,
                               cli_commit_output(&outputs[OUTPUT_TRACE]));
    written &= say_written(options, roles[OUTPUT_JSON].path,
                           finish_output(&outputs[OUTPUT_JSON], report_write_json, report));
    written &= say_written(options, roles[OUTPUT_CSV].path,
                           finish_output(&outputs[OUTPUT_CSV], write_csv, report));
    if (diagram != NULL) {
        report_svg_write_layout(outputs[OUTPUT_SVG].stream, diagram, report->scenario, report->seed,
                                layout);
        written &=
            say_written(options, roles[OUTPUT_SVG].path, cli_commit_output(&outputs[OUTPUT_SVG]));
    }
    return written;
}

/* A run cut short by a budget is reported (its files say "stopped"), but it is not a
 * result: the scenario is too big for its budget, an input problem. True when one was. */
static bool say_stops(const RunReport *report, const char *path)
{
    bool stopped = false;
    for (uint32_t m = 0; m < report->mode_count; m++) {
        if (report->stop_reasons[m] != NULL) {
            fprintf(stderr, "idemsim: %s: %s: %s\n", path, mode_name(report->modes[m]),
                    report->stop_reasons[m]);
            stopped = true;
        }
    }
    return stopped;
}

int command_run(int argc, char **argv)
{
    Options options = {.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL};
    CliExtraOption svg[SVG_OPTION_COUNT] = {
        {"--svg", NULL},         {"--svg-mode", NULL},   {"--svg-ops", NULL},
        {"--svg-outcome", NULL}, {"--svg-layout", NULL},
    };
    argc = cli_take_options(argc, argv, svg, SVG_OPTION_COUNT, run_usage);
    if (argc < 0)
        return EXIT_USAGE;
    int status = cli_parse_options(argc, argv, run_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count != 1)
        return cli_usage_error(run_usage, "run expects exactly one SCENARIO file%s", "");
    const OutputRole roles[] = {
        {"--json", options.json_path, true, false},   {"--csv", options.csv_path, true, false},
        {"--trace", options.trace_path, true, false}, {"--svg", svg[SVG_PATH].value, true, false},
        {"scenario", options.files[0], false, false},
    };
    if (!cli_check_outputs(roles, sizeof roles / sizeof roles[0]) ||
        (!options.quiet && !cli_stdout_usable("the table")))
        return EXIT_USAGE;
    Scenario *scenario = cli_load_scenario(options.files[0], &options);
    if (scenario == NULL)
        return EXIT_USAGE;
    SvgRequest svg_request;
    status = svg_prepare(svg, &options, scenario, &svg_request);
    OutputFile outputs[OUTPUT_COUNT] = {0};
    if (status == EXIT_SUCCESS && !open_outputs(roles, outputs))
        status = EXIT_USAGE;
    TraceJsonl *trace_writer = NULL;
    TraceSink sink = {0};
    if (status == EXIT_SUCCESS && outputs[OUTPUT_TRACE].stream != NULL) {
        trace_writer = trace_jsonl_open(outputs[OUTPUT_TRACE].stream);
        if (trace_writer == NULL) {
            fprintf(stderr, "idemsim: out of memory\n");
            status = EXIT_USAGE;
        } else {
            trace_jsonl_limit(trace_writer, options.max_trace_bytes);
            sink = trace_jsonl_sink(trace_writer);
        }
    }
    SvgDiagram *diagram = NULL;
    if (status == EXIT_SUCCESS && svg[SVG_PATH].value != NULL)
        status = svg_create(&svg_request, scenario, &options, &diagram);
    if (status != EXIT_SUCCESS) {
        trace_jsonl_close(trace_writer);
        for (uint32_t o = 0; o < OUTPUT_COUNT; o++)
            output_file_abandon(&outputs[o]);
        report_svg_destroy(diagram);
        free(scenario);
        return status;
    }
    TraceTee tee = {.first = sink, .second = diagram ? report_svg_sink(diagram) : sink};
    if (trace_writer != NULL) /* --max-trace-bytes: the trace's budget stops the run */
        options.limits.trace_full = diagram ? tee_full : trace_jsonl_full;
    Run run;
    cli_run_modes(&run, scenario, &options, diagram ? (TraceSink){tee_write, &tee} : sink);
    if (!options.quiet) {
        print_table(&run.report, options.color);
        fflush(stdout); /* the table before the lines that say where the files went */
    }
    trace_jsonl_close(trace_writer); /* a failed write shows in the commit */
    bool written =
        write_outputs(outputs, roles, &options, &run.report, diagram, svg_request.layout);
    bool stopped = say_stops(&run.report, options.files[0]);
    say_faults_never_met(options.files[0], scenario, run.faults_met);
    report_svg_destroy(diagram);
    cli_run_release(&run);
    free(scenario);
    return written && !stopped ? EXIT_SUCCESS : EXIT_USAGE;
}
