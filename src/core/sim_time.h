/* Simulated time: an integer count of microseconds since the start of a run.
 * A timestamp is never a double, so every platform orders events identically. */
#ifndef IDEMSIM_SIM_TIME_H
#define IDEMSIM_SIM_TIME_H

#include <stdint.h>

typedef uint64_t SimTimeUs;

#define SIM_TIME_NEVER UINT64_MAX
#define SIM_US_PER_MS 1000u

/* Longest duration a model ever schedules: 10^15 µs (about 31 years). Scenario times are
 * bounded below it by the loader; sampled ones (a heavy-tailed delay) are clamped to it, so
 * time arithmetic never overflows. */
#define SIM_DURATION_MAX_US 1000000000000000ull

static inline SimTimeUs sim_time_from_ms(uint64_t ms)
{
    return ms * SIM_US_PER_MS;
}

/* Milliseconds as a double (scenario fields, samples) to µs, rounded to nearest and clamped
 * to [0, SIM_DURATION_MAX_US]; NaN counts as 0. */
/* A computed time in µs (already rounded: +0.5 done), truncated and clamped like below. */
static inline SimTimeUs sim_time_us_clamped(double us)
{
    if (!(us >= 1.0))
        return 0;
    if (us >= (double)SIM_DURATION_MAX_US)
        return SIM_DURATION_MAX_US;
    return (SimTimeUs)us;
}

static inline SimTimeUs sim_time_us_from_ms(double ms)
{
    return sim_time_us_clamped(ms * 1000.0 + 0.5);
}

#endif
