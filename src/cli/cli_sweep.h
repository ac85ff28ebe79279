/* idemsim sweep (a grid of one or two scenario fields x K seeds, on worker threads, or one
 * shard of it) and idemsim merge (shard CSVs back into the single-run outputs). Both end in
 * the writers of sweep_report.h, so a merge is byte-identical to an unsharded sweep. */
#ifndef IDEMSIM_CLI_SWEEP_H
#define IDEMSIM_CLI_SWEEP_H

#include <stdbool.h>

#include "report.h"
#include "sweep_report.h"

int command_sweep(int argc, char **argv);
int command_merge(int argc, char **argv);

extern const char *const sweep_usage;
extern const char *const merge_usage;

/* The CSV (the summary, or with shard the per-run shard format; standard output when its
 * path is NULL) and the SVG chart, opened before the work and written after it. */
typedef struct {
    OutputFile csv; /* stream NULL: standard output */
    OutputFile svg; /* stream NULL: no chart */
} SweepOutputs;

/* Refuses outputs that are one file, or one of the inputs (the scenario, the shards);
 * then opens them. False after printing the error. outputs must not move until written
 * or abandoned. */
bool cli_sweep_open_outputs(SweepOutputs *outputs, const char *csv_path, const char *svg_path,
                            const OutputRole *inputs, uint32_t input_count);
/* Writes and commits both; whole or absent. False after printing the error. */
bool cli_sweep_write_outputs(SweepOutputs *outputs, const SweepResults *results, bool shard);
void cli_sweep_abandon_outputs(SweepOutputs *outputs);

#endif
