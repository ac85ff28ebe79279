/* libFuzzer harness for --set PATH=VALUE: the input is one override, applied to a valid
 * scenario. Whatever the override, the loader answers with a Scenario or with errors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const base = "{\"accounts\": [{\"id\": \"alice\", \"balance\": 100}],"
                                " \"clients\": [{\"id\": \"web\", \"count\": 2}],"
                                " \"network\": {\"links\": {\"web->server\": {\"loss\": 0.1}}}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Scenario scenario;
    static LoadErrors errors;
    char *override = malloc(size + 1);
    if (override == NULL)
        return 0;
    memcpy(override, data, size);
    override[size] = '\0';
    const char *overrides[] = {override};
    scenario_load_text(base, strlen(base), overrides, 1, &scenario, &errors);
    free(override);
    return 0;
}
