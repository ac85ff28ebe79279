/* The idempotency-key store: key -> {status, stored response, fingerprint, expiry}.
 * An open-addressing hash table owned by the store; keys are 64-bit hashes (never 0).
 * A row past its expiry counts as absent at lookup; only the cleanup sweep frees it, so
 * idem_store_rows() is what the table really holds (C12). Rows are also ordered by expiry,
 * so a sweep costs in proportion to the rows it frees, not the rows held. Iteration order
 * never feeds a decision: the sweep only frees rows. */
#ifndef IDEMSIM_IDEM_STORE_H
#define IDEMSIM_IDEM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_time.h"

typedef enum {
    KEY_STATUS_PROCESSING,
    KEY_STATUS_COMPLETED,
    KEY_STATUS_FAILED,    /* a failure recorded: its answer is replayed */
    KEY_STATUS_RETRYABLE, /* a failure recorded: the next attempt with the key starts afresh */
} KeyStatus;

/* 64 bytes, one cache line: the 8-byte fields first, then the 4-byte ones (no padding). */
typedef struct {
    uint64_t key;
    uint64_t response_of; /* operation whose request wrote the row: the one that reserved it
                             and, once recorded, whose execution produced the stored response
                             (the same job) */
    uint64_t fingerprint; /* hash of the request body */
    SimTimeUs created_us;
    SimTimeUs expires_us; /* SIM_TIME_NEVER: no TTL */
    SimTimeUs written_us; /* the last write: what a replica lagging behind has not seen yet */
    KeyStatus status;
    int response_status; /* stored HTTP-like status, when completed or failed */
    uint32_t token;      /* the lease's generation: each reservation of the key bumps it */
    int recovery_status; /* on_failure resume: the answer of the committed effect phase, 0:
                            no phase committed (a retry starts from the beginning) */
} KeyRow;

typedef struct IdemStore IdemStore; /* opaque */

IdemStore *idem_store_create(size_t capacity_hint);
void idem_store_destroy(IdemStore *store); /* NULL is a no-op */

/* The live row for key at time now, or NULL (absent or expired). The pointer is valid until
 * the next insert, remove or sweep. */
KeyRow *idem_store_lookup(IdemStore *store, uint64_t key, SimTimeUs now_us);
/* The row for key even past its TTL (not yet swept), or NULL: for telling "expired" from
 * "never seen" in traces, and for the time a key was reserved; never to decide whether a
 * key is known without idem_store_row_live. */
const KeyRow *idem_store_find_any(const IdemStore *store, uint64_t key);
/* Whether a row is still live at time now: the test idem_store_lookup applies. */
static inline bool idem_store_row_live(const KeyRow *row, SimTimeUs now_us)
{
    return now_us < row->expires_us;
}
/* Inserts or replaces the row for row->key (an expired row is replaced). */
KeyRow *idem_store_put(IdemStore *store, const KeyRow *row);
void idem_store_remove(IdemStore *store, uint64_t key);
/* Frees every row expired at now; returns how many. Costs O(log n) per row freed (and per
 * stale expiry entry dropped), nothing per row kept. */
size_t idem_store_sweep(IdemStore *store, SimTimeUs now_us);
/* The earliest expiry of a row held, or SIM_TIME_NEVER (not const: drops stale entries). */
SimTimeUs idem_store_next_expiry(IdemStore *store);
/* When a periodic sweep last run at now should run next so that it frees exactly what one
 * every interval_us would, without the sweeps that would find nothing: the first instant of
 * now + k * interval_us (k >= 1) at or after the earlier of the next expiry and
 * next_activity_us (no earlier than anything else may change the store: the next pending
 * event; SIM_TIME_NEVER when none is). Idle stretches thus cost one sweep, not one per interval. */
SimTimeUs idem_store_next_sweep(IdemStore *store, SimTimeUs now_us, SimTimeUs interval_us,
                                SimTimeUs next_activity_us);
/* For a store that is never swept (no cleanup interval): keeps no expiry order, which saves
 * its 16 bytes a row and their writes (issue 25: a million rows kept until read). Call before
 * the first put; idem_store_sweep and idem_store_next_expiry must not be called after it. */
void idem_store_keep_no_expiry_order(IdemStore *store);
/* Forgets everything (an in-memory store across a crash). */
void idem_store_clear(IdemStore *store);

size_t idem_store_rows(const IdemStore *store);
size_t idem_store_memory_bytes(const IdemStore *store);
/* Visits rows in table order; for views and reports only, never for decisions. */
void idem_store_visit(const IdemStore *store, void (*visit)(void *context, const KeyRow *row),
                      void *context);

#endif
