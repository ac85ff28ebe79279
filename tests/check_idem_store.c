/* The key store on its own: a row is found until its expiry and absent after it, a sweep frees
 * exactly the expired rows whatever was replaced or removed before, backward-shift deletion
 * keeps every other row reachable, the expiry order costs bounded memory, and a periodic
 * sweep skips the instants where it would find nothing. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "idem_store.h"
#include "rng.h"

static KeyRow row_of(uint64_t key, SimTimeUs created_us, SimTimeUs expires_us)
{
    return (KeyRow){.key = key,
                    .status = KEY_STATUS_COMPLETED,
                    .response_status = 200,
                    .created_us = created_us,
                    .expires_us = expires_us};
}

START_TEST(test_a_row_is_found_until_its_expiry_and_absent_from_then_on)
{
    IdemStore *store = idem_store_create(0);
    KeyRow row = row_of(42, 0, 1000);
    idem_store_put(store, &row);
    ck_assert_ptr_nonnull(idem_store_lookup(store, 42, 999));
    ck_assert_ptr_null(idem_store_lookup(store, 42, 1000));
    /* Past its TTL it is absent, but still held until a sweep frees it (C12). */
    ck_assert_ptr_nonnull(idem_store_find_any(store, 42));
    ck_assert_uint_eq(idem_store_rows(store), 1);
    ck_assert_ptr_null(idem_store_lookup(store, 43, 0));
    idem_store_destroy(store);
    idem_store_destroy(NULL);
}
END_TEST

START_TEST(test_a_sweep_frees_exactly_the_rows_expired_at_its_instant)
{
    IdemStore *store = idem_store_create(0);
    for (uint64_t key = 1; key <= 100; key++) {
        KeyRow row = row_of(key, 0, key * 10); /* key k expires at 10k */
        idem_store_put(store, &row);
    }
    KeyRow forever = row_of(1000, 0, SIM_TIME_NEVER);
    idem_store_put(store, &forever);
    ck_assert_uint_eq(idem_store_sweep(store, 9), 0);
    ck_assert_uint_eq(idem_store_sweep(store, 250), 25); /* keys 1..25 */
    ck_assert_uint_eq(idem_store_rows(store), 76);
    ck_assert_ptr_null(idem_store_find_any(store, 25));
    ck_assert_ptr_nonnull(idem_store_find_any(store, 26));
    ck_assert_uint_eq(idem_store_next_expiry(store), 260);
    ck_assert_uint_eq(idem_store_sweep(store, SIM_TIME_NEVER - 1), 75);
    ck_assert_ptr_nonnull(idem_store_lookup(store, 1000, SIM_TIME_NEVER - 1)); /* no TTL */
    ck_assert_uint_eq(idem_store_next_expiry(store), SIM_TIME_NEVER);
    idem_store_destroy(store);
}
END_TEST

/* A row reserved with a short TTL and completed with a longer one (TTL from completion) keeps
 * its later expiry: the entry of its first expiry is stale and frees nothing. */
START_TEST(test_a_replaced_row_lives_to_its_new_expiry_not_its_old_one)
{
    IdemStore *store = idem_store_create(0);
    KeyRow reserved = row_of(7, 0, 100);
    reserved.status = KEY_STATUS_PROCESSING;
    idem_store_put(store, &reserved);
    KeyRow completed = row_of(7, 0, 500);
    idem_store_put(store, &completed);
    ck_assert_uint_eq(idem_store_sweep(store, 100), 0);
    ck_assert_ptr_nonnull(idem_store_lookup(store, 7, 100));
    ck_assert_uint_eq(idem_store_next_expiry(store), 500);
    /* Removed, then put again with the first expiry: the old entries do not confuse it. */
    idem_store_remove(store, 7);
    ck_assert_uint_eq(idem_store_rows(store), 0);
    idem_store_put(store, &reserved);
    ck_assert_uint_eq(idem_store_sweep(store, 99), 0);
    ck_assert_uint_eq(idem_store_sweep(store, 100), 1);
    ck_assert_uint_eq(idem_store_rows(store), 0);
    ck_assert_uint_eq(idem_store_sweep(store, 1000), 0);
    idem_store_destroy(store);
}
END_TEST

START_TEST(test_clear_forgets_every_row_and_every_expiry)
{
    IdemStore *store = idem_store_create(0);
    for (uint64_t key = 1; key <= 50; key++) {
        KeyRow row = row_of(key, 0, 10);
        idem_store_put(store, &row);
    }
    idem_store_clear(store);
    ck_assert_uint_eq(idem_store_rows(store), 0);
    ck_assert_uint_eq(idem_store_next_expiry(store), SIM_TIME_NEVER);
    ck_assert_uint_eq(idem_store_sweep(store, 100), 0);
    idem_store_destroy(store);
}
END_TEST

/* A reference model (a plain array indexed by key) against the table through a long random
 * run of puts, removes, sweeps and growth: backward-shift deletion must leave every row
 * findable, and nothing else. Keys 1..KEYS, so the table grows and shrinks its load often. */
#define REFERENCE_KEYS 2000

START_TEST(test_random_puts_removes_and_sweeps_agree_with_a_reference_model)
{
    static SimTimeUs expiry[REFERENCE_KEYS + 1]; /* 0: absent */
    memset(expiry, 0, sizeof expiry);
    IdemStore *store = idem_store_create(0);
    Rng rng_state;
    rng_init(&rng_state, 20261202);
    Rng *rng = &rng_state;
    SimTimeUs now = 1;
    for (int step = 0; step < 60000; step++) {
        uint64_t key = 1 + rng_below(rng, REFERENCE_KEYS);
        uint64_t action = rng_below(rng, 100);
        if (action < 60) {
            KeyRow row = row_of(key, now, now + 1 + rng_below(rng, 5000));
            idem_store_put(store, &row);
            expiry[key] = row.expires_us;
        } else if (action < 90) {
            idem_store_remove(store, key);
            expiry[key] = 0;
        } else if (action < 99) {
            now += rng_below(rng, 400);
            size_t expected = 0;
            for (uint64_t k = 1; k <= REFERENCE_KEYS; k++) {
                if (expiry[k] != 0 && expiry[k] <= now) {
                    expiry[k] = 0;
                    expected++;
                }
            }
            ck_assert_uint_eq(idem_store_sweep(store, now), expected);
        } else {
            size_t held = 0;
            for (uint64_t k = 1; k <= REFERENCE_KEYS; k++) {
                const KeyRow *row = idem_store_find_any(store, k);
                ck_assert_int_eq(row != NULL, expiry[k] != 0);
                if (row != NULL)
                    ck_assert_uint_eq(row->expires_us, expiry[k]);
                held += expiry[k] != 0;
            }
            ck_assert_uint_eq(idem_store_rows(store), held);
        }
    }
    idem_store_destroy(store);
}
END_TEST

/* The same agreement for a big store, whose new keys go to a young index and move to the old
 * one in batches: every put, remove and sweep on either side of a move must land. */
#define BIG_KEYS 120000

START_TEST(test_a_big_store_agrees_with_a_reference_model_across_batch_moves)
{
    static SimTimeUs expiry[BIG_KEYS + 1]; /* 0: absent */
    memset(expiry, 0, sizeof expiry);
    IdemStore *store = idem_store_create(0);
    Rng rng_state;
    rng_init(&rng_state, 20261203);
    Rng *rng = &rng_state;
    SimTimeUs now = 1;
    /* Counted, then asserted once: Check records every assertion that passes. */
    size_t wrong_puts = 0, wrong_removes = 0, wrong_sweeps = 0, wrong_finds = 0;
    for (int step = 0; step < 400000; step++) {
        uint64_t key = 1 + rng_below(rng, BIG_KEYS);
        uint64_t action = rng_below(rng, 10000);
        if (action < 7000 || step < 100000) {
            KeyRow row = row_of(key, now, now + 1 + rng_below(rng, 400000));
            wrong_puts += idem_store_put(store, &row) != idem_store_find_any(store, key);
            expiry[key] = row.expires_us;
        } else if (action < 9995) {
            idem_store_remove(store, key);
            wrong_removes += idem_store_find_any(store, key) != NULL;
            expiry[key] = 0;
        } else {
            now += rng_below(rng, 4000);
            size_t expected = 0;
            for (uint64_t k = 1; k <= BIG_KEYS; k++) {
                if (expiry[k] != 0 && expiry[k] <= now) {
                    expiry[k] = 0;
                    expected++;
                }
            }
            wrong_sweeps += idem_store_sweep(store, now) != expected;
        }
    }
    size_t held = 0;
    for (uint64_t k = 1; k <= BIG_KEYS; k++) {
        const KeyRow *row = idem_store_find_any(store, k);
        wrong_finds +=
            (row != NULL) != (expiry[k] != 0) || (row != NULL && row->expires_us != expiry[k]);
        held += expiry[k] != 0;
    }
    ck_assert_uint_eq(wrong_puts, 0);
    ck_assert_uint_eq(wrong_removes, 0);
    ck_assert_uint_eq(wrong_sweeps, 0);
    ck_assert_uint_eq(wrong_finds, 0);
    ck_assert_uint_eq(idem_store_rows(store), held);
    ck_assert_uint_gt(held, 40000); /* big enough for the young index */
    idem_store_clear(store);
    ck_assert_uint_eq(idem_store_rows(store), 0);
    ck_assert_ptr_null(idem_store_find_any(store, 1 + rng_below(rng, BIG_KEYS)));
    idem_store_destroy(store);
}
END_TEST

/* One key replaced a million times, each time with a later expiry, never swept: the stale
 * expiry entries are dropped by rebuilds, so the store stays small. */
START_TEST(test_stale_expiry_entries_do_not_pile_up)
{
    IdemStore *store = idem_store_create(0);
    size_t empty_bytes = idem_store_memory_bytes(store);
    for (SimTimeUs t = 1; t <= 1000000; t++) {
        KeyRow row = row_of(99, t, t + 1000);
        idem_store_put(store, &row);
    }
    ck_assert_uint_eq(idem_store_rows(store), 1);
    /* 2 * rows + 1024 entries of 16 bytes at most, doubled by growth: well under 64 KiB. */
    ck_assert_uint_lt(idem_store_memory_bytes(store) - empty_bytes, 64 * 1024);
    ck_assert_uint_eq(idem_store_next_expiry(store), 1000000 + 1000);
    idem_store_destroy(store);
}
END_TEST

START_TEST(test_the_next_sweep_skips_instants_where_nothing_could_be_freed)
{
    IdemStore *store = idem_store_create(0);
    /* Empty store, nothing pending: the plain period. */
    ck_assert_uint_eq(idem_store_next_sweep(store, 1000, 1000, SIM_TIME_NEVER), 2000);
    /* Empty store, the next event at 10^12: the first grid instant at or after it. */
    ck_assert_uint_eq(idem_store_next_sweep(store, 1000, 1000, 1000000000000ull), 1000000000000ull);
    ck_assert_uint_eq(idem_store_next_sweep(store, 1000, 1000, 1000000000001ull), 1000000001000ull);
    /* A row expiring at 5500 with the next event later: the sweep at 6000 frees it. */
    KeyRow row = row_of(5, 0, 5500);
    idem_store_put(store, &row);
    ck_assert_uint_eq(idem_store_next_sweep(store, 1000, 1000, 90000), 6000);
    /* Something happens sooner than the period: never earlier than one period. */
    ck_assert_uint_eq(idem_store_next_sweep(store, 1000, 1000, 1001), 2000);
    /* Near the end of time the grid would overflow: one period, as always. */
    ck_assert_uint_eq(idem_store_next_sweep(store, SIM_TIME_NEVER - 10, 5, SIM_TIME_NEVER - 1),
                      SIM_TIME_NEVER - 5);
    idem_store_destroy(store);
}
END_TEST

static Suite *idem_store_test_suite(void)
{
    Suite *suite = suite_create("idem_store");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_row_is_found_until_its_expiry_and_absent_from_then_on);
    tcase_add_test(core, test_a_sweep_frees_exactly_the_rows_expired_at_its_instant);
    tcase_add_test(core, test_a_replaced_row_lives_to_its_new_expiry_not_its_old_one);
    tcase_add_test(core, test_clear_forgets_every_row_and_every_expiry);
    tcase_add_test(core, test_random_puts_removes_and_sweeps_agree_with_a_reference_model);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_stale_expiry_entries_do_not_pile_up);
    tcase_add_test(limits, test_a_big_store_agrees_with_a_reference_model_across_batch_moves);
    tcase_add_test(limits, test_the_next_sweep_skips_instants_where_nothing_could_be_freed);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(idem_store_test_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
