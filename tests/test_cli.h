/* Helpers shared by the tests that drive the idemsim program from outside: a scratch
 * directory per test, running the binary with its output in files, reading a file whole.
 * IDEMSIM_BINARY and IDEMSIM_SOURCE_DIR come from tests/CMakeLists.txt. */
#ifndef IDEMSIM_TEST_CLI_H
#define IDEMSIM_TEST_CLI_H

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_CLI_ARGUMENTS_MAX 40

static char test_scratch[256];

/* Runs from the source directory (scenario paths are relative to it), in a fresh
 * /tmp/idemsim-NAME-XXXXXX scratch directory. */
static inline void test_cli_make_scratch(const char *name)
{
    ck_assert_int_eq(chdir(IDEMSIM_SOURCE_DIR), 0);
    snprintf(test_scratch, sizeof test_scratch, "/tmp/idemsim-%s-XXXXXX", name);
    ck_assert_ptr_nonnull(mkdtemp(test_scratch));
}

static inline void test_cli_remove_scratch(void)
{
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", test_scratch);
    ck_assert_int_eq(system(command), 0);
}

/* buffer must hold 512 bytes; returns it. */
static inline const char *test_cli_in_scratch(char *buffer, const char *name)
{
    snprintf(buffer, 512, "%s/%s", test_scratch, name);
    return buffer;
}

static inline void redirect(int descriptor, const char *path)
{
    int file = open(path != NULL ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(file, descriptor);
}

/* Runs idemsim with arguments (NULL-terminated), stdout and stderr to the given files (NULL:
 * /dev/null), its address space capped at address_space_bytes (0: no cap); returns its exit
 * code. A signal fails the test. */
static inline int test_cli_run_capped(const char *const *arguments, const char *stdout_path,
                                      const char *stderr_path,
                                      unsigned long long address_space_bytes)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (address_space_bytes > 0) {
            struct rlimit cap = {address_space_bytes, address_space_bytes};
            setrlimit(RLIMIT_AS, &cap);
        }
        redirect(STDOUT_FILENO, stdout_path);
        redirect(STDERR_FILENO, stderr_path);
        const char *argv[TEST_CLI_ARGUMENTS_MAX] = {IDEMSIM_BINARY};
        for (int i = 0; arguments[i] != NULL && i < TEST_CLI_ARGUMENTS_MAX - 2; i++)
            argv[i + 1] = arguments[i];
        execv(IDEMSIM_BINARY, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFEXITED(status), "idemsim did not exit normally (signal %d)",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return WEXITSTATUS(status);
}

static inline int test_cli_run(const char *const *arguments, const char *stdout_path,
                               const char *stderr_path)
{
    return test_cli_run_capped(arguments, stdout_path, stderr_path, 0);
}

/* The whole file, NUL-terminated, or NULL when it cannot be read. Free it. */
static inline char *test_cli_read_all(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = calloc(1, (size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, file);
    fclose(file);
    text[got] = '\0';
    if (length != NULL)
        *length = got;
    return text;
}

/* Calls visit with the path ("FOLDER/NAME.json") of every scenario file in folder, relative
 * to the current directory, in the directory's order; returns how many. */
static inline unsigned test_for_each_scenario_file(const char *folder,
                                                   void (*visit)(const char *path, void *context),
                                                   void *context)
{
    DIR *dir = opendir(folder);
    ck_assert_msg(dir != NULL, "cannot open %s", folder);
    unsigned files = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length < 6 || strcmp(entry->d_name + length - 5, ".json") != 0)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        visit(path, context);
        files++;
    }
    closedir(dir);
    return files;
}

#endif
