/* The services a scenario runs: the server with its idempotency store, the payment gateway,
 * and the broker with its named queues and its consumers (which have a store of their own).
 * References to a queue by name (clients[].queue, server.receipts_queue) are resolved in
 * scenario_schema.c, once the broker has been read. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "node_kind.h"
#include "scenario_errors.h"
#include "scenario_schema.h"

/* ------------------------------------------------------------------ defaults */

static const IdempotencySpec idempotency_default = {
    .reserve = RESERVE_ATOMIC,
    .race_window_ms = 10,
    .ttl_ms = 86400000, /* a day, as the Idempotency-Key draft suggests */
    .ttl_from = TTL_FROM_RESERVATION,
    .cleanup_interval_ms = 60000,
    .fingerprint = true,
    .on_in_progress = 409,
    .on_failure = {.definite = ON_FAILURE_STORE, .ambiguous = ON_FAILURE_DELETE},
    .failover_every_ms = {DIST_EXP, 60000, 0},
    .durable = true,
    .profile = PROFILE_IETF,
    .required = false,
    .lock_timeout_ms = 0,
    .key = KEY_NONE, /* the server's key comes from each client group's "key" */
    .crash = {.enabled = false, .every_ms = {DIST_EXP, 60000, 0}, .restart_ms = 1000},
    .when_down = WHEN_DOWN_REFUSE,
};

static const CrashSpec crash_default = {.point = CRASH_NONE, .prob = 0, .restart_ms = 1000};
/* Objects of static storage have zero padding, so copying one keeps a section's bytes equal
 * to its defaults' (the inert check compares them so). */
static const Distribution exp_100_ms = {DIST_EXP, 100, 0};
static const Distribution uniform_1_to_5_ms = {DIST_UNIFORM, 1, 5};

/* A queue with every rule the broker's: where a queue in the file starts from. Written
 * member by member over zeroes, as every default here: the inert check compares a section
 * with its defaults byte for byte, and a compound literal leaves its padding unspecified
 * (clang -O2 left other bytes there than in the defaults, so every broker looked set). */
static void queue_from_broker(QueueSpec *queue, const BrokerSpec *broker)
{
    memset(queue, 0, sizeof *queue);
    queue->ack_timeout_ms = broker->ack_timeout_ms;
    queue->max_deliveries = broker->max_deliveries;
    queue->dead_letter = broker->dead_letter;
    queue->prefetch = broker->prefetch;
    queue->late_ack = broker->late_ack;
    queue->dedup_window_ms = broker->dedup_window_ms;
    queue->redelivery_delay_ms = broker->redelivery_delay_ms;
    queue->redrive_after_ms = broker->redrive_after_ms;
}

/* Without `queues`, the broker has one queue, "main", with the broker-level rules. */
static void set_main_queue(BrokerSpec *broker)
{
    broker->queue_count = 1;
    queue_from_broker(&broker->queues[0], broker);
    snprintf(broker->queues[0].name, sizeof broker->queues[0].name, "main");
}

/* Where every server starts from: the one the client groups call, and each called server
 * (scenario_graph.c). Written member by member over zeroes, as the other defaults are. */
void scenario_services_server_defaults(ServerSpec *server)
{
    memset(server, 0, sizeof *server);
    server->instances = 1;
    server->workers = 4;
    server->queue = SERVER_QUEUE_UNBOUNDED;
    server->shed.status = 503;
    server->service_ms = uniform_1_to_5_ms;
    server->idempotency = idempotency_default;
    server->crash = crash_default;
    server->outbox_relay_ms = 2000;
    server->call.retry.max_attempts = 1;
    server->undo.call.retry.max_attempts = 1;
    server->undo.call.key = CALL_KEY_DERIVE;
}

/* Where every gateway starts from: the first, and each extra one (scenario_graph.c). */
void scenario_services_gateway_defaults(GatewaySpec *gateway)
{
    memset(gateway, 0, sizeof *gateway);
    gateway->latency_ms = exp_100_ms;
    gateway->timeout_ms = 2000;
}

/* Where every proxy starts from: the first, and each extra one (scenario_graph.c). */
void scenario_services_proxy_defaults(ProxySpec *proxy)
{
    *proxy = (ProxySpec){
        .retries = 2,
        .per_try_timeout_ms = 1000,
        .on_timeout = true,
        .on_5xx = true,
        .forwards_key = true,
        .service_ms = {DIST_CONST, 1, 0},
        .crash = crash_default,
        .instances = 1,
    };
}

void scenario_services_defaults(Scenario *scenario)
{
    for (unsigned i = 0; i < scenario_names_service.count; i++) {
        const NameEntry *entry = &scenario_names_service.entries[i];
        snprintf(scenario->service_ids[entry->value], NAME_LEN_MAX, "%s", entry->name);
    }
    scenario_services_server_defaults(&scenario->server);
    scenario_services_gateway_defaults(&scenario->gateway);
    scenario_services_proxy_defaults(&scenario->proxy);
    scenario_services_broker_defaults(&scenario->broker);
}

void scenario_services_broker_defaults(BrokerSpec *broker)
{
    memset(broker, 0, sizeof *broker);
    broker->ack_timeout_ms = 30000;
    broker->max_deliveries = 5;
    broker->consumer_timeout_ms = 1800000; /* RabbitMQ's default: 30 minutes */
    broker->partitions = 1;
    broker->commit = COMMIT_AFTER;
    broker->idempotent_producer = true; /* Kafka's default since 3.0 (enable.idempotence) */
    broker->dead_letter = true;
    broker->prefetch = 1;
    broker->late_ack = LATE_ACK_IGNORE;
    scenario_services_consumers_defaults(&broker->consumers);
    set_main_queue(broker);
}

void scenario_services_consumers_defaults(ConsumerSpec *consumers)
{
    memset(consumers, 0, sizeof *consumers);
    consumers->instances = 1;
    consumers->workers = 1;
    consumers->service_ms = exp_100_ms;
    consumers->idempotency = idempotency_default;
    consumers->crash = crash_default;
    consumers->call.retry.max_attempts = 1;
    consumers->undo.call.retry.max_attempts = 1;
    consumers->undo.call.key = CALL_KEY_DERIVE;
    consumers->idempotency.key = KEY_MESSAGE_ID;
    consumers->queue_mask = CONSUMER_ALL_QUEUES;
    /* Spring Kafka's defaults: a fixed back-off of 1000 ms, 3 attempts in all */
    consumers->retryable_topic.attempts = 3;
    consumers->retryable_topic.delay_ms = 1000;
    consumers->retryable_topic.multiplier = 1;
}

/* ------------------------------------------------------------------ idempotency and crashes */

static void read_on_in_progress(SchemaReader *reader, const cJSON *item, void *target)
{
    int *status = target;
    if (!schema_expect(reader, item, cJSON_Number, "integer")) {
        return;
    }
    if (item->valuedouble != 409 && item->valuedouble != 202) {
        char got[80];
        schema_describe_number(reader, item, got, sizeof got);
        schema_error(reader, "expected 409 or 202 (got %s)", got);
        return;
    }
    *status = (int)item->valuedouble;
}

static void write_status(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    schema_write_number(writer, object, key, *(const int *)target);
}

/* A server's store is keyed by what each client sends; only consumers choose. */
static void read_server_key(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected no 'key' for the server (each client group's 'key' sets it)");
}

/* on_failure: one policy for both classes, or {"definite": P, "ambiguous": P} (a partial
 * object keeps the default of the class it leaves out). */
static const SchemaField failure_class_fields[] = {
    FIELD_CHOICE("definite", FailurePolicies, definite, scenario_names_on_failure),
    FIELD_CHOICE("ambiguous", FailurePolicies, ambiguous, scenario_names_on_failure),
};
static const SchemaObject failure_class_schema = {.name = "<idempotency>.on_failure",
                                                  SCHEMA_FIELDS(failure_class_fields)};

static void write_on_failure(SchemaWriter *writer, const void *target, cJSON *object,
                             const char *key)
{
    cJSON *written = schema_write_item(writer, object, key, cJSON_CreateObject());
    if (written != NULL)
        schema_write_object(writer, &failure_class_schema, target, written);
}

static void read_on_failure(SchemaReader *reader, const cJSON *item, void *target)
{
    FailurePolicies *policies = target;
    if (cJSON_IsObject(item)) {
        schema_read_object(reader, item, &failure_class_schema, policies);
        return;
    }
    if (!schema_expect(reader, item, cJSON_String, "string or object")) {
        return;
    }
    int policy = 0;
    if (schema_read_choice(reader, item, &scenario_names_on_failure, &policy)) {
        policies->definite = (FailurePolicy)policy;
        policies->ambiguous = (FailurePolicy)policy;
    }
}

/* The consumers answer nobody, so the fields that shape an answer have nothing to act on
 * there: refused, not ignored. (A failed handler's key row follows on_failure, as the
 * server's does: C36.) */
static void read_answer_field_for_consumers(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected no such field for the consumers: they answer no client "
                         "(a key in progress leaves the delivery unacknowledged)");
}

static void read_required_for_consumers(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected no 'required' for the consumers: every delivery has a key "
                         "(its message id or its business hash)");
}

/* The store's own crash (C38): an object given turns it on. */
static void check_store_crash(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)reader;
    (void)object;
    (void)clean;
    ((StoreCrashSpec *)base)->enabled = true;
}

#define RANGE_STORE_CRASHES                                                                        \
    {                                                                                              \
        0.0, 1000000.0, false, false, false                                                        \
    }

static const SchemaField store_crash_fields[] = {
    FIELD_DIST("every_ms", StoreCrashSpec, every_ms),
    FIELD_NUMBER("restart_ms", StoreCrashSpec, restart_ms, RANGE_MS),
    FIELD_U32("max_crashes", StoreCrashSpec, max_crashes, RANGE_STORE_CRASHES),
};
static const SchemaObject store_crash_schema = {
    .name = "<store crash>", SCHEMA_FIELDS(store_crash_fields), .check = check_store_crash};

static void read_compare_for_consumers(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected no 'compare' for the consumers: they compare message ids "
                         "and business hashes as sent (only the server's store may normalise)");
}

/* clang-format off */
#define IDEMPOTENCY_SHARED_FIELDS                                                                  \
    FIELD_CHOICE("reserve", IdempotencySpec, reserve, scenario_names_reserve),                     \
    FIELD_NUMBER("race_window_ms", IdempotencySpec, race_window_ms, RANGE_MS),                     \
    FIELD_NUMBER("ttl_ms", IdempotencySpec, ttl_ms, RANGE_MS),                                     \
    FIELD_CHOICE("ttl_from", IdempotencySpec, ttl_from, scenario_names_ttl_from),                  \
    FIELD_NUMBER("cleanup_interval_ms", IdempotencySpec, cleanup_interval_ms, RANGE_MS),           \
    FIELD_BOOLEAN("fingerprint", IdempotencySpec, fingerprint),                                    \
    FIELD_BOOLEAN("durable", IdempotencySpec, durable),                                            \
    FIELD_NUMBER("lock_timeout_ms", IdempotencySpec, lock_timeout_ms, RANGE_MS),                   \
    FIELD_BOOLEAN("fencing", IdempotencySpec, fencing),                                            \
    FIELD_NUMBER("replication_lag_ms", IdempotencySpec, replication_lag_ms, RANGE_MS),             \
    FIELD_DIST("failover_every_ms", IdempotencySpec, failover_every_ms)
/* clang-format on */

/* clang-format off */
#define SERVER_IDEMPOTENCY_FIELDS                                                                  \
    IDEMPOTENCY_SHARED_FIELDS,                                                                     \
    FIELD_CUSTOM_WRITTEN("on_in_progress", SCHEMA_MEMBER(IdempotencySpec, on_in_progress, int),    \
                         read_on_in_progress, write_status, NULL, false),                          \
    FIELD_CUSTOM_WRITTEN("on_failure", SCHEMA_MEMBER(IdempotencySpec, on_failure, FailurePolicies),\
                         read_on_failure, write_on_failure, &failure_class_schema, false),         \
    FIELD_CHOICE("profile", IdempotencySpec, profile, scenario_names_store_profile),               \
    FIELD_BOOLEAN("required", IdempotencySpec, required),                                          \
    FIELD_CUSTOM("key", SCHEMA_ENUM_MEMBER(IdempotencySpec, key), read_server_key, NULL, false),   \
    FIELD_CHOICE("scope", IdempotencySpec, scope, scenario_names_scope),                           \
    FIELD_CHOICE("placement", IdempotencySpec, placement, scenario_names_placement),               \
    FIELD_CHOICE("reads", IdempotencySpec, reads, scenario_names_reads),                           \
    FIELD_CHOICE("compare", IdempotencySpec, compare, scenario_names_key_compare),                 \
    FIELD_OBJECT("crash", IdempotencySpec, crash, store_crash_schema),                             \
    FIELD_CHOICE("when_down", IdempotencySpec, when_down, scenario_names_when_down)
#define CONSUMER_IDEMPOTENCY_FIELDS                                                                \
    IDEMPOTENCY_SHARED_FIELDS,                                                                     \
    FIELD_CUSTOM("on_in_progress", SCHEMA_MEMBER(IdempotencySpec, on_in_progress, int),            \
                 read_answer_field_for_consumers, NULL, false),                                    \
    FIELD_CUSTOM("profile", SCHEMA_ENUM_MEMBER(IdempotencySpec, profile),                          \
                 read_answer_field_for_consumers, NULL, false),                                    \
    FIELD_CUSTOM_WRITTEN("on_failure", SCHEMA_MEMBER(IdempotencySpec, on_failure, FailurePolicies),\
                         read_on_failure, write_on_failure, &failure_class_schema, false),         \
    FIELD_CUSTOM("required", SCHEMA_MEMBER(IdempotencySpec, required, bool),                       \
                 read_required_for_consumers, NULL, false),                                        \
    FIELD_CHOICE("key", IdempotencySpec, key, scenario_names_consumer_key),                        \
    FIELD_CHOICE("scope", IdempotencySpec, scope, scenario_names_scope),                           \
    FIELD_CHOICE("placement", IdempotencySpec, placement, scenario_names_placement),               \
    FIELD_CUSTOM("compare", SCHEMA_ENUM_MEMBER(IdempotencySpec, compare),                          \
                 read_compare_for_consumers, NULL, false),                                         \
    FIELD_OBJECT("crash", IdempotencySpec, crash, store_crash_schema),                             \
    FIELD_CHOICE("when_down", IdempotencySpec, when_down, scenario_names_when_down)
/* clang-format on */

/* A store kept in an instance's memory has no replica to fail over to or read from (a
 * server's or a consumer group's). True when it was refused so. */
static bool refuse_replica_in_memory(SchemaReader *reader, const IdempotencySpec *store)
{
    if (store->placement != PLACEMENT_PER_INSTANCE || store->replication_lag_ms <= 0)
        return false;
    schema_error_at(reader, "replication_lag_ms",
                    "expected 0 with \"placement\": \"per-instance\" (a store in an "
                    "instance's memory has no replica)");
    return true;
}

/* A store's own crash (C38) is modelled for a store of its own that has no replica: a
 * server's or a consumer group's. */
static void refuse_crash_unmodelled(SchemaReader *reader, const IdempotencySpec *store)
{
    if (store->crash.enabled && store->placement == PLACEMENT_PER_INSTANCE)
        schema_error_at(reader, "crash",
                        "expected no crash of its own with \"placement\": \"per-instance\" (a "
                        "store in an instance's memory crashes with its instance)");
    else if (store->crash.enabled && store->replication_lag_ms > 0)
        schema_error_at(reader, "crash",
                        "expected no crash of its own with replication_lag_ms (a store with a "
                        "replica fails over instead of going down; both together are not "
                        "modelled)");
}

/* A replica read matters only where the lookup decides (check-then-insert, execute-then-save:
 * an atomic reservation is a write the primary decides). */
static void check_server_store(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    (void)clean;
    const IdempotencySpec *store = base;
    bool refused = refuse_replica_in_memory(reader, store);
    if (!refused && store->reads == READS_REPLICA && store->replication_lag_ms <= 0)
        schema_error_at(reader, "reads",
                        "expected \"primary\" without replication_lag_ms (a replica that is "
                        "never behind reads as the primary)");
    else if (!refused && store->reads == READS_REPLICA && store->reserve == RESERVE_ATOMIC)
        schema_error_at(reader, "reads",
                        "expected \"primary\" with \"reserve\": \"atomic\" (the atomic "
                        "reservation is a write the primary decides; a replica read changes "
                        "nothing)");
    refuse_crash_unmodelled(reader, store);
}

/* The store's own crash and what a request meets meanwhile are written only when it has one:
 * other scenarios show as they were. */
static bool store_crash_shown(const IdempotencySpec *store, const char *key)
{
    if (strcmp(key, "crash") == 0 || strcmp(key, "when_down") == 0)
        return store->crash.enabled;
    return true;
}

static bool server_store_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    return store_crash_shown(base, key);
}

static const SchemaField server_idempotency_fields[] = {SERVER_IDEMPOTENCY_FIELDS};
static const SchemaObject server_idempotency_schema = {.name = "<idempotency>",
                                                       SCHEMA_FIELDS(server_idempotency_fields),
                                                       .check = check_server_store,
                                                       .shown = server_store_shown};

static void check_consumers_store(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    (void)clean;
    if (!refuse_replica_in_memory(reader, base))
        refuse_crash_unmodelled(reader, base);
}

/* The placement is written only when a group's instances keep their own, and the store's
 * crash only when it has one: other scenarios show as they were. */
static bool consumers_store_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const IdempotencySpec *store = base;
    if (strcmp(key, "placement") == 0)
        return store->placement == PLACEMENT_PER_INSTANCE;
    return store_crash_shown(store, key);
}

static const SchemaField consumer_idempotency_fields[] = {CONSUMER_IDEMPOTENCY_FIELDS};
static const SchemaObject consumer_idempotency_schema = {.name = "<idempotency>",
                                                         SCHEMA_FIELDS(consumer_idempotency_fields),
                                                         .check = check_consumers_store,
                                                         .shown = consumers_store_shown};

#define RANGE_CRASHES                                                                              \
    {                                                                                              \
        0.0, 1000000.0, false, false, false                                                        \
    }

static const SchemaField crash_fields[] = {
    FIELD_CHOICE("point", CrashSpec, point, scenario_names_crash_point),
    FIELD_NUMBER("prob", CrashSpec, prob, RANGE_PROBABILITY),
    FIELD_NUMBER("restart_ms", CrashSpec, restart_ms, RANGE_MS),
    FIELD_U32("max_crashes", CrashSpec, max_crashes, RANGE_CRASHES),
};
static const SchemaObject crash_schema = {.name = "<crash>", SCHEMA_FIELDS(crash_fields)};

/* ------------------------------------------------------------------ server */

#define RANGE_SERVER_QUEUE                                                                         \
    {                                                                                              \
        0.0, 1000000.0, false, false, false                                                        \
    }

static void read_shed_status(SchemaReader *reader, const cJSON *item, void *target)
{
    int *status = target;
    if (!schema_expect(reader, item, cJSON_Number, "integer")) {
        return;
    }
    if (item->valuedouble != 429 && item->valuedouble != 503) {
        char got[80];
        schema_describe_number(reader, item, got, sizeof got);
        schema_error(reader, "expected 429 or 503 (got %s)", got);
        return;
    }
    *status = (int)item->valuedouble;
}

static const SchemaField shed_fields[] = {
    FIELD_CUSTOM_WRITTEN("status", SCHEMA_MEMBER(ShedSpec, status, int), read_shed_status,
                         write_status, NULL, false),
    FIELD_NUMBER("retry_after_ms", ShedSpec, retry_after_ms, RANGE_MS),
};
static const SchemaObject shed_schema = {.name = "server.shed", SCHEMA_FIELDS(shed_fields)};

static void check_server_outage(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    ServerOutageSpec *outage = base;
    outage->enabled = true;
    if (clean)
        schema_check_from_before_to(reader, outage->from_ms, outage->to_ms);
}

static const SchemaField server_outage_fields[] = {
    {.key = "from_ms",
     .type = SCHEMA_NUMBER,
     .offset = SCHEMA_MEMBER(ServerOutageSpec, from_ms, double),
     .range = RANGE_MS,
     .required = true},
    {.key = "to_ms",
     .type = SCHEMA_NUMBER,
     .offset = SCHEMA_MEMBER(ServerOutageSpec, to_ms, double),
     .range = RANGE_MS,
     .required = true},
};
static const SchemaObject server_outage_schema = {
    .name = "server.outage", SCHEMA_FIELDS(server_outage_fields), .check = check_server_outage};

/* Only the type here: the broker, whose queues the name must match, is read after the
 * server; scenario_schema.c resolves the name then. */
static void read_receipts_queue(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)target;
    schema_expect(reader, item, cJSON_String, "string");
}

static void write_receipts_queue(SchemaWriter *writer, const void *target, cJSON *object,
                                 const char *key)
{
    const Scenario *scenario = writer->context;
    schema_write_string(writer, object, key,
                        scenario->broker.queues[*(const uint32_t *)target].name);
}

/* A bounded queue, an outage and receipts are written only when the server has them: a shed
 * answer without a bound is refused, an outage object turns the outage on, and receipts
 * name a queue of a broker that may not be part of the world. */
static bool server_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    const ServerSpec *server = base;
    const Scenario *scenario = writer->context;
    bool called = scenario != NULL && server != &scenario->server; /* scenario_graph.c */
    if (strcmp(key, "instances") == 0 || strcmp(key, "balancer") == 0 ||
        strcmp(key, "balancer_retry") == 0) /* a called server's when it runs several */
        return !called || server->instances > 1;
    if (strcmp(key, "queue") == 0 || strcmp(key, "shed") == 0)
        return server->queue != SERVER_QUEUE_UNBOUNDED;
    if (strcmp(key, "outage") == 0)
        return server->outage.enabled;
    if (strcmp(key, "receipts_queue") == 0)
        return server->publish_receipts;
    if (strcmp(key, "deadline") == 0) /* C31: other scenarios show as they were */
        return server->deadline != DEADLINE_NONE;
    if (strcmp(key, "stale_connections") == 0) /* C32 */
        return server->stale_connections > 0;
    if (strcmp(key, "closes_before_answer") == 0)
        return server->closes_before_answer > 0;
    return true;
}

/* The outbox relays gateway charges: without the gateway it would relay nothing, a switch
 * that does nothing. */
static void check_server(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)clean;
    const ServerSpec *server = base;
    if (server->receipts_via == RECEIPTS_OUTBOX && !server->publish_receipts &&
        schema_member(object, "receipts_via") != NULL) {
        schema_error_at(reader, "receipts_via",
                        "expected \"publish_receipts\": true with receipts through the outbox "
                        "(there is no event to relay)");
    }
    if (server->reconcile_ms > 0 && !server->use_gateway &&
        schema_member(object, "reconcile_ms") != NULL) {
        schema_error_at(reader, "reconcile_ms",
                        "expected \"use_gateway\": true with reconciliation (it asks the "
                        "gateway about the charges it did not answer)");
    }
    if (schema_member(object, "shed") != NULL && server->queue == SERVER_QUEUE_UNBOUNDED) {
        schema_error_at(reader, "shed",
                        "expected \"queue\" with a shed answer (an unbounded queue is never "
                        "full, so nothing would be shed)");
    }
    if (server->queue != SERVER_QUEUE_UNBOUNDED && server->workers == 0) {
        schema_error_at(reader, "queue",
                        "expected \"workers\" > 0 with a bounded queue (unbounded workers "
                        "never queue anything)");
    }
    if (server->outage.enabled && server->crash.point != CRASH_NONE) {
        schema_error_at(reader, "outage",
                        "expected no \"crash\" with a scripted outage (a crash inside the "
                        "outage window is not modelled)");
    }
    const FailurePolicies *on_failure = &server->idempotency.on_failure;
    if (server->use_gateway &&
        (on_failure->definite == ON_FAILURE_RESUME || on_failure->ambiguous == ON_FAILURE_RESUME)) {
        /* a recovery point commits with a local effect; a gateway's charge is not one (its
         * own key is the tool there: gateway.honours_key) */
        schema_error_at(reader, "idempotency",
                        "expected no on_failure \"resume\" with \"use_gateway\": true (recovery "
                        "points are modelled for a local effect only)");
    }
    if (server->outbox && !server->use_gateway && schema_member(object, "outbox") != NULL) {
        schema_error_at(reader, "outbox",
                        "expected \"use_gateway\": true with an outbox (it relays the "
                        "gateway's charges; without the gateway it has nothing to relay)");
    }
}

/* clang-format off */
#define SERVER_FIELDS_HEAD                                                                         \
    FIELD_U32("workers", ServerSpec, workers, RANGE_WORKERS),                                      \
    FIELD_U32("queue", ServerSpec, queue, RANGE_SERVER_QUEUE),                                     \
    FIELD_OBJECT("shed", ServerSpec, shed, shed_schema),                                           \
    FIELD_OBJECT("outage", ServerSpec, outage, server_outage_schema),                              \
    FIELD_DIST("service_ms", ServerSpec, service_ms),                                              \
    FIELD_CHOICE("deadline", ServerSpec, deadline, scenario_names_deadline),                       \
    FIELD_NUMBER("stale_connections", ServerSpec, stale_connections, RANGE_PROBABILITY),           \
    FIELD_NUMBER("closes_before_answer", ServerSpec, closes_before_answer, RANGE_PROBABILITY)
#define SERVER_FIELDS_FAILURES                                                                     \
    FIELD_OBJECT("crash", ServerSpec, crash, crash_schema),                                        \
    FIELD_NUMBER("fail_before_effect", ServerSpec, fail_before_effect, RANGE_PROBABILITY),         \
    FIELD_NUMBER("fail_after_effect", ServerSpec, fail_after_effect, RANGE_PROBABILITY),           \
    FIELD_BOOLEAN("delete_always_204", ServerSpec, delete_always_204)
#define SERVER_FIELD_TRANSACTION FIELD_BOOLEAN("transaction", ServerSpec, transaction)
#define SERVER_FIELD_RELAY                                                                         \
    FIELD_NUMBER("outbox_relay_ms", ServerSpec, outbox_relay_ms, RANGE_MS_POSITIVE)
/* The older form's handler switches; the services form says the same with `steps`. */
#define SERVER_FIELDS_TAIL                                                                         \
    SERVER_FIELDS_FAILURES,                                                                        \
    FIELD_BOOLEAN("outbox", ServerSpec, outbox),                                                   \
    FIELD_BOOLEAN("use_gateway", ServerSpec, use_gateway),                                         \
    FIELD_BOOLEAN("publish_receipts", ServerSpec, publish_receipts),                               \
    SERVER_FIELD_TRANSACTION,                                                                      \
    FIELD_CHOICE("receipts_via", ServerSpec, receipts_via, scenario_names_receipts_via),           \
    SERVER_FIELD_RELAY,                                                                            \
    FIELD_NUMBER("reconcile_ms", ServerSpec, reconcile_ms, RANGE_MS),                              \
    FIELD_CUSTOM_WRITTEN("receipts_queue", SCHEMA_MEMBER(ServerSpec, receipts_queue, uint32_t),    \
                         read_receipts_queue, write_receipts_queue, NULL, false)
/* clang-format on */

/* The older form runs one process of each service: "instances": 1, the default, says just
 * that and loads; more are the services form's, which names the service to balance. A
 * value that is no count at all (0, 1.5, "two") is refused as any count would be. */
static bool read_one_instance_in_older_form(SchemaReader *reader, const cJSON *item,
                                            uint32_t *instances, const char *services_form)
{
    static const SchemaRange counts = {1.0, 9007199254740992.0, false, false, false};
    double count = 0;
    if (!schema_read_integer(reader, item, &counts, &count))
        return false;
    if (count > 1) {
        char got[80];
        schema_describe_number(reader, item, got, sizeof got);
        schema_error(reader,
                     "expected 1, the older form's one process (got %s): several instances are "
                     "the services form's (%s)",
                     got, services_form);
        return false;
    }
    *instances = 1;
    return true;
}

static void read_server_instances_in_older_form(SchemaReader *reader, const cJSON *item,
                                                void *target)
{
    read_one_instance_in_older_form(reader, item, &((ServerSpec *)target)->instances,
                                    "a service of kind 'server' with \"instances\" and "
                                    "\"balancer\"");
}

/* A balancer is the services form's: the older form names no service to balance. */
static void read_instances_in_older_form(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected the services form for several instances (a service of kind "
                         "'server' with \"instances\" and \"balancer\")");
}

static const SchemaField server_fields[] = {
    FIELD_CUSTOM("instances", 0, read_server_instances_in_older_form, NULL, false),
    FIELD_CUSTOM("balancer", 0, read_instances_in_older_form, NULL, false),
    FIELD_CUSTOM("balancer_retry", 0, read_instances_in_older_form, NULL, false),
    SERVER_FIELDS_HEAD,
    FIELD_OBJECT("idempotency", ServerSpec, idempotency, server_idempotency_schema),
    SERVER_FIELDS_TAIL,
};
const SchemaObject scenario_services_server_schema = {
    .name = "server", SCHEMA_FIELDS(server_fields), .check = check_server, .shown = server_shown};

/* ------------------------------------------------------------------ gateway */

/* fail and timeout are the two ends of one draw: together at most certain. */
static void check_gateway(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    const GatewaySpec *gateway = base;
    if (clean && gateway->fail + gateway->timeout > 1.0) {
        char fail_text[32];
        char timeout_text[32];
        schema_format_number(gateway->fail, fail_text, sizeof fail_text);
        schema_format_number(gateway->timeout, timeout_text, sizeof timeout_text);
        schema_error(reader, "expected fail + timeout <= 1 (got %s + %s)", fail_text, timeout_text);
    }
}

/* clang-format off */
#define GATEWAY_FIELDS                                                                             \
    FIELD_DIST("latency_ms", GatewaySpec, latency_ms),                                             \
    FIELD_NUMBER("fail", GatewaySpec, fail, RANGE_PROBABILITY),                                    \
    FIELD_NUMBER("timeout", GatewaySpec, timeout, RANGE_PROBABILITY),                              \
    FIELD_NUMBER("timeout_ms", GatewaySpec, timeout_ms, RANGE_MS_POSITIVE),                        \
    FIELD_BOOLEAN("honours_key", GatewaySpec, honours_key),                                        \
    FIELD_CHOICE("capture", GatewaySpec, capture, scenario_names_capture),                         \
    FIELD_BOOLEAN("void_late", GatewaySpec, void_late),                                            \
    FIELD_NUMBER("capture_lost", GatewaySpec, capture_lost, RANGE_PROBABILITY),                    \
    FIELD_NUMBER("settlement_every_ms", GatewaySpec, settlement_every_ms, RANGE_MS)
/* clang-format on */

/* C35: other scenarios show as they were */
static bool gateway_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const GatewaySpec *gateway = base;
    if (strcmp(key, "void_late") == 0)
        return gateway->void_late;
    if (strcmp(key, "capture_lost") == 0)
        return gateway->capture_lost > 0;
    if (strcmp(key, "settlement_every_ms") == 0)
        return gateway->settlement_every_ms > 0;
    return strcmp(key, "capture") != 0 || gateway->capture != CAPTURE_IMMEDIATE;
}

static const SchemaField gateway_fields[] = {GATEWAY_FIELDS};
const SchemaObject scenario_services_gateway_schema = {.name = "gateway",
                                                       SCHEMA_FIELDS(gateway_fields),
                                                       .check = check_gateway,
                                                       .shown = gateway_shown};

/* ------------------------------------------------------------------ proxy */

static const SchemaField proxy_crash_fields[] = {
    FIELD_CHOICE("point", CrashSpec, point, scenario_names_proxy_crash_point),
    FIELD_NUMBER("prob", CrashSpec, prob, RANGE_PROBABILITY),
    FIELD_NUMBER("restart_ms", CrashSpec, restart_ms, RANGE_MS),
    FIELD_U32("max_crashes", CrashSpec, max_crashes, RANGE_CRASHES),
};
static const SchemaObject proxy_crash_schema = {.name = "<proxy crash>",
                                                SCHEMA_FIELDS(proxy_crash_fields)};

static void read_proxy_retry_on(SchemaReader *reader, const cJSON *item, void *target)
{
    ProxySpec *proxy = target;
    int flags = 0;
    if (scenario_schema_read_retry_on(reader, item, &flags)) {
        proxy->on_timeout = flags & RETRY_ON_TIMEOUT;
        proxy->on_5xx = flags & RETRY_ON_5XX;
        proxy->on_409 = flags & RETRY_ON_409;
    }
}

static void write_proxy_retry_on(SchemaWriter *writer, const void *target, cJSON *object,
                                 const char *key)
{
    const ProxySpec *proxy = target;
    scenario_schema_write_retry_on(writer, object, key,
                                   (proxy->on_timeout ? RETRY_ON_TIMEOUT : 0) |
                                       (proxy->on_5xx ? RETRY_ON_5XX : 0) |
                                       (proxy->on_409 ? RETRY_ON_409 : 0));
}

/* clang-format off */
#define PROXY_FIELDS                                                                               \
    FIELD_U32("retries", ProxySpec, retries, RANGE_PROXY_RETRIES),                                 \
    FIELD_NUMBER("per_try_timeout_ms", ProxySpec, per_try_timeout_ms, RANGE_MS_POSITIVE),          \
    FIELD_CUSTOM_WRITTEN("retry_on", 0, read_proxy_retry_on, write_proxy_retry_on, NULL, false),   \
    FIELD_BOOLEAN("forwards_key", ProxySpec, forwards_key),                                        \
    FIELD_DIST("service_ms", ProxySpec, service_ms),                                               \
    FIELD_CHOICE("retry_host", ProxySpec, retry_host, scenario_names_retry_host),                  \
    FIELD_OBJECT("crash", ProxySpec, crash, proxy_crash_schema)
/* clang-format on */

static void read_proxy_instances_in_older_form(SchemaReader *reader, const cJSON *item,
                                               void *target)
{
    read_one_instance_in_older_form(reader, item, &((ProxySpec *)target)->instances,
                                    "a service of kind 'proxy' with \"instances\" and "
                                    "\"balancer\"");
}

static void read_proxy_balancer_in_older_form(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected the services form for several instances (a service of kind "
                         "'proxy' with \"instances\" and \"balancer\")");
}

static const SchemaField proxy_fields[] = {
    PROXY_FIELDS, FIELD_CUSTOM("instances", 0, read_proxy_instances_in_older_form, NULL, false),
    FIELD_CUSTOM("balancer", 0, read_proxy_balancer_in_older_form, NULL, false),
    FIELD_CUSTOM("balancer_retry", 0, read_proxy_balancer_in_older_form, NULL, false)};
const SchemaObject scenario_services_proxy_schema = {.name = "proxy", SCHEMA_FIELDS(proxy_fields)};

/* ------------------------------------------------------------------ broker */

static const SchemaField load_fields[] = {
    FIELD_NUMBER("per_inflight", ConsumerSpec, load_per_inflight, RANGE_FACTOR),
    FIELD_NUMBER("per_queued", ConsumerSpec, load_per_queued, RANGE_FACTOR),
};
static const SchemaObject load_schema = {.name = "broker.consumers.load",
                                         SCHEMA_FIELDS(load_fields)};

/* Spring Kafka's non-blocking retries (@RetryableTopic): an object given turns them on. */
static void check_retryable_topic(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)reader;
    (void)object;
    (void)clean;
    ((RetryableTopicSpec *)base)->enabled = true;
}

#define RANGE_ATTEMPTS                                                                             \
    {                                                                                              \
        1.0, 100.0, false, false, false                                                            \
    } /* a record's retry_topic is a byte */
#define RANGE_MULTIPLIER                                                                           \
    {                                                                                              \
        1.0, 100.0, false, false, false                                                            \
    }

static const SchemaField retryable_topic_fields[] = {
    FIELD_U32("attempts", RetryableTopicSpec, attempts, RANGE_ATTEMPTS),
    FIELD_NUMBER("delay_ms", RetryableTopicSpec, delay_ms, RANGE_MS),
    FIELD_NUMBER("multiplier", RetryableTopicSpec, multiplier, RANGE_MULTIPLIER),
};
static const SchemaObject retryable_topic_schema = {.name = "broker.consumers.retryable_topic",
                                                    SCHEMA_FIELDS(retryable_topic_fields),
                                                    .check = check_retryable_topic};

/* The retry topics are written only when they are on: other scenarios show as they were. */
static bool consumers_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const ConsumerSpec *consumers = base;
    if (strcmp(key, "retryable_topic") == 0)
        return consumers->retryable_topic.enabled;
    if (strcmp(key, "instances") == 0)
        return consumers->instances > 1;
    if (strcmp(key, "session_timeout_ms") == 0) /* a log's group's, written where it is set */
        return consumers->session_timeout_ms > 0;
    return true;
}

/* clang-format off */
#define CONSUMER_FAILURE_FIELDS                                                                    \
    FIELD_NUMBER("fail_before_effect", ConsumerSpec, fail_before_effect, RANGE_PROBABILITY),       \
    FIELD_NUMBER("fail_after_effect", ConsumerSpec, fail_after_effect, RANGE_PROBABILITY),         \
    FIELD_CHOICE("dead_letters", ConsumerSpec, dead_letters, scenario_names_dead_letters),         \
    FIELD_OBJECT("retryable_topic", ConsumerSpec, retryable_topic, retryable_topic_schema)
/* clang-format on */

/* One instance loads, as a server's does; more are the services form's. */
static void read_consumer_instances_in_older_form(SchemaReader *reader, const cJSON *item,
                                                  void *target)
{
    read_one_instance_in_older_form(reader, item, &((ConsumerSpec *)target)->instances,
                                    "a service of kind 'consumers' with \"instances\"");
}

static const SchemaField consumer_fields[] = {
    FIELD_CUSTOM("instances", 0, read_consumer_instances_in_older_form, NULL, false),
    FIELD_U32("workers", ConsumerSpec, workers, RANGE_WORKERS),
    FIELD_DIST("service_ms", ConsumerSpec, service_ms),
    FIELD_INLINE_OBJECT("load", load_schema),
    FIELD_OBJECT("idempotency", ConsumerSpec, idempotency, consumer_idempotency_schema),
    FIELD_OBJECT("crash", ConsumerSpec, crash, crash_schema),
    FIELD_BOOLEAN("inbox", ConsumerSpec, inbox),
    FIELD_NUMBER("heartbeat_ms", ConsumerSpec, heartbeat_ms, RANGE_MS),
    FIELD_BOOLEAN("use_gateway", ConsumerSpec, use_gateway),
    CONSUMER_FAILURE_FIELDS,
    FIELD_NUMBER("session_timeout_ms", ConsumerSpec, session_timeout_ms, RANGE_MS),
};

static const SchemaObject consumer_schema = {
    .name = "broker.consumers", SCHEMA_FIELDS(consumer_fields), .shown = consumers_shown};

/* clang-format off */
#define RANGE_DELIVERIES {0.0, 1000000.0, false, false, false}
#define RANGE_PREFETCH {1.0, 100000.0, false, false, false}
#define RANGE_PARTITIONS {1.0, (double)PARTITIONS_MAX, false, false, false}

/* A queue's rules, at broker level (every queue's defaults) and in each queue: one list, so
 * both take the same types and ranges. type_ is BrokerSpec or QueueSpec. */
#define QUEUE_RULE_FIELDS(type_)                                                                   \
    FIELD_NUMBER("ack_timeout_ms", type_, ack_timeout_ms, RANGE_MS_POSITIVE),                      \
    FIELD_U32("max_deliveries", type_, max_deliveries, RANGE_DELIVERIES),                          \
    FIELD_BOOLEAN("dead_letter", type_, dead_letter),                                              \
    FIELD_U32("prefetch", type_, prefetch, RANGE_PREFETCH),                                        \
    FIELD_CHOICE("late_ack", type_, late_ack, scenario_names_late_ack),                            \
    FIELD_NUMBER("dedup_window_ms", type_, dedup_window_ms, RANGE_MS),                             \
    FIELD_NUMBER("redelivery_delay_ms", type_, redelivery_delay_ms, RANGE_MS),                     \
    FIELD_NUMBER("redrive_after_ms", type_, redrive_after_ms, RANGE_MS)
/* clang-format on */

static void read_queue_name(SchemaReader *reader, const cJSON *item, void *target)
{
    scenario_schema_read_name(reader, item, target);
}

static void write_name(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    schema_write_string(writer, object, key, target);
}

/* A channel has no ack timeout, and the log none of a queue's rules: refused there. */
static bool queue_rule_shown(const BrokerSpec *broker, const char *key)
{
    if (broker->family == BROKER_CHANNEL)
        return strcmp(key, "ack_timeout_ms") != 0;
    return broker->family != BROKER_LOG;
}

static bool queue_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    const Scenario *scenario = writer->context;
    const BrokerSpec *broker = &scenario->broker;
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++) {
        const BrokerSpec *extra = &scenario->extra_brokers[b].spec;
        if ((const QueueSpec *)base >= extra->queues &&
            (const QueueSpec *)base < extra->queues + QUEUES_MAX)
            broker = extra; /* a queue of the second broker */
    }
    return queue_rule_shown(broker, key);
}

static const SchemaField queue_fields[] = {
    FIELD_CUSTOM_WRITTEN("name", SCHEMA_MEMBER(QueueSpec, name, char *), read_queue_name,
                         write_name, NULL, true),
    QUEUE_RULE_FIELDS(QueueSpec),
};
static const SchemaObject queue_schema = {
    .name = "broker.queues[]", SCHEMA_FIELDS(queue_fields), .shown = queue_shown};

/* "duplicate name 'orders' (also at $.broker.queues[0])", at the later one's name. The
 * reader's path is the array's. */
static void check_unique_queue_names(SchemaReader *reader, const BrokerSpec *broker)
{
    char array_path[JSON_PATH_LEN_MAX];
    json_path_render(&reader->path, array_path, sizeof array_path);
    for (uint32_t i = 1; i < broker->queue_count; i++) {
        for (uint32_t j = 0; j < i; j++) {
            const char *name = broker->queues[i].name;
            if (name[0] != '\0' && strcmp(name, broker->queues[j].name) == 0) {
                char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
                json_path_push_index(&reader->path, i);
                schema_error_at(reader, "name", "duplicate name %s (also at %s[%u])",
                                scenario_errors_quote(quoted, sizeof quoted, name), array_path, j);
                json_path_pop(&reader->path);
                break;
            }
        }
    }
}

/* Read after the broker-level rules (the table's order), so each queue starts from them and
 * changes only what it names. Unreadable, queue_count is 0: no reference to a queue is then
 * checked, since every name would be unknown. */
static void read_queues(SchemaReader *reader, const cJSON *item, void *target)
{
    BrokerSpec *broker = target;
    unsigned count = 0;
    broker->queue_count = 0;
    if (!schema_read_array_size(reader, item, 1, QUEUES_MAX, "queue", "queues", &count)) {
        return;
    }
    const cJSON *element = item->child;
    for (unsigned i = 0; i < count; i++, element = element->next) {
        queue_from_broker(&broker->queues[i], broker);
        json_path_push_index(&reader->path, i);
        schema_read_object(reader, element, &queue_schema, &broker->queues[i]);
        json_path_pop(&reader->path);
    }
    broker->queue_count = count;
    check_unique_queue_names(reader, broker);
}

static void write_queues(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const BrokerSpec *broker = target;
    cJSON *queues = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t q = 0; queues != NULL && q < broker->queue_count; q++) {
        cJSON *written = schema_write_item(writer, queues, NULL, cJSON_CreateObject());
        if (written != NULL)
            schema_write_object(writer, &queue_schema, &broker->queues[q], written);
    }
}

/* For the format reference: an exchange's keys (read by read_exchanges). */
static const SchemaField exchange_fields[] = {
    FIELD_CUSTOM("name", 0, scenario_schema_read_tag, NULL, true),
    FIELD_CUSTOM("queues", 0, scenario_schema_read_tag, NULL, true),
};
static const SchemaObject exchange_schema = {.name = "broker.exchanges[]",
                                             SCHEMA_FIELDS(exchange_fields)};

/* The queue named name, or -1. */
static int queue_named(const BrokerSpec *broker, const char *name)
{
    for (uint32_t q = 0; q < broker->queue_count; q++) {
        if (strcmp(broker->queues[q].name, name) == 0)
            return (int)q;
    }
    return -1;
}

/* One exchange: its name (a queue's or an earlier exchange's is refused: a publish names
 * either) and the queues it copies each message to, at least two of them, each once. */
static void read_exchange(SchemaReader *reader, const cJSON *object, BrokerSpec *broker,
                          ExchangeSpec *exchange)
{
    for (const cJSON *child = object->child; child != NULL; child = child->next) {
        const char *key = child->string != NULL ? child->string : "";
        if (strcmp(key, "name") != 0 && strcmp(key, "queues") != 0) {
            char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
            schema_error(reader, "unknown key %s for an exchange (name, queues)",
                         scenario_errors_quote(quoted, sizeof quoted, key));
        }
    }
    const cJSON *name = schema_member(object, "name");
    json_path_push_key(&reader->path, "name");
    if (name == NULL)
        schema_error(reader, "missing required key 'name'");
    else if (schema_read_text(reader, name, sizeof exchange->name, 1, exchange->name)) {
        char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
        scenario_errors_quote(quoted, sizeof quoted, exchange->name);
        if (queue_named(broker, exchange->name) >= 0)
            schema_error(reader,
                         "duplicate name %s (a queue's: a publish names a queue or an "
                         "exchange)",
                         quoted);
        for (const ExchangeSpec *other = broker->exchanges; other < exchange; other++) {
            if (strcmp(other->name, exchange->name) == 0) {
                schema_error(reader, "duplicate name %s (an exchange's above)", quoted);
                break;
            }
        }
    }
    json_path_pop(&reader->path);
    const cJSON *queues = schema_member(object, "queues");
    json_path_push_key(&reader->path, "queues");
    unsigned count = 0;
    if (queues == NULL)
        schema_error(reader, "missing required key 'queues' (the queues it copies to)");
    else if (schema_read_array_size(reader, queues, 2, QUEUES_MAX, "queue", "queues", &count)) {
        const cJSON *item = queues->child;
        for (unsigned i = 0; i < count; i++, item = item->next) {
            json_path_push_index(&reader->path, i);
            int q = cJSON_IsString(item) ? queue_named(broker, item->valuestring) : -1;
            if (!schema_expect(reader, item, cJSON_String, "string")) {
                /* said */
            } else if (q < 0) {
                const char *known[QUEUES_MAX];
                for (uint32_t k = 0; k < broker->queue_count; k++)
                    known[k] = broker->queues[k].name;
                scenario_schema_unknown_name(reader, "queue", item->valuestring, "", known,
                                             broker->queue_count);
            } else if (exchange->queue_mask & (1u << q)) {
                schema_error(reader, "duplicate queue '%s'", item->valuestring);
            } else {
                exchange->queue_mask |= 1u << q;
            }
            json_path_pop(&reader->path);
        }
    }
    json_path_pop(&reader->path);
}

/* After `queues` (the table's order): every queue an exchange names is known by then. */
static void read_exchanges(SchemaReader *reader, const cJSON *item, void *target)
{
    BrokerSpec *broker = target;
    unsigned count = 0;
    broker->exchange_count = 0;
    if (!schema_read_array_size(reader, item, 1, EXCHANGES_MAX, "exchange", "exchanges", &count))
        return;
    const cJSON *element = item->child;
    for (unsigned i = 0; i < count; i++, element = element->next) {
        ExchangeSpec *exchange = &broker->exchanges[i];
        memset(exchange, 0, sizeof *exchange);
        json_path_push_index(&reader->path, i);
        if (schema_expect(reader, element, cJSON_Object, "object"))
            read_exchange(reader, element, broker, exchange);
        json_path_pop(&reader->path);
    }
    broker->exchange_count = count;
}

static void write_exchanges(SchemaWriter *writer, const void *target, cJSON *object,
                            const char *key)
{
    const BrokerSpec *broker = target;
    if (broker->exchange_count == 0)
        return;
    cJSON *exchanges = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t e = 0; exchanges != NULL && e < broker->exchange_count; e++) {
        cJSON *written = schema_write_item(writer, exchanges, NULL, cJSON_CreateObject());
        if (written == NULL)
            return;
        schema_write_string(writer, written, "name", broker->exchanges[e].name);
        cJSON *queues = schema_write_item(writer, written, "queues", cJSON_CreateArray());
        for (uint32_t q = 0; queues != NULL && q < broker->queue_count; q++) {
            if (broker->exchanges[e].queue_mask & (1u << q))
                schema_write_item(writer, queues, NULL, cJSON_CreateString(broker->queues[q].name));
        }
    }
}

/* Each family's own fields, and the queue rules the family takes. */
static bool broker_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const BrokerSpec *broker = base;
    static const char *const log_fields[] = {
        "partitions",          "commit",        "commit_interval_ms", "rebalance_every_ms",
        "idempotent_producer", "transactional", "isolation"};
    for (size_t i = 0; i < sizeof log_fields / sizeof log_fields[0]; i++) {
        if (strcmp(key, log_fields[i]) == 0)
            return broker->family == BROKER_LOG;
    }
    if (strcmp(key, "consumer_timeout_ms") == 0)
        return broker->family == BROKER_CHANNEL;
    if (strcmp(key, "exchanges") == 0)
        return broker->family != BROKER_LOG;
    if (strcmp(key, "family") == 0 || strcmp(key, "consumers") == 0)
        return true;
    return queue_rule_shown(broker, key);
}

/* The log family (Kafka) has no per-message acknowledgement, so nothing of a queue's
 * delivery rules applies to it (a slow record is never handed out again, nothing is
 * dead-lettered, the idempotent producer drops only its own resends, not a window): each is
 * refused, as the log's own fields are with the other families. */
static void check_log_fields(SchemaReader *reader, const cJSON *object, const BrokerSpec *broker)
{
    static const char *const queue_rules[] = {
        "ack_timeout_ms",      "max_deliveries",   "dead_letter",     "prefetch", "late_ack",
        "redelivery_delay_ms", "redrive_after_ms", "dedup_window_ms", "queues"};
    if (broker->family == BROKER_LOG && schema_member(object, "exchanges") != NULL)
        schema_error_at(reader, "exchanges",
                        "expected no exchanges with family 'log' (each of its consumer groups "
                        "reads every record, as Kafka's do)");
    static const char *const log_fields[] = {
        "partitions",          "commit",        "commit_interval_ms", "rebalance_every_ms",
        "idempotent_producer", "transactional", "isolation"};
    bool log = broker->family == BROKER_LOG;
    for (size_t i = 0; log && i < sizeof queue_rules / sizeof queue_rules[0]; i++) {
        if (schema_member(object, queue_rules[i]) == NULL)
            continue;
        if (strcmp(queue_rules[i], "dedup_window_ms") == 0)
            schema_error_at(reader, queue_rules[i],
                            "expected no dedup_window_ms with family 'log' (Kafka's idempotent "
                            "producer drops only its own resends of one send, not a window's "
                            "repeats; not modelled)");
        else
            schema_error_at(reader, queue_rules[i],
                            "expected no %s with family 'log' (a log has no per-message ack: "
                            "a rebalance or a crash resumes from the last committed offset)",
                            queue_rules[i]);
    }
    for (size_t i = 0; !log && i < sizeof log_fields / sizeof log_fields[0]; i++) {
        if (schema_member(object, log_fields[i]) != NULL)
            schema_error_at(reader, log_fields[i], "expected family 'log' with %s", log_fields[i]);
    }
    if (log && broker->commit == COMMIT_BEFORE && broker->commit_interval_ms > 0)
        schema_error_at(reader, "commit_interval_ms",
                        "expected commit 'after' with commit_interval_ms (commit 'before' "
                        "commits each record as it is handed out, before processing it)");
    const ConsumerSpec *consumers = &broker->consumers;
    /* C37: the transaction holds the offsets committed after processing; the inbox is the
     * other way to tie an effect to its record, and is not combined with it */
    if (log && broker->transactional && broker->commit == COMMIT_BEFORE)
        schema_error_at(reader, "transactional",
                        "expected commit 'after' with transactional (commit 'before' commits "
                        "each offset as the record goes out, outside any transaction)");
    if (log && broker->transactional && consumers->inbox) {
        json_path_push_key(&reader->path, "consumers");
        schema_error_at(reader, "inbox",
                        "expected no inbox with a transactional broker (the transaction "
                        "already commits the output with its offset)");
        json_path_pop(&reader->path);
    }
}

/* Without `queues`, the one queue takes the broker-level rules the file just gave. */
/* A redrive moves dead letters back: a queue that discards them has none to move. */
static void check_broker(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)clean;
    BrokerSpec *broker = base;
    if (schema_member(object, "queues") == NULL) {
        set_main_queue(broker);
        if (schema_member(object, "exchanges") != NULL)
            schema_error_at(reader, "exchanges",
                            "expected 'queues' with exchanges (an exchange copies each message "
                            "to queues the broker lists)");
    }
    /* each family has its own clock for an unacknowledged delivery: the other's is refused */
    bool channel = broker->family == BROKER_CHANNEL;
    if (channel && schema_member(object, "ack_timeout_ms") != NULL)
        schema_error_at(reader, "ack_timeout_ms",
                        "expected no ack timeout with family 'channel' (a channel redelivers "
                        "only when it closes: consumer_timeout_ms)");
    if (!channel && schema_member(object, "consumer_timeout_ms") != NULL)
        schema_error_at(reader, "consumer_timeout_ms",
                        broker->family == BROKER_LOG
                            ? "expected family 'channel' with consumer_timeout_ms (a log has no "
                              "delivery to time out: its consumers commit offsets)"
                            : "expected family 'channel' with consumer_timeout_ms (a "
                              "visibility-timeout broker uses each queue's ack_timeout_ms)");
    check_log_fields(reader, object, broker);
    /* a heartbeat extends a per-delivery timer: only the visibility-timeout family has one
     * (a channel's consumer_timeout_ms is per channel, a log has none) */
    const cJSON *consumers = schema_member(object, "consumers");
    if (broker->family != BROKER_VISIBILITY_TIMEOUT && consumers != NULL &&
        cJSON_IsObject(consumers) && schema_member(consumers, "heartbeat_ms") != NULL) {
        json_path_push_key(&reader->path, "consumers");
        schema_error_at(reader, "heartbeat_ms",
                        "expected family 'visibility-timeout' with heartbeat_ms (it extends a "
                        "delivery's ack timeout, which only that family has)");
        json_path_pop(&reader->path);
    }
    const cJSON *queues = schema_member(object, "queues");
    for (const cJSON *queue = queues != NULL && cJSON_IsArray(queues) ? queues->child : NULL;
         channel && queue != NULL; queue = queue->next) {
        if (cJSON_IsObject(queue) && schema_member(queue, "ack_timeout_ms") != NULL) {
            schema_error(reader, "expected no queue with an ack_timeout_ms with family 'channel'");
            break;
        }
    }
    for (uint32_t q = 0; q < broker->queue_count; q++) {
        if (broker->queues[q].redrive_after_ms > 0 && !broker->queues[q].dead_letter) {
            schema_error(reader,
                         "expected \"dead_letter\": true where redrive_after_ms is set "
                         "(queue '%s' discards what it would redrive)",
                         broker->queues[q].name);
            break;
        }
    }
}

/* clang-format off */
#define BROKER_FIELDS                                                                              \
    FIELD_CHOICE("family", BrokerSpec, family, scenario_names_broker_family),                      \
    FIELD_NUMBER("consumer_timeout_ms", BrokerSpec, consumer_timeout_ms, RANGE_MS_POSITIVE),       \
    FIELD_U32("partitions", BrokerSpec, partitions, RANGE_PARTITIONS),                             \
    FIELD_CHOICE("commit", BrokerSpec, commit, scenario_names_commit),                             \
    FIELD_NUMBER("commit_interval_ms", BrokerSpec, commit_interval_ms, RANGE_MS),                  \
    FIELD_NUMBER("rebalance_every_ms", BrokerSpec, rebalance_every_ms, RANGE_MS),                  \
    FIELD_BOOLEAN("idempotent_producer", BrokerSpec, idempotent_producer),                         \
    FIELD_BOOLEAN("transactional", BrokerSpec, transactional),                                     \
    FIELD_CHOICE("isolation", BrokerSpec, isolation, scenario_names_isolation),                    \
    QUEUE_RULE_FIELDS(BrokerSpec),                                                                 \
    FIELD_CUSTOM_WRITTEN("queues", 0, read_queues, write_queues, &queue_schema, false),            \
    FIELD_CUSTOM_WRITTEN("exchanges", 0, read_exchanges, write_exchanges, &exchange_schema, false)
/* clang-format on */

static const SchemaField broker_fields[] = {
    BROKER_FIELDS,
    FIELD_OBJECT("consumers", BrokerSpec, consumers, consumer_schema),
};
const SchemaObject scenario_services_broker_schema = {
    .name = "broker", SCHEMA_FIELDS(broker_fields), .check = check_broker, .shown = broker_shown};

/* ------------------------------------------------------------------ the services form */

/* In the services form each service is an entry of "services", with its id and kind beside
 * the older object's own fields; a store is a service of its own that "key_store" names,
 * and the consumers one that "consumes" its broker. scenario_graph.c reads ids, kinds and
 * references; these tables list them so that they are known keys, and read the rest. */
static void read_by_graph(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)reader;
    (void)item;
    (void)target;
}

/* The older form's ways of saying what the services form says otherwise: refused with where
 * it goes now, so a file half converted says what to change. */
static void read_handler_switch(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected 'steps' in the services form instead (a call step names the "
                         "gateway: \"steps\": [{\"call\": ID}], a publish step the broker)");
}

static void read_inline_store(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected 'key_store' in the services form instead (the id of a "
                         "service of kind 'key_store' with these fields)");
}

static void read_inline_consumers(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)item;
    (void)target;
    schema_error(reader, "expected a service of kind 'consumers' in the services form instead "
                         "(with \"consumes\": the broker's id)");
}

/* clang-format off */
#define SERVICE_HEAD_FIELDS                                                                        \
    FIELD_CUSTOM("id", 0, read_by_graph, NULL, false),                                             \
    FIELD_CUSTOM("kind", 0, read_by_graph, NULL, false)
#define REFERENCE_FIELD(key_) FIELD_CUSTOM(key_, 0, read_by_graph, NULL, false)
#define REFUSED_FIELD(key_, read_) FIELD_CUSTOM(key_, 0, read_, NULL, false)
/* clang-format on */

#define RANGE_INSTANCES                                                                            \
    {                                                                                              \
        1.0, SERVER_INSTANCES_MAX, false, false, false                                             \
    }

#define RANGE_CONSUMER_INSTANCES                                                                   \
    {                                                                                              \
        1.0, CONSUMER_INSTANCES_MAX, false, false, false                                           \
    }

static const SchemaField server_service_fields[] = {
    SERVICE_HEAD_FIELDS,
    FIELD_U32("instances", ServerSpec, instances, RANGE_INSTANCES),
    FIELD_CHOICE("balancer", ServerSpec, balancer, scenario_names_balancer),
    FIELD_CHOICE("balancer_retry", ServerSpec, balancer_retry, scenario_names_balancer_retry),
    SERVER_FIELDS_HEAD,
    REFERENCE_FIELD("key_store"),
    SERVER_FIELDS_FAILURES,
    SERVER_FIELD_TRANSACTION,
    SERVER_FIELD_RELAY,
    REFERENCE_FIELD("steps"),
    REFUSED_FIELD("idempotency", read_inline_store),
    REFUSED_FIELD("use_gateway", read_handler_switch),
    REFUSED_FIELD("outbox", read_handler_switch),
    REFUSED_FIELD("reconcile_ms", read_handler_switch),
    REFUSED_FIELD("publish_receipts", read_handler_switch),
    REFUSED_FIELD("receipts_via", read_handler_switch),
    REFUSED_FIELD("receipts_queue", read_handler_switch),
};
static const SchemaObject server_service_schema = {.name = "services[] (server)",
                                                   SCHEMA_FIELDS(server_service_fields),
                                                   .check = check_server,
                                                   .shown = server_shown};

static const SchemaField gateway_service_fields[] = {SERVICE_HEAD_FIELDS, GATEWAY_FIELDS};
static const SchemaObject gateway_service_schema = {.name = "services[] (gateway)",
                                                    SCHEMA_FIELDS(gateway_service_fields),
                                                    .check = check_gateway,
                                                    .shown = gateway_shown};

#define RANGE_PROXY_INSTANCES                                                                      \
    {                                                                                              \
        1.0, PROXY_INSTANCES_MAX, false, false, false                                              \
    }

/* A proxy of one instance is written as it was before proxies had instances. */
static bool proxy_service_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const ProxySpec *proxy = base;
    if (strcmp(key, "instances") == 0 || strcmp(key, "balancer") == 0 ||
        strcmp(key, "balancer_retry") == 0)
        return proxy->instances > 1;
    return true;
}

static const SchemaField proxy_service_fields[] = {
    SERVICE_HEAD_FIELDS,
    REFERENCE_FIELD("calls"),
    PROXY_FIELDS,
    FIELD_U32("instances", ProxySpec, instances, RANGE_PROXY_INSTANCES),
    FIELD_CHOICE("balancer", ProxySpec, balancer, scenario_names_balancer),
    FIELD_CHOICE("balancer_retry", ProxySpec, balancer_retry, scenario_names_balancer_retry)};
static const SchemaObject proxy_service_schema = {.name = "services[] (proxy)",
                                                  SCHEMA_FIELDS(proxy_service_fields),
                                                  .shown = proxy_service_shown};

static const SchemaField broker_service_fields[] = {
    SERVICE_HEAD_FIELDS, BROKER_FIELDS, REFUSED_FIELD("consumers", read_inline_consumers)};
static const SchemaObject broker_service_schema = {.name = "services[] (broker)",
                                                   SCHEMA_FIELDS(broker_service_fields),
                                                   .check = check_broker,
                                                   .shown = broker_shown};

static const SchemaField consumers_service_fields[] = {
    SERVICE_HEAD_FIELDS,
    REFERENCE_FIELD("consumes"),
    REFERENCE_FIELD("queues"),
    FIELD_U32("instances", ConsumerSpec, instances, RANGE_CONSUMER_INSTANCES),
    FIELD_U32("workers", ConsumerSpec, workers, RANGE_WORKERS),
    FIELD_DIST("service_ms", ConsumerSpec, service_ms),
    FIELD_INLINE_OBJECT("load", load_schema),
    REFERENCE_FIELD("key_store"),
    FIELD_OBJECT("crash", ConsumerSpec, crash, crash_schema),
    FIELD_BOOLEAN("inbox", ConsumerSpec, inbox),
    FIELD_NUMBER("heartbeat_ms", ConsumerSpec, heartbeat_ms, RANGE_MS),
    CONSUMER_FAILURE_FIELDS,
    FIELD_NUMBER("session_timeout_ms", ConsumerSpec, session_timeout_ms, RANGE_MS),
    REFERENCE_FIELD("steps"),
    REFUSED_FIELD("idempotency", read_inline_store),
    REFUSED_FIELD("use_gateway", read_handler_switch),
};
static const SchemaObject consumers_service_schema = {.name = "services[] (consumers)",
                                                      SCHEMA_FIELDS(consumers_service_fields),
                                                      .shown = consumers_shown};

/* One kind, two tables: a store takes the fields of the service that uses it (consumers
 * answer nobody, so the fields that shape an answer are refused there). */
static const SchemaField server_store_fields[] = {SERVICE_HEAD_FIELDS, SERVER_IDEMPOTENCY_FIELDS};
static const SchemaObject server_store_schema = {.name = "services[] (key_store)",
                                                 SCHEMA_FIELDS(server_store_fields),
                                                 .check = check_server_store,
                                                 .shown = server_store_shown};

static const SchemaField consumers_store_fields[] = {SERVICE_HEAD_FIELDS,
                                                     CONSUMER_IDEMPOTENCY_FIELDS};
static const SchemaObject consumers_store_schema = {.name = "services[] (key_store)",
                                                    SCHEMA_FIELDS(consumers_store_fields),
                                                    .check = check_consumers_store,
                                                    .shown = consumers_store_shown};

/* Each kind's descriptor (node_kind.h): what it is, with its services entry's schema above
 * and its key store's. A new kind adds its schema entry and its descriptor here
 * (`node_kind_<name>`, which node_kind.c registers from NODE_KIND_LIST). */
const NodeKindInfo node_kind_server = {
    .older_path = {"server"},
    .reached_when = NODE_REACHED_BY_CALLS,
    .settings_offset = offsetof(Scenario, server),
    .store_offset = offsetof(Scenario, server.idempotency),
    .runs_steps = true,
    .show_order = 1,
    .noun = "service",
    .lane_role = "handler",
    .lane_role_keyed = "handler + key store",
    .lane_order = 1,
    .service_schema = &server_service_schema,
    .store_schema = &server_store_schema,
};

const NodeKindInfo node_kind_gateway = {
    .older_path = {"gateway"},
    .reached_when = NODE_REACHED_BY_CHARGES,
    .settings_offset = offsetof(Scenario, gateway),
    .show_order = 2, /* after the server, whoever charges through it */
    .noun = "provider",
    .lane_role = "payment provider",
    .lane_role_keyed = "payment provider",
    .lane_after_caller = true, /* after whoever charges through it */
    .execute_badge = "charges the card",
    .replay_badge = "key seen: not charged again",
    .service_schema = &gateway_service_schema,
};

const NodeKindInfo node_kind_broker = {
    .older_path = {"broker"},
    .reached_when = NODE_REACHED_BY_PUBLISH,
    .settings_offset = offsetof(Scenario, broker),
    .show_order = 3,
    .noun = "broker",
    .lane_role = "queue",
    .lane_role_keyed = "queue",
    .lane_order = 2,
    .service_schema = &broker_service_schema,
};

const NodeKindInfo node_kind_consumers = {
    .older_path = {"broker", "consumers"},
    .reached_when = NODE_REACHED_BY_PUBLISH,
    .settings_offset = offsetof(Scenario, broker.consumers),
    .reference = {"consumes", NODE_BROKER, "nothing would take the broker's messages"},
    .store_offset = offsetof(Scenario, broker.consumers.idempotency),
    .runs_steps = true,
    .show_order = 4,
    .noun = "consumer group",
    .lane_role = "workers",
    .lane_role_keyed = "workers + key store",
    .lane_order = 3,
    .service_schema = &consumers_service_schema,
    .store_schema = &consumers_store_schema,
};

const NodeKindInfo node_kind_proxy = {
    .older_path = {"proxy"},
    .reached_when = NODE_REACHED_BY_PROXIED,
    .node_when_reached = true,
    .reference = {"calls", NODE_SERVER, NULL},
    .settings_offset = offsetof(Scenario, proxy),
    .noun = "proxy",
    .lane_role = "retries on its own",
    .lane_role_keyed = "retries on its own",
    .lane_order = 0,
    .service_schema = &proxy_service_schema,
};

const NodeKindInfo node_kind_key_store = {
    .lane_role = "key store",
    .lane_role_keyed = "key store",
    .crash_noun = "key store",
    .crash_loses = "keys",
    .crash_loses_one = "key",
};

const SchemaObject *scenario_services_schema_of(NodeKind kind)
{
    return node_kind_info(kind)->service_schema;
}

const SchemaObject *scenario_services_store_schema_of(NodeKind kind)
{
    return node_kind_info(kind)->store_schema;
}
