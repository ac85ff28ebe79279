/* The registry of node kinds' descriptors (node_kind.h), and what the scenario asks of the
 * kinds together: which are reached by work, in which order `show` writes them. Each kind's
 * descriptor is defined once, beside its schema entry (scenario_services.c:
 * `const NodeKindInfo node_kind_cache = {...};`); the table here and the name tables are
 * made from the one list of kinds (NODE_KIND_LIST, scenario.h), so a new kind adds no line
 * in this file. A new kind touches three files: its line in NODE_KIND_LIST and its fields
 * (scenario.h), its schema entry and descriptor (scenario_services.c), and its model
 * (`node_model_<name>`, in its own file under src/model). */
#include "node_kind.h"

#include <stddef.h>
#include <stdint.h>

#include "scenario_names.h"

/* A client group is a node of the world, but no `services` entry: its descriptor is here. */
const NodeKindInfo node_kind_client_group = {
    .lane_role = "client",
    .lane_role_keyed = "client",
};

#define DECLARE_DESCRIPTOR(kind, name, listed) extern const NodeKindInfo node_kind_##name;
NODE_KIND_LIST(DECLARE_DESCRIPTOR)
#undef DECLARE_DESCRIPTOR

#define DESCRIPTOR_ROW(kind, name, listed) [kind] = &node_kind_##name,
static const NodeKindInfo *const infos[NODE_KIND_COUNT] = {NODE_KIND_LIST(DESCRIPTOR_ROW)};
#undef DESCRIPTOR_ROW

#define NAME_ROW(kind, name, listed) [kind] = #name,
static const char *const kind_names[NODE_KIND_COUNT] = {NODE_KIND_LIST(NAME_ROW)};
#undef NAME_ROW

#define SERVICE_FLAG(kind, name, listed) [kind] = listed == NODE_LISTED_AS_SERVICE,
static const bool one_per_world[NODE_KIND_COUNT] = {NODE_KIND_LIST(SERVICE_FLAG)};
#undef SERVICE_FLAG

const char *node_kind_name(NodeKind kind)
{
    return (unsigned)kind < NODE_KIND_COUNT && kind != NODE_CLIENT_GROUP ? kind_names[kind] : NULL;
}

const NodeKindInfo *node_kind_info(NodeKind kind)
{
    static const NodeKindInfo none = {.lane_role = "", .lane_role_keyed = ""};
    return (unsigned)kind < NODE_KIND_COUNT ? infos[kind] : &none;
}

bool node_kind_is_service(int kind)
{
    return kind >= 0 && kind < NODE_KIND_COUNT && one_per_world[kind];
}

/* Server k: 0 the clients' server, k > 0 called_servers[k - 1]. */
static const ServerSpec *server_number(const Scenario *scenario, uint32_t k)
{
    return k == 0 ? &scenario->server : &scenario->called_servers[k - 1].spec;
}

/* The servers the servers in `called` (bit k: server k) reach by their call steps, those
 * included. A server calls only servers listed after it, so one pass in list order finds
 * them all. */
static unsigned servers_called_from(const Scenario *scenario, unsigned called)
{
    for (uint32_t k = 0; k <= scenario->called_server_count && k < CALLED_SERVERS_MAX + 1; k++) {
        const ServerSpec *server = server_number(scenario, k);
        if ((called & 1u << k) != 0 && server->use_gateway && server->call_server > k &&
            server->call_server <= scenario->called_server_count)
            called |= 1u << server->call_server;
    }
    return called;
}

/* Any gateway, for servers_charge and consumers_charge. */
#define ANY_GATEWAY UINT32_MAX

/* Whether a server in `called` charges at gateway g, or at any (its call step names it). */
static bool servers_charge(const Scenario *scenario, unsigned called, uint32_t g)
{
    for (uint32_t k = 0; k <= scenario->called_server_count && k < CALLED_SERVERS_MAX + 1; k++) {
        const ServerSpec *server = server_number(scenario, k);
        if ((called & 1u << k) != 0 && server->use_gateway && server->call_server == 0 &&
            (g == ANY_GATEWAY || server->call_gateway == g))
            return true;
    }
    return false;
}

/* The servers consumer group `group` calls (bit 0 the first server, bit k called server
 * k - 1), and those they call in turn. */
static unsigned servers_called_by_group(const Scenario *scenario, const ConsumerSpec *group)
{
    if (!group->use_gateway || (group->call_server == 0 && !group->calls_first_server))
        return 0;
    return servers_called_from(scenario, 1u << group->call_server); /* bit 0: the first */
}

/* Whether some consumer group's charges reach gateway g, or any: directly, or by a server. */
static bool consumers_charge(const Scenario *scenario, uint32_t g)
{
    for (uint32_t k = 0; k <= scenario->extra_consumer_count; k++) {
        const ConsumerSpec *group = scenario_consumer_group(scenario, k);
        bool to_gateway = group->call_server == 0 && !group->calls_first_server;
        if (group->use_gateway &&
            ((to_gateway && (g == ANY_GATEWAY || group->call_gateway == g)) ||
             servers_charge(scenario, servers_called_by_group(scenario, group), g)))
            return true;
    }
    return false;
}

unsigned node_servers_called(const Scenario *scenario)
{
    return servers_called_from(scenario, 1u);
}

unsigned node_servers_called_by_consumers(const Scenario *scenario)
{
    unsigned called = 0;
    for (uint32_t g = 0; g <= scenario->extra_consumer_count; g++)
        called |= servers_called_by_group(scenario, scenario_consumer_group(scenario, g));
    return called;
}

bool node_servers_charge(const Scenario *scenario)
{
    return servers_charge(scenario, node_servers_called(scenario), ANY_GATEWAY);
}

bool node_consumers_charge(const Scenario *scenario)
{
    return consumers_charge(scenario, ANY_GATEWAY);
}

bool node_gateway_reached(const Scenario *scenario, uint32_t g)
{
    NodeReach reach = node_reach_of(scenario);
    return (reach.to_server && node_servers_charge_at(scenario, g)) ||
           (reach.to_broker && consumers_charge(scenario, g));
}

bool node_servers_charge_at(const Scenario *scenario, uint32_t g)
{
    return servers_charge(scenario, node_servers_called(scenario), g);
}

bool node_consumers_charge_at(const Scenario *scenario, uint32_t g)
{
    return consumers_charge(scenario, g);
}

NodeReach node_reach_of(const Scenario *scenario)
{
    NodeReach reach = {false, false, false, scenario_uses_proxy(scenario), 0};
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        reach.to_server |= scenario->client_groups[g].target == TARGET_SERVER;
        reach.to_broker |= scenario->client_groups[g].target == TARGET_BROKER;
    }
    reach.to_broker |= reach.to_server && scenario_server_publishes(&scenario->server);
    reach.to_server |= reach.to_broker && (node_servers_called_by_consumers(scenario) & 1u) != 0;
    reach.charged = (reach.to_server && node_servers_charge(scenario)) ||
                    (reach.to_broker && node_consumers_charge(scenario));
    reach.declared = node_kinds_declared(scenario);
    return reach;
}

bool node_called_server_reached(const Scenario *scenario, uint32_t c)
{
    NodeReach reach = node_reach_of(scenario);
    unsigned bit = 1u << (c + 1);
    return c < scenario->called_server_count &&
           ((reach.to_server && (node_servers_called(scenario) & bit) != 0) ||
            (reach.to_broker && (node_servers_called_by_consumers(scenario) & bit) != 0));
}

unsigned node_kinds_declared(const Scenario *scenario)
{
    unsigned declared = 0;
    for (int kind = 0; kind < NODE_KIND_COUNT; kind++)
        declared |= scenario->service_entry[kind] != 0 ? 1u << kind : 0;
    return declared;
}

bool node_kind_reached_by(const NodeReach *reach, NodeKind kind)
{
    switch (node_kind_info(kind)->reached_when) {
    case NODE_REACHED_APART:
        return false;
    case NODE_REACHED_BY_CALLS:
        return reach->to_server;
    case NODE_REACHED_BY_PUBLISH:
        return reach->to_broker;
    case NODE_REACHED_BY_CHARGES:
        return reach->charged;
    case NODE_REACHED_BY_PROXIED:
        return reach->proxied;
    case NODE_REACHED_IF_DECLARED:
        return (reach->declared & 1u << kind) != 0;
    }
    return false;
}

bool node_kind_reached(const Scenario *scenario, NodeKind kind)
{
    NodeReach reach = node_reach_of(scenario);
    return node_kind_reached_by(&reach, kind);
}

void *node_kind_settings(Scenario *scenario, NodeKind kind)
{
    size_t offset = node_kind_info(kind)->settings_offset;
    return offset > 0 ? (char *)scenario + offset : NULL;
}

const void *node_kind_settings_of(const Scenario *scenario, NodeKind kind)
{
    return node_kind_settings((Scenario *)scenario, kind);
}

IdempotencySpec *node_kind_store(Scenario *scenario, NodeKind kind)
{
    size_t offset = node_kind_info(kind)->store_offset;
    return offset > 0 ? (IdempotencySpec *)((char *)scenario + offset) : NULL;
}

const IdempotencySpec *node_kind_store_of(const Scenario *scenario, NodeKind kind)
{
    return node_kind_store((Scenario *)scenario, kind);
}

unsigned node_kinds_in_show_order(NodeKind kinds[NODE_KIND_COUNT])
{
    unsigned count = 0;
    for (int kind = 0; kind < NODE_KIND_COUNT; kind++) {
        if (!node_kind_is_service(kind))
            continue;
        unsigned at = count++;
        for (; at > 0 && infos[kinds[at - 1]]->show_order > infos[kind]->show_order; at--)
            kinds[at] = kinds[at - 1];
        kinds[at] = (NodeKind)kind;
    }
    return count;
}

/* The services' node names, in node-id order (the order messages list them): the kinds the
 * world holds one node of (NODE_LISTED_AS_SERVICE). */
#define TABLE(entries)                                                                             \
    {                                                                                              \
        entries, (unsigned)(sizeof entries / sizeof entries[0])                                    \
    }
#define SERVICE_ROW_NODE_LISTED_NOT(kind, name)
#define SERVICE_ROW_NODE_LISTED_AS_KIND(kind, name)
#define SERVICE_ROW_NODE_LISTED_AS_SERVICE(kind, name) {#name, kind},
#define SERVICE_ROW(kind, name, listed) SERVICE_ROW_##listed(kind, name)
static const NameEntry services[] = {NODE_KIND_LIST(SERVICE_ROW)};
const NameTable scenario_names_service = TABLE(services);

/* The kinds a `services` entry may have, in kind order, as errors list them (show writes
 * entries in their descriptors' show_order). */
#define KIND_ROW_NODE_LISTED_NOT(kind, name)
#define KIND_ROW_NODE_LISTED_AS_KIND(kind, name) {#name, kind},
#define KIND_ROW_NODE_LISTED_AS_SERVICE(kind, name) {#name, kind},
#define KIND_ROW(kind, name, listed) KIND_ROW_##listed(kind, name)
static const NameEntry service_kinds[] = {NODE_KIND_LIST(KIND_ROW)};
const NameTable scenario_names_service_kind = TABLE(service_kinds);

/* 0 in settings_offset means "no fields of its own": none of the kinds' fields may start the
 * Scenario. */
_Static_assert(offsetof(Scenario, server) > 0 && offsetof(Scenario, gateway) > 0 &&
                   offsetof(Scenario, broker) > 0 && offsetof(Scenario, proxy) > 0,
               "a kind's fields never start the Scenario");
