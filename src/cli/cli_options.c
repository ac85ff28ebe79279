/* Command-line options shared by the subcommands, and loading a scenario with its errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "scenario_inert.h"
#include "scenario_library.h"

double cli_wall_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int cli_usage_error(const char *usage, const char *format, const char *argument)
{
    fprintf(stderr, "idemsim: ");
    fprintf(stderr, format, argument);
    /* The usage line and where the rest is, not the whole help: the error stays visible. */
    size_t first_line = strcspn(usage, "\n");
    const char *command = strstr(usage, "idemsim ");
    int command_length = command ? (int)strcspn(command + 8, " \n") : 0;
    fprintf(stderr, "\n%.*s\n(%s help %.*s for every option)\n", (int)first_line, usage,
            cli_program, command_length, command ? command + 8 : "");
    return EXIT_USAGE;
}

static bool parse_u64(const char *text, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    if (text[0] < '0' || text[0] > '9') /* no sign, no space: strtoull would take them */
        return false;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *value = parsed;
    return true;
}

/* The common options that take a value, so that a value such as "--set title=--svg" is
 * never mistaken for an option. */
bool cli_option_takes_value(const char *arg)
{
    static const char *const names[] = {
        "--mode",  "--seed",       "--set",          "--json",       "--csv",
        "--trace", "--max-events", "--max-sim-time", "--max-memory", "--max-trace-bytes"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(arg, names[i]) == 0)
            return true;
    }
    return false;
}

/* A scenario named by its library name ("idemsim run default") is the library's file, from
 * ./scenarios or the installed data directory, when no file of that name is here. A few
 * names per command: more stay as typed (and fail to load, naming what was typed). */
static const char *library_name(const char *arg)
{
    static char paths[8][SCENARIO_LIBRARY_PATH_MAX];
    static int used;
    if (used == 8)
        return arg;
    const char *resolved = scenario_library_resolve(arg, paths[used], sizeof paths[used]);
    if (resolved != arg)
        used++;
    return resolved;
}

/* ------------------------------------------------------------------ subcommand options */

int cli_take_options(int argc, char **argv, CliExtraOption *extra, uint32_t extra_count,
                     const char *usage)
{
    int kept = 0;
    for (int i = 0; i < argc; i++) {
        CliExtraOption *option = NULL;
        for (uint32_t e = 0; e < extra_count && option == NULL; e++) {
            if (strcmp(argv[i], extra[e].name) == 0)
                option = &extra[e];
        }
        if (option == NULL) {
            argv[kept++] = argv[i];
            if (cli_option_takes_value(argv[i]) && i + 1 < argc)
                argv[kept++] = argv[++i];
            continue;
        }
        if (i + 1 >= argc) {
            cli_usage_error(usage, "option %s needs a value", option->name);
            return -1;
        }
        if (option->value != NULL) {
            cli_usage_error(usage, "option %s given twice (it takes one value)", option->name);
            return -1;
        }
        option->value = argv[++i];
    }
    return kept;
}

/* An option given twice is refused unless it is documented to repeat (--mode, --set): the
 * second --json or --seed used to win silently, hiding a typo in a long command. -q and
 * --quiet are one option. */
static bool given_twice(Options *options, const char *arg)
{
    static const char *const once[] = {
        "--seed",         "--json",       "--csv",      "--trace", "--max-events",
        "--max-sim-time", "--max-memory", "--no-color", "--quiet", "--max-trace-bytes",
        "--strict"};
    if (strcmp(arg, "-q") == 0)
        arg = "--quiet";
    for (uint32_t k = 0; k < sizeof once / sizeof once[0]; k++) {
        if (strcmp(arg, once[k]) != 0)
            continue;
        bool seen = (options->given >> k) & 1u;
        options->given |= 1u << k;
        return seen;
    }
    return false;
}

int cli_parse_options(int argc, char **argv, const char *usage, Options *options)
{
    options->max_trace_bytes = TRACE_JSONL_DEFAULT_MAX_BYTES;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes_value = cli_option_takes_value(arg);
        if (takes_value && value == NULL)
            return cli_usage_error(usage, "option %s needs a value", arg);
        if (given_twice(options, arg))
            return cli_usage_error(usage, "option %s given twice (it takes one value)", arg);
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            exit(cli_exit_status(EXIT_SUCCESS));
        } else if (strcmp(arg, "--mode") == 0) {
            Mode mode;
            if (!mode_from_name(value, &mode))
                return cli_usage_error(usage,
                                       "unknown mode '%s' (expected at-most-once, at-least-once "
                                       "or idempotent)",
                                       value);
            for (uint32_t m = 0; m < options->mode_count; m++) {
                if (options->modes[m] == mode)
                    return cli_usage_error(usage, "--mode %s given twice", value);
            }
            options->modes[options->mode_count++] = mode; /* at most MODE_COUNT distinct */
        } else if (strcmp(arg, "--seed") == 0) {
            if (!parse_u64(value, &options->seed))
                return cli_usage_error(usage, "--seed expects a non-negative integer, got '%s'",
                                       value);
            options->has_seed = true;
        } else if (strcmp(arg, "--set") == 0) {
            if (options->override_count == OVERRIDES_MAX)
                return cli_usage_error(usage, "too many --set options (at most 64)%s", "");
            options->overrides[options->override_count++] = value;
        } else if (strcmp(arg, "--json") == 0) {
            options->json_path = value;
        } else if (strcmp(arg, "--csv") == 0) {
            options->csv_path = value;
        } else if (strcmp(arg, "--trace") == 0) {
            options->trace_path = value;
        } else if (strcmp(arg, "--max-events") == 0) {
            if (!parse_u64(value, &options->limits.max_events) || options->limits.max_events == 0)
                return cli_usage_error(usage, "--max-events expects a positive integer, got '%s'",
                                       value);
        } else if (strcmp(arg, "--max-sim-time") == 0) {
            uint64_t ms;
            if (!parse_u64(value, &ms) || ms == 0 || ms > UINT64_MAX / 1000)
                return cli_usage_error(usage, "--max-sim-time expects milliseconds > 0, got '%s'",
                                       value);
            options->limits.max_sim_time_us = ms * 1000;
        } else if (strcmp(arg, "--max-memory") == 0) {
            uint64_t megabytes;
            if (!parse_u64(value, &megabytes) || megabytes == 0 || megabytes > (UINT64_MAX >> 20))
                return cli_usage_error(usage, "--max-memory expects MiB > 0, got '%s'", value);
            options->limits.max_memory_bytes = megabytes << 20;
            scenario_load_limit_memory(options->limits.max_memory_bytes); /* parse trees too */
        } else if (strcmp(arg, "--max-trace-bytes") == 0) {
            if (!parse_u64(value, &options->max_trace_bytes) || options->max_trace_bytes == 0)
                return cli_usage_error(usage, "--max-trace-bytes expects bytes > 0, got '%s'",
                                       value);
        } else if (strcmp(arg, "--strict") == 0) {
            options->strict = true;
        } else if (strcmp(arg, "--no-color") == 0) {
            options->color = false;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
            options->quiet = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cli_usage_error(usage, "unknown option '%s'", arg);
        } else {
            if (options->file_count == sizeof options->files / sizeof options->files[0])
                return cli_usage_error(usage, "too many files (at most 256)%s", "");
            options->files[options->file_count++] = library_name(arg);
        }
        if (takes_value)
            i++;
    }
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ loading */

bool cli_say_inert(const char *path, const Scenario *scenario, bool strict, LoadErrors *into)
{
    LoadErrors *warnings = into != NULL ? into : calloc(1, sizeof *warnings);
    if (warnings == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        exit(EXIT_USAGE);
    }
    uint32_t first = warnings->count;
    scenario_inert_warnings(scenario, warnings);
    for (uint32_t i = first; i < warnings->count; i++)
        fprintf(stderr, "%s: %s: %s%s%s\n", path, warnings->items[i].path,
                strict ? "" : "warning: ", warnings->items[i].message,
                strict ? " (an error with --strict)" : "");
    bool refused = strict && warnings->count > first;
    if (into == NULL)
        free(warnings);
    return !refused;
}

Scenario *cli_load_scenario(const char *path, const Options *options)
{
    if (!cli_scenario_is_regular(path))
        return NULL;
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    if (scenario == NULL || errors == NULL) {
        fprintf(stderr, "idemsim: out of memory\n");
        exit(EXIT_USAGE);
    }
    bool ok =
        scenario_load_file(path, options->overrides, options->override_count, scenario, errors);
    if (ok && !cli_say_inert(path, scenario, options->strict, NULL))
        ok = false; /* said as errors */
    else if (!ok)
        scenario_print_errors(stderr, path, errors);
    if (!ok) {
        free(scenario);
        scenario = NULL;
    }
    free(errors);
    return scenario;
}

WorldLimits cli_world_limits(const WorldLimits *limits, uint64_t held_bytes, uint32_t concurrent)
{
    WorldLimits shared = *limits;
    uint64_t budget =
        limits->max_memory_bytes > 0 ? limits->max_memory_bytes : WORLD_DEFAULT_MAX_MEMORY_BYTES;
    uint64_t left = budget > held_bytes ? budget - held_bytes : 0;
    shared.max_memory_bytes = left / (concurrent > 0 ? concurrent : 1);
    if (shared.max_memory_bytes == 0)
        shared.max_memory_bytes = 1; /* 0 would be the default: nothing is left, stop at once */
    return shared;
}

const char *cli_run_only_option(const Options *options)
{
    const WorldLimits *limits = &options->limits;
    return options->json_path                                                          ? "--json"
           : options->csv_path                                                         ? "--csv"
           : options->trace_path                                                       ? "--trace"
           : options->mode_count                                                       ? "--mode"
           : options->has_seed                                                         ? "--seed"
           : limits->max_events || limits->max_sim_time_us || limits->max_memory_bytes ? "--max-*"
                                                                                       : NULL;
}
