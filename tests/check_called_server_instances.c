/* Instances of a called server (issue 21): payments, which checkout calls, runs several
 * instances behind its own balancer, each a Server of its own (workers, queue, counters),
 * sharing payments' store or each keeping its own (placement). Node ids of every existing
 * node stay as with one instance: the further instances are appended after every other node,
 * named "payments#2". The lesson is C26's, one tier down: a retry of checkout's call that the
 * balancer sends to another instance is recognised only by a store those instances share, or
 * by a balancer that sends every try of one key to one instance. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "scenario_inert.h"
#include "test_world.h"
#include "world.h"

#define CHECKOUT_TRIES 3
#define PAYMENTS 20 /* one client's, one at a time */
#define INSTANCES 3

/* payments takes 1 s and checkout waits 0.3 s per try: every try of every call times out,
 * so each call sends CHECKOUT_TRIES tries, the key forwarded; the app sends once. */
#define WORLD(payments_fields, store_fields)                                                       \
    "{\"seed\": 9, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","            \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                     \
    "    \"steps\": [{\"call\": \"payments\", \"timeout_ms\": 300,"                                \
    "                 \"retry\": {\"max_attempts\": 3}, \"key\": \"forward\"}]},"                  \
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"                                     \
    "   {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"payments-keys\","            \
    "    \"instances\": 3, \"workers\": 0,"                                                        \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1000}" payments_fields "},"              \
    "   {\"id\": \"payments-keys\", \"kind\": \"key_store\"" store_fields "}],"                    \
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"calls\": \"checkout\","                      \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 20, \"interval_ms\": 20000},"                                      \
    "   \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 1}, \"key\": \"per-click\"}],"        \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

#define PER_INSTANCE ", \"placement\": \"per-instance\""
#define KEY_HASH ", \"balancer\": \"key-hash\""

/* ------------------------------------------------------------------ nodes */

/* The nodes of one instance keep their ids; the further instances come after every other
 * node, as scenario_service_node_names lists them, each a Server with its own counters. */
START_TEST(test_further_instances_come_after_every_node)
{
    Scenario *one =
        test_load(WORLD("", ""), (const char *const[]){"services.payments.instances=1"}, 1);
    Scenario *three = test_load(WORLD("", ""), NULL, 0);
    World *a = world_create(one, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    World *b = world_create(three, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    uint32_t nodes = world_node_count(a);
    ck_assert_uint_eq(world_node_count(b), nodes + INSTANCES - 1);
    for (uint32_t n = 0; n < nodes; n++) {
        const char *name = world_node_name(a, n);
        const char *expected = strcmp(name, "payments") == 0 ? "payments#1" : name;
        ck_assert_str_eq(world_node_name(b, n), expected);
    }
    ck_assert_str_eq(world_node_name(b, nodes), "payments#2");
    ck_assert_str_eq(world_node_name(b, nodes + 1), "payments#3");
    char names[SCENARIO_NODES_MAX][NODE_NAME_LEN_MAX];
    unsigned count = scenario_service_node_names(three, names, SCENARIO_NODES_MAX);
    ck_assert_uint_eq(count, world_node_count(b) - three->client_group_count);
    for (unsigned i = 0; i < count; i++)
        ck_assert_str_eq(names[i], world_node_name(b, three->client_group_count + i));
    ck_assert(scenario_service_name_known(three, "payments"));
    ck_assert(scenario_service_name_known(three, "payments#3"));
    world_destroy(a);
    world_destroy(b);
    free(one);
    free(three);
}
END_TEST

/* ------------------------------------------------------------------ balancing */

/* Round-robin turns over every try the service receives: the first payment's tries go to
 * #1, #2, #3, and so does every later one's (three tries a payment). The instances' counters
 * add up to the service's. */
START_TEST(test_round_robin_spreads_the_tries)
{
    Metrics m = test_run_text(WORLD("", ""), MODE_IDEMPOTENT);
    const char *const instances[] = {"payments#1", "payments#2", "payments#3"};
    for (size_t i = 0; i < INSTANCES; i++)
        ck_assert_double_eq(test_service_value(&m, instances[i], "received"), PAYMENTS);
    ck_assert_double_eq(test_service_value(&m, "payments", "received"), PAYMENTS * CHECKOUT_TRIES);
}
END_TEST

/* The lesson: with the store shared by the instances, the later tries find the first one's
 * row (409) and each payment runs once; with a store in each instance, round-robin sends the
 * three tries to three stores that have never seen the key, and each payment runs three
 * times; key-hash sends every try of one key to one instance, whose store recognises it. */
START_TEST(test_a_store_per_instance_needs_a_balancer_by_key)
{
    Metrics shared = test_run_text(WORLD("", ""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(shared.effects, PAYMENTS);
    ck_assert_double_eq(test_service_value(&shared, "payments", "refused"),
                        PAYMENTS * (CHECKOUT_TRIES - 1));
    ck_assert_uint_eq(shared.outcomes[OUTCOME_DOUBLE], 0);

    Metrics apart = test_run_text(WORLD("", PER_INSTANCE), MODE_IDEMPOTENT);
    ck_assert_uint_eq(apart.effects, PAYMENTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(apart.outcomes[OUTCOME_DOUBLE], PAYMENTS);
    for (size_t i = 1; i <= INSTANCES; i++) {
        char name[32];
        snprintf(name, sizeof name, "payments#%zu", i);
        ck_assert_double_eq(test_service_value(&apart, name, "effects"), PAYMENTS);
    }

    Metrics hashed = test_run_text(WORLD(KEY_HASH, PER_INSTANCE), MODE_IDEMPOTENT);
    ck_assert_uint_eq(hashed.effects, PAYMENTS);
    ck_assert_uint_eq(hashed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_double_eq(test_service_value(&hashed, "payments", "refused"),
                        PAYMENTS * (CHECKOUT_TRIES - 1));
}
END_TEST

/* A call step's retry_host "other" (Envoy's previous_hosts on the caller's own retries):
 * each try of a call goes to an instance it has not tried. The key hash that sent all three
 * tries to the instance knowing the key now meets three stores that never saw it: each
 * payment runs three times, once on each instance. A store the instances share still
 * answers the later tries 409, so each runs once. */
#define CALL_ELSEWHERE                                                                             \
    "services.checkout.steps=[{\"call\": \"payments\", \"timeout_ms\": 300,"                       \
    " \"retry\": {\"max_attempts\": 3}, \"key\": \"forward\", \"retry_host\": \"other\"}]"
START_TEST(test_a_call_retried_elsewhere_misses_a_key_kept_per_instance)
{
    const char *const elsewhere[] = {CALL_ELSEWHERE};
    Metrics hashed = test_run_json(WORLD(KEY_HASH, PER_INSTANCE), elsewhere, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(hashed.effects, PAYMENTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(hashed.outcomes[OUTCOME_DOUBLE], PAYMENTS);
    for (size_t i = 1; i <= INSTANCES; i++) {
        char name[32];
        snprintf(name, sizeof name, "payments#%zu", i);
        ck_assert_double_eq(test_service_value(&hashed, name, "effects"), PAYMENTS);
    }
    Metrics shared = test_run_json(WORLD(KEY_HASH, ""), elsewhere, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(shared.effects, PAYMENTS);
    ck_assert_uint_eq(shared.outcomes[OUTCOME_DOUBLE], 0);
    /* show writes it, and the written file runs alike */
    Scenario *scenario = test_load(WORLD(KEY_HASH, PER_INSTANCE), elsewhere, 1);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"retry_host\": \"other\""));
    Metrics rerun = test_run_mode(again, MODE_IDEMPOTENT, again->seed);
    ck_assert_msg(memcmp(&rerun, &hashed, sizeof rerun) == 0, "the shown scenario runs otherwise");
    free(shown);
    free(again);
    free(scenario);
}
END_TEST

/* The same for a consumer group's call: the workers take each order from a queue and call
 * payments, whose three tries of one delivery meet three instances with retry_host "other",
 * one instance (the key's) without: each order charged once on every instance, or once in
 * all. (The delivery whose tries all went unanswered comes back, and its new tries find the
 * key at the instances that ran it.) */
#define WORKERS_WORLD(step_extra)                                                                  \
    "{\"seed\": 9, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"ack_timeout_ms\": 60000},"                    \
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                  \
    "    \"key_store\": \"worker-keys\","                                                          \
    "    \"steps\": [{\"call\": \"payments\", \"timeout_ms\": 300,"                                \
    "                 \"retry\": {\"max_attempts\": 3}, \"key\": \"forward\"" step_extra "}]},"    \
    "   {\"id\": \"worker-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"},"              \
    "   {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"payments-keys\","            \
    "    \"instances\": 3, \"workers\": 0, \"balancer\": \"key-hash\","                            \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1000}},"                                 \
    "   {\"id\": \"payments-keys\", \"kind\": \"key_store\", \"placement\": \"per-instance\"}],"   \
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"publishes\": \"orders\","                    \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 20, \"interval_ms\": 20000}, \"key\": \"message-id\"}],"           \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"
START_TEST(test_a_consumer_groups_call_retried_elsewhere_meets_every_instance)
{
    Metrics same = test_run_text(WORKERS_WORLD(""), MODE_IDEMPOTENT);
    Metrics elsewhere =
        test_run_text(WORKERS_WORLD(", \"retry_host\": \"other\""), MODE_IDEMPOTENT);
    ck_assert_uint_eq(same.effects, PAYMENTS);
    ck_assert_uint_eq(elsewhere.effects, PAYMENTS * CHECKOUT_TRIES);
    for (size_t i = 1; i <= INSTANCES; i++) {
        char name[32];
        snprintf(name, sizeof name, "payments#%zu", i);
        ck_assert_double_eq(test_service_value(&elsewhere, name, "effects"), PAYMENTS);
    }
}
END_TEST

/* Whether loading WORLD with sets warns at checkout's call step's retry_host. */
static bool warns_retry_host(const char *const *sets, uint32_t count)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors warnings = {0};
    const char *text = WORLD("", "");
    ck_assert(scenario_load_text(text, strlen(text), sets, count, scenario, &warnings));
    warnings.count = 0;
    scenario_inert_warnings(scenario, &warnings);
    bool found = false;
    for (uint32_t i = 0; i < warnings.count; i++)
        found |= strcmp(warnings.items[i].path, "$.services[0].steps[0].retry_host") == 0;
    free(scenario);
    return found;
}

/* retry_host picks among the callee's instances on a retry: warned with one instance and
 * with no retry, not where a retry has instances to choose from. */
START_TEST(test_a_calls_retry_host_is_warned_where_no_retry_can_choose)
{
    const char *const live[] = {CALL_ELSEWHERE};
    const char *const one[] = {CALL_ELSEWHERE, "services.payments.instances=1"};
    const char *const no_retry[] = {CALL_ELSEWHERE,
                                    "services.checkout.steps[0].retry.max_attempts=1"};
    ck_assert(!warns_retry_host(live, 1));
    ck_assert(warns_retry_host(one, 2));
    ck_assert(warns_retry_host(no_retry, 2));
}
END_TEST

/* ------------------------------------------------------------------ loading and show */

/* The instances of every server beyond one each are at most SERVER_INSTANCES_EXTRA_MAX in
 * all: said at the called server's instances that would pass it. A balancer on one instance
 * and a balancer_retry (no instance of a called server is ever down) are warned about. */
START_TEST(test_the_instances_in_all_are_bounded)
{
    const char *const seven[] = {"services.checkout.instances=7"};
    test_assert_refused(WORLD("", ""), seven, 1, "$.services[2].instances", "expected at most 2");
    const char *const six[] = {"services.checkout.instances=6"};
    Scenario *fits = test_load(WORLD("", ""), six, 1);
    free(fits);

    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors warnings = {0};
    const char *const one[] = {"services.payments.instances=1"};
    const char *text =
        WORLD(", \"balancer_retry\": \"connect-failure\", \"balancer\": \"random\"", "");
    ck_assert(scenario_load_text(text, strlen(text), one, 1, scenario, &warnings));
    warnings.count = 0;
    scenario_inert_warnings(scenario, &warnings);
    bool balancer = false, retry = false;
    for (uint32_t i = 0; i < warnings.count; i++) {
        balancer |= strcmp(warnings.items[i].path, "$.services[2].balancer") == 0;
        retry |= strcmp(warnings.items[i].path, "$.services[2].balancer_retry") == 0;
    }
    ck_assert(balancer && retry);
    free(scenario);

    /* with an outage the instances are down, but all at once: no other is up to send to */
    scenario = calloc(1, sizeof *scenario);
    text = WORLD(", \"balancer_retry\": \"connect-failure\","
                 " \"outage\": {\"from_ms\": 1000, \"to_ms\": 2000}",
                 "");
    ck_assert(scenario_load_text(text, strlen(text), NULL, 0, scenario, &warnings));
    warnings.count = 0;
    scenario_inert_warnings(scenario, &warnings);
    const char *why = NULL;
    for (uint32_t i = 0; i < warnings.count; i++) {
        if (strcmp(warnings.items[i].path, "$.services[2].balancer_retry") == 0)
            why = warnings.items[i].message;
    }
    ck_assert_ptr_nonnull(why);
    ck_assert_str_eq(why, "has no effect: no instance is ever down alone (no crash; its outage "
                          "takes every instance down at once)");
    free(scenario);
}
END_TEST

/* show writes a called server's instances and balancer when it runs several (and nothing of
 * them when it runs one, as before); the printed file reads back the same. */
START_TEST(test_show_writes_a_called_servers_instances)
{
    Scenario *s = test_load(WORLD(KEY_HASH, PER_INSTANCE), NULL, 0);
    char *text = scenario_show(s);
    const char *payments = strstr(text, "\"id\": \"payments\"");
    ck_assert_ptr_nonnull(payments);
    const char *end = strstr(payments, "\"id\": \"payments-keys\"");
    const char *instances = strstr(payments, "\"instances\": 3");
    const char *balancer = strstr(payments, "\"balancer\": \"key-hash\"");
    ck_assert(instances != NULL && instances < end);
    ck_assert(balancer != NULL && balancer < end);
    Scenario *shown = test_load(text, NULL, 0);
    ck_assert_uint_eq(shown->called_servers[0].spec.instances, 3);
    ck_assert_int_eq(shown->called_servers[0].spec.balancer, BALANCER_KEY_HASH);
    ck_assert_int_eq(shown->called_servers[0].spec.idempotency.placement, PLACEMENT_PER_INSTANCE);
    char *again = scenario_show(shown);
    ck_assert_str_eq(text, again);
    free(again);
    free(shown);
    free(text);
    free(s);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("called_server_instances");
    TCase *tcase = tcase_create("called_server_instances");
    tcase_add_test(tcase, test_further_instances_come_after_every_node);
    tcase_add_test(tcase, test_round_robin_spreads_the_tries);
    tcase_add_test(tcase, test_a_store_per_instance_needs_a_balancer_by_key);
    tcase_add_test(tcase, test_a_call_retried_elsewhere_misses_a_key_kept_per_instance);
    tcase_add_test(tcase, test_a_consumer_groups_call_retried_elsewhere_meets_every_instance);
    tcase_add_test(tcase, test_a_calls_retry_host_is_warned_where_no_retry_can_choose);
    tcase_add_test(tcase, test_the_instances_in_all_are_bounded);
    tcase_add_test(tcase, test_show_writes_a_called_servers_instances);
    suite_add_tcase(suite, tcase);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
