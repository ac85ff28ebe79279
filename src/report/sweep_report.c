/* Sweep results: the grid, per-run values, statistics over seeds, and the three file
 * formats (summary CSV, shard CSV, SVG chart). Every number that reaches a file is printed
 * in the shortest form that reads back to the same double, so a shard read back by
 * `idemsim merge` yields exactly the values the sweep computed, and the summary statistics
 * (always summed in seed order) come out byte-identical. */
#include "sweep_report.h"
#include "xml_text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ numbers */

/* The shortest of %.15g..%.17g that reads back as the same double; "0" for -0. */
static void format_number(char *buffer, size_t size, double value)
{
    if (value == 0) {
        snprintf(buffer, size, "0");
        return;
    }
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buffer, size, "%.*g", precision, value);
        if (strtod(buffer, NULL) == value)
            return;
    }
}

static bool parse_number(const char *text, double *value)
{
    char *end = NULL;
    errno = 0;
    *value = strtod(text, &end);
    return end != text && *end == '\0' && errno == 0 && isfinite(*value);
}

/* ------------------------------------------------------------------ the grid */

bool sweep_report_parse_axis(const char *text, SweepAxis *axis, char *error, size_t error_size)
{
    memset(axis, 0, sizeof *axis);
    const char *equals = strchr(text, '=');
    char range[128];
    double numbers[3];
    size_t path_length = equals ? (size_t)(equals - text) : 0;
    bool ok = equals != NULL && path_length > 0 && path_length < sizeof axis->path &&
              strlen(equals + 1) < sizeof range;
    if (ok) {
        memcpy(axis->path, text, path_length);
        snprintf(range, sizeof range, "%s", equals + 1);
        char *cursor = range;
        for (int i = 0; i < 3 && ok; i++) {
            char *colon = strchr(cursor, ':');
            if ((colon == NULL) != (i == 2))
                ok = false;
            else {
                if (colon != NULL)
                    *colon = '\0';
                ok = parse_number(cursor, &numbers[i]);
                cursor = colon + 1;
            }
        }
    }
    if (!ok) {
        snprintf(error, error_size, "--vary expects PATH=FROM:TO:STEP, got '%.150s'", text);
        return false;
    }
    axis->from = numbers[0];
    axis->to = numbers[1];
    axis->step = numbers[2];
    if (!(axis->step > 0)) {
        snprintf(error, error_size, "--vary %.150s: STEP must be > 0", text);
        return false;
    }
    if (axis->from > axis->to) {
        snprintf(error, error_size, "--vary %.150s: FROM must be <= TO", text);
        return false;
    }
    /* The slack lets 0:0.3:0.1 end at 0.3 although (0.3 - 0) / 0.1 is 2.9999999999999996. */
    double steps = floor((axis->to - axis->from) / axis->step + 1e-9);
    if (steps + 1 > SWEEP_AXIS_VALUES_MAX) {
        snprintf(error, error_size, "--vary %.150s: more than %d values", text,
                 SWEEP_AXIS_VALUES_MAX);
        return false;
    }
    axis->count = (uint32_t)steps + 1;
    return true;
}

void sweep_report_axis_label(const SweepAxis *axis, uint32_t index, char *buffer, size_t size)
{
    /* from + index * step, not a running sum: no drift; %.15g hides the last-bit noise. */
    double value = axis->from + (double)index * axis->step;
    snprintf(buffer, size, "%.15g", value == 0 ? 0.0 : value);
}

double sweep_report_axis_value(const SweepAxis *axis, uint32_t index)
{
    char label[SWEEP_LABEL_LEN_MAX];
    sweep_report_axis_label(axis, index, label, sizeof label);
    return strtod(label, NULL); /* exactly what --set gave the scenario */
}

uint32_t sweep_report_point_count(const SweepResults *results)
{
    uint32_t points = 1;
    for (uint32_t a = 0; a < results->axis_count; a++)
        points *= results->axes[a].count;
    return points;
}

uint32_t sweep_report_run_count(const SweepResults *results)
{
    return sweep_report_point_count(results) * results->seed_count;
}

bool sweep_report_run_in_shard(uint32_t run, uint32_t shard_index, uint32_t shard_count)
{
    return run % shard_count == shard_index - 1;
}

/* ------------------------------------------------------------------ results */

static size_t cells_per_run(const SweepResults *results)
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
    results->values = calloc((size_t)runs * cells_per_run(results), sizeof *results->values);
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
    return results->values + (size_t)run * cells_per_run(results);
}

static double cell(const SweepResults *results, uint32_t run, uint32_t mode, uint32_t metric)
{
    return results->values[(size_t)run * cells_per_run(results) +
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
        double x = cell(results, first_run + k, mode, metric);
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
        double d = cell(results, first_run + k, mode, metric) - summary.mean;
        squares += d * d;
    }
    summary.sd = sqrt(squares / (summary.count - 1));
    summary.ci95 = sweep_report_t975(summary.count - 1) * summary.sd / sqrt(summary.count);
    return summary;
}

/* ------------------------------------------------------------------ CSV writers */

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

/* The grid coordinates of a point, as labels. */
static void point_labels(const SweepResults *results, uint32_t point,
                         char labels[SWEEP_AXES_MAX][SWEEP_LABEL_LEN_MAX])
{
    uint32_t inner = results->axis_count == 2 ? results->axes[1].count : 1;
    sweep_report_axis_label(&results->axes[0], point / inner, labels[0], SWEEP_LABEL_LEN_MAX);
    if (results->axis_count == 2)
        sweep_report_axis_label(&results->axes[1], point % inner, labels[1], SWEEP_LABEL_LEN_MAX);
}

static void write_summary_row(FILE *stream, const SweepResults *results, uint32_t point,
                              uint32_t mode, uint32_t metric)
{
    char labels[SWEEP_AXES_MAX][SWEEP_LABEL_LEN_MAX];
    point_labels(results, point, labels);
    SweepSummary summary = sweep_report_summarize(results, point, mode, metric);
    char mean[40], sd[40] = "", ci95[40] = "", min[40], max[40];
    format_number(mean, sizeof mean, summary.mean);
    format_number(min, sizeof min, summary.min);
    format_number(max, sizeof max, summary.max);
    if (summary.count > 1) { /* one seed: no spread to estimate; empty, not a false 0 */
        format_number(sd, sizeof sd, summary.sd);
        format_number(ci95, sizeof ci95, summary.ci95);
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
static void write_shard_columns(FILE *stream, const SweepResults *results)
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
        format_number(from, sizeof from, axis->from);
        format_number(to, sizeof to, axis->to);
        format_number(step, sizeof step, axis->step);
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
    write_shard_columns(stream, results);
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
        point_labels(results, point, labels);
        for (uint32_t m = 0; m < results->mode_count; m++) {
            for (uint32_t j = 0; j < results->metric_count; j++) {
                char value[40];
                format_number(value, sizeof value, cell(results, run, m, j));
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

/* ------------------------------------------------------------------ reading shards */

typedef struct {
    char *line;
    size_t capacity;
    uint64_t number;
    char *error;
    size_t error_size;
} Reader;

static bool reader_error(Reader *reader, const char *format, const char *argument)
{
    char message[256];
    snprintf(message, sizeof message, format, argument);
    snprintf(reader->error, reader->error_size, "line %llu: %s", (unsigned long long)reader->number,
             message);
    return false;
}

/* The next line without its line break; false at the end of the file. */
static bool read_line(FILE *stream, Reader *reader)
{
    ssize_t length = getline(&reader->line, &reader->capacity, stream);
    if (length < 0)
        return false;
    reader->number++;
    while (length > 0 && (reader->line[length - 1] == '\n' || reader->line[length - 1] == '\r'))
        reader->line[--length] = '\0';
    return true;
}

/* Splits an RFC 4180 line in place; returns the field count, or -1 past max fields. */
static int split_fields(char *line, char **fields, int max)
{
    int count = 0;
    char *read = line, *write = line;
    for (;;) {
        if (count == max)
            return -1;
        fields[count++] = write;
        bool quoted = *read == '"';
        read += quoted;
        while (*read != '\0') {
            if (quoted && *read == '"' && read[1] == '"') {
                *write++ = '"';
                read += 2;
            } else if (quoted && *read == '"') {
                quoted = false;
                read++;
            } else if (!quoted && *read == ',') {
                break;
            } else {
                *write++ = *read++;
            }
        }
        bool more = *read == ',';
        *write++ = '\0';
        if (!more)
            return count;
        read++;
    }
}

static bool parse_names(char *list, SweepResults *shard, bool modes, Reader *reader)
{
    char *state = NULL;
    for (char *name = strtok_r(list, " ", &state); name != NULL;
         name = strtok_r(NULL, " ", &state)) {
        if (modes) {
            if (shard->mode_count == MODE_COUNT ||
                !mode_from_name(name, &shard->modes[shard->mode_count++]))
                return reader_error(reader, "unknown mode '%.60s'", name);
        } else {
            if (shard->metric_count == SWEEP_METRICS_MAX || strlen(name) >= NAME_LEN_MAX)
                return reader_error(reader, "bad metric '%.60s'", name);
            snprintf(shard->metrics[shard->metric_count++], NAME_LEN_MAX, "%s", name);
        }
    }
    return true;
}

/* One "# key: value" line of the header into shard. */
static bool parse_header_line(char *line, SweepResults *shard, Reader *reader)
{
    char *colon = strstr(line, ": ");
    if (strncmp(line, "# ", 2) != 0 || colon == NULL)
        return reader_error(reader, "expected '# key: value', got '%.60s'", line);
    *colon = '\0';
    const char *key = line + 2;
    char *value = colon + 2;
    char error[160];
    if (strcmp(key, "scenario") == 0) {
        snprintf(shard->scenario, sizeof shard->scenario, "%s", value);
    } else if (strcmp(key, "title") == 0) {
        snprintf(shard->title, sizeof shard->title, "%s", value);
    } else if (strcmp(key, "vary") == 0) {
        if (shard->axis_count == SWEEP_AXES_MAX)
            return reader_error(reader, "more than two 'vary' lines%s", "");
        if (!sweep_report_parse_axis(value, &shard->axes[shard->axis_count++], error, sizeof error))
            return reader_error(reader, "%s", error);
    } else if (strcmp(key, "seeds") == 0) {
        double seeds;
        if (!parse_number(value, &seeds) || seeds < 1 || seeds > SWEEP_SEEDS_MAX ||
            seeds != floor(seeds))
            return reader_error(reader, "bad seed count '%.60s'", value);
        shard->seed_count = (uint32_t)seeds;
    } else if (strcmp(key, "modes") == 0 || strcmp(key, "metrics") == 0) {
        return parse_names(value, shard, strcmp(key, "modes") == 0, reader);
    } else if (strcmp(key, "set") == 0) {
        if (shard->override_count == SWEEP_OVERRIDES_MAX)
            return reader_error(reader, "too many 'set' lines%s", "");
        snprintf(shard->overrides[shard->override_count++], SWEEP_OVERRIDE_LEN_MAX, "%s", value);
    } else {
        return reader_error(reader, "unknown header key '%.60s'", key);
    }
    return true;
}

/* The grid and everything the outputs show must agree; the shard numbering may differ. */
static bool same_sweep(const SweepResults *a, const SweepResults *b)
{
    bool same = strcmp(a->scenario, b->scenario) == 0 && strcmp(a->title, b->title) == 0 &&
                a->axis_count == b->axis_count && a->seed_count == b->seed_count &&
                a->mode_count == b->mode_count && a->metric_count == b->metric_count &&
                a->override_count == b->override_count;
    for (uint32_t i = 0; same && i < a->axis_count; i++)
        same = strcmp(a->axes[i].path, b->axes[i].path) == 0 &&
               a->axes[i].from == b->axes[i].from && a->axes[i].to == b->axes[i].to &&
               a->axes[i].step == b->axes[i].step;
    for (uint32_t i = 0; same && i < a->mode_count; i++)
        same = a->modes[i] == b->modes[i];
    for (uint32_t i = 0; same && i < a->metric_count; i++)
        same = strcmp(a->metrics[i], b->metrics[i]) == 0;
    for (uint32_t i = 0; same && i < a->override_count; i++)
        same = strcmp(a->overrides[i], b->overrides[i]) == 0;
    return same;
}

/* Reads the "# ..." lines and the column line into shard (values not allocated). */
static bool read_shard_header(FILE *stream, SweepResults *shard, Reader *reader)
{
    unsigned index = 0, count = 0;
    char extra;
    if (!read_line(stream, reader)) {
        snprintf(reader->error, reader->error_size, "empty file, not an idemsim sweep shard");
        return false;
    }
    if (sscanf(reader->line, "# idemsim sweep shard %u/%u%c", &index, &count, &extra) != 2 ||
        count == 0 || index == 0 || index > count)
        return reader_error(reader,
                            "not an idemsim sweep shard (expected '# idemsim sweep "
                            "shard I/N')%s",
                            "");
    shard->shard_index = index;
    shard->shard_count = count;
    bool have_columns = false;
    while (!have_columns && read_line(stream, reader)) {
        have_columns = reader->line[0] != '#';
        if (!have_columns && !parse_header_line(reader->line, shard, reader))
            return false;
    }
    if (!have_columns || shard->axis_count == 0 || shard->seed_count == 0 ||
        shard->mode_count == 0 || shard->metric_count == 0)
        return reader_error(reader, "incomplete shard header%s", "");
    char *columns = NULL;
    size_t size = 0;
    FILE *expected = open_memstream(&columns, &size);
    if (expected == NULL)
        return reader_error(reader, "out of memory%s", "");
    write_shard_columns(expected, shard);
    fclose(expected);
    columns[size - 1] = '\0'; /* the line break */
    bool ok = strcmp(columns, reader->line) == 0;
    if (!ok)
        reader_error(reader, "expected the column line '%.200s'", columns);
    free(columns);
    return ok;
}

static int find_mode(const SweepResults *results, const char *name)
{
    for (uint32_t m = 0; m < results->mode_count; m++) {
        if (strcmp(mode_name(results->modes[m]), name) == 0)
            return (int)m;
    }
    return -1;
}

static int find_metric(const SweepResults *results, const char *name)
{
    for (uint32_t j = 0; j < results->metric_count; j++) {
        if (strcmp(results->metrics[j], name) == 0)
            return (int)j;
    }
    return -1;
}

static bool parse_index(const char *text, uint32_t limit, uint32_t *value)
{
    double number;
    if (!parse_number(text, &number) || number < 0 || number >= limit || number != floor(number))
        return false;
    *value = (uint32_t)number;
    return true;
}

/* One data row: its cell is stored and marked in seen. */
static bool read_row(char *line, SweepResults *results, const SweepResults *shard, uint8_t *seen,
                     Reader *reader)
{
    char *fields[8];
    int expected = 6 + (int)results->axis_count;
    if (split_fields(line, fields, 8) != expected)
        return reader_error(reader, "expected %s fields", expected == 7 ? "7" : "8");
    uint32_t point, seed_index;
    double value;
    char *end = NULL;
    errno = 0;
    unsigned long long seed = strtoull(fields[2], &end, 10); /* seeds may pass 2^53 */
    if (!parse_index(fields[0], sweep_report_point_count(results), &point) ||
        !parse_index(fields[1], results->seed_count, &seed_index) || fields[2][0] < '0' ||
        fields[2][0] > '9' || *end != '\0' || errno != 0)
        return reader_error(reader, "bad point, seed index or seed%s", "");
    char labels[SWEEP_AXES_MAX][SWEEP_LABEL_LEN_MAX];
    point_labels(results, point, labels);
    /* The SWEEP_AXES_MAX bound is already true; it tells gcc -O3 that labels[a] exists. */
    for (uint32_t a = 0; a < results->axis_count && a < SWEEP_AXES_MAX; a++) {
        if (strcmp(labels[a], fields[3 + a]) != 0)
            return reader_error(reader, "value '%.40s' is not the grid's", fields[3 + a]);
    }
    int mode = find_mode(results, fields[3 + results->axis_count]);
    int metric = find_metric(results, fields[4 + results->axis_count]);
    if (mode < 0 || metric < 0 || !parse_number(fields[5 + results->axis_count], &value))
        return reader_error(reader, "bad mode, metric or value%s", "");
    uint32_t run = point * results->seed_count + seed_index;
    if (!sweep_report_run_in_shard(run, shard->shard_index, shard->shard_count))
        return reader_error(reader, "this run does not belong to shard %s", "I/N");
    size_t at = (size_t)run * cells_per_run(results) + (size_t)mode * results->metric_count +
                (size_t)metric;
    if (seen[at])
        return reader_error(reader, "repeated row%s", "");
    seen[at] = 1;
    results->values[at] = value;
    results->seeds[run] = seed;
    return true;
}

/* Every run of the shard complete and new: then they count as present. These errors are
 * about the whole file, so they name the run, not a line. */
static bool settle_shard(SweepResults *results, const SweepResults *shard, const uint8_t *seen,
                         Reader *reader)
{
    uint32_t runs = sweep_report_run_count(results);
    size_t cells = cells_per_run(results);
    for (uint32_t run = 0; run < runs; run++) {
        if (!sweep_report_run_in_shard(run, shard->shard_index, shard->shard_count))
            continue;
        bool complete = true;
        for (size_t c = 0; c < cells; c++)
            complete &= seen[(size_t)run * cells + c] != 0;
        if (results->present[run] || !complete) {
            snprintf(reader->error, reader->error_size, "point %u seed index %u %s",
                     run / results->seed_count, run % results->seed_count,
                     results->present[run] ? "was already merged (a shard given twice?)"
                                           : "is missing rows (a truncated shard?)");
            return false;
        }
    }
    for (uint32_t run = 0; run < runs; run++)
        results->present[run] |=
            sweep_report_run_in_shard(run, shard->shard_index, shard->shard_count);
    return true;
}

static bool read_rows(FILE *stream, SweepResults *results, const SweepResults *shard,
                      Reader *reader)
{
    size_t cells = (size_t)sweep_report_run_count(results) * cells_per_run(results);
    uint8_t *seen = calloc(cells, 1);
    if (seen == NULL)
        return reader_error(reader, "out of memory%s", "");
    bool ok = true;
    while (ok && read_line(stream, reader)) {
        if (reader->line[0] != '\0')
            ok = read_row(reader->line, results, shard, seen, reader);
    }
    if (ok && ferror(stream))
        ok = reader_error(reader, "read error%s", "");
    if (ok)
        ok = settle_shard(results, shard, seen, reader);
    free(seen);
    return ok;
}

bool sweep_report_read_shard(FILE *stream, SweepResults *results, char *error, size_t error_size)
{
    Reader reader = {.error = error, .error_size = error_size};
    SweepResults *shard = calloc(1, sizeof *shard);
    bool ok = shard != NULL && read_shard_header(stream, shard, &reader);
    if (shard == NULL)
        snprintf(error, error_size, "out of memory");
    if (ok && results->values == NULL) {
        *results = *shard;
        results->shard_index = results->shard_count = 1;
        if (!sweep_report_allocate(results))
            ok = reader_error(&reader, "grid too large (or out of memory)%s", "");
    } else if (ok && !same_sweep(results, shard)) {
        ok = reader_error(&reader,
                          "the header describes another sweep than the first "
                          "shard's%s",
                          "");
    }
    if (ok)
        ok = read_rows(stream, results, shard, &reader);
    free(reader.line);
    free(shard);
    return ok;
}

/* ------------------------------------------------------------------ SVG chart */

#define SVG_FONT "DejaVu Sans, Helvetica, Arial, sans-serif"
#define SVG_HEADER_HEIGHT 104.0
#define SVG_MARGIN 24.0

typedef struct {
    double x, y, width, height; /* the plotting area, in SVG pixels */
    double x_min, x_max, y_min, y_max;
} Frame;

typedef struct {
    double first, step;
    int count;
} Ticks;

/* Okabe–Ito colours, told apart by colour-blind readers and on a projector; a marker shape
 * per mode too, so a greyscale print still works. */
static const char *const mode_colors[MODE_COUNT] = {"#0072B2", "#D55E00", "#009E73"};

static const char *metric_meaning(const char *metric)
{
    static const char *const meanings[][2] = {
        {"double", "operations charged twice or more"},
        {"lost", "operations never charged"},
        {"phantom", "charged once, client told otherwise"},
        {"ok", "charged once, client told success"},
        {"mismatch", "answered with another request's response"},
        {"double_amount", "money charged twice (minor units)"},
        {"lost_amount", "money never charged (minor units)"},
        {"client_unknown", "operations the client gave up on"},
        {"executions", "handler runs at the server"},
        {"attempts", "requests sent by clients"},
    };
    for (size_t i = 0; i < sizeof meanings / sizeof meanings[0]; i++) {
        if (strcmp(metric, meanings[i][0]) == 0)
            return meanings[i][1];
    }
    return NULL;
}

/* About five ticks at 1, 2 or 5 times a power of ten, inside [low, high]. */
static Ticks nice_ticks(double low, double high)
{
    double span = high - low;
    if (!(span > 0))
        return (Ticks){.first = low, .step = 1, .count = 1};
    double raw = span / 5.0;
    double power = pow(10.0, floor(log10(raw)));
    double step = power;
    if (raw / power > 5)
        step = 10 * power;
    else if (raw / power > 2)
        step = 5 * power;
    else if (raw / power > 1)
        step = 2 * power;
    Ticks ticks = {.first = ceil(low / step - 1e-9) * step, .step = step};
    ticks.count = (int)floor((high - ticks.first) / step + 1e-9) + 1;
    return ticks;
}

/* "0.15", "250", "4000", "20k", "1.5M": as few digits as the tick step needs. */
static void format_tick(char *buffer, size_t size, double value, double step)
{
    const char *suffix = "";
    double scale = 1;
    if (fabs(step) >= 1e6 - 1e-6) {
        scale = 1e6;
        suffix = "M";
    } else if (fabs(step) >= 1e4 - 1e-9) { /* 2000, 4000 read better than 2k, 4k */
        scale = 1e3;
        suffix = "k";
    }
    double scaled_step = step / scale;
    int decimals = scaled_step >= 1 ? 0 : (int)ceil(-log10(scaled_step) - 1e-9);
    double scaled = value / scale;
    if (fabs(scaled) < scaled_step * 1e-6)
        snprintf(buffer, size, "0"); /* not "0.0", "0k" or "-0" */
    else
        snprintf(buffer, size, "%.*f%s", decimals, scaled, suffix);
}

static double to_x(const Frame *frame, double x)
{
    return frame->x + (x - frame->x_min) / (frame->x_max - frame->x_min) * frame->width;
}

static double to_y(const Frame *frame, double y)
{
    double fraction = (y - frame->y_min) / (frame->y_max - frame->y_min);
    return frame->y + frame->height - fraction * frame->height;
}

/* Gridlines, tick labels and the two axis labels of one panel. */
static void write_axes(FILE *stream, const Frame *frame, const char *x_label, const char *y_label)
{
    Ticks y_ticks = nice_ticks(frame->y_min, frame->y_max);
    for (int i = 0; i < y_ticks.count; i++) {
        double value = y_ticks.first + i * y_ticks.step;
        char label[32];
        format_tick(label, sizeof label, value, y_ticks.step);
        double y = to_y(frame, value);
        fprintf(stream,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" text-anchor=\"end\" "
                "fill=\"#444\">%s</text>\n",
                frame->x, y, frame->x + frame->width, y, frame->x - 8, y + 5, label);
    }
    Ticks x_ticks = nice_ticks(frame->x_min, frame->x_max);
    double bottom = frame->y + frame->height;
    for (int i = 0; i < x_ticks.count; i++) {
        double value = x_ticks.first + i * x_ticks.step;
        char label[32];
        format_tick(label, sizeof label, value, x_ticks.step);
        double x = to_x(frame, value);
        fprintf(stream,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" text-anchor=\"middle\" "
                "fill=\"#444\">%s</text>\n",
                x, bottom, x, bottom + 5, x, bottom + 21, label);
    }
    fprintf(stream,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" text-anchor=\"middle\" fill=\"#222\">",
            frame->x, bottom, frame->x + frame->width, bottom, frame->x + frame->width / 2,
            bottom + 42);
    xml_text_write(stream, x_label);
    fprintf(stream,
            "</text>\n<text transform=\"translate(%.1f %.1f) rotate(-90)\" font-size=\"15\" "
            "text-anchor=\"middle\" fill=\"#222\">",
            frame->x - 62, frame->y + frame->height / 2);
    xml_text_write(stream, y_label);
    fputs("</text>\n", stream);
}

/* A marker of radius r (about half its width). */
static void write_marker(FILE *stream, uint32_t shape, double x, double y, double r,
                         const char *color)
{
    switch (shape % MODE_COUNT) {
    case 0:
        fprintf(stream, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", x, y, r,
                color);
        break;
    case 1:
        fprintf(stream,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                x - 0.9 * r, y - 0.9 * r, 1.8 * r, 1.8 * r, color);
        break;
    default:
        fprintf(stream, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>\n", x,
                y - 1.2 * r, x + 1.2 * r, y + 0.9 * r, x - 1.2 * r, y + 0.9 * r, color);
        break;
    }
}

/* The point of the grid with x index i and second-axis index column. */
static uint32_t grid_point(const SweepResults *results, uint32_t i, uint32_t column)
{
    return results->axis_count == 2 ? i * results->axes[1].count + column : i;
}

/* One line per mode with error bars; modes are nudged apart so their bars don't overlap. */
static void write_series(FILE *stream, const SweepResults *results, const Frame *frame,
                         uint32_t metric, uint32_t column)
{
    const SweepAxis *axis = &results->axes[0];
    /* Markers and the nudge shrink as the points crowd, so 50 points stay legible. */
    double spacing = frame->width / (axis->count + 1.0);
    double radius = fmax(2.5, fmin(5.5, spacing / 3.5));
    for (uint32_t m = 0; m < results->mode_count; m++) {
        const char *color = mode_colors[results->modes[m]];
        double nudge = ((double)m - (results->mode_count - 1) / 2.0) * fmin(5.0, spacing / 8);
        fprintf(stream,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" "
                "stroke-linejoin=\"round\" points=\"",
                color);
        for (uint32_t i = 0; i < axis->count; i++) {
            SweepSummary s =
                sweep_report_summarize(results, grid_point(results, i, column), m, metric);
            fprintf(stream, "%s%.1f,%.1f", i ? " " : "",
                    to_x(frame, sweep_report_axis_value(axis, i)) + nudge, to_y(frame, s.mean));
        }
        fputs("\"/>\n", stream);
        for (uint32_t i = 0; i < axis->count; i++) {
            SweepSummary s =
                sweep_report_summarize(results, grid_point(results, i, column), m, metric);
            double x = to_x(frame, sweep_report_axis_value(axis, i)) + nudge;
            if (s.ci95 > 0) {
                double cap = radius * 0.75;
                double top = to_y(frame, fmin(s.mean + s.ci95, frame->y_max));
                double low = to_y(frame, fmax(s.mean - s.ci95, frame->y_min));
                fprintf(stream,
                        "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" "
                        "stroke=\"%s\" stroke-width=\"1.6\"/>\n",
                        x, top, low, x - cap, top, x + cap, x - cap, low, x + cap, color);
            }
            write_marker(stream, results->modes[m], x, to_y(frame, s.mean), radius, color);
        }
    }
}

/* The y range of a metric across every panel of its row, bars included, with 0 in it. A
 * metric that is never negative (a count) starts at 0: its bars are clipped there rather
 * than suggest negative counts. */
static void metric_range(const SweepResults *results, uint32_t metric, double *low, double *high)
{
    double lowest = 0, bar_low = 0;
    *high = 0;
    uint32_t points = sweep_report_point_count(results);
    for (uint32_t p = 0; p < points; p++) {
        for (uint32_t m = 0; m < results->mode_count; m++) {
            SweepSummary s = sweep_report_summarize(results, p, m, metric);
            lowest = fmin(lowest, s.min);
            bar_low = fmin(bar_low, s.mean - s.ci95);
            *high = fmax(*high, s.mean + s.ci95);
        }
    }
    *low = lowest < 0 ? bar_low : 0;
    if (*high - *low <= 0)
        *high = *low + 1;
    Ticks ticks = nice_ticks(*low, *high);
    /* End the axis on a tick above the data, so the top gridline frames it. */
    double top = ticks.first + (ticks.count - 1) * ticks.step;
    if (top < *high - 1e-12 * fabs(*high))
        top += ticks.step;
    *high = top;
    if (*low < 0)
        *low = floor(*low / ticks.step - 1e-9) * ticks.step;
}

/* Cuts text to at most fit characters, ending in "...". */
static void cut_to_fit(char *text, size_t size, double fit)
{
    size_t limit = fit < 4 ? 4 : (size_t)fit;
    if (strlen(text) > limit && limit < size)
        snprintf(text + limit - 3, size - (limit - 3), "...");
}

static void write_panel(FILE *stream, const SweepResults *results, const Frame *frame,
                        uint32_t metric, uint32_t column)
{
    char title[SWEEP_PATH_LEN_MAX + 120];
    const char *meaning = metric_meaning(results->metrics[metric]);
    if (results->axis_count == 2) {
        char label[SWEEP_LABEL_LEN_MAX];
        sweep_report_axis_label(&results->axes[1], column, label, sizeof label);
        snprintf(title, sizeof title, "%.127s = %.31s", results->axes[1].path, label);
    } else if (meaning != NULL) {
        snprintf(title, sizeof title, "%s: %s", results->metrics[metric], meaning);
    } else {
        snprintf(title, sizeof title, "%s", results->metrics[metric]);
    }
    cut_to_fit(title, sizeof title, (frame->width + 60) / 10.8);
    fprintf(stream,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"18\" font-weight=\"bold\" "
            "fill=\"#222\">",
            frame->x, frame->y - 14);
    xml_text_write(stream, title);
    fputs("</text>\n", stream);
    write_axes(stream, frame, results->axes[0].path, results->metrics[metric]);
    write_series(stream, results, frame, metric, column);
}

static double legend_width(const SweepResults *results)
{
    double width = 0;
    for (uint32_t m = 0; m < results->mode_count; m++)
        width += 56 + 9.5 * (double)strlen(mode_name(results->modes[m]));
    return width;
}

/* Right-aligned at right, on the statistics line. */
static void write_legend(FILE *stream, const SweepResults *results, double right, double y)
{
    double x = right - legend_width(results);
    for (uint32_t m = 0; m < results->mode_count; m++) {
        const char *name = mode_name(results->modes[m]);
        const char *color = mode_colors[results->modes[m]];
        fprintf(stream,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2.5\"/>\n",
                x, y - 6, x + 28, y - 6, color);
        write_marker(stream, results->modes[m], x + 14, y - 6, 5.5, color);
        fprintf(stream, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"17\" fill=\"#222\">%s</text>\n",
                x + 36, y, name);
        x += 56 + 9.5 * (double)strlen(name);
    }
}

/* Title; then the statistics line with the fixed overrides, and the legend beside it. */
static void write_header(FILE *stream, const SweepResults *results, double width)
{
    char title[NAME_LEN_MAX + TITLE_LEN_MAX + 8];
    snprintf(title, sizeof title, "%s%s%s", results->scenario, results->title[0] ? ": " : "",
             results->title);
    cut_to_fit(title, sizeof title, (width - 2 * SVG_MARGIN) / 14.5);
    fprintf(stream,
            "<text x=\"%.1f\" y=\"40\" font-size=\"24\" font-weight=\"bold\" "
            "fill=\"#111\">",
            SVG_MARGIN);
    xml_text_write(stream, title);
    fputs("</text>\n", stream);
    char line[SWEEP_OVERRIDE_LEN_MAX * 4];
    if (results->seed_count > 1)
        snprintf(line, sizeof line, "mean of %u seeds per point; bars: 95%% confidence interval",
                 results->seed_count);
    else
        snprintf(line, sizeof line, "one seed per point (no confidence interval)");
    for (uint32_t i = 0; i < results->override_count; i++) {
        size_t used = strlen(line);
        snprintf(line + used, sizeof line - used, "%s%s", i == 0 ? "; with " : ", ",
                 results->overrides[i]);
    }
    cut_to_fit(line, sizeof line, (width - 2 * SVG_MARGIN - legend_width(results) - 24) / 8.6);
    fprintf(stream, "<text x=\"%.1f\" y=\"76\" font-size=\"16\" fill=\"#444\">", SVG_MARGIN);
    xml_text_write(stream, line);
    fputs("</text>\n", stream);
    write_legend(stream, results, width - SVG_MARGIN, 76);
}

bool sweep_report_write_svg(FILE *stream, const SweepResults *results)
{
    /* Small multiples: rows are metrics with a shared y scale, columns the values of the
     * second axis. One axis: the metric panels wrap into two or three columns. */
    uint32_t panels =
        results->metric_count * (results->axis_count == 2 ? results->axes[1].count : 1);
    uint32_t columns = results->axis_count == 2 ? results->axes[1].count
                       : panels == 1            ? 1
                       : panels <= 4            ? 2
                                                : 3;
    uint32_t rows = (panels + columns - 1) / columns;
    double panel_width = columns == 1 ? 1232 : columns == 2 ? 616 : 440;
    double panel_height = rows == 1 ? (columns == 1 ? 592 : 460) : 330;
    double width = panel_width * columns + 2 * SVG_MARGIN;
    double height = SVG_HEADER_HEIGHT + panel_height * rows + SVG_MARGIN;
    fprintf(stream,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height, SVG_FONT);
    write_header(stream, results, width);
    const SweepAxis *axis = &results->axes[0];
    double x_first = sweep_report_axis_value(axis, 0);
    double x_last = sweep_report_axis_value(axis, axis->count - 1);
    double pad = axis->count > 1 ? (x_last - x_first) * 0.04 : fmax(fabs(x_first) * 0.1, 1);
    for (uint32_t panel = 0; panel < panels; panel++) {
        uint32_t metric = results->axis_count == 2 ? panel / columns : panel;
        uint32_t column = results->axis_count == 2 ? panel % columns : 0;
        Frame frame = {
            .x = SVG_MARGIN + (panel % columns) * panel_width + 84,
            .y = SVG_HEADER_HEIGHT + (panel / columns) * panel_height + 40,
            .width = panel_width - 84 - 28,
            .height = panel_height - 40 - 64,
            .x_min = x_first - pad,
            .x_max = x_last + pad,
        };
        metric_range(results, metric, &frame.y_min, &frame.y_max);
        write_panel(stream, results, &frame, metric, column);
    }
    fputs("</svg>\n", stream);
    return !ferror(stream);
}
