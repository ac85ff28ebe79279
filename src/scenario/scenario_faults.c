/* Forced faults: [{"fault": "loss", "operation": 0, "attempt": 1, "hop": "response",
 * "copy": 2}, ...], the decisions a run takes as faults; every other decision takes its
 * no-fault outcome. `idemsim explore --write-counterexample` writes such a list, and a run of
 * the file replays the counterexample. Read after "network" (the top-level table's order),
 * so a list on a Gilbert–Elliott link, whose losses are not single decisions, is refused. */
#include <string.h>

#include "scenario_errors.h"
#include "scenario_names.h"
#include "scenario_schema.h"

/* clang-format off */
static const SchemaField fault_fields[] = {
    {.key = "fault", .type = SCHEMA_CHOICE, .offset = SCHEMA_ENUM_MEMBER(FaultSpec, kind),
     .choices = &scenario_names_fault_kind, .required = true},
    {.key = "operation", .type = SCHEMA_U64,
     .offset = SCHEMA_MEMBER(FaultSpec, operation, uint64_t), .range = RANGE_INTEGER,
     .required = true},
    FIELD_U32("click", FaultSpec, click, ((SchemaRange){0.0, 255.0, false, false, false})),
    FIELD_U32("attempt", FaultSpec, attempt,
              ((SchemaRange){0.0, 4294967295.0, false, false, false})),
    FIELD_CHOICE("hop", FaultSpec, hop, scenario_names_fault_hop),
    FIELD_U32("gateway", FaultSpec, gateway,
              ((SchemaRange){0.0, GATEWAYS_EXTRA_MAX, false, false, false})),
    FIELD_U64("copy", FaultSpec, copy, RANGE_INTEGER),
    FIELD_NUMBER("by_ms", FaultSpec, by_ms, RANGE_MS),
};
/* clang-format on */
const SchemaObject scenario_faults_schema = {.name = "faults[]", SCHEMA_FIELDS(fault_fields)};

static bool network_fault(FaultKind kind)
{
    return kind == FAULT_LOSS || kind == FAULT_DUPLICATE || kind == FAULT_DELAY ||
           kind == FAULT_GATEWAY_DECLINE || kind == FAULT_GATEWAY_SILENT;
}

static bool gateway_fault(FaultKind kind)
{
    return kind == FAULT_GATEWAY_DECLINE || kind == FAULT_GATEWAY_SILENT;
}

/* A field the fault's kind does not use would be silently ignored: refused instead; and a
 * gateway fault names a gateway the scenario has (services form: read before the faults). */
static void check_fault(SchemaReader *reader, const cJSON *element, const FaultSpec *fault,
                        const Scenario *scenario)
{
    if (!gateway_fault(fault->kind) && schema_member(element, "gateway") != NULL)
        schema_error_at(reader, "gateway", "applies to gateway faults only (this one is '%s')",
                        fault_kind_name(fault->kind));
    else if (fault->gateway > scenario->extra_gateway_count)
        schema_error_at(reader, "gateway",
                        "expected at most %u (the gateways after the first in services), got %u",
                        scenario->extra_gateway_count, fault->gateway);
    if (fault->kind == FAULT_DELAY && schema_member(element, "by_ms") == NULL)
        schema_error(reader, "missing required key 'by_ms' (how much later a delay fault "
                             "makes the copy)");
    else if (fault->kind == FAULT_DELAY && !(fault->by_ms > 0))
        schema_error_at(reader, "by_ms", "expected number > 0 for a delay fault, got 0");
    if (fault->kind != FAULT_DELAY && schema_member(element, "by_ms") != NULL)
        schema_error_at(reader, "by_ms", "applies to delay faults only (this one is '%s')",
                        fault_kind_name(fault->kind));
    if (!network_fault(fault->kind) && schema_member(element, "hop") != NULL)
        schema_error_at(reader, "hop",
                        "applies to network and gateway faults only (this one is "
                        "'%s')",
                        fault_kind_name(fault->kind));
    bool about_operation = fault->kind == FAULT_DOUBLE_CLICK || fault->kind == FAULT_SECOND_FIRING;
    bool about_click = fault->kind == FAULT_APP_RESTART;
    if ((about_operation || about_click) && schema_member(element, "attempt") != NULL)
        schema_error_at(reader, "attempt", "does not apply to a '%s' fault",
                        fault_kind_name(fault->kind));
    if (about_operation && schema_member(element, "click") != NULL)
        schema_error_at(reader, "click", "does not apply to a '%s' fault",
                        fault_kind_name(fault->kind));
    if ((about_operation || about_click || fault->kind == FAULT_OFFLINE) &&
        schema_member(element, "copy") != NULL)
        schema_error_at(reader, "copy", "does not apply to a '%s' fault",
                        fault_kind_name(fault->kind));
}

static bool any_gilbert_elliott(const NetworkSpec *network)
{
    if (network->default_link.loss.model == LOSS_GILBERT_ELLIOTT)
        return true;
    for (uint32_t i = 0; i < network->link_count; i++) {
        if (network->links[i].spec.loss.model == LOSS_GILBERT_ELLIOTT)
            return true;
    }
    return false;
}

void scenario_faults_read(SchemaReader *reader, const cJSON *item, void *target)
{
    Scenario *scenario = target;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 0, FAULTS_MAX, "fault", "faults", &count))
        return;
    if (any_gilbert_elliott(&scenario->network))
        schema_error(reader, "forced faults need Bernoulli losses: a Gilbert-Elliott link's "
                             "losses depend on the packets before, not on one decision");
    const cJSON *element = item->child;
    for (unsigned i = 0; i < count && !schema_full(reader); i++, element = element->next) {
        FaultSpec *fault = &scenario->faults[i];
        memset(fault, 0, sizeof *fault);
        json_path_push_index(&reader->path, i);
        unsigned long errors_before = reader->error_total;
        schema_read_object(reader, element, &scenario_faults_schema, fault);
        if (reader->error_total == errors_before)
            check_fault(reader, element, fault, scenario);
        json_path_pop(&reader->path);
    }
    scenario->faults_forced = true;
    scenario->fault_count = count;
}

static bool shown(const SchemaWriter *writer, const void *base, const char *key)
{
    (void)writer;
    const FaultSpec *fault = base;
    if (strcmp(key, "by_ms") == 0)
        return fault->kind == FAULT_DELAY;
    if (strcmp(key, "hop") == 0)
        return network_fault(fault->kind);
    if (strcmp(key, "gateway") == 0) /* the first gateway's is left out, as before extras */
        return gateway_fault(fault->kind) && fault->gateway > 0;
    bool about_operation = fault->kind == FAULT_DOUBLE_CLICK || fault->kind == FAULT_SECOND_FIRING;
    if (strcmp(key, "attempt") == 0)
        return !about_operation && fault->kind != FAULT_APP_RESTART;
    if (strcmp(key, "click") == 0)
        return !about_operation;
    if (strcmp(key, "copy") == 0)
        return !about_operation && fault->kind != FAULT_APP_RESTART && fault->kind != FAULT_OFFLINE;
    return true;
}

static const SchemaObject fault_written_schema = {
    .name = "faults[]", SCHEMA_FIELDS(fault_fields), .shown = shown};

void scenario_faults_write(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Scenario *scenario = target;
    if (!scenario->faults_forced)
        return; /* no list: faults are drawn at random */
    cJSON *faults = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; faults != NULL && i < scenario->fault_count; i++) {
        cJSON *written = schema_write_item(writer, faults, NULL, cJSON_CreateObject());
        if (written != NULL)
            schema_write_object(writer, &fault_written_schema, &scenario->faults[i], written);
    }
}
