/* A key store the first server and the consumer group share (issue 21, step 4): the
 * consumers' key_store names the server's, and both keep their keys in one set of rows. The
 * lesson is two_paths_queue_and_api: the browser's return page calls the fulfilment API, the
 * provider's webhook goes through a queue to the shipping workers, and both key the order by
 * the order itself. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "report.h"
#include "scenario.h"
#include "scenario_inert.h"
#include "test_report.h"
#include "test_world.h"
#include "world.h"

#define TWO_PATHS "scenarios/architectures/two_paths_queue_and_api.json"

static char *read_source_file(const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", IDEMSIM_SOURCE_DIR, path);
    FILE *file = fopen(full, "rb");
    ck_assert_ptr_nonnull(file);
    static char text[65536];
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    return text;
}

/* The two paths' text with the shippers keeping a store of their own. */
static const char *with_own_store(void)
{
    static char text[65536];
    snprintf(text, sizeof text, "%s", read_source_file(TWO_PATHS));
    char *named = strstr(text, "\"key_store\": \"orders-shipped\", \"workers\": 4");
    ck_assert_ptr_nonnull(named);
    const char *own = "\"key_store\": \"shipper-keys\", \"workers\": 4";
    size_t old_length = strlen("\"key_store\": \"orders-shipped\", \"workers\": 4");
    memmove(named + strlen(own), named + old_length, strlen(named + old_length) + 1);
    memcpy(named, own, strlen(own));
    char *services_end = strstr(text, "\"steps\": [{\"effect\": \"local\"}]}\n  ],");
    ck_assert_ptr_nonnull(services_end);
    services_end = strstr(services_end, "}\n  ],") + 1;
    const char *store = ",\n    {\"id\": \"shipper-keys\", \"kind\": \"key_store\"}";
    memmove(services_end + strlen(store), services_end, strlen(services_end) + 1);
    memcpy(services_end, store, strlen(store));
    return text;
}

/* One store for both paths: whichever comes second finds the order's key, and no order
 * ships twice; the second path is answered from the store, by the API or by the workers.
 * A store of the workers' own knows only their own path's retries: every order ships twice. */
START_TEST(test_one_store_for_both_paths_ships_each_order_once)
{
    Scenario *shared = test_load_source_file(TWO_PATHS, NULL, 0);
    ck_assert(scenario_consumers_share_server_store(shared));
    Metrics one = test_run_mode(shared, MODE_IDEMPOTENT, shared->seed);
    ck_assert_uint_eq(one.orders_fulfilled_twice, 0);
    ck_assert_uint_eq(one.outcomes[OUTCOME_MISMATCH], 0);
    ck_assert_double_gt(test_service_value(&one, "shippers", "replayed"), 0);
    ck_assert_double_gt(test_service_value(&one, "fulfilment-api", "replayed"), 0);
    ck_assert_uint_eq(one.effects, one.operations / 2); /* each order once, by either path */

    Scenario *apart = test_load(with_own_store(), NULL, 0);
    ck_assert(!scenario_consumers_share_server_store(apart));
    Metrics two = test_run_mode(apart, MODE_IDEMPOTENT, apart->seed);
    ck_assert_uint_eq(two.orders_fulfilled_twice, two.operations / 2);
    free(apart);
    free(shared);
}
END_TEST

/* A store the consumers share is nobody's own: neither a server's crash nor a consumer's
 * wipes it, durable or not. */
START_TEST(test_no_crash_wipes_a_store_both_share)
{
    const char *not_durable[] = {"services.orders-shipped.durable=false"};
    Scenario *shared = test_load_source_file(TWO_PATHS, not_durable, 1);
    ck_assert(scenario_server_store_outlives_crash(shared, 0));
    ck_assert(scenario_consumers_store_outlives_crash(shared));
    Scenario *apart = test_load(with_own_store(), not_durable, 1);
    ck_assert(!scenario_server_store_outlives_crash(apart, 0));
    free(apart);
    free(shared);
}
END_TEST

/* The run's table widens its label column for a long service id rather than cut it short:
 * every row of a long name says its whole name and metric, and its numbers stay under their
 * mode's heading. */
START_TEST(test_the_table_keeps_a_long_service_name_whole)
{
    static char text[65536];
    const char *source = read_source_file(TWO_PATHS);
    const char *long_id = "fulfilment-shipping-workers";
    size_t used = 0;
    for (const char *at = source; *at != '\0';) {
        if (strncmp(at, "shippers", 8) == 0) {
            used += (size_t)snprintf(text + used, sizeof text - used, "%s", long_id);
            at += 8;
        } else {
            text[used++] = *at++;
        }
    }
    text[used] = '\0';
    Scenario *scenario = test_load(text, NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    char *table = NULL;
    test_table_of(scenario, &metrics, MODE_IDEMPOTENT, &table);
    const char *row = strstr(table, "  fulfilment-shipping-workers: replayed ");
    ck_assert_ptr_nonnull(row);
    const char *rule = strstr(table, "\n---");
    ck_assert_ptr_nonnull(rule);
    size_t rule_length = strcspn(rule + 1, "\n");
    ck_assert_uint_eq(strcspn(row, "\n"), rule_length);
    const char *operations = strstr(table, "\noperations ");
    ck_assert_ptr_nonnull(operations);
    ck_assert_uint_eq(strcspn(operations + 1, "\n"), rule_length);
    free(table);
    free(scenario);
}
END_TEST

/* The warnings at the shared store's entry, as scenario_inert_warnings gives them. */
static unsigned warnings_at(const char *const *sets, unsigned set_count, const char *path,
                            const char *words)
{
    Scenario *scenario = test_load_source_file(TWO_PATHS, sets, set_count);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    scenario_inert_warnings(scenario, warnings);
    unsigned found = 0;
    for (uint32_t i = 0; i < warnings->count; i++)
        found += strcmp(warnings->items[i].path, path) == 0 &&
                 strstr(warnings->items[i].message, words) != NULL;
    free(warnings);
    free(scenario);
    return found;
}

/* The shared store is judged once, with the server: an idle field is warned once, and
 * `durable` says why it does nothing (no crash of either user wipes the store), whoever
 * crashes. */
START_TEST(test_a_shared_store_is_warned_about_once)
{
    const char *race[] = {"services.orders-shipped.race_window_ms=50"};
    ck_assert_uint_eq(warnings_at(race, 1, "$.services[1].race_window_ms", "has no effect"), 1);
    const char *durable[] = {"services.orders-shipped.durable=false",
                             "services.fulfilment-api.crash={\"point\": \"after-effect\","
                             " \"prob\": 0.05}",
                             "services.shippers.crash={\"point\": \"after-effect\","
                             " \"prob\": 0.05}"};
    ck_assert_uint_eq(warnings_at(durable, 3, "$.services[1].durable", "shares this store"), 1);
    ck_assert_uint_eq(warnings_at(durable, 3, "$.services[1].durable", "has no effect"), 1);
}
END_TEST

/* ------------------------------------------------------------------ the loader */

/* The shared store has the server's fields (the consumers key on the message id, which a
 * group keying by a business hash publishes), and what is a server's store alone is refused
 * at the consumers' key_store, saying why. */
START_TEST(test_what_a_shared_store_cannot_be_is_refused)
{
    const char *text = read_source_file(TWO_PATHS);
    const char *key[] = {"services.orders-shipped.key=\"business-hash\""};
    test_assert_refused(text, key, 1, "$.services[1].key", "expected no 'key' for the server");
    const char *apart[] = {"services.orders-shipped.placement=\"per-instance\"",
                           "services.fulfilment-api.instances=2"};
    test_assert_refused(text, apart, 2, "$.services[3].key_store", "is per-instance");
    const char *crash[] = {
        "services.orders-shipped.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 1000}}"};
    test_assert_refused(text, crash, 1, "$.services[3].key_store", "crashes on its own");
}
END_TEST

/* Show names the server's store in the consumers' entry and writes the store once; the
 * text it writes loads back to the same scenario. */
START_TEST(test_show_writes_the_shared_store_once)
{
    Scenario *scenario = test_load_source_file(TWO_PATHS, NULL, 0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    unsigned stores = 0;
    for (const char *at = shown; (at = strstr(at, "\"kind\": \"key_store\"")) != NULL; at++)
        stores++;
    ck_assert_uint_eq(stores, 1);
    ck_assert(scenario_consumers_share_server_store(again));
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

/* A store without an entry of its own (here the unused server's) is named after its owner,
 * "server-keys", unless the file gives that id to another store: show then names it
 * "server-keys-2", and its text loads again. */
START_TEST(test_show_names_an_unnamed_store_apart_from_the_files_ids)
{
    const char *text = "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
                       " \"services\": [{\"id\": \"q\", \"kind\": \"broker\"},"
                       "  {\"id\": \"w\", \"kind\": \"consumers\", \"consumes\": \"q\","
                       "   \"key_store\": \"server-keys\"},"
                       "  {\"id\": \"server-keys\", \"kind\": \"key_store\"}],"
                       " \"clients\": [{\"id\": \"c\", \"publishes\": \"q\"}]}";
    Scenario *scenario = test_load(text, NULL, 0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"id\": \"server-keys-2\""));
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("consumers_shared_store");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_one_store_for_both_paths_ships_each_order_once);
    tcase_add_test(model, test_no_crash_wipes_a_store_both_share);
    tcase_add_test(model, test_the_table_keeps_a_long_service_name_whole);
    tcase_add_test(model, test_a_shared_store_is_warned_about_once);
    suite_add_tcase(suite, model);
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_what_a_shared_store_cannot_be_is_refused);
    tcase_add_test(loader, test_show_writes_the_shared_store_once);
    tcase_add_test(loader, test_show_names_an_unnamed_store_apart_from_the_files_ids);
    suite_add_tcase(suite, loader);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
