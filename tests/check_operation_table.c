/* The table of operations in progress: records found by id until removed, a slot reused by a
 * later operation never answering for the one that left, the remembered last look-up
 * forgotten with its operation, and growth that keeps every record. */
#include <check.h>
#include <stdlib.h>

#include "operation_table.h"

START_TEST(test_inserted_operations_are_found_until_removed)
{
    OperationTable table;
    operation_table_init(&table);
    Operation *first = operation_table_insert(&table, 7);
    first->client = 3;
    ck_assert_ptr_eq(operation_table_get(&table, 7), operation_table_find(&table, 7));
    ck_assert_uint_eq(operation_table_get(&table, 7)->client, 3);
    ck_assert_ptr_null(operation_table_get(&table, 8));
    operation_table_remove(&table, 7);
    ck_assert_ptr_null(operation_table_find(&table, 7));
    ck_assert_ptr_null(operation_table_get(&table, 7));
    operation_table_release(&table);
}
END_TEST

/* Operation 1 leaves, 2 takes its slot: a look-up of 1, remembered or not, finds nothing. */
START_TEST(test_a_reused_slot_never_answers_for_the_operation_that_left)
{
    OperationTable table;
    operation_table_init(&table);
    operation_table_insert(&table, 1);
    ck_assert_ptr_nonnull(operation_table_get(&table, 1)); /* remembered */
    operation_table_remove(&table, 1);
    Operation *second = operation_table_insert(&table, 2);
    ck_assert_ptr_null(operation_table_get(&table, 1));
    ck_assert_ptr_eq(operation_table_get(&table, 2), second);
    ck_assert_uint_eq(second->id, 2);
    operation_table_release(&table);
}
END_TEST

START_TEST(test_growth_keeps_every_record_and_the_remembered_one)
{
    enum { OPERATIONS = 20000 };
    OperationTable table;
    operation_table_init(&table);
    for (uint64_t id = 0; id < OPERATIONS; id++) {
        operation_table_insert(&table, id * 3)->client = (uint32_t)id;
        ck_assert_uint_eq(operation_table_get(&table, 0)->client, 0); /* across every growth */
    }
    for (uint64_t id = 0; id < OPERATIONS; id += 2)
        operation_table_remove(&table, id * 3);
    for (uint64_t id = 0; id < OPERATIONS; id++) {
        Operation *op = operation_table_get(&table, id * 3);
        if (id % 2 == 0) {
            ck_assert_ptr_null(op);
        } else {
            ck_assert_ptr_nonnull(op);
            ck_assert_uint_eq(op->client, id);
        }
    }
    ck_assert_uint_eq(table.count, OPERATIONS / 2);
    ck_assert_uint_eq(table.peak, OPERATIONS);
    operation_table_release(&table);
}
END_TEST

/* A record starts from the table's fresh one (OperationTable.fresh), copied in: what an
 * operation wrote in its slot never carries into the next one there, and the fresh record
 * itself never takes anything from a use. */
START_TEST(test_a_reused_slot_starts_as_a_fresh_record)
{
    OperationTable table;
    operation_table_init(&table);
    Operation *first = operation_table_insert(&table, 1);
    *first = (Operation){.id = 1,
                         .client = 4,
                         .references = 2,
                         .effects = 3,
                         .broker_messages = 9,
                         .outbox_entries = 8,
                         .finished = true,
                         .started_us = 77};
    first->clicks[1] = (ClickState){.key = 5, .attempts = 6, .active = true};
    operation_table_remove(&table, 1);
    Operation *second = operation_table_insert(&table, 2);
    ck_assert_ptr_eq(second, first); /* the slot the first left */
    ck_assert_uint_eq(second->id, 2);
    ck_assert_uint_eq(second->broker_messages, OPERATION_NO_SLOT);
    ck_assert_uint_eq(second->outbox_entries, OPERATION_NO_SLOT);
    ck_assert_uint_eq(second->client, 0);
    ck_assert_uint_eq(second->references, 0);
    ck_assert_uint_eq(second->effects, 0);
    ck_assert(!second->finished);
    ck_assert_uint_eq(second->started_us, 0);
    ck_assert_uint_eq(second->clicks[1].key, 0);
    ck_assert_uint_eq(second->clicks[1].attempts, 0);
    ck_assert(!second->clicks[1].active);
    ck_assert_uint_eq(table.fresh.id, 0);
    ck_assert_uint_eq(table.fresh.broker_messages, OPERATION_NO_SLOT);
    operation_table_release(&table);
}
END_TEST

static Suite *operation_table_suite(void)
{
    Suite *suite = suite_create("operation_table");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_inserted_operations_are_found_until_removed);
    tcase_add_test(core, test_a_reused_slot_never_answers_for_the_operation_that_left);
    tcase_add_test(core, test_a_reused_slot_starts_as_a_fresh_record);
    tcase_add_test(core, test_growth_keeps_every_record_and_the_remembered_one);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(operation_table_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
