/* The event trace: the model reports notable steps as TraceRecords to a sink that the caller
 * supplies (the CLI writes JSON lines). With no sink, nothing is formatted. Strings in a
 * record are borrowed for the duration of the call. */
#ifndef IDEMSIM_TRACE_H
#define IDEMSIM_TRACE_H

#include <stdint.h>

#include "sim_time.h"

typedef struct {
    SimTimeUs t_us;
    const char *mode;
    const char *actor;  /* node name, e.g. "web[3]", "server" */
    const char *event;  /* e.g. "send", "lost", "execute", "replay" */
    const char *peer;   /* the other end of a message event ("transmit", "lost", "deliver"),
                           else NULL */
    uint64_t operation; /* ground-truth operation id, 0 when none */
    uint32_t attempt;   /* 1-based, 0 when none */
    uint32_t click;     /* 0 for the first click, 1 for a double click's second */
    uint32_t copy;      /* network copy lineage, 0 for the original */
    int64_t value;      /* amount, status code or count, by event */
    const char *detail; /* free text, may be NULL */
} TraceRecord;

typedef void (*TraceWrite)(void *context, const TraceRecord *record);

typedef struct {
    TraceWrite write; /* NULL: tracing off */
    void *context;
} TraceSink;

#endif
