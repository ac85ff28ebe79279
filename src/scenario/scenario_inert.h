/* Configuration that can have no effect: checked on the resolved Scenario after the schema
 * has read it without error. A time past duration_ms that can never come (an operation
 * scripted after the end, a workload starting after it, an outage beginning after it) is an
 * error with its $.path, since the author meant something by it and would otherwise see
 * nothing happen. */
#ifndef IDEMSIM_SCENARIO_INERT_H
#define IDEMSIM_SCENARIO_INERT_H

#include "scenario.h"

void scenario_inert_check(const Scenario *scenario, LoadErrors *errors);

#endif
