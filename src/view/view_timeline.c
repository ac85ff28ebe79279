/* The shared time axis. A gap between two moments something happened is squeezed when it is
 * longer than three eighths of the window plus the squeezed height: three eighths stay drawn
 * to scale (half after the earlier moment, half before the later one, so arrows and their
 * labels keep room, and the pauses of a sparse scenario are not all cut into bands), the
 * rest shrinks to a sixteenth of the window. A gap just over
 * the threshold loses nothing, so the picture does not jump when the clock runs on through
 * a quiet stretch: the squeeze grows in as the gap grows. */
#include "view_timeline.h"

#include <stdlib.h>
#include <string.h>

static int compare_times(const void *a, const void *b)
{
    SimTimeUs x = *(const SimTimeUs *)a, y = *(const SimTimeUs *)b;
    return (x > y) - (x < y);
}

/* Walks back from `to` through the busy moments (sorted) until budget_us of drawn time is
 * used or `floor` is reached, squeezing the long gaps. Returns the earliest moment drawn. */
static SimTimeUs squeeze(ViewTimeline *timeline, const SimTimeUs *busy, size_t count,
                         SimTimeUs to_us, SimTimeUs floor_us, SimTimeUs window_us,
                         SimTimeUs budget_us)
{
    SimTimeUs scale_us = window_us * 3 / 8, squeezed_us = window_us / 16;
    ViewQuiet newest_first[VIEW_TIMELINE_QUIET_MAX];
    int quiet = 0;
    SimTimeUs cursor = to_us, budget = budget_us, from = floor_us;
    size_t i = count;
    while (i > 0 && busy[i - 1] > to_us)
        i--;
    bool done = false;
    while (!done) {
        /* the next moment back, or the floor as the last boundary */
        SimTimeUs moment = floor_us;
        if (i > 0 && busy[i - 1] > floor_us)
            moment = busy[--i];
        bool last = moment == floor_us;
        SimTimeUs gap = cursor - moment;
        if (gap > scale_us + squeezed_us && quiet < VIEW_TIMELINE_QUIET_MAX &&
            budget >= scale_us + squeezed_us) {
            newest_first[quiet++] = (ViewQuiet){moment + scale_us / 2, cursor - scale_us / 2};
            budget -= scale_us + squeezed_us;
        } else if (gap >= budget) {
            from = cursor - budget;
            break;
        } else {
            budget -= gap;
        }
        cursor = moment;
        done = last;
    }
    timeline->squeezed_us = squeezed_us > 0 ? squeezed_us : 1;
    timeline->quiet_count = quiet;
    for (int q = 0; q < quiet; q++)
        timeline->quiet[q] = newest_first[quiet - 1 - q];
    return from;
}

/* Drawn time between t and the bottom edge. */
static double drawn_after(const ViewTimeline *timeline, SimTimeUs t_us)
{
    if (t_us >= timeline->to_us)
        return 0;
    double drawn = (double)(timeline->to_us - t_us);
    for (int q = 0; q < timeline->quiet_count; q++) {
        const ViewQuiet *quiet = &timeline->quiet[q];
        SimTimeUs from = quiet->from_us > t_us ? quiet->from_us : t_us;
        if (from >= quiet->to_us)
            continue;
        double length = (double)(quiet->to_us - quiet->from_us);
        drawn -= (double)(quiet->to_us - from) * (1.0 - (double)timeline->squeezed_us / length);
    }
    return drawn;
}

void view_timeline_follow(ViewTimeline *timeline, SimTimeUs *busy, size_t count, SimTimeUs now_us,
                          SimTimeUs window_us)
{
    memset(timeline, 0, sizeof *timeline);
    window_us = window_us > 0 ? window_us : 1;
    if (count > 0) /* qsort wants a real array even for none */
        qsort(busy, count, sizeof *busy, compare_times);
    timeline->to_us = now_us;
    timeline->drawn_us = window_us;
    timeline->from_us = squeeze(timeline, busy, count, now_us, 0, window_us, window_us);
}

void view_timeline_fixed(ViewTimeline *timeline, SimTimeUs *busy, size_t count, SimTimeUs from_us,
                         SimTimeUs to_us)
{
    memset(timeline, 0, sizeof *timeline);
    to_us = to_us > from_us ? to_us : from_us + 1;
    if (count > 0) /* qsort wants a real array even for none */
        qsort(busy, count, sizeof *busy, compare_times);
    timeline->to_us = to_us;
    SimTimeUs window_us = to_us - from_us;
    timeline->from_us = squeeze(timeline, busy, count, to_us, from_us, window_us, window_us);
    timeline->drawn_us = (SimTimeUs)(drawn_after(timeline, from_us) + 0.5);
    if (timeline->drawn_us == 0)
        timeline->drawn_us = 1;
}

double view_timeline_position(const ViewTimeline *timeline, SimTimeUs t_us)
{
    return 1.0 - drawn_after(timeline, t_us) / (double)timeline->drawn_us;
}

SimTimeUs view_timeline_time_at(const ViewTimeline *timeline, double position)
{
    double left = (1.0 - position) * (double)timeline->drawn_us; /* drawn time back from to */
    SimTimeUs cursor = timeline->to_us;
    for (int q = timeline->quiet_count; q-- > 0;) {
        const ViewQuiet *quiet = &timeline->quiet[q];
        double plain = (double)(cursor - quiet->to_us);
        if (left <= plain)
            return cursor - (SimTimeUs)(left + 0.5);
        left -= plain;
        double length = (double)(quiet->to_us - quiet->from_us);
        if (left <= (double)timeline->squeezed_us)
            return quiet->to_us - (SimTimeUs)(left * length / (double)timeline->squeezed_us + 0.5);
        left -= (double)timeline->squeezed_us;
        cursor = quiet->from_us;
    }
    return (double)cursor > left ? cursor - (SimTimeUs)(left + 0.5) : 0;
}

const ViewQuiet *view_timeline_quiet_at(const ViewTimeline *timeline, SimTimeUs t_us)
{
    for (int q = 0; q < timeline->quiet_count; q++) {
        if (t_us >= timeline->quiet[q].from_us && t_us <= timeline->quiet[q].to_us)
            return &timeline->quiet[q];
    }
    return NULL;
}
