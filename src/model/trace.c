/* The one place the trace's words are spelled: the JSON-lines writer, the docs' tables and
 * every reader agree because they all come from here. */
#include "trace.h"

#include "metrics.h"
#include "scenario_names.h"

static const char *const event_names[TRACE_EVENT_COUNT] = {
    [TRACE_TRANSMIT] = "transmit",
    [TRACE_LOST] = "lost",
    [TRACE_DUPLICATE] = "duplicate",
    [TRACE_DELIVER] = "deliver",
    [TRACE_SEND] = "send",
    [TRACE_RETRY] = "retry",
    [TRACE_TIMEOUT] = "timeout",
    [TRACE_SUCCEEDED] = "succeeded",
    [TRACE_FAILED] = "failed",
    [TRACE_GIVE_UP] = "give_up",
    [TRACE_OFFLINE] = "offline",
    [TRACE_APP_RESTART] = "app_restart",
    [TRACE_RECONNECT] = "reconnect",
    [TRACE_LOST_OFFLINE] = "lost_offline",
    [TRACE_STATUS_QUERY] = "status_query",
    [TRACE_SETTLED] = "settled",
    [TRACE_RESERVE] = "reserve",
    [TRACE_REPLAY] = "replay",
    [TRACE_IN_PROGRESS] = "in_progress",
    [TRACE_REJECT_OTHER_BODY] = "reject_other_body",
    [TRACE_REJECT_MISSING_KEY] = "reject_missing_key",
    [TRACE_EXECUTE] = "execute",
    [TRACE_EXECUTE_NO_EFFECT] = "execute_no_effect",
    [TRACE_FAIL_AFTER_EFFECT] = "fail_after_effect",
    [TRACE_GATEWAY_TIMEOUT] = "gateway_timeout",
    [TRACE_OUTBOX_RELAY] = "outbox_relay",
    [TRACE_REFUSED_DOWN] = "refused_down",
    [TRACE_STATUS_ANSWER] = "status_answer",
    [TRACE_FENCED] = "fenced",
    [TRACE_ROLLBACK] = "rollback",
    [TRACE_RECONCILED] = "reconciled",
    [TRACE_SEND_RECEIPT] = "send_receipt",
    [TRACE_STALE_OVERWRITE] = "stale_overwrite",
    [TRACE_PRECONDITION_FAILED] = "precondition_failed",
    [TRACE_DECLINED] = "declined",
    [TRACE_CHARGED_NO_ANSWER] = "charged_no_answer",
    [TRACE_PROXY_TIMEOUT] = "proxy_timeout",
    [TRACE_PROXY_RETRY] = "proxy_retry",
    [TRACE_CHARGE_RETRY] = "charge_retry",
    [TRACE_ENQUEUE] = "enqueue",
    [TRACE_DEDUPLICATED] = "deduplicated",
    [TRACE_REDELIVER] = "redeliver",
    [TRACE_ACK_TIMEOUT] = "ack_timeout",
    [TRACE_LATE_ACK_ACCEPTED] = "late_ack_accepted",
    [TRACE_LATE_ACK_IGNORED] = "late_ack_ignored",
    [TRACE_DEAD_LETTER] = "dead_letter",
    [TRACE_REDRIVE] = "redrive",
    [TRACE_CHANNEL_CLOSED] = "channel_closed",
    [TRACE_REBALANCE] = "rebalance",
    [TRACE_OFFSET_COMMIT] = "offset_commit",
    [TRACE_COMMIT_REFUSED] = "commit_refused",
    [TRACE_DISCARD] = "discard",
    [TRACE_CRASH] = "crash",
    [TRACE_RESTART] = "restart",
    [TRACE_SWEEP] = "sweep",
    [TRACE_FAILOVER] = "failover",
    [TRACE_FULFIL_FAILED] = "fulfil_failed",
    [TRACE_REFUND_RETRY] = "refund_retry",
    [TRACE_REFUND_GAVE_UP] = "refund_gave_up",
    [TRACE_REFUNDED] = "refunded",
    [TRACE_LOST_UPDATE] = "lost_update",
    [TRACE_UPDATE_CONFLICT] = "update_conflict",
    [TRACE_DEADLINE_DROP] = "deadline_drop",
    [TRACE_AFTER_DEADLINE] = "after_deadline",
    [TRACE_CONNECTION_CLOSED] = "connection_closed",
    [TRACE_LIBRARY_RETRY] = "library_retry",
    [TRACE_STORE_DOWN] = "store_down",
    [TRACE_UNCHECKED] = "unchecked",
    [TRACE_AUTHORISED] = "authorised",
    [TRACE_CAPTURE_REFUSED] = "capture_refused",
    [TRACE_VOIDED] = "voided",
    [TRACE_CAPTURE_LOST] = "capture_lost",
    [TRACE_SETTLEMENT_CORRECTED] = "settlement_corrected",
    [TRACE_HANDLER_FAILED] = "handler_failed",
    [TRACE_NACKED] = "nacked",
    [TRACE_DEAD_LETTER_REVIEWED] = "dead_letter_reviewed",
    [TRACE_TXN_ABORTED] = "txn_aborted",
    [TRACE_RETRY_TOPIC] = "retry_topic",
    [TRACE_CALL_RETRY] = "call_retry",
    [TRACE_ORDER_PUBLISHED] = "order_published",
};

static const char *const message_names[MESSAGE_KIND_COUNT] = {
    [MESSAGE_REQUEST] = "request",
    [MESSAGE_RESPONSE] = "response",
    [MESSAGE_CHARGE] = "charge",
    [MESSAGE_CHARGE_REPLY] = "charge_reply",
    [MESSAGE_DELIVERY] = "delivery",
    [MESSAGE_ACK] = "ack",
    [MESSAGE_STATUS_QUERY] = "status_query",
    [MESSAGE_PROGRESS] = "progress",
    [MESSAGE_REFUND] = "refund",
    [MESSAGE_NACK] = "nack",
};

static const char *const reserve_reason_names[RESERVE_REASON_COUNT] = {
    [RESERVE_REASON_NEW] = "new",
    [RESERVE_REASON_EXPIRED] = "expired",
    [RESERVE_REASON_TAKEOVER] = "takeover",
    [RESERVE_REASON_AFTER_RACE_WINDOW] = "after race window",
    [RESERVE_REASON_AFTER_FAILURE] = "after failure",
    [RESERVE_REASON_RESUME] = "resume after effect",
};

static const char *const reviewed_effect_names[] = {
    [REVIEWED_CHARGE] = "charge",
    [REVIEWED_EMAIL] = "email",
};

const char *trace_event_name(TraceEvent event)
{
    return (unsigned)event < TRACE_EVENT_COUNT ? event_names[event] : "?";
}

const char *trace_message_name(MessageKind message)
{
    return (unsigned)message < MESSAGE_KIND_COUNT ? message_names[message] : "?";
}

const char *trace_detail_text(const TraceRecord *record)
{
    switch (record->event) {
    case TRACE_TRANSMIT:
    case TRACE_LOST:
    case TRACE_DUPLICATE:
    case TRACE_DELIVER:
        return trace_message_name(record->message);
    case TRACE_LOST_OFFLINE:
        return trace_message_name((MessageKind)record->detail);
    case TRACE_RESERVE:
        return record->detail < RESERVE_REASON_COUNT ? reserve_reason_names[record->detail] : "?";
    case TRACE_SETTLED:
        return outcome_name((Outcome)record->detail);
    case TRACE_CRASH:
        return record->detail >= CRASH_BEFORE_FORWARD
                   ? scenario_names_of(&scenario_names_proxy_crash_point, (int)record->detail)
                   : scenario_names_of(&scenario_names_crash_point, (int)record->detail);
    case TRACE_HANDLER_FAILED:
        return record->detail ? "after effect" : "before effect";
    default:
        return record->queue;
    }
}

const char *trace_reviewed_text(const TraceRecord *record)
{
    if (record->event != TRACE_DEAD_LETTER_REVIEWED)
        return NULL;
    return record->detail < sizeof reviewed_effect_names / sizeof reviewed_effect_names[0]
               ? reviewed_effect_names[record->detail]
               : "?";
}
