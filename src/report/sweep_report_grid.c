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

/* A number as the decimal digits its shortest text shows: mantissa * 10^exponent. */
typedef struct {
    int64_t mantissa;
    int exponent;
} Decimal;

static void to_decimal(double value, Decimal *decimal)
{
    char text[40];
    sweep_report_format_number(text, sizeof text, value); /* at most 17 digits */
    const char *c = text;
    bool negative = *c == '-';
    c += negative;
    decimal->mantissa = 0;
    decimal->exponent = 0;
    bool fraction = false;
    for (; (*c >= '0' && *c <= '9') || *c == '.'; c++) {
        if (*c == '.') {
            fraction = true;
            continue;
        }
        decimal->mantissa = decimal->mantissa * 10 + (*c - '0');
        decimal->exponent -= fraction;
    }
    if (*c == 'e')
        decimal->exponent += atoi(c + 1);
    if (negative)
        decimal->mantissa = -decimal->mantissa;
}

/* mantissa * 10^shift, false on overflow. */
static bool scale(int64_t mantissa, int shift, int64_t *scaled)
{
    for (int i = 0; i < shift; i++) {
        if (__builtin_mul_overflow(mantissa, 10, &mantissa))
            return false;
    }
    *scaled = mantissa;
    return true;
}

/* The grid in decimal: value i is FROM + i * STEP computed exactly on the digits the
 * numbers show, then read as a double once. So 0:0.3:0.1 ends at 0.3 itself (3 * 0.1 is
 * 0.30000000000000004 in binary) and 9007199254740000:9007199254740005:1 gives six
 * distinct seeds. count stays 0 when there would be too many values. False when the
 * digits do not fit 64 bits (then binary_values). */
static bool decimal_values(SweepAxis *axis)
{
    Decimal from, to, step;
    to_decimal(axis->from, &from);
    to_decimal(axis->to, &to);
    to_decimal(axis->step, &step);
    int exponent = from.exponent < to.exponent ? from.exponent : to.exponent;
    exponent = step.exponent < exponent ? step.exponent : exponent;
    int64_t first, last, stride;
    if (!scale(from.mantissa, from.exponent - exponent, &first) ||
        !scale(to.mantissa, to.exponent - exponent, &last) ||
        !scale(step.mantissa, step.exponent - exponent, &stride) || stride <= 0)
        return false;
    int64_t span;
    if (__builtin_sub_overflow(last, first, &span))
        return false;
    if (span / stride + 1 > SWEEP_AXIS_VALUES_MAX)
        return true;
    axis->count = (uint32_t)(span / stride) + 1;
    for (uint32_t i = 0; i < axis->count; i++) {
        char text[48];
        snprintf(text, sizeof text, "%llde%d", (long long)(first + (int64_t)i * stride), exponent);
        axis->values[i] = strtod(text, NULL);
        if (axis->values[i] == 0)
            axis->values[i] = 0.0; /* not -0 */
    }
    return true;
}

/* Numbers whose digits do not fit (1e-300:1e300:1e299): from + i * step in binary. count
 * stays 0 when there would be too many values. */
static void binary_values(SweepAxis *axis)
{
    /* The slack lets a range end on TO despite the last bit of the division. */
    double steps = floor((axis->to - axis->from) / axis->step + 1e-9);
    if (!(steps + 1 <= SWEEP_AXIS_VALUES_MAX))
        return;
    axis->count = (uint32_t)steps + 1;
    for (uint32_t i = 0; i < axis->count; i++)
        axis->values[i] = axis->from + (double)i * axis->step;
}

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
    if (!decimal_values(axis))
        binary_values(axis);
    if (axis->count == 0) {
        snprintf(error, error_size, "--vary %.150s: more than %d values", text,
                 SWEEP_AXIS_VALUES_MAX);
        return false;
    }
    for (uint32_t i = 1; i < axis->count; i++) {
        if (!(axis->values[i] > axis->values[i - 1])) {
            char value[40];
            sweep_report_format_number(value, sizeof value, axis->values[i]);
            snprintf(error, error_size,
                     "--vary %.150s: two values would both be %s (STEP is below the precision "
                     "of a double there)",
                     text, value);
            return false;
        }
    }
    return true;
}

void sweep_report_axis_label(const SweepAxis *axis, uint32_t index, char *buffer, size_t size)
{
    double value = axis->values[index];
    /* A whole number in full ("9007199254740001", a seed), not "9.00719925474e+15". */
    if (value == floor(value) && fabs(value) < 1e17)
        snprintf(buffer, size, "%.0f", value == 0 ? 0.0 : value);
    else
        sweep_report_format_number(buffer, size, value);
}

double sweep_report_axis_value(const SweepAxis *axis, uint32_t index)
{
    return axis->values[index];
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
