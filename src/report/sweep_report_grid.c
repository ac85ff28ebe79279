/* The sweep's grid: parsing a --vary axis, the value and label of each of its points, how
 * runs are numbered and shared among shards; and the number format every file uses. */
#include "sweep_report.h"
#include "sweep_report_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ numbers */

/* The shortest of %.15g..%.17g that reads back as the same double; "0" for -0. */
void sweep_report_format_number(char *buffer, size_t size, double value)
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

bool sweep_report_parse_number(const char *text, double *value)
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
                ok = sweep_report_parse_number(cursor, &numbers[i]);
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

/* The grid coordinates of a point, as labels. */
void sweep_report_point_labels(const SweepResults *results, uint32_t point,
                               char labels[SWEEP_AXES_MAX][SWEEP_LABEL_LEN_MAX])
{
    uint32_t inner = results->axis_count == 2 ? results->axes[1].count : 1;
    sweep_report_axis_label(&results->axes[0], point / inner, labels[0], SWEEP_LABEL_LEN_MAX);
    if (results->axis_count == 2)
        sweep_report_axis_label(&results->axes[1], point % inner, labels[1], SWEEP_LABEL_LEN_MAX);
}
