/* The installed data directories and the library's short names. The program's own
 * directory comes from /proc/self/exe (Linux, the platform packaged for); where it cannot be
 * read, the build-time directory is the one left. */
#include "scenario_library.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef IDEMSIM_DATA_DIR
#define IDEMSIM_DATA_DIR "/usr/local/share/idemsim"
#endif

static bool is_directory(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0 && S_ISDIR(status.st_mode);
}

static bool is_regular(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0 && S_ISREG(status.st_mode);
}

/* PROGRAM's directory/../share/idemsim, or "" */
static void beside_program(char *path, size_t size)
{
    char program[SCENARIO_LIBRARY_PATH_MAX];
    path[0] = '\0';
    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
    if (length <= 0)
        return;
    program[length] = '\0';
    char *slash = strrchr(program, '/');
    if (slash == NULL)
        return;
    *slash = '\0';
    int written = snprintf(path, size, "%s/../share/idemsim", program);
    if (written < 0 || (size_t)written >= size)
        path[0] = '\0';
}

int scenario_library_data_dirs(char dirs[][SCENARIO_LIBRARY_PATH_MAX], int max)
{
    char candidates[SCENARIO_LIBRARY_DIRS_MAX][SCENARIO_LIBRARY_PATH_MAX];
    beside_program(candidates[0], sizeof candidates[0]);
    snprintf(candidates[1], sizeof candidates[1], "%s", IDEMSIM_DATA_DIR);
    int count = 0;
    for (int i = 0; i < SCENARIO_LIBRARY_DIRS_MAX && count < max; i++)
        if (candidates[i][0] != '\0' && is_directory(candidates[i]))
            memcpy(dirs[count++], candidates[i], sizeof candidates[i]);
    return count;
}

/* dir/name or dir/name.json, when it is a regular file */
static bool find_in(const char *dir, const char *name, char *buffer, size_t size)
{
    static const char *const suffixes[] = {"", ".json"};
    for (int s = 0; s < 2; s++) {
        int written = snprintf(buffer, size, "%s/%s%s", dir, name, suffixes[s]);
        if (written > 0 && (size_t)written < size && is_regular(buffer))
            return true;
    }
    return false;
}

const char *scenario_library_resolve(const char *name, char *buffer, size_t size)
{
    struct stat status;
    if (name[0] == '\0' || strchr(name, '/') != NULL || lstat(name, &status) == 0)
        return name;
    if (find_in("scenarios", name, buffer, size))
        return buffer;
    char dirs[SCENARIO_LIBRARY_DIRS_MAX][SCENARIO_LIBRARY_PATH_MAX];
    int count = scenario_library_data_dirs(dirs, SCENARIO_LIBRARY_DIRS_MAX);
    for (int i = 0; i < count; i++) {
        char library[SCENARIO_LIBRARY_PATH_MAX + 16];
        int written = snprintf(library, sizeof library, "%s/scenarios", dirs[i]);
        if (written > 0 && (size_t)written < sizeof library && find_in(library, name, buffer, size))
            return buffer;
    }
    return name;
}
