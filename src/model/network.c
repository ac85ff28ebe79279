/* The lossy network: one Link per ordered pair of nodes, built from the scenario's default
 * plus per-link overrides and outage windows. A message's fate (lost, delay, duplicated) is
 * drawn from its identity (operation, click, attempt, hop, copy lineage), so the same message
 * meets the same fate in every mode. The Gilbert–Elliott state is the exception DESIGN
 * states: it advances once per packet on its link, and so follows that link's traffic. */
#include <string.h>

#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

/* The node a scenario names (a service's id names its first instance). */
static uint32_t node_by_name(const World *world, const char *name)
{
    for (uint32_t node = 0; node < world->node_count; node++) {
        if (strcmp(world->nodes[node].service, name) == 0)
            return node;
    }
    return SLOT_NONE;
}

/* A link or an outage named by a service applies to each of its instances. */
static bool same_service(const World *world, uint32_t node, uint32_t named)
{
    return node == named || (world->nodes[node].kind == world->nodes[named].kind &&
                             strcmp(world->nodes[node].service, world->nodes[named].service) == 0);
}

static Link *link_between(World *world, uint32_t source, uint32_t target)
{
    return &world->links[(size_t)source * world->node_count + target];
}

static bool outage_covers(const OutageSpec *outage, const World *world, uint32_t source,
                          uint32_t target)
{
    if (outage->source[0] == '\0')
        return true;
    return same_service(world, source, node_by_name(world, outage->source)) &&
           same_service(world, target, node_by_name(world, outage->target));
}

/* Outage windows are grouped per link, so a send scans only its own link's windows. */
static void attach_outages(World *world)
{
    const NetworkSpec *network = &world->scenario.network;
    size_t link_count = (size_t)world->node_count * world->node_count;
    uint32_t total = 0;
    for (size_t l = 0; l < link_count; l++) {
        uint32_t source = (uint32_t)(l / world->node_count),
                 target = (uint32_t)(l % world->node_count);
        for (uint32_t o = 0; o < network->outage_count; o++)
            total += outage_covers(&network->outages[o], world, source, target);
    }
    world->outages = sim_xcalloc(total ? total : 1, sizeof *world->outages);
    for (size_t l = 0; l < link_count; l++) {
        uint32_t source = (uint32_t)(l / world->node_count),
                 target = (uint32_t)(l % world->node_count);
        Link *link = &world->links[l];
        link->outage_first = world->outage_count;
        for (uint32_t o = 0; o < network->outage_count; o++) {
            const OutageSpec *outage = &network->outages[o];
            if (!outage_covers(outage, world, source, target))
                continue;
            world->outages[world->outage_count++] = (OutageWindow){
                .from_us = sim_time_us_from_ms(outage->from_ms),
                .to_us = sim_time_us_from_ms(outage->to_ms),
            };
            link->outage_count++;
        }
    }
}

void network_init(World *world)
{
    const NetworkSpec *network = &world->scenario.network;
    size_t link_count = (size_t)world->node_count * world->node_count;
    world->links = sim_xcalloc(link_count, sizeof *world->links);
    for (size_t l = 0; l < link_count; l++)
        world->links[l].spec = network->default_link;
    for (uint32_t i = 0; i < network->link_count; i++) {
        const LinkOverride *override = &network->links[i];
        uint32_t source = node_by_name(world, override->source);
        uint32_t target = node_by_name(world, override->target);
        SIM_ASSERT(source != SLOT_NONE && target != SLOT_NONE, "the loader resolves link names");
        for (uint32_t s = 0; s < world->node_count; s++) {
            for (uint32_t t = 0; t < world->node_count; t++) {
                if (same_service(world, s, source) && same_service(world, t, target))
                    link_between(world, s, t)->spec = override->spec;
            }
        }
    }
    attach_outages(world);
}

static bool in_outage(const World *world, const Link *link, SimTimeUs now)
{
    for (uint32_t i = 0; i < link->outage_count; i++) {
        const OutageWindow *window = &world->outages[link->outage_first + i];
        if (now >= window->from_us && now < window->to_us)
            return true;
    }
    return false;
}

/* Identity of one copy of one message, packed into the three words of a draw. */
static uint64_t identity_word(const Message *message)
{
    return ((uint64_t)message->attempt << 16) | ((uint64_t)message->click << 8) |
           (uint64_t)message->hop;
}

static bool survives_loss(World *world, Link *link, const Message *message, uint64_t identity,
                          uint64_t lineage)
{
    const LossSpec *loss = &link->spec.loss;
    if (loss->model == LOSS_BERNOULLI)
        return !world_fault(world, FAULT_LOSS, DRAW_LOSS, message->operation, identity, lineage,
                            loss->probability);
    double u = world_draw_unit(world, DRAW_LOSS, message->operation, identity, lineage);
    size_t link_index = (size_t)(link - world->links);
    double transition = world_draw_unit(world, DRAW_GILBERT_ELLIOTT, link_index, link->packets, 0);
    link->packets++;
    if (link->bad_state)
        link->bad_state = !(transition < loss->r);
    else
        link->bad_state = transition < loss->p;
    return u < (link->bad_state ? loss->h : loss->k);
}

/* The client's index in its group when node is a client group's node, else NO_CLIENT. */
static uint32_t client_index_at(const World *world, uint32_t node, uint32_t client)
{
    if (node >= world->group_count || client >= world->client_count)
        return TRACE_NO_CLIENT;
    return world->clients[client].index_in_group;
}

/* A message event as seen on the wire: from the actor to the peer. */
static void trace_message(World *world, TraceEvent event, const Message *message, bool inbound)
{
    char source[NAME_LEN_MAX + 16], target[NAME_LEN_MAX + 16];
    world_actor_name(world, message->source, message->client, source, sizeof source);
    world_actor_name(world, message->target, message->client, target, sizeof target);
    uint32_t actor = inbound ? message->target : message->source;
    uint32_t peer = inbound ? message->source : message->target;
    TraceRecord record = {
        .event = event,
        .actor = actor,
        .actor_client = client_index_at(world, actor, message->client),
        .peer = peer,
        .peer_client = client_index_at(world, peer, message->client),
        .actor_kind = world->nodes[actor].kind,
        .peer_kind = world->nodes[peer].kind,
        .actor_name = inbound ? target : source,
        .peer_name = inbound ? source : target,
        .operation = message->operation,
        .attempt = message->attempt,
        .click = message->click,
        .copy = (uint32_t)message->lineage,
        .value = message->status,
        .message = message->kind,
    };
    world_trace_write(world, &record);
}

void network_trace_delivery(World *world, const Message *message)
{
    if (world_tracing(world))
        trace_message(world, TRACE_DELIVER, message, true);
}

/* One copy of message on the wire, lineage its copy path: passed apart, so the message is
 * copied once, into its slot, not first into a copy of its own (issue 25). */
static void trace_copy(World *world, TraceEvent event, const Message *message, uint64_t lineage)
{
    Message copy = *message;
    copy.lineage = lineage;
    trace_message(world, event, &copy, false);
}

/* identity: identity_word(message), which the send works out once for its copies' draws. */
static void send_copy(World *world, Link *link, const Message *message, uint64_t identity,
                      uint64_t lineage)
{
    if (in_outage(world, link, sim_now(world->sim)) ||
        !survives_loss(world, link, message, identity, lineage)) {
        world->metrics.network_dropped++;
        if (world_tracing(world))
            trace_copy(world, TRACE_LOST, message, lineage);
        return;
    }
    if (world_tracing(world))
        trace_copy(world, TRACE_TRANSMIT, message, lineage);
    SimTimeUs delay = distribution_sample_ms_as_us(
        &link->spec.delay_ms, world_draw(world, DRAW_DELAY, message->operation, identity, lineage));
    if (world->fault_plan != NULL)
        delay += fault_plan_delay_us(world->fault_plan, message->operation, identity, lineage,
                                     &link->spec.delay_ms);
    uint32_t slot = world_message_store(world, message);
    world->messages[slot].lineage = lineage;
    sim_schedule_in(world->sim, delay, EVENT_MESSAGE_ARRIVE, message->target, slot);
}

/* A request to a server or a proxy with several instances goes to the one its balancer
 * picks (the balancer is part of the service: its pick costs no hop). It is sent to the
 * service's node, its first instance's: for a server, the first of its consecutive Servers. */
static bool to_balanced_service(const World *world, const Message *message)
{
    const WorldNode *target = &world->nodes[message->target];
    if (target->instance_count <= 1 ||
        (message->kind != MESSAGE_REQUEST && message->kind != MESSAGE_STATUS_QUERY))
        return false;
    if (target->kind == NODE_PROXY)
        return proxy_is_first_instance(world, message->target);
    return target->kind == NODE_SERVER &&
           (target->actor == 0 ||
            world->servers[target->actor - 1].spec != world->servers[target->actor].spec);
}

/* One send on the link between the message's two nodes (the body of both sends below, one
 * call site in each, so the compiler keeps it inline on PAY-1's path). */
static void send_on_link(World *world, const Message *message)
{
    Link *link = link_between(world, message->source, message->target);
    world->metrics.network_sent++;
    uint64_t identity = identity_word(message);
    bool duplicated = world_fault(world, FAULT_DUPLICATE, DRAW_DUPLICATE, message->operation,
                                  identity, message->lineage, link->spec.duplicate);
    send_copy(world, link, message, identity, message->lineage * 2);
    if (duplicated) {
        world->metrics.network_duplicated++;
        uint64_t lineage = message->lineage * 2 + 1;
        if (world_tracing(world))
            trace_copy(world, TRACE_DUPLICATE, message, lineage);
        send_copy(world, link, message, identity, lineage);
    }
}

void network_send_to_instance(World *world, const Message *message)
{
    send_on_link(world, message);
}

void network_send(World *world, const Message *message)
{
    Message routed;
    if (to_balanced_service(world, message)) {
        routed = *message;
        routed.target = world->nodes[message->target].kind == NODE_PROXY
                            ? proxy_route(world, message)
                            : server_route(world, message);
        message = &routed;
    }
    send_on_link(world, message);
}
