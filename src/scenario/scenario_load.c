/* Loading a scenario: read the file, parse it (json_text.c), apply the --set overrides
 * (scenario_override.c), then validate and resolve defaults (scenario_schema.c and its
 * parts). Every stage records LoadErrors instead of stopping the program; the tree is
 * deleted before returning, so no cJSON pointer leaves this module. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "node_kind.h"
#include "scenario.h"
#include "scenario_errors.h"
#include "scenario_inert.h"
#include "scenario_override.h"
#include "scenario_schema.h"

/* A scenario is a few kilobytes; refusing anything past this keeps a wrong file argument
 * (a disk image, a log) from being read whole. */
#define SCENARIO_TEXT_LEN_MAX ((size_t)64 << 20)
#define READ_CHUNK ((size_t)64 << 10)

/* ------------------------------------------------------------------ the file */

static void too_large(LoadErrors *errors)
{
    scenario_errors_add(errors, "", "file too large: expected at most %zu bytes",
                        SCENARIO_TEXT_LEN_MAX);
}

/* Reads the whole file into *text (malloc'd, for the caller to free). */
static bool read_file(const char *file_path, char **text, size_t *length, LoadErrors *errors)
{
    FILE *file = fopen(file_path, "rb");
    if (file == NULL) {
        scenario_errors_add(errors, "", "cannot read file: %s", strerror(errno));
        return false;
    }
    char *buffer = NULL;
    size_t used = 0;
    size_t capacity = 0;
    bool ok = true;
    while (ok && !feof(file) && !ferror(file)) {
        if (used == capacity) {
            size_t next = capacity == 0 ? READ_CHUNK : capacity * 2;
            char *grown = realloc(buffer, next);
            if (grown == NULL) {
                scenario_errors_add(errors, "", "cannot read file: out of memory");
                ok = false;
                break;
            }
            buffer = grown;
            capacity = next;
        }
        used += fread(buffer + used, 1, capacity - used, file);
        if (used > SCENARIO_TEXT_LEN_MAX) {
            too_large(errors);
            ok = false;
        }
    }
    if (ok && ferror(file)) {
        if (errno == EISDIR) /* a directory opens for reading; only reading it fails */
            scenario_errors_add(errors, "",
                                "is a directory, not a scenario file (use DIR/*.json, or "
                                "idemsim check DIR)");
        else
            scenario_errors_add(errors, "", "cannot read file: %s", strerror(errno));
        ok = false;
    }
    fclose(file);
    if (!ok) {
        free(buffer);
        return false;
    }
    *text = buffer;
    *length = used;
    return true;
}

/* The file's name without directories and ".json": "scenarios/01_pay.json" -> "01_pay". */
static void name_from_path(const char *file_path, char name[NAME_LEN_MAX])
{
    const char *base = strrchr(file_path, '/');
    base = base != NULL ? base + 1 : file_path;
    size_t length = strlen(base);
    if (length > 5 && strcmp(base + length - 5, ".json") == 0) {
        length -= 5;
    }
    if (length == 0) {
        base = "scenario";
        length = strlen(base);
    }
    snprintf(name, NAME_LEN_MAX, "%.*s", (int)length, base);
    scenario_errors_trim_utf8(name);
}

/* ------------------------------------------------------------------ the stages */

/* True when the error at error_path was caused by a --set of set_path: the error lies on
 * or under the path that was set, or it is about the key that was set, reported on its
 * parent object ("$.network: unknown key 'los'" for network.los). Paths come without "$.". */
static bool error_is_about_set(const LoadError *error, const char *error_path, const char *set_path,
                               size_t set_length)
{
    size_t error_length = strlen(error_path);
    if (error_length >= set_length)
        return memcmp(error_path, set_path, set_length) == 0 &&
               (error_length == set_length || error_path[set_length] == '.' ||
                error_path[set_length] == '[');
    const char *key = set_path; /* the error is on the top-level object */
    if (error_length > 0) {
        if (memcmp(error_path, set_path, error_length) != 0 || set_path[error_length] != '.')
            return false;
        key = set_path + error_length + 1;
    }
    size_t key_length = strcspn(key, ".[");
    if (key_length > (size_t)(set_path + set_length - key))
        key_length = (size_t)(set_path + set_length - key);
    char quoted[SCENARIO_QUOTE_LEN_MAX + 3];
    snprintf(quoted, sizeof quoted, "'%.*s'", (int)key_length, key);
    return strstr(error->message, quoted) != NULL;
}

/* Names the --set behind a validation error, so a mistyped override is not blamed on the
 * file. Errors from first to the end were found by validation. */
/* resolved[i]: override i's path as validation names it (scenario_override_apply). */
static void attribute_to_overrides(LoadErrors *errors, uint32_t first, const char *const *overrides,
                                   const char (*resolved)[SCENARIO_OVERRIDE_PATH_LEN_MAX],
                                   uint32_t override_count)
{
    for (uint32_t e = first; e < errors->count && e < LOAD_ERRORS_MAX; e++) {
        LoadError *error = &errors->items[e];
        if (error->path[0] != '$')
            continue;
        const char *error_path = error->path[1] == '.' ? error->path + 2 : error->path + 1;
        for (uint32_t i = 0; i < override_count; i++) {
            const char *path = resolved[i];
            if (overrides[i] != NULL && path[0] != '\0' &&
                error_is_about_set(error, error_path, path, strlen(path))) {
                scenario_errors_quote(error->from_set, sizeof error->from_set, overrides[i]);
                break;
            }
        }
    }
}

static bool load(const char *text, size_t length, const char *name, const char *const *overrides,
                 uint32_t override_count, Scenario *scenario, LoadErrors *errors)
{
    if (length > SCENARIO_TEXT_LEN_MAX) {
        too_large(errors);
        return false;
    }
    char message[sizeof errors->items[0].message];
    JsonNumbers *numbers = json_numbers_create();
    cJSON *root =
        numbers != NULL ? json_text_parse(text, length, numbers, message, sizeof message) : NULL;
    if (root == NULL) {
        scenario_errors_add(errors, "", "%s", numbers != NULL ? message : "out of memory");
        json_numbers_destroy(numbers);
        return false;
    }
    char(*resolved)[SCENARIO_OVERRIDE_PATH_LEN_MAX] =
        override_count > 0 ? calloc(override_count, sizeof *resolved) : NULL;
    if (override_count > 0 && resolved == NULL) {
        scenario_errors_add(errors, "", "out of memory");
        cJSON_Delete(root);
        json_numbers_destroy(numbers);
        return false;
    }
    /* A top level that is not an object is reported by validation; nothing to set on it. */
    for (uint32_t i = 0; overrides != NULL && i < override_count && cJSON_IsObject(root); i++) {
        if (overrides[i] != NULL) {
            scenario_override_apply(root, numbers, overrides[i], errors, resolved[i]);
        }
    }
    uint32_t first_validation_error = errors->count;
    scenario_schema_read(root, numbers, name, scenario, errors);
    if (errors->count == first_validation_error) { /* on a scenario read whole */
        scenario_inert_check(scenario, errors);
        /* the checks name the older objects; a file of the services form has entries */
        for (uint32_t i = first_validation_error; i < errors->count; i++)
            scenario_override_services_path(root, errors->items[i].path,
                                            sizeof errors->items[i].path);
    }
    if (overrides != NULL)
        attribute_to_overrides(errors, first_validation_error, overrides,
                               (const char(*)[SCENARIO_OVERRIDE_PATH_LEN_MAX])resolved,
                               override_count);
    free(resolved);
    cJSON_Delete(root);
    json_numbers_destroy(numbers);
    return errors->count == 0;
}

void scenario_load_limit_memory(uint64_t bytes)
{
    json_text_set_tree_bytes_max(bytes < SIZE_MAX ? (size_t)bytes : SIZE_MAX);
}

bool scenario_load_file(const char *file_path, const char *const *overrides,
                        uint32_t override_count, Scenario *scenario, LoadErrors *errors)
{
    scenario_errors_clear(errors);
    char *text = NULL;
    size_t length = 0;
    if (file_path == NULL || !read_file(file_path, &text, &length, errors)) {
        if (file_path == NULL) {
            scenario_errors_add(errors, "", "cannot read file: no file name");
        }
        return false;
    }
    char name[NAME_LEN_MAX];
    name_from_path(file_path, name);
    bool ok = load(text, length, name, overrides, override_count, scenario, errors);
    free(text);
    return ok;
}

bool scenario_load_text(const char *text, size_t length, const char *const *overrides,
                        uint32_t override_count, Scenario *scenario, LoadErrors *errors)
{
    scenario_errors_clear(errors);
    if (text == NULL) {
        text = "";
        length = 0;
    }
    return load(text, length, "scenario", overrides, override_count, scenario, errors);
}

bool scenario_uses_proxy(const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].via == VIA_PROXY)
            return true;
    }
    return false;
}

bool scenario_server_store_outlives_crash(const Scenario *scenario, uint32_t k)
{
    const ServerSpec *server = k == 0 ? &scenario->server : &scenario->called_servers[k - 1].spec;
    const IdempotencySpec *store = &server->idempotency;
    if (store->durable || store->crash.enabled ||
        (server->instances > 1 && store->placement != PLACEMENT_PER_INSTANCE) ||
        (k == 0 && scenario_consumers_share_server_store(scenario)))
        return true;
    if (k > 0 && scenario_called_store_shared_with(scenario, k - 1) >= 0)
        return true; /* an earlier server's store */
    for (uint32_t d = k; d < scenario->called_server_count; d++) {
        if (scenario_called_store_shared_with(scenario, d) == (int)k)
            return true; /* a later server shares it */
    }
    return false;
}

uint32_t scenario_group_instances(const ConsumerSpec *group)
{
    return group->instances > 1 ? group->instances : 1;
}

uint32_t scenario_consumer_instances(const Scenario *scenario)
{
    return scenario_group_instances(&scenario->broker.consumers);
}

const ConsumerSpec *scenario_consumer_group(const Scenario *scenario, uint32_t g)
{
    return g == 0 ? &scenario->broker.consumers : &scenario->extra_consumers[g - 1].spec;
}

bool scenario_consumers_share_server_store(const Scenario *scenario)
{
    const char *store = scenario->broker.consumers.idempotency.store_id;
    return store[0] != '\0' && strcmp(store, scenario->server.idempotency.store_id) == 0;
}

bool scenario_group_store_outlives_crash(const Scenario *scenario, const ConsumerSpec *group)
{
    const IdempotencySpec *store = &group->idempotency;
    bool first = group == &scenario->broker.consumers;
    return store->durable || store->crash.enabled || /* a process of its own (C38) */
           (first && scenario_consumers_share_server_store(scenario)) ||
           (scenario_group_instances(group) > 1 && store->placement != PLACEMENT_PER_INSTANCE);
}

bool scenario_consumers_store_outlives_crash(const Scenario *scenario)
{
    return scenario_group_store_outlives_crash(scenario, &scenario->broker.consumers);
}

bool scenario_uses_proxy_crash(const Scenario *scenario)
{
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) {
        const CrashSpec *crash = &scenario_proxy(scenario, p)->crash;
        if (scenario_proxy_used(scenario, p) && crash->point != CRASH_NONE && crash->prob > 0)
            return true;
    }
    return false;
}

bool scenario_uses_balancer_retry(const Scenario *scenario)
{
    bool retry = scenario->server.balancer_retry != BALANCER_RETRY_NONE;
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) {
        const ProxySpec *proxy = scenario_proxy(scenario, p);
        retry = retry || (scenario_proxy_used(scenario, p) && proxy->instances > 1 &&
                          proxy->balancer_retry != BALANCER_RETRY_NONE);
    }
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        const ServerSpec *called = &scenario->called_servers[c].spec;
        retry = retry || (called->instances > 1 && called->balancer_retry != BALANCER_RETRY_NONE);
    }
    return retry;
}

bool scenario_groups_call(const Scenario *scenario)
{
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        if (scenario_consumer_group(scenario, g)->use_gateway)
            return true;
    }
    return false;
}

bool scenario_can_decline(const Scenario *scenario)
{
    bool declines = (scenario->server.use_gateway || scenario_groups_call(scenario)) &&
                    scenario->gateway.fail > 0;
    for (uint32_t g = 0; g < scenario->extra_gateway_count; g++)
        declines = declines || (scenario->extra_gateways[g].spec.fail > 0 &&
                                node_gateway_reached(scenario, g + 1));
    return declines;
}

bool scenario_uses_saga(const Scenario *scenario)
{
    bool saga = scenario->server.fulfil.enabled;
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++)
        saga = saga || scenario_consumer_group(scenario, g)->fulfil.enabled;
    return saga;
}

bool scenario_call_retries(const Scenario *scenario)
{
    for (uint32_t c = 0; c < scenario->called_server_count; c++) { /* a call of a called server */
        const ServerSpec *server = &scenario->called_servers[c].spec;
        if (server->use_gateway && server->call.retry.max_attempts > 1)
            return true;
    }
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, g);
        if (group->use_gateway && group->call.retry.max_attempts > 1)
            return true;
    }
    return scenario->server.use_gateway && scenario->server.call.retry.max_attempts > 1;
}

bool scenario_uses_status_records(const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].operation.resource == RESOURCE_PER_CLIENT)
            return true;
    }
    return false;
}

bool scenario_uses_balance_updates(const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].operation.update != BALANCE_UPDATE_ATOMIC)
            return true;
    }
    return false;
}

bool scenario_uses_connection_closes(const Scenario *scenario)
{
    if (scenario->server.stale_connections > 0 || scenario->server.closes_before_answer > 0)
        return true;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].library_retries > 0)
            return true;
    }
    return false;
}

bool scenario_uses_same_orders(const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].same_orders_as[0] != '\0')
            return true;
    }
    return false;
}

bool scenario_uses_store_crash(const Scenario *scenario)
{
    bool crashes = scenario->server.idempotency.crash.enabled;
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++)
        crashes |= scenario_consumer_group(scenario, g)->idempotency.crash.enabled;
    return crashes;
}

bool scenario_uses_failing_consumers(const Scenario *scenario)
{
    bool failing = false;
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *consumers = scenario_consumer_group(scenario, g);
        failing |= consumers->fail_before_effect > 0 || consumers->fail_after_effect > 0 ||
                   consumers->dead_letters == DEAD_LETTERS_REVIEW;
    }
    return failing;
}

const ConsumerSpec *scenario_group_of_queue(const Scenario *scenario, uint32_t b, uint32_t q)
{
    if (b == 0 && scenario->broker.family == BROKER_LOG)
        return &scenario->broker.consumers;     /* every group reads it; the later ones email */
    const ConsumerSpec *first_of_broker = NULL; /* the one taking the queues no other names */
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = &scenario->extra_consumers[g].spec;
        if (group->broker != b)
            continue;
        if ((group->queue_mask >> q & 1u) != 0)
            return group;
        if (first_of_broker == NULL)
            first_of_broker = group;
    }
    /* never NULL: a second broker no group consumes was refused, and reading on meets it */
    return b == 0 || first_of_broker == NULL ? &scenario->broker.consumers : first_of_broker;
}

uint32_t scenario_queues_reached(const Scenario *scenario, const ClientGroupSpec *group)
{
    if (group->exchange > 0)
        return scenario_broker(scenario, group->broker)->exchanges[group->exchange - 1].queue_mask;
    return 1u << group->queue;
}

const ConsumerSpec *scenario_group_applying(const Scenario *scenario, const ClientGroupSpec *group)
{
    uint32_t b = group->broker;
    uint32_t reached = scenario_queues_reached(scenario, group);
    const ConsumerSpec *found = scenario_group_of_queue(scenario, b, group->queue);
    for (uint32_t q = scenario_broker(scenario, b)->queue_count; q-- > 0;) {
        const ConsumerSpec *taker = scenario_group_of_queue(scenario, b, q);
        if ((reached >> q & 1u) != 0 && !taker->sends_email)
            found = taker; /* the first such queue's, by the loop's end */
    }
    return found;
}

uint32_t scenario_orders_group(const Scenario *scenario, uint32_t group)
{
    const char *origin = scenario->client_groups[group].same_orders_as;
    for (uint32_t g = 0; origin[0] != '\0' && g < scenario->client_group_count; g++) {
        if (strcmp(scenario->client_groups[g].id, origin) == 0)
            return g;
    }
    return group;
}

bool scenario_uses_manual_capture(const Scenario *scenario)
{
    return scenario->gateway.capture == CAPTURE_MANUAL;
}

bool scenario_uses_schedule(const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].schedule.instances > 1)
            return true;
    }
    return false;
}

bool scenario_uses_deadlines(const Scenario *scenario)
{
    return scenario->server.deadline != DEADLINE_NONE;
}

const char *scenario_service_id(const Scenario *scenario, NodeKind kind)
{
    return scenario->service_ids[kind];
}

const GatewaySpec *scenario_gateway(const Scenario *scenario, uint32_t g)
{
    return g == 0 ? &scenario->gateway : &scenario->extra_gateways[g - 1].spec;
}

const char *scenario_gateway_id(const Scenario *scenario, uint32_t g)
{
    return g == 0 ? scenario->service_ids[NODE_GATEWAY] : scenario->extra_gateways[g - 1].id;
}

const char *scenario_call_target_id(const Scenario *scenario, const ServerSpec *server)
{
    if (server->call_server > 0)
        return scenario->called_servers[server->call_server - 1].id;
    return scenario_gateway_id(scenario, server->call_gateway);
}

const char *scenario_group_call_target_id(const Scenario *scenario, const ConsumerSpec *group)
{
    if (group->calls_first_server)
        return scenario->service_ids[NODE_SERVER];
    if (group->call_server > 0)
        return scenario->called_servers[group->call_server - 1].id;
    return scenario_gateway_id(scenario, group->call_gateway);
}

const ProxySpec *scenario_proxy(const Scenario *scenario, uint32_t p)
{
    return p == 0 ? &scenario->proxy : &scenario->extra_proxies[p - 1].spec;
}

const char *scenario_proxy_id(const Scenario *scenario, uint32_t p)
{
    return p == 0 ? scenario->service_ids[NODE_PROXY] : scenario->extra_proxies[p - 1].id;
}

const BrokerSpec *scenario_broker(const Scenario *scenario, uint32_t b)
{
    return b == 0 ? &scenario->broker : &scenario->extra_brokers[b - 1].spec;
}

const char *scenario_broker_id(const Scenario *scenario, uint32_t b)
{
    return b == 0 ? scenario->service_ids[NODE_BROKER] : scenario->extra_brokers[b - 1].id;
}

bool scenario_uses_log(const Scenario *scenario)
{
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++) {
        if (scenario_broker(scenario, b)->family == BROKER_LOG)
            return true;
    }
    return false;
}

bool scenario_uses_log_transactions(const Scenario *scenario)
{
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++) {
        const BrokerSpec *broker = scenario_broker(scenario, b);
        if (broker->family == BROKER_LOG && broker->transactional)
            return true;
    }
    return false;
}

uint32_t scenario_queue_total(const Scenario *scenario)
{
    uint32_t total = 0;
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++)
        total += scenario_broker(scenario, b)->queue_count;
    return total;
}

void scenario_queue_label(const Scenario *scenario, uint32_t k, char *label, size_t size)
{
    uint32_t b = 0;
    while (b < scenario->extra_broker_count && k >= scenario_broker(scenario, b)->queue_count)
        k -= scenario_broker(scenario, b++)->queue_count;
    const char *queue = scenario_broker(scenario, b)->queues[k].name;
    if (scenario->extra_broker_count == 0)
        snprintf(label, size, "%s", queue);
    else
        snprintf(label, size, "%s/%s", scenario_broker_id(scenario, b), queue);
}

bool scenario_broker_published_to(const Scenario *scenario, uint32_t b)
{
    if (scenario_server_publishes(&scenario->server) && scenario->server.receipts_broker == b)
        return true;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        if (group->target == TARGET_BROKER && group->broker == b)
            return true;
    }
    return false;
}

bool scenario_server_publishes(const ServerSpec *server)
{
    return server->publish_receipts || server->publishes_orders;
}

bool scenario_sends_receipts(const Scenario *scenario)
{
    bool emails = scenario->server.publish_receipts;
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++)
        emails |= scenario->extra_consumers[g].spec.sends_email;
    return emails;
}

/* Whether broker b is a log that a group emailing the confirmation reads (it reads every
 * record). */
static bool log_emails(const Scenario *scenario, uint32_t b)
{
    bool emails = false;
    for (uint32_t g = 0;
         scenario_broker(scenario, b)->family == BROKER_LOG && g < scenario->extra_consumer_count;
         g++)
        emails |= scenario->extra_consumers[g].spec.broker == b &&
                  scenario->extra_consumers[g].spec.sends_email;
    return emails;
}

bool scenario_group_expects_receipts(const Scenario *scenario, const ClientGroupSpec *group)
{
    if (scenario->server.publish_receipts && group->operation.kind == OPERATION_DEBIT)
        return true; /* every path's charge publishes its receipt */
    /* on a log every group reads every record: a client group's publish, or the order an
     * order API publishes for each operation it takes (every client group not publishing
     * calls it) */
    if (group->target != TARGET_BROKER)
        return scenario->server.publishes_orders &&
               log_emails(scenario, scenario->server.receipts_broker);
    if (log_emails(scenario, group->broker))
        return true;
    uint32_t reached = scenario_queues_reached(scenario, group);
    for (uint32_t q = 0; q < scenario_broker(scenario, group->broker)->queue_count; q++) {
        if ((reached >> q & 1u) != 0 &&
            scenario_group_of_queue(scenario, group->broker, q)->sends_email)
            return true;
    }
    return false;
}

bool scenario_server_has_outbox(const ServerSpec *server)
{
    return server->outbox || server->reconcile_ms > 0 ||
           (scenario_server_publishes(server) && server->receipts_via == RECEIPTS_OUTBOX);
}

bool scenario_proxies_retry(const Scenario *scenario)
{
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) {
        if (scenario_proxy_used(scenario, p) && scenario_proxy(scenario, p)->retries > 0)
            return true;
    }
    return false;
}

bool scenario_proxies_drop_key(const Scenario *scenario)
{
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) {
        if (scenario_proxy_used(scenario, p) && !scenario_proxy(scenario, p)->forwards_key)
            return true;
    }
    return false;
}

bool scenario_proxy_used(const Scenario *scenario, uint32_t p)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        if (group->target == TARGET_SERVER && group->via == VIA_PROXY && group->proxy == p)
            return true;
    }
    return false;
}

bool scenario_any_server_outage(const Scenario *scenario)
{
    bool outage = scenario->server.outage.enabled;
    for (uint32_t c = 0; c < scenario->called_server_count; c++)
        outage |= scenario->called_servers[c].spec.outage.enabled;
    return outage;
}

bool scenario_uses_storm(const Scenario *scenario)
{
    if (scenario->server.queue != SERVER_QUEUE_UNBOUNDED || scenario_any_server_outage(scenario))
        return true;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const RetrySpec *retry = &scenario->client_groups[g].retry;
        if (retry->budget.enabled || retry->honour_retry_after)
            return true;
    }
    return false;
}
