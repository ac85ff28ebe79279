/* The sequence diagram, an SDL renderer of the pane's diagram model (diagram.h): the model
 * holds the lanes, the paired copies, the boxes, the marks and their words; this file places
 * them on a time axis and paints them. Time runs down the strip, "now" at the bottom edge, so
 * the newest exchange is where the eye rests and older ones scroll up and out. Lifelines,
 * left to right: the density of all clients, a gutter with the time, the sampled clients,
 * the network, the services the scenario uses (in the node table's order, each named and
 * drawn by its kind alone) and the ledger.
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
/* A label's words, as long as the longest buffer a caller builds them in (a span's 48), so
 * asking for a label never cuts its words (gcc -O3 warned that it could) */
#define LABEL_TEXT_MAX 64
#define LABEL_SPOTS_MAX 3
#define LINES_MAX 2048     /* arrows and service lifelines labels keep off, when they can */
#define LANE_SECONDS 10.0  /* lanes x seconds of window per LANE_HEIGHT of strip */
#define LANE_HEIGHT 240.0f /* a column's diagram at 1280x720: 8 lanes for 1.25 s */

/* Where a label may go: the edge of its box that align names (left, centre, right) at x,
 * the top of its box at y. */
typedef struct {
    float x, y;
    ViewAlign align;
} Spot;

/* A label asked for while drawing; placed once every line is known (place_labels). */
typedef struct {
    Spot spots[LABEL_SPOTS_MAX]; /* in order of preference */
    int spot_count;
    ViewColor color;
    char text[LABEL_TEXT_MAX];
} LabelRequest;

typedef struct {
    ViewCanvas *canvas;
    const ViewLayout *layout;
    const ViewPane *pane;
    ViewRect rect;
    ViewRect body;
    const ViewTimeline *timeline; /* shared by every column */
    SimTimeUs now_us;             /* the clock, or the end of a fixed window before it */
    SimTimeUs from_us;            /* the earliest moment shown */
    SimTimeUs window_us;          /* the strip's height in drawn time */
    int lanes_shown;
    int shown[VIEW_LANES_MAX]; /* the client lanes drawn, left to right */
    bool grouped;              /* the other sampled clients share one lane, right of them */
    bool staggered;            /* the groups' names take turns between two rows, the clients'
                                  numbers on a third (view_sequence_crowded) */
    float grouped_x;
    int grouped_count;
    float node_x[DIAGRAM_LANES_MAX]; /* by diagram lane; < 0: not drawn */
    const Diagram *diagram;
    float lane_w;
    float first_service_x;
    float density_x0, density_x1;
    float time_x;
    float stroke;
    ViewSequencePick *pick;
    int request_count;
    LabelRequest requests[LABELS_MAX];
    int line_count;
    ViewSegment lines[LINES_MAX];
    int label_count; /* placed, and the reserved boxes of other words (text "") */
    ViewRect labels[LABELS_MAX];
    ViewColor label_colors[LABELS_MAX];
    char label_texts[LABELS_MAX][LABEL_TEXT_MAX];
    int label_repeats[LABELS_MAX]; /* the same words asked for nearby and left out */
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
    double position = view_timeline_position(strip->timeline, t_us);
    /* a moment long before the window lies billions of pixels above it */
    return view_layout_coordinate((double)strip->body.y + position * strip->body.h);
}

static bool drawn(const Strip *strip, int node)
{
    return node >= 0 && node < DIAGRAM_LANES_MAX && strip->node_x[node] >= 0;
}

static bool is_client(const Strip *strip, int lane)
{
    return view_pane_lane_is_client(strip->pane, lane);
}

/* ------------------------------------------------------------------ geometry */

/* The gaps between service lanes, in units: wide enough for a name each, narrower when the
 * graph is long (a proxy, two instances, a gateway, a broker and its consumers: C27's
 * architectures) so the services never push the clients out of the column, nor past its
 * left edge into the next one. */
#define SERVICE_GAP 78.0f
#define SERVICE_GAP_LAST 70.0f /* the last service to the ledger */
#define SERVICE_GAP_MIN 34.0f
#define NETWORK_GAP 76.0f /* the last client lane to the first service */
#define NETWORK_GAP_MIN 40.0f
#define CLIENT_LANE_MIN 14.0f /* times the label scale */

/* The ledger at the right edge, the services leftwards from it in the node table's order,
 * `gap` apart (the last gap a little shorter), then the clients in what is left. */
static float place_services(Strip *strip, float gap)
{
    float right = (float)(strip->rect.x + strip->rect.w);
    float x = right - px(strip, 24);
    float leftmost = x;
    uint32_t lanes = diagram_lane_count(strip->diagram);
    for (uint32_t position = lanes; position-- > strip->pane->lane_count;) {
        int lane = diagram_lane_at(strip->diagram, position);
        strip->node_x[lane] = x;
        leftmost = x;
        x -= px(strip, position == lanes - 1 ? gap * SERVICE_GAP_LAST / SERVICE_GAP : gap);
    }
    return leftmost;
}

/* The gap that leaves the clients the room of `client_room` units right of `left` (and the
 * network its minimum), down to SERVICE_GAP_MIN; the preferred gap when all fits. */
static float service_gap(const Strip *strip, float left, float client_room)
{
    uint32_t services = diagram_lane_count(strip->diagram) - strip->pane->lane_count;
    if (services < 2)
        return SERVICE_GAP;
    float gaps = (float)(services - 2) + SERVICE_GAP_LAST / SERVICE_GAP;
    float right = (float)(strip->rect.x + strip->rect.w) - px(strip, 24);
    float room = (right - left) / strip->layout->unit - client_room - NETWORK_GAP;
    float gap = room / gaps;
    if (gap < SERVICE_GAP_MIN) /* the network gives up some of its width first */
        gap = (room + NETWORK_GAP - NETWORK_GAP_MIN) / gaps;
    /* below the minimum only when even that would leave the column (eight instances): the
     * names are then shortened, the lanes stay apart */
    float floor =
        room + NETWORK_GAP - NETWORK_GAP_MIN >= SERVICE_GAP_MIN * gaps ? SERVICE_GAP_MIN : 8.0f;
    return gap > SERVICE_GAP ? SERVICE_GAP : gap < floor ? floor : gap;
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

/* The lanes' names and the clients' numbers above the lifelines: two lines of type, as tall
 * as the type is (it grows on a projector); a third, tiny, when the groups' names take turns
 * between two rows. */
static int header_height(const Strip *strip)
{
    int small = view_canvas_text_height(strip->canvas, VIEW_FONT_SMALL);
    int tiny = view_canvas_text_height(strip->canvas, VIEW_FONT_TINY);
    if (strip->staggered) /* the tiny type may be the taller (a projector's labels) */
        return (int)px(strip, 2) + (small > tiny ? small : tiny) + 2 * tiny + (int)px(strip, 1);
    return (int)px(strip, 2) + small + tiny + (int)px(strip, 1);
}

/* The room the clients keep however long the graph, in units: a few lanes (a grouped one
 * included) wide enough for their numbers. */
static float client_room(const Strip *strip)
{
    uint32_t lanes = strip->pane->lane_count < 3 ? strip->pane->lane_count : 3;
    return (float)lanes * 18.0f * strip->layout->label_scale;
}

static void place_lanes(Strip *strip)
{
    const ViewPane *pane = strip->pane;
    for (int node = 0; node < DIAGRAM_LANES_MAX; node++)
        strip->node_x[node] = -1;
    float x = (float)strip->rect.x + px(strip, 4);
    strip->density_x0 = strip->density_x1 = x;
    if (pane->clients_total > pane->lane_count) {
        strip->density_x1 = x + px(strip, 30);
        x = strip->density_x1;
    }
    strip->time_x = x + px(strip, 3);
    x += px(strip, 34); /* the time labels' gutter */
    strip->first_service_x = place_services(strip, service_gap(strip, x, client_room(strip)));
    /* keep the network wide, narrower only when the services need the room */
    float network = (strip->first_service_x - x) / strip->layout->unit - client_room(strip);
    network = network > NETWORK_GAP       ? NETWORK_GAP
              : network < NETWORK_GAP_MIN ? NETWORK_GAP_MIN
                                          : network;
    float room = strip->first_service_x - px(strip, network) - x;
    /* Fewer lanes as the window widens (faster speeds), so the number of arrows on screen
     * stays readable; the density band still counts every client. */
    double window_s = (double)strip->window_us / 1e6;
    double height = (double)(strip->rect.h - header_height(strip)) / px(strip, LANE_HEIGHT);
    float label_scale = strip->layout->label_scale; /* larger words: fewer lanes to label */
    int lanes = (int)(LANE_SECONDS * (height > 1 ? height : 1) /
                      (window_s > 0.01 ? window_s : 0.01) / (label_scale * label_scale));
    lanes = lanes < 1 ? 1 : lanes > (int)pane->lane_count ? (int)pane->lane_count : lanes;
    /* The sampled clients without a lane of their own share one, so a service's mark for
     * one of them (C13's "charge x2") still has the request that led to it. */
    int grouped = lanes < (int)pane->lane_count ? 1 : 0;
    while (lanes > 1 &&
           room / (float)(lanes + grouped) < px(strip, CLIENT_LANE_MIN * label_scale)) {
        lanes--;
        grouped = 1;
    }
    strip->lanes_shown = room > 0 ? choose_shown(strip, lanes, strip->shown) : 0;
    strip->grouped = room > 0 && strip->lanes_shown < (int)pane->lane_count;
    int slots = strip->lanes_shown + (strip->grouped ? 1 : 0);
    strip->lane_w = slots > 0 ? fminf(px(strip, 40), room / (float)slots) : 0;
    for (int i = 0; i < strip->lanes_shown; i++)
        strip->node_x[strip->shown[i]] = x + strip->lane_w * ((float)i + 0.5f);
    strip->grouped_x = x + strip->lane_w * ((float)strip->lanes_shown + 0.5f);
    strip->grouped_count = 0;
    for (uint32_t l = 0; strip->grouped && l < pane->lane_count; l++) {
        if (strip->node_x[l] < 0) {
            strip->node_x[l] = strip->grouped_x;
            strip->grouped_count++;
        }
    }
    int header = header_height(strip);
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

static ViewRect label_box(const Strip *strip, Spot spot, int w, int h)
{
    int pad = (int)px(strip, 2);
    int left = spot.align == VIEW_ALIGN_RIGHT    ? (int)spot.x - w
               : spot.align == VIEW_ALIGN_CENTER ? (int)spot.x - w / 2
                                                 : (int)spot.x;
    return (ViewRect){left - pad, (int)spot.y, w + 2 * pad, h};
}

static bool label_inside(const Strip *strip, ViewRect box)
{
    const ViewRect *body = &strip->body;
    return box.x >= body->x && box.y >= body->y && box.x + box.w <= body->x + body->w &&
           box.y + box.h <= body->y + body->h;
}

static bool label_free(const Strip *strip, ViewRect box)
{
    for (int i = 0; i < strip->label_count; i++) {
        if (overlaps(box, strip->labels[i]))
            return false;
    }
    return true;
}

/* Whether a segment crosses a rectangle (Liang-Barsky clipping). */
static bool segment_crosses(const ViewSegment *line, ViewRect box)
{
    float dx = line->x2 - line->x1, dy = line->y2 - line->y1;
    float p[4] = {-dx, dx, -dy, dy};
    float q[4] = {line->x1 - (float)box.x, (float)(box.x + box.w) - line->x1,
                  line->y1 - (float)box.y, (float)(box.y + box.h) - line->y1};
    float t0 = 0, t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        float t = q[i] / p[i];
        if (p[i] < 0)
            t0 = t > t0 ? t : t0;
        else
            t1 = t < t1 ? t : t1;
        if (t0 > t1)
            return false;
    }
    return true;
}

/* Keeps a margin around the box: an arrowhead is wider than its line. */
static bool label_clear(const Strip *strip, ViewRect box)
{
    int margin = (int)px(strip, 3);
    box = (ViewRect){box.x - margin, box.y - margin, box.w + 2 * margin, box.h + 2 * margin};
    for (int i = 0; i < strip->line_count; i++) {
        if (segment_crosses(&strip->lines[i], box))
            return false;
    }
    return true;
}

/* A line labels should keep off: an arrow as drawn, a service's lifeline. */
static void keep_clear(Strip *strip, float x1, float y1, float x2, float y2)
{
    if (strip->line_count < LINES_MAX)
        strip->lines[strip->line_count++] = (ViewSegment){true, x1, y1, x2, y2};
}

/* Keeps labels off a box where other words are drawn (a time on the axis, a glyph). */
static void reserve(Strip *strip, ViewRect box)
{
    if (strip->label_count == LABELS_MAX)
        return;
    int i = strip->label_count++;
    strip->labels[i] = box;
    strip->label_texts[i][0] = '\0';
    strip->label_repeats[i] = 1;
}

/* Asks for a small label at the first of its spots that suits; see place_labels. */
static void label(Strip *strip, const Spot *spots, int count, ViewColor color, const char *text)
{
    if (strip->request_count == LABELS_MAX || count <= 0)
        return;
    LabelRequest *request = &strip->requests[strip->request_count++];
    request->spot_count = count < LABEL_SPOTS_MAX ? count : LABEL_SPOTS_MAX;
    memcpy(request->spots, spots, (size_t)request->spot_count * sizeof *spots);
    request->color = color;
    snprintf(request->text, sizeof request->text, "%s", text);
}

static bool place_label(Strip *strip, const LabelRequest *request)
{
    /* reserved boxes share the array: a busy window fills it before every request is met */
    if (strip->label_count == LABELS_MAX)
        return false;
    ViewCanvas *canvas = strip->canvas;
    int w = view_canvas_text_width(canvas, VIEW_FONT_TINY, request->text);
    int h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    ViewRect box = {0, 0, 0, 0};
    bool placed = false;
    for (int pass = 0; pass < 2 && !placed; pass++) {
        for (int i = 0; i < request->spot_count && !placed; i++) {
            box = label_box(strip, request->spots[i], w, h);
            placed = label_inside(strip, box) && label_free(strip, box) &&
                     (pass == 1 || label_clear(strip, box));
        }
    }
    if (!placed) {
        const ViewRect *body = &strip->body;
        box = label_box(strip, request->spots[0], w, h);
        if (box.w > body->w || box.h > body->h)
            return false;
        box.x = box.x < body->x ? body->x : box.x;
        box.x = box.x + box.w > body->x + body->w ? body->x + body->w - box.w : box.x;
        box.y = box.y < body->y ? body->y : box.y;
        box.y = box.y + box.h > body->y + body->h ? body->y + body->h - box.h : box.y;
        if (!label_free(strip, box))
            return false;
    }
    int i = strip->label_count++;
    strip->labels[i] = box;
    strip->label_colors[i] = request->color;
    snprintf(strip->label_texts[i], sizeof strip->label_texts[i], "%s", request->text);
    strip->label_repeats[i] = 1;
    return true;
}

/* A label left out for want of room is counted on the nearest placed label with the same
 * words and colour, if one is within a few lines: three "replay" at one service read as
 * "3× replay" rather than as one. */
static void count_on_twin(Strip *strip, const LabelRequest *request)
{
    float h = (float)view_canvas_text_height(strip->canvas, VIEW_FONT_TINY);
    const Spot *spot = &request->spots[0];
    int twin = -1;
    float nearest = 4 * h;
    for (int i = 0; i < strip->label_count; i++) {
        if (strip->label_colors[i] != request->color ||
            strcmp(strip->label_texts[i], request->text) != 0)
            continue;
        float distance = fabsf((float)strip->labels[i].y - spot->y);
        if (distance <= nearest) {
            nearest = distance;
            twin = i;
        }
    }
    if (twin >= 0)
        strip->label_repeats[twin]++;
}

/* Writes the count into a label that stands for several, when the longer words still fit
 * where it is; else it keeps its words (the others stay left out, as before). */
static void show_repeats(Strip *strip)
{
    for (int i = 0; i < strip->label_count; i++) {
        if (strip->label_repeats[i] < 2)
            continue;
        char words[64];
        snprintf(words, sizeof words, "%d\xC3\x97 %.40s", strip->label_repeats[i],
                 strip->label_texts[i]);
        ViewRect box = strip->labels[i];
        box.w += view_canvas_text_width(strip->canvas, VIEW_FONT_TINY, words) -
                 view_canvas_text_width(strip->canvas, VIEW_FONT_TINY, strip->label_texts[i]);
        ViewRect kept = strip->labels[i];
        strip->labels[i] = (ViewRect){0, 0, 0, 0}; /* not in its own way */
        bool fits = label_inside(strip, box) && label_free(strip, box);
        strip->labels[i] = fits ? box : kept;
        if (fits)
            snprintf(strip->label_texts[i], sizeof strip->label_texts[i], "%s", words);
    }
}

/* Places the labels asked for, once every arrow is drawn: each at its first spot inside the
 * strip that covers neither a label placed before it nor a line (an arrow, a service's
 * lifeline); else at its first spot that covers no label (its plate then hides the line
 * under its words); else its first spot moved inside the strip, so the label of an arrow
 * at the edge is not cut in half. Labels that fit nowhere are left out. The money goes
 * first: red labels (charged again, and how much) before the others. */
static void place_labels(Strip *strip)
{
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < strip->request_count; i++) {
            bool red = strip->requests[i].color == VIEW_COLOR_DOUBLE;
            if (red == (round == 0) && !place_label(strip, &strip->requests[i]))
                count_on_twin(strip, &strip->requests[i]);
        }
    }
    show_repeats(strip);
}

/* One spot, centred on y: for marks on a lane, whose neighbourhood is their own. */
static void label_beside(Strip *strip, float x, float y, ViewAlign align, ViewColor color,
                         const char *text)
{
    float h = (float)view_canvas_text_height(strip->canvas, VIEW_FONT_TINY);
    Spot spot = {x, y - h / 2, align};
    label(strip, &spot, 1, color, text);
}

static void draw_labels(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    for (int i = 0; i < strip->label_count; i++) {
        ViewRect box = strip->labels[i];
        if (strip->label_texts[i][0] == '\0')
            continue;
        view_canvas_round(canvas, box, px(strip, 3), view_canvas_color(VIEW_COLOR_PANEL, 230));
        view_canvas_text(canvas, VIEW_FONT_TINY, C(strip->label_colors[i]),
                         box.x + (int)px(strip, 2), box.y, VIEW_ALIGN_LEFT, strip->label_texts[i]);
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

static void offer(Strip *strip, const DiagramItem *arrow, ViewSegment segment)
{
    ViewSequencePick *pick = strip->pick;
    if (pick == NULL)
        return;
    segment.valid = true;
    if (arrow->serial == pick->pinned_serial)
        pick->pinned = segment;
    ViewDrawnItems *drawn = pick->drawn;
    if (drawn != NULL && drawn->count < VIEW_DRAWN_ITEMS_MAX &&
        view_layout_contains(strip->body, (int)((segment.x1 + segment.x2) / 2),
                             (int)((segment.y1 + segment.y2) / 2)))
        drawn->items[drawn->count++] =
            (ViewDrawnItem){pick->pane, arrow->serial, arrow->operation, segment};
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
        /* a squeezed band may hide hours (a run drained to a far clock): skip it whole */
        const ViewQuiet *quiet = view_timeline_quiet_at(strip->timeline, t);
        if (quiet != NULL) {
            t = (quiet->to_us / step) * step; /* the loop's step lands past the band */
            continue;
        }
        float y = y_of(strip, t);
        /* its label sits above the line: it may not fall in a squeezed band either */
        double label_top = ((double)y - h - strip->body.y) / strip->body.h;
        if ((label_top >= 0 &&
             view_timeline_quiet_at(strip->timeline,
                                    view_timeline_time_at(strip->timeline, label_top)) != NULL))
            continue;
        view_canvas_line(canvas, x0, y, x1, y, 1, C(VIEW_COLOR_GRID));
        if (y - (float)h < (float)strip->body.y)
            continue;
        char when[32];
        snprintf(when, sizeof when, step % 1000000 == 0 ? "%.0f s" : "%.1f s", (double)t / 1e6);
        view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_TEXT_DIM), (int)strip->time_x,
                         (int)y - h, VIEW_ALIGN_LEFT, when);
        reserve(strip, (ViewRect){(int)strip->time_x, (int)y - h,
                                  view_canvas_text_width(canvas, VIEW_FONT_TINY, when), h});
    }
}

/* A quiet stretch is drawn as a band with torn edges and says how long it lasted: the axis
 * is not to scale there, and the room must not read the squeezed gap as "right after". */
static void draw_quiet(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    const ViewTimeline *timeline = strip->timeline;
    float x0 = (float)strip->body.x, x1 = (float)(strip->body.x + strip->body.w);
    for (int q = 0; q < timeline->quiet_count; q++) {
        const ViewQuiet *quiet = &timeline->quiet[q];
        if (quiet->from_us >= strip->now_us)
            continue;
        float top = y_of(strip, quiet->from_us), bottom = y_of(strip, quiet->to_us);
        view_canvas_fill(canvas, (ViewRect){(int)x0, (int)top, (int)(x1 - x0), (int)(bottom - top)},
                         view_canvas_mix(VIEW_COLOR_PANEL, VIEW_COLOR_BACKGROUND, 0.7f));
        SDL_Color edge = view_canvas_color(VIEW_COLOR_TEXT_DIM, 160);
        view_canvas_dashed(canvas, x0, top, x1, top, px(strip, 1), px(strip, 5), edge);
        view_canvas_dashed(canvas, x0, bottom, x1, bottom, px(strip, 1), px(strip, 5), edge);
        char words[40];
        double seconds = (double)(quiet->to_us - quiet->from_us) / 1e6;
        if (seconds >= 2 * 86400)
            snprintf(words, sizeof words, "%.0f days quiet", seconds / 86400);
        else if (seconds >= 2 * 3600)
            snprintf(words, sizeof words, "%.0f h quiet", seconds / 3600);
        else
            snprintf(words, sizeof words, seconds >= 10 ? "%.0f s quiet" : "%.1f s quiet", seconds);
        float h = (float)view_canvas_text_height(canvas, VIEW_FONT_TINY);
        Spot spot = {(strip->first_service_x + strip->time_x) / 2, (top + bottom - h) / 2,
                     VIEW_ALIGN_CENTER};
        label(strip, &spot, 1, VIEW_COLOR_TEXT_DIM, words);
    }
}

/* ------------------------------------------------------------------ mechanisms */

/* Who did it: the node table's name ("checkout#2", "orders"), its kind's word when the node
 * has none. */
static const char *actor_name(const Strip *strip, const ViewMechanism *moment)
{
    const char *name =
        moment->node != TRACE_NO_NODE && moment->node < world_node_count(strip->pane->world)
            ? world_node_name(strip->pane->world, moment->node)
            : NULL;
    return name != NULL && name[0] != '\0' ? name : "service";
}

/* The words of a mechanism moment, and its colour: red where money or order is harmed,
 * amber where work comes back, dim for housekeeping. */
static ViewColor mechanism_words(const Strip *strip, const ViewMechanism *moment, char *text,
                                 size_t size)
{
    long long value = (long long)moment->value;
    unsigned repeats = moment->repeats;
    switch (moment->event) {
    case TRACE_CRASH:
        snprintf(text, size, "CRASH: %.40s down", actor_name(strip, moment));
        return VIEW_COLOR_DOUBLE;
    case TRACE_RESTART:
        snprintf(text, size, "%.40s restarted", actor_name(strip, moment));
        return VIEW_COLOR_TEXT_DIM;
    case TRACE_FAILOVER:
        snprintf(text, size, "key store failover: %lld rows lost", value);
        return VIEW_COLOR_DOUBLE;
    case TRACE_REBALANCE:
        snprintf(text, size, "rebalance: %lld replayed from the commit", value);
        return VIEW_COLOR_WARNING;
    case TRACE_OFFSET_COMMIT:
        view_mechanism_commit_words(strip->pane, moment, text, size);
        return VIEW_COLOR_TEXT_DIM;
    case TRACE_COMMIT_REFUSED:
        snprintf(text, size, "commit refused: old owner");
        return VIEW_COLOR_WARNING;
    case TRACE_CHANNEL_CLOSED:
        snprintf(text, size, "channel closed: %lld requeued", value);
        return VIEW_COLOR_WARNING;
    case TRACE_STALE_OVERWRITE:
        snprintf(text, size, repeats > 1 ? "%u stale overwrites" : "stale overwrite", repeats);
        return VIEW_COLOR_DOUBLE;
    case TRACE_DEAD_LETTER:
        snprintf(text, size, repeats > 1 ? "%u to the DLQ" : "to the DLQ", repeats);
        return VIEW_COLOR_DOUBLE;
    case TRACE_REDRIVE:
        snprintf(text, size, repeats > 1 ? "%u redriven from the DLQ" : "redriven from the DLQ",
                 repeats);
        return VIEW_COLOR_WARNING;
    case TRACE_STORE_DOWN: { /* C38: a server answers 503; a consumer has nobody to answer */
        const WorldNode *node = moment->node < world_node_count(strip->pane->world)
                                    ? world_node(strip->pane->world, moment->node)
                                    : NULL;
        const char *what = node != NULL && node->kind == NODE_CONSUMERS ? "handed back" : "refused";
        if (repeats > 1)
            snprintf(text, size, "%u %s: key store down", repeats, what);
        else
            snprintf(text, size, "%s: key store down", what);
        return VIEW_COLOR_WARNING;
    }
    default: /* a shed request (view_trace.c) */
        if (repeats > 1)
            snprintf(text, size, "%u shed: %lld", repeats, value);
        else
            snprintf(text, size, "shed: %lld", value);
        return VIEW_COLOR_WARNING;
    }
}

/* A line across every lane at the moment, its words at the right end (left when taken). */
static void draw_mechanism_line(Strip *strip, float y, ViewColor color, const char *text)
{
    float x0 = strip->time_x, x1 = (float)(strip->body.x + strip->body.w);
    view_canvas_dashed(strip->canvas, x0, y, x1, y, px(strip, 1.5f), px(strip, 4),
                       view_canvas_color(color, 200));
    float h = (float)view_canvas_text_height(strip->canvas, VIEW_FONT_TINY);
    Spot spots[] = {{x1 - px(strip, 4), y - h - px(strip, 1), VIEW_ALIGN_RIGHT},
                    {x1 - px(strip, 4), y + px(strip, 1), VIEW_ALIGN_RIGHT},
                    {x0 + px(strip, 4), y - h - px(strip, 1), VIEW_ALIGN_LEFT}};
    label(strip, spots, 3, color, text);
}

/* Outages are the scenario's own windows: a band over the time they cover (the network's,
 * then the first server's, then each called server's). */
static void draw_outages(Strip *strip)
{
    const Scenario *scenario = strip->pane->scenario;
    float x0 = strip->time_x, x1 = (float)(strip->body.x + strip->body.w);
    uint32_t servers = 1 + scenario->called_server_count;
    for (uint32_t o = 0; o < scenario->network.outage_count + servers; o++) {
        char words[LABEL_TEXT_MAX];
        double from_ms, to_ms;
        if (o < scenario->network.outage_count) {
            const OutageSpec *outage = &scenario->network.outages[o];
            from_ms = outage->from_ms;
            to_ms = outage->to_ms;
            if (outage->source[0] != '\0')
                snprintf(words, sizeof words, "outage %.24s\xE2\x86\x92%.24s", outage->source,
                         outage->target); /* ids are short; the label must fit its lane */
            else
                snprintf(words, sizeof words, "network outage");
        } else {
            uint32_t k = o - scenario->network.outage_count; /* 0: the clients' server */
            const ServerOutageSpec *outage =
                k == 0 ? &scenario->server.outage : &scenario->called_servers[k - 1].spec.outage;
            if (!outage->enabled)
                continue;
            from_ms = outage->from_ms;
            to_ms = outage->to_ms;
            if (k == 0)
                snprintf(words, sizeof words, "server outage");
            else
                snprintf(words, sizeof words, "%.24s outage", scenario->called_servers[k - 1].id);
        }
        SimTimeUs from_us = (SimTimeUs)(from_ms * 1000.0), to_us = (SimTimeUs)(to_ms * 1000.0);
        if (from_us >= strip->now_us || to_us <= strip->from_us)
            continue;
        float top = y_of(strip, from_us > strip->from_us ? from_us : strip->from_us);
        float bottom = y_of(strip, to_us);
        view_canvas_fill(strip->canvas,
                         (ViewRect){(int)x0, (int)top, (int)(x1 - x0),
                                    (int)(bottom - top) > 1 ? (int)(bottom - top) : 1},
                         view_canvas_color(VIEW_COLOR_WARNING, 28));
        draw_mechanism_line(strip, top, VIEW_COLOR_WARNING, words);
    }
}

static void draw_mechanisms(Strip *strip)
{
    draw_outages(strip);
    const ViewPane *pane = strip->pane;
    uint64_t count = pane->mechanism_count;
    uint64_t first = count > VIEW_MECHANISMS_MAX ? count - VIEW_MECHANISMS_MAX : 0;
    for (uint64_t i = count; i-- > first;) { /* newest first: its words win a crowded spot */
        const ViewMechanism *moment = &pane->mechanisms[i % VIEW_MECHANISMS_MAX];
        if (moment->t_us > strip->now_us)
            continue;
        if (moment->t_us < strip->from_us)
            break;
        char text[LABEL_TEXT_MAX];
        ViewColor color = mechanism_words(strip, moment, text, sizeof text);
        draw_mechanism_line(strip, y_of(strip, moment->t_us), color, text);
    }
}

static void draw_lifelines(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    float top = (float)strip->body.y, bottom = (float)(strip->body.y + strip->body.h);
    for (int node = 0; node < DIAGRAM_LANES_MAX; node++) {
        if (!drawn(strip, node))
            continue;
        bool service = !is_client(strip, node);
        if (service)
            keep_clear(strip, strip->node_x[node], top, strip->node_x[node], bottom);
        view_canvas_line(canvas, strip->node_x[node], top, strip->node_x[node], bottom,
                         px(strip, service ? 3 : 1.5f),
                         service ? view_canvas_color(VIEW_COLOR_TEXT_DIM, 150)
                                 : C(VIEW_COLOR_GRID));
    }
    view_canvas_line(canvas, (float)strip->body.x, bottom - 1,
                     (float)(strip->body.x + strip->body.w), bottom - 1, px(strip, 1.5f),
                     C(VIEW_COLOR_TEXT_DIM));
}

/* A service's (or the ledger's) name: the node table's. */
static const char *lane_name(const Strip *strip, int lane)
{
    return diagram_lane(strip->diagram, lane)->name;
}

/* Where the first service's name starts: a heading to its left must end before it. */
static float first_service_name_x(const Strip *strip)
{
    uint32_t lanes = diagram_lane_count(strip->diagram);
    for (uint32_t position = strip->pane->lane_count; position < lanes; position++) {
        int lane = diagram_lane_at(strip->diagram, position);
        if (drawn(strip, lane))
            return strip->node_x[lane] -
                   (float)view_canvas_text_width(strip->canvas, VIEW_FONT_SMALL,
                                                 lane_name(strip, lane)) /
                       2 -
                   px(strip, 8);
    }
    return (float)(strip->rect.x + strip->rect.w);
}

/* A client group's lanes side by side (choose_shown keeps them together), under its name;
 * or the lane the other sampled clients share, under the names of the groups that have no
 * lane of their own (none: it has no name, its clients' groups are named already). */
typedef struct {
    float left, right;
    char name[DIAGRAM_LANE_NAME_MAX];
} GroupRun;

#define GROUP_RUNS_MAX (VIEW_LANES_MAX + 1)

static int group_runs(const Strip *strip, GroupRun runs[GROUP_RUNS_MAX])
{
    const ViewPane *pane = strip->pane;
    bool alone = pane->scenario->client_group_count == 1;
    bool named[CLIENT_GROUPS_MAX] = {false};
    uint32_t previous = UINT32_MAX;
    int count = 0;
    for (int i = 0; i < strip->lanes_shown; i++) {
        uint32_t group = pane->lanes[strip->shown[i]].group;
        float x = strip->node_x[strip->shown[i]];
        if (group == previous) {
            runs[count - 1].right = x + strip->lane_w / 2;
            continue;
        }
        previous = group;
        named[group] = true;
        runs[count] = (GroupRun){.left = x - strip->lane_w / 2, .right = x + strip->lane_w / 2};
        snprintf(runs[count].name, sizeof runs[count].name, "%s",
                 alone ? "clients" : pane->scenario->client_groups[group].id);
        count++;
    }
    if (!strip->grouped)
        return count;
    GroupRun others = {.left = strip->grouped_x - strip->lane_w / 2,
                       .right = strip->grouped_x + strip->lane_w / 2};
    size_t used = 0;
    for (uint32_t l = 0; l < pane->lane_count; l++) {
        uint32_t group = pane->lanes[l].group;
        if (named[group])
            continue;
        named[group] = true;
        int written = snprintf(others.name + used, sizeof others.name - used, "%s%s",
                               used > 0 ? ", " : "", pane->scenario->client_groups[group].id);
        used += written > 0 ? (size_t)written : 0;
        if (used >= sizeof others.name)
            break; /* cut: the heading is shortened anyway */
    }
    if (used > 0)
        runs[count++] = others;
    return count;
}

/* The fewest characters of a group's name that still say which group it is. */
#define GROUP_NAME_CHARS_MIN 3

static size_t characters(const char *text, size_t bytes)
{
    size_t count = 0;
    for (size_t i = 0; i < bytes && text[i] != '\0'; i++)
        count += ((unsigned char)text[i] & 0xC0) != 0x80;
    return count;
}

/* name shortened with an ellipsis to fit max_w in font, down to its first character (which
 * may then overrun max_w); returns how many characters of the name it keeps. */
static size_t shortened_name(ViewCanvas *canvas, ViewFont font, const char *name, int max_w,
                             char text[DIAGRAM_LANE_NAME_MAX + 4])
{
    size_t length = strnlen(name, DIAGRAM_LANE_NAME_MAX - 1);
    size_t first = 1; /* the first character's bytes */
    while (first < length && ((unsigned char)name[first] & 0xC0) == 0x80)
        first++;
    memcpy(text, name, length);
    while (length > first) {
        length--;
        while (length > first && ((unsigned char)name[length] & 0xC0) == 0x80)
            length--;
        memcpy(text + length, "\xE2\x80\xA6", 4); /* U+2026 and the terminator */
        if (view_canvas_text_width(canvas, font, text) <= max_w)
            return characters(text, length);
    }
    memcpy(text + first, "\xE2\x80\xA6", 4);
    return 1;
}

/* A group's name in max_w: whole in the small type, else whole in the tiny one, else
 * shortened with an ellipsis in the type that keeps more of it (the tiny one is the larger
 * on a projector), down to its first character: never nothing, as a lane without its
 * group's name cannot be told from the next group's. small_allowed false: the tiny type
 * only. Fills font and text and returns how many characters of the name are kept. */
static size_t group_name_fit(ViewCanvas *canvas, const char *name, int max_w, bool small_allowed,
                             ViewFont *font, char text[DIAGRAM_LANE_NAME_MAX + 4])
{
    size_t length = strnlen(name, DIAGRAM_LANE_NAME_MAX - 1);
    memcpy(text, name, length);
    text[length] = '\0';
    *font = VIEW_FONT_SMALL;
    if (small_allowed && view_canvas_text_width(canvas, *font, text) <= max_w)
        return characters(text, length);
    *font = VIEW_FONT_TINY;
    if (view_canvas_text_width(canvas, *font, text) <= max_w)
        return characters(text, length);
    char tiny[DIAGRAM_LANE_NAME_MAX + 4];
    size_t tiny_kept = shortened_name(canvas, VIEW_FONT_TINY, name, max_w, tiny);
    size_t small_kept =
        small_allowed ? shortened_name(canvas, VIEW_FONT_SMALL, name, max_w, text) : 0;
    if (small_kept >= tiny_kept) {
        *font = VIEW_FONT_SMALL;
        return small_kept;
    }
    memcpy(text, tiny, strlen(tiny) + 1);
    return tiny_kept;
}

/* The width a run's name may take on one row: its lanes short of a gap before the next name,
 * and for the last group the network up to the first service's name. */
static float group_name_room(const Strip *strip, const GroupRun *runs, int count, int r)
{
    if (r < count - 1)
        return runs[r].right - runs[r].left - px(strip, 3);
    float names_end = first_service_name_x(strip);
    return (names_end > runs[r].right ? names_end : runs[r].right) - runs[r].left;
}

/* Whether some group's name, on the one row of names, keeps too little of itself to be read:
 * then the names take turns between two rows (staggered), each with the room of two groups. */
static bool groups_crowded(Strip *strip)
{
    GroupRun runs[GROUP_RUNS_MAX];
    int count = group_runs(strip, runs);
    for (int r = 0; r < count; r++) {
        ViewFont font;
        char text[DIAGRAM_LANE_NAME_MAX + 4];
        size_t whole = characters(runs[r].name, strlen(runs[r].name));
        size_t kept =
            group_name_fit(strip->canvas, runs[r].name, (int)group_name_room(strip, runs, count, r),
                           true, &font, text);
        if (kept < (whole < GROUP_NAME_CHARS_MIN ? whole : GROUP_NAME_CHARS_MIN))
            return true;
    }
    return false;
}

/* Each group's name over its lanes, each client's index under it. On one row a name has its
 * own lanes (the last group's runs on over the network: its own heading is on the line
 * below); staggered, the names take turns between two rows, so each may run on over the
 * next group's lanes up to the next name on its row, in the tiny type of the second row, and
 * the clients' numbers go on a third row. */
static void draw_group_headings(Strip *strip, int y, int y2, int y3)
{
    ViewCanvas *canvas = strip->canvas;
    const ViewPane *pane = strip->pane;
    SDL_Color dim = C(VIEW_COLOR_TEXT_DIM);
    int index_y = strip->staggered ? y3 : y2;
    for (int i = 0; i < strip->lanes_shown; i++) {
        char index[16];
        snprintf(index, sizeof index, "%u", pane->lanes[strip->shown[i]].client_in_group);
        view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)strip->node_x[strip->shown[i]], index_y,
                         VIEW_ALIGN_CENTER, index);
    }
    GroupRun runs[GROUP_RUNS_MAX];
    int count = group_runs(strip, runs);
    float names_end = first_service_name_x(strip);
    for (int r = 0; r < count; r++) {
        float room = group_name_room(strip, runs, count, r);
        int row_y = y;
        if (strip->staggered) {
            float next = r + 2 < count ? runs[r + 2].left - px(strip, 3) : names_end;
            room = (next > runs[r].right ? next : runs[r].right) - runs[r].left;
            row_y = r % 2 == 0 ? y : y2;
        }
        ViewFont font;
        char text[DIAGRAM_LANE_NAME_MAX + 4];
        group_name_fit(canvas, runs[r].name, (int)room, !strip->staggered, &font, text);
        int dy = row_y == y ? (view_canvas_text_height(canvas, VIEW_FONT_SMALL) -
                               view_canvas_text_height(canvas, font)) /
                                  2
                            : 0;
        dy = dy > 0 ? dy : 0;
        view_canvas_text(canvas, font, dim, (int)runs[r].left, row_y + dy, VIEW_ALIGN_LEFT, text);
    }
    if (strip->grouped) { /* how many sampled clients share the last lane */
        char others[16];
        snprintf(others, sizeof others, "+%d", strip->grouped_count);
        view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)strip->grouped_x, index_y,
                         VIEW_ALIGN_CENTER, others);
    }
}

/* The headings over the lanes: two rows of type. A name goes on the first row where it
 * covers no other word, centred over its lane or a little to one side, so the names of a
 * long graph with narrow gaps take turns between the rows; where neither is free it is
 * shortened to its gap. */
#define HEADINGS_MAX (2 * DIAGRAM_LANES_MAX + 4)

typedef struct {
    int y[2];
    int count;
    ViewRect boxes[HEADINGS_MAX];
} Headings;

static bool heading_free(const Headings *headings, ViewRect box)
{
    for (int i = 0; i < headings->count; i++) {
        if (overlaps(box, headings->boxes[i]))
            return false;
    }
    return true;
}

static void heading_taken(Headings *headings, ViewRect box)
{
    if (headings->count < HEADINGS_MAX)
        headings->boxes[headings->count++] = box;
}

/* Words centred on x on the first free row from `row`; shortened to max_w on that row when
 * neither is free, and left out when even that would cover another word. */
static void heading_text(Strip *strip, Headings *headings, ViewFont font, float x, int row,
                         int max_w, const char *text)
{
    ViewCanvas *canvas = strip->canvas;
    SDL_Color dim = C(VIEW_COLOR_TEXT_DIM);
    int w = view_canvas_text_width(canvas, font, text);
    int h = view_canvas_text_height(canvas, font);
    int gap = (int)px(strip, 3);
    /* off centre by a quarter of its width at most: its lane stays under it */
    int shifts[] = {0, w / 4, -w / 4};
    for (int r = row; r < 2; r++) {
        for (int i = 0; i < 3; i++) {
            int centre = (int)x + shifts[i];
            ViewRect box = {centre - w / 2 - gap, headings->y[r], w + 2 * gap, h};
            if (heading_free(headings, box)) {
                view_canvas_text(canvas, font, dim, centre, headings->y[r], VIEW_ALIGN_CENTER,
                                 text);
                heading_taken(headings, box);
                return;
            }
        }
    }
    int fit = w < max_w ? w : max_w;
    ViewRect box = {(int)x - fit / 2 - gap, headings->y[row], fit + 2 * gap, h};
    if (fit > 0 && heading_free(headings, box)) {
        view_canvas_text_fit(canvas, font, dim, (int)x, headings->y[row], VIEW_ALIGN_CENTER, fit,
                             text);
        heading_taken(headings, box);
        return;
    }
    /* whole in the tiny type, its lane under its first or last letter (a consumer group
     * beside a long broker name), on the first row where that covers no other word */
    int tiny_w = view_canvas_text_width(canvas, VIEW_FONT_TINY, text);
    int tiny_h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    int sides[] = {tiny_w / 2 - gap, -(tiny_w / 2 - gap)};
    for (int r = row; r < 2 && font != VIEW_FONT_TINY; r++) {
        for (int i = 0; i < 2; i++) {
            int centre = (int)x + sides[i];
            ViewRect small = {centre - tiny_w / 2 - gap, headings->y[r], tiny_w + 2 * gap, tiny_h};
            if (!heading_free(headings, small))
                continue;
            view_canvas_text(canvas, VIEW_FONT_TINY, dim, centre, headings->y[r], VIEW_ALIGN_CENTER,
                             text);
            heading_taken(headings, small);
            return;
        }
    }
    /* left out rather than drawn over another (eight instances in a column) */
}

/* Where the lane at a position is drawn, or -1 when it is not (or there is none). */
static float lane_x_at(const Strip *strip, uint32_t position)
{
    if (position >= diagram_lane_count(strip->diagram))
        return -1;
    int lane = diagram_lane_at(strip->diagram, position);
    return drawn(strip, lane) ? strip->node_x[lane] : -1;
}

/* Each service's name over its lane; a service of several instances ("checkout#1",
 * "checkout#2", side by side) has its name once over them all and each instance's marker
 * ("#2") under its own lane. The markers go first: they have no other place. */
static void draw_service_headings(Strip *strip, Headings *headings)
{
    uint32_t lanes = diagram_lane_count(strip->diagram);
    uint32_t first = strip->pane->lane_count;
    for (uint32_t position = first; position < lanes; position++) {
        int lane = diagram_lane_at(strip->diagram, position);
        const char *marker = strchr(lane_name(strip, lane), '#');
        if (drawn(strip, lane) && marker != NULL)
            heading_text(strip, headings, VIEW_FONT_TINY, strip->node_x[lane], 1,
                         (int)px(strip, 40), marker);
    }
    for (uint32_t position = first; position < lanes; position++) {
        int lane = diagram_lane_at(strip->diagram, position);
        if (!drawn(strip, lane) || is_client(strip, lane))
            continue;
        const char *name = lane_name(strip, lane);
        const char *marker = strchr(name, '#');
        int length = marker != NULL ? (int)(marker - name) : (int)strlen(name);
        int previous =
            position > first ? diagram_lane_at(strip->diagram, position - 1) : DIAGRAM_NO_LANE;
        if (marker != NULL && previous != DIAGRAM_NO_LANE &&
            strncmp(lane_name(strip, previous), name, (size_t)length + 1) == 0)
            continue; /* named over the first instance's run */
        uint32_t last = position;
        while (marker != NULL && last + 1 < lanes && lane_x_at(strip, last + 1) >= 0 &&
               strncmp(lane_name(strip, diagram_lane_at(strip->diagram, last + 1)), name,
                       (size_t)length + 1) == 0)
            last++;
        float x = (strip->node_x[lane] + lane_x_at(strip, last)) / 2;
        float left = lane_x_at(strip, position - 1 >= first ? position - 1 : lanes);
        float right = lane_x_at(strip, last + 1);
        float span = lane_x_at(strip, last) - strip->node_x[lane];
        float room = fminf(left >= 0 ? strip->node_x[lane] - left : span + px(strip, 78),
                           right >= 0 ? right - lane_x_at(strip, last) : span + px(strip, 78));
        char service[DIAGRAM_LANE_NAME_MAX];
        snprintf(service, sizeof service, "%.*s", length, name);
        heading_text(strip, headings, VIEW_FONT_SMALL, x, 0, (int)(span + room - px(strip, 6)),
                     service);
    }
}

static void draw_headings(Strip *strip)
{
    ViewCanvas *canvas = strip->canvas;
    const ViewPane *pane = strip->pane;
    SDL_Color dim = C(VIEW_COLOR_TEXT_DIM);
    int y = strip->rect.y + (int)px(strip, 2);
    int small = view_canvas_text_height(canvas, VIEW_FONT_SMALL);
    int tiny = view_canvas_text_height(canvas, VIEW_FONT_TINY);
    int y2 = y + small;
    /* staggered: the groups' second row of names under the taller of the two types, then
     * the clients' numbers (header_height) */
    int names_y2 = y + (small > tiny ? small : tiny);
    int y3 = names_y2 + tiny;
    int numbers_y = strip->staggered ? y3 : y2; /* the clients' row, where "network" goes */
    Headings headings = {.y = {y, y2}};
    if (strip->lanes_shown > 0) {
        float last =
            strip->grouped ? strip->grouped_x : strip->node_x[strip->shown[strip->lanes_shown - 1]];
        const char *network = "network";
        int w = view_canvas_text_width(canvas, VIEW_FONT_TINY, network);
        /* between the clients' numbers and the first service, said only where it fits */
        float left = fmaxf((last + strip->first_service_x - (float)w) / 2, last + px(strip, 16));
        ViewRect box = {(int)left, numbers_y, w, view_canvas_text_height(canvas, VIEW_FONT_TINY)};
        if (left + (float)w < strip->first_service_x - px(strip, 4)) {
            view_canvas_text(canvas, VIEW_FONT_TINY, dim, box.x, numbers_y, VIEW_ALIGN_LEFT,
                             network);
            if (!strip->staggered) /* on the third row no service heading comes near it */
                heading_taken(&headings, box);
        }
    }
    draw_service_headings(strip, &headings);
    if (strip->lanes_shown > 0)
        draw_group_headings(strip, y, strip->staggered ? names_y2 : y2, y3);
    if (strip->density_x1 > strip->density_x0) {
        char count[32];
        snprintf(count, sizeof count, "%llu", (unsigned long long)pane->clients_total);
        view_canvas_text(canvas, VIEW_FONT_SMALL, dim, (int)strip->density_x0, y, VIEW_ALIGN_LEFT,
                         "all");
        view_canvas_text(canvas, VIEW_FONT_TINY, dim, (int)strip->density_x0, numbers_y,
                         VIEW_ALIGN_LEFT, count);
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
        double bottom = (double)(strip->body.h - b * band) / strip->body.h;
        double top = (double)(strip->body.h - (b + 1) * band) / strip->body.h;
        SimTimeUs to = view_timeline_time_at(strip->timeline, bottom);
        SimTimeUs from = view_timeline_time_at(strip->timeline, top);
        to = to < strip->now_us ? to : strip->now_us;
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

static SDL_Color message_color(const Strip *strip, const DiagramItem *arrow)
{
    NodeKind from_kind = diagram_lane(strip->diagram, arrow->from)->kind;
    if (arrow->end_event == TRACE_LOST)
        return C(VIEW_COLOR_LOST);
    switch ((MessageKind)arrow->message) {
    case MESSAGE_REQUEST:
    case MESSAGE_DELIVERY:
    case MESSAGE_CHARGE:
    case MESSAGE_REFUND:
        if (arrow->event == TRACE_EXECUTE && arrow->effects >= 2)
            return C(VIEW_COLOR_DOUBLE);
        if (arrow->attempt > 1 || diagram_repeat_number(arrow, from_kind) > 1)
            return C(VIEW_COLOR_WARNING);
        return C(VIEW_COLOR_MESSAGE);
    case MESSAGE_ACK:
        return view_canvas_color(VIEW_COLOR_TEXT_DIM, 200);
    default:
        break;
    }
    if (arrow->event == TRACE_REPLAY)
        return C(VIEW_COLOR_OK);
    if (arrow->event == TRACE_IN_PROGRESS || arrow->event == TRACE_REJECT_OTHER_BODY ||
        arrow->value >= 300 || arrow->value == 202)
        return C(VIEW_COLOR_WARNING);
    return C(VIEW_COLOR_RESPONSE);
}

/* A message's label sits just above where it leaves its lifeline, on the side it heads to,
 * clear of its own line (which only goes down from there). When that point has scrolled
 * out of the top, the label moves down along the arrow to where it enters the strip. */
static void message_label(Strip *strip, const DiagramItem *arrow, float x0, float y0, float xe,
                          float ye)
{
    char text[32];
    DiagramOperationWords words = {.scheduled = scenario_uses_schedule(strip->pane->scenario)};
    if (!diagram_message_tag(arrow, diagram_lane(strip->diagram, arrow->from)->kind, words, text,
                             sizeof text))
        return;
    bool rightwards = strip->node_x[arrow->to] > x0;
    float h = (float)view_canvas_text_height(strip->canvas, VIEW_FONT_TINY);
    float lift = h + strip->stroke + px(strip, 1);
    float x = x0, y = y0;
    float top = (float)strip->body.y + lift;
    if (y < top && ye > top) {
        x = x0 + (xe - x0) * (top - y0) / (ye - y0);
        y = top;
    }
    float side = px(strip, rightwards ? 6 : -6);
    ViewAlign align = rightwards ? VIEW_ALIGN_LEFT : VIEW_ALIGN_RIGHT;
    Spot spot = {x + side, y - lift, align}; /* above its own line: which label is whose */
    label(strip, &spot, 1, VIEW_COLOR_WARNING, text);
}

static void draw_message(Strip *strip, const DiagramItem *arrow)
{
    ViewCanvas *canvas = strip->canvas;
    float x0 = strip->node_x[arrow->from], x1 = strip->node_x[arrow->to];
    float y0 = y_of(strip, arrow->start_us);
    SimTimeUs delay = link_delay(strip, arrow->from, arrow->to);
    bool lost = arrow->end_event == TRACE_LOST;
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
    SDL_Color color = message_color(strip, arrow);
    float width = arrow->message == MESSAGE_ACK ? strip->stroke * 0.6f
                  : arrow->message == MESSAGE_RESPONSE || arrow->message == MESSAGE_CHARGE_REPLY
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
    keep_clear(strip, x0, y0, xe, ye);
    message_label(strip, arrow, x0, y0, xe, ye);
    offer(strip, arrow, (ViewSegment){true, x0, y0, xe, ye});
}

static void draw_activation(Strip *strip, const DiagramItem *arrow)
{
    float x = strip->node_x[arrow->from];
    SimTimeUs end = arrow->end_us != SIM_TIME_NEVER ? arrow->end_us : strip->now_us;
    float top = y_of(strip, arrow->start_us), bottom = y_of(strip, end);
    float half = px(strip, 3);
    ViewColor color = arrow->event == TRACE_EXECUTE && arrow->effects >= 2 ? VIEW_COLOR_DOUBLE
                                                                           : VIEW_COLOR_MESSAGE;
    ViewRect box = {(int)(x - half), (int)top, (int)(2 * half), (int)fmaxf(bottom - top, 2)};
    view_canvas_fill(strip->canvas, box, view_canvas_color(color, 70));
    view_canvas_outline(strip->canvas, box, 1, view_canvas_color(color, 160));
    offer(strip, arrow, (ViewSegment){true, x, top, x, bottom});
}

/* ------------------------------------------------------------------ marks */

static void ledger_entry(Strip *strip, const DiagramItem *mark, float y)
{
    const ViewPane *pane = strip->pane;
    OperationView view;
    int64_t amount = world_operation_view(pane->world, mark->operation, &view)
                         ? pane->group_amount[view.group]
                         : 0;
    bool again = mark->effects >= 2;
    ViewColor color = again ? VIEW_COLOR_DOUBLE : VIEW_COLOR_OK;
    float ledger = strip->node_x[diagram_ledger(strip->diagram)];
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
    /* Below the line first: above it, between the service and the ledger, is where the
     * service's own decision ("charge x2") goes. */
    float h = (float)view_canvas_text_height(strip->canvas, VIEW_FONT_TINY);
    float side = ledger - px(strip, 9);
    Spot spots[] = {{side, y + px(strip, 3), VIEW_ALIGN_RIGHT},
                    {side, y - h - px(strip, 3), VIEW_ALIGN_RIGHT}};
    label(strip, spots, 2, color, text);
}

/* A service's decision beside its lifeline, never on it. To the right first, where no
 * request comes in (requests arrive from the left, answers leave to the left), above the
 * moment, then below it; to the left only when no arrow passes there, well above the
 * moment: that is where the request that led to it ends in an arrowhead (an execution is
 * marked when its service time is over, below the request's arrival). */
static void decision_label(Strip *strip, float x, float y, ViewColor color, const char *words)
{
    float h = (float)view_canvas_text_height(strip->canvas, VIEW_FONT_TINY);
    float side = px(strip, 7);
    Spot spots[] = {{x + side, y - h - px(strip, 2), VIEW_ALIGN_LEFT},
                    {x + side, y + px(strip, 3), VIEW_ALIGN_LEFT},
                    {x - side - px(strip, 4), y - h - px(strip, 6), VIEW_ALIGN_RIGHT}};
    label(strip, spots, 3, color, words);
}

/* The view's colour for a word's tone. */
static ViewColor tone_color(DiagramTone tone)
{
    switch (tone) {
    case DIAGRAM_TONE_DIM:
    case DIAGRAM_TONE_PLAIN:
    case DIAGRAM_TONE_STORE:
    case DIAGRAM_TONE_WORK:
        return VIEW_COLOR_TEXT_DIM;
    case DIAGRAM_TONE_GOOD:
        return VIEW_COLOR_OK;
    case DIAGRAM_TONE_DOUBLE:
        return VIEW_COLOR_DOUBLE;
    case DIAGRAM_TONE_LOST:
        return VIEW_COLOR_LOST;
    case DIAGRAM_TONE_WARN:
    case DIAGRAM_TONE_BAD:
    case DIAGRAM_TONE_CRASH:
        break;
    }
    return VIEW_COLOR_WARNING;
}

static void draw_service_mark(Strip *strip, const DiagramItem *mark)
{
    float x = strip->node_x[mark->from], y = y_of(strip, mark->start_us);
    if (mark->event == TRACE_CRASH)
        view_canvas_cross(strip->canvas, x, y, px(strip, 7), px(strip, 3), C(VIEW_COLOR_WARNING));
    char buffer[32];
    DiagramTone tone;
    if (mark->event == TRACE_EXECUTE)
        ledger_entry(strip, mark, y); /* the money first, when labels crowd */
    /* the lane's words: an order API's failure says what went out, not "after charge" */
    DiagramOperationWords lane_words =
        diagram_lane_words(strip->pane->scenario, diagram_lane(strip->diagram, mark->from),
                           (DiagramOperationWords){0});
    const char *words = diagram_mark_word(mark, lane_words, buffer, sizeof buffer, &tone);
    OperationView view;
    if (mark->event == TRACE_EXECUTE && words != NULL &&
        world_operation_view(strip->pane->world, mark->operation, &view) &&
        strip->pane->scenario->client_groups[view.group].operation.kind != OPERATION_DEBIT) {
        /* only a payment is a charge: a status written again, an insert run again */
        bool status =
            strip->pane->scenario->client_groups[view.group].operation.kind == OPERATION_SET_STATUS;
        snprintf(buffer, sizeof buffer, "%s x%u", status ? "write" : "run", mark->effects);
        words = buffer;
    }
    if (words != NULL)
        decision_label(strip, x, y, tone_color(tone), words);
    offer(strip, mark, (ViewSegment){true, x, y, x, y});
}

static void draw_client_mark(Strip *strip, const DiagramItem *mark)
{
    ViewCanvas *canvas = strip->canvas;
    float x = strip->node_x[mark->from], y = y_of(strip, mark->start_us);
    float r = px(strip, 4.5f);
    char buffer[32];
    DiagramTone tone;
    const char *word =
        diagram_mark_word(mark, (DiagramOperationWords){0}, buffer, sizeof buffer, &tone);
    switch ((TraceEvent)mark->event) {
    case TRACE_TIMEOUT:
        view_canvas_fill(
            canvas,
            (ViewRect){(int)(x - r * 1.6f), (int)(y - r / 2), (int)(r * 3.2f), (int)fmaxf(r, 2)},
            C(VIEW_COLOR_WARNING));
        label_beside(strip, x + r * 2, y, VIEW_ALIGN_LEFT, tone_color(tone), word);
        break;
    case TRACE_GIVE_UP: {
        view_canvas_circle(canvas, x, y, r * 1.3f, C(VIEW_COLOR_WARNING));
        int w = view_canvas_text_width(canvas, VIEW_FONT_TINY, "?");
        int h = view_canvas_text_height(canvas, VIEW_FONT_TINY);
        ViewRect glyph = {(int)x - w / 2, (int)(y - (float)h / 2), w, h};
        if (label_free(strip, glyph)) { /* clients sharing the grouped lane give up at once */
            view_canvas_text(canvas, VIEW_FONT_TINY, C(VIEW_COLOR_BACKGROUND), (int)x, glyph.y,
                             VIEW_ALIGN_CENTER, "?");
            reserve(strip, glyph);
        }
        label_beside(strip, x + r * 2, y, VIEW_ALIGN_LEFT, tone_color(tone), word);
        break;
    }
    case TRACE_SUCCEEDED:
        view_canvas_circle(canvas, x, y, r, C(VIEW_COLOR_OK));
        break;
    case TRACE_FAILED:
        view_canvas_cross(canvas, x, y, r, px(strip, 2), C(VIEW_COLOR_WARNING));
        break;
    case TRACE_OFFLINE: {
        float end = y_of(strip, mark->start_us + (SimTimeUs)mark->value * 1000);
        view_canvas_fill(canvas, (ViewRect){(int)(x - r / 4), (int)y, (int)(r / 2), (int)(end - y)},
                         view_canvas_color(VIEW_COLOR_LOST, 140));
        label_beside(strip, x + r, y + px(strip, 6), VIEW_ALIGN_LEFT, tone_color(tone), word);
        break;
    }
    case TRACE_LOST_OFFLINE:
        view_canvas_cross(canvas, x, y, r * 0.8f, px(strip, 2), C(VIEW_COLOR_DOUBLE));
        break;
    default:
        view_canvas_circle(canvas, x, y, r * 0.7f, C(VIEW_COLOR_LOST));
        break;
    }
    offer(strip, mark, (ViewSegment){true, x, y, x, y});
}

static ViewColor span_color(const DiagramItem *span)
{
    switch ((DiagramSpanKind)span->detail) {
    case DIAGRAM_SPAN_KEY_RESERVED:
        return VIEW_COLOR_WARNING;
    case DIAGRAM_SPAN_KEY_STORED:
        return VIEW_COLOR_OK;
    case DIAGRAM_SPAN_ACK_TIMER:
        return VIEW_COLOR_MESSAGE;
    case DIAGRAM_SPAN_DEDUP_WINDOW:
        break;
    }
    return VIEW_COLOR_TEXT_DIM;
}

/* A window of time on a service (a key's reservation or stored life, a delivery's ack timer,
 * a message id's dedup window): a thin bar right of the lifeline, named where it starts,
 * capped where it ends, so a retry landing below the cap is seen to come too late. Bars of
 * one kind share a column beside the lifeline, the kinds side by side; a bar of an operation
 * whose other bar of that kind is still open (its slot: a fanout's two copies' ack timers)
 * stands further right, past the kinds' columns. */
static void draw_span(Strip *strip, const DiagramItem *span)
{
    float x =
        strip->node_x[span->from] + px(strip, 8 + 5 * (float)span->detail + 10 * (float)span->slot);
    SimTimeUs end = span->end_us != SIM_TIME_NEVER && span->end_us < strip->now_us ? span->end_us
                                                                                   : strip->now_us;
    float top = y_of(strip, span->start_us), bottom = y_of(strip, end);
    SDL_Color color = view_canvas_color(span_color(span), 150);
    view_canvas_line(strip->canvas, x, top, x, bottom, px(strip, 2.5f), color);
    if (span->end_us != SIM_TIME_NEVER && span->end_us <= strip->now_us)
        view_canvas_line(strip->canvas, x - px(strip, 4), bottom, x + px(strip, 4), bottom,
                         px(strip, 2), color);
    if (span->start_us >= strip->from_us) {
        char words[48];
        diagram_span_label(span, words, sizeof words);
        label_beside(strip, x + px(strip, 4), top + px(strip, 8), VIEW_ALIGN_LEFT, span_color(span),
                     words);
    }
}

static bool visible(const Strip *strip, const DiagramItem *arrow)
{
    if (arrow->kind == DIAGRAM_SPAN)
        return drawn(strip, arrow->from) && arrow->start_us <= strip->now_us &&
               (arrow->end_us == SIM_TIME_NEVER || arrow->end_us + 1 >= strip->from_us);
    if (!drawn(strip, arrow->from) || !drawn(strip, arrow->to) || arrow->start_us > strip->now_us)
        return false;
    SimTimeUs end = arrow->end_us != SIM_TIME_NEVER ? arrow->end_us : strip->now_us;
    if (arrow->kind == DIAGRAM_MARK)
        end = arrow->event == TRACE_OFFLINE ? arrow->start_us + (SimTimeUs)arrow->value * 1000
                                            : arrow->start_us;
    if (arrow->end_event == TRACE_LOST)
        end = arrow->start_us + strip->pane->delay_us[arrow->from][arrow->to];
    return end + 1 >= strip->from_us;
}

/* A client's click and retry are drawn by the request they send; a timeout the give-up at
 * the same instant says better is left to it. */
static bool mark_drawn(const DiagramItem *mark)
{
    return mark->event != TRACE_SEND && mark->event != TRACE_RETRY && !mark->superseded;
}

static void draw_arrows(Strip *strip)
{
    const ViewPane *pane = strip->pane;
    for (int pass = 0; pass < 3; pass++) { /* boxes, then arrows, then marks on top */
        for (uint64_t serial = view_pane_first_serial(pane); serial < view_pane_next_serial(pane);
             serial++) {
            const DiagramItem *arrow = view_pane_arrow(pane, serial);
            bool in_pass = pass == 0
                               ? arrow->kind == DIAGRAM_ACTIVATION || arrow->kind == DIAGRAM_SPAN
                               : arrow->kind == (pass == 1 ? DIAGRAM_MESSAGE : DIAGRAM_MARK);
            if (!in_pass || !visible(strip, arrow))
                continue;
            if (arrow->kind == DIAGRAM_SPAN)
                draw_span(strip, arrow);
            else if (pass == 0)
                draw_activation(strip, arrow);
            else if (pass == 1)
                draw_message(strip, arrow);
            else if (!is_client(strip, arrow->from))
                draw_service_mark(strip, arrow);
            else if (mark_drawn(arrow))
                draw_client_mark(strip, arrow);
        }
    }
}

/* ------------------------------------------------------------------ the strip */

/* A strip of pane's diagram in rect at clock_us: what the layout and the drawing share. */
static Strip strip_of(ViewCanvas *canvas, const ViewLayout *layout, ViewRect rect,
                      const ViewPane *pane, const ViewTimeline *timeline, SimTimeUs clock_us)
{
    return (Strip){.canvas = canvas,
                   .layout = layout,
                   .pane = pane,
                   .diagram = pane->diagram,
                   .rect = rect,
                   .timeline = timeline,
                   .now_us = clock_us < timeline->to_us ? clock_us : timeline->to_us,
                   .from_us = timeline->from_us,
                   .window_us = timeline->drawn_us};
}

bool view_sequence_crowded(ViewCanvas *canvas, const ViewLayout *layout, ViewRect rect,
                           const ViewPane *pane, const ViewTimeline *timeline, SimTimeUs clock_us)
{
    if (rect.w <= 0 || rect.h <= 0)
        return false;
    Strip strip = strip_of(canvas, layout, rect, pane, timeline, clock_us);
    place_lanes(&strip);
    return groups_crowded(&strip);
}

void view_sequence_draw(ViewCanvas *canvas, const ViewLayout *layout, ViewRect rect,
                        const ViewPane *pane, const ViewTimeline *timeline, SimTimeUs clock_us,
                        bool staggered, ViewSequencePick *pick)
{
    if (rect.w <= 0 || rect.h <= 0)
        return;
    Strip strip = strip_of(canvas, layout, rect, pane, timeline, clock_us);
    strip.staggered = staggered;
    strip.pick = pick;
    strip.stroke = px(&strip, 2.2f);
    place_lanes(&strip);
    view_canvas_round(canvas, rect, px(&strip, 6), C(VIEW_COLOR_PANEL));
    draw_headings(&strip);
    view_canvas_flush(canvas);
    SDL_Rect clip = {strip.body.x, strip.body.y, strip.body.w, strip.body.h};
    SDL_RenderSetClipRect(canvas->renderer, &clip);
    draw_grid(&strip);
    draw_quiet(&strip);
    draw_mechanisms(&strip);
    draw_lifelines(&strip);
    draw_density(&strip);
    draw_arrows(&strip);
    place_labels(&strip);
    draw_labels(&strip);
    view_canvas_flush(canvas);
    SDL_RenderSetClipRect(canvas->renderer, NULL);
}
