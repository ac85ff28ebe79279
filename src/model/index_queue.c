#include "index_queue.h"

#include <stdlib.h>

#include "sim_assert.h"

void index_queue_release(IndexQueue *queue)
{
    free(queue->items);
    *queue = (IndexQueue){0};
}

void index_queue_push(IndexQueue *queue, uint32_t index)
{
    if (queue->length == queue->capacity) {
        uint32_t capacity = queue->capacity ? queue->capacity * 2 : 64;
        uint32_t *grown = sim_xcalloc(capacity, sizeof *grown);
        for (uint32_t i = 0; i < queue->length; i++)
            grown[i] = queue->items[(queue->head + i) % queue->capacity];
        free(queue->items);
        queue->items = grown;
        queue->capacity = capacity;
        queue->head = 0;
    }
    queue->items[(queue->head + queue->length) % queue->capacity] = index;
    queue->length++;
}

uint32_t index_queue_pop(IndexQueue *queue)
{
    SIM_ASSERT(queue->length > 0, "pop from an empty queue");
    uint32_t index = queue->items[queue->head];
    queue->head = (queue->head + 1) % queue->capacity;
    queue->length--;
    return index;
}

void index_queue_clear(IndexQueue *queue)
{
    queue->head = 0;
    queue->length = 0;
}
