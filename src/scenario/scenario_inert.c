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

#include "node_kind.h"
#include "scenario_errors.h"
#include "scenario_schema.h"

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
    for (uint32_t k = 0; k <= scenario->called_server_count; k++) {
        const ServerOutageSpec *outage =
            k == 0 ? &scenario->server.outage : &scenario->called_servers[k - 1].spec.outage;
        if (!outage->enabled || outage->from_ms <= scenario->duration_ms)
            continue;
        char path[JSON_PATH_LEN_MAX];
        if (k == 0)
            snprintf(path, sizeof path, "$.server.outage.from_ms");
        else
            snprintf(path, sizeof path, "$.services[%u].outage.from_ms",
                     scenario->called_servers[k - 1].entry - 1u);
        scenario_errors_add(errors, path,
                            "expected at most duration_ms (%g): the outage would begin after "
                            "the run (got %g)",
                            scenario->duration_ms, outage->from_ms);
    }
}

/* broker_log.c schedules a rebalance only at a multiple of the interval within the run: each
 * log's, said at its entry. */
static void check_rebalances(const Scenario *scenario, LoadErrors *errors)
{
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        if (broker->family != BROKER_LOG || broker->rebalance_every_ms <= scenario->duration_ms)
            continue;
        char path[JSON_PATH_LEN_MAX];
        if (b == 0)
            snprintf(path, sizeof path, "$.broker.rebalance_every_ms");
        else
            snprintf(path, sizeof path, "$.services[%u].rebalance_every_ms",
                     (unsigned)scenario->extra_brokers[b - 1].entry - 1u);
        scenario_errors_add(errors, path,
                            "expected at most duration_ms (%g): the first rebalance would come "
                            "after the run (got %g)",
                            scenario->duration_ms, broker->rebalance_every_ms);
    }
}

/* ------------------------------------------------------------------ warnings */

/* Each rule below names a field and the configuration in which the model never reads it
 * (the code named in its comment is the field's only reader), so "no effect" is exact, not
 * a guess. A field is judged against what the loader resolves an absent one to (`plain`,
 * the smallest scenario's resolved values), so a field set to its default is not caught and
 * a sweep starting from the default stays quiet. Rejected: fields whose only trace is a
 * diagnostic (cleanup_interval_ms with ttl_ms 0 still schedules sweeps, which the JSON
 * report's `events` counts) or the report's wording (on_in_progress and profile are shown
 * in the table even where no key is ever refused). */

#define KEY_BITS_DEFAULT 64

static void say(LoadErrors *warnings, const char *format_path, uint32_t index, const char *why)
{
    char path[JSON_PATH_LEN_MAX];
    snprintf(path, sizeof path, format_path, index);
    scenario_errors_add(warnings, path, "%s", why);
}

static bool distribution_equal(const Distribution *a, const Distribution *b)
{
    return a->kind == b->kind && a->a == b->a && a->b == b->b;
}

static bool broker_reached(const Scenario *scenario, const NodeReach *reach, uint32_t b);

/* A node of the world that work reaches: a client group, or a service in use. */
static bool node_reached(const Scenario *scenario, const char *name)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (strcmp(scenario->client_groups[g].id, name) == 0)
            return true;
    }
    /* each gateway by its own callers (node_kind_reached's gateway is any of them) */
    for (uint32_t g = 0; g <= scenario->extra_gateway_count; g++) {
        if (strcmp(scenario_gateway_id(scenario, g), name) == 0)
            return node_gateway_reached(scenario, g);
    }
    for (int kind = NODE_SERVER; kind < NODE_KIND_COUNT; kind++) {
        if (strcmp(scenario_service_id(scenario, (NodeKind)kind), name) == 0)
            return node_kind_reached(scenario, (NodeKind)kind);
    }
    /* a broker after the first, and its consumer groups, by what publishes to it */
    NodeReach reach = node_reach_of(scenario);
    for (uint32_t b = 1; b <= scenario->extra_broker_count; b++) {
        if (strcmp(scenario_broker_id(scenario, b), name) == 0)
            return broker_reached(scenario, &reach, b);
    }
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        const ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
        if (extra->spec.broker > 0 && strcmp(extra->id, name) == 0)
            return broker_reached(scenario, &reach, extra->spec.broker);
    }
    return true; /* unknown names were refused at load */
}

/* ------------------------------------------------------------------ client groups */

/* A click that sends one request and asks nothing after it (client.c): no retry
 * (max_attempts 1), a 409 ends it (max_conflicts 0 spends an attempt), no 202 to poll (the
 * server answers 409 while a key is in progress), no lookup on giving up. */
static bool sends_once(const Scenario *scenario, const ClientGroupSpec *group)
{
    return group->retry.max_attempts == 1 && group->retry.max_conflicts == 0 &&
           group->on_unknown == ON_UNKNOWN_GIVE_UP &&
           scenario->server.idempotency.on_in_progress != 202;
}

static void warn_retry(const Scenario *scenario, const ClientGroupSpec *group,
                       const ClientGroupSpec *plain, uint32_t g, LoadErrors *warnings)
{
    const RetrySpec *retry = &group->retry, *base = &plain->retry;
    if (retry->budget.enabled && retry->max_attempts == 1)
        say(warnings, "$.clients[%u].retry.budget", g,
            "has no effect with max_attempts 1: there is no retry to spend a token on");
    /* only a shed answer carries a Retry-After (server.c, shed) */
    if (retry->honour_retry_after && (scenario->server.queue == SERVER_QUEUE_UNBOUNDED ||
                                      scenario->server.shed.retry_after_ms == 0))
        say(warnings, "$.clients[%u].retry.honour_retry_after", g,
            scenario->server.queue == SERVER_QUEUE_UNBOUNDED
                ? "has no effect: no answer carries a Retry-After (server.queue is unbounded, "
                  "so the server never sheds)"
                : "has no effect: no answer carries a Retry-After (server.shed.retry_after_ms "
                  "is 0)");
    if (!sends_once(scenario, group))
        return;
    static const char once[] = "has no effect: the group never sends a second request "
                               "(max_attempts 1, max_conflicts 0, on_unknown 'give-up', and "
                               "the server answers 409 in progress)";
    if (retry->base_ms != base->base_ms || retry->factor != base->factor ||
        retry->max_ms != base->max_ms || retry->jitter != base->jitter)
        say(warnings, "$.clients[%u].retry.backoff", g, once);
    if (retry->on_timeout != base->on_timeout || retry->on_5xx != base->on_5xx ||
        retry->on_409 != base->on_409)
        say(warnings, "$.clients[%u].retry.retry_on", g, once);
    if (retry->late_response != base->late_response)
        say(warnings, "$.clients[%u].retry.late_response", g, once);
    if (retry->conflict_delay_ms != base->conflict_delay_ms)
        say(warnings, "$.clients[%u].retry.conflict_delay_ms", g, once);
}

static void warn_workload(const WorkloadSpec *workload, const WorkloadSpec *base, uint32_t g,
                          LoadErrors *warnings)
{
    /* scripted times replace the clock (client.c, schedule_next_operation) */
    static const char scripted[] = "has no effect with at_ms: the scripted times say when each "
                                   "operation starts";
    if (workload->at_count > 0 && !distribution_equal(&workload->interval_ms, &base->interval_ms))
        say(warnings, "$.clients[%u].workload.interval_ms", g, scripted);
    if (workload->at_count > 0 && workload->start_ms != base->start_ms)
        say(warnings, "$.clients[%u].workload.start_ms", g, scripted);
    if (workload->loop != base->loop && (workload->at_count > 0 || workload->ops == 1))
        say(warnings, "$.clients[%u].workload.loop", g,
            workload->at_count > 0 ? scripted
                                   : "has no effect with ops 1: each client has no next "
                                     "operation to start");
}

/* Keys the client draws itself and keeps for a click (client.c, key_for). */
static bool key_drawn_per_click(KeyStrategy key)
{
    return key == KEY_PER_CLICK || key == KEY_MESSAGE_ID;
}

static void warn_chances(const ClientGroupSpec *group, const ClientGroupSpec *plain, uint32_t g,
                         LoadErrors *warnings)
{
    if (group->double_click.prob == 0 &&
        !distribution_equal(&group->double_click.delay_ms, &plain->double_click.delay_ms))
        say(warnings, "$.clients[%u].double_click.delay_ms", g,
            "has no effect with prob 0: there is no second click to delay");
    /* client.c, client_on_operation_start: read only for a second instance */
    if (group->schedule.instances == 1 && group->schedule.both_fire != plain->schedule.both_fire)
        say(warnings, "$.clients[%u].schedule.both_fire", g,
            "has no effect with instances 1: no second instance fires");
    if (group->schedule.instances == 1 &&
        !distribution_equal(&group->schedule.skew_ms, &plain->schedule.skew_ms))
        say(warnings, "$.clients[%u].schedule.skew_ms", g,
            "has no effect with instances 1: no second instance fires");
    else if (group->schedule.both_fire == 0 &&
             !distribution_equal(&group->schedule.skew_ms, &plain->schedule.skew_ms))
        say(warnings, "$.clients[%u].schedule.skew_ms", g,
            "has no effect with both_fire 0: the second instance never fires");
    if (group->schedule.instances > 1 && group->schedule.both_fire == 0)
        say(warnings, "$.clients[%u].schedule.instances", g,
            "has no effect with both_fire 0: the second instance never fires");
    if (group->offline.prob == 0 &&
        !distribution_equal(&group->offline.duration_ms, &plain->offline.duration_ms))
        say(warnings, "$.clients[%u].offline.duration_ms", g,
            "has no effect with prob 0: the client never goes offline");
    if (group->restart.prob == 0 &&
        !distribution_equal(&group->restart.delay_ms, &plain->restart.delay_ms))
        say(warnings, "$.clients[%u].restart.delay_ms", g,
            "has no effect with prob 0: the app never restarts");
    /* read only when the app restarts (client.c, app_restarts); a business-hash key is
     * derived again, no key is nothing to forget (a per-attempt key's loss is traced) */
    if (group->key_persisted && group->restart.prob == 0)
        say(warnings, "$.clients[%u].key_persisted", g,
            "has no effect with restart.prob 0: the app never restarts, so the key is never "
            "forgotten");
    else if (group->key_persisted &&
             (group->key == KEY_NONE || group->key == KEY_SERVER_GENERATED ||
              group->key == KEY_BUSINESS_HASH))
        say(warnings, "$.clients[%u].key_persisted", g,
            "has no effect: the app keeps no key of its own that a restart could lose (key "
            "'none', 'server-generated' or 'business-hash')");
    /* client.c, begin_click: the previous operation's key, for keys kept per click */
    if (group->key_reuse > 0 && group->workload.ops == 1)
        say(warnings, "$.clients[%u].key_reuse", g,
            "has no effect with ops 1: each client has no previous operation's key to reuse");
    else if (group->key_reuse > 0 && !key_drawn_per_click(group->key) &&
             group->key != KEY_BUSINESS_HASH)
        say(warnings, "$.clients[%u].key_reuse", g,
            "has no effect: the key strategy keeps no key from one operation to the next");
}

/* The consumer group that runs a client group's debits, or NULL when it calls the server. */
static const ConsumerSpec *group_runner(const Scenario *scenario, const ClientGroupSpec *group)
{
    return group->target == TARGET_BROKER ? scenario_group_applying(scenario, group) : NULL;
}

/* How many handlers of a client group's debits run at once (the server's, or those of the
 * consumer group that takes its queue); 0: unbounded. */
static uint32_t handlers_at_once(const Scenario *scenario, const ClientGroupSpec *group)
{
    const ConsumerSpec *consumers = group_runner(scenario, group);
    if (consumers != NULL)
        return consumers->workers * scenario_group_instances(consumers);
    return scenario->server.workers == 0 ? 0
                                         : scenario->server.workers * scenario->server.instances;
}

/* balance_update.c: a read-modify-write loses, and a compare-and-set refuses, only a write
 * that lands between a handler's read and its write. When every debit of the account is run
 * by one actor (the server, or one consumer group) whose handlers run one at a time, none
 * can. */
static void warn_update(const Scenario *scenario, const ClientGroupSpec *group, uint32_t g,
                        LoadErrors *warnings)
{
    if (group->operation.update == BALANCE_UPDATE_ATOMIC ||
        group->operation.kind != OPERATION_DEBIT)
        return;
    for (uint32_t other = 0; other < scenario->client_group_count; other++) {
        const ClientGroupSpec *writer = &scenario->client_groups[other];
        if (writer->account == group->account && writer->operation.kind == OPERATION_DEBIT &&
            (writer->target != group->target ||
             group_runner(scenario, writer) != group_runner(scenario, group)))
            return; /* two actors debit the account */
    }
    if (handlers_at_once(scenario, group) != 1)
        return;
    say(warnings, "$.clients[%u].operation.update", g,
        group->target == TARGET_BROKER
            ? "has no effect with one worker in the consumer group that takes its queue: the "
              "account's debits run one at a time, so no write falls between a handler's read "
              "and its write"
            : "has no effect with one server worker: the account's debits run one at a time, so "
              "no write falls between a handler's read and its write");
}

static bool runs_mode(const Scenario *scenario, Mode mode);

/* key_spelling.c: a retry respells the key the client keeps for its click; only the server's
 * store compares it otherwise than as sent, and only in the idempotent mode. */
static void warn_key_spelling(const Scenario *scenario, const ClientGroupSpec *group, uint32_t g,
                              LoadErrors *warnings)
{
    if (group->key_respelled > 0) {
        if (group->key == KEY_NONE || group->key == KEY_SERVER_GENERATED ||
            group->key == KEY_PER_ATTEMPT)
            say(warnings, "$.clients[%u].key_respelled", g,
                "has no effect: the client keeps no key from one attempt to the next (key "
                "'none', 'server-generated' or 'per-attempt')");
        else if (sends_once(scenario, group))
            say(warnings, "$.clients[%u].key_respelled", g,
                "has no effect: the client never retries, and only a retry respells its key");
        else if (!runs_mode(scenario, MODE_IDEMPOTENT))
            say(warnings, "$.clients[%u].key_respelled", g,
                "has no effect: keys are compared in the idempotent mode only, which the "
                "scenario does not run");
    }
    if (group->key_alphabet == KEY_ALPHABET_BASE62 &&
        (group->target == TARGET_BROKER ||
         scenario->server.idempotency.compare == KEY_COMPARE_BYTES))
        say(warnings, "$.clients[%u].key_alphabet", g,
            "has no effect: its keys are compared as bytes (server.idempotency.compare "
            "'bytes', or the broker's ids), where a key's case is part of it");
}

/* connection.c: the library sends again only an answer that is a closed connection (a
 * close the server draws, or a reset of its outage), and with 'keyed' only a request that
 * carries a key header. */
static void warn_library_retries(const Scenario *scenario, const ClientGroupSpec *group,
                                 const ClientGroupSpec *plain, uint32_t g, LoadErrors *warnings)
{
    if (group->library_retries == 0) {
        if (group->library_replays != plain->library_replays)
            say(warnings, "$.clients[%u].library_replays", g,
                "has no effect with library_retries 0: the library sends nothing again");
        return;
    }
    const ServerSpec *server = &scenario->server;
    if (server->stale_connections == 0 && server->closes_before_answer == 0 &&
        !server->outage.enabled)
        say(warnings, "$.clients[%u].library_retries", g,
            "has no effect: no connection closes before an answer (server.stale_connections, "
            "closes_before_answer and outage are off)");
    else if (group->library_replays == LIBRARY_REPLAYS_KEYED &&
             (group->key == KEY_NONE || group->key == KEY_SERVER_GENERATED))
        say(warnings, "$.clients[%u].library_retries", g,
            "has no effect: the requests carry no key header, and library_replays 'keyed' "
            "sends only those again");
}

static void warn_client_groups(const Scenario *scenario, const Scenario *plain,
                               LoadErrors *warnings)
{
    const ClientGroupSpec *base = &plain->client_groups[0];
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        warn_retry(scenario, group, base, g, warnings);
        warn_workload(&group->workload, &base->workload, g, warnings);
        warn_chances(group, base, g, warnings);
        warn_update(scenario, group, g, warnings);
        warn_key_spelling(scenario, group, g, warnings);
        warn_library_retries(scenario, group, base, g, warnings);
        /* random bits are drawn only for per-attempt, per-click and message-id keys */
        if (group->key_bits != KEY_BITS_DEFAULT &&
            (group->key == KEY_BUSINESS_HASH || group->key == KEY_NONE ||
             group->key == KEY_SERVER_GENERATED)) {
            char why[120];
            snprintf(why, sizeof why, "has no effect with key '%s': the client draws no random key",
                     key_strategy_name(group->key));
            say(warnings, "$.clients[%u].key_bits", g, why);
        }
        /* client.c, retry_or_give_up: a lookup needs the key the client sent */
        if (group->on_unknown == ON_UNKNOWN_LOOKUP &&
            (group->key == KEY_NONE || group->key == KEY_SERVER_GENERATED))
            say(warnings, "$.clients[%u].on_unknown", g,
                "has no effect: the client holds no key to look up (key 'none' or "
                "'server-generated')");
    }
}

/* ------------------------------------------------------------------ key stores and crashes */

static bool runs_mode(const Scenario *scenario, Mode mode)
{
    for (uint32_t m = 0; m < scenario->mode_count; m++) {
        if (scenario->modes[m] == mode)
            return true;
    }
    return false;
}

/* Every field the model reads, the profile aside: reports name it in every mode. */
static bool store_equal(const IdempotencySpec *a, const IdempotencySpec *b)
{
    return a->reserve == b->reserve && a->race_window_ms == b->race_window_ms &&
           a->ttl_ms == b->ttl_ms && a->ttl_from == b->ttl_from &&
           a->cleanup_interval_ms == b->cleanup_interval_ms && a->fingerprint == b->fingerprint &&
           a->on_in_progress == b->on_in_progress &&
           a->on_failure.definite == b->on_failure.definite &&
           a->on_failure.ambiguous == b->on_failure.ambiguous && a->durable == b->durable &&
           a->required == b->required && a->lock_timeout_ms == b->lock_timeout_ms &&
           a->fencing == b->fencing && a->replication_lag_ms == b->replication_lag_ms &&
           distribution_equal(&a->failover_every_ms, &b->failover_every_ms) && a->key == b->key &&
           a->scope == b->scope && a->compare == b->compare &&
           a->crash.enabled == b->crash.enabled &&
           distribution_equal(&a->crash.every_ms, &b->crash.every_ms) &&
           a->crash.restart_ms == b->crash.restart_ms &&
           a->crash.max_crashes == b->crash.max_crashes && a->when_down == b->when_down;
}

static void say_at(LoadErrors *warnings, const char *at, const char *field, const char *why)
{
    char path[JSON_PATH_LEN_MAX];
    snprintf(path, sizeof path, "%s.%s", at, field);
    scenario_errors_add(warnings, path, "%s", why);
}

/* One key store, the server's or the consumers' (key_protocol.c reads every field);
 * crashes: whether anything on its side can ever crash. */
static void warn_store(const Scenario *scenario, const IdempotencySpec *store,
                       const IdempotencySpec *plain, const char *at, bool crashes,
                       LoadErrors *warnings)
{
    if (!runs_mode(scenario, MODE_IDEMPOTENT)) { /* key_protocol_init: enabled in it only */
        if (!store_equal(store, plain))
            scenario_errors_add(warnings, at,
                                "has no effect: key stores are used in the idempotent mode "
                                "only, which the scenario does not run");
        return;
    }
    if (store->race_window_ms != plain->race_window_ms &&
        store->reserve != RESERVE_CHECK_THEN_INSERT)
        say_at(warnings, at, "race_window_ms",
               "has no effect unless reserve is 'check-then-insert' (the window lies between "
               "its check and its insert)");
    /* a holder goes stale only when its row is taken over (lock timeout), expires (TTL) or
     * is lost in a failover, and another request reserves the key */
    if (store->fencing && store->lock_timeout_ms == 0 && store->ttl_ms == 0 &&
        store->replication_lag_ms == 0)
        say_at(warnings, at, "fencing",
               "has no effect: without lock_timeout_ms, ttl_ms or a failover no row is ever "
               "taken over, so no holder is ever stale");
    if (store->ttl_ms == 0 && store->ttl_from != plain->ttl_from) /* expiry_from */
        say_at(warnings, at, "ttl_from", "has no effect with ttl_ms 0: keys never expire");
    if (store->replication_lag_ms == 0 &&
        !distribution_equal(&store->failover_every_ms, &plain->failover_every_ms))
        say_at(warnings, at, "failover_every_ms",
               "has no effect with replication_lag_ms 0: the store never fails over");
    if (store->when_down != plain->when_down && !store->crash.enabled) /* key_protocol_admit */
        say_at(warnings, at, "when_down",
               "has no effect without a crash of the store's own: the store is never down");
    if (store->durable != plain->durable && !crashes && !store->crash.enabled)
        say_at(warnings, at, "durable",
               "has no effect: nothing on this side ever crashes (no crash with a point and a "
               "prob, no outage), so the store never has to survive one");
    bool resumes = store->on_failure.definite == ON_FAILURE_RESUME ||
                   store->on_failure.ambiguous == ON_FAILURE_RESUME;
    /* key_spelling_stored: normalising changes a comparison only for a key sent in two
     * spellings or written in base62, by a group that calls the server */
    bool spelled_apart = false;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        spelled_apart |= group->target == TARGET_SERVER &&
                         (group->key_respelled > 0 || group->key_alphabet == KEY_ALPHABET_BASE62);
    }
    if (store->compare == KEY_COMPARE_NORMALISED && !spelled_apart)
        say_at(warnings, at, "compare",
               "has no effect: no key reaches the store in two spellings (key_respelled 0) "
               "nor with a case that means something (key_alphabet 'hex')");
    if (store->profile == PROFILE_STRIPE && !resumes && /* policy_for */
        (store->on_failure.definite != plain->on_failure.definite ||
         store->on_failure.ambiguous != plain->on_failure.ambiguous))
        say_at(warnings, at, "on_failure",
               "has no effect with profile 'stripe': it stores every answer, errors included");
}

static bool crash_never(const CrashSpec *crash)
{
    return crash->point == CRASH_NONE || crash->prob == 0;
}

static bool crash_equal(const CrashSpec *a, const CrashSpec *b)
{
    return a->point == b->point && a->prob == b->prob && a->restart_ms == b->restart_ms &&
           a->max_crashes == b->max_crashes;
}

static void warn_crash(const CrashSpec *crash, const CrashSpec *plain, const char *at,
                       LoadErrors *warnings)
{
    if (crash_never(crash) && !crash_equal(crash, plain)) /* draw_crash */
        scenario_errors_add(warnings, at,
                            "has no effect: with point 'none' or prob 0 nothing ever crashes");
}

/* ------------------------------------------------------------------ the server and the proxy */

/* The gateway a server's call step charges at, or NULL when it calls a server. */
static const GatewaySpec *called_gateway(const Scenario *scenario, const ServerSpec *server)
{
    return server->call_server == 0 ? scenario_gateway(scenario, server->call_gateway) : NULL;
}

/* A call step's fields (server_charge.c, consumers.c): the backoff waits between tries, and
 * the key reaches only a gateway that uses keys (it honours them, or the server asks it by
 * key when reconciling) or a called server (its key store reads it). They exist only in the
 * services form: said at the step of entry (0-based). */

/* The instances of the server a call step calls (0: it calls a gateway). */
static uint32_t callee_instances(const Scenario *scenario, bool calls_first_server,
                                 uint32_t call_server)
{
    const ServerSpec *callee = calls_first_server ? &scenario->server
                               : call_server > 0  ? &scenario->called_servers[call_server - 1].spec
                                                  : NULL;
    return callee == NULL ? 0 : callee->instances > 1 ? callee->instances : 1;
}

/* instances: the callee's (callee_instances; a call to a server never goes by an outbox) */
static void warn_call(const CallSpec *call, const CallSpec *base, int entry, bool asks_by_key,
                      const GatewaySpec *gateway, uint32_t instances, LoadErrors *warnings)
{
    char at[32]; /* "$.services[7].steps[0]" */
    snprintf(at, sizeof at, "$.services[%d].steps[0]", entry);
    if (call->retry_host != base->retry_host) { /* server_send_try, on a call's retry */
        if (instances <= 1)
            say_at(warnings, at, "retry_host",
                   "has no effect: it calls a gateway or a server of 1 instance, so every try "
                   "meets the same one");
        else if (call->retry.max_attempts <= 1)
            say_at(warnings, at, "retry_host",
                   "has no effect with max_attempts 1: there is no retry to send elsewhere");
    }
    if (call->retry.max_attempts <= 1 && call->retry.backoff_ms != base->retry.backoff_ms)
        say_at(warnings, at, "retry.backoff_ms",
               "has no effect with max_attempts 1: there is no next try to wait for");
    if (gateway != NULL && call->key != base->key && !gateway->honours_key && !asks_by_key)
        say_at(warnings, at, "key",
               "has no effect: the gateway neither honours keys nor is asked by one (set "
               "honours_key on it)");
}

/* Whether client group g's operations reach the first server: it calls it, or it publishes
 * to a queue of a consumer group whose call step calls that server (message_call: the call
 * is a request there, carrying the message's operation). A group's queue_mask numbers its own
 * broker's queues, so the queue must be of that broker. */
static bool operations_reach_server(const Scenario *scenario, uint32_t g)
{
    const ClientGroupSpec *group = &scenario->client_groups[g];
    if (group->target == TARGET_SERVER)
        return true;
    for (uint32_t k = 0; k <= scenario->extra_consumer_count; k++) {
        const ConsumerSpec *consumers = scenario_consumer_group(scenario, k);
        if (consumers->use_gateway && consumers->calls_first_server &&
            consumers->broker == group->broker && (consumers->queue_mask >> group->queue & 1u) != 0)
            return true;
    }
    return false;
}

/* Whether client group g's operations reach consumer group `consumers`: published to a queue
 * it consumes (its queue_mask, on its broker), or sent to the first server, which publishes
 * them as orders to one (publishes_orders, to the broker receipts_broker names). A receipt the
 * server publishes is charged by nobody (consumers.c, charges_through_gateway). */
static bool operations_reach_consumers(const Scenario *scenario, const ConsumerSpec *consumers,
                                       uint32_t g)
{
    const ClientGroupSpec *group = &scenario->client_groups[g];
    const ServerSpec *server = &scenario->server;
    bool published = group->target == TARGET_BROKER && group->broker == consumers->broker &&
                     (consumers->queue_mask >> group->queue & 1u) != 0;
    bool ordered = server->publishes_orders && server->receipts_broker == consumers->broker &&
                   (consumers->queue_mask >> server->receipts_queue & 1u) != 0 &&
                   operations_reach_server(scenario, g);
    return published || ordered;
}

/* A saga's steps (server_charge.c), the first server's (consumers NULL) or a consumer
 * group's: the fulfil step runs only after its call step's charge, which only an operation
 * reaching it makes, and then a debit when the call is to a gateway, any operation when it
 * is to a server (server.c, calls_for_effect; consumers.c, charges_through_gateway); the undo
 * runs only when the fulfil step can fail. */
static void warn_saga(const Scenario *scenario, const ConsumerSpec *consumers, int entry,
                      LoadErrors *warnings)
{
    const ServerSpec *server = &scenario->server;
    const UndoSpec *undo = consumers != NULL ? &consumers->undo : &server->undo;
    const FulfilSpec *fulfil = consumers != NULL ? &consumers->fulfil : &server->fulfil;
    if (!fulfil->enabled && !undo->enabled)
        return;
    bool calls_server = consumers != NULL
                            ? consumers->calls_first_server || consumers->call_server > 0
                            : server->call_server > 0;
    bool charged = false;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        bool reaches = consumers != NULL ? operations_reach_consumers(scenario, consumers, g)
                                         : operations_reach_server(scenario, g);
        charged |= reaches &&
                   (calls_server || scenario->client_groups[g].operation.kind == OPERATION_DEBIT);
    }
    char at[32]; /* "$.services[7].steps[1]" */
    if (!charged) {
        snprintf(at, sizeof at, "$.services[%d].steps[1]", entry);
        scenario_errors_add(warnings, at, "has no effect: %s, so nothing is charged before it",
                            calls_server ? "no client group's operations reach it"
                                         : "no client group whose operations reach it debits "
                                           "(its call step charges a debit only)");
        return;
    }
    if (fulfil->enabled && fulfil->fail <= 0 && !undo->enabled) {
        snprintf(at, sizeof at, "$.services[%d].steps[1]", entry);
        scenario_errors_add(warnings, at,
                            "has no effect with fail 0: the order never fails after its charge");
    }
    if (undo->enabled && !(fulfil->enabled && fulfil->fail > 0)) {
        snprintf(at, sizeof at, "$.services[%d].steps[0]", entry);
        say_at(warnings, at, "undo",
               "has no effect: no later step can fail (a fulfil step with fail > 0), so the "
               "charge is never refunded");
    }
    if (undo->enabled && undo->call.retry.max_attempts <= 1 && undo->call.retry.backoff_ms > 0) {
        snprintf(at, sizeof at, "$.services[%d].steps[0].undo", entry);
        say_at(warnings, at, "retry.backoff_ms",
               "has no effect with max_attempts 1: there is no next try to wait for");
    }
}

static void warn_server(const Scenario *scenario, const Scenario *plain, const NodeReach *reach,
                        LoadErrors *warnings)
{
    const ServerSpec *server = &scenario->server;
    bool deletes = false; /* ledger.c: every handler's delete, the consumers' included */
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        deletes |= scenario->client_groups[g].operation.kind == OPERATION_DELETE;
    if (server->delete_always_204 && !deletes)
        scenario_errors_add(warnings, "$.server.delete_always_204",
                            "has no effect: no client group's operation is a delete");
    bool relays_receipts = reach->to_server && scenario_server_publishes(server) &&
                           server->receipts_via == RECEIPTS_OUTBOX; /* server_charge.c */
    if (server->outbox_relay_ms != plain->server.outbox_relay_ms && !relays_receipts)
        scenario_errors_add(warnings, "$.server.outbox_relay_ms",
                            "has no effect: only a publish through the outbox (receipts, an "
                            "order API's orders) is relayed on this timer (receipts_via "
                            "'outbox')");
    /* server.c, publish_order: an order API applies no effect for a transaction to hold */
    if (server->publishes_orders && server->transaction != plain->server.transaction)
        scenario_errors_add(warnings, "$.server.transaction",
                            "has no effect: the server publishes the order and applies no "
                            "effect of its own (its outbox commits with the key row anyway)");
    /* server.c: the balancer and the placement choose among instances */
    if (server->instances <= 1 && server->balancer != plain->server.balancer)
        scenario_errors_add(warnings, "$.server.balancer",
                            "has no effect with 1 instance: there is no other to pick");
    if (server->instances <= 1 && server->balancer_retry != plain->server.balancer_retry)
        scenario_errors_add(warnings, "$.server.balancer_retry",
                            "has no effect with 1 instance: there is no other to send to");
    else if (server->balancer_retry != plain->server.balancer_retry && crash_never(&server->crash))
        scenario_errors_add(warnings, "$.server.balancer_retry",
                            server->outage.enabled
                                ? "has no effect: no instance is ever down alone (no crash; its "
                                  "outage takes every instance down at once)"
                                : "has no effect: no instance is ever down (no crash, no outage)");
    if (server->instances <= 1 &&
        server->idempotency.placement != plain->server.idempotency.placement)
        scenario_errors_add(warnings, "$.server.idempotency.placement",
                            "has no effect with 1 instance: its store is that instance's either "
                            "way");
    if (server->use_gateway)
        warn_call(&server->call, &plain->server.call, (int)scenario->service_entry[NODE_SERVER] - 1,
                  server->reconcile_ms > 0, called_gateway(scenario, server),
                  callee_instances(scenario, false, server->call_server), warnings);
    warn_saga(scenario, NULL, (int)scenario->service_entry[NODE_SERVER] - 1, warnings);
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, g);
        int entry = g == 0 ? (int)scenario->service_entry[NODE_CONSUMERS] - 1
                           : (int)scenario->extra_consumers[g - 1].entry - 1;
        warn_saga(scenario, group, entry, warnings);
        if (group->use_gateway)
            warn_call(&group->call, &plain->broker.consumers.call, entry, false,
                      group->call_server == 0 && !group->calls_first_server
                          ? scenario_gateway(scenario, group->call_gateway)
                          : NULL,
                      callee_instances(scenario, group->calls_first_server, group->call_server),
                      warnings);
    }
    /* client.c stamps a deadline only on a request to the server (deadline.c) */
    if (!reach->to_server && server->deadline != plain->server.deadline)
        scenario_errors_add(warnings, "$.server.deadline",
                            "has no effect: no client group calls the server, so no request "
                            "carries a deadline to it");
    /* connection.c: only requests to the server ride the connections it closes */
    static const char no_requests[] = "has no effect: no client group calls the server";
    if (!reach->to_server && server->stale_connections > 0)
        scenario_errors_add(warnings, "$.server.stale_connections", "%s", no_requests);
    if (!reach->to_server && server->closes_before_answer > 0)
        scenario_errors_add(warnings, "$.server.closes_before_answer", "%s", no_requests);
    if (!reach->to_server)
        return;
    warn_crash(&server->crash, &plain->server.crash, "$.server.crash", warnings);
    bool shared = false; /* with a called server: owned by none, so no server's crash wipes it */
    for (uint32_t c = 0; c < scenario->called_server_count; c++)
        shared |= scenario_called_store_shared_with(scenario, c) == 0;
    bool with_consumers = scenario_consumers_share_server_store(scenario); /* likewise */
    const IdempotencySpec *store = &server->idempotency;
    if ((shared || with_consumers) && store->durable != plain->server.idempotency.durable &&
        !store->crash.enabled && runs_mode(scenario, MODE_IDEMPOTENT))
        say_at(warnings, "$.server.idempotency", "durable",
               shared ? "has no effect: several servers share this store, and a server's crash "
                        "never wipes a store it shares"
                      : "has no effect: the consumer group shares this store, and no crash of "
                        "either wipes a store it shares");
    shared |= with_consumers;
    warn_store(scenario, store, &plain->server.idempotency, "$.server.idempotency",
               shared || !crash_never(&server->crash) || server->outage.enabled, warnings);
}

/* A called server's call and store are judged as the first server's are (its own crashes
 * and outage), and its balancer and its store's placement choose nothing for one instance.
 * Said at its own entries; a store it shares with a server before it is judged once, with
 * that server. */
static void warn_called_servers(const Scenario *scenario, const Scenario *plain,
                                LoadErrors *warnings)
{
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (!node_called_server_reached(scenario, c))
            continue; /* no request reaches it: its settings are not looked at */
        const CalledServerSpec *called = &scenario->called_servers[c];
        const ServerSpec *server = &called->spec;
        if (server->use_gateway)
            warn_call(&server->call, &plain->server.call, (int)called->entry - 1, false,
                      called_gateway(scenario, server),
                      callee_instances(scenario, false, server->call_server), warnings);
        /* server.c: its balancer chooses among its instances, which are down one by one
         * only after a crash (an outage takes every instance down at once) */
        char entry[32]; /* "$.services[11]" */
        snprintf(entry, sizeof entry, "$.services[%d]", (int)called->entry - 1);
        if (server->instances <= 1 && server->balancer != plain->server.balancer)
            say_at(warnings, entry, "balancer",
                   "has no effect with 1 instance: there is no other to pick");
        if (server->instances <= 1 && server->balancer_retry != plain->server.balancer_retry)
            say_at(warnings, entry, "balancer_retry",
                   "has no effect with 1 instance: there is no other to send to");
        else if (server->balancer_retry != plain->server.balancer_retry &&
                 crash_never(&server->crash))
            say_at(warnings, entry, "balancer_retry",
                   server->outage.enabled
                       ? "has no effect: no instance is ever down alone (no crash; its outage "
                         "takes every instance down at once)"
                       : "has no effect: no instance is ever down (no crash)");
        if (scenario_called_store_shared_with(scenario, c) >= 0)
            continue; /* one store, judged with the server before it that names it */
        char at[32];  /* "$.services[11]" */
        snprintf(at, sizeof at, "$.services[%d]", (int)called->store_entry - 1);
        bool shared = false; /* with a later called server: no server's crash wipes it */
        for (uint32_t d = c + 1; d < scenario->called_server_count; d++)
            shared |= scenario_called_store_shared_with(scenario, d) == (int)c + 1;
        const IdempotencySpec *store = &server->idempotency;
        if (shared && store->durable != plain->server.idempotency.durable &&
            runs_mode(scenario, MODE_IDEMPOTENT))
            say_at(warnings, at, "durable",
                   "has no effect: several servers share this store, and a server's crash never "
                   "wipes a store it shares");
        warn_store(scenario, store, &plain->server.idempotency, at,
                   shared || !crash_never(&server->crash) || server->outage.enabled, warnings);
        if (server->instances <= 1 &&
            server->idempotency.placement != plain->server.idempotency.placement)
            say_at(warnings, at, "placement",
                   "has no effect with 1 instance: its store is that instance's either way");
    }
}

/* Each proxy some group goes through (one nobody does is refused at load): its retry_on with
 * no retry, and forwards_key where no group through it sends a key (proxy.c: the key it
 * would drop). The first's said at $.proxy, an extra one's at its entry. */
static void warn_proxy(const Scenario *scenario, const Scenario *plain, LoadErrors *warnings)
{
    const ProxySpec *base = &plain->proxy;
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) {
        if (!scenario_proxy_used(scenario, p))
            continue;
        const ProxySpec *proxy = scenario_proxy(scenario, p);
        char at[32]; /* "$.proxy", "$.services[7]" */
        if (p == 0)
            snprintf(at, sizeof at, "$.proxy");
        else
            snprintf(at, sizeof at, "$.services[%d]", scenario->extra_proxies[p - 1].entry - 1);
        if (proxy->retries == 0 && (proxy->on_timeout != base->on_timeout ||
                                    proxy->on_5xx != base->on_5xx || proxy->on_409 != base->on_409))
            say_at(warnings, at, "retry_on",
                   "has no effect with retries 0: the proxy never tries again");
        char crash_at[JSON_PATH_LEN_MAX];
        snprintf(crash_at, sizeof crash_at, "%s.crash", at);
        warn_crash(&proxy->crash, &base->crash, crash_at, warnings);
        if (proxy->instances <= 1 && proxy->balancer != base->balancer)
            say_at(warnings, at, "balancer",
                   "has no effect with 1 instance: there is no other to pick");
        if (proxy->instances <= 1 && proxy->balancer_retry != base->balancer_retry)
            say_at(warnings, at, "balancer_retry",
                   "has no effect with 1 instance: there is no other to send to");
        else if (proxy->balancer_retry != base->balancer_retry && crash_never(&proxy->crash))
            say_at(warnings, at, "balancer_retry",
                   "has no effect: no instance is ever down (no crash with a point and a prob)");
        if (proxy->retry_host != base->retry_host && scenario->server.instances <= 1)
            say_at(warnings, at, "retry_host",
                   "has no effect: the server it calls runs 1 instance, so every try meets it");
        else if (proxy->retry_host != base->retry_host && proxy->retries == 0)
            say_at(warnings, at, "retry_host",
                   "has no effect with retries 0: the proxy never tries again");
        bool keyed = false;
        for (uint32_t g = 0; g < scenario->client_group_count; g++) {
            const ClientGroupSpec *group = &scenario->client_groups[g];
            keyed |= group->via == VIA_PROXY && group->proxy == p && group->key != KEY_NONE &&
                     group->key != KEY_SERVER_GENERATED;
        }
        if (proxy->forwards_key != base->forwards_key && !keyed)
            say_at(warnings, at, "forwards_key",
                   "has no effect: no group that goes through the proxy sends a key "
                   "(key 'none' or 'server-generated')");
    }
}

/* ------------------------------------------------------------------ the broker */

/* Where broker b's fields are said: the first's by its older path, which the services form
 * rewrites to its entry (scenario_services_path); the second's at its own entry. */
static void broker_at(const Scenario *scenario, uint32_t b, char at[32])
{
    if (b == 0)
        snprintf(at, 32, "$.broker");
    else
        snprintf(at, 32, "$.services[%u]", (unsigned)scenario->extra_brokers[b - 1].entry - 1);
}

/* A queue's field, said where the file wrote it: at the broker when its one queue is the
 * implicit "main" (the broker-level rules are that queue's), else in its queues entry. */
static void say_queue(LoadErrors *warnings, const Scenario *scenario, uint32_t b, uint32_t q,
                      const char *field, const char *why)
{
    const BrokerSpec *broker = scenario_broker(scenario, b);
    char at[32]; /* "$.broker", "$.services[11]" */
    broker_at(scenario, b, at);
    char path[JSON_PATH_LEN_MAX];
    bool implicit = broker->queue_count == 1 && strcmp(broker->queues[0].name, "main") == 0;
    if (implicit)
        snprintf(path, sizeof path, "%s%s%s", at, field[0] ? "." : "", field);
    else
        snprintf(path, sizeof path, "%s.queues[%u]%s%s", at, q, field[0] ? "." : "", field);
    scenario_errors_add(warnings, path, "%s", why);
}

/* Whether something publishes to broker b: a client group, or the server when a request
 * reaches it (its receipts, an order API's orders). With one broker, reach->to_broker. */
static bool broker_reached(const Scenario *scenario, const NodeReach *reach, uint32_t b)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        if (group->target == TARGET_BROKER && group->broker == b)
            return true;
    }
    return reach->to_server && scenario_server_publishes(&scenario->server) &&
           scenario->server.receipts_broker == b;
}

static bool queue_fed(const Scenario *scenario, const NodeReach *reach, uint32_t b, uint32_t q)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        if (group->target == TARGET_BROKER && group->broker == b &&
            (scenario_queues_reached(scenario, group) >> q & 1u))
            return true;
    }
    return reach->to_server && scenario_server_publishes(&scenario->server) &&
           scenario->server.receipts_broker == b && scenario->server.receipts_queue == q;
}

/* Where a consumer group's fields are said (at) and its key store's (store_at): the first
 * group's by their older paths, which the services form rewrites to its entries; a later
 * group's at its own entries. */
typedef struct {
    const ConsumerSpec *group;
    char at[40];
    char store_at[48];
} GroupPaths;

static GroupPaths group_paths(const Scenario *scenario, uint32_t g)
{
    GroupPaths paths = {.group = scenario_consumer_group(scenario, g)};
    if (g == 0) {
        snprintf(paths.at, sizeof paths.at, "$.broker.consumers");
        snprintf(paths.store_at, sizeof paths.store_at, "$.broker.consumers.idempotency");
        return paths;
    }
    const ExtraConsumersSpec *extra = &scenario->extra_consumers[g - 1];
    snprintf(paths.at, sizeof paths.at, "$.services[%u]", (unsigned)extra->entry - 1);
    snprintf(paths.store_at, sizeof paths.store_at, "$.services[%u]",
             (unsigned)extra->store_entry - 1);
    return paths;
}

/* C36: consumers.c records a failed run's key row by on_failure only when a handler fails
 * (fail_before_effect, fail_after_effect) or a charge at the gateway does; the dead-letter
 * consumer reviews only what the group's queues dead-letter. */
static void warn_consumer_failures(const Scenario *scenario, const Scenario *plain,
                                   const GroupPaths *paths, LoadErrors *warnings)
{
    const ConsumerSpec *consumers = paths->group;
    const FailurePolicies *policy = &consumers->idempotency.on_failure;
    const FailurePolicies *usual = &plain->broker.consumers.idempotency.on_failure;
    bool can_fail = consumers->fail_before_effect > 0 || consumers->fail_after_effect > 0 ||
                    consumers->use_gateway;
    if (!can_fail && runs_mode(scenario, MODE_IDEMPOTENT) &&
        (policy->definite != usual->definite || policy->ambiguous != usual->ambiguous))
        say_at(warnings, paths->store_at, "on_failure",
               "has no effect: no consumer handler ever fails (fail_before_effect and "
               "fail_after_effect 0, no charge through the gateway)");
    const BrokerSpec *broker = scenario_broker(scenario, consumers->broker); /* its queues */
    bool dead_letters = false;
    for (uint32_t q = 0; q < broker->queue_count; q++)
        dead_letters |= (consumers->queue_mask >> q & 1u) != 0 && broker->queues[q].dead_letter &&
                        broker->queues[q].max_deliveries > 0;
    if (consumers->dead_letters == DEAD_LETTERS_REVIEW && !dead_letters &&
        broker->family != BROKER_LOG) /* the log: refused at load */
        say_at(warnings, paths->at, "dead_letters",
               "has no effect with max_deliveries 0: a message is never dead-lettered");
    /* consumers.c, give_back_while_store_down: a store down forwards the record too (C38) */
    const IdempotencySpec *store = &consumers->idempotency;
    bool store_refuses = store->crash.enabled && store->when_down == WHEN_DOWN_REFUSE &&
                         runs_mode(scenario, MODE_IDEMPOTENT);
    if (consumers->retryable_topic.enabled && !can_fail && !store_refuses &&
        broker->family == BROKER_LOG) /* other families: refused at load */
        say_at(warnings, paths->at, "retryable_topic",
               "has no effect: no consumer handler ever fails (fail_before_effect and "
               "fail_after_effect 0, no charge through the gateway)");
}

/* A consumer group's crash, store and failure fields (consumers.c: the placement chooses
 * among instances, and a store the instances share outlives any instance's crash). */
static void warn_consumer_group(const Scenario *scenario, const Scenario *plain, uint32_t g,
                                LoadErrors *warnings)
{
    GroupPaths paths = group_paths(scenario, g);
    const ConsumerSpec *group = paths.group;
    char crash_at[48];
    snprintf(crash_at, sizeof crash_at, "%s.crash", paths.at);
    warn_crash(&group->crash, &plain->broker.consumers.crash, crash_at, warnings);
    const IdempotencySpec *store = &group->idempotency;
    const IdempotencySpec *usual = &plain->broker.consumers.idempotency;
    bool several = scenario_group_instances(group) > 1;
    if (!several && store->placement != usual->placement)
        say_at(warnings, paths.store_at, "placement",
               "has no effect with 1 instance: its store is that instance's either way");
    bool crashes = !crash_never(&group->crash);
    bool server_store = g == 0 && scenario_consumers_share_server_store(scenario);
    if (server_store)
        ; /* the first server's store: judged with the server */
    else if (several && store->placement == PLACEMENT_SHARED && store->durable != usual->durable &&
             crashes && !store->crash.enabled && /* its own restart reads it (C38) */
             runs_mode(scenario, MODE_IDEMPOTENT))
        say_at(warnings, paths.store_at, "durable",
               "has no effect: the group's instances share this store, and an instance's "
               "crash never wipes a store it shares");
    if (!server_store)
        warn_store(scenario, store, usual, paths.store_at, crashes, warnings);
    warn_consumer_failures(scenario, plain, &paths, warnings);
    if (group->session_timeout_ms > 0 && !crashes) /* broker_log.c: a crash starts it */
        say_at(warnings, paths.at, "session_timeout_ms",
               "has no effect: no instance of the group ever crashes, so no session ends");
}

/* ------------------------------------------------------------------ live, but costly */

/* The rules below warn of configuration the model does read, where what it does is most
 * likely not what its author meant and the report would show it only as a number among many
 * (every confirmation doubled, a requeue loop as hot as the links allow). They are warnings,
 * not errors: a lesson may mean them. */

static const char *consumer_group_id(const Scenario *scenario, uint32_t g)
{
    return g == 0 ? scenario->service_ids[NODE_CONSUMERS] : scenario->extra_consumers[g - 1].id;
}

/* Two consumer groups whose step emails, each taking a queue one fanout exchange copies to:
 * each gets its own copy of every message and sends the confirmation, and each keeps its
 * keys in its own store, so no mode catches the second (consumers.c keys a copy by its
 * message id in the taking group's store). One group taking both queues is another matter:
 * its one store can recognise the second copy (scenario-format.md, Fanout exchanges). Said
 * at the exchange's queues, naming the first two such groups. */
static void warn_confirmed_twice_on_log(const Scenario *scenario, uint32_t b, LoadErrors *warnings);
/* Broker b's: its exchanges', or its log's. */
static void warn_confirmed_twice(const Scenario *scenario, uint32_t b, LoadErrors *warnings)
{
    const BrokerSpec *broker = scenario_broker(scenario, b);
    if (broker->family == BROKER_LOG) {
        warn_confirmed_twice_on_log(scenario, b, warnings);
        return;
    }
    for (uint32_t e = 0; e < broker->exchange_count; e++) {
        uint32_t emailing[2];
        unsigned count = 0;
        for (uint32_t g = 0; g <= scenario->extra_consumer_count && count < 2; g++) {
            const ConsumerSpec *group = scenario_consumer_group(scenario, g);
            bool fed = false;
            for (uint32_t q = 0; q < broker->queue_count; q++)
                fed |= (broker->exchanges[e].queue_mask >> q & 1u) != 0 &&
                       scenario_group_of_queue(scenario, b, q) == group;
            if (fed && group->sends_email)
                emailing[count++] = g;
        }
        if (count < 2)
            continue;
        char at[32], path[JSON_PATH_LEN_MAX];
        broker_at(scenario, b, at);
        snprintf(path, sizeof path, "%s.exchanges[%u].queues", at, e);
        char why[sizeof warnings->items[0].message];
        int length = snprintf(why, sizeof why,
                              "every order is confirmed twice: '%s' and '%s' both email it, and "
                              "neither key store sees the other's copy; keep only one of their "
                              "queues",
                              consumer_group_id(scenario, emailing[0]),
                              consumer_group_id(scenario, emailing[1]));
        if (length < 0 || (size_t)length >= sizeof why) /* long names: the rule over them */
            snprintf(why, sizeof why,
                     "every order is confirmed twice: two groups taking these queues both email "
                     "it, and neither key store sees the other's copy; keep only one of them");
        scenario_errors_add(warnings, path, "%s", why);
    }
}

/* On a log every group reads every record: two later groups that email (the only thing a
 * later group on a log may do) each send every confirmation. Said at the second one's steps.
 * Only the log's groups: a second broker's group reads that broker's queues alone. */
static void warn_confirmed_twice_on_log(const Scenario *scenario, uint32_t b, LoadErrors *warnings)
{
    const ExtraConsumersSpec *first = NULL;
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        const ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
        if (!extra->spec.sends_email || extra->spec.broker != b)
            continue;
        if (first == NULL) {
            first = extra;
            continue;
        }
        char path[JSON_PATH_LEN_MAX];
        snprintf(path, sizeof path, "$.services[%u].steps", (unsigned)extra->entry - 1);
        char why[sizeof warnings->items[0].message];
        int length = snprintf(why, sizeof why,
                              "every order is confirmed twice: '%s' and '%s' each read every "
                              "record of the log and email it; keep one of the two groups",
                              first->id, extra->id);
        if (length < 0 || (size_t)length >= sizeof why) /* long names: the rule over them */
            snprintf(why, sizeof why,
                     "every order is confirmed twice: two groups each read every record of the "
                     "log and email it; keep one of them");
        scenario_errors_add(warnings, path, "%s", why);
        return;
    }
}

/* A queue with no delivery limit and no redelivery delay, taken by a group whose key store
 * crashes and refuses while down (when_down 'refuse', the default; idempotent mode): each
 * delivery the store refuses is nacked and requeued at once (consumers.c,
 * give_back_while_store_down; broker.c requeues without a count to stop at), so every message
 * goes round the broker and the consumers as fast as the links allow for the whole outage.
 * A real broker may loop so too (a classic queue has no delivery limit; a quorum queue's,
 * 20 by default since RabbitMQ 4.0, may be set to -1: RabbitMQ documentation, "Quorum
 * Queues", "Poison Message Handling"), so this loads, with a warning. */
static bool queue_loops_while_store_down(const Scenario *scenario, uint32_t b, uint32_t q)
{
    const QueueSpec *queue = &scenario_broker(scenario, b)->queues[q];
    if (queue->max_deliveries != 0 || queue->redelivery_delay_ms > 0 ||
        !runs_mode(scenario, MODE_IDEMPOTENT))
        return false;
    const ConsumerSpec *group = scenario_group_of_queue(scenario, b, q);
    const IdempotencySpec *store =
        group == &scenario->broker.consumers && scenario_consumers_share_server_store(scenario)
            ? &scenario->server.idempotency
            : &group->idempotency;
    return store->crash.enabled && store->when_down == WHEN_DOWN_REFUSE;
}

/* Broker b's queues (a queue family's: a log has none of their rules, refused at load). A
 * queue's rules are judged against the first broker's defaults, which every broker starts
 * from (scenario_services_broker_defaults). */
static void warn_queues(const Scenario *scenario, const Scenario *plain, const NodeReach *reach,
                        uint32_t b, LoadErrors *warnings)
{
    const BrokerSpec *broker = scenario_broker(scenario, b);
    const QueueSpec *base = &plain->broker.queues[0];
    for (uint32_t q = 0; q < broker->queue_count && broker->family != BROKER_LOG; q++) {
        const QueueSpec *queue = &broker->queues[q];
        if (broker->queue_count > 1 && !queue_fed(scenario, reach, b, q)) {
            char why[120];
            snprintf(why, sizeof why, "has no effect: nothing publishes to queue '%s'",
                     queue->name);
            say_queue(warnings, scenario, b, q, "", why);
            continue;
        }
        /* broker.c, requeue_unacked: the only reader of the three */
        static const char unlimited[] = "has no effect with max_deliveries 0: a message is never "
                                        "dead-lettered or discarded";
        if (queue->max_deliveries == 0 && queue->dead_letter != base->dead_letter)
            say_queue(warnings, scenario, b, q, "dead_letter", unlimited);
        if (queue->max_deliveries == 0 && queue->redrive_after_ms > 0)
            say_queue(warnings, scenario, b, q, "redrive_after_ms", unlimited);
        if (queue->max_deliveries == 1 && queue->redelivery_delay_ms != base->redelivery_delay_ms)
            say_queue(warnings, scenario, b, q, "redelivery_delay_ms",
                      "has no effect with max_deliveries 1: a message is never delivered again");
        if (queue_loops_while_store_down(scenario, b, q))
            say_queue(warnings, scenario, b, q, "max_deliveries",
                      "0 (unlimited), no redelivery delay: while the key store is down, a "
                      "refused delivery is requeued and refused again at once, a hot loop; set "
                      "redelivery_delay_ms");
    }
}

/* Each broker something publishes to, and the consumer groups of each: a broker nothing
 * publishes to is said whole (warn_unused_services), its groups with it. */
static void warn_broker(const Scenario *scenario, const Scenario *plain, const NodeReach *reach,
                        LoadErrors *warnings)
{
    if (!reach->to_broker)
        return; /* the whole object is said at once (warn_unused_services) */
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++) {
        if (broker_reached(scenario, reach, b))
            warn_queues(scenario, plain, reach, b, warnings);
    }
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        if (broker_reached(scenario, reach, scenario_consumer_group(scenario, g)->broker))
            warn_consumer_group(scenario, plain, g, warnings);
    }
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        if (!broker_reached(scenario, reach, b))
            continue;
        warn_confirmed_twice(scenario, b, warnings); /* its exchanges, or its log */
        char at[32];
        broker_at(scenario, b, at);
        if (broker->family == BROKER_LOG && !broker->transactional &&
            broker->isolation != plain->broker.isolation) /* broker_log.c, abort_output */
            say_at(warnings, at, "isolation",
                   "has no effect without transactional: no transaction ever aborts");
    }
}

/* ------------------------------------------------------------------ links and unused services */

/* Whether messages go between the nodes named a and b, either way: a request one sends the
 * other, or its answer. The graph's edges: each client group and the service it calls or
 * publishes to, each proxy and the server, each call step and its callee, the server that
 * publishes and the broker, the broker and its consumers. */
static bool nodes_talk(const Scenario *scenario, const char *a, const char *b)
{
    const char *edges[2 * CLIENT_GROUPS_MAX + PROXIES_EXTRA_MAX + CALLED_SERVERS_MAX +
                      2 * CONSUMER_GROUPS_EXTRA_MAX + 8][2];
    unsigned count = 0;
    const char *server = scenario->service_ids[NODE_SERVER];
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        const char *entry = group->target == TARGET_BROKER
                                ? scenario_broker_id(scenario, group->broker)
                            : group->via == VIA_PROXY ? scenario_proxy_id(scenario, group->proxy)
                                                      : server;
        edges[count][0] = group->id;
        edges[count++][1] = entry;
        if (group->target == TARGET_SERVER && group->via == VIA_PROXY) {
            edges[count][0] = group->id; /* its status queries go past the proxy (client.c) */
            edges[count++][1] = server;
        }
    }
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) {
        edges[count][0] = scenario_proxy_id(scenario, p);
        edges[count++][1] = server;
    }
    for (uint32_t k = 0; k <= scenario->called_server_count; k++) {
        const ServerSpec *spec = k == 0 ? &scenario->server : &scenario->called_servers[k - 1].spec;
        const char *id = k == 0 ? server : scenario->called_servers[k - 1].id;
        if (spec->use_gateway) {
            edges[count][0] = id;
            edges[count++][1] = scenario_call_target_id(scenario, spec);
        }
    }
    edges[count][0] = server;
    /* receipts, an order API's orders */
    edges[count++][1] = scenario_broker_id(scenario, scenario->server.receipts_broker);
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, g);
        const char *id =
            g == 0 ? scenario->service_ids[NODE_CONSUMERS] : scenario->extra_consumers[g - 1].id;
        edges[count][0] = scenario_broker_id(scenario, group->broker);
        edges[count++][1] = id;
        if (group->use_gateway) {
            edges[count][0] = id;
            edges[count++][1] = scenario_group_call_target_id(scenario, group);
        }
    }
    for (unsigned e = 0; e < count; e++) {
        if ((strcmp(edges[e][0], a) == 0 && strcmp(edges[e][1], b) == 0) ||
            (strcmp(edges[e][0], b) == 0 && strcmp(edges[e][1], a) == 0))
            return true;
    }
    return false;
}

/* A link or an outage between two nodes: one no work reaches, or two that exchange nothing,
 * has no effect. Said at path. */
static void warn_idle_link(const Scenario *scenario, const char *source, const char *target,
                           const char *path, LoadErrors *warnings)
{
    const char *idle = !node_reached(scenario, source)   ? source
                       : !node_reached(scenario, target) ? target
                                                         : NULL;
    if (idle != NULL) {
        scenario_errors_add(warnings, path,
                            "has no effect: no work reaches '%s', so nothing crosses this link",
                            idle);
        return;
    }
    if (nodes_talk(scenario, source, target))
        return;
    scenario_errors_add(warnings, path,
                        "has no effect: '%s' and '%s' exchange no message (no client group, "
                        "proxy or step of either calls or publishes to the other)",
                        source, target);
}

static void warn_network(const Scenario *scenario, LoadErrors *warnings)
{
    const NetworkSpec *network = &scenario->network;
    for (uint32_t i = 0; i < network->link_count; i++) {
        const LinkOverride *link = &network->links[i];
        char path[2 * NAME_LEN_MAX + 24]; /* cut to JSON_PATH_LEN_MAX when added */
        snprintf(path, sizeof path, "$.network.links.%s->%s", link->source, link->target);
        warn_idle_link(scenario, link->source, link->target, path, warnings);
    }
    for (uint32_t o = 0; o < network->outage_count; o++) {
        const OutageSpec *outage = &network->outages[o];
        if (outage->source[0] == '\0') /* every link */
            continue;
        char path[JSON_PATH_LEN_MAX];
        snprintf(path, sizeof path, "$.network.outages[%u].link", o);
        warn_idle_link(scenario, outage->source, outage->target, path, warnings);
    }
}

/* With two brokers, one that only the server publishes to when no request reaches the
 * server (a broker nothing names is refused at load): its messages never come, so none of its
 * fields, nor its groups', is read. Said at its entry, as an extra gateway's is, unless its
 * own fields keep their defaults (its groups are entries of their own). With one broker, or
 * none reached, warn_unused_services says the broker whole. */
static void warn_unused_brokers(const Scenario *scenario, const NodeReach *reach,
                                LoadErrors *warnings)
{
    if (scenario->extra_broker_count == 0 || !reach->to_broker)
        return;
    BrokerSpec *defaults = calloc(1, sizeof *defaults);
    if (defaults == NULL)
        return;
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        if (broker_reached(scenario, reach, b))
            continue;
        scenario_services_broker_defaults(defaults);
        defaults->family = broker->family; /* a family alone is no setting */
        defaults->consumers = broker->consumers;
        if (memcmp(broker, defaults, sizeof *defaults) == 0)
            continue;
        char at[32]; /* "$.broker", "$.services[11]" */
        broker_at(scenario, b, at);
        scenario_errors_add(warnings, at,
                            "has no effect: nothing publishes to broker '%s' (only the server's "
                            "publish step names it, and no request reaches the server)",
                            scenario_broker_id(scenario, b));
    }
    free(defaults);
}

/* A gateway or a broker object that no part of the world calls: the world holds the node
 * only when work can reach it (world.c, service_active), so none of its fields is read. */
static void warn_unused_services(const Scenario *scenario, const Scenario *plain,
                                 const NodeReach *reach, LoadErrors *warnings)
{
    /* each gateway by its own callers: with several, the consumers may charge at one while
     * no client group calls the server that charges at the other (node_gateway_reached) */
    if (!node_gateway_reached(scenario, 0) &&
        memcmp(&scenario->gateway, &plain->gateway, sizeof plain->gateway) != 0)
        scenario_errors_add(
            warnings, "$.gateway", "has no effect: nothing charges through the gateway (%s)",
            reach->to_server ? "server.use_gateway is false" : "no client group calls the server");
    GatewaySpec gateway_plain;
    scenario_services_gateway_defaults(&gateway_plain);
    for (uint32_t g = 1; g <= scenario->extra_gateway_count; g++) {
        const ExtraGatewaySpec *extra = &scenario->extra_gateways[g - 1];
        if (node_gateway_reached(scenario, g) ||
            memcmp(&extra->spec, &gateway_plain, sizeof gateway_plain) == 0)
            continue;
        char entry[32]; /* "$.services[11]" */
        snprintf(entry, sizeof entry, "$.services[%d]", (int)extra->entry - 1);
        scenario_errors_add(warnings, entry,
                            "has no effect: nothing charges through gateway '%s' (%s)", extra->id,
                            reach->to_server ? "nothing publishes to the broker"
                                             : "no client group calls the server");
    }
    /* gateway.c, gateway_void_late: only a hold is voided (C35) */
    if (reach->charged && scenario->gateway.void_late &&
        scenario->gateway.capture == CAPTURE_IMMEDIATE)
        scenario_errors_add(warnings, "$.gateway.void_late",
                            "has no effect with capture 'immediate': a charge places no hold "
                            "to void");
    /* gateway.c, gateway_capture_answer_lost: only a capture's answer is lost (C35) */
    if (reach->charged && scenario->gateway.capture_lost > 0 &&
        scenario->gateway.capture == CAPTURE_IMMEDIATE)
        scenario_errors_add(warnings, "$.gateway.capture_lost",
                            "has no effect with capture 'immediate': there is no capture "
                            "whose answer could be lost");
    /* gateway.c, gateway_on_settlement: the file corrects only captures believed failed */
    if (reach->charged && scenario->gateway.settlement_every_ms > 0 &&
        (scenario->gateway.capture == CAPTURE_IMMEDIATE || scenario->gateway.capture_lost <= 0))
        scenario_errors_add(warnings, "$.gateway.settlement_every_ms",
                            "has no effect without a lost capture (capture 'manual' and "
                            "capture_lost > 0): the caller believes nothing wrongly to correct");
    if (!reach->to_broker && memcmp(&scenario->broker, &plain->broker, sizeof plain->broker) != 0)
        scenario_errors_add(warnings, "$.broker",
                            "has no effect: nothing publishes to the broker (no client group "
                            "has target 'broker', and the server publishes no receipts)");
    warn_unused_brokers(scenario, reach, warnings);
}

/* The smallest scenario: what the loader resolves every object to when the file leaves it
 * out, so "differs from it" is "was set" (a field set to its default is not caught). */
static const char minimal_scenario[] =
    "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}], \"clients\": [{\"id\": \"c\"}]}";

void scenario_inert_warnings(const Scenario *scenario, LoadErrors *warnings)
{
    Scenario *plain = calloc(1, sizeof *plain);
    LoadErrors *errors = calloc(1, sizeof *errors);
    if (plain != NULL && errors != NULL &&
        scenario_load_text(minimal_scenario, sizeof minimal_scenario - 1, NULL, 0, plain, errors)) {
        NodeReach reach = node_reach_of(scenario);
        warn_client_groups(scenario, plain, warnings);
        warn_server(scenario, plain, &reach, warnings);
        warn_called_servers(scenario, plain, warnings);
        warn_proxy(scenario, plain, warnings);
        warn_broker(scenario, plain, &reach, warnings);
        warn_network(scenario, warnings);
        warn_unused_services(scenario, plain, &reach, warnings);
        for (uint32_t i = 0; i < warnings->count; i++)
            scenario_services_path(scenario, warnings->items[i].path,
                                   sizeof warnings->items[i].path);
    }
    free(plain);
    free(errors);
}

/* The outbox's entries live in the server's key store (server_charge.c): a charge's, a
 * receipt's or an order's relay, a reconciliation; a store that crashes on its own would
 * have to take them down with it, which is not modelled. Keys that
 * commit with the effect (a server's transaction, a consumer group's inbox) live in the
 * effect's own database: they cannot be down while the effect goes on. */
static void check_store_crash(const Scenario *scenario, LoadErrors *errors)
{
    static const char in_effects_database[] =
        "expected no crash of the store's own with %s (its keys commit with the effect in one "
        "database: never down apart)";
    if (scenario->server.idempotency.crash.enabled && scenario_server_has_outbox(&scenario->server))
        scenario_errors_add(errors, "$.server.idempotency.crash",
                            "expected no crash of the store's own with an outbox or reconcile_ms "
                            "(their entries live in the key store; its crash with pending "
                            "entries is not modelled)");
    else if (scenario->server.idempotency.crash.enabled && scenario->server.transaction)
        scenario_errors_add(errors, "$.server.idempotency.crash", in_effects_database,
                            "\"transaction\"");
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, g);
        if (!group->idempotency.crash.enabled || !group->inbox)
            continue;
        char path[JSON_PATH_LEN_MAX];
        if (g == 0)
            snprintf(path, sizeof path, "$.broker.consumers.idempotency.crash");
        else
            snprintf(path, sizeof path, "$.services[%u].crash",
                     scenario->extra_consumers[g - 1].store_entry - 1u);
        scenario_errors_add(errors, path, in_effects_database, "\"inbox\"");
    }
}

void scenario_inert_check(const Scenario *scenario, LoadErrors *errors)
{
    check_store_crash(scenario, errors);
    check_workloads(scenario, errors);
    check_outages(scenario, errors);
    check_rebalances(scenario, errors);
}
