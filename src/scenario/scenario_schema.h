/* The scenario format as schema tables (schema.h), split by part of the file:
 * scenario_schema.c (top level, accounts, clients), scenario_network.c, scenario_services.c
 * (server, gateway, broker), scenario_dist.c (distributions), scenario_expect.c.
 * Each part owns its defaults, the values docs/scenario-format.md documents. Reading order
 * is the top-level table's: modes, accounts and clients come before the parts that refer
 * to them. */
#ifndef IDEMSIM_SCENARIO_SCHEMA_H
#define IDEMSIM_SCENARIO_SCHEMA_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "scenario.h"
#include "schema.h"

/* The reader every custom function of the scenario gets, as its SchemaReader (the first
 * member, so the pointer converts both ways). */
typedef struct {
    SchemaReader reader;
    Scenario *scenario;
    bool accounts_readable; /* account ids are known: references to them can be checked */
    bool clients_readable;  /* client ids are known: link node names can be checked */
    bool modes_readable;    /* the modes are known: expect's modes can be checked */
    bool services_form;     /* the file has `services` (scenario_graph.c) */
    /* Which service nodes a reference may name: every kind in the older form (its objects
     * all exist, with defaults), only the declared ones in the services form. */
    bool service_declared[NODE_KIND_COUNT];
} ScenarioReader;

/* Resolves defaults (name: the scenario's name unless the file sets one), then reads the
 * tree into scenario, recording every error. numbers: the source texts of the tree's
 * numbers (json_text_parse), for messages and exact integers. */
void scenario_schema_read(const cJSON *root, const JsonNumbers *numbers, const char *name,
                          Scenario *scenario, LoadErrors *errors);

/* The scenario as the tree scenario_schema_read reads back to it, in the services form
 * (scenario_show.c prints it). *out_of_memory: some member could not be added. */
cJSON *scenario_schema_write(const Scenario *scenario, bool *out_of_memory);

/* Names of clients and accounts: letters, digits, '_' and '-', 1..NAME_LEN_MAX-1 of them.
 * out (NAME_LEN_MAX) receives any string that fits, valid or not, so later references can
 * still be matched against it. */
bool scenario_schema_read_name(SchemaReader *reader, const cJSON *item, char *out);

/* "unknown node 'srv' in link 'web->srv', did you mean 'server'?" or, when nothing is close
 * and the list is short, "... (known: 'web', 'server')". context may be "". */
void scenario_schema_unknown_name(SchemaReader *reader, const char *what, const char *name,
                                  const char *context, const char *const *known,
                                  unsigned known_count);

/* ------------------------------------------------------------------ the parts */

/* The graph of services (scenario_graph.c): the `services` array, and the references to
 * services from client groups and from other services. */
void scenario_graph_read(SchemaReader *reader, const cJSON *item, void *target);
void scenario_graph_write(SchemaWriter *writer, const void *target, cJSON *object, const char *key);
extern const SchemaObject scenario_graph_entry_schema; /* the keys every entry shares */
/* clients[].calls and .publishes: the group's target (and via) from a service id. */
void scenario_graph_read_calls(SchemaReader *reader, const cJSON *item, void *target);
void scenario_graph_read_publishes(SchemaReader *reader, const cJSON *item, void *target);
void scenario_graph_write_calls(SchemaWriter *writer, const void *target, cJSON *object,
                                const char *key);
void scenario_graph_write_publishes(SchemaWriter *writer, const void *target, cJSON *object,
                                    const char *key);
/* After the whole file: a declared proxy some group calls. */
void scenario_graph_check_used(SchemaReader *reader, const cJSON *root, const Scenario *scenario);
/* The object that holds the fields of the service of kind (`services[k]`, or the older form's
 * `server`, `broker.consumers`, ...), with the path to it pushed on the reader (*pushed
 * levels; pop them with scenario_graph_pop); NULL when the file has none. */
const cJSON *scenario_graph_push_service(SchemaReader *reader, const cJSON *root, NodeKind kind,
                                         unsigned *pushed);
void scenario_graph_pop(SchemaReader *reader, unsigned pushed);
/* Whether show writes the node named name: a client group, or a service the world uses. */
bool scenario_graph_node_shown(const Scenario *scenario, const char *name);
/* "'web', 'server', ..." : the service nodes' names, into buffer. */
void scenario_service_id_list(const Scenario *scenario, char *buffer, size_t size);

void scenario_network_defaults(NetworkSpec *network);
extern const SchemaObject scenario_network_schema;

void scenario_services_defaults(Scenario *scenario);                /* server, gateway, broker */
void scenario_services_server_defaults(ServerSpec *server);         /* any server's start */
void scenario_services_gateway_defaults(GatewaySpec *gateway);      /* any gateway's start */
void scenario_services_proxy_defaults(ProxySpec *proxy);            /* any proxy's start */
void scenario_services_consumers_defaults(ConsumerSpec *consumers); /* any group's start */
void scenario_services_broker_defaults(BrokerSpec *broker);         /* any broker's start */
extern const SchemaObject scenario_services_server_schema;
extern const SchemaObject scenario_services_gateway_schema;
extern const SchemaObject scenario_services_proxy_schema;
/* A "retry_on" array of scenario_names_retry_on into RETRY_ON_* flags; false on an error. */
bool scenario_schema_read_retry_on(SchemaReader *reader, const cJSON *item, int *flags);
extern const SchemaObject scenario_services_broker_schema;
/* The services form's entries by kind (scenario_graph.c picks one by an entry's kind): a
 * kind's services entry's fields, and its key store's (NULL: none of its own; a key store is
 * read with its user's). */
const SchemaObject *scenario_services_schema_of(NodeKind kind);
const SchemaObject *scenario_services_store_schema_of(NodeKind kind);
void scenario_schema_write_retry_on(SchemaWriter *writer, cJSON *object, const char *key,
                                    int flags);

void scenario_dist_read(SchemaReader *reader, const cJSON *item, void *target);
void scenario_dist_write(SchemaWriter *writer, const void *target, cJSON *object, const char *key);
extern const SchemaObject scenario_dist_schema; /* the first variant; the rest follow */

void scenario_expect_read(SchemaReader *reader, const cJSON *item, void *target);
void scenario_expect_write(SchemaWriter *writer, const void *target, cJSON *object,
                           const char *key);
extern const SchemaObject scenario_expect_schema; /* {"min", "max"} */
/* The index of name in scenario_metric_names, or -1; the one lookup `expect` and
 * `questions` share, so both accept exactly the report's metric names. */
int scenario_expect_metric_index(const char *name);
/* "unknown metric 'x', did you mean 'y'?" at the reader's path. */
void scenario_expect_unknown_metric(SchemaReader *reader, const char *name);

void scenario_questions_read(SchemaReader *reader, const cJSON *item, void *target);
void scenario_questions_write(SchemaWriter *writer, const void *target, cJSON *object,
                              const char *key);
extern const SchemaObject scenario_questions_schema; /* one element of "questions" */

void scenario_faults_read(SchemaReader *reader, const cJSON *item, void *target);
void scenario_faults_write(SchemaWriter *writer, const void *target, cJSON *object,
                           const char *key);
extern const SchemaObject scenario_faults_schema; /* one element of "faults" */

/* clang-format off: one macro per line reads better than the formatter's wrapping. */

/* ------------------------------------------------------------------ ranges */

#define RANGE_PROBABILITY                                                                          \
    {                                                                                              \
        0.0, 1.0, false, true, false                                                               \
    }
#define RANGE_MS                                                                                   \
    {                                                                                              \
        0.0, SCENARIO_MS_MAX, false, false, true                                                   \
    }
#define RANGE_MS_POSITIVE                                                                          \
    {                                                                                              \
        0.0, SCENARIO_MS_MAX, true, false, true                                                    \
    }
#define RANGE_INTEGER                                                                              \
    {                                                                                              \
        0.0, SCENARIO_INTEGER_MAX, false, false, false                                             \
    }
#define RANGE_WORKERS                                                                              \
    {                                                                                              \
        0.0, 100000.0, false, false, false                                                         \
    }
#define RANGE_PROXY_RETRIES                                                                        \
    {                                                                                              \
        0.0, 10.0, false, false, false                                                             \
    }
#define RANGE_FACTOR                                                                               \
    {                                                                                              \
        0.0, 1e6, false, false, false                                                              \
    } /* dimensionless multipliers */

/* ------------------------------------------------------------------ field constructors */

#define FIELD_NUMBER(key_, type_, member_, range_)                                                 \
    {                                                                                              \
        .key = key_, .type = SCHEMA_NUMBER, .offset = SCHEMA_MEMBER(type_, member_, double),       \
        .range = range_                                                                            \
    }
#define FIELD_U32(key_, type_, member_, range_)                                                    \
    {                                                                                              \
        .key = key_, .type = SCHEMA_U32, .offset = SCHEMA_MEMBER(type_, member_, uint32_t),        \
        .range = range_                                                                            \
    }
#define FIELD_I64(key_, type_, member_, range_)                                                    \
    {                                                                                              \
        .key = key_, .type = SCHEMA_I64, .offset = SCHEMA_MEMBER(type_, member_, int64_t),         \
        .range = range_                                                                            \
    }
#define FIELD_U64(key_, type_, member_, range_)                                                    \
    {                                                                                              \
        .key = key_, .type = SCHEMA_U64, .offset = SCHEMA_MEMBER(type_, member_, uint64_t),        \
        .range = range_                                                                            \
    }
#define FIELD_BOOLEAN(key_, type_, member_)                                                        \
    {                                                                                              \
        .key = key_, .type = SCHEMA_BOOLEAN, .offset = SCHEMA_MEMBER(type_, member_, bool)         \
    }
#define FIELD_CHOICE(key_, type_, member_, table_)                                                 \
    {                                                                                              \
        .key = key_, .type = SCHEMA_CHOICE, .offset = SCHEMA_ENUM_MEMBER(type_, member_),          \
        .choices = &table_                                                                         \
    }
#define FIELD_TEXT(key_, type_, member_, min_length_)                                              \
    {                                                                                              \
        .key = key_, .type = SCHEMA_TEXT, .offset = SCHEMA_MEMBER(type_, member_, char *),         \
        .size = sizeof(((type_ *)0)->member_), .range = {                                          \
            min_length_,                                                                           \
            0.0,                                                                                   \
            false,                                                                                 \
            false,                                                                                 \
            false                                                                                  \
        }                                                                                          \
    }
#define FIELD_OBJECT(key_, type_, member_, schema_)                                                \
    {                                                                                              \
        .key = key_, .type = SCHEMA_OBJECT, .offset = offsetof(type_, member_), .object = &schema_ \
    }
/* A nested JSON object whose keys fill members of the same C struct ("retry.backoff"). */
#define FIELD_INLINE_OBJECT(key_, schema_)                                                         \
    {                                                                                              \
        .key = key_, .type = SCHEMA_OBJECT, .offset = 0, .object = &schema_                        \
    }
#define FIELD_DIST(key_, type_, member_)                                                           \
    {                                                                                              \
        .key = key_, .type = SCHEMA_CUSTOM, .offset = SCHEMA_MEMBER(type_, member_, Distribution), \
        .read = scenario_dist_read, .write = scenario_dist_write, .object = &scenario_dist_schema  \
    }
#define FIELD_CUSTOM(key_, offset_, read_, schema_, required_)                                     \
    {                                                                                              \
        .key = key_, .type = SCHEMA_CUSTOM, .offset = offset_, .read = read_, .object = schema_,   \
        .required = required_                                                                      \
    }

/* A custom field that show writes back with write_. */
#define FIELD_CUSTOM_WRITTEN(key_, offset_, read_, write_, schema_, required_)                     \
    {                                                                                              \
        .key = key_, .type = SCHEMA_CUSTOM, .offset = offset_, .read = read_, .write = write_,     \
        .object = schema_, .required = required_                                                   \
    }

/* clang-format on */

/* The tag of a tagged union ("dist", "model"): already read to pick the variant. */
void scenario_schema_read_tag(SchemaReader *reader, const cJSON *item, void *target);

#endif
