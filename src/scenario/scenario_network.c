/* The network part of the format: the default link, per-link overrides ("FROM->TO" keys,
 * each starting from the default link) and outages. */
#include <stdio.h>
#include <string.h>

#include "scenario_errors.h"
#include "scenario_schema.h"

/* ------------------------------------------------------------------ defaults */

/* What a loss object that names a model starts from, by LossModel. The Gilbert–Elliott
 * numbers give bursts of about four lost packets (1/r) every hundred (1/p), with half of
 * the packets lost inside a burst. */
static const LossSpec loss_defaults[] = {
    [LOSS_BERNOULLI] = {LOSS_BERNOULLI, 0.0, 0.01, 0.25, 0.5, 1.0},
    [LOSS_GILBERT_ELLIOTT] = {LOSS_GILBERT_ELLIOTT, 0.0, 0.01, 0.25, 0.5, 1.0},
};

void scenario_network_defaults(NetworkSpec *network)
{
    memset(network, 0, sizeof *network);
    network->default_link = (LinkSpec){
        .loss = loss_defaults[LOSS_BERNOULLI],
        .delay_ms = {DIST_UNIFORM, 5, 50},
        .duplicate = 0,
    };
}

/* ------------------------------------------------------------------ loss */

#define MODEL_TAG FIELD_CUSTOM("model", 0, scenario_schema_read_tag, NULL, false)

static const SchemaField gilbert_elliott_fields[] = {
    MODEL_TAG,
    FIELD_NUMBER("p", LossSpec, p, RANGE_PROBABILITY),
    FIELD_NUMBER("r", LossSpec, r, RANGE_PROBABILITY),
    FIELD_NUMBER("h", LossSpec, h, RANGE_PROBABILITY),
    FIELD_NUMBER("k", LossSpec, k, RANGE_PROBABILITY),
};
static const SchemaObject gilbert_elliott_schema = {
    .name = "<loss>",
    SCHEMA_FIELDS(gilbert_elliott_fields),
    .hint = "model 'gilbert-elliott' takes 'p', 'r', 'h', 'k'"};

static const SchemaField bernoulli_fields[] = {
    MODEL_TAG,
    FIELD_NUMBER("p", LossSpec, probability, RANGE_PROBABILITY),
};
static const SchemaObject bernoulli_schema = {.name = "<loss>",
                                              SCHEMA_FIELDS(bernoulli_fields),
                                              .hint = "model 'bernoulli' takes 'p'",
                                              .variant_next = &gilbert_elliott_schema};

/* A probability, or an object. Without "model" the object refines the loss it starts from
 * (a link's starts from the default link's); naming another model starts from that model's
 * defaults. */
static void read_loss(SchemaReader *reader, const cJSON *item, void *target)
{
    LossSpec *loss = target;
    if (cJSON_IsNumber(item)) {
        double probability = 0;
        if (schema_read_number(reader, item, &(SchemaRange)RANGE_PROBABILITY, &probability)) {
            loss->model = LOSS_BERNOULLI;
            loss->probability = probability;
        }
        return;
    }
    if (!cJSON_IsObject(item)) {
        schema_error(reader, "expected number or object (got %s)", schema_type_name(item));
        return;
    }
    LossSpec result = *loss;
    const cJSON *tag = schema_member(item, "model");
    if (tag != NULL) {
        int model = 0;
        json_path_push_key(&reader->path, "model");
        bool known = schema_read_choice(reader, tag, &scenario_names_loss_model, &model);
        json_path_pop(&reader->path);
        if (!known) {
            return;
        }
        if ((LossModel)model != result.model) {
            result = loss_defaults[model];
        }
    }
    unsigned long errors_before = reader->error_total;
    schema_read_object(reader, item,
                       result.model == LOSS_GILBERT_ELLIOTT ? &gilbert_elliott_schema
                                                            : &bernoulli_schema,
                       &result);
    if (reader->error_total == errors_before) {
        *loss = result;
    }
}

/* A Bernoulli loss as its probability, the short form files use; a Gilbert–Elliott one as
 * the object with its model named, so it reads back the same from any starting point. */
static void write_loss(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const LossSpec *loss = target;
    if (loss->model == LOSS_BERNOULLI) {
        schema_write_number(writer, object, key, loss->probability);
        return;
    }
    cJSON *written = schema_write_item(writer, object, key, cJSON_CreateObject());
    if (written == NULL)
        return;
    schema_write_choice(writer, written, "model", &scenario_names_loss_model, (int)loss->model);
    schema_write_object(writer, &gilbert_elliott_schema, loss, written);
}

/* ------------------------------------------------------------------ links */

static const SchemaField link_fields[] = {
    FIELD_CUSTOM_WRITTEN("loss", SCHEMA_MEMBER(LinkSpec, loss, LossSpec), read_loss, write_loss,
                         &bernoulli_schema, false),
    FIELD_DIST("delay_ms", LinkSpec, delay_ms),
    FIELD_NUMBER("duplicate", LinkSpec, duplicate, RANGE_PROBABILITY),
};
static const SchemaObject link_schema = {.name = "<link>", SCHEMA_FIELDS(link_fields)};

/* Whether node (length bytes, not terminated) names a node. Without readable client groups
 * only the fixed nodes can be told apart, so any other name passes unchecked. */
static bool check_node(const ScenarioReader *scenario_reader, const char *node, size_t length,
                       const char *link)
{
    const Scenario *scenario = scenario_reader->scenario;
    char name[JSON_PATH_KEY_LEN_MAX + 1];
    snprintf(name, sizeof name, "%.*s",
             (int)(length < JSON_PATH_KEY_LEN_MAX ? length : JSON_PATH_KEY_LEN_MAX), node);
    const char
        *known[CLIENT_GROUPS_MAX + NODE_KIND_COUNT + CALLED_SERVERS_MAX + GATEWAYS_EXTRA_MAX +
               PROXIES_EXTRA_MAX + CONSUMER_GROUPS_EXTRA_MAX + BROKERS_EXTRA_MAX];
    unsigned known_count = 0;
    for (uint32_t i = 0; i < scenario->client_group_count; i++) {
        known[known_count++] = scenario->client_groups[i].id;
    }
    /* The older form's services all exist (the proxy once a group goes through it); the
     * services form's are the ones it declares. */
    bool proxied = scenario_uses_proxy(scenario);
    for (unsigned i = 0; i < scenario_names_service.count; i++) {
        NodeKind kind = (NodeKind)scenario_names_service.entries[i].value;
        bool exists = scenario_reader->services_form ? scenario_reader->service_declared[kind]
                                                     : kind != NODE_PROXY || proxied;
        if (exists) {
            known[known_count++] = scenario_service_id(scenario, kind);
        }
    }
    for (uint32_t c = 0; c < scenario->called_server_count; c++)
        known[known_count++] = scenario->called_servers[c].id;
    for (uint32_t g = 0; g < scenario->extra_gateway_count; g++)
        known[known_count++] = scenario->extra_gateways[g].id;
    for (uint32_t p = 0; p < scenario->extra_proxy_count; p++)
        known[known_count++] = scenario->extra_proxies[p].id;
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++)
        known[known_count++] = scenario->extra_consumers[g].id;
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++)
        known[known_count++] = scenario->extra_brokers[b].id;
    for (unsigned i = 0; i < known_count; i++) {
        if (length < NAME_LEN_MAX && known[i][0] != '\0' && strcmp(known[i], name) == 0) {
            return true;
        }
    }
    if (!scenario_reader->clients_readable) {
        return true;
    }
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    char context[SCENARIO_QUOTE_LEN_MAX + 20];
    snprintf(context, sizeof context, " in link %s",
             scenario_errors_quote(quoted, sizeof quoted, link));
    scenario_schema_unknown_name((SchemaReader *)scenario_reader, "node", name, context, known,
                                 known_count);
    return false;
}

/* Splits "FROM->TO" into source and target (NAME_LEN_MAX each), reporting at the reader's
 * current path. */
static bool read_link_name(ScenarioReader *scenario_reader, const char *link, char *source,
                           char *target)
{
    SchemaReader *reader = &scenario_reader->reader;
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    const char *arrow = strstr(link, "->");
    if (arrow == NULL || arrow == link || arrow[2] == '\0') {
        schema_error(reader, "expected link name 'FROM->TO' (got %s)",
                     scenario_errors_quote(quoted, sizeof quoted, link));
        return false;
    }
    size_t source_length = (size_t)(arrow - link);
    const char *target_name = arrow + 2;
    bool source_ok = check_node(scenario_reader, link, source_length, link);
    bool target_ok = check_node(scenario_reader, target_name, strlen(target_name), link);
    if (!source_ok || !target_ok || source_length >= NAME_LEN_MAX ||
        strlen(target_name) >= NAME_LEN_MAX) {
        return false;
    }
    if (source_length == strlen(target_name) && memcmp(link, target_name, source_length) == 0) {
        schema_error(reader, "expected two different nodes (got %s)",
                     scenario_errors_quote(quoted, sizeof quoted, link));
        return false;
    }
    snprintf(source, NAME_LEN_MAX, "%.*s", (int)source_length, link);
    snprintf(target, NAME_LEN_MAX, "%s", target_name);
    return true;
}

static bool is_duplicate_key(const cJSON *object, const cJSON *child)
{
    for (const cJSON *before = object->child; before != child; before = before->next) {
        if (strcmp(before->string, child->string) == 0) {
            return true;
        }
    }
    return false;
}

static void read_links(SchemaReader *reader, const cJSON *item, void *target)
{
    ScenarioReader *scenario_reader = (ScenarioReader *)reader;
    NetworkSpec *network = target;
    if (!schema_expect(reader, item, cJSON_Object, "object")) {
        return;
    }
    unsigned long total = 0;
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        total++;
    }
    if (total > LINKS_MAX) {
        schema_error(reader, "expected at most %d links (got %lu)", LINKS_MAX, total);
    }
    uint32_t count = 0;
    for (const cJSON *child = item->child;
         child != NULL && count < LINKS_MAX && !schema_full(reader); child = child->next) {
        char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
        if (is_duplicate_key(item, child)) {
            schema_error(reader, "duplicate key %s",
                         scenario_errors_quote(quoted, sizeof quoted, child->string));
            continue;
        }
        LinkOverride *link = &network->links[count++];
        memset(link, 0, sizeof *link);
        link->spec = network->default_link;
        json_path_push_key(&reader->path, child->string);
        read_link_name(scenario_reader, child->string, link->source, link->target);
        schema_read_object(reader, child, &link_schema, &link->spec);
        json_path_pop(&reader->path);
    }
    network->link_count = count;
}

/* Each link whole (the default's fields included), so the default may change freely. */
static void write_links(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const NetworkSpec *network = target;
    cJSON *links = schema_write_item(writer, object, key, cJSON_CreateObject());
    for (uint32_t i = 0; links != NULL && i < network->link_count; i++) {
        const LinkOverride *link = &network->links[i];
        if (!scenario_graph_node_shown(writer->context, link->source) ||
            !scenario_graph_node_shown(writer->context, link->target))
            continue; /* a service nothing uses is not written: nothing crosses its links */
        char name[2 * NAME_LEN_MAX + 2];
        snprintf(name, sizeof name, "%s->%s", link->source, link->target);
        cJSON *written = schema_write_item(writer, links, name, cJSON_CreateObject());
        if (written != NULL)
            schema_write_object(writer, &link_schema, &link->spec, written);
    }
}

/* ------------------------------------------------------------------ outages */

static void write_outage_link(SchemaWriter *writer, const void *target, cJSON *object,
                              const char *key)
{
    const OutageSpec *outage = target;
    if (outage->source[0] == '\0')
        return; /* every link */
    char name[2 * NAME_LEN_MAX + 2];
    snprintf(name, sizeof name, "%s->%s", outage->source, outage->target);
    schema_write_string(writer, object, key, name);
}

static void read_outage_link(SchemaReader *reader, const cJSON *item, void *target)
{
    OutageSpec *outage = target;
    if (schema_expect(reader, item, cJSON_String, "string")) {
        read_link_name((ScenarioReader *)reader, item->valuestring, outage->source, outage->target);
    }
}

static void check_outage(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    const OutageSpec *outage = base;
    if (clean)
        schema_check_from_before_to(reader, outage->from_ms, outage->to_ms);
}

static const SchemaField outage_fields[] = {
    {.key = "from_ms",
     .type = SCHEMA_NUMBER,
     .offset = SCHEMA_MEMBER(OutageSpec, from_ms, double),
     .range = RANGE_MS,
     .required = true},
    {.key = "to_ms",
     .type = SCHEMA_NUMBER,
     .offset = SCHEMA_MEMBER(OutageSpec, to_ms, double),
     .range = RANGE_MS,
     .required = true},
    FIELD_CUSTOM_WRITTEN("link", 0, read_outage_link, write_outage_link, NULL, false),
};
static const SchemaObject outage_schema = {
    .name = "network.outages[]", SCHEMA_FIELDS(outage_fields), .check = check_outage};

static void read_outages(SchemaReader *reader, const cJSON *item, void *target)
{
    NetworkSpec *network = target;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 0, OUTAGES_MAX, "outage", "outages", &count)) {
        return;
    }
    const cJSON *element = item->child;
    for (unsigned i = 0; i < count; i++, element = element->next) {
        memset(&network->outages[i], 0, sizeof network->outages[i]);
        json_path_push_index(&reader->path, i);
        schema_read_object(reader, element, &outage_schema, &network->outages[i]);
        json_path_pop(&reader->path);
    }
    network->outage_count = count;
}

static void write_outages(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const NetworkSpec *network = target;
    cJSON *outages = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; outages != NULL && i < network->outage_count; i++) {
        const OutageSpec *outage = &network->outages[i];
        if (outage->source[0] != '\0' &&
            (!scenario_graph_node_shown(writer->context, outage->source) ||
             !scenario_graph_node_shown(writer->context, outage->target)))
            continue;
        cJSON *written = schema_write_item(writer, outages, NULL, cJSON_CreateObject());
        if (written != NULL)
            schema_write_object(writer, &outage_schema, &network->outages[i], written);
    }
}

/* ------------------------------------------------------------------ the network */

static const SchemaField network_fields[] = {
    FIELD_OBJECT("default", NetworkSpec, default_link, link_schema),
    FIELD_CUSTOM_WRITTEN("links", 0, read_links, write_links, &link_schema, false),
    FIELD_CUSTOM_WRITTEN("outages", 0, read_outages, write_outages, &outage_schema, false),
};
const SchemaObject scenario_network_schema = {.name = "network", SCHEMA_FIELDS(network_fields)};
