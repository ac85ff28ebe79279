/* Random numbers: reproducibility, the splitmix64 known answers, hash sensitivity, and
 * statistical checks whose tolerances follow from the sample size (stated at each test). */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "rng.h"

#define SPLITMIX64_GAMMA 0x9e3779b97f4a7c15ull /* splitmix64's published increment */

/* ---------------------------------------------------------------- Core */

START_TEST(test_rng_same_seed_gives_same_stream)
{
    Rng first, second, other;
    rng_init(&first, 42);
    rng_init(&second, 42);
    rng_init(&other, 43);
    int equal_to_other = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t value = rng_next(&first);
        ck_assert_uint_eq(value, rng_next(&second));
        equal_to_other += value == rng_next(&other);
    }
    ck_assert_int_eq(equal_to_other, 0);
}
END_TEST

/* splitmix64 seeded with 1234567: state += gamma, then the finaliser. These outputs are
 * published with the reference implementation, so they pin rng_mix64 to the real thing. */
START_TEST(test_rng_mix64_matches_published_splitmix64_outputs)
{
    const uint64_t expected[] = {6457827717110365317ull, 3203168211198807973ull,
                                 9817491932198370423ull};
    uint64_t state = 1234567;
    for (int i = 0; i < 3; i++) {
        state += SPLITMIX64_GAMMA;
        ck_assert_uint_eq(rng_mix64(state), expected[i]);
    }
}
END_TEST

START_TEST(test_rng_hash_is_deterministic)
{
    for (uint64_t i = 0; i < 100; i++)
        ck_assert_uint_eq(rng_hash(42, 1, i, 2 * i, 3 * i), rng_hash(42, 1, i, 2 * i, 3 * i));
}
END_TEST

/* Changing exactly one of the five inputs must change the hash (each link of the chain is a
 * bijection, so this holds for every input, not just most). */
START_TEST(test_rng_hash_in_two_steps_equals_rng_hash)
{
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t prefix = rng_hash_prefix(i * 7919, i % 13);
        ck_assert_uint_eq(rng_hash_with_prefix(prefix, i, i + 1, i * i),
                          rng_hash(i * 7919, i % 13, i, i + 1, i * i));
    }
}
END_TEST

START_TEST(test_rng_hash_changes_when_any_argument_changes)
{
    Rng rng;
    rng_init(&rng, 5);
    for (int trial = 0; trial < 10000; trial++) {
        uint64_t args[5], changed[5];
        for (int i = 0; i < 5; i++)
            args[i] = rng_next(&rng);
        uint64_t base = rng_hash(args[0], args[1], args[2], args[3], args[4]);
        for (int position = 0; position < 5; position++) {
            for (int i = 0; i < 5; i++)
                changed[i] = args[i];
            changed[position] ^= (uint64_t)1 << rng_below(&rng, 64); /* one bit */
            ck_assert_uint_ne(rng_hash(changed[0], changed[1], changed[2], changed[3], changed[4]),
                              base);
        }
    }
}
END_TEST

START_TEST(test_rng_hash_depends_on_argument_order)
{
    for (uint64_t x = 1; x <= 1000; x++) {
        uint64_t y = x + 1;
        ck_assert_uint_ne(rng_hash(7, 3, x, y, 0), rng_hash(7, 3, y, x, 0));
        ck_assert_uint_ne(rng_hash(7, 3, 0, x, y), rng_hash(7, 3, 0, y, x));
        ck_assert_uint_ne(rng_hash(7, x, y, 0, 0), rng_hash(7, y, x, 0, 0));
        ck_assert_uint_ne(rng_hash(x, 0, 0, 0, 0), rng_hash(0, x, 0, 0, 0)); /* seed vs purpose */
    }
}
END_TEST

START_TEST(test_rng_seed_derive_is_stable_and_differs_by_name_and_master)
{
    ck_assert_uint_eq(rng_seed_derive(42, "link/web->server"),
                      rng_seed_derive(42, "link/web->server"));
    ck_assert_uint_ne(rng_seed_derive(42, "link/web->server"),
                      rng_seed_derive(42, "link/server->web"));
    ck_assert_uint_ne(rng_seed_derive(42, "client/0"), rng_seed_derive(42, "client/1"));
    ck_assert_uint_ne(rng_seed_derive(42, "client/0"), rng_seed_derive(43, "client/0"));
    ck_assert_uint_ne(rng_seed_derive(42, ""), rng_seed_derive(42, "a"));
    ck_assert_uint_ne(rng_seed_derive(42, "x"), 42);
}
END_TEST

/* Pearson's chi-square over 10 classes (df = 9). Its 99.99% quantile is 33.72, so a fair
 * generator fails this fixed-seed test with probability 1e-4 for a random seed; a modulo
 * or off-by-one bias of even 1% per class would give a statistic in the thousands. */
START_TEST(test_rng_below_ten_passes_chi_square_uniformity)
{
    enum { DRAWS = 1000000, CLASSES = 10 };
    const double chi_square_df9_quantile_9999 = 33.72;
    uint64_t counts[CLASSES] = {0};
    Rng rng;
    rng_init(&rng, 2024);
    for (int i = 0; i < DRAWS; i++)
        counts[rng_below(&rng, CLASSES)]++;
    double expected = (double)DRAWS / CLASSES, statistic = 0;
    for (int i = 0; i < CLASSES; i++)
        statistic += ((double)counts[i] - expected) * ((double)counts[i] - expected) / expected;
    ck_assert_double_lt(statistic, chi_square_df9_quantile_9999);
}
END_TEST

/* With bound = 3 * 2^62, a plain x % bound would put 3/4 of the results below 2^63 instead
 * of 2/3. Tolerance: 5 standard deviations of a binomial(n, 2/3). */
START_TEST(test_rng_below_is_unbiased_for_a_bound_near_two_to_the_64)
{
    enum { DRAWS = 100000 };
    const uint64_t bound = 3ull << 62;
    const double p = 2.0 / 3.0;
    Rng rng;
    rng_init(&rng, 9);
    uint64_t below_half = 0;
    for (int i = 0; i < DRAWS; i++) {
        uint64_t value = rng_below(&rng, bound);
        ck_assert_uint_lt(value, bound);
        below_half += value < (1ull << 63);
    }
    double tolerance = 5 * sqrt(DRAWS * p * (1 - p));
    ck_assert_double_lt(fabs((double)below_half - DRAWS * p), tolerance);
}
END_TEST

START_TEST(test_rng_below_stays_in_range_for_extreme_bounds)
{
    Rng rng;
    rng_init(&rng, 3);
    for (int i = 0; i < 1000; i++) {
        ck_assert_uint_eq(rng_below(&rng, 1), 0);
        ck_assert_uint_lt(rng_below(&rng, 2), 2);
        ck_assert_uint_lt(rng_below(&rng, (1ull << 63) + 1), (1ull << 63) + 1);
        ck_assert_uint_lt(rng_below(&rng, UINT64_MAX), UINT64_MAX);
    }
}
END_TEST

/* Frequency of a 12.3456% chance within 5 binomial standard deviations. */
START_TEST(test_rng_chance_ppm_frequency_within_five_sigma)
{
    enum { DRAWS = 1000000 };
    const uint32_t ppm = 123456;
    const double p = ppm / 1e6;
    Rng rng;
    rng_init(&rng, 11);
    uint64_t hits = 0;
    for (int i = 0; i < DRAWS; i++)
        hits += rng_chance_ppm(&rng, ppm);
    double tolerance = 5 * sqrt(DRAWS * p * (1 - p));
    ck_assert_double_lt(fabs((double)hits - DRAWS * p), tolerance);
}
END_TEST

START_TEST(test_rng_chance_ppm_zero_never_and_million_always)
{
    Rng rng;
    rng_init(&rng, 12);
    for (int i = 0; i < 100000; i++) {
        ck_assert(!rng_chance_ppm(&rng, 0));
        ck_assert(rng_chance_ppm(&rng, 1000000));
    }
}
END_TEST

/* Mean of n uniforms has standard deviation sqrt(1/12/n); allow 5 of them. */
START_TEST(test_rng_unit_mean_within_five_sigma)
{
    enum { DRAWS = 1000000 };
    Rng rng;
    rng_init(&rng, 13);
    double sum = 0;
    for (int i = 0; i < DRAWS; i++) {
        double value = rng_unit(&rng);
        ck_assert(value >= 0.0 && value < 1.0);
        sum += value;
    }
    double tolerance = 5 * sqrt(1.0 / 12.0 / DRAWS);
    ck_assert_double_lt(fabs(sum / DRAWS - 0.5), tolerance);
}
END_TEST

START_TEST(test_rng_unit_from_bits_covers_zero_but_never_one)
{
    ck_assert_double_eq(rng_unit_from_bits(0), 0.0);
    ck_assert_double_eq(rng_unit_from_bits(UINT64_MAX), 1.0 - 0x1.0p-53);
    ck_assert_double_eq(rng_unit_from_bits(1ull << 63), 0.5);
    ck_assert_double_eq(rng_unit_from_bits(2047), 0.0); /* only the top 53 bits count */
}
END_TEST

/* Streams seeded 1 and 2: the sample correlation of n independent pairs has standard
 * deviation about 1/sqrt(n), so |r| < 5/sqrt(n). */
START_TEST(test_rng_streams_with_adjacent_seeds_are_uncorrelated)
{
    enum { DRAWS = 200000 };
    Rng first, second;
    rng_init(&first, 1);
    rng_init(&second, 2);
    double sum_x = 0, sum_y = 0, sum_xx = 0, sum_yy = 0, sum_xy = 0;
    for (int i = 0; i < DRAWS; i++) {
        double x = rng_unit(&first), y = rng_unit(&second);
        sum_x += x;
        sum_y += y;
        sum_xx += x * x;
        sum_yy += y * y;
        sum_xy += x * y;
    }
    double covariance = sum_xy / DRAWS - (sum_x / DRAWS) * (sum_y / DRAWS);
    double variance_x = sum_xx / DRAWS - (sum_x / DRAWS) * (sum_x / DRAWS);
    double variance_y = sum_yy / DRAWS - (sum_y / DRAWS) * (sum_y / DRAWS);
    double r = covariance / sqrt(variance_x * variance_y);
    ck_assert_double_lt(fabs(r), 5 / sqrt(DRAWS));
}
END_TEST

/* Counter-based fates: hashes of ids 0, 1, 2, ... must not favour a low (or high) bit.
 * Each bit is a binomial(n, 1/2): 5 standard deviations are 5 * sqrt(n / 4). */
START_TEST(test_rng_hash_of_consecutive_ids_has_unbiased_low_and_high_bits)
{
    enum { IDS = 1000000 };
    uint64_t low = 0, high = 0;
    for (uint64_t id = 0; id < IDS; id++) {
        uint64_t h = rng_hash(42, 1, id, 1, 0);
        low += h & 1;
        high += h >> 63;
    }
    double tolerance = 5 * sqrt(IDS / 4.0);
    ck_assert_double_lt(fabs((double)low - IDS / 2.0), tolerance);
    ck_assert_double_lt(fabs((double)high - IDS / 2.0), tolerance);
}
END_TEST

/* ---------------------------------------------------------------- Limits */

/* The seed whose first splitmix64 input is 0 gives one zero word (mix64(0) == 0); the
 * others are non-zero, so xoshiro still runs. */
START_TEST(test_rng_init_never_gives_the_all_zero_state)
{
    Rng rng;
    rng_init(&rng, 0 - SPLITMIX64_GAMMA);
    ck_assert_uint_eq(rng.state[0], 0);
    ck_assert(rng.state[1] != 0 || rng.state[2] != 0 || rng.state[3] != 0);
    int zeros = 0;
    for (int i = 0; i < 100; i++)
        zeros += rng_next(&rng) == 0;
    ck_assert_int_lt(zeros, 2);
}
END_TEST

START_TEST(test_rng_below_zero_aborts)
{
    Rng rng;
    rng_init(&rng, 1);
    rng_below(&rng, 0);
}
END_TEST

static Suite *rng_suite(void)
{
    Suite *suite = suite_create("rng");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_rng_same_seed_gives_same_stream);
    tcase_add_test(core, test_rng_mix64_matches_published_splitmix64_outputs);
    tcase_add_test(core, test_rng_hash_is_deterministic);
    tcase_add_test(core, test_rng_hash_changes_when_any_argument_changes);
    tcase_add_test(core, test_rng_hash_in_two_steps_equals_rng_hash);
    tcase_add_test(core, test_rng_hash_depends_on_argument_order);
    tcase_add_test(core, test_rng_seed_derive_is_stable_and_differs_by_name_and_master);
    tcase_add_test(core, test_rng_below_ten_passes_chi_square_uniformity);
    tcase_add_test(core, test_rng_below_is_unbiased_for_a_bound_near_two_to_the_64);
    tcase_add_test(core, test_rng_below_stays_in_range_for_extreme_bounds);
    tcase_add_test(core, test_rng_chance_ppm_frequency_within_five_sigma);
    tcase_add_test(core, test_rng_chance_ppm_zero_never_and_million_always);
    tcase_add_test(core, test_rng_unit_mean_within_five_sigma);
    tcase_add_test(core, test_rng_unit_from_bits_covers_zero_but_never_one);
    tcase_add_test(core, test_rng_streams_with_adjacent_seeds_are_uncorrelated);
    tcase_add_test(core, test_rng_hash_of_consecutive_ids_has_unbiased_low_and_high_bits);
    suite_add_tcase(suite, core);

    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_rng_init_never_gives_the_all_zero_state);
    tcase_add_test_raise_signal(limits, test_rng_below_zero_aborts, SIGABRT);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(rng_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
