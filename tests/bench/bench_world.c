/* Whole-model throughput: the pay workload of issue 8 in its small variant (1,000 clients x
 * 100 payments, 10% loss both ways, per-click keys, a 300 ms key TTL), every mode, tracing
 * off. Prints model events per second and the peak of pending events. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenario.h"
#include "world.h"

static const char *const pay_workload =
    "{\"name\": \"pay-bench\", \"duration_ms\": 100000000,"
    " \"accounts\": [{\"id\": \"a\", \"balance\": 0}],"
    " \"clients\": [{\"id\": \"web\", \"count\": 1000,"
    "   \"workload\": {\"ops\": 100, \"interval_ms\": {\"dist\": \"uniform\", \"min\": 0, \"max\": "
    "100}},"
    "   \"retry\": {\"timeout_ms\": 100, \"max_attempts\": 6,"
    "     \"backoff\": {\"base_ms\": 10, \"factor\": 2, \"max_ms\": 100000, \"jitter\": "
    "\"none\"}}}],"
    " \"network\": {\"default\": {\"loss\": 0.1, \"delay_ms\": {\"dist\": \"uniform\", \"min\": 5, "
    "\"max\": 50}}},"
    " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"uniform\", \"min\": 1, \"max\": 5},"
    "   \"idempotency\": {\"ttl_ms\": 300, \"cleanup_interval_ms\": 1000}}}";

static double seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(void)
{
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    if (!scenario_load_text(pay_workload, strlen(pay_workload), NULL, 0, scenario, &errors)) {
        scenario_print_errors(stderr, "bench_world", &errors);
        return 2;
    }
    printf("bench_world: 1000 clients x 100 payments, loss 0.1, tracing off\n");
    for (int m = 0; m < MODE_COUNT; m++) {
        double started = seconds();
        World *world = world_create(scenario, (Mode)m, 1, (TraceSink){0}, (WorldLimits){0});
        world_run(world);
        double elapsed = seconds() - started;
        const Metrics *metrics = world_metrics(world);
        printf("  %-14s %9llu events in %6.3f s = %6.2f M events/s  (%llu ops, double %llu)\n",
               mode_name((Mode)m), (unsigned long long)metrics->events, elapsed,
               (double)metrics->events / elapsed / 1e6, (unsigned long long)metrics->operations,
               (unsigned long long)metrics->outcomes[OUTCOME_DOUBLE]);
        world_destroy(world);
    }
    free(scenario);
    return 0;
}
