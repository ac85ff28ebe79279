/* Several proxies (issue 21): the web goes through an edge proxy that does not retry, the
 * mobile app through a mesh that retries twice; both call one checkout. Each proxy is a node
 * with its own policy, and each group's requests go through the proxy its `calls` names. The
 * checkout takes 0.5 s to answer and the mesh waits 0.3 s a try, so every mesh try times out
 * and is sent again: the checkout runs each mobile payment three times, each web one once. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define MESH_TRIES 3
#define WEB_PAYMENTS 40
#define MOBILE_PAYMENTS 40

#define PROXIES(mesh_fields)                                                                       \
    "{\"seed\": 3, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"edge\", \"kind\": \"proxy\", \"calls\": \"checkout\", \"retries\": 0,"          \
    "    \"per_try_timeout_ms\": 5000},"                                                           \
    "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"checkout\", \"retries\": 2,"          \
    "    \"per_try_timeout_ms\": 300" mesh_fields "},"                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","            \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 500}},"                  \
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"}],"                                    \
    " \"clients\": ["                                                                              \
    "   {\"id\": \"web\", \"count\": 4, \"calls\": \"edge\","                                      \
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                   \
    "    \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                     \
    "    \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 1}},"                                \
    "   {\"id\": \"mobile\", \"count\": 4, \"calls\": \"mesh\","                                   \
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                   \
    "    \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                     \
    "    \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 1}}],"                               \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

/* Each group's requests take its own proxy's policy: the edge sends each web payment once,
 * the mesh each mobile one three times, every try charging (no keys at-least-once). */
START_TEST(test_each_group_goes_through_its_own_proxy)
{
    Metrics least = test_run_text(PROXIES(""), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(least.operations, WEB_PAYMENTS + MOBILE_PAYMENTS);
    ck_assert_double_eq(test_service_value(&least, "edge", "received"), WEB_PAYMENTS);
    ck_assert_double_eq(test_service_value(&least, "edge", "retries"), 0);
    ck_assert_double_eq(test_service_value(&least, "mesh", "received"), MOBILE_PAYMENTS);
    ck_assert_double_eq(test_service_value(&least, "mesh", "retries"),
                        MOBILE_PAYMENTS * (MESH_TRIES - 1));
    ck_assert_uint_eq(least.effects, WEB_PAYMENTS + MOBILE_PAYMENTS * MESH_TRIES);
    ck_assert_uint_eq(least.proxy_retries, MOBILE_PAYMENTS * (MESH_TRIES - 1));
    ck_assert_uint_eq(least.proxy_timeouts, MOBILE_PAYMENTS * MESH_TRIES);
}
END_TEST

/* Each proxy forwards the key by its own field: with the mesh passing the app's key on, the
 * checkout's store answers its second try 409 while the first runs (the mesh passes the 409
 * on: it retries timeouts and 5xx), and each payment runs once; with the mesh dropping it,
 * every mesh try runs, while the edge's keyed web payments run once either way. */
START_TEST(test_each_proxy_forwards_the_key_by_its_own_field)
{
    Metrics forwarded = test_run_text(PROXIES(""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(forwarded.effects, WEB_PAYMENTS + MOBILE_PAYMENTS);
    ck_assert_double_eq(test_service_value(&forwarded, "checkout", "refused"), MOBILE_PAYMENTS);
    Metrics dropped = test_run_text(PROXIES(", \"forwards_key\": false"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(dropped.effects, WEB_PAYMENTS + MOBILE_PAYMENTS * MESH_TRIES);
    ck_assert_uint_eq(dropped.groups[0].outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(dropped.groups[1].outcomes[OUTCOME_DOUBLE], MOBILE_PAYMENTS);
}
END_TEST

/* Every proxy is drawn in the proxies' lane, before the checkout, in node order. */
START_TEST(test_the_proxies_share_a_lane_before_the_server)
{
    Metrics least = test_run_text(PROXIES(""), MODE_AT_LEAST_ONCE);
    uint32_t order[SERVICE_METRICS_MAX];
    uint32_t shown = metrics_services_in_lane_order(&least, order);
    const char *expected[] = {"edge", "mesh", "checkout"};
    ck_assert_uint_eq(shown, 3);
    for (uint32_t i = 0; i < shown; i++)
        ck_assert_str_eq(least.services[order[i]].name, expected[i]);
    ck_assert_uint_eq(least.services[order[0]].lane, least.services[order[1]].lane);
}
END_TEST

/* The first proxy's second instance is a node appended after the mesh's: the table, the
 * JSON and the CSV still list the edge's instances side by side, each followed once by the
 * edge's own line (a service seen again after another's nodes was written twice: a JSON
 * object with two "edge" members). */
START_TEST(test_a_proxys_instances_stand_together)
{
    const char *const two_edges[] = {"services.edge.instances=2"};
    Metrics least = test_run_json(PROXIES(""), two_edges, 1, MODE_AT_LEAST_ONCE);
    uint32_t order[SERVICE_METRICS_MAX];
    uint32_t shown = metrics_services_in_lane_order(&least, order);
    const char *expected[] = {"edge#1", "edge#2", "mesh", "checkout"};
    ck_assert_uint_eq(shown, 4);
    uint32_t service_lines = 0;
    for (uint32_t i = 0; i < shown; i++) {
        ck_assert_str_eq(least.services[order[i]].name, expected[i]);
        service_lines += metrics_service_ends_instances(&least, order, shown, i);
    }
    ck_assert_uint_eq(service_lines, 1);
    ck_assert(metrics_service_ends_instances(&least, order, shown, 1));
}
END_TEST

/* ------------------------------------------------------------------ the loader */

/* A proxy no group calls is refused, an extra one as the first; so is a fifth proxy. */
START_TEST(test_every_proxy_is_called_by_a_group)
{
    const char *unused = "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
                         " \"services\": ["
                         "   {\"id\": \"edge\", \"kind\": \"proxy\", \"calls\": \"checkout\"},"
                         "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"checkout\"},"
                         "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"k\"},"
                         "   {\"id\": \"k\", \"kind\": \"key_store\"}],"
                         " \"clients\": [{\"id\": \"web\", \"calls\": \"edge\"}]}";
    test_assert_refused(unused, NULL, 0, "$.services[1]",
                        "expected a client group that calls proxy 'mesh'");
    char json[4096];
    int used = snprintf(json, sizeof json,
                        "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
                        " \"services\": [{\"id\": \"checkout\", \"kind\": \"server\","
                        " \"key_store\": \"k\"}, {\"id\": \"k\", \"kind\": \"key_store\"}");
    for (int p = 0; p < 5; p++)
        used += snprintf(json + used, sizeof json - (size_t)used,
                         ", {\"id\": \"p%d\", \"kind\": \"proxy\", \"calls\": \"checkout\"}", p);
    snprintf(json + used, sizeof json - (size_t)used,
             "], \"clients\": [{\"id\": \"web\", \"calls\": \"p0\"}]}");
    test_assert_refused(json, NULL, 0, "$.services[6].kind",
                        "expected at most 3 proxies after the first");
    /* the proxies' instances beyond one each, 7 in all: said at the proxy that passes it */
    const char *too_many[] = {"services.edge.instances=4", "services.mesh.instances=6"};
    test_assert_refused(PROXIES(""), too_many, 2, "$.services[1].instances",
                        "expected at most 5 (the proxies' instances beyond one each are at most 7 "
                        "in all; the proxies before it take 3)");
    const char *room[] = {"services.edge.instances=4", "services.mesh.instances=5"};
    free(test_load(PROXIES(""), room, 2));
}
END_TEST

/* A group's calls that names no service lists the ways in, the extra proxies among them,
 * and a misspelled extra proxy is recognised. */
START_TEST(test_an_unknown_call_lists_every_proxy)
{
    char json[8192];
    snprintf(json, sizeof json, "%s", PROXIES(""));
    char *mobile = strstr(json, "\"calls\": \"mesh\"");
    ck_assert_ptr_nonnull(mobile);
    memcpy(mobile + strlen("\"calls\": \""), "mseh", 4);
    test_assert_refused(json, NULL, 0, "$.clients[1].calls", "did you mean 'mesh'?");
    memcpy(mobile + strlen("\"calls\": \""), "nope", 4);
    test_assert_refused(json, NULL, 0, "$.clients[1].calls", "(known: 'checkout', 'edge', 'mesh')");
}
END_TEST

/* Show writes each proxy in its place with the groups that call it, and reads back. */
START_TEST(test_show_keeps_each_proxy)
{
    Scenario *scenario = test_load(PROXIES(", \"forwards_key\": false"), NULL, 0);
    ck_assert_uint_eq(scenario->extra_proxy_count, 1);
    ck_assert_str_eq(scenario->extra_proxies[0].id, "mesh");
    ck_assert_uint_eq(scenario->client_groups[0].proxy, 0);
    ck_assert_uint_eq(scenario->client_groups[1].proxy, 1);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"calls\": \"mesh\""));
    ck_assert_uint_eq(again->client_groups[1].proxy, 1);
    ck_assert(!again->extra_proxies[0].spec.forwards_key);
    ck_assert(again->proxy.forwards_key);
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("extra_proxies");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_each_group_goes_through_its_own_proxy);
    tcase_add_test(model, test_each_proxy_forwards_the_key_by_its_own_field);
    tcase_add_test(model, test_the_proxies_share_a_lane_before_the_server);
    tcase_add_test(model, test_a_proxys_instances_stand_together);
    suite_add_tcase(suite, model);
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_every_proxy_is_called_by_a_group);
    tcase_add_test(loader, test_show_keeps_each_proxy);
    tcase_add_test(loader, test_an_unknown_call_lists_every_proxy);
    suite_add_tcase(suite, loader);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
