/* Command-line overrides, "--set PATH=VALUE", applied to the parsed tree before validation,
 * so a value set there is checked exactly like one written in the file. */
#ifndef IDEMSIM_SCENARIO_OVERRIDE_H
#define IDEMSIM_SCENARIO_OVERRIDE_H

#include <cjson/cJSON.h>

#include "json_text.h"
#include "scenario.h"

/* PATH: keys and indexes as in error paths, with or without the leading "$."
 * ("network.links.web->server.loss", "clients[0].retry.timeout_ms"). Missing objects on the
 * way are created; a missing array element is an error. VALUE is JSON, or else a string.
 * root must be an object. The texts of the value's numbers go into numbers (may be NULL). */
void scenario_override_apply(cJSON *root, JsonNumbers *numbers, const char *override,
                             LoadErrors *errors);

#endif
