/* How a debit's handler writes its balance (operation.update, C29). `atomic` is one
 * statement, balance = balance - amount, and never loses anything. `read-modify-write` reads
 * the balance when the handler starts and writes back what it computed when it ends: a debit
 * applied by another handler in between is overwritten, a lost update (ACIDRain's anomaly).
 * `compare-and-set` makes that write conditional on the balance being unchanged since the
 * read (a version column, or WHERE balance = :read); on a conflict the handler reads again
 * and runs again, as optimistic concurrency does.
 * The window is the handler's service time: the read is taken when its run is scheduled.
 * "Moved since the read" is a write counted in Ledger.versions, or a balance that differs
 * (a writer that counts no version still shows). */
#include "world_internal.h"

static const OperationSpec *operation_of(const World *world, const Message *request)
{
    return &world->groups[world->clients[request->client].group].spec->operation;
}

static uint32_t account_of(const World *world, const Message *request)
{
    return world->groups[world->clients[request->client].group].spec->account;
}

static bool moved_since(const World *world, uint32_t account, const BalanceRead *read)
{
    return world->ledger.versions[account] != read->version ||
           world->ledger.balances[account] != read->balance;
}

void balance_update_read(World *world, Job *job)
{
    const OperationSpec *operation = operation_of(world, &job->request);
    if (operation->update == BALANCE_UPDATE_ATOMIC || job->request.receipt)
        return;
    uint32_t account = account_of(world, &job->request);
    job->balance_read = (BalanceRead){.balance = world->ledger.balances[account],
                                      .version = world->ledger.versions[account],
                                      .taken = true};
}

bool balance_update_conflict(World *world, Job *job, uint32_t actor)
{
    const OperationSpec *operation = operation_of(world, &job->request);
    if (operation->update != BALANCE_UPDATE_COMPARE_AND_SET || job->request.receipt)
        return false;
    SIM_ASSERT(job->balance_read.taken, "a compare-and-set handler read before it writes");
    uint32_t account = account_of(world, &job->request);
    if (!moved_since(world, account, &job->balance_read))
        return false;
    world->metrics.update_conflicts++;
    if (world_tracing(world))
        world_trace_about(world, actor, TRACE_UPDATE_CONFLICT, &job->request,
                          job->balance_read.balance - world->ledger.balances[account], 0);
    balance_update_read(world, job);
    return true;
}

BalanceWrite balance_update_debit(World *world, const Message *request, const BalanceRead *read)
{
    const OperationSpec *operation = operation_of(world, request);
    uint32_t account = account_of(world, request);
    Ledger *ledger = &world->ledger;
    BalanceWrite write = {false, 0};
    bool from_read = read != NULL && read->taken;
    SIM_ASSERT(operation->update != BALANCE_UPDATE_COMPARE_AND_SET || !from_read ||
                   !moved_since(world, account, read),
               "a compare-and-set write lands only on the balance it read");
    if (operation->update == BALANCE_UPDATE_READ_MODIFY_WRITE && from_read &&
        moved_since(world, account, read)) {
        /* balance := read - amount: whatever moved the balance since the read is undone */
        write = (BalanceWrite){true, read->balance - ledger->balances[account]};
        ledger->balances[account] = read->balance;
        ledger->overwritten[account] += write.overwritten;
        world->metrics.lost_updates++;
        world->metrics.lost_update_amount += write.overwritten;
    }
    ledger->balances[account] -= operation->amount;
    ledger->versions[account]++;
    world->metrics.balances[account].actual = ledger->balances[account];
    return write;
}
