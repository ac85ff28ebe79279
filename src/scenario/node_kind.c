/* The node kinds' descriptors: each kind says here, once, what it is (node_kind.h). A new kind
 * adds its entry here and its name to the two name tables below; besides, its line in
 * NODE_KIND_LIST and its fields (scenario.h), its schema entry (scenario_services.c) and its
 * model (`node_model_<name>`, in its own file). */
#include "node_kind.h"

#include <stddef.h>
#include <stdint.h>

#include "scenario_names.h"

/* Each kind's name, spelt once: the descriptors and the name tables share these. */
static const char server[] = "server";
static const char gateway[] = "gateway";
static const char broker[] = "broker";
static const char consumers[] = "consumers";
static const char proxy[] = "proxy";
static const char key_store[] = "key_store";

static const NodeKindInfo infos[NODE_KIND_COUNT] = {
    [NODE_CLIENT_GROUP] =
        {
            .lane_role = "client",
            .lane_role_keyed = "client",
        },
    [NODE_SERVER] =
        {
            .name = server,
            .older_path = {server},
            .reached_when = NODE_REACHED_BY_CALLS,
            .settings_offset = offsetof(Scenario, server),
            .store_offset = offsetof(Scenario, server.idempotency),
            .runs_steps = true,
            .show_order = 1,
            .noun = "service",
            .lane_role = "handler",
            .lane_role_keyed = "handler + key store",
            .lane_order = 1,
        },
    [NODE_GATEWAY] =
        {
            .name = gateway,
            .older_path = {gateway},
            .reached_when = NODE_REACHED_BY_CHARGES,
            .settings_offset = offsetof(Scenario, gateway),
            .show_order = 2, /* after the server, whoever charges through it */
            .noun = "provider",
            .lane_role = "payment provider",
            .lane_role_keyed = "payment provider",
            .lane_after_caller = true, /* after whoever charges through it */
            .execute_badge = "charges the card",
            .replay_badge = "key seen: not charged again",
        },
    [NODE_BROKER] =
        {
            .name = broker,
            .older_path = {broker},
            .reached_when = NODE_REACHED_BY_PUBLISH,
            .settings_offset = offsetof(Scenario, broker),
            .show_order = 3,
            .noun = "broker",
            .lane_role = "queue",
            .lane_role_keyed = "queue",
            .lane_order = 2,
        },
    [NODE_CONSUMERS] =
        {
            .name = consumers,
            .older_path = {broker, consumers},
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
        },
    [NODE_PROXY] =
        {
            .name = proxy,
            .older_path = {proxy},
            .reached_when = NODE_REACHED_BY_PROXIED,
            .node_when_reached = true,
            .reference = {"calls", NODE_SERVER, NULL},
            .settings_offset = offsetof(Scenario, proxy),
            .noun = "proxy",
            .lane_role = "retries on its own",
            .lane_role_keyed = "retries on its own",
            .lane_order = 0,
        },
    [NODE_KEY_STORE] =
        {
            .name = key_store,
            .several = true, /* read with the fields of the service that uses it */
            .lane_role = "key store",
            .lane_role_keyed = "key store",
            .crash_noun = "key store",
            .crash_loses = "keys",
        },
};

const NodeKindInfo *node_kind_info(NodeKind kind)
{
    static const NodeKindInfo none = {.lane_role = "", .lane_role_keyed = ""};
    return (unsigned)kind < NODE_KIND_COUNT ? &infos[kind] : &none;
}

bool node_kind_is_service(int kind)
{
    return kind > NODE_CLIENT_GROUP && kind < NODE_KIND_COUNT && !infos[kind].several;
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
        for (; at > 0 && infos[kinds[at - 1]].show_order > infos[kind].show_order; at--)
            kinds[at] = kinds[at - 1];
        kinds[at] = (NodeKind)kind;
    }
    return count;
}

/* The services' node names, in node-id order (the order messages list them). */
#define TABLE(entries)                                                                             \
    {                                                                                              \
        entries, (unsigned)(sizeof entries / sizeof entries[0])                                    \
    }
static const NameEntry services[] = {
    {server, NODE_SERVER},       {gateway, NODE_GATEWAY}, {broker, NODE_BROKER},
    {consumers, NODE_CONSUMERS}, {proxy, NODE_PROXY},
};
const NameTable scenario_names_service = TABLE(services);

/* The kinds a `services` entry may have, in the order errors list them (show writes entries in
 * their descriptors' show_order). */
static const NameEntry service_kinds[] = {
    {server, NODE_SERVER}, {proxy, NODE_PROXY},         {gateway, NODE_GATEWAY},
    {broker, NODE_BROKER}, {consumers, NODE_CONSUMERS}, {key_store, NODE_KEY_STORE},
};
const NameTable scenario_names_service_kind = TABLE(service_kinds);

/* 0 in settings_offset means "no fields of its own": none of the kinds' fields may start the
 * Scenario. */
_Static_assert(offsetof(Scenario, server) > 0 && offsetof(Scenario, gateway) > 0 &&
                   offsetof(Scenario, broker) > 0 && offsetof(Scenario, proxy) > 0,
               "a kind's fields never start the Scenario");
