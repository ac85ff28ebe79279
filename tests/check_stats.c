/* Histogram: exact small values, quantiles within the documented relative error (1/128),
 * exact min/max/mean, and the empty and single-value cases. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "stats.h"

#define RELATIVE_ERROR_MAX (1.0 / 128.0) /* promised in stats.h */

static double relative_error(uint64_t got, uint64_t truth)
{
    return fabs((double)got - (double)truth) / (double)truth;
}

static Histogram *histogram_new(void)
{
    Histogram *histogram = malloc(sizeof(Histogram)); /* 45 KB: not on the stack */
    histogram_init(histogram);
    return histogram;
}

/* ---------------------------------------------------------------- Core */

/* 1..100000 once each, in shuffled order: the ceil(q*n)-th smallest is ceil(q*n) itself. */
START_TEST(test_histogram_quantiles_of_uniform_values_are_within_relative_error)
{
    enum { VALUES = 100000 };
    uint64_t *values = malloc(VALUES * sizeof(uint64_t));
    for (uint64_t i = 0; i < VALUES; i++)
        values[i] = i + 1;
    Rng rng;
    rng_init(&rng, 17);
    for (uint64_t i = VALUES - 1; i > 0; i--) { /* Fisher-Yates */
        uint64_t j = rng_below(&rng, i + 1), swap = values[i];
        values[i] = values[j];
        values[j] = swap;
    }
    Histogram *histogram = histogram_new();
    for (int i = 0; i < VALUES; i++)
        histogram_record(histogram, values[i]);

    const struct {
        double q;
        uint64_t truth;
    } cases[] = {{0.5, 50000}, {0.9, 90000}, {0.99, 99000}, {0.999, 99900}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_double_lt(
            relative_error(histogram_quantile(histogram, cases[i].q), cases[i].truth),
            RELATIVE_ERROR_MAX);
    ck_assert_uint_eq(histogram_quantile(histogram, 0.0), 1);
    ck_assert_uint_eq(histogram_quantile(histogram, 1.0), VALUES); /* clamped to max */
    free(values);
    free(histogram);
}
END_TEST

START_TEST(test_histogram_small_values_are_exact)
{
    Histogram *histogram = histogram_new();
    for (uint64_t value = 0; value < 128; value++)
        histogram_record(histogram, value);
    for (uint64_t rank = 1; rank <= 128; rank++) /* q lands strictly inside the rank */
        ck_assert_uint_eq(histogram_quantile(histogram, ((double)rank - 0.5) / 128), rank - 1);
    free(histogram);
}
END_TEST

START_TEST(test_histogram_empty_returns_zero)
{
    Histogram *histogram = histogram_new();
    ck_assert_uint_eq(histogram_quantile(histogram, 0.5), 0);
    ck_assert_uint_eq(histogram_quantile(histogram, 1.0), 0);
    ck_assert_double_eq(histogram_mean(histogram), 0.0);
    ck_assert_uint_eq(histogram->count, 0);
    ck_assert_uint_eq(histogram->min, 0);
    ck_assert_uint_eq(histogram->max, 0);
    free(histogram);
}
END_TEST

START_TEST(test_histogram_min_max_mean_are_exact)
{
    Histogram *histogram = histogram_new();
    const uint64_t values[] = {250001, 3, 1000, 987654321};
    uint64_t sum = 0;
    for (int i = 0; i < 4; i++) {
        histogram_record(histogram, values[i]);
        sum += values[i];
    }
    ck_assert_uint_eq(histogram->count, 4);
    ck_assert_uint_eq(histogram->min, 3);
    ck_assert_uint_eq(histogram->max, 987654321);
    ck_assert_double_eq(histogram_mean(histogram), (double)sum / 4);
    free(histogram);
}
END_TEST

START_TEST(test_histogram_single_value_returns_itself_for_every_q)
{
    const uint64_t values[] = {0, 1, 127, 128, 129, 1000, 65537, 123456789, 1ull << 49};
    const double qs[] = {0.0, 0.001, 0.25, 0.5, 0.99, 0.999, 1.0};
    for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
        Histogram *histogram = histogram_new();
        histogram_record(histogram, values[v]);
        for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
            ck_assert_uint_eq(histogram_quantile(histogram, qs[i]), values[v]);
        free(histogram);
    }
}
END_TEST

/* ---------------------------------------------------------------- Limits */

/* Every value from 0 to 2^22 once: the rank-th smallest is rank - 1, so any quantile can be
 * checked against the truth. Sampled ranks cover 16 magnitudes, bucket edges included. */
START_TEST(test_histogram_every_magnitude_is_within_relative_error)
{
    const uint64_t count = 1ull << 22;
    Histogram *histogram = histogram_new();
    for (uint64_t value = 0; value < count; value++)
        histogram_record(histogram, value);
    for (uint64_t rank = 129; rank <= count; rank += 1 + rank / 1000) {
        uint64_t got = histogram_quantile(histogram, ((double)rank - 0.5) / (double)count);
        ck_assert_double_lt(relative_error(got, rank - 1), RELATIVE_ERROR_MAX);
    }
    free(histogram);
}
END_TEST

START_TEST(test_histogram_values_beyond_range_saturate_in_range)
{
    Histogram *histogram = histogram_new();
    histogram_record(histogram, 1ull << 60);
    histogram_record(histogram, UINT64_MAX);
    ck_assert_uint_eq(histogram->count, 2);
    ck_assert_uint_eq(histogram->min, 1ull << 60);
    ck_assert_uint_eq(histogram->max, UINT64_MAX);
    uint64_t median = histogram_quantile(histogram, 0.5);
    ck_assert(median >= histogram->min && median <= histogram->max);
    free(histogram);
}
END_TEST

START_TEST(test_histogram_out_of_range_q_is_clamped)
{
    Histogram *histogram = histogram_new();
    histogram_record(histogram, 5);
    histogram_record(histogram, 90);
    ck_assert_uint_eq(histogram_quantile(histogram, -1.0), 5);
    ck_assert_uint_eq(histogram_quantile(histogram, NAN), 5);
    ck_assert_uint_eq(histogram_quantile(histogram, 2.0), 90);
    free(histogram);
}
END_TEST

START_TEST(test_time_series_keeps_the_maximum_per_bucket_and_carries_the_level_forward)
{
    TimeSeries series;
    time_series_init(&series, 10);
    time_series_record(&series, 0, 3);
    time_series_record(&series, 5, 7);
    time_series_record(&series, 5, 2);
    time_series_record(&series, 42, 4); /* buckets 1..3 had no sample: the level stays 2 */
    ck_assert_uint_eq(series.used, 5);
    ck_assert_uint_eq(series.max[0], 7);
    ck_assert_uint_eq(series.max[1], 2);
    ck_assert_uint_eq(series.max[3], 2);
    ck_assert_uint_eq(series.max[4], 4);
}
END_TEST

START_TEST(test_time_series_halves_its_resolution_instead_of_growing)
{
    TimeSeries series;
    time_series_init(&series, 1);
    for (uint64_t t = 0; t < 1000; t++)
        time_series_record(&series, t, t);
    /* 1000 samples into 128 buckets: the width doubled to 8, each bucket keeps its maximum */
    ck_assert_uint_eq(series.bucket_us, 8);
    ck_assert_uint_eq(series.used, 125);
    for (uint32_t i = 0; i < series.used; i++)
        ck_assert_uint_eq(series.max[i], (uint64_t)i * 8 + 7);
}
END_TEST

/* Two series that grew to different widths are put on one scale: each bucket of the
 * coarser one is the maximum of the finer buckets it covers. */
START_TEST(test_time_series_coarsens_to_a_wider_bucket_keeping_maxima)
{
    TimeSeries series;
    time_series_init(&series, 10);
    const uint64_t levels[8] = {1, 5, 2, 2, 9, 0, 3, 4};
    for (uint64_t i = 0; i < 8; i++)
        time_series_record(&series, i * 10, levels[i]);
    time_series_coarsen(&series, 40);
    ck_assert_uint_eq(series.bucket_us, 40);
    ck_assert_uint_eq(series.used, 2);
    ck_assert_uint_eq(series.max[0], 5); /* max of 1, 5, 2, 2 */
    ck_assert_uint_eq(series.max[1], 9); /* max of 9, 0, 3, 4 */
    time_series_coarsen(&series, 20);    /* already wider: unchanged */
    ck_assert_uint_eq(series.bucket_us, 40);
    ck_assert_uint_eq(series.max[1], 9);
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *suite = suite_create("stats");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_histogram_quantiles_of_uniform_values_are_within_relative_error);
    tcase_add_test(core, test_histogram_small_values_are_exact);
    tcase_add_test(core, test_histogram_empty_returns_zero);
    tcase_add_test(core, test_histogram_min_max_mean_are_exact);
    tcase_add_test(core, test_histogram_single_value_returns_itself_for_every_q);
    suite_add_tcase(suite, core);

    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_histogram_every_magnitude_is_within_relative_error);
    tcase_add_test(limits, test_histogram_values_beyond_range_saturate_in_range);
    tcase_add_test(limits, test_histogram_out_of_range_q_is_clamped);
    tcase_add_test(core,
                   test_time_series_keeps_the_maximum_per_bucket_and_carries_the_level_forward);
    tcase_add_test(core, test_time_series_halves_its_resolution_instead_of_growing);
    tcase_add_test(core, test_time_series_coarsens_to_a_wider_bucket_keeping_maxima);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(stats_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
