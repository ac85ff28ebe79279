/* The log broker family (Kafka; issue 14, item 1): a rebalance or a crash resumes every
 * partition from its committed offset. Commit after replays exactly what was processed since
 * the last commit (and the record being processed), commit before loses exactly the records
 * a crash interrupts, a slow record is never handed out again, and the other families' rules
 * are refused at load. The worlds are small and deterministic: no loss, constant delays. */
#include "test_diagram.h"

/* One client publishes a payment every 10 ms (at 0, 10, ..., 190 ms); every link takes 1 ms
 * and a record takes 4 ms to process. So record k reaches the broker at 10k + 1 and is handed
 * out at once, is processed from 10k + 2 to 10k + 6, and its report reaches the broker at
 * 10k + 7: the partition is busy with it over [10k + 1, 10k + 7). */
static const char *const timed_log =
    "{\"name\": \"timed_log\", \"seed\": 1, \"duration_ms\": 200,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130,"
    "                          140, 150, 160, 170, 180, 190]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"broker\": {\"family\": \"log\", \"partitions\": 1, \"commit\": \"after\","
    "   \"consumers\": {\"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": 4}}}}";

#define TIMED_RECORDS 20
#define TIMED_PERIOD_MS 10

/* Records whose report reached the broker by t (inclusive). */
static uint64_t processed_by(uint64_t t_ms)
{
    uint64_t count = 0;
    for (uint64_t k = 0; k < TIMED_RECORDS; k++)
        count += TIMED_PERIOD_MS * k + 7 <= t_ms;
    return count;
}

static bool busy_at(uint64_t t_ms)
{
    for (uint64_t k = 0; k < TIMED_RECORDS; k++) {
        if (TIMED_PERIOD_MS * k + 1 <= t_ms && t_ms < TIMED_PERIOD_MS * k + 7)
            return true;
    }
    return false;
}

/* The closed form: after a rebalance at R, commit after every I ms (0: at each report)
 * replays the records reported since the last commit, plus the one being processed (it
 * finishes, its commit is refused, and it comes again). Each replay of a processed record is
 * a second charge at-least-once, and a replay from the key store in the idempotent mode. */
static uint64_t expected_replays(uint64_t interval_ms, uint64_t rebalance_ms)
{
    uint64_t last_commit =
        interval_ms == 0 ? rebalance_ms : rebalance_ms / interval_ms * interval_ms;
    return processed_by(rebalance_ms) - processed_by(last_commit) + (busy_at(rebalance_ms) ? 1 : 0);
}

START_TEST(test_commit_after_replays_exactly_what_was_processed_since_the_last_commit)
{
    static const uint64_t intervals[] = {0, 20, 50, 70};
    static const uint64_t rebalances[] = {105, 125, 130, 143, 175}; /* one in the run */
    for (size_t i = 0; i < sizeof intervals / sizeof intervals[0]; i++) {
        for (size_t r = 0; r < sizeof rebalances / sizeof rebalances[0]; r++) {
            char interval[64], rebalance[64];
            snprintf(interval, sizeof interval, "broker.commit_interval_ms=%llu",
                     (unsigned long long)intervals[i]);
            snprintf(rebalance, sizeof rebalance, "broker.rebalance_every_ms=%llu",
                     (unsigned long long)rebalances[r]);
            const char *const overrides[] = {interval, rebalance};
            uint64_t replays = expected_replays(intervals[i], rebalances[r]);
            Metrics plain = test_run_json(timed_log, overrides, 2, MODE_AT_LEAST_ONCE);
            Metrics keyed = test_run_json(timed_log, overrides, 2, MODE_IDEMPOTENT);
            ck_assert_msg(plain.redeliveries == replays,
                          "interval %llu, rebalance at %llu: %llu replays, expected %llu",
                          (unsigned long long)intervals[i], (unsigned long long)rebalances[r],
                          (unsigned long long)plain.redeliveries, (unsigned long long)replays);
            ck_assert_uint_eq(plain.rebalances, 1);
            ck_assert_uint_eq(plain.outcomes[OUTCOME_DOUBLE], replays);
            ck_assert_uint_eq(plain.outcomes[OUTCOME_LOST], 0);
            ck_assert_uint_eq(keyed.redeliveries, replays);
            ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
            ck_assert_uint_eq(keyed.consumer_replayed, replays);
            ck_assert_uint_eq(keyed.outcomes[OUTCOME_OK], TIMED_RECORDS);
        }
    }
    /* the worked case of the docs: ticks at 50 and 100 ms; by the rebalance at 125, records
     * 10 and 11 were processed after the tick at 100 and 12 is being processed: 3 replays */
    ck_assert_uint_eq(expected_replays(50, 125), 3);
}
END_TEST

/* Commit before never replays: a rebalance lets the record being processed finish and its
 * offset was committed before it started. The at-most-once mode always commits before. */
START_TEST(test_commit_before_replays_nothing_after_a_rebalance)
{
    const char *const overrides[] = {"broker.commit=\"before\"", "broker.rebalance_every_ms=125"};
    Metrics before = test_run_json(timed_log, overrides, 2, MODE_AT_LEAST_ONCE);
    Metrics at_most_once = test_run_json(timed_log, overrides + 1, 1, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(before.rebalances, 1);
    ck_assert_uint_eq(before.redeliveries, 0);
    ck_assert_uint_eq(before.outcomes[OUTCOME_OK], TIMED_RECORDS);
    ck_assert_uint_eq(at_most_once.redeliveries, 0);
    ck_assert_uint_eq(at_most_once.outcomes[OUTCOME_OK], TIMED_RECORDS);
    ck_assert_uint_eq(before.offset_commits, TIMED_RECORDS); /* one per record, as it goes out */
}
END_TEST

/* Four clients publish at the same instants, each to its own partition (or two to each of
 * two); the first record to finish processing crashes the consumers, before its effect, and
 * every record then in processing dies with them: one per partition. */
static const char *const crashing_log =
    "{\"name\": \"crashing_log\", \"seed\": 1, \"duration_ms\": 100,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": 4, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"at_ms\": [0, 30, 60]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
    " \"broker\": {\"family\": \"log\", \"partitions\": 4,"
    "   \"consumers\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 4},"
    "     \"idempotency\": {\"lock_timeout_ms\": 5},"
    "     \"crash\": {\"point\": \"before-effect\", \"prob\": 1, \"max_crashes\": 1,"
    "                \"restart_ms\": 5}}}}";

START_TEST(test_commit_before_loses_exactly_the_records_a_crash_interrupts)
{
    for (uint32_t partitions = 1; partitions <= 4; partitions++) {
        char setting[64];
        snprintf(setting, sizeof setting, "broker.partitions=%u", partitions);
        const char *const overrides[] = {setting};
        Metrics lossy = test_run_json(crashing_log, overrides, 1, MODE_AT_MOST_ONCE);
        Metrics replayed = test_run_json(crashing_log, overrides, 1, MODE_AT_LEAST_ONCE);
        ck_assert_uint_eq(lossy.crashes, 1);
        /* at the crash each partition has one record in processing, committed before */
        ck_assert_uint_eq(lossy.outcomes[OUTCOME_LOST], partitions);
        ck_assert_uint_eq(lossy.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_uint_eq(lossy.redeliveries, 0);
        /* commit after: the same records are handed out again, and charged once */
        ck_assert_uint_eq(replayed.crashes, 1);
        ck_assert_uint_eq(replayed.redeliveries, partitions);
        ck_assert_uint_eq(replayed.outcomes[OUTCOME_LOST], 0);
        ck_assert_uint_eq(replayed.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_uint_eq(replayed.outcomes[OUTCOME_OK], 12);
    }
}
END_TEST

/* A record processed for ten minutes is not handed out again: no ack timeout. The same
 * consumer behind a visibility-timeout broker (30 s, the default) is redelivered to. */
/* The crash leaves the four keys processing in a store that outlives it (durable); the
 * restarted consumer gets the four records again at 12 ms, finds each key in progress, keeps
 * the record and tries again once the lease may be taken over (20 ms after the reservation
 * at 2 ms: at 32 ms), then runs it until 36 ms. The diagram keeps each job open through
 * that wait: a log never hands the record out again, so nothing else would show the job. */
START_TEST(test_the_diagram_keeps_a_job_waiting_for_a_lease_open)
{
    const char *const durable[] = {"broker.consumers.idempotency.durable=true",
                                   "broker.consumers.idempotency.lock_timeout_ms=20"};
    Scenario *scenario = test_load(crashing_log, durable, 2);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_IDEMPOTENT, 4096);
    unsigned waited = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_ACTIVATION ||
            diagram_lane(diagram, item->from)->kind != NODE_CONSUMERS)
            continue;
        ck_assert_int_ne(item->end_event, TRACE_IN_PROGRESS);
        if (item->start_us == 12000) {
            ck_assert_uint_eq(item->end_us, 36000);
            waited++;
        }
    }
    ck_assert_uint_eq(waited, 4);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

START_TEST(test_a_slow_record_is_not_redelivered)
{
    const char *const slow[] = {"broker.consumers.service_ms=600000",
                                "clients[0].workload.at_ms=[0]"};
    Metrics log = test_run_json(timed_log, slow, 2, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(log.messages, 1);
    ck_assert_uint_eq(log.deliveries, 1);
    ck_assert_uint_eq(log.redeliveries, 0);
    ck_assert_uint_eq(log.outcomes[OUTCOME_OK], 1);
    /* and the diagrams draw no ack timer for it */
    Scenario *scenario = test_load(timed_log, NULL, 0);
    ck_assert_double_eq(diagram_windows_of(scenario, MODE_AT_LEAST_ONCE).ack_timeout_ms[0], 0);
    free(scenario);
    static const char *const sqs =
        "{\"name\": \"sqs\", \"seed\": 1, \"duration_ms\": 1,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
        " \"clients\": [{\"id\": \"shop\", \"count\": 1, \"target\": \"broker\","
        "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
        "   \"workload\": {\"at_ms\": [0]}}],"
        " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}},"
        " \"broker\": {\"consumers\": {\"workers\": 0,"
        "   \"service_ms\": {\"dist\": \"const\", \"value\": 600000}}}}";
    Metrics timed_out = test_run_json(sqs, NULL, 0, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(timed_out.redeliveries, 0);
    ck_assert_uint_gt(timed_out.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* The idempotent producer drops only a second copy of one send (the producer library's own
 * resend of a batch whose acknowledgement was lost, here a network duplicate): an
 * application that publishes again after its own timeout makes a new record, as Kafka's
 * send() does (KIP-98), and so does an app restarted as a new producer. Only the
 * consumers' key store, keyed by the message id, catches those. */
START_TEST(test_the_idempotent_producer_drops_its_own_resends_not_the_applications)
{
    /* every confirmation lost until 150 ms: the app re-publishes after its 20 ms timeout */
    const char *const confirms_lost[] = {
        "clients[0].workload.at_ms=[0, 50, 100]", "clients[0].retry.timeout_ms=20",
        "network.outages=[{\"from_ms\": 0, \"to_ms\": 150, \"link\": \"broker->shop\"}]"};
    Metrics resent = test_run_json(timed_log, confirms_lost, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(resent.attempts, 3);
    ck_assert_uint_eq(resent.deduplicated, 0);
    ck_assert_uint_eq(resent.messages, resent.attempts); /* each re-publish a record */
    ck_assert_uint_eq(resent.outcomes[OUTCOME_DOUBLE], 3);
    Metrics resent_keyed = test_run_json(timed_log, confirms_lost, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(resent_keyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(resent_keyed.consumer_replayed, resent_keyed.messages - 3);
    /* every publish reaches the broker twice: one send, two copies */
    const char *const copies[] = {"clients[0].workload.at_ms=[0, 50, 100]",
                                  "network.links={\"shop->broker\": {\"duplicate\": 1}}"};
    Metrics dropped = test_run_json(timed_log, copies, 2, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(dropped.attempts, 3);
    ck_assert_uint_eq(dropped.messages, 3);
    ck_assert_uint_eq(dropped.deduplicated, 3);
    ck_assert_uint_eq(dropped.outcomes[OUTCOME_DOUBLE], 0);
    const char *const no_producer[] = {copies[0], copies[1], "broker.idempotent_producer=false"};
    Metrics plain = test_run_json(timed_log, no_producer, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(plain.deduplicated, 0);
    ck_assert_uint_eq(plain.messages, 6);
    ck_assert_uint_eq(plain.outcomes[OUTCOME_DOUBLE], 3);
    /* the app restarts right after each first send and re-publishes with its persisted key */
    const char *const restarts[] = {"clients[0].workload.at_ms=[0, 50, 100]",
                                    "clients[0].restart={\"prob\": 1, \"delay_ms\": 10}",
                                    "clients[0].key_persisted=true"};
    Metrics restarted = test_run_json(timed_log, restarts, 3, MODE_AT_LEAST_ONCE);
    Metrics keyed = test_run_json(timed_log, restarts, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(restarted.deduplicated, 0);
    ck_assert_uint_eq(restarted.messages, 6);
    ck_assert_uint_eq(restarted.outcomes[OUTCOME_DOUBLE], 3);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(keyed.consumer_replayed, 3);
}
END_TEST

/* ------------------------------------------------------------------ retry topics */

/* Every run of timed_log's records fails before its effect, and the group forwards a failed
 * record to a retry topic (Spring Kafka's non-blocking retries): 3 runs in all, 1 s apart. */
static const char *const failing_with_retry_topics[] = {
    "broker.consumers.fail_before_effect=1",
    "broker.consumers.retryable_topic={\"attempts\": 3, \"delay_ms\": 1000}"};

typedef struct {
    uint32_t failures;
    SimTimeUs failed_at[3 * TIMED_RECORDS];
} FailureTimes;

static void note_failure(void *context, const TraceRecord *record)
{
    FailureTimes *times = context;
    if (record->event == TRACE_HANDLER_FAILED && times->failures < 3 * TIMED_RECORDS)
        times->failed_at[times->failures++] = record->t_us;
}

/* The partition goes on: every record's first run fails within the 200 ms of publishing
 * (each 6 ms after it was published), long before the first retry comes back at about 1 s; a
 * blocking retry in place would have held record 2 behind record 1's three runs. The second
 * runs come back 1 s after the first ones, the third 1 s after the second. */
START_TEST(test_retry_topics_let_the_partition_go_on_while_a_record_waits)
{
    Scenario *scenario = test_load(timed_log, failing_with_retry_topics, 2);
    FailureTimes times = {0};
    World *world =
        world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                     (TraceSink){.write = note_failure, .context = &times}, (WorldLimits){0});
    world_run(world);
    ck_assert_uint_eq(times.failures, 3 * TIMED_RECORDS);
    for (uint32_t k = 0; k < TIMED_RECORDS; k++) {
        SimTimeUs published_us = (SimTimeUs)k * TIMED_PERIOD_MS * 1000;
        ck_assert_uint_eq(times.failed_at[k], published_us + 6000);
    }
    for (uint32_t i = TIMED_RECORDS; i < 3 * TIMED_RECORDS; i++) {
        uint32_t round = i / TIMED_RECORDS; /* 1: the first retry topic, 2: the second */
        ck_assert_uint_ge(times.failed_at[i], round * 1000000u);
        ck_assert_uint_lt(times.failed_at[i], round * 1000000u + 300000u);
    }
    Metrics metrics = *world_metrics(world);
    ck_assert_uint_eq(metrics.offset_commits, TIMED_RECORDS); /* each at its first failure */
    world_destroy(world);
    free(scenario);
}
END_TEST

/* After `attempts` runs a record goes to the dead-letter topic: 3 runs each, 2 of them
 * redeliveries from a retry topic, then a dead letter; nothing ever charged (every run failed
 * before the debit), so each is lost, and the reviewer finds none charged. */
START_TEST(test_a_record_goes_to_the_dead_letter_topic_after_its_attempts)
{
    static const uint32_t attempts[] = {1, 2, 3, 5};
    for (size_t a = 0; a < sizeof attempts / sizeof attempts[0]; a++) {
        char topic[96];
        snprintf(topic, sizeof topic,
                 "broker.consumers.retryable_topic={\"attempts\": %u, \"delay_ms\": 50}",
                 attempts[a]);
        const char *const overrides[] = {failing_with_retry_topics[0], topic,
                                         "broker.consumers.dead_letters=\"review\""};
        Metrics metrics = test_run_json(timed_log, overrides, 3, MODE_AT_LEAST_ONCE);
        ck_assert_uint_eq(metrics.executions, attempts[a] * TIMED_RECORDS);
        ck_assert_uint_eq(metrics.handler_failures, attempts[a] * TIMED_RECORDS);
        ck_assert_uint_eq(metrics.redeliveries, (attempts[a] - 1) * TIMED_RECORDS);
        ck_assert_uint_eq(metrics.dead_lettered, TIMED_RECORDS);
        ck_assert_uint_eq(metrics.dead_letters_reviewed, TIMED_RECORDS);
        ck_assert_uint_eq(metrics.dead_letters_charged, 0);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_LOST], TIMED_RECORDS);
    }
    /* at-most-once retries nothing: each record's one failed run is skipped */
    Metrics once = test_run_json(timed_log, failing_with_retry_topics, 2, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(once.executions, TIMED_RECORDS);
    ck_assert_uint_eq(once.redeliveries, 0);
    ck_assert_uint_eq(once.dead_lettered, 0);
}
END_TEST

/* A run that fails after its debit charges again on each retry without keys; a recovery point
 * in the key row (on_failure resume) makes the retry finish the run instead. */
START_TEST(test_a_retry_after_the_effect_charges_again_unless_keyed)
{
    const char *const overrides[] = {
        "broker.consumers.fail_after_effect=1",
        "broker.consumers.retryable_topic={\"attempts\": 3, \"delay_ms\": 50}",
        "broker.consumers.idempotency.on_failure=\"resume\""};
    Metrics plain = test_run_json(timed_log, overrides, 3, MODE_AT_LEAST_ONCE);
    Metrics keyed = test_run_json(timed_log, overrides, 3, MODE_IDEMPOTENT);
    ck_assert_uint_eq(plain.outcomes[OUTCOME_DOUBLE], TIMED_RECORDS);
    ck_assert_uint_eq(plain.effects, 3 * TIMED_RECORDS);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(keyed.effects, TIMED_RECORDS);
}
END_TEST

/* The forwards and the returns of timed_log's failing records, as the trace tells them. */
typedef struct {
    uint32_t forwards, returns, dead_letters;
    uint32_t forwards_of_topic[3];
    SimTimeUs forwarded_at[TIMED_RECORDS][3]; /* by operation and retry topic (1, 2) */
    SimTimeUs returned_at[TIMED_RECORDS][4];  /* by operation and delivery number (2, 3) */
} RetryTopicTrace;

static void note_retry_topics(void *context, const TraceRecord *record)
{
    RetryTopicTrace *trace = context;
    if (record->no_operation || record->operation >= TIMED_RECORDS)
        return;
    if (record->event == TRACE_RETRY_TOPIC) {
        ck_assert_int_eq(record->actor_kind, NODE_BROKER);
        ck_assert(record->value >= 1 && record->value <= 2);
        trace->forwards++;
        trace->forwards_of_topic[record->value]++;
        trace->forwarded_at[record->operation][record->value] = record->t_us;
    } else if (record->event == TRACE_REDELIVER) {
        ck_assert(record->value >= 2 && record->value <= 3);
        trace->returns++;
        trace->returned_at[record->operation][record->value] = record->t_us;
    } else if (record->event == TRACE_DEAD_LETTER) {
        trace->dead_letters++;
    }
}

static RetryTopicTrace *trace_retry_topics(Mode mode)
{
    Scenario *scenario = test_load(timed_log, failing_with_retry_topics, 2);
    RetryTopicTrace *trace = calloc(1, sizeof *trace);
    World *world =
        world_create(scenario, mode, scenario->seed,
                     (TraceSink){.write = note_retry_topics, .context = trace}, (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    free(scenario);
    return trace;
}

/* Each forward to a retry topic is traced (retry_topic, the topic's number), by the broker,
 * at the failure: every record goes to retry topic 1, then 2, then to the dead-letter topic;
 * each forward's redelivery comes exactly its back-off (1 s) after it, as the next run. */
START_TEST(test_each_forward_to_a_retry_topic_is_traced)
{
    RetryTopicTrace *trace = trace_retry_topics(MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(trace->forwards, 2 * TIMED_RECORDS);
    ck_assert_uint_eq(trace->forwards_of_topic[1], TIMED_RECORDS);
    ck_assert_uint_eq(trace->forwards_of_topic[2], TIMED_RECORDS);
    ck_assert_uint_eq(trace->returns, 2 * TIMED_RECORDS);
    ck_assert_uint_eq(trace->dead_letters, TIMED_RECORDS);
    for (uint32_t k = 0; k < TIMED_RECORDS; k++) {
        SimTimeUs published_us = (SimTimeUs)k * TIMED_PERIOD_MS * 1000;
        ck_assert_uint_eq(trace->forwarded_at[k][1], published_us + 6000); /* its first run */
        for (uint32_t topic = 1; topic <= 2; topic++)
            ck_assert_uint_eq(trace->returned_at[k][topic + 1],
                              trace->forwarded_at[k][topic] + 1000000);
    }
    free(trace);
    /* at-most-once forwards nothing: the failed record is skipped */
    trace = trace_retry_topics(MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(trace->forwards, 0);
    ck_assert_uint_eq(trace->returns, 0);
    free(trace);
}
END_TEST

/* The copies waiting in the retry topics are the broker's backlog (queue depth): timed_log's
 * partition never holds a record back (each is handed out as it arrives, done before the
 * next), but every record's first run fails within 196 ms and waits 1 s in the first retry
 * topic, so all 20 wait at once; when everything is done, nothing waits and nothing is out.
 * A consumer crash (the copies out wait again for the restart) keeps the count. */
START_TEST(test_retry_topic_copies_count_in_the_queue_depth)
{
    Metrics metrics = test_run_json(timed_log, failing_with_retry_topics, 2, MODE_AT_LEAST_ONCE);
    double peak = 0;
    ck_assert(metrics_value(&metrics, "queue_depth_peak", &peak));
    ck_assert_uint_eq((uint64_t)peak, TIMED_RECORDS);
    ck_assert_uint_eq(metrics.queue_depth_series.last, 0);
    ck_assert_uint_eq(metrics.in_flight_series.last, 0);
    const char *const no_retry_topics[] = {"broker.consumers.fail_before_effect=0"};
    Metrics plain = test_run_json(timed_log, no_retry_topics, 1, MODE_AT_LEAST_ONCE);
    ck_assert(metrics_value(&plain, "queue_depth_peak", &peak));
    ck_assert_uint_eq((uint64_t)peak, 0); /* the partition alone: never a record waiting */
    const char *const crashing[] = {
        failing_with_retry_topics[0], failing_with_retry_topics[1],
        "broker.consumers.crash={\"point\": \"before-effect\", \"prob\": 0.3,"
        " \"restart_ms\": 50}",
        "broker.consumers.idempotency.lock_timeout_ms=500"};
    Metrics crashed = test_run_json(timed_log, crashing, 4, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(crashed.crashes, 0);
    ck_assert_uint_gt(crashed.redeliveries, 0);
    ck_assert_uint_eq(crashed.queue_depth_series.last, 0);
    ck_assert_uint_eq(crashed.in_flight_series.last, 0);
}
END_TEST

/* Same scenario and seed, same bytes: the retry topics draw nothing of their own. */
START_TEST(test_retry_topics_are_deterministic)
{
    Scenario *scenario =
        test_load_source_file("scenarios/architectures/kafka_retry_topics.json", NULL, 0);
    for (Mode mode = 0; mode < MODE_COUNT; mode++) {
        Metrics first = test_run_mode(scenario, mode, scenario->seed);
        Metrics second = test_run_mode(scenario, mode, scenario->seed);
        ck_assert_uint_eq(first.redeliveries, second.redeliveries);
        ck_assert_uint_eq(first.stale_overwrites, second.stale_overwrites);
        ck_assert_uint_eq(first.outcomes[OUTCOME_DOUBLE], second.outcomes[OUTCOME_DOUBLE]);
        ck_assert_uint_eq(first.dead_lettered, second.dead_lettered);
        ck_assert_uint_eq(first.events, second.events);
    }
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

static void assert_refused(const char *const *overrides, uint32_t count, const char *path)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(
        !scenario_load_text(timed_log, strlen(timed_log), overrides, count, scenario, &errors));
    bool found = false;
    for (uint32_t i = 0; i < errors.count; i++)
        found = found || strcmp(errors.items[i].path, path) == 0;
    ck_assert_msg(found, "no error at %s (first: %s: %s)", path, errors.items[0].path,
                  errors.items[0].message);
    free(scenario);
}

START_TEST(test_the_log_refuses_the_other_families_rules)
{
    static const char *const rules[] = {
        "ack_timeout_ms=1000",  "max_deliveries=3",      "dead_letter=false",
        "prefetch=10",          "late_ack=\"accept\"",   "redelivery_delay_ms=5",
        "redrive_after_ms=100", "dedup_window_ms=60000", "consumer_timeout_ms=1000"};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        char setting[64], path[64];
        snprintf(setting, sizeof setting, "broker.%s", rules[i]);
        snprintf(path, sizeof path, "$.broker.%.*s", (int)strcspn(rules[i], "="), rules[i]);
        const char *const overrides[] = {setting};
        assert_refused(overrides, 1, path);
    }
    const char *const queues[] = {"broker.queues=[{\"name\": \"q\"}]"};
    assert_refused(queues, 1, "$.broker.queues");
    const char *const lossy[] = {"network.links.broker->consumers.loss=0.01"};
    assert_refused(lossy, 1, "$.network.links.broker->consumers");
    const char *const lossy_default[] = {"network.default.loss=0.01"};
    assert_refused(lossy_default, 1, "$.network.default");
    const char *const outage[] = {"network.outages=[{\"from_ms\": 1, \"to_ms\": 2}]"};
    assert_refused(outage, 1, "$.network.outages[0]");
    const char *const interval_before[] = {"broker.commit=\"before\"",
                                           "broker.commit_interval_ms=100"};
    assert_refused(interval_before, 2, "$.broker.commit_interval_ms");
    const char *const stuck[] = {"broker.consumers.crash.prob=0.1"};
    assert_refused(stuck, 1, "$.broker.consumers");
    const char *const storm[] = {"broker.rebalance_every_ms=0.0001"}; /* 2 x 10^6 in 200 ms */
    assert_refused(storm, 1, "$.broker.rebalance_every_ms");
    /* a handler's failure needs retry topics on a log; they do not mix with transactions */
    const char *const failing[] = {"broker.consumers.fail_after_effect=0.1"};
    assert_refused(failing, 1, "$.broker.consumers.fail_after_effect");
    const char *const in_transaction[] = {"broker.transactional=true",
                                          failing_with_retry_topics[1]};
    assert_refused(in_transaction, 2, "$.broker.consumers.retryable_topic");
    const char *const bad_attempts[] = {"broker.consumers.retryable_topic={\"attempts\": 0}"};
    assert_refused(bad_attempts, 1, "$.broker.consumers.retryable_topic.attempts");
}
END_TEST

START_TEST(test_the_other_families_refuse_the_logs_fields)
{
    static const char *const fields[] = {"partitions=2", "commit=\"before\"",
                                         "commit_interval_ms=100", "rebalance_every_ms=100",
                                         "idempotent_producer=false"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char setting[64], path[64];
        snprintf(setting, sizeof setting, "broker.%s", fields[i]);
        snprintf(path, sizeof path, "$.broker.%.*s", (int)strcspn(fields[i], "="), fields[i]);
        const char *const overrides[] = {"broker.family=\"channel\"", setting};
        assert_refused(overrides, 2, path);
    }
    static const char *const families[] = {"broker.family=\"channel\"",
                                           "broker.family=\"visibility-timeout\""};
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        const char *const overrides[] = {families[f], failing_with_retry_topics[1]};
        assert_refused(overrides, 2, "$.broker.consumers.retryable_topic");
    }
}
END_TEST

static Suite *broker_log_suite(void)
{
    Suite *suite = suite_create("broker_log");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core,
                   test_commit_after_replays_exactly_what_was_processed_since_the_last_commit);
    tcase_add_test(core, test_commit_before_replays_nothing_after_a_rebalance);
    tcase_add_test(core, test_commit_before_loses_exactly_the_records_a_crash_interrupts);
    tcase_add_test(core, test_the_diagram_keeps_a_job_waiting_for_a_lease_open);
    tcase_add_test(core, test_a_slow_record_is_not_redelivered);
    tcase_add_test(core, test_the_idempotent_producer_drops_its_own_resends_not_the_applications);
    tcase_add_test(core, test_retry_topics_let_the_partition_go_on_while_a_record_waits);
    tcase_add_test(core, test_a_record_goes_to_the_dead_letter_topic_after_its_attempts);
    tcase_add_test(core, test_a_retry_after_the_effect_charges_again_unless_keyed);
    tcase_add_test(core, test_retry_topics_are_deterministic);
    tcase_add_test(core, test_each_forward_to_a_retry_topic_is_traced);
    tcase_add_test(core, test_retry_topic_copies_count_in_the_queue_depth);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_the_log_refuses_the_other_families_rules);
    tcase_add_test(limits, test_the_other_families_refuse_the_logs_fields);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(broker_log_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
