/* One pane of the view: the World of one mode plus what the view learns from its trace. The
 * pane owns its World, the diagram model (diagram.h) of a sample of clients (every message
 * copy of their operations, on every hop between the nodes of the node table), a density of
 * all clients' traffic, and a narration line, all fed by its TraceSink. Counters and balances are
 * the world's own live metrics. The pane only reads the world. SDL-free, so tests drive it without
 * a display. */
#ifndef IDEMSIM_VIEW_PANE_H
#define IDEMSIM_VIEW_PANE_H

#include <stdbool.h>
#include <stdint.h>

#include "diagram.h"
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

/* ------------------------------------------------------------------ lanes and items */

/* The diagram is the shared model (diagram.h); the pane adds its lanes from the node table:
 * the sampled clients first (diagram lane l is sampled client l), then every service the
 * scenario sends work through, then the ledger. */
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
    uint32_t node;   /* the actor's world node */
    NodeKind kind;   /* and its kind */
    uint32_t peer;   /* a message's other end (TRACE_NO_NODE for an event of the actor's own;
                        an outbox relay: where the copy it sent went, once traced) */
    uint8_t message; /* MessageKind of a lost copy, or of the copy an outbox relay sent */
    int rank;        /* 0 routine .. 3 double charge or key-store save */
    SimTimeUs t_us;
    uint64_t operation;
    uint32_t attempt;
    uint32_t group;
    uint32_t client_in_group;
    uint32_t effects; /* the operation's effects at that moment */
    int64_t value;
    uint32_t detail;          /* the record's detail (a CrashPoint, the MessageKind lost offline) */
    bool after_nack;          /* a redelivery its consumer asked for (a nack), not a timeout's or a
                                 closed channel's */
    char queue[NAME_LEN_MAX]; /* the record's queue: a later log group's rebalance names it */
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

/* ------------------------------------------------------------------ mechanisms */

/* A moment the system itself did something a lesson turns on, whoever's operation it
 * concerned (a crash, a failover, a rebalance, an offset commit, a request shed with 429 or
 * 503, a stale overwrite, a dead letter, a redrive): the diagram draws it across every
 * lane, since the sampled clients' arrows alone missed C21's rebalance and C22's crash.
 * Repeats close together (commits, sheds) are one moment with a count. */
#define VIEW_MECHANISMS_MAX 256
#define VIEW_MECHANISM_MERGE_US 250000 /* a repeat within this of the last is counted in it */
#define VIEW_COMMIT_MERGE_US 1000000   /* commits come one per record: merged over longer */

typedef struct {
    SimTimeUs t_us;
    TraceEvent event;
    NodeKind kind; /* of the actor */
    uint32_t node; /* the actor's world node: a crash names the instance that went down */
    int64_t value; /* the record's value: rows lost, replays, offset, status */
    uint32_t repeats;
    /* offset commits: the partitions they moved (bit p: partition p) and whose they were
     * (bit g: consumer group g, 0 the log's first; VIEW_COMMITS_UNPLACED: a record named
     * no partition the view knows) */
    uint64_t partitions;
    uint32_t groups;
} ViewMechanism;
#define VIEW_COMMITS_UNPLACED (1u << 31)

/* ------------------------------------------------------------------ the pane */

typedef struct {
    Mode mode;
    World *world;
    const Scenario *scenario; /* the world's copy */
    uint64_t seed;

    int64_t group_amount[CLIENT_GROUPS_MAX]; /* debit per operation, 0 for other kinds */
    /* typical one-way link delays, by diagram lane */
    SimTimeUs delay_us[DIAGRAM_LANES_MAX][DIAGRAM_LANES_MAX];
    uint64_t clients_total;

    uint32_t lane_count; /* sampled clients */
    ViewLane lanes[VIEW_LANES_MAX];
    Diagram *diagram;     /* its items are a ring of VIEW_ARROWS_MAX */
    ViewDensity *density; /* ring of VIEW_DENSITY_BUCKETS */

    ViewNarration narration;
    ViewMechanism mechanisms[VIEW_MECHANISMS_MAX]; /* a ring, oldest overwritten */
    uint64_t mechanism_count;                      /* ever recorded */
    SimTimeUs narration_hold_us; /* a less notable event replaces the line after this */
    uint64_t nacked_operation;   /* the operation of the last nack, until it is redelivered (the
                                    broker traces the nack, then the redelivery) */
    bool nack_pending;
    uint64_t records;
    uint64_t records_by_event[TRACE_EVENT_COUNT];

    ViewTally tally;
    ViewKeySample keys;
    /* by diagram lane: a key store of its own whose crash was seen and its restart not yet.
     * Only a store with a lane (diagram_node_drawn) is told: its crash line, narration and
     * the panel's DOWN follow its lane, as its marks do. */
    bool store_lane_down[DIAGRAM_LANES_MAX];
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
/* The diagram lane of a trace record's node (a service, or a sampled client), or
 * DIAGRAM_NO_LANE. */
int view_pane_node_of(const ViewPane *pane, uint32_t node, uint32_t client_in_group);
/* Whether the scenario sends work through a node of this kind. */
bool view_pane_has_kind(const ViewPane *pane, NodeKind kind);
/* Whether the pane is finished and its last event has been on screen a while at now_us: its
 * narration gives way to its verdict (and its diagram to its telling story). clock_stopped:
 * every world has finished, so the clock will not move again and no hold can end by it. */
bool view_pane_finished_at(const ViewPane *pane, SimTimeUs now_us, bool clock_stopped);
/* Whether a key store with a lane is down now (its own crash, C38), as the key-store panel
 * says it; servers_only: one the servers keep their keys in (a consumer group's down leaves
 * them up). A store no drawn operation meets has no lane, and its crash is not told. */
bool view_pane_key_store_down(const ViewPane *pane, bool servers_only);
/* Whether a diagram lane is a client's. */
bool view_pane_lane_is_client(const ViewPane *pane, int lane);
/* Why the pane's world stopped before its end, in words ("stopped: no progress, ..."), or
 * NULL when it did not; the view has the default budgets and no flags to raise them. */
const char *view_pane_stop_text(const ViewPane *pane, char *buffer, size_t size);

/* The words of an offset-commit moment (TRACE_OFFSET_COMMIT) drawn across the lanes, true of
 * every commit merged in it: one names its offset ("offset commit: 52"); several name their
 * partition and its newest offset where they are all one partition's ("17 offset commits,
 * chargers/p3 to 6": the group is named where the log has several, the partition where it
 * has several or several groups), else how many partitions, and the group's name or how many
 * groups where the log has several ("23 offset commits of 2 groups, 6 partitions"). */
void view_mechanism_commit_words(const ViewPane *pane, const ViewMechanism *moment, char *text,
                                 size_t size);

/* The sink that feeds the pane (view_trace.c); world_create gets it. */
TraceSink view_trace_sink(ViewPane *pane);

const DiagramItem *view_pane_arrow(const ViewPane *pane, uint64_t serial); /* NULL: gone */
/* The oldest serial still in the ring, and one past the newest. */
uint64_t view_pane_first_serial(const ViewPane *pane);
uint64_t view_pane_next_serial(const ViewPane *pane);
/* Counts of all clients' traffic in [from_us, to_us). */
ViewDensity view_pane_density(const ViewPane *pane, SimTimeUs from_us, SimTimeUs to_us);

#endif
