/* Writing a struct back to JSON by the schema table that reads it (schema.h): the inverse of
 * schema_read_object, so `idemsim show` cannot drift from the loader. Numbers go through
 * cJSON, which prints the shortest text that reads back to the same double. */
#include <string.h>

#include "schema.h"

cJSON *schema_write_item(SchemaWriter *writer, cJSON *object, const char *key, cJSON *item)
{
    if (item == NULL) {
        writer->out_of_memory = true;
        return NULL;
    }
    bool added =
        key == NULL ? cJSON_AddItemToArray(object, item) : cJSON_AddItemToObject(object, key, item);
    if (!added) {
        cJSON_Delete(item);
        writer->out_of_memory = true;
        return NULL;
    }
    return item;
}

void schema_write_number(SchemaWriter *writer, cJSON *object, const char *key, double number)
{
    schema_write_item(writer, object, key, cJSON_CreateNumber(number));
}

void schema_write_string(SchemaWriter *writer, cJSON *object, const char *key, const char *text)
{
    schema_write_item(writer, object, key, cJSON_CreateString(text));
}

void schema_write_choice(SchemaWriter *writer, cJSON *object, const char *key,
                         const NameTable *table, int value)
{
    const char *name = scenario_names_of(table, value);
    schema_write_string(writer, object, key, name != NULL ? name : "?");
}

static void write_field(SchemaWriter *writer, const SchemaField *field, const void *base,
                        cJSON *object)
{
    const void *member = (const char *)base + field->offset;
    int choice = 0;
    switch (field->type) {
    case SCHEMA_NUMBER:
        schema_write_number(writer, object, field->key, *(const double *)member);
        break;
    case SCHEMA_U32:
        schema_write_number(writer, object, field->key, *(const uint32_t *)member);
        break;
    case SCHEMA_I64:
        schema_write_number(writer, object, field->key, (double)*(const int64_t *)member);
        break;
    case SCHEMA_U64:
        schema_write_number(writer, object, field->key, (double)*(const uint64_t *)member);
        break;
    case SCHEMA_BOOLEAN:
        schema_write_item(writer, object, field->key, cJSON_CreateBool(*(const bool *)member));
        break;
    case SCHEMA_CHOICE:
        memcpy(&choice, member, sizeof choice); /* SCHEMA_ENUM_MEMBER checked the size */
        schema_write_choice(writer, object, field->key, field->choices, choice);
        break;
    case SCHEMA_TEXT:
        schema_write_string(writer, object, field->key, (const char *)member);
        break;
    case SCHEMA_OBJECT: {
        cJSON *nested = schema_write_item(writer, object, field->key, cJSON_CreateObject());
        if (nested != NULL)
            schema_write_object(writer, field->object, member, nested);
        break;
    }
    case SCHEMA_CUSTOM:
        if (field->write != NULL)
            field->write(writer, member, object, field->key);
        break;
    }
}

void schema_write_object(SchemaWriter *writer, const SchemaObject *schema, const void *base,
                         cJSON *object)
{
    for (unsigned i = 0; i < schema->field_count; i++) {
        const SchemaField *field = &schema->fields[i];
        if (schema->shown == NULL || schema->shown(writer, base, field->key))
            write_field(writer, field, base, object);
    }
}
