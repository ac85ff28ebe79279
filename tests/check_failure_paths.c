/* Failure paths (issue 13). Error classes: a gateway decline is a definite 402 that the client is
 * told and does not retry; a 5xx is ambiguous and follows its own policy, where `retryable` keeps
 * the failed row yet lets the next attempt start afresh, `store` replays the stored error and
 * `delete` forgets the key. Each test fails on the model before error classes (a decline was
 * a retried 502, and there was no `retryable`). Local transactions: a crash after a local
 * effect, before the commit, undoes it, at the server (transaction) and at the consumers
 * (inbox), where the old model double-charged. */
#include "test_world.h"

#define OPERATIONS 40

static const char *const declines =
    "{\"name\": \"declines\", \"seed\": 3, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 4, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}},"
    "   \"retry\": {\"timeout_ms\": 3000, \"max_attempts\": 4}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"server\": {\"use_gateway\": true},"
    " \"gateway\": {\"fail\": 1, \"latency_ms\": {\"dist\": \"const\", \"value\": 10}}}";

START_TEST(test_a_decline_is_definite_told_and_not_retried)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_json(declines, NULL, 0, mode);
        ck_assert_uint_eq(metrics.operations, OPERATIONS);
        ck_assert_uint_eq(metrics.attempts, OPERATIONS); /* nobody retries a 402 */
        ck_assert_uint_eq(metrics.client_failed, OPERATIONS);
        ck_assert_uint_eq(metrics.effects, 0);
        /* declined, not lost: the card was refused, nothing went missing */
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_DECLINED], OPERATIONS);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_LOST], 0);
        ck_assert_int_eq(metrics.lost_amount, 0);
    }
}
END_TEST

/* The server fails before its effect on every first try (fail_before_effect draws per
 * attempt, so a retry may pass): 500, ambiguous. */
static const char *const failing =
    "{\"name\": \"failing\", \"seed\": 8, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 4, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"const\", \"value\": 1000}},"
    "   \"retry\": {\"timeout_ms\": 3000, \"max_attempts\": 6, \"retry_on\": [\"timeout\", "
    "\"5xx\"], \"backoff\": {\"base_ms\": 10, \"max_ms\": 10, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"server\": {\"fail_before_effect\": 0.5, \"idempotency\": {\"on_failure\": "
    "{\"ambiguous\": \"%s\"}}}}";

static Metrics run_failing(const char *policy)
{
    char json[2048];
    snprintf(json, sizeof json, failing, policy);
    return test_run_json(json, NULL, 0, MODE_IDEMPOTENT);
}

START_TEST(test_retryable_starts_afresh_where_store_replays_the_error)
{
    Metrics retryable = run_failing("retryable");
    Metrics stored = run_failing("store");
    Metrics deleted = run_failing("delete");
    /* a stored 500 is replayed to every retry: those payments never run */
    ck_assert_uint_gt(stored.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_gt(stored.replayed, 0);
    /* retryable and delete both let the retry run; nothing ran twice (the failure came
     * before the effect) */
    ck_assert_uint_eq(retryable.outcomes[OUTCOME_LOST], deleted.outcomes[OUTCOME_LOST]);
    ck_assert_uint_lt(retryable.outcomes[OUTCOME_LOST], stored.outcomes[OUTCOME_LOST]);
    ck_assert_uint_eq(retryable.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(retryable.replayed, 0);
    ck_assert_uint_eq(retryable.effects, deleted.effects);
}
END_TEST

/* A string sets both classes; an object sets the class it names and keeps the other's
 * default; "mark-failed" is the old name of "store". */
START_TEST(test_on_failure_reads_a_string_or_an_object)
{
    static const char *const base = "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", "
                                    "\"balance\": 1}], \"clients\": [{\"id\": \"web\", "
                                    "\"count\": 1}]}";
    const char *const both[] = {"server.idempotency.on_failure=\"retryable\""};
    Scenario *scenario = test_load(base, both, 1);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.definite, ON_FAILURE_RETRYABLE);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.ambiguous, ON_FAILURE_RETRYABLE);
    free(scenario);
    const char *const one[] = {"server.idempotency.on_failure={\"ambiguous\": \"mark-failed\"}"};
    scenario = test_load(base, one, 1);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.definite, ON_FAILURE_STORE);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.ambiguous, ON_FAILURE_STORE);
    free(scenario);
    scenario = test_load(base, NULL, 0);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.definite, ON_FAILURE_STORE);
    ck_assert_int_eq(scenario->server.idempotency.on_failure.ambiguous, ON_FAILURE_DELETE);
    free(scenario);
}
END_TEST

/* Recovery points (on_failure resume, Brandur Leach's atomic phases): the debit commits as
 * its own phase with a recovery point in the key's row, and the rest fails after it with
 * probability p. On a perfect network with R attempts, every payment is charged exactly
 * once, and a payment is told success unless all R attempts fail after the effect:
 * P(phantom) = p^R. `retryable` starts afresh instead, so the second attempt charges again
 * whenever the first failed: P(double) = p. Both are pinned to 5 standard deviations. */
static const char *const phases =
    "{\"name\": \"phases\", \"seed\": 12, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 100, \"key\": \"per-click\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 20, \"interval_ms\": {\"dist\": \"const\", \"value\": 100}},"
    "   \"retry\": {\"timeout_ms\": 3000, \"max_attempts\": 3, \"retry_on\": [\"5xx\"],"
    "     \"backoff\": {\"base_ms\": 10, \"max_ms\": 10, \"jitter\": \"none\"}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 5},"
    "   \"fail_after_effect\": 0.5, \"idempotency\": {\"on_failure\": \"%s\"}}}";

static Metrics run_phases(const char *policy)
{
    char json[2048];
    snprintf(json, sizeof json, phases, policy);
    return test_run_json(json, NULL, 0, MODE_IDEMPOTENT);
}

START_TEST(test_a_recovery_point_resumes_after_the_committed_effect)
{
    const double p = 0.5, n = 2000.0, attempts = 3.0;
    Metrics resumed = run_phases("resume");
    ck_assert_uint_eq(resumed.operations, (uint64_t)n);
    ck_assert_uint_eq(resumed.effects, resumed.operations); /* each payment charged once */
    ck_assert_uint_eq(resumed.outcomes[OUTCOME_DOUBLE], 0);
    double phantom = pow(p, attempts);
    ck_assert_double_eq_tol(resumed.outcomes[OUTCOME_PHANTOM] / n, phantom,
                            test_binomial_tolerance(phantom, n));
    ck_assert_uint_eq(resumed.outcomes[OUTCOME_OK] + resumed.outcomes[OUTCOME_PHANTOM],
                      resumed.operations);
    Metrics afresh = run_phases("retryable");
    ck_assert_double_eq_tol(afresh.outcomes[OUTCOME_DOUBLE] / n, p, test_binomial_tolerance(p, n));
}
END_TEST

/* A crash after the effect leaves the row processing, with its recovery point: the takeover
 * after the lock timeout resumes instead of charging again. Without recovery points
 * (retryable) the same takeover charges again. */
START_TEST(test_a_takeover_resumes_after_a_crash_past_the_recovery_point)
{
    static const char *const crashes =
        "{\"name\": \"crashes\", \"seed\": 5, \"duration_ms\": 60000,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 10, \"key\": \"per-click\","
        "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
        "   \"workload\": {\"ops\": 10, \"interval_ms\": {\"dist\": \"const\", \"value\": 200}},"
        "   \"retry\": {\"timeout_ms\": 300, \"max_attempts\": 10, \"conflict_delay_ms\": 200,"
        "     \"backoff\": {\"base_ms\": 50, \"max_ms\": 50, \"jitter\": \"none\"}}}],"
        " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
        " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 5},"
        "   \"crash\": {\"point\": \"after-effect\", \"prob\": 0.2, \"max_crashes\": 3,"
        "             \"restart_ms\": 100},"
        "   \"idempotency\": {\"durable\": true, \"lock_timeout_ms\": 500,"
        "                     \"on_failure\": \"resume\"}}}";
    const char *const afresh[] = {"server.idempotency.on_failure=retryable"};
    Metrics resumed = test_run_json(crashes, NULL, 0, MODE_IDEMPOTENT);
    Metrics restarted = test_run_json(crashes, afresh, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(resumed.crashes, 3);
    ck_assert_uint_eq(resumed.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(resumed.effects, resumed.operations);
    ck_assert_uint_eq(restarted.crashes, 3);
    ck_assert_uint_gt(restarted.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* A recovery point commits with a local effect: with the gateway it is refused at load. */
START_TEST(test_resume_is_refused_with_the_gateway)
{
    const char *const gateway[] = {"server.use_gateway=true"};
    char json[2048];
    snprintf(json, sizeof json, phases, "resume");
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), gateway, 1, scenario, &errors));
    ck_assert_int_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].path, "$.server.idempotency");
    ck_assert_ptr_nonnull(strstr(errors.items[0].message, "resume"));
    free(scenario);
}
END_TEST

/* 11_local_transaction: three crashes after the debit, before the commit. */
START_TEST(test_a_transaction_rolls_a_crashed_debit_back)
{
    const char *const off[] = {"server.transaction=false"};
    Scenario *with = test_load_source_file("scenarios/11_local_transaction.json", NULL, 0);
    Scenario *without = test_load_source_file("scenarios/11_local_transaction.json", off, 1);
    for (Mode mode = MODE_AT_LEAST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics committed = test_run_mode(with, mode, with->seed);
        Metrics torn = test_run_mode(without, mode, without->seed);
        ck_assert_uint_ge(committed.crashes, 1);
        ck_assert_uint_eq(committed.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_uint_eq(committed.effects,
                          committed.operations - committed.outcomes[OUTCOME_LOST]);
        ck_assert_uint_gt(torn.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_int_eq(metrics_balance_error(&committed), 0);
    }
    free(with);
    free(without);
}
END_TEST

static const char *const consumer_crashes =
    "{\"name\": \"inbox\", \"seed\": 4, \"duration_ms\": 60000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 10, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 5, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 500}}}],"
    " \"broker\": {\"ack_timeout_ms\": 2000, \"consumers\": {\"workers\": 2,"
    "   \"service_ms\": {\"dist\": \"const\", \"value\": 20},"
    "   \"crash\": {\"point\": \"after-effect\", \"prob\": 0.2, \"max_crashes\": 4,"
    "             \"restart_ms\": 500}}}}";

START_TEST(test_an_inbox_rolls_a_crashed_consumer_back)
{
    const char *const inbox[] = {"broker.consumers.inbox=true"};
    /* without an inbox a crashed consumer's charge stays: at-least-once charges the
     * redelivery again, the keyed consumers find the key stuck in processing and leave the
     * message to be redelivered until it is dead-lettered */
    Metrics plain = test_run_json(consumer_crashes, NULL, 0, MODE_AT_LEAST_ONCE);
    Metrics keyed = test_run_json(consumer_crashes, NULL, 0, MODE_IDEMPOTENT);
    ck_assert_uint_ge(plain.crashes, 1);
    ck_assert_uint_gt(plain.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(keyed.dead_lettered, 0);
    for (Mode mode = MODE_AT_LEAST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics committed = test_run_json(consumer_crashes, inbox, 1, mode);
        ck_assert_uint_ge(committed.crashes, 1);
        ck_assert_uint_eq(committed.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_uint_eq(committed.outcomes[OUTCOME_LOST], 0);
        ck_assert_uint_eq(committed.dead_lettered, 0);
        ck_assert_int_eq(metrics_balance_error(&committed), 0);
    }
}
END_TEST

/* 04_lookup_resolves_unknown: lost answers; instead of giving up the app asks for its key's
 * status. With a key store every unknown outcome is resolved (no phantom); giving up leaves
 * charged payments the app believes unknown; without keys the server cannot tell (400). */
START_TEST(test_a_lookup_resolves_an_unknown_outcome)
{
    const char *const give_up[] = {"clients[0].on_unknown=\"give-up\""};
    Scenario *lookup = test_load_source_file("scenarios/04_lookup_resolves_unknown.json", NULL, 0);
    Scenario *plain =
        test_load_source_file("scenarios/04_lookup_resolves_unknown.json", give_up, 1);
    Metrics resolved = test_run_mode(lookup, MODE_IDEMPOTENT, lookup->seed);
    Metrics unresolved = test_run_mode(plain, MODE_IDEMPOTENT, plain->seed);
    Metrics keyless = test_run_mode(lookup, MODE_AT_LEAST_ONCE, lookup->seed);
    ck_assert_uint_gt(unresolved.outcomes[OUTCOME_PHANTOM], 0);
    ck_assert_uint_eq(unresolved.status_queries, 0);
    ck_assert_uint_eq(resolved.outcomes[OUTCOME_PHANTOM], 0);
    ck_assert_uint_eq(resolved.client_unknown, 0);
    ck_assert_uint_eq(resolved.resolved_by_lookup, unresolved.client_unknown);
    ck_assert_uint_eq(resolved.effects, unresolved.effects); /* a query never runs anything */
    ck_assert_uint_gt(keyless.status_queries, 0);
    ck_assert_uint_eq(keyless.resolved_by_lookup, 0);
    free(lookup);
    free(plain);
}
END_TEST

/* 202 is not 409: after a 202 the client asks for the status instead of sending the request
 * again, so it sends no more attempts than at-least-once, where after a 409 it resends. */
START_TEST(test_after_a_202_the_client_asks_instead_of_resending)
{
    Scenario *accepted = test_load_source_file("scenarios/09_in_progress_202.json", NULL, 0);
    Scenario *conflict = test_load_source_file("scenarios/09_in_progress_409.json", NULL, 0);
    Metrics polled = test_run_mode(accepted, MODE_IDEMPOTENT, accepted->seed);
    Metrics resent = test_run_mode(conflict, MODE_IDEMPOTENT, conflict->seed);
    Metrics baseline = test_run_mode(accepted, MODE_AT_LEAST_ONCE, accepted->seed);
    ck_assert_uint_gt(polled.status_202, 0);
    ck_assert_uint_gt(polled.status_queries, 0);
    ck_assert_uint_eq(polled.attempts, baseline.attempts);
    ck_assert_uint_gt(resent.attempts, baseline.attempts);
    ck_assert_uint_eq(resent.status_queries, 0);
    ck_assert_uint_eq(polled.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(polled.outcomes[OUTCOME_OK], polled.operations);
    free(accepted);
    free(conflict);
}
END_TEST

/* 11_receipts_outbox: a receipt published as the charge happens (a dual write) goes out for
 * a charge that a crash then rolls back; written to the outbox with the commit, it does
 * not, and the keyed consumers drop a relay's copy. */
START_TEST(test_a_receipt_through_the_outbox_follows_the_commit)
{
    const char *const outbox[] = {"server.receipts_via=\"outbox\""};
    Scenario *direct = test_load_source_file("scenarios/11_receipts_outbox.json", NULL, 0);
    Scenario *relayed = test_load_source_file("scenarios/11_receipts_outbox.json", outbox, 1);
    Metrics dual_write = test_run_mode(direct, MODE_AT_MOST_ONCE, direct->seed);
    ck_assert_uint_gt(dual_write.receipts_orphaned, 0);
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(relayed, mode, relayed->seed);
        ck_assert_uint_eq(metrics.receipts_orphaned, 0);
        ck_assert_uint_eq(metrics.receipts_missing, 0);
    }
    Metrics keyed = test_run_mode(relayed, MODE_IDEMPOTENT, relayed->seed);
    ck_assert_uint_eq(keyed.receipts_duplicated, 0);
    ck_assert_uint_eq(keyed.receipts_sent, keyed.effects);
    free(direct);
    free(relayed);
}
END_TEST

/* 11_gateway_reconcile: a charged payment whose answer never came. Keeping the key and
 * asking the gateway settles it (no double, no phantom); forgetting the key charges the
 * retry again; keeping it without asking leaves the client with 409s (phantom). */
START_TEST(test_reconciliation_settles_a_gateway_timeout)
{
    const char *const never[] = {"server.reconcile_ms=0"};
    const char *const forget[] = {"server.idempotency.on_failure={\"ambiguous\": \"delete\"}"};
    Scenario *asked = test_load_source_file("scenarios/11_gateway_reconcile.json", NULL, 0);
    Scenario *stuck = test_load_source_file("scenarios/11_gateway_reconcile.json", never, 1);
    Scenario *forgot = test_load_source_file("scenarios/11_gateway_reconcile.json", forget, 1);
    Metrics settled = test_run_mode(asked, MODE_IDEMPOTENT, asked->seed);
    Metrics unsettled = test_run_mode(stuck, MODE_IDEMPOTENT, stuck->seed);
    Metrics forgotten = test_run_mode(forgot, MODE_IDEMPOTENT, forgot->seed);
    ck_assert_uint_gt(settled.reconciled, 0);
    ck_assert_uint_eq(settled.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(settled.outcomes[OUTCOME_PHANTOM], 0);
    ck_assert_uint_eq(settled.outcomes[OUTCOME_OK], settled.operations);
    ck_assert_uint_eq(unsettled.reconciled, 0);
    ck_assert_uint_gt(unsettled.outcomes[OUTCOME_PHANTOM], 0);
    ck_assert_uint_gt(forgotten.outcomes[OUTCOME_DOUBLE], 0);
    free(asked);
    free(stuck);
    free(forgot);
}
END_TEST

static Suite *failure_classes_suite(void)
{
    Suite *suite = suite_create("failure_paths");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_decline_is_definite_told_and_not_retried);
    tcase_add_test(core, test_retryable_starts_afresh_where_store_replays_the_error);
    tcase_add_test(core, test_on_failure_reads_a_string_or_an_object);
    tcase_add_test(core, test_a_recovery_point_resumes_after_the_committed_effect);
    tcase_add_test(core, test_a_takeover_resumes_after_a_crash_past_the_recovery_point);
    tcase_add_test(core, test_resume_is_refused_with_the_gateway);
    tcase_add_test(core, test_a_transaction_rolls_a_crashed_debit_back);
    tcase_add_test(core, test_an_inbox_rolls_a_crashed_consumer_back);
    tcase_add_test(core, test_a_lookup_resolves_an_unknown_outcome);
    tcase_add_test(core, test_after_a_202_the_client_asks_instead_of_resending);
    tcase_add_test(core, test_a_receipt_through_the_outbox_follows_the_commit);
    tcase_add_test(core, test_reconciliation_settles_a_gateway_timeout);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(failure_classes_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
