/* The idempotency-key protocol, one copy for every service that keeps keys (the server and
 * the consumers): look the key up, take over an abandoned reservation, reserve it the way
 * the policy says (atomic, check-then-insert with a real race window, execute-then-save),
 * refuse a key still processing or reused with another body, replay a completed one, and
 * record what execution produced by the failure policy and the profile. The protocol
 * decides and keeps the rows; the service acts on the verdict (the server answers, the
 * consumers acknowledge or not). Private to src/model. */
#ifndef IDEMSIM_KEY_PROTOCOL_H
#define IDEMSIM_KEY_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>

#include "idem_store.h"
#include "scenario.h"

typedef struct World World;
typedef struct Job Job;

/* One service's keys: the store and the rules it keeps them by. */
typedef struct {
    const IdempotencySpec *policy; /* points into World.scenario */
    IdemStore *store;
    uint32_t node;      /* the service that keeps them: its trace records name it */
    uint32_t side;      /* which sweep timer is this store's (StoreSide) */
    bool enabled;       /* the mode keeps keys (idempotent) */
    bool bypass;        /* admission skips the store: !enabled, or down (C38) */
    uint32_t failovers; /* so far: each draws the wait until the next */
    /* C38: a store that crashes on its own; down: keys can be neither read nor written */
    bool down;
    uint32_t crashes;   /* so far: each draws the wait until the next */
    uint32_t down_node; /* the store's own node, which its crashes and restarts name */
} KeyProtocol;

typedef enum {
    KEY_RUN,                   /* run the handler now: reserved, or nothing to keep before */
    KEY_RUN_AFTER_RACE_WINDOW, /* check-then-insert found nothing: key_protocol_reserve_late
                                  race_window_ms later, then run */
    KEY_REPLAY,                /* completed (or failed and recorded): the stored answer */
    KEY_IN_PROGRESS,           /* still processing */
    KEY_OTHER_BODY,            /* the same key with another fingerprint */
    KEY_MISSING,               /* no key where the policy requires one */
    KEY_STORE_DOWN,            /* the store is down and the rule is to refuse (503) */
} KeyVerdictKind;

typedef struct {
    KeyVerdictKind kind;
    int status;           /* the answer a refusal or replay gives */
    uint64_t response_of; /* a replay: the operation the stored answer was produced for; a
                             refusal over a live row: the operation the row belongs to */
} KeyVerdict;

void key_protocol_init(World *world, KeyProtocol *keys, const IdempotencySpec *policy,
                       uint32_t node, uint32_t side, bool enabled);
void key_protocol_release(KeyProtocol *keys);

/* Decides about job (whose store_key is set; 0: no key) at the current time. Under atomic
 * reservation a KEY_RUN has reserved the key (and traced it). */
KeyVerdict key_protocol_admit(World *world, KeyProtocol *keys, Job *job);
/* check-then-insert's insert, a race window after the check, whatever happened meanwhile:
 * KEY_RUN (reserved; or the store went down meanwhile and the rule is to proceed: run
 * unchecked), or KEY_STORE_DOWN (it went down and the rule is to refuse). */
KeyVerdict key_protocol_reserve_late(World *world, KeyProtocol *keys, Job *job);
/* The answer to a status query for key (a GET by key; nothing is reserved): the stored
 * answer of a completed or failed row, 202 while it is processing, 404 when there is no live
 * row (never seen, expired, deleted, or a retryable failure), 400 without a key store. */
KeyVerdict key_protocol_status(World *world, KeyProtocol *keys, uint64_t key);
/* Traces a verdict that did not run the handler, after the service acted on it. */
void key_protocol_trace_refusal(World *world, const Job *job, KeyVerdict verdict, int64_t value);
/* on_failure resume: records in the job's key row that its effect committed, answering
 * status, so that a retry (or a takeover after a crash) resumes after it. Every effect of
 * the server and the consumers asks, so the policy is tested here, without a call. */
void key_protocol_commit_resumable_phase(World *world, KeyProtocol *keys, const Job *job,
                                         int status);
static inline void key_protocol_commit_effect_phase(World *world, KeyProtocol *keys, const Job *job,
                                                    int status)
{
    const FailurePolicies *on_failure = &keys->policy->on_failure;
    if (on_failure->definite == ON_FAILURE_RESUME || on_failure->ambiguous == ON_FAILURE_RESUME)
        key_protocol_commit_resumable_phase(world, keys, job, status);
}
/* What a fencing check (before the effect, and again at the record) found. */
typedef enum {
    LEASE_HELD,       /* the row still has job's token (or nothing to check, or the store is
                         down and the rule is to proceed: unchecked, counted and traced) */
    LEASE_LOST,       /* traced fenced: another job took the lease over, or the store
                         restarted without the row; the effect must not happen */
    LEASE_STORE_DOWN, /* the store is down and the rule is to refuse: the caller refuses and
                         traces it, as a lookup refused while down (C38) */
} KeyLease;

KeyLease key_protocol_check_lease_fenced(World *world, const KeyProtocol *keys, const Job *job);
/* With fencing, whether job still holds the lease it reserved. Always held without fencing. */
static inline KeyLease key_protocol_check_lease(World *world, const KeyProtocol *keys,
                                                const Job *job)
{
    return keys->policy->fencing ? key_protocol_check_lease_fenced(world, keys, job) : LEASE_HELD;
}
/* The check as a yes or no, for the record's write, which meets a down store before it (its
 * write fails first): only with the store up. */
bool key_protocol_holds_lease_fenced(World *world, const KeyProtocol *keys, const Job *job);
static inline bool key_protocol_holds_lease(World *world, const KeyProtocol *keys, const Job *job)
{
    return !keys->policy->fencing || key_protocol_holds_lease_fenced(world, keys, job);
}
/* Records the status execution produced for job's key, by the failure policy; with fencing,
 * nothing when job no longer holds the lease. */
void key_protocol_record(World *world, KeyProtocol *keys, const Job *job, int status);
/* The service crashed inside local transactions (server.transaction, consumers' inbox):
 * every job of its life `epoch` at `node` rolls back, its uncommitted effect undone and its
 * reservation (written in the same transaction) removed, so a retry runs once. Call before
 * the crash frees the jobs. */
void key_protocol_roll_back_open(World *world, KeyProtocol *keys, uint32_t node, uint32_t epoch);
/* Forgets key (reconciliation found nothing was charged: a retry may run). */
void key_protocol_forget(World *world, KeyProtocol *keys, uint64_t key);
/* The service crashed: keys kept in memory are gone. */
void key_protocol_on_crash(World *world, KeyProtocol *keys);
/* A failover of the store's primary (replication_lag_ms): the rows written within the lag
 * were not on the replica and are gone. Then the next failover is drawn. */
void key_protocol_on_failover(World *world, KeyProtocol *keys);
/* The store's own crash (C38): down until its restart; a store without persistence
 * (durable false) loses every row. Then the restart is scheduled. */
void key_protocol_on_store_crash(World *world, KeyProtocol *keys);
/* The store is back: the next crash is drawn, unless max_crashes were had. */
void key_protocol_on_store_restart(World *world, KeyProtocol *keys);
/* The cleanup sweep's timer fired: free the expired rows, trace, and go on. */
void key_protocol_on_sweep(World *world, KeyProtocol *keys);

#endif
