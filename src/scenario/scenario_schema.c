/* The scenario format's top level, accounts and client groups (DESIGN §4), with their
 * defaults. The other parts live in scenario_network.c, scenario_services.c,
 * scenario_dist.c and scenario_expect.c. */
#include "scenario_schema.h"

#include <stdio.h>
#include <string.h>

#include "scenario_errors.h"

/* ------------------------------------------------------------------ defaults and ranges */

/* clang-format off */
#define RANGE_OPS {1.0, (double)OPERATIONS_TOTAL_MAX, false, false, false}
#define RANGE_ATTEMPTS {1.0, 1000.0, false, false, false}
#define RANGE_CONFLICTS {0.0, 1000.0, false, false, false}
#define RANGE_KEY_BITS {1.0, 64.0, false, false, false}
#define RANGE_BACKOFF_FACTOR {1.0, 1000.0, false, false, false} /* 1: constant backoff */
#define RANGE_CLIENT_COUNT {1.0, CLIENTS_TOTAL_MAX, false, false, false}
/* clang-format on */

static const ClientGroupSpec client_group_default = {
    .count = 1,
    .account = 0, /* the only account, when there is one */
    .target = TARGET_SERVER,
    .operation = {.kind = OPERATION_DEBIT, .amount = 100, .order_base = 1},
    .workload = {.ops = 1, .interval_ms = {DIST_EXP, 1000, 0}, .loop = LOOP_CLOSED},
    .retry = {.timeout_ms = 1000,
              .max_attempts = 5,
              .base_ms = 100,
              .factor = 2.0,
              .max_ms = 5000,
              .jitter = JITTER_FULL,
              .late_response = LATE_RESPONSE_IGNORE,
              .on_timeout = true,
              .on_5xx = true,
              .on_409 = true,
              .conflict_delay_ms = 500,
              .budget = {.enabled = false, .ratio = 0.1, .min_per_s = 10, .max_tokens = 10}},
    .key = KEY_PER_CLICK,
    .double_click = {.prob = 0, .delay_ms = {DIST_UNIFORM, 100, 400}},
    .offline = {.prob = 0, .duration_ms = {DIST_EXP, 60000, 0}},
    .restart = {.prob = 0, .delay_ms = {DIST_UNIFORM, 2000, 10000}},
    .key_bits = 64,
    .schedule = {.instances = 1, .both_fire = 1.0, .skew_ms = {DIST_UNIFORM, 0, 1000}},
};

static void scenario_defaults(Scenario *scenario, const char *name)
{
    memset(scenario, 0, sizeof *scenario);
    snprintf(scenario->name, sizeof scenario->name, "%s", name);
    scenario_errors_trim_utf8(scenario->name);
    scenario->seed = 1;
    scenario->duration_ms = 60000;
    scenario->mode_count = MODE_COUNT;
    for (unsigned i = 0; i < MODE_COUNT; i++) {
        scenario->modes[i] = (Mode)i;
    }
    scenario_network_defaults(&scenario->network);
    scenario_services_defaults(scenario);
}

/* ------------------------------------------------------------------ names */

static bool is_name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* The narrow alphabet keeps names usable as they appear elsewhere: in link names
 * ("web->server"), --set paths, trace lines and CSV columns, with no quoting. */
bool scenario_schema_read_name(SchemaReader *reader, const cJSON *item, char *out)
{
    out[0] = '\0';
    if (!schema_read_text(reader, item, NAME_LEN_MAX, 1, out)) {
        return false;
    }
    for (const char *c = out; *c != '\0'; c++) {
        if (!is_name_char((unsigned char)*c)) {
            char got[SCENARIO_QUOTE_LEN_MAX + 8];
            schema_error(reader, "expected letters, digits, '_' and '-' only (got %s)",
                         scenario_errors_quote(got, sizeof got, out));
            return false;
        }
    }
    return true;
}

void scenario_schema_unknown_name(SchemaReader *reader, const char *what, const char *name,
                                  const char *context, const char *const *known,
                                  unsigned known_count)
{
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    scenario_errors_quote(quoted, sizeof quoted, name);
    NameSuggestion suggestion;
    scenario_names_suggest_init(&suggestion, name);
    char list[72] = "";
    size_t used = 0;
    bool fits = known_count > 0;
    for (unsigned i = 0; i < known_count; i++) {
        if (known[i][0] == '\0') {
            continue;
        }
        scenario_names_suggest_consider(&suggestion, known[i]);
        int n = snprintf(list + used, sizeof list - used, "%s'%s'", used > 0 ? ", " : "", known[i]);
        fits = fits && n > 0 && (size_t)n < sizeof list - used;
        used = fits ? used + (size_t)n : used;
    }
    if (suggestion.best != NULL) {
        schema_error(reader, "unknown %s %s%s, did you mean '%s'?", what, quoted, context,
                     suggestion.best);
    } else if (fits && used > 0) {
        schema_error(reader, "unknown %s %s%s (known: %s)", what, quoted, context, list);
    } else {
        schema_error(reader, "unknown %s %s%s", what, quoted, context);
    }
}

/* "duplicate id 'web' (also at $.clients[0])", reported at the later one. The reader's path
 * is the array's. */
static void check_unique_ids(SchemaReader *reader, const char *array_key, const char *const *ids,
                             unsigned count)
{
    for (unsigned i = 1; i < count; i++) {
        for (unsigned j = 0; j < i; j++) {
            if (ids[i][0] != '\0' && strcmp(ids[i], ids[j]) == 0) {
                char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
                json_path_push_index(&reader->path, i);
                schema_error_at(reader, "id", "duplicate id %s (also at $.%s[%u])",
                                scenario_errors_quote(quoted, sizeof quoted, ids[i]), array_key, j);
                json_path_pop(&reader->path);
                break;
            }
        }
    }
}

void scenario_schema_read_tag(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)reader;
    (void)item;
    (void)target;
}

/* ------------------------------------------------------------------ accounts */

static void read_account_id(SchemaReader *reader, const cJSON *item, void *target)
{
    scenario_schema_read_name(reader, item, target);
}

static void write_text(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    schema_write_string(writer, object, key, target);
}

static const SchemaField account_fields[] = {
    FIELD_CUSTOM_WRITTEN("id", SCHEMA_MEMBER(AccountSpec, id, char *), read_account_id, write_text,
                         NULL, true),
    FIELD_I64("balance", AccountSpec, balance, RANGE_INTEGER),
};
static const SchemaObject account_schema = {.name = "accounts[]", SCHEMA_FIELDS(account_fields)};

static void read_accounts(SchemaReader *reader, const cJSON *item, void *target)
{
    ScenarioReader *scenario_reader = (ScenarioReader *)reader;
    Scenario *scenario = target;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 1, ACCOUNTS_MAX, "account", "accounts", &count)) {
        return;
    }
    const cJSON *element = item->child;
    const char *ids[ACCOUNTS_MAX];
    for (unsigned i = 0; i < count; i++, element = element->next) {
        scenario->accounts[i] = (AccountSpec){.balance = 0};
        json_path_push_index(&reader->path, i);
        schema_read_object(reader, element, &account_schema, &scenario->accounts[i]);
        json_path_pop(&reader->path);
        ids[i] = scenario->accounts[i].id;
    }
    scenario->account_count = count;
    scenario_reader->accounts_readable = true;
    check_unique_ids(reader, "accounts", ids, count);
}

static void write_accounts(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Scenario *scenario = target;
    cJSON *accounts = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; accounts != NULL && i < scenario->account_count; i++) {
        cJSON *written = schema_write_item(writer, accounts, NULL, cJSON_CreateObject());
        if (written != NULL)
            schema_write_object(writer, &account_schema, &scenario->accounts[i], written);
    }
}

/* ------------------------------------------------------------------ a client group's parts */

static void check_operation(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    const OperationSpec *operation = base;
    if (clean && operation->kind == OPERATION_DEBIT && operation->amount == 0) {
        schema_error_at(reader, "amount", "expected integer >= 1 for kind 'debit' (got 0)");
    }
    /* A shared record and a version check mean something for a status only: refused
     * elsewhere rather than ignored. */
    if (clean && operation->resource == RESOURCE_PER_CLIENT &&
        operation->kind != OPERATION_SET_STATUS) {
        schema_error_at(reader, "resource",
                        "expected 'per-operation' for kind '%s' ('per-client' is a status "
                        "record that set-status operations move on)",
                        scenario_names_of(&scenario_names_operation_kind, (int)operation->kind));
    }
    if (clean && operation->conditional &&
        (operation->kind != OPERATION_SET_STATUS || operation->resource != RESOURCE_PER_CLIENT)) {
        schema_error_at(reader, "conditional",
                        "expected kind 'set-status' with resource 'per-client' (a version check "
                        "needs a record that several operations write)");
    }
    if (clean && operation->update != BALANCE_UPDATE_ATOMIC && operation->kind != OPERATION_DEBIT) {
        schema_error_at(reader, "update",
                        "expected 'atomic' for kind '%s' (a read-modify-write of a balance "
                        "needs a debit)",
                        scenario_names_of(&scenario_names_operation_kind, (int)operation->kind));
    }
}

static const SchemaField operation_fields[] = {
    FIELD_CHOICE("kind", OperationSpec, kind, scenario_names_operation_kind),
    FIELD_I64("amount", OperationSpec, amount, RANGE_INTEGER),
    FIELD_I64("first_order", OperationSpec, order_base, RANGE_INTEGER),
    FIELD_CHOICE("resource", OperationSpec, resource, scenario_names_operation_resource),
    FIELD_BOOLEAN("conditional", OperationSpec, conditional),
    FIELD_CHOICE("update", OperationSpec, update, scenario_names_balance_update),
};
static const SchemaObject operation_schema = {
    .name = "clients[].operation", SCHEMA_FIELDS(operation_fields), .check = check_operation};

/* Scripted start times replace ops: there are as many operations as times. */
static void read_at_ms(SchemaReader *reader, const cJSON *item, void *target)
{
    WorkloadSpec *workload = target;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 1, SCRIPTED_AT_MAX, "time", "times", &count)) {
        return;
    }
    unsigned long errors_before = reader->error_total;
    const cJSON *element = item->child;
    double previous = 0;
    for (unsigned i = 0; i < count; i++, element = element->next) {
        double at = 0;
        json_path_push_index(&reader->path, i);
        if (schema_read_number(reader, element, &(SchemaRange)RANGE_MS, &at)) {
            if (at < previous) {
                char got[32];
                char bound[32];
                schema_describe_number(reader, element, got, sizeof got);
                schema_format_number(previous, bound, sizeof bound);
                schema_error(reader, "expected number >= %s (times in order) (got %s)", bound, got);
            }
            workload->at_ms[i] = at;
            previous = at > previous ? at : previous;
        }
        json_path_pop(&reader->path);
    }
    if (reader->error_total == errors_before) {
        workload->at_count = count;
        workload->ops = count;
    }
}

static void write_at_ms(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const WorkloadSpec *workload = target;
    cJSON *times = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; times != NULL && i < workload->at_count; i++)
        schema_write_number(writer, times, NULL, workload->at_ms[i]);
}

/* Scripted times or a count: a file may not give both. */
static bool workload_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const WorkloadSpec *workload = base;
    if (strcmp(key, "at_ms") == 0)
        return workload->at_count > 0;
    if (strcmp(key, "ops") == 0)
        return workload->at_count == 0;
    return true;
}

static void check_workload(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)base;
    (void)clean;
    if (schema_member(object, "ops") != NULL && schema_member(object, "at_ms") != NULL) {
        schema_error(reader, "expected either 'ops' or 'at_ms' (got both)");
    }
}

static const SchemaField workload_fields[] = {
    FIELD_U32("ops", WorkloadSpec, ops, RANGE_OPS),
    FIELD_DIST("interval_ms", WorkloadSpec, interval_ms),
    FIELD_CHOICE("loop", WorkloadSpec, loop, scenario_names_loop),
    FIELD_NUMBER("start_ms", WorkloadSpec, start_ms, RANGE_MS),
    FIELD_CUSTOM_WRITTEN("at_ms", 0, read_at_ms, write_at_ms, NULL, false),
};
static const SchemaObject workload_schema = {.name = "clients[].workload",
                                             SCHEMA_FIELDS(workload_fields),
                                             .check = check_workload,
                                             .shown = workload_shown};

static void check_backoff(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    const RetrySpec *retry = base;
    if (!clean || retry->max_ms >= retry->base_ms) {
        return;
    }
    char base_text[32];
    char max_text[32];
    schema_format_number(retry->base_ms, base_text, sizeof base_text);
    schema_format_number(retry->max_ms, max_text, sizeof max_text);
    if (schema_member(object, "max_ms") != NULL) {
        schema_error_at(reader, "max_ms", "expected number >= base_ms (%s) (got %s)", base_text,
                        max_text);
    } else {
        schema_error_at(reader, "base_ms", "expected number <= max_ms (%s) (got %s)", max_text,
                        base_text);
    }
}

static const SchemaField backoff_fields[] = {
    FIELD_NUMBER("base_ms", RetrySpec, base_ms, RANGE_MS),
    FIELD_NUMBER("factor", RetrySpec, factor, RANGE_BACKOFF_FACTOR),
    FIELD_NUMBER("max_ms", RetrySpec, max_ms, RANGE_MS),
    FIELD_CHOICE("jitter", RetrySpec, jitter, scenario_names_jitter),
};
static const SchemaObject backoff_schema = {
    .name = "clients[].retry.backoff", SCHEMA_FIELDS(backoff_fields), .check = check_backoff};

bool scenario_schema_read_retry_on(SchemaReader *reader, const cJSON *item, int *result)
{
    if (!schema_expect(reader, item, cJSON_Array, "array")) {
        return false;
    }
    int flags = 0;
    bool ok = true;
    size_t i = 0;
    for (const cJSON *element = item->child; element != NULL && !schema_full(reader);
         element = element->next, i++) {
        int flag = 0;
        json_path_push_index(&reader->path, i);
        if (!schema_read_choice(reader, element, &scenario_names_retry_on, &flag)) {
            ok = false;
        } else if (flags & flag) {
            schema_error(reader, "duplicate '%s'", element->valuestring);
            ok = false;
        }
        flags |= flag;
        json_path_pop(&reader->path);
    }
    *result = flags;
    return ok;
}

void scenario_schema_write_retry_on(SchemaWriter *writer, cJSON *object, const char *key, int flags)
{
    cJSON *answers = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (unsigned i = 0; answers != NULL && i < scenario_names_retry_on.count; i++) {
        const NameEntry *entry = &scenario_names_retry_on.entries[i];
        if (flags & entry->value)
            schema_write_string(writer, answers, NULL, entry->name);
    }
}

static void write_retry_on(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const RetrySpec *retry = target;
    scenario_schema_write_retry_on(writer, object, key,
                                   (retry->on_timeout ? RETRY_ON_TIMEOUT : 0) |
                                       (retry->on_5xx ? RETRY_ON_5XX : 0) |
                                       (retry->on_409 ? RETRY_ON_409 : 0));
}

static void read_retry_on(SchemaReader *reader, const cJSON *item, void *target)
{
    RetrySpec *retry = target;
    int flags = 0;
    if (scenario_schema_read_retry_on(reader, item, &flags)) {
        retry->on_timeout = flags & RETRY_ON_TIMEOUT;
        retry->on_5xx = flags & RETRY_ON_5XX;
        retry->on_409 = flags & RETRY_ON_409;
    }
}

#define RANGE_BUDGET_RATIO                                                                         \
    {                                                                                              \
        0.0, 10.0, false, false, false                                                             \
    }
#define RANGE_BUDGET_RATE                                                                          \
    {                                                                                              \
        0.0, 1e6, false, false, false                                                              \
    }
#define RANGE_BUDGET_TOKENS                                                                        \
    {                                                                                              \
        1.0, 1e6, false, false, false                                                              \
    }

static void check_budget(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)clean;
    RetryBudgetSpec *budget = base;
    budget->enabled = true; /* read only when the file has one */
    if (budget->kind != BUDGET_KIND_GRPC)
        return;
    /* gRPC's throttle earns only from successes: a reserve per second would be ignored */
    if (schema_member(object, "min_per_s") != NULL)
        schema_error_at(reader, "min_per_s",
                        "expected no 'min_per_s' with kind \"grpc\" (gRPC's retry throttling "
                        "earns tokens only from successful attempts)");
    budget->min_per_s = 0;
    if (budget->max_tokens > 1000) /* gRPC A6: maxTokens in (0, 1000] */
        schema_error_at(reader, "max_tokens",
                        "expected max_tokens <= 1000 with kind \"grpc\", got %g",
                        budget->max_tokens);
}

static const SchemaField budget_fields[] = {
    FIELD_CHOICE("kind", RetryBudgetSpec, kind, scenario_names_budget_kind),
    FIELD_NUMBER("ratio", RetryBudgetSpec, ratio, RANGE_BUDGET_RATIO),
    FIELD_NUMBER("min_per_s", RetryBudgetSpec, min_per_s, RANGE_BUDGET_RATE),
    FIELD_NUMBER("max_tokens", RetryBudgetSpec, max_tokens, RANGE_BUDGET_TOKENS),
};
/* gRPC's throttle has no reserve per second: the file may not name one. */
static bool budget_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const RetryBudgetSpec *budget = base;
    return budget->kind != BUDGET_KIND_GRPC || strcmp(key, "min_per_s") != 0;
}

static const SchemaObject budget_schema = {.name = "clients[].retry.budget",
                                           SCHEMA_FIELDS(budget_fields),
                                           .check = check_budget,
                                           .shown = budget_shown};

static const SchemaField retry_fields[] = {
    FIELD_NUMBER("timeout_ms", RetrySpec, timeout_ms, RANGE_MS_POSITIVE),
    FIELD_U32("max_attempts", RetrySpec, max_attempts, RANGE_ATTEMPTS),
    FIELD_INLINE_OBJECT("backoff", backoff_schema),
    FIELD_CHOICE("late_response", RetrySpec, late_response, scenario_names_late_response),
    FIELD_CUSTOM_WRITTEN("retry_on", 0, read_retry_on, write_retry_on, NULL, false),
    FIELD_NUMBER("conflict_delay_ms", RetrySpec, conflict_delay_ms, RANGE_MS),
    FIELD_U32("max_conflicts", RetrySpec, max_conflicts, RANGE_CONFLICTS),
    FIELD_BOOLEAN("honour_retry_after", RetrySpec, honour_retry_after),
    FIELD_OBJECT("budget", RetrySpec, budget, budget_schema),
};
/* A budget object turns the budget on. */
static bool retry_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const RetrySpec *retry = base;
    return strcmp(key, "budget") != 0 || retry->budget.enabled;
}

static const SchemaObject retry_schema = {
    .name = "clients[].retry", SCHEMA_FIELDS(retry_fields), .shown = retry_shown};

static const SchemaField double_click_fields[] = {
    FIELD_NUMBER("prob", DoubleClickSpec, prob, RANGE_PROBABILITY),
    FIELD_DIST("delay_ms", DoubleClickSpec, delay_ms),
};
static const SchemaObject double_click_schema = {.name = "clients[].double_click",
                                                 SCHEMA_FIELDS(double_click_fields)};

#define RANGE_SCHEDULE_INSTANCES                                                                   \
    {                                                                                              \
        1.0, 2.0, false, false, false                                                              \
    }

static const SchemaField schedule_fields[] = {
    FIELD_U32("instances", ScheduleSpec, instances, RANGE_SCHEDULE_INSTANCES),
    FIELD_NUMBER("both_fire", ScheduleSpec, both_fire, RANGE_PROBABILITY),
    FIELD_DIST("skew_ms", ScheduleSpec, skew_ms),
};
static const SchemaObject schedule_schema = {.name = "clients[].schedule",
                                             SCHEMA_FIELDS(schedule_fields)};

static const SchemaField offline_fields[] = {
    FIELD_NUMBER("prob", OfflineSpec, prob, RANGE_PROBABILITY),
    FIELD_DIST("duration_ms", OfflineSpec, duration_ms),
};
static const SchemaObject offline_schema = {.name = "clients[].offline",
                                            SCHEMA_FIELDS(offline_fields)};

static const SchemaField restart_fields[] = {
    FIELD_NUMBER("prob", AppRestartSpec, prob, RANGE_PROBABILITY),
    FIELD_DIST("delay_ms", AppRestartSpec, delay_ms),
};
static const SchemaObject restart_schema = {.name = "clients[].restart",
                                            SCHEMA_FIELDS(restart_fields)};

/* ------------------------------------------------------------------ client groups */

static void read_client_id(SchemaReader *reader, const cJSON *item, void *target)
{
    char *id = target;
    if (!scenario_schema_read_name(reader, item, id)) {
        return;
    }
    const Scenario *scenario = ((const ScenarioReader *)reader)->scenario;
    bool taken = false;
    for (unsigned i = 0; i < scenario_names_service.count; i++)
        taken |=
            strcmp(id, scenario_service_id(scenario, scenario_names_service.entries[i].value)) == 0;
    for (uint32_t c = 0; c < scenario->called_server_count; c++)
        taken |= strcmp(id, scenario->called_servers[c].id) == 0;
    if (!taken)
        return;
    char names[160];
    scenario_service_id_list(scenario, names, sizeof names);
    schema_error(reader, "expected id other than the node names %s (got '%s')", names, id);
}

static void read_account_reference(SchemaReader *reader, const cJSON *item, void *target)
{
    const ScenarioReader *scenario_reader = (const ScenarioReader *)reader;
    const Scenario *scenario = scenario_reader->scenario;
    uint32_t *account = target;
    if (!schema_expect(reader, item, cJSON_String, "string") ||
        !scenario_reader->accounts_readable) {
        return;
    }
    const char *known[ACCOUNTS_MAX];
    for (uint32_t i = 0; i < scenario->account_count; i++) {
        if (scenario->accounts[i].id[0] != '\0' &&
            strcmp(scenario->accounts[i].id, item->valuestring) == 0) {
            *account = i;
            return;
        }
        known[i] = scenario->accounts[i].id;
    }
    scenario_schema_unknown_name(reader, "account", item->valuestring, "", known,
                                 scenario->account_count);
}

static void write_account_reference(SchemaWriter *writer, const void *target, cJSON *object,
                                    const char *key)
{
    const Scenario *scenario = writer->context;
    schema_write_string(writer, object, key, scenario->accounts[*(const uint32_t *)target].id);
}

/* A client group's publishes go to a queue or to an exchange of the broker it publishes to
 * (target: the group). */
static void write_queue_reference(SchemaWriter *writer, const void *target, cJSON *object,
                                  const char *key)
{
    const ClientGroupSpec *group = target;
    const BrokerSpec *broker = scenario_broker(writer->context, group->broker); /* its own */
    schema_write_string(writer, object, key,
                        group->exchange > 0 ? broker->exchanges[group->exchange - 1].name
                                            : broker->queues[group->queue].name);
}

/* Show writes the services form: calls or publishes rather than target and via, and a queue
 * only where the group publishes. */
static bool client_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const ClientGroupSpec *group = base;
    if (strcmp(key, "target") == 0 || strcmp(key, "via") == 0)
        return false;
    if (strcmp(key, "queue") == 0)
        return group->target == TARGET_BROKER;
    if (strcmp(key, "library_retries") == 0 || strcmp(key, "library_replays") == 0)
        return group->library_retries > 0; /* C32: other scenarios show as they were */
    if (strcmp(key, "same_orders_as") == 0)
        return group->same_orders_as[0] != '\0'; /* C33: likewise */
    if (strcmp(key, "schedule") == 0)
        return group->schedule.instances > 1; /* C34: likewise */
    return true;
}

/* Only the type here: the broker, whose queues the name must match, is read after the
 * clients; check_queue_references resolves the name then. */
static void read_queue_reference(SchemaReader *reader, const cJSON *item, void *target)
{
    (void)target;
    schema_expect(reader, item, cJSON_String, "string");
}

/* True when the group's target member is what the file says: "target" is absent (the
 * default) or a valid name. An invalid one was reported already; one mistake, one error. */
static bool target_known(const cJSON *object)
{
    const cJSON *item = schema_member(object, "target");
    int unused = 0;
    return item == NULL ||
           (cJSON_IsString(item) &&
            scenario_names_find(&scenario_names_target, item->valuestring, &unused));
}

/* A group names where its operations go once: by a service's id (calls, publishes: either
 * form), or by the older form's target and via. */
static void check_client_graph(SchemaReader *reader, const cJSON *object)
{
    const ScenarioReader *scenario_reader = (const ScenarioReader *)reader;
    bool calls = schema_member(object, "calls") != NULL;
    bool publishes = schema_member(object, "publishes") != NULL;
    const char *older = schema_member(object, "target") != NULL ? "target"
                        : schema_member(object, "via") != NULL  ? "via"
                                                                : NULL;
    if (calls && publishes)
        schema_error_at(reader, "publishes", "expected either 'calls' or 'publishes' (got both)");
    else if ((calls || publishes) && older != NULL)
        schema_error_at(reader, older,
                        "expected no '%s' with '%s' (the service's id says where the group's "
                        "operations go)",
                        older, calls ? "calls" : "publishes");
    else if (scenario_reader->services_form && older != NULL)
        schema_error_at(reader, older,
                        "expected 'calls' or 'publishes' in the services form ('%s' names the "
                        "older form's fixed services)",
                        older);
    else if (scenario_reader->services_form && !calls && !publishes)
        schema_error(reader, "missing required key 'calls' (a server or proxy's id) or "
                             "'publishes' (a broker's id)");
}

/* "account" may be left out when there is nothing to choose from. A queue is the broker's:
 * naming one for a group that sends to the server is a mistake, not a no-op. */
static void check_client(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)clean;
    const ClientGroupSpec *group = base;
    const ScenarioReader *scenario_reader = (const ScenarioReader *)reader;
    uint32_t account_count = scenario_reader->scenario->account_count;
    if (schema_member(object, "account") == NULL && scenario_reader->accounts_readable &&
        account_count > 1) {
        schema_error(reader, "missing required key 'account' (the scenario has %u accounts)",
                     account_count);
    }
    check_client_graph(reader, object);
    if (group->via == VIA_PROXY && group->target == TARGET_BROKER && target_known(object)) {
        schema_error_at(reader, "via",
                        "expected 'direct' with target 'broker' (the proxy stands in front of "
                        "the server; a broker's publishers reach it directly)");
    }
    /* Retry-After comes only with the server's shed answers, and the proxy does not pass
     * the header on: a switch that could never act is refused, not ignored. */
    if (group->retry.honour_retry_after &&
        (group->target == TARGET_BROKER || group->via == VIA_PROXY)) {
        json_path_push_key(&reader->path, "retry");
        schema_error_at(reader, "honour_retry_after",
                        "expected a group that calls the server directly (%s never passes a "
                        "Retry-After on)",
                        group->target == TARGET_BROKER ? "the broker" : "the proxy");
        json_path_pop(&reader->path);
    }
    /* key_spelling.c spells the keys the server's store reads; the broker's message ids
     * are compared as they are sent */
    if (group->key_respelled > 0 && group->target == TARGET_BROKER && target_known(object))
        schema_error_at(reader, "key_respelled",
                        "expected 0 for a group that publishes (a message id spelled otherwise "
                        "is not modelled: the broker and the consumers compare ids as sent)");
    /* An operation has two request sequences at most (CLICKS_MAX): a scheduler's second
     * instance takes the second, which a double click would also want. */
    if (group->schedule.instances > 1 && group->double_click.prob > 0) {
        json_path_push_key(&reader->path, "double_click");
        schema_error_at(reader, "prob",
                        "expected 0 for a scheduler with two instances (its second firing is "
                        "the period's second run; nobody clicks a scheduler)");
        json_path_pop(&reader->path);
    }
    if (schema_member(object, "queue") != NULL && target_known(object) &&
        group->target != TARGET_BROKER) {
        schema_error_at(reader, "queue",
                        "expected no 'queue' with target '%s' (it applies only to a group "
                        "with target 'broker')",
                        scenario_names_of(&scenario_names_target, (int)group->target));
    }
}

#define RANGE_LIBRARY_RETRIES                                                                      \
    {                                                                                              \
        0.0, 10.0, false, false, false                                                             \
    }

static const SchemaField client_fields[] = {
    FIELD_CUSTOM_WRITTEN("id", SCHEMA_MEMBER(ClientGroupSpec, id, char *), read_client_id,
                         write_text, NULL, true),
    FIELD_U32("count", ClientGroupSpec, count, RANGE_CLIENT_COUNT),
    FIELD_CUSTOM_WRITTEN("account", SCHEMA_MEMBER(ClientGroupSpec, account, uint32_t),
                         read_account_reference, write_account_reference, NULL, false),
    FIELD_CHOICE("target", ClientGroupSpec, target, scenario_names_target),
    FIELD_CHOICE("via", ClientGroupSpec, via, scenario_names_via),
    FIELD_CUSTOM_WRITTEN("calls", 0, scenario_graph_read_calls, scenario_graph_write_calls, NULL,
                         false),
    FIELD_CUSTOM_WRITTEN("publishes", 0, scenario_graph_read_publishes,
                         scenario_graph_write_publishes, NULL, false),
    FIELD_CHOICE("on_unknown", ClientGroupSpec, on_unknown, scenario_names_on_unknown),
    FIELD_OBJECT("operation", ClientGroupSpec, operation, operation_schema),
    FIELD_OBJECT("workload", ClientGroupSpec, workload, workload_schema),
    FIELD_OBJECT("retry", ClientGroupSpec, retry, retry_schema),
    FIELD_CHOICE("key", ClientGroupSpec, key, scenario_names_key_strategy),
    FIELD_OBJECT("double_click", ClientGroupSpec, double_click, double_click_schema),
    FIELD_OBJECT("offline", ClientGroupSpec, offline, offline_schema),
    FIELD_OBJECT("restart", ClientGroupSpec, restart, restart_schema),
    FIELD_BOOLEAN("key_persisted", ClientGroupSpec, key_persisted),
    FIELD_U32("key_bits", ClientGroupSpec, key_bits, RANGE_KEY_BITS),
    FIELD_NUMBER("key_reuse", ClientGroupSpec, key_reuse, RANGE_PROBABILITY),
    FIELD_NUMBER("key_respelled", ClientGroupSpec, key_respelled, RANGE_PROBABILITY),
    FIELD_CHOICE("key_alphabet", ClientGroupSpec, key_alphabet, scenario_names_key_alphabet),
    FIELD_U32("library_retries", ClientGroupSpec, library_retries, RANGE_LIBRARY_RETRIES),
    FIELD_CHOICE("library_replays", ClientGroupSpec, library_replays,
                 scenario_names_library_replays),
    FIELD_CUSTOM_WRITTEN("queue", 0, read_queue_reference, write_queue_reference, NULL, false),
    FIELD_TEXT("same_orders_as", ClientGroupSpec, same_orders_as, 1),
    FIELD_OBJECT("schedule", ClientGroupSpec, schedule, schedule_schema),
};
static const SchemaObject client_schema = {.name = "clients[]",
                                           SCHEMA_FIELDS(client_fields),
                                           .check = check_client,
                                           .shown = client_shown};

static void write_clients(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Scenario *scenario = target;
    cJSON *clients = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; clients != NULL && i < scenario->client_group_count; i++) {
        cJSON *written = schema_write_item(writer, clients, NULL, cJSON_CreateObject());
        if (written != NULL)
            schema_write_object(writer, &client_schema, &scenario->client_groups[i], written);
    }
}

/* Every debit executed once must keep the money totals (balances, expected balances, lost
 * and double amounts) far from int64 overflow; repeated executions are bounded at run time
 * (WORLD_STOP_MONEY). Counted in unsigned 64 bits, which the bounds on amount (2^53), count
 * and ops keep from wrapping per group; the sum saturates. */
static void check_money_total(SchemaReader *reader, const Scenario *scenario)
{
    unsigned long long money = 0;
    bool beyond = false;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        const ClientGroupSpec *group = &scenario->client_groups[i];
        if (group->operation.kind != OPERATION_DEBIT)
            continue;
        unsigned long long ops =
            group->workload.at_count > 0 ? group->workload.at_count : group->workload.ops;
        unsigned long long group_money = 0;
        beyond |= __builtin_mul_overflow((unsigned long long)group->count, ops, &group_money) ||
                  __builtin_mul_overflow(group_money, (unsigned long long)group->operation.amount,
                                         &group_money) ||
                  __builtin_add_overflow(money, group_money, &money);
    }
    if (beyond || money > (unsigned long long)SCENARIO_MONEY_MAX) {
        char got[40];
        if (beyond)
            snprintf(got, sizeof got, "more than 2^64");
        else
            snprintf(got, sizeof got, "%llu", money);
        schema_error(reader,
                     "expected amount x count x ops, summed over debit groups, at most %llu "
                     "(got %s)",
                     (unsigned long long)SCENARIO_MONEY_MAX, got);
    }
}

/* The budgets world_create sizes its pools from (STYLE O2). */
static void check_client_totals(SchemaReader *reader, const Scenario *scenario)
{
    unsigned long long clients = 0;
    unsigned long long operations = 0;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        const ClientGroupSpec *group = &scenario->client_groups[i];
        clients += group->count;
        operations += (unsigned long long)group->count * group->workload.ops;
    }
    if (clients > CLIENTS_TOTAL_MAX) {
        schema_error(reader, "expected at most %d clients in total (got %llu)", CLIENTS_TOTAL_MAX,
                     clients);
    }
    if (operations > OPERATIONS_TOTAL_MAX) {
        schema_error(reader, "expected at most %llu operations in total (got %llu)",
                     OPERATIONS_TOTAL_MAX, operations);
    }
    check_money_total(reader, scenario);
}

static void read_clients(SchemaReader *reader, const cJSON *item, void *target)
{
    ScenarioReader *scenario_reader = (ScenarioReader *)reader;
    Scenario *scenario = target;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 1, CLIENT_GROUPS_MAX, "client group", "client groups",
                                &count)) {
        return;
    }
    const cJSON *element = item->child;
    const char *ids[CLIENT_GROUPS_MAX];
    for (unsigned i = 0; i < count; i++, element = element->next) {
        scenario->client_groups[i] = client_group_default;
        json_path_push_index(&reader->path, i);
        schema_read_object(reader, element, &client_schema, &scenario->client_groups[i]);
        json_path_pop(&reader->path);
        ids[i] = scenario->client_groups[i].id;
    }
    scenario->client_group_count = count;
    scenario_reader->clients_readable = true;
    check_unique_ids(reader, "clients", ids, count);
    check_client_totals(reader, scenario);
}

/* ------------------------------------------------------------------ queue references */

/* object's member key (a string; other types were reported when it was read) names a queue:
 * stores its index, or reports an unknown name (of the broker broker_id, where there are two
 * to tell apart; NULL with one). Absent, *queue keeps the first queue. With exchange (a client
 * group's publishes), it may name an exchange: *exchange is then its index plus one. */
static void resolve_queue(SchemaReader *reader, const BrokerSpec *broker, const char *broker_id,
                          const cJSON *object, const char *key, uint32_t *queue, uint32_t *exchange)
{
    const cJSON *item = schema_member(object, key);
    if (item == NULL || !cJSON_IsString(item)) {
        return;
    }
    for (uint32_t e = 0; e < broker->exchange_count; e++) {
        if (strcmp(broker->exchanges[e].name, item->valuestring) != 0)
            continue;
        if (exchange != NULL) {
            *exchange = e + 1;
            return;
        }
        json_path_push_key(&reader->path, key);
        schema_error(reader,
                     "expected a queue ('%s' is an exchange, which a client group's "
                     "publishes may name)",
                     item->valuestring);
        json_path_pop(&reader->path);
        return;
    }
    const char *known[QUEUES_MAX + EXCHANGES_MAX];
    unsigned known_count = 0;
    for (uint32_t q = 0; q < broker->queue_count; q++) {
        const char *name = broker->queues[q].name;
        if (name[0] != '\0' && strcmp(name, item->valuestring) == 0) {
            *queue = q;
            return;
        }
        bool listed = false; /* a duplicate name was reported; list it once */
        for (unsigned k = 0; k < known_count && !listed; k++) {
            listed = strcmp(known[k], name) == 0;
        }
        if (!listed) {
            known[known_count++] = name;
        }
    }
    for (uint32_t e = 0; e < broker->exchange_count && exchange != NULL; e++) {
        bool listed = false; /* a name a queue has too was reported; list it once */
        for (unsigned k = 0; k < known_count && !listed; k++)
            listed = strcmp(known[k], broker->exchanges[e].name) == 0;
        if (!listed)
            known[known_count++] = broker->exchanges[e].name;
    }
    json_path_push_key(&reader->path, key);
    bool exchanges = exchange != NULL && broker->exchange_count > 0;
    char context[NAME_LEN_MAX + 16] = "";
    if (broker_id != NULL)
        snprintf(context, sizeof context, " of broker '%s'", broker_id);
    scenario_schema_unknown_name(reader, exchanges ? "queue or exchange" : "queue",
                                 item->valuestring, context, known, known_count);
    json_path_pop(&reader->path);
}

/* A group that only emails applies no operation: every message of a client group that reaches
 * it must also reach, by the same exchange, a group that does (else no payment is ever made).
 * And only one copy may reach a group that applies it: the model has one effect per operation,
 * so a second copy applied (by a second group, or by the same group from a second queue)
 * would count every operation double; a group after the first does no more with its copy than
 * email the confirmation (modelling.md, "What the graph cannot express yet"). */
static void check_emailing_groups(SchemaReader *reader, const Scenario *scenario,
                                  const bool unresolved[CLIENT_GROUPS_MAX])
{
    json_path_push_key(&reader->path, "clients");
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        if (group->target != TARGET_BROKER || unresolved[g])
            continue; /* an unknown queue was said: its first queue is not what it meant */
        uint32_t reached = scenario_queues_reached(scenario, group);
        const BrokerSpec *broker = scenario_broker(scenario, group->broker);
        const char *emailing_queue = NULL;
        const char *applying_queues[2] = {NULL, NULL}; /* the first two */
        unsigned applying = 0;
        for (uint32_t q = 0; q < broker->queue_count; q++) {
            if (!(reached & (1u << q)))
                continue;
            if (scenario_group_of_queue(scenario, group->broker, q)->sends_email)
                emailing_queue = broker->queues[q].name;
            else if (applying++ < 2)
                applying_queues[applying - 1] = broker->queues[q].name;
        }
        json_path_push_index(&reader->path, g);
        /* A group whose step was refused (a typo in "email") reads as one that applies: two
         * applying groups are told only in a file with no error so far (one mistake, one
         * error). */
        if (emailing_queue != NULL && applying == 0)
            schema_error_at(reader, "queue",
                            "expected a queue or exchange reaching a group that applies the "
                            "operation (queue '%s' reaches only a group whose step emails)",
                            emailing_queue);
        else if (applying > 1 && reader->error_total == 0)
            schema_error_at(reader, "queue",
                            "expected an exchange reaching one group that applies the operation "
                            "(queues '%s' and '%s' both do: each operation applied twice)",
                            applying_queues[0], applying_queues[1]);
        json_path_pop(&reader->path);
    }
    json_path_pop(&reader->path);
}

/* An order API's orders (its publish step, first) go to the step's queue: a group there whose
 * step emails would confirm every order and charge none, as for a client group's publishes
 * (check_emailing_groups). Said at the step. */
static void check_published_orders(SchemaReader *reader, const cJSON *root,
                                   const Scenario *scenario)
{
    const ServerSpec *server = &scenario->server;
    if (!server->publishes_orders ||
        !scenario_group_of_queue(scenario, server->receipts_broker, server->receipts_queue)
             ->sends_email)
        return;
    unsigned pushed = 0;
    if (scenario_graph_push_service(reader, root, NODE_SERVER, &pushed) == NULL)
        return;
    json_path_push_key(&reader->path, "steps");
    json_path_push_index(&reader->path, 0);
    schema_error_at(
        reader, "queue",
        "expected a queue taken by a group that applies the operation (queue '%s' "
        "reaches only a group whose step emails)",
        scenario_broker(scenario, server->receipts_broker)->queues[server->receipts_queue].name);
    json_path_pop(&reader->path);
    json_path_pop(&reader->path);
    scenario_graph_pop(reader, pushed);
}

/* An exchange no client group publishes to would copy nothing: said at its name, in broker
 * b's entry (pushed by the caller). */
static void check_broker_exchanges_used(SchemaReader *reader, const Scenario *scenario, uint32_t b)
{
    const BrokerSpec *broker = scenario_broker(scenario, b);
    json_path_push_key(&reader->path, "exchanges");
    for (uint32_t e = 0; e < broker->exchange_count; e++) {
        /* one without a name (not an object, or its name missing or refused) was said */
        bool used = broker->exchanges[e].name[0] == '\0';
        for (uint32_t q = 0; q < broker->queue_count; q++)
            used |= strcmp(broker->queues[q].name, broker->exchanges[e].name) ==
                    0; /* its duplicate name was said: one mistake, one error */
        for (uint32_t g = 0; g < scenario->client_group_count; g++) {
            const ClientGroupSpec *group = &scenario->client_groups[g];
            used |=
                group->target == TARGET_BROKER && group->broker == b && group->exchange == e + 1;
        }
        json_path_push_index(&reader->path, e);
        if (!used)
            schema_error_at(reader, "name",
                            "expected a client group publishing to exchange '%s' (\"queue\": "
                            "\"%s\"); none does",
                            broker->exchanges[e].name, broker->exchanges[e].name);
        json_path_pop(&reader->path);
    }
    json_path_pop(&reader->path);
}

static void check_exchanges_used(SchemaReader *reader, const cJSON *root, const Scenario *scenario)
{
    unsigned pushed = 0;
    if (scenario_graph_push_service(reader, root, NODE_BROKER, &pushed) != NULL) {
        check_broker_exchanges_used(reader, scenario, 0);
        scenario_graph_pop(reader, pushed);
    }
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++) {
        json_path_push_key(&reader->path, "services");
        json_path_push_index(&reader->path, scenario->extra_brokers[b].entry - 1u);
        check_broker_exchanges_used(reader, scenario, b + 1);
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
    }
}

/* clients[].queue and server.receipts_queue name queues of the broker, which is read last
 * (moving it up would reorder every file's errors), so they are resolved after the whole
 * file, from the tree. A group whose target is not the broker was told so by check_client;
 * unreadable queues (queue_count 0) would make every name unknown. */
/* A proxy nobody goes through would be a switch that does nothing. */
static void check_proxy_used(SchemaReader *reader, const cJSON *root, const Scenario *scenario)
{
    if (schema_member(root, "proxy") == NULL ||
        !((const ScenarioReader *)reader)->clients_readable || scenario_uses_proxy(scenario))
        return;
    schema_error_at(reader, "proxy",
                    "expected a client group with \"via\": \"proxy\" (no group goes "
                    "through this proxy)");
}

/* One file, one form: the older objects beside `services` would describe a second server. */
static void check_older_objects(SchemaReader *reader, const cJSON *root)
{
    static const char *const older[] = {"server", "gateway", "proxy", "broker"};
    if (!((const ScenarioReader *)reader)->services_form)
        return;
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++) {
        if (schema_member(root, older[i]) != NULL)
            schema_error_at(reader, older[i],
                            "expected no top-level '%s' beside 'services' (declare it as a "
                            "service: {\"id\": \"%s\", \"kind\": \"%s\", ...})",
                            older[i], older[i], older[i]);
    }
}

/* A heartbeat extends a delivery's ack timeout, which only the visibility-timeout family has
 * (a channel's consumer_timeout_ms is per channel, a log has none): in the services form a
 * consumers entry is read apart from its broker, so the broker's own check (scenario_services.c,
 * for the older form's broker.consumers) does not see it. Every group's, at its entry, by its
 * own broker's family. */
static void check_group_heartbeats(SchemaReader *reader, const cJSON *root,
                                   const Scenario *scenario)
{
    if (!((const ScenarioReader *)reader)->services_form)
        return;
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, g);
        if (group->heartbeat_ms <= 0 ||
            scenario_broker(scenario, group->broker)->family == BROKER_VISIBILITY_TIMEOUT)
            continue;
        unsigned pushed = 0;
        if (g == 0 && scenario_graph_push_service(reader, root, NODE_CONSUMERS, &pushed) == NULL)
            continue;
        if (g > 0) {
            json_path_push_key(&reader->path, "services");
            json_path_push_index(&reader->path,
                                 (unsigned)scenario->extra_consumers[g - 1].entry - 1);
        }
        schema_error_at(reader, "heartbeat_ms",
                        "expected a broker of family 'visibility-timeout' with heartbeat_ms (it "
                        "extends a delivery's ack timeout, which only that family has)");
        if (g == 0) {
            scenario_graph_pop(reader, pushed);
        } else {
            json_path_pop(&reader->path);
            json_path_pop(&reader->path);
        }
    }
}

/* C36: a failed handler is nacked, for its queue to requeue; a log has no per-message nack,
 * so failures there are refused unless the group forwards them to retry topics
 * (retryable_topic: Spring Kafka's non-blocking retries; its seek back and retry in place is
 * not modelled for a handler's failure). Retry topics are the log's alone, and Spring Kafka
 * does not combine them with container transactions. A dead-letter consumer needs a queue
 * that dead-letters, or retry topics that end in a dead-letter topic. A recovery point
 * commits with a local effect only, as the server's does. */
static void check_failing_consumers(SchemaReader *reader, const cJSON *root,
                                    const Scenario *scenario)
{
    const BrokerSpec *broker = &scenario->broker;
    const ConsumerSpec *consumers = &broker->consumers;
    bool log = broker->family == BROKER_LOG;
    bool dead_letters = false;
    for (uint32_t q = 0; q < broker->queue_count; q++) /* its own queues' */
        dead_letters = dead_letters ||
                       ((consumers->queue_mask >> q & 1u) != 0 && broker->queues[q].dead_letter);
    const FailurePolicies *on_failure = &consumers->idempotency.on_failure;
    bool resumes =
        on_failure->definite == ON_FAILURE_RESUME || on_failure->ambiguous == ON_FAILURE_RESUME;
    bool retry_topics = consumers->retryable_topic.enabled;
    bool fails_in_log = log && !retry_topics &&
                        (consumers->fail_before_effect > 0 || consumers->fail_after_effect > 0);
    /* consumers.c: a store that is down fails the run as a handler's failure does */
    bool store_down_fails_in_log = log && !retry_topics && consumers->idempotency.crash.enabled &&
                                   consumers->idempotency.when_down == WHEN_DOWN_REFUSE;
    bool reviews_nothing =
        consumers->dead_letters == DEAD_LETTERS_REVIEW && (log ? !retry_topics : !dead_letters);
    bool resumes_charge = resumes && consumers->use_gateway;
    bool retry_topics_off_log = retry_topics && !log;
    bool session_off_log = consumers->session_timeout_ms > 0 && !log;
    bool retry_topics_in_transaction = retry_topics && log && broker->transactional;
    /* C37: the older form's broker object says it (check_log_fields); in the services form the
     * group is read after its broker. Both would undo one effect: the inbox's roll back at a
     * crash, and the transaction's abort under read_committed. */
    bool services_form = ((const ScenarioReader *)reader)->services_form;
    bool inbox_in_transaction = services_form && log && broker->transactional && consumers->inbox;
    /* consumers.c: a log never hands a record out again, so a consumer that meets its key
     * still processing tries the record again once the lease may be taken over: a key a crash
     * left processing (in a store that outlives the crash, without an inbox to roll it back),
     * one another instance is still processing after a rebalance (a store the instances
     * share, when a crash or rebalance_every_ms moves partitions), one the first server
     * is processing (its store), or one whose completion a store that crashes on its own and
     * keeps its rows missed while down (C38: key_protocol_record) holds the partition */
    bool rebalances = consumers->crash.prob > 0 || broker->rebalance_every_ms > 0;
    bool shared_by_instances = scenario_consumer_instances(scenario) > 1 && rebalances &&
                               consumers->idempotency.placement != PLACEMENT_PER_INSTANCE;
    const char *held_by = consumers->crash.prob > 0 && !consumers->inbox &&
                                  scenario_consumers_store_outlives_crash(scenario)
                              ? "and crashes, without an inbox"
                          : shared_by_instances ? "and a store its instances share"
                          : scenario_consumers_share_server_store(scenario)
                              ? "and the first server's store"
                          : consumers->idempotency.crash.enabled && consumers->idempotency.durable
                              ? "and a durable store that crashes"
                              : NULL;
    bool stuck = log && held_by != NULL && consumers->idempotency.lock_timeout_ms == 0;
    if (!fails_in_log && !reviews_nothing && !resumes_charge && !retry_topics_off_log &&
        !retry_topics_in_transaction && !stuck && !session_off_log && !store_down_fails_in_log &&
        !inbox_in_transaction)
        return;
    unsigned pushed = 0;
    if (scenario_graph_push_service(reader, root, NODE_CONSUMERS, &pushed) != NULL) {
        const char *failing =
            consumers->fail_before_effect > 0 ? "fail_before_effect" : "fail_after_effect";
        if (fails_in_log)
            schema_error_at(reader, failing,
                            "expected family 'visibility-timeout' or 'channel', or a "
                            "retryable_topic, with %s (a log has no per-message nack)",
                            failing);
        if (reviews_nothing)
            schema_error_at(reader, "dead_letters",
                            "expected a queue with \"dead_letter\": true with \"review\" (%s)",
                            log ? "a log dead-letters nothing without retryable_topic"
                                : "no queue keeps dead letters");
        if (retry_topics_off_log)
            schema_error_at(reader, "retryable_topic",
                            "expected a broker of family 'log' with retryable_topic (retry "
                            "topics are a Kafka consumer's; a queue redelivers a failed message "
                            "itself)");
        if (session_off_log)
            schema_error_at(reader, "session_timeout_ms",
                            "expected a broker of family 'log' with session_timeout_ms (a "
                            "Kafka group member's; a queue hands a crashed consumer's messages "
                            "out again by its own rules)");
        if (retry_topics_in_transaction)
            schema_error_at(reader, "retryable_topic",
                            "expected no retryable_topic with a transactional broker (Spring "
                            "Kafka's non-blocking retries cannot combine with container "
                            "transactions)");
        if (inbox_in_transaction)
            schema_error_at(reader, "inbox",
                            "expected no inbox with a transactional broker (the transaction "
                            "already commits the output with its offset)");
        if (store_down_fails_in_log)
            schema_error(reader,
                         "expected %swhen_down 'proceed', or a retryable_topic, with family "
                         "'log' (a run its store refuses fails, and a log has no per-message "
                         "nack)",
                         services_form ? "its key store's " : "idempotency.");
        if (stuck)
            schema_error(reader,
                         "expected %slock_timeout_ms > 0 with family 'log' %s: a key left "
                         "processing holds its partition until the lease ends",
                         services_form ? "its key store's " : "idempotency.", held_by);
        if (resumes_charge)
            schema_error_at(reader, services_form ? "steps" : "use_gateway",
                            "expected no on_failure \"resume\" for the consumers with a charge "
                            "through the gateway (recovery points are modelled for a local "
                            "effect only)");
    }
    scenario_graph_pop(reader, pushed);
}

/* A group after the first on a log (each group reads every record), or the first group of a
 * second broker that is a log. A later group of its log does no more with its copy than email
 * the confirmation, since the model has one effect per operation, the log's first group's,
 * and cannot share the log with the server's receipts. Every such group, as the first broker's
 * first group (check_failing_consumers): a run that fails needs retry topics (a log has no
 * per-message nack), retry topics no transactions, and a key a crash or a rebalance can leave
 * processing a lease that ends (a log never hands a record out again). */
static void check_group_on_log(SchemaReader *reader, const Scenario *scenario,
                               const ConsumerSpec *group, bool later)
{
    const BrokerSpec *broker = scenario_broker(scenario, group->broker);
    bool retry_topics = group->retryable_topic.enabled;
    const IdempotencySpec *store = &group->idempotency;
    if (later && !group->sends_email)
        schema_error_at(reader, "steps",
                        "expected [{\"effect\": \"email\"}] for a later consumer group on a "
                        "log (it reads every record; a second effect per operation is not "
                        "modelled)");
    /* a receipt is emailed by whichever group reads it (consumers.c, send_receipt): on a log
     * every group would, the first one too, each receipt several times over */
    if (later && scenario->server.publish_receipts &&
        scenario->server.receipts_broker == group->broker)
        schema_error_at(reader, "consumes",
                        "expected no server receipts on a log with a later consumer group "
                        "(every group reads each receipt, and would email it)");
    if (!later && broker->transactional && group->inbox) /* as check_failing_consumers says */
        schema_error_at(reader, "inbox",
                        "expected no inbox with a transactional broker (the transaction "
                        "already commits the output with its offset)");
    if (!retry_topics && (group->fail_before_effect > 0 || group->fail_after_effect > 0))
        schema_error_at(reader,
                        group->fail_before_effect > 0 ? "fail_before_effect" : "fail_after_effect",
                        "expected a retryable_topic with a failing handler on a log (a log has "
                        "no per-message nack)");
    if (!retry_topics && store->crash.enabled && store->when_down == WHEN_DOWN_REFUSE)
        schema_error_at(reader, "key_store",
                        "expected its key store's when_down 'proceed', or a retryable_topic, "
                        "with family 'log' (a run its store refuses fails, and a log has no "
                        "per-message nack)");
    if (retry_topics && broker->transactional)
        schema_error_at(reader, "retryable_topic",
                        "expected no retryable_topic with a transactional broker (Spring "
                        "Kafka's non-blocking retries cannot combine with container "
                        "transactions)");
    /* a key left processing that nothing wipes, as check_consumers says for the first group:
     * a crash's, in a store that outlives it; another instance's after a rebalance, in a
     * store the instances share; one a store that crashes on its own kept while down */
    bool rebalances = group->crash.prob > 0 || broker->rebalance_every_ms > 0;
    bool leaves_keys = (group->crash.prob > 0 && !group->inbox &&
                        scenario_group_store_outlives_crash(scenario, group)) ||
                       (scenario_group_instances(group) > 1 && rebalances &&
                        store->placement != PLACEMENT_PER_INSTANCE) ||
                       (store->crash.enabled && store->durable);
    if (leaves_keys && store->lock_timeout_ms == 0)
        schema_error_at(reader, "key_store",
                        "expected its key store's lock_timeout_ms > 0 on a log that crashes or "
                        "rebalances: a key left processing holds its partition until the lease "
                        "ends");
}

/* The consumer groups after the first: on a queue broker retry topics are a log's, a
 * dead-letter consumer needs one of the group's queues to dead-letter, and a recovery point
 * commits with a local effect only, as the first group's does; on a log, check_group_on_log. */
static void check_extra_groups(SchemaReader *reader, const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        const ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
        const BrokerSpec *broker = scenario_broker(scenario, extra->spec.broker);
        bool log = broker->family == BROKER_LOG;
        bool dead_letters = log && extra->spec.retryable_topic.enabled; /* the dead-letter topic */
        for (uint32_t q = 0; q < broker->queue_count && !log; q++)
            dead_letters |=
                (extra->spec.queue_mask >> q & 1u) != 0 && broker->queues[q].dead_letter;
        json_path_push_key(&reader->path, "services");
        json_path_push_index(&reader->path, (unsigned)extra->entry - 1);
        if (log) /* a later group of its log, unless it is the second broker's first */
            check_group_on_log(reader, scenario, &extra->spec,
                               scenario_group_of_queue(scenario, extra->spec.broker, 0) !=
                                   &extra->spec);
        if (extra->spec.session_timeout_ms > 0 && !log)
            schema_error_at(reader, "session_timeout_ms",
                            "expected a broker of family 'log' with session_timeout_ms (a "
                            "Kafka group member's; a queue hands a crashed consumer's messages "
                            "out again by its own rules)");
        if (extra->spec.retryable_topic.enabled && !log)
            schema_error_at(reader, "retryable_topic",
                            "expected a broker of family 'log' with retryable_topic (retry "
                            "topics are a Kafka consumer's; a queue redelivers a failed message "
                            "itself)");
        /* a queue broker's group that takes no queue had its queues, or its consumes,
         * refused, and a broker without queues its own: said there */
        bool queues_known = log || (extra->spec.queue_mask != 0 && broker->queue_count > 0);
        if (extra->spec.dead_letters == DEAD_LETTERS_REVIEW && !dead_letters && queues_known)
            schema_error_at(reader, "dead_letters",
                            log ? "expected a retryable_topic with \"review\" (a log "
                                  "dead-letters nothing without retryable_topic)"
                                : "expected a queue of its own with \"dead_letter\": true "
                                  "with \"review\" (none of its queues keeps dead letters)");
        const FailurePolicies *on_failure = &extra->spec.idempotency.on_failure;
        if (extra->spec.use_gateway && (on_failure->definite == ON_FAILURE_RESUME ||
                                        on_failure->ambiguous == ON_FAILURE_RESUME))
            schema_error_at(reader, "steps",
                            "expected no on_failure \"resume\" for the consumers with a charge "
                            "through the gateway (recovery points are modelled for a local "
                            "effect only)");
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
    }
}

/* A local transaction undoes a rolled-back effect (ledger_undo); on a record several
 * operations write, the state to go back to is another operation's, which is not modelled:
 * refused rather than undone wrongly. */
static void check_shared_records(SchemaReader *reader, const Scenario *scenario)
{
    if (!((const ScenarioReader *)reader)->clients_readable)
        return;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        const ClientGroupSpec *group = &scenario->client_groups[i];
        if (group->operation.resource != RESOURCE_PER_CLIENT ||
            group->operation.kind != OPERATION_SET_STATUS) /* already refused by its kind */
            continue;
        /* the transaction is its broker's: a log's, the first broker (a second is a queue) */
        bool transactional = group->target == TARGET_BROKER &&
                             scenario_broker(scenario, group->broker)->transactional;
        const char *undoing =
            group->target == TARGET_BROKER
                ? (scenario_group_applying(scenario, group)->inbox ? "broker.consumers.inbox"
                   : transactional                                 ? "broker.transactional"
                                                                   : NULL)
                : (scenario->server.transaction ? "server.transaction" : NULL);
        if (undoing == NULL)
            continue;
        json_path_push_key(&reader->path, "clients");
        json_path_push_index(&reader->path, i);
        json_path_push_key(&reader->path, "operation");
        schema_error_at(reader, "resource",
                        "expected 'per-operation' with %s (undoing a status change of a record "
                        "that other operations write is not modelled)",
                        undoing);
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
    }
}

/* operation.update shapes a local write of the balance (ledger_balance.c). A charge at the
 * gateway is the provider's own ledger, and a rolled-back write would restore the value it
 * overwrote, which ledger_undo does not model: both refused rather than run wrongly. */
static void check_balance_updates(SchemaReader *reader, const Scenario *scenario)
{
    if (!((const ScenarioReader *)reader)->clients_readable)
        return;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        const ClientGroupSpec *group = &scenario->client_groups[i];
        if (group->operation.update == BALANCE_UPDATE_ATOMIC ||
            group->operation.kind != OPERATION_DEBIT) /* already refused by its kind */
            continue;
        bool by_broker = group->target == TARGET_BROKER;
        const ConsumerSpec *consumers = scenario_group_applying(scenario, group);
        const char *conflict = NULL;
        if (!by_broker && scenario->server.use_gateway && scenario->server.call_server > 0)
            conflict = "a call to another server (the debit is then that server's, not this "
                       "handler's)";
        else if (by_broker ? consumers->use_gateway : scenario->server.use_gateway)
            conflict = "a charge through the gateway (the debit is then the provider's write, "
                       "not this handler's)";
        else if (by_broker ? consumers->inbox : scenario->server.transaction)
            conflict = by_broker ? "broker.consumers.inbox (a rolled-back write restoring the "
                                   "value it overwrote is not modelled)"
                                 : "server.transaction (a rolled-back write restoring the value "
                                   "it overwrote is not modelled)";
        else if (by_broker && scenario_broker(scenario, group->broker)->transactional)
            conflict = "broker.transactional (an aborted write restoring the value it "
                       "overwrote is not modelled)";
        if (conflict == NULL)
            continue;
        json_path_push_key(&reader->path, "clients");
        json_path_push_index(&reader->path, i);
        json_path_push_key(&reader->path, "operation");
        schema_error_at(reader, "update", "expected 'atomic' with %s", conflict);
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
    }
}

/* A service's object as the file wrote it: its older key (`server`, `gateway`), or its
 * entry in `services`. Returns how many path steps it pushed, for pop_service_object. */
static int push_service_object(SchemaReader *reader, const Scenario *scenario, NodeKind kind,
                               const char *older_key)
{
    int entry = scenario->service_entry[kind];
    if (entry == 0) {
        json_path_push_key(&reader->path, older_key);
        return 1;
    }
    json_path_push_key(&reader->path, "services");
    json_path_push_index(&reader->path, (uint32_t)(entry - 1));
    return 2;
}

static void pop_service_object(SchemaReader *reader, int pushed)
{
    while (pushed-- > 0)
        json_path_pop(&reader->path);
}

/* C35: a settlement correction refunds a capture the caller believed failed; only a debit
 * is refunded, so a file over another kind of operation would correct nothing it says. */
static void check_settlement(SchemaReader *reader, const Scenario *scenario)
{
    if (!(scenario->gateway.settlement_every_ms > 0) ||
        !((const ScenarioReader *)reader)->clients_readable)
        return;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        if (scenario->client_groups[i].operation.kind == OPERATION_DEBIT)
            continue;
        int pushed = push_service_object(reader, scenario, NODE_GATEWAY, "gateway");
        schema_error_at(reader, "settlement_every_ms",
                        "expected 0 while clients[%u] is no debit (a settlement correction "
                        "refunds a charge)",
                        i);
        pop_service_object(reader, pushed);
        return;
    }
}

/* gateway.capture manual (C35) is modelled for the server's own call to the gateway only:
 * a called server's charges, the consumers' charges, the outbox's relayed charges, reconciliation
 * by key and a saga's refund would each need an authorisation's life of their own (a hold to look
 * up, to capture later, to reverse), which is not modelled: refused, not run as something else. */
static void check_manual_capture(SchemaReader *reader, const Scenario *scenario)
{
    if (scenario->gateway.capture != CAPTURE_MANUAL)
        return;
    const ServerSpec *server = &scenario->server;
    bool groups_charge = false; /* at a gateway themselves (a call to the server is its charge) */
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, g);
        groups_charge |=
            group->use_gateway && !group->calls_first_server && group->call_server == 0;
    }
    const char *why = scenario->called_server_count > 0
                          ? "a server calls another server (a hold placed behind a tier of "
                            "servers, and its capture, are not modelled)"
                      : groups_charge  ? "the consumers charge through the gateway (only the "
                                         "server's call authorises and captures)"
                      : server->outbox ? "server.outbox relays the charges (a relayed "
                                         "authorisation's capture is not modelled)"
                      : server->reconcile_ms > 0
                          ? "server.reconcile_ms asks the gateway later (looking up and voiding "
                            "an authorisation is not modelled)"
                      : server->undo.enabled ? "a step's undo refunds the charge (reversing an "
                                               "authorisation is not modelled)"
                                             : NULL;
    if (why == NULL)
        return;
    int pushed = push_service_object(reader, scenario, NODE_GATEWAY, "gateway");
    schema_error_at(reader, "capture", "expected 'immediate' while %s", why);
    pop_service_object(reader, pushed);
}

/* server.deadline (C31) is the client's attempt timeout carried to the server. A proxy
 * between them would carry a deadline of its own (Envoy sets x-envoy-expected-rq-timeout-ms
 * per try), and a client that accepts a late answer has not given up at its timeout: neither
 * is modelled, so both are refused rather than run with a deadline that means something
 * else. */
static void check_deadlines(SchemaReader *reader, const Scenario *scenario)
{
    if (!((const ScenarioReader *)reader)->clients_readable ||
        scenario->server.deadline == DEADLINE_NONE)
        return;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        const ClientGroupSpec *group = &scenario->client_groups[i];
        if (group->target != TARGET_SERVER)
            continue;
        const char *why = group->via == VIA_PROXY
                              ? "goes via the proxy (a proxy's own deadline per try is not "
                                "modelled)"
                          : group->retry.late_response == LATE_RESPONSE_ACCEPT
                              ? "accepts late answers (it has not given up at its timeout, so "
                                "its timeout is no deadline)"
                          : group->retry.timeout_ms > DEADLINE_TIMEOUT_MS_MAX
                              ? "waits longer than 4294967 ms (a deadline header of more than "
                                "71 minutes is not modelled)"
                              : NULL;
        if (why == NULL)
            continue;
        int pushed = push_service_object(reader, scenario, NODE_SERVER, "server");
        schema_error_at(reader, "deadline", "expected 'none' while client group '%s' %s", group->id,
                        why);
        pop_service_object(reader, pushed);
    }
}

/* C32: a library's replay is a request to the server over the group's own connection. A
 * publish (target broker) and a request through the proxy travel otherwise: the proxy's
 * connection to the server is not the client's, and its retries are its own (C15). */
static void check_library_retries(SchemaReader *reader, const Scenario *scenario)
{
    if (!((const ScenarioReader *)reader)->clients_readable)
        return;
    bool closes =
        scenario->server.stale_connections > 0 || scenario->server.closes_before_answer > 0;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        const ClientGroupSpec *group = &scenario->client_groups[i];
        const char *how = group->target == TARGET_BROKER ? "publishes to the broker"
                          : group->via == VIA_PROXY      ? "goes via the proxy"
                                                         : NULL;
        if (how == NULL)
            continue;
        if (group->library_retries > 0) {
            json_path_push_key(&reader->path, "clients");
            json_path_push_index(&reader->path, i);
            schema_error_at(reader, "library_retries",
                            "expected 0 for a group that %s (only a request on the group's "
                            "own connection to the server is modelled)",
                            how);
            json_path_pop(&reader->path);
            json_path_pop(&reader->path);
        }
        if (closes && group->via == VIA_PROXY && group->target == TARGET_SERVER) {
            int pushed = push_service_object(reader, scenario, NODE_SERVER, "server");
            schema_error_at(reader,
                            scenario->server.stale_connections > 0 ? "stale_connections"
                                                                   : "closes_before_answer",
                            "expected 0 while client group '%s' goes via the proxy (the "
                            "proxy's connection to the server is not modelled)",
                            group->id);
            pop_service_object(reader, pushed);
        }
    }
}

/* A log broker's fetches and commits are requests over TCP that the Kafka client retries:
 * the links between the broker and its consumers delay them, never lose or copy them (a
 * lost fetch would stall its partition for good, there being no redelivery timer). */
static void check_log_link(SchemaReader *reader, const NetworkSpec *network, const char *source,
                           const char *target)
{
    const LinkSpec *spec = &network->default_link;
    bool overridden = false;
    for (uint32_t i = 0; i < network->link_count; i++) {
        if (strcmp(network->links[i].source, source) == 0 &&
            strcmp(network->links[i].target, target) == 0) {
            spec = &network->links[i].spec;
            overridden = true;
        }
    }
    bool lossy = spec->loss.model != LOSS_BERNOULLI || spec->loss.probability > 0;
    if (lossy || spec->duplicate > 0) {
        char link[2 * NAME_LEN_MAX + 4];
        snprintf(link, sizeof link, "%s->%s", source, target);
        json_path_push_key(&reader->path, "network");
        json_path_push_key(&reader->path, overridden ? "links" : "default");
        if (overridden)
            json_path_push_key(&reader->path, link);
        schema_error(reader,
                     "expected loss 0 and duplicate 0 on %s with broker family 'log' (its "
                     "fetches and commits are requests the client retries)",
                     link);
        if (overridden)
            json_path_pop(&reader->path);
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
    }
    for (uint32_t i = 0; i < network->outage_count; i++) {
        const OutageSpec *outage = &network->outages[i];
        if (outage->source[0] == '\0' ||
            (strcmp(outage->source, source) == 0 && strcmp(outage->target, target) == 0)) {
            json_path_push_key(&reader->path, "network");
            json_path_push_key(&reader->path, "outages");
            json_path_push_index(&reader->path, i);
            schema_error(reader,
                         "expected no outage on %s->%s with broker family 'log' (a lost fetch "
                         "would stall its partition)",
                         source, target);
            json_path_pop(&reader->path);
            json_path_pop(&reader->path);
            json_path_pop(&reader->path);
        }
    }
}

/* Why a group cannot fulfil origin's orders, or NULL: the orders must be the same ones,
 * order for order (C33). */
static const char *same_orders_mismatch(const ClientGroupSpec *group, const ClientGroupSpec *origin)
{
    if (origin->same_orders_as[0] != '\0')
        return "a group that names no same_orders_as itself (no chains)";
    if (group->count != origin->count)
        return "a group of the same count";
    if (group->workload.ops != origin->workload.ops ||
        group->workload.at_count != origin->workload.at_count)
        return "a group with the same workload.ops";
    if (group->account != origin->account)
        return "a group with the same account";
    if (group->operation.kind != origin->operation.kind)
        return "a group with the same operation.kind";
    if (group->operation.amount != origin->operation.amount)
        return "a group with the same operation.amount";
    if (group->operation.order_base != origin->operation.order_base)
        return "a group with the same operation.first_order";
    return NULL;
}

/* clients[].same_orders_as names another group whose orders are these, the same count of the
 * same orders: a second path to the same fulfilment (C33). */
static void check_same_orders(SchemaReader *reader, const Scenario *scenario)
{
    json_path_push_key(&reader->path, "clients");
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const ClientGroupSpec *group = &scenario->client_groups[g];
        if (group->same_orders_as[0] == '\0')
            continue;
        json_path_push_index(&reader->path, g);
        uint32_t origin = scenario_orders_group(scenario, g);
        const char *why = NULL;
        if (strcmp(group->same_orders_as, group->id) == 0)
            why = "another group's id";
        else if (origin == g)
            why = "a client group's id";
        else
            why = same_orders_mismatch(group, &scenario->client_groups[origin]);
        if (why != NULL)
            schema_error_at(reader, "same_orders_as", "expected %s (got '%s')", why,
                            group->same_orders_as);
        json_path_pop(&reader->path);
    }
    json_path_pop(&reader->path);
}

/* A log broker's rebalances are events: a budget on them, as on every timer the file sets.
 * And its links to and from its consumer groups (check_log_link). Broker b's, at its path. */
static void check_log_broker(SchemaReader *reader, const Scenario *scenario, uint32_t b)
{
    const BrokerSpec *broker = scenario_broker(scenario, b);
    if (broker->family != BROKER_LOG)
        return;
    if (broker->rebalance_every_ms > 0 &&
        scenario->duration_ms / broker->rebalance_every_ms > REBALANCES_MAX) {
        if (b == 0) {
            json_path_push_key(&reader->path, "broker");
        } else {
            json_path_push_key(&reader->path, "services");
            json_path_push_index(&reader->path, scenario->extra_brokers[b - 1].entry - 1u);
        }
        schema_error_at(reader, "rebalance_every_ms",
                        "expected at most %d rebalances in duration_ms (got %.0f)", REBALANCES_MAX,
                        scenario->duration_ms / broker->rebalance_every_ms);
        json_path_pop(&reader->path);
        if (b > 0)
            json_path_pop(&reader->path);
    }
    const char *broker_id =
        b == 0 ? scenario_service_id(scenario, NODE_BROKER) : scenario_broker_id(scenario, b);
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) {
        if (scenario_consumer_group(scenario, g)->broker != b)
            continue; /* it reads the other broker */
        const char *group_id = g == 0 ? scenario_service_id(scenario, NODE_CONSUMERS)
                                      : scenario->extra_consumers[g - 1].id;
        check_log_link(reader, &scenario->network, broker_id, group_id);
        check_log_link(reader, &scenario->network, group_id, broker_id);
    }
}

static void check_queue_references(SchemaReader *reader, const cJSON *root, void *base, bool clean)
{
    (void)clean;
    Scenario *scenario = base;
    const BrokerSpec *broker = &scenario->broker;
    check_proxy_used(reader, root, scenario);
    scenario_graph_check_used(reader, root, scenario);
    check_older_objects(reader, root);
    check_failing_consumers(reader, root, scenario);
    check_group_heartbeats(reader, root, scenario);
    check_extra_groups(reader, scenario);
    check_shared_records(reader, scenario);
    check_balance_updates(reader, scenario);
    check_deadlines(reader, scenario);
    check_manual_capture(reader, scenario);
    check_settlement(reader, scenario);
    check_library_retries(reader, scenario);
    check_same_orders(reader, scenario);
    for (uint32_t b = 0; b <= scenario->extra_broker_count; b++)
        check_log_broker(reader, scenario, b);
    if (broker->queue_count == 0) {
        return;
    }
    bool unresolved[CLIENT_GROUPS_MAX] = {false}; /* a client group's unknown queue */
    const cJSON *clients = schema_member(root, "clients");
    const cJSON *element = clients != NULL && cJSON_IsArray(clients) ? clients->child : NULL;
    json_path_push_key(&reader->path, "clients");
    for (uint32_t i = 0; i < scenario->client_group_count && element != NULL;
         i++, element = element->next) {
        ClientGroupSpec *group = &scenario->client_groups[i];
        const BrokerSpec *its_broker = scenario_broker(scenario, group->broker);
        if (group->target == TARGET_BROKER && cJSON_IsObject(element) &&
            its_broker->queue_count > 0) {
            json_path_push_index(&reader->path, i);
            unsigned long errors_before = reader->error_total;
            resolve_queue(reader, its_broker,
                          scenario->extra_broker_count > 0
                              ? scenario_broker_id(scenario, group->broker)
                              : NULL,
                          element, "queue", &group->queue, &group->exchange);
            unresolved[i] = reader->error_total > errors_before;
            json_path_pop(&reader->path);
        }
    }
    json_path_pop(&reader->path);
    unsigned pushed = 0;
    const cJSON *server = scenario_graph_push_service(reader, root, NODE_SERVER, &pushed);
    if (server != NULL)
        resolve_queue(reader, broker, NULL, server, "receipts_queue",
                      &scenario->server.receipts_queue, NULL);
    scenario_graph_pop(reader, pushed);
    check_exchanges_used(reader, root, scenario);
    check_emailing_groups(reader, scenario, unresolved);
    check_published_orders(reader, root, scenario);
}

/* ------------------------------------------------------------------ the top level */

static void read_modes(SchemaReader *reader, const cJSON *item, void *target)
{
    ScenarioReader *scenario_reader = (ScenarioReader *)reader;
    Scenario *scenario = target;
    unsigned count = 0;
    scenario_reader->modes_readable = false;
    if (!schema_read_array_size(reader, item, 1, MODES_MAX, "mode", "modes", &count)) {
        return;
    }
    unsigned long errors_before = reader->error_total;
    bool seen[MODE_COUNT] = {false};
    Mode modes[MODES_MAX];
    const cJSON *element = item->child;
    for (unsigned i = 0; i < count; i++, element = element->next) {
        int mode = 0;
        json_path_push_index(&reader->path, i);
        if (schema_read_choice(reader, element, &scenario_names_mode, &mode)) {
            if (seen[mode]) {
                schema_error(reader, "duplicate mode '%s'", element->valuestring);
            }
            seen[mode] = true;
            modes[i] = (Mode)mode;
        }
        json_path_pop(&reader->path);
    }
    if (reader->error_total == errors_before) {
        scenario->mode_count = count;
        memcpy(scenario->modes, modes, count * sizeof modes[0]);
        scenario_reader->modes_readable = true;
    }
}

static void write_modes(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Scenario *scenario = target;
    cJSON *modes = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; modes != NULL && i < scenario->mode_count; i++)
        schema_write_choice(writer, modes, NULL, &scenario_names_mode, (int)scenario->modes[i]);
}

static const SchemaField root_fields[] = {
    FIELD_TEXT("name", Scenario, name, 1),
    FIELD_TEXT("title", Scenario, title, 0),
    FIELD_TEXT("description", Scenario, description, 0),
    FIELD_U64("seed", Scenario, seed, RANGE_INTEGER),
    FIELD_NUMBER("duration_ms", Scenario, duration_ms, RANGE_MS_POSITIVE),
    FIELD_CUSTOM_WRITTEN("modes", 0, read_modes, write_modes, NULL, false),
    FIELD_CUSTOM_WRITTEN("accounts", 0, read_accounts, write_accounts, &account_schema, true),
    FIELD_CUSTOM_WRITTEN("services", 0, scenario_graph_read, scenario_graph_write,
                         &scenario_graph_entry_schema, false),
    FIELD_CUSTOM_WRITTEN("clients", 0, read_clients, write_clients, &client_schema, true),
    FIELD_OBJECT("network", Scenario, network, scenario_network_schema),
    FIELD_OBJECT("server", Scenario, server, scenario_services_server_schema),
    FIELD_OBJECT("gateway", Scenario, gateway, scenario_services_gateway_schema),
    FIELD_OBJECT("proxy", Scenario, proxy, scenario_services_proxy_schema),
    FIELD_OBJECT("broker", Scenario, broker, scenario_services_broker_schema),
    FIELD_CUSTOM_WRITTEN("expect", 0, scenario_expect_read, scenario_expect_write,
                         &scenario_expect_schema, false),
    FIELD_CUSTOM_WRITTEN("questions", 0, scenario_questions_read, scenario_questions_write,
                         &scenario_questions_schema, false),
    FIELD_CUSTOM_WRITTEN("faults", 0, scenario_faults_read, scenario_faults_write,
                         &scenario_faults_schema, false),
};
/* Show writes the services form: the older objects are in `services`. */
static bool root_shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    (void)base;
    return strcmp(key, "server") != 0 && strcmp(key, "gateway") != 0 && strcmp(key, "proxy") != 0 &&
           strcmp(key, "broker") != 0;
}

static const SchemaObject root_schema = {
    .name = "$", SCHEMA_FIELDS(root_fields), .check = check_queue_references, .shown = root_shown};

void scenario_schema_read(const cJSON *root, const JsonNumbers *numbers, const char *name,
                          Scenario *scenario, LoadErrors *errors)
{
    scenario_defaults(scenario, name);
    ScenarioReader scenario_reader = {.scenario = scenario, .modes_readable = true};
    for (int kind = 0; kind < NODE_KIND_COUNT; kind++)
        scenario_reader.service_declared[kind] = true; /* the older form: all, with defaults */
    schema_reader_init(&scenario_reader.reader, errors, numbers);
    schema_read_object(&scenario_reader.reader, root, &root_schema, scenario);
}

cJSON *scenario_schema_write(const Scenario *scenario, bool *out_of_memory)
{
    SchemaWriter writer = {.context = scenario};
    cJSON *root = cJSON_CreateObject();
    if (root != NULL)
        schema_write_object(&writer, &root_schema, scenario, root);
    *out_of_memory = root == NULL || writer.out_of_memory;
    return root;
}

unsigned scenario_known_fields(ScenarioField *fields, unsigned capacity)
{
    return schema_known_fields(&root_schema, fields, capacity);
}
