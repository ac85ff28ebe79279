/* Log-linear histogram. Values below 128 are counted exactly in magnitude 0 (bucket =
 * value). A larger value v with highest set bit b (b >= 7) goes to magnitude m = b - 6 and
 * sub-bucket v >> m, which lies in [64, 128): each power-of-two range is cut into 64 buckets
 * of width 2^m, each starting at or above 64 * 2^m, so a bucket is less than 1/64 of its
 * values wide. The quantile reports the middle of the bucket's integer range, so it is off
 * by under half that, below 1/128 of the true value (the first and last ranks report the
 * exact min and max). Sub-buckets below 64 stay empty for m >= 1; using them would halve
 * the memory but complicate the indexing, and 45 KB per histogram is cheap. Only integer bit
 * operations place a value, so placement is exact. */
#include "stats.h"

#include <string.h>

#define EXACT_LIMIT HISTOGRAM_SUB_BUCKETS            /* 128: values below are exact */
#define HALF_SUB_BUCKETS (HISTOGRAM_SUB_BUCKETS / 2) /* 64 */
#define LAST_MAGNITUDE (HISTOGRAM_MAGNITUDES - 1)

/* value > 0; a GCC/Clang builtin, which both of our compilers provide */
static int highest_bit(uint64_t value)
{
    return 63 - __builtin_clzll(value);
}

void histogram_init(Histogram *histogram)
{
    memset(histogram, 0, sizeof(*histogram)); /* min and max read 0 while empty */
}

void histogram_record(Histogram *histogram, uint64_t value)
{
    if (value < EXACT_LIMIT) {
        histogram->counts[0][value]++;
    } else {
        int magnitude = highest_bit(value) - 6;
        uint64_t sub_bucket = value >> magnitude;
        if (magnitude > LAST_MAGNITUDE) { /* beyond 2^50: saturate in the top bucket */
            magnitude = LAST_MAGNITUDE;
            sub_bucket = HISTOGRAM_SUB_BUCKETS - 1;
        }
        histogram->counts[magnitude][sub_bucket]++;
    }
    if (histogram->count == 0 || value < histogram->min)
        histogram->min = value;
    if (value > histogram->max)
        histogram->max = value;
    histogram->count++;
    histogram->sum += (double)value;
}

/* The middle of the integers [lowest, lowest + 2^m - 1] that a bucket holds, rounded down. */
static uint64_t bucket_middle(int magnitude, uint64_t sub_bucket)
{
    if (magnitude == 0)
        return sub_bucket;
    uint64_t lowest = sub_bucket << magnitude;
    return lowest + (((uint64_t)1 << magnitude) - 1) / 2;
}

/* ceil(q * count) without libm, clamped to [1, count]. */
static uint64_t quantile_rank(double q, uint64_t count)
{
    if (!(q > 0.0)) /* also catches NaN */
        return 1;
    if (q >= 1.0)
        return count;
    double exact = q * (double)count;
    uint64_t rank = (uint64_t)exact;
    if ((double)rank < exact)
        rank++;
    if (rank < 1)
        rank = 1;
    return rank < count ? rank : count;
}

uint64_t histogram_quantile(const Histogram *histogram, double q)
{
    if (histogram->count == 0)
        return 0;
    uint64_t rank = quantile_rank(q, histogram->count);
    if (rank == 1) /* the extremes are known exactly: no need to approximate them */
        return histogram->min;
    if (rank == histogram->count)
        return histogram->max;
    uint64_t seen = 0;
    for (int magnitude = 0; magnitude < HISTOGRAM_MAGNITUDES; magnitude++) {
        int first = magnitude == 0 ? 0 : HALF_SUB_BUCKETS;
        for (int sub_bucket = first; sub_bucket < HISTOGRAM_SUB_BUCKETS; sub_bucket++) {
            seen += histogram->counts[magnitude][sub_bucket];
            if (seen < rank)
                continue;
            uint64_t value = bucket_middle(magnitude, (uint64_t)sub_bucket);
            if (value < histogram->min)
                return histogram->min;
            return value > histogram->max ? histogram->max : value;
        }
    }
    return histogram->max; /* unreachable while the counts sum to count */
}

double histogram_mean(const Histogram *histogram)
{
    return histogram->count == 0 ? 0.0 : histogram->sum / (double)histogram->count;
}

/* ------------------------------------------------------------------ time series */

/* The bucket of t_us: the hinted one when t_us falls in it (every sample of a busy stretch
 * does), else a division, which becomes the new hint. A halving resets the hint to bucket 0,
 * which is always right. Two 64-bit divisions per sample cost a few percent of PAY-1. */
static uint64_t bucket_of(uint64_t *hint_start_us, uint32_t *hint_index, uint64_t bucket_us,
                          uint64_t t_us)
{
    if (t_us - *hint_start_us < bucket_us && t_us >= *hint_start_us)
        return *hint_index;
    uint64_t index = t_us / bucket_us;
    *hint_index = (uint32_t)index;
    *hint_start_us = index * bucket_us; /* past the last bucket, a halving resets it at once */
    return index;
}

void time_series_init(TimeSeries *series, uint64_t bucket_us)
{
    memset(series, 0, sizeof *series);
    series->bucket_us = bucket_us > 0 ? bucket_us : 1;
}

static void time_series_halve(TimeSeries *series)
{
    for (uint32_t i = 0; i < TIME_SERIES_BUCKETS / 2; i++) {
        uint64_t left = series->max[2 * i], right = series->max[2 * i + 1];
        series->max[i] = left > right ? left : right;
    }
    memset(&series->max[TIME_SERIES_BUCKETS / 2], 0,
           sizeof series->max[0] * (TIME_SERIES_BUCKETS / 2));
    series->used = (series->used + 1) / 2;
    series->bucket_us *= 2;
    series->hint_start_us = 0;
    series->hint_index = 0;
}

void time_series_coarsen(TimeSeries *series, uint64_t bucket_us)
{
    while (series->bucket_us < bucket_us)
        time_series_halve(series);
}

void time_series_record_slow(TimeSeries *series, uint64_t t_us, uint64_t value)
{
    uint64_t index;
    while ((index = bucket_of(&series->hint_start_us, &series->hint_index, series->bucket_us,
                              t_us)) >= TIME_SERIES_BUCKETS)
        time_series_halve(series);
    while (series->used <= index) {
        series->max[series->used] = series->last; /* carry the level forward */
        series->used++;
    }
    if (value > series->max[index])
        series->max[index] = value;
    series->last = value;
}

/* ------------------------------------------------------------------ count series */

void count_series_init(CountSeries *series, uint64_t bucket_us)
{
    memset(series, 0, sizeof *series);
    series->bucket_us = bucket_us > 0 ? bucket_us : 1;
}

static void count_series_halve(CountSeries *series)
{
    for (uint32_t i = 0; i < COUNT_SERIES_BUCKETS / 2; i++)
        series->count[i] = series->count[2 * i] + series->count[2 * i + 1];
    memset(&series->count[COUNT_SERIES_BUCKETS / 2], 0,
           sizeof series->count[0] * (COUNT_SERIES_BUCKETS / 2));
    series->used = (series->used + 1) / 2;
    series->bucket_us *= 2;
    series->hint_start_us = 0;
    series->hint_index = 0;
}

void count_series_coarsen(CountSeries *series, uint64_t bucket_us)
{
    while (series->bucket_us < bucket_us)
        count_series_halve(series);
}

void count_series_add_slow(CountSeries *series, uint64_t t_us, uint64_t n)
{
    uint64_t index;
    while ((index = bucket_of(&series->hint_start_us, &series->hint_index, series->bucket_us,
                              t_us)) >= COUNT_SERIES_BUCKETS)
        count_series_halve(series);
    if (series->used <= index)
        series->used = (uint32_t)index + 1; /* buckets in between stay at 0 */
    series->count[index] += n;
}

uint64_t count_series_peak(const CountSeries *series)
{
    uint64_t peak = 0;
    for (uint32_t i = 0; i < series->used; i++)
        if (series->count[i] > peak)
            peak = series->count[i];
    return peak;
}
