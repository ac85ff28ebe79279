/* idemsim sweep: every point of a grid over one or two scenario fields, K seeds each, every
 * mode. The main thread loads one Scenario per point (the loader's JSON parser keeps a
 * global error pointer, so loading stays on one thread); worker threads then take runs
 * (point, seed) from a shared counter and write each run's metrics to its own slot, so the
 * results never depend on which thread ran what, or when. */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_sweep.h"

#define THREADS_MAX 256
#define DEFAULT_SEEDS 10

const char *const sweep_usage =
    "usage: idemsim sweep SCENARIO --vary PATH=FROM:TO:STEP [options]\n"
    "\n"
    "Runs the scenario at every point of a grid (one or two --vary fields), with K seeds per\n"
    "point (seed = scenario seed + k) and every mode, on worker threads. Writes one CSV row\n"
    "per (point, mode, metric): mean over seeds, sd, 95% confidence interval half-width\n"
    "(Student t), min, max. Results do not depend on --threads or --shard.\n"
    "\n"
    "options:\n"
    "  --vary PATH=FROM:TO:STEP  a field to vary, e.g. network.default.loss=0:0.3:0.05;\n"
    "                            give it twice for a grid (the second makes the chart's\n"
    "                            columns)\n"
    "  --seeds K           seeds per point (default 10)\n"
    "  --threads N         worker threads (default: every online core)\n"
    "  --shard I/N         run only shard I of N (1 <= I <= N) and write the per-run shard\n"
    "                      CSV; combine the shards with idemsim merge\n"
    "  --csv FILE          write the CSV here (default: standard output)\n"
    "  --svg FILE          write a line chart: one line per mode, error bars, one panel per\n"
    "                      metric (and per value of the second --vary)\n"
    "  --metric NAME       a metric to report (repeatable; default: double, lost, phantom,\n"
    "                      double_amount); any metric name of an expect block, one\n"
    "                      group's (double@GROUP) or one service's (effects@SERVICE)\n"
    "  --set PATH=VALUE    override a scenario field at every point\n"
    "  --mode M            run only mode M (repeatable)\n"
    "  --seed N            first seed instead of the scenario's\n"
    "  --max-events N, --max-sim-time MS, --max-memory MIB\n"
    "                      budgets per run, as for idemsim run; a run stopped by a budget\n"
    "                      fails the sweep (exit 2, nothing written)\n"
    "  -q, --quiet         no progress line\n"
    "  --strict            a field that can have no effect (a warning otherwise, said once\n"
    "                      for the first point) is an error\n"
    "\n"
    "Example: idemsim sweep scenarios/default.json --vary network.default.loss=0:0.3:0.05 \\\n"
    "           --seeds 20 --csv loss.csv --svg loss.svg\n";

typedef struct {
    const char *vary[SWEEP_AXES_MAX + 1];
    uint32_t vary_count;
    const char *metrics[SWEEP_METRICS_MAX + 1];
    uint32_t metric_count;
    const char *seeds;
    const char *threads;
    const char *shard;
    const char *svg_path;
} SweepOptions;

/* ------------------------------------------------------------------ options */

/* Takes sweep's own options out of argv (in place) and returns the new argc, or -1 after a
 * usage error. A common option's value ("--set title=--vary") is never read as an option. */
static int take_sweep_options(int argc, char **argv, SweepOptions *sweep)
{
    int kept = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        bool ours = strcmp(arg, "--vary") == 0 || strcmp(arg, "--metric") == 0 ||
                    strcmp(arg, "--seeds") == 0 || strcmp(arg, "--threads") == 0 ||
                    strcmp(arg, "--shard") == 0 || strcmp(arg, "--svg") == 0;
        if (!ours) {
            argv[kept++] = argv[i];
            if (cli_option_takes_value(arg) && i + 1 < argc)
                argv[kept++] = argv[++i];
            continue;
        }
        if (i + 1 >= argc) {
            cli_usage_error(sweep_usage, "option %s needs a value", arg);
            return -1;
        }
        const char *value = argv[++i];
        const char **once = strcmp(arg, "--seeds") == 0     ? &sweep->seeds
                            : strcmp(arg, "--threads") == 0 ? &sweep->threads
                            : strcmp(arg, "--shard") == 0   ? &sweep->shard
                            : strcmp(arg, "--svg") == 0     ? &sweep->svg_path
                                                            : NULL;
        if (once != NULL && *once != NULL) {
            cli_usage_error(sweep_usage, "option %s given twice (it takes one value)", arg);
            return -1;
        }
        if (strcmp(arg, "--vary") == 0) {
            if (sweep->vary_count == SWEEP_AXES_MAX) {
                cli_usage_error(sweep_usage, "at most two --vary options%s", "");
                return -1;
            }
            sweep->vary[sweep->vary_count++] = value;
        } else if (strcmp(arg, "--metric") == 0) {
            if (sweep->metric_count == SWEEP_METRICS_MAX) {
                cli_usage_error(sweep_usage, "at most 16 --metric options%s", "");
                return -1;
            }
            for (uint32_t m = 0; m < sweep->metric_count; m++) {
                if (strcmp(sweep->metrics[m], value) == 0) { /* its rows would come twice */
                    cli_usage_error(sweep_usage, "--metric %s given twice", value);
                    return -1;
                }
            }
            sweep->metrics[sweep->metric_count++] = value;
        } else if (strcmp(arg, "--seeds") == 0) {
            sweep->seeds = value;
        } else if (strcmp(arg, "--threads") == 0) {
            sweep->threads = value;
        } else if (strcmp(arg, "--shard") == 0) {
            sweep->shard = value;
        } else {
            sweep->svg_path = value;
        }
    }
    return kept;
}

/* A field path as --set and --vary take it, without the optional leading "$.". */
static const char *bare_path(const char *path)
{
    return strncmp(path, "$.", 2) == 0 ? path + 2 : path;
}

/* A whole decimal number in [low, high]. */
static bool parse_count(const char *text, unsigned long low, unsigned long high, uint32_t *value)
{
    char *end = NULL;
    if (text == NULL || text[0] < '0' || text[0] > '9')
        return false;
    unsigned long parsed = strtoul(text, &end, 10);
    if (*end != '\0' || parsed < low || parsed > high)
        return false;
    *value = (uint32_t)parsed;
    return true;
}

static bool parse_shard(const char *text, uint32_t *index, uint32_t *count)
{
    char index_text[16], count_text[16];
    const char *slash = strchr(text, '/');
    if (slash == NULL || (size_t)(slash - text) >= sizeof index_text ||
        strlen(slash + 1) >= sizeof count_text)
        return false;
    snprintf(index_text, sizeof index_text, "%.*s", (int)(slash - text), text);
    snprintf(count_text, sizeof count_text, "%s", slash + 1);
    return parse_count(count_text, 1, SWEEP_RUNS_MAX, count) &&
           parse_count(index_text, 1, *count, index);
}

/* Control characters become spaces: each text is one line of the shard header. */
static void one_line(char *text)
{
    for (char *c = text; *c != '\0'; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    }
}

/* The grid, seeds, metrics and shard of the sweep into results; EXIT_SUCCESS or a usage
 * error. Modes and the scenario's name come later, from the loaded scenario. */
static int describe_sweep(const SweepOptions *sweep, const Options *options, SweepResults *results,
                          uint32_t *threads)
{
    char error[256];
    if (sweep->vary_count == 0)
        return cli_usage_error(sweep_usage, "sweep needs --vary PATH=FROM:TO:STEP%s", "");
    for (uint32_t a = 0; a < sweep->vary_count; a++) {
        if (!sweep_report_parse_axis(sweep->vary[a], &results->axes[a], error, sizeof error))
            return cli_usage_error(sweep_usage, "%s", error);
    }
    results->axis_count = sweep->vary_count;
    if (results->axis_count == 2 &&
        strcmp(bare_path(results->axes[0].path), bare_path(results->axes[1].path)) == 0)
        return cli_usage_error(sweep_usage, "--vary %s is given twice", results->axes[0].path);
    for (uint32_t a = 0; a < results->axis_count; a++) {
        for (uint32_t o = 0; o < options->override_count; o++) {
            const char *set = bare_path(options->overrides[o]);
            size_t length = strcspn(set, "=");
            const char *axis = bare_path(results->axes[a].path);
            if (set[length] == '=' && strlen(axis) == length && strncmp(set, axis, length) == 0)
                /* the sweep would set it at every point, and the --set would be dropped */
                return cli_usage_error(sweep_usage,
                                       "--set and --vary both give %s; drop one of them",
                                       results->axes[a].path);
        }
    }
    if (sweep_report_point_count(results) > SWEEP_POINTS_MAX)
        return cli_usage_error(sweep_usage, "the grid has more than 4096 points%s", "");
    results->seed_count = DEFAULT_SEEDS;
    if (sweep->seeds != NULL &&
        !parse_count(sweep->seeds, 1, SWEEP_SEEDS_MAX, &results->seed_count))
        return cli_usage_error(sweep_usage, "--seeds expects an integer in 1..100000, got '%s'",
                               sweep->seeds);
    if ((uint64_t)sweep_report_point_count(results) * results->seed_count > SWEEP_RUNS_MAX)
        return cli_usage_error(sweep_usage, "more than 1000000 runs (points x seeds)%s", "");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *threads = cores < 1 ? 1 : cores > THREADS_MAX ? THREADS_MAX : (uint32_t)cores;
    if (sweep->threads != NULL && !parse_count(sweep->threads, 1, THREADS_MAX, threads))
        return cli_usage_error(sweep_usage, "--threads expects an integer in 1..256, got '%s'",
                               sweep->threads);
    results->shard_index = results->shard_count = 1;
    if (sweep->shard != NULL &&
        !parse_shard(sweep->shard, &results->shard_index, &results->shard_count))
        return cli_usage_error(sweep_usage, "--shard expects I/N with 1 <= I <= N, got '%s'",
                               sweep->shard);
    static const char *const default_metrics[] = {"double", "lost", "phantom", "double_amount"};
    uint32_t count = sweep->metric_count ? sweep->metric_count : 4;
    for (uint32_t j = 0; j < count; j++) {
        const char *name = sweep->metric_count ? sweep->metrics[j] : default_metrics[j];
        if (!scenario_metric_known(name)) {
            fprintf(stderr, "idemsim: unknown metric '%s'; the metrics are:", name);
            for (unsigned i = 0; i < scenario_metric_count; i++)
                fprintf(stderr, " %s", scenario_metric_names[i]);
            fprintf(stderr, ", and METRIC@GROUP for a client group's outcomes and money\n");
            return EXIT_USAGE;
        }
        snprintf(results->metrics[results->metric_count++], NAME_LEN_MAX, "%s", name);
    }
    for (uint32_t i = 0; i < options->override_count; i++) {
        char *shown = results->overrides[results->override_count++];
        snprintf(shown, SWEEP_OVERRIDE_LEN_MAX, "%s", options->overrides[i]);
        one_line(shown);
    }
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ loading the points */

static void point_override(const SweepResults *results, uint32_t point, uint32_t axis, char *buffer,
                           size_t size)
{
    uint32_t inner = results->axis_count == 2 ? results->axes[1].count : 1;
    uint32_t index = axis == 0 ? point / inner : point % inner;
    char label[SWEEP_LABEL_LEN_MAX];
    sweep_report_axis_label(&results->axes[axis], index, label, sizeof label);
    snprintf(buffer, size, "%s=%s", results->axes[axis].path, label);
}

/* The fixed --set overrides, then the point's values (the later override wins). NULL after
 * printing the loader's errors and the point they belong to. */
static Scenario *load_point(const char *path, const Options *options, const SweepResults *results,
                            uint32_t point)
{
    const char *overrides[OVERRIDES_MAX + SWEEP_AXES_MAX];
    char values[SWEEP_AXES_MAX][SWEEP_PATH_LEN_MAX + SWEEP_LABEL_LEN_MAX + 2];
    uint32_t count = 0;
    for (uint32_t i = 0; i < options->override_count; i++)
        overrides[count++] = options->overrides[i];
    for (uint32_t a = 0; a < results->axis_count; a++) {
        point_override(results, point, a, values[a], sizeof values[a]);
        overrides[count++] = values[a];
    }
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    if (scenario == NULL || errors == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        exit(EXIT_USAGE);
    }
    if (!scenario_load_file(path, overrides, count, scenario, errors)) {
        scenario_print_errors(stderr, path, errors);
        bool about_the_file = errors->count == 1 && errors->items[0].path[0] == '\0';
        if (!about_the_file) /* "cannot read file" has nothing to do with the point */
            fprintf(stderr, "idemsim: (at the sweep point %s%s%s)\n", values[0],
                    results->axis_count == 2 ? ", " : "",
                    results->axis_count == 2 ? values[1] : "");
        free(scenario);
        scenario = NULL;
    }
    free(errors);
    return scenario;
}

static void release_points(Scenario **scenarios, uint32_t count)
{
    for (uint32_t p = 0; p < count; p++)
        free(scenarios[p]);
    free(scenarios);
}

/* Name, title and modes come from the first point (a --vary cannot change them). */
static void take_scenario_facts(SweepResults *results, const Scenario *scenario,
                                const Options *options)
{
    snprintf(results->scenario, sizeof results->scenario, "%s", scenario->name);
    snprintf(results->title, sizeof results->title, "%s", scenario->title);
    one_line(results->scenario);
    one_line(results->title);
    const Mode *modes = options->mode_count ? options->modes : scenario->modes;
    results->mode_count = options->mode_count ? options->mode_count : scenario->mode_count;
    memcpy(results->modes, modes, results->mode_count * sizeof *modes);
}

/* Every METRIC@GROUP names a client group of the scenario and every METRIC@SERVICE one of its
 * services, each with a metric it has (the --vary paths cannot add one). */
static bool metric_targets_exist(const char *path, const Scenario *scenario,
                                 const SweepResults *results)
{
    for (uint32_t j = 0; j < results->metric_count; j++) {
        const char *name = results->metrics[j];
        const char *at = strchr(name, '@');
        if (at == NULL)
            continue;
        size_t length = (size_t)(at - name);
        if (scenario_metric_group(scenario, name) >= 0) {
            if (scenario_is_group_metric(name, length))
                continue;
            fprintf(stderr,
                    "idemsim: %s: --metric %s: '%s' is a client group, which has only the "
                    "outcomes and their money\n",
                    path, name, at + 1);
            return false;
        }
        /* a known METRIC@ name (scenario_metric_known) is a service's metric: a group's outcomes
         * are a service's too (the operations it took part in) */
        if (scenario_service_name_known(scenario, at + 1))
            continue;
        fprintf(stderr,
                "idemsim: %s: --metric %s: no client group or service '%s' (the groups:", path,
                name, at + 1);
        for (uint32_t g = 0; g < scenario->client_group_count; g++)
            fprintf(stderr, " %s", scenario->client_groups[g].id);
        char names[SCENARIO_NODES_MAX][NODE_NAME_LEN_MAX];
        unsigned count = scenario_service_node_names(scenario, names, SCENARIO_NODES_MAX);
        fprintf(stderr, "; the services:");
        for (unsigned i = 0; i < count; i++)
            fprintf(stderr, " %s", names[i]);
        fprintf(stderr, ")\n");
        return false;
    }
    return true;
}

/* Every point is loaded (so validated) before anything runs: a bad value at the last point
 * fails the sweep at once, not after an hour. Points with no run in this shard are
 * validated and then dropped. */
static Scenario **load_points(const char *path, const Options *options, SweepResults *results)
{
    uint32_t points = sweep_report_point_count(results);
    Scenario **scenarios = calloc(points, sizeof *scenarios);
    if (scenarios == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        return NULL;
    }
    for (uint32_t p = 0; p < points; p++) {
        scenarios[p] = load_point(path, options, results, p);
        if (scenarios[p] == NULL) {
            release_points(scenarios, points);
            return NULL;
        }
        if (p == 0 && !cli_say_inert(path, scenarios[0], options->strict, NULL)) {
            release_points(scenarios, points); /* said once, for the first point */
            return NULL;
        }
        if (p == 0 && !metric_targets_exist(path, scenarios[0], results)) {
            release_points(scenarios, points);
            return NULL;
        }
        if (p == 0)
            take_scenario_facts(results, scenarios[0], options);
        bool needed = false;
        for (uint32_t k = 0; k < results->seed_count && !needed; k++)
            needed = sweep_report_run_in_shard(p * results->seed_count + k, results->shard_index,
                                               results->shard_count);
        if (!needed) {
            free(scenarios[p]);
            scenarios[p] = NULL;
        }
    }
    return scenarios;
}

/* ------------------------------------------------------------------ the worker pool */

typedef struct {
    pthread_mutex_t lock;
    const uint32_t *runs; /* this shard's runs, in run order */
    uint32_t run_count;
    uint32_t next;
    uint32_t done;
    SweepResults *results;
    Scenario *const *scenarios;
    const Options *options;
    WorldLimits limits; /* each world's: its share of the process's memory budget */
    uint32_t threads;
    bool progress;
    double started_s;
    double printed_s;
    uint32_t stopped;  /* runs a budget cut short */
    uint32_t stop_run; /* the lowest of them */
    char stop_reason[320];
} Pool;

/* Counts a run a budget cut short; keeps the reason of the lowest such run, so the message
 * does not depend on which thread got there first. */
static void note_stop(Pool *pool, uint32_t run, uint64_t seed, Mode mode, const char *reason)
{
    pthread_mutex_lock(&pool->lock);
    if (pool->stopped++ == 0 || run < pool->stop_run) {
        pool->stop_run = run;
        snprintf(pool->stop_reason, sizeof pool->stop_reason, "point %u, seed %" PRIu64 ", %s: %s",
                 run / pool->results->seed_count, seed, mode_name(mode), reason);
    }
    pthread_mutex_unlock(&pool->lock);
}

/* Every mode of one (point, seed); the values go to the run's own slot, no lock needed. */
static void run_one(Pool *pool, uint32_t run)
{
    SweepResults *results = pool->results;
    const Scenario *scenario = pool->scenarios[run / results->seed_count];
    uint64_t seed = (pool->options->has_seed ? pool->options->seed : scenario->seed) +
                    run % results->seed_count;
    double *values = sweep_report_run_values(results, run);
    bool stopped = false;
    for (uint32_t m = 0; m < results->mode_count; m++) {
        World *world =
            world_create(scenario, results->modes[m], seed, (TraceSink){0}, pool->limits);
        world_run(world);
        for (uint32_t j = 0; j < results->metric_count; j++)
            metrics_named_value(world_metrics(world), scenario, results->metrics[j],
                                &values[m * results->metric_count + j]);
        char stop_text[CLI_STOP_TEXT_MAX];
        if (world_stop(world).kind != WORLD_STOP_NONE && !stopped) {
            stopped = true;
            note_stop(pool, run, seed, results->modes[m],
                      cli_stop_text(world_stop(world), stop_text, sizeof stop_text));
        }
        world_destroy(world);
    }
    results->seeds[run] = seed;
    results->present[run] = true;
}

/* "4.2 s", "38 s", "12 min 05 s", "3 h 20 min". */
static void format_duration(char *buffer, size_t size, double seconds)
{
    long whole = (long)(seconds + 0.5);
    if (seconds < 10)
        snprintf(buffer, size, "%.1f s", seconds);
    else if (whole < 60)
        snprintf(buffer, size, "%ld s", whole);
    else if (whole < 3600)
        snprintf(buffer, size, "%ld min %02ld s", whole / 60, whole % 60);
    else
        snprintf(buffer, size, "%ld h %02ld min", whole / 3600, whole / 60 % 60);
}

/* Called with the lock held, after a run. At most four updates a second; the estimate
 * assumes the runs left cost what the runs done cost on average. */
static void show_progress(Pool *pool, bool final)
{
    double now = cli_wall_seconds();
    if (!pool->progress || pool->run_count == 0 || (!final && now - pool->printed_s < 0.25))
        return;
    pool->printed_s = now;
    if (final) {
        fprintf(stderr, "\r%*s\r", 79, "");
        return;
    }
    char elapsed[32], left[32] = "?";
    format_duration(elapsed, sizeof elapsed, now - pool->started_s);
    if (pool->done > 0)
        format_duration(left, sizeof left,
                        (now - pool->started_s) / pool->done * (pool->run_count - pool->done));
    fprintf(stderr, "\rsweep: %u/%u runs (%.0f%%) on %u threads, %s elapsed, ETA %s   ", pool->done,
            pool->run_count, 100.0 * pool->done / pool->run_count, pool->threads, elapsed, left);
    fflush(stderr);
}

/* Takes runs until none is left, Ctrl-C came (cli_interrupted) or a run stopped at a
 * budget: then it finishes the run it is on and takes no other; nothing is written, since
 * a sweep with holes would be a wrong result. */
static void *worker_main(void *argument)
{
    Pool *pool = argument;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        /* After a run stopped at a budget nothing will be written: no use going on. */
        if (pool->next == pool->run_count || cli_interrupted || pool->stopped > 0) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        uint32_t run = pool->runs[pool->next++];
        pthread_mutex_unlock(&pool->lock);
        run_one(pool, run);
        pthread_mutex_lock(&pool->lock);
        pool->done++;
        show_progress(pool, false);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* Runs the pool on up to `threads` threads; if none can be started, on this one. */
static void run_pool(Pool *pool)
{
    pthread_t threads[THREADS_MAX];
    uint32_t started = 0;
    pthread_mutex_init(&pool->lock, NULL);
    pool->started_s = cli_wall_seconds();
    pthread_mutex_lock(&pool->lock);
    show_progress(pool, false);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t t = 0; t < pool->threads; t++) {
        if (pthread_create(&threads[started], NULL, worker_main, pool) != 0)
            break;
        started++;
    }
    if (started == 0)
        worker_main(pool);
    for (uint32_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    show_progress(pool, true);
    pthread_mutex_destroy(&pool->lock);
}

/* ------------------------------------------------------------------ outputs */

bool cli_sweep_open_outputs(SweepOutputs *outputs, const char *csv_path, const char *svg_path,
                            const OutputRole *inputs, uint32_t input_count)
{
    memset(outputs, 0, sizeof *outputs);
    OutputRole *roles = calloc(input_count + 2, sizeof *roles);
    if (roles == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        return false;
    }
    roles[0] = (OutputRole){"--csv", csv_path, true, false};
    roles[1] = (OutputRole){"--svg", svg_path, true, false};
    memcpy(roles + 2, inputs, input_count * sizeof *roles);
    bool ok = cli_check_outputs(roles, input_count + 2);
    free(roles);
    if (ok && csv_path == NULL)
        ok = cli_stdout_usable("the CSV");
    ok = ok && cli_open_output(&outputs->csv, csv_path);
    if (ok && !cli_open_output(&outputs->svg, svg_path)) {
        output_file_abandon(&outputs->csv);
        ok = false;
    }
    return ok;
}

void cli_sweep_abandon_outputs(SweepOutputs *outputs)
{
    output_file_abandon(&outputs->csv);
    output_file_abandon(&outputs->svg);
}

bool cli_sweep_write_outputs(SweepOutputs *outputs, const SweepResults *results, bool shard)
{
    bool (*write_csv)(FILE *, const SweepResults *) =
        shard ? sweep_report_write_shard : sweep_report_write_csv;
    bool ok = true;
    if (outputs->csv.stream == NULL) {
        write_csv(stdout, results);
        ok = output_stdout_error() == 0; /* main says why */
    } else {
        write_csv(outputs->csv.stream, results); /* a failed write shows in the commit */
        ok = cli_commit_output(&outputs->csv);
    }
    if (ok && outputs->svg.stream != NULL) {
        sweep_report_write_svg(outputs->svg.stream, results);
        ok = cli_commit_output(&outputs->svg);
    }
    cli_sweep_abandon_outputs(outputs); /* what is left after a failure */
    return ok;
}

/* ------------------------------------------------------------------ the command */

static int parse_sweep_command(int argc, char **argv, SweepOptions *sweep, Options *options,
                               SweepResults *results, uint32_t *threads)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(sweep_usage, stdout);
            exit(cli_exit_status(EXIT_SUCCESS));
        }
        if (cli_option_takes_value(argv[i]))
            i++;
    }
    argc = take_sweep_options(argc, argv, sweep);
    if (argc < 0)
        return EXIT_USAGE;
    int status = cli_parse_options(argc, argv, sweep_usage, options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options->file_count != 1)
        return cli_usage_error(sweep_usage, "sweep expects exactly one SCENARIO file%s", "");
    if (options->json_path != NULL || options->trace_path != NULL)
        return cli_usage_error(sweep_usage, "sweep writes --csv and --svg only%s", "");
    if (sweep->shard != NULL && sweep->svg_path != NULL)
        return cli_usage_error(sweep_usage,
                               "a shard has no chart: merge the shards with "
                               "idemsim merge --svg%s",
                               "");
    return describe_sweep(sweep, options, results, threads);
}

/* The runs of this shard, in run order. */
static uint32_t *shard_runs(const SweepResults *results, uint32_t *count)
{
    uint32_t runs = sweep_report_run_count(results);
    uint32_t *list = calloc(runs, sizeof *list);
    *count = 0;
    for (uint32_t run = 0; list != NULL && run < runs; run++) {
        if (sweep_report_run_in_shard(run, results->shard_index, results->shard_count))
            list[(*count)++] = run;
    }
    return list;
}

/* Runs the pool and says why it stopped early, if it did: EXIT_SUCCESS when every run of
 * the shard finished whole. */
static int run_sweep(Pool *pool)
{
    cli_catch_interrupt();
    run_pool(pool);
    if (cli_interrupted) {
        fprintf(stderr,
                "idemsim: interrupted by Ctrl-C: %u of %u runs finished; nothing written "
                "(a sweep with holes would be a wrong result; --shard splits a long one)\n",
                pool->done, pool->run_count);
        return 128 + SIGINT;
    }
    if (pool->stopped > 0) {
        /* A run cut short measured part of a run: averaged with whole runs it would be a
         * wrong result, so nothing is written (as for run, an input problem). Named by its
         * place in the run order, not by how many runs the threads had finished by then:
         * every earlier run was taken first and ran whole, so the words do not depend on
         * the threads' timing. */
        uint32_t place = 0;
        while (place < pool->run_count && pool->runs[place] != pool->stop_run)
            place++;
        fprintf(stderr,
                "idemsim: a run stopped at a budget, so the sweep stopped at run %u of %u and "
                "wrote nothing (raise the budget or shrink the scenario); the first: %s\n",
                place + 1, pool->run_count, pool->stop_reason);
        return EXIT_USAGE;
    }
    return EXIT_SUCCESS;
}

int command_sweep(int argc, char **argv)
{
    SweepOptions sweep = {0};
    Options options = {0};
    SweepResults *results = calloc(1, sizeof *results);
    SweepOutputs *outputs = calloc(1, sizeof *outputs);
    Pool pool = {.threads = 1};
    if (results == NULL || outputs == NULL) {
        free(results);
        free(outputs);
        return EXIT_USAGE;
    }
    int status = parse_sweep_command(argc, argv, &sweep, &options, results, &pool.threads);
    Scenario **scenarios = NULL;
    if (status == EXIT_SUCCESS && !cli_scenario_is_regular(options.files[0]))
        status = EXIT_USAGE;
    if (status == EXIT_SUCCESS) {
        scenarios = load_points(options.files[0], &options, results);
        status = scenarios == NULL ? EXIT_USAGE : EXIT_SUCCESS;
    }
    OutputRole scenario_role = {"scenario", options.files[0], false, false};
    if (status == EXIT_SUCCESS &&
        !cli_sweep_open_outputs(outputs, options.csv_path, sweep.svg_path, &scenario_role, 1))
        status = EXIT_USAGE;
    uint32_t *runs = NULL;
    if (status == EXIT_SUCCESS) {
        runs = shard_runs(results, &pool.run_count);
        if (runs == NULL || !sweep_report_allocate(results)) {
            fprintf(stderr, "idemsim: out of memory\n");
            status = EXIT_USAGE;
        }
    }
    if (status == EXIT_SUCCESS) {
        pool.runs = runs;
        pool.results = results;
        pool.scenarios = scenarios;
        pool.options = &options;
        pool.threads = pool.threads < pool.run_count ? pool.threads : pool.run_count;
        /* one world per thread at a time; the points' scenarios are held throughout */
        pool.limits = cli_world_limits(
            &options.limits, (uint64_t)sweep_report_point_count(results) * sizeof(Scenario),
            pool.threads);
        pool.progress = !options.quiet && isatty(STDERR_FILENO);
        status = run_sweep(&pool);
    }
    if (status == EXIT_SUCCESS && !cli_sweep_write_outputs(outputs, results, sweep.shard != NULL))
        status = EXIT_USAGE;
    cli_sweep_abandon_outputs(outputs);
    if (scenarios != NULL)
        release_points(scenarios, sweep_report_point_count(results));
    free(runs);
    sweep_report_release(results);
    free(results);
    free(outputs);
    return status;
}
