/* Latency statistics: a log-linear histogram (HdrHistogram-style) with fixed storage and a
 * relative bucket error below 1/128, enough for p50/p99/p999. Values are integers (µs);
 * values below 128 are exact, values from 2^50 on share the top bucket (min and max stay
 * exact). min and max are 0 while the histogram is empty. */
#ifndef IDEMSIM_STATS_H
#define IDEMSIM_STATS_H

#include <stdint.h>

#define HISTOGRAM_SUB_BUCKETS 128
#define HISTOGRAM_MAGNITUDES 44 /* values up to 2^50 µs (~35 years) */

typedef struct {
    uint64_t counts[HISTOGRAM_MAGNITUDES][HISTOGRAM_SUB_BUCKETS];
    uint64_t count;
    uint64_t min;
    uint64_t max;
    double sum; /* for the mean only; quantiles never use it */
} Histogram;

void histogram_init(Histogram *histogram);
void histogram_record(Histogram *histogram, uint64_t value);
/* The value at quantile q in [0, 1]: a representative of the bucket holding the
 * ceil(q * count)-th smallest value, clamped to [min, max]. 0 when empty. */
uint64_t histogram_quantile(const Histogram *histogram, double q);
double histogram_mean(const Histogram *histogram);

/* A level over simulated time (key-store rows, queue depth) in fixed storage: the maximum
 * per bucket. When time runs past the last bucket, neighbours merge and the bucket width
 * doubles, so a run of any length fits; a bucket with no sample carries the level before it. */
#define TIME_SERIES_BUCKETS 128

typedef struct {
    uint64_t bucket_us;
    uint32_t used;          /* buckets [0, used) hold data */
    uint64_t last;          /* the level after the latest sample */
    uint64_t hint_start_us; /* the bucket of the latest sample starts here ... */
    uint32_t hint_index;    /* ... and has this index: samples mostly land in it, no division */
    uint64_t max[TIME_SERIES_BUCKETS];
} TimeSeries;

void time_series_init(TimeSeries *series, uint64_t bucket_us);
/* t_us never decreases between calls. */
void time_series_record_slow(TimeSeries *series, uint64_t t_us, uint64_t value);
/* Inline for a sample in the bucket of the previous one, which most are (issue 25). */
static inline void time_series_record(TimeSeries *series, uint64_t t_us, uint64_t value)
{
    if (t_us - series->hint_start_us < series->bucket_us && t_us >= series->hint_start_us &&
        series->hint_index < series->used) {
        if (value > series->max[series->hint_index])
            series->max[series->hint_index] = value;
        series->last = value;
        return;
    }
    time_series_record_slow(series, t_us, value);
}
/* Merges neighbours until the bucket width is at least bucket_us: to put series that grew
 * to different widths (runs of different lengths) on one time scale. */
void time_series_coarsen(TimeSeries *series, uint64_t bucket_us);

/* A count over simulated time (attempts, successes) in fixed storage: the sum per bucket.
 * Past the last bucket, neighbours add up and the bucket width doubles, as a TimeSeries. */
#define COUNT_SERIES_BUCKETS 1024

typedef struct {
    uint64_t bucket_us;
    uint32_t used;          /* buckets [0, used) hold data */
    uint64_t hint_start_us; /* as in TimeSeries */
    uint32_t hint_index;
    uint64_t count[COUNT_SERIES_BUCKETS];
} CountSeries;

void count_series_init(CountSeries *series, uint64_t bucket_us);
void count_series_add_slow(CountSeries *series, uint64_t t_us, uint64_t n);
static inline void count_series_add(CountSeries *series, uint64_t t_us, uint64_t n)
{
    if (t_us - series->hint_start_us < series->bucket_us && t_us >= series->hint_start_us &&
        series->hint_index < series->used) {
        series->count[series->hint_index] += n;
        return;
    }
    count_series_add_slow(series, t_us, n);
}
void count_series_coarsen(CountSeries *series, uint64_t bucket_us);
/* The largest bucket's count. */
uint64_t count_series_peak(const CountSeries *series);

#endif
