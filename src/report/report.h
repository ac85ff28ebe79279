/* Reports of a finished run, one column (or object) per mode: the side-by-side table for a
 * terminal, the JSON report, and the JSON-lines trace writer. They read the world only
 * through world.h/metrics.h, as the view does. Writers return false on an I/O error. */
#ifndef IDEMSIM_REPORT_H
#define IDEMSIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "metrics.h"
#include "scenario.h"
#include "trace.h"
#include "world.h"

typedef struct {
    const Scenario *scenario;
    uint64_t seed;
    uint32_t mode_count;
    Mode modes[MODE_COUNT];
    const Metrics *metrics[MODE_COUNT];
    const char *stop_reasons[MODE_COUNT]; /* NULL when the run ended by itself */
} RunReport;

bool report_write_table(FILE *stream, const RunReport *report, bool color);
bool report_write_json(FILE *stream, const RunReport *report);
/* The words the table of this scenario gives a metric of scenario_metric_names
 * ("double-charged money" for double_amount; refused_store_down is "handed back: key store
 * down" where only consumer groups' key stores crash), without a sub-row's indent; NULL for
 * a metric the table has no row for. */
const char *report_metric_label(const Scenario *scenario, const char *metric);
/* text as a JSON string, quotes included (text is the author's, so it is escaped). */
void report_write_json_string(FILE *stream, const char *text);

/* A TraceSink writing one JSON object per line to stream, through a writer thread that
 * overlaps the file's writes with the simulation. NULL when out of memory. */
typedef struct TraceJsonl TraceJsonl;
TraceJsonl *trace_jsonl_open(FILE *stream);
TraceSink trace_jsonl_sink(TraceJsonl *writer);
/* At most max_bytes (0: no budget) of whole lines are written; the line that would pass it
 * makes the sink full, which stops the run writing to it (WORLD_STOP_TRACE). */
#define TRACE_JSONL_DEFAULT_MAX_BYTES (1ull << 30)
void trace_jsonl_limit(TraceJsonl *writer, uint64_t max_bytes);
/* A TraceFull (WorldLimits.trace_full) for a writer's sink. */
uint64_t trace_jsonl_full(void *writer);
/* Writes what is left and stops the thread (the stream stays open); false when a write
 * failed. NULL is a no-op. */
bool trace_jsonl_close(TraceJsonl *writer);

/* ------------------------------------------------------------------ output files */

/* Output files are whole or absent. A regular file, a symlink or a name not taken yet is
 * written to a temporary created exclusively beside it ("PATH.tmp.XXXXXX", random) and
 * renamed over PATH when complete: PATH itself is never opened for writing, so a symlink
 * there is replaced, not written through. A character device or a pipe (/dev/null,
 * /dev/stdout, a FIFO) holds nothing to destroy and is written directly. */
#define OUTPUT_PATH_MAX 4096

/* Every write goes through write(2) here; error keeps the errno of the first that failed. */
typedef struct {
    int descriptor;
    int error;
} OutputWriter;

typedef struct {
    char path[OUTPUT_PATH_MAX];
    char temporary_path[OUTPUT_PATH_MAX + 32]; /* "" when written directly */
    FILE *stream;
    OutputWriter writer;
    int slot; /* in the list of temporaries a signal handler removes */
} OutputFile;

/* Errors read "PATH: cannot write: reason", reason the errno of the call that failed. An
 * OutputFile must stay where it is (not be copied) between open and commit or abandon. */
bool output_file_open(OutputFile *file, const char *path, char *error, size_t error_size);
/* Flushes, syncs, closes and renames; on any failure removes the temporary file. */
bool output_file_commit(OutputFile *file, char *error, size_t error_size);
/* Closes and removes the temporary; a file never opened (zeroed, or stream NULL) is a no-op. */
void output_file_abandon(OutputFile *file);
/* Unlinks the temporary files still open; async-signal-safe, for a signal handler. */
void output_file_remove_temporaries(void);

/* A file a command reads or writes, as the user named it: role is the option ("--json") or
 * what an input is ("scenario"). A NULL path is skipped. A command lists every file it
 * reads and writes in one array of these, checked before anything runs. */
typedef struct {
    const char *role;
    const char *path;
    bool output;
    bool directory; /* an output directory the command fills (view --record's frames) */
} OutputRole;

/* False, with a message naming both, when an output is the same file as another output or
 * as any input: the same device and inode for files that exist (a hard link, a symlink, or
 * "./x" and "x" all count), the same resolved directory and name for files not created
 * yet; or when any other file lies inside an output directory, whose files it could
 * replace or be replaced by. Character devices (/dev/null) may take several outputs. */
bool output_file_check_distinct(const OutputRole *files, uint32_t count, char *error,
                                size_t error_size);

/* Standard output through the same recording writer (it replaces stdout), so a failed
 * write to it (a full disk, a closed pipe with SIGPIPE ignored) is known with its errno.
 * False when descriptor 1 is closed or read-only. */
bool output_stdout_install(void);
/* Flushes standard output; 0 when every write to it succeeded, else the first errno. */
int output_stdout_error(void);

/* A run a budget stopped, in words ("stopped: no progress, ..."), or NULL when it ended by
 * itself; the command line adds the flag that raises the budget (cli_stop.c). */
const char *report_stop_text(WorldStop stop, char *buffer, size_t size);

#endif
