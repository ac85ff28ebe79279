/* libFuzzer harness: bytes -> parse -> validate -> a short run of every mode. Any input must
 * give either a Scenario or errors, and a valid Scenario must run without tripping an
 * invariant. The run is bounded so the fuzzer explores inputs, not long simulations. */
#include <stdint.h>
#include <stdlib.h>

#include "scenario.h"
#include "world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Scenario scenario;
    static LoadErrors errors;
    if (!scenario_load_text((const char *)data, size, NULL, 0, &scenario, &errors))
        return 0;
    WorldLimits limits = {.max_events = 20000,
                          .max_sim_time_us = 600ull * 1000 * 1000,
                          .max_memory_bytes = 256ull << 20};
    for (uint32_t m = 0; m < scenario.mode_count; m++) {
        World *world =
            world_create(&scenario, scenario.modes[m], scenario.seed, (TraceSink){0}, limits);
        world_run(world);
        world_destroy(world);
    }
    return 0;
}
