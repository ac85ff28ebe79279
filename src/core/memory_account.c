/* Two atomic counters. Rejected: wrapping malloc (every allocation would pay for a lock or
 * an atomic, and the C library's own arenas would still go uncounted); the owners' own
 * sizes, updated at their budget checks, are what the budgets were always measured in. */
#include "memory_account.h"

#include <stdatomic.h>

#include "sim_assert.h"

static _Atomic uint64_t used_bytes;
static _Atomic uint64_t peak_bytes;

static void note_peak(uint64_t now)
{
    uint64_t peak = atomic_load(&peak_bytes);
    while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now)) {
    }
}

void memory_account_charge(uint64_t bytes)
{
    note_peak(atomic_fetch_add(&used_bytes, bytes) + bytes);
}

void memory_account_release(uint64_t bytes)
{
    uint64_t before = atomic_fetch_sub(&used_bytes, bytes);
    SIM_ASSERT(before >= bytes, "memory account released more than was charged");
}

bool memory_account_try_charge(uint64_t bytes, uint64_t limit)
{
    uint64_t before = atomic_load(&used_bytes);
    do {
        if (bytes > limit || before > limit - bytes)
            return false;
    } while (!atomic_compare_exchange_weak(&used_bytes, &before, before + bytes));
    note_peak(before + bytes);
    return true;
}

void memory_account_update(uint64_t *charged, uint64_t bytes)
{
    if (bytes > *charged)
        memory_account_charge(bytes - *charged);
    else
        memory_account_release(*charged - bytes);
    *charged = bytes;
}

uint64_t memory_account_used(void)
{
    return atomic_load(&used_bytes);
}

uint64_t memory_account_peak(void)
{
    return atomic_load(&peak_bytes);
}
