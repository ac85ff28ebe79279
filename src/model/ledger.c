/* The ledger: the state every operation kind changes (balances, resource rows, emails,
 * receipts), applied for whoever runs a handler (the server, the consumers, the gateway).
 * Each handler has its real semantics: some change state every time, some only once. The
 * operations count their own charges apart from the balances, so money conservation
 * compares two independent records (ledger_check_conservation). */
#include <stdlib.h>

#include "sim_assert.h"
#include "world_internal.h"

void ledger_init(World *world)
{
    const Scenario *scenario = &world->scenario;
    Ledger *ledger = &world->ledger;
    ledger->balances = sim_xcalloc(scenario->account_count, sizeof *ledger->balances);
    ledger->charged = sim_xcalloc(scenario->account_count, sizeof *ledger->charged);
    ledger->overwritten = sim_xcalloc(scenario->account_count, sizeof *ledger->overwritten);
    ledger->versions = sim_xcalloc(scenario->account_count, sizeof *ledger->versions);
    world->metrics.account_count = scenario->account_count;
    for (uint32_t a = 0; a < scenario->account_count; a++) {
        ledger->balances[a] = scenario->accounts[a].balance;
        world->metrics.balances[a].initial = scenario->accounts[a].balance;
        world->metrics.balances[a].expected = scenario->accounts[a].balance;
        world->metrics.balances[a].actual = scenario->accounts[a].balance;
    }
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (scenario->client_groups[g].operation.resource == RESOURCE_PER_CLIENT &&
            ledger->status == NULL) {
            ledger->status = sim_xcalloc(world->client_count, sizeof *ledger->status);
            ledger->newest_status = sim_xcalloc(world->client_count, sizeof *ledger->newest_status);
        }
    }
}

void ledger_release(World *world)
{
    free(world->ledger.balances);
    free(world->ledger.charged);
    free(world->ledger.overwritten);
    free(world->ledger.versions);
    free(world->ledger.status);
    free(world->ledger.newest_status);
}

/* ------------------------------------------------------------------ status records (C23) */

/* The status an operation sets on its client's record: its place in the client's sequence,
 * from 1 (operation ids count up per client, the same in every mode). */
static uint32_t status_of(const World *world, const Operation *op)
{
    return (uint32_t)(op->id - world->clients[op->client].first_operation + 1);
}

/* Writes status to op's client record. Unconditional, it always lands: a write older than
 * the status held is a stale overwrite, counted and traced. Conditional (a version check:
 * the write carries the version it follows, the record refuses it once a newer one is
 * there), an older write is refused with 412 and changes nothing. The same status again
 * changes nothing either way (idempotent by state, as C5). */
static bool write_status(World *world, Operation *op, bool conditional, int *status,
                         uint32_t *replaced)
{
    Ledger *ledger = &world->ledger;
    uint32_t wanted = status_of(world, op);
    uint32_t held = ledger->status[op->client];
    *replaced = 0;
    if (held == wanted)
        return false;
    if (held > wanted && conditional) {
        *status = 412;
        world->metrics.status_412++;
        return false;
    }
    if (held > wanted) {
        *replaced = held;
        world->metrics.stale_overwrites++;
    }
    ledger->status[op->client] = wanted;
    if (wanted > ledger->newest_status[op->client])
        ledger->newest_status[op->client] = wanted;
    return true;
}

uint64_t ledger_count_stale_records(const World *world)
{
    uint64_t stale = 0;
    for (uint32_t c = 0; world->ledger.status != NULL && c < world->client_count; c++)
        stale += world->ledger.status[c] < world->ledger.newest_status[c];
    return stale;
}

/* Runs the handler of request's operation kind; true when it changed state. *replaced: the
 * newer status a stale status write overwrote, else 0; *write: what a debit's write did to
 * its balance (balance_update.c). */
static bool handle(World *world, const Message *request, const BalanceRead *read, Operation *op,
                   const ClientGroupSpec *spec, int *status, uint32_t *replaced,
                   BalanceWrite *write)
{
    bool first = op->resource_state == 0;
    *status = 200;
    *replaced = 0;
    if (spec->operation.resource == RESOURCE_PER_CLIENT)
        return write_status(world, op, spec->operation.conditional, status, replaced);
    switch (spec->operation.kind) {
    case OPERATION_DEBIT:
        *write = balance_update_debit(world, request, read);
        return true;
    case OPERATION_SET_STATUS: /* idempotent by state: the second run changes nothing */
        op->resource_state = 1;
        return first;
    case OPERATION_DELETE: /* idempotent by state, not by response: 204, then 404 */
        op->resource_state = 1;
        *status =
            first || server_settings_at(world, request->target)->delete_always_204 ? 204 : 404;
        return first;
    case OPERATION_INSERT: /* no unique key: a new row every time */
        *status = 201;
        return true;
    case OPERATION_INSERT_UNIQUE:
        op->resource_state = 1;
        *status = first ? 201 : 409;
        return first;
    case OPERATION_SEND_EMAIL:
        world->metrics.emails_sent++;
        return true;
    case OPERATION_INCREMENT: /* a PUT whose handler adds one: not idempotent */
        return true;
    case OPERATION_KIND_COUNT:
        break;
    }
    return false;
}

/* Effects net of refunds: what the live double count follows (a refunded charge is none). */
static uint32_t net_effects(const Operation *op)
{
    return op->effects > op->refunds ? op->effects - op->refunds : 0;
}

int ledger_apply(World *world, const Message *request, uint32_t actor, bool *changed)
{
    return ledger_apply_read(world, request, NULL, actor, changed);
}

int ledger_apply_read(World *world, const Message *request, const BalanceRead *read, uint32_t actor,
                      bool *changed)
{
    Operation *op = world_operation(world, request->operation);
    const ClientGroupSpec *spec = world->groups[world->clients[op->client].group].spec;
    int status = 200;
    uint32_t replaced = 0;
    BalanceWrite write = {false, 0};
    bool effect = handle(world, request, read, op, spec, &status, &replaced, &write);
    if (changed != NULL)
        *changed = effect;
    if (effect) {
        int64_t amount = spec->operation.kind == OPERATION_DEBIT ? spec->operation.amount : 0;
        ServiceMetrics *service = world_service_metrics(world, actor);
        op->effects++;
        world->metrics.effects++;
        service->effects++;
        service->charged_amount += amount;
        if (net_effects(op) >= 2) {
            world->metrics.doubles_so_far += net_effects(op) == 2;
            world->metrics.double_amount_so_far += amount;
            service->doubles++;
            service->double_amount += amount;
        }
        /* A receipt leaves with the change (a dual write), unless the server writes it to
         * its outbox with the commit; the consumers' charges always publish directly. A
         * charge at the gateway, or a called server's change, is not the server's: the
         * server publishes once it hears of it (server_charge.c), and only if it does. */
        bool through_outbox = world->scenario.server.receipts_via == RECEIPTS_OUTBOX &&
                              world->nodes[actor].kind != NODE_CONSUMERS;
        if (world->scenario.server.publish_receipts && spec->operation.kind == OPERATION_DEBIT &&
            !through_outbox && world->nodes[actor].kind != NODE_GATEWAY &&
            !world_is_called_server(world, actor))
            broker_publish_receipt(world, request);
    }
    if (world_tracing(world)) {
        TraceEvent event = effect ? TRACE_EXECUTE : TRACE_EXECUTE_NO_EFFECT;
        world_trace_about(world, actor, status == 412 ? TRACE_PRECONDITION_FAILED : event, request,
                          status, 0);
        if (replaced != 0)
            world_trace_about(world, actor, TRACE_STALE_OVERWRITE, request, replaced, 0);
        if (write.lost)
            world_trace_about(world, actor, TRACE_LOST_UPDATE, request, write.overwritten, 0);
    }
    return status;
}

/* The inverse of one effect of handle(): a local transaction that did not commit leaves
 * nothing behind. A receipt already published is not taken back: publishing is not part of
 * the transaction (that is the outbox's job). */
void ledger_undo(World *world, const Message *request, uint32_t actor)
{
    Operation *op = world_operation(world, request->operation);
    const ClientGroupSpec *spec = world->groups[world->clients[op->client].group].spec;
    SIM_ASSERT(op->effects > 0, "only an effect is undone");
    Ledger *ledger = &world->ledger;
    int64_t amount = spec->operation.kind == OPERATION_DEBIT ? spec->operation.amount : 0;
    switch (spec->operation.kind) {
    case OPERATION_DEBIT:
        ledger->balances[spec->account] += amount;
        ledger->versions[spec->account]++;
        world->metrics.balances[spec->account].actual = ledger->balances[spec->account];
        break;
    case OPERATION_SET_STATUS:
        SIM_ASSERT(spec->operation.resource == RESOURCE_PER_OPERATION,
                   "the loader refuses undoing a shared record");
        op->resource_state = 0;
        break;
    case OPERATION_DELETE:
    case OPERATION_INSERT_UNIQUE:
        op->resource_state = 0;
        break;
    case OPERATION_SEND_EMAIL:
        world->metrics.emails_sent--;
        break;
    case OPERATION_INSERT:
    case OPERATION_INCREMENT:
    case OPERATION_KIND_COUNT:
        break;
    }
    ServiceMetrics *service = world_service_metrics(world, actor);
    if (net_effects(op) >= 2) {
        world->metrics.doubles_so_far -= net_effects(op) == 2;
        world->metrics.double_amount_so_far -= amount;
        service->doubles--;
        service->double_amount -= amount;
    }
    op->effects--;
    world->metrics.effects--;
    service->effects--;
    service->charged_amount -= amount;
    if (world_tracing(world))
        world_trace_about(world, actor, TRACE_ROLLBACK, request, 0, 0);
}

void ledger_refund(World *world, const Message *refund, uint32_t actor)
{
    Operation *op = world_operation(world, refund->operation);
    const ClientGroupSpec *spec = world->groups[world->clients[op->client].group].spec;
    SIM_ASSERT(spec->operation.kind == OPERATION_DEBIT, "only a charge is refunded");
    world->ledger.balances[spec->account] += spec->operation.amount;
    world->metrics.balances[spec->account].actual = world->ledger.balances[spec->account];
    if (net_effects(op) >= 2) { /* a double charge given back is a double no longer */
        world->metrics.doubles_so_far -= net_effects(op) == 2;
        world->metrics.double_amount_so_far -= spec->operation.amount;
    }
    op->refunds++;
    world->metrics.refunds++;
    world_service_metrics(world, actor)->refunds++;
}

void ledger_count_settled(World *world, uint32_t account, int64_t charged)
{
    world->ledger.charged[account] += charged;
}

void ledger_check_conservation(const World *world)
{
    for (uint32_t a = 0; a < world->scenario.account_count; a++) {
        SIM_ASSERT(world->ledger.balances[a] == world->scenario.accounts[a].balance -
                                                    world->ledger.charged[a] +
                                                    world->ledger.overwritten[a],
                   "money conservation violated");
    }
}
