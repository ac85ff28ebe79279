/* Narration. Each sentence names who did what to which operation and, where it matters,
 * what it cost: the point of the view is the causal chain "answer lost -> timeout -> retry
 * -> charged again", or "-> stored response replayed, no charge". */
#include "view_narration.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "node_kind.h"

#define MINUS "\xE2\x88\x92" /* U+2212 */
#define ARROW "\xE2\x86\x92" /* U+2192 */

/* ------------------------------------------------------------------ small words */

void view_narration_money(char *buffer, size_t size, int64_t minor_units, bool sign)
{
    uint64_t magnitude =
        minor_units < 0 ? (uint64_t)0 - (uint64_t)minor_units : (uint64_t)minor_units;
    char digits[32];
    snprintf(digits, sizeof digits, "%" PRIu64, magnitude / 100);
    char grouped[48];
    size_t length = strlen(digits), out = 0;
    for (size_t i = 0; i < length; i++) {
        if (i > 0 && (length - i) % 3 == 0)
            grouped[out++] = ',';
        grouped[out++] = digits[i];
    }
    grouped[out] = '\0';
    const char *prefix = "";
    if (sign && minor_units > 0)
        prefix = "+";
    else if (minor_units < 0)
        prefix = MINUS;
    snprintf(buffer, size, "%s%s.%02u", prefix, grouped, (unsigned)(magnitude % 100));
}

void view_narration_client(char *buffer, size_t size, const ViewPane *pane, uint32_t group,
                           uint32_t client_in_group)
{
    const char *name = group < pane->scenario->client_group_count
                           ? pane->scenario->client_groups[group].id
                           : "client";
    snprintf(buffer, size, "%s[%u]", name, client_in_group);
}

static uint32_t group_of(const ViewPane *pane, uint64_t operation)
{
    OperationView view;
    return world_operation_view(pane->world, operation, &view) ? view.group : 0;
}

/* "payment 42", "email 7": the operation in the words of its kind. */
static void operation_words(char *buffer, size_t size, const ViewPane *pane, uint64_t operation)
{
    static const char *const nouns[OPERATION_KIND_COUNT] = {
        [OPERATION_DEBIT] = "payment",        [OPERATION_SET_STATUS] = "status update",
        [OPERATION_DELETE] = "delete",        [OPERATION_INSERT] = "insert",
        [OPERATION_INSERT_UNIQUE] = "insert", [OPERATION_SEND_EMAIL] = "email",
        [OPERATION_INCREMENT] = "increment",
    };
    OperationKind kind = pane->scenario->client_groups[group_of(pane, operation)].operation.kind;
    snprintf(buffer, size, "%s %" PRIu64, kind < OPERATION_KIND_COUNT ? nouns[kind] : "op",
             operation);
}

/* How a retry of this group is keyed in this mode. */
static const char *key_words(const ViewPane *pane, uint32_t group, bool long_form)
{
    if (pane->mode != MODE_IDEMPOTENT)
        return long_form ? "none (this mode keeps no key store)" : "no key";
    switch (pane->scenario->client_groups[group].key) {
    case KEY_NONE:
        return long_form ? "none (the request carries no key)" : "no key";
    case KEY_PER_ATTEMPT:
        return long_form ? "new for every attempt (retries never match)" : "a NEW key";
    case KEY_SERVER_GENERATED:
        return long_form ? "made per request by the service (retries never match)"
                         : "no client key";
    case KEY_BUSINESS_HASH:
        return long_form ? "hash of the order (the same for every attempt and click)"
                         : "the same key";
    case KEY_PER_CLICK:
    case KEY_MESSAGE_ID:
    case KEY_STRATEGY_COUNT:
        break;
    }
    return long_form ? "chosen once per click (the same for every attempt)" : "the same key";
}

static const char *ordinal(uint32_t n)
{
    static const char *const words[] = {"0th", "1st", "2nd", "3rd", "4th",
                                        "5th", "6th", "7th", "8th", "9th"};
    return n < 10 ? words[n] : "nth";
}

/* ------------------------------------------------------------------ the line */

/* How a sentence names a service ("the %s"): by its id when that is its kind's own name (the
 * older form's "gateway", "consumers") or already says what it is (a gateway "provider"), else
 * by what it is and its id ("provider wallet", "broker orders", "consumer group
 * collectors#2"), so "the %s" reads right either way; a sentence never puts a possessive
 * after it ("the answer of the %s"). A sentence names at most a few: they take turns in a
 * small ring. */
static const char *service_words(NodeKind kind, const char *id)
{
    static char phrases[4][NODE_NAME_LEN_MAX + 24];
    static unsigned next;
    const NodeKindInfo *info = node_kind_info(kind);
    const char *name = node_kind_name(kind);
    size_t own = name != NULL ? strlen(name) : 0;
    if (info->noun == NULL ||
        (own > 0 && strncmp(id, name, own) == 0 && (id[own] == '\0' || id[own] == '#')))
        return id;
    if (strstr(id, info->noun) != NULL) /* "provider", "payment-provider": said once */
        return id;
    char *phrase = phrases[next++ % 4];
    snprintf(phrase, sizeof phrases[0], "%s %s", info->noun, id);
    return phrase;
}

static const char *node_words(const ViewPane *pane, uint32_t node)
{
    if (node >= world_node_count(pane->world))
        return "service";
    return service_words(world_node(pane->world, node)->kind, world_node_name(pane->world, node));
}

/* The service of a kind, by its name in the node table ("the gateway"). */
static const char *kind_words(const ViewPane *pane, NodeKind kind)
{
    return node_words(pane, world_node_of_kind(pane->world, kind));
}

/* The consumer group a consumers node (one of its instances) belongs to. */
static const ConsumerSpec *group_at(const ViewPane *pane, const WorldNode *node)
{
    const Scenario *scenario = pane->scenario;
    for (uint32_t g = 0; g < scenario->extra_consumer_count; g++) {
        if (strcmp(scenario->extra_consumers[g].id, node->service) == 0)
            return &scenario->extra_consumers[g].spec;
    }
    return &scenario->broker.consumers;
}

/* The broker whose messages node handles: a broker's own, a consumer group's the one it
 * consumes (diagram_broker_of). A second broker gives its messages back by its own family's
 * rules, not by the first's. */
static const BrokerSpec *broker_at(const ViewPane *pane, uint32_t node)
{
    if (node >= world_node_count(pane->world))
        return &pane->scenario->broker;
    const WorldNode *entry = world_node(pane->world, node);
    return scenario_broker(pane->scenario,
                           diagram_broker_of(pane->scenario, entry->kind, entry->name));
}

/* What a caller's call step calls (a gateway, or a server), by its service id: the node
 * whose answer a timeout or a retry of that caller waits for. Several gateways may charge
 * (services form), so it is the caller's own callee, never the first gateway by kind. */
static const char *callee_words(const ViewPane *pane, uint32_t caller)
{
    const Scenario *scenario = pane->scenario;
    if (caller >= world_node_count(pane->world))
        return "service";
    const WorldNode *node = world_node(pane->world, caller);
    if (node->kind == NODE_CONSUMERS) {
        const ConsumerSpec *group = group_at(pane, node);
        bool to_server = group->calls_first_server || group->call_server > 0;
        return service_words(to_server ? NODE_SERVER : NODE_GATEWAY,
                             scenario_group_call_target_id(scenario, group));
    }
    const ServerSpec *server = &scenario->server;
    for (uint32_t c = 0; c < scenario->called_server_count; c++) {
        if (strcmp(scenario->called_servers[c].id, node->service) == 0)
            server = &scenario->called_servers[c].spec;
    }
    if (server->call_server > 0)
        return service_words(NODE_SERVER, scenario->called_servers[server->call_server - 1].id);
    return service_words(NODE_GATEWAY, scenario_gateway_id(scenario, server->call_gateway));
}

static ViewColor execution_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                    char *buffer, size_t size)
{
    char money[48];
    int64_t amount = pane->group_amount[n->group];
    view_narration_money(money, sizeof money, amount, false);
    const char *where = node_words(pane, n->node);
    if (n->event == TRACE_EXECUTE_NO_EFFECT) {
        snprintf(buffer, size, "%s ran again but changed nothing (idempotent by state)", op);
        return VIEW_COLOR_TEXT;
    }
    if (n->effects >= 2 && amount > 0) {
        snprintf(buffer, size, "%s charged AGAIN by the %s: double charge, %s extra", op, where,
                 money);
        return VIEW_COLOR_DOUBLE;
    }
    if (n->effects >= 2) {
        snprintf(buffer, size, "%s executed AGAIN by the %s: its effect happened %u times", op,
                 where, n->effects);
        return VIEW_COLOR_DOUBLE;
    }
    if (amount > 0)
        snprintf(buffer, size, "%s charged %s by the %s", op, money, where);
    else
        snprintf(buffer, size, "%s executed by the %s", op, where);
    return VIEW_COLOR_TEXT;
}

static ViewColor key_store_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                    char *buffer, size_t size)
{
    bool consumers = n->kind == NODE_CONSUMERS;
    switch (n->event) {
    case TRACE_REPLAY:
        if (consumers)
            snprintf(buffer, size,
                     "%s delivered again: its key is done " ARROW " acknowledged without charging",
                     op);
        else if (n->kind == NODE_GATEWAY)
            snprintf(buffer, size, "the %s knows %s's key " ARROW " no second charge",
                     node_words(pane, n->node), op);
        else if (n->attempt > 1)
            snprintf(buffer, size,
                     "retry #%u of %s with the same key " ARROW
                     " stored response replayed, no charge",
                     n->attempt, op);
        else
            snprintf(buffer, size,
                     "a copy of %s with the same key " ARROW " stored response replayed, no charge",
                     op);
        return VIEW_COLOR_OK;
    case TRACE_IN_PROGRESS:
        if (consumers)
            snprintf(buffer, size,
                     "%s delivered again while still processing: left "
                     "unacknowledged, no charge",
                     op);
        else
            snprintf(buffer, size,
                     "attempt #%u of %s arrived while the first is still "
                     "processing " ARROW " %" PRId64 ", no charge",
                     n->attempt, op, n->value);
        return VIEW_COLOR_OK;
    case TRACE_DEDUPLICATED:
        snprintf(buffer, size, "the dedup window of the %s dropped a re-published %s",
                 node_words(pane, n->node), op);
        return VIEW_COLOR_OK;
    default:
        snprintf(buffer, size, "%s: key reused with a different body " ARROW " rejected", op);
        return VIEW_COLOR_OK;
    }
}

/* keyed: the column keeps keys; without, no key is left in processing (C37's at-most-once
 * consumers once read "the key is stuck in processing" with no key store at all). */
static const char *crash_words(CrashPoint where, bool keyed)
{
    switch (where) {
    case CRASH_AFTER_EFFECT:
        return keyed ? "after charging, before recording it: the key is stuck in processing"
                     : "after charging, before recording it";
    case CRASH_BEFORE_EFFECT:
        return "before charging";
    case CRASH_AFTER_COMPLETION:
        return "after recording the result, before answering";
    case CRASH_BEFORE_FORWARD: /* a proxy's: its clients' connections are reset */
        return "before forwarding a request: its clients see their connections reset";
    case CRASH_AFTER_FORWARD:
        return "after forwarding a request: its clients see a reset, the server runs it anyway";
    case CRASH_NONE:
        break;
    }
    return "";
}

/* C35-C37's events in words: the line once read "the consumers: handler_failed for payment
 * 161", an id where the room expects a sentence. */
static ViewColor lesson_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                 char *buffer, size_t size)
{
    const char *where = node_words(pane, n->node);
    switch (n->event) {
    case TRACE_HANDLER_FAILED: { /* detail: 0 before its effect, 1 after */
        /* a mailer's effect is the order's confirmation email, not a charge */
        bool emails = n->node < world_node_count(pane->world) &&
                      world_node(pane->world, n->node)->kind == NODE_CONSUMERS &&
                      group_at(pane, world_node(pane->world, n->node))->sends_email;
        snprintf(buffer, size, "the handler of the %s failed on %s %s (500)", where, op,
                 emails ? (n->detail ? "after emailing its confirmation"
                                     : "before emailing its confirmation")
                        : (n->detail ? "after charging it" : "before charging it"));
        return VIEW_COLOR_WARNING;
    }
    case TRACE_NACKED:
        snprintf(buffer, size, "the %s nacked %s: back in the queue, to be delivered again", where,
                 op);
        return VIEW_COLOR_WARNING;
    case TRACE_DEAD_LETTER_REVIEWED:
        if (n->detail == REVIEWED_EMAIL) { /* a mailer's: the customer's confirmation */
            snprintf(buffer, size, "a reviewer finds %s in the dead letters: %s", op,
                     n->value > 0 ? "its confirmation was emailed already"
                                  : "its confirmation never emailed");
            return n->value > 0 ? VIEW_COLOR_TEXT_DIM : VIEW_COLOR_WARNING;
        }
        if (n->value > 0)
            snprintf(buffer, size, "a reviewer finds %s in the dead letters: already charged", op);
        else
            snprintf(buffer, size, "a reviewer finds %s in the dead letters: never charged", op);
        return n->value > 0 ? VIEW_COLOR_WARNING : VIEW_COLOR_TEXT_DIM;
    case TRACE_TXN_ABORTED: /* value 1: read_committed readers never see the output */
        snprintf(buffer, size, "%s: its transaction aborted, %s", op,
                 n->value ? "its output is never read"
                          : "but its output was read already (read_uncommitted)");
        return n->value ? VIEW_COLOR_OK : VIEW_COLOR_DOUBLE;
    case TRACE_AUTHORISED: /* value: the payment's holds so far */
        if (n->value >= 2) {
            snprintf(buffer, size, "the %s puts hold #%" PRId64 " on the card for %s", where,
                     n->value, op);
            return VIEW_COLOR_DOUBLE;
        }
        snprintf(buffer, size, "the %s puts a hold on the card for %s", where, op);
        return VIEW_COLOR_TEXT_DIM;
    case TRACE_VOIDED:
        snprintf(buffer, size, "a late approval of %s voided: that hold is released", op);
        return VIEW_COLOR_OK;
    case TRACE_CAPTURE_REFUSED:
        snprintf(buffer, size, "a second capture of %s moved nothing", op);
        return VIEW_COLOR_OK;
    default:
        snprintf(buffer, size, "the %s: %s for %s", where, trace_event_name(n->event), op);
        return VIEW_COLOR_TEXT_DIM;
    }
}

/* Whether node is an order API's (publishes_orders): its handler publishes the order, for
 * the consumers to charge, and charges nothing itself. Only the first server may be one. */
static bool publishes_orders(const ViewPane *pane, uint32_t node)
{
    const Scenario *scenario = pane->scenario;
    if (!scenario->server.publishes_orders || node >= world_node_count(pane->world))
        return false;
    const WorldNode *entry = world_node(pane->world, node);
    return entry->kind == NODE_SERVER &&
           strcmp(entry->service, scenario->service_ids[NODE_SERVER]) == 0;
}

/* What an outbox relay sends (server_charge.c): its record says nothing of it. */
typedef enum {
    RELAYED_CHARGE,      /* the charge intent, with its key, to the gateway (server.outbox) */
    RELAYED_RECEIPT,     /* a charge's receipt event, to the broker (receipts via the outbox) */
    RELAYED_ORDER,       /* an order API's order, to the broker (its publish via the outbox) */
    RELAYED_RECONCILING, /* a status query to the gateway after a timeout (reconcile_ms) */
} Relayed;

/* By the copy the relay sent (noted by the pane's sink, view_trace.c): to the broker a
 * receipt, or at an order API its order; a status query a reconciliation's. Before that copy
 * is seen, by what the scenario's outbox can hold, a charge when it could hold several. */
static Relayed relayed(const ViewPane *pane, const ViewNarration *n)
{
    const ServerSpec *server = &pane->scenario->server;
    if (n->peer < world_node_count(pane->world)) {
        if (n->message == MESSAGE_STATUS_QUERY)
            return RELAYED_RECONCILING;
        if (world_node(pane->world, n->peer)->kind != NODE_BROKER)
            return RELAYED_CHARGE;
        return publishes_orders(pane, n->node) ? RELAYED_ORDER : RELAYED_RECEIPT;
    }
    if (publishes_orders(pane, n->node))
        return RELAYED_ORDER;
    bool receipts = server->publish_receipts && server->receipts_via == RECEIPTS_OUTBOX;
    bool reconciles = server->reconcile_ms > 0;
    if (receipts && !server->outbox && !reconciles)
        return RELAYED_RECEIPT;
    if (reconciles && !server->outbox && !receipts)
        return RELAYED_RECONCILING;
    return RELAYED_CHARGE;
}

static ViewColor relay_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                char *buffer, size_t size)
{
    Relayed what = relayed(pane, n);
    const char *to = n->peer < world_node_count(pane->world) ? node_words(pane, n->peer)
                     : what == RELAYED_RECONCILING           ? callee_words(pane, n->node)
                                                             : kind_words(pane, NODE_BROKER);
    switch (what) {
    case RELAYED_RECEIPT:
        snprintf(buffer, size, "the outbox relays the receipt of %s to the %s (try #%" PRId64 ")",
                 op, to, n->value);
        break;
    case RELAYED_ORDER:
        snprintf(buffer, size, "the outbox relays the order of %s to the %s (try #%" PRId64 ")", op,
                 to, n->value);
        break;
    case RELAYED_RECONCILING:
        snprintf(buffer, size, "the %s asks the %s what became of %s (query #%" PRId64 ")",
                 node_words(pane, n->node), to, op, n->value);
        break;
    case RELAYED_CHARGE:
        snprintf(buffer, size, "the outbox relays the charge of %s with its key (try #%" PRId64 ")",
                 op, n->value);
        break;
    }
    return VIEW_COLOR_TEXT;
}

/* C11's fencing: a job's lease was lost, taken over by a newer holder or gone with its row (a
 * store that restarted without persistence, a failover; no holder then). The record says
 * neither which nor whether the check before the effect or the completion's write refused it,
 * only the service: a server answers a refused effect 409; a consumer group hands the delivery
 * back, a queue's by a nack, a log's consumer tries the record again in place (consumers.c). */
static ViewColor fenced_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                 char *buffer, size_t size)
{
    const char *job = "a run", *refused = "409";
    if (n->kind == NODE_CONSUMERS && broker_at(pane, n->node)->family == BROKER_LOG) {
        job = "a record";
        refused = "tried again in place";
    } else if (n->kind == NODE_CONSUMERS) {
        job = "a delivery";
        refused = "handed back, a nack";
    }
    snprintf(buffer, size,
             "%s of %s lost the key's lease (taken over, or its row gone): fencing refuses its "
             "effect (%s) or its completion",
             job, op, refused);
    return VIEW_COLOR_OK;
}

static ViewColor service_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                  char *buffer, size_t size)
{
    const char *where = node_words(pane, n->node);
    const char *gateway = callee_words(pane, n->node);
    switch (n->event) {
    case TRACE_RESERVE:
        snprintf(buffer, size, "%s: new key reserved, the %s runs it", op, where);
        return VIEW_COLOR_TEXT_DIM;
    case TRACE_FAIL_AFTER_EFFECT:
        if (publishes_orders(pane, n->node) &&
            pane->scenario->server.receipts_via == RECEIPTS_OUTBOX)
            snprintf(buffer, size,
                     "the handler failed before its commit: %s not written to the outbox, 500", op);
        else if (publishes_orders(pane, n->node))
            snprintf(buffer, size,
                     "%s published, then the handler failed: 500, the client will retry", op);
        else
            snprintf(buffer, size,
                     "%s charged, then the handler failed: 500, the client will retry", op);
        return VIEW_COLOR_WARNING;
    case TRACE_ORDER_PUBLISHED:
        snprintf(buffer, size, "the %s published the order of %s to the %s", where, op,
                 kind_words(pane, NODE_BROKER));
        return VIEW_COLOR_TEXT;
    case TRACE_RECONCILED: /* the gateway its charges went to, one of several maybe */
        if (n->value == 200)
            snprintf(buffer, size, "the %s asked the %s about %s: charged (200), its key completed",
                     where, gateway, op);
        else
            snprintf(buffer, size,
                     "the %s asked the %s about %s: never charged (%" PRId64
                     "), its key freed for a retry",
                     where, gateway, op, n->value);
        return VIEW_COLOR_OK;
    case TRACE_PROXY_TIMEOUT:
        snprintf(buffer, size, "the %s got no answer to try #%" PRId64 " of %s in time", where,
                 n->value, op);
        return VIEW_COLOR_WARNING;
    case TRACE_PROXY_RETRY:
        snprintf(buffer, size, "the %s retries %s on its own (try #%" PRId64 ")", where, op,
                 n->value);
        return VIEW_COLOR_WARNING;
    case TRACE_GATEWAY_TIMEOUT:
        snprintf(buffer, size, "no answer from the %s for %s: 504, charged or not?", gateway, op);
        return VIEW_COLOR_WARNING;
    case TRACE_CHARGE_RETRY:
        snprintf(buffer, size, "no answer from the %s: the %s %s %s again (try #%" PRId64 ")",
                 gateway, where,
                 scenario_uses_manual_capture(pane->scenario) ? "authorises" : "charges", op,
                 n->value); /* C35: a try is an authorisation, a hold on the card */
        return VIEW_COLOR_WARNING;
    case TRACE_CALL_RETRY:
        snprintf(buffer, size,
                 "no answer the %s can use (a timeout, 409 or 5xx): it calls again for %s "
                 "(try #%" PRId64 ")",
                 where, op, n->value);
        return VIEW_COLOR_WARNING;
    case TRACE_DECLINED:
        snprintf(buffer, size, "the %s declined %s: 402, nothing charged, and the client is told",
                 where, op);
        return VIEW_COLOR_WARNING;
    case TRACE_CHARGED_NO_ANSWER: /* C35: with manual capture, a hold, not a charge */
        snprintf(buffer, size, "the %s %s %s, but its answer never came", where,
                 scenario_uses_manual_capture(pane->scenario) ? "authorised" : "charged", op);
        return VIEW_COLOR_WARNING;
    case TRACE_CAPTURE_LOST: /* C35 */
        snprintf(buffer, size,
                 "%s was captured, the money taken, but the answer was lost: the checkout "
                 "says 504",
                 op);
        return VIEW_COLOR_WARNING;
    case TRACE_SETTLEMENT_CORRECTED: /* C35 */
        snprintf(buffer, size,
                 "the settlement file lists %s, which the checkout believed failed: refunded", op);
        return VIEW_COLOR_OK;
    case TRACE_FULFIL_FAILED:
        snprintf(buffer, size, "%s was charged, then its order failed (out of stock): 424", op);
        return VIEW_COLOR_WARNING;
    case TRACE_REFUND_RETRY:
        snprintf(buffer, size, "no answer from the %s: the %s refunds %s again (try #%" PRId64 ")",
                 gateway, where, op, n->value);
        return VIEW_COLOR_WARNING;
    case TRACE_REFUND_GAVE_UP:
        snprintf(buffer, size, "no refund of %s was answered: the %s gives up", op, where);
        return VIEW_COLOR_WARNING;
    case TRACE_REFUNDED:
        snprintf(buffer, size, "the %s refunded %s%s", where, op,
                 n->value ? ", but its answer never leaves" : "");
        return VIEW_COLOR_OK;
    case TRACE_FENCED:
        return fenced_sentence(pane, n, op, buffer, size);
    case TRACE_ROLLBACK:
        snprintf(buffer, size, "%s: the transaction of the %s did not commit: the change is undone",
                 op, where);
        return VIEW_COLOR_OK;
    case TRACE_OUTBOX_RELAY:
        return relay_sentence(pane, n, op, buffer, size);
    case TRACE_REFUSED_DOWN:
        snprintf(buffer, size, "the %s is down: %s refused", where, op);
        return VIEW_COLOR_WARNING;
    case TRACE_CRASH:
        if (node_kind_info(n->kind)->crash_loses != NULL) { /* C38: what its restart will have */
            const NodeKindInfo *info = node_kind_info(n->kind);
            if (n->value > 0)
                snprintf(buffer, size, "the %s %s crashed: %" PRId64 " %s lost", info->crash_noun,
                         where, n->value,
                         n->value == 1 ? info->crash_loses_one : info->crash_loses);
            else if (n->node >= world_node_count(pane->world) ||
                     diagram_store_durable(pane->scenario, world_node_name(pane->world, n->node)))
                snprintf(buffer, size, "the %s %s crashed: its %s are on disk", info->crash_noun,
                         where, info->crash_loses);
            else /* no persistence: it lost none because it held none */
                snprintf(buffer, size, "the %s %s crashed: it held no %s", info->crash_noun, where,
                         info->crash_loses);
            return VIEW_COLOR_WARNING;
        }
        snprintf(buffer, size, "the %s crashed %s", where,
                 crash_words((CrashPoint)n->detail, pane->mode == MODE_IDEMPOTENT));
        return VIEW_COLOR_WARNING;
    case TRACE_STORE_DOWN: /* a consumer's refusal has no status: its delivery goes back */
        if (n->value == 0)
            snprintf(buffer, size, "the key store is down: the %s hands %s back to the broker",
                     where, op);
        else
            snprintf(buffer, size, "the key store is down: the %s refuses %s (503)", where, op);
        return VIEW_COLOR_WARNING;
    case TRACE_UNCHECKED:
        snprintf(buffer, size, "the key store is down: the %s runs %s with no key check", where,
                 op);
        return VIEW_COLOR_WARNING;
    case TRACE_RESTART:
        snprintf(buffer, size, "the %s restarted", where);
        return VIEW_COLOR_TEXT_DIM;
    case TRACE_SEND_RECEIPT:
        if (n->value >= 2) {
            snprintf(buffer, size, "the receipt email for %s went out AGAIN (#%" PRId64 ")", op,
                     n->value);
            return VIEW_COLOR_DOUBLE;
        }
        snprintf(buffer, size, "the receipt email for %s went out", op);
        return VIEW_COLOR_TEXT;
    default:
        return lesson_sentence(pane, n, op, buffer, size);
    }
}

static ViewColor broker_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                 char *buffer, size_t size)
{
    const char *where = node_words(pane, n->node);
    BrokerFamily family = broker_at(pane, n->node)->family;
    switch (n->event) {
    case TRACE_ENQUEUE:
        snprintf(buffer, size, "the %s queued %s", where, op);
        return VIEW_COLOR_TEXT_DIM;
    case TRACE_REDELIVER:
        snprintf(buffer, size, "the %s hands %s out again (delivery #%" PRId64 "): %s", where, op,
                 n->value,
                 n->after_nack              ? "its consumer handed it back (a nack)"
                 : family == BROKER_LOG     ? "replayed from the last commit"
                 : family == BROKER_CHANNEL ? "its channel closed"
                                            : "no ack in time");
        return VIEW_COLOR_WARNING;
    case TRACE_COMMIT_REFUSED:
        snprintf(buffer, size,
                 "%s: its consumer lost the partition in a rebalance, its commit is "
                 "refused",
                 op);
        return VIEW_COLOR_WARNING;
    case TRACE_ACK_TIMEOUT:
        snprintf(buffer, size, "no ack for %s within the ack timeout: it will be redelivered", op);
        return VIEW_COLOR_WARNING;
    case TRACE_RETRY_TOPIC:
        snprintf(buffer, size,
                 "%s failed: forwarded to retry topic %" PRId64
                 ", back after its back-off; its partition goes on",
                 op, n->value);
        return VIEW_COLOR_WARNING;
    case TRACE_DEAD_LETTER:
    case TRACE_DISCARD:
        snprintf(buffer, size, "%s %s after %" PRId64 " deliveries", op,
                 n->event == TRACE_DEAD_LETTER ? "dead-lettered" : "discarded", n->value);
        return VIEW_COLOR_WARNING;
    default:
        snprintf(buffer, size, "a late ack for %s (delivery #%" PRId64 ") %s", op, n->value,
                 n->event == TRACE_LATE_ACK_ACCEPTED ? "accepted" : "ignored");
        return VIEW_COLOR_TEXT_DIM;
    }
}

/* The consumer group of node (an instance of it), by its service id: several groups may take
 * a broker's queues, each under its own name; the first group's when node is none of them. */
static const char *group_words(const ViewPane *pane, uint32_t node)
{
    if (node < world_node_count(pane->world) &&
        world_node(pane->world, node)->kind == NODE_CONSUMERS)
        return service_words(NODE_CONSUMERS, world_node(pane->world, node)->service);
    return kind_words(pane, NODE_CONSUMERS);
}

static ViewColor lost_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                               const char *who, char *buffer, size_t size)
{
    /* a charge or refund is lost on its way to its peer; an answer is lost leaving its
     * actor, the gateway (or server) that charged */
    const char *callee =
        n->peer != TRACE_NO_NODE ? node_words(pane, n->peer) : callee_words(pane, n->node);
    switch ((MessageKind)n->message) {
    case MESSAGE_REQUEST:
        snprintf(buffer, size, "%s attempt #%u lost in the network: not charged", op, n->attempt);
        return VIEW_COLOR_LOST;
    case MESSAGE_DELIVERY:
        snprintf(buffer, size, "a delivery of %s was lost on the way to the %s", op,
                 group_words(pane, n->peer)); /* the broker's delivery to that group */
        return VIEW_COLOR_LOST;
    case MESSAGE_ACK:
        /* "of the": a possessive on the group's id would read "billing'" */
        snprintf(buffer, size, "the ack of the %s for %s was lost: it will be delivered again",
                 group_words(pane, n->node), op);
        return VIEW_COLOR_WARNING;
    case MESSAGE_CHARGE:
        snprintf(buffer, size, "the charge for %s was lost on the way to the %s", op, callee);
        return VIEW_COLOR_LOST;
    case MESSAGE_CHARGE_REPLY:
        snprintf(buffer, size, "the answer of the %s for %s was lost", node_words(pane, n->node),
                 op);
        return VIEW_COLOR_WARNING;
    case MESSAGE_REFUND:
        snprintf(buffer, size, "the refund for %s was lost on the way to the %s", op, callee);
        return VIEW_COLOR_WARNING;
    default:
        break;
    }
    if (n->effects >= 1) {
        snprintf(buffer, size, "%s went through, but the answer was lost: %s cannot tell", op, who);
        return VIEW_COLOR_WARNING;
    }
    snprintf(buffer, size, "the answer to %s attempt #%u was lost", op, n->attempt);
    return VIEW_COLOR_LOST;
}

static ViewColor client_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                 const char *who, char *buffer, size_t size)
{
    switch (n->event) {
    case TRACE_RETRY:
        snprintf(buffer, size, "%s retries %s: attempt #%u with %s", who, op, n->attempt,
                 key_words(pane, n->group, false));
        return VIEW_COLOR_WARNING;
    case TRACE_TIMEOUT:
        snprintf(buffer, size, "%s timed out on %s attempt #%u: did it go through?", who, op,
                 n->attempt);
        return VIEW_COLOR_WARNING;
    case TRACE_GIVE_UP:
        snprintf(buffer, size, "%s gives up on %s after %u attempt%s: outcome unknown", who, op,
                 n->attempt, n->attempt == 1 ? "" : "s");
        return VIEW_COLOR_WARNING;
    case TRACE_FAILED:
        snprintf(buffer, size, "%s was told %s failed", who, op);
        return VIEW_COLOR_WARNING;
    case TRACE_SUCCEEDED:
        snprintf(buffer, size, "%s was told %s succeeded", who, op);
        return VIEW_COLOR_OK;
    case TRACE_OFFLINE:
        snprintf(buffer, size, "%s lost its network for %.1f s right after sending %s", who,
                 (double)n->value / 1000.0, op);
        return VIEW_COLOR_WARNING;
    case TRACE_LOST_OFFLINE:
        snprintf(buffer, size, "%s is offline: %s", who,
                 n->detail == MESSAGE_REQUEST ? "the request never leaves the phone"
                                              : "the answer never reaches the phone");
        return VIEW_COLOR_LOST;
    case TRACE_RECONNECT:
        snprintf(buffer, size, "%s is back online and retries %s with %s", who, op,
                 key_words(pane, n->group, false));
        return VIEW_COLOR_WARNING;
    default:
        snprintf(buffer, size, "%s sends %s", who, op);
        return VIEW_COLOR_TEXT_DIM;
    }
}

ViewEffectWords view_narration_effects(const ViewPane *pane)
{
    const Scenario *scenario = pane->scenario;
    bool all_debit = scenario->client_group_count > 0, all_status = all_debit, money = false;
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        OperationKind kind = scenario->client_groups[g].operation.kind;
        all_debit = all_debit && kind == OPERATION_DEBIT;
        all_status = all_status && kind == OPERATION_SET_STATUS;
        money = money || pane->group_amount[g] > 0;
    }
    if (all_debit)
        return (ViewEffectWords){"charged", "payment", money};
    if (all_status)
        return (ViewEffectWords){"written", "status update", money};
    return (ViewEffectWords){"applied", "request", money};
}

#define VERDICT_PREFIX "finished: "

/* Appends "; clause" (or the first clause) to a verdict being built. */
static void verdict_add(char *buffer, size_t size, const char *clause)
{
    size_t used = strlen(buffer);
    if (used + 1 < size)
        snprintf(buffer + used, size - used, "%s%s", used > strlen(VERDICT_PREFIX) ? "; " : "",
                 clause);
}

/* The verdict names every bad outcome the run reports that has no counter of its own
 * (mismatches, stale status writes) whatever else went wrong, so the screen never claims
 * "charged once" where `run` counts a client given another payment's answer (C8). */
ViewColor view_narration_finished(const ViewPane *pane, char *buffer, size_t size)
{
    const ViewTally *tally = &pane->tally;
    const Metrics *metrics = world_metrics(pane->world);
    uint64_t doubles = tally->outcomes[OUTCOME_DOUBLE], lost = tally->outcomes[OUTCOME_LOST];
    uint64_t phantom = tally->outcomes[OUTCOME_PHANTOM];
    uint64_t mismatch = tally->outcomes[OUTCOME_MISMATCH];
    uint64_t stale = metrics->stale_overwrites;
    char money[48], clause[160];
    ViewColor color = VIEW_COLOR_OK;
    snprintf(buffer, size, VERDICT_PREFIX);
    ViewEffectWords effects = view_narration_effects(pane);
    if (doubles > 0) {
        view_narration_money(money, sizeof money, tally->double_amount, true);
        snprintf(clause, sizeof clause, "%" PRIu64 " of %" PRIu64 " %s twice or more%s%s%s",
                 doubles, tally->operations, effects.verb, effects.money ? " (" : "",
                 effects.money ? money : "", effects.money ? ")" : "");
        verdict_add(buffer, size, clause);
        color = VIEW_COLOR_DOUBLE;
    } else if (lost > 0) {
        view_narration_money(money, sizeof money, tally->lost_amount, false);
        snprintf(clause, sizeof clause, "%" PRIu64 " of %" PRIu64 " never %s%s%s%s", lost,
                 tally->operations, effects.verb, effects.money ? " (" : "",
                 effects.money ? money : "", effects.money ? " missing)" : "");
        verdict_add(buffer, size, clause);
        color = VIEW_COLOR_LOST;
    }
    if (mismatch > 0) {
        snprintf(clause, sizeof clause,
                 "%" PRIu64 " of %" PRIu64 " clients given another %s's answer (mismatch)",
                 mismatch, tally->operations, effects.noun);
        verdict_add(buffer, size, clause);
        color = color == VIEW_COLOR_OK ? VIEW_COLOR_DOUBLE : color;
    }
    if (stale > 0) {
        snprintf(clause, sizeof clause, "%" PRIu64 " stale overwrites (an old status over a newer)",
                 stale);
        verdict_add(buffer, size, clause);
        color = color == VIEW_COLOR_OK ? VIEW_COLOR_DOUBLE : color;
    }
    if (metrics->orders_fulfilled_twice > 0) { /* C33: each path once, the order twice */
        snprintf(clause, sizeof clause, "%" PRIu64 " orders fulfilled twice (two paths)",
                 metrics->orders_fulfilled_twice);
        verdict_add(buffer, size, clause);
        color = color == VIEW_COLOR_OK ? VIEW_COLOR_DOUBLE : color;
    }
    if (metrics->lost_updates > 0) { /* C29: told "paid", charged once, written over */
        view_narration_money(money, sizeof money, metrics->lost_update_amount, false);
        snprintf(clause, sizeof clause,
                 "%" PRIu64 " debits written over by a stale write (%s never taken: lost updates)",
                 metrics->lost_updates, money);
        verdict_add(buffer, size, clause);
        color = color == VIEW_COLOR_OK ? VIEW_COLOR_DOUBLE : color;
    }
    if (metrics->double_holds > 0) { /* C35: one charge, but two holds the customer sees */
        snprintf(clause, sizeof clause,
                 "%" PRIu64 " payments left two holds on the card (%" PRIu64
                 " holds never captured)",
                 metrics->double_holds, metrics->orphan_holds);
        verdict_add(buffer, size, clause);
        color = color == VIEW_COLOR_OK ? VIEW_COLOR_DOUBLE : color;
    }
    if (metrics->double_refunds > 0) { /* C28: money given back beyond what was charged */
        view_narration_money(money, sizeof money, metrics->double_refund_amount, false);
        snprintf(clause, sizeof clause, "%" PRIu64 " refunded twice or more (%s given away)",
                 metrics->double_refunds, money);
        verdict_add(buffer, size, clause);
        color = color == VIEW_COLOR_OK ? VIEW_COLOR_DOUBLE : color;
    }
    if (color != VIEW_COLOR_OK)
        return color;
    if (phantom > 0) {
        snprintf(clause, sizeof clause,
                 "%" PRIu64 " of %" PRIu64 " clients not told their %s went through", phantom,
                 tally->operations, effects.noun);
        verdict_add(buffer, size, clause);
        return VIEW_COLOR_WARNING;
    }
    /* declined and refunded payments ended with nothing charged, and the client knows */
    uint64_t declined = tally->outcomes[OUTCOME_DECLINED];
    uint64_t refunded = tally->outcomes[OUTCOME_REFUNDED];
    if (declined + refunded > 0) {
        snprintf(buffer, size,
                 "finished: every client told; %" PRIu64 " %s once, %" PRIu64 " refunded, %" PRIu64
                 " declined",
                 tally->outcomes[OUTCOME_OK], effects.verb, refunded, declined);
        return VIEW_COLOR_OK;
    }
    snprintf(buffer, size, "finished: all %" PRIu64 " %s exactly once, every client told",
             tally->operations, effects.verb);
    return VIEW_COLOR_OK;
}

ViewColor view_narration_line(const ViewPane *pane, const ViewNarration *n, char *buffer,
                              size_t size)
{
    if (!n->present) {
        snprintf(buffer, size, "waiting for the first request…");
        return VIEW_COLOR_TEXT_DIM;
    }
    if (n->event == TRACE_SWEEP) {
        snprintf(buffer, size, "key-store cleanup freed %" PRId64 " expired keys", n->value);
        return VIEW_COLOR_TEXT_DIM;
    }
    if (n->event == TRACE_REBALANCE) {
        /* on a log with several groups, or beside another log, each group rebalances on its
         * own: say which (the first group's records name none) */
        const Scenario *scenario = pane->scenario;
        bool several = n->queue[0] != '\0' || diagram_log_groups_several(scenario, 0);
        for (uint32_t b = 1; b <= scenario->extra_broker_count; b++)
            several |= scenario_broker(scenario, b)->family == BROKER_LOG;
        const char *group = n->queue[0] != '\0' ? n->queue : scenario->service_ids[NODE_CONSUMERS];
        snprintf(buffer, size,
                 "the consumer group%s%s rebalances: back to the last commit, %" PRId64
                 " records to process again",
                 several ? " " : "", several ? group : "", n->value);
        return n->value > 0 ? VIEW_COLOR_WARNING : VIEW_COLOR_TEXT_DIM;
    }
    char op[64], who[80];
    operation_words(op, sizeof op, pane, n->operation);
    view_narration_client(who, sizeof who, pane, n->group, n->client_in_group);
    switch (n->event) {
    case TRACE_EXECUTE:
    case TRACE_EXECUTE_NO_EFFECT:
        return execution_sentence(pane, n, op, buffer, size);
    case TRACE_REPLAY:
    case TRACE_IN_PROGRESS:
    case TRACE_REJECT_OTHER_BODY:
    case TRACE_DEDUPLICATED:
        return key_store_sentence(pane, n, op, buffer, size);
    case TRACE_LOST:
        return lost_sentence(pane, n, op, who, buffer, size);
    case TRACE_ENQUEUE:
    case TRACE_REDELIVER:
    case TRACE_ACK_TIMEOUT:
    case TRACE_DEAD_LETTER:
    case TRACE_DISCARD:
    case TRACE_LATE_ACK_ACCEPTED:
    case TRACE_LATE_ACK_IGNORED:
    case TRACE_COMMIT_REFUSED:
    case TRACE_RETRY_TOPIC:
        return broker_sentence(pane, n, op, buffer, size);
    default:
        if (n->kind != NODE_CLIENT_GROUP)
            return service_sentence(pane, n, op, buffer, size);
        return client_sentence(pane, n, op, who, buffer, size);
    }
}

/* ------------------------------------------------------------------ details */

static void add_line(ViewDetails *details, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void add_line(ViewDetails *details, const char *format, ...)
{
    if (details->line_count == VIEW_DETAIL_LINES_MAX)
        return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(details->lines[details->line_count++], VIEW_DETAIL_LEN_MAX, format, arguments);
    va_end(arguments);
}

static const char *message_words(MessageKind message)
{
    static const char *const words[MESSAGE_KIND_COUNT] = {"request",      "answer",   "charge",
                                                          "charge reply", "delivery", "ack",
                                                          "status query", "heartbeat"};
    return message < MESSAGE_KIND_COUNT ? words[message] : "message";
}

/* A lane by the name the diagram gives it: "web[3]", a service's node name. */
static void node_label(char *buffer, size_t size, const ViewPane *pane, int node)
{
    const DiagramLane *lane = diagram_lane(pane->diagram, node);
    snprintf(buffer, size, "%s", lane != NULL ? lane->name : "?");
}

/* What the copy led to: the decision of the service it reached. */
static void led_to(const DiagramItem *arrow, ViewDetails *details)
{
    switch ((TraceEvent)arrow->event) {
    case TRACE_EXECUTE:
        add_line(details, "led to: the %s effect%s", ordinal(arrow->effects),
                 arrow->effects >= 2 ? ", a DOUBLE" : "");
        details->color = arrow->effects >= 2 ? VIEW_COLOR_DOUBLE : details->color;
        break;
    case TRACE_REPLAY:
        add_line(details, "led to: a stored answer replayed, no charge");
        details->color = VIEW_COLOR_OK;
        break;
    case TRACE_IN_PROGRESS:
        add_line(details, "led to: key still processing, no charge");
        details->color = VIEW_COLOR_OK;
        break;
    case TRACE_REJECT_OTHER_BODY:
        add_line(details, "led to: same key, other body, rejected");
        details->color = VIEW_COLOR_WARNING;
        break;
    default:
        break;
    }
}

static void message_details(const ViewPane *pane, const DiagramItem *arrow, ViewDetails *details)
{
    char from[80], to[80];
    node_label(from, sizeof from, pane, arrow->from);
    node_label(to, sizeof to, pane, arrow->to);
    add_line(details, "%s " ARROW " %s, sent at %.3f s", from, to, (double)arrow->start_us / 1e6);
    add_line(details, "copy: %s",
             arrow->duplicate ? "a duplicate made by the network" : "the original");
    if (arrow->message == MESSAGE_REQUEST && view_pane_lane_is_client(pane, arrow->from))
        add_line(details, "key: %s", key_words(pane, pane->lanes[arrow->from].group, true));
    if (arrow->message == MESSAGE_RESPONSE || arrow->message == MESSAGE_CHARGE_REPLY)
        add_line(details, "status: %" PRId64, arrow->value);
    if (arrow->end_event == TRACE_LOST) {
        add_line(details, "fate: lost in the network, never arrived");
        details->color = VIEW_COLOR_LOST;
    } else if (arrow->end_us != SIM_TIME_NEVER) {
        add_line(details, "fate: arrived at %.3f s, after %.1f ms", (double)arrow->end_us / 1e6,
                 (double)(arrow->end_us - arrow->start_us) / 1e3);
    } else {
        add_line(details, "fate: still on its way");
    }
    led_to(arrow, details);
}

void view_narration_details(const ViewPane *pane, const DiagramItem *arrow, ViewDetails *details)
{
    memset(details, 0, sizeof *details);
    details->color = VIEW_COLOR_TEXT;
    char op[48], where[64];
    operation_words(op, sizeof op, pane, arrow->operation);
    node_label(where, sizeof where, pane, arrow->from);
    if (arrow->kind == DIAGRAM_MESSAGE) {
        snprintf(details->title, sizeof details->title, "%s \xC2\xB7 %s \xC2\xB7 attempt #%u",
                 message_words((MessageKind)arrow->message), op, arrow->attempt);
        message_details(pane, arrow, details);
        return;
    }
    if (arrow->kind == DIAGRAM_ACTIVATION) {
        snprintf(details->title, sizeof details->title,
                 "%s at work \xC2\xB7 %s \xC2\xB7 attempt #%u", where, op, arrow->attempt);
        add_line(details, "from %.3f s (arrival) to %s", (double)arrow->start_us / 1e6,
                 arrow->end_us == SIM_TIME_NEVER ? "now" : "its answer");
        if (arrow->end_event == TRACE_CRASH)
            add_line(details, "ended by a crash: no answer");
        led_to(arrow, details);
        return;
    }
    snprintf(details->title, sizeof details->title, "%s \xC2\xB7 %s",
             trace_event_name((TraceEvent)arrow->event), op);
    add_line(details, "at the %s, %.3f s, attempt #%u", where, (double)arrow->start_us / 1e6,
             arrow->attempt);
    if (arrow->event == TRACE_EXECUTE)
        led_to(arrow, details);
    else if (arrow->value != 0)
        add_line(details, "value: %" PRId64, arrow->value);
}
