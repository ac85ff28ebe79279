/* The rate strip of a storm scenario (C22): attempts per second and goodput (operations told
 * "succeeded" per second) over the run so far, drawn where the key store goes. A retry
 * storm is a rate, not an outcome: the counters stay green while the server drowns, so the
 * room must see the attempts climb over the goodput when the outage ends. The strip spans
 * the scenario's whole duration, so the storm's shape stays where it happened as the run
 * goes on; the server's scripted outage is shaded and named. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "view_frame.h"

static int P(const ViewPanels *panels, float length)
{
    return view_layout_px(panels->layout, length);
}

static SDL_Color C(ViewColor color)
{
    return view_canvas_color(color, 255);
}

/* Per second over [from_us, to_us): the buckets whose start lies in it, scaled by the time
 * they cover. A bucket wider than the span (the series coarsens on long runs) gives its own
 * average rate. */
static double rate_per_s(const CountSeries *series, SimTimeUs from_us, SimTimeUs to_us)
{
    if (series->bucket_us == 0 || series->used == 0 || to_us <= from_us)
        return 0;
    uint64_t first = from_us / series->bucket_us;
    uint64_t last = (to_us - 1) / series->bucket_us;
    uint64_t sum = 0;
    for (uint64_t b = first; b <= last && b < series->used; b++)
        sum += series->count[b];
    uint64_t covered_us = (last - first + 1) * series->bucket_us;
    return (double)sum * 1e6 / (double)covered_us;
}

bool view_rates_shown(const ViewPane *pane)
{
    return scenario_uses_storm(pane->scenario);
}

/* Columns one bar wide, each the rate over the time it covers, up to now; the scale (returned)
 * is the highest rate so far in any column of the strip. */
static double draw_chart(const ViewPanels *panels, ViewRect chart, const Metrics *metrics,
                         SimTimeUs now_us, SimTimeUs duration_us)
{
    ViewCanvas *canvas = panels->canvas;
    view_canvas_fill(canvas, chart, C(VIEW_COLOR_PANEL_RAISED));
    const Scenario *scenario = panels->pane->scenario;
    for (uint32_t k = 0; k <= scenario->called_server_count; k++) { /* every server's outage */
        const ServerOutageSpec *outage =
            k == 0 ? &scenario->server.outage : &scenario->called_servers[k - 1].spec.outage;
        if (!outage->enabled)
            continue;
        /* an outage may outlast the run (to_ms past duration_ms): its band stops at the chart's
         * end, not across the panels to its right */
        double from_us = fmin(outage->from_ms * 1000, (double)duration_us);
        double to_us = fmin(outage->to_ms * 1000, (double)duration_us);
        int x1 = chart.x + (int)((double)chart.w * from_us / (double)duration_us);
        int x2 = chart.x + (int)((double)chart.w * to_us / (double)duration_us);
        view_canvas_fill(canvas, (ViewRect){x1, chart.y, x2 - x1 > 1 ? x2 - x1 : 1, chart.h},
                         view_canvas_color(VIEW_COLOR_DOUBLE, 60));
    }
    /* one column per bucket of the series where the strip is wide enough (then its top is
     * `run`'s attempts_peak_per_s), else each column the mean of the buckets it covers */
    enum { COLUMNS_MAX = 2048 };
    uint64_t bucket_us =
        metrics->attempts_series.bucket_us > 0 ? metrics->attempts_series.bucket_us : duration_us;
    int buckets = (int)((duration_us + bucket_us - 1) / bucket_us);
    int bar_w = buckets > 0 && chart.w / buckets > 1 ? chart.w / buckets : 1;
    int columns = chart.w / bar_w < buckets ? chart.w / bar_w : buckets;
    double attempts[COLUMNS_MAX], goodput[COLUMNS_MAX], peak = 1;
    if (columns > COLUMNS_MAX)
        columns = COLUMNS_MAX;
    if (columns < 1)
        columns = 1;
    int drawn = 0;
    for (int c = 0; c < columns; c++) {
        SimTimeUs from_us = columns == buckets ? bucket_us * (uint64_t)c
                                               : duration_us * (uint64_t)c / (uint64_t)columns;
        SimTimeUs to_us = columns == buckets ? bucket_us * (uint64_t)(c + 1)
                                             : duration_us * (uint64_t)(c + 1) / (uint64_t)columns;
        if (from_us >= now_us)
            break;
        if (to_us > now_us)
            to_us = now_us;
        attempts[c] = rate_per_s(&metrics->attempts_series, from_us, to_us);
        goodput[c] = rate_per_s(&metrics->succeeded_series, from_us, to_us);
        peak = attempts[c] > peak ? attempts[c] : peak;
        peak = goodput[c] > peak ? goodput[c] : peak;
        drawn = c + 1;
    }
    /* a one-bucket burst stays wide enough to be seen from the back row: a thin bar is
     * drawn wider, centred on its bucket, over its neighbours' sides */
    int drawn_w = bar_w > 2 ? bar_w - 1 : bar_w;
    drawn_w = drawn_w < P(panels, 3) ? P(panels, 3) : drawn_w;
    for (int c = 0; c < drawn; c++) {
        int x = chart.x + c * bar_w + bar_w / 2 - drawn_w / 2;
        if (x + drawn_w > chart.x + chart.w)
            x = chart.x + chart.w - drawn_w;
        x = x < chart.x ? chart.x : x;
        int attempts_h = (int)((double)chart.h * attempts[c] / peak);
        view_canvas_fill(canvas, (ViewRect){x, chart.y + chart.h - attempts_h, drawn_w, attempts_h},
                         C(VIEW_COLOR_MESSAGE));
    }
    /* goodput as a line over the bars: where it falls below them, attempts are wasted */
    float line_w = (float)P(panels, 2);
    for (int c = 1; c < drawn; c++) {
        float y1 = (float)chart.y + (float)chart.h * (float)(1 - goodput[c - 1] / peak);
        float y2 = (float)chart.y + (float)chart.h * (float)(1 - goodput[c] / peak);
        float x1 = (float)(chart.x + (c - 1) * bar_w) + (float)bar_w / 2;
        view_canvas_line(canvas, x1, y1, x1 + (float)bar_w, y2, line_w, C(VIEW_COLOR_OK));
    }
    return peak;
}

void view_panels_rates(const ViewPanels *panels)
{
    ViewCanvas *canvas = panels->canvas;
    ViewRect r = panels->box->keys;
    const ViewPane *pane = panels->pane;
    const Metrics *metrics = world_metrics(pane->world);
    SimTimeUs now_us = panels->now_us;
    SimTimeUs duration_us = metrics->duration_us > 0 ? metrics->duration_us : 1;
    if (now_us > duration_us)
        now_us = duration_us;
    /* the last second's rates, the figures a room compares between the columns */
    SimTimeUs from_us = now_us > 1000000 ? now_us - 1000000 : 0;
    double attempts = rate_per_s(&metrics->attempts_series, from_us, now_us);
    double goodput = rate_per_s(&metrics->succeeded_series, from_us, now_us);
    view_canvas_text(canvas, VIEW_FONT_LABEL, C(VIEW_COLOR_TEXT_DIM), r.x, r.y, VIEW_ALIGN_LEFT,
                     "PER SECOND");
    char figures[96];
    snprintf(figures, sizeof figures, "attempts %.0f/s \xC2\xB7 goodput %.0f/s", attempts, goodput);
    view_canvas_text(canvas, VIEW_FONT_SMALL, C(VIEW_COLOR_TEXT), r.x + r.w, r.y, VIEW_ALIGN_RIGHT,
                     figures);
    int top = r.y + P(panels, 22);
    int legend_h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    ViewRect chart = {r.x, top, r.w, r.y + r.h - top - legend_h - P(panels, 2)};
    if (chart.h < P(panels, 12))
        return; /* too small a box: the figures above say it */
    double peak = draw_chart(panels, chart, metrics, now_us, duration_us);
    int legend_y = chart.y + chart.h + P(panels, 1);
    int x = r.x;
    view_canvas_fill(canvas, (ViewRect){x, legend_y + legend_h / 3, P(panels, 10), legend_h / 3},
                     C(VIEW_COLOR_MESSAGE));
    x += P(panels, 13);
    x += view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_TEXT_DIM), x, legend_y,
                          VIEW_ALIGN_LEFT, "attempts sent") +
         P(panels, 12);
    view_canvas_fill(canvas, (ViewRect){x, legend_y + legend_h / 2 - 1, P(panels, 10), 2},
                     C(VIEW_COLOR_OK));
    x += P(panels, 13);
    x += view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_TEXT_DIM), x, legend_y,
                          VIEW_ALIGN_LEFT, "goodput") +
         P(panels, 12);
    if (scenario_any_server_outage(pane->scenario)) {
        view_canvas_fill(canvas,
                         (ViewRect){x, legend_y + legend_h / 4, P(panels, 10), legend_h / 2},
                         view_canvas_color(VIEW_COLOR_DOUBLE, 140));
        x += P(panels, 13);
        view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_TEXT_DIM), x, legend_y,
                         VIEW_ALIGN_LEFT, "server outage");
    }
    char scale[48];
    snprintf(scale, sizeof scale, "top %.0f/s", peak);
    view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_TEXT_DIM), r.x + r.w, legend_y,
                     VIEW_ALIGN_RIGHT, scale);
}
