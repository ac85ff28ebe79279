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

/* A TraceSink writing one JSON object per line to stream, through a writer thread that
 * overlaps the file's writes with the simulation. NULL when out of memory. */
typedef struct TraceJsonl TraceJsonl;
TraceJsonl *trace_jsonl_open(FILE *stream);
TraceSink trace_jsonl_sink(TraceJsonl *writer);
/* Writes what is left and stops the thread (the stream stays open); false when a write
 * failed. NULL is a no-op. */
bool trace_jsonl_close(TraceJsonl *writer);

/* Output files are whole or absent: written to "PATH.tmp.PID", renamed on success. */
typedef struct {
    char path[4096];
    char temporary_path[4200];
    FILE *stream;
} OutputFile;

bool output_file_open(OutputFile *file, const char *path, char *error, size_t error_size);
/* Flushes, closes and renames; on any failure removes the temporary file. */
bool output_file_commit(OutputFile *file, char *error, size_t error_size);
void output_file_abandon(OutputFile *file);
/* Unlinks the temporary files still open; async-signal-safe, for an interrupt handler. An
 * OutputFile must stay where it is (not be copied) between open and commit. */
void output_file_remove_temporaries(void);

#endif
