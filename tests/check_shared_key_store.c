/* A key store several servers name (issue 21): checkout and the payments service it calls
 * keep their keys in one store, one set of rows. The lesson: a key is unique within the
 * store it is looked up in, so checkout forwarding its client's key K to payments makes
 * payments look K up in the very store where checkout reserved it, find checkout's own row
 * processing, and answer 409; checkout's every try fails, and so does every payment, though
 * nothing is wrong. A key derived from K is payments' own, and both work. Also: the loader's
 * rules for a shared store, `show` writing it once, its rows counted once, and a crash of one
 * user never wiping it. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "test_world.h"
#include "world.h"

#define APP_ATTEMPTS 2
#define CHECKOUT_TRIES 3
#define PAYMENTS 40 /* one client's, one at a time */

/* checkout calls payments (10 ms, well within checkout's 300 ms per try), both keeping their
 * keys in the store `payments_store` names: "keys" (checkout's own) or a store of its own. */
#define CHECKOUT_PAYMENTS(call_key, payments_store, extra_store, checkout_fields, store_fields)    \
    "{\"seed\": 5, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","                     \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1}" checkout_fields ","  \
    "    \"steps\": [{\"call\": \"payments\", \"timeout_ms\": 300,"                                \
    "                 \"retry\": {\"max_attempts\": 3}, \"key\": \"" call_key "\"}]},"             \
    "   {\"id\": \"keys\", \"kind\": \"key_store\"" store_fields "},"                              \
    "   {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"" payments_store "\","       \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 10},"                    \
    "    \"steps\": [{\"effect\": \"local\"}]}" extra_store "],"                                   \
    " \"clients\": [{\"id\": \"app\", \"count\": 1, \"calls\": \"checkout\","                      \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"ops\": 40, \"interval_ms\": 10000},"                                      \
    "   \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 2,"                                   \
    "     \"backoff\": {\"base_ms\": 10, \"factor\": 1, \"max_ms\": 10, \"jitter\": \"none\"}},"   \
    "   \"key\": \"per-click\"}],"                                                                 \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"

#define SHARED(call_key) CHECKOUT_PAYMENTS(call_key, "keys", "", "", "")
#define OWN_STORES(call_key)                                                                       \
    CHECKOUT_PAYMENTS(call_key, "payments-keys",                                                   \
                      ", {\"id\": \"payments-keys\", \"kind\": \"key_store\"}", "", "")

/* ------------------------------------------------------------------ the lesson */

/* Forwarding K into the store where checkout holds K: payments finds checkout's own row
 * processing and answers 409 to each of checkout's tries; checkout answers its client 502
 * once its tries are spent (and releases its row, so the app's retry meets the same). Every
 * payment fails: nothing charged, payments never runs, 409s = payments x app attempts x
 * checkout's tries. */
START_TEST(test_a_forwarded_key_meets_its_callers_own_row)
{
    Metrics m = test_run_text(SHARED("forward"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(m.operations, PAYMENTS);
    ck_assert_uint_eq(m.effects, 0);
    ck_assert_uint_eq(m.outcomes[OUTCOME_OK], 0);
    ck_assert_uint_eq(m.outcomes[OUTCOME_LOST], PAYMENTS);
    ck_assert_uint_eq(m.attempts, PAYMENTS * APP_ATTEMPTS);
    ck_assert_uint_eq(m.status_409, PAYMENTS * APP_ATTEMPTS * CHECKOUT_TRIES);
    ck_assert_uint_eq(m.call_retries, PAYMENTS * APP_ATTEMPTS * (CHECKOUT_TRIES - 1));
    ck_assert_double_eq(test_service_value(&m, "payments", "runs"), 0);
    ck_assert_double_eq(test_service_value(&m, "payments", "refused"), m.status_409);
    ck_assert_double_eq(test_service_value(&m, "checkout", "runs"), PAYMENTS * APP_ATTEMPTS);
}
END_TEST

/* The same world with payments' key derived from K (or with a store of its own): every
 * payment charged once, at the first try, nothing refused. */
START_TEST(test_a_derived_key_or_a_store_of_its_own_works)
{
    const char *const worlds[] = {SHARED("derive"), OWN_STORES("forward"), OWN_STORES("derive")};
    for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; w++) {
        Metrics m = test_run_text(worlds[w], MODE_IDEMPOTENT);
        ck_assert_uint_eq(m.effects, PAYMENTS);
        ck_assert_uint_eq(m.outcomes[OUTCOME_OK], PAYMENTS);
        ck_assert_uint_eq(m.outcomes[OUTCOME_DOUBLE], 0);
        ck_assert_uint_eq(m.status_409, 0);
        ck_assert_uint_eq(m.call_retries, 0);
        ck_assert_double_eq(test_service_value(&m, "payments", "runs"), PAYMENTS);
    }
}
END_TEST

/* One store, its rows counted once: K and its derived key for every payment, the same count
 * as in two stores (no TTL: nothing expires). */
START_TEST(test_a_shared_store_is_counted_once)
{
    Metrics shared = test_run_text(SHARED("derive"), MODE_IDEMPOTENT);
    Metrics own = test_run_text(OWN_STORES("derive"), MODE_IDEMPOTENT);
    ck_assert_uint_eq(shared.key_store_rows, 2 * PAYMENTS);
    ck_assert_uint_eq(shared.key_store_peak, 2 * PAYMENTS);
    ck_assert_uint_eq(own.key_store_rows, shared.key_store_rows);
    ck_assert_uint_eq(own.key_store_peak, shared.key_store_peak);
}
END_TEST

/* A store several servers use is owned by none: checkout's crash (once, after its first
 * completion, before it answers) does not wipe it, durable or not. The app's retry then finds
 * its completed row and is answered from the store. With a store of its own, not durable,
 * the crash empties checkout's store: the retry runs checkout again (payments answers it
 * from its own store). */
#define CRASH_ONCE                                                                                 \
    ", \"crash\": {\"point\": \"after-completion\", \"prob\": 1, \"max_crashes\": 1,"              \
    " \"restart_ms\": 100}"
START_TEST(test_a_crash_never_wipes_a_shared_store)
{
    Metrics shared =
        test_run_text(CHECKOUT_PAYMENTS("derive", "keys", "", CRASH_ONCE, ", \"durable\": false"),
                      MODE_IDEMPOTENT);
    Metrics own = test_run_text(CHECKOUT_PAYMENTS("derive", "payments-keys",
                                                  ", {\"id\": \"payments-keys\", \"kind\": "
                                                  "\"key_store\"}",
                                                  CRASH_ONCE, ", \"durable\": false"),
                                MODE_IDEMPOTENT);
    ck_assert_uint_eq(shared.crashes, 1);
    ck_assert_uint_eq(own.crashes, 1);
    ck_assert_double_eq(test_service_value(&shared, "checkout", "replayed"), 1);
    ck_assert_double_eq(test_service_value(&shared, "checkout", "runs"), PAYMENTS);
    ck_assert_double_eq(test_service_value(&own, "checkout", "replayed"), 0);
    ck_assert_double_eq(test_service_value(&own, "checkout", "runs"), PAYMENTS + 1);
    ck_assert_double_eq(test_service_value(&own, "payments", "replayed"), 1);
    ck_assert_uint_eq(shared.effects, PAYMENTS);
    ck_assert_uint_eq(own.effects, PAYMENTS);
}
END_TEST

/* ------------------------------------------------------------------ loading */

static Scenario *load_good(const char *text)
{
    return test_load(text, NULL, 0);
}

/* Every user of the store keeps its keys by the store's one entry: the same settings. */
START_TEST(test_every_user_gets_the_stores_settings)
{
    Scenario *s = load_good(
        CHECKOUT_PAYMENTS("derive", "keys", "", "", ", \"ttl_ms\": 60000, \"fencing\": true"));
    const IdempotencySpec *checkout = &s->server.idempotency;
    const IdempotencySpec *payments = &s->called_servers[0].spec.idempotency;
    ck_assert_str_eq(checkout->store_id, "keys");
    ck_assert_str_eq(payments->store_id, "keys");
    ck_assert_double_eq(payments->ttl_ms, 60000);
    ck_assert(payments->fencing);
    ck_assert_mem_eq(checkout, payments, sizeof *checkout); /* a copy of the one read */
    ck_assert_int_eq(scenario_called_store_shared_with(s, 0), 0);
    free(s);
    s = load_good(OWN_STORES("derive"));
    ck_assert_int_eq(scenario_called_store_shared_with(s, 0), -1);
    free(s);
}
END_TEST

/* Two called servers may share a store too: checkout -> payments -> ledger, the last two on
 * "pay-keys"; ledger's store is payments'. */
static const char two_called[] =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
    " \"services\": ["
    "  {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","
    "   \"steps\": [{\"call\": \"payments\", \"key\": \"derive\", \"timeout_ms\": 500}]},"
    "  {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "  {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"pay-keys\","
    "   \"steps\": [{\"call\": \"ledger\", \"key\": \"derive\", \"timeout_ms\": 500}]},"
    "  {\"id\": \"pay-keys\", \"kind\": \"key_store\", \"ttl_ms\": 5000},"
    "  {\"id\": \"ledger\", \"kind\": \"server\", \"key_store\": \"pay-keys\"}],"
    " \"clients\": [{\"id\": \"app\", \"calls\": \"checkout\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 5}}]}";

START_TEST(test_two_called_servers_may_share_a_store)
{
    Scenario *s = load_good(two_called);
    ck_assert_int_eq(scenario_called_store_shared_with(s, 0), -1);
    ck_assert_int_eq(scenario_called_store_shared_with(s, 1), 1); /* payments' */
    ck_assert_double_eq(s->called_servers[1].spec.idempotency.ttl_ms, 5000);
    Metrics m = test_run_mode(s, MODE_IDEMPOTENT, s->seed);
    ck_assert_uint_eq(m.effects, m.operations);
    free(s);
}
END_TEST

/* A consumer group shares the first server's store only, and not one in each server
 * instance's memory; a shared store is one set of rows (not a copy per instance) and has no
 * crash of its own while a called server uses it; the clients' server's outbox does not live
 * in a shared store. Each refused with its path. */
START_TEST(test_what_a_shared_store_refuses)
{
    test_assert_refused(
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 100}],"
        " \"services\": ["
        "  {\"id\": \"s\", \"kind\": \"server\", \"key_store\": \"k\","
        "   \"instances\": 2},"
        "  {\"id\": \"k\", \"kind\": \"key_store\", \"placement\": \"per-instance\"},"
        "  {\"id\": \"b\", \"kind\": \"broker\"},"
        "  {\"id\": \"w\", \"kind\": \"consumers\", \"consumes\": \"b\","
        "   \"key_store\": \"k\"}],"
        " \"clients\": [{\"id\": \"c\", \"publishes\": \"b\"}]}",
        NULL, 0, "$.services[3].key_store", "is per-instance");
    test_assert_refused(CHECKOUT_PAYMENTS("derive", "keys", "", ", \"instances\": 2",
                                          ", \"placement\": \"per-instance\""),
                        NULL, 0, "$.services[1].placement", "expected 'shared'");
    test_assert_refused(
        CHECKOUT_PAYMENTS("derive", "keys", "", "", ", \"crash\": {\"every_ms\": 1000}"), NULL, 0,
        "$.services[1].crash", "in a called server's store");
    test_assert_refused(CHECKOUT_PAYMENTS("derive", "keys", "", "", ", \"on_in_progress\": 202"),
                        NULL, 0, "$.services[1].on_in_progress", "expected 409");
    test_assert_refused(
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 100}],"
        " \"services\": ["
        "  {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","
        "   \"steps\": [{\"call\": \"payments\", \"key\": \"derive\", \"timeout_ms\": 500},"
        "             {\"publish\": \"b\", \"via\": \"outbox\"}]},"
        "  {\"id\": \"keys\", \"kind\": \"key_store\"},"
        "  {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"keys\"},"
        "  {\"id\": \"b\", \"kind\": \"broker\"},"
        "  {\"id\": \"w\", \"kind\": \"consumers\", \"consumes\": \"b\","
        "   \"key_store\": \"w-keys\"},"
        "  {\"id\": \"w-keys\", \"kind\": \"key_store\"}],"
        " \"clients\": [{\"id\": \"c\", \"calls\": \"checkout\","
        "   \"operation\": {\"kind\": \"debit\", \"amount\": 5}}]}",
        NULL, 0, "$.services[0].key_store", "an outbox in it is not modelled yet");
}
END_TEST

/* ------------------------------------------------------------------ show */

static unsigned count_of(const char *text, const char *words)
{
    unsigned count = 0;
    for (const char *at = strstr(text, words); at != NULL; at = strstr(at + 1, words))
        count++;
    return count;
}

/* show writes the shared store once, after the first server that names it; both servers
 * name it; the printed file loads back to the same sharing and prints again unchanged. */
START_TEST(test_show_writes_a_shared_store_once)
{
    Scenario *s = load_good(SHARED("forward"));
    char *text = scenario_show(s);
    ck_assert_uint_eq(count_of(text, "\"kind\": \"key_store\""), 1);
    ck_assert_uint_eq(count_of(text, "\"key_store\": \"keys\""), 2);
    Scenario *shown = load_good(text);
    ck_assert_int_eq(scenario_called_store_shared_with(shown, 0), 0);
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
    Suite *suite = suite_create("shared_key_store");
    TCase *tcase = tcase_create("shared_key_store");
    tcase_add_test(tcase, test_a_forwarded_key_meets_its_callers_own_row);
    tcase_add_test(tcase, test_a_derived_key_or_a_store_of_its_own_works);
    tcase_add_test(tcase, test_a_shared_store_is_counted_once);
    tcase_add_test(tcase, test_a_crash_never_wipes_a_shared_store);
    tcase_add_test(tcase, test_every_user_gets_the_stores_settings);
    tcase_add_test(tcase, test_two_called_servers_may_share_a_store);
    tcase_add_test(tcase, test_what_a_shared_store_refuses);
    tcase_add_test(tcase, test_show_writes_a_shared_store_once);
    suite_add_tcase(suite, tcase);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
