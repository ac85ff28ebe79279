/* idemsim sweep (a grid of one or two scenario fields x K seeds, on worker threads, or one
 * shard of it) and idemsim merge (shard CSVs back into the single-run outputs). Both end in
 * the writers of sweep_report.h, so a merge is byte-identical to an unsharded sweep. */
#ifndef IDEMSIM_CLI_SWEEP_H
#define IDEMSIM_CLI_SWEEP_H

#include <stdbool.h>

#include "sweep_report.h"

int command_sweep(int argc, char **argv);
int command_merge(int argc, char **argv);

extern const char *const sweep_usage;
extern const char *const merge_usage;

/* Writes the CSV (the summary, or with shard the per-run shard format) to csv_path, or to
 * standard output when it is NULL; then the SVG when svg_path is set. Files are whole or
 * absent. False after printing the error. */
bool cli_sweep_write_outputs(const SweepResults *results, bool shard, const char *csv_path,
                             const char *svg_path);

#endif
