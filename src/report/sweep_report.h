/* Results of a parameter sweep: a grid of one or two varied scenario fields, K seeds per grid
 * point, every mode, a few metrics. The caller fills the per-run values (by run index, never by
 * completion order); the writers turn them into the summary CSV, the shard CSV that
 * `idemsim merge` reads back, and an SVG line chart. Invariant: the outputs are a pure
 * function of the filled values and the grid, so 1 or N threads, 1 or N shards agree byte
 * for byte. A run is (point, seed index); run = point * seed_count + seed index.
 * One file per concern: sweep_report_grid.c (axes, run numbering), _stats.c (values and
 * statistics), _csv.c (both CSV formats), _shard_reader.c (merge's reader), _chart.c (SVG). */
#ifndef IDEMSIM_SWEEP_REPORT_H
#define IDEMSIM_SWEEP_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

#define SWEEP_AXES_MAX 2
#define SWEEP_AXIS_VALUES_MAX 1000
#define SWEEP_POINTS_MAX 4096 /* each point holds a loaded Scenario (~40 KB) while it runs */
#define SWEEP_SEEDS_MAX 100000
#define SWEEP_RUNS_MAX 1000000u /* points x seeds; bounds values[] to 384 MB */
#define SWEEP_METRICS_MAX 16
#define SWEEP_OVERRIDES_MAX 64
#define SWEEP_PATH_LEN_MAX 128
#define SWEEP_OVERRIDE_LEN_MAX 256
#define SWEEP_LABEL_LEN_MAX 32

/* One varied field: values from, from + step, ... up to to (inclusive), computed once on
 * the decimal digits of the three numbers, so 0.1 * 3 is 0.3 and neighbouring large
 * integers stay distinct. The values, not a text of them, are what every point uses. */
typedef struct {
    char path[SWEEP_PATH_LEN_MAX]; /* as --set takes it: "network.default.loss" */
    double from;
    double to;
    double step;
    uint32_t count;
    double values[SWEEP_AXIS_VALUES_MAX];
} SweepAxis;

typedef struct {
    char scenario[NAME_LEN_MAX];
    char title[TITLE_LEN_MAX]; /* one line: control characters replaced by spaces */
    uint32_t axis_count;
    SweepAxis axes[SWEEP_AXES_MAX]; /* axes[0] is the x axis; point = i0 * count1 + i1 */
    uint32_t seed_count;
    uint32_t mode_count;
    Mode modes[MODE_COUNT];
    uint32_t metric_count;
    char metrics[SWEEP_METRICS_MAX][NAME_LEN_MAX];
    uint32_t override_count; /* the fixed --set overrides, shown in the chart */
    char overrides[SWEEP_OVERRIDES_MAX][SWEEP_OVERRIDE_LEN_MAX];
    uint32_t shard_index; /* 1-based; shard_count 1 is the whole sweep */
    uint32_t shard_count;
    /* Owned, sized by sweep_report_allocate: */
    double *values;  /* [run][mode][metric] */
    uint64_t *seeds; /* [run]: the seed the run used */
    bool *present;   /* [run]: values filled (by this shard, or merged) */
} SweepResults;

/* Summary over the seeds of one (point, mode, metric). sd and ci95 are 0 with one seed;
 * the CSV leaves them empty then. */
typedef struct {
    uint32_t count;
    double mean;
    double sd;   /* sample standard deviation (n - 1) */
    double ci95; /* half-width: t(0.975, n - 1) * sd / sqrt(n) */
    double min;
    double max;
} SweepSummary;

/* ------------------------------------------------------------------ the grid */

/* Parses "PATH=FROM:TO:STEP". False with a message ("expected PATH=FROM:TO:STEP, got 'x'",
 * "STEP must be > 0", "FROM must be <= TO", two values equal as doubles) in error. */
bool sweep_report_parse_axis(const char *text, SweepAxis *axis, char *error, size_t error_size);
double sweep_report_axis_value(const SweepAxis *axis, uint32_t index);
/* The value as --set, the CSV and the chart print it: the shortest text that reads back
 * as the same double ("0.3", "9007199254740001"), so --set gives each point its exact
 * value and no two points share a label. */
void sweep_report_axis_label(const SweepAxis *axis, uint32_t index, char *buffer, size_t size);
uint32_t sweep_report_point_count(const SweepResults *results);
uint32_t sweep_report_run_count(const SweepResults *results);
/* Whether shard shard_index of shard_count runs this run: round robin over run indices,
 * so neighbouring (similarly costly) points spread over the shards. */
bool sweep_report_run_in_shard(uint32_t run, uint32_t shard_index, uint32_t shard_count);

/* ------------------------------------------------------------------ results */

/* Allocates values/seeds/present for the grid already described in results. False when
 * out of memory. */
bool sweep_report_allocate(SweepResults *results);
void sweep_report_release(SweepResults *results);
double *sweep_report_run_values(SweepResults *results, uint32_t run); /* [mode][metric] */
/* Over the seeds of one point; every run of the point must be present. */
SweepSummary sweep_report_summarize(const SweepResults *results, uint32_t point, uint32_t mode,
                                    uint32_t metric);
/* The 0.975 quantile of Student's t with df degrees of freedom (df >= 1). */
double sweep_report_t975(uint32_t df);

/* ------------------------------------------------------------------ writers */

/* One row per (point, mode, metric), points in grid order; needs every run present. */
bool sweep_report_write_csv(FILE *stream, const SweepResults *results);
/* The grid in "# " header lines, then one row per (run of this shard, mode, metric). */
bool sweep_report_write_shard(FILE *stream, const SweepResults *results);
/* Small multiples: one panel per (metric, value of the second axis), one line per mode. */
bool sweep_report_write_svg(FILE *stream, const SweepResults *results);

/* ------------------------------------------------------------------ reading shards */

/* Reads a shard CSV. With results->values == NULL, takes the grid from the shard's header
 * and allocates; otherwise the header must describe the same sweep. Marks the shard's runs
 * present; a run already present is an error (the same shard given twice). False with
 * "LINE: reason" in error. */
bool sweep_report_read_shard(FILE *stream, SweepResults *results, char *error, size_t error_size);

#endif
