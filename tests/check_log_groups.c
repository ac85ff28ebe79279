/* Several consumer groups on a log (issue 21): as Kafka's consumer groups do, each group reads
 * every record of the log, with its own partitions' offsets, owners, commits and rebalances.
 * The first group applies the operation; a later one emails its confirmation. The lesson is
 * scenarios/architectures/orders_log_charge_and_confirm.json: chargers and mailers on one
 * topic. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "test_world.h"
#include "trace.h"
#include "world.h"

#define LOG_GROUPS "scenarios/architectures/orders_log_charge_and_confirm.json"

/* With nothing lost and nothing crashing, each group reads every record once: every order is
 * one record in each group's copy of the log, charged once and confirmed once. */
START_TEST(test_each_group_reads_every_record)
{
    const char *calm[] = {"network.links={}", "services.chargers.crash.prob=0",
                          "services.mailers.crash.prob=0"};
    Scenario *scenario = test_load_source_file(LOG_GROUPS, calm, 3);
    ck_assert_uint_eq(scenario->extra_consumer_count, 1);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(scenario, (Mode)mode, scenario->seed);
        ck_assert_uint_eq(metrics.messages, 2 * metrics.operations);
        ck_assert_double_eq(test_service_value(&metrics, "chargers", "received"),
                            (double)metrics.operations);
        ck_assert_double_eq(test_service_value(&metrics, "mailers", "received"),
                            (double)metrics.operations);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], metrics.operations);
        ck_assert_uint_eq(metrics.receipts_sent, metrics.operations);
        ck_assert_uint_eq(metrics.receipts_missing + metrics.receipts_duplicated, 0);
        ck_assert_uint_eq(metrics.rebalances, 0);
        /* commit after, at once: each group commits each of its records */
        ck_assert_uint_eq(metrics.offset_commits, 2 * metrics.operations);
    }
    free(scenario);
}
END_TEST

/* A crash moves back only its own group's partitions: mailers that die after sending
 * re-read (and re-send) from their last commit, while the chargers, who never crash, charge
 * each order once; and the other way round. */
START_TEST(test_each_group_replays_from_its_own_commit)
{
    const char *mailers_die[] = {"network.links={}", "services.chargers.crash.prob=0",
                                 "services.mailers.crash.prob=0.05"};
    Scenario *scenario = test_load_source_file(LOG_GROUPS, mailers_die, 3);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_uint_gt(metrics.rebalances, 0);
    ck_assert_double_eq(test_service_value(&metrics, "chargers", "runs"),
                        (double)metrics.operations);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(metrics.receipts_duplicated, 0);
    free(scenario);
    const char *chargers_die[] = {"network.links={}", "services.chargers.crash.prob=0.05",
                                  "services.mailers.crash.prob=0"};
    scenario = test_load_source_file(LOG_GROUPS, chargers_die, 3);
    metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_uint_gt(metrics.rebalances, 0);
    ck_assert_uint_gt(metrics.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_double_eq(test_service_value(&metrics, "mailers", "runs"),
                        (double)metrics.operations);
    ck_assert_uint_eq(metrics.receipts_duplicated, 0);
    free(scenario);
}
END_TEST

/* The offsets each group commits, by the queue its trace records name. */
typedef struct {
    uint32_t first_group, mailers, other;
    uint32_t mailer_rebalances, unnamed_rebalances;
} CommitsSeen;

static void note_commit(void *context, const TraceRecord *record)
{
    CommitsSeen *seen = context;
    if (record->event == TRACE_REBALANCE) {
        if (record->queue == NULL)
            seen->unnamed_rebalances++;
        else if (strcmp(record->queue, "mailers") == 0)
            seen->mailer_rebalances++;
        return;
    }
    if (record->event != TRACE_OFFSET_COMMIT)
        return;
    if (record->queue[0] == 'p')
        seen->first_group++;
    else if (strncmp(record->queue, "mailers/p", 9) == 0)
        seen->mailers++;
    else
        seen->other++;
}

/* The traces keep the groups apart: the first group's partitions are "p0".."p5" as with one
 * group, a later group's name it ("mailers/p3"), and so do its rebalances. */
START_TEST(test_the_traces_name_each_groups_partitions)
{
    const char *mailers_die[] = {"network.links={}", "services.chargers.crash.prob=0",
                                 "services.mailers.crash.prob=0.05"};
    Scenario *scenario = test_load_source_file(LOG_GROUPS, mailers_die, 3);
    CommitsSeen seen = {0};
    World *world =
        world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                     (TraceSink){.write = note_commit, .context = &seen}, (WorldLimits){0});
    world_run(world);
    ck_assert_uint_gt(seen.first_group, 100);
    ck_assert_uint_gt(seen.mailers, 100);
    ck_assert_uint_eq(seen.other, 0);
    ck_assert_uint_gt(seen.mailer_rebalances, 0);
    ck_assert_uint_eq(seen.unnamed_rebalances, 0); /* the chargers never crash */
    world_destroy(world);
    free(scenario);
}
END_TEST

/* The same scenario and seed give the same run, two groups' draws and timers included. */
START_TEST(test_two_groups_on_a_log_are_deterministic)
{
    Scenario *scenario = test_load_source_file(LOG_GROUPS, NULL, 0);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics once = test_run_mode(scenario, (Mode)mode, scenario->seed);
        Metrics again = test_run_mode(scenario, (Mode)mode, scenario->seed);
        ck_assert_uint_eq(once.executions, again.executions);
        ck_assert_uint_eq(once.deliveries, again.deliveries);
        ck_assert_uint_eq(once.offset_commits, again.offset_commits);
        ck_assert_uint_eq(once.receipts_duplicated, again.receipts_duplicated);
        ck_assert_uint_eq(once.outcomes[OUTCOME_DOUBLE], again.outcomes[OUTCOME_DOUBLE]);
    }
    free(scenario);
}
END_TEST

/* Two groups on a log with every per-group mechanism at work: instances, crashes, sessions,
 * failing handlers forwarded to retry topics and dead-lettered, periodic rebalances and
 * auto-commits. Each group's state is its own (LogGroup): the chargers run as they do with no
 * mailers at all, and the mailers as they do whatever the chargers do. */
#define BUSY_LOG_HEAD                                                                              \
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 100000000}], \"seed\": 9,"                       \
    " \"duration_ms\": 40000,"                                                                     \
    " \"services\": ["                                                                             \
    "   {\"id\": \"q\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 5,"             \
    "    \"rebalance_every_ms\": 7000, \"commit_interval_ms\": 300},"                              \
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": "      \
    "\"k1\","                                                                                      \
    "    \"instances\": 2, \"session_timeout_ms\": 1500, \"fail_after_effect\": 0.05,"             \
    "    \"retryable_topic\": {\"attempts\": 2, \"delay_ms\": 300}, \"dead_letters\": \"review\"," \
    "    \"crash\": {\"point\": \"after-effect\", \"prob\": 0.03, \"restart_ms\": 800}},"          \
    "   {\"id\": \"k1\", \"kind\": \"key_store\", \"lock_timeout_ms\": 2000}"
#define BUSY_LOG_MAILERS                                                                           \
    ",  {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": "       \
    "\"k2\","                                                                                      \
    "    \"steps\": [{\"effect\": \"email\"}], \"instances\": 3, \"session_timeout_ms\": 1000,"    \
    "    \"fail_before_effect\": 0.1, \"dead_letters\": \"review\","                               \
    "    \"retryable_topic\": {\"attempts\": 3, \"delay_ms\": 200, \"multiplier\": 2},"            \
    "    \"crash\": {\"point\": \"after-completion\", \"prob\": 0.03, \"restart_ms\": 1000}},"     \
    "   {\"id\": \"k2\", \"kind\": \"key_store\", \"lock_timeout_ms\": 2000}"
#define BUSY_LOG_TAIL                                                                              \
    "],"                                                                                           \
    " \"clients\": [{\"id\": \"app\", \"count\": 12, \"publishes\": \"q\","                        \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 15, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 1500}}}]}"

static const char *const busy_two_groups = (BUSY_LOG_HEAD BUSY_LOG_MAILERS BUSY_LOG_TAIL);
static const char *const busy_chargers_alone = (BUSY_LOG_HEAD BUSY_LOG_TAIL);

static Metrics run_busy(const char *json, const char *chargers_crash, Mode mode)
{
    const char *override[1];
    char crash[64];
    snprintf(crash, sizeof crash, "services.chargers.crash.prob=%s", chargers_crash);
    override[0] = crash;
    Scenario *scenario = test_load(json, override, 1);
    Metrics metrics = test_run_mode(scenario, mode, scenario->seed);
    free(scenario);
    return metrics;
}

START_TEST(test_each_groups_state_is_its_own)
{
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics both = run_busy(busy_two_groups, "0.03", (Mode)mode);
        Metrics alone = run_busy(busy_chargers_alone, "0.03", (Mode)mode);
        /* every mechanism ran, in both groups */
        ck_assert_double_gt(test_service_value(&both, "mailers#2", "crashes"), 0);
        ck_assert_double_gt(test_service_value(&both, "chargers#2", "crashes"), 0);
        ck_assert_uint_gt(both.rebalances, alone.rebalances);
        if (mode != MODE_AT_MOST_ONCE)
            ck_assert_uint_gt(both.dead_lettered, alone.dead_lettered);
        /* the chargers as without the mailers */
        for (int outcome = 0; outcome < OUTCOME_COUNT; outcome++)
            ck_assert_uint_eq(both.outcomes[outcome], alone.outcomes[outcome]);
        ck_assert_int_eq(both.balances[0].actual, alone.balances[0].actual);
        ck_assert_double_eq(test_service_value(&both, "chargers#1", "runs"),
                            test_service_value(&alone, "chargers#1", "runs"));
        ck_assert_double_eq(test_service_value(&both, "chargers#2", "runs"),
                            test_service_value(&alone, "chargers#2", "runs"));
        /* the mailers as with chargers that never crash */
        Metrics calm = run_busy(busy_two_groups, "0", (Mode)mode);
        ck_assert_uint_eq(both.receipts_sent, calm.receipts_sent);
        ck_assert_uint_eq(both.receipts_duplicated, calm.receipts_duplicated);
        for (uint32_t i = 1; i <= 3; i++) {
            char mailer[16];
            snprintf(mailer, sizeof mailer, "mailers#%u", i);
            ck_assert_double_eq(test_service_value(&both, mailer, "runs"),
                                test_service_value(&calm, mailer, "runs"));
            ck_assert_double_eq(test_service_value(&both, mailer, "received"),
                                test_service_value(&calm, mailer, "received"));
        }
    }
}
END_TEST

/* Each group's periodic rebalances and auto-commits, from the trace. */
typedef struct {
    uint32_t rebalances[2];    /* the first group's (no detail), the mailers' */
    uint32_t commits[2];       /* "p3", "mailers/p3" */
    uint32_t commits_off_grid; /* not at a multiple of commit_interval_ms */
} GridSeen;

static void note_grid(void *context, const TraceRecord *record)
{
    GridSeen *seen = context;
    if (record->event == TRACE_REBALANCE)
        seen->rebalances[record->queue != NULL]++;
    if (record->event != TRACE_OFFSET_COMMIT)
        return;
    seen->commits[record->queue[0] != 'p']++;
    seen->commits_off_grid += record->t_us % 300000 != 0;
}

/* rebalance_every_ms rebalances every group, each on its own: with nothing crashing, 40 s
 * and 7 s make 5 each; auto-commits commit every group's partitions, on one grid. */
START_TEST(test_periodic_rebalances_and_commits_are_every_groups)
{
    const char *calm[] = {"services.chargers.crash.prob=0", "services.mailers.crash.prob=0",
                          "services.chargers.fail_after_effect=0",
                          "services.mailers.fail_before_effect=0"};
    Scenario *scenario = test_load(busy_two_groups, calm, 4);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        GridSeen seen = {0};
        World *world =
            world_create(scenario, (Mode)mode, scenario->seed,
                         (TraceSink){.write = note_grid, .context = &seen}, (WorldLimits){0});
        world_run(world);
        ck_assert_uint_eq(seen.rebalances[0], 5);
        ck_assert_uint_eq(seen.rebalances[1], 5);
        ck_assert_uint_gt(seen.commits[0], 50);
        ck_assert_uint_gt(seen.commits[1], 50);
        if (mode != MODE_AT_MOST_ONCE) /* it commits each record as it goes out */
            ck_assert_uint_eq(seen.commits_off_grid, 0);
        const Metrics *metrics = world_metrics(world);
        ck_assert_uint_eq(metrics->rebalances, 10);
        world_destroy(world);
    }
    free(scenario);
}
END_TEST

/* An order API publishes each order it takes to the log (its publish step alone): the
 * chargers charge it, the mailers email its confirmation, and each order's receipt is
 * counted, as a client group's publish's is. Before, an operation that reached the log
 * through the API was not meant to have a receipt: every email went uncounted (0 sent). */
static const char *const order_api_on_log =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"duration_ms\": 30000,"
    " \"services\": ["
    "   {\"id\": \"api\", \"kind\": \"server\", \"key_store\": \"api-keys\","
    "    \"steps\": [{\"publish\": \"orders\"}]},"
    "   {\"id\": \"api-keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 4},"
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"k1\"},"
    "   {\"id\": \"k1\", \"kind\": \"key_store\"},"
    "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"k2\", \"steps\": [{\"effect\": \"email\"}]},"
    "   {\"id\": \"k2\", \"kind\": \"key_store\"}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 10, \"calls\": \"api\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 5, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 1000}}}]}";

START_TEST(test_an_order_apis_orders_on_a_log_have_receipts)
{
    Scenario *scenario = test_load(order_api_on_log, NULL, 0);
    ck_assert(scenario->server.publishes_orders);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(scenario, (Mode)mode, scenario->seed);
        ck_assert_uint_eq(metrics.operations, 50);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], metrics.operations);
        ck_assert_double_eq(test_service_value(&metrics, "mailers", "runs"),
                            (double)metrics.operations);
        ck_assert_uint_eq(metrics.receipts_sent, metrics.operations);
        ck_assert_uint_eq(metrics.receipts_missing + metrics.receipts_duplicated, 0);
        ck_assert_uint_eq(metrics.receipts_orphaned, 0);
    }
    /* a mailer that never runs leaves every charged order without its receipt */
    const char *mailers_fail[] = {"services.mailers.fail_before_effect=1",
                                  "services.mailers.retryable_topic={\"attempts\": 2}"};
    Scenario *failing = test_load(order_api_on_log, mailers_fail, 2);
    Metrics metrics = test_run_mode(failing, MODE_AT_LEAST_ONCE, failing->seed);
    ck_assert_uint_eq(metrics.receipts_sent, 0);
    ck_assert_uint_eq(metrics.receipts_missing, metrics.operations);
    free(failing);
    free(scenario);
}
END_TEST

static const char *const two_groups =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
    " \"services\": ["
    "   {\"id\": \"q\", \"kind\": \"broker\", \"family\": \"log\"},"
    "   {\"id\": \"one\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": \"k1\"},"
    "   {\"id\": \"k1\", \"kind\": \"key_store\"},"
    "   {\"id\": \"two\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": \"k2\","
    "    \"steps\": [{\"effect\": \"email\"}]},"
    "   {\"id\": \"k2\", \"kind\": \"key_store\"}],"
    " \"clients\": [{\"id\": \"c\", \"publishes\": \"q\"}]}";

/* Its positive twin of the refusals below: two groups, the later one emailing, load. */
START_TEST(test_a_later_group_that_emails_loads)
{
    Scenario *scenario = test_load(two_groups, NULL, 0);
    ck_assert_uint_eq(scenario->extra_consumer_count, 1);
    ck_assert(scenario->extra_consumers[0].spec.sends_email);
    free(scenario);
}
END_TEST

/* A later group applying the operation too would be a second effect of one operation, which
 * the model does not keep: refused at its steps. */
START_TEST(test_a_later_group_on_a_log_only_emails)
{
    const char *applies[] = {"services.two.steps=[{\"effect\": \"local\"}]"};
    test_assert_refused(two_groups, applies, 1, "$.services[3].steps",
                        "expected [{\"effect\": \"email\"}] for a later consumer group on a log");
}
END_TEST

/* A log's groups take no queues: each reads every record. */
START_TEST(test_a_log_group_names_no_queues)
{
    const char *queues[] = {"services.two.queues=[\"main\"]"};
    test_assert_refused(two_groups, queues, 1, "$.services[3].queues",
                        "expected no queues with a broker of family 'log'");
}
END_TEST

/* A later group's failing handler needs retry topics, as the first group's does (a log has
 * no per-message nack). */
START_TEST(test_a_later_groups_failures_need_retry_topics)
{
    const char *failing[] = {"services.two.fail_before_effect=0.1"};
    test_assert_refused(two_groups, failing, 1, "$.services[3].fail_before_effect",
                        "expected a retryable_topic with a failing handler on a log");
    const char *retried[] = {"services.two.fail_before_effect=0.1",
                             "services.two.retryable_topic={\"attempts\": 3}"};
    Scenario *scenario = test_load(two_groups, retried, 2);
    ck_assert(scenario->extra_consumers[0].spec.retryable_topic.enabled);
    free(scenario);
}
END_TEST

/* A later group's crash needs a lease only where a key it left processing outlives it, as
 * the first group's does: its durable store keeps the key (refused without a lease), a store
 * in its one instance's memory dies with it (loads, and every order is confirmed or missed
 * by the end of the run, none held behind a stuck key). */
START_TEST(test_a_later_groups_crash_needs_a_lease_only_where_its_keys_outlive_it)
{
    const char *durable[] = {
        "services.two.crash={\"point\": \"after-effect\", \"prob\": 0.2, \"restart_ms\": 300}"};
    test_assert_refused(two_groups, durable, 1, "$.services[3].key_store",
                        "expected its key store's lock_timeout_ms > 0 on a log that crashes");
    const char *in_memory[] = {
        "services.two.crash={\"point\": \"after-effect\", \"prob\": 0.2, \"restart_ms\": 300}",
        "services.k2.durable=false", "clients[0].workload={\"ops\": 40, \"interval_ms\": 200}",
        "duration_ms=20000"};
    Scenario *scenario = test_load(two_groups, in_memory, 4);
    for (Mode mode = MODE_AT_LEAST_ONCE; mode <= MODE_IDEMPOTENT; mode++) {
        Metrics metrics = test_run_mode(scenario, mode, scenario->seed);
        ck_assert_uint_eq(metrics.operations, 40);
        ck_assert_uint_gt(test_service_value(&metrics, "two", "crashes"), 0);
        ck_assert_uint_eq(metrics.receipts_missing, 0); /* every order's email went out */
    }
    free(scenario);
}
END_TEST

/* Show writes each group without queues, and reads back to the same groups. */
START_TEST(test_show_keeps_a_logs_groups)
{
    Scenario *scenario = test_load_source_file(LOG_GROUPS, NULL, 0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_null(strstr(shown, "\"queues\""));
    ck_assert_uint_eq(again->extra_consumer_count, 1);
    ck_assert_str_eq(again->extra_consumers[0].id, "mailers");
    ck_assert(again->extra_consumers[0].spec.sends_email);
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("log_groups");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_each_group_reads_every_record);
    tcase_add_test(model, test_each_group_replays_from_its_own_commit);
    tcase_add_test(model, test_the_traces_name_each_groups_partitions);
    tcase_add_test(model, test_two_groups_on_a_log_are_deterministic);
    tcase_add_test(model, test_an_order_apis_orders_on_a_log_have_receipts);
    tcase_add_test(model, test_each_groups_state_is_its_own);
    tcase_add_test(model, test_periodic_rebalances_and_commits_are_every_groups);
    suite_add_tcase(suite, model);
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_a_later_group_that_emails_loads);
    tcase_add_test(loader, test_a_later_group_on_a_log_only_emails);
    tcase_add_test(loader, test_a_log_group_names_no_queues);
    tcase_add_test(loader, test_a_later_groups_failures_need_retry_topics);
    tcase_add_test(loader, test_show_keeps_a_logs_groups);
    tcase_add_test(loader, test_a_later_groups_crash_needs_a_lease_only_where_its_keys_outlive_it);
    suite_add_tcase(suite, loader);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
