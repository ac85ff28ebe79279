/* idemsim validate: load and check scenario files without running them. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

const char *const validate_usage =
    "usage: idemsim validate FILE... [--set PATH=VALUE]... [--strict]\n"
    "\n"
    "Loads and validates scenario files without running them; prints every error as\n"
    "FILE: $.json.path: reason. Exit 2 when a file is invalid. A field that can have no\n"
    "effect where it is (a retry budget with one attempt, fencing that nothing can\n"
    "trigger) is listed as FILE: $.json.path: warning: reason; --strict makes it an error.\n";

int command_validate(int argc, char **argv)
{
    Options options = {0};
    int status = cli_parse_options(argc, argv, validate_usage, &options);
    if (status != EXIT_SUCCESS)
        return status;
    if (options.file_count == 0)
        return cli_usage_error(validate_usage, "validate expects at least one FILE%s", "");
    /* Options validate would silently ignore are refused: nothing is run or written. */
    const char *unused = cli_run_only_option(&options);
    if (unused != NULL)
        return cli_usage_error(validate_usage, "validate runs nothing: %s does not apply", unused);
    int exit_code = EXIT_SUCCESS;
    for (uint32_t i = 0; i < options.file_count; i++) {
        Scenario *scenario = cli_load_scenario(options.files[i], &options);
        if (scenario == NULL) {
            exit_code = EXIT_USAGE;
            continue;
        }
        char name[sizeof scenario->name * 4];
        cli_terminal_text(name, sizeof name, scenario->name);
        printf("%s: ok (%s, %u client group%s, %u mode%s)\n", options.files[i], name,
               scenario->client_group_count, scenario->client_group_count == 1 ? "" : "s",
               scenario->mode_count, scenario->mode_count == 1 ? "" : "s");
        free(scenario);
    }
    return exit_code;
}
