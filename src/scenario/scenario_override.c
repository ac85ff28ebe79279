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
    const char *path;  /* as given, without "$.", or its services-form translation */
    Segment *segments; /* an element named by id becomes its index as it is found */
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

/* The index of the element of array whose "id" (or "name") is key, or -1. */
static int element_named(const cJSON *array, const char *key)
{
    int index = 0;
    for (const cJSON *element = array->child; element != NULL; element = element->next, index++) {
        const cJSON *id = cJSON_IsObject(element) ? member((cJSON *)element, "id") : NULL;
        if (id == NULL && cJSON_IsObject(element))
            id = member((cJSON *)element, "name");
        if (cJSON_IsString(id) && strcmp(id->valuestring, key) == 0)
            return index;
    }
    return -1;
}

/* A key on an array names an element by its id: the segment becomes that index. */
static bool resolve_named_element(const Override *override, unsigned i, const cJSON *container)
{
    Segment *segment = &override->segments[i];
    int index = element_named(container, segment->key);
    if (index < 0) {
        char ids[96] = "";
        size_t used = 0;
        for (const cJSON *element = container->child; element != NULL && used < sizeof ids;
             element = element->next) {
            const cJSON *id = cJSON_IsObject(element) ? member((cJSON *)element, "id") : NULL;
            if (cJSON_IsString(id)) {
                int written = snprintf(ids + used, sizeof ids - used, "%s'%s'",
                                       used == 0 ? "" : ", ", id->valuestring);
                used += written > 0 ? (size_t)written : 0;
            }
        }
        scenario_errors_add(override->errors, override->error_path,
                            "cannot apply --set: '%.*s' has no element with id '%s' (ids: %s)",
                            prefix_length(override, i - 1), override->path, segment->key,
                            used > 0 ? ids : "none");
        return false;
    }
    segment->is_index = true;
    segment->index = (size_t)index;
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
    if (cJSON_IsArray(*container) && i > 0)
        return resolve_named_element(override, i, *container) &&
               step_into_array(override, i, container);
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
    if (!segment->is_index && cJSON_IsArray(container) &&
        !resolve_named_element(override, last, container))
        return false;
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

/* ------------------------------------------------------------------ the services form */

/* The entry of services whose member key is the string value, or -1. */
static int entry_with(const cJSON *services, const char *key, const char *value)
{
    int index = 0;
    for (const cJSON *entry = services->child; entry != NULL; entry = entry->next, index++) {
        const cJSON *item = cJSON_IsObject(entry) ? member((cJSON *)entry, key) : NULL;
        if (cJSON_IsString(item) && strcmp(item->valuestring, value) == 0)
            return index;
    }
    return -1;
}

/* In a file of the services form, a path into one of the older objects (server, gateway,
 * proxy, broker, broker.consumers, and the stores server.idempotency and
 * broker.consumers.idempotency) is rewritten into "services[k]...": the service of that
 * kind, or the store its key_store names. False when there is nothing to rewrite. */
static bool translate_older_path(const cJSON *root, const Segment *segments, unsigned count,
                                 const char *path, size_t path_length, char *translated,
                                 size_t size)
{
    static const char *const older[] = {"server", "gateway", "proxy", "broker"};
    const cJSON *services = member((cJSON *)root, "services");
    if (services == NULL || !cJSON_IsArray(services) || segments[0].is_index ||
        member((cJSON *)root, segments[0].key) != NULL)
        return false;
    bool known = false;
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++)
        known |= strcmp(segments[0].key, older[i]) == 0;
    if (!known)
        return false;
    const char *kind = segments[0].key;
    unsigned used = 1;
    bool consumers = strcmp(kind, "broker") == 0 && count > 1 && !segments[1].is_index &&
                     strcmp(segments[1].key, "consumers") == 0;
    if (consumers) {
        kind = "consumers";
        used = 2;
    }
    int index = entry_with(services, "kind", kind);
    bool store = index >= 0 && count > used && !segments[used].is_index &&
                 strcmp(segments[used].key, "idempotency") == 0 &&
                 (strcmp(kind, "server") == 0 || consumers);
    if (store) {
        const cJSON *reference = member(cJSON_GetArrayItem(services, index), "key_store");
        index = cJSON_IsString(reference) ? entry_with(services, "id", reference->valuestring) : -1;
        used++;
    }
    if (index < 0)
        return false;
    size_t rest = segments[used - 1].end;
    int written = snprintf(translated, size, "services[%d]%.*s", index, (int)(path_length - rest),
                           path + rest);
    return written > 0 && (size_t)written < size;
}

void scenario_override_services_path(const cJSON *root, char *path, size_t size)
{
    if (strncmp(path, "$.", 2) != 0)
        return;
    const char *inner = path + 2;
    Segment segments[SEGMENTS_MAX];
    unsigned count = 0;
    char translated[SCENARIO_OVERRIDE_PATH_LEN_MAX];
    if (parse_path(inner, strlen(inner), segments, &count) &&
        translate_older_path(root, segments, count, inner, strlen(inner), translated,
                             sizeof translated) &&
        strlen(translated) + 2 < size)
        snprintf(path, size, "$.%s", translated);
}

/* The path as validation names it: keys, and indexes where ids were written. */
static void write_resolved(const Override *override, char *resolved)
{
    size_t used = 0;
    resolved[0] = '\0';
    for (unsigned i = 0; i < override->count && used < SCENARIO_OVERRIDE_PATH_LEN_MAX; i++) {
        const Segment *segment = &override->segments[i];
        int written = segment->is_index
                          ? snprintf(resolved + used, SCENARIO_OVERRIDE_PATH_LEN_MAX - used,
                                     "[%zu]", segment->index)
                          : snprintf(resolved + used, SCENARIO_OVERRIDE_PATH_LEN_MAX - used, "%s%s",
                                     i == 0 ? "" : ".", segment->key);
        used += written > 0 ? (size_t)written : 0;
    }
    if (used >= SCENARIO_OVERRIDE_PATH_LEN_MAX)
        resolved[0] = '\0'; /* too long to name: errors go unattributed, not misattributed */
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
                             LoadErrors *errors, char *resolved)
{
    char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
    resolved[0] = '\0';
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
    char translated[SCENARIO_OVERRIDE_PATH_LEN_MAX];
    if (translate_older_path(root, segments, override.count, override.path, path_length, translated,
                             sizeof translated) &&
        parse_path(translated, strlen(translated), segments, &override.count)) {
        override.path = translated;
        path_length = strlen(translated);
    }
    snprintf(override.error_path, sizeof override.error_path, "$.%.*s", (int)path_length,
             override.path);
    scenario_errors_trim_utf8(override.error_path);
    cJSON *value = parse_value(equals + 1, numbers, override.error_path, errors);
    if (value != NULL && !place(&override, root, value)) {
        cJSON_Delete(value);
        return;
    }
    if (value != NULL)
        write_resolved(&override, resolved);
}
