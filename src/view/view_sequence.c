/* The sequence diagram. Time runs down the strip, "now" at the bottom edge, so the newest
 * exchange is where the eye rests and older ones scroll up and out. Lifelines, left to
 * right: the density of all clients, a gutter with the time, the sampled clients, the
 * network, the services the scenario uses (server, gateway, broker, consumers) and the
 * ledger.
 *
 * Arrival times are exact: the trace reports every copy at both ends. A copy still on its
 * way moves towards its target at its link's typical speed and waits just short of it
 * until it arrives. A lost copy is lost when it is sent (that is how the model decides);
 * it is drawn stopping halfway, at a red cross. */
#include "view_sequence.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LABELS_MAX 256
#define HEADER_HEIGHT 30.0f
#define LANE_SECONDS 10.0  /* lanes x seconds of window per LANE_HEIGHT of strip */
#define LANE_HEIGHT 240.0f /* a column's diagram at 1280x720: 8 lanes for 1.25 s */

typedef struct {
    ViewCanvas *canvas;
    const ViewLayout *layout;
    const ViewPane *pane;
    ViewRect rect;
    ViewRect body;
    SimTimeUs now_us, window_us, from_us;
    int lanes_shown;
    int shown[VIEW_LANES_MAX];     /* the lanes drawn, left to right */
    float node_x[VIEW_NODE_COUNT]; /* < 0: not drawn */
    float lane_w;
    float first_service_x;
    float density_x0, density_x1;
    float time_x;
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

static SDL_Color C(ViewColor color)
{
    return view_canvas_color(color, 255);
}

static float y_of(const Strip *strip, SimTimeUs t_us)
{
    if (t_us >= strip->now_us)
        return (float)(strip->body.y + strip->body.h);
    double behind = (double)(strip->now_us - t_us) / (double)strip->window_us;
    return (float)(strip->body.y + strip->body.h) - (float)(behind * strip->body.h);
}

static bool drawn(const Strip *strip, int node)
{
    return node >= 0 && node < VIEW_NODE_COUNT && strip->node_x[node] >= 0;
}

/* ------------------------------------------------------------------ geometry */

/* Services from the right edge leftwards, then the clients in what is left. */
static float place_services(Strip *strip)
{
    float right = (float)(strip->rect.x + strip->rect.w);
    strip->node_x[VIEW_NODE_LEDGER] = right - px(strip, 24);
    float x = strip->node_x[VIEW_NODE_LEDGER] - px(strip, 70);
    float leftmost = x;
    for (int node = VIEW_NODE_CONSUMERS; node >= VIEW_NODE_SERVER; node--) {
        if (!strip->pane->node_present[node])
            continue;
        strip->node_x[node] = x;
        leftmost = x;
        x -= px(strip, 78);
    }
    return leftmost;
}

/* Which sampled clients get a lane when not all fit: the first of each group in turn, then
 * laid out group by group so a group's lanes sit together under its name. */
static int choose_shown(const Strip *strip, int count, int shown[VIEW_LANES_MAX])
{
    const ViewPane *pane = strip->pane;
    bool taken[VIEW_LANES_MAX] = {false};
    int picked = 0;
    for (uint32_t index = 0; picked < count; index++) {
        bool any = false;
        for (uint32_t l = 0; l < pane->lane_count && picked < count; l++) {
            if (pane->lanes[l].client_in_group == index && !taken[l]) {
                taken[l] = true;
                picked++;
                any = true;
            }
        }
        if (!any)
            break;
    }
    int n = 0;
    for (uint32_t g = 0; g < pane->scenario->client_group_count; g++) {
        for (uint32_t l = 0; l < pane->lane_count; l++) {
            if (taken[l] && pane->lanes[l].group == g)
                shown[n++] = (int)l;
        }
    }
    return n;
}

static void place_lanes(Strip *strip)
{
    const ViewPane *pane = strip->pane;
    for (int node = 0; node < VIEW_NODE_COUNT; node++)
        strip->node_x[node] = -1;
    strip->first_service_x = place_services(strip);
    float x = (float)strip->rect.x + px(strip, 4);
    strip->density_x0 = strip->density_x1 = x;
    if (pane->clients_total > pane->lane_count) {
        strip->density_x1 = x + px(strip, 30);
        x = strip->density_x1;
    }
    strip->time_x = x + px(strip, 3);
    x += px(strip, 34);                                      /* the time labels' gutter */
    float room = strip->first_service_x - px(strip, 76) - x; /* keep the network wide */
    /* Fewer lanes as the window widens (faster speeds), so the number of arrows on screen
     * stays readable; the density band still counts every client. */
    double window_s = (double)strip->window_us / 1e6;
    double height = (double)(strip->rect.h - px(strip, HEADER_HEIGHT)) / px(strip, LANE_HEIGHT);
    int lanes =
        (int)(LANE_SECONDS * (height > 1 ? height : 1) / (window_s > 0.01 ? window_s : 0.01));
    lanes = lanes < 1 ? 1 : lanes > (int)pane->lane_count ? (int)pane->lane_count : lanes;
    while (lanes > 1 && room / (float)lanes < px(strip, 14))
        lanes--;
    strip->lanes_shown = room > 0 ? choose_shown(strip, lanes, strip->shown) : 0;
    strip->lane_w = strip->lanes_shown > 0 ? fminf(px(strip, 40), room / (float)lanes) : 0;
    for (int i = 0; i < strip->lanes_shown; i++)
        strip->node_x[strip->shown[i]] = x + strip->lane_w * ((float)i + 0.5f);
    int header = (int)px(strip, HEADER_HEIGHT);
    strip->body =
        (ViewRect){strip->rect.x, strip->rect.y + header, strip->rect.w, strip->rect.h - header};
}

static SimTimeUs link_delay(const Strip *strip, int from, int to)
{
    return strip->pane->delay_us[from][to];
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
        view_canvas_text(canvas, VIEW_FONT_TINY, C(strip->label_colors[i]), box.x + 2, box.y,
                         VIEW_ALIGN_LEFT, strip->label_texts[i]);
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
    if (!pick->mouse_active || !view_layout_contains(strip->body, pick->mouse_x, pick->mouse_y))
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
    static const SimTimeUs steps[] = {50000,   100000,   200000,   500000,   1000000, 2000000,
                                      5000000, 10000000, 20000000, 30000000, 60000000};
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
    float x0 = (float)strip->body.x, x1 = (float)(strip->body.x + strip->body.w);
    int h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    for (SimTimeUs t = first; t <= strip->now_us; t += step) {
        float y = y_of(strip, t);
        view_canvas_line(canvas, x0, y, x1, y, 1, C(VIEW_COLOR_GRID));
        if (y - (float)h < (float)strip->body.y)
            continue;
        char when[32];
        snprintf(when, sizeof when, step % 1000000 == 0 ? "%.0f s" : "%.1f s", (double)t / 1e6);
        view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_TEXT_DIM), (int)strip->time_x,
                         (int)y - h, VIEW_ALIGN_LEFT, when);
    }
}

static void draw_lifelines(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    float top = (float)strip->body.y, bottom = (float)(strip->body.y + strip->body.h);
    for (int node = 0; node < VIEW_NODE_COUNT; node++) {
        if (!drawn(strip, node))
            continue;
        bool service = node >= VIEW_NODE_SERVER;
        view_canvas_line(canvas, strip->node_x[node], top, strip->node_x[node], bottom,
                         px(strip, service ? 3 : 1.5f),
                         service ? view_canvas_color(VIEW_COLOR_TEXT_DIM, 150)
                                 : C(VIEW_COLOR_GRID));
    }
    view_canvas_line(canvas, (float)strip->body.x, bottom - 1,
                     (float)(strip->body.x + strip->body.w), bottom - 1, px(strip, 1.5f),
                     C(VIEW_COLOR_TEXT_DIM));
}

/* Each group's name over its lanes (shortened to fit), each client's index under it. */
static void draw_group_headings(Strip *strip, int y, int y2)
{
    ViewCanvas *canvas = strip->canvas;
    const ViewPane *pane = strip->pane;
    SDL_Color dim = C(VIEW_COLOR_TEXT_DIM);
    for (int i = 0; i < strip->lanes_shown; i++) {
        int lane = strip->shown[i];
        char index[16];
        snprintf(index, sizeof index, "%u", pane->lanes[lane].client_in_group);
        view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)strip->node_x[lane], y2,
                         VIEW_ALIGN_CENTER, index);
        bool first = i == 0 || pane->lanes[strip->shown[i - 1]].group != pane->lanes[lane].group;
        if (!first)
            continue;
        int last = i;
        while (last + 1 < strip->lanes_shown &&
               pane->lanes[strip->shown[last + 1]].group == pane->lanes[lane].group)
            last++;
        float left = strip->node_x[lane] - strip->lane_w / 2;
        float right = strip->node_x[strip->shown[last]] + strip->lane_w / 2;
        bool alone = pane->scenario->client_group_count == 1;
        view_canvas_text_fit(
            canvas, VIEW_FONT_SMALL, dim, (int)left, y, VIEW_ALIGN_LEFT,
            (int)(alone ? strip->first_service_x - left - px(strip, 40) : right - left),
            alone ? "clients" : pane->scenario->client_groups[pane->lanes[lane].group].id);
    }
}

static void draw_headings(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    const ViewPane *pane = strip->pane;
    SDL_Color dim = C(VIEW_COLOR_TEXT_DIM);
    int y = strip->rect.y + (int)px(strip, 2);
    int y2 = y + view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    static const char *const names[] = {"server", "gateway", "broker", "consumers", "ledger"};
    for (int node = VIEW_NODE_SERVER; node < VIEW_NODE_COUNT; node++) {
        if (drawn(strip, node))
            view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)strip->node_x[node], y,
                             VIEW_ALIGN_CENTER, names[node - VIEW_NODE_SERVER]);
    }
    if (strip->lanes_shown > 0) {
        draw_group_headings(strip, y, y2);
        float last = strip->node_x[strip->shown[strip->lanes_shown - 1]];
        view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)((last + strip->first_service_x) / 2),
                         y2, VIEW_ALIGN_CENTER, "network");
    }
    if (strip->density_x1 > strip->density_x0) {
        char count[32];
        snprintf(count, sizeof count, "%llu", (unsigned long long)pane->clients_total);
        view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)strip->density_x0, y, VIEW_ALIGN_LEFT,
                         "all");
        view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)strip->density_x0, y2, VIEW_ALIGN_LEFT,
                         count);
    }
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
    bands = bands > 1024 ? 1024 : bands;
    ViewDensity counts[1024];
    uint32_t most = 1;
    for (int b = 0; b < bands; b++) {
        SimTimeUs to = strip->now_us - strip->window_us * (SimTimeUs)b / (SimTimeUs)bands;
        SimTimeUs from = strip->now_us - strip->window_us * (SimTimeUs)(b + 1) / (SimTimeUs)bands;
        counts[b] = view_pane_density(strip->pane, from, to);
        most = counts[b].sends > most ? counts[b].sends : most;
    }
    float width = strip->density_x1 - strip->density_x0 - px(strip, 2);
    for (int b = 0; b < bands; b++) {
        int y = strip->body.y + strip->body.h - (b + 1) * band;
        float share = sqrtf((float)counts[b].sends / (float)most); /* faint traffic stays visible */
        int w = (int)(share * width);
        int retries = counts[b].sends
                          ? (int)((float)w * (float)counts[b].retries / (float)counts[b].sends)
                          : 0;
        ViewRect bar = {(int)strip->density_x0, y, w - retries, band - 1};
        view_canvas_fill(canvas, bar, view_canvas_color(VIEW_COLOR_MESSAGE, 170));
        view_canvas_fill(canvas, (ViewRect){bar.x + bar.w, y, retries, band - 1},
                         view_canvas_color(VIEW_COLOR_WARNING, 200));
        if (counts[b].doubles > 0)
            view_canvas_fill(canvas,
                             (ViewRect){(int)strip->density_x1 - (int)px(strip, 6), y,
                                        (int)px(strip, 4), band - 1},
                             C(VIEW_COLOR_DOUBLE));
    }
}

/* ------------------------------------------------------------------ messages */

/* Which delivery of its message a broker delivery is: the broker numbers them in the low
 * six bits of the lineage, before the hop doubles it. 0 for other messages. */
static uint32_t delivery_number(const ViewArrow *arrow)
{
    return arrow->message == VIEW_MESSAGE_DELIVERY ? (arrow->copy / 2) % 64 : 0;
}

static SDL_Color message_color(const ViewArrow *arrow)
{
    if (arrow->end_event == VIEW_EVENT_LOST)
        return C(VIEW_COLOR_LOST);
    switch ((ViewMessage)arrow->message) {
    case VIEW_MESSAGE_REQUEST:
    case VIEW_MESSAGE_DELIVERY:
    case VIEW_MESSAGE_CHARGE:
        if (arrow->event == VIEW_EVENT_EXECUTE && arrow->effects >= 2)
            return C(VIEW_COLOR_DOUBLE);
        if (arrow->attempt > 1 || delivery_number(arrow) > 1)
            return C(VIEW_COLOR_WARNING);
        return C(VIEW_COLOR_MESSAGE);
    case VIEW_MESSAGE_ACK:
        return view_canvas_color(VIEW_COLOR_TEXT_DIM, 200);
    default:
        break;
    }
    if (arrow->event == VIEW_EVENT_REPLAY)
        return C(VIEW_COLOR_OK);
    if (arrow->event == VIEW_EVENT_IN_PROGRESS || arrow->event == VIEW_EVENT_REJECT_OTHER_BODY ||
        arrow->value >= 300 || arrow->value == 202)
        return C(VIEW_COLOR_WARNING);
    return C(VIEW_COLOR_RESPONSE);
}

static void message_label(Strip *strip, const ViewArrow *arrow, float x0, float y0)
{
    char text[32];
    bool client = arrow->from < VIEW_NODE_SERVER;
    if (client && arrow->message == VIEW_MESSAGE_REQUEST && arrow->attempt > 1 && !arrow->duplicate)
        snprintf(text, sizeof text, "retry #%u", arrow->attempt);
    else if (client && arrow->message == VIEW_MESSAGE_REQUEST && arrow->value == 1)
        snprintf(text, sizeof text, "2nd click");
    else if (delivery_number(arrow) > 1)
        snprintf(text, sizeof text, "delivery #%u", delivery_number(arrow));
    else if (arrow->duplicate)
        snprintf(text, sizeof text, "duplicate");
    else
        return;
    bool rightwards = strip->node_x[arrow->to] > x0;
    label(strip, x0 + px(strip, rightwards ? 6 : -6), y0 - px(strip, 6),
          rightwards ? VIEW_ALIGN_LEFT : VIEW_ALIGN_RIGHT, VIEW_COLOR_WARNING, text);
}

static void draw_message(Strip *strip, const ViewArrow *arrow)
{
    ViewCanvas *canvas = strip->canvas;
    float x0 = strip->node_x[arrow->from], x1 = strip->node_x[arrow->to];
    float y0 = y_of(strip, arrow->start_us);
    SimTimeUs delay = link_delay(strip, arrow->from, arrow->to);
    bool lost = arrow->end_event == VIEW_EVENT_LOST;
    bool arrived = arrow->end_us != SIM_TIME_NEVER && !lost;
    float xe = x1, ye;
    if (lost) {
        xe = (x0 + x1) / 2;
        SimTimeUs at = arrow->start_us + delay / 2;
        float f = at > strip->now_us
                      ? (float)(strip->now_us - arrow->start_us) / (float)(delay / 2 + 1)
                      : 1;
        xe = x0 + (xe - x0) * f;
        ye = y_of(strip, at < strip->now_us ? at : strip->now_us);
    } else if (arrived) {
        ye = y_of(strip, arrow->end_us);
    } else { /* on its way: towards the target at the link's typical pace, never quite there */
        float f = (float)(strip->now_us - arrow->start_us) / (float)(delay + 1);
        xe = x0 + (x1 - x0) * fminf(f, 0.92f);
        ye = y_of(strip, strip->now_us);
    }
    SDL_Color color = message_color(arrow);
    float width =
        arrow->message == VIEW_MESSAGE_ACK ? strip->stroke * 0.6f
        : arrow->message == VIEW_MESSAGE_RESPONSE || arrow->message == VIEW_MESSAGE_CHARGE_REPLY
            ? strip->stroke * 0.75f
            : strip->stroke;
    if (arrow->duplicate)
        view_canvas_dashed(canvas, x0, y0, xe, ye, width, px(strip, 4), color);
    else
        view_canvas_line(canvas, x0, y0, xe, ye, width, color);
    if (lost && arrow->start_us + delay / 2 <= strip->now_us)
        view_canvas_cross(canvas, xe, ye, px(strip, 5), px(strip, 2.5f), C(VIEW_COLOR_DOUBLE));
    else if (arrived)
        view_canvas_arrowhead(canvas, x0, y0, xe, ye, px(strip, 8), color);
    else if (!lost)
        view_canvas_circle(canvas, xe, ye, px(strip, 3.5f), color);
    message_label(strip, arrow, x0, y0);
    offer(strip, arrow, (ViewSegment){true, x0, y0, xe, ye});
}

static void draw_activation(Strip *strip, const ViewArrow *arrow)
{
    float x = strip->node_x[arrow->from];
    SimTimeUs end = arrow->end_us != SIM_TIME_NEVER ? arrow->end_us : strip->now_us;
    float top = y_of(strip, arrow->start_us), bottom = y_of(strip, end);
    float half = px(strip, 3);
    ViewColor color = arrow->event == VIEW_EVENT_EXECUTE && arrow->effects >= 2
                          ? VIEW_COLOR_DOUBLE
                          : VIEW_COLOR_MESSAGE;
    ViewRect box = {(int)(x - half), (int)top, (int)(2 * half), (int)fmaxf(bottom - top, 2)};
    view_canvas_fill(strip->canvas, box, view_canvas_color(color, 70));
    view_canvas_outline(strip->canvas, box, 1, view_canvas_color(color, 160));
    offer(strip, arrow, (ViewSegment){true, x, top, x, bottom});
}

/* ------------------------------------------------------------------ marks */

static void ledger_entry(Strip *strip, const ViewArrow *mark, float y)
{
    const ViewPane *pane = strip->pane;
    OperationView view;
    int64_t amount = world_operation_view(pane->world, mark->operation, &view)
                         ? pane->group_amount[view.group]
                         : 0;
    bool again = mark->effects >= 2;
    ViewColor color = again ? VIEW_COLOR_DOUBLE : VIEW_COLOR_OK;
    float ledger = strip->node_x[VIEW_NODE_LEDGER];
    view_canvas_line(strip->canvas, strip->node_x[mark->from], y, ledger, y,
                     px(strip, again ? 2 : 1), view_canvas_color(color, again ? 220 : 70));
    view_canvas_circle(strip->canvas, ledger, y, px(strip, again ? 6 : 3.5f), C(color));
    if (!again)
        return;
    char text[40];
    if (amount > 0)
        snprintf(text, sizeof text, "\xE2\x88\x92%.2f", (double)amount / 100.0);
    else
        snprintf(text, sizeof text, "x%u", mark->effects);
    label(strip, ledger - px(strip, 9), y - px(strip, 7), VIEW_ALIGN_RIGHT, color, text);
}

/* The words a service's decision gets beside its lifeline; NULL: none. */
static const char *decision_words(const ViewArrow *mark, char *buffer, size_t size,
                                  ViewColor *color)
{
    *color = VIEW_COLOR_WARNING;
    switch ((ViewEvent)mark->event) {
    case VIEW_EVENT_RESERVE:
        *color = VIEW_COLOR_TEXT_DIM;
        return "new";
    case VIEW_EVENT_EXECUTE:
        if (mark->effects < 2)
            return NULL;
        *color = VIEW_COLOR_DOUBLE;
        snprintf(buffer, size, "charge x%u", mark->effects);
        return buffer;
    case VIEW_EVENT_EXECUTE_NO_EFFECT:
        *color = VIEW_COLOR_TEXT_DIM;
        return "no change";
    case VIEW_EVENT_REPLAY:
        *color = VIEW_COLOR_OK;
        return "replay";
    case VIEW_EVENT_DEDUPLICATED:
        *color = VIEW_COLOR_OK;
        return "dedup";
    case VIEW_EVENT_IN_PROGRESS:
    case VIEW_EVENT_REJECT_OTHER_BODY:
        if (mark->value == 0)
            return mark->event == VIEW_EVENT_IN_PROGRESS ? "busy" : "reject";
        snprintf(buffer, size, "%d", mark->value);
        return buffer;
    case VIEW_EVENT_FAIL_AFTER_EFFECT:
        return "500 after charge";
    case VIEW_EVENT_GATEWAY_TIMEOUT:
        return "504";
    case VIEW_EVENT_DECLINED:
        return "declined";
    case VIEW_EVENT_CHARGED_NO_ANSWER:
        return "no answer";
    case VIEW_EVENT_OUTBOX_RELAY:
        *color = VIEW_COLOR_TEXT_DIM;
        return "relay";
    case VIEW_EVENT_REFUSED_DOWN:
        *color = VIEW_COLOR_LOST;
        return "down";
    case VIEW_EVENT_CRASH:
        return "CRASH";
    case VIEW_EVENT_RESTART:
        *color = VIEW_COLOR_TEXT_DIM;
        return "restart";
    case VIEW_EVENT_REDELIVER:
        return "redeliver";
    case VIEW_EVENT_ACK_TIMEOUT:
        return "ack timeout";
    case VIEW_EVENT_DEAD_LETTER:
        return "dead letter";
    case VIEW_EVENT_DISCARD:
        return "discarded";
    case VIEW_EVENT_LATE_ACK_ACCEPTED:
    case VIEW_EVENT_LATE_ACK_IGNORED:
        *color = VIEW_COLOR_TEXT_DIM;
        return "late ack";
    case VIEW_EVENT_SEND_RECEIPT:
        *color = mark->value >= 2 ? VIEW_COLOR_DOUBLE : VIEW_COLOR_TEXT_DIM;
        snprintf(buffer, size, mark->value >= 2 ? "email x%d" : "email", mark->value);
        return buffer;
    default:
        return NULL;
    }
}

static void draw_service_mark(Strip *strip, const ViewArrow *mark)
{
    float x = strip->node_x[mark->from], y = y_of(strip, mark->start_us);
    if (mark->event == VIEW_EVENT_EXECUTE)
        ledger_entry(strip, mark, y);
    if (mark->event == VIEW_EVENT_CRASH)
        view_canvas_cross(strip->canvas, x, y, px(strip, 7), px(strip, 3), C(VIEW_COLOR_WARNING));
    char buffer[32];
    ViewColor color;
    const char *words = decision_words(mark, buffer, sizeof buffer, &color);
    if (words != NULL)
        label(strip, x - px(strip, 8), y, VIEW_ALIGN_RIGHT, color, words);
    offer(strip, mark, (ViewSegment){true, x, y, x, y});
}

static void draw_client_mark(Strip *strip, const ViewArrow *mark)
{
    ViewCanvas *canvas = strip->canvas;
    float x = strip->node_x[mark->from], y = y_of(strip, mark->start_us);
    float r = px(strip, 4.5f);
    switch ((ViewEvent)mark->event) {
    case VIEW_EVENT_TIMEOUT:
        view_canvas_fill(
            canvas,
            (ViewRect){(int)(x - r * 1.6f), (int)(y - r / 2), (int)(r * 3.2f), (int)fmaxf(r, 2)},
            C(VIEW_COLOR_WARNING));
        label(strip, x + r * 2, y, VIEW_ALIGN_LEFT, VIEW_COLOR_WARNING, "timeout");
        break;
    case VIEW_EVENT_GIVE_UP:
        view_canvas_circle(canvas, x, y, r * 1.3f, C(VIEW_COLOR_WARNING));
        view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_BACKGROUND), (int)x,
                         (int)(y - (float)view_canvas_text_height(canvas, VIEW_FONT_TINY) / 2),
                         VIEW_ALIGN_CENTER, "?");
        label(strip, x + r * 2, y, VIEW_ALIGN_LEFT, VIEW_COLOR_WARNING, "gave up");
        break;
    case VIEW_EVENT_SUCCEEDED:
        view_canvas_circle(canvas, x, y, r, C(VIEW_COLOR_OK));
        break;
    case VIEW_EVENT_FAILED:
        view_canvas_cross(canvas, x, y, r, px(strip, 2), C(VIEW_COLOR_WARNING));
        break;
    case VIEW_EVENT_OFFLINE: {
        float end = y_of(strip, mark->start_us + (SimTimeUs)mark->value * 1000);
        view_canvas_fill(canvas, (ViewRect){(int)(x - r / 4), (int)y, (int)(r / 2), (int)(end - y)},
                         view_canvas_color(VIEW_COLOR_LOST, 140));
        label(strip, x + r, y + px(strip, 6), VIEW_ALIGN_LEFT, VIEW_COLOR_LOST, "offline");
        break;
    }
    case VIEW_EVENT_LOST_OFFLINE:
        view_canvas_cross(canvas, x, y, r * 0.8f, px(strip, 2), C(VIEW_COLOR_DOUBLE));
        break;
    default:
        view_canvas_circle(canvas, x, y, r * 0.7f, C(VIEW_COLOR_LOST));
        break;
    }
    offer(strip, mark, (ViewSegment){true, x, y, x, y});
}

static bool visible(const Strip *strip, const ViewArrow *arrow)
{
    if (!drawn(strip, arrow->from) || !drawn(strip, arrow->to) || arrow->start_us > strip->now_us)
        return false;
    SimTimeUs end = arrow->end_us != SIM_TIME_NEVER ? arrow->end_us : strip->now_us;
    if (arrow->kind == VIEW_ARROW_MARK)
        end = arrow->event == VIEW_EVENT_OFFLINE ? arrow->start_us + (SimTimeUs)arrow->value * 1000
                                                 : arrow->start_us;
    if (arrow->end_event == VIEW_EVENT_LOST)
        end = arrow->start_us + strip->pane->delay_us[arrow->from][arrow->to];
    return end + 1 >= strip->from_us;
}

static void draw_arrows(Strip *strip)
{
    const ViewPane *pane = strip->pane;
    for (int pass = 0; pass < 3; pass++) { /* boxes, then arrows, then marks on top */
        for (uint64_t serial = view_pane_first_serial(pane); serial < pane->arrow_serial;
             serial++) {
            const ViewArrow *arrow = view_pane_arrow(pane, serial);
            if (arrow->kind != (pass == 0   ? VIEW_ARROW_ACTIVATION
                                : pass == 1 ? VIEW_ARROW_MESSAGE
                                            : VIEW_ARROW_MARK) ||
                !visible(strip, arrow))
                continue;
            if (pass == 0)
                draw_activation(strip, arrow);
            else if (pass == 1)
                draw_message(strip, arrow);
            else if (arrow->from >= VIEW_NODE_SERVER)
                draw_service_mark(strip, arrow);
            else
                draw_client_mark(strip, arrow);
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
    Strip strip = {.canvas = canvas,
                   .layout = layout,
                   .pane = pane,
                   .rect = rect,
                   .now_us = now_us,
                   .window_us = window_us > 0 ? window_us : 1,
                   .pick = pick};
    strip.from_us = now_us > strip.window_us ? now_us - strip.window_us : 0;
    strip.stroke = px(&strip, 2.2f);
    place_lanes(&strip);
    view_canvas_round(canvas, rect, px(&strip, 6), C(VIEW_COLOR_PANEL));
    draw_headings(&strip);
    view_canvas_flush(canvas);
    SDL_Rect clip = {strip.body.x, strip.body.y, strip.body.w, strip.body.h};
    SDL_RenderSetClipRect(canvas->renderer, &clip);
    draw_grid(&strip);
    draw_lifelines(&strip);
    draw_density(&strip);
    draw_arrows(&strip);
    draw_labels(&strip);
    view_canvas_flush(canvas);
    SDL_RenderSetClipRect(canvas->renderer, NULL);
}
