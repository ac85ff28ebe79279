/* Words a world's stop for the command line: the report's words (report_stop.c), and for a
 * budget the flag that raises it, which only the command line knows. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_stop_text(WorldStop stop, char *buffer, size_t size)
{
    if (report_stop_text(stop, buffer, size) == NULL)
        return NULL;
    const char *flag = stop.kind == WORLD_STOP_MEMORY     ? "--max-memory"
                       : stop.kind == WORLD_STOP_EVENTS   ? "--max-events"
                       : stop.kind == WORLD_STOP_SIM_TIME ? "--max-sim-time"
                       : stop.kind == WORLD_STOP_TRACE    ? "--max-trace-bytes"
                                                          : NULL;
    size_t used = strlen(buffer);
    if (flag != NULL && used < size)
        snprintf(buffer + used, size - used, " (raise it with %s)", flag);
    return buffer;
}
