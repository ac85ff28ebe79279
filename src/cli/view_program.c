/* idemsim-view: the SDL2 view as a program of its own (issue 25). `idemsim view ...` execs it
 * with the same arguments, so run, check, sweep, validate and explain never load SDL2,
 * SDL2_ttf or SDL_image: the dynamic loader resolving them cost about 14 M instructions of
 * every run. Rejected: the view as a shared object opened with dlopen, which would need the
 * program to export every core symbol the view uses (a static core links only what the
 * command line calls) or a second copy of the core with its own globals. argv is the
 * program's: argv[1] is "view". */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "view.h"

const char *cli_program = "idemsim";

int main(int argc, char **argv)
{
    if (argc > 0 && argv[0] != NULL && argv[0][0] != '\0')
        cli_program = argv[0];
    cli_protect_standard_descriptors();
    cli_install_signal_handlers();
    output_stdout_install();
    if (argc < 2 || strcmp(argv[1], "view") != 0)
        return cli_exit_status(EXIT_USAGE); /* only idemsim starts it, as idemsim view */
    return cli_exit_status(view_main(argc - 2, argv + 2));
}
