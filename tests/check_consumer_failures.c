/* C36: consumer handlers that fail before or after their effect, nacked for the broker to
 * requeue; the consumers' key row by on_failure; the dead-letter consumer's review. The
 * certain cases (every run fails) have closed forms; the chance p of a failure after the
 * effect, with unlimited deliveries, gives a geometric number of runs per message. */
#include "test_world.h"

#define MESSAGES 100 /* 20 clients x 5 ops */

/* One debit per message, a loss-free network, deliveries capped at 3 unless overridden. */
static const char *const failing_consumers =
    "{\"name\": \"failing_consumers\", \"seed\": 7, \"duration_ms\": 600000,"
    " \"accounts\": [{\"id\": \"shop\", \"balance\": 100000000}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 20, \"target\": \"broker\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 5, \"interval_ms\": {\"dist\": \"const\", \"value\": 200}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 5}}},"
    " \"broker\": {\"max_deliveries\": 3, \"dead_letter\": true,"
    "   \"consumers\": {\"workers\": 4, \"service_ms\": {\"dist\": \"const\", \"value\": 10},"
    "                 \"dead_letters\": \"review\"}}}";

static Metrics run_with(const char *const *overrides, uint32_t count, Mode mode)
{
    return test_run_json(failing_consumers, overrides, count, mode);
}

/* Every run fails after its debit: each of the 3 deliveries debits again, and the dead
 * letter the reviewer gets was charged three times. Keys that forget the failed run's row
 * (on_failure delete) do the same. */
START_TEST(test_a_failure_after_the_effect_retried_without_a_key_row_charges_each_delivery)
{
    const char *const keyless[] = {"broker.consumers.fail_after_effect=1"};
    const char *const deleting[] = {"broker.consumers.fail_after_effect=1",
                                    "broker.consumers.idempotency.on_failure=delete"};
    Metrics plain = run_with(keyless, 1, MODE_AT_LEAST_ONCE);
    Metrics keyed = run_with(deleting, 2, MODE_IDEMPOTENT);
    for (int i = 0; i < 2; i++) {
        const Metrics *m = i == 0 ? &plain : &keyed;
        ck_assert_uint_eq(m->operations, MESSAGES);
        ck_assert_uint_eq(m->deliveries, 3 * MESSAGES);
        ck_assert_uint_eq(m->effects, 3 * MESSAGES);
        ck_assert_uint_eq(m->handler_failures, 3 * MESSAGES);
        ck_assert_uint_eq(m->outcomes[OUTCOME_DOUBLE], MESSAGES);
        ck_assert_uint_eq(m->dead_lettered, MESSAGES);
        ck_assert_uint_eq(m->dead_letters_reviewed, MESSAGES);
        ck_assert_uint_eq(m->dead_letters_charged, MESSAGES);
        ck_assert_uint_eq(m->channel_closures, 0);
    }
}
END_TEST

/* The same failures with the key row recording the effect (on_failure resume): the redelivery
 * resumes after the debit, so each message is charged once, and still dead-lettered (its
 * result is never written) as a payment the reviewer finds charged. */
START_TEST(test_a_recovery_point_charges_a_failing_message_once)
{
    const char *const resuming[] = {"broker.consumers.fail_after_effect=1",
                                    "broker.consumers.idempotency.on_failure=resume"};
    Metrics m = run_with(resuming, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(m.deliveries, 3 * MESSAGES);
    ck_assert_uint_eq(m.effects, MESSAGES);
    ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(m.outcomes[OUTCOME_LOST], 0);
    ck_assert_uint_eq(m.dead_letters_charged, MESSAGES);
}
END_TEST

/* on_failure store: the redelivery finds the stored 500 and is acknowledged unrun. After the
 * effect that saves the payment; before it, the payment is dropped as at-most-once drops it. */
START_TEST(test_a_stored_failure_saves_after_the_effect_and_loses_before_it)
{
    const char *const after[] = {"broker.consumers.fail_after_effect=1",
                                 "broker.consumers.idempotency.on_failure=store"};
    const char *const before[] = {"broker.consumers.fail_before_effect=1",
                                  "broker.consumers.idempotency.on_failure=store"};
    Metrics saved = run_with(after, 2, MODE_IDEMPOTENT);
    Metrics dropped = run_with(before, 2, MODE_IDEMPOTENT);
    ck_assert_uint_eq(saved.deliveries, 2 * MESSAGES);
    ck_assert_uint_eq(saved.consumer_replayed, MESSAGES);
    ck_assert_uint_eq(saved.outcomes[OUTCOME_OK], MESSAGES);
    ck_assert_uint_eq(saved.dead_lettered, 0);
    ck_assert_uint_eq(dropped.consumer_replayed, MESSAGES);
    ck_assert_uint_eq(dropped.effects, 0);
    ck_assert_uint_eq(dropped.outcomes[OUTCOME_LOST], MESSAGES);
}
END_TEST

/* A failure before the effect is harmless to retry, and with no run succeeding, the dead
 * letters the reviewer gets were never charged. At-most-once acknowledged on delivery: a
 * failure there is a lost payment, never redelivered. */
START_TEST(test_a_failure_before_the_effect_dead_letters_uncharged_messages)
{
    const char *const before[] = {"broker.consumers.fail_before_effect=1"};
    Metrics retried = run_with(before, 1, MODE_AT_LEAST_ONCE);
    Metrics once = run_with(before, 1, MODE_AT_MOST_ONCE);
    ck_assert_uint_eq(retried.deliveries, 3 * MESSAGES);
    ck_assert_uint_eq(retried.effects, 0);
    ck_assert_uint_eq(retried.dead_letters_reviewed, MESSAGES);
    ck_assert_uint_eq(retried.dead_letters_charged, 0);
    ck_assert_uint_eq(once.deliveries, MESSAGES);
    ck_assert_uint_eq(once.redeliveries, 0);
    ck_assert_uint_eq(once.outcomes[OUTCOME_LOST], MESSAGES);
    ck_assert_uint_eq(once.dead_letters_reviewed, 0);
}
END_TEST

/* An inbox commits the effect with the key row: the failure after the effect aborts both,
 * and the redelivery runs afresh, once. */
START_TEST(test_an_inbox_rolls_back_the_effect_of_a_failed_run)
{
    const char *const inbox[] = {"broker.consumers.fail_after_effect=0.5",
                                 "broker.max_deliveries=0", "broker.consumers.inbox=true"};
    Metrics m = run_with(inbox, 3, MODE_IDEMPOTENT);
    ck_assert_uint_gt(m.handler_failures, MESSAGES / 4);
    ck_assert_uint_eq(m.outcomes[OUTCOME_OK], MESSAGES);
}
END_TEST

/* A channel broker (RabbitMQ) requeues on the nack, not on a closed channel. */
START_TEST(test_a_channel_requeues_a_nacked_delivery_at_once)
{
    const char *const channel[] = {"broker.family=channel", "broker.consumers.fail_after_effect=1"};
    Metrics m = run_with(channel, 2, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(m.deliveries, 3 * MESSAGES);
    ck_assert_uint_eq(m.channel_closures, 0);
    ck_assert_uint_eq(m.dead_letters_charged, MESSAGES);
}
END_TEST

/* With chance p of a failure after the effect and no cap on deliveries, a message runs until
 * one run succeeds: a geometric count of debits with mean 1 / (1 - p) and variance
 * p / (1 - p)^2 per message, and a share p of the messages charged twice or more. Over 400
 * messages, four standard errors either side. */
START_TEST(test_the_number_of_debits_per_message_is_geometric)
{
    const double p = 0.25;
    const char *const chance[] = {"broker.consumers.fail_after_effect=0.25",
                                  "broker.max_deliveries=0", "clients[0].count=80"};
    const double messages = 400;
    Metrics m = run_with(chance, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(m.operations, (uint64_t)messages);
    double per_message = (double)m.effects / messages;
    double mean = 1 / (1 - p);
    double sd = sqrt(p / ((1 - p) * (1 - p)) / messages);
    ck_assert_double_eq_tol(per_message, mean, 4 * sd);
    double doubled = (double)m.outcomes[OUTCOME_DOUBLE] / messages;
    ck_assert_double_eq_tol(doubled, p, 4 * sqrt(p * (1 - p) / messages));
    ck_assert_uint_eq(m.dead_lettered, 0);
}
END_TEST

/* The refusals, with their paths: a log has no nack, a review needs dead letters. */
START_TEST(test_failures_on_a_log_and_a_review_without_dead_letters_are_refused)
{
    static const char *const json =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1, \"target\": \"broker\"}],"
        " \"broker\": {\"family\": \"log\", \"consumers\": {\"fail_before_effect\": 0.1}}}";
    static const char *const review =
        "{\"name\": \"x\", \"accounts\": [{\"id\": \"a\", \"balance\": 1}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 1, \"target\": \"broker\"}],"
        " \"broker\": {\"dead_letter\": false, \"consumers\": {\"dead_letters\": \"review\"}}}";
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].path, "$.broker.consumers.fail_before_effect");
    errors = (LoadErrors){0};
    ck_assert(!scenario_load_text(review, strlen(review), NULL, 0, scenario, &errors));
    ck_assert_str_eq(errors.items[0].path, "$.broker.consumers.dead_letters");
    free(scenario);
}
END_TEST

static Suite *consumer_failures_suite(void)
{
    Suite *suite = suite_create("consumer_failures");
    TCase *core = tcase_create("Core");
    tcase_add_test(core,
                   test_a_failure_after_the_effect_retried_without_a_key_row_charges_each_delivery);
    tcase_add_test(core, test_a_recovery_point_charges_a_failing_message_once);
    tcase_add_test(core, test_a_stored_failure_saves_after_the_effect_and_loses_before_it);
    tcase_add_test(core, test_a_failure_before_the_effect_dead_letters_uncharged_messages);
    tcase_add_test(core, test_an_inbox_rolls_back_the_effect_of_a_failed_run);
    tcase_add_test(core, test_a_channel_requeues_a_nacked_delivery_at_once);
    tcase_add_test(core, test_the_number_of_debits_per_message_is_geometric);
    tcase_add_test(core, test_failures_on_a_log_and_a_review_without_dead_letters_are_refused);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(consumer_failures_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
