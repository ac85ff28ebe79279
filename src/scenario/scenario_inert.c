/* Times that can never come, refused with their path (issue 24). Kept out of the schema
 * files: it reads the resolved Scenario, whatever form (top-level actors or services) it
 * was written in, so one check serves both.
 *
 * Operations start only up to duration_ms (client.c: a start later than it is never
 * scheduled), so a scripted start or a first start past it never fires. An outage that
 * begins after duration_ms could only meet the drain (retries of operations started in
 * time): that is not what an outage window in a scenario is for, and with every library
 * scenario it met nothing, so it is refused too rather than left to look like a lesson. */
#include "scenario_inert.h"

#include <stdio.h>

#include "scenario_errors.h"

static void check_workloads(const Scenario *scenario, LoadErrors *errors)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        const WorkloadSpec *workload = &scenario->client_groups[g].workload;
        char path[JSON_PATH_LEN_MAX];
        if (workload->start_ms > scenario->duration_ms) {
            snprintf(path, sizeof path, "$.clients[%u].workload.start_ms", g);
            scenario_errors_add(errors, path,
                                "expected at most duration_ms (%g): no operation starts after "
                                "it (got %g)",
                                scenario->duration_ms, workload->start_ms);
        }
        for (uint32_t k = 0; k < workload->at_count; k++) {
            if (workload->at_ms[k] <= scenario->duration_ms)
                continue;
            snprintf(path, sizeof path, "$.clients[%u].workload.at_ms[%u]", g, k);
            scenario_errors_add(errors, path,
                                "expected at most duration_ms (%g): an operation scripted after "
                                "it never starts (got %g)",
                                scenario->duration_ms, workload->at_ms[k]);
        }
    }
}

static void check_outages(const Scenario *scenario, LoadErrors *errors)
{
    for (uint32_t o = 0; o < scenario->network.outage_count; o++) {
        const OutageSpec *outage = &scenario->network.outages[o];
        if (outage->from_ms <= scenario->duration_ms)
            continue;
        char path[JSON_PATH_LEN_MAX];
        snprintf(path, sizeof path, "$.network.outages[%u].from_ms", o);
        scenario_errors_add(errors, path,
                            "expected at most duration_ms (%g): the outage would begin after "
                            "the run (got %g)",
                            scenario->duration_ms, outage->from_ms);
    }
    const ServerOutageSpec *outage = &scenario->server.outage;
    if (outage->enabled && outage->from_ms > scenario->duration_ms)
        scenario_errors_add(errors, "$.server.outage.from_ms",
                            "expected at most duration_ms (%g): the outage would begin after "
                            "the run (got %g)",
                            scenario->duration_ms, outage->from_ms);
}

void scenario_inert_check(const Scenario *scenario, LoadErrors *errors)
{
    check_workloads(scenario, errors);
    check_outages(scenario, errors);
}
