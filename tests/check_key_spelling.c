/* C30: uniqueness that is not. A retry whose key is spelled otherwise (key_respelled) is a
 * new key to a store that compares bytes, and the same key to one that normalises; a store
 * that normalises folds two different base62 keys that differ only in case into one, as a
 * case-insensitive collation does. Closed forms: P(double) = q p for answers lost with q
 * and retries respelled with p; the collisions of N sequential keys are N minus the values
 * they take, in 2^bits values, bits = 0.852 key_bits once folded. */
#include <inttypes.h>

#include "test_world.h"

/* Answers lost with probability 0.3, requests never; one retry 300 ms after a lost answer;
 * every message takes 10 ms, the handler none. */
static const char *const lost_answers =
    "{\"name\": \"respelled\", \"seed\": 30, \"duration_ms\": 10000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 20000, \"operation\": {\"kind\": \"debit\","
    "   \"amount\": 1}, \"workload\": {\"at_ms\": [0]},"
    "   \"retry\": {\"timeout_ms\": 300, \"max_attempts\": 2,"
    "     \"backoff\": {\"base_ms\": 100, \"factor\": 1, \"max_ms\": 100, \"jitter\": \"none\"}},"
    "   \"key\": \"per-click\", \"key_respelled\": 0.5}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 10},"
    "   \"links\": {\"server->app\": {\"loss\": 0.3}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": 0}}";

START_TEST(test_a_respelled_retry_is_a_new_key_to_bytes_and_the_same_key_normalised)
{
    const double n = 20000, q = 0.3, p = 0.5;
    Metrics bytes = test_run_json(lost_answers, NULL, 0, MODE_IDEMPOTENT);
    const char *const normalising[] = {"server.idempotency.compare=\"normalised\""};
    Metrics normalised = test_run_json(lost_answers, normalising, 1, MODE_IDEMPOTENT);
    Metrics retried = test_run_json(lost_answers, NULL, 0, MODE_AT_LEAST_ONCE);
    double expected = q * p;
    double measured = (double)bytes.outcomes[OUTCOME_DOUBLE] / n;
    ck_assert_msg(fabs(measured - expected) <= test_binomial_tolerance(expected, n),
                  "doubles %.4f per payment, expected q p = %.4f", measured, expected);
    ck_assert_uint_eq(normalised.outcomes[OUTCOME_DOUBLE], 0);
    /* every retry finds its key normalised: the doubles of at-least-once, all replayed */
    ck_assert_uint_eq(normalised.replayed, retried.outcomes[OUTCOME_DOUBLE]);
    /* the same fates: a respelled retry in the bytes column is a double of at-least-once */
    ck_assert_uint_le(bytes.outcomes[OUTCOME_DOUBLE], retried.outcomes[OUTCOME_DOUBLE]);
    ck_assert_uint_eq(bytes.outcomes[OUTCOME_DOUBLE] + bytes.replayed,
                      retried.outcomes[OUTCOME_DOUBLE]);
}
END_TEST

START_TEST(test_respelling_needs_a_retry)
{
    const char *const once[] = {"clients[0].retry.max_attempts=1"};
    Metrics run = test_run_json(lost_answers, once, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* One client pays N times in a row, each payment answered before the next starts, with a
 * key of key_bits random bits: a key equal to an earlier one (as the store compares it)
 * meets that payment's completed row and another body: 422, never charged. The expected
 * number of such keys is N minus the expected number of values N uniform keys take among
 * M = 2^bits: N - M (1 - (1 - 1/M)^N). */
static const char *const sequential_payments =
    "{\"name\": \"collation\", \"seed\": 30, \"duration_ms\": 200000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"operation\": {\"kind\": \"debit\","
    "   \"amount\": 1}, \"workload\": {\"ops\": 2000, \"interval_ms\": 10},"
    "   \"retry\": {\"timeout_ms\": 300, \"max_attempts\": 1},"
    "   \"key\": \"per-click\", \"key_bits\": 16, \"key_alphabet\": \"base62\"}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 10}},"
    " \"server\": {\"workers\": 1, \"service_ms\": 0,"
    "   \"idempotency\": {\"compare\": \"normalised\"}}}";

static double expected_collisions(double n, uint32_t bits)
{
    double values = ldexp(1.0, (int)bits);
    return n - values * (1.0 - pow(1.0 - 1.0 / values, n));
}

START_TEST(test_normalising_base62_keys_collides_them_as_keys_of_0_852_of_their_bits)
{
    const double n = 2000;
    Metrics folded = test_run_json(sequential_payments, NULL, 0, MODE_IDEMPOTENT);
    const char *const bytes[] = {"server.idempotency.compare=\"bytes\""};
    Metrics as_sent = test_run_json(sequential_payments, bytes, 1, MODE_IDEMPOTENT);
    const char *const hex[] = {"clients[0].key_alphabet=\"hex\""};
    Metrics hex_keys = test_run_json(sequential_payments, hex, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(folded.operations, (uint64_t)n);
    double folded_expected = expected_collisions(n, 13); /* 16 x 0.852 = 13.6 */
    double bytes_expected = expected_collisions(n, 16);
    ck_assert_msg(fabs((double)folded.status_422 - folded_expected) <= 5 * sqrt(folded_expected),
                  "%" PRIu64 " collisions folded, expected %.1f", folded.status_422,
                  folded_expected);
    ck_assert_msg(fabs((double)as_sent.status_422 - bytes_expected) <= 5 * sqrt(bytes_expected),
                  "%" PRIu64 " collisions as bytes, expected %.1f", as_sent.status_422,
                  bytes_expected);
    /* a hex key's case means nothing: normalising it collides what bytes collide */
    ck_assert_uint_eq(hex_keys.status_422, as_sent.status_422);
    /* a collision is a payment told 422 and never charged */
    ck_assert_uint_eq(folded.outcomes[OUTCOME_LOST], folded.status_422);
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

START_TEST(test_unsupported_combinations_are_refused_with_their_path)
{
    const char *const publishes[] = {"clients[0].target=\"broker\""};
    test_assert_refused(lost_answers, publishes, 1, "$.clients[0].key_respelled", "publishes");
    const char *const consumers[] = {"clients[0].target=\"broker\"", "clients[0].key_respelled=0",
                                     "broker.consumers.idempotency.compare=\"normalised\""};
    test_assert_refused(lost_answers, consumers, 3, "$.broker.consumers.idempotency.compare",
                        "message ids");
}
END_TEST

static Suite *key_spelling_suite(void)
{
    Suite *suite = suite_create("key_spelling");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_respelled_retry_is_a_new_key_to_bytes_and_the_same_key_normalised);
    tcase_add_test(core, test_respelling_needs_a_retry);
    tcase_add_test(core, test_normalising_base62_keys_collides_them_as_keys_of_0_852_of_their_bits);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_unsupported_combinations_are_refused_with_their_path);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(key_spelling_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
