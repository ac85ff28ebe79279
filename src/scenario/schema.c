/* The table-driven reader (see schema.h). */
#include "schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "scenario_errors.h"

/* ------------------------------------------------------------------ errors */

void schema_reader_init(SchemaReader *reader, LoadErrors *errors, const JsonNumbers *numbers)
{
    reader->errors = errors;
    reader->numbers = numbers;
    json_path_init(&reader->path);
    reader->error_total = 0;
}

static void error_here(SchemaReader *reader, const char *format, va_list arguments)
    __attribute__((format(printf, 2, 0)));

static void error_here(SchemaReader *reader, const char *format, va_list arguments)
{
    char path[JSON_PATH_LEN_MAX];
    json_path_render(&reader->path, path, sizeof path);
    scenario_errors_addv(reader->errors, path, format, arguments);
    reader->error_total++;
}

void schema_error(SchemaReader *reader, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    error_here(reader, format, arguments);
    va_end(arguments);
}

void schema_error_at(SchemaReader *reader, const char *key, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    json_path_push_key(&reader->path, key);
    error_here(reader, format, arguments);
    json_path_pop(&reader->path);
    va_end(arguments);
}

bool schema_full(const SchemaReader *reader)
{
    return reader->errors->truncated;
}

/* ------------------------------------------------------------------ describing values */

const cJSON *schema_member(const cJSON *object, const char *key)
{
    for (const cJSON *child = object->child; child != NULL; child = child->next) {
        if (child->string != NULL && strcmp(child->string, key) == 0) {
            return child;
        }
    }
    return NULL;
}

const char *schema_type_name(const cJSON *item)
{
    switch (item->type & 0xFF) {
    case cJSON_False:
    case cJSON_True:
        return "boolean";
    case cJSON_NULL:
        return "null";
    case cJSON_Number:
        return "number";
    case cJSON_String:
        return "string";
    case cJSON_Array:
        return "array";
    case cJSON_Object:
        return "object";
    default:
        return "invalid value";
    }
}

void schema_format_number(double value, char *buffer, size_t size)
{
    if (isinf(value)) {
        snprintf(buffer, size, "%s", value > 0 ? "inf" : "-inf");
        return;
    }
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buffer, size, "%.*g", precision, value);
        if (strtod(buffer, NULL) == value) {
            return;
        }
    }
}

void schema_check_from_before_to(SchemaReader *reader, double from_ms, double to_ms)
{
    if (to_ms > from_ms)
        return;
    char from[32];
    char to[32];
    schema_format_number(from_ms, from, sizeof from);
    schema_format_number(to_ms, to, sizeof to);
    schema_error_at(reader, "to_ms", "expected number > from_ms (%s) (got %s)", from, to);
}

void schema_describe_number(const SchemaReader *reader, const cJSON *item, char *buffer,
                            size_t size)
{
    const char *text = json_text_number(reader->numbers, item);
    if (text != NULL) {
        snprintf(buffer, size, "%s", text);
    } else {
        schema_format_number(item->valuedouble, buffer, size);
    }
}

/* ------------------------------------------------------------------ scalars */

bool schema_expect(SchemaReader *reader, const cJSON *item, int type, const char *expected)
{
    bool ok = type == cJSON_True ? cJSON_IsBool(item) : (item->type & 0xFF) == type;
    if (!ok) {
        schema_error(reader, "expected %s (got %s)", expected, schema_type_name(item));
    }
    return ok;
}

/* "expected number in [0, 1] (got 1.5)", or only the bound that was crossed:
 * "expected integer >= 1 (got -5)". */
static bool check_range(SchemaReader *reader, const cJSON *item, const SchemaRange *range,
                        const char *kind)
{
    double value = item->valuedouble;
    bool below = range->min_exclusive ? !(value > range->min) : !(value >= range->min);
    bool above = !(value <= range->max);
    if (!below && !above) {
        return true;
    }
    char got[80];
    char low[32];
    char high[32];
    schema_describe_number(reader, item, got, sizeof got);
    schema_format_number(range->min, low, sizeof low);
    schema_format_number(range->max, high, sizeof high);
    if (range->interval) {
        schema_error(reader, "expected %s in %c%s, %s] (got %s)", kind,
                     range->min_exclusive ? '(' : '[', low, high, got);
    } else if (below) {
        schema_error(reader, "expected %s %s %s (got %s)", kind,
                     range->min_exclusive ? ">" : ">=", low, got);
    } else {
        schema_error(reader, "expected %s <= %s (got %s)", kind, high, got);
    }
    return false;
}

bool schema_read_number(SchemaReader *reader, const cJSON *item, const SchemaRange *range,
                        double *value)
{
    if (!schema_expect(reader, item, cJSON_Number, "number")) {
        return false;
    }
    if (!isfinite(item->valuedouble)) {
        char got[80];
        schema_describe_number(reader, item, got, sizeof got);
        schema_error(reader, "expected finite number (got %s)", got);
        return false;
    }
    if (!check_range(reader, item, range, "number")) {
        return false;
    }
    /* Below half a microsecond a time rounds to 0 (sim_time_us_from_ms rounds to nearest). */
    if (range->time_ms && item->valuedouble > 0 && item->valuedouble < SCHEMA_TIME_MS_MIN / 2) {
        char got[80];
        schema_describe_number(reader, item, got, sizeof got);
        schema_error(reader, "expected %sat least %g ms, the resolution of simulated time (got %s)",
                     range->min_exclusive ? "" : "0 or ", SCHEMA_TIME_MS_MIN, got);
        return false;
    }
    *value = item->valuedouble == 0 ? 0.0 : item->valuedouble; /* no -0 downstream */
    return true;
}

typedef enum { TEXT_INTEGER_EXACT, TEXT_NOT_INTEGRAL, TEXT_NOT_EXACT } TextInteger;

/* Whether a number's source text is an integer equal to the double cJSON read from it.
 * cJSON rounds "9007199254740993" to 2^53 and "2.0000000000000000000000001" to 2, so the
 * double alone cannot tell; the text, as a decimal, can: digits d with exponent e, trailing
 * zeros moved into e, is integral when e >= 0, and then exact when it fits 2^53 and equals
 * the double. */
static TextInteger text_integer(const char *text, double value)
{
    char digits[JSON_TEXT_NUMBER_LEN_MAX + 1];
    size_t count = 0;
    long exponent = 0;
    const char *p = text + (*text == '-');
    for (bool fraction = false; *p != '\0' && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            fraction = true;
            continue;
        }
        exponent -= fraction; /* each fraction digit, leading zeros included, is a tenth */
        if (count > 0 || *p != '0')
            digits[count++] = *p;
    }
    if (*p == 'e' || *p == 'E') {
        long written = strtol(p + 1, NULL, 10); /* clamped: no overflow in the sums below */
        exponent += written > 100000 ? 100000 : written < -100000 ? -100000 : written;
    }
    while (count > 0 && digits[count - 1] == '0') {
        count--;
        exponent++;
    }
    if (count == 0)
        return TEXT_INTEGER_EXACT; /* zero, however written */
    if (exponent < 0)
        return TEXT_NOT_INTEGRAL;
    if (count + (size_t)exponent > 16)
        return TEXT_NOT_EXACT; /* 10^16 > 2^53 */
    uint64_t magnitude = 0;
    for (size_t i = 0; i < count; i++)
        magnitude = magnitude * 10 + (uint64_t)(digits[i] - '0');
    for (long i = 0; i < exponent; i++)
        magnitude *= 10;
    return magnitude <= (1ull << 53) && (double)magnitude == fabs(value) ? TEXT_INTEGER_EXACT
                                                                         : TEXT_NOT_EXACT;
}

bool schema_read_integer(SchemaReader *reader, const cJSON *item, const SchemaRange *range,
                         double *value)
{
    if (!schema_expect(reader, item, cJSON_Number, "integer")) {
        return false;
    }
    /* An infinite value (1e400) is integral here and fails the range check: "expected
     * integer <= 9007199254740992 (got 1e400)", which says what to fix. */
    if (floor(item->valuedouble) != item->valuedouble) {
        char got[80];
        schema_describe_number(reader, item, got, sizeof got);
        schema_error(reader, "expected integer (got %s)", got);
        return false;
    }
    if (!check_range(reader, item, range, "integer")) {
        return false;
    }
    const char *text = json_text_number(reader->numbers, item);
    TextInteger exact = text != NULL ? text_integer(text, item->valuedouble) : TEXT_INTEGER_EXACT;
    if (exact != TEXT_INTEGER_EXACT) {
        char got[80];
        schema_describe_number(reader, item, got, sizeof got);
        if (exact == TEXT_NOT_INTEGRAL)
            schema_error(reader, "expected integer (got %s)", got);
        else
            schema_error(
                reader, "expected integer exactly representable, at most 9007199254740992 (got %s)",
                got);
        return false;
    }
    *value = item->valuedouble == 0 ? 0.0 : item->valuedouble;
    return true;
}

bool schema_read_choice(SchemaReader *reader, const cJSON *item, const NameTable *table, int *value)
{
    if (!schema_expect(reader, item, cJSON_String, "string")) {
        return false;
    }
    if (scenario_names_find(table, item->valuestring, value)) {
        return true;
    }
    char names[160];
    char got[SCENARIO_QUOTE_LEN_MAX + 8];
    scenario_names_list(table, names, sizeof names);
    schema_error(reader, "expected one of %s (got %s)", names,
                 scenario_errors_quote(got, sizeof got, item->valuestring));
    return false;
}

static bool is_ascii(const char *text)
{
    for (; *text != '\0'; text++) {
        if ((unsigned char)*text >= 0x80) {
            return false;
        }
    }
    return true;
}

bool schema_read_text(SchemaReader *reader, const cJSON *item, size_t capacity, size_t min_length,
                      char *out)
{
    if (!schema_expect(reader, item, cJSON_String, "string")) {
        return false;
    }
    size_t length = strlen(item->valuestring);
    if (length + 1 > capacity) {
        /* Limits are in bytes; for plain ASCII, bytes are characters, which reads better. */
        const char *unit = is_ascii(item->valuestring) ? "characters" : "bytes";
        schema_error(reader, "expected string of at most %zu %s (got %zu %s)", capacity - 1, unit,
                     length, unit);
        return false;
    }
    memcpy(out, item->valuestring, length + 1);
    if (length < min_length) {
        schema_error(reader, "expected non-empty string (got '')");
        return false;
    }
    return true;
}

bool schema_read_array_size(SchemaReader *reader, const cJSON *item, unsigned min, unsigned max,
                            const char *singular, const char *plural, unsigned *count)
{
    if (!schema_expect(reader, item, cJSON_Array, "array")) {
        return false;
    }
    unsigned long n = 0;
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        n++;
    }
    if (n < min) {
        schema_error(reader, "expected at least %u %s (got %lu)", min, min == 1 ? singular : plural,
                     n);
        *count = 0;
        return false;
    }
    if (n > max) {
        schema_error(reader, "expected at most %u %s (got %lu)", max, max == 1 ? singular : plural,
                     n);
    }
    *count = n > max ? max : (unsigned)n;
    return true;
}

/* ------------------------------------------------------------------ fields */

static void read_field(SchemaReader *reader, const cJSON *item, const SchemaField *field,
                       void *base)
{
    void *target = (char *)base + field->offset;
    double number = 0;
    int choice = 0;
    switch (field->type) {
    case SCHEMA_NUMBER:
        if (schema_read_number(reader, item, &field->range, &number)) {
            *(double *)target = number;
        }
        break;
    case SCHEMA_U32:
        if (schema_read_integer(reader, item, &field->range, &number)) {
            *(uint32_t *)target = (uint32_t)number;
        }
        break;
    case SCHEMA_I64:
        if (schema_read_integer(reader, item, &field->range, &number)) {
            *(int64_t *)target = (int64_t)number;
        }
        break;
    case SCHEMA_U64:
        if (schema_read_integer(reader, item, &field->range, &number)) {
            *(uint64_t *)target = (uint64_t)number;
        }
        break;
    case SCHEMA_BOOLEAN:
        if (schema_expect(reader, item, cJSON_True, "boolean")) {
            *(bool *)target = cJSON_IsTrue(item);
        }
        break;
    case SCHEMA_CHOICE:
        if (schema_read_choice(reader, item, field->choices, &choice)) {
            memcpy(target, &choice, sizeof choice); /* SCHEMA_ENUM_MEMBER checked the size */
        }
        break;
    case SCHEMA_TEXT:
        schema_read_text(reader, item, field->size, (size_t)field->range.min, target);
        break;
    case SCHEMA_OBJECT:
        schema_read_object(reader, item, field->object, target);
        break;
    case SCHEMA_CUSTOM:
        field->read(reader, item, target);
        break;
    }
}

static int field_index(const SchemaObject *schema, const char *key)
{
    for (unsigned i = 0; i < schema->field_count; i++) {
        if (strcmp(schema->fields[i].key, key) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Returns the index of the suggested field, or -1. */
static int unknown_key(SchemaReader *reader, const SchemaObject *schema, const char *key)
{
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    scenario_errors_quote(quoted, sizeof quoted, key);
    NameSuggestion suggestion;
    scenario_names_suggest_init(&suggestion, key);
    for (unsigned i = 0; i < schema->field_count; i++) {
        scenario_names_suggest_consider(&suggestion, schema->fields[i].key);
    }
    if (suggestion.best != NULL) {
        schema_error(reader, "unknown key %s, did you mean '%s'?", quoted, suggestion.best);
        return field_index(schema, suggestion.best);
    }
    if (schema->hint != NULL) {
        schema_error(reader, "unknown key %s (%s)", quoted, schema->hint);
    } else {
        schema_error(reader, "unknown key %s", quoted);
    }
    return -1;
}

/* Unknown and duplicate keys, in document order. suggested[i]: some unknown key was taken
 * for field i, so "missing required key" for it would only repeat the same mistake. */
static void check_keys(SchemaReader *reader, const cJSON *object, const SchemaObject *schema,
                       bool suggested[SCHEMA_FIELDS_MAX])
{
    bool seen[SCHEMA_FIELDS_MAX] = {false};
    for (const cJSON *child = object->child; child != NULL; child = child->next) {
        if (schema_full(reader)) {
            return;
        }
        const char *key = child->string != NULL ? child->string : "";
        int index = field_index(schema, key);
        if (index < 0) {
            index = unknown_key(reader, schema, key);
            if (index >= 0) {
                suggested[index] = true;
            }
        } else if (seen[index]) {
            char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
            schema_error(reader, "duplicate key %s",
                         scenario_errors_quote(quoted, sizeof quoted, key));
        } else {
            seen[index] = true;
        }
    }
}

void schema_read_object(SchemaReader *reader, const cJSON *object, const SchemaObject *schema,
                        void *base)
{
    if (!schema_expect(reader, object, cJSON_Object, "object")) {
        return;
    }
    unsigned long errors_before = reader->error_total;
    bool suggested[SCHEMA_FIELDS_MAX] = {false};
    check_keys(reader, object, schema, suggested);
    for (unsigned i = 0; i < schema->field_count; i++) {
        const SchemaField *field = &schema->fields[i];
        const cJSON *item = schema_member(object, field->key);
        if (item == NULL) {
            if (field->required && !suggested[i]) {
                schema_error(reader, "missing required key '%s'", field->key);
            }
            continue;
        }
        json_path_push_key(&reader->path, field->key);
        read_field(reader, item, field, base);
        json_path_pop(&reader->path);
    }
    if (schema->check != NULL) {
        schema->check(reader, object, base, reader->error_total == errors_before);
    }
}

/* ------------------------------------------------------------------ the known fields */

#define SCHEMA_OBJECTS_MAX 64

typedef struct {
    const SchemaObject *visited[SCHEMA_OBJECTS_MAX];
    unsigned visited_count;
    ScenarioField *fields;
    unsigned capacity;
    unsigned total;
} FieldWalk;

static bool visit(FieldWalk *walk, const SchemaObject *schema)
{
    for (unsigned i = 0; i < walk->visited_count; i++) {
        if (walk->visited[i] == schema) {
            return false;
        }
    }
    if (walk->visited_count == SCHEMA_OBJECTS_MAX) {
        return false;
    }
    walk->visited[walk->visited_count++] = schema;
    return true;
}

/* Depth first, each schema once (the link and idempotency schemas are used twice). */
static void walk_object(FieldWalk *walk, const SchemaObject *schema)
{
    for (; schema != NULL; schema = schema->variant_next) {
        if (!visit(walk, schema)) {
            continue;
        }
        for (unsigned i = 0; i < schema->field_count; i++) {
            if (walk->total < walk->capacity) {
                walk->fields[walk->total] = (ScenarioField){schema->name, schema->fields[i].key};
            }
            walk->total++;
        }
        for (unsigned i = 0; i < schema->field_count; i++) {
            if (schema->fields[i].object != NULL) {
                walk_object(walk, schema->fields[i].object);
            }
        }
    }
}

unsigned schema_known_fields(const SchemaObject *root, ScenarioField *fields, unsigned capacity)
{
    FieldWalk walk = {.fields = fields, .capacity = fields != NULL ? capacity : 0};
    walk_object(&walk, root);
    return walk.total;
}
