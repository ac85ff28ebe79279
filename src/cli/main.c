/* idemsim: the command line (DESIGN §5). Dispatches to the subcommands. Exit codes:
 * 0 success, 1 an expectation failed, 2 bad input or usage. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_sweep.h"
#ifdef IDEMSIM_HAVE_VIEW
#include "view.h"
#endif

static const char *const main_usage =
    "idemsim: why a retried request charges money twice, and how idempotency keys stop it\n"
    "\n"
    "usage: idemsim COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       run every mode of a scenario and compare them side by side\n"
    "  check [FILE|DIR]   run scenarios' expectations (regression suite)\n"
    "  validate FILE...   check scenario files without running them\n"
    "  view SCENARIO      watch the modes side by side in a window (SDL2)\n"
    "  sweep SCENARIO     vary fields over a grid, many seeds, on every core (CSV, SVG)\n"
    "  merge SHARD...     combine the shard CSVs of sweep --shard into one result\n"
    "  help [COMMAND]     show help for a command\n"
    "\n"
    "Try: idemsim run scenarios/default.json\n";

/* Ctrl-C or a kill during a run leaves no half-written PATH.tmp.PID behind; check and
 * sweep install their own gentler Ctrl-C handling on top. */
static void on_fatal_signal(int signal_number)
{
    output_file_remove_temporaries();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

int main(int argc, char **argv)
{
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(main_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_SUCCESS;
    }
    const char *command = argv[1];
    if (strcmp(command, "help") == 0) {
        const char *topic = argc > 2 ? argv[2] : "";
        fputs(strcmp(topic, "run") == 0        ? run_usage
              : strcmp(topic, "check") == 0    ? check_usage
              : strcmp(topic, "validate") == 0 ? validate_usage
              : strcmp(topic, "sweep") == 0    ? sweep_usage
              : strcmp(topic, "merge") == 0    ? merge_usage
                                               : main_usage,
              stdout);
        return EXIT_SUCCESS;
    }
    if (strcmp(command, "run") == 0)
        return command_run(argc - 2, argv + 2);
    if (strcmp(command, "validate") == 0)
        return command_validate(argc - 2, argv + 2);
    if (strcmp(command, "check") == 0)
        return command_check(argc - 2, argv + 2);
    if (strcmp(command, "sweep") == 0)
        return command_sweep(argc - 2, argv + 2);
    if (strcmp(command, "merge") == 0)
        return command_merge(argc - 2, argv + 2);
    if (strcmp(command, "view") == 0) {
#ifdef IDEMSIM_HAVE_VIEW
        return view_main(argc - 2, argv + 2);
#else
        fprintf(stderr, "idemsim: this build has no view (SDL2 was not found at build time)\n");
        return EXIT_USAGE;
#endif
    }
    if (strcmp(command, "--version") == 0) {
        printf("idemsim 0.1.0\n");
        return EXIT_SUCCESS;
    }
    fprintf(stderr, "idemsim: unknown command '%s'\n\n%s", command, main_usage);
    return EXIT_USAGE;
}
