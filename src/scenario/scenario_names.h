/* The names a scenario file may use for each enumeration, in the order the format reference
 * lists them, and "did you mean" suggestions. One table per enumeration, mapping a name to
 * the enum value; the name functions of scenario.h read the same tables. */
#ifndef IDEMSIM_SCENARIO_NAMES_H
#define IDEMSIM_SCENARIO_NAMES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *name;
    int value;
} NameEntry;

typedef struct {
    const NameEntry *entries;
    unsigned count;
} NameTable;

extern const NameTable scenario_names_mode;
extern const NameTable scenario_names_operation_kind;
extern const NameTable scenario_names_operation_resource; /* per-operation, per-client */
extern const NameTable scenario_names_balance_update;     /* atomic, read-modify-write, ... */
extern const NameTable scenario_names_key_compare;        /* bytes, normalised */
extern const NameTable scenario_names_library_replays;    /* keyed, any */
extern const NameTable scenario_names_capture;            /* immediate, manual (C35) */
extern const NameTable scenario_names_deadline;           /* none, ignored, drop */
extern const NameTable scenario_names_key_alphabet;       /* hex, base62 */
extern const NameTable scenario_names_key_strategy;
extern const NameTable scenario_names_consumer_key; /* message-id, business-hash */
extern const NameTable scenario_names_store_profile;
extern const NameTable scenario_names_reserve;
extern const NameTable scenario_names_on_failure;
extern const NameTable scenario_names_ttl_from;
extern const NameTable scenario_names_crash_point;       /* a server's, a consumer's */
extern const NameTable scenario_names_proxy_crash_point; /* a proxy's */
extern const NameTable scenario_names_jitter;
extern const NameTable scenario_names_late_response;
extern const NameTable scenario_names_loop;
extern const NameTable scenario_names_target;
extern const NameTable scenario_names_via;
extern const NameTable scenario_names_budget_kind; /* finagle, grpc */
extern const NameTable scenario_names_on_unknown;
extern const NameTable scenario_names_receipts_via;
extern const NameTable scenario_names_balancer;
extern const NameTable scenario_names_balancer_retry;
extern const NameTable scenario_names_retry_host;
extern const NameTable scenario_names_placement;
extern const NameTable scenario_names_reads;
extern const NameTable scenario_names_when_down;
extern const NameTable scenario_names_call_key;
extern const NameTable scenario_names_undo_key;
extern const NameTable scenario_names_scope;
extern const NameTable scenario_names_broker_family;
extern const NameTable scenario_names_commit;
extern const NameTable scenario_names_late_ack;
extern const NameTable scenario_names_dead_letters;
extern const NameTable scenario_names_isolation;
extern const NameTable scenario_names_dist;
extern const NameTable scenario_names_loss_model;
extern const NameTable scenario_names_retry_on; /* value: a bit, see RETRY_ON_* */
extern const NameTable scenario_names_fault_kind;
extern const NameTable scenario_names_fault_hop;

#define RETRY_ON_TIMEOUT 1
#define RETRY_ON_5XX 2
#define RETRY_ON_409 4

/* The services' node names (value: NodeKind), in the order messages list them. */
extern const NameTable scenario_names_service;
/* The kinds a `services` entry may have: each node kind's name, and key_store (a store is a
 * service of the file; a node of the world only when it crashes on its own, C38). */
#define SERVICE_KIND_KEY_STORE NODE_KEY_STORE
extern const NameTable scenario_names_service_kind;

bool scenario_names_find(const NameTable *table, const char *name, int *value);
const char *scenario_names_of(const NameTable *table, int value); /* NULL: not in the table */

/* "'a', 'b', 'c'" into buffer (cut to fit). */
void scenario_names_list(const NameTable *table, char *buffer, size_t size);

/* Picks the candidate closest to what was typed: edit distance (with transpositions) of at
 * most 1 for words under 6 characters and 2 beyond, or a prefix either way of at least 3
 * characters. Ties go to the first candidate considered. */
typedef struct {
    const char *typed;
    const char *best; /* NULL: nothing close enough */
    unsigned best_score;
} NameSuggestion;

void scenario_names_suggest_init(NameSuggestion *suggestion, const char *typed);
void scenario_names_suggest_consider(NameSuggestion *suggestion, const char *candidate);
void scenario_names_suggest_table(NameSuggestion *suggestion, const NameTable *table);

#endif
