/* Where an installed idemsim keeps its data (the scenario library, the fonts): beside the
 * program (PROGRAM/../share/idemsim, so a relocated prefix works), then the directory
 * configured at build time (IDEMSIM_DATA_DIR, CMake's install data dir). A scenario given by
 * its library name ("default", "01_lost_answer") resolves to a file there when no file of
 * that name exists where the user stands. */
#ifndef IDEMSIM_SCENARIO_LIBRARY_H
#define IDEMSIM_SCENARIO_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>

#define SCENARIO_LIBRARY_PATH_MAX 1024
#define SCENARIO_LIBRARY_DIRS_MAX 2

/* The data directories that exist, best first, as ".../share/idemsim"; returns how many. */
int scenario_library_data_dirs(char dirs[][SCENARIO_LIBRARY_PATH_MAX], int max);

/* name itself when it names an existing path or holds a '/'; else the first regular file
 * NAME or NAME.json in ./scenarios, then in each data directory's scenarios/, copied into
 * buffer; else name (so the error that follows names what the user typed). */
const char *scenario_library_resolve(const char *name, char *buffer, size_t size);

#endif
