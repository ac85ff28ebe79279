/* Inverse-transform sampling where a closed form exists (one uniform per sample, so a
 * sample depends on nothing but its draw); Box–Muller for the normal family, from a small
 * stream seeded by the draw. libm's exp/log/sqrt/cos are correctly rounded enough on glibc
 * for gcc and clang to agree; counts never depend on the last bit of a delay anyway. */
#include "distribution.h"

#include <math.h>

#include "rng.h"

#define LOGNORMAL_Z99 2.3263478740408408 /* standard normal 0.99 quantile */
#define TWO_PI 6.283185307179586

static double standard_normal(uint64_t draw)
{
    Rng rng;
    rng_init(&rng, draw);
    double u1 = rng_unit(&rng);
    double u2 = rng_unit(&rng);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(TWO_PI * u2);
}

double distribution_sample(const Distribution *distribution, uint64_t draw)
{
    double u = rng_unit_from_bits(draw);
    switch (distribution->kind) {
    case DIST_CONST:
        return distribution->a;
    case DIST_UNIFORM:
        return distribution->a + (distribution->b - distribution->a) * u;
    case DIST_EXP:
        return -distribution->a * log(1.0 - u);
    case DIST_NORMAL: {
        double x = distribution->a + distribution->b * standard_normal(draw);
        return x < 0 ? 0 : x;
    }
    case DIST_LOGNORMAL: {
        double sigma = log(distribution->b / distribution->a) / LOGNORMAL_Z99;
        return distribution->a * exp(sigma * standard_normal(draw));
    }
    case DIST_PARETO:
        return distribution->b / pow(1.0 - u, 1.0 / distribution->a);
    }
    return 0;
}

SimTimeUs distribution_sample_ms_as_us(const Distribution *distribution, uint64_t draw)
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
        double sigma = log(distribution->b / distribution->a) / LOGNORMAL_Z99;
        return distribution->a * exp(sigma * sigma / 2.0);
    }
    case DIST_PARETO:
        return distribution->a <= 1.0 ? INFINITY
                                      : distribution->a * distribution->b / (distribution->a - 1.0);
    }
    return 0;
}
