/* A slot pool (slot_pool.h) plus an open-addressing index (linear probing, backward-shift
 * deletion), the same scheme as the key store. */
#include "operation_table.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sim_assert.h"

void operation_table_init(OperationTable *table)
{
    memset(table, 0, sizeof *table);
    slot_pool_init(&table->slot_pool, 64);
    table->index_capacity = 64;
    table->index_ids = sim_xcalloc(table->index_capacity, sizeof *table->index_ids);
    table->index_slots = sim_xcalloc(table->index_capacity, sizeof *table->index_slots);
    table->fresh =
        (Operation){.broker_messages = OPERATION_NO_SLOT, .outbox_entries = OPERATION_NO_SLOT};
}

void operation_table_release(OperationTable *table)
{
    free(table->slots);
    free(table->services_reached);
    slot_pool_release(&table->slot_pool);
    free(table->index_ids);
    free(table->index_slots);
    memset(table, 0, sizeof *table);
}

static size_t home(const OperationTable *table, uint64_t id)
{
    return (size_t)(rng_mix64(id) & (table->index_capacity - 1));
}

static size_t position_of(const OperationTable *table, uint64_t id)
{
    size_t mask = table->index_capacity - 1;
    for (size_t i = home(table, id);; i = (i + 1) & mask) {
        if (table->index_ids[i] == id + 1 || table->index_ids[i] == 0)
            return i;
    }
}

static void grow_index(OperationTable *table)
{
    uint64_t *old_ids = table->index_ids;
    uint32_t *old_slots = table->index_slots;
    size_t old_capacity = table->index_capacity;
    table->index_capacity *= 2;
    table->index_ids = sim_xcalloc(table->index_capacity, sizeof *table->index_ids);
    table->index_slots = sim_xcalloc(table->index_capacity, sizeof *table->index_slots);
    for (size_t i = 0; i < old_capacity; i++) {
        if (old_ids[i] == 0)
            continue;
        size_t position = position_of(table, old_ids[i] - 1);
        table->index_ids[position] = old_ids[i];
        table->index_slots[position] = old_slots[i];
    }
    free(old_ids);
    free(old_slots);
}

Operation *operation_table_insert(OperationTable *table, uint64_t id)
{
    if ((table->count + 1) * 10 > table->index_capacity * 7)
        grow_index(table);
    size_t position = position_of(table, id);
    SIM_ASSERT(table->index_ids[position] == 0, "an operation starts once");
    uint32_t capacity_before = table->slot_pool.capacity;
    uint32_t slot = slot_pool_take(&table->slot_pool, &table->slots, sizeof *table->slots);
    if (table->slot_pool.capacity != capacity_before)
        table->services_reached = sim_xrealloc(
            table->services_reached, table->slot_pool.capacity * sizeof *table->services_reached);
    table->services_reached[slot] = 0;
    table->index_ids[position] = id + 1;
    table->index_slots[position] = slot;
    table->count++;
    if (table->count > table->peak)
        table->peak = table->count;
    Operation *op = &table->slots[slot];
    *op = table->fresh;
    op->id = id;
    table->recent_id = id + 1;
    table->recent_slot = slot;
    return op;
}

Operation *operation_table_find(const OperationTable *table, uint64_t id)
{
    size_t position = position_of(table, id);
    if (table->index_ids[position] == 0)
        return NULL;
    return &table->slots[table->index_slots[position]];
}

Operation *operation_table_get_slow(OperationTable *table, uint64_t id)
{
    size_t position = position_of(table, id);
    if (table->index_ids[position] == 0)
        return NULL;
    table->recent_id = id + 1;
    table->recent_slot = table->index_slots[position];
    return &table->slots[table->recent_slot];
}

void operation_table_remove(OperationTable *table, uint64_t id)
{
    size_t hole = position_of(table, id);
    SIM_ASSERT(table->index_ids[hole] != 0, "removing an operation that is not there");
    if (table->recent_id == id + 1)
        table->recent_id = 0;
    uint32_t slot = table->index_slots[hole];
    slot_pool_give(&table->slot_pool, slot);
    size_t mask = table->index_capacity - 1;
    for (size_t i = (hole + 1) & mask; table->index_ids[i] != 0; i = (i + 1) & mask) {
        size_t wanted = home(table, table->index_ids[i] - 1);
        bool between =
            (hole <= i) ? (hole < wanted && wanted <= i) : (hole < wanted || wanted <= i);
        if (!between) {
            table->index_ids[hole] = table->index_ids[i];
            table->index_slots[hole] = table->index_slots[i];
            hole = i;
        }
    }
    table->index_ids[hole] = 0;
    table->count--;
}

void operation_table_visit(OperationTable *table, void (*visit)(void *context, Operation *op),
                           void *context)
{
    for (size_t i = 0; i < table->index_capacity; i++) {
        if (table->index_ids[i] != 0)
            visit(context, &table->slots[table->index_slots[i]]);
    }
}

size_t operation_table_memory_bytes(const OperationTable *table)
{
    return table->slot_pool.capacity * (sizeof *table->slots + sizeof *table->services_reached) +
           slot_pool_memory_bytes(&table->slot_pool) +
           table->index_capacity * (sizeof *table->index_ids + sizeof *table->index_slots);
}
