/* The per-run values of a sweep and the statistics over seeds: mean, sample standard
 * deviation and the Student-t 95% confidence interval, always summed in seed order so
 * that a merged sweep computes the same bits as an unsharded one. */
#include "sweep_report.h"
#include "sweep_report_internal.h"

#include <math.h>
#include <stdlib.h>

size_t sweep_report_cells_per_run(const SweepResults *results)
{
    return (size_t)results->mode_count * results->metric_count;
}

bool sweep_report_allocate(SweepResults *results)
{
    uint64_t points = 1;
    for (uint32_t a = 0; a < results->axis_count; a++)
        points *= results->axes[a].count;
    uint64_t runs = points * results->seed_count;
    if (points > SWEEP_POINTS_MAX || runs == 0 || runs > SWEEP_RUNS_MAX)
        return false;
    results->values =
        calloc((size_t)runs * sweep_report_cells_per_run(results), sizeof *results->values);
    results->seeds = calloc((size_t)runs, sizeof *results->seeds);
    results->present = calloc((size_t)runs, sizeof *results->present);
    if (results->values == NULL || results->seeds == NULL || results->present == NULL) {
        sweep_report_release(results);
        return false;
    }
    return true;
}

void sweep_report_release(SweepResults *results)
{
    free(results->values);
    free(results->seeds);
    free(results->present);
    results->values = NULL;
    results->seeds = NULL;
    results->present = NULL;
}

double *sweep_report_run_values(SweepResults *results, uint32_t run)
{
    return results->values + (size_t)run * sweep_report_cells_per_run(results);
}

double sweep_report_cell(const SweepResults *results, uint32_t run, uint32_t mode, uint32_t metric)
{
    return results->values[(size_t)run * sweep_report_cells_per_run(results) +
                           (size_t)mode * results->metric_count + metric];
}

double sweep_report_t975(uint32_t df)
{
    /* Exact to 17 digits for small df (mpmath); beyond, the Cornish–Fisher expansion in 1/df
     * (Abramowitz & Stegun 26.7.5), within 1.3e-8 relative from df = 31 on. */
    static const double table[31] = {
        0,
        12.706204736174705,
        4.3026527297494639,
        3.1824463052837096,
        2.7764451051977944,
        2.5705818356363155,
        2.44691185114497,
        2.3646242515927853,
        2.3060041352041667,
        2.2621571627982055,
        2.2281388519862747,
        2.2009851600916399,
        2.1788128296672289,
        2.1603686564627925,
        2.1447866879178038,
        2.1314495455597757,
        2.1199052992212547,
        2.1098155778333171,
        2.1009220402410385,
        2.0930240544083098,
        2.0859634472658648,
        2.0796138447276804,
        2.0738730679040262,
        2.0686576104190487,
        2.0638985616280258,
        2.0595385527532977,
        2.0555294386428732,
        2.0518305164802856,
        2.0484071417952452,
        2.0452296421327043,
        2.0422724563012383,
    };
    if (df <= 30)
        return table[df];
    const double z = 1.9599639845400543, n = (double)df;
    double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
    double g1 = (z3 + z) / 4.0;
    double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96.0;
    double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384.0;
    double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160.0;
    return z + g1 / n + g2 / (n * n) + g3 / (n * n * n) + g4 / (n * n * n * n);
}

SweepSummary sweep_report_summarize(const SweepResults *results, uint32_t point, uint32_t mode,
                                    uint32_t metric)
{
    SweepSummary summary = {.count = results->seed_count};
    uint32_t first_run = point * results->seed_count;
    double sum = 0;
    for (uint32_t k = 0; k < results->seed_count; k++) {
        double x = sweep_report_cell(results, first_run + k, mode, metric);
        sum += x;
        if (k == 0 || x < summary.min)
            summary.min = x;
        if (k == 0 || x > summary.max)
            summary.max = x;
    }
    summary.mean = sum / summary.count;
    if (summary.count < 2)
        return summary;
    double squares = 0; /* two passes: no cancellation when the spread is tiny */
    for (uint32_t k = 0; k < results->seed_count; k++) {
        double d = sweep_report_cell(results, first_run + k, mode, metric) - summary.mean;
        squares += d * d;
    }
    summary.sd = sqrt(squares / (summary.count - 1));
    summary.ci95 = sweep_report_t975(summary.count - 1) * summary.sd / sqrt(summary.count);
    return summary;
}
