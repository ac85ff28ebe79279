/* idemsim explain: one operation's story in each mode, told from the diagram model. The
 * lost-answer lesson must read as it happened: the answer lost, the retry charging again
 * without keys, the key store replaying with one. */
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_cli.h"

#define LOST_ANSWER "scenarios/01_lost_answer.json"
#define ORDER_API "scenarios/architectures/order_api_kafka_charging.json"
#define ARROW_RIGHT "\xe2\x86\x92" /* → */

static char out[512];
static char err[512];

static void setup(void)
{
    test_cli_make_scratch("explain");
    snprintf(out, sizeof out, "%s/out", test_scratch);
    snprintf(err, sizeof err, "%s/err", test_scratch);
}

static void teardown(void)
{
    test_cli_remove_scratch();
}

/* The text of one mode's story in the whole output. */
static char *story_of(const char *printed, const char *mode)
{
    char header[64];
    snprintf(header, sizeof header, "%s: operation", mode);
    const char *start = strstr(printed, header);
    ck_assert_msg(start != NULL, "no story for %s in:\n%s", mode, printed);
    const char *end = strstr(start, "\n\n");
    size_t length = end ? (size_t)(end - start) : strlen(start);
    char *story = malloc(length + 1);
    memcpy(story, start, length);
    story[length] = '\0';
    return story;
}

START_TEST(test_the_lost_answer_reads_as_it_happened)
{
    const char *arguments[] = {"explain", LOST_ANSWER, "--op", "0", NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    char *once = story_of(printed, "at-most-once");
    char *again = story_of(printed, "at-least-once");
    char *keyed = story_of(printed, "idempotent");
    ck_assert_ptr_nonnull(strstr(once, "200 OK, LOST by the network"));
    ck_assert_ptr_nonnull(strstr(once, "outcome: phantom"));
    ck_assert_ptr_nonnull(strstr(again, "(retry #2)"));
    ck_assert_ptr_nonnull(strstr(again, "outcome: double"));
    ck_assert_ptr_nonnull(strstr(again, "NOT caught: 1 extra effect"));
    ck_assert_ptr_nonnull(strstr(keyed, "replay 200"));
    ck_assert_ptr_nonnull(strstr(keyed, "outcome: ok"));
    ck_assert_ptr_nonnull(strstr(keyed, "caught: 1 by a key store"));
    free(once);
    free(again);
    free(keyed);
    free(printed);
}
END_TEST

/* Issue 24: operation 0 is a real operation, not "none": the server's restarts, which the
 * trace marks as of no operation ("op": null), are not part of its story. */
START_TEST(test_operation_zero_is_not_told_the_restarts_of_no_operation)
{
    char trace[512];
    snprintf(trace, sizeof trace, "%s/trace.jsonl", test_scratch);
    const char *run[] = {"run", "scenarios/11_crash_after_charge.json", "--trace", trace, "-q",
                         NULL};
    ck_assert_int_eq(test_cli_run(run, out, err), 0);
    char *lines = test_cli_read_all(trace, NULL);
    ck_assert_ptr_nonnull(strstr(lines, "\"event\": \"restart\", \"op\": null"));
    ck_assert_ptr_null(strstr(lines, "\"event\": \"restart\", \"op\": 0"));
    ck_assert_ptr_nonnull(strstr(lines, "\"op\": 0, ")); /* operation 0 is traced */
    free(lines);
    const char *explain[] = {"explain", "scenarios/11_crash_after_charge.json", "--op", "0", NULL};
    ck_assert_int_eq(test_cli_run(explain, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "at-most-once: operation"));
    ck_assert_ptr_null(strstr(printed, "restarted"));
    free(printed);
}
END_TEST

/* --why picks, in each mode, the first operation the model settled with that outcome. */
START_TEST(test_why_picks_the_first_operation_with_that_outcome)
{
    const char *arguments[] = {"explain", LOST_ANSWER, "--why", "double", NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "at-most-once: no operation ended double"));
    char *again = story_of(printed, "at-least-once");
    ck_assert_ptr_nonnull(strstr(again, "outcome: double"));
    ck_assert_ptr_nonnull(strstr(printed, "idempotent: no operation ended double"));
    free(again);
    free(printed);
}
END_TEST

/* The outcome line of a story (from "  outcome: " to its end of line). */
static char *outcome_line_of(const char *story)
{
    const char *start = strstr(story, "  outcome: ");
    ck_assert_msg(start != NULL, "no outcome line in:\n%s", story);
    size_t length = strcspn(start, "\n");
    char *line = malloc(length + 1);
    memcpy(line, start, length);
    line[length] = '\0';
    return line;
}

/* C35: a payment whose first authorisation's answer was lost is authorised again: one charge,
 * two holds on the card (the run's double_holds). The outcome line says so, and how many the
 * caller voided; a payment with one hold says nothing of holds. Operation 275 of seed 35 has
 * its first approval lost in every mode; operation 485 of the void lesson has its first
 * approval come late, voided. */
START_TEST(test_a_second_hold_on_the_card_is_in_the_outcome)
{
    const char *twice[] = {"explain", "scenarios/35_auth_capture_retry.json", "--op", "275", NULL};
    ck_assert_int_eq(test_cli_run(twice, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    const char *modes[] = {"at-most-once", "at-least-once", "idempotent"};
    for (int m = 0; m < 3; m++) {
        char *story = story_of(printed, modes[m]);
        char *outcome = outcome_line_of(story);
        ck_assert_ptr_nonnull(strstr(story, "hold #2 on the card"));
        ck_assert_msg(strstr(outcome, "outcome: ok: 1 click, 1 attempt, 1 effect, 2 holds on "
                                      "the card; the client was told it succeeded") != NULL,
                      "%s: %s", modes[m], outcome);
        free(outcome);
        free(story);
    }
    free(printed);
    const char *once[] = {
        "explain", "scenarios/35_auth_capture_retry.json", "--op", "0", "--mode", "idempotent",
        NULL};
    ck_assert_int_eq(test_cli_run(once, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "hold #1 on the card"));
    ck_assert_ptr_null(strstr(printed, "hold #2"));
    ck_assert_ptr_null(strstr(printed, "holds on the card"));
    free(printed);
    const char *voided[] = {
        "explain", "scenarios/35_auth_capture_void.json", "--op", "485", "--mode", "idempotent",
        NULL};
    ck_assert_int_eq(test_cli_run(voided, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "late approval voided"));
    ck_assert_ptr_nonnull(strstr(printed, ", 2 holds on the card (1 voided);"));
    free(printed);
}
END_TEST

static int count_of(const char *text, const char *words)
{
    int count = 0;
    for (const char *at = strstr(text, words); at != NULL; at = strstr(at + 1, words))
        count++;
    return count;
}

/* An order API's "effect" is its publish: a failure after it says what went out. Operation
 * 210 of the architecture fails after its publish in every mode. Published directly, the
 * order is out before the 500; through the outbox the order's row is written with the
 * commit, which the 500 never makes, so nothing is out (the retry's commit writes it). A
 * server that charges keeps the words of an effect. */
START_TEST(test_an_order_api_fails_after_publishing_or_before_its_outbox_commit)
{
    const char *vias[] = {"direct", "outbox"};
    const char *expected[] = {
        "order-api: fails after publishing the order " ARROW_RIGHT " 500",
        ("order-api: fails before its commit: no order in the outbox " ARROW_RIGHT " 500")};
    for (int v = 0; v < 2; v++) {
        char set[64];
        snprintf(set, sizeof set, "services.order-api.steps[0].via=\"%s\"", vias[v]);
        const char *arguments[] = {"explain",       ORDER_API, "--op", "210", "--mode",
                                   "at-least-once", "--set",   set,    NULL};
        ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
        char *printed = test_cli_read_all(out, NULL);
        ck_assert_msg(count_of(printed, expected[v]) == 1, "%s: not once '%s' in:\n%s", vias[v],
                      expected[v], printed);
        ck_assert_ptr_null(strstr(printed, "fails after the effect"));
        ck_assert_int_eq(count_of(printed, "order-api: publishes the order"), v == 0 ? 2 : 0);
        free(printed);
    }
    const char *charges[] = {"explain", "scenarios/10_failure_retryable.json",
                             "--why",   "double",
                             "--mode",  "at-least-once",
                             NULL};
    ck_assert_int_eq(test_cli_run(charges, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "server: fails after the effect " ARROW_RIGHT " 500"));
    free(printed);
}
END_TEST

/* A reconciliation names the gateway it asked where the world has several: checkout charges
 * at the wallet (the extra gateway) and asks it about the charges it never heard back of.
 * With one gateway the words stay "asked the gateway". */
START_TEST(test_a_reconciliation_names_the_gateway_it_asked_among_several)
{
    const char *arguments[] = {"explain", "tests/good_scenarios/two_gateways.json",
                               "--op",    "195",
                               "--mode",  "idempotent",
                               "--set",   "services.checkout.steps[0].call=\"wallet\"",
                               "--set",   "services.checkout.steps[0].reconcile_ms=1000",
                               "--set",   "services.checkout.steps[0].retry.max_attempts=1",
                               "--set",   "services.billing.steps[0].call=\"cards\"",
                               NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_msg(count_of(printed, "checkout -> wallet: status_query") == 2, "%s", printed);
    ck_assert_int_eq(count_of(printed, "checkout: asked wallet " ARROW_RIGHT " 200"), 2);
    ck_assert_ptr_null(strstr(printed, "asked the gateway"));
    free(printed);
    const char *one[] = {
        "explain", "scenarios/11_gateway_reconcile.json", "--op", "31", "--mode", "idempotent",
        NULL};
    ck_assert_int_eq(test_cli_run(one, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "server: asked the gateway " ARROW_RIGHT " 200") != NULL, "%s",
                  printed);
    free(printed);
}
END_TEST

/* A broker of several queues names the queue a message goes into: a fanout exchange's two
 * copies of one order are queued in payments and in confirmations. With one queue the words
 * stay "queued". */
START_TEST(test_a_message_is_queued_in_the_queue_named)
{
    const char *arguments[] = {
        "explain", "scenarios/architectures/orders_fanout_charge_and_confirm.json",
        "--op",    "0",
        "--mode",  "at-least-once",
        NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_msg(count_of(printed, "events: queued in payments") == 1, "%s", printed);
    ck_assert_int_eq(count_of(printed, "events: queued in confirmations"), 1);
    free(printed);
    const char *one[] = {"explain", "scenarios/03_broker_channel.json", "--op", "0", NULL};
    ck_assert_int_eq(test_cli_run(one, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "broker: queued\n") != NULL, "%s", printed);
    ck_assert_ptr_null(strstr(printed, "queued in"));
    free(printed);
}
END_TEST

/* A copy's end names the queue it left where the broker has several, as its "queued in" did:
 * with one delivery allowed, operation 161's confirmation copy, whose mailer crashed after
 * sending, is dead-lettered from the confirmations queue at its visibility timeout (or
 * discarded there, without a dead-letter queue). With one queue the mark names none:
 * operation 61 of the channel lesson is dead-lettered when the run's last channel closes. */
START_TEST(test_a_dead_letter_names_the_queue_it_left)
{
    const char *fanout[] = {
        "explain", "scenarios/architectures/orders_fanout_charge_and_confirm.json",
        "--op",    "161",
        "--mode",  "at-least-once",
        "--set",   "services.events.max_deliveries=1",
        NULL};
    ck_assert_int_eq(test_cli_run(fanout, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "events: dead-lettered from confirmations\n") != NULL, "%s",
                  printed);
    free(printed);
    const char *discarding[] = {
        "explain", "scenarios/architectures/orders_fanout_charge_and_confirm.json",
        "--op",    "161",
        "--mode",  "at-least-once",
        "--set",   "services.events.max_deliveries=1",
        "--set",   "services.events.dead_letter=false",
        NULL};
    ck_assert_int_eq(test_cli_run(discarding, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "events: discarded from confirmations\n") != NULL, "%s", printed);
    free(printed);
    const char *one[] = {
        "explain", "scenarios/03_broker_channel.json", "--op", "61", "--mode", "at-least-once",
        "--set",   "broker.max_deliveries=1",          NULL};
    ck_assert_int_eq(test_cli_run(one, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "broker: dead-lettered\n") != NULL, "%s", printed);
    free(printed);
}
END_TEST

/* A process that dies holding the operation's job, in a crash another job set off, is part
 * of its story, with its restart: operation 390's collector crashes while its charge is at
 * the provider, and the delivery comes back after the visibility timeout. A lost order of a
 * log's consumers (at-most-once) ends in the crash that lost it. A crash after the
 * operation settled is not its story: operation 0 of C25 is charged and done long before
 * its consumers crash. An outage is told as the port closing. */
START_TEST(test_a_crash_that_kills_the_operations_job_is_told)
{
    const char *collector[] = {
        "explain", "scenarios/architectures/orders_and_invoices_two_groups.json",
        "--op",    "390",
        "--mode",  "idempotent",
        NULL};
    ck_assert_int_eq(test_cli_run(collector, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    const char *crash = strstr(printed, "collectors: CRASH (after-effect) at operation 420's step;"
                                        " this one's job dies with it");
    ck_assert_msg(crash != NULL, "%s", printed);
    const char *restart = strstr(printed, "collectors: restarted");
    const char *again = strstr(printed, "events: redelivery #2");
    ck_assert_msg(restart != NULL && again != NULL && crash < restart && restart < again, "%s",
                  printed);
    free(printed);
    const char *lost[] = {"explain", "scenarios/37_kafka_transactions_email.json",
                          "--why",   "lost",
                          "--mode",  "at-most-once",
                          NULL};
    ck_assert_int_eq(test_cli_run(lost, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(count_of(printed, "consumers: CRASH") == 1, "%s", printed);
    free(printed);
    const char *settled[] = {
        "explain", "scenarios/25_consumer_charges_card.json", "--op", "0", "--mode", "at-most-once",
        NULL};
    ck_assert_int_eq(test_cli_run(settled, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "CRASH") == NULL, "%s", printed);
    free(printed);
    const char *outage[] = {
        "explain", "scenarios/22_retry_storm.json", "--why", "double", "--mode", "at-least-once",
        NULL};
    ck_assert_int_eq(test_cli_run(outage, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "server: DOWN (outage: port closed)") != NULL, "%s", printed);
    ck_assert_ptr_null(strstr(printed, "CRASH (none)"));
    free(printed);
}
END_TEST

/* An outage's crash is of no operation ("op": null), which the trace record carries as
 * operation 0 with no_operation set: when it ends operation 0's job (its first request, held
 * by the server at 1.3 s, which the outage then resets), operation 0's story tells it as any
 * other operation's does. */
START_TEST(test_an_outage_that_kills_operation_zeros_job_is_told)
{
    const char *outage[] = {"explain", "scenarios/22_retry_storm.json",
                            "--op",    "0",
                            "--mode",  "at-least-once",
                            "--set",   "server.outage.from_ms=1300",
                            "--set",   "server.outage.to_ms=5000",
                            NULL};
    ck_assert_int_eq(test_cli_run(outage, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    const char *down = strstr(printed, "server: DOWN (outage: port closed)");
    const char *reset = strstr(printed, "server -> app[0]: reset");
    ck_assert_msg(down != NULL && reset != NULL && down < reset, "%s", printed);
    free(printed);
}
END_TEST

/* A story that starts while a key store is down (its own crash, C38) starts with that crash:
 * its requests meet the store down from their first step. In workers_dedupe_store_down the
 * first double fails open: its delivery runs unchecked during an outage. Operation 0 starts
 * before any crash, and its story tells none. */
START_TEST(test_a_story_that_starts_within_a_store_outage_starts_with_its_crash)
{
    const char *why[] = {"explain", "scenarios/architectures/workers_dedupe_store_down.json",
                         "--why",   "double",
                         "--mode",  "idempotent",
                         NULL};
    ck_assert_int_eq(test_cli_run(why, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    const char *crash = strstr(printed, "redis: CRASH (keys kept)");
    const char *pay = strstr(printed, "presses Pay");
    const char *unchecked = strstr(printed, "key store down: runs with no key check");
    ck_assert_msg(crash != NULL && pay != NULL && unchecked != NULL && crash < pay, "%s", printed);
    free(printed);
    const char *first[] = {"explain", "scenarios/architectures/workers_dedupe_store_down.json",
                           "--op",    "0",
                           "--mode",  "idempotent",
                           NULL};
    ck_assert_int_eq(test_cli_run(first, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "CRASH") == NULL, "%s", printed);
    free(printed);
}
END_TEST

/* A key store with no persistence (durable false) that crashes holding no keys kept none: its
 * crash says so, not "keys kept" (a durable store's words, above). The collectors' store of
 * orders_and_invoices_two_groups goes down 1 ms into the run, before any key, for a minute;
 * billing's first operation, at 29.9 s, starts within that outage. */
START_TEST(test_a_store_without_persistence_that_held_no_keys_is_told_so)
{
    const char *why[] = {
        "explain",
        "scenarios/architectures/orders_and_invoices_two_groups.json",
        "--op",
        "300",
        "--mode",
        "idempotent",
        "--set",
        ("services.collector-keys.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 1}, "
         "\"restart_ms\": 60000, \"max_crashes\": 1}"),
        NULL};
    ck_assert_int_eq(test_cli_run(why, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "0.001 s  collector-keys: CRASH (no keys held)\n") != NULL, "%s",
                  printed);
    ck_assert_msg(strstr(printed, "kept") == NULL, "%s", printed);
    free(printed);
}
END_TEST

/* A called server's outage already under way when the story starts is told first too, and
 * its restart where it falls: operation 5 of checkout_payments_service starts at 49 s, in a
 * payments outage from 1 ms to 50 s, and its second attempt, after it, succeeds. */
START_TEST(test_a_story_that_starts_within_a_servers_outage_starts_with_it)
{
    const char *arguments[] = {
        "explain", "scenarios/architectures/checkout_payments_service.json",
        "--op",    "5",
        "--mode",  "idempotent",
        "--set",   "services.payments.outage={\"from_ms\": 1, \"to_ms\": 50000}",
        NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    const char *down = strstr(printed, "0.001 s  payments: DOWN (outage: port closed)");
    const char *pay = strstr(printed, "presses Pay");
    const char *back = strstr(printed, "50.000 s  payments: restarted");
    ck_assert_msg(down != NULL && pay != NULL && down < pay && back != NULL, "%s", printed);
    free(printed);
}
END_TEST

/* A called server's outage that starts within the story, while no request of it is there, is
 * told in its place too: operation 5 of checkout_payments_service presses Pay at 45.212 s,
 * payments closes its port at 45.215 s, and checkout's calls meet resets from 45.246 s. */
START_TEST(test_an_outage_that_starts_within_the_story_is_told_where_it_falls)
{
    const char *arguments[] = {
        "explain", "scenarios/architectures/checkout_payments_service.json",
        "--op",    "5",
        "--mode",  "idempotent",
        "--set",   "services.payments.outage={\"from_ms\": 45215, \"to_ms\": 60000}",
        NULL};
    ck_assert_int_eq(test_cli_run(arguments, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    const char *pay = strstr(printed, "presses Pay");
    const char *down = strstr(printed, "45.215 s  payments: DOWN (outage: port closed)");
    const char *reset = strstr(printed, "payments -> checkout: reset");
    ck_assert_msg(pay != NULL && down != NULL && reset != NULL && pay < down && down < reset, "%s",
                  printed);
    free(printed);
}
END_TEST

/* An outage is told only in the stories that meet its node. In orders_and_invoices_two_groups
 * the shop's orders go to the chargers and the billing's invoices to the collectors, each
 * group with its own key store; here the collectors' store goes down from 30 s to 40 s (and
 * every 30 s after). The shop's operation 18 presses Pay at 39.586 s, in that outage, and
 * waits a second for the card gateway, past the restart: its story tells neither, since its
 * order never meets that store (it was told both). The billing's operation 552, at 30.315 s,
 * meets the store down and starts with its crash. */
START_TEST(test_a_story_tells_no_outage_of_a_store_it_never_meets)
{
    const char *crash = "services.collector-keys.crash={\"every_ms\": {\"dist\": \"const\", "
                        "\"value\": 30000}, \"restart_ms\": 10000}";
    const char *slow_cards = "services.cards.latency_ms={\"dist\": \"const\", \"value\": 1000}";
    const char *shop[] = {"explain", "scenarios/architectures/orders_and_invoices_two_groups.json",
                          "--op",    "18",
                          "--mode",  "idempotent",
                          "--set",   crash,
                          "--set",   slow_cards,
                          NULL};
    ck_assert_int_eq(test_cli_run(shop, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "39.586 s  shop[3]: presses Pay") != NULL, "%s", printed);
    ck_assert_msg(strstr(printed, "chargers: key free") != NULL, "%s", printed);
    ck_assert_msg(strstr(printed, "collector-keys") == NULL, "%s", printed);
    free(printed);
    const char *billing[] = {
        "explain", "scenarios/architectures/orders_and_invoices_two_groups.json",
        "--op",    "552",
        "--mode",  "idempotent",
        "--set",   crash,
        "--set",   slow_cards,
        NULL};
    ck_assert_int_eq(test_cli_run(billing, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    const char *down = strstr(printed, "30.000 s  collector-keys: CRASH");
    const char *pay = strstr(printed, "billing[42]: presses Pay");
    ck_assert_msg(down != NULL && pay != NULL && down < pay, "%s", printed);
    free(printed);
}
END_TEST

/* The same for a server's outage: in two_paths_queue_and_api the return page calls the
 * fulfilment API and the webhook publishes to a queue the shippers consume. With the API down
 * from 4 s to 9 s, the webhook's operation 200 (at 5.4 s) never meets it and is not told it;
 * the return page's operation 0 (at 5 s) meets its resets and starts with it. */
START_TEST(test_a_story_tells_no_outage_of_a_server_it_never_meets)
{
    const char *outage = "services.fulfilment-api.outage={\"from_ms\": 4000, \"to_ms\": 9000}";
    const char *webhook[] = {"explain", "scenarios/architectures/two_paths_queue_and_api.json",
                             "--op",    "200",
                             "--mode",  "idempotent",
                             "--set",   outage,
                             NULL};
    ck_assert_int_eq(test_cli_run(webhook, out, err), 0);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_msg(strstr(printed, "webhook[0]: presses Send") != NULL, "%s", printed);
    ck_assert_msg(strstr(printed, "fulfilment-api") == NULL, "%s", printed);
    free(printed);
    const char *page[] = {"explain", "scenarios/architectures/two_paths_queue_and_api.json",
                          "--op",    "0",
                          "--mode",  "idempotent",
                          "--set",   outage,
                          NULL};
    ck_assert_int_eq(test_cli_run(page, out, err), 0);
    printed = test_cli_read_all(out, NULL);
    const char *down = strstr(printed, "4.000 s  fulfilment-api: DOWN (outage: port closed)");
    const char *send = strstr(printed, "return-page[0]: presses Send");
    const char *reset = strstr(printed, "fulfilment-api -> return-page[0]: reset");
    ck_assert_msg(down != NULL && send != NULL && reset != NULL && down < send, "%s", printed);
    free(printed);
}
END_TEST

/* Every scenario of the library, in each of its modes: operation 0's story ends with the
 * model's outcome, and --why double either tells a double nothing caught or says there is
 * none, mode by mode. */
static void explain_every_mode(const char *path, void *context)
{
    (void)context;
    const char *first[] = {"explain", path, "--op", "0", NULL};
    ck_assert_msg(test_cli_run(first, out, err) == 0, "explain %s --op 0 failed", path);
    char *printed = test_cli_read_all(out, NULL);
    ck_assert_msg(count_of(printed, "\n  outcome: ") == 3, "%s: not 3 outcomes:\n%s", path,
                  printed);
    free(printed);
    const char *why[] = {"explain", path, "--why", "double", NULL};
    ck_assert_msg(test_cli_run(why, out, err) == 0, "explain %s --why double failed", path);
    printed = test_cli_read_all(out, NULL);
    int doubles = count_of(printed, "outcome: double");
    ck_assert_int_eq(doubles + count_of(printed, "no operation ended double"), 3);
    ck_assert_int_eq(count_of(printed, "NOT caught"), doubles);
    free(printed);
}

START_TEST(test_every_scenario_of_the_library_is_explained)
{
    ck_assert_uint_ge(test_for_each_scenario_file("scenarios", explain_every_mode, NULL), 40);
}
END_TEST

START_TEST(test_usage_errors_exit_2)
{
    const char *none[] = {"explain", LOST_ANSWER, NULL};
    const char *both[] = {"explain", LOST_ANSWER, "--op", "1", "--why", "double", NULL};
    const char *outcome[] = {"explain", LOST_ANSWER, "--why", "twice", NULL};
    const char *id[] = {"explain", LOST_ANSWER, "--op", "-3", NULL};
    ck_assert_int_eq(test_cli_run(none, out, err), 2);
    ck_assert_int_eq(test_cli_run(both, out, err), 2);
    ck_assert_int_eq(test_cli_run(outcome, out, err), 2);
    ck_assert_int_eq(test_cli_run(id, out, err), 2);
    char *printed = test_cli_read_all(err, NULL);
    ck_assert_ptr_nonnull(strstr(printed, "--op expects an operation id, got '-3'"));
    free(printed);
}
END_TEST

static Suite *explain_suite(void)
{
    Suite *suite = suite_create("explain");
    TCase *core = tcase_create("Core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_the_lost_answer_reads_as_it_happened);
    tcase_add_test(core, test_operation_zero_is_not_told_the_restarts_of_no_operation);
    tcase_add_test(core, test_why_picks_the_first_operation_with_that_outcome);
    tcase_add_test(core, test_a_second_hold_on_the_card_is_in_the_outcome);
    tcase_add_test(core, test_an_order_api_fails_after_publishing_or_before_its_outbox_commit);
    tcase_add_test(core, test_a_reconciliation_names_the_gateway_it_asked_among_several);
    tcase_add_test(core, test_a_message_is_queued_in_the_queue_named);
    tcase_add_test(core, test_a_dead_letter_names_the_queue_it_left);
    tcase_add_test(core, test_a_crash_that_kills_the_operations_job_is_told);
    tcase_add_test(core, test_an_outage_that_kills_operation_zeros_job_is_told);
    tcase_add_test(core, test_a_story_that_starts_within_a_store_outage_starts_with_its_crash);
    tcase_add_test(core, test_a_store_without_persistence_that_held_no_keys_is_told_so);
    tcase_add_test(core, test_a_story_that_starts_within_a_servers_outage_starts_with_it);
    tcase_add_test(core, test_an_outage_that_starts_within_the_story_is_told_where_it_falls);
    tcase_add_test(core, test_a_story_tells_no_outage_of_a_store_it_never_meets);
    tcase_add_test(core, test_a_story_tells_no_outage_of_a_server_it_never_meets);
    /* every scenario twice: a minute on a quiet machine under ASan, more on a busy one; the
     * timeout guards against a hang, not a speed */
    TCase *library = tcase_create("Library");
    tcase_add_checked_fixture(library, setup, teardown);
    tcase_set_timeout(library, 600);
    tcase_add_test(library, test_every_scenario_of_the_library_is_explained);
    suite_add_tcase(suite, library);
    tcase_add_test(core, test_usage_errors_exit_2);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(explain_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
