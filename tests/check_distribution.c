/* Deterministic math against libm, and each distribution of the scenario format against its
 * closed form: quantiles checked as binomial proportions (the fraction of samples below a
 * known quantile), with 5-sigma tolerances from the sample size. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "det_math.h"
#include "distribution.h"
#include "rng.h"

#define SAMPLES 200000

static double fraction_below(const Distribution *distribution, double threshold)
{
    unsigned below = 0;
    for (uint64_t i = 0; i < SAMPLES; i++)
        below += distribution_sample(distribution, rng_hash(7, 1, i, 0, 0)) < threshold;
    return (double)below / SAMPLES;
}

static void assert_fraction(const Distribution *distribution, double threshold, double expected)
{
    double tolerance = 5.0 * sqrt(expected * (1.0 - expected) / SAMPLES);
    double measured = fraction_below(distribution, threshold);
    ck_assert_msg(fabs(measured - expected) <= tolerance, "P(X < %g) = %f, expected %f +- %f",
                  threshold, measured, expected, tolerance);
}

START_TEST(test_det_log_and_det_exp_agree_with_libm_to_a_few_ulp)
{
    ck_assert(det_log(1.0) == 0.0);
    ck_assert(det_exp(0.0) == 1.0);
    for (uint64_t i = 0; i < 100000; i++) {
        double u = rng_unit_from_bits(rng_hash(3, 3, i, 0, 0));
        double x = ldexp(0.5 + u, (int)(i % 200) - 100); /* 2^-100 .. 2^100 */
        double expected_log = log(x);
        ck_assert_msg(fabs(det_log(x) - expected_log) <= 4e-16 * fmax(1.0, fabs(expected_log)),
                      "log(%g): %.17g vs %.17g", x, det_log(x), expected_log);
        double y = (u - 0.5) * 1400.0; /* -700 .. 700 */
        double expected_exp = exp(y);
        ck_assert_msg(fabs(det_exp(y) - expected_exp) <= 8e-16 * expected_exp,
                      "exp(%g): %.17g vs %.17g", y, det_exp(y), expected_exp);
    }
}
END_TEST

START_TEST(test_det_math_edges)
{
    ck_assert(isinf(det_log(0.0)) && det_log(0.0) < 0);
    ck_assert(isnan(det_log(-1.0)));
    ck_assert(fabs(det_log(4.9406564584124654e-324) - log(4.9406564584124654e-324)) < 1e-12);
    ck_assert(det_exp(-800.0) == 0.0);
    ck_assert(isinf(det_exp(800.0)));
    ck_assert(fabs(det_exp(-740.0) - exp(-740.0)) <= 1e-3 * exp(-740.0)); /* subnormal */
}
END_TEST

START_TEST(test_exponential_quantiles)
{
    Distribution exp_mean_100 = {.kind = DIST_EXP, .a = 100};
    assert_fraction(&exp_mean_100, 100.0 * log(2.0), 0.5);
    assert_fraction(&exp_mean_100, 300.0, 1.0 - exp(-3.0));
}
END_TEST

START_TEST(test_lognormal_has_the_median_and_p99_it_was_given)
{
    Distribution lognormal = {.kind = DIST_LOGNORMAL, .a = 20, .b = 200};
    assert_fraction(&lognormal, 20.0, 0.5);
    assert_fraction(&lognormal, 200.0, 0.99);
}
END_TEST

START_TEST(test_normal_quantiles_and_truncation_at_zero)
{
    Distribution normal = {.kind = DIST_NORMAL, .a = 10, .b = 5};
    assert_fraction(&normal, 10.0, 0.5);
    assert_fraction(&normal, 15.0, 0.8413447460685429); /* one sd above */
    for (uint64_t i = 0; i < 10000; i++)
        ck_assert(distribution_sample(&normal, rng_hash(9, 9, i, 0, 0)) >= 0.0);
}
END_TEST

START_TEST(test_pareto_tail)
{
    Distribution pareto = {.kind = DIST_PARETO, .a = 1.5, .b = 10};
    assert_fraction(&pareto, 20.0, 1.0 - pow(2.0, -1.5));
    assert_fraction(&pareto, 10.0, 0.0 + 1e-12); /* never below the scale */
}
END_TEST

START_TEST(test_uniform_and_const)
{
    Distribution uniform = {.kind = DIST_UNIFORM, .a = 5, .b = 50};
    assert_fraction(&uniform, 27.5, 0.5);
    Distribution constant = {.kind = DIST_CONST, .a = 7};
    ck_assert(distribution_sample(&constant, 12345) == 7.0);
    ck_assert_uint_eq(distribution_sample_ms_as_us(&constant, 1), 7000);
}
END_TEST

/* The sampler in microseconds takes a uniform's sample inline and every other kind through
 * distribution_sample: both paths give the same microseconds for every kind. */
START_TEST(test_microseconds_agree_with_the_sample_for_every_kind)
{
    const Distribution kinds[] = {
        {.kind = DIST_CONST, .a = 7},
        {.kind = DIST_UNIFORM, .a = 0.3, .b = 97.1},
        {.kind = DIST_EXP, .a = 12.5},
        {.kind = DIST_NORMAL, .a = 20, .b = 6},
        {.kind = DIST_LOGNORMAL, .a = 10, .b = 80},
        {.kind = DIST_PARETO, .a = 1.5, .b = 4},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (uint64_t i = 0; i < 10000; i++) {
            uint64_t draw = rng_hash(11, 2, i, k, 0);
            SimTimeUs expected = sim_time_us_from_ms(distribution_sample(&kinds[k], draw));
            ck_assert_uint_eq(distribution_sample_ms_as_us(&kinds[k], draw), expected);
            ck_assert_uint_eq(distribution_sample_ms_as_us_any(&kinds[k], draw), expected);
        }
    }
}
END_TEST

static Suite *distribution_suite(void)
{
    Suite *suite = suite_create("distribution");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_det_log_and_det_exp_agree_with_libm_to_a_few_ulp);
    tcase_add_test(core, test_det_math_edges);
    tcase_add_test(core, test_exponential_quantiles);
    tcase_add_test(core, test_lognormal_has_the_median_and_p99_it_was_given);
    tcase_add_test(core, test_normal_quantiles_and_truncation_at_zero);
    tcase_add_test(core, test_pareto_tail);
    tcase_add_test(core, test_uniform_and_const);
    tcase_add_test(core, test_microseconds_agree_with_the_sample_for_every_kind);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(distribution_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
