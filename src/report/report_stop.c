/* The words for a run a budget stopped, shared by the table, the view and the page: the
 * model returns the stop as data (world_stop); what flag raises a budget is the command
 * line's to say (cli_stop.c adds it). */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

const char *report_stop_text(WorldStop stop, char *buffer, size_t size)
{
    double at_s = (double)stop.at_us / 1e6;
    switch (stop.kind) {
    case WORLD_STOP_NONE:
        return NULL;
    case WORLD_STOP_MEMORY:
        /* a world's share of a small budget may be under a MiB (cli_world_limits) */
        snprintf(buffer, size,
                 "stopped: memory budget of %" PRIu64 " %s exceeded at %.3f s simulated",
                 stop.limit >= (1u << 20) ? stop.limit >> 20 : stop.limit >> 10,
                 stop.limit >= (1u << 20) ? "MiB" : "KiB", at_s);
        break;
    case WORLD_STOP_EVENTS:
        snprintf(buffer, size, "stopped: event budget of %" PRIu64 " events exhausted", stop.limit);
        break;
    case WORLD_STOP_SIM_TIME:
        snprintf(buffer, size, "stopped: simulated time budget of %" PRIu64 " ms reached",
                 stop.limit / 1000);
        break;
    case WORLD_STOP_NO_PROGRESS:
        snprintf(buffer, size,
                 "stopped: no progress, %" PRIu64 " events at the one simulated instant %.6f s "
                 "(a loop of zero-length times?)",
                 stop.limit, at_s);
        break;
    case WORLD_STOP_MONEY:
        snprintf(buffer, size,
                 "stopped: money moved would pass %" PRIu64 " minor units at %.3f s simulated "
                 "(lower the amounts or the operations)",
                 stop.limit, at_s);
        break;
    case WORLD_STOP_TRACE:
        /* no time: the run is looked at every few thousand events, past the record that
         * did not fit, which is where the trace ends */
        snprintf(buffer, size, "stopped: trace budget of %" PRIu64 " bytes reached", stop.limit);
        break;
    }
    return buffer;
}
