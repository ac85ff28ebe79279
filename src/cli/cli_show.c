/* idemsim show: the effective scenario, in the services form with every default filled in.
 * Running what it prints gives byte-identical reports and traces to running the original. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *const show_usage =
    "usage: idemsim show SCENARIO [--set PATH=VALUE]...\n"
    "\n"
    "Prints the scenario as the simulator sees it: the --set overrides applied, every\n"
    "default written out, and its services as a graph (\"services\", each with an id and a\n"
    "kind; client groups that \"calls\" or \"publishes\" to one). Save it to start a model of\n"
    "your own system from a lesson: running the printed file gives the same reports and\n"
    "traces as running SCENARIO. Exit 2 when the scenario is invalid.\n";

int command_show(int argc, char **argv)
{
    Options options = {0};
    int status = cli_parse_options(argc, argv, show_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count != 1)
        return cli_usage_error(show_usage, "show expects one SCENARIO%s",
                               options.file_count == 0 ? "" : " (got several)");
    const char *unused = cli_run_only_option(&options);
    if (unused != NULL && strcmp(unused, "--seed") == 0)
        unused = "--seed (use --set seed=N)";
    if (unused != NULL)
        return cli_usage_error(show_usage, "show runs nothing: %s does not apply", unused);
    if (!cli_stdout_usable("the scenario"))
        return EXIT_USAGE;
    Scenario *scenario = cli_load_scenario(options.files[0], &options);
    if (scenario == NULL)
        return EXIT_USAGE;
    char *text = scenario_show(scenario);
    free(scenario);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot show: out of memory\n", options.files[0]);
        return EXIT_USAGE;
    }
    fputs(text, stdout);
    free(text);
    return EXIT_SUCCESS;
}
