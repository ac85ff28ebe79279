/* The operations in progress: started, and either not finished by their client or still
 * referenced by something in flight (a message, a job, a queued broker message, an outbox
 * entry). An operation leaves the table when it is settled into its outcome, so memory
 * follows the work in progress, not the operations completed. Records live in a slot pool;
 * a pointer stays valid until the next insert. */
#ifndef IDEMSIM_OPERATION_TABLE_H
#define IDEMSIM_OPERATION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slot_pool.h"

#define OPERATION_NO_SLOT UINT32_MAX

#include "event_queue.h"
#include "metrics.h"
#include "sim_assert.h"
#include "sim_time.h"

#define CLICKS_MAX 2

typedef struct {
    uint64_t key;  /* 0: the request carries no key */
    EventId timer; /* the attempt timeout or the scheduled retry */
    SimTimeUs previous_backoff_us;
    uint32_t attempts; /* sent so far */
    Belief result;     /* BELIEF_NONE while the sequence is running */
    bool active;
    bool awaiting_answer;  /* the latest attempt's connection is open (not timed out) */
    uint32_t conflicts;    /* 409 and 202 answers so far */
    uint32_t queries;      /* status queries sent so far */
    bool resolving;        /* waiting for a status query's answer, not an attempt's */
    bool unknown_lookup;   /* the query was sent instead of giving up (on_unknown lookup) */
    bool key_forgotten;    /* the app restarted and lost the click's in-memory key */
    uint8_t library_tries; /* sends of the latest attempt its HTTP library added (C32) */
} ClickState;

typedef struct {
    uint64_t id; /* stable across modes */
    uint32_t client;
    uint32_t references; /* messages, jobs, queued messages, outbox entries */
    uint32_t click_count;
    uint32_t clicks_done;
    uint32_t effects;         /* ground truth: state changes made for this operation */
    uint32_t receipts;        /* receipt emails sent for it */
    uint32_t refunds;         /* ground truth: charges given back for it (a saga's undo) */
    uint32_t broker_messages; /* its first queued broker message, or OPERATION_NO_SLOT */
    uint32_t outbox_entries;  /* its first outbox entry, or OPERATION_NO_SLOT */
    uint8_t resource_state;   /* the operation's own record (status set, row deleted, ...) */
    bool declined;            /* the gateway declined a charge for it (402) */
    bool finished;            /* every click has its answer or gave up */
    bool mismatch;            /* told success with another request's response */
    SimTimeUs started_us;
    ClickState clicks[CLICKS_MAX];
} Operation;

typedef struct {
    Operation *slots;
    /* by slot, beside its operation: bit i, service node i (after the client groups) took it
     * in. Apart from the records, which every event reads, so that they stay 168 bytes: paired
     * PAY-1 runs were 2% slower with it inside (176) */
    uint64_t *services_reached;
    SlotPool slot_pool;
    uint64_t *index_ids; /* open addressing: id + 1, 0 = empty */
    uint32_t *index_slots;
    size_t index_capacity; /* a power of two */
    size_t count;
    size_t peak;
    uint64_t recent_id; /* the last operation inserted or found (id + 1), 0: none */
    uint32_t recent_slot;
    /* A new record as it starts (but for its id), copied into each: the compiler copies a
     * record in memory with a few vector moves, where it clears 168 bytes with a `rep
     * stosq`, slow to start on short lengths (AMD EPYC: 3% of PAY-1's CPU with the job's,
     * World.fresh_job). */
    Operation fresh;
} OperationTable;

void operation_table_init(OperationTable *table);
void operation_table_release(OperationTable *table);
/* A zeroed record for id, which must not be in the table. */
Operation *operation_table_insert(OperationTable *table, uint64_t id);
Operation *operation_table_find(const OperationTable *table, uint64_t id);
/* The same, remembering the answer: the handlers of one event look up one operation
 * several times, and the slot does not move until the next insert. Inline for the
 * remembered case, which most look-ups are (issue 25). */
Operation *operation_table_get_slow(OperationTable *table, uint64_t id);
static inline Operation *operation_table_get(OperationTable *table, uint64_t id)
{
    if (table->recent_id == id + 1)
        return &table->slots[table->recent_slot];
    return operation_table_get_slow(table, id);
}
void operation_table_remove(OperationTable *table, uint64_t id);
/* Notes that operation id, which is in the table, reached the service nodes of bits. */
static inline void operation_table_note_reached(OperationTable *table, uint64_t id, uint64_t bits)
{
    uint32_t slot = table->recent_slot;
    if (table->recent_id != id + 1) {
        const Operation *op = operation_table_get_slow(table, id);
        SIM_ASSERT(op != NULL, "an operation a service takes in is in the table");
        slot = (uint32_t)(op - table->slots);
    }
    table->services_reached[slot] |= bits;
}
/* The service nodes op (a record of the table) reached so far, by bit. */
static inline uint64_t *operation_table_services_reached(OperationTable *table, const Operation *op)
{
    /* the record last looked up, as a settling one is, needs no division by its size */
    uint32_t slot =
        table->recent_id == op->id + 1 ? table->recent_slot : (uint32_t)(op - table->slots);
    return &table->services_reached[slot];
}
/* Visits every record; the order carries no meaning. */
void operation_table_visit(OperationTable *table, void (*visit)(void *context, Operation *op),
                           void *context);
size_t operation_table_memory_bytes(const OperationTable *table);

#endif
