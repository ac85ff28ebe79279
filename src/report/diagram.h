/* The sequence-diagram model shared by the SVG handout and the SDL view: lanes, message
 * copies, activation boxes and marks, built from typed trace records as a run goes on, and
 * the words and tones they are drawn with. It knows no pixels and no SDL; each renderer
 * places and paints what it holds. The diagram owns its items; a caller decides which records
 * to feed (the SVG: a few operations; the view: a sample of clients).
 *
 * Invariant: an item's lanes exist for as long as the diagram does (lanes are only added),
 * and a copy's arrow is closed by the one "deliver" that matches it in operation, click,
 * attempt, copy lineage, message kind and both ends. */
#ifndef IDEMSIM_DIAGRAM_H
#define IDEMSIM_DIAGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "scenario.h"
#include "sim_time.h"
#include "trace.h"

#define DIAGRAM_LANES_MAX 32
#define DIAGRAM_LANE_NAME_MAX 64
#define DIAGRAM_NO_LANE (-1)
#define DIAGRAM_NO_EVENT TRACE_EVENT_COUNT /* an item whose decision is not known (yet) */
#define DIAGRAM_FOLLOWED_MAX 32            /* operations whose outcome a diagram follows */

typedef struct Diagram Diagram; /* opaque */

/* ------------------------------------------------------------------ lanes */

/* A lifeline: a client of a group, a service node, or the ledger, where the drawing shows
 * what changed (a drawing concept, not a node of the world). */
typedef struct {
    NodeKind kind;
    bool ledger;
    uint32_t node;   /* the world node id; TRACE_NO_NODE for the ledger */
    uint32_t client; /* a client lane: the client's index in its group; else TRACE_NO_CLIENT */
    uint32_t order;  /* left to right among lanes of the same side (clients, services) */
    char name[DIAGRAM_LANE_NAME_MAX];      /* "web[3]", a service's node name, "ledger" */
    char node_name[DIAGRAM_LANE_NAME_MAX]; /* the node's name: a client's group id */
} DiagramLane;

/* ------------------------------------------------------------------ items */

typedef enum {
    DIAGRAM_MESSAGE,    /* one copy of a message between two lanes */
    DIAGRAM_ACTIVATION, /* a service holding a request: from its arrival to its answer */
    DIAGRAM_MARK,       /* an event on one lane (a click, a decision, a timeout, a crash) */
    DIAGRAM_SPAN        /* a window of time on one lane (DiagramSpanKind in detail); only once
                           diagram_set_windows was called. It has no row of its own: start_row is
                           the row of the record that opened it, end_us may be a computed instant
                           no record marks (SIM_TIME_NEVER: open at the end of what was fed). A
                           renderer that does not draw spans skips items of this kind. */
} DiagramItemKind;

/* What a span shows (DiagramItem.detail of a DIAGRAM_SPAN). value holds its length in ms
 * (the TTL, the ack timeout, the dedup window), 0 when it has none. */
typedef enum {
    DIAGRAM_SPAN_KEY_RESERVED, /* a key reserved, from its reservation to the job's answer */
    DIAGRAM_SPAN_KEY_STORED,   /* a completed key, from the answer to its expiry (its TTL) */
    DIAGRAM_SPAN_ACK_TIMER,    /* a broker delivery, from its send to its ack deadline */
    DIAGRAM_SPAN_DEDUP_WINDOW  /* a published message id, from its acceptance to its window end */
} DiagramSpanKind;

typedef struct {
    uint64_t serial; /* unique within the diagram, from 1 */
    uint64_t operation;
    SimTimeUs start_us;
    SimTimeUs end_us;   /* delivered, decided or answered; SIM_TIME_NEVER while open */
    uint32_t start_row; /* the rows (diagram_row) of its records; UINT32_MAX: none */
    uint32_t end_row;
    uint32_t click;
    uint32_t attempt;
    uint32_t copy;    /* network lineage, as the trace gives it */
    uint32_t detail;  /* a mark's record detail (TraceRecord.detail) */
    uint32_t effects; /* the operation's effects after the execution this led to */
    int8_t from;      /* lane; a mark's or an activation's lane */
    int8_t to;
    uint8_t kind;       /* DiagramItemKind */
    uint8_t message;    /* MessageKind */
    int64_t value;      /* a message's status; a mark's value */
    uint64_t key_owner; /* a key store's mark: the operation the key's row belongs to
                           (TraceRecord.key_owner), 0 when unknown */
    uint8_t event;      /* a mark's TraceEvent; the decision a copy or a box led to */
    uint8_t end_event;  /* TRACE_DELIVER, TRACE_LOST, the decision or crash that ended a box */
    bool duplicate;     /* a copy the network made */
    bool superseded;    /* a timeout mark the give-up at the same instant says better */
    uint8_t queue;      /* a broker mark's queue plus one, where the broker has several
                           (diagram_set_broker_rules); 0: none */
    /* an ack timer's place beside its lane among the timers: 0, or the lowest place that no
     * timer of the same operation on that lane still open at its start holds (a fanout
     * exchange's copies of one publish each wait out an ack timer from the same instant);
     * timers of different operations, and other spans, share place 0. At most
     * DIAGRAM_SPAN_SLOTS - 1. */
    uint8_t slot;
} DiagramItem;
#define DIAGRAM_SPAN_SLOTS 4

/* One kept record, in the order they came: where an item starts or ends. */
typedef struct {
    SimTimeUs t_us;
    uint64_t item; /* serial */
    uint8_t event; /* the record's TraceEvent */
    int8_t lane;   /* the record's actor */
} DiagramRow;

/* What the trace says about an operation the diagram follows, fed every record of it: its
 * clicks, attempts and effects, what its client was told, and the outcome the model gave it
 * in its "settled" record (the model's verdict, not one recomputed here). */
typedef struct {
    uint64_t operation;
    uint32_t clicks;
    uint32_t attempts;
    uint32_t effects;
    uint32_t refunds; /* charges given back (a saga's undo); not taken off effects */
    bool told_success;
    bool told_failure;
    bool settled;
    Outcome outcome; /* once settled */
} DiagramOutcome;

/* ------------------------------------------------------------------ building */

/* items_max: the newest items kept (a ring; older ones are forgotten). rows_max: remember up
 * to that many records' rows, for a renderer that gives each its own row (the SVG); past it
 * the diagram is truncated: no more rows nor items, though followed outcomes still count.
 * 0: no rows. NULL when out of memory. */
Diagram *diagram_create(Mode mode, uint32_t items_max, uint32_t rows_max);
void diagram_destroy(Diagram *diagram); /* NULL is a no-op */

/* Adds a lane; returns its index, or DIAGRAM_NO_LANE when full. Lanes are listed clients first,
 * then services, each by order, the ledger last (diagram_lane_at). */
int diagram_add_lane(Diagram *diagram, NodeKind kind, uint32_t node, uint32_t client,
                     const char *node_name, uint32_t order);
/* The ledger lane, added once. */
int diagram_add_ledger(Diagram *diagram);
/* With open lanes, a record's unknown actor or peer gets a lane on first sight, in the order
 * of appearance, and the ledger appears with the first effect. */
void diagram_open_lanes(Diagram *diagram, bool open);

/* A key store's windows, for the lanes of the service that keeps it (by the lanes' node names:
 * the service's id, or "<id>#<n>" for its instances). */
typedef struct {
    char id[NAME_LEN_MAX];
    double key_ttl_ms;
    bool ttl_from_completion;
    bool store_durable;
} DiagramStoreWindows;

#define DIAGRAM_BROKERS_MAX (1 + BROKERS_EXTRA_MAX)

/* The windows spans are drawn with: the scenario's parameters, in ms (0: none). */
typedef struct {
    double server_key_ttl_ms; /* 0: keys never expire (the stored span stays open) */
    bool server_ttl_from_completion;
    bool server_store_durable; /* a crash leaves a reservation in place (stuck) */
    double consumer_key_ttl_ms;
    bool consumer_ttl_from_completion;
    bool consumer_store_durable;
    /* each broker's, by its index (diagram_broker_of): 0 the first, 1 the second */
    double ack_timeout_ms[DIAGRAM_BROKERS_MAX];  /* 0: no ack timer (at-most-once acks on
                                                    delivery; a log has none) */
    double dedup_window_ms[DIAGRAM_BROKERS_MAX]; /* 0: no publisher dedup */
    /* the stores of the servers a server calls (Scenario.called_servers) and of the consumer
     * groups after the first (Scenario.extra_consumers), by their lanes' node names (their
     * ids) */
    uint32_t store_count;
    DiagramStoreWindows stores[CALLED_SERVERS_MAX + CONSUMER_GROUPS_EXTRA_MAX];
} DiagramWindows;

/* The windows a scenario sets for a mode: the key TTLs where the mode keys requests, each
 * broker's ack timer where it waits for acks, and its dedup window. */
DiagramWindows diagram_windows_of(const Scenario *scenario, Mode mode);
/* The scenario's broker rules, each broker's its own, that decide when a consumer's job ends
 * (a log's consumer keeps a record whose key is in progress), what ends an ack timer and which
 * queue a mark names. Without it, a diagram ends such a job there, and its broker lanes keep
 * their timers to their deadlines. The scenario must outlive the diagram. */
void diagram_set_broker_rules(Diagram *diagram, const Scenario *scenario);
/* The broker (0 the first, Scenario.broker; 1 the second, Scenario.extra_brokers[0]) whose
 * messages a node handles, by its kind and its name (a node's or a lane's: a service's id, or
 * an instance's "<id>#<n>"): a broker's own; a consumer group's, the one it consumes
 * (ConsumerSpec.broker); 0 for any other node. */
uint32_t diagram_broker_of(const Scenario *scenario, NodeKind kind, const char *name);
/* Whether broker b is a log whose records name the consumer group their copy is for: the
 * first broker's log read by several groups (its first group's records name none), or a
 * second broker's log (every group's records name it: broker_log.c). Marks and words then name
 * the group a record's copy is for. */
bool diagram_log_groups_several(const Scenario *scenario, uint32_t b);
/* Makes spans from now on, with these windows (copied). Without it, a diagram has none. */
void diagram_set_windows(Diagram *diagram, const DiagramWindows *windows);

/* Follows an operation's outcome from now on; false when DIAGRAM_FOLLOWED_MAX are followed. */
bool diagram_follow(Diagram *diagram, uint64_t operation);

/* Feeds one record. effects: the operation's effects so far, this record's included (an
 * "execute" that is the second effect makes a double); for an operation the diagram follows,
 * its own count. Records of other modes are ignored. */
void diagram_add(Diagram *diagram, const TraceRecord *record, uint32_t effects);

/* ------------------------------------------------------------------ reading */

Mode diagram_mode(const Diagram *diagram);
uint32_t diagram_lane_count(const Diagram *diagram);
const DiagramLane *diagram_lane(const Diagram *diagram, int lane); /* by index */
/* The lane at position (0: leftmost) in drawing order. */
int diagram_lane_at(const Diagram *diagram, uint32_t position);
int diagram_lane_of(const Diagram *diagram, uint32_t node, uint32_t client);
int diagram_ledger(const Diagram *diagram); /* DIAGRAM_NO_LANE when none */

uint64_t diagram_first_serial(const Diagram *diagram); /* the oldest item still held */
uint64_t diagram_next_serial(const Diagram *diagram);  /* one past the newest */
const DiagramItem *diagram_item(const Diagram *diagram, uint64_t serial); /* NULL: gone */
uint32_t diagram_row_count(const Diagram *diagram);
bool diagram_truncated(const Diagram *diagram); /* rows_max was reached */
/* The rows in reading order, into order[diagram_row_count()]: by time, and within an instant
 * each lane's rows together (lanes as they first appear), an arrival before the decision it
 * leads to before what is sent; causality between lanes is never reversed. */
void diagram_row_order(const Diagram *diagram, uint32_t *order);
/* NULL when the operation is not followed. */
const DiagramOutcome *diagram_outcome(const Diagram *diagram, uint64_t operation);
/* Whether the record is a crash or restart of a node that crashes on its own, outside any
 * operation (a key store, C38): the SVG and explain tell it where it falls among an
 * operation's records, and an outage the operation starts within first. */
bool diagram_crashes_alone(const TraceRecord *record);
/* Whether the record starts or ends a node's time down outside any operation: a crash alone
 * (above), a server's scripted outage (its crash record of no operation, detail none), or a
 * server's restart. Before an operation's story starts, the SVG and explain keep the last
 * such crash of each node until its restart, and tell it first if the story starts within. */
bool diagram_down_edge(const TraceRecord *record);

/* The nodes down before a story starts: the last crash of each, until its restart. */
#define DIAGRAM_OUTAGES_MAX 16
typedef struct {
    uint32_t count;
    TraceRecord since[DIAGRAM_OUTAGES_MAX];
} DiagramOutages;
/* Notes a down edge (diagram_down_edge): a crash keeps its node's record, a restart drops it. */
void diagram_outages_note(DiagramOutages *outages, const TraceRecord *record);
/* Whether the lane of the record's actor holds a job of a followed operation not settled
 * yet: an activation not ended, which a crash there would end (a consumer's delivery waiting
 * for its charge's answer, a server's request). */
bool diagram_holds_job(const Diagram *diagram, const TraceRecord *record);
const DiagramRow *diagram_row(const Diagram *diagram, uint32_t row);

/* Whether the key store store_id (its service id, as its node names it) keeps its keys
 * through its own crash (durable, C38): a crash that lost none then kept them; a store with
 * no persistence that lost none held none. A name no service keeps its keys in: true. */
bool diagram_store_durable(const Scenario *scenario, const char *store_id);
/* Whether the operations of client group `group` (an index of Scenario.client_groups) meet the
 * key store store_id (its service id, as its node and its records name it) on their way: the
 * clients' server's store where they call the server, a consumer group's where they reach a
 * queue it takes (published by the clients, or by the server: its receipts or orders), and,
 * where a server they reach is called on, its callee's. A key store that is a node of its own
 * (it crashes on its own, C38) says something in a drawing only where its users' operations
 * are drawn: its crash, its outage under way, its lane. */
bool diagram_group_meets_store(const Scenario *scenario, uint32_t group, const char *store_id);
/* Whether a node of the run's node table gets a lane where every lane is laid out before the
 * run (the view): a service the scenario sends work through (active, as the node table says);
 * a key store of its own besides only where a client group with clients meets it
 * (diagram_group_meets_store), not wherever some consumer group gets work. */
bool diagram_node_drawn(const Scenario *scenario, NodeKind kind, const char *name, bool active);

/* ------------------------------------------------------------------ words and tones */

/* What a word means, each renderer painting it in its palette. */
typedef enum {
    DIAGRAM_TONE_PLAIN,
    DIAGRAM_TONE_DIM,
    DIAGRAM_TONE_STORE, /* the key store decided */
    DIAGRAM_TONE_GOOD,
    DIAGRAM_TONE_WARN,
    DIAGRAM_TONE_BAD,
    DIAGRAM_TONE_WORK, /* a handler ran */
    DIAGRAM_TONE_CRASH,
    DIAGRAM_TONE_DOUBLE, /* an effect again */
    DIAGRAM_TONE_LOST
} DiagramTone;

/* How an order API (the first server, publishes_orders) hands its order to the broker: what
 * went out when its handler fails after its "effect". */
typedef enum {
    DIAGRAM_ORDER_API_NONE,   /* not an order API's lane */
    DIAGRAM_ORDER_API_DIRECT, /* published at once: a failure after it cannot take it back */
    DIAGRAM_ORDER_API_OUTBOX  /* written to the outbox with the commit, which a 500 never makes */
} DiagramOrderApi;

/* What the scenario says about an operation, and about the lane a mark is on
 * (diagram_lane_words), for words that depend on it. */
typedef struct {
    bool debit;                /* a payment (or unknown): "charges", "presses Pay" */
    bool scheduled;            /* a scheduler's job (C34): "fires", "2nd instance" */
    DiagramOrderApi order_api; /* the lane is an order API's: "fails after publishing the order" */
    /* the id of the gateway the lane's reconciliation asks, where the world has several:
     * "asked wallet"; NULL, the one gateway: "asked the gateway" */
    const char *reconciles_at;
    /* the queues of the lane's broker (diagram_broker_of), where it has several: a mark
     * names the one it is about ("queued in payments"); NULL: one queue, which a mark need
     * not name */
    const BrokerSpec *queues_of;
    /* a log's consumer groups, where the lane's broker is a log with several
     * (diagram_log_groups_several): each reads its own copy of a record, and a mark names
     * whose ("queued for mailers"); NULL: one group */
    const Scenario *log_groups_of;
    /* a key store's lane: its restart keeps its keys (durable), so a crash that lost none
     * kept them ("CRASH (keys kept)"); false: it lost none because it held none */
    bool store_durable;
} DiagramOperationWords;

/* operation's words with what the scenario says of lane: whether it is an order API's, and,
 * with several gateways, which one the first server's reconciliation asks. */
DiagramOperationWords diagram_lane_words(const Scenario *scenario, const DiagramLane *lane,
                                         DiagramOperationWords operation);
/* The long label of a mark (the SVG's badge): "key done → replay 200". operation: with the
 * words of the mark's lane (diagram_lane_words). */
DiagramTone diagram_mark_badge(const DiagramItem *mark, NodeKind kind,
                               DiagramOperationWords operation, char *label, size_t size);
/* The short word beside a service's lifeline (the view's): "replay", "charge x2"; NULL when
 * the mark says nothing worth a word. operation: with the words of the mark's lane
 * (diagram_lane_words), so an order API's failure says "500 after publish", not "charge". */
const char *diagram_mark_word(const DiagramItem *mark, DiagramOperationWords operation,
                              char *buffer, size_t size, DiagramTone *tone);
/* A copy's label in full: "request", "200 OK", "charge (network copy)". */
void diagram_message_label(const DiagramItem *message, char *label, size_t size);
/* What sets a copy apart, in a word: "retry #2", "2nd click" ("2nd instance" for a
 * scheduler's), "delivery #3", "try #2" (a proxy's own retry), "duplicate"; false when
 * nothing does. */
bool diagram_message_tag(const DiagramItem *message, NodeKind from_kind,
                         DiagramOperationWords operation, char *label, size_t size);
/* Which copy of a message a node sent again is: a broker's delivery, a proxy's try (1, 2,
 * ...); 0 for other messages. */
uint32_t diagram_repeat_number(const DiagramItem *message, NodeKind from_kind);
/* A span's short word: "key reserved", "key ttl 90 s", "ack timer 30 s", "dedup 5 min". */
void diagram_span_label(const DiagramItem *span, char *label, size_t size);
/* A lane's role under its name: "handler + key store", "payment provider"; in the idempotent
 * mode a server's or consumer group's lane says it keeps a key store, unless that store has a
 * lane of its own in the diagram (a store that crashes on its own, C38): then the lane says its
 * bare role ("handler", "workers") and the store's lane says "key store". scenario: to find a
 * service's store (NULL: every such lane says it keeps one). */
const char *diagram_lane_role(const Diagram *diagram, int lane, const Scenario *scenario);

#endif
