/* The simulated world of one mode: every actor, the event loop, and the metrics. The world
 * owns everything it creates; callers read it through this API (reports and the view alike)
 * and drive it with world_run / world_run_until / world_step. After world_create succeeds,
 * nothing here returns an error: a broken invariant aborts (SIM_ASSERT). */
#ifndef IDEMSIM_WORLD_H
#define IDEMSIM_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "idem_store.h"
#include "metrics.h"
#include "scenario.h"
#include "sim_time.h"
#include "trace.h"

typedef struct World World; /* opaque */

typedef struct {
    uint64_t max_events;             /* 0: the default budget */
    SimTimeUs max_sim_time_us;       /* 0: the default budget; larger than WORLD_SIM_TIME_MAX_US
                                        is WORLD_SIM_TIME_MAX_US */
    uint64_t max_memory_bytes;       /* 0: the default budget; this world's own storage */
    uint64_t max_events_per_instant; /* 0: the default (see WORLD_DEFAULT_MAX_EVENTS_PER_INSTANT) */
    TraceFull trace_full; /* NULL: none; else asked with the trace sink's context, and a full
                             sink stops the run (WORLD_STOP_TRACE): a trace cut short is not
                             a result */
} WorldLimits;

#define WORLD_DEFAULT_MAX_EVENTS 500000000ull
#define WORLD_DEFAULT_MAX_MEMORY_BYTES (4ull << 30)
/* Simulated time never passes 2^62 µs (146,000 years), so adding any duration a model
 * schedules (at most SIM_DURATION_MAX_US) cannot overflow. */
#define WORLD_SIM_TIME_MAX_US (1ull << 62)
/* A run that makes this many events at one simulated instant, plus 64 per client (every
 * client may start at 0 and get its answer at once with zero delays), makes no progress: a
 * livelock, stopped instead of spinning until a memory or event budget. */
#define WORLD_DEFAULT_MAX_EVENTS_PER_INSTANT 10000000ull
/* Money (balances, charged and double amounts) stays within 2^62 minor units: the loader
 * refuses scenarios whose debits could exceed it once each, and a run whose repeated
 * executions would pass it stops (WORLD_STOP_MONEY) before any total could overflow. */
#define WORLD_MONEY_MAX (1ll << 62)

/* Why a run stopped before its end: data, worded by whoever shows it (the model does not know
 * the command line's flags). limit is in the unit of the budget (events, µs, bytes, minor
 * units); at_us is the simulated time of the stop. */
typedef enum {
    WORLD_STOP_NONE,        /* ended by itself */
    WORLD_STOP_MEMORY,      /* limit: bytes */
    WORLD_STOP_EVENTS,      /* limit: events */
    WORLD_STOP_SIM_TIME,    /* limit: µs */
    WORLD_STOP_NO_PROGRESS, /* limit: events run at the one instant at_us */
    WORLD_STOP_MONEY,       /* limit: minor units (WORLD_MONEY_MAX) */
    WORLD_STOP_TRACE,       /* limit: bytes of the trace its sink may write */
} WorldStopKind;

typedef struct {
    WorldStopKind kind;
    uint64_t limit;
    SimTimeUs at_us;
} WorldStop;

/* scenario is borrowed for the call; the world keeps what it needs. */
World *world_create(const Scenario *scenario, Mode mode, uint64_t seed, TraceSink trace,
                    WorldLimits limits);
void world_destroy(World *world); /* NULL is a no-op */

/* Runs to the end (no events left) or to a budget; then settles the outcomes. */
void world_run(World *world);
/* Runs every event up to until_us; settles the outcomes when nothing is left. */
void world_run_until(World *world, SimTimeUs until_us);
/* Runs one event; false (and outcomes settled) when nothing is left. */
bool world_step(World *world);
/* Runs up to count events as world_step would, faster (the budgets are checked once per
 * batch); fewer when the world finishes. Returns how many ran. */
uint64_t world_run_events(World *world, uint64_t count);

bool world_finished(const World *world);
/* Every operation the scenario will start has started and settled, so the outcomes can no
 * longer change, although timers with no operation behind them (key-store sweeps) may keep
 * the world running; world_finished() implies it. */
bool world_outcomes_final(const World *world);
/* Which budget stopped the run, if any (kind WORLD_STOP_NONE when it ended by itself). */
WorldStop world_stop(const World *world);
SimTimeUs world_now(const World *world);
/* When the next event is due; SIM_TIME_NEVER once the world has finished or has none. A viewer
 * uses it to pass over a stretch in which nothing can happen. */
SimTimeUs world_next_event_us(World *world);
/* What the world's storage takes now: events, operations in progress, messages, jobs,
 * key stores, broker queue. Charged to the process-wide memory account (memory_account.h)
 * at each budget check; max_memory_bytes bounds this world alone, so a caller running
 * several worlds at once gives each its share of the process's budget (cli_world_limits). */
uint64_t world_memory_bytes(const World *world);
Mode world_mode(const World *world);
/* Live during the run, final once world_finished(): an operation is counted in outcomes
 * when it is settled (its client is done and nothing in flight refers to it any more);
 * operations - operations_settled are still in progress. Balances are live: actual changes
 * with every charge, expected with every operation started. Valid until the next run call. */
const Metrics *world_metrics(const World *world);
const Scenario *world_scenario(const World *world);

/* ------------------------------------------------------------------ forced faults */

/* When the scenario forces its faults (Scenario.faults_forced): the fault decision points
 * the run met so far, each once, in the order met (overflow: how many more were not kept,
 * past FAULT_PLAN_POINTS_MAX); NULL and 0 otherwise. Valid until the next run call. */
const FaultSpec *world_fault_points(const World *world, uint32_t *count, uint32_t *overflow);
/* Which of the scenario's forced faults the run has met so far: bit i for faults[i]
 * (FAULTS_MAX fits); 0 without a list. */
uint32_t world_faults_met(const World *world);

/* ------------------------------------------------------------------ the node table */

/* The nodes of a run: every client group and every service, in id order (the ids trace
 * records carry in actor and peer). Readers draw and name nodes from this table alone. */
typedef struct {
    NodeKind kind;
    const char *name;        /* the group's id or the service's name, as links and traces say it;
                                an instance of several: "<service>#<n>" */
    const char *service;     /* the group's or service's id (the same for its instances) */
    uint32_t actor;          /* which actor of its kind: a client group's or instance's index */
    uint32_t instance_count; /* the instances of its service (1 but for servers,
                                consumers and proxies) */
    uint32_t lane;           /* drawing order, left to right (sort by it; not contiguous): the
                                clients, then the services in the order a request meets them */
    bool active;             /* the scenario sends work through it */
} WorldNode;

uint32_t world_node_count(const World *world);
const WorldNode *world_node(const World *world, uint32_t node);
/* The node of a service kind, or TRACE_NO_NODE. */
uint32_t world_node_of_kind(const World *world, NodeKind kind);
const char *world_node_name(const World *world, uint32_t node);

/* ------------------------------------------------------------------ live state */

/* For live views: the state at world_now(). Visitors must not call back into the world. */
uint64_t world_key_store_rows(const World *world);
/* A key store is down now (its own crash, C38): its keys can be neither read nor written. */
bool world_key_store_down(const World *world);
/* The same for the servers' stores only, those world_key_store_rows counts (a consumer
 * group's store down leaves them up). */
bool world_server_key_store_down(const World *world);
void world_visit_key_rows(const World *world, void (*visit)(void *context, const KeyRow *row),
                          void *context);
uint64_t world_messages_in_flight(const World *world);
/* The workers busy, and the requests waiting, at the server the clients call (its instances
 * summed; a server it calls is not counted). */
uint32_t world_server_busy(const World *world);
uint32_t world_server_queue_length(const World *world);
/* The operation a trace record or key row names: which client group, client and account. */
typedef struct {
    uint32_t group;
    uint32_t client_in_group;
    uint32_t account;
    uint32_t effects; /* while in progress; 0 once settled (see world_metrics) */
    bool in_progress; /* started and not yet settled into its outcome */
    bool finished;    /* the client has its answers; messages may still be in flight */
} OperationView;
bool world_operation_view(const World *world, uint64_t operation, OperationView *view);
/* The status record of a client whose group writes one (operation.resource per-client, C23):
 * the status it holds now (operation n sets n; 0 before any write) and the newest status
 * ever applied to it. False for a client of another group. */
bool world_status_record(const World *world, uint32_t group, uint32_t client_in_group,
                         uint32_t *status, uint32_t *newest);

#endif
