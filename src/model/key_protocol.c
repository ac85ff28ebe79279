/* The Idempotency-Key draft's algorithm, kept once for the server and the consumers. The
 * wrong ways (check-then-insert, execute-then-save) are the same steps in another order, so
 * their race windows are real, not a flag. */
#include "key_protocol.h"

#include <stdlib.h>

#include "distribution.h"
#include "sim_assert.h"
#include "world_internal.h"

static void schedule_failover(World *world, KeyProtocol *keys)
{
    SimTimeUs wait = distribution_sample_ms_as_us(
        &keys->policy->failover_every_ms,
        world_draw(world, DRAW_FAILOVER, keys->side, keys->failovers, 0));
    sim_schedule_in(world->sim, wait > 0 ? wait : 1, EVENT_STORE_FAILOVER, keys->side, 0);
}

/* C38: the store's own crashes come one after another, each drawn from the store and its
 * crash number, the same in every mode; like a failover, a background timer. */
static void schedule_store_crash(World *world, KeyProtocol *keys)
{
    SimTimeUs wait = distribution_sample_ms_as_us(
        &keys->policy->crash.every_ms,
        world_draw(world, DRAW_STORE_CRASH, keys->side, keys->crashes, 0));
    sim_schedule_in(world->sim, wait > 0 ? wait : 1, EVENT_STORE_CRASH, keys->side, 0);
}

void key_protocol_init(World *world, KeyProtocol *keys, const IdempotencySpec *policy,
                       uint32_t node, uint32_t side, bool enabled)
{
    *keys = (KeyProtocol){.policy = policy,
                          .store = idem_store_create(1024),
                          .node = node,
                          .side = side,
                          .enabled = enabled,
                          .bypass = !enabled,
                          .down_node = policy->crash.enabled ? world_store_node_of(world, policy)
                                                             : TRACE_NO_NODE};
    SimTimeUs interval = sim_time_us_from_ms(policy->cleanup_interval_ms);
    if (enabled && interval > 0)
        world_start_sweep(world, side, interval);
    else
        idem_store_keep_no_expiry_order(keys->store); /* nothing will ever sweep it */
    if (enabled && policy->replication_lag_ms > 0) {
        world->sweeps_running++; /* a background timer: the world ends without waiting for it */
        schedule_failover(world, keys);
    }
    if (enabled && policy->crash.enabled) {
        world->sweeps_running++; /* the same: crashes and restarts, one timer in turn */
        schedule_store_crash(world, keys);
    }
}

void key_protocol_release(KeyProtocol *keys)
{
    idem_store_destroy(keys->store);
    keys->store = NULL;
}

/* ------------------------------------------------------------------ failovers */

typedef struct {
    SimTimeUs since_us;
    uint64_t *keys;
    size_t count, capacity;
} RecentRows;

static void collect_recent(void *context, const KeyRow *row)
{
    RecentRows *recent = context;
    if (row->written_us < recent->since_us)
        return;
    if (recent->count == recent->capacity) {
        recent->capacity = recent->capacity ? recent->capacity * 2 : 64;
        recent->keys = sim_xrealloc(recent->keys, recent->capacity * sizeof *recent->keys);
    }
    recent->keys[recent->count++] = row->key;
}

void key_protocol_on_failover(World *world, KeyProtocol *keys)
{
    SimTimeUs now = sim_now(world->sim);
    SimTimeUs lag = sim_time_us_from_ms(keys->policy->replication_lag_ms);
    RecentRows recent = {.since_us = now > lag ? now - lag : 0};
    idem_store_visit(keys->store, collect_recent, &recent); /* the set, not its order, matters */
    for (size_t i = 0; i < recent.count; i++)
        idem_store_remove(keys->store, recent.keys[i]);
    free(recent.keys);
    keys->failovers++;
    world->metrics.keys_lost_in_failover += recent.count;
    world_note_key_store(world);
    if (world_tracing(world))
        world_trace(world, keys->node, TRACE_FAILOVER, TRACE_NO_OPERATION, (int64_t)recent.count,
                    0);
    if (sim_pending(world->sim) < world->sweeps_running) {
        world->sweeps_running--; /* only background timers are left: stop */
        return;
    }
    schedule_failover(world, keys);
}

/* ------------------------------------------------------------------ the store's own crashes */

void key_protocol_on_store_crash(World *world, KeyProtocol *keys)
{
    if (sim_pending(world->sim) < world->sweeps_running) {
        world->sweeps_running--; /* only background timers are left: stop */
        return;
    }
    keys->down = true;
    keys->bypass = true;
    keys->crashes++;
    world->metrics.store_crashes++;
    world_service_metrics(world, keys->down_node)->crashes++;
    uint64_t lost = 0;
    if (!keys->policy->durable) { /* no persistence: it restarts empty */
        lost = idem_store_rows(keys->store);
        idem_store_clear(keys->store);
        world->metrics.keys_lost_in_store_crash += lost;
        world_note_key_store(world);
    }
    if (world_tracing(world))
        world_trace(world, keys->down_node, TRACE_CRASH, TRACE_NO_OPERATION, (int64_t)lost,
                    CRASH_NONE);
    sim_schedule_in(world->sim, sim_time_us_from_ms(keys->policy->crash.restart_ms),
                    EVENT_STORE_RESTART, keys->side, 0);
}

void key_protocol_on_store_restart(World *world, KeyProtocol *keys)
{
    keys->down = false;
    keys->bypass = !keys->enabled;
    if (world_tracing(world))
        world_trace(world, keys->down_node, TRACE_RESTART, TRACE_NO_OPERATION, 0, 0);
    uint32_t most = keys->policy->crash.max_crashes;
    if (sim_pending(world->sim) < world->sweeps_running || (most > 0 && keys->crashes >= most)) {
        world->sweeps_running--; /* nothing left to crash for, or no crash left */
        return;
    }
    schedule_store_crash(world, keys);
}

/* While the store is down a keyed request is refused (fail closed), or runs as if it had no
 * key (fail open): nothing is reserved, nothing will be recorded, nothing protects it. */
static KeyVerdict verdict_while_down(World *world, KeyProtocol *keys, Job *job)
{
    if (keys->policy->when_down == WHEN_DOWN_REFUSE) {
        world->metrics.refused_store_down++;
        return (KeyVerdict){KEY_STORE_DOWN, 503, 0};
    }
    world->metrics.unchecked_runs++;
    if (world_tracing(world))
        world_trace_about(world, job->request.target, TRACE_UNCHECKED, &job->request, 0, 0);
    job->store_key = 0;
    return (KeyVerdict){KEY_RUN, 0, 0};
}

/* ------------------------------------------------------------------ deciding */

static SimTimeUs expiry_from(const KeyProtocol *keys, SimTimeUs start_us)
{
    double ttl_ms = keys->policy->ttl_ms;
    return ttl_ms > 0 ? start_us + sim_time_us_from_ms(ttl_ms) : SIM_TIME_NEVER;
}

/* previous_token: the token of the row the key had, live or not (0: none), so every
 * reservation of a key has a token of its own. recovery_status: the answer of an effect
 * phase that row had committed (0: none), which the new holder resumes after and keeps. */
static void reserve(World *world, KeyProtocol *keys, Job *job, ReserveReason why,
                    uint32_t previous_token, int recovery_status)
{
    SimTimeUs now = sim_now(world->sim);
    job->reserved = true;
    job->reserved_us = now;
    job->token = previous_token + 1;
    job->resume_status = recovery_status;
    KeyRow row = {
        .written_us = now,
        .token = job->token,
        .key = job->store_key,
        .status = KEY_STATUS_PROCESSING,
        .response_of = job->request.operation, /* whose key it is, for a refusal's trace */
        .fingerprint = job->request.fingerprint,
        .created_us = now,
        .expires_us = expiry_from(keys, now),
        .recovery_status = recovery_status,
    };
    idem_store_put(keys->store, &row);
    world_note_key_store(world);
    if (world_tracing(world))
        world_trace_about(world, job->request.target, TRACE_RESERVE, &job->request, 0, why);
}

static int other_body_status(StoreProfile profile)
{
    switch (profile) {
    case PROFILE_STRIPE:
        return 400;
    case PROFILE_BRANDUR:
        return 409;
    case PROFILE_IETF:
        break;
    }
    return 422;
}

/* A key with a live row: refused or replayed, never run. */
static KeyVerdict verdict_of_row(World *world, const KeyProtocol *keys, const Job *job,
                                 const KeyRow *row)
{
    const IdempotencySpec *policy = keys->policy;
    if (policy->fingerprint && row->fingerprint != job->request.fingerprint)
        return (KeyVerdict){KEY_OTHER_BODY, other_body_status(policy->profile), row->response_of};
    if (row->status == KEY_STATUS_PROCESSING)
        return (KeyVerdict){KEY_IN_PROGRESS, policy->on_in_progress, row->response_of};
    world->metrics.replayed++;
    return (KeyVerdict){KEY_REPLAY, row->response_status, row->response_of};
}

/* reads: replica. The replica applies the primary's writes replication_lag_ms late: a row
 * created within the lag is not there yet, and a row written within it still shows its
 * previous write, which for a recorded row was its reservation (processing). */
static const KeyRow *as_replica_sees(const KeyProtocol *keys, const KeyRow *row, SimTimeUs now,
                                     KeyRow *previous)
{
    SimTimeUs lag = sim_time_us_from_ms(keys->policy->replication_lag_ms);
    SimTimeUs horizon = now > lag ? now - lag : 0;
    if (row->written_us <= horizon)
        return row;
    if (row->created_us > horizon)
        return NULL;
    *previous = *row;
    previous->status = KEY_STATUS_PROCESSING;
    return previous;
}

/* The store is down, so it is not consulted. */
static KeyVerdict admit_while_down(World *world, KeyProtocol *keys, Job *job)
{
    if (job->store_key == 0)
        return (KeyVerdict){keys->policy->required ? KEY_MISSING : KEY_RUN, 400, 0};
    return verdict_while_down(world, keys, job);
}

KeyVerdict key_protocol_admit(World *world, KeyProtocol *keys, Job *job)
{
    const IdempotencySpec *policy = keys->policy;
    if (keys->bypass) {     /* one test for both, so a store that never crashes pays nothing more */
        if (!keys->enabled) /* answered here, before the keyed path's registers are saved */
            return (KeyVerdict){KEY_RUN, 0, 0};
        return admit_while_down(world, keys, job);
    }
    if (job->store_key == 0)
        return (KeyVerdict){policy->required ? KEY_MISSING : KEY_RUN, 400, 0};
    SimTimeUs now = sim_now(world->sim);
    const KeyRow *found = idem_store_find_any(keys->store, job->store_key); /* one probe */
    const KeyRow *row = found != NULL && idem_store_row_live(found, now) ? found : NULL;
    const KeyRow *expired = row == NULL ? found : NULL;
    KeyRow replica_row;
    if (row != NULL && policy->reads == READS_REPLICA) /* a live row the replica may not show */
        row = as_replica_sees(keys, row, now, &replica_row);
    ReserveReason why = expired != NULL ? RESERVE_REASON_EXPIRED : RESERVE_REASON_NEW;
    uint32_t previous_token = row != NULL ? row->token : expired != NULL ? expired->token : 0;
    int recovery_status = 0; /* a live row's committed phase, carried to the new holder */
    if (row != NULL && row->status == KEY_STATUS_PROCESSING && policy->lock_timeout_ms > 0 &&
        now - row->created_us >= sim_time_us_from_ms(policy->lock_timeout_ms)) {
        recovery_status = row->recovery_status;
        row = NULL; /* a reservation abandoned (by a crash) is taken over after the lock timeout */
        why = RESERVE_REASON_TAKEOVER;
    } else if (row != NULL && row->status == KEY_STATUS_RETRYABLE &&
               !(policy->fingerprint && row->fingerprint != job->request.fingerprint)) {
        recovery_status = row->recovery_status;
        row = NULL; /* the failure was recorded as retryable: this attempt starts afresh, or
                       resumes after the phase it committed (on_failure resume) */
        why = recovery_status != 0 ? RESERVE_REASON_RESUME : RESERVE_REASON_AFTER_FAILURE;
    }
    if (row != NULL)
        return verdict_of_row(world, keys, job, row);
    switch (policy->reserve) {
    case RESERVE_ATOMIC:
        reserve(world, keys, job, why, previous_token, recovery_status);
        return (KeyVerdict){KEY_RUN, 0, 0};
    case RESERVE_CHECK_THEN_INSERT:
        return (KeyVerdict){KEY_RUN_AFTER_RACE_WINDOW, 0, 0};
    case RESERVE_EXECUTE_THEN_SAVE:
        break;
    }
    return (KeyVerdict){KEY_RUN, 0, 0};
}

KeyVerdict key_protocol_status(World *world, KeyProtocol *keys, uint64_t key)
{
    if (!keys->enabled || key == 0)
        return (KeyVerdict){KEY_MISSING, 400, 0};
    if (keys->down)
        return (KeyVerdict){KEY_STORE_DOWN, 503, 0};
    const KeyRow *row = idem_store_lookup(keys->store, key, sim_now(world->sim));
    if (row == NULL || row->status == KEY_STATUS_RETRYABLE)
        return (KeyVerdict){KEY_RUN, 404, 0};
    if (row->status == KEY_STATUS_PROCESSING)
        return (KeyVerdict){KEY_IN_PROGRESS, 202, 0};
    return (KeyVerdict){KEY_REPLAY, row->response_status, row->response_of};
}

KeyVerdict key_protocol_reserve_late(World *world, KeyProtocol *keys, Job *job)
{
    if (keys->down) /* the insert fails: refused, or run unchecked, as at the check */
        return verdict_while_down(world, keys, job);
    const KeyRow *previous = idem_store_find_any(keys->store, job->store_key);
    /* the late insert overwrites whatever is there, a recovery point included: that is the
     * race this policy loses */
    reserve(world, keys, job, RESERVE_REASON_AFTER_RACE_WINDOW,
            previous != NULL ? previous->token : 0, 0);
    return (KeyVerdict){KEY_RUN, 0, 0};
}

void key_protocol_trace_refusal(World *world, const Job *job, KeyVerdict verdict, int64_t value)
{
    static const TraceEvent events[] = {
        [KEY_REPLAY] = TRACE_REPLAY,
        [KEY_IN_PROGRESS] = TRACE_IN_PROGRESS,
        [KEY_OTHER_BODY] = TRACE_REJECT_OTHER_BODY,
        [KEY_MISSING] = TRACE_REJECT_MISSING_KEY,
        [KEY_STORE_DOWN] = TRACE_STORE_DOWN,
    };
    SIM_ASSERT(verdict.kind >= KEY_REPLAY && verdict.kind <= KEY_STORE_DOWN,
               "only a refusal or a replay is traced here");
    if (world_tracing(world))
        world_trace_decision(world, job->request.target, events[verdict.kind], &job->request, value,
                             verdict.response_of);
}

/* ------------------------------------------------------------------ recording */

/* The policy for what execution produced: nothing for a success; the definite class (4xx,
 * a decline) or the ambiguous one (5xx, a gateway timeout) for a failure. The stripe
 * profile stores whatever execution produced, errors included (DESIGN §2). */
static FailurePolicy policy_for(const IdempotencySpec *policy, int status)
{
    if (policy->profile == PROFILE_STRIPE)
        return ON_FAILURE_STORE;
    return status >= 500 ? policy->on_failure.ambiguous : policy->on_failure.definite;
}

/* The check reads the key's token in the store: a store call like the lookup, so a store that
 * is down cannot answer it (its rows, kept or lost, are out of reach until its restart) and
 * when_down decides, as at admission. A store that restarted without persistence has lost
 * the row: nobody holds the lease now, but neither does this job, and its token proves
 * nothing: it is fenced like a job whose lease was taken over. */
KeyLease key_protocol_check_lease_fenced(World *world, const KeyProtocol *keys, const Job *job)
{
    if (job->store_key == 0 || !job->reserved)
        return LEASE_HELD;
    if (keys->down) {
        if (keys->policy->when_down == WHEN_DOWN_REFUSE)
            return LEASE_STORE_DOWN;
        world->metrics.unchecked_runs++;
        if (world_tracing(world))
            world_trace_about(world, job->request.target, TRACE_UNCHECKED, &job->request, 0, 0);
        return LEASE_HELD;
    }
    const KeyRow *row = idem_store_find_any(keys->store, job->store_key);
    if (row != NULL && row->token == job->token)
        return LEASE_HELD;
    if (world_tracing(world))
        world_trace_about(world, job->request.target, TRACE_FENCED, &job->request, job->token, 0);
    return LEASE_LOST;
}

bool key_protocol_holds_lease_fenced(World *world, const KeyProtocol *keys, const Job *job)
{
    SIM_ASSERT(!keys->down, "a down store is met before the lease is asked as a yes or no");
    return key_protocol_check_lease_fenced(world, keys, job) == LEASE_HELD;
}

void key_protocol_record(World *world, KeyProtocol *keys, const Job *job, int status)
{
    const IdempotencySpec *policy = keys->policy;
    SIM_ASSERT(job->store_key != 0, "only a keyed job is recorded");
    if (keys->down)
        return; /* C38: the write fails; the row stays as the store kept it */
    if (!key_protocol_holds_lease(world, keys, job))
        return; /* a newer holder owns the row: the stale result must not overwrite it */
    SimTimeUs now = sim_now(world->sim);
    bool failed = status >= 400;
    FailurePolicy on_failure = failed ? policy_for(policy, status) : ON_FAILURE_STORE;
    if (on_failure == ON_FAILURE_DELETE) {
        idem_store_remove(keys->store, job->store_key);
        world_note_key_store(world);
        return;
    }
    if (on_failure == ON_FAILURE_KEEP)
        return; /* the failure is not recorded: the row stays as it was */
    /* The TTL counts from the reservation, so a key that expired while its request ran is
     * recorded already expired, not given a new life. Without a reservation of this job's
     * own (execute-then-save, or the outbox relay completing one), the row it finds is the
     * reservation, expired or not; without any, the TTL counts from now. */
    SimTimeUs created_us = now;
    uint32_t token = job->token; /* the lease's token lives on in the completed row */
    bool restart = on_failure == ON_FAILURE_RETRYABLE || on_failure == ON_FAILURE_RESUME;
    /* the row as it stands: only needed without a reservation of the job's own, or to carry
     * a recovery point past a failure (one probe saved on the common path) */
    const KeyRow *reservation = !job->reserved || (failed && restart)
                                    ? idem_store_find_any(keys->store, job->store_key)
                                    : NULL;
    if (job->reserved) {
        created_us = job->reserved_us;
    } else if (reservation != NULL) {
        created_us = reservation->created_us;
        token = reservation->token;
    }
    KeyStatus recorded = !failed   ? KEY_STATUS_COMPLETED
                         : restart ? KEY_STATUS_RETRYABLE
                                   : KEY_STATUS_FAILED;
    KeyRow row = {
        .written_us = now,
        .token = token,
        .key = job->store_key,
        .status = recorded,
        .response_status = status,
        .response_of = job->request.operation,
        .fingerprint = job->request.fingerprint,
        .created_us = created_us,
        .expires_us = expiry_from(keys, policy->ttl_from == TTL_FROM_COMPLETION ? now : created_us),
        /* a committed phase outlives the failure after it: the next attempt resumes there */
        .recovery_status =
            failed && restart && reservation != NULL ? reservation->recovery_status : 0,
    };
    idem_store_put(keys->store, &row);
    world_note_key_store(world);
}

/* Brandur Leach's atomic phases, in two: the effect, then the rest. Under on_failure resume
 * the effect phase commits with its recovery point in the key's row, so a failure or a
 * crash after it leaves a row that says the effect is done; the next holder of the key
 * skips it (Job.resume_status). Only a local effect commits so (the loader refuses resume
 * with the gateway), and only outside a transaction, which commits everything at the end. */
void key_protocol_commit_resumable_phase(World *world, KeyProtocol *keys, const Job *job,
                                         int status)
{
    if (!keys->enabled || job->store_key == 0 || !job->reserved || keys->down)
        return;
    SimTimeUs now = sim_now(world->sim);
    KeyRow *row = idem_store_lookup(keys->store, job->store_key, now);
    if (row == NULL || row->status != KEY_STATUS_PROCESSING || row->token != job->token)
        return; /* not this job's reservation any more: nothing of its to record */
    row->recovery_status = status;
    row->written_us = now;
}

/* ------------------------------------------------------------------ crashes and sweeps */

void key_protocol_roll_back_open(World *world, KeyProtocol *keys, uint32_t node, uint32_t epoch)
{
    for (uint32_t slot = 0; slot < world->job_slots.capacity; slot++) {
        Job *job = &world->jobs[slot];
        if (job->serial == 0 || job->epoch != epoch || job->request.target != node)
            continue;
        if (job->uncommitted) {
            ledger_undo(world, &job->request, node);
            job->uncommitted = false;
        }
        const KeyRow *row = job->reserved && job->store_key != 0
                                ? idem_store_find_any(keys->store, job->store_key)
                                : NULL;
        if (row != NULL && row->status == KEY_STATUS_PROCESSING && row->token == job->token) {
            idem_store_remove(keys->store, job->store_key);
            world_note_key_store(world);
        }
    }
}

void key_protocol_forget(World *world, KeyProtocol *keys, uint64_t key)
{
    idem_store_remove(keys->store, key);
    world_note_key_store(world);
}

void key_protocol_on_crash(World *world, KeyProtocol *keys)
{
    if (keys->policy->durable)
        return;
    idem_store_clear(keys->store);
    world_note_key_store(world);
}

void key_protocol_on_sweep(World *world, KeyProtocol *keys)
{
    size_t freed = idem_store_sweep(keys->store, sim_now(world->sim));
    world_note_key_store(world);
    if (freed > 0 && world_tracing(world))
        world_trace(world, keys->node, TRACE_SWEEP, TRACE_NO_OPERATION, (int64_t)freed, 0);
    world_reschedule_sweep(world, keys->side,
                           sim_time_us_from_ms(keys->policy->cleanup_interval_ms));
}

/* ------------------------------------------------------------------ its node kind's model */

/* Never a link's end (requests to it are not messages); its life is its user's. */
const NodeKindModel node_model_key_store = {0};
