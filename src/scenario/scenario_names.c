/* Name tables, the name functions of scenario.h, and suggestions for misspelt names. */
#include "scenario_names.h"

#include <stdio.h>
#include <string.h>

#include "scenario.h"

#define TABLE(entries)                                                                             \
    {                                                                                              \
        entries, (unsigned)(sizeof entries / sizeof entries[0])                                    \
    }

/* ------------------------------------------------------------------ tables */

static const NameEntry modes[] = {
    {"at-most-once", MODE_AT_MOST_ONCE},
    {"at-least-once", MODE_AT_LEAST_ONCE},
    {"idempotent", MODE_IDEMPOTENT},
};
static const NameEntry operation_kinds[] = {
    {"debit", OPERATION_DEBIT},
    {"set-status", OPERATION_SET_STATUS},
    {"delete", OPERATION_DELETE},
    {"insert", OPERATION_INSERT},
    {"insert-unique", OPERATION_INSERT_UNIQUE},
    {"send-email", OPERATION_SEND_EMAIL},
    {"increment", OPERATION_INCREMENT},
};
static const NameEntry operation_resources[] = {
    {"per-operation", RESOURCE_PER_OPERATION},
    {"per-client", RESOURCE_PER_CLIENT},
};
static const NameEntry balance_updates[] = {
    {"atomic", BALANCE_UPDATE_ATOMIC},
    {"read-modify-write", BALANCE_UPDATE_READ_MODIFY_WRITE},
    {"compare-and-set", BALANCE_UPDATE_COMPARE_AND_SET},
};
static const NameEntry key_compares[] = {
    {"bytes", KEY_COMPARE_BYTES},
    {"normalised", KEY_COMPARE_NORMALISED},
};
static const NameEntry key_alphabets[] = {
    {"hex", KEY_ALPHABET_HEX},
    {"base62", KEY_ALPHABET_BASE62},
};
static const NameEntry library_replays[] = {
    {"keyed", LIBRARY_REPLAYS_KEYED},
    {"any", LIBRARY_REPLAYS_ANY},
};
static const NameEntry deadlines[] = {
    {"none", DEADLINE_NONE},
    {"ignored", DEADLINE_IGNORED},
    {"drop", DEADLINE_DROP},
};
static const NameEntry key_strategies[] = {
    {"none", KEY_NONE},
    {"per-attempt", KEY_PER_ATTEMPT},
    {"server-generated", KEY_SERVER_GENERATED},
    {"per-click", KEY_PER_CLICK},
    {"business-hash", KEY_BUSINESS_HASH},
    {"message-id", KEY_MESSAGE_ID},
};
static const NameEntry consumer_keys[] = {
    {"message-id", KEY_MESSAGE_ID},
    {"business-hash", KEY_BUSINESS_HASH},
};
static const NameEntry store_profiles[] = {
    {"ietf", PROFILE_IETF},
    {"stripe", PROFILE_STRIPE},
    {"brandur", PROFILE_BRANDUR},
};
static const NameEntry reserve_policies[] = {
    {"atomic", RESERVE_ATOMIC},
    {"check-then-insert", RESERVE_CHECK_THEN_INSERT},
    {"execute-then-save", RESERVE_EXECUTE_THEN_SAVE},
};
static const NameEntry failure_policies[] = {
    {"store", ON_FAILURE_STORE},
    {"delete", ON_FAILURE_DELETE},
    {"retryable", ON_FAILURE_RETRYABLE},
    {"keep", ON_FAILURE_KEEP},
    {"resume", ON_FAILURE_RESUME},
    {"mark-failed", ON_FAILURE_STORE}, /* the name before error classes: "store" */
};
static const NameEntry ttl_starts[] = {
    {"reservation", TTL_FROM_RESERVATION},
    {"completion", TTL_FROM_COMPLETION},
};
static const NameEntry crash_points[] = {
    {"none", CRASH_NONE},
    {"before-effect", CRASH_BEFORE_EFFECT},
    {"after-effect", CRASH_AFTER_EFFECT},
    {"after-completion", CRASH_AFTER_COMPLETION},
};
static const NameEntry proxy_crash_points[] = {
    {"none", CRASH_NONE},
    {"before-forward", CRASH_BEFORE_FORWARD},
    {"after-forward", CRASH_AFTER_FORWARD},
};
static const NameEntry jitters[] = {
    {"none", JITTER_NONE},
    {"full", JITTER_FULL},
    {"equal", JITTER_EQUAL},
    {"decorrelated", JITTER_DECORRELATED},
};
static const NameEntry late_responses[] = {
    {"ignore", LATE_RESPONSE_IGNORE},
    {"accept", LATE_RESPONSE_ACCEPT},
};
static const NameEntry loops[] = {
    {"closed", LOOP_CLOSED},
    {"open", LOOP_OPEN},
};
static const NameEntry targets[] = {
    {"server", TARGET_SERVER},
    {"broker", TARGET_BROKER},
};
static const NameEntry late_acks[] = {
    {"ignore", LATE_ACK_IGNORE},
    {"accept", LATE_ACK_ACCEPT},
};
static const NameEntry dead_letter_handlings[] = {
    {"keep", DEAD_LETTERS_KEEP},
    {"review", DEAD_LETTERS_REVIEW},
};
static const NameEntry dists[] = {
    {"const", DIST_CONST},   {"uniform", DIST_UNIFORM},     {"exp", DIST_EXP},
    {"normal", DIST_NORMAL}, {"lognormal", DIST_LOGNORMAL}, {"pareto", DIST_PARETO},
};
static const NameEntry loss_models[] = {
    {"bernoulli", LOSS_BERNOULLI},
    {"gilbert-elliott", LOSS_GILBERT_ELLIOTT},
};
static const NameEntry retry_ons[] = {
    {"timeout", RETRY_ON_TIMEOUT},
    {"5xx", RETRY_ON_5XX},
    {"409", RETRY_ON_409},
};

const NameTable scenario_names_mode = TABLE(modes);
const NameTable scenario_names_operation_kind = TABLE(operation_kinds);
const NameTable scenario_names_operation_resource = TABLE(operation_resources);
const NameTable scenario_names_balance_update = TABLE(balance_updates);
const NameTable scenario_names_key_compare = TABLE(key_compares);
const NameTable scenario_names_key_alphabet = TABLE(key_alphabets);
const NameTable scenario_names_deadline = TABLE(deadlines);
const NameTable scenario_names_library_replays = TABLE(library_replays);
static const NameEntry captures[] = {{"immediate", CAPTURE_IMMEDIATE}, {"manual", CAPTURE_MANUAL}};
const NameTable scenario_names_capture = TABLE(captures);
const NameTable scenario_names_key_strategy = TABLE(key_strategies);
const NameTable scenario_names_consumer_key = TABLE(consumer_keys);
const NameTable scenario_names_store_profile = TABLE(store_profiles);
const NameTable scenario_names_reserve = TABLE(reserve_policies);
const NameTable scenario_names_on_failure = TABLE(failure_policies);
const NameTable scenario_names_ttl_from = TABLE(ttl_starts);
const NameTable scenario_names_crash_point = TABLE(crash_points);
const NameTable scenario_names_proxy_crash_point = TABLE(proxy_crash_points);
const NameTable scenario_names_jitter = TABLE(jitters);
const NameTable scenario_names_late_response = TABLE(late_responses);
const NameTable scenario_names_loop = TABLE(loops);
const NameTable scenario_names_target = TABLE(targets);
static const NameEntry vias[] = {{"direct", VIA_DIRECT}, {"proxy", VIA_PROXY}};
const NameTable scenario_names_via = TABLE(vias);
static const NameEntry budget_kinds[] = {{"finagle", BUDGET_KIND_FINAGLE},
                                         {"grpc", BUDGET_KIND_GRPC}};
const NameTable scenario_names_budget_kind = TABLE(budget_kinds);
static const NameEntry on_unknowns[] = {{"give-up", ON_UNKNOWN_GIVE_UP},
                                        {"lookup", ON_UNKNOWN_LOOKUP}};
const NameTable scenario_names_on_unknown = TABLE(on_unknowns);
static const NameEntry receipt_paths[] = {{"direct", RECEIPTS_DIRECT}, {"outbox", RECEIPTS_OUTBOX}};
const NameTable scenario_names_receipts_via = TABLE(receipt_paths);
static const NameEntry scopes[] = {{"global", SCOPE_GLOBAL}, {"account", SCOPE_ACCOUNT}};
const NameTable scenario_names_scope = TABLE(scopes);
static const NameEntry balancers[] = {{"round-robin", BALANCER_ROUND_ROBIN},
                                      {"random", BALANCER_RANDOM},
                                      {"key-hash", BALANCER_KEY_HASH}};
const NameTable scenario_names_balancer = TABLE(balancers);
static const NameEntry balancer_retries[] = {{"none", BALANCER_RETRY_NONE},
                                             {"connect-failure", BALANCER_RETRY_CONNECT_FAILURE}};
const NameTable scenario_names_balancer_retry = TABLE(balancer_retries);
static const NameEntry retry_hosts[] = {{"any", RETRY_HOST_ANY}, {"other", RETRY_HOST_OTHER}};
const NameTable scenario_names_retry_host = TABLE(retry_hosts);
static const NameEntry placements[] = {{"shared", PLACEMENT_SHARED},
                                       {"per-instance", PLACEMENT_PER_INSTANCE}};
const NameTable scenario_names_placement = TABLE(placements);
static const NameEntry store_reads[] = {{"primary", READS_PRIMARY}, {"replica", READS_REPLICA}};
const NameTable scenario_names_reads = TABLE(store_reads);
static const NameEntry when_down[] = {{"refuse", WHEN_DOWN_REFUSE}, {"proceed", WHEN_DOWN_PROCEED}};
const NameTable scenario_names_when_down = TABLE(when_down);
static const NameEntry call_keys[] = {
    {"forward", CALL_KEY_FORWARD}, {"derive", CALL_KEY_DERIVE}, {"none", CALL_KEY_NONE}};
const NameTable scenario_names_call_key = TABLE(call_keys);
static const NameEntry undo_keys[] = {
    {"derive", CALL_KEY_DERIVE}, {"per-try", CALL_KEY_PER_TRY}, {"none", CALL_KEY_NONE}};
const NameTable scenario_names_undo_key = TABLE(undo_keys);
static const NameEntry broker_families[] = {{"visibility-timeout", BROKER_VISIBILITY_TIMEOUT},
                                            {"channel", BROKER_CHANNEL},
                                            {"log", BROKER_LOG}};
const NameTable scenario_names_broker_family = TABLE(broker_families);
static const NameEntry commit_policies[] = {{"after", COMMIT_AFTER}, {"before", COMMIT_BEFORE}};
static const NameEntry isolation_levels[] = {{"read_uncommitted", ISOLATION_READ_UNCOMMITTED},
                                             {"read_committed", ISOLATION_READ_COMMITTED}};
const NameTable scenario_names_isolation = TABLE(isolation_levels);
const NameTable scenario_names_commit = TABLE(commit_policies);
const NameTable scenario_names_late_ack = TABLE(late_acks);
const NameTable scenario_names_dead_letters = TABLE(dead_letter_handlings);
const NameTable scenario_names_dist = TABLE(dists);
const NameTable scenario_names_loss_model = TABLE(loss_models);
const NameTable scenario_names_retry_on = TABLE(retry_ons);
static const NameEntry fault_kinds[] = {
    {"loss", FAULT_LOSS},
    {"duplicate", FAULT_DUPLICATE},
    {"delay", FAULT_DELAY},
    {"double-click", FAULT_DOUBLE_CLICK},
    {"offline", FAULT_OFFLINE},
    {"app-restart", FAULT_APP_RESTART},
    {"crash", FAULT_CRASH},
    {"fail-before-effect", FAULT_FAIL_BEFORE_EFFECT},
    {"fail-after-effect", FAULT_FAIL_AFTER_EFFECT},
    {"consumer-crash", FAULT_CONSUMER_CRASH},
    {"gateway-decline", FAULT_GATEWAY_DECLINE},
    {"gateway-silent", FAULT_GATEWAY_SILENT},
    {"fulfil-fail", FAULT_FULFIL_FAIL},
    {"stale-connection", FAULT_STALE_CONNECTION},
    {"close-before-answer", FAULT_CLOSE_BEFORE_ANSWER},
    {"second-firing", FAULT_SECOND_FIRING},
    {"capture-lost", FAULT_CAPTURE_LOST},
    {"proxy-crash", FAULT_PROXY_CRASH},
};
const NameTable scenario_names_fault_kind = TABLE(fault_kinds);
static const NameEntry fault_hops[] = {
    {"request", FAULT_HOP_REQUEST},
    {"response", FAULT_HOP_RESPONSE},
    {"charge", FAULT_HOP_CHARGE},
    {"charge-reply", FAULT_HOP_CHARGE_REPLY},
    {"delivery", FAULT_HOP_DELIVERY},
    {"ack", FAULT_HOP_ACK},
    {"status-query", FAULT_HOP_STATUS_QUERY},
    {"status-answer", FAULT_HOP_STATUS_ANSWER},
    {"refund", FAULT_HOP_REFUND},
    {"refund-reply", FAULT_HOP_REFUND_REPLY},
};
const NameTable scenario_names_fault_hop = TABLE(fault_hops);

/* The services' tables live with the node kinds' descriptors (node_kind.c). */

/* The report's metric names (DESIGN §5), outcome names included: what `expect` may name. */
const char *const scenario_metric_names[] = {
    "operations",
    "attempts",
    "executions",
    "effects",
    "client_succeeded",
    "client_failed",
    "client_unknown",
    "ok",
    "double",
    "lost",
    "phantom",
    "mismatch",
    "double_amount",
    "lost_amount",
    "replayed",
    "409",
    "422",
    "400",
    "202",
    "messages",
    "deliveries",
    "redeliveries",
    "dead_lettered",
    "deduplicated",
    "network_dropped",
    "network_duplicated",
    "latency_p50_ms",
    "latency_p99_ms",
    "latency_p999_ms",
    "key_store_peak",
    "crashes",
    "balance_error",
    "late_acks",
    "heartbeats",
    "emails_sent",
    "receipts_sent",
    "receipts_duplicated",
    "receipts_missing",
    "receipts_orphaned",
    "queue_depth_peak",
    "in_flight_peak",
    "proxy_retries",
    "proxy_timeouts",
    "status_queries",
    "resolved_by_lookup",
    "reconciled",
    "provider_charges",
    "call_retries",
    "redriven",
    "keys_lost_in_failover",
    "leaks",
    "channel_closures",
    "stale_overwrites",
    "stale_final",
    "412",
    "lost_updates",
    "lost_update_amount",
    "update_conflicts",
    "rebalances",
    "offset_commits",
    "shed",
    "resets",
    "retries",
    "retries_throttled",
    "amplification",
    "goodput_per_s",
    "attempts_peak_per_s",
    "declined",
    "refunded",
    "fulfil_failures",
    "refunds",
    "refund_retries",
    "double_refunds",
    "double_refund_amount",
    "balancer_retries",
    "work_after_deadline",
    "deadline_drops",
    "connection_closes",
    "library_retries",
    "orders_fulfilled_twice",
    "store_crashes",
    "keys_lost_in_store_crash",
    "refused_store_down",
    "unchecked_runs",
    "second_firings",
    "holds",
    "orphan_holds",
    "double_holds",
    "voids",
    "handler_failures",
    "dead_letters_reviewed",
    "dead_letters_charged",
    "transactions_aborted",
    "zombies_fenced",
    "captures_lost",
    "settlement_corrections",
    "proxy_crashes",
};
const unsigned scenario_metric_count =
    (unsigned)(sizeof scenario_metric_names / sizeof scenario_metric_names[0]);

/* ------------------------------------------------------------------ lookups */

bool scenario_names_find(const NameTable *table, const char *name, int *value)
{
    for (unsigned i = 0; i < table->count; i++) {
        if (strcmp(table->entries[i].name, name) == 0) {
            *value = table->entries[i].value;
            return true;
        }
    }
    return false;
}

const char *scenario_names_of(const NameTable *table, int value)
{
    for (unsigned i = 0; i < table->count; i++) {
        if (table->entries[i].value == value) {
            return table->entries[i].name;
        }
    }
    return NULL;
}

void scenario_names_list(const NameTable *table, char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (unsigned i = 0; i < table->count && used < size; i++) {
        int n = snprintf(buffer + used, size - used, "%s'%s'", i > 0 ? ", " : "",
                         table->entries[i].name);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* ------------------------------------------------------------------ scenario.h names */

static const char *name_or_unknown(const NameTable *table, int value)
{
    const char *name = scenario_names_of(table, value);
    return name != NULL ? name : "unknown";
}

const char *mode_name(Mode mode)
{
    return name_or_unknown(&scenario_names_mode, (int)mode);
}

bool mode_from_name(const char *name, Mode *mode)
{
    int value = 0;
    if (name == NULL || !scenario_names_find(&scenario_names_mode, name, &value)) {
        return false;
    }
    *mode = (Mode)value;
    return true;
}

const char *operation_kind_name(OperationKind kind)
{
    return name_or_unknown(&scenario_names_operation_kind, (int)kind);
}

const char *key_strategy_name(KeyStrategy key)
{
    return name_or_unknown(&scenario_names_key_strategy, (int)key);
}

const char *store_profile_name(StoreProfile profile)
{
    return name_or_unknown(&scenario_names_store_profile, (int)profile);
}

const char *service_kind_name(NodeKind kind)
{
    return name_or_unknown(&scenario_names_service_kind, (int)kind);
}

const char *fault_kind_name(FaultKind kind)
{
    return name_or_unknown(&scenario_names_fault_kind, (int)kind);
}

const char *fault_hop_name(FaultHop hop)
{
    return name_or_unknown(&scenario_names_fault_hop, (int)hop);
}

/* ------------------------------------------------------------------ suggestions */

#define SUGGEST_LEN_MAX 64
#define SCORE_NONE 100u
#define SCORE_PREFIX 3u

/* Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbours, which is how keys get mistyped ("tiemout"). Three rows, no allocation. */
static unsigned edit_distance(const char *a, size_t n, const char *b, size_t m)
{
    unsigned rows[3][SUGGEST_LEN_MAX + 1];
    unsigned *before = rows[0];
    unsigned *previous = rows[1];
    unsigned *current = rows[2];
    for (size_t j = 0; j <= m; j++) {
        previous[j] = (unsigned)j;
    }
    for (size_t i = 1; i <= n; i++) {
        current[0] = (unsigned)i;
        for (size_t j = 1; j <= m; j++) {
            unsigned cost = a[i - 1] == b[j - 1] ? 0u : 1u;
            unsigned best = previous[j - 1] + cost;
            if (previous[j] + 1 < best) {
                best = previous[j] + 1;
            }
            if (current[j - 1] + 1 < best) {
                best = current[j - 1] + 1;
            }
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                before[j - 2] + 1 < best) {
                best = before[j - 2] + 1;
            }
            current[j] = best;
        }
        unsigned *spare = before;
        before = previous;
        previous = current;
        current = spare;
    }
    return previous[m];
}

static unsigned suggestion_score(const char *typed, const char *candidate)
{
    size_t n = strlen(typed);
    size_t m = strlen(candidate);
    if (n > SUGGEST_LEN_MAX || m > SUGGEST_LEN_MAX) {
        return SCORE_NONE;
    }
    unsigned distance = edit_distance(typed, n, candidate, m);
    /* Two edits are allowed from six characters on: 'mean' is not a typo of 'min', and
     * 'r' is not one of 'p'. */
    if (distance <= (n < 6 ? 1u : 2u) && distance < n) {
        return distance;
    }
    bool typed_is_prefix = n >= 3 && strncmp(typed, candidate, n) == 0;
    bool candidate_is_prefix = m >= 3 && strncmp(typed, candidate, m) == 0;
    return typed_is_prefix || candidate_is_prefix ? SCORE_PREFIX : SCORE_NONE;
}

void scenario_names_suggest_init(NameSuggestion *suggestion, const char *typed)
{
    suggestion->typed = typed;
    suggestion->best = NULL;
    suggestion->best_score = SCORE_NONE;
}

void scenario_names_suggest_consider(NameSuggestion *suggestion, const char *candidate)
{
    unsigned score = suggestion_score(suggestion->typed, candidate);
    if (score < suggestion->best_score) {
        suggestion->best = candidate;
        suggestion->best_score = score;
    }
}

void scenario_names_suggest_table(NameSuggestion *suggestion, const NameTable *table)
{
    for (unsigned i = 0; i < table->count; i++) {
        scenario_names_suggest_consider(suggestion, table->entries[i].name);
    }
}
