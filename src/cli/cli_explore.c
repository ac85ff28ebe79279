/* idemsim explore: every fault schedule of a small world with at most K faults, per mode,
 * and the smallest one that breaks a property, told as explain tells a story and written as
 * a scenario whose `faults` list replays it (docs/explore.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "explain.h"
#include "explore.h"
#include "fault_plan.h"
#include "report_svg.h"

#define EXPLORE_THREADS_MAX 256

const char *const explore_usage =
    "usage: idemsim explore SCENARIO [--faults K] [--mode M]... [--property P]\n"
    "                       [--max-states N] [--sample N] [--write-counterexample FILE]\n"
    "                       [--threads N] [--seed N] [--set PATH=VALUE]...\n"
    "\n"
    "Runs every fault schedule with at most K faults, in each mode, and reports how many\n"
    "break the property, which outcomes they reach, and the smallest schedule that breaks\n"
    "it (fewest faults, then earliest), told as explain tells a story. A fault is one\n"
    "decision a run otherwise draws at random: a message lost, duplicated or delayed past\n"
    "the longest timeout, a second click, the app offline or restarting, a crash, a\n"
    "handler failing before or after its effect, the gateway declining or not answering.\n"
    "Everything not faulted takes its no-fault path. Only faults the scenario can draw\n"
    "(probability > 0) are explored. Worlds of more than 8 operations are refused.\n"
    "Exit 0 when the property holds for every schedule explored, 1 when one breaks it,\n"
    "2 on bad input.\n"
    "\n"
    "options:\n"
    "  --faults K          at most K faults per schedule, 0 to 6 (default 2)\n"
    "  --property P        no-double (default), no-lost, no-phantom, no-mismatch,\n"
    "                      no-double-refund, told-matches-ledger, or expect (the\n"
    "                      scenario's expect lines)\n"
    "  --max-states N      run at most N schedules per mode (default 200000); the\n"
    "                      report then says up to which size the search is complete\n"
    "  --sample N          N random schedules of 1 to K faults instead of all, each\n"
    "                      violation shrunk to one where every fault is needed\n"
    "  --write-counterexample FILE\n"
    "                      the scenario plus the smallest counterexample's `faults` list\n"
    "                      (first violating mode): `idemsim run FILE` replays it\n"
    "  --threads N         worker threads (default: every online core); the output does\n"
    "                      not depend on it\n"
    "  --mode, --seed, --set, --max-*   as for run\n";

typedef struct {
    uint32_t max_faults;
    ExploreProperty property;
    uint64_t max_schedules;
    uint64_t sample;
    uint32_t threads;
    const char *counterexample_path;
} ExploreArguments;

static bool parse_unsigned(const char *text, uint64_t max, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || parsed > max)
        return false;
    *value = parsed;
    return true;
}

static int parse_arguments(const CliExtraOption *extra, ExploreArguments *arguments)
{
    enum { FAULTS, PROPERTY, MAX_STATES, SAMPLE, WRITE, THREADS };
    uint64_t value = 0;
    arguments->max_faults = 2;
    arguments->property = EXPLORE_NO_DOUBLE;
    arguments->max_schedules = 200000;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    arguments->threads = cores < 1 ? 1 : cores > 64 ? 64 : (uint32_t)cores;
    if (extra[FAULTS].value != NULL) {
        if (!parse_unsigned(extra[FAULTS].value, EXPLORE_FAULTS_MAX, &value))
            return cli_usage_error(explore_usage,
                                   "--faults expects an integer from 0 to 6, got '%s'",
                                   extra[FAULTS].value);
        arguments->max_faults = (uint32_t)value;
    }
    if (extra[PROPERTY].value != NULL &&
        !explore_property_from_name(extra[PROPERTY].value, &arguments->property))
        return cli_usage_error(explore_usage,
                               "--property expects no-double, no-lost, no-phantom, no-mismatch, "
                               "no-double-refund, told-matches-ledger or expect, got '%s'",
                               extra[PROPERTY].value);
    if (extra[MAX_STATES].value != NULL) {
        if (!parse_unsigned(extra[MAX_STATES].value, UINT64_MAX, &value) || value == 0)
            return cli_usage_error(explore_usage, "--max-states expects an integer >= 1, got '%s'",
                                   extra[MAX_STATES].value);
        arguments->max_schedules = value;
    }
    if (extra[SAMPLE].value != NULL) {
        if (!parse_unsigned(extra[SAMPLE].value, 100000000, &value) || value == 0)
            return cli_usage_error(explore_usage,
                                   "--sample expects an integer from 1 to 100000000, got '%s'",
                                   extra[SAMPLE].value);
        arguments->sample = value;
    }
    if (extra[THREADS].value != NULL) {
        if (!parse_unsigned(extra[THREADS].value, 64, &value) || value == 0)
            return cli_usage_error(explore_usage,
                                   "--threads expects an integer from 1 to 64, got '%s'",
                                   extra[THREADS].value);
        arguments->threads = (uint32_t)value;
    }
    arguments->counterexample_path = extra[WRITE].value;
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ words */

/* "the response to operation 0 (click 0, attempt 1, copy 2) is lost"; with manual capture
 * (C35) a charge the gateway takes is an authorisation, a hold. A fault at a gateway after
 * the first names it. */
static void describe_fault(FILE *stream, const FaultSpec *fault, const Scenario *scenario)
{
    char gateway[NAME_LEN_MAX + 16] = "the gateway";
    if (fault->gateway > 0 && fault->gateway <= scenario->extra_gateway_count)
        snprintf(gateway, sizeof gateway, "gateway '%s'",
                 scenario_gateway_id(scenario, fault->gateway));
    bool manual_capture = scenario_uses_manual_capture(scenario);
    /* what befalls the message, then by whom for a gateway's */
    static const char *const what[FAULT_KIND_COUNT] = {
        [FAULT_LOSS] = "is lost",
        [FAULT_DUPLICATE] = "is duplicated by the network",
        [FAULT_DELAY] = "is delayed",
        [FAULT_GATEWAY_DECLINE] = "is declined by",
        [FAULT_GATEWAY_SILENT] = "is charged by",
    };
    if (fault->kind == FAULT_GATEWAY_SILENT && fault->hop == FAULT_HOP_REFUND) {
        fprintf(stream,
                "the refund of operation %" PRIu64 " (click %u, attempt %u, copy %" PRIu64
                ") is made by %s, which never answers",
                fault->operation, fault->click, fault->attempt, fault->copy, gateway);
        return;
    }
    switch (fault->kind) {
    case FAULT_LOSS:
    case FAULT_DUPLICATE:
    case FAULT_DELAY:
    case FAULT_GATEWAY_DECLINE:
    case FAULT_GATEWAY_SILENT:
        fprintf(stream, "the %s of operation %" PRIu64 " (click %u, attempt %u, copy %" PRIu64 ") ",
                fault_hop_name(fault->hop), fault->operation, fault->click, fault->attempt,
                fault->copy);
        if (fault->kind == FAULT_GATEWAY_DECLINE)
            fprintf(stream, "%s %s", what[fault->kind], gateway);
        else if (fault->kind == FAULT_GATEWAY_SILENT && manual_capture)
            fprintf(stream, "is authorised by %s (a hold), which never answers", gateway);
        else if (fault->kind == FAULT_GATEWAY_SILENT)
            fprintf(stream, "%s %s, which never answers", what[fault->kind], gateway);
        else
            fputs(what[fault->kind], stream);
        if (fault->kind == FAULT_DELAY)
            fprintf(stream, " by %g ms", fault->by_ms);
        break;
    case FAULT_DOUBLE_CLICK:
        fprintf(stream, "the user clicks operation %" PRIu64 " a second time", fault->operation);
        break;
    case FAULT_SECOND_FIRING:
        fprintf(stream, "the scheduler's second instance fires operation %" PRIu64 " too",
                fault->operation);
        break;
    case FAULT_CAPTURE_LOST:
        fprintf(stream,
                "the capture of operation %" PRIu64 " (click %u, attempt %u) moves the money "
                "and its answer is lost",
                fault->operation, fault->click, fault->attempt);
        break;
    case FAULT_PROXY_CRASH:
        fprintf(stream,
                "the proxy crashes with operation %" PRIu64 " (click %u, attempt %u) in hand",
                fault->operation, fault->click, fault->attempt);
        break;
    case FAULT_FULFIL_FAIL:
        fprintf(stream,
                "the order of operation %" PRIu64 " (click %u, attempt %u) fails after "
                "its charge (out of stock)",
                fault->operation, fault->click, fault->attempt);
        break;
    case FAULT_OFFLINE:
    case FAULT_APP_RESTART:
        fprintf(stream, "the app %s after sending operation %" PRIu64 " (click %u)",
                fault->kind == FAULT_OFFLINE ? "goes offline" : "restarts", fault->operation,
                fault->click);
        break;
    default:
        fprintf(stream, "%s: operation %" PRIu64 " (click %u, attempt %u, copy %" PRIu64 ")",
                fault_kind_name(fault->kind), fault->operation, fault->click, fault->attempt,
                fault->copy);
        break;
    }
}

static void print_outcomes(const char *label, const uint64_t *counts)
{
    printf("%s", label);
    const char *separator = " ";
    bool any = false;
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        if (counts[o] == 0)
            continue;
        printf("%s%s %" PRIu64, separator, outcome_name((Outcome)o), counts[o]);
        separator = ", ";
        any = true;
    }
    printf("%s\n", any ? "" : " none");
}

/* The outcome a story is told for: the property's own, or the first non-ok one. */
static Outcome story_outcome(ExploreProperty property, const uint64_t *outcomes)
{
    switch (property) {
    case EXPLORE_NO_DOUBLE:
        return OUTCOME_DOUBLE;
    case EXPLORE_NO_LOST:
        return OUTCOME_LOST;
    case EXPLORE_NO_PHANTOM:
        return OUTCOME_PHANTOM;
    case EXPLORE_NO_MISMATCH:
        return OUTCOME_MISMATCH;
    case EXPLORE_NO_DOUBLE_REFUND:
        return OUTCOME_REFUNDED;
    default:
        for (int o = OUTCOME_DOUBLE; o < OUTCOME_COUNT; o++) {
            if (outcomes[o] > 0 && outcome_is_harm((Outcome)o))
                return (Outcome)o;
        }
        return OUTCOME_OK;
    }
}

/* The story of the first operation that ended `outcome` under the counterexample, as
 * `idemsim explain FILE --why OUTCOME --mode M` tells it for the written file. */
static void tell_story(const Scenario *replay, Mode mode, uint64_t seed, Outcome outcome,
                       const WorldLimits *limits)
{
    SvgSearch *search = report_svg_search_create(mode, outcome, 1);
    if (search == NULL)
        return;
    World *world = world_create(replay, mode, seed, report_svg_search_sink(search), *limits);
    while (!report_svg_search_done(search) && world_step(world)) {
    }
    const SvgSelection *found = report_svg_search_result(search);
    bool any = found->count > 0;
    uint64_t operation = any ? found->operations[0] : 0;
    world_destroy(world);
    report_svg_search_destroy(search);
    if (!any)
        return;
    Explain *explain = explain_create(replay, mode, operation);
    if (explain == NULL)
        return;
    world = world_create(replay, mode, seed, explain_sink(explain), *limits);
    world_run(world);
    world_destroy(world);
    explain_write(stdout, explain, replay);
    explain_destroy(explain);
}

static void replay_of(Scenario *replay, const Scenario *scenario, uint64_t seed,
                      const ExploreResult *result)
{
    memcpy(replay, scenario, sizeof *replay);
    replay->seed = seed;
    replay->faults_forced = true;
    replay->fault_count = result->counterexample_count;
    memcpy(replay->faults, result->counterexample,
           sizeof replay->faults[0] * result->counterexample_count);
}

/* ------------------------------------------------------------------ one mode */

static const char *faults_word(uint32_t count)
{
    return count == 1 ? "fault" : "faults";
}

static void report_mode(const Scenario *scenario, Mode mode, const ExploreArguments *arguments,
                        uint64_t seed, const ExploreResult *result, const WorldLimits *limits,
                        Scenario *replay)
{
    const char *property = explore_property_name(arguments->property);
    bool complete = arguments->sample == 0 && !result->truncated &&
                    result->complete_size >= arguments->max_faults;
    /* "holds" only for a complete search: a partial one found nothing, which is less */
    const char *verdict = result->found ? "VIOLATED" : complete ? "holds" : "no violation found";
    printf("%s: %s: %" PRIu64 " of %" PRIu64 " schedules break %s", mode_name(mode), verdict,
           result->violations, result->schedules, property);
    if (arguments->sample > 0)
        printf(" (%" PRIu64 " random samples of 1 to %u %s, shrinking included)\n",
               arguments->sample, arguments->max_faults, faults_word(arguments->max_faults));
    else if (!complete)
        printf(" (every schedule of up to %u %s; --max-states stopped the next size)\n",
               result->complete_size, faults_word(result->complete_size));
    else
        printf(" (every schedule of up to %u %s)\n", arguments->max_faults,
               faults_word(arguments->max_faults));
    printf("  by number of faults:");
    for (uint32_t k = 0; k <= arguments->max_faults; k++)
        printf(" %u: %" PRIu64 "%s", k, result->by_size[k], k < arguments->max_faults ? "," : "");
    printf("\n");
    print_outcomes("  outcomes reachable (schedules where they occur):", result->reachable);
    if (!result->found)
        return;
    printf("  smallest counterexample: %u fault%s\n", result->counterexample_count,
           result->counterexample_count == 1 ? "" : "s");
    for (uint32_t f = 0; f < result->counterexample_count; f++) {
        printf("    %u. ", f + 1);
        describe_fault(stdout, &result->counterexample[f], scenario);
        printf("\n");
    }
    print_outcomes("  outcomes under it:", result->counterexample_outcomes);
    replay_of(replay, scenario, seed, result);
    Outcome outcome = story_outcome(arguments->property, result->counterexample_outcomes);
    if (outcome != OUTCOME_OK) {
        printf("  the story (idemsim explain FILE --why %s --mode %s):\n\n", outcome_name(outcome),
               mode_name(mode));
        tell_story(replay, mode, seed, outcome, limits);
    }
}

/* "… --write-counterexample": the replay scenario, whole or not at all. */
static bool write_counterexample(const char *path, Scenario *replay, Mode mode,
                                 const ExploreArguments *arguments)
{
    for (uint32_t f = 0; f < replay->fault_count; f++) {
        if ((double)replay->faults[f].copy > SCENARIO_INTEGER_MAX) { /* a hashed lineage */
            fprintf(stderr,
                    "idemsim explore: %s: not written: fault %u's copy path (%" PRIu64
                    ") is beyond the integers a JSON number holds exactly (2^53)\n",
                    path, f + 1, replay->faults[f].copy);
            return false;
        }
    }
    size_t used = strlen(replay->description);
    snprintf(replay->description + used, sizeof replay->description - used,
             "%sCounterexample found by idemsim explore (%s, %s): the faults list forces "
             "%u fault%s; no other fault is drawn.",
             used > 0 ? " " : "", mode_name(mode), explore_property_name(arguments->property),
             replay->fault_count, replay->fault_count == 1 ? "" : "s");
    char *text = scenario_show(replay);
    if (text == NULL) {
        fprintf(stderr, "idemsim explore: out of memory\n");
        return false;
    }
    OutputFile file = {0};
    bool written = cli_open_output(&file, path);
    if (written) {
        fputs(text, file.stream);
        written = cli_commit_output(&file);
    }
    free(text);
    if (written)
        fprintf(stderr, "wrote %s\n", path);
    return written;
}

static int explore_scenario(const char *path, const Scenario *scenario, const Options *options,
                            const ExploreArguments *arguments)
{
    uint64_t seed = options->has_seed ? options->seed : scenario->seed;
    const Mode *modes = options->mode_count > 0 ? options->modes : scenario->modes;
    uint32_t mode_count = options->mode_count > 0 ? options->mode_count : scenario->mode_count;
    ExploreOptions explore = {.max_faults = arguments->max_faults,
                              .property = arguments->property,
                              .max_schedules = arguments->max_schedules,
                              .sample = arguments->sample,
                              .threads = arguments->threads,
                              .seed = seed,
                              .limits = options->limits};
    ExploreResult *result = malloc(sizeof *result);
    Scenario *replay = malloc(sizeof *replay);
    Scenario *written = malloc(sizeof *written);
    if (result == NULL || replay == NULL || written == NULL) {
        free(result), free(replay), free(written);
        fprintf(stderr, "idemsim explore: out of memory\n");
        return EXIT_USAGE;
    }
    int status = EXIT_SUCCESS;
    bool have_written = false;
    Mode written_mode = MODE_AT_MOST_ONCE;
    for (uint32_t m = 0; m < mode_count && status != EXIT_USAGE; m++) {
        explore_mode(scenario, modes[m], &explore, result);
        if (result->status == EXPLORE_TOO_LARGE) {
            fprintf(stderr,
                    "idemsim explore: %s: %" PRIu64 " operations; explore takes worlds of at "
                    "most %u operations (and %u decision points per run): reduce "
                    "clients[].count or workload.ops (--set clients[0].count=1), or use "
                    "idemsim run for the statistics\n",
                    path, result->operations, EXPLORE_OPERATIONS_MAX, FAULT_PLAN_POINTS_MAX);
            status = EXIT_USAGE;
            break;
        }
        if (result->status == EXPLORE_GILBERT_ELLIOTT) {
            fprintf(stderr,
                    "idemsim explore: %s: $.network: a Gilbert-Elliott link's losses depend on "
                    "the packets before it, so they are not single decisions; explore takes "
                    "Bernoulli losses (--set network.default.loss=0.05, and the same for each "
                    "link in network.links)\n",
                    path);
            status = EXIT_USAGE;
            break;
        }
        if (result->status == EXPLORE_STOPPED) {
            char stop_text[CLI_STOP_TEXT_MAX];
            const char *stopped = cli_stop_text(result->stop, stop_text, sizeof stop_text);
            fprintf(stderr, "idemsim: %s: %s: %s\n", path, mode_name(modes[m]),
                    stopped != NULL ? stopped : "stopped");
            status = EXIT_USAGE;
            break;
        }
        if (m == 0) {
            printf("explore %s (seed %" PRIu64 "): schedules of at most %u faults, property %s\n\n",
                   scenario->name, seed, arguments->max_faults,
                   explore_property_name(arguments->property));
            printf("decision points met without faults: %u (", result->base_points);
            const char *separator = "";
            for (int k = 0; k < FAULT_KIND_COUNT; k++) {
                if (result->points_by_kind[k] > 0) {
                    printf("%s%s %u", separator, fault_kind_name((FaultKind)k),
                           result->points_by_kind[k]);
                    separator = ", ";
                }
            }
            printf("%s); %" PRIu64 " operations\n\n", *separator == '\0' ? "none" : "",
                   result->operations);
        }
        report_mode(scenario, modes[m], arguments, seed, result, &options->limits, replay);
        printf("\n");
        if (result->found) {
            status = EXIT_EXPECTATION_FAILED;
            if (!have_written) {
                memcpy(written, replay, sizeof *written);
                written_mode = modes[m];
                have_written = true;
            }
        }
    }
    if (status != EXIT_USAGE && arguments->counterexample_path != NULL) {
        if (!have_written)
            fprintf(stderr, "idemsim explore: no counterexample: %s not written\n",
                    arguments->counterexample_path);
        else if (!write_counterexample(arguments->counterexample_path, written, written_mode,
                                       arguments))
            status = EXIT_USAGE;
    }
    free(result), free(replay), free(written);
    return status;
}

int command_explore(int argc, char **argv)
{
    CliExtraOption extra[] = {{"--faults", NULL},
                              {"--property", NULL},
                              {"--max-states", NULL},
                              {"--sample", NULL},
                              {"--write-counterexample", NULL},
                              {"--threads", NULL}};
    argc = cli_take_options(argc, argv, extra, 6, explore_usage);
    if (argc < 0)
        return EXIT_USAGE;
    Options options = {0};
    int status = cli_parse_options(argc, argv, explore_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count != 1)
        return cli_usage_error(explore_usage, "explore expects one SCENARIO%s", "");
    if (options.json_path || options.csv_path || options.trace_path)
        return cli_usage_error(explore_usage,
                               "explore writes no report file (--write-counterexample does)%s", "");
    ExploreArguments arguments = {0};
    status = parse_arguments(extra, &arguments);
    if (status != EXIT_SUCCESS)
        return status;
    if (!cli_stdout_usable("the exploration"))
        return EXIT_USAGE;
    Scenario *scenario = cli_load_scenario(options.files[0], &options);
    if (scenario == NULL)
        return EXIT_USAGE;
    status = explore_scenario(options.files[0], scenario, &options, &arguments);
    free(scenario);
    return status;
}
