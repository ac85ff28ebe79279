/* Inverse-transform sampling where a closed form exists (one uniform per sample, so a
 * sample depends on nothing but its draw); Marsaglia's polar method for the normal family,
 * from a small stream seeded by the draw. The logarithms and exponentials are det_math's,
 * not libm's, and sqrt is IEEE-754's correctly rounded one: a sample is the same bits on
 * every machine and with every compiler. */
#include "distribution.h"

#include <math.h>

#include "det_math.h"
#include "rng.h"

#define LOGNORMAL_Z99 2.3263478740408408 /* standard normal 0.99 quantile */

static double standard_normal(uint64_t draw)
{
    Rng rng;
    rng_init(&rng, draw);
    for (;;) {
        double u = 2.0 * rng_unit(&rng) - 1.0;
        double v = 2.0 * rng_unit(&rng) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0)
            return u * sqrt(-2.0 * det_log(s) / s);
    }
}

double distribution_sample(const Distribution *distribution, uint64_t draw)
{
    double u = rng_unit_from_bits(draw);
    switch (distribution->kind) {
    case DIST_CONST:
        return distribution->a;
    case DIST_UNIFORM:
        return distribution_uniform_at(distribution, u);
    case DIST_EXP:
        return -distribution->a * det_log(1.0 - u);
    case DIST_NORMAL: {
        double x = distribution->a + distribution->b * standard_normal(draw);
        return x < 0 ? 0 : x;
    }
    case DIST_LOGNORMAL: {
        double sigma = det_log(distribution->b / distribution->a) / LOGNORMAL_Z99;
        return distribution->a * det_exp(sigma * standard_normal(draw));
    }
    case DIST_PARETO:
        return distribution->b * det_exp(-det_log(1.0 - u) / distribution->a);
    }
    return 0;
}

SimTimeUs distribution_sample_ms_as_us_any(const Distribution *distribution, uint64_t draw)
{
    return sim_time_us_from_ms(distribution_sample(distribution, draw));
}

double distribution_mean(const Distribution *distribution)
{
    switch (distribution->kind) {
    case DIST_CONST:
        return distribution->a;
    case DIST_UNIFORM:
        return (distribution->a + distribution->b) / 2.0;
    case DIST_EXP:
        return distribution->a;
    case DIST_NORMAL:
        return distribution->a;
    case DIST_LOGNORMAL: {
        double sigma = det_log(distribution->b / distribution->a) / LOGNORMAL_Z99;
        return distribution->a * det_exp(sigma * sigma / 2.0);
    }
    case DIST_PARETO:
        return distribution->a <= 1.0 ? INFINITY
                                      : distribution->a * distribution->b / (distribution->a - 1.0);
    }
    return 0;
}
