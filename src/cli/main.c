/* idemsim: the command line (DESIGN §5). Dispatches to the subcommands. Exit codes:
 * 0 success, 1 an expectation failed, 2 bad input or usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_sweep.h"
#include "scenario_names.h"

static const char *const main_usage =
    "idemsim: why a retried request charges money twice, and how idempotency keys stop it\n"
    "\n"
    "usage: idemsim COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       run every mode of a scenario and compare them side by side\n"
    "  check [FILE|DIR]   run scenarios' expectations (regression suite)\n"
    "  explain SCENARIO   tell one operation's story, step by step, in every mode\n"
    "  explore SCENARIO   every fault schedule of a small world, and the smallest that breaks it\n"
    "  validate FILE...   check scenario files without running them\n"
    "  show SCENARIO      print the effective scenario as services, every default filled in\n"
    "  view SCENARIO      watch the modes side by side in a window (SDL2)\n"
    "  sweep SCENARIO     vary fields over a grid, many seeds, on every core (CSV, SVG)\n"
    "  merge SHARD...     combine the shard CSVs of sweep --shard into one result\n"
    "  help [COMMAND]     show help for a command\n"
    "  --version          print the version\n"
    "\n"
    "Try: idemsim run scenarios/default.json\n";

const char *cli_program = "idemsim";

#ifdef IDEMSIM_HAVE_VIEW
/* The view is the program idemsim-view beside this one (src/cli/view_program.c), so no
 * other command maps SDL. Found through /proc/self/exe, whatever directory the user ran
 * idemsim from, then on PATH. */
static void exec_view_program(char **argv)
{
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length > 0) {
        path[length] = '\0';
        char *slash = strrchr(path, '/');
        const char *name = "idemsim-view";
        if (slash != NULL && (size_t)(slash + 1 - path) + strlen(name) < sizeof path) {
            strcpy(slash + 1, name);
            execv(path, argv);
        }
    }
    execvp("idemsim-view", argv);
}
#endif

static int command_view(int argc, char **argv)
{
#ifdef IDEMSIM_HAVE_VIEW
    /* idemsim-view reads the program's whole argv: the same name in messages, then "view". */
    char **view_argv = malloc(((size_t)argc + 3) * sizeof *view_argv);
    if (view_argv == NULL)
        return EXIT_USAGE;
    view_argv[0] = (char *)cli_program;
    view_argv[1] = "view";
    for (int i = 0; i < argc; i++)
        view_argv[i + 2] = argv[i];
    view_argv[argc + 2] = NULL;
    fflush(NULL);
    exec_view_program(view_argv);
    fprintf(stderr, "%s: cannot start the view program idemsim-view: %s\n", cli_program,
            strerror(errno));
    free(view_argv);
    return EXIT_USAGE;
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "idemsim: this build has no view (SDL2 was not found at build time)\n");
    return EXIT_USAGE;
#endif
}

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv); /* argv: the arguments after the command's name */
} Command;

static const Command commands[] = {
    {"run", command_run},         {"check", command_check}, {"validate", command_validate},
    {"view", command_view},       {"sweep", command_sweep}, {"merge", command_merge},
    {"explain", command_explain}, {"show", command_show},   {"explore", command_explore},
};

static const Command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* "unknown command 'rnu'", with the nearest command when one is close. */
static int unknown_command(const char *name)
{
    NameSuggestion suggestion;
    scenario_names_suggest_init(&suggestion, name);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        scenario_names_suggest_consider(&suggestion, commands[i].name);
    scenario_names_suggest_consider(&suggestion, "help");
    if (suggestion.best != NULL)
        fprintf(stderr, "idemsim: unknown command '%s', did you mean '%s'?\n", name,
                suggestion.best);
    else
        fprintf(stderr, "idemsim: unknown command '%s'\n", name);
    fprintf(stderr, "(%s help lists the commands)\n", cli_program);
    return EXIT_USAGE;
}

/* `idemsim help COMMAND` is `idemsim COMMAND --help`, so the two can never disagree. */
static int help(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "help") == 0) {
        fputs(main_usage, stdout);
        return EXIT_SUCCESS;
    }
    const Command *command = find_command(argv[0]);
    if (command == NULL)
        return unknown_command(argv[0]);
    char *help_argv[] = {"--help", NULL};
    return command->run(1, help_argv);
}

int main(int argc, char **argv)
{
    if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0')
        cli_program = argv[0];
    cli_protect_standard_descriptors();
    cli_install_signal_handlers();
    output_stdout_install(); /* a command that must write there checks it is open */
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(main_usage, argc < 2 ? stderr : stdout);
        return cli_exit_status(argc < 2 ? EXIT_USAGE : EXIT_SUCCESS);
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0) {
        printf("idemsim 0.1.0\n");
        return cli_exit_status(EXIT_SUCCESS);
    }
    if (strcmp(name, "help") == 0)
        return cli_exit_status(help(argc - 2, argv + 2));
    const Command *command = find_command(name);
    if (command == NULL)
        return unknown_command(name);
    return cli_exit_status(command->run(argc - 2, argv + 2));
}
