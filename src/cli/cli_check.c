/* idemsim check: run scenarios' expectations, the regression suite. Every file is loaded
 * before anything runs, so bad input is refused up front (exit 2). With --seeds K each
 * scenario runs with K consecutive seeds and an expectation passes only if it holds for all
 * of them: the lesson is not luck. --junit writes the same results as JUnit XML for CI.
 *
 * The runs, one per (file, seed), go to worker threads on every core (issue 25); this
 * thread prints each file's verdicts in file order once all its seeds are in. What a run
 * adds to its file's result does not depend on the order the runs finish in (least and
 * greatest values, the first failing seed by seed number), so the output is the same with
 * any number of threads; only the wall time, on standard error, differs. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "memory_account.h"
#include "scenario_library.h"
#include "xml_text.h"

const char *const check_usage =
    "usage: idemsim check [FILE|DIR]... [options]\n"
    "\n"
    "Runs each scenario (a directory means every *.json in it, sorted) and compares its\n"
    "metrics with the scenario's \"expect\" block. Prints PASS/FAIL per expectation with the\n"
    "expected range and the measured value, and a last line \"N passed, N failed\".\n"
    "Exit 1 when any expectation failed, 2 on bad input. Default: scenarios/, or else the\n"
    "installed library.\n"
    "Ctrl-C stops between two runs and prints what finished (exit 130).\n"
    "\n"
    "options:\n"
    "  --seeds K          run each scenario with K seeds (its seed, seed+1, ...); an\n"
    "                     expectation passes only if it holds for every one of them\n"
    "  --threads N        worker threads (default: every online core); the verdicts do\n"
    "                     not depend on it\n"
    "  --junit FILE       also write the results as JUnit XML\n"
    "  -q, --quiet        print only the failures and the last line\n"
    "  --strict           a field that can have no effect where it is (a warning\n"
    "                     otherwise) fails its scenario; the library is checked so\n"
    "  --seed N           start from seed N instead of each scenario's own\n"
    "  --set PATH=VALUE   override a field of every scenario\n"
    "  --max-events N, --max-sim-time MS, --max-memory MIB\n"
    "                     budgets per run, as for run; a run they stop fails its scenario\n";

#define SEEDS_MAX 100000
#define THREADS_MAX 256
#define STOP_TEXT_MAX 200
#define SCENARIO_OVERRIDE_QUOTED_MAX 4096

/* ------------------------------------------------------------------ state */

typedef struct {
    char *path;
    Scenario *scenario; /* NULL when it did not load */
    LoadErrors *errors; /* set when it did not load */
} CheckFile;

/* What one expectation measured over every seed. */
typedef struct {
    double low;
    double high;
    bool failed;
    uint64_t failing_seed; /* the first seed it failed with */
    uint32_t failing_k;    /* its place among the seeds: runs end in any order */
    double failing_value;
} Measure;

typedef struct {
    Options options;
    uint32_t seeds;
    uint32_t threads;
    const char *junit_path;
    CheckFile *files;
    uint32_t file_count;
    uint32_t file_capacity;
    int name_width;
    int metric_width;
    int range_width;
    bool color;
    uint32_t passed;
    uint32_t failed;
    /* Progress on a terminal, once a check has taken more than a second. */
    bool show_progress;
    bool progress_shown;
    double started_s;
    /* JUnit: the suites are buffered, since the root element carries the totals. */
    FILE *junit;
    OutputFile junit_file; /* opened before the first run, written at the end */
    char *junit_text;
    size_t junit_size;
    uint32_t junit_tests;
    uint32_t junit_failures;
    uint32_t junit_errors;
} Check;

/* ------------------------------------------------------------------ collecting files */

static void add_file(Check *check, const char *path)
{
    if (check->file_count == check->file_capacity) {
        uint32_t capacity = check->file_capacity ? check->file_capacity * 2 : 64;
        CheckFile *grown = realloc(check->files, capacity * sizeof *grown);
        if (grown == NULL) {
            fprintf(stderr, "idemsim: out of memory\n");
            exit(EXIT_USAGE);
        }
        check->files = grown;
        check->file_capacity = capacity;
    }
    check->files[check->file_count++] = (CheckFile){.path = strdup(path)};
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json of a directory, sorted, so the order (and the output) never depends on
 * the file system. False when the directory cannot be read. */
static bool add_directory(Check *check, const char *directory)
{
    DIR *dir = opendir(directory);
    if (dir == NULL) {
        fprintf(stderr, "idemsim: %s: cannot open directory: %s\n", directory, strerror(errno));
        return false;
    }
    char **names = NULL;
    size_t count = 0, capacity = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length <= 5 || strcmp(entry->d_name + length - 5, ".json") != 0)
            continue;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            char **grown = realloc(names, capacity * sizeof *grown);
            if (grown == NULL)
                break;
            names = grown;
        }
        names[count++] = strdup(entry->d_name);
    }
    closedir(dir);
    if (count > 0)
        qsort(names, count, sizeof names[0], compare_names);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s%s", directory,
                 directory[strlen(directory) - 1] == '/' ? "" : "/", names[i]);
        add_file(check, path);
        free(names[i]);
    }
    free(names);
    return true;
}

/* What each listed file holds while the check runs, charged to the process-wide memory
 * account (the budget is the process's: 20,000 files took 809 MB before any run). */
#define LOADED_FILE_BYTES (sizeof(Scenario) + sizeof(LoadErrors))

/* Loads every file before running any, so one bad file stops the check before it starts.
 * Returns the number of files that did not load (their errors are printed). */
static uint32_t load_files(Check *check)
{
    uint64_t budget = check->options.limits.max_memory_bytes
                          ? check->options.limits.max_memory_bytes
                          : WORLD_DEFAULT_MAX_MEMORY_BYTES;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < check->file_count; i++) {
        CheckFile *file = &check->files[i];
        bool loaded = false;
        if (!memory_account_try_charge(LOADED_FILE_BYTES, budget)) {
            fprintf(stderr,
                    "idemsim: %s: the %u scenarios listed would take more than the memory "
                    "budget of %" PRIu64 " MiB (check fewer, or raise it with --max-memory)\n",
                    file->path, check->file_count, budget >> 20);
            exit(EXIT_USAGE);
        }
        file->scenario = calloc(1, sizeof *file->scenario);
        file->errors = calloc(1, sizeof *file->errors);
        if (file->scenario == NULL || file->errors == NULL) {
            fprintf(stderr, "idemsim: out of memory\n");
            exit(EXIT_USAGE);
        }
        if (!cli_scenario_is_regular(file->path)) {
            file->errors->count = 1; /* for the JUnit report; the message is printed */
            snprintf(file->errors->items[0].message, sizeof file->errors->items[0].message,
                     "cannot read file: not a regular file");
        } else if ((loaded = scenario_load_file(file->path, check->options.overrides,
                                                check->options.override_count, file->scenario,
                                                file->errors)) &&
                   cli_say_inert(file->path, file->scenario, check->options.strict, file->errors)) {
            free(file->errors);
            file->errors = NULL;
            memory_account_release(sizeof(LoadErrors));
            /* Names are printed on a terminal: no control character may reach it. */
            char shown[sizeof file->scenario->name];
            cli_terminal_text(shown, sizeof shown, file->scenario->name);
            memcpy(file->scenario->name, shown, sizeof shown);
            continue;
        } else if (!loaded) { /* else refused by --strict, and cli_say_inert has said why */
            scenario_print_errors(stderr, file->path, file->errors);
        }
        free(file->scenario);
        file->scenario = NULL;
        memory_account_release(sizeof(Scenario));
        bad++;
    }
    return bad;
}

static void release_files(Check *check)
{
    for (uint32_t i = 0; i < check->file_count; i++) {
        if (check->files[i].scenario != NULL)
            memory_account_release(sizeof(Scenario));
        if (check->files[i].errors != NULL)
            memory_account_release(sizeof(LoadErrors));
        free(check->files[i].path);
        free(check->files[i].scenario);
        free(check->files[i].errors);
    }
    free(check->files);
}

/* ------------------------------------------------------------------ formatting */

static void format_range(char *buffer, size_t size, const Expectation *expectation)
{
    if (expectation->min == expectation->max)
        snprintf(buffer, size, "%g", expectation->min);
    else if (isinf(expectation->max))
        snprintf(buffer, size, ">= %g", expectation->min);
    else if (isinf(expectation->min))
        snprintf(buffer, size, "<= %g", expectation->max);
    else
        snprintf(buffer, size, "[%g, %g]", expectation->min, expectation->max);
}

static void format_measure(char *buffer, size_t size, const Measure *measure, uint32_t seeds)
{
    if (seeds == 1)
        snprintf(buffer, size, "%g", measure->low);
    else if (measure->low == measure->high)
        snprintf(buffer, size, "%g (%u seeds)", measure->low, seeds);
    else
        snprintf(buffer, size, "%g..%g (%u seeds)", measure->low, measure->high, seeds);
}

/* Columns as wide as the longest entry, so a long scenario name never shifts the rest. */
static void measure_columns(Check *check)
{
    check->name_width = 8;
    check->metric_width = 8;
    check->range_width = 6;
    for (uint32_t i = 0; i < check->file_count; i++) {
        const Scenario *scenario = check->files[i].scenario;
        int name = (int)strlen(scenario->name);
        check->name_width = name > check->name_width ? name : check->name_width;
        for (uint32_t e = 0; e < scenario->expectation_count; e++) {
            char range[64];
            format_range(range, sizeof range, &scenario->expectations[e]);
            int metric = (int)strlen(scenario->expectations[e].metric);
            check->metric_width = metric > check->metric_width ? metric : check->metric_width;
            check->range_width =
                (int)strlen(range) > check->range_width ? (int)strlen(range) : check->range_width;
        }
    }
}

static const char *verdict(const Check *check, bool pass)
{
    if (!check->color)
        return pass ? "PASS" : "FAIL";
    return pass ? "\033[32mPASS\033[0m" : "\033[1;31mFAIL\033[0m";
}

/* A line the user can paste: the file, the failing seed, the same budgets and overrides. */
static void format_rerun(char *buffer, size_t size, const Check *check, const char *path,
                         uint64_t seed)
{
    const WorldLimits *limits = &check->options.limits;
    char program[OUTPUT_PATH_MAX + 64], file[OUTPUT_PATH_MAX + 64];
    cli_shell_quote(program, sizeof program, cli_program);
    cli_shell_quote(file, sizeof file, path);
    int used = snprintf(buffer, size, "rerun: %s run %s --seed %" PRIu64, program, file, seed);
    if (limits->max_events > 0 && used >= 0 && (size_t)used < size)
        used += snprintf(buffer + used, size - (size_t)used, " --max-events %" PRIu64,
                         limits->max_events);
    if (limits->max_sim_time_us > 0 && used >= 0 && (size_t)used < size)
        used += snprintf(buffer + used, size - (size_t)used, " --max-sim-time %" PRIu64,
                         (uint64_t)(limits->max_sim_time_us / 1000));
    if (limits->max_memory_bytes > 0 && used >= 0 && (size_t)used < size)
        used += snprintf(buffer + used, size - (size_t)used, " --max-memory %" PRIu64,
                         limits->max_memory_bytes >> 20);
    for (uint32_t i = 0; i < check->options.override_count && used >= 0 && (size_t)used < size;
         i++) {
        char value[SCENARIO_OVERRIDE_QUOTED_MAX];
        cli_shell_quote(value, sizeof value, check->options.overrides[i]);
        used += snprintf(buffer + used, size - (size_t)used, " --set %s", value);
    }
}

/* ------------------------------------------------------------------ JUnit XML */

static void junit_open_suite(Check *check, const char *name, const char *path, uint32_t tests,
                             uint32_t failures, uint32_t errors, uint32_t skipped, double seconds)
{
    FILE *xml = check->junit;
    fputs("  <testsuite name=\"", xml);
    xml_text_write(xml, name);
    fprintf(xml, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n",
            tests, failures, errors, skipped, seconds);
    fputs("    <properties><property name=\"file\" value=\"", xml);
    xml_text_write(xml, path);
    fputs("\"/></properties>\n", xml);
    check->junit_tests += tests;
    check->junit_failures += failures;
    check->junit_errors += errors;
}

/* A file that did not load: one test case "load" with every error. */
static void junit_bad_file(Check *check, const CheckFile *file)
{
    if (check->junit == NULL)
        return;
    FILE *xml = check->junit;
    junit_open_suite(check, file->path, file->path, 1, 0, 1, 0, 0.0);
    fputs("    <testcase classname=\"", xml);
    xml_text_write(xml, file->path);
    fprintf(xml,
            "\" name=\"load\" time=\"0\">\n      <error type=\"bad-input\" message=\"%u "
            "error%s\">",
            file->errors->count, file->errors->count == 1 ? "" : "s");
    for (uint32_t i = 0; i < file->errors->count; i++) {
        char line[512];
        scenario_format_error(line, sizeof line, file->path, &file->errors->items[i]);
        xml_text_write(xml, line);
        fputc('\n', xml);
    }
    fputs("</error>\n    </testcase>\n  </testsuite>\n", xml);
}

static void junit_case(Check *check, const Scenario *scenario, const char *path,
                       const Expectation *expectation, const Measure *measure)
{
    FILE *xml = check->junit;
    char range[64], got[96];
    format_range(range, sizeof range, expectation);
    format_measure(got, sizeof got, measure, check->seeds);
    fputs("    <testcase classname=\"", xml);
    xml_text_write(xml, scenario->name);
    fprintf(xml, ".%s\" name=\"%s\" time=\"0\"", mode_name(expectation->mode), expectation->metric);
    if (!measure->failed) {
        fputs("/>\n", xml);
        return;
    }
    char message[256];
    snprintf(message, sizeof message, "expected %s, got %s; %g with seed %" PRIu64, range, got,
             measure->failing_value, measure->failing_seed);
    fputs(">\n      <failure type=\"expectation\" message=\"", xml);
    xml_text_write(xml, message);
    fputs("\">", xml);
    xml_text_write(xml, message);
    fputc('\n', xml);
    char rerun[4096];
    format_rerun(rerun, sizeof rerun, check, path, measure->failing_seed);
    xml_text_write(xml, rerun);
    fputs("</failure>\n    </testcase>\n", xml);
}

static bool junit_write(Check *check)
{
    if (check->junit == NULL)
        return true;
    fclose(check->junit); /* flushes the buffered suites into junit_text */
    check->junit = NULL;
    FILE *xml = check->junit_file.stream;
    fprintf(xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"idemsim check\" tests=\"%u\" failures=\"%u\" "
            "errors=\"%u\" time=\"%.3f\">\n",
            check->junit_tests, check->junit_failures, check->junit_errors,
            cli_wall_seconds() - check->started_s);
    fwrite(check->junit_text, 1, check->junit_size, xml);
    fputs("</testsuites>\n", xml);
    free(check->junit_text);
    check->junit_text = NULL;
    return cli_commit_output(&check->junit_file);
}

/* An interrupted check writes no report: a partial one would read as a complete run. */
static void junit_discard(Check *check)
{
    output_file_abandon(&check->junit_file); /* a no-op once written */
    if (check->junit == NULL)
        return;
    fclose(check->junit);
    check->junit = NULL;
    free(check->junit_text);
    check->junit_text = NULL;
}

/* ------------------------------------------------------------------ progress */

static void show_progress(Check *check, const char *name, uint32_t file, uint32_t seed)
{
    if (!check->show_progress || cli_wall_seconds() - check->started_s < 1.0)
        return;
    fprintf(stderr, "\r  checking %u/%u: %-*s seed %u/%u   ", file + 1, check->file_count,
            check->name_width, name, seed + 1, check->seeds);
    fflush(stderr);
    check->progress_shown = true;
}

static void clear_progress(Check *check)
{
    if (!check->progress_shown)
        return;
    fprintf(stderr, "\r%*s\r", check->name_width + 40, "");
    fflush(stderr);
    check->progress_shown = false;
}

/* ------------------------------------------------------------------ running */

typedef struct {
    Measure measures[EXPECTATIONS_MAX]; /* by expectation */
    bool stopped[MODE_COUNT];           /* by Mode: a budget stopped that mode */
    uint64_t stop_seed[MODE_COUNT];
    uint32_t stop_k[MODE_COUNT];
    char stop_reason[MODE_COUNT][STOP_TEXT_MAX];
} ScenarioResult;

static void measure_run(const Scenario *scenario, const Run *run, uint64_t seed, uint32_t k,
                        ScenarioResult *result)
{
    for (uint32_t e = 0; e < scenario->expectation_count; e++) {
        const Expectation *expectation = &scenario->expectations[e];
        for (uint32_t m = 0; m < run->report.mode_count; m++) {
            if (run->report.modes[m] != expectation->mode)
                continue;
            double value = 0;
            metrics_expectation_value(run->report.metrics[m], expectation, &value);
            Measure *measure = &result->measures[e];
            measure->low = fmin(measure->low, value);
            measure->high = fmax(measure->high, value);
            if ((!measure->failed || k < measure->failing_k) &&
                (value < expectation->min || value > expectation->max)) {
                measure->failed = true;
                measure->failing_seed = seed;
                measure->failing_k = k;
                measure->failing_value = value;
            }
        }
    }
    for (uint32_t m = 0; m < run->report.mode_count; m++) {
        Mode mode = run->report.modes[m]; /* results are kept by mode, not by column */
        if (run->report.stop_reasons[m] == NULL ||
            (result->stopped[mode] && result->stop_k[mode] <= k))
            continue;
        result->stopped[mode] = true;
        result->stop_seed[mode] = seed;
        result->stop_k[mode] = k;
        snprintf(result->stop_reason[mode], STOP_TEXT_MAX, "%s", run->report.stop_reasons[m]);
    }
}

/* ------------------------------------------------------------------ the worker pool */

/* One file's runs: the result they add up to, and how many have finished. */
typedef struct {
    ScenarioResult result;
    uint32_t done;
    double run_seconds; /* summed over its runs, for the JUnit report */
} FileRuns;

typedef struct {
    Check *check;
    FileRuns *files;
    uint64_t next_item; /* (file, seed) in file order: file = item / seeds */
    uint64_t item_count;
    bool stop;          /* no new run starts: interrupted, or nobody reads the verdicts */
    WorldLimits limits; /* each world's: its share of the process's memory budget */
    pthread_mutex_t lock;
    pthread_cond_t finished; /* a run finished */
} CheckPool;

static void *work(void *context)
{
    CheckPool *pool = context;
    const Check *check = pool->check;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        if (pool->stop || cli_interrupted || pool->next_item >= pool->item_count) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        uint64_t item = pool->next_item++;
        pthread_mutex_unlock(&pool->lock);
        uint32_t file_index = (uint32_t)(item / check->seeds);
        uint32_t k = (uint32_t)(item % check->seeds);
        const Scenario *scenario = check->files[file_index].scenario;
        Options options = check->options;
        options.mode_count = 0; /* every mode the scenario lists: its expectations name them */
        options.has_seed = true;
        options.seed = (check->options.has_seed ? check->options.seed : scenario->seed) + k;
        options.quiet = true; /* the check shows its own progress */
        options.limits = pool->limits;
        double started = cli_wall_seconds();
        Run *run = malloc(sizeof *run); /* a Run holds every mode's metrics: not the stack */
        if (run == NULL) {
            fprintf(stderr, "idemsim: out of memory\n");
            exit(EXIT_USAGE);
        }
        cli_run_modes(run, scenario, &options, (TraceSink){0});
        pthread_mutex_lock(&pool->lock);
        FileRuns *file = &pool->files[file_index];
        measure_run(scenario, run, options.seed, k, &file->result);
        file->done++;
        file->run_seconds += cli_wall_seconds() - started;
        pthread_cond_broadcast(&pool->finished);
        pthread_mutex_unlock(&pool->lock);
        cli_run_release(run);
        free(run);
    }
}

/* Waits until every seed of file_index has run; false when the check was interrupted
 * first. Wakes every 50 ms to notice a Ctrl-C, which a condition wait does not. */
static bool wait_for_file(CheckPool *pool, uint32_t file_index)
{
    Check *check = pool->check;
    pthread_mutex_lock(&pool->lock);
    while (pool->files[file_index].done < check->seeds && !cli_interrupted) {
        uint32_t done = pool->files[file_index].done;
        pthread_mutex_unlock(&pool->lock);
        show_progress(check, check->files[file_index].scenario->name, file_index, done);
        pthread_mutex_lock(&pool->lock);
        if (pool->files[file_index].done >= check->seeds)
            break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000 * 1000 * 1000) {
            until.tv_sec++;
            until.tv_nsec -= 1000 * 1000 * 1000;
        }
        pthread_cond_timedwait(&pool->finished, &pool->lock, &until);
    }
    bool complete = pool->files[file_index].done >= check->seeds;
    pthread_mutex_unlock(&pool->lock);
    clear_progress(check);
    return complete;
}

static void print_expectation(Check *check, const CheckFile *file, const Expectation *expectation,
                              const Measure *measure)
{
    if (!measure->failed && check->options.quiet) { /* -q: the failures and the count */
        check->passed++;
        return;
    }
    char range[64], got[96];
    format_range(range, sizeof range, expectation);
    format_measure(got, sizeof got, measure, check->seeds);
    printf("%s  %-*s  %-13s  %-*s  expected %-*s  got %s", verdict(check, !measure->failed),
           check->name_width, file->scenario->name, mode_name(expectation->mode),
           check->metric_width, expectation->metric, check->range_width, range, got);
    if (measure->failed && check->seeds > 1)
        printf("; %g with seed %" PRIu64, measure->failing_value, measure->failing_seed);
    putchar('\n');
    if (measure->failed) {
        char rerun[4096];
        format_rerun(rerun, sizeof rerun, check, file->path, measure->failing_seed);
        printf("      %s\n", rerun);
        check->failed++;
    } else {
        check->passed++;
    }
}

static void report_stops(Check *check, const CheckFile *file, const ScenarioResult *result)
{
    for (uint32_t m = 0; m < MODE_COUNT; m++) {
        if (!result->stopped[m])
            continue;
        printf("%s  %-*s  %-13s  %s (seed %" PRIu64 ")\n", verdict(check, false), check->name_width,
               file->scenario->name, mode_name((Mode)m), result->stop_reason[m],
               result->stop_seed[m]);
        check->failed++;
        if (check->junit == NULL)
            continue;
        fprintf(check->junit,
                "    <testcase classname=\"%s.%s\" name=\"run\" time=\"0\">\n"
                "      <error type=\"budget\" message=\"",
                file->scenario->name, mode_name((Mode)m));
        xml_text_write(check->junit, result->stop_reason[m]);
        fputs("\"/>\n    </testcase>\n", check->junit);
    }
}

/* An expectation of a mode that a budget stopped: its figures are partial, so it is neither
 * passed nor failed; the stop itself is the failure. */
static void print_unjudged(Check *check, const CheckFile *file, const Expectation *expectation)
{
    printf("SKIP  %-*s  %-13s  %-*s  not judged: the run stopped early\n", check->name_width,
           file->scenario->name, mode_name(expectation->mode), check->metric_width,
           expectation->metric);
    if (check->junit != NULL)
        fprintf(check->junit,
                "    <testcase classname=\"%s.%s\" name=\"%s\" time=\"0\">"
                "<skipped message=\"the run stopped early\"/></testcase>\n",
                file->scenario->name, mode_name(expectation->mode), expectation->metric);
}

/* False when interrupted before the scenario's verdicts were printed. */
static bool check_one(CheckPool *pool, uint32_t file_index)
{
    Check *check = pool->check;
    const CheckFile *file = &check->files[file_index];
    const Scenario *scenario = file->scenario;
    if (!wait_for_file(pool, file_index))
        return false; /* a partial scenario has no verdict */
    const ScenarioResult result = pool->files[file_index].result; /* its runs are all in */
    uint32_t failures = 0, stops = 0, unjudged = 0;
    for (uint32_t e = 0; e < scenario->expectation_count; e++) {
        if (result.stopped[scenario->expectations[e].mode])
            unjudged++;
        else
            failures += result.measures[e].failed;
    }
    for (uint32_t m = 0; m < MODE_COUNT; m++)
        stops += result.stopped[m];
    if (check->junit != NULL)
        junit_open_suite(check, scenario->name, file->path, scenario->expectation_count + stops,
                         failures, stops, unjudged, pool->files[file_index].run_seconds);
    for (uint32_t e = 0; e < scenario->expectation_count; e++) {
        const Expectation *expectation = &scenario->expectations[e];
        if (result.stopped[expectation->mode]) {
            print_unjudged(check, file, expectation);
            continue;
        }
        print_expectation(check, file, expectation, &result.measures[e]);
        if (check->junit != NULL)
            junit_case(check, scenario, file->path, expectation, &result.measures[e]);
    }
    if (scenario->expectation_count == 0)
        printf("SKIP  %-*s  (no expectations)\n", check->name_width, scenario->name);
    report_stops(check, file, &result);
    if (check->junit != NULL)
        fputs("  </testsuite>\n", check->junit);
    fflush(stdout);
    return true;
}

/* ------------------------------------------------------------------ the command */

static int parse_check_options(Check *check, int argc, char **argv)
{
    CliExtraOption extra[] = {{"--seeds", NULL}, {"--junit", NULL}, {"--threads", NULL}};
    argc = cli_take_options(argc, argv, extra, 3, check_usage);
    if (argc < 0)
        return EXIT_USAGE;
    int status = cli_parse_options(argc, argv, check_usage, &check->options);
    if (status != EXIT_SUCCESS)
        return status;
    check->seeds = 1;
    if (extra[0].value != NULL) {
        char *end = NULL;
        errno = 0;
        long seeds = strtol(extra[0].value, &end, 10);
        if (errno != 0 || *end != '\0' || end == extra[0].value || seeds < 1 || seeds > SEEDS_MAX)
            return cli_usage_error(check_usage,
                                   "--seeds expects an integer from 1 to 100000, "
                                   "got '%s'",
                                   extra[0].value);
        check->seeds = (uint32_t)seeds;
    }
    check->junit_path = extra[1].value;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    check->threads = cores < 1 ? 1 : cores > THREADS_MAX ? THREADS_MAX : (uint32_t)cores;
    if (extra[2].value != NULL) {
        char *end = NULL;
        errno = 0;
        long threads = strtol(extra[2].value, &end, 10);
        if (errno != 0 || *end != '\0' || end == extra[2].value || threads < 1 ||
            threads > THREADS_MAX)
            return cli_usage_error(check_usage,
                                   "--threads expects an integer from 1 to 256, got '%s'",
                                   extra[2].value);
        check->threads = (uint32_t)threads;
    }
    if (check->options.mode_count > 0)
        return cli_usage_error(check_usage,
                               "check runs the modes each scenario lists%s; "
                               "--mode is not supported",
                               "");
    return EXIT_SUCCESS;
}

/* The JUnit file, opened before the first run so that a bad path fails at once; it may be
 * none of the scenarios. */
static bool open_junit(Check *check)
{
    if (check->junit_path == NULL)
        return true;
    OutputRole *roles = calloc(check->file_count + 1, sizeof *roles);
    if (roles == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        return false;
    }
    roles[0] = (OutputRole){"--junit", check->junit_path, true, false};
    for (uint32_t i = 0; i < check->file_count; i++)
        roles[i + 1] = (OutputRole){"scenario", check->files[i].path, false, false};
    bool ok = cli_check_outputs(roles, check->file_count + 1) &&
              cli_open_output(&check->junit_file, check->junit_path);
    free(roles);
    return ok;
}

/* Files and directories from the command line; false when one cannot be read. */
static bool collect_files(Check *check)
{
    if (check->options.file_count == 0) {
        /* ./scenarios, or else the installed library (an installed `idemsim check`) */
        static char library[SCENARIO_LIBRARY_PATH_MAX + 16];
        char dirs[SCENARIO_LIBRARY_DIRS_MAX][SCENARIO_LIBRARY_PATH_MAX];
        struct stat here;
        const char *chosen = "scenarios";
        if (stat(chosen, &here) != 0 &&
            scenario_library_data_dirs(dirs, SCENARIO_LIBRARY_DIRS_MAX) > 0) {
            int written = snprintf(library, sizeof library, "%s/scenarios", dirs[0]);
            if (written > 0 && (size_t)written < sizeof library)
                chosen = library;
        }
        check->options.files[check->options.file_count++] = chosen;
    }
    bool readable = true;
    for (uint32_t i = 0; i < check->options.file_count; i++) {
        struct stat info;
        if (stat(check->options.files[i], &info) == 0 && S_ISDIR(info.st_mode))
            readable &= add_directory(check, check->options.files[i]);
        else
            add_file(check, check->options.files[i]);
    }
    return readable;
}

/* Runs every scenario and prints the verdicts; the exit code. The JUnit report is written
 * only for a check that ran to its end. */
static int run_all(Check *check)
{
    measure_columns(check);
    cli_catch_interrupt();
    CheckPool pool = {.check = check, .item_count = (uint64_t)check->file_count * check->seeds};
    pool.files = calloc(check->file_count, sizeof *pool.files);
    if (pool.files == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        return EXIT_USAGE;
    }
    for (uint32_t i = 0; i < check->file_count; i++)
        for (uint32_t e = 0; e < EXPECTATIONS_MAX; e++)
            pool.files[i].result.measures[e] = (Measure){.low = INFINITY, .high = -INFINITY};
    /* one world per thread at a time (a run's modes go one after another); the listed
     * scenarios are held throughout */
    uint64_t concurrent = check->threads < pool.item_count ? check->threads : pool.item_count;
    pool.limits =
        cli_world_limits(&check->options.limits, (uint64_t)check->file_count * sizeof(Scenario),
                         (uint32_t)concurrent);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.finished, NULL);
    pthread_t threads[THREADS_MAX];
    uint32_t started = 0;
    for (uint32_t t = 0; t < check->threads; t++)
        started += pthread_create(&threads[started], NULL, work, &pool) == 0;
    if (started == 0)
        work(&pool); /* no thread could start: every run on this one, then the verdicts */
    uint32_t finished = 0;
    /* Counted by what check_one printed, not by the flag afterwards: a Ctrl-C just after a
     * scenario's verdicts must not leave it out of the count. */
    bool stdout_failed = false;
    for (uint32_t i = 0; i < check->file_count && !cli_interrupted && !stdout_failed; i++) {
        finished += check_one(&pool, i);
        stdout_failed = output_stdout_error() != 0; /* nobody reads the rest: stop */
    }
    pthread_mutex_lock(&pool.lock);
    pool.stop = true; /* the runs under way finish; no other starts */
    pthread_mutex_unlock(&pool.lock);
    for (uint32_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    pthread_cond_destroy(&pool.finished);
    pthread_mutex_destroy(&pool.lock);
    free(pool.files);
    if (stdout_failed && !cli_interrupted) {
        if (finished < check->file_count)
            fprintf(stderr, "idemsim: check stopped after %u of %u scenarios\n", finished,
                    check->file_count);
        junit_discard(check); /* a partial report would read as a complete run */
        return EXIT_USAGE;    /* main says why */
    }
    if (cli_interrupted) {
        clear_progress(check);
        printf("interrupted: %u passed, %u failed in the %u of %u scenarios that finished\n",
               check->passed, check->failed, finished, check->file_count);
        fprintf(stderr, "idemsim: interrupted by Ctrl-C after %u of %u scenarios\n", finished,
                check->file_count);
        junit_discard(check);
        return 128 + SIGINT;
    }
    printf("%u passed, %u failed\n", check->passed, check->failed);
    /* The wall time on standard error, so the verdicts stay byte-identical run to run. */
    fprintf(stderr, "idemsim: checked %u scenario%s (%" PRIu64 " runs) in %.2f s on %u thread%s\n",
            check->file_count, check->file_count == 1 ? "" : "s", pool.item_count,
            cli_wall_seconds() - check->started_s, started > 0 ? started : 1,
            started == 1 ? "" : "s");
    if (!junit_write(check))
        return EXIT_USAGE;
    return check->failed > 0 ? EXIT_EXPECTATION_FAILED : EXIT_SUCCESS;
}

/* Bad input: nothing runs (DESIGN §4); each bad file counts as one failure. */
static int refuse_bad_input(Check *check, uint32_t bad)
{
    for (uint32_t i = 0; i < check->file_count; i++) {
        if (check->files[i].scenario == NULL)
            junit_bad_file(check, &check->files[i]);
    }
    fprintf(stderr, "idemsim: %u file%s with errors; nothing was run\n", bad, bad == 1 ? "" : "s");
    printf("0 passed, %u failed\n", bad);
    junit_write(check);
    return EXIT_USAGE;
}

int command_check(int argc, char **argv)
{
    Check check = {0};
    int status = parse_check_options(&check, argc, argv);
    if (status != EXIT_SUCCESS)
        return status;
    check.started_s = cli_wall_seconds();
    check.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
    check.show_progress = isatty(STDERR_FILENO);
    if (check.junit_path != NULL &&
        (check.junit = open_memstream(&check.junit_text, &check.junit_size)) == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        return EXIT_USAGE;
    }
    bool readable = collect_files(&check);
    if (readable && check.file_count == 0) {
        /* A check that ran nothing must not pass: the path is probably wrong. */
        fprintf(stderr, "idemsim: no scenario files (*.json) found in");
        for (uint32_t i = 0; i < check.options.file_count; i++)
            fprintf(stderr, " %s", check.options.files[i]);
        fputc('\n', stderr);
        status = EXIT_USAGE;
    } else if (!cli_stdout_usable("the verdicts") || !open_junit(&check)) {
        status = EXIT_USAGE;
    } else {
        uint32_t bad = load_files(&check) + !readable;
        status = bad > 0 ? refuse_bad_input(&check, bad) : run_all(&check);
    }
    junit_discard(&check); /* what is left after a failure */
    release_files(&check);
    return status;
}
