/* A scenario as plain, validated data: what scenario_load() builds from a JSON file and the
 * world is created from. Every default is resolved here, so the model never sees a missing
 * field. Names are copied into fixed arrays; no pointer into the JSON survives loading.
 * Times are stored in the unit their JSON name says (ms), as doubles where a fraction is
 * meaningful; the model converts them to integer µs once, when it builds the world. */
#ifndef IDEMSIM_SCENARIO_H
#define IDEMSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NAME_LEN_MAX 48
#define TITLE_LEN_MAX 160
#define DESCRIPTION_LEN_MAX 2048
#define ACCOUNTS_MAX 64
#define CLIENT_GROUPS_MAX 16
#define LINKS_MAX 64
#define OUTAGES_MAX 64
#define SCRIPTED_AT_MAX 64
#define EXPECTATIONS_MAX 32
#define QUESTIONS_MAX 16
#define FAULTS_MAX 16
#define QUESTION_ASK_LEN_MAX 280 /* bytes, NUL included: four lines of a projected card */
#define QUESTION_REVEAL_MAX 8
#define MODES_MAX 3
#define CLIENTS_TOTAL_MAX 1000000
#define OPERATIONS_TOTAL_MAX 200000000ull

/* ------------------------------------------------------------------ modes */

typedef enum { MODE_AT_MOST_ONCE, MODE_AT_LEAST_ONCE, MODE_IDEMPOTENT, MODE_COUNT } Mode;

/* ------------------------------------------------------------------ distributions */

typedef enum {
    DIST_CONST,     /* a = value */
    DIST_UNIFORM,   /* a = min, b = max: [min, max) */
    DIST_EXP,       /* a = mean */
    DIST_NORMAL,    /* a = mean, b = sd; truncated at 0 */
    DIST_LOGNORMAL, /* a = median, b = p99 */
    DIST_PARETO     /* a = alpha, b = scale */
} DistKind;

typedef struct {
    DistKind kind;
    double a;
    double b;
} Distribution; /* in ms where the field name says _ms */

/* ------------------------------------------------------------------ clients */

typedef enum {
    OPERATION_DEBIT,
    OPERATION_SET_STATUS,
    OPERATION_DELETE,
    OPERATION_INSERT,
    OPERATION_INSERT_UNIQUE,
    OPERATION_SEND_EMAIL,
    OPERATION_INCREMENT,
    OPERATION_KIND_COUNT
} OperationKind;

typedef enum {
    KEY_NONE,
    KEY_PER_ATTEMPT,
    KEY_SERVER_GENERATED,
    KEY_PER_CLICK,
    KEY_BUSINESS_HASH,
    KEY_MESSAGE_ID,
    KEY_STRATEGY_COUNT
} KeyStrategy;

typedef enum { JITTER_NONE, JITTER_FULL, JITTER_EQUAL, JITTER_DECORRELATED } Jitter;
typedef enum { LATE_RESPONSE_IGNORE, LATE_RESPONSE_ACCEPT } LateResponse;
typedef enum { LOOP_CLOSED, LOOP_OPEN } WorkloadLoop;
typedef enum { TARGET_SERVER, TARGET_BROKER } ClientTarget;
typedef enum { VIA_DIRECT, VIA_PROXY } ClientVia; /* how a group's requests reach the server */
/* What a client does instead of giving up without an answer: nothing, or ask the server for
 * its key's status (a GET by key) and learn what happened. */
typedef enum { ON_UNKNOWN_GIVE_UP, ON_UNKNOWN_LOOKUP } OnUnknown;

/* A key store's scope: keys are looked up as sent (global), or within the caller's account,
 * so two users' equal keys are two rows. */
typedef enum { SCOPE_GLOBAL, SCOPE_ACCOUNT } KeyScope;

/* How a key store compares keys (C30): byte for byte, or normalised first (case folded,
 * whitespace trimmed), as a case-insensitive collation on the key column does. */
typedef enum { KEY_COMPARE_BYTES, KEY_COMPARE_NORMALISED } KeyCompare;

/* What a client's keys are written in: hex (a UUID: its letters' case means nothing), or
 * base62 (letters of both cases: the case is part of the key, so normalising folds two
 * different keys together). */
typedef enum { KEY_ALPHABET_HEX, KEY_ALPHABET_BASE62 } KeyAlphabet;

/* Which requests a client's HTTP library sends again, on its own, when their pooled
 * connection closes before any byte of the answer (C32): those that carry an idempotency key
 * header (Go's net/http: a POST with Idempotency-Key or X-Idempotency-Key is "replayable"),
 * or every one (a library told to retry any method). */
typedef enum { LIBRARY_REPLAYS_KEYED, LIBRARY_REPLAYS_ANY } LibraryReplays;

/* How a charge's receipt event reaches the broker: published as the charge happens, outside
 * any transaction (a dual write), or written to the outbox with the commit and relayed. */
typedef enum { RECEIPTS_DIRECT, RECEIPTS_OUTBOX } ReceiptPath;

/* What a node of the world is: each client group is one, and each service below (named by
 * scenario_names_service, the names links and lanes use). Every kind is listed once, here, as
 * X(its NodeKind, its name, how it is listed): the enum below, the registry of descriptors
 * and the name tables (node_kind.c, where the kind's descriptor is `node_kind_<name>`,
 * defined beside its schema entry in scenario_services.c), and the model's registry of kinds
 * (src/model/node_models.c, where the kind's model is `node_model_<name>`, defined in the
 * kind's own file) are made from the list. Listed: NODE_LISTED_AS_SERVICE, a kind the world
 * holds one node of, with a `services` entry and a default id (its name); NODE_LISTED_AS_KIND,
 * a `services` entry's kind that has several nodes (one per user), no id of its own;
 * NODE_LISTED_NOT, no `services` entry (a client group). The proxy sits between clients and
 * the server, retrying on its own (a scenario's "proxy"); the key store is a server's that
 * crashes on its own (C38): a node of the world only then, and never a link's end (requests
 * to it are not messages). A new kind is appended, never inserted: node ids name links and
 * draws. */
typedef enum { NODE_LISTED_NOT, NODE_LISTED_AS_SERVICE, NODE_LISTED_AS_KIND } NodeListing;
#define NODE_KIND_LIST(X)                                                                          \
    X(NODE_CLIENT_GROUP, client_group, NODE_LISTED_NOT)                                            \
    X(NODE_SERVER, server, NODE_LISTED_AS_SERVICE)                                                 \
    X(NODE_GATEWAY, gateway, NODE_LISTED_AS_SERVICE)                                               \
    X(NODE_BROKER, broker, NODE_LISTED_AS_SERVICE)                                                 \
    X(NODE_CONSUMERS, consumers, NODE_LISTED_AS_SERVICE)                                           \
    X(NODE_PROXY, proxy, NODE_LISTED_AS_SERVICE)                                                   \
    X(NODE_KEY_STORE, key_store, NODE_LISTED_AS_KIND)

#define NODE_KIND_ENUM_ENTRY(kind, name, listed) kind,
typedef enum { NODE_KIND_LIST(NODE_KIND_ENUM_ENTRY) NODE_KIND_COUNT } NodeKind;
#undef NODE_KIND_ENUM_ENTRY

/* What a set-status operation writes to: its own record (C5), or one record per client that
 * each of the client's operations moves on, operation n setting status n (C23: paid, shipped,
 * delivered, ...), where a late write can overwrite a newer one. */
typedef enum { RESOURCE_PER_OPERATION, RESOURCE_PER_CLIENT } OperationResource;

/* How a debit's handler writes the balance (C29): one atomic statement (balance = balance -
 * amount), a read then a write of the value it computed (a concurrent write in between is
 * lost), or that write made conditional on the balance still being the one read (on a
 * conflict the handler reads again and runs again). */
typedef enum {
    BALANCE_UPDATE_ATOMIC,
    BALANCE_UPDATE_READ_MODIFY_WRITE,
    BALANCE_UPDATE_COMPARE_AND_SET
} BalanceUpdate;

typedef struct {
    OperationKind kind;
    int64_t amount;             /* minor units; debit only */
    int64_t order_base;         /* business id of the first operation; ops count up from it */
    OperationResource resource; /* set-status only */
    bool conditional;           /* per-client set-status: a write older than the record's version is
                                   refused with 412 (a version check, If-Match style) */
    BalanceUpdate update;       /* debit only */
} OperationSpec;

typedef struct {
    uint32_t ops;             /* operations per client */
    Distribution interval_ms; /* think time (closed) or inter-arrival time (open) */
    WorkloadLoop loop;
    double start_ms;   /* first operation no earlier than this */
    uint32_t at_count; /* > 0: scripted start times replace ops/interval */
    double at_ms[SCRIPTED_AT_MAX];
} WorkloadSpec;

/* A retry budget per client group, of one of two kinds. Finagle's RetryBudget: a token
 * bucket earning `ratio` per first attempt and `min_per_s` per second, holding at most
 * `max_tokens`; a retry spends one, and a retry without a token is not sent. gRPC's retry
 * throttling: a count starting at `max_tokens`, minus one per failed attempt, plus `ratio`
 * per successful one; no retry while it is at or below half of `max_tokens`. */
typedef enum { BUDGET_KIND_FINAGLE, BUDGET_KIND_GRPC } BudgetKind;

typedef struct {
    bool enabled; /* the file has a budget */
    BudgetKind kind;
    double ratio;
    double min_per_s;
    double max_tokens;
} RetryBudgetSpec;

typedef struct {
    double timeout_ms;
    uint32_t max_attempts; /* 1 = never retry */
    double base_ms;
    double factor; /* 1.0 = constant backoff */
    double max_ms;
    Jitter jitter;
    LateResponse late_response;
    bool on_timeout; /* which answers are retried; 4xx other than 409 never */
    bool on_5xx;
    bool on_409;
    double conflict_delay_ms; /* wait after a 409 before retrying, or a 202 before asking */
    uint32_t max_conflicts;   /* 409 and 202 answers a click accepts; 0: they count against
                                 max_attempts, as attempts do */
    bool honour_retry_after;  /* wait at least a 429/503's Retry-After before the retry */
    RetryBudgetSpec budget;
} RetrySpec;

typedef struct {
    double prob;
    Distribution delay_ms;
} DoubleClickSpec;

typedef struct {
    double prob;
    Distribution duration_ms;
} OfflineSpec;

/* C34: the group is a scheduler, each operation one period's job for one customer (a
 * client), fired by the first instance at its time; a second instance (a cron on two hosts,
 * a leader whose lease lapsed) fires it too, with chance both_fire, skew_ms later. Each
 * firing is a run of its own: a click, with its own per-click key. */
typedef struct {
    uint32_t instances;   /* 1 (no second firing) or 2 */
    double both_fire;     /* chance a period is fired by both instances */
    Distribution skew_ms; /* how much later the second instance fires */
} ScheduleSpec;

/* The app process restarts right after sending (killed by the phone, updated, crashed): the
 * answer is lost, and a key kept only in memory is forgotten. */
typedef struct {
    double prob;
    Distribution delay_ms; /* until the app is back and retries */
} AppRestartSpec;

typedef struct {
    char id[NAME_LEN_MAX];
    uint32_t count;
    uint32_t account; /* index into Scenario.accounts */
    ClientTarget target;
    ClientVia via;
    uint32_t proxy; /* with via proxy: 0 the first (Scenario.proxy), p > 0 extra_proxies[p - 1] */
    OnUnknown on_unknown;
    OperationSpec operation;
    WorkloadSpec workload;
    RetrySpec retry;
    KeyStrategy key;
    DoubleClickSpec double_click;
    OfflineSpec offline;
    AppRestartSpec restart;
    bool key_persisted;       /* the per-click key is stored and survives an app restart */
    uint32_t key_bits;        /* bits of randomness in the client's keys (64: a UUID-like space) */
    double key_reuse;         /* chance an operation reuses the previous one's key (an app bug) */
    double key_respelled;     /* chance a retry sends its key spelled otherwise (C30) */
    KeyAlphabet key_alphabet; /* what the keys are written in (C30) */
    uint32_t library_retries; /* sends of one attempt the HTTP library may add (C32) */
    LibraryReplays library_replays; /* which requests it sends again */
    /* target broker: the broker it publishes to, 0 the first (Scenario.broker), 1 the second
     * (Scenario.extra_brokers[0]); queue and exchange are that broker's */
    uint32_t broker;
    uint32_t queue; /* target broker: the queue it publishes to, index into its queues */
    /* target broker: 0, it publishes to `queue`; e + 1, to its exchanges[e], which puts a
     * copy in each of its queues */
    uint32_t exchange;
    /* C33: another group's id whose orders these are (op k of client i is its op k of client
     * i: a second path that fulfils the same orders); empty: its own orders */
    char same_orders_as[NAME_LEN_MAX];
    ScheduleSpec schedule; /* C34: a scheduler's instances */
} ClientGroupSpec;

/* ------------------------------------------------------------------ network */

typedef enum { LOSS_BERNOULLI, LOSS_GILBERT_ELLIOTT } LossModel;

typedef struct {
    LossModel model;
    double probability; /* Bernoulli */
    double p, r, h, k;  /* Gilbert–Elliott: good->bad, bad->good, delivery in bad, in good */
} LossSpec;

typedef struct {
    LossSpec loss;
    Distribution delay_ms;
    double duplicate;
} LinkSpec;

/* Node names: each client group's id and each service's (Scenario.service_ids: "server",
 * "gateway", "broker", "consumers", "proxy" in the older form). */
typedef struct {
    char source[NAME_LEN_MAX];
    char target[NAME_LEN_MAX];
    LinkSpec spec; /* the network default with this link's fields applied */
} LinkOverride;

typedef struct {
    double from_ms;
    double to_ms;
    char source[NAME_LEN_MAX]; /* empty: every link */
    char target[NAME_LEN_MAX];
} OutageSpec;

typedef struct {
    LinkSpec default_link;
    uint32_t link_count;
    LinkOverride links[LINKS_MAX];
    uint32_t outage_count;
    OutageSpec outages[OUTAGES_MAX];
} NetworkSpec;

/* ------------------------------------------------------------------ server and store */

typedef enum { RESERVE_ATOMIC, RESERVE_CHECK_THEN_INSERT, RESERVE_EXECUTE_THEN_SAVE } ReservePolicy;
/* What an execution that failed leaves in the key store (issue 13's error classes). */
typedef enum {
    ON_FAILURE_DELETE,    /* forget the key: a retry executes again */
    ON_FAILURE_STORE,     /* record the answer and replay it (Stripe); "mark-failed" of old */
    ON_FAILURE_KEEP,      /* leave the row as it was: the happy-path-only mistake */
    ON_FAILURE_RETRYABLE, /* a failed row that the next attempt with the key starts afresh */
    ON_FAILURE_RESUME,    /* recovery points: a retry resumes after the last committed phase */
} FailurePolicy;

/* A failure's class: definite (4xx, a decline: nothing happened, the same request cannot
 * succeed) or ambiguous (5xx: the effect may have happened, a gateway timed out). */
typedef struct {
    FailurePolicy definite;
    FailurePolicy ambiguous;
} FailurePolicies;
typedef enum { TTL_FROM_RESERVATION, TTL_FROM_COMPLETION } TtlStart;
/* Where a server's key store lives when the server runs several instances: one store they
 * all consult (a database, a cache cluster), or a copy in each instance's memory. */
typedef enum { PLACEMENT_SHARED, PLACEMENT_PER_INSTANCE } StorePlacement;
/* Where the key lookup reads: the primary, or a replica replication_lag_ms behind it. */
typedef enum { READS_PRIMARY, READS_REPLICA } StoreReads;
/* What a server does with a keyed request while its key store is down (the store's own
 * crash, C38): refuse it with 503 (fail closed: the client retries later), or run it without
 * a key check (fail open: available, unprotected). */
typedef enum { WHEN_DOWN_REFUSE, WHEN_DOWN_PROCEED } StoreWhenDown;
/* A key store that is a process of its own (Redis, a database) and crashes on its own: the
 * time from its start or restart to its next crash, and how long it stays down. Such a store
 * is never wiped by a server's crash; `durable` then says what its own restart keeps. */
typedef struct {
    bool enabled; /* the object was given */
    Distribution every_ms;
    double restart_ms;
    uint32_t max_crashes; /* 0: no limit */
} StoreCrashSpec;
typedef enum { PROFILE_IETF, PROFILE_STRIPE, PROFILE_BRANDUR } StoreProfile;
typedef enum {
    CRASH_NONE,
    CRASH_BEFORE_EFFECT,
    CRASH_AFTER_EFFECT, /* after the charge, before recording "completed" */
    CRASH_AFTER_COMPLETION,
    /* a proxy's (ProxySpec.crash): as a request arrives, before it is forwarded; or once its
       first try has left for the server, before any answer */
    CRASH_BEFORE_FORWARD,
    CRASH_AFTER_FORWARD
} CrashPoint;

typedef struct {
    ReservePolicy reserve;
    double race_window_ms; /* check-then-insert: time between check and insert */
    double ttl_ms;         /* 0: keys never expire */
    TtlStart ttl_from;
    double cleanup_interval_ms; /* 0: expired rows are never swept */
    bool fingerprint;
    int on_in_progress; /* 409 or 202 */
    FailurePolicies on_failure;
    bool durable; /* survives a server crash */
    StoreProfile profile;
    bool required;          /* 400 when a request has no key */
    double lock_timeout_ms; /* a processing row older than this may be taken over; 0: never */
    bool fencing; /* a takeover bumps the row's token; a stale holder's effect is refused */
    double replication_lag_ms;      /* a failover loses the rows written this recently */
    Distribution failover_every_ms; /* time between failovers; only with replication_lag_ms */
    KeyStrategy key;                /* consumers only: message-id or business-hash */
    KeyScope scope;              /* whose keys may collide: everyone's (global) or one account's */
    char store_id[NAME_LEN_MAX]; /* the key_store service's id; "" in the older form */
    StorePlacement placement;    /* servers with instances: shared, or one per instance */
    StoreReads reads;            /* the lookup before a reservation: primary or replica */
    KeyCompare compare;          /* server only: keys compared as bytes or normalised (C30) */
    StoreCrashSpec crash;        /* server only: the store's own crashes (C38) */
    StoreWhenDown when_down;     /* server only: what a request meets while the store is down */
} IdempotencySpec;

typedef struct {
    CrashPoint point;
    double prob; /* chance per execution */
    double restart_ms;
    uint32_t max_crashes; /* 0: no limit */
} CrashSpec;

/* Load shedding: the answer to a request that finds the queue full (never run, no key). */
typedef struct {
    int status;            /* 429 or 503 */
    double retry_after_ms; /* the Retry-After it carries; 0: none */
} ShedSpec;

/* A scripted outage: the server is down from from_ms to to_ms; its port is closed, so every
 * request it held and every request arriving meanwhile is reset at once. */
typedef struct {
    bool enabled;
    double from_ms;
    double to_ms;
} ServerOutageSpec;

#define SERVER_QUEUE_UNBOUNDED UINT32_MAX
#define SERVER_INSTANCES_MAX 8
/* The instances of every server together (the clients' and the called ones), beyond one per
 * server: the world's node and server tables have room for this many. */
#define SERVER_INSTANCES_EXTRA_MAX (SERVER_INSTANCES_MAX - 1)

/* How a request to a server with several instances picks one: in turn, at random, or by a
 * hash of its idempotency key (a request without a key goes in turn). */
typedef enum { BALANCER_ROUND_ROBIN, BALANCER_RANDOM, BALANCER_KEY_HASH } BalancerPolicy;
/* What the balancer does when the instance it picked refuses the connection (crashed, or in
 * its outage): nothing (the request meets the down instance), or send it to the next instance
 * that is up (Envoy's retry_on connect-failure, NGINX's proxy_next_upstream error). Nothing was
 * sent to the down instance, so this retry cannot run a request twice. */
typedef enum { BALANCER_RETRY_NONE, BALANCER_RETRY_CONNECT_FAILURE } BalancerRetry;
/* Where a retry goes when the server it calls runs several instances (a proxy's, a call
 * step's): wherever the server's balancer picks (any), or to an instance this request has not
 * tried yet while one is left (other: Envoy's previous_hosts retry predicate, NGINX's
 * proxy_next_upstream "next server"). */
typedef enum { RETRY_HOST_ANY, RETRY_HOST_OTHER } RetryHost;

/* The key a service's call carries to the next hop: its own key as it is, a key derived from
 * it (the same for every retry of the call), or none. */
typedef enum { CALL_KEY_FORWARD, CALL_KEY_DERIVE, CALL_KEY_NONE, CALL_KEY_PER_TRY } CallKey;
/* per-try (an undo's refund only): a new key for every try, as an orchestrator that makes
 * its key when it sends rather than deriving it from the order: the provider cannot tell a
 * retry from a second refund. */

/* A server's own retries of its call to the gateway (a call step's `retry`): a try that gets
 * no answer within the gateway's timeout_ms is sent again after backoff_ms, up to
 * max_attempts tries in all. */
typedef struct {
    uint32_t max_attempts;
    double backoff_ms;
} CallRetrySpec;

/* A service's call to the gateway, as its call step says (the services form). */
typedef struct {
    CallRetrySpec retry;  /* its own retries, in every mode */
    CallKey key;          /* the key it carries */
    double timeout_ms;    /* how long it waits per try; 0: the gateway's timeout_ms */
    RetryHost retry_host; /* a retry to a server of several instances: where it goes */
} CallSpec;

/* A saga's later step (services form, `{"fulfil": "local"}` after the charge): the order's
 * own work once it is paid (reserve the stock, book the shipment), in the service's own
 * database. It fails definitively with chance fail (out of stock): the service then runs the
 * charge's undo, if it has one, and answers 424 (a later step of the order failed). */
typedef struct {
    bool enabled;
    double fail;
} FulfilSpec;

/* A call step's compensation (`undo`): a refund at the gateway the call charged, run when a
 * later step fails definitively, with its own retry, key and timeout. */
typedef struct {
    bool enabled;
    CallSpec call;
} UndoSpec;

/* What a server does with the deadline a request carries (C31): none is carried (HTTP/1.1
 * without a deadline header), it is carried and the handler ignores it (it works on after its
 * caller gave up), or it is carried and work whose deadline has passed is dropped before a
 * worker starts it and before its effect (gRPC's grpc-timeout with a handler that checks its
 * context). The deadline is the caller's attempt timeout, counted from the request's arrival
 * as grpc-timeout is, so the server's lies one network delay after the client's. */
typedef enum { DEADLINE_NONE, DEADLINE_IGNORED, DEADLINE_DROP } DeadlineHandling;
#define DEADLINE_TIMEOUT_MS_MAX 4294967.0 /* a timeout sent as a deadline: 2^32 - 1 us at most */

typedef struct {
    uint32_t instances; /* processes behind one balancer, each with its own workers and queue */
    BalancerPolicy balancer;
    BalancerRetry balancer_retry;
    uint32_t workers; /* per instance; 0: unbounded concurrency */
    uint32_t queue;   /* requests waiting for a worker at most; SERVER_QUEUE_UNBOUNDED */
    ShedSpec shed;
    ServerOutageSpec outage;
    Distribution service_ms;
    DeadlineHandling deadline;   /* C31 */
    double stale_connections;    /* chance a request's kept-alive connection is closed as it
                                    arrives, unread (C32) */
    double closes_before_answer; /* chance its connection closes after the handler ran, before
                                   the answer's first byte (C32) */
    IdempotencySpec idempotency;
    CrashSpec crash;
    double fail_before_effect; /* chance a handler run fails (500) before its side effect */
    double fail_after_effect;  /* chance it fails (500) after its side effect: a partial failure */
    bool delete_always_204;    /* DELETE answers 204 even when nothing was there */
    bool outbox;
    bool use_gateway;      /* a debit is the call step: to the gateway, or to call_server */
    bool publish_receipts; /* each charge publishes a "send receipt email" event */
    /* Its only step publishes the order itself to the broker, for the consumers to charge
     * (an order API; services form): no effect of its own. By receipts_via and to
     * receipts_queue, as the receipts go. */
    bool publishes_orders;
    bool transaction;         /* a local effect and the key's completion commit together */
    ReceiptPath receipts_via; /* how publish_receipts' events leave */
    double outbox_relay_ms;   /* an event relay resends after this long without a confirm */
    double reconcile_ms; /* after a gateway timeout, ask the gateway every this often; 0: never */
    CallSpec call;       /* the gateway call's retry, key and timeout (services form) */
    UndoSpec undo;       /* the call's refund when the fulfil step fails (services form) */
    FulfilSpec fulfil;   /* the order's own work after the charge (services form) */
    /* where they go: the broker (0 the first, 1 the second) and its queue */
    uint32_t receipts_broker;
    uint32_t receipts_queue;
    /* What the call step calls: 0, a gateway; k > 0, Scenario.called_servers[k - 1], a
     * server of its own whose answer counts as the charge's (services form) */
    uint32_t call_server;
    /* With call_server 0, the gateway it charges at: 0, the first (Scenario.gateway); g > 0,
     * Scenario.extra_gateways[g - 1] */
    uint32_t call_gateway;
} ServerSpec;

/* A server that another server's call step names (services form): a tier behind the server
 * the clients call (checkout -> payments -> the provider), with a server's fields, its key
 * store and its own steps. A called server is only called by servers listed before it, so
 * calls never loop. It may run several instances behind its own balancer; it has no outbox,
 * publish, fulfil, undo, reconciliation, deadline, crash or outage (refused at load with
 * their paths). */
#define CALLED_SERVERS_MAX 3

typedef struct {
    char id[NAME_LEN_MAX];
    ServerSpec spec;
    uint8_t entry;       /* its entry in `services`, plus one */
    uint8_t store_entry; /* its key store's entry, plus one (warnings' paths) */
} CalledServerSpec;

typedef enum { CAPTURE_IMMEDIATE, CAPTURE_MANUAL } GatewayCapture;

typedef struct {
    Distribution latency_ms;
    double fail;
    double timeout;    /* the charge may have happened; the server is not told */
    double timeout_ms; /* how long the server waits before giving up on the gateway */
    bool honours_key;
    /* C35: immediate (a charge moves the money) or manual: a charge is an authorisation
     * that places a hold, and the server captures the one whose approval it hears */
    GatewayCapture capture;
    bool void_late; /* C35: the caller voids an approval that comes after it gave up the try */
    /* C35 settlement: chance that a capture's answer is lost (the money moved, the caller
     * believes it did not), and how often the caller reconciles against the acquirer's
     * settlement file (0: never) */
    double capture_lost;
    double settlement_every_ms;
} GatewaySpec;

/* A gateway after the first in `services` (services form): another provider a call step
 * names (ServerSpec.call_gateway, ConsumerSpec.call_gateway), such as a payout provider
 * beside the card acquirer. It has a gateway's fields but C35's manual capture, voids and
 * settlement file, which stay the first gateway's (refused at load with their paths). One at
 * most: a handler has one call step, so the servers' calls end at one gateway and the
 * consumers' at one, and a gateway nothing calls is refused. */
#define GATEWAYS_EXTRA_MAX 1

typedef struct {
    char id[NAME_LEN_MAX];
    GatewaySpec spec;
    uint8_t entry; /* its entry in `services`, plus one */
} ExtraGatewaySpec;

/* A proxy between clients and the server (an API gateway, a service-mesh sidecar) that
 * retries on its own: the application sent once, the proxy may send again. */
typedef struct {
    uint32_t retries;          /* further tries after the first */
    double per_try_timeout_ms; /* a try unanswered this long is abandoned */
    bool on_timeout, on_5xx, on_409;
    bool forwards_key;       /* false: the Idempotency-Key header is dropped on the way */
    Distribution service_ms; /* the proxy's own processing, before the first try */
    RetryHost retry_host;
    /* The proxy process's crashes (a sidecar restarted, an API gateway's pod evicted): drawn
     * per request at a point of its own; every request it carries then ends in a reset */
    CrashSpec crash;
    /* Its processes (services form): each with its own calls, crashes and restarts, behind
     * a balancer of their own that deals the client groups' requests out, as a server's */
    uint32_t instances;
    BalancerPolicy balancer;
    BalancerRetry balancer_retry;
} ProxySpec;

#define PROXY_INSTANCES_MAX 8
/* Every proxy's instances beyond one, in all (the loader refuses more): node room. */
#define PROXY_INSTANCES_EXTRA_MAX 7

/* A proxy after the first in `services` (services form): another way in to the first server,
 * which client groups name by `calls` (ClientGroupSpec.proxy), such as a mesh that retries
 * for the mobile app beside an API gateway that does not for the web. */
#define PROXIES_EXTRA_MAX 3

typedef struct {
    char id[NAME_LEN_MAX];
    ProxySpec spec;
    uint8_t entry; /* its entry in `services`, plus one */
} ExtraProxySpec;

/* ------------------------------------------------------------------ broker */

typedef enum { LATE_ACK_IGNORE, LATE_ACK_ACCEPT } LateAck;
/* visibility-timeout (SQS, JetStream AckWait): a message unacknowledged within its ack
 * timeout is handed out again, even while a consumer is still working on it. channel
 * (RabbitMQ): a delivery stays with its consumer until acked; only a closed channel (the
 * consumer crashed, or held a delivery past consumer_timeout_ms) requeues what it held. */
/* log (Kafka): records stay in order in partitions; the group commits an offset per
 * partition, and a rebalance or a crash resumes from the last committed offset. */
typedef enum { BROKER_VISIBILITY_TIMEOUT, BROKER_CHANNEL, BROKER_LOG } BrokerFamily;
/* log (C37): whether the readers of the consumers' output see the records of an aborted
 * transaction (read_uncommitted, Kafka's default) or only committed ones. */
typedef enum { ISOLATION_READ_UNCOMMITTED, ISOLATION_READ_COMMITTED } IsolationLevel;
/* log: whether the consumer commits a record's offset before processing it or after. */
typedef enum { COMMIT_AFTER, COMMIT_BEFORE } CommitPolicy;

#define PARTITIONS_MAX 64
#define REBALANCES_MAX 1000000 /* rebalance_every_ms: at most this many in duration_ms */

/* The dead-letter queue's consumer (C36): none (dead letters wait there), or one that puts
 * each on a manual-review list, noting whether its effect already happened. */
typedef enum { DEAD_LETTERS_KEEP, DEAD_LETTERS_REVIEW } DeadLetterHandling;

/* A consumer framework's non-blocking retries on a log (Spring Kafka's @RetryableTopic):
 * a failed record is forwarded to a retry topic, its offset on the main partition committed,
 * and comes back to the group after the retry topic's back-off (delay_ms x multiplier^(n-1)
 * before the n-th retry); after `attempts` runs in all it goes to the dead-letter topic.
 * Off unless the object is given: a failure is then retried in place, then skipped. */
typedef struct {
    bool enabled;
    uint32_t attempts; /* runs in all, the first one on the main topic included */
    double delay_ms;
    double multiplier;
} RetryableTopicSpec;

/* A consumer group's processes (services form, `instances`): each with its own workers,
 * prefetched buffer, crashes and restarts, and, with its key store's placement
 * "per-instance", its own keys. The broker hands each delivery to an instance that is up and
 * has room, in turn. */
#define CONSUMER_INSTANCES_MAX 8

typedef struct {
    uint32_t instances; /* processes of the group, each with `workers` workers */
    uint32_t workers;
    Distribution service_ms;
    double load_per_inflight; /* service time multiplier grows by this per message in flight */
    double load_per_queued;
    IdempotencySpec idempotency;
    CrashSpec crash;
    bool inbox;          /* the message's key row commits with its effect */
    double heartbeat_ms; /* visibility-timeout family: a running handler extends its
                            delivery's ack timeout this often (0: never) */
    bool use_gateway;    /* debits charge through the gateway: an external effect, which an
                            inbox cannot roll back */
    CallSpec call;       /* that charge's retry, key and timeout (services form) */
    /* What the call step calls: the gateway; or a server, whose answer counts as the charge's
     * (a ledger service): the first server (calls_first_server), or call_server k > 0,
     * called_servers[k - 1] */
    bool calls_first_server;
    uint32_t call_server;
    uint32_t call_gateway; /* a charge's gateway, as ServerSpec.call_gateway */
    UndoSpec undo;         /* the charge's refund when the fulfil step fails (services form) */
    FulfilSpec fulfil;     /* the order's own work after the charge: shipping (services form) */
    /* Its effect step is "email" (a group after the first, services form): for each message
     * it sends the operation's confirmation email, a receipt, instead of applying the
     * operation's effect: the mailers beside the chargers that an exchange feeds both */
    bool sends_email;
    /* C36: the chance a handler run fails before its effect, and after it (the effect is
     * applied, then writing its result fails); the framework nacks the delivery */
    double fail_before_effect;
    double fail_after_effect;
    /* what the dead-letter queue's consumer does with each dead letter (C36) */
    DeadLetterHandling dead_letters;
    RetryableTopicSpec retryable_topic; /* log only */
    /* log only: how long the group coordinator waits for a crashed instance's heartbeats
     * before it rebalances (Kafka's session.timeout.ms); 0: it notices at once */
    double session_timeout_ms;
    /* The broker's queues it consumes, bit q for queues[q]: a group's `queues`, or the first
     * group's default, every queue no other group names */
    uint32_t queue_mask;
    uint32_t broker; /* the broker it consumes: 0 the first (Scenario.broker), 1 the second */
} ConsumerSpec;

#define CONSUMER_ALL_QUEUES UINT32_MAX

/* A consumer group after the first in `services` (services form): another service taking
 * the queues its `queues` names from the one broker, such as mailers sending receipts beside
 * the chargers taking orders. Its steps are its own: a local effect, a call (with its undo
 * and fulfil step), or the order's confirmation email (sends_email). Queue families only. */
#define CONSUMER_GROUPS_EXTRA_MAX 3

typedef struct {
    char id[NAME_LEN_MAX];
    ConsumerSpec spec;
    uint8_t entry;       /* its entry in `services`, plus one */
    uint8_t store_entry; /* its key store's entry in `services`, plus one */
} ExtraConsumersSpec;

#define QUEUES_MAX 8
#define EXCHANGES_MAX 4

/* A fanout exchange (RabbitMQ's fanout exchange, an SNS topic with SQS queues subscribed): a
 * publish to it puts one copy of the message in each of its queues, and each copy is
 * delivered, acknowledged, redelivered and deduplicated by its own queue's rules and taken by
 * that queue's consumer group. Queue families only. */
typedef struct {
    char name[NAME_LEN_MAX];
    uint32_t queue_mask; /* bit q: broker.queues[q] */
} ExchangeSpec;

/* One named queue's delivery rules. Each field is the queue's own in the file, or else the
 * broker's (the broker-level fields are every queue's defaults). */
typedef struct {
    char name[NAME_LEN_MAX];
    double ack_timeout_ms;
    uint32_t max_deliveries; /* 0: unlimited */
    bool dead_letter;
    uint32_t prefetch; /* per consumer worker, for this queue */
    LateAck late_ack;
    double dedup_window_ms; /* 0: no publisher dedup */
    double redelivery_delay_ms;
    double redrive_after_ms; /* dead letters go back to the queue this much later; 0: never */
} QueueSpec;

typedef struct {
    /* The defaults of every queue, as the file gives them at broker level. */
    double ack_timeout_ms;
    uint32_t max_deliveries; /* 0: unlimited */
    bool dead_letter;
    uint32_t prefetch;
    LateAck late_ack;
    double dedup_window_ms; /* 0: no publisher dedup */
    double redelivery_delay_ms;
    double redrive_after_ms;
    BrokerFamily family;        /* how unacknowledged messages come back */
    double consumer_timeout_ms; /* channel: an unacked delivery this old closes the channel */
    uint32_t partitions;        /* log: a client's records go to partition client % partitions */
    CommitPolicy commit;        /* log, retrying modes; at-most-once always commits before */
    double commit_interval_ms;  /* log: 0 commits at each record, else every interval */
    double rebalance_every_ms;  /* log: 0 never, else at every multiple up to duration_ms */
    bool idempotent_producer;   /* log: a second copy of one send is dropped (not a re-publish) */
    /* log, C37: the consumers' output and their offsets commit in one producer transaction
     * (Kafka's exactly-once); isolation is how the output's readers treat an aborted one */
    bool transactional;
    IsolationLevel isolation;
    /* Resolved: `queues` as listed, or one queue named "main" with the defaults. */
    uint32_t queue_count;
    QueueSpec queues[QUEUES_MAX];
    uint32_t exchange_count;
    ExchangeSpec exchanges[EXCHANGES_MAX];
    ConsumerSpec consumers; /* the first consumer group: every queue no other group names */
} BrokerSpec;

/* A broker after the first in `services` (services form), of any family: the RabbitMQ a
 * checkout publishes its receipts to beside the Kafka its app's orders go through, or a second
 * topic. Its consumer groups come after the first broker's in `services`, and its own
 * `consumers` object is unused (its groups are consumers entries). */
#define BROKERS_EXTRA_MAX 1

typedef struct {
    char id[NAME_LEN_MAX];
    BrokerSpec spec;
    uint8_t entry; /* its entry in `services`, plus one */
} ExtraBrokerSpec;

/* ------------------------------------------------------------------ expectations */

typedef struct {
    Mode mode;
    char metric[NAME_LEN_MAX]; /* a report metric name, outcome names included */
    bool per_group;            /* "METRIC@GROUP": the metric of one client group */
    uint32_t group;            /* its index, with per_group */
    /* "METRIC@SERVICE": a service's id, or one instance's name ("checkout#2"); "" when the
     * expectation is not about one service */
    char service[NAME_LEN_MAX + 16];
    double min;
    double max;
} Expectation;

/* ------------------------------------------------------------------ questions */

/* A predict-and-vote question for the classroom (`idemsim view --predict`): at at_ms the
 * view stops, asks, and hides the reveal metrics until a key press. Questions never reach
 * the model: a run is the same with or without them. */
typedef struct {
    double at_ms;       /* in [0, duration_ms], strictly increasing from one question to the next */
    bool has_answer_at; /* answer_at_ms given; else the next question's at_ms, or the end */
    double answer_at_ms; /* when the answer is known: the reveal's figures are the run's then,
                            in [at_ms, duration_ms] */
    char ask[QUESTION_ASK_LEN_MAX];
    uint32_t reveal_count;
    uint16_t reveal[QUESTION_REVEAL_MAX]; /* indices into scenario_metric_names */
} Question;

/* ------------------------------------------------------------------ forced faults */

/* A fault is one decision a run would otherwise draw at random (docs/explore.md). A scenario
 * with a `faults` list (even an empty one) runs without random faults: each decision takes
 * its no-fault outcome unless the list forces it. `idemsim explore` writes such lists. */
typedef enum {
    FAULT_LOSS,                /* a copy of a message is lost on its link */
    FAULT_DUPLICATE,           /* the network sends a second copy */
    FAULT_DELAY,               /* a copy arrives by_ms later than drawn */
    FAULT_DOUBLE_CLICK,        /* the user clicks a second time */
    FAULT_OFFLINE,             /* the app loses the network right after sending */
    FAULT_APP_RESTART,         /* the app restarts (and forgets what it did not persist) */
    FAULT_CRASH,               /* the server crashes at its crash point */
    FAULT_FAIL_BEFORE_EFFECT,  /* the handler fails before its side effect */
    FAULT_FAIL_AFTER_EFFECT,   /* the handler fails after its side effect */
    FAULT_CONSUMER_CRASH,      /* a consumer crashes while it handles a delivery */
    FAULT_GATEWAY_DECLINE,     /* the gateway declines the charge (402) */
    FAULT_GATEWAY_SILENT,      /* the gateway charges and never answers */
    FAULT_FULFIL_FAIL,         /* the order's fulfil step fails (out of stock) */
    FAULT_STALE_CONNECTION,    /* a request's kept-alive connection was closed as it arrived */
    FAULT_CLOSE_BEFORE_ANSWER, /* its connection closes after the handler, before the answer */
    FAULT_SECOND_FIRING,       /* a scheduler's second instance fires the period too (C34) */
    FAULT_CAPTURE_LOST,        /* a capture's answer is lost: captured, the caller not told */
    FAULT_PROXY_CRASH,         /* a proxy crashes at its crash point, with a request in hand */
    FAULT_KIND_COUNT
} FaultKind;

/* The hop a message travels, as traces say it (the model's Hop, in the same order). */
typedef enum {
    FAULT_HOP_REQUEST,
    FAULT_HOP_RESPONSE,
    FAULT_HOP_CHARGE,
    FAULT_HOP_CHARGE_REPLY,
    FAULT_HOP_DELIVERY,
    FAULT_HOP_ACK,
    FAULT_HOP_STATUS_QUERY,
    FAULT_HOP_STATUS_ANSWER,
    FAULT_HOP_REFUND,
    FAULT_HOP_REFUND_REPLY,
    FAULT_HOP_COUNT
} FaultHop;

/* Which decision: the identity its draw is named by. Fields a kind does not use are 0. */
typedef struct {
    FaultKind kind;
    uint64_t operation;
    uint32_t click;
    uint32_t attempt;
    FaultHop hop;     /* network and gateway faults */
    uint32_t gateway; /* gateway faults: 0 the first gateway, g > 0 extra_gateways[g - 1] */
    uint64_t copy;    /* the copy path (lineage) of the message */
    double by_ms;     /* delay: how much later than drawn */
} FaultSpec;

/* ------------------------------------------------------------------ the scenario */

typedef struct {
    char id[NAME_LEN_MAX];
    int64_t balance; /* minor units */
} AccountSpec;

typedef struct {
    char name[NAME_LEN_MAX];
    char title[TITLE_LEN_MAX];
    char description[DESCRIPTION_LEN_MAX];
    uint64_t seed;
    double duration_ms; /* no operation starts after this */
    uint32_t mode_count;
    Mode modes[MODES_MAX];
    uint32_t account_count;
    AccountSpec accounts[ACCOUNTS_MAX];
    uint32_t client_group_count;
    ClientGroupSpec client_groups[CLIENT_GROUPS_MAX];
    NetworkSpec network;
    ServerSpec server; /* the one the client groups (or the proxy) call */
    uint32_t called_server_count;
    CalledServerSpec called_servers[CALLED_SERVERS_MAX];
    GatewaySpec gateway; /* the first gateway */
    uint32_t extra_gateway_count;
    ExtraGatewaySpec extra_gateways[GATEWAYS_EXTRA_MAX];
    ProxySpec proxy; /* the first proxy: used when a client group goes "via": "proxy" */
    uint32_t extra_proxy_count;
    ExtraProxySpec extra_proxies[PROXIES_EXTRA_MAX];
    BrokerSpec broker; /* the first broker */
    uint32_t extra_broker_count;
    ExtraBrokerSpec extra_brokers[BROKERS_EXTRA_MAX];
    uint32_t extra_consumer_count; /* consumer groups after broker.consumers */
    ExtraConsumersSpec extra_consumers[CONSUMER_GROUPS_EXTRA_MAX];
    /* Each service node's name, by NodeKind (the client-group slot is unused): a `services`
     * entry's id, else the kind's own name ("server", "gateway", ...). Links, traces and
     * lanes name the node so. */
    char service_ids[NODE_KIND_COUNT][NAME_LEN_MAX];
    /* The services form: each kind's entry in `services`, and the entries of the server's
     * and the consumers' key stores, plus one (0: none; all 0 in the older form). Paths
     * into the older objects are said as the file wrote them (scenario_services_path). */
    uint8_t service_entry[NODE_KIND_COUNT];
    uint8_t store_entry[2];
    uint32_t expectation_count;
    Expectation expectations[EXPECTATIONS_MAX];
    uint32_t question_count;
    Question questions[QUESTIONS_MAX];
    bool faults_forced; /* a `faults` list was given: no random faults */
    uint32_t fault_count;
    FaultSpec faults[FAULTS_MAX];
} Scenario;

/* ------------------------------------------------------------------ loading */

#define LOAD_ERRORS_MAX 64
#define JSON_PATH_LEN_MAX 96

#define SET_QUOTE_LEN_MAX 64

typedef struct {
    char path[JSON_PATH_LEN_MAX];     /* "$.clients[2].retry.timeout_ms", or "" for the file */
    char message[160];                /* "expected integer >= 1 (got -5)" */
    char from_set[SET_QUOTE_LEN_MAX]; /* the --set whose path this one lies on, or "" */
} LoadError;

typedef struct {
    uint32_t count;
    bool truncated; /* more than LOAD_ERRORS_MAX were found */
    LoadError items[LOAD_ERRORS_MAX];
} LoadErrors;

/* Bounds what a parse tree may take while a file is read to bytes, when that is below the
 * loader's own 256 MiB: the command line passes its memory budget (--max-memory), since the
 * tree exists only during the load, before any world runs. Set it before loading. */
void scenario_load_limit_memory(uint64_t bytes);

/* Parses, applies the --set overrides ("a.b[0].c=VALUE"; VALUE is JSON, or a bare string),
 * validates and resolves defaults. Returns true and fills *scenario when there was no error;
 * otherwise fills *errors with every error found. The Scenario is large: allocate it. */
bool scenario_load_file(const char *file_path, const char *const *overrides,
                        uint32_t override_count, Scenario *scenario, LoadErrors *errors);
bool scenario_load_text(const char *text, size_t length, const char *const *overrides,
                        uint32_t override_count, Scenario *scenario, LoadErrors *errors);

/* Names used in files, reports and the command line. */
/* True when a client group goes "via": "proxy": the world then holds a proxy node. */
bool scenario_uses_proxy(const Scenario *scenario);
/* Whether a call to the gateway (the server's or the consumers') retries on its own. */
/* A metric of a client group, METRIC@GROUP: METRIC (its first length characters) is one of
 * the outcomes or their money. */
bool scenario_is_group_metric(const char *name, size_t length);
/* A metric name an expect block, `check` or a sweep may use: a name of scenario_metric_names,
 * METRIC@GROUP or METRIC@SERVICE (whether the group or service exists is the scenario's:
 * scenario_metric_group, scenario_service_name_known). */
bool scenario_metric_known(const char *name);
/* The metrics a client group has of its own, METRIC@GROUP: its outcomes and their money. */
extern const char *const scenario_group_metric_names[];
extern const unsigned scenario_group_metric_count;
/* The metrics a service has of its own, METRIC@SERVICE (metrics.h, ServiceMetrics). */
extern const char *const scenario_service_metric_names[];
extern const unsigned scenario_service_metric_count;
bool scenario_is_service_metric(const char *name, size_t length);
/* The client group a METRIC@GROUP name names in scenario, or -1 (none, or no "@"). */
int scenario_metric_group(const Scenario *scenario, const char *name);
/* A gateway that charges for someone may decline (fail > 0): the declined outcome exists. */
bool scenario_can_decline(const Scenario *scenario);
/* A server's steps fulfil the order after its charge (a saga): refunds and their outcome. */
bool scenario_uses_saga(const Scenario *scenario);
bool scenario_call_retries(const Scenario *scenario);
/* True when a client group's set-status writes one record per client (C23). */
bool scenario_uses_status_records(const Scenario *scenario);
/* A debit writes its balance other than atomically (operation.update): C29's rows. */
bool scenario_uses_balance_updates(const Scenario *scenario);
/* Connections close before an answer, or a group's library retries (C32): its rows. */
bool scenario_uses_connection_closes(const Scenario *scenario);
/* A group fulfils another's orders (clients[].same_orders_as, C33). */
bool scenario_uses_same_orders(const Scenario *scenario);
/* A key store crashes on its own (C38): the server's, or a consumer group's: its rows. */
bool scenario_uses_store_crash(const Scenario *scenario);
/* Consumers' handlers may fail, or a dead-letter consumer reviews (C36): their rows. */
bool scenario_uses_failing_consumers(const Scenario *scenario);
/* The index of the group whose orders group's are: its own unless it says same_orders_as. */
uint32_t scenario_orders_group(const Scenario *scenario, uint32_t group);
/* The gateway authorises, and the server captures (gateway.capture manual, C35). */
bool scenario_uses_manual_capture(const Scenario *scenario);
/* A group is a scheduler with two instances (clients[].schedule.instances 2, C34). */
bool scenario_uses_schedule(const Scenario *scenario);
/* The requests carry a deadline (server.deadline other than 'none'): C31's rows. */
bool scenario_uses_deadlines(const Scenario *scenario);
/* True when the scenario bounds the server's queue, scripts an outage of any server, or gives a
 * group a retry budget or Retry-After: the reports then show the retry-storm numbers. */
bool scenario_uses_storm(const Scenario *scenario);
/* Some server scripts an outage: the clients' server, or a called one. */
bool scenario_any_server_outage(const Scenario *scenario);

/* Gateway g: 0 the first (Scenario.gateway), g > 0 extra_gateways[g - 1]; and its id. */
const GatewaySpec *scenario_gateway(const Scenario *scenario, uint32_t g);
const char *scenario_gateway_id(const Scenario *scenario, uint32_t g);
/* Proxy p: 0 the first (Scenario.proxy), p > 0 extra_proxies[p - 1]; and its id. */
const ProxySpec *scenario_proxy(const Scenario *scenario, uint32_t p);
const char *scenario_proxy_id(const Scenario *scenario, uint32_t p);
/* Broker b: 0 the first (Scenario.broker), b > 0 extra_brokers[b - 1]; and its id. */
const BrokerSpec *scenario_broker(const Scenario *scenario, uint32_t b);
const char *scenario_broker_id(const Scenario *scenario, uint32_t b);
/* Every broker's queues, counted the first broker's first (the order of Metrics.queues). */
uint32_t scenario_queue_total(const Scenario *scenario);
/* Queue k of that order's name in reports: the queue's own with one broker, "<broker>/<queue>"
 * with two (each broker may have a "main"). */
void scenario_queue_label(const Scenario *scenario, uint32_t k, char *label, size_t size);
/* Whether a broker is a log (Kafka): its offsets and rebalances are reported. */
bool scenario_uses_log(const Scenario *scenario);
/* Whether a log broker is transactional (C37): its aborted transactions are reported. */
bool scenario_uses_log_transactions(const Scenario *scenario);
/* Whether a client group publishes to broker b, or the server's publish step names it. */
bool scenario_broker_published_to(const Scenario *scenario, uint32_t b);
/* Whether the server publishes to the broker: receipts of its charges, or its orders. */
bool scenario_server_publishes(const ServerSpec *server);
/* Whether the server keeps an outbox: a charge relayed, reconciliation, or events published
 * through it. */
bool scenario_server_has_outbox(const ServerSpec *server);
/* Whether operations may have receipts (confirmation emails): the server publishes them, or a
 * consumer group's step emails. */
bool scenario_sends_receipts(const Scenario *scenario);
/* Whether each operation of a client group is meant to have a receipt: a payment where the
 * server publishes receipts, or any operation whose messages reach a consumer group whose
 * step emails. The receipts rows (missing, duplicated, ...) count those operations only. */
bool scenario_group_expects_receipts(const Scenario *scenario, const ClientGroupSpec *group);
/* Whether a client group goes through proxy p. */
bool scenario_proxy_used(const Scenario *scenario, uint32_t p);
/* Whether a proxy some group goes through retries (retries > 0), or drops the key. */
bool scenario_proxies_retry(const Scenario *scenario);
bool scenario_proxies_drop_key(const Scenario *scenario);

/* The id of the service a call step names: a server's (a called server or a gateway), or a
 * consumer group's (the first server, a called server, or a gateway). */
const char *scenario_call_target_id(const Scenario *scenario, const ServerSpec *server);
const char *scenario_group_call_target_id(const Scenario *scenario, const ConsumerSpec *group);
/* Whether any consumer group has a call step (a charge at a gateway, or a call to a server). */
bool scenario_groups_call(const Scenario *scenario);

/* The name of the service node of kind (not NODE_CLIENT_GROUP). */
const char *scenario_service_id(const Scenario *scenario, NodeKind kind);
/* A key store's id: its own (`services` form), or in the older form "<owner>-keys". */
void scenario_key_store_id(const Scenario *scenario, const IdempotencySpec *store, NodeKind owner,
                           char id[NAME_LEN_MAX]);
/* Whose key store called server `called` names, when it is another server's too (several
 * servers may share one store entry: one store, one set of rows): 0, the clients' server's;
 * k > 0, called server k - 1's, an earlier one; -1, a store of its own. */
int scenario_called_store_shared_with(const Scenario *scenario, uint32_t called);
/* Whether server k's key store (0 the clients' server's, k > 0 called_servers[k - 1]'s)
 * keeps its rows when that server crashes: durable, a process of its own (C38), or shared
 * (by the server's instances, or by several servers): a crash wipes only a store the crashed
 * process owns alone (server.c). */
bool scenario_server_store_outlives_crash(const Scenario *scenario, uint32_t k);
/* A balancer sends a request on past a down instance (balancer_retry): the first server's,
 * or a called server's that runs several instances. */
bool scenario_uses_balancer_retry(const Scenario *scenario);
/* A proxy some client group goes through whose process may crash (ProxySpec.crash). */
bool scenario_uses_proxy_crash(const Scenario *scenario);
/* Whether the consumer group keeps its keys in the first server's store (services form: its
 * key_store names the store the first server names). */
bool scenario_consumers_share_server_store(const Scenario *scenario);
/* The first consumer group's instances (1 unless it runs several); any group's. */
uint32_t scenario_consumer_instances(const Scenario *scenario);
uint32_t scenario_group_instances(const ConsumerSpec *group);
/* Whether the first consumer group's key store keeps its rows when one of its instances
 * crashes: durable, a store that crashes on its own (a process of its own, C38), one store its
 * instances share (a database or a cache they all consult,
 * which no instance owns), or the first server's; an instance's own store, in its memory, is
 * wiped by its crash. The same for any group (which shares no server's store). */
bool scenario_consumers_store_outlives_crash(const Scenario *scenario);
bool scenario_group_store_outlives_crash(const Scenario *scenario, const ConsumerSpec *group);
/* Consumer group g: 0 the first (broker.consumers), g > 0 extra_consumers[g - 1]. */
const ConsumerSpec *scenario_consumer_group(const Scenario *scenario, uint32_t g);
/* The consumer group that takes broker b's queue q; on a log, the first (every group reads
 * every record, and the later ones only email the confirmation). */
const ConsumerSpec *scenario_group_of_queue(const Scenario *scenario, uint32_t b, uint32_t q);
/* The queues of its broker a client group that publishes reaches: its queue, or each of its
 * exchange's. */
uint32_t scenario_queues_reached(const Scenario *scenario, const ClientGroupSpec *group);
/* The consumer group that applies a publishing client group's operations: of the groups its
 * queues reach, the first (by queue) that does not only email. */
const ConsumerSpec *scenario_group_applying(const Scenario *scenario, const ClientGroupSpec *group);

#define NODE_NAME_LEN_MAX (NAME_LEN_MAX + 16)
/* The name of instance n (1-based) of a service that runs several: "checkout#2". */
void scenario_instance_name(char name[NODE_NAME_LEN_MAX], const char *service, unsigned n);

/* One service node of a run: the world builds its node table from these (world.h), and
 * METRIC@SERVICE names them, so both read one list. */
typedef struct {
    NodeKind kind;
    char name[NODE_NAME_LEN_MAX]; /* its service's id, or an instance's "<id>#<n>" */
    char service[NAME_LEN_MAX];   /* its service's id (the same for its instances) */
    /* Which service of its kind: servers, 0 the clients' server, k called_servers[k - 1];
     * gateways and proxies, 0 the first, k > 0 the extra ones' [k - 1]; else 0 */
    uint32_t number;
    uint32_t instance;       /* servers, consumers: which of its service's instances, from 0 */
    uint32_t instance_count; /* servers, consumers: its service's instances (else 1) */
} ScenarioNode;
/* The most service nodes a run has: each kind once, every server's further instances, a key
 * store of its own, the called servers, the gateways and proxies after the first, the
 * consumer groups' further instances, and each consumer group's key store of its own. */
#define SCENARIO_NODES_MAX                                                                         \
    (NODE_KIND_COUNT + SERVER_INSTANCES_EXTRA_MAX + CALLED_SERVERS_MAX + GATEWAYS_EXTRA_MAX +      \
     PROXIES_EXTRA_MAX + CONSUMER_INSTANCES_MAX - 1 +                                              \
     CONSUMER_GROUPS_EXTRA_MAX * CONSUMER_INSTANCES_MAX + 1 + CONSUMER_GROUPS_EXTRA_MAX +          \
     PROXY_INSTANCES_EXTRA_MAX + BROKERS_EXTRA_MAX)
/* The service nodes a run of scenario has, in node order after the client groups: server,
 * gateway, broker, consumers, the proxy when a group goes through it (each kind in
 * scenario_names_service's order, some only when reached), the first server's instances
 * 2..n, a key store that crashes on its own (C38), the called servers, then the called
 * servers' instances 2..n, then the gateways after the first, then the proxies after the
 * first, then the consumer group's instances 2..n, then the later consumer groups' instances,
 * then each consumer group's key store that crashes on its own, then the proxies' instances
 * 2..n, then the second broker. A node's id, and so its links'
 * draws, never moves when a later one is added. With several instances a service's node is instance
 * 1: "<id>#1". Returns how many (at most SCENARIO_NODES_MAX). */
unsigned scenario_service_nodes(const Scenario *scenario, ScenarioNode nodes[SCENARIO_NODES_MAX]);
/* Their names alone; names past capacity are not written. */
unsigned scenario_service_node_names(const Scenario *scenario, char names[][NODE_NAME_LEN_MAX],
                                     unsigned capacity);
/* A name METRIC@SERVICE may give: a service node's name, or a service's id (its instances'
 * sum). */
bool scenario_service_name_known(const Scenario *scenario, const char *name);
/* A path into an older object ("$.server.idempotency.durable") as a file of the services
 * form names it ("$.services[1].durable"), rewritten in place; unchanged in the older form. */
void scenario_services_path(const Scenario *scenario, char *path, size_t size);

/* The effective scenario in the services form, every default written out, as JSON text
 * (malloc'd, ending in a newline; NULL when memory runs out). Loading that text gives a
 * scenario whose runs are byte-identical to this one's. */
char *scenario_show(const Scenario *scenario);

const char *mode_name(Mode mode);
bool mode_from_name(const char *name, Mode *mode);
const char *operation_kind_name(OperationKind kind);
const char *key_strategy_name(KeyStrategy key);
const char *store_profile_name(StoreProfile profile);
const char *fault_kind_name(FaultKind kind);
const char *fault_hop_name(FaultHop hop);
/* A service node's kind as `services` names it ("server", "key_store"). */
const char *service_kind_name(NodeKind kind);

/* The report metric names an `expect` block may use (DESIGN §5), outcome names included. */
extern const char *const scenario_metric_names[];
extern const unsigned scenario_metric_count;

/* Bounds every loaded scenario satisfies, so converting a value cannot overflow. */
#define SCENARIO_MS_MAX 1e12                    /* any time or duration in ms (~31.7 years) */
#define SCENARIO_INTEGER_MAX 9007199254740992.0 /* 2^53, the integers JSON numbers hold */
#define SCENARIO_MONEY_MAX (1ull << 62)         /* every debit once, summed: see WORLD_MONEY_MAX */

/* ------------------------------------------------------------------ error lines */

/* "FILE: PATH: MESSAGE", or "FILE: MESSAGE" when the path is empty; file_path NULL or ""
 * leaves out "FILE: "; " (from --set PATH=VALUE)" follows when a --set touched the path.
 * Returns what snprintf returns. */
int scenario_format_error(char *buffer, size_t size, const char *file_path, const LoadError *error);
/* One line per error, and "FILE: ... and more errors (only the first 64 are shown)" when
 * errors->truncated. */
void scenario_print_errors(FILE *stream, const char *file_path, const LoadErrors *errors);

/* ------------------------------------------------------------------ format reference */

/* Every key the loader knows, by the object it belongs to as docs/scenario-format.md titles
 * it: "$" (the top level), "clients[].retry", "<distribution>", ... A test keeps the format
 * reference in step with this list. Fills up to capacity; returns the total. */
typedef struct {
    const char *object;
    const char *key;
} ScenarioField;

unsigned scenario_known_fields(ScenarioField *fields, unsigned capacity);

#endif
