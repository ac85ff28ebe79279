/* How a debit's handler writes its balance (operation.update, C29). `atomic` is one
 * statement, balance = balance - amount, and never loses anything. `read-modify-write` reads
 * the balance when the handler starts and writes back what it computed when it ends: a debit
 * applied by another handler in between is overwritten, a lost update (ACIDRain's anomaly).
 * `compare-and-set` makes that write conditional on the balance still being the one read;
 * on a conflict the handler reads again and runs again, as optimistic concurrency does.
 * The window is the handler's service time: the read is taken when its run is scheduled. */
#include "world_internal.h"

static const OperationSpec *operation_of(const World *world, const Message *request)
{
    return &world->groups[world->clients[request->client].group].spec->operation;
}

static uint32_t account_of(const World *world, const Message *request)
{
    return world->groups[world->clients[request->client].group].spec->account;
}

void balance_update_read(World *world, Job *job)
{
    const OperationSpec *operation = operation_of(world, &job->request);
    if (operation->update == BALANCE_UPDATE_ATOMIC || job->request.receipt)
        return;
    job->balance_read.balance = world->ledger.balances[account_of(world, &job->request)];
    job->balance_read.taken = true;
}

bool balance_update_conflict(World *world, Job *job, uint32_t actor)
{
    const OperationSpec *operation = operation_of(world, &job->request);
    if (operation->update != BALANCE_UPDATE_COMPARE_AND_SET || job->request.receipt)
        return false;
    SIM_ASSERT(job->balance_read.taken, "a compare-and-set handler read before it writes");
    int64_t now = world->ledger.balances[account_of(world, &job->request)];
    if (now == job->balance_read.balance)
        return false;
    world->metrics.update_conflicts++;
    if (world_tracing(world))
        world_trace_about(world, actor, TRACE_UPDATE_CONFLICT, &job->request,
                          job->balance_read.balance - now, 0);
    balance_update_read(world, job);
    return true;
}

int64_t balance_update_debit(World *world, const Message *request, const BalanceRead *read)
{
    const OperationSpec *operation = operation_of(world, request);
    uint32_t account = account_of(world, request);
    int64_t *balance = &world->ledger.balances[account];
    int64_t overwritten = 0;
    if (operation->update == BALANCE_UPDATE_READ_MODIFY_WRITE && read != NULL && read->taken) {
        /* balance := read - amount: whatever moved the balance since the read is undone */
        overwritten = read->balance - *balance;
        *balance = read->balance;
    }
    SIM_ASSERT(operation->update != BALANCE_UPDATE_COMPARE_AND_SET || read == NULL ||
                   !read->taken || read->balance == *balance,
               "a compare-and-set write lands only on the balance it read");
    *balance -= operation->amount;
    world->metrics.balances[account].actual = *balance;
    if (overwritten != 0) {
        world->metrics.lost_updates++;
        world->metrics.lost_update_amount += overwritten;
        world->ledger.overwritten[account] += overwritten;
    }
    return overwritten;
}
