/* Sampling the distributions of scenario files. Every sample is a pure function of the
 * distribution and a 64-bit draw (from rng_hash), so a message's delay is the same in every
 * mode. Results are integer microseconds, rounded to nearest. */
#ifndef IDEMSIM_DISTRIBUTION_H
#define IDEMSIM_DISTRIBUTION_H

#include <stdint.h>

#include "rng.h"
#include "scenario.h"
#include "sim_time.h"

/* A uniform distribution's sample at u in [0, 1): the one place its arithmetic is written,
 * which distribution_sample and the inline path below share, so both give the same bits. */
static inline double distribution_uniform_at(const Distribution *distribution, double u)
{
    return distribution->a + (distribution->b - distribution->a) * u;
}

double distribution_sample(const Distribution *distribution, uint64_t draw);
/* distribution_sample in microseconds, for a distribution of any kind. */
SimTimeUs distribution_sample_ms_as_us_any(const Distribution *distribution, uint64_t draw);
/* The same, with the uniform case inline: PAY-1 samples every delay, service time and think
 * time from one (12 M samples), and as two calls a sample cost as much as its hash. */
static inline SimTimeUs distribution_sample_ms_as_us(const Distribution *distribution,
                                                     uint64_t draw)
{
    if (distribution->kind == DIST_UNIFORM)
        return sim_time_us_from_ms(distribution_uniform_at(distribution, rng_unit_from_bits(draw)));
    return distribution_sample_ms_as_us_any(distribution, draw);
}
/* The mean of the distribution (truncation of normal at 0 ignored), for docs and tests. */
double distribution_mean(const Distribution *distribution);

#endif
