/* A fault plan: the decisions a run takes as faults, when a scenario forces its faults
 * (Scenario.faults). Every fault decision then takes its no-fault outcome unless the plan
 * lists it, and the plan records each decision point the run met, once, in the order met,
 * so `idemsim explore` can enumerate schedules. Owned by the world that creates it. */
#ifndef IDEMSIM_FAULT_PLAN_H
#define IDEMSIM_FAULT_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "sim_time.h"

typedef struct FaultPlan FaultPlan; /* opaque */

/* Decision points recorded beyond this many are dropped and counted (fault_plan_overflow):
 * exploring is for small worlds. */
#define FAULT_PLAN_POINTS_MAX 4096u

/* scenario is borrowed: its faults list is copied, and its timeouts set how late a delay
 * decision point is (fault_plan_late_us). */
FaultPlan *fault_plan_create(const Scenario *scenario);
void fault_plan_destroy(FaultPlan *plan); /* NULL is a no-op */

/* Whether the fault of kind named by the draw words (a, b, c) happens: true when the plan
 * forces it (whatever the probability: a list may force what the scenario never draws).
 * A decision point is recorded when the fault is possible (probability > 0); at
 * probability >= 1 the fault is certain, not a decision. */
bool fault_plan_decide(FaultPlan *plan, FaultKind kind, uint64_t a, uint64_t b, uint64_t c,
                       double probability);
/* A copy's extra delay: by_ms of a forced delay fault, else 0. A decision point only where
 * the link's delay distribution (delay_ms, borrowed) can pass fault_plan_late_us. */
SimTimeUs fault_plan_delay_us(FaultPlan *plan, uint64_t a, uint64_t b, uint64_t c,
                              const Distribution *delay_ms);
/* The gateway's fate draw in [0, 1) as gateway.c reads it (below fail: declined; below
 * fail + timeout: charged, no answer): -1 when a decline is forced, in the silent range
 * when a silent charge is forced (only where timeout > 0), else 1 (answered). */
double fault_plan_gateway_fate(FaultPlan *plan, uint64_t a, uint64_t b, uint64_t c, double fail,
                               double timeout);
/* How late a delay fault makes a message: 1 ms past the longest timer of the services the
 * scenario uses (docs/explore.md lists them). */
SimTimeUs fault_plan_late_us(const FaultPlan *plan);

/* The decision points met so far, in the order met, each once. */
const FaultSpec *fault_plan_points(const FaultPlan *plan, uint32_t *count);
uint32_t fault_plan_overflow(const FaultPlan *plan); /* points not recorded */
/* Which of the forced faults the run met so far: bit i for Scenario.faults[i]. */
uint32_t fault_plan_forced_met(const FaultPlan *plan);

#endif
