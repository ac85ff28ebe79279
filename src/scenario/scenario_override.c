/* --set PATH=VALUE (see scenario_override.h). */
#include "scenario_override.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_text.h"
#include "scenario_errors.h"

#define SEGMENTS_MAX 32
#define SEGMENT_KEY_LEN_MAX 127
#define INDEX_DIGITS_MAX 9

/* ------------------------------------------------------------------ the path */

typedef struct {
    bool is_index;
    size_t index;
    char key[SEGMENT_KEY_LEN_MAX + 1];
    size_t end; /* offset just past this segment in the path, to quote the path so far */
} Segment;

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool parse_index(const char *path, size_t length, size_t *at, Segment *segment)
{
    size_t i = *at + 1; /* past '[' */
    size_t start = i;
    size_t value = 0;
    while (i < length && is_digit(path[i]) && i - start < INDEX_DIGITS_MAX) {
        value = value * 10 + (size_t)(path[i] - '0');
        i++;
    }
    if (i == start || i >= length || path[i] != ']') {
        return false;
    }
    segment->is_index = true;
    segment->index = value;
    *at = i + 1;
    return true;
}

/* Keys run to the next '.', '[' or ']': link names ("web->server") need no quoting. */
static bool parse_key(const char *path, size_t length, size_t *at, Segment *segment)
{
    size_t start = *at;
    size_t i = start;
    while (i < length && path[i] != '.' && path[i] != '[' && path[i] != ']') {
        i++;
    }
    if (i == start || i - start > SEGMENT_KEY_LEN_MAX) {
        return false;
    }
    memcpy(segment->key, path + start, i - start);
    segment->key[i - start] = '\0';
    segment->is_index = false;
    *at = i;
    return true;
}

static bool parse_path(const char *path, size_t length, Segment *segments, unsigned *count)
{
    size_t at = 0;
    unsigned n = 0;
    while (at < length) {
        if (n == SEGMENTS_MAX) {
            return false;
        }
        bool ok = false;
        if (path[at] == '[' && n > 0) {
            ok = parse_index(path, length, &at, &segments[n]);
        } else if (n == 0) {
            ok = parse_key(path, length, &at, &segments[n]);
        } else if (path[at] == '.') {
            at++;
            ok = parse_key(path, length, &at, &segments[n]);
        }
        if (!ok) {
            return false;
        }
        segments[n++].end = at;
    }
    *count = n;
    return n > 0;
}

/* ------------------------------------------------------------------ the tree */

static const char *with_article(const cJSON *item)
{
    switch (item->type & 0xFF) {
    case cJSON_Object:
        return "an object";
    case cJSON_Array:
        return "an array";
    case cJSON_NULL:
        return "null";
    case cJSON_Number:
        return "a number";
    case cJSON_String:
        return "a string";
    default:
        return "a boolean";
    }
}

static cJSON *member(cJSON *object, const char *key)
{
    for (cJSON *child = object->child; child != NULL; child = child->next) {
        if (child->string != NULL && strcmp(child->string, key) == 0) {
            return child; /* the first, as validation reads it */
        }
    }
    return NULL;
}

typedef struct {
    const char *path; /* as given, without "$." */
    const Segment *segments;
    unsigned count;
    char error_path[JSON_PATH_LEN_MAX];
    LoadErrors *errors;
} Override;

/* The path up to and including segment i, for messages. */
static int prefix_length(const Override *override, unsigned i)
{
    return (int) override->segments[i].end;
}

static bool check_index(const Override *override, unsigned i, const cJSON *container)
{
    const Segment *segment = &override->segments[i];
    if (!cJSON_IsArray(container)) {
        scenario_errors_add(override->errors, override->error_path,
                            "cannot apply --set: '%.*s' is %s, not an array",
                            prefix_length(override, i - 1), override->path,
                            with_article(container));
        return false;
    }
    int size = cJSON_GetArraySize(container);
    if (segment->index >= (size_t)size) {
        scenario_errors_add(override->errors, override->error_path,
                            "cannot apply --set: '%.*s' does not exist (array has %d element%s)",
                            prefix_length(override, i), override->path, size, size == 1 ? "" : "s");
        return false;
    }
    return true;
}

static bool step_into_array(const Override *override, unsigned i, cJSON **container)
{
    if (!check_index(override, i, *container)) {
        return false;
    }
    *container = cJSON_GetArrayItem(*container, (int) override->segments[i].index);
    return true;
}

/* Steps to the member named by segment i, creating an empty object when it is missing and
 * the path goes on with a key. */
static bool step_into_object(const Override *override, unsigned i, cJSON **container)
{
    const Segment *segment = &override->segments[i];
    if (!cJSON_IsObject(*container)) {
        scenario_errors_add(override->errors, override->error_path,
                            "cannot apply --set: '%.*s' is %s, not an object",
                            prefix_length(override, i - 1), override->path,
                            with_article(*container));
        return false;
    }
    cJSON *child = member(*container, segment->key);
    if (child == NULL && override->segments[i + 1].is_index) {
        scenario_errors_add(override->errors, override->error_path,
                            "cannot apply --set: '%.*s' does not exist", prefix_length(override, i),
                            override->path);
        return false;
    }
    if (child == NULL) {
        child = cJSON_AddObjectToObject(*container, segment->key);
        if (child == NULL) {
            scenario_errors_add(override->errors, override->error_path,
                                "cannot apply --set: out of memory");
            return false;
        }
    }
    *container = child;
    return true;
}

/* Puts value at the path; false (value not taken) after recording why not. */
static bool place(const Override *override, cJSON *root, cJSON *value)
{
    cJSON *container = root;
    unsigned last = override->count - 1;
    for (unsigned i = 0; i < last; i++) {
        bool ok = override->segments[i].is_index ? step_into_array(override, i, &container)
                                                 : step_into_object(override, i, &container);
        if (!ok) {
            return false;
        }
    }
    const Segment *segment = &override->segments[last];
    if (segment->is_index) {
        return check_index(override, last, container) &&
               cJSON_ReplaceItemInArray(container, (int)segment->index, value);
    }
    if (!cJSON_IsObject(container)) {
        scenario_errors_add(override->errors, override->error_path,
                            "cannot apply --set: '%.*s' is %s, not an object",
                            prefix_length(override, last - 1), override->path,
                            with_article(container));
        return false;
    }
    if (member(container, segment->key) != NULL) {
        /* Replaces the first such key, and gives value its name (ViaPointer would not). */
        return cJSON_ReplaceItemInObjectCaseSensitive(container, segment->key, value);
    }
    return cJSON_AddItemToObject(container, segment->key, value);
}

/* ------------------------------------------------------------------ the value */

/* JSON when it parses; a bare word is a string (--set name=retry-storm). Text that starts
 * like structured JSON but does not parse is a mistake worth reporting, not a string. */
static cJSON *parse_value(const char *text, JsonNumbers *numbers, const char *error_path,
                          LoadErrors *errors)
{
    char message[sizeof errors->items[0].message - 24];
    cJSON *value = json_text_parse(text, strlen(text), numbers, message, sizeof message);
    if (value != NULL) {
        return value;
    }
    if (text[0] == '{' || text[0] == '[' || text[0] == '"') {
        scenario_errors_add(errors, error_path, "cannot apply --set: %s", message);
        return NULL;
    }
    value = cJSON_CreateString(text);
    if (value == NULL) {
        scenario_errors_add(errors, error_path, "cannot apply --set: out of memory");
    }
    return value;
}

void scenario_override_apply(cJSON *root, JsonNumbers *numbers, const char *text,
                             LoadErrors *errors)
{
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    if (!json_text_is_utf8(text, strlen(text))) {
        /* Command-line bytes skip the file's checks; keep every name and message UTF-8. */
        scenario_errors_add(errors, "--set", "expected PATH=VALUE in UTF-8 (got invalid bytes)");
        return;
    }
    const char *equals = strchr(text, '=');
    if (equals == NULL || equals == text) {
        /* An unquoted "web->server" reaches us as "web-": the shell took ">" as a redirect. */
        size_t length = strlen(text);
        bool cut_at_arrow = length > 0 && text[length - 1] == '-';
        scenario_errors_add(errors, "--set", "expected PATH=VALUE%s (got %s)",
                            cut_at_arrow ? " (quote a path with ->: --set 'a->b.loss=0')" : "",
                            scenario_errors_quote(quoted, sizeof quoted, text));
        return;
    }
    Segment segments[SEGMENTS_MAX];
    Override override = {.path = text, .segments = segments, .errors = errors};
    size_t path_length = (size_t)(equals - text);
    if (path_length > 2 && memcmp(text, "$.", 2) == 0) {
        override.path += 2; /* the form error messages print */
        path_length -= 2;
    }
    if (!parse_path(override.path, path_length, segments, &override.count)) {
        char path[SEGMENT_KEY_LEN_MAX + 1];
        snprintf(path, sizeof path, "%.*s", (int)path_length, override.path);
        scenario_errors_add(errors, "--set",
                            "expected path like 'clients[0].retry.timeout_ms' (got %s)",
                            scenario_errors_quote(quoted, sizeof quoted, path));
        return;
    }
    snprintf(override.error_path, sizeof override.error_path, "$.%.*s", (int)path_length,
             override.path);
    scenario_errors_trim_utf8(override.error_path);
    cJSON *value = parse_value(equals + 1, numbers, override.error_path, errors);
    if (value != NULL && !place(&override, root, value)) {
        cJSON_Delete(value);
    }
}
