/* The generic slot pool behind every pool of the model: slots are handed out lowest first
 * after a growth, a slot given back is taken next, growth keeps every item at its number. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>

#include "slot_pool.h"

START_TEST(test_slots_come_lowest_first_and_items_keep_their_number)
{
    SlotPool pool;
    slot_pool_init(&pool, 4);
    uint64_t *items = NULL;
    for (uint32_t i = 0; i < 100; i++) {
        uint32_t slot = slot_pool_take(&pool, &items, sizeof *items);
        ck_assert_uint_eq(slot, i);
        ck_assert_uint_eq(items[slot], 0); /* a slot never used is zeroed */
        items[slot] = 1000 + i;
    }
    ck_assert_uint_eq(pool.capacity, 128); /* 4, 8, ..., 128 */
    ck_assert_uint_eq(pool.in_use, 100);
    for (uint32_t i = 0; i < 100; i++)
        ck_assert_uint_eq(items[i], 1000 + i);
    free(items);
    slot_pool_release(&pool);
}
END_TEST

START_TEST(test_a_slot_given_back_is_taken_next)
{
    SlotPool pool;
    slot_pool_init(&pool, 8);
    int *items = NULL;
    for (int i = 0; i < 5; i++)
        slot_pool_take(&pool, &items, sizeof *items);
    slot_pool_give(&pool, 3);
    slot_pool_give(&pool, 1);
    ck_assert_uint_eq(pool.in_use, 3);
    ck_assert_uint_eq(slot_pool_take(&pool, &items, sizeof *items), 1);
    ck_assert_uint_eq(slot_pool_take(&pool, &items, sizeof *items), 3);
    ck_assert_uint_eq(slot_pool_take(&pool, &items, sizeof *items), 5);
    ck_assert_uint_eq(pool.capacity, 8);
    ck_assert_uint_eq(slot_pool_memory_bytes(&pool), 8 * sizeof(uint32_t));
    free(items);
    slot_pool_release(&pool);
}
END_TEST

/* Giving back a slot that was never taken is a programmer error: the run aborts. */
START_TEST(test_giving_back_a_slot_never_taken_aborts)
{
    SlotPool pool;
    slot_pool_init(&pool, 2);
    slot_pool_give(&pool, 7);
}
END_TEST

static Suite *slot_pool_suite(void)
{
    Suite *suite = suite_create("slot_pool");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_slots_come_lowest_first_and_items_keep_their_number);
    tcase_add_test(core, test_a_slot_given_back_is_taken_next);
    tcase_add_test_raise_signal(core, test_giving_back_a_slot_never_taken_aborts, SIGABRT);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(slot_pool_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
