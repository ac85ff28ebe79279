/* Distributions: {"dist": NAME, parameters...}, or a bare number for "const".
 * A distribution is a whole value, not a partial object: "dist" and every parameter of that
 * dist are required, and a parameter of another dist is an unknown key. Every distribution
 * of the format is a time in ms, so every parameter is bounded by SCENARIO_MS_MAX. */
#include <stdio.h>

#include "scenario_errors.h"
#include "scenario_schema.h"

/* ------------------------------------------------------------------ rules across parameters */

static void check_at_least(SchemaReader *reader, const char *key, double value,
                           const char *other_key, double other)
{
    if (value >= other) {
        return;
    }
    char got[32];
    char bound[32];
    schema_format_number(value, got, sizeof got);
    schema_format_number(other, bound, sizeof bound);
    schema_error_at(reader, key, "expected number >= %s (%s) (got %s)", other_key, bound, got);
}

static void check_uniform(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    const Distribution *dist = base;
    if (clean) {
        check_at_least(reader, "max", dist->b, "min", dist->a);
    }
}

static void check_lognormal(SchemaReader *reader, const cJSON *object, void *base, bool clean)
{
    (void)object;
    const Distribution *dist = base;
    if (clean) {
        check_at_least(reader, "p99", dist->b, "median", dist->a);
    }
}

/* ------------------------------------------------------------------ the variants */

#define DIST_TAG FIELD_CUSTOM("dist", 0, scenario_schema_read_tag, NULL, true)
#define PARAMETER(key_, member_, range_)                                                           \
    {                                                                                              \
        .key = key_, .type = SCHEMA_NUMBER,                                                        \
        .offset = SCHEMA_MEMBER(Distribution, member_, double), .range = range_, .required = true  \
    }
/* clang-format off */
#define RANGE_MS_ANY_SIGN {-SCENARIO_MS_MAX, SCENARIO_MS_MAX, false, false, false}
#define RANGE_SHAPE {0.0, 1e6, true, false, false}
/* clang-format on */

static const SchemaField pareto_fields[] = {
    DIST_TAG,
    PARAMETER("alpha", a, RANGE_SHAPE),
    PARAMETER("scale", b, RANGE_MS_POSITIVE),
};
static const SchemaObject pareto_schema = {.name = "<distribution>",
                                           SCHEMA_FIELDS(pareto_fields),
                                           .hint = "dist 'pareto' takes 'alpha', 'scale'"};

static const SchemaField lognormal_fields[] = {
    DIST_TAG,
    PARAMETER("median", a, RANGE_MS_POSITIVE),
    PARAMETER("p99", b, RANGE_MS_POSITIVE),
};
static const SchemaObject lognormal_schema = {.name = "<distribution>",
                                              SCHEMA_FIELDS(lognormal_fields),
                                              .check = check_lognormal,
                                              .hint = "dist 'lognormal' takes 'median', 'p99'",
                                              .variant_next = &pareto_schema};

static const SchemaField normal_fields[] = {
    DIST_TAG,
    PARAMETER("mean", a, RANGE_MS_ANY_SIGN), /* truncated at 0 when drawn */
    PARAMETER("sd", b, RANGE_MS),
};
static const SchemaObject normal_schema = {.name = "<distribution>",
                                           SCHEMA_FIELDS(normal_fields),
                                           .hint = "dist 'normal' takes 'mean', 'sd'",
                                           .variant_next = &lognormal_schema};

static const SchemaField exp_fields[] = {
    DIST_TAG,
    PARAMETER("mean", a, RANGE_MS_POSITIVE),
};
static const SchemaObject exp_schema = {.name = "<distribution>",
                                        SCHEMA_FIELDS(exp_fields),
                                        .hint = "dist 'exp' takes 'mean'",
                                        .variant_next = &normal_schema};

static const SchemaField uniform_fields[] = {
    DIST_TAG,
    PARAMETER("min", a, RANGE_MS),
    PARAMETER("max", b, RANGE_MS),
};
static const SchemaObject uniform_schema = {.name = "<distribution>",
                                            SCHEMA_FIELDS(uniform_fields),
                                            .check = check_uniform,
                                            .hint = "dist 'uniform' takes 'min', 'max'",
                                            .variant_next = &exp_schema};

static const SchemaField const_fields[] = {
    DIST_TAG,
    PARAMETER("value", a, RANGE_MS),
};
const SchemaObject scenario_dist_schema = {.name = "<distribution>",
                                           SCHEMA_FIELDS(const_fields),
                                           .hint = "dist 'const' takes 'value'",
                                           .variant_next = &uniform_schema};

/* Indexed by DistKind. */
static const SchemaObject *const variants[] = {
    &scenario_dist_schema, &uniform_schema,   &exp_schema,
    &normal_schema,        &lognormal_schema, &pareto_schema,
};

/* ------------------------------------------------------------------ reading */

void scenario_dist_read(SchemaReader *reader, const cJSON *item, void *target)
{
    Distribution *dist = target;
    if (cJSON_IsNumber(item)) {
        double value = 0;
        if (schema_read_number(reader, item, &(SchemaRange)RANGE_MS, &value)) {
            *dist = (Distribution){DIST_CONST, value, 0};
        }
        return;
    }
    if (!cJSON_IsObject(item)) {
        schema_error(reader, "expected object or number (got %s)", schema_type_name(item));
        return;
    }
    const cJSON *tag = schema_member(item, "dist");
    if (tag == NULL) {
        char names[120];
        scenario_names_list(&scenario_names_dist, names, sizeof names);
        schema_error(reader, "missing required key 'dist' (one of %s)", names);
        return;
    }
    int kind = 0;
    json_path_push_key(&reader->path, "dist");
    bool known = schema_read_choice(reader, tag, &scenario_names_dist, &kind);
    json_path_pop(&reader->path);
    if (!known) {
        return; /* which keys belong is unknown: say nothing about them */
    }
    Distribution result = {(DistKind)kind, 0, 0};
    unsigned long errors_before = reader->error_total;
    schema_read_object(reader, item, variants[kind], &result);
    if (reader->error_total == errors_before) {
        *dist = result;
    }
}

/* Always the object form, even for a constant: {"dist": "const", "value": 5} reads back the
 * same as 5, and every distribution then looks alike in show's output. */
void scenario_dist_write(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Distribution *dist = target;
    cJSON *written = schema_write_item(writer, object, key, cJSON_CreateObject());
    if (written == NULL)
        return;
    schema_write_choice(writer, written, "dist", &scenario_names_dist, (int)dist->kind);
    schema_write_object(writer, variants[dist->kind], dist, written);
}
