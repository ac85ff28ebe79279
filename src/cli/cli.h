/* Shared by the subcommands of the idemsim program: options, loading a scenario with its
 * errors printed, running every mode of a scenario, and writing output files whole. */
#ifndef IDEMSIM_CLI_H
#define IDEMSIM_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "report.h"
#include "scenario.h"
#include "world.h"

#define EXIT_EXPECTATION_FAILED 1
#define EXIT_USAGE 2
#define OVERRIDES_MAX 64

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

/* Parses the options common to the subcommands. Returns EXIT_SUCCESS, or EXIT_USAGE after
 * printing the error and usage; --help prints usage and exits 0. */
int cli_parse_options(int argc, char **argv, const char *usage, Options *options);
int cli_usage_error(const char *usage, const char *format, const char *argument);

/* Seconds on a monotonic clock, for progress lines and reports of wall time. */
double cli_wall_seconds(void);

/* Ctrl-C during a long check or sweep: after cli_catch_interrupt, the first Ctrl-C sets
 * cli_interrupted (the command stops between runs and says what finished); the handler
 * resets itself, so a second one kills at once. */
extern volatile sig_atomic_t cli_interrupted;
void cli_catch_interrupt(void);

/* NULL after printing every error as FILE: $.path: reason. Free the result. */
Scenario *cli_load_scenario(const char *path, const Options *options);

typedef struct {
    World *worlds[MODE_COUNT];
    RunReport report;
} Run;

/* Runs the modes of options (or else of the scenario) to their end with one seed. */
void cli_run_modes(Run *run, const Scenario *scenario, const Options *options, TraceSink trace);
void cli_run_release(Run *run);

/* ------------------------------------------------------------------ subcommand options */

/* An option only one subcommand knows (check's --seeds, run's --svg), taken out of argv
 * before the common parser sees it. Each takes one value; the last occurrence wins. */
typedef struct {
    const char *name;
    const char *value; /* NULL when absent */
} CliExtraOption;

/* Moves the extra options and their values out of argv, in place, and returns the new argc.
 * The value of a common option ("--set VALUE") is kept with it, never taken for an option.
 * Returns -1 after printing a usage error when an extra option has no value. */
bool cli_option_takes_value(const char *arg);
int cli_take_options(int argc, char **argv, CliExtraOption *extra, uint32_t extra_count,
                     const char *usage);

/* ------------------------------------------------------------------ output files */

/* How the user started us (argv[0]), so a printed command line can be pasted back. */
extern const char *cli_program;

int command_run(int argc, char **argv);
int command_validate(int argc, char **argv);
int command_check(int argc, char **argv);

extern const char *const run_usage;
extern const char *const check_usage;
extern const char *const validate_usage;

#endif
