/* Reading a shard CSV back for `idemsim merge`: the header must describe the same sweep as
 * the first shard's, every row must belong to the grid and to its shard, and every run of
 * the shard must be complete. Errors name the line. */
#include "sweep_report.h"
#include "sweep_report_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
            /* Only names a sweep can write: a crafted one ("a,b") would shift the columns
             * of the merged CSV. */
            if (shard->metric_count == SWEEP_METRICS_MAX || !scenario_metric_known(name))
                return reader_error(reader, "unknown metric '%.60s'", name);
            snprintf(shard->metrics[shard->metric_count++], NAME_LEN_MAX, "%s", name);
        }
        uint32_t count = modes ? shard->mode_count : shard->metric_count;
        for (uint32_t i = 0; i + 1 < count; i++) {
            bool repeated = modes ? shard->modes[i] == shard->modes[count - 1]
                                  : strcmp(shard->metrics[i], shard->metrics[count - 1]) == 0;
            if (repeated)
                return reader_error(reader, "'%.60s' is listed twice", name);
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
        if (!sweep_report_parse_number(value, &seeds) || seeds < 1 || seeds > SWEEP_SEEDS_MAX ||
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
        if (ferror(stream))
            snprintf(reader->error, reader->error_size, "cannot read: %s", strerror(errno));
        else
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
    sweep_report_write_shard_columns(expected, shard);
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
    if (!sweep_report_parse_number(text, &number) || number < 0 || number >= limit ||
        number != floor(number))
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
    sweep_report_point_labels(results, point, labels);
    /* The SWEEP_AXES_MAX bound is already true; it tells gcc -O3 that labels[a] exists. */
    for (uint32_t a = 0; a < results->axis_count && a < SWEEP_AXES_MAX; a++) {
        if (strcmp(labels[a], fields[3 + a]) != 0)
            return reader_error(reader, "value '%.40s' is not the grid's", fields[3 + a]);
    }
    int mode = find_mode(results, fields[3 + results->axis_count]);
    int metric = find_metric(results, fields[4 + results->axis_count]);
    if (mode < 0 || metric < 0 ||
        !sweep_report_parse_number(fields[5 + results->axis_count], &value))
        return reader_error(reader, "bad mode, metric or value%s", "");
    uint32_t run = point * results->seed_count + seed_index;
    if (!sweep_report_run_in_shard(run, shard->shard_index, shard->shard_count))
        return reader_error(reader, "this run does not belong to shard %s", "I/N");
    size_t at = (size_t)run * sweep_report_cells_per_run(results) +
                (size_t)mode * results->metric_count + (size_t)metric;
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
    size_t cells = sweep_report_cells_per_run(results);
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
    size_t cells = (size_t)sweep_report_run_count(results) * sweep_report_cells_per_run(results);
    uint8_t *seen = calloc(cells, 1);
    if (seen == NULL)
        return reader_error(reader, "out of memory%s", "");
    bool ok = true;
    while (ok && read_line(stream, reader)) {
        if (reader->line[0] != '\0')
            ok = read_row(reader->line, results, shard, seen, reader);
    }
    if (ok && ferror(stream))
        ok = reader_error(reader, "cannot read: %s", strerror(errno));
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
