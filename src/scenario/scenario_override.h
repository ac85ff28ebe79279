/* Command-line overrides, "--set PATH=VALUE", applied to the parsed tree before validation,
 * so a value set there is checked exactly like one written in the file. */
#ifndef IDEMSIM_SCENARIO_OVERRIDE_H
#define IDEMSIM_SCENARIO_OVERRIDE_H

#include <cjson/cJSON.h>

#include "json_text.h"
#include "scenario.h"

/* PATH: keys and indexes as in error paths, with or without the leading "$."
 * ("network.links.web->server.loss", "clients[0].retry.timeout_ms"). An element of an array
 * of named objects may also be named by its "id" or "name" ("clients.web.count",
 * "services.checkout.workers"). In a file of the services form, the older form's objects
 * name the service of their kind ("server.workers", "server.idempotency.ttl_ms" for its key
 * store, "broker.consumers.workers"), so every lesson's hint works on what `show` prints.
 * Missing objects on the way are created; a missing array element is an error. VALUE is
 * JSON, or else a string. root must be an object. The texts of the value's numbers go into
 * numbers (may be NULL). resolved (PATH_LEN_MAX) receives the path as validation errors
 * name it ("services[1].workers"), or "" when the override was not applied. */
#define SCENARIO_OVERRIDE_PATH_LEN_MAX 256
void scenario_override_apply(cJSON *root, JsonNumbers *numbers, const char *override,
                             LoadErrors *errors, char *resolved);
/* A warning's path into an older object ("$.server.idempotency.durable") as a file of the
 * services form names it ("$.services[1].durable"), in place; unchanged when root is of
 * the older form or the path names no older object. */
void scenario_override_services_path(const cJSON *root, char *path, size_t size);

#endif
