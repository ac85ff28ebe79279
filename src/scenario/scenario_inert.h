/* Configuration that can have no effect: checked on the resolved Scenario after the schema
 * has read it without error. A time past duration_ms that can never come (an operation
 * scripted after the end, a workload starting after it, an outage beginning after it) is an
 * error with its $.path, since the author meant something by it and would otherwise see
 * nothing happen. */
#ifndef IDEMSIM_SCENARIO_INERT_H
#define IDEMSIM_SCENARIO_INERT_H

#include "scenario.h"

void scenario_inert_check(const Scenario *scenario, LoadErrors *errors);

/* Fields that cannot have any effect in the configuration they sit in (a retry budget with
 * one attempt, fencing without a lock timeout, ...), as warnings naming their $.path and
 * why: a sweep over one field keeps working, and --strict makes them errors. Judged on
 * resolved values, so a field set to its default is not caught; every rule here is one the
 * model honours exactly (the field's only reader is the code it names). A few more warn of
 * configuration the model does read but that is seldom meant (two emailing groups fed by one
 * fanout exchange: every order confirmed twice; a queue with no delivery limit nor delay
 * whose consumers' store refuses while down: a hot requeue loop), said the same way. */
void scenario_inert_warnings(const Scenario *scenario, LoadErrors *warnings);

#endif
