/* Two brokers (issue 21), what a review of the second broker found: each place that reads a
 * broker's queues, family or levels reads the right broker's. */
#include "test_world.h"
#include "world_internal.h"

/* A checkout publishes each charge's receipt to the second broker's queue 'receipts', which
 * the mailers take; the app publishes orders to the first broker, the chargers' queue; the
 * ops group publishes to the second broker's queue 'alerts', which the alerters apply.
 * first_broker and second_broker are spliced into the brokers' entries, mailers_extra into
 * the mailers', links into the network. */
#define SHOP(first_broker, second_broker, mailers_extra, links)                                    \
    "{\"name\": \"shop\", \"seed\": 5, \"duration_ms\": 3000,"                                     \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"                                      \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","            \
    "    \"steps\": [{\"effect\": \"local\"},"                                                     \
    "                {\"publish\": \"notifications\", \"queue\": \"receipts\"}]},"                 \
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"                                     \
    "   {\"id\": \"orders\", \"kind\": \"broker\"" first_broker "},"                               \
    "   {\"id\": \"notifications\", \"kind\": \"broker\","                                         \
    "    \"queues\": [{\"name\": \"receipts\"}, {\"name\": \"alerts\"}]" second_broker "},"        \
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                 \
    "    \"key_store\": \"charger-keys\"},"                                                        \
    "   {\"id\": \"charger-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"},"             \
    "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"notifications\","           \
    "    \"queues\": [\"receipts\"], \"key_store\": \"mailer-keys\","                              \
    "    \"steps\": [{\"effect\": \"email\"}]" mailers_extra "},"                                  \
    "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"},"                                       \
    "   {\"id\": \"alerters\", \"kind\": \"consumers\", \"consumes\": \"notifications\","          \
    "    \"queues\": [\"alerts\"], \"key_store\": \"alerter-keys\"},"                              \
    "   {\"id\": \"alerter-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"}],"            \
    " \"clients\": ["                                                                              \
    "  {\"id\": \"web\", \"count\": 2, \"calls\": \"checkout\","                                   \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"at_ms\": [0, 100, 200]}},"                                                \
    "  {\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\", \"key\": \"message-id\","        \
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                    \
    "   \"workload\": {\"at_ms\": [0, 100, 200]}},"                                                \
    "  {\"id\": \"ops\", \"count\": 2, \"publishes\": \"notifications\", \"queue\": \"alerts\","   \
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"           \
    "   \"workload\": {\"at_ms\": [0, 100, 200]}}],"                                               \
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}" links "}}"

static const char *const shop = SHOP("", "", "", "");

/* show writes a client group's queue as its own broker's: the ops group's 'alerts' is the
 * second broker's queue 1, which on the first broker would be no queue at all (show wrote the
 * first broker's queue of that index, and the printed file did not load). */
START_TEST(test_show_writes_a_clients_queue_of_the_second_broker)
{
    Scenario *scenario = test_load(shop, NULL, 0);
    ck_assert_uint_eq(scenario->client_groups[2].broker, 1);
    ck_assert_uint_eq(scenario->client_groups[2].queue, 1);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    ck_assert_ptr_nonnull(strstr(shown, "\"queue\": \"alerts\""));
    ck_assert_uint_eq(again->client_groups[2].broker, 1);
    ck_assert_uint_eq(again->client_groups[2].queue, 1);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics first = test_run_mode(scenario, (Mode)mode, 5);
        Metrics second = test_run_mode(again, (Mode)mode, 5);
        ck_assert_uint_eq(first.queue_count, 3);
        for (uint32_t q = 0; q < first.queue_count; q++)
            ck_assert_uint_eq(first.queues[q].messages, second.queues[q].messages);
        ck_assert_uint_eq(first.queues[2].messages, 2 * 3); /* the ops group's, on 'alerts' */
    }
    free(shown);
    free(again);
    free(scenario);
}
END_TEST

/* A heartbeat is checked against the broker its group consumes: the mailers' on a
 * visibility-timeout second broker beside a channel first one runs, and extends their slow
 * deliveries' ack timeouts (the check read the first broker's family, and refused it); on a
 * channel second broker beside a visibility-timeout first one, where it would do nothing, it
 * is refused at the mailers' entry (the check let it through). */
START_TEST(test_a_heartbeat_is_checked_against_its_groups_broker)
{
    static const char *const json = SHOP(", \"family\": \"channel\"", ", \"ack_timeout_ms\": 100",
                                         ", \"heartbeat_ms\": 40, \"service_ms\": {\"dist\": "
                                         "\"const\", \"value\": 250}",
                                         "");
    Scenario *scenario = test_load(json, NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, 5);
    ck_assert_uint_gt(metrics.heartbeats, 0);
    ck_assert_uint_eq(metrics.queues[1].redeliveries, 0); /* 'receipts': none timed out */
    free(scenario);
    test_assert_refused(SHOP("", ", \"family\": \"channel\"", ", \"heartbeat_ms\": 40", ""), NULL,
                        0, "$.services[6].heartbeat_ms", "family 'visibility-timeout'");
}
END_TEST

/* Five payments published at once to each of two brokers, each taken by one worker that
 * takes a second over each: one message in flight and four waiting at each broker. */
static const char *const two_backlogs =
    "{\"name\": \"two_backlogs\", \"seed\": 1, \"duration_ms\": 8000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\"},"
    "   {\"id\": \"refunds\", \"kind\": \"broker\", \"family\": \"channel\"},"
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"k1\", \"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": "
    "1000}},"
    "   {\"id\": \"k1\", \"kind\": \"key_store\", \"key\": \"message-id\"},"
    "   {\"id\": \"refunders\", \"kind\": \"consumers\", \"consumes\": \"refunds\","
    "    \"key_store\": \"k2\", \"workers\": 1, \"service_ms\": {\"dist\": \"const\", \"value\": "
    "1000}},"
    "   {\"id\": \"k2\", \"kind\": \"key_store\", \"key\": \"message-id\"}],"
    " \"clients\": ["
    "   {\"id\": \"app\", \"count\": 5, \"publishes\": \"orders\", \"key\": \"message-id\","
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 100}, \"workload\": {\"at_ms\": [0]}},"
    "   {\"id\": \"desk\", \"count\": 5, \"publishes\": \"refunds\", \"key\": \"message-id\","
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 100}, \"workload\": {\"at_ms\": [0]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}";

/* The queue-depth and in-flight levels are the world's, every broker's together: each
 * broker recorded its own total into the one series, so the peak was one broker's (4, 1)
 * and the level carried between records was whichever broker moved last. */
START_TEST(test_the_queue_levels_are_every_brokers_together)
{
    Scenario *scenario = test_load(two_backlogs, NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_AT_LEAST_ONCE, 1);
    ck_assert_uint_eq(metrics.queues[0].messages, 5);
    ck_assert_uint_eq(metrics.queues[1].messages, 5);
    double depth = 0;
    double in_flight = 0;
    ck_assert(metrics_value(&metrics, "queue_depth_peak", &depth));
    ck_assert(metrics_value(&metrics, "in_flight_peak", &in_flight));
    ck_assert_double_eq(depth, 2 * 4);
    ck_assert_double_eq(in_flight, 2 * 1);
    free(scenario);
}
END_TEST

/* A link may name the second broker, as it may the first: the ops group's publishes over a
 * link that loses every message never reach 'alerts' (the link was refused: unknown node). */
START_TEST(test_a_link_names_the_second_broker)
{
    static const char *const json =
        SHOP("", "", "", ", \"links\": {\"ops->notifications\": {\"loss\": 1}}");
    Scenario *scenario = test_load(json, NULL, 0);
    Metrics metrics = test_run_mode(scenario, MODE_AT_MOST_ONCE, 5);
    ck_assert_uint_eq(metrics.queues[0].messages, 2 * 3);     /* the app's, on the first */
    ck_assert_uint_gt(metrics.queues[1].messages, 0);         /* the receipts */
    ck_assert_uint_eq(metrics.queues[2].messages, 0);         /* the ops group's: all lost */
    ck_assert_uint_eq(metrics.outcomes[OUTCOME_LOST], 2 * 3); /* and no retry at most once */
    free(scenario);
}
END_TEST

/* broker.transactional is the first broker's (a log's): a client group publishing to the
 * second broker, a queue, may read-modify-write a balance or set a per-client status, since
 * no transaction of that broker aborts its write (the check read the first broker's
 * transactional for every group, and refused both). The app's, on the log, still are. */
START_TEST(test_a_transaction_is_its_own_brokers)
{
    static const char *const json =
        SHOP(", \"family\": \"log\", \"commit\": \"after\", \"transactional\": true", "", "", "");
    static const char *const ops_update[] = {"clients.ops.operation.update=read-modify-write"};
    static const char *const ops_status[] = {"clients.ops.operation.kind=set-status",
                                             "clients.ops.operation.resource=per-client"};
    Scenario *scenario = test_load(json, ops_update, 1);
    ck_assert(scenario->broker.transactional);
    ck_assert_uint_eq(scenario->client_groups[2].broker, 1);
    free(scenario);
    scenario = test_load(json, ops_status, 2);
    free(scenario);
    static const char *const app_update[] = {"clients.app.operation.update=read-modify-write"};
    test_assert_refused(json, app_update, 1, "$.clients[1].operation.update",
                        "broker.transactional");
}
END_TEST

/* A first broker with one group and a second with two queues, one group each, the auditors'
 * naming their broker auditors_consumes and their queue auditors_queue; refunds_queues is
 * spliced into the second broker's entry. */
#define AUDITED_REFUNDS(refunds_queues, auditors_consumes, auditors_queue)                         \
    "{\"name\": \"audited\", \"duration_ms\": 1000, \"accounts\": [{\"id\": \"a\"}],"              \
    " \"services\": ["                                                                             \
    "   {\"id\": \"orders\", \"kind\": \"broker\"},"                                               \
    "   {\"id\": \"refunds\", \"kind\": \"broker\", " refunds_queues "},"                          \
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                 \
    "    \"key_store\": \"k1\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"                       \
    "   {\"id\": \"refunders\", \"kind\": \"consumers\", \"consumes\": \"refunds\","               \
    "    \"queues\": [\"small\"], \"key_store\": \"k2\"},"                                         \
    "   {\"id\": \"k2\", \"kind\": \"key_store\"},"                                                \
    "   {\"id\": \"auditors\", \"kind\": \"consumers\", \"consumes\": \"" auditors_consumes "\","  \
    "    \"queues\": [\"" auditors_queue                                                           \
    "\"], \"dead_letters\": \"review\", \"key_store\": \"k3\"},"                                   \
    "   {\"id\": \"k3\", \"kind\": \"key_store\"}],"                                               \
    " \"clients\": [{\"id\": \"app\", \"publishes\": \"orders\"},"                                 \
    "  {\"id\": \"desk\", \"publishes\": \"refunds\", \"queue\": \"small\"}]}"

#define REFUNDS_QUEUES "\"queues\": [{\"name\": \"small\"}, {\"name\": \"large\"}]"

/* Loading json with overrides fails with one error, at path, whose message says words. */
static void assert_one_error_with(const char *json, const char *const *overrides, uint32_t count,
                                  const char *path, const char *words)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), overrides, count, scenario, &errors));
    for (uint32_t e = 0; errors.count != 1 && e < errors.count; e++)
        fprintf(stderr, "%s: %s\n", errors.items[e].path, errors.items[e].message);
    ck_assert_uint_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].path, path);
    ck_assert_msg(strstr(errors.items[0].message, words) != NULL, "%s", errors.items[0].message);
    free(scenario);
}

static void assert_one_error(const char *json, const char *path, const char *words)
{
    assert_one_error_with(json, NULL, 0, path, words);
}

/* One mistake, one error: a later group's consumes naming no broker is said there, and its
 * queues are read against neither broker (they were read as the first broker's: an unknown
 * queue for each name, and the queue it meant left "taken by none" at another group). */
START_TEST(test_a_refused_consumes_is_one_error)
{
    assert_one_error(AUDITED_REFUNDS(REFUNDS_QUEUES, "refundz", "large"), "$.services[6].consumes",
                     "did you mean 'refunds'");
}
END_TEST

/* A queue its broker does not have is told with the broker's id and queues (with two
 * brokers, the other may have it), and once: the queue the group meant is not told again as
 * taken by none. A second broker whose queues are unreadable is told at its queues alone. */
START_TEST(test_an_unknown_queue_names_its_broker_once)
{
    assert_one_error(AUDITED_REFUNDS(REFUNDS_QUEUES, "refunds", "main"), "$.services[6].queues[0]",
                     "unknown queue 'main' of broker 'refunds' (known: 'small', 'large')");
    assert_one_error(AUDITED_REFUNDS("\"queues\": []", "refunds", "large"), "$.services[1].queues",
                     "expected at least 1 queue");
}
END_TEST

/* A second broker with everything a queue broker has: a visibility-timeout broker with two
 * queues, one dead-lettering with a redrive, the other taken by a second group; the server's
 * receipts relayed by its outbox to the dead-lettering queue; the mailers failing, crashing,
 * heartbeating and reviewing their dead letters; a first broker copying through an exchange
 * to its two groups. show writes all of it, and the printed file runs alike in every mode. */
static const char *const everything_twice =
    "{\"name\": \"everything_twice\", \"seed\": 11, \"duration_ms\": 6000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
    " \"services\": ["
    "  {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","
    "   \"steps\": [{\"effect\": \"local\"},"
    "               {\"publish\": \"notifications\", \"queue\": \"receipts\", \"via\": "
    "\"outbox\"}],"
    "   \"crash\": {\"point\": \"after-effect\", \"prob\": 0.05, \"restart_ms\": 300}},"
    "  {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"
    "  {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"channel\","
    "   \"queues\": [{\"name\": \"billing\"}, {\"name\": \"audit\"}],"
    "   \"exchanges\": [{\"name\": \"fanout\", \"queues\": [\"billing\", \"audit\"]}]},"
    "  {\"id\": \"notifications\", \"kind\": \"broker\", \"ack_timeout_ms\": 150,"
    "   \"queues\": [{\"name\": \"receipts\", \"dead_letter\": true, \"max_deliveries\": 3,"
    "                \"redrive_after_ms\": 1000}, {\"name\": \"alerts\"}]},"
    "  {\"id\": \"billers\", \"kind\": \"consumers\", \"consumes\": \"orders\", \"queues\": "
    "[\"billing\"],"
    "   \"key_store\": \"bk\", \"instances\": 2,"
    "   \"crash\": {\"point\": \"after-effect\", \"prob\": 0.05, \"restart_ms\": 300}},"
    "  {\"id\": \"bk\", \"kind\": \"key_store\", \"key\": \"message-id\"},"
    "  {\"id\": \"auditors\", \"kind\": \"consumers\", \"consumes\": \"orders\", \"queues\": "
    "[\"audit\"],"
    "   \"key_store\": \"ak\", \"steps\": [{\"effect\": \"email\"}]},"
    "  {\"id\": \"ak\", \"kind\": \"key_store\"},"
    "  {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"notifications\","
    "   \"queues\": [\"receipts\"], \"key_store\": \"mk\", \"steps\": [{\"effect\": \"email\"}],"
    "   \"dead_letters\": \"review\", \"heartbeat_ms\": 60, \"fail_after_effect\": 0.2,"
    "   \"service_ms\": {\"dist\": \"uniform\", \"min\": 50, \"max\": 250},"
    "   \"crash\": {\"point\": \"after-completion\", \"prob\": 0.05, \"restart_ms\": 300}},"
    "  {\"id\": \"mk\", \"kind\": \"key_store\"},"
    "  {\"id\": \"alerters\", \"kind\": \"consumers\", \"consumes\": \"notifications\","
    "   \"queues\": [\"alerts\"], \"key_store\": \"lk\"},"
    "  {\"id\": \"lk\", \"kind\": \"key_store\", \"key\": \"message-id\"}],"
    " \"clients\": ["
    "  {\"id\": \"web\", \"count\": 3, \"calls\": \"checkout\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 8, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 400}},"
    "   \"retry\": {\"timeout_ms\": 500, \"max_attempts\": 3}},"
    "  {\"id\": \"app\", \"count\": 3, \"publishes\": \"orders\", \"queue\": \"fanout\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 8, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 400}}},"
    "  {\"id\": \"ops\", \"count\": 2, \"publishes\": \"notifications\", \"queue\": \"alerts\","
    "   \"key\": \"message-id\", \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
    "   \"workload\": {\"ops\": 8, \"interval_ms\": {\"dist\": \"exp\", \"mean\": 400}}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"exp\", \"mean\": 3},"
    "   \"loss\": 0.02, \"duplicate\": 0.01},"
    "   \"links\": {\"ops->notifications\": {\"loss\": 0.1}}}}";

START_TEST(test_show_round_trips_everything_a_second_broker_has)
{
    Scenario *scenario = test_load(everything_twice, NULL, 0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        Metrics first = test_run_mode(scenario, (Mode)mode, 11);
        Metrics second = test_run_mode(again, (Mode)mode, 11);
        for (int o = 0; o < OUTCOME_COUNT; o++)
            ck_assert_uint_eq(first.outcomes[o], second.outcomes[o]);
        ck_assert_uint_eq(first.queue_count, 4);
        for (uint32_t q = 0; q < first.queue_count; q++) {
            ck_assert_uint_eq(first.queues[q].messages, second.queues[q].messages);
            ck_assert_uint_eq(first.queues[q].redeliveries, second.queues[q].redeliveries);
            ck_assert_uint_eq(first.queues[q].dead_lettered, second.queues[q].dead_lettered);
        }
        ck_assert_uint_eq(first.dead_letters_reviewed, second.dead_letters_reviewed);
        ck_assert_uint_eq(first.heartbeats, second.heartbeats);
        ck_assert_uint_eq(first.channel_closures, second.channel_closures);
        ck_assert_uint_eq(first.receipts_sent, second.receipts_sent);
        ck_assert_uint_eq(first.handler_failures, second.handler_failures);
        if (mode == MODE_AT_LEAST_ONCE) { /* the shape is exercised, not only loaded */
            ck_assert_uint_gt(first.queues[2].dead_lettered, 0);
            ck_assert_uint_gt(first.heartbeats, 0);
            ck_assert_uint_gt(first.queues[3].messages, 0);
        }
    }
    free(shown);
    free(again);
    free(scenario);
}
END_TEST

/* A client group naming a queue of the other broker is told so once, with its broker's id
 * and queues: its first queue, which the reader keeps, is not what it meant, and was then
 * told as reaching only a group that emails. The publish step's queue names its broker too. */
START_TEST(test_a_clients_queue_of_the_other_broker_is_one_error)
{
    static const char *const ops_to_main[] = {"clients.ops.queue=main"};
    assert_one_error_with(shop, ops_to_main, 1, "$.clients[2].queue",
                          "unknown queue 'main' of broker 'notifications' (known: 'receipts', "
                          "'alerts')");
    static const char *const receipts_to_main[] = {"services.checkout.steps[1].queue=main"};
    assert_one_error_with(shop, receipts_to_main, 1, "$.services[0].steps[1].queue",
                          "unknown queue 'main' of broker 'notifications'");
}
END_TEST

static Suite *two_brokers_review_suite(void)
{
    Suite *suite = suite_create("two_brokers_review");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_show_writes_a_clients_queue_of_the_second_broker);
    tcase_add_test(core, test_a_heartbeat_is_checked_against_its_groups_broker);
    tcase_add_test(core, test_the_queue_levels_are_every_brokers_together);
    tcase_add_test(core, test_a_link_names_the_second_broker);
    tcase_add_test(core, test_a_transaction_is_its_own_brokers);
    tcase_add_test(core, test_a_refused_consumes_is_one_error);
    tcase_add_test(core, test_an_unknown_queue_names_its_broker_once);
    tcase_add_test(core, test_show_round_trips_everything_a_second_broker_has);
    tcase_add_test(core, test_a_clients_queue_of_the_other_broker_is_one_error);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(two_brokers_review_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
