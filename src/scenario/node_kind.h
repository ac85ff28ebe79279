/* One descriptor per node kind (issue 21, step 8): where its older-form object lives, the
 * schema its `services` entry reads, the services and key store it names, the words a diagram
 * lane says for it and its place in a lane order, defined once beside its schema entry
 * (scenario_services.c, `node_kind_<name>`) and registered from NODE_KIND_LIST (node_kind.c),
 * instead of switches across the loader, the writer, the world's build and the reports. What
 * a kind does with a message or an event is the model's (its NodeKindModel in
 * `node_model_<name>`, in the kind's own model file); this header says what a kind is. */
#ifndef IDEMSIM_NODE_KIND_H
#define IDEMSIM_NODE_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"

struct SchemaObject;

/* Which work makes a world hold (and a diagram draw) a service of a kind. */
typedef enum {
    NODE_REACHED_APART,       /* not by work: client groups, and key stores (their user's) */
    NODE_REACHED_BY_CALLS,    /* a client group calls the server */
    NODE_REACHED_BY_PUBLISH,  /* something publishes to the broker */
    NODE_REACHED_BY_CHARGES,  /* something that is reached charges through it */
    NODE_REACHED_BY_PROXIED,  /* a client group goes through it */
    NODE_REACHED_IF_DECLARED, /* a `services` entry declares it (a kind with no older form) */
} NodeReachRule;

/* A reference a kind's services entry makes to another service, by id: the key it is
 * written under and the kind it must name. When needed_for is set, a service of the named
 * kind needs an entry of this kind that names it, and needed_for says why (a broker nothing
 * consumes would keep its messages). */
typedef struct {
    const char *key; /* NULL: its entry names no other service */
    NodeKind names;
    const char *needed_for;
} NodeReference;

/* Where a scenario's work goes. */
typedef struct {
    bool to_server, to_broker, charged, proxied;
    unsigned declared; /* the kinds a `services` entry declares, 1 << NodeKind each */
} NodeReach;

typedef struct {
    const char *older_path[2]; /* its object in the older form, from the root; [1] may be NULL */
    size_t settings_offset;    /* where in Scenario its fields land (0: nowhere of its own); the
                                  fields its services entry has are service_schema's */
    NodeReachRule reached_when;
    bool node_when_reached;  /* the world holds its node only when work reaches it (node ids, and
                                so link draws, stay as they were without one); implied by
                                NODE_REACHED_IF_DECLARED, so a new kind never moves the draws of
                                a world that does not declare it */
    NodeReference reference; /* the service its entry names (a proxy's calls) */
    /* Its key store: where in Scenario the store's fields land (0: its entry names no
     * key_store); the fields a key_store entry of its has are store_schema's */
    size_t store_offset;
    bool runs_steps;     /* its entry's work is `steps` (scenario_graph.c reads and writes them) */
    unsigned show_order; /* its place in the services `show` writes (ties: kind order) */
    const char *lane_role; /* what a diagram lane says it does */
    /* What a sentence calls a service of the kind whose id is not the kind's own name: "the
     * provider wallet" (NULL: its id alone) */
    const char *noun;
    const char *lane_role_keyed; /* the same when keys are checked (idempotent) */
    /* Its place left to right after the clients: lanes follow lane_order, except that a kind
     * whose lane_after_caller is set sits right after the service that calls it. */
    unsigned lane_order;
    bool lane_after_caller;
    const char *execute_badge; /* a mark of its execution, when not "charges/runs → N" */
    const char *replay_badge;  /* a mark of its replay, when not the key store's words */
    /* A node that crashes on its own, outside any operation (C38's key store): what it calls
     * itself and what its crash loses; explain tells its crash and restart in the stories
     * they fall within. NULL: its crashes are a service's, told with their crash point. */
    const char *crash_noun;
    const char *crash_loses;     /* plural: "keys" */
    const char *crash_loses_one; /* "key": "CRASH: 1 key lost" */
    /* Its `services` entry's fields, and a key_store entry's that it names (NULL: none of its
     * own; scenario_services_schema_of) */
    const struct SchemaObject *service_schema;
    const struct SchemaObject *store_schema;
} NodeKindInfo;

const NodeKindInfo *node_kind_info(NodeKind kind);
/* Its `kind` in a services entry, and, for a kind the world holds one node of, its node's
 * default id: NODE_KIND_LIST's name (NULL: a client group, which has no entry). */
const char *node_kind_name(NodeKind kind);

/* A kind the world holds one node of, named by Scenario.service_ids: not a client group, not a
 * key store (several may exist, one per user). */
bool node_kind_is_service(int kind);

NodeReach node_reach_of(const Scenario *scenario);
/* The kinds a `services` entry declares (none in the older form), 1 << NodeKind each. */
unsigned node_kinds_declared(const Scenario *scenario);
/* Whether work reaches the service of kind (false for kinds reached apart). */
bool node_kind_reached(const Scenario *scenario, NodeKind kind);

/* The servers a request to the clients' server goes through by call steps, itself included:
 * bit 0 the clients' server (Scenario.server), bit k called_servers[k - 1]. */
unsigned node_servers_called(const Scenario *scenario);
/* Whether one of those servers' call step charges at a gateway (call_server 0). */
bool node_servers_charge(const Scenario *scenario);
/* The servers the consumer group's call step reaches (as node_servers_called; 0 when it
 * calls none), and whether the group's charges reach a gateway: directly, or by one of
 * those servers. */
unsigned node_servers_called_by_consumers(const Scenario *scenario);
bool node_consumers_charge(const Scenario *scenario);
/* Whether work reaches gateway g (0 the first, g > 0 extra_gateways[g - 1]): a call step of
 * a server a client group's request goes through, or of the consumer group or a server it
 * calls when the broker is reached, charges there. */
bool node_gateway_reached(const Scenario *scenario, uint32_t g);
/* Whether gateway g takes charges of the servers node_servers_called lists, and of the
 * consumer group (directly or by a server it calls), reached or not. */
bool node_servers_charge_at(const Scenario *scenario, uint32_t g);
bool node_consumers_charge_at(const Scenario *scenario, uint32_t g);
/* Whether work reaches called server c (0-based): a client group calls the clients' server
 * and a chain of call steps from it names c, or the broker is reached and the consumer
 * group's call step (and the chain from there) does. */
bool node_called_server_reached(const Scenario *scenario, uint32_t c);

/* Whether reach, as node_reach_of says it or as `show` counts it, reaches kind. */
bool node_kind_reached_by(const NodeReach *reach, NodeKind kind);

/* The fields of kind inside scenario (NULL: none of its own). */
void *node_kind_settings(Scenario *scenario, NodeKind kind);
const void *node_kind_settings_of(const Scenario *scenario, NodeKind kind);
/* The fields of kind's key store inside scenario (NULL: it names none). */
IdempotencySpec *node_kind_store(Scenario *scenario, NodeKind kind);
const IdempotencySpec *node_kind_store_of(const Scenario *scenario, NodeKind kind);

/* The service kinds in the order `show` writes them; returns how many. */
unsigned node_kinds_in_show_order(NodeKind kinds[NODE_KIND_COUNT]);

#endif
