/* The network's fates, measured on one link against their closed forms: Bernoulli loss,
 * Gilbert-Elliott loss (stationary rate and burst-inflated tolerance), duplication, outage
 * windows and a constant delay. The clients send each request once (at-most-once), so every
 * request on the web->server link is one packet with a fate of its own. */
#include "test_world.h"

#define CLIENTS 100
#define OPS 200
#define PACKETS (CLIENTS * OPS)

typedef struct {
    uint64_t transmitted, lost, duplicated, delivered;
    uint64_t lost_outside_outage, sent_inside_outage;
    SimTimeUs outage_from_us, outage_to_us;
    SimTimeUs delay_min_us, delay_max_us;
    SimTimeUs sent_at[PACKETS]; /* by operation: when its request left */
} LinkTally;

static void tally_requests(void *context, const TraceRecord *record)
{
    LinkTally *tally = context;
    if (!trace_is_message_event(record->event) || record->message != MESSAGE_REQUEST)
        return;
    bool in_outage = record->t_us >= tally->outage_from_us && record->t_us < tally->outage_to_us;
    switch (record->event) {
    case TRACE_TRANSMIT:
        tally->transmitted++;
        tally->sent_inside_outage += in_outage;
        tally->sent_at[record->operation] = record->t_us;
        break;
    case TRACE_LOST:
        tally->lost++;
        tally->lost_outside_outage += !in_outage;
        break;
    case TRACE_DUPLICATE:
        tally->duplicated++;
        break;
    case TRACE_DELIVER: {
        tally->delivered++;
        SimTimeUs delay = record->t_us - tally->sent_at[record->operation];
        if (tally->delivered == 1 || delay < tally->delay_min_us)
            tally->delay_min_us = delay;
        if (delay > tally->delay_max_us)
            tally->delay_max_us = delay;
        break;
    }
    default:
        break;
    }
}

static LinkTally *run_link(const char *link_json, const char *outages_json)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\": \"net\", \"seed\": 11, \"duration_ms\": 10000,"
             " \"accounts\": [{\"id\": \"a\", \"balance\": 1000000000}],"
             " \"clients\": [{\"id\": \"web\", \"count\": %d,"
             "   \"operation\": {\"kind\": \"debit\", \"amount\": 1},"
             "   \"workload\": {\"ops\": %d, \"loop\": \"open\","
             "                  \"interval_ms\": {\"dist\": \"const\", \"value\": 10}},"
             "   \"retry\": {\"timeout_ms\": 1000, \"max_attempts\": 1}}],"
             " \"network\": {\"default\": {\"delay_ms\": {\"dist\": \"const\", \"value\": 7}},"
             "   \"links\": {\"web->server\": %s}, \"outages\": %s},"
             " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 0}}}",
             CLIENTS, OPS, link_json, outages_json);
    Scenario *scenario = test_load(json, NULL, 0);
    LinkTally *tally = calloc(1, sizeof *tally);
    tally->outage_from_us = 1000000;
    tally->outage_to_us = 2000000;
    World *world = world_create(scenario, MODE_AT_MOST_ONCE, scenario->seed,
                                (TraceSink){tally_requests, tally}, (WorldLimits){0});
    world_run(world);
    ck_assert_int_eq(world_stop(world).kind, WORLD_STOP_NONE);
    world_destroy(world);
    free(scenario);
    return tally;
}

static void assert_rate(uint64_t count, double expected_rate, double tolerance, const char *what)
{
    double rate = (double)count / PACKETS;
    ck_assert_msg(fabs(rate - expected_rate) <= tolerance, "%s: %.4f, expected %.4f +- %.4f", what,
                  rate, expected_rate, tolerance);
}

START_TEST(test_bernoulli_loss_drops_its_share)
{
    LinkTally *tally = run_link("{\"loss\": 0.2}", "[]");
    ck_assert_uint_eq(tally->transmitted + tally->lost, PACKETS);
    assert_rate(tally->lost, 0.2, test_binomial_tolerance(0.2, PACKETS), "loss");
    free(tally);
}
END_TEST

/* Stationary loss of a two-state chain: bad with probability p / (p + r), delivering with h
 * there and k in the good state. Successive packets are correlated (the state persists with
 * probability 1 - p - r), which widens the variance of the mean by (1 + l) / (1 - l). */
START_TEST(test_gilbert_elliott_loss_matches_its_stationary_rate)
{
    double p = 0.05, r = 0.25, h = 0.3, k = 0.99;
    LinkTally *tally = run_link("{\"loss\": {\"model\": \"gilbert-elliott\", \"p\": 0.05, "
                                "\"r\": 0.25, \"h\": 0.3, \"k\": 0.99}}",
                                "[]");
    double bad = p / (p + r);
    double loss = 1.0 - (bad * h + (1.0 - bad) * k);
    double persistence = 1.0 - p - r;
    double tolerance =
        test_binomial_tolerance(loss, PACKETS) * sqrt((1.0 + persistence) / (1.0 - persistence));
    assert_rate(tally->lost, loss, tolerance, "gilbert-elliott loss");
    free(tally);
}
END_TEST

START_TEST(test_duplication_copies_its_share)
{
    LinkTally *tally = run_link("{\"duplicate\": 0.1}", "[]");
    assert_rate(tally->duplicated, 0.1, test_binomial_tolerance(0.1, PACKETS), "duplicates");
    /* every copy, original or duplicate, is transmitted (no loss) and delivered */
    ck_assert_uint_eq(tally->transmitted, PACKETS + tally->duplicated);
    ck_assert_uint_eq(tally->delivered, tally->transmitted);
    free(tally);
}
END_TEST

START_TEST(test_an_outage_drops_everything_inside_it_and_nothing_outside)
{
    LinkTally *tally = run_link(
        "{\"loss\": 0}", "[{\"from_ms\": 1000, \"to_ms\": 2000, \"link\": \"web->server\"}]");
    ck_assert_uint_eq(tally->sent_inside_outage, 0);
    ck_assert_uint_eq(tally->lost_outside_outage, 0);
    /* 100 clients x one request per 10 ms for 1 s */
    ck_assert_uint_eq(tally->lost, CLIENTS * 100);
    free(tally);
}
END_TEST

START_TEST(test_a_constant_delay_is_exact)
{
    LinkTally *tally = run_link("{\"loss\": 0}", "[]");
    ck_assert_uint_eq(tally->delivered, PACKETS);
    ck_assert_uint_eq(tally->delay_min_us, 7000);
    ck_assert_uint_eq(tally->delay_max_us, 7000);
    free(tally);
}
END_TEST

static Suite *network_suite(void)
{
    Suite *suite = suite_create("network");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_bernoulli_loss_drops_its_share);
    tcase_add_test(core, test_gilbert_elliott_loss_matches_its_stationary_rate);
    tcase_add_test(core, test_duplication_copies_its_share);
    tcase_add_test(core, test_an_outage_drops_everything_inside_it_and_nothing_outside);
    tcase_add_test(core, test_a_constant_delay_is_exact);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(network_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failures = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
