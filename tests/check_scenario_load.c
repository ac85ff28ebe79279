/* Tests of the scenario loader: the bad-input corpus (tests/bad_scenarios), the defaults and
 * values of good files, --set overrides, the error lines, the format reference staying in
 * step with the loader, and inputs built to break it. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

/* ------------------------------------------------------------------ helpers */

static char *read_whole(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return NULL;
    }
    size_t capacity = 4096;
    size_t used = 0;
    char *text = malloc(capacity + 1);
    size_t n = 0;
    while (text != NULL && (n = fread(text + used, 1, capacity - used, file)) > 0) {
        used += n;
        if (used == capacity) {
            capacity *= 2;
            char *grown = realloc(text, capacity + 1);
            if (grown == NULL) {
                free(text);
            }
            text = grown;
        }
    }
    fclose(file);
    if (text != NULL) {
        text[used] = '\0';
    }
    if (length != NULL) {
        *length = used;
    }
    return text;
}

/* The lines scenario_print_errors prints, as one string (malloc'd). */
static char *print_errors(const char *file_path, const LoadErrors *errors)
{
    char *text = NULL;
    size_t length = 0;
    FILE *stream = open_memstream(&text, &length);
    ck_assert_ptr_nonnull(stream);
    scenario_print_errors(stream, file_path, errors);
    fclose(stream);
    return text;
}

/* Loads a file that must load; prints its errors when it does not. */
static Scenario *load_good(const char *path, const char *const *overrides, uint32_t count)
{
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert_ptr_nonnull(scenario);
    bool ok = scenario_load_file(path, overrides, count, scenario, &errors);
    if (!ok) {
        char *text = print_errors(path, &errors);
        ck_abort_msg("%s did not load:\n%s", path, text);
    }
    return scenario;
}

static Scenario *load_good_text(const char *text, const char *const *overrides, uint32_t count)
{
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert_ptr_nonnull(scenario);
    if (!scenario_load_text(text, strlen(text), overrides, count, scenario, &errors)) {
        char *lines = print_errors("text", &errors);
        ck_abort_msg("text did not load:\n%s\n%s", text, lines);
    }
    return scenario;
}

/* The errors of a text that must not load, as printed lines (malloc'd). */
static char *load_bad_text(const char *text, const char *const *overrides, uint32_t count)
{
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert_ptr_nonnull(scenario);
    bool ok = scenario_load_text(text, strlen(text), overrides, count, scenario, &errors);
    free(scenario);
    ck_assert_msg(!ok, "text loaded but should not have:\n%s", text);
    ck_assert_uint_gt(errors.count, 0);
    return print_errors("text", &errors);
}

#define MINIMAL "{\"accounts\":[{\"id\":\"a\",\"balance\":10}],\"clients\":[{\"id\":\"web\"}]}"

static const Expectation *find_expectation(const Scenario *scenario, Mode mode, const char *metric)
{
    for (uint32_t i = 0; i < scenario->expectation_count; i++) {
        const Expectation *e = &scenario->expectations[i];
        if (e->mode == mode && strcmp(e->metric, metric) == 0) {
            return e;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ the corpus */

#define CASES_MAX 256
#define CASE_NAME_MAX 128

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

static unsigned list_cases(char names[][CASE_NAME_MAX])
{
    DIR *directory = opendir("tests/bad_scenarios");
    ck_assert_msg(directory != NULL, "cannot open tests/bad_scenarios");
    unsigned count = 0;
    struct dirent *entry = NULL;
    while ((entry = readdir(directory)) != NULL && count < CASES_MAX) {
        size_t length = strlen(entry->d_name);
        if (length > 5 && length < CASE_NAME_MAX &&
            strcmp(entry->d_name + length - 5, ".json") == 0) {
            memcpy(names[count], entry->d_name, length - 5);
            names[count][length - 5] = '\0';
            count++;
        }
    }
    closedir(directory);
    qsort(names, count, CASE_NAME_MAX, compare_names);
    return count;
}

/* Prints expected and actual lines side by side, marking the ones that differ. */
static void print_difference(const char *name, const char *expected, const char *actual)
{
    fprintf(stderr, "bad scenario '%s': errors differ (- expected, + actual)\n", name);
    const char *e = expected;
    const char *a = actual;
    while (*e != '\0' || *a != '\0') {
        size_t e_length = strcspn(e, "\n");
        size_t a_length = strcspn(a, "\n");
        if (e_length == a_length && memcmp(e, a, e_length) == 0) {
            fprintf(stderr, "  %.*s\n", (int)e_length, e);
        } else {
            if (*e != '\0') {
                fprintf(stderr, "- %.*s\n", (int)e_length, e);
            }
            if (*a != '\0') {
                fprintf(stderr, "+ %.*s\n", (int)a_length, a);
            }
        }
        e += e_length + (e[e_length] == '\n');
        a += a_length + (a[a_length] == '\n');
    }
}

static bool check_case(const char *name, Scenario *scenario)
{
    char json_path[CASE_NAME_MAX + 32];
    char expected_path[CASE_NAME_MAX + 32];
    snprintf(json_path, sizeof json_path, "tests/bad_scenarios/%s.json", name);
    snprintf(expected_path, sizeof expected_path, "tests/bad_scenarios/%s.expected", name);
    char *expected = read_whole(expected_path, NULL);
    if (expected == NULL) {
        fprintf(stderr, "bad scenario '%s': no %s\n", name, expected_path);
        return false;
    }
    LoadErrors errors;
    bool loaded = scenario_load_file(json_path, NULL, 0, scenario, &errors);
    char *actual = print_errors(json_path, &errors);
    bool same = !loaded && strcmp(expected, actual) == 0;
    if (loaded) {
        fprintf(stderr, "bad scenario '%s' loaded without errors\n", name);
    } else if (!same) {
        print_difference(name, expected, actual);
    }
    free(expected);
    free(actual);
    return same;
}

START_TEST(test_bad_scenarios_report_the_expected_errors)
{
    static char names[CASES_MAX][CASE_NAME_MAX];
    unsigned count = list_cases(names);
    ck_assert_uint_ge(count, 30);
    Scenario *scenario = malloc(sizeof *scenario);
    unsigned failures = 0;
    for (unsigned i = 0; i < count; i++) {
        failures += check_case(names[i], scenario) ? 0 : 1;
    }
    free(scenario);
    ck_assert_msg(failures == 0, "%u of %u bad scenarios differ (see above)", failures, count);
}
END_TEST

START_TEST(test_unreadable_file_is_one_error_without_path)
{
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert(
        !scenario_load_file("tests/bad_scenarios/no_such_file.json", NULL, 0, scenario, &errors));
    ck_assert_uint_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].path, "");
    ck_assert_str_eq(errors.items[0].message, "cannot read file: No such file or directory");
    ck_assert(!scenario_load_file("tests/bad_scenarios", NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].message,
                     "is a directory, not a scenario file (use DIR/*.json, or idemsim check DIR)");
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ good files */

START_TEST(test_design_example_lands_in_every_field)
{
    Scenario *s = load_good("tests/good_scenarios/design_example.json", NULL, 0);
    ck_assert_str_eq(s->name, "double-click-pay");
    ck_assert_str_eq(s->title, "Pay pressed twice after a lost answer");
    ck_assert_uint_eq(s->seed, 42);
    ck_assert_double_eq(s->duration_ms, 60000);
    ck_assert_uint_eq(s->mode_count, 3);
    ck_assert_int_eq(s->modes[2], MODE_IDEMPOTENT);
    ck_assert_uint_eq(s->account_count, 1);
    ck_assert_str_eq(s->accounts[0].id, "alice");
    ck_assert_int_eq(s->accounts[0].balance, 100000);
    const ClientGroupSpec *web = &s->client_groups[0];
    ck_assert_uint_eq(s->client_group_count, 1);
    ck_assert_str_eq(web->id, "web");
    ck_assert_uint_eq(web->count, 100);
    ck_assert_uint_eq(web->account, 0);
    ck_assert_int_eq(web->operation.kind, OPERATION_DEBIT);
    ck_assert_int_eq(web->operation.amount, 1500);
    ck_assert_uint_eq(web->workload.ops, 10);
    ck_assert_int_eq(web->workload.interval_ms.kind, DIST_EXP);
    ck_assert_double_eq(web->workload.interval_ms.a, 500);
    ck_assert_double_eq(web->retry.timeout_ms, 1000);
    ck_assert_uint_eq(web->retry.max_attempts, 5);
    ck_assert_double_eq(web->retry.factor, 2.0);
    ck_assert_int_eq(web->retry.jitter, JITTER_FULL);
    ck_assert_int_eq(web->key, KEY_PER_CLICK);
    ck_assert_double_eq(web->double_click.prob, 0.1);
    ck_assert_int_eq(web->double_click.delay_ms.kind, DIST_UNIFORM);
    ck_assert_double_eq(web->double_click.delay_ms.b, 400);
    ck_assert_double_eq(web->offline.prob, 0.05);
    ck_assert_double_eq(web->offline.duration_ms.a, 600000);
    free(s);
}
END_TEST

START_TEST(test_design_example_services_and_expectations)
{
    Scenario *s = load_good("tests/good_scenarios/design_example.json", NULL, 0);
    const NetworkSpec *network = &s->network;
    ck_assert_double_eq(network->default_link.loss.probability, 0.05);
    ck_assert_double_eq(network->default_link.delay_ms.b, 80);
    ck_assert_uint_eq(network->link_count, 1);
    ck_assert_str_eq(network->links[0].source, "server");
    ck_assert_str_eq(network->links[0].target, "web");
    ck_assert_double_eq(network->links[0].spec.loss.probability, 0.2);
    ck_assert_uint_eq(network->outage_count, 1);
    ck_assert_double_eq(network->outages[0].from_ms, 10000);
    ck_assert_double_eq(network->outages[0].to_ms, 12000);
    ck_assert_str_eq(network->outages[0].source, "server");
    ck_assert_int_eq(s->server.service_ms.kind, DIST_LOGNORMAL);
    ck_assert_double_eq(s->server.service_ms.b, 200);
    ck_assert_int_eq(s->server.idempotency.on_in_progress, 409);
    ck_assert_double_eq(s->server.idempotency.ttl_ms, 86400000);
    ck_assert_double_eq(s->gateway.latency_ms.a, 150);
    ck_assert_double_eq(s->gateway.timeout, 0.02);
    ck_assert(!s->gateway.honours_key);
    ck_assert_uint_eq(s->broker.consumers.workers, 2);
    ck_assert_int_eq(s->broker.consumers.idempotency.key, KEY_MESSAGE_ID);
    ck_assert_uint_eq(s->expectation_count, 3);
    const Expectation *double_at_least_once = find_expectation(s, MODE_AT_LEAST_ONCE, "double");
    ck_assert_ptr_nonnull(double_at_least_once);
    ck_assert_double_eq(double_at_least_once->min, 1);
    ck_assert(isinf(double_at_least_once->max) && double_at_least_once->max > 0);
    const Expectation *lost = find_expectation(s, MODE_IDEMPOTENT, "lost");
    ck_assert_ptr_nonnull(lost);
    ck_assert_double_eq(lost->min, 0);
    ck_assert_double_eq(lost->max, 0);
    free(s);
}
END_TEST

START_TEST(test_minimal_file_gets_the_documented_defaults)
{
    Scenario *s = load_good_text(MINIMAL, NULL, 0);
    ck_assert_str_eq(s->name, "scenario");
    ck_assert_str_eq(s->title, "");
    ck_assert_uint_eq(s->seed, 1);
    ck_assert_double_eq(s->duration_ms, 60000);
    ck_assert_uint_eq(s->mode_count, 3);
    ck_assert_int_eq(s->modes[0], MODE_AT_MOST_ONCE);
    const ClientGroupSpec *web = &s->client_groups[0];
    ck_assert_uint_eq(web->count, 1);
    ck_assert_uint_eq(web->account, 0);
    ck_assert_int_eq(web->target, TARGET_SERVER);
    ck_assert_int_eq(web->operation.amount, 100);
    ck_assert_int_eq(web->operation.order_base, 1);
    ck_assert_uint_eq(web->workload.ops, 1);
    ck_assert_int_eq(web->workload.interval_ms.kind, DIST_EXP);
    ck_assert_double_eq(web->workload.interval_ms.a, 1000);
    ck_assert_uint_eq(web->workload.at_count, 0);
    ck_assert_double_eq(web->retry.timeout_ms, 1000);
    ck_assert_double_eq(web->retry.max_ms, 5000);
    ck_assert(web->retry.on_timeout && web->retry.on_5xx && web->retry.on_409);
    ck_assert_double_eq(web->retry.conflict_delay_ms, 500);
    ck_assert_int_eq(web->key, KEY_PER_CLICK);
    ck_assert_double_eq(web->double_click.delay_ms.a, 100);
    ck_assert_double_eq(web->offline.duration_ms.a, 60000);
    ck_assert_int_eq(s->network.default_link.loss.model, LOSS_BERNOULLI);
    ck_assert_double_eq(s->network.default_link.delay_ms.b, 50);
    ck_assert_uint_eq(s->server.workers, 4);
    ck_assert_int_eq(s->server.idempotency.reserve, RESERVE_ATOMIC);
    ck_assert(s->server.idempotency.fingerprint && s->server.idempotency.durable);
    ck_assert_double_eq(s->server.crash.restart_ms, 1000);
    ck_assert_double_eq(s->gateway.timeout_ms, 2000);
    ck_assert_double_eq(s->broker.ack_timeout_ms, 30000);
    ck_assert_uint_eq(s->broker.max_deliveries, 5);
    ck_assert_uint_eq(s->broker.prefetch, 1);
    ck_assert_uint_eq(s->broker.consumers.workers, 1);
    ck_assert_int_eq(s->broker.consumers.idempotency.key, KEY_MESSAGE_ID);
    ck_assert_uint_eq(s->expectation_count, 0);
    free(s);
}
END_TEST

START_TEST(test_file_name_is_the_default_scenario_name)
{
    const char *overrides[] = {"name=renamed"};
    Scenario *s = load_good("tests/good_scenarios/design_example.json", overrides, 1);
    ck_assert_str_eq(s->name, "renamed");
    free(s);
    char directory[] = "/tmp/idemsim-check-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(directory));
    char path[sizeof directory + 32];
    snprintf(path, sizeof path, "%s/retry-storm.json", directory);
    FILE *file = fopen(path, "wb");
    ck_assert_ptr_nonnull(file);
    fputs(MINIMAL, file);
    fclose(file);
    s = load_good(path, NULL, 0);
    remove(path);
    rmdir(directory);
    ck_assert_str_eq(s->name, "retry-storm");
    free(s);
}
END_TEST

START_TEST(test_partial_object_keeps_the_other_defaults)
{
    Scenario *s = load_good_text(
        "{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\",\"retry\":{\"backoff\":"
        "{\"factor\":3}}}],\"server\":{\"idempotency\":{\"ttl_ms\":300}},"
        "\"broker\":{\"consumers\":{\"idempotency\":{\"reserve\":\"execute-then-save\"}}}}",
        NULL, 0);
    ck_assert_double_eq(s->server.idempotency.ttl_ms, 300);
    ck_assert_int_eq(s->server.idempotency.reserve, RESERVE_ATOMIC);
    ck_assert_int_eq(s->server.idempotency.on_in_progress, 409);
    ck_assert_double_eq(s->server.idempotency.cleanup_interval_ms, 60000);
    ck_assert_double_eq(s->client_groups[0].retry.factor, 3);
    ck_assert_double_eq(s->client_groups[0].retry.base_ms, 100);
    ck_assert_int_eq(s->client_groups[0].retry.jitter, JITTER_FULL);
    ck_assert_int_eq(s->broker.consumers.idempotency.reserve, RESERVE_EXECUTE_THEN_SAVE);
    ck_assert_int_eq(s->broker.consumers.idempotency.key, KEY_MESSAGE_ID);
    free(s);
}
END_TEST

START_TEST(test_link_override_starts_from_the_default_link)
{
    Scenario *s = load_good_text(
        "{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\"}],\"network\":{"
        "\"links\":{\"server->web\":{\"loss\":0.2},\"web->server\":{\"loss\":{\"r\":0.5}}},"
        "\"default\":{\"loss\":{\"model\":\"gilbert-elliott\",\"p\":0.1},\"duplicate\":0.01,"
        "\"delay_ms\":{\"dist\":\"const\",\"value\":7}}}}",
        NULL, 0);
    const LinkOverride *answers = &s->network.links[0];
    ck_assert_str_eq(answers->source, "server");
    ck_assert_int_eq(answers->spec.loss.model, LOSS_BERNOULLI);
    ck_assert_double_eq(answers->spec.loss.probability, 0.2);
    ck_assert_double_eq(answers->spec.duplicate, 0.01);
    ck_assert_int_eq(answers->spec.delay_ms.kind, DIST_CONST);
    ck_assert_double_eq(answers->spec.delay_ms.a, 7);
    const LinkOverride *requests = &s->network.links[1];
    ck_assert_int_eq(requests->spec.loss.model, LOSS_GILBERT_ELLIOTT);
    ck_assert_double_eq(requests->spec.loss.p, 0.1);
    ck_assert_double_eq(requests->spec.loss.r, 0.5);
    ck_assert_double_eq(requests->spec.loss.h, 0.5);
    ck_assert_double_eq(requests->spec.loss.k, 1.0);
    free(s);
}
END_TEST

START_TEST(test_workload_and_retry_lists)
{
    Scenario *s =
        load_good_text("{\"accounts\":[{\"id\":\"a\"},{\"id\":\"b\"}],\"clients\":[{\"id\":\"web\","
                       "\"account\":\"b\",\"workload\":{\"at_ms\":[0,10,10,250.5]},\"retry\":{"
                       "\"retry_on\":[\"5xx\"]},\"double_click\":{\"delay_ms\":3}}],"
                       "\"modes\":[\"idempotent\",\"at-most-once\"],"
                       "\"expect\":{\"idempotent\":{\"409\":{\"max\":4}}}}",
                       NULL, 0);
    const ClientGroupSpec *web = &s->client_groups[0];
    ck_assert_uint_eq(web->account, 1);
    ck_assert_uint_eq(web->workload.at_count, 4);
    ck_assert_uint_eq(web->workload.ops, 4);
    ck_assert_double_eq(web->workload.at_ms[3], 250.5);
    ck_assert(!web->retry.on_timeout && web->retry.on_5xx && !web->retry.on_409);
    ck_assert_int_eq(web->double_click.delay_ms.kind, DIST_CONST);
    ck_assert_double_eq(web->double_click.delay_ms.a, 3);
    ck_assert_uint_eq(s->mode_count, 2);
    ck_assert_int_eq(s->modes[0], MODE_IDEMPOTENT);
    ck_assert_int_eq(s->modes[1], MODE_AT_MOST_ONCE);
    const Expectation *conflicts = find_expectation(s, MODE_IDEMPOTENT, "409");
    ck_assert_ptr_nonnull(conflicts);
    ck_assert(isinf(conflicts->min) && conflicts->min < 0);
    ck_assert_double_eq(conflicts->max, 4);
    free(s);
}
END_TEST

/* ------------------------------------------------------------------ questions */

START_TEST(test_questions_keep_their_order_text_and_report_metric_names)
{
    Scenario *s = load_good_text(
        "{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\"}],\"duration_ms\":5000,"
        "\"questions\":[{\"at_ms\":0,\"ask\":\"Before anything?\",\"reveal\":[\"ok\"]},"
        "{\"at_ms\":1400.5,\"ask\":\"Who pays twice?\",\"reveal\":[\"double\",\"409\"]},"
        "{\"at_ms\":5000,\"ask\":\"At the very end?\",\"reveal\":[\"key_store_peak\"]}]}",
        NULL, 0);
    ck_assert_uint_eq(s->question_count, 3);
    ck_assert_double_eq(s->questions[0].at_ms, 0);
    ck_assert_double_eq(s->questions[1].at_ms, 1400.5);
    ck_assert_double_eq(s->questions[2].at_ms, 5000); /* the duration itself is allowed */
    ck_assert_str_eq(s->questions[1].ask, "Who pays twice?");
    ck_assert_uint_eq(s->questions[1].reveal_count, 2);
    ck_assert_str_eq(scenario_metric_names[s->questions[1].reveal[0]], "double");
    ck_assert_str_eq(scenario_metric_names[s->questions[1].reveal[1]], "409");
    ck_assert_str_eq(scenario_metric_names[s->questions[2].reveal[0]], "key_store_peak");
    free(s);
    Scenario *none = load_good_text(MINIMAL, NULL, 0);
    ck_assert_uint_eq(none->question_count, 0);
    free(none);
}
END_TEST

START_TEST(test_questions_are_checked_against_the_duration_set_on_the_command_line)
{
    static const char text[] =
        "{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\"}],"
        "\"questions\":[{\"at_ms\":30000,\"ask\":\"Half-way?\",\"reveal\":[\"lost\"]}]}";
    const char *overrides[] = {"duration_ms=20000"};
    char *lines = load_bad_text(text, overrides, 1);
    ck_assert_str_eq(lines,
                     "text: $.questions[0].at_ms: expected number <= duration_ms (20000) (got "
                     "30000)\n");
    free(lines);
    char *too_many = load_bad_text(
        "{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\"}],\"questions\":[]}", NULL, 0);
    ck_assert_str_eq(too_many, "text: $.questions: expected at least 1 question (got 0)\n");
    free(too_many);
}
END_TEST

/* ------------------------------------------------------------------ broker queues */

/* The rules the broker-level fields of tests/good_scenarios/named_queues.json give. */
static void assert_broker_rules(const QueueSpec *queue)
{
    ck_assert_double_eq(queue->ack_timeout_ms, 20000);
    ck_assert_uint_eq(queue->max_deliveries, 4);
    ck_assert(!queue->dead_letter);
    ck_assert_uint_eq(queue->prefetch, 2);
    ck_assert_int_eq(queue->late_ack, LATE_ACK_ACCEPT);
    ck_assert_double_eq(queue->dedup_window_ms, 500);
    ck_assert_double_eq(queue->redelivery_delay_ms, 50);
}

START_TEST(test_without_queues_the_broker_has_one_queue_main_with_its_rules)
{
    Scenario *s = load_good_text(MINIMAL, NULL, 0);
    ck_assert_uint_eq(s->broker.queue_count, 1);
    const QueueSpec *main_queue = &s->broker.queues[0];
    ck_assert_str_eq(main_queue->name, "main");
    ck_assert_double_eq(main_queue->ack_timeout_ms, 30000);
    ck_assert_uint_eq(main_queue->max_deliveries, 5);
    ck_assert(main_queue->dead_letter);
    ck_assert_uint_eq(main_queue->prefetch, 1);
    ck_assert_int_eq(main_queue->late_ack, LATE_ACK_IGNORE);
    ck_assert_double_eq(main_queue->dedup_window_ms, 0);
    ck_assert_double_eq(main_queue->redelivery_delay_ms, 0);
    ck_assert_uint_eq(s->client_groups[0].queue, 0);
    ck_assert_uint_eq(s->server.receipts_queue, 0);
    free(s);
    s = load_good_text("{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\","
                       "\"target\":\"broker\"}],\"broker\":{\"ack_timeout_ms\":1234,"
                       "\"late_ack\":\"accept\",\"consumers\":{\"workers\":3}}}",
                       NULL, 0);
    ck_assert_uint_eq(s->broker.queue_count, 1);
    main_queue = &s->broker.queues[0];
    ck_assert_str_eq(main_queue->name, "main");
    ck_assert_double_eq(main_queue->ack_timeout_ms, 1234);
    ck_assert_int_eq(main_queue->late_ack, LATE_ACK_ACCEPT);
    ck_assert_uint_eq(main_queue->max_deliveries, 5);
    ck_assert_uint_eq(main_queue->prefetch, 1);
    ck_assert_double_eq(s->broker.ack_timeout_ms, 1234);
    ck_assert_uint_eq(s->client_groups[0].queue, 0);
    free(s);
}
END_TEST

START_TEST(test_each_queue_takes_its_own_rules_or_the_broker_level_ones)
{
    Scenario *s = load_good("tests/good_scenarios/named_queues.json", NULL, 0);
    const BrokerSpec *broker = &s->broker;
    ck_assert_uint_eq(broker->queue_count, 2);
    ck_assert_double_eq(broker->ack_timeout_ms, 20000); /* the broker level stays as given */
    ck_assert_uint_eq(broker->prefetch, 2);
    QueueSpec orders = broker->queues[0];
    ck_assert_str_eq(orders.name, "orders");
    ck_assert_uint_eq(orders.prefetch, 8);
    orders.prefetch = 2;
    assert_broker_rules(&orders); /* every other rule is the broker's */
    const QueueSpec *emails = &broker->queues[1];
    ck_assert_str_eq(emails->name, "emails");
    ck_assert_double_eq(emails->ack_timeout_ms, 60000);
    ck_assert_uint_eq(emails->max_deliveries, 3);
    ck_assert(emails->dead_letter);
    ck_assert_uint_eq(emails->prefetch, 2);
    ck_assert_int_eq(emails->late_ack, LATE_ACK_IGNORE);
    ck_assert_double_eq(emails->dedup_window_ms, 0);
    ck_assert_double_eq(emails->redelivery_delay_ms, 1000);
    ck_assert_uint_eq(s->client_groups[0].queue, 0); /* target server: left at the default */
    ck_assert_uint_eq(s->client_groups[1].queue, 0);
    ck_assert_uint_eq(s->client_groups[2].queue, 1);
    ck_assert_uint_eq(s->client_groups[3].queue, 0); /* no queue: the first */
    ck_assert_uint_eq(s->server.receipts_queue, 1);
    free(s);
}
END_TEST

START_TEST(test_set_reaches_queues_and_queue_references)
{
    const char *overrides[] = {
        "broker.queues[1].ack_timeout_ms=5000",
        "broker.prefetch=3",
        "clients[1].queue=emails",
        "server.receipts_queue=\"orders\"",
    };
    Scenario *s = load_good("tests/good_scenarios/named_queues.json", overrides, 4);
    ck_assert_double_eq(s->broker.queues[1].ack_timeout_ms, 5000);
    ck_assert_uint_eq(s->broker.queues[0].prefetch, 8);
    ck_assert_uint_eq(s->broker.queues[1].prefetch, 3);
    ck_assert_uint_eq(s->client_groups[1].queue, 1);
    ck_assert_uint_eq(s->server.receipts_queue, 0);
    free(s);
    const char *added[] = {"broker.queues=[{\"name\": \"a\"}, {\"name\": \"b\"}]",
                           "clients[0].target=broker", "clients[0].queue=b"};
    s = load_good_text(MINIMAL, added, 3);
    ck_assert_uint_eq(s->broker.queue_count, 2);
    ck_assert_str_eq(s->broker.queues[1].name, "b");
    ck_assert_uint_eq(s->client_groups[0].queue, 1);
    free(s);
    const char *unknown[] = {"clients[0].target=broker", "clients[0].queue=mian"};
    char *lines = load_bad_text(MINIMAL, unknown, 2);
    ck_assert_str_eq(lines, "text: $.clients[0].queue: unknown queue 'mian', did you mean "
                            "'main'? (from --set 'clients[0].queue=mian')\n");
    free(lines);
}
END_TEST

/* An unreadable list of queues is one error: the names that refer to it are not checked. */
START_TEST(test_unreadable_queues_are_one_error)
{
    const char *const lists[] = {"[]", "{\"name\": \"orders\"}"};
    const char *const expected[] = {
        "text: $.broker.queues: expected at least 1 queue (got 0)\n",
        "text: $.broker.queues: expected array (got object)\n",
    };
    for (unsigned i = 0; i < 2; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\","
                 "\"target\":\"broker\",\"queue\":\"orders\"}],\"server\":{"
                 "\"receipts_queue\":\"orders\"},\"broker\":{\"queues\":%s}}",
                 lists[i]);
        char *lines = load_bad_text(text, NULL, 0);
        ck_assert_str_eq(lines, expected[i]);
        free(lines);
    }
    char *lines = load_bad_text("{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\","
                                "\"target\":\"broker\",\"queue\":7}],"
                                "\"server\":{\"receipts_queue\":false}}",
                                NULL, 0);
    ck_assert_str_eq(lines, "text: $.clients[0].queue: expected string (got number)\n"
                            "text: $.server.receipts_queue: expected string (got boolean)\n");
    free(lines);
}
END_TEST

/* ------------------------------------------------------------------ --set */

START_TEST(test_set_overrides_change_values)
{
    const char *overrides[] = {
        "network.default.loss=0.2",
        "clients[0].retry.timeout_ms=250",
        "title=Retry storm at noon",
        "network.links.web->server.loss={\"model\": \"gilbert-elliott\", \"p\": 0.3}",
        "$.server.idempotency.profile=\"stripe\"",
        "modes=[\"idempotent\"]",
    };
    Scenario *s = load_good_text(MINIMAL, overrides, 6);
    ck_assert_double_eq(s->network.default_link.loss.probability, 0.2);
    ck_assert_double_eq(s->client_groups[0].retry.timeout_ms, 250);
    ck_assert_str_eq(s->title, "Retry storm at noon");
    ck_assert_uint_eq(s->network.link_count, 1);
    ck_assert_str_eq(s->network.links[0].source, "web");
    ck_assert_str_eq(s->network.links[0].target, "server");
    ck_assert_int_eq(s->network.links[0].spec.loss.model, LOSS_GILBERT_ELLIOTT);
    ck_assert_double_eq(s->network.links[0].spec.loss.p, 0.3);
    ck_assert_int_eq(s->server.idempotency.profile, PROFILE_STRIPE);
    ck_assert_uint_eq(s->mode_count, 1);
    free(s);
}
END_TEST

START_TEST(test_set_with_a_bad_path_is_a_load_error)
{
    const char *beyond[] = {"clients[3].retry.timeout_ms=250"};
    char *lines = load_bad_text(MINIMAL, beyond, 1);
    ck_assert_str_eq(lines, "text: $.clients[3].retry.timeout_ms: cannot apply --set: "
                            "'clients[3]' does not exist (array has 1 element)\n");
    free(lines);
    const char *through[] = {"clients[0].id.x=1"};
    lines = load_bad_text(MINIMAL, through, 1);
    ck_assert_str_eq(lines, "text: $.clients[0].id.x: cannot apply --set: "
                            "'clients[0].id' is a string, not an object\n");
    free(lines);
    const char *no_equals[] = {"seed"};
    lines = load_bad_text(MINIMAL, no_equals, 1);
    ck_assert_str_eq(lines, "text: --set: expected PATH=VALUE (got 'seed')\n");
    free(lines);
    const char *shell_redirected[] = {"network.links.web-"}; /* web->server, unquoted */
    lines = load_bad_text(MINIMAL, shell_redirected, 1);
    ck_assert_str_eq(lines, "text: --set: expected PATH=VALUE (quote a path with ->: "
                            "--set 'a->b.loss=0') (got 'network.links.web-')\n");
    free(lines);
    const char *not_utf8[] = {"title=caf\xe9"};
    lines = load_bad_text(MINIMAL, not_utf8, 1);
    ck_assert_str_eq(lines, "text: --set: expected PATH=VALUE in UTF-8 (got invalid bytes)\n");
    free(lines);
    const char *bad_path[] = {"clients[x]=1"};
    lines = load_bad_text(MINIMAL, bad_path, 1);
    ck_assert_str_eq(lines, "text: --set: expected path like 'clients[0].retry.timeout_ms' "
                            "(got 'clients[x]')\n");
    free(lines);
}
END_TEST

START_TEST(test_set_is_applied_before_validation)
{
    const char *overrides[] = {"clients[0].retry.timeout_ms=-5", "seed=\"forty\"",
                               "network.default.lost=0.1"};
    char *lines = load_bad_text(MINIMAL, overrides, 3);
    ck_assert_str_eq(lines,
                     "text: $.seed: expected integer (got string) (from --set 'seed=\"forty\"')\n"
                     "text: $.clients[0].retry.timeout_ms: expected number > 0 (got -5) "
                     "(from --set 'clients[0].retry.timeout_ms=-5')\n"
                     "text: $.network.default: unknown key 'lost', did you mean 'loss'? "
                     "(from --set 'network.default.lost=0.1')\n");
    free(lines);
}
END_TEST

/* The file's own mistakes stay the file's, even next to a key that was set. */
START_TEST(test_set_is_named_only_for_the_errors_it_caused)
{
    const char *text = "{\"accounts\":[{\"id\":\"a\",\"balance\":10}],"
                       "\"clients\":[{\"id\":\"web\",\"timeout\":5}],\"seed\":-1}";
    const char *overrides[] = {"clients[0].count=2", "seeds=3"};
    char *lines = load_bad_text(text, overrides, 2);
    ck_assert_str_eq(lines, "text: $: unknown key 'seeds', did you mean 'seed'? "
                            "(from --set 'seeds=3')\n"
                            "text: $.seed: expected integer >= 0 (got -1)\n"
                            "text: $.clients[0]: unknown key 'timeout'\n");
    free(lines);
}
END_TEST

/* ------------------------------------------------------------------ error lines and names */

START_TEST(test_error_lines_name_file_path_and_message)
{
    LoadError with_path = {.path = "$.clients[2].retry.timeout_ms",
                           .message = "expected number > 0 (got -5)"};
    LoadError without_path = {.path = "", .message = "empty file"};
    char line[512];
    scenario_format_error(line, sizeof line, "scenarios/x.json", &with_path);
    ck_assert_str_eq(line, "scenarios/x.json: $.clients[2].retry.timeout_ms: "
                           "expected number > 0 (got -5)");
    scenario_format_error(line, sizeof line, "scenarios/x.json", &without_path);
    ck_assert_str_eq(line, "scenarios/x.json: empty file");
    scenario_format_error(line, sizeof line, NULL, &with_path);
    ck_assert_str_eq(line, "$.clients[2].retry.timeout_ms: expected number > 0 (got -5)");
}
END_TEST

START_TEST(test_printed_errors_end_with_a_note_when_truncated)
{
    LoadErrors errors = {.count = 1, .truncated = true};
    errors.items[0] = (LoadError){.path = "$", .message = "unknown key 'x'"};
    char *text = print_errors("f.json", &errors);
    ck_assert_str_eq(text, "f.json: $: unknown key 'x'\n"
                           "f.json: ... and more errors (only the first 64 are shown)\n");
    free(text);
}
END_TEST

START_TEST(test_names_round_trip)
{
    for (int i = 0; i < MODE_COUNT; i++) {
        Mode mode = MODE_COUNT;
        ck_assert(mode_from_name(mode_name((Mode)i), &mode));
        ck_assert_int_eq(mode, i);
    }
    ck_assert_str_eq(mode_name(MODE_AT_LEAST_ONCE), "at-least-once");
    Mode unused = MODE_COUNT;
    ck_assert(!mode_from_name("exactly-once", &unused));
    ck_assert_str_eq(operation_kind_name(OPERATION_INSERT_UNIQUE), "insert-unique");
    ck_assert_str_eq(key_strategy_name(KEY_SERVER_GENERATED), "server-generated");
    ck_assert_str_eq(store_profile_name(PROFILE_BRANDUR), "brandur");
    /* the saga counters (C28); lost updates (C29); balancer_retries; deadlines (C31);
     * connections (C32); orders fulfilled twice (C33); second firings (C34); card holds
     * (C35); consumer failures (C36); transactions (C37); a key store's own crashes (C38);
     * lost captures and settlement corrections (C35); a proxy's crashes */
    ck_assert_uint_eq(scenario_metric_count, 97);
    ck_assert_str_eq(scenario_metric_names[0], "operations");
    /* the loader's table has room for every name: the last one is a metric "expect" takes */
    char json[256];
    snprintf(json, sizeof json,
             "{\"accounts\": [{\"id\": \"a\"}], \"clients\": [{\"id\": \"w\"}],"
             " \"expect\": {\"idempotent\": {\"%s\": {\"min\": 0}}}}",
             scenario_metric_names[scenario_metric_count - 1]);
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert_msg(scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors), "%s: %s",
                  errors.items[0].path, errors.items[0].message);
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ the format reference */

#define FIELDS_MAX 512

/* The section under the heading that names object in backticks: from that heading to the
 * next heading. NULL when there is none. *length receives its length. */
static const char *find_section(const char *doc, const char *object, size_t *length)
{
    char needle[128];
    snprintf(needle, sizeof needle, "`%s`", object);
    for (const char *line = doc; *line != '\0';) {
        size_t line_length = strcspn(line, "\n");
        const char *next = line + line_length + (line[line_length] == '\n');
        if (line[0] == '#') {
            const char *hit = strstr(line, needle);
            if (hit != NULL && hit < line + line_length) {
                const char *end = next;
                while (*end != '\0' && *end != '#') {
                    end += strcspn(end, "\n");
                    end += *end == '\n';
                }
                *length = (size_t)(end - next);
                return next;
            }
        }
        line = next;
    }
    return NULL;
}

static bool section_has_row(const char *section, size_t length, const char *key)
{
    char row[128];
    snprintf(row, sizeof row, "| `%s` |", key);
    size_t row_length = strlen(row);
    for (const char *line = section; line < section + length;) {
        if (strncmp(line, row, row_length) == 0) {
            return true;
        }
        line += strcspn(line, "\n");
        line += *line == '\n';
    }
    return false;
}

static bool is_known(const ScenarioField *fields, unsigned count, const char *object,
                     const char *key, size_t key_length)
{
    for (unsigned i = 0; i < count; i++) {
        if (strcmp(fields[i].object, object) == 0 && strlen(fields[i].key) == key_length &&
            strncmp(fields[i].key, key, key_length) == 0) {
            return true;
        }
    }
    return false;
}

/* Every row "| `key` |" of an object's section is a key the loader knows. */
static unsigned count_stale_rows(const char *section, size_t length, const char *object,
                                 const ScenarioField *fields, unsigned count)
{
    unsigned stale = 0;
    for (const char *line = section; line < section + length;) {
        if (strncmp(line, "| `", 3) == 0) {
            const char *key = line + 3;
            size_t key_length = strcspn(key, "`\n");
            if (!is_known(fields, count, object, key, key_length)) {
                fprintf(stderr,
                        "docs/scenario-format.md: `%s` documents '%.*s', which the "
                        "loader does not accept\n",
                        object, (int)key_length, key);
                stale++;
            }
        }
        line += strcspn(line, "\n");
        line += *line == '\n';
    }
    return stale;
}

START_TEST(test_format_reference_lists_exactly_the_known_fields)
{
    char *doc = read_whole("docs/scenario-format.md", NULL);
    ck_assert_msg(doc != NULL, "cannot read docs/scenario-format.md");
    static ScenarioField fields[FIELDS_MAX];
    unsigned count = scenario_known_fields(fields, FIELDS_MAX);
    ck_assert_uint_le(count, FIELDS_MAX);
    ck_assert_uint_ge(count, 90);
    unsigned problems = 0;
    for (unsigned i = 0; i < count; i++) {
        size_t length = 0;
        const char *section = find_section(doc, fields[i].object, &length);
        if (section == NULL || !section_has_row(section, length, fields[i].key)) {
            fprintf(stderr, "docs/scenario-format.md: no row `%s` under a heading naming `%s`\n",
                    fields[i].key, fields[i].object);
            problems++;
        } else if (i == 0 || strcmp(fields[i - 1].object, fields[i].object) != 0) {
            problems += count_stale_rows(section, length, fields[i].object, fields, count);
        }
    }
    size_t length = 0;
    const char *metrics = find_section(doc, "expect.MODE", &length);
    ck_assert_msg(metrics != NULL, "no section for `expect.MODE` (metric names)");
    for (unsigned i = 0; i < scenario_metric_count; i++) {
        if (!section_has_row(metrics, length, scenario_metric_names[i])) {
            fprintf(stderr, "docs/scenario-format.md: metric `%s` is not listed\n",
                    scenario_metric_names[i]);
            problems++;
        }
    }
    free(doc);
    ck_assert_msg(problems == 0, "%u differences between the loader and the format reference",
                  problems);
}
END_TEST

START_TEST(test_known_fields_name_their_objects)
{
    static ScenarioField fields[FIELDS_MAX];
    unsigned count = scenario_known_fields(fields, FIELDS_MAX);
    bool retry_timeout = false;
    bool pareto_alpha = false;
    for (unsigned i = 0; i < count && i < FIELDS_MAX; i++) {
        retry_timeout |= strcmp(fields[i].object, "clients[].retry") == 0 &&
                         strcmp(fields[i].key, "timeout_ms") == 0;
        pareto_alpha |=
            strcmp(fields[i].object, "<distribution>") == 0 && strcmp(fields[i].key, "alpha") == 0;
    }
    ck_assert(retry_timeout);
    ck_assert(pareto_alpha);
    ck_assert_uint_eq(scenario_known_fields(NULL, 0), count);
}
END_TEST

/* ------------------------------------------------------------------ limits */

START_TEST(test_a_hundred_thousand_brackets_are_refused_quickly)
{
    size_t length = 100000;
    char *text = malloc(length);
    memset(text, '[', length);
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert(!scenario_load_text(text, length, NULL, 0, scenario, &errors));
    ck_assert_uint_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].message, "nesting deeper than 32 levels at line 1, column 33");
    free(text);
    free(scenario);
}
END_TEST

START_TEST(test_huge_texts_are_refused_without_reading_them)
{
    size_t length = (size_t)100 << 20;
    char *text = malloc(length);
    ck_assert_ptr_nonnull(text);
    memset(text, '[', length);
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert(!scenario_load_text(text, length, NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].message, "file too large: expected at most 67108864 bytes");
    free(text);
    free(scenario);
}
END_TEST

START_TEST(test_a_million_elements_are_a_capacity_error)
{
    size_t count = 1000000;
    char *text = malloc(count * 16 + 128);
    size_t used = (size_t)sprintf(text, "{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"w\","
                                        "\"workload\":{\"at_ms\":[");
    for (size_t i = 0; i < count; i++) {
        used += (size_t)sprintf(text + used, "%s%zu", i > 0 ? "," : "", i);
    }
    used += (size_t)sprintf(text + used, "]}}]}");
    char *lines = NULL;
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert(!scenario_load_text(text, used, NULL, 0, scenario, &errors));
    lines = print_errors("text", &errors);
    ck_assert_str_eq(lines, "text: $.clients[0].workload.at_ms: expected at most 64 times "
                            "(got 1000000)\n");
    free(lines);
    free(text);
    free(scenario);
}
END_TEST

START_TEST(test_odd_numbers_and_strings)
{
    Scenario *s = load_good_text(
        "{\"accounts\":[{\"id\":\"a\",\"balance\":-0}],\"clients\":[{\"id\":\"web\","
        "\"workload\":{\"start_ms\":1e-400}}],\"title\":\"caf\\u00e9 \\ud83d\\ude00\"}",
        NULL, 0);
    ck_assert_int_eq(s->accounts[0].balance, 0);
    ck_assert_double_eq(s->client_groups[0].workload.start_ms, 0);
    ck_assert(!signbit(s->client_groups[0].workload.start_ms));
    ck_assert_str_eq(s->title, "caf\xc3\xa9 \xf0\x9f\x98\x80");
    free(s);
    char *lines = load_bad_text("{\"accounts\":[{\"id\":\"a\"}],\"clients\":[{\"id\":\"web\"}],"
                                "\"seed\":-1e400,\"duration_ms\":-0}",
                                NULL, 0);
    ck_assert_str_eq(lines, "text: $.seed: expected integer >= 0 (got -1e400)\n"
                            "text: $.duration_ms: expected number > 0 (got -0)\n");
    free(lines);
}
END_TEST

/* Mutations of a good file: every one must load or be refused, never crash, and give the
 * same answer twice. */
START_TEST(test_mutated_files_never_crash)
{
    size_t length = 0;
    char *original = read_whole("tests/good_scenarios/design_example.json", &length);
    ck_assert_ptr_nonnull(original);
    char *text = malloc(length + 1);
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors first;
    LoadErrors second;
    unsigned long long state = 42;
    for (unsigned round = 0; round < 3000; round++) {
        memcpy(text, original, length + 1);
        size_t used = length;
        for (unsigned edits = 0; edits < 1 + round % 4; edits++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(state >> 33) % used;
            unsigned char byte = (unsigned char)(state >> 20);
            switch ((state >> 60) % 4) {
            case 0:
                text[at] = (char)byte;
                break;
            case 1:
                used = at;
                break;
            case 2:
                text[at] = "{}[],:\"\\0-e."[byte % 12];
                break;
            default:
                memmove(text + at, text + at + 1, used - at - 1);
                used--;
                break;
            }
            if (used == 0) {
                used = 1;
            }
        }
        bool ok = scenario_load_text(text, used, NULL, 0, scenario, &first);
        ck_assert(ok == scenario_load_text(text, used, NULL, 0, scenario, &second));
        ck_assert_uint_eq(first.count, second.count);
        for (uint32_t i = 0; i < first.count; i++) {
            ck_assert_str_eq(first.items[i].path, second.items[i].path);
            ck_assert_str_eq(first.items[i].message, second.items[i].message);
        }
    }
    free(text);
    free(original);
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ the suite */

static Suite *scenario_load_suite(void)
{
    Suite *suite = suite_create("scenario_load");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_bad_scenarios_report_the_expected_errors);
    tcase_add_test(core, test_questions_keep_their_order_text_and_report_metric_names);
    tcase_add_test(core, test_questions_are_checked_against_the_duration_set_on_the_command_line);
    tcase_add_test(core, test_unreadable_file_is_one_error_without_path);
    tcase_add_test(core, test_design_example_lands_in_every_field);
    tcase_add_test(core, test_design_example_services_and_expectations);
    tcase_add_test(core, test_minimal_file_gets_the_documented_defaults);
    tcase_add_test(core, test_file_name_is_the_default_scenario_name);
    tcase_add_test(core, test_partial_object_keeps_the_other_defaults);
    tcase_add_test(core, test_link_override_starts_from_the_default_link);
    tcase_add_test(core, test_workload_and_retry_lists);
    tcase_add_test(core, test_without_queues_the_broker_has_one_queue_main_with_its_rules);
    tcase_add_test(core, test_each_queue_takes_its_own_rules_or_the_broker_level_ones);
    tcase_add_test(core, test_set_reaches_queues_and_queue_references);
    tcase_add_test(core, test_unreadable_queues_are_one_error);
    tcase_add_test(core, test_set_overrides_change_values);
    tcase_add_test(core, test_set_with_a_bad_path_is_a_load_error);
    tcase_add_test(core, test_set_is_applied_before_validation);
    tcase_add_test(core, test_set_is_named_only_for_the_errors_it_caused);
    tcase_add_test(core, test_error_lines_name_file_path_and_message);
    tcase_add_test(core, test_printed_errors_end_with_a_note_when_truncated);
    tcase_add_test(core, test_names_round_trip);
    tcase_add_test(core, test_format_reference_lists_exactly_the_known_fields);
    tcase_add_test(core, test_known_fields_name_their_objects);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_set_timeout(limits, 60);
    tcase_add_test(limits, test_a_hundred_thousand_brackets_are_refused_quickly);
    tcase_add_test(limits, test_huge_texts_are_refused_without_reading_them);
    tcase_add_test(limits, test_a_million_elements_are_a_capacity_error);
    tcase_add_test(limits, test_odd_numbers_and_strings);
    tcase_add_test(limits, test_mutated_files_never_crash);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    /* Paths in the corpus's .expected files are relative to the project root. */
    if (chdir(IDEMSIM_SOURCE_DIR) != 0) {
        perror(IDEMSIM_SOURCE_DIR);
        return 1;
    }
    SRunner *runner = srunner_create(scenario_load_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
