/* Expectations: {"MODE": {"METRIC": VALUE}}, VALUE a number (exactly) or {"min", "max"}.
 * Read after "modes", so a mode the scenario does not run is reported. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario_errors.h"
#include "scenario_schema.h"

/* clang-format off */
#define RANGE_ANY {-DBL_MAX, DBL_MAX, false, false, false}
/* clang-format on */
/* Room for every metric name (scenario_metric_count, 79 today): a name past it would be
 * refused as unknown, so check_scenario_load pins the count below it. */
#define METRICS_MAX 128

/* ------------------------------------------------------------------ one expectation */

static void check_expectation(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    const Expectation *expectation = base;
    if (!clean) {
        return;
    }
    if (schema_member(object, "min") == NULL && schema_member(object, "max") == NULL) {
        schema_error(reader, "expected at least one of 'min', 'max'");
    } else if (expectation->min > expectation->max) {
        char min[32];
        char max[32];
        schema_format_number(expectation->min, min, sizeof min);
        schema_format_number(expectation->max, max, sizeof max);
        schema_error_at(reader, "max", "expected number >= min (%s) (got %s)", min, max);
    }
}

static const SchemaField expectation_fields[] = {
    FIELD_NUMBER("min", Expectation, min, RANGE_ANY),
    FIELD_NUMBER("max", Expectation, max, RANGE_ANY),
};
const SchemaObject scenario_expect_schema = {
    .name = "expect.MODE.METRIC", SCHEMA_FIELDS(expectation_fields), .check = check_expectation};

static void read_expectation(SchemaReader *reader, const cJSON *item, Expectation *expectation)
{
    expectation->min = -INFINITY; /* an absent bound does not bound */
    expectation->max = INFINITY;
    if (cJSON_IsNumber(item)) {
        double value = 0;
        if (schema_read_number(reader, item, &(SchemaRange)RANGE_ANY, &value)) {
            expectation->min = value;
            expectation->max = value;
        }
        return;
    }
    if (!cJSON_IsObject(item)) {
        schema_error(reader, "expected number or object (got %s)", schema_type_name(item));
        return;
    }
    schema_read_object(reader, item, &scenario_expect_schema, expectation);
}

/* ------------------------------------------------------------------ one mode */

int scenario_expect_metric_index(const char *name)
{
    for (unsigned i = 0; i < scenario_metric_count; i++) {
        if (strcmp(scenario_metric_names[i], name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

void scenario_expect_unknown_metric(SchemaReader *reader, const char *name)
{
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    scenario_errors_quote(quoted, sizeof quoted, name);
    NameSuggestion suggestion;
    scenario_names_suggest_init(&suggestion, name);
    for (unsigned i = 0; i < scenario_metric_count; i++) {
        scenario_names_suggest_consider(&suggestion, scenario_metric_names[i]);
    }
    if (suggestion.best != NULL) {
        schema_error(reader, "unknown metric %s, did you mean '%s'?", quoted, suggestion.best);
    } else {
        schema_error(reader, "unknown metric %s", quoted);
    }
}

/* The metrics a client group has of its own: its operations' outcomes and their money. */
const char *const scenario_group_metric_names[] = {
    "ok",       "double",   "lost",          "phantom",     "mismatch",
    "declined", "refunded", "double_amount", "lost_amount",
};
const unsigned scenario_group_metric_count =
    sizeof scenario_group_metric_names / sizeof scenario_group_metric_names[0];

static bool among(const char *const *names, unsigned count, const char *name, size_t length)
{
    for (unsigned i = 0; i < count; i++) {
        if (strlen(names[i]) == length && strncmp(names[i], name, length) == 0)
            return true;
    }
    return false;
}

bool scenario_is_group_metric(const char *name, size_t length)
{
    return among(scenario_group_metric_names, scenario_group_metric_count, name, length);
}

/* The metrics a service has of its own (ServiceMetrics, metrics.h), in the reports' order. */
const char *const scenario_service_metric_names[] = {
    "received",
    "runs",
    "effects",
    "doubles",
    "charged_amount",
    "double_amount",
    "refunds",
    "replayed",
    "refused",
    "retries",
    "crashes",
    /* the outcomes of the operations it took part in (Metrics.reached) */
    "ok",
    "double",
    "lost",
    "phantom",
    "mismatch",
    "declined",
    "refunded",
    "lost_amount",
};
const unsigned scenario_service_metric_count =
    sizeof scenario_service_metric_names / sizeof scenario_service_metric_names[0];

bool scenario_is_service_metric(const char *name, size_t length)
{
    return among(scenario_service_metric_names, scenario_service_metric_count, name, length);
}

bool scenario_metric_known(const char *name)
{
    const char *at = strchr(name, '@');
    if (at == NULL)
        return scenario_expect_metric_index(name) >= 0;
    size_t length = (size_t)(at - name);
    /* an id is a name ("#n" for an instance): nothing that would break a CSV header or a
     * shard's list */
    return (scenario_is_group_metric(name, length) || scenario_is_service_metric(name, length)) &&
           at[1] != '\0' && strpbrk(at + 1, " ,@\"\n") == NULL;
}

int scenario_metric_group(const Scenario *scenario, const char *name)
{
    const char *at = strchr(name, '@');
    for (uint32_t g = 0; at != NULL && g < scenario->client_group_count; g++) {
        if (strcmp(scenario->client_groups[g].id, at + 1) == 0)
            return (int)g;
    }
    return -1;
}

static void list_names(const char *const *names, unsigned count, char *list, size_t size)
{
    size_t used = 0;
    list[0] = '\0';
    for (unsigned i = 0; i < count && used < size; i++) {
        int written = snprintf(list + used, size - used, "%s%s", i ? ", " : "", names[i]);
        used += written > 0 ? (size_t)written : 0;
    }
}

/* The names METRIC@NAME may give (the groups, then the service nodes), whole names only, as
 * many as fit in known (then "..."); and the closest to target in best (empty: none close).
 * best is a copy: the names are this function's own. */
static void list_targets(const Scenario *scenario, const char *target, char *known, size_t size,
                         char *best, size_t best_size)
{
    NameSuggestion suggestion;
    scenario_names_suggest_init(&suggestion, target);
    char names[CLIENT_GROUPS_MAX + SCENARIO_NODES_MAX][NODE_NAME_LEN_MAX];
    unsigned count = 0;
    for (uint32_t g = 0; g < scenario->client_group_count; g++)
        snprintf(names[count++], NODE_NAME_LEN_MAX, "%s", scenario->client_groups[g].id);
    count += scenario_service_node_names(scenario, names + count, SCENARIO_NODES_MAX);
    size_t used = 0;
    bool full = false;
    known[0] = '\0';
    for (unsigned i = 0; i < count; i++) {
        scenario_names_suggest_consider(&suggestion, names[i]);
        int written =
            full ? -1 : snprintf(known + used, size - used, "%s'%s'", i ? ", " : "", names[i]);
        if (written < 0 || (size_t)written + sizeof ", ..." > size - used) {
            if (!full)
                snprintf(known + used, size - used, ", ...");
            full = true;
            continue;
        }
        used += (size_t)written;
    }
    snprintf(best, best_size, "%s", suggestion.best != NULL ? suggestion.best : "");
}

/* "METRIC@GROUP": one client group's share of an outcome (or of its money); "METRIC@SERVICE":
 * one service's (or one instance's) counter. */
static void read_share_expectation(ScenarioReader *scenario_reader, const cJSON *item,
                                   const cJSON *block, Mode mode)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    const char *name = item->string;
    size_t length = strcspn(name, "@");
    const char *target = name + length + 1;
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    scenario_errors_quote(quoted, sizeof quoted, name);
    Expectation expectation = {.mode = mode};
    int group = -1;
    for (uint32_t g = 0; g < scenario->client_group_count && group < 0; g++) {
        if (strcmp(scenario->client_groups[g].id, target) == 0)
            group = (int)g;
    }
    char metrics[256];
    if (group >= 0 && !scenario_is_group_metric(name, length)) {
        list_names(scenario_group_metric_names, scenario_group_metric_count, metrics,
                   sizeof metrics);
        schema_error(reader,
                     "unknown metric %s (a client group's metric, METRIC@GROUP, is one of %s)",
                     quoted, metrics);
        return;
    }
    bool service = group < 0 && scenario_service_name_known(scenario, target);
    if (service && !scenario_is_service_metric(name, length)) {
        list_names(scenario_service_metric_names, scenario_service_metric_count, metrics,
                   sizeof metrics);
        schema_error(reader, "unknown metric %s (a service's metric, METRIC@SERVICE, is one of %s)",
                     quoted, metrics);
        return;
    }
    if (group < 0 && !service) {
        char known[72]; /* within an error message's room */
        char best[NODE_NAME_LEN_MAX];
        list_targets(scenario, target, known, sizeof known, best, sizeof best);
        if (best[0] != '\0')
            schema_error(reader, "unknown client group or service in metric %s, did you mean '%s'?",
                         quoted, best);
        else
            schema_error(reader,
                         "unknown client group or service in metric %s (the groups and "
                         "services: %s)",
                         quoted, known);
        return;
    }
    if (group >= 0) {
        expectation.per_group = true;
        expectation.group = (uint32_t)group;
    } else {
        snprintf(expectation.service, sizeof expectation.service, "%s", target);
    }
    for (const cJSON *other = block->child; other != item; other = other->next) {
        if (strcmp(other->string, name) == 0) {
            schema_error(reader, "duplicate key %s", quoted);
            return;
        }
    }
    snprintf(expectation.metric, sizeof expectation.metric, "%s", name);
    json_path_push_key(&reader->path, name);
    read_expectation(reader, item, &expectation);
    json_path_pop(&reader->path);
    if (scenario->expectation_count < EXPECTATIONS_MAX)
        scenario->expectations[scenario->expectation_count++] = expectation;
}

static void read_mode_block(ScenarioReader *scenario_reader, const cJSON *block, Mode mode)
{
    SchemaReader *reader = &scenario_reader->reader;
    Scenario *scenario = scenario_reader->scenario;
    if (!schema_expect(reader, block, cJSON_Object, "object")) {
        return;
    }
    bool seen[METRICS_MAX] = {false};
    for (const cJSON *item = block->child; item != NULL && !schema_full(reader);
         item = item->next) {
        char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
        if (strchr(item->string, '@') != NULL) {
            read_share_expectation(scenario_reader, item, block, mode);
            continue;
        }
        int index = scenario_expect_metric_index(item->string);
        if (index < 0) {
            scenario_expect_unknown_metric(reader, item->string);
            continue;
        }
        if (seen[index]) {
            schema_error(reader, "duplicate key %s",
                         scenario_errors_quote(quoted, sizeof quoted, item->string));
            continue;
        }
        seen[index] = true;
        Expectation expectation = {.mode = mode};
        snprintf(expectation.metric, sizeof expectation.metric, "%s", item->string);
        json_path_push_key(&reader->path, item->string);
        read_expectation(reader, item, &expectation);
        json_path_pop(&reader->path);
        if (scenario->expectation_count < EXPECTATIONS_MAX) {
            scenario->expectations[scenario->expectation_count++] = expectation;
        }
    }
}

/* ------------------------------------------------------------------ all modes */

static bool mode_is_run(const Scenario *scenario, Mode mode)
{
    for (uint32_t i = 0; i < scenario->mode_count; i++) {
        if (scenario->modes[i] == mode) {
            return true;
        }
    }
    return false;
}

static void check_expectation_count(SchemaReader *reader, const cJSON *expect)
{
    unsigned long total = 0;
    for (const cJSON *block = expect->child; block != NULL; block = block->next) {
        for (const cJSON *item = cJSON_IsObject(block) ? block->child : NULL; item != NULL;
             item = item->next) {
            total++;
        }
    }
    if (total > EXPECTATIONS_MAX) {
        schema_error(reader, "expected at most %d expectations in total (got %lu)",
                     EXPECTATIONS_MAX, total);
    }
}

static void report_mode_not_run(SchemaReader *reader, const Scenario *scenario, Mode mode)
{
    char modes[80] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < scenario->mode_count && used < sizeof modes; i++) {
        int n = snprintf(modes + used, sizeof modes - used, "%s'%s'", i > 0 ? ", " : "",
                         mode_name(scenario->modes[i]));
        used += n > 0 ? (size_t)n : 0;
    }
    schema_error(reader, "mode '%s' is not run by this scenario (modes: %s)", mode_name(mode),
                 modes);
}

static void unknown_mode(SchemaReader *reader, const char *name)
{
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    char names[80];
    NameSuggestion suggestion;
    scenario_names_suggest_init(&suggestion, name);
    scenario_names_suggest_table(&suggestion, &scenario_names_mode);
    scenario_errors_quote(quoted, sizeof quoted, name);
    if (suggestion.best != NULL) {
        schema_error(reader, "unknown mode %s, did you mean '%s'?", quoted, suggestion.best);
    } else {
        scenario_names_list(&scenario_names_mode, names, sizeof names);
        schema_error(reader, "unknown mode %s (modes: %s)", quoted, names);
    }
}

void scenario_expect_read(SchemaReader *reader, const cJSON *item, void *target)
{
    ScenarioReader *scenario_reader = (ScenarioReader *)reader;
    const Scenario *scenario = target;
    if (!schema_expect(reader, item, cJSON_Object, "object")) {
        return;
    }
    check_expectation_count(reader, item);
    bool seen[MODE_COUNT] = {false};
    for (const cJSON *block = item->child; block != NULL && !schema_full(reader);
         block = block->next) {
        int mode = 0;
        char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
        if (!scenario_names_find(&scenario_names_mode, block->string, &mode)) {
            unknown_mode(reader, block->string);
            continue;
        }
        if (seen[mode]) {
            schema_error(reader, "duplicate key %s",
                         scenario_errors_quote(quoted, sizeof quoted, block->string));
            continue;
        }
        seen[mode] = true;
        json_path_push_key(&reader->path, block->string);
        if (scenario_reader->modes_readable && !mode_is_run(scenario, (Mode)mode)) {
            report_mode_not_run(reader, scenario, (Mode)mode);
        }
        read_mode_block(scenario_reader, block, (Mode)mode);
        json_path_pop(&reader->path);
    }
}

/* ------------------------------------------------------------------ writing */

/* One block per mode, in the order the expectations were read (grouped by mode already). */
void scenario_expect_write(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Scenario *scenario = target;
    if (scenario->expectation_count == 0)
        return; /* no "expect" at all: an empty one would be the same, but say nothing */
    cJSON *expect = schema_write_item(writer, object, key, cJSON_CreateObject());
    for (uint32_t i = 0; expect != NULL && i < scenario->expectation_count; i++) {
        const Expectation *expectation = &scenario->expectations[i];
        const char *mode = mode_name(expectation->mode);
        cJSON *block = cJSON_GetObjectItemCaseSensitive(expect, mode);
        if (block == NULL)
            block = schema_write_item(writer, expect, mode, cJSON_CreateObject());
        if (block == NULL)
            return;
        if (expectation->min == expectation->max) {
            schema_write_number(writer, block, expectation->metric, expectation->min);
            continue;
        }
        cJSON *bounds = schema_write_item(writer, block, expectation->metric, cJSON_CreateObject());
        if (bounds != NULL && isfinite(expectation->min))
            schema_write_number(writer, bounds, "min", expectation->min);
        if (bounds != NULL && isfinite(expectation->max))
            schema_write_number(writer, bounds, "max", expectation->max);
    }
}
