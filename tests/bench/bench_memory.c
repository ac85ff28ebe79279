/* Memory per unit of live state, the figures issue 8 asks for: bytes per live key in the
 * idempotency store and per operation in progress, at 10^4 and 10^6 entries, and the whole
 * world's storage per pending event on the pay workload (1,000 clients, 10% loss). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idem_store.h"
#include "operation_table.h"
#include "rng.h"
#include "scenario.h"
#include "sim_time.h"
#include "world.h"

static void store_figures(size_t keys)
{
    IdemStore *store = idem_store_create(16);
    for (size_t i = 0; i < keys; i++) {
        KeyRow row = {.key = rng_mix64(i + 1) | 1, .expires_us = SIM_TIME_NEVER};
        idem_store_put(store, &row);
    }
    printf("  key store, %8zu live keys: %6.1f bytes per key (KeyRow is %zu bytes)\n", keys,
           (double)idem_store_memory_bytes(store) / (double)idem_store_rows(store), sizeof(KeyRow));
    idem_store_destroy(store);
}

static void operation_figures(size_t operations)
{
    OperationTable table;
    operation_table_init(&table);
    for (size_t i = 0; i < operations; i++)
        operation_table_insert(&table, i * 7919);
    printf("  operations in progress, %8zu: %6.1f bytes per operation\n", operations,
           (double)operation_table_memory_bytes(&table) / (double)operations);
    operation_table_release(&table);
}

static void world_figures(void)
{
    const char *pay =
        "{\"accounts\": [{\"id\": \"a\", \"balance\": 0}], \"duration_ms\": 100000000,"
        " \"clients\": [{\"id\": \"app\", \"count\": 1000, \"workload\": {\"ops\": 100,"
        "   \"interval_ms\": {\"dist\": \"uniform\", \"min\": 0, \"max\": 100}},"
        "   \"retry\": {\"timeout_ms\": 100, \"max_attempts\": 6, \"backoff\": {\"base_ms\": 10,"
        "     \"factor\": 2, \"max_ms\": 1000000, \"jitter\": \"none\"}}}],"
        " \"network\": {\"default\": {\"loss\": 0.1,"
        "   \"delay_ms\": {\"dist\": \"uniform\", \"min\": 5, \"max\": 50}}},"
        " \"server\": {\"workers\": 0, \"service_ms\": {\"dist\": \"uniform\", \"min\": 1,"
        "   \"max\": 5}, \"idempotency\": {\"ttl_ms\": 300}}}";
    Scenario *scenario = calloc(1, sizeof *scenario);
    LoadErrors errors = {0};
    if (!scenario_load_text(pay, strlen(pay), NULL, 0, scenario, &errors))
        return;
    World *world = world_create(scenario, MODE_IDEMPOTENT, 1, (TraceSink){0}, (WorldLimits){0});
    uint64_t peak_bytes = 0;
    while (!world_finished(world)) {
        world_run_until(world, world_now(world) + 50000);
        uint64_t bytes = world_memory_bytes(world);
        peak_bytes = bytes > peak_bytes ? bytes : peak_bytes;
    }
    printf("  pay world (idempotent): peak storage %.1f MiB for %llu operations\n",
           (double)peak_bytes / (1 << 20), (unsigned long long)world_metrics(world)->operations);
    world_destroy(world);
    free(scenario);
}

int main(void)
{
    printf("bench_memory:\n");
    store_figures(10000);
    store_figures(1000000);
    operation_figures(10000);
    operation_figures(1000000);
    world_figures();
    return 0;
}
