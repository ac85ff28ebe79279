/* Inert configuration (issue 24, item 3): each rule of scenario_inert.c as a pair, a field
 * set where the model never reads it (a warning naming its $.path) and its twin, the same
 * field set where it is live (no warning at that path). A rule that warned always, or never,
 * fails one side of its pair. Times after duration_ms that can never come are errors. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "scenario_inert.h"

/* A small scenario calling the server, every mode, a short run. */
static const char base_scenario[] =
    "{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 2}]}";

#define SETS_MAX 6

typedef struct {
    const char *path;           /* the warning's $.path */
    const char *sets[SETS_MAX]; /* --set overrides: the field where it is inert */
    const char *twin[SETS_MAX]; /* the same field where it is live */
} InertCase;

/* clang-format off */
static const InertCase cases[] = {
    /* client groups: retries */
    {"$.clients[0].retry.budget",
     {"clients[0].retry.max_attempts=1", "clients[0].retry.budget={\"ratio\": 0.2}"},
     {"clients[0].retry.max_attempts=2", "clients[0].retry.budget={\"ratio\": 0.2}"}},
    {"$.clients[0].retry.honour_retry_after",
     {"clients[0].retry.honour_retry_after=true"},
     {"clients[0].retry.honour_retry_after=true", "server.queue=4",
      "server.shed={\"status\": 429, \"retry_after_ms\": 500}"}},
    {"$.clients[0].retry.backoff",
     {"clients[0].retry.max_attempts=1", "clients[0].retry.backoff.base_ms=50"},
     {"clients[0].retry.max_attempts=1", "clients[0].retry.backoff.base_ms=50",
      "clients[0].retry.max_conflicts=2"}},
    {"$.clients[0].retry.retry_on",
     {"clients[0].retry.max_attempts=1", "clients[0].retry.retry_on=[\"timeout\"]"},
     {"clients[0].retry.max_attempts=1", "clients[0].retry.retry_on=[\"timeout\"]",
      "server.idempotency.on_in_progress=202"}},
    {"$.clients[0].retry.late_response",
     {"clients[0].retry.max_attempts=1", "clients[0].retry.late_response=\"accept\""},
     {"clients[0].retry.max_attempts=2", "clients[0].retry.late_response=\"accept\""}},
    {"$.clients[0].retry.conflict_delay_ms",
     {"clients[0].retry.max_attempts=1", "clients[0].retry.conflict_delay_ms=100"},
     {"clients[0].retry.max_attempts=1", "clients[0].retry.conflict_delay_ms=100",
      "clients[0].on_unknown=\"lookup\""}},
    /* client groups: a debit's balance write (C29) */
    {"$.clients[0].operation.update",
     {"clients[0].operation.update=\"read-modify-write\"", "server.workers=1"},
     {"clients[0].operation.update=\"read-modify-write\"", "server.workers=2"}},
    {"$.clients[0].operation.update",
     {"clients[0].target=\"broker\"", "broker.consumers.workers=1",
      "clients[0].operation.update=\"compare-and-set\""},
     {"clients[0].target=\"broker\"", "broker.consumers.workers=0",
      "clients[0].operation.update=\"compare-and-set\""}},
    /* client groups: a key spelled otherwise, a key column that normalises (C30) */
    {"$.clients[0].key_respelled",
     {"clients[0].key_respelled=0.5", "clients[0].retry.max_attempts=1"},
     {"clients[0].key_respelled=0.5", "clients[0].retry.max_attempts=2"}},
    {"$.clients[0].key_respelled",
     {"clients[0].key_respelled=0.5", "clients[0].key=\"per-attempt\""},
     {"clients[0].key_respelled=0.5", "clients[0].key=\"business-hash\""}},
    {"$.clients[0].key_alphabet",
     {"clients[0].key_alphabet=\"base62\""},
     {"clients[0].key_alphabet=\"base62\"", "server.idempotency.compare=\"normalised\""}},
    {"$.server.idempotency.compare",
     {"server.idempotency.compare=\"normalised\""},
     {"server.idempotency.compare=\"normalised\"", "clients[0].key_respelled=0.1"}},
    /* client groups: workload */
    {"$.clients[0].workload.interval_ms",
     {"clients[0].workload={\"at_ms\": [5, 10], \"interval_ms\": {\"dist\": \"const\", \"value\": 9}}"},
     {"clients[0].workload={\"ops\": 2, \"interval_ms\": {\"dist\": \"const\", \"value\": 9}}"}},
    {"$.clients[0].workload.start_ms",
     {"clients[0].workload={\"at_ms\": [5, 10], \"start_ms\": 3}"},
     {"clients[0].workload={\"ops\": 2, \"start_ms\": 3}"}},
    {"$.clients[0].workload.loop",
     {"clients[0].workload={\"ops\": 1, \"loop\": \"open\"}"},
     {"clients[0].workload={\"ops\": 2, \"loop\": \"open\"}"}},
    /* client groups: chances and keys */
    {"$.clients[0].double_click.delay_ms",
     {"clients[0].double_click={\"prob\": 0, \"delay_ms\": {\"dist\": \"const\", \"value\": 5}}"},
     {"clients[0].double_click={\"prob\": 0.5, \"delay_ms\": {\"dist\": \"const\", \"value\": 5}}"}},
    {"$.clients[0].offline.duration_ms",
     {"clients[0].offline={\"prob\": 0, \"duration_ms\": {\"dist\": \"const\", \"value\": 5}}"},
     {"clients[0].offline={\"prob\": 0.5, \"duration_ms\": {\"dist\": \"const\", \"value\": 5}}"}},
    {"$.clients[0].restart.delay_ms",
     {"clients[0].restart={\"prob\": 0, \"delay_ms\": {\"dist\": \"const\", \"value\": 5}}"},
     {"clients[0].restart={\"prob\": 0.5, \"delay_ms\": {\"dist\": \"const\", \"value\": 5}}"}},
    {"$.clients[0].key_persisted",
     {"clients[0].key_persisted=true"},
     {"clients[0].key_persisted=true", "clients[0].restart.prob=0.5"}},
    {"$.clients[0].key_persisted",
     {"clients[0].key_persisted=true", "clients[0].restart.prob=0.5",
      "clients[0].key=\"business-hash\""},
     {"clients[0].key_persisted=true", "clients[0].restart.prob=0.5",
      "clients[0].key=\"message-id\""}},
    {"$.clients[0].key_reuse",
     {"clients[0].key_reuse=0.5"},
     {"clients[0].key_reuse=0.5", "clients[0].workload.ops=2"}},
    {"$.clients[0].key_reuse",
     {"clients[0].key_reuse=0.5", "clients[0].workload.ops=2", "clients[0].key=\"none\""},
     {"clients[0].key_reuse=0.5", "clients[0].workload.ops=2", "clients[0].key=\"business-hash\""}},
    {"$.clients[0].key_bits",
     {"clients[0].key_bits=16", "clients[0].key=\"business-hash\""},
     {"clients[0].key_bits=16", "clients[0].key=\"per-click\""}},
    {"$.clients[0].on_unknown",
     {"clients[0].on_unknown=\"lookup\"", "clients[0].key=\"server-generated\""},
     {"clients[0].on_unknown=\"lookup\"", "clients[0].key=\"per-click\""}},
    /* key stores */
    {"$.server.idempotency",
     {"modes=[\"at-most-once\", \"at-least-once\"]", "server.idempotency.ttl_ms=5000"},
     {"modes=[\"at-least-once\", \"idempotent\"]", "server.idempotency.ttl_ms=5000"}},
    {"$.server.idempotency.race_window_ms",
     {"server.idempotency.race_window_ms=50"},
     {"server.idempotency.race_window_ms=50", "server.idempotency.reserve=\"check-then-insert\""}},
    {"$.server.idempotency.fencing",
     {"server.idempotency.fencing=true", "server.idempotency.ttl_ms=0"},
     {"server.idempotency.fencing=true", "server.idempotency.ttl_ms=0",
      "server.idempotency.lock_timeout_ms=100"}},
    {"$.server.idempotency.ttl_from",
     {"server.idempotency.ttl_ms=0", "server.idempotency.ttl_from=\"completion\""},
     {"server.idempotency.ttl_ms=1000", "server.idempotency.ttl_from=\"completion\""}},
    {"$.server.idempotency.failover_every_ms",
     {"server.idempotency.failover_every_ms={\"dist\": \"const\", \"value\": 500}"},
     {"server.idempotency.failover_every_ms={\"dist\": \"const\", \"value\": 500}",
      "server.idempotency.replication_lag_ms=50"}},
    {"$.server.idempotency.durable",
     {"server.idempotency.durable=false"},
     {"server.idempotency.durable=false",
      "server.crash={\"point\": \"after-effect\", \"prob\": 0.1}"}},
    {"$.server.idempotency.durable",
     {"server.idempotency.durable=false", "server.crash.point=\"after-effect\""},
     {"server.idempotency.durable=false", "server.outage={\"from_ms\": 100, \"to_ms\": 200}"}},
    /* C38: a store's own crash makes durable live, and when_down needs one */
    {"$.server.idempotency.durable",
     {"server.idempotency.durable=false"},
     {"server.idempotency.durable=false",
      "server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 500}}"}},
    {"$.server.idempotency.when_down",
     {"server.idempotency.when_down=\"proceed\""},
     {"server.idempotency.when_down=\"proceed\"",
      "server.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 500}}"}},
    {"$.server.idempotency.on_failure",
     {"server.idempotency.profile=\"stripe\"",
      "server.idempotency.on_failure={\"definite\": \"delete\"}"},
     {"server.idempotency.profile=\"ietf\"",
      "server.idempotency.on_failure={\"definite\": \"delete\"}"}},
    {"$.broker.consumers.idempotency.race_window_ms",
     {"clients[0].target=\"broker\"", "broker.consumers.idempotency.race_window_ms=50"},
     {"clients[0].target=\"broker\"", "broker.consumers.idempotency.race_window_ms=50",
      "broker.consumers.idempotency.reserve=\"check-then-insert\""}},
    /* retry topics (broker_log.c) forward only a failed run */
    {"$.broker.consumers.retryable_topic",
     {"clients[0].target=\"broker\"", "broker.family=\"log\"",
      "broker.consumers.retryable_topic={}"},
     {"clients[0].target=\"broker\"", "broker.family=\"log\"",
      "broker.consumers.retryable_topic={}", "broker.consumers.fail_after_effect=0.1"}},
    /* and a record its store refused while down (C38, when_down refuse) */
    {"$.broker.consumers.retryable_topic",
     {"clients[0].target=\"broker\"", "broker.family=\"log\"",
      "broker.consumers.retryable_topic={}"},
     {"clients[0].target=\"broker\"", "broker.family=\"log\"",
      "broker.consumers.retryable_topic={}", "broker.consumers.idempotency.lock_timeout_ms=100",
      "broker.consumers.idempotency.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 500}}"}},
    /* crashes */
    {"$.server.crash",
     {"server.crash.restart_ms=5"},
     {"server.crash={\"point\": \"before-effect\", \"prob\": 0.1, \"restart_ms\": 5}"}},
    {"$.broker.consumers.crash",
     {"clients[0].target=\"broker\"", "broker.consumers.crash={\"point\": \"after-effect\"}"},
     {"clients[0].target=\"broker\"",
      "broker.consumers.crash={\"point\": \"after-effect\", \"prob\": 0.2}"}},
    /* the server */
    {"$.server.delete_always_204",
     {"server.delete_always_204=true"},
     {"server.delete_always_204=true", "clients[0].operation={\"kind\": \"delete\"}"}},
    {"$.server.outbox_relay_ms",
     {"server.outbox_relay_ms=300"},
     {"server.outbox_relay_ms=300", "server.publish_receipts=true",
      "server.receipts_via=\"outbox\""}},
    /* C34 (client.c, a scheduler's second instance) */
    {"$.clients[0].schedule.both_fire",
     {"clients[0].schedule.both_fire=0.5"},
     {"clients[0].schedule.both_fire=0.5", "clients[0].schedule.instances=2"}},
    {"$.clients[0].schedule.skew_ms",
     {"clients[0].schedule.skew_ms={\"dist\": \"const\", \"value\": 5}"},
     {"clients[0].schedule.skew_ms={\"dist\": \"const\", \"value\": 5}",
      "clients[0].schedule.instances=2"}},
    {"$.clients[0].schedule.skew_ms",
     {"clients[0].schedule.instances=2", "clients[0].schedule.both_fire=0",
      "clients[0].schedule.skew_ms={\"dist\": \"const\", \"value\": 5}"},
     {"clients[0].schedule.instances=2", "clients[0].schedule.both_fire=0.1",
      "clients[0].schedule.skew_ms={\"dist\": \"const\", \"value\": 5}"}},
    {"$.clients[0].schedule.instances",
     {"clients[0].schedule.instances=2", "clients[0].schedule.both_fire=0"},
     {"clients[0].schedule.instances=2", "clients[0].schedule.both_fire=0.1"}},
    /* C35 (gateway.c, a late approval's void) */
    {"$.gateway.void_late",
     {"server.use_gateway=true", "gateway.void_late=true"},
     {"server.use_gateway=true", "gateway.void_late=true", "gateway.capture=\"manual\""}},
    /* C35 (gateway.c, a capture whose answer is lost, and the settlement file) */
    {"$.gateway.capture_lost",
     {"server.use_gateway=true", "gateway.capture_lost=0.1"},
     {"server.use_gateway=true", "gateway.capture_lost=0.1", "gateway.capture=\"manual\""}},
    {"$.gateway.settlement_every_ms",
     {"server.use_gateway=true", "gateway.capture=\"manual\"", "gateway.settlement_every_ms=1000"},
     {"server.use_gateway=true", "gateway.capture=\"manual\"", "gateway.settlement_every_ms=1000",
      "gateway.capture_lost=0.1"}},
    /* C32 (connection.c) */
    {"$.clients[0].library_replays",
     {"clients[0].library_replays=\"any\""},
     {"clients[0].library_replays=\"any\"", "clients[0].library_retries=1",
      "server.closes_before_answer=0.1"}},
    {"$.clients[0].library_retries",
     {"clients[0].library_retries=1"},
     {"clients[0].library_retries=1", "server.closes_before_answer=0.1"}},
    {"$.clients[0].library_retries",
     {"clients[0].library_retries=1", "clients[0].key=\"none\"", "server.stale_connections=0.1"},
     {"clients[0].library_retries=1", "clients[0].key=\"none\"", "server.stale_connections=0.1",
      "clients[0].library_replays=\"any\""}},
    {"$.server.closes_before_answer",
     {"clients[0].target=\"broker\"", "server.closes_before_answer=0.1"},
     {"server.closes_before_answer=0.1"}},
    {"$.server.deadline",
     {"clients[0].target=\"broker\"", "server.deadline=\"drop\""},
     {"server.deadline=\"drop\""}},
    /* the proxy */
    {"$.proxy.retry_on",
     {"clients[0].via=\"proxy\"", "proxy={\"retries\": 0, \"retry_on\": [\"5xx\"]}"},
     {"clients[0].via=\"proxy\"", "proxy={\"retries\": 1, \"retry_on\": [\"5xx\"]}"}},
    {"$.proxy.crash",
     {"clients[0].via=\"proxy\"", "proxy.crash={\"point\": \"after-forward\", \"prob\": 0}"},
     {"clients[0].via=\"proxy\"", "proxy.crash={\"point\": \"after-forward\", \"prob\": 0.1}"}},
    {"$.proxy.forwards_key",
     {"clients[0].via=\"proxy\"", "clients[0].key=\"none\"", "proxy={\"forwards_key\": false}"},
     {"clients[0].via=\"proxy\"", "clients[0].key=\"per-click\"",
      "proxy={\"forwards_key\": false}"}},
    /* the broker */
    {"$.broker.dead_letter",
     {"clients[0].target=\"broker\"", "broker.max_deliveries=0", "broker.dead_letter=false"},
     {"clients[0].target=\"broker\"", "broker.max_deliveries=3", "broker.dead_letter=false"}},
    {"$.broker.redrive_after_ms",
     {"clients[0].target=\"broker\"", "broker.max_deliveries=0", "broker.redrive_after_ms=500"},
     {"clients[0].target=\"broker\"", "broker.max_deliveries=3", "broker.redrive_after_ms=500"}},
    {"$.broker.redelivery_delay_ms",
     {"clients[0].target=\"broker\"", "broker.max_deliveries=1", "broker.redelivery_delay_ms=500"},
     {"clients[0].target=\"broker\"", "broker.max_deliveries=2", "broker.redelivery_delay_ms=500"}},
    {"$.broker.queues[1]",
     {"clients[0].target=\"broker\"", "broker.queues=[{\"name\": \"a\"}, {\"name\": \"b\"}]",
      "clients[0].queue=\"a\""},
     {"clients[0].target=\"broker\"", "broker.queues=[{\"name\": \"a\"}, {\"name\": \"b\"}]",
      "clients[0].queue=\"b\""}},
    /* links and services nothing reaches */
    {"$.network.links.server->gateway",
     {"network.links={\"server->gateway\": {\"loss\": 0.1}}"},
     {"network.links={\"server->gateway\": {\"loss\": 0.1}}", "server.use_gateway=true"}},
    {"$.network.outages[0].link",
     {"network.outages=[{\"from_ms\": 0, \"to_ms\": 10, \"link\": \"server->broker\"}]"},
     {"network.outages=[{\"from_ms\": 0, \"to_ms\": 10, \"link\": \"server->broker\"}]",
      "server.publish_receipts=true"}},
    {"$.gateway",
     {"gateway.fail=0.1"},
     {"gateway.fail=0.1", "server.use_gateway=true"}},
    {"$.broker",
     {"broker.ack_timeout_ms=100"},
     {"broker.ack_timeout_ms=100", "clients[0].target=\"broker\""}},
};
/* clang-format on */

static uint32_t count_sets(const char *const *sets)
{
    uint32_t n = 0;
    while (n < SETS_MAX && sets[n] != NULL)
        n++;
    return n;
}

/* The same in the services form: a server of one instance calling a gateway. Its rules are
 * the instances' and the call step's, which only that form can write. */
static const char services_scenario[] =
    "{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","
    "    \"steps\": [{\"call\": \"psp\"}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\"}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 2, \"calls\": \"checkout\"}]}";

/* clang-format off */
static const InertCase services_cases[] = {
    {"$.services[0].balancer",
     {"services.checkout.balancer=\"key-hash\""},
     {"services.checkout.balancer=\"key-hash\"", "services.checkout.instances=2"}},
    {"$.services[0].balancer_retry",
     {"services.checkout.balancer_retry=\"connect-failure\""},
     {"services.checkout.balancer_retry=\"connect-failure\"", "services.checkout.instances=2",
      "services.checkout.crash={\"point\": \"before-effect\", \"prob\": 0.1}"}},
    {"$.services[0].balancer_retry",
     {"services.checkout.balancer_retry=\"connect-failure\"", "services.checkout.instances=2"},
     {"services.checkout.balancer_retry=\"connect-failure\"", "services.checkout.instances=2",
      "services.checkout.crash={\"point\": \"before-effect\", \"prob\": 0.1}"}},
    /* an outage takes every instance down at once: none is up to send to */
    {"$.services[0].balancer_retry",
     {"services.checkout.balancer_retry=\"connect-failure\"", "services.checkout.instances=2",
      "services.checkout.outage={\"from_ms\": 1000, \"to_ms\": 2000}"},
     {"services.checkout.balancer_retry=\"connect-failure\"", "services.checkout.instances=2",
      "services.checkout.crash={\"point\": \"before-effect\", \"prob\": 0.1}"}},
    {"$.services[1].placement",
     {"services.keys.placement=\"per-instance\""},
     {"services.keys.placement=\"per-instance\"", "services.checkout.instances=2"}},
    {"$.services[0].steps[0].retry.backoff_ms",
     {"services.checkout.steps[0].retry={\"backoff_ms\": 50}"},
     {"services.checkout.steps[0].retry={\"max_attempts\": 2, \"backoff_ms\": 50}"}},
    {"$.services[0].steps[0].key",
     {"services.checkout.steps[0].key=\"derive\""},
     {"services.checkout.steps[0].key=\"derive\"", "services.psp.honours_key=true"}},
    /* a saga (server_charge.c): the undo runs only when the fulfil step can fail, which it
     * does only after a debit's charge */
    {"$.services[0].steps[0].undo",
     {"services.checkout.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}}]"},
     {"services.checkout.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"
      " {\"fulfil\": \"local\", \"fail\": 0.1}]"}},
    {"$.services[0].steps[1]",
     {"services.checkout.steps=[{\"call\": \"psp\"}, {\"fulfil\": \"local\"}]"},
     {"services.checkout.steps=[{\"call\": \"psp\"}, {\"fulfil\": \"local\", \"fail\": 0.1}]"}},
    {"$.services[0].steps[1]",
     {"services.checkout.steps=[{\"call\": \"psp\"}, {\"fulfil\": \"local\", \"fail\": 0.1}]",
      "clients.web.operation={\"kind\": \"insert\"}"},
     {"services.checkout.steps=[{\"call\": \"psp\"}, {\"fulfil\": \"local\", \"fail\": 0.1}]"}},
    {"$.services[0].steps[0].undo.retry.backoff_ms",
     {"services.checkout.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\","
      " \"retry\": {\"backoff_ms\": 50}}}, {\"fulfil\": \"local\", \"fail\": 0.1}]"},
     {"services.checkout.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\","
      " \"retry\": {\"max_attempts\": 2, \"backoff_ms\": 50}}},"
      " {\"fulfil\": \"local\", \"fail\": 0.1}]"}},
};
/* clang-format on */

/* Loads a base text with sets and returns whether a warning names path (exactly). */
static bool warns_in(const char *base, size_t length, const char *const *sets, const char *path)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    ck_assert_ptr_nonnull(scenario);
    ck_assert_ptr_nonnull(errors);
    ck_assert_ptr_nonnull(warnings);
    bool loaded = scenario_load_text(base, length, sets, count_sets(sets), scenario, errors);
    ck_assert_msg(loaded, "%s: %s", errors->count > 0 ? errors->items[0].path : "",
                  errors->count > 0 ? errors->items[0].message : "not loaded");
    scenario_inert_warnings(scenario, warnings);
    bool found = false;
    for (uint32_t i = 0; i < warnings->count; i++) {
        if (strcmp(warnings->items[i].path, path) == 0) {
            ck_assert_ptr_nonnull(strstr(warnings->items[i].message, "has no effect"));
            found = true;
        }
    }
    free(scenario);
    free(errors);
    free(warnings);
    return found;
}

static bool warns(const char *const *sets, const char *path)
{
    return warns_in(base_scenario, sizeof base_scenario - 1, sets, path);
}

START_TEST(test_services_form_field_is_warned_at_its_entry_and_its_live_twin_is_not)
{
    const InertCase *c = &services_cases[_i];
    size_t length = sizeof services_scenario - 1;
    ck_assert_msg(warns_in(services_scenario, length, c->sets, c->path),
                  "case %d: no warning at %s", _i, c->path);
    ck_assert_msg(!warns_in(services_scenario, length, c->twin, c->path),
                  "case %d: live twin warned at %s", _i, c->path);
}
END_TEST

/* A proxy's retry_host picks among the server's instances on a retry: inert with one
 * instance, and with no retry at all. */
static const char mesh_scenario[] =
    "{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"mesh\", \"kind\": \"proxy\", \"calls\": \"checkout\", \"retry_host\": "
    "\"other\"},"
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\"},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 2, \"calls\": \"mesh\"}]}";

START_TEST(test_a_proxys_retry_host_is_warned_where_no_retry_can_choose)
{
    size_t length = sizeof mesh_scenario - 1;
    const char *const one[SETS_MAX] = {NULL};
    const char *const two[SETS_MAX] = {"services.checkout.instances=2"};
    const char *const no_retry[SETS_MAX] = {"services.checkout.instances=2",
                                            "services.mesh.retries=0"};
    ck_assert(warns_in(mesh_scenario, length, one, "$.services[0].retry_host"));
    ck_assert(!warns_in(mesh_scenario, length, two, "$.services[0].retry_host"));
    ck_assert(warns_in(mesh_scenario, length, no_retry, "$.services[0].retry_host"));
}
END_TEST

/* A proxy's balancer picks among its instances; sending on past a down one needs a crash. */
START_TEST(test_a_proxys_balancer_is_warned_where_it_has_nothing_to_do)
{
    size_t length = sizeof mesh_scenario - 1;
    const char *const one[SETS_MAX] = {"services.mesh.balancer=\"random\""};
    const char *const two[SETS_MAX] = {"services.mesh.balancer=\"random\"",
                                       "services.mesh.instances=2"};
    ck_assert(warns_in(mesh_scenario, length, one, "$.services[0].balancer"));
    ck_assert(!warns_in(mesh_scenario, length, two, "$.services[0].balancer"));
    const char *const never_down[SETS_MAX] = {"services.mesh.instances=2",
                                              "services.mesh.balancer_retry=\"connect-failure\""};
    const char *const crashes[SETS_MAX] = {
        "services.mesh.instances=2", "services.mesh.balancer_retry=\"connect-failure\"",
        "services.mesh.crash={\"point\": \"after-forward\", \"prob\": 0.1}"};
    const char *const alone[SETS_MAX] = {
        "services.mesh.balancer_retry=\"connect-failure\"",
        "services.mesh.crash={\"point\": \"after-forward\", \"prob\": 0.1}"};
    ck_assert(warns_in(mesh_scenario, length, never_down, "$.services[0].balancer_retry"));
    ck_assert(!warns_in(mesh_scenario, length, crashes, "$.services[0].balancer_retry"));
    ck_assert(warns_in(mesh_scenario, length, alone, "$.services[0].balancer_retry"));
}
END_TEST

/* A consumer group's saga (consumers.c, by server_charge.c's code) is warned as a server's,
 * at the consumers' own entry. */
static const char consumers_saga_scenario[] =
    "{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\"},"
    "   {\"id\": \"shipper\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"keys\", \"steps\": [{\"call\": \"psp\"}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\"}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 2, \"publishes\": \"orders\","
    "   \"operation\": {\"kind\": \"debit\", \"amount\": 10}}]}";

START_TEST(test_a_consumer_groups_idle_undo_is_warned_at_its_step)
{
    size_t length = sizeof consumers_saga_scenario - 1;
    const char *const idle[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"
        " {\"fulfil\": \"local\"}]"};
    const char *const live[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"
        " {\"fulfil\": \"local\", \"fail\": 0.1}]"};
    ck_assert(warns_in(consumers_saga_scenario, length, idle, "$.services[1].steps[0].undo"));
    ck_assert(!warns_in(consumers_saga_scenario, length, live, "$.services[1].steps[0].undo"));
    const char *const no_fail[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\"}, {\"fulfil\": \"local\"}]"};
    ck_assert(warns_in(consumers_saga_scenario, length, no_fail, "$.services[1].steps[1]"));
    ck_assert(!warns_in(consumers_saga_scenario, length, live, "$.services[1].steps[1]"));
    const char *const no_debit[SETS_MAX] = {live[0],
                                            "clients.web.operation={\"kind\": \"insert\"}"};
    ck_assert(warns_in(consumers_saga_scenario, length, no_debit, "$.services[1].steps[1]"));
}
END_TEST

/* A consumer group's instances (consumers.c): the placement chooses among instances, and a
 * store they share outlives an instance's crash. */
START_TEST(test_a_consumer_groups_idle_instance_fields_are_warned)
{
    size_t length = sizeof consumers_saga_scenario - 1;
    const char *const one_apart[SETS_MAX] = {"services.keys.placement=\"per-instance\""};
    const char *const two_apart[SETS_MAX] = {"services.keys.placement=\"per-instance\"",
                                             "services.shipper.instances=2"};
    ck_assert(warns_in(consumers_saga_scenario, length, one_apart, "$.services[2].placement"));
    ck_assert(!warns_in(consumers_saga_scenario, length, two_apart, "$.services[2].placement"));
#define CRASHES "services.shipper.crash={\"point\": \"after-effect\", \"prob\": 0.1}"
    const char *const shared[SETS_MAX] = {"services.keys.durable=false",
                                          "services.shipper.instances=2", CRASHES};
    const char *const own[SETS_MAX] = {"services.keys.durable=false", CRASHES};
    ck_assert(warns_in(consumers_saga_scenario, length, shared, "$.services[2].durable"));
    ck_assert(!warns_in(consumers_saga_scenario, length, own, "$.services[2].durable"));
    /* a store the instances share that crashes on its own (C38): durable is what its own
     * restart keeps */
    const char *const shared_crashing[SETS_MAX] = {
        shared[0], shared[1], shared[2],
        "services.keys.crash={\"every_ms\": {\"dist\": \"const\", \"value\": 500}}"};
    ck_assert(!warns_in(consumers_saga_scenario, length, shared_crashing, "$.services[2].durable"));
#undef CRASHES
}
END_TEST

/* A consumer group after the first is judged as the first is, at its own entries: its call
 * and saga at its steps, its instances' and store's fields at its key store's entry. */
static const char later_group_scenario[] =
    "{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"events\", \"kind\": \"broker\", \"queues\": [{\"name\": \"x\"}, {\"name\": "
    "\"y\"}]},"
    "   {\"id\": \"mailer\", \"kind\": \"consumers\", \"consumes\": \"events\","
    "    \"key_store\": \"mail-keys\"},"
    "   {\"id\": \"mail-keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"shipper\", \"kind\": \"consumers\", \"consumes\": \"events\","
    "    \"queues\": [\"y\"], \"key_store\": \"keys\", \"steps\": [{\"call\": \"psp\"}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\"}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 2, \"publishes\": \"events\", \"queue\": \"x\"},"
    "   {\"id\": \"app\", \"count\": 2, \"publishes\": \"events\", \"queue\": \"y\","
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 10}}]}";

START_TEST(test_a_later_groups_idle_fields_are_warned_at_its_entries)
{
    size_t length = sizeof later_group_scenario - 1;
    const char *const idle_undo[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"
        " {\"fulfil\": \"local\"}]"};
    const char *const live_undo[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\", \"undo\": {\"refund\": \"psp\"}},"
        " {\"fulfil\": \"local\", \"fail\": 0.1}]"};
    ck_assert(warns_in(later_group_scenario, length, idle_undo, "$.services[3].steps[0].undo"));
    ck_assert(!warns_in(later_group_scenario, length, live_undo, "$.services[3].steps[0].undo"));
    const char *const idle_backoff[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\", \"retry\": {\"backoff_ms\": 50}}]"};
    const char *const live_backoff[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\","
        " \"retry\": {\"max_attempts\": 2, \"backoff_ms\": 50}}]"};
    ck_assert(warns_in(later_group_scenario, length, idle_backoff,
                       "$.services[3].steps[0].retry.backoff_ms"));
    ck_assert(!warns_in(later_group_scenario, length, live_backoff,
                        "$.services[3].steps[0].retry.backoff_ms"));
    const char *const one_apart[SETS_MAX] = {"services.keys.placement=\"per-instance\""};
    const char *const two_apart[SETS_MAX] = {"services.keys.placement=\"per-instance\"",
                                             "services.shipper.instances=2"};
    ck_assert(warns_in(later_group_scenario, length, one_apart, "$.services[4].placement"));
    ck_assert(!warns_in(later_group_scenario, length, two_apart, "$.services[4].placement"));
#define CRASHES "services.shipper.crash={\"point\": \"after-effect\", \"prob\": 0.1}"
    const char *const shared[SETS_MAX] = {"services.keys.durable=false",
                                          "services.shipper.instances=2", CRASHES};
    const char *const own[SETS_MAX] = {"services.keys.durable=false", CRASHES};
    ck_assert(warns_in(later_group_scenario, length, shared, "$.services[4].durable"));
    ck_assert(!warns_in(later_group_scenario, length, own, "$.services[4].durable"));
#undef CRASHES
    /* the mailer's handler never fails: its on_failure has nothing to judge; the shipper's
     * charge can fail, so its own is live */
    const char *const mailer_policy[SETS_MAX] = {
        "services.mail-keys.on_failure={\"definite\": \"delete\"}"};
    const char *const shipper_policy[SETS_MAX] = {
        "services.keys.on_failure={\"definite\": \"delete\"}"};
    ck_assert(warns_in(later_group_scenario, length, mailer_policy, "$.services[2].on_failure"));
    ck_assert(!warns_in(later_group_scenario, length, shipper_policy, "$.services[4].on_failure"));
}
END_TEST

/* A saga's fulfil step runs only after its call step's charge, made for the operations that
 * reach it: a consumer group's, those published to its queues (queue_mask), not another
 * group's; a debit only, when the call is to a gateway, and any operation when it is to a
 * server. Here the debits go to the mailer's queue and the shipper takes inserts: its saga
 * never runs. */
START_TEST(test_a_groups_saga_counts_the_debits_of_its_own_queues)
{
    size_t length = sizeof later_group_scenario - 1;
    const char *const live[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"psp\"}, {\"fulfil\": \"local\", \"fail\": 0.1}]"};
    const char *const elsewhere[SETS_MAX] = {
        live[0], "clients.app.operation={\"kind\": \"insert\"}",
        "clients.web.operation={\"kind\": \"debit\", \"amount\": 10}"};
    ck_assert(warns_in(later_group_scenario, length, elsewhere, "$.services[3].steps[1]"));
    ck_assert(!warns_in(later_group_scenario, length, live, "$.services[3].steps[1]"));
}
END_TEST

/* A server's saga counts the operations of the groups that call it, and of those whose
 * messages reach a consumer group calling it; a consumer group's call to a server takes
 * every operation, so its fulfil step runs after inserts too. */
static const char server_and_group_scenario[] =
    "{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"checkout\", \"kind\": \"server\", \"key_store\": \"keys\","
    "    \"steps\": [{\"call\": \"psp\"}, {\"fulfil\": \"local\", \"fail\": 0.1}]},"
    "   {\"id\": \"keys\", \"kind\": \"key_store\"},"
    "   {\"id\": \"psp\", \"kind\": \"gateway\"},"
    "   {\"id\": \"orders\", \"kind\": \"broker\"},"
    "   {\"id\": \"shipper\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"ship-keys\"},"
    "   {\"id\": \"ship-keys\", \"kind\": \"key_store\"}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 2, \"calls\": \"checkout\","
    "   \"operation\": {\"kind\": \"insert\"}},"
    "   {\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\","
    "    \"operation\": {\"kind\": \"debit\", \"amount\": 10}}]}";

START_TEST(test_a_servers_saga_counts_the_debits_that_reach_it)
{
    size_t length = sizeof server_and_group_scenario - 1;
    /* the app's debits stay with the shipper, which applies them locally */
    const char *const none[SETS_MAX] = {NULL};
    ck_assert(warns_in(server_and_group_scenario, length, none, "$.services[0].steps[1]"));
    const char *const through_shipper[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"checkout\", \"timeout_ms\": 100}]"};
    ck_assert(
        !warns_in(server_and_group_scenario, length, through_shipper, "$.services[0].steps[1]"));
    const char *const inserts_to_a_server[SETS_MAX] = {
        "services.shipper.steps=[{\"call\": \"checkout\", \"timeout_ms\": 100},"
        " {\"fulfil\": \"local\", \"fail\": 0.1}]",
        "clients.app.operation={\"kind\": \"insert\"}"};
    ck_assert(!warns_in(server_and_group_scenario, length, inserts_to_a_server,
                        "$.services[4].steps[1]"));
    ck_assert(
        warns_in(server_and_group_scenario, length, inserts_to_a_server, "$.services[0].steps[1]"));
}
END_TEST

/* The message of the warning at path (exactly) loading base with sets, or NULL; the caller
 * frees it. For the rules that warn of live configuration (no "has no effect"). */
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

/* A fanout exchange copying each order to the chargers' queue and to two queues whose groups
 * both email the confirmation: each group emails its own copy, and its key store knows only
 * its own copies, so every order is confirmed twice in every mode. */
#define FANOUT_SERVICES(mailers, auditors, exchange_queues)                                        \
    ("{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"             \
     " \"services\": ["                                                                            \
     "   {\"id\": \"events\", \"kind\": \"broker\", \"queues\": [{\"name\": \"payments\"},"        \
     "    {\"name\": \"confirmations\"}, {\"name\": \"receipts\"}],"                               \
     "    \"exchanges\": [{\"name\": \"orders\", \"queues\": " exchange_queues "}]},"              \
     "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"events\","                \
     "    \"queues\": [\"payments\"], \"key_store\": \"charger-keys\"},"                           \
     "   {\"id\": \"charger-keys\", \"kind\": \"key_store\"},"                                     \
     "   {\"id\": \"" mailers "\", \"kind\": \"consumers\", \"consumes\": \"events\","             \
     "    \"queues\": [\"confirmations\"], \"key_store\": \"mailer-keys\","                        \
     "    \"steps\": [{\"effect\": \"email\"}]},"                                                  \
     "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"},"                                      \
     "   {\"id\": \"" auditors "\", \"kind\": \"consumers\", \"consumes\": \"events\","            \
     "    \"queues\": [\"receipts\"], \"key_store\": \"auditor-keys\","                            \
     "    \"steps\": [{\"effect\": \"email\"}]},"                                                  \
     "   {\"id\": \"auditor-keys\", \"kind\": \"key_store\"}],"                                    \
     " \"clients\": [{\"id\": \"app\", \"count\": 2, \"publishes\": \"events\","                   \
     "   \"queue\": \"orders\", \"operation\": {\"kind\": \"debit\", \"amount\": 10}}]}")

START_TEST(test_two_groups_emailing_copies_of_one_exchange_are_warned)
{
    const char *const none[SETS_MAX] = {NULL};
    const char *at = "$.services[0].exchanges[0].queues";
    char *why = warning_at(
        FANOUT_SERVICES("mailers", "auditors", "[\"payments\", \"confirmations\", \"receipts\"]"),
        none, at);
    ck_assert_ptr_nonnull(why);
    ck_assert_str_eq(why, "every order is confirmed twice: 'mailers' and 'auditors' both email "
                          "it, and neither key store sees the other's copy; keep only one of "
                          "their queues");
    free(why);
    /* names too long for the line: the rule said without them, whole */
    why = warning_at(FANOUT_SERVICES("confirmation-mailers-of-the-web-shop",
                                     "receipt-mailers-of-the-accounting-team",
                                     "[\"payments\", \"confirmations\", \"receipts\"]"),
                     none, at);
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "two groups taking these queues both email it") != NULL &&
                      strstr(why, "keep only one of them") != NULL,
                  "%s", why);
    free(why);
    /* the twin: the exchange copies to one emailing group's queue only */
    why = warning_at(FANOUT_SERVICES("mailers", "auditors", "[\"payments\", \"confirmations\"]"),
                     none, at);
    ck_assert_ptr_null(why);
}
END_TEST

/* On a log every group reads every record: two later groups that email each confirm every
 * order (the log's form of the fanout above). */
#define LOG_GROUPS(auditors_step)                                                                  \
    ("{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"             \
     " \"services\": ["                                                                            \
     "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"log\"},"                         \
     "   {\"id\": \"chargers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                \
     "    \"key_store\": \"charger-keys\"},"                                                       \
     "   {\"id\": \"charger-keys\", \"kind\": \"key_store\"},"                                     \
     "   {\"id\": \"mailers\", \"kind\": \"consumers\", \"consumes\": \"orders\","                 \
     "    \"key_store\": \"mailer-keys\", \"steps\": [{\"effect\": \"email\"}]},"                  \
     "   {\"id\": \"mailer-keys\", \"kind\": \"key_store\"}" auditors_step "],"                    \
     " \"clients\": [{\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\","                   \
     "   \"operation\": {\"kind\": \"debit\", \"amount\": 10}}]}")

START_TEST(test_two_groups_emailing_on_a_log_are_warned)
{
    const char *const none[SETS_MAX] = {NULL};
    const char *at = "$.services[5].steps";
    char *why = warning_at(LOG_GROUPS(",{\"id\": \"auditors\", \"kind\": \"consumers\","
                                      " \"consumes\": \"orders\", \"key_store\": \"audit-keys\","
                                      " \"steps\": [{\"effect\": \"email\"}]},"
                                      "{\"id\": \"audit-keys\", \"kind\": \"key_store\"}"),
                           none, at);
    ck_assert_ptr_nonnull(why);
    ck_assert_str_eq(why, "every order is confirmed twice: 'mailers' and 'auditors' each read "
                          "every record of the log and email it; keep one of the two groups");
    free(why);
    /* the twin: one emailing group beside the chargers */
    why = warning_at(LOG_GROUPS(""), none, at);
    ck_assert_ptr_null(why);
}
END_TEST

/* Workers deduplicating in a store that crashes on its own and refuses while down (the
 * default when_down), on a queue with no delivery limit: each refused delivery is requeued
 * and refused again at once for the whole outage. */
static const char store_down_loop_scenario[] =
    "{\"duration_ms\": 10000, \"accounts\": [{\"id\": \"a\", \"balance\": 1000000}],"
    " \"services\": ["
    "   {\"id\": \"orders\", \"kind\": \"broker\", \"family\": \"channel\","
    "    \"max_deliveries\": 0},"
    "   {\"id\": \"workers\", \"kind\": \"consumers\", \"consumes\": \"orders\","
    "    \"key_store\": \"redis\"},"
    "   {\"id\": \"redis\", \"kind\": \"key_store\", \"durable\": true,"
    "    \"crash\": {\"every_ms\": {\"dist\": \"const\", \"value\": 3000},"
    "     \"restart_ms\": 1000}}],"
    " \"clients\": [{\"id\": \"app\", \"count\": 2, \"publishes\": \"orders\"}]}";

START_TEST(test_a_requeue_loop_while_the_store_is_down_is_warned)
{
    const char *at = "$.services[0].max_deliveries";
    const char *const none[SETS_MAX] = {NULL};
    char *why = warning_at(store_down_loop_scenario, none, at);
    ck_assert_ptr_nonnull(why);
    ck_assert_str_eq(why, "0 (unlimited), no redelivery delay: while the key store is down, a "
                          "refused delivery is requeued and refused again at once, a hot loop; "
                          "set redelivery_delay_ms");
    free(why);
    /* each twin ends the loop, or never starts it */
    const char *const twins[][SETS_MAX] = {
        {"services.orders.max_deliveries=20"},           /* dead-lettered after 20 */
        {"services.orders.redelivery_delay_ms=500"},     /* a try every half second */
        {"services.redis.when_down=\"proceed\""},        /* runs unchecked, nothing requeued */
        {"modes=[\"at-most-once\", \"at-least-once\"]"}, /* no store consulted */
    };
    for (size_t t = 0; t < sizeof twins / sizeof twins[0]; t++) {
        why = warning_at(store_down_loop_scenario, twins[t], at);
        ck_assert_msg(why == NULL, "twin %zu warned: %s", t, why);
    }
    /* a named queue's own limit, said at that queue */
    const char *const named[SETS_MAX] = {"services.orders.queues=[{\"name\": \"jobs\"}]"};
    why = warning_at(store_down_loop_scenario, named, "$.services[0].queues[0].max_deliveries");
    ck_assert_ptr_nonnull(why);
    free(why);
}
END_TEST

START_TEST(test_inert_field_is_warned_and_its_live_twin_is_not)
{
    const InertCase *c = &cases[_i];
    ck_assert_msg(warns(c->sets, c->path), "case %d: no warning at %s", _i, c->path);
    ck_assert_msg(!warns(c->twin, c->path), "case %d: live twin warned at %s", _i, c->path);
}
END_TEST

START_TEST(test_base_scenario_has_no_warning)
{
    const char *none[SETS_MAX] = {NULL};
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors *errors = calloc(1, sizeof *errors);
    LoadErrors *warnings = calloc(1, sizeof *warnings);
    ck_assert(
        scenario_load_text(base_scenario, sizeof base_scenario - 1, none, 0, scenario, errors));
    scenario_inert_warnings(scenario, warnings);
    ck_assert_uint_eq(warnings->count, 0);
    free(scenario);
    free(errors);
    free(warnings);
}
END_TEST

/* A log broker rebalances at multiples of rebalance_every_ms within the run: an interval
 * longer than the run never fires, an error naming the field; one within it loads. */
static bool loads_with(const char *rebalance, LoadErrors *errors)
{
    const char *sets[] = {"clients[0].target=\"broker\"", "broker.family=\"log\"", rebalance};
    Scenario *scenario = calloc(1, sizeof *scenario);
    ck_assert_ptr_nonnull(scenario);
    bool loaded =
        scenario_load_text(base_scenario, sizeof base_scenario - 1, sets, 3, scenario, errors);
    free(scenario);
    return loaded;
}

START_TEST(test_rebalance_after_the_run_is_an_error)
{
    LoadErrors *errors = calloc(1, sizeof *errors);
    ck_assert(!loads_with("broker.rebalance_every_ms=20000", errors));
    ck_assert_uint_eq(errors->count, 1);
    ck_assert_str_eq(errors->items[0].path, "$.broker.rebalance_every_ms");
    ck_assert_ptr_nonnull(strstr(errors->items[0].message, "expected at most duration_ms"));
    memset(errors, 0, sizeof *errors);
    ck_assert(loads_with("broker.rebalance_every_ms=5000", errors));
    free(errors);
}
END_TEST

static Suite *inert_suite(void)
{
    Suite *suite = suite_create("inert");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_a_consumer_groups_idle_instance_fields_are_warned);
    tcase_add_test(core, test_a_later_groups_idle_fields_are_warned_at_its_entries);
    tcase_add_loop_test(core, test_inert_field_is_warned_and_its_live_twin_is_not, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_loop_test(core,
                        test_services_form_field_is_warned_at_its_entry_and_its_live_twin_is_not, 0,
                        (int)(sizeof services_cases / sizeof services_cases[0]));
    tcase_add_test(core, test_base_scenario_has_no_warning);
    tcase_add_test(core, test_a_consumer_groups_idle_undo_is_warned_at_its_step);
    tcase_add_test(core, test_a_groups_saga_counts_the_debits_of_its_own_queues);
    tcase_add_test(core, test_a_servers_saga_counts_the_debits_that_reach_it);
    tcase_add_test(core, test_rebalance_after_the_run_is_an_error);
    tcase_add_test(core, test_two_groups_emailing_copies_of_one_exchange_are_warned);
    tcase_add_test(core, test_two_groups_emailing_on_a_log_are_warned);
    tcase_add_test(core, test_a_requeue_loop_while_the_store_is_down_is_warned);
    tcase_add_test(core, test_a_proxys_retry_host_is_warned_where_no_retry_can_choose);
    tcase_add_test(core, test_a_proxys_balancer_is_warned_where_it_has_nothing_to_do);
    suite_add_tcase(suite, core);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(inert_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
