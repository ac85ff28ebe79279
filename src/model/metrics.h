/* What one run of one mode measured: plain counters that the reports, the checker and the
 * view read. Money is in integer minor units. metrics_value() maps the metric names of
 * scenario files (scenario_metric_names) to numbers, so "expect" blocks and reports agree. */
#ifndef IDEMSIM_METRICS_H
#define IDEMSIM_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "stats.h"

typedef enum {
    OUTCOME_OK,       /* effect once, client told success */
    OUTCOME_DOUBLE,   /* effect two times or more */
    OUTCOME_LOST,     /* effect zero times */
    OUTCOME_PHANTOM,  /* effect once, client told failure or never told */
    OUTCOME_MISMATCH, /* client got a response that belongs to another request */
    OUTCOME_DECLINED, /* effect zero times: the gateway declined it (a definite refusal) */
    OUTCOME_REFUNDED, /* charged, then given back as often or more (a saga's undo) */
    OUTCOME_COUNT
} Outcome;

typedef enum { BELIEF_NONE, BELIEF_SUCCEEDED, BELIEF_FAILED, BELIEF_UNKNOWN } Belief;

/* One share of the outcomes and their money: a client group's, or the operations a service
 * took part in. */
typedef struct {
    uint64_t outcomes[OUTCOME_COUNT];
    int64_t double_amount;
    int64_t lost_amount;
} OutcomeShare;

/* One service node's share of the work (issue 21, per-service results): an instance of
 * several has its own, named "<service>#<n>". Each counter is counted where that service does
 * the thing, so the mode-wide counters are these summed with the clients' share. */
typedef struct {
    /* the counters first: they are written on the hot path, the rest once */
    uint64_t received;      /* requests, charges, publishes or deliveries it took in while up */
    uint64_t runs;          /* handler runs (server, consumers) or charges decided (gateway) */
    uint64_t effects;       /* effects it applied, net of the ones rolled back uncommitted */
    uint64_t doubles;       /* of those, effects on top of an earlier one of the same operation */
    int64_t charged_amount; /* money its effects took */
    int64_t double_amount;  /* money its doubles took */
    uint64_t refunds;       /* charges it gave back (a gateway) */
    uint64_t replayed;      /* answers from its key store; duplicates acknowledged unrun */
    uint64_t refused;       /* requests answered unrun: 400, 409, 422, 429/503, resets */
    uint64_t retries;       /* sends it repeated on its own: tries, calls, redeliveries */
    uint64_t crashes;
    uint32_t first_of_service; /* the index of its service's first node (itself if it is) */
    NodeKind kind;
    uint32_t lane; /* WorldNode.lane: the order a request meets the services (sort by it) */
    uint32_t instance_count;         /* of its service */
    bool active;                     /* the scenario sends work through it (WorldNode.active) */
    char name[NODE_NAME_LEN_MAX];    /* the node's: "checkout", or "checkout#2" */
    char service[NODE_NAME_LEN_MAX]; /* the service's id (the same for its instances) */
} ServiceMetrics;

/* The nodes a world can have beyond its client groups (world_internal.h's NODES_MAX less the
 * groups): scenario_service_nodes' list. */
#define SERVICE_METRICS_MAX SCENARIO_NODES_MAX

typedef struct {
    int64_t initial;
    int64_t expected; /* initial minus every intended debit, once each; a declined or
                         refunded one is given back when it settles */
    int64_t actual;
} BalanceMetrics;

/* One broker queue's share of the broker counters. */
typedef struct {
    uint64_t messages, deliveries, redeliveries, dead_lettered, deduplicated, late_acks;
} QueueMetrics;

typedef struct {
    uint64_t operations;         /* started */
    uint64_t operations_settled; /* counted in outcomes so far; all of them at the end */
    uint64_t operations_reaching_no_service; /* of those, the ones no service took in */
    uint64_t attempts;   /* requests sent by clients, double clicks and retries included */
    uint64_t executions; /* handler runs at the server or consumers */
    uint64_t effects;    /* state changes those runs made */
    uint64_t client_succeeded, client_failed, client_unknown;
    uint64_t outcomes[OUTCOME_COUNT];
    int64_t double_amount; /* money charged beyond the first charge */
    /* The same two, live: a double is final at its second effect, long before it settles
     * (minutes, in a broker's redelivery storm). Equal to the settled ones at the end. */
    uint64_t doubles_so_far;
    int64_t double_amount_so_far;
    int64_t lost_amount; /* money of operations never charged */
    uint64_t replayed;   /* stored responses replayed by a key store */
    uint64_t status_409, status_422, status_400, status_202;
    uint64_t late_responses_ignored;
    uint64_t messages, deliveries, redeliveries, dead_lettered, deduplicated; /* broker */
    uint64_t network_sent, network_dropped, network_duplicated;
    uint64_t proxy_retries;         /* tries the proxy sent beyond the first */
    uint64_t proxy_timeouts;        /* tries it stopped waiting for */
    uint64_t proxy_crashes;         /* proxy processes that crashed (ProxySpec.crash) */
    uint64_t status_queries;        /* clients asking for their key's status (202, lookup) */
    uint64_t resolved_by_lookup;    /* unknown outcomes a status query turned into an answer */
    uint64_t reconciled;            /* gateway timeouts settled by asking the gateway later */
    uint64_t provider_charges;      /* charge requests that reached the gateway, copies included */
    uint64_t call_retries;          /* charges a server sent again on its own (its call's retry) */
    uint64_t balancer_retries;      /* requests the balancer sent on past a down instance */
    uint64_t fulfil_failures;       /* fulfil steps that failed after their charge (sagas) */
    uint64_t refunds;               /* charges the gateway gave back (a call's undo) */
    uint64_t refund_retries;        /* refunds a server sent again on its own */
    uint64_t double_refunds;        /* operations refunded more often than charged */
    int64_t double_refund_amount;   /* money given back beyond what was charged */
    uint64_t redriven;              /* dead letters moved back to their queue */
    uint64_t keys_lost_in_failover; /* key rows a failover to a lagging replica lost */
    uint64_t leaks;            /* replays of a response that belongs to another account's payment */
    uint64_t channel_closures; /* channel family: closures that requeued what was unacked */
    /* per-client status records (C23) */
    uint64_t stale_overwrites; /* writes applied over a newer status of the same record */
    uint64_t stale_final;      /* records left at an older status than one applied to them */
    uint64_t status_412;       /* conditional writes refused: the record had moved on */
    /* balances written other than atomically (operation.update, C29) */
    uint64_t lost_updates;      /* debits written over a balance that moved since their read */
    int64_t lost_update_amount; /* what those writes undid: actual balance minus applied debits */
    uint64_t update_conflicts;  /* compare-and-set writes refused: the handler ran again */
    /* deadlines carried to the server (server.deadline, C31) */
    uint64_t work_after_deadline; /* effects a handler ran after its caller had given up */
    uint64_t deadline_drops;      /* requests dropped unrun: their deadline had passed */
    /* connections closed before an answer, and client libraries that replay (C32) */
    uint64_t connection_closes; /* requests whose connection closed before any answer byte */
    uint64_t library_retries;   /* sends a client's HTTP library added unseen by the app */
    uint64_t rebalances;        /* log family: resumes from the committed offsets (crashes too) */
    uint64_t offset_commits;    /* log family: commits that moved a partition's offset */
    /* orders two paths fulfil (clients[].same_orders_as, C33) */
    uint64_t orders_fulfilled_twice; /* orders their requests fulfilled twice or more */
    /* a key store that crashes on its own (server.idempotency.crash, C38) */
    uint64_t store_crashes;            /* times the store went down */
    uint64_t keys_lost_in_store_crash; /* rows a store without persistence lost in them */
    uint64_t refused_store_down;       /* keyed requests answered 503: the store was down */
    uint64_t unchecked_runs;           /* keyed requests run with no key check: it was down */
    /* a scheduler's two instances (clients[].schedule, C34) */
    uint64_t second_firings; /* periods the second instance fired too: a second run */
    /* authorise, then capture (gateway.capture manual, C35) */
    uint64_t holds;        /* authorisations approved: holds placed on cards */
    uint64_t orphan_holds; /* holds never captured: pending until voided or expired */
    uint64_t double_holds; /* payments with two holds or more on the card */
    uint64_t voids;        /* late approvals the caller voided: their holds released */
    /* consumers' handlers that fail, and the dead-letter consumer (C36) */
    uint64_t handler_failures;      /* consumer handler runs that failed (before or after) */
    uint64_t dead_letters_reviewed; /* dead letters the dead-letter consumer put up for review */
    uint64_t dead_letters_charged;  /* of those, the ones whose operation had taken effect */
    /* Kafka transactions (C37) */
    uint64_t transactions_aborted; /* records whose output an aborted transaction held */
    uint64_t zombies_fenced;       /* of those, outputs of an owner a rebalance had replaced */
    /* captures whose answer is lost, and the settlement file (C35) */
    uint64_t captures_lost;          /* captured, the caller told nothing: it believes not */
    uint64_t settlement_corrections; /* of those, found in a settlement file and refunded */
    uint64_t crashes;
    uint64_t shed;   /* requests the server refused unrun: its queue was full (429/503) */
    uint64_t resets; /* requests reset by a server in its scripted outage */
    uint64_t retries_throttled;   /* retries a client's retry budget did not allow */
    uint64_t retries;             /* attempts after a click's first (any cause) */
    uint64_t duration_us;         /* the scenario's duration: goodput's denominator */
    CountSeries attempts_series;  /* client attempts sent, per bucket */
    CountSeries succeeded_series; /* operations the client learned succeeded, per bucket */
    uint64_t emails_sent;
    uint64_t receipts_sent, receipts_duplicated, receipts_missing; /* publish_receipts */
    uint64_t receipts_orphaned; /* receipts for operations that charged nothing in the end */
    uint64_t key_store_rows, key_store_peak; /* server and consumer stores together */
    uint64_t events;
    uint64_t operations_peak_in_progress; /* most operations held in memory at once */
    Histogram latency_us;          /* operation start to the client's final answer or give-up */
    TimeSeries key_store_series;   /* rows held by the key stores (server + consumers) over time */
    TimeSeries queue_depth_series; /* brokers: ready messages over time, every broker's */
    TimeSeries in_flight_series;   /* brokers: delivered, unacknowledged messages over time */
    uint64_t consumer_replayed;    /* keyed consumers: duplicates acknowledged without a run */
    uint64_t late_acks;
    uint64_t heartbeats; /* consumers' progress messages that extended an ack timeout */
    uint32_t queue_count;
    /* by the brokers' queues: the first broker's, then the second's (Broker.queue_base) */
    QueueMetrics queues[QUEUES_MAX * (1 + BROKERS_EXTRA_MAX)];
    uint32_t account_count;
    BalanceMetrics balances[ACCOUNTS_MAX];
    uint32_t group_count;
    OutcomeShare groups[CLIENT_GROUPS_MAX]; /* by the scenario's client groups */
    uint32_t service_count;
    ServiceMetrics services[SERVICE_METRICS_MAX]; /* by node, the client groups' left out */
    uint64_t instance_nodes; /* bit i: services[i] is an instance of a service of several */
    /* By node as services: the outcomes of the operations the node took in (received) at
     * least once, counted as they settle; and, at the first node of a service with several
     * instances (only), those of the operations any of its instances took in, each once
     * (instances' shares overlap). Apart from the counters, which every event writes. */
    OutcomeShare reached[SERVICE_METRICS_MAX];
    OutcomeShare service_reached[SERVICE_METRICS_MAX];
} Metrics;

const char *outcome_name(Outcome outcome);
/* An outcome the system got wrong (double, lost, phantom, mismatch), as against ok and the
 * definite ends a customer was told of (declined, refunded). */
bool outcome_is_harm(Outcome outcome);
/* False when name is not a metric. */
bool metrics_value(const Metrics *metrics, const char *name, double *value);
/* A metric of one client group ("METRIC@GROUP" in scenario files): an outcome's count,
 * double_amount or lost_amount. False when name is not one of those. */
bool metrics_group_value(const Metrics *metrics, uint32_t group, const char *name, double *value);
/* A metric of one service (scenario_service_metric_names, "METRIC@SERVICE"): name is the
 * node's ("checkout#2") or the service's ("checkout": its instances summed). False when
 * metric is not a service metric or no service has that name. */
bool metrics_service_value(const Metrics *metrics, const char *service, const char *metric,
                           double *value);
/* The active services in the order a request meets them (lane, then the service's first
 * node, then node): fills order with indices into metrics->services and returns how many. A
 * service's instances are next to each other. */
uint32_t metrics_services_in_lane_order(const Metrics *metrics,
                                        uint32_t order[SERVICE_METRICS_MAX]);
/* Whether order[i] (of count, metrics_services_in_lane_order's) is the last instance of a
 * service of several: where a report writes the service's own line after its instances' (its
 * id: metrics_service_value gives its counters summed and its outcomes once). */
bool metrics_service_ends_instances(const Metrics *metrics, const uint32_t *order, uint32_t count,
                                    uint32_t i);
/* A metric as an expect block, `check` or a sweep names it: METRIC, METRIC@GROUP or
 * METRIC@SERVICE (scenario_metric_known); false when it names nothing of this run. */
bool metrics_named_value(const Metrics *metrics, const Scenario *scenario, const char *name,
                         double *value);
/* An expectation's value: the group's or service's share when it names one, else the whole
 * mode's. */
bool metrics_expectation_value(const Metrics *metrics, const Expectation *expectation,
                               double *value);
int64_t metrics_balance_error(const Metrics *metrics);

#endif
