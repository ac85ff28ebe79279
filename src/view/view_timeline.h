/* The time axis every column of the sequence diagram shares: one window, so a row at the same
 * height is the same moment in every mode, and the room compares columns line by line.
 * Quiet stretches (nothing happened in any column for a while: a client waiting for its
 * timeout, a run draining) are squeezed into a short band, so a request and its retry a
 * second later fit on one screen; the renderer marks each band with how long it lasted.
 * SDL-free: a pure function of the moments things happened. */
#ifndef IDEMSIM_VIEW_TIMELINE_H
#define IDEMSIM_VIEW_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_time.h"

#define VIEW_TIMELINE_QUIET_MAX 6

/* A stretch of real time drawn squeezed into ViewTimeline.squeezed_us. */
typedef struct {
    SimTimeUs from_us, to_us;
} ViewQuiet;

typedef struct {
    SimTimeUs from_us;     /* the earliest moment shown (the top may stay empty before it) */
    SimTimeUs to_us;       /* the bottom edge: "now", or the end of a fixed window */
    SimTimeUs drawn_us;    /* the strip's height, in drawn time */
    SimTimeUs squeezed_us; /* the height of one quiet stretch, in drawn time */
    int quiet_count;
    ViewQuiet quiet[VIEW_TIMELINE_QUIET_MAX]; /* oldest first */
} ViewTimeline;

/* Follows the clock: now at the bottom, window_us of drawn time above it, reaching further
 * back when quiet stretches are squeezed. busy: the moments anything happened (any order,
 * sorted in place; those after now are ignored). */
void view_timeline_follow(ViewTimeline *timeline, SimTimeUs *busy, size_t count, SimTimeUs now_us,
                          SimTimeUs window_us);
/* A fixed window [from_us, to_us] (the command line's --window), quiet stretches inside it
 * squeezed alike. */
void view_timeline_fixed(ViewTimeline *timeline, SimTimeUs *busy, size_t count, SimTimeUs from_us,
                         SimTimeUs to_us);

/* Where t falls, 0 at the top edge and 1 at the bottom; later than to_us is 1, earlier than
 * from_us goes on linearly below 0 (an arrow leaving the top is cut by the strip). */
double view_timeline_position(const ViewTimeline *timeline, SimTimeUs t_us);
/* The moment at a position in [0, 1] (the inverse of view_timeline_position). */
SimTimeUs view_timeline_time_at(const ViewTimeline *timeline, double position);
/* The quiet stretch t lies in, or NULL. */
const ViewQuiet *view_timeline_quiet_at(const ViewTimeline *timeline, SimTimeUs t_us);

#endif
