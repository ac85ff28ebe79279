/* The services form (issue 21, first step): a world written as named services loads into the
 * same model as the older form, its ids name the nodes, and `show` writes a scenario back in
 * that form so that it loads to the same world. The bad-input corpus (services_*.json in
 * tests/bad_scenarios) holds the refusals; tests/show_round_trip.sh runs the library. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "scenario_inert.h"
#include "test_world.h"
#include "world.h"

/* The same world twice: a proxy that retries in front of a server charging through a
 * gateway, with a link override, in each form. */
static const char older_form[] =
    "{\"seed\": 5, \"duration_ms\": 8000,"
    " \"accounts\": [{\"id\": \"alice\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 12, \"via\": \"proxy\","
    "   \"workload\": {\"ops\": 4, \"interval_ms\": 200}, \"retry\": {\"timeout_ms\": 900}}],"
    " \"proxy\": {\"retries\": 2, \"per_try_timeout_ms\": 300},"
    " \"server\": {\"workers\": 3, \"use_gateway\": true,"
    "   \"idempotency\": {\"ttl_ms\": 5000, \"on_failure\": \"delete\"}},"
    " \"gateway\": {\"honours_key\": true, \"timeout\": 0.1},"
    " \"network\": {\"default\": {\"loss\": 0.05},"
    "   \"links\": {\"server->gateway\": {\"loss\": 0.1}}}}";

static const char services_form[] =
    "{\"seed\": 5, \"duration_ms\": 8000,"
    " \"accounts\": [{\"id\": \"alice\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"proxy\", \"kind\": \"proxy\", \"calls\": \"server\", \"retries\": 2,"
    "    \"per_try_timeout_ms\": 300},"
    "   {\"id\": \"server\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 3,"
    "    \"steps\": [{\"call\": \"gateway\"}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\", \"ttl_ms\": 5000, \"on_failure\": \"delete\"},"
    "   {\"id\": \"gateway\", \"kind\": \"gateway\", \"honours_key\": true, \"timeout\": 0.1}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 12, \"calls\": \"proxy\","
    "   \"workload\": {\"ops\": 4, \"interval_ms\": 200}, \"retry\": {\"timeout_ms\": 900}}],"
    " \"network\": {\"default\": {\"loss\": 0.05},"
    "   \"links\": {\"server->gateway\": {\"loss\": 0.1}}}}";

/* Ids name the services' counters and nothing else: the counters themselves compare. */
static void forget_service_names(Metrics *metrics)
{
    for (uint32_t i = 0; i < metrics->service_count; i++) {
        memset(metrics->services[i].name, 0, sizeof metrics->services[i].name);
        memset(metrics->services[i].service, 0, sizeof metrics->services[i].service);
    }
}

static void assert_same_metrics(const Scenario *a, const Scenario *b)
{
    for (Mode mode = 0; mode < MODE_COUNT; mode++) {
        Metrics first = test_run_mode(a, mode, a->seed);
        Metrics second = test_run_mode(b, mode, b->seed);
        forget_service_names(&first);
        forget_service_names(&second);
        ck_assert_uint_eq(first.events, second.events);
        ck_assert_msg(memcmp(&first, &second, sizeof first) == 0, "metrics differ in mode %s",
                      mode_name(mode));
    }
}

static void assert_same_text(const Scenario *a, const Scenario *b)
{
    char *first = scenario_show(a);
    char *second = scenario_show(b);
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_nonnull(second);
    ck_assert_str_eq(first, second);
    free(first);
    free(second);
}

START_TEST(test_both_forms_load_the_same_world)
{
    Scenario *older = test_load(older_form, NULL, 0);
    Scenario *services = test_load(services_form, NULL, 0);
    ck_assert(older->client_groups[0].via == VIA_PROXY);
    ck_assert(services->client_groups[0].via == VIA_PROXY);
    ck_assert(services->client_groups[0].target == TARGET_SERVER);
    ck_assert_double_eq(services->server.idempotency.ttl_ms, 5000);
    ck_assert_str_eq(services->server.idempotency.store_id, "keys");
    /* show writes every field: equal texts are equal scenarios (a memcmp would also compare
     * padding). The store's name is the only difference, and a run cannot see it. */
    snprintf(older->server.idempotency.store_id, NAME_LEN_MAX, "keys");
    assert_same_text(older, services);
    assert_same_metrics(older, services);
    free(older);
    free(services);
}
END_TEST

/* Renaming every service changes names only: the same draws, the same numbers. */
START_TEST(test_ids_name_the_nodes_and_change_nothing_else)
{
    static const char *const renames[][2] = {
        {"\"proxy\", \"kind\"", "\"mesh\", \"kind\""},
        {"\"calls\": \"proxy\"", "\"calls\": \"mesh\""},
        {"\"server\", \"kind\"", "\"checkout\", \"kind\""},
        {"\"calls\": \"server\"", "\"calls\": \"checkout\""},
        {"\"gateway\", \"kind\"", "\"stripe\", \"kind\""},
        {"\"call\": \"gateway\"", "\"call\": \"stripe\""},
        {"server->gateway", "checkout->stripe"},
    };
    char renamed[sizeof services_form + 256];
    snprintf(renamed, sizeof renamed, "%s", services_form);
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++) {
        char *at = strstr(renamed, renames[i][0]);
        ck_assert_msg(at != NULL, "%s", renames[i][0]);
        char rest[sizeof renamed];
        snprintf(rest, sizeof rest, "%s", at + strlen(renames[i][0]));
        snprintf(at, sizeof renamed - (size_t)(at - renamed), "%s%s", renames[i][1], rest);
    }
    Scenario *plain = test_load(services_form, NULL, 0);
    Scenario *named = test_load(renamed, NULL, 0);
    ck_assert_str_eq(scenario_service_id(named, NODE_SERVER), "checkout");
    ck_assert_str_eq(scenario_service_id(named, NODE_PROXY), "mesh");
    ck_assert_str_eq(scenario_service_id(named, NODE_GATEWAY), "stripe");
    ck_assert_str_eq(scenario_service_id(named, NODE_BROKER), "broker"); /* undeclared */
    ck_assert_str_eq(named->network.links[0].source, "checkout");
    World *world =
        world_create(named, MODE_IDEMPOTENT, named->seed, (TraceSink){0}, (WorldLimits){0});
    ck_assert_str_eq(world_node_name(world, world_node_of_kind(world, NODE_SERVER)), "checkout");
    ck_assert_str_eq(world_node_name(world, world_node_of_kind(world, NODE_GATEWAY)), "stripe");
    world_destroy(world);
    assert_same_metrics(plain, named);
    free(plain);
    free(named);
}
END_TEST

/* show writes what the loader reads back to the same scenario, for both forms. */
START_TEST(test_show_loads_back_to_the_same_scenario)
{
    const char *const forms[] = {older_form, services_form};
    for (size_t i = 0; i < 2; i++) {
        Scenario *scenario = test_load(forms[i], NULL, 0);
        char *text = scenario_show(scenario);
        ck_assert_ptr_nonnull(text);
        ck_assert_ptr_nonnull(strstr(text, "\"services\": ["));
        ck_assert_ptr_null(strstr(text, "\"target\""));
        Scenario *shown = test_load(text, NULL, 0);
        /* the older form's store has no name; show calls it after its owner */
        ck_assert_str_eq(shown->server.idempotency.store_id, i == 0 ? "server-keys" : "keys");
        ck_assert_int_eq(shown->proxy.retries, 2);
        ck_assert_double_eq(shown->network.links[0].spec.loss.probability, 0.1);
        char *again = scenario_show(shown);
        ck_assert_str_eq(text, again); /* a fixed point */
        free(again);
        assert_same_metrics(scenario, shown);
        free(text);
        free(shown);
        free(scenario);
    }
}
END_TEST

/* show writes each service in its kind's place (proxy, server, gateway, broker, consumers),
 * each with what it names and its key store right after it, whatever order the file used. */
START_TEST(test_show_writes_services_in_their_kinds_order)
{
    static const char json[] =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
        " \"services\": ["
        "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","
        "    \"key_store\": \"inbox\"},"
        "   {\"id\": \"inbox\", \"kind\": \"key_store\"},"
        "   {\"id\": \"psp\", \"kind\": \"gateway\"},"
        "   {\"id\": \"orders\", \"kind\": \"broker\"},"
        "   {\"id\": \"api\", \"kind\": \"server\", \"key_store\": \"api-keys\","
        "    \"steps\": [{\"call\": \"psp\"}, {\"publish\": \"orders\"}]},"
        "   {\"id\": \"api-keys\", \"kind\": \"key_store\"},"
        "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"api\"}],"
        " \"clients\": [{\"id\": \"shop\", \"calls\": \"mesh\"}]}";
    Scenario *scenario = test_load(json, NULL, 0);
    char *text = scenario_show(scenario);
    ck_assert_ptr_nonnull(text);
    const char *const in_order[] = {
        "\"id\": \"mesh\",",           "\"calls\": \"api\"",    "\"id\": \"api\",",
        "\"key_store\": \"api-keys\"", "\"id\": \"api-keys\",", "\"id\": \"psp\",",
        "\"id\": \"orders\",",         "\"id\": \"charger\",",  "\"consumes\": \"orders\"",
        "\"key_store\": \"inbox\"",    "\"id\": \"inbox\",",
    };
    const char *at = text;
    for (size_t i = 0; i < sizeof in_order / sizeof in_order[0]; i++) {
        const char *found = strstr(at, in_order[i]);
        ck_assert_msg(found != NULL, "%s missing, or before %s", in_order[i],
                      i > 0 ? in_order[i - 1] : "the services");
        at = found;
    }
    free(text);
    free(scenario);
}
END_TEST

/* A publisher to a renamed broker, consumed by renamed consumers with their own store. */
START_TEST(test_publishes_and_consumes_by_id)
{
    static const char json[] =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
        " \"services\": ["
        "   {\"id\": \"api\", \"kind\": \"server\", \"key_store\": \"api-keys\"},"
        "   {\"id\": \"api-keys\", \"kind\": \"key_store\"},"
        "   {\"id\": \"orders\", \"kind\": \"broker\", \"ack_timeout_ms\": 2000,"
        "    \"queues\": [{\"name\": \"pay\"}, {\"name\": \"refund\"}]},"
        "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","
        "    \"key_store\": \"inbox\", \"workers\": 2},"
        "   {\"id\": \"inbox\", \"kind\": \"key_store\", \"key\": \"business-hash\"}],"
        " \"clients\": [{\"id\": \"shop\", \"publishes\": \"orders\", \"queue\": \"refund\"}]}";
    Scenario *scenario = test_load(json, NULL, 0);
    ck_assert(scenario->client_groups[0].target == TARGET_BROKER);
    ck_assert_uint_eq(scenario->client_groups[0].queue, 1);
    ck_assert_uint_eq(scenario->broker.consumers.workers, 2);
    ck_assert(scenario->broker.consumers.idempotency.key == KEY_BUSINESS_HASH);
    ck_assert_str_eq(scenario_service_id(scenario, NODE_CONSUMERS), "charger");
    Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, 1);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], 1);
    free(scenario);
}
END_TEST

/* --set names a service by its id, and the older objects' paths reach the service of their
 * kind, so a lesson's hints work on what show prints. */
START_TEST(test_set_names_services_by_id_and_by_the_older_paths)
{
    const char *const by_id[] = {"services.server.workers=7", "services.keys.ttl_ms=900",
                                 "clients.app.count=3", "services.proxy.retries=1"};
    Scenario *scenario = test_load(services_form, by_id, 4);
    ck_assert_uint_eq(scenario->server.workers, 7);
    ck_assert_double_eq(scenario->server.idempotency.ttl_ms, 900);
    ck_assert_uint_eq(scenario->client_groups[0].count, 3);
    ck_assert_uint_eq(scenario->proxy.retries, 1);
    free(scenario);
    const char *const older[] = {"server.workers=7", "server.idempotency.ttl_ms=900",
                                 "proxy.retries=1", "gateway.honours_key=false"};
    scenario = test_load(services_form, older, 4);
    ck_assert_uint_eq(scenario->server.workers, 7);
    ck_assert_double_eq(scenario->server.idempotency.ttl_ms, 900);
    ck_assert_uint_eq(scenario->proxy.retries, 1);
    ck_assert(!scenario->gateway.honours_key);
    free(scenario);
}
END_TEST

START_TEST(test_a_set_by_id_is_blamed_for_its_errors)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    const char *const bad[] = {"server.idempotency.ttl_ms=-1"};
    ck_assert(!scenario_load_text(services_form, strlen(services_form), bad, 1, scenario, &errors));
    ck_assert_uint_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].path, "$.services[2].ttl_ms");
    ck_assert_str_eq(errors.items[0].from_set, "'server.idempotency.ttl_ms=-1'");
    LoadErrors unknown = {0};
    const char *const missing[] = {"services.stripe.timeout=0.5"};
    ck_assert(
        !scenario_load_text(services_form, strlen(services_form), missing, 1, scenario, &unknown));
    ck_assert_ptr_nonnull(strstr(unknown.items[0].message, "no element with id 'stripe'"));
    ck_assert_ptr_nonnull(strstr(unknown.items[0].message, "'gateway'"));
    free(scenario);
}
END_TEST

/* Steps set what the older switches set: a call through the outbox with reconciliation,
 * then receipts published through the outbox to a named queue. */
START_TEST(test_steps_set_the_handler_of_the_older_switches)
{
    static const char json[] =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
        " \"services\": ["
        "   {\"id\": \"api\", \"kind\": \"server\", \"key_store\": \"keys\", \"steps\": ["
        "     {\"call\": \"psp\", \"via\": \"outbox\", \"reconcile_ms\": 250},"
        "     {\"publish\": \"events\", \"via\": \"outbox\", \"queue\": \"receipts\"}]},"
        "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
        "   {\"id\": \"psp\", \"kind\": \"gateway\"},"
        "   {\"id\": \"events\", \"kind\": \"broker\","
        "    \"queues\": [{\"name\": \"orders\"}, {\"name\": \"receipts\"}]},"
        "   {\"id\": \"mailer\", \"kind\": \"consumers\", \"consumes\": \"events\","
        "    \"key_store\": \"sent\"},"
        "   {\"id\": \"sent\", \"kind\": \"key_store\"}],"
        " \"clients\": [{\"id\": \"shop\", \"calls\": \"api\"}]}";
    Scenario *scenario = test_load(json, NULL, 0);
    const ServerSpec *server = &scenario->server;
    ck_assert(server->use_gateway && server->outbox);
    ck_assert_double_eq(server->reconcile_ms, 250);
    ck_assert(server->publish_receipts && server->receipts_via == RECEIPTS_OUTBOX);
    ck_assert_uint_eq(server->receipts_queue, 1);
    ck_assert(!scenario->broker.consumers.use_gateway);
    char *text = scenario_show(scenario);
    ck_assert_ptr_nonnull(strstr(text, "\"call\": \"psp\","));
    ck_assert_ptr_nonnull(strstr(text, "\"via\": \"outbox\","));
    ck_assert_ptr_nonnull(strstr(text, "\"reconcile_ms\": 250,"));
    ck_assert_ptr_nonnull(strstr(text, "\"retry\": {\"max_attempts\": 1, \"backoff_ms\": 0},"));
    ck_assert_ptr_nonnull(strstr(text, "\"key\": \"forward\""));
    ck_assert_ptr_nonnull(strstr(text, "{\"publish\": \"events\", \"via\": \"outbox\", "
                                       "\"queue\": \"receipts\"}"));
    ck_assert_ptr_null(strstr(text, "use_gateway"));
    Scenario *shown = test_load(text, NULL, 0);
    assert_same_text(scenario, shown);
    assert_same_metrics(scenario, shown);
    free(text);
    free(shown);
    free(scenario);
}
END_TEST

/* A warning names the field where the file wrote it: in the services form, the entry. */
START_TEST(test_warnings_name_the_entry_in_the_services_form)
{
    const char *json = "{\"accounts\": [{\"id\": \"a\", \"balance\": 100}],"
                       " \"services\": ["
                       "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\"},"
                       "   {\"id\": \"keys\", \"kind\": \"key_store\", \"race_window_ms\": 5}],"
                       " \"clients\": [{\"id\": \"app\", \"calls\": \"checkout\"}]}";
    const char *older = "{\"accounts\": [{\"id\": \"a\", \"balance\": 100}],"
                        " \"server\": {\"idempotency\": {\"race_window_ms\": 5}},"
                        " \"clients\": [{\"id\": \"app\"}]}";
    const char *const expected[] = {"$.services[1].race_window_ms",
                                    "$.server.idempotency.race_window_ms"};
    const char *const texts[] = {json, older};
    for (int i = 0; i < 2; i++) {
        Scenario *scenario = test_load(texts[i], NULL, 0);
        LoadErrors warnings = {0};
        scenario_inert_warnings(scenario, &warnings);
        ck_assert_uint_eq(warnings.count, 1);
        ck_assert_str_eq(warnings.items[0].path, expected[i]);
        free(scenario);
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("services");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_both_forms_load_the_same_world);
    tcase_add_test(core, test_warnings_name_the_entry_in_the_services_form);
    tcase_add_test(core, test_ids_name_the_nodes_and_change_nothing_else);
    tcase_add_test(core, test_show_loads_back_to_the_same_scenario);
    tcase_add_test(core, test_show_writes_services_in_their_kinds_order);
    tcase_add_test(core, test_publishes_and_consumes_by_id);
    tcase_add_test(core, test_set_names_services_by_id_and_by_the_older_paths);
    tcase_add_test(core, test_a_set_by_id_is_blamed_for_its_errors);
    tcase_add_test(core, test_steps_set_the_handler_of_the_older_switches);
    suite_add_tcase(suite, core);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
