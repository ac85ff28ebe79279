/* The words of the diagram (diagram.h), in one table: for each event a mark can be, the
 * long label of the SVG's badge and the short word the view writes beside a lifeline, each
 * with its tone. Node names never appear here: a lane is named by the node table. */
#include "diagram.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "node_kind.h"

#define ARROW_RIGHT "\xe2\x86\x92" /* → */

/* In a badge, {value}, {detail}, {attempt}, {seconds} (value as ms) and {owner} are
 * replaced; when the value is 0 (the consumers record no status), the short badge is used.
 * A key store's decision about a key that belongs to another operation (a reused key, C8)
 * says so with the "owned" badges. A NULL word: the view writes nothing (or composes it,
 * below). */
typedef struct {
    const char *badge;
    const char *badge_short;
    DiagramTone badge_tone;
    const char *word;
    DiagramTone word_tone;
} EventWords;

/* The badges of a key store's decision about another operation's key (C8). */
typedef struct {
    const char *badge;
    const char *badge_short;
} OwnedWords;

static const OwnedWords OWNED_WORDS[TRACE_EVENT_COUNT] = {
    [TRACE_REPLAY] = {"key of op {owner} " ARROW_RIGHT " replay {value}",
                      "key of op {owner}: not run"},
    [TRACE_IN_PROGRESS] = {"key of op {owner} in progress " ARROW_RIGHT " {value}",
                           "key of op {owner} in progress: later"},
    [TRACE_REJECT_OTHER_BODY] = {"key of op {owner}, body differs " ARROW_RIGHT " {value}",
                                 "key of op {owner}, body differs: dropped"},
};

static const EventWords EVENT_WORDS[TRACE_EVENT_COUNT] = {
    [TRACE_RETRY] = {"retry (attempt {attempt})", NULL, DIAGRAM_TONE_PLAIN, NULL, 0},
    [TRACE_TIMEOUT] = {"no answer: timeout", NULL, DIAGRAM_TONE_WARN, "timeout", DIAGRAM_TONE_WARN},
    [TRACE_GIVE_UP] = {"gives up, never told", NULL, DIAGRAM_TONE_BAD, "gave up",
                       DIAGRAM_TONE_WARN},
    [TRACE_SUCCEEDED] = {"told: success", NULL, DIAGRAM_TONE_GOOD, NULL, 0},
    [TRACE_FAILED] = {"told: failed", NULL, DIAGRAM_TONE_BAD, NULL, 0},
    [TRACE_OFFLINE] = {"offline for {seconds} s", NULL, DIAGRAM_TONE_WARN, "offline",
                       DIAGRAM_TONE_LOST},
    [TRACE_RECONNECT] = {"back online", NULL, DIAGRAM_TONE_PLAIN, NULL, 0},
    [TRACE_LOST_OFFLINE] = {"no network: {detail} lost", NULL, DIAGRAM_TONE_BAD, NULL, 0},
    [TRACE_RESERVE] = {"key free " ARROW_RIGHT " reserved", NULL, DIAGRAM_TONE_STORE, "new",
                       DIAGRAM_TONE_DIM},
    [TRACE_REPLAY] = {"key done " ARROW_RIGHT " replay {value}", "key done: not run again",
                      DIAGRAM_TONE_STORE, "replay", DIAGRAM_TONE_GOOD},
    [TRACE_IN_PROGRESS] = {"key in progress " ARROW_RIGHT " {value}", "key in progress: later",
                           DIAGRAM_TONE_STORE, "busy", DIAGRAM_TONE_WARN},
    [TRACE_REJECT_OTHER_BODY] = {"same key, other body " ARROW_RIGHT " {value}",
                                 "same key, other body: dropped", DIAGRAM_TONE_BAD, "reject",
                                 DIAGRAM_TONE_WARN},
    [TRACE_EXECUTE_NO_EFFECT] = {"runs, nothing changes " ARROW_RIGHT " {value}", NULL,
                                 DIAGRAM_TONE_WORK, "no change", DIAGRAM_TONE_DIM},
    [TRACE_FAIL_AFTER_EFFECT] = {"fails after the effect " ARROW_RIGHT " 500", NULL,
                                 DIAGRAM_TONE_BAD, "500 after charge", DIAGRAM_TONE_WARN},
    [TRACE_CRASH] = {"CRASH ({detail})", NULL, DIAGRAM_TONE_CRASH, "CRASH", DIAGRAM_TONE_WARN},
    [TRACE_RESTART] = {"restarted", NULL, DIAGRAM_TONE_PLAIN, "restart", DIAGRAM_TONE_DIM},
    [TRACE_REFUSED_DOWN] = {"down: request refused", NULL, DIAGRAM_TONE_BAD, "down",
                            DIAGRAM_TONE_LOST},
    [TRACE_GATEWAY_TIMEOUT] = {"charge unanswered " ARROW_RIGHT " 504", NULL, DIAGRAM_TONE_BAD,
                               "504", DIAGRAM_TONE_WARN},
    [TRACE_OUTBOX_RELAY] = {"outbox relay #{value}", NULL, DIAGRAM_TONE_WORK, "relay",
                            DIAGRAM_TONE_DIM},
    [TRACE_DECLINED] = {"declined " ARROW_RIGHT " 402", NULL, DIAGRAM_TONE_BAD, "declined",
                        DIAGRAM_TONE_WARN},
    [TRACE_CHARGED_NO_ANSWER] = {"charged, answer lost", NULL, DIAGRAM_TONE_BAD, "no answer",
                                 DIAGRAM_TONE_WARN},
    [TRACE_ENQUEUE] = {"queued", NULL, DIAGRAM_TONE_PLAIN, NULL, 0},
    [TRACE_REDELIVER] = {"redelivery #{value}", NULL, DIAGRAM_TONE_WARN, "redeliver",
                         DIAGRAM_TONE_WARN},
    [TRACE_ACK_TIMEOUT] = {"ack timeout", NULL, DIAGRAM_TONE_WARN, "ack timeout",
                           DIAGRAM_TONE_WARN},
    [TRACE_DEDUPLICATED] = {"id seen: dropped", NULL, DIAGRAM_TONE_STORE, "dedup",
                            DIAGRAM_TONE_GOOD},
    [TRACE_DEAD_LETTER] = {"dead-lettered", NULL, DIAGRAM_TONE_BAD, "dead letter",
                           DIAGRAM_TONE_WARN},
    [TRACE_DISCARD] = {"discarded", NULL, DIAGRAM_TONE_BAD, "discarded", DIAGRAM_TONE_WARN},
    [TRACE_LATE_ACK_IGNORED] = {"late ack ignored", NULL, DIAGRAM_TONE_WARN, "late ack",
                                DIAGRAM_TONE_DIM},
    [TRACE_LATE_ACK_ACCEPTED] = {"late ack accepted", NULL, DIAGRAM_TONE_PLAIN, "late ack",
                                 DIAGRAM_TONE_DIM},
    [TRACE_SEND_RECEIPT] = {"receipt #{value}", NULL, DIAGRAM_TONE_WORK, NULL, 0},
    [TRACE_PROXY_TIMEOUT] = {"try {value} unanswered: timeout", NULL, DIAGRAM_TONE_WARN, "timeout",
                             DIAGRAM_TONE_WARN},
    [TRACE_PROXY_RETRY] = {"sends it again (try {value})", NULL, DIAGRAM_TONE_WARN, NULL, 0},
    [TRACE_CHARGE_RETRY] = {"charge unanswered: sends it again (try {value})", NULL,
                            DIAGRAM_TONE_WARN, "retry", DIAGRAM_TONE_WARN},
    [TRACE_FULFIL_FAILED] = {"order failed after the charge (out of stock)", NULL, DIAGRAM_TONE_BAD,
                             "order failed", DIAGRAM_TONE_WARN},
    [TRACE_REFUND_RETRY] = {"refund unanswered: sends it again (try {value})", NULL,
                            DIAGRAM_TONE_WARN, "refund again", DIAGRAM_TONE_WARN},
    [TRACE_REFUND_GAVE_UP] = {"refund unanswered: gives up, the charge may stand", NULL,
                              DIAGRAM_TONE_BAD, "no refund", DIAGRAM_TONE_WARN},
    [TRACE_REFUNDED] = {"refunds the charge", NULL, DIAGRAM_TONE_STORE, "refund",
                        DIAGRAM_TONE_GOOD},
    [TRACE_STATUS_QUERY] = {"asks for its key's status (#{value})", NULL, DIAGRAM_TONE_PLAIN,
                            "asks", DIAGRAM_TONE_DIM},
    [TRACE_STATUS_ANSWER] = {"key status " ARROW_RIGHT " {value}", NULL, DIAGRAM_TONE_STORE,
                             "status", DIAGRAM_TONE_DIM},
    [TRACE_RECONCILED] = {"asked the gateway " ARROW_RIGHT " {value}", NULL, DIAGRAM_TONE_STORE,
                          "reconciled", DIAGRAM_TONE_GOOD},
    [TRACE_FENCED] = {"lease lost: write refused", NULL, DIAGRAM_TONE_STORE, "fenced",
                      DIAGRAM_TONE_GOOD},
    [TRACE_ROLLBACK] = {"not committed: undone", NULL, DIAGRAM_TONE_STORE, "rolled back",
                        DIAGRAM_TONE_GOOD},
    [TRACE_STALE_OVERWRITE] = {"stale overwrite: status {value} replaced", NULL, DIAGRAM_TONE_BAD,
                               "stale overwrite", DIAGRAM_TONE_WARN},
    [TRACE_PRECONDITION_FAILED] = {"version moved on " ARROW_RIGHT " {value}", NULL,
                                   DIAGRAM_TONE_STORE, "412", DIAGRAM_TONE_GOOD},
    [TRACE_REJECT_MISSING_KEY] = {"no key " ARROW_RIGHT " {value}", NULL, DIAGRAM_TONE_BAD,
                                  "no key", DIAGRAM_TONE_WARN},
    [TRACE_LOST_UPDATE] = {"lost update: wrote over {value}", NULL, DIAGRAM_TONE_BAD, "lost update",
                           DIAGRAM_TONE_WARN},
    [TRACE_UPDATE_CONFLICT] = {"balance moved: reads again, runs again", NULL, DIAGRAM_TONE_STORE,
                               "conflict", DIAGRAM_TONE_GOOD},
    [TRACE_DEADLINE_DROP] = {"deadline passed: dropped unrun", NULL, DIAGRAM_TONE_STORE, "dropped",
                             DIAGRAM_TONE_GOOD},
    [TRACE_CONNECTION_CLOSED] = {"connection closed before any answer", NULL, DIAGRAM_TONE_BAD,
                                 "closed", DIAGRAM_TONE_WARN},
    [TRACE_LIBRARY_RETRY] = {"library sends it again, unseen", NULL, DIAGRAM_TONE_BAD,
                             "replayed by library", DIAGRAM_TONE_WARN},
    [TRACE_AFTER_DEADLINE] = {"works on after its caller gave up", NULL, DIAGRAM_TONE_BAD,
                              "nobody waits", DIAGRAM_TONE_WARN},
    [TRACE_STORE_DOWN] = {"key store down " ARROW_RIGHT " {value}",
                          "key store down: handed back unrun", DIAGRAM_TONE_STORE, "store down",
                          DIAGRAM_TONE_WARN},
    [TRACE_UNCHECKED] = {"key store down: runs with no key check", NULL, DIAGRAM_TONE_BAD,
                         "unchecked", DIAGRAM_TONE_WARN},
    [TRACE_AUTHORISED] = {"authorised: hold #{value} on the card", NULL, DIAGRAM_TONE_WORK, "hold",
                          DIAGRAM_TONE_WARN},
    [TRACE_CAPTURE_REFUSED] = {"captured before: no money moves", NULL, DIAGRAM_TONE_GOOD,
                               "captured", DIAGRAM_TONE_GOOD},
    [TRACE_VOIDED] = {"late approval voided: hold released", NULL, DIAGRAM_TONE_GOOD, "void",
                      DIAGRAM_TONE_GOOD},
    [TRACE_CAPTURE_LOST] = {"captured, answer lost: believed failed", NULL, DIAGRAM_TONE_BAD,
                            "captured?", DIAGRAM_TONE_BAD},
    [TRACE_SETTLEMENT_CORRECTED] = {"in the settlement file: refunded", NULL, DIAGRAM_TONE_GOOD,
                                    "settled", DIAGRAM_TONE_GOOD},
    [TRACE_HANDLER_FAILED] = {"handler fails ({detail})", NULL, DIAGRAM_TONE_BAD, "failed",
                              DIAGRAM_TONE_WARN},
    [TRACE_NACKED] = {"nacked: back in the queue", NULL, DIAGRAM_TONE_WARN, "requeued",
                      DIAGRAM_TONE_WARN},
    [TRACE_DEAD_LETTER_REVIEWED] = {"up for review: charged {value} times", NULL,
                                    DIAGRAM_TONE_STORE, "review", DIAGRAM_TONE_DIM},
    [TRACE_TXN_ABORTED] = {"transaction aborted", NULL, DIAGRAM_TONE_STORE, "aborted",
                           DIAGRAM_TONE_GOOD},
    [TRACE_RETRY_TOPIC] = {"to retry topic {value}: waits its back-off", NULL, DIAGRAM_TONE_WARN,
                           "retry topic", DIAGRAM_TONE_WARN},
    [TRACE_CALL_RETRY] = {"no answer it can use: calls again (try {value})", NULL,
                          DIAGRAM_TONE_WARN, "retry", DIAGRAM_TONE_WARN},
    [TRACE_ORDER_PUBLISHED] = {"publishes the order", NULL, DIAGRAM_TONE_WORK, "publish",
                               DIAGRAM_TONE_DIM},
};

/* An order API's failure after its "effect" (DiagramOrderApi), by what went out before it:
 * the order itself when published directly; through the outbox nothing, since the order's
 * row is written with the commit, which the 500 never makes (server.c). */
static const char *const ORDER_API_FAILURE_BADGES[] = {
    [DIAGRAM_ORDER_API_DIRECT] = ("fails after publishing the order " ARROW_RIGHT " 500"),
    [DIAGRAM_ORDER_API_OUTBOX] =
        ("fails before its commit: no order in the outbox " ARROW_RIGHT " 500"),
};

/* The same, in the view's short word beside the lifeline: an order API charges nothing. */
static const char *const ORDER_API_FAILURE_WORDS[] = {
    [DIAGRAM_ORDER_API_DIRECT] = "500 after publish",
    [DIAGRAM_ORDER_API_OUTBOX] = "500, no order written",
};

/* The client's marks that name a click worth telling apart (a double click's second). */
static bool names_click(TraceEvent event)
{
    switch (event) {
    case TRACE_RETRY:
    case TRACE_TIMEOUT:
    case TRACE_RECONNECT:
    case TRACE_SUCCEEDED:
    case TRACE_FAILED:
    case TRACE_GIVE_UP:
    case TRACE_LOST_OFFLINE:
        return true;
    default:
        return false;
    }
}

static const char *detail_text(const DiagramItem *mark)
{
    TraceRecord record = {.event = (TraceEvent)mark->event, .detail = mark->detail};
    const char *text = trace_detail_text(&record);
    return text != NULL ? text : "";
}

static void expand(char *label, size_t size, const char *format, const DiagramItem *mark)
{
    size_t used = 0;
    label[0] = '\0';
    for (const char *c = format; *c != '\0' && used + 1 < size;) {
        char piece[64];
        const char *closing = *c == '{' ? strchr(c, '}') : NULL;
        size_t length = closing ? (size_t)(closing - c + 1) : 1;
        if (closing && strncmp(c, "{value}", length) == 0)
            snprintf(piece, sizeof piece, "%" PRId64, mark->value);
        else if (closing && strncmp(c, "{detail}", length) == 0)
            snprintf(piece, sizeof piece, "%s", detail_text(mark));
        else if (closing && strncmp(c, "{attempt}", length) == 0)
            snprintf(piece, sizeof piece, "%u", mark->attempt);
        else if (closing && strncmp(c, "{owner}", length) == 0)
            snprintf(piece, sizeof piece, "%" PRIu64, mark->key_owner);
        else if (closing && strncmp(c, "{seconds}", length) == 0)
            snprintf(piece, sizeof piece, "%.0f", (double)mark->value / 1000.0);
        else
            snprintf(piece, sizeof piece, "%.*s", (int)length, c);
        used += (size_t)snprintf(label + used, size - used, "%s", piece);
        c += length;
    }
}

/* Whether lane is the first server's (any of its instances): the only server that may be an
 * order API, and the one whose outbox reconciles. */
static bool first_server_lane(const Scenario *scenario, const DiagramLane *lane)
{
    if (lane == NULL || lane->ledger || lane->kind != NODE_SERVER)
        return false;
    ScenarioNode nodes[SCENARIO_NODES_MAX];
    unsigned count = scenario_service_nodes(scenario, nodes);
    for (unsigned i = 0; i < count; i++) {
        if (nodes[i].kind == NODE_SERVER && strcmp(nodes[i].name, lane->node_name) == 0)
            return nodes[i].number == 0;
    }
    return false;
}

DiagramOperationWords diagram_lane_words(const Scenario *scenario, const DiagramLane *lane,
                                         DiagramOperationWords operation)
{
    /* the lane's own broker's queues (a second broker's marks name its queues, and no log
     * group) */
    uint32_t b = lane != NULL && !lane->ledger
                     ? diagram_broker_of(scenario, lane->kind, lane->node_name)
                     : 0;
    const BrokerSpec *broker = scenario_broker(scenario, b);
    operation.queues_of = broker->queue_count > 1 ? broker : NULL;
    operation.log_groups_of = diagram_log_groups_several(scenario, b) ? scenario : NULL;
    operation.store_durable = lane != NULL && lane->kind == NODE_KEY_STORE &&
                              diagram_store_durable(scenario, lane->node_name);
    const ServerSpec *server = &scenario->server;
    bool order_api = server->publishes_orders;
    bool names_gateway = scenario->extra_gateway_count > 0 && server->reconcile_ms > 0 &&
                         server->use_gateway && server->call_server == 0;
    if ((!order_api && !names_gateway) || !first_server_lane(scenario, lane))
        return operation;
    if (order_api)
        operation.order_api = server->receipts_via == RECEIPTS_OUTBOX ? DIAGRAM_ORDER_API_OUTBOX
                                                                      : DIAGRAM_ORDER_API_DIRECT;
    if (names_gateway)
        operation.reconciles_at = scenario_gateway_id(scenario, server->call_gateway);
    return operation;
}

DiagramTone diagram_mark_badge(const DiagramItem *mark, NodeKind kind,
                               DiagramOperationWords operation, char *label, size_t size)
{
    TraceEvent event = (TraceEvent)mark->event;
    if (event == TRACE_SEND && operation.scheduled) { /* C34: which instance's run it is */
        if (mark->click == 0)
            snprintf(label, size, "scheduler fires the period's job");
        else
            snprintf(label, size, "2nd instance fires it too (run 2)");
        return DIAGRAM_TONE_PLAIN;
    }
    if (event == TRACE_SEND) { /* a double click's second press says which it is */
        if (mark->click == 0)
            snprintf(label, size, "presses %s", operation.debit ? "Pay" : "Send");
        else
            snprintf(label, size, "presses %s again (click %u)", operation.debit ? "Pay" : "Send",
                     mark->click + 1);
        return DIAGRAM_TONE_PLAIN;
    }
    if (event == TRACE_EXECUTE) {
        if (node_kind_info(kind)->execute_badge != NULL)
            snprintf(label, size, "%s", node_kind_info(kind)->execute_badge);
        else
            snprintf(label, size, "%s " ARROW_RIGHT " %" PRId64,
                     operation.debit ? "charges" : "runs", mark->value);
        return DIAGRAM_TONE_WORK;
    }
    const char *loses = node_kind_info(kind)->crash_loses;
    if (event == TRACE_CRASH && loses == NULL && mark->detail == CRASH_NONE) {
        snprintf(label, size, "DOWN (outage: port closed)"); /* server.outage, no job's step */
        return DIAGRAM_TONE_CRASH;
    }
    if (event == TRACE_CRASH && loses != NULL) { /* C38: what its restart will keep */
        if (mark->value > 0)
            snprintf(label, size, "CRASH: %" PRId64 " %s lost", mark->value,
                     mark->value == 1 ? node_kind_info(kind)->crash_loses_one : loses);
        else if (operation.store_durable)
            snprintf(label, size, "CRASH (%s kept)", loses);
        else /* no persistence: it lost none because it held none */
            snprintf(label, size, "CRASH (no %s held)", loses);
        return DIAGRAM_TONE_CRASH;
    }
    if (event == TRACE_REPLAY && node_kind_info(kind)->replay_badge != NULL) {
        snprintf(label, size, "%s", node_kind_info(kind)->replay_badge);
        return DIAGRAM_TONE_GOOD;
    }
    if (event == TRACE_FAIL_AFTER_EFFECT && operation.order_api != DIAGRAM_ORDER_API_NONE) {
        snprintf(label, size, "%s", ORDER_API_FAILURE_BADGES[operation.order_api]);
        return EVENT_WORDS[event].badge_tone;
    }
    if (event == TRACE_ENQUEUE && mark->queue > 0 && operation.queues_of != NULL) {
        snprintf(label, size, "queued in %s", operation.queues_of->queues[mark->queue - 1].name);
        return EVENT_WORDS[event].badge_tone;
    }
    /* a copy's end names the queue it left, as its "queued in" did: no arrow after the mark
     * says whose copy it was */
    if ((event == TRACE_DEAD_LETTER || event == TRACE_DISCARD) && mark->queue > 0 &&
        operation.queues_of != NULL) {
        snprintf(label, size, "%s from %s", EVENT_WORDS[event].badge,
                 operation.queues_of->queues[mark->queue - 1].name);
        return EVENT_WORDS[event].badge_tone;
    }
    if (event == TRACE_ENQUEUE && mark->queue > 0 && operation.log_groups_of != NULL) {
        const Scenario *scenario = operation.log_groups_of;
        snprintf(label, size, "queued for %s",
                 mark->queue == 1 ? scenario->service_ids[NODE_CONSUMERS]
                                  : scenario->extra_consumers[mark->queue - 2].id);
        return EVENT_WORDS[event].badge_tone;
    }
    if (event == TRACE_DEAD_LETTER_REVIEWED && mark->detail == REVIEWED_EMAIL) {
        snprintf(label, size, "up for review: emailed %" PRId64 " times", mark->value);
        return EVENT_WORDS[event].badge_tone;
    }
    if (event == TRACE_RECONCILED && operation.reconciles_at != NULL) { /* several gateways */
        snprintf(label, size, "asked %s " ARROW_RIGHT " %" PRId64, operation.reconciles_at,
                 mark->value);
        return EVENT_WORDS[event].badge_tone;
    }
    const EventWords *words = event < TRACE_EVENT_COUNT ? &EVENT_WORDS[event] : NULL;
    if (words == NULL || words->badge == NULL) { /* not described yet: the trace's word */
        snprintf(label, size, "%s", trace_event_name(event));
        for (char *c = label; *c != '\0'; c++)
            *c = *c == '_' ? ' ' : *c;
        return DIAGRAM_TONE_PLAIN;
    }
    bool owned = OWNED_WORDS[event].badge != NULL && mark->key_owner != 0 &&
                 mark->key_owner != mark->operation;
    const char *badge = owned ? OWNED_WORDS[event].badge : words->badge;
    const char *badge_short = owned ? OWNED_WORDS[event].badge_short : words->badge_short;
    expand(label, size, mark->value == 0 && badge_short ? badge_short : badge, mark);
    if (names_click(event) && mark->click == 1 && strlen(label) + 10 < size)
        strcat(label, operation.scheduled ? " (run 2)" : " (click 2)");
    return words->badge_tone;
}

const char *diagram_mark_word(const DiagramItem *mark, DiagramOperationWords operation,
                              char *buffer, size_t size, DiagramTone *tone)
{
    TraceEvent event = (TraceEvent)mark->event;
    *tone = DIAGRAM_TONE_WARN;
    switch (event) {
    case TRACE_FAIL_AFTER_EFFECT:
        if (operation.order_api == DIAGRAM_ORDER_API_NONE)
            break;
        *tone = EVENT_WORDS[event].word_tone;
        return ORDER_API_FAILURE_WORDS[operation.order_api];
    case TRACE_EXECUTE:
        if (mark->effects < 2)
            return NULL;
        *tone = DIAGRAM_TONE_DOUBLE;
        snprintf(buffer, size, "charge x%u", mark->effects);
        return buffer;
    case TRACE_IN_PROGRESS:
    case TRACE_REJECT_OTHER_BODY:
        if (mark->value == 0)
            break;
        snprintf(buffer, size, "%" PRId64, mark->value);
        return buffer;
    case TRACE_SEND_RECEIPT:
        *tone = mark->value >= 2 ? DIAGRAM_TONE_DOUBLE : DIAGRAM_TONE_DIM;
        if (mark->value >= 2)
            snprintf(buffer, size, "email x%" PRId64, mark->value);
        else
            snprintf(buffer, size, "email");
        return buffer;
    default:
        break;
    }
    if (event >= TRACE_EVENT_COUNT || EVENT_WORDS[event].word == NULL)
        return NULL;
    *tone = EVENT_WORDS[event].word_tone;
    return EVENT_WORDS[event].word;
}

/* ------------------------------------------------------------------ messages */

static const char *status_words(int64_t status)
{
    switch (status) {
    case 200:
        return " OK";
    case 201:
        return " created";
    case 202:
        return " accepted";
    case 204:
        return " no content";
    case 400:
        return " bad request";
    case 404:
        return " not found";
    case 409:
        return " conflict";
    case 422:
        return " other body";
    case 412:
        return " precondition failed";
    case 500:
        return " error";
    case 402:
        return " declined";
    case 504:
        return " gateway timeout";
    case 429:
        return " too many requests";
    case 503:
        return " unavailable";
    default:
        return "";
    }
}

void diagram_message_label(const DiagramItem *message, char *label, size_t size)
{
    const char *copy = message->copy & 1u ? " (network copy)" : "";
    if (message->message == MESSAGE_REQUEST) {
        snprintf(label, size, "request%s", copy); /* the sender's badge says which attempt */
    } else if (message->message == MESSAGE_RESPONSE && message->value == 0) {
        snprintf(label, size, "reset%s", copy); /* no HTTP answer: the port was closed */
    } else if (message->message == MESSAGE_RESPONSE || message->message == MESSAGE_CHARGE_REPLY) {
        snprintf(label, size, "%" PRId64 "%s%s", message->value, status_words(message->value),
                 copy);
    } else {
        snprintf(label, size, "%s%s", trace_message_name((MessageKind)message->message), copy);
    }
}

/* A node that sends one message again (the broker's deliveries, a proxy's tries) numbers the
 * copies in the low six bits of their lineage, before the hop doubles it. A server's receipt
 * is numbered so too, but by the attempt that caused it: it is not a repeat of its own. */
uint32_t diagram_repeat_number(const DiagramItem *message, NodeKind from_kind)
{
    bool repeated = message->message == MESSAGE_DELIVERY ||
                    (message->message == MESSAGE_REQUEST && from_kind == NODE_PROXY);
    return repeated ? (message->copy / 2) % 64 : 0;
}

bool diagram_message_tag(const DiagramItem *message, NodeKind from_kind,
                         DiagramOperationWords operation, char *label, size_t size)
{
    bool client = from_kind == NODE_CLIENT_GROUP;
    if (client && message->message == MESSAGE_REQUEST && message->attempt > 1 &&
        !message->duplicate)
        snprintf(label, size, "retry #%u", message->attempt);
    else if (client && message->message == MESSAGE_REQUEST && message->click == 1)
        snprintf(label, size, operation.scheduled ? "2nd instance" : "2nd click");
    else if (diagram_repeat_number(message, from_kind) > 1)
        snprintf(label, size, "%s #%u", message->message == MESSAGE_DELIVERY ? "delivery" : "try",
                 diagram_repeat_number(message, from_kind));
    else if (message->duplicate)
        snprintf(label, size, "duplicate");
    else
        return false;
    return true;
}

/* ------------------------------------------------------------------ spans */

/* A window's length in the unit a person would say it in: "800 ms", "90 s", "5 min", "24 h". */
static void format_length(char *buffer, size_t size, int64_t ms)
{
    if (ms < 1000)
        snprintf(buffer, size, "%" PRId64 " ms", ms);
    else if (ms < 120000)
        snprintf(buffer, size, "%.3g s", (double)ms / 1000.0);
    else if (ms < 7200000)
        snprintf(buffer, size, "%.3g min", (double)ms / 60000.0);
    else
        snprintf(buffer, size, "%.3g h", (double)ms / 3600000.0);
}

void diagram_span_label(const DiagramItem *span, char *label, size_t size)
{
    char length[32];
    format_length(length, sizeof length, span->value);
    switch ((DiagramSpanKind)span->detail) {
    case DIAGRAM_SPAN_KEY_RESERVED:
        snprintf(label, size, "key reserved");
        return;
    case DIAGRAM_SPAN_KEY_STORED:
        if (span->value > 0)
            snprintf(label, size, "key ttl %s", length);
        else
            snprintf(label, size, "key kept, no ttl");
        return;
    case DIAGRAM_SPAN_ACK_TIMER:
        snprintf(label, size, "ack timer %s", length);
        return;
    case DIAGRAM_SPAN_DEDUP_WINDOW:
        snprintf(label, size, "dedup %s", length);
        return;
    }
    snprintf(label, size, "window");
}

/* ------------------------------------------------------------------ lanes */

/* The key store a server's or consumer group's lane keeps its keys in, by the service's id
 * (the lane's node name, an instance's "#n" left off); NULL for other lanes. */
static const IdempotencySpec *store_of_lane(const Scenario *scenario, const DiagramLane *lane)
{
    size_t length = strcspn(lane->node_name, "#");
    const char *id = lane->node_name;
    if (lane->kind == NODE_SERVER) {
        if (strlen(scenario->service_ids[NODE_SERVER]) == length &&
            strncmp(scenario->service_ids[NODE_SERVER], id, length) == 0)
            return &scenario->server.idempotency;
        for (uint32_t c = 0; c < scenario->called_server_count; c++) {
            const CalledServerSpec *called = &scenario->called_servers[c];
            if (strlen(called->id) == length && strncmp(called->id, id, length) == 0)
                return &called->spec.idempotency;
        }
    } else if (lane->kind == NODE_CONSUMERS) {
        if (strlen(scenario->service_ids[NODE_CONSUMERS]) == length &&
            strncmp(scenario->service_ids[NODE_CONSUMERS], id, length) == 0)
            return &scenario->broker.consumers.idempotency;
        for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
            const ExtraConsumersSpec *extra = &scenario->extra_consumers[g];
            if (strlen(extra->id) == length && strncmp(extra->id, id, length) == 0)
                return &extra->spec.idempotency;
        }
    }
    return NULL;
}

/* Whether the key store of a server's or consumer group's lane has a lane of its own. */
static bool store_drawn_apart(const Diagram *diagram, const Scenario *scenario,
                              const DiagramLane *lane)
{
    const IdempotencySpec *store = scenario != NULL ? store_of_lane(scenario, lane) : NULL;
    if (store == NULL)
        return false;
    char id[NAME_LEN_MAX];
    scenario_key_store_id(scenario, store, lane->kind, id);
    for (uint32_t i = 0; i < diagram_lane_count(diagram); i++) {
        const DiagramLane *other = diagram_lane(diagram, (int)i);
        if (other->kind == NODE_KEY_STORE && strcmp(other->node_name, id) == 0)
            return true;
    }
    return false;
}

const char *diagram_lane_role(const Diagram *diagram, int lane, const Scenario *scenario)
{
    const DiagramLane *entry = diagram_lane(diagram, lane);
    if (entry->ledger)
        return "what changed";
    const NodeKindInfo *info = node_kind_info(entry->kind);
    bool keyed =
        diagram_mode(diagram) == MODE_IDEMPOTENT && !store_drawn_apart(diagram, scenario, entry);
    return keyed ? info->lane_role_keyed : info->lane_role;
}
