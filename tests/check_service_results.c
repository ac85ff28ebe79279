/* Per-service results (issue 21, step 7): each service node's counters add up to the mode's,
 * name the nodes the world has, and are what METRIC@SERVICE reads in expect blocks, `check`,
 * the table, the CSV and a sweep. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "test_cli.h"
#include "test_world.h"
#include "world.h"

static double sum_over(const Metrics *metrics, NodeKind kind, const char *metric)
{
    double sum = 0;
    for (uint32_t i = 0; i < metrics->service_count; i++) {
        const ServiceMetrics *service = &metrics->services[i];
        double value = 0;
        if ((service->kind == kind || kind == NODE_KIND_COUNT) &&
            metrics_service_value(metrics, service->name, metric, &value))
            sum += value;
    }
    return sum;
}

/* What every service counted adds up to what the mode counted, where both count the same
 * thing; and the world's nodes carry the names the scenario gives them. */
static void assert_services_add_up(const char *path, const Scenario *scenario, Mode mode)
{
    World *world = world_create(scenario, mode, scenario->seed, (TraceSink){0}, (WorldLimits){0});
    world_run(world);
    const Metrics *m = world_metrics(world);
    char names[SCENARIO_NODES_MAX][NODE_NAME_LEN_MAX];
    unsigned count = scenario_service_node_names(scenario, names, SCENARIO_NODES_MAX);
    ck_assert_uint_eq(count, m->service_count);
    ck_assert_uint_eq(count, world_node_count(world) - scenario->client_group_count);
    for (unsigned i = 0; i < count; i++) {
        ck_assert_str_eq(m->services[i].name, names[i]);
        ck_assert_str_eq(m->services[i].name,
                         world_node_name(world, scenario->client_group_count + i));
    }
    const char *why = mode_name(mode);
    ck_assert_msg(sum_over(m, NODE_KIND_COUNT, "effects") == (double)m->effects, "%s %s: effects",
                  path, why);
    ck_assert_msg(sum_over(m, NODE_SERVER, "runs") + sum_over(m, NODE_CONSUMERS, "runs") ==
                      (double)m->executions,
                  "%s %s: runs", path, why);
    ck_assert_msg(sum_over(m, NODE_KIND_COUNT, "refunds") == (double)m->refunds, "%s %s: refunds",
                  path, why);
    ck_assert_msg(sum_over(m, NODE_SERVER, "replayed") + sum_over(m, NODE_CONSUMERS, "replayed") ==
                      (double)m->replayed,
                  "%s %s: replayed", path, why);
    ck_assert_msg(sum_over(m, NODE_SERVER, "crashes") + sum_over(m, NODE_CONSUMERS, "crashes") ==
                      (double)m->crashes,
                  "%s %s: crashes", path, why);
    ck_assert_msg(sum_over(m, NODE_KEY_STORE, "crashes") == (double)m->store_crashes,
                  "%s %s: store crashes", path, why);
    ck_assert_msg(sum_over(m, NODE_PROXY, "retries") == (double)m->proxy_retries,
                  "%s %s: proxy retries", path, why);
    ck_assert_msg(sum_over(m, NODE_BROKER, "retries") == (double)m->redeliveries,
                  "%s %s: redeliveries", path, why);
    ck_assert_msg(sum_over(m, NODE_SERVER, "retries") + sum_over(m, NODE_CONSUMERS, "retries") ==
                      (double)(m->call_retries + m->refund_retries),
                  "%s %s: call retries", path, why);
    ck_assert_msg(sum_over(m, NODE_BROKER, "received") == (double)m->messages, "%s %s: messages",
                  path, why);
    ck_assert_msg(sum_over(m, NODE_SERVER, "refused") >= (double)(m->shed + m->resets),
                  "%s %s: refusals", path, why);
    /* a double is money charged on top: with nothing given back, the services' doubles are
     * the mode's */
    if (m->refunds == 0)
        ck_assert_msg(sum_over(m, NODE_KIND_COUNT, "double_amount") == (double)m->double_amount,
                      "%s %s: double_amount", path, why);
    world_destroy(world);
}

static void check_every_mode(const char *path, void *context)
{
    (void)context;
    Scenario *scenario = test_load_source_file(path, NULL, 0);
    for (uint32_t i = 0; i < scenario->mode_count; i++)
        assert_services_add_up(path, scenario, scenario->modes[i]);
    free(scenario);
}

static unsigned check_folder(const char *folder)
{
    return test_for_each_scenario_file(folder, check_every_mode, NULL);
}

START_TEST(test_every_library_scenario_adds_up_by_service)
{
    ck_assert_int_eq(chdir(IDEMSIM_SOURCE_DIR), 0);
    ck_assert_uint_gt(check_folder("scenarios"), 90);
    ck_assert_uint_gt(check_folder("scenarios/architectures"), 4);
    /* and the test corpus's good files: several servers, instances of a called server */
    ck_assert_uint_gt(check_folder("tests/good_scenarios"), 5);
}
END_TEST

/* Two instances behind a balancer: each has its own counters, and the service's id sums them. */
START_TEST(test_instances_count_apart_and_the_service_sums_them)
{
    Scenario *scenario = test_load_source_file("scenarios/26_instances_key_hash.json", NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    double one = 0, two = 0, both = 0;
    ck_assert(metrics_service_value(&metrics, "checkout#1", "runs", &one));
    ck_assert(metrics_service_value(&metrics, "checkout#2", "runs", &two));
    ck_assert(metrics_service_value(&metrics, "checkout", "runs", &both));
    ck_assert(one > 0 && two > 0); /* the balancer spread the work */
    ck_assert(both == one + two);
    ck_assert(both == (double)metrics.executions);
    ck_assert(!metrics_service_value(&metrics, "checkout#9", "runs", &one));
    ck_assert(!metrics_service_value(&metrics, "checkout", "executions", &one)); /* a mode's */
    free(scenario);
}
END_TEST

/* A service's outcomes are those of the operations it took in: an operation a retry sent to
 * both instances is in each instance's share, and once in the service's, which, the clients
 * calling it directly, holds every operation that reached a service. */
START_TEST(test_service_outcomes_count_each_operation_once)
{
    Scenario *scenario = test_load_source_file("scenarios/26_instances_own_keys.json", NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    double service_total = 0, instance_total = 0;
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        double service = 0, one = 0, two = 0;
        const char *name = outcome_name((Outcome)o);
        ck_assert(metrics_service_value(&metrics, "checkout", name, &service));
        ck_assert(metrics_service_value(&metrics, "checkout#1", name, &one));
        ck_assert(metrics_service_value(&metrics, "checkout#2", name, &two));
        ck_assert_msg(service <= (double)metrics.outcomes[o], "%s@checkout", name);
        ck_assert_msg(service >= (one > two ? one : two) && service <= one + two, "%s", name);
        service_total += service;
        instance_total += one + two;
    }
    ck_assert(service_total ==
              (double)(metrics.operations_settled - metrics.operations_reaching_no_service));
    ck_assert(instance_total > service_total); /* retries went to the other instance */
    double doubles = 0;
    ck_assert(metrics_service_value(&metrics, "checkout", "double", &doubles));
    ck_assert(doubles > 0 && doubles == (double)metrics.outcomes[OUTCOME_DOUBLE]);
    free(scenario);
}
END_TEST

/* Two consumer groups taking apart queues: every operation that took effect went through
 * one of them, so their shares of the effects' outcomes add up to the mode's; and where the
 * collectors' crashes double, the chargers' share has no double. */
START_TEST(test_service_outcomes_split_between_consumer_groups)
{
    Scenario *scenario = test_load_source_file(
        "scenarios/architectures/orders_and_invoices_two_groups.json", NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    static const Outcome with_effect[] = {OUTCOME_OK, OUTCOME_DOUBLE, OUTCOME_PHANTOM};
    for (size_t k = 0; k < sizeof with_effect / sizeof with_effect[0]; k++) {
        const char *name = outcome_name(with_effect[k]);
        double chargers = 0, collectors = 0;
        ck_assert(metrics_service_value(&metrics, "chargers", name, &chargers));
        ck_assert(metrics_service_value(&metrics, "collectors", name, &collectors));
        ck_assert_msg(chargers + collectors == (double)metrics.outcomes[with_effect[k]], "%s",
                      name);
    }
    double chargers_double = -1, collectors_double = 0;
    ck_assert(metrics_service_value(&metrics, "chargers", "double", &chargers_double));
    ck_assert(metrics_service_value(&metrics, "collectors", "double", &collectors_double));
    ck_assert(chargers_double == 0 && collectors_double > 0);
    free(scenario);
}
END_TEST

/* METRIC@SERVICE in an expect block is checked like any other metric; a name that is no
 * service, or a metric a service does not have, is refused with its path. */
static const char *const expecting =
    "{\"name\": \"per-service\", \"seed\": 3, \"duration_ms\": 4000,"
    " \"accounts\": [{\"id\": \"alice\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"checkout\", \"retries\": 2,"
    "    \"per_try_timeout_ms\": 300},"
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"instances\": 2, \"key_store\": \"keys\","
    "    \"steps\": [{\"call\": \"psp\"}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 10, \"calls\": \"mesh\","
    "   \"workload\": {\"ops\": 3, \"interval_ms\": 200}}],"
    " \"network\": {\"default\": {\"loss\": 0.05}},"
    " \"expect\": {\"idempotent\": {%s}}}";

static Scenario *load_expecting(const char *expectations, LoadErrors *errors)
{
    char json[4096];
    snprintf(json, sizeof json, expecting, expectations);
    Scenario *scenario = calloc(1, sizeof *scenario);
    *errors = (LoadErrors){0};
    if (!scenario_load_text(json, strlen(json), NULL, 0, scenario, errors)) {
        free(scenario);
        return NULL;
    }
    return scenario;
}

static void assert_refused_with(const char *expectations, const char *message)
{
    LoadErrors errors;
    Scenario *scenario = load_expecting(expectations, &errors);
    ck_assert_ptr_null(scenario);
    ck_assert_uint_ge(errors.count, 1);
    ck_assert_msg(strstr(errors.items[0].message, message) != NULL, "got: %s %s",
                  errors.items[0].path, errors.items[0].message);
    ck_assert_str_eq(errors.items[0].path, "$.expect.idempotent");
}

START_TEST(test_service_expectations_load_and_hold)
{
    LoadErrors errors;
    Scenario *scenario =
        load_expecting("\"effects@psp\": {\"min\": 1}, \"received@checkout#2\": {\"min\": 1},"
                       " \"doubles@psp\": 0, \"retries@mesh\": {\"min\": 0},"
                       " \"ok@checkout\": {\"min\": 1}, \"double@checkout#1\": 0",
                       &errors);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_uint_eq(scenario->expectation_count, 6);
    Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    for (uint32_t i = 0; i < scenario->expectation_count; i++) {
        double value = -1;
        ck_assert(metrics_expectation_value(&metrics, &scenario->expectations[i], &value));
        ck_assert_msg(value >= scenario->expectations[i].min &&
                          value <= scenario->expectations[i].max,
                      "%s = %g", scenario->expectations[i].metric, value);
    }
    double psp = 0;
    ck_assert(metrics_service_value(&metrics, "psp", "effects", &psp));
    ck_assert(psp == (double)metrics.effects); /* the provider makes every effect here */
    free(scenario);
}
END_TEST

START_TEST(test_bad_service_expectations_are_refused)
{
    assert_refused_with("\"effects@nowhere\": 0",
                        "unknown client group or service in metric 'effects@nowhere' (the "
                        "groups and services: 'app', 'checkout#1', 'psp',");
    assert_refused_with("\"executions@psp\": 0",
                        "a service's metric, METRIC@SERVICE, is one of received,");
    assert_refused_with("\"received@app\": 0", "a client group's metric, METRIC@GROUP, is one of");
    assert_refused_with("\"effects@checkout#3\": 0", "unknown client group or service");
}
END_TEST

/* The closest name is suggested whole: it was a pointer into the list of names, a local of
 * the function that made it, read after that function returned (AddressSanitizer:
 * stack-use-after-scope). */
START_TEST(test_an_unknown_service_suggests_the_closest_name)
{
    assert_refused_with("\"retries@mesj\": 0",
                        "unknown client group or service in metric 'retries@mesj', did you mean "
                        "'mesh'?");
    assert_refused_with("\"effects@checkout#3\": 0",
                        "unknown client group or service in metric 'effects@checkout#3', did you "
                        "mean 'checkout#1'?");
}
END_TEST

/* The table lists the services of a chain, the CSV has a row per service and metric, and a
 * sweep reports one service's metric. */
START_TEST(test_table_csv_and_sweep_name_the_services)
{
    test_cli_make_scratch("service-results");
    char out[512], err[512], csv[512];
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    test_cli_in_scratch(csv, "run.csv");
    const char *run[] = {"run", "scenarios/architectures/mesh_two_instances_checkout.json", "--csv",
                         csv, NULL};
    ck_assert_int_eq(test_cli_run(run, out, err), 0);
    char *table = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(table, "per service (METRIC@SERVICE)\n  mesh: received"));
    ck_assert_ptr_nonnull(strstr(table, "  checkout#2: received"));
    ck_assert_ptr_nonnull(strstr(table, "  provider: effects"));
    char *rows = test_cli_read_all(csv, NULL);
    ck_assert_ptr_nonnull(strstr(rows, ",idempotent,effects@provider,"));
    ck_assert_ptr_nonnull(strstr(rows, ",at-least-once,retries@mesh,"));
    /* the service of two instances has its own rows, after its instances' */
    const char *second = strstr(rows, ",idempotent,ok@checkout#2,");
    const char *service = strstr(rows, ",idempotent,ok@checkout,");
    ck_assert_ptr_nonnull(second);
    ck_assert_ptr_nonnull(service);
    ck_assert(second < service);
    ck_assert(service < strstr(rows, ",idempotent,ok@provider,"));
    free(table);
    free(rows);
    char json[512];
    test_cli_in_scratch(json, "run.json");
    const char *run_json[] = {"run", "scenarios/architectures/mesh_two_instances_checkout.json",
                              "--json", json, NULL};
    ck_assert_int_eq(test_cli_run(run_json, out, err), 0);
    char *report = test_cli_read_all(json, NULL);
    ck_assert_ptr_nonnull(strstr(report,
                                 "\"checkout\": {\"kind\": \"server\", \"service\": \"checkout\", "
                                 "\"instances\": 2, \"received\": "));
    ck_assert_ptr_null(strstr(report, "\"provider\": {\"kind\": \"gateway\", \"service\": "
                                      "\"provider\", \"instances\""));
    free(report);

    const char *plain[] = {"run", "scenarios/01_lost_answer.json", NULL};
    ck_assert_int_eq(test_cli_run(plain, out, err), 0);
    table = test_cli_read_all(out, NULL);
    ck_assert_ptr_null(strstr(table, "per service")); /* one server: the rows above say it */
    free(table);

    const char *sweep[] = {"sweep",    "scenarios/architectures/mobile_mesh_checkout.json",
                           "--vary",   "network.default.loss=0:0.1:0.1",
                           "--metric", "retries@mesh",
                           "--seeds",  "1",
                           "-q",       "--csv",
                           csv,        NULL};
    ck_assert_int_eq(test_cli_run(sweep, out, err), 0);
    rows = test_cli_read_all(csv, NULL);
    ck_assert_ptr_nonnull(strstr(rows, "retries@mesh"));
    free(rows);
    const char *wrong[] = {"sweep",    "scenarios/architectures/mobile_mesh_checkout.json",
                           "--vary",   "network.default.loss=0:0.1:0.1",
                           "--metric", "runs@app",
                           "-q",       NULL};
    ck_assert_int_eq(test_cli_run(wrong, out, err), 2);
    char *said = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(said, "'app' is a client group, which has only the outcomes"));
    free(said);
    test_cli_remove_scratch();
}
END_TEST

/* A sweep's --metric naming no service lists every service node, however many: the list was
 * read from an array of 18 names (NODE_KIND_COUNT + SERVER_INSTANCES_MAX + CALLED_SERVERS_MAX)
 * while a scenario may have up to SCENARIO_NODES_MAX nodes, so a 19th was read past its end.
 * The expect block's list of names was read the same way. */
static const char *const many_nodes =
    "{\"name\": \"many-nodes\", \"seed\": 3, \"duration_ms\": 1000,"
    " \"accounts\": [{\"id\": \"shop\", \"balance\": 0}],"
    " \"services\": ["
    "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"api\", \"retries\": 1,"
    "    \"per_try_timeout_ms\": 300},"
    "   {\"id\": \"api\", \"kind\": \"server\", \"instances\": 8, \"key_store\": \"keys\","
    "    \"steps\": [{\"effect\": \"local\"}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"events\", \"kind\": \"broker\", \"family\": \"visibility-timeout\"},"
    "   {\"id\": \"shippers\", \"kind\": \"consumers\", \"consumes\": \"events\","
    "    \"instances\": 8, \"key_store\": \"keys\", \"steps\": [{\"effect\": \"local\"}]}],"
    " \"clients\": ["
    "   {\"id\": \"page\", \"count\": 2, \"calls\": \"mesh\", \"operation\": {\"kind\": "
    "\"insert\"}},"
    "   {\"id\": \"hook\", \"count\": 2, \"publishes\": \"events\","
    "    \"operation\": {\"kind\": \"insert\"}}]}";

START_TEST(test_an_unknown_service_lists_every_node)
{
    test_cli_make_scratch("many-nodes");
    char path[512], out[512], err[512];
    test_cli_in_scratch(path, "many_nodes.json");
    test_cli_in_scratch(out, "out");
    test_cli_in_scratch(err, "err");
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(many_nodes, file);
    fclose(file);
    const char *check[] = {"check", path, NULL};
    ck_assert_int_eq(test_cli_run(check, out, err), 0);
    const char *sweep[] = {
        "sweep", path, "--vary", "duration_ms=1000:1000:1000", "--metric", "effects@nowhere", NULL};
    ck_assert_int_ne(test_cli_run(sweep, out, err), 0);
    char *message = test_cli_read_all(err, NULL);
    /* 19 service nodes: the last is the consumers' eighth instance */
    ck_assert_msg(strstr(message, " api#8 shippers#2") != NULL &&
                      strstr(message, " shippers#7 shippers#8)\n") != NULL,
                  "got: %s", message);
    free(message);
    test_cli_remove_scratch();
}
END_TEST

static Suite *service_results_suite(void)
{
    Suite *suite = suite_create("service_results");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_every_library_scenario_adds_up_by_service);
    tcase_add_test(core, test_instances_count_apart_and_the_service_sums_them);
    tcase_add_test(core, test_service_outcomes_count_each_operation_once);
    tcase_add_test(core, test_service_outcomes_split_between_consumer_groups);
    tcase_add_test(core, test_service_expectations_load_and_hold);
    tcase_add_test(core, test_bad_service_expectations_are_refused);
    tcase_add_test(core, test_an_unknown_service_suggests_the_closest_name);
    tcase_add_test(core, test_an_unknown_service_lists_every_node);
    tcase_add_test(core, test_table_csv_and_sweep_name_the_services);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(service_results_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
