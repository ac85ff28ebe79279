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
    world->metrics.account_count = scenario->account_count;
    for (uint32_t a = 0; a < scenario->account_count; a++) {
        ledger->balances[a] = scenario->accounts[a].balance;
        world->metrics.balances[a].initial = scenario->accounts[a].balance;
        world->metrics.balances[a].expected = scenario->accounts[a].balance;
        world->metrics.balances[a].actual = scenario->accounts[a].balance;
    }
}

void ledger_release(World *world)
{
    free(world->ledger.balances);
    free(world->ledger.charged);
}

/* Runs the handler of request's operation kind; true when it changed state. */
static bool handle(World *world, Operation *op, const ClientGroupSpec *spec, int *status)
{
    Ledger *ledger = &world->ledger;
    bool first = op->resource_state == 0;
    *status = 200;
    switch (spec->operation.kind) {
    case OPERATION_DEBIT:
        ledger->balances[spec->account] -= spec->operation.amount;
        world->metrics.balances[spec->account].actual = ledger->balances[spec->account];
        return true;
    case OPERATION_SET_STATUS: /* idempotent by state: the second run changes nothing */
        op->resource_state = 1;
        return first;
    case OPERATION_DELETE: /* idempotent by state, not by response: 204, then 404 */
        op->resource_state = 1;
        *status = first || world->scenario.server.delete_always_204 ? 204 : 404;
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

int ledger_apply(World *world, const Message *request, uint32_t actor, bool *changed)
{
    Operation *op = world_operation(world, request->operation);
    const ClientGroupSpec *spec = world->groups[world->clients[op->client].group].spec;
    int status = 200;
    bool effect = handle(world, op, spec, &status);
    if (changed != NULL)
        *changed = effect;
    if (effect) {
        op->effects++;
        world->metrics.effects++;
        if (op->effects >= 2) {
            world->metrics.doubles_so_far += op->effects == 2;
            world->metrics.double_amount_so_far +=
                spec->operation.kind == OPERATION_DEBIT ? spec->operation.amount : 0;
        }
        /* A receipt leaves with the change (a dual write), unless the server writes it to
         * its outbox with the commit; the consumers' charges always publish directly. */
        bool through_outbox = world->scenario.server.receipts_via == RECEIPTS_OUTBOX &&
                              actor != world->consumers_node;
        if (world->scenario.server.publish_receipts && spec->operation.kind == OPERATION_DEBIT &&
            !through_outbox)
            broker_publish_receipt(world, request);
    }
    if (world_tracing(world))
        world_trace_about(world, actor, effect ? TRACE_EXECUTE : TRACE_EXECUTE_NO_EFFECT, request,
                          status, 0);
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
        world->metrics.balances[spec->account].actual = ledger->balances[spec->account];
        break;
    case OPERATION_SET_STATUS:
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
    if (op->effects >= 2) {
        world->metrics.doubles_so_far -= op->effects == 2;
        world->metrics.double_amount_so_far -= amount;
    }
    op->effects--;
    world->metrics.effects--;
    if (world_tracing(world))
        world_trace_about(world, actor, TRACE_ROLLBACK, request, 0, 0);
}

void ledger_count_settled(World *world, uint32_t account, int64_t charged)
{
    world->ledger.charged[account] += charged;
}

void ledger_check_conservation(const World *world)
{
    for (uint32_t a = 0; a < world->scenario.account_count; a++) {
        SIM_ASSERT(world->ledger.balances[a] ==
                       world->scenario.accounts[a].balance - world->ledger.charged[a],
                   "money conservation violated");
    }
}
