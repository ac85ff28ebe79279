/* C37: on a log broker, the consumers' outputs and their offsets commit in one producer
 * transaction; a crash or a rebalance aborts what was written since the last commit, and
 * read_committed readers never see it. Closed forms on a scripted run: one partition, one
 * crash right after a record's output, auto-commit far away, so every record processed
 * before the crash is replayed. */
#include "test_world.h"

#define RECORDS 10 /* one client, 10 payments, one partition */

/* The crash comes right after the tenth record's output: the fault plan (a `faults` list)
 * draws no crash but the one it forces, at operation 9's delivery. No commit comes before
 * it: the first auto-commit is at 500 s. */
static const char *const one_partition =
    "{\"name\": \"kafka_transactions\", \"seed\": 5, \"duration_ms\": 600000,"
    " \"accounts\": [{\"id\": \"shop\", \"balance\": 100000000}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 10, \"loop\": \"open\","
    "                \"interval_ms\": {\"dist\": \"const\", \"value\": 100}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"broker\": {\"family\": \"log\", \"partitions\": 1, \"commit\": \"after\","
    "   \"commit_interval_ms\": 500000,"
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "     \"idempotency\": {\"key\": \"message-id\", \"lock_timeout_ms\": 100},"
    "     \"crash\": {\"point\": \"after-effect\", \"prob\": 0.5, \"max_crashes\": 1,"
    "               \"restart_ms\": 1000}}},"
    " \"faults\": [{\"fault\": \"consumer-crash\", \"operation\": 9, \"attempt\": 1, \"copy\": "
    "258}]}";

static Metrics run_with(const char *const *overrides, uint32_t count, Mode mode)
{
    return test_run_json(one_partition, overrides, count, mode);
}

/* Without transactions the crash comes after ten outputs and before any commit: the next
 * owner writes all ten again. */
START_TEST(test_a_crash_before_the_offset_commit_duplicates_every_output_since)
{
    Metrics m = run_with(NULL, 0, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(m.crashes, 1);
    ck_assert_uint_eq(m.operations, RECORDS);
    ck_assert_uint_eq(m.effects, 2 * RECORDS);
    ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], RECORDS);
    ck_assert_uint_eq(m.transactions_aborted, 0);
}
END_TEST

/* With the outputs in the transaction and read_committed readers, the crash aborts all ten:
 * each is written once more and read once. */
START_TEST(test_an_aborted_transaction_is_never_read_under_read_committed)
{
    const char *const committed[] = {"broker.transactional=true",
                                     "broker.isolation=read_committed"};
    Metrics m = run_with(committed, 2, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(m.crashes, 1);
    ck_assert_uint_eq(m.transactions_aborted, RECORDS);
    ck_assert_uint_eq(m.outcomes[OUTCOME_OK], RECORDS);
    ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_int_eq(metrics_balance_error(&m), 0);
}
END_TEST

/* The same aborts, read uncommitted: every aborted output still counts. */
START_TEST(test_read_uncommitted_reads_the_aborted_outputs)
{
    const char *const uncommitted[] = {"broker.transactional=true"};
    Metrics m = run_with(uncommitted, 1, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(m.transactions_aborted, RECORDS);
    ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], RECORDS);
}
END_TEST

/* The keyed consumers' rows are part of the transaction: an aborted output takes its key row
 * with it, so the replay runs (once) instead of being skipped as done (a lost payment). */
START_TEST(test_an_aborted_output_takes_its_key_row_with_it)
{
    const char *const committed[] = {"broker.transactional=true",
                                     "broker.isolation=read_committed"};
    Metrics m = run_with(committed, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(m.transactions_aborted, RECORDS);
    ck_assert_uint_eq(m.consumer_replayed, 0);
    ck_assert_uint_eq(m.outcomes[OUTCOME_OK], RECORDS);
    ck_assert_uint_eq(m.outcomes[OUTCOME_LOST], 0);
}
END_TEST

/* An email is outside the transaction: the replay sends all ten again. */
START_TEST(test_an_email_is_not_taken_back_by_an_abort)
{
    const char *const email[] = {"broker.transactional=true", "broker.isolation=read_committed",
                                 "clients[0].operation.kind=send-email"};
    Metrics m = run_with(email, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(m.transactions_aborted, 0);
    ck_assert_uint_eq(m.emails_sent, 2 * RECORDS);
    ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], RECORDS);
}
END_TEST

/* At-most-once commits each offset before processing: outside any transaction. */
START_TEST(test_at_most_once_commits_outside_the_transaction)
{
    const char *const committed[] = {"broker.transactional=true",
                                     "broker.isolation=read_committed"};
    Metrics m = run_with(committed, 2, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(m.transactions_aborted, 0);
    ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(m.effects, RECORDS);
}
END_TEST

/* A rebalance with a record in processing: the owner it replaced finishes the record, and
 * its transaction cannot commit (a zombie, fenced); read_committed readers never see it,
 * and the new owner writes it once. Slow records (1 s each, one every 100 ms) keep one in
 * processing at every rebalance. */
START_TEST(test_a_zombie_cannot_commit_its_output)
{
    const char *const zombie[] = {"broker.transactional=true",
                                  "broker.isolation=read_committed",
                                  "broker.consumers.crash.prob=0",
                                  "faults=[]",
                                  "broker.rebalance_every_ms=2500",
                                  "broker.commit_interval_ms=0",
                                  "broker.consumers.service_ms.value=1000"};
    Metrics fenced = run_with(zombie, 7, MODE_AT_LEAST_ONCE);
    Metrics plain = run_with(zombie + 2, 5, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(fenced.zombies_fenced, 0);
    ck_assert_uint_eq(fenced.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(fenced.outcomes[OUTCOME_OK], RECORDS);
    ck_assert_uint_eq(plain.outcomes[OUTCOME_DOUBLE], fenced.zombies_fenced);
}
END_TEST

static void count_commit_refused(void *context, const TraceRecord *record)
{
    *(uint64_t *)context += record->event == TRACE_COMMIT_REFUSED;
}

/* The zombie's run of test_a_zombie_cannot_commit_its_output, traced: its metrics, and how
 * many commit_refused records the trace told. */
static Metrics run_counting_refusals(Mode mode, uint64_t *refused)
{
    const char *const zombie[] = {"broker.transactional=true",
                                  "broker.isolation=read_committed",
                                  "broker.consumers.crash.prob=0",
                                  "faults=[]",
                                  "broker.rebalance_every_ms=2500",
                                  "broker.commit_interval_ms=0",
                                  "broker.consumers.service_ms.value=1000"};
    Scenario *scenario = test_load(one_partition, zombie, 7);
    *refused = 0;
    World *world = world_create(scenario, mode, scenario->seed,
                                (TraceSink){.write = count_commit_refused, .context = refused},
                                (WorldLimits){0});
    world_run(world);
    Metrics metrics = *world_metrics(world);
    world_destroy(world);
    free(scenario);
    return metrics;
}

/* The trace's words and the counter agree. Commit after: every refused commit is a zombie's,
 * its transaction fenced (one partition, one record out at a time, always in processing at
 * a rebalance). At-most-once commits each offset before processing, outside any
 * transaction: the records that finish after a rebalance had their offsets committed as
 * they went out, so no commit is refused and no zombie fenced, though the same rebalances
 * come while a record is in processing. */
START_TEST(test_only_a_commit_after_processing_is_refused_to_an_old_owner)
{
    uint64_t refused_after = 0, refused_before = 0;
    Metrics after = run_counting_refusals(MODE_AT_LEAST_ONCE, &refused_after);
    Metrics before = run_counting_refusals(MODE_AT_MOST_ONCE, &refused_before);
    ck_assert_uint_gt(after.zombies_fenced, 0);
    ck_assert_uint_eq(refused_after, after.zombies_fenced);
    ck_assert_uint_eq(before.rebalances, after.rebalances);
    ck_assert_uint_eq(before.zombies_fenced, 0);
    ck_assert_uint_eq(refused_before, 0);
    ck_assert_uint_eq(before.outcomes[OUTCOME_OK], RECORDS);
}
END_TEST

START_TEST(test_transactions_need_the_log_and_commit_after)
{
    static const char *const json =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1, \"target\": \"broker\"}],"
        " \"broker\": {\"family\": \"log\", \"commit\": \"before\", \"transactional\": true}}";
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].path, "$.broker.transactional");
    free(scenario);
}
END_TEST

static Suite *kafka_transactions_suite(void)
{
    Suite *suite = suite_create("kafka_transactions");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_crash_before_the_offset_commit_duplicates_every_output_since);
    tcase_add_test(core, test_an_aborted_transaction_is_never_read_under_read_committed);
    tcase_add_test(core, test_read_uncommitted_reads_the_aborted_outputs);
    tcase_add_test(core, test_an_aborted_output_takes_its_key_row_with_it);
    tcase_add_test(core, test_an_email_is_not_taken_back_by_an_abort);
    tcase_add_test(core, test_at_most_once_commits_outside_the_transaction);
    tcase_add_test(core, test_a_zombie_cannot_commit_its_output);
    tcase_add_test(core, test_only_a_commit_after_processing_is_refused_to_an_old_owner);
    tcase_add_test(core, test_transactions_need_the_log_and_commit_after);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(kafka_transactions_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
