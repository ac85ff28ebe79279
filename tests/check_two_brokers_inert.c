/* Inert configuration with two brokers: every rule scenario_inert.c holds for the first
 * broker holds for the second, said at the second broker's entry ($.services[N]), and a
 * consumer group is judged by its own broker's queues. Each warning is paired with a twin
 * where the same field is live (no warning at that path). */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "scenario_inert.h"

#define SETS_MAX 6

/* The shape of scenarios/architectures/orders_log_receipts_queue.json: the app's orders on a
 * log (entry 2) taken by the chargers (4), each charge's receipt on a channel queue (entry 3)
 * taken by the mailers (6). */
static const char two_brokers[] =
    "{\"duration_ms\": 10000, \"modes\": [\"at-least-once\", \"idempotent\"],"
    " \"accounts\": [{\"id\": \"customers\", \"balance\": 1000000000}],"
    " \"services\": ["
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","
    "    \"steps\": [{\"effect\": \"local\"}, {\"publish\": \"notifications\"}]},"
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 2},"
    "   {\"id\": \"notifications\", \"kind\": \"broker\", \"family\": \"channel\"},"
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"charger-inbox\", \"inbox\": true},"
    "   {\"id\": \"charger-inbox\", \"kind\": \"key_store\", \"key\": \"message-id\"},"
    "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"notifications\","
    "    \"key_store\": \"mailer-keys\", \"steps\": [{\"effect\": \"email\"}]},"
    "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"}],"
    " \"clients\": ["
    "   {\"id\": \"web\", \"count\": 2, \"calls\": \"checkout\", \"key\": \"per-click\","
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 2500}, \"workload\": {\"ops\": 2}},"
    "   {\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\", \"key\": \"message-id\","
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 1500}, \"workload\": {\"ops\": 2}}]}";

static uint32_t count_sets(const char *const *sets)
{
    uint32_t n = 0;
    while (n < SETS_MAX && sets[n] != NULL)
        n++;
    return n;
}

/* The message of the warning at path (exactly) loading base with sets, or NULL; the caller
 * frees it. */
static char *warning_at(const char *base, const char *const *sets, const char *path)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_ptr_nonnull(errors);
    ck_assert_ptr_nonnull(warnings);
    bool loaded = scenario_load_text(base, strlen(base), sets, count_sets(sets), scenario, errors);
    ck_assert_msg(loaded, "%s: %s", errors->count > 0 ? errors->items[0].path : "",
                  errors->count > 0 ? errors->items[0].message : "not loaded");
    scenario_inert_warnings(scenario, warnings);
    char *found = NULL;
    for (uint32_t i = 0; i < warnings->count && found == NULL; i++) {
        if (strcmp(warnings->items[i].path, path) == 0)
            found = strdup(warnings->items[i].message);
    }
    free(scenario);
    free(errors);
    free(warnings);
    return found;
}

/* Asserts a warning at path whose message holds words. */
static void assert_warns(const char *base, const char *const *sets, const char *path,
                         const char *words)
{
    char *message = warning_at(base, sets, path);
    ck_assert_msg(message != NULL, "no warning at %s", path);
    ck_assert_msg(strstr(message, words) != NULL, "%s: '%s' does not say '%s'", path, message,
                  words);
    free(message);
}

static void assert_quiet(const char *base, const char *const *sets, const char *path)
{
    char *message = warning_at(base, sets, path);
    ck_assert_msg(message == NULL, "%s: unexpected warning '%s'", path,
                  message != NULL ? message : "");
    free(message);
}

START_TEST(test_the_example_shape_has_no_warning)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_ptr_nonnull(errors);
    ck_assert_ptr_nonnull(warnings);
    ck_assert(scenario_load_text(two_brokers, strlen(two_brokers), NULL, 0, scenario, errors));
    ck_assert_uint_eq(scenario->extra_broker_count, 1);
    scenario_inert_warnings(scenario, warnings);
    ck_assert_msg(warnings->count == 0, "%s: %s",
                  warnings->count > 0 ? warnings->items[0].path : "",
                  warnings->count > 0 ? warnings->items[0].message : "");
    free(scenario);
    free(errors);
    free(warnings);
}
END_TEST

/* The server publishes its receipts to one of the second broker's queues; the other is
 * said at its queues entry. */
START_TEST(test_a_queue_of_the_second_broker_nothing_publishes_to_is_warned)
{
    const char *const to_receipts[SETS_MAX] = {
        "services.notifications.queues=[{\"name\": \"receipts\"}, {\"name\": \"spare\"}]",
        "services.mailers.queues=[\"receipts\", \"spare\"]",
        "services.checkout.steps[1].queue=\"receipts\""};
    assert_warns(two_brokers, to_receipts, "$.services[3].queues[1]",
                 "has no effect: nothing publishes to queue 'spare'");
    assert_quiet(two_brokers, to_receipts, "$.services[3].queues[0]");
    const char *const to_spare[SETS_MAX] = {
        "services.notifications.queues=[{\"name\": \"receipts\"}, {\"name\": \"spare\"}]",
        "services.mailers.queues=[\"receipts\", \"spare\"]",
        "services.checkout.steps[1].queue=\"spare\""};
    assert_warns(two_brokers, to_spare, "$.services[3].queues[0]",
                 "has no effect: nothing publishes to queue 'receipts'");
    assert_quiet(two_brokers, to_spare, "$.services[3].queues[1]");
}
END_TEST

/* The second broker's one queue is its implicit "main": its rules are said at its entry. */
START_TEST(test_a_second_brokers_queue_rules_are_warned_where_they_cannot_act)
{
    const char *const no_limit[SETS_MAX] = {"services.notifications.max_deliveries=0",
                                            "services.notifications.dead_letter=false"};
    const char *const limit[SETS_MAX] = {"services.notifications.max_deliveries=3",
                                         "services.notifications.dead_letter=false"};
    assert_warns(two_brokers, no_limit, "$.services[3].dead_letter",
                 "has no effect with max_deliveries 0");
    assert_quiet(two_brokers, limit, "$.services[3].dead_letter");
    const char *const no_redrive[SETS_MAX] = {"services.notifications.max_deliveries=0",
                                              "services.notifications.redrive_after_ms=500"};
    const char *const redrive[SETS_MAX] = {"services.notifications.max_deliveries=3",
                                           "services.notifications.redrive_after_ms=500"};
    assert_warns(two_brokers, no_redrive, "$.services[3].redrive_after_ms",
                 "has no effect with max_deliveries 0");
    assert_quiet(two_brokers, redrive, "$.services[3].redrive_after_ms");
    const char *const once[SETS_MAX] = {"services.notifications.max_deliveries=1",
                                        "services.notifications.redelivery_delay_ms=50"};
    const char *const twice[SETS_MAX] = {"services.notifications.max_deliveries=2",
                                         "services.notifications.redelivery_delay_ms=50"};
    assert_warns(two_brokers, once, "$.services[3].redelivery_delay_ms",
                 "has no effect with max_deliveries 1");
    assert_quiet(two_brokers, twice, "$.services[3].redelivery_delay_ms");
    /* named queues: said in their entries */
    const char *const named[SETS_MAX] = {
        "services.notifications.queues=[{\"name\": \"receipts\", \"max_deliveries\": 1,"
        " \"redelivery_delay_ms\": 50}]"};
    assert_warns(two_brokers, named, "$.services[3].queues[0].redelivery_delay_ms",
                 "has no effect with max_deliveries 1");
}
END_TEST

/* A queue with no delivery limit nor delay, whose group's store crashes and refuses while
 * down: a hot requeue loop, in the idempotent mode only (the only one whose store is used). */
START_TEST(test_a_hot_requeue_loop_on_the_second_broker_is_warned_in_the_modes_it_can_happen)
{
    static const char store_crashes[] =
        "services.mailer-keys.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 1000},"
        " \"restart_ms\": 100}";
    const char *const loop[SETS_MAX] = {"services.notifications.max_deliveries=0", store_crashes};
    assert_warns(two_brokers, loop, "$.services[3].max_deliveries", "a hot loop");
    const char *const delayed[SETS_MAX] = {"services.notifications.max_deliveries=0",
                                           "services.notifications.redelivery_delay_ms=100",
                                           store_crashes};
    assert_quiet(two_brokers, delayed, "$.services[3].max_deliveries");
    const char *const no_store_used[SETS_MAX] = {"services.notifications.max_deliveries=0",
                                                 "modes=[\"at-least-once\"]", store_crashes};
    assert_quiet(two_brokers, no_store_used, "$.services[3].max_deliveries");
}
END_TEST

/* The mailers' dead-letter consumer reviews what their own broker's queues dead-letter (the
 * first broker is a log, where "review" needs a retry topic). */
START_TEST(test_a_second_brokers_group_is_judged_by_its_own_queues)
{
    const char *const never[SETS_MAX] = {"services.notifications.max_deliveries=0",
                                         "services.mailers.dead_letters=\"review\""};
    const char *const sometimes[SETS_MAX] = {"services.notifications.max_deliveries=3",
                                             "services.mailers.dead_letters=\"review\""};
    assert_warns(two_brokers, never, "$.services[6].dead_letters",
                 "has no effect with max_deliveries 0: a message is never dead-lettered");
    assert_quiet(two_brokers, sometimes, "$.services[6].dead_letters");
}
END_TEST

/* A broker nothing reaches: only the server names it, and no request reaches the server. */
START_TEST(test_a_second_broker_nothing_reaches_is_warned_whole)
{
    static const char app_only[] =
        "clients=[{\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\", \"operation\":"
        " {\"kind\": \"debit\", \"amount\": 1}}]";
    const char *const unreached[SETS_MAX] = {app_only, "services.notifications.prefetch=4",
                                             "services.notifications.max_deliveries=1",
                                             "services.notifications.redelivery_delay_ms=50"};
    assert_warns(two_brokers, unreached, "$.services[3]",
                 "has no effect: nothing publishes to broker 'notifications'");
    /* said whole, not field by field */
    assert_quiet(two_brokers, unreached, "$.services[3].redelivery_delay_ms");
    const char *const reached[SETS_MAX] = {"services.notifications.prefetch=4"};
    assert_quiet(two_brokers, reached, "$.services[3]");
}
END_TEST

/* Links: the server publishes to the second broker, the chargers read the first. */
START_TEST(test_links_follow_each_publisher_and_group_to_its_own_broker)
{
    const char *const links[SETS_MAX] = {
        "network.links={\"checkout->orders\": {\"loss\": 0.1}, \"mailers->orders\": {\"loss\":"
        " 0.1}, \"app->orders\": {\"loss\": 0.1}, \"chargers->orders\": {\"delay_ms\":"
        " {\"dist\": \"const\", \"value\": 5}}}"};
    assert_warns(two_brokers, links, "$.network.links.checkout->orders",
                 "'checkout' and 'orders' exchange no message");
    assert_warns(two_brokers, links, "$.network.links.mailers->orders",
                 "'mailers' and 'orders' exchange no message");
    assert_quiet(two_brokers, links, "$.network.links.app->orders");
    assert_quiet(two_brokers, links, "$.network.links.chargers->orders");
}
END_TEST

/* A group on the second broker emails its own copy of each receipt: it does not read the
 * log, so it and a later group on the log do not confirm each order twice. Two later groups
 * on the log do. Entries: checkout 0, orders 2, notifications 3, chargers 4, confirmers 6,
 * then the auditors (8) if any, then the mailers. */
#define LOG_AND_QUEUE_EMAILERS(second_log_emailer)                                                 \
    ("{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"             \
     " \"services\": ["                                                                            \
     "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","                    \
     "    \"steps\": [{\"effect\": \"local\"}, {\"publish\": \"notifications\"}]},"                \
     "   {\"id\": \"keys\", \"kind\": \"key_store\"},"                                             \
     "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\"},"                         \
     "   {\"id\": \"notifications\", \"kind\": \"broker\", \"family\": \"channel\"},"              \
     "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                \
     "    \"key_store\": \"charger-keys\"},"                                                       \
     "   {\"id\": \"charger-keys\", \"kind\": \"key_store\"},"                                     \
     "   {\"id\": \"confirmers\", \"kind\": \"consumers\", \"consumes\": \"orders\","              \
     "    \"key_store\": \"confirmer-keys\", \"steps\": [{\"effect\": \"email\"}]},"               \
     "   {\"id\": \"confirmer-keys\", \"kind\": \"key_store\"}," second_log_emailer                \
     "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"notifications\","          \
     "    \"key_store\": \"mailer-keys\", \"steps\": [{\"effect\": \"email\"}]},"                  \
     "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"}],"                                     \
     " \"clients\": [{\"id\": \"web\", \"count\": 2, \"calls\": \"checkout\"},"                    \
     "   {\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\"}]}")

START_TEST(test_only_the_logs_own_groups_confirm_each_record_twice)
{
    const char *const none[SETS_MAX] = {NULL};
    assert_quiet(LOG_AND_QUEUE_EMAILERS(""), none, "$.services[8].steps");
    const char *auditors = LOG_AND_QUEUE_EMAILERS(
        "   {\"id\": \"auditors\", \"kind\": \"consumers\", \"consumes\": \"orders\","
        "    \"key_store\": \"auditor-keys\", \"steps\": [{\"effect\": \"email\"}]},"
        "   {\"id\": \"auditor-keys\", \"kind\": \"key_store\"},");
    char *message = warning_at(auditors, none, "$.services[8].steps");
    ck_assert_ptr_nonnull(message);
    ck_assert_ptr_nonnull(strstr(message, "'confirmers' and 'auditors'"));
    free(message);
    assert_quiet(auditors, none, "$.services[10].steps"); /* the mailers */
}
END_TEST

/* A group of the second broker with a saga: its receipts are charged by nobody, so its
 * fulfil step has nothing charged before it unless a client group's debits reach its queue
 * (the app's reach the first broker's queue of the same index: another broker's). The
 * shippers are entry 6. */
#define SHIPPERS_ON_THE_SECOND_BROKER(kiosk)                                                       \
    ("{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"             \
     " \"services\": ["                                                                            \
     "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","                    \
     "    \"steps\": [{\"effect\": \"local\"}, {\"publish\": \"notifications\"}]},"                \
     "   {\"id\": \"keys\", \"kind\": \"key_store\"},"                                             \
     "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"visibility-timeout\"},"          \
     "   {\"id\": \"notifications\", \"kind\": \"broker\", \"family\": \"channel\"},"              \
     "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                \
     "    \"key_store\": \"charger-keys\"},"                                                       \
     "   {\"id\": \"charger-keys\", \"kind\": \"key_store\"},"                                     \
     "   {\"id\": \"shippers\", \"kind\": \"consumers\", \"consumes\": \"notifications\","         \
     "    \"key_store\": \"shipper-keys\","                                                        \
     "    \"steps\": [{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"                       \
     "     {\"fulfil\": \"local\", \"fail\": 0.1}]},"                                              \
     "   {\"id\": \"shipper-keys\", \"kind\": \"key_store\"},"                                     \
     "   {\"id\": \"psp\", \"kind\": \"gateway\"}],"                                               \
     " \"clients\": [{\"id\": \"web\", \"count\": 2, \"calls\": \"checkout\"},"                    \
     "   {\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\"}" kiosk "]}")

START_TEST(test_a_second_brokers_saga_counts_the_debits_of_its_own_broker)
{
    const char *const none[SETS_MAX] = {NULL};
    assert_warns(SHIPPERS_ON_THE_SECOND_BROKER(""), none, "$.services[6].steps[1]",
                 "so nothing is charged before it");
    assert_quiet(SHIPPERS_ON_THE_SECOND_BROKER(
                     ", {\"id\": \"kiosk\", \"count\": 1, \"publishes\": \"notifications\"}"),
                 none, "$.services[6].steps[1]");
}
END_TEST

/* A second broker may be a log: its isolation does nothing without transactions, said at its
 * entry as the first broker's is; with transactional, it is live. */
START_TEST(test_a_second_logs_isolation_is_warned_without_transactions)
{
    const char *const sets[] = {"services.notifications.family=\"log\"",
                                "services.notifications.isolation=\"read_committed\"", NULL};
    assert_warns(two_brokers, sets, "$.services[3].isolation", "without transactional");
    const char *const live[] = {"services.notifications.family=\"log\"",
                                "services.notifications.isolation=\"read_committed\"",
                                "services.notifications.transactional=true", NULL};
    assert_quiet(two_brokers, live, "$.services[3].isolation");
}
END_TEST

static Suite *two_brokers_inert_suite(void)
{
    Suite *suite = suite_create("two_brokers_inert");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_the_example_shape_has_no_warning);
    tcase_add_test(core, test_a_queue_of_the_second_broker_nothing_publishes_to_is_warned);
    tcase_add_test(core, test_a_second_brokers_queue_rules_are_warned_where_they_cannot_act);
    tcase_add_test(
        core, test_a_hot_requeue_loop_on_the_second_broker_is_warned_in_the_modes_it_can_happen);
    tcase_add_test(core, test_a_second_brokers_group_is_judged_by_its_own_queues);
    tcase_add_test(core, test_a_second_broker_nothing_reaches_is_warned_whole);
    tcase_add_test(core, test_links_follow_each_publisher_and_group_to_its_own_broker);
    tcase_add_test(core, test_only_the_logs_own_groups_confirm_each_record_twice);
    tcase_add_test(core, test_a_second_brokers_saga_counts_the_debits_of_its_own_broker);
    tcase_add_test(core, test_a_second_logs_isolation_is_warned_without_transactions);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(two_brokers_inert_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
