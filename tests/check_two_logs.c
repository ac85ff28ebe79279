/* Two brokers that are both logs (Kafka): every rule the loader, the model and the reports
 * hold for the first broker's log holds for the second's, said at the second broker's entry
 * ($.services[N]). */
#include <check.h>
#include <stdlib.h>

#include "test_world.h"

/* The app's orders on one log (entry 0), read by the chargers (2); the partners' orders on
 * another (1), read by their own chargers (4), which apply them, and by mailers (6), which
 * email each. */
static const char two_logs[] =
    "{\"name\": \"two_logs\", \"seed\": 5, \"duration_ms\": 5000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\", \"partitions\": 2},"
    "   {\"id\": \"partner-orders\", \"kind\": \"broker\", \"family\": \"log\","
    "    \"partitions\": 3},"
    "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"k1\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"
    "   {\"id\": \"partner-chargers\", \"kind\": \"consumers\","
    "    \"consumes\": \"partner-orders\", \"key_store\": \"k2\"},"
    "   {\"id\": \"k2\", \"kind\": \"key_store\"},"
    "   {\"id\": \"partner-mailers\", \"kind\": \"consumers\","
    "    \"consumes\": \"partner-orders\", \"key_store\": \"k3\","
    "    \"steps\": [{\"effect\": \"email\"}]},"
    "   {\"id\": \"k3\", \"kind\": \"key_store\"}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 3, \"publishes\": \"orders\","
    "   \"workload\": {\"at_ms\": [0, 100, 200]}},"
    "  {\"id\": \"partners\", \"count\": 2, \"publishes\": \"partner-orders\","
    "   \"workload\": {\"at_ms\": [0, 100, 200, 300]}}],"
    " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 1}}}}";

/* A rebalance is scheduled only at a multiple of rebalance_every_ms within the run
 * (broker_log.c): an interval longer than the run is refused on either log, at its entry. */
START_TEST(test_a_second_logs_rebalance_after_the_run_is_refused)
{
    static const char *const first[] = {"services.orders.rebalance_every_ms=20000"};
    test_assert_refused(two_logs, first, 1, "$.services[0].rebalance_every_ms",
                        "the first rebalance would come after the run");
    static const char *const second[] = {"services.partner-orders.rebalance_every_ms=20000"};
    test_assert_refused(two_logs, second, 1, "$.services[1].rebalance_every_ms",
                        "the first rebalance would come after the run");
    static const char *const within[] = {"services.partner-orders.rebalance_every_ms=2000"};
    free(test_load(two_logs, within, 1));
}
END_TEST

static Suite *two_logs_suite(void)
{
    Suite *suite = suite_create("two_logs");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_second_logs_rebalance_after_the_run_is_refused);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(two_logs_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
