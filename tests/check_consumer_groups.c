/* Several consumer groups on one broker (issue 21): each group after the first names the
 * queues it takes (`queues`), the first takes the others. Each group is its own processes,
 * with its own workers, crashes and key store. The lesson is orders_and_receipts_two_groups:
 * chargers take the app's orders, mailers the receipts of every charge. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "report.h"
#include "scenario.h"
#include "scenario_inert.h"
#include "test_diagram.h"
#include "test_world.h"
#include "world.h"

#define TWO_GROUPS "scenarios/architectures/orders_and_receipts_two_groups.json"
#define TWO_PROVIDERS "scenarios/architectures/orders_and_invoices_two_groups.json"
#define LOG_TWO_GROUPS "scenarios/architectures/orders_log_charge_and_confirm.json"

static double queue_deliveries(const Scenario *scenario, const Metrics *metrics, const char *name)
{
    for (uint32_t q = 0; q < scenario->broker.queue_count; q++) {
        if (strcmp(scenario->broker.queues[q].name, name) == 0)
            return (double)metrics->queues[q].deliveries;
    }
    ck_abort_msg("no queue %s", name);
    return 0;
}

/* Each group receives its own queues' deliveries and no other's. */
START_TEST(test_each_group_takes_its_own_queues)
{
    Scenario *scenario = test_load_source_file(TWO_GROUPS, NULL, 0);
    ck_assert_uint_eq(scenario->extra_consumer_count, 1);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(scenario, (Mode)mode, scenario->seed);
        /* the chargers never crash: they receive every delivery of the orders; the mailers
         * receive the receipts' (but those that reached a crashed mailer) */
        ck_assert_double_eq(test_service_value(&metrics, "chargers", "received"),
                            queue_deliveries(scenario, &metrics, "orders"));
        ck_assert_double_le(test_service_value(&metrics, "mailers", "received"),
                            queue_deliveries(scenario, &metrics, "receipts"));
        ck_assert_double_gt(test_service_value(&metrics, "mailers", "received"),
                            queue_deliveries(scenario, &metrics, "receipts") - 10);
    }
    free(scenario);
}
END_TEST

/* A group's crash is its own: mailers that die at every other receipt and stay down a minute
 * leave the chargers taking every order, none of which the mailers ever see. */
START_TEST(test_a_groups_crash_stops_only_that_group)
{
    const char *crashing[] = {
        "services.mailers.crash={\"point\": \"after-completion\", \"prob\": 0.5,"
        " \"restart_ms\": 60000}"};
    Scenario *scenario = test_load_source_file(TWO_GROUPS, crashing, 1);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_double_gt(test_service_value(&metrics, "mailers", "crashes"), 0);
    double charger_crashes = -1;
    ck_assert(!metrics_service_value(&metrics, "chargers", "crashes", &charger_crashes) ||
              charger_crashes == 0);
    ck_assert_double_eq(test_service_value(&metrics, "chargers", "runs"),
                        queue_deliveries(scenario, &metrics, "orders"));
    ck_assert_uint_eq(metrics.groups[1].outcomes[OUTCOME_LOST], 0); /* the app's orders */
    free(scenario);
}
END_TEST

/* Each group keeps its own keys: the mailers' store replays the receipts that come back,
 * the chargers' the orders; with keys, no receipt is mailed twice. */
START_TEST(test_each_group_keeps_its_own_keys)
{
    Scenario *scenario = test_load_source_file(TWO_GROUPS, NULL, 0);
    Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    Metrics plain = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_double_gt(test_service_value(&keyed, "mailers", "replayed"), 0);
    ck_assert_uint_eq(keyed.receipts_duplicated, 0);
    ck_assert_uint_gt(plain.receipts_duplicated, 0);
    free(scenario);
}
END_TEST

/* Each queue deals its deliveries to its own group's instances in turn: two chargers get
 * about half of the orders each, however many receipts the mailers take meanwhile (one
 * cursor for every group once gave one charger 355 orders and the other 48). */
START_TEST(test_each_queue_deals_to_its_groups_instances_in_turn)
{
    const char *two_each[] = {"services.chargers.instances=2", "services.chargers.workers=8",
                              "services.mailers.instances=2", "services.mailers.workers=8"};
    Scenario *scenario = test_load_source_file(TWO_GROUPS, two_each, 4);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    double first = test_service_value(&metrics, "chargers#1", "received");
    double second = test_service_value(&metrics, "chargers#2", "received");
    ck_assert_double_gt(first + second, 300);
    ck_assert_double_le(fabs(first - second), 0.1 * (first + second));
    free(scenario);
}
END_TEST

/* A link may name a later group: its deliveries cross it, and lose what it loses. */
START_TEST(test_a_link_names_a_later_group)
{
    const char *lossy[] = {"network.links={\"events->mailers\": {\"loss\": 0.3}}"};
    Scenario *scenario = test_load_source_file(TWO_GROUPS, lossy, 1);
    Metrics lossy_run = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    Scenario *plain = test_load_source_file(TWO_GROUPS, NULL, 0);
    Metrics plain_run = test_run_mode(plain, MODE_AT_LEAST_ONCE, plain->seed);
    ck_assert_uint_gt(lossy_run.network_dropped, plain_run.network_dropped + 100);
    free(plain);
    free(scenario);
}
END_TEST

/* Show writes a link that names a later group, and one between it and its own provider: the
 * file it prints runs as the original does, losing what the original loses. */
START_TEST(test_show_keeps_a_later_groups_links)
{
    const char *lossy[] = {"network.links={\"events->collectors\": {\"loss\": 0.2},"
                           " \"bank-debits->collectors\": {\"loss\": 0.1}}"};
    Scenario *scenario = test_load_source_file(TWO_PROVIDERS, lossy, 1);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"events->collectors\""));
    ck_assert_ptr_nonnull(strstr(shown, "\"bank-debits->collectors\""));
    ck_assert_uint_eq(again->network.link_count, 2);
    Metrics original = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    Metrics shown_run = test_run_mode(again, MODE_IDEMPOTENT, again->seed);
    ck_assert_uint_gt(original.network_dropped, 0);
    ck_assert_uint_eq(shown_run.network_dropped, original.network_dropped);
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

/* A later group's call step charges at its own provider, with its own retry and key: the
 * collectors' invoices reach the bank-debit provider only, the chargers' orders the card
 * acquirer only. The collectors' crashes and late answers collect invoices twice without
 * keys; with keys the provider replays them, and no invoice is collected twice. */
START_TEST(test_a_later_group_charges_at_its_own_provider)
{
    Scenario *scenario = test_load_source_file(TWO_PROVIDERS, NULL, 0);
    ck_assert_uint_eq(scenario->extra_consumer_count, 1);
    ck_assert(scenario->extra_consumers[0].spec.use_gateway);
    Metrics plain = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    for (int k = 0; k < 2; k++) {
        const Metrics *metrics = k == 0 ? &plain : &keyed;
        ck_assert_double_eq(test_service_value(metrics, "cards", "received"),
                            queue_deliveries(scenario, metrics, "orders"));
        ck_assert_double_ge(test_service_value(metrics, "bank-debits", "received"),
                            test_service_value(metrics, "collectors", "runs"));
        ck_assert_uint_eq(metrics->groups[0].outcomes[OUTCOME_DOUBLE], 0); /* the shop's orders */
    }
    ck_assert_double_gt(test_service_value(&plain, "collectors", "retries"), 0);
    ck_assert_double_gt(test_service_value(&plain, "bank-debits", "doubles"), 0);
    ck_assert_uint_gt(plain.groups[1].outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_double_eq(test_service_value(&keyed, "bank-debits", "doubles"), 0);
    ck_assert_double_gt(test_service_value(&keyed, "bank-debits", "replayed"), 0);
    ck_assert_uint_eq(keyed.groups[1].outcomes[OUTCOME_DOUBLE], 0);
    free(scenario);
}
END_TEST

/* The call's key is the later group's own: with "none" the provider has nothing to replay by,
 * and the invoices the collectors' crashes bring back are collected twice in every mode. */
START_TEST(test_a_later_groups_call_key_is_its_own)
{
    const char *no_key[] = {"services.collectors.steps[0].key=\"none\""};
    Scenario *scenario = test_load_source_file(TWO_PROVIDERS, no_key, 1);
    ck_assert_int_eq(scenario->extra_consumers[0].spec.call.key, CALL_KEY_NONE);
    ck_assert_int_ne(scenario->broker.consumers.call.key, CALL_KEY_NONE);
    Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_double_gt(test_service_value(&keyed, "bank-debits", "doubles"), 0);
    ck_assert_double_eq(test_service_value(&keyed, "bank-debits", "replayed"), 0);
    ck_assert_double_eq(test_service_value(&keyed, "cards", "doubles"), 0);
    free(scenario);
}
END_TEST

/* A later group's saga: its fulfil step fails every time and its charge's undo refunds at its
 * own provider, once per order, while the first group's local effect goes on untouched. */
#define SAGA_GROUP                                                                                 \
    "{\"seed\": 5, \"duration_ms\": 60000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"q\", \"kind\": \"broker\", \"queues\": [{\"name\": \"x\"}, {\"name\": "         \
    "\"y\"}]},"                                                                                    \
    "   {\"id\": \"one\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": \"k1\"},"   \
    "   {\"id\": \"k1\", \"kind\": \"key_store\"}, {\"id\": \"k2\", \"kind\": \"key_store\"},"     \
    "   {\"id\": \"shipper\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": "       \
    "\"k2\", \"queues\": [\"y\"], \"steps\": [{\"call\": \"psp\", \"undo\": {\"refund\": "         \
    "\"psp\"}}, {\"fulfil\": \"local\", \"fail\": 1}]},"                                           \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true}],"                         \
    " \"clients\": [{\"id\": \"c\", \"count\": 4, \"publishes\": \"q\", \"queue\": \"x\","         \
    "               \"workload\": {\"ops\": 5}},"                                                  \
    "               {\"id\": \"d\", \"count\": 4, \"publishes\": \"q\", \"queue\": \"y\","         \
    "               \"workload\": {\"ops\": 5}}]}"

START_TEST(test_a_later_groups_undo_refunds_at_its_provider)
{
    Scenario *scenario = test_load(SAGA_GROUP, NULL, 0);
    const ConsumerSpec *shipper = &scenario->extra_consumers[0].spec;
    ck_assert(shipper->undo.enabled && shipper->fulfil.enabled);
    ck_assert(!scenario->broker.consumers.use_gateway);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(scenario, (Mode)mode, scenario->seed);
        /* every order the shipper charged failed to ship and was given back, once */
        ck_assert_uint_eq(metrics.refunds, 20);
        ck_assert_uint_eq(metrics.double_refunds, 0);
        ck_assert_double_eq(test_service_value(&metrics, "psp", "refunds"), 20);
        ck_assert_double_eq(test_service_value(&metrics, "one", "effects"), 20);
    }
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert(again->extra_consumers[0].spec.undo.enabled);
    ck_assert_double_eq(again->extra_consumers[0].spec.fulfil.fail, 1);
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

/* The lane of service node name in a run's results (the order a request meets it). */
static uint32_t service_lane(const Metrics *metrics, const char *name)
{
    for (uint32_t i = 0; i < metrics->service_count; i++) {
        if (strcmp(metrics->services[i].name, name) == 0)
            return metrics->services[i].lane;
    }
    ck_abort_msg("no service %s", name);
    return 0;
}

/* A server only a consumer group calls (a ledger) is met after the consumers, whichever group
 * calls it: here the later one, while the first has a local effect, and the server is listed
 * first. */
#define LEDGER_OF_LATER_GROUP                                                                      \
    "{\"seed\": 5, \"duration_ms\": 60000,"                                                        \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"ledger\", \"kind\": \"server\", \"key_store\": \"k0\"},"                        \
    "   {\"id\": \"k0\", \"kind\": \"key_store\"},"                                                \
    "   {\"id\": \"q\", \"kind\": \"broker\", \"queues\": [{\"name\": \"x\"}, {\"name\": "         \
    "\"y\"}]},"                                                                                    \
    "   {\"id\": \"one\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": \"k1\"},"   \
    "   {\"id\": \"k1\", \"kind\": \"key_store\"}, {\"id\": \"k2\", \"kind\": \"key_store\"},"     \
    "   {\"id\": \"two\", \"kind\": \"consumers\", \"consumes\": \"q\", \"queues\": [\"y\"],"      \
    "    \"key_store\": \"k2\", \"steps\": [{\"call\": \"ledger\", \"timeout_ms\": 1000}]}],"      \
    " \"clients\": [{\"id\": \"c\", \"count\": 2, \"publishes\": \"q\", \"queue\": \"x\","         \
    "               \"workload\": {\"ops\": 3}},"                                                  \
    "               {\"id\": \"d\", \"count\": 2, \"publishes\": \"q\", \"queue\": \"y\","         \
    "               \"workload\": {\"ops\": 3}}]}"

START_TEST(test_a_server_only_a_later_group_calls_follows_the_consumers)
{
    Scenario *scenario = test_load(LEDGER_OF_LATER_GROUP, NULL, 0);
    ck_assert(scenario->extra_consumers[0].spec.calls_first_server);
    Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
    ck_assert_double_eq(test_service_value(&metrics, "ledger", "effects"), 6);
    ck_assert_uint_gt(service_lane(&metrics, "ledger"), service_lane(&metrics, "two"));
    ck_assert_uint_gt(service_lane(&metrics, "two"), service_lane(&metrics, "q"));
    free(scenario);
}
END_TEST

/* Two groups whose key stores differ: the first keeps its keys a day on disk, the later one
 * (which charges at its provider and crashes now and then) half a second in memory. */
#define TWO_STORES                                                                                 \
    "{\"seed\": 7, \"duration_ms\": 20000, \"modes\": [\"idempotent\"],"                           \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"q\", \"kind\": \"broker\", \"queues\": [{\"name\": \"x\"}, {\"name\": "         \
    "\"y\"}]},"                                                                                    \
    "   {\"id\": \"one\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": \"k1\"},"   \
    "   {\"id\": \"k1\", \"kind\": \"key_store\", \"ttl_ms\": 86400000},"                          \
    "   {\"id\": \"k2\", \"kind\": \"key_store\", \"ttl_ms\": 500, \"durable\": false},"           \
    "   {\"id\": \"two\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": \"k2\","    \
    "    \"queues\": [\"y\"], \"steps\": [{\"call\": \"psp\", \"key\": \"forward\"}],"             \
    "    \"crash\": {\"point\": \"after-effect\", \"prob\": 0.5, \"restart_ms\": 100}},"           \
    "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true}],"                         \
    " \"clients\": [{\"id\": \"c\", \"count\": 2, \"publishes\": \"q\", \"queue\": \"x\","         \
    "               \"workload\": {\"ops\": 3}},"                                                  \
    "               {\"id\": \"d\", \"count\": 2, \"publishes\": \"q\", \"queue\": \"y\","         \
    "               \"workload\": {\"ops\": 3}}]}"

/* The sequence diagram draws each group's keys by its own store: a later group's completed
 * key expires by its TTL, and its crash wipes the keys it held (an in-memory store), where
 * the first group's keys live a day and would outlive a crash. */
START_TEST(test_the_diagram_draws_a_later_groups_keys_by_its_store)
{
    Scenario *scenario = test_load(TWO_STORES, NULL, 0);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_IDEMPOTENT, 4096);
    unsigned stored[2] = {0, 0}, wiped = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_SPAN)
            continue;
        bool later = strcmp(diagram_lane(diagram, item->from)->node_name, "two") == 0;
        if (item->detail == DIAGRAM_SPAN_KEY_STORED) {
            ck_assert_int_eq(item->value, later ? 500 : 86400000);
            stored[later]++;
        } else if (item->detail == DIAGRAM_SPAN_KEY_RESERVED && item->end_event == TRACE_CRASH) {
            ck_assert(later);
            ck_assert_uint_lt(item->end_us - item->start_us, 500000); /* at the crash */
            wiped++;
        }
    }
    ck_assert_uint_gt(stored[0], 0);
    ck_assert_uint_gt(stored[1], 0);
    ck_assert_uint_gt(wiped, 0);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* The first group's keys likewise, by what its crash does to them: its two instances share
 * its store, in memory, and one instance's crash leaves the keys the other shares (as
 * consumers.c keeps them): a reservation the crash interrupted stays until its TTL. */
START_TEST(test_the_diagram_keeps_a_shared_stores_keys_through_a_crash)
{
    const char *shared[] = {"services.k1.durable=false", "services.k1.ttl_ms=60000",
                            "services.one.instances=2",
                            ("services.one.crash={\"point\": \"after-effect\", \"prob\": 0.5,"
                             " \"restart_ms\": 100}")};
    Scenario *scenario = test_load(TWO_STORES, shared, 4);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_IDEMPOTENT, 4096);
    unsigned kept = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        const char *lane = diagram_lane(diagram, item->from)->node_name;
        if (item->kind != DIAGRAM_SPAN || item->detail != DIAGRAM_SPAN_KEY_RESERVED ||
            item->end_event != TRACE_CRASH || strncmp(lane, "one", 3) != 0)
            continue;
        ck_assert_uint_eq(item->end_us - item->start_us, 60000000); /* its TTL */
        kept++;
    }
    ck_assert_uint_gt(kept, 0);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* ------------------------------------------------------------------ the loader */

#define GROUPS(second_fields)                                                                      \
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"                                         \
    " \"services\": ["                                                                             \
    "   {\"id\": \"q\", \"kind\": \"broker\", \"queues\": [{\"name\": \"x\"}, {\"name\": "         \
    "\"y\"}]},"                                                                                    \
    "   {\"id\": \"one\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": \"k1\"},"   \
    "   {\"id\": \"k1\", \"kind\": \"key_store\"}, {\"id\": \"k2\", \"kind\": \"key_store\"},"     \
    "   {\"id\": \"two\", \"kind\": \"consumers\", \"consumes\": \"q\", \"key_store\": "           \
    "\"k2\"" second_fields "}],"                                                                   \
    " \"clients\": [{\"id\": \"c\", \"publishes\": \"q\", \"queue\": \"x\"},"                      \
    "               {\"id\": \"d\", \"publishes\": \"q\", \"queue\": \"y\"}]}"

START_TEST(test_what_a_second_group_needs)
{
    free(test_load(GROUPS(", \"queues\": [\"y\"]"), NULL, 0));
    test_assert_refused(GROUPS(""), NULL, 0, "$.services[4]", "missing required key 'queues'");
    test_assert_refused(GROUPS(", \"queues\": [\"z\"]"), NULL, 0, "$.services[4].queues[0]",
                        "unknown queue 'z'");
    test_assert_refused(GROUPS(", \"queues\": [\"y\", \"y\"]"), NULL, 0, "$.services[4].queues[1]",
                        "expected each queue once ('y' is listed before)");
    test_assert_refused(GROUPS(", \"queues\": [\"x\", \"y\"]"), NULL, 0, "$.services[1]",
                        "expected a queue for consumer group 'one'");
    const char *both[] = {"services.one.queues=[\"x\"]"};
    test_assert_refused(GROUPS(", \"queues\": [\"x\"]"), both, 1, "$.services[4].queues",
                        "expected queues no other consumer group takes");
    test_assert_refused(GROUPS(", \"queues\": [\"y\"], \"steps\": [{\"fulfil\": \"local\"}]"), NULL,
                        0, "$.services[4].steps[0]", "expected");
}
END_TEST

/* A later group's retry topics (a log's) and its dead-letter review (with none of its queues
 * dead-lettering) are refused at its entry, as the first group's are. */
START_TEST(test_a_later_groups_failure_fields_are_checked)
{
    const char *retry[] = {"services.two.retryable_topic={}"};
    test_assert_refused(GROUPS(", \"queues\": [\"y\"]"), retry, 1, "$.services[4].retryable_topic",
                        "expected a broker of family 'log'");
    const char *review[] = {"services.two.dead_letters=\"review\"", "services.q.dead_letter=false"};
    test_assert_refused(GROUPS(", \"queues\": [\"y\"]"), review, 2, "$.services[4].dead_letters",
                        "none of its queues keeps dead letters");
}
END_TEST

/* A recovery point commits with a local effect only: a later group whose step is a call may
 * not resume, as the first group may not (its key store's on_failure "resume" is refused at
 * its steps). */
START_TEST(test_a_later_groups_call_cannot_resume)
{
    const char *later[] = {"services.k2.on_failure=\"resume\""};
    test_assert_refused(SAGA_GROUP, later, 1, "$.services[4].steps",
                        "expected no on_failure \"resume\"");
    const char *first[] = {"services.one.steps=[{\"call\": \"psp\"}]",
                           "services.k1.on_failure=\"resume\""};
    test_assert_refused(SAGA_GROUP, first, 2, "$.services[1].steps",
                        "expected no on_failure \"resume\"");
}
END_TEST

/* The warnings a file loads with (loaded with overrides; free it). */
static LoadErrors *warnings_of(const char *json, const char *const *overrides, uint32_t count)
{
    Scenario *scenario = test_load(json, overrides, count);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    scenario_inert_warnings(scenario, warnings);
    free(scenario);
    return warnings;
}

static bool warned_at(const LoadErrors *warnings, const char *path)
{
    for (uint32_t i = 0; i < warnings->count; i++) {
        if (strcmp(warnings->items[i].path, path) == 0)
            return true;
    }
    return false;
}

/* A read-modify-write of the balance loses updates when two handlers of its account's debits
 * run at once: the handlers are those of the group that takes the client group's queue (a
 * later group's eight workers, though the first has one), and two groups debiting the same
 * account are two actors; it has no effect only when one worker runs them all. */
START_TEST(test_an_update_is_judged_by_the_group_that_runs_it)
{
    const char *later_runs_it[] = {"services.one.workers=1", "services.two.workers=8",
                                   "clients[0].operation={\"kind\": \"send-email\"}",
                                   ("clients[1].operation={\"kind\": \"debit\", \"amount\": 5,"
                                    " \"update\": \"read-modify-write\"}")};
    LoadErrors *warnings = warnings_of(GROUPS(", \"queues\": [\"y\"]"), later_runs_it, 4);
    ck_assert(!warned_at(warnings, "$.clients[1].operation.update"));
    free(warnings);
    const char *both_groups_debit[] = {"services.one.workers=1", "services.two.workers=1",
                                       "clients[0].operation={\"kind\": \"debit\", \"amount\": 5}",
                                       ("clients[1].operation={\"kind\": \"debit\", \"amount\": 5,"
                                        " \"update\": \"read-modify-write\"}")};
    warnings = warnings_of(GROUPS(", \"queues\": [\"y\"]"), both_groups_debit, 4);
    ck_assert(!warned_at(warnings, "$.clients[1].operation.update"));
    free(warnings);
    const char *one_worker[] = {"services.one.workers=8", "services.two.workers=1",
                                "clients[0].operation={\"kind\": \"send-email\"}",
                                ("clients[1].operation={\"kind\": \"debit\", \"amount\": 5,"
                                 " \"update\": \"read-modify-write\"}")};
    warnings = warnings_of(GROUPS(", \"queues\": [\"y\"]"), one_worker, 4);
    ck_assert(warned_at(warnings, "$.clients[1].operation.update"));
    free(warnings);
}
END_TEST

/* One group that lists some queues leaves the others to nobody: refused. */
START_TEST(test_every_queue_is_taken)
{
    const char *single = "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
                         " \"services\": ["
                         "   {\"id\": \"q\", \"kind\": \"broker\","
                         "    \"queues\": [{\"name\": \"x\"}, {\"name\": \"y\"}]},"
                         "   {\"id\": \"one\", \"kind\": \"consumers\", \"consumes\": \"q\","
                         "    \"queues\": [\"x\"]}],"
                         " \"clients\": [{\"id\": \"c\", \"publishes\": \"q\", \"queue\": \"x\"}]}";
    test_assert_refused(single, NULL, 0, "$.services[1].queues",
                        "expected every queue taken by a consumer group ('y' is taken by none)");
}
END_TEST

/* Show writes each group with the queues it takes and its own store, and reads back. */
START_TEST(test_show_keeps_each_group)
{
    Scenario *scenario = test_load_source_file(TWO_GROUPS, NULL, 0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"queues\": [\"orders\"]"));
    ck_assert_ptr_nonnull(strstr(shown, "\"queues\": [\"receipts\"]"));
    ck_assert_ptr_nonnull(strstr(shown, "\"id\": \"mailer-keys\""));
    ck_assert_uint_eq(again->extra_consumer_count, 1);
    ck_assert_str_eq(again->extra_consumers[0].id, "mailers");
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

#define FANOUT "scenarios/architectures/orders_fanout_charge_and_confirm.json"
#define RABBITMQ "scenarios/architectures/charging_consumers_rabbitmq.json"

/* The message that ends a channel delivery's timer (its ack or nack reaching the broker from
 * the consumer it waited for), or NULL. */
static const DiagramItem *answer_ending(const Diagram *diagram, const DiagramItem *timer)
{
    for (uint64_t s = timer->serial + 1; s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item != NULL && item->kind == DIAGRAM_MESSAGE &&
            (item->message == MESSAGE_ACK || item->message == MESSAGE_NACK) &&
            item->from == timer->to && item->to == timer->from &&
            item->operation == timer->operation && item->attempt == timer->attempt &&
            item->end_event == TRACE_DELIVER && item->end_us == timer->end_us)
            return item;
    }
    return NULL;
}

/* A channel broker's delivery timer (RabbitMQ's consumer_timeout, 30 min here) ends in the
 * diagram model where its delivery's life ends, for every renderer: at the ack or nack that
 * reaches the broker from its consumer, or at the broker's taking the message back; none
 * runs to its deadline, which no delivery of this run reaches. */
START_TEST(test_a_channel_deliverys_timer_ends_at_its_ack)
{
    Scenario *scenario = test_load_source_file(RABBITMQ, NULL, 0);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 16);
    unsigned timers = 0, answered = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_SPAN || item->detail != DIAGRAM_SPAN_ACK_TIMER)
            continue;
        timers++;
        ck_assert_msg(item->end_event != DIAGRAM_NO_EVENT, "timer of op %" PRIu64 " not ended",
                      item->operation);
        ck_assert_uint_lt(item->end_us - item->start_us, (uint64_t)item->value * 1000);
        if (item->end_event == TRACE_DELIVER) {
            ck_assert_ptr_nonnull(answer_ending(diagram, item));
            answered++;
        } else {
            ck_assert(item->end_event == TRACE_TRANSMIT || item->end_event == TRACE_NACKED ||
                      item->end_event == TRACE_REDELIVER || item->end_event == TRACE_DEAD_LETTER);
        }
    }
    ck_assert_uint_gt(timers, 100);
    ck_assert_uint_gt(answered, timers / 2);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* How many of the diagram's channel delivery timers run to their deadline (none was ended). */
static unsigned timers_to_deadline(const Diagram *diagram)
{
    unsigned open = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        open += item->kind == DIAGRAM_SPAN && item->detail == DIAGRAM_SPAN_ACK_TIMER &&
                item->end_event == DIAGRAM_NO_EVENT;
    }
    return open;
}

/* A channel's delivery whose closing requeue passes max_deliveries is discarded (no dead-letter
 * queue) or dead-lettered at once: the broker let go of it, so its timer ends there, also where
 * a fanout exchange put the operation's copies in two queues (the mark names its queue, whose
 * group's delivery it ends). Drawn to the deadline, each was a 30-minute bar. */
START_TEST(test_a_channel_timer_ends_where_its_message_is_dropped)
{
    const char *discarding[] = {"services.orders.max_deliveries=1",
                                "services.orders.dead_letter=false",
                                "services.charger.crash.prob=0.05"};
    Scenario *scenario = test_load_source_file(RABBITMQ, discarding, 3);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 16);
    ck_assert_uint_eq(timers_to_deadline(diagram), 0);
    diagram_destroy(diagram);
    free(scenario);
    const char *dropping[] = {
        ("services.events={\"id\": \"events\", \"kind\": \"broker\", \"family\": "
         "\"channel\", \"max_deliveries\": 1, \"queues\": [{\"name\": \"payments\"}, "
         "{\"name\": \"confirmations\"}], \"exchanges\": [{\"name\": \"orders\", "
         "\"queues\": [\"payments\", \"confirmations\"]}]}"),
        "services.chargers.crash.prob=0.05", "services.mailers.crash.prob=0.05",
        "services.events.dead_letter=false"};
    for (uint32_t discard = 0; discard < 2; discard++) { /* dead-lettered, then discarded */
        scenario = test_load_source_file(FANOUT, dropping, 3 + discard);
        Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
        ck_assert_uint_gt(metrics.channel_closures, 0);
        diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 16);
        ck_assert_uint_eq(timers_to_deadline(diagram), 0);
        diagram_destroy(diagram);
        free(scenario);
    }
}
END_TEST

/* A group taking two queues of one exchange is handed two copies of each publish at once, to
 * two instances or one: each copy's timer ends at its own answer, not at the other copy's
 * delivery, the same instant (each was a bar of no length). Nothing crashes nor is lost, so
 * every timer ends at an ack. */
START_TEST(test_a_groups_two_copies_each_keep_their_timer)
{
    const char *two_queues[] = {
        ("services.events={\"id\": \"events\", \"kind\": \"broker\", \"family\": "
         "\"channel\", \"queues\": [{\"name\": \"payments\"}, {\"name\": "
         "\"confirmations\"}, {\"name\": \"audit\"}], \"exchanges\": [{\"name\": "
         "\"orders\", \"queues\": [\"payments\", \"confirmations\", \"audit\"]}]}"),
        "services.mailers.queues=[\"confirmations\", \"audit\"]", "network.links={}",
        "services.chargers.crash.prob=0", "services.mailers.crash.prob=0"};
    Scenario *scenario = test_load_source_file(FANOUT, two_queues, 5);
    Diagram *diagram = test_diagram_of_run(scenario, MODE_AT_LEAST_ONCE, 1u << 16);
    unsigned timers = 0;
    for (uint64_t s = diagram_first_serial(diagram); s < diagram_next_serial(diagram); s++) {
        const DiagramItem *item = diagram_item(diagram, s);
        if (item->kind != DIAGRAM_SPAN || item->detail != DIAGRAM_SPAN_ACK_TIMER)
            continue;
        timers++;
        ck_assert_msg(item->end_event == TRACE_DELIVER && answer_ending(diagram, item) != NULL,
                      "timer of op %" PRIu64 " ended by event %u", item->operation,
                      item->end_event);
    }
    ck_assert_uint_gt(timers, 3 * 700);
    diagram_destroy(diagram);
    free(scenario);
}
END_TEST

/* A fanout exchange puts a copy of each publish in each of its queues: with nothing lost and
 * nothing crashing, every order is one message in each queue, charged once by the chargers
 * and confirmed once by the mailers. */
START_TEST(test_a_fanout_exchange_copies_each_publish_to_every_queue)
{
    const char *calm[] = {"network.links={}", "services.chargers.crash.prob=0",
                          "services.mailers.crash.prob=0"};
    Scenario *scenario = test_load_source_file(FANOUT, calm, 3);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_mode(scenario, (Mode)mode, scenario->seed);
        ck_assert_uint_eq(metrics.queues[0].messages, metrics.operations);
        ck_assert_uint_eq(metrics.queues[1].messages, metrics.operations);
        ck_assert_uint_eq(metrics.messages, 2 * metrics.operations);
        ck_assert_uint_eq(metrics.outcomes[OUTCOME_OK], metrics.operations);
        ck_assert_uint_eq(metrics.receipts_sent, metrics.operations);
        ck_assert_uint_eq(metrics.receipts_missing + metrics.receipts_duplicated, 0);
        ck_assert_double_eq(test_service_value(&metrics, "mailers", "effects"), 0);
    }
    free(scenario);
}
END_TEST

/* Each copy is its own queue's: on a network that loses nothing (no publish is sent twice),
 * mailers that die after sending get their confirmations back and send them again, while the
 * chargers, whose copies nobody redelivers, charge each order once; and the other way round. */
START_TEST(test_each_copy_is_redelivered_by_its_own_queue)
{
    const char *mailers_die[] = {"network.links={}", "services.chargers.crash.prob=0",
                                 "services.mailers.crash.prob=0.05"};
    Scenario *scenario = test_load_source_file(FANOUT, mailers_die, 3);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_uint_eq(metrics.queues[0].redeliveries, 0);
    ck_assert_uint_gt(metrics.queues[1].redeliveries, 0);
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_gt(metrics.receipts_duplicated, 0);
    free(scenario);
    const char *chargers_die[] = {"network.links={}", "services.chargers.crash.prob=0.05",
                                  "services.mailers.crash.prob=0"};
    scenario = test_load_source_file(FANOUT, chargers_die, 3);
    metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
    ck_assert_uint_gt(metrics.queues[0].redeliveries, 0);
    ck_assert_uint_eq(metrics.queues[1].redeliveries, 0);
    ck_assert_uint_gt(metrics.outcomes[OUTCOME_DOUBLE], 0);
    ck_assert_uint_eq(metrics.receipts_duplicated, 0);
    free(scenario);
}
END_TEST

/* The operations each group crashed on (a crash record names the job's operation). */
typedef struct {
    uint64_t chargers[256], mailers[256];
    uint32_t charger_count, mailer_count;
} CrashedOn;

static void note_crash(void *context, const TraceRecord *record)
{
    CrashedOn *crashed = context;
    if (record->event != TRACE_CRASH)
        return;
    if (strcmp(record->actor_name, "chargers") == 0 && crashed->charger_count < 256)
        crashed->chargers[crashed->charger_count++] = record->operation;
    else if (strcmp(record->actor_name, "mailers") == 0 && crashed->mailer_count < 256)
        crashed->mailers[crashed->mailer_count++] = record->operation;
}

/* Each copy of a publish is a message of its own: the two groups' crashes (as their network
 * delays, service times and failures) are drawn apart. With one lineage for both copies, both
 * groups at the same crash chance crashed on the very same orders (22 of 22 here). */
START_TEST(test_each_copy_meets_its_own_draws)
{
    const char *same_chance[] = {"network.links={}", "services.chargers.crash.prob=0.02",
                                 "services.mailers.crash.prob=0.02"};
    Scenario *scenario = test_load_source_file(FANOUT, same_chance, 3);
    CrashedOn *crashed = calloc(1, sizeof *crashed);
    World *world =
        world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                     (TraceSink){.write = note_crash, .context = crashed}, (WorldLimits){0});
    world_run(world);
    uint32_t both = 0;
    for (uint32_t c = 0; c < crashed->charger_count; c++) {
        for (uint32_t m = 0; m < crashed->mailer_count; m++)
            both += crashed->chargers[c] == crashed->mailers[m];
    }
    ck_assert_uint_gt(crashed->charger_count, 5);
    ck_assert_uint_gt(crashed->mailer_count, 5);
    ck_assert_uint_le(both, 2); /* 2% of 2% of 800 orders: about one by chance */
    world_destroy(world);
    free(crashed);
    free(scenario);
}
END_TEST

/* Receipts are counted for the operations meant to have one: every operation a fanout
 * exchange copies to the mailers (not only payments), and not the operations of a group whose
 * path has no mailer (web, calling the shop directly, is missing none). */
static const char *const mixed_world =
    "{\"name\": \"mixed\", \"seed\": 5, \"duration_ms\": 4000,"
    " \"accounts\": [{\"id\": \"shop\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"shop\", \"kind\": \"server\", \"key_store\": \"shop-keys\"},"
    "   {\"id\": \"shop-keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"events\", \"kind\": \"broker\","
    "    \"queues\": [{\"name\": \"work\"}, {\"name\": \"mail\"}],"
    "    \"exchanges\": [{\"name\": \"orders\", \"queues\": [\"work\", \"mail\"]}]},"
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"events\","
    "    \"queues\": [\"work\"], \"key_store\": \"worker-keys\"},"
    "   {\"id\": \"worker-keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"events\","
    "    \"queues\": [\"mail\"], \"key_store\": \"mailer-keys\","
    "    \"steps\": [{\"effect\": \"email\"}]},"
    "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"}],"
    " \"clients\": ["
    "   {\"id\": \"web\", \"count\": 5, \"calls\": \"shop\","
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "    \"workload\": {\"ops\": 4, \"interval_ms\": 200}},"
    "   {\"id\": \"app\", \"count\": 5, \"publishes\": \"events\", \"queue\": \"orders\","
    "    \"operation\": {\"kind\": \"insert\"},"
    "    \"workload\": {\"ops\": 4, \"interval_ms\": 200}}]}";

START_TEST(test_receipts_are_counted_for_the_operations_meant_to_have_one)
{
    Metrics metrics = test_run_json(mixed_world, NULL, 0, MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(metrics.operations, 40);
    ck_assert_uint_eq(metrics.receipts_sent, 20);   /* app's 20 inserts, one email each */
    ck_assert_uint_eq(metrics.receipts_missing, 0); /* web's 20 debits have no mailer */
    ck_assert_uint_eq(metrics.receipts_duplicated, 0);
}
END_TEST

/* A later group whose step emails (the mailers beside the chargers) lost a confirmation when
 * its copy is dead-lettered, not a payment: its reviewed dead letters are never counted as
 * already charged, though the chargers charged every one, and each review's mark counts the
 * emails sent (none: every mailer run fails before it emails). Those operations are missing
 * their receipt at settlement. On a fanout exchange (a queue that dead-letters) and on a log
 * (the dead-letter topic) alike. */
START_TEST(test_a_mailers_dead_letter_is_reviewed_but_never_charged)
{
    const char *fanout[] = {"services.mailers.dead_letters=review",
                            "services.mailers.fail_before_effect=1"};
    const char *log[] = {"services.mailers.dead_letters=review",
                         "services.mailers.fail_before_effect=1",
                         "services.mailers.retryable_topic={\"attempts\": 2}"};
    const char *paths[2] = {FANOUT, LOG_TWO_GROUPS};
    const char *const *overrides[2] = {fanout, log};
    for (int s = 0; s < 2; s++) {
        Scenario *scenario = test_load_source_file(paths[s], overrides[s], s == 0 ? 2 : 3);
        Metrics metrics = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
        ck_assert_uint_gt(metrics.dead_letters_reviewed, 100);
        ck_assert_uint_eq(metrics.dead_letters_charged, 0);
        ck_assert_uint_eq(metrics.receipts_sent, 0);
        ck_assert_uint_ge(metrics.receipts_missing, metrics.dead_letters_reviewed - 20);
        Diagram *diagram = test_diagram_of_run(scenario, MODE_IDEMPOTENT, 1u << 16);
        unsigned reviews = 0;
        for (uint64_t i = diagram_first_serial(diagram); i < diagram_next_serial(diagram); i++) {
            const DiagramItem *item = diagram_item(diagram, i);
            if (item->kind != DIAGRAM_MARK || item->event != TRACE_DEAD_LETTER_REVIEWED)
                continue;
            ck_assert_uint_eq(item->detail, REVIEWED_EMAIL);
            char badge[96];
            diagram_mark_badge(item, NODE_BROKER, (DiagramOperationWords){0}, badge, sizeof badge);
            ck_assert_str_eq(badge, "up for review: emailed 0 times");
            reviews++;
        }
        ck_assert_uint_gt(reviews, 0);
        diagram_destroy(diagram);
        free(scenario);
    }
}
END_TEST

/* The JSON-lines trace tells the two reviews apart as the diagram does: the mailers' say
 * "reviewed": "email", the chargers' (beside them, failing half their runs) "charge"; the
 * detail names each one's queue. */
START_TEST(test_the_trace_file_tells_an_emails_review_from_a_charges)
{
    const char *both[] = {
        "services.mailers.dead_letters=review", "services.mailers.fail_before_effect=1",
        "services.chargers.dead_letters=review", "services.chargers.fail_before_effect=0.5"};
    Scenario *scenario = test_load_source_file(FANOUT, both, 4);
    FILE *file = tmpfile();
    ck_assert_ptr_nonnull(file);
    TraceJsonl *writer = trace_jsonl_open(file);
    ck_assert_ptr_nonnull(writer);
    World *world = world_create(scenario, MODE_IDEMPOTENT, scenario->seed, trace_jsonl_sink(writer),
                                (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    ck_assert(trace_jsonl_close(writer));
    rewind(file);
    char line[1024];
    unsigned emails = 0;
    unsigned charges = 0;
    while (fgets(line, sizeof line, file) != NULL) {
        if (strstr(line, "\"event\": \"dead_letter_reviewed\"") == NULL) {
            ck_assert_ptr_null(strstr(line, "\"reviewed\""));
            continue;
        }
        if (strstr(line, "\"detail\": \"confirmations\", \"reviewed\": \"email\"}") != NULL)
            emails++;
        else if (strstr(line, "\"detail\": \"payments\", \"reviewed\": \"charge\"}") != NULL)
            charges++;
        else
            ck_abort_msg("a review that says neither: %s", line);
    }
    fclose(file);
    ck_assert_uint_gt(emails, 100);
    ck_assert_uint_gt(charges, 0);
    free(scenario);
}
END_TEST

/* The mailers' trace: each of their records' time, event and operation, folded. */
typedef struct {
    uint64_t hash;
    uint64_t records;
} MailerTrace;

static void fold_mailer_record(void *context, const TraceRecord *record)
{
    MailerTrace *trace = context;
    if (record->actor_name == NULL || strncmp(record->actor_name, "mailers", 7) != 0)
        return;
    uint64_t fields[3] = {(uint64_t)record->t_us, record->event, record->operation};
    for (int i = 0; i < 3; i++)
        trace->hash = (trace->hash ^ fields[i]) * 1099511628211ull; /* FNV-1a, by field */
    trace->records++;
}

/* The chargers charge the app's orders at the provider, and every charge's receipt goes to
 * the mailers' queue, as the checkout's own charges' do. The chargers hear of each charge
 * in the provider's answer and publish its receipt then, as the server does: no charge is
 * left without a receipt. (The receipt was never published, and each of the app's orders
 * counted as a missing receipt.) */
START_TEST(test_a_groups_charge_at_the_provider_publishes_its_receipt)
{
    static const char *const json =
        "{\"name\": \"chargers_receipts\", \"seed\": 1, \"duration_ms\": 60000,"
        " \"accounts\": [{\"id\": \"customers\", \"balance\": 1000000000}],"
        " \"services\": ["
        "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","
        "    \"steps\": [{\"effect\": \"local\"}, {\"publish\": \"events\", \"queue\": "
        "\"receipts\"}]},"
        "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"
        "   {\"id\": \"events\", \"kind\": \"broker\", \"family\": \"channel\","
        "    \"queues\": [{\"name\": \"orders\"}, {\"name\": \"receipts\"}]},"
        "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"events\","
        "    \"queues\": [\"orders\"], \"key_store\": \"charger-keys\","
        "    \"steps\": [{\"call\": \"psp\"}]},"
        "   {\"id\": \"charger-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"},"
        "   {\"id\": \"psp\", \"kind\": \"gateway\", \"honours_key\": true},"
        "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"events\","
        "    \"queues\": [\"receipts\"], \"key_store\": \"mailer-keys\","
        "    \"steps\": [{\"effect\": \"email\"}]},"
        "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"}],"
        " \"clients\": [{\"id\": \"web\", \"count\": 5, \"calls\": \"checkout\","
        "   \"workload\": {\"ops\": 10}},"
        "  {\"id\": \"app\", \"count\": 5, \"publishes\": \"events\", \"queue\": \"orders\","
        "   \"key\": \"message-id\", \"workload\": {\"ops\": 10}}]}";
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics metrics = test_run_json(json, NULL, 0, (Mode)mode);
        ck_assert_double_eq(test_service_value(&metrics, "psp", "effects"), 5 * 10);
        ck_assert_uint_eq(metrics.receipts_sent, 2 * 5 * 10);
        ck_assert_uint_eq(metrics.receipts_missing, 0);
        ck_assert_uint_eq(metrics.queues[1].messages, 2 * 5 * 10);
    }
}
END_TEST

static MailerTrace mailer_trace(const char *path, const char *const *overrides, uint32_t count)
{
    Scenario *scenario = test_load_source_file(path, overrides, count);
    MailerTrace trace = {14695981039346656037ull, 0};
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed,
                                (TraceSink){fold_mailer_record, &trace}, (WorldLimits){0});
    world_run(world);
    world_destroy(world);
    free(scenario);
    return trace;
}

/* A group's load (per_queued) is its own backlog's: the mailers, slowed by each message
 * waiting for them, run exactly as they did when the chargers beside them fall far behind
 * (one slow worker: hundreds of orders waiting), as RabbitMQ's consumers of one queue are not
 * slowed by another queue, and a Kafka group's lag is its own. On a fanout exchange and on a
 * log. */
START_TEST(test_a_groups_load_is_its_own_backlog)
{
    const char *calm[] = {"services.mailers.load={\"per_queued\": 0.05}"};
    const char *behind[] = {"services.mailers.load={\"per_queued\": 0.05}",
                            "services.chargers.workers=1",
                            "services.chargers.service_ms={\"dist\": \"const\", \"value\": 400}"};
    const char *paths[2] = {FANOUT, LOG_TWO_GROUPS};
    for (int s = 0; s < 2; s++) {
        MailerTrace alone = mailer_trace(paths[s], calm, 1);
        MailerTrace beside_lag = mailer_trace(paths[s], behind, 3);
        ck_assert_uint_gt(alone.records, 1000);
        ck_assert_uint_eq(beside_lag.records, alone.records);
        ck_assert_uint_eq(beside_lag.hash, alone.hash);
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("consumer_groups");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_each_group_takes_its_own_queues);
    tcase_add_test(model, test_a_groups_crash_stops_only_that_group);
    tcase_add_test(model, test_each_group_keeps_its_own_keys);
    tcase_add_test(model, test_each_queue_deals_to_its_groups_instances_in_turn);
    tcase_add_test(model, test_a_link_names_a_later_group);
    tcase_add_test(model, test_a_later_group_charges_at_its_own_provider);
    tcase_add_test(model, test_a_later_groups_call_key_is_its_own);
    tcase_add_test(model, test_a_later_groups_undo_refunds_at_its_provider);
    tcase_add_test(model, test_a_server_only_a_later_group_calls_follows_the_consumers);
    tcase_add_test(model, test_the_diagram_draws_a_later_groups_keys_by_its_store);
    tcase_add_test(model, test_the_diagram_keeps_a_shared_stores_keys_through_a_crash);
    tcase_add_test(model, test_a_fanout_exchange_copies_each_publish_to_every_queue);
    tcase_add_test(model, test_each_copy_is_redelivered_by_its_own_queue);
    tcase_add_test(model, test_a_channel_deliverys_timer_ends_at_its_ack);
    tcase_add_test(model, test_a_channel_timer_ends_where_its_message_is_dropped);
    tcase_add_test(model, test_a_groups_two_copies_each_keep_their_timer);
    tcase_add_test(model, test_each_copy_meets_its_own_draws);
    tcase_add_test(model, test_receipts_are_counted_for_the_operations_meant_to_have_one);
    tcase_add_test(model, test_a_mailers_dead_letter_is_reviewed_but_never_charged);
    tcase_add_test(model, test_the_trace_file_tells_an_emails_review_from_a_charges);
    tcase_add_test(model, test_a_groups_load_is_its_own_backlog);
    suite_add_tcase(suite, model);
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_what_a_second_group_needs);
    tcase_add_test(loader, test_every_queue_is_taken);
    tcase_add_test(loader, test_a_later_groups_failure_fields_are_checked);
    tcase_add_test(loader, test_a_later_groups_call_cannot_resume);
    tcase_add_test(model, test_a_groups_charge_at_the_provider_publishes_its_receipt);
    tcase_add_test(loader, test_an_update_is_judged_by_the_group_that_runs_it);
    tcase_add_test(loader, test_show_keeps_each_group);
    tcase_add_test(loader, test_show_keeps_a_later_groups_links);
    suite_add_tcase(suite, loader);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
