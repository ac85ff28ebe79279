/* The sequence diagram (report_svg.h). Time flows down; the vertical scale is compressed
 * (each record gets its own row, a gap grows with the logarithm of the time between rows,
 * long silences are drawn as breaks), so a 40 ms round trip and a 2-minute offline period
 * both fit on a page while the order of events stays exact. A message is drawn from its
 * "transmit" (or "lost") record to its "deliver" record: they pair up by operation, click,
 * attempt, copy lineage, kind and both ends, the oldest transmit first. */
#include "report_svg.h"
#include "diagram.h"
#include "xml_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS_MAX 4000
#define RECORDS_CRASHED_MAX 64 /* crashed nodes awaiting their restart */

#define MINUS_SIGN "\xe2\x88\x92"  /* − */
#define ELLIPSIS "\xe2\x80\xa6"    /* … */
#define OPEN_QUOTE "\xe2\x80\x9c"  /* “ */
#define CLOSE_QUOTE "\xe2\x80\x9d" /* ” */
#define ARROW_RIGHT "\xe2\x86\x92" /* → */

/* Geometry, in px. */
#define MARGIN_LEFT 92.0
#define LANE_WIDTH 184.0
#define HEAD_Y 78.0
#define ROWS_TOP 124.0
#define CHAR_WIDTH 6.4 /* average advance of the 11 px sans-serif used for labels */
#define BADGE_HEIGHT 17.0
#define BREAK_MS 3000.0 /* a longer silence is drawn as a break */

/* The landscape slide (see "landscape" below), in px. */
#define SLIDE_HEAD_X 95.0 /* centre of the lane heads */
#define SLIDE_ROWS_LEFT 200.0
#define SLIDE_BAND 140.0 /* height of a lane's row: five tiers of badges and a span */
#define SLIDE_TIERS 5
#define SLIDE_BADGE_GAP 6.0
/* A page of the slides: 960 x 540 units, so the smallest type (9 px) is 18 px on a 1920 x
 * 1080 projector; the rows' strip is cut into pages, each showing PAGE_WINDOW of it and the
 * next starting PAGE_STEP on (a badge cut at one page's edge is whole on the next). */
#define PAGE_W 960.0
#define PAGE_H 540.0
#define PAGE_LANES_TOP 88.0
#define PAGE_BOTTOM 12.0
#define PAGE_ROWS_X 180.0 /* where a page shows the strip, right of the lanes' heads */
#define PAGE_STRIP_LEFT (SLIDE_ROWS_LEFT - 70.0) /* the strip's left edge: a badge's half */
#define PAGE_WINDOW (PAGE_W - PAGE_ROWS_X)
#define PAGE_STEP (PAGE_WINDOW - 50.0)

/* The surfaces of the words (SvgWordBox): the portrait page is the strip's. */
#define SURFACE_STRIP 0u
#define SURFACE_FRAME 1u
#define SURFACE_SUMMARY 2u
#define SURFACE_PAGE_NUMBER 3u

/* The outcome a "settled" record names; false for any other record. */
static bool settled_outcome(const TraceRecord *record, Outcome *outcome)
{
    if (record->event != TRACE_SETTLED || record->detail >= OUTCOME_COUNT)
        return false;
    *outcome = (Outcome)record->detail;
    return true;
}

/* ------------------------------------------------------------------ collecting */

struct SvgDiagram {
    Mode mode;
    uint32_t operations_max; /* asked for */
    bool selected;           /* only the operations in selection */
    SvgSelection selection;
    uint32_t operation_count;
    uint64_t operations[REPORT_SVG_OPERATIONS_MAX]; /* in the order they started */
    int32_t open_clicks[REPORT_SVG_OPERATIONS_MAX]; /* clicks sent and not yet settled */
    /* each operation's client group (an index of Scenario.client_groups; -1: not known), by
     * its first send, so a key store's crash is drawn only where these operations meet it */
    int32_t groups[REPORT_SVG_OPERATIONS_MAX];
    const Scenario *scenario; /* report_svg_show_windows's; NULL: every crash concerns them */
    /* the nodes whose crash was kept, until their restart (kept too) */
    uint32_t crashed_count;
    uint32_t crashed[RECORDS_CRASHED_MAX];
    /* the nodes down while no drawn click was open (a key store's own crash, C38, or a
     * server's outage): drawn first when an operation starts within their time down (its
     * requests meet them down) */
    DiagramOutages down;
    /* lanes opened as records name them, one row per record kept, up to RECORDS_MAX; it
     * follows the outcome of each operation drawn */
    Diagram *model;
};

SvgDiagram *report_svg_create(Mode mode, uint32_t operations_max, const SvgSelection *selection)
{
    SvgDiagram *diagram = calloc(1, sizeof *diagram);
    if (diagram == NULL)
        return NULL;
    diagram->mode = mode;
    diagram->operations_max = operations_max < 1 ? 1
                              : operations_max > REPORT_SVG_OPERATIONS_MAX
                                  ? REPORT_SVG_OPERATIONS_MAX
                                  : operations_max;
    if (selection != NULL) {
        diagram->selected = true;
        diagram->selection = *selection;
    }
    /* Each record makes at most one item plus a box or a span: the ring never wraps. */
    diagram->model = diagram_create(mode, 3 * RECORDS_MAX, RECORDS_MAX);
    if (diagram->model == NULL) {
        free(diagram);
        return NULL;
    }
    diagram_open_lanes(diagram->model, true);
    return diagram;
}

void report_svg_destroy(SvgDiagram *diagram)
{
    if (diagram == NULL)
        return;
    diagram_destroy(diagram->model);
    free(diagram);
}

static int operation_slot(const SvgDiagram *diagram, uint64_t operation)
{
    for (uint32_t i = 0; i < diagram->operation_count; i++) {
        if (diagram->operations[i] == operation)
            return (int)i;
    }
    return -1;
}

static bool is_selected(const SvgDiagram *diagram, uint64_t operation)
{
    for (uint32_t i = 0; i < diagram->selection.count; i++) {
        if (diagram->selection.operations[i] == operation)
            return true;
    }
    return false;
}

/* A restart of a node whose crash was kept is kept too. */
static bool restart_kept(SvgDiagram *diagram, uint32_t node)
{
    for (uint32_t i = 0; i < diagram->crashed_count; i++) {
        if (diagram->crashed[i] == node) {
            diagram->crashed[i] = diagram->crashed[--diagram->crashed_count];
            return true;
        }
    }
    return false;
}

/* The client group of an operation's first send ("web[3]": web), or -1. */
static int32_t group_of_send(const SvgDiagram *diagram, const TraceRecord *send)
{
    if (diagram->scenario == NULL || send->actor_kind != NODE_CLIENT_GROUP ||
        send->actor_name == NULL)
        return -1;
    size_t length = strcspn(send->actor_name, "[");
    for (uint32_t g = 0; g < diagram->scenario->client_group_count; g++) {
        const char *id = diagram->scenario->client_groups[g].id;
        if (strlen(id) == length && strncmp(id, send->actor_name, length) == 0)
            return (int32_t)g;
    }
    return -1;
}

/* Whether a crash or restart concerns the operation in slot: any node's does, but a key store
 * of its own (C38) only where the operation's client group meets it (its lane would show
 * nothing of this operation: an order to other consumers never meets their store). */
static bool concerns(const SvgDiagram *diagram, const TraceRecord *record, uint32_t slot)
{
    if (record->actor_kind != NODE_KEY_STORE || diagram->scenario == NULL ||
        diagram->groups[slot] < 0)
        return true;
    return diagram_group_meets_store(diagram->scenario, (uint32_t)diagram->groups[slot],
                                     record->actor_name);
}

/* Whether a click of a drawn operation the crash concerns is open. */
static bool click_open_for(const SvgDiagram *diagram, const TraceRecord *crash)
{
    for (uint32_t i = 0; i < diagram->operation_count; i++) {
        if (diagram->open_clicks[i] > 0 && concerns(diagram, crash, i))
            return true;
    }
    return false;
}

/* An operation joins (in slot): the outages it starts within that concern it, begun while no
 * click was open, are drawn first, and their restarts kept; the others wait for an operation
 * they concern, or their restart. */
static void draw_outages_under_way(SvgDiagram *diagram, uint32_t slot)
{
    uint32_t waiting = 0;
    for (uint32_t i = 0; i < diagram->down.count; i++) {
        const TraceRecord *crash = &diagram->down.since[i];
        if (!concerns(diagram, crash, slot)) {
            diagram->down.since[waiting++] = *crash;
            continue;
        }
        diagram_add(diagram->model, crash, 0);
        if (diagram->crashed_count < RECORDS_CRASHED_MAX)
            diagram->crashed[diagram->crashed_count++] = crash->actor;
    }
    diagram->down.count = waiting;
}

/* Which records the diagram keeps: those of its operations (an operation joins when its
 * first click is sent, if it is selected), and a crash (with its restart) while a click of
 * theirs it concerns is still waiting for an answer, since it may kill their requests, or where
 * the crashed process holds one of their jobs (a consumer's delivery: the crash is why it comes
 * back). The "duplicate" marker is kept for the model, which marks the copy that follows it. */
static bool keeps(SvgDiagram *diagram, const TraceRecord *record)
{
    if (record->event == TRACE_SWEEP)
        return false;
    if (record->event == TRACE_RESTART) {
        if (restart_kept(diagram, record->actor))
            return true;
        if (diagram_down_edge(record))
            diagram_outages_note(&diagram->down, record); /* an outage not drawn is over */
        return false;
    }
    if (record->event == TRACE_CRASH) {
        bool kept = click_open_for(diagram, record) || diagram_holds_job(diagram->model, record);
        if (kept && diagram->crashed_count < RECORDS_CRASHED_MAX)
            diagram->crashed[diagram->crashed_count++] = record->actor;
        else if (!kept && diagram_down_edge(record))
            diagram_outages_note(&diagram->down, record); /* drawn if an operation joins */
        return kept;
    }
    int slot = operation_slot(diagram, record->operation);
    if (slot < 0) {
        if (record->event != TRACE_SEND || record->attempt != 1 ||
            diagram->operation_count == diagram->operations_max ||
            (diagram->selected && !is_selected(diagram, record->operation)))
            return false;
        slot = (int)diagram->operation_count;
        diagram->operations[diagram->operation_count++] = record->operation;
        diagram->groups[slot] = group_of_send(diagram, record);
        draw_outages_under_way(diagram, (uint32_t)slot);
        diagram_follow(diagram->model, record->operation);
    }
    if (record->event == TRACE_SEND)
        diagram->open_clicks[slot]++;
    if (record->event == TRACE_SUCCEEDED || record->event == TRACE_FAILED ||
        record->event == TRACE_GIVE_UP)
        diagram->open_clicks[slot]--;
    return true;
}

static void collect(void *context, const TraceRecord *record)
{
    SvgDiagram *diagram = context;
    if (record->mode == diagram->mode && keeps(diagram, record))
        diagram_add(diagram->model, record, 0);
}

void report_svg_show_windows(SvgDiagram *diagram, const Scenario *scenario)
{
    diagram->scenario = scenario;
    DiagramWindows windows = diagram_windows_of(scenario, diagram->mode);
    diagram_set_windows(diagram->model, &windows);
    diagram_set_broker_rules(diagram->model, scenario);
}

TraceSink report_svg_sink(SvgDiagram *diagram)
{
    return (TraceSink){.write = collect, .context = diagram};
}

/* ------------------------------------------------------------------ styles and text */

typedef struct {
    const char *fill;
    const char *stroke;
    const char *ink;
} Style;

/* Width of a label: UTF-8 continuation bytes take no room. */
static double text_width(const char *text)
{
    double width = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++)
        width += (*c & 0xC0) == 0x80 ? 0.0 : CHAR_WIDTH;
    return width;
}

/* ------------------------------------------------------------------ layout */

typedef struct {
    FILE *out;
    const SvgDiagram *diagram;
    const Diagram *model;
    const Scenario *scenario;
    double lane_x[DIAGRAM_LANES_MAX]; /* by lane index */
    uint32_t row_count;
    uint32_t *order;    /* row indexes in drawing order */
    uint32_t *position; /* each row's place in drawing order */
    double *y;          /* by place in drawing order */
    double *start;      /* an arrow leaving a badge starts at its edge: half its width */
    double rows_bottom;
    double width;
    double height;
    int groups[REPORT_SVG_OPERATIONS_MAX]; /* each operation's client group, -1 when unknown */
    /* landscape only: where each row is along the time axis (by place in drawing order), a
     * badge's distance from its lane's line (its tier), and each lane's line */
    double *time_x;
    double *tier_offset;
    double *ledger_offset;            /* an effect's badge on the ledger's line, by the same rule */
    double lane_y[DIAGRAM_LANES_MAX]; /* by lane index */
    double rows_right;
    double band;    /* a lane's row across the slide */
    uint32_t tiers; /* the tiers of badges a row holds (SLIDE_TIER_OFFSETS' first ones) */
    /* every word written so far, on which surface (SvgWordBox): where a label looks for a
     * place, and what report_svg_write_words hands back */
    SvgWordBox *words;
    uint32_t word_count, word_max;
    uint32_t surface; /* of the words being written */
} Layout;

static const DiagramRow *row_at(const Layout *layout, uint32_t k)
{
    return diagram_row(layout->model, layout->order[k]);
}

static bool is_message(const DiagramRow *row)
{
    return trace_is_message_event((TraceEvent)row->event);
}

/* The lanes left to right as the model orders them: clients in the order they appear, then
 * the services in the order the work reaches them, then the ledger where the state changes. */
static void place_lanes(Layout *layout)
{
    uint32_t count = diagram_lane_count(layout->model);
    for (uint32_t position = 0; position < count; position++)
        layout->lane_x[diagram_lane_at(layout->model, position)] =
            MARGIN_LEFT + LANE_WIDTH * (position + 0.5);
}

static bool describe(const Layout *layout, const DiagramRow *row, char *label, size_t size,
                     Style *style);

/* The rows in the model's reading order (diagram_row_order), and where each one went. */
static void sort_instants(Layout *layout)
{
    diagram_row_order(layout->model, layout->order);
    for (uint32_t k = 0; k < layout->row_count; k++)
        layout->position[layout->order[k]] = k;
}

static double gap_for(double dt_ms)
{
    if (dt_ms <= 0)
        return 19.0;
    double gap = 16.0 + 24.0 * log10(1.0 + dt_ms);
    if (dt_ms > BREAK_MS)
        return 16.0 + 24.0 * log10(1.0 + BREAK_MS) + 26.0; /* room for the break mark */
    return gap;
}

/* One row per record; an arrow leaving a badge at the same instant starts on the badge. */
static void place_rows(Layout *layout)
{
    const DiagramRow *last_badge = NULL;
    double y = ROWS_TOP, badge_y = 0, badge_half = 0;
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        char label[128];
        Style style;
        bool has_badge = describe(layout, row, label, sizeof label, &style);
        if (k > 0) {
            const DiagramRow *previous = row_at(layout, k - 1);
            double dt_ms = (double)(row->t_us - previous->t_us) / 1000.0;
            bool sends = row->event == TRACE_TRANSMIT || row->event == TRACE_LOST;
            bool leaves_badge =
                dt_ms == 0 && sends && !is_message(previous) && previous->lane == row->lane;
            bool follows_arrow = dt_ms == 0 && is_message(previous) && is_message(row) &&
                                 row->event != TRACE_DELIVER;
            y += leaves_badge ? 0.0 : follows_arrow ? 9.0 : gap_for(dt_ms);
            /* Badges a fraction of a millisecond apart must not touch, nor their labels. */
            if (has_badge && last_badge != NULL && y < badge_y + BADGE_HEIGHT + 8.0)
                y = badge_y + BADGE_HEIGHT + 8.0;
        }
        layout->y[k] = y;
        layout->start[k] = 0.0;
        if (has_badge) {
            last_badge = row;
            badge_y = y;
            badge_half = (text_width(label) + 12.0) / 2;
        } else if (last_badge != NULL && last_badge->t_us == row->t_us &&
                   last_badge->lane == row->lane && y - badge_y < BADGE_HEIGHT) {
            layout->start[k] = badge_half;
        }
    }
    layout->rows_bottom = y;
}

/* ------------------------------------------------------------------ summaries */

static int group_named(const Scenario *scenario, const char *name)
{
    for (uint32_t g = 0; g < scenario->client_group_count; g++) {
        if (strcmp(scenario->client_groups[g].id, name) == 0)
            return (int)g;
    }
    return -1;
}

/* Each operation's client group, from the lane of its first send. */
static void find_groups(Layout *layout)
{
    for (uint32_t s = 0; s < REPORT_SVG_OPERATIONS_MAX; s++)
        layout->groups[s] = -1;
    for (uint32_t i = 0; i < layout->row_count; i++) {
        const DiagramRow *row = diagram_row(layout->model, i);
        const DiagramItem *mark = diagram_item(layout->model, row->item);
        if (row->event != TRACE_SEND || mark == NULL)
            continue;
        int slot = operation_slot(layout->diagram, mark->operation);
        if (slot >= 0 && layout->groups[slot] < 0)
            layout->groups[slot] =
                group_named(layout->scenario, diagram_lane(layout->model, row->lane)->node_name);
    }
}

static const OperationSpec *operation_spec(const Layout *layout, uint64_t operation)
{
    int slot = operation_slot(layout->diagram, operation);
    if (slot < 0 || layout->groups[slot] < 0)
        return NULL;
    return &layout->scenario->client_groups[layout->groups[slot]].operation;
}

/* ------------------------------------------------------------------ words' boxes */

/* Whether box (x, y, w, h) covers no word of the current surface. */
static bool box_free(const Layout *layout, const double box[4])
{
    for (uint32_t i = 0; i < layout->word_count; i++) {
        const SvgWordBox *other = &layout->words[i];
        if (other->surface == layout->surface && box[0] < other->x + other->width &&
            other->x < box[0] + box[2] && box[1] < other->y + other->height &&
            other->y < box[1] + box[3])
            return false;
    }
    return true;
}

/* Notes a word's box on the current surface; returns it. Out of memory (NULL), the list stops
 * growing: labels then look for room among fewer words, and the picture is still written. */
static SvgWordBox *take_box(Layout *layout, double x, double y, double w, double h,
                            const char *text)
{
    if (layout->word_count == layout->word_max) {
        uint32_t room = layout->word_max ? 2 * layout->word_max : 256;
        SvgWordBox *grown = realloc(layout->words, room * sizeof *grown);
        if (grown == NULL)
            return NULL;
        layout->words = grown;
        layout->word_max = room;
    }
    SvgWordBox *box = &layout->words[layout->word_count++];
    *box = (SvgWordBox){.x = x, .y = y, .width = w, .height = h, .surface = layout->surface};
    size_t length = strnlen(text, sizeof box->text - 1); /* its first words name it enough */
    memcpy(box->text, text, length);
    box->text[length] = '\0';
    return box;
}

/* The advance of each printable ASCII character (from ' ') in DejaVu Sans, the first font
 * the style sheet names and the widest of those it names, in 2048ths of an em (its hmtx
 * table, assets/fonts/DejaVuSans.ttf). A word's box is reckoned from these, so that a label
 * set close to a badge is not moved for room it does not take; any other character is
 * reckoned an em wide, as wide as the widest. */
static const uint16_t DEJAVU_ADVANCES[95] = {
    651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087,
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612,
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799,  690,  799,  1716, 1024,
    1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995, 1298, 1253,
    1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716,
};

/* Width of text set in DejaVu Sans at size px, bold a tenth wider. */
static double type_width(const char *text, double size, bool bold)
{
    uint32_t units = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
        if (*c >= 0x20 && *c < 0x7F)
            units += DEJAVU_ADVANCES[*c - 0x20];
        else if ((*c & 0xC0) != 0x80)
            units += 2048; /* the first byte of any other character */
    }
    return units * size / 2048.0 * (bold ? 1.1 : 1.0);
}

/* The size of a class's type (write_prologue's style sheet), in px. */
static double type_size(const char *class)
{
    static const struct {
        const char *class;
        double size;
    } sizes[] = {{"title", 16.0}, {"sub", 12.0},  {"head", 12.5},   {"role", 10.0},
                 {"badge", 11.0}, {"line", 11.5}, {"time", 10.0},   {"gap", 10.0},
                 {"msg", 10.5},   {"page", 10.0}, {"spanword", 9.0}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (strcmp(sizes[i].class, class) == 0)
            return sizes[i].size;
    }
    return 11.0;
}

/* The box (x, y, w, h) of text set in class at baseline (x, y), anchored "start", "middle"
 * or "end": from the top of its capitals and ascenders (0.76 em) to the bottom of its
 * descenders (0.24 em), with a unit of room all round (a label's white halo is 1.5 px). */
static void text_box(double x, double y, const char *anchor, const char *class, const char *text,
                     double box[4])
{
    double size = type_size(class);
    double w = type_width(text, size, strcmp(class, "head") == 0) + 2.0;
    box[0] = strcmp(anchor, "middle") == 0 ? x - w / 2
             : strcmp(anchor, "end") == 0  ? x - w + 1.0
                                           : x - 1.0;
    box[1] = y - size * 0.76 - 1.0;
    box[2] = w;
    box[3] = size + 2.0;
}

/* The same for text turned a quarter turn about its anchor (x, y), clockwise (it reads
 * downward, its top to the right) or not (it reads upward, its top to the left). */
static void text_box_turned(double x, double y, const char *anchor, const char *class,
                            const char *text, bool clockwise, double box[4])
{
    double flat[4];
    text_box(0.0, 0.0, anchor, class, text, flat);
    /* a point (u, v) of the flat text lands at (x - v, y + u) turned clockwise, at
     * (x + v, y - u) the other way */
    double u_low = flat[0], u_high = flat[0] + flat[2], v_low = flat[1], v_high = flat[1] + flat[3];
    box[0] = clockwise ? x - v_high : x + v_low;
    box[1] = clockwise ? y + u_low : y - u_high;
    box[2] = flat[3];
    box[3] = flat[2];
}

/* ------------------------------------------------------------------ drawing primitives */

static void text_at(Layout *layout, double x, double y, const char *anchor, const char *class,
                    const char *text)
{
    double box[4];
    text_box(x, y, anchor, class, text, box);
    take_box(layout, box[0], box[1], box[2], box[3], text);
    fprintf(layout->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y,
            anchor, class);
    xml_text_write(layout->out, text);
    fputs("</text>\n", layout->out);
}

static const Style STYLE_PLAIN = {"#ffffff", "#94a3b8", "#1e293b"};
static const Style STYLE_STORE = {"#fef9c3", "#ca8a04", "#713f12"};
static const Style STYLE_GOOD = {"#dcfce7", "#16a34a", "#14532d"};
static const Style STYLE_WARN = {"#ffedd5", "#ea580c", "#7c2d12"};
static const Style STYLE_BAD = {"#fee2e2", "#dc2626", "#7f1d1d"};
static const Style STYLE_WORK = {"#ede9fe", "#7c3aed", "#3b0764"};
static const Style STYLE_CRASH = {"#dc2626", "#7f1d1d", "#ffffff"};

/* Writes text at the first of count places (x, y) where its box covers no word; false, and
 * nothing written, when each covers one. */
static bool text_at_free(Layout *layout, const double (*places)[2], size_t count,
                         const char *anchor, const char *class, const char *text)
{
    for (size_t i = 0; i < count; i++) {
        double box[4];
        text_box(places[i][0], places[i][1], anchor, class, text, box);
        if (box_free(layout, box)) {
            text_at(layout, places[i][0], places[i][1], anchor, class, text);
            return true;
        }
    }
    return false;
}

static double badge_width(const char *text)
{
    return text_width(text) + 12.0;
}

static void take_badge(Layout *layout, double x, double y, const char *text)
{
    double width = badge_width(text);
    take_box(layout, x - width / 2, y - BADGE_HEIGHT / 2, width, BADGE_HEIGHT, text);
}

/* A badge whose box was taken already (the diagram's badges are, before any label looks for
 * a place); badge() takes it too. */
static void badge_drawn(FILE *out, double x, double y, const char *text, Style style)
{
    double width = badge_width(text);
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\" fill=\"%s\" "
            "stroke=\"%s\"/>\n",
            x - width / 2, y - BADGE_HEIGHT / 2, width, BADGE_HEIGHT, style.fill, style.stroke);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"badge\" fill=\"%s\">",
            x, y + 4.0, style.ink);
    xml_text_write(out, text);
    fputs("</text>\n", out);
}

static void badge(Layout *layout, double x, double y, const char *text, Style style)
{
    take_badge(layout, x, y, text);
    badge_drawn(layout->out, x, y, text, style);
}

static void cross(FILE *out, double x, double y)
{
    fprintf(out,
            "<path d=\"M%.1f %.1fl10 10m0 -10l-10 10\" stroke=\"#dc2626\" stroke-width=\"2.5\" "
            "stroke-linecap=\"round\" class=\"cross\"/>\n",
            x - 5, y - 5);
}

/* ------------------------------------------------------------------ messages */

static const char *status_color(int64_t status)
{
    if (status == 0) /* a reset (diagram_message_label): no answer, a failed try, not a 2xx */
        return "#dc2626";
    if (status == 409 || status == 202)
        return "#d97706";
    if (status >= 500)
        return "#dc2626";
    if (status >= 400)
        return "#c2410c";
    return "#059669";
}

static const char *message_color(const DiagramItem *message)
{
    if (message->message == MESSAGE_REQUEST)
        return "#2563eb";
    if (message->message == MESSAGE_RESPONSE)
        return status_color(message->value);
    if (message->message == MESSAGE_CHARGE || message->message == MESSAGE_REFUND)
        return "#7c3aed";
    if (message->message == MESSAGE_CHARGE_REPLY)
        return message->value >= 500 ? "#dc2626" : "#7c3aed";
    return "#0891b2"; /* the broker's deliveries and acks */
}

static Style tone_style(DiagramTone tone)
{
    switch (tone) {
    case DIAGRAM_TONE_STORE:
        return STYLE_STORE;
    case DIAGRAM_TONE_GOOD:
        return STYLE_GOOD;
    case DIAGRAM_TONE_WARN:
        return STYLE_WARN;
    case DIAGRAM_TONE_BAD:
    case DIAGRAM_TONE_DOUBLE:
    case DIAGRAM_TONE_LOST:
        return STYLE_BAD;
    case DIAGRAM_TONE_WORK:
        return STYLE_WORK;
    case DIAGRAM_TONE_CRASH:
        return STYLE_CRASH;
    case DIAGRAM_TONE_PLAIN:
    case DIAGRAM_TONE_DIM:
        break;
    }
    return STYLE_PLAIN;
}

static void arrowhead(FILE *out, double x1, double y1, double x2, double y2, const char *color)
{
    double dx = x2 - x1, dy = y2 - y1;
    double length = sqrt(dx * dx + dy * dy);
    if (length < 1e-9)
        return;
    double ux = dx / length, uy = dy / length;
    double bx = x2 - 9.0 * ux, by = y2 - 9.0 * uy;
    fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fz\" fill=\"%s\"/>\n", x2, y2,
            bx - 4.0 * uy, by + 4.0 * ux, bx + 4.0 * uy, by - 4.0 * ux, color);
}

/* An arrow from (x1, y1) to (x2, y2); start is the gap left at the start (a badge). Its line
 * starts at *drawn_start (NULL when the caller need not know). */
static void arrow(FILE *out, double x1, double y1, double x2, double y2, double start,
                  const char *color, bool dashed, double *drawn_start)
{
    double direction = x2 >= x1 ? 1.0 : -1.0;
    double dx = x2 - x1, dy = y2 - y1;
    double length = sqrt(dx * dx + dy * dy);
    if (length < 1e-9)
        return;
    /* Leave the lifeline visible, or start where the ray leaves the badge's box. */
    double ux = fabs(dx) / length, uy = fabs(dy) / length;
    double skip = 2.0;
    if (start > 0)
        skip += fmin(ux > 1e-9 ? start / ux : 1e9, uy > 1e-9 ? (BADGE_HEIGHT / 2) / uy : 1e9);
    skip = fmin(skip, length * 0.5);
    x1 += dx / length * skip;
    y1 += dy / length * skip;
    x2 -= direction * 2.0;
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"1.6\"%s class=\"message\"/>\n",
            x1, y1, x2, y2, color, dashed ? " stroke-dasharray=\"5 3\"" : "");
    if (!dashed)
        arrowhead(out, x1, y1, x2, y2, color);
    if (drawn_start != NULL)
        drawn_start[0] = x1, drawn_start[1] = y1;
}

/* Takes the first of count candidate boxes (x, y, w, h) for text that covers no word of the
 * surface, a space's width clear of any beside it (lest two labels read as one), and returns
 * its index; -1 when there is none. */
static int take_free_box(Layout *layout, const double (*boxes)[4], size_t count, const char *text)
{
    for (size_t i = 0; i < count; i++) {
        const double room[4] = {boxes[i][0] - 3.0, boxes[i][1], boxes[i][2] + 6.0, boxes[i][3]};
        if (box_free(layout, room)) {
            take_box(layout, boxes[i][0], boxes[i][1], boxes[i][2], boxes[i][3], text);
            return (int)i;
        }
    }
    return -1;
}

#define RING_RADIUS 3.5

/* A label with no free place is left out rather than written over another word: a ring on
 * its arrow (x1, y1)-(x2, y2) marks it, where the label would have gone (first of the way)
 * or else at the first tenth of the way, clear of both ends (a badge, an arrowhead or a
 * cross), where it covers no word (it is then taken as one, so no later word covers it); it
 * says the label when pointed at (its title), so the file still holds every word and none
 * covers another. */
static void dropped_label(Layout *layout, const double arrow_line[4], double first,
                          const char *color, const char *label)
{
    double dx = arrow_line[2] - arrow_line[0], dy = arrow_line[3] - arrow_line[1];
    double x = arrow_line[0] + dx * first, y = arrow_line[1] + dy * first;
    for (int tenth = -1; tenth <= 8; tenth = tenth < 0 ? 1 : tenth + 1) {
        double along = tenth < 0 ? first : tenth / 10.0, r = RING_RADIUS + 1.0;
        double cx = arrow_line[0] + dx * along, cy = arrow_line[1] + dy * along;
        double box[4] = {cx - r, cy - r, 2 * r, 2 * r};
        if (box_free(layout, box)) {
            x = cx, y = cy;
            SvgWordBox *taken = take_box(layout, box[0], box[1], box[2], box[3], label);
            if (taken != NULL)
                taken->ring = true;
            break;
        }
    }
    fprintf(layout->out,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#ffffff\" stroke=\"%s\" "
            "stroke-width=\"1.5\" class=\"dropped\"><title>",
            x, y, RING_RADIUS, color);
    xml_text_write(layout->out, label);
    fputs("</title></circle>\n", layout->out);
}

static void label_text(FILE *out, double x, double y, const char *anchor, const char *color,
                       const char *label)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"msg\" fill=\"%s\">", x, y,
            anchor, color);
    xml_text_write(out, label);
    fputs("</text>\n", out);
}

#define LABEL_PLACES_MAX 22 /* places along an arrow a portrait label tries, each side */

/* An arrow from (x1, y1) to (x2, y2) on the portrait page, its label beside it: just after
 * the start, where arrows that leave one lane have not fanned out yet, above a rightward
 * arrow and below a leftward one (away from the badge it leaves); where that covers a word,
 * the first place that covers none (the landscape's rule, take_free_box), trying the other
 * side, then a little further along, so that the label stays near where its arrow starts;
 * where none is free, left out (dropped_label). */
static void arrow_labelled(Layout *layout, double x1, double y1, double x2, double y2, double start,
                           const char *color, bool dashed, const char *label)
{
    double from[2];
    arrow(layout->out, x1, y1, x2, y2, start, color, dashed, from);
    double dx = x2 - x1, dy = y2 - y1, length = sqrt(dx * dx + dy * dy);
    if (label[0] == '\0' || length < 1e-9)
        return;
    double reach = length - sqrt((from[0] - x1) * (from[0] - x1) + (from[1] - y1) * (from[1] - y1));
    double first = fmin(reach * 0.45, 14.0 + text_width(label) * 0.55);
    /* 16 px steps, then 32 px ones, while the label's middle is on the arrow's first 90% */
    double alongs[LABEL_PLACES_MAX] = {first};
    size_t count = 1;
    for (double step = 16.0; count < LABEL_PLACES_MAX - 5 && first + step <= reach * 0.9;
         step += step < 64.0 ? 16.0 : 32.0)
        alongs[count++] = first + step;
    static const double fractions[] = {0.3, 0.55, 0.75, 0.15, 0.9};
    for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++)
        alongs[count++] = reach * fractions[f];
    double sides[2] = {x2 >= x1 ? -5.0 : 12.0, x2 >= x1 ? 12.0 : -5.0};
    double spots[2 * LABEL_PLACES_MAX][2], boxes[2 * LABEL_PLACES_MAX][4];
    for (size_t a = 0; a < count; a++) {
        for (size_t side = 0; side < 2; side++) {
            double *spot = spots[2 * a + side];
            spot[0] = from[0] + dx / length * alongs[a];
            spot[1] = from[1] + dy / length * alongs[a] + sides[side];
            text_box(spot[0], spot[1], "middle", "msg", label, boxes[2 * a + side]);
        }
    }
    int chosen = take_free_box(layout, (const double(*)[4])boxes, 2 * count, label);
    const double line[4] = {from[0], from[1], from[0] + dx / length * reach,
                            from[1] + dy / length * reach};
    if (chosen < 0)
        dropped_label(layout, line, first / reach, color, label);
    else
        label_text(layout->out, spots[chosen][0], spots[chosen][1], "middle", color, label);
}

/* Draws the copy whose transmit (or loss) is the k-th row in drawing order, to the row of
 * its delivery (the model paired them). */
static void draw_message(Layout *layout, uint32_t k)
{
    const DiagramItem *sent = diagram_item(layout->model, row_at(layout, k)->item);
    if (sent == NULL)
        return;
    double x1 = layout->lane_x[sent->from], x2 = layout->lane_x[sent->to], y1 = layout->y[k];
    char label[96];
    diagram_message_label(sent, label, sizeof label);
    const char *color = message_color(sent);
    double start = layout->start[k];
    if (sent->end_event == TRACE_LOST) {
        char lost[120];
        snprintf(lost, sizeof lost, "%s, lost", label);
        /* Far enough from the sender for the label to fit before the cross. */
        double reach = fmin(fabs(x2 - x1) * 0.85, fmax(fabs(x2 - x1) * 0.6, 140.0));
        double xe = x1 + (x2 >= x1 ? reach : -reach), ye = y1 + 18.0;
        arrow_labelled(layout, x1, y1, xe, ye, start, "#94a3b8", true, lost);
        cross(layout->out, xe, ye);
        return;
    }
    if (sent->end_row != UINT32_MAX && layout->position[sent->end_row] > k) {
        arrow_labelled(layout, x1, y1, x2, layout->y[layout->position[sent->end_row]], start, color,
                       false, label);
        return;
    }
    /* Still in flight when the trace ended (or its arrival was not kept). */
    arrow_labelled(layout, x1, y1, x1 + (x2 - x1) * 0.5, y1 + 20.0, start, color, true, label);
}

static void draw_messages(Layout *layout)
{
    fputs("<g id=\"messages\">\n", layout->out);
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        if (row->event == TRACE_TRANSMIT || row->event == TRACE_LOST)
            draw_message(layout, k);
    }
    fputs("</g>\n", layout->out);
}

/* ------------------------------------------------------------------ decisions and charges */

/* The label and look of a mark on its lane (diagram_mark_badge); false for message rows. */
static bool describe(const Layout *layout, const DiagramRow *row, char *label, size_t size,
                     Style *style)
{
    const DiagramItem *mark = diagram_item(layout->model, row->item);
    if (is_message(row) || mark == NULL)
        return false;
    const OperationSpec *spec = operation_spec(layout, mark->operation);
    DiagramOperationWords words = {.debit = spec == NULL || spec->kind == OPERATION_DEBIT,
                                   .scheduled = scenario_uses_schedule(layout->scenario)};
    const DiagramLane *lane = diagram_lane(layout->model, mark->from);
    *style = tone_style(diagram_mark_badge(
        mark, lane->kind, diagram_lane_words(layout->scenario, lane, words), label, size));
    return true;
}
static void format_money(char *buffer, size_t size, int64_t minor)
{
    snprintf(buffer, size, MINUS_SIGN "%" PRId64 ".%02" PRId64, minor / 100, minor % 100);
}

/* What one effect did, as the ledger (or the table it changed) records it. */

/* What one effect did, as the ledger (or the table it changed) records it. */
static void effect_label(const Layout *layout, const DiagramItem *mark, char *label, size_t size)
{
    const OperationSpec *spec = operation_spec(layout, mark->operation);
    static const char *const changes[OPERATION_KIND_COUNT] = {
        "", "status set", "deleted", "row added", "row added", "email sent", "+1"};
    char what[48];
    if (spec == NULL || spec->kind == OPERATION_DEBIT)
        format_money(what, sizeof what, spec ? spec->amount : 0);
    else
        snprintf(what, sizeof what, "%s", changes[spec->kind]);
    snprintf(label, size, "op %" PRIu64 ": %s%s", mark->operation, what,
             mark->effects >= 2 ? " AGAIN" : "");
}

static void draw_charge(Layout *layout, const DiagramItem *mark, double y, double badge_width)
{
    int ledger = diagram_ledger(layout->model);
    if (ledger == DIAGRAM_NO_LANE)
        return;
    char label[96];
    effect_label(layout, mark, label, sizeof label);
    double x1 = layout->lane_x[mark->from] + badge_width / 2;
    double x2 = layout->lane_x[ledger] - (text_width(label) + 12.0) / 2;
    fprintf(layout->out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7c3aed\" "
            "stroke-width=\"1.2\" stroke-dasharray=\"2 3\"/>\n",
            x1, y, x2, y);
    badge_drawn(layout->out, layout->lane_x[ledger], y, label,
                mark->effects >= 2 ? STYLE_BAD : STYLE_GOOD);
}

/* Whether row k's mark is an effect drawn on the ledger too (draw_charge). */
static bool draws_charge(const Layout *layout, uint32_t k)
{
    const DiagramRow *row = row_at(layout, k);
    const DiagramItem *mark = diagram_item(layout->model, row->item);
    return row->event == TRACE_EXECUTE && mark != NULL &&
           diagram_ledger(layout->model) != DIAGRAM_NO_LANE &&
           operation_slot(layout->diagram, mark->operation) >= 0;
}

/* The badges' boxes, taken before any arrow's label looks for a place; lane_x (portrait) or
 * lane_y (landscape) says where a lane's badges go. */
static void take_badges(Layout *layout, bool landscape)
{
    int ledger = diagram_ledger(layout->model);
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        char label[128];
        Style style;
        if (!describe(layout, row, label, sizeof label, &style))
            continue;
        const DiagramItem *mark = diagram_item(layout->model, row->item);
        double x = landscape ? layout->time_x[k] : layout->lane_x[mark->from];
        double y = landscape ? layout->lane_y[mark->from] + layout->tier_offset[k] : layout->y[k];
        take_badge(layout, x, y, label);
        if (draws_charge(layout, k)) {
            char effect[96];
            effect_label(layout, mark, effect, sizeof effect);
            if (landscape)
                take_badge(layout, x, layout->lane_y[ledger] + layout->ledger_offset[k], effect);
            else
                take_badge(layout, layout->lane_x[ledger], y, effect);
        }
    }
}

static void draw_events(Layout *layout)
{
    fputs("<g id=\"decisions\">\n", layout->out);
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        char label[128];
        Style style;
        if (!describe(layout, row, label, sizeof label, &style))
            continue;
        const DiagramItem *mark = diagram_item(layout->model, row->item);
        double x = layout->lane_x[mark->from];
        if (row->event == TRACE_LOST_OFFLINE)
            cross(layout->out, x - text_width(label) / 2 - 16.0, layout->y[k]);
        badge_drawn(layout->out, x, layout->y[k], label, style);
        if (draws_charge(layout, k))
            draw_charge(layout, mark, layout->y[k], badge_width(label));
    }
    fputs("</g>\n", layout->out);
}

/* A bracket beside the client's lane from each send to its timeout: the time it waited. */
static void draw_waits(Layout *layout)
{
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        const DiagramItem *timeout = diagram_item(layout->model, row->item);
        if (row->event != TRACE_TIMEOUT || timeout == NULL)
            continue;
        for (uint32_t j = k; j-- > 0;) {
            const DiagramRow *earlier = row_at(layout, j);
            const DiagramItem *sent = diagram_item(layout->model, earlier->item);
            if ((earlier->event == TRACE_SEND || earlier->event == TRACE_RETRY) && sent != NULL &&
                sent->operation == timeout->operation && sent->attempt == timeout->attempt &&
                earlier->lane == row->lane) {
                double x = layout->lane_x[row->lane] - 24.0;
                fprintf(layout->out,
                        "<path d=\"M%.1f %.1fh-5V%.1fh5\" fill=\"none\" stroke=\"#ea580c\" "
                        "stroke-width=\"1.2\" class=\"wait\"/>\n",
                        x, layout->y[j] + BADGE_HEIGHT / 2 + 2,
                        layout->y[k] - BADGE_HEIGHT / 2 - 2);
                break;
            }
        }
    }
}

/* ------------------------------------------------------------------ spans */

/* Where instant t falls on the time axis (positions by place in drawing order): between the
 * rows around it, in proportion to time, so a span's end that no record marks still lands
 * before or after the right rows; past the last row, a little beyond it. */
static double time_position(const Layout *layout, const double *positions, SimTimeUs t,
                            bool *beyond)
{
    uint32_t count = layout->row_count;
    *beyond = t > row_at(layout, count - 1)->t_us;
    if (*beyond)
        return positions[count - 1] + 30.0;
    uint32_t low = 0, high = count - 1; /* the first row at or after t */
    while (low < high) {
        uint32_t middle = (low + high) / 2;
        if (row_at(layout, middle)->t_us < t)
            low = middle + 1;
        else
            high = middle;
    }
    SimTimeUs after = row_at(layout, low)->t_us;
    if (low == 0 || after == t)
        return positions[low];
    SimTimeUs before = row_at(layout, low - 1)->t_us;
    double share = (double)(t - before) / (double)(after - before);
    return positions[low - 1] + (positions[low] - positions[low - 1]) * share;
}

static const char *span_color(const DiagramItem *span)
{
    static const char *const colors[] = {"#ca8a04", "#a16207", "#0891b2", "#7c3aed"};
    return span->detail < 4 ? colors[span->detail] : "#64748b";
}

#define SPAN_WORD_STEP 6.0 /* px between the places a span's word tries along its bar */
#define SPAN_WORD_TRIES 40

/* The box of a span's word set along its bar at along (on the time axis), the bar being at
 * across: above a landscape bar, reading right; beside a portrait one, reading down. */
static void span_word_box(bool landscape, double across, double along, const char *label,
                          double box[4])
{
    if (landscape)
        text_box(along, across - 3.0, "start", "spanword", label, box);
    else
        text_box_turned(across + 4.0, along + 2.0, "start", "spanword", label, true, box);
}

/* Where along its bar a span's word goes: at the span's start, or else the first place
 * further along (while the word still ends within the span) where it covers no word; the
 * word is taken there. NAN when there is none: the bar then carries the word as its title. */
static double place_span_word(Layout *layout, bool landscape, double across, double start,
                              double end, const char *label)
{
    double box[4];
    span_word_box(landscape, across, start, label, box);
    double length = landscape ? box[2] : box[3];
    for (uint32_t i = 0; i < SPAN_WORD_TRIES; i++) {
        double along = start + SPAN_WORD_STEP * i;
        if (i > 0 && along + length > end)
            break;
        span_word_box(landscape, across, along, label, box);
        /* a space's width clear of a word along the same bar, lest two read as one */
        double room[4] = {box[0] - (landscape ? 4.0 : 0.0), box[1] - (landscape ? 0.0 : 4.0),
                          box[2] + (landscape ? 8.0 : 0.0), box[3] + (landscape ? 0.0 : 8.0)};
        if (box_free(layout, room)) {
            take_box(layout, box[0], box[1], box[2], box[3], label);
            return along;
        }
    }
    return NAN;
}

/* Thin bars beside each lane: the key's reservation and stored life, the broker's ack timer
 * and dedup window, each with its word near its start (where it covers no other word) and a
 * tick where it ends (none when it ends after the last row drawn: it was still running). */
static void draw_spans(Layout *layout, bool landscape)
{
    FILE *out = layout->out;
    const double *positions = landscape ? layout->time_x : layout->y;
    fputs("<g id=\"spans\">\n", out);
    for (uint64_t serial = diagram_first_serial(layout->model);
         serial < diagram_next_serial(layout->model); serial++) {
        const DiagramItem *span = diagram_item(layout->model, serial);
        if (span == NULL || span->kind != DIAGRAM_SPAN || span->from < 0)
            continue;
        SimTimeUs end_us = span->end_us;
        bool open = end_us == SIM_TIME_NEVER, beyond = false, unused = false;
        double start = time_position(layout, positions, span->start_us, &unused);
        double end = open ? positions[layout->row_count - 1] + 30.0
                          : time_position(layout, positions, end_us, &beyond);
        /* a dedup window beside the ack timers; an operation's second timer open at once (a
         * fanout exchange's copies) past both (DiagramItem.slot) */
        double slot = span->detail == DIAGRAM_SPAN_DEDUP_WINDOW ? 6.0 : 12.0 * span->slot;
        const char *color = span_color(span);
        char label[64];
        diagram_span_label(span, label, sizeof label);
        /* the bar's place across the time axis */
        double across = landscape ? layout->lane_y[span->from] - layout->band / 2 + 12.0 + slot
                                  : layout->lane_x[span->from] + 84.0 + slot;
        double word = place_span_word(layout, landscape, across, start, end, label);
        if (landscape)
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"3\" fill=\"%s\" "
                    "class=\"span\"",
                    start, across - 1.5, fmax(end - start, 2.0), color);
        else
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"%.1f\" fill=\"%s\" "
                    "class=\"span\"",
                    across - 1.5, start, fmax(end - start, 2.0), color);
        if (isnan(word)) {
            fputs("><title>", out);
            xml_text_write(out, label);
            fputs("</title></rect>\n", out);
        } else {
            fputs("/>\n", out);
        }
        if (!open && !beyond && landscape)
            fprintf(out, "<path d=\"M%.1f %.1fv10\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", end,
                    across - 5.0, color);
        else if (!open && !beyond)
            fprintf(out, "<path d=\"M%.1f %.1fh10\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                    across - 5.0, end, color);
        if (isnan(word))
            continue;
        if (landscape)
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"spanword\" fill=\"%s\">", word,
                    across - 3.0, color);
        else
            fprintf(out,
                    "<text x=\"%.1f\" y=\"%.1f\" class=\"spanword\" fill=\"%s\" "
                    "transform=\"rotate(90 %.1f %.1f)\">",
                    across + 4.0, word + 2.0, color, across + 4.0, word + 2.0);
        xml_text_write(out, label);
        fputs("</text>\n", out);
    }
    fputs("</g>\n", out);
}

/* ------------------------------------------------------------------ frame */

static const char *lane_role(const Layout *layout, int index)
{
    const DiagramLane *lane = diagram_lane(layout->model, index);
    if (lane->kind == NODE_CLIENT_GROUP && !lane->ledger) {
        int group = group_named(layout->scenario, lane->node_name);
        return group >= 0 ? key_strategy_name(layout->scenario->client_groups[group].key)
                          : "client";
    }
    return diagram_lane_role(layout->model, index, layout->scenario);
}

static void draw_lanes(Layout *layout)
{
    FILE *out = layout->out;
    double bottom = layout->rows_bottom + 34.0;
    for (uint32_t position = 0; position < diagram_lane_count(layout->model); position++) {
        int index = diagram_lane_at(layout->model, position);
        const DiagramLane *lane = diagram_lane(layout->model, index);
        double x = layout->lane_x[index];
        bool client = lane->kind == NODE_CLIENT_GROUP && !lane->ledger;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cbd5e1\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>\n",
                x, HEAD_Y + 20.0, x, bottom, lane->ledger ? "1 4" : "6 4");
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"150\" height=\"38\" rx=\"6\" fill=\"%s\" "
                "stroke=\"#334155\"/>\n",
                x - 75.0, HEAD_Y - 19.0,
                client         ? "#eff6ff"
                : lane->ledger ? "#f0fdf4"
                               : "#f8fafc");
        text_at(layout, x, HEAD_Y - 2.0, "middle", "head", lane->name);
        text_at(layout, x, HEAD_Y + 12.0, "middle", "role", lane_role(layout, index));
    }
}

static void format_time(char *buffer, size_t size, SimTimeUs t_us)
{
    snprintf(buffer, size, "%.3f s", (double)t_us / 1e6);
}

#define GAP_TRIES 7 /* places a break's words try: the middle, then 60, 120, 180 px either side */

/* Times at the left, and a break across the lanes wherever nothing happened for a while. */
static void draw_time(Layout *layout)
{
    double last_y = -100.0;
    SimTimeUs last_t = UINT64_MAX;
    double right = MARGIN_LEFT + LANE_WIDTH * diagram_lane_count(layout->model);
    text_at(layout, MARGIN_LEFT - 12.0, ROWS_TOP - 22.0, "end", "time", "time");
    for (uint32_t k = 0; k < layout->row_count; k++) {
        SimTimeUs t = row_at(layout, k)->t_us;
        SimTimeUs before = k > 0 ? row_at(layout, k - 1)->t_us : 0;
        double y = layout->y[k];
        if (k > 0 && (double)(t - before) / 1000.0 > BREAK_MS) {
            double mid = y - 24.0;
            char gap[64];
            snprintf(gap, sizeof gap, ELLIPSIS " %.1f s later " ELLIPSIS,
                     (double)(t - before) / 1e6);
            fprintf(layout->out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"#ffffff\"/>\n"
                    "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"#94a3b8\" "
                    "stroke-dasharray=\"2 2\"/>\n",
                    MARGIN_LEFT, mid - 6.0, right - MARGIN_LEFT, MARGIN_LEFT, mid - 6.0, right,
                    MARGIN_LEFT, mid + 6.0, right);
            /* across the lanes' middle, or else further out where it covers no badge */
            double places[GAP_TRIES][2];
            for (uint32_t i = 0; i < GAP_TRIES; i++) {
                double shift = 60.0 * ((i + 1) / 2) * (i % 2 == 1 ? -1.0 : 1.0);
                places[i][0] = (MARGIN_LEFT + right) / 2 + shift;
                places[i][1] = mid + 3.5;
            }
            text_at_free(layout, (const double(*)[2])places, GAP_TRIES, "middle", "gap", gap);
        }
        if (t == last_t || y - last_y < 13.0)
            continue;
        char label[32];
        format_time(label, sizeof label, t);
        /* further left where a wide badge of the first lane reaches the margin; else none */
        double places[][2] = {{MARGIN_LEFT - 12.0, y + 3.5},
                              {MARGIN_LEFT - 20.0, y + 3.5},
                              {MARGIN_LEFT - 28.0, y + 3.5},
                              {MARGIN_LEFT - 36.0, y + 3.5}};
        if (!text_at_free(layout, (const double(*)[2])places, sizeof places / sizeof places[0],
                          "end", "time", label))
            continue;
        fprintf(layout->out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e2e8f0\"/>\n",
                MARGIN_LEFT - 8.0, y, MARGIN_LEFT - 2.0, y);
        last_y = y;
        last_t = t;
    }
}

/* The title is one line at 16 px: wide enough a picture to hold it. */
static double header_width(const Scenario *scenario)
{
    char line[400];
    snprintf(line, sizeof line, "%s: %s", scenario->name, scenario->title);
    return 40.0 + text_width(line) * 16.0 / 11.0;
}

/* Which operations these are: the first to start, or the first to end with one outcome
 * (the only ones, when fewer did than were asked for). */
static void describe_selection(const SvgDiagram *diagram, char *text, size_t size)
{
    uint32_t count = diagram->operation_count;
    const char *plural = count == 1 ? "" : "s";
    if (!diagram->selected)
        snprintf(text, size, "the first %u operation%s", count, plural);
    else if (count < diagram->operations_max)
        snprintf(text, size, "the only %u operation%s that ended " OPEN_QUOTE "%s" CLOSE_QUOTE,
                 count, plural, outcome_name(diagram->selection.outcome));
    else
        snprintf(text, size, "the first %u operation%s that ended " OPEN_QUOTE "%s" CLOSE_QUOTE,
                 count, plural, outcome_name(diagram->selection.outcome));
}

static void draw_header(Layout *layout, uint64_t seed, const char *reading)
{
    char line[400], which[96];
    snprintf(line, sizeof line, "%s%s%s", layout->scenario->name,
             layout->scenario->title[0] ? ": " : "", layout->scenario->title);
    text_at(layout, 20.0, 28.0, "start", "title", line);
    describe_selection(layout->diagram, which, sizeof which);
    snprintf(line, sizeof line, "mode %s, seed %" PRIu64 ", %s. %s",
             mode_name(layout->diagram->mode), seed, which, reading);
    text_at(layout, 20.0, 48.0, "start", "sub", line);
}

/* One line per operation: what the trace shows happened to it. */
static double draw_summary(Layout *layout, double y)
{
    text_at(layout, 20.0, y, "start", "head", "What happened");
    for (uint32_t s = 0; s < layout->diagram->operation_count; s++) {
        const DiagramOutcome *summary =
            diagram_outcome(layout->model, layout->diagram->operations[s]);
        if (summary == NULL)
            continue; /* never: a diagram follows more operations than --svg-ops allows */
        /* Every operation settles by the end of a run, a stopped one included. */
        const char *outcome = summary->settled ? outcome_name(summary->outcome) : "unsettled";
        char line[256];
        const OperationSpec *spec = operation_spec(layout, layout->diagram->operations[s]);
        snprintf(line, sizeof line,
                 "op %" PRIu64 ": %u click%s, %u attempt%s, %s %u time%s; client %s",
                 layout->diagram->operations[s], summary->clicks, summary->clicks == 1 ? "" : "s",
                 summary->attempts, summary->attempts == 1 ? "" : "s",
                 spec == NULL || spec->kind == OPERATION_DEBIT ? "charged" : "changed state",
                 summary->effects, summary->effects == 1 ? "" : "s",
                 summary->told_success   ? "told success"
                 : summary->told_failure ? "told it failed"
                                         : "never told");
        y += 20.0;
        bool good = strcmp(outcome, "ok") == 0;
        badge(layout, 56.0, y - 4.0, outcome, good ? STYLE_GOOD : STYLE_BAD);
        text_at(layout, 92.0, y, "start", "line", line);
    }
    if (diagram_truncated(layout->model)) {
        y += 20.0;
        text_at(layout, 20.0, y, "start", "sub",
                "(the trace was cut: only the first 4000 records are drawn)");
    }
    return y;
}

static double draw_legend(Layout *layout, double y)
{
    FILE *out = layout->out;
    static const struct {
        const char *color;
        const char *text;
    } arrows[] = {{"#2563eb", "request"}, {"#059669", "answer 2xx"}, {"#d97706", "409 / 202"},
                  {"#dc2626", "5xx"},     {"#7c3aed", "charge"},     {"#0891b2", "delivery, ack"}};
    double x = 20.0;
    for (size_t i = 0; i < sizeof arrows / sizeof arrows[0]; i++) {
        arrow(out, x, y, x + 34.0, y, 0.0, arrows[i].color, false, NULL);
        text_at(layout, x + 40.0, y + 4.0, "start", "line", arrows[i].text);
        x += 46.0 + text_width(arrows[i].text) + 14.0;
    }
    arrow(out, x, y, x + 30.0, y, 0.0, "#94a3b8", true, NULL);
    cross(out, x + 30.0, y);
    text_at(layout, x + 44.0, y + 4.0, "start", "line", "lost by the network");
    y += 26.0;
    x = 20.0;
    static const char *const badges[] = {"key store", "handler run", "charged once",
                                         "charged again"};
    const Style styles[] = {STYLE_STORE, STYLE_WORK, STYLE_GOOD, STYLE_BAD};
    for (size_t i = 0; i < 4; i++) {
        double width = text_width(badges[i]) + 12.0;
        badge(layout, x + width / 2, y, badges[i], styles[i]);
        x += width + 14.0;
    }
    return y;
}

static void write_prologue(FILE *out, double width, double height)
{
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
            "<style>\n"
            "text { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; }\n"
            ".title { font-size: 16px; font-weight: bold; fill: #0f172a; }\n"
            ".sub { font-size: 12px; fill: #475569; }\n"
            ".head { font-size: 12.5px; font-weight: bold; fill: #0f172a; }\n"
            ".role { font-size: 10px; fill: #64748b; }\n"
            ".badge { font-size: 11px; }\n"
            ".line { font-size: 11.5px; fill: #1e293b; }\n"
            ".time { font-size: 10px; fill: #64748b; }\n"
            ".gap { font-size: 10px; fill: #475569; font-style: italic; }\n"
            ".spanword { font-size: 9px; font-style: italic; }\n"
            ".msg { font-size: 10.5px; paint-order: stroke; stroke: #ffffff; stroke-width: 3px;"
            " stroke-linejoin: round; }\n"
            "</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            width, height, width, height);
}

/* ------------------------------------------------------------------ landscape */

/* The slide: time flows right, each lane is a row. Rows are placed along x with the gaps of
 * the portrait page, and a badge takes the first of a few tiers above and below its lane's
 * line where it does not touch the badge before it, so labels never overlap and the time
 * axis stays short; when every tier is taken the row moves right. */
static const double SLIDE_TIER_OFFSETS[SLIDE_TIERS] = {0.0, -21.0, 21.0, -42.0, 42.0};

/* The lanes fill a page's height: as tall a row as fits (at most SLIDE_BAND), and as many
 * tiers of badges as the row holds with its spans above them. */
static void place_lanes_landscape(Layout *layout)
{
    uint32_t count = diagram_lane_count(layout->model);
    layout->band = fmin(SLIDE_BAND, (PAGE_H - PAGE_LANES_TOP - PAGE_BOTTOM) / count);
    layout->tiers = layout->band >= 120.0 ? 5 : layout->band >= 76.0 ? 3 : 1;
    for (uint32_t position = 0; position < count; position++)
        layout->lane_y[diagram_lane_at(layout->model, position)] =
            PAGE_LANES_TOP + layout->band * (position + 0.5);
    layout->rows_bottom = PAGE_LANES_TOP + layout->band * count;
}

/* The first tier of a lane where a badge of half-width half centred at x fits; when none
 * does, the one that frees first, and *x moves right to where it fits. */
static uint32_t free_tier(const double tier_right[SLIDE_TIERS], uint32_t tiers, double *x,
                          double half)
{
    uint32_t best = 0;
    for (uint32_t t = 0; t < tiers; t++) {
        if (tier_right[t] + SLIDE_BADGE_GAP <= *x - half)
            return t;
        if (tier_right[t] < tier_right[best])
            best = t;
    }
    *x = tier_right[best] + SLIDE_BADGE_GAP + half;
    return best;
}

/* Takes a tier for row k's badge on its lane and, for an effect, one for its badge on the
 * ledger's line, drawn at the same x; returns that x (moved right until both fit). */
static double place_badges(Layout *layout, double tier_right[][SLIDE_TIERS], uint32_t k,
                           const char *label, double x)
{
    const DiagramRow *row = row_at(layout, k);
    const DiagramItem *mark = diagram_item(layout->model, row->item);
    int ledger = diagram_ledger(layout->model);
    bool effect = row->event == TRACE_EXECUTE && ledger != DIAGRAM_NO_LANE &&
                  operation_slot(layout->diagram, mark->operation) >= 0;
    char effect_text[96] = "";
    if (effect)
        effect_label(layout, mark, effect_text, sizeof effect_text);
    double half = (text_width(label) + 12.0) / 2,
           effect_half = (text_width(effect_text) + 12.0) / 2;
    uint32_t tier, effect_tier = 0;
    for (;;) {
        double at = x;
        tier = free_tier(tier_right[row->lane], layout->tiers, &at, half);
        if (effect)
            effect_tier = free_tier(tier_right[ledger], layout->tiers, &at, effect_half);
        if (at == x)
            break;
        x = at; /* moved for one lane: check the other again there */
    }
    tier_right[row->lane][tier] = x + half;
    layout->tier_offset[k] = SLIDE_TIER_OFFSETS[tier];
    if (effect) {
        tier_right[ledger][effect_tier] = x + effect_half;
        layout->ledger_offset[k] = SLIDE_TIER_OFFSETS[effect_tier];
    }
    return x;
}

static void place_rows_landscape(Layout *layout)
{
    double tier_right[DIAGRAM_LANES_MAX][SLIDE_TIERS];
    for (uint32_t lane = 0; lane < DIAGRAM_LANES_MAX; lane++)
        for (uint32_t t = 0; t < SLIDE_TIERS; t++)
            tier_right[lane][t] = -1e9;
    double x = SLIDE_ROWS_LEFT;
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        char label[128];
        Style style;
        bool has_badge = describe(layout, row, label, sizeof label, &style);
        layout->start[k] = 0.0;
        layout->tier_offset[k] = 0.0;
        if (k > 0) {
            const DiagramRow *previous = row_at(layout, k - 1);
            double dt_ms = (double)(row->t_us - previous->t_us) / 1000.0;
            bool sends = row->event == TRACE_TRANSMIT || row->event == TRACE_LOST;
            bool leaves_badge =
                dt_ms == 0 && sends && !is_message(previous) && previous->lane == row->lane;
            bool follows_arrow = dt_ms == 0 && is_message(previous) && is_message(row) &&
                                 row->event != TRACE_DELIVER;
            x += leaves_badge ? 0.0 : follows_arrow ? 9.0 : gap_for(dt_ms);
            /* An arrow leaving a badge on the lane's line starts at the badge's edge. */
            if (leaves_badge && layout->tier_offset[k - 1] == 0.0)
                layout->start[k] = BADGE_HEIGHT; /* vertical: half the height is what counts */
        }
        if (has_badge && row->lane >= 0)
            x = place_badges(layout, tier_right, k, label, x);
        layout->time_x[k] = x;
    }
    layout->rows_right = x;
}

/* An arrow across lanes, its label beside it: a third of the way, where the arrows leaving
 * one lane have not met the next lane's badges yet, or else the first place along the arrow
 * where it covers no word (the view's rule: words never overlap); where none is free, left
 * out (dropped_label). */
static void arrow_across(Layout *layout, double x1, double y1, double x2, double y2, double start,
                         const char *color, bool dashed, const char *label)
{
    arrow(layout->out, x1, y1, x2, y2, start, color, dashed, NULL);
    if (label[0] == '\0')
        return;
    /* Right of the arrow, then left of it, then further out, where a place beside its end
     * (clear of a cross or an arrowhead) is tried too. */
    static const double along[] = {0.33, 0.5, 0.2, 0.66, 0.8, 0.1, 1.0};
    static const double sides[] = {5.0, -5.0, 22.0, -22.0};
    enum { ALONG = sizeof along / sizeof along[0], SIDES = sizeof sides / sizeof sides[0] };
    double spots[SIDES * ALONG][2], boxes[SIDES * ALONG][4];
    const char *anchors[SIDES * ALONG];
    size_t count = 0;
    for (size_t side = 0; side < SIDES; side++) {
        for (size_t i = 0; i < ALONG - (fabs(sides[side]) < 10.0); i++, count++) {
            spots[count][0] = x1 + (x2 - x1) * along[i] + sides[side];
            spots[count][1] = y1 + (y2 - y1) * along[i] + 4.0;
            anchors[count] = sides[side] > 0 ? "start" : "end";
            text_box(spots[count][0], spots[count][1], anchors[count], "msg", label, boxes[count]);
        }
    }
    int chosen = take_free_box(layout, (const double(*)[4])boxes, count, label);
    if (chosen < 0) {
        const double line[4] = {x1, y1, x2, y2};
        dropped_label(layout, line, along[0], color, label);
    } else {
        label_text(layout->out, spots[chosen][0], spots[chosen][1], anchors[chosen], color, label);
    }
}

static void draw_message_landscape(Layout *layout, uint32_t k)
{
    const DiagramItem *sent = diagram_item(layout->model, row_at(layout, k)->item);
    if (sent == NULL)
        return;
    double y1 = layout->lane_y[sent->from], y2 = layout->lane_y[sent->to], x1 = layout->time_x[k];
    char label[96];
    diagram_message_label(sent, label, sizeof label);
    const char *color = message_color(sent);
    double start = layout->start[k];
    if (sent->end_event == TRACE_LOST) {
        char lost[120];
        snprintf(lost, sizeof lost, "%s, lost", label);
        double ye = y1 + (y2 - y1) * 0.6, xe = x1 + 18.0;
        arrow_across(layout, x1, y1, xe, ye, start, "#94a3b8", true, lost);
        cross(layout->out, xe, ye);
        return;
    }
    if (sent->end_row != UINT32_MAX && layout->position[sent->end_row] > k) {
        arrow_across(layout, x1, y1, layout->time_x[layout->position[sent->end_row]], y2, start,
                     color, false, label);
        return;
    }
    arrow_across(layout, x1, y1, x1 + 20.0, y1 + (y2 - y1) * 0.5, start, color, true, label);
}

static void draw_charge_landscape(Layout *layout, const DiagramItem *mark, double x, double y,
                                  double ledger_offset)
{
    int ledger = diagram_ledger(layout->model);
    if (ledger == DIAGRAM_NO_LANE)
        return;
    char label[96];
    effect_label(layout, mark, label, sizeof label);
    double ledger_y = layout->lane_y[ledger] + ledger_offset;
    fprintf(layout->out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7c3aed\" "
            "stroke-width=\"1.2\" stroke-dasharray=\"2 3\"/>\n",
            x, y + BADGE_HEIGHT / 2, x, ledger_y - BADGE_HEIGHT / 2);
    badge_drawn(layout->out, x, ledger_y, label, mark->effects >= 2 ? STYLE_BAD : STYLE_GOOD);
}

static void draw_rows_landscape(Layout *layout)
{
    fputs("<g id=\"messages\">\n", layout->out);
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        if (row->event == TRACE_TRANSMIT || row->event == TRACE_LOST)
            draw_message_landscape(layout, k);
    }
    fputs("</g>\n<g id=\"decisions\">\n", layout->out);
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        char label[128];
        Style style;
        if (!describe(layout, row, label, sizeof label, &style))
            continue;
        const DiagramItem *mark = diagram_item(layout->model, row->item);
        double x = layout->time_x[k], y = layout->lane_y[mark->from] + layout->tier_offset[k];
        if (row->event == TRACE_LOST_OFFLINE)
            cross(layout->out, x - text_width(label) / 2 - 16.0, y);
        badge_drawn(layout->out, x, y, label, style);
        if (draws_charge(layout, k))
            draw_charge_landscape(layout, mark, x, y, layout->ledger_offset[k]);
    }
    fputs("</g>\n", layout->out);
}

/* A bracket under the client's line from each send to its timeout: the time it waited. */
static void draw_waits_landscape(Layout *layout)
{
    for (uint32_t k = 0; k < layout->row_count; k++) {
        const DiagramRow *row = row_at(layout, k);
        const DiagramItem *timeout = diagram_item(layout->model, row->item);
        if (row->event != TRACE_TIMEOUT || timeout == NULL)
            continue;
        for (uint32_t j = k; j-- > 0;) {
            const DiagramRow *earlier = row_at(layout, j);
            const DiagramItem *sent = diagram_item(layout->model, earlier->item);
            if ((earlier->event == TRACE_SEND || earlier->event == TRACE_RETRY) && sent != NULL &&
                sent->operation == timeout->operation && sent->attempt == timeout->attempt &&
                earlier->lane == row->lane) {
                double y = layout->lane_y[row->lane] + layout->band / 2 - 12.0;
                fprintf(layout->out,
                        "<path d=\"M%.1f %.1fv5H%.1fv-5\" fill=\"none\" stroke=\"#ea580c\" "
                        "stroke-width=\"1.2\" class=\"wait\"/>\n",
                        layout->time_x[j], y, layout->time_x[k]);
                break;
            }
        }
    }
}

/* Each lane's line and, every other lane, its shaded row: in the strip of rows. */
static void draw_lane_lines_landscape(Layout *layout)
{
    FILE *out = layout->out;
    double right = layout->rows_right + 34.0;
    for (uint32_t position = 0; position < diagram_lane_count(layout->model); position++) {
        int index = diagram_lane_at(layout->model, position);
        const DiagramLane *lane = diagram_lane(layout->model, index);
        double y = layout->lane_y[index];
        if (position % 2 == 1)
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill=\"#f8fafc\"/>\n",
                    PAGE_STRIP_LEFT, y - layout->band / 2, right + 24.0, layout->band);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cbd5e1\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>\n",
                PAGE_STRIP_LEFT, y, right, y, lane->ledger ? "1 4" : "6 4");
    }
}

/* The lanes' names and roles down the left of every page, with the axis' name. */
static void draw_lane_heads_landscape(Layout *layout)
{
    FILE *out = layout->out;
    for (uint32_t position = 0; position < diagram_lane_count(layout->model); position++) {
        int index = diagram_lane_at(layout->model, position);
        const DiagramLane *lane = diagram_lane(layout->model, index);
        double y = layout->lane_y[index];
        bool client = lane->kind == NODE_CLIENT_GROUP && !lane->ledger;
        fprintf(out, "<rect x=\"0\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                y - layout->band / 2, PAGE_ROWS_X, layout->band,
                position % 2 == 1 ? "#f8fafc" : "#ffffff");
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"150\" height=\"38\" rx=\"6\" fill=\"%s\" "
                "stroke=\"#334155\"/>\n",
                SLIDE_HEAD_X - 75.0, y - 19.0,
                client         ? "#eff6ff"
                : lane->ledger ? "#f0fdf4"
                               : "#f8fafc");
        text_at(layout, SLIDE_HEAD_X, y - 2.0, "middle", "head", lane->name);
        text_at(layout, SLIDE_HEAD_X, y + 12.0, "middle", "role", lane_role(layout, index));
    }
    text_at(layout, SLIDE_HEAD_X, PAGE_LANES_TOP - 10.0, "middle", "time", "time " ARROW_RIGHT);
}

/* Times along the top, and a break down the lanes wherever nothing happened for a while. */
static void draw_time_landscape(Layout *layout)
{
    double last_x = -100.0;
    SimTimeUs last_t = UINT64_MAX;
    double top = PAGE_LANES_TOP, bottom = layout->rows_bottom;
    for (uint32_t k = 0; k < layout->row_count; k++) {
        SimTimeUs t = row_at(layout, k)->t_us;
        SimTimeUs before = k > 0 ? row_at(layout, k - 1)->t_us : 0;
        double x = layout->time_x[k];
        if (k > 0 && (double)(t - before) / 1000.0 > BREAK_MS) {
            double mid = x - 24.0;
            char gap[64];
            snprintf(gap, sizeof gap, ELLIPSIS " %.1f s later " ELLIPSIS,
                     (double)(t - before) / 1e6);
            fprintf(layout->out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"%.1f\" fill=\"#ffffff\"/>\n"
                    "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"#94a3b8\" "
                    "stroke-dasharray=\"2 2\"/>\n",
                    mid - 6.0, top, bottom - top, mid - 6.0, top, bottom, mid + 6.0, top, bottom);
            /* down the lanes' middle, or else further up or down where it covers no badge */
            for (uint32_t i = 0; i < GAP_TRIES; i++) {
                double shift = 60.0 * ((i + 1) / 2) * (i % 2 == 1 ? -1.0 : 1.0);
                double x = mid + 3.5, y = (top + bottom) / 2 + shift, box[4];
                text_box_turned(x, y, "middle", "gap", gap, false, box);
                if (box[1] < top || box[1] + box[3] > bottom || !box_free(layout, box))
                    continue;
                take_box(layout, box[0], box[1], box[2], box[3], gap);
                fprintf(layout->out,
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"gap\" "
                        "transform=\"rotate(-90 %.1f %.1f)\">",
                        x, y, x, y);
                xml_text_write(layout->out, gap);
                fputs("</text>\n", layout->out);
                break;
            }
        }
        if (t == last_t || x - last_x < 58.0)
            continue;
        char label[32];
        format_time(label, sizeof label, t);
        text_at(layout, x, top - 10.0, "middle", "time", label);
        fprintf(layout->out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e2e8f0\"/>\n", x,
                top - 6.0, x, top - 1.0);
        last_x = x;
        last_t = t;
    }
}

/* The slides: a 16:9 page per stretch of the story (the rows' strip seen through each
 * page's window, the lanes' heads and the title on every page), then a page with what
 * happened to each operation and the legend, stacked top to bottom in one file; each page
 * is also a view of its own (FILE.svg#page-2). Every word is written once (pages show it
 * through <use>), so the file says what the portrait page says. */
static void write_landscape(Layout *layout, uint64_t seed)
{
    FILE *out = layout->out;
    place_lanes_landscape(layout);
    find_groups(layout);
    sort_instants(layout);
    place_rows_landscape(layout);
    double strip = layout->rows_right + 60.0 - PAGE_STRIP_LEFT;
    uint32_t pages =
        strip <= PAGE_WINDOW ? 1 : 1 + (uint32_t)ceil((strip - PAGE_WINDOW) / PAGE_STEP);
    layout->width = PAGE_W;
    layout->height = PAGE_H * (pages + 1);
    write_prologue(out, layout->width, layout->height);
    fputs("<style>\n.page { font-size: 10px; fill: #94a3b8; }\n</style>\n", out);
    fputs("<defs>\n<g id=\"slide-title\">\n", out);
    layout->surface = SURFACE_FRAME;
    draw_header(layout, seed, "Time flows right; quiet stretches are compressed.");
    fputs("</g>\n<g id=\"slide-heads\">\n", out);
    draw_lane_heads_landscape(layout);
    fputs("</g>\n<g id=\"slide-rows\">\n", out);
    layout->surface = SURFACE_STRIP;
    take_badges(layout, true); /* before any word that may move looks for a place */
    draw_lane_lines_landscape(layout);
    draw_time_landscape(layout);
    draw_waits_landscape(layout);
    draw_spans(layout, true);
    draw_rows_landscape(layout);
    fputs("</g>\n</defs>\n", out);
    for (uint32_t p = 0; p <= pages; p++) {
        double top = PAGE_H * p;
        fprintf(out,
                "<view id=\"page-%u\" viewBox=\"0 %.0f %.0f %.0f\"/>\n"
                "<svg x=\"0\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\">\n"
                "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\" stroke=\"#e2e8f0\"/>\n",
                p + 1, top, PAGE_W, PAGE_H, top, PAGE_W, PAGE_H, PAGE_W, PAGE_H, PAGE_W, PAGE_H);
        if (p < pages) {
            fputs("<use href=\"#slide-title\"/>\n", out);
            fprintf(out,
                    "<svg x=\"%.0f\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                    "viewBox=\"%.0f 0 %.0f %.0f\">\n<use href=\"#slide-rows\"/>\n</svg>\n",
                    PAGE_ROWS_X, PAGE_W - PAGE_ROWS_X, PAGE_H, PAGE_STRIP_LEFT + PAGE_STEP * p,
                    PAGE_W - PAGE_ROWS_X, PAGE_H);
            fputs("<use href=\"#slide-heads\"/>\n", out);
            layout->surface = SURFACE_PAGE_NUMBER + p; /* each alone on its page's frame */
        } else {
            layout->surface = SURFACE_SUMMARY;
            double legend_top = draw_summary(layout, 48.0) + 56.0;
            draw_legend(layout, legend_top);
        }
        char number[48];
        snprintf(number, sizeof number, "%u / %u", p + 1, pages + 1);
        text_at(layout, PAGE_W - 20.0, PAGE_H - 6.0, "end", "page", number);
        fputs("</svg>\n", out);
    }
}

/* ------------------------------------------------------------------ writing */

static void write_empty(Layout *layout)
{
    write_prologue(layout->out, 760.0, 90.0);
    char line[256];
    snprintf(line, sizeof line, "%s: no operation started in mode %s", layout->scenario->name,
             mode_name(layout->diagram->mode));
    text_at(layout, 20.0, 48.0, "start", "title", line);
}

static void write_portrait(Layout *layout, uint64_t seed)
{
    const SvgDiagram *diagram = layout->diagram;
    uint32_t lanes = diagram_lane_count(diagram->model);
    place_lanes(layout);
    find_groups(layout);
    sort_instants(layout);
    place_rows(layout);
    double summary_top = layout->rows_bottom + 76.0;
    double legend_top = summary_top + 20.0 * (diagram->operation_count + 1) + 36.0 +
                        (diagram_truncated(diagram->model) ? 20.0 : 0.0);
    layout->width = fmax(880.0, MARGIN_LEFT + LANE_WIDTH * lanes + 24.0);
    layout->width = fmax(layout->width, header_width(layout->scenario));
    layout->height = legend_top + 44.0;
    write_prologue(layout->out, layout->width, layout->height);
    draw_header(layout, seed, "Time flows down; quiet stretches are compressed.");
    draw_lanes(layout);
    take_badges(layout, false); /* before any word that may move looks for a place */
    draw_time(layout);
    draw_waits(layout);
    draw_spans(layout, false);
    draw_messages(layout);
    draw_events(layout);
    draw_summary(layout, summary_top);
    draw_legend(layout, legend_top);
}

bool report_svg_layout_from_name(const char *name, SvgLayout *layout)
{
    static const char *const names[REPORT_SVG_LAYOUT_COUNT] = {"portrait", "landscape"};
    for (uint32_t l = 0; l < REPORT_SVG_LAYOUT_COUNT; l++) {
        if (strcmp(name, names[l]) == 0) {
            *layout = (SvgLayout)l;
            return true;
        }
    }
    return false;
}

bool report_svg_write(FILE *stream, const SvgDiagram *diagram, const Scenario *scenario,
                      uint64_t seed)
{
    return report_svg_write_layout(stream, diagram, scenario, seed, REPORT_SVG_PORTRAIT);
}

bool report_svg_write_layout(FILE *stream, const SvgDiagram *diagram, const Scenario *scenario,
                             uint64_t seed, SvgLayout shape)
{
    return report_svg_write_words(stream, diagram, scenario, seed, shape, NULL, NULL);
}

bool report_svg_write_words(FILE *stream, const SvgDiagram *diagram, const Scenario *scenario,
                            uint64_t seed, SvgLayout shape, SvgWordBox **words,
                            uint32_t *word_count)
{
    uint32_t count = diagram_row_count(diagram->model);
    Layout layout = {.out = stream,
                     .diagram = diagram,
                     .model = diagram->model,
                     .scenario = scenario,
                     .row_count = count};
    bool ok = true;
    if (count == 0) {
        write_empty(&layout);
    } else {
        layout.order = calloc(count, sizeof *layout.order);
        layout.position = calloc(count, sizeof *layout.position);
        layout.y = calloc(count, sizeof *layout.y);
        layout.start = calloc(count, sizeof *layout.start);
        layout.time_x = calloc(count, sizeof *layout.time_x);
        layout.tier_offset = calloc(count, sizeof *layout.tier_offset);
        layout.ledger_offset = calloc(count, sizeof *layout.ledger_offset);
        ok = layout.order != NULL && layout.position != NULL && layout.y != NULL &&
             layout.start != NULL && layout.time_x != NULL && layout.tier_offset != NULL &&
             layout.ledger_offset != NULL;
        if (ok && shape == REPORT_SVG_LANDSCAPE)
            write_landscape(&layout, seed);
        else if (ok)
            write_portrait(&layout, seed);
    }
    if (ok) {
        fputs("</svg>\n", stream);
        ok = !ferror(stream);
    }
    free(layout.order);
    free(layout.position);
    free(layout.y);
    free(layout.start);
    free(layout.time_x);
    free(layout.tier_offset);
    free(layout.ledger_offset);
    if (words != NULL) {
        *words = layout.words;
        *word_count = layout.words != NULL ? layout.word_count : 0;
    } else {
        free(layout.words);
    }
    return ok;
}

/* ------------------------------------------------------------------ finding operations */

struct SvgSearch {
    Mode mode;
    uint32_t operations_max;
    SvgSelection selection;
};

SvgSearch *report_svg_search_create(Mode mode, Outcome outcome, uint32_t operations_max)
{
    SvgSearch *search = calloc(1, sizeof *search);
    if (search == NULL)
        return NULL;
    search->mode = mode;
    search->operations_max = operations_max < 1 ? 1
                             : operations_max > REPORT_SVG_OPERATIONS_MAX
                                 ? REPORT_SVG_OPERATIONS_MAX
                                 : operations_max;
    search->selection.outcome = outcome;
    return search;
}

void report_svg_search_destroy(SvgSearch *search)
{
    free(search);
}

/* The model says when an operation is done and how it ended: its "settled" record. */
static void search_collect(void *context, const TraceRecord *record)
{
    SvgSearch *search = context;
    SvgSelection *selection = &search->selection;
    Outcome outcome;
    if (selection->count == search->operations_max || record->mode != search->mode ||
        !settled_outcome(record, &outcome) || outcome != selection->outcome)
        return;
    selection->operations[selection->count++] = record->operation;
}

TraceSink report_svg_search_sink(SvgSearch *search)
{
    return (TraceSink){.write = search_collect, .context = search};
}

bool report_svg_search_done(const SvgSearch *search)
{
    return search->selection.count == search->operations_max;
}

const SvgSelection *report_svg_search_result(const SvgSearch *search)
{
    return &search->selection;
}
