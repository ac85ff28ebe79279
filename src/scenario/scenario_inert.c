/* Times that can never come, refused with their path (issue 24). Kept out of the schema
 * files: it reads the resolved Scenario, whatever form (top-level actors or services) it
 * was written in, so one check serves both.
 *
 * Operations start only up to duration_ms (client.c: a start later than it is never
 * scheduled), so a scripted start or a first start past it never fires. An outage that
 * begins after duration_ms could only meet the drain (retries of operations started in
 * time): that is not what an outage window in a scenario is for, and with every library
 * scenario it met nothing, so it is refused too rather than left to look like a lesson. */
#include "scenario_inert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_errors.h"

static void check_workloads(const Scenario *scenario, LoadErrors *errors)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const WorkloadSpec *workload = &scenario->client_groups[g].workload;
        char path[JSON_PATH_LEN_MAX];
        if (workload->start_ms > scenario->duration_ms) {
            snprintf(path, sizeof path, "$.clients[%u].workload.start_ms", g);
            scenario_errors_add(errors, path,
                                "expected at most duration_ms (%g): no operation starts after "
                                "it (got %g)",
                                scenario->duration_ms, workload->start_ms);
        }
        for (uint32_t k = 0; k < workload->at_count; k++) {
            if (workload->at_ms[k] <= scenario->duration_ms)
                continue;
            snprintf(path, sizeof path, "$.clients[%u].workload.at_ms[%u]", g, k);
            scenario_errors_add(errors, path,
                                "expected at most duration_ms (%g): an operation scripted after "
                                "it never starts (got %g)",
                                scenario->duration_ms, workload->at_ms[k]);
        }
    }
}

static void check_outages(const Scenario *scenario, LoadErrors *errors)
{
    for (uint32_t o = 0; o < scenario->network.outage_count; o++) {
        const OutageSpec *outage = &scenario->network.outages[o];
        if (outage->from_ms <= scenario->duration_ms)
            continue;
        char path[JSON_PATH_LEN_MAX];
        snprintf(path, sizeof path, "$.network.outages[%u].from_ms", o);
        scenario_errors_add(errors, path,
                            "expected at most duration_ms (%g): the outage would begin after "
                            "the run (got %g)",
                            scenario->duration_ms, outage->from_ms);
    }
    const ServerOutageSpec *outage = &scenario->server.outage;
    if (outage->enabled && outage->from_ms > scenario->duration_ms)
        scenario_errors_add(errors, "$.server.outage.from_ms",
                            "expected at most duration_ms (%g): the outage would begin after "
                            "the run (got %g)",
                            scenario->duration_ms, outage->from_ms);
}

/* ------------------------------------------------------------------ warnings */

#define RACE_WINDOW_DEFAULT_MS 10.0 /* scenario_services.c's default */
#define KEY_BITS_DEFAULT 64

static void warn_client_groups(const Scenario *scenario, LoadErrors *warnings)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        char path[JSON_PATH_LEN_MAX];
        if (group->retry.budget.enabled && group->retry.max_attempts == 1) {
            snprintf(path, sizeof path, "$.clients[%u].retry.budget", g);
            scenario_errors_add(warnings, path,
                                "has no effect with max_attempts 1: there is no retry to spend "
                                "a token on");
        }
        /* only a shed answer carries a Retry-After (server.c, shed) */
        if (group->retry.honour_retry_after && (scenario->server.queue == SERVER_QUEUE_UNBOUNDED ||
                                                scenario->server.shed.retry_after_ms == 0)) {
            snprintf(path, sizeof path, "$.clients[%u].retry.honour_retry_after", g);
            scenario_errors_add(warnings, path,
                                "has no effect: no answer carries a Retry-After (%s)",
                                scenario->server.queue == SERVER_QUEUE_UNBOUNDED
                                    ? "server.queue is unbounded, so the server never sheds"
                                    : "server.shed.retry_after_ms is 0");
        }
        /* random bits are drawn only for per-attempt, per-click and message-id keys */
        if (group->key_bits != KEY_BITS_DEFAULT &&
            (group->key == KEY_BUSINESS_HASH || group->key == KEY_NONE ||
             group->key == KEY_SERVER_GENERATED)) {
            snprintf(path, sizeof path, "$.clients[%u].key_bits", g);
            scenario_errors_add(warnings, path,
                                "has no effect with key '%s': the client draws no random key",
                                key_strategy_name(group->key));
        }
    }
}

static void warn_store(const IdempotencySpec *store, const char *at, LoadErrors *warnings)
{
    char path[JSON_PATH_LEN_MAX];
    if (store->race_window_ms != RACE_WINDOW_DEFAULT_MS &&
        store->reserve != RESERVE_CHECK_THEN_INSERT) {
        snprintf(path, sizeof path, "%s.race_window_ms", at);
        scenario_errors_add(warnings, path,
                            "has no effect unless reserve is 'check-then-insert' (the window "
                            "lies between its check and its insert)");
    }
    /* a holder goes stale only when its row is taken over (lock timeout), expires (TTL) or
     * is lost in a failover, and another request reserves the key */
    if (store->fencing && store->lock_timeout_ms == 0 && store->ttl_ms == 0 &&
        store->replication_lag_ms == 0) {
        snprintf(path, sizeof path, "%s.fencing", at);
        scenario_errors_add(warnings, path,
                            "has no effect: without lock_timeout_ms, ttl_ms or a failover no "
                            "row is ever taken over, so no holder is ever stale");
    }
}

/* The smallest scenario: what the loader resolves every object to when the file leaves it
 * out, so "differs from it" is "was set" (a field set to its default is not caught). */
static const char minimal_scenario[] =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}], \"clients\": [{\"id\": \"c\"}]}";

/* A gateway or a broker object that no part of the world calls: the world holds the node
 * only when work can reach it (world.c, service_active), so none of its fields is read. */
static void warn_unused_services(const Scenario *scenario, LoadErrors *warnings)
{
    Scenario *plain = calloc(1, sizeof *plain);
    LoadErrors *errors = calloc(1, sizeof *errors);
    if (plain != NULL && errors != NULL &&
        scenario_load_text(minimal_scenario, sizeof minimal_scenario - 1, NULL, 0, plain, errors)) {
        bool to_server = false, to_broker = false;
        for (uint32_t g = 0; g < scenario->client_group_count; g++) {
            to_server |= scenario->client_groups[g].target == TARGET_SERVER;
            to_broker |= scenario->client_groups[g].target == TARGET_BROKER;
        }
        to_broker |= to_server && scenario->server.publish_receipts;
        bool charged = (to_server && scenario->server.use_gateway) ||
                       (to_broker && scenario->broker.consumers.use_gateway);
        if (!charged && memcmp(&scenario->gateway, &plain->gateway, sizeof plain->gateway) != 0)
            scenario_errors_add(
                warnings, "$.gateway", "has no effect: nothing charges through the gateway (%s)",
                to_server ? "server.use_gateway is false" : "no client group calls the server");
        if (!to_broker && memcmp(&scenario->broker, &plain->broker, sizeof plain->broker) != 0)
            scenario_errors_add(warnings, "$.broker",
                                "has no effect: nothing publishes to the broker (no client group "
                                "has target 'broker', and the server publishes no receipts)");
    }
    free(plain);
    free(errors);
}

void scenario_inert_warnings(const Scenario *scenario, LoadErrors *warnings)
{
    warn_client_groups(scenario, warnings);
    warn_store(&scenario->server.idempotency, "$.server.idempotency", warnings);
    warn_unused_services(scenario, warnings);
}

void scenario_inert_check(const Scenario *scenario, LoadErrors *errors)
{
    check_workloads(scenario, errors);
    check_outages(scenario, errors);
}
