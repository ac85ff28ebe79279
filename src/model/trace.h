/* The trace vocabulary: every step the model reports, as typed records handed to a sink the
 * caller supplies (the CLI writes JSON lines, the view and the SVG draw them). The model owns
 * the words: one enum of events and one of message kinds, each with its one name table
 * (trace.c), so a reader switches on the enum and only the writers turn them into text.
 * Strings in a record are borrowed for the duration of the call. */
#ifndef IDEMSIM_TRACE_H
#define IDEMSIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "sim_time.h"

typedef enum {
    /* the network, about one copy of one message */
    TRACE_TRANSMIT,  /* it left and will arrive */
    TRACE_LOST,      /* dropped when sent (loss, burst, outage) */
    TRACE_DUPLICATE, /* the network made a second copy; its own transmit or lost follows */
    TRACE_DELIVER,   /* it arrived; what the receiver did follows at the same instant */
    /* clients */
    TRACE_SEND,
    TRACE_RETRY,
    TRACE_TIMEOUT,
    TRACE_SUCCEEDED,
    TRACE_FAILED,
    TRACE_GIVE_UP,
    TRACE_OFFLINE,
    TRACE_APP_RESTART, /* the app restarts after sending; value: ms until it is back;
                          detail: 1 when it forgot the click's key */
    TRACE_RECONNECT,
    TRACE_LOST_OFFLINE,
    TRACE_STATUS_QUERY, /* the client asks for its key's status; value: the query number */
    TRACE_SETTLED,      /* detail: the Outcome */
    /* a service deciding about a request or a delivery */
    TRACE_RESERVE, /* detail: the ReserveReason */
    TRACE_REPLAY,
    TRACE_IN_PROGRESS,
    TRACE_REJECT_OTHER_BODY,
    TRACE_REJECT_MISSING_KEY,
    TRACE_EXECUTE,
    TRACE_EXECUTE_NO_EFFECT,
    TRACE_FAIL_AFTER_EFFECT,
    TRACE_GATEWAY_TIMEOUT,
    TRACE_OUTBOX_RELAY,
    TRACE_REFUSED_DOWN,
    TRACE_STATUS_ANSWER, /* the server answers a status query; value: the status */
    TRACE_FENCED,        /* a stale lease holder's effect or completion refused; value: its token */
    TRACE_ROLLBACK,      /* a local transaction did not commit: its effect is undone */
    TRACE_RECONCILED,    /* the gateway said whether a timed-out charge happened: 200 or 404 */
    TRACE_SEND_RECEIPT,
    TRACE_STALE_OVERWRITE,     /* a status write just applied replaced a newer status of its
                                  record (C23); value: that newer status */
    TRACE_PRECONDITION_FAILED, /* a conditional status write refused, nothing changed;
                                  value: 412 */
    /* the gateway */
    TRACE_DECLINED,
    TRACE_CHARGED_NO_ANSWER,
    /* the proxy */
    TRACE_PROXY_TIMEOUT, /* value: the try that went unanswered */
    TRACE_PROXY_RETRY,   /* value: the try now sent */
    /* the broker */
    TRACE_ENQUEUE,
    TRACE_DEDUPLICATED,
    TRACE_REDELIVER,
    TRACE_ACK_TIMEOUT,
    TRACE_LATE_ACK_ACCEPTED,
    TRACE_LATE_ACK_IGNORED,
    TRACE_DEAD_LETTER,
    TRACE_REDRIVE,        /* a dead letter moved back to its queue; value: its deliveries before */
    TRACE_CHANNEL_CLOSED, /* the consumers' channel closed; value: unacked messages requeued */
    TRACE_REBALANCE,      /* log: partitions resume from their committed offsets; value: replays */
    TRACE_OFFSET_COMMIT,  /* log: a partition's committed offset moved; value: the new offset */
    TRACE_COMMIT_REFUSED, /* log: a commit from an owner the rebalance replaced; value: offset */
    TRACE_DISCARD,
    /* a process, about no operation */
    TRACE_CRASH, /* detail: the CrashPoint; operation: the job that crashed it */
    TRACE_RESTART,
    TRACE_SWEEP,
    TRACE_FAILOVER,     /* a key store failed over to a lagging replica; value: rows lost */
    TRACE_CHARGE_RETRY, /* a server sends its unanswered charge again; value: the try now sent */
    /* a saga (a call's undo) */
    TRACE_FULFIL_FAILED,   /* the order's fulfil step failed definitively (out of stock) */
    TRACE_REFUND_RETRY,    /* the server sends its unanswered refund again; value: the try */
    TRACE_REFUND_GAVE_UP,  /* no try of the refund was answered: the charge may stand */
    TRACE_REFUNDED,        /* the gateway refunded a charge; value: 1 when its answer never
                              leaves the gateway */
    TRACE_LOST_UPDATE,     /* a read-modify-write debit wrote over the balance another changed since
                              its read (C29); value: the amount overwritten */
    TRACE_UPDATE_CONFLICT, /* a compare-and-set debit found the balance moved: it reads again and
                              runs again; value: how far it moved */
    TRACE_DEADLINE_DROP,   /* the server dropped a request whose deadline had passed (C31);
                              value: 0 before a worker started it, 1 before its effect */
    TRACE_AFTER_DEADLINE,  /* a handler ran its effect after its caller gave up (C31); value:
                              the attempt its client is on now (0: the click is over) */
    TRACE_CONNECTION_CLOSED, /* a request's connection closed before any byte of its answer
                                (C32); value: 0 unread (stale), 1 after its handler ran */
    TRACE_LIBRARY_RETRY,     /* the client's HTTP library sent the attempt again on its own
                                (C32); value: the library's send number */
    TRACE_STORE_DOWN,        /* the server refused a keyed request: its key store is down (C38);
                                value: the status (503) */
    TRACE_UNCHECKED,         /* the server ran a keyed request with no key check: its key store
                                is down and its rule is to proceed (C38) */
    TRACE_AUTHORISED,        /* the gateway approved an authorisation: a hold on the card
                                (C35); value: the payment's holds so far */
    TRACE_CAPTURE_REFUSED,   /* a capture of an authorisation captured before moved nothing
                                (C35) */
    TRACE_VOIDED,            /* the caller voided a late approval: its hold released (C35);
                                value: the payment's voids so far */
    /* a consumer's handler failed (C36); value: 500; detail: 0 before its effect, 1 after */
    TRACE_HANDLER_FAILED,
    /* the broker requeued a delivery its consumer nacked; value: the delivery count */
    TRACE_NACKED,
    /* the dead-letter consumer put a dead letter up for manual review; value: how often its
     * operation had taken effect */
    TRACE_DEAD_LETTER_REVIEWED,
    /* log, transactional (C37): a transaction holding a record's output aborted; value: 1
     * when its readers (read_committed) never see the output, 0 when they do */
    TRACE_TXN_ABORTED,
    TRACE_CAPTURE_LOST,         /* a capture moved the money and its answer was lost: the caller
                                   believes it failed (C35) */
    TRACE_SETTLEMENT_CORRECTED, /* a settlement file listed a capture the caller believed
                                   failed: refunded (C35) */
    /* log, retryable_topic: the consumers forwarded a record whose run failed to a retry
     * topic, where it waits its back-off; value: the retry topic's number (the runs so far) */
    TRACE_RETRY_TOPIC,
    /* a server calls the server its call step names again: the last try got no answer in
     * time, or one that asks for another try (409, 429, 5xx, a reset); value: the try now
     * sent (a call to the gateway is a TRACE_CHARGE_RETRY) */
    TRACE_CALL_RETRY,
    /* an order API hands the order itself to the broker, directly (through the outbox its
     * relays say it); value 0 */
    TRACE_ORDER_PUBLISHED,
    TRACE_EVENT_COUNT
} TraceEvent;

/* What travels on a link. */
typedef enum {
    MESSAGE_REQUEST,      /* client -> server (or broker: a publish) */
    MESSAGE_RESPONSE,     /* server (or broker: a confirm) -> client */
    MESSAGE_CHARGE,       /* server -> gateway */
    MESSAGE_CHARGE_REPLY, /* gateway -> server */
    MESSAGE_DELIVERY,     /* broker -> consumers */
    MESSAGE_ACK,          /* consumers -> broker */
    MESSAGE_STATUS_QUERY, /* client -> server: what became of my key? (its answer: response) */
    MESSAGE_PROGRESS,     /* consumers -> broker: still working, extend the ack timeout */
    MESSAGE_REFUND,       /* server -> gateway: give a charge back (its answer: charge_reply) */
    MESSAGE_NACK,         /* consumers -> broker: the handler failed, requeue the delivery */
    MESSAGE_KIND_COUNT
} MessageKind;

/* Why a key store reserved a key (TRACE_RESERVE). */
typedef enum {
    RESERVE_REASON_NEW,               /* never seen, or deleted after a failure */
    RESERVE_REASON_EXPIRED,           /* seen, but past its TTL */
    RESERVE_REASON_TAKEOVER,          /* a processing row past the lock timeout */
    RESERVE_REASON_AFTER_RACE_WINDOW, /* check-then-insert: the insert, a window after the check */
    RESERVE_REASON_AFTER_FAILURE,     /* a failed row its policy made retryable: start afresh */
    RESERVE_REASON_RESUME,            /* a failed row with a recovery point: resume after it */
    RESERVE_REASON_COUNT
} ReserveReason;

/* What a dead letter put up for review (TRACE_DEAD_LETTER_REVIEWED) would have done, so
 * what its value counts: the operation's charges net of refunds, or the emails sent for it
 * (a group whose step emails: its dead letter is a confirmation, not a payment). */
typedef enum { REVIEWED_CHARGE, REVIEWED_EMAIL } ReviewedEffect;

#define TRACE_NO_NODE UINT32_MAX
#define TRACE_NO_CLIENT UINT32_MAX
/* The operation of a record that belongs to none: operation ids start at 0, so 0 is a real
 * one and cannot double as "none" (issue 24). Given to world_trace, never stored. */
#define TRACE_NO_OPERATION UINT64_MAX

typedef struct {
    SimTimeUs t_us;
    Mode mode;
    TraceEvent event;
    uint32_t actor;        /* node id (world_node) where it happened */
    uint32_t actor_client; /* a client node: the client's index in its group; else NO_CLIENT */
    uint32_t peer;         /* message events: the other end's node; else TRACE_NO_NODE */
    uint32_t peer_client;  /* as actor_client, for the peer */
    NodeKind actor_kind;   /* the kinds of actor and peer, so a reader needs no world */
    NodeKind peer_kind;
    const char *actor_name; /* "web[3]", "server" */
    const char *peer_name;  /* NULL unless a message event */
    uint64_t operation;     /* ground-truth operation id; 0 when no_operation */
    bool no_operation;      /* of no operation: a restart, a sweep, a failover, an outage, a
                               rebalance, an offset commit */
    uint32_t attempt;       /* 1-based, 0 when none */
    uint32_t click;         /* 0 for the first click, 1 for a double click's second */
    uint32_t copy;          /* network copy lineage, 0 for the original */
    int64_t value;          /* amount, status code or count, by event */
    MessageKind message;    /* message events: what travelled */
    uint32_t detail;        /* by event: CrashPoint (crash), ReserveReason (reserve), Outcome
                               (settled), the MessageKind that met no network (lost_offline),
                               ReviewedEffect (dead_letter_reviewed) */
    const char *queue;      /* broker records, when the broker has several queues; else NULL */
    uint64_t key_owner;     /* a key store's replay, in_progress or reject_other_body: the
                               operation whose request wrote the key's row (another one than
                               operation when a key was reused); 0 otherwise. Not written to
                               the JSON-lines trace, whose bytes the golden traces pin */
} TraceRecord;

typedef void (*TraceWrite)(void *context, const TraceRecord *record);

typedef struct {
    TraceWrite write; /* NULL: tracing off */
    void *context;
} TraceSink;

/* Asked with a sink's context: 0 while it has room for more records; else the byte budget
 * it has reached. */
typedef uint64_t (*TraceFull)(void *context);

/* ------------------------------------------------------------------ names */

const char *trace_event_name(TraceEvent event);
const char *trace_message_name(MessageKind message);
/* The record's detail as text: the message kind, the crash point, the reserve reason, the
 * outcome or the queue, by event; NULL when the record has none. */
const char *trace_detail_text(const TraceRecord *record);
/* What a dead_letter_reviewed record's reviewer looks for, "charge" or "email" (its
 * ReviewedEffect; the detail names the queue there); NULL for every other record. */
const char *trace_reviewed_text(const TraceRecord *record);
/* True for the four network events, which name a peer and a message kind. */
static inline int trace_is_message_event(TraceEvent event)
{
    return event <= TRACE_DELIVER;
}

#endif
