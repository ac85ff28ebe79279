/* Programmer errors: a broken invariant aborts the run with file, line and reason.
 * Bad input is never asserted; the loader reports it (see scenario.h). */
#ifndef IDEMSIM_SIM_ASSERT_H
#define IDEMSIM_SIM_ASSERT_H

/* It aborts: _Noreturn lets a caller keep nothing alive across a failed check, so an assert
 * on the hot path costs its test and branch, not register saves around a call. */
_Noreturn void sim_assert_fail(const char *expression, const char *file, int line,
                               const char *reason);

#define SIM_ASSERT(cond, reason)                                                                   \
    ((cond) ? (void)0 : sim_assert_fail(#cond, __FILE__, __LINE__, (reason)))

/* Allocation failure inside the engine is treated like a broken invariant: the loader
 * refuses worlds that would not fit, so running out here means the budget was wrong. */
void *sim_xrealloc(void *pointer, unsigned long long bytes);
void *sim_xcalloc(unsigned long long count, unsigned long long size);

#endif
