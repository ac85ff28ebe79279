/* Private to src/model: the World's layout, shared by the actor modules (client, network,
 * server with its ledger, gateway, broker, consumers) and world.c, which owns every actor
 * and holds the one event switch.
 * Actors refer to each other by integer id; no actor keeps a pointer to another. */
#ifndef IDEMSIM_WORLD_INTERNAL_H
#define IDEMSIM_WORLD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "fault_plan.h"
#include "idem_store.h"
#include "index_queue.h"
#include "key_protocol.h"
#include "metrics.h"
#include "operation_table.h"
#include "rng.h"
#include "scenario.h"
#include "sim.h"
#include "sim_assert.h"
#include "slot_pool.h"
#include "world.h"

/* ------------------------------------------------------------------ events */

typedef enum {
    EVENT_OPERATION_START, /* target: client; arg: operation */
    EVENT_CLICK,           /* arg: request reference (a click's request sequence) */
    EVENT_RETRY,           /* arg: request reference */
    EVENT_ATTEMPT_TIMEOUT, /* arg: request reference */
    EVENT_RECONNECT,       /* target: client; arg: request reference */
    EVENT_MESSAGE_ARRIVE,  /* arg: message slot */
    EVENT_JOB_RESERVE,     /* target: the node; arg: job slot; check-then-insert's insert */
    EVENT_JOB_DONE,        /* arg: job slot */
    EVENT_STORE_SWEEP,     /* target: the store to sweep (its side) */
    EVENT_STORE_FAILOVER,  /* target: the store whose primary fails over (its side) */
    EVENT_GATEWAY_TIMEOUT, /* arg: job slot; the server stops waiting for the gateway */
    EVENT_GATEWAY_CHARGE,  /* arg: message slot; the gateway's processing is over */
    EVENT_OUTBOX_RELAY,    /* arg: outbox entry */
    EVENT_SERVER_RESTART,  /* target: the instance's node */
    EVENT_ACK_TIMEOUT,     /* target: the broker's node; arg: delivery number << 32 | queued
                              message */
    EVENT_REDELIVER,       /* target: the broker's node; arg: queued message */
    EVENT_CONSUMER_DONE,   /* arg: job slot */
    EVENT_CONSUMER_RESTART,
    EVENT_PROXY_FORWARD,     /* arg: proxy call; the proxy's processing is over */
    EVENT_PROXY_TRY_TIMEOUT, /* target: try number; arg: proxy call */
    EVENT_LOG_COMMIT,        /* target: the broker's node; the log's auto-commit */
    EVENT_LOG_REBALANCE,     /* target: the broker's node; the log's groups rebalance */
    EVENT_CONSUMER_RETRY,    /* arg: job slot; a log record whose key is in progress, again */
    EVENT_SERVER_OUTAGE,     /* target: an instance's node; its scripted outage starts */
    EVENT_HEARTBEAT,         /* target: the job's serial (low bits); arg: job slot */
    EVENT_CHARGE_RETRY,      /* target: the consumers' node, or 0 for a server's; arg: job slot;
                                a charge, again after its backoff */
    EVENT_STORE_CRASH,       /* target: the store that crashes on its own (its side; C38) */
    EVENT_STORE_RESTART,     /* target: the store that is back (its side) */
    EVENT_NODE_TIMER,        /* target: the node; arg: its kind's own (NodeKindModel.on_timer) */
    EVENT_KIND_COUNT
} EventKind;

/* Purposes of counter-based draws: each fate has its own, so adding one never shifts another. */
typedef enum {
    DRAW_LOSS = 1,
    DRAW_DELAY,
    DRAW_DUPLICATE,
    DRAW_GILBERT_ELLIOTT,
    DRAW_SERVICE,
    DRAW_BACKOFF,
    DRAW_DOUBLE_CLICK,
    DRAW_DOUBLE_CLICK_DELAY,
    DRAW_OFFLINE,
    DRAW_OFFLINE_DURATION,
    DRAW_INTERVAL,
    DRAW_KEY,
    DRAW_FINGERPRINT,
    DRAW_KEY_REUSE,
    DRAW_FAIL_BEFORE_EFFECT,
    DRAW_FAIL_AFTER_EFFECT,
    DRAW_CRASH,
    DRAW_GATEWAY_LATENCY,
    DRAW_GATEWAY_FATE,
    DRAW_CONSUMER_SERVICE,
    DRAW_CONSUMER_CRASH,
    DRAW_RECEIPT_ID,
    DRAW_PROXY_SERVICE,
    DRAW_APP_RESTART,
    DRAW_APP_RESTART_DELAY,
    DRAW_FAILOVER,
    DRAW_BALANCER,
    DRAW_KEY_SPELLING,
    DRAW_FULFIL,
    DRAW_STALE_CONNECTION,
    DRAW_CLOSE_BEFORE_ANSWER,
    DRAW_STORE_CRASH,
    DRAW_SECOND_FIRING,
    DRAW_SECOND_FIRING_SKEW,
    DRAW_CAPTURE_LOST,
    DRAW_ORDER_ID,
    DRAW_PROXY_CRASH,
    DRAW_PURPOSE_COUNT
} DrawPurpose;

/* The lineage of the n-th resend of one message (an outbox relay, a broker delivery, a
 * receipt per attempt): parent x 64 + n while n < 64, readable in traces; beyond, a hash, so
 * the 65th delivery of one copy never meets the fate of the first delivery of another. */
static inline uint64_t lineage_of_repeat(uint64_t parent, uint32_t n)
{
    if (n < 64)
        return parent * 64 + n;
    return (rng_mix64(parent) + n) | (1ull << 63);
}

/* A click's request sequence is named by (operation, click): a reference packs both. */
static inline uint64_t request_reference(uint64_t operation, uint32_t click)
{
    return operation * CLICKS_MAX + click;
}

/* ------------------------------------------------------------------ clients and operations */

typedef struct {
    uint32_t group;
    uint32_t index_in_group;
    uint32_t operations_started;
    uint64_t first_operation; /* operation ids are stable: the same in every mode */
    SimTimeUs offline_until_us;
    uint32_t app_restarts; /* its producer session: a restarted app is a new Kafka producer */
} Client;

typedef struct {
    const ClientGroupSpec *spec;  /* points into World.scenario */
    RetrySpec retry;              /* after the mode preset */
    SimTimeUs timeout_us;         /* retry.timeout_ms in µs: every attempt's wait, at hand */
    double budget_tokens;         /* retry.budget: the group's bucket */
    SimTimeUs budget_refilled_us; /* when min_per_s last paid into it */
    uint32_t first_client;
    uint32_t node;
    uint64_t first_operation;
    uint32_t operations_per_client;
    uint32_t orders_group; /* whose orders its operations are: itself, or same_orders_as (C33) */
    bool expects_receipts; /* scenario_group_expects_receipts: its outcomes count receipts */
} ClientGroup;

/* ------------------------------------------------------------------ network */

typedef enum {
    HOP_REQUEST,
    HOP_RESPONSE,
    HOP_CHARGE,
    HOP_CHARGE_REPLY,
    HOP_DELIVERY,
    HOP_ACK,
    HOP_STATUS_QUERY,
    HOP_STATUS_ANSWER,
    HOP_REFUND,       /* a saga's undo: server -> gateway */
    HOP_REFUND_REPLY, /* its answer (a charge_reply message): a fate apart from the charge's */
} Hop;

/* Who inside a sender waits for the answer to a message: the answer carries it back, and
 * the serial tells a live waiter from a slot reused since. */
typedef enum {
    REPLY_TO_NONE,
    REPLY_TO_JOB,      /* a server job waiting for the gateway; serial: the job's serial */
    REPLY_TO_OUTBOX,   /* an outbox entry relaying a charge */
    REPLY_TO_DELIVERY, /* a broker message; serial: which delivery of it */
    REPLY_TO_PROXY,    /* a proxy call; serial: the call's serial */
} ReplyToKind;

typedef struct {
    ReplyToKind kind;
    uint32_t slot;
    uint64_t serial;
} ReplyTo;

typedef struct {
    MessageKind kind;
    Hop hop;
    uint32_t source; /* node */
    uint32_t target; /* node */
    uint32_t client;
    uint32_t click;
    uint32_t attempt;
    int status; /* responses */
    uint64_t operation;
    uint64_t lineage;      /* copy path: one bit per hop, 1 = a network duplicate */
    uint64_t key;          /* the idempotency key; for a publish, the message id */
    uint64_t business_key; /* hash of account, amount and order: the same for every click */
    uint64_t fingerprint;
    uint64_t response_of;     /* responses: the operation the answer was produced for */
    ReplyTo reply_to;         /* who inside the sender waits for the answer; copied into it */
    SimTimeUs retry_after_us; /* a shed answer's Retry-After; 0: none */
    bool receipt;             /* an event the server publishes: send the receipt email */
    bool key_respelled;       /* the key spelled otherwise than the click's first attempt (C30) */
    uint32_t session;         /* a publish: the app's life it was sent in (Client.app_restarts) */
    uint32_t timeout_us;      /* its deadline header: the time left when sent (C31; 0: none) */
    uint32_t channel;         /* a queue's delivery: the consumer channel it was handed out on
                                 (Consumers.channel), which a crash or a closure ends */
} Message;

/* The answer to message, going back the way it came, built in *answer (which may be message
 * itself: the ends are read before either is written). It keeps the message's identity
 * (operation, click, attempt, lineage, reply_to): that is how the asker matches it. A caller
 * that passes its answer on by address builds it in its own message this way: message_answer's
 * result would be copied into it (a server's every response). */
static inline void message_answer_into(Message *answer, const Message *message, Hop hop, int status,
                                       uint64_t response_of)
{
    uint32_t asker = message->source;
    uint32_t answerer = message->target;
    *answer = *message;
    answer->kind = MESSAGE_RESPONSE;
    answer->hop = hop;
    answer->source = answerer;
    answer->target = asker;
    answer->status = status;
    answer->response_of = response_of;
}
static inline Message message_answer(const Message *message, Hop hop, int status,
                                     uint64_t response_of)
{
    Message answer;
    message_answer_into(&answer, message, hop, status, response_of);
    return answer;
}

/* A charge at the gateway for request, from source: key is the provider's idempotency key
 * (0: none), reply_to who waits for the answer; the relay-th resend of one charge is a new
 * message with a fate of its own. (A call step's try is message_call, world_internal.h's
 * later part: to a server it is a request.) */
static inline Message message_charge(const Message *request, uint32_t source, uint32_t target,
                                     uint64_t key, ReplyTo reply_to, uint32_t relay)
{
    Message charge = *request;
    charge.kind = MESSAGE_CHARGE;
    charge.hop = HOP_CHARGE;
    charge.source = source;
    charge.target = target;
    charge.key = key;
    charge.reply_to = reply_to;
    charge.lineage = lineage_of_repeat(request->lineage, relay);
    return charge;
}

typedef struct {
    SimTimeUs from_us;
    SimTimeUs to_us;
} OutageWindow;

typedef struct {
    LinkSpec spec;
    bool bad_state; /* Gilbert–Elliott; advances once per packet, never reset */
    uint64_t packets;
    uint32_t outage_first; /* into World.outages */
    uint32_t outage_count;
} Link;

/* ------------------------------------------------------------------ server */

/* The balance a debit's handler read when its run began (operation.update other than
 * atomic; balance_update.c). */
typedef struct {
    int64_t balance;
    uint64_t version; /* Ledger.versions[account] when read */
    bool taken;
} BalanceRead;

/* What a debit's write did to its balance: whether it landed on a balance that moved since
 * its read (a lost update), and the amount it wrote over (0 when what moved came back). */
typedef struct {
    bool lost;
    int64_t overwritten;
} BalanceWrite;

typedef struct Job {
    Message request;
    uint64_t store_key; /* 0: handled without the store */
    /* The key its calls, refunds and orders derive theirs from: the request's, as store_key
     * has it, kept when the store is down and the job runs unchecked (C38's fail open: the
     * key store is not consulted, but the key in the request still goes to the provider) */
    uint64_t sent_key;
    uint64_t serial; /* unique per job, so a stale gateway reply finds no one */
    EventId gateway_timer;
    SimTimeUs reserved_us; /* the TTL counts from here unless ttl_from says completion */
    SimTimeUs deadline_us; /* the server's deadline for it: arrival + the header's time left */
    BalanceRead balance_read;
    /* the 4-byte fields, then the flags, with no padding between them: a job's size is the
     * job pool's stride (PAY-1 runs millions) */
    uint32_t epoch;        /* the server's life it belongs to; a crash ends it */
    uint32_t token;        /* the lease it holds on its key (KeyRow.token) */
    uint32_t heartbeats;   /* consumers: progress messages sent for this delivery so far */
    uint32_t charge_tries; /* a server's charge (or its refund): tries sent so far */
    int resume_status;     /* resumes after the effect phase, which answered this (0: no) */
    bool awaiting_gateway;
    bool reserved;    /* its key was reserved, at reserved_us */
    bool event_due;   /* its event goes out with the commit: its charge's receipt, or its order */
    bool uncommitted; /* a local effect in a transaction not yet committed */
    bool refunding;   /* its fulfil step failed: the call's undo is refunding the charge */
    uint8_t tried_instances; /* its call's retry_host "other": the callee's instances tried */
} Job;

/* The transactional outbox: a charge intent written with the key row, relayed to the
 * gateway with the key until acknowledged, or an event written with the commit (a receipt,
 * or an order API's order), relayed to the broker until confirmed. It lives where the key
 * store does. */
typedef enum { OUTBOX_CHARGE, OUTBOX_RECEIPT, OUTBOX_RECONCILE, OUTBOX_ORDER } OutboxKind;

typedef struct {
    OutboxKind kind;
    Message request; /* the client request the charge (or the receipt) is for */
    uint64_t store_key;
    uint32_t job; /* the job waiting for the ack, if it is still alive */
    uint64_t job_serial;
    uint64_t written; /* order of writing: a restart resumes the relays in this order */
    uint32_t relays;
    EventId relay_timer;        /* the pending resend */
    bool acknowledged;          /* answered (charged or declined), or a free slot: no relay */
    uint32_t next_of_operation; /* the operation's next entry, or SLOT_NONE */
} OutboxEntry;

/* One instance of a server: a process with its own workers, queue, crashes and restarts.
 * A service's instances are consecutive in World.servers (its node's actor is the first,
 * and its instance_count says how many). Its keys are World.stores[store]: the one store
 * every instance shares, or its own, or a store another server names too. */
typedef struct {
    uint32_t node;          /* its node: the service's for instance 0, appended ones after */
    const ServerSpec *spec; /* its service's settings: Scenario.server, or a called server's */
    uint32_t call_node;     /* where its call step goes: the gateway's node, or a server's */
    ServiceMetrics *counts; /* its node's counters (world_service_metrics), at hand */
    uint32_t store;         /* its key store's side (index of World.stores) */
    KeyProtocol *keys;      /* World.stores[store], at hand on the hot path */
    uint32_t workers;       /* 0: unbounded */
    uint32_t busy;
    IndexQueue queue; /* waiting job slots */
    bool down;        /* crashed, not yet restarted */
    /* its steps may put the effect elsewhere: a call step (use_gateway), or an order API's
     * publish (publishes_orders); one flag the hot path reads beside down */
    bool effect_elsewhere;
    bool in_outage; /* down for server.outage: requests are reset, not dropped */
    uint32_t epoch;
    uint32_t crashes;
    uint32_t balancer_turn; /* round-robin: its service's next instance (kept by the first) */
    OutboxEntry *outbox;    /* slots reused once their operation has settled (instance 0 only:
                               the loader refuses an outbox with several instances) */
    SlotPool outbox_slots;
    uint64_t outbox_written; /* entries written so far */
} Server;

/* C35: one payment's authorisations at a gateway that captures manually: the holds placed
 * on the card, the ones the server captured, and the key of the captured one (an
 * authorisation is captured once). */
typedef struct {
    uint64_t captured_key; /* 0: none captured under a key */
    uint16_t holds;
    uint16_t captures;
    uint16_t voids; /* holds released by the caller's void */
    /* the caller heard its authorisation under captured_key was captured before (a retry's
     * capture refused): its records show the payment taken */
    bool capture_confirmed;
} CardHolds;

/* A payment gateway's own state: the first one's, or an extra one's (services form). */
#define GATEWAYS_MAX (1 + GATEWAYS_EXTRA_MAX)

typedef struct {
    const GatewaySpec *spec; /* Scenario.gateway, or an extra gateway's */
    uint32_t node;
    uint32_t number;    /* 0 the first, g > 0 extra_gateways[g - 1]: its draws' own stream */
    IdemStore *keys;    /* the keys it charged, when it honours keys; else NULL */
    IdemStore *charged; /* its record of charges by key, for reconciliation; else NULL */
    /* C35: captures whose answer was lost, not yet in a settlement file (each holds its
     * operation until then); the next file is due when settlement_due */
    Message *unsettled;
    uint32_t unsettled_count, unsettled_capacity;
    bool settlement_due;
} Gateway;

/* Balances per account, and the operations' own count of their charges (kept apart, so
 * conservation compares two records). */
typedef struct {
    int64_t *balances;
    int64_t *charged;     /* effects x amount of the settled operations */
    int64_t *overwritten; /* debits that read-modify-writes wrote over (C29) */
    uint64_t *versions;   /* writes to each balance so far (C29: what moved since a read) */
    /* By client, when a group's set-status writes one record per client (else NULL): the
     * status the record holds (operation n sets n; 0 before any) and the newest applied. */
    uint32_t *status;
    uint32_t *newest_status;
} Ledger;

/* ------------------------------------------------------------------ proxy */

/* A request copy a proxy is carrying to the server, until it answers the client: every proxy
 * of the world keeps its calls in one pool (World.proxy), each named by the proxy node its
 * request reached. */
typedef struct {
    Message request; /* as it arrived from the client */
    uint64_t serial; /* 0: a free slot */
    uint32_t tries;  /* sent to the server so far */
    EventId timer;   /* the processing delay, then the current try's timeout */
    uint8_t tried;   /* retry_host "other": bit i, the server's instance i had a try */
} ProxyCall;

/* One process of a proxy (an instance): down from a crash (ProxySpec.crash) to its restart.
 * A proxy's processes are consecutive in Proxy.processes; the first holds its balancer's
 * turn. */
typedef struct {
    uint32_t proxy; /* which proxy: 0 the first, p > 0 Scenario.extra_proxies[p - 1] */
    uint32_t node;
    bool down;
    uint32_t crashes;
    uint32_t balancer_turn; /* the first instance's: round-robin's next pick */
} ProxyProcess;

#define PROXY_PROCESSES_MAX (1 + PROXIES_EXTRA_MAX + PROXY_INSTANCES_EXTRA_MAX)

typedef struct {
    ProxyCall *calls; /* slots reused once a call has answered */
    SlotPool call_slots;
    uint64_t next_serial;
    ProxyProcess processes[PROXY_PROCESSES_MAX]; /* by its node's actor */
} Proxy;

/* ------------------------------------------------------------------ broker and consumers */

typedef enum {
    QUEUED_READY,     /* visible, waiting in the ready queue */
    QUEUED_IN_FLIGHT, /* delivered, not acknowledged */
    QUEUED_WAITING,   /* its ack timeout expired; visible again after the redelivery delay */
    QUEUED_ACKED,
    QUEUED_DEAD, /* max deliveries reached */
} QueuedState;

#define CONSUMER_GONE UINT8_MAX
/* Every consumer group's instances: the world's Consumers, and a queued message's consumer. */
#define CONSUMERS_MAX (CONSUMER_INSTANCES_MAX * (1 + CONSUMER_GROUPS_EXTRA_MAX))
_Static_assert(CONSUMERS_MAX < CONSUMER_GONE, "an instance's index fits QueuedMessage.consumer");
_Static_assert(CONSUMERS_MAX <= 64, "an instance is one bit of BrokerQueue.takers");

typedef struct {
    Message publish;
    uint32_t deliveries;
    QueuedState state;
    EventId timer;              /* the ack timeout in flight, the redelivery delay waiting */
    bool in_ready;              /* an entry for it is in the ready queue (stale once finished) */
    bool free_when_popped;      /* its operation settled while that stale entry was queued */
    bool redriving;             /* dead-lettered, waiting to be moved back (redrive_after_ms) */
    bool output_open;           /* log, transactional (C37): its output is in an open transaction */
    uint64_t output_delivery;   /* which delivery's run opened it (its reply_to.serial) */
    uint32_t redrives;          /* times it was moved back from the dead letters */
    uint32_t redrive_base;      /* deliveries before the last redrive: max_deliveries anew */
    uint32_t next_of_operation; /* the operation's next queued message (a link, in any
                                   broker: QUEUED_LINK_BROKER_SHIFT), or OPERATION_NO_SLOT */
    uint16_t queue;             /* index into Broker.queues (< QUEUES_MAX) */
    uint16_t log_group;         /* log: the consumer group whose copy it is (Broker.log_groups) */
    uint16_t partition;         /* log: its partition (< PARTITIONS_MAX), and its offset there */
    uint8_t retry_topic;        /* log: 0, a main partition's record; n, a failed record's copy
                                   in the n-th retry topic (retryable_topic) */
    uint8_t consumer;           /* the consumer instance its delivery in flight was handed to
                                   (CONSUMER_GONE: a process that crashed since) */
    uint64_t offset;
} QueuedMessage;

/* A partition of the log (family log): the queued slots of the records from `base` on, in
 * order; the group resumes from `committed` after a rebalance or a crash. Offsets below
 * `committed` are settled and their entries dropped. committed <= processed <= position
 * with commit after; position is the next record to hand out. One record of a partition is
 * out at a time (handed out and not yet processed), so a partition is processed in order. */
typedef struct {
    uint32_t *records; /* queued slots of offsets base .. base + length - 1 */
    uint64_t base;
    uint32_t length, capacity;
    uint64_t committed;
    uint64_t processed;      /* past the last record the current owner reported processed */
    uint64_t position;       /* the next offset to hand out */
    uint32_t generation;     /* bumped by each rebalance and crash: older reports are stale */
    uint32_t out_generation; /* the generation of the record out, while busy */
    uint32_t owner;          /* the consumer instance it is assigned to */
    uint32_t out_owner;      /* the instance the record out was handed to, while busy */
    bool busy;               /* a record is out; a stale one still holds the partition */
    bool commit_on_report;   /* a rebalance's commit waits for the record out (the owner
                                finishes it, then commits, before it gives the partition up) */
    /* "p3", the queue of its trace records (PARTITIONS_MAX < 100); a later group's partitions
     * name their group: "mailers/p3" */
    char name[NAME_LEN_MAX + 8];
} LogPartition;

/* One named queue: its messages waiting to be handed out, how many are out, its rules. */
typedef struct {
    const QueueSpec *spec;
    IndexQueue ready;
    uint32_t in_flight;
    uint32_t in_flight_at[CONSUMERS_MAX]; /* in_flight by consumer instance */
    uint32_t next_consumer; /* the instance its next delivery is offered to first (in turn) */
    uint64_t takers;        /* bit i: consumer instance i takes this queue (its group reads
                               this broker and names the queue) */
    IdemStore *recent_ids;  /* publisher dedup: message ids seen within the window */
    size_t recent_ids_after_sweep;
} BrokerQueue;

/* One consumer group's reading of the log (family log): each group reads every record, in
 * its own copy of the partitions, with its own offsets, owners, rebalances and retry topics,
 * as Kafka's consumer groups each keep their own offsets of one topic. */
typedef struct {
    const ConsumerSpec *spec;
    uint32_t first, count;        /* its instances: World.consumers[first .. first + count) */
    LogPartition *partitions;     /* Broker.partition_count of them */
    uint32_t next_retry_consumer; /* the instance a retry topic's next copy goes to */
    uint64_t retry_waiting;       /* retry topics' copies not handed out: their back-off, or held
                                     for the consumers' restart (counted in ready_total) */
    uint64_t retry_out;           /* retry topics' copies handed out (in in_flight_total) */
    /* session_timeout_ms: when each crashed instance's session ends (0: none pending; by
     * instance - first), and whether a rebalance waits for one to end (an instance came back:
     * nothing is handed out meanwhile) */
    SimTimeUs session_ends_at[CONSUMER_INSTANCES_MAX];
    bool rebalance_waits;
    const char *name; /* its traces' queue when the log has several groups (its service id) */
} LogGroup;

/* A broker is an actor at its node, as a server or a gateway is: World.brokers[its node's
 * actor]. A world has one or two (a log for orders beside a queue for receipts), each with
 * its own pool, queues and consumer groups. */
#define BROKERS_MAX (1 + BROKERS_EXTRA_MAX)
/* An operation's queued messages, whichever broker holds them, are one chain
 * (Operation.broker_messages, then each one's next_of_operation): a link is the slot, with
 * its broker's index in the top bit (0 for the first broker: the slot itself). */
#define QUEUED_LINK_BROKER_SHIFT 31
_Static_assert(BROKERS_MAX <= 2, "a queued message's link names its broker in one bit");

typedef struct {
    uint32_t node;           /* its node: nodes[node].actor is its index in World.brokers */
    const BrokerSpec *spec;  /* its rules, in World.scenario */
    bool manual_ack;         /* false: acknowledged as it is handed out (at-most-once) */
    QueuedMessage *messages; /* every queue's, in one pool; reused once the operation settled */
    SlotPool message_slots;
    uint32_t queue_count;
    BrokerQueue queues[QUEUES_MAX];
    uint32_t queue_base;  /* its queue q's counters are metrics.queues[queue_base + q] */
    uint64_t ready_total; /* messages waiting in every queue, for load and the levels */
    uint64_t in_flight_total;
    /* family log */
    uint32_t partition_count; /* 0: not a log */
    uint32_t log_group_count; /* every group that reads the log: [g] is Consumers.log_group g's */
    LogGroup log_groups[1 + CONSUMER_GROUPS_EXTRA_MAX];
    bool commit_before;       /* at-most-once, or commit: before */
    bool commit_tick_pending; /* an auto-commit is scheduled (it commits every group's) */
    IdemStore *producer_ids;  /* idempotent producer: the sends appended, by their identity */
} Broker;

/* One instance of the consumer group: a process with its own workers, prefetched buffer,
 * crashes and restarts. Its keys are the group's one store (instance 0's own_keys, side
 * STORE_CONSUMERS), or, with placement "per-instance", its own_keys on a side of its own. */
typedef struct {
    uint32_t node;
    const ConsumerSpec *spec; /* its group's */
    uint32_t group;           /* 0 the first, g > 0 Scenario.extra_consumers[g - 1] */
    uint32_t broker;          /* the broker its group reads: its index in World.brokers */
    uint32_t log_group;       /* a log's: its group's index among the log's (Broker.log_groups) */
    uint32_t call_node;       /* where its group's call step goes */
    uint32_t workers;         /* 0: unbounded */
    uint32_t busy;
    IndexQueue buffer; /* delivered jobs waiting for a worker (prefetched) */
    bool down;
    uint32_t epoch;
    uint32_t channel; /* its current channel: a crash, or a closure by the broker, opens anew */
    uint32_t crashes;
    KeyProtocol *keys;
    KeyProtocol own_keys;
} Consumers;

/* ------------------------------------------------------------------ the world */

/* Node ids: the client groups in scenario order, then the services in the order of
 * scenario_names_service. Ids name links and draws (a Gilbert–Elliott link's draws), so a
 * new kind of service is appended, never inserted. */
#define NODES_MAX (CLIENT_GROUPS_MAX + SERVICE_METRICS_MAX)
/* Key stores by side: the server's (shared, or instance 0's), the consumers' (shared, or
 * instance 0's), then the other server instances' own when the server's store is per
 * instance, each called server's, and the other consumer instances' own. */
#define STORES_MAX                                                                                 \
    (SERVER_INSTANCES_MAX + 1 + CALLED_SERVERS_MAX + CONSUMER_INSTANCES_MAX - 1 +                  \
     CONSUMER_GROUPS_EXTRA_MAX * CONSUMER_INSTANCES_MAX)
/* Every Server: the instances of the server the clients call, then each called server's
 * (the instances beyond one per server are at most SERVER_INSTANCES_MAX - 1 in all, as the
 * loader checks: SERVER_INSTANCES_EXTRA_MAX). */
#define SERVERS_MAX (SERVER_INSTANCES_MAX + CALLED_SERVERS_MAX)

struct World {
    Scenario scenario; /* a private copy */
    Mode mode;
    uint64_t seed;
    uint64_t draw_prefix[DRAW_PURPOSE_COUNT]; /* rng_hash_prefix(seed, purpose), once */
    TraceSink trace;
    WorldLimits limits;
    FaultPlan *fault_plan; /* NULL: faults are drawn (the usual case); else Scenario.faults */
    Sim *sim;
    bool finished;
    bool settled;
    WorldStop stop;
    uint64_t max_money_step; /* largest debit amount: what one event may move */
    SimTimeUs instant_us;    /* the simulated instant the no-progress count is about */
    uint64_t instant_first_event;
    uint64_t next_costly_check; /* event count at which memory and money are looked at next */
    uint64_t memory_charged;    /* this world's share of the process-wide memory account */

    uint32_t group_count;
    ClientGroup groups[CLIENT_GROUPS_MAX];
    uint32_t client_count;
    Client *clients;
    uint64_t operation_count;  /* ids handed out: clients x operations per client */
    uint64_t starts_scheduled; /* operation starts on the queue, not yet run */
    OperationTable operations; /* in progress only */
    SimTimeUs duration_us;

    uint32_t node_count;
    WorldNode nodes[NODES_MAX];
    uint32_t server_node;
    uint32_t gateway_node; /* the first gateway's */
    Link *links;           /* node_count * node_count, [source * node_count + target] */
    uint32_t outage_count;
    OutageWindow *outages;

    Message *messages;
    SlotPool message_slots;
    uint64_t messages_in_flight;

    Job *jobs; /* work items of the server and the consumers */
    SlotPool job_slots;
    /* A new job as it starts (but for its request, serial and epoch), copied into each: the
     * compiler copies a job in memory with a few vector moves, where it clears 232 bytes
     * with a `rep stosq`, slow to start on short lengths (AMD EPYC: 3% of PAY-1's CPU with
     * the operation record's, OperationTable.fresh). */
    Job fresh_job;
    uint64_t next_job_serial;
    uint32_t sweeps_running;
    /* A sweep whose store holds nothing that can expire waits off the queue (parked) until
       a row with a TTL arrives, then resumes on its grid: origin + k * interval. */
    bool sweep_parked[STORES_MAX];         /* by store side */
    SimTimeUs sweep_origin_us[STORES_MAX]; /* the grid's origin: the parked sweep's last run */
    SimTimeUs sweep_interval_us[STORES_MAX];
    uint32_t store_count;
    KeyProtocol *stores[STORES_MAX];        /* by side: into server_stores, or the consumers' */
    KeyProtocol server_stores[SERVERS_MAX]; /* [0]: side STORE_SERVER; [i]: side i + 1 */

    uint32_t instance_count; /* of the server the clients call: servers[0 .. instance_count) */
    uint32_t server_count;   /* every Server: its instances, then each called server's */
    Server servers[SERVERS_MAX];
    uint64_t generated_keys; /* server-generated keys: a fresh one per request */
    ScenarioNode service_nodes[SCENARIO_NODES_MAX]; /* what the service nodes are: names */
    uint32_t gateway_count;
    Gateway gateways[GATEWAYS_MAX]; /* [0] the first, at gateway_node */
    Proxy proxy;
    uint32_t proxy_node; /* the first proxy's; TRACE_NO_NODE when no group goes through one */
    uint32_t proxy_nodes[1 + PROXIES_EXTRA_MAX]; /* each proxy's: [0] proxy_node, then the
                                                    extra ones' (TRACE_NO_NODE: none) */
    uint32_t broker_count;
    Broker brokers[BROKERS_MAX]; /* by their nodes' order; a node's actor is its index */
    uint32_t consumer_count;     /* every consumer group's instances, group by group */
    Consumers consumers[CONSUMERS_MAX];
    bool business_keys; /* a consumer group keys on a business hash (publishes carry it) */
    /* Each broker's node, by its number: a client group that publishes sends to its spec's
     * broker's; the server's receipts and orders (and the consumers' receipts) to the
     * server's receipts_broker's. */
    uint32_t broker_nodes[BROKERS_MAX];
    uint32_t consumers_node; /* its first instance's */

    Ledger ledger;
    /* C33: effects per order of groups that share orders, indexed by the operation id of the
     * order in its own group (NULL when no group says same_orders_as) */
    uint32_t *order_effects;
    /* C35: each payment's holds, indexed by operation id (NULL unless gateway.capture is
     * manual) */
    CardHolds *card_holds;
    Metrics metrics;
};

#define SLOT_NONE UINT32_MAX

/* The status of a connection reset: no HTTP answer at all (server.outage). */
#define SERVER_STATUS_RESET 0

/* ------------------------------------------------------------------ shared helpers */

/* The draws are inline: PAY-1 makes about seven per operation from four files, and as
 * calls their argument shuffles and returns were a seventh of the hashing's instructions. */
static inline uint64_t world_draw(const World *world, DrawPurpose purpose, uint64_t a, uint64_t b,
                                  uint64_t c)
{
    return rng_hash_with_prefix(world->draw_prefix[purpose], a, b, c);
}
static inline double world_draw_unit(const World *world, DrawPurpose purpose, uint64_t a,
                                     uint64_t b, uint64_t c)
{
    return rng_unit_from_bits(world_draw(world, purpose, a, b, c));
}
/* A draw tied to one copy of one request (operation, click, attempt, lineage): a service
 * time, a failure, a crash meet the same verdict in every mode that runs that copy. */
static inline uint64_t world_draw_about(const World *world, DrawPurpose purpose,
                                        const Message *request)
{
    return world_draw(world, purpose, request->operation,
                      ((uint64_t)request->attempt << 8) | request->click, request->lineage);
}
/* With a fault plan (explore, a scenario's faults): the plan decides. */
bool world_chance_planned(const World *world, DrawPurpose purpose, const Message *request,
                          double probability);
/* True with the given probability, drawn as world_draw_about; never when it is 0. Inline:
 * most of these chances are 0 on the hot path, and then nothing is drawn or called. */
static inline bool world_chance_about(const World *world, DrawPurpose purpose,
                                      const Message *request, double probability)
{
    if (world->fault_plan != NULL)
        return world_chance_planned(world, purpose, request, probability);
    return probability > 0 &&
           rng_unit_from_bits(world_draw_about(world, purpose, request)) < probability;
}
/* A fault decision (scenario.h FaultKind) drawn with purpose: true when the fault happens.
 * Without a fault plan, one predictable branch and the draw; with one, the plan decides. */
static inline bool world_fault(const World *world, FaultKind fault, DrawPurpose purpose, uint64_t a,
                               uint64_t b, uint64_t c, double probability)
{
    if (world->fault_plan == NULL)
        return probability > 0 && world_draw_unit(world, purpose, a, b, c) < probability;
    return fault_plan_decide(world->fault_plan, fault, a, b, c, probability);
}
/* "web[3]" for a client group's node (with the client's index), else the node name. */
void world_actor_name(const World *world, uint32_t node, uint32_t client, char *buffer,
                      size_t size);
/* The trace helpers format nothing unless tracing is on. detail is what the event's
 * TraceRecord.detail holds (a ReserveReason, a CrashPoint...), 0 when it has none. */
/* A step a service took about one message: operation, click, attempt and copy come from it. */
void world_trace_about(World *world, uint32_t node, TraceEvent event, const Message *message,
                       int64_t value, uint32_t detail);
/* A key store's decision about a row it holds: as world_trace_about, naming the operation
 * the row belongs to (TraceRecord.key_owner; 0 when there is no row). */
void world_trace_decision(World *world, uint32_t node, TraceEvent event, const Message *message,
                          int64_t value, uint64_t key_owner);
/* A step of the broker at node about one message (NULL: about none) on a named queue or
 * partition (NULL: the only queue, which traces unnamed). */
void world_trace_queue(World *world, uint32_t node, TraceEvent event, const Message *message,
                       int64_t value, const char *queue);
/* As world_trace_queue, with a detail (TraceRecord.detail). */
void world_trace_queue_detail(World *world, uint32_t node, TraceEvent event, const Message *message,
                              int64_t value, uint32_t detail, const char *queue);
/* Fills in the time and mode and hands the record to the sink (tracing must be on). */
void world_trace_write(World *world, TraceRecord *record);
/* A step of a service not about one message (crash, restart, sweep); operation is
 * TRACE_NO_OPERATION when it belongs to none. */
void world_trace(World *world, uint32_t node, TraceEvent event, uint64_t operation, int64_t value,
                 uint32_t detail);
void world_trace_client(World *world, uint32_t client, TraceEvent event, uint64_t operation,
                        uint32_t click, uint32_t attempt, int64_t value, uint32_t detail);
static inline bool world_tracing(const World *world)
{
    return world->trace.write != NULL;
}

/* Operations in progress. world_operation asserts the operation is there. */
static inline Operation *world_operation(World *world, uint64_t id)
{
    Operation *op = operation_table_get(&world->operations, id);
    SIM_ASSERT(op != NULL, "an operation in use is in the table");
    return op;
}
uint32_t world_client_of_operation(const World *world, uint64_t id);
_Static_assert(SERVICE_METRICS_MAX <= 64,
               "a service node is one bit of an operation's services_reached");
/* Counts a finished operation that nothing refers to any more into its outcome, and frees it. */
void world_operation_settle(World *world, Operation *op);
/* Something in flight starts or stops referring to an operation; the last reference of a
 * finished operation settles it into its outcome and frees it. Inline: every message and job
 * takes and drops one (PAY-1: 9 M of each), and a call cost more than the count. */
static inline void world_operation_ref(World *world, uint64_t id)
{
    world_operation(world, id)->references++;
}
static inline void world_operation_unref(World *world, uint64_t id)
{
    Operation *op = world_operation(world, id);
    SIM_ASSERT(op->references > 0, "reference counts balance");
    if (--op->references == 0 && op->finished)
        world_operation_settle(world, op);
}
/* The client has its answer (or gave up) for every click. */
void world_operation_finished(World *world, Operation *op);

/* The cleanup sweeps of the key stores: each runs every interval while something other than
 * the sweeps themselves can still happen, so a finished world stops. */
/* Sides: the server's store (shared by its instances, or instance 0's), the consumers' (the
 * same for theirs), the other instances' own when the server's is per instance, then each
 * called server's, then the other consumer instances' own when theirs is per instance. */
typedef enum { STORE_SERVER, STORE_CONSUMERS, STORE_INSTANCE_FIRST } StoreSide;
/* The node of the key store with these settings that crashes on its own (C38: the server's,
 * or a consumer group's), or TRACE_NO_NODE. */
uint32_t world_store_node_of(const World *world, const IdempotencySpec *store);
void world_start_sweep(World *world, uint32_t side, SimTimeUs interval_us);
void world_reschedule_sweep(World *world, uint32_t side, SimTimeUs interval_us);

/* Records the rows held by the key stores (server and consumers) after a change. Call it
 * after every put, remove or clear of those stores: a parked sweep resumes there. */
void world_note_key_store(World *world);
uint32_t world_job_alloc(World *world, const Message *request, uint32_t epoch);
void world_job_release(World *world, uint32_t slot);
/* Keeps a copy of message in the pool, holding a reference to its operation. */
uint32_t world_message_store(World *world, const Message *message);
/* Frees the slot and returns the message; the caller unrefs its operation when done. */
Message world_message_take(World *world, uint32_t slot);

/* What a node kind does: its init and release (either may be NULL), its handler per message
 * kind (NULL: it never receives one, asserted), and for the kinds that run jobs, the job
 * events that go to the kind of the node running the job (its request's target). One row per
 * kind, `node_model_<name>` in the kind's own file, gathered into node_models by
 * node_models.c from NODE_KIND_LIST. world.c inits, releases and delivers messages, node
 * timers and a job's reserve and charge events through it (a request to a server and an answer to a
 * client are called directly, checked against it); what still names a kind there is the node
 * table's actors (build_nodes) and the older kinds' own events (a job done, the broker's, ...). */
typedef void (*NodeMessageHandler)(World *world, const Message *message);
typedef void (*NodeJobHandler)(World *world, uint32_t job);
typedef struct {
    void (*init)(World *world);
    void (*release)(World *world);
    NodeMessageHandler on_message[MESSAGE_KIND_COUNT];
    NodeJobHandler on_job_reserve;    /* check-then-insert's insert, after its race window */
    NodeJobHandler on_charge_timeout; /* the gateway did not answer the job's charge in time */
    NodeJobHandler on_charge_retry;   /* the job's charge is sent again */
    /* A timer of the kind's own (EVENT_NODE_TIMER), at the node that set it; arg says which,
     * as the kind likes: a new kind's timers need no event kind of their own. */
    void (*on_timer)(World *world, uint32_t node, uint64_t arg);
} NodeKindModel;
extern const NodeKindModel *const node_models[NODE_KIND_COUNT];
/* The server's row for a request (server.c), which world.c also calls directly. */
void server_takes_request(World *world, const Message *request);

/* network.c */
void network_init(World *world);
/* Sends a copy of *message over its link; drops, delays and duplicates it there. A request
 * to a service of several instances goes to the one its balancer picks. */
void network_send(World *world, const Message *message);
/* As network_send, to the node the message names even when it is a balanced service's first
 * instance: its sender picked the instance (a proxy's retry to another one). */
void network_send_to_instance(World *world, const Message *message);
void network_trace_delivery(World *world, const Message *message);

/* client.c */
void client_init(World *world);
void client_on_operation_start(World *world, uint32_t client, uint64_t operation);
void client_on_click(World *world, uint64_t reference);
void client_on_retry(World *world, uint64_t reference);
void client_on_attempt_timeout(World *world, uint64_t reference);
void client_on_reconnect(World *world, uint64_t reference);
void client_on_response(World *world, const Message *response);

/* The counters of a service node (metrics.h): by node, the client groups left out. */
static inline ServiceMetrics *world_service_metrics(World *world, uint32_t node)
{
    uint32_t index = node - world->group_count; /* wraps past the services below the groups */
    SIM_ASSERT(index < world->metrics.service_count, "a service's counters name a service node");
    return &world->metrics.services[index];
}
/* A service node took in a message about operation (a request, a charge, a publish, a
 * delivery) while up: its `received` (counts: world_service_metrics(world, node), or the
 * pointer a server keeps at hand), and the operation's outcome will count in the node's
 * share too (Metrics.reached). */
static inline void world_service_takes_in(World *world, ServiceMetrics *counts, uint32_t node,
                                          uint64_t operation)
{
    counts->received++;
    operation_table_note_reached(&world->operations, operation,
                                 1ull << (node - world->group_count));
}

/* server.c */
void server_init(World *world);
void server_release(World *world);
static inline bool world_is_server(const World *world, uint32_t node)
{
    return world->nodes[node].kind == NODE_SERVER;
}
/* A call step's try from source (a server or the consumers) to target: a charge at the
 * gateway, or a request of its own to a server, which answers it as a server answers
 * anyone (no deadline header; the key as the call step says). */
static inline Message message_call(const World *world, const Message *request, uint32_t source,
                                   uint32_t target, uint64_t key, ReplyTo reply_to, uint32_t relay)
{
    Message call = message_charge(request, source, target, key, reply_to, relay);
    if (world->nodes[target].kind == NODE_SERVER) {
        call.kind = MESSAGE_REQUEST;
        call.hop = HOP_REQUEST;
        call.timeout_us = 0;
        call.key_respelled = false;
        call.retry_after_us = 0;
    }
    return call;
}
/* A request a service sent on its own call step (a server's or the consumers'), not one a
 * client group (or the proxy, for one) sent: it carries the call's key as it is. */
static inline bool world_sent_by_call_step(const World *world, const Message *request)
{
    NodeKind kind = world->nodes[request->source].kind;
    return kind == NODE_SERVER || kind == NODE_CONSUMERS;
}
/* A called server's answer that asks for another try of the call: it did not run it (409 or
 * 202: a try of it is running still, and the caller does not poll; 429 or 503: shed; a
 * reset) or failed (5xx). Other answers are definite: 2xx the call's effect is done, 4xx
 * refused (a decline, a key reused). */
static inline bool call_answer_asks_retry(int status)
{
    return status == SERVER_STATUS_RESET || status == 409 || status == 202 || status == 429 ||
           status >= 500;
}
/* A server another server's call step names (Scenario.called_servers). */
static inline bool world_is_called_server(const World *world, uint32_t node)
{
    return world->nodes[node].kind == NODE_SERVER &&
           world->nodes[node].actor >= world->instance_count;
}
/* The Server a node is (asserted: a server's node, an instance's or a called server's). */
static inline Server *server_at(World *world, uint32_t node)
{
    if (world->server_count == 1) { /* the common world: no table to look in */
        SIM_ASSERT(node == world->server_node, "a server's work names its instance");
        return &world->servers[0];
    }
    SIM_ASSERT(node < world->node_count && world_is_server(world, node),
               "a server's work names one of its instances");
    return &world->servers[world->nodes[node].actor];
}
/* The instance that runs a job. */
static inline Server *server_of_job(World *world, uint32_t job)
{
    return server_at(world, world->jobs[job].request.target);
}
/* The settings of the server at node, or the clients' server's when node is no server (the
 * consumers' handlers read a few of them). */
static inline const ServerSpec *server_settings_at(World *world, uint32_t node)
{
    return world_is_server(world, node) ? server_at(world, node)->spec : &world->scenario.server;
}
/* The instance a request to the service goes to: the balancer's pick. */
uint32_t server_route(World *world, const Message *request);
/* Sends a try of a call (a proxy's, a call step's) to message->target: with tried, the
 * call's retry_host "other" (a bit per instance, updated), to an instance of a server of
 * several that the call has not tried while one is left; else as any message (network_send). */
void server_send_try(World *world, Message *message, uint8_t *tried);

/* proxy.c: the instance of a proxy of several a client's request goes to, and whether node
 * is a proxy's first instance (the node its clients send to) */
uint32_t proxy_route(World *world, const Message *request);
bool proxy_is_first_instance(const World *world, uint32_t node);

/* balancer.c */
/* The index (below count) of the instance a balancer of policy sends request to; turn is
 * its round-robin state. */
uint32_t balancer_pick(World *world, BalancerPolicy policy, const Message *request, uint32_t count,
                       uint32_t *turn);
void server_on_request(World *world, Server *server, const Message *request);
void server_on_status_query(World *world, Server *server, const Message *query);
void server_on_job_reserve(World *world, uint32_t job);
/* A job whose server crashed meanwhile: frees it and says so. */
bool server_job_died_in_crash(World *world, const Server *server, uint32_t job);
void server_on_job_done(World *world, uint32_t job);
void server_on_store_sweep(World *world, uint32_t side);
void server_on_restart(World *world, Server *server);
void server_on_outage(World *world, Server *server);
/* Where a job whose side effect happened goes next (handler or gateway answered). */
void server_after_effect(World *world, Server *server, uint32_t job, int status);
void server_complete_job(World *world, Server *server, uint32_t job, int status);
bool server_job_alive(const World *world, uint32_t job, uint64_t serial);

/* server_charge.c: the server's side of the gateway, and its outbox */
void server_charge_init(World *world);
void server_charge_release(World *world);
/* The job's handler charges through the gateway (directly, or via the outbox). */
void server_charge_request(World *world, uint32_t job);
void server_charge_on_reply(World *world, const Message *reply);
void server_charge_on_timeout(World *world, uint32_t job);
/* A saga's steps after a charge (server_charge.c), for whoever charged: a server's job or a
 * consumer's. node charged and refunds (its traces, its per-service retries); event_target is
 * what its timers carry, for world.c to hand them back to it; send_charge_try sends the
 * charge's next try, and order_failed ends the job of an order that failed after its charge
 * (refunded or not). */
typedef struct {
    uint32_t node;
    uint32_t event_target;
    uint32_t call_node; /* where its charge went, and so its refunds: a gateway */
    const UndoSpec *undo;
    const FulfilSpec *fulfil;
    void (*send_charge_try)(World *world, uint32_t job);
    void (*order_failed)(World *world, uint32_t job);
} SagaCaller;
/* The fulfil step after a charge went through; true when it failed (the order failed, or
 * the job now awaits its refund's answer). */
bool saga_after_charge(World *world, uint32_t job, const SagaCaller *caller);
/* The refund answered, or its tries are spent (gave_up): the order failed. */
void saga_refund_over(World *world, uint32_t job, const SagaCaller *caller, bool gave_up);
/* A backoff is over: the next try of the job's charge or of its refund. */
void saga_send_next_try(World *world, uint32_t job, const SagaCaller *caller);
/* An unanswered try of the charge or its refund; true only when the charge's tries (by
 * charge_retry) are spent, for the caller to give up its charge. */
bool saga_on_try_timeout(World *world, uint32_t job, const SagaCaller *caller,
                         const CallRetrySpec *charge_retry);
void server_charge_on_retry(World *world, uint32_t job);
/* The key a call carries (its step's `key`): the service's own, one derived from it (the
 * same for every try), or none. No key of its own, none to pass on. */
static inline uint64_t call_key_of(CallKey policy, uint64_t store_key)
{
    if (store_key == 0 || policy == CALL_KEY_NONE)
        return 0;
    return policy == CALL_KEY_DERIVE
               ? rng_mix64(store_key ^ 0x63616c6c2d6b6579ull) | 1 /* "call-key" */
               : store_key;
}
/* The key a refund carries (an undo's key policy): derived from the key the request came
 * with, the same for every try; a new one for every try; or none. */
static inline uint64_t refund_key_of(CallKey policy, uint64_t store_key, uint32_t try_number)
{
    if (store_key == 0 || policy == CALL_KEY_NONE)
        return 0;
    uint64_t refund_key = rng_mix64(store_key ^ 0x726566756e642d6bull); /* "refund-k" */
    if (policy == CALL_KEY_PER_TRY)
        refund_key = rng_mix64(refund_key + try_number);
    return refund_key | 1;
}
/* What a server answers when a later step of the order failed definitively (HTTP 424
 * Failed Dependency): the order is off, its charge refunded if the call has an undo. */
#define SERVER_STATUS_ORDER_FAILED 424
/* A call's try is named in its reply_to by the job's serial with the try number in the top
 * bits: an answer to an earlier try, whose wait is over, finds no one (its connection was
 * given up, as an HTTP client's would be). */
#define CHARGE_TRY_SHIFT 56
#define JOB_SERIAL_MASK ((1ull << CHARGE_TRY_SHIFT) - 1)
/* The wait for an answer to a try of a call to the node callee: its step's timeout_ms, else
 * the gateway's it calls (a call to a server has a timeout_ms of its own). */
static inline SimTimeUs call_timeout_us(const World *world, const CallSpec *call, uint32_t callee)
{
    return sim_time_us_from_ms(call->timeout_ms > 0
                                   ? call->timeout_ms
                                   : world->gateways[world->nodes[callee].actor].spec->timeout_ms);
}
void server_charge_on_outbox_relay(World *world, uint32_t entry);
void server_charge_resume_outbox(World *world, Server *server);
/* The job's commit writes its event to the outbox (receipts_via outbox): its charge's
 * receipt, or with publishes_orders its order, whose message id comes from store_key (the
 * job's sent_key: kept when its store is down and it ran unchecked, as a direct publish's). */
void server_charge_write_event(World *world, const Message *request, uint64_t store_key);
/* The broker confirmed an event the outbox relayed. */
void server_charge_on_event_confirm(World *world, const Message *confirm);
/* The server crashed: an outbox that is not durable loses its pending entries. */
void server_charge_on_crash(World *world, Server *server);
/* Frees the slots of an operation's outbox entries once it has settled. */
void server_charge_release_operation(World *world, Operation *op);

/* ledger.c */
void ledger_init(World *world);
void ledger_release(World *world);
/* Runs the operation's handler: the ground-truth side effect, traced at actor (a node).
 * Returns the status the handler answers. */
int ledger_apply(World *world, const Message *request, uint32_t actor, bool *changed);
/* As ledger_apply, for a handler that read its balance when it began (a job's). */
int ledger_apply_read(World *world, const Message *request, const BalanceRead *read, uint32_t actor,
                      bool *changed);
/* Rolls back the one effect ledger_apply made for request (an uncommitted transaction). */
void ledger_undo(World *world, const Message *request, uint32_t actor);
/* A refund of the charge of refund's operation: the amount goes back to the account (a credit),
 * a compensation, not a rollback: the charge happened and stays in the operation's count. */
void ledger_refund(World *world, const Message *refund, uint32_t actor);
/* A settled operation's own count of what it was charged. */
void ledger_count_settled(World *world, uint32_t account, int64_t charged);
void ledger_check_conservation(const World *world);
/* Per-client status records left at an older status than one applied to them (C23). */
uint64_t ledger_count_stale_records(const World *world);

/* balance_update.c (operation.update, C29) */
/* The handler's run begins: a debit that is not atomic reads its balance now. */
void balance_update_read(World *world, Job *job);
/* compare-and-set: the balance moved since the read. The conflict is counted and traced, the
 * balance read again; true: the caller runs the handler again instead of applying it. */
bool balance_update_conflict(World *world, Job *job, uint32_t actor);
/* Applies a debit as its update says (read: what its handler read, or NULL). */
BalanceWrite balance_update_debit(World *world, const Message *request, const BalanceRead *read);

/* key_spelling.c (C30) */
/* The key the server's store compares for request's key: as its compare and the client's
 * alphabet make it (0: no key). */
uint64_t key_spelling_stored(const World *world, const IdempotencySpec *store,
                             const Message *request);
/* Whether attempt (1: the first) of a click carries its key spelled otherwise. */
bool key_spelling_respelled(const World *world, const ClientGroupSpec *spec, uint64_t operation,
                            uint32_t click, uint32_t attempt);
/* The bits a base62 key of key_bits keeps once its case is folded. */
uint32_t key_spelling_folded_bits(uint32_t key_bits);

/* deadline.c (server.deadline, C31) */
/* The deadline header of an attempt its client waits timeout_us for. */
void deadline_stamp(const World *world, Message *request, SimTimeUs timeout_us);
/* A request arrived: the server's deadline for its job counts from now. */
void deadline_arrive(const World *world, Job *job);
/* server.deadline 'drop': the job's deadline has passed before a worker starts it, or before
 * its effect (at = DEADLINE_AT_*): counted and traced; true: the caller drops it. */
bool deadline_passed(World *world, const Job *job, uint32_t actor, int at);
/* The job's effect is about to run: counted and traced when its caller gave up before. */
void deadline_note_effect(World *world, const Job *job, uint32_t actor);
enum { DEADLINE_AT_START, DEADLINE_AT_EFFECT };

/* connection.c (C32: connections closed before an answer, and the library that replays) */
/* server.stale_connections: the request found its kept-alive connection closed, unread. The
 * close is counted, traced and answered (SERVER_STATUS_RESET); true: nothing else happens. */
bool connection_stale_on_arrival(World *world, const Server *server, const Message *request);
/* server.closes_before_answer: the connection closes before the answer's first byte; the
 * answer becomes SERVER_STATUS_RESET (counted, traced). */
void connection_close_before_answer(World *world, const Server *server, Message *answer);
/* The client's library sends the attempt again on a new connection, unseen by the app: true
 * when the group's library_retries and library_replays allow it for this answer (counted and
 * traced; the caller resends). */
bool connection_library_replays(World *world, const ClientGroupSpec *spec, ClickState *state,
                                const Message *answer);

/* broker.c */
/* The broker whose node is node. */
static inline Broker *broker_at(World *world, uint32_t node)
{
    SIM_ASSERT(world->nodes[node].kind == NODE_BROKER, "a broker's node");
    return &world->brokers[world->nodes[node].actor];
}
static inline uint32_t broker_index(const World *world, const Broker *broker)
{
    return (uint32_t)(broker - world->brokers);
}
/* The counters of the broker's queue q. */
static inline QueueMetrics *broker_queue_counts(World *world, const Broker *broker, uint32_t q)
{
    return &world->metrics.queues[broker->queue_base + q];
}
/* Every broker's (broker_init, broker_release: the kind's model, for every node of it). */
void broker_init(World *world);
void broker_release(World *world);
/* A message's broker is its target's: a publish's, an ack's, a heartbeat's, a nack's. */
void broker_on_publish(World *world, const Message *publish);
void broker_on_ack(World *world, const Message *ack);
/* A running consumer's heartbeat (SQS ChangeMessageVisibility, JetStream AckProgress): the
 * delivery it names, if still the message's current one, gets a fresh ack timeout. */
void broker_on_progress(World *world, const Message *progress);
void broker_on_nack(World *world, const Message *nack);
void broker_on_ack_timeout(World *world, Broker *broker, uint32_t queued, uint32_t delivery);
void broker_on_redeliver(World *world, Broker *broker, uint32_t queued);
/* A consumer instance crashed: a channel broker requeues everything it held unacknowledged,
 * a log rebalances its partitions among the instances still up (the instance's group's
 * broker: Consumers.broker). */
void broker_on_consumers_crash(World *world, uint32_t instance);
/* One is back: a channel broker hands out what waited for a consumer, a log gives it a
 * share of the partitions (a rebalance when other instances held them). */
void broker_on_consumers_restart(World *world, uint32_t instance);
/* Frees the slots of an operation's queued messages, in every broker, once it has settled. */
void broker_release_operation(World *world, Operation *op);
/* Puts a queued message of broker at the head of its operation's chain. */
void broker_link_to_operation(World *world, Broker *broker, Operation *op, uint32_t queued);
/* The log family (broker_log.c). */
void broker_log_init(World *world, Broker *broker);
void broker_log_release(Broker *broker);
/* A publish's record, appended to each group's partition (copies: their slots, one per
 * group, in group order). */
void broker_log_append(World *world, Broker *broker, const uint32_t *copies);
/* The idempotent producer: true when this publish is a second copy of one send (same
 * producer session, message id, attempt and copy parent), which the log then drops; an
 * application's re-publish is a send of its own, appended again. */
bool broker_log_producer_repeat(World *world, Broker *broker, const Message *publish);
void broker_log_on_processed(World *world, Broker *broker, const Message *report);
void broker_log_on_commit_tick(World *world, Broker *broker);
void broker_log_on_rebalance(World *world, Broker *broker);
void broker_log_on_consumers_crash(World *world, Broker *broker, uint32_t instance);
void broker_log_on_consumers_restart(World *world, Broker *broker, uint32_t instance);
/* A crashed instance's session is over (session_timeout_ms): the group rebalances. */
void broker_log_on_session_end(World *world, Broker *broker, uint32_t instance);
/* retryable_topic: a run of delivery failed; its record goes to the next retry topic, or past
 * the last one to the dead-letter topic (the consumer then reports it done as usual). */
void broker_log_forward_failed(World *world, Broker *broker, const Message *delivery);
/* A retry topic's back-off is over (EVENT_REDELIVER): the record goes to the group again. */
void broker_log_on_retry_due(World *world, Broker *broker, uint32_t queued);
/* The dead-letter consumer's review (C36), of a queue's dead letter or the dead-letter topic's. */
void broker_review_dead_letter(World *world, const Broker *broker, const ConsumerSpec *group,
                               const QueuedMessage *queued);
/* Whether a delivery is of its partition's current assignment: a record fetched before a
 * rebalance and not yet started is dropped by the consumer (reported, not processed). */
bool broker_log_delivery_current(const Broker *broker, const Message *delivery);
/* C37: the consumers wrote delivery's output (its effect); with transactions it waits for
 * its offset's commit, and an abort undoes it (consumers_abort_output). */
void broker_log_on_output(World *world, Broker *broker, const Message *delivery);
/* broker.c's, shared with the log: the next delivery of a queued message (counted, and
 * traced when it is a redelivery); a message let go of; the queue levels recorded (after a
 * broker's moved: the world's levels, every broker's summed). */
Message broker_next_delivery(World *world, Broker *broker, uint32_t queued);
void broker_finish_queued(World *world, Broker *broker, uint32_t queued);
void broker_note_levels(World *world, const Broker *broker);
/* The messages waiting to be handed out to the consumer group of instance (its load,
 * per_queued): the queues its group takes, or on a log its group's copy of the partitions and
 * its retry topics' copies waiting. Not another group's: one group's lag is its own. */
uint64_t broker_backlog_of_group(const World *world, const Broker *broker, uint32_t instance);
uint64_t broker_log_backlog_of_group(const Broker *broker, uint32_t group);

/* The server publishes the receipt event of a charge (publish_receipts): directly, or as
 * the outbox's relay (whose confirm comes back to reply_to). */
void broker_publish_receipt(World *world, const Message *request);
void broker_publish_receipt_relayed(World *world, const Message *request, ReplyTo reply_to,
                                    uint32_t relay);
/* An order API publishes the order itself (publishes_orders), directly or as the outbox's
 * relay: its message id comes from the key the request came with (store_key), the same for
 * every retry; with none, a new one for each copy of the request. */
void broker_publish_order(World *world, const Message *request, uint64_t store_key);
void broker_publish_order_relayed(World *world, const Message *request, uint64_t store_key,
                                  ReplyTo reply_to, uint32_t relay);

/* consumers.c */
void consumers_init(World *world);
void consumers_release(World *world);
void consumers_on_delivery(World *world, const Message *delivery);
void consumers_on_job_done(World *world, uint32_t job);
void consumers_on_job_reserve(World *world, uint32_t job);
void consumers_on_restart(World *world, uint32_t instance);
void consumers_on_retry(World *world, uint32_t job);
/* A heartbeat tick for the job in slot, if it is still the job of that serial and runs. */
void consumers_on_heartbeat(World *world, uint32_t job_slot, uint32_t serial);
void consumers_on_store_sweep(World *world, uint32_t side);
/* The instance whose node is node. */
static inline Consumers *consumers_at(World *world, uint32_t node)
{
    SIM_ASSERT(world->nodes[node].kind == NODE_CONSUMERS, "a consumer instance's node");
    return &world->consumers[world->nodes[node].actor];
}
/* The broker an instance's group reads (one of the world's: build_nodes checks). */
static inline Broker *consumers_broker(World *world, const Consumers *consumers)
{
    return &world->brokers[consumers->broker];
}
/* use_gateway: the provider's answer to a consumer's charge, or none in time. */
void consumers_on_charge_reply(World *world, const Message *reply);
void consumers_on_charge_timeout(World *world, uint32_t job);
void consumers_on_charge_retry(World *world, uint32_t job);
/* A transaction that held record's output aborted (C37): under read_committed nobody
 * reads the output, so its effect is undone, and the key row written with it goes too (in
 * the store of the instance that wrote it). */
void consumers_abort_output(World *world, const Message *record, uint32_t instance);
static inline KeyProtocol *world_keys_of_side(World *world, uint32_t side)
{
    SIM_ASSERT(side < world->store_count, "a store side names a store");
    return world->stores[side];
}

/* proxy.c */
void proxy_init(World *world);
void proxy_release(World *world);
void proxy_on_request(World *world, const Message *request);
void proxy_on_forward(World *world, uint32_t call);
void proxy_on_response(World *world, const Message *response);
void proxy_on_try_timeout(World *world, uint32_t call, uint32_t try_number);
uint64_t proxy_memory_bytes(const World *world);

/* gateway.c */
void gateway_init(World *world);
void gateway_release(World *world);
void gateway_on_charge_arrive(World *world, const Message *charge);
void gateway_on_charge_done(World *world, uint32_t message_slot);
/* The server asks whether a charge with the query's key happened (reconciliation). */
void gateway_on_status_query(World *world, const Message *query);
/* C35: the server captures the authorisation whose approval it heard (gateway.capture
 * manual). */
bool gateway_capture(World *world, const Message *approval); /* true: the money moved */
/* C35: whether a capture's answer is lost (gateway.capture_lost): the money moved, the
 * caller believes it did not; the capture waits for the next settlement file. */
bool gateway_capture_answer_lost(World *world, const Message *approval);
/* C35: the settlement file: each capture the caller believed failed is found and refunded. */
void gateway_on_settlement(World *world);
/* C35: the caller voids an approval that came after it gave up that try (void_late). */
void gateway_void_late(World *world, const Message *approval);

#endif
