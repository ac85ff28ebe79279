/* Simulated time: an integer count of microseconds since the start of a run.
 * A timestamp is never a double, so every platform orders events identically. */
#ifndef IDEMSIM_SIM_TIME_H
#define IDEMSIM_SIM_TIME_H

#include <stdint.h>

typedef uint64_t SimTimeUs;

#define SIM_TIME_NEVER UINT64_MAX
#define SIM_US_PER_MS 1000u

static inline SimTimeUs sim_time_from_ms(uint64_t ms) { return ms * SIM_US_PER_MS; }

#endif
