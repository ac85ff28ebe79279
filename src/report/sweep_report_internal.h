/* Helpers the files of the sweep report share (sweep_report_grid.c, _stats.c, _csv.c,
 * _shard_reader.c, _chart.c); not for callers outside src/report. */
#ifndef IDEMSIM_SWEEP_REPORT_INTERNAL_H
#define IDEMSIM_SWEEP_REPORT_INTERNAL_H

#include <stddef.h>

#include "sweep_report.h"

/* The shortest of %.15g..%.17g that reads back as the same double; "0" for -0. */
void sweep_report_format_number(char *buffer, size_t size, double value);
/* A whole finite number, nothing before or after it. */
bool sweep_report_parse_number(const char *text, double *value);

/* The grid coordinates of a point, as labels. */
void sweep_report_point_labels(const SweepResults *results, uint32_t point,
                               char labels[SWEEP_AXES_MAX][SWEEP_LABEL_LEN_MAX]);

size_t sweep_report_cells_per_run(const SweepResults *results);
double sweep_report_cell(const SweepResults *results, uint32_t run, uint32_t mode, uint32_t metric);

/* The column line of a shard CSV, which the writer prints and the reader expects. */
void sweep_report_write_shard_columns(FILE *stream, const SweepResults *results);

#endif
