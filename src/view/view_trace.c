/* The pane's TraceSink. Each record updates three things: the operation's live state (its
 * effects and what its client was told), the arrows of the sequence diagram when the
 * operation belongs to a sampled client (or the density of the others' traffic), and the
 * narration line. Records borrow their strings for the call, so nothing keeps them.
 * Pairing follows the model's emission order (src/model): "send"/"retry" precede the loss
 * of the request copy; "execute" precedes the answer being sent, but "replay",
 * "in_progress" and "reject_other_body" come after it, so an answer's arrow is found or
 * created by whichever record names it first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_pane.h"

#define FLAG_STARTED 1u
#define FLAG_DIRTY 2u
#define FLAG_EXPECTED 4u /* the operation's intended debit is in tally.expected */
#define PAIRING_SCAN_MAX 4096

enum { CLASS_NONE, CLASS_PENDING, CLASS_OUTCOME };

/* ------------------------------------------------------------------ live outcomes */

static void mark_dirty(ViewPane *pane, uint64_t operation)
{
    ViewOperation *op = &pane->operations[operation];
    if (op->flags & FLAG_DIRTY)
        return;
    if (pane->dirty_count == pane->dirty_capacity) {
        uint64_t capacity = pane->dirty_capacity ? pane->dirty_capacity * 2 : 1024;
        uint64_t *grown = realloc(pane->dirty, capacity * sizeof *grown);
        if (grown == NULL)
            return; /* settled later, when a record touches it again or the world ends */
        pane->dirty = grown;
        pane->dirty_capacity = capacity;
    }
    op->flags |= FLAG_DIRTY;
    pane->dirty[pane->dirty_count++] = operation;
}

/* settle()'s classification in world.c, without "mismatch", which the trace cannot show. */
static uint8_t classify(const OperationView *view, Belief belief)
{
    if (!view->started)
        return CLASS_NONE;
    if (view->effects >= 2)
        return CLASS_OUTCOME + OUTCOME_DOUBLE;
    if (!view->finished)
        return CLASS_PENDING;
    if (view->effects == 0)
        return CLASS_OUTCOME + OUTCOME_LOST;
    return CLASS_OUTCOME + (belief == BELIEF_SUCCEEDED ? OUTCOME_OK : OUTCOME_PHANTOM);
}

static void count_class(ViewTally *tally, const ViewOperation *op, int64_t amount, int sign)
{
    if (op->outcome == CLASS_PENDING)
        tally->pending += (uint64_t)(int64_t)sign;
    if (op->outcome < CLASS_OUTCOME)
        return;
    Outcome outcome = (Outcome)(op->outcome - CLASS_OUTCOME);
    tally->outcomes[outcome] += (uint64_t)(int64_t)sign;
    if (outcome == OUTCOME_DOUBLE)
        tally->double_amount += sign * amount * (int64_t)(op->effects_known - 1);
    if (outcome == OUTCOME_LOST)
        tally->lost_amount += sign * amount;
}

static void settle_operation(ViewPane *pane, uint64_t id)
{
    ViewOperation *op = &pane->operations[id];
    op->flags &= (uint8_t)~FLAG_DIRTY;
    OperationView view;
    if (!world_operation_view(pane->world, id, &view) || !view.started)
        return;
    ViewTally *tally = &pane->tally;
    int64_t amount = pane->group_amount[view.group];
    uint32_t account = view.account < ACCOUNTS_MAX ? view.account : 0;
    if (!(op->flags & FLAG_STARTED)) {
        op->flags |= FLAG_STARTED;
        tally->operations++;
    }
    if (view.effects > op->effects_known)
        tally->actual[account] -= amount * (int64_t)(view.effects - op->effects_known);
    /* An operation counts in "expected" once its money is decided: charged at least once,
     * or its client is done. Those still in flight count in neither balance. */
    if ((view.finished || view.effects >= 1) && !(op->flags & FLAG_EXPECTED)) {
        op->flags |= FLAG_EXPECTED;
        tally->expected[account] -= amount;
    }
    count_class(tally, op, amount, -1);
    op->effects_known = view.effects;
    op->outcome = classify(&view, (Belief)op->belief);
    count_class(tally, op, amount, +1);
}

void view_trace_settle(ViewPane *pane)
{
    if (pane->tally.final)
        return;
    for (uint64_t i = 0; i < pane->dirty_count; i++)
        settle_operation(pane, pane->dirty[i]);
    pane->dirty_count = 0;
}

static void note_operation(ViewPane *pane, ViewEvent event, uint64_t operation)
{
    ViewOperation *op = &pane->operations[operation];
    switch (event) {
    case VIEW_EVENT_EXECUTE:
        op->effects_traced++;
        break;
    case VIEW_EVENT_SUCCEEDED:
        op->belief = BELIEF_SUCCEEDED;
        break;
    case VIEW_EVENT_FAILED:
        if (op->belief != BELIEF_SUCCEEDED)
            op->belief = BELIEF_FAILED;
        break;
    case VIEW_EVENT_GIVE_UP:
        if (op->belief == BELIEF_NONE)
            op->belief = BELIEF_UNKNOWN;
        break;
    case VIEW_EVENT_SEND:
        break;
    default:
        return;
    }
    mark_dirty(pane, operation);
}

/* ------------------------------------------------------------------ arrows */

static int lane_of(const ViewPane *pane, const OperationView *view)
{
    for (uint32_t l = 0; l < pane->lane_count; l++) {
        if (pane->lanes[l].group == view->group &&
            pane->lanes[l].client_in_group == view->client_in_group)
            return (int)l;
    }
    return -1;
}

static ViewArrow *new_arrow(ViewPane *pane, const TraceRecord *record, ViewArrowKind kind,
                            ViewEvent event, int lane)
{
    ViewArrow *arrow = &pane->arrows[pane->arrow_serial % VIEW_ARROWS_MAX];
    *arrow = (ViewArrow){
        .serial = pane->arrow_serial++,
        .operation = record->operation,
        .start_us = record->t_us,
        .end_us = SIM_TIME_NEVER,
        .attempt = record->attempt,
        .copy = record->copy,
        .lane = (uint16_t)lane,
        .kind = (uint8_t)kind,
        .event = (uint8_t)event,
        .end_event = VIEW_EVENT_OTHER,
    };
    return arrow;
}

/* The newest arrow of kind for (operation, attempt, copy); copy 0 matches any copy that is
 * still open (no end seen). */
static ViewArrow *find_arrow(ViewPane *pane, ViewArrowKind kind, uint64_t operation,
                             uint32_t attempt, uint32_t copy)
{
    uint64_t first = view_pane_first_serial(pane);
    uint64_t scanned = 0;
    for (uint64_t serial = pane->arrow_serial; serial-- > first && scanned < PAIRING_SCAN_MAX;
         scanned++) {
        ViewArrow *arrow = &pane->arrows[serial % VIEW_ARROWS_MAX];
        if (arrow->kind != kind || arrow->operation != operation || arrow->attempt != attempt)
            continue;
        if (copy == 0 ? arrow->end_us == SIM_TIME_NEVER : arrow->copy == copy)
            return arrow;
    }
    return NULL;
}

static ViewArrow *answer_arrow(ViewPane *pane, const TraceRecord *record, uint32_t copy,
                               int lane)
{
    ViewArrow *arrow = find_arrow(pane, VIEW_ARROW_RESPONSE, record->operation,
                                  record->attempt, copy);
    if (arrow == NULL) {
        TraceRecord at = *record;
        at.copy = copy;
        arrow = new_arrow(pane, &at, VIEW_ARROW_RESPONSE, VIEW_EVENT_SEND, lane);
    }
    return arrow;
}

static bool is_response_copy(const TraceRecord *record)
{
    if (record->detail != NULL)
        return strcmp(record->detail, "response") == 0;
    return record->copy >= 4; /* one bit of lineage per hop: requests are 2 and 3 */
}

/* A server decision ends the request copy it names and starts the answer to it. */
static void decide(ViewPane *pane, const TraceRecord *record, ViewEvent event, int lane)
{
    ViewArrow *request = find_arrow(pane, VIEW_ARROW_REQUEST, record->operation,
                                    record->attempt, record->copy);
    if (request != NULL) {
        request->end_us = record->t_us;
        request->end_event = (uint8_t)event;
        request->value = (int32_t)record->value;
        request->effects = (uint16_t)pane->operations[record->operation].effects_traced;
    }
    ViewArrow *answer = answer_arrow(pane, record, record->copy * 2, lane);
    answer->value = (int32_t)record->value;
    answer->event = (uint8_t)event;
}

static void client_told(ViewPane *pane, const TraceRecord *record, ViewEvent event, int lane)
{
    ViewArrow *answer = find_arrow(pane, VIEW_ARROW_RESPONSE, record->operation,
                                   record->attempt, 0);
    if (answer != NULL && event != VIEW_EVENT_GIVE_UP) {
        answer->end_us = record->t_us;
        answer->end_event = (uint8_t)event;
    }
    /* A give-up right at a timeout is one moment on the lane: one mark, the give-up. */
    ViewArrow *last = pane->arrow_serial > view_pane_first_serial(pane)
                          ? &pane->arrows[(pane->arrow_serial - 1) % VIEW_ARROWS_MAX]
                          : NULL;
    if (event == VIEW_EVENT_GIVE_UP && last != NULL && last->kind == VIEW_ARROW_MARK &&
        last->event == VIEW_EVENT_TIMEOUT && last->operation == record->operation &&
        last->start_us == record->t_us) {
        last->event = VIEW_EVENT_GIVE_UP;
        return;
    }
    new_arrow(pane, record, VIEW_ARROW_MARK, event, lane);
}

static void ingest_arrow(ViewPane *pane, const TraceRecord *record, ViewEvent event, int lane)
{
    switch (event) {
    case VIEW_EVENT_SEND:
    case VIEW_EVENT_RETRY:
        new_arrow(pane, record, VIEW_ARROW_REQUEST, event, lane)->copy = 2;
        break;
    case VIEW_EVENT_DUPLICATE:
        if (is_response_copy(record))
            answer_arrow(pane, record, record->copy, lane)->duplicate = true;
        else
            new_arrow(pane, record, VIEW_ARROW_REQUEST, event, lane)->duplicate = true;
        break;
    case VIEW_EVENT_LOST: {
        bool response = is_response_copy(record);
        ViewArrow *arrow = response ? answer_arrow(pane, record, record->copy, lane)
                                    : find_arrow(pane, VIEW_ARROW_REQUEST, record->operation,
                                                 record->attempt, record->copy);
        if (arrow != NULL) {
            arrow->end_us = record->t_us;
            arrow->end_event = VIEW_EVENT_LOST;
        }
        break;
    }
    case VIEW_EVENT_EXECUTE:
    case VIEW_EVENT_EXECUTE_NO_EFFECT:
    case VIEW_EVENT_REPLAY:
    case VIEW_EVENT_IN_PROGRESS:
    case VIEW_EVENT_REJECT_OTHER_BODY:
        decide(pane, record, event, lane);
        break;
    case VIEW_EVENT_SUCCEEDED:
    case VIEW_EVENT_FAILED:
    case VIEW_EVENT_GIVE_UP:
        client_told(pane, record, event, lane);
        break;
    case VIEW_EVENT_TIMEOUT:
    case VIEW_EVENT_OFFLINE:
    case VIEW_EVENT_RECONNECT:
        new_arrow(pane, record, VIEW_ARROW_MARK, event, lane)->value = (int32_t)record->value;
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------ everyone's density */

static void ingest_density(ViewPane *pane, const TraceRecord *record, ViewEvent event,
                           const ViewOperation *op)
{
    SimTimeUs bucket = record->t_us / VIEW_DENSITY_BUCKET_US;
    ViewDensity *slot = &pane->density[bucket % VIEW_DENSITY_BUCKETS];
    if (slot->bucket != bucket + 1)
        *slot = (ViewDensity){.bucket = bucket + 1};
    if (event == VIEW_EVENT_SEND || event == VIEW_EVENT_RETRY)
        slot->sends++;
    if (event == VIEW_EVENT_RETRY)
        slot->retries++;
    if (event == VIEW_EVENT_LOST)
        slot->lost++;
    if (event == VIEW_EVENT_EXECUTE && op->effects_traced >= 2)
        slot->doubles++;
}

/* ------------------------------------------------------------------ narration */

/* How notable an event is: a double charge or a key-store save, then an unknown outcome,
 * then a fault; routine steps only fill silence. */
static int rank_of(ViewEvent event, const ViewOperation *op, bool response)
{
    switch (event) {
    case VIEW_EVENT_EXECUTE:
        return op->effects_traced >= 2 ? 3 : 0;
    case VIEW_EVENT_REPLAY: /* the key store saving a charge is the other half of the lesson */
    case VIEW_EVENT_IN_PROGRESS:
    case VIEW_EVENT_REJECT_OTHER_BODY:
        return 3;
    case VIEW_EVENT_GIVE_UP:
    case VIEW_EVENT_FAILED:
        return 2;
    case VIEW_EVENT_LOST:
        return response && op->effects_traced >= 1 ? 2 : 1;
    case VIEW_EVENT_TIMEOUT:
    case VIEW_EVENT_RETRY:
    case VIEW_EVENT_OFFLINE:
    case VIEW_EVENT_RECONNECT:
    case VIEW_EVENT_DUPLICATE:
    case VIEW_EVENT_EXECUTE_NO_EFFECT:
    case VIEW_EVENT_SWEEP:
        return 1;
    default:
        return 0;
    }
}

static void narrate(ViewPane *pane, const TraceRecord *record, ViewEvent event,
                    const OperationView *view, const ViewOperation *op)
{
    bool response = event == VIEW_EVENT_LOST && is_response_copy(record);
    int rank = rank_of(event, op, response);
    ViewNarration *line = &pane->narration;
    bool stale = !line->present || record->t_us >= line->t_us + pane->narration_hold_us;
    if (!stale && rank < line->rank)
        return;
    if (!stale && rank == 0)
        return; /* routine events only fill silence */
    *line = (ViewNarration){
        .present = true,
        .event = event,
        .response = response,
        .rank = rank,
        .t_us = record->t_us,
        .operation = record->operation,
        .attempt = record->attempt,
        .group = view ? view->group : 0,
        .client_in_group = view ? view->client_in_group : 0,
        .effects = op ? op->effects_traced : 0,
        .value = record->value,
    };
}

/* ------------------------------------------------------------------ the sink */

static void on_record(void *context, const TraceRecord *record)
{
    ViewPane *pane = context;
    ViewEvent event = view_pane_event_from_name(record->event);
    pane->records++;
    pane->records_by_event[event]++;
    static const ViewOperation no_operation = {0};
    if (event == VIEW_EVENT_SWEEP) {
        narrate(pane, record, event, NULL, &no_operation);
        return;
    }
    OperationView view;
    if (event == VIEW_EVENT_OTHER || pane->world == NULL ||
        record->operation >= pane->operation_count ||
        !world_operation_view(pane->world, record->operation, &view))
        return;
    note_operation(pane, event, record->operation);
    const ViewOperation *op = &pane->operations[record->operation];
    int lane = lane_of(pane, &view);
    if (lane >= 0)
        ingest_arrow(pane, record, event, lane);
    ingest_density(pane, record, event, op);
    narrate(pane, record, event, &view, op);
}

TraceSink view_trace_sink(ViewPane *pane)
{
    return (TraceSink){.write = on_record, .context = pane};
}
