/* C33: two paths fulfil one order. A browser's return page and a provider's webhook each ask
 * the fulfilment service to ship the same order (clients[].same_orders_as). No loss, constant
 * delays, unbounded workers, the webhook 50 ms after the page's request was done: each path's
 * request runs once, so without a key the paths share, every order ships exactly twice in
 * every mode; keyed by the order (business-hash on both) the idempotent store ships each
 * once and answers the webhook with the page's stored answer. */
#include "test_world.h"

#define ORDERS 200u

static const char two_paths_world[] =
    "{\"name\": \"two-paths\", \"seed\": 33, \"duration_ms\": 10000,"
    " \"accounts\": [{\"id\": \"shop\", \"balance\": 0}],"
    " \"clients\": ["
    "  {\"id\": \"page\", \"count\": 200, \"operation\": {\"kind\": \"insert\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0]}, \"key\": \"per-click\","
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 3}},"
    "  {\"id\": \"hook\", \"count\": 200, \"operation\": {\"kind\": \"insert\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [100]}, \"key\": \"per-click\", \"same_orders_as\": \"page\","
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 3}}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 10}},"
    " \"server\": {\"workers\": 0, \"service_ms\": 20}}";

static const char *const order_keys[] = {"clients[0].key=\"business-hash\"",
                                         "clients[1].key=\"business-hash\""};

START_TEST(test_each_path_its_own_key_ships_every_order_twice_in_every_mode)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics run = test_run_json(two_paths_world, NULL, 0, mode);
        ck_assert_uint_eq(run.effects, 2 * ORDERS);
        ck_assert_uint_eq(run.orders_fulfilled_twice, ORDERS);
        /* each path's request is its own operation, run once and told so */
        ck_assert_uint_eq(run.outcomes[OUTCOME_OK], 2 * ORDERS);
        ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_uint_eq(run.replayed, 0);
    }
}
END_TEST

START_TEST(test_keyed_by_the_order_the_store_ships_each_once)
{
    Metrics run = test_run_json(two_paths_world, order_keys, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.effects, ORDERS);
    ck_assert_uint_eq(run.orders_fulfilled_twice, 0);
    ck_assert_uint_eq(run.replayed, ORDERS); /* the webhook hears the page's stored answer */
    /* the stored answer is the same order's: the right answer, not another's */
    ck_assert_uint_eq(run.outcomes[OUTCOME_MISMATCH], 0);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], 2 * ORDERS);
}
END_TEST

START_TEST(test_order_keys_need_a_store_two_paths_are_not_a_retry)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_IDEMPOTENT; mode++) {
        Metrics run = test_run_json(two_paths_world, order_keys, 2, mode);
        ck_assert_uint_eq(run.orders_fulfilled_twice, ORDERS);
    }
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

static void assert_refused(const char *const *overrides, uint32_t count, const char *words)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(two_paths_world, strlen(two_paths_world), overrides, count,
                                  scenario, &errors));
    bool found = false;
    for (uint32_t e = 0; e < errors.count; e++)
        found |= strcmp(errors.items[e].path, "$.clients[1].same_orders_as") == 0 &&
                 strstr(errors.items[e].message, words) != NULL;
    ck_assert_msg(found, "no error at $.clients[1].same_orders_as saying '%s' (first: %s: %s)",
                  words, errors.items[0].path, errors.items[0].message);
    free(scenario);
}

START_TEST(test_other_orders_are_refused_with_their_path)
{
    const char *const count[] = {"clients[1].count=199"};
    assert_refused(count, 1, "same count");
    const char *const amount[] = {"clients[1].operation.amount=101"};
    assert_refused(amount, 1, "same operation.amount");
    const char *const kind[] = {"clients[1].operation.kind=\"debit\""};
    assert_refused(kind, 1, "same operation.kind");
    const char *const self[] = {"clients[1].same_orders_as=\"hook\""};
    assert_refused(self, 1, "another group's id");
    const char *const unknown[] = {"clients[1].same_orders_as=\"app\""};
    assert_refused(unknown, 1, "a client group's id");
    const char *const chain[] = {"clients[0].same_orders_as=\"hook\""};
    assert_refused(chain, 1, "no chains");
}
END_TEST

static Suite *two_paths_suite(void)
{
    Suite *suite = suite_create("two_paths");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 30);
    tcase_add_test(core, test_each_path_its_own_key_ships_every_order_twice_in_every_mode);
    tcase_add_test(core, test_keyed_by_the_order_the_store_ships_each_once);
    tcase_add_test(core, test_order_keys_need_a_store_two_paths_are_not_a_retry);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_other_orders_are_refused_with_their_path);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(two_paths_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
