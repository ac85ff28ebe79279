/* The world as a graph of named services (issue 21, first steps): the `services` array, each
 * entry an id and a kind with the older object's fields, the references that wire it
 * (clients[].calls / .publishes, a proxy's calls, the consumers' consumes, key_store) and a
 * handler's `steps`. The older top-level server/gateway/proxy/broker form is the same graph
 * with fixed ids; both fill the same Scenario, so the model cannot tell them apart and `show`
 * prints either as services (the writing half is at the end of this file). The first server
 * entry is the one the client groups call (Scenario.server); each later one is a called
 * server (Scenario.called_servers), which a call step of a server listed before it names, so
 * calls go down the list and never loop. The first gateway, proxy, consumers and broker
 * entries are Scenario.gateway, .proxy, .broker.consumers and .broker; a later one is an
 * extra one (Scenario.extra_gateways, .extra_proxies, .extra_consumers, .extra_brokers),
 * which call steps (a gateway), client groups (a proxy, a broker), a publish step (a broker)
 * or its own `consumes` and `queues` (a consumer group) wire as they wire the first. One past
 * each kind's most is refused here, with its path. */
#include <stdio.h>
#include <string.h>

#include "node_kind.h"
#include "scenario_errors.h"
#include "scenario_schema.h"

/* Room for every kind once with the stores of the server and the consumers (7 entries),
 * the called servers and the later consumer groups with a store each, and the extra gateways,
 * proxies and broker: every kind at its most at once. */
#define SERVICES_MAX                                                                               \
    (NODE_KIND_COUNT + 2 + 2 * CALLED_SERVERS_MAX + 2 * CONSUMER_GROUPS_EXTRA_MAX +                \
     GATEWAYS_EXTRA_MAX + PROXIES_EXTRA_MAX + BROKERS_EXTRA_MAX)
#define KIND_UNKNOWN (-1)
#define NOT_CALLED (-1)
#define NOT_EXTRA (-1)

typedef struct {
    const cJSON *object;
    char id[NAME_LEN_MAX];
    int kind;   /* NodeKind, SERVICE_KIND_KEY_STORE, or KIND_UNKNOWN */
    int called; /* a server after the first: its index in called_servers; else NOT_CALLED */
    int extra;  /* a gateway, proxy, consumers or broker after the first of its kind: its index
                   in extra_gateways, extra_proxies, extra_consumers or extra_brokers; else
                   NOT_EXTRA */
} Entry;

typedef struct {
    unsigned count;
    Entry entries[SERVICES_MAX];
} Graph;

/* ------------------------------------------------------------------ names */

static bool is_node_kind(int kind)
{
    return node_kind_is_service(kind); /* several stores may exist: one per user */
}

static const char *kind_name(int kind)
{
    const char *name = scenario_names_of(&scenario_names_service_kind, kind);
    return name != NULL ? name : "?";
}

void scenario_service_id_list(const Scenario *scenario, char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (unsigned i = 0; i < scenario_names_service.count && used < size; i++) {
        int written = snprintf(buffer + used, size - used, "%s'%s'", i == 0 ? "" : ", ",
                               scenario->service_ids[scenario_names_service.entries[i].value]);
        used += written > 0 ? (size_t)written : 0;
    }
    for (uint32_t c = 0; c < scenario->called_server_count && used < size; c++) {
        int written =
            snprintf(buffer + used, size - used, ", '%s'", scenario->called_servers[c].id);
        used += written > 0 ? (size_t)written : 0;
    }
    for (uint32_t g = 0; g < scenario->extra_gateway_count && used < size; g++) {
        int written =
            snprintf(buffer + used, size - used, ", '%s'", scenario->extra_gateways[g].id);
        used += written > 0 ? (size_t)written : 0;
    }
    for (uint32_t p = 0; p < scenario->extra_proxy_count && used < size; p++) {
        int written = snprintf(buffer + used, size - used, ", '%s'", scenario->extra_proxies[p].id);
        used += written > 0 ? (size_t)written : 0;
    }
    for (uint32_t b = 0; b < scenario->extra_broker_count && used < size; b++) {
        int written = snprintf(buffer + used, size - used, ", '%s'", scenario->extra_brokers[b].id);
        used += written > 0 ? (size_t)written : 0;
    }
}

void scenario_instance_name(char name[NODE_NAME_LEN_MAX], const char *service, unsigned n)
{
    snprintf(name, NODE_NAME_LEN_MAX, "%s#%u", service, n);
}

/* Appends a node of kind for instance `instance` of `count` of the service with that id. */
static void add_node(ScenarioNode nodes[SCENARIO_NODES_MAX], unsigned *count, NodeKind kind,
                     const char *service, uint32_t number, uint32_t instance, uint32_t instances)
{
    if (*count >= SCENARIO_NODES_MAX)
        return; /* the loader bounds the instances and called servers: never */
    ScenarioNode *node = &nodes[(*count)++];
    *node = (ScenarioNode){
        .kind = kind, .number = number, .instance = instance, .instance_count = instances};
    snprintf(node->service, sizeof node->service, "%s", service);
    if (instances > 1)
        scenario_instance_name(node->name, service, instance + 1);
    else
        snprintf(node->name, sizeof node->name, "%s", service);
}

static uint32_t instances_of(const ServerSpec *server)
{
    return server->instances > 1 ? server->instances : 1;
}

static uint32_t proxy_instances_of(const ProxySpec *proxy)
{
    return proxy->instances > 1 ? proxy->instances : 1;
}

unsigned scenario_service_nodes(const Scenario *scenario, ScenarioNode nodes[SCENARIO_NODES_MAX])
{
    unsigned count = 0;
    uint32_t instances = instances_of(&scenario->server);
    uint32_t consumers = scenario_consumer_instances(scenario);
    for (unsigned i = 0; i < scenario_names_service.count; i++) {
        NodeKind kind = (NodeKind)scenario_names_service.entries[i].value;
        const NodeKindInfo *info = node_kind_info(kind);
        bool only_when_reached =
            info->node_when_reached || info->reached_when == NODE_REACHED_IF_DECLARED;
        if (only_when_reached && !node_kind_reached(scenario, kind))
            continue; /* no node: the others' ids, and so their links' draws, stay as they were */
        add_node(nodes, &count, kind, scenario->service_ids[kind], 0, 0,
                 kind == NODE_SERVER      ? instances
                 : kind == NODE_CONSUMERS ? consumers
                 : kind == NODE_PROXY     ? proxy_instances_of(&scenario->proxy)
                                          : 1);
    }
    for (uint32_t i = 1; i < instances; i++)
        add_node(nodes, &count, NODE_SERVER, scenario->service_ids[NODE_SERVER], 0, i, instances);
    if (scenario->server.idempotency.crash.enabled) {
        char store[NAME_LEN_MAX];
        scenario_key_store_id(scenario, &scenario->server.idempotency, NODE_SERVER, store);
        add_node(nodes, &count, NODE_KEY_STORE, store, 0, 0, 1);
    }
    for (uint32_t c = 0; c < scenario->called_server_count; c++) { /* after every other node */
        const CalledServerSpec *called = &scenario->called_servers[c];
        add_node(nodes, &count, NODE_SERVER, called->id, c + 1, 0, instances_of(&called->spec));
    }
    for (uint32_t c = 0; c < scenario->called_server_count; c++) { /* and their instances */
        const CalledServerSpec *called = &scenario->called_servers[c];
        for (uint32_t i = 1; i < instances_of(&called->spec); i++)
            add_node(nodes, &count, NODE_SERVER, called->id, c + 1, i, instances_of(&called->spec));
    }
    for (uint32_t g = 0; g < scenario->extra_gateway_count; g++)
        add_node(nodes, &count, NODE_GATEWAY, scenario->extra_gateways[g].id, g + 1, 0, 1);
    for (uint32_t p = 0; p < scenario->extra_proxy_count; p++)
        add_node(nodes, &count, NODE_PROXY, scenario->extra_proxies[p].id, p + 1, 0,
                 proxy_instances_of(&scenario->extra_proxies[p].spec));
    for (uint32_t i = 1; i < consumers; i++)
        add_node(nodes, &count, NODE_CONSUMERS, scenario->service_ids[NODE_CONSUMERS], 0, i,
                 consumers);
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) { /* each with its instances */
        const ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
        uint32_t group_instances = scenario_group_instances(&extra->spec);
        for (uint32_t i = 0; i < group_instances; i++)
            add_node(nodes, &count, NODE_CONSUMERS, extra->id, g + 1, i, group_instances);
    }
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++) { /* a group's crashing store */
        const IdempotencySpec *store = &scenario_consumer_group(scenario, g)->idempotency;
        if (!store->crash.enabled || (g == 0 && scenario_consumers_share_server_store(scenario)))
            continue;
        char id[NAME_LEN_MAX];
        scenario_key_store_id(scenario, store, NODE_CONSUMERS, id);
        add_node(nodes, &count, NODE_KEY_STORE, id, g + 1, 0, 1);
    }
    for (uint32_t p = 0; p <= scenario->extra_proxy_count; p++) { /* every proxy's instances */
        if (p == 0 && !node_kind_reached(scenario, NODE_PROXY))
            continue; /* no first proxy in this world */
        uint32_t proxy_instances = proxy_instances_of(scenario_proxy(scenario, p));
        for (uint32_t i = 1; i < proxy_instances; i++)
            add_node(nodes, &count, NODE_PROXY, scenario_proxy_id(scenario, p), p, i,
                     proxy_instances);
    }
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++)
        add_node(nodes, &count, NODE_BROKER, scenario->extra_brokers[b].id, b + 1, 0, 1);
    return count;
}

unsigned scenario_service_node_names(const Scenario *scenario, char names[][NODE_NAME_LEN_MAX],
                                     unsigned capacity)
{
    ScenarioNode nodes[SCENARIO_NODES_MAX];
    unsigned count = scenario_service_nodes(scenario, nodes);
    for (unsigned i = 0; i < count && i < capacity; i++)
        snprintf(names[i], NODE_NAME_LEN_MAX, "%s", nodes[i].name);
    return count;
}

bool scenario_service_name_known(const Scenario *scenario, const char *name)
{
    ScenarioNode nodes[SCENARIO_NODES_MAX];
    unsigned count = scenario_service_nodes(scenario, nodes);
    for (unsigned i = 0; i < count; i++) {
        if (strcmp(nodes[i].name, name) == 0 || strcmp(nodes[i].service, name) == 0)
            return true; /* a node, or a service's id: its instances' sum */
    }
    return false;
}

/* ------------------------------------------------------------------ entries */

/* Reads id and kind of every entry; an entry whose kind cannot be read keeps KIND_UNKNOWN,
 * so nothing more is said about its other keys. */
static void read_heads(SchemaReader *reader, const cJSON *array, unsigned count, Graph *graph)
{
    const cJSON *element = array->child;
    for (unsigned i = 0; i < count; i++, element = element->next) {
        Entry *entry = &graph->entries[i];
        *entry = (Entry){
            .object = element, .kind = KIND_UNKNOWN, .called = NOT_CALLED, .extra = NOT_EXTRA};
        json_path_push_index(&reader->path, i);
        if (schema_expect(reader, element, cJSON_Object, "object")) {
            const cJSON *id = schema_member(element, "id");
            const cJSON *kind = schema_member(element, "kind");
            if (id == NULL)
                schema_error(reader, "missing required key 'id'");
            if (kind == NULL) {
                char names[120];
                scenario_names_list(&scenario_names_service_kind, names, sizeof names);
                schema_error(reader, "missing required key 'kind' (one of %s)", names);
            }
            if (id != NULL) {
                json_path_push_key(&reader->path, "id");
                scenario_schema_read_name(reader, id, entry->id);
                json_path_pop(&reader->path);
            }
            if (kind != NULL) {
                json_path_push_key(&reader->path, "kind");
                int value = 0;
                if (schema_read_choice(reader, kind, &scenario_names_service_kind, &value))
                    entry->kind = value;
                json_path_pop(&reader->path);
            }
        }
        json_path_pop(&reader->path);
    }
    graph->count = count;
}

/* Unique ids. Several services of one kind are each kind's own: a server's copies are its
 * "instances"; a later server entry is a called server, a later gateway, proxy, consumers or
 * broker an extra one (assign_servers, assign_extras bound how many). */
static void check_heads(SchemaReader *reader, const Graph *graph)
{
    for (unsigned i = 0; i < graph->count; i++) {
        const Entry *entry = &graph->entries[i];
        for (unsigned j = 0; j < i; j++) {
            if (entry->id[0] == '\0' || strcmp(entry->id, graph->entries[j].id) != 0)
                continue;
            json_path_push_index(&reader->path, i);
            schema_error_at(reader, "id", "duplicate id '%s' (also at $.services[%u])", entry->id,
                            j);
            json_path_pop(&reader->path);
        }
    }
}

/* The first server entry is the clients' server; each later one is a called server, in
 * order, starting from a server's defaults. One past CALLED_SERVERS_MAX is refused at its kind
 * and read no further. */
static void assign_servers(ScenarioReader *scenario_reader, Graph *graph)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    int first = -1;
    for (unsigned i = 0; i < graph->count; i++) {
        Entry *entry = &graph->entries[i];
        if (entry->kind != NODE_SERVER)
            continue;
        if (first < 0) {
            first = (int)i;
            continue;
        }
        if (scenario->called_server_count == CALLED_SERVERS_MAX) {
            json_path_push_index(&reader->path, i);
            schema_error_at(reader, "kind",
                            "expected at most %d servers after the first, $.services[%d] (each "
                            "later one is called by a server's call step)",
                            CALLED_SERVERS_MAX, first);
            json_path_pop(&reader->path);
            entry->kind = KIND_UNKNOWN;
            continue;
        }
        uint32_t c = scenario->called_server_count++;
        CalledServerSpec *called = &scenario->called_servers[c];
        memset(called, 0, sizeof *called);
        snprintf(called->id, sizeof called->id, "%s", entry->id);
        scenario_services_server_defaults(&called->spec);
        called->entry = (uint8_t)(i + 1);
        entry->called = (int)c;
    }
}

/* The first gateway, proxy, consumers and broker entries are Scenario.gateway, .proxy,
 * .broker.consumers and .broker; each later one of their kind an extra one, in order, from its
 * kind's defaults. One past the most extras is refused at its kind. */
static void assign_extras(ScenarioReader *scenario_reader, Graph *graph, NodeKind kind)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    bool gateway = kind == NODE_GATEWAY;
    bool consumers = kind == NODE_CONSUMERS;
    bool broker = kind == NODE_BROKER;
    uint32_t *count = gateway     ? &scenario->extra_gateway_count
                      : consumers ? &scenario->extra_consumer_count
                      : broker    ? &scenario->extra_broker_count
                                  : &scenario->extra_proxy_count;
    uint32_t most = gateway     ? GATEWAYS_EXTRA_MAX
                    : consumers ? CONSUMER_GROUPS_EXTRA_MAX
                    : broker    ? BROKERS_EXTRA_MAX
                                : PROXIES_EXTRA_MAX;
    int first = -1;
    for (unsigned i = 0; i < graph->count; i++) {
        Entry *entry = &graph->entries[i];
        if (entry->kind != (int)kind)
            continue;
        if (first < 0) {
            first = (int)i;
            continue;
        }
        if (*count == most) {
            json_path_push_index(&reader->path, i);
            if (gateway)
                schema_error_at(reader, "kind",
                                "expected at most one gateway after the first, $.services[%d] "
                                "(each handler has one call step: the servers' calls end at one "
                                "gateway, the consumers' at one)",
                                first);
            else if (broker)
                schema_error_at(reader, "kind",
                                "expected at most one broker after the first, $.services[%d]",
                                first);
            else
                schema_error_at(reader, "kind",
                                "expected at most %u %s after the first, $.services[%d]", most,
                                consumers ? "consumer groups" : "proxies", first);
            json_path_pop(&reader->path);
            entry->kind = KIND_UNKNOWN;
            continue;
        }
        uint32_t k = (*count)++;
        uint8_t entry_number = (uint8_t)(i + 1);
        if (gateway) {
            ExtraGatewaySpec *extra = &scenario->extra_gateways[k];
            memset(extra, 0, sizeof *extra);
            snprintf(extra->id, sizeof extra->id, "%s", entry->id);
            scenario_services_gateway_defaults(&extra->spec);
            extra->entry = entry_number;
        } else if (consumers) {
            ExtraConsumersSpec *extra = &scenario->extra_consumers[k];
            memset(extra, 0, sizeof *extra);
            snprintf(extra->id, sizeof extra->id, "%s", entry->id);
            scenario_services_consumers_defaults(&extra->spec);
            extra->entry = entry_number;
        } else if (broker) {
            ExtraBrokerSpec *extra = &scenario->extra_brokers[k];
            memset(extra, 0, sizeof *extra);
            snprintf(extra->id, sizeof extra->id, "%s", entry->id);
            scenario_services_broker_defaults(&extra->spec);
            extra->entry = entry_number;
        } else {
            ExtraProxySpec *extra = &scenario->extra_proxies[k];
            memset(extra, 0, sizeof *extra);
            snprintf(extra->id, sizeof extra->id, "%s", entry->id);
            scenario_services_proxy_defaults(&extra->spec);
            extra->entry = entry_number;
        }
        entry->extra = (int)k;
    }
}

/* A declared id takes its node's name; it must not be the name another node keeps. */
static void name_nodes(ScenarioReader *scenario_reader, const Graph *graph)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    for (unsigned i = 0; i < graph->count; i++) {
        const Entry *entry = &graph->entries[i];
        if (!is_node_kind(entry->kind) || entry->id[0] == '\0' ||
            scenario_reader->service_declared[entry->kind])
            continue; /* a second one of a kind was refused: the first keeps the name */
        snprintf(scenario->service_ids[entry->kind], NAME_LEN_MAX, "%s", entry->id);
        scenario_reader->service_declared[entry->kind] = true;
    }
    for (unsigned i = 0; i < graph->count; i++) {
        const Entry *entry = &graph->entries[i];
        for (int kind = 0; kind < NODE_KIND_COUNT && entry->id[0] != '\0'; kind++) {
            if (!is_node_kind(kind) || kind == entry->kind ||
                scenario_reader->service_declared[kind])
                continue;
            if (strcmp(scenario->service_ids[kind], entry->id) == 0) {
                json_path_push_index(&reader->path, i);
                schema_error_at(reader, "id",
                                "expected an id other than '%s': the world's %s node keeps "
                                "that name when no service of kind '%s' is declared",
                                entry->id, kind_name(kind), kind_name(kind));
                json_path_pop(&reader->path);
            }
        }
    }
}

/* A key store has no schema of its own: it is read with the fields of the service using it. */
static const SchemaObject *entry_schema(int kind)
{
    return scenario_services_schema_of((NodeKind)kind);
}

static void *entry_target(Scenario *scenario, const Entry *entry)
{
    if (entry->called != NOT_CALLED)
        return &scenario->called_servers[entry->called].spec;
    if (entry->extra != NOT_EXTRA && entry->kind == NODE_GATEWAY)
        return &scenario->extra_gateways[entry->extra].spec;
    if (entry->extra != NOT_EXTRA && entry->kind == NODE_CONSUMERS)
        return &scenario->extra_consumers[entry->extra].spec;
    if (entry->extra != NOT_EXTRA && entry->kind == NODE_BROKER)
        return &scenario->extra_brokers[entry->extra].spec;
    if (entry->extra != NOT_EXTRA)
        return &scenario->extra_proxies[entry->extra].spec;
    return node_kind_settings(scenario, (NodeKind)entry->kind);
}

/* ------------------------------------------------------------------ references */

/* The index of the entry with id, or -1. */
static int find_entry(const Graph *graph, const char *id)
{
    for (unsigned i = 0; i < graph->count; i++) {
        if (strcmp(graph->entries[i].id, id) == 0)
            return (int)i;
    }
    return -1;
}

/* Entry i's key names an entry of kind wanted: its index, or -1 after an error at the key
 * ("missing", "unknown service", or "is a gateway, expected a broker"). */
static int resolve(SchemaReader *reader, const Graph *graph, unsigned i, const char *key,
                   int wanted)
{
    const cJSON *item = schema_member(graph->entries[i].object, key);
    json_path_push_index(&reader->path, i);
    int found = -1;
    if (item == NULL) {
        schema_error(reader, "missing required key '%s' (the id of a service of kind '%s')", key,
                     kind_name(wanted));
    } else {
        json_path_push_key(&reader->path, key);
        if (schema_expect(reader, item, cJSON_String, "string")) {
            found = find_entry(graph, item->valuestring);
            const char *known[SERVICES_MAX];
            unsigned known_count = 0;
            for (unsigned k = 0; k < graph->count; k++) {
                if (graph->entries[k].kind == wanted)
                    known[known_count++] = graph->entries[k].id;
            }
            if (found < 0) {
                char context[64];
                snprintf(context, sizeof context, " (a service of kind '%s')", kind_name(wanted));
                scenario_schema_unknown_name(reader, "service", item->valuestring, context, known,
                                             known_count);
            } else if (graph->entries[found].kind != wanted) {
                schema_error(reader, "expected a service of kind '%s' ('%s' is a %s)",
                             kind_name(wanted), item->valuestring,
                             kind_name(graph->entries[found].kind));
                found = -1;
            }
        }
        json_path_pop(&reader->path);
    }
    json_path_pop(&reader->path);
    return found;
}

/* ------------------------------------------------------------------ called servers */

/* A called server runs its instances behind its own balancer, with their workers, queue (and
 * its shed answer, which its caller takes as a failed try), crashes, outage (its resets are
 * failed tries too), failing handlers, transaction, key store and steps. The rest of a
 * server's fields are the clients' server's only (a deadline and C32's connections are the
 * client groups' requests'). Each is refused at its key when it differs from a server's
 * default, so `show`, which writes every default, reads back. */
static void check_called_server(SchemaReader *reader, const ServerSpec *spec)
{
    ServerSpec plain;
    scenario_services_server_defaults(&plain);
    static const char groups_only[] = "is a client group's request's";
    const struct {
        bool differs;
        const char *key, *expected, *what, *why;
    } refused[] = {
        {spec->deadline != plain.deadline, "deadline", "'none'", "a deadline", groups_only},
        {spec->stale_connections != plain.stale_connections, "stale_connections", "0",
         "a kept-alive connection (C32)", groups_only},
        {spec->closes_before_answer != plain.closes_before_answer, "closes_before_answer", "0",
         "a kept-alive connection (C32)", groups_only},
        {spec->outbox_relay_ms != plain.outbox_relay_ms, "outbox_relay_ms", "the default",
         "a relay of receipts", "is the first server's"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        if (refused[k].differs)
            schema_error_at(reader, refused[k].key, "expected %s on a called server (%s %s)",
                            refused[k].expected, refused[k].what, refused[k].why);
    }
}

/* A called server's store: no crash of its own (C38's store nodes are the clients' server's
 * and the consumer groups'), and no 202 in progress (the calling server does not poll). */
static void check_called_store(SchemaReader *reader, const cJSON *object,
                               const IdempotencySpec *spec)
{
    static const char *const crash_keys[] = {"crash", "when_down"};
    for (size_t k = 0; k < sizeof crash_keys / sizeof crash_keys[0]; k++) {
        if (schema_member(object, crash_keys[k]) != NULL)
            schema_error_at(reader, crash_keys[k],
                            "expected no '%s' in a called server's store (a store's own crash "
                            "is modelled for the first server's and the consumer groups')",
                            crash_keys[k]);
    }
    if (spec->on_in_progress == 202)
        schema_error_at(reader, "on_in_progress",
                        "expected 409 in a called server's store (the server calling it does "
                        "not poll a 202)");
}

/* Entry i's fields as a server's (the clients' or a called one's), or NULL for consumers. */
static ServerSpec *server_of(Scenario *scenario, const Entry *entry)
{
    if (entry->kind != NODE_SERVER)
        return NULL;
    return entry->called != NOT_CALLED ? &scenario->called_servers[entry->called].spec
                                       : &scenario->server;
}

/* Who names each key store: the first user of each store entry (used_by, by store) and the
 * store each entry names (store_of, by user); -1 for none. The consumer group's entry, when it
 * names the first server's store (shared_by_consumers: that store; -1 for none), is said
 * apart: it takes the server's settings once every entry is read (share_with_consumers). */
typedef struct {
    int used_by[SERVICES_MAX];
    int store_of[SERVICES_MAX];
    int shared_by_consumers;
    unsigned consumers_entry;
} StoreUsers;

/* The first server's entry (the one the clients call) when it names store in its key_store;
 * -1 when it does not. */
static int first_server_naming(const Graph *graph, int store)
{
    for (unsigned i = 0; i < graph->count; i++) {
        const Entry *entry = &graph->entries[i];
        const cJSON *named = entry->kind == NODE_SERVER && entry->called == NOT_CALLED &&
                                     cJSON_IsObject(entry->object)
                                 ? schema_member(entry->object, "key_store")
                                 : NULL;
        if (cJSON_IsString(named) && strcmp(named->valuestring, graph->entries[store].id) == 0)
            return (int)i;
    }
    return -1;
}

static unsigned store_user_count(const Graph *graph, const StoreUsers *users, int store)
{
    unsigned count = 0;
    for (unsigned i = 0; i < graph->count; i++)
        count += users->store_of[i] == store;
    return count;
}

/* A key store belongs to the services that name it. Servers may share one (the clients'
 * server and called servers): it is one store, one set of rows, its settings read once from
 * its entry, so every server naming it keeps its keys by the same rules (each user's
 * IdempotencySpec is a copy of the first's). A consumer group may share the first server's
 * (share_with_consumers); any other store of a consumer group is its own: its fields are a
 * consumer's (a key strategy, no answer-shaping). */
static void read_key_store(ScenarioReader *scenario_reader, const Graph *graph, unsigned user,
                           StoreUsers *users)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    int store = resolve(reader, graph, user, "key_store", SERVICE_KIND_KEY_STORE);
    if (store < 0)
        return;
    const Entry *entry = &graph->entries[user];
    if (entry->kind == NODE_CONSUMERS && entry->extra == NOT_EXTRA &&
        first_server_naming(graph, store) >= 0) {
        users->shared_by_consumers = store;
        users->consumers_entry = user;
        return;
    }
    int first = users->used_by[store];
    if (first >= 0 && (entry->kind != NODE_SERVER || graph->entries[first].kind != NODE_SERVER)) {
        json_path_push_index(&reader->path, user);
        schema_error_at(reader, "key_store",
                        "expected a key store of its own ('%s' is already the store of "
                        "'%s'; a consumer group shares the first server's only)",
                        graph->entries[store].id, graph->entries[first].id);
        json_path_pop(&reader->path);
        return;
    }
    users->store_of[user] = store;
    NodeKind kind = (NodeKind)entry->kind;
    IdempotencySpec *spec =
        entry->called != NOT_CALLED ? &scenario->called_servers[entry->called].spec.idempotency
        : entry->extra != NOT_EXTRA ? &scenario->extra_consumers[entry->extra].spec.idempotency
                                    : node_kind_store(scenario, kind);
    const cJSON *object = graph->entries[store].object;
    json_path_push_index(&reader->path, (unsigned)store);
    if (first < 0) {
        users->used_by[store] = (int)user;
        schema_read_object(reader, object, scenario_services_store_schema_of(kind), spec);
    } else {
        *spec = server_of(scenario, &graph->entries[first])->idempotency; /* read once */
        if (store_user_count(graph, users, store) == 2 && spec->placement == PLACEMENT_PER_INSTANCE)
            schema_error_at(reader, "placement",
                            "expected 'shared' in a store several servers name ('%s' and "
                            "'%s': one store, one set of rows, not a copy in each instance)",
                            graph->entries[first].id, entry->id);
    }
    if (entry->called != NOT_CALLED) {
        bool checked = false; /* for an earlier called server of this store: said once */
        for (unsigned j = 0; j < user; j++)
            checked |= users->store_of[j] == store && graph->entries[j].called != NOT_CALLED;
        if (!checked)
            check_called_store(reader, object, spec);
        scenario->called_servers[entry->called].store_entry = (uint8_t)(store + 1);
    }
    json_path_pop(&reader->path);
    snprintf(spec->store_id, sizeof spec->store_id, "%s", graph->entries[store].id);
}

/* ------------------------------------------------------------------ steps */

/* A handler's work as steps, in the shapes the model runs today: the operation's effect on
 * the service's own ledger, or a charge at a gateway (which may carry an undo: its refund),
 * or for a server a call to a server listed after it (call_server); then the order's own work after
 * the charge (fulfil, a server's or a consumer group's), or for a server an event published to a
 * broker (a receipt). They set what the older form's switches set (use_gateway, outbox,
 * reconcile_ms, publish_receipts, receipts_via, receipts_queue). Other shapes are the graph's later
 * steps: refused with their path. */
typedef enum { STEP_EFFECT, STEP_CALL, STEP_FULFIL, STEP_PUBLISH, STEP_KIND_COUNT } StepKind;

static const char *const step_names[STEP_KIND_COUNT] = {"effect", "call", "fulfil", "publish"};

/* The keys a step of kind may carry beside its own, by who runs it. */
static bool step_key_allowed(StepKind kind, bool server, const char *key)
{
    if (strcmp(key, step_names[kind]) == 0)
        return true;
    switch (kind) {
    case STEP_CALL:
        return strcmp(key, "retry") == 0 || strcmp(key, "key") == 0 ||
               strcmp(key, "timeout_ms") == 0 || strcmp(key, "undo") == 0 ||
               strcmp(key, "retry_host") == 0 ||
               (server && (strcmp(key, "via") == 0 || strcmp(key, "reconcile_ms") == 0));
    case STEP_FULFIL:
        return strcmp(key, "fail") == 0;
    case STEP_PUBLISH:
        return strcmp(key, "via") == 0 || strcmp(key, "queue") == 0;
    default:
        return false;
    }
}

/* Which of effect, call, fulfil, publish the step is: exactly one of them. */
static int step_kind_of(SchemaReader *reader, const cJSON *step)
{
    int kind = -1;
    for (int k = 0; k < STEP_KIND_COUNT; k++) {
        if (schema_member(step, step_names[k]) == NULL)
            continue;
        if (kind >= 0) {
            schema_error(reader,
                         "expected one of 'effect', 'call', 'fulfil', 'publish' in a step (got "
                         "'%s' and '%s')",
                         step_names[kind], step_names[k]);
            return -1;
        }
        kind = k;
    }
    if (kind < 0)
        schema_error(reader, "missing required key 'effect', 'call', 'fulfil' or 'publish'");
    return kind;
}

static void check_step_keys(SchemaReader *reader, const cJSON *step, StepKind kind, bool server)
{
    for (const cJSON *child = step->child; child != NULL; child = child->next) {
        const char *key = child->string != NULL ? child->string : "";
        if (step_key_allowed(kind, server, key))
            continue;
        char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
        scenario_errors_quote(quoted, sizeof quoted, key);
        if (strcmp(key, "undo") == 0)
            schema_error(reader, "unknown key %s (only a call step has an undo: its refund)",
                         quoted);
        else
            schema_error(reader, "unknown key %s for a '%s' step of a %s", quoted, step_names[kind],
                         server ? "server" : "consumer group");
    }
}

/* Why kind may not follow previous (-1: none) at step k of a server's steps (server true) or
 * a consumer group's, or NULL when it may. */
static const char *step_order_error(int previous, StepKind kind, unsigned k, bool server)
{
    bool first = kind == STEP_EFFECT || kind == STEP_CALL;
    if (!server && kind == STEP_PUBLISH)
        return "expected no publish step in a consumer group's steps (its events are not "
               "modelled yet)";
    if (k == 0 && kind == STEP_PUBLISH)
        return NULL; /* an order API's only step: the order itself goes to the broker */
    if (k == 0)
        return first ? NULL
                     : "expected an effect, a call or a publish first (steps are an effect or a "
                       "call, then an optional fulfil or publish; or a publish alone)";
    if (previous == STEP_PUBLISH)
        return "expected a publish step alone when it comes first (the server then publishes "
               "the order for the consumers, with no effect of its own)";
    if (first)
        return "expected a fulfil or a publish (steps are an effect or a call, then an optional "
               "fulfil or publish; other orders are not modelled yet)";
    if (kind == STEP_FULFIL && previous != STEP_CALL)
        return "expected a fulfil step after a call (the charge it may have to undo; a local "
               "effect is undone by a transaction instead)";
    if (kind == STEP_PUBLISH && previous == STEP_FULFIL)
        return "expected no publish after a fulfil step (receipts of a saga are not modelled "
               "yet)";
    if (kind == STEP_FULFIL && k != 1)
        return "expected the fulfil step second, after the call";
    return NULL;
}

/* The string member key names an entry of kind wanted: its index, or -1 after an error. */
static int step_target(SchemaReader *reader, const Graph *graph, const cJSON *step, const char *key,
                       int wanted)
{
    const cJSON *item = schema_member(step, key);
    json_path_push_key(&reader->path, key);
    int found = -1;
    if (schema_expect(reader, item, cJSON_String, "string")) {
        found = find_entry(graph, item->valuestring);
        if (found >= 0 && graph->entries[found].kind != wanted) {
            schema_error(reader, "expected a service of kind '%s' ('%s' is a %s)",
                         kind_name(wanted), item->valuestring,
                         kind_name(graph->entries[found].kind));
            found = -1;
        } else if (found < 0) {
            const char *known[SERVICES_MAX];
            unsigned known_count = 0;
            for (unsigned k = 0; k < graph->count; k++) {
                if (graph->entries[k].kind == wanted)
                    known[known_count++] = graph->entries[k].id;
            }
            scenario_schema_unknown_name(reader, "service", item->valuestring, "", known,
                                         known_count);
        }
    }
    json_path_pop(&reader->path);
    return found;
}

/* A choice among names, at key of step; *value kept when the key is absent. */
static void step_choice(SchemaReader *reader, const cJSON *step, const char *key,
                        const NameTable *table, int *value)
{
    const cJSON *item = schema_member(step, key);
    if (item == NULL)
        return;
    json_path_push_key(&reader->path, key);
    schema_read_choice(reader, item, table, value);
    json_path_pop(&reader->path);
}

/* The effect step: the operation's effect on the service's own ledger, or, for a consumer
 * group after the first (later_group), the operation's confirmation email instead. */
static void read_effect_step(SchemaReader *reader, const cJSON *step, ConsumerSpec *later_group)
{
    const cJSON *item = schema_member(step, "effect");
    const char *effect = cJSON_IsString(item) ? item->valuestring : "";
    json_path_push_key(&reader->path, "effect");
    if (later_group != NULL && strcmp(effect, "email") == 0)
        later_group->sends_email = true;
    else if (later_group != NULL && strcmp(effect, "local") != 0)
        schema_error(reader, "expected 'local' (the operation's effect on this service's own "
                             "ledger) or 'email' (its confirmation email)");
    else if (strcmp(effect, "local") != 0)
        schema_error(reader, "expected 'local' (the operation's effect on this service's own "
                             "ledger; 'email' is a consumer group's after the first)");
    json_path_pop(&reader->path);
}

#define RANGE_CALL_ATTEMPTS                                                                        \
    {                                                                                              \
        1.0, 100.0, false, false, false                                                            \
    }

static const SchemaField call_retry_fields[] = {
    FIELD_U32("max_attempts", CallRetrySpec, max_attempts, RANGE_CALL_ATTEMPTS),
    FIELD_NUMBER("backoff_ms", CallRetrySpec, backoff_ms, RANGE_MS),
};
static const SchemaObject call_retry_schema = {.name = "steps[].retry",
                                               SCHEMA_FIELDS(call_retry_fields)};

/* Which gateway a gateway's entry is: 0 the first, g > 0 extra_gateways[g - 1]. */
static uint32_t gateway_number(const Entry *entry)
{
    return entry->extra == NOT_EXTRA ? 0 : (uint32_t)entry->extra + 1;
}

/* A call's own retry, key and timeout: the same fields for a server and a consumer group. */
static void read_call_spec(SchemaReader *reader, const cJSON *step, const NameTable *keys,
                           CallSpec *call)
{
    const cJSON *timeout = schema_member(step, "timeout_ms");
    if (timeout != NULL) {
        json_path_push_key(&reader->path, "timeout_ms");
        schema_read_number(reader, timeout, &(SchemaRange)RANGE_MS_POSITIVE, &call->timeout_ms);
        json_path_pop(&reader->path);
    }
    const cJSON *retry = schema_member(step, "retry");
    if (retry != NULL) {
        json_path_push_key(&reader->path, "retry");
        if (schema_expect(reader, retry, cJSON_Object, "object"))
            schema_read_object(reader, retry, &call_retry_schema, &call->retry);
        json_path_pop(&reader->path);
    }
    int key = (int)call->key;
    step_choice(reader, step, "key", keys, &key);
    call->key = (CallKey)key;
    int host = (int)call->retry_host; /* an undo's is refused by its own key check */
    step_choice(reader, step, "retry_host", &scenario_names_retry_host, &host);
    call->retry_host = (RetryHost)host;
}

/* A call's undo: its refund at the gateway it charged, with the refund's own retry, key and
 * timeout (a derived key by default: the same for every try and after any restart). */
static void read_undo(SchemaReader *reader, const Graph *graph, const cJSON *step,
                      UndoSpec *undo_spec)
{
    const cJSON *undo = schema_member(step, "undo");
    json_path_push_key(&reader->path, "undo");
    if (schema_expect(reader, undo, cJSON_Object, "object")) {
        for (const cJSON *child = undo->child; child != NULL; child = child->next) {
            const char *key = child->string != NULL ? child->string : "";
            if (strcmp(key, "refund") != 0 && strcmp(key, "retry") != 0 &&
                strcmp(key, "key") != 0 && strcmp(key, "timeout_ms") != 0) {
                char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
                scenario_errors_quote(quoted, sizeof quoted, key);
                schema_error(reader, "unknown key %s for an undo (refund, retry, key, timeout_ms)",
                             quoted);
            }
        }
        int charged = find_entry(graph, cJSON_GetStringValue(schema_member(step, "call")));
        int refunded = schema_member(undo, "refund") != NULL
                           ? step_target(reader, graph, undo, "refund", NODE_GATEWAY)
                           : -1;
        if (schema_member(undo, "refund") == NULL)
            schema_error(reader, "missing required key 'refund' (the gateway that refunds the "
                                 "charge)");
        else if (refunded >= 0 && refunded != charged)
            schema_error_at(reader, "refund", "expected '%s' (the gateway the call charged)",
                            graph->entries[charged].id);
        undo_spec->enabled = true;
        read_call_spec(reader, undo, &scenario_names_undo_key, &undo_spec->call);
    }
    json_path_pop(&reader->path);
}

/* What a server's call step names: a gateway, or a server listed after the caller (entry
 * caller), so that calls go down the list and cannot loop. Its index, or -1 after an error. */
static int server_call_target(SchemaReader *reader, const Graph *graph, const cJSON *step,
                              unsigned caller)
{
    const cJSON *item = schema_member(step, "call");
    json_path_push_key(&reader->path, "call");
    int found = -1;
    if (schema_expect(reader, item, cJSON_String, "string")) {
        found = find_entry(graph, item->valuestring);
        int kind = found >= 0 ? graph->entries[found].kind : KIND_UNKNOWN;
        if (found >= 0 && kind == KIND_UNKNOWN) {
            found = -1; /* its kind was refused where it is written */
        } else if (found >= 0 && kind == NODE_SERVER && found <= (int)caller) {
            schema_error(reader,
                         "expected a gateway or a server listed after '%s' (%s'%s' is at "
                         "$.services[%d]; calls go down the list, so they cannot loop)",
                         graph->entries[caller].id, found == (int)caller ? "itself: " : "",
                         item->valuestring, found);
            found = -1;
        } else if (found >= 0 && kind != NODE_SERVER && kind != NODE_GATEWAY) {
            schema_error(reader, "expected a service of kind 'gateway' or 'server' ('%s' is a %s)",
                         item->valuestring, kind_name(kind));
            found = -1;
        } else if (found < 0) {
            const char *known[SERVICES_MAX];
            unsigned known_count = 0;
            for (unsigned k = 0; k < graph->count; k++) {
                int other = graph->entries[k].kind;
                if (other == NODE_GATEWAY || (other == NODE_SERVER && k > caller))
                    known[known_count++] = graph->entries[k].id;
            }
            scenario_schema_unknown_name(reader, "service", item->valuestring, "", known,
                                         known_count);
        }
    }
    json_path_pop(&reader->path);
    return found;
}

/* A call's keys that relay to a gateway or answer a client group, refused with why: on a
 * called server (what) every one, on a call to a server the outbox, reconciliation and
 * undo (each is a gateway's charge's). */
static void refuse_call_keys(SchemaReader *reader, const cJSON *step, const ServerSpec *server,
                             const char *what)
{
    if (server->outbox)
        schema_error_at(reader, "via",
                        "expected 'direct' %s (an outbox relays a charge to a gateway for the "
                        "server the client groups call)",
                        what);
    if (server->reconcile_ms > 0)
        schema_error_at(reader, "reconcile_ms",
                        "expected 0 %s (reconciliation asks a gateway about the first server's "
                        "charges)",
                        what);
    if (schema_member(step, "undo") != NULL)
        schema_error_at(reader, "undo",
                        "expected no undo %s (a refund is a gateway's, after the first "
                        "server's fulfil step)",
                        what);
}

/* A consumer group's call step: a charge at a gateway, or a call to a server (a ledger
 * service), the first or a called one. */
static void read_consumers_call_step(ScenarioReader *scenario_reader, const Graph *graph,
                                     const cJSON *step, ConsumerSpec *consumers)
{
    SchemaReader *reader = &scenario_reader->reader;
    const cJSON *item = schema_member(step, "call");
    int found = cJSON_IsString(item) ? find_entry(graph, item->valuestring) : -1;
    bool to_server = found >= 0 && graph->entries[found].kind == NODE_SERVER;
    if (to_server) {
        const Entry *callee = &graph->entries[found];
        consumers->calls_first_server = callee->called == NOT_CALLED;
        consumers->call_server = callee->called == NOT_CALLED ? 0 : (uint32_t)callee->called + 1;
    } else if (step_target(reader, graph, step, "call", NODE_GATEWAY) < 0) {
        return;
    } else {
        consumers->call_gateway = gateway_number(&graph->entries[found]);
    }
    consumers->use_gateway = true;
    read_call_spec(reader, step, &scenario_names_call_key, &consumers->call);
    if (to_server && schema_member(step, "timeout_ms") == NULL)
        schema_error(reader,
                     "missing required key 'timeout_ms' on a call to server '%s' (how long the "
                     "caller waits per try; only a gateway has a timeout of its own)",
                     graph->entries[found].id);
    if (to_server && schema_member(step, "undo") != NULL)
        schema_error_at(reader, "undo",
                        "expected no undo on a call to server '%s' (a refund is a gateway's)",
                        graph->entries[found].id);
    else if (schema_member(step, "undo") != NULL)
        read_undo(reader, graph, step, &consumers->undo);
}

/* A server's call step (entry caller, whose fields are server): a charge at a gateway, or a
 * call to a server listed after it (call_server). */
static void read_call_step(ScenarioReader *scenario_reader, const Graph *graph, const cJSON *step,
                           unsigned caller, ServerSpec *server)
{
    SchemaReader *reader = &scenario_reader->reader;
    int target = server_call_target(reader, graph, step, caller);
    if (target < 0)
        return;
    const Entry *callee = &graph->entries[target];
    server->use_gateway = true;
    server->call_server = callee->called != NOT_CALLED ? (uint32_t)callee->called + 1 : 0;
    server->call_gateway = callee->kind == NODE_GATEWAY ? gateway_number(callee) : 0;
    int via = server->outbox ? RECEIPTS_OUTBOX : RECEIPTS_DIRECT;
    step_choice(reader, step, "via", &scenario_names_receipts_via, &via);
    server->outbox = via == RECEIPTS_OUTBOX;
    const cJSON *reconcile = schema_member(step, "reconcile_ms");
    if (reconcile != NULL) {
        json_path_push_key(&reader->path, "reconcile_ms");
        schema_read_number(reader, reconcile, &(SchemaRange)RANGE_MS, &server->reconcile_ms);
        json_path_pop(&reader->path);
    }
    read_call_spec(reader, step, &scenario_names_call_key, &server->call);
    if (server->call_server > 0 && schema_member(step, "timeout_ms") == NULL)
        schema_error(reader,
                     "missing required key 'timeout_ms' on a call to server '%s' (how "
                     "long the caller waits per try; only a gateway has a timeout of "
                     "its own)",
                     callee->id);
    char what[NAME_LEN_MAX + 40];
    if (graph->entries[caller].called != NOT_CALLED || server->call_server > 0) {
        if (graph->entries[caller].called != NOT_CALLED)
            snprintf(what, sizeof what, "on called server '%s'", graph->entries[caller].id);
        else
            snprintf(what, sizeof what, "on a call to server '%s'", callee->id);
        refuse_call_keys(reader, step, server, what);
        return;
    }
    if (server->outbox && server->call.retry.max_attempts > 1)
        schema_error_at(reader, "retry",
                        "expected no retry with \"via\": \"outbox\" (the outbox relays the "
                        "charge until it is acknowledged)");
    if (server->call.key == CALL_KEY_NONE && server->reconcile_ms > 0)
        schema_error_at(reader, "key",
                        "expected a key with reconcile_ms (reconciliation asks the provider "
                        "about a charge by the key it carried)");
    if (schema_member(step, "undo") == NULL)
        return;
    read_undo(reader, graph, step, &server->undo);
    if (server->outbox || server->reconcile_ms > 0) {
        json_path_push_key(&reader->path, "undo");
        schema_error(reader, "expected no undo with an outbox or reconcile_ms (a refund of "
                             "those charges is not modelled yet)");
        json_path_pop(&reader->path);
    }
}

static void read_fulfil_step(SchemaReader *reader, const cJSON *step, FulfilSpec *fulfil)
{
    const cJSON *item = schema_member(step, "fulfil");
    json_path_push_key(&reader->path, "fulfil");
    if (!cJSON_IsString(item) || strcmp(item->valuestring, "local") != 0)
        schema_error(reader, "expected 'local' (the order's own work in this service's "
                             "database: stock, shipment)");
    json_path_pop(&reader->path);
    fulfil->enabled = true;
    const cJSON *fail = schema_member(step, "fail");
    if (fail != NULL) {
        json_path_push_key(&reader->path, "fail");
        schema_read_number(reader, fail, &(SchemaRange)RANGE_PROBABILITY, &fulfil->fail);
        json_path_pop(&reader->path);
    }
}

/* A publish step after an effect or a call publishes a receipt of each charge; first (and
 * alone), the order itself, which the consumers then charge. */
static void read_publish_step(ScenarioReader *scenario_reader, const Graph *graph,
                              const cJSON *step, bool first)
{
    SchemaReader *reader = &scenario_reader->reader;
    ServerSpec *server = &scenario_reader->scenario->server;
    int target = step_target(reader, graph, step, "publish", NODE_BROKER);
    if (target < 0)
        return;
    int extra = graph->entries[target].extra;
    server->receipts_broker = extra == NOT_EXTRA ? 0 : (uint32_t)extra + 1;
    server->publish_receipts = !first;
    server->publishes_orders = first;
    int via = (int)server->receipts_via;
    step_choice(reader, step, "via", &scenario_names_receipts_via, &via);
    server->receipts_via = (ReceiptPath)via;
    const cJSON *queue = schema_member(step, "queue");
    if (queue == NULL)
        return;
    json_path_push_key(&reader->path, "queue");
    const BrokerSpec *broker = scenario_broker(scenario_reader->scenario, server->receipts_broker);
    bool found = false;
    if (schema_expect(reader, queue, cJSON_String, "string")) {
        const char *known[QUEUES_MAX];
        for (uint32_t q = 0; q < broker->queue_count && !found; q++) {
            known[q] = broker->queues[q].name;
            if (strcmp(broker->queues[q].name, queue->valuestring) == 0) {
                server->receipts_queue = q;
                found = true;
            }
        }
        char context[NAME_LEN_MAX + 16] = ""; /* with two brokers, the other may have it */
        if (scenario_reader->scenario->extra_broker_count > 0)
            snprintf(context, sizeof context, " of broker '%s'",
                     scenario_broker_id(scenario_reader->scenario, server->receipts_broker));
        bool exchange = false; /* the receipts go to one queue, taken by one group */
        for (uint32_t e = 0; e < broker->exchange_count && !found; e++)
            exchange |= strcmp(broker->exchanges[e].name, queue->valuestring) == 0;
        if (!found && exchange)
            schema_error(reader,
                         "expected a queue ('%s' is an exchange, which a client group's "
                         "publishes may name)",
                         queue->valuestring);
        else if (!found && broker->queue_count > 0)
            scenario_schema_unknown_name(reader, "queue", queue->valuestring, context, known,
                                         broker->queue_count);
    }
    json_path_pop(&reader->path);
}

static void read_steps(ScenarioReader *scenario_reader, const Graph *graph, unsigned i)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    const Entry *entry = &graph->entries[i];
    ServerSpec *server_spec = server_of(scenario, entry);
    bool server = server_spec != NULL;
    ConsumerSpec *group = server ? NULL : entry_target(scenario, entry);
    const cJSON *steps = schema_member(entry->object, "steps");
    if (steps == NULL)
        return; /* the operation's effect on its own ledger */
    json_path_push_index(&reader->path, i);
    json_path_push_key(&reader->path, "steps");
    unsigned count = 0;
    if (schema_read_array_size(reader, steps, 1, 2, "step", "steps", &count)) {
        const cJSON *step = steps->child;
        int previous = -1;
        for (unsigned k = 0; k < count; k++, step = step->next) {
            json_path_push_index(&reader->path, k);
            int kind = schema_expect(reader, step, cJSON_Object, "object")
                           ? step_kind_of(reader, step)
                           : -1;
            if (kind >= 0) {
                check_step_keys(reader, step, (StepKind)kind, server);
                const char *order = step_order_error(previous, (StepKind)kind, k, server);
                if (order != NULL)
                    schema_error(reader, "%s", order);
                else if (entry->called != NOT_CALLED &&
                         (kind == STEP_FULFIL || kind == STEP_PUBLISH))
                    schema_error(reader,
                                 "expected no %s step on called server '%s' (a server another "
                                 "server calls has an effect or a call only, for now)",
                                 step_names[kind], entry->id);
                else if (kind == STEP_EFFECT)
                    read_effect_step(reader, step,
                                     group != &scenario->broker.consumers ? group : NULL);
                else if (kind == STEP_CALL && server)
                    read_call_step(scenario_reader, graph, step, i, server_spec);
                else if (kind == STEP_CALL)
                    read_consumers_call_step(scenario_reader, graph, step, group);
                else if (kind == STEP_FULFIL)
                    read_fulfil_step(reader, step, server ? &server_spec->fulfil : &group->fulfil);
                else
                    read_publish_step(scenario_reader, graph, step, k == 0);
            }
            previous = kind;
            json_path_pop(&reader->path);
        }
    }
    json_path_pop(&reader->path);
    json_path_pop(&reader->path);
}

/* For the format reference: the keys of a call's undo. */
static const SchemaField undo_fields[] = {
    FIELD_CUSTOM("refund", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("retry", 0, scenario_schema_read_tag, &call_retry_schema, false),
    FIELD_CUSTOM("key", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("timeout_ms", 0, scenario_schema_read_tag, NULL, false),
};
static const SchemaObject undo_schema = {.name = "steps[].undo", SCHEMA_FIELDS(undo_fields)};

/* For the format reference: the keys a step may have. */
static const SchemaField step_fields[] = {
    FIELD_CUSTOM("effect", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("call", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("fulfil", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("fail", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("undo", 0, scenario_schema_read_tag, &undo_schema, false),
    FIELD_CUSTOM("publish", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("via", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("reconcile_ms", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("retry", 0, scenario_schema_read_tag, &call_retry_schema, false),
    FIELD_CUSTOM("key", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("timeout_ms", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("retry_host", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("queue", 0, scenario_schema_read_tag, NULL, false),
};
static const SchemaObject step_schema = {.name = "services[].steps[]", SCHEMA_FIELDS(step_fields)};

/* An outbox relays from one process's table: per instance is not modelled yet. */
static void check_instances(ScenarioReader *scenario_reader, unsigned user)
{
    SchemaReader *reader = &scenario_reader->reader;
    const ServerSpec *server = &scenario_reader->scenario->server;
    json_path_push_index(&reader->path, user);
    if (server->instances > 1 && scenario_server_has_outbox(server))
        schema_error_at(reader, "instances",
                        "expected 1 instance with an outbox or reconciliation (an outbox per "
                        "instance is not modelled yet)");
    json_path_pop(&reader->path);
}

/* The instances of every server beyond one each fit the world's tables: said at the
 * called server's instances that would pass SERVER_INSTANCES_EXTRA_MAX (the clients'
 * server's own range is SERVER_INSTANCES_MAX). */
static void check_instances_in_all(ScenarioReader *scenario_reader, int called)
{
    const Scenario *scenario = scenario_reader->scenario;
    uint32_t before = scenario->server.instances > 1 ? scenario->server.instances - 1 : 0;
    for (int c = 0; c < called; c++) {
        uint32_t count = scenario->called_servers[c].spec.instances;
        before += count > 1 ? count - 1 : 0;
    }
    if (before > SERVER_INSTANCES_EXTRA_MAX) /* an earlier server's excess was refused there */
        before = SERVER_INSTANCES_EXTRA_MAX;
    uint32_t count = scenario->called_servers[called].spec.instances;
    uint32_t room = before < SERVER_INSTANCES_EXTRA_MAX ? SERVER_INSTANCES_EXTRA_MAX - before : 0;
    if (count > 1 && count - 1 > room)
        schema_error_at(&scenario_reader->reader, "instances",
                        "expected at most %u (the servers' instances beyond one each are at "
                        "most %d in all; the servers before it take %u)",
                        room + 1, SERVER_INSTANCES_EXTRA_MAX, before);
}

/* C35's authorisations, voids and settlement file are the first gateway's, and only where it
 * is the one gateway (the server's capture and the acquirer's file know one provider): each
 * is refused at its key on an extra gateway, and a manual capture on the first when there
 * are extras. */
static void check_gateway_capture(SchemaReader *reader, const Scenario *scenario,
                                  const Entry *entry)
{
    const GatewaySpec *spec = scenario_gateway(scenario, gateway_number(entry));
    GatewaySpec plain;
    scenario_services_gateway_defaults(&plain);
    if (entry->extra == NOT_EXTRA) {
        if (spec->capture == CAPTURE_MANUAL && scenario->extra_gateway_count > 0)
            schema_error_at(reader, "capture",
                            "expected 'immediate' with several gateways (C35's manual capture "
                            "is modelled with one gateway)");
        return;
    }
    const struct {
        bool differs;
        const char *key, *expected;
    } refused[] = {
        {spec->capture != plain.capture, "capture", "'immediate'"},
        {spec->void_late != plain.void_late, "void_late", "false"},
        {spec->capture_lost != plain.capture_lost, "capture_lost", "0"},
        {spec->settlement_every_ms != plain.settlement_every_ms, "settlement_every_ms", "0"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        if (refused[k].differs)
            schema_error_at(reader, refused[k].key,
                            "expected %s on a gateway after the first (C35's manual capture "
                            "is modelled with one gateway)",
                            refused[k].expected);
    }
}

/* A declared gateway takes some charges (a call step names it): a gateway nothing calls
 * would be a service that does nothing. */
static void check_gateway_used(ScenarioReader *scenario_reader, const Graph *graph)
{
    SchemaReader *reader = &scenario_reader->reader;
    const Scenario *scenario = scenario_reader->scenario;
    for (unsigned i = 0; i < graph->count; i++) {
        int kind = graph->entries[i].kind;
        uint32_t g = gateway_number(&graph->entries[i]);
        json_path_push_index(&reader->path, i);
        if (kind == NODE_GATEWAY && !node_servers_charge_at(scenario, g) &&
            !node_consumers_charge_at(scenario, g))
            schema_error(reader,
                         "expected a step that calls gateway '%s' (nothing charges "
                         "through it)",
                         graph->entries[i].id);
        json_path_pop(&reader->path);
    }
}

/* Every proxy's instances beyond one each fit the world's tables: said at the instances of
 * the proxy, in the file's order, that would pass PROXY_INSTANCES_EXTRA_MAX. */
static void check_proxy_instances_in_all(ScenarioReader *scenario_reader, const Graph *graph)
{
    const Scenario *scenario = scenario_reader->scenario;
    uint32_t before = 0;
    for (unsigned i = 0; i < graph->count; i++) {
        if (graph->entries[i].kind != NODE_PROXY)
            continue;
        int extra = graph->entries[i].extra;
        const ProxySpec *proxy =
            extra == NOT_EXTRA ? &scenario->proxy : &scenario->extra_proxies[extra].spec;
        uint32_t beyond_one = proxy->instances > 1 ? proxy->instances - 1 : 0;
        if (before + beyond_one > PROXY_INSTANCES_EXTRA_MAX) {
            json_path_push_index(&scenario_reader->reader.path, i);
            schema_error_at(&scenario_reader->reader, "instances",
                            "expected at most %u (the proxies' instances beyond one each are at "
                            "most %d in all; the proxies before it take %u)",
                            PROXY_INSTANCES_EXTRA_MAX - before + 1, PROXY_INSTANCES_EXTRA_MAX,
                            before);
            json_path_pop(&scenario_reader->reader.path);
            return;
        }
        before += beyond_one;
    }
}

/* Each called server is named by a call step of a server before it; one nobody calls would
 * be a service that does nothing (client groups and a proxy call the first server only). */
static void check_called_servers_used(ScenarioReader *scenario_reader, const Graph *graph)
{
    SchemaReader *reader = &scenario_reader->reader;
    const Scenario *scenario = scenario_reader->scenario;
    for (unsigned i = 0; i < graph->count; i++) {
        int c = graph->entries[i].called;
        if (c == NOT_CALLED)
            continue;
        bool named = false;
        for (uint32_t g = 0; g <= scenario->extra_consumer_count && !named; g++) {
            const ConsumerSpec *group = scenario_consumer_group(scenario, g);
            named = group->use_gateway && group->call_server == (uint32_t)c + 1;
        }
        for (uint32_t k = 0; k <= scenario->called_server_count && !named; k++) {
            const ServerSpec *server =
                k == 0 ? &scenario->server : &scenario->called_servers[k - 1].spec;
            named = server->use_gateway && server->call_server == (uint32_t)c + 1;
        }
        if (named)
            continue;
        json_path_push_index(&reader->path, i);
        schema_error_at(reader, "kind",
                        "expected a call step of a server listed before it, or of the consumer "
                        "group, to name '%s' (client groups call the first server, '%s')",
                        graph->entries[i].id, scenario->service_ids[NODE_SERVER]);
        json_path_pop(&reader->path);
    }
}

/* A recovery point commits with a local effect only (as the older form's check_server says
 * of use_gateway): a server whose step is a call, to a gateway or to a server, cannot resume
 * after it. Said at its store's on_failure, once the steps are read, for each such user of
 * the store. */
static void check_resume_with_calls(ScenarioReader *scenario_reader, const Graph *graph,
                                    const StoreUsers *users)
{
    SchemaReader *reader = &scenario_reader->reader;
    for (unsigned user = 0; user < graph->count; user++) {
        int store = users->store_of[user];
        const ServerSpec *server =
            store >= 0 ? server_of(scenario_reader->scenario, &graph->entries[user]) : NULL;
        if (server == NULL || !server->use_gateway)
            continue;
        const FailurePolicies *on_failure = &server->idempotency.on_failure;
        if (on_failure->definite != ON_FAILURE_RESUME && on_failure->ambiguous != ON_FAILURE_RESUME)
            continue;
        json_path_push_index(&reader->path, (unsigned)store);
        schema_error_at(reader, "on_failure",
                        "expected no \"resume\" while '%s' calls in its steps (recovery points "
                        "are modelled for a local effect only)",
                        graph->entries[user].id);
        json_path_pop(&reader->path);
    }
}

/* The clients' server's outbox (a charge's or its receipts') lives in its key store and is
 * lost with it (server_charge.c): in a store other servers share too, which none of them
 * owns, an outbox that a crash of one server empties while the rows stay is not modelled. */
static void check_shared_store_outbox(ScenarioReader *scenario_reader, const Graph *graph,
                                      const StoreUsers *users)
{
    SchemaReader *reader = &scenario_reader->reader;
    const ServerSpec *server = &scenario_reader->scenario->server;
    bool outbox = scenario_server_has_outbox(server);
    for (unsigned user = 0; user < graph->count && outbox; user++) {
        int store = users->store_of[user];
        if (store < 0 || graph->entries[user].kind != NODE_SERVER ||
            graph->entries[user].called != NOT_CALLED || store_user_count(graph, users, store) < 2)
            continue;
        json_path_push_index(&reader->path, user);
        schema_error_at(reader, "key_store",
                        "expected a key store of its own with an outbox or reconcile_ms "
                        "('%s' is shared by servers; an outbox in it is not modelled yet)",
                        graph->entries[store].id);
        json_path_pop(&reader->path);
    }
}

/* The consumer group keeps its keys in the first server's store, one set of rows: the
 * server's settings, and the message ids as keys (a client group that keys its orders by a
 * business hash publishes that hash as the message id, so the server's rows and the
 * consumers' meet). A store in each instance's memory and an outbox in the store are modelled
 * for servers only, and a store that crashes on its own (C38) for a server or a group alone:
 * refused at the group's key_store. */
static void share_with_consumers(ScenarioReader *scenario_reader, const StoreUsers *users,
                                 const Graph *graph)
{
    if (users->shared_by_consumers < 0)
        return;
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    const IdempotencySpec *server_store = &scenario->server.idempotency;
    const char *why = NULL;
    if (server_store->placement == PLACEMENT_PER_INSTANCE)
        why = "is per-instance: in each server instance's memory";
    else if (server_store->crash.enabled)
        why = "crashes on its own, not modelled when shared";
    else if (scenario_server_has_outbox(&scenario->server))
        why = "holds the server's outbox, not modelled when shared";
    json_path_push_index(&reader->path, users->consumers_entry);
    if (why != NULL)
        schema_error_at(reader, "key_store",
                        "expected a key store of its own ('%s', the first server's, %s)",
                        graph->entries[users->shared_by_consumers].id, why);
    json_path_pop(&reader->path);
    IdempotencySpec *consumers_store = &scenario->broker.consumers.idempotency;
    *consumers_store = *server_store;
    consumers_store->key = KEY_MESSAGE_ID;
}

static void unknown_queue(SchemaReader *reader, const char *name, const Scenario *scenario,
                          uint32_t b)
{
    const BrokerSpec *broker = scenario_broker(scenario, b);
    const char *known[QUEUES_MAX];
    for (uint32_t q = 0; q < broker->queue_count; q++)
        known[q] = broker->queues[q].name;
    char context[NAME_LEN_MAX + 16];
    snprintf(context, sizeof context, " of broker '%s'", scenario_broker_id(scenario, b));
    scenario_schema_unknown_name(reader, "queue", name, context, known, broker->queue_count);
}

/* The queues a consumers entry's `queues` names, as a mask of broker b's; 0 when refused. An
 * unknown one is told with the broker's id and queues (with two, the other may have it). */
static uint32_t read_queue_names(SchemaReader *reader, const cJSON *names, const Scenario *scenario,
                                 uint32_t b)
{
    const BrokerSpec *broker = scenario_broker(scenario, b);
    json_path_push_key(&reader->path, "queues");
    uint32_t mask = 0;
    unsigned count = 0;
    if (schema_read_array_size(reader, names, 1, QUEUES_MAX, "queue", "queues", &count)) {
        unsigned k = 0;
        for (const cJSON *name = names->child; name != NULL; name = name->next, k++) {
            json_path_push_index(&reader->path, k);
            if (schema_expect(reader, name, cJSON_String, "string")) {
                uint32_t q = 0;
                while (q < broker->queue_count &&
                       strcmp(broker->queues[q].name, name->valuestring) != 0)
                    q++;
                if (q == broker->queue_count)
                    unknown_queue(reader, name->valuestring, scenario, b);
                else if ((mask & 1u << q) != 0)
                    schema_error(reader, "expected each queue once ('%s' is listed before)",
                                 name->valuestring);
                else
                    mask |= 1u << q;
            }
            json_path_pop(&reader->path);
        }
    }
    json_path_pop(&reader->path);
    return mask;
}

/* Which queues each consumer group of broker b takes: those its `queues` names; the
 * broker's first group's default is every queue no later group names. A group after the
 * first names its queues, each queue is taken by one group, and every group takes one at
 * least. A log's groups each read every record (Kafka's consumer groups): they name no
 * queue. With two brokers, a later group whose `consumes` was refused (unconsumed[i]) reads
 * no broker's queues: which broker its `queues` name is unknown, and reading them as the
 * first's would add an error for each (one mistake, one error). Nor is every queue checked
 * to be taken while a group's queues or consumes were refused: the queue it meant would be
 * told as taken by none. */
static void read_consumer_queues(ScenarioReader *scenario_reader, const Graph *graph, uint32_t b,
                                 const bool unconsumed[SERVICES_MAX])
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    const BrokerSpec *broker = scenario_broker(scenario, b);
    if (broker->queue_count == 0)
        return; /* its queues unreadable (said there): every name would be unknown */
    uint32_t all = broker->queue_count >= 32 ? UINT32_MAX : (1u << broker->queue_count) - 1;
    uint32_t taken = 0;
    int first = -1;
    unsigned groups = 0;
    bool unknown_taker = false; /* a group whose queues or consumes were refused */
    for (unsigned i = 0; i < graph->count; i++) {
        const Entry *entry = &graph->entries[i];
        if (entry->kind != NODE_CONSUMERS)
            continue;
        ConsumerSpec *group = entry_target(scenario, entry);
        if (unconsumed[i]) {
            group->queue_mask = 0; /* taking none of the queues another group is told of */
            continue;
        }
        if (group->broker != b)
            continue;
        groups++;
        const cJSON *names = schema_member(entry->object, "queues");
        json_path_push_index(&reader->path, i);
        if (broker->family == BROKER_LOG) {
            if (names != NULL)
                schema_error_at(reader, "queues",
                                "expected no queues with a broker of family 'log' (each "
                                "consumer group reads every record of the log)");
            json_path_pop(&reader->path);
            continue;
        }
        if (names == NULL && first >= 0)
            schema_error(reader,
                         "missing required key 'queues' (the queues of the broker '%s' "
                         "consumer group '%s' takes; the first group takes the others)",
                         scenario_broker_id(scenario, b), entry->id);
        if (first < 0)
            first = (int)i;
        if (names == NULL) {
            json_path_pop(&reader->path);
            continue;
        }
        group->queue_mask = read_queue_names(reader, names, scenario, b);
        unknown_taker |= group->queue_mask == 0; /* its names refused: the queue it meant? */
        for (uint32_t q = 0; q < broker->queue_count; q++) {
            if ((group->queue_mask & taken & 1u << q) != 0)
                schema_error_at(reader, "queues",
                                "expected queues no other consumer group takes ('%s' is taken "
                                "by a group listed before)",
                                broker->queues[q].name);
        }
        taken |= group->queue_mask;
        json_path_pop(&reader->path);
    }
    if (first < 0 || broker->family == BROKER_LOG)
        return;
    ConsumerSpec *group = entry_target(scenario, &graph->entries[first]);
    bool listed = schema_member(graph->entries[first].object, "queues") != NULL;
    if (groups == 1 && !listed)
        return; /* one group: every queue, as the older form's */
    if (!listed)
        group->queue_mask = all & ~taken;
    json_path_push_index(&reader->path, (unsigned)first);
    if ((group->queue_mask & all) == 0)
        schema_error(reader,
                     "expected a queue for consumer group '%s' to take (the groups after "
                     "it take every queue of the broker)",
                     graph->entries[first].id);
    for (unsigned i = 0; i < graph->count; i++)
        unknown_taker |= unconsumed[i];
    uint32_t consumed = taken | group->queue_mask;
    for (uint32_t q = 0; q < broker->queue_count && !unknown_taker; q++) {
        if ((consumed & 1u << q) == 0)
            schema_error_at(reader, "queues",
                            "expected every queue taken by a consumer group "
                            "('%s' is taken by none)",
                            broker->queues[q].name);
    }
    json_path_pop(&reader->path);
}

/* The consumers' call to an order API (publishes_orders) would publish a new order for every
 * delivery, each delivered and called again: a loop without end, not a design. */
static void check_consumers_call_order_api(ScenarioReader *scenario_reader, const Graph *graph)
{
    SchemaReader *reader = &scenario_reader->reader;
    const Scenario *scenario = scenario_reader->scenario;
    if (!scenario->server.publishes_orders)
        return;
    for (unsigned i = 0; i < graph->count; i++) {
        const Entry *entry = &graph->entries[i];
        const ConsumerSpec *group =
            entry->kind == NODE_CONSUMERS ? entry_target(scenario_reader->scenario, entry) : NULL;
        const cJSON *steps = group != NULL && group->use_gateway && group->calls_first_server
                                 ? schema_member(entry->object, "steps")
                                 : NULL;
        unsigned k = 0;
        for (const cJSON *step = cJSON_IsArray(steps) ? steps->child : NULL; step != NULL;
             step = step->next, k++) {
            if (!cJSON_IsObject(step) || schema_member(step, "call") == NULL)
                continue;
            json_path_push_index(&reader->path, i);
            json_path_push_key(&reader->path, "steps");
            json_path_push_index(&reader->path, k);
            schema_error_at(reader, "call",
                            "expected a gateway or a server that is no order API ('%s' "
                            "publishes each request: each delivery would publish another)",
                            scenario->service_ids[NODE_SERVER]);
            json_path_pop(&reader->path);
            json_path_pop(&reader->path);
            json_path_pop(&reader->path);
        }
    }
}

/* The broker consumers entry i consumes (its `consumes` names entry named): the first broker's
 * groups are the first consumers entry and the later groups before the second broker's, so
 * that a log's groups, which the first broker alone may be, are numbered from the first. */
static void read_consumed_broker(ScenarioReader *scenario_reader, const Graph *graph, unsigned i,
                                 int named)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    const Entry *entry = &graph->entries[i];
    ConsumerSpec *group = entry_target(scenario, entry);
    int extra = graph->entries[named].extra;
    group->broker = extra == NOT_EXTRA ? 0 : (uint32_t)extra + 1;
    json_path_push_index(&reader->path, i);
    if (group->broker > 0 && entry->extra == NOT_EXTRA)
        schema_error_at(reader, "consumes",
                        "expected the first broker, '%s' (the first consumers entry reads it; "
                        "or list broker '%s' first)",
                        scenario_broker_id(scenario, 0), graph->entries[named].id);
    for (int g = entry->extra - 1; g >= 0 && group->broker == 0; g--) {
        if (scenario->extra_consumers[g].spec.broker > 0) {
            schema_error_at(reader, "consumes",
                            "expected the consumer groups of the second broker after every "
                            "group of the first, '%s' ('%s' consumes the second and is listed "
                            "before)",
                            scenario_broker_id(scenario, 0), scenario->extra_consumers[g].id);
            break;
        }
    }
    json_path_pop(&reader->path);
}

/* "server or consumers": the kinds whose entries name a key store. */
static void store_users(char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (int kind = 0; kind < NODE_KIND_COUNT && used < size; kind++) {
        if (node_kind_info((NodeKind)kind)->store_offset == 0)
            continue;
        int written =
            snprintf(buffer + used, size - used, "%s%s", used > 0 ? " or " : "", kind_name(kind));
        used += written > 0 ? (size_t)written : 0;
    }
}

/* Each entry's references as its kind's descriptor lists them (the service it names, its key
 * store, its steps), then what a kind needs of the others: a store some service uses, a
 * service that names it where its kind needs one. */
static void check_references(ScenarioReader *scenario_reader, const Graph *graph)
{
    SchemaReader *reader = &scenario_reader->reader;
    StoreUsers stores;
    int *used_by = stores.used_by;
    int named_by[SERVICES_MAX];
    bool unconsumed[SERVICES_MAX] = {false}; /* read_consumer_queues */
    stores.shared_by_consumers = -1;
    stores.consumers_entry = 0;
    for (unsigned i = 0; i < SERVICES_MAX; i++) {
        stores.used_by[i] = -1;
        stores.store_of[i] = -1;
        named_by[i] = -1;
    }
    for (unsigned i = 0; i < graph->count; i++) {
        int kind = graph->entries[i].kind;
        if (!is_node_kind(kind))
            continue;
        const NodeKindInfo *info = node_kind_info((NodeKind)kind);
        if (info->reference.key != NULL) {
            int named = resolve(reader, graph, i, info->reference.key, info->reference.names);
            if (named >= 0 && graph->entries[named].called != NOT_CALLED) {
                json_path_push_index(&reader->path, i);
                schema_error_at(reader, info->reference.key,
                                "expected the first server, '%s' ('%s' is a server another "
                                "server's call step calls; a %s calls the first)",
                                scenario_reader->scenario->service_ids[NODE_SERVER],
                                graph->entries[named].id, kind_name(kind));
                json_path_pop(&reader->path);
            } else if (named >= 0) {
                named_by[named] = (int)i;
            }
            if (named >= 0 && kind == NODE_CONSUMERS)
                read_consumed_broker(scenario_reader, graph, i, named);
            unconsumed[i] = named < 0 && kind == NODE_CONSUMERS &&
                            graph->entries[i].extra != NOT_EXTRA &&
                            scenario_reader->scenario->extra_broker_count > 0;
        }
        if (info->store_offset > 0)
            read_key_store(scenario_reader, graph, i, &stores);
        if (info->runs_steps)
            read_steps(scenario_reader, graph, i);
        if (kind == NODE_SERVER && graph->entries[i].called == NOT_CALLED)
            check_instances(scenario_reader, i);
        if (kind == NODE_GATEWAY) {
            json_path_push_index(&reader->path, i);
            check_gateway_capture(reader, scenario_reader->scenario, &graph->entries[i]);
            json_path_pop(&reader->path);
        }
        if (graph->entries[i].called != NOT_CALLED) {
            json_path_push_index(&reader->path, i);
            check_called_server(
                reader, &scenario_reader->scenario->called_servers[graph->entries[i].called].spec);
            check_instances_in_all(scenario_reader, graph->entries[i].called);
            json_path_pop(&reader->path);
        }
    }
    check_gateway_used(scenario_reader, graph);
    check_called_servers_used(scenario_reader, graph);
    check_proxy_instances_in_all(scenario_reader, graph);
    check_resume_with_calls(scenario_reader, graph, &stores);
    check_shared_store_outbox(scenario_reader, graph, &stores);
    share_with_consumers(scenario_reader, &stores, graph);
    for (uint32_t b = 0; b <= scenario_reader->scenario->extra_broker_count; b++)
        read_consumer_queues(scenario_reader, graph, b, unconsumed);
    check_consumers_call_order_api(scenario_reader, graph);
    for (unsigned i = 0; i < graph->count; i++) { /* a refused kind's store: said there */
        const cJSON *object = graph->entries[i].object;
        const cJSON *store = graph->entries[i].kind == KIND_UNKNOWN && cJSON_IsObject(object)
                                 ? schema_member(object, "key_store")
                                 : NULL;
        int named = cJSON_IsString(store) ? find_entry(graph, store->valuestring) : -1;
        if (named >= 0 && used_by[named] < 0)
            used_by[named] = (int)i;
    }
    char users[80];
    store_users(users, sizeof users);
    for (unsigned i = 0; i < graph->count; i++) {
        const Entry *entry = &graph->entries[i];
        json_path_push_index(&reader->path, i);
        if (entry->kind == SERVICE_KIND_KEY_STORE && used_by[i] < 0)
            schema_error(reader,
                         "expected a %s service to name key store '%s' in its key_store (no "
                         "service uses it)",
                         users, entry->id);
        for (int kind = 0; kind < NODE_KIND_COUNT && named_by[i] < 0; kind++) {
            const NodeReference *reference = &node_kind_info((NodeKind)kind)->reference;
            if (reference->key != NULL && reference->needed_for != NULL &&
                (int)reference->names == entry->kind)
                schema_error(reader, "expected a service of kind '%s' with \"%s\": \"%s\" (%s)",
                             kind_name(kind), reference->key, entry->id, reference->needed_for);
        }
        json_path_pop(&reader->path);
    }
}

/* ------------------------------------------------------------------ $.services */

void scenario_graph_read(SchemaReader *reader, const cJSON *item, void *target)
{
    ScenarioReader *scenario_reader = (ScenarioReader *)reader;
    Scenario *scenario = target;
    scenario_reader->services_form = true;
    for (int kind = 0; kind < NODE_KIND_COUNT; kind++)
        scenario_reader->service_declared[kind] = false;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 1, SERVICES_MAX, "service", "services", &count))
        return;
    Graph graph;
    read_heads(reader, item, count, &graph);
    check_heads(reader, &graph);
    assign_servers(scenario_reader, &graph);
    assign_extras(scenario_reader, &graph, NODE_GATEWAY);
    assign_extras(scenario_reader, &graph, NODE_PROXY);
    assign_extras(scenario_reader, &graph, NODE_CONSUMERS);
    assign_extras(scenario_reader, &graph, NODE_BROKER);
    name_nodes(scenario_reader, &graph);
    for (unsigned i = 0; i < graph.count; i++) {
        const SchemaObject *schema = entry_schema(graph.entries[i].kind);
        if (schema == NULL)
            continue;
        json_path_push_index(&reader->path, i);
        schema_read_object(reader, graph.entries[i].object, schema,
                           entry_target(scenario, &graph.entries[i]));
        json_path_pop(&reader->path);
    }
    check_references(scenario_reader, &graph);
    for (unsigned i = 0; i < graph.count; i++) {
        int kind = graph.entries[i].kind;
        if (is_node_kind(kind) && graph.entries[i].called == NOT_CALLED &&
            graph.entries[i].extra == NOT_EXTRA)
            scenario->service_entry[kind] = (uint8_t)(i + 1);
        for (int side = 0; side < 2 && kind == SERVICE_KIND_KEY_STORE; side++) {
            const char *store = side == 0 ? scenario->server.idempotency.store_id
                                          : scenario->broker.consumers.idempotency.store_id;
            if (strcmp(store, graph.entries[i].id) == 0)
                scenario->store_entry[side] = (uint8_t)(i + 1);
        }
        for (uint32_t g = 0; g < scenario->extra_consumer_count && kind == SERVICE_KIND_KEY_STORE;
             g++) {
            ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
            if (strcmp(extra->spec.idempotency.store_id, graph.entries[i].id) == 0)
                extra->store_entry = (uint8_t)(i + 1);
        }
    }
}

void scenario_services_path(const Scenario *scenario, char *path, size_t size)
{
    static const struct {
        const char *prefix;
        int kind; /* the entry's NodeKind, or -1 - side for a store */
    } older[] = {
        {"$.server.idempotency", -1},
        {"$.broker.consumers.idempotency", -2},
        {"$.broker.consumers", NODE_CONSUMERS},
        {"$.server", NODE_SERVER},
        {"$.gateway", NODE_GATEWAY},
        {"$.proxy", NODE_PROXY},
        {"$.broker", NODE_BROKER},
    };
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++) {
        size_t length = strlen(older[i].prefix);
        if (strncmp(path, older[i].prefix, length) != 0 ||
            (path[length] != '\0' && path[length] != '.' && path[length] != '['))
            continue;
        int entry = older[i].kind < 0 ? scenario->store_entry[-1 - older[i].kind]
                                      : scenario->service_entry[older[i].kind];
        if (entry == 0)
            return; /* the older form, or a service the file does not declare */
        char rest[JSON_PATH_LEN_MAX];
        snprintf(rest, sizeof rest, "%s", path + length);
        snprintf(path, size, "$.services[%d]%s", entry - 1, rest);
        return;
    }
}

/* Only the keys every entry shares, for the format reference: the rest are the older
 * objects' fields, documented there. */
static const SchemaField entry_fields[] = {
    FIELD_CUSTOM("id", 0, scenario_schema_read_tag, NULL, true),
    FIELD_CUSTOM("kind", 0, scenario_schema_read_tag, NULL, true),
    FIELD_CUSTOM("calls", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("consumes", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("queues", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("key_store", 0, scenario_schema_read_tag, NULL, false),
    FIELD_CUSTOM("steps", 0, scenario_schema_read_tag, &step_schema, false),
};
const SchemaObject scenario_graph_entry_schema = {.name = "services[]",
                                                  SCHEMA_FIELDS(entry_fields)};

/* ------------------------------------------------------------------ clients' references */

/* The declared service with id among kinds (a bit set of 1 << NodeKind), or -1 after an
 * error naming what was expected. */
static int find_service(SchemaReader *reader, const cJSON *item, unsigned kinds,
                        const char *expected)
{
    const ScenarioReader *scenario_reader = (const ScenarioReader *)reader;
    const Scenario *scenario = scenario_reader->scenario;
    if (!schema_expect(reader, item, cJSON_String, "string"))
        return -1;
    const char *known[NODE_KIND_COUNT + PROXIES_EXTRA_MAX + BROKERS_EXTRA_MAX];
    unsigned known_count = 0;
    for (unsigned i = 0; i < scenario_names_service.count; i++) {
        int kind = scenario_names_service.entries[i].value;
        if (!scenario_reader->service_declared[kind])
            continue;
        bool wanted = (kinds & (1u << kind)) != 0;
        if (strcmp(scenario->service_ids[kind], item->valuestring) == 0) {
            if (wanted)
                return kind;
            schema_error(reader, "expected %s ('%s' is the %s)", expected, item->valuestring,
                         kind_name(kind));
            return -1;
        }
        if (wanted)
            known[known_count++] = scenario->service_ids[kind];
    }
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (strcmp(scenario->called_servers[c].id, item->valuestring) != 0)
            continue;
        if ((kinds & (1u << NODE_SERVER)) != 0)
            schema_error(reader,
                         "expected the first server, '%s' ('%s' is a server another server's "
                         "call step calls; client groups call the first server in services)",
                         scenario->service_ids[NODE_SERVER], item->valuestring);
        else
            schema_error(reader, "expected %s ('%s' is a server)", expected, item->valuestring);
        return -1;
    }
    for (uint32_t g = 0; g < scenario->extra_gateway_count; g++) {
        if (strcmp(scenario->extra_gateways[g].id, item->valuestring) == 0) {
            schema_error(reader, "expected %s ('%s' is a gateway)", expected, item->valuestring);
            return -1;
        }
    }
    for (uint32_t p = 0; p < scenario->extra_proxy_count; p++) {
        bool wanted = (kinds & (1u << NODE_PROXY)) != 0;
        if (strcmp(scenario->extra_proxies[p].id, item->valuestring) != 0) {
            if (wanted) /* an extra proxy is a way in as the first is */
                known[known_count++] = scenario->extra_proxies[p].id;
            continue;
        }
        if (wanted)
            return NODE_PROXY;
        schema_error(reader, "expected %s ('%s' is a proxy)", expected, item->valuestring);
        return -1;
    }
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++) {
        bool wanted = (kinds & (1u << NODE_BROKER)) != 0;
        if (strcmp(scenario->extra_brokers[b].id, item->valuestring) != 0) {
            if (wanted) /* a second broker is published to as the first is */
                known[known_count++] = scenario->extra_brokers[b].id;
            continue;
        }
        if (wanted)
            return NODE_BROKER;
        schema_error(reader, "expected %s ('%s' is a broker)", expected, item->valuestring);
        return -1;
    }
    const char *stores[] = {scenario->server.idempotency.store_id,
                            scenario->broker.consumers.idempotency.store_id};
    for (size_t i = 0; i < 2; i++) {
        if (stores[i][0] != '\0' && strcmp(stores[i], item->valuestring) == 0) {
            schema_error(reader, "expected %s ('%s' is a key store)", expected, item->valuestring);
            return -1;
        }
    }
    scenario_schema_unknown_name(reader, "service", item->valuestring, "", known, known_count);
    return -1;
}

void scenario_graph_read_calls(SchemaReader *reader, const cJSON *item, void *target)
{
    ClientGroupSpec *group = target;
    int kind = find_service(reader, item, 1u << NODE_SERVER | 1u << NODE_PROXY,
                            "a server or proxy (a broker is named by 'publishes')");
    if (kind < 0)
        return;
    group->target = TARGET_SERVER;
    group->via = kind == NODE_PROXY ? VIA_PROXY : VIA_DIRECT;
    group->proxy = 0;
    const Scenario *scenario = ((const ScenarioReader *)reader)->scenario;
    for (uint32_t p = 0; p < scenario->extra_proxy_count && kind == NODE_PROXY; p++) {
        if (strcmp(scenario->extra_proxies[p].id, item->valuestring) == 0)
            group->proxy = p + 1;
    }
}

void scenario_graph_read_publishes(SchemaReader *reader, const cJSON *item, void *target)
{
    ClientGroupSpec *group = target;
    if (find_service(reader, item, 1u << NODE_BROKER,
                     "a broker (a server or proxy is named by 'calls')") < 0)
        return;
    group->target = TARGET_BROKER;
    group->broker = 0;
    const Scenario *scenario = ((const ScenarioReader *)reader)->scenario;
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++) {
        if (strcmp(scenario->extra_brokers[b].id, item->valuestring) == 0)
            group->broker = b + 1;
    }
}

void scenario_graph_write_calls(SchemaWriter *writer, const void *target, cJSON *object,
                                const char *key)
{
    const ClientGroupSpec *group = target;
    const Scenario *scenario = writer->context;
    if (group->target == TARGET_SERVER)
        schema_write_string(writer, object, key,
                            group->via == VIA_PROXY ? scenario_proxy_id(scenario, group->proxy)
                                                    : scenario->service_ids[NODE_SERVER]);
}

void scenario_graph_write_publishes(SchemaWriter *writer, const void *target, cJSON *object,
                                    const char *key)
{
    const ClientGroupSpec *group = target;
    const Scenario *scenario = writer->context;
    if (group->target == TARGET_BROKER)
        schema_write_string(writer, object, key, scenario_broker_id(scenario, group->broker));
}

/* ------------------------------------------------------------------ after the file */

static int entry_index_of_kind(const cJSON *services, int kind)
{
    int index = 0;
    for (const cJSON *entry = services != NULL ? services->child : NULL; entry != NULL;
         entry = entry->next, index++) {
        const cJSON *item = schema_member(entry, "kind");
        int value = 0;
        if (item != NULL && cJSON_IsString(item) &&
            scenario_names_find(&scenario_names_service_kind, item->valuestring, &value) &&
            value == kind)
            return index;
    }
    return -1;
}

static bool gateway_shown(const Scenario *scenario, uint32_t g);

/* With several gateways each keeps its place in the services show writes (which is its node
 * and its draws): a gateway only a consumer group no work reaches charges at would be left
 * out, and the next one take its place. */
static void check_gateways_reached(SchemaReader *reader, const Scenario *scenario)
{
    for (uint32_t g = 0; g <= scenario->extra_gateway_count && scenario->extra_gateway_count > 0;
         g++) {
        unsigned entry =
            g == 0 ? scenario->service_entry[NODE_GATEWAY] : scenario->extra_gateways[g - 1].entry;
        bool named = node_servers_charge_at(scenario, g) || node_consumers_charge_at(scenario, g);
        if (entry == 0 || !named || gateway_shown(scenario, g))
            continue; /* one nothing names is said so where it is declared */
        json_path_push_key(&reader->path, "services");
        json_path_push_index(&reader->path, entry - 1);
        schema_error(reader,
                     "expected work to reach gateway '%s' (only the consumer group charges "
                     "there, and nothing publishes to the broker)",
                     scenario_gateway_id(scenario, g));
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
    }
}

/* A declared proxy no client group calls would be a service that does nothing. */
static void refuse_unused_proxy(SchemaReader *reader, unsigned entry, const char *id)
{
    json_path_push_key(&reader->path, "services");
    json_path_push_index(&reader->path, entry);
    schema_error(reader, "expected a client group that calls proxy '%s' (no group goes through it)",
                 id);
    json_path_pop(&reader->path);
    json_path_pop(&reader->path);
}

void scenario_graph_check_used(SchemaReader *reader, const cJSON *root, const Scenario *scenario)
{
    const ScenarioReader *scenario_reader = (const ScenarioReader *)reader;
    if (!scenario_reader->services_form || !scenario_reader->clients_readable)
        return;
    check_gateways_reached(reader, scenario);
    int proxy = entry_index_of_kind(schema_member(root, "services"), NODE_PROXY);
    if (proxy >= 0 && !scenario_proxy_used(scenario, 0))
        refuse_unused_proxy(reader, (unsigned)proxy, scenario->service_ids[NODE_PROXY]);
    for (uint32_t p = 0; p < scenario->extra_proxy_count; p++) {
        if (!scenario_proxy_used(scenario, p + 1))
            refuse_unused_proxy(reader, scenario->extra_proxies[p].entry - 1u,
                                scenario->extra_proxies[p].id);
    }
    for (uint32_t b = 0; b <= scenario->extra_broker_count && scenario->extra_broker_count > 0;
         b++) {
        unsigned entry =
            b == 0 ? scenario->service_entry[NODE_BROKER] : scenario->extra_brokers[b - 1].entry;
        if (entry == 0 || scenario_broker_published_to(scenario, b))
            continue;
        json_path_push_key(&reader->path, "services");
        json_path_push_index(&reader->path, entry - 1);
        schema_error(reader,
                     "expected a client group that publishes to broker '%s', or a server's "
                     "publish step naming it (nothing publishes to it)",
                     scenario_broker_id(scenario, b));
        json_path_pop(&reader->path);
        json_path_pop(&reader->path);
    }
}

const cJSON *scenario_graph_push_service(SchemaReader *reader, const cJSON *root, NodeKind kind,
                                         unsigned *pushed)
{
    *pushed = 0;
    const cJSON *services = schema_member(root, "services");
    if (services != NULL) {
        int index = entry_index_of_kind(services, (int)kind);
        const cJSON *entry = index >= 0 ? cJSON_GetArrayItem(services, index) : NULL;
        if (entry == NULL || !cJSON_IsObject(entry))
            return NULL;
        json_path_push_key(&reader->path, "services");
        json_path_push_index(&reader->path, (unsigned)index);
        *pushed = 2;
        return entry;
    }
    const char *const *keys = node_kind_info(kind)->older_path; /* from the root */
    unsigned depth = keys[1] != NULL ? 2 : 1;
    const cJSON *object = root;
    for (unsigned i = 0; i < depth && object != NULL; i++)
        object = schema_member(object, keys[i]);
    if (object == NULL || !cJSON_IsObject(object))
        return NULL;
    for (unsigned i = 0; i < depth; i++)
        json_path_push_key(&reader->path, keys[i]);
    *pushed = depth;
    return object;
}

void scenario_graph_pop(SchemaReader *reader, unsigned pushed)
{
    while (pushed-- > 0)
        json_path_pop(&reader->path);
}

/* ------------------------------------------------------------------ writing */

/* Whether show writes gateway g: a server's call step charges there (servers are always
 * written), or the consumer group's, written when the broker is reached (by a group or by
 * the server's receipts, as service_used counts it). */
static bool gateway_shown(const Scenario *scenario, uint32_t g)
{
    bool to_broker = scenario_server_publishes(&scenario->server);
    for (uint32_t k = 0; k < scenario->client_group_count; k++)
        to_broker |= scenario->client_groups[k].target == TARGET_BROKER;
    return node_servers_charge_at(scenario, g) ||
           (to_broker && node_consumers_charge_at(scenario, g));
}

/* Whether the world has a service of kind: show writes only those, so a printed file never
 * carries a service nothing uses. Its reach counts the server as called always (the report
 * names its store's profile), a broker as reached by a server's receipts whether or not a
 * group calls the server, and a gateway as charged by a server with a call step. */
static bool service_used(const Scenario *scenario, NodeKind kind)
{
    NodeReach reach = {.to_server = true,
                       .proxied = scenario_uses_proxy(scenario),
                       .declared = node_kinds_declared(scenario)};
    reach.to_broker = scenario_server_publishes(&scenario->server);
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        reach.to_broker |= scenario->client_groups[g].target == TARGET_BROKER;
    reach.charged = gateway_shown(scenario, 0);
    return node_kind_reached_by(&reach, kind);
}

bool scenario_graph_node_shown(const Scenario *scenario, const char *name)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (strcmp(scenario->client_groups[g].id, name) == 0)
            return true;
    }
    for (unsigned i = 0; i < scenario_names_service.count; i++) {
        NodeKind kind = (NodeKind)scenario_names_service.entries[i].value;
        if (strcmp(scenario->service_ids[kind], name) == 0)
            return service_used(scenario, kind);
    }
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (strcmp(scenario->called_servers[c].id, name) == 0)
            return true; /* the server is always written, and so its call steps' servers */
    }
    for (uint32_t g = 0; g < scenario->extra_gateway_count; g++) {
        if (strcmp(scenario->extra_gateways[g].id, name) == 0)
            return true;
    }
    for (uint32_t p = 0; p < scenario->extra_proxy_count; p++) {
        if (strcmp(scenario->extra_proxies[p].id, name) == 0)
            return true; /* a client group calls it */
    }
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        if (strcmp(scenario->extra_consumers[g].id, name) == 0)
            return service_used(scenario, NODE_CONSUMERS); /* written after the first */
    }
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++) {
        if (strcmp(scenario->extra_brokers[b].id, name) == 0)
            return true; /* something publishes to it (scenario_graph_check_used) */
    }
    return false;
}

static cJSON *write_head(SchemaWriter *writer, cJSON *services, const char *id, int kind)
{
    cJSON *entry = schema_write_item(writer, services, NULL, cJSON_CreateObject());
    if (entry != NULL) {
        schema_write_string(writer, entry, "id", id);
        schema_write_choice(writer, entry, "kind", &scenario_names_service_kind, kind);
    }
    return entry;
}

/* Whether a service, a named key store or a client group of scenario has id. */
static bool id_taken(const Scenario *scenario, const char *id)
{
    for (int kind = 0; kind < NODE_KIND_COUNT; kind++) {
        const IdempotencySpec *store = node_kind_store_of(scenario, (NodeKind)kind);
        if (strcmp(scenario->service_ids[kind], id) == 0 ||
            (store != NULL && strcmp(store->store_id, id) == 0))
            return true;
    }
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (strcmp(scenario->called_servers[c].id, id) == 0 ||
            strcmp(scenario->called_servers[c].spec.idempotency.store_id, id) == 0)
            return true;
    }
    for (uint32_t g = 0; g < scenario->extra_gateway_count; g++) {
        if (strcmp(scenario->extra_gateways[g].id, id) == 0)
            return true;
    }
    for (uint32_t p = 0; p < scenario->extra_proxy_count; p++) {
        if (strcmp(scenario->extra_proxies[p].id, id) == 0)
            return true;
    }
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++) {
        if (strcmp(scenario->extra_brokers[b].id, id) == 0)
            return true;
    }
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (strcmp(scenario->client_groups[g].id, id) == 0)
            return true;
    }
    return false;
}

/* A store without an entry of its own (the older form, or a service the file does not use)
 * is named after its owner, "<owner>-keys", or "<owner>-keys-2" and on when the file already
 * gives that id to something else: show's output must load again. */
void scenario_key_store_id(const Scenario *scenario, const IdempotencySpec *spec, NodeKind owner,
                           char id[NAME_LEN_MAX])
{
    if (spec->store_id[0] != '\0') {
        snprintf(id, NAME_LEN_MAX, "%s", spec->store_id);
        return;
    }
    snprintf(id, NAME_LEN_MAX, "%.*s-keys", NAME_LEN_MAX - 6, scenario->service_ids[owner]);
    for (unsigned n = 2; n < 100 && id_taken(scenario, id); n++)
        snprintf(id, NAME_LEN_MAX, "%.*s-keys-%u", NAME_LEN_MAX - 9, scenario->service_ids[owner],
                 n);
}

int scenario_called_store_shared_with(const Scenario *scenario, uint32_t called)
{
    const char *id = scenario->called_servers[called].spec.idempotency.store_id;
    if (id[0] == '\0')
        return -1;
    if (strcmp(scenario->server.idempotency.store_id, id) == 0)
        return 0;
    for (uint32_t k = 0; k < called; k++) {
        if (strcmp(scenario->called_servers[k].spec.idempotency.store_id, id) == 0)
            return (int)k + 1;
    }
    return -1;
}

static void write_call_spec(SchemaWriter *writer, cJSON *call, const NameTable *keys,
                            const CallSpec *spec)
{
    cJSON *retry = schema_write_item(writer, call, "retry", cJSON_CreateObject());
    if (retry != NULL)
        schema_write_object(writer, &call_retry_schema, &spec->retry, retry);
    schema_write_choice(writer, call, "key", keys, (int)spec->key);
    if (spec->timeout_ms > 0) /* else the gateway's, as written there */
        schema_write_number(writer, call, "timeout_ms", spec->timeout_ms);
    if (spec->retry_host != RETRY_HOST_ANY) /* a call written before it existed is unchanged */
        schema_write_choice(writer, call, "retry_host", &scenario_names_retry_host,
                            (int)spec->retry_host);
}

static cJSON *write_step(SchemaWriter *writer, cJSON *steps, StepKind kind, const char *value)
{
    cJSON *step = schema_write_item(writer, steps, NULL, cJSON_CreateObject());
    if (step != NULL)
        schema_write_string(writer, step, step_names[kind], value);
    return step;
}

/* The first server's publish step: its receipts', or its orders' when it is its only step. */
static void write_publish_step(SchemaWriter *writer, cJSON *steps, const Scenario *scenario,
                               const ServerSpec *server)
{
    uint32_t b = server->receipts_broker;
    cJSON *publish = write_step(writer, steps, STEP_PUBLISH, scenario_broker_id(scenario, b));
    if (publish != NULL) {
        schema_write_choice(writer, publish, "via", &scenario_names_receipts_via,
                            (int)server->receipts_via);
        schema_write_string(writer, publish, "queue",
                            scenario_broker(scenario, b)->queues[server->receipts_queue].name);
    }
}

/* The steps of a server (the clients' or a called one's) or, with server NULL, of consumer
 * group consumers, as read_steps reads them. */
static void write_steps(SchemaWriter *writer, cJSON *entry, const Scenario *scenario,
                        const ServerSpec *server, const ConsumerSpec *consumers)
{
    cJSON *steps = schema_write_item(writer, entry, "steps", cJSON_CreateArray());
    if (steps == NULL)
        return;
    bool first = server == &scenario->server; /* the one the client groups call */
    bool charges = server != NULL ? server->use_gateway : consumers->use_gateway;
    const UndoSpec *undo_spec = server != NULL ? &server->undo : &consumers->undo;
    const FulfilSpec *fulfil_spec = server != NULL ? &server->fulfil : &consumers->fulfil;
    if (first && server->publishes_orders) {
        write_publish_step(writer, steps, scenario, server);
        return;
    }
    if (!charges) {
        write_step(writer, steps, STEP_EFFECT,
                   consumers != NULL && consumers->sends_email ? "email" : "local");
    } else {
        uint32_t callee = server != NULL ? server->call_server : consumers->call_server;
        const char *target = server != NULL ? scenario_call_target_id(scenario, server)
                                            : scenario_group_call_target_id(scenario, consumers);
        cJSON *call = write_step(writer, steps, STEP_CALL, target);
        if (call != NULL && first && callee == 0) { /* a gateway's charge's relays */
            schema_write_choice(writer, call, "via", &scenario_names_receipts_via,
                                server->outbox ? RECEIPTS_OUTBOX : RECEIPTS_DIRECT);
            schema_write_number(writer, call, "reconcile_ms", server->reconcile_ms);
        }
        if (call != NULL)
            write_call_spec(writer, call, &scenario_names_call_key,
                            server != NULL ? &server->call : &consumers->call);
        if (call != NULL && undo_spec->enabled) {
            cJSON *undo = schema_write_item(writer, call, "undo", cJSON_CreateObject());
            if (undo != NULL) {
                schema_write_string(writer, undo, "refund",
                                    target); /* the gateway the call charged */
                write_call_spec(writer, undo, &scenario_names_undo_key, &undo_spec->call);
            }
        }
    }
    if (fulfil_spec->enabled) {
        cJSON *fulfil = write_step(writer, steps, STEP_FULFIL, "local");
        if (fulfil != NULL)
            schema_write_number(writer, fulfil, "fail", fulfil_spec->fail);
    }
    if (first && server->publish_receipts)
        write_publish_step(writer, steps, scenario, server);
}

static void write_store(SchemaWriter *writer, cJSON *services, const char *id,
                        const IdempotencySpec *spec, const SchemaObject *schema)
{
    cJSON *entry = write_head(writer, services, id, SERVICE_KIND_KEY_STORE);
    if (entry != NULL)
        schema_write_object(writer, schema, spec, entry);
}

/* The called servers, right after the clients' server and its store, each as a server entry
 * followed by its store's, in list order (which keeps every call going down the list). A
 * store shared with a server before it was written after that server: not again. */
static void write_called_servers(SchemaWriter *writer, cJSON *services, const Scenario *scenario)
{
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        const CalledServerSpec *called = &scenario->called_servers[c];
        char store_id[NAME_LEN_MAX];
        scenario_key_store_id(scenario, &called->spec.idempotency, NODE_SERVER, store_id);
        cJSON *entry = write_head(writer, services, called->id, NODE_SERVER);
        if (entry == NULL)
            return;
        schema_write_string(writer, entry, "key_store", store_id);
        schema_write_object(writer, scenario_services_schema_of(NODE_SERVER), &called->spec, entry);
        write_steps(writer, entry, scenario, &called->spec, NULL);
        if (scenario_called_store_shared_with(scenario, c) < 0)
            write_store(writer, services, store_id, &called->spec.idempotency,
                        scenario_services_store_schema_of(NODE_SERVER));
    }
}

/* The extra gateways, right after the first, each as a gateway entry. Every gateway is
 * written when there are several (scenario_graph_check_used), so each keeps its place. */
static void write_extra_gateways(SchemaWriter *writer, cJSON *services, const Scenario *scenario)
{
    for (uint32_t g = 0; g < scenario->extra_gateway_count; g++) {
        const ExtraGatewaySpec *extra = &scenario->extra_gateways[g];
        cJSON *entry = write_head(writer, services, extra->id, NODE_GATEWAY);
        if (entry == NULL)
            return;
        schema_write_object(writer, scenario_services_schema_of(NODE_GATEWAY), &extra->spec, entry);
    }
}

/* The extra proxies, right after the first, each as a proxy entry with the server it calls. */
static void write_extra_proxies(SchemaWriter *writer, cJSON *services, const Scenario *scenario)
{
    const NodeKindInfo *info = node_kind_info(NODE_PROXY);
    for (uint32_t p = 0; p < scenario->extra_proxy_count; p++) {
        const ExtraProxySpec *extra = &scenario->extra_proxies[p];
        cJSON *entry = write_head(writer, services, extra->id, NODE_PROXY);
        if (entry == NULL)
            return;
        schema_write_string(writer, entry, info->reference.key,
                            scenario->service_ids[info->reference.names]);
        schema_write_object(writer, scenario_services_schema_of(NODE_PROXY), &extra->spec, entry);
    }
}

/* A consumer group's `queues`, written when a queue broker has several groups (a log's each
 * read every record). */
static void write_group_queues(SchemaWriter *writer, cJSON *entry, const Scenario *scenario,
                               const ConsumerSpec *group)
{
    const BrokerSpec *broker = scenario_broker(scenario, group->broker);
    if (scenario->extra_consumer_count == 0 || broker->family == BROKER_LOG)
        return;
    cJSON *names = schema_write_item(writer, entry, "queues", cJSON_CreateArray());
    for (uint32_t q = 0; q < broker->queue_count && names != NULL; q++) {
        if ((group->queue_mask & 1u << q) != 0)
            cJSON_AddItemToArray(names, cJSON_CreateString(broker->queues[q].name));
    }
}

/* The second broker, right after the first, as a broker entry. */
static void write_extra_brokers(SchemaWriter *writer, cJSON *services, const Scenario *scenario)
{
    for (uint32_t b = 0; b < scenario->extra_broker_count; b++) {
        const ExtraBrokerSpec *extra = &scenario->extra_brokers[b];
        cJSON *entry = write_head(writer, services, extra->id, NODE_BROKER);
        if (entry == NULL)
            return;
        schema_write_object(writer, scenario_services_schema_of(NODE_BROKER), &extra->spec, entry);
    }
}

/* The consumer groups after the first, right after it, each as a consumers entry with the
 * queues it takes, followed by its store's. */
static void write_extra_consumers(SchemaWriter *writer, cJSON *services, const Scenario *scenario)
{
    const NodeKindInfo *info = node_kind_info(NODE_CONSUMERS);
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        const ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
        char store_id[NAME_LEN_MAX];
        if (extra->spec.idempotency.store_id[0] != '\0')
            snprintf(store_id, sizeof store_id, "%s", extra->spec.idempotency.store_id);
        else /* its own, named after it */
            snprintf(store_id, sizeof store_id, "%.*s-keys", NAME_LEN_MAX - 6, extra->id);
        cJSON *entry = write_head(writer, services, extra->id, NODE_CONSUMERS);
        if (entry == NULL)
            return;
        schema_write_string(writer, entry, info->reference.key,
                            scenario_broker_id(scenario, extra->spec.broker));
        write_group_queues(writer, entry, scenario, &extra->spec);
        schema_write_string(writer, entry, "key_store", store_id);
        schema_write_object(writer, scenario_services_schema_of(NODE_CONSUMERS), &extra->spec,
                            entry);
        write_steps(writer, entry, scenario, NULL, &extra->spec);
        write_store(writer, services, store_id, &extra->spec.idempotency,
                    scenario_services_store_schema_of(NODE_CONSUMERS));
    }
}

/* Each service the world has, in its kind's show order, as its descriptor says: its head, the
 * service it names, its key store's id, its fields, its steps; then its key store's entry. */
void scenario_graph_write(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Scenario *scenario = target;
    cJSON *services = schema_write_item(writer, object, key, cJSON_CreateArray());
    if (services == NULL)
        return;
    NodeKind kinds[NODE_KIND_COUNT];
    unsigned count = node_kinds_in_show_order(kinds);
    for (unsigned k = 0; k < count; k++) {
        NodeKind kind = kinds[k];
        const NodeKindInfo *info = node_kind_info(kind);
        if (!service_used(scenario, kind))
            continue;
        const IdempotencySpec *store = node_kind_store_of(scenario, kind);
        char store_id[NAME_LEN_MAX];
        if (store != NULL)
            scenario_key_store_id(scenario, store, kind, store_id);
        cJSON *entry = write_head(writer, services, scenario->service_ids[kind], kind);
        if (entry == NULL)
            return;
        if (info->reference.key != NULL)
            schema_write_string(writer, entry, info->reference.key,
                                scenario->service_ids[info->reference.names]);
        if (kind == NODE_CONSUMERS)
            write_group_queues(writer, entry, scenario, &scenario->broker.consumers);
        if (store != NULL)
            schema_write_string(writer, entry, "key_store", store_id);
        if (scenario_services_schema_of(kind) != NULL)
            schema_write_object(writer, scenario_services_schema_of(kind),
                                node_kind_settings_of(scenario, kind), entry);
        if (info->runs_steps)
            write_steps(writer, entry, scenario, kind == NODE_SERVER ? &scenario->server : NULL,
                        &scenario->broker.consumers);
        bool shared = kind == NODE_CONSUMERS && scenario_consumers_share_server_store(scenario);
        if (store != NULL && !shared) /* the first server's, written with it */
            write_store(writer, services, store_id, store, scenario_services_store_schema_of(kind));
        if (kind == NODE_SERVER)
            write_called_servers(writer, services, scenario);
        if (kind == NODE_GATEWAY)
            write_extra_gateways(writer, services, scenario);
        if (kind == NODE_PROXY)
            write_extra_proxies(writer, services, scenario);
        if (kind == NODE_BROKER)
            write_extra_brokers(writer, services, scenario);
        if (kind == NODE_CONSUMERS)
            write_extra_consumers(writer, services, scenario);
    }
}
