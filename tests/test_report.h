/* One mode's run written as the side-by-side table, as `idemsim run` prints it: the model
 * tests read its rows. */
#ifndef IDEMSIM_TEST_REPORT_H
#define IDEMSIM_TEST_REPORT_H

#include "report.h"
#include "test_world.h"

/* Writes the table of metrics, the run of scenario in mode, into *table (free it when done;
 * the caller's pointer is the stream's buffer, as open_memstream wants). */
static inline void test_table_of(const Scenario *scenario, const Metrics *metrics, Mode mode,
                                 char **table)
{
    RunReport report = {.scenario = scenario,
                        .seed = scenario->seed,
                        .mode_count = 1,
                        .modes = {mode},
                        .metrics = {metrics}};
    size_t size = 0;
    FILE *stream = open_memstream(table, &size);
    ck_assert_ptr_nonnull(stream);
    ck_assert(report_write_table(stream, &report, false));
    fclose(stream);
}

#endif
