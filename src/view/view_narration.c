/* Narration. Each sentence names who did what to which operation and, where it matters,
 * what it cost: the point of the view is the causal chain "answer lost -> timeout -> retry
 * -> charged again", or "-> stored response replayed, no charge". */
#include "view_narration.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MINUS "\xE2\x88\x92" /* U+2212 */
#define ARROW "\xE2\x86\x92" /* U+2192 */

/* ------------------------------------------------------------------ small words */

void view_narration_money(char *buffer, size_t size, int64_t minor_units, bool sign)
{
    uint64_t magnitude = minor_units < 0 ? (uint64_t)0 - (uint64_t)minor_units
                                         : (uint64_t)minor_units;
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
        return long_form ? "made by the server per request (retries never match)"
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
    static const char *const words[] = {"0th", "1st", "2nd", "3rd", "4th", "5th",
                                        "6th", "7th", "8th", "9th"};
    return n < 10 ? words[n] : "nth";
}

/* ------------------------------------------------------------------ the line */

static ViewColor server_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                 char *buffer, size_t size)
{
    char money[48];
    view_narration_money(money, sizeof money, pane->group_amount[n->group], false);
    switch (n->event) {
    case VIEW_EVENT_EXECUTE:
        if (n->effects >= 2) {
            snprintf(buffer, size, "%s charged AGAIN by attempt #%u: double charge, %s extra",
                     op, n->attempt, money);
            return VIEW_COLOR_DOUBLE;
        }
        snprintf(buffer, size, "%s executed: charged %s once (attempt #%u)", op, money,
                 n->attempt);
        return VIEW_COLOR_TEXT;
    case VIEW_EVENT_EXECUTE_NO_EFFECT:
        snprintf(buffer, size, "%s ran again but changed nothing (idempotent by state)", op);
        return VIEW_COLOR_TEXT;
    case VIEW_EVENT_REPLAY:
        snprintf(buffer, size,
                 "retry #%u of %s with the same key " ARROW " stored response replayed, no charge",
                 n->attempt, op);
        return VIEW_COLOR_OK;
    case VIEW_EVENT_IN_PROGRESS:
        snprintf(buffer, size,
                 "attempt #%u of %s arrived while the first is still processing " ARROW
                 " %" PRId64 ", no charge",
                 n->attempt, op, n->value);
        return VIEW_COLOR_OK;
    default:
        snprintf(buffer, size, "%s: key reused with a different body " ARROW " %" PRId64
                 ", rejected", op, n->value);
        return VIEW_COLOR_OK;
    }
}

static ViewColor network_sentence(const ViewNarration *n, const char *op, const char *who,
                                  char *buffer, size_t size)
{
    if (n->event == VIEW_EVENT_DUPLICATE) {
        snprintf(buffer, size, "the network delivered %s attempt #%u twice", op, n->attempt);
        return VIEW_COLOR_WARNING;
    }
    if (!n->response) {
        snprintf(buffer, size, "%s attempt #%u lost on the way to the server: not charged", op,
                 n->attempt);
        return VIEW_COLOR_LOST;
    }
    if (n->effects >= 1) {
        snprintf(buffer, size, "%s went through, but the answer was lost: %s cannot tell", op,
                 who);
        return VIEW_COLOR_WARNING;
    }
    snprintf(buffer, size, "the answer to %s attempt #%u was lost", op, n->attempt);
    return VIEW_COLOR_LOST;
}

static ViewColor client_sentence(const ViewPane *pane, const ViewNarration *n, const char *op,
                                 const char *who, char *buffer, size_t size)
{
    switch (n->event) {
    case VIEW_EVENT_RETRY:
        snprintf(buffer, size, "%s retries %s: attempt #%u with %s", who, op, n->attempt,
                 key_words(pane, n->group, false));
        return VIEW_COLOR_WARNING;
    case VIEW_EVENT_TIMEOUT:
        snprintf(buffer, size, "%s timed out on %s attempt #%u: did it go through?", who, op,
                 n->attempt);
        return VIEW_COLOR_WARNING;
    case VIEW_EVENT_GIVE_UP:
        snprintf(buffer, size, "%s gives up on %s after %u attempt%s: outcome unknown", who, op,
                 n->attempt, n->attempt == 1 ? "" : "s");
        return VIEW_COLOR_WARNING;
    case VIEW_EVENT_FAILED:
        snprintf(buffer, size, "%s was told %s failed", who, op);
        return VIEW_COLOR_WARNING;
    case VIEW_EVENT_SUCCEEDED:
        snprintf(buffer, size, "%s was told %s succeeded", who, op);
        return VIEW_COLOR_OK;
    case VIEW_EVENT_OFFLINE:
        snprintf(buffer, size, "%s lost its network for %.1f s right after sending %s", who,
                 (double)n->value / 1000.0, op);
        return VIEW_COLOR_WARNING;
    case VIEW_EVENT_RECONNECT:
        snprintf(buffer, size, "%s is back online and retries %s with %s", who, op,
                 key_words(pane, n->group, false));
        return VIEW_COLOR_WARNING;
    default:
        snprintf(buffer, size, "%s sends %s", who, op);
        return VIEW_COLOR_TEXT_DIM;
    }
}

ViewColor view_narration_line(const ViewPane *pane, const ViewNarration *n, char *buffer,
                              size_t size)
{
    if (!n->present) {
        snprintf(buffer, size, "waiting for the first request…");
        return VIEW_COLOR_TEXT_DIM;
    }
    if (n->event == VIEW_EVENT_SWEEP) {
        snprintf(buffer, size, "key-store cleanup freed %" PRId64 " expired keys", n->value);
        return VIEW_COLOR_TEXT_DIM;
    }
    char op[64], who[80];
    operation_words(op, sizeof op, pane, n->operation);
    view_narration_client(who, sizeof who, pane, n->group, n->client_in_group);
    switch (n->event) {
    case VIEW_EVENT_EXECUTE:
    case VIEW_EVENT_EXECUTE_NO_EFFECT:
    case VIEW_EVENT_REPLAY:
    case VIEW_EVENT_IN_PROGRESS:
    case VIEW_EVENT_REJECT_OTHER_BODY:
        return server_sentence(pane, n, op, buffer, size);
    case VIEW_EVENT_LOST:
    case VIEW_EVENT_DUPLICATE:
        return network_sentence(n, op, who, buffer, size);
    default:
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

static void request_fate(const ViewPane *pane, const ViewArrow *arrow, ViewDetails *details)
{
    double at = (double)arrow->end_us / 1e6;
    switch (arrow->end_event) {
    case VIEW_EVENT_LOST:
        add_line(details, "fate: lost in the network, never reached the server");
        details->color = VIEW_COLOR_LOST;
        break;
    case VIEW_EVENT_EXECUTE:
        add_line(details, "fate: executed at %.3f s " ARROW " %s charge%s", at,
                 ordinal(arrow->effects), arrow->effects >= 2 ? ": DOUBLE" : "");
        details->color = arrow->effects >= 2 ? VIEW_COLOR_DOUBLE : VIEW_COLOR_MESSAGE;
        break;
    case VIEW_EVENT_EXECUTE_NO_EFFECT:
        add_line(details, "fate: executed at %.3f s, changed nothing", at);
        break;
    case VIEW_EVENT_REPLAY:
        add_line(details, "fate: key completed " ARROW " stored answer %d replayed, no charge",
                 arrow->value);
        details->color = VIEW_COLOR_OK;
        break;
    case VIEW_EVENT_IN_PROGRESS:
        add_line(details, "fate: key still processing " ARROW " %d, no charge", arrow->value);
        details->color = VIEW_COLOR_OK;
        break;
    case VIEW_EVENT_REJECT_OTHER_BODY:
        add_line(details, "fate: same key, other body " ARROW " %d, rejected", arrow->value);
        details->color = VIEW_COLOR_WARNING;
        break;
    default:
        add_line(details, "fate: in flight, or queued at the server");
        break;
    }
    (void)pane;
}

static void answer_fate(const ViewArrow *arrow, ViewDetails *details)
{
    double at = (double)arrow->end_us / 1e6;
    switch (arrow->end_event) {
    case VIEW_EVENT_LOST:
        add_line(details, "fate: lost in the network, the client never saw it");
        details->color = VIEW_COLOR_LOST;
        break;
    case VIEW_EVENT_SUCCEEDED:
        add_line(details, "fate: reached the client at %.3f s " ARROW " told success", at);
        details->color = VIEW_COLOR_OK;
        break;
    case VIEW_EVENT_FAILED:
        add_line(details, "fate: reached the client at %.3f s " ARROW " told failure", at);
        details->color = VIEW_COLOR_WARNING;
        break;
    default:
        add_line(details, "fate: not in the trace (ignored as late, or still travelling)");
        break;
    }
}

static const char *mark_name(ViewEvent event)
{
    switch (event) {
    case VIEW_EVENT_TIMEOUT: return "timeout";
    case VIEW_EVENT_GIVE_UP: return "gave up";
    case VIEW_EVENT_SUCCEEDED: return "told success";
    case VIEW_EVENT_FAILED: return "told failure";
    case VIEW_EVENT_OFFLINE: return "offline";
    case VIEW_EVENT_RECONNECT: return "back online";
    default: return view_pane_event_name(event);
    }
}

void view_narration_details(const ViewPane *pane, const ViewArrow *arrow, ViewDetails *details)
{
    memset(details, 0, sizeof *details);
    details->color = VIEW_COLOR_TEXT;
    char op[64], who[80];
    operation_words(op, sizeof op, pane, arrow->operation);
    const ViewLane *lane = &pane->lanes[arrow->lane < VIEW_LANES_MAX ? arrow->lane : 0];
    view_narration_client(who, sizeof who, pane, lane->group, lane->client_in_group);
    const char *what = arrow->kind == VIEW_ARROW_REQUEST    ? "request"
                       : arrow->kind == VIEW_ARROW_RESPONSE ? "answer"
                                                            : mark_name(arrow->event);
    snprintf(details->title, sizeof details->title, "%s · %s · attempt #%u", what, op,
             arrow->attempt);
    add_line(details, "client %s · at %.3f s", who, (double)arrow->start_us / 1e6);
    if (arrow->kind != VIEW_ARROW_MARK) {
        add_line(details, "copy: %s", arrow->duplicate ? "a duplicate made by the network"
                                                       : "the original");
        add_line(details, "key: %s", key_words(pane, lane->group, true));
    }
    if (arrow->kind == VIEW_ARROW_REQUEST)
        request_fate(pane, arrow, details);
    else if (arrow->kind == VIEW_ARROW_RESPONSE) {
        add_line(details, "status: %d", arrow->value);
        answer_fate(arrow, details);
    } else if (arrow->event == VIEW_EVENT_OFFLINE)
        add_line(details, "offline for %.1f s", (double)arrow->value / 1000.0);
    uint32_t effects = pane->operations[arrow->operation].effects_traced;
    add_line(details, "%s so far: executed with effect %u time%s", op, effects,
             effects == 1 ? "" : "s");
}
