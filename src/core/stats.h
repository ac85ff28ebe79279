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

#endif
