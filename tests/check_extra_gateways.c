/* Several gateways (issue 21): a checkout that charges cards at one provider, and billing
 * consumers that charge a wallet at another. Each gateway is a node with its own latency,
 * timeout, keys and records, and each caller's charges, refunds and status queries go to the
 * gateway its call step names. Both providers take 0.5 s; cards gives up on a charge after
 * 0.3 s (its timeout_ms, which checkout's call, having none of its own, waits), the wallet
 * after 2 s: every try of checkout's call times out and charges, every try of the consumers'
 * is answered. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "scenario.h"
#include "scenario_inert.h"
#include "test_world.h"
#include "world.h"

#define CHECKOUT_TRIES 3
#define WEB_PAYMENTS 40
#define RENEWALS 40

/* billing_step is the consumers' step list, gateways_extra fields of both gateways. */
#define PROVIDERS(billing_steps, cards_fields, wallet_fields)                                      \
    "{\"seed\": 7, \"duration_ms\": 600000,"                                                       \
    " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"                                    \
    " \"services\": ["                                                                             \
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","            \
    "    \"workers\": 0, \"service_ms\": {\"dist\": \"const\", \"value\": 1},"                     \
    "    \"steps\": [{\"call\": \"cards\", \"key\": \"forward\","                                  \
    "                 \"retry\": {\"max_attempts\": 3, \"backoff_ms\": 10}}]},"                    \
    "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"                                     \
    "   {\"id\": \"cards\", \"kind\": \"gateway\", \"timeout_ms\": 300,"                           \
    "    \"latency_ms\": {\"dist\": \"const\", \"value\": 500}" cards_fields "},"                  \
    "   {\"id\": \"wallet\", \"kind\": \"gateway\", \"timeout_ms\": 2000,"                         \
    "    \"latency_ms\": {\"dist\": \"const\", \"value\": 500}" wallet_fields "},"                 \
    "   {\"id\": \"renewals\", \"kind\": \"broker\", \"family\": \"visibility-timeout\","          \
    "    \"ack_timeout_ms\": 60000, \"max_deliveries\": 1},"                                       \
    "   {\"id\": \"billing\", \"kind\": \"consumers\", \"consumes\": \"renewals\","                \
    "    \"key_store\": \"billing-keys\", \"workers\": 0,"                                         \
    "    \"service_ms\": {\"dist\": \"const\", \"value\": 1}, \"steps\": [" billing_steps "]},"    \
    "   {\"id\": \"billing-keys\", \"kind\": \"key_store\", \"key\": \"message-id\"}],"            \
    " \"clients\": ["                                                                              \
    "   {\"id\": \"web\", \"count\": 4, \"calls\": \"checkout\","                                  \
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                   \
    "    \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                     \
    "    \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 1}, \"key\": \"per-click\"},"        \
    "   {\"id\": \"scheduler\", \"count\": 4, \"publishes\": \"renewals\", \"key\": "              \
    "\"message-id\","                                                                              \
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 100},"                                   \
    "    \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"                                     \
    "    \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 1}}],"                               \
    " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}"
#define BILLING_CALLS_WALLET                                                                       \
    "{\"call\": \"wallet\", \"key\": \"forward\", \"retry\": {\"max_attempts\": 3, "               \
    "\"backoff_ms\": 10}}"

/* Each call without a timeout of its own waits its own gateway's: checkout gives cards 0.3 s a
 * try and charges three times a payment; the consumers give the wallet 2 s and charge once.
 * (Waiting the first gateway's 0.3 s, they would try three times too.) */
START_TEST(test_each_call_waits_its_own_gateway)
{
    Metrics least = test_run_text(PROVIDERS(BILLING_CALLS_WALLET, "", ""), MODE_AT_LEAST_ONCE);
    ck_assert_uint_eq(least.operations, WEB_PAYMENTS + RENEWALS);
    ck_assert_double_eq(test_service_value(&least, "cards", "effects"),
                        WEB_PAYMENTS * CHECKOUT_TRIES);
    ck_assert_double_eq(test_service_value(&least, "checkout", "retries"),
                        WEB_PAYMENTS * (CHECKOUT_TRIES - 1));
    ck_assert_double_eq(test_service_value(&least, "wallet", "effects"), RENEWALS);
    ck_assert_double_eq(test_service_value(&least, "billing", "retries"), 0);
    ck_assert_uint_eq(least.provider_charges, WEB_PAYMENTS * CHECKOUT_TRIES + RENEWALS);
}
END_TEST

/* Each gateway honours keys or not by its own field: with every try of both callers timing
 * out (the wallet's wait shortened to 0.3 s), the one that honours the forwarded key charges
 * each payment once and replays the rest; the other charges every try. */
START_TEST(test_each_gateway_honours_keys_by_its_own_field)
{
    static const struct {
        const char *honours;
        double cards_effects, wallet_effects;
    } cases[] = {
        {"services.cards.honours_key=true", WEB_PAYMENTS, RENEWALS * CHECKOUT_TRIES},
        {"services.wallet.honours_key=true", WEB_PAYMENTS * CHECKOUT_TRIES, RENEWALS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *overrides[] = {"services.wallet.timeout_ms=300", cases[i].honours};
        Scenario *scenario = test_load(PROVIDERS(BILLING_CALLS_WALLET, "", ""), overrides, 2);
        Metrics keyed = test_run_mode(scenario, MODE_IDEMPOTENT, scenario->seed);
        ck_assert_double_eq(test_service_value(&keyed, "cards", "effects"), cases[i].cards_effects);
        ck_assert_double_eq(test_service_value(&keyed, "wallet", "effects"),
                            cases[i].wallet_effects);
        double replayed = test_service_value(&keyed, "cards", "replayed") +
                          test_service_value(&keyed, "wallet", "replayed");
        ck_assert_double_eq(replayed, (WEB_PAYMENTS + RENEWALS) * CHECKOUT_TRIES -
                                          cases[i].cards_effects - cases[i].wallet_effects);
        free(scenario);
    }
}
END_TEST

/* A gateway fault names its gateway: a decline the wallet could draw is met as a point of
 * the wallet's (gateway 1, the attempt as sent), and forced, declines that renewal there; the
 * same fault at the first gateway meets nothing (cards never sees the renewal). */
START_TEST(test_a_gateway_fault_names_its_gateway)
{
    const char *listed[] = {"faults=[]"};
    Scenario *scenario =
        test_load(PROVIDERS(BILLING_CALLS_WALLET, "", ", \"fail\": 0.001"), listed, 1);
    World *world = world_create(scenario, MODE_AT_LEAST_ONCE, scenario->seed, (TraceSink){0},
                                (WorldLimits){0});
    world_run(world);
    uint32_t count = 0, overflow = 0;
    const FaultSpec *points = world_fault_points(world, &count, &overflow);
    FaultSpec decline = {.kind = FAULT_KIND_COUNT};
    for (uint32_t i = 0; i < count && decline.kind == FAULT_KIND_COUNT; i++) {
        if (points[i].kind == FAULT_GATEWAY_DECLINE)
            decline = points[i];
    }
    world_destroy(world);
    ck_assert_int_eq(decline.kind, FAULT_GATEWAY_DECLINE);
    ck_assert_uint_eq(decline.gateway, 1);
    ck_assert_uint_eq(decline.attempt, 1);
    ck_assert_uint_ge(decline.operation, WEB_PAYMENTS); /* a renewal */
    for (uint32_t gateway = 0; gateway <= 1; gateway++) {
        scenario->fault_count = 1;
        scenario->faults[0] = decline;
        scenario->faults[0].gateway = gateway;
        Metrics forced = test_run_mode(scenario, MODE_AT_LEAST_ONCE, scenario->seed);
        ck_assert_uint_eq(forced.outcomes[OUTCOME_DECLINED], gateway == 1 ? 1 : 0);
    }
    free(scenario);
}
END_TEST

/* A fault list's gateway is a gateway fault's, and one the scenario has. */
START_TEST(test_a_fault_names_a_gateway_there_is)
{
    const char *beyond[] = {"faults=[{\"fault\": \"gateway-silent\", \"operation\": 1,"
                            " \"attempt\": 1, \"hop\": \"charge\", \"gateway\": 1}]"};
    const char *not_gateway[] = {"faults=[{\"fault\": \"loss\", \"operation\": 40,"
                                 " \"attempt\": 1, \"gateway\": 1}]"};
    const char *one_gateway = "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
                              " \"services\": [{\"id\": \"checkout\", \"kind\": \"server\","
                              " \"key_store\": \"k\", \"steps\": [{\"call\": \"cards\"}]},"
                              " {\"id\": \"k\", \"kind\": \"key_store\"},"
                              " {\"id\": \"cards\", \"kind\": \"gateway\"}],"
                              " \"clients\": [{\"id\": \"web\", \"calls\": \"checkout\"}]}";
    const struct {
        const char *json;
        const char *const *override;
        const char *words;
    } cases[] = {
        {one_gateway, beyond, "expected at most 0 (the gateways after the first"},
        {PROVIDERS(BILLING_CALLS_WALLET, "", ""), not_gateway, "applies to gateway faults only"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Scenario *scenario = calloc(1, sizeof *scenario);
        LoadErrors *errors = calloc(1, sizeof *errors);
        const char *json = cases[i].json;
        ck_assert(!scenario_load_text(json, strlen(json), cases[i].override, 1, scenario, errors));
        ck_assert_str_eq(errors->items[0].path, "$.faults[0].gateway");
        ck_assert_msg(strstr(errors->items[0].message, cases[i].words) != NULL, "%s",
                      errors->items[0].message);
        free(errors);
        free(scenario);
    }
}
END_TEST

/* A consumer saga whose charge is at the wallet refunds there: every shipment fails, so every
 * renewal is charged, then refunded, at the wallet; cards refunds nothing. */
START_TEST(test_a_refund_goes_to_the_gateway_that_charged)
{
    const char *json = PROVIDERS("{\"call\": \"wallet\", \"key\": \"forward\","
                                 " \"undo\": {\"refund\": \"wallet\"}},"
                                 " {\"fulfil\": \"local\", \"fail\": 1}",
                                 "", "");
    Metrics keyed = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_double_eq(test_service_value(&keyed, "wallet", "refunds"), RENEWALS);
    ck_assert_double_eq(test_service_value(&keyed, "cards", "refunds"), 0);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_REFUNDED], RENEWALS);
}
END_TEST

/* The consumers' undo names the gateway their call charged, not another one. */
START_TEST(test_an_undo_refunds_where_the_call_charged)
{
    const char *json = PROVIDERS("{\"call\": \"wallet\", \"undo\": {\"refund\": \"cards\"}},"
                                 " {\"fulfil\": \"local\", \"fail\": 1}",
                                 "", "");
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    ck_assert(!scenario_load_text(json, strlen(json), NULL, 0, scenario, &errors));
    ck_assert_uint_ge(errors.count, 1);
    ck_assert_str_eq(errors.items[0].path, "$.services[5].steps[0].undo.refund");
    ck_assert_msg(strstr(errors.items[0].message, "expected 'wallet'") != NULL, "%s",
                  errors.items[0].message);
    free(scenario);
}
END_TEST

/* Reconciliation asks the gateway the charges went to: checkout charges at the wallet, whose
 * answers never leave (timeout 1), answers 504 and asks the wallet half a second later; the
 * wallet's records say charged, so the key is completed, and each payment's retry, 2 s after
 * the 504, is answered from the store: charged once, told done. Asked at cards, which never
 * saw those charges, the answer would be "never charged", the key forgotten and every retry
 * charged again. */
START_TEST(test_reconciliation_asks_the_gateway_that_charged)
{
    const char *json =
        "{\"seed\": 7, \"duration_ms\": 600000,"
        " \"accounts\": [{\"id\": \"a\", \"balance\": 100000000}],"
        " \"services\": ["
        "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","
        "    \"steps\": [{\"call\": \"wallet\", \"key\": \"forward\", \"reconcile_ms\": 500}]},"
        "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"
        "   {\"id\": \"cards\", \"kind\": \"gateway\"},"
        "   {\"id\": \"wallet\", \"kind\": \"gateway\", \"timeout\": 1, \"timeout_ms\": 300},"
        "   {\"id\": \"renewals\", \"kind\": \"broker\"},"
        "   {\"id\": \"billing\", \"kind\": \"consumers\", \"consumes\": \"renewals\","
        "    \"key_store\": \"billing-keys\", \"steps\": [{\"call\": \"cards\"}]},"
        "   {\"id\": \"billing-keys\", \"kind\": \"key_store\"}],"
        " \"clients\": ["
        "   {\"id\": \"web\", \"count\": 4, \"calls\": \"checkout\","
        "    \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
        "    \"workload\": {\"ops\": 10, \"interval_ms\": 30000},"
        "    \"retry\": {\"timeout_ms\": 10000, \"max_attempts\": 2, \"backoff\": {\"base_ms\": "
        "2000,"
        "      \"factor\": 1, \"max_ms\": 2000, \"jitter\": \"none\"}}},"
        "   {\"id\": \"scheduler\", \"count\": 1, \"publishes\": \"renewals\","
        "    \"operation\": {\"kind\": \"debit\", \"amount\": 100},"
        "    \"workload\": {\"ops\": 1}}],"
        " \"network\": {\"default\": {\"loss\": 0, \"delay_ms\": 5}}}";
    Metrics keyed = test_run_text(json, MODE_IDEMPOTENT);
    ck_assert_uint_eq(keyed.reconciled, WEB_PAYMENTS);
    ck_assert_double_eq(test_service_value(&keyed, "wallet", "effects"), WEB_PAYMENTS);
    ck_assert_double_eq(test_service_value(&keyed, "wallet", "doubles"), 0);
    ck_assert_double_eq(test_service_value(&keyed, "checkout", "replayed"), WEB_PAYMENTS);
    ck_assert_uint_eq(keyed.outcomes[OUTCOME_DOUBLE], 0);
}
END_TEST

/* A gateway after the first is its own node, named by its id: in the service metrics, after
 * the consumers that charge there (the first gateway after checkout). */
START_TEST(test_an_extra_gateway_is_a_node_after_its_caller)
{
    Metrics least = test_run_text(PROVIDERS(BILLING_CALLS_WALLET, "", ""), MODE_AT_LEAST_ONCE);
    uint32_t order[SERVICE_METRICS_MAX];
    uint32_t shown = metrics_services_in_lane_order(&least, order);
    const char *expected[] = {"checkout", "cards", "renewals", "billing", "wallet"};
    ck_assert_uint_eq(shown, 5);
    for (uint32_t i = 0; i < shown; i++)
        ck_assert_str_eq(least.services[order[i]].name, expected[i]);
}
END_TEST

/* ------------------------------------------------------------------ the loader */

/* C35's capture, voids and settlement are the first gateway's, in a world of one gateway. */
START_TEST(test_manual_capture_stays_with_one_gateway)
{
    static const struct {
        const char *cards, *wallet, *path, *words;
    } cases[] = {
        {"", ", \"capture\": \"manual\"", "$.services[3].capture", "expected 'immediate'"},
        {"", ", \"void_late\": true", "$.services[3].void_late", "expected false"},
        {"", ", \"capture_lost\": 0.1", "$.services[3].capture_lost", "expected 0"},
        {"", ", \"settlement_every_ms\": 1000", "$.services[3].settlement_every_ms", "expected 0"},
        {", \"capture\": \"manual\"", "", "$.services[2].capture", "with several gateways"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[8192];
        snprintf(json, sizeof json, PROVIDERS(BILLING_CALLS_WALLET, "%s", "%s"), cases[i].cards,
                 cases[i].wallet);
        test_assert_refused(json, NULL, 0, cases[i].path, cases[i].words);
    }
}
END_TEST

/* Every gateway is some call step's: one nothing charges through is refused, and so is one
 * only the consumers charge through when nothing publishes to them (show would leave it out,
 * and the next gateway would take its place). A client group calls no gateway. */
START_TEST(test_every_gateway_is_called)
{
    test_assert_refused(PROVIDERS("{\"call\": \"cards\"}", "", ""), NULL, 0, "$.services[3]",
                        "expected a step that calls gateway 'wallet'");
    const char *no_publisher =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
        " \"services\": ["
        "   {\"id\": \"checkout\", \"kind\": \"server\", \"steps\": [{\"call\": \"wallet\"}]},"
        "   {\"id\": \"cards\", \"kind\": \"gateway\"},"
        "   {\"id\": \"wallet\", \"kind\": \"gateway\"},"
        "   {\"id\": \"renewals\", \"kind\": \"broker\"},"
        "   {\"id\": \"billing\", \"kind\": \"consumers\", \"consumes\": \"renewals\","
        "    \"steps\": [{\"call\": \"cards\"}]}],"
        " \"clients\": [{\"id\": \"web\", \"calls\": \"checkout\"}]}";
    test_assert_refused(no_publisher, NULL, 0, "$.services[1]",
                        "expected work to reach gateway 'cards'");
    const char *group_calls_gateway =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
        " \"services\": ["
        "   {\"id\": \"checkout\", \"kind\": \"server\", \"steps\": [{\"call\": \"cards\"}]},"
        "   {\"id\": \"cards\", \"kind\": \"gateway\"},"
        "   {\"id\": \"wallet\", \"kind\": \"gateway\"}],"
        " \"clients\": [{\"id\": \"web\", \"calls\": \"wallet\"}]}";
    test_assert_refused(group_calls_gateway, NULL, 0, "$.clients[0].calls",
                        "('wallet' is a gateway)");
}
END_TEST

/* The one warning a scenario of scheduler renewals alone gets, where a gateway only the
 * unreached checkout charges at has fields set (cards has; wallet's and the network's are
 * given). */
static void expect_unreached_gateway_warning(const char *checkout_calls, const char *billing_calls,
                                             const char *wallet_fields, const char *network,
                                             const char *path, const char *words)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
             " \"services\": ["
             "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","
             "    \"steps\": [{\"call\": \"%s\"}]},"
             "   {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"
             "   {\"id\": \"cards\", \"kind\": \"gateway\", \"timeout_ms\": 1500},"
             "   {\"id\": \"wallet\", \"kind\": \"gateway\"%s},"
             "   {\"id\": \"renewals\", \"kind\": \"broker\"},"
             "   {\"id\": \"billing\", \"kind\": \"consumers\", \"consumes\": \"renewals\","
             "    \"key_store\": \"billing-keys\", \"steps\": [{\"call\": \"%s\"}]},"
             "   {\"id\": \"billing-keys\", \"kind\": \"key_store\"}],"
             " \"clients\": [{\"id\": \"scheduler\", \"publishes\": \"renewals\"}]%s}",
             checkout_calls, wallet_fields, billing_calls, network);
    Scenario *scenario = test_load(json, NULL, 0);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    ck_assert_ptr_nonnull(warnings);
    scenario_inert_warnings(scenario, warnings);
    ck_assert_uint_eq(warnings->count, 1);
    ck_assert_str_eq(warnings->items[0].path, path);
    ck_assert_msg(strstr(warnings->items[0].message, words) != NULL, "%s",
                  warnings->items[0].message);
    free(warnings);
    free(scenario);
}

/* A gateway only the servers charge at sits idle when no client group calls the server,
 * though the consumers charge at the other one: its fields are said to have no effect, as
 * they are with one gateway. */
START_TEST(test_an_unreached_gateway_is_warned_of)
{
    expect_unreached_gateway_warning("cards", "wallet", "", "", "$.services[2]",
                                     "nothing charges through the gateway");
    expect_unreached_gateway_warning("wallet", "cards", ", \"timeout_ms\": 800", "",
                                     "$.services[3]", "nothing charges through gateway 'wallet'");
    /* a link to it from a node work reaches carries nothing either */
    expect_unreached_gateway_warning("wallet", "cards", "",
                                     ", \"network\": {\"links\": {\"billing->wallet\": "
                                     "{\"loss\": 0.2}}}",
                                     "$.network.links.billing->wallet", "no work reaches 'wallet'");
}
END_TEST

/* A link between two nodes work reaches carries nothing when neither calls the other: the
 * checkout charges at cards, never at the wallet; the billing consumers' link to the wallet
 * carries their charges and is not warned of. */
START_TEST(test_a_link_between_nodes_that_never_talk_is_warned_of)
{
    static const struct {
        const char *link;
        bool warned;
    } cases[] = {
        {"checkout->wallet", true}, {"web->cards", true},         {"wallet->billing", false},
        {"checkout->cards", false}, {"renewals->billing", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char override[128];
        snprintf(override, sizeof override, "network.links={\"%s\": {\"loss\": 0.1}}",
                 cases[i].link);
        const char *overrides[] = {override};
        Scenario *scenario = test_load(PROVIDERS(BILLING_CALLS_WALLET, "", ""), overrides, 1);
        LoadErrors *warnings = calloc(1, sizeof *warnings);
        ck_assert_ptr_nonnull(warnings);
        scenario_inert_warnings(scenario, warnings);
        char path[96];
        snprintf(path, sizeof path, "$.network.links.%s", cases[i].link);
        bool found = false;
        for (uint32_t w = 0; w < warnings->count; w++)
            found |= strcmp(warnings->items[w].path, path) == 0 &&
                     strstr(warnings->items[w].message, "exchange no message") != NULL;
        ck_assert_msg(found == cases[i].warned, "%s: warned %d", cases[i].link, found);
        free(warnings);
        free(scenario);
    }
}
END_TEST

/* A handler has one call step: the servers' calls end at one gateway and the consumers' at
 * one, so one extra gateway is all a world can charge at; a third is refused at its kind. */
START_TEST(test_at_most_one_gateway_after_the_first)
{
    char json[4096];
    int used = snprintf(json, sizeof json,
                        "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000}],"
                        " \"services\": [{\"id\": \"checkout\", \"kind\": \"server\","
                        " \"steps\": [{\"call\": \"g0\"}]}");
    for (int g = 0; g < 3; g++)
        used += snprintf(json + used, sizeof json - (size_t)used,
                         ", {\"id\": \"g%d\", \"kind\": \"gateway\"}", g);
    snprintf(json + used, sizeof json - (size_t)used,
             "], \"clients\": [{\"id\": \"web\", \"calls\": \"checkout\"}]}");
    test_assert_refused(json, NULL, 0, "$.services[3].kind",
                        "expected at most one gateway after the first");
}
END_TEST

/* Show writes each gateway in its place, with its own fields, and reads back to the same. */
START_TEST(test_show_keeps_each_gateway)
{
    Scenario *scenario = test_load(
        PROVIDERS(BILLING_CALLS_WALLET, ", \"honours_key\": true", ", \"fail\": 0.25"), NULL, 0);
    ck_assert_uint_eq(scenario->extra_gateway_count, 1);
    ck_assert_str_eq(scenario->extra_gateways[0].id, "wallet");
    ck_assert_uint_eq(scenario->broker.consumers.call_gateway, 1);
    ck_assert_uint_eq(scenario->server.call_gateway, 0);
    char *shown = NULL;
    Scenario *again = test_show_again(scenario, &shown);
    const char *cards = strstr(shown, "\"id\": \"cards\"");
    const char *wallet = strstr(shown, "\"id\": \"wallet\"");
    ck_assert_ptr_nonnull(cards);
    ck_assert_ptr_nonnull(wallet);
    ck_assert_msg(cards < wallet, "show writes the first gateway first");
    ck_assert_uint_eq(again->extra_gateway_count, 1);
    ck_assert(again->gateway.honours_key);
    ck_assert_double_eq(again->extra_gateways[0].spec.fail, 0.25);
    ck_assert_uint_eq(again->broker.consumers.call_gateway, 1);
    free(again);
    free(shown);
    free(scenario);
}
END_TEST

/* The declined outcome exists only where a gateway that may decline is reached: an extra
 * gateway only the first server charges at, while every group publishes, declines nothing. */
START_TEST(test_an_unreached_gateway_declines_nothing)
{
    const char *json =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 100000}],"
        " \"services\": ["
        "  {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"k\","
        "   \"steps\": [{\"call\": \"wallet\"}]},"
        "  {\"id\": \"k\", \"kind\": \"key_store\"},"
        "  {\"id\": \"cards\", \"kind\": \"gateway\"},"
        "  {\"id\": \"wallet\", \"kind\": \"gateway\", \"fail\": 0.2},"
        "  {\"id\": \"renewals\", \"kind\": \"broker\"},"
        "  {\"id\": \"billing\", \"kind\": \"consumers\", \"consumes\": \"renewals\","
        "   \"key_store\": \"bk\", \"steps\": [{\"call\": \"cards\"}]},"
        "  {\"id\": \"bk\", \"kind\": \"key_store\"}],"
        " \"clients\": [{\"id\": \"web\", \"publishes\": \"renewals\"}]}";
    Scenario *scenario = test_load(json, NULL, 0);
    ck_assert(!scenario_can_decline(scenario));
    const char *overrides[] = {"services.cards.fail=0.2"};
    Scenario *declining = test_load(json, overrides, 1);
    ck_assert(scenario_can_decline(declining));
    free(declining);
    free(scenario);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("extra_gateways");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_each_call_waits_its_own_gateway);
    tcase_add_test(model, test_each_gateway_honours_keys_by_its_own_field);
    tcase_add_test(model, test_a_refund_goes_to_the_gateway_that_charged);
    tcase_add_test(model, test_reconciliation_asks_the_gateway_that_charged);
    tcase_add_test(model, test_an_extra_gateway_is_a_node_after_its_caller);
    tcase_add_test(model, test_a_gateway_fault_names_its_gateway);
    suite_add_tcase(suite, model);
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, test_an_undo_refunds_where_the_call_charged);
    tcase_add_test(loader, test_manual_capture_stays_with_one_gateway);
    tcase_add_test(loader, test_every_gateway_is_called);
    tcase_add_test(loader, test_an_unreached_gateway_is_warned_of);
    tcase_add_test(loader, test_a_link_between_nodes_that_never_talk_is_warned_of);
    tcase_add_test(loader, test_at_most_one_gateway_after_the_first);
    tcase_add_test(loader, test_a_fault_names_a_gateway_there_is);
    tcase_add_test(loader, test_show_keeps_each_gateway);
    tcase_add_test(loader, test_an_unreached_gateway_declines_nothing);
    suite_add_tcase(suite, loader);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
