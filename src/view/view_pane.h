/* One pane of the view: the World of one mode plus what the view learns from its trace. The
 * pane owns its World and a TraceSink that turns records into arrows and marks of a
 * sequence diagram for a sample of clients (every message copy of their operations, on
 * every hop: clients, server, gateway, broker, consumers), a density of all clients'
 * traffic, and a narration line. Counters and balances are the world's own live metrics.
 * The pane only reads the world. SDL-free, so tests drive it without a display. */
#ifndef IDEMSIM_VIEW_PANE_H
#define IDEMSIM_VIEW_PANE_H

#include <stdbool.h>
#include <stdint.h>

#include "idem_store.h"
#include "metrics.h"
#include "scenario.h"
#include "sim_time.h"
#include "trace.h"
#include "world.h"

#define VIEW_LANES_MAX 8          /* sampled clients drawn as lanes of the sequence diagram */
#define VIEW_ARROWS_MAX 16384     /* ring of recent arrows, boxes and marks */
#define VIEW_DENSITY_BUCKETS 8192 /* ring of traffic counts of all clients */
#define VIEW_DENSITY_BUCKET_US 10000u
#define VIEW_KEY_ROWS_SHOWN 12

/* ------------------------------------------------------------------ trace events */

/* The view reads the model's TraceEvent; an arrow with no event (yet) says so. */
#define VIEW_EVENT_NONE TRACE_EVENT_COUNT

/* ------------------------------------------------------------------ nodes and arrows */

/* Lifelines: the sampled clients' lanes 0..VIEW_LANES_MAX-1, then the services. */
typedef enum {
    VIEW_NODE_SERVER = VIEW_LANES_MAX,
    VIEW_NODE_GATEWAY,
    VIEW_NODE_BROKER,
    VIEW_NODE_CONSUMERS,
    VIEW_NODE_LEDGER,
    VIEW_NODE_COUNT
} ViewNode;

typedef enum {
    VIEW_ARROW_MESSAGE,    /* one copy of a message between two lifelines */
    VIEW_ARROW_ACTIVATION, /* a node holding a request: from its arrival to its answer */
    VIEW_ARROW_MARK        /* an event on one lifeline (timeout, crash, redelivery...) */
} ViewArrowKind;

typedef struct {
    uint64_t serial; /* unique within the pane, for pinning a selection */
    uint64_t operation;
    SimTimeUs start_us;
    SimTimeUs end_us; /* delivered, decided or answered; SIM_TIME_NEVER while open */
    uint32_t attempt;
    uint32_t copy;    /* network lineage, as the trace gives it */
    int32_t value;    /* a status; a client request's click (1: the second); a mark's
                         count or duration (by event) */
    uint16_t effects; /* the operation's effects after the execution this led to */
    int8_t from;      /* ViewNode (or a lane); a mark's or activation's node */
    int8_t to;
    uint8_t kind;      /* ViewArrowKind */
    uint8_t message;   /* MessageKind */
    uint8_t event;     /* TraceEvent of the mark, or of the decision an arrow led to */
    uint8_t end_event; /* TRACE_DELIVER, _LOST, a decision, or _OTHER while open */
    bool duplicate;    /* a copy the network made */
} ViewArrow;

typedef struct {
    uint32_t group;
    uint32_t client_in_group;
} ViewLane;

typedef struct {
    SimTimeUs bucket; /* bucket index + 1; 0: empty */
    uint32_t sends;   /* requests of all clients, retries included */
    uint32_t retries;
    uint32_t lost;    /* message copies lost, any hop */
    uint32_t doubles; /* executions that had an effect again */
} ViewDensity;

/* ------------------------------------------------------------------ counters */

/* The world's live metrics, as the panels show them. The world counts an outcome once the
 * operation is settled (its client done, nothing in flight refers to it), which for a
 * broker's redelivery storm can be long after the second charge; a double is final at its
 * second effect, so the pane counts doubles (and their money) from the trace as they happen.
 * At the end both counts agree (a test checks it). */
typedef struct {
    uint64_t operations;
    uint64_t pending; /* started, not yet settled into an outcome */
    uint64_t outcomes[OUTCOME_COUNT];
    int64_t double_amount;
    int64_t lost_amount;
    uint32_t account_count;
    int64_t initial[ACCOUNTS_MAX];
    int64_t expected[ACCOUNTS_MAX];
    int64_t actual[ACCOUNTS_MAX];
    bool final; /* the world has finished: these are the report's numbers */
    bool done;  /* every operation has started and settled: the outcomes will not change,
                   though timers (key-store TTLs, sweeps) may still be pending */
} ViewTally;

/* ------------------------------------------------------------------ narration */

typedef struct {
    bool present;
    TraceEvent event;
    int node;        /* ViewNode of the actor, -1 for a client */
    uint8_t message; /* MessageKind of a lost copy */
    int rank;        /* 0 routine .. 3 double charge or key-store save */
    SimTimeUs t_us;
    uint64_t operation;
    uint32_t attempt;
    uint32_t group;
    uint32_t client_in_group;
    uint32_t effects; /* the operation's effects at that moment */
    int64_t value;
    uint32_t detail; /* the record's detail (a CrashPoint, the MessageKind lost offline) */
} ViewNarration;

/* ------------------------------------------------------------------ key store sample */

typedef struct {
    uint64_t rows;
    uint64_t processing, completed, failed;
    uint64_t expired; /* past their TTL, still held until a sweep frees them */
    SimTimeUs at_us;  /* world time of the sample */
    /* Two lists, each newest first, so a panel of a few rows can show some of each even
     * when more keys are processing than it has rows. */
    uint32_t processing_shown, settled_shown;
    KeyRow processing_rows[VIEW_KEY_ROWS_SHOWN]; /* still processing, within their TTL */
    KeyRow settled_rows[VIEW_KEY_ROWS_SHOWN];    /* completed, failed, or expired */
} ViewKeySample;

/* ------------------------------------------------------------------ the pane */

typedef struct {
    Mode mode;
    World *world;
    const Scenario *scenario; /* the world's copy */
    uint64_t seed;

    bool node_present[VIEW_NODE_COUNT];      /* services this scenario uses */
    int64_t group_amount[CLIENT_GROUPS_MAX]; /* debit per operation, 0 for other kinds */
    SimTimeUs delay_us[VIEW_NODE_COUNT][VIEW_NODE_COUNT]; /* typical one-way link delays */
    uint64_t clients_total;

    uint32_t lane_count;
    ViewLane lanes[VIEW_LANES_MAX];
    ViewArrow *arrows;            /* ring of VIEW_ARROWS_MAX */
    uint64_t arrow_serial;        /* serial of the next arrow; the ring holds the last ones */
    ViewDensity *density;         /* ring of VIEW_DENSITY_BUCKETS */
    uint64_t duplicate_operation; /* the copy the last "duplicate" record announced */
    uint32_t duplicate_attempt, duplicate_copy;
    uint64_t click_operation; /* the click the last "send"/"retry" record named */
    uint32_t click;

    ViewNarration narration;
    SimTimeUs narration_hold_us; /* a less notable event replaces the line after this */
    uint64_t records;
    uint64_t records_by_event[TRACE_EVENT_COUNT];

    ViewTally tally;
    ViewKeySample keys;
} ViewPane;

/* Builds the world of mode with seed and the pane around it; NULL when out of memory.
 * scenario is borrowed for the call. */
ViewPane *view_pane_create(const Scenario *scenario, Mode mode, uint64_t seed);
void view_pane_destroy(ViewPane *pane); /* NULL is a no-op */

/* Runs the world to until_us (world_run_until), then reads its metrics. */
void view_pane_run_until(ViewPane *pane, SimTimeUs until_us);
/* Runs events until one produces a trace record the view draws or narrates (at most
 * max_events); false when the world has nothing left. */
bool view_pane_step(ViewPane *pane, uint64_t max_events);
/* Re-reads the key store through world_visit_key_rows. */
void view_pane_sample_keys(ViewPane *pane);
/* The lifeline of a trace record's node (a service, or a sampled client's lane), or -1. */
int view_pane_node_of(const ViewPane *pane, uint32_t node, uint32_t client_in_group);

/* The sink that feeds the pane (view_trace.c); world_create gets it. */
TraceSink view_trace_sink(ViewPane *pane);

const ViewArrow *view_pane_arrow(const ViewPane *pane, uint64_t serial); /* NULL: gone */
/* The oldest serial still in the ring. */
uint64_t view_pane_first_serial(const ViewPane *pane);
/* Counts of all clients' traffic in [from_us, to_us). */
ViewDensity view_pane_density(const ViewPane *pane, SimTimeUs from_us, SimTimeUs to_us);

#endif
