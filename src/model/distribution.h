/* Sampling the distributions of scenario files. Every sample is a pure function of the
 * distribution and a 64-bit draw (from rng_hash), so a message's delay is the same in every
 * mode. Results are integer microseconds, rounded to nearest. */
#ifndef IDEMSIM_DISTRIBUTION_H
#define IDEMSIM_DISTRIBUTION_H

#include <stdint.h>

#include "scenario.h"
#include "sim_time.h"

double distribution_sample(const Distribution *distribution, uint64_t draw);
SimTimeUs distribution_sample_ms_as_us(const Distribution *distribution, uint64_t draw);
/* The mean of the distribution (truncation of normal at 0 ignored), for docs and tests. */
double distribution_mean(const Distribution *distribution);

#endif
