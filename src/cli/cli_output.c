/* What the commands write and how they name what they read: output files opened before
 * the work and checked for collisions, standard output checked like any file, a scenario
 * path that is not a regular file refused, and text made safe for a terminal or a shell. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "terminal_text.h"

/* ------------------------------------------------------------------ output files */

bool cli_open_output(OutputFile *file, const char *path)
{
    char error[OUTPUT_PATH_MAX + 300];
    memset(file, 0, sizeof *file);
    if (path == NULL)
        return true;
    if (output_file_open(file, path, error, sizeof error))
        return true;
    fprintf(stderr, "idemsim: %s\n", error);
    return false;
}

bool cli_commit_output(OutputFile *file)
{
    char error[OUTPUT_PATH_MAX + 300];
    if (file->stream == NULL)
        return true;
    if (output_file_commit(file, error, sizeof error))
        return true;
    fprintf(stderr, "idemsim: %s\n", error);
    return false;
}

bool cli_check_outputs(const OutputRole *files, uint32_t count)
{
    char error[2 * OUTPUT_PATH_MAX + 200];
    if (output_file_check_distinct(files, count, error, sizeof error))
        return true;
    fprintf(stderr, "idemsim: %s\n", error);
    return false;
}

/* ------------------------------------------------------------------ standard output */

void cli_protect_standard_descriptors(void)
{
    for (int descriptor = 0; descriptor <= 2; descriptor++) {
        if (fcntl(descriptor, F_GETFD) >= 0)
            continue;
        /* Read-only, so writing to a closed standard output still fails (EBADF) and is
         * reported, while no output file can be given the number 1 and receive the table. */
        int placeholder = open("/dev/null", O_RDONLY);
        if (placeholder >= 0 && placeholder != descriptor) {
            dup2(placeholder, descriptor);
            close(placeholder);
        }
    }
}

bool cli_stdout_usable(const char *what)
{
    if (output_stdout_install())
        return true;
    fprintf(stderr, "idemsim: standard output: cannot write %s: %s\n", what, strerror(EBADF));
    return false;
}

int cli_exit_status(int status)
{
    int error = output_stdout_error();
    if (error == 0)
        return status;
    fprintf(stderr, "idemsim: standard output: cannot write: %s\n", strerror(error));
    /* Ctrl-C keeps its own code: the user stopped the command, and it said so. */
    return status == 128 + SIGINT ? status : EXIT_USAGE;
}

/* ------------------------------------------------------------------ input files */

bool cli_scenario_is_regular(const char *path)
{
    struct stat info;
    /* A missing file or a directory: the loader's messages say it best. */
    if (stat(path, &info) != 0 || S_ISREG(info.st_mode) || S_ISDIR(info.st_mode))
        return true;
    const char *kind = S_ISFIFO(info.st_mode)   ? "a FIFO"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                                                : "not a file";
    fprintf(stderr,
            "%s: cannot read file: %s, not a regular file (a scenario is read whole before "
            "anything runs; save it to a file first)\n",
            path, kind);
    return false;
}

/* ------------------------------------------------------------------ text */

void cli_terminal_text(char *buffer, size_t size, const char *text)
{
    terminal_text_escape(buffer, size, text); /* one copy, which the view uses too */
}

/* Letters, digits and these need no quotes in any POSIX shell. */
static bool shell_plain(const char *text)
{
    if (text[0] == '\0')
        return false;
    for (const char *c = text; *c != '\0'; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("_-./:=,+@%", *c) != NULL))
            return false;
    }
    return true;
}

void cli_shell_quote(char *buffer, size_t size, const char *text)
{
    size_t used = 0;
    buffer[0] = '\0';
    if (shell_plain(text)) {
        terminal_text_append(buffer, size, &used, text, strlen(text));
        return;
    }
    /* 'it'\''s': a single quote ends the quoting, is escaped, and quoting starts again. */
    bool fits = terminal_text_append(buffer, size, &used, "'", 1);
    for (const char *c = text; *c != '\0' && fits; c++)
        fits = *c == '\'' ? terminal_text_append(buffer, size, &used, "'\\''", 4)
                          : terminal_text_append(buffer, size, &used, c, 1);
    if (fits)
        terminal_text_append(buffer, size, &used, "'", 1);
}
