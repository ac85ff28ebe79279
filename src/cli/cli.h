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
    uint32_t given;           /* the options seen so far that may not repeat (cli_options.c) */
    uint64_t max_trace_bytes; /* --max-trace-bytes; 0 until parsed: the default */
    bool strict;              /* --strict: inert configuration is an error */
} Options;

/* Parses the options common to the subcommands. Returns EXIT_SUCCESS, or EXIT_USAGE after
 * printing the error and usage; --help prints usage and exits 0. */
int cli_parse_options(int argc, char **argv, const char *usage, Options *options);
int cli_usage_error(const char *usage, const char *format, const char *argument);
/* The first option given that only a run uses (--json, --csv, --trace, --mode, --seed, the
 * budgets), or NULL: a command that runs nothing refuses it rather than ignore it. */
const char *cli_run_only_option(const Options *options);

/* Seconds on a monotonic clock, for progress lines and reports of wall time. */
double cli_wall_seconds(void);

/* ------------------------------------------------------------------ signals */

/* At start: every signal that ends the program removes the output temporaries first;
 * SIGPIPE and SIGXFSZ are ignored, so a closed pipe or a file too large is a failed write
 * with its reason (exit 2), not a silent death. */
void cli_install_signal_handlers(void);
/* Ctrl-C during a long check or sweep: after cli_catch_interrupt, the first Ctrl-C sets
 * cli_interrupted (the command stops between runs and says what finished); a second one
 * ends the program at once, temporaries removed. */
extern volatile sig_atomic_t cli_interrupted;
void cli_catch_interrupt(void);

/* ------------------------------------------------------------------ outputs and inputs */

/* Opens path (NULL: nothing, true) before the work starts, so a bad path fails in a
 * second, not after a long simulation. False after printing the error. */
bool cli_open_output(OutputFile *file, const char *path);
/* Commits a file cli_open_output opened (a no-op for one it did not); false after printing
 * the error. */
bool cli_commit_output(OutputFile *file);
/* output_file_check_distinct, the error printed. */
bool cli_check_outputs(const OutputRole *files, uint32_t count);
/* First thing in main: a closed descriptor 0, 1 or 2 is reopened on /dev/null, read-only,
 * so that an output file opened later cannot take its number (a closed stdout would make
 * the --json file descriptor 1, and the table would be written into it). */
void cli_protect_standard_descriptors(void);
/* For a command about to write its results to standard output: false, after saying so,
 * when descriptor 1 is closed or read-only; what names the results ("the CSV"). */
bool cli_stdout_usable(const char *what);
/* The command's exit status once standard output is flushed: a failed write to it is an
 * error (exit 2, the reason on standard error) whatever the command returned. */
int cli_exit_status(int status);
/* False, after printing "FILE: cannot read file: a FIFO, not a regular file", for a
 * scenario path that is a FIFO, device or socket: reading one could block forever. */
bool cli_scenario_is_regular(const char *path);

/* text with control characters escaped (\x1b, \u009b), cut to fit size: a title cannot
 * drive the terminal it is printed on. */
void cli_terminal_text(char *buffer, size_t size, const char *text);
/* text as one word for a POSIX shell: as it is when plain, else in single quotes. */
void cli_shell_quote(char *buffer, size_t size, const char *text);

/* NULL after printing every error as FILE: $.path: reason. Free the result. Inert
 * configuration is said as cli_say_inert does. */
Scenario *cli_load_scenario(const char *path, const Options *options);
/* Says, once, each field of scenario that can have no effect (scenario_inert_warnings):
 * "FILE: $.path: warning: reason" on standard error, or with strict as errors; the
 * warnings go into into (may be NULL). Returns false when strict and there was one. */
bool cli_say_inert(const char *path, const Scenario *scenario, bool strict, LoadErrors *into);

/* The limits each of `concurrent` worlds run at once gets: the process's memory budget
 * (--max-memory, else the default) less held_bytes the command keeps for the whole run,
 * divided between them, fixed before any runs, so that whether a world stops never depends
 * on its siblings' timing (issue 24). The other limits are each world's already. */
WorldLimits cli_world_limits(const WorldLimits *limits, uint64_t held_bytes, uint32_t concurrent);

/* The words for a world's stop, in buffer; NULL when it ended by itself. */
#define CLI_STOP_TEXT_MAX 200
const char *cli_stop_text(WorldStop stop, char *buffer, size_t size);

/* A finished mode's world is destroyed before the next mode runs (the memory budget is the
 * process's); what the reports need is kept here. */
typedef struct {
    World *worlds[MODE_COUNT];
    RunReport report;
    Metrics metrics[MODE_COUNT];                    /* report.metrics point here */
    char stop_texts[MODE_COUNT][CLI_STOP_TEXT_MAX]; /* report.stop_reasons point here */
    uint32_t faults_met; /* bit i: the scenario's faults[i] happened in some mode */
} Run;

/* Runs the modes of options (or else of the scenario) to their end with one seed. */
void cli_run_modes(Run *run, const Scenario *scenario, const Options *options, TraceSink trace);
void cli_run_release(Run *run);

/* ------------------------------------------------------------------ subcommand options */

/* An option only one subcommand knows (check's --seeds, run's --svg), taken out of argv
 * before the common parser sees it. Each takes one value and may be given once. */
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
int command_explain(int argc, char **argv);
int command_show(int argc, char **argv);
int command_explore(int argc, char **argv);

extern const char *const run_usage;
extern const char *const check_usage;
extern const char *const validate_usage;
extern const char *const show_usage;

#endif
