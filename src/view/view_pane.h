/* One pane of the view: the World of one mode plus what the view learns from its trace. The
 * pane owns its World and a TraceSink that turns records into live tallies (outcomes and
 * balances, settled per operation as the run goes), arrows of a sequence diagram for a
 * sample of clients, a density of all clients' traffic, and a narration line.
 * The pane only reads the world: the trace, world_operation_view and the other getters.
 * SDL-free, so tests drive it without a display. */
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
#define VIEW_ARROWS_MAX 8192      /* ring of recent arrows and marks of the sampled clients */
#define VIEW_DENSITY_BUCKETS 8192 /* ring of traffic counts of all clients */
#define VIEW_DENSITY_BUCKET_US 10000u
#define VIEW_KEY_ROWS_SHOWN 12

/* ------------------------------------------------------------------ trace events */

/* The events src/model emits, by their trace names ("send", "lost", ...). */
typedef enum {
    VIEW_EVENT_SEND,
    VIEW_EVENT_RETRY,
    VIEW_EVENT_LOST,
    VIEW_EVENT_DUPLICATE,
    VIEW_EVENT_EXECUTE,
    VIEW_EVENT_EXECUTE_NO_EFFECT,
    VIEW_EVENT_REPLAY,
    VIEW_EVENT_IN_PROGRESS,
    VIEW_EVENT_REJECT_OTHER_BODY,
    VIEW_EVENT_TIMEOUT,
    VIEW_EVENT_GIVE_UP,
    VIEW_EVENT_SUCCEEDED,
    VIEW_EVENT_FAILED,
    VIEW_EVENT_OFFLINE,
    VIEW_EVENT_RECONNECT,
    VIEW_EVENT_SWEEP,
    VIEW_EVENT_OTHER, /* a name this view does not know yet: counted, not drawn */
    VIEW_EVENT_COUNT
} ViewEvent;

ViewEvent view_pane_event_from_name(const char *name);
const char *view_pane_event_name(ViewEvent event);

/* ------------------------------------------------------------------ arrows */

typedef enum { VIEW_ARROW_REQUEST, VIEW_ARROW_RESPONSE, VIEW_ARROW_MARK } ViewArrowKind;

/* A message copy of a sampled client between its lane and the server, or a mark on the
 * client's lane (timeout, give-up, told success, offline...). */
typedef struct {
    uint64_t serial;     /* unique within the pane, for pinning a selection */
    uint64_t operation;
    SimTimeUs start_us;
    SimTimeUs end_us;    /* when the trace showed where it ended; SIM_TIME_NEVER: not seen */
    uint32_t attempt;
    uint32_t copy;       /* network lineage (2 original request, 3 its duplicate, 4.. answers) */
    int32_t value;       /* status of an answer; offline duration in ms for a mark */
    uint16_t lane;
    uint16_t effects;    /* requests: the operation's effects once this one was executed */
    uint8_t kind;        /* ViewArrowKind */
    uint8_t event;       /* ViewEvent that created it: send, retry, duplicate, or the mark */
    uint8_t end_event;   /* ViewEvent that ended it (decision, lost, succeeded), or OTHER */
    bool duplicate;      /* a copy the network made */
} ViewArrow;

typedef struct {
    uint32_t group;
    uint32_t client_in_group;
} ViewLane;

typedef struct {
    SimTimeUs bucket;    /* bucket index + 1; 0: empty */
    uint32_t sends;      /* requests of all clients, retries included */
    uint32_t retries;
    uint32_t lost;
    uint32_t doubles;    /* executions that charged an operation again */
} ViewDensity;

/* ------------------------------------------------------------------ tallies */

/* What the pane knows so far. Outcomes are settled per operation as soon as the trace and
 * world_operation_view show them (a double is final at the second effect; the others once
 * the client is done); "pending" counts operations still running. Once the world has
 * finished, the world's own metrics replace these. */
typedef struct {
    uint64_t operations;
    uint64_t pending;
    uint64_t outcomes[OUTCOME_COUNT];
    int64_t double_amount;
    int64_t lost_amount;
    uint32_t account_count;
    int64_t initial[ACCOUNTS_MAX];
    int64_t expected[ACCOUNTS_MAX]; /* minus each settled operation's intended debit, once */
    int64_t actual[ACCOUNTS_MAX];   /* minus every applied debit */
    bool final;                     /* copied from world_metrics() of a finished world */
} ViewTally;

/* ------------------------------------------------------------------ narration */

typedef struct {
    bool present;
    ViewEvent event;
    bool response;       /* lost: an answer rather than a request */
    int rank;            /* 0 routine .. 3 double charge */
    SimTimeUs t_us;
    uint64_t operation;
    uint32_t attempt;
    uint32_t group;
    uint32_t client_in_group;
    uint32_t effects;    /* the operation's effects at that moment */
    int64_t value;
} ViewNarration;

/* ------------------------------------------------------------------ key store sample */

typedef struct {
    uint64_t rows;
    uint64_t processing, completed, failed;
    uint64_t expired; /* past their TTL, still held until a sweep frees them */
    SimTimeUs at_us;  /* world time of the sample */
    uint32_t shown;
    KeyRow newest[VIEW_KEY_ROWS_SHOWN]; /* most recently created first */
} ViewKeySample;

/* ------------------------------------------------------------------ the pane */

typedef struct {
    uint32_t effects_traced; /* "execute" records seen */
    uint32_t effects_known;  /* from world_operation_view at the last settle */
    uint8_t belief;          /* Belief, from the client's records */
    uint8_t outcome;         /* 0 not started, 1 pending, 2 + Outcome once settled */
    uint8_t flags;
} ViewOperation;

typedef struct {
    Mode mode;
    World *world;
    const Scenario *scenario; /* the world's copy */
    uint64_t seed;

    uint64_t operation_count;
    ViewOperation *operations;
    uint64_t *dirty;         /* operations to settle after the current run call */
    uint64_t dirty_count, dirty_capacity;
    int64_t group_amount[CLIENT_GROUPS_MAX]; /* debit per operation, 0 for other kinds */
    SimTimeUs request_delay_us[CLIENT_GROUPS_MAX];  /* nominal one-way delays, for drawing */
    SimTimeUs response_delay_us[CLIENT_GROUPS_MAX];
    uint64_t clients_total;

    uint32_t lane_count;
    ViewLane lanes[VIEW_LANES_MAX];
    ViewArrow *arrows;       /* ring of VIEW_ARROWS_MAX */
    uint64_t arrow_serial;   /* serial of the next arrow; the ring holds the last ones */
    ViewDensity *density;    /* ring of VIEW_DENSITY_BUCKETS */

    ViewNarration narration;
    SimTimeUs narration_hold_us; /* a less notable event replaces the line after this */
    uint64_t records;
    uint64_t records_by_event[VIEW_EVENT_COUNT];

    ViewTally tally;
    ViewKeySample keys;
} ViewPane;

/* Builds the world of mode with seed and the pane around it; NULL when out of memory.
 * scenario is borrowed for the call. */
ViewPane *view_pane_create(const Scenario *scenario, Mode mode, uint64_t seed);
void view_pane_destroy(ViewPane *pane); /* NULL is a no-op */

/* Runs the world to until_us (world_run_until), then settles what the run changed. */
void view_pane_run_until(ViewPane *pane, SimTimeUs until_us);
/* Runs events until one produces a trace record (at most max_events); false when the world
 * has nothing left. */
bool view_pane_step(ViewPane *pane, uint64_t max_events);
/* Re-reads the key store through world_visit_key_rows. */
void view_pane_sample_keys(ViewPane *pane);

/* The sink that feeds the pane (view_trace.c); world_create gets it. */
TraceSink view_trace_sink(ViewPane *pane);
/* Settles the operations the trace touched since the last call (view_trace.c). */
void view_trace_settle(ViewPane *pane);

const ViewArrow *view_pane_arrow(const ViewPane *pane, uint64_t serial); /* NULL: gone */
/* The oldest serial still in the ring. */
uint64_t view_pane_first_serial(const ViewPane *pane);
/* Counts of all clients' traffic in [from_us, to_us). */
ViewDensity view_pane_density(const ViewPane *pane, SimTimeUs from_us, SimTimeUs to_us);

#endif
