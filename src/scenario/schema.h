/* Reading a cJSON object into a C struct by a table of its fields (a schema). Each field names
 * its key, its type and the struct member it fills. Unknown and duplicate keys, wrong types
 * and out-of-range values become LoadErrors at their JSON path, and reading carries on with
 * the next field, so one pass finds every error. The member of an absent key keeps what the
 * caller put there: callers fill in defaults first. Tables are checked at compile time: a
 * field's C type must match its schema type (see SCHEMA_MEMBER). */
#ifndef IDEMSIM_SCHEMA_H
#define IDEMSIM_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "json_path.h"
#include "json_text.h"
#include "scenario.h"
#include "scenario_names.h"

#define SCHEMA_FIELDS_MAX 32 /* per object */

typedef struct SchemaReader SchemaReader;
typedef struct SchemaObject SchemaObject;

/* Writing goes the other way (idemsim show): a struct back to the JSON the same table reads,
 * every member written, so reading the output fills the struct as it was. context is what
 * a custom writer needs to turn an index into a name (the Scenario). */
typedef struct {
    const void *context;
    bool out_of_memory; /* some member could not be added: the tree is incomplete */
} SchemaWriter;
/* Adds key with the value of target (the member at the field's offset) to object. */
typedef void SchemaWriteFunction(SchemaWriter *writer, const void *target, cJSON *object,
                                 const char *key);
/* Whether the member of key is written: false for a key whose mere presence means something
 * (an outage object turns the outage on) or that the struct's other members refuse. */
typedef bool SchemaShownFunction(const SchemaWriter *writer, const void *base, const char *key);

/* Reads item into target (the member at the field's offset); errors go to the reader. */
typedef void SchemaReadFunction(SchemaReader *reader, const cJSON *item, void *target);
/* Rules across fields, run after them; clean: no error was found inside the object, so every
 * member holds a valid value (compare members only then, or one mistake reports twice). */
typedef void SchemaCheckFunction(SchemaReader *reader, const cJSON *object, void *base, bool clean);

typedef enum {
    SCHEMA_NUMBER, /* double, finite, within range */
    SCHEMA_U32,    /* integral, within range */
    SCHEMA_I64,
    SCHEMA_U64,
    SCHEMA_BOOLEAN, /* bool */
    SCHEMA_CHOICE,  /* a name of `choices`, stored in an enum member */
    SCHEMA_TEXT,    /* char[size]; range.min: the shortest length */
    SCHEMA_OBJECT,  /* nested object read by `object` into the member */
    SCHEMA_CUSTOM   /* read by `read` */
} SchemaType;

typedef struct {
    double min;
    double max;
    bool min_exclusive; /* > min rather than >= min */
    bool interval;      /* messages say "in [0, 1]", not only the bound that was crossed */
    bool time_ms;       /* milliseconds of simulated time: a positive value must not round to
                           0 us (SCHEMA_TIME_MS_MIN) */
} SchemaRange;

/* The least positive time in ms: simulated time counts whole microseconds (rounded to
 * nearest), and a positive time that became 0 would make a timeout fire at once forever. */
#define SCHEMA_TIME_MS_MIN 0.001

typedef struct {
    const char *key;
    SchemaType type;
    size_t offset;
    SchemaRange range;
    size_t size;                /* SCHEMA_TEXT: capacity of the array, NUL included */
    const NameTable *choices;   /* SCHEMA_CHOICE */
    const SchemaObject *object; /* SCHEMA_OBJECT; for a custom field, the schema it reads its
                                   elements with, so the format reference lists those keys */
    SchemaReadFunction *read;   /* SCHEMA_CUSTOM */
    SchemaWriteFunction *write; /* SCHEMA_CUSTOM; NULL: never written (a field that is always
                                   refused, or one its caller writes) */
    bool required;
} SchemaField;

struct SchemaObject {
    const char *name; /* as docs/scenario-format.md titles the object */
    const SchemaField *fields;
    unsigned field_count;
    SchemaCheckFunction *check;       /* may be NULL */
    const char *hint;                 /* added to "unknown key" when there is no suggestion */
    const SchemaObject *variant_next; /* the next variant of a tagged union, same name */
    SchemaShownFunction *shown;       /* may be NULL: every field is written */
};

struct SchemaReader {
    LoadErrors *errors;
    const JsonNumbers *numbers; /* the source texts of the tree's numbers; may be NULL */
    JsonPath path;
    unsigned long error_total; /* every error found, those past LOAD_ERRORS_MAX included */
};

/* ------------------------------------------------------------------ table helpers */

/* offsetof(type, member), refusing to compile unless the member has C type ctype. */
#define SCHEMA_MEMBER(type, member, ctype)                                                         \
    (offsetof(type, member) + 0 * sizeof(char[_Generic(((type *)0)->member, ctype : 1)]))
/* An enum member, written as an int: its size must be an int's. */
#define SCHEMA_ENUM_MEMBER(type, member)                                                           \
    (offsetof(type, member) + 0 * sizeof(char[sizeof(((type *)0)->member) == sizeof(int) ? 1 : -1]))

/* .fields and .field_count of a SchemaObject, refusing tables over SCHEMA_FIELDS_MAX. */
#define SCHEMA_FIELDS(array)                                                                       \
    .fields = array,                                                                               \
    .field_count = (unsigned)(sizeof array / sizeof array[0]) +                                    \
                   0 * sizeof(char[sizeof array / sizeof array[0] <= SCHEMA_FIELDS_MAX ? 1 : -1])

/* ------------------------------------------------------------------ reading */

void schema_reader_init(SchemaReader *reader, LoadErrors *errors, const JsonNumbers *numbers);

/* Records an error at the current path, or at the current path plus key. */
void schema_error(SchemaReader *reader, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
void schema_error_at(SchemaReader *reader, const char *key, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* No room is left for errors: loops over huge inputs may stop. */
bool schema_full(const SchemaReader *reader);

void schema_read_object(SchemaReader *reader, const cJSON *object, const SchemaObject *schema,
                        void *base);

/* Each returns false, with an error recorded, when item is not acceptable. */
bool schema_expect(SchemaReader *reader, const cJSON *item, int type, const char *expected);
bool schema_read_number(SchemaReader *reader, const cJSON *item, const SchemaRange *range,
                        double *value);
bool schema_read_integer(SchemaReader *reader, const cJSON *item, const SchemaRange *range,
                         double *value);
bool schema_read_choice(SchemaReader *reader, const cJSON *item, const NameTable *table,
                        int *value);
/* Copies the string into out (capacity bytes) whenever it fits, even when it is refused for
 * being shorter than min_length. */
bool schema_read_text(SchemaReader *reader, const cJSON *item, size_t capacity, size_t min_length,
                      char *out);
/* An array of min..max elements; *count is how many to read (at most max, even when the
 * array is longer, so the first ones are still checked). */
bool schema_read_array_size(SchemaReader *reader, const cJSON *item, unsigned min, unsigned max,
                            const char *singular, const char *plural, unsigned *count);

/* ------------------------------------------------------------------ describing values */

const cJSON *schema_member(const cJSON *object, const char *key);   /* first, case-sensitive */
const char *schema_type_name(const cJSON *item);                    /* "number", "object" */
void schema_format_number(double value, char *buffer, size_t size); /* shortest round trip */
/* A window's end after its start, else an error at "to_ms" (an outage's, a question's...). */
void schema_check_from_before_to(SchemaReader *reader, double from_ms, double to_ms);
/* As written in the text, when the reader's side table knows it. */
void schema_describe_number(const SchemaReader *reader, const cJSON *item, char *buffer,
                            size_t size);

/* Every (object, key) reachable from root, depth first; see scenario_known_fields. */
unsigned schema_known_fields(const SchemaObject *root, ScenarioField *fields, unsigned capacity);

/* ------------------------------------------------------------------ writing */

/* Adds every field of schema that base holds to object, in the table's order. */
void schema_write_object(SchemaWriter *writer, const SchemaObject *schema, const void *base,
                         cJSON *object);
/* Adds item to object under key (an array when key is NULL) and returns it; NULL (with
 * writer->out_of_memory set, item deleted) when memory runs out. */
cJSON *schema_write_item(SchemaWriter *writer, cJSON *object, const char *key, cJSON *item);
void schema_write_number(SchemaWriter *writer, cJSON *object, const char *key, double number);
void schema_write_string(SchemaWriter *writer, cJSON *object, const char *key, const char *text);
/* The name of value in table; a value outside it is a bug of the caller. */
void schema_write_choice(SchemaWriter *writer, cJSON *object, const char *key,
                         const NameTable *table, int value);

#endif
