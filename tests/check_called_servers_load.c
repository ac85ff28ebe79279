/* Several servers in `services` (issue 21): the first server entry is the one client groups
 * call, each later one a called server that a call step of a server listed before it names.
 * These tests load, refuse and show such files; the model's side (running them) is tested
 * where the model is. The bad-input corpus (tests/bad_scenarios/called_server*.json) holds
 * every refusal's exact line; here one of each rule is asserted with its path. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node_kind.h"
#include "scenario.h"
#include "scenario_inert.h"
#include "scenario_schema.h"

/* ------------------------------------------------------------------ helpers */

static Scenario *load_good(const char *text)
{
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert_ptr_nonnull(scenario);
    if (!scenario_load_text(text, strlen(text), NULL, 0, scenario, &errors)) {
        char *lines = NULL;
        size_t length = 0;
        FILE *stream = open_memstream(&lines, &length);
        scenario_print_errors(stream, "text", &errors);
        fclose(stream);
        ck_abort_msg("text did not load:\n%s\n%s", text, lines);
    }
    return scenario;
}

/* The errors of a text that must not load, one "PATH: MESSAGE" a line (malloc'd). */
static char *load_bad(const char *text)
{
    Scenario *scenario = malloc(sizeof *scenario);
    LoadErrors errors;
    ck_assert_ptr_nonnull(scenario);
    bool ok = scenario_load_text(text, strlen(text), NULL, 0, scenario, &errors);
    free(scenario);
    ck_assert_msg(!ok, "text loaded but should not have:\n%s", text);
    char *lines = NULL;
    size_t length = 0;
    FILE *stream = open_memstream(&lines, &length);
    for (uint32_t i = 0; i < errors.count; i++)
        fprintf(stream, "%s: %s\n", errors.items[i].path, errors.items[i].message);
    fclose(stream);
    return lines;
}

static void assert_error(const char *text, const char *path, const char *words)
{
    char *lines = load_bad(text);
    char wanted[256];
    snprintf(wanted, sizeof wanted, "%s: ", path);
    const char *line = strstr(lines, wanted);
    ck_assert_msg(line != NULL, "no error at %s in:\n%s", path, lines);
    size_t length = strcspn(line, "\n");
    char found[512];
    snprintf(found, sizeof found, "%.*s", (int)length, line);
    ck_assert_msg(strstr(found, words) != NULL, "error at %s does not say '%s':\n%s", path, words,
                  lines);
    free(lines);
}

/* The world: checkout calls payments, which charges at the provider. */
#define ACCOUNTS "\"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
#define CHECKOUT_CALLS(step)                                                                       \
    "{\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","               \
    " \"steps\": [" step "]},"                                                                     \
    "{\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"
#define PAYMENTS(fields, step)                                                                     \
    "{\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"payments-keys\"" fields         \
    ", \"steps\": [" step "]},"                                                                    \
    "{\"id\": \"payments-keys\", \"kind\": \"key_store\"},"
#define PROVIDER(fields) "{\"id\": \"provider\", \"kind\": \"gateway\"" fields "}"
#define DEBITS                                                                                     \
    "\"clients\": [{\"id\": \"app\", \"calls\": \"checkout\","                                     \
    " \"operation\": {\"kind\": \"debit\", \"amount\": 5}}]"
#define WORLD(services, rest) "{" ACCOUNTS "\"services\": [" services "], " DEBITS rest "}"

static const char brief_example[] = WORLD(
    CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 800, \"retry\": {\"max_attempts\": 3,"
                   " \"backoff_ms\": 100}, \"key\": \"forward\"}")
        PAYMENTS(", \"workers\": 2", "{\"call\": \"provider\", \"key\": \"derive\"}")
            PROVIDER(", \"honours_key\": true"),
    "");

/* ------------------------------------------------------------------ loading */

START_TEST(test_a_later_server_is_a_called_server)
{
    Scenario *s = load_good(brief_example);
    ck_assert_str_eq(scenario_service_id(s, NODE_SERVER), "checkout");
    ck_assert_uint_eq(s->called_server_count, 1);
    const CalledServerSpec *payments = &s->called_servers[0];
    ck_assert_str_eq(payments->id, "payments");
    ck_assert_uint_eq(payments->entry, 3); /* $.services[2], plus one */
    ck_assert_uint_eq(s->service_entry[NODE_SERVER], 1);
    /* the caller: its call step is the call to payments, with its own retry, key, timeout */
    ck_assert(s->server.use_gateway);
    ck_assert_uint_eq(s->server.call_server, 1);
    ck_assert_uint_eq(s->server.call.retry.max_attempts, 3);
    ck_assert_double_eq(s->server.call.retry.backoff_ms, 100);
    ck_assert_double_eq(s->server.call.timeout_ms, 800);
    ck_assert_int_eq(s->server.call.key, CALL_KEY_FORWARD);
    ck_assert_str_eq(s->server.idempotency.store_id, "checkout-keys");
    /* the called server: its fields, its store and its charge at the gateway */
    ck_assert_uint_eq(payments->spec.workers, 2);
    ck_assert(payments->spec.use_gateway);
    ck_assert_uint_eq(payments->spec.call_server, 0);
    ck_assert_int_eq(payments->spec.call.key, CALL_KEY_DERIVE);
    ck_assert_str_eq(payments->spec.idempotency.store_id, "payments-keys");
    free(s);
}
END_TEST

/* A called server starts from the same defaults as the clients' server. */
START_TEST(test_a_called_server_starts_from_the_servers_defaults)
{
    Scenario *s = load_good(brief_example);
    ServerSpec plain;
    scenario_services_server_defaults(&plain);
    const ServerSpec *payments = &s->called_servers[0].spec;
    ck_assert_uint_eq(payments->instances, 1);
    ck_assert_uint_eq(payments->queue, SERVER_QUEUE_UNBOUNDED);
    ck_assert_int_eq(payments->service_ms.kind, plain.service_ms.kind);
    ck_assert_double_eq(payments->service_ms.a, plain.service_ms.a);
    ck_assert_double_eq(payments->service_ms.b, plain.service_ms.b);
    ck_assert_double_eq(payments->crash.restart_ms, plain.crash.restart_ms);
    ck_assert_double_eq(payments->outbox_relay_ms, plain.outbox_relay_ms);
    ck_assert_double_eq(payments->idempotency.ttl_ms, plain.idempotency.ttl_ms);
    ck_assert_int_eq(payments->idempotency.on_in_progress, 409);
    ck_assert_int_eq(payments->undo.call.key, CALL_KEY_DERIVE);
    ck_assert_uint_eq(payments->call.retry.max_attempts, 1);
    ck_assert_double_eq(payments->call.timeout_ms, 0);
    /* the clients' server, given no workers, keeps the default */
    ck_assert_uint_eq(s->server.workers, plain.workers);
    free(s);
}
END_TEST

/* A chain: checkout -> payments -> ledger -> provider, in a file that lists the gateway first. */
static const char chain[] =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "  {\"id\": \"provider\", \"kind\": \"gateway\", \"honours_key\": true},"
    "  {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","
    "   \"steps\": [{\"call\": \"payments\", \"timeout_ms\": 900}]},"
    "  {\"id\": \"checkout-keys\", \"kind\": \"key_store\"},"
    "  {\"id\": \"payments\", \"kind\": \"server\", \"key_store\": \"payments-keys\","
    "   \"workers\": 3,"
    "   \"steps\": [{\"call\": \"ledger\", \"timeout_ms\": 500, \"key\": \"derive\","
    "               \"retry\": {\"max_attempts\": 2, \"backoff_ms\": 50}}]},"
    "  {\"id\": \"payments-keys\", \"kind\": \"key_store\"},"
    "  {\"id\": \"ledger\", \"kind\": \"server\", \"key_store\": \"ledger-keys\","
    "   \"service_ms\": {\"dist\": \"const\", \"value\": 3},"
    "   \"steps\": [{\"call\": \"provider\", \"key\": \"none\"}]},"
    "  {\"id\": \"ledger-keys\", \"kind\": \"key_store\", \"ttl_ms\": 5000}],"
    " \"clients\": [{\"id\": \"app\", \"calls\": \"checkout\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 5}}],"
    " \"network\": {\"links\": {\"checkout->payments\": {\"loss\": 0.1},"
    "   \"ledger->provider\": {\"loss\": 0.2}}},"
    " \"expect\": {\"idempotent\": {\"runs@ledger\": {\"min\": 0}}}}";

START_TEST(test_called_servers_keep_their_order_and_calls)
{
    Scenario *s = load_good(chain);
    ck_assert_uint_eq(s->called_server_count, 2);
    ck_assert_str_eq(s->called_servers[0].id, "payments");
    ck_assert_str_eq(s->called_servers[1].id, "ledger");
    ck_assert_uint_eq(s->server.call_server, 1);
    ck_assert_uint_eq(s->called_servers[0].spec.call_server, 2);
    ck_assert_uint_eq(s->called_servers[1].spec.call_server, 0);
    ck_assert_uint_eq(s->called_servers[0].spec.call.retry.max_attempts, 2);
    ck_assert_int_eq(s->called_servers[1].spec.call.key, CALL_KEY_NONE);
    ck_assert_double_eq(s->called_servers[1].spec.idempotency.ttl_ms, 5000);
    ck_assert_str_eq(s->network.links[0].source, "checkout");
    ck_assert_str_eq(s->network.links[0].target, "payments");
    ck_assert_str_eq(s->network.links[1].source, "ledger");
    free(s);
}
END_TEST

/* ------------------------------------------------------------------ reach and node names */

START_TEST(test_the_gateway_is_reached_through_a_called_server)
{
    Scenario *s = load_good(chain);
    ck_assert(node_servers_charge(s));
    ck_assert(node_kind_reached(s, NODE_GATEWAY));
    ck_assert(node_called_server_reached(s, 0));
    ck_assert(node_called_server_reached(s, 1));
    ck_assert(!node_called_server_reached(s, 2));
    ck_assert_uint_eq(node_servers_called(s), 7u);
    free(s);
    /* payments books locally: nothing charges at a gateway, and a declared one is refused */
    s = load_good("{" ACCOUNTS "\"services\": [" CHECKOUT_CALLS(
        "{\"call\": \"payments\", \"timeout_ms\": 500}") "{\"id\": \"payments\", \"kind\": "
                                                         "\"server\", \"key_store\": "
                                                         "\"pk\"},"
                                                         "{\"id\": \"pk\", \"kind\": "
                                                         "\"key_store\"}], " DEBITS "}");
    ck_assert(!node_servers_charge(s));
    ck_assert(!node_kind_reached(s, NODE_GATEWAY));
    ck_assert(node_called_server_reached(s, 0));
    free(s);
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}")
                           PAYMENTS("", "{\"effect\": \"local\"}") PROVIDER(""),
                       ""),
                 "$.services[4]", "expected a step that calls gateway 'provider'");
}
END_TEST

START_TEST(test_node_names_end_with_the_called_servers)
{
    static const char json[] = WORLD(
        "{\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"checkout-keys\","
        " \"instances\": 2, \"steps\": [{\"call\": \"payments\", \"timeout_ms\": 500}]},"
        "{\"id\": \"checkout-keys\", \"kind\": \"key_store\", \"crash\": {\"every_ms\": 5000}},"
        " " PAYMENTS("", "{\"call\": \"provider\"}") PROVIDER(""),
        "");
    Scenario *s = load_good(json);
    char names[SCENARIO_NODES_MAX][NODE_NAME_LEN_MAX];
    unsigned count = scenario_service_node_names(s, names, SCENARIO_NODES_MAX);
    const char *const expected[] = {"checkout#1", "provider",      "broker",  "consumers",
                                    "checkout#2", "checkout-keys", "payments"};
    ck_assert_uint_eq(count, sizeof expected / sizeof expected[0]);
    for (unsigned i = 0; i < count; i++)
        ck_assert_str_eq(names[i], expected[i]);
    ck_assert(scenario_service_name_known(s, "payments"));
    ck_assert(!scenario_service_name_known(s, "payments-keys"));
    free(s);
}
END_TEST

/* ------------------------------------------------------------------ refusals */

START_TEST(test_calls_go_down_the_list)
{
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}")
                           PAYMENTS("", "{\"call\": \"checkout\"}") PROVIDER(""),
                       ""),
                 "$.services[2].steps[0].call", "calls go down the list, so they cannot loop");
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}") PAYMENTS(
                           "", "{\"call\": \"payments\", \"timeout_ms\": 500}") PROVIDER(""),
                       ""),
                 "$.services[2].steps[0].call", "itself");
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"checkout\"}") PROVIDER(""), ""),
                 "$.services[0].steps[0].call", "listed after 'checkout'");
}
END_TEST

START_TEST(test_a_called_server_needs_a_caller)
{
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"provider\"}")
                           PAYMENTS("", "{\"effect\": \"local\"}") PROVIDER(""),
                       ""),
                 "$.services[2].kind",
                 "expected a call step of a server listed before it, or of the consumer group, "
                 "to name 'payments' (client groups call the first server, 'checkout')");
}
END_TEST

START_TEST(test_client_groups_and_a_proxy_call_the_first_server)
{
    static const char groups[] =
        "{" ACCOUNTS
        "\"services\": [" CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}") PAYMENTS(
            "",
            "{\"effect\": \"local\"}") "{\"id\": \"mesh\", "
                                       "\"kind\": \"proxy\","
                                       " \"calls\": "
                                       "\"payments\"}],"
                                       " \"clients\": [{\"id\": \"app\", \"calls\": \"payments\"},"
                                       " {\"id\": \"web\", \"calls\": \"mesh\"}]}";
    assert_error(groups, "$.clients[0].calls", "expected the first server, 'checkout'");
    assert_error(groups, "$.services[4].calls", "expected the first server, 'checkout'");
}
END_TEST

START_TEST(test_at_most_three_called_servers)
{
    static const char json[] =
        "{" ACCOUNTS "\"services\": ["
        "{\"id\": \"s0\", \"kind\": \"server\", \"key_store\": \"k0\", \"steps\": [{\"call\": "
        "\"s1\", \"timeout_ms\": 500}]},"
        "{\"id\": \"s1\", \"kind\": \"server\", \"key_store\": \"k1\", \"steps\": [{\"call\": "
        "\"s2\", \"timeout_ms\": 500}]},"
        "{\"id\": \"s2\", \"kind\": \"server\", \"key_store\": \"k2\", \"steps\": [{\"call\": "
        "\"s3\", \"timeout_ms\": 500}]},"
        "{\"id\": \"s3\", \"kind\": \"server\", \"key_store\": \"k3\", \"steps\": [{\"call\": "
        "\"s4\", \"timeout_ms\": 500}]},"
        "{\"id\": \"s4\", \"kind\": \"server\", \"key_store\": \"k4\"},"
        "{\"id\": \"k0\", \"kind\": \"key_store\"}, {\"id\": \"k1\", \"kind\": \"key_store\"},"
        "{\"id\": \"k2\", \"kind\": \"key_store\"}, {\"id\": \"k3\", \"kind\": \"key_store\"},"
        "{\"id\": \"k4\", \"kind\": \"key_store\"}],"
        " \"clients\": [{\"id\": \"c\", \"calls\": \"s0\"}]}";
    char *lines = load_bad(json);
    ck_assert_str_eq(lines, "$.services[4].kind: expected at most 3 servers after the first, "
                            "$.services[0] (each later one is called by a server's call step)\n");
    free(lines);
}
END_TEST

/* A called server's id names a node: a client group may not take it. */
START_TEST(test_a_client_group_may_not_take_a_called_servers_name)
{
    assert_error("{" ACCOUNTS "\"services\": [" CHECKOUT_CALLS(
                     "{\"call\": \"payments\", \"timeout_ms\": 500}") "{\"id\": \"payments\", "
                                                                      "\"kind\": \"server\", "
                                                                      "\"key_store\": \"pk\"},"
                                                                      "{\"id\": \"pk\", \"kind\": "
                                                                      "\"key_store\"}],"
                                                                      " \"clients\": [{\"id\": "
                                                                      "\"payments\", \"calls\": "
                                                                      "\"checkout\"}]}",
                 "$.clients[0].id", "expected id other than the node names");
}
END_TEST

/* Ids stay unique, and a third broker is one too many (a store several servers name is
 * tested in check_shared_key_store). */
START_TEST(test_other_kinds_stay_one_each)
{
    assert_error(
        WORLD(CHECKOUT_CALLS("{\"call\": \"provider\"}") PROVIDER("") "," PROVIDER(""), ""),
        "$.services[3].id", "duplicate id 'provider'");
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"p1\"}") "{\"id\": \"p1\", \"kind\": "
                                                            "\"gateway\"}, {\"id\": \"q1\", "
                                                            "\"kind\": \"broker\"}, {\"id\": "
                                                            "\"q2\", \"kind\": \"broker\"}, "
                                                            "{\"id\": \"q3\", \"kind\": "
                                                            "\"broker\"}",
                       ""),
                 "$.services[5].kind", "expected at most one broker after the first");
}
END_TEST

START_TEST(test_what_a_called_server_refuses)
{
    static const struct {
        const char *fields, *key, *words;
    } cases[] = {
        {", \"deadline\": \"drop\"", "deadline", "expected 'none' on a called server"},
        {", \"stale_connections\": 0.1", "stale_connections", "expected 0"},
        {", \"outbox_relay_ms\": 10", "outbox_relay_ms", "expected the default"},
        /* an outage is a called server's too, but within the run */
        {", \"outage\": {\"from_ms\": 120000, \"to_ms\": 130000}", "outage.from_ms",
         "the outage would begin after the run"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{" ACCOUNTS "\"services\": [" CHECKOUT_CALLS(
                     "{\"call\": \"payments\", \"timeout_ms\": 500}") "{\"id\": \"payments\", "
                                                                      "\"kind\": \"server\", "
                                                                      "\"key_store\": "
                                                                      "\"payments-keys\"%s},"
                                                                      "{\"id\": \"payments-keys\", "
                                                                      "\"kind\": "
                                                                      "\"key_store\"}], " DEBITS
                                                                      "}",
                 cases[i].fields);
        char path[64];
        snprintf(path, sizeof path, "$.services[2].%s", cases[i].key);
        assert_error(json, path, cases[i].words);
    }
}
END_TEST

START_TEST(test_a_called_servers_steps_and_store)
{
    /* a call to a server says how long it waits: a gateway's timeout is the gateway's own */
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\"}")
                           PAYMENTS("", "{\"call\": \"provider\"}") PROVIDER(""),
                       ""),
                 "$.services[0].steps[0]", "missing required key 'timeout_ms' on a call to server");
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}") PAYMENTS(
                           "", "{\"call\": \"provider\"}, {\"fulfil\": \"local\"}") PROVIDER(""),
                       ""),
                 "$.services[2].steps[1]", "expected no fulfil step on called server 'payments'");
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}")
                           PAYMENTS("", "{\"call\": \"provider\", \"undo\": {\"refund\": "
                                        "\"provider\"}}") PROVIDER(""),
                       ""),
                 "$.services[2].steps[0].undo", "expected no undo on called server 'payments'");
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}") PAYMENTS(
                           "", "{\"call\": \"provider\", \"reconcile_ms\": 100}") PROVIDER(""),
                       ""),
                 "$.services[2].steps[0].reconcile_ms", "expected 0 on called server 'payments'");
    assert_error(
        WORLD(CHECKOUT_CALLS(
                  "{\"call\": \"payments\", \"timeout_ms\": 500}") "{\"id\": \"payments\", "
                                                                   "\"kind\": \"server\", "
                                                                   "\"key_store\": \"pk\"},"
                                                                   "{\"id\": \"pk\", \"kind\": "
                                                                   "\"key_store\", \"crash\": {}}",
              ""),
        "$.services[3].crash", "expected no 'crash' in a called server's store");
}
END_TEST

START_TEST(test_a_call_to_a_server_relays_nothing)
{
    assert_error(
        WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500, \"via\": \"outbox\"}")
                  PAYMENTS("", "{\"effect\": \"local\"}") PROVIDER(""),
              ""),
        "$.services[0].steps[0].via", "on a call to server 'payments'");
    assert_error(
        WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500, \"undo\": {\"refund\": "
                             "\"provider\"}}, {\"fulfil\": \"local\", \"fail\": 0.5}")
                  PAYMENTS("", "{\"call\": \"provider\"}") PROVIDER(""),
              ""),
        "$.services[0].steps[0].undo", "expected no undo on a call to server 'payments'");
    assert_error(WORLD(CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500}") PAYMENTS(
                           "", "{\"call\": \"provider\"}") PROVIDER(", \"capture\": \"manual\""),
                       ""),
                 "$.services[4].capture", "a server calls another server");
}
END_TEST

/* A recovery point commits with a local effect only: a server whose step is a call, to a
 * gateway or to a server, may not resume (the first server's included, as in the older
 * form). */
START_TEST(test_no_resume_after_a_call)
{
    assert_error(
        "{" ACCOUNTS "\"services\": [" CHECKOUT_CALLS(
            "{\"call\": \"payments\", \"timeout_ms\": 500}") "{\"id\": \"payments\", \"kind\": "
                                                             "\"server\", "
                                                             "\"key_store\": \"pk\","
                                                             " \"steps\": [{\"call\": "
                                                             "\"provider\"}]},"
                                                             "{\"id\": \"pk\", \"kind\": "
                                                             "\"key_store\", \"on_failure\": "
                                                             "\"resume\"}," PROVIDER(
                                                                 "") "], " DEBITS "}",
        "$.services[3].on_failure", "expected no \"resume\" while 'payments' calls");
    assert_error("{" ACCOUNTS "\"services\": [{\"id\": \"checkout\", \"kind\": \"server\","
                 " \"key_store\": \"ck\", \"steps\": [{\"call\": \"provider\"}]},"
                 "{\"id\": \"ck\", \"kind\": \"key_store\", \"on_failure\": "
                 "{\"ambiguous\": \"resume\"}}," PROVIDER("") "], " DEBITS "}",
                 "$.services[1].on_failure", "expected no \"resume\" while 'checkout' calls");
}
END_TEST

/* A debit's balance update is the handler's own write: a call to a server makes it that
 * server's, so another update than atomic is refused there as for a gateway's charge. */
START_TEST(test_a_debit_passed_on_updates_atomically)
{
    assert_error("{" ACCOUNTS "\"services\": [" CHECKOUT_CALLS(
                     "{\"call\": \"payments\", \"timeout_ms\": 500}") "{\"id\": \"payments\", "
                                                                      "\"kind\": \"server\", "
                                                                      "\"key_store\": \"pk\"},"
                                                                      "{\"id\": \"pk\", \"kind\": "
                                                                      "\"key_store\"}],"
                                                                      " \"clients\": [{\"id\": "
                                                                      "\"app\", \"calls\": "
                                                                      "\"checkout\", \"operation\":"
                                                                      " {\"kind\": \"debit\", "
                                                                      "\"amount\": 5, "
                                                                      "\"update\": "
                                                                      "\"read-modify-write\"}}]}",
                 "$.clients[0].operation.update", "a call to another server");
}
END_TEST

/* Nothing that does nothing passes silently on a called server: its call's and its store's
 * fields are judged as the first server's, at its own entries; the key of a call to a server
 * is read by that server's store, so it is not said to do nothing. */
START_TEST(test_inert_fields_of_a_called_server_are_warned_at_its_entries)
{
    static const char json[] = WORLD(
        CHECKOUT_CALLS("{\"call\": \"payments\", \"timeout_ms\": 500, \"key\": \"derive\"}")
            PAYMENTS("",
                     "{\"call\": \"provider\", \"key\": \"derive\", \"retry\": {\"backoff_ms\": "
                     "7}}") "{\"id\": \"provider\", \"kind\": \"gateway\"}",
        ", \"modes\": [\"idempotent\"]");
    char text[sizeof json + 64];
    snprintf(text, sizeof text, "%s", json);
    /* the store of payments: a race window an atomic reservation never opens */
    char *store = strstr(text, "{\"id\": \"payments-keys\", \"kind\": \"key_store\"");
    ck_assert_ptr_nonnull(store);
    const char *rest = store + strlen("{\"id\": \"payments-keys\", \"kind\": \"key_store\"");
    char tail[sizeof text];
    snprintf(tail, sizeof tail, "%s", rest);
    snprintf(store, sizeof text - (size_t)(store - text),
             "{\"id\": \"payments-keys\", \"kind\": \"key_store\", \"race_window_ms\": 50%s", tail);
    Scenario *s = load_good(text);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    ck_assert_ptr_nonnull(warnings);
    scenario_inert_warnings(s, warnings);
    const char *const expected[][2] = {
        {"$.services[2].steps[0].retry.backoff_ms", "has no effect with max_attempts 1"},
        {"$.services[2].steps[0].key", "the gateway neither honours keys"},
        {"$.services[3].race_window_ms", "unless reserve is 'check-then-insert'"},
    };
    ck_assert_uint_eq(warnings->count, sizeof expected / sizeof expected[0]);
    for (uint32_t i = 0; i < warnings->count; i++) {
        ck_assert_str_eq(warnings->items[i].path, expected[i][0]);
        ck_assert_ptr_nonnull(strstr(warnings->items[i].message, expected[i][1]));
    }
    free(warnings);
    free(s);
}
END_TEST

/* ------------------------------------------------------------------ show */

/* show writes each called server as a server entry right after the first server and its
 * store, its store after it, the call steps naming them; the printed file loads back to the
 * same scenario and prints again unchanged. */
START_TEST(test_show_writes_called_servers_and_reads_them_back)
{
    Scenario *s = load_good(chain);
    char *text = scenario_show(s);
    ck_assert_ptr_nonnull(text);
    const char *const in_order[] = {"\"id\": \"checkout\"", "\"id\": \"checkout-keys\"",
                                    "\"id\": \"payments\"", "\"id\": \"payments-keys\"",
                                    "\"id\": \"ledger\"",   "\"id\": \"ledger-keys\"",
                                    "\"id\": \"provider\""};
    const char *at = text;
    for (size_t i = 0; i < sizeof in_order / sizeof in_order[0]; i++) {
        const char *next = strstr(at, in_order[i]);
        ck_assert_msg(next != NULL, "%s missing or out of order in:\n%s", in_order[i], text);
        at = next;
    }
    ck_assert_ptr_nonnull(strstr(text, "\"call\": \"payments\""));
    ck_assert_ptr_nonnull(strstr(text, "\"call\": \"ledger\""));
    ck_assert_ptr_nonnull(strstr(text, "\"checkout->payments\""));
    /* a called server runs one instance: its balancing is not written (it would be refused) */
    const char *payments = strstr(text, "\"id\": \"payments\"");
    const char *payments_end = strstr(payments, "\"id\": \"payments-keys\"");
    const char *instances = strstr(payments, "\"instances\"");
    ck_assert(instances == NULL || instances > payments_end);
    Scenario *shown = load_good(text);
    ck_assert_uint_eq(shown->called_server_count, 2);
    for (uint32_t c = 0; c < 2; c++) {
        const ServerSpec *a = &s->called_servers[c].spec;
        const ServerSpec *b = &shown->called_servers[c].spec;
        ck_assert_str_eq(s->called_servers[c].id, shown->called_servers[c].id);
        ck_assert_uint_eq(a->call_server, b->call_server);
        ck_assert(a->use_gateway == b->use_gateway);
        ck_assert_uint_eq(a->workers, b->workers);
        ck_assert_int_eq(a->service_ms.kind, b->service_ms.kind);
        ck_assert_uint_eq(a->call.retry.max_attempts, b->call.retry.max_attempts);
        ck_assert_double_eq(a->call.retry.backoff_ms, b->call.retry.backoff_ms);
        ck_assert_int_eq(a->call.key, b->call.key);
        ck_assert_double_eq(a->call.timeout_ms, b->call.timeout_ms);
        ck_assert_str_eq(a->idempotency.store_id, b->idempotency.store_id);
        ck_assert_double_eq(a->idempotency.ttl_ms, b->idempotency.ttl_ms);
    }
    ck_assert_uint_eq(shown->server.call_server, 1);
    ck_assert_double_eq(shown->server.call.timeout_ms, 900);
    ck_assert_uint_eq(shown->network.link_count, 2);
    char *again = scenario_show(shown);
    ck_assert_str_eq(text, again); /* show writes every field: equal texts, equal scenarios */
    free(again);
    free(shown);
    free(text);
    free(s);
}
END_TEST

/* ------------------------------------------------------------------ the suite */

/* A consumer group's call step may name a server, the first or a called one (a ledger
 * service): its timeout_ms is required, an undo refused (a refund is a gateway's). */
#define CONSUMERS_CALL(step)                                                                       \
    "{" ACCOUNTS "\"services\": [{\"id\": \"bus\", \"kind\": \"broker\"},"                         \
    "{\"id\": \"charger\", \"kind\": \"consumers\", \"consumes\": \"bus\", \"key_store\": \"ck\"," \
    " \"steps\": [" step "]}, {\"id\": \"ck\", \"kind\": \"key_store\"},"                          \
    "{\"id\": \"ledger\", \"kind\": \"server\", \"key_store\": \"lk\"},"                           \
    "{\"id\": \"lk\", \"kind\": \"key_store\"}],"                                                  \
    " \"clients\": [{\"id\": \"api\", \"publishes\": \"bus\","                                     \
    " \"operation\": {\"kind\": \"debit\", \"amount\": 5}}]}"

START_TEST(test_a_consumer_group_may_call_a_server)
{
    Scenario *s = load_good(CONSUMERS_CALL("{\"call\": \"ledger\", \"timeout_ms\": 500}"));
    ck_assert(s->broker.consumers.use_gateway);
    ck_assert(s->broker.consumers.calls_first_server);
    ck_assert_uint_eq(s->broker.consumers.call_server, 0);
    ck_assert(node_kind_reached(s, NODE_SERVER)); /* reached by the consumers alone */
    ck_assert(!node_kind_reached(s, NODE_GATEWAY));
    free(s);
    assert_error(CONSUMERS_CALL("{\"call\": \"ledger\"}"), "$.services[1].steps[0]",
                 "missing required key 'timeout_ms' on a call to server 'ledger'");
    assert_error(CONSUMERS_CALL("{\"call\": \"ledger\", \"timeout_ms\": 500, \"undo\": "
                                "{\"refund\": \"ledger\"}}"),
                 "$.services[1].steps[0].undo", "expected no undo on a call to server 'ledger'");
}
END_TEST

static Suite *called_servers_suite(void)
{
    Suite *suite = suite_create("called_servers_load");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_later_server_is_a_called_server);
    tcase_add_test(core, test_a_consumer_group_may_call_a_server);
    tcase_add_test(core, test_a_called_server_starts_from_the_servers_defaults);
    tcase_add_test(core, test_called_servers_keep_their_order_and_calls);
    tcase_add_test(core, test_the_gateway_is_reached_through_a_called_server);
    tcase_add_test(core, test_node_names_end_with_the_called_servers);
    tcase_add_test(core, test_calls_go_down_the_list);
    tcase_add_test(core, test_a_called_server_needs_a_caller);
    tcase_add_test(core, test_client_groups_and_a_proxy_call_the_first_server);
    tcase_add_test(core, test_at_most_three_called_servers);
    tcase_add_test(core, test_a_client_group_may_not_take_a_called_servers_name);
    tcase_add_test(core, test_other_kinds_stay_one_each);
    tcase_add_test(core, test_what_a_called_server_refuses);
    tcase_add_test(core, test_a_called_servers_steps_and_store);
    tcase_add_test(core, test_a_call_to_a_server_relays_nothing);
    tcase_add_test(core, test_no_resume_after_a_call);
    tcase_add_test(core, test_a_debit_passed_on_updates_atomically);
    tcase_add_test(core, test_inert_fields_of_a_called_server_are_warned_at_its_entries);
    tcase_add_test(core, test_show_writes_called_servers_and_reads_them_back);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(called_servers_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
