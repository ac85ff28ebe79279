/* Classic argument reduction plus short polynomials (as in fdlibm, without its tables):
 *   log: x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m-1)/(m+1),
 *        |s| <= 0.172, series to s^23 (next term below 1e-19);
 *   exp: x = k ln2 + r with |r| <= ln2/2; Taylor series to r^17 (next term below 1e-20);
 *        2^k is built in the exponent bits.
 * ln2 is split in a high part with trailing zero bits and a low part, so k * ln2_high is
 * exact and the reduction loses nothing. */
#include "det_math.h"

#include <stdint.h>
#include <string.h>

#define LN2_HIGH 6.93147180369123816490e-01 /* ln2 with its last 32 bits cleared */
#define LN2_LOW 1.90821492927058770002e-10  /* ln2 - LN2_HIGH */
#define INVERSE_LN2 1.44269504088896338700e+00
#define SQRT_HALF 0.70710678118654752440

static uint64_t bits_of(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static double double_of(uint64_t bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* 2^k for k in [-1022, 1023]. */
static double power_of_two(int k)
{
    return double_of((uint64_t)(k + 1023) << 52);
}

double det_log(double x)
{
    if (x != x || x < 0)
        return (x - x) / (x - x); /* NaN */
    if (x == 0)
        return -1.0 / 0.0;
    if (x == 1.0 / 0.0)
        return x;
    int exponent = 0;
    if (x < 2.2250738585072014e-308) { /* subnormal: normalise first */
        x *= 18014398509481984.0;      /* 2^54 */
        exponent = -54;
    }
    uint64_t bits = bits_of(x);
    exponent += (int)((bits >> 52) & 0x7ff) - 1023;
    double m = double_of((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull); /* [1, 2) */
    if (m > 2.0 * SQRT_HALF) {
        m *= 0.5;
        exponent++;
    }
    double s = (m - 1.0) / (m + 1.0);
    double z = s * s;
    double series = 1.0 / 23.0;
    for (int n = 21; n >= 1; n -= 2)
        series = series * z + 1.0 / n;
    double log_m = 2.0 * s * series;
    return exponent * LN2_HIGH + (exponent * LN2_LOW + log_m);
}

double det_exp(double x)
{
    if (x != x)
        return x;
    if (x > 709.782712893384)
        return 1.0 / 0.0;
    if (x < -745.2)
        return 0.0;
    double scaled = x * INVERSE_LN2;
    int k = (int)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
    double r = (x - k * LN2_HIGH) - k * LN2_LOW;
    double series = 1.0;
    for (int n = 17; n >= 1; n--)
        series = series * r / n + 1.0;
    if (k > 1023)
        return series * power_of_two(1023) * power_of_two(k - 1023);
    if (k < -1022)
        return series * power_of_two(k + 1000) * power_of_two(-1000);
    return series * power_of_two(k);
}
