/* C35: authorise, then capture. The gateway captures manually (gateway.capture): a charge is
 * an authorisation that places a hold, and the server captures the one whose approval it
 * hears. No loss, constant delays; the gateway approves every authorisation and, with chance
 * p, its answer never leaves (gateway.timeout); the server's call waits 1 s and tries twice.
 * Without a key the gateway honours, try k of payment i is its own authorisation: with X1,
 * X2 the two tries' silences, a payment has 1 + X1 holds, is captured unless both were
 * silent, and leaves X1 + X1 X2 holds uncaptured; so double_holds / N -> p and
 * orphan_holds / N -> p + p^2, and no payment is charged twice. With the key honoured, the
 * second try replays the first authorisation (always answered): one hold, captured once. */
#include "test_world.h"

#define PAYMENTS 2000u
#define SILENT 0.2

static const char auth_capture_world[] =
    "{\"name\": \"auth-capture\", \"seed\": 35, \"duration_ms\": 20000,"
    " \"accounts\": [{\"id\": \"shoppers\", \"balance\": 1000000000}],"
    " \"services\": ["
    "  {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\", \"workers\": 0,"
    "   \"service_ms\": 1,"
    "   \"steps\": [{\"call\": \"acquirer\", \"retry\": {\"max_attempts\": 2}, \"key\": "
    "\"forward\"}]},"
    "  {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "  {\"id\": \"acquirer\", \"kind\": \"gateway\", \"capture\": \"manual\", \"timeout\": 0.2,"
    "   \"timeout_ms\": 1000, \"latency_ms\": {\"dist\": \"const\", \"value\": 50}}],"
    " \"clients\": [{\"id\": \"shop\", \"count\": 2000, \"calls\": \"checkout\","
    "   \"workload\": {\"at_ms\": [0]}, \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"retry\": {\"timeout_ms\": 5000, \"max_attempts\": 1}}],"
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}";

static const char *const key_honoured[] = {"gateway.honours_key=true"};

START_TEST(test_a_retried_authorisation_without_a_key_leaves_a_second_hold)
{
    for (Mode mode = MODE_AT_MOST_ONCE; mode < MODE_COUNT; mode++) {
        Metrics run = test_run_json(auth_capture_world, NULL, 0, mode);
        double tolerance = test_binomial_tolerance(SILENT, PAYMENTS);
        ck_assert_double_eq_tol((double)run.double_holds / PAYMENTS, SILENT, tolerance);
        /* one payment's holds beyond its capture: X1 + X1 X2, whose variance is below
         * 4 p (1 - p): twice the binomial tolerance covers it */
        ck_assert_double_eq_tol((double)run.orphan_holds / PAYMENTS, SILENT + SILENT * SILENT,
                                2 * tolerance);
        ck_assert_uint_eq(run.holds, PAYMENTS + run.double_holds);
        /* only the heard approval is captured: never twice */
        ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_uint_eq(run.effects + run.orphan_holds, run.holds);
    }
}
END_TEST

START_TEST(test_the_key_honoured_replays_the_authorisation_one_hold_captured)
{
    Metrics run = test_run_json(auth_capture_world, key_honoured, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.holds, PAYMENTS);
    ck_assert_uint_eq(run.double_holds, 0);
    ck_assert_uint_eq(run.orphan_holds, 0);
    ck_assert_uint_eq(run.effects, PAYMENTS);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], PAYMENTS);
}
END_TEST

START_TEST(test_immediate_capture_places_no_holds)
{
    const char *const immediate[] = {"gateway.capture=\"immediate\""};
    Metrics run = test_run_json(auth_capture_world, immediate, 1, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.holds, 0);
    /* the same silences now charge: a silent first try and an answered second charge twice */
    ck_assert_uint_gt(run.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* Two runs of one payment under one key (execute-then-save lets a double click's second
 * request through while the first runs): both hear the same authorisation approved, and the
 * second capture moves no money, as with immediate capture the key stops a second charge. */
START_TEST(test_an_authorisation_is_captured_once)
{
    const char *const two_runs[] = {
        "gateway.honours_key=true", "clients[0].key=\"business-hash\"",
        "clients[0].double_click={\"prob\": 1, \"delay_ms\": {\"dist\": \"const\", \"value\": 0}}",
        "server.idempotency.reserve=\"execute-then-save\"", "gateway.timeout=0"};
    Metrics run = test_run_json(auth_capture_world, two_runs, 5, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.holds, PAYMENTS);
    ck_assert_uint_eq(run.effects, PAYMENTS);
    ck_assert_uint_eq(run.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* Every approval comes after the caller's 1 s (latency 1200 ms, none silent): each try's
 * authorisation is heard late. With void_late the caller voids each one (2 per payment:
 * nothing captured, nothing left on the card); without, both holds stay, orphans. */
START_TEST(test_late_approvals_are_voided_and_leave_no_orphan)
{
    const char *const late[] = {"gateway.timeout=0",
                                "gateway.latency_ms={\"dist\": \"const\", \"value\": 1200}"};
    Metrics kept = test_run_json(auth_capture_world, late, 2, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(kept.holds, 2 * PAYMENTS);
    ck_assert_uint_eq(kept.orphan_holds, 2 * PAYMENTS);
    ck_assert_uint_eq(kept.voids, 0);
    ck_assert_uint_eq(kept.effects, 0);
    const char *const voided[] = {"gateway.timeout=0",
                                  "gateway.latency_ms={\"dist\": \"const\", \"value\": 1200}",
                                  "gateway.void_late=true"};
    Metrics run = test_run_json(auth_capture_world, voided, 3, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(run.holds, 2 * PAYMENTS);
    ck_assert_uint_eq(run.voids, 2 * PAYMENTS);
    ck_assert_uint_eq(run.orphan_holds, 0);
    ck_assert_uint_eq(run.effects, 0);
    /* under a key the gateway honours, the later try replays the authorisation: not voided */
    const char *const keyed[] = {"gateway.timeout=0",
                                 "gateway.latency_ms={\"dist\": \"const\", \"value\": 1200}",
                                 "gateway.void_late=true", "gateway.honours_key=true"};
    Metrics replayed = test_run_json(auth_capture_world, keyed, 4, MODE_IDEMPOTENT);
    ck_assert_uint_eq(replayed.holds, PAYMENTS);
    ck_assert_uint_eq(replayed.voids, 0);
}
END_TEST

/* ------------------------------------------------------------------ settlement */

/* Every approval is answered (timeout 0), so each payment has one authorisation, captured;
 * with chance q the capture's answer is lost: the money moved, the checkout answers 504 and
 * the customer (one attempt) is never told: a phantom. captures_lost / N -> q. The settlement
 * file finds each of those and refunds it: every one becomes refunded, none is left a
 * phantom, and the balance is whole again. */
#define CAPTURE_LOST 0.2

START_TEST(test_a_lost_capture_is_a_phantom_the_settlement_file_refunds)
{
    const char *const lost[] = {"gateway.timeout=0", "gateway.capture_lost=0.2"};
    Metrics unsettled = test_run_json(auth_capture_world, lost, 2, MODE_AT_LEAST_ONCE);
    ck_assert_double_eq_tol((double)unsettled.captures_lost / PAYMENTS, CAPTURE_LOST,
                            test_binomial_tolerance(CAPTURE_LOST, PAYMENTS));
    ck_assert_uint_eq(unsettled.outcomes[OUTCOME_PHANTOM], unsettled.captures_lost);
    ck_assert_uint_eq(unsettled.settlement_corrections, 0);
    ck_assert_uint_eq(unsettled.effects, PAYMENTS);
    const char *const settled[] = {"gateway.timeout=0", "gateway.capture_lost=0.2",
                                   "gateway.settlement_every_ms=5000"};
    Metrics run = test_run_json(auth_capture_world, settled, 3, MODE_AT_LEAST_ONCE);
    /* the same draws: the same captures are lost */
    ck_assert_uint_eq(run.captures_lost, unsettled.captures_lost);
    ck_assert_uint_eq(run.settlement_corrections, run.captures_lost);
    ck_assert_uint_eq(run.outcomes[OUTCOME_REFUNDED], run.captures_lost);
    ck_assert_uint_eq(run.outcomes[OUTCOME_PHANTOM], 0);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], PAYMENTS - run.captures_lost);
}
END_TEST

/* The customer retries after the 504 (two attempts) and the checkout runs again: without a
 * key the acquirer honours, the retry is a second authorisation, captured, so a payment whose
 * first capture was lost is charged twice, which the settlement file turns back into one
 * (each capture the checkout believed failed refunded). Under the key the retry's capture of the
 * same authorisation is refused as captured before (money moves once) and the checkout tells the
 * customer it succeeded: its records already match the file, nothing is corrected. */
START_TEST(test_a_retried_capture_of_one_authorisation_moves_money_once)
{
    const char *const retried[] = {"gateway.timeout=0", "gateway.capture_lost=0.2",
                                   "clients[0].retry.max_attempts=2",
                                   "gateway.settlement_every_ms=5000"};
    Metrics doubled = test_run_json(auth_capture_world, retried, 4, MODE_AT_LEAST_ONCE);
    ck_assert_uint_gt(doubled.captures_lost, 0);
    ck_assert_uint_eq(doubled.settlement_corrections, doubled.captures_lost);
    ck_assert_uint_eq(doubled.outcomes[OUTCOME_DOUBLE], 0);
    /* the same run without the file (its override is the last) */
    Metrics unsettled = test_run_json(auth_capture_world, retried, 3, MODE_AT_LEAST_ONCE);
    /* a payment whose first capture was lost is charged twice (the retry's capture moves the
     * money too, lost or not): doubles / N -> q; lost captures / N -> q + q^2 */
    ck_assert_double_eq_tol((double)unsettled.outcomes[OUTCOME_DOUBLE] / PAYMENTS, CAPTURE_LOST,
                            test_binomial_tolerance(CAPTURE_LOST, PAYMENTS));
    ck_assert_uint_eq(unsettled.captures_lost, doubled.captures_lost);
    const char *const keyed[] = {"gateway.timeout=0", "gateway.capture_lost=0.2",
                                 "clients[0].retry.max_attempts=2",
                                 "gateway.settlement_every_ms=5000", "gateway.honours_key=true"};
    Metrics run = test_run_json(auth_capture_world, keyed, 5, MODE_IDEMPOTENT);
    ck_assert_uint_gt(run.captures_lost, 0);
    ck_assert_uint_eq(run.settlement_corrections, 0);
    ck_assert_uint_eq(run.effects, PAYMENTS);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], PAYMENTS);
}
END_TEST

/* A capture that cannot be lost draws nothing and keeps nothing for a file. */
START_TEST(test_no_capture_is_lost_without_capture_lost)
{
    const char *const never[] = {"gateway.timeout=0"};
    Metrics run = test_run_json(auth_capture_world, never, 1, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(run.captures_lost, 0);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], PAYMENTS);
}
END_TEST

/* ------------------------------------------------------------------ refused at load */

/* The older form, where the server's later calls to the gateway can be switched on. */
static const char older_form_world[] =
    "{\"accounts\": [{\"id\": \"shoppers\"}], \"clients\": [{\"id\": \"shop\"}],"
    " \"server\": {\"use_gateway\": true}, \"gateway\": {\"capture\": \"manual\"}}";

START_TEST(test_manual_capture_beside_an_authorisation_s_later_life_is_refused)
{
    const char *const reconciled[] = {"server.reconcile_ms=1000"};
    test_assert_refused(older_form_world, reconciled, 1, "$.gateway.capture",
                        "server.reconcile_ms");
    const char *const outbox[] = {"server.outbox=true"};
    test_assert_refused(older_form_world, outbox, 1, "$.gateway.capture", "server.outbox");
    const char *const unknown[] = {"gateway.capture=\"later\""};
    test_assert_refused(older_form_world, unknown, 1, "$.gateway.capture", "later");
    /* the services form names the gateway's entry */
    const char *const undo[] = {"services[0].steps=[{\"call\": \"acquirer\", \"undo\": {}}, "
                                "{\"effect\": \"fulfil\"}]"};
    test_assert_refused(auth_capture_world, undo, 1, "$.services[2].capture", "undo");
    /* a settlement correction refunds a charge: only a debit is one */
    const char *const not_a_debit[] = {"gateway.settlement_every_ms=1000",
                                       "clients[0].operation.kind=\"set-status\""};
    test_assert_refused(auth_capture_world, not_a_debit, 2, "$.services[2].settlement_every_ms",
                        "no debit");
}
END_TEST

/* A consumer group that calls the server (a ledger service) has its charges made by the
 * server's own call, which authorises and captures: it loads and places holds. One that
 * charges at the gateway itself is refused. */
#define LEDGER_WORLD(group_call)                                                                   \
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\"},"                                               \
    "   {\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"orders\","                  \
    "    \"key_store\": \"charger-keys\", \"steps\": [{\"call\": \"" group_call "\","              \
    "    \"timeout_ms\": 2000}]},"                                                                 \
    "   {\"id\": \"charger-keys\", \"kind\": \"key_store\"},"                                      \
    "   {\"id\": \"ledger\", \"kind\": \"server\", \"key_store\": \"ledger-keys\","                \
    "    \"steps\": [{\"call\": \"psp\"}]},"                                                       \
    "   {\"id\": \"ledger-keys\", \"kind\": \"key_store\"},"                                       \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"capture\": \"manual\"}],"                       \
    " \"clients\": [{\"id\": \"app\", \"count\": 4, \"publishes\": \"orders\","                    \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100}, \"workload\": {\"ops\": 5}}]}"

START_TEST(test_a_group_calling_the_server_has_its_charges_authorised_and_captured)
{
    Metrics run = test_run_json(LEDGER_WORLD("ledger"), NULL, 0, MODE_IDEMPOTENT);
    ck_assert_uint_eq(run.operations, 20);
    ck_assert_uint_eq(run.holds, 20);
    ck_assert_uint_eq(run.outcomes[OUTCOME_OK], 20);
    test_assert_refused(LEDGER_WORLD("psp"), NULL, 0, "$.services[5].capture",
                        "the consumers charge through the gateway");
}
END_TEST

static Suite *auth_capture_suite(void)
{
    Suite *suite = suite_create("auth_capture");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 30);
    tcase_add_test(core, test_a_retried_authorisation_without_a_key_leaves_a_second_hold);
    tcase_add_test(core, test_the_key_honoured_replays_the_authorisation_one_hold_captured);
    tcase_add_test(core, test_immediate_capture_places_no_holds);
    tcase_add_test(core, test_an_authorisation_is_captured_once);
    tcase_add_test(core, test_late_approvals_are_voided_and_leave_no_orphan);
    tcase_add_test(core, test_a_lost_capture_is_a_phantom_the_settlement_file_refunds);
    tcase_add_test(core, test_a_retried_capture_of_one_authorisation_moves_money_once);
    tcase_add_test(core, test_no_capture_is_lost_without_capture_lost);
    suite_add_tcase(suite, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_manual_capture_beside_an_authorisation_s_later_life_is_refused);
    tcase_add_test(limits, test_a_group_calling_the_server_has_its_charges_authorised_and_captured);
    suite_add_tcase(suite, limits);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(auth_capture_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
