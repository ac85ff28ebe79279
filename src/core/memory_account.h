/* The process-wide memory account: what every live world and check listing in this process
 * holds, charged by its owner and released when it is freed, so that one budget
 * (--max-memory) bounds the process however many modes, sweep threads or files it runs.
 * Charges are atomic; the account only counts, it never allocates or refuses by itself:
 * owners compare memory_account_used() with their budget and stop cleanly. */
#ifndef IDEMSIM_MEMORY_ACCOUNT_H
#define IDEMSIM_MEMORY_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

void memory_account_charge(uint64_t bytes);
void memory_account_release(uint64_t bytes); /* at most what was charged */
/* Charges bytes only if the total stays within limit; false (nothing charged) otherwise. */
bool memory_account_try_charge(uint64_t bytes, uint64_t limit);
/* Moves a holder's charge from *charged to bytes (a world whose storage grew or shrank). */
void memory_account_update(uint64_t *charged, uint64_t bytes);

uint64_t memory_account_used(void);
uint64_t memory_account_peak(void); /* the most ever charged at once */

#endif
