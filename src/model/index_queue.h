/* A FIFO of 32-bit slot indices (waiting jobs, ready broker messages, a consumer's buffer):
 * a ring buffer owned by the queue, grown geometrically, never per push after warm-up. */
#ifndef IDEMSIM_INDEX_QUEUE_H
#define IDEMSIM_INDEX_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint32_t *items;
    uint32_t capacity;
    uint32_t head;
    uint32_t length;
} IndexQueue;

void index_queue_release(IndexQueue *queue);
void index_queue_push(IndexQueue *queue, uint32_t index);
/* Precondition: length > 0. */
uint32_t index_queue_pop(IndexQueue *queue);
void index_queue_clear(IndexQueue *queue);

#endif
