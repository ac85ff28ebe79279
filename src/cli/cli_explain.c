/* idemsim explain: one operation's story, in words, in every mode. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "explain.h"
#include "report_svg.h"

const char *const explain_usage =
    "usage: idemsim explain SCENARIO (--op N | --why OUTCOME) [--mode M]... [--seed N]\n"
    "                       [--set PATH=VALUE]...\n"
    "\n"
    "Tells what happened to one operation, in every mode the scenario lists (or those given\n"
    "with --mode), one line per step: each click and attempt, every copy of every message\n"
    "and its fate, each decision of a key store, each effect and answer, and each crash\n"
    "that killed its work (and the restart after it); then the outcome the model gave it,\n"
    "and which layer caught each duplicate or that none did.\n"
    "\n"
    "options:\n"
    "  --op N          the operation (ids as in the trace: by group, client, then order)\n"
    "  --why OUTCOME   the first operation that ended ok, double, lost, phantom or mismatch,\n"
    "                  in each mode (it may be a different one in each)\n"
    "  --mode, --seed, --set, --max-*   as for run\n";

/* The first operation of mode that ended with outcome, or false: a first run watches the
 * model's "settled" records (a run is deterministic, so the second run is the same one). */
static bool find_first(const Scenario *scenario, const Options *options, Mode mode, Outcome outcome,
                       uint64_t seed, uint64_t *operation, char *stop_text, const char **stopped)
{
    *stopped = NULL;
    SvgSearch *search = report_svg_search_create(mode, outcome, 1);
    if (search == NULL)
        return false;
    World *world =
        world_create(scenario, mode, seed, report_svg_search_sink(search), options->limits);
    while (!report_svg_search_done(search) && world_step(world)) {
    }
    const SvgSelection *found = report_svg_search_result(search);
    bool any = found->count > 0;
    if (any)
        *operation = found->operations[0];
    else /* none yet when a budget stopped the search is not "none" */
        *stopped = cli_stop_text(world_stop(world), stop_text, CLI_STOP_TEXT_MAX);
    world_destroy(world);
    report_svg_search_destroy(search);
    return any;
}

static int explain_mode(const char *path, const Scenario *scenario, const Options *options,
                        Mode mode, uint64_t operation, uint64_t seed)
{
    Explain *explain = explain_create(scenario, mode, operation);
    if (explain == NULL) {
        fprintf(stderr, "idemsim explain: out of memory\n");
        return EXIT_USAGE;
    }
    World *world = world_create(scenario, mode, seed, explain_sink(explain), options->limits);
    world_run(world);
    char stop_text[CLI_STOP_TEXT_MAX];
    const char *stopped = cli_stop_text(world_stop(world), stop_text, sizeof stop_text);
    world_destroy(world);
    explain_write(stdout, explain, scenario);
    if (stopped != NULL)
        printf("  (the run was stopped by a budget: the story may be partial)\n");
    putchar('\n');
    explain_destroy(explain);
    if (stopped == NULL)
        return EXIT_SUCCESS;
    /* as every other command: a run a budget stopped is not a result (issue 24) */
    fprintf(stderr, "idemsim: %s: %s: %s\n", path, mode_name(mode), stopped);
    return EXIT_USAGE;
}

static bool parse_outcome(const char *text, Outcome *outcome)
{
    for (uint32_t o = 0; o < OUTCOME_COUNT; o++) {
        if (strcmp(text, outcome_name((Outcome)o)) == 0) {
            *outcome = (Outcome)o;
            return true;
        }
    }
    return false;
}

int command_explain(int argc, char **argv)
{
    enum { OP, WHY };
    CliExtraOption extra[] = {{"--op", NULL}, {"--why", NULL}};
    argc = cli_take_options(argc, argv, extra, 2, explain_usage);
    if (argc < 0)
        return EXIT_USAGE;
    Options options = {0};
    int status = cli_parse_options(argc, argv, explain_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count != 1)
        return cli_usage_error(explain_usage, "explain expects one SCENARIO%s", "");
    if ((extra[OP].value == NULL) == (extra[WHY].value == NULL))
        return cli_usage_error(explain_usage, "explain expects --op N or --why OUTCOME%s", "");
    if (options.json_path || options.csv_path || options.trace_path)
        return cli_usage_error(explain_usage, "explain writes no file%s", "");
    uint64_t operation = 0;
    Outcome outcome = OUTCOME_OK;
    if (extra[OP].value != NULL) {
        char *end = NULL;
        errno = 0;
        unsigned long long parsed = strtoull(extra[OP].value, &end, 10);
        if (errno != 0 || end == extra[OP].value || *end != '\0' || extra[OP].value[0] == '-')
            return cli_usage_error(explain_usage, "--op expects an operation id, got '%s'",
                                   extra[OP].value);
        operation = parsed;
    } else if (!parse_outcome(extra[WHY].value, &outcome)) {
        return cli_usage_error(explain_usage,
                               "--why expects ok, double, lost, phantom or mismatch, got '%s'",
                               extra[WHY].value);
    }
    if (!cli_stdout_usable("the explanation"))
        return EXIT_USAGE;
    Scenario *scenario = cli_load_scenario(options.files[0], &options);
    if (scenario == NULL)
        return EXIT_USAGE;
    uint64_t seed = options.has_seed ? options.seed : scenario->seed;
    const Mode *modes = options.mode_count > 0 ? options.modes : scenario->modes;
    uint32_t mode_count = options.mode_count > 0 ? options.mode_count : scenario->mode_count;
    for (uint32_t m = 0; m < mode_count && status == EXIT_SUCCESS; m++) {
        uint64_t chosen = operation;
        char stop_text[CLI_STOP_TEXT_MAX];
        const char *stopped = NULL;
        if (extra[WHY].value != NULL && !find_first(scenario, &options, modes[m], outcome, seed,
                                                    &chosen, stop_text, &stopped)) {
            if (stopped != NULL) {
                fprintf(stderr, "idemsim: %s: %s: %s\n", options.files[0], mode_name(modes[m]),
                        stopped);
                status = EXIT_USAGE;
                break;
            }
            printf("%s: no operation ended %s\n\n", mode_name(modes[m]), outcome_name(outcome));
            continue;
        }
        status = explain_mode(options.files[0], scenario, &options, modes[m], chosen, seed);
    }
    free(scenario);
    return status;
}
