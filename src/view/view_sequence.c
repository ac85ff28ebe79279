/* The sequence diagram. Time runs down the strip, "now" at the bottom edge, so the newest
 * exchange is always where the eye rests and older ones scroll up and out.
 *
 * The trace shows when a request was sent and when the server decided on it, but not when
 * it arrived; an answer's arrival shows only when the client acts on it. So a message is
 * drawn as taking its link's typical delay (view_pane.c), a request then waits on the
 * server's lifeline (queue and service) until its decision, and an answer whose arrival the
 * trace does not show is dashed. Lost messages stop halfway with a cross: the model decides
 * the loss at sending; where on the wire it happens is not modelled. */
#include "view_sequence.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LABELS_MAX 256
#define HEADER_HEIGHT 30.0f
#define LANE_SECONDS 10.0 /* lanes x seconds of window: 8 lanes at 1.25 s */

typedef struct {
    ViewCanvas *canvas;
    const ViewLayout *layout;
    const ViewPane *pane;
    ViewRect rect;
    ViewRect body;
    SimTimeUs now_us, window_us, from_us;
    int lanes_shown;
    float lane_x[VIEW_LANES_MAX];
    float lane_w;
    float density_x0, density_x1;
    float time_x;
    float server_x, ledger_x;
    float stroke;
    ViewSequencePick *pick;
    int label_count;
    ViewRect labels[LABELS_MAX];
    ViewColor label_colors[LABELS_MAX];
    char label_texts[LABELS_MAX][32];
} Strip;

static float px(const Strip *strip, float length)
{
    return length * strip->layout->unit;
}

static float y_of(const Strip *strip, SimTimeUs t_us)
{
    if (t_us >= strip->now_us)
        return (float)(strip->body.y + strip->body.h);
    double behind = (double)(strip->now_us - t_us) / (double)strip->window_us;
    return (float)(strip->body.y + strip->body.h) - (float)(behind * strip->body.h);
}

/* ------------------------------------------------------------------ geometry */

static void place_lanes(Strip *strip)
{
    const ViewPane *pane = strip->pane;
    ViewRect rect = strip->rect;
    float right = (float)(rect.x + rect.w);
    strip->ledger_x = right - px(strip, 22);
    strip->server_x = right - px(strip, 96);
    float x = (float)rect.x + px(strip, 4);
    if (pane->clients_total > pane->lane_count) {
        strip->density_x0 = x;
        strip->density_x1 = x + px(strip, 30);
        x = strip->density_x1;
    } else {
        strip->density_x0 = strip->density_x1 = x;
    }
    strip->time_x = x + px(strip, 3);
    x += px(strip, 34); /* the time labels' gutter */
    float room = strip->server_x - px(strip, 100) - x; /* keep the network wide */
    /* Fewer lanes as the window widens (faster speeds), so the number of arrows on screen
     * stays readable; the density band still counts every client. */
    double window_s = (double)strip->window_us / 1e6;
    int lanes = (int)(LANE_SECONDS / (window_s > 0.01 ? window_s : 0.01));
    lanes = lanes < 1 ? 1 : lanes > (int)pane->lane_count ? (int)pane->lane_count : lanes;
    while (lanes > 1 && room / (float)lanes < px(strip, 14))
        lanes--;
    strip->lanes_shown = room > 0 ? lanes : 0;
    strip->lane_w = lanes > 0 ? fminf(px(strip, 40), room / (float)lanes) : 0;
    for (int l = 0; l < strip->lanes_shown; l++)
        strip->lane_x[l] = x + strip->lane_w * ((float)l + 0.5f);
    int header = (int)px(strip, HEADER_HEIGHT);
    strip->body = (ViewRect){rect.x, rect.y + header, rect.w, rect.h - header};
}

static float network_mid(const Strip *strip, int lane)
{
    return (strip->lane_x[lane] + strip->server_x) / 2;
}

/* ------------------------------------------------------------------ labels and picking */

static bool overlaps(ViewRect a, ViewRect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* Places a small label unless it would cover one already placed this frame; labels are
 * drawn after every arrow (draw_labels), so no later arrow crosses them out. */
static void label(Strip *strip, float x, float y, ViewAlign align, ViewColor color,
                  const char *text)
{
    ViewCanvas *canvas = strip->canvas;
    int w = view_canvas_text_width(canvas, VIEW_FONT_TINY, text);
    int h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    int left = align == VIEW_ALIGN_RIGHT    ? (int)x - w
               : align == VIEW_ALIGN_CENTER ? (int)x - w / 2
                                            : (int)x;
    ViewRect box = {left - 2, (int)y - h / 2, w + 4, h};
    if (box.y < strip->body.y || box.y + box.h > strip->body.y + strip->body.h)
        return;
    for (int i = 0; i < strip->label_count; i++) {
        if (overlaps(box, strip->labels[i]))
            return;
    }
    if (strip->label_count == LABELS_MAX)
        return;
    int i = strip->label_count++;
    strip->labels[i] = box;
    strip->label_colors[i] = color;
    snprintf(strip->label_texts[i], sizeof strip->label_texts[i], "%s", text);
}

static void draw_labels(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    for (int i = 0; i < strip->label_count; i++) {
        ViewRect box = strip->labels[i];
        view_canvas_round(canvas, box, 3, view_canvas_color(VIEW_COLOR_PANEL, 215));
        view_canvas_text(canvas, VIEW_FONT_TINY, view_canvas_color(strip->label_colors[i], 255),
                         box.x + 2, box.y, VIEW_ALIGN_LEFT, strip->label_texts[i]);
    }
}

static float segment_distance(float px0, float py0, const ViewSegment *s)
{
    float dx = s->x2 - s->x1, dy = s->y2 - s->y1;
    float length2 = dx * dx + dy * dy;
    float t = length2 > 0 ? ((px0 - s->x1) * dx + (py0 - s->y1) * dy) / length2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    float cx = s->x1 + t * dx - px0, cy = s->y1 + t * dy - py0;
    return sqrtf(cx * cx + cy * cy);
}

static void offer(Strip *strip, const ViewArrow *arrow, ViewSegment segment)
{
    ViewSequencePick *pick = strip->pick;
    if (pick == NULL)
        return;
    segment.valid = true;
    if (arrow->serial == pick->pinned_serial)
        pick->pinned = segment;
    if (!pick->mouse_active ||
        !view_layout_contains(strip->body, pick->mouse_x, pick->mouse_y))
        return;
    float distance = segment_distance((float)pick->mouse_x, (float)pick->mouse_y, &segment);
    if (distance <= pick->reach_px &&
        (pick->hovered_serial == 0 || distance < pick->hovered_distance)) {
        pick->hovered_serial = arrow->serial;
        pick->hovered_distance = distance;
        pick->hovered = segment;
    }
}

/* ------------------------------------------------------------------ backdrop */

static SimTimeUs tick_step(SimTimeUs window_us)
{
    static const SimTimeUs steps[] = {50000,   100000,   200000,   500000,  1000000,
                                      2000000, 5000000,  10000000, 20000000, 30000000,
                                      60000000};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (window_us / steps[i] <= 6)
            return steps[i];
    }
    return 60000000;
}

static void draw_grid(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    SimTimeUs step = tick_step(strip->window_us);
    SimTimeUs first = (strip->from_us + step - 1) / step * step;
    SDL_Color line = view_canvas_color(VIEW_COLOR_GRID, 255);
    SDL_Color text = view_canvas_color(VIEW_COLOR_TEXT_DIM, 255);
    float x0 = (float)strip->body.x, x1 = (float)(strip->body.x + strip->body.w);
    (void)x1;
    for (SimTimeUs t = first; t <= strip->now_us; t += step) {
        float y = y_of(strip, t);
        view_canvas_line(canvas, x0, y, x1, y, 1, line);
        char when[32];
        if (step % 1000000 == 0)
            snprintf(when, sizeof when, "%.0f s", (double)t / 1e6);
        else
            snprintf(when, sizeof when, "%.1f s", (double)t / 1e6);
        int h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
        if (y - (float)h < (float)strip->body.y)
            continue;
        view_canvas_text(canvas, VIEW_FONT_TINY, text, (int)strip->time_x, (int)y - h,
                         VIEW_ALIGN_LEFT, when);
    }
}

static void draw_lifelines(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    float top = (float)strip->body.y, bottom = (float)(strip->body.y + strip->body.h);
    SDL_Color lane = view_canvas_color(VIEW_COLOR_GRID, 255);
    SDL_Color strong = view_canvas_color(VIEW_COLOR_TEXT_DIM, 150);
    for (int l = 0; l < strip->lanes_shown; l++)
        view_canvas_line(canvas, strip->lane_x[l], top, strip->lane_x[l], bottom,
                         px(strip, 1.5f), lane);
    view_canvas_line(canvas, strip->server_x, top, strip->server_x, bottom, px(strip, 3),
                     strong);
    view_canvas_line(canvas, strip->ledger_x, top, strip->ledger_x, bottom, px(strip, 3),
                     strong);
    SDL_Color now = view_canvas_color(VIEW_COLOR_TEXT_DIM, 255);
    view_canvas_line(canvas, (float)strip->body.x, bottom - 1,
                     (float)(strip->body.x + strip->body.w), bottom - 1, px(strip, 1.5f), now);
}

static void draw_headings(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    const ViewPane *pane = strip->pane;
    SDL_Color dim = view_canvas_color(VIEW_COLOR_TEXT_DIM, 255);
    int y = strip->rect.y + (int)px(strip, 2);
    int y2 = y + view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    if (strip->lanes_shown > 0) {
        float left = strip->lane_x[0] - strip->lane_w / 2;
        view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)left, y, VIEW_ALIGN_LEFT, "clients");
        for (int l = 0; l < strip->lanes_shown; l++) {
            char index[16];
            snprintf(index, sizeof index, "%u", pane->lanes[l].client_in_group);
            view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)strip->lane_x[l], y2,
                             VIEW_ALIGN_CENTER, index);
        }
    }
    if (strip->density_x1 > strip->density_x0) {
        char others[32];
        snprintf(others, sizeof others, "%llu", (unsigned long long)pane->clients_total);
        view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)strip->density_x0, y2,
                         VIEW_ALIGN_LEFT, others);
        view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)strip->density_x0, y,
                         VIEW_ALIGN_LEFT, "all");
    }
    float network_x = strip->lanes_shown > 0 ? network_mid(strip, strip->lanes_shown - 1)
                                             : strip->server_x - px(strip, 60);
    view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)(network_x - px(strip, 12)), y,
                     VIEW_ALIGN_CENTER, "network");
    view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)strip->server_x, y, VIEW_ALIGN_CENTER,
                     "server");
    view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)strip->ledger_x, y, VIEW_ALIGN_CENTER,
                     "ledger");
}

/* All clients, sampled or not: per band of rows, how many requests they sent (amber part:
 * retries), and a red tick where an operation was charged again. */
static void draw_density(Strip *strip)
{
    if (strip->density_x1 <= strip->density_x0)
        return;
    ViewCanvas *canvas = strip->canvas;
    int band = (int)px(strip, 4) > 2 ? (int)px(strip, 4) : 2;
    int bands = strip->body.h / band;
    if (bands <= 0)
        return;
    ViewDensity counts[1024];
    if (bands > 1024)
        bands = 1024;
    uint32_t most = 1;
    for (int b = 0; b < bands; b++) {
        SimTimeUs to = strip->now_us - strip->window_us * (SimTimeUs)b / (SimTimeUs)bands;
        SimTimeUs from = strip->now_us - strip->window_us * (SimTimeUs)(b + 1) / (SimTimeUs)bands;
        counts[b] = view_pane_density(strip->pane, from, to);
        if (counts[b].sends > most)
            most = counts[b].sends;
    }
    float width = strip->density_x1 - strip->density_x0;
    for (int b = 0; b < bands; b++) {
        int y = strip->body.y + strip->body.h - (b + 1) * band;
        float share = sqrtf((float)counts[b].sends / (float)most); /* faint traffic stays visible */
        int w = (int)(share * width);
        int retries = counts[b].sends ? (int)((float)w * (float)counts[b].retries /
                                              (float)counts[b].sends)
                                      : 0;
        ViewRect bar = {(int)strip->density_x0, y, w - retries, band - 1};
        view_canvas_fill(canvas, bar, view_canvas_color(VIEW_COLOR_MESSAGE, 170));
        ViewRect retry = {bar.x + bar.w, y, retries, band - 1};
        view_canvas_fill(canvas, retry, view_canvas_color(VIEW_COLOR_WARNING, 200));
        if (counts[b].doubles > 0)
            view_canvas_fill(canvas, (ViewRect){(int)strip->density_x1 - (int)px(strip, 5), y,
                                                (int)px(strip, 5), band - 1},
                             view_canvas_color(VIEW_COLOR_DOUBLE, 255));
    }
}

/* ------------------------------------------------------------------ messages */

static void travel(Strip *strip, const ViewArrow *arrow, float x0, SimTimeUs t0, float x1,
                   SimTimeUs t1, SDL_Color color, bool dashed, bool lost)
{
    ViewCanvas *canvas = strip->canvas;
    float y0 = y_of(strip, t0);
    float y1 = y_of(strip, t1);
    float xe = x1, ye = y1;
    bool arrived = t1 <= strip->now_us;
    if (!arrived) { /* on its way: the head moves along the arrow */
        float f = t1 > t0 ? (float)(strip->now_us - t0) / (float)(t1 - t0) : 1;
        xe = x0 + (x1 - x0) * f;
        ye = y0 + (y1 - y0) * f;
    }
    float width = arrow->kind == VIEW_ARROW_RESPONSE ? strip->stroke * 0.75f : strip->stroke;
    if (dashed)
        view_canvas_dashed(canvas, x0, y0, xe, ye, width, px(strip, 4), color);
    else
        view_canvas_line(canvas, x0, y0, xe, ye, width, color);
    if (!arrived)
        view_canvas_circle(canvas, xe, ye, px(strip, 3.5f), color);
    else if (lost)
        view_canvas_cross(canvas, xe, ye, px(strip, 5), px(strip, 2.5f),
                          view_canvas_color(VIEW_COLOR_DOUBLE, 255));
    else
        view_canvas_arrowhead(canvas, x0, y0, xe, ye, px(strip, 8), color);
    offer(strip, arrow, (ViewSegment){true, x0, y0, xe, ye});
}

static SDL_Color request_color(const ViewArrow *arrow)
{
    if (arrow->end_event == VIEW_EVENT_LOST)
        return view_canvas_color(VIEW_COLOR_LOST, 255);
    if (arrow->end_event == VIEW_EVENT_EXECUTE && arrow->effects >= 2)
        return view_canvas_color(VIEW_COLOR_DOUBLE, 255);
    if (arrow->attempt > 1 || arrow->event == VIEW_EVENT_RETRY)
        return view_canvas_color(VIEW_COLOR_WARNING, 255);
    return view_canvas_color(VIEW_COLOR_MESSAGE, 255);
}

static void decision_label(Strip *strip, const ViewArrow *arrow, float y)
{
    char text[48];
    ViewColor color = VIEW_COLOR_TEXT;
    switch (arrow->end_event) {
    case VIEW_EVENT_EXECUTE:
        if (arrow->effects >= 2) {
            snprintf(text, sizeof text, "charge x%u", arrow->effects);
            color = VIEW_COLOR_DOUBLE;
        } else if (strip->pane->mode == MODE_IDEMPOTENT) {
            snprintf(text, sizeof text, "new");
            color = VIEW_COLOR_TEXT_DIM;
        } else {
            return; /* the ledger dot says it: a first charge is routine */
        }
        break;
    case VIEW_EVENT_EXECUTE_NO_EFFECT: snprintf(text, sizeof text, "no change"); break;
    case VIEW_EVENT_REPLAY:
        snprintf(text, sizeof text, "replay");
        color = VIEW_COLOR_OK;
        break;
    case VIEW_EVENT_IN_PROGRESS:
    case VIEW_EVENT_REJECT_OTHER_BODY:
        snprintf(text, sizeof text, "%d", arrow->value);
        color = VIEW_COLOR_WARNING;
        break;
    default: return;
    }
    label(strip, strip->server_x - px(strip, 8), y, VIEW_ALIGN_RIGHT, color, text);
}

/* The ledger entry an execution made: a dot on the ledger's lifeline, red when the
 * operation had already been charged. */
static void ledger_entry(Strip *strip, const ViewArrow *arrow, float y)
{
    int64_t amount = strip->pane->group_amount[strip->pane->lanes[arrow->lane].group];
    if (arrow->end_event != VIEW_EVENT_EXECUTE || amount == 0)
        return;
    ViewColor color = arrow->effects >= 2 ? VIEW_COLOR_DOUBLE : VIEW_COLOR_OK;
    SDL_Color c = view_canvas_color(color, 255);
    bool again = arrow->effects >= 2;
    view_canvas_line(strip->canvas, strip->server_x, y, strip->ledger_x, y,
                     px(strip, again ? 2 : 1), view_canvas_color(color, again ? 220 : 70));
    view_canvas_circle(strip->canvas, strip->ledger_x, y, px(strip, again ? 6 : 3.5f), c);
    if (arrow->effects < 2)
        return;
    char money[40];
    snprintf(money, sizeof money, "\xE2\x88\x92%.2f", (double)amount / 100.0);
    label(strip, strip->ledger_x - px(strip, 9), y - px(strip, 7), VIEW_ALIGN_RIGHT, color,
          money);
}

static void draw_request(Strip *strip, const ViewArrow *arrow)
{
    int lane = arrow->lane;
    float x0 = strip->lane_x[lane];
    SimTimeUs nominal = strip->pane->request_delay_us[strip->pane->lanes[lane].group];
    SDL_Color color = request_color(arrow);
    if (arrow->end_event == VIEW_EVENT_LOST) {
        travel(strip, arrow, x0, arrow->start_us, network_mid(strip, lane),
               arrow->start_us + nominal / 2, color, arrow->duplicate, true);
        return;
    }
    SimTimeUs arrive = arrow->start_us + nominal;
    if (arrow->end_us != SIM_TIME_NEVER && arrow->end_us < arrive)
        arrive = arrow->end_us;
    travel(strip, arrow, x0, arrow->start_us, strip->server_x, arrive, color, arrow->duplicate,
           false);
    if (arrive > strip->now_us)
        return;
    SimTimeUs done = arrow->end_us != SIM_TIME_NEVER ? arrow->end_us : strip->now_us;
    float top = y_of(strip, arrive), bottom = y_of(strip, done);
    float half = px(strip, 3);
    ViewRect box = {(int)(strip->server_x - half), (int)top, (int)(2 * half),
                    (int)fmaxf(bottom - top, px(strip, 2))};
    view_canvas_fill(strip->canvas, box, view_canvas_color(VIEW_COLOR_MESSAGE, 70));
    view_canvas_outline(strip->canvas, box, 1, view_canvas_color(VIEW_COLOR_MESSAGE, 160));
    if (arrow->end_us == SIM_TIME_NEVER)
        return;
    decision_label(strip, arrow, bottom);
    ledger_entry(strip, arrow, bottom);
    if (arrow->attempt > 1 && arrow->event != VIEW_EVENT_DUPLICATE) {
        char text[24];
        snprintf(text, sizeof text, "retry #%u", arrow->attempt);
        label(strip, x0 + px(strip, 6), y_of(strip, arrow->start_us) - px(strip, 6),
              VIEW_ALIGN_LEFT, VIEW_COLOR_WARNING, text);
    }
}

static SDL_Color answer_color(const ViewArrow *arrow)
{
    if (arrow->end_event == VIEW_EVENT_LOST)
        return view_canvas_color(VIEW_COLOR_LOST, 255);
    if (arrow->event == VIEW_EVENT_REPLAY)
        return view_canvas_color(VIEW_COLOR_OK, 255);
    if (arrow->value >= 300 || arrow->value == 202)
        return view_canvas_color(VIEW_COLOR_WARNING, 255);
    return view_canvas_color(VIEW_COLOR_RESPONSE, 255);
}

static void draw_answer(Strip *strip, const ViewArrow *arrow)
{
    int lane = arrow->lane;
    SimTimeUs nominal = strip->pane->response_delay_us[strip->pane->lanes[lane].group];
    SDL_Color color = answer_color(arrow);
    if (arrow->end_event == VIEW_EVENT_LOST) {
        travel(strip, arrow, strip->server_x, arrow->start_us, network_mid(strip, lane),
               arrow->start_us + nominal / 2, color, arrow->duplicate, true);
        label(strip, network_mid(strip, lane) + px(strip, 8),
              y_of(strip, arrow->start_us + nominal / 2), VIEW_ALIGN_LEFT, VIEW_COLOR_LOST,
              "lost");
        return;
    }
    bool seen = arrow->end_us != SIM_TIME_NEVER;
    SimTimeUs arrive = seen ? arrow->end_us : arrow->start_us + nominal;
    travel(strip, arrow, strip->server_x, arrow->start_us, strip->lane_x[lane], arrive, color,
           !seen || arrow->duplicate, false);
}

static void draw_mark(Strip *strip, const ViewArrow *arrow)
{
    ViewCanvas *canvas = strip->canvas;
    float x = strip->lane_x[arrow->lane], y = y_of(strip, arrow->start_us);
    float r = px(strip, 4.5f);
    switch ((ViewEvent)arrow->event) {
    case VIEW_EVENT_TIMEOUT:
        view_canvas_fill(canvas, (ViewRect){(int)(x - r * 1.6f), (int)(y - r / 2),
                                            (int)(r * 3.2f), (int)fmaxf(r, 2)},
                         view_canvas_color(VIEW_COLOR_WARNING, 255));
        label(strip, x + r * 2, y, VIEW_ALIGN_LEFT, VIEW_COLOR_WARNING, "timeout");
        break;
    case VIEW_EVENT_GIVE_UP:
        view_canvas_circle(canvas, x, y, r * 1.3f, view_canvas_color(VIEW_COLOR_WARNING, 255));
        view_canvas_text(canvas, VIEW_FONT_TINY, view_canvas_color(VIEW_COLOR_BACKGROUND, 255),
                         (int)x, (int)(y - (float)view_canvas_text_height(canvas, VIEW_FONT_TINY) / 2),
                         VIEW_ALIGN_CENTER, "?");
        label(strip, x + r * 2, y, VIEW_ALIGN_LEFT, VIEW_COLOR_WARNING, "gave up");
        break;
    case VIEW_EVENT_SUCCEEDED:
        view_canvas_circle(canvas, x, y, r, view_canvas_color(VIEW_COLOR_OK, 255));
        break;
    case VIEW_EVENT_FAILED:
        view_canvas_cross(canvas, x, y, r, px(strip, 2), view_canvas_color(VIEW_COLOR_WARNING, 255));
        break;
    case VIEW_EVENT_OFFLINE: {
        float end = y_of(strip, arrow->start_us + (SimTimeUs)arrow->value * 1000);
        view_canvas_fill(canvas, (ViewRect){(int)(x - r / 2), (int)y, (int)r, (int)(end - y)},
                         view_canvas_color(VIEW_COLOR_LOST, 200));
        label(strip, x + r, y + px(strip, 6), VIEW_ALIGN_LEFT, VIEW_COLOR_LOST, "offline");
        break;
    }
    default:
        view_canvas_circle(canvas, x, y, r * 0.7f, view_canvas_color(VIEW_COLOR_LOST, 255));
        break;
    }
    offer(strip, arrow, (ViewSegment){true, x, y, x, y});
}

static bool visible(const Strip *strip, const ViewArrow *arrow)
{
    if (arrow->lane >= strip->lanes_shown || arrow->start_us > strip->now_us)
        return false;
    SimTimeUs end = arrow->start_us;
    if (arrow->kind == VIEW_ARROW_REQUEST)
        end = arrow->end_us != SIM_TIME_NEVER ? arrow->end_us : strip->now_us;
    else if (arrow->kind == VIEW_ARROW_RESPONSE)
        end = arrow->start_us + strip->window_us; /* generous: its arrival may be estimated */
    else if (arrow->event == VIEW_EVENT_OFFLINE)
        end = arrow->start_us + (SimTimeUs)arrow->value * 1000;
    return end + 1 >= strip->from_us;
}

static void draw_messages(Strip *strip)
{
    const ViewPane *pane = strip->pane;
    for (int pass = 0; pass < 2; pass++) { /* marks on top of the arrows */
        for (uint64_t serial = view_pane_first_serial(pane); serial < pane->arrow_serial;
             serial++) {
            const ViewArrow *arrow = view_pane_arrow(pane, serial);
            if (!visible(strip, arrow) || (arrow->kind == VIEW_ARROW_MARK) != (pass == 1))
                continue;
            if (arrow->kind == VIEW_ARROW_REQUEST)
                draw_request(strip, arrow);
            else if (arrow->kind == VIEW_ARROW_RESPONSE)
                draw_answer(strip, arrow);
            else
                draw_mark(strip, arrow);
        }
    }
}

/* ------------------------------------------------------------------ the strip */

void view_sequence_draw(ViewCanvas *canvas, const ViewLayout *layout, ViewRect rect,
                        const ViewPane *pane, SimTimeUs now_us, SimTimeUs window_us,
                        ViewSequencePick *pick)
{
    if (rect.w <= 0 || rect.h <= 0)
        return;
    Strip strip = {.canvas = canvas, .layout = layout, .pane = pane, .rect = rect,
                   .now_us = now_us, .window_us = window_us > 0 ? window_us : 1, .pick = pick};
    strip.from_us = now_us > strip.window_us ? now_us - strip.window_us : 0;
    strip.stroke = px(&strip, 2.2f);
    place_lanes(&strip);
    view_canvas_round(canvas, rect, px(&strip, 6), view_canvas_color(VIEW_COLOR_PANEL, 255));
    draw_headings(&strip);
    view_canvas_flush(canvas);
    SDL_Rect clip = {strip.body.x, strip.body.y, strip.body.w, strip.body.h};
    SDL_RenderSetClipRect(canvas->renderer, &clip);
    draw_grid(&strip);
    draw_lifelines(&strip);
    draw_density(&strip);
    draw_messages(&strip);
    draw_labels(&strip);
    view_canvas_flush(canvas);
    SDL_RenderSetClipRect(canvas->renderer, NULL);
}
