/* Key-store lookups with a small table and a big one (issue 25: with a million live rows a
 * lookup should cost within 1.3x of a small table's). Three access patterns: a key just
 * written (what a reservation's completion and most retries read), a key of the last ten
 * thousand written (a retry or a duplicate seconds later), a key anywhere in the table (a
 * replay long after), and a key never written (every new payment). Wall-clock timing is
 * allowed here and nowhere in src/core. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "idem_store.h"
#include "rng.h"

#define LOOKUPS 2000000
#define RECENT 10000
#define REPEATS 5 /* the fastest of these: other load on the machine only ever adds time */

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now); /* time on the CPU: a shared machine */
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static uint64_t key_of(uint64_t i)
{
    return rng_mix64(i + 1) | 1;
}

/* ns per lookup of keys index_of(r) gives for LOOKUPS random draws r. */
static double time_lookups(IdemStore *store, size_t rows, int pattern, uint64_t *found)
{
    Rng rng;
    rng_init(&rng, 25);
    double started = seconds_now();
    for (size_t i = 0; i < LOOKUPS; i++) {
        uint64_t r = rng_next(&rng);
        uint64_t index = pattern == 0   ? rows - 1
                         : pattern == 1 ? rows - 1 - r % (rows < RECENT ? rows : RECENT)
                         : pattern == 2 ? r % rows
                                        : rows + r % (16 * rows); /* never written */
        *found += idem_store_lookup(store, key_of(index), 0) != NULL;
    }
    return (seconds_now() - started) * 1e9 / LOOKUPS;
}

int main(void)
{
    static const char *const patterns[] = {"the key just written", "one of the last 10^4",
                                           "anywhere in the table", "a key never written"};
    static const size_t sizes[] = {1000, 1000000};
    double ns[2][4];
    uint64_t found = 0;
    printf("bench_key_store: ns per lookup (%d lookups each, fastest of %d)\n", LOOKUPS, REPEATS);
    for (int s = 0; s < 2; s++) {
        IdemStore *store = idem_store_create(16);
        for (size_t i = 0; i < sizes[s]; i++) {
            KeyRow row = {.key = key_of(i), .expires_us = SIM_TIME_NEVER};
            idem_store_put(store, &row);
        }
        for (int p = 0; p < 4; p++) {
            ns[s][p] = time_lookups(store, sizes[s], p, &found);
            for (int r = 1; r < REPEATS; r++) {
                double again = time_lookups(store, sizes[s], p, &found);
                ns[s][p] = again < ns[s][p] ? again : ns[s][p];
            }
        }
        printf("  %8zu live rows: %6.1f bytes per row;", sizes[s],
               (double)idem_store_memory_bytes(store) / (double)idem_store_rows(store));
        for (int p = 0; p < 4; p++)
            printf(" %.1f", ns[s][p]);
        printf("\n");
        idem_store_destroy(store);
    }
    for (int p = 0; p < 4; p++)
        printf("  %-22s 10^6 / 10^3 rows: %.2fx\n", patterns[p], ns[1][p] / ns[0][p]);
    return found == 0; /* keeps the lookups from being optimised away */
}
