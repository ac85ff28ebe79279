/* The sweep's two CSV formats: the summary (one row per point, mode and metric) and the
 * shard (one row per run, with a "# " header describing the whole sweep) that
 * sweep_report_shard_reader.c reads back. */
#include "sweep_report.h"
#include "sweep_report_internal.h"

#include <string.h>

/* RFC 4180: quote a field holding a comma, quote or line break. */
static void write_field(FILE *stream, const char *text)
{
    if (strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, stream);
        return;
    }
    fputc('"', stream);
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"')
            fputc('"', stream);
        fputc(*c, stream);
    }
    fputc('"', stream);
}

static void write_summary_row(FILE *stream, const SweepResults *results, uint32_t point,
                              uint32_t mode, uint32_t metric)
{
    char labels[SWEEP_AXES_MAX][SWEEP_LABEL_LEN_MAX];
    sweep_report_point_labels(results, point, labels);
    SweepSummary summary = sweep_report_summarize(results, point, mode, metric);
    char mean[40], sd[40] = "", ci95[40] = "", min[40], max[40];
    sweep_report_format_number(mean, sizeof mean, summary.mean);
    sweep_report_format_number(min, sizeof min, summary.min);
    sweep_report_format_number(max, sizeof max, summary.max);
    if (summary.count > 1) { /* one seed: no spread to estimate; empty, not a false 0 */
        sweep_report_format_number(sd, sizeof sd, summary.sd);
        sweep_report_format_number(ci95, sizeof ci95, summary.ci95);
    }
    write_field(stream, results->scenario);
    for (uint32_t a = 0; a < results->axis_count; a++)
        fprintf(stream, ",%s", labels[a]);
    fprintf(stream, ",%s,%s,%u,%s,%s,%s,%s,%s\n", mode_name(results->modes[mode]),
            results->metrics[metric], summary.count, mean, sd, ci95, min, max);
}

bool sweep_report_write_csv(FILE *stream, const SweepResults *results)
{
    fputs("scenario", stream);
    for (uint32_t a = 0; a < results->axis_count; a++) {
        fputc(',', stream);
        write_field(stream, results->axes[a].path);
    }
    fputs(",mode,metric,seeds,mean,sd,ci95,min,max\n", stream);
    uint32_t points = sweep_report_point_count(results);
    for (uint32_t p = 0; p < points; p++) {
        for (uint32_t m = 0; m < results->mode_count; m++) {
            for (uint32_t j = 0; j < results->metric_count; j++)
                write_summary_row(stream, results, p, m, j);
        }
    }
    return !ferror(stream);
}

/* The header both the shard writer prints and the reader expects, field by field. */
void sweep_report_write_shard_columns(FILE *stream, const SweepResults *results)
{
    fputs("point,seed_index,seed", stream);
    for (uint32_t a = 0; a < results->axis_count; a++) {
        fputc(',', stream);
        write_field(stream, results->axes[a].path);
    }
    fputs(",mode,metric,value\n", stream);
}

static void write_shard_header(FILE *stream, const SweepResults *results)
{
    fprintf(stream, "# idemsim sweep shard %u/%u\n", results->shard_index, results->shard_count);
    fprintf(stream, "# scenario: %s\n# title: %s\n", results->scenario, results->title);
    for (uint32_t a = 0; a < results->axis_count; a++) {
        const SweepAxis *axis = &results->axes[a];
        char from[40], to[40], step[40];
        sweep_report_format_number(from, sizeof from, axis->from);
        sweep_report_format_number(to, sizeof to, axis->to);
        sweep_report_format_number(step, sizeof step, axis->step);
        fprintf(stream, "# vary: %s=%s:%s:%s\n", axis->path, from, to, step);
    }
    fprintf(stream, "# seeds: %u\n# modes:", results->seed_count);
    for (uint32_t m = 0; m < results->mode_count; m++)
        fprintf(stream, " %s", mode_name(results->modes[m]));
    fputs("\n# metrics:", stream);
    for (uint32_t j = 0; j < results->metric_count; j++)
        fprintf(stream, " %s", results->metrics[j]);
    fputc('\n', stream);
    for (uint32_t i = 0; i < results->override_count; i++)
        fprintf(stream, "# set: %s\n", results->overrides[i]);
    sweep_report_write_shard_columns(stream, results);
}

bool sweep_report_write_shard(FILE *stream, const SweepResults *results)
{
    write_shard_header(stream, results);
    uint32_t runs = sweep_report_run_count(results);
    for (uint32_t run = 0; run < runs; run++) {
        if (!sweep_report_run_in_shard(run, results->shard_index, results->shard_count))
            continue;
        uint32_t point = run / results->seed_count;
        char labels[SWEEP_AXES_MAX][SWEEP_LABEL_LEN_MAX];
        sweep_report_point_labels(results, point, labels);
        for (uint32_t m = 0; m < results->mode_count; m++) {
            for (uint32_t j = 0; j < results->metric_count; j++) {
                char value[40];
                sweep_report_format_number(value, sizeof value,
                                           sweep_report_cell(results, run, m, j));
                fprintf(stream, "%u,%u,%llu", point, run % results->seed_count,
                        (unsigned long long)results->seeds[run]);
                for (uint32_t a = 0; a < results->axis_count; a++)
                    fprintf(stream, ",%s", labels[a]);
                fprintf(stream, ",%s,%s,%s\n", mode_name(results->modes[m]), results->metrics[j],
                        value);
            }
        }
    }
    return !ferror(stream);
}
