/* Event-queue throughput in the hold model: keep N events pending and repeatedly pop the
 * earliest and push a new one at its time plus a random delay, so the queue size stays N
 * (the classic priority-queue benchmark, Jones 1986). Wall-clock timing is allowed here and
 * nowhere in src/core. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "event_queue.h"
#include "rng.h"

#define DELAY_BITS 20 /* delays uniform in [0, 2^20) µs, about a second */

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static SimTimeUs random_delay_us(Rng *rng)
{
    return rng_next(rng) >> (64 - DELAY_BITS);
}

/* Bytes per pending event when the queue grew from a small hint instead of being sized
 * up front: includes the slack left by doubling. */
static double grown_bytes_per_event(size_t pending)
{
    EventQueue *queue = event_queue_create(1024);
    for (size_t i = 0; i < pending; i++)
        event_queue_push(queue, i, 0, 0, 0);
    double bytes = (double)event_queue_memory_bytes(queue) / (double)pending;
    event_queue_destroy(queue);
    return bytes;
}

static void bench_hold(size_t pending, uint64_t operations)
{
    Rng rng;
    rng_init(&rng, 1);
    EventQueue *queue = event_queue_create(pending); /* sized up front, as world_create does */
    for (size_t i = 0; i < pending; i++)
        event_queue_push(queue, random_delay_us(&rng), 0, (uint32_t)i, i);

    uint64_t checksum = 0;
    double started = seconds_now();
    for (uint64_t i = 0; i < operations; i++) {
        Event event;
        event_queue_pop(queue, &event);
        checksum += event.arg;
        event_queue_push(queue, event.at_us + random_delay_us(&rng), 0, event.target, i);
    }
    double elapsed = seconds_now() - started;

    printf("N=%-8zu ops=%-9llu %6.2f M events/s  %6.1f ns/event  %5.1f bytes/pending "
           "(%.1f grown from 1024)  [checksum %llu]\n",
           pending, (unsigned long long)operations, (double)operations / elapsed / 1e6,
           elapsed * 1e9 / (double)operations,
           (double)event_queue_memory_bytes(queue) / (double)pending,
           grown_bytes_per_event(pending), (unsigned long long)(checksum % 1000));
    event_queue_destroy(queue);
}

int main(void)
{
    bench_hold(10000, 10000000);
    bench_hold(1000000, 10000000);
    return EXIT_SUCCESS;
}
