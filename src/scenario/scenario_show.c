/* `idemsim show`: the effective scenario as a file in the services form, every default written
 * out. The tree comes from the loader's own tables (scenario_schema_write), so what is shown
 * is what is read; this file only lays it out for a reader: two-space indents, and an object
 * or array that fits in the line (a distribution, a link, a list of modes) on one line. */
#include <stdlib.h>
#include <string.h>

#include "scenario_schema.h"

#define LINE_WIDTH 100

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
    bool out_of_memory;
} Text;

static void append(Text *text, const char *part, size_t length)
{
    if (text->out_of_memory)
        return;
    if (text->length + length + 1 > text->capacity) {
        size_t capacity = text->capacity == 0 ? 4096 : text->capacity;
        while (text->length + length + 1 > capacity)
            capacity *= 2;
        char *grown = realloc(text->data, capacity);
        if (grown == NULL) {
            text->out_of_memory = true;
            return;
        }
        text->data = grown;
        text->capacity = capacity;
    }
    memcpy(text->data + text->length, part, length);
    text->length += length;
    text->data[text->length] = '\0';
}

static void append_string(Text *text, const char *part)
{
    append(text, part, strlen(part));
}

/* A leaf as cJSON prints it: strings escaped, numbers in the shortest form that reads back
 * to the same double. */
static void append_leaf(Text *text, const cJSON *item)
{
    char *printed = cJSON_PrintUnformatted(item);
    if (printed == NULL) {
        text->out_of_memory = true;
        return;
    }
    append_string(text, printed);
    cJSON_free(printed);
}

static void append_key(Text *text, const char *key)
{
    cJSON *name = cJSON_CreateString(key);
    if (name == NULL) {
        text->out_of_memory = true;
        return;
    }
    append_leaf(text, name);
    cJSON_Delete(name);
    append_string(text, ": ");
}

static void append_compact(Text *text, const cJSON *item)
{
    if (!cJSON_IsObject(item) && !cJSON_IsArray(item)) {
        append_leaf(text, item);
        return;
    }
    bool object = cJSON_IsObject(item);
    append_string(text, object ? "{" : "[");
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        if (object)
            append_key(text, child->string);
        append_compact(text, child);
        if (child->next != NULL)
            append_string(text, ", ");
    }
    append_string(text, object ? "}" : "]");
}

static void append_indent(Text *text, unsigned indent)
{
    static const char spaces[] = "                                                                ";
    while (indent > 0) {
        unsigned step = indent < sizeof spaces - 1 ? indent : (unsigned)sizeof spaces - 1;
        append(text, spaces, step);
        indent -= step;
    }
}

/* item at column, already past its key: on one line when it fits, else one member a line. */
static void append_value(Text *text, const cJSON *item, unsigned indent, size_t column)
{
    if (!cJSON_IsObject(item) && !cJSON_IsArray(item)) {
        append_leaf(text, item);
        return;
    }
    Text compact = {0};
    append_compact(&compact, item);
    if (compact.out_of_memory)
        text->out_of_memory = true;
    bool fits = compact.data != NULL && column + compact.length <= LINE_WIDTH;
    if (fits || item->child == NULL) {
        append_string(text, compact.data != NULL ? compact.data : "");
        free(compact.data);
        return;
    }
    free(compact.data);
    bool object = cJSON_IsObject(item);
    append_string(text, object ? "{\n" : "[\n");
    for (const cJSON *child = item->child; child != NULL; child = child->next) {
        append_indent(text, indent + 2);
        size_t start = text->length;
        if (object)
            append_key(text, child->string);
        append_value(text, child, indent + 2, indent + 2 + (text->length - start));
        append_string(text, child->next != NULL ? ",\n" : "\n");
    }
    append_indent(text, indent);
    append_string(text, object ? "}" : "]");
}

char *scenario_show(const Scenario *scenario)
{
    bool out_of_memory = false;
    cJSON *root = scenario_schema_write(scenario, &out_of_memory);
    Text text = {0};
    if (!out_of_memory) {
        append_value(&text, root, 0, 0);
        append_string(&text, "\n");
    }
    cJSON_Delete(root);
    if (out_of_memory || text.out_of_memory) {
        free(text.data);
        return NULL;
    }
    return text.data;
}
