/* Exploring fault schedules: every way a small world can break a property with at most K
 * faults, and the smallest one. A schedule is a set of forced faults (Scenario.faults); the
 * run with the empty schedule meets decision points (world_fault_points), and schedules grow
 * breadth-first by one fault that the run meets after the schedule's last, so each set is
 * run once and the first violation at the smallest size is also the earliest in time. Runs
 * of one level go to threads; results are gathered in schedule order, so the output does
 * not depend on the thread count. */
#ifndef IDEMSIM_EXPLORE_H
#define IDEMSIM_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

#include "metrics.h"
#include "scenario.h"
#include "world.h"

typedef enum {
    EXPLORE_NO_DOUBLE,
    EXPLORE_NO_LOST,
    EXPLORE_NO_PHANTOM,
    EXPLORE_NO_MISMATCH,
    EXPLORE_NO_DOUBLE_REFUND,    /* no operation refunded more often than charged (a saga) */
    EXPLORE_TOLD_MATCHES_LEDGER, /* told success exactly for the operations charged once */
    EXPLORE_EXPECT,              /* the scenario's expect lines for the mode */
    EXPLORE_PROPERTY_COUNT
} ExploreProperty;

/* Worlds larger than this are refused: the number of schedules grows as points^K. */
#define EXPLORE_OPERATIONS_MAX 8u
#define EXPLORE_FAULTS_MAX 6u

typedef struct {
    uint32_t max_faults; /* K: schedules with at most this many faults */
    ExploreProperty property;
    uint64_t max_schedules; /* 0: no bound; else stop (truncated) past this many runs */
    uint64_t sample;        /* 0: enumerate; else this many random schedules, then shrink */
    uint32_t threads;       /* 0: one */
    uint64_t seed;          /* the world's seed (and the sampler's) */
    WorldLimits limits;
} ExploreOptions;

typedef enum {
    EXPLORE_DONE,
    EXPLORE_TOO_LARGE,       /* more than EXPLORE_OPERATIONS_MAX operations, or too many points */
    EXPLORE_STOPPED,         /* a run was stopped by a budget: stop holds which */
    EXPLORE_GILBERT_ELLIOTT, /* a link's losses depend on the packets before: no decisions */
} ExploreStatus;

typedef struct {
    ExploreStatus status;
    WorldStop stop;
    uint64_t operations;  /* in the world */
    uint32_t base_points; /* decision points met by the fault-free run */
    uint32_t points_by_kind[FAULT_KIND_COUNT];
    uint64_t schedules;                       /* runs, the fault-free one included */
    uint64_t violations;                      /* schedules that broke the property */
    uint64_t by_size[EXPLORE_FAULTS_MAX + 1]; /* schedules run, by number of faults */
    uint64_t reachable[OUTCOME_COUNT];        /* schedules where that outcome occurred */
    bool truncated;                           /* max_schedules was reached before the end */
    uint32_t complete_size; /* every schedule of at most this many faults was run */
    bool found;
    uint32_t counterexample_count; /* the smallest, earliest violating schedule */
    FaultSpec counterexample[FAULTS_MAX];
    uint64_t counterexample_outcomes[OUTCOME_COUNT];
} ExploreResult;

const char *explore_property_name(ExploreProperty property);
bool explore_property_from_name(const char *name, ExploreProperty *property);
/* Whether metrics of a run of mode break property (scenario: its expect lines). */
bool explore_violates(const Scenario *scenario, Mode mode, const Metrics *metrics,
                      ExploreProperty property);

/* Explores mode of scenario (borrowed; its own faults list is ignored). result is filled in
 * every case; status says whether it is complete. */
void explore_mode(const Scenario *scenario, Mode mode, const ExploreOptions *options,
                  ExploreResult *result);

#endif
